/* dispatch.c: argument checks, feature support, and the selection rules (forced ->
 * tuning database -> heuristic table). */
#include "dispatch.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "axes.h"
#include "numerics.h"
#include "split_plan.h"
#include "status.h"

/* ---- argument checks -------------------------------------------------------------------- */

#define BATCH_SLICE_LIMIT ((int64_t)1 << 31) /* kernels use 32-bit offsets inside one batch */
#define GRID_YZ_LIMIT ATTNGEN__GRID_YZ_LIMIT

static attngen_status check_ptr(const void *p, const char *name) {
  if (!p)
    return attngen__fail(ATTNGEN_STATUS_NULL_POINTER,
                         "args.%s is NULL (allowed: a device pointer, a host pointer on the cpu "
                         "and emu backends)", name);
  return ATTNGEN_STATUS_OK;
}

static attngen_status check_align(const void *p, const char *name, unsigned align) {
  if (p && (uintptr_t)p % align != 0)
    return attngen__fail(ATTNGEN_STATUS_MISALIGNED,
                         "args.%s = %p is not %u-byte aligned (allowed: addresses that are a "
                         "multiple of %u)", name, p, align, align);
  return ATTNGEN_STATUS_OK;
}

typedef struct byte_range {
  const char *name;
  uintptr_t begin, end; /* [begin, end) */
} byte_range;

static int overlaps(const byte_range *a, const byte_range *b) {
  return a->begin < a->end && b->begin < b->end && a->begin < b->end && b->begin < a->end;
}

/* ---- element strides (attngen_fwd_args.q_strides ...) ---------------------------------- */

#define STRIDE_BATCH_LIMIT ((int64_t)1 << 39) /* elements: 2^40 bytes, the tensor maps' bound */

static const char *const tensor_names[4] = {"q", "k", "v", "out"};
static const char *const stride_dims[3] = {"batch", "sequence", "head"};

/* The extents of tensor t's (batch, sequence, head) dimensions (a packed batch: one entry of
 * total rows). */
static void tensor_extents(const attngen_fwd_args *a, attngen__call_tensor t, int64_t n[3]) {
  const int packed = a->cu_seqlens_q != NULL;
  const int kv = t == ATTNGEN__T_K || t == ATTNGEN__T_V;
  n[0] = packed ? 1 : a->batch;
  n[1] = kv ? (packed ? a->total_kv : a->seqlen_kv) : (packed ? a->total_q : a->seqlen_q);
  n[2] = kv && a->heads_kv > 0 ? a->heads_kv : a->heads;
}

/* Elements from a tensor's first to its last element, + 1, within one batch entry (b = 0)
 * or over all of them (b = 1), under the call's strides; 0 for an empty tensor. */
static int64_t tensor_span(const attngen_fwd_args *a, attngen__call_tensor t, int all_batches) {
  int64_t n[3], s[3];
  tensor_extents(a, t, n);
  attngen__call_strides(a, t, s);
  if (n[0] < 1 || n[1] < 1 || n[2] < 1) return 0;
  int64_t span = (n[1] - 1) * s[1] + (n[2] - 1) * s[2] + a->head_dim;
  if (all_batches) span += (n[0] - 1) * s[0];
  return span;
}

/* The given strides of tensor t: signs and zeros, 16-byte multiples, the 32-bit offsets within
 * a batch entry, and for out that no two elements share an address. */
static attngen_status check_strides(const attngen_fwd_args *a, attngen__call_tensor t) {
  if (!attngen__strides_given(a, t)) return ATTNGEN_STATUS_OK;
  const int64_t *g = attngen__given_strides(a, t);
  const char *name = tensor_names[t];
  const int packed = a->cu_seqlens_q != NULL;
  int64_t n[3];
  tensor_extents(a, t, n);
  for (int i = 0; i < 3; i++) {
    const int unused = i == 0 && packed;
    if (g[i] < 0 || (g[i] == 0 && n[i] > 1 && !unused))
      return attngen__fail(ATTNGEN_STATUS_INVALID_ARGUMENT,
                           "args.%s_strides[%d] = %lld, the %s stride of %s (allowed: >= 1 "
                           "elements; 0 only on a dimension of extent 1%s; all three 0 = dense "
                           "in args.layout)", name, i, (long long)g[i], stride_dims[i], name,
                           i == 0 ? " or in a packed batch" : "");
    if (!unused && g[i] % 8 != 0)
      return attngen__fail(ATTNGEN_STATUS_MISALIGNED,
                           "args.%s_strides[%d] = %lld, the %s stride of %s, is not a multiple "
                           "of 8 elements (allowed: multiples of 8 bf16 elements = 16 bytes, as "
                           "the kernels' 16-byte loads and the tensor maps need)", name, i,
                           (long long)g[i], stride_dims[i], name);
  }
  for (int i = 1; i < 3; i++)
    if (g[i] >= BATCH_SLICE_LIMIT / 2)
      return attngen__fail(ATTNGEN_STATUS_TOO_LARGE,
                           "args.%s_strides[%d] = %lld, the %s stride of %s (allowed: < 2^30 "
                           "elements: a batch entry spans less than 2^31 bytes)", name, i,
                           (long long)g[i], stride_dims[i], name);
  if (!packed && g[0] >= STRIDE_BATCH_LIMIT)
    return attngen__fail(ATTNGEN_STATUS_TOO_LARGE,
                         "args.%s_strides[0] = %lld, the batch stride of %s (allowed: < 2^39 "
                         "elements = 2^40 bytes, the tensor maps' bound)", name, (long long)g[0],
                         name);
  /* strides below 2^31 each (else the span check fails), so the products below fit */
  const int64_t entry_bytes = tensor_span(a, t, 0) * 2;
  if (entry_bytes >= BATCH_SLICE_LIMIT)
    return attngen__fail(ATTNGEN_STATUS_TOO_LARGE,
                         "args.%s_strides = {%lld, %lld, %lld}: one batch entry of %s spans "
                         "%lld bytes (allowed: < 2^31 = 2147483648, the kernels' 32-bit offsets "
                         "within one batch entry)", name, (long long)g[0], (long long)g[1],
                         (long long)g[2], name, (long long)entry_bytes);
  if (t != ATTNGEN__T_OUT) return ATTNGEN_STATUS_OK;
  /* out: sorted by stride, each dimension of extent > 1 must step past the whole extent of
   * the one below it (the head dimension: head_dim unit-stride elements) */
  int64_t st[4] = {1, 0, 0, 0}, ext[4] = {a->head_dim, 0, 0, 0};
  int m = 1;
  for (int i = packed ? 1 : 0; i < 3; i++)
    if (n[i] > 1) st[m] = g[i], ext[m++] = n[i];
  for (int i = 1; i < m; i++)
    for (int j = i; j > 0 && st[j] < st[j - 1]; j--) {
      int64_t x = st[j]; st[j] = st[j - 1]; st[j - 1] = x;
      x = ext[j]; ext[j] = ext[j - 1]; ext[j - 1] = x;
    }
  for (int i = 1; i < m; i++)
    if (st[i] < st[i - 1] * ext[i - 1])
      return attngen__fail(ATTNGEN_STATUS_ALIASING,
                           "args.out_strides = {%lld, %lld, %lld} with extents {%lld, %lld, "
                           "%lld} and head_dim %d: two elements of out share an address "
                           "(allowed: strides under which every element of out has its own "
                           "address, e.g. the dense ones)", (long long)g[0], (long long)g[1],
                           (long long)g[2], (long long)n[0], (long long)n[1], (long long)n[2],
                           a->head_dim);
  return ATTNGEN_STATUS_OK;
}

attngen_status attngen__check_args(const attngen_fwd_args *a, int need_pointers) {
  attngen_status st;
  if (!a) return attngen__fail(ATTNGEN_STATUS_NULL_POINTER, "args is NULL");
  if (need_pointers) {
    /* With seqlen_kv == 0 nothing is read from k and v, and an empty tensor's data pointer
     * may be NULL (PyTorch's are): accept it; O = 0 and LSE = -inf. */
    const int need_kv = a->seqlen_kv > 0;
    if ((st = check_ptr(a->q, "q")) || (need_kv && (st = check_ptr(a->k, "k"))) ||
        (need_kv && (st = check_ptr(a->v, "v"))) || (st = check_ptr(a->out, "out")))
      return st;
  }
  /* the values of the generator's head_dim axis (generator/lua/config.lua); which backend
   * has variants of which is the dispatcher's (NO_VARIANT naming args.head_dim) */
  if (!attngen__head_dim_valid(a->head_dim))
    return attngen__fail(ATTNGEN_STATUS_UNSUPPORTED_HEAD_DIM,
                         "args.head_dim = %d is not supported (allowed: "
                         ATTNGEN__HEAD_DIM_LIST ")",
                         a->head_dim);
  if (a->layout != ATTNGEN_LAYOUT_BSHD && a->layout != ATTNGEN_LAYOUT_BHSD)
    return attngen__fail(ATTNGEN_STATUS_BAD_LAYOUT,
                         "args.layout = %d is unknown (allowed: ATTNGEN_LAYOUT_BSHD = 0, "
                         "ATTNGEN_LAYOUT_BHSD = 1)", (int)a->layout);
  if (a->rounding != ATTNGEN_ROUND_RTNE && a->rounding != ATTNGEN_ROUND_RTNA &&
      a->rounding != ATTNGEN_ROUND_RTZ)
    return attngen__fail(ATTNGEN_STATUS_BAD_ROUNDING,
                         "args.rounding = %d is unknown (allowed: ATTNGEN_ROUND_RTNE = 0, "
                         "ATTNGEN_ROUND_RTNA = 1, ATTNGEN_ROUND_RTZ = 2)", (int)a->rounding);
  const int packed = a->cu_seqlens_q != NULL || a->cu_seqlens_k != NULL;
  if (packed && (!a->cu_seqlens_q || !a->cu_seqlens_k))
    return attngen__fail(ATTNGEN_STATUS_NULL_POINTER,
                         "args.%s is NULL and args.%s is not (allowed: both cu_seqlens of a "
                         "packed batch, or neither)", a->cu_seqlens_q ? "cu_seqlens_k" :
                         "cu_seqlens_q", a->cu_seqlens_q ? "cu_seqlens_q" : "cu_seqlens_k");
  if (packed && a->layout != ATTNGEN_LAYOUT_BSHD)
    return attngen__fail(ATTNGEN_STATUS_BAD_LAYOUT,
                         "args.layout = ATTNGEN_LAYOUT_BHSD with args.cu_seqlens_q (allowed: "
                         "ATTNGEN_LAYOUT_BSHD, packed rows [total_q, heads, head_dim]: a packed "
                         "batch has no batch dimension to put heads outside)");
  if (!packed && (a->total_q != 0 || a->total_kv != 0))
    return attngen__fail(ATTNGEN_STATUS_INVALID_ARGUMENT,
                         "args.%s = %d without args.cu_seqlens_q (allowed: 0; the totals "
                         "belong to packed batches)", a->total_q ? "total_q" : "total_kv",
                         a->total_q ? a->total_q : a->total_kv);
  if (a->batch < 1)
    return attngen__fail(ATTNGEN_STATUS_BAD_SHAPE, "args.batch = %d (allowed: >= 1)", a->batch);
  if (a->heads < 1)
    return attngen__fail(ATTNGEN_STATUS_BAD_SHAPE, "args.heads = %d (allowed: >= 1)", a->heads);
  if (a->seqlen_q < 1)
    return attngen__fail(ATTNGEN_STATUS_BAD_SHAPE, "args.seqlen_q = %d (allowed: >= 1)",
                         a->seqlen_q);
  if (a->seqlen_kv < 0)
    return attngen__fail(ATTNGEN_STATUS_BAD_SHAPE, "args.seqlen_kv = %d (allowed: >= 0)",
                         a->seqlen_kv);
  if (a->heads_kv < 0 || (a->heads_kv > 0 && a->heads % a->heads_kv != 0))
    return attngen__fail(ATTNGEN_STATUS_BAD_SHAPE,
                         "args.heads_kv = %d with args.heads = %d (allowed: 0 = heads, or a "
                         "divisor of heads: each KV head serves heads / heads_kv query heads)",
                         a->heads_kv, a->heads);
  const int heads_kv = a->heads_kv > 0 ? a->heads_kv : a->heads;
  if (packed && a->total_q < 1)
    return attngen__fail(ATTNGEN_STATUS_BAD_SHAPE,
                         "args.total_q = %d with args.cu_seqlens_q (allowed: >= 1, the rows of "
                         "the packed q)", a->total_q);
  if (packed && (a->total_kv < 0 || (a->total_kv == 0 && a->seqlen_kv > 0)))
    return attngen__fail(ATTNGEN_STATUS_BAD_SHAPE,
                         "args.total_kv = %d with args.seqlen_kv (max_seqlen_k) = %d (allowed: "
                         ">= 1 when seqlen_kv > 0, else >= 0: the rows of the packed k and v)",
                         a->total_kv, a->seqlen_kv);
  if (a->heads > GRID_YZ_LIMIT || a->batch > GRID_YZ_LIMIT)
    return attngen__fail(ATTNGEN_STATUS_TOO_LARGE,
                         "args.%s = %d exceeds the launch grid (allowed: <= %d)",
                         a->heads > GRID_YZ_LIMIT ? "heads" : "batch",
                         a->heads > GRID_YZ_LIMIT ? a->heads : a->batch, GRID_YZ_LIMIT);
  /* A packed batch is one batch entry of total_q (total_kv) rows for these limits: the
   * kernels address its rows with 32-bit offsets from the tensor's start. */
  const int rows_q = packed ? a->total_q : a->seqlen_q;
  const int rows_kv = packed ? a->total_kv : a->seqlen_kv;
  int64_t q_slice = (int64_t)rows_q * a->heads * a->head_dim * 2;
  int64_t kv_slice = (int64_t)rows_kv * heads_kv * a->head_dim * 2;
  if (q_slice >= BATCH_SLICE_LIMIT || kv_slice >= BATCH_SLICE_LIMIT) {
    int q = q_slice >= BATCH_SLICE_LIMIT;
    return attngen__fail(ATTNGEN_STATUS_TOO_LARGE,
                         "args.%s * args.%s * args.head_dim * 2 = %lld bytes per batch entry "
                         "(allowed: < 2^31 = 2147483648, the kernels' 32-bit offsets within one "
                         "batch)",
                         q ? (packed ? "total_q" : "seqlen_q") : (packed ? "total_kv" : "seqlen_kv"),
                         q || a->heads_kv <= 0 ? "heads" : "heads_kv",
                         (long long)(q ? q_slice : kv_slice));
  }
  if ((int64_t)a->batch * a->heads * a->seqlen_q >= BATCH_SLICE_LIMIT)
    return attngen__fail(ATTNGEN_STATUS_TOO_LARGE,
                         "args.batch * args.heads * args.seqlen_q = %lld rows (allowed: < 2^31)",
                         (long long)a->batch * a->heads * a->seqlen_q);
  if (a->causal != 0 && a->causal != 1)
    return attngen__fail(ATTNGEN_STATUS_INVALID_ARGUMENT,
                         "args.causal = %d (allowed: 0 = no mask, 1 = causal, bottom-right "
                         "aligned)", a->causal);
  if (!isfinite(a->softmax_scale))
    return attngen__fail(ATTNGEN_STATUS_BAD_SCALE,
                         "args.softmax_scale = %g is not finite (allowed: any finite float; "
                         "attngen_fwd_args_init's default 1/sqrt(128))", (double)a->softmax_scale);
  for (int t = ATTNGEN__T_Q; t <= ATTNGEN__T_OUT; t++)
    if ((st = check_strides(a, (attngen__call_tensor)t)) != ATTNGEN_STATUS_OK) return st;
  if (!need_pointers) return ATTNGEN_STATUS_OK;
  if ((st = check_align(a->q, "q", 16)) || (st = check_align(a->k, "k", 16)) ||
      (st = check_align(a->v, "v", 16)) || (st = check_align(a->out, "out", 16)) ||
      (st = check_align(a->lse, "lse", 4)) ||
      (st = check_align(a->kv_lengths, "kv_lengths", 4)) ||
      (st = check_align(a->cu_seqlens_q, "cu_seqlens_q", 4)) ||
      (st = check_align(a->cu_seqlens_k, "cu_seqlens_k", 4)))
    return st;
  const uintptr_t entries = packed ? 1 : (uintptr_t)a->batch;
  /* each tensor's span, first to last byte (with strides: interleaved views that share no
   * byte may still be refused, e.g. out inside a packed qkvo buffer) */
  const uintptr_t qb = (uintptr_t)tensor_span(a, ATTNGEN__T_Q, 1) * 2;
  const uintptr_t kb = (uintptr_t)tensor_span(a, ATTNGEN__T_K, 1) * 2;
  const uintptr_t vb = (uintptr_t)tensor_span(a, ATTNGEN__T_V, 1) * 2;
  const uintptr_t ob = (uintptr_t)tensor_span(a, ATTNGEN__T_OUT, 1) * 2;
  uintptr_t lseb = (uintptr_t)entries * a->heads * rows_q * sizeof(float);
  byte_range q = {"q", (uintptr_t)a->q, (uintptr_t)a->q + qb};
  byte_range k = {"k", (uintptr_t)a->k, (uintptr_t)a->k + kb};
  byte_range v = {"v", (uintptr_t)a->v, (uintptr_t)a->v + vb};
  byte_range o = {"out", (uintptr_t)a->out, (uintptr_t)a->out + ob};
  byte_range l = {"lse", (uintptr_t)a->lse, a->lse ? (uintptr_t)a->lse + lseb : (uintptr_t)a->lse};
  const uintptr_t kl0 = (uintptr_t)a->kv_lengths;
  byte_range kl = {"kv_lengths", kl0, kl0 ? kl0 + (uintptr_t)a->batch * sizeof(int32_t) : kl0};
  const uintptr_t cq0 = (uintptr_t)a->cu_seqlens_q, ck0 = (uintptr_t)a->cu_seqlens_k;
  const uintptr_t cu_bytes = ((uintptr_t)a->batch + 1) * sizeof(int32_t);
  byte_range cq = {"cu_seqlens_q", cq0, cq0 ? cq0 + cu_bytes : cq0};
  byte_range ck = {"cu_seqlens_k", ck0, ck0 ? ck0 + cu_bytes : ck0};
  const byte_range *writes[] = {&o, &l};
  const byte_range *others[] = {&q, &k, &v, &o, &kl, &cq, &ck};
  for (size_t w = 0; w < 2; w++) {
    for (size_t i = 0; i < sizeof others / sizeof others[0]; i++) {
      if (writes[w] == others[i] || !overlaps(writes[w], others[i])) continue;
      return attngen__fail(ATTNGEN_STATUS_ALIASING,
                           "args.%s [%p, +%zu bytes) overlaps args.%s [%p, +%zu bytes) (allowed: "
                           "outputs that share no byte with any other tensor)",
                           writes[w]->name, (void *)writes[w]->begin,
                           (size_t)(writes[w]->end - writes[w]->begin), others[i]->name,
                           (void *)others[i]->begin, (size_t)(others[i]->end - others[i]->begin));
    }
  }
  return ATTNGEN_STATUS_OK;
}

/* One cu_seqlens array (host copy): starts at 0, never decreases, ends at total, lengths
 * <= max. */
static attngen_status check_cu(const int32_t *cu, const char *name, int batch, int total,
                               const char *total_name, int max, const char *max_name) {
  if (!cu)
    return attngen__fail(ATTNGEN_STATUS_NULL_POINTER,
                         "%s is NULL (allowed: a host array of batch + 1 int32)", name);
  if (cu[0] != 0)
    return attngen__fail(ATTNGEN_STATUS_INVALID_ARGUMENT, "%s[0] = %d (allowed: 0)", name,
                         (int)cu[0]);
  for (int b = 0; b < batch; ++b) {
    const int64_t n = (int64_t)cu[b + 1] - cu[b];
    if (n < 0)
      return attngen__fail(ATTNGEN_STATUS_INVALID_ARGUMENT,
                           "%s[%d] = %d < %s[%d] = %d (allowed: non-decreasing)", name, b + 1,
                           (int)cu[b + 1], name, b, (int)cu[b]);
    if (n > max)
      return attngen__fail(ATTNGEN_STATUS_INVALID_ARGUMENT,
                           "%s[%d] - %s[%d] = %lld exceeds %s = %d (allowed: every length <= "
                           "the maximum)", name, b + 1, name, b, (long long)n, max_name, max);
  }
  if (cu[batch] != total)
    return attngen__fail(ATTNGEN_STATUS_INVALID_ARGUMENT,
                         "%s[%d] = %d differs from %s = %d (allowed: the last entry is the "
                         "total)", name, batch, (int)cu[batch], total_name, total);
  return ATTNGEN_STATUS_OK;
}

attngen_status attngen_check_cu_seqlens(const int32_t *cu_seqlens_q, const int32_t *cu_seqlens_k,
                                        int batch, int total_q, int total_kv, int max_seqlen_q,
                                        int max_seqlen_k) {
  attngen__clear_error();
  if (batch < 1)
    return attngen__fail(ATTNGEN_STATUS_BAD_SHAPE, "batch = %d (allowed: >= 1)", batch);
  attngen_status st = check_cu(cu_seqlens_q, "cu_seqlens_q", batch, total_q, "total_q",
                               max_seqlen_q, "max_seqlen_q");
  if (st == ATTNGEN_STATUS_OK)
    st = check_cu(cu_seqlens_k, "cu_seqlens_k", batch, total_kv, "total_kv", max_seqlen_k,
                  "max_seqlen_k");
  return st;
}

/* ---- occupancy model -------------------------------------------------------------------- */

/* Per-CU limits of each target, for the heuristic only. gfx942: 64 KiB LDS per CU, and the
 * kernel's budget of up to 256 VGPRs per lane leaves room for 2 waves per SIMD = 8 waves
 * per CU. sm90: 228 KiB shared memory and 2048 threads per SM. */
typedef struct target_limits {
  long smem_per_cu;
  long waves_per_cu;
  int lanes_per_wave;
} target_limits;

static const target_limits limits[] = {
  [ATTNGEN__TARGET_GFX942] = {64 * 1024, 8, 64},
  [ATTNGEN__TARGET_SM90] = {228 * 1024, 64, 32},
};

long attngen__device_slots(const attngen__variant_desc *d, int compute_units) {
  const target_limits *t = &limits[d->target == ATTNGEN__TARGET_SM90];
  long waves = d->threads / t->lanes_per_wave;
  long by_waves = waves > 0 ? t->waves_per_cu / waves : 1;
  long by_smem = d->smem_bytes > 0 ? t->smem_per_cu / d->smem_bytes : by_waves;
  long per_cu = by_waves < by_smem ? by_waves : by_smem;
  if (per_cu < 1) per_cu = 1;
  return per_cu * (compute_units > 0 ? compute_units : 1);
}

long attngen__q_jobs(const attngen__variant_desc *d, const attngen__shape *s) {
  long bm = d->block_m > 0 ? d->block_m : 1;
  return (long)s->batch * s->heads * ((s->seqlen_q + bm - 1) / bm);
}

int attngen__axis_value(const attngen__variant_desc *d, const char *axis) {
  /* Every field of the descriptor, by the generated list (generated/variant_axes.h). */
#define ATTNGEN__AXIS_FIELD(f) \
  if (strcmp(axis, #f) == 0) return (int)d->f;
  ATTNGEN__VARIANT_DESC_FIELDS(ATTNGEN__AXIS_FIELD)
#undef ATTNGEN__AXIS_FIELD
  return -1;
}

/* ---- heuristic rules -------------------------------------------------------------------- */

static int has_value(const attngen__variant_desc *const *c, size_t n, const char *axis, int v) {
  for (size_t i = 0; i < n; i++)
    if (attngen__axis_value(c[i], axis) == v) return 1;
  return 0;
}

/* First candidate with that axis value (for its geometry). */
static const attngen__variant_desc *with_value(const attngen__variant_desc *const *c, size_t n,
                                               const char *axis, int v) {
  for (size_t i = 0; i < n; i++)
    if (attngen__axis_value(c[i], axis) == v) return c[i];
  return NULL;
}

/* Largest q_tiles whose grid still fills the device twice; else the smallest. */
static int prefer_q_tiles(const attngen__features *f, const attngen__variant_desc *const *c,
                          size_t n, char *why, size_t len) {
  int best = -1, smallest = 1 << 30;
  for (size_t i = 0; i < n; i++) {
    if (c[i]->q_tiles < smallest) smallest = c[i]->q_tiles;
    long jobs = attngen__q_jobs(c[i], &f->shape);
    long slots = attngen__device_slots(c[i], f->compute_units);
    if (jobs >= 2 * slots && c[i]->q_tiles > best) best = c[i]->q_tiles;
  }
  if (best > 0) {
    const attngen__variant_desc *d = with_value(c, n, "q_tiles", best);
    snprintf(why, len, "q_tiles=%d: %ld blocks >= 2 x %ld slots", best,
             attngen__q_jobs(d, &f->shape), attngen__device_slots(d, f->compute_units));
    return best;
  }
  const attngen__variant_desc *d = with_value(c, n, "q_tiles", smallest);
  snprintf(why, len, "q_tiles=%d: %ld blocks < 2 x %ld slots with any larger tile", smallest,
           attngen__q_jobs(d, &f->shape), attngen__device_slots(d, f->compute_units));
  return smallest;
}

/* Tail split when the last round of blocks leaves at least half of the device idle, the
 * grid is at most 4 rounds long (so the tail is a noticeable share of the time) and the
 * KV range is long enough to split into tiles (>= 4 KV tiles). Skip variants (skip = on)
 * split only when the launch's plan does: its parts are whole list words (32 tiles,
 * attngen__split_plan_make_aligned), so a KV range of at most 32 tiles runs unsplit, and
 * the nosplit skip variant then runs (the same tile grid). */
static int prefer_kv_split(const attngen__features *f, const attngen__variant_desc *const *c,
                           size_t n, char *why, size_t len) {
  const attngen__variant_desc *d = with_value(c, n, "kv_split", ATTNGEN__SPLIT_TAIL);
  if (!d) {
    snprintf(why, len, "kv_split=" ATTNGEN__SPLIT_OFF_NAME ": no " ATTNGEN__SPLIT_TAIL_NAME
                       " variant available");
    return ATTNGEN__SPLIT_OFF;
  }
  long jobs = attngen__q_jobs(d, &f->shape);
  long slots = attngen__device_slots(d, f->compute_units);
  long rounds = (jobs + slots - 1) / slots;
  long last = jobs - (rounds - 1) * slots;
  double fill = (double)last / (double)slots;
  int long_kv = f->shape.seqlen_kv >= 4 * d->kv_tile;
  int split = fill < 0.5 && rounds <= 4 && long_kv;
  if (split && d->skip == ATTNGEN__SKIP_ON) {
    /* the plan the launch makes (api.c plan_launch): whole list words per part */
    const attngen__shape *s = &f->shape;
    attngen__split_plan plan;
    if (attngen__split_plan_make_aligned(s->batch, s->heads, s->seqlen_q, s->seqlen_kv,
                                         d->block_m, d->kv_tile,
                                         f->compute_units > 0 ? f->compute_units : 1, 1,
                                         ATTNGEN__SPLIT_SKIP_ALIGN_TILES,
                                         &plan) != ATTNGEN_STATUS_OK ||
        plan.num_splits < 2) {
      snprintf(why, len, "kv_split=" ATTNGEN__SPLIT_OFF_NAME ": %ld blocks on %ld slots = %ld "
               "round(s), last %.0f%% full, but parts of whole skip-list words (%d tiles) do "
               "not split Skv %d", jobs, slots, rounds, fill * 100.0,
               ATTNGEN__SPLIT_SKIP_ALIGN_TILES, f->shape.seqlen_kv);
      return ATTNGEN__SPLIT_OFF;
    }
  }
  snprintf(why, len, "kv_split=%s: %ld blocks on %ld slots = %ld round(s), last %.0f%% full, "
           "Skv %d %s 4 x kv_tile",
           attngen__kv_split_name(split ? ATTNGEN__SPLIT_TAIL : ATTNGEN__SPLIT_OFF), jobs, slots, rounds, fill * 100.0,
           f->shape.seqlen_kv, long_kv ? ">=" : "<");
  return split ? ATTNGEN__SPLIT_TAIL : ATTNGEN__SPLIT_OFF;
}

/* Jobs of at most this many KV tiles run the tail variant whole when the plan does not split
 * (head_dim 128; measured up to 21 tiles faster, from 187 slower; between: not measured). */
#define ATTNGEN__TAIL_WHOLE_MAX_TILES 32

/* sm90 (the persistent wgmma kernels, one block per SM): the tail split exactly when the plan
 * of split_plan.h splits this call for the tail variant's block_m and kv_tile on the device's
 * SMs, i.e. when the last round is at most half full and the KV range has tiles for two parts
 * (the rule and its measurement: split_plan.h). The plan is the one the launch makes. */
static int prefer_kv_split_plan(const attngen__features *f, const attngen__variant_desc *const *c,
                                size_t n, char *why, size_t len) {
  const attngen__variant_desc *d = with_value(c, n, "kv_split", ATTNGEN__SPLIT_TAIL);
  if (!d) {
    snprintf(why, len, "kv_split=" ATTNGEN__SPLIT_OFF_NAME ": no " ATTNGEN__SPLIT_TAIL_NAME
                       " variant available");
    return ATTNGEN__SPLIT_OFF;
  }
  const attngen__shape *s = &f->shape;
  const int cu = f->compute_units > 0 ? f->compute_units : 1;
  attngen__split_plan plan;
  if (attngen__split_plan_make_aligned(
          s->batch, s->heads, s->seqlen_q, s->seqlen_kv, d->block_m, d->kv_tile, cu, 1,
          d->skip == ATTNGEN__SKIP_ON ? ATTNGEN__SPLIT_SKIP_ALIGN_TILES : 1,
          &plan) != ATTNGEN_STATUS_OK) {
    snprintf(why, len, "kv_split=" ATTNGEN__SPLIT_OFF_NAME ": no split plan for this shape");
    return ATTNGEN__SPLIT_OFF;
  }
  const long rounds = (plan.jobs + cu - 1) / cu;
  const long last = plan.jobs - (rounds - 1) * (long)cu;
  if (plan.num_splits < 2) {
    const int tiles = (s->seqlen_kv + d->kv_tile - 1) / (d->kv_tile > 0 ? d->kv_tile : 1);
    const int hd = d->head_dim ? d->head_dim : 128;
    if (d->skip != ATTNGEN__SKIP_ON && hd == 128 && tiles <= ATTNGEN__TAIL_WHOLE_MAX_TILES) {
      /* Short jobs at head_dim 128: the tail variant with a plan that does not split runs
       * every job whole, bitwise the nosplit kernel's output, and runs faster where jobs are
       * a few KV tiles long (H200, bench/RESULTS.md run M16: tail / nosplit time 0.889 at 2
       * tiles per job, 0.965-0.982 at 2-8, 0.990-0.991 at 16-21; 1.008-1.017 at 187+, and
       * 1.002-1.015 at head dims 64 and 256, where the nosplit kernel stays). */
      snprintf(why, len, "kv_split=" ATTNGEN__SPLIT_TAIL_NAME ": %d q-jobs on %d SMs = %ld "
               "round(s), last %ld of %d: the plan does not split; jobs of %d KV tiles (<= %d): "
               "the tail variant runs them whole, faster than the nosplit twin", plan.jobs, cu,
               rounds, last, cu, tiles, ATTNGEN__TAIL_WHOLE_MAX_TILES);
      return ATTNGEN__SPLIT_TAIL;
    }
    snprintf(why, len, "kv_split=" ATTNGEN__SPLIT_OFF_NAME ": %d q-jobs on %d SMs = %ld round(s), "
             "last %ld of %d: the plan does not split", plan.jobs, cu, rounds, last, cu);
    return ATTNGEN__SPLIT_OFF;
  }
  snprintf(why, len, "kv_split=" ATTNGEN__SPLIT_TAIL_NAME ": %d q-jobs on %d SMs = %ld round(s), "
           "last %ld of %d: split_first %d, %d parts of %d keys", plan.jobs, cu, rounds, last, cu,
           plan.split_first, plan.num_splits, plan.kv_per_split);
  return ATTNGEN__SPLIT_TAIL;
}

/* The smallest KV tile that covers min(Skv, 64) keys: 64 by default, shorter tiles only
 * when the whole KV range is shorter. */
static int prefer_kv_tile(const attngen__features *f, const attngen__variant_desc *const *c,
                          size_t n, char *why, size_t len) {
  int want = f->shape.seqlen_kv < 64 ? f->shape.seqlen_kv : 64;
  int best = -1, largest = -1;
  for (size_t i = 0; i < n; i++) {
    int t = c[i]->kv_tile;
    if (t > largest) largest = t;
    if (t >= want && (best < 0 || t < best)) best = t;
  }
  if (best < 0) best = largest;
  snprintf(why, len, "kv_tile=%d: smallest tile >= min(Skv, 64) = %d", best, want);
  return best;
}

/* The causal mask's modelled time of one waves value, in row-tiles (rows x KV tiles of a job,
 * the last block's padding rows included) x the rate per row-tile: the larger of the whole
 * grid's row-tiles spread over the device's slots and the longest job (a grid of few jobs
 * waits for its longest). A q-block's last row sees keys up to its position + Skv - Sq (the
 * bottom-right diagonal), so its tiles are ceil(that / kv_tile). */
static double causal_waves_time(const attngen__variant_desc *d, const attngen__shape *s,
                                int compute_units, double rate) {
  const long bm = d->block_m > 0 ? d->block_m : 1, kv = d->kv_tile > 0 ? d->kv_tile : 1;
  const long blocks = (s->seqlen_q + bm - 1) / bm;
  double total = 0, longest = 0;
  for (long i = 0; i < blocks; i++) {
    long last = (i + 1) * bm < s->seqlen_q ? (i + 1) * bm : s->seqlen_q;
    long keys = last + (long)s->seqlen_kv - s->seqlen_q;
    if (keys > s->seqlen_kv) keys = s->seqlen_kv;
    const double tiles = keys > 0 ? (double)((keys + kv - 1) / kv) : 0;
    total += (double)bm * tiles;
    if ((double)bm * tiles > longest) longest = (double)bm * tiles;
  }
  const double grid = total * s->batch * s->heads / (double)attngen__device_slots(d, compute_units);
  return rate * (grid > longest ? grid : longest);
}

/* Time per row-tile of the three-consumer causal kernel (waves 16, 192 rows) relative to the
 * two-consumer one (waves 12, 128 rows), head_dim 64, 128-key tiles: H200 run M65, five shapes
 * of 576-2048 q-jobs, (w16 time / w12 time) / (w16 row-tiles / w12 row-tiles) = 0.84-0.88. */
#define CAUSAL_W16_RATE 0.85

/* Fewer, larger blocks (8 warps) once the grid fills the device twice with them. The causal
 * kernels (candidates with mask=causal) instead take the waves value of least modelled time
 * (causal_waves_time): a larger block wastes more of its rows past the diagonal and of the
 * last block, and a few long jobs leave the device idle. */
static int prefer_waves(const attngen__features *f, const attngen__variant_desc *const *c,
                        size_t n, char *why, size_t len) {
  int most = -1, fewest = 1 << 30;
  for (size_t i = 0; i < n; i++) {
    if (c[i]->waves > most) most = c[i]->waves;
    if (c[i]->waves < fewest) fewest = c[i]->waves;
  }
  const attngen__variant_desc *d = with_value(c, n, "waves", most);
  if (most != fewest && d->mask == ATTNGEN__MASK_CAUSAL) {
    const attngen__variant_desc *e = with_value(c, n, "waves", fewest);
    const double tm = causal_waves_time(d, &f->shape, f->compute_units,
                                        most == 16 ? CAUSAL_W16_RATE : 1.0);
    const double tf = causal_waves_time(e, &f->shape, f->compute_units, 1.0);
    const int pick = tm < tf ? most : fewest;
    snprintf(why, len, "waves=%d: modelled causal time %.0f (waves=%d) vs %.0f (waves=%d) "
             "row-tiles", pick, tm < tf ? tm : tf, pick, tm < tf ? tf : tm,
             tm < tf ? fewest : most);
    return pick;
  }
  long jobs = attngen__q_jobs(d, &f->shape), slots = attngen__device_slots(d, f->compute_units);
  int pick = jobs >= 2 * slots ? most : fewest;
  snprintf(why, len, "waves=%d: %ld blocks %s 2 x %ld slots with waves=%d", pick, jobs,
           jobs >= 2 * slots ? ">=" : "<", slots, most);
  return pick;
}

/* wgmma kernels when the set has them. Measured on an H200 (bench/RESULTS.md, run 1,
 * BSHD): wgmma q1/kv128/w12 565 TFLOP/s at 2x24x8192 vs mma.sync q2/kv128/w8 157 TFLOP/s
 * at 2x16x4096. */
static int prefer_impl(const attngen__features *f, const attngen__variant_desc *const *c,
                       size_t n, char *why, size_t len) {
  (void)f;
  int pick = has_value(c, n, "impl", ATTNGEN__IMPL_WGMMA) ? ATTNGEN__IMPL_WGMMA
                                                          : ATTNGEN__IMPL_MMA;
  snprintf(why, len, "impl=%s: %s", attngen__impl_name(pick),
           pick == ATTNGEN__IMPL_WGMMA ? "warpgroup MMA measured ~3.6x mma.sync on H200"
                                       : "no " ATTNGEN__IMPL_WGMMA_NAME " variant available");
  return pick;
}

/* wgmma: the KV tile with the least modelled time per job, ceil(Skv / kv) * T(kv) + J(kv), in
 * key-equivalents: T the time of one tile, J an extra cost per job. Both are measured, not
 * assumed (bench/RESULTS.md runs O3-O6): T from the tuner's long-KV times per tile, scaled so
 * that T = kv + 38 for the 64- and 128-key tiles; the 176-key tile's T = 223 and J = 41 from
 * the same-call A/B of the forced 176- and 128-key variants on H200 (run O6: equal speed at
 * 8192 keys within 1%, 176 7% slower at 512 keys). J is the job boundary's wait for Q: the
 * 176-key variant has one Q buffer (two do not fit next to its K/V stages), the others load
 * the next job's Q during the current job. A tile size without a measurement costs kv + 38.
 * Picks: Skv 512..4096 -> 128, long KV (8192 and up) -> 176, 700 -> 4 x 176, 257 -> 2 x 144,
 * 100 -> 128. Ties go to the larger tile.
 * Head_dim 256 has its own table (its tiles cost differently; only tiles of one call's head
 * dimension are compared, so each table has its own scale): T = 102 for the 64-key tile as at
 * 128, and for the 80-key tile T = 126, J = 149 fitted (least squares) to the forced 64- and
 * 80-key dense kernels raced on 8 shapes of 512 to 8192 keys (H200, run M75: 64 / 80 time
 * 0.83 at 512 keys, 0.91 at 1024, 0.975 at 4096, 0.996 at 8192; the fit within 0.04 of each).
 * Picks there: 64 up to about 16k keys, 80 beyond (by under 1%). Head_dim 64 uses the 128
 * table (its default set has one tile). */
#define WGMMA_TILE_OVERHEAD_KEYS 38
static long wgmma_job_cost(int head_dim, long kv, long tiles) {
  static const struct {
    int head_dim;
    long kv, tile, job;
  } measured[] = {{128, 64, 102, 0},  {128, 96, 136, 0}, {128, 128, 166, 0},
                  {128, 144, 189, 0}, {128, 176, 223, 41},
                  {256, 64, 102, 0},  {256, 80, 126, 149}};
  const int table = head_dim == 256 ? 256 : 128;
  for (size_t i = 0; i < sizeof measured / sizeof measured[0]; i++)
    if (measured[i].head_dim == table && measured[i].kv == kv)
      return tiles * measured[i].tile + measured[i].job;
  return tiles * (kv + WGMMA_TILE_OVERHEAD_KEYS);
}

static int prefer_wgmma_kv_tile(const attngen__features *f, const attngen__variant_desc *const *c,
                                size_t n, char *why, size_t len) {
  int all_wgmma = 1;
  for (size_t i = 0; i < n; i++) all_wgmma &= c[i]->impl == ATTNGEN__IMPL_WGMMA;
  if (!all_wgmma) {
    snprintf(why, len, "not applicable");
    return -1; /* no such value: the rule is skipped */
  }
  const long skv = f->shape.seqlen_kv > 0 ? f->shape.seqlen_kv : 1;
  int pick = -1;
  long best = 0, tiles = 0;
  for (size_t i = 0; i < n; i++) {
    const long kv = c[i]->kv_tile > 0 ? c[i]->kv_tile : 1;
    const long t = (skv + kv - 1) / kv;
    const long cost = wgmma_job_cost(attngen__desc_head_dim(c[i]), kv, t);
    if (pick < 0 || cost < best || (cost == best && kv > pick)) {
      pick = (int)kv;
      best = cost;
      tiles = t;
    }
  }
  snprintf(why, len, "kv_tile=%d: %ld tile(s) for Skv %d, least measured cost per job "
           "(tiles x tile cost + job cost) = %ld key-equivalents", pick, tiles, f->shape.seqlen_kv,
           best);
  return pick;
}

/* Applied in this order: kv_split depends on the block size chosen by q_tiles. No
 * measurements exist yet (no GPU run of these kernels); the thresholds follow the
 * reasoning in each rule's basis and are to be replaced by `attngen tune` data. */
const attngen__heuristic_rule attngen__heuristic_rules[] = {
  {"impl-wgmma", "impl", ATTNGEN__TARGET_SM90, prefer_impl,
   "Hopper warpgroup MMA with async loads: measured 3.6x the mma.sync kernel (run 1)"},
  {"wgmma-kv-tile", "kv_tile", ATTNGEN__TARGET_SM90, prefer_wgmma_kv_tile,
   "least measured time per job: tiles x tile cost + job cost (H200 runs O3-O6)"},
  {"q-tiles-fill", "q_tiles", -1, prefer_q_tiles,
   "larger Q tiles reuse each K/V tile for more rows but make fewer blocks; keep >= 2 rounds"},
  {"waves-fill", "waves", ATTNGEN__TARGET_SM90, prefer_waves,
   "8-warp blocks share K/V tiles across two consumer groups; needs enough blocks"},
  {"kv-tile-cover", "kv_tile", -1, prefer_kv_tile,
   "64-key tiles are the default set's; shorter KV ranges waste less with shorter tiles"},
  {"kv-split-tail", "kv_split", ATTNGEN__TARGET_GFX942, prefer_kv_split,
   "a badly filled last round idles CUs; splitting the tail's KV range fills them"},
  {"kv-split-plan", "kv_split", ATTNGEN__TARGET_SM90, prefer_kv_split_plan,
   "the tail split exactly when the split plan splits (H200: (1,4,4608) 144 jobs on 132 SMs); "
   "unsplit short head_dim-128 jobs run the tail variant whole (run M16)"},
};
const size_t attngen__heuristic_rule_count =
    sizeof attngen__heuristic_rules / sizeof attngen__heuristic_rules[0];

/* ---- selection -------------------------------------------------------------------------- */

static const char *target_str(int t) { return attngen__target_name(t); }
static const char *layout_str(int l) {
  const char *s = attngen__layout_name((attngen_layout)l);
  return s ? s : "?";
}
static const char *rounding_str(int r) {
  const char *s = attngen__rounding_name((attngen_rounding)r);
  return s ? s : "?";
}

/* Why d cannot run this call, or NULL when it can. */
static const char *unsupported(const attngen__dispatch_input *in, const attngen__variant_desc *d,
                               char *buf, size_t len) {
  if (d->target != in->target)
    snprintf(buf, len, "it is a %s variant and the device runs %s", target_str(d->target),
             target_str(in->target));
  else if (d->layout != in->shape.layout)
    snprintf(buf, len, "it reads layout %s and args.layout is %s", layout_str(d->layout),
             layout_str(in->shape.layout));
  else if (d->rounding != in->shape.rounding)
    snprintf(buf, len, "it rounds with %s and args.rounding is %s", rounding_str(d->rounding),
             rounding_str(in->shape.rounding));
  else if (attngen__desc_head_dim(d) != attngen__shape_head_dim(&in->shape))
    snprintf(buf, len, "it reads rows of head_dim %d and args.head_dim is %d",
             attngen__desc_head_dim(d), attngen__shape_head_dim(&in->shape));
  else if (in->varlen && !d->packed)
    snprintf(buf, len, "it has no packed-batch code (packed 0) and args.cu_seqlens_q is set "
             "(packed batches run on the variants with packed 1: bshd without the tail KV "
             "split, whose plan is made for a dense shape, or tile skipping; on sm90 at "
             "head_dim 256 the 64-key ones)");
  else if (in->causal != (d->mask == ATTNGEN__MASK_CAUSAL))
    snprintf(buf, len, in->causal ? "it has no causal mask and args.causal is 1 (variants with "
                                    "mask causal take it: sm90 with kv_tile <= 128, gfx942 "
                                    "without the tail KV split)"
                                  : "it applies the causal mask and args.causal is 0");
  else if (in->skip != (d->skip == ATTNGEN__SKIP_ON))
    snprintf(buf, len, in->skip ? "it has no tile skipping (skip off) and args.skip is set "
                                  "(variants with skip on take it)"
                                : "it skips tiles (skip on) and args.skip is NULL");
  else if (d->kv_split == ATTNGEN__SPLIT_TAIL && !in->split_supported)
    snprintf(buf, len,
             ATTNGEN__SPLIT_TAIL_NAME " KV split is not supported by this build (no split planner)");
  else
    return NULL;
  return buf;
}

static const attngen__variant_desc *find_candidate(const attngen__dispatch_input *in,
                                                   const char *name) {
  for (size_t i = 0; i < in->count; i++)
    if (in->candidates[i].name && strcmp(in->candidates[i].name, name) == 0) return &in->candidates[i];
  return NULL;
}

/* Resolves a named variant (default set or generator) and checks it can run the call. */
static attngen_status resolve_named(const attngen__dispatch_input *in, const char *name,
                                    attngen__dispatch_result *out, char *problem, size_t len) {
  const attngen__variant_desc *c = find_candidate(in, name);
  attngen__variant_desc d;
  const char *source = NULL;
  if (c) {
    d = *c;
  } else {
    char *err = NULL;
    if (!in->describe || in->describe(in->describe_user, name, &d, &source, &err) != 0) {
      snprintf(problem, len, "%s", err ? err : "unknown variant name");
      free(err);
      return ATTNGEN_STATUS_NO_VARIANT;
    }
  }
  char why[256];
  if (unsupported(in, &d, why, sizeof why)) {
    snprintf(problem, len, "%s", why);
    return ATTNGEN_STATUS_NO_VARIANT;
  }
  snprintf(out->name, sizeof out->name, "%s", name);
  out->desc = d;
  out->desc.name = out->name;
  out->in_default_set = c != NULL;
  out->source = source;
  return ATTNGEN_STATUS_OK;
}

static void append(char *buf, size_t len, const char *text) {
  size_t n = strlen(buf);
  if (n + 1 < len) snprintf(buf + n, len - n, "%s%s", n ? "; " : "", text);
}

attngen_status attngen__dispatch_select(const attngen__dispatch_input *in,
                                        attngen__dispatch_result *out) {
  memset(out, 0, sizeof *out);
  char problem[512];
  if (in->forced && in->forced[0]) {
    attngen_status st = resolve_named(in, in->forced, out, problem, sizeof problem);
    if (st != ATTNGEN_STATUS_OK)
      return attngen__fail(st, "%s = %s cannot run this call: %s", in->forced_by ? in->forced_by : "variant",
                           in->forced, problem);
    out->rule = ATTNGEN_RULE_FORCED;
    snprintf(out->reason, sizeof out->reason, "forced by %s", in->forced_by ? in->forced_by : "caller");
    return ATTNGEN_STATUS_OK;
  }
  char tuning_note[600] = "";
  if (in->tuned && in->tuned[0]) {
    if (resolve_named(in, in->tuned, out, problem, sizeof problem) == ATTNGEN_STATUS_OK) {
      out->rule = ATTNGEN_RULE_TUNING;
      snprintf(out->reason, sizeof out->reason, "tuning database: %s",
               in->tuned_why ? in->tuned_why : "entry for this shape");
      return ATTNGEN_STATUS_OK;
    }
    snprintf(tuning_note, sizeof tuning_note, "tuning entry %s ignored: %s", in->tuned, problem);
    attngen__log(ATTNGEN__LOG_NOTICE, "%s", tuning_note);
  }

  /* Feature support: the default-set variants that can run this call. */
  const attngen__variant_desc **c = malloc((in->count ? in->count : 1) * sizeof *c);
  if (!c) return attngen__fail(ATTNGEN_STATUS_OUT_OF_MEMORY, "dispatch: out of memory");
  size_t n = 0;
  for (size_t i = 0; i < in->count; i++)
    if (in->candidates[i].name && !unsupported(in, &in->candidates[i], problem, sizeof problem))
      c[n++] = &in->candidates[i];
  if (n == 0) {
    free(c);
    if (in->varlen)
      return attngen__fail(ATTNGEN_STATUS_NO_VARIANT,
                           "args.cu_seqlens_q: no embedded %s variant with packed-batch code "
                           "reads head_dim %d, layout %s with rounding %s%s (packed batches run "
                           "on variants with packed 1: bshd without the tail KV split or tile "
                           "skipping, at head dims 64, 128 and 256; name one with args.variant "
                           "/ ATTNGEN_VARIANT)",
                           target_str(in->target), attngen__shape_head_dim(&in->shape),
                           layout_str(in->shape.layout), rounding_str(in->shape.rounding),
                           in->causal ? " and mask causal" : "");
    {
      /* a variant of the call's head_dim at all (else the other features exclude it); the
       * message lists the head dims this target's variants have */
      int any = 0, have[3] = {0, 0, 0}; /* 64, 128, 256 */
      for (size_t i = 0; i < in->count; i++) {
        if (in->candidates[i].target != in->target) continue;
        const int hd = attngen__desc_head_dim(&in->candidates[i]);
        any |= hd == attngen__shape_head_dim(&in->shape);
        if (attngen__head_dim_slot(hd) >= 0) have[attngen__head_dim_slot(hd)] = 1;
      }
      if (!any) {
        char list[32] = "";
        for (int j = 0; j < 3; j++)
          if (have[j])
            snprintf(list + strlen(list), sizeof list - strlen(list), "%s%d", list[0] ? ", " : "",
                     (int[]){64, 128, 256}[j]);
        return attngen__fail(ATTNGEN_STATUS_NO_VARIANT,
                             "args.head_dim = %d: no embedded %s variant has that head_dim "
                             "(allowed on this backend: %s; the cpu reference takes 64, 128 and "
                             "256)", attngen__shape_head_dim(&in->shape), target_str(in->target),
                             list[0] ? list : "none");
      }
    }
    if (in->skip)
      return attngen__fail(ATTNGEN_STATUS_NO_VARIANT,
                           "args.skip: no embedded %s variant skips tiles (skip on) for this "
                           "call (allowed on this backend: NULL; the cpu reference skips; name "
                           "a skip variant with args.variant to JIT-compile it)",
                           target_str(in->target));
    if (in->causal)
      return attngen__fail(ATTNGEN_STATUS_NO_VARIANT,
                           "args.causal: no embedded %s variant reads layout %s with rounding "
                           "%s and the causal mask (name one with args.variant / "
                           "ATTNGEN_VARIANT; variants with mask causal: sm90 (cuda), gfx942 (hip, "
                           "emu) without the tail KV split; the cpu reference takes it too)",
                           target_str(in->target), layout_str(in->shape.layout),
                           rounding_str(in->shape.rounding));
    return attngen__fail(ATTNGEN_STATUS_NO_VARIANT,
                         "no embedded %s variant reads layout %s with rounding %s (name one with "
                         "args.variant / ATTNGEN_VARIANT to JIT-compile it)", target_str(in->target),
                         layout_str(in->shape.layout), rounding_str(in->shape.rounding));
  }
  attngen__features f = {in->target, in->compute_units, in->shape};
  char reason[512] = "";
  if (tuning_note[0]) append(reason, sizeof reason, tuning_note);
  for (size_t r = 0; r < attngen__heuristic_rule_count; r++) {
    const attngen__heuristic_rule *rule = &attngen__heuristic_rules[r];
    if (rule->target >= 0 && rule->target != in->target) continue;
    int first = attngen__axis_value(c[0], rule->axis), varies = 0;
    for (size_t i = 1; i < n; i++) varies |= attngen__axis_value(c[i], rule->axis) != first;
    if (!varies) continue; /* nothing to choose on this axis */
    char why[200];
    int want = rule->prefer(&f, c, n, why, sizeof why);
    if (!has_value(c, n, rule->axis, want)) continue;
    size_t kept = 0;
    for (size_t i = 0; i < n; i++)
      if (attngen__axis_value(c[i], rule->axis) == want) c[kept++] = c[i];
    n = kept;
    char line[240];
    snprintf(line, sizeof line, "%s: %s", rule->name, why);
    append(reason, sizeof reason, line);
  }
  /* Remaining ties: the default set's order. */
  snprintf(out->name, sizeof out->name, "%s", c[0]->name);
  out->desc = *c[0];
  out->desc.name = out->name;
  out->in_default_set = 1;
  out->rule = ATTNGEN_RULE_HEURISTIC;
  if (!reason[0]) snprintf(reason, sizeof reason, "the only embedded variant for this layout and rounding");
  snprintf(out->reason, sizeof out->reason, "%s", reason);
  free(c);
  return ATTNGEN_STATUS_OK;
}
