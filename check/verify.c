/* verify.c: see verify.h. */
#include "verify.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>


void attngen__verify_ref_free(attngen__verify_ref *ref) {
  if (!ref) return;
  free(ref->out);
  free(ref->lse);
  free(ref->tol);
  free(ref->exact);
  free(ref->rows);
  free(ref->kv_lengths);
  memset(ref, 0, sizeof *ref);
}

/* The call on its own context: device buffers, output poisoned with 0xFFFF, one launch. */
static attngen_status run_call(const attngen__verify_args *a, uint16_t *out, float *lse) {
  const attngen_fwd_args *c = a->call;
  const int D = c->head_dim;
  const size_t nq = (size_t)c->batch * c->heads * c->seqlen_q * D;
  const size_t nkv = (size_t)c->batch * attngen__inputs_heads_kv(a->in) * c->seqlen_kv * D;
  const size_t nl = (size_t)c->batch * c->heads * c->seqlen_q;
  attngen_context *ctx = a->ctx;
  void *q = NULL, *k = NULL, *v = NULL, *o = NULL, *l = NULL, *kl = NULL;
  const size_t nkl = a->kv_lengths ? (size_t)c->batch * sizeof(int32_t) : 0;
  attngen_status st = attngen_malloc(ctx, nq * 2, &q);
  if (!st && nkl) st = attngen_malloc(ctx, nkl, &kl);
  if (!st && nkl) st = attngen_memcpy_htod(ctx, kl, a->kv_lengths, nkl);
  if (!st && nkv) st = attngen_malloc(ctx, nkv * 2, &k);
  if (!st && nkv) st = attngen_malloc(ctx, nkv * 2, &v);
  if (!st) st = attngen_malloc(ctx, nq * 2, &o);
  if (!st) st = attngen_malloc(ctx, nl * sizeof(float), &l);
  if (!st) st = attngen_memcpy_htod(ctx, q, a->in->q, nq * 2);
  if (!st && nkv) st = attngen_memcpy_htod(ctx, k, a->in->k, nkv * 2);
  if (!st && nkv) st = attngen_memcpy_htod(ctx, v, a->in->v, nkv * 2);
  if (!st) st = attngen_memset(ctx, o, 0xFF, nq * 2);
  if (!st) {
    attngen_fwd_args run = *c;
    run.q = q;
    run.k = k;
    run.v = v;
    run.out = o;
    run.lse = l;
    run.kv_lengths = kl;
    st = attngen_fwd(ctx, &run);
  }
  if (!st) st = attngen_synchronize(ctx, c->stream);
  if (!st) st = attngen_memcpy_dtoh(ctx, out, o, nq * 2);
  if (!st) st = attngen_memcpy_dtoh(ctx, lse, l, nl * sizeof(float));
  char why[512]; /* the failure's text: the frees below clear the last error */
  snprintf(why, sizeof why, "%s", st ? attngen_last_error() : "");
  attngen_free(ctx, q);
  attngen_free(ctx, k);
  attngen_free(ctx, v);
  attngen_free(ctx, o);
  attngen_free(ctx, l);
  attngen_free(ctx, kl);
  return st && why[0] ? attngen__fail(st, "%s", why) : st;
}

/* The reference following the call's kernel, recomputed only when that changes. */
static attngen_status reference(const attngen__verify_args *a, attngen__verify_ref *ref,
                                attngen__verify_result *r) {
  const attngen_fwd_args *c = a->call;
  attngen__ref_args follow;
  memset(&follow, 0, sizeof follow);
  unsigned char *rows = NULL;
  attngen_status st =
      attngen__ref_follow_call(a->ctx, c, &follow, &rows, r->variant, sizeof r->variant);
  if (st != ATTNGEN_STATUS_OK) return st;
  const int D = c->head_dim;
  const size_t nq = (size_t)c->batch * c->heads * c->seqlen_q * D;
  const size_t nl = (size_t)c->batch * c->heads * c->seqlen_q;
  r->kv_step = follow.kv_step ? follow.kv_step : ATTNGEN__REF_KV_TILE;
  r->score_fma = follow.score_fma;
  r->kv_per_split = follow.kv_per_split;
  r->split_rows = 0;
  for (size_t i = 0; rows && i < nl; ++i) r->split_rows += rows[i] != 0;
  const int same = !c->skip && ref->valid && ref->nq == nq && ref->nl == nl &&
                   ref->rounding == (int)c->rounding &&
                   follow.kv_step == ref->kv_step && follow.score_fma == ref->score_fma &&
                   follow.kv_per_split == ref->kv_per_split &&
                   (!rows) == (!ref->rows) &&
                   (!rows || memcmp(rows, ref->rows, nl) == 0) &&
                   ref->heads_kv == c->heads_kv &&
                   (!a->kv_lengths) == (!ref->kv_lengths) && ref->causal == (c->causal != 0) &&
                   (!a->kv_lengths || (ref->kv_lengths_n == c->batch &&
                                       memcmp(a->kv_lengths, ref->kv_lengths,
                                              (size_t)c->batch * sizeof(int32_t)) == 0));
  if (same && (!a->exact || ref->has_exact)) {
    free(rows);
    return ATTNGEN_STATUS_OK;
  }
  if (!ref->out || ref->nq != nq || ref->nl != nl) {
    attngen__verify_ref_free(ref);
    ref->out = malloc((nq ? nq : 1) * sizeof(uint16_t));
    ref->tol = malloc((nq ? nq : 1) * sizeof(float));
    ref->lse = malloc((nl ? nl : 1) * sizeof(float));
    ref->nq = nq;
    ref->nl = nl;
  }
  free(ref->rows);
  ref->rows = rows;
  ref->valid = 0;
  free(ref->kv_lengths);
  ref->kv_lengths = NULL;
  ref->kv_lengths_n = 0;
  ref->causal = c->causal != 0;
  if (!ref->out || !ref->tol || !ref->lse) return ATTNGEN_STATUS_OUT_OF_MEMORY;
  if (a->kv_lengths) {
    ref->kv_lengths = malloc((size_t)c->batch * sizeof(int32_t));
    if (!ref->kv_lengths) return ATTNGEN_STATUS_OUT_OF_MEMORY;
    memcpy(ref->kv_lengths, a->kv_lengths, (size_t)c->batch * sizeof(int32_t));
    ref->kv_lengths_n = c->batch;
  }
  attngen_fwd_args host = *c; /* the call on the host inputs, into the reference's buffers */
  host.q = a->in->q;
  host.k = a->in->k;
  host.v = a->in->v;
  host.out = ref->out;
  host.lse = ref->lse;
  host.kv_lengths = a->kv_lengths;
  attngen__ref_args ra = attngen__ref_args_of_call(&host);
  ra.kv_step = follow.kv_step;
  ra.score_fma = follow.score_fma;
  ra.kv_per_split = follow.kv_per_split;
  ra.split_rows = rows;
  ra.tol = ref->tol;
  if (c->skip) { /* the tiles the call skipped, on its variant's grid */
    ra.skip_block_m = follow.skip_block_m;
    ra.skip_block_n = follow.skip_block_n;
    ra.skip_read = a->skip_read;
    ra.skip_must_skip = a->skip_must_skip;
    ra.skip_must_do = a->skip_must_do;
    ra.skip_threshold_log2 = a->skip_threshold_log2;
    ra.skip_write = a->skip_write_ref;
    ra.skip_count = a->skip_count_ref;
    if (a->skip_count_ref) a->skip_count_ref[0] = a->skip_count_ref[1] = 0;
  }
  if ((st = attngen__reference_fwd(&ra)) != ATTNGEN_STATUS_OK) return st;
  ref->has_exact = 0;
  if (a->exact) {
    if (!ref->exact) ref->exact = malloc((nq ? nq : 1) * sizeof(double));
    if (!ref->exact) return ATTNGEN_STATUS_OUT_OF_MEMORY;
    attngen__exact_args e = {ra.q, ra.k, ra.v,
                             attngen__view_f64_d(ref->exact, c->layout, c->heads, c->seqlen_q, D),
                             c->batch, c->heads, c->seqlen_q, c->seqlen_kv, c->softmax_scale,
                             NULL, 0, a->kv_lengths, c->causal != 0, c->heads_kv, D};
    if ((st = attngen__exact_fwd(&e)) != ATTNGEN_STATUS_OK) return st;
    ref->has_exact = 1;
  }
  ref->valid = !c->skip; /* a skipping call's reference is its lists' alone */
  ref->heads_kv = c->heads_kv;
  ref->rounding = (int)c->rounding;
  ref->layout = (int)c->layout;
  ref->kv_step = follow.kv_step;
  ref->score_fma = follow.score_fma;
  ref->kv_per_split = follow.kv_per_split;
  return ATTNGEN_STATUS_OK;
}

attngen_status attngen__verify_run(const attngen__verify_args *a, attngen__verify_result *r) {
  memset(r, 0, sizeof *r);
  if (!a || !a->ctx || !a->call || !a->in) return ATTNGEN_STATUS_NULL_POINTER;
  const attngen_fwd_args *c = a->call;
  /* the inputs' k and v must have the call's KV heads (attngen__inputs_make_gqa) */
  if (attngen__inputs_heads_kv(a->in) != (c->heads_kv > 0 ? c->heads_kv : c->heads))
    return ATTNGEN_STATUS_BAD_SHAPE;
  /* and its head dimension (attngen__inputs_make_hd) */
  if (attngen__inputs_head_dim(a->in) != c->head_dim) return ATTNGEN_STATUS_UNSUPPORTED_HEAD_DIM;
  const int D = c->head_dim;
  const size_t nq = (size_t)c->batch * c->heads * c->seqlen_q * D;
  const size_t nl = (size_t)c->batch * c->heads * c->seqlen_q;
  attngen__verify_ref local;
  memset(&local, 0, sizeof local);
  attngen__verify_ref *ref = a->ref ? a->ref : &local;
  uint16_t *own_out = NULL;
  float *own_lse = NULL;
  const uint16_t *out = a->out;
  const float *lse = a->lse;
  attngen_status st = ATTNGEN_STATUS_OK;
  if (!out) {
    own_out = malloc((nq ? nq : 1) * sizeof(uint16_t));
    own_lse = malloc((nl ? nl : 1) * sizeof(float));
    st = own_out && own_lse ? run_call(a, own_out, own_lse) : ATTNGEN_STATUS_OUT_OF_MEMORY;
    out = own_out;
    lse = own_lse;
  }
  if (!st) st = reference(a, ref, r);
  if (!st) {
    attngen__compare_args ca;
    memset(&ca, 0, sizeof ca);
    ca.out = attngen__view_in_d(out, c->layout, c->heads, c->seqlen_q, D);
    const attngen_layout rl = (attngen_layout)ref->layout; /* may differ from the call's */
    ca.ref = attngen__view_in_d(ref->out, rl, c->heads, c->seqlen_q, D);
    if (a->exact) ca.exact = attngen__view_f64_d(ref->exact, rl, c->heads, c->seqlen_q, D);
    ca.batch = c->batch;
    ca.heads = c->heads;
    ca.seqlen_q = c->seqlen_q;
    ca.max_abs_v =
        attngen__max_abs_finite(attngen__inputs_v(a->in), c->batch,
                                attngen__inputs_heads_kv(a->in), c->seqlen_kv);
    ca.tol = a->strict ? NULL : ref->tol;
    st = attngen__compare(&ca, &r->out);
  }
  if (!st) {
    if (lse)
      attngen__compare_lse(lse, ref->lse, (int64_t)nl, ATTNGEN__LSE_ABS_TOL,
                           ATTNGEN__LSE_REL_TOL, &r->lse);
    r->pass = r->out.pass && (!lse || r->lse.pass);
  }
  free(own_out);
  free(own_lse);
  if (ref == &local) attngen__verify_ref_free(&local);
  return st;
}
