/* report_analyze.h: static steady-state analysis of the main loop of gfx942 kernels, read
 * from any code object (attngen's or a third party's) through llvm-objdump / llvm-readelf.
 * Used by `attngen report --analyze` (cmd_report.c); implemented by report_analyze.c (driver,
 * counts, cost model, printing), report_disasm.c, report_cfg.c and report_path.c, which share
 * report_analyze_internal.h. The rules are documented in those files and in the README. */
#ifndef ATTNGEN_REPORT_ANALYZE_H
#define ATTNGEN_REPORT_ANALYZE_H

#include <stdio.h>

typedef struct attngen__ra_options {
  const char *kernel_glob; /* only kernels whose symbol matches (NULL: all) */
  int tsv;                 /* one tab-separated row per kernel (header printed by caller) */
  int mca;                 /* also run llvm-mca-19 on the steady-state path */
  int verbose;             /* print the path's instructions */
  double trans_cycles;     /* cycles of one wave64 transcendental (default 16: quarter rate) */
  double head_dim;         /* d of QK^T and PV (default 128) */
  double mfma_cycles;      /* cycles of v_mfma_f32_16x16x16_bf16 (0: 16); other MFMAs scale */
  int skip_unmatched;      /* a file without a kernel matching kernel_glob is not an error */
} attngen__ra_options;

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

#define ATTNGEN__RA_TSV_HEADER                                                                \
  "file\tkernel\tvgpr\tagpr\tsgpr\tscratch\tlds\tspills\twaves_per_simd\tunits_per_iter"      \
  "\tmfma\tvalu\texp_trans\tperm\tcvt\tfma_mul_add\tcmp_cndmask\tmov\tother\tv_exp\tv_perm" \
  "\tround_ops\tround_cndmask\tlds_ops\tvmem\ts_waitcnt\ts_barrier\ts_nop_states"            \
  "\tmfma_cycles\tvalu_cycles\theadroom\tbound\tmca_cycles\tpaths\trescale_skipped\n"

/* Analyzes every kernel of `path` matching opt->kernel_glob; prints the report to `out`.
 * results/max_results: optional array filled with one entry per analyzed kernel.
 * Returns 0 when at least one kernel was analyzed and every kernel selected by name had a
 * main loop; 1 otherwise (message on stderr). */
int attngen__report_analyze_file(const char *path, const attngen__ra_options *opt, FILE *out,
                                 attngen__ra_result *results, int max_results, int *n_results);

#endif
