/* test_runtime.c: the public API (runtime/src/api.c) on the host backends: contexts and
 * backend choice, attngen_fwd on cpu and emu against fp64 attention and hand values (never
 * the reference against itself), attngen_explain and the split plan against hand values,
 * every bad input with its own status and an untouched output, memory, events, timing,
 * status names. Run one test under valgrind with TEST_FILTER=<name>. */
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
#include <math.h>
#include <pthread.h>

#include "attngen.h"
#include "test_util.h"
#include "verify.h"

static attngen_context *cpu_context(void) {
  attngen_context_options o = {"cpu", 0};
  attngen_context *ctx = NULL;
  attngen_status st = attngen_create(&ctx, &o);
  if (st != ATTNGEN_STATUS_OK) print_message("%s\n", attngen_last_error());
  assert_int_equal(st, ATTNGEN_STATUS_OK);
  assert_non_null(ctx);
  return ctx;
}

/* Arguments of a B x H x Sq x Skv call without data (explain, plans). */
static attngen_fwd_args shape_args(int b, int h, int sq, int skv) {
  attngen_fwd_args a;
  attngen_fwd_args_init(&a);
  a.batch = b;
  a.heads = h;
  a.seqlen_q = sq;
  a.seqlen_kv = skv;
  return a;
}

/* ---- contexts ----------------------------------------------------------------------------- */

static void test_runtime_cpu_context(void **state) {
  attngen_context *ctx = cpu_context();
  attngen_device_props p;
  assert_int_equal(attngen_device_info(ctx, &p), ATTNGEN_STATUS_OK);
  assert_string_equal(p.backend, "cpu");
  assert_string_equal(p.target, "reference");
  assert_true(p.compute_units >= 1);
  attngen_destroy(ctx);
  attngen_destroy(NULL);
}

static void test_runtime_unknown_backend(void **state) {
  attngen_context_options o = {"opencl", 0};
  attngen_context *ctx = (attngen_context *)&o;
  assert_int_equal(attngen_create(&ctx, &o), ATTNGEN_STATUS_INVALID_ARGUMENT);
  assert_null(ctx);
  assert_non_null(strstr(attngen_last_error(), "\"opencl\""));
  assert_non_null(strstr(attngen_last_error(), "allowed: auto, cuda, hip, emu, cpu"));
  assert_int_equal(attngen_create(NULL, &o), ATTNGEN_STATUS_NULL_POINTER);
}

/* A GPU backend that cannot load or finds no device fails with a status, never a crash. */
static void test_runtime_missing_gpu_backend_fails_cleanly(void **state) {
  static const char *const names[] = {"cuda", "hip"};
  for (int i = 0; i < 2; i++) {
    attngen_context_options o = {names[i], 0};
    attngen_context *ctx = NULL;
    attngen_status st = attngen_create(&ctx, &o);
    if (st == ATTNGEN_STATUS_OK) { /* a machine with that GPU */
      attngen_destroy(ctx);
      continue;
    }
    assert_true(st == ATTNGEN_STATUS_NO_BACKEND || st == ATTNGEN_STATUS_NO_DEVICE);
    assert_null(ctx);
    assert_non_null(strstr(attngen_last_error(), names[i]));
  }
  /* A device ordinal that does not exist. */
  attngen_context_options o = {"cpu", 3};
  attngen_context *ctx = NULL;
  assert_int_equal(attngen_create(&ctx, &o), ATTNGEN_STATUS_NO_DEVICE);
  assert_non_null(strstr(attngen_last_error(), "device 3"));
}

static void test_runtime_auto_and_env_backend(void **state) {
  unsetenv("ATTNGEN_BACKEND");
  attngen_context *ctx = NULL;
  assert_int_equal(attngen_create(&ctx, NULL), ATTNGEN_STATUS_OK);
  attngen_device_props p;
  attngen_device_info(ctx, &p);
  assert_true(!strcmp(p.backend, "cuda") || !strcmp(p.backend, "hip") || !strcmp(p.backend, "cpu"));
  attngen_destroy(ctx);
  setenv("ATTNGEN_BACKEND", "cpu", 1);
  assert_int_equal(attngen_create(&ctx, NULL), ATTNGEN_STATUS_OK);
  attngen_device_info(ctx, &p);
  assert_string_equal(p.backend, "cpu");
  attngen_destroy(ctx);
  setenv("ATTNGEN_BACKEND", "nonsense", 1);
  assert_int_equal(attngen_create(&ctx, NULL), ATTNGEN_STATUS_INVALID_ARGUMENT);
  assert_non_null(strstr(attngen_last_error(), "ATTNGEN_BACKEND"));
  attngen_context_options o = {"cpu", 0}; /* options win over the environment */
  assert_int_equal(attngen_create(&ctx, &o), ATTNGEN_STATUS_OK);
  attngen_destroy(ctx);
  unsetenv("ATTNGEN_BACKEND");
}

/* One rule for the environment: a malformed ATTNGEN_* value fails attngen_create with
 * INVALID_ARGUMENT naming the variable, the value and the allowed values (ATTNGEN_TUNING=no
 * and ATTNGEN_EMU_CUS=lots were silently ignored, ATTNGEN_LOG=9 only warned). */
static void test_runtime_malformed_env_fails_create(void **state) {
  static const char *const cases[][3] = {
    {"ATTNGEN_TUNING", "no", "0, 1"},
    {"ATTNGEN_JIT", "off", "0, 1"},
    {"ATTNGEN_LOG", "9", "0..3"},
    {"ATTNGEN_EMU_CUS", "lots", "1..1024"},
    {"ATTNGEN_EMU_SEED", "-1", "0..2147483647"},
    {"ATTNGEN_EMU_RACECHECK", "maybe", "0, 1"},
    {"ATTNGEN_EMU_STACK", "12", "16384.."},
    {"ATTNGEN_JIT_LOCK_TIMEOUT", "soon", "seconds"},
    {"ATTNGEN_CAUSAL_ORDER", "4", "0..3"},
  };
  attngen_context_options o = {"cpu", 0};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    setenv(cases[i][0], cases[i][1], 1);
    attngen_context *ctx = (attngen_context *)&o;
    assert_int_equal(attngen_create(&ctx, &o), ATTNGEN_STATUS_INVALID_ARGUMENT);
    assert_null(ctx);
    const char *msg = attngen_last_error();
    assert_non_null(strstr(msg, cases[i][0]));
    assert_non_null(strstr(msg, cases[i][1]));
    assert_non_null(strstr(msg, cases[i][2]));
    unsetenv(cases[i][0]);
  }
  setenv("ATTNGEN_TUNING", "", 1); /* empty = unset = the default */
  attngen_context *ctx = NULL;
  assert_int_equal(attngen_create(&ctx, &o), ATTNGEN_STATUS_OK);
  attngen_destroy(ctx);
  unsetenv("ATTNGEN_TUNING");
}

/* The environment is read once, when the context is created: a later ATTNGEN_VARIANT does
 * not change the running context; a new context sees it. */
static void test_runtime_env_read_at_create(void **state) {
  unsetenv("ATTNGEN_VARIANT");
  attngen_context *ctx = cpu_context();
  setenv("ATTNGEN_VARIANT", "attn_fwd_d128_bshd_rtne_q1_kv64_w4_nosplit_mma_sm90", 1);
  attngen_fwd_args a = shape_args(1, 1, 16, 16);
  attngen_choice ch;
  assert_int_equal(attngen_explain(ctx, &a, &ch), ATTNGEN_STATUS_OK);
  assert_int_equal(ch.rule, ATTNGEN_RULE_HEURISTIC);
  attngen_destroy(ctx);
  ctx = cpu_context();
  assert_int_equal(attngen_explain(ctx, &a, &ch), ATTNGEN_STATUS_NO_VARIANT);
  assert_non_null(strstr(attngen_last_error(), "ATTNGEN_VARIANT"));
  attngen_destroy(ctx);
  unsetenv("ATTNGEN_VARIANT");
}

/* The dispatcher reads the tuning database at run time (README, Tuning): a record for the
 * exact shape, written for this device, picks its variant (rule TUNING) over the
 * heuristic's; ATTNGEN_TUNING=0 ignores the file. Both had no test (issue 29). */
static void test_runtime_tuning_db_read_at_run_time(void **state) {
  (void)state;
  char dir[256], path[320];
  assert_int_equal(attngen_test_make_tmpdir(dir, sizeof dir, "attngen-rt-tuning"), 0);
  snprintf(path, sizeof path, "%s/tuning.db", dir);
  setenv("ATTNGEN_EMU_CUS", "8", 1);
  unsetenv("ATTNGEN_TUNING_FILE");
  unsetenv("ATTNGEN_TUNING");
  attngen_context_options o = {"emu", 0};
  attngen_context *ctx = NULL;
  assert_int_equal(attngen_create(&ctx, &o), ATTNGEN_STATUS_OK);
  attngen_device_props props;
  assert_int_equal(attngen_device_info(ctx, &props), ATTNGEN_STATUS_OK);
  attngen_fwd_args a = shape_args(1, 1, 16, 16);
  attngen_choice ch;
  assert_int_equal(attngen_explain(ctx, &a, &ch), ATTNGEN_STATUS_OK);
  assert_int_equal(ch.rule, ATTNGEN_RULE_HEURISTIC);
  const char *tuned = "attn_fwd_d128_bshd_rtne_q2_kv96_w8_tail_vt_mfma_gfx942";
  assert_string_not_equal(ch.variant, tuned);
  attngen_destroy(ctx);

  attngen__tuning_meta meta;
  attngen__tuning_meta_from_device(&props, &meta);
  attngen__tuning_record r;
  memset(&r, 0, sizeof r);
  r.layout = ATTNGEN_LAYOUT_BSHD;
  r.rounding = ATTNGEN_ROUND_RTNE;
  r.batch = r.heads = 1;
  r.seqlen_q = r.seqlen_kv = 16;
  snprintf(r.variant, sizeof r.variant, "%s", tuned);
  r.time_ms = 1.0;
  attngen__tuning_diag d;
  assert_int_equal(attngen__tuning_db_merge_file(path, &meta, &r, 1, 0, &d), ATTNGEN_STATUS_OK);
  setenv("ATTNGEN_TUNING_FILE", path, 1);
  assert_int_equal(attngen_create(&ctx, &o), ATTNGEN_STATUS_OK);
  assert_int_equal(attngen_explain(ctx, &a, &ch), ATTNGEN_STATUS_OK);
  assert_int_equal(ch.rule, ATTNGEN_RULE_TUNING);
  assert_string_equal(ch.variant, tuned);
  attngen_destroy(ctx);
  setenv("ATTNGEN_TUNING", "0", 1);
  assert_int_equal(attngen_create(&ctx, &o), ATTNGEN_STATUS_OK);
  assert_int_equal(attngen_explain(ctx, &a, &ch), ATTNGEN_STATUS_OK);
  assert_int_equal(ch.rule, ATTNGEN_RULE_HEURISTIC);
  assert_string_not_equal(ch.variant, tuned);
  attngen_destroy(ctx);
  unsetenv("ATTNGEN_TUNING");
  unsetenv("ATTNGEN_TUNING_FILE");
  unsetenv("ATTNGEN_EMU_CUS");
  attngen_test_remove_tree(dir);
}

/* ---- forward on the cpu backend -------------------------------------------------------------- */

#include "test_problem.h"

/* attngen_fwd against things independent of the reference (the cpu backend IS the
 * reference, so comparing them bit for bit could not fail): exact fp64 attention (relative
 * L2 of the output through attngen__verify_run, which every check shares, and the LSE
 * element by element) on cpu and emu, and hand values below. */
static void test_runtime_fwd_against_fp64(void **state) {
  static const char *const backends[] = {"cpu", "emu"};
  static const attngen_layout layouts[] = {ATTNGEN_LAYOUT_BSHD, ATTNGEN_LAYOUT_BHSD};
  static const attngen_rounding modes[] = {ATTNGEN_ROUND_RTNE, ATTNGEN_ROUND_RTNA, ATTNGEN_ROUND_RTZ};
  for (int bi = 0; bi < 2; bi++) {
    attngen_context_options o = {backends[bi], 0};
    attngen_context *ctx = NULL;
    assert_int_equal(attngen_create(&ctx, &o), ATTNGEN_STATUS_OK);
    for (int li = 0; li < 2; li++) {
      for (int mi = 0; mi < 3; mi++) {
        problem p;
        const int b = 2, h = 3, sq = 37, skv = 70;
        problem_make(&p, layouts[li], modes[mi], b, h, sq, skv, 11 + li * 3 + mi);
        assert_int_equal(attngen_fwd(ctx, &p.a), ATTNGEN_STATUS_OK);
        assert_int_equal(attngen_synchronize(ctx, NULL), ATTNGEN_STATUS_OK);
        attngen__verify_args va = {ctx, &p.a, &p.in, p.out, p.lse, 1, 0, NULL};
        attngen__verify_result vr;
        assert_int_equal(attngen__verify_run(&va, &vr), ATTNGEN_STATUS_OK);
        assert_int_equal(vr.out.unwritten, 0);
        assert_int_equal(vr.out.exact_mismatch, 0);
        assert_true(vr.out.rel_l2 > 0 && vr.out.rel_l2 <= 1e-2);
        /* LSE against fp64: m ln 2 + ln l in fp32 (l sums unrounded p) */
        const size_t nl = (size_t)b * h * sq;
        double *exact = malloc((size_t)b * h * sq * 128 * sizeof(double));
        double *lse64 = malloc(nl * sizeof(double));
        assert_non_null(exact);
        assert_non_null(lse64);
        attngen__exact_args e = {attngen__inputs_q(&p.in), attngen__inputs_k(&p.in),
                                 attngen__inputs_v(&p.in),
                                 attngen__view_f64(exact, layouts[li], h, sq), b, h, sq, skv,
                                 p.a.softmax_scale, lse64, 1};
        assert_int_equal(attngen__exact_fwd(&e), ATTNGEN_STATUS_OK);
        for (size_t i = 0; i < nl; i++)
          assert_true(fabs(p.lse[i] - lse64[i]) <= 1e-4 + 1e-5 * fabs(lse64[i]));
        free(exact);
        free(lse64);
        problem_free(&p);
      }
    }
    attngen_destroy(ctx);
  }
}

/* Hand values, every rounding mode, cpu and emu. scale = ln 2 (as a float) makes
 * scale * log2(e) = 1.0f, so t = s. q = e0; keys k0 = 0, k1 = k2 = -e0: t = 0, -1, -1, so
 * p = 1, 1/2, 1/2 (exact), l = 2, o = (v0 + (v1 + v2) / 2) / 2 exactly in fp32; LSE = ln 2.
 * Columns: v = (1, 1, 1) -> 1; (1, 0, 0) -> 1/2; (1/2, -1/2, -1/2) -> 0;
 * (1 + 2^-7, 2^-7, 0) -> 0.505859375, halfway between bf16 0x3F01 and 0x3F02 (RTNE and RTNA
 * 0x3F02, RTZ 0x3F01); (1, 2^-7, 0) -> 0.501953125, halfway between 0x3F00 and 0x3F01 (RTNE
 * 0x3F00, the even one; RTNA 0x3F01; RTZ 0x3F00); every other column 0. */
static void test_runtime_fwd_hand_values(void **state) {
  static const char *const backends[] = {"cpu", "emu"};
  static const uint16_t want[3][5] = {{0x3F80, 0x3F00, 0x0000, 0x3F02, 0x3F00},
                                      {0x3F80, 0x3F00, 0x0000, 0x3F02, 0x3F01},
                                      {0x3F80, 0x3F00, 0x0000, 0x3F01, 0x3F00}};
  static const uint16_t v[3][5] = {{0x3F80, 0x3F80, 0x3F00, 0x3F81, 0x3F80},
                                   {0x3F80, 0x0000, 0xBF00, 0x3C00, 0x3C00},
                                   {0x3F80, 0x0000, 0xBF00, 0x0000, 0x0000}};
  _Alignas(64) uint16_t q[128] = {0}, k[3 * 128] = {0}, vv[3 * 128] = {0}, out[128];
  q[0] = 0x3F80;         /* 1 */
  k[128] = 0xBF80;       /* k1 = -e0 */
  k[256] = 0xBF80;       /* k2 = -e0 */
  for (int j = 0; j < 3; j++)
    for (int d = 0; d < 5; d++) vv[j * 128 + d] = v[j][d];
  for (int bi = 0; bi < 2; bi++) {
    attngen_context_options o = {backends[bi], 0};
    attngen_context *ctx = NULL;
    assert_int_equal(attngen_create(&ctx, &o), ATTNGEN_STATUS_OK);
    for (int mode = 0; mode < 3; mode++) {
      attngen_fwd_args a;
      attngen_fwd_args_init(&a);
      _Alignas(16) float lse[4];
      memset(out, 0xFF, sizeof out);
      a.q = q;
      a.k = k;
      a.v = vv;
      a.out = out;
      a.lse = lse;
      a.batch = a.heads = a.seqlen_q = 1;
      a.seqlen_kv = 3;
      a.rounding = (attngen_rounding)mode;
      a.softmax_scale = 0.693147182464599609375f;
      attngen_status st = attngen_fwd(ctx, &a);
      if (st == ATTNGEN_STATUS_OK) st = attngen_synchronize(ctx, NULL);
      if (st != ATTNGEN_STATUS_OK) print_message("%s: %s\n", backends[bi], attngen_last_error());
      assert_int_equal(st, ATTNGEN_STATUS_OK);
      for (int d = 0; d < 128; d++) {
        const uint16_t w = d < 5 ? want[mode][d] : 0;
        if (out[d] != w)
          print_message("%s mode %d d=%d: 0x%04x, expected 0x%04x\n", backends[bi], mode, d,
                        out[d], w);
        assert_int_equal(out[d], w);
      }
      assert_true(fabsf(lse[0] - 0.693147182f) <= 1e-6f);
    }
    attngen_destroy(ctx);
  }
}

/* An empty KV range reads nothing from k and v, and the data pointer of an empty tensor may
 * be NULL (PyTorch's are): on every host backend, with k and v given and NULL, O = 0 and
 * LSE = -inf. */
static void test_runtime_empty_kv_accepts_null_k_v(void **state) {
  static const char *const backends[] = {"cpu", "emu"};
  for (int run = 0; run < 4; run++) {
    const char *backend = backends[run / 2];
    const int null_kv = run % 2;
    attngen_context_options o = {backend, 0};
    attngen_context *ctx = NULL;
    assert_int_equal(attngen_create(&ctx, &o), ATTNGEN_STATUS_OK);
    problem p;
    problem_make(&p, null_kv ? ATTNGEN_LAYOUT_BHSD : ATTNGEN_LAYOUT_BSHD,
                 null_kv ? ATTNGEN_ROUND_RTZ : ATTNGEN_ROUND_RTNE, 1, 2, 5, 0, 3);
    if (null_kv) {
      p.a.k = NULL;
      p.a.v = NULL;
    }
    memset(p.out, 0x55, (size_t)2 * 5 * 128 * 2);
    attngen_status st = attngen_fwd(ctx, &p.a);
    if (st != ATTNGEN_STATUS_OK)
      print_message("%s, k/v %s: %s\n", backend, null_kv ? "NULL" : "given", attngen_last_error());
    assert_int_equal(st, ATTNGEN_STATUS_OK);
    for (size_t i = 0; i < (size_t)2 * 5 * 128; i++) assert_int_equal(p.out[i], 0);
    for (int i = 0; i < 10; i++) assert_true(isinf(p.lse[i]) && p.lse[i] < 0);
    if (null_kv) { /* k is still required when there are keys to read */
      p.a.seqlen_kv = 1;
      assert_int_equal(attngen_fwd(ctx, &p.a), ATTNGEN_STATUS_NULL_POINTER);
      assert_non_null(strstr(attngen_last_error(), "args.k"));
    }
    problem_free(&p);
    attngen_destroy(ctx);
  }
}

/* The allocation size is rounded up to 64 bytes: sizes near SIZE_MAX must fail, not wrap to
 * a tiny block. */
static void test_runtime_malloc_size_overflow(void **state) {
  static const char *const backends[] = {"cpu", "emu"};
  for (int bi = 0; bi < 2; bi++) {
    attngen_context_options o = {backends[bi], 0};
    attngen_context *ctx = NULL;
    assert_int_equal(attngen_create(&ctx, &o), ATTNGEN_STATUS_OK);
    const size_t sizes[] = {SIZE_MAX, SIZE_MAX - 1, SIZE_MAX - 62};
    for (int i = 0; i < 3; i++) {
      void *ptr = (void *)&o;
      assert_int_equal(attngen_malloc(ctx, sizes[i], &ptr), ATTNGEN_STATUS_OUT_OF_MEMORY);
      assert_null(ptr);
      assert_non_null(strstr(attngen_last_error(), "bytes"));
    }
    attngen_destroy(ctx);
  }
}

static void test_runtime_cpu_explain(void **state) {
  attngen_context *ctx = cpu_context();
  attngen_fwd_args a = shape_args(1, 1, 16, 16);
  attngen_choice ch;
  assert_int_equal(attngen_explain(ctx, &a, &ch), ATTNGEN_STATUS_OK);
  assert_string_equal(ch.variant, "reference");
  assert_int_equal(ch.rule, ATTNGEN_RULE_HEURISTIC);
  assert_string_equal(ch.rule_name, "heuristic");
  assert_true(ch.embedded);
  assert_false(ch.needs_jit);
  a.variant = "attn_fwd_d128_bshd_rtne_q2_kv64_w8_tail_mfma_gfx942";
  assert_int_equal(attngen_explain(ctx, &a, &ch), ATTNGEN_STATUS_NO_VARIANT);
  assert_non_null(strstr(attngen_last_error(), "args.variant"));
  a.variant = "reference";
  assert_int_equal(attngen_explain(ctx, &a, &ch), ATTNGEN_STATUS_OK);
  assert_int_equal(ch.rule, ATTNGEN_RULE_FORCED);
  a.variant = NULL;
  a.head_dim = 64; /* the reference takes every head_dim of the axis */
  assert_int_equal(attngen_explain(ctx, &a, &ch), ATTNGEN_STATUS_OK);
  a.head_dim = 96;
  assert_int_equal(attngen_explain(ctx, &a, &ch), ATTNGEN_STATUS_UNSUPPORTED_HEAD_DIM);
  attngen_destroy(ctx);
}

/* attngen__ref_follow_call on the cpu backend: the reference defaults. */
static void test_runtime_cpu_ref_follow_call(void **state) {
  (void)state;
  attngen_context *ctx = cpu_context();
  attngen_fwd_args a = shape_args(1, 2, 16, 1000);
  attngen__ref_args r;
  memset(&r, 0, sizeof r);
  r.kv_step = 7;
  unsigned char *rows = (unsigned char *)&r;
  char variant[64];
  assert_int_equal(attngen__ref_follow_call(ctx, &a, &r, &rows, variant, sizeof variant),
                   ATTNGEN_STATUS_OK);
  assert_string_equal(variant, "reference");
  assert_int_equal(r.kv_step, 0);
  assert_int_equal(r.kv_per_split, 0);
  assert_null(r.split_rows);
  assert_null(rows);
  a.seqlen_q = 0;
  assert_int_equal(attngen__ref_follow_call(ctx, &a, &r, &rows, NULL, 0), ATTNGEN_STATUS_BAD_SHAPE);
  assert_int_equal(attngen__ref_follow_call(ctx, &a, &r, NULL, NULL, 0),
                   ATTNGEN_STATUS_NULL_POINTER);
  attngen_destroy(ctx);
}

/* The tail KV split on the emu backend (8 compute units): the launch of a tail variant is
 * the planner's (grid, parts, workspace), a nosplit variant keeps (q-blocks, H, B), the
 * dispatcher may pick tail variants, and attngen__ref_follow_call hands the reference the
 * variant's softmax step and the split rows of the plan. */
static void test_runtime_emu_tail_split_plan(void **state) {
  (void)state;
  setenv("ATTNGEN_EMU_CUS", "8", 1);
  attngen_context_options o = {"emu", 0};
  attngen_context *ctx = NULL;
  attngen_status st = attngen_create(&ctx, &o);
  unsetenv("ATTNGEN_EMU_CUS");
  /* the emu backend is part of every build (without kernels it still plans) */
  if (st != ATTNGEN_STATUS_OK) fail_msg("emu backend: %s", attngen_last_error());
  /* 9 jobs on 8 slots: a full round, then the last job alone */
  attngen_fwd_args a = shape_args(1, 9, 100, 1000);
  a.variant = "attn_fwd_d128_bshd_rtne_q2_kv64_w8_tail_mfma_gfx942";
  /* The plan by hand (split_plan.h's rule; it was taken from attngen__split_plan_make itself):
   * 9 q-jobs (Sq 100 <= block_m 256) on 8 slots: one full round, then 1 job alone; 16 KV
   * tiles of 64; n = min(8 slots / 1 job, 16 / 4 tiles per part, 16) = 4 parts of 4 tiles =
   * 256 keys. Grid: 8 whole jobs + 1 x 4 parts = 12 blocks; workspace: 4 parts x 256 rows. */
  attngen_choice ch;
  assert_int_equal(attngen_explain(ctx, &a, &ch), ATTNGEN_STATUS_OK);
  assert_int_equal(ch.grid[0], 12);
  assert_int_equal(ch.grid[1], 1);
  assert_int_equal(ch.grid[2], 1);
  assert_int_equal(ch.num_splits, 4);
  assert_int_equal(ch.workspace_bytes, 4 * 256 * (128 + 2) * 4); /* O row + (m, l), fp32 */

  attngen__ref_args r;
  memset(&r, 0, sizeof r);
  unsigned char *rows = NULL;
  char variant[128];
  assert_int_equal(attngen__ref_follow_call(ctx, &a, &r, &rows, variant, sizeof variant),
                   ATTNGEN_STATUS_OK);
  assert_string_equal(variant, a.variant);
  assert_int_equal(r.kv_step, 64);
  assert_int_equal(r.kv_per_split, 256);
  assert_non_null(rows);
  assert_ptr_equal(r.split_rows, rows);
  for (int h = 0; h < 9; ++h)
    for (int s = 0; s < 100; ++s) assert_int_equal(rows[h * 100 + s], h == 8);
  free(rows);

  a.variant = "attn_fwd_d128_bshd_rtne_q3_kv32_w8_nosplit_mfma_gfx942";
  assert_int_equal(attngen_explain(ctx, &a, &ch), ATTNGEN_STATUS_OK);
  assert_int_equal(ch.grid[0], 1);
  assert_int_equal(ch.grid[1], 9);
  assert_int_equal(ch.grid[2], 1);
  assert_int_equal(ch.num_splits, 1);
  assert_int_equal(ch.workspace_bytes, 0);
  assert_int_equal(attngen__ref_follow_call(ctx, &a, &r, &rows, NULL, 0), ATTNGEN_STATUS_OK);
  assert_int_equal(r.kv_step, 32);
  assert_int_equal(r.score_fma, 1);
  assert_int_equal(r.kv_per_split, 0);
  assert_null(rows);

  /* v_path=vt: the workspace holds V in operand order (16-key chunks of 4096 bytes per
   * (b, h)) before any split partials; the reference follows the variant's step and form */
  a.variant = "attn_fwd_d128_bshd_rtne_q2_kv96_w8_nosplit_vt_mfma_gfx942";
  assert_int_equal(attngen_explain(ctx, &a, &ch), ATTNGEN_STATUS_OK);
  assert_int_equal(ch.grid[0], 1);
  assert_int_equal(ch.grid[1], 9);
  assert_int_equal(ch.workspace_bytes, (size_t)9 * ((1000 + 15) / 16) * 4096);
  assert_int_equal(attngen__ref_follow_call(ctx, &a, &r, &rows, NULL, 0), ATTNGEN_STATUS_OK);
  assert_int_equal(r.kv_step, 96);
  assert_int_equal(r.score_fma, 1);
  assert_null(rows);
  /* by hand: 11 tiles of 96; n = min(8, 11 / 4, 16) = 2 parts of 6 tiles (576 keys) */
  a.variant = "attn_fwd_d128_bshd_rtne_q2_kv96_w8_tail_vt_mfma_gfx942";
  assert_int_equal(attngen_explain(ctx, &a, &ch), ATTNGEN_STATUS_OK);
  assert_int_equal(ch.num_splits, 2);
  assert_int_equal(ch.grid[0], 8 + 2);
  assert_int_equal(ch.workspace_bytes,
                   (size_t)9 * ((1000 + 15) / 16) * 4096 + 2 * 256 * (128 + 2) * 4);
  assert_int_equal(attngen__ref_follow_call(ctx, &a, &r, &rows, NULL, 0), ATTNGEN_STATUS_OK);
  assert_int_equal(r.kv_per_split, 576);
  free(rows);

  /* a badly filled single round with long KV: the heuristic takes a tail variant */
  a.variant = NULL;
  a.heads = 2;
  a.seqlen_kv = 4096;
  assert_int_equal(attngen_explain(ctx, &a, &ch), ATTNGEN_STATUS_OK);
  print_message("dispatcher on 1x2x100x4096: %s, %d parts (%s)\n", ch.variant, ch.num_splits,
                ch.reason);
  assert_non_null(strstr(ch.variant, "_tail_"));
  assert_true(ch.num_splits > 1);
  attngen_destroy(ctx);
}

/* ---- bad input: each its own status, the message names the argument, out untouched ----- */

static void bad(attngen_context *ctx, problem *p, attngen_status want, const char *mention) {
  attngen_status got = attngen_fwd(ctx, &p->a);
  if (got != want) print_message("got %s: %s\n", attngen_status_name(got), attngen_last_error());
  assert_int_equal(got, want);
  assert_non_null(strstr(attngen_last_error(), mention));
  assert_true(untouched(p));
}

#define BAD_INPUT_TEST(fn, mutate, status, mention)                                        \
  static void fn(void **state) {                                                          \
    attngen_context *ctx = cpu_context();                                                 \
    problem p;                                                                            \
    problem_make(&p, ATTNGEN_LAYOUT_BSHD, ATTNGEN_ROUND_RTNE, 2, 2, 16, 16, 5);           \
    mutate;                                                                               \
    bad(ctx, &p, status, mention);                                                        \
    problem_free(&p);                                                                     \
    attngen_destroy(ctx);                                                                 \
  }

BAD_INPUT_TEST(test_runtime_bad_null_q, p.a.q = NULL, ATTNGEN_STATUS_NULL_POINTER, "args.q")
BAD_INPUT_TEST(test_runtime_bad_null_v, p.a.v = NULL, ATTNGEN_STATUS_NULL_POINTER, "args.v")
BAD_INPUT_TEST(test_runtime_bad_head_dim, p.a.head_dim = 96, ATTNGEN_STATUS_UNSUPPORTED_HEAD_DIM,
               "args.head_dim = 96")
/* head_dim on the gfx942 kernels (emu): 64 and 256 dispatch to a variant of that head_dim
 * whose output and LSE pass the contract against the reference (both layouts, a partial KV
 * tile, scale 1/sqrt(head_dim)); at 256 also the causal mask (Sq < Skv), a causal kernel. */
static void test_runtime_head_dim_gfx942(void **state) {
  (void)state;
  attngen_context *ctx = NULL;
  attngen_context_options o = {"emu", 0};
  assert_int_equal(attngen_create(&ctx, &o), ATTNGEN_STATUS_OK);
  for (int ci = 0; ci < 6; ci++) {
    const attngen_layout layout = ci & 1 ? ATTNGEN_LAYOUT_BHSD : ATTNGEN_LAYOUT_BSHD;
    const int hd = ci < 2 ? 64 : 256;
    const float scale = hd == 64 ? 0.125f : 0.0625f;
    attngen_fwd_args a;
    attngen_fwd_args_init(&a);
    attngen__inputs in;
    assert_int_equal(attngen__inputs_make_hd(&in, ATTNGEN__INPUT_REALISTIC, 31 + ci, layout, 2, 2,
                                             2, 40, 70, hd, scale),
                     ATTNGEN_STATUS_OK);
    a.batch = 2;
    a.heads = 2;
    a.seqlen_q = 40;
    a.seqlen_kv = 70;
    a.head_dim = hd;
    a.softmax_scale = scale;
    a.layout = layout;
    a.rounding = ATTNGEN_ROUND_RTNE;
    a.causal = ci >= 4;
    attngen__verify_args va = {ctx, &a, &in, NULL, NULL, 1, 0, NULL, NULL};
    attngen__verify_result vr;
    assert_int_equal(attngen__verify_run(&va, &vr), ATTNGEN_STATUS_OK);
    assert_non_null(strstr(vr.variant, hd == 64 ? "attn_fwd_d64_" : "attn_fwd_d256_"));
    assert_true((strstr(vr.variant, "_causal_") != NULL) == (ci >= 4));
    assert_non_null(strstr(vr.variant, "_gfx942"));
    assert_true(vr.pass);
    assert_int_equal(vr.out.unwritten, 0);
    assert_true(vr.lse.count > 0);
    assert_true(vr.out.rel_l2 > 0 && vr.out.rel_l2 <= 1e-2);
    attngen__inputs_free(&in);
  }
  attngen_destroy(ctx);
}
/* head_dim 256 on the cpu backend (the reference the sm90 d256 kernels are held to): within
 * the fp64 bound, output and LSE, both layouts, grouped-query heads (4 over 2), per-batch key
 * lengths and the causal mask, scale 1/sqrt(256); every row written. */
static void test_runtime_head_dim_256_cpu(void **state) {
  (void)state;
  attngen_context *ctx = cpu_context();
  static const int32_t kvl[2] = {70, 9};
  for (int ci = 0; ci < 4; ci++) {
    const attngen_layout layout = ci & 1 ? ATTNGEN_LAYOUT_BHSD : ATTNGEN_LAYOUT_BSHD;
    attngen_fwd_args a;
    attngen_fwd_args_init(&a);
    a.batch = 2;
    a.heads = 4;
    a.heads_kv = 2;
    a.seqlen_q = 33;
    a.seqlen_kv = 70;
    a.head_dim = 256;
    a.softmax_scale = 0.0625f;
    a.layout = layout;
    a.rounding = ci < 2 ? ATTNGEN_ROUND_RTNE : ATTNGEN_ROUND_RTZ;
    a.causal = ci >= 2;
    attngen__inputs in;
    assert_int_equal(attngen__inputs_make_hd(&in, ATTNGEN__INPUT_REALISTIC, 41 + ci, layout, 2, 4,
                                             2, 33, 70, 256, a.softmax_scale),
                     ATTNGEN_STATUS_OK);
    attngen__verify_args va = {ctx, &a, &in, NULL, NULL, 1, 0, NULL, ci == 1 ? kvl : NULL};
    attngen__verify_result vr;
    assert_int_equal(attngen__verify_run(&va, &vr), ATTNGEN_STATUS_OK);
    assert_true(vr.pass);
    assert_int_equal(vr.out.unwritten, 0);
    assert_true(vr.lse.count > 0);
    assert_true(vr.out.rel_l2 > 0 && vr.out.rel_l2 <= 1e-2);
    attngen__inputs_free(&in);
  }
  attngen_destroy(ctx);
}
BAD_INPUT_TEST(test_runtime_bad_batch, p.a.batch = 0, ATTNGEN_STATUS_BAD_SHAPE, "args.batch")
BAD_INPUT_TEST(test_runtime_bad_heads, p.a.heads = 0, ATTNGEN_STATUS_BAD_SHAPE, "args.heads")
BAD_INPUT_TEST(test_runtime_bad_seqlen_q, p.a.seqlen_q = 0, ATTNGEN_STATUS_BAD_SHAPE, "args.seqlen_q")
BAD_INPUT_TEST(test_runtime_bad_seqlen_kv, p.a.seqlen_kv = -2, ATTNGEN_STATUS_BAD_SHAPE,
               "args.seqlen_kv")
BAD_INPUT_TEST(test_runtime_bad_too_large, (p.a.heads = 32768, p.a.seqlen_kv = 256),
               ATTNGEN_STATUS_TOO_LARGE, "2^31")
BAD_INPUT_TEST(test_runtime_bad_misaligned, p.a.k = (const char *)p.a.k + 2,
               ATTNGEN_STATUS_MISALIGNED, "args.k")
BAD_INPUT_TEST(test_runtime_bad_out_aliases_q, p.a.out = (void *)p.a.q, ATTNGEN_STATUS_ALIASING,
               "args.out")
BAD_INPUT_TEST(test_runtime_bad_lse_aliases_v, p.a.lse = (float *)p.a.v, ATTNGEN_STATUS_ALIASING,
               "args.lse")
BAD_INPUT_TEST(test_runtime_bad_layout, p.a.layout = (attngen_layout)2, ATTNGEN_STATUS_BAD_LAYOUT,
               "args.layout")
BAD_INPUT_TEST(test_runtime_bad_rounding, p.a.rounding = (attngen_rounding)3,
               ATTNGEN_STATUS_BAD_ROUNDING, "args.rounding")
BAD_INPUT_TEST(test_runtime_bad_scale, p.a.softmax_scale = NAN, ATTNGEN_STATUS_BAD_SCALE,
               "args.softmax_scale")

/* out overlapping only the tail of q: caught by byte ranges, not by pointer equality. */
static void test_runtime_bad_out_overlaps_q_tail(void **state) {
  attngen_context *ctx = cpu_context();
  problem p;
  problem_make(&p, ATTNGEN_LAYOUT_BSHD, ATTNGEN_ROUND_RTNE, 1, 1, 16, 16, 7);
  uint16_t *big = aligned_alloc(64, 16 * 128 * 2 * 2);
  assert_non_null(big);
  memset(big, 0xFF, 16 * 128 * 2 * 2);
  memcpy(big, p.in.q, 16 * 128 * 2);
  p.a.q = big;
  p.a.out = big + 16 * 128 - 8; /* last 16 bytes of q */
  assert_int_equal(attngen_fwd(ctx, &p.a), ATTNGEN_STATUS_ALIASING);
  for (size_t i = 16 * 128; i < 2 * 16 * 128; i++) assert_int_equal(big[i], 0xFFFF);
  free(big);
  problem_free(&p);
  attngen_destroy(ctx);
}

/* ---- element strides (args.q_strides, k_strides, v_strides, out_strides) ------------------ */

/* Each bad stride: its own status, the message names the stride, out untouched; explain
 * (no pointers) refuses the same. The problem is 2 x 2 x 16 x 16, dense bshd. */
static void bad_strides(size_t field, int64_t sb, int64_t ss, int64_t sh, attngen_status want,
                        const char *mention) {
  attngen_context *ctx = cpu_context();
  problem p;
  problem_make(&p, ATTNGEN_LAYOUT_BSHD, ATTNGEN_ROUND_RTNE, 2, 2, 16, 16, 5);
  int64_t *s = (int64_t *)((char *)&p.a + field);
  s[0] = sb, s[1] = ss, s[2] = sh;
  bad(ctx, &p, want, mention);
  attngen_choice ch;
  assert_int_equal(attngen_explain(ctx, &p.a, &ch), want);
  assert_non_null(strstr(attngen_last_error(), mention));
  problem_free(&p);
  attngen_destroy(ctx);
}
#define STRIDES_OF(field) offsetof(attngen_fwd_args, field)

static void test_runtime_bad_strides(void **state) {
  (void)state;
  /* negative; 0 on a dimension of extent > 1 */
  bad_strides(STRIDES_OF(q_strides), 4096, 256, -128, ATTNGEN_STATUS_INVALID_ARGUMENT,
              "args.q_strides[2] = -128");
  bad_strides(STRIDES_OF(k_strides), 4096, 0, 128, ATTNGEN_STATUS_INVALID_ARGUMENT,
              "args.k_strides[1] = 0");
  bad_strides(STRIDES_OF(out_strides), 0, 256, 128, ATTNGEN_STATUS_INVALID_ARGUMENT,
              "args.out_strides[0] = 0");
  /* not a multiple of 8 elements (16 bytes) */
  bad_strides(STRIDES_OF(v_strides), 4096, 256, 132, ATTNGEN_STATUS_MISALIGNED,
              "args.v_strides[2] = 132");
  bad_strides(STRIDES_OF(q_strides), 4100, 256, 128, ATTNGEN_STATUS_MISALIGNED,
              "args.q_strides[0] = 4100");
  /* past the kernels' offsets: a row stride of 2^30, a batch entry spanning 2^31 bytes, a
   * batch stride of 2^39 */
  bad_strides(STRIDES_OF(k_strides), 4096, (int64_t)1 << 30, 128, ATTNGEN_STATUS_TOO_LARGE,
              "args.k_strides[1]");
  bad_strides(STRIDES_OF(q_strides), 4096, (int64_t)1 << 27, 128, ATTNGEN_STATUS_TOO_LARGE,
              "one batch entry of q spans");
  bad_strides(STRIDES_OF(v_strides), (int64_t)1 << 39, 256, 128, ATTNGEN_STATUS_TOO_LARGE,
              "args.v_strides[0]");
  /* out: heads on top of each other; batch entries overlapping */
  bad_strides(STRIDES_OF(out_strides), 4096, 256, 256, ATTNGEN_STATUS_ALIASING,
              "args.out_strides = {4096, 256, 256}");
  bad_strides(STRIDES_OF(out_strides), 2048, 256, 128, ATTNGEN_STATUS_ALIASING,
              "two elements of out share an address");
  /* the same strides are fine for an input (reading overlapping rows) */
  attngen_context *ctx = cpu_context();
  problem p;
  problem_make(&p, ATTNGEN_LAYOUT_BSHD, ATTNGEN_ROUND_RTNE, 2, 2, 16, 16, 5);
  p.a.k_strides[0] = 2048, p.a.k_strides[1] = 256, p.a.k_strides[2] = 128;
  assert_int_equal(attngen_fwd(ctx, &p.a), ATTNGEN_STATUS_OK);
  problem_free(&p);
  /* q's span (batch stride 4 entries, 2 entries) covers out, placed between its entries: refused
   * by spans, although no byte is shared */
  problem_make(&p, ATTNGEN_LAYOUT_BSHD, ATTNGEN_ROUND_RTNE, 2, 2, 16, 16, 5);
  const size_t entry = 16 * 2 * 128;
  uint16_t *big = aligned_alloc(64, entry * 5 * 2);
  assert_non_null(big);
  memset(big, 0xFF, entry * 5 * 2);
  memcpy(big, p.in.q, entry * 2);
  memcpy(big + 4 * entry, p.in.q + entry, entry * 2);
  p.a.q = big;
  p.a.q_strides[0] = 4 * (int64_t)entry, p.a.q_strides[1] = 256, p.a.q_strides[2] = 128;
  p.a.out = big + entry;
  assert_int_equal(attngen_fwd(ctx, &p.a), ATTNGEN_STATUS_ALIASING);
  assert_non_null(strstr(attngen_last_error(), "args.out"));
  assert_non_null(strstr(attngen_last_error(), "args.q"));
  for (size_t i = entry; i < 4 * entry; i++) assert_int_equal(big[i], 0xFFFF);
  free(big);
  problem_free(&p);
  attngen_destroy(ctx);
}

/* Logical [B, S, H, D] rows (src: dense bshd) into a tensor at element strides s. */
static void strided_place(uint16_t *dst, const uint16_t *src, int B, int S, int H, int D,
                          const int64_t s[3]) {
  for (int b = 0; b < B; b++)
    for (int i = 0; i < S; i++)
      for (int h = 0; h < H; h++)
        memcpy(dst + b * s[0] + i * s[1] + h * s[2], src + (((size_t)b * S + i) * H + h) * D,
               (size_t)D * 2);
}

/* The strided cases (check/verify_strided.c: packed qkv, permuted and padded views, each bit
 * for bit the dense call): B, H, H_kv, S, head_dim, causal. */
static const attngen__strided_args strided_cases[] = {
  {NULL, 2, 2, 0, 100, 128, 0, ATTNGEN_LAYOUT_BSHD, ATTNGEN_ROUND_RTNE, NULL, 11}, /* MHA */
  {NULL, 1, 4, 2, 70, 128, 1, ATTNGEN_LAYOUT_BSHD, ATTNGEN_ROUND_RTZ, NULL, 12},   /* GQA causal */
  {NULL, 2, 2, 0, 90, 64, 0, ATTNGEN_LAYOUT_BSHD, ATTNGEN_ROUND_RTNA, NULL, 13},   /* head_dim 64 */
};

/* Runs one case in layout l on ctx; fails with the counts unless it passes. */
static void check_strided(attngen_context *ctx, const attngen__strided_args *c, attngen_layout l,
                          char *ran, size_t ran_size) {
  attngen__strided_args s = *c;
  s.ctx = ctx;
  s.layout = l;
  attngen__strided_result r;
  attngen_status st = attngen__verify_strided(&s, &r);
  if (st != ATTNGEN_STATUS_OK) fail_msg("%s: %s", attngen_status_name(st), attngen_last_error());
  for (int v = 0; v < ATTNGEN__STRIDED_VIEWS; v++)
    if (r.out_mismatch[v] || r.lse_mismatch[v] || r.outside_written[v])
      print_message("%s view %d: %lld out, %lld LSE differ from the dense call; %lld written "
                    "outside\n", r.variant, v, (long long)r.out_mismatch[v],
                    (long long)r.lse_mismatch[v], (long long)r.outside_written[v]);
  assert_true(r.pass);
  snprintf(ran, ran_size, "%s", r.variant);
}

/* Strided views on the cpu reference: bit for bit the dense call in both layouts. */
static void test_runtime_strided_views_cpu(void **state) {
  (void)state;
  attngen_context *ctx = cpu_context();
  char ran[128];
  for (size_t i = 0; i < sizeof strided_cases / sizeof strided_cases[0]; i++)
    for (int l = 0; l < 2; l++) check_strided(ctx, &strided_cases[i], (attngen_layout)l, ran, sizeof ran);
  attngen_destroy(ctx);
}

/* Strided views on the gfx942 kernels in the emulator: the dispatcher's variant of each case
 * and layout (bshd and bhsd families, causal, GQA, head_dim 64), and forced tail-split
 * variants whose merge kernel writes out (V through the pre-pass, and V loaded straight from
 * its view): bit for bit the dense call of the same variant. */
static void test_runtime_strided_views_emu(void **state) {
  (void)state;
  setenv("ATTNGEN_EMU_CUS", "3", 1);
  attngen_context_options o = {"emu", 0};
  attngen_context *ctx = NULL;
  attngen_status st = attngen_create(&ctx, &o);
  unsetenv("ATTNGEN_EMU_CUS");
  if (st != ATTNGEN_STATUS_OK) fail_msg("emu backend: %s", attngen_last_error());
  char ran[128];
  for (size_t i = 0; i < sizeof strided_cases / sizeof strided_cases[0]; i++)
    for (int l = 0; l < 2; l++) {
      check_strided(ctx, &strided_cases[i], (attngen_layout)l, ran, sizeof ran);
      print_message("strided views on %s: bitwise equal to the dense call\n", ran);
      assert_non_null(strstr(ran, l ? "_bhsd_" : "_bshd_"));
    }
  /* 3 CUs, 4 q-blocks of 256 rows: the last job alone, its 9 KV tiles split in parts; the
   * merge kernel writes out */
  const attngen__strided_args split = {NULL, 1, 1, 0, 800, 128, 0, ATTNGEN_LAYOUT_BHSD,
                                       ATTNGEN_ROUND_RTNE,
                                       "attn_fwd_d128_bhsd_rtne_q2_kv96_w8_tail_vt_mfma_gfx942", 14};
  attngen_fwd_args sa;
  attngen_fwd_args_init(&sa);
  sa.batch = 1, sa.heads = 1, sa.seqlen_q = 800, sa.seqlen_kv = 800, sa.variant = split.variant;
  sa.layout = ATTNGEN_LAYOUT_BHSD;
  attngen_choice ch;
  assert_int_equal(attngen_explain(ctx, &sa, &ch), ATTNGEN_STATUS_OK);
  print_message("%s on 1x1x800x800: %d parts\n", ch.variant, ch.num_splits);
  assert_true(ch.num_splits > 1);
  check_strided(ctx, &split, ATTNGEN_LAYOUT_BHSD, ran, sizeof ran);
  assert_string_equal(ran, split.variant);
  /* a variant that loads V straight from memory (no pre-pass: v_path perm), split too */
  attngen__strided_args perm = split;
  perm.layout = ATTNGEN_LAYOUT_BSHD;
  perm.variant = "attn_fwd_d128_bshd_rtne_q2_kv64_w8_tail_mfma_gfx942";
  sa.variant = perm.variant, sa.layout = ATTNGEN_LAYOUT_BSHD;
  assert_int_equal(attngen_explain(ctx, &sa, &ch), ATTNGEN_STATUS_OK);
  assert_true(ch.num_splits > 1);
  check_strided(ctx, &perm, ATTNGEN_LAYOUT_BSHD, ran, sizeof ran);
  assert_string_equal(ran, perm.variant);
  attngen_destroy(ctx);
}

/* A packed variable-length batch read from a fused [total, 3, H, D] qkv tensor (FlashAttention's
 * varlen qkvpacked): bit for bit the call on separate dense q, k, v (cpu and emu). */
static void test_runtime_strided_varlen_qkv(void **state) {
  (void)state;
  const int H = 2, D = 128, total = 157;
  const int32_t cu[4] = {0, 60, 61, 157};
  attngen__inputs in;
  assert_int_equal(attngen__inputs_make_hd(&in, ATTNGEN__INPUT_REALISTIC, 9, ATTNGEN_LAYOUT_BSHD,
                                           1, H, H, total, total, D, 0.08838834764831845f),
                   ATTNGEN_STATUS_OK);
  const size_t n = (size_t)total * H * D;
  uint16_t *qkv = aligned_alloc(64, 3 * n * 2), *o1 = aligned_alloc(64, n * 2);
  uint16_t *o2 = aligned_alloc(64, n * 2);
  float *l1 = aligned_alloc(64, (size_t)H * total * 4 + 64), *l2 = aligned_alloc(64, (size_t)H * total * 4 + 64);
  assert_true(qkv && o1 && o2 && l1 && l2);
  const int64_t s3[3] = {0, 3 * H * D, D};
  strided_place(qkv, in.q, 1, total, H, D, s3);
  strided_place(qkv + H * D, in.k, 1, total, H, D, s3);
  strided_place(qkv + 2 * H * D, in.v, 1, total, H, D, s3);
  const char *backends[] = {"cpu", "emu"};
  for (int bi = 0; bi < 2; bi++) {
    attngen_context_options o = {backends[bi], 0};
    attngen_context *ctx = NULL;
    assert_int_equal(attngen_create(&ctx, &o), ATTNGEN_STATUS_OK);
    attngen_fwd_args a;
    attngen_fwd_args_init(&a);
    a.batch = 3, a.heads = H, a.seqlen_q = 96, a.seqlen_kv = 96, a.total_q = total;
    a.total_kv = total, a.cu_seqlens_q = cu, a.cu_seqlens_k = cu, a.causal = 1;
    a.q = in.q, a.k = in.k, a.v = in.v, a.out = o1, a.lse = l1;
    for (size_t i = 0; i < n; i++) o1[i] = o2[i] = ATTNGEN__BF16_POISON;
    assert_int_equal(attngen_fwd(ctx, &a), ATTNGEN_STATUS_OK);
    a.q = qkv, a.k = qkv + H * D, a.v = qkv + 2 * H * D, a.out = o2, a.lse = l2;
    memcpy(a.q_strides, s3, sizeof s3);
    memcpy(a.k_strides, s3, sizeof s3);
    memcpy(a.v_strides, s3, sizeof s3);
    a.q_strides[0] = 12345; /* not used by a packed batch: any value >= 0 */
    attngen_status st = attngen_fwd(ctx, &a);
    if (st != ATTNGEN_STATUS_OK) print_message("%s\n", attngen_last_error());
    assert_int_equal(st, ATTNGEN_STATUS_OK);
    assert_memory_equal(o1, o2, n * 2);
    assert_memory_equal(l1, l2, (size_t)H * total * 4);
    size_t poisoned = 0;
    for (size_t i = 0; i < n; i++) poisoned += o2[i] == ATTNGEN__BF16_POISON;
    assert_int_equal(poisoned, 0);
    attngen_destroy(ctx);
  }
  free(qkv), free(o1), free(o2), free(l1), free(l2);
  attngen__inputs_free(&in);
}

static void test_runtime_null_context_and_args(void **state) {
  attngen_fwd_args a;
  attngen_fwd_args_init(&a);
  assert_int_equal(attngen_fwd(NULL, &a), ATTNGEN_STATUS_NULL_POINTER);
  assert_non_null(strstr(attngen_last_error(), "ctx"));
  attngen_context *ctx = cpu_context();
  assert_int_equal(attngen_fwd(ctx, NULL), ATTNGEN_STATUS_NULL_POINTER);
  assert_int_equal(attngen_explain(ctx, &a, NULL), ATTNGEN_STATUS_NULL_POINTER);
  attngen_destroy(ctx);
}

/* ---- helpers ------------------------------------------------------------------------------ */

static void test_runtime_memory_events_timing(void **state) {
  attngen_context *ctx = cpu_context();
  void *d = NULL;
  assert_int_equal(attngen_malloc(ctx, 1000, &d), ATTNGEN_STATUS_OK);
  assert_true((uintptr_t)d % 16 == 0);
  unsigned char h[1000], back[1000];
  for (int i = 0; i < 1000; i++) h[i] = (unsigned char)(i * 7);
  assert_int_equal(attngen_memcpy_htod(ctx, d, h, 1000), ATTNGEN_STATUS_OK);
  assert_int_equal(attngen_memset(ctx, d, 0xAB, 10), ATTNGEN_STATUS_OK);
  assert_int_equal(attngen_memcpy_dtoh(ctx, back, d, 1000), ATTNGEN_STATUS_OK);
  assert_int_equal(back[9], 0xAB);
  assert_memory_equal(back + 10, h + 10, 990);
  assert_int_equal(attngen_synchronize(ctx, NULL), ATTNGEN_STATUS_OK);
  assert_int_equal(attngen_free(ctx, d), ATTNGEN_STATUS_OK);
  assert_int_equal(attngen_free(ctx, NULL), ATTNGEN_STATUS_OK);

  problem p;
  problem_make(&p, ATTNGEN_LAYOUT_BHSD, ATTNGEN_ROUND_RTZ, 1, 2, 64, 64, 9);
  float ms = -1;
  assert_int_equal(attngen_time_fwd(ctx, &p.a, 3, &ms), ATTNGEN_STATUS_OK);
  assert_true(ms > 0 && ms < 10000);
  assert_int_equal(attngen_time_fwd(ctx, &p.a, 0, &ms), ATTNGEN_STATUS_INVALID_ARGUMENT);
  attngen_event *e0, *e1;
  assert_int_equal(attngen_event_create(ctx, &e0), ATTNGEN_STATUS_OK);
  assert_int_equal(attngen_event_create(ctx, &e1), ATTNGEN_STATUS_OK);
  assert_int_equal(attngen_event_record(ctx, e0, NULL), ATTNGEN_STATUS_OK);
  assert_int_equal(attngen_fwd(ctx, &p.a), ATTNGEN_STATUS_OK);
  assert_int_equal(attngen_event_record(ctx, e1, NULL), ATTNGEN_STATUS_OK);
  assert_int_equal(attngen_event_elapsed(ctx, e0, e1, &ms), ATTNGEN_STATUS_OK);
  assert_true(ms > 0);
  attngen_event_destroy(ctx, e0);
  attngen_event_destroy(ctx, e1);
  problem_free(&p);
  attngen_destroy(ctx);
}

static void test_runtime_status_names_and_version(void **state) {
  for (int s = 0; s < ATTNGEN_STATUS_COUNT_; s++) {
    const char *n = attngen_status_name((attngen_status)s);
    assert_true(strlen(attngen_status_string((attngen_status)s)) > 3);
    for (int t = 0; t < s; t++) assert_string_not_equal(n, attngen_status_name((attngen_status)t));
  }
  assert_string_equal(attngen_status_name(ATTNGEN_STATUS_OK), "OK");
  assert_string_equal(attngen_status_name(ATTNGEN_STATUS_STREAM_CAPTURING), "STREAM_CAPTURING");
  assert_string_equal(attngen_status_name((attngen_status)999), "UNKNOWN");
  assert_string_equal(attngen_version(), ATTNGEN_VERSION_STRING);
  {
    /* The build id is the commit of this source tree (the library under test was built from
     * it: a build rewrites the id), "-dirty" or not, or "unknown" outside a git checkout. */
    const char *id = attngen_build_id();
    char head[64] = "";
    FILE *g = popen("git -C '" ATTNGEN_SOURCE_DIR "' rev-parse --short=12 HEAD 2>/dev/null", "r");
    if (g) {
      if (!fgets(head, sizeof head, g)) head[0] = 0;
      if (pclose(g) != 0) head[0] = 0;
    }
    head[strcspn(head, "\n")] = 0;
    if (head[0] == 0) {
      assert_string_equal(id, "unknown");
    } else {
      assert_int_equal(strlen(head), 12);
      assert_memory_equal(id, head, 12);
      assert_true(strcmp(id + 12, "") == 0 || strcmp(id + 12, "-dirty") == 0);
    }
  }
  /* attngen.h's two spellings of its one version (the numbers, the string) agree */
  char parts[48];
  snprintf(parts, sizeof parts, "%d.%d.%d", ATTNGEN_VERSION_MAJOR, ATTNGEN_VERSION_MINOR,
           ATTNGEN_VERSION_PATCH);
  assert_string_equal(parts, ATTNGEN_VERSION_STRING);
  attngen_fwd_args a;
  attngen_fwd_args_init(&a);
  assert_int_equal(a.head_dim, 128);
  assert_int_equal(a.layout, ATTNGEN_LAYOUT_BSHD);
  assert_int_equal(a.rounding, ATTNGEN_ROUND_RTNE);
  assert_true(fabsf(a.softmax_scale - 1.0f / sqrtf(128.0f)) < 1e-7f);
}

/* The last error is per thread. */
static void *other_thread(void *arg) {
  *(int *)arg = attngen_last_error()[0] == 0;
  return NULL;
}

static void test_runtime_last_error_is_thread_local(void **state) {
  attngen_fwd_args a;
  attngen_fwd_args_init(&a);
  assert_int_equal(attngen_fwd(NULL, &a), ATTNGEN_STATUS_NULL_POINTER);
  assert_true(attngen_last_error()[0] != 0);
  int empty = 0;
  pthread_t t;
  assert_int_equal(pthread_create(&t, NULL, other_thread, &empty), 0);
  pthread_join(t, NULL);
  assert_true(empty);
}

/* One create / run / destroy cycle (the valgrind target). */
static void test_runtime_cycle(void **state) {
  attngen_context *ctx = cpu_context();
  problem p;
  problem_make(&p, ATTNGEN_LAYOUT_BSHD, ATTNGEN_ROUND_RTNA, 1, 2, 33, 65, 21);
  assert_int_equal(attngen_fwd(ctx, &p.a), ATTNGEN_STATUS_OK);
  assert_false(untouched(&p));
  problem_free(&p);
  attngen_destroy(ctx);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_runtime_cpu_context),
    cmocka_unit_test(test_runtime_unknown_backend),
    cmocka_unit_test(test_runtime_missing_gpu_backend_fails_cleanly),
    cmocka_unit_test(test_runtime_auto_and_env_backend),
    cmocka_unit_test(test_runtime_malformed_env_fails_create),
    cmocka_unit_test(test_runtime_env_read_at_create),
    cmocka_unit_test(test_runtime_tuning_db_read_at_run_time),
    cmocka_unit_test(test_runtime_fwd_against_fp64),
    cmocka_unit_test(test_runtime_fwd_hand_values),
    cmocka_unit_test(test_runtime_empty_kv_accepts_null_k_v),
    cmocka_unit_test(test_runtime_malloc_size_overflow),
    cmocka_unit_test(test_runtime_cpu_explain),
    cmocka_unit_test(test_runtime_bad_null_q),
    cmocka_unit_test(test_runtime_bad_null_v),
    cmocka_unit_test(test_runtime_bad_head_dim),
    cmocka_unit_test(test_runtime_head_dim_gfx942),
    cmocka_unit_test(test_runtime_head_dim_256_cpu),
    cmocka_unit_test(test_runtime_bad_batch),
    cmocka_unit_test(test_runtime_bad_heads),
    cmocka_unit_test(test_runtime_bad_seqlen_q),
    cmocka_unit_test(test_runtime_bad_seqlen_kv),
    cmocka_unit_test(test_runtime_bad_too_large),
    cmocka_unit_test(test_runtime_bad_misaligned),
    cmocka_unit_test(test_runtime_bad_out_aliases_q),
    cmocka_unit_test(test_runtime_bad_lse_aliases_v),
    cmocka_unit_test(test_runtime_bad_out_overlaps_q_tail),
    cmocka_unit_test(test_runtime_bad_layout),
    cmocka_unit_test(test_runtime_bad_rounding),
    cmocka_unit_test(test_runtime_bad_scale),
    cmocka_unit_test(test_runtime_bad_strides),
    cmocka_unit_test(test_runtime_strided_views_cpu),
    cmocka_unit_test(test_runtime_strided_views_emu),
    cmocka_unit_test(test_runtime_strided_varlen_qkv),
    cmocka_unit_test(test_runtime_null_context_and_args),
    cmocka_unit_test(test_runtime_cpu_ref_follow_call),
    cmocka_unit_test(test_runtime_emu_tail_split_plan),
    cmocka_unit_test(test_runtime_memory_events_timing),
    cmocka_unit_test(test_runtime_status_names_and_version),
    cmocka_unit_test(test_runtime_last_error_is_thread_local),
    cmocka_unit_test(test_runtime_cycle),
  };
  const char *filter = getenv("TEST_FILTER");
  if (filter && *filter) cmocka_set_test_filter(filter);
  return attngen_test_exit(cmocka_run_group_tests(tests, NULL, NULL));
}
