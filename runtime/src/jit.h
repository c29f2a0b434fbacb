/* jit.h: run-time compilation of variants that are not embedded in the library. The source
 * comes from the embedded generator (or is given, for tests), is compiled with NVRTC (sm90)
 * or hiprtc (gfx942), or, for the emulator (request.emu), with the host's clang++ 19 into a
 * shared object (jit_host.h), and the result goes through the on-disk cache (cache.h) plus
 * a process-wide memory cache. No device is needed: the target architecture is fixed per
 * target (sm_90a, gfx942). ATTNGEN_JIT=0 means AOT only: every request fails with
 * JIT_DISABLED, cached or not. */
#ifndef ATTNGEN_JIT_H
#define ATTNGEN_JIT_H
#include <stddef.h>
#include <stdint.h>

#include "attngen.h"
#include "env.h"

typedef struct attngen__jit_request {
  const char *name;   /* variant name (kernel symbol), for logs and cache metadata */
  int target;         /* attngen__target */
  const char *source; /* the source to compile (a context's plan carries the one generated
                         when its variant was described; tests give their own); NULL:
                         generate it from name with the embedded generator */
  double lock_timeout_s; /* wait for another process's compile of the same key at most
                            this long, then JIT_FAILED (<= 0: the environment's
                            ATTNGEN_JIT_LOCK_TIMEOUT, default 300 s) */
  const struct attngen__env *env; /* the context's environment (ATTNGEN_JIT, the lock
                                     timeout); NULL: read and check the environment now
                                     (a malformed ATTNGEN_* value fails the request) */
  int emu; /* 1: a gfx942 variant for the emulator, compiled for the host (jit_host.h): the
              image is a shared object for dlopen, not a code object */
} attngen__jit_request;

typedef enum attngen__jit_origin {
  ATTNGEN__JIT_COMPILED = 0,
  ATTNGEN__JIT_DISK = 1,
  ATTNGEN__JIT_MEMORY = 2
} attngen__jit_origin;

typedef struct attngen__jit_result {
  void *image;  /* malloc'd code object; the caller frees it */
  size_t size;
  int origin;   /* attngen__jit_origin */
  uint64_t key;
  double seconds; /* compile time when compiled */
} attngen__jit_result;

/* Returns the code object for the request: memory cache, disk cache, else compile (under
 * the per-key lock, waited for at most lock_timeout_s) and store. JIT_DISABLED when ATTNGEN_JIT=0; JIT_FAILED with the
 * compiler log on errors; NO_BACKEND when the run-time compiler library is missing (emu:
 * NO_VARIANT when the host compiler is, naming what was tried). */
attngen_status attngen__jit_get(const attngen__jit_request *req, attngen__jit_result *out);

/* 1 unless ATTNGEN_JIT=0 (read now; a context uses the value read at its creation). */
int attngen__jit_enabled(void);

/* The architecture string a target is compiled for ("sm_90a", "gfx942"). */
const char *attngen__jit_arch(int target);

/* The architecture string of the emulator's JIT objects ("emu-x86_64"). */
const char *attngen__jit_emu_arch(void);

/* "nvrtc 13.0" / "hiprtc 6.2" into buf; NO_BACKEND (and a message) when not loadable. */
attngen_status attngen__jit_compiler(int target, char *buf, size_t len);

/* The path of the library the target's run-time compiler API was found in (hiprtc: a
 * libhiprtc, or libamdhip64 for HIP 5.x builds that have no libhiprtc); NO_BACKEND when
 * none loads. */
attngen_status attngen__jit_compiler_library(int target, char *buf, size_t len);

/* The run-time compiler's options for a target, as every JIT compile uses them (and the
 * cache key hashes them): up to max into opts, the architecture option written into
 * arch_opt (which must outlive opts). Returns the count. */
size_t attngen__jit_options(int target, const char **opts, size_t max, char *arch_opt,
                            size_t arch_len);

/* Compiles done by this process (every target), for tests and `attngen info`. */
unsigned long attngen__jit_compile_count(void);

/* Drops the process-wide memory cache (tests use it to exercise the disk path). */
void attngen__jit_forget_memory(void);

#endif /* ATTNGEN_JIT_H */
