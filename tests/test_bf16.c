/* test_bf16.c: fp32 -> bf16 rounding (docs/NUMERICS.md). The formulas of
 * templates/common/bf16_round.h are checked on all 2^32 fp32 bit patterns in each mode against
 * an independent formulation in double arithmetic (frexp/ldexp/truncation, no bit tricks); the
 * public attngen_bf16_round (a call of the same header function) on a strided sample and hand
 * cases; plus the bf16 helpers of numerics.h. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "attngen_internal.h"

/* Independent model of the three modes for the fp32 values of one binade (fixed sign and
 * exponent field): x = n * ulp + rest, with ulp the bf16 spacing there (8 significant bits,
 * 2^-133 below the smallest normal) found with frexp/ldexp once per binade, n rounded per mode
 * from the exact quotient |x| / ulp. The pattern of n * ulp comes from converting the double
 * n * ulp to float (exact), Inf past the largest finite bf16 255 * 2^120; it is tabulated per
 * binade for n = 0..256. */
typedef struct binade_model {
  double inv_ulp;
  uint16_t sign;
  uint16_t pattern[257]; /* bf16 pattern of sign * n * ulp; 0xDEAD if not a bf16 value */
} binade_model;

static void binade_init(binade_model *b, uint32_t first_pattern) {
  float xf;
  const uint32_t probe = first_pattern | 1u; /* nonzero magnitude, same binade */
  memcpy(&xf, &probe, sizeof xf);
  int e;
  (void)frexp(fabs((double)xf), &e); /* |x| in [2^(e-1), 2^e) */
  if (e < -125) e = -125;
  const double ulp = ldexp(1.0, e - 8);
  b->inv_ulp = ldexp(1.0, 8 - e);
  b->sign = signbit(xf) ? 0x8000 : 0;
  for (int n = 0; n <= 256; ++n) {
    const double r = n * ulp;
    const float rf = (float)(r > 0x1.FEp127 ? INFINITY : r); /* exact: <= 9 significant bits */
    uint32_t bits;
    memcpy(&bits, &rf, sizeof bits);
    b->pattern[n] = (bits & 0xFFFFu) ? 0xDEAD : (uint16_t)(b->sign | (bits >> 16));
  }
}

/* want[m] gets the model's result for mode m (attngen_rounding value). */
static inline void model_round(const binade_model *b, float xf, uint16_t want[3]) {
  if (isnan(xf)) {
    want[0] = want[1] = want[2] = 0x7FFF;
    return;
  }
  if (isinf(xf)) {
    want[0] = want[1] = want[2] = b->sign | 0x7F80;
    return;
  }
  const double q = fabs((double)xf) * b->inv_ulp; /* exact: power-of-two scaling; q < 256 */
  const long n = (long)q;                         /* floor, q >= 0 */
  const double frac = q - (double)n;
  /* branch-free on purpose: the comparisons are random across patterns */
  const long above = frac > 0.5, tie = frac == 0.5;
  want[ATTNGEN_ROUND_RTNE] = b->pattern[n + (above | (tie & (n & 1)))];
  want[ATTNGEN_ROUND_RTNA] = b->pattern[n + (above | tie)];
  want[ATTNGEN_ROUND_RTZ] = b->pattern[n];
}

/* One thread's share: binades t, t + T, ... of the 512 (sign, exponent) binades. */
typedef struct sweep_job {
  int first, stride;
  uint64_t mismatches[3];
  uint32_t first_bad[3];
  uint16_t first_got[3], first_want[3];
} sweep_job;

static void *sweep_range(void *p) {
  sweep_job *j = p;
  for (int blk = j->first; blk < 512; blk += j->stride) {
    const uint32_t base = (uint32_t)blk << 23;
    binade_model b;
    binade_init(&b, base);
    for (uint32_t mant = 0; mant < (1u << 23); ++mant) {
      const uint32_t u = base | mant;
      float x;
      memcpy(&x, &u, sizeof x);
      uint16_t want[3];
      model_round(&b, x, want);
      for (int m = 0; m < 3; ++m) {
        const uint16_t got = (uint16_t)ag_bf16_round(u, m);
        if (got != want[m]) {
          if (j->mismatches[m] == 0) {
            j->first_bad[m] = u;
            j->first_got[m] = got;
            j->first_want[m] = want[m];
          }
          ++j->mismatches[m];
        }
      }
    }
  }
  return NULL;
}

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* All 2^32 patterns, each checked in the three modes, split over one pthread per online CPU
 * (at most 64). */
static void test_bf16_exhaustive_all_modes(void **state) {
  (void)state;
  long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
  int nt = ncpu < 1 ? 1 : ncpu > 64 ? 64 : (int)ncpu;
  static sweep_job jobs[64];
  pthread_t tids[64];
  const double t0 = now_s();
  for (int t = 0; t < nt; ++t) {
    memset(&jobs[t], 0, sizeof jobs[t]);
    jobs[t].first = t;
    jobs[t].stride = nt;
    assert_int_equal(pthread_create(&tids[t], NULL, sweep_range, &jobs[t]), 0);
  }
  for (int t = 0; t < nt; ++t) pthread_join(tids[t], NULL);
  uint64_t bad_all = 0;
  for (int m = 0; m < 3; ++m) {
    uint64_t bad = 0;
    for (int t = 0; t < nt; ++t) {
      if (jobs[t].mismatches[m] && !bad) {
        print_error("%s first mismatch: u=0x%08x got 0x%04x want 0x%04x\n",
                    attngen__rounding_name((attngen_rounding)m), jobs[t].first_bad[m],
                    jobs[t].first_got[m], jobs[t].first_want[m]);
      }
      bad += jobs[t].mismatches[m];
    }
    print_message("%s: 2^32 patterns, %llu mismatches\n",
                  attngen__rounding_name((attngen_rounding)m), (unsigned long long)bad);
    bad_all += bad;
  }
  print_message("exhaustive sweep: 3 modes, %d threads, %.1f s\n", nt, now_s() - t0);
  assert_int_equal(bad_all, 0);
}

static uint16_t r_bits(uint32_t u, attngen_rounding m) {
  return attngen_bf16_round(attngen__f32_from_bits(u), m);
}

/* Hand-derived cases: ties, NaN payloads, infinities, overflow, signed zero. */
static void test_bf16_hand_cases(void **state) {
  (void)state;
  /* 1 + 2^-8 is a tie between 1.0 (0x3F80, even) and 1 + 2^-7 (0x3F81). */
  assert_int_equal(r_bits(0x3F808000u, ATTNGEN_ROUND_RTNE), 0x3F80);
  assert_int_equal(r_bits(0x3F808000u, ATTNGEN_ROUND_RTNA), 0x3F81);
  assert_int_equal(r_bits(0x3F808000u, ATTNGEN_ROUND_RTZ), 0x3F80);
  /* tie above an odd pattern: RTNE goes up to even */
  assert_int_equal(r_bits(0x3F818000u, ATTNGEN_ROUND_RTNE), 0x3F82);
  assert_int_equal(r_bits(0xBF818000u, ATTNGEN_ROUND_RTNE), 0xBF82);
  assert_int_equal(r_bits(0xBF808000u, ATTNGEN_ROUND_RTNA), 0xBF81);
  /* just below / above a tie */
  assert_int_equal(r_bits(0x3F807FFFu, ATTNGEN_ROUND_RTNA), 0x3F80);
  assert_int_equal(r_bits(0x3F808001u, ATTNGEN_ROUND_RTNE), 0x3F81);
  assert_int_equal(r_bits(0x3F80FFFFu, ATTNGEN_ROUND_RTZ), 0x3F80);
  /* NaN -> 0x7FFF in every mode, including RTZ of a NaN whose payload is only in the low
   * bits (plain truncation would give +Inf) and negative NaNs */
  for (int m = 0; m < 3; ++m) {
    assert_int_equal(r_bits(0x7F800001u, (attngen_rounding)m), 0x7FFF);
    assert_int_equal(r_bits(0xFF800001u, (attngen_rounding)m), 0x7FFF);
    assert_int_equal(r_bits(0x7FC00000u, (attngen_rounding)m), 0x7FFF);
    assert_int_equal(r_bits(0xFFFFFFFFu, (attngen_rounding)m), 0x7FFF);
    assert_int_equal(r_bits(0x7F800000u, (attngen_rounding)m), 0x7F80);
    assert_int_equal(r_bits(0xFF800000u, (attngen_rounding)m), 0xFF80);
    assert_int_equal(r_bits(0x80000000u, (attngen_rounding)m), 0x8000);
    assert_int_equal(r_bits(0x00000000u, (attngen_rounding)m), 0x0000);
  }
  /* FLT_MAX: overflows to Inf when rounding to nearest, truncates to the largest bf16 */
  assert_int_equal(r_bits(0x7F7FFFFFu, ATTNGEN_ROUND_RTNE), 0x7F80);
  assert_int_equal(r_bits(0xFF7FFFFFu, ATTNGEN_ROUND_RTNA), 0xFF80);
  assert_int_equal(r_bits(0x7F7FFFFFu, ATTNGEN_ROUND_RTZ), 0x7F7F);
  /* 2^-149 is far below half the smallest bf16 step (2^-134): zero; 2^-134 is a tie */
  assert_int_equal(r_bits(0x00000001u, ATTNGEN_ROUND_RTNA), 0x0000);
  assert_int_equal(r_bits(0x00008000u, ATTNGEN_ROUND_RTNA), 0x0001);
  assert_int_equal(r_bits(0x00008000u, ATTNGEN_ROUND_RTNE), 0x0000);
  /* the header functions agree with the public entry points */
  assert_int_equal(ag_bf16_rtne(0x3F808000u), 0x3F80);
  assert_int_equal(ag_bf16_rtna(0x3F808000u), 0x3F81);
  assert_int_equal(ag_bf16_rtz(0x7F800001u), 0x7FFF);
  assert_int_equal(ag_bf16_round(0x3F808000u, 7), 0x3F80);
}

/* The rounding by value, written independently of the header's integer formulas: the two
 * bf16 neighbours of x (truncation and the next value away from zero), compared in double;
 * NaN -> 0x7FFF; the value past the largest finite bf16 is Inf. */
static uint16_t round_by_value(uint32_t u, int mode) {
  const float x = attngen__f32_from_bits(u);
  if (isnan(x)) return 0x7FFF;
  const uint16_t lo = (uint16_t)(u >> 16); /* toward zero */
  if (isinf(x) || (u & 0xFFFFu) == 0 || mode == 2) return lo;
  const uint16_t hi = (uint16_t)(lo + 1); /* away from zero; 0x7F7F + 1 = Inf */
  const double dl = fabs((double)x - (double)attngen_bf16_to_float(lo));
  const double dh = fabs((double)attngen_bf16_to_float(hi) - (double)x);
  if (isinf(attngen_bf16_to_float(hi))) { /* the gap to Inf is the last finite step */
    const double step = ldexp(1.0, 127 - 7);
    return fabs((double)x) - fabs((double)attngen_bf16_to_float(lo)) < step / 2 ||
                   (fabs((double)x) - fabs((double)attngen_bf16_to_float(lo)) == step / 2 &&
                    mode == 0 && (lo & 1) == 0)
               ? lo
               : hi;
  }
  if (dl < dh) return lo;
  if (dh < dl) return hi;
  return mode == 1 ? hi : (lo & 1) ? hi : lo; /* tie: RTNA away, RTNE to even */
}

/* The public entry point against the rounding by value on 2^24 patterns spread over the
 * whole range (stride 255, odd, so every low-bit residue class is hit) plus every pattern
 * around the NaN/Inf boundary (it was compared with the header function it calls). */
static void test_bf16_public_matches_rounding_by_value(void **state) {
  (void)state;
  for (int m = 0; m < 3; ++m) {
    uint32_t u = 0;
    for (int i = 0; i < (1 << 24); ++i, u += 255u * 256u + 1u) {
      if (r_bits(u, (attngen_rounding)m) != round_by_value(u, m))
        fail_msg("mode %d, 0x%08x: 0x%04x, by value 0x%04x", m, u, r_bits(u, (attngen_rounding)m),
                 round_by_value(u, m));
    }
    for (uint32_t v = 0x7F7F0000u; v <= 0x7F810000u; ++v) {
      assert_int_equal(r_bits(v, (attngen_rounding)m), round_by_value(v, m));
      assert_int_equal(r_bits(v | 0x80000000u, (attngen_rounding)m),
                       round_by_value(v | 0x80000000u, m));
    }
  }
}

static void test_bf16_to_float_exact(void **state) {
  (void)state;
  assert_true(attngen_bf16_to_float(0x3F80) == 1.0f);
  assert_true(attngen_bf16_to_float(0xC000) == -2.0f);
  assert_true(isinf(attngen_bf16_to_float(0xFF80)) && attngen_bf16_to_float(0xFF80) < 0);
  assert_true(isnan(attngen_bf16_to_float(0x7FFF)));
  assert_true(attngen_bf16_to_float(0x0001) == ldexpf(1.0f, -133));
  /* every non-NaN bf16 survives bf16 -> fp32 -> bf16 in every mode */
  for (uint32_t b = 0; b < 0x10000u; ++b) {
    if (attngen__bf16_is_nan((uint16_t)b)) continue;
    for (int m = 0; m < 3; ++m) {
      const float x = attngen_bf16_to_float((uint16_t)b);
      assert_int_equal(attngen_bf16_round(x, (attngen_rounding)m), b);
    }
  }
}

static void test_bf16_ulp_diff(void **state) {
  (void)state;
  assert_int_equal(attngen__bf16_ulp_diff(0x3F81, 0x3F80), 1);
  assert_int_equal(attngen__bf16_ulp_diff(0x3F80, 0x3F82), -2);
  assert_int_equal(attngen__bf16_ulp_diff(0x8000, 0x0000), 0);  /* -0 == +0 */
  assert_int_equal(attngen__bf16_ulp_diff(0x0001, 0x8001), 2);  /* across zero */
  assert_int_equal(attngen__bf16_ulp_diff(0x3F80, 0x3F7F), 1);  /* across a binade */
  assert_true(attngen__bf16_is_nan(0x7FFF) && attngen__bf16_is_nan(0xFFFF));
  assert_false(attngen__bf16_is_nan(0x7F80));
  assert_true(attngen__bf16_is_inf(0xFF80) && !attngen__bf16_is_inf(0x7F7F));
}

static void test_bf16_names_and_scale(void **state) {
  (void)state;
  attngen_layout l = ATTNGEN_LAYOUT_BSHD;
  attngen_rounding r = ATTNGEN_ROUND_RTNE;
  assert_true(attngen__layout_from_name("bhsd", &l) && l == ATTNGEN_LAYOUT_BHSD);
  assert_false(attngen__layout_from_name("bsdh", &l));
  assert_true(attngen__rounding_from_name("rtz", &r) && r == ATTNGEN_ROUND_RTZ);
  assert_false(attngen__rounding_from_name("rtn", &r));
  assert_string_equal(attngen__rounding_name(ATTNGEN_ROUND_RTNA), "rtna");
  assert_null(attngen__layout_name((attngen_layout)5));
  /* scale_log2 is one correctly rounded fp32 product */
  const float s = 1.0f / sqrtf(128.0f);
  assert_true(attngen__scale_log2(s) == (float)((double)s / log(2.0)));
  assert_true(attngen__scale_log2(1.0f) == 1.44269502f);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_bf16_hand_cases),
      cmocka_unit_test(test_bf16_public_matches_rounding_by_value),
      cmocka_unit_test(test_bf16_to_float_exact),
      cmocka_unit_test(test_bf16_ulp_diff),
      cmocka_unit_test(test_bf16_names_and_scale),
      cmocka_unit_test(test_bf16_exhaustive_all_modes),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
