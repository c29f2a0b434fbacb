/* memory.c: the public API's memory, stream, event and timing calls, each a checked
 * forward to the context's backend. */
#include "attngen.h"
#include "context.h"
#include "status.h"

#define NEED_CTX(fn)                                                                    \
  do {                                                                                  \
    attngen__clear_error();                                                             \
    if (!c) return attngen__fail(ATTNGEN_STATUS_NULL_POINTER, fn ": ctx is NULL");      \
  } while (0)

attngen_status attngen_malloc(attngen_context *c, size_t bytes, void **ptr) {
  NEED_CTX("attngen_malloc");
  if (!ptr) return attngen__fail(ATTNGEN_STATUS_NULL_POINTER, "attngen_malloc: ptr is NULL");
  *ptr = NULL;
  return c->be->mem_alloc(c->bs, bytes, ptr);
}

attngen_status attngen_free(attngen_context *c, void *ptr) {
  NEED_CTX("attngen_free");
  return ptr ? c->be->mem_free(c->bs, ptr) : ATTNGEN_STATUS_OK;
}

attngen_status attngen_memcpy_htod(attngen_context *c, void *dst, const void *src, size_t bytes) {
  NEED_CTX("attngen_memcpy_htod");
  if (bytes && (!dst || !src))
    return attngen__fail(ATTNGEN_STATUS_NULL_POINTER, "attngen_memcpy_htod: %s is NULL", !dst ? "dst" : "src");
  return bytes ? c->be->memcpy_htod(c->bs, dst, src, bytes) : ATTNGEN_STATUS_OK;
}

attngen_status attngen_memcpy_dtoh(attngen_context *c, void *dst, const void *src, size_t bytes) {
  NEED_CTX("attngen_memcpy_dtoh");
  if (bytes && (!dst || !src))
    return attngen__fail(ATTNGEN_STATUS_NULL_POINTER, "attngen_memcpy_dtoh: %s is NULL", !dst ? "dst" : "src");
  return bytes ? c->be->memcpy_dtoh(c->bs, dst, src, bytes) : ATTNGEN_STATUS_OK;
}

attngen_status attngen_memset(attngen_context *c, void *dst, int byte, size_t bytes) {
  NEED_CTX("attngen_memset");
  if (bytes && !dst) return attngen__fail(ATTNGEN_STATUS_NULL_POINTER, "attngen_memset: dst is NULL");
  return bytes ? c->be->memset(c->bs, dst, byte, bytes) : ATTNGEN_STATUS_OK;
}

attngen_status attngen_synchronize(attngen_context *c, void *stream) {
  NEED_CTX("attngen_synchronize");
  return c->be->synchronize(c->bs, stream);
}

attngen_status attngen_event_create(attngen_context *c, attngen_event **ev) {
  NEED_CTX("attngen_event_create");
  if (!ev) return attngen__fail(ATTNGEN_STATUS_NULL_POINTER, "attngen_event_create: ev is NULL");
  void *e = NULL;
  attngen_status st = c->be->event_create(c->bs, &e);
  *ev = st == ATTNGEN_STATUS_OK ? (attngen_event *)e : NULL;
  return st;
}

attngen_status attngen_event_record(attngen_context *c, attngen_event *ev, void *stream) {
  NEED_CTX("attngen_event_record");
  if (!ev) return attngen__fail(ATTNGEN_STATUS_NULL_POINTER, "attngen_event_record: ev is NULL");
  return c->be->event_record(c->bs, ev, stream);
}

attngen_status attngen_event_elapsed(attngen_context *c, attngen_event *start, attngen_event *end,
                                     float *ms) {
  NEED_CTX("attngen_event_elapsed");
  if (!start || !end || !ms)
    return attngen__fail(ATTNGEN_STATUS_NULL_POINTER, "attngen_event_elapsed: %s is NULL",
                         !start ? "start" : !end ? "end" : "ms");
  return c->be->event_elapsed(c->bs, start, end, ms);
}

void attngen_event_destroy(attngen_context *c, attngen_event *ev) {
  if (c && ev) c->be->event_destroy(c->bs, ev);
}

attngen_status attngen_time_fwd(attngen_context *c, const attngen_fwd_args *a, int iters, float *ms) {
  NEED_CTX("attngen_time_fwd");
  if (!ms) return attngen__fail(ATTNGEN_STATUS_NULL_POINTER, "attngen_time_fwd: ms is NULL");
  if (iters < 1)
    return attngen__fail(ATTNGEN_STATUS_INVALID_ARGUMENT, "attngen_time_fwd: iters = %d (allowed: >= 1)", iters);
  attngen_status st = attngen_fwd(c, a);
  if (st == ATTNGEN_STATUS_OK) st = attngen_synchronize(c, a->stream);
  if (st != ATTNGEN_STATUS_OK) return st;
  attngen_event *e0 = NULL, *e1 = NULL;
  if ((st = attngen_event_create(c, &e0)) == ATTNGEN_STATUS_OK &&
      (st = attngen_event_create(c, &e1)) == ATTNGEN_STATUS_OK &&
      (st = attngen_event_record(c, e0, a->stream)) == ATTNGEN_STATUS_OK) {
    for (int i = 0; i < iters && st == ATTNGEN_STATUS_OK; i++) st = attngen_fwd(c, a);
    if (st == ATTNGEN_STATUS_OK) st = attngen_event_record(c, e1, a->stream);
    float total = 0;
    if (st == ATTNGEN_STATUS_OK) st = attngen_event_elapsed(c, e0, e1, &total);
    if (st == ATTNGEN_STATUS_OK) *ms = total / (float)iters;
  }
  attngen_event_destroy(c, e0);
  attngen_event_destroy(c, e1);
  return st;
}
