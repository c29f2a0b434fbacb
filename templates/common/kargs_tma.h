// kargs_tma.h: the kernel parameter of the sm90 kernels that load through the tensor memory
// accelerator (variant axis load = tma): the argument block and the tensor maps of q, k, v
// and o, which the runtime encodes per call (cuTensorMapEncodeTiled, runtime/backends/
// backend_cuda.c) and passes by value; the kernel declares the parameter
// `const __grid_constant__` so that the maps stay in parameter space, where the bulk tensor
// copies read them by generic address. A map is 128 opaque bytes, 128-byte aligned (cuda.h's
// CUtensorMap). Plain C (C11 _Alignas) or C++ (alignas); needs kargs.h first.
#ifndef ATTNGEN_KARGS_TMA_H
#define ATTNGEN_KARGS_TMA_H

#if defined(__cplusplus)
#define ATTNGEN_ALIGN_128 alignas(128)
#else
#define ATTNGEN_ALIGN_128 _Alignas(128)
#endif

typedef struct attngen_tensor_map {
  ATTNGEN_ALIGN_128 unsigned long long opaque[16];
} attngen_tensor_map;

// Every map is 4D, innermost first: (d = head_dim columns, sequence, head, batch), with the
// call's strides (kargs.h q_sb ...: any view the host accepts), so rows past the sequence's end are out of bounds
// (zero-filled by loads, dropped by stores), never another head's rows. Boxes: 64 columns
// (128 bytes, 128-byte swizzle) x rows (q: block_m, k and v: kv_tile, o: the kernel's store
// box; a map the kernel does not use is all zero).
typedef struct attngen_kargs_tma {
  attngen_kargs a;
  attngen_tensor_map q, k, v, o;
} attngen_kargs_tma;

#endif // ATTNGEN_KARGS_TMA_H
