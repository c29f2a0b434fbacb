/* jit_host.h: the emulator's run-time compiler. A gfx942 variant that is not built into the
 * emulator is compiled for the host CPU the way cmake/emu.cmake compiles the built-in ones:
 * the same clang++ 19 and the same flags (runtime/emu/kernel_flags.txt, embedded) with the
 * emulated wrapper header force-included, plus a shim (runtime/emu/emu_jit_shim.cpp) through
 * which the object reaches the engine, linked into a shared object. jit.c caches that object
 * like a code object; backend_emu.c loads it with dlopen. The headers and the shim are the
 * copies embedded in the library, never read from the source tree.
 *
 * The compiler is found at run time: $ATTNGEN_EMU_CLANG when set (only that), else
 * clang++-19 on PATH, else the clang++-19 the library was built with, else
 * /usr/lib/llvm-19/bin/clang++; it must report clang version 19. */
#ifndef ATTNGEN_JIT_HOST_H
#define ATTNGEN_JIT_HOST_H
#include <stddef.h>

#include "attngen.h"

typedef struct attngen__host_cc {
  char path[4096];    /* the executable as found (run by this name: clang picks its driver
                         mode from it) */
  char real[4096];    /* the file it resolves to (part of the identity) */
  char version[160];  /* the first line of its --version, e.g. "Debian clang version 19.1.7" */
  char short_ver[32]; /* "19.1.7" */
} attngen__host_cc;

/* Finds the host compiler (see above; its identity is remembered per path for the process).
 * NO_VARIANT, with a message naming what was tried and how to provide it, when there is none. */
attngen_status attngen__host_cc_find(attngen__host_cc *out);

/* The compile flags (kernel_flags.txt, then the ones the build adds, e.g. ASan's); up to max
 * into flags (static strings). Returns the count. */
size_t attngen__host_cc_flags(const char **flags, size_t max);

/* The embedded files the object is compiled from besides the variant's source (headers,
 * shim), for the cache key: calls fn for each name and content. */
void attngen__host_cc_inputs(void (*fn)(void *user, const char *name, const char *data),
                             void *user);

/* Compiles the variant's source into a shared object (malloc'd bytes in *image). JIT_FAILED
 * with the compiler's output (its tail) when a step fails. */
attngen_status attngen__host_cc_compile(const attngen__host_cc *cc, const char *name,
                                        const char *source, void **image, size_t *size);

#endif /* ATTNGEN_JIT_HOST_H */
