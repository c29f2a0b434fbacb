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

#include "report_analyze.h"

#define REPORT_MAX_KERNELS 8
#define REPORT_MAX_INSNS 65536

typedef struct kernel_stats {
  char name[160];
  long vgpr, agpr, sgpr, scratch, lds, vgpr_spill, sgpr_spill;
  long loop_mfma, loop_valu, loop_lds, loop_vmem, loop_waitcnt, loop_barrier, loop_insns;
} kernel_stats;

typedef struct insn {
  unsigned long addr, target; /* target: branch destination, 0 if none */
  char op[48];
} insn;

static const char *tool(const char *env, const char *fallback) {
  const char *t = getenv(env);
  return t && *t ? t : fallback;
}

static void usage(FILE *f) {
  fprintf(f,
          "usage: attngen report [--dir DIR] [--filter GLOB] [--tsv]\n"
          "       attngen report --analyze [FILE.co ...] [--kernel GLOB] [--dir DIR]\n"
          "                      [--filter GLOB] [--tsv] [--mca] [--trans-cycles N] [--mfma-cycles N]\n"
          "                      [--verbose]\n"
          "\n"
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
          "  R3 a condition that can be evaluated for each wave of the block (from the wave id,\n"
          "     constants and flags set on the path) is decided for the path's set of waves,\n"
          "     which R4 narrows: a wave stays in one group (A or B) of a ping-pong kernel;\n"
          "  R4 on the blocks only one side reaches: more MFMAs, then >= 8 more v_exp, then more\n"
          "     buffer/global ops (not the last tile), then more s_barrier, then fewer\n"
          "     instructions (skips rare gates: O rescale, partial-tile masking); tie: fall through.\n"
          "Counts are per unit of 16 query rows x 64 keys for one wave, units per iteration =\n"
          "MFMA flops on the path / (4*16*64*128) (QK^T + PV at head_dim 128): MFMA, non-MFMA\n"
          "VALU by class, v_exp, v_perm, bf16 rounding ops, LDS, buffer/global, s_waitcnt,\n"
          "s_barrier, s_nop wait states (s_nop N = N+1); and the estimate under the two-group\n"
          "ping-pong: VALU cycles / MFMA cycles per unit (> 1: VALU-bound). Cycles per wave64\n"
          "instruction: v_mfma_f32_16x16x16_bf16 16, 32x32x8 32 (AMD matrix instruction\n"
          "calculator, CDNA3), other MFMA flops/512; VALU 4; transcendental --trans-cycles\n"
          "(default 16, quarter rate).\n"
          "\n"
          "  --dir DIR          directory holding NAME.co files\n"
          "  --filter GLOB      only files whose NAME matches GLOB (* and ?)\n"
          "  --tsv              tab-separated values with a header line (for scripts and tests)\n"
          "  --analyze          the steady-state analysis (files as arguments, or DIR)\n"
          "  --kernel GLOB      --analyze: only kernels whose symbol matches GLOB\n"
          "  --mca              --analyze: also llvm-mca-19 cycles of the path (single wave)\n"
          "  --trans-cycles N   --analyze: cycles of one transcendental (default 16)\n"
          "  --mfma-cycles N    --analyze: cycles of v_mfma_f32_16x16x16_bf16 (default 16);\n"
          "                     the other MFMA costs scale with it\n"
          "  --verbose          --analyze: print the path's instructions\n"
          "  --help             this text\n"
          "Tools: $ATTNGEN_READELF (llvm-readelf-19), $ATTNGEN_OBJDUMP (llvm-objdump-19),\n"
          "$ATTNGEN_MCA (llvm-mca-19).\n"
          "Exit status: 0 ok, 1 a tool or file failed (missing file, not a gfx942 ELF, no main\n"
          "loop), 2 usage error.\n");
}

/* Parses `llvm-readelf --notes` metadata: one kernel_stats per kernel of the object. */
static int read_notes(const char *path, kernel_stats *ks, int *count) {
  char cmd[4096];
  snprintf(cmd, sizeof cmd, "%s --notes '%s' 2>/dev/null", tool("ATTNGEN_READELF", "llvm-readelf-19"),
           path);
  FILE *p = popen(cmd, "r");
  if (!p) return -1;
  char line[1024];
  int n = -1;
  int in_kernels = 0;
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
      if (n + 1 >= REPORT_MAX_KERNELS) break;
      n++;
      memset(&ks[n], 0, sizeof ks[n]);
      s += 2;
    }
    if (n < 0 || s[0] != '.') continue;
    char key[64];
    char val[512];
    if (sscanf(s, ".%63[a-z_0-9]: %511s", key, val) != 2) continue;
    if (strcmp(key, "name") == 0) snprintf(ks[n].name, sizeof ks[n].name, "%s", val);
    else if (strcmp(key, "vgpr_count") == 0) ks[n].vgpr = atol(val);
    else if (strcmp(key, "agpr_count") == 0) ks[n].agpr = atol(val);
    else if (strcmp(key, "sgpr_count") == 0) ks[n].sgpr = atol(val);
    else if (strcmp(key, "private_segment_fixed_size") == 0) ks[n].scratch = atol(val);
    else if (strcmp(key, "group_segment_fixed_size") == 0) ks[n].lds = atol(val);
    else if (strcmp(key, "vgpr_spill_count") == 0) ks[n].vgpr_spill = atol(val);
    else if (strcmp(key, "sgpr_spill_count") == 0) ks[n].sgpr_spill = atol(val);
  }
  int rc = pclose(p);
  *count = n + 1;
  return rc == 0 && n >= 0 ? 0 : -1;
}

static int is_prefix(const char *op, const char *prefix) {
  return strncmp(op, prefix, strlen(prefix)) == 0;
}

/* Counts the main loop of one kernel (symbol name) from llvm-objdump -d. */
static int read_loop(const char *path, kernel_stats *k) {
  char cmd[4096];
  snprintf(cmd, sizeof cmd, "%s -d --disassemble-symbols='%s' '%s' 2>/dev/null",
           tool("ATTNGEN_OBJDUMP", "llvm-objdump-19"), k->name, path);
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
    if (t && strchr(line, '<') && (is_prefix(in->op, "s_cbranch") || is_prefix(in->op, "s_branch")))
      in->target = base + strtoul(t + 3, NULL, 16);
    n++;
  }
  pclose(p);
  /* the backward branch whose [target, branch] range holds the most MFMAs */
  size_t best_lo = 0, best_hi = 0;
  long best_mfma = -1;
  for (size_t i = 0; i < n; ++i) {
    if (!v[i].target || v[i].target > v[i].addr) continue;
    long mfma = 0;
    size_t lo = i;
    while (lo > 0 && v[lo - 1].addr >= v[i].target) lo--;
    for (size_t j = lo; j <= i; ++j) mfma += is_prefix(v[j].op, "v_mfma");
    if (mfma > best_mfma) {
      best_mfma = mfma;
      best_lo = lo;
      best_hi = i;
    }
  }
  if (best_mfma >= 0) {
    for (size_t j = best_lo; j <= best_hi; ++j) {
      const char *op = v[j].op;
      k->loop_insns++;
      if (is_prefix(op, "v_mfma")) k->loop_mfma++;
      else if (is_prefix(op, "v_")) k->loop_valu++;
      else if (is_prefix(op, "ds_")) k->loop_lds++;
      else if (is_prefix(op, "buffer_") || is_prefix(op, "global_") || is_prefix(op, "flat_") ||
               is_prefix(op, "scratch_"))
        k->loop_vmem++;
      else if (is_prefix(op, "s_waitcnt")) k->loop_waitcnt++;
      else if (is_prefix(op, "s_barrier")) k->loop_barrier++;
    }
  }
  free(v);
  return 0;
}

/* Waves per SIMD: unified 512-register file in granules of 8 (arch VGPRs rounded up to 4
 * first, AGPRs after them), at most 8; and the LDS (64 KiB per CU) for blocks of 8 waves. */
static long occupancy(const kernel_stats *k, long waves_per_block) {
  long arch = (k->vgpr + 3) / 4 * 4;
  long regs = (arch + k->agpr + 7) / 8 * 8;
  long w = regs > 0 ? 512 / regs : 8;
  if (w > 8) w = 8;
  if (k->lds > 0 && waves_per_block > 0) {
    long blocks = 65536 / k->lds;
    long lw = blocks * waves_per_block / 4;
    if (lw < w) w = lw;
  }
  return w;
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
  DIR *d = opendir(dir);
  if (!d) {
    fprintf(stderr, "attngen report: cannot open directory '%s'\n", dir);
    return 1;
  }
  ro->skip_unmatched = 1;
  char **names = NULL;
  size_t n = 0;
  struct dirent *e;
  while ((e = readdir(d))) {
    size_t len = strlen(e->d_name);
    if (len < 4 || strcmp(e->d_name + len - 3, ".co") != 0) continue;
    char stem[256];
    snprintf(stem, sizeof stem, "%.*s", (int)(len - 3), e->d_name);
    if (filter && fnmatch(filter, stem, 0) != 0) continue;
    char **g = realloc(names, sizeof *names * (n + 1));
    if (!g || !(g[n] = strdup(e->d_name))) {
      if (g) names = g;
      status = 1;
      break;
    }
    names = g;
    n++;
  }
  closedir(d);
  if (n > 1) qsort(names, n, sizeof *names, compare_names);
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

int attngen__cmd_report(int argc, char **argv) {
  const char *dir = "build/kernels/gfx942";
  const char *filter = NULL;
  int tsv = 0, analyze = 0, nfiles_arg = 0;
  const char **file_args = calloc((size_t)argc + 1, sizeof *file_args);
  if (!file_args) return 1;
  attngen__ra_options ro = {NULL, 0, 0, 0, 16.0, 128.0, 16.0, 0};
  for (int i = 1; i < argc; ++i) {
    if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
      usage(stdout);
      free(file_args);
      return 0;
    } else if (strcmp(argv[i], "--dir") == 0 && i + 1 < argc) {
      dir = argv[++i];
    } else if (strcmp(argv[i], "--filter") == 0 && i + 1 < argc) {
      filter = argv[++i];
    } else if (strcmp(argv[i], "--tsv") == 0) {
      tsv = 1;
    } else if (strcmp(argv[i], "--analyze") == 0) {
      analyze = 1;
    } else if (strcmp(argv[i], "--kernel") == 0 && i + 1 < argc) {
      ro.kernel_glob = argv[++i];
    } else if (strcmp(argv[i], "--mca") == 0) {
      ro.mca = 1;
    } else if (strcmp(argv[i], "--verbose") == 0) {
      ro.verbose = 1;
    } else if (strcmp(argv[i], "--trans-cycles") == 0 && i + 1 < argc) {
      char *end;
      ro.trans_cycles = strtod(argv[++i], &end);
      if (*end || ro.trans_cycles <= 0 || ro.trans_cycles > 1024) {
        fprintf(stderr,
                "attngen report: --trans-cycles '%s': expected a number of cycles in (0, 1024]\n",
                argv[i]);
        free(file_args);
        return 2;
      }
    } else if (strcmp(argv[i], "--mfma-cycles") == 0 && i + 1 < argc) {
      char *end;
      ro.mfma_cycles = strtod(argv[++i], &end);
      if (*end || ro.mfma_cycles <= 0 || ro.mfma_cycles > 1024) {
        fprintf(stderr,
                "attngen report: --mfma-cycles '%s': expected a number of cycles in (0, 1024]\n",
                argv[i]);
        free(file_args);
        return 2;
      }
    } else if (argv[i][0] != '-') {
      file_args[nfiles_arg++] = argv[i];
    } else {
      fprintf(stderr, "attngen report: unknown or incomplete option '%s'\n", argv[i]);
      usage(stderr);
      free(file_args);
      return 2;
    }
  }
  if (!analyze && (nfiles_arg || ro.kernel_glob || ro.mca || ro.verbose)) {
    fprintf(stderr, "attngen report: FILE, --kernel, --mca and --verbose need --analyze\n");
    usage(stderr);
    free(file_args);
    return 2;
  }
  if (analyze) {
    int rc = report_analyze(file_args, nfiles_arg, dir, filter, tsv, &ro);
    free(file_args);
    return rc;
  }
  free(file_args);
  DIR *d = opendir(dir);
  if (!d) {
    fprintf(stderr, "attngen report: cannot open directory '%s'\n", dir);
    return 1;
  }
  char **files = NULL;
  size_t nfiles = 0;
  struct dirent *e;
  int status = 0;
  while ((e = readdir(d))) {
    size_t len = strlen(e->d_name);
    if (len < 4 || strcmp(e->d_name + len - 3, ".co") != 0) continue;
    char stem[256];
    snprintf(stem, sizeof stem, "%.*s", (int)(len - 3), e->d_name);
    if (filter && fnmatch(filter, stem, 0) != 0) continue;
    char **grown = realloc(files, sizeof *files * (nfiles + 1));
    if (!grown) {
      status = 1;
      break;
    }
    files = grown;
    files[nfiles] = strdup(e->d_name);
    if (!files[nfiles]) {
      status = 1;
      break;
    }
    nfiles++;
  }
  closedir(d);
  if (nfiles > 1) qsort(files, nfiles, sizeof *files, compare_names);
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
    int nk = 0;
    if (read_notes(path, ks, &nk) != 0) {
      fprintf(stderr, "attngen report: %s: cannot read kernel descriptors\n", path);
      status = 1;
      break;
    }
    for (int k = 0; k < nk; ++k) {
      if (read_loop(path, &ks[k]) != 0) {
        fprintf(stderr, "attngen report: %s: cannot disassemble %s\n", path, ks[k].name);
        status = 1;
        break;
      }
      const long occ = occupancy(&ks[k], 8);
      if (tsv) {
        printf("%s\t%ld\t%ld\t%ld\t%ld\t%ld\t%ld\t%ld\t%ld\t%ld\t%ld\t%ld\t%ld\t%ld\t%ld\n",
               ks[k].name, ks[k].vgpr, ks[k].agpr, ks[k].sgpr, ks[k].scratch, ks[k].lds,
               ks[k].vgpr_spill, ks[k].sgpr_spill, occ, ks[k].loop_mfma, ks[k].loop_valu,
               ks[k].loop_lds, ks[k].loop_vmem, ks[k].loop_waitcnt, ks[k].loop_barrier);
      } else {
        struct stat st;
        long bytes = stat(path, &st) == 0 ? (long)st.st_size : -1;
        printf("%-62s %7ld %4ld %4ld %4ld %7ld %6ld %5ld %4ld | %5ld %5ld %4ld %4ld %4ld %3ld\n",
               ks[k].name, bytes, ks[k].vgpr, ks[k].agpr, ks[k].sgpr, ks[k].scratch, ks[k].lds,
               ks[k].vgpr_spill + ks[k].sgpr_spill, occ, ks[k].loop_mfma, ks[k].loop_valu,
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
