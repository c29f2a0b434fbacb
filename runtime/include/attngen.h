/* attngen.h: public C API of libattngen, generated bf16 forward attention (head_dim 128).
 * Public names start with attngen_, internal ones with attngen__. */
#ifndef ATTNGEN_H
#define ATTNGEN_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define ATTNGEN_VERSION_MAJOR 0
#define ATTNGEN_VERSION_MINOR 1
#define ATTNGEN_VERSION_PATCH 0
#define ATTNGEN_VERSION_STRING "0.1.0"

/* Status codes: X(NAME, "description"). One list gives the enum and the strings. */
#define ATTNGEN_STATUS_LIST(X)                                                         \
  X(OK, "success")                                                                     \
  X(INVALID_ARGUMENT, "invalid argument")                                              \
  X(NULL_POINTER, "a required pointer is null")                                        \
  X(UNSUPPORTED_HEAD_DIM, "head_dim is not supported (only 128)")                      \
  X(BAD_SHAPE, "a size is out of range")                                               \
  X(TOO_LARGE, "a tensor is too large for the kernels' index type")                    \
  X(MISALIGNED, "a pointer is not aligned as the kernels need")                        \
  X(ALIASING, "out overlaps an input")                                                 \
  X(BAD_LAYOUT, "unknown layout")                                                      \
  X(BAD_ROUNDING, "unknown rounding mode")                                             \
  X(BAD_SCALE, "softmax_scale is not finite")                                          \
  X(NO_BACKEND, "no usable backend")                                                   \
  X(NO_DEVICE, "no device found")                                                      \
  X(NO_VARIANT, "no kernel variant supports these arguments")                          \
  X(JIT_DISABLED, "the variant is not embedded and JIT is disabled (ATTNGEN_JIT=0)")   \
  X(JIT_FAILED, "run-time compilation failed")                                         \
  X(STREAM_CAPTURING, "cannot JIT-compile while the stream is capturing a graph")      \
  X(LAUNCH_FAILED, "kernel launch failed")                                             \
  X(BACKEND_ERROR, "backend call failed")                                              \
  X(OUT_OF_MEMORY, "out of memory")                                                    \
  X(IO_ERROR, "file input/output failed")                                              \
  X(INTERNAL, "internal error")

typedef enum attngen_status {
#define ATTNGEN__STATUS_ENUM(name, text) ATTNGEN_STATUS_##name,
  ATTNGEN_STATUS_LIST(ATTNGEN__STATUS_ENUM)
#undef ATTNGEN__STATUS_ENUM
  ATTNGEN_STATUS_COUNT_
} attngen_status;

/* Tensor layouts, read natively (no transposes). */
typedef enum attngen_layout {
  ATTNGEN_LAYOUT_BSHD = 0, /* [B, S, H, D] */
  ATTNGEN_LAYOUT_BHSD = 1  /* [B, H, S, D] */
} attngen_layout;

/* fp32 -> bf16 rounding applied to P (before P.V) and to O. See NUMERICS.md. */
typedef enum attngen_rounding {
  ATTNGEN_ROUND_RTNE = 0, /* nearest, ties to even */
  ATTNGEN_ROUND_RTNA = 1, /* nearest, ties away from zero */
  ATTNGEN_ROUND_RTZ = 2   /* toward zero */
} attngen_rounding;

const char *attngen_status_string(attngen_status status);
const char *attngen_status_name(attngen_status status);

#ifdef __cplusplus
}
#endif
#endif /* ATTNGEN_H */
