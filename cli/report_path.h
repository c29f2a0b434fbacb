/* report_path.h: the steady-state path of each wave through the main loop (report_path.c:
 * rules R1-R4, condition evaluation) and the counts of a path, over report_cfg.h. */
#ifndef ATTNGEN_REPORT_PATH_H
#define ATTNGEN_REPORT_PATH_H

#include "report_cfg.h"

/* The summed quantities of a path (per iteration; divided by `units` for per-unit figures). */
#define ATTNGEN__RA_SUMS(X)                                                                   \
  X(units) X(mfma) X(mfma_cycles) X(valu) X(v_exp) X(trans) X(perm) X(cvt) X(fma) X(cmp)     \
  X(mov) X(other) X(v_perm) X(round_ops) X(round_cndmask) X(lds_ops) X(vmem) X(waitcnt)      \
  X(barrier) X(nop_states) X(salu) X(insns) X(valu_cycles) X(mca_cycles)

/* Counts of one kernel's steady-state path(s) and its normalization. */
typedef struct attngen__ra_result {
  char name[256];
  long vgpr, agpr, sgpr, scratch, lds, vgpr_spill, sgpr_spill, waves_per_simd;
  int found_loop;
  unsigned long loop_head, loop_latch; /* offsets from the kernel symbol */
  int loop_blocks, path_blocks, decisions, paths;
#define ATTNGEN__RA_DECLARE(f) double f;
  ATTNGEN__RA_SUMS(ATTNGEN__RA_DECLARE)
#undef ATTNGEN__RA_DECLARE
  int rescale_skipped; /* every path skipped, at a branch, a region holding only an O rescale
                          (>= 16 v_mul_f32/v_pk_mul_f32, no MFMA) */
} attngen__ra_result;

/* One resolved branch of a path. */
typedef struct ra_decision {
  unsigned long off;
  char op[24];
  int taken;
  char why[256];
} ra_decision;

/* One distinct steady-state path and the waves that take it. */
typedef struct ra_wpath {
  unsigned waves; /* bit w: wave w of the block takes this path */
  int *bp, np;
  ra_decision *dec;
  int nd;
  attngen__ra_result r;
} ra_wpath;

/* One path per wave of the block, identical ones merged, into wp (RA_MAX_PATHS entries, zeroed;
 * the caller frees each bp and dec, also on failure). 0, or 1 with err set (empty: out of
 * memory). verbose: a failed walk's decisions go to stderr. */
int attngen__ra_wave_paths(ra_ctx *x, int verbose, ra_wpath *wp, int *nwp, char *err,
                           size_t errsz);
/* Did the path skip a region holding only an O rescale at one of its branches? */
int attngen__ra_rescale_skipped(const ra_ctx *x, const int *bp, int np);

#endif /* ATTNGEN_REPORT_PATH_H */
