/* log.c: leveled logging, thread-local last error, status names and strings. */
#include "log.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static _Thread_local char last_error[1024];

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

attngen_status attngen__fail(attngen_status status, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(last_error, sizeof last_error, fmt, ap);
  va_end(ap);
  attngen__log(ATTNGEN__LOG_INFO, "error %s: %s", attngen_status_name(status), last_error);
  return status;
}

void attngen__clear_error(void) { last_error[0] = 0; }

const char *attngen_last_error(void) { return last_error; }

double attngen__now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

const char *attngen_status_string(attngen_status status) {
  switch (status) {
#define ATTNGEN__STATUS_TEXT(name, text) case ATTNGEN_STATUS_##name: return text;
    ATTNGEN_STATUS_LIST(ATTNGEN__STATUS_TEXT)
#undef ATTNGEN__STATUS_TEXT
    default: return "unknown status";
  }
}

const char *attngen_status_name(attngen_status status) {
  switch (status) {
#define ATTNGEN__STATUS_NAME(name, text) case ATTNGEN_STATUS_##name: return #name;
    ATTNGEN_STATUS_LIST(ATTNGEN__STATUS_NAME)
#undef ATTNGEN__STATUS_NAME
    default: return "UNKNOWN";
  }
}

const char *attngen_version(void) { return ATTNGEN_VERSION_STRING; }
