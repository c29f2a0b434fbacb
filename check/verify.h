/* verify.h: the check layer (check/, above the API): the comparator, poison and guard bands
 * and LSE comparison (compare.c), seeded input generators (testdata.c), and one check of a
 * call against the numerics contract (docs/NUMERICS.md), the run -> reference -> compare
 * sequence in one place (verify.c), used by `attngen check`, `attngen tune` and the tests.
 * It includes the runtime's internal interface (attngen_internal.h: numerics.h's reference)
 * and is the one internal header its users include. verify_run:
 *   run        the call on its context: by verify_run itself (out == NULL: device buffers,
 *              poisoned output, one launch) or by the caller, who passes the host copy of
 *              the output (check runs twice inside guard bands, the emulator test under
 *              several wave seeds);
 *   reference  the CPU reference following the call's kernel (its softmax step and tail
 *              split, attngen__ref_follow_call), optionally the exact fp64 attention;
 *   compare    the comparator (1 ULP, NaN/Inf, coverage) and, given an LSE, the LSE check.
 * A verify_ref keeps the reference of one problem (the same logical inputs and scale) across
 * calls (the tuner's candidates, the GPU test's variants): it is recomputed only when the
 * call's rounding or the followed kernel's step or split differ; a call in the other layout
 * (its inputs the same logical tensors) reuses it, compared through the reference's layout. */
#ifndef ATTNGEN_VERIFY_H
#define ATTNGEN_VERIFY_H

#include <math.h>

#include "attngen_internal.h"

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
  int64_t near_zero;               /* > 1 ULP but |ref| < 2^-10 * max|v| and |out - ref| <=
                                      2^-10 * max|v| (near-zero cancellation; beyond that
                                      bound the element counts in ulp_over) */
  int64_t p_flip;                  /* > 1 ULP but within the reference's P-rounding-boundary
                                      tolerance (attngen__ref_args.tol) plus 1 ULP */
  int64_t nonfinite_mismatch;      /* NaN/Inf in one but not the same in the other */
  int64_t exact_mismatch;          /* finite in one of out and the fp64 exact result, not
                                      in the other (a NaN output where exact attention is
                                      finite fails even when the reference is NaN too) */
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
/* n uint32 words (calloc'd; NULL when out of memory), each bit set with probability pct %:
 * random skip lists and masks (docs/NUMERICS.md "Tile skipping"). */
uint32_t *attngen__rng_words(attngen__rng *r, size_t n, int pct);
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
  uint16_t *q, *k, *v; /* dense in `layout`; k and v with heads_kv heads */
  int heads_kv;        /* KV heads (== heads unless made by attngen__inputs_make_gqa) */
  int head_dim;        /* elements per row (attngen__inputs_make_hd), 0 = ATTNGEN__HEAD_DIM */
} attngen__inputs;

/* Allocates and fills q, k, v for the kind; softmax_scale sets the size of "large" scores
 * (BAD_SCALE: not finite, or 0 for "large"; other kinds take any finite scale).
 * The same (seed, kind, shape, scale) gives the same logical tensors in both layouts. */
attngen_status attngen__inputs_make(attngen__inputs *in, attngen__input_kind kind,
                                    uint64_t seed, attngen_layout layout, int batch, int heads,
                                    int seqlen_q, int seqlen_kv, float softmax_scale);

/* The same for a grouped-query call: k and v with heads_kv heads (0 = heads; BAD_SHAPE
 * unless it divides heads). q is the tensor attngen__inputs_make makes for the shape; k and
 * v are drawn like its k and v with heads_kv heads. */
attngen_status attngen__inputs_make_gqa(attngen__inputs *in, attngen__input_kind kind,
                                        uint64_t seed, attngen_layout layout, int batch,
                                        int heads, int heads_kv, int seqlen_q, int seqlen_kv,
                                        float softmax_scale);

/* The same with head_dim elements per row (16..ATTNGEN__HEAD_DIM_MAX, a multiple of 16;
 * UNSUPPORTED_HEAD_DIM otherwise). */
attngen_status attngen__inputs_make_hd(attngen__inputs *in, attngen__input_kind kind,
                                       uint64_t seed, attngen_layout layout, int batch,
                                       int heads, int heads_kv, int seqlen_q, int seqlen_kv,
                                       int head_dim, float softmax_scale);

/* The head dimension of inputs (ATTNGEN__HEAD_DIM when head_dim is 0). */
static inline int attngen__inputs_head_dim(const attngen__inputs *in) {
  return in->head_dim > 0 ? in->head_dim : ATTNGEN__HEAD_DIM;
}

/* The KV heads of inputs (heads when heads_kv is 0, e.g. a struct filled by hand). */
static inline int attngen__inputs_heads_kv(const attngen__inputs *in) {
  return in->heads_kv > 0 ? in->heads_kv : in->heads;
}
void attngen__inputs_free(attngen__inputs *in);

/* Views of the inputs. */
attngen__tensor_view attngen__inputs_q(const attngen__inputs *in);
attngen__tensor_view attngen__inputs_k(const attngen__inputs *in);
attngen__tensor_view attngen__inputs_v(const attngen__inputs *in);

/* Writes one element of a tensor (e.g. a NaN or Inf planted at a chosen place). */
void attngen__plant(attngen__out_view t, int b, int h, int s, int d, uint16_t bits);

#define ATTNGEN__BF16_POS_INF 0x7F80u
#define ATTNGEN__BF16_NEG_INF 0xFF80u

/* NaN in one key of (0, 0) (two thirds into the keys: a later part when the row is split),
 * +Inf in the last query row of the last (b, h) (its k values have both signs: Inf - Inf =
 * NaN), +Inf and -Inf in two value columns of the last (b, h). Nothing when Skv = 0. */
void attngen__plant_special(attngen__inputs *in);

/* NaN in the k and +Inf / -Inf in the v of every key at or past its batch entry's length
 * kv_lengths[b] (clamped into [0, Skv] as the kernels do); they must contribute nothing. */
void attngen__plant_masked(attngen__inputs *in, const int32_t *kv_lengths);

/* ---- the contract's case set (testdata.c) ----------------------------------------------- */

/* One call of the case set that holds a kernel variant to docs/NUMERICS.md on a backend
 * (`attngen check --all`, tests/test_emu_numerics.c). */
typedef struct attngen__contract_case {
  int batch, heads, seqlen_q, seqlen_kv;
  attngen__input_kind inputs;
  int special;   /* attngen__plant_special */
  int split;     /* with 8 compute units: 1 = a kv_split=tail variant must split (nosplit ones
                    never do), 0 = nobody may split, -1 = not checked */
  const char *what;
  float scale;   /* softmax_scale (0 and -0 included) */
  int nkvl;      /* per-batch key lengths (args.kv_lengths): `batch` values in kvl, 0 = none */
  int32_t kvl[4];
  int heads_kv;  /* args.heads_kv (grouped-query calls; inputs by attngen__inputs_make_gqa),
                    0 = dense */
} attngen__contract_case;

#define ATTNGEN__DEFAULT_SCALE 0.08838834764831845f /* 1/sqrt(128) */
/* 1/sqrt(head_dim): ATTNGEN__DEFAULT_SCALE at 128 */
static inline float attngen__default_scale(int head_dim) {
  return head_dim == 128 ? ATTNGEN__DEFAULT_SCALE : 1.0f / sqrtf((float)head_dim);
}

#define ATTNGEN__CONTRACT_CASES_MAX 24

/* The cases for a variant with KV tile kv_tile: Skv = 0, Sq = 1, a ragged pair, several KV
 * tiles, a call whose tail q-jobs are split (tail variants) and one where only the last job
 * of several rounds is split, a negative scale, scales 0, -0, 1e10 and -3e7 (every finite
 * scale gives the contract's result, issue 29); uniform and large scores (|t| ~ 100), NaN/Inf
 * planted; per-batch key lengths (0, 1, Skv, ragged, negative and > Skv (clamped), a split
 * whose later parts are empty, zero scale; the masked keys hold NaN/Inf:
 * attngen__plant_masked); grouped-query calls (4 heads over 2, MQA 3 over 1 with NaN/Inf,
 * MQA split with key lengths). Small enough for the emulator (the largest is 9 x 64 x ~10
 * tiles). Returns the count (<= ATTNGEN__CONTRACT_CASES_MAX). Inputs of a zero-scale case
 * are made with the default scale (attngen__inputs_make sizes large scores by it). */
size_t attngen__contract_cases(int kv_tile, attngen__contract_case *out);

/* The reference of one problem, reusable across calls (zero-initialize; free with
 * attngen__verify_ref_free). */
typedef struct attngen__verify_ref {
  uint16_t *out;         /* bf16, dense in the call's layout */
  float *lse, *tol;
  double *exact;         /* NULL until a call asks for it */
  unsigned char *rows;   /* split-row flags of the followed plan, or NULL */
  size_t nq, nl;
  int valid, kv_step, score_fma, kv_per_split, has_exact;
  int heads_kv;         /* of the valid reference's call (args.heads_kv) */
  int rounding, layout; /* of the valid reference: its rounding, the layout of out/exact */
  int32_t *kv_lengths;  /* the key lengths it used (a copy), NULL when none */
  int causal;           /* the causal mask it used */
  int kv_lengths_n;
} attngen__verify_ref;

void attngen__verify_ref_free(attngen__verify_ref *ref);

typedef struct attngen__verify_args {
  attngen_context *ctx;         /* runs (or ran) the call; the reference follows its plan */
  const attngen_fwd_args *call; /* shape, layout, rounding, scale, variant (pointers unused) */
  const attngen__inputs *in;    /* host q, k, v in call->layout */
  const uint16_t *out;          /* host output of the caller's run, or NULL: verify_run runs */
  const float *lse;             /* host LSE of the caller's run, or NULL: LSE not compared
                                   (with out == NULL the LSE is always produced and compared) */
  int exact;                    /* also the fp64 attention (relative L2 bound) */
  int strict;                   /* no P-rounding-boundary tolerance (an exactly rounded exp2,
                                   as the emulator's) */
  attngen__verify_ref *ref;     /* optional cache of the reference (NULL: computed and freed) */
  const int32_t *kv_lengths;    /* host copy of the call's per-batch key lengths [batch], or
                                   NULL (none); with out == NULL verify_run uploads them and
                                   passes the device copy as args.kv_lengths */
  /* Tile skipping (call->skip set; docs/NUMERICS.md "Tile skipping"): host copies of what
   * the call reads, taken before it runs: its read list (NULL = none), must-skip and must-do
   * masks (NULL = none), and its threshold. The reference skips the same tiles on the grid
   * of the variant the call runs and writes its list into skip_write_ref (the state's
   * words) and its counts into skip_count_ref ([2]), each when not NULL; the caller compares
   * them with the state's (attngen_skip_state_get_list / _stats). Never cached. */
  const uint32_t *skip_read, *skip_must_skip, *skip_must_do;
  float skip_threshold_log2;
  uint32_t *skip_write_ref, *skip_count_ref;
} attngen__verify_args;

typedef struct attngen__verify_result {
  attngen__compare_report out;
  attngen__lse_report lse;      /* count == 0 when not compared */
  int pass;                     /* out.pass and (no LSE or lse.pass) */
  int kv_step, kv_per_split;    /* how the reference followed the call */
  int score_fma;                /* its softmax form (attngen__variant_desc score_fma) */
  long long split_rows;         /* rows run as tail-split parts */
  char variant[128];            /* the variant the call runs ("reference" on cpu) */
} attngen__verify_result;

/* Runs (when a->out is NULL), computes the reference and compares. A status other than OK
 * means the check could not be made (the run failed: attngen_last_error says why, or out of
 * memory); a wrong result is OK with r->pass == 0. */
attngen_status attngen__verify_run(const attngen__verify_args *a, attngen__verify_result *r);

/* ---- packed variable-length batches (verify_packed.c) ---------------------------------- */

/* One packed batch (attngen_fwd_args.cu_seqlens_q/_k) against the per-sequence dense calls:
 * seeded inputs of total_q / total_kv rows (bshd, heads_kv KV heads), the packed call run
 * twice on ctx into a poisoned output with guard bands; then for each sequence with a query
 * the dense call of its own lengths on the same variant (forced by name: the dispatcher may
 * pick another for another shape), that call checked against the contract (verify_run: 1
 * ULP, NaN/Inf, LSE, and the fp64 bound with `exact`), and the packed output's rows and LSE
 * compared with it bit for bit (docs/NUMERICS.md: a packed call is exactly the per-sequence
 * dense calls). */
typedef struct attngen__packed_args {
  attngen_context *ctx;
  int nseq;
  const int32_t *lens_q, *lens_k; /* [nseq] query and key lengths (>= 0) */
  const int32_t *kv_lengths;      /* [nseq] args.kv_lengths as well (seqused_k), or NULL */
  int heads, heads_kv;            /* heads_kv 0 = heads */
  attngen_rounding rounding;
  int causal;
  float scale;
  attngen__input_kind inputs;
  uint64_t seed;
  const char *variant;            /* NULL: the dispatcher's choice for the packed call */
  int exact, strict;              /* as attngen__verify_args */
  FILE *report;                   /* one line per sequence and failure blocks, or NULL */
  int head_dim;                   /* elements per row: 64, 128, 256 (0 = 128) */
} attngen__packed_args;

typedef struct attngen__packed_result {
  int pass;
  int sequences;                  /* dense calls made (sequences with a query) */
  int dense_failed;               /* of those, calls that failed the contract */
  int64_t out_mismatch;           /* packed output elements != the dense call's */
  int64_t lse_mismatch;           /* packed LSE values != the dense call's (bitwise) */
  int64_t unwritten, guard_damage;
  int deterministic;              /* the two packed runs bitwise equal (out and LSE) */
  char variant[128];
} attngen__packed_result;

/* Status other than OK: the check could not be made (a call failed: attngen_last_error;
 * INVALID_ARGUMENT when the lengths give no query row or a negative length). */
attngen_status attngen__verify_packed(const attngen__packed_args *a, attngen__packed_result *r);

/* ---- strided views (verify_strided.c) --------------------------------------------------- */

/* Calls on strided views (attngen_fwd_args.q_strides ...) against the call on dense tensors:
 * seeded logical inputs (B x H x S x S, heads_kv KV heads, head_dim), the call with q, k, v,
 * out dense in `layout` and no strides given, then each view with `layout` and its strides,
 * on ctx (device buffers, poisoned out): view 0, q, k and v read from one fused projection
 * [B, S, H + 2 H_kv, D] (a packed qkv), out dense; view 1, every tensor in the other layout's
 * memory order (a permuted view), out too; view 2, heads D + 8 apart and 64 elements between
 * batch entries, out too. Each view's out and LSE must be bit for bit the dense call's, and no
 * element of its out buffer outside the view's rows written. */
typedef struct attngen__strided_args {
  attngen_context *ctx;
  int batch, heads, heads_kv, seqlen, head_dim, causal; /* heads_kv 0 = heads */
  attngen_layout layout;
  attngen_rounding rounding;
  const char *variant; /* NULL: the dispatcher's choice */
  uint64_t seed;
} attngen__strided_args;

#define ATTNGEN__STRIDED_VIEWS 3

typedef struct attngen__strided_result {
  int pass;
  char variant[128];                                /* the variant of the dense call */
  int64_t out_mismatch[ATTNGEN__STRIDED_VIEWS];     /* out elements != the dense call's */
  int64_t lse_mismatch[ATTNGEN__STRIDED_VIEWS];     /* LSE values != (bitwise) */
  int64_t outside_written[ATTNGEN__STRIDED_VIEWS];  /* out buffer elements outside the view */
} attngen__strided_result;

/* Status other than OK: a call failed (attngen_last_error). */
attngen_status attngen__verify_strided(const attngen__strided_args *a, attngen__strided_result *r);

#endif /* ATTNGEN_VERIFY_H */
