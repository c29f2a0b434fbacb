/* numerics.h: the executable form of docs/NUMERICS.md that the runtime itself needs (the
 * production launch's scale_log2, the cpu backend's reference), also used by the check layer
 * above the API (check/verify.h: comparator, test data, verify_run) and the tests:
 *   - bf16 helpers (bf16.c; formulas in templates/common/bf16_round.h),
 *   - the CPU reference attention (the contract's algorithm in fp32, reference.c),
 *   - exact attention in fp64 (the sanity bound).
 * Tensors are described by views: element strides for batch, head and sequence; the
 * head dimension (head_dim elements, ATTNGEN__HEAD_DIM unless a call says otherwise) is
 * contiguous. */
#ifndef ATTNGEN_NUMERICS_H
#define ATTNGEN_NUMERICS_H

#include <stdint.h>
#include <stdio.h>

#include "attngen.h"
#include "call_shape.h"

#define ATTNGEN__HEAD_DIM 128      /* the head dimension where a shape leaves it out */
#define ATTNGEN__HEAD_DIM_MAX 256  /* the largest head_dim of any variant (axis head_dim) */
#define ATTNGEN__BF16_NAN 0x7FFFu    /* the one NaN encoding outputs may carry */
#define ATTNGEN__BF16_POISON 0xFFFFu /* fill of an output before a run; never a legit result */
#define ATTNGEN__REF_KV_TILE 64      /* keys per online-softmax step of the reference */

/* ---- bf16 (bf16.c) ------------------------------------------------------------------ */

/* fp32 value -> bits, bits -> fp32 value (no aliasing tricks). */
uint32_t attngen__f32_bits(float x);
float attngen__f32_from_bits(uint32_t u);

/* softmax_scale * log2(e) rounded once to fp32: the scale_log2 every target uses (step 2). */
float attngen__scale_log2(float softmax_scale);

/* Signed distance in bf16 steps between two finite patterns: ordered(a) - ordered(b),
 * with +0 and -0 at the same place. */
int32_t attngen__bf16_ulp_diff(uint16_t a, uint16_t b);

int attngen__bf16_is_nan(uint16_t b);
int attngen__bf16_is_inf(uint16_t b);

/* ---- views -------------------------------------------------------------------------- */

/* d: elements per row (the head dimension), 0 = ATTNGEN__HEAD_DIM (attngen__view_d). */
typedef struct attngen__tensor_view { /* bf16 input */
  const uint16_t *data;
  int64_t sb, sh, ss;
  int d;
} attngen__tensor_view;

typedef struct attngen__out_view { /* bf16 output */
  uint16_t *data;
  int64_t sb, sh, ss;
  int d;
} attngen__out_view;

typedef struct attngen__f64_view { /* fp64 output of the exact attention */
  double *data;
  int64_t sb, sh, ss;
  int d;
} attngen__f64_view;

#define attngen__view_d(view) ((view).d > 0 ? (view).d : ATTNGEN__HEAD_DIM)

/* Element strides of a dense [B,S,H,D] (bshd) or [B,H,S,D] (bhsd) tensor, D = head_dim; the
 * functions without _d are those of D = ATTNGEN__HEAD_DIM. */
void attngen__dense_strides_d(attngen_layout layout, int heads, int seqlen, int head_dim,
                              int64_t *sb, int64_t *sh, int64_t *ss);
attngen__tensor_view attngen__view_in_d(const void *data, attngen_layout layout, int heads,
                                        int seqlen, int head_dim);
attngen__out_view attngen__view_out_d(void *data, attngen_layout layout, int heads, int seqlen,
                                      int head_dim);
attngen__f64_view attngen__view_f64_d(double *data, attngen_layout layout, int heads,
                                      int seqlen, int head_dim);
static inline void attngen__dense_strides(attngen_layout layout, int heads, int seqlen,
                                          int64_t *sb, int64_t *sh, int64_t *ss) {
  attngen__dense_strides_d(layout, heads, seqlen, ATTNGEN__HEAD_DIM, sb, sh, ss);
}
static inline attngen__tensor_view attngen__view_in(const void *data, attngen_layout layout,
                                                    int heads, int seqlen) {
  return attngen__view_in_d(data, layout, heads, seqlen, ATTNGEN__HEAD_DIM);
}
static inline attngen__out_view attngen__view_out(void *data, attngen_layout layout, int heads,
                                                  int seqlen) {
  return attngen__view_out_d(data, layout, heads, seqlen, ATTNGEN__HEAD_DIM);
}
static inline attngen__f64_view attngen__view_f64(double *data, attngen_layout layout,
                                                  int heads, int seqlen) {
  return attngen__view_f64_d(data, layout, heads, seqlen, ATTNGEN__HEAD_DIM);
}

/* The tensors of a call, in the order of attngen_fwd_args' stride arrays. */
typedef enum attngen__call_tensor {
  ATTNGEN__T_Q = 0,
  ATTNGEN__T_K = 1,
  ATTNGEN__T_V = 2,
  ATTNGEN__T_OUT = 3
} attngen__call_tensor;

/* The call's element strides {batch, sequence, head} of tensor t: its own (a->q_strides ...)
 * when any of the three is nonzero, else the dense strides of a->layout (a packed batch: of
 * one entry of total rows). The batch stride of a packed batch is 0 (not used). */
void attngen__call_strides(const attngen_fwd_args *a, attngen__call_tensor t, int64_t s[3]);
/* a->q_strides, k_strides, v_strides or out_strides; 1 when any of the three is nonzero. */
const int64_t *attngen__given_strides(const attngen_fwd_args *a, attngen__call_tensor t);
int attngen__strides_given(const attngen_fwd_args *a, attngen__call_tensor t);

static inline int64_t attngen__view_offset(int64_t sb, int64_t sh, int64_t ss, int b, int h,
                                           int s) {
  return (int64_t)b * sb + (int64_t)h * sh + (int64_t)s * ss;
}

/* Runs fn(ctx, job) for job in [0, jobs) on up to `threads` pthreads (0 = one per online
 * CPU), thread t taking jobs t, t + T, ... Jobs must be independent. */
attngen_status attngen__parallel_for(int64_t jobs, int threads, void (*fn)(void *ctx, int64_t job),
                                     void *ctx);

/* ---- CPU reference (reference.c) ----------------------------------------------------- */

typedef struct attngen__ref_args {
  attngen__tensor_view q, k, v; /* q: [B,H,Sq], k/v: [B,H_kv,Skv] (H_kv: shape.heads_kv) */
  attngen__out_view out;        /* [B,H,Sq]; only rows < Sq are written */
  attngen__call_shape shape;    /* batch, heads, seqlen_q, seqlen_kv, rounding (an
                                   attngen_rounding), heads_kv (0 = heads; else a divisor
                                   of heads: query head h reads KV head h / (heads /
                                   heads_kv), BAD_SHAPE otherwise); layout is not read: the
                                   views carry the strides */
  float softmax_scale;
  float *lse;  /* fp32 [B,H,Sq] contiguous, natural log, or NULL */
  int threads; /* 0 = one per online CPU */
  int unrounded_p; /* tests only: skip the bf16 rounding of P (step 5) to measure its effect */
  /* Keys per running-max update (step 3): P is rounded against the max at each step, so a
   * kernel is held to 1 ULP only by a reference with its step (attngen__variant_desc
   * softmax_step). Steps are keys [i*kv_step, (i+1)*kv_step). 0 = ATTNGEN__REF_KV_TILE. */
  int kv_step;
  /* Tail KV split emulation (kv_split=tail of gfx942 and of the sm90 wgmma kernels, whose
   * workspace rows split_plan.h describes; runtime/src/split_plan.h): 0 = none;
   * else keys per part, a multiple of the step. A split row runs each part
   * p (keys [p*kv_per_split, min(Skv, (p+1)*kv_per_split))) from m = -inf, l = 0, O = 0,
   * then merges like NAME_merge: M = max m_p; w_p = (m_p == -inf ? 0 : exp2(m_p - M));
   * L = sum l_p w_p and O = sum O_p w_p in part order 0..n-1 (from 0, one product then one
   * add per part); out = round(O * (L == 0 ? 0 : 1/L)); LSE = M ln2 + ln L. */
  int kv_per_split;
  /* Which rows are split: [B,H,Sq] contiguous flags (nonzero = split), e.g. from
   * attngen__split_plan_row_flags; NULL with kv_per_split > 0 = every row. */
  const unsigned char *split_rows;
  /* Optional output, fp32 [B,H,Sq,head_dim] contiguous: per element, how far a kernel may
   * legitimately be from this reference because a P value lies within a relative
   * ATTNGEN__P_FLIP_REL of a bf16 rounding boundary, where an exp2 that is not correctly
   * rounded (hardware ex2.approx / v_exp_f32: a few fp32 ulps) may round it the other way:
   * sum over such keys of |P_hi - P_lo| * |v_jd|, rescaled like O, divided by l. */
  float *tol;
  /* Softmax form of step 4 (attngen__variant_desc score_fma): 0 = p = exp2(t - m) with
   * t = fl(s * scale_log2); 1 = p = exp2(fma(s, scale_log2, -m)), rounded once; 2 = as 1
   * when scale_log2 > 0, as 0 otherwise (the sm90 kernels: their max is over raw scores).
   * The running max is max t in all (== fl(max s * scale_log2) for a positive scale). */
  int score_fma;
  /* Per-batch key lengths, int32 [B] host memory, or NULL = seqlen_kv for every entry: keys
   * j >= clamp(kv_lengths[b], 0, seqlen_kv) contribute nothing (they are not visited: a row
   * of entry b is the row of a call with that many keys, Skv = 0 included; split parts past
   * the length are empty). */
  const int32_t *kv_lengths;
  /* Causal mask, bottom-right aligned (FlashAttention >= 2.1): query row i of an entry with
   * n keys (its length) sees the keys j <= i + n - seqlen_q (attngen__causal_keys); the
   * other keys contribute nothing (not visited); a row that sees none gets out = 0 and
   * LSE = -inf. */
  int causal;
  /* Packed batch (attngen_fwd_args.cu_seqlens_q/_k, host copies [B + 1]), or NULL = dense:
   * the views are then of one batch entry ([total_q, H] / [total_kv, H_kv] rows: sb is not
   * read), shape.seqlen_q / seqlen_kv the largest lengths, sequence b is rows
   * attngen__packed_seq of them; lse is [H, total_q], tol [H, total_q, 128]; no split
   * (kv_per_split > 0: INVALID_ARGUMENT). A sequence is computed as the dense call of its own
   * lengths (causal per sequence); rows no sequence covers are not written. */
  const int32_t *cu_seqlens_q, *cu_seqlens_k;
  int total_q, total_kv;
  /* Temporal tile skipping (docs/NUMERICS.md "Tile skipping"): skip_block_m = 0 = off (the
   * lists are not read). Else the grid is q-tiles of skip_block_m rows x kv-tiles of
   * skip_block_n keys per (b, query head) (the variant's block_m and kv_tile), and the lists
   * are laid out as kargs.h says (attngen__skip_grid): tile (b, h, qt, kt) is bit kt % 32 of
   * word ((b * H + h) * nqt + qt) * nw + kt / 32. A visited tile (one with a key some row of
   * the q-tile sees) is skipped when (R | MS) & !MD: its keys contribute nothing, its W bit
   * is 1; a computed tile's W bit is 1 when !MD and every row with a key in it has
   * max t over the tile - m < threshold (t = fl(s * scale_log2), m the row's running max
   * after the tile, restarted at a split part's start), in fp32. W gets every word of the
   * grid (bits of tiles not visited: 0); count[0] += skipped tiles, count[1] += visited
   * tiles. Needs skip_block_n a multiple of the step, kv_per_split a multiple of
   * skip_block_n, no packed batch, threshold < 0 or -inf (else INVALID_ARGUMENT). */
  int skip_block_m, skip_block_n;
  const uint32_t *skip_read;      /* R, or NULL = none */
  const uint32_t *skip_must_skip; /* MS, or NULL */
  const uint32_t *skip_must_do;   /* MD, or NULL */
  uint32_t *skip_write;           /* W, or NULL = not written */
  uint32_t *skip_count;           /* [2], or NULL; added to atomically */
  float skip_threshold_log2;
} attngen__ref_args;

/* The tile grid of tile skipping: q-tiles, kv-tiles and list words per q-tile of a call with
 * seqlen_q queries and seqlen_kv keys on tiles of block_m x block_n (both > 0). */
typedef struct attngen__skip_grid {
  int nqt, nkt, nw;
} attngen__skip_grid;

static inline attngen__skip_grid attngen__skip_grid_of(int seqlen_q, int seqlen_kv, int block_m,
                                                       int block_n) {
  attngen__skip_grid g;
  g.nqt = seqlen_q <= 0 ? 0 : (seqlen_q + block_m - 1) / block_m;
  g.nkt = seqlen_kv <= 0 ? 0 : (seqlen_kv + block_n - 1) / block_n;
  g.nw = (g.nkt + 31) / 32;
  return g;
}

/* Relative uncertainty of a kernel's p = exp2(t - m) allowed by the comparator: 2^-20, four
 * times the documented error bound of ex2.approx.f32 (2 ulp = 2^-22 relative). */
#define ATTNGEN__P_FLIP_REL (1.0f / 1048576.0f)

/* docs/NUMERICS.md steps 1-7 in fp32 for every query row. Bitwise deterministic: the result does
 * not depend on the thread count or on the layout of the views. INVALID_ARGUMENT when
 * kv_step < 0, kv_per_split < 0 or kv_per_split is not a multiple of the step. */
attngen_status attngen__reference_fwd(const attngen__ref_args *a);

/* The keys batch entry b uses: kv_lengths[b] clamped into [0, seqlen_kv] (what the kernels
 * do with any value), seqlen_kv when kv_lengths is NULL. */
/* The keys query row `row` of an entry with kvn keys sees under the causal mask: the first
 * clamp(row + kvn - seqlen_q + 1, 0, kvn); kvn without it. */
static inline int attngen__causal_keys(int causal, int row, int kvn, int seqlen_q) {
  if (!causal) return kvn;
  const long long n = (long long)row + kvn - seqlen_q + 1;
  return n <= 0 ? 0 : n < kvn ? (int)n : kvn;
}

static inline int attngen__kv_len_of(const int32_t *kv_lengths, int b, int seqlen_kv) {
  if (!kv_lengths) return seqlen_kv;
  const int32_t n = kv_lengths[b];
  return n <= 0 ? 0 : n < seqlen_kv ? (int)n : seqlen_kv;
}

/* Sequence b of a packed batch (cu: cu_seqlens, [B + 1]) as the kernels clamp any values:
 * start = clamp(cu[b], 0, total), end = clamp(cu[b + 1], 0, total), *n = clamp(end - start,
 * 0, max). */
static inline void attngen__packed_seq(const int32_t *cu, int b, int total, int max, int *start,
                                       int *n) {
  const int32_t s = cu[b] < 0 ? 0 : cu[b] > total ? total : cu[b];
  const int32_t e = cu[b + 1] < 0 ? 0 : cu[b + 1] > total ? total : cu[b + 1];
  *start = (int)s;
  *n = e - s <= 0 ? 0 : e - s < max ? (int)(e - s) : max;
}

/* One batch entry (sequence) of a call, dense or packed: the batch index of the views (0 in
 * a packed call), the first query and key rows (0 in a dense call), the query rows and the
 * keys (kv_lengths applied; in a packed call the smaller of the two lengths). */
typedef struct attngen__entry {
  int vb, q0, nq, k0, nk;
} attngen__entry;

static inline attngen__entry attngen__entry_of(const int32_t *cu_q, const int32_t *cu_k,
                                               int total_q, int total_kv,
                                               const int32_t *kv_lengths, int b, int seqlen_q,
                                               int seqlen_kv) {
  attngen__entry e = {b, 0, seqlen_q, 0, attngen__kv_len_of(kv_lengths, b, seqlen_kv)};
  if (cu_q && cu_k) {
    int nk;
    e.vb = 0;
    attngen__packed_seq(cu_q, b, total_q, seqlen_q, &e.q0, &e.nq);
    attngen__packed_seq(cu_k, b, total_kv, seqlen_kv, &e.k0, &nk);
    if (nk < e.nk) e.nk = nk;
  }
  return e;
}

/* The reference arguments of a call: views of a->q, k, v, out (attngen__call_strides), its
 * lse, shape, scale, rounding and kv_lengths (read on the host: cpu/emu memory, or a host
 * copy the caller put there); everything else 0 (defaults). */
attngen__ref_args attngen__ref_args_of_call(const attngen_fwd_args *a);

typedef struct attngen__exact_args {
  attngen__tensor_view q, k, v;
  attngen__f64_view out;
  int batch, heads, seqlen_q, seqlen_kv;
  double softmax_scale;
  double *lse; /* fp64 [B,H,Sq] contiguous natural-log LSE, or NULL */
  int threads;
  const int32_t *kv_lengths; /* as attngen__ref_args.kv_lengths */
  int causal;                /* as attngen__ref_args.causal */
  int heads_kv;              /* as attngen__ref_args.shape.heads_kv (k/v views: H_kv heads) */
  int head_dim;              /* elements per row (1..ATTNGEN__HEAD_DIM_MAX); 0 = 128 */
  const int32_t *cu_seqlens_q, *cu_seqlens_k; /* as attngen__ref_args (lse [H, total_q]) */
  int total_q, total_kv;
} attngen__exact_args;

/* Plain softmax attention in fp64 without intermediate rounding (sanity bound). */
attngen_status attngen__exact_fwd(const attngen__exact_args *a);

#endif /* ATTNGEN_NUMERICS_H */
