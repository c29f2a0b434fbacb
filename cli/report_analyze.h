/* report_analyze.h: static steady-state analysis of the main loop of gfx942 kernels, read
 * from any code object (attngen's or a third party's) through llvm-objdump / llvm-readelf.
 * Used by `attngen report --analyze` (cmd_report.c); implemented by report_analyze.c (driver,
 * counts, cost model, printing) over the modules below it, each with its own header:
 * report_path.h -> report_cfg.h -> report_disasm.h (no module calls one above it). The rules
 * are documented in those files and in the README. */
#ifndef ATTNGEN_REPORT_ANALYZE_H
#define ATTNGEN_REPORT_ANALYZE_H

#include <stdio.h>

#include "report_path.h"

typedef struct attngen__ra_options {
  const char *kernel_glob; /* only kernels whose symbol matches (NULL: all) */
  int tsv;                 /* one tab-separated row per kernel (header printed by caller) */
  int mca;                 /* also run llvm-mca-19 on the steady-state path */
  int verbose;             /* print the path's instructions */
  double trans_cycles;     /* cycles of one wave64 transcendental (default 16: quarter rate) */
  double head_dim;         /* d of QK^T and PV (0: from the attngen symbol's d<N>, else 128) */
  double mfma_cycles;      /* cycles of v_mfma_f32_16x16x16_bf16 (0: 16); other MFMAs scale */
  int skip_unmatched;      /* a file without a kernel matching kernel_glob is not an error */
} attngen__ra_options;

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

/* Waves per SIMD: unified 512-register file in granules of 8, at most 8, and the LDS (64 KiB
 * per CU) for blocks of `waves_per_block` waves (0: not limited by the LDS). */
long attngen__ra_waves_per_simd(const ra_kernel_notes *k, long waves_per_block);

#endif
