// bf16_round.h: the fp32 -> bf16 rounding formulas of docs/NUMERICS.md, on bit patterns.
// One copy serves the device templates (via `//$ include "common/bf16_round.h"`), the host
// runtime (runtime/src/bf16.c, the CPU reference) and the emulator.
//
// Plain C/C++, no includes. Every function takes the fp32 bit pattern u (unsigned int,
// 32 bits on every target we build for) and returns the bf16 bit pattern in the low 16 bits.
// Define AG_BF16_FN before including to change the function qualifiers, e.g. in CUDA/HIP
//   #define AG_BF16_FN __device__ __forceinline__
// The default is `static inline` (host C/C++).
//
// Modes (NaN -> 0x7FFF in every mode, +-Inf stays +-Inf, finite overflow follows the formula):
//   ag_bf16_rtne(u): (u + 0x7FFF + ((u >> 16) & 1)) >> 16   nearest, ties to even
//   ag_bf16_rtna(u): (u + 0x8000) >> 16                     nearest, ties away from zero
//   ag_bf16_rtz(u):  u >> 16                                toward zero
// Templates pick the mode at expansion time: ag_bf16_${rounding}(bits).
// ag_bf16_round(u, mode) takes mode as the attngen_rounding value (0 rtne, 1 rtna, 2 rtz).
#ifndef AG_BF16_ROUND_H
#define AG_BF16_ROUND_H

#ifndef AG_BF16_FN
#define AG_BF16_FN static inline
#endif

#define AG_BF16_CANONICAL_NAN 0x7FFFu

// True when the fp32 bit pattern u is a NaN (exponent all ones, mantissa nonzero).
AG_BF16_FN int ag_bf16_is_nan32(unsigned int u) { return (u & 0x7FFFFFFFu) > 0x7F800000u; }

AG_BF16_FN unsigned int ag_bf16_rtne(unsigned int u) {
  return ag_bf16_is_nan32(u) ? AG_BF16_CANONICAL_NAN : (u + 0x7FFFu + ((u >> 16) & 1u)) >> 16;
}

AG_BF16_FN unsigned int ag_bf16_rtna(unsigned int u) {
  return ag_bf16_is_nan32(u) ? AG_BF16_CANONICAL_NAN : (u + 0x8000u) >> 16;
}

AG_BF16_FN unsigned int ag_bf16_rtz(unsigned int u) {
  return ag_bf16_is_nan32(u) ? AG_BF16_CANONICAL_NAN : u >> 16;
}

// Mode chosen at run time (host code, tests); an unknown mode rounds to nearest even.
AG_BF16_FN unsigned int ag_bf16_round(unsigned int u, int mode) {
  return mode == 1 ? ag_bf16_rtna(u) : mode == 2 ? ag_bf16_rtz(u) : ag_bf16_rtne(u);
}

// bf16 bit pattern (low 16 bits of b) -> fp32 bit pattern; exact.
AG_BF16_FN unsigned int ag_bf16_to_f32_bits(unsigned int b) { return (b & 0xFFFFu) << 16; }

#endif // AG_BF16_ROUND_H
