/* report_cfg.h: basic blocks, dominators, the main loop and reaching definitions of one
 * kernel's instruction list (report_cfg.c), over report_disasm.h. */
#ifndef ATTNGEN_REPORT_CFG_H
#define ATTNGEN_REPORT_CFG_H

#include "report_disasm.h"

typedef struct ra_block {
  int first, last; /* instruction indices */
  int succ[2];     /* succ[0] fall-through (or the only successor), succ[1] branch target */
  int nsucc;
} ra_block;

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

#endif /* ATTNGEN_REPORT_CFG_H */
