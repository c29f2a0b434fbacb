/* axes.h: names <-> values of the variant axes for the runtime and the CLI. The names and
 * enums are generated from generator/lua/config.lua (generated/variant_axes.h); nothing here
 * spells an axis value. */
#ifndef ATTNGEN_AXES_H
#define ATTNGEN_AXES_H

#include "attngen.h"
#include "variant.h"

/* The index of name in names[0..count), or -1. */
int attngen__axis_index(const char *const *names, int count, const char *name);

/* Value -> name; NULL for a value outside the axis. */
const char *attngen__layout_name(attngen_layout layout);
const char *attngen__rounding_name(attngen_rounding rounding);
/* Name -> value; returns 0 and leaves *out alone when the name is unknown. */
int attngen__layout_from_name(const char *name, attngen_layout *out);
int attngen__rounding_from_name(const char *name, attngen_rounding *out);

/* attngen__target / attngen__impl / attngen__kv_split -> name; "?" outside the axis. */
const char *attngen__target_name(int target);
const char *attngen__impl_name(int impl);
const char *attngen__kv_split_name(int kv_split);
/* Name -> attngen__target; returns 0 when unknown. */
int attngen__target_from_name(const char *name, int *out);

#endif /* ATTNGEN_AXES_H */
