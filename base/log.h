/* log.h: leveled log lines (ATTNGEN_LOG=0..3, to stderr or to ATTNGEN_LOG_FILE) and a
 * monotonic clock, for every layer above the base. The thread's last error behind
 * attngen_last_error() is the runtime's (runtime/src/status.h). */
#ifndef ATTNGEN_LOG_H
#define ATTNGEN_LOG_H

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

/* Monotonic clock in seconds. */
double attngen__now(void);

#endif /* ATTNGEN_LOG_H */
