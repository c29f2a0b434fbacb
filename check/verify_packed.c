/* verify_packed.c: a packed variable-length batch checked against the per-sequence dense
 * calls (verify.h, attngen__verify_packed): `attngen check --seqlens`, the tests. */
#include "verify.h"

#include <stdlib.h>
#include <string.h>

/* Device copies of host bytes (NULL for 0 bytes). */
static attngen_status upload(attngen_context *ctx, const void *src, size_t bytes, void **dst) {
  *dst = NULL;
  if (!bytes) return ATTNGEN_STATUS_OK;
  attngen_status st = attngen_malloc(ctx, bytes, dst);
  if (!st) st = attngen_memcpy_htod(ctx, *dst, src, bytes);
  return st;
}

/* Runs `call` (pointers host-side in *host) on ctx: uploads q, k, v, kv_lengths, cu_seqlens,
 * the output buffer (out_bytes from out_host, with its guard bands) and the LSE (lse_bytes,
 * filled with 0xFF), launches, downloads out and LSE. out_off: elements from out_host to the
 * first output element. */
static attngen_status run_on(attngen_context *ctx, const attngen_fwd_args *call,
                             size_t q_bytes, size_t kv_bytes, uint16_t *out_host,
                             size_t out_bytes, size_t out_off, float *lse, size_t lse_bytes) {
  void *q = NULL, *k = NULL, *v = NULL, *o = NULL, *l = NULL, *kl = NULL, *cq = NULL, *ck = NULL;
  const size_t cu_bytes = ((size_t)call->batch + 1) * sizeof(int32_t);
  attngen_status st = upload(ctx, call->q, q_bytes, &q);
  if (!st) st = upload(ctx, call->k, kv_bytes, &k);
  if (!st) st = upload(ctx, call->v, kv_bytes, &v);
  if (!st) st = upload(ctx, out_host, out_bytes, &o);
  if (!st && lse_bytes) st = attngen_malloc(ctx, lse_bytes, &l);
  if (!st && lse_bytes) st = attngen_memset(ctx, l, 0xFF, lse_bytes);
  if (!st && call->kv_lengths)
    st = upload(ctx, call->kv_lengths, (size_t)call->batch * sizeof(int32_t), &kl);
  if (!st && call->cu_seqlens_q) st = upload(ctx, call->cu_seqlens_q, cu_bytes, &cq);
  if (!st && call->cu_seqlens_k) st = upload(ctx, call->cu_seqlens_k, cu_bytes, &ck);
  if (!st) {
    attngen_fwd_args run = *call;
    run.q = q;
    run.k = k;
    run.v = v;
    run.out = (uint16_t *)o + out_off;
    run.lse = l;
    run.kv_lengths = kl;
    run.cu_seqlens_q = cq;
    run.cu_seqlens_k = ck;
    st = attngen_fwd(ctx, &run);
  }
  if (!st) st = attngen_synchronize(ctx, call->stream);
  if (!st) st = attngen_memcpy_dtoh(ctx, out_host, o, out_bytes);
  if (!st && lse_bytes) st = attngen_memcpy_dtoh(ctx, lse, l, lse_bytes);
  void *all[] = {q, k, v, o, l, kl, cq, ck};
  for (size_t i = 0; i < sizeof all / sizeof all[0]; ++i) attngen_free(ctx, all[i]);
  return st;
}

/* The packed call's output and LSE, run twice (*same: bitwise equal). */
static attngen_status run_packed(const attngen__packed_args *a, const attngen_fwd_args *call,
                                 const attngen__inputs *in, attngen__guarded *g, float *lse,
                                 size_t nl, attngen__packed_result *r) {
  const int hkv = attngen__inputs_heads_kv(in);
  const int D = attngen__inputs_head_dim(in);
  const size_t q_bytes = (size_t)call->total_q * call->heads * D * 2;
  const size_t kv_bytes = (size_t)call->total_kv * hkv * D * 2;
  const size_t out_bytes = (size_t)(g->n + 2 * g->guard) * sizeof(uint16_t);
  uint16_t *first = malloc(out_bytes);
  float *lse1 = malloc((nl ? nl : 1) * sizeof(float));
  attngen_status st = first && lse1 ? ATTNGEN_STATUS_OK : ATTNGEN_STATUS_OUT_OF_MEMORY;
  for (int run = 0; run < 2 && !st; ++run) {
    attngen__guarded_poison(g);
    st = run_on(a->ctx, call, q_bytes, kv_bytes, g->base, out_bytes, (size_t)g->guard,
                run ? lse : lse1, nl * sizeof(float));
    if (!st && run == 0) memcpy(first, g->base, out_bytes);
  }
  if (!st)
    r->deterministic = memcmp(first, g->base, out_bytes) == 0 &&
                       memcmp(lse1, lse, nl * sizeof(float)) == 0;
  (void)in;
  free(first);
  free(lse1);
  return st;
}

attngen_status attngen__verify_packed(const attngen__packed_args *a, attngen__packed_result *r) {
  memset(r, 0, sizeof *r);
  if (!a || !a->ctx || !a->lens_q || !a->lens_k) return ATTNGEN_STATUS_NULL_POINTER;
  if (a->nseq < 1) return ATTNGEN_STATUS_INVALID_ARGUMENT;
  const int n = a->nseq;
  const int D = a->head_dim > 0 ? a->head_dim : ATTNGEN__HEAD_DIM;
  int32_t *cu_q = calloc((size_t)n + 1, sizeof(int32_t));
  int32_t *cu_k = calloc((size_t)n + 1, sizeof(int32_t));
  if (!cu_q || !cu_k) {
    free(cu_q);
    free(cu_k);
    return ATTNGEN_STATUS_OUT_OF_MEMORY;
  }
  int max_q = 0, max_k = 0;
  attngen_status st = ATTNGEN_STATUS_OK;
  for (int b = 0; b < n; ++b) {
    if (a->lens_q[b] < 0 || a->lens_k[b] < 0 ||
        (int64_t)cu_q[b] + a->lens_q[b] > INT32_MAX || (int64_t)cu_k[b] + a->lens_k[b] > INT32_MAX)
      st = ATTNGEN_STATUS_INVALID_ARGUMENT;
    if (st) break;
    cu_q[b + 1] = cu_q[b] + a->lens_q[b];
    cu_k[b + 1] = cu_k[b] + a->lens_k[b];
    if (a->lens_q[b] > max_q) max_q = a->lens_q[b];
    if (a->lens_k[b] > max_k) max_k = a->lens_k[b];
  }
  const int total_q = st ? 0 : cu_q[n], total_k = st ? 0 : cu_k[n];
  if (!st && total_q < 1) st = ATTNGEN_STATUS_INVALID_ARGUMENT;
  attngen__inputs in;
  memset(&in, 0, sizeof in);
  const float scale = a->scale;
  if (!st)
    st = attngen__inputs_make_hd(&in, a->inputs, a->seed, ATTNGEN_LAYOUT_BSHD, 1, a->heads,
                                 a->heads_kv, total_q, total_k, D,
                                 scale != 0.0f ? scale : ATTNGEN__DEFAULT_SCALE);
  const int hkv = st ? 0 : attngen__inputs_heads_kv(&in);
  attngen_fwd_args call;
  attngen_fwd_args_init(&call);
  call.batch = n;
  call.heads = a->heads;
  call.heads_kv = a->heads_kv == a->heads ? 0 : a->heads_kv;
  call.seqlen_q = max_q;
  call.seqlen_kv = max_k;
  call.total_q = total_q;
  call.total_kv = total_k;
  call.layout = ATTNGEN_LAYOUT_BSHD;
  call.head_dim = D;
  call.rounding = a->rounding;
  call.softmax_scale = scale;
  call.causal = a->causal;
  call.variant = a->variant;
  call.q = in.q;
  call.k = in.k;
  call.v = in.v;
  call.kv_lengths = a->kv_lengths;
  call.cu_seqlens_q = cu_q;
  call.cu_seqlens_k = cu_k;
  attngen_choice choice;
  if (!st) st = attngen_explain(a->ctx, &call, &choice);
  if (!st) snprintf(r->variant, sizeof r->variant, "%s", choice.variant);
  attngen__guarded g;
  memset(&g, 0, sizeof g);
  const size_t nl = (size_t)a->heads * (size_t)total_q;
  float *lse = malloc((nl ? nl : 1) * sizeof(float));
  if (!st && !lse) st = ATTNGEN_STATUS_OUT_OF_MEMORY;
  if (!st) st = attngen__guarded_alloc(&g, (int64_t)nl * D, ATTNGEN__GUARD_ELEMS);
  if (!st) st = run_packed(a, &call, &in, &g, lse, nl, r);
  if (!st) {
    for (int64_t i = 0; i < g.n; ++i) r->unwritten += g.data[i] == ATTNGEN__BF16_POISON;
    r->guard_damage = attngen__guarded_check(&g, NULL);
  }
  /* the per-sequence dense calls, on the packed call's variant */
  const char *forced = strcmp(r->variant, "reference") == 0 ? NULL : r->variant;
  for (int b = 0; b < n && !st; ++b) {
    const int nq = a->lens_q[b], nk = a->lens_k[b];
    if (nq == 0) continue;
    attngen__inputs seq = in; /* views into the packed tensors (not freed) */
    seq.batch = 1;
    seq.seqlen_q = nq;
    seq.seqlen_kv = nk;
    seq.q = in.q + (size_t)cu_q[b] * a->heads * D;
    seq.k = nk ? in.k + (size_t)cu_k[b] * hkv * D : NULL;
    seq.v = nk ? in.v + (size_t)cu_k[b] * hkv * D : NULL;
    attngen_fwd_args dense = call;
    dense.batch = 1;
    dense.seqlen_q = nq;
    dense.seqlen_kv = nk;
    dense.total_q = dense.total_kv = 0;
    dense.cu_seqlens_q = dense.cu_seqlens_k = NULL;
    dense.kv_lengths = a->kv_lengths ? &a->kv_lengths[b] : NULL;
    dense.variant = forced;
    dense.q = seq.q;
    dense.k = seq.k;
    dense.v = seq.v;
    const size_t nqe = (size_t)nq * a->heads * D;
    uint16_t *out = malloc(nqe * sizeof(uint16_t));
    float *dl = malloc((size_t)nq * a->heads * sizeof(float));
    if (!out || !dl) st = ATTNGEN_STATUS_OUT_OF_MEMORY;
    if (!st) {
      for (size_t i = 0; i < nqe; ++i) out[i] = ATTNGEN__BF16_POISON;
      st = run_on(a->ctx, &dense, nqe * 2, (size_t)nk * hkv * D * 2, out, nqe * 2, 0, dl,
                  (size_t)nq * a->heads * sizeof(float));
    }
    attngen__verify_result vr;
    if (!st) {
      attngen__verify_args va = {a->ctx, &dense, &seq, out, dl, a->exact, a->strict, NULL,
                                 dense.kv_lengths};
      st = attngen__verify_run(&va, &vr);
    }
    if (!st) {
      ++r->sequences;
      int64_t om = 0, lm = 0;
      const uint16_t *packed = g.data + (size_t)cu_q[b] * a->heads * D;
      for (size_t i = 0; i < nqe; ++i) om += packed[i] != out[i];
      for (int h = 0; h < a->heads; ++h)
        for (int i = 0; i < nq; ++i)
          lm += memcmp(&lse[(size_t)h * total_q + cu_q[b] + i], &dl[(size_t)h * nq + i],
                       sizeof(float)) != 0;
      r->out_mismatch += om;
      r->lse_mismatch += lm;
      r->dense_failed += !vr.pass;
      if (a->report) {
        fprintf(a->report, "  sequence %d: Sq %d, Skv %d%s: dense call %s (ULP 0/1/>1: %lld/%lld/"
                "%lld), packed rows %s, LSE %s\n", b, nq, nk,
                a->kv_lengths ? " (kv_lengths given)" : "", vr.pass ? "PASS" : "FAIL",
                (long long)vr.out.ulp0, (long long)vr.out.ulp1, (long long)vr.out.ulp_over,
                om ? "DIFFER" : "bitwise equal", lm ? "DIFFERS" : "bitwise equal");
        if (!vr.pass) attngen__compare_print(a->report, "dense call", &vr.out);
      }
    }
    free(out);
    free(dl);
  }
  if (!st)
    r->pass = r->deterministic && !r->dense_failed && !r->out_mismatch && !r->lse_mismatch &&
              !r->unwritten && !r->guard_damage;
  attngen__guarded_free(&g);
  free(lse);
  attngen__inputs_free(&in);
  free(cu_q);
  free(cu_k);
  return st;
}
