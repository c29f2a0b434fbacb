/* test_testdata.c: the seeded input generators of check/testdata.c: reproducible,
 * layout-independent, never zero, and the large-score inputs really have |t| ~ 100 with a
 * running max that keeps rising across 64-key tiles (so the rescale path runs). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "verify.h"

#define D ATTNGEN__HEAD_DIM
#define SCALE 0.088388347648f

static size_t elems(int b, int h, int s) { return (size_t)b * h * s * D; }

static uint16_t at(const uint16_t *t, attngen_layout layout, int heads, int seqlen, int b,
                   int h, int s, int d) {
  attngen__tensor_view v = attngen__view_in(t, layout, heads, seqlen);
  return v.data[attngen__view_offset(v.sb, v.sh, v.ss, b, h, s) + d];
}

static void test_testdata_rng_reproducible(void **state) {
  (void)state;
  attngen__rng a, b;
  attngen__rng_seed(&a, 99);
  attngen__rng_seed(&b, 99);
  for (int i = 0; i < 1000; ++i) assert_true(attngen__rng_next(&a) == attngen__rng_next(&b));
  /* splitmix64 of seed 0: first output is the published constant */
  attngen__rng_seed(&a, 0);
  assert_true(attngen__rng_next(&a) == 0xE220A8397B1DCDAFull);
  double sum = 0.0, sum2 = 0.0;
  attngen__rng_seed(&a, 5);
  for (int i = 0; i < 100000; ++i) {
    const double u = attngen__rng_uniform(&a);
    assert_true(u >= 0.0 && u < 1.0);
    const double z = attngen__rng_normal(&a);
    sum += z;
    sum2 += z * z;
  }
  assert_true(fabs(sum / 1e5) < 0.02 && fabs(sum2 / 1e5 - 1.0) < 0.03);
}

static void test_testdata_seeded_nonzero_layout_independent(void **state) {
  (void)state;
  for (int kind = 0; kind < 3; ++kind) {
    attngen__inputs a, b, c, other;
    assert_int_equal(attngen__inputs_make(&a, (attngen__input_kind)kind, 3, ATTNGEN_LAYOUT_BSHD,
                                          2, 3, 17, 40, SCALE), ATTNGEN_STATUS_OK);
    assert_int_equal(attngen__inputs_make(&b, (attngen__input_kind)kind, 3, ATTNGEN_LAYOUT_BHSD,
                                          2, 3, 17, 40, SCALE), ATTNGEN_STATUS_OK);
    assert_int_equal(attngen__inputs_make(&c, (attngen__input_kind)kind, 3, ATTNGEN_LAYOUT_BSHD,
                                          2, 3, 17, 40, SCALE), ATTNGEN_STATUS_OK);
    assert_int_equal(attngen__inputs_make(&other, (attngen__input_kind)kind, 4,
                                          ATTNGEN_LAYOUT_BSHD, 2, 3, 17, 40, SCALE),
                     ATTNGEN_STATUS_OK);
    assert_memory_equal(a.k, c.k, elems(2, 3, 40) * 2);
    assert_memory_not_equal(a.k, other.k, elems(2, 3, 40) * 2);
    size_t zeros = 0, nonfinite = 0;
    for (int bb = 0; bb < 2; ++bb)
      for (int h = 0; h < 3; ++h)
        for (int d = 0; d < D; ++d) {
          for (int s = 0; s < 17; ++s) {
            const uint16_t x = at(a.q, a.layout, 3, 17, bb, h, s, d);
            assert_int_equal(x, at(b.q, b.layout, 3, 17, bb, h, s, d));
            zeros += (x & 0x7FFF) == 0;
            nonfinite += (x & 0x7F80) == 0x7F80;
          }
          for (int s = 0; s < 40; ++s) {
            const uint16_t k = at(a.k, a.layout, 3, 40, bb, h, s, d);
            const uint16_t v = at(a.v, a.layout, 3, 40, bb, h, s, d);
            assert_int_equal(k, at(b.k, b.layout, 3, 40, bb, h, s, d));
            assert_int_equal(v, at(b.v, b.layout, 3, 40, bb, h, s, d));
            zeros += (k & 0x7FFF) == 0 || (v & 0x7FFF) == 0;
            nonfinite += (k & 0x7F80) == 0x7F80 || (v & 0x7F80) == 0x7F80;
          }
        }
    assert_int_equal(zeros, 0);
    assert_int_equal(nonfinite, 0);
    attngen__inputs_free(&a);
    attngen__inputs_free(&b);
    attngen__inputs_free(&c);
    attngen__inputs_free(&other);
  }
}

static double score_t(const attngen__inputs *in, int s, int j) {
  double dot = 0.0;
  for (int d = 0; d < D; ++d) {
    const uint16_t q = at(in->q, in->layout, in->heads, in->seqlen_q, 0, 0, s, d);
    const uint16_t k = at(in->k, in->layout, in->heads, in->seqlen_kv, 0, 0, j, d);
    dot += (double)attngen_bf16_to_float(q) * (double)attngen_bf16_to_float(k);
  }
  return dot * SCALE * 1.4426950408889634;
}

static void test_testdata_large_scores_rescale(void **state) {
  (void)state;
  const int Sq = 32, Skv = 512;
  attngen__inputs in;
  assert_int_equal(attngen__inputs_make(&in, ATTNGEN__INPUT_LARGE, 8, ATTNGEN_LAYOUT_BHSD, 1, 1,
                                        Sq, Skv, SCALE), ATTNGEN_STATUS_OK);
  double sum2 = 0.0;
  int raised = 0, tiles_after_first = 0;
  for (int s = 0; s < Sq; ++s) {
    double m = -INFINITY;
    for (int kv0 = 0; kv0 < Skv; kv0 += 64) {
      double tile_max = -INFINITY;
      for (int j = kv0; j < kv0 + 64; ++j) {
        const double t = score_t(&in, s, j);
        sum2 += t * t;
        tile_max = fmax(tile_max, t);
      }
      if (kv0 > 0) {
        ++tiles_after_first;
        raised += tile_max > m;
      }
      m = fmax(m, tile_max);
    }
  }
  const double rms = sqrt(sum2 / ((double)Sq * Skv));
  print_message("large scores: rms |t| %.1f, running max raised in %d of %d later tiles\n", rms,
                raised, tiles_after_first);
  assert_true(rms > 60.0 && rms < 200.0);
  assert_true(raised * 4 > tiles_after_first); /* more than a quarter of the tiles rescale */
  attngen__inputs_free(&in);
}

/* realistic: |k_j| ~ sqrt(D) * channel gains, with outlier channels */
static void test_testdata_realistic_norms(void **state) {
  (void)state;
  attngen__inputs in;
  assert_int_equal(attngen__inputs_make(&in, ATTNGEN__INPUT_REALISTIC, 2, ATTNGEN_LAYOUT_BSHD,
                                        1, 2, 4, 256, SCALE), ATTNGEN_STATUS_OK);
  double norm_sum = 0.0, ch5 = 0.0, ch6 = 0.0;
  for (int j = 0; j < 256; ++j) {
    double n2 = 0.0;
    for (int d = 0; d < D; ++d) {
      const double x = attngen_bf16_to_float(at(in.k, in.layout, 2, 256, 0, 1, j, d));
      n2 += x * x;
      if (d == 5) ch5 += fabs(x);
      if (d == 6) ch6 += fabs(x);
    }
    norm_sum += sqrt(n2);
  }
  const double mean_norm = norm_sum / 256;
  print_message("realistic: mean |k| %.1f (sqrt(D) = %.1f)\n", mean_norm, sqrt((double)D));
  assert_true(mean_norm > 0.8 * sqrt((double)D) && mean_norm < 2.5 * sqrt((double)D));
  assert_true(ch5 > 2.0 * ch6); /* channel 5 is an outlier channel */
  attngen__inputs_free(&in);
}

static void test_testdata_plant_and_bad_args(void **state) {
  (void)state;
  attngen__inputs in;
  assert_int_equal(attngen__inputs_make(&in, ATTNGEN__INPUT_UNIFORM, 1, ATTNGEN_LAYOUT_BHSD, 2,
                                        2, 3, 5, SCALE), ATTNGEN_STATUS_OK);
  attngen__plant(attngen__view_out(in.v, in.layout, 2, 5), 1, 0, 4, 127, ATTNGEN__BF16_NEG_INF);
  assert_int_equal(in.v[((1 * 2 + 0) * 5 + 4) * D + 127], ATTNGEN__BF16_NEG_INF);
  attngen__inputs_free(&in);
  assert_int_equal(attngen__inputs_make(&in, ATTNGEN__INPUT_UNIFORM, 1, (attngen_layout)2, 1, 1,
                                        1, 1, SCALE), ATTNGEN_STATUS_BAD_LAYOUT);
  assert_int_equal(attngen__inputs_make(&in, ATTNGEN__INPUT_UNIFORM, 1, ATTNGEN_LAYOUT_BSHD, 1,
                                        -1, 1, 1, SCALE), ATTNGEN_STATUS_BAD_SHAPE);
  assert_int_equal(attngen__inputs_make(&in, ATTNGEN__INPUT_LARGE, 1, ATTNGEN_LAYOUT_BSHD, 1,
                                        1, 1, 1, 0.0f), ATTNGEN_STATUS_BAD_SCALE);
  /* every finite scale the API accepts makes uniform inputs (attngen check --scale 0) */
  assert_int_equal(attngen__inputs_make(&in, ATTNGEN__INPUT_UNIFORM, 1, ATTNGEN_LAYOUT_BSHD, 1,
                                        1, 1, 1, 0.0f), ATTNGEN_STATUS_OK);
  attngen__inputs_free(&in);
  /* Skv = 0 is a valid input set */
  assert_int_equal(attngen__inputs_make(&in, ATTNGEN__INPUT_UNIFORM, 1, ATTNGEN_LAYOUT_BSHD, 1,
                                        1, 4, 0, SCALE), ATTNGEN_STATUS_OK);
  attngen__inputs_free(&in);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_testdata_rng_reproducible),
      cmocka_unit_test(test_testdata_seeded_nonzero_layout_independent),
      cmocka_unit_test(test_testdata_large_scores_rescale),
      cmocka_unit_test(test_testdata_realistic_norms),
      cmocka_unit_test(test_testdata_plant_and_bad_args),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
