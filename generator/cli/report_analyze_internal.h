/* report_analyze_internal.h: what crosses the seams between the modules of
 * `attngen report --analyze` (and the code-object helpers cmd_report.c shares with them):
 *   report_disasm.c      code object -> kernel descriptors and instruction list; operand text
 *   report_cfg.c         basic blocks, dominators, the main loop, reaching definitions
 *   report_path.c        the steady-state path of each wave (rules R1-R4, condition evaluation)
 *   report_analyze.c     counts, per-unit normalization, the ping-pong estimate, printing
 * Not a public interface: only these files include it. */
#ifndef ATTNGEN_REPORT_ANALYZE_INTERNAL_H
#define ATTNGEN_REPORT_ANALYZE_INTERNAL_H

#include <stddef.h>
#include <string.h>

#include "report_analyze.h"

#define RA_MAX_KERNELS 64
#define RA_MAX_INSNS 131072
#define RA_MAX_PATHS 16

/* One instruction of the disassembly. */
typedef struct ra_insn {
  unsigned long off; /* from the kernel symbol */
  long target;       /* branch target offset, -1 if none */
  char op[48];
  char args[208];
} ra_insn;

typedef struct ra_block {
  int first, last; /* instruction indices */
  int succ[2];     /* succ[0] fall-through (or the only successor), succ[1] branch target */
  int nsucc;
} ra_block;

/* One kernel descriptor of `llvm-readelf --notes`. */
typedef struct ra_kernel_notes {
  char name[256];
  long vgpr, agpr, sgpr, scratch, lds, vgpr_spill, sgpr_spill, max_wg;
} ra_kernel_notes;

/* What a set of blocks holds (R4's exclusive regions, the main loop's MFMAs). */
typedef struct ra_stats {
  long mfma, exp, vmem, barrier, insns, mul;
} ra_stats;

/* One kernel under analysis: its instructions, control flow, main loop, and the state of the
 * path being walked. */
typedef struct ra_ctx {
  ra_insn *in;
  int n;
  ra_block *b;
  int nb;
  int *blk_of; /* instruction -> block */
  char *inloop;
  int header;
  char *reach_end;
  int nwaves;      /* waves of a block (max_flat_workgroup_size / 64), at most 32 */
  int *idom, *rpo; /* immediate dominators, reverse post-order numbers (-1: unreachable) */
  unsigned waves;  /* the waves the path can belong to (bit w) */
  char masks[32][32]; /* if/else masks seen on the path: register -> then executed */
  int mask_then[32];
  int nmasks;
} ra_ctx;

/* Where a condition is evaluated: the kernel, the path so far, the wave and lane. */
typedef struct ra_env {
  const ra_ctx *x;
  const int *pidx; /* path instruction indices */
  int w, lane, depth;
} ra_env;

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

/* ---- instruction classes (by mnemonic prefix) */

static inline int ra_starts(const char *s, const char *p) { return strncmp(s, p, strlen(p)) == 0; }

static inline int ra_is_branch(const char *op) {
  return ra_starts(op, "s_cbranch_") || strcmp(op, "s_branch") == 0;
}

static inline int ra_is_mfma(const char *op) {
  return ra_starts(op, "v_mfma") || ra_starts(op, "v_smfmac");
}

static inline int ra_is_vmem(const char *op) {
  return ra_starts(op, "buffer_") || ra_starts(op, "global_") || ra_starts(op, "flat_") ||
         ra_starts(op, "scratch_");
}

static inline int ra_is_trans(const char *op) {
  static const char *t[] = {"v_exp_", "v_log_", "v_rcp_", "v_rsq_", "v_sqrt_", "v_sin_", "v_cos_"};
  for (size_t i = 0; i < sizeof t / sizeof *t; ++i)
    if (ra_starts(op, t[i])) return 1;
  return 0;
}

/* ---- report_disasm.c */

/* $env if set and not empty, else `fallback` (the LLVM tools). */
const char *attngen__ra_tool(const char *env, const char *fallback);
/* Kernel descriptors of `path` (llvm-readelf --notes), at most `max`; 0, or -1. */
int attngen__ra_read_notes(const char *path, ra_kernel_notes *ks, int max, int *count);
/* 0: an AMDGPU ELF for gfx942; 1: not an ELF / not AMDGPU; 2: AMDGPU but another target
 * (named in arch). */
int attngen__ra_check_elf(const char *path, char *arch, size_t archsz);
/* The instructions of kernel `sym` (at most max); their count, or -1. */
int attngen__ra_disassemble(const char *path, const char *sym, const ra_kernel_notes *kernels,
                            int nkernels, ra_insn *v, int max);
/* i-th comma-separated operand of args (trimmed) into buf; 0 if none. */
int attngen__ra_operand(const char *args, int i, char *buf, size_t sz);
/* An integer literal (decimal, 0x hex, octal); 0 if not one. */
int attngen__ra_is_imm(const char *s, long long *v);
/* Register operand: kind 's', 'v', 'a', 'c' (vcc), 'e' (exec), 'm' (m0); 0 if none. */
int attngen__ra_reg(const char *s, char *kind, int *lo, int *hi);
/* Does the instruction write (part of) register `reg`? */
int attngen__ra_writes(const ra_insn *in, const char *reg);

/* ---- report_cfg.c */

/* Splits x->in into basic blocks (x->b, x->nb, x->blk_of); 0, or -1 (out of memory). */
int attngen__ra_build_blocks(ra_ctx *x);
/* Adds what block k holds to s. */
void attngen__ra_block_stats(const ra_ctx *x, int k, ra_stats *s);
/* Blocks of the main loop reachable from `from` by forward edges (not the header). */
void attngen__ra_reach(const ra_ctx *x, int from, char *set);
/* Dominators, the main loop (x->idom, x->rpo, x->header, x->inloop, x->reach_end), its number
 * of blocks and the offset of its last back edge. 0, or 1 with err set (empty: out of memory). */
int attngen__ra_main_loop(ra_ctx *x, int *blocks, unsigned long *latch, char *err, size_t errsz);
/* The definition of `reg` reaching a position: 1 found (*def_p: path position or -1,
 * *def_k: instruction), 0 none up to the kernel entry, -1 unknown. */
int attngen__ra_find_def(const ra_env *e, const char *reg, int ppos, int kpos, int *def_p,
                         int *def_k);
/* The instructions before a position, nearest first (see report_cfg.c). */
int attngen__ra_backtrace(const ra_env *e, int ppos, int kpos, int across_loop, int *idx, int *pp,
                          int max);

/* ---- report_path.c */

/* One path per wave of the block, identical ones merged, into wp (RA_MAX_PATHS entries, zeroed;
 * the caller frees each bp and dec, also on failure). 0, or 1 with err set (empty: out of
 * memory). verbose: a failed walk's decisions go to stderr. */
int attngen__ra_wave_paths(ra_ctx *x, int verbose, ra_wpath *wp, int *nwp, char *err,
                           size_t errsz);
/* Did the path skip a region holding only an O rescale at one of its branches? */
int attngen__ra_rescale_skipped(const ra_ctx *x, const int *bp, int np);

/* ---- report_analyze.c */

/* Waves per SIMD: unified 512-register file in granules of 8, at most 8, and the LDS (64 KiB
 * per CU) for blocks of `waves_per_block` waves (0: not limited by the LDS). */
long attngen__ra_waves_per_simd(const ra_kernel_notes *k, long waves_per_block);

#endif /* ATTNGEN_REPORT_ANALYZE_INTERNAL_H */
