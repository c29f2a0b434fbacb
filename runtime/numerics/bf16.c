/* bf16.c: fp32 <-> bf16 conversion (public attngen_bf16_round / attngen_bf16_to_float) and
 * small numeric helpers of numerics.h: bit casts, bf16 ULP distance, layout and rounding
 * names, dense strides and views. The formulas live in templates/common/bf16_round.h. */
#include <string.h>

#include "bf16_round.h"
#include "numerics.h"

uint32_t attngen__f32_bits(float x) {
  uint32_t u;
  memcpy(&u, &x, sizeof u);
  return u;
}

float attngen__f32_from_bits(uint32_t u) {
  float x;
  memcpy(&x, &u, sizeof x);
  return x;
}

uint16_t attngen_bf16_round(float x, attngen_rounding mode) {
  return (uint16_t)ag_bf16_round(attngen__f32_bits(x), (int)mode);
}

float attngen_bf16_to_float(uint16_t b) {
  return attngen__f32_from_bits(ag_bf16_to_f32_bits(b));
}

float attngen__scale_log2(float softmax_scale) {
  return (float)((double)softmax_scale * 1.4426950408889634074);
}

int attngen__bf16_is_nan(uint16_t b) { return (b & 0x7FFFu) > 0x7F80u; }

int attngen__bf16_is_inf(uint16_t b) { return (b & 0x7FFFu) == 0x7F80u; }

/* Monotone map of a bf16 pattern to an integer: -x maps to -(map of x), both zeros to 0. */
static int32_t bf16_ordered(uint16_t b) {
  int32_t mag = (int32_t)(b & 0x7FFFu);
  return (b & 0x8000u) ? -mag : mag;
}

int32_t attngen__bf16_ulp_diff(uint16_t a, uint16_t b) { return bf16_ordered(a) - bf16_ordered(b); }


void attngen__dense_strides_d(attngen_layout layout, int heads, int seqlen, int head_dim,
                              int64_t *sb, int64_t *sh, int64_t *ss) {
  const int64_t d = head_dim;
  *sb = (int64_t)heads * seqlen * d;
  if (layout == ATTNGEN_LAYOUT_BHSD) {
    *sh = (int64_t)seqlen * d;
    *ss = d;
  } else {
    *sh = d;
    *ss = (int64_t)heads * d;
  }
}

const int64_t *attngen__given_strides(const attngen_fwd_args *a, attngen__call_tensor t) {
  switch (t) {
  case ATTNGEN__T_Q: return a->q_strides;
  case ATTNGEN__T_K: return a->k_strides;
  case ATTNGEN__T_V: return a->v_strides;
  default: return a->out_strides;
  }
}

int attngen__strides_given(const attngen_fwd_args *a, attngen__call_tensor t) {
  const int64_t *g = attngen__given_strides(a, t);
  return g[0] != 0 || g[1] != 0 || g[2] != 0;
}

void attngen__call_strides(const attngen_fwd_args *a, attngen__call_tensor t, int64_t s[3]) {
  const int packed = a->cu_seqlens_q != NULL;
  if (attngen__strides_given(a, t)) {
    const int64_t *g = attngen__given_strides(a, t);
    s[0] = packed ? 0 : g[0];
    s[1] = g[1];
    s[2] = g[2];
    return;
  }
  const int kv = t == ATTNGEN__T_K || t == ATTNGEN__T_V;
  const int heads = kv && a->heads_kv > 0 ? a->heads_kv : a->heads;
  const int rows = kv ? (packed ? a->total_kv : a->seqlen_kv) : (packed ? a->total_q : a->seqlen_q);
  attngen__dense_strides_d(a->layout, heads, rows, a->head_dim, &s[0], &s[2], &s[1]);
  if (packed) s[0] = 0;
}

attngen__tensor_view attngen__view_in_d(const void *data, attngen_layout layout, int heads,
                                        int seqlen, int head_dim) {
  attngen__tensor_view v = {(const uint16_t *)data, 0, 0, 0, head_dim};
  attngen__dense_strides_d(layout, heads, seqlen, head_dim, &v.sb, &v.sh, &v.ss);
  return v;
}

attngen__out_view attngen__view_out_d(void *data, attngen_layout layout, int heads, int seqlen,
                                      int head_dim) {
  attngen__out_view v = {(uint16_t *)data, 0, 0, 0, head_dim};
  attngen__dense_strides_d(layout, heads, seqlen, head_dim, &v.sb, &v.sh, &v.ss);
  return v;
}

attngen__f64_view attngen__view_f64_d(double *data, attngen_layout layout, int heads,
                                      int seqlen, int head_dim) {
  attngen__f64_view v = {data, 0, 0, 0, head_dim};
  attngen__dense_strides_d(layout, heads, seqlen, head_dim, &v.sb, &v.sh, &v.ss);
  return v;
}
