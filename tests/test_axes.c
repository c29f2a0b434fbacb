/* test_axes.c: the names of the API's enumerations and the variant axes as the library
 * exports them (attngen_enum_name, runtime/src/axes.c) for bindings that must not retype
 * them (the Python package reads them): the same names as the generated tables, in value
 * order, NULL past the end and for an unknown kind. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "attngen.h"
#include "attngen_internal.h"

static int count(const char *kind) {
  int n = 0;
  while (attngen_enum_name(kind, n)) n++;
  return n;
}

static void test_axes_enum_names_are_the_generated_tables(void **state) {
  assert_int_equal(count("layout"), ATTNGEN__LAYOUT_COUNT);
  assert_string_equal(attngen_enum_name("layout", ATTNGEN_LAYOUT_BSHD), ATTNGEN__LAYOUT_BSHD_NAME);
  assert_string_equal(attngen_enum_name("layout", ATTNGEN_LAYOUT_BHSD), ATTNGEN__LAYOUT_BHSD_NAME);
  assert_int_equal(count("rounding"), ATTNGEN__ROUNDING_COUNT);
  assert_string_equal(attngen_enum_name("rounding", ATTNGEN_ROUND_RTZ),
                      ATTNGEN__ROUNDING_RTZ_NAME);
  assert_int_equal(count("target"), ATTNGEN__TARGET_COUNT);
  assert_string_equal(attngen_enum_name("target", ATTNGEN__TARGET_SM90), ATTNGEN__TARGET_SM90_NAME);
  assert_int_equal(count("impl"), ATTNGEN__IMPL_COUNT);
  assert_string_equal(attngen_enum_name("impl", ATTNGEN__IMPL_WGMMA), ATTNGEN__IMPL_WGMMA_NAME);
  assert_int_equal(count("kv_split"), ATTNGEN__SPLIT_COUNT);
  assert_int_equal(count("v_path"), ATTNGEN__V_PATH_COUNT);
  assert_int_equal(count("load"), ATTNGEN__LOAD_COUNT);
  assert_null(attngen_enum_name("layout", -1));
  assert_null(attngen_enum_name("no_such_kind", 0));
  assert_null(attngen_enum_name(NULL, 0));
}

static void test_axes_status_names_are_the_status_list(void **state) {
  assert_int_equal(count("status"), (int)ATTNGEN_STATUS_COUNT_);
  for (int s = 0; s < (int)ATTNGEN_STATUS_COUNT_; s++)
    assert_string_equal(attngen_enum_name("status", s), attngen_status_name((attngen_status)s));
  assert_string_equal(attngen_enum_name("status", ATTNGEN_STATUS_BAD_SHAPE), "BAD_SHAPE");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_axes_enum_names_are_the_generated_tables),
      cmocka_unit_test(test_axes_status_names_are_the_status_list),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
