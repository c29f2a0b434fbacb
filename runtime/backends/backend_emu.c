/* backend_emu.c: runs gfx942 kernel variants on the CPU through the wave64 emulator
 * (runtime/emu). Host memory; never chosen by "auto". Kernels are the gfx942 variants the
 * emulator build compiled for the host, looked up by canonical name; there is no JIT.
 * The device reports ATTNGEN_EMU_CUS compute units (default 8) so that the dispatcher's
 * tail-split rules run at test-sized shapes; ATTNGEN_EMU_SEED sets the wave-order seed.
 * Without the emulator in the build, opening it fails with NO_BACKEND. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "status.h"
#include "variant.h"

/* cmake/emu.cmake defines ATTNGEN_HAVE_EMU for the library when it links the emulator. */
#if defined(ATTNGEN_HAVE_EMU) && ATTNGEN_HAVE_EMU
#include "emu.h"
#define ATTNGEN__HAVE_EMU 1
#else
#define ATTNGEN__HAVE_EMU 0
#endif

typedef struct emu_state {
  uint64_t seed;
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

static attngen_status emu_function(void *st, void *module, const char *name, int smem_bytes,
                                   void **fn) {
#if ATTNGEN__HAVE_EMU
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
                       "emu: kernel %s is not compiled into the emulator (only "
                       "generated/" ATTNGEN__TARGET_GFX942_NAME " "
                       "variants are; the emulator has no JIT)", name);
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
  .module_load = NULL,
  .module_unload = NULL,
  .function = emu_function,
  .launch = emu_launch,
  .reference = NULL,
};
