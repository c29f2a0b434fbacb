/* log.c: leveled logging (ATTNGEN_LOG, ATTNGEN_LOG_FILE) and a monotonic clock. */
#include "log.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static pthread_once_t log_once = PTHREAD_ONCE_INIT;
static pthread_mutex_t log_mutex = PTHREAD_MUTEX_INITIALIZER;
static int log_level = ATTNGEN__LOG_NOTICE;
static FILE *log_file; /* NULL = stderr */

static void log_init(void) {
  const char *lv = getenv("ATTNGEN_LOG");
  if (lv && *lv) {
    char *end;
    long v = strtol(lv, &end, 10);
    if (*end == 0 && v >= 0 && v <= 3) log_level = (int)v;
    else fprintf(stderr, "attngen: ATTNGEN_LOG=%s ignored (allowed: 0, 1, 2, 3)\n", lv);
  }
  const char *path = getenv("ATTNGEN_LOG_FILE");
  if (path && *path) {
    log_file = fopen(path, "a");
    if (!log_file) fprintf(stderr, "attngen: cannot open ATTNGEN_LOG_FILE=%s, logging to stderr\n", path);
  }
}

int attngen__log_level(void) {
  pthread_once(&log_once, log_init);
  return log_level;
}

void attngen__log(int level, const char *fmt, ...) {
  if (level > attngen__log_level() || level <= ATTNGEN__LOG_OFF) return;
  char line[2048];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(line, sizeof line, fmt, ap);
  va_end(ap);
  pthread_mutex_lock(&log_mutex);
  FILE *f = log_file ? log_file : stderr;
  fprintf(f, "attngen: %s\n", line);
  fflush(f);
  pthread_mutex_unlock(&log_mutex);
}

double attngen__now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}
