/* test_prepare.c: what graph capture needs from the API (runtime/src/api.c):
 * attngen_prepare (plan + load without a launch, nothing written) and the caller's
 * workspace of split variants (args.workspace: used instead of the context's, same result
 * bit for bit, refused when too small or misaligned with the output untouched).
 * Runs on the cpu backend and on the emu backend (gfx942 kernels, tail split). */
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

#define TAIL "attn_fwd_d128_bshd_rtne_q2_kv96_w8_tail_vt_mfma_gfx942"

#include "test_problem.h"

static attngen_context *emu_context(void) {
  setenv("ATTNGEN_EMU_CUS", "8", 1);
  attngen_context_options o = {"emu", 0};
  attngen_context *ctx = NULL;
  attngen_status st = attngen_create(&ctx, &o);
  unsetenv("ATTNGEN_EMU_CUS");
  if (st != ATTNGEN_STATUS_OK) print_message("emu backend: %s\n", attngen_last_error());
  assert_int_equal(st, ATTNGEN_STATUS_OK);
  return ctx;
}

/* cpu: prepare validates like attngen_fwd and writes nothing. */
static void test_prepare_cpu(void **state) {
  (void)state;
  attngen_context_options o = {"cpu", 0};
  attngen_context *ctx = NULL;
  assert_int_equal(attngen_create(&ctx, &o), ATTNGEN_STATUS_OK);
  problem p;
  problem_make(&p, ATTNGEN_LAYOUT_BSHD, ATTNGEN_ROUND_RTNE, 1, 2, 16, 16, 3);
  assert_int_equal(attngen_prepare(ctx, &p.a), ATTNGEN_STATUS_OK);
  assert_true(untouched(&p));
  attngen_fwd_args a = p.a;
  a.q = a.k = a.v = NULL; /* shapes and options suffice */
  a.out = NULL;
  a.lse = NULL;
  assert_int_equal(attngen_prepare(ctx, &a), ATTNGEN_STATUS_OK);
  a.head_dim = 96;
  assert_int_equal(attngen_prepare(ctx, &a), ATTNGEN_STATUS_UNSUPPORTED_HEAD_DIM);
  assert_non_null(strstr(attngen_last_error(), "head_dim"));
  a.head_dim = 128;
  a.variant = TAIL;
  assert_int_equal(attngen_prepare(ctx, &a), ATTNGEN_STATUS_NO_VARIANT);
  assert_int_equal(attngen_prepare(NULL, &a), ATTNGEN_STATUS_NULL_POINTER);
  assert_int_equal(attngen_prepare(ctx, NULL), ATTNGEN_STATUS_NULL_POINTER);
  problem_free(&p);
  attngen_destroy(ctx);
}

/* emu: after prepare the variant is loaded (explain says so) and nothing was written. */
static void test_prepare_emu_loads_variant(void **state) {
  (void)state;
  attngen_context *ctx = emu_context();
  problem p;
  problem_make(&p, ATTNGEN_LAYOUT_BSHD, ATTNGEN_ROUND_RTNE, 1, 9, 16, 1000, 5);
  p.a.variant = TAIL;
  attngen_choice ch;
  assert_int_equal(attngen_explain(ctx, &p.a, &ch), ATTNGEN_STATUS_OK);
  assert_false(ch.loaded);
  assert_true(ch.num_splits > 1);
  assert_true(ch.workspace_bytes > 0);
  assert_int_equal(attngen_prepare(ctx, &p.a), ATTNGEN_STATUS_OK);
  assert_true(untouched(&p));
  assert_int_equal(attngen_explain(ctx, &p.a, &ch), ATTNGEN_STATUS_OK);
  assert_true(ch.loaded);
  assert_false(ch.needs_jit);
  p.a.seqlen_q = 0;
  assert_int_equal(attngen_prepare(ctx, &p.a), ATTNGEN_STATUS_BAD_SHAPE);
  problem_free(&p);
  attngen_destroy(ctx);
}

/* emu, tail split: the caller's workspace gives the same bits as the context's; a too
 * small or misaligned one is refused with nothing written. */
static void test_prepare_emu_caller_workspace(void **state) {
  (void)state;
  attngen_context *ctx = emu_context();
  problem p;
  problem_make(&p, ATTNGEN_LAYOUT_BSHD, ATTNGEN_ROUND_RTNE, 1, 9, 16, 1000, 7);
  p.a.variant = TAIL;
  attngen_choice ch;
  assert_int_equal(attngen_explain(ctx, &p.a, &ch), ATTNGEN_STATUS_OK);
  const size_t need = ch.workspace_bytes;
  assert_true(need > 0);

  /* reference run: the context's own workspace */
  assert_int_equal(attngen_fwd(ctx, &p.a), ATTNGEN_STATUS_OK);
  assert_false(untouched(&p));
  uint16_t *want = malloc(p.nq * 2);
  float *want_lse = malloc((size_t)9 * 16 * 4);
  assert_non_null(want);
  assert_non_null(want_lse);
  memcpy(want, p.out, p.nq * 2);
  memcpy(want_lse, p.lse, (size_t)9 * 16 * 4);

  unsigned char *ws = aligned_alloc(64, (need + 16 + 63) / 64 * 64);
  assert_non_null(ws);

  /* too small */
  for (size_t i = 0; i < p.nq; i++) p.out[i] = ATTNGEN__BF16_POISON;
  p.a.workspace = ws;
  p.a.workspace_bytes = need - 1;
  assert_int_equal(attngen_fwd(ctx, &p.a), ATTNGEN_STATUS_INVALID_ARGUMENT);
  assert_non_null(strstr(attngen_last_error(), "args.workspace_bytes"));
  assert_true(untouched(&p));
  assert_int_equal(attngen_prepare(ctx, &p.a), ATTNGEN_STATUS_INVALID_ARGUMENT);
  /* misaligned */
  p.a.workspace = ws + 4;
  p.a.workspace_bytes = need;
  assert_int_equal(attngen_fwd(ctx, &p.a), ATTNGEN_STATUS_MISALIGNED);
  assert_non_null(strstr(attngen_last_error(), "args.workspace"));
  assert_true(untouched(&p));

  /* the caller's workspace, poisoned first: the call must write the partials it reads */
  memset(ws, 0xFF, need);
  p.a.workspace = ws;
  p.a.workspace_bytes = need;
  assert_int_equal(attngen_prepare(ctx, &p.a), ATTNGEN_STATUS_OK);
  assert_true(untouched(&p));
  assert_int_equal(attngen_fwd(ctx, &p.a), ATTNGEN_STATUS_OK);
  assert_memory_equal(p.out, want, p.nq * 2);
  assert_memory_equal(p.lse, want_lse, (size_t)9 * 16 * 4);
  size_t used = 0;
  for (size_t i = 0; i < need; i++) used += ws[i] != 0xFF;
  assert_true(used > 0); /* the partials went to the caller's buffer */

  /* a variant without split but with v_path=vt needs the workspace for its V copy: a
   * caller's workspace of 0 bytes is refused, none (NULL) means the context's */
  p.a.variant = "attn_fwd_d128_bshd_rtne_q2_kv96_w8_nosplit_vt_mfma_gfx942";
  assert_int_equal(attngen_explain(ctx, &p.a, &ch), ATTNGEN_STATUS_OK);
  assert_int_equal(ch.num_splits, 1);
  assert_true(ch.workspace_bytes >= (size_t)9 * ((1000 + 15) / 16) * 4096);
  for (size_t i = 0; i < p.nq; i++) p.out[i] = ATTNGEN__BF16_POISON;
  p.a.workspace_bytes = 0;
  assert_int_equal(attngen_fwd(ctx, &p.a), ATTNGEN_STATUS_INVALID_ARGUMENT);
  assert_true(untouched(&p));
  p.a.workspace = NULL;
  assert_int_equal(attngen_fwd(ctx, &p.a), ATTNGEN_STATUS_OK);
  assert_false(untouched(&p));

  free(ws);
  free(want);
  free(want_lse);
  problem_free(&p);
  attngen_destroy(ctx);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_prepare_cpu),
    cmocka_unit_test(test_prepare_emu_loads_variant),
    cmocka_unit_test(test_prepare_emu_caller_workspace),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
