/* report_analyze.c: `attngen report --analyze`, the steady-state analysis of the main loop of
 * a gfx942 kernel, from the code object alone (llvm-objdump-19 -d, llvm-readelf-19 --notes),
 * so that it applies to any code object: attngen's and third-party ones with several kernels.
 *
 * 1. Basic blocks: leaders are the first instruction, branch targets and the instruction after
 *    a branch or s_endpgm. Edges: fall-through and branch target.
 * 2. Loops: an edge to a block that dominates its source (and lies at a lower or equal
 *    address) is a back edge; its natural loop is the header plus every block that reaches
 *    the edge's source without passing the header. The main loop is the loop with the most
 *    MFMAs in its body; ties go to the one with fewer blocks (the innermost). An inner loop
 *    inside the main loop is counted once (its back edge is not followed).
 * 3. The steady-state path walks from the header to a back edge of the main loop, once for
 *    each wave of the block (max_flat_workgroup_size / 64 waves; identical paths are merged
 *    and their counts averaged over the waves). At each conditional branch it decides, in
 *    this order:
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
 *    Every decision is printed (offset, branch, taken or not, rule).
 * 4. Normalization: one unit = 16 query rows x 64 keys for one wave with head_dim d (128):
 *    QK^T + PV = 4 * 16 * 64 * d flops. Units per iteration = MFMA flops on the path / that.
 * 5. Costs (wave64, cycles of one SIMD): MFMA from its shape (v_mfma_f32_16x16x16_bf16/f16:
 *    16, 32x32x8: 32, per the AMD matrix instruction calculator for CDNA3; other shapes:
 *    flops / 512); VALU 4 (one pass of a 16-lane SIMD); transcendental (v_exp, v_log, v_rcp,
 *    v_rsq, v_sqrt, v_sin, v_cos) quarter rate, 16 (option). Under the two-group ping-pong
 *    the two waves of a SIMD share its MFMA and VALU pipes, one wave's MFMA phase overlapping
 *    the other's VALU phase: per unit, VALU-time / MFMA-time > 1 means VALU-bound. */
#define _POSIX_C_SOURCE 200809L
#include "report_analyze.h"

#include <ctype.h>
#include <fnmatch.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define RA_MAX_KERNELS 64
#define RA_MAX_INSNS 131072

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

typedef struct ra_kernel_notes {
  char name[256];
  long vgpr, agpr, sgpr, scratch, lds, vgpr_spill, sgpr_spill, max_wg;
} ra_kernel_notes;

typedef struct ra_stats {
  long mfma, exp, vmem, barrier, insns, mul;
} ra_stats;

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

static int ra_dominates(const int *idom, const int *rpo, int h, int k);
static int ra_is_imm(const char *s, long long *v);
static int ra_operand(const char *args, int i, char *buf, size_t sz);

static const char *ra_tool(const char *env, const char *fallback) {
  const char *t = getenv(env);
  return t && *t ? t : fallback;
}

static int starts(const char *s, const char *p) { return strncmp(s, p, strlen(p)) == 0; }

/* ---- code object metadata */

static int ra_read_notes(const char *path, ra_kernel_notes *ks, int max, int *count) {
  char cmd[4400];
  snprintf(cmd, sizeof cmd, "%s --notes '%s' 2>/dev/null",
           ra_tool("ATTNGEN_READELF", "llvm-readelf-19"), path);
  FILE *p = popen(cmd, "r");
  if (!p) return -1;
  char line[1024];
  int n = -1, in_kernels = 0;
  while (fgets(line, sizeof line, p)) {
    if (strstr(line, "amdhsa.kernels:")) {
      in_kernels = 1;
      continue;
    }
    if (!in_kernels) continue;
    if (strncmp(line, "amdhsa.", 7) == 0) break;
    const char *s = line;
    while (*s == ' ') s++;
    if (s[0] == '-' && s[1] == ' ' && (s - line) <= 2) {
      if (n + 1 >= max) break;
      n++;
      memset(&ks[n], 0, sizeof ks[n]);
      s += 2;
    }
    if (n < 0 || s[0] != '.') continue;
    char key[64], val[512];
    if (sscanf(s, ".%63[a-z_0-9]: %511s", key, val) != 2) continue;
    if (strcmp(key, "name") == 0) snprintf(ks[n].name, sizeof ks[n].name, "%s", val);
    else if (strcmp(key, "vgpr_count") == 0) ks[n].vgpr = atol(val);
    else if (strcmp(key, "agpr_count") == 0) ks[n].agpr = atol(val);
    else if (strcmp(key, "sgpr_count") == 0) ks[n].sgpr = atol(val);
    else if (strcmp(key, "private_segment_fixed_size") == 0) ks[n].scratch = atol(val);
    else if (strcmp(key, "group_segment_fixed_size") == 0) ks[n].lds = atol(val);
    else if (strcmp(key, "vgpr_spill_count") == 0) ks[n].vgpr_spill = atol(val);
    else if (strcmp(key, "sgpr_spill_count") == 0) ks[n].sgpr_spill = atol(val);
    else if (strcmp(key, "max_flat_workgroup_size") == 0) ks[n].max_wg = atol(val);
  }
  int rc = pclose(p);
  *count = n + 1;
  return rc == 0 && n >= 0 ? 0 : -1;
}

/* 0: an AMDGPU ELF for gfx942; 1: not an ELF / not AMDGPU; 2: AMDGPU but another target. */
static int ra_check_elf(const char *path, char *arch, size_t archsz) {
  char cmd[4400];
  snprintf(cmd, sizeof cmd, "%s -h '%s' 2>/dev/null", ra_tool("ATTNGEN_READELF", "llvm-readelf-19"),
           path);
  FILE *p = popen(cmd, "r");
  if (!p) return 1;
  char line[512];
  int amdgpu = 0, gfx942 = 0;
  arch[0] = 0;
  while (fgets(line, sizeof line, p)) {
    if (strstr(line, "Machine:") && strstr(line, "EM_AMDGPU")) amdgpu = 1;
    const char *f = strstr(line, "Flags:");
    if (f) {
      const char *g = strstr(f, "gfx");
      if (g) {
        size_t i = 0;
        while (g[i] && (isalnum((unsigned char)g[i])) && i + 1 < archsz) i++;
        snprintf(arch, archsz, "%.*s", (int)i, g);
      }
      if (strstr(f, "gfx942")) gfx942 = 1;
    }
  }
  pclose(p);
  if (!amdgpu) return 1;
  return gfx942 ? 0 : 2;
}

/* ---- disassembly */

static int ra_is_branch(const char *op) { return starts(op, "s_cbranch_") || strcmp(op, "s_branch") == 0; }

typedef struct ra_label {
  char name[128];
  unsigned long addr;
} ra_label;

static int ra_label_addr(const ra_label *l, int nl, const char *name, unsigned long *addr) {
  for (int i = 0; i < nl; ++i)
    if (strcmp(l[i].name, name) == 0) {
      *addr = l[i].addr;
      return 1;
    }
  return 0;
}

/* The instructions of kernel `sym`, from `llvm-objdump -d` of the whole file: from the
 * symbol's address up to the next kernel symbol (`kernels`) or the end of the text. Labels
 * inside the kernel (hand-written assembly keeps local labels as symbols) do not end it.
 * Branch targets come from `<sym+0xoff>`, `<label>` or a bare label operand; offsets are
 * from the kernel symbol. */
static int ra_disassemble(const char *path, const char *sym, const ra_kernel_notes *kernels,
                          int nkernels, ra_insn *v, int max) {
  char cmd[4400];
  snprintf(cmd, sizeof cmd, "%s -d '%s' 2>/dev/null", ra_tool("ATTNGEN_OBJDUMP", "llvm-objdump-19"),
           path);
  FILE *p = popen(cmd, "r");
  if (!p) return -1;
  int nl = 0, capl = 0, n = 0, cap = 0;
  ra_label *labels = NULL;
  typedef struct raw {
    unsigned long addr;
    ra_insn in;
    char tgt[136];
    long off;
  } raw;
  raw *all = NULL;
  char line[2048];
  int ok = 1;
  while (fgets(line, sizeof line, p)) {
    unsigned long sa;
    char symname[512];
    if (line[0] != '\t') {
      if (sscanf(line, "%lx <%511[^>]>:", &sa, symname) == 2) {
        if (nl == capl) {
          capl = capl ? 2 * capl : 256;
          ra_label *g = realloc(labels, sizeof *g * (size_t)capl);
          if (!g) {
            ok = 0;
            break;
          }
          labels = g;
        }
        snprintf(labels[nl].name, sizeof labels[nl].name, "%s", symname);
        labels[nl++].addr = sa;
      }
      continue;
    }
    char *c = strstr(line, "// ");
    if (!c) continue;
    if (n == cap) {
      cap = cap ? 2 * cap : 4096;
      raw *g = realloc(all, sizeof *g * (size_t)cap);
      if (!g) {
        ok = 0;
        break;
      }
      all = g;
    }
    raw *r = &all[n];
    const char *s = line + 1;
    size_t k = 0;
    while (*s && !isspace((unsigned char)*s) && s < c && k + 1 < sizeof r->in.op) r->in.op[k++] = *s++;
    r->in.op[k] = 0;
    if (!k) continue;
    while (*s == ' ') s++;
    size_t alen = (size_t)(c - s);
    while (alen && isspace((unsigned char)s[alen - 1])) alen--;
    if (alen >= sizeof r->in.args) alen = sizeof r->in.args - 1;
    memcpy(r->in.args, s, alen);
    r->in.args[alen] = 0;
    r->addr = strtoul(c + 3, NULL, 16);
    r->tgt[0] = 0;
    r->off = 0;
    if (ra_is_branch(r->in.op)) {
      const char *lt = strchr(c, '<');
      if (lt) { /* <name> or <name+0xoff> */
        const char *gt = strchr(lt, '>');
        const char *plus = strstr(lt, "+0x");
        size_t end = (size_t)((plus && (!gt || plus < gt) ? plus : gt ? gt : lt + 1) - (lt + 1));
        if (end >= sizeof r->tgt) end = sizeof r->tgt - 1;
        memcpy(r->tgt, lt + 1, end);
        r->tgt[end] = 0;
        if (plus && (!gt || plus < gt)) r->off = (long)strtoul(plus + 3, NULL, 16);
      } else {
        ra_operand(r->in.args, 0, r->tgt, sizeof r->tgt); /* a bare label, or a number */
      }
    }
    n++;
  }
  pclose(p);
  int out = -1;
  unsigned long start = 0, end = (unsigned long)-1;
  if (ok && ra_label_addr(labels, nl, sym, &start)) {
    for (int i = 0; i < nkernels; ++i) {
      unsigned long a;
      if (strcmp(kernels[i].name, sym) != 0 && ra_label_addr(labels, nl, kernels[i].name, &a) &&
          a > start && a < end)
        end = a;
    }
    out = 0;
    for (int i = 0; i < n && out < max; ++i) {
      raw *r = &all[i];
      if (r->addr < start || r->addr >= end) continue;
      ra_insn *in = &v[out++];
      *in = r->in;
      in->off = r->addr - start;
      in->target = -1;
      if (r->tgt[0]) {
        unsigned long ta;
        long long imm;
        if (ra_label_addr(labels, nl, r->tgt, &ta)) in->target = (long)(ta + r->off - start);
        else if (ra_is_imm(r->tgt, &imm)) /* SOPP: PC of the next instruction + 4 * simm16 */
          in->target = (long)(r->addr + 4 + 4 * (long long)(int16_t)imm - start);
      }
    }
  }
  free(labels);
  free(all);
  return out;
}

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

static int ra_build_blocks(ra_ctx *x) {
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
    if ((in->target >= 0 || ra_is_branch(in->op) || starts(in->op, "s_endpgm") ||
         starts(in->op, "s_setpc")) &&
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
    } else if (starts(l->op, "s_cbranch_")) {
      if (k + 1 < x->nb) bl->succ[bl->nsucc++] = k + 1;
      if (t >= 0) bl->succ[bl->nsucc++] = x->blk_of[t];
    } else if (!starts(l->op, "s_endpgm") && !starts(l->op, "s_setpc") && k + 1 < x->nb) {
      bl->succ[bl->nsucc++] = k + 1;
    }
  }
  free(lead);
  return 0;
}

static int ra_is_mfma(const char *op) { return starts(op, "v_mfma") || starts(op, "v_smfmac"); }

static int ra_is_vmem(const char *op) {
  return starts(op, "buffer_") || starts(op, "global_") || starts(op, "flat_") ||
         starts(op, "scratch_");
}

static int ra_is_trans(const char *op) {
  static const char *t[] = {"v_exp_", "v_log_", "v_rcp_", "v_rsq_", "v_sqrt_", "v_sin_", "v_cos_"};
  for (size_t i = 0; i < sizeof t / sizeof *t; ++i)
    if (starts(op, t[i])) return 1;
  return 0;
}

static void ra_block_stats(const ra_ctx *x, int k, ra_stats *s) {
  for (int i = x->b[k].first; i <= x->b[k].last; ++i) {
    const char *op = x->in[i].op;
    s->insns++;
    if (ra_is_mfma(op)) s->mfma++;
    else if (starts(op, "v_exp_")) s->exp++;
    else if (ra_is_vmem(op)) s->vmem++;
    else if (strcmp(op, "s_barrier") == 0) s->barrier++;
    if (starts(op, "v_mul_f32") || starts(op, "v_pk_mul_f32")) s->mul++;
  }
}

/* Blocks of the main loop reachable from `from` by forward edges (not the header). */
static void ra_reach(const ra_ctx *x, int from, char *set) {
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

/* ---- registers and conditions */

/* Parses "s12", "s[12:13]", "v3", "v[4:7]", "vcc", "exec", "scc", "m0". kind: 's', 'v', 'a',
 * 'c' (vcc), 'e' (exec), 'm' (m0); returns 0 if not a register. */
static int ra_reg(const char *s, char *kind, int *lo, int *hi) {
  while (*s == ' ' || *s == '-' || *s == '|') s++;
  if (starts(s, "vcc")) {
    *kind = 'c';
    *lo = 0;
    *hi = 1;
    return 1;
  }
  if (starts(s, "exec")) {
    *kind = 'e';
    *lo = 0;
    *hi = 1;
    return 1;
  }
  if (starts(s, "m0")) {
    *kind = 'm';
    *lo = *hi = 0;
    return 1;
  }
  if ((s[0] == 's' || s[0] == 'v' || s[0] == 'a') && (s[1] == '[' || isdigit((unsigned char)s[1]))) {
    *kind = s[0];
    if (s[1] == '[') return sscanf(s + 2, "%d:%d", lo, hi) == 2;
    *lo = *hi = atoi(s + 1);
    return 1;
  }
  return 0;
}

/* i-th comma-separated operand of args (trimmed) into buf. */
static int ra_operand(const char *args, int i, char *buf, size_t sz) {
  const char *s = args;
  for (int k = 0; k < i; ++k) {
    int depth = 0;
    while (*s && !(*s == ',' && depth == 0)) {
      if (*s == '[') depth++;
      if (*s == ']') depth--;
      s++;
    }
    if (!*s) return 0;
    s++;
  }
  while (*s == ' ') s++;
  size_t k = 0;
  int depth = 0;
  while (s[k] && !(s[k] == ',' && depth == 0) && !(s[k] == ' ' && depth == 0)) {
    if (s[k] == '[') depth++;
    if (s[k] == ']') depth--;
    k++;
  }
  if (k == 0 || k >= sz) return 0;
  memcpy(buf, s, k);
  buf[k] = 0;
  return 1;
}

static int ra_overlap(const char *a, const char *b) {
  char ka, kb;
  int la, ha, lb, hb;
  if (!ra_reg(a, &ka, &la, &ha) || !ra_reg(b, &kb, &lb, &hb)) return 0;
  return ka == kb && la <= hb && lb <= ha;
}

/* Registers an instruction writes: its first operand (second too for carry-out VOP2/VOP3). */
static int ra_writes(const ra_insn *in, const char *reg) {
  char d[64];
  if (in->op[0] != 's' && in->op[0] != 'v') return 0;
  if (starts(in->op, "s_cbranch") || strcmp(in->op, "s_branch") == 0 ||
      starts(in->op, "s_waitcnt") || starts(in->op, "s_nop") || starts(in->op, "s_barrier") ||
      starts(in->op, "s_setprio") || starts(in->op, "s_cmp") || starts(in->op, "s_bitcmp") ||
      starts(in->op, "s_store") || starts(in->op, "s_sleep"))
    return 0;
  if (ra_operand(in->args, 0, d, sizeof d) && ra_overlap(d, reg)) return 1;
  if ((strstr(in->op, "_co_") || starts(in->op, "v_addc") || starts(in->op, "v_subb") ||
       starts(in->op, "v_div_scale")) &&
      ra_operand(in->args, 1, d, sizeof d) && ra_overlap(d, reg))
    return 1;
  return 0;
}

static int ra_written_in_loop(const ra_ctx *x, const char *reg) {
  for (int k = 0; k < x->nb; ++k) {
    if (!x->inloop[k]) continue;
    for (int i = x->b[k].first; i <= x->b[k].last; ++i)
      if (ra_writes(&x->in[i], reg)) return 1;
  }
  return 0;
}

static int ra_is_imm(const char *s, long long *v) {
  char *end;
  if (!*s) return 0;
  long long r = strtoll(s, &end, 0);
  if (*end) return 0;
  *v = r;
  return 1;
}

/* ---- evaluation of wave-uniform conditions for a concrete wave
 * A branch condition is evaluated for every wave w of the block (v0 = 64 w + lane at kernel
 * entry, lanes 0 and 63) from the definitions that reach it: first on the path so far (this
 * iteration), then, for a register the loop never writes, the last definition before the loop
 * in address order. Kernel arguments, loads and loop-carried values are unknown. */

typedef struct ra_env {
  const ra_ctx *x;
  const int *pidx; /* path instruction indices */
  int w, lane, depth;
} ra_env;

/* Position: on the path (ppos >= 0: search pidx[ppos-1 .. 0], then before the loop) or in
 * address order (ppos < 0: search kernel instructions kpos-1 .. 0). */
/* The instructions before a position, nearest first: on the path (ppos >= 0) back to the
 * header, then (only if `across_loop`) from the end of the header's immediate dominator; in
 * address order within a block and up the dominator tree (ppos < 0: from kernel index kpos).
 * Fills idx (kernel indices) and pp (path positions, -1 off the path); returns the count, or
 * -1 - count when the walk stopped before the kernel entry (an unknown dominator). */
static int ra_backtrace(const ra_env *e, int ppos, int kpos, int across_loop, int *idx, int *pp,
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

/* The definition of `reg` reaching a position (see ra_backtrace; on the path, a register the
 * loop writes is loop-carried: unknown). 1: found; 0: none up to the kernel entry; -1: unknown. */
static int ra_find_def(const ra_env *e, const char *reg, int ppos, int kpos, int *def_p,
                       int *def_k) {
  const ra_ctx *x = e->x;
  static int idx[RA_MAX_INSNS], pp[RA_MAX_INSNS];
  const int across = ppos < 0 || !ra_written_in_loop(x, reg);
  int n = ra_backtrace(e, ppos, kpos, across, idx, pp, RA_MAX_INSNS);
  const int complete = n >= 0;
  if (n < 0) n = -1 - n;
  for (int i = 0; i < n; ++i)
    if (ra_writes(&x->in[idx[i]], reg)) {
      *def_p = pp[i];
      *def_k = idx[i];
      return 1;
    }
  return complete ? 0 : -1;
}

static int ra_eval(ra_env *e, const char *opnd, int ppos, int kpos, long long *out);

static int ra_eval_scc(ra_env *e, int ppos, int kpos, long long *out);

static int ra_cmp(const char *op, long long a, long long b, long long *out) {
  char rel[8], type[8];
  const char *s = NULL;
  if (starts(op, "s_cmpk_")) s = op + 7;
  else if (starts(op, "s_cmp_") || starts(op, "v_cmp_")) s = op + 6;
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
  while (no < 4 && ra_operand(in->args, no, o[no], sizeof o[no])) no++;
  long long a, b, c;
  /* operands are evaluated where the instruction is */
  const int pp = p >= 0 ? p : -1, kp = k;
#define EV(i, v) (no > (i) && ra_eval(e, o[i], pp, kp, &(v)))
  if (starts(op, "s_mov_b32") || starts(op, "s_mov_b64") || starts(op, "s_movk_i32") ||
      starts(op, "v_mov_b32") || starts(op, "v_readfirstlane_b32")) {
    if (!EV(1, a)) return 0;
    if (starts(op, "s_mov_b64")) a = a != 0;
    *out = a;
    return 1;
  }
  if (starts(op, "s_cselect_b")) {
    if (!EV(1, a) || !EV(2, b) || !ra_eval_scc(e, pp, kp, &c)) return 0;
    *out = c ? a : b;
    if (starts(op, "s_cselect_b64")) *out = *out != 0;
    return 1;
  }
  if (starts(op, "v_cmp_")) {
    if (!EV(1, a) || !EV(2, b)) return 0;
    return ra_cmp(op, a, b, out);
  }
  if (starts(op, "v_cndmask_b32")) {
    if (!EV(1, a) || !EV(2, b) || !EV(3, c)) return 0;
    *out = c ? b : a;
    return 1;
  }
  if (starts(op, "s_and_b64") || starts(op, "s_or_b64") || starts(op, "s_xor_b64") ||
      starts(op, "s_andn2_b64") || starts(op, "s_orn2_b64")) { /* lane masks as booleans */
    if (!EV(1, a) || !EV(2, b)) return 0;
    a = a != 0;
    b = b != 0;
    *out = starts(op, "s_and_b64")     ? (a && b)
           : starts(op, "s_or_b64")    ? (a || b)
           : starts(op, "s_xor_b64")   ? (a != b)
           : starts(op, "s_andn2_b64") ? (a && !b)
                                       : (a || !b);
    return 1;
  }
  if (starts(op, "s_not_b64")) {
    if (!EV(1, a)) return 0;
    *out = !a;
    return 1;
  }
  /* 32-bit integer ops: d, a, b */
  if (no >= 3 && EV(1, a) && EV(2, b)) {
    uint32_t ua = (uint32_t)a, ub = (uint32_t)b, r;
    if (starts(op, "s_and_b32") || starts(op, "v_and_b32")) r = ua & ub;
    else if (starts(op, "s_or_b32") || starts(op, "v_or_b32")) r = ua | ub;
    else if (starts(op, "s_xor_b32") || starts(op, "v_xor_b32")) r = ua ^ ub;
    else if (starts(op, "s_add_") || starts(op, "v_add_u32") || starts(op, "v_add_co_u32") ||
             starts(op, "s_addk"))
      r = ua + ub;
    else if (starts(op, "s_sub_") || starts(op, "v_sub_u32")) r = ua - ub;
    else if (starts(op, "s_mul_i32") || starts(op, "v_mul_lo_u32")) r = ua * ub;
    else if (starts(op, "s_lshr_b32")) r = ub < 32 ? ua >> ub : 0;
    else if (starts(op, "s_lshl_b32")) r = ub < 32 ? ua << ub : 0;
    else if (starts(op, "v_lshrrev_b32")) r = ua < 32 ? ub >> ua : 0;
    else if (starts(op, "v_lshlrev_b32")) r = ua < 32 ? ub << ua : 0;
    else if (starts(op, "v_bfe_u32") && EV(3, c)) r = (uint32_t)((ua >> (ub & 31)) & ((c & 31) ? ((1u << (c & 31)) - 1) : 0));
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
  int n = ra_backtrace(e, ppos, kpos, 1, idx, pp, 64);
  if (n < 0) n = -1 - n;
  for (int q = 0; q < n; ++q) {
    const ra_insn *in = &x->in[idx[q]];
    if (starts(in->op, "s_cmp")) {
      char a[64], b[64];
      long long va, vb;
      if (!ra_operand(in->args, 0, a, sizeof a) || !ra_operand(in->args, 1, b, sizeof b)) return 0;
      if (!ra_eval(e, a, pp[q], idx[q], &va) || !ra_eval(e, b, pp[q], idx[q], &vb)) return 0;
      return ra_cmp(in->op, va, vb, out);
    }
    if (in->op[0] == 's' && in->op[1] == '_' &&
        (starts(in->op, "s_and_") || starts(in->op, "s_or_") || starts(in->op, "s_xor_") ||
         starts(in->op, "s_andn2_") || starts(in->op, "s_orn2_") || starts(in->op, "s_add_") ||
         starts(in->op, "s_sub_") || starts(in->op, "s_addc") || starts(in->op, "s_subb") ||
         starts(in->op, "s_lshl") || starts(in->op, "s_lshr") || starts(in->op, "s_ashr") ||
         starts(in->op, "s_bfe") || starts(in->op, "s_min") || starts(in->op, "s_max") ||
         starts(in->op, "s_not") || starts(in->op, "s_addk") || starts(in->op, "s_bitcmp") ||
         starts(in->op, "s_abs") || starts(in->op, "s_nand") || starts(in->op, "s_nor") ||
         starts(in->op, "s_xnor") || starts(in->op, "s_bcnt") || starts(in->op, "s_ff") ||
         starts(in->op, "s_cbranch") || starts(in->op, "s_branch")))
      return 0; /* another SCC writer (or a control-flow merge): not traced */
  }
  return 0;
}

static int ra_eval(ra_env *e, const char *opnd, int ppos, int kpos, long long *out) {
  long long v;
  if (ra_is_imm(opnd, &v)) {
    *out = v;
    return 1;
  }
  if (strcmp(opnd, "exec") == 0) { /* uniform control flow: every lane is active */
    *out = 1;
    return 1;
  }
  char kind;
  int lo, hi;
  if (!ra_reg(opnd, &kind, &lo, &hi) || e->depth > 24) return 0;
  int dp, dk;
  e->depth++;
  int ok = 0;
  const int f = ra_find_def(e, opnd, ppos, kpos, &dp, &dk);
  if (f == 1) {
    char d[64];
    if (ra_operand(e->x->in[dk].args, 0, d, sizeof d) && strcmp(d, opnd) == 0)
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
  if (starts(br->op, "s_cbranch_vcc")) {
    snprintf(cond, sizeof cond, "vcc");
    negate = strcmp(br->op, "s_cbranch_vccz") == 0;
  } else if (starts(br->op, "s_cbranch_scc")) {
    scc = 1;
    negate = strcmp(br->op, "s_cbranch_scc0") == 0;
  } else if (starts(br->op, "s_cbranch_exec")) {
    for (int p = pos - 1; p >= 0 && p >= pos - 8; --p) {
      const ra_insn *in = &x->in[pidx[p]];
      char d[64], a[64];
      if (!(starts(in->op, "s_") && strstr(in->op, "saveexec")) && !ra_writes(in, "exec"))
        continue;
      if (starts(in->op, "s_xor_b64") && ra_operand(in->args, 0, d, sizeof d) &&
          strcmp(d, "exec") == 0)
        continue; /* the else entry's exec flip: its saveexec is just before */
      if ((starts(in->op, "s_andn2_saveexec") || starts(in->op, "s_or_saveexec")) &&
          ra_operand(in->args, 1, a, sizeof a)) {
        snprintf(else_mask, emsz, "%s", a);
        return 0;
      }
      if (starts(in->op, "s_and_saveexec") && ra_operand(in->args, 1, a, sizeof a)) {
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

/* ---- MFMA shapes and costs */

static int ra_mfma_shape(const char *op, long *m, long *n, long *k, long *blocks, int *bits) {
  for (const char *p = op + 1; *p; ++p) {
    long a, b, c;
    int used = 0;
    if (p[-1] != '_' || !isdigit((unsigned char)*p) ||
        sscanf(p, "%ldx%ldx%ld%n", &a, &b, &c, &used) != 3)
      continue;
    *m = a;
    *n = b;
    *k = c;
    *blocks = 1;
    const char *rest = p + used; /* "_bf16", "bf16_1k", "_4b_f16", "_f32", "_i8" ... */
    for (const char *q = strchr(rest, '_'); q; q = strchr(q + 1, '_')) {
      long bl;
      char ch;
      if (sscanf(q, "_%ld%c", &bl, &ch) == 2 && ch == 'b') *blocks = bl;
    }
    *bits = strstr(rest, "f64")                                                      ? 64
            : strstr(rest, "f16")                                                    ? 16
            : (strstr(rest, "i8") || strstr(rest, "fp8") || strstr(rest, "bf8")) ? 8
            : strstr(rest, "f32")                                                    ? 32
                                                                                     : 16;
    return 1;
  }
  return 0;
}

static double ra_mfma_cycles(const char *op, double flops, int bits) {
  long m, n, k, bl;
  int b2;
  if (ra_mfma_shape(op, &m, &n, &k, &bl, &b2) && bl == 1 && bits == 16) {
    if (m == 16 && n == 16 && k == 16) return 16; /* CDNA3: v_mfma_f32_16x16x16_{bf16,f16} */
    if (m == 32 && n == 32 && k == 8) return 32;  /* CDNA3: v_mfma_f32_32x32x8_{bf16,f16} */
  }
  return flops / 512.0; /* 16-bit dense rate of a CDNA3 SIMD: 512 flop per cycle */
}

/* ---- the analysis of one kernel */

typedef struct ra_decision {
  unsigned long off;
  char op[24];
  int taken;
  char why[256];
} ra_decision;

#define RA_MAX_PATHS 16

typedef struct ra_wpath {
  unsigned waves; /* bit w: wave w of the block takes this path */
  int *bp, np;
  ra_decision *dec;
  int nd;
  attngen__ra_result r;
} ra_wpath;

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
    if (take < 0) {
      have_waves = ra_branch_waves(x, pidx, npi - 1, x->nwaves, &tw, emask, sizeof emask);
      if (emask[0]) {
        for (int m = x->nmasks - 1; m >= 0; --m)
          if (strcmp(x->masks[m], emask) == 0) {
            /* else side runs iff the then side did not: execz taken iff then ran */
            const int then_ran = x->mask_then[m];
            take = starts(br->op, "s_cbranch_execz") ? then_ran : !then_ran;
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
      ra_reach(x, bl->succ[0], s1);
      ra_reach(x, bl->succ[1], s2);
      ra_stats e[2];
      memset(e, 0, sizeof e);
      for (int k = 0; k < x->nb; ++k) {
        if (s1[k] && !s2[k]) ra_block_stats(x, k, &e[0]);
        if (s2[k] && !s1[k]) ra_block_stats(x, k, &e[1]);
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
               e[1].mfma, e[1].exp, e[1].vmem, e[1].barrier, have_waves ? "; path's waves now " : "",
               "");
      if (have_waves) {
        x->waves &= take ? tw : ~tw;
        size_t l = strlen(why);
        snprintf(why + l, sizeof why - l, "0x%x", x->waves);
      }
    }
    /* an if/else head: remember whether its then side runs */
    if (starts(br->op, "s_cbranch_execz")) {
      for (int p = npi - 2; p >= 0 && p >= npi - 6; --p) {
        const ra_insn *in = &x->in[pidx[p]];
        char d[64], a[64];
        if (starts(in->op, "s_xor_b64") && ra_operand(in->args, 0, d, sizeof d) &&
            ra_operand(in->args, 1, a, sizeof a) && strcmp(d, "exec") != 0 &&
            strcmp(a, "exec") == 0) {
          int m = x->nmasks < 32 ? x->nmasks++ : 31;
          snprintf(x->masks[m], sizeof x->masks[m], "%s", d);
          x->mask_then[m] = !take;
          break;
        }
        if (starts(in->op, "s_and_saveexec")) break;
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

static long ra_waves_per_simd(const ra_kernel_notes *k) {
  long arch = (k->vgpr + 3) / 4 * 4;
  long regs = (arch + k->agpr + 7) / 8 * 8;
  long w = regs > 0 ? 512 / regs : 8;
  if (w > 8) w = 8;
  long wpb = k->max_wg > 0 ? (k->max_wg + 63) / 64 : 0;
  if (k->lds > 0 && wpb > 0) {
    long blocks = 65536 / k->lds;
    long lw = (blocks * wpb + 3) / 4;
    if (lw < w) w = lw;
  }
  return w;
}

/* Counts of the path's instructions into r (totals per iteration; divided by units later). */
static void ra_count(const ra_ctx *x, const int *path, int np, attngen__ra_result *r,
                     double trans_cycles, double mfma_scale, double *flops) {
  char bfe_dst[16][24];
  int nbfe = 0;
  char nan_mask[8][24];
  int nnan = 0;
  *flops = 0;
  for (int q = 0; q < np; ++q) {
    const ra_block *bl = &x->b[path[q]];
    for (int i = bl->first; i <= bl->last; ++i) {
      const ra_insn *in = &x->in[i];
      const char *op = in->op;
      char d[64];
      int have_d = ra_operand(in->args, 0, d, sizeof d);
      r->insns++;
      if (ra_is_mfma(op)) {
        long m, n, k, blk;
        int bits;
        double f = 0;
        if (ra_mfma_shape(op, &m, &n, &k, &blk, &bits)) f = 2.0 * m * n * k * blk;
        *flops += f;
        r->mfma++;
        r->mfma_cycles += mfma_scale * ra_mfma_cycles(op, f, bits);
        continue;
      }
      if (op[0] == 'v' && op[1] == '_') {
        r->valu++;
        int round = 0;
        if (starts(op, "v_bfe_u32") && strstr(in->args, ", 16, 1")) {
          round = 1;
          if (have_d) snprintf(bfe_dst[nbfe++ % 16], sizeof bfe_dst[0], "%s", d);
        } else if (starts(op, "v_add3_u32")) {
          for (int j = 0; j < nbfe && j < 16; ++j) {
            char s[64];
            for (int o = 1; o <= 3; ++o)
              if (ra_operand(in->args, o, s, sizeof s) && strcmp(s, bfe_dst[j]) == 0) round = 1;
          }
        } else if ((starts(op, "v_add_u32") || starts(op, "v_add_co_u32") ||
                    starts(op, "v_add_nc_u32")) &&
                   (strstr(in->args, "0x8000") || strstr(in->args, "0x7fff"))) {
          round = 1;
        } else if (starts(op, "v_and_b32") && strstr(in->args, "0xffff0000")) {
          round = 1;
        } else if (starts(op, "v_cmp_u_f32") || starts(op, "v_cmp_o_f32") ||
                   starts(op, "v_cmp_class_f32")) {
          round = 1;
          if (have_d) snprintf(nan_mask[nnan++ % 8], sizeof nan_mask[0], "%s", d);
        } else if (starts(op, "v_cvt_pk_bf16")) {
          round = 1;
        }
        if (starts(op, "v_cndmask")) {
          char sel[64];
          int last = 0;
          while (ra_operand(in->args, last + 1, sel, sizeof sel)) last++;
          if (ra_operand(in->args, last, sel, sizeof sel))
            for (int j = 0; j < nnan && j < 8; ++j)
              if (strcmp(sel, nan_mask[j]) == 0) {
                r->round_cndmask++;
                break;
              }
        }
        if (round) r->round_ops++;
        if (ra_is_trans(op)) {
          r->trans++;
          r->valu_cycles += trans_cycles;
          if (starts(op, "v_exp_")) r->v_exp++;
        } else {
          r->valu_cycles += 4;
          if (starts(op, "v_perm_") || starts(op, "v_pack_") || starts(op, "v_alignb")) r->perm++;
          else if (starts(op, "v_cvt_") || starts(op, "v_bfe_") || round) r->cvt++;
          else if (starts(op, "v_fma") || starts(op, "v_mul_") || starts(op, "v_add_") ||
                   starts(op, "v_sub") || starts(op, "v_pk_fma") || starts(op, "v_pk_mul") ||
                   starts(op, "v_pk_add") || starts(op, "v_mac_") || starts(op, "v_mad_") ||
                   starts(op, "v_fmac"))
            r->fma++;
          else if (starts(op, "v_cmp") || starts(op, "v_cndmask")) r->cmp++;
          else if (starts(op, "v_mov_") || starts(op, "v_accvgpr_") || starts(op, "v_pk_mov"))
            r->mov++;
          else r->other++;
        }
        if (starts(op, "v_perm_")) r->v_perm++;
        /* a register overwritten by something else is no longer a bfe result / NaN mask */
        if (have_d && !(starts(op, "v_bfe_u32") && round))
          for (int j = 0; j < nbfe && j < 16; ++j)
            if (strcmp(bfe_dst[j], d) == 0) bfe_dst[j][0] = 0;
        if (have_d && !(starts(op, "v_cmp_u_f32") || starts(op, "v_cmp_o_f32") ||
                        starts(op, "v_cmp_class_f32")))
          for (int j = 0; j < nnan && j < 8; ++j)
            if (ra_writes(in, nan_mask[j])) nan_mask[j][0] = 0;
        continue;
      }
      for (int j = 0; j < nnan && j < 8; ++j)
        if (nan_mask[j][0] && ra_writes(in, nan_mask[j])) nan_mask[j][0] = 0;
      if (starts(op, "ds_")) r->lds_ops++;
      else if (ra_is_vmem(op)) r->vmem++;
      else if (starts(op, "s_waitcnt")) r->waitcnt++;
      else if (strcmp(op, "s_barrier") == 0) r->barrier++;
      else if (strcmp(op, "s_nop") == 0) r->nop_states += atol(in->args) + 1;
      else if (op[0] == 's' && op[1] == '_') r->salu++;
    }
  }
}

static double ra_mca(const ra_ctx *x, const int *path, int np) {
  char tmpl[] = "/tmp/attngen_mca_XXXXXX";
  int fd = mkstemp(tmpl);
  if (fd < 0) return -1;
  FILE *f = fdopen(fd, "w");
  if (!f) {
    close(fd);
    unlink(tmpl);
    return -1;
  }
  for (int q = 0; q < np; ++q)
    for (int i = x->b[path[q]].first; i <= x->b[path[q]].last; ++i)
      if (!ra_is_branch(x->in[i].op) && !ra_is_vmem(x->in[i].op))
        fprintf(f, "%s %s\n", x->in[i].op, x->in[i].args); /* llvm-mca-19 aborts on them */
  fclose(f);
  char cmd[512];
  snprintf(cmd, sizeof cmd,
           "%s -mtriple=amdgcn-amd-amdhsa -mcpu=gfx942 -iterations=100 "
           "-skip-unsupported-instructions=parse-failure '%s' 2>/dev/null",
           ra_tool("ATTNGEN_MCA", "llvm-mca-19"), tmpl);
  FILE *p = popen(cmd, "r");
  double cycles = -1;
  if (p) {
    char line[512];
    while (fgets(line, sizeof line, p)) {
      long c;
      if (sscanf(line, "Total Cycles: %ld", &c) == 1) cycles = c / 100.0;
    }
    pclose(p);
  }
  unlink(tmpl);
  return cycles;
}

static void ra_unit_rows(FILE *out, const attngen__ra_result *const *rs, int n) {
  static const char *label[] = {"MFMA", "non-MFMA VALU", "  exp/trans", "  perm",
                                "  cvt/rounding", "  fma/mul/add", "  cmp/cndmask", "  mov",
                                "  other", "v_exp", "v_perm", "bf16 rounding ops",
                                "  + NaN cndmask", "LDS ops", "buffer/global ops", "s_waitcnt",
                                "s_barrier", "s_nop wait states", "other SALU"};
  for (size_t row = 0; row < sizeof label / sizeof *label; ++row) {
    fprintf(out, "    %-20s", label[row]);
    for (int i = 0; i < n; ++i) {
      const attngen__ra_result *r = rs[i];
      const double v[] = {r->mfma,    r->valu,      r->trans,         r->perm,    r->cvt,
                          r->fma,     r->cmp,       r->mov,           r->other,   r->v_exp,
                          r->v_perm,  r->round_ops, r->round_cndmask, r->lds_ops, r->vmem,
                          r->waitcnt, r->barrier,   r->nop_states,    r->salu};
      fprintf(out, " %10.2f", v[row] / (r->units > 0 ? r->units : 1));
    }
    fputc('\n', out);
  }
}

static void ra_print(FILE *out, const char *path, const attngen__ra_result *r,
                     const ra_wpath *wp, int nwp, int nwaves, const attngen__ra_options *opt) {
  const double u = r->units > 0 ? r->units : 1;
  const double ratio = r->mfma_cycles > 0 ? r->valu_cycles / r->mfma_cycles : 0;
  if (opt->tsv) {
    fprintf(out, "%s\t%s\t%ld\t%ld\t%ld\t%ld\t%ld\t%ld\t%ld\t%.3f", path, r->name, r->vgpr, r->agpr,
            r->sgpr, r->scratch, r->lds, r->vgpr_spill + r->sgpr_spill, r->waves_per_simd,
            r->units);
    const double v[] = {r->mfma,   r->valu,    r->trans,         r->perm,    r->cvt,
                        r->fma,    r->cmp,     r->mov,           r->other,   r->v_exp,
                        r->v_perm, r->round_ops, r->round_cndmask, r->lds_ops, r->vmem,
                        r->waitcnt, r->barrier, r->nop_states,    r->mfma_cycles,
                        r->valu_cycles};
    for (size_t i = 0; i < sizeof v / sizeof *v; ++i) fprintf(out, "\t%.2f", v[i] / u);
    fprintf(out, "\t%.3f\t%s\t%.1f\t%d\t%d\n", ratio, ratio <= 1.0 ? "MFMA" : "VALU",
            r->mca_cycles > 0 ? r->mca_cycles / u : -1.0, r->paths, r->rescale_skipped);
    return;
  }
  fprintf(out, "%s: %s\n", path, r->name);
  fprintf(out,
          "  vgpr %ld agpr %ld sgpr %ld, scratch %ld B, lds %ld B, spills %ld/%ld, waves per "
          "SIMD %ld\n",
          r->vgpr, r->agpr, r->sgpr, r->scratch, r->lds, r->vgpr_spill, r->sgpr_spill,
          r->waves_per_simd);
  fprintf(out, "  main loop: header +0x%lx, last back edge at +0x%lx, %d blocks; %d distinct "
               "path(s) for the %d waves of a block\n",
          r->loop_head, r->loop_latch, r->loop_blocks, nwp, nwaves);
  for (int p = 0; p < nwp; ++p) {
    fprintf(out, "  path %d, waves 0x%x: %d blocks, %.3f units; its branches:\n", p + 1,
            wp[p].waves, wp[p].np, wp[p].r.units);
    for (int i = 0; i < wp[p].nd; ++i)
      fprintf(out, "    +0x%-6lx %-16s %-9s %s\n", wp[p].dec[i].off, wp[p].dec[i].op,
              wp[p].dec[i].taken ? "taken" : "not taken", wp[p].dec[i].why);
  }
  fprintf(out,
          "  units per iteration: %.3f = MFMA flops on the path / (4*16*64*%.0f) (16 rows x 64 "
          "keys x d%.0f, QK^T + PV, one wave)\n",
          r->units, opt->head_dim, opt->head_dim);
  fprintf(out, "  per unit:           ");
  const attngen__ra_result *cols[RA_MAX_PATHS + 1];
  int nc = 0;
  if (nwp > 1)
    for (int p = 0; p < nwp; ++p) {
      fprintf(out, "     path %d", p + 1);
      cols[nc++] = &wp[p].r;
    }
  fprintf(out, "  all waves\n");
  cols[nc++] = r;
  ra_unit_rows(out, cols, nc);
  const double ms = opt->mfma_cycles > 0 ? opt->mfma_cycles / 16.0 : 1.0;
  fprintf(out,
          "  estimate, two-group ping-pong (cycles per wave64 instruction: MFMA 16x16x16 bf16/f16 "
          "%.0f, 32x32x8 %.0f, other flops/%.0f; VALU 4; transcendental %.0f):\n",
          16 * ms, 32 * ms, 512 / ms, opt->trans_cycles);
  fprintf(out, "    MFMA %.0f cycles/unit, VALU %.0f cycles/unit, headroom (VALU/MFMA) %.2f: %s\n",
          r->mfma_cycles / u, r->valu_cycles / u, ratio,
          ratio <= 1.0 ? "MFMA-bound" : "VALU-bound");
  if (r->mca_cycles > 0)
    fprintf(out,
            "  llvm-mca-19: %.0f cycles/iteration, %.0f per unit (single wave, rough; buffer/"
            "global ops left out: llvm-mca-19 aborts on them)\n",
            r->mca_cycles, r->mca_cycles / u);
}

static int ra_dominates(const int *idom, const int *rpo, int h, int k) {
  if (rpo[k] < 0 || rpo[h] < 0) return 0;
  for (int c = k;; c = idom[c]) {
    if (c == h) return 1;
    if (c == 0 || idom[c] < 0 || idom[c] == c) return c == h;
  }
}

/* Did the path skip a region holding only an O rescale (>= 16 v_mul_f32/v_pk_mul_f32, no
 * MFMA) at one of its branches? */
static int ra_rescale_skipped(const ra_ctx *x, const int *bp, int np) {
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
      ra_reach(x, other, s1);
      ra_reach(x, mine, s2);
      ra_stats e;
      memset(&e, 0, sizeof e);
      for (int k = 0; k < x->nb; ++k)
        if (s1[k] && !s2[k]) ra_block_stats(x, k, &e);
      if (e.mul >= 16 && e.mfma == 0) found = 1;
    }
  }
  free(s1);
  free(s2);
  free(onp);
  return found;
}

static int ra_kernel(const char *path, const ra_kernel_notes *kn,
                     const ra_kernel_notes *all_kernels, int n_kernels,
                     const attngen__ra_options *opt,
                     FILE *out, attngen__ra_result *r, char *err, size_t errsz) {
  ra_ctx x;
  memset(&x, 0, sizeof x);
  memset(r, 0, sizeof *r);
  snprintf(r->name, sizeof r->name, "%s", kn->name);
  r->vgpr = kn->vgpr;
  r->agpr = kn->agpr;
  r->sgpr = kn->sgpr;
  r->scratch = kn->scratch;
  r->lds = kn->lds;
  r->vgpr_spill = kn->vgpr_spill;
  r->sgpr_spill = kn->sgpr_spill;
  r->waves_per_simd = ra_waves_per_simd(kn);
  int rc = 1;
  int *bp = NULL, np = 0, nd = 0;
  (void)np;
  ra_decision *dec = NULL;
  x.in = malloc(sizeof *x.in * RA_MAX_INSNS);
  if (!x.in) {
    snprintf(err, errsz, "out of memory");
    return 1;
  }
  x.n = ra_disassemble(path, kn->name, all_kernels, n_kernels, x.in, RA_MAX_INSNS);
  if (x.n <= 0) {
    snprintf(err, errsz, "cannot disassemble the kernel");
    goto done;
  }
  if (ra_build_blocks(&x) != 0) goto done;
  x.inloop = calloc((size_t)x.nb, 1);
  x.reach_end = calloc((size_t)x.nb, 1);
  char *body = calloc((size_t)x.nb, 1);
  int *stack = malloc(sizeof *stack * ((size_t)x.nb + 1));
  int **preds = calloc((size_t)x.nb, sizeof *preds);
  int *npred = calloc((size_t)x.nb, sizeof *npred);
  if (!x.inloop || !x.reach_end || !body || !stack || !preds || !npred) {
    free(body);
    free(stack);
    free(preds);
    free(npred);
    goto done;
  }
  for (int k = 0; k < x.nb; ++k)
    for (int j = 0; j < x.b[k].nsucc; ++j) {
      int s = x.b[k].succ[j];
      int *g = realloc(preds[s], sizeof *g * ((size_t)npred[s] + 1));
      if (g) {
        preds[s] = g;
        preds[s][npred[s]++] = k;
      }
    }
  /* dominators (Cooper, Harvey, Kennedy): a back edge k -> h needs h to dominate k */
  int *rpo = malloc(sizeof *rpo * ((size_t)x.nb + 1));
  int *order = malloc(sizeof *order * ((size_t)x.nb + 1));
  int *idom = malloc(sizeof *idom * ((size_t)x.nb + 1));
  int *it = calloc((size_t)x.nb + 1, sizeof *it);
  if (!rpo || !order || !idom || !it) {
    free(rpo);
    free(order);
    free(idom);
    free(it);
    free(body);
    free(stack);
    for (int k = 0; k < x.nb; ++k) free(preds[k]);
    free(preds);
    free(npred);
    goto done;
  }
  {
    int no = 0, sp = 0;
    for (int k = 0; k < x.nb; ++k) rpo[k] = -1;
    memset(body, 0, (size_t)x.nb); /* visited */
    stack[sp++] = 0;
    body[0] = 1;
    while (sp) { /* iterative post-order */
      int k = stack[sp - 1];
      if (it[k] < x.b[k].nsucc) {
        int s2 = x.b[k].succ[it[k]++];
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
    for (int k = 0; k < x.nb; ++k) idom[k] = -1;
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
  for (int h = 0; h < x.nb; ++h) {
    int any = 0;
    memset(body, 0, (size_t)x.nb);
    body[h] = 1;
    for (int k = h; k < x.nb; ++k)
      for (int j = 0; j < x.b[k].nsucc; ++j)
        if (x.b[k].succ[j] == h && ra_dominates(idom, rpo, h, k)) { /* back edge k -> h */
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
    for (int k = 0; k < x.nb; ++k)
      if (body[k]) {
        nbk++;
        ra_stats s;
        memset(&s, 0, sizeof s);
        ra_block_stats(&x, k, &s);
        mf += s.mfma;
      }
    if (mf > best_mfma || (mf == best_mfma && mf > 0 && nbk < best_blocks)) {
      best_mfma = mf;
      best_blocks = nbk;
      best_h = h;
      memcpy(x.inloop, body, (size_t)x.nb);
    }
  }
  x.rpo = rpo;
  x.idom = idom;
  free(order);
  free(body);
  free(stack);
  for (int k = 0; k < x.nb; ++k) free(preds[k]);
  free(preds);
  free(npred);
  if (best_h < 0) {
    snprintf(err, errsz, "no loop with MFMA instructions found");
    goto done;
  }
  x.header = best_h;
  x.nwaves = kn->max_wg > 0 ? (int)((kn->max_wg + 63) / 64) : 1;
  if (x.nwaves > 32) x.nwaves = 32;
  x.waves = x.nwaves >= 32 ? 0xffffffffu : (1u << x.nwaves) - 1;
  r->found_loop = 1;
  r->loop_head = x.in[x.b[best_h].first].off;
  r->loop_blocks = best_blocks;
  for (int k = x.nb - 1; k >= 0; --k) {
    if (!x.inloop[k]) continue;
    for (int j = 0; j < x.b[k].nsucc; ++j) {
      int s = x.b[k].succ[j];
      if (s == x.header) {
        x.reach_end[k] = 1;
        if (x.in[x.b[k].last].off > r->loop_latch) r->loop_latch = x.in[x.b[k].last].off;
      } else if (s > k && x.inloop[s] && x.reach_end[s]) {
        x.reach_end[k] = 1;
      }
    }
  }
  /* one path per wave of the block (R3 resolves what depends on the wave id); identical paths
   * are merged, their waves kept as a mask */
  ra_wpath *wp = calloc(RA_MAX_PATHS, sizeof *wp);
  int nwp = 0;
  bp = malloc(sizeof *bp * ((size_t)x.nb + 1));
  dec = malloc(sizeof *dec * 512);
  if (!bp || !dec || !wp) {
    free(wp);
    goto done;
  }
  for (int w = 0; w < x.nwaves; ++w) {
    x.waves = 1u << w;
    x.nmasks = 0;
    if (ra_path(&x, bp, &np, dec, &nd, 512, err, errsz) != 0) {
      if (opt->verbose)
        for (int i = 0; i < nd; ++i)
          fprintf(stderr, "    +0x%-6lx %-16s %-9s %s\n", dec[i].off, dec[i].op,
                  dec[i].taken ? "taken" : "not taken", dec[i].why);
      size_t l = strlen(err);
      snprintf(err + l, errsz - l, " (path of wave %d)", w);
      goto fail;
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
      goto fail;
    }
    ra_wpath *q = &wp[nwp++];
    q->waves = 1u << w;
    q->np = np;
    q->nd = nd;
    q->bp = malloc(sizeof *bp * (size_t)np);
    q->dec = malloc(sizeof *dec * (size_t)(nd ? nd : 1));
    if (!q->bp || !q->dec) goto fail;
    memcpy(q->bp, bp, sizeof *bp * (size_t)np);
    memcpy(q->dec, dec, sizeof *dec * (size_t)nd);
  }
  /* counts per path, and over all waves (each path weighted by its number of waves) */
  r->rescale_skipped = 1;
  int total_waves = 0;
  for (int pi = 0; pi < nwp; ++pi) {
    ra_wpath *q = &wp[pi];
    memset(&q->r, 0, sizeof q->r);
    double flops = 0;
    ra_count(&x, q->bp, q->np, &q->r, opt->trans_cycles,
             opt->mfma_cycles > 0 ? opt->mfma_cycles / 16.0 : 1.0, &flops);
    q->r.units = flops / (4.0 * 16 * 64 * opt->head_dim);
    if (q->r.units <= 0) {
      snprintf(err, errsz, "no MFMA on the steady-state path of waves 0x%x", q->waves);
      goto fail;
    }
    q->r.rescale_skipped = ra_rescale_skipped(&x, q->bp, q->np);
    if (!q->r.rescale_skipped) r->rescale_skipped = 0;
    if (opt->mca) q->r.mca_cycles = ra_mca(&x, q->bp, q->np);
    const int nw = __builtin_popcount(q->waves);
    total_waves += nw;
#define RA_ADD(f) r->f += nw * q->r.f;
    ATTNGEN__RA_SUMS(RA_ADD)
#undef RA_ADD
    r->path_blocks += q->np;
    r->decisions += q->nd;
  }
#define RA_DIV(f) r->f /= total_waves;
  ATTNGEN__RA_SUMS(RA_DIV)
#undef RA_DIV
  r->paths = nwp;
  ra_print(out, path, r, wp, nwp, x.nwaves, opt);
  if (opt->verbose && !opt->tsv)
    for (int pi = 0; pi < nwp; ++pi) {
      fprintf(out, "  path instructions of waves 0x%x:\n", wp[pi].waves);
      for (int q = 0; q < wp[pi].np; ++q)
        for (int i = x.b[wp[pi].bp[q]].first; i <= x.b[wp[pi].bp[q]].last; ++i)
          fprintf(out, "    +0x%-6lx %s %s\n", x.in[i].off, x.in[i].op, x.in[i].args);
    }
  rc = 0;
fail:
  for (int pi = 0; pi < nwp; ++pi) {
    free(wp[pi].bp);
    free(wp[pi].dec);
  }
  free(wp);
done:
  free(bp);
  free(dec);
  free(x.in);
  free(x.b);
  free(x.blk_of);
  free(x.inloop);
  free(x.reach_end);
  free(x.idom);
  free(x.rpo);
  return rc;
}

int attngen__report_analyze_file(const char *path, const attngen__ra_options *opt, FILE *out,
                                 attngen__ra_result *results, int max_results, int *n_results) {
  if (n_results) *n_results = 0;
  struct stat st;
  if (stat(path, &st) != 0 || !S_ISREG(st.st_mode)) {
    fprintf(stderr, "attngen report: '%s': no such file\n", path);
    return 1;
  }
  char arch[32];
  int e = ra_check_elf(path, arch, sizeof arch);
  if (e == 1) {
    fprintf(stderr, "attngen report: '%s' is not an AMDGPU ELF code object\n", path);
    return 1;
  }
  if (e == 2) {
    fprintf(stderr, "attngen report: '%s' is a code object for %s, not gfx942\n", path,
            arch[0] ? arch : "another target");
    return 1;
  }
  ra_kernel_notes *ks = calloc(RA_MAX_KERNELS, sizeof *ks);
  if (!ks) return 1;
  int nk = 0;
  if (ra_read_notes(path, ks, RA_MAX_KERNELS, &nk) != 0) {
    fprintf(stderr,
            "attngen report: '%s': no kernel descriptors (llvm-readelf --notes shows no "
            "amdhsa.kernels)\n",
            path);
    free(ks);
    return 1;
  }
  int analyzed = 0, selected = 0, status = 0;
  for (int k = 0; k < nk; ++k) {
    if (opt->kernel_glob && fnmatch(opt->kernel_glob, ks[k].name, 0) != 0) continue;
    selected++;
    attngen__ra_result r;
    char err[256] = "";
    if (ra_kernel(path, &ks[k], ks, nk, opt, out, &r, err, sizeof err) != 0) {
      /* a kernel without a main loop (a merge or transpose kernel) is only noted, unless the
       * user selected it by name */
      const int noloop = strstr(err, "no loop with MFMA") != NULL;
      const int by_name = opt->kernel_glob && !opt->skip_unmatched;
      if (by_name || !noloop)
        fprintf(stderr, "attngen report: %s: kernel %s: %s\n", path, ks[k].name, err);
      else if (!opt->tsv)
        fprintf(stderr, "attngen report: note: %s: kernel %s skipped: %s\n", path, ks[k].name,
                err);
      if (by_name || !noloop) status = 1;
      continue;
    }
    analyzed++;
    if (results && n_results && *n_results < max_results) results[(*n_results)++] = r;
  }
  free(ks);
  if (opt->kernel_glob && selected == 0) {
    if (opt->skip_unmatched) return 0; /* a directory scan: other files may match */
    fprintf(stderr, "attngen report: %s: no kernel matches '%s'\n", path, opt->kernel_glob);
    return 1;
  }
  if (analyzed == 0) {
    fprintf(stderr, "attngen report: %s: no kernel with a main loop (a loop with MFMAs)\n", path);
    return 1;
  }
  return status;
}
