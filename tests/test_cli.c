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
#define ATTNGEN_TEST_REQUIRE "ATTNGEN_REQUIRE_CLANG19" /* what a skip here lacks (test_skip.h) */
#include "test_skip.h"
#include <sys/wait.h>

#include "attngen_internal.h"
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

/* Runs `ENV attngen ARGS` (ENV: more variables, after the test's own) with stdout to tmp/out
 * and stderr to tmp/err; returns the exit status. */
static int vcli_env(const char *env, const char *fmt, va_list ap) {
  static char args[16384], cmd[24576];
  vsnprintf(args, sizeof args, fmt, ap);
  snprintf(cmd, sizeof cmd,
           "ATTNGEN_CACHE_DIR='%s' ATTNGEN_TUNING_FILE='%s/t.db' %s '%s' %s >'%s/out' 2>'%s/err'",
           tmp, tmp, env, ATTNGEN_CLI, args, tmp, tmp);
  int rc = system(cmd);
  return WIFEXITED(rc) ? WEXITSTATUS(rc) : 128;
}

static int cli(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  const int rc = vcli_env("", fmt, ap);
  va_end(ap);
  return rc;
}

static int cli_env(const char *env, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  const int rc = vcli_env(env, fmt, ap);
  va_end(ap);
  return rc;
}

/* The text of tmp/NAME (out or err), "" when it cannot be read; one static buffer. */
static const char *read_tmp(const char *name) {
  char path[300];
  static char text[65536];
  snprintf(path, sizeof path, "%s/%s", tmp, name);
  text[0] = 0;
  FILE *f = fopen(path, "r");
  if (!f) return text;
  size_t n = fread(text, 1, sizeof text - 1, f);
  text[n] = 0;
  fclose(f);
  return text;
}

/* Does tmp/NAME (out or err) contain needle? */
static int file_has(const char *name, const char *needle) {
  return strstr(read_tmp(name), needle) != NULL;
}

static int err_has(const char *needle) {
  const char *text = read_tmp("err");
  if (!strstr(text, needle)) print_message("stderr lacks '%s':\n%s\n", needle, text);
  return strstr(text, needle) != NULL;
}

static int out_has(const char *needle) {
  const char *text = read_tmp("out");
  if (!strstr(text, needle)) print_message("stdout lacks '%s':\n%s\n", needle, text);
  return strstr(text, needle) != NULL;
}

/* `check` holds a backend to the contract. The cpu backend is the reference itself, so the
 * CLI's check is run on the emulator (the gfx942 kernels: independent code). Issue 29:
 * `check` passed an all-NaN output (scale 3e38: the reference is NaN too and the L2 term
 * skipped non-finite elements; the fp64 exact result is finite), and the gfx942 kernels
 * gave NaN rows for a zero scale (keys past Skv were set to -inf before the scale multiplied
 * them) and for scale 1e10 (the fma form's x at a row's max reached +4096). */
static void test_cli_check_emu_and_nan_output(void **state) {
  (void)state;
  assert_int_equal(cli("check --backend cpu --shape 1,2,33,47 --scale 3e38"), 1);
  assert_true(out_has("result: FAIL"));
  assert_true(out_has("vs fp64 8448"));
  int rc = cli("check --backend emu --shape 1,2,33,47");
  if (rc != 0 && err_has("emu")) {
    print_message("SKIPPED: no emu backend in this build\n");
    skip();
    return;
  }
  assert_int_equal(rc, 0);
  assert_true(out_has("result: PASS"));
  assert_int_equal(cli("check --backend emu --shape 1,2,33,47 --scale 1e10"), 0);
  assert_true(out_has("result: PASS"));
  /* a grouped-query call (--heads-kv): the kernels read the KV head of each query head */
  assert_int_equal(cli("check --backend emu --shape 2,4,33,100 --heads-kv 2 --large-scores"),
                   0);
  assert_true(out_has("2x4x33x100 heads_kv 2"));
  assert_true(out_has("result: PASS"));
  assert_int_equal(cli("run --backend emu --shape 1,1,16,47 --scale 0"), 0);
  assert_true(out_has("2048 of 2048 elements finite"));
  assert_int_equal(cli("run --backend emu --shape 1,1,16,47 --scale -0"), 0);
  assert_true(out_has("2048 of 2048 elements finite"));
}

/* `check --seqlens`: a packed batch against its per-sequence dense calls on the cpu backend
 * (through attngen_fwd, cu_seqlens uploaded), with 0- and 1-length sequences, cross lengths,
 * GQA, causal and seqused_k; on the emulator (gfx942) a variant without the tail split, at
 * head dims 64 and 256 too (a tail-split one, forced, is refused by name); bad lists and head
 * dims are usage errors. */
static void test_cli_check_seqlens(void **state) {
  (void)state;
  assert_int_equal(cli("check --backend cpu --seqlens 5,70,0,1 --kv-seqlens 9,64,3,0 --heads 4 "
                       "--heads-kv 2 --causal --seqused-k 4,-1,2,7 --seed 5"), 0);
  assert_true(out_has("packed batch of 4 sequences, 4 heads (2 KV)"));
  assert_true(out_has("sequence 3: Sq 1, Skv 0 (kv_lengths given): dense call PASS"));
  assert_true(out_has("3 dense calls (0 failed)"));
  assert_true(out_has("0 output elements and 0 LSE values differ"));
  assert_true(out_has(": PASS"));
  assert_int_equal(cli("check --backend emu --seqlens 5,3 --kv-seqlens 0,40 --heads 2 "
                       "--heads-kv 1 --seed 7"), 0);
  assert_true(out_has("0 output elements and 0 LSE values differ"));
  assert_true(out_has("_nosplit_"));
  assert_true(out_has(": PASS"));
  /* every head dim: the emulator's head_dim-64 / 256 kernels, causal */
  assert_int_equal(cli("check --backend emu --seqlens 5,40 --kv-seqlens 7,33 --heads 2 "
                       "--head-dim 64 --causal --seed 7"), 0);
  assert_true(out_has("head_dim 64"));
  assert_true(out_has("variant attn_fwd_d64_bshd_rtne_"));
  assert_true(out_has("0 output elements and 0 LSE values differ"));
  assert_int_equal(cli("check --backend emu --seqlens 5,40 --kv-seqlens 7,33 --heads 2 "
                       "--head-dim 256 --seed 7"), 0);
  assert_true(out_has("variant attn_fwd_d256_bshd_rtne_"));
  assert_true(out_has(": PASS"));
  assert_int_equal(cli("check --backend cpu --seqlens 5,3 --head-dim 96"), 2);
  assert_true(err_has("--head-dim 96 is not supported (allowed: 64, 128, 256)"));
  assert_int_equal(cli("check --backend emu --seqlens 5,3 --variant "
                       "attn_fwd_d128_bshd_rtne_q2_kv96_w8_tail_vt_mfma_gfx942"), 1);
  assert_true(err_has("NO_VARIANT"));
  assert_true(err_has("args.cu_seqlens_q"));
  assert_int_equal(cli("check --backend cpu --seqlens 5,x"), 2);
  assert_true(err_has("--seqlens 5,x"));
  assert_int_equal(cli("check --backend cpu --seqlens 5,-1"), 2);
  assert_int_equal(cli("check --backend cpu --seqlens 5,3 --kv-seqlens 5"), 2);
  assert_true(err_has("--kv-seqlens 1"));
  assert_int_equal(cli("check --backend cpu --seqlens 0,0"), 1);
  assert_true(err_has("INVALID_ARGUMENT"));
  assert_int_equal(cli("check --backend cpu --seqlens 5 --shape 1,1,5,5"), 2);
  assert_int_equal(cli("check --backend cpu --kv-seqlens 5"), 2);
  assert_true(err_has("--kv-seqlens needs --seqlens"));
  assert_int_equal(cli("check --backend cpu --seqlens 5,3 --heads 6 --heads-kv 4"), 2);
  assert_true(err_has("--heads-kv 4 does not divide --heads 6"));
}

/* Reads tmp/NAME into buf (empty when missing). */
static void slurp_tmp(const char *name, char *buf, size_t size) {
  char path[300];
  snprintf(path, sizeof path, "%s/%s", tmp, name);
  buf[0] = 0;
  FILE *f = fopen(path, "r");
  if (!f) return;
  size_t n = fread(buf, 1, size - 1, f);
  buf[n] = 0;
  fclose(f);
}

static size_t count_lines(const char *text) {
  size_t n = 0;
  for (; *text; text++) n += *text == '\n';
  return n;
}

/* README features that had no test (issue 29): `cache ls` / `cache clear`, `list
 * --search-space`, `run`'s printed variant and reason (the dispatcher's and a forced one
 * through a valid ATTNGEN_VARIANT), ATTNGEN_LOG and ATTNGEN_LOG_FILE, ATTNGEN_EMU_CUS. */
static void test_cli_cache_ls_and_clear(void **state) {
  (void)state;
  char cache[300];
  snprintf(cache, sizeof cache, "%s", tmp);
  assert_int_equal(cli("cache ls"), 0);
  assert_true(out_has(": 0 entries"));
  attngen__cache_meta m;
  memset(&m, 0, sizeof m);
  snprintf(m.variant, sizeof m.variant, "attn_fwd_test_entry");
  snprintf(m.target, sizeof m.target, "sm90");
  snprintf(m.arch, sizeof m.arch, "sm_90a");
  snprintf(m.compiler, sizeof m.compiler, "test");
  static const char image[] = "\x7f" "ELF code object of the test";
  assert_int_equal(attngen__cache_write(cache, 0x123456789abcdef0ull, image, sizeof image, &m),
                   ATTNGEN_STATUS_OK);
  assert_int_equal(cli("cache ls"), 0);
  assert_true(out_has(": 1 entry"));
  assert_true(out_has("123456789abcdef0"));
  assert_true(out_has("attn_fwd_test_entry"));
  assert_int_equal(cli("cache clear"), 0);
  assert_true(out_has("removed 1 entry"));
  assert_int_equal(cli("cache ls"), 0);
  assert_true(out_has(": 0 entries"));
  assert_int_equal(cli("cache frobnicate"), 2);
}

static void test_cli_list_search_space(void **state) {
  (void)state;
  char text[65536];
  assert_int_equal(cli("list --target gfx942"), 0);
  slurp_tmp("out", text, sizeof text);
  const size_t n_default = count_lines(text);
  /* 32-key tiles are search-space only, but at head_dim 256 (its only tile) */
  for (const char *l = strstr(text, "_kv32_"); l; l = strstr(l + 1, "_kv32_")) {
    const char *start = l;
    while (start > text && start[-1] != '\n') start--;
    assert_int_equal(strncmp(start, "attn_fwd_d256_", 14), 0);
  }
  assert_non_null(strstr(text, "attn_fwd_d256_bshd_rtne_q2_kv32_w8_nosplit_vt_mfma_gfx942"));
  assert_int_equal(cli("list --target gfx942 --search-space"), 0);
  slurp_tmp("out", text, sizeof text);
  const size_t n_space = count_lines(text);
  print_message("gfx942: %zu default variants, %zu in the search space\n", n_default, n_space);
  assert_true(n_default >= 1 && n_space > n_default);
  assert_non_null(strstr(text, "attn_fwd_d128_bshd_rtne_q2_kv32_w8_nosplit_mfma_gfx942"));
  assert_non_null(strstr(text, "kv_tile=32"));
}

static void test_cli_run_prints_variant_and_reason(void **state) {
  (void)state;
  assert_int_equal(cli("run --backend emu --shape 1,1,16,16"), 0);
  assert_true(out_has("variant:  attn_fwd_d128_bshd_rtne_q2_kv96_w8_nosplit_vt_mfma_gfx942 "
                      "(embedded)"));
  assert_true(out_has("rule:     heuristic: "));
  assert_true(out_has("Skv 16 < 4 x kv_tile"));
  /* a valid ATTNGEN_VARIANT forces that variant */
  char cmd[1024];
  snprintf(cmd, sizeof cmd,
           "ATTNGEN_VARIANT=attn_fwd_d128_bshd_rtz_q2_kv96_w8_tail_vt_mfma_gfx942 "
           "ATTNGEN_CACHE_DIR='%s' '%s' run --backend emu --shape 1,1,16,16 --round rtz >'%s/out' 2>'%s/err'",
           tmp, ATTNGEN_CLI, tmp, tmp);
  assert_int_equal(system(cmd), 0);
  assert_true(out_has("variant:  attn_fwd_d128_bshd_rtz_q2_kv96_w8_tail_vt_mfma_gfx942"));
  assert_true(out_has("rule:     forced: "));
  assert_true(out_has("ATTNGEN_VARIANT"));
  /* ATTNGEN_EMU_CUS: the compute units the emulator reports */
  snprintf(cmd, sizeof cmd, "ATTNGEN_EMU_CUS=3 '%s' run --backend emu --shape 1,1,16,16 "
           ">'%s/out' 2>'%s/err'", ATTNGEN_CLI, tmp, tmp);
  assert_int_equal(system(cmd), 0);
  assert_true(out_has("(gfx942, 3 compute units)"));
}

/* run --head-dim: inputs of that row length (64 crashed in the fill at 128), the
 * dispatcher's kernel of that head_dim on the gfx942 kernels (emu), 64 and 256 */
static void test_cli_run_head_dim(void **state) {
  (void)state;
  assert_int_equal(cli("run --backend emu --shape 1,2,40,70 --head-dim 64 --layout bhsd"), 0);
  assert_true(out_has("variant:  attn_fwd_d64_bhsd_rtne_"));
  assert_true(out_has("D=64"));
  assert_true(out_has("output:   5120 of 5120 elements finite"));
  assert_int_equal(cli("run --backend cpu --shape 1,2,40,70 --head-dim 256"), 0);
  assert_true(out_has("output:   20480 of 20480 elements finite"));
  assert_int_equal(cli("run --backend emu --shape 1,2,40,70 --head-dim 256"), 0);
  assert_true(out_has("variant:  attn_fwd_d256_bshd_rtne_"));
  assert_true(out_has("output:   20480 of 20480 elements finite"));
}

/* run --causal / --heads-kv: the causal kernel of the gfx942 set (emu) on a grouped-query
 * call; the mask changes the output (cpu: the sums of the dense and the causal run differ);
 * a --heads-kv that does not divide the heads is a usage error naming both. */
static void sum_line(char *buf, size_t size) {
  char text[16384];
  slurp_tmp("out", text, sizeof text);
  const char *at = strstr(text, "output:");
  snprintf(buf, size, "%s", at ? at : "");
}

static void test_cli_run_causal_gqa(void **state) {
  (void)state;
  assert_int_equal(cli("run --backend emu --shape 1,4,40,70 --heads-kv 2 --causal"), 0);
  assert_true(out_has("heads_kv=2 causal"));
  assert_true(out_has("_causal_mfma_gfx942"));
  assert_true(out_has("output:   20480 of 20480 elements finite"));
  char dense[256], causal[256];
  assert_int_equal(cli("run --backend cpu --shape 1,2,30,30"), 0);
  sum_line(dense, sizeof dense);
  assert_int_equal(cli("run --backend cpu --shape 1,2,30,30 --causal"), 0);
  sum_line(causal, sizeof causal);
  assert_true(strstr(dense, "elements finite") && strstr(causal, "elements finite"));
  assert_string_not_equal(dense, causal);
  assert_int_equal(cli("run --backend cpu --shape 1,4,20 --heads-kv 3"), 2);
  assert_true(err_has("--heads-kv 3 does not divide the 4 heads"));
}

static void test_cli_log_and_log_file(void **state) {
  (void)state;
  char cmd[1024], text[16384];
  snprintf(cmd, sizeof cmd, "ATTNGEN_LOG=3 ATTNGEN_LOG_FILE='%s/log' '%s' run --backend emu "
           "--shape 1,1,16,16 >'%s/out' 2>'%s/err'", tmp, ATTNGEN_CLI, tmp, tmp);
  assert_int_equal(system(cmd), 0);
  slurp_tmp("log", text, sizeof text);
  assert_non_null(strstr(text, "attngen: "));
  assert_non_null(strstr(text, "attn_fwd_d128_bshd_rtne_q2_kv96_w8_nosplit_vt_mfma_gfx942"));
  slurp_tmp("err", text, sizeof text);
  assert_null(strstr(text, "attngen: ")); /* to the file, not to stderr */
  /* ATTNGEN_LOG=0: nothing; a level out of range is refused, naming the variable */
  snprintf(cmd, sizeof cmd, "rm -f '%s/log'; ATTNGEN_LOG=0 ATTNGEN_LOG_FILE='%s/log' '%s' run "
           "--backend emu --shape 1,1,16,16 >'%s/out' 2>'%s/err'", tmp, tmp, ATTNGEN_CLI, tmp,
           tmp);
  assert_int_equal(system(cmd), 0);
  slurp_tmp("log", text, sizeof text);
  assert_null(strstr(text, "attngen: "));
  snprintf(cmd, sizeof cmd, "ATTNGEN_LOG=7 '%s' run --backend emu --shape 1,1,16,16 >'%s/out' "
           "2>'%s/err'", ATTNGEN_CLI, tmp, tmp);
  assert_int_not_equal(system(cmd), 0);
  assert_true(err_has("ATTNGEN_LOG"));
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
  assert_int_equal(cli("check --backend cpu --shape 1,2,3"), 0); /* parses as B,H,S */
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

/* check --skip (tile skipping, issue 27): a skip state over --skip-steps calls, each checked
 * against the reference on the lists it read; its options' usage errors exit 2, a call no
 * skip variant serves fails by name (exit 1). The emulator runs the gfx942 skip variants
 * (ragged Sq and Skv, a read list and masks, the grid 256 x 96 of q2 kv96 w8). */
static void test_cli_check_skip(void **state) {
  assert_int_equal(cli("check --backend cpu --shape 1,2,300,700 --skip -1 --skip-read 30 "
                       "--skip-masks 10 --seed 5"), 0);
  assert_true(out_has("tile grid 128 x 128 (3 x 6 tiles, 6 words)"));
  assert_true(out_has("call 3: skipped"));
  assert_true(out_has("written list: 0 of 6 words differ"));
  assert_true(out_has("check: PASS"));
  assert_int_equal(cli("check --backend cpu --shape 1,1,16,16 --skip 0.5"), 2);
  assert_true(err_has("--skip"));
  assert_int_equal(cli("check --backend cpu --shape 1,1,16,16 --skip-steps 2"), 2);
  assert_int_equal(cli("check --backend cpu --all --skip -6"), 2);
  assert_int_equal(cli("check --backend emu --shape 1,2,300,700 --skip -1 --skip-read 30 "
                       "--skip-masks 10 --seed 5"), 0);
  assert_true(out_has("_skip_mfma_gfx942, tile grid 256 x 96 (2 x 8 tiles, 4 words)"));
  assert_true(out_has("call 3: skipped"));
  assert_true(out_has("written list: 0 of 4 words differ"));
  assert_true(out_has("check: PASS"));
  assert_int_equal(cli("check --backend emu --shape 1,1,16,16 --causal --skip -6"), 1);
  assert_true(err_has("args.skip"));
  /* 2049 tiles of 96 keys: one more than a wave's 64 list words hold */
  assert_int_equal(cli("check --backend emu --shape 1,1,16,196704 --skip -6"), 1);
  assert_true(err_has("args.skip: seqlen_kv 196704 is 2049 KV tiles of 96 keys; the gfx942 "
                      "skip kernels take at most 2048"));
}

/* Issue 29, defect 5: shape texts that the old tokenizer accepted (empty fields, signs, a
 * trailing separator: "1,1,16,0x" read as 1,1,16,0) are refused by every command. */
static void test_cli_shape_grammar_is_strict(void **state) {
  static const char *const bad[] = {"1,,1,,,,1", "+1,+1,+1", "1,1,16,0x", "1,1,16,",
                                    ",1,1,16",   "1, 1, 16", "0x10,1,1", "1,1,1e3",
                                    "1;1;16",    "",         "1,1,-0"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    assert_int_equal(cli("run --backend cpu --shape '%s'", bad[i]), 2);
    assert_true(err_has("--shape"));
    assert_int_equal(cli("check --backend cpu --shape '%s'", bad[i]), 2);
    assert_int_equal(cli("tune --backend cpu --shape '%s' --iters 1 --no-write", bad[i]), 2);
    assert_int_equal(cli("bench --backend cpu --shape '%s' --iters 1", bad[i]), 2);
  }
}

/* An option given twice is refused (it silently took the last value). */
static void test_cli_duplicate_options_are_refused(void **state) {
  assert_int_equal(cli("run --backend cpu --shape 1,1,16 --shape 1,1,32"), 2);
  assert_true(err_has("--shape given twice"));
  assert_int_equal(cli("run --backend cpu --shape 1,1,16 --layout bshd --layout bhsd"), 2);
  assert_true(err_has("--layout given twice"));
  assert_int_equal(cli("check --backend cpu --shape 1,1,16 --seed 1 --seed 2"), 2);
  assert_int_equal(cli("tune --backend cpu --shape 1,1,16 --iters 1 --iters 2 --no-write"), 2);
  assert_int_equal(cli("bench --backend cpu --shape 1,1,16 --iters 1 --iters 2"), 2);
  assert_int_equal(cli("cache ls ls"), 2);
  /* options meant to repeat still do */
  assert_int_equal(cli("bench --backend cpu --shape 1,1,16 --shape 1,2,16 --iters 1"), 0);
  assert_true(file_has("out", "2 shape(s), 0 failed"));
}

/* run and check take the same --scale values (any finite float, as the API) with the same
 * exit codes: check refused 0 and 1e-50 that run took, and nan exited 1 in run, 2 in check. */
static void test_cli_scale_range_is_the_same_in_run_and_check(void **state) {
  static const char *const ok[] = {"0", "1e-50", "-0.5"};
  static const char *const bad[] = {"nan", "inf", "-inf", "1e39", "abc", "0.1x", ""};
  for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
    assert_int_equal(cli("run --backend cpu --shape 1,1,16 --scale '%s'", ok[i]), 0);
    assert_int_equal(cli("check --backend cpu --shape 1,1,16 --scale '%s'", ok[i]), 0);
    assert_true(file_has("out", "check: PASS"));
  }
  /* 3e38 is a finite scale too, but scale * log2(e) overflows fp32: the output is NaN, which
   * check fails against the finite fp64 attention (exit 1, not a usage error; issue 29) */
  assert_int_equal(cli("run --backend cpu --shape 1,1,16 --scale 3e38"), 0);
  assert_int_equal(cli("check --backend cpu --shape 1,1,16 --scale 3e38"), 1);
  assert_true(file_has("out", "check: FAIL"));
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    assert_int_equal(cli("run --backend cpu --shape 1,1,16 --scale '%s'", bad[i]), 2);
    assert_true(err_has("--scale"));
    assert_int_equal(cli("check --backend cpu --shape 1,1,16 --scale '%s'", bad[i]), 2);
    assert_true(err_has("--scale"));
  }
}

/* The shapes the CLI accepts are the library's (attngen__check_args): a shape just inside
 * each limit passes the parser (the next error is the planted unknown option), one just
 * outside is a usage error naming --shape (it was exit 1 from the library for B = 2^24). */
static void test_cli_shape_limits_are_the_library_caps(void **state) {
  static const char *const inside[] = {"65535,1,1,0", "1,65535,1,0", "1,1,8388607,0",
                                       "1,1,1,8388607", "1,2,4194303,0", "256,1,8388607,0"};
  static const char *const outside[] = {"65536,1,1,0", "1,65536,1,0", "1,1,8388608,0",
                                        "1,1,1,8388608", "1,2,4194304,0", "257,1,8388607,0",
                                        "0,1,1,1", "1,0,1,1", "1,1,0,1"};
  for (size_t i = 0; i < sizeof inside / sizeof inside[0]; i++) {
    assert_int_equal(cli("run --backend cpu --shape %s --planted-unknown", inside[i]), 2);
    assert_true(err_has("unknown option '--planted-unknown'"));
  }
  for (size_t i = 0; i < sizeof outside / sizeof outside[0]; i++) {
    assert_int_equal(cli("run --backend cpu --shape %s --planted-unknown", outside[i]), 2);
    assert_true(err_has("--shape"));
    assert_false(file_has("err", "--planted-unknown"));
  }
  /* the limits the usage text documents are the ones enforced */
  assert_int_equal(cli("run --help"), 0);
  assert_true(file_has("out", "B, H in 1..65535, Sq >= 1, Skv >= 0; Sq*H and Skv*H < 2^23; "
                              "B*H*Sq < 2^31"));
}

/* Without a GPU, `bench` with the default backend ran the performance shapes on the cpu
 * reference, for hours. Now auto on a host backend refuses; naming the
 * backend runs. GPUs are hidden so that the machine running the test does not matter. */
static void test_cli_bench_refuses_the_host_backend_unless_named(void **state) {
  static const char *const no_gpu =
      "CUDA_VISIBLE_DEVICES= HIP_VISIBLE_DEVICES= ROCR_VISIBLE_DEVICES= ATTNGEN_BACKEND=";
  assert_int_equal(cli_env(no_gpu, "bench --iters 1"), 1);
  assert_true(err_has("no GPU backend"));
  assert_true(err_has("--backend cpu"));
  assert_false(file_has("out", "shape(s)"));
  assert_int_equal(cli_env(no_gpu, "bench --shapes sweep --iters 1"), 1);
  assert_int_equal(cli_env(no_gpu, "bench --backend cpu --shape 1,1,16 --iters 1"), 0);
  assert_true(file_has("out", "1 shape(s), 0 failed"));
}

/* The "output:" line of the last run (its checksum), copied into buf. */
static void output_line(char *buf, size_t size) {
  const char *text = read_tmp("out");
  const char *o = strstr(text, "output:");
  assert_non_null(o);
  const char *e = strchr(o, '\n');
  snprintf(buf, size, "%.*s", (int)(e ? e - o : (long)strlen(o)), o);
}

/* `run --kv-lengths`: per-entry key lengths reach the call (all keys = the plain call's
 * output checksum; fewer keys another), on the reference and the emulator, with --causal too; a count
 * other than B or a non-integer is a usage error naming the option. */
static void test_cli_run_kv_lengths(void **state) {
  (void)state;
  char plain[256], full[256], cut[256];
  assert_int_equal(cli("run --backend cpu --shape 2,2,40,70"), 0);
  output_line(plain, sizeof plain);
  assert_int_equal(cli("run --backend cpu --shape 2,2,40,70 --kv-lengths 70,99"), 0);
  assert_true(out_has("kv_lengths=70,99"));
  output_line(full, sizeof full);
  assert_string_equal(full, plain); /* 99 is clamped to Skv: every key */
  assert_int_equal(cli("run --backend cpu --shape 2,2,40,70 --kv-lengths 30,70"), 0);
  output_line(cut, sizeof cut);
  assert_string_not_equal(cut, plain);
  /* the emulated kernel (within 1 ULP of the reference, so its own checksums) */
  assert_int_equal(cli("run --backend emu --shape 2,2,40,70"), 0);
  output_line(plain, sizeof plain);
  assert_int_equal(cli("run --backend emu --shape 2,2,40,70 --kv-lengths 70,70"), 0);
  output_line(full, sizeof full);
  assert_string_equal(full, plain);
  assert_int_equal(cli("run --backend emu --shape 2,2,40,70 --kv-lengths 30,70"), 0);
  output_line(cut, sizeof cut);
  assert_string_not_equal(cut, plain);
  assert_int_equal(cli("run --backend emu --shape 2,2,40,70 --kv-lengths 30,-4 --causal"), 0);
  assert_true(out_has("causal kv_lengths=30,-4"));
  assert_int_equal(cli("run --backend cpu --shape 2,2,40,70 --kv-lengths 30"), 2);
  assert_true(err_has("--kv-lengths gives 1 values (allowed: one per batch entry, B = 2)"));
  assert_int_equal(cli("run --backend cpu --shape 2,2,40,70 --kv-lengths 30,x"), 2);
  assert_true(err_has("--kv-lengths 30,x: expected at most 2 comma-separated integers"));
  assert_int_equal(cli("run --backend cpu --shape 2,2,40,70 --kv-lengths 30,"), 2);
  assert_true(err_has("--kv-lengths 30,: a value is missing after the last ','"));
}

/* `run --seqlens`: a packed batch (cu_seqlens made from the lengths); one sequence gives the
 * dense call's output (same inputs, checksums equal) on the reference and the emulator; the
 * batch's totals and maxima are reported; what is missing or does not fit is a usage error. */
static void test_cli_run_packed(void **state) {
  (void)state;
  char dense[256], packed[256];
  const char *backends[] = {"cpu", "emu"};
  for (int i = 0; i < 2; i++) {
    assert_int_equal(cli("run --backend %s --shape 1,2,40,70", backends[i]), 0);
    output_line(dense, sizeof dense);
    assert_int_equal(cli("run --backend %s --seqlens 40 --kv-seqlens 70 --heads 2", backends[i]), 0);
    assert_true(out_has("packed batch of 1 sequences (total 40 query, 70 key rows; longest 40 / 70) H=2"));
    output_line(packed, sizeof packed);
    assert_string_equal(packed, dense);
  }
  assert_int_equal(cli("run --backend emu --seqlens 5,40,0,17 --heads 4 --heads-kv 2 --causal"), 0);
  assert_true(out_has("total 62 query, 62 key rows; longest 40 / 40) H=4 D=128 bshd rtne"));
  assert_true(out_has("heads_kv=2 causal"));
  assert_true(out_has("output:   31744 of 31744 elements finite"));
  assert_int_equal(cli("run --backend cpu --seqlens 5,40"), 2);
  assert_true(err_has("--seqlens needs --heads N"));
  assert_int_equal(cli("run --backend cpu --seqlens 5,40 --heads 2 --layout bhsd"), 2);
  assert_true(err_has("--layout bhsd with --seqlens (allowed: bshd"));
  assert_int_equal(cli("run --backend cpu --seqlens 0,0 --heads 2"), 2);
  assert_true(err_has("at least one query length > 0"));
  assert_int_equal(cli("run --backend cpu --seqlens 4,5 --kv-seqlens 4 --heads 2"), 2);
  assert_true(err_has("--seqlens gives 2 lengths (longest 5), --kv-seqlens 1"));
  assert_int_equal(cli("run --backend cpu --seqlens 4 --heads 2 --heads-kv 3"), 2);
  assert_true(err_has("--heads-kv 3 does not divide --heads 2"));
  assert_int_equal(cli("run --backend cpu"), 2);
  assert_true(err_has("no call given"));
}

/* `info` shows the tuning file: absent, unusable (why), or its machine and its records per
 * kind of call. */
static void test_cli_info_shows_tuning_kinds(void **state) {
  (void)state;
  char path[300];
  snprintf(path, sizeof path, "%s/t.db", tmp);
  unlink(path);
  assert_int_equal(cli("info"), 0);
  assert_true(out_has("t.db (absent)"));
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  fputs("attngen-tuning 2\nmeta attngen_version 0.1.0\nmeta target sm90\n"
        "meta device NVIDIA H200\nmeta cu_count 132\nmeta runtime cuda 13000\n"
        "record bshd rtne 128 none 2 24 24 8192 8192 attn_fwd_a 1.5 400\n"
        "record bshd rtne 128 none 1 24 24 4096 4096 attn_fwd_b 0.5 400\n"
        "record bshd rtne 64 causal 1 32 8 8192 8192 attn_fwd_c 1.0 300\n", f);
  fclose(f);
  assert_int_equal(cli("info"), 0);
  assert_true(out_has("t.db (3 records, tuned on sm90: NVIDIA H200, 132 compute units, cuda 13000"));
  assert_true(out_has("  head_dim 128, no mask, MHA: 2 records\n"));
  assert_true(out_has("  head_dim 64, causal, 4 query heads per KV head: 1 record\n"));
  f = fopen(path, "w");
  assert_non_null(f);
  fputs("junk\n", f);
  fclose(f);
  assert_int_equal(cli("info"), 0);
  assert_true(out_has("t.db (unusable: "));
  assert_true(out_has("not a tuning database"));
  unlink(path);
}

/* `bench` times calls of every kind: --head-dim, --heads-kv and --causal on --shape calls
 * (the kind in the row, TFLOP/s with D and the kept pairs), the SHAPES.md groups prefill /
 * hd64 / hd256 with their own kinds; bad values are usage errors naming the option. */
static void test_cli_bench_kinds(void **state) {
  (void)state;
  assert_int_equal(cli("bench --backend cpu --shape 1,4,17,33 --head-dim 64 --heads-kv 2 "
                       "--causal --iters 1"), 0);
  assert_true(file_has("out", "D mask H_kv"));
  assert_true(file_has("out", "1,4,17,33              64 causal 2"));
  assert_true(file_has("out", "1 shape(s), 0 failed"));
  assert_int_equal(cli("bench --backend cpu --shape 1,4,17,33 --head-dim 96 --iters 1"), 2);
  assert_true(err_has("--head-dim 96 is not supported (allowed: 64, 128, 256)"));
  assert_int_equal(cli("bench --backend cpu --shape 1,4,17,33 --heads-kv 3 --iters 1"), 2);
  assert_true(err_has("--heads-kv 3 does not divide the 4 heads of --shape 1,4,17,33"));
  assert_int_equal(cli("bench --help"), 0);
  assert_true(file_has("out", "prefill, hd64, hd256, all"));
  assert_int_equal(cli("bench --backend cpu --shapes llm --iters 1"), 2);
  assert_true(err_has("prefill, hd64, hd256"));
}

/* A cache directory that does not fit is refused, never truncated (5000 bytes were cut to
 * 4095 and used). */
static void test_cli_long_cache_dir_is_refused(void **state) {
  static char big[5001], env[5100];
  memset(big, 'd', 5000);
  big[0] = '/';
  big[5000] = 0;
  assert_int_equal(cli("cache ls --dir '%s'", big), 2);
  assert_true(err_has("--dir: allowed: a non-empty value of at most 4000 bytes"));
  snprintf(env, sizeof env, "ATTNGEN_CACHE_DIR='%s'", big);
  assert_int_equal(cli_env(env, "cache ls"), 1);
  assert_true(err_has("longer than 4000 bytes"));
  assert_int_equal(cli_env(env, "run --backend cpu --shape 1,1,16"), 1);
  assert_true(err_has("ATTNGEN_CACHE_DIR is 5000 bytes long"));
}

/* After `tune --backend cpu` wrote the database, an emu tune into it failed with a message
 * pointing at `attngen tune` itself; it names --replace and -o now, and --replace works. */
static void test_cli_tune_over_another_backends_database(void **state) {
  static const char *const v = "attn_fwd_d128_bshd_rtne_q2_kv96_w8_nosplit_vt_mfma_gfx942";
  assert_int_equal(cli("tune --backend cpu --shape 1,1,16 --iters 1 --warmup 0 -o %s/x.db", tmp),
                   0);
  assert_int_equal(cli("tune --backend emu --shape 1,1,16 --iters 1 --warmup 0 --variants %s "
                       "-o %s/x.db", v, tmp), 1);
  assert_true(err_has("another machine or backend"));
  assert_true(err_has("--replace overwrites it"));
  assert_false(file_has("err", "run `attngen tune`"));
  assert_int_equal(cli("tune --backend emu --shape 1,1,16 --iters 1 --warmup 0 --variants %s "
                       "-o %s/x.db --replace", v, tmp), 0);
}

/* `check --all` takes no call options (the case set decides them), no cpu backend (no
 * variants), and its own options need it; `compile --emu` is for gfx942 only. Each exits 2
 * naming the option, before any work. */
static void test_cli_check_all_and_compile_emu_usage_errors_exit_2(void **state) {
  assert_int_equal(cli("check --all --backend emu --shape 1,1,16,16"), 2);
  assert_true(err_has("--all and --shape exclude each other"));
  assert_int_equal(cli("check --all --backend emu --special"), 2);
  assert_true(err_has("--all and --special exclude each other"));
  assert_int_equal(cli("check --all --backend cpu"), 2);
  assert_true(err_has("backend 'cpu' has none"));
  assert_int_equal(cli("check --backend emu --shape 1,1,16,16 --filter '*'"), 2);
  assert_true(err_has("--filter needs --all"));
  assert_int_equal(cli("check --all --backend emu -j 0"), 2);
  assert_true(err_has("-j"));
  assert_int_equal(cli("check --backend emu"), 2);
  assert_true(err_has("(or --all)"));
  assert_int_equal(cli("check --all --backend emu --heads-kv 1"), 2);
  assert_true(err_has("--all and --heads-kv exclude each other"));
  assert_int_equal(cli("check --backend cpu --shape 1,6,8,8 --heads-kv 4"), 2);
  assert_true(err_has("--heads-kv 4 does not divide the 6 heads"));
  assert_int_equal(cli("check --backend cpu --shape 1,6,8,8 --heads-kv 0"), 2);
  assert_true(err_has("--heads-kv"));
  assert_int_equal(cli("compile --emu --target sm90"), 2);
  assert_true(err_has("--emu compiles gfx942 variants only"));
  assert_int_equal(cli("compile --search-space --variant x"), 2);
  assert_true(err_has("--search-space and --variant exclude each other"));
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test_setup_teardown(test_cli_check_all_and_compile_emu_usage_errors_exit_2, setup,
                                    teardown),
    cmocka_unit_test_setup_teardown(test_cli_shape_overflow_is_a_usage_error_everywhere, setup,
                                    teardown),
    cmocka_unit_test_setup_teardown(test_cli_shape_syntax_is_shared, setup, teardown),
    cmocka_unit_test_setup_teardown(test_cli_run_usage_errors_exit_2, setup, teardown),
    cmocka_unit_test_setup_teardown(test_cli_check_skip, setup, teardown),
    cmocka_unit_test_setup_teardown(test_cli_shape_grammar_is_strict, setup, teardown),
    cmocka_unit_test_setup_teardown(test_cli_duplicate_options_are_refused, setup, teardown),
    cmocka_unit_test_setup_teardown(test_cli_scale_range_is_the_same_in_run_and_check, setup,
                                    teardown),
    cmocka_unit_test_setup_teardown(test_cli_shape_limits_are_the_library_caps, setup,
                                    teardown),
    cmocka_unit_test_setup_teardown(test_cli_bench_kinds, setup, teardown),
    cmocka_unit_test_setup_teardown(test_cli_run_kv_lengths, setup, teardown),
    cmocka_unit_test_setup_teardown(test_cli_run_packed, setup, teardown),
    cmocka_unit_test_setup_teardown(test_cli_info_shows_tuning_kinds, setup, teardown),
    cmocka_unit_test_setup_teardown(test_cli_bench_refuses_the_host_backend_unless_named,
                                    setup, teardown),
    cmocka_unit_test_setup_teardown(test_cli_long_cache_dir_is_refused, setup, teardown),
    cmocka_unit_test_setup_teardown(test_cli_tune_over_another_backends_database, setup,
                                    teardown),
    cmocka_unit_test_setup_teardown(test_cli_check_emu_and_nan_output, setup, teardown),
    cmocka_unit_test_setup_teardown(test_cli_check_seqlens, setup, teardown),
    cmocka_unit_test_setup_teardown(test_cli_cache_ls_and_clear, setup, teardown),
    cmocka_unit_test_setup_teardown(test_cli_list_search_space, setup, teardown),
    cmocka_unit_test_setup_teardown(test_cli_run_prints_variant_and_reason, setup, teardown),
    cmocka_unit_test_setup_teardown(test_cli_run_head_dim, setup, teardown),
    cmocka_unit_test_setup_teardown(test_cli_run_causal_gqa, setup, teardown),
    cmocka_unit_test_setup_teardown(test_cli_log_and_log_file, setup, teardown),
  };
  return attngen_test_exit(cmocka_run_group_tests(tests, NULL, NULL));
}
