/* test_reference.c: the CPU reference attention (runtime/numerics/reference.c) against
 * docs/NUMERICS.md: edge sizes, layouts and strides, NaN/Inf propagation derived by hand, the
 * softmax scale, LSE against an independent double computation, the exact fp64 attention,
 * and a plain transcription of steps 1-7 on inputs whose dot products are exact. */
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
#define DEFAULT_SCALE 0.088388347648f /* 1/sqrt(128) */

static void *xcalloc(size_t n, size_t size) {
  void *p = calloc(n ? n : 1, size);
  assert_non_null(p);
  return p;
}

static size_t elems(int b, int h, int s) { return (size_t)b * h * s * D; }

/* Reference on dense inputs into a dense output of the inputs' layout. */
static void run_ref(const attngen__inputs *in, attngen_rounding mode, float scale, int threads,
                    int unrounded_p, uint16_t *out, float *lse) {
  attngen__ref_args a = {attngen__inputs_q(in), attngen__inputs_k(in), attngen__inputs_v(in),
                         attngen__view_out(out, in->layout, in->heads, in->seqlen_q),
                         {in->batch, in->heads, in->seqlen_q, in->seqlen_kv, in->layout, mode},
                         scale, lse, threads, unrounded_p, 0, 0, NULL};
  assert_int_equal(attngen__reference_fwd(&a), ATTNGEN_STATUS_OK);
}

static void run_exact(const attngen__inputs *in, double scale, double *out, double *lse) {
  attngen__exact_args e = {attngen__inputs_q(in), attngen__inputs_k(in), attngen__inputs_v(in),
                           attngen__view_f64(out, in->layout, in->heads, in->seqlen_q),
                           in->batch, in->heads, in->seqlen_q, in->seqlen_kv, scale, lse, 0};
  assert_int_equal(attngen__exact_fwd(&e), ATTNGEN_STATUS_OK);
}

static void make(attngen__inputs *in, attngen__input_kind kind, uint64_t seed,
                 attngen_layout layout, int b, int h, int sq, int skv, float scale) {
  assert_int_equal(attngen__inputs_make(in, kind, seed, layout, b, h, sq, skv, scale),
                   ATTNGEN_STATUS_OK);
}

/* Element (b, h, s, d) of a dense output. */
static uint16_t at(const uint16_t *t, attngen_layout layout, int heads, int seqlen, int b,
                   int h, int s, int d) {
  attngen__tensor_view v = attngen__view_in(t, layout, heads, seqlen);
  return v.data[attngen__view_offset(v.sb, v.sh, v.ss, b, h, s) + d];
}

static attngen__out_view mut(const attngen__inputs *in, uint16_t *data, int seqlen) {
  return attngen__view_out(data, in->layout, in->heads, seqlen);
}

/* ---- sizes ----------------------------------------------------------------------------- */

static void test_reference_skv_zero(void **state) {
  (void)state;
  const int B = 2, H = 3, Sq = 5;
  for (int mode = 0; mode < 3; ++mode) {
    uint16_t *out = xcalloc(elems(B, H, Sq), 2);
    float lse[2 * 3 * 5];
    memset(out, 0xFF, elems(B, H, Sq) * 2);
    uint16_t q[2 * 3 * 5 * D];
    for (size_t i = 0; i < sizeof q / 2; ++i) q[i] = 0x3F80;
    attngen__ref_args a = {attngen__view_in(q, ATTNGEN_LAYOUT_BSHD, H, Sq),
                           {NULL, 0, 0, 0}, {NULL, 0, 0, 0},
                           attngen__view_out(out, ATTNGEN_LAYOUT_BSHD, H, Sq),
                           {B, H, Sq, 0, ATTNGEN_LAYOUT_BSHD, mode}, DEFAULT_SCALE, lse, 0,
                           0, 0, 0, NULL};
    assert_int_equal(attngen__reference_fwd(&a), ATTNGEN_STATUS_OK);
    for (size_t i = 0; i < elems(B, H, Sq); ++i) assert_int_equal(out[i], 0x0000);
    for (int i = 0; i < B * H * Sq; ++i) assert_true(isinf(lse[i]) && lse[i] < 0);
    free(out);
  }
  /* the exact attention agrees: zeros */
  double ex[3 * D];
  uint16_t q1[3 * D] = {0};
  attngen__exact_args e = {attngen__view_in(q1, ATTNGEN_LAYOUT_BHSD, 1, 3), {NULL, 0, 0, 0},
                           {NULL, 0, 0, 0}, attngen__view_f64(ex, ATTNGEN_LAYOUT_BHSD, 1, 3),
                           1, 1, 3, 0, 0.1, NULL, 1};
  for (int i = 0; i < 3 * D; ++i) ex[i] = 7.0;
  assert_int_equal(attngen__exact_fwd(&e), ATTNGEN_STATUS_OK);
  for (int i = 0; i < 3 * D; ++i) assert_true(ex[i] == 0.0);
}

/* One key: p = exp2(0) = 1 is exact, l = 1, so out = v exactly in every mode and
 * LSE = t * ln 2 = s * scale. */
static void test_reference_single_key(void **state) {
  (void)state;
  attngen__inputs in;
  make(&in, ATTNGEN__INPUT_UNIFORM, 7, ATTNGEN_LAYOUT_BSHD, 2, 2, 1, 1, DEFAULT_SCALE);
  for (int mode = 0; mode < 3; ++mode) {
    uint16_t out[2 * 2 * D];
    float lse[4];
    run_ref(&in, (attngen_rounding)mode, DEFAULT_SCALE, 1, 0, out, lse);
    assert_memory_equal(out, in.v, sizeof out);
    for (int bh = 0; bh < 4; ++bh) {
      double s = 0.0;
      for (int d = 0; d < D; ++d) {
        s += (double)attngen_bf16_to_float(in.q[bh * D + d]) *
             (double)attngen_bf16_to_float(in.k[bh * D + d]);
      }
      assert_true(fabs(lse[bh] - s * DEFAULT_SCALE) < 1e-5);
    }
  }
  attngen__inputs_free(&in);
}

/* score_fma: one row, two keys with scores a > b (q = e_0, k_j = s_j e_0: exact), V = (0, 1),
 * so out = bf16(P_1 / l). Expected values computed here from the contract's formulas in the
 * two forms (t = fl(s c), m = max t; x = t - m or fma(s, c, -m)); a pair where the forms give
 * different outputs is searched, and the reference must reproduce each form on it. */
static uint16_t two_key_out(float a, float b, float c, int fma_form) {
  const float t0 = a * c, t1 = b * c, m = fmaxf(t0, t1);
  const float x0 = fma_form ? fmaf(a, c, -m) : t0 - m, x1 = fma_form ? fmaf(b, c, -m) : t1 - m;
  const float p0 = exp2f(x0), p1 = exp2f(x1);
  const float l = (0.0f + p0) + p1;
  const float pb1 = attngen__f32_from_bits(
      ag_bf16_to_f32_bits(ag_bf16_round(attngen__f32_bits(p1), ATTNGEN_ROUND_RTNE)));
  const float o = 0.0f + pb1 * 1.0f;
  return (uint16_t)ag_bf16_round(attngen__f32_bits(o * (1.0f / l)), ATTNGEN_ROUND_RTNE);
}

/* A pair of scores a > b (c < 0: either order; 8-bit mantissas: exact in bf16) whose two-key
 * outputs differ between the forms at scale_log2 c; 0 if none was found. */
static int find_form_pair(float c, float *pa, float *pb) {
  /* a flip of the output's bf16 rounding between the forms needs ~2^16 candidate pairs, so
   * search widely */
  for (int ea = -7; ea <= 0; ++ea)
    for (int ka = 128; ka < 256; ++ka)
      for (int eb = -7; eb <= 0; ++eb)
        for (int kb = 128; kb < 256; ++kb) {
          const float a = ldexpf((float)ka, ea), b = ldexpf((float)kb, eb);
          if (!(b < a) && !(c < 0.0f && a < b)) continue; /* (c < 0: key b may be the max) */
          if (two_key_out(a, b, c, 1) != two_key_out(a, b, c, 0)) {
            *pa = a, *pb = b;
            return 1;
          }
        }
  return 0;
}

/* The reference on the two keys (a, b) at `scale` in form `form`: every output element equals
 * the contract's value, form 1's where `fma_want`, else form 0's. */
static void check_two_keys(float a, float b, float scale, int form, int fma_want) {
  uint16_t q[D] = {0}, k[2 * D] = {0}, v[2 * D] = {0}, out[D];
  q[0] = 0x3F80; /* 1.0 */
  k[0] = (uint16_t)(attngen__f32_bits(a) >> 16);
  k[D] = (uint16_t)(attngen__f32_bits(b) >> 16);
  for (int d = 0; d < D; ++d) v[D + d] = 0x3F80;
  attngen__ref_args r = {attngen__view_in(q, ATTNGEN_LAYOUT_BSHD, 1, 1),
                         attngen__view_in(k, ATTNGEN_LAYOUT_BSHD, 1, 2),
                         attngen__view_in(v, ATTNGEN_LAYOUT_BSHD, 1, 2),
                         attngen__view_out(out, ATTNGEN_LAYOUT_BSHD, 1, 1),
                         {1, 1, 1, 2, ATTNGEN_LAYOUT_BSHD, ATTNGEN_ROUND_RTNE}, scale,
                         NULL, 1, 0, 0, 0, NULL};
  r.score_fma = form;
  assert_int_equal(attngen__reference_fwd(&r), ATTNGEN_STATUS_OK);
  const uint16_t want = two_key_out(a, b, attngen__scale_log2(scale), fma_want);
  for (int d = 0; d < D; ++d) assert_int_equal(out[d], want);
}

static void test_reference_score_fma(void **state) {
  (void)state;
  float a = 0, b = 0;
  assert_true(find_form_pair(attngen__scale_log2(DEFAULT_SCALE), &a, &b));
  check_two_keys(a, b, DEFAULT_SCALE, 0, 0);
  check_two_keys(a, b, DEFAULT_SCALE, 1, 1);
  check_two_keys(a, b, DEFAULT_SCALE, 2, 1); /* form 2, positive scale: the fma form */
  /* a negative scale: form 1 keeps the fma form, form 2 (the sm90 kernels') takes form 0 */
  assert_true(find_form_pair(attngen__scale_log2(-DEFAULT_SCALE), &a, &b));
  check_two_keys(a, b, -DEFAULT_SCALE, 1, 1);
  check_two_keys(a, b, -DEFAULT_SCALE, 2, 0);
  check_two_keys(a, b, -DEFAULT_SCALE, 0, 0);
}

/* score_fma at |m| >= 2^24 (issue 29): with scale 1e10 the fma form's x at a row's max is
 * the rounding error of fl(s * c), up to ulp(t) / 2 = 512 here: p = exp2(x) = +Inf for some s
 * (NaN rows on gfx942). The contract takes x = t - m on such rows: x = 0 at the max, so a
 * one-hot row returns the max key's v exactly. A key score a with a rounding error > 128 is
 * searched (the old form's p = +Inf), then the reference must give v of that key. */
static void test_reference_score_fma_large_max(void **state) {
  (void)state;
  const float c = attngen__scale_log2(1e10f);
  float a = 0;
  for (int k = 128; k < 256 && a == 0; ++k) {
    const float s = ldexpf((float)k, -7);
    if (fmaf(s, c, -(s * c)) > 128.0f) a = s;
  }
  assert_true(a != 0);
  assert_true(isinf(exp2f(fmaf(a, c, -(a * c))))); /* the old form's p at the max */
  uint16_t q[D] = {0}, k[2 * D] = {0}, v[2 * D] = {0}, out[D];
  float lse[1];
  q[0] = 0x3F80; /* 1.0 */
  k[0] = (uint16_t)(attngen__f32_bits(a) >> 16);
  k[D] = 0x3F80; /* score 1 < a: t differs by ~1e10, p = 0 */
  for (int d = 0; d < D; ++d) {
    v[d] = 0x4040;     /* 3.0: the max key */
    v[D + d] = 0xC000; /* -2.0 */
  }
  for (int mode = 0; mode < 3; ++mode) {
    attngen__ref_args r = {attngen__view_in(q, ATTNGEN_LAYOUT_BSHD, 1, 1),
                           attngen__view_in(k, ATTNGEN_LAYOUT_BSHD, 1, 2),
                           attngen__view_in(v, ATTNGEN_LAYOUT_BSHD, 1, 2),
                           attngen__view_out(out, ATTNGEN_LAYOUT_BSHD, 1, 1),
                           {1, 1, 1, 2, ATTNGEN_LAYOUT_BSHD, (attngen_rounding)mode}, 1e10f,
                           lse, 1, 0, 0, 0, NULL};
    r.score_fma = 1;
    assert_int_equal(attngen__reference_fwd(&r), ATTNGEN_STATUS_OK);
    for (int d = 0; d < D; ++d) assert_int_equal(out[d], 0x4040);
    /* LSE = m ln 2 + ln 1 */
    assert_true(fabs(lse[0] - (double)(a * c) * 0.6931471805599453) <= 1e-6 * fabs(lse[0]));
  }
}

/* Counts, over finite elements not near zero, how many differ from round(exact, mode) by more
 * than one bf16 step; returns the largest such difference. */
static int32_t max_steps_vs_exact(const uint16_t *out, const double *ex, size_t n,
                                  attngen_rounding mode, double near_zero, size_t *over) {
  int32_t worst = 0;
  *over = 0;
  for (size_t i = 0; i < n; ++i) {
    if (fabs(ex[i]) < near_zero) continue;
    int32_t u = attngen__bf16_ulp_diff(out[i], attngen_bf16_round((float)ex[i], mode));
    if (u < 0) u = -u;
    if (u > worst) worst = u;
    if (u > 1) ++*over;
  }
  return worst;
}

/* Relative L2 error of a bf16 output against exact fp64 attention, over finite pairs, and
 * the number of non-finite outputs where the exact result is finite (computed here: passing
 * the output as both "out" and "ref" of the comparator tested nothing against the
 * reference, issue 29). */
static double rel_l2_vs_exact(const uint16_t *out, const double *ex, size_t n, size_t *bad) {
  double err2 = 0.0, ref2 = 0.0;
  *bad = 0;
  for (size_t i = 0; i < n; ++i) {
    const double o = (double)attngen_bf16_to_float(out[i]);
    if (!isfinite(ex[i])) continue;
    if (!isfinite(o)) {
      ++*bad;
      continue;
    }
    err2 += (o - ex[i]) * (o - ex[i]);
    ref2 += ex[i] * ex[i];
  }
  return ref2 > 0.0 ? sqrt(err2 / ref2) : sqrt(err2);
}

/* Sizes that are not multiples of 16 (or of the 64-key tile), all modes, both layouts:
 * - with P kept in fp32 (the one rounding the contract adds), every element not near zero is
 *   within 1 bf16 step of the exact fp64 result rounded in the same mode;
 * - with the contract's rounded P, the relative L2 sanity bound holds. */
static void test_reference_vs_exact_ragged_sizes(void **state) {
  (void)state;
  const int shapes[][4] = {{1, 1, 1, 1}, {1, 2, 17, 33}, {2, 3, 65, 129}, {1, 2, 100, 1000},
                           {1, 1, 3, 200}};
  for (size_t si = 0; si < sizeof shapes / sizeof shapes[0]; ++si) {
    const int B = shapes[si][0], H = shapes[si][1], Sq = shapes[si][2], Skv = shapes[si][3];
    for (int lay = 0; lay < 2; ++lay) {
      attngen__inputs in;
      make(&in, si % 2 ? ATTNGEN__INPUT_REALISTIC : ATTNGEN__INPUT_UNIFORM, 100 + si,
           (attngen_layout)lay, B, H, Sq, Skv, DEFAULT_SCALE);
      const size_t n = elems(B, H, Sq);
      double *ex = xcalloc(n, sizeof(double));
      uint16_t *out = xcalloc(n, 2);
      run_exact(&in, DEFAULT_SCALE, ex, NULL);
      const double vmax = attngen__max_abs_finite(attngen__inputs_v(&in), B, H, Skv);
      for (int mode = 0; mode < 3; ++mode) {
        size_t over;
        run_ref(&in, (attngen_rounding)mode, DEFAULT_SCALE, 0, 1, out, NULL);
        const int32_t worst = max_steps_vs_exact(out, ex, n, (attngen_rounding)mode,
                                                 ldexp(vmax, -10), &over);
        if (worst > 1) {
          print_error("shape %d,%d,%d,%d %s %s: %zu elements > 1 step (worst %d)\n", B, H, Sq,
                      Skv, attngen__layout_name((attngen_layout)lay),
                      attngen__rounding_name((attngen_rounding)mode), over, worst);
        }
        assert_true(worst <= 1);

        run_ref(&in, (attngen_rounding)mode, DEFAULT_SCALE, 0, 0, out, NULL);
        size_t nonfinite;
        const double l2 = rel_l2_vs_exact(out, ex, n, &nonfinite);
        assert_int_equal(nonfinite, 0);
        assert_true(l2 >= 0.0 && l2 <= ATTNGEN__REL_L2_LIMIT);
        max_steps_vs_exact(out, ex, n, (attngen_rounding)mode, ldexp(vmax, -10), &over);
        if (lay == 0 && si == 3) {
          print_message("%d,%d,%d,%d %s: rounded P: rel L2 %.2e, %zu of %zu elements > 1 step "
                        "from exact; P in fp32: 0\n", B, H, Sq, Skv,
                        attngen__rounding_name((attngen_rounding)mode), l2, over, n);
        }
      }
      free(ex);
      free(out);
      attngen__inputs_free(&in);
    }
  }
}

/* Rows past Sq are not written; keys past Skv (NaN here) never contribute. */
static void test_reference_ragged_ends(void **state) {
  (void)state;
  const int B = 2, H = 2, Sq = 19, Skv = 70, pad = 5;
  for (int lay = 0; lay < 2; ++lay) {
    attngen__inputs in, big;
    make(&in, ATTNGEN__INPUT_UNIFORM, 3, (attngen_layout)lay, B, H, Sq, Skv, DEFAULT_SCALE);
    make(&big, ATTNGEN__INPUT_UNIFORM, 4, (attngen_layout)lay, B, H, Sq + pad, Skv + pad,
         DEFAULT_SCALE);
    /* copy the logical tensors into the larger buffers, NaN in the extra keys */
    attngen__tensor_view src[3] = {attngen__inputs_q(&in), attngen__inputs_k(&in),
                                   attngen__inputs_v(&in)};
    attngen__out_view dst[3] = {mut(&big, big.q, Sq + pad), mut(&big, big.k, Skv + pad),
                                mut(&big, big.v, Skv + pad)};
    for (int t = 0; t < 3; ++t) {
      const int S = t == 0 ? Sq : Skv;
      for (int b = 0; b < B; ++b) {
        for (int h = 0; h < H; ++h) {
          for (int s = 0; s < S + pad; ++s) {
            for (int d = 0; d < D; ++d) {
              const uint16_t x =
                  s < S ? src[t].data[attngen__view_offset(src[t].sb, src[t].sh, src[t].ss, b,
                                                           h, s) + d]
                        : (uint16_t)ATTNGEN__BF16_NAN;
              attngen__plant(dst[t], b, h, s, d, x);
            }
          }
        }
      }
    }
    uint16_t *want = xcalloc(elems(B, H, Sq), 2);
    uint16_t *got = xcalloc(elems(B, H, Sq + pad), 2);
    memset(got, 0xFF, elems(B, H, Sq + pad) * 2);
    run_ref(&in, ATTNGEN_ROUND_RTNE, DEFAULT_SCALE, 0, 0, want, NULL);
    attngen__ref_args a = {attngen__inputs_q(&big), attngen__inputs_k(&big),
                           attngen__inputs_v(&big), mut(&big, got, Sq + pad),
                           {B, H, Sq, Skv, big.layout, ATTNGEN_ROUND_RTNE}, DEFAULT_SCALE, NULL,
                           0, 0, 0, 0, NULL};
    assert_int_equal(attngen__reference_fwd(&a), ATTNGEN_STATUS_OK);
    for (int b = 0; b < B; ++b) {
      for (int h = 0; h < H; ++h) {
        for (int s = 0; s < Sq + pad; ++s) {
          for (int d = 0; d < D; ++d) {
            const uint16_t g = at(got, in.layout, H, Sq + pad, b, h, s, d);
            assert_int_equal(g, s < Sq ? at(want, in.layout, H, Sq, b, h, s, d) : 0xFFFF);
          }
        }
      }
    }
    free(want);
    free(got);
    attngen__inputs_free(&in);
    attngen__inputs_free(&big);
  }
}

/* ---- layouts, strides, threads ----------------------------------------------------------- */

static void test_reference_layouts_strides_threads_bitwise(void **state) {
  (void)state;
  const int B = 2, H = 3, Sq = 77, Skv = 150;
  attngen__inputs a, b;
  make(&a, ATTNGEN__INPUT_LARGE, 11, ATTNGEN_LAYOUT_BSHD, B, H, Sq, Skv, DEFAULT_SCALE);
  make(&b, ATTNGEN__INPUT_LARGE, 11, ATTNGEN_LAYOUT_BHSD, B, H, Sq, Skv, DEFAULT_SCALE);
  const size_t n = elems(B, H, Sq);
  uint16_t *oa = xcalloc(n, 2), *ob = xcalloc(n, 2), *oc = xcalloc(n, 2);
  float la[2 * 3 * 77], lb[2 * 3 * 77];
  for (int mode = 0; mode < 3; ++mode) {
    run_ref(&a, (attngen_rounding)mode, DEFAULT_SCALE, 1, 0, oa, la);
    run_ref(&b, (attngen_rounding)mode, DEFAULT_SCALE, 3, 0, ob, lb);
    assert_memory_equal(la, lb, sizeof la);
    for (int bb = 0; bb < B; ++bb)
      for (int h = 0; h < H; ++h)
        for (int s = 0; s < Sq; ++s)
          for (int d = 0; d < D; d += 7)
            assert_int_equal(at(oa, a.layout, H, Sq, bb, h, s, d),
                             at(ob, b.layout, H, Sq, bb, h, s, d));
    /* same layout, 2 and 5 threads: bitwise identical */
    run_ref(&a, (attngen_rounding)mode, DEFAULT_SCALE, 5, 0, oc, NULL);
    assert_memory_equal(oa, oc, n * 2);
  }
  /* general strides: rows 3 * D apart, heads in reverse order in memory, padding = NaN */
  const int64_t ss = 3 * D, sh = -(int64_t)Sq * ss, sb = (int64_t)H * Sq * ss;
  const size_t big_q = (size_t)B * H * Sq * 3 * D, big_kv = (size_t)B * H * Skv * 3 * D;
  uint16_t *q = malloc(big_q * 2), *k = malloc(big_kv * 2), *v = malloc(big_kv * 2);
  uint16_t *o = malloc(big_q * 2);
  assert_true(q && k && v && o);
  for (size_t i = 0; i < big_q; ++i) q[i] = o[i] = 0x7FC1;
  for (size_t i = 0; i < big_kv; ++i) k[i] = v[i] = 0x7FC1;
  const int64_t kss = 3 * D, ksh = -(int64_t)Skv * kss, ksb = (int64_t)H * Skv * kss;
  const int64_t q_origin = (int64_t)(H - 1) * Sq * ss, k_origin = (int64_t)(H - 1) * Skv * kss;
  attngen__out_view vq = {q + q_origin, sb, sh, ss}, vk = {k + k_origin, ksb, ksh, kss},
                    vv = {v + k_origin, ksb, ksh, kss}, vo = {o + q_origin, sb, sh, ss};
  for (int bb = 0; bb < B; ++bb)
    for (int h = 0; h < H; ++h)
      for (int d = 0; d < D; ++d) {
        for (int s = 0; s < Sq; ++s) {
          attngen__plant(vq, bb, h, s, d, at(a.q, a.layout, H, Sq, bb, h, s, d));
        }
        for (int s = 0; s < Skv; ++s) {
          attngen__plant(vk, bb, h, s, d, at(a.k, a.layout, H, Skv, bb, h, s, d));
          attngen__plant(vv, bb, h, s, d, at(a.v, a.layout, H, Skv, bb, h, s, d));
        }
      }
  attngen__ref_args ra = {{vq.data, sb, sh, ss}, {vk.data, ksb, ksh, kss},
                          {vv.data, ksb, ksh, kss}, vo,
                          {B, H, Sq, Skv, ATTNGEN_LAYOUT_BSHD, ATTNGEN_ROUND_RTZ}, DEFAULT_SCALE,
                          NULL, 2, 0, 0, 0, NULL};
  assert_int_equal(attngen__reference_fwd(&ra), ATTNGEN_STATUS_OK);
  run_ref(&a, ATTNGEN_ROUND_RTZ, DEFAULT_SCALE, 0, 0, oa, NULL);
  size_t padding_kept = 0;
  for (int bb = 0; bb < B; ++bb)
    for (int h = 0; h < H; ++h)
      for (int s = 0; s < Sq; ++s) {
        const uint16_t *row = vo.data + attngen__view_offset(sb, sh, ss, bb, h, s);
        for (int d = 0; d < D; ++d) assert_int_equal(row[d], at(oa, a.layout, H, Sq, bb, h, s, d));
        padding_kept += row[D] == 0x7FC1 && row[2 * D + 5] == 0x7FC1;
      }
  assert_int_equal(padding_kept, (size_t)B * H * Sq);
  free(q);
  free(k);
  free(v);
  free(o);
  free(oa);
  free(ob);
  free(oc);
  attngen__inputs_free(&a);
  attngen__inputs_free(&b);
}

/* ---- NaN / Inf, derived by hand from steps 1-7 -------------------------------------------- */

typedef struct special_case {
  attngen__inputs in;
  uint16_t *clean, *dirty;
  float *lse_clean, *lse_dirty;
} special_case;

enum { SB = 2, SH = 2, SQ = 9, SKV = 130 };

static void special_setup(special_case *c, attngen_layout layout) {
  make(&c->in, ATTNGEN__INPUT_UNIFORM, 21, layout, SB, SH, SQ, SKV, DEFAULT_SCALE);
  c->clean = xcalloc(elems(SB, SH, SQ), 2);
  c->dirty = xcalloc(elems(SB, SH, SQ), 2);
  c->lse_clean = xcalloc(SB * SH * SQ, sizeof(float));
  c->lse_dirty = xcalloc(SB * SH * SQ, sizeof(float));
  run_ref(&c->in, ATTNGEN_ROUND_RTNE, DEFAULT_SCALE, 0, 0, c->clean, c->lse_clean);
}

static void special_run(special_case *c) {
  run_ref(&c->in, ATTNGEN_ROUND_RTNE, DEFAULT_SCALE, 0, 0, c->dirty, c->lse_dirty);
}

static void special_free(special_case *c) {
  free(c->clean);
  free(c->dirty);
  free(c->lse_clean);
  free(c->lse_dirty);
  attngen__inputs_free(&c->in);
}

static uint16_t dirty_at(const special_case *c, int b, int h, int s, int d) {
  return at(c->dirty, c->in.layout, SH, SQ, b, h, s, d);
}

static uint16_t clean_at(const special_case *c, int b, int h, int s, int d) {
  return at(c->clean, c->in.layout, SH, SQ, b, h, s, d);
}

static float lse_at(const float *lse, int b, int h, int s) { return lse[(b * SH + h) * SQ + s]; }

/* NaN in one k_j (second KV tile): t_j = NaN for every row of that (b, h); the max ignores it
 * (fmax), p_j = exp2(NaN) = NaN enters l and, as P = 0x7FFF, every O column -> the whole
 * (b, h) output is 0x7FFF, LSE NaN. Other heads are bitwise unchanged. */
static void test_reference_nan_in_k(void **state) {
  (void)state;
  for (int lay = 0; lay < 2; ++lay) {
    special_case c;
    special_setup(&c, (attngen_layout)lay);
    attngen__plant(mut(&c.in, c.in.k, SKV), 1, 0, 70, 3, ATTNGEN__BF16_NAN);
    special_run(&c);
    for (int b = 0; b < SB; ++b)
      for (int h = 0; h < SH; ++h)
        for (int s = 0; s < SQ; ++s) {
          const int hit = b == 1 && h == 0;
          assert_true(hit == (int)isnan(lse_at(c.lse_dirty, b, h, s)));
          for (int d = 0; d < D; ++d) {
            assert_int_equal(dirty_at(&c, b, h, s, d), hit ? 0x7FFF : clean_at(&c, b, h, s, d));
          }
        }
    special_free(&c);
  }
}

/* NaN in q (one row): every score of that row is NaN -> the row is all 0x7FFF, LSE NaN. */
static void test_reference_nan_in_q(void **state) {
  (void)state;
  special_case c;
  special_setup(&c, ATTNGEN_LAYOUT_BSHD);
  attngen__plant(mut(&c.in, c.in.q, SQ), 0, 1, 4, 100, 0xFFC0);
  special_run(&c);
  for (int s = 0; s < SQ; ++s)
    for (int d = 0; d < D; ++d)
      assert_int_equal(dirty_at(&c, 0, 1, s, d), s == 4 ? 0x7FFF : clean_at(&c, 0, 1, s, d));
  assert_true(isnan(lse_at(c.lse_dirty, 0, 1, 4)));
  assert_false(isnan(lse_at(c.lse_dirty, 0, 1, 3)));
  special_free(&c);
}

/* NaN in v_j, column d: P_j * NaN = NaN in column d of every row of that (b, h); the other
 * columns and the LSE do not involve v_j[d] and stay bitwise the same. */
static void test_reference_nan_in_v(void **state) {
  (void)state;
  special_case c;
  special_setup(&c, ATTNGEN_LAYOUT_BHSD);
  attngen__plant(mut(&c.in, c.in.v, SKV), 0, 1, 5, 9, ATTNGEN__BF16_NAN);
  special_run(&c);
  assert_memory_equal(c.lse_clean, c.lse_dirty, SB * SH * SQ * sizeof(float));
  for (int s = 0; s < SQ; ++s)
    for (int d = 0; d < D; ++d)
      assert_int_equal(dirty_at(&c, 0, 1, s, d), d == 9 ? 0x7FFF : clean_at(&c, 0, 1, s, d));
  special_free(&c);
}

/* +Inf / -Inf in v_j, column d, with scores of uniform inputs (|t| < 3, so P_j > 0): the
 * column accumulates +-Inf, later rescales multiply by a positive finite alpha, and
 * o = Inf * (1/l) -> 0x7F80 / 0xFF80 in that column of every row. */
static void test_reference_inf_in_v(void **state) {
  (void)state;
  special_case c;
  special_setup(&c, ATTNGEN_LAYOUT_BSHD);
  attngen__plant(mut(&c.in, c.in.v, SKV), 1, 1, 5, 9, ATTNGEN__BF16_POS_INF);
  attngen__plant(mut(&c.in, c.in.v, SKV), 1, 1, 100, 10, ATTNGEN__BF16_NEG_INF);
  special_run(&c);
  for (int s = 0; s < SQ; ++s)
    for (int d = 0; d < D; ++d) {
      const uint16_t want = d == 9 ? 0x7F80 : d == 10 ? 0xFF80 : clean_at(&c, 1, 1, s, d);
      assert_int_equal(dirty_at(&c, 1, 1, s, d), want);
    }
  special_free(&c);
}

/* +Inf in q[d0] with k_j[d0] of both signs: s_j = +-Inf, so the running max becomes +Inf and
 * p_j = exp2(Inf - Inf) = NaN for the keys with positive k_j[d0] -> the row is NaN. */
static void test_reference_inf_q_mixed_k(void **state) {
  (void)state;
  special_case c;
  special_setup(&c, ATTNGEN_LAYOUT_BHSD);
  int pos = 0, neg = 0;
  for (int j = 0; j < SKV; ++j) {
    const uint16_t kj = at(c.in.k, c.in.layout, SH, SKV, 1, 0, j, 0);
    pos += !(kj & 0x8000);
    neg += !!(kj & 0x8000);
  }
  assert_true(pos > 0 && neg > 0);
  attngen__plant(mut(&c.in, c.in.q, SQ), 1, 0, 2, 0, ATTNGEN__BF16_POS_INF);
  special_run(&c);
  for (int s = 0; s < SQ; ++s)
    for (int d = 0; d < D; ++d)
      assert_int_equal(dirty_at(&c, 1, 0, s, d), s == 2 ? 0x7FFF : clean_at(&c, 1, 0, s, d));
  assert_true(isnan(lse_at(c.lse_dirty, 1, 0, 2)));
  special_free(&c);
}

/* ---- scale and LSE ------------------------------------------------------------------------ */

static void lse_double(const attngen__inputs *in, double scale, double *out) {
  const attngen__tensor_view q = attngen__inputs_q(in), k = attngen__inputs_k(in);
  for (int b = 0; b < in->batch; ++b)
    for (int h = 0; h < in->heads; ++h)
      for (int s = 0; s < in->seqlen_q; ++s) {
        const uint16_t *qr = q.data + attngen__view_offset(q.sb, q.sh, q.ss, b, h, s);
        double x[512], mx = -INFINITY, sum = 0.0;
        assert_true(in->seqlen_kv <= 512);
        for (int j = 0; j < in->seqlen_kv; ++j) {
          const uint16_t *kr = k.data + attngen__view_offset(k.sb, k.sh, k.ss, b, h, j);
          double dot = 0.0;
          for (int d = 0; d < D; ++d) {
            dot += (double)attngen_bf16_to_float(qr[d]) * (double)attngen_bf16_to_float(kr[d]);
          }
          x[j] = dot * scale;
          mx = x[j] > mx ? x[j] : mx;
        }
        for (int j = 0; j < in->seqlen_kv; ++j) sum += exp(x[j] - mx);
        out[((size_t)b * in->heads + h) * in->seqlen_q + s] = mx + log(sum);
      }
}

static void test_reference_lse_vs_double(void **state) {
  (void)state;
  for (int kind = 0; kind < 3; ++kind) {
    attngen__inputs in;
    make(&in, (attngen__input_kind)kind, 5 + kind, ATTNGEN_LAYOUT_BHSD, 2, 2, 33, 300,
         DEFAULT_SCALE);
    float lse[2 * 2 * 33];
    double want[2 * 2 * 33];
    uint16_t *out = xcalloc(elems(2, 2, 33), 2);
    run_ref(&in, ATTNGEN_ROUND_RTNA, DEFAULT_SCALE, 0, 0, out, lse);
    lse_double(&in, DEFAULT_SCALE, want);
    float wantf[2 * 2 * 33];
    double spread_lo = INFINITY, spread_hi = -INFINITY;
    for (int i = 0; i < 2 * 2 * 33; ++i) {
      wantf[i] = (float)want[i];
      spread_lo = fmin(spread_lo, want[i]);
      spread_hi = fmax(spread_hi, want[i]);
    }
    attngen__lse_report r;
    attngen__compare_lse(lse, wantf, 2 * 2 * 33, ATTNGEN__LSE_ABS_TOL, ATTNGEN__LSE_REL_TOL, &r);
    if (!r.pass) attngen__compare_lse_print(stderr, &r);
    assert_true(r.pass);
    if (kind == ATTNGEN__INPUT_LARGE) assert_true(spread_hi > 100.0); /* large scores */
    free(out);
    attngen__inputs_free(&in);
  }
}

/* A different softmax_scale changes the result and is followed exactly like the default. */
static void test_reference_scale(void **state) {
  (void)state;
  const int B = 1, H = 2, Sq = 20, Skv = 90;
  const float scales[] = {0.3f, -0.05f, 1.0f};
  attngen__inputs in;
  make(&in, ATTNGEN__INPUT_UNIFORM, 9, ATTNGEN_LAYOUT_BSHD, B, H, Sq, Skv, DEFAULT_SCALE);
  const size_t n = elems(B, H, Sq);
  uint16_t *base = xcalloc(n, 2), *out = xcalloc(n, 2);
  double *ex = xcalloc(n, sizeof(double));
  float lse_base[40], lse[40];
  double lse_want[40];
  run_ref(&in, ATTNGEN_ROUND_RTNE, DEFAULT_SCALE, 0, 0, base, lse_base);
  for (size_t si = 0; si < 3; ++si) {
    run_ref(&in, ATTNGEN_ROUND_RTNE, scales[si], 0, 0, out, lse);
    size_t differ = 0;
    for (size_t i = 0; i < n; ++i) differ += out[i] != base[i];
    assert_true(differ > n / 2);
    run_exact(&in, scales[si], ex, NULL);
    size_t nonfinite;
    assert_true(rel_l2_vs_exact(out, ex, n, &nonfinite) <= ATTNGEN__REL_L2_LIMIT);
    assert_int_equal(nonfinite, 0);
    lse_double(&in, scales[si], lse_want);
    for (int i = 0; i < B * H * Sq; ++i) {
      assert_true(fabs(lse[i] - lse_want[i]) <= 1e-4 + 1e-5 * fabs(lse_want[i]));
      assert_true(lse[i] != lse_base[i]);
    }
  }
  free(base);
  free(out);
  free(ex);
  attngen__inputs_free(&in);
}

/* ---- bitwise against a plain transcription of steps 1-7 -------------------------------- */

/* Inputs whose values are +-2^e, e in [-2, 1]: every product and partial sum of a dot product
 * is exact in fp32, so the reference's summation order cannot matter and the results must be
 * bitwise equal to this row-at-a-time transcription of docs/NUMERICS.md. */
static void fill_pow2(uint16_t *t, size_t n, attngen__rng *r) {
  static const uint16_t vals[] = {0x3E80, 0x3F00, 0x3F80, 0x4000}; /* 0.25 0.5 1 2 */
  for (size_t i = 0; i < n; ++i) {
    const uint64_t x = attngen__rng_next(r);
    t[i] = (uint16_t)(vals[x & 3] | ((x >> 2) & 1 ? 0x8000 : 0));
  }
}

static int transcribe_row(const uint16_t *q, const uint16_t *k, const uint16_t *v, int skv,
                          float scale_log2, attngen_rounding mode, uint16_t *out, float *lse) {
  float m = -INFINITY, l = 0.0f, acc[D] = {0};
  int rescales = 0;
  for (int kv0 = 0; kv0 < skv; kv0 += 64) {
    const int n = skv - kv0 < 64 ? skv - kv0 : 64;
    float t[64], mt = m;
    for (int j = 0; j < n; ++j) {
      float s = 0.0f;
      for (int d = 0; d < D; ++d) {
        s += attngen_bf16_to_float(q[d]) * attngen_bf16_to_float(k[(size_t)(kv0 + j) * D + d]);
      }
      t[j] = s * scale_log2;
      mt = fmaxf(mt, t[j]);
    }
    if (mt > m) {
      const float alpha = exp2f(m - mt);
      rescales += kv0 > 0;
      l *= alpha;
      for (int d = 0; d < D; ++d) acc[d] *= alpha;
      m = mt;
    }
    for (int j = 0; j < n; ++j) {
      const float p = exp2f(t[j] - m);
      l += p;
      const float pb = attngen_bf16_to_float(attngen_bf16_round(p, mode));
      const uint16_t *vj = v + (size_t)(kv0 + j) * D;
      for (int d = 0; d < D; ++d) acc[d] += pb * attngen_bf16_to_float(vj[d]);
    }
  }
  const float inv = l == 0.0f ? 0.0f : 1.0f / l;
  for (int d = 0; d < D; ++d) out[d] = attngen_bf16_round(acc[d] * inv, mode);
  *lse = skv == 0 ? -INFINITY : m * 0.693147182f + logf(l);
  return rescales;
}

static void test_reference_matches_transcription(void **state) {
  (void)state;
  const int B = 1, H = 2, Sq = 70, Skv = 200; /* 2 query blocks, 4 KV tiles (last partial) */
  const float scale = 0.02f;                  /* |s| <= 512 -> |t| up to ~15 */
  attngen__inputs in;
  make(&in, ATTNGEN__INPUT_UNIFORM, 1, ATTNGEN_LAYOUT_BHSD, B, H, Sq, Skv, scale);
  attngen__rng r;
  attngen__rng_seed(&r, 77);
  fill_pow2(in.q, elems(B, H, Sq), &r);
  fill_pow2(in.k, elems(B, H, Skv), &r);
  fill_pow2(in.v, elems(B, H, Skv), &r);
  const size_t n = elems(B, H, Sq);
  uint16_t *out = xcalloc(n, 2), *want = xcalloc(n, 2), *prev = xcalloc(n, 2);
  float lse[2 * 70], lse_want[2 * 70];
  for (int mode = 0; mode < 3; ++mode) {
    run_ref(&in, (attngen_rounding)mode, scale, 0, 0, out, lse);
    int rescales = 0;
    for (int h = 0; h < H; ++h)
      for (int s = 0; s < Sq; ++s) {
        rescales += transcribe_row(in.q + ((size_t)h * Sq + s) * D, in.k + (size_t)h * Skv * D,
                                   in.v + (size_t)h * Skv * D, Skv, attngen__scale_log2(scale),
                                   (attngen_rounding)mode, want + ((size_t)h * Sq + s) * D,
                                   &lse_want[h * Sq + s]);
      }
    assert_true(rescales > 0); /* the rescale path ran after the first tile */
    assert_memory_equal(out, want, n * 2);
    assert_memory_equal(lse, lse_want, sizeof lse);
    if (mode > 0) assert_memory_not_equal(out, prev, n * 2); /* the mode is honoured */
    memcpy(prev, out, n * 2);
  }
  free(out);
  free(want);
  free(prev);
  attngen__inputs_free(&in);
}

/* Online softmax of one row over keys [k0, k1) in steps of `step` keys from k0: the (m, l, O)
 * a kernel part leaves before normalization. */
static void transcribe_part(const uint16_t *q, const uint16_t *k, const uint16_t *v, int k0,
                            int k1, int step, float scale_log2, attngen_rounding mode, float *m,
                            float *l, float *acc) {
  *m = -INFINITY;
  *l = 0.0f;
  for (int d = 0; d < D; ++d) acc[d] = 0.0f;
  for (int kv0 = k0; kv0 < k1; kv0 += step) {
    const int n = k1 - kv0 < step ? k1 - kv0 : step;
    float t[256], mt = *m;
    for (int j = 0; j < n; ++j) {
      float s = 0.0f;
      for (int d = 0; d < D; ++d) {
        s += attngen_bf16_to_float(q[d]) * attngen_bf16_to_float(k[(size_t)(kv0 + j) * D + d]);
      }
      t[j] = s * scale_log2;
      mt = fmaxf(mt, t[j]);
    }
    if (mt > *m) {
      const float alpha = exp2f(*m - mt);
      *l *= alpha;
      for (int d = 0; d < D; ++d) acc[d] *= alpha;
      *m = mt;
    }
    for (int j = 0; j < n; ++j) {
      const float p = exp2f(t[j] - *m);
      *l += p;
      const float pb = attngen_bf16_to_float(attngen_bf16_round(p, mode));
      const uint16_t *vj = v + (size_t)(kv0 + j) * D;
      for (int d = 0; d < D; ++d) acc[d] += pb * attngen_bf16_to_float(vj[d]);
    }
  }
}

/* One row with a softmax step and, when kv_per_split > 0, the tail split: parts of
 * kv_per_split keys, merged as NAME_merge does (templates/gfx942/attn_fwd.hip.in). */
static void transcribe_row_tiled(const uint16_t *q, const uint16_t *k, const uint16_t *v,
                                 int skv, int step, int kv_per_split, float scale_log2,
                                 attngen_rounding mode, uint16_t *out, float *lse) {
  float m, l, acc[D];
  if (kv_per_split == 0) {
    transcribe_part(q, k, v, 0, skv, step, scale_log2, mode, &m, &l, acc);
  } else {
    enum { MAX_PARTS = 16 };
    const int parts = (skv + kv_per_split - 1) / kv_per_split;
    assert_true(parts <= MAX_PARTS);
    float pm[MAX_PARTS], pl[MAX_PARTS], po[MAX_PARTS][D];
    for (int p = 0; p < parts; ++p) {
      const int k1 = (p + 1) * kv_per_split < skv ? (p + 1) * kv_per_split : skv;
      transcribe_part(q, k, v, p * kv_per_split, k1, step, scale_log2, mode, &pm[p], &pl[p],
                      po[p]);
    }
    m = -INFINITY;
    for (int p = 0; p < parts; ++p) m = fmaxf(m, pm[p]);
    l = 0.0f;
    for (int d = 0; d < D; ++d) acc[d] = 0.0f;
    for (int p = 0; p < parts; ++p) {
      const float w = pm[p] == -INFINITY ? 0.0f : exp2f(pm[p] - m);
      l += pl[p] * w;
      for (int d = 0; d < D; ++d) acc[d] += po[p][d] * w;
    }
  }
  const float inv = l == 0.0f ? 0.0f : 1.0f / l;
  for (int d = 0; d < D; ++d) out[d] = attngen_bf16_round(acc[d] * inv, mode);
  *lse = skv == 0 ? -INFINITY : m * 0.693147182f + logf(l);
}

/* kv_step and the tail-split emulation (kv_per_split + per-row flags) against the
 * transcription, bitwise; the step changes results (P is rounded against the running max of
 * each step), and so does the split. */
static void test_reference_step_and_split_match_transcription(void **state) {
  (void)state;
  const int B = 1, H = 2, Sq = 70, Skv = 200;
  const float scale = 0.02f;
  attngen__inputs in;
  make(&in, ATTNGEN__INPUT_UNIFORM, 2, ATTNGEN_LAYOUT_BHSD, B, H, Sq, Skv, scale);
  attngen__rng r;
  attngen__rng_seed(&r, 78);
  fill_pow2(in.q, elems(B, H, Sq), &r);
  fill_pow2(in.k, elems(B, H, Skv), &r);
  fill_pow2(in.v, elems(B, H, Skv), &r);
  const size_t n = elems(B, H, Sq);
  uint16_t *out = xcalloc(n, 2), *want = xcalloc(n, 2), *first = xcalloc(n, 2);
  float lse[2 * 70], lse_want[2 * 70];
  unsigned char rows[2 * 70];
  for (int i = 0; i < H * Sq; ++i) rows[i] = i < Sq || (i - Sq) / 32 == 1; /* h 0; h 1 s 32-63 */
  static const struct {
    int step, kv_per_split, flags;
  } cases[] = {{128, 0, 0}, {16, 0, 0}, {32, 0, 0}, {32, 64, 1}, {32, 96, 0}, {64, 128, 1}};
  size_t differ_from_first = 0;
  for (size_t ci = 0; ci < sizeof cases / sizeof cases[0]; ++ci) {
    const attngen_rounding mode = (attngen_rounding)(ci % 3);
    attngen__ref_args a = {attngen__inputs_q(&in), attngen__inputs_k(&in), attngen__inputs_v(&in),
                           attngen__view_out(out, in.layout, H, Sq),
                           {B, H, Sq, Skv, in.layout, mode}, scale, lse, 0, 0, 0, 0, NULL};
    a.kv_step = cases[ci].step;
    a.kv_per_split = cases[ci].kv_per_split;
    a.split_rows = cases[ci].flags ? rows : NULL;
    assert_int_equal(attngen__reference_fwd(&a), ATTNGEN_STATUS_OK);
    for (int h = 0; h < H; ++h)
      for (int s = 0; s < Sq; ++s) {
        const int split = cases[ci].kv_per_split && (!cases[ci].flags || rows[h * Sq + s]);
        transcribe_row_tiled(in.q + ((size_t)h * Sq + s) * D, in.k + (size_t)h * Skv * D,
                             in.v + (size_t)h * Skv * D, Skv, cases[ci].step,
                             split ? cases[ci].kv_per_split : 0, attngen__scale_log2(scale), mode,
                             want + ((size_t)h * Sq + s) * D, &lse_want[h * Sq + s]);
      }
    assert_memory_equal(out, want, n * 2);
    assert_memory_equal(lse, lse_want, sizeof lse);
    /* the same step with rtne as case 0 would give identical results: compare across
     * steps within one mode only */
    if (ci == 0) memcpy(first, out, n * 2);
    if (ci == 3) {
      /* rtne again (ci % 3 == 0): step 32 + split vs step 128 */
      for (size_t i = 0; i < n; ++i) differ_from_first += out[i] != first[i];
    }
  }
  assert_true(differ_from_first > 0);
  free(out);
  free(want);
  free(first);
  attngen__inputs_free(&in);
}

/* Per-batch key lengths: entry b of a call with kv_lengths equals, bit for bit (output and
 * LSE), the call of entry b alone with its first clamp(kv_lengths[b], 0, Skv) keys, with
 * and without a tail split; the masked keys hold NaN and Inf (they must contribute
 * nothing); length 0 gives out = 0, LSE = -inf; negative and > Skv values are clamped. The
 * exact fp64 attention follows the same lengths. */
static void test_reference_kv_lengths(void **state) {
  (void)state;
  const int B = 4, H = 2, Sq = 9, Skv = 70;
  static const int32_t lens[3][4] = {{0, 1, 37, 70}, {-5, 1000, 64, 69}, {70, 33, 0, 16}};
  for (int lay = 0; lay < 2; ++lay) {
    for (int li = 0; li < 3; ++li) {
      const attngen_layout layout = (attngen_layout)lay;
      const attngen_rounding mode = (attngen_rounding)li;
      attngen__inputs in;
      make(&in, ATTNGEN__INPUT_UNIFORM, 40 + (uint64_t)li, layout, B, H, Sq, Skv, DEFAULT_SCALE);
      for (int b = 0; b < B; ++b) {
        const int n = lens[li][b] < 0 ? 0 : lens[li][b] > Skv ? Skv : lens[li][b];
        assert_int_equal(attngen__kv_len_of(lens[li], b, Skv), n);
        for (int h = 0; h < H; ++h)
          for (int j = n; j < Skv; ++j) {
            attngen__plant(mut(&in, in.k, Skv), b, h, j, j % D, ATTNGEN__BF16_NAN);
            attngen__plant(mut(&in, in.v, Skv), b, h, j, (3 * j) % D, ATTNGEN__BF16_POS_INF);
          }
      }
      const size_t nq = elems(B, H, Sq);
      uint16_t *out = xcalloc(nq, 2), *want = xcalloc(nq, 2);
      float lse[4 * 2 * 9], lse_want[4 * 2 * 9];
      double *ex = xcalloc(nq, sizeof(double)), *ex_want = xcalloc(nq, sizeof(double));
      for (int split = 0; split < 2; ++split) {
        attngen__ref_args a = {attngen__inputs_q(&in), attngen__inputs_k(&in),
                               attngen__inputs_v(&in), attngen__view_out(out, layout, H, Sq),
                               {B, H, Sq, Skv, layout, mode}, DEFAULT_SCALE, lse, 0, 0, 0, 0,
                               NULL};
        a.kv_step = 16;
        a.kv_per_split = split ? 32 : 0;
        a.kv_lengths = lens[li];
        memset(out, 0xFF, nq * 2);
        assert_int_equal(attngen__reference_fwd(&a), ATTNGEN_STATUS_OK);
        memset(want, 0xEE, nq * 2);
        for (int b = 0; b < B; ++b) {
          attngen__ref_args e = a;
          e.kv_lengths = NULL;
          e.shape.batch = 1;
          e.shape.seqlen_kv = attngen__kv_len_of(lens[li], b, Skv);
          e.q.data += b * a.q.sb;
          e.k.data += b * a.k.sb;
          e.v.data += b * a.v.sb;
          e.out = attngen__view_out(want, layout, H, Sq);
          e.out.data += b * e.out.sb;
          e.lse = lse_want + b * H * Sq;
          assert_int_equal(attngen__reference_fwd(&e), ATTNGEN_STATUS_OK);
          if (e.shape.seqlen_kv == 0)
            for (int i = b * H * Sq; i < (b + 1) * H * Sq; ++i)
              assert_true(isinf(lse[i]) && lse[i] < 0);
        }
        assert_memory_equal(out, want, nq * 2);
        assert_memory_equal(lse, lse_want, sizeof lse);
      }
      attngen__exact_args e = {attngen__inputs_q(&in), attngen__inputs_k(&in),
                               attngen__inputs_v(&in), attngen__view_f64(ex, layout, H, Sq), B,
                               H, Sq, Skv, DEFAULT_SCALE, NULL, 0, lens[li]};
      assert_int_equal(attngen__exact_fwd(&e), ATTNGEN_STATUS_OK);
      for (int b = 0; b < B; ++b) {
        attngen__exact_args eb = e;
        eb.kv_lengths = NULL;
        eb.batch = 1;
        eb.seqlen_kv = attngen__kv_len_of(lens[li], b, Skv);
        eb.q.data += b * e.q.sb;
        eb.k.data += b * e.k.sb;
        eb.v.data += b * e.v.sb;
        eb.out = attngen__view_f64(ex_want, layout, H, Sq);
        eb.out.data += b * eb.out.sb;
        assert_int_equal(attngen__exact_fwd(&eb), ATTNGEN_STATUS_OK);
      }
      for (size_t i = 0; i < nq; ++i) assert_true(ex[i] == ex_want[i]);
      free(out);
      free(want);
      free(ex);
      free(ex_want);
      attngen__inputs_free(&in);
    }
  }
}

/* A packed batch (cu_seqlens) is exactly the per-sequence dense calls, bit for bit (output,
 * LSE [H, total_q], the fp64 attention): lengths 0 and 1, Sq < Skv and Sq > Skv, a sequence
 * without keys (out 0, LSE -inf), GQA (4 heads over 2), causal per sequence (bottom-right in
 * each), with and without key lengths (seqused_k: the smaller length wins), a step of 16 and
 * of 64. Then cu_seqlens that break the rules (decreasing, negative, past the totals, longer
 * than the maxima): the sequences are the clamped ones (derived here by hand), rows no
 * sequence covers keep their poison, nothing past the output is written. */
static void packed_expect(const attngen__ref_args *a, const int32_t *qs, const int32_t *qn,
                          const int32_t *ks, const int32_t *kn, const int32_t *kvl, int n,
                          int hkv, const uint16_t *out, const float *lse) {
  const int H = a->shape.heads;
  for (int b = 0; b < n; ++b) {
    if (qn[b] == 0) continue;
    attngen__ref_args e = *a;
    e.cu_seqlens_q = e.cu_seqlens_k = NULL;
    e.total_q = e.total_kv = 0;
    e.kv_lengths = kvl ? &kvl[b] : NULL;
    e.shape.batch = 1;
    e.shape.seqlen_q = qn[b];
    e.shape.seqlen_kv = kn[b];
    e.q.data += (size_t)qs[b] * a->q.ss;
    e.k.data += (size_t)ks[b] * a->k.ss;
    e.v.data += (size_t)ks[b] * a->v.ss;
    uint16_t *want = xcalloc((size_t)qn[b] * H * D, 2);
    float *lw = xcalloc((size_t)qn[b] * H, sizeof(float));
    e.out = attngen__view_out(want, ATTNGEN_LAYOUT_BSHD, H, qn[b]);
    e.lse = lw;
    assert_int_equal(attngen__reference_fwd(&e), ATTNGEN_STATUS_OK);
    assert_memory_equal(out + (size_t)qs[b] * H * D, want, (size_t)qn[b] * H * D * 2);
    for (int h = 0; h < H; ++h)
      assert_memory_equal(&lse[(size_t)h * a->total_q + qs[b]], &lw[(size_t)h * qn[b]],
                          (size_t)qn[b] * sizeof(float));
    (void)hkv;
    free(want);
    free(lw);
  }
}

static void test_reference_packed(void **state) {
  (void)state;
  enum { N = 7, H = 4, HKV = 2 };
  static const int32_t lq[N] = {5, 130, 0, 1, 64, 77, 3}, lk[N] = {5, 70, 9, 64, 0, 200, 1};
  static const int32_t kvl[N] = {3, -1, 100, 1000, 5, 150, 0};
  int32_t cq[N + 1] = {0}, ck[N + 1] = {0};
  int mq = 0, mk = 0;
  for (int b = 0; b < N; ++b) {
    cq[b + 1] = cq[b] + lq[b];
    ck[b + 1] = ck[b] + lk[b];
    mq = lq[b] > mq ? lq[b] : mq;
    mk = lk[b] > mk ? lk[b] : mk;
  }
  const int TQ = cq[N], TK = ck[N];
  attngen__inputs in;
  assert_int_equal(attngen__inputs_make_gqa(&in, ATTNGEN__INPUT_LARGE, 91, ATTNGEN_LAYOUT_BSHD, 1,
                                            H, HKV, TQ, TK, DEFAULT_SCALE), ATTNGEN_STATUS_OK);
  const size_t nq = (size_t)TQ * H * D, guard = 512;
  uint16_t *buf = xcalloc(nq + 2 * guard, 2), *out = buf + guard;
  float *lse = xcalloc((size_t)TQ * H, sizeof(float));
  double *ex = xcalloc(nq, sizeof(double));
  for (int causal = 0; causal < 2; ++causal)
    for (int with_kvl = 0; with_kvl < 2; ++with_kvl)
      for (int step = 16; step <= 64; step *= 4) {
        attngen__ref_args a = {attngen__inputs_q(&in), attngen__inputs_k(&in),
                               attngen__inputs_v(&in),
                               attngen__view_out(out, ATTNGEN_LAYOUT_BSHD, H, TQ),
                               {N, H, mq, mk, ATTNGEN_LAYOUT_BSHD,
                                (attngen_rounding)((causal + step) % 3), HKV},
                               DEFAULT_SCALE, lse, 0, 0, step, 0, NULL};
        a.causal = causal;
        a.kv_lengths = with_kvl ? kvl : NULL;
        a.cu_seqlens_q = cq;
        a.cu_seqlens_k = ck;
        a.total_q = TQ;
        a.total_kv = TK;
        memset(buf, 0xFF, (nq + 2 * guard) * 2);
        memset(lse, 0xFF, (size_t)TQ * H * sizeof(float));
        assert_int_equal(attngen__reference_fwd(&a), ATTNGEN_STATUS_OK);
        int32_t kn[N];
        for (int b = 0; b < N; ++b) {
          const int u = kvl[b] < 0 ? 0 : kvl[b];
          kn[b] = with_kvl && u < lk[b] ? u : lk[b];
        }
        packed_expect(&a, cq, lq, ck, kn, NULL, N, HKV, out, lse);
        for (size_t i = 0; i < guard; ++i) {
          assert_int_equal(buf[i], 0xFFFF);
          assert_int_equal(out[nq + i], 0xFFFF);
        }
        /* sequence 4 has no key, the 1-row sequence 3 one row: out 0, LSE -inf / finite */
        for (int h = 0; h < H; ++h) {
          for (int i = 0; i < lq[4]; ++i) {
            assert_true(isinf(lse[h * TQ + cq[4] + i]) && lse[h * TQ + cq[4] + i] < 0);
            for (int d = 0; d < D; ++d)
              assert_int_equal(out[((size_t)(cq[4] + i) * H + h) * D + d], 0);
          }
          assert_true(isfinite(lse[h * TQ + cq[3]]) || (with_kvl && kvl[3] <= 0));
        }
        /* the fp64 attention: packed = per-sequence */
        attngen__exact_args e = {a.q, a.k, a.v, attngen__view_f64(ex, ATTNGEN_LAYOUT_BSHD, H, TQ),
                                 N, H, mq, mk, DEFAULT_SCALE, NULL, 0, a.kv_lengths, causal, HKV,
                                 128, cq, ck, TQ, TK};
        assert_int_equal(attngen__exact_fwd(&e), ATTNGEN_STATUS_OK);
        for (int b = 0; b < N; ++b) {
          if (lq[b] == 0) continue;
          double *w = xcalloc((size_t)lq[b] * H * D, sizeof(double));
          attngen__exact_args eb = e;
          eb.cu_seqlens_q = eb.cu_seqlens_k = NULL;
          eb.total_q = eb.total_kv = 0;
          eb.kv_lengths = a.kv_lengths ? &kvl[b] : NULL;
          eb.batch = 1;
          eb.seqlen_q = lq[b];
          eb.seqlen_kv = lk[b];
          eb.q.data += (size_t)cq[b] * a.q.ss;
          eb.k.data += (size_t)ck[b] * a.k.ss;
          eb.v.data += (size_t)ck[b] * a.v.ss;
          eb.out = attngen__view_f64(w, ATTNGEN_LAYOUT_BSHD, H, lq[b]);
          assert_int_equal(attngen__exact_fwd(&eb), ATTNGEN_STATUS_OK);
          for (size_t i = 0; i < (size_t)lq[b] * H * D; ++i)
            assert_true(ex[(size_t)cq[b] * H * D + i] == w[i]);
          free(w);
        }
      }

  /* cu_seqlens that break the rules: sequence b is start = clamp(cu[b], 0, total), end =
   * clamp(cu[b + 1], 0, total), length = clamp(end - start, 0, max) */
  static const int32_t bq[N + 1] = {-3, 7, 3, 10, 50, 60, 1000, INT32_MIN};
  static const int32_t bk[N + 1] = {-9, 50, 20, 300, INT32_MAX, 100, 90, 95};
  const int maxq = 20, maxk = 64;
  int32_t qs[N], qn[N], ks[N], kn[N];
  for (int b = 0; b < N; ++b) {
    const int64_t s0 = bq[b] < 0 ? 0 : bq[b] > TQ ? TQ : bq[b];
    const int64_t e0 = bq[b + 1] < 0 ? 0 : bq[b + 1] > TQ ? TQ : bq[b + 1];
    qs[b] = (int32_t)s0;
    qn[b] = (int32_t)(e0 - s0 < 0 ? 0 : e0 - s0 > maxq ? maxq : e0 - s0);
    const int64_t s1 = bk[b] < 0 ? 0 : bk[b] > TK ? TK : bk[b];
    const int64_t e1 = bk[b + 1] < 0 ? 0 : bk[b + 1] > TK ? TK : bk[b + 1];
    ks[b] = (int32_t)s1;
    kn[b] = (int32_t)(e1 - s1 < 0 ? 0 : e1 - s1 > maxk ? maxk : e1 - s1);
  }
  assert_int_equal(qn[1], 0);  /* decreasing: empty */
  assert_int_equal(qn[3], 20); /* 10 .. 50: clamped to the maximum */
  assert_int_equal(kn[2], 64); /* 20 .. 300: clamped to the maximum */
  assert_int_equal(kn[3], TK - 300); /* 300 .. past the total: ends at the total */
  attngen__ref_args a = {attngen__inputs_q(&in), attngen__inputs_k(&in), attngen__inputs_v(&in),
                         attngen__view_out(out, ATTNGEN_LAYOUT_BSHD, H, TQ),
                         {N, H, maxq, maxk, ATTNGEN_LAYOUT_BSHD, ATTNGEN_ROUND_RTNE, HKV},
                         DEFAULT_SCALE, lse, 0, 0, 0, 0, NULL};
  a.causal = 1;
  a.cu_seqlens_q = bq;
  a.cu_seqlens_k = bk;
  a.total_q = TQ;
  a.total_kv = TK;
  memset(buf, 0xFF, (nq + 2 * guard) * 2);
  memset(lse, 0xFF, (size_t)TQ * H * sizeof(float));
  assert_int_equal(attngen__reference_fwd(&a), ATTNGEN_STATUS_OK);
  /* the clamped sequences may overlap (cu not increasing): rows of none keep the poison */
  unsigned char *covered = xcalloc((size_t)TQ, 1);
  for (int b = 0; b < N; ++b)
    for (int i = 0; i < qn[b]; ++i) covered[qs[b] + i] = 1;
  for (int r = 0; r < TQ; ++r)
    if (!covered[r])
      for (int h = 0; h < H; ++h)
        for (int d = 0; d < D; ++d) assert_int_equal(out[((size_t)r * H + h) * D + d], 0xFFFF);
  for (size_t i = 0; i < guard; ++i) {
    assert_int_equal(buf[i], 0xFFFF);
    assert_int_equal(out[nq + i], 0xFFFF);
  }
  /* sequences that share no row with another compare with their dense calls */
  int32_t only[N];
  for (int b = 0; b < N; ++b) only[b] = 1;
  for (int b = 0; b < N; ++b)
    for (int c = 0; c < N; ++c)
      if (b != c && qn[b] && qn[c] && qs[b] < qs[c] + qn[c] && qs[c] < qs[b] + qn[b]) only[b] = 0;
  int32_t qn_only[N];
  for (int b = 0; b < N; ++b) qn_only[b] = only[b] ? qn[b] : 0;
  packed_expect(&a, qs, qn_only, ks, kn, NULL, N, HKV, out, lse);
  int checked = 0;
  for (int b = 0; b < N; ++b) checked += qn_only[b] > 0;
  assert_int_equal(checked, 3); /* sequences 3, 4, 5 (0 and 2 overlap) */
  free(covered);
  free(buf);
  free(lse);
  free(ex);
  attngen__inputs_free(&in);
}

/* The causal mask (bottom-right aligned): row i of entry b equals, bit for bit (output and
 * LSE, and the fp64 attention), the one-row call of that row with the first
 * attngen__causal_keys(1, i, n_b, Sq) keys (n_b: the entry's length); a row that sees no key
 * (Sq > Skv) gives out = 0 and LSE = -inf. Square, Sq < Skv, Sq > Skv, with and without key
 * lengths; NaN in k and +Inf in v of the last key of (0, 0), which only the rows that see it
 * may notice. */
static void test_reference_causal(void **state) {
  (void)state;
  static const int shapes[3][2] = {{20, 20}, {9, 40}, {40, 9}};
  static const int32_t lens[2] = {5, 33};
  const int B = 2, H = 2;
  for (int si = 0; si < 3; ++si)
    for (int kl = 0; kl < 2; ++kl) {
      const int Sq = shapes[si][0], Skv = shapes[si][1];
      const attngen_layout layout = (attngen_layout)(si & 1);
      const attngen_rounding mode = (attngen_rounding)((si + kl) % 3);
      const int32_t *kvl = kl ? lens : NULL;
      attngen__inputs in;
      make(&in, ATTNGEN__INPUT_UNIFORM, 70 + (uint64_t)(si * 2 + kl), layout, B, H, Sq, Skv,
           DEFAULT_SCALE);
      attngen__plant(mut(&in, in.k, Skv), 0, 0, Skv - 1, 3, ATTNGEN__BF16_NAN);
      attngen__plant(mut(&in, in.v, Skv), 0, 0, Skv - 1, 5, ATTNGEN__BF16_POS_INF);
      const size_t nq = elems(B, H, Sq);
      uint16_t *out = xcalloc(nq, 2), *want = xcalloc(nq, 2);
      float *lse = xcalloc((size_t)B * H * Sq, 4), *lse_want = xcalloc((size_t)B * H * Sq, 4);
      double *ex = xcalloc(nq, sizeof(double)), *ex_want = xcalloc(nq, sizeof(double));
      attngen__ref_args a = {attngen__inputs_q(&in), attngen__inputs_k(&in),
                             attngen__inputs_v(&in), attngen__view_out(out, layout, H, Sq),
                             {B, H, Sq, Skv, layout, mode}, DEFAULT_SCALE, lse, 0, 0, 0, 0,
                             NULL};
      a.kv_step = 16;
      a.kv_lengths = kvl;
      a.causal = 1;
      memset(out, 0xFF, nq * 2);
      assert_int_equal(attngen__reference_fwd(&a), ATTNGEN_STATUS_OK);
      attngen__exact_args e = {attngen__inputs_q(&in), attngen__inputs_k(&in),
                               attngen__inputs_v(&in), attngen__view_f64(ex, layout, H, Sq), B,
                               H, Sq, Skv, DEFAULT_SCALE, NULL, 0, kvl, 1};
      assert_int_equal(attngen__exact_fwd(&e), ATTNGEN_STATUS_OK);
      memset(want, 0xEE, nq * 2);
      int empty_rows = 0, partial_rows = 0;
      for (int b = 0; b < B; ++b) {
        const int n = attngen__kv_len_of(kvl, b, Skv);
        for (int h = 0; h < H; ++h)
          for (int i = 0; i < Sq; ++i) {
            const int keys = attngen__causal_keys(1, i, n, Sq);
            const long long expect = (long long)i + n - Sq + 1;
            assert_int_equal(keys, expect < 0 ? 0 : expect > n ? n : expect);
            empty_rows += keys == 0;
            partial_rows += keys > 0 && keys < n;
            attngen__ref_args r = a;
            r.kv_lengths = NULL;
            r.causal = 0;
            r.shape.batch = 1;
            r.shape.heads = 1;
            r.shape.seqlen_q = 1;
            r.shape.seqlen_kv = keys;
            r.q.data += attngen__view_offset(a.q.sb, a.q.sh, a.q.ss, b, h, i);
            r.k.data += attngen__view_offset(a.k.sb, a.k.sh, a.k.ss, b, h, 0);
            r.v.data += attngen__view_offset(a.v.sb, a.v.sh, a.v.ss, b, h, 0);
            r.out = attngen__view_out(want, layout, H, Sq);
            r.out.data += attngen__view_offset(r.out.sb, r.out.sh, r.out.ss, b, h, i);
            r.lse = lse_want + ((size_t)b * H + h) * Sq + i;
            assert_int_equal(attngen__reference_fwd(&r), ATTNGEN_STATUS_OK);
            attngen__exact_args x = e;
            x.kv_lengths = NULL;
            x.causal = 0;
            x.batch = 1;
            x.heads = 1;
            x.seqlen_q = 1;
            x.seqlen_kv = keys;
            x.q = r.q;
            x.k = r.k;
            x.v = r.v;
            x.out = attngen__view_f64(ex_want, layout, H, Sq);
            x.out.data += attngen__view_offset(x.out.sb, x.out.sh, x.out.ss, b, h, i);
            assert_int_equal(attngen__exact_fwd(&x), ATTNGEN_STATUS_OK);
            if (keys == 0) {
              const float l = lse[((size_t)b * H + h) * Sq + i];
              assert_true(isinf(l) && l < 0);
            }
          }
      }
      /* the cases cover what they claim: Sq > Skv has rows without keys, all have partial */
      assert_true(partial_rows > 0);
      assert_true((Sq > Skv) == (empty_rows > 0) || kvl);
      assert_memory_equal(out, want, nq * 2);
      assert_memory_equal(lse, lse_want, (size_t)B * H * Sq * 4);
      for (size_t i = 0; i < nq; ++i)
        assert_true(ex[i] == ex_want[i] || (isnan(ex[i]) && isnan(ex_want[i])));
      free(out);
      free(want);
      free(lse);
      free(lse_want);
      free(ex);
      free(ex_want);
      attngen__inputs_free(&in);
    }
}

/* Grouped-query calls (shape.heads_kv): a GQA row is exactly the row of the dense call whose
 * K/V are the group's KV head, i.e. the dense reference on K/V with each KV head repeated
 * heads / heads_kv times (query head h -> KV head h / (heads / heads_kv)) gives the same bits:
 * out, LSE, the P-flip tolerance, the exact fp64 result; with and without split parts and key
 * lengths, both layouts, the call-level views of attngen__ref_args_of_call (k/v with heads_kv
 * heads) included. */
static void test_reference_gqa_equals_repeated_kv(void **state) {
  (void)state;
  static const int combos[4][2] = {{4, 2}, {3, 1}, {6, 3}, {2, 2}}; /* (heads, heads_kv) */
  static const int32_t lens[2] = {45, 70};
  const int B = 2, Sq = 9, Skv = 70;
  for (int lay = 0; lay < 2; ++lay) {
    for (int ci = 0; ci < 4; ++ci) {
      const attngen_layout layout = (attngen_layout)lay;
      const attngen_rounding mode = (attngen_rounding)(ci % 3);
      const int H = combos[ci][0], Hkv = combos[ci][1], g = H / Hkv;
      attngen__inputs in, dense;
      assert_int_equal(attngen__inputs_make_gqa(&in, ATTNGEN__INPUT_LARGE, 70 + (uint64_t)ci,
                                                layout, B, H, Hkv, Sq, Skv, DEFAULT_SCALE),
                       ATTNGEN_STATUS_OK);
      assert_int_equal(in.heads_kv, Hkv);
      /* the same q; k and v with every KV head repeated g times */
      make(&dense, ATTNGEN__INPUT_UNIFORM, 1, layout, B, H, Sq, Skv, DEFAULT_SCALE);
      memcpy(dense.q, in.q, elems(B, H, Sq) * 2);
      attngen__plant(attngen__view_out(in.k, layout, Hkv, Skv), B - 1, Hkv - 1, 3, 5,
                     ATTNGEN__BF16_NAN); /* a NaN key reaches every query head of its group */
      const attngen__tensor_view kg = attngen__inputs_k(&in), vg = attngen__inputs_v(&in);
      const attngen__out_view kd = mut(&dense, dense.k, Skv), vd = mut(&dense, dense.v, Skv);
      for (int b = 0; b < B; ++b)
        for (int h = 0; h < H; ++h)
          for (int j = 0; j < Skv; ++j)
            for (int d = 0; d < D; ++d) {
              attngen__plant(kd, b, h, j, d,
                             kg.data[attngen__view_offset(kg.sb, kg.sh, kg.ss, b, h / g, j) + d]);
              attngen__plant(vd, b, h, j, d,
                             vg.data[attngen__view_offset(vg.sb, vg.sh, vg.ss, b, h / g, j) + d]);
            }
      const size_t nq = elems(B, H, Sq), nl = (size_t)B * H * Sq;
      uint16_t *out = xcalloc(nq, 2), *want = xcalloc(nq, 2);
      float *lse = xcalloc(nl, 4), *lse_want = xcalloc(nl, 4);
      float *tol = xcalloc(nq, 4), *tol_want = xcalloc(nq, 4);
      for (int var = 0; var < 4; ++var) { /* bit 0: split parts, bit 1: key lengths */
        attngen__ref_args a = {attngen__inputs_q(&in), kg, vg,
                               attngen__view_out(out, layout, H, Sq),
                               {B, H, Sq, Skv, layout, mode, Hkv}, DEFAULT_SCALE, lse, 0, 0, 0,
                               0, NULL};
        a.kv_step = 16;
        a.kv_per_split = var & 1 ? 32 : 0;
        a.kv_lengths = var & 2 ? lens : NULL;
        a.tol = tol;
        attngen__ref_args e = a;
        e.k = attngen__inputs_k(&dense);
        e.v = attngen__inputs_v(&dense);
        e.shape.heads_kv = 0;
        e.out = attngen__view_out(want, layout, H, Sq);
        e.lse = lse_want;
        e.tol = tol_want;
        memset(out, 0xFF, nq * 2);
        memset(want, 0xEE, nq * 2);
        assert_int_equal(attngen__reference_fwd(&a), ATTNGEN_STATUS_OK);
        assert_int_equal(attngen__reference_fwd(&e), ATTNGEN_STATUS_OK);
        assert_memory_equal(out, want, nq * 2);
        assert_memory_equal(lse, lse_want, nl * 4);
        assert_memory_equal(tol, tol_want, nq * 4);
      }
      /* the NaN key's group gives NaN rows (unless only one head): not a vacuous comparison */
      assert_true(attngen__bf16_is_nan(at(out, layout, H, Sq, B - 1, H - 1, 0, 0)));
      if (Hkv > 1) assert_false(attngen__bf16_is_nan(at(out, layout, H, Sq, B - 1, 0, 0, 0)));
      /* the call-level views: k and v with heads_kv heads */
      attngen_fwd_args call;
      attngen_fwd_args_init(&call);
      call.q = in.q;
      call.k = in.k;
      call.v = in.v;
      call.out = out;
      call.lse = lse;
      call.batch = B;
      call.heads = H;
      call.heads_kv = Hkv;
      call.seqlen_q = Sq;
      call.seqlen_kv = Skv;
      call.layout = layout;
      call.rounding = mode;
      attngen__ref_args c = attngen__ref_args_of_call(&call);
      assert_int_equal(c.shape.heads_kv, Hkv == H ? 0 : Hkv);
      attngen__ref_args e = c;
      e.k = attngen__inputs_k(&dense);
      e.v = attngen__inputs_v(&dense);
      e.shape.heads_kv = 0;
      e.out = attngen__view_out(want, layout, H, Sq);
      e.lse = lse_want;
      assert_int_equal(attngen__reference_fwd(&c), ATTNGEN_STATUS_OK);
      assert_int_equal(attngen__reference_fwd(&e), ATTNGEN_STATUS_OK);
      assert_memory_equal(out, want, nq * 2);
      assert_memory_equal(lse, lse_want, nl * 4);
      /* the exact fp64 attention follows the same mapping */
      double *ex = xcalloc(nq, sizeof(double)), *ex_want = xcalloc(nq, sizeof(double));
      attngen__exact_args x = {attngen__inputs_q(&in), kg, vg,
                               attngen__view_f64(ex, layout, H, Sq), B, H, Sq, Skv,
                               DEFAULT_SCALE, NULL, 0, lens, 0, Hkv};
      attngen__exact_args y = x;
      y.k = attngen__inputs_k(&dense);
      y.v = attngen__inputs_v(&dense);
      y.heads_kv = 0;
      y.out = attngen__view_f64(ex_want, layout, H, Sq);
      assert_int_equal(attngen__exact_fwd(&x), ATTNGEN_STATUS_OK);
      assert_int_equal(attngen__exact_fwd(&y), ATTNGEN_STATUS_OK);
      assert_memory_equal(ex, ex_want, nq * sizeof(double));
      free(ex);
      free(ex_want);
      free(out);
      free(want);
      free(lse);
      free(lse_want);
      free(tol);
      free(tol_want);
      attngen__inputs_free(&in);
      attngen__inputs_free(&dense);
    }
  }
}

/* The flags of a split plan mark the rows of the split q-jobs. */
static void test_reference_split_plan_row_flags(void **state) {
  (void)state;
  attngen__split_plan plan;
  /* 1 x 5 heads x 5 q-blocks of 64 = 25 jobs on 8 slots: 4 rounds, a tail of 1 job */
  assert_int_equal(attngen__split_plan_make(1, 5, 300, 4096, 64, 64, 8, 1, &plan),
                   ATTNGEN_STATUS_OK);
  assert_true(plan.num_splits > 1);
  assert_int_equal(plan.split_first, 24);
  unsigned char *flags = xcalloc(5 * 300, 1);
  const long long count = attngen__split_plan_row_flags(&plan, 1, 5, 300, 64, flags);
  for (int bh = 0; bh < 5; ++bh)
    for (int s = 0; s < 300; ++s) assert_int_equal(flags[bh * 300 + s], bh * 5 + s / 64 >= 24);
  assert_int_equal(count, 300 - 256); /* job 24: h 4, q-block 4 = rows 256..299 */
  /* no split: no flags */
  assert_int_equal(attngen__split_plan_make(1, 5, 300, 64, 64, 64, 8, 1, &plan),
                   ATTNGEN_STATUS_OK);
  assert_int_equal(attngen__split_plan_row_flags(&plan, 1, 5, 300, 64, flags), 0);
  free(flags);
}

static void test_reference_bad_args(void **state) {
  (void)state;
  uint16_t buf[D] = {0};
  attngen__ref_args a = {attngen__view_in(buf, ATTNGEN_LAYOUT_BSHD, 1, 1),
                         attngen__view_in(buf, ATTNGEN_LAYOUT_BSHD, 1, 1),
                         attngen__view_in(buf, ATTNGEN_LAYOUT_BSHD, 1, 1),
                         attngen__view_out(buf, ATTNGEN_LAYOUT_BSHD, 1, 1),
                         {1, 1, 1, 1, ATTNGEN_LAYOUT_BSHD, ATTNGEN_ROUND_RTNE}, DEFAULT_SCALE,
                         NULL, 1, 0, 0, 0, NULL};
  assert_int_equal(attngen__reference_fwd(NULL), ATTNGEN_STATUS_NULL_POINTER);
  attngen__ref_args b = a;
  b.shape.seqlen_kv = -1;
  assert_int_equal(attngen__reference_fwd(&b), ATTNGEN_STATUS_BAD_SHAPE);
  b = a;
  b.shape.rounding = 3;
  assert_int_equal(attngen__reference_fwd(&b), ATTNGEN_STATUS_BAD_ROUNDING);
  b = a;
  b.softmax_scale = NAN;
  assert_int_equal(attngen__reference_fwd(&b), ATTNGEN_STATUS_BAD_SCALE);
  b = a;
  b.k.data = NULL;
  assert_int_equal(attngen__reference_fwd(&b), ATTNGEN_STATUS_NULL_POINTER);
  b = a;
  b.out.data = NULL;
  assert_int_equal(attngen__reference_fwd(&b), ATTNGEN_STATUS_NULL_POINTER);
  b = a;
  b.kv_step = -1;
  assert_int_equal(attngen__reference_fwd(&b), ATTNGEN_STATUS_INVALID_ARGUMENT);
  b = a;
  b.kv_step = 32;
  b.kv_per_split = 48; /* parts must end on step boundaries */
  assert_int_equal(attngen__reference_fwd(&b), ATTNGEN_STATUS_INVALID_ARGUMENT);
  b.kv_per_split = -32;
  assert_int_equal(attngen__reference_fwd(&b), ATTNGEN_STATUS_INVALID_ARGUMENT);
  b.kv_per_split = 64;
  assert_int_equal(attngen__reference_fwd(&b), ATTNGEN_STATUS_OK);
  /* heads_kv: 0 or a divisor of heads */
  b = a;
  b.shape.heads = 4;
  b.shape.heads_kv = -1;
  assert_int_equal(attngen__reference_fwd(&b), ATTNGEN_STATUS_BAD_SHAPE);
  b.shape.heads_kv = 3;
  assert_int_equal(attngen__reference_fwd(&b), ATTNGEN_STATUS_BAD_SHAPE);
  b.shape.heads_kv = 8;
  assert_int_equal(attngen__reference_fwd(&b), ATTNGEN_STATUS_BAD_SHAPE);
  attngen__exact_args x = {a.q, a.k, a.v, attngen__view_f64(NULL, ATTNGEN_LAYOUT_BSHD, 1, 1), 1,
                           4, 1, 1, DEFAULT_SCALE, NULL, 1, NULL, 0, 3};
  assert_int_equal(attngen__exact_fwd(&x), ATTNGEN_STATUS_BAD_SHAPE);
  assert_int_equal(attngen__reference_fwd(&a), ATTNGEN_STATUS_OK);
  assert_int_equal(attngen__exact_fwd(NULL), ATTNGEN_STATUS_NULL_POINTER);
}

/* ---- tile skipping (docs/NUMERICS.md "Tile skipping") ---------------------------------- */

/* A list of the grid g with each bit set with probability pct / 100 (seeded). */
static uint32_t *random_list(const attngen__skip_grid *g, int b, int h, int pct, uint64_t seed) {
  const size_t words = (size_t)b * h * g->nqt * g->nw;
  uint32_t *w = xcalloc(words, sizeof(uint32_t));
  attngen__rng r;
  attngen__rng_seed(&r, seed);
  for (size_t i = 0; i < words; ++i)
    for (int bit = 0; bit < 32; ++bit)
      if ((int)(attngen__rng_next(&r) % 100) < pct) w[i] |= 1u << bit;
  return w;
}

/* With nothing skipped (no read list, or an all-zero one; no must-skip) a skipping call is
 * bitwise the dense call (output and LSE), whatever the must-do mask and the threshold, on
 * both layouts, with steps of 16 and 32, a tail split, key lengths, the causal mask,
 * grouped-query heads and NaN/Inf inputs; and it counts every visited tile, skips none. */
static void test_reference_skip_nothing_is_dense(void **state) {
  (void)state;
  static const struct {
    int layout, step, split, causal, lens, heads_kv, special, bm, bn;
  } cases[] = {{0, 16, 0, 0, 0, 0, 0, 16, 32}, {1, 32, 64, 0, 1, 0, 1, 24, 32},
               {0, 16, 0, 1, 1, 1, 0, 16, 48}, {1, 64, 0, 0, 0, 1, 1, 40, 64}};
  const int B = 2, H = 2, Sq = 45, Skv = 150;
  const int32_t lens[2] = {150, 70};
  for (size_t ci = 0; ci < sizeof cases / sizeof cases[0]; ++ci) {
    const attngen_layout layout = (attngen_layout)cases[ci].layout;
    const attngen_rounding mode = (attngen_rounding)(ci % 3);
    attngen__inputs in;
    assert_int_equal(attngen__inputs_make_gqa(&in, ATTNGEN__INPUT_UNIFORM, 90 + ci, layout, B, H,
                                              cases[ci].heads_kv, Sq, Skv, DEFAULT_SCALE),
                     ATTNGEN_STATUS_OK);
    if (cases[ci].special) attngen__plant_special(&in);
    const size_t nq = elems(B, H, Sq);
    uint16_t *out = xcalloc(nq, 2), *want = xcalloc(nq, 2);
    float lse[2 * 2 * 45], lse_want[2 * 2 * 45];
    attngen__ref_args a = {attngen__inputs_q(&in), attngen__inputs_k(&in), attngen__inputs_v(&in),
                           attngen__view_out(want, layout, H, Sq),
                           {B, H, Sq, Skv, layout, mode}, DEFAULT_SCALE, lse_want, 0, 0, 0, 0,
                           NULL};
    a.shape.heads_kv = cases[ci].heads_kv;
    a.kv_step = cases[ci].step;
    a.kv_per_split = cases[ci].split;
    a.causal = cases[ci].causal;
    a.kv_lengths = cases[ci].lens ? lens : NULL;
    assert_int_equal(attngen__reference_fwd(&a), ATTNGEN_STATUS_OK);
    const attngen__skip_grid g = attngen__skip_grid_of(Sq, Skv, cases[ci].bm, cases[ci].bn);
    uint32_t *zero = xcalloc((size_t)B * H * g.nqt * g.nw, sizeof(uint32_t));
    uint32_t *md = random_list(&g, B, H, 40, 7 + ci);
    uint32_t *w = xcalloc((size_t)B * H * g.nqt * g.nw, sizeof(uint32_t));
    for (int variant = 0; variant < 2; ++variant) {
      attngen__ref_args s = a;
      s.out = attngen__view_out(out, layout, H, Sq);
      s.lse = lse;
      s.skip_block_m = cases[ci].bm;
      s.skip_block_n = cases[ci].bn;
      s.skip_read = variant ? zero : NULL;
      s.skip_must_skip = variant ? zero : NULL;
      s.skip_must_do = variant ? md : NULL;
      s.skip_write = w;
      s.skip_threshold_log2 = variant ? -6.0f : -INFINITY;
      uint32_t count[2] = {5, 7};
      s.skip_count = count;
      memset(out, 0xFF, nq * 2);
      memset(w, 0xAB, (size_t)B * H * g.nqt * g.nw * sizeof(uint32_t));
      assert_int_equal(attngen__reference_fwd(&s), ATTNGEN_STATUS_OK);
      assert_memory_equal(out, want, nq * 2);
      assert_memory_equal(lse, lse_want, sizeof lse);
      /* visited tiles: per (b, qt), the tiles with a key some row sees */
      uint32_t visited = 0;
      for (int b = 0; b < B; ++b)
        for (int qt = 0; qt < g.nqt; ++qt) {
          const int n = cases[ci].lens ? lens[b] : Skv;
          const int last = (qt + 1) * cases[ci].bm < Sq ? (qt + 1) * cases[ci].bm - 1 : Sq - 1;
          const int seen = attngen__causal_keys(cases[ci].causal, last, n, Sq);
          visited += (uint32_t)(H * ((seen + cases[ci].bn - 1) / cases[ci].bn));
        }
      assert_int_equal(count[0], 5);
      assert_int_equal(count[1], 7 + visited);
      /* with T = -inf nothing is marked: W is all zero (every word written) */
      if (!variant)
        for (size_t i = 0; i < (size_t)B * H * g.nqt * g.nw; ++i) assert_int_equal(w[i], 0);
    }
    free(zero);
    free(md);
    free(w);
    free(out);
    free(want);
    attngen__inputs_free(&in);
  }
}

/* One row over keys [k0, k1) in steps from k0, passing over the tiles of bn keys whose bit is
 * set in skip (bit kt): (m, l, O) of the part, and per tile kt the row's max t over its keys
 * (tile_max, -inf when none is computed) and the running max after it (tile_m). */
static void transcribe_part_skip(const uint16_t *q, const uint16_t *k, const uint16_t *v, int k0,
                                 int k1, int step, int bn, uint64_t skip, float scale_log2,
                                 attngen_rounding mode, float *m, float *l, float *acc,
                                 float *tile_max, float *tile_m) {
  *m = -INFINITY;
  *l = 0.0f;
  for (int d = 0; d < D; ++d) acc[d] = 0.0f;
  for (int kv0 = k0; kv0 < k1; kv0 += step) {
    const int kt = kv0 / bn;
    if ((skip >> kt) & 1u) continue;
    const int n = k1 - kv0 < step ? k1 - kv0 : step;
    float t[256], mt = *m;
    for (int j = 0; j < n; ++j) {
      float s = 0.0f;
      for (int d = 0; d < D; ++d)
        s += attngen_bf16_to_float(q[d]) * attngen_bf16_to_float(k[(size_t)(kv0 + j) * D + d]);
      t[j] = s * scale_log2;
      mt = fmaxf(mt, t[j]);
      tile_max[kt] = fmaxf(tile_max[kt], t[j]);
    }
    if (mt > *m) {
      const float alpha = exp2f(*m - mt);
      *l *= alpha;
      for (int d = 0; d < D; ++d) acc[d] *= alpha;
      *m = mt;
    }
    tile_m[kt] = *m;
    for (int j = 0; j < n; ++j) {
      const float p = exp2f(t[j] - *m);
      *l += p;
      const float pb = attngen_bf16_to_float(attngen_bf16_round(p, mode));
      const uint16_t *vj = v + (size_t)(kv0 + j) * D;
      for (int d = 0; d < D; ++d) acc[d] += pb * attngen_bf16_to_float(vj[d]);
    }
  }
}

/* transcribe_row_tiled with skipped tiles: parts of kv_per_split keys (0 = none) merged as
 * NAME_merge does; tile_max / tile_m per tile as transcribe_part_skip (NKT entries). */
static void transcribe_row_skip(const uint16_t *q, const uint16_t *k, const uint16_t *v, int skv,
                                int step, int kv_per_split, int bn, uint64_t skip,
                                float scale_log2, attngen_rounding mode, uint16_t *out,
                                float *lse, float *tile_max, float *tile_m) {
  enum { MAX_PARTS = 16 };
  const int span = kv_per_split > 0 ? kv_per_split : (skv > 0 ? skv : 1);
  const int parts = (skv + span - 1) / span;
  assert_true(parts <= MAX_PARTS);
  float pm[MAX_PARTS], pl[MAX_PARTS], po[MAX_PARTS][D];
  for (int p = 0; p < parts; ++p) {
    const int k1 = (p + 1) * span < skv ? (p + 1) * span : skv;
    transcribe_part_skip(q, k, v, p * span, k1, step, bn, skip, scale_log2, mode, &pm[p], &pl[p],
                         po[p], tile_max, tile_m);
  }
  float m = -INFINITY, l = 0.0f, acc[D];
  if (parts == 1) {
    m = pm[0];
    l = pl[0];
    memcpy(acc, po[0], sizeof acc);
  } else {
    for (int p = 0; p < parts; ++p) m = fmaxf(m, pm[p]);
    for (int d = 0; d < D; ++d) acc[d] = 0.0f;
    for (int p = 0; p < parts; ++p) {
      const float w = pm[p] == -INFINITY ? 0.0f : exp2f(pm[p] - m);
      l += pl[p] * w;
      for (int d = 0; d < D; ++d) acc[d] += po[p][d] * w;
    }
  }
  const float inv = l == 0.0f ? 0.0f : 1.0f / l;
  for (int d = 0; d < D; ++d) out[d] = attngen_bf16_round(acc[d] * inv, mode);
  *lse = skv == 0 || m == -INFINITY ? -INFINITY : m * 0.693147182f + logf(l);
}

/* Skipping against the transcription, bitwise: random read, must-skip and must-do lists; the
 * output and LSE of every row are those of the row computed without its q-tile's skipped
 * tiles ((R | MS) & !MD over the visited tiles), the write list is derived from the
 * transcription's per-row tile maxima (skipped tiles 1, must-do tiles 0, a computed tile 1
 * iff every row with a key in it has tile max - running max < T), the counter counts. With a
 * step below the tile, a tail split (parts restart the running max), key lengths (tiles past
 * an entry's keys are not visited) and the causal mask. */
static void test_reference_skip_matches_transcription(void **state) {
  (void)state;
  const int B = 2, H = 2, Sq = 40, Skv = 150, BM = 16, BN = 32;
  const float scale = 0.02f, T = -3.0f;
  static const struct {
    int step, split, causal;
    int32_t lens[2];
  } cases[] = {{16, 0, 0, {150, 150}}, {32, 64, 0, {150, 70}}, {16, 0, 1, {150, 100}}};
  const attngen__skip_grid g = attngen__skip_grid_of(Sq, Skv, BM, BN);
  assert_int_equal(g.nqt, 3);
  assert_int_equal(g.nkt, 5);
  assert_int_equal(g.nw, 1);
  int marked_total = 0, unmarked_total = 0, not_visited = 0;
  for (size_t ci = 0; ci < sizeof cases / sizeof cases[0]; ++ci) {
    const attngen_rounding mode = (attngen_rounding)(ci % 3);
    attngen__inputs in;
    make(&in, ATTNGEN__INPUT_UNIFORM, 50 + ci, ATTNGEN_LAYOUT_BHSD, B, H, Sq, Skv, scale);
    attngen__rng r;
    attngen__rng_seed(&r, 60 + ci);
    fill_pow2(in.q, elems(B, H, Sq), &r);
    fill_pow2(in.k, elems(B, H, Skv), &r);
    fill_pow2(in.v, elems(B, H, Skv), &r);
    /* q and the keys of tile 0 positive: tile 0 holds every row's max (t ~ 4), the other
     * tiles' scores are small (|t| ~ 0.4), so later tiles fall below the max by more than
     * |T| where tile 0 was computed in the same part */
    for (size_t i = 0; i < elems(B, H, Sq); ++i) in.q[i] &= 0x7FFF;
    for (int bh = 0; bh < B * H; ++bh)
      for (size_t i = 0; i < (size_t)BN * D; ++i) in.k[(size_t)bh * Skv * D + i] &= 0x7FFF;
    uint32_t *rl = random_list(&g, B, H, 25, 1 + ci), *ms = random_list(&g, B, H, 15, 2 + ci);
    uint32_t *md = random_list(&g, B, H, 20, 3 + ci);
    const size_t words = (size_t)B * H * g.nqt * g.nw;
    uint32_t *w = xcalloc(words, sizeof(uint32_t)), *w_want = xcalloc(words, sizeof(uint32_t));
    const size_t nq = elems(B, H, Sq);
    uint16_t *out = xcalloc(nq, 2), *want = xcalloc(nq, 2);
    float lse[2 * 2 * 40], lse_want[2 * 2 * 40];
    attngen__ref_args a = {attngen__inputs_q(&in), attngen__inputs_k(&in), attngen__inputs_v(&in),
                           attngen__view_out(out, in.layout, H, Sq),
                           {B, H, Sq, Skv, in.layout, mode}, scale, lse, 0, 0, 0, 0, NULL};
    a.kv_step = cases[ci].step;
    a.kv_per_split = cases[ci].split;
    a.causal = cases[ci].causal;
    a.kv_lengths = cases[ci].lens;
    a.skip_block_m = BM;
    a.skip_block_n = BN;
    a.skip_read = rl;
    a.skip_must_skip = ms;
    a.skip_must_do = md;
    a.skip_write = w;
    a.skip_threshold_log2 = T;
    uint32_t count[2] = {0, 0};
    a.skip_count = count;
    memset(w, 0xAB, words * sizeof(uint32_t));
    assert_int_equal(attngen__reference_fwd(&a), ATTNGEN_STATUS_OK);
    uint32_t skipped = 0, visited = 0;
    for (int b = 0; b < B; ++b)
      for (int h = 0; h < H; ++h)
        for (int qt = 0; qt < g.nqt; ++qt) {
          const size_t word = ((size_t)b * H + h) * g.nqt + qt;
          const int n = cases[ci].lens[b];
          const int rows = Sq - qt * BM < BM ? Sq - qt * BM : BM;
          const int seen = attngen__causal_keys(cases[ci].causal, qt * BM + rows - 1, n, Sq);
          const int nvis = (seen + BN - 1) / BN;
          not_visited += g.nkt - nvis;
          uint64_t skip = 0;
          for (int kt = 0; kt < nvis; ++kt)
            if ((((rl[word] | ms[word]) & ~md[word]) >> kt) & 1u) skip |= 1u << kt;
          float tmax[BM][5], tm[BM][5];
          for (int i = 0; i < rows; ++i) {
            const int s = qt * BM + i;
            for (int kt = 0; kt < 5; ++kt) tmax[i][kt] = tm[i][kt] = -INFINITY;
            const size_t row = ((size_t)b * H + h) * Sq + s;
            transcribe_row_skip(in.q + row * D, in.k + ((size_t)b * H + h) * Skv * D,
                                in.v + ((size_t)b * H + h) * Skv * D,
                                attngen__causal_keys(cases[ci].causal, s, n, Sq),
                                cases[ci].step, cases[ci].split, BN, skip,
                                attngen__scale_log2(scale), mode, want + row * D,
                                &lse_want[row], tmax[i], tm[i]);
          }
          uint32_t wv = 0;
          for (int kt = 0; kt < nvis; ++kt) {
            visited++;
            if ((skip >> kt) & 1u) {
              skipped++;
              wv |= 1u << kt;
              continue;
            }
            if ((md[word] >> kt) & 1u) continue;
            int mark = 1;
            for (int i = 0; i < rows; ++i)
              if (tmax[i][kt] != -INFINITY && !(tmax[i][kt] - tm[i][kt] < T)) mark = 0;
            if (mark) wv |= 1u << kt;
            marked_total += mark;
            unmarked_total += !mark;
          }
          w_want[word] = wv;
        }
    assert_memory_equal(out, want, nq * 2);
    assert_memory_equal(lse, lse_want, sizeof lse);
    assert_memory_equal(w, w_want, words * sizeof(uint32_t));
    assert_int_equal(count[0], skipped);
    assert_int_equal(count[1], visited);
    assert_true(skipped > 0);
    free(rl);
    free(ms);
    free(md);
    free(w);
    free(w_want);
    free(out);
    free(want);
    attngen__inputs_free(&in);
  }
  /* the verdicts went both ways, and some tiles were past a q-tile's keys */
  assert_true(marked_total > 0);
  assert_true(unmarked_total > 0);
  assert_true(not_visited > 0);
}

/* Hand-computed: one q-tile of 2 rows, 4 tiles of one key, scale_log2 = 1 (t = s), T = -4.
 * Scores (row 0 | row 1) per key: (0 | -8), (8 | 2), (1 | -4), (6 | 3). In order: tile 0
 * row 0: 0 - 0 (not marked); tile 1: 8 - 8 (no); tile 2: 1 - 8 = -7 and -4 - 2 = -6 (marked);
 * tile 3: 6 - 8 = -2 (no): W = 0b0100. Reading R = tile 1 drops the max key: W = 0b0010
 * (tile 2 is now 1 - 1 = 0 for row 0), and key 1 gets no weight. A split in parts of 2 tiles
 * restarts the running max: tile 2 is 1 - 1 (no) and W = 0. Must-do on tile 2: W = 0;
 * must-skip on tile 3: W = 0b1100; must-skip and must-do on tile 3: computed, W = 0b0100. */
static void test_reference_skip_hand_case(void **state) {
  (void)state;
  const int Sq = 2, Skv = 4;
  uint16_t *q = xcalloc((size_t)Sq * D, 2), *k = xcalloc((size_t)Skv * D, 2);
  uint16_t *v = xcalloc((size_t)Skv * D, 2), *out = xcalloc((size_t)Sq * D, 2);
  static const float ka[4] = {0, 8, 1, 6}, kb[4] = {-8, 2, -4, 3};
  q[0] = attngen_bf16_round(1.0f, ATTNGEN_ROUND_RTNE);     /* row 0 reads k[.][0] */
  q[D + 1] = attngen_bf16_round(1.0f, ATTNGEN_ROUND_RTNE); /* row 1 reads k[.][1] */
  for (int j = 0; j < Skv; ++j) {
    k[(size_t)j * D] = attngen_bf16_round(ka[j], ATTNGEN_ROUND_RTNE);
    k[(size_t)j * D + 1] = attngen_bf16_round(kb[j], ATTNGEN_ROUND_RTNE);
    v[(size_t)j * D + 2 + j] = attngen_bf16_round(1.0f, ATTNGEN_ROUND_RTNE); /* v_j = e_{2+j} */
  }
  const float ln2 = 0.693147182f;
  assert_true(attngen__scale_log2(ln2) == 1.0f);
  static const struct {
    uint32_t r, ms, md;
    int split;
    uint32_t w, skipped;
  } cases[] = {{0, 0, 0, 0, 0x4, 0}, {0x2, 0, 0, 0, 0x2, 1}, {0, 0, 0, 2, 0x0, 0},
               {0, 0, 0x4, 0, 0x0, 0}, {0, 0x8, 0, 0, 0xC, 1}, {0, 0x8, 0x8, 0, 0x4, 0}};
  for (size_t ci = 0; ci < sizeof cases / sizeof cases[0]; ++ci) {
    attngen__ref_args a = {attngen__view_in(q, ATTNGEN_LAYOUT_BHSD, 1, Sq),
                           attngen__view_in(k, ATTNGEN_LAYOUT_BHSD, 1, Skv),
                           attngen__view_in(v, ATTNGEN_LAYOUT_BHSD, 1, Skv),
                           attngen__view_out(out, ATTNGEN_LAYOUT_BHSD, 1, Sq),
                           {1, 1, Sq, Skv, ATTNGEN_LAYOUT_BHSD, ATTNGEN_ROUND_RTNE}, ln2, NULL,
                           1, 0, 0, 0, NULL};
    a.kv_step = 1;
    a.kv_per_split = cases[ci].split;
    a.skip_block_m = 2;
    a.skip_block_n = 1;
    a.skip_read = &cases[ci].r;
    a.skip_must_skip = &cases[ci].ms;
    a.skip_must_do = &cases[ci].md;
    uint32_t w = 0xFFFFFFFFu, count[2] = {0, 0};
    a.skip_write = &w;
    a.skip_count = count;
    a.skip_threshold_log2 = -4.0f;
    assert_int_equal(attngen__reference_fwd(&a), ATTNGEN_STATUS_OK);
    assert_int_equal(w, cases[ci].w);
    assert_int_equal(count[0], cases[ci].skipped);
    assert_int_equal(count[1], 4);
    /* row 0 (no split): weights 2^(s - max) over the keys computed */
    if (cases[ci].split == 0) {
      float l = 0.0f, mx = -INFINITY;
      const uint32_t skip = (cases[ci].r | cases[ci].ms) & ~cases[ci].md;
      for (int j = 0; j < Skv; ++j)
        if (!((skip >> j) & 1u)) mx = fmaxf(mx, ka[j]);
      for (int j = 0; j < Skv; ++j)
        if (!((skip >> j) & 1u)) l += exp2f(ka[j] - mx);
      for (int j = 0; j < Skv; ++j) {
        const float want = (skip >> j) & 1u ? 0.0f : exp2f(ka[j] - mx) * (1.0f / l);
        assert_int_equal(out[2 + j], attngen_bf16_round(want, ATTNGEN_ROUND_RTNE));
      }
    }
  }
  free(q);
  free(k);
  free(v);
  free(out);
}

/* Bad skip arguments: INVALID_ARGUMENT and nothing written. */
static void test_reference_skip_bad_args(void **state) {
  (void)state;
  attngen__inputs in;
  make(&in, ATTNGEN__INPUT_UNIFORM, 3, ATTNGEN_LAYOUT_BSHD, 1, 1, 8, 64, DEFAULT_SCALE);
  uint16_t out[8 * D];
  uint32_t w[1] = {0x5A5A5A5Au};
  static const int32_t cu[2] = {0, 8};
  for (int ci = 0; ci < 8; ++ci) {
    attngen__ref_args a = {attngen__inputs_q(&in), attngen__inputs_k(&in), attngen__inputs_v(&in),
                           attngen__view_out(out, in.layout, 1, 8),
                           {1, 1, 8, 64, in.layout, ATTNGEN_ROUND_RTNE}, DEFAULT_SCALE, NULL, 0,
                           0, 0, 0, NULL};
    a.kv_step = 16;
    a.skip_block_m = 8;
    a.skip_block_n = 32;
    a.skip_write = w;
    a.skip_threshold_log2 = -6.0f;
    switch (ci) {
    case 0: a.skip_block_n = 0; break;                 /* no kv-tile */
    case 1: a.skip_block_n = 24; break;                /* not a multiple of the step */
    case 2: a.kv_per_split = 48; break;                /* a part boundary inside a tile */
    case 3: a.skip_threshold_log2 = 0.0f; break;       /* not negative */
    case 4: a.skip_threshold_log2 = NAN; break;
    case 5: a.skip_threshold_log2 = INFINITY; break;
    case 6: a.skip_block_m = -1; break;
    case 7:                                            /* packed batches: not with skipping */
      a.cu_seqlens_q = cu;
      a.cu_seqlens_k = cu;
      a.total_q = 8;
      a.total_kv = 8;
      break;
    }
    memset(out, 0xEE, sizeof out);
    assert_int_equal(attngen__reference_fwd(&a), ATTNGEN_STATUS_INVALID_ARGUMENT);
    assert_int_equal(w[0], 0x5A5A5A5Au);
    for (size_t i = 0; i < sizeof out / 2; ++i) assert_int_equal(out[i], 0xEEEE);
  }
  attngen__inputs_free(&in);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_reference_skv_zero),
      cmocka_unit_test(test_reference_single_key),
      cmocka_unit_test(test_reference_score_fma),
      cmocka_unit_test(test_reference_score_fma_large_max),
      cmocka_unit_test(test_reference_vs_exact_ragged_sizes),
      cmocka_unit_test(test_reference_ragged_ends),
      cmocka_unit_test(test_reference_layouts_strides_threads_bitwise),
      cmocka_unit_test(test_reference_nan_in_k),
      cmocka_unit_test(test_reference_nan_in_q),
      cmocka_unit_test(test_reference_nan_in_v),
      cmocka_unit_test(test_reference_inf_in_v),
      cmocka_unit_test(test_reference_inf_q_mixed_k),
      cmocka_unit_test(test_reference_lse_vs_double),
      cmocka_unit_test(test_reference_scale),
      cmocka_unit_test(test_reference_matches_transcription),
      cmocka_unit_test(test_reference_step_and_split_match_transcription),
      cmocka_unit_test(test_reference_split_plan_row_flags),
      cmocka_unit_test(test_reference_kv_lengths),
      cmocka_unit_test(test_reference_causal),
      cmocka_unit_test(test_reference_packed),
      cmocka_unit_test(test_reference_gqa_equals_repeated_kv),
      cmocka_unit_test(test_reference_bad_args),
      cmocka_unit_test(test_reference_skip_nothing_is_dense),
      cmocka_unit_test(test_reference_skip_matches_transcription),
      cmocka_unit_test(test_reference_skip_hand_case),
      cmocka_unit_test(test_reference_skip_bad_args),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
