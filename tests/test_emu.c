/* test_emu.c: the gfx942 wave64 emulator (runtime/emu). Each emulated instruction is run
 * through a small kernel (tests/emu_kernels/selftest_kernels.cpp) and compared with values
 * derived here from the ISA documentation; planted bugs (missing s_waitcnt, missing
 * s_barrier, off-by-one LDS index, divergence, early exit, unlisted wait) must stop the
 * run with a clear report; the emulator's MFMA rate is printed. */
#include <math.h>
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

#include "attngen_internal.h"

static uint64_t rng_state = 0x1234567;
static uint32_t rnd(void) {
  rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
  return (uint32_t)(rng_state >> 33);
}

static float bf2f(uint16_t h) {
  uint32_t u = (uint32_t)h << 16;
  float f;
  memcpy(&f, &u, 4);
  return f;
}
static uint32_t f2u(float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  return u;
}
static float u2f(uint32_t u) {
  float f;
  memcpy(&f, &u, 4);
  return f;
}

/* A random bf16 in +-[0.5, 2) (products and sums of 16 stay exact in double). */
static uint16_t rnd_bf16(void) {
  uint16_t e = (uint16_t)(126 + rnd() % 2);
  return (uint16_t)(((rnd() & 1) << 15) | (e << 7) | (rnd() & 0x7F));
}

static const attngen__emu_kernel *selftest(const char *name) {
  const attngen__emu_kernel *k = attngen__emu_find_selftest(name);
  if (!k) {
    print_message("SKIPPED: self-test kernel %s not built (clang++-19 missing?)\n", name);
    return NULL;
  }
  return k;
}

static int run(const char *name, unsigned threads, attngen_kargs a, uint64_t seed, char *err,
               size_t errlen) {
  const attngen__emu_kernel *k = attngen__emu_find_selftest(name);
  return attngen__emu_launch(k->fn, 1, 1, 1, threads, a, seed, err, errlen);
}

#define NEED(name)                     \
  do {                                 \
    if (!selftest(name)) {             \
      skip();                          \
      return;                          \
    }                                  \
  } while (0)

/* v_mfma_f32_16x16x16_bf16: D = C + A*B compared with the matrix product computed here;
 * the kernel loads operands by the documented lane layout, so a wrong layout in the
 * emulator gives a wrong product. */
static void test_emu_mfma_layout(void **state) {
  (void)state;
  NEED("mfma_layout");
  uint16_t A[256], Bt[256];
  float C[256], out[512];
  for (int i = 0; i < 256; i++) {
    A[i] = rnd_bf16();
    Bt[i] = rnd_bf16();
    C[i] = (float)((int)(rnd() % 64) - 32) * 0.25f;
  }
  attngen_kargs a;
  memset(&a, 0, sizeof a);
  a.q = A;
  a.k = Bt;
  a.v = C;
  a.ws = out;
  char err[1024];
  int rc = run("mfma_layout", 64, a, 1, err, sizeof err);
  assert_int_equal(rc, 0);
  for (int r = 0; r < 16; r++)
    for (int c = 0; c < 16; c++) {
      double s = 0;
      for (int k = 0; k < 16; k++) s += (double)bf2f(A[r * 16 + k]) * (double)bf2f(Bt[c * 16 + k]);
      assert_int_equal(f2u(out[r * 16 + c]), f2u((float)(s + C[r * 16 + c])));
      assert_int_equal(f2u(out[256 + r * 16 + c]), f2u((float)s));
    }
}

/* ds_swizzle_b32 bit-mask mode and ds_bpermute_b32 against the ISA formulas. */
static void test_emu_crosslane(void **state) {
  (void)state;
  NEED("crosslane");
  uint32_t out[256];
  attngen_kargs a;
  memset(&a, 0, sizeof a);
  a.ws = (float *)out;
  char err[1024];
  assert_int_equal(run("crosslane", 64, a, 2, err, sizeof err), 0);
  for (unsigned l = 0; l < 64; l++) {
    unsigned g = l & 32, i = l & 31;
    assert_int_equal(out[l], 1000 + (g | (((i & 31) | 0) ^ 1)));
    assert_int_equal(out[64 + l], 1000 + (g | (((i & 0x18) | 3) ^ 0)));
    assert_int_equal(out[128 + l], 1000 + (g | (((i & 31) | 0) ^ 0x10)));
    assert_int_equal(out[192 + l], 1000 + (63 - l));
  }
}

/* Raw buffer range check per dword: out-of-range loads read 0, out-of-range stores drop. */
static void test_emu_buffer_oob(void **state) {
  (void)state;
  NEED("buffer_oob");
  uint32_t q[64], o[320], ws[64];
  for (unsigned i = 0; i < 64; i++) q[i] = 0xA000 + i;
  for (unsigned i = 0; i < 64; i++) ws[i] = 0xDEAD;
  attngen_kargs a;
  memset(&a, 0, sizeof a);
  a.q = q;
  a.o = o;
  a.ws = (float *)ws;
  char err[1024];
  assert_int_equal(run("buffer_oob", 64, a, 3, err, sizeof err), 0);
  const unsigned limit = 37 * 4 + 2; /* num_records in bytes */
  for (unsigned l = 0; l < 64; l++) {
    for (unsigned i = 0; i < 4; i++) {
      unsigned off = (l % 10) * 16 + 4 * i;
      uint32_t want = off < limit ? q[off / 4] : 0; /* per dword: offset >= limit is out */
      assert_int_equal(o[4 * l + i], want);
    }
    unsigned off = l * 4 + 8;
    assert_int_equal(o[256 + l], off < limit ? q[off / 4] : 0);
  }
  for (unsigned i = 0; i < 64; i++) /* num_records 100 bytes: dwords 0..24 written */
    assert_int_equal(ws[i], i < 25 ? 7000 + i : 0xDEAD);
}

/* Results land at the s_waitcnt that covers them; before it the destination is poison. */
static void test_emu_waitcnt_poison(void **state) {
  (void)state;
  NEED("waitcnt_poison");
  uint32_t q[64], o[256];
  for (unsigned i = 0; i < 64; i++) q[i] = 0x100 + i;
  attngen_kargs a;
  memset(&a, 0, sizeof a);
  a.q = q;
  a.o = o;
  char err[1024];
  assert_int_equal(run("waitcnt_poison", 64, a, 4, err, sizeof err), 0);
  for (unsigned l = 0; l < 64; l++) {
    assert_int_equal(o[l], ATTNGEN__EMU_POISON);
    assert_int_equal(o[64 + l], 0x100 + l);
    assert_int_equal(o[128 + l], ATTNGEN__EMU_POISON);
    assert_int_equal(o[192 + l], 0x101 + l);
  }
  assert_true(attngen__emu_is_poison(o[0]));
  assert_false(attngen__emu_is_poison(o[64]));
}

/* buffer_load_dword ... lds: lane l's dword to LDS M0 + 4*l, out of range writes 0. */
static void test_emu_lds_dma(void **state) {
  (void)state;
  NEED("lds_dma");
  uint32_t q[64], o[256];
  for (unsigned i = 0; i < 64; i++) q[i] = 0x5000 + i;
  attngen_kargs a;
  memset(&a, 0, sizeof a);
  a.q = q;
  a.o = o;
  char err[1024];
  assert_int_equal(run("lds_dma", 64, a, 5, err, sizeof err), 0);
  for (unsigned l = 0; l < 64; l++)
    for (unsigned i = 0; i < 4; i++) {
      unsigned d = (l % 16) * 4 + i; /* dword index past LDS 256 = lane of the DMA */
      assert_int_equal(o[4 * l + i], d < 50 ? 0x5000 + d : 0);
    }
}

static uint32_t bf16_ref(float x, int mode) {
  uint32_t u = f2u(x);
  if (x != x) return 0x7FFF;
  if (mode == 0) return (u + 0x7FFF + ((u >> 16) & 1)) >> 16;
  if (mode == 1) return (u + 0x8000) >> 16;
  return u >> 16;
}

/* v_exp_f32 / v_log_f32 as the emulator defines them, bf16 packing per docs/NUMERICS.md,
 * v_perm_b32 byte selection, ballot-any. */
static void test_emu_valu(void **state) {
  (void)state;
  NEED("valu");
  float in[128];
  uint32_t o[512];
  const float special[] = {0.0f, -0.0f, 1.0f, -1.0f, INFINITY, -INFINITY, NAN, -150.0f,
                           -126.5f, 127.9f, 200.0f, 1e-40f, u2f(0x3F808000), u2f(0x3F818000),
                           u2f(0x7F7FFFFF), u2f(0x7FC00001)};
  for (unsigned i = 0; i < 128; i++)
    in[i] = i < 16 ? special[i] : u2f((rnd() & 0x807FFFFF) | ((110 + rnd() % 30) << 23));
  attngen_kargs a;
  memset(&a, 0, sizeof a);
  a.q = in;
  a.o = o;
  char err[1024];
  assert_int_equal(run("valu", 64, a, 6, err, sizeof err), 0);
  for (unsigned l = 0; l < 64; l++) {
    float x = in[2 * l], y = in[2 * l + 1];
    float e = exp2f(x);
    if (e < 0x1p-126f) e = 0.0f;
    if (isnan(x))
      assert_true(isnan(u2f(o[8 * l])));
    else
      assert_int_equal(o[8 * l], f2u(e));
    float lg = (y != 0 && fabsf(y) < 0x1p-126f) ? -INFINITY : (y == 0 ? -INFINITY : log2f(y));
    if (isnan(lg))
      assert_true(isnan(u2f(o[8 * l + 1])));
    else
      assert_int_equal(o[8 * l + 1], f2u(lg));
    for (int m = 0; m < 3; m++)
      assert_int_equal(o[8 * l + 2 + m], bf16_ref(x, m) | (bf16_ref(y, m) << 16));
    assert_int_equal(o[8 * l + 5], (f2u(x) >> 16) | (f2u(y) & 0xFFFF0000u));
    assert_int_equal(o[8 * l + 6], 0x00FF0020u);
    assert_int_equal(o[8 * l + 7], 1);
  }
  /* known answers: lane 6 packs the ties 0x3F808000 (lo) and 0x3F818000 (hi); lane 3 a NaN
   * (lo); lane 7 FLT_MAX (lo, overflows to Inf when rounding up) and a NaN (hi) */
  assert_int_equal(o[8 * 6 + 2], 0x3F823F80u); /* rtne: ties to even */
  assert_int_equal(o[8 * 6 + 3], 0x3F823F81u); /* rtna: ties away */
  assert_int_equal(o[8 * 6 + 4], 0x3F813F80u); /* rtz */
  assert_int_equal(o[8 * 3 + 2] & 0xFFFF, 0x7FFF);
  assert_int_equal(o[8 * 7 + 2], 0x7FFF7F80u);
  assert_int_equal(o[8 * 7 + 4], 0x7FFF7F7Fu);
  assert_int_equal(o[8 * 4 + 0], 0); /* 2^-126.5 is below the normal range: flushed */
}

/* The MFMA rate of the emulator: 8 waves x 2000 MFMAs in one 512-thread block. */
static void test_emu_speed(void **state) {
  (void)state;
  NEED("mfma_speed");
  float ws[512];
  attngen_kargs a;
  memset(&a, 0, sizeof a);
  a.ws = ws;
  char err[1024];
  attngen__emu_stats s0, s1;
  attngen__emu_get_stats(&s0);
  assert_int_equal(run("mfma_speed", 512, a, 7, err, sizeof err), 0);
  attngen__emu_get_stats(&s1);
  for (int t = 0; t < 512; t++) assert_true(ws[t] == 2000.0f * 16.0f);
  double n = (double)(s1.mfma - s0.mfma), sec = s1.seconds - s0.seconds;
  assert_true(n == 16000.0);
  print_message("emulator speed: %.0f MFMA in %.3f s = %.0f MFMA/s (%.0f wave syncs/s)\n", n,
                sec, n / sec, (double)(s1.wave_syncs - s0.wave_syncs) / sec);
}

/* A planted bug must stop the run (for every seed tried) with a report naming it. */
static void expect_report(const char *name, unsigned threads, const char *needle) {
  float buf[4096];
  memset(buf, 0, sizeof buf);
  attngen_kargs a;
  memset(&a, 0, sizeof a);
  a.q = buf;
  a.ws = buf + 1024;
  a.o = buf + 2048;
  for (uint64_t seed = 1; seed <= 4; seed++) {
    char err[1024] = "";
    int rc = run(name, threads, a, seed, err, sizeof err);
    if (seed == 1) print_message("%s: %s\n", name, err);
    assert_int_not_equal(rc, 0);
    assert_non_null(strstr(err, needle));
  }
}

static void test_emu_bug_missing_waitcnt(void **state) {
  (void)state;
  NEED("bug_missing_waitcnt");
  expect_report("bug_missing_waitcnt", 64, "read before the s_waitcnt");
}

static void test_emu_bug_missing_barrier(void **state) {
  (void)state;
  NEED("bug_missing_barrier");
  expect_report("bug_missing_barrier", 256, "without an s_barrier in between");
}

static void test_emu_bug_lds_off_by_one(void **state) {
  (void)state;
  NEED("bug_lds_off_by_one");
  expect_report("bug_lds_off_by_one", 64, "outside the block's 256 bytes of LDS");
}

static void test_emu_bug_divergent(void **state) {
  (void)state;
  NEED("bug_divergent_mfma");
  expect_report("bug_divergent_mfma", 64, "lanes of the wave disagree");
}

static void test_emu_bug_barrier_exit(void **state) {
  (void)state;
  NEED("bug_barrier_exit");
  expect_report("bug_barrier_exit", 128, "deadlock");
}

static void test_emu_bug_unlisted_wait(void **state) {
  (void)state;
  NEED("bug_unlisted_wait");
  expect_report("bug_unlisted_wait", 64, "does not name its destination");
}

static void test_emu_bug_load_never_waited(void **state) {
  (void)state;
  NEED("bug_load_never_waited");
  expect_report("bug_load_never_waited", 64, "never waited for");
}

static void test_emu_uniform(void **state) {
  (void)state;
  NEED("uniform_ok");
  NEED("bug_not_uniform");
  unsigned buf[64];
  attngen_kargs a;
  memset(&a, 0, sizeof a);
  a.ws = (float *)(void *)buf;
  char err[1024] = "";
  memset(buf, 0xFF, sizeof buf);
  assert_int_equal(run("uniform_ok", 64, a, 3, err, sizeof err), 0);
  for (unsigned l = 0; l < 64; l++) assert_int_equal(buf[l], 5u + l);
  /* a lane far from lane 0 (40..63) holding another value is reported */
  expect_report("bug_not_uniform", 64, "value 0x8 is not uniform across the wave");
}

/* v_readlane_b32 (lane l's value to every lane, per wave), the ballot (bit l: lane l's
 * predicate) and buffer_atomic_add (every in-range lane of both waves adds; out of range
 * dropped); a lane index that is not uniform is reported. */
static void test_emu_readlane_atomic(void **state) {
  (void)state;
  NEED("readlane_atomic");
  NEED("bug_readlane_divergent");
  uint32_t ws[132], o[4] = {5, 7, 0xAB, 0xCD};
  attngen_kargs a;
  memset(&a, 0, sizeof a);
  a.o = o;
  a.ws = (float *)(void *)ws;
  char err[1024] = "";
  assert_int_equal(run("readlane_atomic", 128, a, 11, err, sizeof err), 0);
  for (unsigned w = 0; w < 2; w++)
    for (unsigned l = 0; l < 64; l++) assert_int_equal(ws[64 * w + l], 500 + 3 * (13 + 27 * w));
  for (unsigned w = 0; w < 2; w++) {
    uint64_t want = 0;
    for (unsigned l = 0; l < 64; l++) want |= (uint64_t)((l + w) % 3 == 0) << l;
    assert_int_equal(ws[128 + 2 * w], (uint32_t)want);
    assert_int_equal(ws[129 + 2 * w], (uint32_t)(want >> 32));
  }
  uint32_t even = 0, odd = 0;
  for (unsigned l = 0; l < 32; l++) *(l & 1 ? &odd : &even) += l + 1;
  assert_int_equal(o[0], 5 + 2 * even);
  assert_int_equal(o[1], 7 + 2 * odd);
  assert_int_equal(o[2], 0xAB);
  assert_int_equal(o[3], 0xCD);
  expect_report("bug_readlane_divergent", 64, "lanes of the wave disagree");
}

/* The seed really changes the wave order (issue 29: this test ran a one-wave kernel, where
 * there is nothing to reorder, so it could not fail). With the race check off, the kernel
 * that reads another wave's LDS slice without an s_barrier gets a different mix of written
 * values and never-written LDS under different seeds; the order-independence of correct
 * multi-wave kernels is test_emu_numerics' two-seed comparison of the 8-wave attention
 * kernels, which this makes meaningful. */
static void test_emu_seed_changes_wave_order(void **state) {
  (void)state;
  NEED("bug_missing_barrier");
  const attngen__emu_kernel *k = attngen__emu_find_selftest("bug_missing_barrier");
  /* ATTNGEN_EMU_RACECHECK=0 turns the LDS race check off, ATTNGEN_EMU_STACK sets the fiber
   * stack (README, Environment; neither had a test) */
  attngen__emu_options o;
  attngen__emu_default_options(&o);
  assert_int_equal(o.race_check, 1);
  assert_int_equal(o.stack_bytes, 65536);
  setenv("ATTNGEN_EMU_RACECHECK", "0", 1);
  setenv("ATTNGEN_EMU_STACK", "131072", 1);
  attngen__emu_default_options(&o);
  unsetenv("ATTNGEN_EMU_RACECHECK");
  unsetenv("ATTNGEN_EMU_STACK");
  assert_int_equal(o.race_check, 0);
  assert_int_equal(o.stack_bytes, 131072);
  unsigned out[8][256];
  int distinct = 0;
  for (int sd = 0; sd < 8; sd++) {
    attngen_kargs a;
    memset(&a, 0, sizeof a);
    a.ws = (float *)(void *)out[sd];
    char err[256] = "";
    assert_int_equal(attngen__emu_launch_opts(k->fn, 1, 1, 1, 256, a, 1000003ull * (sd + 1), &o,
                                              err, sizeof err),
                     0);
    int seen_before = 0;
    for (int e = 0; e < sd && !seen_before; e++)
      seen_before = !memcmp(out[e], out[sd], sizeof out[sd]);
    distinct += !seen_before;
  }
  print_message("barrier-less reads under 8 seeds: %d distinct results\n", distinct);
  assert_true(distinct >= 2);
}

static uint16_t f2bf(float f) {
  uint32_t u = f2u(f);
  return (uint16_t)((u + 0x7FFF + ((u >> 16) & 1)) >> 16);
}

/* Runs one generated variant (no KV split: split_first = all jobs) on a small ragged shape
 * at its head_dim and compares with attention in fp64; every output element must be written, nothing
 * after the output. Returns the relative L2 error, or -1 on an emulator failure. */
static double run_variant(const attngen__emu_kernel *k, const attngen__variant_desc *d,
                          int Sq, int Skv, double *seconds) {
  const int B = 1, H = 2, D = attngen__desc_head_dim(d), guard = 256;
  size_t nq = (size_t)B * Sq * H * D, nk = (size_t)B * Skv * H * D;
  uint16_t *q = malloc(nq * 2), *kk = malloc(nk * 2 + 2), *v = malloc(nk * 2 + 2);
  uint16_t *o = malloc((nq + guard) * 2);
  double *sc = malloc(((size_t)Skv + 1) * sizeof(double));
  assert_non_null(q);
  assert_non_null(kk);
  assert_non_null(v);
  assert_non_null(o);
  assert_non_null(sc);
  for (size_t i = 0; i < nq; i++) q[i] = f2bf((float)((int)(rnd() % 4001) - 2000) * 1e-3f);
  for (size_t i = 0; i < nk; i++) {
    kk[i] = f2bf((float)((int)(rnd() % 4001) - 2000) * 1e-3f);
    v[i] = f2bf((float)((int)(rnd() % 2001) - 1000) * 1e-3f);
  }
  for (size_t i = 0; i < nq + guard; i++) o[i] = 0xFFFF;
  attngen_kargs a;
  memset(&a, 0, sizeof a);
  a.q = q;
  a.k = kk;
  a.v = v;
  a.o = o;
  a.B = B;
  a.H = H;
  a.Sq = Sq;
  a.Skv = Skv;
  const float scale = 1.0f / sqrtf((float)D);
  a.scale_log2 = scale * 1.44269504088896341f;
  a.num_q_blocks = (Sq + d->block_m - 1) / d->block_m;
  { /* the variant's layout, dense (the runtime fills these from the call: kargs.h) */
    attngen_fwd_args fa;
    attngen_fwd_args_init(&fa);
    fa.batch = B, fa.heads = H, fa.seqlen_q = Sq, fa.seqlen_kv = Skv, fa.head_dim = D;
    fa.layout = (attngen_layout)d->layout;
    attngen__kargs_set_strides(&a, &fa);
  }
  a.split_first = a.num_q_blocks * B * H;
  a.num_splits = 1;
  a.kv_per_split = Skv;
  unsigned gx = (unsigned)a.num_q_blocks, gy = (unsigned)H, gz = (unsigned)B;
  if (d->kv_split == ATTNGEN__SPLIT_TAIL) {
    gx = (unsigned)a.split_first;
    gy = gz = 1;
  }
  char err[1024] = "";
  attngen__emu_stats s0, s1;
  attngen__emu_get_stats(&s0);
  int rc = 0;
  void *vt_ws = NULL;
  if (d->v_path == ATTNGEN__V_PATH_VT) {
    /* v_path=vt: the pre-pass launch (kargs.vt_prepass = 1, split_plan.h) writes V in operand
     * order to the workspace start */
    unsigned vg[3];
    vt_ws = calloc(attngen__vt_plan(B, H, Skv, attngen__desc_head_dim(d), vg), 1);
    assert_non_null(vt_ws);
    a.ws = vt_ws;
    a.vt_prepass = 1;
    rc = attngen__emu_launch(k->fn, vg[0], vg[1], vg[2], (unsigned)d->threads, a, 41, err,
                             sizeof err);
    a.vt_prepass = 0;
  }
  if (rc == 0)
    rc = attngen__emu_launch(k->fn, gx, gy, gz, (unsigned)d->threads, a, 42, err, sizeof err);
  attngen__emu_get_stats(&s1);
  *seconds = s1.seconds - s0.seconds;
  double num = 0, den = 0;
  if (rc != 0) {
    print_message("%s: %s\n", k->name, err);
    num = -1;
  } else {
    for (int h = 0; h < H; h++)
      for (int i = 0; i < Sq; i++) {
        size_t qrow = d->layout == 0 ? ((size_t)i * H + h) * D : ((size_t)h * Sq + i) * D;
        double m = -INFINITY, l = 0;
        /* a causal variant (mask = causal) applies its mask whatever a.causal says: row i
         * sees the keys j <= i + Skv - Sq (bottom-right) */
        const int seen = d->mask == ATTNGEN__MASK_CAUSAL
                             ? (i + Skv - Sq + 1 < 0 ? 0 : i + Skv - Sq + 1 > Skv ? Skv : i + Skv - Sq + 1)
                             : Skv;
        for (int j = 0; j < Skv; j++) {
          size_t krow = d->layout == 0 ? ((size_t)j * H + h) * D : ((size_t)h * Skv + j) * D;
          double s = 0;
          for (int x = 0; x < D; x++) s += (double)bf2f(q[qrow + x]) * bf2f(kk[krow + x]);
          sc[j] = j < seen ? s * scale : -INFINITY;
          if (sc[j] > m) m = sc[j];
        }
        for (int j = 0; j < Skv; j++) l += (sc[j] = exp(sc[j] - m));
        for (int x = 0; x < D; x++) {
          double acc = 0;
          for (int j = 0; j < Skv; j++) {
            size_t krow = d->layout == 0 ? ((size_t)j * H + h) * D : ((size_t)h * Skv + j) * D;
            acc += sc[j] * bf2f(v[krow + x]);
          }
          acc = Skv > 0 ? acc / l : 0.0;
          assert_int_not_equal(o[qrow + x], 0xFFFF); /* every element written */
          double got = bf2f(o[qrow + x]);
          num += (got - acc) * (got - acc);
          den += acc * acc;
        }
      }
    for (int i = 0; i < guard; i++) assert_int_equal(o[nq + i], 0xFFFF);
  }
  free(q);
  free(kk);
  free(v);
  free(o);
  free(sc);
  free(vt_ws);
  return num < 0 ? -1 : sqrt(num / (den > 0 ? den : 1));
}

/* Every generated gfx942 variant compiled for the host runs a ragged shape correctly. */
static void test_emu_variants(void **state) {
  (void)state;
  if (attngen__emu_kernel_count == 0) {
    print_message("SKIPPED: no generated gfx942 variants in the emulator build\n");
    skip();
    return;
  }
  for (size_t i = 0; i < attngen__emu_kernel_count; i++) {
    const attngen__emu_kernel *k = &attngen__emu_kernels[i];
    attngen__variant_desc d;
    char *gerr = NULL;
    if (attngen__gen_variant_desc(k->name, &d, &gerr) != 0) {
      print_message("%s: no descriptor: %s\n", k->name, gerr ? gerr : "?");
      free(gerr);
      fail();
    }
    double sec = 0;
    double e = run_variant(k, &d, 70, 150, &sec);
    print_message("%s: rel L2 %.2e in %.3f s\n", k->name, e, sec);
    assert_true(e >= 0 && e <= 1e-2);
  }
}

static void test_emu_launch_checks(void **state) {
  (void)state;
  char err[256];
  attngen_kargs a;
  memset(&a, 0, sizeof a);
  assert_int_not_equal(attngen__emu_launch(NULL, 1, 1, 1, 64, a, 0, err, sizeof err), 0);
  const attngen__emu_kernel *k = attngen__emu_find_selftest("mfma_speed");
  if (k) {
    assert_int_not_equal(attngen__emu_launch(k->fn, 1, 1, 1, 100, a, 0, err, sizeof err), 0);
    assert_non_null(strstr(err, "multiple of 64"));
  }
  assert_null(attngen__emu_find("no_such_variant"));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_emu_mfma_layout),       cmocka_unit_test(test_emu_crosslane),
      cmocka_unit_test(test_emu_buffer_oob),        cmocka_unit_test(test_emu_waitcnt_poison),
      cmocka_unit_test(test_emu_lds_dma),           cmocka_unit_test(test_emu_valu),
      cmocka_unit_test(test_emu_speed),             cmocka_unit_test(test_emu_bug_missing_waitcnt),
      cmocka_unit_test(test_emu_bug_missing_barrier),
      cmocka_unit_test(test_emu_bug_lds_off_by_one),
      cmocka_unit_test(test_emu_bug_divergent),     cmocka_unit_test(test_emu_bug_barrier_exit),
      cmocka_unit_test(test_emu_bug_unlisted_wait),
      cmocka_unit_test(test_emu_bug_load_never_waited),
      cmocka_unit_test(test_emu_seed_changes_wave_order),
      cmocka_unit_test(test_emu_launch_checks),     cmocka_unit_test(test_emu_variants),
      cmocka_unit_test(test_emu_uniform),
      cmocka_unit_test(test_emu_readlane_atomic),
  };
  return attngen_test_exit(cmocka_run_group_tests(tests, NULL, NULL));
}
