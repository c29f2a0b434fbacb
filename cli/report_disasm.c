/* report_disasm.c: the code object as `attngen report` reads it, through the LLVM tools: the
 * ELF header (an AMDGPU code object for gfx942?), the kernel descriptors (llvm-readelf-19
 * --notes), and one kernel's instructions from llvm-objdump-19 -d (mnemonic, operand text,
 * offset from the kernel symbol, branch target); and the operand-text helpers (operands,
 * literals, registers, which registers an instruction writes) the other modules use. */
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report_disasm.h"

const char *attngen__ra_tool(const char *env, const char *fallback) {
  const char *t = getenv(env);
  return t && *t ? t : fallback;
}

/* ---- code object metadata */

int attngen__ra_read_notes(const char *path, ra_kernel_notes *ks, int max, int *count) {
  char cmd[4400];
  snprintf(cmd, sizeof cmd, "%s --notes '%s' 2>/dev/null",
           attngen__ra_tool("ATTNGEN_READELF", "llvm-readelf-19"), path);
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
int attngen__ra_check_elf(const char *path, char *arch, size_t archsz) {
  char cmd[4400];
  snprintf(cmd, sizeof cmd, "%s -h '%s' 2>/dev/null",
           attngen__ra_tool("ATTNGEN_READELF", "llvm-readelf-19"), path);
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

/* v with room for element n: itself, or grown (doubling from `first`, *cap updated); NULL
 * when out of memory (v is left as it was). */
static void *ra_grow(void *v, int n, int *cap, size_t size, int first) {
  if (n < *cap) return v;
  const int c = *cap ? 2 * *cap : first;
  void *g = realloc(v, size * (size_t)c);
  if (g) *cap = c;
  return g;
}

/* The instructions of kernel `sym`, from `llvm-objdump -d` of the whole file: from the
 * symbol's address up to the next kernel symbol (`kernels`) or the end of the text. Labels
 * inside the kernel (hand-written assembly keeps local labels as symbols) do not end it.
 * Branch targets come from `<sym+0xoff>`, `<label>` or a bare label operand; offsets are
 * from the kernel symbol. */
int attngen__ra_disassemble(const char *path, const char *sym, const ra_kernel_notes *kernels,
                          int nkernels, ra_insn *v, int max) {
  char cmd[4400];
  snprintf(cmd, sizeof cmd, "%s -d '%s' 2>/dev/null",
           attngen__ra_tool("ATTNGEN_OBJDUMP", "llvm-objdump-19"), path);
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
        ra_label *g = ra_grow(labels, nl, &capl, sizeof *labels, 256);
        if (!g) {
          ok = 0;
          break;
        }
        labels = g;
        snprintf(labels[nl].name, sizeof labels[nl].name, "%s", symname);
        labels[nl++].addr = sa;
      }
      continue;
    }
    char *c = strstr(line, "// ");
    if (!c) continue;
    raw *g = ra_grow(all, n, &cap, sizeof *all, 4096);
    if (!g) {
      ok = 0;
      break;
    }
    all = g;
    raw *r = &all[n];
    const char *s = line + 1;
    size_t k = 0;
    while (*s && !isspace((unsigned char)*s) && s < c && k + 1 < sizeof r->in.op)
      r->in.op[k++] = *s++;
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
        attngen__ra_operand(r->in.args, 0, r->tgt, sizeof r->tgt); /* a bare label, or a number */
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
        else if (attngen__ra_is_imm(r->tgt,
                                    &imm)) /* SOPP: PC of the next instruction + 4 * simm16 */
          in->target = (long)(r->addr + 4 + 4 * (long long)(int16_t)imm - start);
      }
    }
  }
  free(labels);
  free(all);
  return out;
}

/* ---- registers and conditions */

/* Parses "s12", "s[12:13]", "v3", "v[4:7]", "vcc", "exec", "scc", "m0". kind: 's', 'v', 'a',
 * 'c' (vcc), 'e' (exec), 'm' (m0); returns 0 if not a register. */
int attngen__ra_reg(const char *s, char *kind, int *lo, int *hi) {
  while (*s == ' ' || *s == '-' || *s == '|') s++;
  if (ra_starts(s, "vcc")) {
    *kind = 'c';
    *lo = 0;
    *hi = 1;
    return 1;
  }
  if (ra_starts(s, "exec")) {
    *kind = 'e';
    *lo = 0;
    *hi = 1;
    return 1;
  }
  if (ra_starts(s, "m0")) {
    *kind = 'm';
    *lo = *hi = 0;
    return 1;
  }
  if ((s[0] == 's' || s[0] == 'v' || s[0] == 'a') &&
      (s[1] == '[' || isdigit((unsigned char)s[1]))) {
    *kind = s[0];
    if (s[1] == '[') return sscanf(s + 2, "%d:%d", lo, hi) == 2;
    *lo = *hi = atoi(s + 1);
    return 1;
  }
  return 0;
}

/* i-th comma-separated operand of args (trimmed) into buf. */
int attngen__ra_operand(const char *args, int i, char *buf, size_t sz) {
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
  if (!attngen__ra_reg(a, &ka, &la, &ha) || !attngen__ra_reg(b, &kb, &lb, &hb)) return 0;
  return ka == kb && la <= hb && lb <= ha;
}

/* Registers an instruction writes: its first operand (second too for carry-out VOP2/VOP3). */
int attngen__ra_writes(const ra_insn *in, const char *reg) {
  char d[64];
  if (in->op[0] != 's' && in->op[0] != 'v') return 0;
  if (ra_starts(in->op, "s_cbranch") || strcmp(in->op, "s_branch") == 0 ||
      ra_starts(in->op, "s_waitcnt") || ra_starts(in->op, "s_nop") ||
      ra_starts(in->op, "s_barrier") || ra_starts(in->op, "s_setprio") ||
      ra_starts(in->op, "s_cmp") || ra_starts(in->op, "s_bitcmp") || ra_starts(in->op, "s_store") ||
      ra_starts(in->op, "s_sleep"))
    return 0;
  if (attngen__ra_operand(in->args, 0, d, sizeof d) && ra_overlap(d, reg)) return 1;
  if ((strstr(in->op, "_co_") || ra_starts(in->op, "v_addc") || ra_starts(in->op, "v_subb") ||
       ra_starts(in->op, "v_div_scale")) &&
      attngen__ra_operand(in->args, 1, d, sizeof d) && ra_overlap(d, reg))
    return 1;
  return 0;
}

int attngen__ra_is_imm(const char *s, long long *v) {
  char *end;
  if (!*s) return 0;
  long long r = strtoll(s, &end, 0);
  if (*end) return 0;
  *v = r;
  return 1;
}
