/* backend_emu.c: runs gfx942 kernel variants on the CPU through the wave64 emulator
 * (runtime/emu). Host memory; never chosen by "auto". Kernels are the gfx942 variants the
 * emulator build compiled for the host, looked up by canonical name, or a JIT-compiled
 * variant: a shared object (runtime/src/jit_host.c) loaded from memory with dlopen
 * (module_load) and bound to the engine (emu_jit_api.h). The device reports ATTNGEN_EMU_CUS
 * compute units (default 8) so that the dispatcher's tail-split rules run at test-sized
 * shapes; ATTNGEN_EMU_SEED sets the wave-order seed; ATTNGEN_EMU_BUILTIN=0 ignores the
 * built-in kernels (every variant is JIT-compiled: tests compare the two objects). Without
 * the emulator in the build, opening it fails with NO_BACKEND. */
#define _GNU_SOURCE /* memfd_create */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "backend.h"
#include "hash.h"
#include "status.h"
#include "variant.h"

/* cmake/emu.cmake defines ATTNGEN_HAVE_EMU for the library when it links the emulator. */
#if defined(ATTNGEN_HAVE_EMU) && ATTNGEN_HAVE_EMU
#include "emu.h"
#include "emu_jit_api.h"
#define ATTNGEN__HAVE_EMU 1
#else
#define ATTNGEN__HAVE_EMU 0
#endif

typedef struct emu_state {
  uint64_t seed;
  int builtin; /* 0: ATTNGEN_EMU_BUILTIN=0, the built-in kernels are not used */
} emu_state;

#if ATTNGEN__HAVE_EMU
static int env_int(const char *name, int fallback, int lo, int hi) {
  const char *s = getenv(name);
  if (!s || !*s) return fallback;
  char *end;
  long v = strtol(s, &end, 10);
  if (*end || v < lo || v > hi) {
    attngen__log(ATTNGEN__LOG_NOTICE, "%s=%s ignored (allowed: %d..%d)", name, s, lo, hi);
    return fallback;
  }
  return (int)v;
}
#endif

static attngen_status emu_open(int device, void **state, attngen_device_props *props) {
#if !ATTNGEN__HAVE_EMU
  return attngen__fail(ATTNGEN_STATUS_NO_BACKEND,
                       "emu: the " ATTNGEN__TARGET_GFX942_NAME
                       " emulator is not part of this build (runtime/emu)");
#else
  if (device != 0)
    return attngen__fail(ATTNGEN_STATUS_NO_DEVICE, "emu: device %d does not exist (allowed: 0)",
                         device);
  emu_state *s = calloc(1, sizeof *s);
  if (!s) return attngen__fail(ATTNGEN_STATUS_OUT_OF_MEMORY, "emu: out of host memory");
  s->seed = (uint64_t)env_int("ATTNGEN_EMU_SEED", 0, 0, 0x7fffffff);
  s->builtin = env_int("ATTNGEN_EMU_BUILTIN", 1, 0, 1);
  memset(props, 0, sizeof *props);
  snprintf(props->backend, sizeof props->backend, "emu");
  snprintf(props->name, sizeof props->name,
           ATTNGEN__TARGET_GFX942_NAME " wave64 emulator (host CPU)");
  snprintf(props->arch, sizeof props->arch, "%s", attngen__target_arch[ATTNGEN__TARGET_GFX942]);
  props->compute_units = env_int("ATTNGEN_EMU_CUS", 8, 1, 1024);
  props->device_count = 1;
  *state = s;
  return ATTNGEN_STATUS_OK;
#endif
}

static void emu_close(void *st) { free(st); }

#if ATTNGEN__HAVE_EMU
/* JIT objects loaded by this process, by content: each is loaded and bound once and stays
 * for the process (as the JIT's memory cache does), whatever number of contexts use it. The
 * file behind each stays open: dlopen finds an object by its path first, and a closed
 * descriptor's /proc/self/fd/N path would name the next object loaded through that number
 * (glibc would hand back the old one). */
typedef struct jit_object {
  uint64_t hash;
  size_t size;
  void *handle;
  int fd;
  struct jit_object *next;
} jit_object;
static pthread_mutex_t jit_objects_mutex = PTHREAD_MUTEX_INITIALIZER;
static jit_object *jit_objects;

/* Writes the image into an anonymous file (memfd; else a temp file, unlinked once loaded:
 * *tmp_path says which) and returns its descriptor, or -1 with the reason in why. */
static int image_fd(const void *image, size_t size, char *tmp_path, size_t tmp_len, char *why,
                    size_t why_len) {
  int fd = memfd_create("attngen-emu-jit", MFD_CLOEXEC);
  tmp_path[0] = 0;
  if (fd < 0) {
    const char *tmp = getenv("TMPDIR");
    snprintf(tmp_path, tmp_len, "%s/attngen-emu-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    fd = mkstemp(tmp_path);
    if (fd < 0) {
      snprintf(why, why_len, "neither memfd_create nor a temp file in %s works: %s",
               tmp && *tmp ? tmp : "/tmp", strerror(errno));
      return -1;
    }
  }
  const char *p = image;
  size_t left = size;
  while (left > 0) {
    ssize_t n = write(fd, p, left);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      snprintf(why, why_len, "cannot write the object: %s", strerror(errno));
      close(fd);
      if (tmp_path[0]) unlink(tmp_path);
      return -1;
    }
    p += n;
    left -= (size_t)n;
  }
  return fd;
}

/* Loads and binds one object; caller holds jit_objects_mutex. */
static attngen_status load_object(const void *image, size_t size, jit_object *o) {
  char why[512] = "", tmp_path[4200];
  int fd = image_fd(image, size, tmp_path, sizeof tmp_path, why, sizeof why);
  if (fd < 0) return attngen__fail(ATTNGEN_STATUS_JIT_FAILED, "emu: loading a JIT object: %s", why);
  char path[64];
  snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
  void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (tmp_path[0]) unlink(tmp_path);
  if (!h) {
    close(fd);
    return attngen__fail(ATTNGEN_STATUS_JIT_FAILED, "emu: dlopen of a JIT object failed: %s",
                         dlerror());
  }
  attngen__emu_jit_bind_fn bind;
  *(void **)&bind = dlsym(h, ATTNGEN__EMU_JIT_BIND_SYMBOL);
  if (!bind || bind(attngen__emu_jit_api_table()) != 0) {
    dlclose(h);
    close(fd);
    return attngen__fail(ATTNGEN_STATUS_JIT_FAILED,
                         "emu: the JIT object %s (emulator interface version %d expected)",
                         bind ? "was built for another emulator interface"
                              : "lacks " ATTNGEN__EMU_JIT_BIND_SYMBOL,
                         ATTNGEN__EMU_JIT_API_VERSION);
  }
  o->handle = h;
  o->fd = fd;
  return ATTNGEN_STATUS_OK;
}
#endif

/* A JIT-compiled variant: the shared object, loaded and bound to the engine (once per
 * process for the same bytes). */
static attngen_status emu_module_load(void *st, const void *image, size_t size, void **module) {
#if ATTNGEN__HAVE_EMU
  const uint64_t hash = attngen__fnv1a64(ATTNGEN__FNV64_INIT, image, size);
  attngen_status status = ATTNGEN_STATUS_OK;
  pthread_mutex_lock(&jit_objects_mutex);
  jit_object *o = jit_objects;
  while (o && !(o->hash == hash && o->size == size)) o = o->next;
  if (!o) {
    o = calloc(1, sizeof *o);
    if (!o) status = attngen__fail(ATTNGEN_STATUS_OUT_OF_MEMORY, "emu: out of host memory");
    if (o && (status = load_object(image, size, o)) != ATTNGEN_STATUS_OK) {
      free(o);
      o = NULL;
    }
    if (o) {
      o->hash = hash;
      o->size = size;
      o->next = jit_objects;
      jit_objects = o;
    }
  }
  pthread_mutex_unlock(&jit_objects_mutex);
  if (o) *module = o->handle;
  return status;
#else
  return attngen__fail(ATTNGEN_STATUS_NO_BACKEND, "emu: not built");
#endif
}

/* Nothing: a loaded JIT object stays for the process (see jit_objects). */
static void emu_module_unload(void *st, void *module) {}

static attngen_status emu_function(void *st, void *module, const char *name, int smem_bytes,
                                   void **fn) {
#if ATTNGEN__HAVE_EMU
  if (module) {
    void *f = dlsym(module, name);
    if (f) {
      *fn = f;
      return ATTNGEN_STATUS_OK;
    }
    return attngen__fail(ATTNGEN_STATUS_NO_VARIANT, "emu: the JIT object has no kernel %s", name);
  }
  emu_state *s = st;
  if (!s->builtin)
    return attngen__fail(ATTNGEN_STATUS_NO_VARIANT,
                         "emu: kernel %s: the built-in kernels are not used "
                         "(ATTNGEN_EMU_BUILTIN=0)", name);
  /* The emulator lists NAME with its merge kernel; NAME_merge is looked up through NAME. */
  const attngen__emu_kernel *k = attngen__emu_find(name);
  attngen__emu_kernel_fn f = k ? k->fn : NULL;
  size_t n = strlen(name), m = strlen("_merge");
  if (!k && n > m && strcmp(name + n - m, "_merge") == 0) {
    char base[256];
    snprintf(base, sizeof base, "%.*s", (int)(n - m), name);
    k = attngen__emu_find(base);
    f = k ? k->merge : NULL;
  }
  if (f) {
    *fn = (void *)f;
    return ATTNGEN_STATUS_OK;
  }
#endif
  return attngen__fail(ATTNGEN_STATUS_NO_VARIANT,
                       "emu: kernel %s is not built into the emulator (only "
                       "generated/" ATTNGEN__TARGET_GFX942_NAME " variants are; others are "
                       "JIT-compiled)", name);
}

static attngen_status emu_launch(void *st, void *fn, const unsigned grid[3], unsigned threads,
                                 unsigned smem_bytes, void *stream, const attngen_kargs *k) {
#if ATTNGEN__HAVE_EMU
  emu_state *s = st;
  char err[512] = "";
  int rc = attngen__emu_launch((attngen__emu_kernel_fn)fn, grid[0], grid[1], grid[2], threads, *k,
                               s->seed, err, sizeof err);
  if (rc != 0)
    return attngen__fail(ATTNGEN_STATUS_LAUNCH_FAILED, "emu: kernel failed: %s",
                         err[0] ? err : "(no message)");
  return ATTNGEN_STATUS_OK;
#else
  return attngen__fail(ATTNGEN_STATUS_NO_BACKEND, "emu: not built");
#endif
}

const attngen__backend_ops attngen__backend_emu = {
  .name = "emu",
  .kind = ATTNGEN__BACKEND_EMU,
  .target = ATTNGEN__TARGET_GFX942,
  .open = emu_open,
  .close = emu_close,
  ATTNGEN__HOST_BACKEND_OPS,
  .module_load = emu_module_load,
  .module_unload = emu_module_unload,
  .function = emu_function,
  .launch = emu_launch,
  .reference = NULL,
};
