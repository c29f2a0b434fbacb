/* test_emu_numerics.c: every default gfx942 variant (attngen__manifest, target gfx942) run
 * through the public API on the emu backend (the wave64 emulator, CPU only) and held to
 * docs/NUMERICS.md: the CPU reference with the variant's softmax step and tail split plan
 * (attngen__ref_follow_call) within 1 bf16 ULP, NaN/Inf positions and encoding exact, the
 * fp64 sanity bound, LSE, every element written (poisoned output), nothing written outside
 * (guard bands around out and LSE), and bitwise determinism across two emulator contexts
 * with different wave-interleaving seeds (ATTNGEN_EMU_SEED). Shapes per variant: Skv = 0,
 * Sq = 1, a ragged pair, several KV tiles, a call whose tail q-jobs are split (tail variants;
 * the plan is checked) and one where only the last job of several rounds is split. Inputs:
 * uniform, large scores (|t| ~ 100) and NaN/Inf planted. Input seeds are fresh per run
 * (printed; ATTNGEN_TEST_SEED=N repeats one). Prints its duration and the emulator's rate. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#define ATTNGEN_TEST_REQUIRE "ATTNGEN_REQUIRE_CLANG19" /* what a skip here lacks (test_skip.h) */
#include "test_skip.h"

#include "verify.h"
#include "attngen.h"

#define D ATTNGEN__HEAD_DIM
#define LSE_GUARD 64
#define LSE_CANARY (-777.25f)
#define LSE_POISON 12345.0f
#define EMU_CUS "8" /* the split expectations below are for 8 compute units */

typedef enum { PLANT_NONE = 0, PLANT_NAN_INF = 1 } plant_kind;

/* One call of the matrix. split: 1 = tail variants must split (nosplit variants never do),
 * 0 = nobody may split, -1 = not checked. */
typedef struct emu_case {
  int batch, heads, seqlen_q, seqlen_kv;
  attngen__input_kind inputs;
  plant_kind plant;
  int split;
  const char *what;
  float scale; /* softmax_scale; 0 in the table means the default 1/sqrt(128), so zero scales
                  are written ZERO_SCALE / NEG_ZERO_SCALE */
} emu_case;

#define DEFAULT_SCALE 0.08838834764831845f
#define NEG_SCALE (-0.08838834764831845f) /* the kernel negates Q to keep its max over raw s */
#define ZERO_SCALE 1.0f                    /* marker values, mapped in scale_of() */
#define NEG_ZERO_SCALE 2.0f

static float scale_of(const emu_case *c) {
  if (c->scale == 0.0f) return DEFAULT_SCALE;
  if (c->scale == ZERO_SCALE) return 0.0f;
  if (c->scale == NEG_ZERO_SCALE) return -0.0f;
  return c->scale;
}

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The cases of one variant; Skv of the split cases depends on its KV tile (the planner wants
 * at least 8 tiles and an idle half of the 8 CUs). */
static size_t cases_for(const attngen__variant_desc *v, emu_case *out) {
  /* 10 KV tiles, the last one partial (15 keys short), whatever the variant's tile */
  const int split_kv = 10 * v->kv_tile - 15;
  const emu_case c[] = {
      {1, 1, 1, 0, ATTNGEN__INPUT_UNIFORM, PLANT_NONE, 0, "Skv = 0"},
      {1, 2, 1, 17, ATTNGEN__INPUT_UNIFORM, PLANT_NONE, 0, "Sq = 1, one partial tile"},
      {1, 2, 17, 130, ATTNGEN__INPUT_LARGE, PLANT_NONE, 0, "ragged, large scores"},
      {2, 1, 130, 385, ATTNGEN__INPUT_UNIFORM, PLANT_NAN_INF, -1, "several tiles, NaN/Inf"},
      {2, 2, 64, 385, ATTNGEN__INPUT_LARGE, PLANT_NONE, -1, "several tiles, large scores"},
      {1, 2, 64, split_kv, ATTNGEN__INPUT_LARGE, PLANT_NONE, 1, "split tail, large scores"},
      {1, 2, 17, split_kv, ATTNGEN__INPUT_UNIFORM, PLANT_NAN_INF, 1, "split tail, NaN/Inf"},
      /* 9 jobs on 8 slots: the first round runs whole, the last job is split */
      {1, 9, 1, split_kv, ATTNGEN__INPUT_UNIFORM, PLANT_NONE, 1, "rounds + split last job", 0},
      {1, 2, 33, 200, ATTNGEN__INPUT_LARGE, PLANT_NONE, -1, "negative scale, large scores",
       NEG_SCALE},
      /* Every finite scale gives the contract's result (issue 29): keys past Skv were set to
       * -inf before the scale multiplied them (-inf * 0 = NaN: every row NaN, status OK), and
       * with |t| >= 2^24 the fma form's x at a row's max reached +4096 (p = +Inf, NaN rows).
       * A ragged tile (47 keys) so that keys past Skv exist. */
      {1, 2, 33, 47, ATTNGEN__INPUT_UNIFORM, PLANT_NONE, -1, "zero scale", ZERO_SCALE},
      {1, 1, 17, 47, ATTNGEN__INPUT_UNIFORM, PLANT_NONE, -1, "negative zero scale",
       NEG_ZERO_SCALE},
      {1, 2, 33, 47, ATTNGEN__INPUT_UNIFORM, PLANT_NONE, -1, "scale 1e10", 1e10f},
      {1, 1, 17, 200, ATTNGEN__INPUT_LARGE, PLANT_NONE, -1, "scale -3e7, large scores", -3e7f},
  };
  memcpy(out, c, sizeof c);
  return sizeof c / sizeof c[0];
}

/* NaN in one key of (0, 0) (the key sits in a later part when the row is split), +Inf in the
 * last query row of the last (b, h) (its k values have both signs: Inf - Inf = NaN), +Inf and
 * -Inf in two value columns of the last (b, h). */
static void plant_special(attngen__inputs *in) {
  const attngen__out_view q = attngen__view_out(in->q, in->layout, in->heads, in->seqlen_q);
  const attngen__out_view k = attngen__view_out(in->k, in->layout, in->heads, in->seqlen_kv);
  const attngen__out_view v = attngen__view_out(in->v, in->layout, in->heads, in->seqlen_kv);
  const int lb = in->batch - 1, lh = in->heads - 1;
  attngen__plant(k, 0, 0, in->seqlen_kv * 2 / 3, 17, ATTNGEN__BF16_NAN);
  attngen__plant(q, lb, lh, in->seqlen_q - 1, 3, ATTNGEN__BF16_POS_INF);
  attngen__plant(v, lb, lh, 0, 40, ATTNGEN__BF16_POS_INF);
  attngen__plant(v, lb, lh, in->seqlen_kv - 1, 41, ATTNGEN__BF16_NEG_INF);
}

/* Output of one emulator run: guarded bf16 output and guarded LSE. */
typedef struct run_out {
  attngen__guarded out;
  float *lse_base, *lse; /* lse = lse_base + LSE_GUARD */
  int64_t nl;
} run_out;

static void run_out_alloc(run_out *r, int64_t n, int64_t nl) {
  memset(r, 0, sizeof *r);
  assert_int_equal(attngen__guarded_alloc(&r->out, n, ATTNGEN__GUARD_ELEMS), ATTNGEN_STATUS_OK);
  attngen__guarded_poison(&r->out);
  r->nl = nl;
  r->lse_base = malloc(sizeof(float) * (size_t)(nl + 2 * LSE_GUARD));
  assert_non_null(r->lse_base);
  r->lse = r->lse_base + LSE_GUARD;
  for (int64_t i = 0; i < nl + 2 * LSE_GUARD; ++i) r->lse_base[i] = LSE_CANARY;
  for (int64_t i = 0; i < nl; ++i) r->lse[i] = LSE_POISON;
}

static int64_t lse_guard_bad(const run_out *r) {
  int64_t bad = 0;
  for (int64_t i = 0; i < LSE_GUARD; ++i) {
    bad += r->lse_base[i] != LSE_CANARY;
    bad += r->lse[r->nl + i] != LSE_CANARY;
  }
  return bad;
}

static void run_out_free(run_out *r) {
  attngen__guarded_free(&r->out);
  free(r->lse_base);
}

typedef struct env {
  attngen_context *ctx[2]; /* two emulator contexts, different wave-order seeds */
  uint64_t seed;
  int seed_fixed;
  int runs, failures;
  double ref_s;
} env;

static env E;

static int setup(void **state) {
  (void)state;
  memset(&E, 0, sizeof E);
  const char *s = getenv("ATTNGEN_TEST_SEED");
  if (s && *s) {
    E.seed = strtoull(s, NULL, 10);
    E.seed_fixed = 1;
  } else {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    attngen__rng r;
    attngen__rng_seed(&r, (uint64_t)ts.tv_sec * 1000003ull ^ (uint64_t)ts.tv_nsec ^
                              ((uint64_t)getpid() << 40));
    E.seed = attngen__rng_next(&r) % 1000000000ull;
  }
  setenv("ATTNGEN_EMU_CUS", EMU_CUS, 1);
  static const char *const wave_seeds[2] = {"1", "987654321"};
  for (int i = 0; i < 2; ++i) {
    setenv("ATTNGEN_EMU_SEED", wave_seeds[i], 1);
    attngen_context_options o = {"emu", 0};
    if (attngen_create(&E.ctx[i], &o) != ATTNGEN_STATUS_OK) E.ctx[i] = NULL;
  }
  unsetenv("ATTNGEN_EMU_SEED");
  return 0;
}

static int teardown(void **state) {
  (void)state;
  attngen_destroy(E.ctx[0]);
  attngen_destroy(E.ctx[1]);
  return 0;
}

/* Runs one case of one variant on both contexts and checks everything; returns 1 on pass
 * (prints a report block on failure). */
static int run_case(const attngen__variant_desc *var, const emu_case *c, uint64_t seed) {
  const attngen_layout layout = (attngen_layout)var->layout;
  const attngen_rounding mode = (attngen_rounding)var->rounding;
  const float scale = scale_of(c);
  attngen__inputs in;
  assert_int_equal(attngen__inputs_make(&in, c->inputs, seed, layout, c->batch, c->heads,
                                        c->seqlen_q, c->seqlen_kv,
                                        scale != 0.0f ? scale : DEFAULT_SCALE),
                   ATTNGEN_STATUS_OK);
  if (c->plant == PLANT_NAN_INF && c->seqlen_kv > 0) plant_special(&in);
  const int64_t n = (int64_t)c->batch * c->heads * c->seqlen_q * D;
  const int64_t nl = (int64_t)c->batch * c->heads * c->seqlen_q;

  attngen_fwd_args a;
  attngen_fwd_args_init(&a);
  a.q = in.q;
  a.k = in.k;
  a.v = in.v;
  a.batch = c->batch;
  a.heads = c->heads;
  a.seqlen_q = c->seqlen_q;
  a.seqlen_kv = c->seqlen_kv;
  a.layout = layout;
  a.rounding = mode;
  a.softmax_scale = scale;
  a.variant = var->name;

  char problems[1024] = "";
  size_t pl = 0;
#define PROBLEM(...)                                                                 \
  (pl += (size_t)snprintf(problems + pl, pl < sizeof problems ? sizeof problems - pl : 0, \
                          __VA_ARGS__))

  attngen_choice ch;
  assert_int_equal(attngen_explain(E.ctx[0], &a, &ch), ATTNGEN_STATUS_OK);
  if (!ch.embedded) PROBLEM(" variant not compiled into the emulator;");
  if (c->split >= 0) {
    const int want = c->split && var->kv_split == ATTNGEN__SPLIT_TAIL;
    if ((ch.num_splits > 1) != want)
      PROBLEM(" plan: %d KV parts, expected %s;", ch.num_splits, want ? "a split" : "none");
  }

  run_out r[2];
  for (int i = 0; i < 2; ++i) {
    run_out_alloc(&r[i], n, nl);
    a.out = r[i].out.data;
    a.lse = r[i].lse;
    attngen_status st = attngen_fwd(E.ctx[i], &a);
    if (st == ATTNGEN_STATUS_OK) st = attngen_synchronize(E.ctx[i], NULL);
    if (st != ATTNGEN_STATUS_OK) PROBLEM(" run %d: %s: %s;", i, attngen_status_name(st),
                                         attngen_last_error());
  }

  /* The reference following the kernel's softmax step and tail split, the fp64 bound, the
   * comparator and the LSE check (verify.h); strict: the emulated exp2 is exact, so no
   * P-rounding-boundary tolerance. */
  const double t0 = now_s();
  attngen__verify_args va = {E.ctx[0], &a, &in, r[0].out.data, r[0].lse, 1, 1, NULL};
  attngen__verify_result vr;
  assert_int_equal(attngen__verify_run(&va, &vr), ATTNGEN_STATUS_OK);
  E.ref_s += now_s() - t0;
  if ((vr.kv_per_split > 0) != (ch.num_splits > 1)) PROBLEM(" reference split != plan;");
  if (!vr.out.pass) PROBLEM(" output vs reference;");
  if (!vr.lse.pass) PROBLEM(" lse;");
  int64_t first = 0;
  for (int i = 0; i < 2; ++i) {
    const int64_t g = attngen__guarded_check(&r[i].out, &first);
    if (g) PROBLEM(" run %d: %lld out guard elements overwritten (first at %lld);", i,
                   (long long)g, (long long)first);
    const int64_t lg = lse_guard_bad(&r[i]);
    if (lg) PROBLEM(" run %d: %lld LSE guard values overwritten;", i, (long long)lg);
  }
  int64_t differ = 0;
  for (int64_t i = 0; i < n; ++i) differ += r[0].out.data[i] != r[1].out.data[i];
  for (int64_t i = 0; i < nl; ++i) differ += memcmp(&r[0].lse[i], &r[1].lse[i], 4) != 0;
  if (differ) PROBLEM(" %lld values differ between wave seeds;", (long long)differ);

  const int pass = pl == 0;
  if (!pass) {
    char title[512];
    snprintf(title, sizeof title, "FAIL %s %dx%dx%dx%d (%s, scale %g) seed %llu: %s\n  plan: "
             "%d part(s), "
             "grid %u, workspace %zu bytes, reference step %d, kv_per_split %d\n  output",
             var->name, c->batch, c->heads, c->seqlen_q, c->seqlen_kv, c->what, (double)scale,
             (unsigned long long)seed, problems, ch.num_splits, ch.grid[0], ch.workspace_bytes,
             vr.kv_step, vr.kv_per_split);
    attngen__compare_print(stdout, title, &vr.out);
    attngen__compare_lse_print(stdout, &vr.lse);
  }
#undef PROBLEM
  run_out_free(&r[0]);
  run_out_free(&r[1]);
  attngen__inputs_free(&in);
  return pass;
}

static void test_emu_numerics_all_gfx942_variants(void **state) {
  (void)state;
  /* the emu backend is part of every build: not opening is a failure (it was a skip) */
  if (!E.ctx[0] || !E.ctx[1]) fail_msg("the emu backend does not open (%s)", attngen_last_error());
  size_t nvar = 0;
  for (size_t i = 0; i < attngen__manifest_count; ++i)
    nvar += attngen__manifest[i].name && attngen__manifest[i].target == ATTNGEN__TARGET_GFX942;
  if (attngen__emu_kernel_count == 0) {
    print_message("SKIPPED: no gfx942 variants compiled for the emulator (clang++-19 missing)\n");
    skip();
    return;
  }
  assert_true(nvar > 0);
  print_message("emu numerics: %zu gfx942 variants, input seed %llu%s\n", nvar,
                (unsigned long long)E.seed, E.seed_fixed ? " (ATTNGEN_TEST_SEED)" : "");
  attngen__emu_stats s0, s1;
  attngen__emu_get_stats(&s0);
  const double t0 = now_s();
  uint64_t seed = E.seed;
  for (size_t i = 0; i < attngen__manifest_count; ++i) {
    const attngen__variant_desc *var = &attngen__manifest[i];
    if (!var->name || var->target != ATTNGEN__TARGET_GFX942) continue;
    emu_case cases[24];
    const size_t nc = cases_for(var, cases);
    const double tv = now_s();
    int bad = 0;
    for (size_t ci = 0; ci < nc; ++ci) {
      ++E.runs;
      if (!run_case(var, &cases[ci], seed++)) ++bad;
    }
    E.failures += bad;
    print_message("  %-56s %zu cases %s  %.2f s\n", var->name, nc, bad ? "FAIL" : "pass",
                  now_s() - tv);
  }
  attngen__emu_get_stats(&s1);
  const double total = now_s() - t0;
  const double emu_s = s1.seconds - s0.seconds;
  print_message("emu numerics: %d runs (x2 wave seeds), %d failed, %.1f s total (emulator "
                "%.1f s, reference %.1f s); emulator %.3g MFMA/s (%llu MFMA in %llu blocks)\n",
                E.runs, E.failures, total, emu_s, E.ref_s,
                emu_s > 0 ? (double)(s1.mfma - s0.mfma) / emu_s : 0.0,
                (unsigned long long)(s1.mfma - s0.mfma),
                (unsigned long long)(s1.blocks - s0.blocks));
  assert_int_equal(E.failures, 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_emu_numerics_all_gfx942_variants),
  };
  return attngen_test_exit(cmocka_run_group_tests(tests, setup, teardown));
}
