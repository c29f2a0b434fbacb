/* verify_strided.c: calls on strided views (attngen_fwd_args.q_strides ...) against the call
 * on dense tensors (verify.h, attngen__verify_strided): the tests on every backend. */
#include "verify.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Logical [B, S, H, D] rows (src: dense bshd) to / from a tensor at element strides s. */
static void place(uint16_t *dst, const uint16_t *src, int B, int S, int H, int D,
                  const int64_t s[3]) {
  for (int b = 0; b < B; b++)
    for (int i = 0; i < S; i++)
      for (int h = 0; h < H; h++)
        memcpy(dst + b * s[0] + i * s[1] + h * s[2], src + (((size_t)b * S + i) * H + h) * D,
               (size_t)D * 2);
}
static void gather(uint16_t *dst, const uint16_t *src, int B, int S, int H, int D,
                   const int64_t s[3]) {
  for (int b = 0; b < B; b++)
    for (int i = 0; i < S; i++)
      for (int h = 0; h < H; h++)
        memcpy(dst + (((size_t)b * S + i) * H + h) * D, src + b * s[0] + i * s[1] + h * s[2],
               (size_t)D * 2);
}

/* One call's memory: an input buffer holding q, k and v at element offsets, an output
 * buffer (poisoned), the strides (all 0: dense in the call's layout). */
typedef struct view {
  size_t in_elems, out_elems, k_off, v_off;
  int64_t sq[3], sk[3], so[3]; /* the tensors' strides, as placed */
  int give_out;                /* pass so as args.out_strides (else out is dense) */
  int give_in;                 /* pass sq, sk as args.q/k/v_strides */
} view;

/* Places the inputs as `w` says, runs `call` on ctx, gathers out (logical bshd) into got and
 * the LSE into lse; *outside = output elements written outside the view's rows. */
static attngen_status run_view(attngen_context *ctx, const attngen_fwd_args *call,
                               const attngen__inputs *in, const view *w, uint16_t *got,
                               float *lse, int64_t *outside) {
  const int B = call->batch, S = call->seqlen_q, H = call->heads, D = call->head_dim;
  const int Hkv = call->heads_kv > 0 ? call->heads_kv : H;
  const size_t nq = (size_t)B * S * H * D, lse_bytes = (size_t)B * H * S * 4;
  uint16_t *hin = calloc(w->in_elems, 2), *hout = malloc(w->out_elems * 2);
  void *din = NULL, *dout = NULL, *dlse = NULL;
  attngen_status st = hin && hout ? ATTNGEN_STATUS_OK : ATTNGEN_STATUS_OUT_OF_MEMORY;
  if (!st) {
    place(hin, in->q, B, S, H, D, w->sq);
    place(hin + w->k_off, in->k, B, S, Hkv, D, w->sk);
    place(hin + w->v_off, in->v, B, S, Hkv, D, w->sk);
    st = attngen_malloc(ctx, w->in_elems * 2, &din);
  }
  if (!st) st = attngen_memcpy_htod(ctx, din, hin, w->in_elems * 2);
  if (!st) st = attngen_malloc(ctx, w->out_elems * 2, &dout);
  if (!st) st = attngen_memset(ctx, dout, 0xFF, w->out_elems * 2); /* ATTNGEN__BF16_POISON */
  if (!st) st = attngen_malloc(ctx, lse_bytes, &dlse);
  if (!st) {
    attngen_fwd_args a = *call;
    a.q = din;
    a.k = (uint16_t *)din + w->k_off;
    a.v = (uint16_t *)din + w->v_off;
    a.out = dout;
    a.lse = dlse;
    if (w->give_in) {
      memcpy(a.q_strides, w->sq, sizeof a.q_strides);
      memcpy(a.k_strides, w->sk, sizeof a.k_strides);
      memcpy(a.v_strides, w->sk, sizeof a.v_strides);
    }
    if (w->give_out) memcpy(a.out_strides, w->so, sizeof a.out_strides);
    st = attngen_fwd(ctx, &a);
  }
  if (!st) st = attngen_synchronize(ctx, call->stream);
  if (!st) st = attngen_memcpy_dtoh(ctx, hout, dout, w->out_elems * 2);
  if (!st) st = attngen_memcpy_dtoh(ctx, lse, dlse, lse_bytes);
  if (!st) {
    gather(got, hout, B, S, H, D, w->so);
    /* poison the view's rows: then every element is poison unless written outside them */
    uint16_t *poison = malloc(nq * 2);
    if (!poison) {
      st = ATTNGEN_STATUS_OUT_OF_MEMORY;
    } else {
      for (size_t i = 0; i < nq; i++) poison[i] = ATTNGEN__BF16_POISON;
      place(hout, poison, B, S, H, D, w->so);
      *outside = 0;
      for (size_t i = 0; i < w->out_elems; i++) *outside += hout[i] != ATTNGEN__BF16_POISON;
      free(poison);
    }
  }
  if (din) attngen_free(ctx, din);
  if (dout) attngen_free(ctx, dout);
  if (dlse) attngen_free(ctx, dlse);
  free(hin);
  free(hout);
  return st;
}

attngen_status attngen__verify_strided(const attngen__strided_args *s, attngen__strided_result *r) {
  memset(r, 0, sizeof *r);
  const int B = s->batch, H = s->heads, Hkv = s->heads_kv > 0 ? s->heads_kv : s->heads;
  const int S = s->seqlen, D = s->head_dim;
  const attngen_layout L = s->layout;
  attngen__inputs in;
  attngen_status st = attngen__inputs_make_hd(&in, ATTNGEN__INPUT_REALISTIC, s->seed,
                                              ATTNGEN_LAYOUT_BSHD, B, H, Hkv, S, S, D,
                                              1.0f / sqrtf((float)D));
  if (st) return st;
  attngen_fwd_args a;
  attngen_fwd_args_init(&a);
  a.batch = B, a.heads = H, a.heads_kv = Hkv == H ? 0 : Hkv, a.seqlen_q = S, a.seqlen_kv = S;
  a.head_dim = D, a.layout = L, a.rounding = s->rounding, a.causal = s->causal;
  a.variant = s->variant, a.softmax_scale = 1.0f / sqrtf((float)D);
  const size_t nq = (size_t)B * S * H * D, nk = (size_t)B * S * Hkv * D;
  const size_t lse_n = (size_t)B * H * S;
  uint16_t *want = malloc(nq * 2), *got = malloc(nq * 2);
  float *lse_want = malloc(lse_n * 4), *lse_got = malloc(lse_n * 4);
  if (!want || !got || !lse_want || !lse_got) st = ATTNGEN_STATUS_OUT_OF_MEMORY;
  /* the dense call: q, k, v back to back, each dense in L, strides not given */
  view dense;
  memset(&dense, 0, sizeof dense);
  attngen__dense_strides_d(L, H, S, D, &dense.sq[0], &dense.sq[2], &dense.sq[1]);
  attngen__dense_strides_d(L, Hkv, S, D, &dense.sk[0], &dense.sk[2], &dense.sk[1]);
  memcpy(dense.so, dense.sq, sizeof dense.so);
  dense.k_off = nq, dense.v_off = nq + nk, dense.in_elems = nq + 2 * nk, dense.out_elems = nq;
  int64_t outside = 0;
  if (!st) st = run_view(s->ctx, &a, &in, &dense, want, lse_want, &outside);
  if (!st) {
    attngen_choice ch;
    st = attngen_explain(s->ctx, &a, &ch);
    if (!st) snprintf(r->variant, sizeof r->variant, "%s", ch.variant);
  }
  r->pass = !st && outside == 0;
  for (int vk = 0; vk < ATTNGEN__STRIDED_VIEWS && !st; vk++) {
    view w;
    memset(&w, 0, sizeof w);
    w.give_in = 1;
    if (vk == 0) { /* packed qkv: one [B, S, H + 2 H_kv, D] tensor; out dense in L */
      const int64_t row = (int64_t)(H + 2 * Hkv) * D;
      w.sq[0] = w.sk[0] = (int64_t)S * row, w.sq[1] = w.sk[1] = row, w.sq[2] = w.sk[2] = D;
      w.k_off = (size_t)H * D, w.v_off = (size_t)(H + Hkv) * D;
      w.in_elems = (size_t)B * S * row, w.out_elems = nq;
      memcpy(w.so, dense.sq, sizeof w.so);
    } else if (vk == 1) { /* permuted: every tensor in the other layout's order, out too */
      const attngen_layout o = L == ATTNGEN_LAYOUT_BSHD ? ATTNGEN_LAYOUT_BHSD : ATTNGEN_LAYOUT_BSHD;
      attngen__dense_strides_d(o, H, S, D, &w.sq[0], &w.sq[2], &w.sq[1]);
      attngen__dense_strides_d(o, Hkv, S, D, &w.sk[0], &w.sk[2], &w.sk[1]);
      memcpy(w.so, w.sq, sizeof w.so);
      w.give_out = 1;
      w.k_off = nq, w.v_off = nq + nk, w.in_elems = nq + 2 * nk, w.out_elems = nq;
    } else { /* padded: heads D + 8 apart, 64 elements between batch entries, out too */
      w.sq[2] = w.sk[2] = D + 8;
      w.sq[1] = (int64_t)H * (D + 8), w.sk[1] = (int64_t)Hkv * (D + 8);
      w.sq[0] = (int64_t)S * w.sq[1] + 64, w.sk[0] = (int64_t)S * w.sk[1] + 64;
      memcpy(w.so, w.sq, sizeof w.so);
      w.give_out = 1;
      w.k_off = (size_t)B * w.sq[0], w.v_off = w.k_off + (size_t)B * w.sk[0];
      w.in_elems = w.v_off + (size_t)B * w.sk[0], w.out_elems = (size_t)B * w.sq[0];
    }
    st = run_view(s->ctx, &a, &in, &w, got, lse_got, &r->outside_written[vk]);
    if (st) break;
    for (size_t i = 0; i < nq; i++) r->out_mismatch[vk] += got[i] != want[i];
    for (size_t i = 0; i < lse_n; i++)
      r->lse_mismatch[vk] += memcmp(&lse_got[i], &lse_want[i], 4) != 0;
    r->pass = r->pass && !r->out_mismatch[vk] && !r->lse_mismatch[vk] && !r->outside_written[vk];
  }
  if (st) r->pass = 0;
  free(want), free(got), free(lse_want), free(lse_got);
  attngen__inputs_free(&in);
  return st;
}
