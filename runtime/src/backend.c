/* backend.c: the backend registry and the host-memory helpers that emu and cpu share. */
#include "backend.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "status.h"

const attngen__backend_ops *const attngen__backend_auto_order[] = {
  &attngen__backend_cuda,
  &attngen__backend_hip,
};
const size_t attngen__backend_auto_count =
    sizeof attngen__backend_auto_order / sizeof attngen__backend_auto_order[0];

static const attngen__backend_ops *const all_backends[] = {
  &attngen__backend_cuda, &attngen__backend_hip, &attngen__backend_emu, &attngen__backend_cpu,
};
#define BACKEND_COUNT (sizeof all_backends / sizeof all_backends[0])

const attngen__backend_ops *attngen__backend_find(const char *name) {
  for (size_t i = 0; i < BACKEND_COUNT; i++)
    if (name && strcmp(all_backends[i]->name, name) == 0) return all_backends[i];
  return NULL;
}

const attngen__backend_ops *attngen__backend_at(size_t i) {
  return i < BACKEND_COUNT ? all_backends[i] : NULL;
}

int attngen__backend_name_ok(const char *name) {
  return name && (strcmp(name, "auto") == 0 || attngen__backend_find(name) != NULL);
}

static char backend_names[128];

static void fill_backend_names(void) {
  size_t n = (size_t)snprintf(backend_names, sizeof backend_names, "auto");
  for (size_t i = 0; i < BACKEND_COUNT && n < sizeof backend_names; i++)
    n += (size_t)snprintf(backend_names + n, sizeof backend_names - n, ", %s",
                          all_backends[i]->name);
}

const char *attngen__backend_names(void) {
  static pthread_once_t once = PTHREAD_ONCE_INIT;
  pthread_once(&once, fill_backend_names);
  return backend_names;
}

void *attngen__dlopen_first(const char *const *names, size_t n, const char *need_sym,
                            char *tried, size_t tried_len) {
  if (tried && tried_len) tried[0] = 0;
  for (size_t i = 0; i < n; i++) {
    if (!names[i] || !names[i][0]) continue;
    void *h = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
    const int lacks = h && need_sym && !dlsym(h, need_sym);
    if (h && !lacks) {
      attngen__log(ATTNGEN__LOG_DEBUG, "loaded %s", names[i]);
      return h;
    }
    if (h) dlclose(h);
    if (tried) {
      size_t len = strlen(tried);
      snprintf(tried + len, tried_len - len, "%s%s%s%s%s", len ? ", " : "", names[i],
               lacks ? " (loads, lacks " : "", lacks ? need_sym : "", lacks ? ")" : "");
    }
  }
  return NULL;
}

attngen_status attngen__host_alloc(void *st, size_t bytes, void **ptr) {
  /* 64-byte alignment satisfies the kernels' 16-byte requirement with room to spare. The
   * round-up must not wrap: (size_t)-1 would become a 64-byte block. */
  if (bytes > SIZE_MAX - 63)
    return attngen__fail(ATTNGEN_STATUS_OUT_OF_MEMORY,
                         "host allocation of %zu bytes is larger than the address space", bytes);
  size_t rounded = (bytes + 63) / 64 * 64;
  void *p = aligned_alloc(64, rounded ? rounded : 64);
  if (!p) return attngen__fail(ATTNGEN_STATUS_OUT_OF_MEMORY, "host allocation of %zu bytes failed", bytes);
  *ptr = p;
  return ATTNGEN_STATUS_OK;
}

attngen_status attngen__host_free(void *st, void *ptr) {
  free(ptr);
  return ATTNGEN_STATUS_OK;
}

attngen_status attngen__host_copy(void *st, void *dst, const void *src, size_t bytes) {
  if (bytes) memmove(dst, src, bytes);
  return ATTNGEN_STATUS_OK;
}

attngen_status attngen__host_memset(void *st, void *dst, int byte, size_t bytes) {
  if (bytes) memset(dst, byte, bytes);
  return ATTNGEN_STATUS_OK;
}

attngen_status attngen__host_memset_async(void *st, void *dst, int byte, size_t bytes,
                                          void *stream) {
  (void)stream; /* host backends run everything in call order */
  return attngen__host_memset(st, dst, byte, bytes);
}

attngen_status attngen__host_sync(void *st, void *stream) { return ATTNGEN_STATUS_OK; }

attngen_status attngen__host_device_sync(void *st) { return ATTNGEN_STATUS_OK; }

attngen_status attngen__host_not_capturing(void *st, void *stream, int *capturing) {
  *capturing = 0;
  return ATTNGEN_STATUS_OK;
}

/* Host "events" are timestamps: host backends run synchronously, so the time between two
 * records is the time of the work in between. */
attngen_status attngen__host_event_create(void *st, void **ev) {
  double *t = calloc(1, sizeof *t);
  if (!t) return attngen__fail(ATTNGEN_STATUS_OUT_OF_MEMORY, "event allocation failed");
  *ev = t;
  return ATTNGEN_STATUS_OK;
}

attngen_status attngen__host_event_record(void *st, void *ev, void *stream) {
  *(double *)ev = attngen__now();
  return ATTNGEN_STATUS_OK;
}

attngen_status attngen__host_event_elapsed(void *st, void *start, void *end, float *ms) {
  *ms = (float)((*(double *)end - *(double *)start) * 1e3);
  return ATTNGEN_STATUS_OK;
}

void attngen__host_event_destroy(void *st, void *ev) { free(ev); }
