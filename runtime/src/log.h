/* log.h: the runtime's diagnostics: leveled log lines (ATTNGEN_LOG=0..3, to stderr or to
 * ATTNGEN_LOG_FILE) and the thread-local last-error text behind attngen_last_error(). */
#ifndef ATTNGEN_LOG_H
#define ATTNGEN_LOG_H
#include "attngen.h"

enum {
  ATTNGEN__LOG_OFF = 0,
  ATTNGEN__LOG_NOTICE = 1, /* default: warnings, fallbacks, each JIT compile */
  ATTNGEN__LOG_INFO = 2,   /* cache hits, module loads, dispatch decisions */
  ATTNGEN__LOG_DEBUG = 3
};

/* Current level (ATTNGEN_LOG read once; default ATTNGEN__LOG_NOTICE). */
int attngen__log_level(void);
/* Writes "attngen: <text>\n" when level <= the current level. */
void attngen__log(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Sets the thread's last-error text and returns status (so: `return attngen__fail(...)`).
 * Also logged at INFO. */
attngen_status attngen__fail(attngen_status status, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void attngen__clear_error(void);

/* Monotonic clock in seconds. */
double attngen__now(void);

#endif /* ATTNGEN_LOG_H */
