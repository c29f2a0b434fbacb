/* backend_hip.c: the HIP runtime (module API), loaded at run time with dlopen. No HIP
 * headers: the few types and constants are defined here (enum values from ROCm 6's
 * hip_runtime_api.h, unchanged since ROCm 5). Without an AMD GPU it fails with NO_BACKEND
 * (no libamdhip64) or NO_DEVICE (hipInit / hipGetDeviceCount find none: the message says
 * why); tests/test_rocm.c runs it against Debian's libamdhip64.so.5 in the trixie root. */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend.h"
#include "status.h"
#include "variant.h"

typedef int hipError_t;
typedef struct ihipModule_t *hipModule_t;
typedef struct ihipModuleSymbol_t *hipFunction_t;
typedef struct ihipStream_t *hipStream_t;
typedef struct ihipEvent_t *hipEvent_t;

enum {
  hipSuccess = 0,
  hipErrorOutOfMemory = 2,
  hipErrorNoDevice = 100,
  hipDeviceAttributeComputeCapabilityMajor = 23,
  hipDeviceAttributeComputeCapabilityMinor = 61,
  hipDeviceAttributeMultiprocessorCount = 63,
  hipStreamCaptureStatusNone = 0,
  hipMemcpyHostToDevice = 1,
  hipMemcpyDeviceToHost = 2,
};

#define ATTNGEN__HIP_FUNCS(X)                                                              \
  X(hipInit, hipError_t, (unsigned flags))                                                 \
  X(hipGetErrorString, const char *, (hipError_t e))                                       \
  X(hipGetErrorName, const char *, (hipError_t e))                                         \
  X(hipDriverGetVersion, hipError_t, (int *v))                                             \
  X(hipGetDeviceCount, hipError_t, (int *n))                                               \
  X(hipSetDevice, hipError_t, (int d))                                                     \
  X(hipDeviceGetName, hipError_t, (char *name, int len, int d))                            \
  X(hipDeviceGetAttribute, hipError_t, (int *v, int attr, int d))                          \
  X(hipDeviceTotalMem, hipError_t, (size_t *bytes, int d))                                 \
  X(hipDeviceSynchronize, hipError_t, (void))                                              \
  X(hipStreamSynchronize, hipError_t, (hipStream_t s))                                     \
  X(hipStreamIsCapturing, hipError_t, (hipStream_t s, int *status))                        \
  X(hipModuleLoadData, hipError_t, (hipModule_t *m, const void *image))                    \
  X(hipModuleUnload, hipError_t, (hipModule_t m))                                          \
  X(hipModuleGetFunction, hipError_t, (hipFunction_t *f, hipModule_t m, const char *name)) \
  X(hipModuleLaunchKernel, hipError_t, (hipFunction_t f, unsigned gx, unsigned gy,         \
                                        unsigned gz, unsigned bx, unsigned by, unsigned bz, \
                                        unsigned smem, hipStream_t s, void **params,       \
                                        void **extra))                                     \
  X(hipMalloc, hipError_t, (void **p, size_t bytes))                                       \
  X(hipFree, hipError_t, (void *p))                                                        \
  X(hipMemcpy, hipError_t, (void *dst, const void *src, size_t bytes, int kind))           \
  X(hipMemset, hipError_t, (void *dst, int v, size_t bytes))                               \
  X(hipMemsetAsync, hipError_t, (void *dst, int v, size_t bytes, hipStream_t s))           \
  X(hipEventCreate, hipError_t, (hipEvent_t *e))                                           \
  X(hipEventRecord, hipError_t, (hipEvent_t e, hipStream_t s))                             \
  X(hipEventSynchronize, hipError_t, (hipEvent_t e))                                       \
  X(hipEventElapsedTime, hipError_t, (float *ms, hipEvent_t a, hipEvent_t b))              \
  X(hipEventDestroy, hipError_t, (hipEvent_t e))

typedef struct hip_api {
  void *lib;
#define ATTNGEN__HIP_FIELD(name, ret, args) ret(*name) args;
  ATTNGEN__HIP_FUNCS(ATTNGEN__HIP_FIELD)
#undef ATTNGEN__HIP_FIELD
  /* Optional: hipGetDevicePropertiesR0600 (ROCm 6+) or hipGetDeviceProperties, used only
   * to read the gcnArchName string. */
  hipError_t (*get_props)(void *props, int d);
} hip_api;

typedef struct hip_state {
  int device;
} hip_state;

static hip_api api;
static pthread_once_t api_once = PTHREAD_ONCE_INIT;
static attngen_status api_status = ATTNGEN_STATUS_INTERNAL;
static char api_error[640];

/* Why the HIP runtime sees no GPU, as far as the machine tells: the KFD device node
 * (/dev/kfd, the amdgpu driver's compute interface) that every AMD GPU process opens. */
static const char *no_device_reason(void) {
  static _Thread_local char why[160];
  if (access("/dev/kfd", F_OK) != 0)
    snprintf(why, sizeof why, "/dev/kfd does not exist: no AMD GPU driver (amdgpu with KFD) on "
             "this machine");
  else if (access("/dev/kfd", R_OK | W_OK) != 0)
    snprintf(why, sizeof why, "/dev/kfd is not accessible (%s): add the user to the render "
             "group", strerror(errno));
  else
    snprintf(why, sizeof why, "/dev/kfd exists, but the runtime found no usable GPU "
             "(HIP_VISIBLE_DEVICES? driver version?)");
  return why;
}

static void api_load(void) {
  static const char *const names[] = {
    "libamdhip64.so", "libamdhip64.so.7", "libamdhip64.so.6", "libamdhip64.so.5",
    "/opt/rocm/lib/libamdhip64.so",
  };
  char tried[512];
  api.lib = attngen__dlopen_first(names, sizeof names / sizeof names[0], NULL, tried,
                                  sizeof tried);
  if (!api.lib) {
    snprintf(api_error, sizeof api_error, "hip: the HIP runtime is not installed (tried %s)", tried);
    api_status = ATTNGEN_STATUS_NO_BACKEND;
    return;
  }
#define ATTNGEN__HIP_RESOLVE(name, ret, args)                                               \
  if (!(*(void **)&api.name = dlsym(api.lib, #name))) {                                     \
    snprintf(api_error, sizeof api_error, "hip: libamdhip64 lacks %s", #name);              \
    api_status = ATTNGEN_STATUS_NO_BACKEND;                                                 \
    return;                                                                                 \
  }
  ATTNGEN__HIP_FUNCS(ATTNGEN__HIP_RESOLVE)
#undef ATTNGEN__HIP_RESOLVE
  *(void **)&api.get_props = dlsym(api.lib, "hipGetDevicePropertiesR0600");
  if (!api.get_props) *(void **)&api.get_props = dlsym(api.lib, "hipGetDeviceProperties");
  hipError_t r = api.hipInit(0);
  if (r != hipSuccess) {
    snprintf(api_error, sizeof api_error, "hip: hipInit failed: %s (%s, %d); %s",
             api.hipGetErrorString(r), api.hipGetErrorName(r), r, no_device_reason());
    api_status = ATTNGEN_STATUS_NO_DEVICE;
    return;
  }
  api_status = ATTNGEN_STATUS_OK;
}

static attngen_status hip_fail(attngen_status st, hipError_t r, const char *what) {
  if (r == hipErrorOutOfMemory) st = ATTNGEN_STATUS_OUT_OF_MEMORY;
  return attngen__fail(st, "hip: %s failed: %s (%s)", what, api.hipGetErrorString(r),
                       api.hipGetErrorName(r));
}

#define HIP_CHECK(call, status, what)                             \
  do {                                                            \
    hipError_t r_ = (call);                                       \
    if (r_ != hipSuccess) return hip_fail(status, r_, what);      \
  } while (0)

static attngen_status make_current(hip_state *s) {
  HIP_CHECK(api.hipSetDevice(s->device), ATTNGEN_STATUS_BACKEND_ERROR, "hipSetDevice");
  return ATTNGEN_STATUS_OK;
}

/* The architecture name ("gfx942:sramecc+:xnack-") sits in hipDeviceProp_t, whose layout
 * differs between ROCm releases; rather than trusting one layout, the properties are read
 * into a large zeroed buffer and the first NUL-terminated "gfx..." string after the device
 * name is taken. */
static void read_arch(int device, char *arch, size_t len, int major, int minor) {
  snprintf(arch, len, "gfx%d%d? (from compute capability %d.%d)", major, minor, major, minor);
  if (!api.get_props) return;
  size_t size = 64 * 1024;
  unsigned char *buf = calloc(1, size);
  if (!buf) return;
  if (api.get_props(buf, device) == hipSuccess) {
    for (size_t i = 256; i + 4 < size; i++) {
      if (buf[i - 1] == 0 && memcmp(buf + i, "gfx", 3) == 0) {
        size_t n = strnlen((const char *)buf + i, 255);
        const char *colon = memchr(buf + i, ':', n);
        if (colon) n = (size_t)(colon - (const char *)(buf + i));
        snprintf(arch, len, "%.*s", (int)n, (const char *)buf + i);
        break;
      }
    }
  }
  free(buf);
}

static attngen_status hip_open(int device, void **state, attngen_device_props *props) {
  pthread_once(&api_once, api_load);
  if (api_status != ATTNGEN_STATUS_OK) return attngen__fail(api_status, "%s", api_error);
  int count = 0;
  hipError_t r = api.hipGetDeviceCount(&count);
  if (r == hipErrorNoDevice || (r == hipSuccess && count == 0))
    return attngen__fail(ATTNGEN_STATUS_NO_DEVICE, "hip: no AMD GPU found (hipGetDeviceCount: %s); %s",
                         api.hipGetErrorName(r), no_device_reason());
  if (r != hipSuccess) return hip_fail(ATTNGEN_STATUS_NO_DEVICE, r, "hipGetDeviceCount");
  if (device < 0 || device >= count)
    return attngen__fail(ATTNGEN_STATUS_NO_DEVICE, "hip: device %d does not exist (allowed: 0..%d)",
                         device, count - 1);
  hip_state *s = calloc(1, sizeof *s);
  if (!s) return attngen__fail(ATTNGEN_STATUS_OUT_OF_MEMORY, "hip: out of host memory");
  s->device = device;
  attngen_status rc = make_current(s);
  if (rc) {
    free(s);
    return rc;
  }
  memset(props, 0, sizeof *props);
  snprintf(props->backend, sizeof props->backend, "hip");
  api.hipDeviceGetName(props->name, (int)sizeof props->name, device);
  int major = 0, minor = 0;
  api.hipDeviceGetAttribute(&major, hipDeviceAttributeComputeCapabilityMajor, device);
  api.hipDeviceGetAttribute(&minor, hipDeviceAttributeComputeCapabilityMinor, device);
  api.hipDeviceGetAttribute(&props->compute_units, hipDeviceAttributeMultiprocessorCount, device);
  api.hipDeviceTotalMem(&props->total_memory, device);
  api.hipDriverGetVersion(&props->driver_version);
  read_arch(device, props->arch, sizeof props->arch, major, minor);
  props->device = device;
  props->device_count = count;
  *state = s;
  return ATTNGEN_STATUS_OK;
}

static void hip_close(void *st) {
  hip_state *s = st;
  if (!s) return;
  if (make_current(s) == ATTNGEN_STATUS_OK) (void)api.hipDeviceSynchronize();
  free(s);
}

static attngen_status hip_alloc(void *st, size_t bytes, void **ptr) {
  attngen_status rc = make_current(st);
  if (rc) return rc;
  HIP_CHECK(api.hipMalloc(ptr, bytes ? bytes : 1), ATTNGEN_STATUS_OUT_OF_MEMORY, "hipMalloc");
  return ATTNGEN_STATUS_OK;
}

static attngen_status hip_free(void *st, void *ptr) {
  attngen_status rc = make_current(st);
  if (rc) return rc;
  if (ptr) HIP_CHECK(api.hipFree(ptr), ATTNGEN_STATUS_BACKEND_ERROR, "hipFree");
  return ATTNGEN_STATUS_OK;
}

static attngen_status hip_htod(void *st, void *dst, const void *src, size_t bytes) {
  attngen_status rc = make_current(st);
  if (rc) return rc;
  HIP_CHECK(api.hipMemcpy(dst, src, bytes, hipMemcpyHostToDevice), ATTNGEN_STATUS_BACKEND_ERROR,
            "hipMemcpy(host to device)");
  return ATTNGEN_STATUS_OK;
}

static attngen_status hip_dtoh(void *st, void *dst, const void *src, size_t bytes) {
  attngen_status rc = make_current(st);
  if (rc) return rc;
  HIP_CHECK(api.hipMemcpy(dst, src, bytes, hipMemcpyDeviceToHost), ATTNGEN_STATUS_BACKEND_ERROR,
            "hipMemcpy(device to host)");
  return ATTNGEN_STATUS_OK;
}

static attngen_status hip_memset_(void *st, void *dst, int byte, size_t bytes) {
  attngen_status rc = make_current(st);
  if (rc) return rc;
  HIP_CHECK(api.hipMemset(dst, byte, bytes), ATTNGEN_STATUS_BACKEND_ERROR, "hipMemset");
  return ATTNGEN_STATUS_OK;
}

static attngen_status hip_memset_async(void *st, void *dst, int byte, size_t bytes,
                                       void *stream) {
  attngen_status rc = make_current(st);
  if (rc) return rc;
  HIP_CHECK(api.hipMemsetAsync(dst, byte, bytes, (hipStream_t)stream),
            ATTNGEN_STATUS_BACKEND_ERROR, "hipMemsetAsync");
  return ATTNGEN_STATUS_OK;
}

static attngen_status hip_sync(void *st, void *stream) {
  attngen_status rc = make_current(st);
  if (rc) return rc;
  HIP_CHECK(api.hipStreamSynchronize((hipStream_t)stream), ATTNGEN_STATUS_BACKEND_ERROR,
            "hipStreamSynchronize");
  return ATTNGEN_STATUS_OK;
}

static attngen_status hip_device_sync(void *st) {
  attngen_status rc = make_current(st);
  if (rc) return rc;
  HIP_CHECK(api.hipDeviceSynchronize(), ATTNGEN_STATUS_BACKEND_ERROR, "hipDeviceSynchronize");
  return ATTNGEN_STATUS_OK;
}

static attngen_status hip_capturing(void *st, void *stream, int *capturing) {
  attngen_status rc = make_current(st);
  if (rc) return rc;
  int status = 0;
  hipError_t r = api.hipStreamIsCapturing((hipStream_t)stream, &status);
  *capturing = r != hipSuccess || status != hipStreamCaptureStatusNone;
  return ATTNGEN_STATUS_OK;
}

static attngen_status hip_module_load(void *st, const void *image, size_t size, void **module) {
  attngen_status rc = make_current(st);
  if (rc) return rc;
  hipModule_t m = NULL;
  HIP_CHECK(api.hipModuleLoadData(&m, image), ATTNGEN_STATUS_BACKEND_ERROR, "hipModuleLoadData");
  *module = m;
  return ATTNGEN_STATUS_OK;
}

static void hip_module_unload(void *st, void *module) {
  if (module && make_current(st) == ATTNGEN_STATUS_OK) (void)api.hipModuleUnload((hipModule_t)module);
}

/* gfx942 has 64 KiB of LDS per workgroup, usable without an opt-in. */
static attngen_status hip_function(void *st, void *module, const char *name, int smem_bytes,
                                   void **fn) {
  attngen_status rc = make_current(st);
  if (rc) return rc;
  hipFunction_t f = NULL;
  hipError_t r = api.hipModuleGetFunction(&f, (hipModule_t)module, name);
  if (r != hipSuccess)
    return attngen__fail(ATTNGEN_STATUS_BACKEND_ERROR, "hip: kernel %s not found in its module (%s)",
                         name, api.hipGetErrorName(r));
  *fn = f;
  return ATTNGEN_STATUS_OK;
}

static attngen_status hip_launch(void *st, void *fn, const unsigned grid[3], unsigned threads,
                                 unsigned smem_bytes, void *stream, const attngen_kargs *k) {
  attngen_status rc = make_current(st);
  if (rc) return rc;
  attngen_kargs copy = *k;
  void *params[] = {&copy};
  HIP_CHECK(api.hipModuleLaunchKernel((hipFunction_t)fn, grid[0], grid[1], grid[2], threads, 1, 1,
                                      smem_bytes, (hipStream_t)stream, params, NULL),
            ATTNGEN_STATUS_LAUNCH_FAILED, "hipModuleLaunchKernel");
  return ATTNGEN_STATUS_OK;
}

static attngen_status hip_event_create(void *st, void **ev) {
  attngen_status rc = make_current(st);
  if (rc) return rc;
  hipEvent_t e = NULL;
  HIP_CHECK(api.hipEventCreate(&e), ATTNGEN_STATUS_BACKEND_ERROR, "hipEventCreate");
  *ev = e;
  return ATTNGEN_STATUS_OK;
}

static attngen_status hip_event_record(void *st, void *ev, void *stream) {
  attngen_status rc = make_current(st);
  if (rc) return rc;
  HIP_CHECK(api.hipEventRecord((hipEvent_t)ev, (hipStream_t)stream), ATTNGEN_STATUS_BACKEND_ERROR,
            "hipEventRecord");
  return ATTNGEN_STATUS_OK;
}

static attngen_status hip_event_elapsed(void *st, void *start, void *end, float *ms) {
  attngen_status rc = make_current(st);
  if (rc) return rc;
  HIP_CHECK(api.hipEventSynchronize((hipEvent_t)end), ATTNGEN_STATUS_BACKEND_ERROR,
            "hipEventSynchronize");
  HIP_CHECK(api.hipEventElapsedTime(ms, (hipEvent_t)start, (hipEvent_t)end),
            ATTNGEN_STATUS_BACKEND_ERROR, "hipEventElapsedTime");
  return ATTNGEN_STATUS_OK;
}

static void hip_event_destroy(void *st, void *ev) {
  if (ev && make_current(st) == ATTNGEN_STATUS_OK) (void)api.hipEventDestroy((hipEvent_t)ev);
}

const attngen__backend_ops attngen__backend_hip = {
  .name = "hip",
  .kind = ATTNGEN__BACKEND_GPU,
  .target = ATTNGEN__TARGET_GFX942,
  .open = hip_open,
  .close = hip_close,
  .mem_alloc = hip_alloc,
  .mem_free = hip_free,
  .memcpy_htod = hip_htod,
  .memcpy_dtoh = hip_dtoh,
  .memset = hip_memset_,
  .memset_async = hip_memset_async,
  .synchronize = hip_sync,
  .synchronize_device = hip_device_sync,
  .stream_capturing = hip_capturing,
  .module_load = hip_module_load,
  .module_unload = hip_module_unload,
  .function = hip_function,
  .launch = hip_launch,
  .event_create = hip_event_create,
  .event_record = hip_event_record,
  .event_elapsed = hip_event_elapsed,
  .event_destroy = hip_event_destroy,
  .reference = NULL,
};
