/* test_rocm.c: the real ROCm compilers for gfx942, from the Debian 13 (trixie) root that
 * .ci/rocm-root prepares (hipcc 5.7 / clang-17, hiprtc inside libamdhip64.so.5, comgr 6.0).
 * The root's libraries need its glibc (>= 2.38), so the Debian 12-built programs run under
 * the root's own loader: ROOT/usr/lib64/ld-linux-x86-64.so.2 --library-path
 * ROOT/usr/lib/x86_64-linux-gnu PROGRAM (LD_LIBRARY_PATH alone mixes two glibcs and
 * crashes). No GPU is needed or pretended:
 *  - the hip backend loads the real libamdhip64 and answers NO_DEVICE naming why;
 *  - `attngen info` names the hiprtc it found, its arch and options;
 *  - `attngen compile` (the JIT without a device: the runtime's own attngen__jit_get) builds
 *    every default gfx942 variant with hiprtc into a fresh cache and build/kernels/gfx942-hiprtc;
 *    a second process loads all of them from the cache without compiling;
 *  - hiprtc's machine code equals hipcc's (build/kernels/gfx942-hipcc, cmake/rocm.cmake) byte
 *    for byte, per variant: JIT and AOT are the same kernel;
 *  - both pass test_gfx942_static (the one budget check: VGPR+AGPR <= 256, no scratch, no
 *    spills, LDS, exact MFMA count per KV tile), run on their directories;
 *  - per variant, clang-19 vs hipcc vs hiprtc: VGPR/AGPR/SGPR, LDS, scratch, occupancy, MFMA
 *    per KV tile from `attngen report --tsv` (printed as a table; LDS, scratch, occupancy and
 *    MFMA count must agree, registers may differ between compilers).
 * Without the root the tests print SKIPPED and the reason; ATTNGEN_REQUIRE_ROCM=1 (.ci/run)
 * turns that into a failure, so CI cannot skip them silently. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#define ATTNGEN_TEST_REQUIRE NULL /* what a skip here lacks (test_skip.h) */
#include "test_skip.h"
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "attngen.h"
#include "elf_sections.h"
#include "attngen_internal.h"

#ifndef ATTNGEN_TRIXIE_ROOT
#define ATTNGEN_TRIXIE_ROOT ""
#endif
#ifndef ATTNGEN_HIPCC_KERNEL_DIR
#define ATTNGEN_HIPCC_KERNEL_DIR ""
#endif
#ifndef ATTNGEN_ROCM_WHY
#define ATTNGEN_ROCM_WHY ""
#endif
#ifndef ATTNGEN_STATIC_TEST
#define ATTNGEN_STATIC_TEST ""
#endif

#define HIPRTC_DIR ATTNGEN_BINARY_DIR "/kernels/gfx942-hiprtc"
#define CLANG_DIR ATTNGEN_KERNEL_DIR "/gfx942"

static char self_path[4096];

/* ---- helpers --------------------------------------------------------------------------- */

static const char *root(void) {
  const char *r = getenv("ATTNGEN_TRIXIE_ROOT");
  return r && *r ? r : ATTNGEN_TRIXIE_ROOT;
}

static int file_exists(const char *path) {
  struct stat st;
  return stat(path, &st) == 0;
}

/* The loader prefix that runs a Debian 12 program against the root's libraries. */
static void loader(char *buf, size_t len) {
  snprintf(buf, len, "'%s/usr/lib64/ld-linux-x86-64.so.2' --library-path '%s/usr/lib/x86_64-linux-gnu'",
           root(), root());
}

/* 1 when the root is there; else SKIPPED (or a failure under ATTNGEN_REQUIRE_ROCM=1). */
static int have_root(void) {
  char stamp[4400], ld[4400];
  snprintf(stamp, sizeof stamp, "%s/.attngen-rocm-root", root());
  snprintf(ld, sizeof ld, "%s/usr/lib64/ld-linux-x86-64.so.2", root());
  if (file_exists(stamp) && file_exists(ld)) return 1;
  const char *req = getenv("ATTNGEN_REQUIRE_ROCM");
  if (req && !strcmp(req, "1"))
    fail_msg("ATTNGEN_REQUIRE_ROCM=1 but there is no trixie root at %s (bash .ci/rocm-root)",
             root());
  print_message("SKIPPED: no trixie root with the ROCm compilers at %s (bash .ci/rocm-root "
                "makes it; see README, ROCm compilers)\n", root());
  return 0;
}

/* 1 when hipcc code objects were built; else SKIPPED or a failure as above. */
static int have_hipcc_objects(void) {
  if (ATTNGEN_HIPCC_KERNEL_DIR[0]) return 1;
  const char *req = getenv("ATTNGEN_REQUIRE_ROCM");
  if (req && !strcmp(req, "1"))
    fail_msg("ATTNGEN_REQUIRE_ROCM=1 but the build made no hipcc code objects: %s",
             ATTNGEN_ROCM_WHY);
  print_message("SKIPPED: no hipcc code objects in this build: %s (re-run cmake after "
                "bash .ci/rocm-root)\n", ATTNGEN_ROCM_WHY);
  return 0;
}

/* Runs a shell command; returns its exit status (-1: not run) and its stdout+stderr in a
 * malloc'd string. */
static int run(const char *cmd, char **output) {
  char *full = NULL;
  if (asprintf(&full, "%s 2>&1", cmd) < 0) return -1;
  FILE *p = popen(full, "r");
  free(full);
  *output = NULL;
  if (!p) return -1;
  size_t cap = 1 << 16, n = 0;
  char *buf = malloc(cap);
  size_t got;
  while (buf && (got = fread(buf + n, 1, cap - n - 1, p)) > 0) {
    n += got;
    if (cap - n < 4096) {
      char *bigger = realloc(buf, cap * 2);
      if (!bigger) break;
      buf = bigger;
      cap *= 2;
    }
  }
  if (buf) buf[n] = 0;
  int status = pclose(p);
  *output = buf;
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* print_message line by line (cmocka cuts one message at about 1 KB). */
static void print_lines(const char *text) {
  for (const char *l = text; l && *l;) {
    const char *e = strchr(l, '\n');
    int len = e ? (int)(e - l) : (int)strlen(l);
    print_message("%.*s\n", len, l);
    l = e ? e + 1 : NULL;
  }
}

static size_t gfx942_default_count(void) {
  size_t n = 0;
  for (size_t i = 0; i < attngen__manifest_count; i++)
    n += attngen__manifest[i].name && attngen__manifest[i].target == ATTNGEN__TARGET_GFX942;
  return n;
}

/* ---- attngen compile: usage, errors, and NVRTC on the host ------------------------------ */

static int cli(const char *args, char **out) {
  char cmd[8192];
  snprintf(cmd, sizeof cmd, "'%s' compile %s", ATTNGEN_CLI, args);
  return run(cmd, out);
}

static void expect_cli(const char *args, int want_rc, const char *want_text) {
  char *out = NULL;
  int rc = cli(args, &out);
  if (rc != want_rc || (want_text && (!out || !strstr(out, want_text))))
    print_message("attngen compile %s -> %d (want %d, \"%s\"):\n%s", args, rc, want_rc,
                  want_text ? want_text : "", out ? out : "");
  assert_int_equal(rc, want_rc);
  if (want_text) assert_non_null(strstr(out, want_text));
  free(out);
}

static void test_compile_cli_usage_errors_and_nvrtc(void **state) {
  (void)state;
  char dir[] = "/tmp/attngen-compile-XXXXXX";
  assert_non_null(mkdtemp(dir));
  char out_dir[300], args[1024];
  snprintf(out_dir, sizeof out_dir, "%s/out", dir);
  expect_cli("--help", 0, "hiprtc");
  expect_cli("", 2, "--target gfx942|sm90 or --variant NAME");
  snprintf(args, sizeof args, "--target gfx9 -o '%s'", out_dir);
  expect_cli(args, 2, "--target 'gfx9': allowed: gfx942, sm90");
  snprintf(args, sizeof args, "--variant attn_fwd_bogus -o '%s'", out_dir);
  expect_cli(args, 2, "--variant attn_fwd_bogus");
  expect_cli("--target gfx942 -j0", 2, "-j '0': allowed: an integer in [1, 64]");
  expect_cli("--target gfx942 --frobnicate", 2, "unknown option '--frobnicate'");
  expect_cli("--target sm90 --filter 'no_such_variant*'", 1, "no variant of the sm90 default set");
  /* hiprtc is not installed on this Debian 12 host: a clear error naming what was tried. */
  char version[64];
  if (attngen__jit_compiler(ATTNGEN__TARGET_GFX942, version, sizeof version) != ATTNGEN_STATUS_OK) {
    snprintf(args, sizeof args, "--target gfx942 -o '%s'", out_dir);
    expect_cli(args, 1, "hiprtc: the run-time compiler library is not installed "
                        "(tried libhiprtc.so");
  }
  assert_false(file_exists(out_dir)); /* nothing written on an error */
  /* NVRTC, where it exists: one variant compiled, then read back by a second process. */
  const char *sm90 = NULL;
  for (size_t i = 0; i < attngen__manifest_count && !sm90; i++)
    if (attngen__manifest[i].name && attngen__manifest[i].target == ATTNGEN__TARGET_SM90)
      sm90 = attngen__manifest[i].name;
  if (sm90 && attngen__jit_compiler(ATTNGEN__TARGET_SM90, version, sizeof version) ==
                  ATTNGEN_STATUS_OK) {
    snprintf(args, sizeof args, "--variant %s -o '%s'", sm90, out_dir);
    char env_args[1400];
    snprintf(env_args, sizeof env_args, "%s 2>/dev/null", args);
    setenv("ATTNGEN_CACHE_DIR", dir, 1);
    char *out = NULL;
    assert_int_equal(cli(env_args, &out), 0);
    assert_non_null(strstr(out, "1 variant: 1 compiled"));
    free(out);
    assert_int_equal(cli(env_args, &out), 0);
    assert_non_null(strstr(out, "1 variant: 0 compiled"));
    assert_non_null(strstr(out, "\ncache "));
    free(out);
    unsetenv("ATTNGEN_CACHE_DIR");
    char path[600], *co = NULL;
    size_t n = 0;
    snprintf(path, sizeof path, "%s/%s.cubin", out_dir, sm90);
    assert_int_equal(attngen__fs_read_file(path, 0, &co, &n), 0);
    assert_true(n > 4 && !memcmp(co, "\x7f" "ELF", 4));
    free(co);
  } else {
    print_message("SKIPPED (part): NVRTC not available, no sm90 compile through the CLI\n");
  }
  char cmd[400], *out = NULL;
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  run(cmd, &out);
  free(out);
}

/* ---- the hip backend without a GPU ------------------------------------------------------ */

/* In the child (this binary under the root's loader): open the hip backend, print the
 * status name and the message. */
static int child_hip_open(void) {
  attngen_context_options o = {"hip", 0};
  attngen_context *ctx = NULL;
  attngen_status st = attngen_create(&ctx, &o);
  printf("status=%s\nmessage=%s\n", attngen_status_name(st),
         st == ATTNGEN_STATUS_OK ? "" : attngen_last_error());
  if (ctx) attngen_destroy(ctx);
  return 0;
}

static void test_hip_backend_without_gpu_says_no_device(void **state) {
  (void)state;
  /* Here (Debian 12, no ROCm installed): the library is missing. */
  attngen_context_options o = {"hip", 0};
  attngen_context *ctx = NULL;
  attngen_status st = attngen_create(&ctx, &o);
  if (st == ATTNGEN_STATUS_NO_BACKEND)
    assert_non_null(strstr(attngen_last_error(), "libamdhip64"));
  if (ctx) attngen_destroy(ctx);
  if (!have_root()) skip();
  if (file_exists("/dev/kfd")) {
    print_message("SKIPPED: this machine has /dev/kfd (an AMD GPU driver): the no-device "
                  "path cannot be shown here\n");
    skip();
  }
  char ld[9000], cmd[16384], *out = NULL;
  loader(ld, sizeof ld);
  snprintf(cmd, sizeof cmd, "%s '%s' --child-hip-open", ld, self_path);
  int rc = run(cmd, &out);
  print_message("hip backend under the trixie root: %s", out ? out : "(no output)\n");
  assert_int_equal(rc, 0);
  assert_non_null(out);
  assert_non_null(strstr(out, "status=NO_DEVICE\n"));
  /* The message names the call that failed, HIP's error and why. */
  assert_non_null(strstr(out, "hipInit"));
  assert_non_null(strstr(out, "/dev/kfd does not exist"));
  free(out);
}

/* ---- attngen info ----------------------------------------------------------------------- */

static void test_info_names_hiprtc_arch_and_options(void **state) {
  (void)state;
  if (!have_root()) skip();
  char ld[9000], cmd[16384], *out = NULL;
  loader(ld, sizeof ld);
  snprintf(cmd, sizeof cmd, "%s '%s' info", ld, ATTNGEN_CLI);
  assert_int_equal(run(cmd, &out), 0);
  const char *line = strstr(out, "  gfx942  hiprtc ");
  if (!line) print_lines(out);
  assert_non_null(line);
  char first[512];
  snprintf(first, sizeof first, "%.*s", (int)strcspn(line, "\n"), line);
  print_message("%s\n", first);
  assert_non_null(strstr(first, "compiles for gfx942"));
  assert_non_null(strstr(first, "libamdhip64.so.5")); /* Debian's HIP 5.7 has no libhiprtc */
  const char *opts = strstr(line, "options:");
  assert_non_null(opts);
  char optline[512];
  snprintf(optline, sizeof optline, "%.*s", (int)strcspn(opts, "\n"), opts);
  print_message("%s\n", optline);
  assert_non_null(strstr(optline, "--offload-arch=gfx942"));
  assert_non_null(strstr(optline, "-ffp-contract=off"));
  free(out);
}

/* ---- hiprtc JIT: compile once, reload from the cache in a second process ------------------ */

static char cache_dir[256];

typedef struct compile_row {
  char origin[16];
  double seconds;
  long bytes;
  char key[32];
  char name[200];
} compile_row;

static int parse_compile(const char *out, compile_row *rows, int max) {
  int n = 0;
  for (const char *l = out; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
    compile_row r;
    if (sscanf(l, "%15s %lf %ld %31s %199s", r.origin, &r.seconds, &r.bytes, r.key, r.name) == 5 &&
        n < max)
      rows[n++] = r;
  }
  return n;
}

static void test_hiprtc_compiles_default_set_once_then_cache(void **state) {
  (void)state;
  if (!have_root()) skip();
  snprintf(cache_dir, sizeof cache_dir, "/tmp/attngen-rocm-cache-XXXXXX");
  assert_non_null(mkdtemp(cache_dir));
  char other[] = "/tmp/attngen-rocm-out-XXXXXX";
  assert_non_null(mkdtemp(other));
  char ld[9000], cmd[16384], *out1 = NULL, *out2 = NULL;
  loader(ld, sizeof ld);
  /* Process 1: every default gfx942 variant compiled by hiprtc (two at a time). */
  snprintf(cmd, sizeof cmd,
           "rm -rf '%s' && env ATTNGEN_CACHE_DIR='%s' ATTNGEN_LOG=0 nice %s '%s' compile "
           "--target gfx942 -j2 -o '%s'",
           HIPRTC_DIR, cache_dir, ld, ATTNGEN_CLI, HIPRTC_DIR);
  int rc = run(cmd, &out1);
  print_lines(out1 ? out1 : "(no output)");
  assert_int_equal(rc, 0);
  static compile_row r1[512], r2[512];
  const size_t want = gfx942_default_count();
  assert_true(want > 0);
  int n1 = parse_compile(out1, r1, 512);
  assert_int_equal((size_t)n1, want);
  for (int i = 0; i < n1; i++) assert_string_equal(r1[i].origin, "compiled");
  assert_non_null(strstr(out1, "hiprtc"));
  /* Process 2: the same request loads everything from the disk cache, compiling nothing. */
  snprintf(cmd, sizeof cmd,
           "env ATTNGEN_CACHE_DIR='%s' ATTNGEN_LOG=0 %s '%s' compile --target gfx942 -o '%s'",
           cache_dir, ld, ATTNGEN_CLI, other);
  assert_int_equal(run(cmd, &out2), 0);
  print_lines(out2);
  int n2 = parse_compile(out2, r2, 512);
  assert_int_equal(n2, n1);
  char summary[64];
  snprintf(summary, sizeof summary, "%d variants: 0 compiled", n2);
  assert_non_null(strstr(out2, summary));
  for (int i = 0; i < n2; i++) {
    assert_string_equal(r2[i].origin, "cache");
    assert_string_equal(r2[i].name, r1[i].name);
    assert_string_equal(r2[i].key, r1[i].key);
    assert_int_equal(r2[i].bytes, r1[i].bytes);
    /* the same code object, byte for byte */
    char p1[4400], p2[4400];
    snprintf(p1, sizeof p1, "%s/%s.co", HIPRTC_DIR, r1[i].name);
    snprintf(p2, sizeof p2, "%s/%s.co", other, r2[i].name);
    char *a = NULL, *b = NULL;
    size_t na = 0, nb = 0;
    assert_int_equal(attngen__fs_read_file(p1, 0, &a, &na), 0);
    assert_int_equal(attngen__fs_read_file(p2, 0, &b, &nb), 0);
    assert_int_equal(na, (size_t)r1[i].bytes);
    assert_int_equal(nb, na);
    assert_memory_equal(a, b, na);
    free(a);
    free(b);
    unlink(p2);
  }
  rmdir(other);
  free(out2);
  /* The cache entries, as the host's `attngen cache ls` sees them: one per variant, valid,
   * compiled by hiprtc for gfx942. */
  snprintf(cmd, sizeof cmd, "'%s' cache verify --dir '%s'", ATTNGEN_CLI, cache_dir);
  assert_int_equal(run(cmd, &out2), 0);
  char entries[64];
  snprintf(entries, sizeof entries, "%d entries", n1);
  assert_non_null(strstr(out2, entries));
  size_t hits = 0; /* entry lines: key, arch gfx942, target gfx942, compiler hiprtc, ..., ok */
  for (const char *l = out2; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
    char key[32], arch[32], target[32], compiler[32];
    size_t len = strcspn(l, "\n");
    if (sscanf(l, "%31s %31s %31s %31s", key, arch, target, compiler) == 4 &&
        !strcmp(arch, "gfx942") && !strcmp(target, "gfx942") && !strcmp(compiler, "hiprtc") &&
        len > 4 && !strncmp(l + len - 4, "  ok", 4))
      hits++;
  }
  assert_int_equal(hits, (size_t)n1);
  free(out1);
  free(out2);
}

/* ---- hiprtc vs hipcc: the same machine code ---------------------------------------------- */

static void test_hiprtc_equals_hipcc_per_variant(void **state) {
  (void)state;
  if (!have_root() || !have_hipcc_objects()) skip();
  int differ = 0;
  size_t checked = 0;
  for (size_t i = 0; i < attngen__manifest_count; i++) {
    const attngen__variant_desc *d = &attngen__manifest[i];
    if (!d->name || d->target != ATTNGEN__TARGET_GFX942) continue;
    char pa[4400], pb[4400];
    snprintf(pa, sizeof pa, "%s/%s.co", ATTNGEN_HIPCC_KERNEL_DIR, d->name);
    snprintf(pb, sizeof pb, "%s/%s.co", HIPRTC_DIR, d->name);
    char *a = NULL, *b = NULL;
    size_t na = 0, nb = 0;
    if (attngen__fs_read_file(pa, 0, &a, &na) != 0 || attngen__fs_read_file(pb, 0, &b, &nb) != 0) {
      print_message("FAIL %s: missing code object (%s or %s)\n", d->name, pa, pb);
      differ++;
      free(a);
      free(b);
      continue;
    }
    size_t ta = 0, tb = 0;
    const unsigned char *xa = attngen_test_elf_section(a, na, ".text", &ta);
    const unsigned char *xb = attngen_test_elf_section(b, nb, ".text", &tb);
    if (!xa || !xb || ta != tb || memcmp(xa, xb, ta) != 0) {
      print_message("FAIL %s: hiprtc's .text (%zu bytes) differs from hipcc's (%zu bytes); "
                    "compare: llvm-objdump-19 -d %s %s\n", d->name, tb, ta, pa, pb);
      differ++;
    }
    checked++;
    free(a);
    free(b);
  }
  print_message("%zu gfx942 variants: hiprtc .text == hipcc .text in %zu\n", checked,
                checked - (size_t)differ);
  assert_int_equal(differ, 0);
  assert_int_equal(checked, gfx942_default_count());
}

/* ---- the static budget of both, by test_gfx942_static itself ----------------------------- */

static void check_budget(const char *label, const char *dir) {
  char cmd[9000], *out = NULL;
  snprintf(cmd, sizeof cmd, "env ATTNGEN_GFX942_CO_DIR='%s' '%s'", dir, ATTNGEN_STATIC_TEST);
  int rc = run(cmd, &out);
  if (rc != 0 || strstr(out, "SKIPPED")) print_lines(out ? out : "");
  assert_int_equal(rc, 0);
  assert_null(strstr(out, "SKIPPED"));
  print_message("%s code objects (%s): test_gfx942_static passed\n", label, dir);
  free(out);
}

static void test_static_budget_hipcc_and_hiprtc(void **state) {
  (void)state;
  if (!have_root() || !have_hipcc_objects()) skip();
  check_budget("hipcc", ATTNGEN_HIPCC_KERNEL_DIR);
  check_budget("hiprtc", HIPRTC_DIR);
}

/* ---- clang-19 vs hipcc vs hiprtc, per kernel ---------------------------------------------- */

typedef struct report_row {
  char name[200];
  long v[14]; /* vgpr agpr sgpr scratch lds vgpr_spill sgpr_spill occ mfma valu lds vmem wait bar */
} report_row;
enum { VGPR, AGPR, SGPR, SCRATCH, LDS, VSPILL, SSPILL, OCC, MFMA, NCOLS = 14 };

static int load_report(const char *dir, report_row *rows, int max) {
  char cmd[4400], *out = NULL;
  snprintf(cmd, sizeof cmd, "'%s' report --tsv --dir '%s'", ATTNGEN_CLI, dir);
  if (run(cmd, &out) != 0) {
    print_message("%s failed:\n%s", cmd, out ? out : "");
    free(out);
    return -1;
  }
  int n = 0;
  for (const char *l = out; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
    report_row r;
    long *v = r.v;
    if (n < max && sscanf(l, "%199s %ld %ld %ld %ld %ld %ld %ld %ld %ld %ld %ld %ld %ld %ld",
                          r.name, &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7], &v[8],
                          &v[9], &v[10], &v[11], &v[12], &v[13]) == 15)
      rows[n++] = r;
  }
  free(out);
  return n;
}

static const report_row *find_row(const report_row *rows, int n, const char *name) {
  for (int i = 0; i < n; i++)
    if (!strcmp(rows[i].name, name)) return &rows[i];
  return NULL;
}

/* A kernel of a default gfx942 variant: the variant's own symbol or one of its companions in
 * the same code object (NAME_merge, any other NAME_<suffix>). */
static int in_default_set(const char *kernel) {
  for (size_t i = 0; i < attngen__manifest_count; i++) {
    const char *v = attngen__manifest[i].name;
    if (!v || attngen__manifest[i].target != ATTNGEN__TARGET_GFX942) continue;
    size_t n = strlen(v);
    if (!strncmp(kernel, v, n) && (kernel[n] == 0 || kernel[n] == '_')) return 1;
  }
  return 0;
}

static void test_compare_clang19_hipcc_hiprtc(void **state) {
  (void)state;
  if (!have_root() || !have_hipcc_objects()) skip();
  static report_row c[512], h[512], r[512];
  int nc = load_report(CLANG_DIR, c, 512), nh = load_report(ATTNGEN_HIPCC_KERNEL_DIR, h, 512),
      nr = load_report(HIPRTC_DIR, r, 512);
  assert_true(nc > 0 && nh > 0 && nr > 0);
  int failures = 0, kernels = 0;
  print_message("%-60s | clang-19 vgpr agpr sgpr lds scr occ mfma | hipcc vgpr agpr sgpr | "
                "hiprtc vgpr agpr sgpr\n", "kernel (lds bytes, scratch bytes, waves/SIMD, "
                "MFMA per KV tile)");
  for (int i = 0; i < nc; i++) {
    if (!in_default_set(c[i].name)) continue;
    kernels++;
    const report_row *hh = find_row(h, nh, c[i].name), *rr = find_row(r, nr, c[i].name);
    if (!hh || !rr) {
      print_message("FAIL %s: no %s kernel\n", c[i].name, !hh ? "hipcc" : "hiprtc");
      failures++;
      continue;
    }
    print_message("%-60s | %4ld %4ld %4ld %6ld %3ld %3ld %4ld | %4ld %4ld %4ld | %4ld %4ld %4ld\n",
                  c[i].name, c[i].v[VGPR], c[i].v[AGPR], c[i].v[SGPR], c[i].v[LDS],
                  c[i].v[SCRATCH], c[i].v[OCC], c[i].v[MFMA], hh->v[VGPR], hh->v[AGPR],
                  hh->v[SGPR], rr->v[VGPR], rr->v[AGPR], rr->v[SGPR]);
    /* hiprtc and hipcc: one compiler, one kernel, every column. */
    if (memcmp(hh->v, rr->v, sizeof hh->v) != 0) {
      print_message("FAIL %s: hiprtc's report differs from hipcc's\n", c[i].name);
      failures++;
    }
    /* clang-19 and hipcc: other compilers, the same kernel design: the LDS the source
     * declares, no scratch or spills, the same occupancy and MFMA count per KV tile. */
    if (hh->v[LDS] != c[i].v[LDS] || hh->v[SCRATCH] || c[i].v[SCRATCH] || hh->v[VSPILL] ||
        hh->v[SSPILL] || hh->v[OCC] != c[i].v[OCC] || hh->v[MFMA] != c[i].v[MFMA]) {
      print_message("FAIL %s: hipcc (lds %ld, scratch %ld, occ %ld, mfma %ld) vs clang-19 "
                    "(lds %ld, scratch %ld, occ %ld, mfma %ld)\n", c[i].name, hh->v[LDS],
                    hh->v[SCRATCH], hh->v[OCC], hh->v[MFMA], c[i].v[LDS], c[i].v[SCRATCH],
                    c[i].v[OCC], c[i].v[MFMA]);
      failures++;
    }
  }
  /* every default variant (and its merge kernel) seen */
  assert_true((size_t)kernels >= gfx942_default_count());
  assert_int_equal(failures, 0);
}

int main(int argc, char **argv) {
  if (argc > 1 && !strcmp(argv[1], "--child-hip-open")) return child_hip_open();
  if (!realpath("/proc/self/exe", self_path)) snprintf(self_path, sizeof self_path, "%s", argv[0]);
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_compile_cli_usage_errors_and_nvrtc),
    cmocka_unit_test(test_hip_backend_without_gpu_says_no_device),
    cmocka_unit_test(test_info_names_hiprtc_arch_and_options),
    cmocka_unit_test(test_hiprtc_compiles_default_set_once_then_cache),
    cmocka_unit_test(test_hiprtc_equals_hipcc_per_variant),
    cmocka_unit_test(test_static_budget_hipcc_and_hiprtc),
    cmocka_unit_test(test_compare_clang19_hipcc_hiprtc),
  };
  int rc = attngen_test_exit(cmocka_run_group_tests(tests, NULL, NULL));
  if (cache_dir[0]) {
    char cmd[512], *out = NULL;
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", cache_dir);
    run(cmd, &out);
    free(out);
  }
  return rc;
}
