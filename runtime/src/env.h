/* env.h: the ATTNGEN_* environment, read and checked once when a context is created.
 *
 * One rule for every variable: unset or empty means the default; a set value that is not
 * allowed makes attngen_create fail with INVALID_ARGUMENT, and the message names the
 * variable, its value and the allowed values. Nothing is silently ignored. The values a
 * call depends on (backend, forced variant, tuning, JIT) are kept in the context, so a
 * later setenv does not change a running context. Variables read by other layers (the log,
 * the emulator, the cache and tuning paths) are checked here with the same rule. */
#ifndef ATTNGEN_ENV_H
#define ATTNGEN_ENV_H

#include "attngen.h"

typedef struct attngen__env {
  char backend[32];           /* ATTNGEN_BACKEND: "" = auto */
  char variant[256];          /* ATTNGEN_VARIANT: "" = none forced */
  int tuning;                 /* ATTNGEN_TUNING: 1 (default) consult the tuning database */
  int jit;                    /* ATTNGEN_JIT: 1 (default) compile non-embedded variants */
  double jit_lock_timeout_s;  /* ATTNGEN_JIT_LOCK_TIMEOUT: seconds (default 300) */
  int causal_order;           /* ATTNGEN_CAUSAL_ORDER: 0 (default) the dispatcher's choice,
                               * 1 longest first, 2 pairs, 3 dynamic (sm90 wgmma causal
                               * kernels; 3 where the kernel has it, head_dim 64) */
} attngen__env;

/* ATTNGEN_JIT_LOCK_TIMEOUT when unset: how long a JIT compile waits for another process
 * compiling the same key (jit.c). */
#define ATTNGEN__JIT_LOCK_TIMEOUT_DEFAULT_S 300.0

/* Reads and checks every ATTNGEN_* variable; INVALID_ARGUMENT (message set) on a bad one. */
attngen_status attngen__env_read(attngen__env *env);

#endif /* ATTNGEN_ENV_H */
