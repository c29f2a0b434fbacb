/* test_report.c: `attngen report --analyze` (cli/report_analyze.c), the steady-state
 * analysis of the main loop of gfx942 code objects.
 *  - tests/report_kernels/loop.s, a hand-written kernel with a known loop (assembled by
 *    tests/CMakeLists.txt with clang-19 and ld.lld-19): every per-unit count is checked
 *    exactly, with the branch decisions (first-iteration skip, rescale gate, group split);
 *    --head-dim 64 halves the unit;
 *  - attngen's own default gfx942 variants (kv_split off): the loop is found, head_dim / 2
 *    MFMA per unit (64 at d128, 32 at d64: the symbol's d<N> sets the unit), units per iteration = q_tiles * kv_tile / 64 (the variant's tile shape), at most
 *    one path per group of the ping-pong, the O-rescale branch is off the steady-state path,
 *    no scratch, 2 waves per SIMD, at least 16 v_exp per unit (16 rows x 64 keys / 64 lanes);
 *  - errors: missing file, not an AMDGPU ELF, a kernel without a loop, bad options. */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>
#define ATTNGEN_TEST_REQUIRE "ATTNGEN_REQUIRE_CLANG19" /* what a skip here lacks (test_skip.h) */
#include "test_skip.h"

#include "attngen_internal.h"

#ifndef ATTNGEN_KERNEL_DIR
#define ATTNGEN_KERNEL_DIR "kernels"
#endif
#ifndef ATTNGEN_CLI
#define ATTNGEN_CLI "attngen"
#endif
#ifndef ATTNGEN_REPORT_LOOP_CO
#define ATTNGEN_REPORT_LOOP_CO ""
#endif

#define MAX_ROWS 64
#define MAX_COLS 48

typedef struct table {
  char head[MAX_COLS][32];
  int ncols;
  char cell[MAX_ROWS][MAX_COLS][200];
  int nrows;
} table;

static int split_tabs(char *line, char out[][200], int max, size_t width) {
  int n = 0;
  line[strcspn(line, "\n")] = 0;
  for (char *s = line; n < max;) {
    char *t = strchr(s, '\t');
    size_t len = t ? (size_t)(t - s) : strlen(s);
    if (len >= width) len = width - 1;
    memcpy(out[n], s, len);
    out[n][len] = 0;
    n++;
    if (!t) break;
    s = t + 1;
  }
  return n;
}

/* Runs `cmd`; stdout parsed as TSV into t (if non-NULL), stderr into err. Returns the exit
 * status. */
static int run(const char *cmd, table *t, char *err, size_t errsz) {
  char errfile[] = "/tmp/attngen_test_report_XXXXXX";
  int fd = mkstemp(errfile);
  if (fd < 0) return -1;
  char full[8192];
  snprintf(full, sizeof full, "%s 2>'%s'", cmd, errfile);
  FILE *p = popen(full, "r");
  if (!p) return -1;
  char line[8192];
  if (t) memset(t, 0, sizeof *t);
  int header = 1;
  while (fgets(line, sizeof line, p)) {
    if (!t) continue;
    if (header) {
      char tmp[MAX_COLS][200];
      t->ncols = split_tabs(line, tmp, MAX_COLS, sizeof tmp[0]);
      for (int i = 0; i < t->ncols; ++i) snprintf(t->head[i], sizeof t->head[i], "%s", tmp[i]);
      header = 0;
    } else if (t->nrows < MAX_ROWS) {
      split_tabs(line, t->cell[t->nrows], MAX_COLS, sizeof t->cell[0][0]);
      t->nrows++;
    }
  }
  int status = pclose(p);
  FILE *e = fdopen(fd, "r");
  size_t n = e ? fread(err, 1, errsz - 1, e) : 0;
  err[n] = 0;
  if (e) fclose(e);
  unlink(errfile);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static const char *col(const table *t, int row, const char *name) {
  for (int i = 0; i < t->ncols; ++i)
    if (strcmp(t->head[i], name) == 0) return t->cell[row][i];
  fail_msg("no column '%s' in the report", name);
  return "";
}

static double num(const table *t, int row, const char *name) { return atof(col(t, row, name)); }

static int file_exists(const char *p) {
  struct stat st;
  return p && *p && stat(p, &st) == 0;
}

static void test_handwritten_kernel_exact_counts(void **state) {
  (void)state;
  if (!file_exists(ATTNGEN_REPORT_LOOP_CO)) {
    print_message("SKIPPED: %s not built (clang-19 or ld.lld-19 missing)\n",
                  ATTNGEN_REPORT_LOOP_CO[0] ? ATTNGEN_REPORT_LOOP_CO : "report_loop.co");
    skip();
  }
  static table t;
  static char err[8192];
  char cmd[4096];
  snprintf(cmd, sizeof cmd, "'%s' report --analyze --tsv '%s'", ATTNGEN_CLI, ATTNGEN_REPORT_LOOP_CO);
  assert_int_equal(run(cmd, &t, err, sizeof err), 0);
  assert_int_equal(t.nrows, 1); /* report_noloop has no main loop: left out */
  assert_string_equal(col(&t, 0, "kernel"), "report_loop");
  /* registers from the metadata, occupancy: 80 VGPRs -> 6 waves per SIMD */
  assert_int_equal((int)num(&t, 0, "vgpr"), 80);
  assert_int_equal((int)num(&t, 0, "waves_per_simd"), 6);
  /* one iteration = 64 MFMA 16x16x16 bf16 = one unit (the PV block is on the path) */
  assert_float_equal(num(&t, 0, "units_per_iter"), 1.0, 1e-9);
  assert_float_equal(num(&t, 0, "mfma"), 64.0, 1e-9);
  /* --head-dim 64: the same flops are two units of 16 rows x 64 keys at d64 (its symbol has
   * no d<N> token: 128 without the option) */
  {
    static table t64;
    snprintf(cmd, sizeof cmd, "'%s' report --analyze --tsv --head-dim 64 '%s'", ATTNGEN_CLI,
             ATTNGEN_REPORT_LOOP_CO);
    assert_int_equal(run(cmd, &t64, err, sizeof err), 0);
    assert_float_equal(num(&t64, 0, "units_per_iter"), 2.0, 1e-9);
    assert_float_equal(num(&t64, 0, "mfma"), 32.0, 1e-9);
    assert_float_equal(num(&t64, 0, "valu"), 20.5, 1e-9);
  }
  /* group A (waves 0-3) has 2 more v_add_f32, group B one buffer_load: the mean of 8 waves */
  assert_int_equal((int)num(&t, 0, "paths"), 2);
  assert_float_equal(num(&t, 0, "valu"), 41.0, 1e-9);
  assert_float_equal(num(&t, 0, "exp_trans"), 16.0, 1e-9);
  assert_float_equal(num(&t, 0, "perm"), 8.0, 1e-9);
  assert_float_equal(num(&t, 0, "cvt"), 9.0, 1e-9);
  assert_float_equal(num(&t, 0, "fma_mul_add"), 4.0, 1e-9); /* the rescale's v_mul are off */
  assert_float_equal(num(&t, 0, "cmp_cndmask"), 1.0, 1e-9);
  assert_float_equal(num(&t, 0, "mov"), 2.0, 1e-9);
  assert_float_equal(num(&t, 0, "other"), 1.0, 1e-9);
  assert_float_equal(num(&t, 0, "v_exp"), 16.0, 1e-9);
  assert_float_equal(num(&t, 0, "v_perm"), 8.0, 1e-9);
  assert_float_equal(num(&t, 0, "round_ops"), 9.0, 1e-9); /* 4 bfe + 4 add3 + 1 v_cmp_u */
  assert_float_equal(num(&t, 0, "round_cndmask"), 1.0, 1e-9);
  assert_float_equal(num(&t, 0, "lds_ops"), 2.0, 1e-9);
  assert_float_equal(num(&t, 0, "vmem"), 0.5, 1e-9);
  assert_float_equal(num(&t, 0, "s_waitcnt"), 2.0, 1e-9);
  assert_float_equal(num(&t, 0, "s_barrier"), 1.0, 1e-9);
  assert_float_equal(num(&t, 0, "s_nop_states"), 5.0, 1e-9); /* s_nop 3 + s_nop 0 */
  /* 64 x 16 cycles of MFMA; 16 v_exp x 16 + (42 + 40) / 2 - 16 = 25 other VALU x 4 */
  assert_float_equal(num(&t, 0, "mfma_cycles"), 1024.0, 1e-9);
  assert_float_equal(num(&t, 0, "valu_cycles"), 356.0, 1e-9);
  assert_string_equal(col(&t, 0, "bound"), "MFMA");
  assert_int_equal((int)num(&t, 0, "rescale_skipped"), 1);

  /* other clock costs: MFMA at 32 cycles, transcendentals at full rate */
  snprintf(cmd, sizeof cmd, "'%s' report --analyze --tsv --mfma-cycles 32 --trans-cycles 4 '%s'",
           ATTNGEN_CLI, ATTNGEN_REPORT_LOOP_CO);
  assert_int_equal(run(cmd, &t, err, sizeof err), 0);
  assert_int_equal(t.nrows, 1);
  assert_float_equal(num(&t, 0, "mfma_cycles"), 2048.0, 1e-9);
  assert_float_equal(num(&t, 0, "valu_cycles"), 164.0, 1e-9); /* 41 VALU x 4 */

  /* the text report names the decisions and the two groups */
  static char out[65536];
  snprintf(cmd, sizeof cmd, "'%s' report --analyze '%s' --kernel report_loop > /tmp/attngen_tr_%d.txt",
           ATTNGEN_CLI, ATTNGEN_REPORT_LOOP_CO, (int)getpid());
  assert_int_equal(run(cmd, NULL, err, sizeof err), 0);
  char path[64];
  snprintf(path, sizeof path, "/tmp/attngen_tr_%d.txt", (int)getpid());
  FILE *f = fopen(path, "r");
  assert_non_null(f);
  size_t n = fread(out, 1, sizeof out - 1, f);
  out[n] = 0;
  fclose(f);
  unlink(path);
  assert_non_null(strstr(out, "2 distinct path(s) for the 8 waves"));
  assert_non_null(strstr(out, "path 1, waves 0xf:"));
  assert_non_null(strstr(out, "path 2, waves 0xf0:"));
  assert_non_null(strstr(out, "not taken R4 more MFMA"));        /* PV after the first tile */
  assert_non_null(strstr(out, "taken     R4 fewer instructions")); /* rescale gate skipped */
  assert_non_null(strstr(out, "R3 evaluated: taken by waves 0xf0")); /* group split */
  assert_non_null(strstr(out, "back edge: next iteration"));
  /* the clang-17-shaped partial-tile mask: skipped, its execz resolved by a full exec */
  assert_non_null(strstr(out, "not taken R2 exec is full"));

  /* a kernel without a loop, selected by name: an error */
  snprintf(cmd, sizeof cmd, "'%s' report --analyze '%s' --kernel report_noloop", ATTNGEN_CLI,
           ATTNGEN_REPORT_LOOP_CO);
  assert_int_equal(run(cmd, NULL, err, sizeof err), 1);
  assert_non_null(strstr(err, "no loop with MFMA"));
  snprintf(cmd, sizeof cmd, "'%s' report --analyze '%s' --kernel nosuchkernel", ATTNGEN_CLI,
           ATTNGEN_REPORT_LOOP_CO);
  assert_int_equal(run(cmd, NULL, err, sizeof err), 1);
  assert_non_null(strstr(err, "no kernel matches 'nosuchkernel'"));
}

static const attngen__variant_desc *find_variant(const char *name) {
  for (size_t i = 0; i < attngen__manifest_count; i++)
    if (strcmp(attngen__manifest[i].name, name) == 0) return &attngen__manifest[i];
  return NULL;
}

static const char *co_dir(void) {
  const char *d = getenv("ATTNGEN_GFX942_CO_DIR");
  return d && *d ? d : ATTNGEN_KERNEL_DIR "/gfx942";
}

static void test_default_variants(void **state) {
  (void)state;
  int want = 0;
  char probe[4096];
  for (size_t i = 0; i < attngen__manifest_count; i++) {
    const attngen__variant_desc *d = &attngen__manifest[i];
    if (d->target != ATTNGEN__TARGET_GFX942 || d->kv_split != ATTNGEN__SPLIT_OFF) continue;
    snprintf(probe, sizeof probe, "%s/%s.co", co_dir(), d->name);
    if (!file_exists(probe)) {
      print_message("SKIPPED: no gfx942 code object %s (clang-19 missing or not built)\n", probe);
      skip();
    }
    want++;
  }
  assert_true(want > 0);
  static table t;
  static char err[65536];
  char cmd[4096];
  snprintf(cmd, sizeof cmd, "'%s' report --analyze --tsv --dir '%s' --filter '*_nosplit_*'",
           ATTNGEN_CLI, co_dir());
  assert_int_equal(run(cmd, &t, err, sizeof err), 0);
  int seen = 0, failures = 0;
  for (int r = 0; r < t.nrows; ++r) {
    const attngen__variant_desc *d = find_variant(col(&t, r, "kernel"));
    if (!d) continue; /* a stale code object of a variant no longer in the default set */
    seen++;
    /* units of 16 rows x 64 keys at the variant's head_dim d (from the symbol's d<N>): d/2
     * MFMAs 16x16x16 each (QK^T and PV: 4 key blocks x d/16 each) */
    const double units = (double)d->q_tiles * d->kv_tile / 64.0;
    const double mfma = attngen__desc_head_dim(d) / 2.0;
    const int ok = num(&t, r, "mfma") == mfma && num(&t, r, "units_per_iter") == units &&
                   num(&t, r, "paths") >= 1 && num(&t, r, "paths") <= 2 &&
                   num(&t, r, "rescale_skipped") == 1 &&
                   num(&t, r, "scratch") == 0 && num(&t, r, "waves_per_simd") == 2 &&
                   num(&t, r, "v_exp") >= 16.0 && num(&t, r, "s_barrier") > 0;
    if (!ok) {
      print_message("FAIL %s: mfma/unit %s units %s (want %.3f) paths %s rescale_skipped %s "
                    "scratch %s waves %s v_exp %s s_barrier %s\n",
                    d->name, col(&t, r, "mfma"), col(&t, r, "units_per_iter"), units,
                    col(&t, r, "paths"), col(&t, r, "rescale_skipped"), col(&t, r, "scratch"),
                    col(&t, r, "waves_per_simd"), col(&t, r, "v_exp"), col(&t, r, "s_barrier"));
      failures++;
    }
  }
  assert_int_equal(seen, want);
  assert_int_equal(failures, 0);
}

/* --mca (README, Static analysis): llvm-mca-19's cycles of the path, in the TSV's mca_cycles
 * column; -1 without the option. It had no test (issue 29). */
static void test_report_mca(void **state) {
  (void)state;
  if (!file_exists(ATTNGEN_REPORT_LOOP_CO)) {
    print_message("SKIPPED: %s not built (clang-19 or ld.lld-19 missing)\n",
                  ATTNGEN_REPORT_LOOP_CO[0] ? ATTNGEN_REPORT_LOOP_CO : "report_loop.co");
    skip();
  }
  static table t;
  static char err[65536];
  char cmd[4096];
  snprintf(cmd, sizeof cmd, "'%s' report --analyze --tsv '%s'", ATTNGEN_CLI,
           ATTNGEN_REPORT_LOOP_CO);
  assert_int_equal(run(cmd, &t, err, sizeof err), 0);
  assert_true(t.nrows >= 1);
  assert_true(num(&t, 0, "mca_cycles") == -1.0);
  snprintf(cmd, sizeof cmd, "'%s' report --analyze --tsv --mca '%s'", ATTNGEN_CLI,
           ATTNGEN_REPORT_LOOP_CO);
  assert_int_equal(run(cmd, &t, err, sizeof err), 0);
  print_message("llvm-mca-19: %.1f cycles per unit of the hand-written loop\n",
                num(&t, 0, "mca_cycles"));
  assert_true(num(&t, 0, "mca_cycles") > 0.0);
}

static void test_errors(void **state) {
  (void)state;
  static char err[8192];
  char cmd[4096];
  snprintf(cmd, sizeof cmd, "'%s' report --analyze /nonexistent/x.co", ATTNGEN_CLI);
  assert_int_equal(run(cmd, NULL, err, sizeof err), 1);
  assert_non_null(strstr(err, "'/nonexistent/x.co': no such file"));
  /* a text file, and an ELF for another machine (the attngen binary itself) */
  snprintf(cmd, sizeof cmd, "'%s' report --analyze '%s/tests/test_report.c'", ATTNGEN_CLI,
           ATTNGEN_SOURCE_DIR);
  assert_int_equal(run(cmd, NULL, err, sizeof err), 1);
  assert_non_null(strstr(err, "is not an AMDGPU ELF code object"));
  snprintf(cmd, sizeof cmd, "'%s' report --analyze '%s'", ATTNGEN_CLI, ATTNGEN_CLI);
  assert_int_equal(run(cmd, NULL, err, sizeof err), 1);
  assert_non_null(strstr(err, "is not an AMDGPU ELF code object"));
  /* usage errors */
  snprintf(cmd, sizeof cmd, "'%s' report --kernel x", ATTNGEN_CLI);
  assert_int_equal(run(cmd, NULL, err, sizeof err), 2);
  assert_non_null(strstr(err, "--kernel needs --analyze"));
  snprintf(cmd, sizeof cmd, "'%s' report --analyze --trans-cycles zero x.co", ATTNGEN_CLI);
  assert_int_equal(run(cmd, NULL, err, sizeof err), 2);
  assert_non_null(strstr(err, "--trans-cycles 'zero'"));
  snprintf(cmd, sizeof cmd, "'%s' report --analyze --mfma-cycles -3 x.co", ATTNGEN_CLI);
  assert_int_equal(run(cmd, NULL, err, sizeof err), 2);
  assert_non_null(strstr(err, "--mfma-cycles '-3'"));
  snprintf(cmd, sizeof cmd, "'%s' report --analyze --dir /nonexistent", ATTNGEN_CLI);
  assert_int_equal(run(cmd, NULL, err, sizeof err), 1);
  assert_non_null(strstr(err, "cannot open directory '/nonexistent'"));
  snprintf(cmd, sizeof cmd, "'%s' report --help", ATTNGEN_CLI);
  assert_int_equal(run(cmd, NULL, err, sizeof err), 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_handwritten_kernel_exact_counts),
      cmocka_unit_test(test_default_variants),
      cmocka_unit_test(test_report_mca),
      cmocka_unit_test(test_errors),
  };
  return attngen_test_exit(cmocka_run_group_tests(tests, NULL, NULL));
}
