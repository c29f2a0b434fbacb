/* axes.c: see axes.h. */
#include "axes.h"

#include <string.h>

/* The public enums are the generated axes' ids (attngen.h cannot include generated code). */
_Static_assert((int)ATTNGEN_LAYOUT_BSHD == (int)ATTNGEN__LAYOUT_BSHD &&
                   (int)ATTNGEN_LAYOUT_BHSD == (int)ATTNGEN__LAYOUT_BHSD && ATTNGEN__LAYOUT_COUNT == 2,
               "attngen_layout must match config.lua's layout axis");
_Static_assert((int)ATTNGEN_ROUND_RTNE == (int)ATTNGEN__ROUNDING_RTNE &&
                   (int)ATTNGEN_ROUND_RTNA == (int)ATTNGEN__ROUNDING_RTNA &&
                   (int)ATTNGEN_ROUND_RTZ == (int)ATTNGEN__ROUNDING_RTZ && ATTNGEN__ROUNDING_COUNT == 3,
               "attngen_rounding must match config.lua's rounding axis");

int attngen__axis_index(const char *const *names, int count, const char *name) {
  for (int i = 0; name && i < count; ++i)
    if (strcmp(name, names[i]) == 0) return i;
  return -1;
}

static const char *name_of(const char *const *names, int count, int value, const char *outside) {
  return value >= 0 && value < count ? names[value] : outside;
}

const char *attngen__layout_name(attngen_layout layout) {
  return name_of(attngen__layout_names, ATTNGEN__LAYOUT_COUNT, (int)layout, NULL);
}

const char *attngen__rounding_name(attngen_rounding rounding) {
  return name_of(attngen__rounding_names, ATTNGEN__ROUNDING_COUNT, (int)rounding, NULL);
}

int attngen__layout_from_name(const char *name, attngen_layout *out) {
  const int i = attngen__axis_index(attngen__layout_names, ATTNGEN__LAYOUT_COUNT, name);
  if (i < 0) return 0;
  *out = (attngen_layout)i;
  return 1;
}

int attngen__rounding_from_name(const char *name, attngen_rounding *out) {
  const int i = attngen__axis_index(attngen__rounding_names, ATTNGEN__ROUNDING_COUNT, name);
  if (i < 0) return 0;
  *out = (attngen_rounding)i;
  return 1;
}

const char *attngen__target_name(int target) {
  return name_of(attngen__target_names, ATTNGEN__TARGET_COUNT, target, "?");
}

const char *attngen__impl_name(int impl) {
  return name_of(attngen__impl_names, ATTNGEN__IMPL_COUNT, impl, "?");
}

const char *attngen__kv_split_name(int kv_split) {
  return name_of(attngen__kv_split_names, ATTNGEN__SPLIT_COUNT, kv_split, "?");
}

int attngen__target_from_name(const char *name, int *out) {
  const int i = attngen__axis_index(attngen__target_names, ATTNGEN__TARGET_COUNT, name);
  if (i < 0) return 0;
  *out = i;
  return 1;
}

const char *attngen_enum_name(const char *kind, int value) {
  if (!kind) return NULL;
  if (strcmp(kind, "status") == 0)
    return value >= 0 && value < (int)ATTNGEN_STATUS_COUNT_
               ? attngen_status_name((attngen_status)value)
               : NULL;
  static const struct {
    const char *kind;
    const char *const *names;
    int count;
  } axes[] = {
      {"layout", attngen__layout_names, ATTNGEN__LAYOUT_COUNT},
      {"rounding", attngen__rounding_names, ATTNGEN__ROUNDING_COUNT},
      {"target", attngen__target_names, ATTNGEN__TARGET_COUNT},
      {"kv_split", attngen__kv_split_names, ATTNGEN__SPLIT_COUNT},
      {"impl", attngen__impl_names, ATTNGEN__IMPL_COUNT},
      {"v_path", attngen__v_path_names, ATTNGEN__V_PATH_COUNT},
      {"load", attngen__load_names, ATTNGEN__LOAD_COUNT},
  };
  for (size_t i = 0; i < sizeof axes / sizeof axes[0]; i++)
    if (strcmp(kind, axes[i].kind) == 0) return name_of(axes[i].names, axes[i].count, value, NULL);
  return NULL;
}
