/* report_disasm.h: the bottom of `attngen report --analyze` (report_disasm.c): a gfx942 code
 * object -> its kernel descriptors and instruction list through llvm-objdump / llvm-readelf,
 * operand text, and the instruction classes by mnemonic. The modules above it: report_cfg.h,
 * report_path.h, report_analyze.h (and cmd_report.c). */
#ifndef ATTNGEN_REPORT_DISASM_H
#define ATTNGEN_REPORT_DISASM_H

#include <stddef.h>
#include <string.h>

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

/* One kernel descriptor of `llvm-readelf --notes`. */
typedef struct ra_kernel_notes {
  char name[256];
  long vgpr, agpr, sgpr, scratch, lds, vgpr_spill, sgpr_spill, max_wg;
} ra_kernel_notes;

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

#endif /* ATTNGEN_REPORT_DISASM_H */
