/* report_path.c: the steady-state path of `attngen report --analyze`: the walk from the main
 * loop's header to one of its back edges, once for each wave of the block (max_flat_workgroup_
 * size / 64 waves; identical paths are merged, their waves kept as a mask). At each conditional
 * branch it decides, in this order:
 *    R1 stay in the loop: an edge that leaves the loop, or from which no back edge of the main
 *       loop is reachable by forward edges (an inner loop's body), is not taken;
 *    R2 else of an if/else: `s_andn2_saveexec`/`s_or_saveexec` of the mask saved by an if head
 *       on the path: the wave runs the else side iff it skipped the then side (exec-masked
 *       control flow is taken to be wave-uniform: a wave runs one side);
 *    R3 evaluated condition: the branch condition is evaluated for every wave w of the block
 *       (v0 = 64 w + lane at kernel entry, lanes 0 and 63 must agree; s_cmp / v_cmp /
 *       s_cselect / lane-mask logic / integer SALU and VALU ops over constants, the wave id
 *       and flags set earlier on the path; definitions before the loop are found along the
 *       dominator tree; kernel arguments, loads and loop-carried values are unknown). If every
 *       wave of the path's wave set (one wave per walk) agrees, that is the answer: the two
 *       groups of a ping-pong kernel (waves 0-3 and 4-7) get their own paths;
 *    R4 heuristics on the blocks only one side reaches (its exclusive region), first that
 *       differs: more MFMAs (the per-tile matrix work runs every steady-state iteration), at
 *       least 8 more v_exp (the softmax of the tile), more buffer/global ops (loads of the
 *       next tile: not the last tile), more s_barrier, then fewer instructions (rare gates:
 *       O rescale on a new row max, masking of the partial last tile, slow paths); a tie
 *       falls through. When R4 decides an evaluable condition, the path's wave set shrinks to
 *       the waves that agree.
 *    Every decision is recorded (offset, branch, taken or not, rule). */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report_path.h"

/* ---- evaluation of wave-uniform conditions for a concrete wave
 * A branch condition is evaluated for every wave w of the block (v0 = 64 w + lane at kernel
 * entry, lanes 0 and 63) from the definitions that reach it: first on the path so far (this
 * iteration), then, for a register the loop never writes, the last definition before the loop
 * in address order. Kernel arguments, loads and loop-carried values are unknown. */

static int ra_eval(ra_env *e, const char *opnd, int ppos, int kpos, long long *out);

static int ra_eval_scc(ra_env *e, int ppos, int kpos, long long *out);

static int ra_cmp(const char *op, long long a, long long b, long long *out) {
  char rel[8], type[8];
  const char *s = NULL;
  if (ra_starts(op, "s_cmpk_")) s = op + 7;
  else if (ra_starts(op, "s_cmp_") || ra_starts(op, "v_cmp_")) s = op + 6;
  if (!s || sscanf(s, "%7[a-z]_%7[a-z0-9]", rel, type) != 2 || type[0] == 'f') return 0;
  if (type[0] == 'i') {
    a = (int32_t)a;
    b = (int32_t)b;
  } else if (strcmp(type, "u64") != 0) {
    a = (uint32_t)a;
    b = (uint32_t)b;
  }
  if (strcmp(rel, "eq") == 0) *out = a == b;
  else if (strcmp(rel, "lg") == 0 || strcmp(rel, "ne") == 0) *out = a != b;
  else if (strcmp(rel, "gt") == 0) *out = a > b;
  else if (strcmp(rel, "ge") == 0) *out = a >= b;
  else if (strcmp(rel, "lt") == 0) *out = a < b;
  else if (strcmp(rel, "le") == 0) *out = a <= b;
  else return 0;
  return 1;
}

/* Value of instruction k's result (its first operand) for the current wave and lane. */
static int ra_eval_insn(ra_env *e, int p, int k, long long *out) {
  const ra_insn *in = &e->x->in[k];
  const char *op = in->op;
  char o[4][64];
  int no = 0;
  while (no < 4 && attngen__ra_operand(in->args, no, o[no], sizeof o[no])) no++;
  long long a, b, c;
  /* operands are evaluated where the instruction is */
  const int pp = p >= 0 ? p : -1, kp = k;
#define EV(i, v) (no > (i) && ra_eval(e, o[i], pp, kp, &(v)))
  if (ra_starts(op, "s_mov_b32") || ra_starts(op, "s_mov_b64") || ra_starts(op, "s_movk_i32") ||
      ra_starts(op, "v_mov_b32") || ra_starts(op, "v_readfirstlane_b32")) {
    if (!EV(1, a)) return 0;
    if (ra_starts(op, "s_mov_b64")) a = a != 0;
    *out = a;
    return 1;
  }
  if (ra_starts(op, "s_cselect_b")) {
    if (!EV(1, a) || !EV(2, b) || !ra_eval_scc(e, pp, kp, &c)) return 0;
    *out = c ? a : b;
    if (ra_starts(op, "s_cselect_b64")) *out = *out != 0;
    return 1;
  }
  if (ra_starts(op, "v_cmp_")) {
    if (!EV(1, a) || !EV(2, b)) return 0;
    return ra_cmp(op, a, b, out);
  }
  if (ra_starts(op, "v_cndmask_b32")) {
    if (!EV(1, a) || !EV(2, b) || !EV(3, c)) return 0;
    *out = c ? b : a;
    return 1;
  }
  if (ra_starts(op, "s_and_b64") || ra_starts(op, "s_or_b64") || ra_starts(op, "s_xor_b64") ||
      ra_starts(op, "s_andn2_b64") || ra_starts(op, "s_orn2_b64")) { /* lane masks as booleans */
    if (!EV(1, a) || !EV(2, b)) return 0;
    a = a != 0;
    b = b != 0;
    *out = ra_starts(op, "s_and_b64")     ? (a && b)
           : ra_starts(op, "s_or_b64")    ? (a || b)
           : ra_starts(op, "s_xor_b64")   ? (a != b)
           : ra_starts(op, "s_andn2_b64") ? (a && !b)
                                       : (a || !b);
    return 1;
  }
  if (ra_starts(op, "s_not_b64")) {
    if (!EV(1, a)) return 0;
    *out = !a;
    return 1;
  }
  /* 32-bit integer ops: d, a, b */
  if (no >= 3 && EV(1, a) && EV(2, b)) {
    uint32_t ua = (uint32_t)a, ub = (uint32_t)b, r;
    if (ra_starts(op, "s_and_b32") || ra_starts(op, "v_and_b32")) r = ua & ub;
    else if (ra_starts(op, "s_or_b32") || ra_starts(op, "v_or_b32")) r = ua | ub;
    else if (ra_starts(op, "s_xor_b32") || ra_starts(op, "v_xor_b32")) r = ua ^ ub;
    else if (ra_starts(op, "s_add_") || ra_starts(op, "v_add_u32") ||
             ra_starts(op, "v_add_co_u32") || ra_starts(op, "s_addk"))
      r = ua + ub;
    else if (ra_starts(op, "s_sub_") || ra_starts(op, "v_sub_u32")) r = ua - ub;
    else if (ra_starts(op, "s_mul_i32") || ra_starts(op, "v_mul_lo_u32")) r = ua * ub;
    else if (ra_starts(op, "s_lshr_b32")) r = ub < 32 ? ua >> ub : 0;
    else if (ra_starts(op, "s_lshl_b32")) r = ub < 32 ? ua << ub : 0;
    else if (ra_starts(op, "v_lshrrev_b32")) r = ua < 32 ? ub >> ua : 0;
    else if (ra_starts(op, "v_lshlrev_b32")) r = ua < 32 ? ub << ua : 0;
    else if (ra_starts(op, "v_bfe_u32") && EV(3, c))
      r = (uint32_t)((ua >> (ub & 31)) & ((c & 31) ? ((1u << (c & 31)) - 1) : 0));
    else return 0;
    *out = r;
    return 1;
  }
#undef EV
  return 0;
}

static int ra_eval_scc(ra_env *e, int ppos, int kpos, long long *out) {
  const ra_ctx *x = e->x;
  int idx[64], pp[64];
  int n = attngen__ra_backtrace(e, ppos, kpos, 1, idx, pp, 64);
  if (n < 0) n = -1 - n;
  for (int q = 0; q < n; ++q) {
    const ra_insn *in = &x->in[idx[q]];
    if (ra_starts(in->op, "s_cmp")) {
      char a[64], b[64];
      long long va, vb;
      if (!attngen__ra_operand(in->args, 0, a, sizeof a) ||
          !attngen__ra_operand(in->args, 1, b, sizeof b))
        return 0;
      if (!ra_eval(e, a, pp[q], idx[q], &va) || !ra_eval(e, b, pp[q], idx[q], &vb)) return 0;
      return ra_cmp(in->op, va, vb, out);
    }
    if (in->op[0] == 's' && in->op[1] == '_' &&
        (ra_starts(in->op, "s_and_") || ra_starts(in->op, "s_or_") || ra_starts(in->op, "s_xor_") ||
         ra_starts(in->op, "s_andn2_") || ra_starts(in->op, "s_orn2_") ||
         ra_starts(in->op, "s_add_") || ra_starts(in->op, "s_sub_") ||
         ra_starts(in->op, "s_addc") || ra_starts(in->op, "s_subb") ||
         ra_starts(in->op, "s_lshl") || ra_starts(in->op, "s_lshr") ||
         ra_starts(in->op, "s_ashr") || ra_starts(in->op, "s_bfe") || ra_starts(in->op, "s_min") ||
         ra_starts(in->op, "s_max") || ra_starts(in->op, "s_not") || ra_starts(in->op, "s_addk") ||
         ra_starts(in->op, "s_bitcmp") || ra_starts(in->op, "s_abs") ||
         ra_starts(in->op, "s_nand") || ra_starts(in->op, "s_nor") || ra_starts(in->op, "s_xnor") ||
         ra_starts(in->op, "s_bcnt") || ra_starts(in->op, "s_ff") ||
         ra_starts(in->op, "s_cbranch") || ra_starts(in->op, "s_branch")))
      return 0; /* another SCC writer (or a control-flow merge): not traced */
  }
  return 0;
}

static int ra_eval(ra_env *e, const char *opnd, int ppos, int kpos, long long *out) {
  long long v;
  if (attngen__ra_is_imm(opnd, &v)) {
    *out = v;
    return 1;
  }
  if (strcmp(opnd, "exec") == 0) { /* uniform control flow: every lane is active */
    *out = 1;
    return 1;
  }
  char kind;
  int lo, hi;
  if (!attngen__ra_reg(opnd, &kind, &lo, &hi) || e->depth > 24) return 0;
  int dp, dk;
  e->depth++;
  int ok = 0;
  const int f = attngen__ra_find_def(e, opnd, ppos, kpos, &dp, &dk);
  if (f == 1) {
    char d[64];
    if (attngen__ra_operand(e->x->in[dk].args, 0, d, sizeof d) && strcmp(d, opnd) == 0)
      ok = ra_eval_insn(e, dp, dk, out);
  } else if (f == 0 && kind == 'v' && lo == 0 && hi == 0) {
    *out = 64LL * e->w + e->lane; /* workitem id x at kernel entry */
    ok = 1;
  }
  e->depth--;
  return ok;
}

/* The set of waves (bit w) for which the branch at path position pos is taken; 0 if it cannot
 * be evaluated or differs between lanes of a wave. `*else_mask` gets the mask operand of an
 * else entry (s_andn2_saveexec / s_or_saveexec), handled by rule R2 instead. */
static int ra_branch_waves(const ra_ctx *x, const int *pidx, int pos, int nwaves,
                           unsigned *taken, char *else_mask, size_t emsz) {
  const ra_insn *br = &x->in[pidx[pos]];
  else_mask[0] = 0;
  char cond[64] = "";
  int cond_pos = pos, negate = 0, scc = 0;
  if (ra_starts(br->op, "s_cbranch_vcc")) {
    snprintf(cond, sizeof cond, "vcc");
    negate = strcmp(br->op, "s_cbranch_vccz") == 0;
  } else if (ra_starts(br->op, "s_cbranch_scc")) {
    scc = 1;
    negate = strcmp(br->op, "s_cbranch_scc0") == 0;
  } else if (ra_starts(br->op, "s_cbranch_exec")) {
    for (int p = pos - 1; p >= 0 && p >= pos - 8; --p) {
      const ra_insn *in = &x->in[pidx[p]];
      char d[64], a[64];
      if (!(ra_starts(in->op, "s_") && strstr(in->op, "saveexec")) &&
          !attngen__ra_writes(in, "exec"))
        continue;
      if (ra_starts(in->op, "s_xor_b64") && attngen__ra_operand(in->args, 0, d, sizeof d) &&
          strcmp(d, "exec") == 0)
        continue; /* the else entry's exec flip: its saveexec is just before */
      if ((ra_starts(in->op, "s_andn2_saveexec") || ra_starts(in->op, "s_or_saveexec")) &&
          attngen__ra_operand(in->args, 1, a, sizeof a)) {
        snprintf(else_mask, emsz, "%s", a);
        return 0;
      }
      if (ra_starts(in->op, "s_and_saveexec") && attngen__ra_operand(in->args, 1, a, sizeof a)) {
        snprintf(cond, sizeof cond, "%s", a);
        cond_pos = p;
        negate = strcmp(br->op, "s_cbranch_execz") == 0; /* execz taken iff !cond */
      }
      (void)d;
      break;
    }
    if (!cond[0]) return 0;
  } else {
    return 0;
  }
  unsigned t = 0;
  for (int w = 0; w < nwaves && w < 32; ++w) {
    long long v[2];
    for (int l = 0; l < 2; ++l) {
      ra_env e = {x, pidx, w, l ? 63 : 0, 0};
      int ok = scc ? ra_eval_scc(&e, cond_pos, 0, &v[l])
                   : ra_eval(&e, cond, cond_pos, 0, &v[l]);
      if (!ok) return 0;
      v[l] = v[l] != 0;
    }
    if (v[0] != v[1]) return 0; /* divergent within the wave */
    if (v[0] != negate) t |= 1u << w;
  }
  *taken = t;
  return 1;
}

/* ---- the walk */

/* Writes the block exec (an s_*saveexec or any instruction with exec as a destination)? */
static int ra_block_writes_exec(const ra_ctx *x, int k) {
  for (int i = x->b[k].first; i <= x->b[k].last; ++i) {
    const ra_insn *in = &x->in[i];
    if ((ra_starts(in->op, "s_") && strstr(in->op, "saveexec")) || attngen__ra_writes(in, "exec"))
      return 1;
  }
  return 0;
}

/* attngen__ra_reach for a path on which exec is full: an s_cbranch_execz edge is not
 * followed while no block on the way has written exec (execnz: its fall-through). */
static void ra_reach_full_exec(const ra_ctx *x, int from, char *set) {
  memset(set, 0, (size_t)x->nb);
  int *stack = malloc(sizeof *stack * 2 * ((size_t)x->nb + 1));
  if (!stack) return;
  int sp = 0;
  if (from != x->header && x->inloop[from]) {
    stack[sp++] = from;
    stack[sp++] = 1; /* exec still full when entering it */
    set[from] = 1;
  }
  while (sp) {
    const int full = stack[--sp] && !ra_block_writes_exec(x, stack[sp - 1]);
    const int k = stack[--sp];
    const ra_insn *last = &x->in[x->b[k].last];
    for (int j = 0; j < x->b[k].nsucc; ++j) {
      int s = x->b[k].succ[j];
      if (s == x->header || !x->inloop[s] || set[s] || s <= k) continue;
      if (full && x->b[k].nsucc == 2 &&
          ((j == 1 && !strcmp(last->op, "s_cbranch_execz")) ||
           (j == 0 && !strcmp(last->op, "s_cbranch_execnz"))))
        continue; /* never taken with a full exec */
      set[s] = 1;
      stack[sp++] = s;
      stack[sp++] = full;
    }
  }
  free(stack);
}

/* One walk from the header to a back edge of the main loop for the waves x->waves: the
 * blocks (path, *np) and the decisions at its branches (dec, *nd). 0, or -1 with err set. */
static int ra_path(ra_ctx *x, int *path, int *np, ra_decision *dec, int *nd, int maxd,
                   char *err, size_t errsz) {
  char *s1 = malloc((size_t)x->nb), *s2 = malloc((size_t)x->nb), *seen = calloc((size_t)x->nb, 1);
  int *pidx = malloc(sizeof *pidx * ((size_t)x->n + 1));
  int npi = 0;
  int rc = -1;
  if (!s1 || !s2 || !seen || !pidx) goto done;
  int cur = x->header;
  *np = 0;
  *nd = 0;
  for (;;) {
    if (seen[cur]) {
      snprintf(err, errsz, "the path revisits the block at +0x%lx", x->in[x->b[cur].first].off);
      goto done;
    }
    seen[cur] = 1;
    path[(*np)++] = cur;
    for (int i = x->b[cur].first; i <= x->b[cur].last; ++i) pidx[npi++] = i;
    const ra_block *bl = &x->b[cur];
    const ra_insn *br = &x->in[bl->last];
    if (bl->nsucc == 0) {
      snprintf(err, errsz, "the path reaches the end of the kernel at +0x%lx", br->off);
      goto done;
    }
    int ok[2] = {0, 0}, to_header = -1;
    for (int j = 0; j < bl->nsucc; ++j) {
      int s = bl->succ[j];
      if (s == x->header) to_header = j;
      ok[j] = x->inloop[s] && s != x->header && s > cur && x->reach_end[s];
    }
    if (to_header >= 0) { /* end of the iteration (a back edge of the main loop) */
      if (bl->nsucc == 2 && *nd < maxd) {
        ra_decision *d = &dec[(*nd)++];
        d->off = br->off;
        snprintf(d->op, sizeof d->op, "%s", br->op);
        d->taken = to_header == 1;
        snprintf(d->why, sizeof d->why, "back edge: next iteration");
      }
      break;
    }
    if (bl->nsucc == 1) {
      if (!ok[0]) {
        snprintf(err, errsz, "the path leaves the loop at +0x%lx", br->off);
        goto done;
      }
      cur = bl->succ[0];
      continue;
    }
    /* a conditional branch: succ[0] falls through, succ[1] is taken */
    int take = -1;
    char why[256] = "";
    if (ok[0] != ok[1]) {
      take = ok[1];
      snprintf(why, sizeof why, "R1 stay in the loop");
    }
    char emask[64] = "";
    unsigned tw = 0;
    int have_waves = 0;
    if (take < 0 && ra_starts(br->op, "s_cbranch_exec")) {
      /* exec is full at the loop header (MFMA loops run whole waves); if nothing on the path
       * has written exec since, s_cbranch_execz is never taken (execnz always). clang-17
       * emits such jumps into rarely run blocks (hipcc/hiprtc 5.7, tests/test_rocm.c). */
      int written = 0;
      for (int p = 0; p < npi && !written; ++p) {
        const ra_insn *in = &x->in[pidx[p]];
        written = (ra_starts(in->op, "s_") && strstr(in->op, "saveexec")) ||
                  attngen__ra_writes(in, "exec");
      }
      if (!written) {
        take = strcmp(br->op, "s_cbranch_execnz") == 0;
        snprintf(why, sizeof why, "R2 exec is full (not written on the path since the loop "
                 "header)");
      }
    }
    if (take < 0) {
      have_waves = ra_branch_waves(x, pidx, npi - 1, x->nwaves, &tw, emask, sizeof emask);
      if (emask[0]) {
        for (int m = x->nmasks - 1; m >= 0; --m)
          if (strcmp(x->masks[m], emask) == 0) {
            /* else side runs iff the then side did not: execz taken iff then ran */
            const int then_ran = x->mask_then[m];
            take = ra_starts(br->op, "s_cbranch_execz") ? then_ran : !then_ran;
            snprintf(why, sizeof why, "R2 else of the if/else saved in %s: the then side %s",
                     emask, then_ran ? "ran" : "was skipped");
            break;
          }
      } else if (have_waves) {
        if ((x->waves & tw) == x->waves) take = 1;
        else if ((x->waves & tw) == 0) take = 0;
        if (take >= 0)
          snprintf(why, sizeof why, "R3 evaluated: taken by waves 0x%x, the path's waves 0x%x",
                   tw, x->waves);
      }
    }
    if (take < 0) { /* R4 heuristics on the exclusive regions */
      int exec_full = 1; /* no exec write on the path since the loop header */
      for (int p = 0; p < npi && exec_full; ++p) {
        const ra_insn *in = &x->in[pidx[p]];
        exec_full = !((ra_starts(in->op, "s_") && strstr(in->op, "saveexec")) ||
                      attngen__ra_writes(in, "exec"));
      }
      if (exec_full) {
        ra_reach_full_exec(x, bl->succ[0], s1);
        ra_reach_full_exec(x, bl->succ[1], s2);
      } else {
        attngen__ra_reach(x, bl->succ[0], s1);
        attngen__ra_reach(x, bl->succ[1], s2);
      }
      ra_stats e[2];
      memset(e, 0, sizeof e);
      for (int k = 0; k < x->nb; ++k) {
        if (s1[k] && !s2[k]) attngen__ra_block_stats(x, k, &e[0]);
        if (s2[k] && !s1[k]) attngen__ra_block_stats(x, k, &e[1]);
      }
      const char *rule;
      if (e[0].mfma != e[1].mfma) {
        take = e[1].mfma > e[0].mfma;
        rule = "more MFMA";
      } else if (labs(e[0].exp - e[1].exp) >= 8) {
        take = e[1].exp > e[0].exp;
        rule = ">= 8 more v_exp";
      } else if (e[0].vmem != e[1].vmem) {
        take = e[1].vmem > e[0].vmem;
        rule = "more buffer/global ops";
      } else if (e[0].barrier != e[1].barrier) {
        take = e[1].barrier > e[0].barrier;
        rule = "more s_barrier";
      } else if (e[0].insns != e[1].insns) {
        take = e[1].insns < e[0].insns;
        rule = "fewer instructions";
      } else {
        take = 0;
        rule = "tie: fall through";
      }
      snprintf(why, sizeof why,
               "R4 %s (not taken: %ld insn %ld mfma %ld exp %ld vmem %ld bar | taken: %ld insn "
               "%ld mfma %ld exp %ld vmem %ld bar)%s%s",
               rule, e[0].insns, e[0].mfma, e[0].exp, e[0].vmem, e[0].barrier, e[1].insns,
               e[1].mfma, e[1].exp, e[1].vmem, e[1].barrier,
               have_waves ? "; path's waves now " : "", "");
      if (have_waves) {
        x->waves &= take ? tw : ~tw;
        size_t l = strlen(why);
        snprintf(why + l, sizeof why - l, "0x%x", x->waves);
      }
    }
    /* an if/else head: remember whether its then side runs */
    if (ra_starts(br->op, "s_cbranch_execz")) {
      for (int p = npi - 2; p >= 0 && p >= npi - 6; --p) {
        const ra_insn *in = &x->in[pidx[p]];
        char d[64], a[64];
        if (ra_starts(in->op, "s_xor_b64") && attngen__ra_operand(in->args, 0, d, sizeof d) &&
            attngen__ra_operand(in->args, 1, a, sizeof a) && strcmp(d, "exec") != 0 &&
            strcmp(a, "exec") == 0) {
          int m = x->nmasks < 32 ? x->nmasks++ : 31;
          snprintf(x->masks[m], sizeof x->masks[m], "%s", d);
          x->mask_then[m] = !take;
          break;
        }
        if (ra_starts(in->op, "s_and_saveexec")) break;
      }
    }
    if (*nd < maxd) {
      ra_decision *d = &dec[(*nd)++];
      d->off = br->off;
      snprintf(d->op, sizeof d->op, "%s", br->op);
      d->taken = take;
      snprintf(d->why, sizeof d->why, "%s", why);
    }
    cur = bl->succ[take];
  }
  rc = 0;
done:
  free(s1);
  free(s2);
  free(seen);
  free(pidx);
  return rc;
}

/* Did the path skip a region holding only an O rescale (>= 16 v_mul_f32/v_pk_mul_f32, no
 * MFMA) at one of its branches? */
int attngen__ra_rescale_skipped(const ra_ctx *x, const int *bp, int np) {
  char *s1 = malloc((size_t)x->nb), *s2 = malloc((size_t)x->nb), *onp = calloc((size_t)x->nb, 1);
  int found = 0;
  if (s1 && s2 && onp) {
    for (int q = 0; q < np; ++q) onp[bp[q]] = 1;
    for (int q = 0; q < np; ++q) {
      const ra_block *bl = &x->b[bp[q]];
      if (bl->nsucc != 2) continue;
      int other = onp[bl->succ[0]] ? bl->succ[1] : bl->succ[0];
      int mine = other == bl->succ[0] ? bl->succ[1] : bl->succ[0];
      if (!x->inloop[other] || other == x->header || onp[other]) continue;
      attngen__ra_reach(x, other, s1);
      attngen__ra_reach(x, mine, s2);
      ra_stats e;
      memset(&e, 0, sizeof e);
      for (int k = 0; k < x->nb; ++k)
        if (s1[k] && !s2[k]) attngen__ra_block_stats(x, k, &e);
      if (e.mul >= 16 && e.mfma == 0) found = 1;
    }
  }
  free(s1);
  free(s2);
  free(onp);
  return found;
}

int attngen__ra_wave_paths(ra_ctx *x, int verbose, ra_wpath *wp, int *nwp_out, char *err,
                           size_t errsz) {
  /* one path per wave of the block (R3 resolves what depends on the wave id); identical paths
   * are merged, their waves kept as a mask */
  int nwp = 0, np = 0, nd = 0, rc = 1;
  int *bp = malloc(sizeof *bp * ((size_t)x->nb + 1));
  ra_decision *dec = malloc(sizeof *dec * 512);
  if (!bp || !dec) goto done;
  for (int w = 0; w < x->nwaves; ++w) {
    x->waves = 1u << w;
    x->nmasks = 0;
    if (ra_path(x, bp, &np, dec, &nd, 512, err, errsz) != 0) {
      if (verbose)
        for (int i = 0; i < nd; ++i)
          fprintf(stderr, "    +0x%-6lx %-16s %-9s %s\n", dec[i].off, dec[i].op,
                  dec[i].taken ? "taken" : "not taken", dec[i].why);
      size_t l = strlen(err);
      snprintf(err + l, errsz - l, " (path of wave %d)", w);
      goto done;
    }
    int same = -1;
    for (int q = 0; q < nwp && same < 0; ++q)
      if (wp[q].np == np && memcmp(wp[q].bp, bp, sizeof *bp * (size_t)np) == 0) same = q;
    if (same >= 0) {
      wp[same].waves |= 1u << w;
      continue;
    }
    if (nwp == RA_MAX_PATHS) {
      snprintf(err, errsz, "more than %d distinct paths", RA_MAX_PATHS);
      goto done;
    }
    ra_wpath *q = &wp[nwp++];
    q->waves = 1u << w;
    q->np = np;
    q->nd = nd;
    q->bp = malloc(sizeof *bp * (size_t)np);
    q->dec = malloc(sizeof *dec * (size_t)(nd ? nd : 1));
    if (!q->bp || !q->dec) goto done;
    memcpy(q->bp, bp, sizeof *bp * (size_t)np);
    memcpy(q->dec, dec, sizeof *dec * (size_t)nd);
  }
  rc = 0;
done:
  *nwp_out = nwp;
  free(bp);
  free(dec);
  return rc;
}
