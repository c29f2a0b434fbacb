/* test_cli.c: the command line as a hostile user drives it. One shape parser for every
 * command (run, check, tune, bench) with range checks (no 32-bit wrap-around), the same
 * shape syntax everywhere, and exit status 2 for every usage error (README: 0 ok,
 * 1 failure, 2 usage error). Runs the built attngen binary on the cpu backend. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <sys/wait.h>

#include "test_util.h"

static char tmp[256];

static int setup(void **state) {
  (void)state;
  return attngen_test_make_tmpdir(tmp, sizeof tmp, "attngen-cli");
}

static int teardown(void **state) {
  (void)state;
  attngen_test_remove_tree(tmp);
  return 0;
}

/* Runs `attngen ARGS` with stderr to tmp/err; returns the exit status. */
static int cli(const char *fmt, ...) {
  char args[2048], cmd[4096];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(args, sizeof args, fmt, ap);
  va_end(ap);
  snprintf(cmd, sizeof cmd,
           "ATTNGEN_CACHE_DIR='%s' ATTNGEN_TUNING_FILE='%s/t.db' '%s' %s >'%s/out' 2>'%s/err'",
           tmp, tmp, ATTNGEN_CLI, args, tmp, tmp);
  int rc = system(cmd);
  return WIFEXITED(rc) ? WEXITSTATUS(rc) : 128;
}

static int err_has(const char *needle) {
  char path[300], text[8192] = "";
  snprintf(path, sizeof path, "%s/err", tmp);
  FILE *f = fopen(path, "r");
  if (!f) return 0;
  size_t n = fread(text, 1, sizeof text - 1, f);
  text[n] = 0;
  fclose(f);
  if (!strstr(text, needle)) print_message("stderr lacks '%s':\n%s\n", needle, text);
  return strstr(text, needle) != NULL;
}

/* 4294967297 = 2^32 + 1 wrapped to B = 1 under sscanf("%d") and `run` succeeded. */
static void test_cli_shape_overflow_is_a_usage_error_everywhere(void **state) {
  static const char *const bad[] = {
    "4294967297,1,1,1", "1,4294967297,1,1", "1,1,4294967297,1", "1,1,1,4294967297",
    "16777217,1,1,1",   "1,1,1,-1",         "0,1,1,1",          "1,1,1",
    "1,1",              "1,1,1,1,1",        "a,1,1,1",
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    if (strcmp(bad[i], "1,1,1") == 0) continue; /* valid: B,H,S */
    assert_int_equal(cli("run --backend cpu --shape '%s'", bad[i]), 2);
    assert_true(err_has("--shape"));
    assert_int_equal(cli("check --backend cpu --shape '%s'", bad[i]), 2);
    assert_int_equal(cli("tune --backend cpu --shape '%s' --iters 1", bad[i]), 2);
    assert_int_equal(cli("bench --backend cpu --shape '%s' --iters 1", bad[i]), 2);
  }
}

/* The same shape text means the same shape in every command: B,H,S is Sq = Skv = S. */
static void test_cli_shape_syntax_is_shared(void **state) {
  assert_int_equal(cli("run --backend cpu --shape 1,2,3"), 0);
  char path[300], text[8192] = "";
  snprintf(path, sizeof path, "%s/out", tmp);
  FILE *f = fopen(path, "r");
  assert_non_null(f);
  size_t n = fread(text, 1, sizeof text - 1, f);
  text[n] = 0;
  fclose(f);
  assert_non_null(strstr(text, "B=1 H=2 Sq=3 Skv=3"));
  assert_int_equal(cli("run --backend cpu --shape '1x2x3x0'"), 0);
  assert_int_equal(cli("check --backend cpu --shape 1,2,3"), 0);
  assert_int_equal(cli("bench --backend cpu --shape 1,2,3 --iters 1"), 0);
}

/* Usage errors of `run` exit 2, as the README promises (an unknown backend exited 1). */
static void test_cli_run_usage_errors_exit_2(void **state) {
  assert_int_equal(cli("run --backend rocm --shape 1,1,16,16"), 2);
  assert_true(err_has("auto, cuda, hip, emu, cpu"));
  assert_int_equal(cli("bench --backend rocm --shape 1,1,16,16"), 2);
  assert_int_equal(cli("run --shape 1,1,16,16 --iters 0"), 2);
  assert_int_equal(cli("run --shape 1,1,16,16 --layout sbhd"), 2);
  assert_int_equal(cli("run --shape 1,1,16,16 --frobnicate 1"), 2);
  assert_int_equal(cli("run"), 2);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test_setup_teardown(test_cli_shape_overflow_is_a_usage_error_everywhere, setup,
                                    teardown),
    cmocka_unit_test_setup_teardown(test_cli_shape_syntax_is_shared, setup, teardown),
    cmocka_unit_test_setup_teardown(test_cli_run_usage_errors_exit_2, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
