/* variant.h: descriptors of generated kernel variants. The table of the default set is
 * written by `attngen generate` into generated/manifest.c; code objects built from
 * generated/ are listed by the build in the embedded-kernel table. */
#ifndef ATTNGEN_VARIANT_H
#define ATTNGEN_VARIANT_H
#include <stddef.h>

/* The axes' enums and names (attngen__target, attngen__layout, attngen__rounding,
 * attngen__kv_split, attngen__impl, attngen__<axis>_names[]), the per-target facts and
 * attngen__variant_desc itself are generated from generator/lua/config.lua. */
#include "variant_axes.h"

/* The head_dim of a descriptor: its field, 128 where a hand-made descriptor leaves it 0. */
static inline int attngen__desc_head_dim(const attngen__variant_desc *d) {
  return d->head_dim > 0 ? d->head_dim : 128;
}

/* generated/manifest.c */
extern const attngen__variant_desc attngen__manifest[];
extern const size_t attngen__manifest_count;

/* Built code objects embedded in the library (build/embedded_kernels.c). */
typedef struct attngen__code_object {
  const char *name;            /* variant name */
  int target;                  /* attngen__target */
  const unsigned char *data;   /* gfx942 ELF code object or sm_90a cubin */
  size_t size;
} attngen__code_object;
extern const attngen__code_object attngen__code_objects[];
extern const size_t attngen__code_object_count;

#endif /* ATTNGEN_VARIANT_H */
