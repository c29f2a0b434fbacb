/* numerics.h: the executable form of docs/NUMERICS.md. Internal API shared by the runtime's CPU
 * backend, the tests and `attngen check`:
 *   - bf16 helpers (bf16.c; formulas in templates/common/bf16_round.h),
 *   - the CPU reference attention (the contract's algorithm in fp32, reference.c),
 *   - exact attention in fp64 (the sanity bound),
 *   - the comparator, poison and guard bands, LSE comparison (compare.c),
 *   - seeded input generators (testdata.c).
 * Tensors are described by views: element strides for batch, head and sequence; the
 * head dimension (ATTNGEN__HEAD_DIM elements) is contiguous. */
#ifndef ATTNGEN_NUMERICS_H
#define ATTNGEN_NUMERICS_H

#include <stdint.h>
#include <stdio.h>

#include "attngen.h"
#include "axes.h"
#include "call_shape.h"

#define ATTNGEN__HEAD_DIM 128
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

/* attngen__layout_name, attngen__rounding_from_name, ...: axes.h (generated names). */

/* ---- views -------------------------------------------------------------------------- */

typedef struct attngen__tensor_view { /* bf16 input */
  const uint16_t *data;
  int64_t sb, sh, ss;
} attngen__tensor_view;

typedef struct attngen__out_view { /* bf16 output */
  uint16_t *data;
  int64_t sb, sh, ss;
} attngen__out_view;

typedef struct attngen__f64_view { /* fp64 output of the exact attention */
  double *data;
  int64_t sb, sh, ss;
} attngen__f64_view;

/* Element strides of a dense [B,S,H,D] (bshd) or [B,H,S,D] (bhsd) tensor, D = 128. */
void attngen__dense_strides(attngen_layout layout, int heads, int seqlen, int64_t *sb,
                            int64_t *sh, int64_t *ss);
attngen__tensor_view attngen__view_in(const void *data, attngen_layout layout, int heads,
                                      int seqlen);
attngen__out_view attngen__view_out(void *data, attngen_layout layout, int heads, int seqlen);
attngen__f64_view attngen__view_f64(double *data, attngen_layout layout, int heads,
                                    int seqlen);

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
  attngen__tensor_view q, k, v; /* q: [B,H,Sq], k/v: [B,H,Skv] */
  attngen__out_view out;        /* [B,H,Sq]; only rows < Sq are written */
  attngen__call_shape shape;    /* batch, heads, seqlen_q, seqlen_kv, rounding (an
                                   attngen_rounding); layout is not read: the views carry
                                   the strides */
  float softmax_scale;
  float *lse;  /* fp32 [B,H,Sq] contiguous, natural log, or NULL */
  int threads; /* 0 = one per online CPU */
  int unrounded_p; /* tests only: skip the bf16 rounding of P (step 5) to measure its effect */
  /* Keys per running-max update (step 3): P is rounded against the max at each step, so a
   * kernel is held to 1 ULP only by a reference with its step (attngen__variant_desc
   * softmax_step). Steps are keys [i*kv_step, (i+1)*kv_step). 0 = ATTNGEN__REF_KV_TILE. */
  int kv_step;
  /* Tail KV split emulation (gfx942 kv_split=tail, runtime/src/split_plan.h): 0 = none;
   * else keys per part, a multiple of the step. A split row runs each part
   * p (keys [p*kv_per_split, min(Skv, (p+1)*kv_per_split))) from m = -inf, l = 0, O = 0,
   * then merges like NAME_merge: M = max m_p; w_p = (m_p == -inf ? 0 : exp2(m_p - M));
   * L = sum l_p w_p and O = sum O_p w_p in part order 0..n-1 (from 0, one product then one
   * add per part); out = round(O * (L == 0 ? 0 : 1/L)); LSE = M ln2 + ln L. */
  int kv_per_split;
  /* Which rows are split: [B,H,Sq] contiguous flags (nonzero = split), e.g. from
   * attngen__split_plan_row_flags; NULL with kv_per_split > 0 = every row. */
  const unsigned char *split_rows;
  /* Optional output, fp32 [B,H,Sq,128] contiguous: per element, how far a kernel may
   * legitimately be from this reference because a P value lies within a relative
   * ATTNGEN__P_FLIP_REL of a bf16 rounding boundary, where an exp2 that is not correctly
   * rounded (hardware ex2.approx / v_exp_f32: a few fp32 ulps) may round it the other way:
   * sum over such keys of |P_hi - P_lo| * |v_jd|, rescaled like O, divided by l. */
  float *tol;
  /* Softmax form of step 4 (attngen__variant_desc score_fma): 0 = p = exp2(t - m) with
   * t = fl(s * scale_log2); 1 = p = exp2(fma(s, scale_log2, -m)), rounded once. The running
   * max is max t in both (== fl(max s * scale_log2) for a positive scale). */
  int score_fma;
} attngen__ref_args;

/* Relative uncertainty of a kernel's p = exp2(t - m) allowed by the comparator: 2^-20, four
 * times the documented error bound of ex2.approx.f32 (2 ulp = 2^-22 relative). */
#define ATTNGEN__P_FLIP_REL (1.0f / 1048576.0f)

/* docs/NUMERICS.md steps 1-7 in fp32 for every query row. Bitwise deterministic: the result does
 * not depend on the thread count or on the layout of the views. INVALID_ARGUMENT when
 * kv_step < 0, kv_per_split < 0 or kv_per_split is not a multiple of the step. */
attngen_status attngen__reference_fwd(const attngen__ref_args *a);

/* The reference arguments of a call: views of a->q, k, v, out (dense in a->layout), its
 * lse, shape, scale and rounding; everything else 0 (defaults). */
attngen__ref_args attngen__ref_args_of_call(const attngen_fwd_args *a);

/* Makes a reference run follow the kernel that attngen_fwd would launch for `a` on `ctx`:
 * sets r->kv_step to the variant's softmax_step and, when the call's tail KV split plan
 * splits some q-jobs, r->kv_per_split and r->split_rows (*rows, malloc'd [B,H,Sq] flags the
 * caller frees; NULL when nothing is split). Other fields of r are left alone. The cpu
 * backend gives the reference defaults. `variant` (may be NULL) gets the variant name. */
attngen_status attngen__ref_follow_call(attngen_context *ctx, const attngen_fwd_args *a,
                                        attngen__ref_args *r, unsigned char **rows,
                                        char *variant, size_t variant_size);

typedef struct attngen__exact_args {
  attngen__tensor_view q, k, v;
  attngen__f64_view out;
  int batch, heads, seqlen_q, seqlen_kv;
  double softmax_scale;
  double *lse; /* fp64 [B,H,Sq] contiguous natural-log LSE, or NULL */
  int threads;
} attngen__exact_args;

/* Plain softmax attention in fp64 without intermediate rounding (sanity bound). */
attngen_status attngen__exact_fwd(const attngen__exact_args *a);

/* ---- comparator (compare.c) ---------------------------------------------------------- */

typedef struct attngen__compare_args {
  attngen__tensor_view out;   /* output under test, [B,H,Sq] */
  attngen__tensor_view ref;   /* CPU reference with the same rounding */
  attngen__f64_view exact;    /* fp64 exact attention; data NULL to skip the L2 bound */
  int batch, heads, seqlen_q;
  double max_abs_v;           /* largest finite |v|, for the near-zero rule */
  const float *tol;           /* the reference's tol output ([B,H,Sq,128]) or NULL */
} attngen__compare_args;

typedef struct attngen__elem_index {
  int b, h, s, d;
} attngen__elem_index;

typedef struct attngen__compare_report {
  int64_t elements;
  int64_t ulp0, ulp1, ulp_over;    /* finite pairs; ulp_over excludes near-zero cases */
  int64_t near_zero;               /* > 1 ULP but |ref| < 2^-10 * max|v| */
  int64_t p_flip;                  /* > 1 ULP but within the reference's P-rounding-boundary
                                      tolerance (attngen__ref_args.tol) plus 1 ULP */
  int64_t nonfinite_mismatch;      /* NaN/Inf in one but not the same in the other */
  int64_t bad_nan_encoding;        /* NaN output other than 0x7FFF (poison not included) */
  int64_t unwritten;               /* 0xFFFF left in the output */
  int64_t out_nan, out_inf, ref_nan, ref_inf;
  int32_t worst_ulp;               /* largest |ULP| among finite pairs (near-zero included) */
  attngen__elem_index worst;
  uint16_t worst_out, worst_ref;
  int64_t first_bad;               /* flat element number of the first failing element, -1 */
  attngen__elem_index first_bad_at;
  uint16_t first_bad_out, first_bad_ref;
  double rel_l2;                   /* vs fp64 over finite pairs; -1 when not computed */
  double near_zero_threshold;
  int pass;
} attngen__compare_report;

#define ATTNGEN__REL_L2_LIMIT 1e-2

/* Fills *r; returns INVALID_ARGUMENT on bad shapes or null data. */
attngen_status attngen__compare(const attngen__compare_args *a, attngen__compare_report *r);

/* One compact block: histogram, worst element, NaN/Inf, coverage, L2, PASS/FAIL. */
void attngen__compare_print(FILE *f, const char *title, const attngen__compare_report *r);

/* Largest finite |v| over [B,H,S]. */
double attngen__max_abs_finite(attngen__tensor_view v, int batch, int heads, int seqlen);

/* Output buffer with guard bands: [guard | n elements | guard], guard filled with a canary
 * pattern, data with the poison 0xFFFF. `data` points at the first output element. */
typedef struct attngen__guarded {
  uint16_t *base;
  uint16_t *data;
  int64_t n, guard;
} attngen__guarded;

#define ATTNGEN__GUARD_ELEMS 4096

attngen_status attngen__guarded_alloc(attngen__guarded *g, int64_t n, int64_t guard);
/* Poison the data, write the canary into both guard bands. */
void attngen__guarded_poison(attngen__guarded *g);
/* Number of guard elements that differ from the canary; *first (if not NULL) gets the first
 * one's offset relative to data (negative = before), unchanged when none. */
int64_t attngen__guarded_check(const attngen__guarded *g, int64_t *first);
void attngen__guarded_free(attngen__guarded *g);
/* The canary value at guard position i of the band (i counts from base, 0..2*guard-1). */
uint16_t attngen__guard_canary(int64_t i);

typedef struct attngen__lse_report {
  int64_t count, mismatches;
  double max_abs_err;   /* among finite pairs */
  int64_t worst;        /* flat index of the largest error or first mismatch, -1 */
  float worst_lse, worst_ref;
  int pass;
} attngen__lse_report;

#define ATTNGEN__LSE_ABS_TOL 1e-4
#define ATTNGEN__LSE_REL_TOL 1e-5

/* Compares n LSE values: NaN and +-Inf positions exact (-inf for Skv == 0), finite values
 * within abs_tol + rel_tol * |ref|. */
void attngen__compare_lse(const float *lse, const float *ref, int64_t n, double abs_tol,
                          double rel_tol, attngen__lse_report *r);
void attngen__compare_lse_print(FILE *f, const attngen__lse_report *r);

/* ---- seeded inputs (testdata.c) ------------------------------------------------------- */

typedef struct attngen__rng {
  uint64_t state;
} attngen__rng;

void attngen__rng_seed(attngen__rng *r, uint64_t seed);
uint64_t attngen__rng_next(attngen__rng *r);      /* splitmix64 */
double attngen__rng_uniform(attngen__rng *r);     /* [0, 1), 53 bits */
double attngen__rng_normal(attngen__rng *r);      /* N(0,1), Box-Muller */

/* Every kind puts q and k on a fixed-point grid (one power-of-two step per tensor, at most
 * 255 steps in magnitude), so that dot products are exact in fp32 whatever the summation
 * order: the scores and the bf16 rounding of P are then determined by the contract alone and
 * kernels can be held to 1 ULP (with rounded scores, the reference differs from itself by
 * more than 1 ULP in rare peaked rows when only its summation order changes). v is not
 * quantized. */
typedef enum attngen__input_kind {
  ATTNGEN__INPUT_UNIFORM = 0,   /* q, k, v uniform in [-1, 1], zeros replaced */
  ATTNGEN__INPUT_REALISTIC = 1, /* normal q, k with per-channel gains (|k| ~ sqrt(D)), normal v */
  ATTNGEN__INPUT_LARGE = 2      /* |t| ~ 100, spread, key gains ramp up -> frequent rescales */
} attngen__input_kind;

/* Fills a [B,H,S] bf16 tensor, drawn in logical (b, h, s, d) order so that the values do
 * not depend on the layout: uniform in [lo, hi] rounded to bf16 (RTNE), never zero. */
void attngen__fill_uniform(attngen__out_view t, int batch, int heads, int seqlen,
                           attngen__rng *r, double lo, double hi);

typedef struct attngen__inputs {
  attngen_layout layout;
  int batch, heads, seqlen_q, seqlen_kv;
  uint16_t *q, *k, *v; /* dense in `layout` */
} attngen__inputs;

/* Allocates and fills q, k, v for the kind; softmax_scale sets the size of "large" scores.
 * The same (seed, kind, shape, scale) gives the same logical tensors in both layouts. */
attngen_status attngen__inputs_make(attngen__inputs *in, attngen__input_kind kind,
                                    uint64_t seed, attngen_layout layout, int batch, int heads,
                                    int seqlen_q, int seqlen_kv, float softmax_scale);
void attngen__inputs_free(attngen__inputs *in);

/* Views of the inputs. */
attngen__tensor_view attngen__inputs_q(const attngen__inputs *in);
attngen__tensor_view attngen__inputs_k(const attngen__inputs *in);
attngen__tensor_view attngen__inputs_v(const attngen__inputs *in);

/* Writes one element of a tensor (e.g. a NaN or Inf planted at a chosen place). */
void attngen__plant(attngen__out_view t, int b, int h, int s, int d, uint16_t bits);

#define ATTNGEN__BF16_POS_INF 0x7F80u
#define ATTNGEN__BF16_NEG_INF 0xFF80u

#endif /* ATTNGEN_NUMERICS_H */
