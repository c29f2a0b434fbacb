/* env.c: see env.h. */
#include "env.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cache.h"
#include "status.h"

/* ENV_PATH: a path of at most `hi` bytes (a longer one is refused, never truncated). */
typedef enum { ENV_TEXT, ENV_BOOL, ENV_INT, ENV_SECONDS, ENV_PATH } env_kind;

typedef struct env_var {
  const char *name;
  env_kind kind;
  double lo, hi; /* ENV_INT / ENV_SECONDS */
} env_var;

/* Every variable the library reads (README, Environment). */
static const env_var vars[] = {
  /* checked by attngen_create when it is used: options.backend wins over it */
  {"ATTNGEN_BACKEND", ENV_TEXT, 0, 0},
  {"ATTNGEN_VARIANT", ENV_TEXT, 0, 0},
  {"ATTNGEN_TUNING", ENV_BOOL, 0, 0},
  {"ATTNGEN_JIT", ENV_BOOL, 0, 0},
  {"ATTNGEN_JIT_LOCK_TIMEOUT", ENV_SECONDS, 0.001, 86400},
  {"ATTNGEN_LOG", ENV_INT, 0, 3},
  {"ATTNGEN_LOG_FILE", ENV_PATH, 0, ATTNGEN__CACHE_DIR_MAX},
  {"ATTNGEN_CACHE_DIR", ENV_PATH, 0, ATTNGEN__CACHE_DIR_MAX},
  {"ATTNGEN_TUNING_FILE", ENV_PATH, 0, ATTNGEN__CACHE_DIR_MAX},
  {"ATTNGEN_TEMPLATE_DIR", ENV_PATH, 0, ATTNGEN__CACHE_DIR_MAX},
  {"ATTNGEN_EMU_SEED", ENV_INT, 0, 0x7fffffff},
  {"ATTNGEN_EMU_CUS", ENV_INT, 1, 1024},
  {"ATTNGEN_EMU_RACECHECK", ENV_BOOL, 0, 0},
  {"ATTNGEN_EMU_STACK", ENV_INT, 16384, 1 << 30},
  {"ATTNGEN_EMU_CLANG", ENV_TEXT, 0, 0}, /* checked by the emulator's JIT (jit_host.c) */
  {"ATTNGEN_EMU_BUILTIN", ENV_BOOL, 0, 0},
  {"ATTNGEN_CAUSAL_ORDER", ENV_INT, 0, 3},
};

static attngen_status bad(const char *name, const char *value, const char *allowed) {
  return attngen__fail(ATTNGEN_STATUS_INVALID_ARGUMENT, "%s=\"%s\" is not allowed (allowed: %s)",
                       name, value, allowed);
}

/* Checks one set value; on success *num holds its number (ENV_BOOL, ENV_INT, ENV_SECONDS). */
static attngen_status check(const env_var *v, const char *s, double *num) {
  char allowed[160], *end;
  switch (v->kind) {
    case ENV_TEXT:
      return ATTNGEN_STATUS_OK;
    case ENV_PATH:
      if (strlen(s) <= (size_t)v->hi) return ATTNGEN_STATUS_OK;
      return attngen__fail(ATTNGEN_STATUS_INVALID_ARGUMENT,
                           "%s is %zu bytes long (allowed: a path of at most %.0f bytes)",
                           v->name, strlen(s), v->hi);
    case ENV_BOOL:
      if (strcmp(s, "0") && strcmp(s, "1")) return bad(v->name, s, "0, 1");
      *num = s[0] == '1';
      return ATTNGEN_STATUS_OK;
    case ENV_INT: {
      errno = 0;
      long x = strtol(s, &end, 10);
      snprintf(allowed, sizeof allowed, "an integer in %.0f..%.0f", v->lo, v->hi);
      if (errno || end == s || *end || x < v->lo || x > v->hi) return bad(v->name, s, allowed);
      *num = (double)x;
      return ATTNGEN_STATUS_OK;
    }
    case ENV_SECONDS: {
      errno = 0;
      double x = strtod(s, &end);
      snprintf(allowed, sizeof allowed, "seconds in %g..%g", v->lo, v->hi);
      if (errno || end == s || *end || !isfinite(x) || x < v->lo || x > v->hi)
        return bad(v->name, s, allowed);
      *num = x;
      return ATTNGEN_STATUS_OK;
    }
  }
  return ATTNGEN_STATUS_OK;
}

attngen_status attngen__env_read(attngen__env *env) {
  memset(env, 0, sizeof *env);
  env->tuning = 1;
  env->jit = 1;
  env->jit_lock_timeout_s = ATTNGEN__JIT_LOCK_TIMEOUT_DEFAULT_S;
  for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
    const char *s = getenv(vars[i].name);
    if (!s || !*s) continue;
    double num = 0;
    attngen_status st = check(&vars[i], s, &num);
    if (st != ATTNGEN_STATUS_OK) return st;
    const char *n = vars[i].name;
    if (!strcmp(n, "ATTNGEN_BACKEND") && strcmp(s, "auto") != 0) {
      snprintf(env->backend, sizeof env->backend, "%s", s);
    } else if (!strcmp(n, "ATTNGEN_VARIANT")) {
      if (strlen(s) >= sizeof env->variant) return bad(n, s, "a variant name");
      snprintf(env->variant, sizeof env->variant, "%s", s);
    } else if (!strcmp(n, "ATTNGEN_TUNING")) {
      env->tuning = (int)num;
    } else if (!strcmp(n, "ATTNGEN_JIT")) {
      env->jit = (int)num;
    } else if (!strcmp(n, "ATTNGEN_JIT_LOCK_TIMEOUT")) {
      env->jit_lock_timeout_s = num;
    } else if (!strcmp(n, "ATTNGEN_CAUSAL_ORDER")) {
      env->causal_order = (int)num;
    }
  }
  return ATTNGEN_STATUS_OK;
}
