/* test_problem.h: one attention call's host buffers for the API tests (test_runtime,
 * test_prepare): fixed-point inputs, a poisoned output, an LSE buffer and the args that
 * point at them. Include after <cmocka.h>, "attngen.h" and "numerics.h". */
#ifndef ATTNGEN_TEST_PROBLEM_H
#define ATTNGEN_TEST_PROBLEM_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct problem {
  attngen__inputs in;
  uint16_t *out;
  float *lse;
  size_t nq; /* elements of q and of out */
  attngen_fwd_args a;
} problem;

static void problem_make(problem *p, attngen_layout layout, attngen_rounding r, int b, int h,
                         int sq, int skv, uint64_t seed) {
  memset(p, 0, sizeof *p);
  attngen_fwd_args_init(&p->a);
  assert_int_equal(attngen__inputs_make(&p->in, ATTNGEN__INPUT_REALISTIC, seed, layout, b, h, sq,
                                        skv, p->a.softmax_scale),
                   ATTNGEN_STATUS_OK);
  p->nq = (size_t)b * h * sq * 128;
  p->out = aligned_alloc(64, (p->nq * 2 + 63) / 64 * 64);
  p->lse = aligned_alloc(64, ((size_t)b * h * sq * 4 + 63) / 64 * 64);
  assert_non_null(p->out);
  assert_non_null(p->lse);
  for (size_t i = 0; i < p->nq; i++) p->out[i] = ATTNGEN__BF16_POISON;
  p->a.q = p->in.q;
  p->a.k = p->in.k;
  p->a.v = p->in.v;
  p->a.out = p->out;
  p->a.lse = p->lse;
  p->a.batch = b;
  p->a.heads = h;
  p->a.seqlen_q = sq;
  p->a.seqlen_kv = skv;
  p->a.layout = layout;
  p->a.rounding = r;
}

static void problem_free(problem *p) {
  attngen__inputs_free(&p->in);
  free(p->out);
  free(p->lse);
}

/* Every output element still holds the poison (sizes from the inputs: a test may have
 * changed the arguments). */
static int untouched(const problem *p) {
  size_t nq = (size_t)p->in.batch * p->in.heads * p->in.seqlen_q * 128;
  for (size_t i = 0; i < nq; i++)
    if (p->out[i] != ATTNGEN__BF16_POISON) return 0;
  return 1;
}

#endif /* ATTNGEN_TEST_PROBLEM_H */
