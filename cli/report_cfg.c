/* report_cfg.c: the control flow of one kernel for `attngen report --analyze`.
 * 1. Basic blocks: leaders are the first instruction, branch targets and the instruction after
 *    a branch or s_endpgm. Edges: fall-through and branch target.
 * 2. Loops: an edge to a block that dominates its source (and lies at a lower or equal
 *    address) is a back edge; its natural loop is the header plus every block that reaches
 *    the edge's source without passing the header. The main loop is the loop with the most
 *    MFMAs in its body; ties go to the one with fewer blocks (the innermost). An inner loop
 *    inside the main loop is counted once (its back edge is not followed).
 * 3. Reaching definitions: the definition of a register that reaches a point of the path, on
 *    the path so far or, for a register the loop never writes, up the dominator tree before
 *    the loop (used by report_path.c to evaluate branch conditions).
 * Also the region queries the path rules use: forward reachability inside the loop and what a
 * set of blocks holds. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report_cfg.h"

static int ra_find_off(const ra_ctx *x, long off) {
  int lo = 0, hi = x->n - 1;
  while (lo <= hi) {
    int mid = (lo + hi) / 2;
    if ((long)x->in[mid].off == off) return mid;
    if ((long)x->in[mid].off < off) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}

int attngen__ra_build_blocks(ra_ctx *x) {
  char *lead = calloc((size_t)x->n + 1, 1);
  x->b = calloc((size_t)x->n + 1, sizeof *x->b);
  x->blk_of = calloc((size_t)x->n + 1, sizeof *x->blk_of);
  if (!lead || !x->b || !x->blk_of) {
    free(lead);
    return -1;
  }
  lead[0] = 1;
  for (int i = 0; i < x->n; ++i) {
    const ra_insn *in = &x->in[i];
    if (in->target >= 0) {
      int t = ra_find_off(x, in->target);
      if (t >= 0) lead[t] = 1;
    }
    if ((in->target >= 0 || ra_is_branch(in->op) || ra_starts(in->op, "s_endpgm") ||
         ra_starts(in->op, "s_setpc")) &&
        i + 1 < x->n)
      lead[i + 1] = 1;
  }
  x->nb = 0;
  for (int i = 0; i < x->n; ++i) {
    if (lead[i]) {
      if (x->nb) x->b[x->nb - 1].last = i - 1;
      x->b[x->nb].first = i;
      x->nb++;
    }
    x->blk_of[i] = x->nb - 1;
  }
  if (x->nb) x->b[x->nb - 1].last = x->n - 1;
  for (int k = 0; k < x->nb; ++k) {
    ra_block *bl = &x->b[k];
    const ra_insn *l = &x->in[bl->last];
    bl->nsucc = 0;
    int t = l->target >= 0 ? ra_find_off(x, l->target) : -1;
    if (strcmp(l->op, "s_branch") == 0) {
      if (t >= 0) bl->succ[bl->nsucc++] = x->blk_of[t];
    } else if (ra_starts(l->op, "s_cbranch_")) {
      if (k + 1 < x->nb) bl->succ[bl->nsucc++] = k + 1;
      if (t >= 0) bl->succ[bl->nsucc++] = x->blk_of[t];
    } else if (!ra_starts(l->op, "s_endpgm") && !ra_starts(l->op, "s_setpc") && k + 1 < x->nb) {
      bl->succ[bl->nsucc++] = k + 1;
    }
  }
  free(lead);
  return 0;
}

void attngen__ra_block_stats(const ra_ctx *x, int k, ra_stats *s) {
  for (int i = x->b[k].first; i <= x->b[k].last; ++i) {
    const char *op = x->in[i].op;
    s->insns++;
    if (ra_is_mfma(op)) s->mfma++;
    else if (ra_starts(op, "v_exp_")) s->exp++;
    else if (ra_is_vmem(op)) s->vmem++;
    else if (strcmp(op, "s_barrier") == 0) s->barrier++;
    if (ra_starts(op, "v_mul_f32") || ra_starts(op, "v_pk_mul_f32")) s->mul++;
  }
}

/* Blocks of the main loop reachable from `from` by forward edges (not the header). */
void attngen__ra_reach(const ra_ctx *x, int from, char *set) {
  memset(set, 0, (size_t)x->nb);
  int *stack = malloc(sizeof *stack * ((size_t)x->nb + 1));
  if (!stack) return;
  int sp = 0;
  if (from != x->header && x->inloop[from]) {
    stack[sp++] = from;
    set[from] = 1;
  }
  while (sp) {
    int k = stack[--sp];
    for (int j = 0; j < x->b[k].nsucc; ++j) {
      int s = x->b[k].succ[j];
      if (s == x->header || !x->inloop[s] || set[s] || s <= k) continue;
      set[s] = 1;
      stack[sp++] = s;
    }
  }
  free(stack);
}

/* Does the main loop write (part of) `reg`? */
static int ra_written_in_loop(const ra_ctx *x, const char *reg) {
  for (int k = 0; k < x->nb; ++k) {
    if (!x->inloop[k]) continue;
    for (int i = x->b[k].first; i <= x->b[k].last; ++i)
      if (attngen__ra_writes(&x->in[i], reg)) return 1;
  }
  return 0;
}

/* ---- reaching definitions */

/* The instructions before a position, nearest first: on the path (ppos >= 0) back to the
 * header, then (only if `across_loop`) from the end of the header's immediate dominator; in
 * address order within a block and up the dominator tree (ppos < 0: from kernel index kpos).
 * Fills idx (kernel indices) and pp (path positions, -1 off the path); returns the count, or
 * -1 - count when the walk stopped before the kernel entry (an unknown dominator). */
int attngen__ra_backtrace(const ra_env *e, int ppos, int kpos, int across_loop, int *idx, int *pp,
                        int max) {
  const ra_ctx *x = e->x;
  int n = 0;
  if (ppos >= 0) {
    for (int p = ppos - 1; p >= 0 && n < max; --p) {
      idx[n] = e->pidx[p];
      pp[n++] = p;
    }
    if (n == max) return n;
    if (!across_loop || !x->idom || x->header == 0 || x->idom[x->header] < 0) return -1 - n;
    kpos = x->b[x->idom[x->header]].last + 1;
  }
  if (kpos <= 0) return n;
  int blk = x->blk_of[kpos - 1 < x->n ? kpos - 1 : x->n - 1];
  int from = kpos - 1;
  for (int guard = 0; guard <= x->nb && n < max; ++guard) {
    for (int i = from; i >= x->b[blk].first && n < max; --i) {
      idx[n] = i;
      pp[n++] = -1;
    }
    if (blk == 0) return n;
    if (!x->idom || x->idom[blk] < 0 || x->idom[blk] == blk) return -1 - n;
    blk = x->idom[blk];
    from = x->b[blk].last;
  }
  return n;
}

/* The definition of `reg` reaching a position (see attngen__ra_backtrace; on the path, a
 * register the loop writes is loop-carried: unknown). 1: found; 0: none up to the kernel
 * entry; -1: unknown. */
int attngen__ra_find_def(const ra_env *e, const char *reg, int ppos, int kpos, int *def_p,
                       int *def_k) {
  const ra_ctx *x = e->x;
  static int idx[RA_MAX_INSNS], pp[RA_MAX_INSNS];
  const int across = ppos < 0 || !ra_written_in_loop(x, reg);
  int n = attngen__ra_backtrace(e, ppos, kpos, across, idx, pp, RA_MAX_INSNS);
  const int complete = n >= 0;
  if (n < 0) n = -1 - n;
  for (int i = 0; i < n; ++i)
    if (attngen__ra_writes(&x->in[idx[i]], reg)) {
      *def_p = pp[i];
      *def_k = idx[i];
      return 1;
    }
  return complete ? 0 : -1;
}

/* Does block h dominate block k? */
static int ra_dominates(const int *idom, const int *rpo, int h, int k) {
  if (rpo[k] < 0 || rpo[h] < 0) return 0;
  for (int c = k;; c = idom[c]) {
    if (c == h) return 1;
    if (c == 0 || idom[c] < 0 || idom[c] == c) return c == h;
  }
}

/* Dominators, the main loop and the blocks of it from which a back edge is reachable by
 * forward edges (x->reach_end). */
int attngen__ra_main_loop(ra_ctx *x, int *blocks, unsigned long *latch, char *err, size_t errsz) {
  *latch = 0;
  x->inloop = calloc((size_t)x->nb, 1);
  x->reach_end = calloc((size_t)x->nb, 1);
  char *body = calloc((size_t)x->nb, 1);
  int *stack = malloc(sizeof *stack * ((size_t)x->nb + 1));
  int **preds = calloc((size_t)x->nb, sizeof *preds);
  int *npred = calloc((size_t)x->nb, sizeof *npred);
  if (!x->inloop || !x->reach_end || !body || !stack || !preds || !npred) {
    free(body);
    free(stack);
    free(preds);
    free(npred);
    return 1;
  }
  for (int k = 0; k < x->nb; ++k)
    for (int j = 0; j < x->b[k].nsucc; ++j) {
      int s = x->b[k].succ[j];
      int *g = realloc(preds[s], sizeof *g * ((size_t)npred[s] + 1));
      if (g) {
        preds[s] = g;
        preds[s][npred[s]++] = k;
      }
    }
  /* dominators (Cooper, Harvey, Kennedy): a back edge k -> h needs h to dominate k */
  int *rpo = malloc(sizeof *rpo * ((size_t)x->nb + 1));
  int *order = malloc(sizeof *order * ((size_t)x->nb + 1));
  int *idom = malloc(sizeof *idom * ((size_t)x->nb + 1));
  int *it = calloc((size_t)x->nb + 1, sizeof *it);
  if (!rpo || !order || !idom || !it) {
    free(rpo);
    free(order);
    free(idom);
    free(it);
    free(body);
    free(stack);
    for (int k = 0; k < x->nb; ++k) free(preds[k]);
    free(preds);
    free(npred);
    return 1;
  }
  {
    int no = 0, sp = 0;
    for (int k = 0; k < x->nb; ++k) rpo[k] = -1;
    memset(body, 0, (size_t)x->nb); /* visited */
    stack[sp++] = 0;
    body[0] = 1;
    while (sp) { /* iterative post-order */
      int k = stack[sp - 1];
      if (it[k] < x->b[k].nsucc) {
        int s2 = x->b[k].succ[it[k]++];
        if (!body[s2]) {
          body[s2] = 1;
          stack[sp++] = s2;
        }
      } else {
        order[no++] = k;
        sp--;
      }
    }
    for (int i = 0; i < no; ++i) rpo[order[i]] = no - 1 - i; /* reverse post-order number */
    for (int k = 0; k < x->nb; ++k) idom[k] = -1;
    idom[0] = 0;
    for (int changed = 1; changed;) {
      changed = 0;
      for (int i = no - 1; i >= 0; --i) {
        int k = order[i];
        if (k == 0) continue;
        int nd2 = -1;
        for (int pp = 0; pp < npred[k]; ++pp) {
          int pr = preds[k][pp];
          if (idom[pr] < 0 || rpo[pr] < 0) continue;
          if (nd2 < 0) {
            nd2 = pr;
            continue;
          }
          int a1 = pr, b1 = nd2;
          while (a1 != b1) {
            while (rpo[a1] > rpo[b1]) a1 = idom[a1];
            while (rpo[b1] > rpo[a1]) b1 = idom[b1];
          }
          nd2 = a1;
        }
        if (nd2 >= 0 && idom[k] != nd2) {
          idom[k] = nd2;
          changed = 1;
        }
      }
    }
  }
  free(it);
  /* loops by header: union of the natural loops of its back edges */
  long best_mfma = 0;
  int best_blocks = 0, best_h = -1;
  for (int h = 0; h < x->nb; ++h) {
    int any = 0;
    memset(body, 0, (size_t)x->nb);
    body[h] = 1;
    for (int k = h; k < x->nb; ++k)
      for (int j = 0; j < x->b[k].nsucc; ++j)
        if (x->b[k].succ[j] == h && ra_dominates(idom, rpo, h, k)) { /* back edge k -> h */
          any = 1;
          int sp = 0;
          if (!body[k]) {
            body[k] = 1;
            stack[sp++] = k;
          }
          while (sp) {
            int c = stack[--sp];
            for (int pp = 0; pp < npred[c]; ++pp) {
              int pr = preds[c][pp];
              if (!body[pr]) {
                body[pr] = 1;
                stack[sp++] = pr;
              }
            }
          }
        }
    if (!any) continue;
    long mf = 0;
    int nbk = 0;
    for (int k = 0; k < x->nb; ++k)
      if (body[k]) {
        nbk++;
        ra_stats s;
        memset(&s, 0, sizeof s);
        attngen__ra_block_stats(x, k, &s);
        mf += s.mfma;
      }
    if (mf > best_mfma || (mf == best_mfma && mf > 0 && nbk < best_blocks)) {
      best_mfma = mf;
      best_blocks = nbk;
      best_h = h;
      memcpy(x->inloop, body, (size_t)x->nb);
    }
  }
  x->rpo = rpo;
  x->idom = idom;
  free(order);
  free(body);
  free(stack);
  for (int k = 0; k < x->nb; ++k) free(preds[k]);
  free(preds);
  free(npred);
  if (best_h < 0) {
    snprintf(err, errsz, "no loop with MFMA instructions found");
    return 1;
  }
  x->header = best_h;
  for (int k = x->nb - 1; k >= 0; --k) {
    if (!x->inloop[k]) continue;
    for (int j = 0; j < x->b[k].nsucc; ++j) {
      int s = x->b[k].succ[j];
      if (s == x->header) {
        x->reach_end[k] = 1;
        if (x->in[x->b[k].last].off > *latch) *latch = x->in[x->b[k].last].off;
      } else if (s > k && x->inloop[s] && x->reach_end[s]) {
        x->reach_end[k] = 1;
      }
    }
  }
  *blocks = best_blocks;
  return 0;
}
