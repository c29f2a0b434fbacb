/* compare.c: the comparator of docs/NUMERICS.md (output vs CPU reference vs exact fp64), its
 * one-block report, LSE comparison, and poisoned output buffers with guard bands. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "verify.h"


static double bf16_double(uint16_t b) { return (double)attngen_bf16_to_float(b); }

static void set_index(attngen__elem_index *ix, int b, int h, int s, int d) {
  ix->b = b;
  ix->h = h;
  ix->s = s;
  ix->d = d;
}

/* The size of one bf16 ULP at a finite value (the gap to the next value away from 0). */
static double ulp_size(uint16_t b) {
  const uint16_t mag = b & 0x7FFF;
  if (mag >= 0x7F7F) return ldexp(1.0, 120); /* largest finite: no next value */
  return bf16_double((uint16_t)(mag + 1)) - bf16_double(mag);
}

attngen_status attngen__compare(const attngen__compare_args *a, attngen__compare_report *r) {
  if (!a || !r) return ATTNGEN_STATUS_NULL_POINTER;
  if (a->batch < 0 || a->heads < 0 || a->seqlen_q < 0) return ATTNGEN_STATUS_BAD_SHAPE;
  memset(r, 0, sizeof *r);
  r->first_bad = -1;
  r->rel_l2 = -1.0;
  r->near_zero_threshold = ldexp(a->max_abs_v, -10);
  const int D = attngen__view_d(a->out);
  const int64_t total = (int64_t)a->batch * a->heads * a->seqlen_q * D;
  if (total > 0 && (!a->out.data || !a->ref.data)) return ATTNGEN_STATUS_NULL_POINTER;
  double err2 = 0.0, ref2 = 0.0;
  int64_t l2_terms = 0;
  int64_t flat = 0;
  for (int b = 0; b < a->batch; ++b) {
    for (int h = 0; h < a->heads; ++h) {
      for (int s = 0; s < a->seqlen_q; ++s) {
        const uint16_t *po = a->out.data + attngen__view_offset(a->out.sb, a->out.sh,
                                                                a->out.ss, b, h, s);
        const uint16_t *pr = a->ref.data + attngen__view_offset(a->ref.sb, a->ref.sh,
                                                                a->ref.ss, b, h, s);
        const double *pe = a->exact.data ? a->exact.data + attngen__view_offset(
                                                               a->exact.sb, a->exact.sh,
                                                               a->exact.ss, b, h, s)
                                         : NULL;
        for (int d = 0; d < D; ++d, ++flat) {
          const uint16_t o = po[d], rf = pr[d];
          const int o_fin = !attngen__bf16_is_nan(o) && !attngen__bf16_is_inf(o);
          const int r_fin = !attngen__bf16_is_nan(rf) && !attngen__bf16_is_inf(rf);
          int bad = 0;
          r->out_nan += attngen__bf16_is_nan(o) && o != ATTNGEN__BF16_POISON;
          r->out_inf += attngen__bf16_is_inf(o);
          r->ref_nan += attngen__bf16_is_nan(rf);
          r->ref_inf += attngen__bf16_is_inf(rf);
          /* fp64 exact attention is independent of the reference's fp32 arithmetic: an
           * output that is finite where it is not (or the reverse) fails, whatever the
           * reference says (a scale that overflows t = s * c makes both NaN) */
          const int e_fin = pe && isfinite(pe[d]);
          if (pe && o != ATTNGEN__BF16_POISON && o_fin != e_fin) {
            ++r->exact_mismatch;
            bad = 1;
          }
          if (o == ATTNGEN__BF16_POISON) {
            ++r->unwritten;
            bad = 1;
          } else if (!o_fin || !r_fin) {
            if (attngen__bf16_is_nan(o) && attngen__bf16_is_nan(rf) && o != ATTNGEN__BF16_NAN) {
              ++r->bad_nan_encoding; /* right place, wrong pattern */
              bad = 1;
            } else if (o != rf) {
              ++r->nonfinite_mismatch;
              bad = 1;
            }
          } else {
            int32_t ulp = attngen__bf16_ulp_diff(o, rf);
            if (ulp < 0) ulp = -ulp;
            if (ulp == 0) {
              ++r->ulp0;
            } else if (ulp == 1) {
              ++r->ulp1;
            } else if (fabs(bf16_double(rf)) < r->near_zero_threshold &&
                       fabs(bf16_double(o) - bf16_double(rf)) <= r->near_zero_threshold) {
              ++r->near_zero;
            } else if (a->tol && fabs(bf16_double(o) - bf16_double(rf)) <=
                                     (double)a->tol[flat] + ulp_size(rf)) {
              ++r->p_flip;
            } else {
              ++r->ulp_over;
              bad = 1;
            }
            if (ulp > r->worst_ulp) {
              r->worst_ulp = ulp;
              set_index(&r->worst, b, h, s, d);
              r->worst_out = o;
              r->worst_ref = rf;
            }
            if (e_fin) {
              const double e = bf16_double(o) - pe[d];
              err2 += e * e;
              ref2 += pe[d] * pe[d];
              ++l2_terms;
            }
          }
          if (bad && r->first_bad < 0) {
            r->first_bad = flat;
            set_index(&r->first_bad_at, b, h, s, d);
            r->first_bad_out = o;
            r->first_bad_ref = rf;
          }
        }
      }
    }
  }
  r->elements = total;
  if (a->exact.data) {
    r->rel_l2 = l2_terms == 0 ? 0.0 : ref2 > 0.0 ? sqrt(err2 / ref2) : sqrt(err2);
  }
  r->pass = r->ulp_over == 0 && r->nonfinite_mismatch == 0 && r->exact_mismatch == 0 &&
            r->bad_nan_encoding == 0 && r->unwritten == 0 &&
            (r->rel_l2 < 0.0 || r->rel_l2 <= ATTNGEN__REL_L2_LIMIT);
  return ATTNGEN_STATUS_OK;
}

static double pct(int64_t n, int64_t total) {
  return total > 0 ? 100.0 * (double)n / (double)total : 0.0;
}

void attngen__compare_print(FILE *f, const char *title, const attngen__compare_report *r) {
  fprintf(f, "%s: %lld elements\n", title ? title : "check", (long long)r->elements);
  fprintf(f, "  ulp vs reference: 0: %lld (%.2f%%)  1: %lld (%.2f%%)  >1: %lld  "
             "near-zero >1: %lld (|ref| < %.3g)  P-rounding-boundary >1: %lld\n",
          (long long)r->ulp0, pct(r->ulp0, r->elements), (long long)r->ulp1,
          pct(r->ulp1, r->elements), (long long)r->ulp_over, (long long)r->near_zero,
          r->near_zero_threshold, (long long)r->p_flip);
  if (r->worst_ulp > 0) {
    fprintf(f, "  worst: %d ulp at [b=%d h=%d s=%d d=%d] out 0x%04x (%.6g) ref 0x%04x (%.6g)\n",
            r->worst_ulp, r->worst.b, r->worst.h, r->worst.s, r->worst.d, r->worst_out,
            (double)attngen_bf16_to_float(r->worst_out), r->worst_ref,
            (double)attngen_bf16_to_float(r->worst_ref));
  }
  fprintf(f, "  nan/inf: out %lld/%lld ref %lld/%lld  mismatches %lld  vs fp64 %lld  "
             "bad NaN encoding %lld  unwritten %lld\n",
          (long long)r->out_nan, (long long)r->out_inf, (long long)r->ref_nan,
          (long long)r->ref_inf, (long long)r->nonfinite_mismatch, (long long)r->exact_mismatch,
          (long long)r->bad_nan_encoding, (long long)r->unwritten);
  if (r->first_bad >= 0) {
    fprintf(f, "  first failure: element %lld [b=%d h=%d s=%d d=%d] out 0x%04x ref 0x%04x\n",
            (long long)r->first_bad, r->first_bad_at.b, r->first_bad_at.h, r->first_bad_at.s,
            r->first_bad_at.d, r->first_bad_out, r->first_bad_ref);
  }
  if (r->rel_l2 >= 0.0) {
    fprintf(f, "  rel L2 vs fp64: %.3e (limit %.0e)\n", r->rel_l2, ATTNGEN__REL_L2_LIMIT);
  }
  fprintf(f, "  result: %s\n", r->pass ? "PASS" : "FAIL");
}

double attngen__max_abs_finite(attngen__tensor_view v, int batch, int heads, int seqlen) {
  double mx = 0.0;
  if (!v.data) return mx;
  const int D = attngen__view_d(v);
  for (int b = 0; b < batch; ++b) {
    for (int h = 0; h < heads; ++h) {
      for (int s = 0; s < seqlen; ++s) {
        const uint16_t *row = v.data + attngen__view_offset(v.sb, v.sh, v.ss, b, h, s);
        for (int d = 0; d < D; ++d) {
          if (attngen__bf16_is_nan(row[d]) || attngen__bf16_is_inf(row[d])) continue;
          const double x = fabs(bf16_double(row[d]));
          if (x > mx) mx = x;
        }
      }
    }
  }
  return mx;
}

/* ---- poison and guard bands ---------------------------------------------------------- */

uint16_t attngen__guard_canary(int64_t i) {
  /* a splitmix64 step of the position: no two neighbours alike, never the poison */
  uint64_t z = (uint64_t)i * 0x9E3779B97F4A7C15ull + 0x6A09E667F3BCC909ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  const uint16_t c = (uint16_t)(z ^ (z >> 31));
  return c == ATTNGEN__BF16_POISON ? 0xA5A5 : c;
}

attngen_status attngen__guarded_alloc(attngen__guarded *g, int64_t n, int64_t guard) {
  if (!g) return ATTNGEN_STATUS_NULL_POINTER;
  memset(g, 0, sizeof *g);
  if (n < 0 || guard < 0) return ATTNGEN_STATUS_INVALID_ARGUMENT;
  /* round the band up to 8 elements so data keeps the 16-byte alignment of base */
  guard = (guard + 7) / 8 * 8;
  const size_t bytes = (size_t)(n + 2 * guard) * sizeof(uint16_t);
  g->base = aligned_alloc(64, (bytes + 63) / 64 * 64);
  if (!g->base) return ATTNGEN_STATUS_OUT_OF_MEMORY;
  g->data = g->base + guard;
  g->n = n;
  g->guard = guard;
  attngen__guarded_poison(g);
  return ATTNGEN_STATUS_OK;
}

void attngen__guarded_poison(attngen__guarded *g) {
  if (!g || !g->base) return;
  for (int64_t i = 0; i < g->guard; ++i) {
    g->base[i] = attngen__guard_canary(i);
    g->data[g->n + i] = attngen__guard_canary(g->guard + i);
  }
  for (int64_t i = 0; i < g->n; ++i) g->data[i] = ATTNGEN__BF16_POISON;
}

int64_t attngen__guarded_check(const attngen__guarded *g, int64_t *first) {
  if (!g || !g->base) return 0;
  int64_t bad = 0;
  for (int64_t i = 0; i < g->guard; ++i) {
    if (g->base[i] != attngen__guard_canary(i)) {
      if (!bad && first) *first = i - g->guard;
      ++bad;
    }
  }
  for (int64_t i = 0; i < g->guard; ++i) {
    if (g->data[g->n + i] != attngen__guard_canary(g->guard + i)) {
      if (!bad && first) *first = g->n + i;
      ++bad;
    }
  }
  return bad;
}

void attngen__guarded_free(attngen__guarded *g) {
  if (!g) return;
  free(g->base);
  memset(g, 0, sizeof *g);
}

/* ---- LSE ------------------------------------------------------------------------------ */

void attngen__compare_lse(const float *lse, const float *ref, int64_t n, double abs_tol,
                          double rel_tol, attngen__lse_report *r) {
  memset(r, 0, sizeof *r);
  r->worst = -1;
  r->count = n;
  for (int64_t i = 0; i < n; ++i) {
    const double x = lse[i], y = ref[i];
    int bad;
    if (isnan(x) || isnan(y)) {
      bad = !(isnan(x) && isnan(y));
    } else if (isinf(x) || isinf(y)) {
      bad = x != y;
    } else {
      const double e = fabs(x - y);
      bad = e > abs_tol + rel_tol * fabs(y);
      if (e > r->max_abs_err) {
        r->max_abs_err = e;
        if (r->mismatches == 0) {
          r->worst = i;
          r->worst_lse = lse[i];
          r->worst_ref = ref[i];
        }
      }
    }
    if (bad) {
      if (r->mismatches == 0) {
        r->worst = i;
        r->worst_lse = lse[i];
        r->worst_ref = ref[i];
      }
      ++r->mismatches;
    }
  }
  r->pass = r->mismatches == 0;
}

void attngen__compare_lse_print(FILE *f, const attngen__lse_report *r) {
  fprintf(f, "  lse: %lld values, max |err| %.3g, mismatches %lld", (long long)r->count,
          r->max_abs_err, (long long)r->mismatches);
  if (r->worst >= 0) {
    fprintf(f, " (%s at %lld: %.9g vs ref %.9g)", r->mismatches ? "first" : "worst",
            (long long)r->worst, (double)r->worst_lse, (double)r->worst_ref);
  }
  fprintf(f, "  %s\n", r->pass ? "PASS" : "FAIL");
}
