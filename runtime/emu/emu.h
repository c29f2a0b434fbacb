/* emu.h: the gfx942 wave64 emulator as seen by the runtime (the `emu` backend). Generated
 * gfx942 kernels compiled for the host are listed in a table; attngen__emu_launch runs one
 * over a grid, block by block, each work-item a fiber (see emu_engine.c). */
#ifndef ATTNGEN_EMU_H
#define ATTNGEN_EMU_H

#include <stddef.h>
#include <stdint.h>

#include "kargs.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef void (*attngen__emu_kernel_fn)(attngen_kargs);

/* One host-compiled generated variant: NAME and, for kv_split=tail variants, NAME_merge. */
typedef struct attngen__emu_kernel {
  const char *name;
  attngen__emu_kernel_fn fn;
  attngen__emu_kernel_fn merge; /* NULL when the variant has no merge kernel */
} attngen__emu_kernel;

/* Table of the generated gfx942 variants built for the host (may be empty). */
extern const attngen__emu_kernel attngen__emu_kernels[];
extern const size_t attngen__emu_kernel_count;
/* Table of the emulator's own self-test kernels (tests/emu_kernels/). */
extern const attngen__emu_kernel attngen__emu_selftest_kernels[];
extern const size_t attngen__emu_selftest_kernel_count;

/* The variant called name, or NULL. */
const attngen__emu_kernel *attngen__emu_find(const char *name);
/* The self-test kernel called name, or NULL. */
const attngen__emu_kernel *attngen__emu_find_selftest(const char *name);

/* Runs fn over grid (gx, gy, gz) with `threads` work-items per block (a multiple of 64,
 * at most 1024) and 64 KiB of LDS per block. Blocks run one at a time in an order
 * shuffled by seed; waves interleave between synchronization points in an order chosen
 * by seed. Returns 0 on success; otherwise nonzero with a report in err (block, wave,
 * lane, wrapper, address, template line). */
int attngen__emu_launch(attngen__emu_kernel_fn fn, unsigned gx, unsigned gy, unsigned gz,
                        unsigned threads, attngen_kargs args, uint64_t seed, char *err,
                        size_t errlen);

/* Counters of the emulator (process-wide, summed over launches). */
typedef struct attngen__emu_stats {
  uint64_t launches;
  uint64_t blocks;
  uint64_t mfma;        /* wave-level MFMA instructions executed */
  uint64_t wave_syncs;  /* wave-wide synchronizations (cross-lane ops, waitcnt, barrier) */
  uint64_t mem_ops;     /* wave-level memory instructions landed */
  double seconds;       /* wall time spent inside attngen__emu_launch */
} attngen__emu_stats;
void attngen__emu_get_stats(attngen__emu_stats *out);

/* Options; attngen__emu_default_options reads the environment: race checking of LDS
 * accesses by different waves without an s_barrier in between (ATTNGEN_EMU_RACECHECK=0 turns
 * it off), fiber stack bytes (ATTNGEN_EMU_STACK, default 65536), LDS bytes of a block that
 * accesses are checked against (default and maximum 65536; pass the variant's smem_bytes to
 * check against the kernel's allocation). */
typedef struct attngen__emu_options {
  int race_check;
  size_t stack_bytes;
  size_t lds_bytes;
} attngen__emu_options;
void attngen__emu_default_options(attngen__emu_options *o);
int attngen__emu_launch_opts(attngen__emu_kernel_fn fn, unsigned gx, unsigned gy, unsigned gz,
                             unsigned threads, attngen_kargs args, uint64_t seed,
                             const attngen__emu_options *opts, char *err, size_t errlen);

/* 1 when the 32-bit pattern is one of the emulator's poison values (a register read before
 * its s_waitcnt, or LDS never written); useful to explain bad kernel outputs. */
int attngen__emu_is_poison(uint32_t bits);

#ifdef __cplusplus
}
#endif
#endif /* ATTNGEN_EMU_H */
