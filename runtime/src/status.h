/* status.h: the runtime's failures: attngen__fail sets the thread's last-error text behind
 * attngen_last_error() and returns the status; the status names, texts and the version are
 * status.c's. Includes log.h, so a runtime file that logs and fails includes this one. */
#ifndef ATTNGEN_STATUS_H
#define ATTNGEN_STATUS_H
#include "attngen.h"
#include "log.h"

/* Sets the thread's last-error text and returns status (so: `return attngen__fail(...)`).
 * Also logged at INFO. */
attngen_status attngen__fail(attngen_status status, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void attngen__clear_error(void);

#endif /* ATTNGEN_STATUS_H */
