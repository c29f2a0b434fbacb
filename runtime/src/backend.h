/* backend.h: the one internal function table behind which every backend sits (cuda, hip:
 * vendor libraries loaded with dlopen; emu: the gfx942 emulator; cpu: the fp32 reference).
 * A backend's state is opaque to the rest of the runtime. Functions return a status and
 * set the last-error text on failure. Pointers are device pointers for GPU backends and
 * host pointers for emu/cpu; streams are CUstream / hipStream_t (ignored on the host). */
#ifndef ATTNGEN_BACKEND_H
#define ATTNGEN_BACKEND_H
#include <stddef.h>

#include "attngen.h"
#include "kargs.h"

typedef enum attngen__backend_kind {
  ATTNGEN__BACKEND_GPU = 0, /* code objects: module_load + function + launch */
  ATTNGEN__BACKEND_EMU = 1, /* host-compiled kernels found by name: function + launch */
  ATTNGEN__BACKEND_CPU = 2  /* no kernels: reference() */
} attngen__backend_kind;

/* The tensor-map geometry of a load=tma kernel (kargs_tma.h): the backend encodes 4D maps
 * (d, sequence, head, batch) of q, k, v and o over the call's tensors with the call's
 * strides (kargs.h q_sb ...), boxes of 64 columns x *_rows rows, 128-byte swizzle. */
typedef struct attngen__tma_boxes {
  int q_rows;  /* rows of a q box (block_m) */
  int kv_rows; /* rows of a k or v box (kv_tile) */
  int o_rows;  /* rows of an o box (the rows one consumer warpgroup stores) */
  int head_dim; /* d extent of every map (a multiple of the 64-column box) */
} attngen__tma_boxes;

typedef struct attngen__backend_ops {
  const char *name;
  int kind;   /* attngen__backend_kind */
  int target; /* attngen__target of the kernels it runs; -1 for cpu */
  /* Loads the library, opens device `device`, fills *props. NO_BACKEND when the library is
   * missing, NO_DEVICE when it has no (such) device. */
  attngen_status (*open)(int device, void **state, attngen_device_props *props);
  void (*close)(void *state); /* synchronizes, releases everything */
  attngen_status (*mem_alloc)(void *st, size_t bytes, void **ptr);
  attngen_status (*mem_free)(void *st, void *ptr);
  attngen_status (*memcpy_htod)(void *st, void *dst, const void *src, size_t bytes);
  attngen_status (*memcpy_dtoh)(void *st, void *dst, const void *src, size_t bytes);
  attngen_status (*memset)(void *st, void *dst, int byte, size_t bytes);
  /* As memset, queued on `stream` (returns without waiting; capturable in a graph). */
  attngen_status (*memset_async)(void *st, void *dst, int byte, size_t bytes, void *stream);
  attngen_status (*synchronize)(void *st, void *stream);
  attngen_status (*synchronize_device)(void *st); /* every stream of the device */
  /* *capturing = 1 when the stream records a graph (JIT must not run then). */
  attngen_status (*stream_capturing)(void *st, void *stream, int *capturing);
  /* GPU: loads a code object / cubin. */
  attngen_status (*module_load)(void *st, const void *image, size_t size, void **module);
  void (*module_unload)(void *st, void *module);
  /* Looks up kernel `name` in `module` (GPU) or among the built-in kernels (emu, module
   * NULL); raises the dynamic shared memory limit when smem_bytes needs it. */
  attngen_status (*function)(void *st, void *module, const char *name, int smem_bytes,
                             void **fn);
  attngen_status (*launch)(void *st, void *fn, const unsigned grid[3], unsigned threads,
                           unsigned smem_bytes, void *stream, const attngen_kargs *k);
  /* As launch, for kernels whose parameter is attngen_kargs_tma: encodes the tensor maps of
   * `boxes` over k's tensors and passes them with k. NULL: the backend runs no such kernel. */
  attngen_status (*launch_tma)(void *st, void *fn, const unsigned grid[3], unsigned threads,
                               unsigned smem_bytes, void *stream, const attngen_kargs *k,
                               const attngen__tma_boxes *boxes);
  attngen_status (*event_create)(void *st, void **ev);
  attngen_status (*event_record)(void *st, void *ev, void *stream);
  attngen_status (*event_elapsed)(void *st, void *start, void *end, float *ms);
  void (*event_destroy)(void *st, void *ev);
  /* cpu only: runs the reference on host pointers (arguments already validated). */
  attngen_status (*reference)(void *st, const attngen_fwd_args *a);
} attngen__backend_ops;

extern const attngen__backend_ops attngen__backend_cuda;
extern const attngen__backend_ops attngen__backend_hip;
extern const attngen__backend_ops attngen__backend_emu;
extern const attngen__backend_ops attngen__backend_cpu;

/* By name ("cuda", "hip", "emu", "cpu"); NULL when unknown. */
const attngen__backend_ops *attngen__backend_find(const char *name);

/* The i-th backend of the registry (cuda, hip, emu, cpu), NULL past the end. */
const attngen__backend_ops *attngen__backend_at(size_t i);

/* 1 when name is "auto" or a backend's name; the allowed names as "auto, cuda, hip, ...". */
int attngen__backend_name_ok(const char *name);
const char *attngen__backend_names(void);
/* The GPU backends tried by "auto", in order. */
extern const attngen__backend_ops *const attngen__backend_auto_order[];
extern const size_t attngen__backend_auto_count;

/* Host-memory helpers shared by the emu and cpu backends. */
attngen_status attngen__host_alloc(void *st, size_t bytes, void **ptr);
attngen_status attngen__host_free(void *st, void *ptr);
attngen_status attngen__host_copy(void *st, void *dst, const void *src, size_t bytes);
attngen_status attngen__host_memset(void *st, void *dst, int byte, size_t bytes);
attngen_status attngen__host_memset_async(void *st, void *dst, int byte, size_t bytes,
                                          void *stream);
attngen_status attngen__host_sync(void *st, void *stream);
attngen_status attngen__host_device_sync(void *st);
attngen_status attngen__host_not_capturing(void *st, void *stream, int *capturing);
attngen_status attngen__host_event_create(void *st, void **ev);
attngen_status attngen__host_event_record(void *st, void *ev, void *stream);
attngen_status attngen__host_event_elapsed(void *st, void *start, void *end, float *ms);
void attngen__host_event_destroy(void *st, void *ev);

/* The operations the host backends (cpu, emu) share, as designated initializers of an
 * attngen__backend_ops: host memory, nothing asynchronous, host-clock events. */
#define ATTNGEN__HOST_BACKEND_OPS                                                             \
  .mem_alloc = attngen__host_alloc, .mem_free = attngen__host_free,                          \
  .memcpy_htod = attngen__host_copy, .memcpy_dtoh = attngen__host_copy,                      \
  .memset = attngen__host_memset, .memset_async = attngen__host_memset_async,                \
  .synchronize = attngen__host_sync,                                                         \
  .synchronize_device = attngen__host_device_sync,                                           \
  .stream_capturing = attngen__host_not_capturing,                                           \
  .event_create = attngen__host_event_create, .event_record = attngen__host_event_record,    \
  .event_elapsed = attngen__host_event_elapsed, .event_destroy = attngen__host_event_destroy

/* dlopen the first of `names` that loads (RTLD_NOW | RTLD_LOCAL) and, when need_sym is not
 * NULL, exports need_sym (a library that loads without it is closed and the search goes on);
 * NULL if none. `tried` (if not NULL) receives the names tried, comma-separated. */
void *attngen__dlopen_first(const char *const *names, size_t n, const char *need_sym,
                            char *tried, size_t tried_len);

#endif /* ATTNGEN_BACKEND_H */
