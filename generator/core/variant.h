/* variant.h: descriptors of generated kernel variants. The table of the default set is
 * written by `attngen generate` into generated/manifest.c; code objects built from
 * generated/ are listed by the build in the embedded-kernel table. */
#ifndef ATTNGEN_VARIANT_H
#define ATTNGEN_VARIANT_H
#include <stddef.h>

typedef enum { ATTNGEN__TARGET_GFX942 = 0, ATTNGEN__TARGET_SM90 = 1 } attngen__target;
typedef enum { ATTNGEN__SPLIT_OFF = 0, ATTNGEN__SPLIT_TAIL = 1 } attngen__kv_split;
typedef enum { ATTNGEN__IMPL_MFMA = 0, ATTNGEN__IMPL_MMA = 1, ATTNGEN__IMPL_WGMMA = 2 } attngen__impl;

/* Axis values and derived launch geometry of one variant. layout and rounding use the
 * public enums' integer values (attngen_layout, attngen_rounding). */
typedef struct attngen__variant_desc {
  const char *name;   /* canonical name = kernel symbol = generated file stem */
  int target;         /* attngen__target */
  int layout;         /* attngen_layout */
  int rounding;       /* attngen_rounding */
  int q_tiles;        /* 16-row Q tiles per wave (gfx942) / warp (sm90) */
  int kv_tile;        /* KV rows per inner iteration */
  int waves;          /* waves (gfx942, 64 lanes) or warps (sm90, 32 lanes) per block */
  int kv_split;       /* attngen__kv_split */
  int impl;           /* attngen__impl */
  int threads;        /* threads per block */
  int block_m;        /* Q rows per block */
  int smem_bytes;     /* dynamic shared memory / LDS bytes requested at launch */
  int softmax_step;   /* keys per running-max update (P is rounded against that max): the
                         CPU reference must use the same step to be held to 1 ULP */
} attngen__variant_desc;

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
