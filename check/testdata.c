/* testdata.c: seeded, reproducible bf16 inputs for checks and tests (splitmix64, never
 * rand()): uniform, realistic (normal with per-channel gains) and large-score inputs, drawn in
 * logical (b, h, s, d) order so both layouts hold the same logical tensors. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "verify.h"


void attngen__rng_seed(attngen__rng *r, uint64_t seed) { r->state = seed; }

uint64_t attngen__rng_next(attngen__rng *r) {
  uint64_t z = (r->state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

uint32_t *attngen__rng_words(attngen__rng *r, size_t n, int pct) {
  uint32_t *w = calloc(n ? n : 1, sizeof(uint32_t));
  for (size_t i = 0; w && i < n; ++i)
    for (int b = 0; b < 32; ++b)
      if ((int)(attngen__rng_next(r) % 100) < pct) w[i] |= 1u << b;
  return w;
}

double attngen__rng_uniform(attngen__rng *r) {
  return (double)(attngen__rng_next(r) >> 11) * 0x1.0p-53;
}

double attngen__rng_normal(attngen__rng *r) {
  const double u1 = 1.0 - attngen__rng_uniform(r); /* (0, 1]: log is finite */
  const double u2 = attngen__rng_uniform(r);
  return sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
}

/* x rounded to bf16; a zero result is replaced by the smallest normal bf16 with x's sign. */
static uint16_t nonzero_bf16(double x) {
  uint16_t b = attngen_bf16_round((float)x, ATTNGEN_ROUND_RTNE);
  if ((b & 0x7FFFu) == 0) b = (uint16_t)((b & 0x8000u) | 0x0080u);
  return b;
}

void attngen__fill_uniform(attngen__out_view t, int batch, int heads, int seqlen,
                           attngen__rng *r, double lo, double hi) {
  const int D = attngen__view_d(t);
  for (int b = 0; b < batch; ++b) {
    for (int h = 0; h < heads; ++h) {
      for (int s = 0; s < seqlen; ++s) {
        uint16_t *row = t.data + attngen__view_offset(t.sb, t.sh, t.ss, b, h, s);
        for (int d = 0; d < D; ++d) row[d] = nonzero_bf16(lo + (hi - lo) * attngen__rng_uniform(r));
      }
    }
  }
}

/* Puts a bf16 tensor of n elements on a fixed-point grid: one power-of-two step for the
 * whole tensor, the smallest with max|x| <= 255 steps; every value becomes a nonzero integer
 * multiple of the step (|i| <= 255, exact in bf16). With q and k on such grids every product
 * q_d k_d is an integer multiple of one step below 2^16 steps and every partial sum of a
 * dot product of up to 256 terms stays at or below 2^24 steps, so dot products are exact in fp32 in any
 * summation order: scores, and the bf16 rounding of P that depends on them, are the same
 * in every kernel and in the reference. Elementwise with a tensor-wide step, so the result
 * does not depend on the layout. */
static void quantize_fixed(uint16_t *t, size_t n) {
  double max_abs = 0.0;
  for (size_t i = 0; i < n; ++i) max_abs = fmax(max_abs, fabs((double)attngen_bf16_to_float(t[i])));
  if (max_abs == 0.0) return;
  const double step = ldexp(1.0, (int)ceil(log2(max_abs / 255.0)));
  for (size_t i = 0; i < n; ++i) {
    const double x = (double)attngen_bf16_to_float(t[i]);
    double units = nearbyint(x / step);
    if (units == 0.0) units = x < 0.0 ? -1.0 : 1.0;
    if (units > 255.0) units = 255.0;
    if (units < -255.0) units = -255.0;
    t[i] = attngen_bf16_round((float)(units * step), ATTNGEN_ROUND_RTNE);
  }
}

/* Normal values times gain[d] * row_gain(s), in logical order. */
static void fill_normal(attngen__out_view t, int batch, int heads, int seqlen, attngen__rng *r,
                        const double *gain, double row_gain_lo, double row_gain_hi) {
  const int D = attngen__view_d(t);
  for (int b = 0; b < batch; ++b) {
    for (int h = 0; h < heads; ++h) {
      for (int s = 0; s < seqlen; ++s) {
        uint16_t *row = t.data + attngen__view_offset(t.sb, t.sh, t.ss, b, h, s);
        const double ramp = seqlen > 1 ? (double)s / (double)(seqlen - 1) : 1.0;
        const double rg = row_gain_lo + (row_gain_hi - row_gain_lo) * ramp;
        for (int d = 0; d < D; ++d) row[d] = nonzero_bf16(attngen__rng_normal(r) * gain[d] * rg);
      }
    }
  }
}

attngen_status attngen__inputs_make(attngen__inputs *in, attngen__input_kind kind,
                                    uint64_t seed, attngen_layout layout, int batch, int heads,
                                    int seqlen_q, int seqlen_kv, float softmax_scale) {
  return attngen__inputs_make_gqa(in, kind, seed, layout, batch, heads, 0, seqlen_q, seqlen_kv,
                                  softmax_scale);
}

attngen_status attngen__inputs_make_gqa(attngen__inputs *in, attngen__input_kind kind,
                                        uint64_t seed, attngen_layout layout, int batch,
                                        int heads, int heads_kv, int seqlen_q, int seqlen_kv,
                                        float softmax_scale) {
  return attngen__inputs_make_hd(in, kind, seed, layout, batch, heads, heads_kv, seqlen_q,
                                 seqlen_kv, ATTNGEN__HEAD_DIM, softmax_scale);
}

attngen_status attngen__inputs_make_hd(attngen__inputs *in, attngen__input_kind kind,
                                       uint64_t seed, attngen_layout layout, int batch,
                                       int heads, int heads_kv, int seqlen_q, int seqlen_kv,
                                       int head_dim, float softmax_scale) {
  if (!in) return ATTNGEN_STATUS_NULL_POINTER;
  memset(in, 0, sizeof *in);
  if (batch < 0 || heads < 0 || seqlen_q < 0 || seqlen_kv < 0) return ATTNGEN_STATUS_BAD_SHAPE;
  if (head_dim < 16 || head_dim > ATTNGEN__HEAD_DIM_MAX || head_dim % 16 != 0)
    return ATTNGEN_STATUS_UNSUPPORTED_HEAD_DIM;
  const int D = head_dim;
  if (heads_kv < 0 || (heads_kv > 0 && heads % heads_kv != 0)) return ATTNGEN_STATUS_BAD_SHAPE;
  const int hkv = heads_kv > 0 ? heads_kv : heads;
  if ((unsigned)layout > (unsigned)ATTNGEN_LAYOUT_BHSD) return ATTNGEN_STATUS_BAD_LAYOUT;
  if ((unsigned)kind > (unsigned)ATTNGEN__INPUT_LARGE) return ATTNGEN_STATUS_INVALID_ARGUMENT;
  /* Only "large" inputs depend on the scale (their size is set through it): any finite
   * scale the API accepts makes uniform and realistic inputs, 0 included. */
  if (!isfinite(softmax_scale) || (kind == ATTNGEN__INPUT_LARGE && softmax_scale == 0.0f))
    return ATTNGEN_STATUS_BAD_SCALE;
  in->layout = layout;
  in->batch = batch;
  in->heads = heads;
  in->seqlen_q = seqlen_q;
  in->seqlen_kv = seqlen_kv;
  in->heads_kv = hkv;
  in->head_dim = D;
  const size_t nq = (size_t)batch * heads * seqlen_q * D;
  const size_t nkv = (size_t)batch * hkv * seqlen_kv * D;
  /* +1 keeps every allocation non-empty, so a NULL always means out of memory */
  in->q = malloc((nq + 1) * sizeof(uint16_t));
  in->k = malloc((nkv + 1) * sizeof(uint16_t));
  in->v = malloc((nkv + 1) * sizeof(uint16_t));
  if (!in->q || !in->k || !in->v) {
    attngen__inputs_free(in);
    return ATTNGEN_STATUS_OUT_OF_MEMORY;
  }
  const attngen__out_view q = attngen__view_out_d(in->q, layout, heads, seqlen_q, D);
  const attngen__out_view k = attngen__view_out_d(in->k, layout, hkv, seqlen_kv, D);
  const attngen__out_view v = attngen__view_out_d(in->v, layout, hkv, seqlen_kv, D);
  /* one stream per tensor, so changing Skv leaves q unchanged */
  attngen__rng rq, rk, rv, rg;
  attngen__rng_seed(&rq, seed * 4 + 0);
  attngen__rng_seed(&rk, seed * 4 + 1);
  attngen__rng_seed(&rv, seed * 4 + 2);
  attngen__rng_seed(&rg, seed * 4 + 3);
  double gq[ATTNGEN__HEAD_DIM_MAX], gk[ATTNGEN__HEAD_DIM_MAX], ones[ATTNGEN__HEAD_DIM_MAX];
  for (int d = 0; d < D; ++d) ones[d] = 1.0;
  switch (kind) {
  case ATTNGEN__INPUT_UNIFORM:
    attngen__fill_uniform(q, batch, heads, seqlen_q, &rq, -1.0, 1.0);
    attngen__fill_uniform(k, batch, hkv, seqlen_kv, &rk, -1.0, 1.0);
    attngen__fill_uniform(v, batch, hkv, seqlen_kv, &rv, -1.0, 1.0);
    break;
  case ATTNGEN__INPUT_REALISTIC:
    /* channel gains in [0.5, 1.5] with every 16th channel an outlier (x4), as seen in trained
     * q/k projections; |k| ~ sqrt(D) */
    for (int d = 0; d < D; ++d) {
      gq[d] = 0.5 + attngen__rng_uniform(&rg);
      gk[d] = (0.5 + attngen__rng_uniform(&rg)) * (d % 16 == 5 ? 4.0 : 1.0);
    }
    fill_normal(q, batch, heads, seqlen_q, &rq, gq, 1.0, 1.0);
    fill_normal(k, batch, hkv, seqlen_kv, &rk, gk, 1.0, 1.0);
    fill_normal(v, batch, hkv, seqlen_kv, &rv, ones, 1.0, 1.0);
    break;
  case ATTNGEN__INPUT_LARGE: {
    /* q, k ~ N(0, a^2): s has std a^2 sqrt(D); pick a so t = s * scale * log2(e) has std
     * ~100 at the middle key. Key gains ramp 0.5 -> 1.5 along the sequence, so later tiles
     * keep raising the running max and the rescale path runs. */
    const double t_std = 100.0;
    const double a2 = t_std / (sqrt((double)D) * fabs((double)softmax_scale) * 1.4426950408889634);
    const double amp = sqrt(a2);
    for (int d = 0; d < D; ++d) gq[d] = amp;
    fill_normal(q, batch, heads, seqlen_q, &rq, gq, 1.0, 1.0);
    fill_normal(k, batch, hkv, seqlen_kv, &rk, gq, 0.5, 1.5);
    fill_normal(v, batch, hkv, seqlen_kv, &rv, ones, 1.0, 1.0);
    break;
  }
  }
  quantize_fixed(in->q, nq);
  quantize_fixed(in->k, nkv);
  return ATTNGEN_STATUS_OK;
}

void attngen__inputs_free(attngen__inputs *in) {
  if (!in) return;
  free(in->q);
  free(in->k);
  free(in->v);
  in->q = in->k = in->v = NULL;
}

attngen__tensor_view attngen__inputs_q(const attngen__inputs *in) {
  return attngen__view_in_d(in->q, in->layout, in->heads, in->seqlen_q,
                            attngen__inputs_head_dim(in));
}

attngen__tensor_view attngen__inputs_k(const attngen__inputs *in) {
  return attngen__view_in_d(in->k, in->layout, attngen__inputs_heads_kv(in), in->seqlen_kv,
                            attngen__inputs_head_dim(in));
}

attngen__tensor_view attngen__inputs_v(const attngen__inputs *in) {
  return attngen__view_in_d(in->v, in->layout, attngen__inputs_heads_kv(in), in->seqlen_kv,
                            attngen__inputs_head_dim(in));
}

/* A writable view of one of the inputs' tensors (kv: k or v, with the KV heads). */
static attngen__out_view inputs_out_view(attngen__inputs *in, uint16_t *t, int kv) {
  return attngen__view_out_d(t, in->layout, kv ? attngen__inputs_heads_kv(in) : in->heads,
                             kv ? in->seqlen_kv : in->seqlen_q, attngen__inputs_head_dim(in));
}

void attngen__plant(attngen__out_view t, int b, int h, int s, int d, uint16_t bits) {
  t.data[attngen__view_offset(t.sb, t.sh, t.ss, b, h, s) + d] = bits;
}

void attngen__plant_special(attngen__inputs *in) {
  if (in->seqlen_kv == 0) return;
  const attngen__out_view q = inputs_out_view(in, in->q, 0);
  const attngen__out_view k = inputs_out_view(in, in->k, 1);
  const attngen__out_view v = inputs_out_view(in, in->v, 1);
  const int lb = in->batch - 1, lh = in->heads - 1, lhk = attngen__inputs_heads_kv(in) - 1;
  attngen__plant(k, 0, 0, in->seqlen_kv * 2 / 3, 17, ATTNGEN__BF16_NAN);
  attngen__plant(q, lb, lh, in->seqlen_q - 1, 3, ATTNGEN__BF16_POS_INF);
  attngen__plant(v, lb, lhk, 0, 40, ATTNGEN__BF16_POS_INF);
  attngen__plant(v, lb, lhk, in->seqlen_kv - 1, 41, ATTNGEN__BF16_NEG_INF);
}

void attngen__plant_masked(attngen__inputs *in, const int32_t *kv_lengths) {
  const int hkv = attngen__inputs_heads_kv(in), D = attngen__inputs_head_dim(in);
  const attngen__out_view k = inputs_out_view(in, in->k, 1);
  const attngen__out_view v = inputs_out_view(in, in->v, 1);
  for (int b = 0; b < in->batch; ++b)
    for (int h = 0; h < hkv; ++h)
      for (int j = attngen__kv_len_of(kv_lengths, b, in->seqlen_kv); j < in->seqlen_kv; ++j) {
        attngen__plant(k, b, h, j, j % D, ATTNGEN__BF16_NAN);
        attngen__plant(v, b, h, j, (5 * j) % D,
                       j % 2 ? ATTNGEN__BF16_POS_INF : ATTNGEN__BF16_NEG_INF);
      }
}

size_t attngen__contract_cases(int kv_tile, attngen__contract_case *out) {
  /* 10 KV tiles, the last one partial (15 keys short), whatever the variant's tile: the split
   * planner wants at least 8 tiles and an idle half of the 8 CUs */
  const int split_kv = 10 * kv_tile - 15;
  const float def = ATTNGEN__DEFAULT_SCALE;
  const attngen__contract_case c[] = {
      {1, 1, 1, 0, ATTNGEN__INPUT_UNIFORM, 0, 0, "Skv = 0", def},
      {1, 2, 1, 17, ATTNGEN__INPUT_UNIFORM, 0, 0, "Sq = 1, one partial tile", def},
      {1, 2, 17, 130, ATTNGEN__INPUT_LARGE, 0, 0, "ragged, large scores", def},
      {2, 1, 130, 385, ATTNGEN__INPUT_UNIFORM, 1, -1, "several tiles, NaN/Inf", def},
      {2, 2, 64, 385, ATTNGEN__INPUT_LARGE, 0, -1, "several tiles, large scores", def},
      {1, 2, 64, split_kv, ATTNGEN__INPUT_LARGE, 0, 1, "split tail, large scores", def},
      {1, 2, 17, split_kv, ATTNGEN__INPUT_UNIFORM, 1, 1, "split tail, NaN/Inf", def},
      /* 9 jobs on 8 slots: the first round runs whole, the last job is split */
      {1, 9, 1, split_kv, ATTNGEN__INPUT_UNIFORM, 0, 1, "rounds + split last job", def},
      /* the kernel negates Q to keep its max over raw scores */
      {1, 2, 33, 200, ATTNGEN__INPUT_LARGE, 0, -1, "negative scale, large scores", -def},
      /* Every finite scale gives the contract's result (issue 29): keys past Skv were set to
       * -inf before the scale multiplied them (-inf * 0 = NaN: every row NaN, status OK), and
       * with |t| >= 2^24 the fma form's x at a row's max reached +4096 (p = +Inf, NaN rows).
       * A ragged tile (47 keys) so that keys past Skv exist. */
      {1, 2, 33, 47, ATTNGEN__INPUT_UNIFORM, 0, -1, "zero scale", 0.0f},
      {1, 1, 17, 47, ATTNGEN__INPUT_UNIFORM, 0, -1, "negative zero scale", -0.0f},
      {1, 2, 33, 47, ATTNGEN__INPUT_UNIFORM, 0, -1, "scale 1e10", 1e10f},
      {1, 1, 17, 200, ATTNGEN__INPUT_LARGE, 0, -1, "scale -3e7, large scores", -3e7f},
      /* Per-batch key lengths: 0, 1, all, a ragged tile; negative and > Skv (clamped); a
       * split call whose later parts are past the length (empty parts); the keys past each
       * length hold NaN and Inf (attngen__plant_masked), which must contribute nothing. */
      {4, 2, 17, 130, ATTNGEN__INPUT_UNIFORM, 0, -1, "key lengths 0, 1, Skv, 61", def, 4,
       {0, 1, 130, 61}},
      {2, 1, 33, 200, ATTNGEN__INPUT_LARGE, 0, -1, "key lengths -7, 1000 (clamped)", def, 2,
       {-7, 1000}},
      {1, 2, 64, split_kv, ATTNGEN__INPUT_LARGE, 0, 1, "split, key length 2 tiles + 5", def, 1,
       {2 * kv_tile + 5}},
      {2, 1, 17, split_kv, ATTNGEN__INPUT_UNIFORM, 0, -1, "key lengths 0, Skv - 1, long", def, 2,
       {0, split_kv - 1}},
      {2, 2, 40, 47, ATTNGEN__INPUT_UNIFORM, 0, -1, "zero scale, key lengths 20, 1", 0.0f, 2,
       {20, 1}},
      /* Grouped-query calls (args.heads_kv): 4 query heads over 2 KV heads; MQA (3 over 1)
       * with NaN/Inf planted (the NaN key and the Inf values reach every query head of the
       * group); MQA with key lengths, split (the tail path finds the KV head of its job). */
      {1, 4, 33, 130, ATTNGEN__INPUT_LARGE, 0, -1, "GQA 4 heads over 2, large scores", def, 0,
       {0}, 2},
      {2, 3, 17, 200, ATTNGEN__INPUT_UNIFORM, 1, -1, "MQA 3 heads over 1, NaN/Inf", def, 0,
       {0}, 1},
      {2, 2, 17, split_kv, ATTNGEN__INPUT_LARGE, 0, 1, "split, MQA 2 over 1, key lengths", def,
       2, {split_kv - 20, 2 * kv_tile + 5}, 1},
  };
  _Static_assert(sizeof c / sizeof c[0] <= ATTNGEN__CONTRACT_CASES_MAX, "case set too large");
  memcpy(out, c, sizeof c);
  return sizeof c / sizeof c[0];
}
