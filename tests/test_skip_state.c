/* test_skip_state.c: the temporal tile-skip state (runtime/src/skip_state.c, attngen.h
 * attngen_skip_state_*) and attngen_fwd with args.skip: the grid and the lists, the first call
 * bitwise the dense call, the next call reading what the previous one wrote (bitwise the
 * reference run on that list), must-skip / must-do masks, reset, the counts, every refusal
 * named (nothing written), and the dispatcher pairing skip calls with skip variants. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#define ATTNGEN_TEST_REQUIRE "ATTNGEN_REQUIRE_CLANG19" /* the emu backend's kernels */
#include "test_skip.h"
#include "verify.h"

#define D ATTNGEN__HEAD_DIM

static void *xcalloc(size_t n, size_t size) {
  void *p = calloc(n ? n : 1, size);
  assert_non_null(p);
  return p;
}

static attngen_context *cpu_ctx(void) {
  attngen_context *ctx = NULL;
  attngen_context_options o = {"cpu", 0};
  assert_int_equal(attngen_create(&ctx, &o), ATTNGEN_STATUS_OK);
  return ctx;
}

/* A call on dense bhsd inputs of the shape (B, H, Sq, Skv). */
typedef struct call {
  attngen__inputs in;
  uint16_t *out;
  size_t nq;
  attngen_fwd_args a;
} call;

static void call_make(call *c, int B, int H, int Sq, int Skv, uint64_t seed) {
  assert_int_equal(attngen__inputs_make(&c->in, ATTNGEN__INPUT_UNIFORM, seed, ATTNGEN_LAYOUT_BHSD,
                                        B, H, Sq, Skv, ATTNGEN__DEFAULT_SCALE),
                   ATTNGEN_STATUS_OK);
  /* q and the first 64 keys of every head positive: those keys hold every row's max, the
   * later keys' scores are small, so later tiles get marked at T = -2 */
  attngen__rng r;
  attngen__rng_seed(&r, seed + 100);
  for (size_t i = 0; i < (size_t)B * H * Sq * D; ++i) c->in.q[i] &= 0x7FFF;
  for (int bh = 0; bh < B * H; ++bh)
    for (size_t i = 0; i < (size_t)64 * D && i < (size_t)Skv * D; ++i)
      c->in.k[(size_t)bh * Skv * D + i] &= 0x7FFF;
  c->nq = (size_t)B * H * Sq * D;
  c->out = xcalloc(c->nq, 2);
  attngen_fwd_args_init(&c->a);
  c->a.q = c->in.q;
  c->a.k = c->in.k;
  c->a.v = c->in.v;
  c->a.out = c->out;
  c->a.batch = B;
  c->a.heads = H;
  c->a.seqlen_q = Sq;
  c->a.seqlen_kv = Skv;
  c->a.layout = ATTNGEN_LAYOUT_BHSD;
  c->a.softmax_scale = 0.25f;
}

static void call_free(call *c) {
  free(c->out);
  attngen__inputs_free(&c->in);
}

/* The reference of c's call with the lists given (R NULL = none), the state's grid. */
static void ref_with(const call *c, const attngen_skip_info *g, const uint32_t *r,
                     const uint32_t *ms, const uint32_t *md, float t, uint16_t *out,
                     uint32_t *w, uint32_t *count) {
  attngen__ref_args ra = attngen__ref_args_of_call(&c->a);
  ra.out = attngen__view_out(out, c->a.layout, c->a.heads, c->a.seqlen_q);
  ra.kv_step = 64;
  ra.skip_block_m = g->block_m;
  ra.skip_block_n = g->block_n;
  ra.skip_read = r;
  ra.skip_must_skip = ms;
  ra.skip_must_do = md;
  ra.skip_write = w;
  ra.skip_count = count;
  ra.skip_threshold_log2 = t;
  assert_int_equal(attngen__reference_fwd(&ra), ATTNGEN_STATUS_OK);
}

static int popcount_words(const uint32_t *w, size_t n) {
  int k = 0;
  for (size_t i = 0; i < n; ++i)
    for (int b = 0; b < 32; ++b) k += (w[i] >> b) & 1u;
  return k;
}

/* create: the grid (default 128 x 128 on cpu, or the one asked), info, the variant name. */
static void test_skip_state_create_info(void **state) {
  (void)state;
  attngen_context *ctx = cpu_ctx();
  attngen_fwd_args a;
  attngen_fwd_args_init(&a);
  a.batch = 2;
  a.heads = 3;
  a.seqlen_q = 300;
  a.seqlen_kv = 4200;
  attngen_skip_state *s = NULL;
  assert_int_equal(attngen_skip_state_create(ctx, &a, 0, 0, -6.0f, &s), ATTNGEN_STATUS_OK);
  attngen_skip_info info;
  assert_int_equal(attngen_skip_state_info(s, &info), ATTNGEN_STATUS_OK);
  assert_int_equal(info.block_m, 128);
  assert_int_equal(info.block_n, 128);
  assert_int_equal(info.q_tiles, 3);            /* ceil(300 / 128) */
  assert_int_equal(info.kv_tiles, 33);          /* ceil(4200 / 128) */
  assert_int_equal(info.words_per_q_tile, 2);   /* ceil(33 / 32) */
  assert_int_equal(info.words, 2 * 3 * 3 * 2);
  assert_true(info.threshold_log2 == -6.0f);
  assert_string_equal(info.variant, "reference");
  assert_int_equal(info.calls, 0);
  uint32_t *w = xcalloc(info.words, 4);
  memset(w, 0xFF, info.words * 4);
  assert_int_equal(attngen_skip_state_get_list(s, ATTNGEN_SKIP_NEXT_READ, w), ATTNGEN_STATUS_OK);
  assert_int_equal(popcount_words(w, info.words), 0); /* fresh: reads as nothing */
  uint64_t sk = 9, vi = 9;
  double f = 9.0;
  assert_int_equal(attngen_skip_state_stats(s, &sk, &vi, &f), ATTNGEN_STATUS_OK);
  assert_true(sk == 0 && vi == 0 && f == 0.0);
  attngen_skip_state_destroy(s);
  assert_int_equal(attngen_skip_state_create(ctx, &a, 64, 32, -INFINITY, &s), ATTNGEN_STATUS_OK);
  assert_int_equal(attngen_skip_state_info(s, &info), ATTNGEN_STATUS_OK);
  assert_int_equal(info.q_tiles, 5);
  assert_int_equal(info.kv_tiles, 132);
  assert_int_equal(info.words_per_q_tile, 5);
  attngen_skip_state_destroy(s);
  attngen_skip_state_destroy(NULL);
  free(w);
  attngen_destroy(ctx);
}

/* Steps: the first call is bitwise the dense call and writes W; the second reads W (bitwise
 * the reference with R = W) and skips; must-skip / must-do; reset; counts and fraction. */
static void test_skip_state_steps(void **state) {
  (void)state;
  attngen_context *ctx = cpu_ctx();
  call c;
  call_make(&c, 2, 2, 100, 520, 5);
  uint16_t *dense = xcalloc(c.nq, 2), *want = xcalloc(c.nq, 2);
  assert_int_equal(attngen_fwd(ctx, &c.a), ATTNGEN_STATUS_OK);
  memcpy(dense, c.out, c.nq * 2);
  attngen_skip_state *s = NULL;
  const float T = -2.0f;
  assert_int_equal(attngen_skip_state_create(ctx, &c.a, 32, 64, T, &s), ATTNGEN_STATUS_OK);
  attngen_skip_info g;
  assert_int_equal(attngen_skip_state_info(s, &g), ATTNGEN_STATUS_OK);
  assert_int_equal(g.q_tiles, 4);
  assert_int_equal(g.kv_tiles, 9);
  uint32_t *w1 = xcalloc(g.words, 4), *w2 = xcalloc(g.words, 4), *wr = xcalloc(g.words, 4);
  uint32_t cnt[2];
  c.a.skip = s;
  /* step 1: nothing to read */
  memset(c.out, 0xFF, c.nq * 2);
  assert_int_equal(attngen_fwd(ctx, &c.a), ATTNGEN_STATUS_OK);
  assert_memory_equal(c.out, dense, c.nq * 2);
  assert_int_equal(attngen_skip_state_get_list(s, ATTNGEN_SKIP_NEXT_READ, w1), ATTNGEN_STATUS_OK);
  memset(cnt, 0, sizeof cnt);
  ref_with(&c, &g, NULL, NULL, NULL, T, want, wr, cnt);
  assert_memory_equal(w1, wr, g.words * 4);
  const int marked = popcount_words(w1, g.words);
  assert_true(marked > 0 && marked < (int)(2 * 2 * 4 * 9)); /* some tiles marked, not all */
  uint64_t sk, vi;
  double f;
  assert_int_equal(attngen_skip_state_stats(s, &sk, &vi, &f), ATTNGEN_STATUS_OK);
  assert_true(sk == 0 && vi == 2 * 2 * 4 * 9 && f == 0.0);
  /* step 2: reads w1, skips its tiles */
  assert_int_equal(attngen_fwd(ctx, &c.a), ATTNGEN_STATUS_OK);
  memset(cnt, 0, sizeof cnt);
  ref_with(&c, &g, w1, NULL, NULL, T, want, wr, cnt);
  assert_memory_equal(c.out, want, c.nq * 2);
  assert_memory_not_equal(c.out, dense, c.nq * 2);
  assert_int_equal(attngen_skip_state_get_list(s, ATTNGEN_SKIP_NEXT_READ, w2), ATTNGEN_STATUS_OK);
  assert_memory_equal(w2, wr, g.words * 4);
  assert_int_equal(attngen_skip_state_stats(s, &sk, &vi, &f), ATTNGEN_STATUS_OK);
  assert_int_equal(sk, (uint64_t)marked);
  assert_int_equal(sk, cnt[0]);
  assert_int_equal(vi, 2 * 2 * 4 * 9);
  assert_true(fabs(f - (double)marked / (2 * 2 * 4 * 9)) < 1e-12);
  for (size_t i = 0; i < g.words; ++i) assert_int_equal(w2[i] & w1[i], w1[i]); /* stay skipped */
  /* must-do on every tile: nothing skipped or marked, bitwise dense */
  uint32_t *all = xcalloc(g.words, 4), *ms = xcalloc(g.words, 4);
  memset(all, 0xFF, g.words * 4);
  assert_int_equal(attngen_skip_state_set_list(s, ATTNGEN_SKIP_MUST_DO, all), ATTNGEN_STATUS_OK);
  assert_int_equal(attngen_fwd(ctx, &c.a), ATTNGEN_STATUS_OK);
  assert_memory_equal(c.out, dense, c.nq * 2);
  assert_int_equal(attngen_skip_state_get_list(s, ATTNGEN_SKIP_NEXT_READ, w2), ATTNGEN_STATUS_OK);
  assert_int_equal(popcount_words(w2, g.words), 0);
  assert_int_equal(attngen_skip_state_set_list(s, ATTNGEN_SKIP_MUST_DO, NULL), ATTNGEN_STATUS_OK);
  /* must-skip tile (b 0, h 0, qt 0, kt 0) after a reset: only it is skipped */
  ms[0] = 1u;
  assert_int_equal(attngen_skip_state_set_list(s, ATTNGEN_SKIP_MUST_SKIP, ms), ATTNGEN_STATUS_OK);
  assert_int_equal(attngen_skip_state_get_list(s, ATTNGEN_SKIP_MUST_SKIP, w2), ATTNGEN_STATUS_OK);
  assert_memory_equal(w2, ms, g.words * 4);
  assert_int_equal(attngen_skip_state_reset(s), ATTNGEN_STATUS_OK);
  assert_int_equal(attngen_fwd(ctx, &c.a), ATTNGEN_STATUS_OK);
  memset(cnt, 0, sizeof cnt);
  ref_with(&c, &g, NULL, ms, NULL, T, want, wr, cnt);
  assert_memory_equal(c.out, want, c.nq * 2);
  assert_int_equal(cnt[0], 1);
  assert_int_equal(attngen_skip_state_stats(s, &sk, &vi, &f), ATTNGEN_STATUS_OK);
  assert_int_equal(sk, 1);
  /* NEXT_READ set by hand: the next call reads exactly it */
  assert_int_equal(attngen_skip_state_set_list(s, ATTNGEN_SKIP_MUST_SKIP, NULL), ATTNGEN_STATUS_OK);
  assert_int_equal(attngen_skip_state_set_list(s, ATTNGEN_SKIP_NEXT_READ, w1), ATTNGEN_STATUS_OK);
  assert_int_equal(attngen_fwd(ctx, &c.a), ATTNGEN_STATUS_OK);
  ref_with(&c, &g, w1, NULL, NULL, T, want, wr, cnt);
  assert_memory_equal(c.out, want, c.nq * 2);
  /* threshold -inf: the written list holds only the skipped tiles */
  assert_int_equal(attngen_skip_state_set_threshold(s, -INFINITY), ATTNGEN_STATUS_OK);
  assert_int_equal(attngen_skip_state_reset(s), ATTNGEN_STATUS_OK);
  assert_int_equal(attngen_fwd(ctx, &c.a), ATTNGEN_STATUS_OK);
  assert_memory_equal(c.out, dense, c.nq * 2);
  assert_int_equal(attngen_skip_state_get_list(s, ATTNGEN_SKIP_NEXT_READ, w2), ATTNGEN_STATUS_OK);
  assert_int_equal(popcount_words(w2, g.words), 0);
  attngen_skip_state_destroy(s);
  free(all);
  free(ms);
  free(w1);
  free(w2);
  free(wr);
  free(dense);
  free(want);
  call_free(&c);
  attngen_destroy(ctx);
}

/* Every refusal names its argument and writes nothing (out and the lists untouched). */
static void test_skip_state_bad_args(void **state) {
  (void)state;
  attngen_context *ctx = cpu_ctx(), *ctx2 = cpu_ctx();
  call c;
  call_make(&c, 1, 2, 40, 200, 9);
  attngen_skip_state *s = (attngen_skip_state *)&c, *ok = NULL;
  static const struct {
    int bm, bn;
    float t;
    const char *needle;
  } bad[] = {{0, 0, 0.0f, "threshold_log2 = 0"},   {0, 0, NAN, "threshold_log2 = nan"},
             {0, 0, INFINITY, "threshold_log2 = inf"}, {-1, 0, -6.0f, "block_m = -1"},
             {0, -8, -6.0f, "block_n = -8"}};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
    s = (attngen_skip_state *)&c;
    assert_int_equal(attngen_skip_state_create(ctx, &c.a, bad[i].bm, bad[i].bn, bad[i].t, &s),
                     ATTNGEN_STATUS_INVALID_ARGUMENT);
    assert_null(s);
    assert_non_null(strstr(attngen_last_error(), bad[i].needle));
  }
  assert_int_equal(attngen_skip_state_create(NULL, &c.a, 0, 0, -6.0f, &s),
                   ATTNGEN_STATUS_NULL_POINTER);
  assert_int_equal(attngen_skip_state_create(ctx, NULL, 0, 0, -6.0f, &s),
                   ATTNGEN_STATUS_NULL_POINTER);
  attngen_fwd_args shape = c.a;
  shape.heads = 0; /* an invalid shape: attngen_fwd's own check and message */
  assert_int_equal(attngen_skip_state_create(ctx, &shape, 0, 0, -6.0f, &s),
                   ATTNGEN_STATUS_BAD_SHAPE);
  static const int32_t cu[2] = {0, 40};
  shape = c.a;
  shape.cu_seqlens_q = shape.cu_seqlens_k = cu;
  shape.total_q = shape.total_kv = 40;
  shape.layout = ATTNGEN_LAYOUT_BSHD;
  assert_int_equal(attngen_skip_state_create(ctx, &shape, 0, 0, -6.0f, &s),
                   ATTNGEN_STATUS_INVALID_ARGUMENT);
  assert_non_null(strstr(attngen_last_error(), "args.cu_seqlens_q"));
  assert_int_equal(attngen_skip_state_create(ctx, &c.a, 0, 0, -6.0f, &ok), ATTNGEN_STATUS_OK);
  assert_int_equal(attngen_skip_state_set_threshold(ok, 1.0f), ATTNGEN_STATUS_INVALID_ARGUMENT);
  assert_int_equal(attngen_skip_state_set_list(ok, (attngen_skip_list)7, NULL),
                   ATTNGEN_STATUS_INVALID_ARGUMENT);
  assert_non_null(strstr(attngen_last_error(), "which = 7"));
  assert_int_equal(attngen_skip_state_reset(NULL), ATTNGEN_STATUS_NULL_POINTER);
  /* calls: another shape, another context, a packed batch */
  static const struct {
    int which;
    attngen_status st;
    const char *needle;
  } calls[] = {{0, ATTNGEN_STATUS_BAD_SHAPE, "args.skip was made for batch 1, heads 2"},
               {1, ATTNGEN_STATUS_INVALID_ARGUMENT, "args.skip was created on another context"},
               {2, ATTNGEN_STATUS_INVALID_ARGUMENT, "args.skip with args.cu_seqlens_q"}};
  for (size_t i = 0; i < sizeof calls / sizeof calls[0]; ++i) {
    attngen_fwd_args a = c.a;
    a.skip = ok;
    attngen_context *on = ctx;
    if (calls[i].which == 0) a.seqlen_q = 39;
    if (calls[i].which == 1) on = ctx2;
    if (calls[i].which == 2) {
      a.layout = ATTNGEN_LAYOUT_BSHD;
      a.cu_seqlens_q = a.cu_seqlens_k = cu;
      a.total_q = a.total_kv = 40;
    }
    memset(c.out, 0xEE, c.nq * 2);
    assert_int_equal(attngen_fwd(on, &a), calls[i].st);
    assert_non_null(strstr(attngen_last_error(), calls[i].needle));
    for (size_t j = 0; j < c.nq; ++j) assert_int_equal(c.out[j], 0xEEEE);
    attngen_choice ch;
    assert_int_equal(attngen_explain(on, &a, &ch), calls[i].st);
    assert_int_equal(attngen_prepare(on, &a), calls[i].st);
  }
  attngen_skip_info info;
  assert_int_equal(attngen_skip_state_info(ok, &info), ATTNGEN_STATUS_OK);
  assert_int_equal(info.calls, 0); /* nothing ran */
  attngen_skip_state_destroy(ok);
  call_free(&c);
  attngen_destroy(ctx);
  attngen_destroy(ctx2);
}

/* The dispatcher pairs args.skip with skip=on variants: on the emu backend the gfx942 skip
 * kernels (head_dim 64, 128 and 256, no causal mask) give a plain call's state their grid
 * (head_dim 128: 256 x 96, q2 kv96 w8; the nosplit one, as 4 KV tiles make no split of whole
 * list words; head_dim 64: 256 x 128; head_dim 256: 256 x 32); a causal call has no skip
 * variant (NO_VARIANT naming args.skip), forced skip=on names of unbuilt families (causal)
 * are refused by the generator's rule 'skip', and a forced tail split skip name is served
 * (the same grid). */
static void test_skip_state_no_variant(void **state) {
  (void)state;
  attngen_context *ctx = NULL;
  attngen_context_options o = {"emu", 0};
  if (attngen_create(&ctx, &o) != ATTNGEN_STATUS_OK) {
    printf("SKIPPED: the emu backend is not available here (%s) [ATTNGEN_REQUIRE_CLANG19]\n",
           attngen_last_error());
    skip();
  }
  attngen_fwd_args a;
  attngen_fwd_args_init(&a);
  a.batch = 1;
  a.heads = 2;
  a.seqlen_q = 300;
  a.seqlen_kv = 300;
  attngen_skip_state *s = NULL;
  assert_int_equal(attngen_skip_state_create(ctx, &a, 0, 0, -6.0f, &s), ATTNGEN_STATUS_OK);
  attngen_skip_info info;
  assert_int_equal(attngen_skip_state_info(s, &info), ATTNGEN_STATUS_OK);
  assert_int_equal(info.block_m, 256);
  assert_int_equal(info.block_n, 96);
  assert_int_equal(info.q_tiles, 2);
  assert_int_equal(info.kv_tiles, 4);
  assert_non_null(strstr(info.variant, "_q2_kv96_w8_nosplit_vt_skip_mfma_gfx942"));
  attngen_skip_state_destroy(s);
  s = NULL;
  a.causal = 1;
  assert_int_equal(attngen_skip_state_create(ctx, &a, 0, 0, -6.0f, &s), ATTNGEN_STATUS_NO_VARIANT);
  assert_null(s);
  assert_non_null(strstr(attngen_last_error(), "args.skip: no embedded gfx942 variant skips"));
  a.variant = "attn_fwd_d128_bshd_rtne_q2_kv96_w8_nosplit_vt_causal_skip_mfma_gfx942";
  assert_int_equal(attngen_skip_state_create(ctx, &a, 0, 0, -6.0f, &s), ATTNGEN_STATUS_NO_VARIANT);
  assert_non_null(strstr(attngen_last_error(), "rule 'skip'"));
  a.head_dim = 64;
  a.variant = "attn_fwd_d64_bshd_rtne_q2_kv128_w8_nosplit_vt_causal_skip_mfma_gfx942";
  assert_int_equal(attngen_skip_state_create(ctx, &a, 0, 0, -6.0f, &s), ATTNGEN_STATUS_NO_VARIANT);
  assert_non_null(strstr(attngen_last_error(), "rule 'skip'"));
  assert_null(s);
  a.causal = 0;
  a.variant = NULL;
  /* head_dim 64 and 256: the dispatcher's own pick, the dense default's tile */
  static const struct { int d, block_n, kv_tiles; const char *tail; } hd[] = {
      {64, 128, 3, "_q2_kv128_w8_nosplit_vt_skip_mfma_gfx942"},
      {256, 32, 10, "_q2_kv32_w8_nosplit_vt_skip_mfma_gfx942"}};
  for (int i = 0; i < 2; ++i) {
    a.head_dim = hd[i].d;
    assert_int_equal(attngen_skip_state_create(ctx, &a, 0, 0, -6.0f, &s), ATTNGEN_STATUS_OK);
    assert_int_equal(attngen_skip_state_info(s, &info), ATTNGEN_STATUS_OK);
    assert_int_equal(info.block_m, 256);
    assert_int_equal(info.block_n, hd[i].block_n);
    assert_int_equal(info.q_tiles, 2);
    assert_int_equal(info.kv_tiles, hd[i].kv_tiles);
    assert_non_null(strstr(info.variant, hd[i].tail));
    assert_int_equal(strncmp(info.variant, hd[i].d == 64 ? "attn_fwd_d64_" : "attn_fwd_d256_",
                             hd[i].d == 64 ? 13 : 14), 0);
    attngen_skip_state_destroy(s);
    s = NULL;
  }
  a.head_dim = D;
  a.variant = "attn_fwd_d128_bshd_rtne_q2_kv96_w8_tail_vt_skip_mfma_gfx942";
  assert_int_equal(attngen_skip_state_create(ctx, &a, 0, 0, -6.0f, &s), ATTNGEN_STATUS_OK);
  assert_int_equal(attngen_skip_state_info(s, &info), ATTNGEN_STATUS_OK);
  assert_string_equal(info.variant, a.variant);
  assert_int_equal(info.block_m, 256);
  assert_int_equal(info.block_n, 96);
  attngen_skip_state_destroy(s);
  attngen_destroy(ctx);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_skip_state_create_info),
      cmocka_unit_test(test_skip_state_steps),
      cmocka_unit_test(test_skip_state_bad_args),
      cmocka_unit_test(test_skip_state_no_variant),
  };
  return attngen_test_exit(cmocka_run_group_tests(tests, NULL, NULL));
}
