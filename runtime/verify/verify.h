/* verify.h: one check of a call against the numerics contract (docs/NUMERICS.md), the
 * run -> reference -> compare sequence in one place, used by `attngen check`, `attngen tune`
 * and the tests:
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

#include "numerics.h"

/* The reference of one problem, reusable across calls (zero-initialize; free with
 * attngen__verify_ref_free). */
typedef struct attngen__verify_ref {
  uint16_t *out;         /* bf16, dense in the call's layout */
  float *lse, *tol;
  double *exact;         /* NULL until a call asks for it */
  unsigned char *rows;   /* split-row flags of the followed plan, or NULL */
  size_t nq, nl;
  int valid, kv_step, score_fma, kv_per_split, has_exact;
  int rounding, layout; /* of the valid reference: its rounding, the layout of out/exact */
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

#endif /* ATTNGEN_VERIFY_H */
