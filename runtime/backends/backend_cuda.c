/* backend_cuda.c: the CUDA driver API, loaded at run time. libcuda.so.1 is dlopen'ed;
 * only cuGetProcAddress is taken with dlsym, every other entry point is resolved through
 * it at the CUDA 12.0 ABI (so e.g. cuCtxSynchronize is the argument-less v2000 version
 * even under a CUDA 13 driver). No cuda.h: the few types and constants are defined here. */
#include <dlfcn.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "kargs_tma.h"
#include "status.h"
#include "variant.h"

typedef int CUresult;
typedef int CUdevice;
typedef unsigned long long CUdeviceptr;
typedef struct CUctx_st *CUcontext;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef struct CUstream_st *CUstream;
typedef struct CUevent_st *CUevent;

enum {
  CUDA_SUCCESS = 0,
  CUDA_ERROR_OUT_OF_MEMORY = 2,
  CUDA_ERROR_NO_DEVICE = 100,
  CUDA_ERROR_INVALID_DEVICE = 101,
  CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16,
  CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75,
  CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76,
  CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8,
  CU_STREAM_CAPTURE_STATUS_NONE = 0,
  CU_GET_PROC_ADDRESS_DEFAULT = 0,
  CU_GET_PROC_ADDRESS_SUCCESS = 0,
  CU_EVENT_DEFAULT = 0,
  /* cuda.h's CUtensorMap* enums (CUDA 12.0 ABI) */
  CU_TENSOR_MAP_DATA_TYPE_BFLOAT16 = 9,
  CU_TENSOR_MAP_INTERLEAVE_NONE = 0,
  CU_TENSOR_MAP_SWIZZLE_128B = 3,
  CU_TENSOR_MAP_L2_PROMOTION_L2_256B = 3,
  CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE = 0,
};

/* The ABI version requested from cuGetProcAddress for every symbol. */
#define ATTNGEN__CUDA_ABI 12000

typedef CUresult (*pfn_getproc_v2)(const char *symbol, void **pfn, int version,
                                   unsigned long long flags, int *status);

/* Every driver entry point used, with the signature of its CUDA 12.0 ABI version. */
#define ATTNGEN__CUDA_FUNCS(X)                                                             \
  X(cuInit, CUresult, (unsigned flags))                                                    \
  X(cuDriverGetVersion, CUresult, (int *v))                                                \
  X(cuGetErrorString, CUresult, (CUresult e, const char **s))                              \
  X(cuGetErrorName, CUresult, (CUresult e, const char **s))                                \
  X(cuDeviceGetCount, CUresult, (int *n))                                                  \
  X(cuDeviceGet, CUresult, (CUdevice *d, int ordinal))                                     \
  X(cuDeviceGetName, CUresult, (char *name, int len, CUdevice d))                          \
  X(cuDeviceGetAttribute, CUresult, (int *v, int attr, CUdevice d))                        \
  X(cuDeviceTotalMem, CUresult, (size_t *bytes, CUdevice d))                               \
  X(cuDevicePrimaryCtxRetain, CUresult, (CUcontext *c, CUdevice d))                        \
  X(cuDevicePrimaryCtxRelease, CUresult, (CUdevice d))                                     \
  X(cuCtxSetCurrent, CUresult, (CUcontext c))                                              \
  X(cuCtxSynchronize, CUresult, (void))                                                    \
  X(cuStreamSynchronize, CUresult, (CUstream s))                                           \
  X(cuStreamIsCapturing, CUresult, (CUstream s, int *status))                              \
  X(cuModuleLoadData, CUresult, (CUmodule *m, const void *image))                          \
  X(cuModuleUnload, CUresult, (CUmodule m))                                                \
  X(cuModuleGetFunction, CUresult, (CUfunction *f, CUmodule m, const char *name))          \
  X(cuFuncSetAttribute, CUresult, (CUfunction f, int attr, int value))                     \
  X(cuLaunchKernel, CUresult, (CUfunction f, unsigned gx, unsigned gy, unsigned gz,        \
                               unsigned bx, unsigned by, unsigned bz, unsigned smem,       \
                               CUstream s, void **params, void **extra))                   \
  X(cuMemAlloc, CUresult, (CUdeviceptr *p, size_t bytes))                                  \
  X(cuMemFree, CUresult, (CUdeviceptr p))                                                  \
  X(cuMemcpyHtoD, CUresult, (CUdeviceptr dst, const void *src, size_t bytes))              \
  X(cuMemcpyDtoH, CUresult, (void *dst, CUdeviceptr src, size_t bytes))                    \
  X(cuMemsetD8, CUresult, (CUdeviceptr dst, unsigned char v, size_t n))                    \
  X(cuMemsetD8Async, CUresult, (CUdeviceptr dst, unsigned char v, size_t n, CUstream s))   \
  X(cuEventCreate, CUresult, (CUevent *e, unsigned flags))                                 \
  X(cuEventRecord, CUresult, (CUevent e, CUstream s))                                      \
  X(cuEventSynchronize, CUresult, (CUevent e))                                             \
  X(cuEventElapsedTime, CUresult, (float *ms, CUevent a, CUevent b))                       \
  X(cuEventDestroy, CUresult, (CUevent e))                                                 \
  X(cuTensorMapEncodeTiled, CUresult,                                                      \
    (attngen_tensor_map * map, int dtype, unsigned rank, void *addr,                       \
     const unsigned long long *dims, const unsigned long long *strides,                    \
     const unsigned *box, const unsigned *elem_strides, int interleave, int swizzle,       \
     int l2_promotion, int oob_fill))

typedef struct cuda_api {
  void *lib;
#define ATTNGEN__CUDA_FIELD(name, ret, args) ret(*name) args;
  ATTNGEN__CUDA_FUNCS(ATTNGEN__CUDA_FIELD)
#undef ATTNGEN__CUDA_FIELD
} cuda_api;

typedef struct cuda_state {
  CUdevice dev;
  CUcontext ctx;
} cuda_state;

static cuda_api api;
static pthread_once_t api_once = PTHREAD_ONCE_INIT;
static attngen_status api_status = ATTNGEN_STATUS_INTERNAL;
static char api_error[512];

static void api_load(void) {
  static const char *const names[] = {"libcuda.so.1", "libcuda.so"};
  char tried[256];
  api.lib = attngen__dlopen_first(names, 2, NULL, tried, sizeof tried);
  if (!api.lib) {
    snprintf(api_error, sizeof api_error, "cuda: the driver library is not installed (tried %s)",
             tried);
    api_status = ATTNGEN_STATUS_NO_BACKEND;
    return;
  }
  pfn_getproc_v2 getproc = (pfn_getproc_v2)dlsym(api.lib, "cuGetProcAddress_v2");
  if (!getproc) {
    snprintf(api_error, sizeof api_error,
             "cuda: libcuda has no cuGetProcAddress_v2 (driver older than CUDA 12.0)");
    api_status = ATTNGEN_STATUS_NO_BACKEND;
    return;
  }
#define ATTNGEN__CUDA_RESOLVE(name, ret, args)                                              \
  {                                                                                         \
    void *p = NULL;                                                                         \
    int found = -1;                                                                         \
    CUresult r = getproc(#name, &p, ATTNGEN__CUDA_ABI, CU_GET_PROC_ADDRESS_DEFAULT, &found); \
    if (r != CUDA_SUCCESS || found != CU_GET_PROC_ADDRESS_SUCCESS || !p) {                  \
      snprintf(api_error, sizeof api_error,                                                 \
               "cuda: driver entry point %s (ABI %d) not found (error %d, status %d)", #name, \
               ATTNGEN__CUDA_ABI, r, found);                                                \
      api_status = ATTNGEN_STATUS_NO_BACKEND;                                               \
      return;                                                                               \
    }                                                                                       \
    *(void **)&api.name = p;                                                                \
  }
  ATTNGEN__CUDA_FUNCS(ATTNGEN__CUDA_RESOLVE)
#undef ATTNGEN__CUDA_RESOLVE
  CUresult r = api.cuInit(0);
  if (r == CUDA_ERROR_NO_DEVICE) {
    snprintf(api_error, sizeof api_error, "cuda: no CUDA device (cuInit: CUDA_ERROR_NO_DEVICE)");
    api_status = ATTNGEN_STATUS_NO_DEVICE;
    return;
  }
  if (r != CUDA_SUCCESS) {
    const char *s = NULL;
    api.cuGetErrorString(r, &s);
    snprintf(api_error, sizeof api_error, "cuda: cuInit failed: %s (%d)", s ? s : "?", r);
    api_status = ATTNGEN_STATUS_NO_DEVICE;
    return;
  }
  api_status = ATTNGEN_STATUS_OK;
}

/* Turns a driver error into a status with "cuda: WHAT: message (NAME)". */
static attngen_status cuda_fail(attngen_status st, CUresult r, const char *what) {
  const char *name = NULL, *text = NULL;
  if (api.cuGetErrorName) api.cuGetErrorName(r, &name);
  if (api.cuGetErrorString) api.cuGetErrorString(r, &text);
  if (r == CUDA_ERROR_OUT_OF_MEMORY) st = ATTNGEN_STATUS_OUT_OF_MEMORY;
  return attngen__fail(st, "cuda: %s failed: %s (%s)", what, text ? text : "unknown error",
                       name ? name : "?");
}

#define CU_CHECK(call, status, what)                   \
  do {                                                 \
    CUresult r_ = (call);                              \
    if (r_ != CUDA_SUCCESS) return cuda_fail(status, r_, what); \
  } while (0)

static attngen_status make_current(cuda_state *s) {
  CU_CHECK(api.cuCtxSetCurrent(s->ctx), ATTNGEN_STATUS_BACKEND_ERROR, "cuCtxSetCurrent");
  return ATTNGEN_STATUS_OK;
}

static attngen_status cuda_open(int device, void **state, attngen_device_props *props) {
  pthread_once(&api_once, api_load);
  if (api_status != ATTNGEN_STATUS_OK) return attngen__fail(api_status, "%s", api_error);
  int count = 0;
  CU_CHECK(api.cuDeviceGetCount(&count), ATTNGEN_STATUS_NO_DEVICE, "cuDeviceGetCount");
  if (count == 0) return attngen__fail(ATTNGEN_STATUS_NO_DEVICE, "cuda: no CUDA device");
  if (device < 0 || device >= count)
    return attngen__fail(ATTNGEN_STATUS_NO_DEVICE, "cuda: device %d does not exist (allowed: 0..%d)",
                         device, count - 1);
  cuda_state *s = calloc(1, sizeof *s);
  if (!s) return attngen__fail(ATTNGEN_STATUS_OUT_OF_MEMORY, "cuda: out of host memory");
  CUresult r = api.cuDeviceGet(&s->dev, device);
  if (r == CUDA_SUCCESS) r = api.cuDevicePrimaryCtxRetain(&s->ctx, s->dev);
  if (r != CUDA_SUCCESS) {
    free(s);
    return cuda_fail(ATTNGEN_STATUS_NO_DEVICE, r, "opening the device");
  }
  r = api.cuCtxSetCurrent(s->ctx);
  if (r != CUDA_SUCCESS) {
    api.cuDevicePrimaryCtxRelease(s->dev);
    free(s);
    return cuda_fail(ATTNGEN_STATUS_BACKEND_ERROR, r, "cuCtxSetCurrent");
  }
  memset(props, 0, sizeof *props);
  snprintf(props->backend, sizeof props->backend, "cuda");
  api.cuDeviceGetName(props->name, (int)sizeof props->name, s->dev);
  int major = 0, minor = 0;
  api.cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, s->dev);
  api.cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, s->dev);
  api.cuDeviceGetAttribute(&props->compute_units, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, s->dev);
  api.cuDeviceTotalMem(&props->total_memory, s->dev);
  api.cuDriverGetVersion(&props->driver_version);
  snprintf(props->arch, sizeof props->arch, "sm_%d%d", major, minor);
  props->device = device;
  props->device_count = count;
  *state = s;
  return ATTNGEN_STATUS_OK;
}

static void cuda_close(void *st) {
  cuda_state *s = st;
  if (!s) return;
  if (api.cuCtxSetCurrent(s->ctx) == CUDA_SUCCESS) api.cuCtxSynchronize();
  api.cuDevicePrimaryCtxRelease(s->dev);
  free(s);
}

static attngen_status cuda_alloc(void *st, size_t bytes, void **ptr) {
  attngen_status rc = make_current(st);
  if (rc) return rc;
  CUdeviceptr p = 0;
  CU_CHECK(api.cuMemAlloc(&p, bytes ? bytes : 1), ATTNGEN_STATUS_OUT_OF_MEMORY, "cuMemAlloc");
  *ptr = (void *)(uintptr_t)p;
  return ATTNGEN_STATUS_OK;
}

static attngen_status cuda_free(void *st, void *ptr) {
  attngen_status rc = make_current(st);
  if (rc) return rc;
  if (ptr) CU_CHECK(api.cuMemFree((CUdeviceptr)(uintptr_t)ptr), ATTNGEN_STATUS_BACKEND_ERROR, "cuMemFree");
  return ATTNGEN_STATUS_OK;
}

static attngen_status cuda_htod(void *st, void *dst, const void *src, size_t bytes) {
  attngen_status rc = make_current(st);
  if (rc) return rc;
  CU_CHECK(api.cuMemcpyHtoD((CUdeviceptr)(uintptr_t)dst, src, bytes), ATTNGEN_STATUS_BACKEND_ERROR,
           "cuMemcpyHtoD");
  return ATTNGEN_STATUS_OK;
}

static attngen_status cuda_dtoh(void *st, void *dst, const void *src, size_t bytes) {
  attngen_status rc = make_current(st);
  if (rc) return rc;
  CU_CHECK(api.cuMemcpyDtoH(dst, (CUdeviceptr)(uintptr_t)src, bytes), ATTNGEN_STATUS_BACKEND_ERROR,
           "cuMemcpyDtoH");
  return ATTNGEN_STATUS_OK;
}

static attngen_status cuda_memset(void *st, void *dst, int byte, size_t bytes) {
  attngen_status rc = make_current(st);
  if (rc) return rc;
  CU_CHECK(api.cuMemsetD8((CUdeviceptr)(uintptr_t)dst, (unsigned char)byte, bytes),
           ATTNGEN_STATUS_BACKEND_ERROR, "cuMemsetD8");
  return ATTNGEN_STATUS_OK;
}

static attngen_status cuda_memset_async(void *st, void *dst, int byte, size_t bytes,
                                        void *stream) {
  attngen_status rc = make_current(st);
  if (rc) return rc;
  CU_CHECK(api.cuMemsetD8Async((CUdeviceptr)(uintptr_t)dst, (unsigned char)byte, bytes,
                               (CUstream)stream),
           ATTNGEN_STATUS_BACKEND_ERROR, "cuMemsetD8Async");
  return ATTNGEN_STATUS_OK;
}

static attngen_status cuda_sync(void *st, void *stream) {
  attngen_status rc = make_current(st);
  if (rc) return rc;
  CU_CHECK(api.cuStreamSynchronize((CUstream)stream), ATTNGEN_STATUS_BACKEND_ERROR,
           "cuStreamSynchronize");
  return ATTNGEN_STATUS_OK;
}

static attngen_status cuda_device_sync(void *st) {
  attngen_status rc = make_current(st);
  if (rc) return rc;
  CU_CHECK(api.cuCtxSynchronize(), ATTNGEN_STATUS_BACKEND_ERROR, "cuCtxSynchronize");
  return ATTNGEN_STATUS_OK;
}

static attngen_status cuda_capturing(void *st, void *stream, int *capturing) {
  attngen_status rc = make_current(st);
  if (rc) return rc;
  int status = 0;
  CUresult r = api.cuStreamIsCapturing((CUstream)stream, &status);
  /* An error here (e.g. the legacy stream while another stream captures) means a capture
   * is in progress somewhere that this call would disturb: treat it as capturing. */
  *capturing = r != CUDA_SUCCESS || status != CU_STREAM_CAPTURE_STATUS_NONE;
  return ATTNGEN_STATUS_OK;
}

static attngen_status cuda_module_load(void *st, const void *image, size_t size, void **module) {
  attngen_status rc = make_current(st);
  if (rc) return rc;
  CUmodule m = NULL;
  CU_CHECK(api.cuModuleLoadData(&m, image), ATTNGEN_STATUS_BACKEND_ERROR, "cuModuleLoadData");
  *module = m;
  return ATTNGEN_STATUS_OK;
}

static void cuda_module_unload(void *st, void *module) {
  if (module && make_current(st) == ATTNGEN_STATUS_OK) api.cuModuleUnload((CUmodule)module);
}

static attngen_status cuda_function(void *st, void *module, const char *name, int smem_bytes,
                                    void **fn) {
  attngen_status rc = make_current(st);
  if (rc) return rc;
  CUfunction f = NULL;
  CUresult r = api.cuModuleGetFunction(&f, (CUmodule)module, name);
  if (r != CUDA_SUCCESS) {
    return attngen__fail(ATTNGEN_STATUS_BACKEND_ERROR, "cuda: kernel %s not found in its module (%d)",
                         name, r);
  }
  /* Above 48 KiB of dynamic shared memory a kernel must opt in. */
  if (smem_bytes > 48 * 1024)
    CU_CHECK(api.cuFuncSetAttribute(f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, smem_bytes),
             ATTNGEN_STATUS_BACKEND_ERROR, "cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES)");
  *fn = f;
  return ATTNGEN_STATUS_OK;
}

static attngen_status cuda_launch(void *st, void *fn, const unsigned grid[3], unsigned threads,
                                  unsigned smem_bytes, void *stream, const attngen_kargs *k) {
  attngen_status rc = make_current(st);
  if (rc) return rc;
  attngen_kargs copy = *k;
  void *params[] = {&copy};
  CU_CHECK(api.cuLaunchKernel((CUfunction)fn, grid[0], grid[1], grid[2], threads, 1, 1, smem_bytes,
                              (CUstream)stream, params, NULL),
           ATTNGEN_STATUS_LAUNCH_FAILED, "cuLaunchKernel");
  return ATTNGEN_STATUS_OK;
}

/* The kernel parameter's layout must be the same on both sides: the device code sees
 * attngen_kargs_tma from the same header. */
_Static_assert(sizeof(attngen_tensor_map) == 128, "CUtensorMap is 128 bytes");
_Static_assert(_Alignof(attngen_kargs_tma) == 128, "tensor maps are 128-byte aligned");
_Static_assert(offsetof(attngen_kargs_tma, q) == 384 && sizeof(attngen_kargs_tma) == 896,
               "attngen_kargs_tma layout");

/* One 4D map (d, sequence, head, batch) of a bf16 tensor [B,S,H,D] by index with element
 * strides sb, ss, sh (the call's, kargs.h; the last dimension unit-stride): boxes of 64
 * columns x box_rows rows, 128-byte swizzle, out-of-bounds rows read as zeros. The host
 * keeps the strides multiples of 16 bytes and below 2^40 bytes (dispatch.c); a dimension of
 * extent 1 is never stepped, so a 0 stride there (a packed batch's) is encoded as one row.
 * An empty tensor (S = 0) keeps an all-zero map, which the kernels never use. */
static attngen_status encode_map(attngen_tensor_map *m, const char *what, const void *base,
                                 int B, int H, int S, int D, long long sb, long long ss,
                                 long long sh, int box_rows) {
  memset(m, 0, sizeof *m);
  if (S <= 0 || B <= 0 || H <= 0) return ATTNGEN_STATUS_OK;
  const unsigned long long row = (unsigned long long)D * 2; /* bytes of one (b, s, h) row */
  const unsigned long long dims[4] = {(unsigned long long)D, (unsigned long long)S, (unsigned long long)H,
                                      (unsigned long long)B};
  /* bytes between steps of dims 1..3 */
  const unsigned long long strides[3] = {ss > 0 ? (unsigned long long)ss * 2 : row,
                                         sh > 0 ? (unsigned long long)sh * 2 : row,
                                         sb > 0 ? (unsigned long long)sb * 2 : row};
  const unsigned box[4] = {64, (unsigned)box_rows, 1, 1};
  const unsigned elem_strides[4] = {1, 1, 1, 1};
  CUresult r = api.cuTensorMapEncodeTiled(m, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 4, (void *)base,
                                          dims, strides, box, elem_strides,
                                          CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
                                          CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                                          CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS) {
    const char *s = NULL;
    api.cuGetErrorString(r, &s);
    return attngen__fail(ATTNGEN_STATUS_LAUNCH_FAILED,
                         "cuda: cuTensorMapEncodeTiled of %s (%p, %dx%dx%d rows, box %d rows) "
                         "failed: %s (%d)", what, base, B, H, S, box_rows, s ? s : "?", r);
  }
  return ATTNGEN_STATUS_OK;
}

static attngen_status cuda_launch_tma(void *st, void *fn, const unsigned grid[3], unsigned threads,
                                      unsigned smem_bytes, void *stream, const attngen_kargs *k,
                                      const attngen__tma_boxes *boxes) {
  attngen_status rc = make_current(st);
  if (rc) return rc;
  attngen_kargs_tma p;
  memset(&p, 0, sizeof p);
  p.a = *k;
  /* The maps carry the call's strides (kargs.h), so any view the host accepts is read and
   * written in place. k and v have H_kv heads (grouped-query calls: fewer than q's H); the
   * kernels address them by KV head. A packed batch (k->cu_q) is one batch entry of total rows: the kernels
   * add each sequence's first row to the row coordinate. */
  const int packed = k->cu_q != NULL;
  const int nb = packed ? 1 : k->B;
  const int sq = packed ? k->total_q : k->Sq, skv = packed ? k->total_kv : k->Skv;
  if ((rc = encode_map(&p.q, "q", k->q, nb, k->H, sq, boxes->head_dim, k->q_sb, k->q_ss,
                       k->q_sh, boxes->q_rows)) ||
      (rc = encode_map(&p.k, "k", k->k, nb, k->H_kv, skv, boxes->head_dim, k->k_sb, k->k_ss,
                       k->k_sh, boxes->kv_rows)) ||
      (rc = encode_map(&p.v, "v", k->v, nb, k->H_kv, skv, boxes->head_dim, k->v_sb, k->v_ss,
                       k->v_sh, boxes->kv_rows)) ||
      (rc = encode_map(&p.o, "o", k->o, nb, k->H, sq, boxes->head_dim, k->o_sb, k->o_ss,
                       k->o_sh, boxes->o_rows)))
    return rc;
  void *params[] = {&p};
  CU_CHECK(api.cuLaunchKernel((CUfunction)fn, grid[0], grid[1], grid[2], threads, 1, 1, smem_bytes,
                              (CUstream)stream, params, NULL),
           ATTNGEN_STATUS_LAUNCH_FAILED, "cuLaunchKernel");
  return ATTNGEN_STATUS_OK;
}

static attngen_status cuda_event_create(void *st, void **ev) {
  attngen_status rc = make_current(st);
  if (rc) return rc;
  CUevent e = NULL;
  CU_CHECK(api.cuEventCreate(&e, CU_EVENT_DEFAULT), ATTNGEN_STATUS_BACKEND_ERROR, "cuEventCreate");
  *ev = e;
  return ATTNGEN_STATUS_OK;
}

static attngen_status cuda_event_record(void *st, void *ev, void *stream) {
  attngen_status rc = make_current(st);
  if (rc) return rc;
  CU_CHECK(api.cuEventRecord((CUevent)ev, (CUstream)stream), ATTNGEN_STATUS_BACKEND_ERROR,
           "cuEventRecord");
  return ATTNGEN_STATUS_OK;
}

static attngen_status cuda_event_elapsed(void *st, void *start, void *end, float *ms) {
  attngen_status rc = make_current(st);
  if (rc) return rc;
  CU_CHECK(api.cuEventSynchronize((CUevent)end), ATTNGEN_STATUS_BACKEND_ERROR, "cuEventSynchronize");
  CU_CHECK(api.cuEventElapsedTime(ms, (CUevent)start, (CUevent)end), ATTNGEN_STATUS_BACKEND_ERROR,
           "cuEventElapsedTime");
  return ATTNGEN_STATUS_OK;
}

static void cuda_event_destroy(void *st, void *ev) {
  if (ev && make_current(st) == ATTNGEN_STATUS_OK) api.cuEventDestroy((CUevent)ev);
}

const attngen__backend_ops attngen__backend_cuda = {
  .name = "cuda",
  .kind = ATTNGEN__BACKEND_GPU,
  .target = ATTNGEN__TARGET_SM90,
  .open = cuda_open,
  .close = cuda_close,
  .mem_alloc = cuda_alloc,
  .mem_free = cuda_free,
  .memcpy_htod = cuda_htod,
  .memcpy_dtoh = cuda_dtoh,
  .memset = cuda_memset,
  .memset_async = cuda_memset_async,
  .synchronize = cuda_sync,
  .synchronize_device = cuda_device_sync,
  .stream_capturing = cuda_capturing,
  .module_load = cuda_module_load,
  .module_unload = cuda_module_unload,
  .function = cuda_function,
  .launch = cuda_launch,
  .launch_tma = cuda_launch_tma,
  .event_create = cuda_event_create,
  .event_record = cuda_event_record,
  .event_elapsed = cuda_event_elapsed,
  .event_destroy = cuda_event_destroy,
  .reference = NULL,
};
