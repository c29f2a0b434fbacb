// wrappers.cuh: the one-instruction PTX wrappers of the sm90 (Hopper, sm_90a) kernels.
// Each function is one `asm volatile` around one PTX instruction; the operand constraints
// ("+f" ties an accumulator's input and output, "r" 32-bit, "l" 64-bit) let the compiler
// allocate registers while the instruction is fixed here. Templates issue no asm of their own.
// Self-contained for NVRTC and nvcc: no #include, bf16 values are 16-bit patterns in
// unsigned ints, the integer types below are defined here.
#ifndef ATTNGEN_SM90_WRAPPERS_CUH
#define ATTNGEN_SM90_WRAPPERS_CUH

typedef unsigned int sm90_u32;
typedef unsigned long long sm90_u64;

#define SM90_FN static __device__ __forceinline__

// ---- tensor cores ------------------------------------------------------------------------

// d[0..3] += A(16x16 bf16, row) * B(16x8 bf16, col) in fp32. Fragments (PTX ISA, mma.m16n8k16,
// g = lane / 4, t = lane % 4): a0 = A[g][2t..2t+1], a1 = A[g+8][2t..], a2 = A[g][2t+8..],
// a3 = A[g+8][2t+8..]; b0 = B[2t..2t+1][g], b1 = B[2t+8..2t+9][g]; d0,d1 = D[g][2t..2t+1],
// d2,d3 = D[g+8][2t..2t+1]. Lower-numbered element in the lower 16 bits.
SM90_FN void sm90_mma_bf16_16816(float (&d)[4], sm90_u32 a0, sm90_u32 a1, sm90_u32 a2,
                                 sm90_u32 a3, sm90_u32 b0, sm90_u32 b1) {
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 "
      "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
}

// Four 8x8 b16 matrices from shared memory: lanes 8i..8i+7 give the row addresses of matrix i;
// register i gets matrix i with lane holding row lane/4, columns 2*(lane%4), +1.
SM90_FN void sm90_ldmatrix_x4(sm90_u32 &r0, sm90_u32 &r1, sm90_u32 &r2, sm90_u32 &r3,
                              sm90_u32 smem_addr) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3)
               : "r"(smem_addr)
               : "memory");
}

// As sm90_ldmatrix_x4, transposed: lane holds rows 2*(lane%4), +1 of column lane/4.
SM90_FN void sm90_ldmatrix_x4_trans(sm90_u32 &r0, sm90_u32 &r1, sm90_u32 &r2, sm90_u32 &r3,
                                    sm90_u32 smem_addr) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3)
               : "r"(smem_addr)
               : "memory");
}

// ---- asynchronous copies global -> shared ------------------------------------------------

// Copies src_bytes (0 or 16) bytes from global to shared and zero-fills the rest of the
// 16 bytes: src_bytes = 0 writes 16 zero bytes (rows past the end of a tensor).
SM90_FN void sm90_cp_async_16(sm90_u32 smem_addr, const void *gptr, sm90_u32 src_bytes) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n"
               :
               : "r"(smem_addr), "l"(gptr), "r"(src_bytes)
               : "memory");
}

SM90_FN void sm90_cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }

// Waits until at most N of this thread's committed groups are still in flight.
template <int N>
SM90_FN void sm90_cp_async_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
}

// Shared-window address of a generic pointer into shared memory (64-bit; callers keep the
// low 32 bits, the .shared address).
SM90_FN sm90_u64 sm90_cvta_to_shared(const void *p) {
  sm90_u64 r;
  asm volatile("cvta.to.shared.u64 %0, %1;\n" : "=l"(r) : "l"(p));
  return r;
}

// ---- shared / global vector moves ---------------------------------------------------------

SM90_FN void sm90_st_shared_b32(sm90_u32 smem_addr, sm90_u32 x) {
  asm volatile("st.shared.b32 [%0], %1;\n" ::"r"(smem_addr), "r"(x) : "memory");
}

SM90_FN void sm90_ld_shared_v4(sm90_u32 &x, sm90_u32 &y, sm90_u32 &z, sm90_u32 &w,
                               sm90_u32 smem_addr) {
  asm volatile("ld.shared.v4.b32 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(x), "=r"(y), "=r"(z), "=r"(w)
               : "r"(smem_addr)
               : "memory");
}

SM90_FN void sm90_st_global_v4(void *gptr, sm90_u32 x, sm90_u32 y, sm90_u32 z, sm90_u32 w) {
  asm volatile("st.global.v4.b32 [%0], {%1, %2, %3, %4};\n" ::"l"(gptr), "r"(x), "r"(y),
               "r"(z), "r"(w)
               : "memory");
}

SM90_FN void sm90_st_global_f32(float *gptr, float x) {
  asm volatile("st.global.f32 [%0], %1;\n" ::"l"(gptr), "f"(x) : "memory");
}

// ---- fp32 arithmetic with fixed rounding (never contracted into an FMA) --------------------

SM90_FN float sm90_mul_rn(float a, float b) {
  float r;
  asm volatile("mul.rn.f32 %0, %1, %2;\n" : "=f"(r) : "f"(a), "f"(b));
  return r;
}

// IEEE max: when one operand is NaN the other is returned (as C fmaxf).
SM90_FN float sm90_fmax(float a, float b) {
  float r;
  asm volatile("max.f32 %0, %1, %2;\n" : "=f"(r) : "f"(a), "f"(b));
  return r;
}

// 2^x, about 2 ulp; subnormal results flush to zero; ex2(-inf) = 0, ex2(NaN) = NaN.
SM90_FN float sm90_ex2(float x) {
  float r;
  asm volatile("ex2.approx.ftz.f32 %0, %1;\n" : "=f"(r) : "f"(x));
  return r;
}

// log2(x), approximate; lg2(0) = -inf.
SM90_FN float sm90_lg2(float x) {
  float r;
  asm volatile("lg2.approx.f32 %0, %1;\n" : "=f"(r) : "f"(x));
  return r;
}

// 1/x correctly rounded (IEEE).
SM90_FN float sm90_rcp_rn(float x) {
  float r;
  asm volatile("rcp.rn.f32 %0, %1;\n" : "=f"(r) : "f"(x));
  return r;
}

// ---- bit moves ------------------------------------------------------------------------------

SM90_FN sm90_u32 sm90_f32_bits(float x) {
  sm90_u32 r;
  asm volatile("mov.b32 %0, %1;\n" : "=r"(r) : "f"(x));
  return r;
}

// Butterfly shuffle within the warp: the value of lane (lane ^ mask).
SM90_FN float sm90_shfl_xor(float x, int mask) {
  float r;
  asm volatile("shfl.sync.bfly.b32 %0, %1, %2, 0x1f, 0xffffffff;\n"
               : "=f"(r)
               : "f"(x), "r"(mask));
  return r;
}

// ---- fp32 pair -> bf16x2 (lo in bits 0..15, hi in bits 16..31) ------------------------------
// For P (softmax probabilities) on the hot path. Finite values round exactly as the
// NUMERICS.md formulas; a NaN stays a NaN (its encoding does not matter for P: it only
// feeds the P.V product). Outputs use the exact formulas of common/bf16_round.h instead.

// Round to nearest, ties to even.
SM90_FN sm90_u32 sm90_pack_bf16x2_rtne(float lo, float hi) {
  sm90_u32 r;
  asm volatile("cvt.rn.bf16x2.f32 %0, %1, %2;\n" : "=r"(r) : "f"(hi), "f"(lo));
  return r;
}

// Round toward zero (finite values: truncation of the low 16 bits).
SM90_FN sm90_u32 sm90_pack_bf16x2_rtz(float lo, float hi) {
  sm90_u32 r;
  asm volatile("cvt.rz.bf16x2.f32 %0, %1, %2;\n" : "=r"(r) : "f"(hi), "f"(lo));
  return r;
}

// Round to nearest, ties away from zero: (u + 0x8000) >> 16 with NaN kept NaN (0x7FFF).
// PTX has no .rna conversion to bf16, so this is integer arithmetic, not one instruction.
SM90_FN sm90_u32 sm90_pack_bf16x2_rtna(float lo, float hi) {
  const sm90_u32 ulo = lo != lo ? 0x7FFF0000u : sm90_f32_bits(lo) + 0x8000u;
  const sm90_u32 uhi = hi != hi ? 0x7FFF0000u : sm90_f32_bits(hi) + 0x8000u;
  return (ulo >> 16) | (uhi & 0xFFFF0000u);
}

#endif // ATTNGEN_SM90_WRAPPERS_CUH
