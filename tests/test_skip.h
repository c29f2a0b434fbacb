/* test_skip.h: visible skips for the cmocka test binaries. Include after <cmocka.h>.
 *
 * cmocka's skip() lets the binary exit 0, so ctest listed a skipped test as Passed. Here a
 * skip prints "SKIPPED: <reason>" and makes the binary exit 77 (attngen_test_exit) when no
 * test failed: tests/CMakeLists.txt sets SKIP_RETURN_CODE 77, so ctest shows "Not Run", and
 * .ci/run lists the reasons. A skip names what it lacks by the variable that requires it:
 * where that variable is 1 (.ci/run sets ATTNGEN_REQUIRE_NVRTC when nvcc is installed,
 * ATTNGEN_REQUIRE_ROCM, ATTNGEN_REQUIRE_CLANG19, ATTNGEN_REQUIRE_TORCH: what CI has) the skip
 * is a failure instead. require NULL: never required (a GPU on a CPU-only machine). */
#ifndef ATTNGEN_TEST_SKIP_H
#define ATTNGEN_TEST_SKIP_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int attngen_test_skipped_;

/* A file that defines ATTNGEN_TEST_REQUIRE (the variable naming what its skips lack) before
 * including this header gets cmocka's skip() replaced: the reason is printed first by the
 * caller ("SKIPPED: ..."), then the skip is recorded, or is a failure where the variable is
 * 1. */
static inline void attngen_test_skip_(const char *require, const char *file, int line) {
  const char *r = require ? getenv(require) : NULL;
  if (r && strcmp(r, "1") == 0) {
    print_message("FAILED instead of SKIPPED: %s=1 (what this test needs must be present)\n",
                  require);
    _fail(file, line);
  }
  if (require) print_message("  (%s=1 makes this skip a failure)\n", require);
  attngen_test_skipped_ = 1;
  _skip(file, line);
}
#ifdef ATTNGEN_TEST_REQUIRE
#undef skip
#define skip() attngen_test_skip_(ATTNGEN_TEST_REQUIRE, __FILE__, __LINE__)
#endif

/* main's status: cmocka's (failures) if any, else 77 when a test was skipped, else 0. */
static inline int attngen_test_exit(int failed) {
  return failed ? failed : attngen_test_skipped_ ? 77 : 0;
}

#endif /* ATTNGEN_TEST_SKIP_H */
