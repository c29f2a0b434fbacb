/* skip_state.c: attngen_skip_state, the temporal tile-skip state of one attention layer
 * (docs/NUMERICS.md "Tile skipping"): double-buffered skip lists, must-skip / must-do masks,
 * threshold and counter in the context's memory, and the checks and argument filling that
 * attngen_fwd (api.c) does around a call that passes one. */
#include "skip_state.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "context.h"
#include "status.h"

static attngen_status check_threshold(float t) {
  if (!(t < 0.0f))
    return attngen__fail(ATTNGEN_STATUS_INVALID_ARGUMENT,
                         "threshold_log2 = %g (allowed: a negative value in log2 units, e.g. "
                         "-6, or -INFINITY = mark nothing)", (double)t);
  return ATTNGEN_STATUS_OK;
}

static void free_state(attngen_skip_state *s) {
  const attngen__backend_ops *be = s->ctx->be;
  uint32_t *bufs[] = {s->lists[0], s->lists[1], s->must_skip, s->must_do, s->count};
  for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++)
    if (bufs[i]) be->mem_free(s->ctx->bs, bufs[i]);
  free(s);
}

attngen_status attngen__skip_state_new(attngen_context *c, const attngen_fwd_args *a,
                                      int block_m, int block_n, float threshold_log2,
                                      const char *variant, attngen_skip_state **out) {
  *out = NULL;
  attngen_status st = check_threshold(threshold_log2);
  if (st != ATTNGEN_STATUS_OK) return st;
  if (block_m <= 0 || block_n <= 0)
    return attngen__fail(ATTNGEN_STATUS_INVALID_ARGUMENT,
                         "%s = %d (allowed: 0 = the variant's, or a positive tile size)",
                         block_m <= 0 ? "block_m" : "block_n", block_m <= 0 ? block_m : block_n);
  attngen_skip_state *s = calloc(1, sizeof *s);
  if (!s)
    return attngen__fail(ATTNGEN_STATUS_OUT_OF_MEMORY,
                         "attngen_skip_state_create: out of memory");
  s->ctx = c;
  s->batch = a->batch;
  s->heads = a->heads;
  s->seqlen_q = a->seqlen_q;
  s->seqlen_kv = a->seqlen_kv;
  s->block_m = block_m;
  s->block_n = block_n;
  s->grid = attngen__skip_grid_of(a->seqlen_q, a->seqlen_kv, block_m, block_n);
  s->words = (size_t)a->batch * a->heads * s->grid.nqt * s->grid.nw;
  s->threshold = threshold_log2;
  s->fresh = 1;
  snprintf(s->variant, sizeof s->variant, "%s", variant);
  const size_t bytes = (s->words ? s->words : 1) * sizeof(uint32_t);
  void *p0 = NULL, *p1 = NULL, *pc = NULL;
  st = c->be->mem_alloc(c->bs, bytes, &p0);
  if (st == ATTNGEN_STATUS_OK) st = c->be->mem_alloc(c->bs, bytes, &p1);
  /* the counter: skipped and visited tiles; then the sm90 skip kernels' job counter and a
   * spare word (kargs.h skip_count), zeroed before each call */
  if (st == ATTNGEN_STATUS_OK) st = c->be->mem_alloc(c->bs, 4 * sizeof(uint32_t), &pc);
  s->lists[0] = p0;
  s->lists[1] = p1;
  s->count = pc;
  if (st == ATTNGEN_STATUS_OK) st = c->be->memset(c->bs, pc, 0, 4 * sizeof(uint32_t));
  if (st != ATTNGEN_STATUS_OK) {
    free_state(s);
    return st;
  }
  *out = s;
  return ATTNGEN_STATUS_OK;
}

void attngen_skip_state_destroy(attngen_skip_state *s) {
  if (!s) return;
  if (s->launched) s->ctx->be->synchronize(s->ctx->bs, s->stream);
  free_state(s);
}

attngen_status attngen_skip_state_reset(attngen_skip_state *s) {
  attngen__clear_error();
  if (!s)
    return attngen__fail(ATTNGEN_STATUS_NULL_POINTER, "attngen_skip_state_reset: state is NULL");
  s->fresh = 1;
  s->calls = 0;
  return ATTNGEN_STATUS_OK;
}

attngen_status attngen_skip_state_set_threshold(attngen_skip_state *s, float threshold_log2) {
  attngen__clear_error();
  if (!s)
    return attngen__fail(ATTNGEN_STATUS_NULL_POINTER,
                         "attngen_skip_state_set_threshold: state is NULL");
  attngen_status st = check_threshold(threshold_log2);
  if (st == ATTNGEN_STATUS_OK) s->threshold = threshold_log2;
  return st;
}

/* Waits for the last call that used the state (its lists may still be read or written). */
static attngen_status wait_last(attngen_skip_state *s) {
  return s->launched ? s->ctx->be->synchronize(s->ctx->bs, s->stream) : ATTNGEN_STATUS_OK;
}

static attngen_status check_which(attngen_skip_list which, const char *fn) {
  if (which != ATTNGEN_SKIP_MUST_SKIP && which != ATTNGEN_SKIP_MUST_DO &&
      which != ATTNGEN_SKIP_NEXT_READ)
    return attngen__fail(ATTNGEN_STATUS_INVALID_ARGUMENT,
                         "%s: which = %d (allowed: ATTNGEN_SKIP_MUST_SKIP = 0, "
                         "ATTNGEN_SKIP_MUST_DO = 1, ATTNGEN_SKIP_NEXT_READ = 2)", fn, (int)which);
  return ATTNGEN_STATUS_OK;
}

attngen_status attngen_skip_state_set_list(attngen_skip_state *s, attngen_skip_list which,
                                           const uint32_t *words) {
  attngen__clear_error();
  if (!s)
    return attngen__fail(ATTNGEN_STATUS_NULL_POINTER, "attngen_skip_state_set_list: state is NULL");
  attngen_status st = check_which(which, "attngen_skip_state_set_list");
  if (st == ATTNGEN_STATUS_OK) st = wait_last(s);
  if (st != ATTNGEN_STATUS_OK) return st;
  const attngen__backend_ops *be = s->ctx->be;
  const size_t bytes = s->words * sizeof(uint32_t);
  if (which == ATTNGEN_SKIP_NEXT_READ) {
    if (!words) {
      s->fresh = 1;
      return ATTNGEN_STATUS_OK;
    }
    if (bytes && (st = be->memcpy_htod(s->ctx->bs, s->lists[s->cur], words, bytes)))
      return st;
    s->fresh = 0;
    return ATTNGEN_STATUS_OK;
  }
  uint32_t **mask = which == ATTNGEN_SKIP_MUST_SKIP ? &s->must_skip : &s->must_do;
  if (!words) {
    if (*mask) st = be->mem_free(s->ctx->bs, *mask);
    *mask = NULL;
    return st;
  }
  if (!*mask) {
    void *p = NULL;
    if ((st = be->mem_alloc(s->ctx->bs, bytes ? bytes : sizeof(uint32_t), &p))) return st;
    *mask = p;
  }
  return bytes ? be->memcpy_htod(s->ctx->bs, *mask, words, bytes) : ATTNGEN_STATUS_OK;
}

attngen_status attngen_skip_state_get_list(attngen_skip_state *s, attngen_skip_list which,
                                           uint32_t *words) {
  attngen__clear_error();
  if (!s || !words)
    return attngen__fail(ATTNGEN_STATUS_NULL_POINTER, "attngen_skip_state_get_list: %s is NULL",
                         !s ? "state" : "words");
  attngen_status st = check_which(which, "attngen_skip_state_get_list");
  if (st == ATTNGEN_STATUS_OK) st = wait_last(s);
  if (st != ATTNGEN_STATUS_OK) return st;
  const uint32_t *src = which == ATTNGEN_SKIP_MUST_SKIP ? s->must_skip
                        : which == ATTNGEN_SKIP_MUST_DO ? s->must_do
                        : s->fresh                      ? NULL
                                                        : s->lists[s->cur];
  const size_t bytes = s->words * sizeof(uint32_t);
  if (!src) {
    memset(words, 0, bytes);
    return ATTNGEN_STATUS_OK;
  }
  return bytes ? s->ctx->be->memcpy_dtoh(s->ctx->bs, words, src, bytes) : ATTNGEN_STATUS_OK;
}

attngen_status attngen_skip_state_info(const attngen_skip_state *s, attngen_skip_info *out) {
  attngen__clear_error();
  if (!s || !out)
    return attngen__fail(ATTNGEN_STATUS_NULL_POINTER, "attngen_skip_state_info: %s is NULL",
                         !s ? "state" : "out");
  memset(out, 0, sizeof *out);
  out->batch = s->batch;
  out->heads = s->heads;
  out->seqlen_q = s->seqlen_q;
  out->seqlen_kv = s->seqlen_kv;
  out->block_m = s->block_m;
  out->block_n = s->block_n;
  out->q_tiles = s->grid.nqt;
  out->kv_tiles = s->grid.nkt;
  out->words_per_q_tile = s->grid.nw;
  out->words = s->words;
  out->threshold_log2 = s->threshold;
  snprintf(out->variant, sizeof out->variant, "%s", s->variant);
  out->calls = s->calls;
  return ATTNGEN_STATUS_OK;
}

attngen_status attngen_skip_state_stats(attngen_skip_state *s, uint64_t *skipped,
                                        uint64_t *visited, double *skipped_fraction) {
  attngen__clear_error();
  if (!s)
    return attngen__fail(ATTNGEN_STATUS_NULL_POINTER, "attngen_skip_state_stats: state is NULL");
  uint32_t count[2] = {0, 0};
  if (s->calls > 0) {
    attngen_status st = wait_last(s);
    if (st == ATTNGEN_STATUS_OK)
      st = s->ctx->be->memcpy_dtoh(s->ctx->bs, count, s->count, sizeof count);
    if (st != ATTNGEN_STATUS_OK) return st;
  }
  if (skipped) *skipped = count[0];
  if (visited) *visited = count[1];
  if (skipped_fraction) *skipped_fraction = count[1] ? (double)count[0] / count[1] : 0.0;
  return ATTNGEN_STATUS_OK;
}

/* ---- around a call ---------------------------------------------------------------------- */

attngen_status attngen__skip_check_call(const attngen_context *c, const attngen_fwd_args *a) {
  const attngen_skip_state *s = a->skip;
  if (!s) return ATTNGEN_STATUS_OK;
  if (s->ctx != c)
    return attngen__fail(ATTNGEN_STATUS_INVALID_ARGUMENT,
                         "args.skip was created on another context (allowed: a state of this "
                         "call's context)");
  if (a->cu_seqlens_q || a->cu_seqlens_k)
    return attngen__fail(ATTNGEN_STATUS_INVALID_ARGUMENT,
                         "args.skip with args.cu_seqlens_q: tile skipping does not take packed "
                         "batches (allowed: args.skip = NULL)");
  if (s->batch != a->batch || s->heads != a->heads || s->seqlen_q != a->seqlen_q ||
      s->seqlen_kv != a->seqlen_kv)
    return attngen__fail(ATTNGEN_STATUS_BAD_SHAPE,
                         "args.skip was made for batch %d, heads %d, seqlen_q %d, seqlen_kv %d "
                         "and the call is %d, %d, %d, %d (allowed: a state of the call's shape)",
                         s->batch, s->heads, s->seqlen_q, s->seqlen_kv, a->batch, a->heads,
                         a->seqlen_q, a->seqlen_kv);
  return ATTNGEN_STATUS_OK;
}

attngen_status attngen__skip_check_grid(const attngen_skip_state *s, const char *variant,
                                        int block_m, int kv_tile) {
  if (s->block_m == block_m && s->block_n == kv_tile) return ATTNGEN_STATUS_OK;
  return attngen__fail(ATTNGEN_STATUS_INVALID_ARGUMENT,
                       "args.skip has the tile grid %d x %d (of %s) and the call runs %s, whose "
                       "grid is %d x %d (allowed: a state created for the variant that runs; "
                       "force one with args.variant, or create the state again)",
                       s->block_m, s->block_n, s->variant, variant, block_m, kv_tile);
}

attngen_status attngen__skip_check_kernel(const attngen_skip_state *s,
                                          const attngen__variant_desc *d) {
  if (d->target == ATTNGEN__TARGET_SM90 && s->grid.nw > ATTNGEN__SKIP_SM90_MAX_WORDS)
    return attngen__fail(ATTNGEN_STATUS_INVALID_ARGUMENT,
                         "args.skip: seqlen_kv %d is %d KV tiles of %d keys; the sm90 skip "
                         "kernels take at most %d (allowed: seqlen_kv <= %d)",
                         s->seqlen_kv, s->grid.nkt, s->block_n, 32 * ATTNGEN__SKIP_SM90_MAX_WORDS,
                         32 * ATTNGEN__SKIP_SM90_MAX_WORDS * s->block_n);
  if (d->target == ATTNGEN__TARGET_GFX942 && s->grid.nw > ATTNGEN__SKIP_GFX942_MAX_WORDS)
    return attngen__fail(ATTNGEN_STATUS_INVALID_ARGUMENT,
                         "args.skip: seqlen_kv %d is %d KV tiles of %d keys; the gfx942 skip "
                         "kernels take at most %d (allowed: seqlen_kv <= %d)",
                         s->seqlen_kv, s->grid.nkt, s->block_n,
                         32 * ATTNGEN__SKIP_GFX942_MAX_WORDS,
                         32 * ATTNGEN__SKIP_GFX942_MAX_WORDS * s->block_n);
  if (s->words > 0xFFFFFFFFu)
    return attngen__fail(ATTNGEN_STATUS_INVALID_ARGUMENT,
                         "args.skip: %zu list words (batch x heads x q-tiles x words per q-tile); "
                         "the kernels index at most 2^32 - 1 (allowed: a smaller call)",
                         s->words);
  return ATTNGEN_STATUS_OK;
}

void attngen__skip_fill_kargs(const attngen_skip_state *s, attngen_kargs *k) {
  k->skip_read = s->fresh ? NULL : s->lists[s->cur];
  k->skip_write = s->lists[1 - s->cur];
  k->skip_must_skip = s->must_skip;
  k->skip_must_do = s->must_do;
  k->skip_count = s->count;
  k->skip_threshold_log2 = s->threshold;
  k->skip_nqt = s->grid.nqt;
  k->skip_nkt = s->grid.nkt;
  k->skip_nw = s->grid.nw;
}

void attngen__skip_fill_ref(const attngen_skip_state *s, attngen__ref_args *r) {
  r->skip_block_m = s->block_m;
  r->skip_block_n = s->block_n;
  r->skip_read = s->fresh ? NULL : s->lists[s->cur];
  r->skip_write = s->lists[1 - s->cur];
  r->skip_must_skip = s->must_skip;
  r->skip_must_do = s->must_do;
  r->skip_count = s->count;
  r->skip_threshold_log2 = s->threshold;
}

void attngen__skip_after_call(attngen_skip_state *s, void *stream) {
  s->cur = 1 - s->cur;
  s->fresh = 0;
  s->calls++;
  s->stream = stream;
  s->launched = 1;
}
