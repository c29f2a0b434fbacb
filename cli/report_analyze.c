/* report_analyze.c: `attngen report --analyze`, the steady-state analysis of the main loop of
 * a gfx942 kernel, from the code object alone (llvm-objdump-19 -d, llvm-readelf-19 --notes),
 * so that it applies to any code object: attngen's and third-party ones with several kernels.
 * This file drives it per kernel and does the counting, the cost model and the printing:
 *   report_disasm.c  the code object: descriptors and instructions;
 *   report_cfg.c     basic blocks, dominators, the main loop, reaching definitions;
 *   report_path.c    the steady-state path of each wave through one iteration (rules R1-R4).
 * 4. Normalization: one unit = 16 query rows x 64 keys for one wave with head_dim d (the
 *    option, else the d<N> token of an attngen kernel symbol, else 128):
 *    QK^T + PV = 4 * 16 * 64 * d flops. Units per iteration = MFMA flops on the path / that.
 * 5. Costs (wave64, cycles of one SIMD): MFMA from its shape (v_mfma_f32_16x16x16_bf16/f16:
 *    16, 32x32x8: 32, per the AMD matrix instruction calculator for CDNA3; other shapes:
 *    flops / 512); VALU 4 (one pass of a 16-lane SIMD); transcendental (v_exp, v_log, v_rcp,
 *    v_rsq, v_sqrt, v_sin, v_cos) quarter rate, 16 (option). Under the two-group ping-pong
 *    the two waves of a SIMD share its MFMA and VALU pipes, one wave's MFMA phase overlapping
 *    the other's VALU phase: per unit, VALU-time / MFMA-time > 1 means VALU-bound.
 * The counts (instruction classes, bf16 rounding ops, waits) are taken per path and averaged
 * over the waves of the block, each path weighted by its number of waves. */
#define _POSIX_C_SOURCE 200809L
#include "report_analyze.h"

#include <ctype.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>


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

/* ---- occupancy, counts and the cost model */

/* Arch VGPRs are rounded up to 4 first, AGPRs come after them. */
long attngen__ra_waves_per_simd(const ra_kernel_notes *k, long wpb) {
  long arch = (k->vgpr + 3) / 4 * 4;
  long regs = (arch + k->agpr + 7) / 8 * 8;
  long w = regs > 0 ? 512 / regs : 8;
  if (w > 8) w = 8;
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
      int have_d = attngen__ra_operand(in->args, 0, d, sizeof d);
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
        if (ra_starts(op, "v_bfe_u32") && strstr(in->args, ", 16, 1")) {
          round = 1;
          if (have_d) snprintf(bfe_dst[nbfe++ % 16], sizeof bfe_dst[0], "%s", d);
        } else if (ra_starts(op, "v_add3_u32")) {
          for (int j = 0; j < nbfe && j < 16; ++j) {
            char s[64];
            for (int o = 1; o <= 3; ++o)
              if (attngen__ra_operand(in->args, o, s, sizeof s) && strcmp(s, bfe_dst[j]) == 0)
                round = 1;
          }
        } else if ((ra_starts(op, "v_add_u32") || ra_starts(op, "v_add_co_u32") ||
                    ra_starts(op, "v_add_nc_u32")) &&
                   (strstr(in->args, "0x8000") || strstr(in->args, "0x7fff"))) {
          round = 1;
        } else if (ra_starts(op, "v_and_b32") && strstr(in->args, "0xffff0000")) {
          round = 1;
        } else if (ra_starts(op, "v_cmp_u_f32") || ra_starts(op, "v_cmp_o_f32") ||
                   ra_starts(op, "v_cmp_class_f32")) {
          round = 1;
          if (have_d) snprintf(nan_mask[nnan++ % 8], sizeof nan_mask[0], "%s", d);
        } else if (ra_starts(op, "v_cvt_pk_bf16")) {
          round = 1;
        }
        if (ra_starts(op, "v_cndmask")) {
          char sel[64];
          int last = 0;
          while (attngen__ra_operand(in->args, last + 1, sel, sizeof sel)) last++;
          if (attngen__ra_operand(in->args, last, sel, sizeof sel))
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
          if (ra_starts(op, "v_exp_")) r->v_exp++;
        } else {
          r->valu_cycles += 4;
          if (ra_starts(op, "v_perm_") || ra_starts(op, "v_pack_") || ra_starts(op, "v_alignb"))
            r->perm++;
          else if (ra_starts(op, "v_cvt_") || ra_starts(op, "v_bfe_") || round) r->cvt++;
          else if (ra_starts(op, "v_fma") || ra_starts(op, "v_mul_") || ra_starts(op, "v_add_") ||
                   ra_starts(op, "v_sub") || ra_starts(op, "v_pk_fma") ||
                   ra_starts(op, "v_pk_mul") || ra_starts(op, "v_pk_add") ||
                   ra_starts(op, "v_mac_") || ra_starts(op, "v_mad_") || ra_starts(op, "v_fmac"))
            r->fma++;
          else if (ra_starts(op, "v_cmp") || ra_starts(op, "v_cndmask")) r->cmp++;
          else if (ra_starts(op, "v_mov_") || ra_starts(op, "v_accvgpr_") ||
                   ra_starts(op, "v_pk_mov"))
            r->mov++;
          else r->other++;
        }
        if (ra_starts(op, "v_perm_")) r->v_perm++;
        /* a register overwritten by something else is no longer a bfe result / NaN mask */
        if (have_d && !(ra_starts(op, "v_bfe_u32") && round))
          for (int j = 0; j < nbfe && j < 16; ++j)
            if (strcmp(bfe_dst[j], d) == 0) bfe_dst[j][0] = 0;
        if (have_d && !(ra_starts(op, "v_cmp_u_f32") || ra_starts(op, "v_cmp_o_f32") ||
                        ra_starts(op, "v_cmp_class_f32")))
          for (int j = 0; j < nnan && j < 8; ++j)
            if (attngen__ra_writes(in, nan_mask[j])) nan_mask[j][0] = 0;
        continue;
      }
      for (int j = 0; j < nnan && j < 8; ++j)
        if (nan_mask[j][0] && attngen__ra_writes(in, nan_mask[j])) nan_mask[j][0] = 0;
      if (ra_starts(op, "ds_")) r->lds_ops++;
      else if (ra_is_vmem(op)) r->vmem++;
      else if (ra_starts(op, "s_waitcnt")) r->waitcnt++;
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
           attngen__ra_tool("ATTNGEN_MCA", "llvm-mca-19"), tmpl);
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

/* The head_dim of a kernel's units: the option, else the d<N> token of an attngen symbol
 * (attn_fwd_d64_...), else 128. */
static double ra_head_dim(const attngen__ra_options *opt, const char *name) {
  if (opt->head_dim > 0) return opt->head_dim;
  int d = 0, len = 0;
  if (sscanf(name, "attn_fwd_d%d_%n", &d, &len) == 1 && len > 0 && d > 0) return (double)d;
  return 128.0;
}

static int ra_kernel(const char *path, const ra_kernel_notes *kn,
                     const ra_kernel_notes *all_kernels, int n_kernels,
                     const attngen__ra_options *opt_in,
                     FILE *out, attngen__ra_result *r, char *err, size_t errsz) {
  attngen__ra_options opt_hd = *opt_in;
  opt_hd.head_dim = ra_head_dim(opt_in, kn->name);
  const attngen__ra_options *opt = &opt_hd;
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
  r->waves_per_simd =
      attngen__ra_waves_per_simd(kn, kn->max_wg > 0 ? (kn->max_wg + 63) / 64 : 0);
  int rc = 1;
  x.in = malloc(sizeof *x.in * RA_MAX_INSNS);
  if (!x.in) {
    snprintf(err, errsz, "out of memory");
    return 1;
  }
  x.n = attngen__ra_disassemble(path, kn->name, all_kernels, n_kernels, x.in, RA_MAX_INSNS);
  if (x.n <= 0) {
    snprintf(err, errsz, "cannot disassemble the kernel");
    goto done;
  }
  if (attngen__ra_build_blocks(&x) != 0) goto done;
  int loop_blocks = 0;
  unsigned long latch = 0;
  if (attngen__ra_main_loop(&x, &loop_blocks, &latch, err, errsz) != 0) goto done;
  x.nwaves = kn->max_wg > 0 ? (int)((kn->max_wg + 63) / 64) : 1;
  if (x.nwaves > 32) x.nwaves = 32;
  x.waves = x.nwaves >= 32 ? 0xffffffffu : (1u << x.nwaves) - 1;
  r->found_loop = 1;
  r->loop_head = x.in[x.b[x.header].first].off;
  r->loop_blocks = loop_blocks;
  r->loop_latch = latch;
  ra_wpath *wp = calloc(RA_MAX_PATHS, sizeof *wp);
  int nwp = 0;
  if (!wp) goto done;
  if (attngen__ra_wave_paths(&x, opt->verbose, wp, &nwp, err, errsz) != 0) goto fail;
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
    q->r.rescale_skipped = attngen__ra_rescale_skipped(&x, q->bp, q->np);
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
  int e = attngen__ra_check_elf(path, arch, sizeof arch);
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
  if (attngen__ra_read_notes(path, ks, RA_MAX_KERNELS, &nk) != 0) {
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
