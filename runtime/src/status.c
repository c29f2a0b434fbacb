/* status.c: the runtime's statuses (names and texts of ATTNGEN_STATUS_LIST), the thread's
 * last error behind attngen_last_error() (attngen__fail) and the version. */
#include "status.h"

#include <stdarg.h>
#include <stdio.h>

static _Thread_local char last_error[1024];

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
