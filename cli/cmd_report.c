/* cmd_report.c: `attngen report`, the static report of built gfx942 code objects. For each
 * NAME.co in a directory it reads the kernel descriptors (llvm-readelf --notes: arch VGPRs,
 * AGPRs, SGPRs, scratch, LDS, spills), derives the occupancy, and counts the instruction mix
 * of each kernel's main loop from the disassembly (llvm-objdump -d): the backward branch
 * whose body holds the most MFMAs is the KV loop, one iteration = one KV tile. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "report_analyze.h"

#define REPORT_MAX_KERNELS 8
#define REPORT_MAX_INSNS 65536

typedef struct kernel_stats {
  ra_kernel_notes d; /* the kernel descriptor */
  long loop_mfma, loop_valu, loop_lds, loop_vmem, loop_waitcnt, loop_barrier, loop_insns;
} kernel_stats;

typedef struct insn {
  unsigned long addr, target; /* target: branch destination, 0 if none */
  char op[48];
} insn;

static const attngen__cli_option options[] = {
    {"--dir", ATTNGEN__CLI_TEXT, "DIR", "directory holding NAME.co files (default build/kernels/gfx942)",
     .max_len = 4000},
    {"--filter", ATTNGEN__CLI_TEXT, "GLOB", "only files whose NAME matches GLOB (* and ?)"},
    {"--tsv", ATTNGEN__CLI_FLAG, NULL, "tab-separated values with a header line (for scripts and tests)"},
    {"--analyze", ATTNGEN__CLI_FLAG, NULL, "the steady-state analysis (files as arguments, or DIR)"},
    {"--kernel", ATTNGEN__CLI_TEXT, "GLOB", "only kernels whose symbol matches GLOB",
     .needs = "--analyze"},
    {"--mca", ATTNGEN__CLI_FLAG, NULL, "also llvm-mca-19 cycles of the path (single wave)",
     .needs = "--analyze"},
    {"--trans-cycles", ATTNGEN__CLI_REAL, "N", "cycles of one transcendental (default 16), in (0, 1024]",
     0, 1024, .lo_open = 1, .needs = "--analyze"},
    {"--mfma-cycles", ATTNGEN__CLI_REAL, "N",
     "cycles of v_mfma_f32_16x16x16_bf16 (default 16), in (0, 1024];\n"
     "the other MFMA costs scale with it", 0, 1024, .lo_open = 1, .needs = "--analyze"},
    {"--head-dim", ATTNGEN__CLI_REAL, "D",
     "d of a unit's QK^T + PV (default: the d<N> token of an attngen\n"
     "kernel symbol, else 128), in (0, 1024]", 0, 1024, .lo_open = 1, .needs = "--analyze"},
    {"--verbose", ATTNGEN__CLI_FLAG, NULL, "print the path's instructions", .needs = "--analyze"},
    {NULL}};

static int report(const attngen__cli_args *args);

const attngen__cli_command attngen__cli_cmd_report = {
    "report", "static report of built " ATTNGEN__TARGET_GFX942_NAME " code objects",
    "[--dir DIR] [--filter GLOB] [--tsv]\n"
    "       attngen report --analyze [FILE.co ...] [--kernel GLOB] [--dir DIR]\n"
    "                      [--filter GLOB] [--tsv] [--mca] [--trans-cycles N] [--mfma-cycles N]\n"
    "                      [--head-dim D]\n"
    "                      [--verbose]",
    "Static report of built gfx942 code objects DIR/NAME.co (default DIR:\n"
    "build/kernels/gfx942): arch VGPRs, AGPRs, SGPRs, scratch bytes, LDS bytes, spills,\n"
    "occupancy (waves per SIMD from the unified 512-register file and the LDS), and the\n"
    "instruction mix of each kernel's main KV loop (one iteration = one KV tile, per wave):\n"
    "MFMA, other VALU, LDS, VMEM, s_waitcnt, s_barrier.\n"
    "\n"
    "--analyze: the steady-state analysis of any gfx942 code object (attngen's or a third\n"
    "party's, every kernel in it; without FILE: every DIR/NAME.co matching --filter). Per\n"
    "kernel: the main loop (the loop with the most MFMAs; ties: the innermost), the path of\n"
    "one wave through one iteration, every branch on it resolved by these rules, in order:\n"
    "  R1 stay in the loop (never an exit or an inner loop's body);\n"
    "  R2 exec-masked if/else is wave-uniform: the else side runs iff the then side did not;\n"
    "     with exec not written on the path since the loop header, exec is full:\n"
    "     s_cbranch_execz is never taken (nor followed when R4 compares regions);\n"
    "  R3 a condition that can be evaluated for each wave of the block (from the wave id,\n"
    "     constants and flags set on the path) is decided for the path's set of waves,\n"
    "     which R4 narrows: a wave stays in one group (A or B) of a ping-pong kernel;\n"
    "  R4 on the blocks only one side reaches: more MFMAs, then >= 8 more v_exp, then more\n"
    "     buffer/global ops (not the last tile), then more s_barrier, then fewer\n"
    "     instructions (skips rare gates: O rescale, partial-tile masking); tie: fall through.\n"
    "Counts are per unit of 16 query rows x 64 keys for one wave, units per iteration =\n"
    "MFMA flops on the path / (4*16*64*d) (QK^T + PV at head_dim d: --head-dim, else the\n"
    "d<N> token of an attngen kernel symbol, else 128): MFMA, non-MFMA\n"
    "VALU by class, v_exp, v_perm, bf16 rounding ops, LDS, buffer/global, s_waitcnt,\n"
    "s_barrier, s_nop wait states (s_nop N = N+1); and the estimate under the two-group\n"
    "ping-pong: VALU cycles / MFMA cycles per unit (> 1: VALU-bound). Cycles per wave64\n"
    "instruction: v_mfma_f32_16x16x16_bf16 16, 32x32x8 32 (AMD matrix instruction\n"
    "calculator, CDNA3), other MFMA flops/512; VALU 4; transcendental --trans-cycles\n"
    "(default 16, quarter rate).\n"
    "\n"
    "Tools: $ATTNGEN_READELF (llvm-readelf-19), $ATTNGEN_OBJDUMP (llvm-objdump-19),\n"
    "$ATTNGEN_MCA (llvm-mca-19).\n",
    options, "FILE.co", NULL, 0, 1 << 20,
    "0 ok, 1 a tool or file failed (missing file, not a gfx942 ELF, no main\n"
    "loop)", report};

/* Counts the main loop of one kernel (symbol name) from llvm-objdump -d. */
static int read_loop(const char *path, kernel_stats *k) {
  char cmd[4096];
  snprintf(cmd, sizeof cmd, "%s -d --disassemble-symbols='%s' '%s' 2>/dev/null",
           attngen__ra_tool("ATTNGEN_OBJDUMP", "llvm-objdump-19"), k->d.name, path);
  FILE *p = popen(cmd, "r");
  if (!p) return -1;
  insn *v = malloc(sizeof *v * REPORT_MAX_INSNS);
  if (!v) {
    pclose(p);
    return -1;
  }
  size_t n = 0;
  unsigned long base = 0;
  char line[1024];
  while (fgets(line, sizeof line, p) && n < REPORT_MAX_INSNS) {
    unsigned long sym;
    char symname[256];
    if (sscanf(line, "%lx <%255[^>]>:", &sym, symname) == 2) {
      base = sym;
      continue;
    }
    if (line[0] != '\t') continue;
    const char *c = strstr(line, "// ");
    if (!c) continue;
    insn *in = &v[n];
    if (sscanf(line + 1, "%47s", in->op) != 1) continue;
    in->addr = strtoul(c + 3, NULL, 16);
    in->target = 0;
    const char *t = strstr(line, "+0x");
    if (t && strchr(line, '<') && (ra_starts(in->op, "s_cbranch") || ra_starts(in->op, "s_branch")))
      in->target = base + strtoul(t + 3, NULL, 16);
    n++;
  }
  pclose(p);
  /* the backward branch whose [target, branch] range holds the most MFMAs; a range holding
   * s_endpgm is a jump back to a shared exit (e.g. after a v_path=vt pre-pass), not a loop */
  size_t best_lo = 0, best_hi = 0;
  long best_mfma = -1;
  for (size_t i = 0; i < n; ++i) {
    if (!v[i].target || v[i].target > v[i].addr) continue;
    long mfma = 0;
    size_t lo = i;
    while (lo > 0 && v[lo - 1].addr >= v[i].target) lo--;
    int exit_jump = 0;
    for (size_t j = lo; j <= i; ++j) {
      mfma += ra_starts(v[j].op, "v_mfma");
      exit_jump |= strcmp(v[j].op, "s_endpgm") == 0;
    }
    if (!exit_jump && mfma > best_mfma) {
      best_mfma = mfma;
      best_lo = lo;
      best_hi = i;
    }
  }
  if (best_mfma >= 0) {
    for (size_t j = best_lo; j <= best_hi; ++j) {
      const char *op = v[j].op;
      k->loop_insns++;
      if (ra_starts(op, "v_mfma")) k->loop_mfma++;
      else if (ra_starts(op, "v_")) k->loop_valu++;
      else if (ra_starts(op, "ds_")) k->loop_lds++;
      else if (ra_is_vmem(op)) k->loop_vmem++;
      else if (ra_starts(op, "s_waitcnt")) k->loop_waitcnt++;
      else if (ra_starts(op, "s_barrier")) k->loop_barrier++;
    }
  }
  free(v);
  return 0;
}

static int compare_names(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The sm90 cubins built next to the gfx942 code objects (DIR/../sm90), with their sizes
 * (register use needs cuobjdump, which is not installed with a plain nvcc). */
static void report_cubins(const char *gfx_dir, const char *filter) {
  char dir[4096];
  snprintf(dir, sizeof dir, "%s/../sm90", gfx_dir);
  DIR *d = opendir(dir);
  if (!d) return;
  char names[256][256];
  int n = 0;
  struct dirent *e;
  while ((e = readdir(d)) && n < 256) {
    size_t len = strlen(e->d_name);
    if (len < 7 || strcmp(e->d_name + len - 6, ".cubin") != 0) continue;
    snprintf(names[n], sizeof names[n], "%.*s", (int)(len - 6), e->d_name);
    if (filter && fnmatch(filter, names[n], 0) != 0) continue;
    n++;
  }
  closedir(d);
  qsort(names, (size_t)n, sizeof names[0], (int (*)(const void *, const void *))strcmp);
  printf("\n%-62s %7s\n", "sm90 cubin", "bytes");
  for (int i = 0; i < n; i++) {
    char path[4400];
    struct stat st;
    snprintf(path, sizeof path, "%s/%s.cubin", dir, names[i]);
    printf("%-62s %7ld\n", names[i], stat(path, &st) == 0 ? (long)st.st_size : -1L);
  }
  fprintf(stderr, "attngen report: %d cubin(s) in %s\n", n, dir);
}

/* The NAME.co files of dir whose NAME matches filter (NULL: all), sorted by name: *names and
 * *n (the caller frees each name and the array). 0; 1 when out of memory (the names listed so
 * far are kept); -1 when dir cannot be opened (message on stderr, nothing to free). */
static int list_code_objects(const char *dir, const char *filter, char ***names, size_t *n) {
  DIR *d = opendir(dir);
  if (!d) {
    fprintf(stderr, "attngen report: cannot open directory '%s'\n", dir);
    return -1;
  }
  int status = 0;
  struct dirent *e;
  while ((e = readdir(d))) {
    size_t len = strlen(e->d_name);
    if (len < 4 || strcmp(e->d_name + len - 3, ".co") != 0) continue;
    char stem[256];
    snprintf(stem, sizeof stem, "%.*s", (int)(len - 3), e->d_name);
    if (filter && fnmatch(filter, stem, 0) != 0) continue;
    char **g = realloc(*names, sizeof **names * (*n + 1));
    if (!g || !(g[*n] = strdup(e->d_name))) {
      if (g) *names = g;
      status = 1;
      break;
    }
    *names = g;
    (*n)++;
  }
  closedir(d);
  if (*n > 1) qsort(*names, *n, sizeof **names, compare_names);
  return status;
}

/* `--analyze`: the files given, or every DIR/NAME.co matching the filter. */
static int report_analyze(const char **files, int nfiles, const char *dir, const char *filter,
                          int tsv, attngen__ra_options *ro) {
  ro->tsv = tsv;
  if (tsv) fputs(ATTNGEN__RA_TSV_HEADER, stdout);
  int status = 0;
  if (nfiles > 0) {
    for (int i = 0; i < nfiles; ++i) {
      if (i && !tsv) putchar('\n');
      if (attngen__report_analyze_file(files[i], ro, stdout, NULL, 0, NULL) != 0) status = 1;
    }
    return status;
  }
  char **names = NULL;
  size_t n = 0;
  status = list_code_objects(dir, filter, &names, &n);
  if (status < 0) return 1;
  ro->skip_unmatched = 1;
  if (n == 0 && status == 0) {
    fprintf(stderr, "attngen report: no code object NAME.co in '%s'%s%s\n", dir,
            filter ? " matching " : "", filter ? filter : "");
    status = 1;
  }
  for (size_t i = 0; i < n; ++i) {
    char path[4400];
    snprintf(path, sizeof path, "%s/%s", dir, names[i]);
    if (i && !tsv) putchar('\n');
    if (status == 0 && attngen__report_analyze_file(path, ro, stdout, NULL, 0, NULL) != 0)
      status = 1;
    free(names[i]);
  }
  free(names);
  return status;
}

static int report(const attngen__cli_args *args) {
  const char *dir = attngen__cli_text(args, "--dir", "build/kernels/gfx942");
  const char *filter = attngen__cli_text(args, "--filter", NULL);
  const int tsv = attngen__cli_given(args, "--tsv"), analyze = attngen__cli_given(args, "--analyze");
  attngen__ra_options ro = {NULL, 0, 0, 0, 16.0, 0.0, 16.0, 0};
  ro.kernel_glob = attngen__cli_text(args, "--kernel", NULL);
  ro.mca = attngen__cli_given(args, "--mca");
  ro.verbose = attngen__cli_given(args, "--verbose");
  ro.trans_cycles = attngen__cli_real(args, "--trans-cycles", ro.trans_cycles);
  ro.mfma_cycles = attngen__cli_real(args, "--mfma-cycles", ro.mfma_cycles);
  ro.head_dim = attngen__cli_real(args, "--head-dim", ro.head_dim);
  if (!analyze && args->npositional)
    return attngen__cli_usage_error(args->cmd, "FILE.co arguments need --analyze");
  if (analyze) return report_analyze(args->positional, args->npositional, dir, filter, tsv, &ro);
  char **files = NULL;
  size_t nfiles = 0;
  int status = list_code_objects(dir, filter, &files, &nfiles);
  if (status < 0) return 1;
  if (tsv) {
    printf("kernel\tvgpr\tagpr\tsgpr\tscratch\tlds\tvgpr_spill\tsgpr_spill\twaves_per_simd"
           "\tloop_mfma\tloop_valu\tloop_lds\tloop_vmem\tloop_waitcnt\tloop_barrier\n");
  } else {
    printf("%-62s %7s %4s %4s %4s %7s %6s %5s %4s | %5s %5s %4s %4s %4s %3s\n", "kernel",
           "bytes", "vgpr", "agpr", "sgpr", "scratch", "lds", "spill", "occ", "mfma", "valu", "lds",
           "vmem", "wait", "bar");
  }
  int reported = 0;
  for (size_t f = 0; f < nfiles && status == 0; ++f) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, files[f]);
    kernel_stats ks[REPORT_MAX_KERNELS];
    ra_kernel_notes notes[REPORT_MAX_KERNELS];
    int nk = 0;
    if (attngen__ra_read_notes(path, notes, REPORT_MAX_KERNELS, &nk) != 0) {
      fprintf(stderr, "attngen report: %s: cannot read kernel descriptors\n", path);
      status = 1;
      break;
    }
    for (int k = 0; k < nk; ++k) {
      memset(&ks[k], 0, sizeof ks[k]);
      ks[k].d = notes[k];
      if (read_loop(path, &ks[k]) != 0) {
        fprintf(stderr, "attngen report: %s: cannot disassemble %s\n", path, ks[k].d.name);
        status = 1;
        break;
      }
      const ra_kernel_notes *d = &ks[k].d;
      const long occ = attngen__ra_waves_per_simd(d, 8);
      if (tsv) {
        printf("%s\t%ld\t%ld\t%ld\t%ld\t%ld\t%ld\t%ld\t%ld\t%ld\t%ld\t%ld\t%ld\t%ld\t%ld\n",
               d->name, d->vgpr, d->agpr, d->sgpr, d->scratch, d->lds,
               d->vgpr_spill, d->sgpr_spill, occ, ks[k].loop_mfma, ks[k].loop_valu,
               ks[k].loop_lds, ks[k].loop_vmem, ks[k].loop_waitcnt, ks[k].loop_barrier);
      } else {
        struct stat st;
        long bytes = stat(path, &st) == 0 ? (long)st.st_size : -1;
        printf("%-62s %7ld %4ld %4ld %4ld %7ld %6ld %5ld %4ld | %5ld %5ld %4ld %4ld %4ld %3ld\n",
               d->name, bytes, d->vgpr, d->agpr, d->sgpr, d->scratch, d->lds,
               d->vgpr_spill + d->sgpr_spill, occ, ks[k].loop_mfma, ks[k].loop_valu,
               ks[k].loop_lds, ks[k].loop_vmem, ks[k].loop_waitcnt, ks[k].loop_barrier);
      }
      reported++;
    }
  }
  for (size_t f = 0; f < nfiles; ++f) free(files[f]);
  free(files);
  if (!tsv) fprintf(stderr, "attngen report: %d kernel(s) in %s\n", reported, dir);
  if (!tsv && status == 0) report_cubins(dir, filter);
  return status;
}
