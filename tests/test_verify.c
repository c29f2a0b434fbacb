/* test_verify.c: attngen__verify_run (check/verify.c), the one run -> reference ->
 * compare sequence of check, tune and the tests: it runs a call itself and passes it, it
 * catches a wrong element, an unwritten one and a wrong LSE in a caller's output, it follows
 * the kernel's tail split, and a kept reference is reused across calls (and layouts) and
 * recomputed for another rounding. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "attngen.h"
#include "verify.h"

static attngen_context *context(const char *backend) {
  attngen_context_options o = {backend, 0};
  attngen_context *ctx = NULL;
  if (attngen_create(&ctx, &o) != ATTNGEN_STATUS_OK) print_message("%s\n", attngen_last_error());
  return ctx;
}

static void call_of(attngen_fwd_args *a, int b, int h, int sq, int skv, attngen_layout l,
                    attngen_rounding r) {
  attngen_fwd_args_init(a);
  a->batch = b;
  a->heads = h;
  a->seqlen_q = sq;
  a->seqlen_kv = skv;
  a->layout = l;
  a->rounding = r;
}

/* verify_run runs the call itself (out == NULL) and the emulated gfx942 kernel passes. Only
 * emu: the cpu backend is the reference itself, so its pass could not fail (issue 29). */
static void test_verify_runs_and_passes(void **state) {
  static const char *const backends[] = {"emu"};
  for (int bi = 0; bi < 1; ++bi) {
    attngen_context *ctx = context(backends[bi]);
    assert_non_null(ctx);
    attngen_fwd_args a;
    call_of(&a, 1, 2, 70, 129, ATTNGEN_LAYOUT_BHSD, ATTNGEN_ROUND_RTNA);
    attngen__inputs in;
    assert_int_equal(attngen__inputs_make(&in, ATTNGEN__INPUT_REALISTIC, 5, a.layout, 1, 2, 70,
                                          129, a.softmax_scale),
                     ATTNGEN_STATUS_OK);
    attngen__verify_args va = {ctx, &a, &in, NULL, NULL, 1, 0, NULL};
    attngen__verify_result vr;
    assert_int_equal(attngen__verify_run(&va, &vr), ATTNGEN_STATUS_OK);
    if (!vr.pass) attngen__compare_print(stdout, backends[bi], &vr.out);
    assert_true(vr.pass);
    assert_int_equal(vr.out.elements, 2 * 70 * 128);
    assert_int_equal(vr.lse.count, 2 * 70);
    assert_true(vr.out.rel_l2 >= 0 && vr.out.rel_l2 < 1e-2);
    assert_true(vr.kv_step > 0);
    assert_true(vr.variant[0] != 0);
    attngen__inputs_free(&in);
    attngen_destroy(ctx);
  }
}

/* A caller's output with one element 3 ULP off, one unwritten, or a wrong LSE fails. */
static void test_verify_catches_wrong_results(void **state) {
  attngen_context *ctx = context("cpu");
  attngen_fwd_args a;
  call_of(&a, 1, 1, 33, 40, ATTNGEN_LAYOUT_BSHD, ATTNGEN_ROUND_RTNE);
  attngen__inputs in;
  assert_int_equal(attngen__inputs_make(&in, ATTNGEN__INPUT_UNIFORM, 9, a.layout, 1, 1, 33, 40,
                                        a.softmax_scale),
                   ATTNGEN_STATUS_OK);
  const size_t n = 33 * 128;
  uint16_t *out = malloc(n * 2);
  float *lse = malloc(33 * sizeof(float));
  assert_non_null(out);
  assert_non_null(lse);
  a.q = in.q;
  a.k = in.k;
  a.v = in.v;
  a.out = out;
  a.lse = lse;
  assert_int_equal(attngen_fwd(ctx, &a), ATTNGEN_STATUS_OK);
  attngen__verify_ref ref;
  memset(&ref, 0, sizeof ref);
  attngen__verify_args va = {ctx, &a, &in, out, lse, 0, 0, &ref};
  attngen__verify_result vr;
  assert_int_equal(attngen__verify_run(&va, &vr), ATTNGEN_STATUS_OK);
  assert_true(vr.pass);
  assert_int_equal(vr.out.ulp0, (int64_t)n);

  out[100] = (uint16_t)(out[100] + 3); /* 3 ULP (same sign) */
  assert_int_equal(attngen__verify_run(&va, &vr), ATTNGEN_STATUS_OK);
  assert_false(vr.pass);
  assert_int_equal(vr.out.ulp_over, 1);
  out[100] = (uint16_t)(out[100] - 3);

  out[7] = 0xFFFF; /* unwritten (poison) */
  assert_int_equal(attngen__verify_run(&va, &vr), ATTNGEN_STATUS_OK);
  assert_false(vr.pass);
  assert_int_equal(vr.out.unwritten, 1);
  out[7] = ref.out[7];

  lse[3] += 0.5f;
  assert_int_equal(attngen__verify_run(&va, &vr), ATTNGEN_STATUS_OK);
  assert_true(vr.out.pass);
  assert_false(vr.lse.pass);
  assert_false(vr.pass);
  attngen__verify_ref_free(&ref);
  free(out);
  free(lse);
  attngen__inputs_free(&in);
  attngen_destroy(ctx);
}

/* On the emulator a kv_split=tail variant's reference follows the split plan. */
static void test_verify_follows_tail_split(void **state) {
  setenv("ATTNGEN_EMU_CUS", "8", 1);
  attngen_context *ctx = context("emu");
  unsetenv("ATTNGEN_EMU_CUS");
  assert_non_null(ctx);
  attngen_fwd_args a;
  call_of(&a, 1, 9, 100, 1000, ATTNGEN_LAYOUT_BSHD, ATTNGEN_ROUND_RTNE);
  a.variant = "attn_fwd_d128_bshd_rtne_q2_kv96_w8_tail_vt_mfma_gfx942";
  attngen__inputs in;
  assert_int_equal(attngen__inputs_make(&in, ATTNGEN__INPUT_REALISTIC, 3, a.layout, 1, 9, 100,
                                        1000, a.softmax_scale),
                   ATTNGEN_STATUS_OK);
  attngen__verify_args va = {ctx, &a, &in, NULL, NULL, 0, 0, NULL};
  attngen__verify_result vr;
  assert_int_equal(attngen__verify_run(&va, &vr), ATTNGEN_STATUS_OK);
  assert_true(vr.pass);
  assert_string_equal(vr.variant, a.variant);
  assert_int_equal(vr.kv_step, 96);
  assert_true(vr.kv_per_split > 0);
  assert_int_equal(vr.split_rows, 100); /* the last (b, h): one q-job of 100 rows */
  attngen__inputs_free(&in);
  attngen_destroy(ctx);
}

/* A kept reference serves a call in the other layout (same logical inputs) without being
 * recomputed and still catches a wrong element there; another rounding recomputes it. */
static void test_verify_ref_across_layouts_and_roundings(void **state) {
  attngen_context *ctx = context("cpu");
  assert_non_null(ctx);
  attngen__verify_ref ref;
  memset(&ref, 0, sizeof ref);
  const attngen_layout layouts[] = {ATTNGEN_LAYOUT_BSHD, ATTNGEN_LAYOUT_BHSD,
                                    ATTNGEN_LAYOUT_BHSD};
  const attngen_rounding roundings[] = {ATTNGEN_ROUND_RTNE, ATTNGEN_ROUND_RTNE,
                                        ATTNGEN_ROUND_RTZ};
  const size_t n = 2 * 3 * 45 * 128, nl = 2 * 3 * 45;
  for (int i = 0; i < 3; ++i) {
    attngen_fwd_args a;
    call_of(&a, 2, 3, 45, 77, layouts[i], roundings[i]);
    attngen__inputs in;
    assert_int_equal(attngen__inputs_make(&in, ATTNGEN__INPUT_REALISTIC, 21, a.layout, 2, 3,
                                          45, 77, a.softmax_scale),
                     ATTNGEN_STATUS_OK);
    uint16_t *out = malloc(n * 2);
    float *lse = malloc(nl * sizeof(float));
    assert_non_null(out);
    assert_non_null(lse);
    a.q = in.q;
    a.k = in.k;
    a.v = in.v;
    a.out = out;
    a.lse = lse;
    assert_int_equal(attngen_fwd(ctx, &a), ATTNGEN_STATUS_OK);
    const uint16_t *kept = ref.out;
    attngen__verify_args va = {ctx, &a, &in, out, lse, 1, 0, &ref};
    attngen__verify_result vr;
    assert_int_equal(attngen__verify_run(&va, &vr), ATTNGEN_STATUS_OK);
    assert_true(vr.pass);
    assert_int_equal(vr.out.ulp0, (int64_t)n);
    assert_true(vr.out.rel_l2 < 1e-2);
    assert_int_equal(ref.rounding, (int)roundings[i]);
    if (i == 1) { /* reused: still the bshd reference, the same buffer */
      assert_int_equal(ref.layout, (int)ATTNGEN_LAYOUT_BSHD);
      assert_ptr_equal(ref.out, kept);
      out[5 * 128 + 9] = (uint16_t)(out[5 * 128 + 9] + 3); /* row 5 of (b0, h0) in bhsd */
      assert_int_equal(attngen__verify_run(&va, &vr), ATTNGEN_STATUS_OK);
      assert_false(vr.pass);
      assert_int_equal(vr.out.ulp_over, 1);
    }
    if (i == 2) assert_int_equal(ref.layout, (int)ATTNGEN_LAYOUT_BHSD); /* recomputed */
    free(out);
    free(lse);
    attngen__inputs_free(&in);
  }
  attngen__verify_ref_free(&ref);
  attngen_destroy(ctx);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_verify_runs_and_passes),
    cmocka_unit_test(test_verify_catches_wrong_results),
    cmocka_unit_test(test_verify_follows_tail_split),
    cmocka_unit_test(test_verify_ref_across_layouts_and_roundings),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
