/* test_compare.c: the comparator of check/compare.c is itself checked: it passes a
 * correct output and catches 2-ULP errors, wrong NaN/Inf positions or encodings, unwritten
 * elements, writes into the guard bands, an L2 error against fp64, and LSE mismatches. */
#define _POSIX_C_SOURCE 200809L
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
enum { B = 2, H = 3, SQ = 21, SKV = 50 };
#define N ((size_t)B * H * SQ * D)

/* A reference run on random inputs, its fp64 exact result, and a guarded output holding a
 * copy of the reference (the "correct backend"). */
typedef struct fixture {
  attngen__inputs in;
  uint16_t *ref;
  double *exact;
  attngen__guarded out;
  attngen__compare_args args;
} fixture;

static int fixture_setup(void **state) {
  fixture *f = calloc(1, sizeof *f);
  assert_non_null(f);
  const float scale = 0.088388347648f;
  assert_int_equal(attngen__inputs_make(&f->in, ATTNGEN__INPUT_UNIFORM, 1234,
                                        ATTNGEN_LAYOUT_BHSD, B, H, SQ, SKV, scale),
                   ATTNGEN_STATUS_OK);
  f->ref = calloc(N, 2);
  f->exact = calloc(N, sizeof(double));
  assert_true(f->ref && f->exact);
  assert_int_equal(attngen__guarded_alloc(&f->out, (int64_t)N, ATTNGEN__GUARD_ELEMS),
                   ATTNGEN_STATUS_OK);
  attngen__ref_args a = {attngen__inputs_q(&f->in), attngen__inputs_k(&f->in),
                         attngen__inputs_v(&f->in),
                         attngen__view_out(f->ref, f->in.layout, H, SQ),
                         {B, H, SQ, SKV, f->in.layout, ATTNGEN_ROUND_RTNE}, scale, NULL, 0, 0,
                         0, 0, NULL, NULL};
  assert_int_equal(attngen__reference_fwd(&a), ATTNGEN_STATUS_OK);
  attngen__exact_args e = {a.q, a.k, a.v, attngen__view_f64(f->exact, f->in.layout, H, SQ),
                           B, H, SQ, SKV, scale, NULL, 0};
  assert_int_equal(attngen__exact_fwd(&e), ATTNGEN_STATUS_OK);
  /* the "backend" writes the reference result into the poisoned buffer */
  memcpy(f->out.data, f->ref, N * 2);
  f->args = (attngen__compare_args){attngen__view_in(f->out.data, f->in.layout, H, SQ),
                                    attngen__view_in(f->ref, f->in.layout, H, SQ),
                                    attngen__view_f64(f->exact, f->in.layout, H, SQ), B, H, SQ,
                                    attngen__max_abs_finite(a.v, B, H, SKV), NULL};
  *state = f;
  return 0;
}

static int fixture_teardown(void **state) {
  fixture *f = *state;
  attngen__guarded_free(&f->out);
  free(f->ref);
  free(f->exact);
  attngen__inputs_free(&f->in);
  free(f);
  return 0;
}

static attngen__compare_report compare(const fixture *f) {
  attngen__compare_report r;
  assert_int_equal(attngen__compare(&f->args, &r), ATTNGEN_STATUS_OK);
  return r;
}

/* flat offset of (b, h, s, d) in the bhsd output */
static size_t off(int b, int h, int s, int d) { return (((size_t)b * H + h) * SQ + s) * D + d; }

/* An element whose reference is not near zero, so the ULP rule applies. */
static size_t pick_regular(const fixture *f, size_t from) {
  for (size_t i = from; i < N; ++i) {
    if (fabs(attngen_bf16_to_float(f->ref[i])) > 4.0 * ldexp(f->args.max_abs_v, -10)) return i;
  }
  fail_msg("no regular element");
  return 0;
}

static void test_compare_passes_correct_output(void **state) {
  fixture *f = *state;
  const attngen__compare_report r = compare(f);
  assert_true(r.pass);
  assert_int_equal(r.elements, (int64_t)N);
  assert_int_equal(r.ulp0, (int64_t)N);
  assert_int_equal(r.ulp1 + r.ulp_over + r.near_zero + r.unwritten + r.nonfinite_mismatch, 0);
  assert_true(r.rel_l2 > 0.0 && r.rel_l2 < 1e-2);
  assert_int_equal(r.first_bad, -1);
  assert_int_equal(attngen__guarded_check(&f->out, NULL), 0);
}

static void test_compare_one_ulp_passes_two_ulp_fails(void **state) {
  fixture *f = *state;
  const size_t i = pick_regular(f, 100), j = pick_regular(f, i + 1);
  f->out.data[i] = (uint16_t)(f->ref[i] + 1); /* +1 step away from zero */
  attngen__compare_report r = compare(f);
  assert_true(r.pass);
  assert_int_equal(r.ulp1, 1);
  assert_int_equal(r.worst_ulp, 1);
  f->out.data[j] = (uint16_t)(f->ref[j] - 2);
  r = compare(f);
  assert_false(r.pass);
  assert_int_equal(r.ulp_over, 1);
  assert_int_equal(r.worst_ulp, 2);
  assert_int_equal(r.first_bad, (int64_t)j);
  const size_t d = j % D, s = j / D % SQ, h = j / D / SQ % H, b = j / D / SQ / H;
  assert_true(r.worst.b == (int)b && r.worst.h == (int)h && r.worst.s == (int)s &&
              r.worst.d == (int)d);
  assert_int_equal(r.worst_out, f->out.data[j]);
  assert_int_equal(r.worst_ref, f->ref[j]);
}

/* > 1 ULP where |ref| < 2^-10 max|v| is a near-zero case: reported, not a failure. */
static void test_compare_near_zero_counted_separately(void **state) {
  fixture *f = *state;
  const double thr = ldexp(f->args.max_abs_v, -10);
  size_t i = 0;
  while (i < N && !(fabs(attngen_bf16_to_float(f->ref[i])) < thr &&
                    (f->ref[i] & 0x7FFF) > 0x0100)) {
    ++i;
  }
  if (i == N) { /* make one: a tiny reference value */
    i = 5;
    f->ref[i] = attngen_bf16_round((float)(thr / 8), ATTNGEN_ROUND_RTNE);
  }
  f->out.data[i] = (uint16_t)(f->ref[i] + 5);
  attngen__compare_report r = compare(f);
  assert_true(r.pass);
  assert_int_equal(r.near_zero, 1);
  assert_int_equal(r.ulp_over, 0);
  assert_int_equal(r.worst_ulp, 5);
}

/* The near-zero excuse is bounded: |out - ref| beyond 2^-10 max|v| fails even where |ref| is
 * below that threshold (it excused any error there: out = 1000 * threshold passed). */
static void test_compare_near_zero_is_bounded(void **state) {
  fixture *f = *state;
  const double thr = ldexp(f->args.max_abs_v, -10);
  const size_t i = 7;
  f->ref[i] = attngen_bf16_round((float)(thr / 8), ATTNGEN_ROUND_RTNE);
  f->out.data[i] = attngen_bf16_round((float)(thr * 3), ATTNGEN_ROUND_RTNE);
  attngen__compare_report r = compare(f);
  assert_false(r.pass);
  assert_int_equal(r.near_zero, 0);
  assert_int_equal(r.ulp_over, 1);
  assert_int_equal(r.first_bad, (int64_t)i);
  f->out.data[i] = attngen_bf16_round((float)(thr / 2), ATTNGEN_ROUND_RTNE); /* within it */
  r = compare(f);
  assert_true(r.pass);
  assert_int_equal(r.near_zero, 1);
}

/* A non-finite output where the fp64 exact attention is finite fails, even where the
 * reference is NaN too (issue 29: `check --scale 3e38` printed rel L2 0, PASS for an
 * all-NaN output, because both the reference and the L2 term skipped non-finite elements);
 * and the reverse, a finite output where the exact result is not. */
static void test_compare_nonfinite_output_fails_against_exact(void **state) {
  fixture *f = *state;
  for (size_t i = 0; i < N; ++i) f->out.data[i] = f->ref[i] = ATTNGEN__BF16_NAN;
  attngen__compare_report r = compare(f);
  assert_false(r.pass);
  assert_int_equal(r.nonfinite_mismatch, 0); /* out and reference agree */
  assert_int_equal(r.exact_mismatch, (int64_t)N);
  assert_int_equal(r.first_bad, 0);
  char *text = NULL;
  size_t len = 0;
  FILE *mf = open_memstream(&text, &len);
  assert_non_null(mf);
  attngen__compare_print(mf, "t", &r);
  fclose(mf);
  assert_non_null(strstr(text, "vs fp64 " ));
  assert_non_null(strstr(text, "FAIL"));
  free(text);
  /* the reverse: exact NaN at one element, out and reference finite there */
  fixture_teardown(state);
  fixture_setup(state);
  f = *state;
  f->exact[off(0, 1, 2, 3)] = NAN;
  r = compare(f);
  assert_false(r.pass);
  assert_int_equal(r.exact_mismatch, 1);
  assert_int_equal(r.first_bad, (int64_t)off(0, 1, 2, 3));
  /* without an exact result nothing is compared against it */
  f->args.exact.data = NULL;
  r = compare(f);
  assert_true(r.pass);
  assert_int_equal(r.exact_mismatch, 0);
}

static void test_compare_catches_wrong_nan_position(void **state) {
  fixture *f = *state;
  f->ref[off(1, 2, 3, 4)] = ATTNGEN__BF16_NAN;      /* reference says NaN here */
  f->out.data[off(1, 2, 3, 5)] = ATTNGEN__BF16_NAN; /* output puts it next door */
  const attngen__compare_report r = compare(f);
  assert_false(r.pass);
  assert_int_equal(r.nonfinite_mismatch, 2);
  assert_int_equal(r.ref_nan, 1);
  assert_int_equal(r.out_nan, 1);
  assert_int_equal(r.first_bad, (int64_t)off(1, 2, 3, 4));
  assert_true(r.first_bad_at.b == 1 && r.first_bad_at.h == 2 && r.first_bad_at.s == 3 &&
              r.first_bad_at.d == 4);
}

static void test_compare_nan_encoding_and_inf_sign(void **state) {
  fixture *f = *state;
  /* where inputs make the exact result NaN / +Inf too (else an output NaN fails against it) */
  f->exact[off(0, 0, 0, 0)] = NAN;
  f->ref[off(0, 0, 0, 0)] = ATTNGEN__BF16_NAN;
  f->out.data[off(0, 0, 0, 0)] = 0x7FC0; /* a NaN, but not 0x7FFF */
  attngen__compare_report r = compare(f);
  assert_false(r.pass);
  assert_int_equal(r.bad_nan_encoding, 1);
  assert_int_equal(r.nonfinite_mismatch, 0);
  f->out.data[off(0, 0, 0, 0)] = ATTNGEN__BF16_NAN;
  assert_true(compare(f).pass);
  f->exact[off(0, 1, 0, 0)] = INFINITY;
  f->ref[off(0, 1, 0, 0)] = ATTNGEN__BF16_POS_INF;
  f->out.data[off(0, 1, 0, 0)] = ATTNGEN__BF16_NEG_INF;
  r = compare(f);
  assert_false(r.pass);
  assert_int_equal(r.nonfinite_mismatch, 1);
  f->out.data[off(0, 1, 0, 0)] = ATTNGEN__BF16_POS_INF;
  r = compare(f);
  assert_true(r.pass);
  assert_int_equal(r.out_inf, 1);
  assert_int_equal(r.ref_inf, 1);
}

static void test_compare_catches_unwritten_element(void **state) {
  fixture *f = *state;
  attngen__guarded_poison(&f->out); /* everything 0xFFFF again */
  memcpy(f->out.data, f->ref, N * 2);
  f->out.data[N - 1] = ATTNGEN__BF16_POISON; /* the "kernel" skipped the last element */
  const attngen__compare_report r = compare(f);
  assert_false(r.pass);
  assert_int_equal(r.unwritten, 1);
  assert_int_equal(r.out_nan, 0);
  assert_int_equal(r.first_bad, (int64_t)(N - 1));
  /* a fully poisoned output: every element unwritten */
  attngen__guarded_poison(&f->out);
  assert_int_equal(compare(f).unwritten, (int64_t)N);
}

static void test_compare_guard_bands(void **state) {
  fixture *f = *state;
  int64_t first = 12345;
  assert_int_equal(attngen__guarded_check(&f->out, &first), 0);
  assert_int_equal(first, 12345);
  assert_true(((uintptr_t)f->out.data & 15u) == 0);
  f->out.data[N] = f->ref[0]; /* one element past the end */
  assert_int_equal(attngen__guarded_check(&f->out, &first), 1);
  assert_int_equal(first, (int64_t)N);
  f->out.data[-3] = 0; /* before the start */
  assert_int_equal(attngen__guarded_check(&f->out, &first), 2);
  assert_int_equal(first, -3);
  attngen__guarded_poison(&f->out);
  assert_int_equal(attngen__guarded_check(&f->out, NULL), 0);
  for (int64_t i = 0; i < f->out.n; ++i) assert_int_equal(f->out.data[i], 0xFFFF);
  /* neighbouring canary values differ, so a shifted copy of the band is caught too */
  assert_int_not_equal(attngen__guard_canary(0), attngen__guard_canary(1));
}

/* An output that matches the reference in ULPs can still fail the fp64 L2 bound: here the
 * "exact" result is moved 5% away. */
static void test_compare_rel_l2_bound(void **state) {
  fixture *f = *state;
  for (size_t i = 0; i < N; ++i) f->exact[i] *= 1.05;
  attngen__compare_report r = compare(f);
  assert_false(r.pass);
  assert_true(r.rel_l2 > 0.04 && r.rel_l2 < 0.06);
  assert_int_equal(r.ulp_over, 0);
  f->args.exact.data = NULL; /* no exact result: the bound is not checked */
  r = compare(f);
  assert_true(r.pass);
  assert_true(r.rel_l2 < 0.0);
}

static void test_compare_report_text(void **state) {
  fixture *f = *state;
  const size_t j = pick_regular(f, 0);
  f->out.data[j] = (uint16_t)(f->ref[j] + 3);
  const attngen__compare_report r = compare(f);
  char *text = NULL;
  size_t len = 0;
  FILE *mem = open_memstream(&text, &len);
  assert_non_null(mem);
  attngen__compare_print(mem, "cpu 2x3x21x50 bhsd rtne", &r);
  fclose(mem);
  assert_non_null(strstr(text, "cpu 2x3x21x50 bhsd rtne: 16128 elements"));
  assert_non_null(strstr(text, ">1: 1"));
  assert_non_null(strstr(text, "worst: 3 ulp"));
  assert_non_null(strstr(text, "result: FAIL"));
  assert_non_null(strstr(text, "rel L2 vs fp64"));
  free(text);
}

static void test_compare_lse(void **state) {
  (void)state;
  const float ref[6] = {1.0f, -INFINITY, 250.0f, NAN, INFINITY, -3.0f};
  float got[6];
  memcpy(got, ref, sizeof got);
  got[0] = 1.00005f;
  got[2] = 250.001f; /* within 1e-4 + 1e-5 * 250 */
  attngen__lse_report r;
  attngen__compare_lse(got, ref, 6, ATTNGEN__LSE_ABS_TOL, ATTNGEN__LSE_REL_TOL, &r);
  assert_true(r.pass);
  assert_true(r.max_abs_err > 5e-4 && r.max_abs_err < 2e-3);
  got[1] = -1e30f; /* -inf must stay -inf */
  attngen__compare_lse(got, ref, 6, ATTNGEN__LSE_ABS_TOL, ATTNGEN__LSE_REL_TOL, &r);
  assert_false(r.pass);
  assert_int_equal(r.worst, 1);
  got[1] = -INFINITY;
  got[3] = 0.0f; /* NaN expected */
  attngen__compare_lse(got, ref, 6, ATTNGEN__LSE_ABS_TOL, ATTNGEN__LSE_REL_TOL, &r);
  assert_int_equal(r.mismatches, 1);
  got[3] = NAN;
  got[5] = -3.001f; /* beyond 1e-4 + 3e-5 */
  attngen__compare_lse(got, ref, 6, ATTNGEN__LSE_ABS_TOL, ATTNGEN__LSE_REL_TOL, &r);
  assert_false(r.pass);
  assert_int_equal(r.worst, 5);
}

static void test_compare_bad_args(void **state) {
  fixture *f = *state;
  attngen__compare_report r;
  assert_int_equal(attngen__compare(NULL, &r), ATTNGEN_STATUS_NULL_POINTER);
  attngen__compare_args a = f->args;
  a.seqlen_q = -1;
  assert_int_equal(attngen__compare(&a, &r), ATTNGEN_STATUS_BAD_SHAPE);
  a = f->args;
  a.out.data = NULL;
  assert_int_equal(attngen__compare(&a, &r), ATTNGEN_STATUS_NULL_POINTER);
  attngen__guarded g;
  assert_int_equal(attngen__guarded_alloc(&g, -1, 8), ATTNGEN_STATUS_INVALID_ARGUMENT);
}

/* > 1 ULP but within the reference's P-rounding-boundary tolerance plus 1 ULP: reported
 * separately, not a failure; beyond it: a failure. */
static void test_compare_p_flip_tolerance(void **state) {
  fixture *f = *state;
  float *tol = calloc(N, sizeof(float));
  assert_non_null(tol);
  f->args.tol = tol;
  const size_t i = pick_regular(f, 10);
  f->out.data[i] = (uint16_t)(f->ref[i] + 3);
  const double ulp = fabs((double)attngen_bf16_to_float((uint16_t)(f->ref[i] + 1)) -
                          (double)attngen_bf16_to_float(f->ref[i]));
  tol[i] = (float)(2.5 * ulp); /* 3 ULP away <= 2.5 ULP + 1 ULP */
  attngen__compare_report r = compare(f);
  assert_true(r.pass);
  assert_int_equal(r.p_flip, 1);
  assert_int_equal(r.ulp_over, 0);
  tol[i] = (float)(1.5 * ulp); /* 3 > 1.5 + 1 */
  r = compare(f);
  assert_false(r.pass);
  assert_int_equal(r.p_flip, 0);
  assert_int_equal(r.ulp_over, 1);
  f->args.tol = NULL;
  free(tol);
}

/* A model of a kernel whose exp2 is off by up to 2^-21 relative (ex2.approx is documented
 * at 2 ulp = 2^-22): the algorithm of docs/NUMERICS.md with p = exp2f(t - m) * (1 +- 2^-21).
 * The reference's tolerance must cover every difference such a kernel can produce. */
static void perturbed_attention(const attngen__inputs *in, int b, int h, int sq, int skv,
                                float scale_log2, int mode, uint16_t *out_row_major) {
  for (int s = 0; s < sq; ++s) {
    float q[D], acc[D] = {0}, m = -INFINITY, l = 0.0f;
    const attngen__tensor_view qv = attngen__inputs_q(in), kv = attngen__inputs_k(in),
                               vv = attngen__inputs_v(in);
    for (int d = 0; d < D; ++d)
      q[d] = attngen_bf16_to_float(qv.data[attngen__view_offset(qv.sb, qv.sh, qv.ss, b, h, s) + d]);
    for (int k0 = 0; k0 < skv; k0 += 64) {
      const int n = skv - k0 < 64 ? skv - k0 : 64;
      float t[64], step_max = m;
      for (int j = 0; j < n; ++j) {
        const uint16_t *kr = kv.data + attngen__view_offset(kv.sb, kv.sh, kv.ss, b, h, k0 + j);
        float dot = 0.0f; /* inputs are on a grid: exact in any order */
        for (int d = 0; d < D; ++d) dot += q[d] * attngen_bf16_to_float(kr[d]);
        t[j] = dot * scale_log2;
        step_max = fmaxf(step_max, t[j]);
      }
      if (step_max > m) {
        const float alpha = exp2f(m - step_max);
        l *= alpha;
        for (int d = 0; d < D; ++d) acc[d] *= alpha;
        m = step_max;
      }
      for (int j = 0; j < n; ++j) {
        const float x = t[j] - m, eps = ((k0 + j) % 3 == 0 ? 1.0f : -1.0f) / 2097152.0f;
        const float p = x == floorf(x) ? exp2f(x) : exp2f(x) * (1.0f + eps); /* 2^int exact */
        l += p;
        const float pb = attngen_bf16_to_float(attngen_bf16_round(p, (attngen_rounding)mode));
        const uint16_t *vr = vv.data + attngen__view_offset(vv.sb, vv.sh, vv.ss, b, h, k0 + j);
        for (int d = 0; d < D; ++d) acc[d] += pb * attngen_bf16_to_float(vr[d]);
      }
    }
    const float inv = l == 0.0f ? 0.0f : 1.0f / l;
    for (int d = 0; d < D; ++d)
      out_row_major[(size_t)s * D + d] = attngen_bf16_round(acc[d] * inv, (attngen_rounding)mode);
  }
}

static void test_compare_tolerance_covers_approximate_exp2(void **state) {
  (void)state;
  enum { SQ2 = 96, SKV2 = 700 };
  const float scale = 0.088388347648f;
  for (int mode = 0; mode < 3; ++mode) {
    for (int kind = ATTNGEN__INPUT_UNIFORM; kind <= ATTNGEN__INPUT_LARGE; ++kind) {
      attngen__inputs in;
      assert_int_equal(attngen__inputs_make(&in, (attngen__input_kind)kind, 77 + mode * 3 + kind,
                                            ATTNGEN_LAYOUT_BHSD, 1, 1, SQ2, SKV2, scale),
                       ATTNGEN_STATUS_OK);
      uint16_t *ref = calloc((size_t)SQ2 * D, 2), *out = calloc((size_t)SQ2 * D, 2);
      float *tol = calloc((size_t)SQ2 * D, sizeof(float));
      assert_true(ref && out && tol);
      attngen__ref_args a;
      memset(&a, 0, sizeof a);
      a.q = attngen__inputs_q(&in);
      a.k = attngen__inputs_k(&in);
      a.v = attngen__inputs_v(&in);
      a.out = attngen__view_out(ref, ATTNGEN_LAYOUT_BHSD, 1, SQ2);
      a.shape = (attngen__call_shape){1, 1, SQ2, SKV2, ATTNGEN_LAYOUT_BHSD, mode};
      a.softmax_scale = scale;
      a.tol = tol;
      assert_int_equal(attngen__reference_fwd(&a), ATTNGEN_STATUS_OK);
      perturbed_attention(&in, 0, 0, SQ2, SKV2, attngen__scale_log2(scale), mode, out);
      attngen__compare_args c;
      memset(&c, 0, sizeof c);
      c.out = attngen__view_in(out, ATTNGEN_LAYOUT_BHSD, 1, SQ2);
      c.ref = attngen__view_in(ref, ATTNGEN_LAYOUT_BHSD, 1, SQ2);
      c.batch = c.heads = 1;
      c.seqlen_q = SQ2;
      c.max_abs_v = 0.0; /* no near-zero exemption: the tolerance alone must explain it */
      c.tol = tol;
      attngen__compare_report r;
      assert_int_equal(attngen__compare(&c, &r), ATTNGEN_STATUS_OK);
      print_message("mode %d inputs %d: ulp0 %lld ulp1 %lld p-flip %lld over %lld\n", mode, kind,
                    (long long)r.ulp0, (long long)r.ulp1, (long long)r.p_flip,
                    (long long)r.ulp_over);
      assert_int_equal(r.ulp_over, 0);
      /* and the tolerance stays small: above 1 ULP of the reference at < 2% of elements */
      int64_t wide = 0;
      for (size_t i = 0; i < (size_t)SQ2 * D; ++i) {
        const double u = fabs((double)attngen_bf16_to_float((uint16_t)(ref[i] + 1)) -
                              (double)attngen_bf16_to_float(ref[i]));
        wide += tol[i] > u;
      }
      assert_true(wide * 50 < (int64_t)SQ2 * D);
      free(ref);
      free(out);
      free(tol);
      attngen__inputs_free(&in);
    }
  }
}

#define T(name) cmocka_unit_test_setup_teardown(name, fixture_setup, fixture_teardown)

int main(void) {
  const struct CMUnitTest tests[] = {
      T(test_compare_passes_correct_output),
      T(test_compare_one_ulp_passes_two_ulp_fails),
      T(test_compare_near_zero_counted_separately),
      T(test_compare_near_zero_is_bounded),
      T(test_compare_nonfinite_output_fails_against_exact),
      T(test_compare_catches_wrong_nan_position),
      T(test_compare_nan_encoding_and_inf_sign),
      T(test_compare_catches_unwritten_element),
      T(test_compare_guard_bands),
      T(test_compare_rel_l2_bound),
      T(test_compare_report_text),
      cmocka_unit_test(test_compare_lse),
      T(test_compare_p_flip_tolerance),
      cmocka_unit_test(test_compare_tolerance_covers_approximate_exp2),
      T(test_compare_bad_args),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
