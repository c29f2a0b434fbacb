/* test_emu_numerics.c: every default gfx942 variant (attngen__manifest, target gfx942), and
 * every variant of the gfx942 search space (JIT-compiled for the emulator, runtime/src/
 * jit_host.c), run through the public API on the emu backend (the wave64 emulator, CPU only)
 * and held to docs/NUMERICS.md: the CPU reference with the variant's softmax step and tail
 * split plan (attngen__ref_follow_call) within 1 bf16 ULP, NaN/Inf positions and encoding exact, the
 * fp64 sanity bound, LSE, every element written (poisoned output), nothing written outside
 * (guard bands around out and LSE), and bitwise determinism across two emulator contexts
 * with different wave-interleaving seeds (ATTNGEN_EMU_SEED). Cases per variant: the
 * contract's case set (attngen__contract_cases: Skv = 0, Sq = 1, a ragged pair, several KV
 * tiles, a call whose tail q-jobs are split (tail variants; the plan is checked) and one where
 * only the last job of several rounds is split, a negative scale, scales 0, -0, 1e10 and
 * -3e7 (issue 29); uniform, large scores (|t| ~ 100) and NaN/Inf planted; per-batch key
 * lengths (args.kv_lengths) 0, 1, Skv, ragged, negative, > Skv, a split whose later parts are
 * empty, with NaN/Inf in every masked key). The search
 * space's JIT objects are compiled 2 at a time (ATTNGEN_TEST_JOBS=N) into
 * build/emu-jit-cache, so a second run loads them; to keep CI short each of its variants runs
 * every third case of the set (the k-th variant: cases k mod 3, +3, +6, ..., so every case
 * runs on a third of the variants; ATTNGEN_TEST_ALL_CASES=1 runs all, as `attngen check
 * --all` does). Each variant runs at its own head_dim (64, 128 or 256: inputs, call and
 * reference); at head_dim 256 the cases' default scale is 1/sqrt(256) = 1/16 (and -1/16 for
 * the negative one) instead of 1/sqrt(128). Input seeds are fresh per run (printed;
 * ATTNGEN_TEST_SEED=N repeats one). Prints its duration and the emulator's rate.
 * --varlen (its own ctest entry, test_emu_numerics_varlen): packed variable-length batches
 * on the default gfx942 variants (against the per-sequence dense calls, and with garbage
 * cu_seqlens; causal variants with args.causal = 1), and the causal kernels' KV range (the
 * emulator's MFMA count: the tiles past each block's diagonal are skipped), and the causal
 * variants on the case set above with args.causal = 1, without its NaN/Inf cases (every
 * other case per variant).
 * --skip (its own ctest entry, test_emu_numerics_skip): the default gfx942 tile-skipping
 * variants (skip = on; head_dim 64, 128 and 256) on the case set (every other case per variant, rotating; all with
 * ATTNGEN_TEST_ALL_CASES=1): a skip state's first call (no read list) bitwise equal
 * to the dense variant's output and LSE; then three calls (random must-skip / must-do masks
 * on every other case; a fresh list, a random read list, the list written by the call
 * before) each held to the reference run on the same lists (docs/NUMERICS.md "Tile
 * skipping": output to the contract, written list and counts bit for bit), the first on both
 * wave-order seeds (same output, list and counts); the tail variants also on a call that
 * splits (2 parts of 32 tiles, key lengths that leave a part past its entry's length and an
 * entry without keys), with and without masks. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#define ATTNGEN_TEST_REQUIRE "ATTNGEN_REQUIRE_CLANG19" /* what a skip here lacks (test_skip.h) */
#include "test_skip.h"

#include "verify.h"
#include "attngen.h"

#define LSE_GUARD 64
#define LSE_CANARY (-777.25f)
#define LSE_POISON 12345.0f
#define EMU_CUS "8" /* the split expectations below are for 8 compute units */

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
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
static int run_case(const attngen__variant_desc *var, const attngen__contract_case *c,
                    uint64_t seed) {
  const attngen_layout layout = (attngen_layout)var->layout;
  const attngen_rounding mode = (attngen_rounding)var->rounding;
  const float scale = c->scale;
  const int builtin = attngen__emu_find(var->name) != NULL;
  const int D = attngen__desc_head_dim(var); /* the variant's head_dim: inputs and call */
  attngen__inputs in;
  assert_int_equal(attngen__inputs_make_hd(&in, c->inputs, seed, layout, c->batch, c->heads,
                                           c->heads_kv, c->seqlen_q, c->seqlen_kv, D,
                                           scale != 0.0f ? scale : ATTNGEN__DEFAULT_SCALE),
                   ATTNGEN_STATUS_OK);
  if (c->special) attngen__plant_special(&in);
  const int32_t *kvl = c->nkvl ? c->kvl : NULL;
  assert_true(c->nkvl == 0 || c->nkvl == c->batch);
  if (kvl) attngen__plant_masked(&in, kvl);
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
  a.kv_lengths = kvl; /* host memory on the emu backend */
  a.heads_kv = c->heads_kv; /* k, v: heads_kv heads, read in place */
  a.head_dim = D;
  a.causal = var->mask == ATTNGEN__MASK_CAUSAL; /* a variant serves only calls of its mask */

  char problems[1024] = "";
  size_t pl = 0;
#define PROBLEM(...)                                                                 \
  (pl += (size_t)snprintf(problems + pl, pl < sizeof problems ? sizeof problems - pl : 0, \
                          __VA_ARGS__))

  attngen_choice ch;
  assert_int_equal(attngen_explain(E.ctx[0], &a, &ch), ATTNGEN_STATUS_OK);
  if (ch.embedded != builtin)
    PROBLEM(" explain says %s, the emulator table %s;", ch.embedded ? "embedded" : "not embedded",
            builtin ? "has it" : "has not");
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
  attngen__verify_args va = {E.ctx[0], &a, &in, r[0].out.data, r[0].lse, 1, 1, NULL, kvl};
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
             "%d part(s), grid %u, workspace %zu bytes, reference step %d, kv_per_split %d\n"
             "  output",
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

/* The contract cases at a variant's head_dim: at 256 the default scale (+-1/sqrt(128)) becomes
 * +-1/16, the scale such a model calls with (the other scales stay as they are). */
static void cases_for_head_dim(const attngen__variant_desc *var, attngen__contract_case *cases,
                               size_t nc) {
  if (attngen__desc_head_dim(var) != 256) return;
  for (size_t i = 0; i < nc; ++i) {
    if (cases[i].scale == ATTNGEN__DEFAULT_SCALE) cases[i].scale = 0.0625f;
    if (cases[i].scale == -ATTNGEN__DEFAULT_SCALE) cases[i].scale = -0.0625f;
  }
}

/* Causal variants run the case set with args.causal = 1, without the NaN/Inf cases
 * (docs/NUMERICS.md's causal carve-out: a non-finite v of a key a row does not see may reach
 * it through P = 0), as `attngen check --all` does. */
static int skip_case(const attngen__variant_desc *var, const attngen__contract_case *c) {
  return var->mask == ATTNGEN__MASK_CAUSAL && c->special;
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
    if (var->mask == ATTNGEN__MASK_CAUSAL) continue; /* --varlen: test_emu_numerics_causal */
    if (var->skip == ATTNGEN__SKIP_ON) continue;     /* --skip: test_emu_numerics_skip */
    attngen__contract_case cases[ATTNGEN__CONTRACT_CASES_MAX];
    const size_t nc = attngen__contract_cases(var->kv_tile, cases);
    cases_for_head_dim(var, cases, nc);
    const double tv = now_s();
    int bad = 0;
    size_t ran = 0;
    for (size_t ci = 0; ci < nc; ++ci) {
      if (skip_case(var, &cases[ci])) continue;
      ++E.runs;
      ++ran;
      if (!run_case(var, &cases[ci], seed++)) ++bad;
    }
    E.failures += bad;
    print_message("  %-56s %zu cases %s  %.2f s\n", var->name, ran, bad ? "FAIL" : "pass",
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

/* ---- packed variable-length batches ---------------------------------------------------- */

/* Packed variable-length batches (args.cu_seqlens_q/_k) on every default bshd gfx942 variant
 * without the tail split (head dims 64, 128 and 256), on the emulator: the packed call against the
 * per-sequence dense calls of the same variant (attngen__verify_packed: each dense call
 * meets the contract against the reference, strict, with the fp64 bound; the packed rows and
 * LSE equal them bit for bit, nothing unwritten, guard bands intact, two runs equal).
 * The length sets of test_gpu_sm90's packed test, smaller for the emulator: sequences of 0
 * and 1 rows, partial and several q-blocks, sequences without keys, cross lengths, GQA and
 * MQA, key lengths as well (seqused_k: -1, 0, shorter and longer than the sequence's),
 * large scores, 11 seeded lengths. Causal variants run them with args.causal = 1. The tail
 * variants refuse packed batches by name (NO_VARIANT naming args.cu_seqlens_q). */
static void test_emu_numerics_packed(void **state) {
  (void)state;
  if (!E.ctx[0]) fail_msg("the emu backend does not open (%s)", attngen_last_error());
  if (attngen__emu_kernel_count == 0) {
    print_message("SKIPPED: no gfx942 variants compiled for the emulator (clang++-19 missing)\n");
    skip();
    return;
  }
  static const int32_t aq[] = {5, 300, 0, 77, 1, 257}, ak[] = {5, 300, 0, 77, 1, 257};
  static const int32_t bq[] = {200, 1, 64, 0, 97}, bk[] = {150, 9, 0, 33, 128};
  static const int32_t bkvl[] = {100, -1, 5, 1000, 0};
  int32_t cq[11], ck[11];
  attngen__rng rng;
  attngen__rng_seed(&rng, E.seed + 25);
  for (int i = 0; i < 11; ++i) {
    cq[i] = (int32_t)(attngen__rng_next(&rng) % 300);
    ck[i] = i % 5 == 0 ? cq[i] : (int32_t)(attngen__rng_next(&rng) % 400);
  }
  print_message("emu packed: seeded lengths q {");
  for (int i = 0; i < 11; ++i) print_message("%s%d", i ? "," : "", cq[i]);
  print_message("} k {");
  for (int i = 0; i < 11; ++i) print_message("%s%d", i ? "," : "", ck[i]);
  print_message("} (input seed %llu)\n", (unsigned long long)E.seed);
  struct {
    const char *name;
    int n;
    const int32_t *q, *k, *kvl;
    int heads, heads_kv;
    attngen__input_kind kind;
  } sets[] = {{"self-gqa", 6, aq, ak, NULL, 4, 2, ATTNGEN__INPUT_REALISTIC},
              {"cross-kvlen", 5, bq, bk, bkvl, 3, 0, ATTNGEN__INPUT_LARGE},
              {"11-seeded-mqa", 11, cq, ck, NULL, 2, 1, ATTNGEN__INPUT_REALISTIC}};
  int checked = 0, refused = 0, failures = 0, per_hd[3] = {0, 0, 0};
  const double t0 = now_s();
  for (size_t i = 0; i < attngen__manifest_count; ++i) {
    const attngen__variant_desc *d = &attngen__manifest[i];
    /* (skip = on variants take no packed batch: the host refuses args.cu_seqlens_q with a
     * skip state, and a call without one does not run them) */
    if (!d->name || d->target != ATTNGEN__TARGET_GFX942 || d->layout != ATTNGEN__LAYOUT_BSHD ||
        d->skip == ATTNGEN__SKIP_ON)
      continue;
    const int hd = attngen__desc_head_dim(d);
    ++per_hd[attngen__head_dim_slot(hd)];
    const double tv = now_s();
    for (size_t si = 0; si < sizeof sets / sizeof sets[0]; ++si) {
      attngen__packed_args pa = {E.ctx[0], sets[si].n, sets[si].q, sets[si].k, sets[si].kvl,
                                 sets[si].heads, sets[si].heads_kv,
                                 (attngen_rounding)d->rounding, d->mask == ATTNGEN__MASK_CAUSAL,
                                 attngen__default_scale(hd),
                                 sets[si].kind, E.seed + si, d->name, 1, 1, NULL, hd};
      attngen__packed_result r;
      const attngen_status st = attngen__verify_packed(&pa, &r);
      if (d->kv_split == ATTNGEN__SPLIT_TAIL) {
        if (st != ATTNGEN_STATUS_NO_VARIANT || !strstr(attngen_last_error(), "args.cu_seqlens_q"))
          fail_msg("%s: a packed call gave %s (%s), expected NO_VARIANT naming "
                   "args.cu_seqlens_q", d->name, attngen_status_name(st), attngen_last_error());
        ++refused;
        break;
      }
      const int ok = st == ATTNGEN_STATUS_OK && r.pass && strcmp(r.variant, d->name) == 0;
      print_message("  %-56s %-14s %s", d->name, sets[si].name, ok ? "pass" : "FAIL");
      if (st != ATTNGEN_STATUS_OK)
        print_message(" (%s: %s)", attngen_status_name(st), attngen_last_error());
      else if (!r.pass)
        print_message(" (dense failed %d, packed != dense: %lld out, %lld LSE; unwritten %lld, "
                      "guard %lld, deterministic %d)", r.dense_failed,
                      (long long)r.out_mismatch, (long long)r.lse_mismatch,
                      (long long)r.unwritten, (long long)r.guard_damage, r.deterministic);
      print_message("\n");
      failures += !ok;
      ++checked;
    }
    if (d->kv_split != ATTNGEN__SPLIT_TAIL)
      print_message("  %-56s %.2f s\n", d->name, now_s() - tv);
  }
  print_message("emu packed: %d checks, %d failed, %d tail variants refused, %.1f s\n", checked,
                failures, refused, now_s() - t0);
  assert_int_equal(failures, 0);
  assert_true(checked >= 27); /* three roundings x three sets x three head dims */
  assert_true(refused >= 3);
  for (int j = 0; j < 3; ++j) assert_true(per_hd[j] >= 3); /* each head dim ran */
}

/* Whatever device-resident cu_seqlens hold, no access is out of bounds and each sequence is
 * what kargs.h's clamping makes of it (start = clamp(cu[b], 0, total), end = clamp(cu[b + 1],
 * 0, total), length = clamp(end - start, 0, max)): negative, decreasing, past the totals and
 * longer than the maxima, on each default bshd gfx942 variant without the split (every head dim).
 * The packed rows of each clamped sequence equal the dense call on those rows (same variant,
 * bitwise, LSE too), the rows no sequence covers keep the poison, the guard bands hold. */
static void test_emu_numerics_packed_garbage(void **state) {
  (void)state;
  if (!E.ctx[0]) fail_msg("the emu backend does not open (%s)", attngen_last_error());
  if (attngen__emu_kernel_count == 0) {
    print_message("SKIPPED: no gfx942 variants compiled for the emulator (clang++-19 missing)\n");
    skip();
    return;
  }
  enum { TQ = 130, TK = 90, MQ = 40, MK = 50, H = 2, NB = 5 };
  /* sequences, queries: [-7 -> 0, 30), [30, 70), [70, 1000 -> 130: cut to 40 = [70, 110)),
   * [1000 -> 130, 120): empty, [120, 5000 -> 130); rows [110, 120) are no sequence's.
   * keys: [0, 20), [20, 75): cut to 50, [75, -3 -> 0): none, [-3 -> 0, 60): cut to 50,
   * [60, 2000 -> 90) */
  static const int32_t cuq[NB + 1] = {-7, 30, 70, 1000, 120, 5000};
  static const int32_t cuk[NB + 1] = {0, 20, 75, -3, 60, 2000};
  int32_t qs[NB], ql[NB], ks[NB], kl[NB];
  for (int b = 0; b < NB; ++b) {
#define CL(x, t) ((x) < 0 ? 0 : (x) > (t) ? (t) : (x))
    qs[b] = CL(cuq[b], TQ);
    const int32_t qe = CL(cuq[b + 1], TQ);
    ql[b] = qe <= qs[b] ? 0 : qe - qs[b] < MQ ? qe - qs[b] : MQ;
    ks[b] = CL(cuk[b], TK);
    const int32_t ke = CL(cuk[b + 1], TK);
    kl[b] = ke <= ks[b] ? 0 : ke - ks[b] < MK ? ke - ks[b] : MK;
#undef CL
  }
  attngen__inputs ins[3]; /* head dims 64, 128, 256 */
  for (int j = 0; j < 3; ++j)
    assert_int_equal(attngen__inputs_make_hd(&ins[j], ATTNGEN__INPUT_REALISTIC, E.seed + 77,
                                             ATTNGEN_LAYOUT_BSHD, 1, H, 0, TQ, TK, 64 << j,
                                             ATTNGEN__DEFAULT_SCALE), ATTNGEN_STATUS_OK);
  int checked = 0, per_hd[3] = {0, 0, 0};
  for (size_t i = 0; i < attngen__manifest_count; ++i) {
    const attngen__variant_desc *d = &attngen__manifest[i];
    if (!d->name || d->target != ATTNGEN__TARGET_GFX942 || d->layout != ATTNGEN__LAYOUT_BSHD ||
        d->kv_split == ATTNGEN__SPLIT_TAIL ||
        d->skip == ATTNGEN__SKIP_ON) /* skip variants: no packed batches (see above) */
      continue;
    const int D = attngen__desc_head_dim(d), j = attngen__head_dim_slot(D);
    const attngen__inputs in = ins[j];
    ++per_hd[j];
    run_out r;
    run_out_alloc(&r, (int64_t)TQ * H * D, (int64_t)H * TQ);
    attngen_fwd_args a;
    attngen_fwd_args_init(&a);
    a.q = in.q;
    a.k = in.k;
    a.v = in.v;
    a.out = r.out.data;
    a.lse = r.lse;
    a.batch = NB;
    a.heads = H;
    a.seqlen_q = MQ;
    a.seqlen_kv = MK;
    a.cu_seqlens_q = cuq;
    a.cu_seqlens_k = cuk;
    a.total_q = TQ;
    a.total_kv = TK;
    a.head_dim = D;
    a.rounding = (attngen_rounding)d->rounding;
    a.causal = d->mask == ATTNGEN__MASK_CAUSAL;
    a.variant = d->name;
    assert_int_equal(attngen_fwd(E.ctx[0], &a), ATTNGEN_STATUS_OK);
    assert_int_equal(attngen_synchronize(E.ctx[0], NULL), ATTNGEN_STATUS_OK);
    assert_int_equal(attngen__guarded_check(&r.out, NULL), 0);
    assert_int_equal(lse_guard_bad(&r), 0);
    unsigned char covered[TQ] = {0};
    for (int b = 0; b < NB; ++b) {
      for (int s = 0; s < ql[b]; ++s) covered[qs[b] + s] = 1;
      if (ql[b] == 0) continue;
      uint16_t dense[MQ * H * 256];
      float dlse[H * MQ];
      attngen_fwd_args c = a;
      c.cu_seqlens_q = c.cu_seqlens_k = NULL;
      c.total_q = c.total_kv = 0;
      c.batch = 1;
      c.seqlen_q = ql[b];
      c.seqlen_kv = kl[b];
      c.q = in.q + (size_t)qs[b] * H * D;
      c.k = kl[b] ? in.k + (size_t)ks[b] * H * D : NULL;
      c.v = kl[b] ? in.v + (size_t)ks[b] * H * D : NULL;
      c.out = dense;
      c.lse = dlse;
      assert_int_equal(attngen_fwd(E.ctx[0], &c), ATTNGEN_STATUS_OK);
      assert_int_equal(attngen_synchronize(E.ctx[0], NULL), ATTNGEN_STATUS_OK);
      assert_memory_equal(r.out.data + (size_t)qs[b] * H * D, dense,
                          (size_t)ql[b] * H * D * sizeof dense[0]);
      for (int h = 0; h < H; ++h)
        assert_memory_equal(r.lse + (size_t)h * TQ + qs[b], dlse + (size_t)h * ql[b],
                            (size_t)ql[b] * sizeof dlse[0]);
    }
    for (int s = 0; s < TQ; ++s)
      for (int e = 0; e < H * D; ++e)
        if (!covered[s]) assert_int_equal(r.out.data[(size_t)s * H * D + e], 0xFFFF);
    for (int h = 0; h < H; ++h)
      for (int s = 0; s < TQ; ++s)
        if (!covered[s]) assert_true(r.lse[(size_t)h * TQ + s] == LSE_POISON);
    run_out_free(&r);
    ++checked;
  }
  for (int j = 0; j < 3; ++j) attngen__inputs_free(&ins[j]);
  print_message("emu packed, garbage cu_seqlens: %d variants (head dims 64 / 128 / 256: %d / %d "
                "/ %d), rows per sequence as clamped\n", checked, per_hd[0], per_hd[1], per_hd[2]);
  assert_true(checked >= 9);
  for (int j = 0; j < 3; ++j) assert_true(per_hd[j] >= 3);
}

/* The default causal gfx942 variants (mask = causal) on the contract's case set with
 * args.causal = 1, without its NaN/Inf cases (skip_case), as the default set above: to keep
 * CI short each runs every other case (the k-th variant: cases k mod 2, +2, ...), so every
 * case runs on half of them (ATTNGEN_TEST_ALL_CASES=1 runs all); their dense twins run every
 * case above, and the causal code is checked further by the packed and tile tests here. */
static void test_emu_numerics_causal(void **state) {
  (void)state;
  if (!E.ctx[0] || !E.ctx[1]) fail_msg("the emu backend does not open (%s)", attngen_last_error());
  if (attngen__emu_kernel_count == 0) {
    print_message("SKIPPED: no gfx942 variants compiled for the emulator (clang++-19 missing)\n");
    skip();
    return;
  }
  const char *all_env = getenv("ATTNGEN_TEST_ALL_CASES");
  const size_t stride = all_env && !strcmp(all_env, "1") ? 1 : 2;
  size_t case_runs[ATTNGEN__CONTRACT_CASES_MAX] = {0};
  uint64_t seed = E.seed + 31337;
  int checked = 0, failures = 0;
  size_t nc = 0;
  attngen__contract_case cases[ATTNGEN__CONTRACT_CASES_MAX];
  for (size_t i = 0; i < attngen__manifest_count; ++i) {
    const attngen__variant_desc *var = &attngen__manifest[i];
    if (!var->name || var->target != ATTNGEN__TARGET_GFX942 || var->mask != ATTNGEN__MASK_CAUSAL)
      continue;
    nc = attngen__contract_cases(var->kv_tile, cases);
    cases_for_head_dim(var, cases, nc);
    const double tv = now_s();
    int bad = 0;
    size_t ran = 0;
    for (size_t ci = (size_t)checked % stride; ci < nc; ci += stride) {
      if (skip_case(var, &cases[ci])) continue;
      ++ran;
      ++case_runs[ci];
      if (!run_case(var, &cases[ci], seed++)) ++bad;
    }
    ++checked;
    failures += bad;
    print_message("  %-62s %zu cases %s  %.2f s\n", var->name, ran, bad ? "FAIL" : "pass",
                  now_s() - tv);
  }
  print_message("emu causal: %d variants, %d failed cases (input seed %llu)\n", checked, failures,
                (unsigned long long)E.seed);
  assert_true(checked >= 18); /* 6 causal variants at each head_dim */
  for (size_t ci = 0; ci < nc; ++ci)
    if (!cases[ci].special) assert_true(case_runs[ci] > 0);
  assert_int_equal(failures, 0);
}

/* ---- the causal mask's KV range ---------------------------------------------------------- */

/* MFMAs one block of a gfx942 variant executes with nt KV tiles: per wave the zero-C MFMAs
 * that clear O (q_tiles x head_dim / 16) and per tile S = Q K^T (q_tiles x kv_tile / 16 x
 * head_dim / 16) and O += P V (the same count). */
static uint64_t block_mfma(const attngen__variant_desc *d, uint64_t nt) {
  const uint64_t D = (uint64_t)attngen__desc_head_dim(d), waves = (uint64_t)d->threads / 64;
  const uint64_t q = (uint64_t)d->block_m / 16 / waves, nkb = (uint64_t)d->kv_tile / 16;
  return waves * (q * D / 16 + nt * 2 * q * nkb * D / 16);
}

/* The causal kernels skip the KV tiles past each block's diagonal: on every default causal
 * gfx942 variant (head_dim 128, 64 and 256, one layout and mode each) the emulator's MFMA count of
 * a causal call is exactly that of the tiles up to each q-block's last row's diagonal
 * (kv_end = clamp(last row + 1 + Skv - Sq, 0, Skv), ceil(kv_end / kv_tile) tiles; a block
 * whose rows see no key runs none), and of a dense call all ceil(Skv / kv_tile) tiles per
 * block (the count itself checked); Sq = Skv, Sq < Skv, Sq > Skv (first blocks see no key;
 * those rows out = +0 and LSE = -inf with +Inf in a v that the other rows see). */
static void test_emu_numerics_causal_skips_tiles(void **state) {
  (void)state;
  if (!E.ctx[0]) fail_msg("the emu backend does not open (%s)", attngen_last_error());
  if (attngen__emu_kernel_count == 0) {
    print_message("SKIPPED: no gfx942 variants compiled for the emulator (clang++-19 missing)\n");
    skip();
    return;
  }
  static const int shapes[][2] = {{1024, 1024}, {300, 1000}, {900, 200}};
  int checked = 0;
  for (size_t i = 0; i < attngen__manifest_count; ++i) {
    const attngen__variant_desc *d = &attngen__manifest[i];
    if (!d->name || d->target != ATTNGEN__TARGET_GFX942 || d->mask != ATTNGEN__MASK_CAUSAL ||
        d->layout != ATTNGEN__LAYOUT_BSHD || d->rounding != ATTNGEN__ROUNDING_RTNE)
      continue;
    const int D = attngen__desc_head_dim(d), bm = d->block_m, kt = d->kv_tile;
    for (size_t si = 0; si < sizeof shapes / sizeof shapes[0]; ++si) {
      const int sq = shapes[si][0], skv = shapes[si][1];
      attngen__inputs in;
      assert_int_equal(attngen__inputs_make_hd(&in, ATTNGEN__INPUT_REALISTIC, E.seed + si,
                                               ATTNGEN_LAYOUT_BSHD, 1, 1, 0, sq, skv, D,
                                               ATTNGEN__DEFAULT_SCALE), ATTNGEN_STATUS_OK);
      uint16_t *out = malloc((size_t)sq * D * sizeof *out);
      float *lse = malloc((size_t)sq * sizeof *lse);
      assert_non_null(out);
      assert_non_null(lse);
      /* Sq > Skv: +Inf in v of key 0, which every row that sees a key sees; the rows that see
       * none (the first Sq - Skv, some in a block whose other rows see keys) stay out = +0,
       * LSE = -inf */
      if (sq > skv) in.v[0] = ATTNGEN__BF16_POS_INF;
      uint64_t want[2] = {0, 0}, got[2];
      for (int qb = 0; qb * bm < sq; ++qb) {
        const int last = (qb + 1) * bm < sq ? (qb + 1) * bm : sq;
        int kv_end = last + skv - sq;
        kv_end = kv_end < 0 ? 0 : kv_end > skv ? skv : kv_end;
        want[0] += block_mfma(d, (uint64_t)((skv + kt - 1) / kt));
        want[1] += block_mfma(d, (uint64_t)((kv_end + kt - 1) / kt));
      }
      for (int causal = 0; causal < 2; ++causal) {
        attngen_fwd_args a;
        attngen_fwd_args_init(&a);
        a.q = in.q;
        a.k = in.k;
        a.v = in.v;
        a.out = out;
        a.lse = lse;
        a.batch = 1;
        a.heads = 1;
        a.seqlen_q = sq;
        a.seqlen_kv = skv;
        a.head_dim = D;
        a.causal = causal;
        a.softmax_scale = ATTNGEN__DEFAULT_SCALE;
        /* the causal variant; the dense one of the same tiles without the split */
        char dense[128];
        snprintf(dense, sizeof dense, "%s", d->name);
        char *tok = strstr(dense, "_causal");
        assert_non_null(tok);
        memmove(tok, tok + 7, strlen(tok + 7) + 1);
        a.variant = causal ? d->name : dense;
        attngen__emu_stats s0, s1;
        attngen__emu_get_stats(&s0);
        assert_int_equal(attngen_fwd(E.ctx[0], &a), ATTNGEN_STATUS_OK);
        assert_int_equal(attngen_synchronize(E.ctx[0], NULL), ATTNGEN_STATUS_OK);
        attngen__emu_get_stats(&s1);
        got[causal] = s1.mfma - s0.mfma;
      }
      for (int r = 0; r < sq - skv; ++r) {
        for (int e = 0; e < D; ++e) assert_int_equal(out[(size_t)r * D + e], 0);
        assert_true(isinf(lse[r]) && lse[r] < 0.0f);
      }
      print_message("  %-58s Sq %4d Skv %4d: MFMA dense %llu, causal %llu (%.3f)\n", d->name,
                    sq, skv, (unsigned long long)got[0], (unsigned long long)got[1],
                    (double)got[1] / (double)got[0]);
      assert_true(got[0] == want[0]);
      assert_true(got[1] == want[1]);
      free(out);
      free(lse);
      attngen__inputs_free(&in);
      ++checked;
    }
  }
  assert_true(checked >= 9); /* head_dim 128, 64 and 256, three shapes */
}

/* ---- the search space ------------------------------------------------------------------ */

typedef struct compile_work {
  char **names;
  int count;
  int next;     /* atomic */
  int failed;   /* atomic */
  int compiled; /* atomic */
  double seconds; /* compile seconds, summed (under mutex) */
  pthread_mutex_t mutex;
} compile_work;

static void *compile_worker(void *arg) {
  compile_work *w = arg;
  for (;;) {
    const int i = __atomic_fetch_add(&w->next, 1, __ATOMIC_SEQ_CST);
    if (i >= w->count) return NULL;
    attngen__jit_request req = {w->names[i], ATTNGEN__TARGET_GFX942, NULL, 0, NULL, 1};
    attngen__jit_result r;
    if (attngen__jit_get(&req, &r) != ATTNGEN_STATUS_OK) {
      __atomic_fetch_add(&w->failed, 1, __ATOMIC_SEQ_CST);
      print_message("  JIT of %s failed: %s\n", w->names[i], attngen_last_error());
      continue;
    }
    if (r.origin == ATTNGEN__JIT_COMPILED) {
      __atomic_fetch_add(&w->compiled, 1, __ATOMIC_SEQ_CST);
      pthread_mutex_lock(&w->mutex);
      w->seconds += r.seconds;
      pthread_mutex_unlock(&w->mutex);
    }
    free(r.image);
  }
}

/* Every variant of the gfx942 search space (attngen list --search-space --target gfx942):
 * the ones not built into the emulator (the built-in ones ran above) are JIT-compiled first
 * (2 at a time, cached), then each runs a third of the contract's case set (rotating, see
 * the top; all with ATTNGEN_TEST_ALL_CASES=1) as the default set does. */
static void test_emu_numerics_search_space(void **state) {
  (void)state;
  /* the emu backend is part of every build: not opening is a failure */
  if (!E.ctx[0] || !E.ctx[1]) fail_msg("the emu backend does not open (%s)", attngen_last_error());
  if (attngen__emu_kernel_count == 0) {
    print_message("SKIPPED: no gfx942 variants compiled for the emulator (clang++-19 missing)\n");
    skip();
    return;
  }
  attngen__host_cc cc;
  if (attngen__host_cc_find(&cc) != ATTNGEN_STATUS_OK) {
    print_message("SKIPPED: the emulator's JIT has no compiler: %s\n", attngen_last_error());
    skip();
    return;
  }
  char **names = NULL, *err = NULL;
  const int n = attngen__gen_search_space("gfx942", &names, &err);
  if (n < 0) fail_msg("the gfx942 search space: %s", err ? err : "?");
  assert_true(n > (int)attngen__emu_kernel_count);
  const char *jobs_env = getenv("ATTNGEN_TEST_JOBS");
  const int jobs = jobs_env && atoi(jobs_env) > 0 && atoi(jobs_env) <= 64 ? atoi(jobs_env) : 2;
  compile_work w = {calloc((size_t)n, sizeof(char *)), 0, 0, 0, 0, 0, PTHREAD_MUTEX_INITIALIZER};
  assert_non_null(w.names);
  for (int i = 0; i < n; i++)
    if (!attngen__emu_find(names[i])) w.names[w.count++] = names[i];
  const double t0 = now_s();
  pthread_t tid[64];
  int started = 0;
  for (int t = 1; t < jobs && t < w.count; t++)
    if (pthread_create(&tid[started], NULL, compile_worker, &w) == 0) started++;
  compile_worker(&w);
  for (int t = 0; t < started; t++) pthread_join(tid[t], NULL);
  const double compile_wall = now_s() - t0;
  print_message("emu search space: %d gfx942 variants, %d built in, %d JIT: %d compiled (%.1f s "
                "of compiling, %.1f s per variant, %d at a time), %d from the cache, %d failed, "
                "%.1f s wall; input seed %llu\n",
                n, n - w.count, w.count, w.compiled, w.seconds,
                w.compiled ? w.seconds / w.compiled : 0.0, jobs, w.count - w.compiled - w.failed,
                w.failed, compile_wall, (unsigned long long)E.seed);
  assert_int_equal(w.failed, 0);
  free(w.names);

  const char *all_env = getenv("ATTNGEN_TEST_ALL_CASES");
  const int stride = all_env && !strcmp(all_env, "1") ? 1 : 3;
  const int runs0 = E.runs, failures0 = E.failures;
  const double t1 = now_s();
  uint64_t seed = E.seed + 7919;
  int checked = 0;
  size_t case_runs[ATTNGEN__CONTRACT_CASES_MAX] = {0};
  for (int i = 0; i < n; i++) {
    if (attngen__emu_find(names[i])) continue; /* built in: the test above ran it */
    attngen__variant_desc var;
    char *verr = NULL;
    if (attngen__gen_variant_desc(names[i], &var, &verr) != 0)
      fail_msg("search-space variant %s: %s", names[i], verr ? verr : "?");
    attngen__contract_case cases[ATTNGEN__CONTRACT_CASES_MAX];
    const size_t nc = attngen__contract_cases(var.kv_tile, cases);
    cases_for_head_dim(&var, cases, nc);
    const double tv = now_s();
    int bad = 0, ran = 0;
    for (size_t ci = (size_t)(checked % stride); ci < nc; ci += (size_t)stride) {
      if (skip_case(&var, &cases[ci])) continue;
      ++E.runs;
      ++ran;
      ++case_runs[ci];
      if (!run_case(&var, &cases[ci], seed++)) ++bad;
    }
    ++checked;
    E.failures += bad;
    print_message("  [%3d/%d] %-58s %d of %zu cases %s  %.2f s\n", i + 1, n, names[i], ran, nc,
                  bad ? "FAIL" : "pass", now_s() - tv);
  }
  attngen__contract_case cases[ATTNGEN__CONTRACT_CASES_MAX];
  const size_t nc = attngen__contract_cases(64, cases);
  for (size_t ci = 0; ci < nc; ci++) {
    print_message("  case '%s': run on %zu variants\n", cases[ci].what, case_runs[ci]);
    assert_true(case_runs[ci] > 0);
  }
  print_message("emu search space: %d variants checked, %d runs (x2 wave seeds), %d failed, "
                "%.1f s running, %.1f s total\n", checked, E.runs - runs0,
                E.failures - failures0, now_s() - t1, now_s() - t0);
  attngen__gen_free_names(names, n);
  assert_int_equal(E.failures - failures0, 0);
}

/* ---- --skip ------------------------------------------------------------------------------ */

/* The skip threshold of the cases: low enough that large-score inputs mark tiles, uniform
 * ones mostly not. */
#define SKIP_T (-3.0f)

typedef struct skip_totals {
  uint64_t skipped, visited, marked; /* over the checked calls; marked: W bits of call 1 */
} skip_totals;

/* One skip call on state s (ctx), output into r, held to the reference on the lists the call
 * read (rd: NULL = a fresh state; ms, md: the masks or NULL). The written list goes to w.
 * Returns 1 on pass; prints what failed. */
static int skip_call(attngen_context *ctx, attngen_skip_state *s, attngen_fwd_args *a,
                     const attngen__inputs *in, const int32_t *kvl, const uint32_t *rd,
                     const uint32_t *ms, const uint32_t *md, size_t words, run_out *r,
                     uint32_t *w, uint32_t *wref, uint64_t cnt[2], const char *what) {
  a->skip = s;
  a->out = r->out.data;
  a->lse = r->lse;
  attngen_status st = attngen_fwd(ctx, a);
  if (st == ATTNGEN_STATUS_OK) st = attngen_synchronize(ctx, NULL);
  if (st != ATTNGEN_STATUS_OK) {
    print_message("    %s: %s: %s\n", what, attngen_status_name(st), attngen_last_error());
    return 0;
  }
  uint32_t cref[2] = {0, 0};
  attngen__verify_args va = {ctx, a, in, r->out.data, r->lse, 0, 1, NULL, kvl,
                             rd, ms, md, SKIP_T, wref, cref};
  attngen__verify_result vr;
  assert_int_equal(attngen__verify_run(&va, &vr), ATTNGEN_STATUS_OK);
  assert_int_equal(attngen_skip_state_get_list(s, ATTNGEN_SKIP_NEXT_READ, w), ATTNGEN_STATUS_OK);
  assert_int_equal(attngen_skip_state_stats(s, &cnt[0], &cnt[1], NULL), ATTNGEN_STATUS_OK);
  size_t wbad = 0, first = 0;
  for (size_t i = words; i-- > 0;)
    if (w[i] != wref[i]) {
      ++wbad;
      first = i;
    }
  int64_t g0 = 0;
  const int64_t guard = attngen__guarded_check(&r->out, &g0) + lse_guard_bad(r);
  const int ok = vr.pass && wbad == 0 && cnt[0] == cref[0] && cnt[1] == cref[1] && guard == 0;
  if (!ok) {
    print_message("    %s: output %s, lse %s, %zu of %zu written words differ (first: word %zu "
                  "0x%08X, reference 0x%08X), counts %llu/%llu (reference %u/%u), guard %lld\n",
                  what, vr.out.pass ? "ok" : "FAIL", vr.lse.pass ? "ok" : "FAIL", wbad, words,
                  first, wbad ? w[first] : 0u, wbad ? wref[first] : 0u,
                  (unsigned long long)cnt[0], (unsigned long long)cnt[1], cref[0], cref[1],
                  (long long)guard);
    attngen__compare_print(stdout, "    output", &vr.out);
  }
  return ok;
}

/* One case of one skip variant (see the top); masks: random MS / MD; want_parts > 0: the KV
 * parts the call's plan must have (the skip split cases: parts of whole list words). */
static int run_skip_case(const attngen__variant_desc *var, const char *dense,
                         const attngen__contract_case *c, uint64_t seed, int masks,
                         int want_parts, skip_totals *tot) {
  const attngen_layout layout = (attngen_layout)var->layout;
  const int D = attngen__desc_head_dim(var);
  attngen__inputs in;
  assert_int_equal(attngen__inputs_make_hd(&in, c->inputs, seed, layout, c->batch, c->heads,
                                           c->heads_kv, c->seqlen_q, c->seqlen_kv, D,
                                           c->scale != 0.0f ? c->scale : ATTNGEN__DEFAULT_SCALE),
                   ATTNGEN_STATUS_OK);
  if (c->special) attngen__plant_special(&in);
  const int32_t *kvl = c->nkvl ? c->kvl : NULL;
  if (kvl) attngen__plant_masked(&in, kvl);
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
  a.rounding = (attngen_rounding)var->rounding;
  a.softmax_scale = c->scale;
  a.kv_lengths = kvl;
  a.heads_kv = c->heads_kv;
  a.head_dim = D;
  int pass = 1;

  a.variant = var->name;
  attngen_skip_state *s[2] = {NULL, NULL};
  for (int i = 0; i < 2; ++i)
    assert_int_equal(attngen_skip_state_create(E.ctx[i], &a, 0, 0, SKIP_T, &s[i]),
                     ATTNGEN_STATUS_OK);
  /* the skip variant's plan: a tail variant's parts are whole list words (32 tiles), its
   * dense twin's are not, so the two may cut the KV range differently (1x9x1x945 on 8 CUs:
   * the twin splits the last job in 2 parts of 5 tiles, the skip variant runs it whole) */
  run_out dr;
  run_out_alloc(&dr, n, nl);
  attngen_choice sch, dch;
  a.skip = s[0];
  a.out = dr.out.data;
  a.lse = dr.lse;
  assert_int_equal(attngen_explain(E.ctx[0], &a, &sch), ATTNGEN_STATUS_OK);
  if (want_parts > 0 && sch.num_splits != want_parts) {
    print_message("    %s: %d KV parts, expected %d (parts of 32 tiles)\n", var->name,
                  sch.num_splits, want_parts);
    pass = 0;
  }
  /* the dense output and LSE of the same plan: the twin when the skip plan splits, else the
   * nosplit twin (every job whole, as the tail kernel on a plan that does not split); the
   * dense run's plan must be the skip run's (parts, split jobs, keys per part, blocks), else
   * call 1 would be compared with another fp32 merge order (the case set holds only such
   * cases) */
  char dense_run[128];
  snprintf(dense_run, sizeof dense_run, "%s", dense);
  char *tail_tok = strstr(dense_run, "_tail_");
  if (tail_tok && sch.num_splits < 2)
    snprintf(tail_tok, sizeof dense_run - (size_t)(tail_tok - dense_run), "_nosplit_%s",
             strstr(dense, "_tail_") + 6);
  a.skip = NULL;
  a.variant = dense_run;
  attngen_status st = attngen_explain(E.ctx[0], &a, &dch);
  if (st == ATTNGEN_STATUS_OK) st = attngen_fwd(E.ctx[0], &a);
  if (st == ATTNGEN_STATUS_OK) st = attngen_synchronize(E.ctx[0], NULL);
  if (st != ATTNGEN_STATUS_OK) fail_msg("%s: %s", dense_run, attngen_last_error());
  const char *ssplit = strstr(sch.reason, "; tail KV split:");
  const char *dsplit = strstr(dch.reason, "; tail KV split:");
  if (dch.num_splits != sch.num_splits || !ssplit != !dsplit ||
      (ssplit && (strcmp(ssplit, dsplit) || dch.grid[0] != sch.grid[0]))) {
    print_message("    the dense run %s is not on the skip run's plan: %d part(s), grid %u "
                  "(%s) against %d, grid %u (%s)\n", dense_run, dch.num_splits, dch.grid[0],
                  dsplit ? dsplit + 2 : "no split", sch.num_splits, sch.grid[0],
                  ssplit ? ssplit + 2 : "no split");
    pass = 0;
  }
  a.variant = var->name;
  attngen_skip_info info;
  assert_int_equal(attngen_skip_state_info(s[0], &info), ATTNGEN_STATUS_OK);
  assert_string_equal(info.variant, var->name);
  assert_int_equal(info.block_m, var->block_m);
  assert_int_equal(info.block_n, var->kv_tile);
  const size_t words = info.words;
  uint32_t *w[2], *wref = calloc(words + 1, 4), *rd = NULL, *ms = NULL, *md = NULL;
  w[0] = calloc(words + 1, 4);
  w[1] = calloc(words + 1, 4);
  assert_true(w[0] && w[1] && wref);
  attngen__rng rng;
  attngen__rng_seed(&rng, seed ^ 0x5EEDu);
  if (masks) {
    ms = attngen__rng_words(&rng, words, 10);
    md = attngen__rng_words(&rng, words, 10);
    assert_true(ms && md);
    for (int i = 0; i < 2; ++i) {
      assert_int_equal(attngen_skip_state_set_list(s[i], ATTNGEN_SKIP_MUST_SKIP, ms), 0);
      assert_int_equal(attngen_skip_state_set_list(s[i], ATTNGEN_SKIP_MUST_DO, md), 0);
    }
  }
  run_out r[2];
  uint64_t cnt[2][2];
  /* call 1 (no read list) on both wave seeds */
  for (int i = 0; i < 2; ++i) {
    run_out_alloc(&r[i], n, nl);
    pass &= skip_call(E.ctx[i], s[i], &a, &in, kvl, NULL, ms, md, words, &r[i], w[i], wref,
                      cnt[i], i ? "call 1 (wave seed 2)" : "call 1");
  }
  if (memcmp(r[0].out.data, r[1].out.data, sizeof(uint16_t) * (size_t)n) ||
      memcmp(r[0].lse, r[1].lse, sizeof(float) * (size_t)nl) ||
      memcmp(w[0], w[1], 4 * words) || cnt[0][0] != cnt[1][0] || cnt[0][1] != cnt[1][1]) {
    print_message("    call 1: the wave seeds disagree (output, LSE, list or counts)\n");
    pass = 0;
  }
  /* without masks nothing is skipped in call 1: bitwise the dense variant */
  if (!masks &&
      (memcmp(r[0].out.data, dr.out.data, sizeof(uint16_t) * (size_t)n) ||
       memcmp(r[0].lse, dr.lse, sizeof(float) * (size_t)nl) || cnt[0][0] != 0)) {
    print_message("    call 1 (nothing skipped) is not bitwise the dense variant %s\n",
                  dense_run);
    pass = 0;
  }
  for (size_t i = 0; i < words; ++i) tot->marked += (uint64_t)__builtin_popcount(w[0][i]);
  tot->skipped += cnt[0][0];
  tot->visited += cnt[0][1];
  /* call 2: a random read list (30% of the tiles); call 3: the list call 2 wrote */
  rd = attngen__rng_words(&rng, words, 30);
  assert_non_null(rd);
  assert_int_equal(attngen_skip_state_set_list(s[0], ATTNGEN_SKIP_NEXT_READ, rd), 0);
  for (int call = 2; call <= 3 && pass; ++call) {
    run_out_free(&r[1]);
    run_out_alloc(&r[1], n, nl);
    pass &= skip_call(E.ctx[0], s[0], &a, &in, kvl, rd, ms, md, words, &r[1], w[1], wref,
                      cnt[1], call == 2 ? "call 2 (random read list)" : "call 3 (reads call 2's)");
    tot->skipped += cnt[1][0];
    tot->visited += cnt[1][1];
    memcpy(rd, w[1], 4 * words);
  }
  if (!pass)
    print_message("  FAIL %s %dx%dx%dx%d (%s, scale %g)%s seed %llu\n", var->name, c->batch,
                  c->heads, c->seqlen_q, c->seqlen_kv, c->what, (double)c->scale,
                  masks ? " +masks" : "", (unsigned long long)seed);
  run_out_free(&r[0]);
  run_out_free(&r[1]);
  run_out_free(&dr);
  attngen_skip_state_destroy(s[0]);
  attngen_skip_state_destroy(s[1]);
  free(w[0]);
  free(w[1]);
  free(wref);
  free(rd);
  free(ms);
  free(md);
  attngen__inputs_free(&in);
  return pass;
}

static void test_emu_numerics_skip(void **state) {
  (void)state;
  if (!E.ctx[0] || !E.ctx[1]) fail_msg("the emu backend does not open (%s)", attngen_last_error());
  if (attngen__emu_kernel_count == 0) {
    print_message("SKIPPED: no gfx942 variants compiled for the emulator (clang++-19 missing)\n");
    skip();
    return;
  }
  uint64_t seed = E.seed + 104729;
  /* every other case per variant, rotating over the variants of one kv_split (every case
   * runs on 3 of the 6 nosplit and on 3 of the 6 tail variants, with and without masks);
   * ATTNGEN_TEST_ALL_CASES=1: all */
  const char *all_env = getenv("ATTNGEN_TEST_ALL_CASES");
  const int stride = all_env && !strcmp(all_env, "1") ? 1 : 2;
  int nvar = 0, failed = 0, ci_run = 0, nsplit = 0, nth[2] = {0, 0}, nhd[3] = {0, 0, 0};
  skip_totals tot = {0, 0, 0};
  const double t0 = now_s();
  for (size_t i = 0; i < attngen__manifest_count; ++i) {
    const attngen__variant_desc *var = &attngen__manifest[i];
    if (!var->name || var->target != ATTNGEN__TARGET_GFX942 || var->skip != ATTNGEN__SKIP_ON)
      continue;
    /* its dense twin: the same name without the skip token */
    char dense[128];
    const char *tok = strstr(var->name, "_skip_");
    assert_non_null(tok);
    snprintf(dense, sizeof dense, "%.*s%s", (int)(tok - var->name), var->name, tok + 5);
    assert_non_null(attngen__emu_find(dense));
    attngen__contract_case cases[ATTNGEN__CONTRACT_CASES_MAX];
    const size_t nc = attngen__contract_cases(var->kv_tile, cases);
    const double tv = now_s();
    int bad = 0, ran = 0;
    const int k = nth[var->kv_split == ATTNGEN__SPLIT_TAIL]++; /* its place among its kind */
    for (size_t ci = (size_t)(k % stride); ci < nc; ci += (size_t)stride) {
      ++ci_run;
      /* masks on every other run, the phase turning with every second variant: each case
       * with and without them over the variants that run it */
      if (!run_skip_case(var, dense, &cases[ci], seed++, (ran++ + k / 2) & 1, 0, &tot))
        ++bad;
    }
    /* the tail variants: a call whose 4 q-jobs (8 CUs) are split into 2 parts of 32 tiles
     * (the dense twin's plan too, so that call 1 without masks is bitwise it), with key
     * lengths: a part 1 of 10 tiles (the last partial), an entry without keys, a part 1 past
     * the length, a part 1 of one partial tile (28 keys); without masks (nothing skipped in
     * call 1) and with them. At kv_tile 96: lengths 4000, 0, 2000, 3100 of 6144 keys. */
    if (var->kv_split == ATTNGEN__SPLIT_TAIL) {
      const int kv = var->kv_tile, part = 32 * var->kv_tile;
      const attngen__contract_case split_case = {
          4, 1, 200, 2 * part, ATTNGEN__INPUT_LARGE, 0, 1, "skip split, key lengths",
          ATTNGEN__DEFAULT_SCALE, 4, {part + 9 * kv + 2 * kv / 3, 0, part * 2000 / 3072,
                                      part + 28}, 0};
      for (int mk = 0; mk < 2; ++mk) {
        ++ci_run;
        ++ran;
        ++nsplit;
        if (!run_skip_case(var, dense, &split_case, seed++, mk, 2, &tot)) ++bad;
      }
    }
    ++nvar;
    ++nhd[attngen__head_dim_slot(attngen__desc_head_dim(var))];
    failed += bad;
    print_message("  %-56s %d of %zu cases %s  %.2f s\n", var->name, ran, nc,
                  bad ? "FAIL" : "pass", now_s() - tv);
  }
  print_message("emu skip: %d variants, %d cases (%d split), %d failed; %llu of %llu visited "
                "tiles skipped, %llu marked by first calls; %.1f s, input seed %llu\n", nvar,
                ci_run, nsplit, failed,
                (unsigned long long)tot.skipped, (unsigned long long)tot.visited,
                (unsigned long long)tot.marked, now_s() - t0, (unsigned long long)E.seed);
  /* the default set: bshd and bhsd in three modes, nosplit and tail, at head_dim 64, 128
   * and 256 */
  assert_int_equal(nvar, 36);
  assert_int_equal(nhd[0], 12);
  assert_int_equal(nhd[1], 12);
  assert_int_equal(nhd[2], 12);
  assert_int_equal(nth[1], 18);
  assert_int_equal(nsplit, 36);
  assert_true(tot.marked > 0 && tot.skipped > 0);
  assert_int_equal(failed, 0);
}

/* No argument: the default set; --search-space: the search space (its own ctest entry,
 * test_emu_numerics_search_space, so that the two run side by side under ctest -j). */
int main(int argc, char **argv) {
  /* the search space's JIT objects: in the build tree, so a second run loads them */
  setenv("ATTNGEN_CACHE_DIR", ATTNGEN_BINARY_DIR "/emu-jit-cache", 1);
  const struct CMUnitTest default_set[] = {
      cmocka_unit_test(test_emu_numerics_all_gfx942_variants),
  };
  const struct CMUnitTest varlen[] = {
      cmocka_unit_test(test_emu_numerics_packed),
      cmocka_unit_test(test_emu_numerics_packed_garbage),
      cmocka_unit_test(test_emu_numerics_causal_skips_tiles),
      cmocka_unit_test(test_emu_numerics_causal),
  };
  const struct CMUnitTest search_space[] = {
      cmocka_unit_test(test_emu_numerics_search_space),
  };
  const struct CMUnitTest skip_set[] = {
      cmocka_unit_test(test_emu_numerics_skip),
  };
  if (argc > 1 && !strcmp(argv[1], "--skip"))
    return attngen_test_exit(cmocka_run_group_tests(skip_set, setup, teardown));
  if (argc > 1 && !strcmp(argv[1], "--search-space"))
    return attngen_test_exit(cmocka_run_group_tests(search_space, setup, teardown));
  if (argc > 1 && !strcmp(argv[1], "--varlen"))
    return attngen_test_exit(cmocka_run_group_tests(varlen, setup, teardown));
  if (argc > 1) {
    fprintf(stderr, "usage: test_emu_numerics [--search-space | --varlen | --skip]\n");
    return 2;
  }
  return attngen_test_exit(cmocka_run_group_tests(default_set, setup, teardown));
}
