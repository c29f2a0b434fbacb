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
// docs/NUMERICS.md formulas; a NaN stays a NaN (its encoding does not matter for P: it only
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

// The wgmma family's wrappers (impl = "wgmma", templates/sm90/attn_fwd_wgmma.cu.in): names
// carry the prefix wg_; the wgmma operand lists are generated per N the variant uses.
//$ if impl == "wgmma" then
// ==== wgmma / TMA / mbarrier wrappers ========================================================
#ifndef ATTNGEN_SM90_WGMMA_WRAPPERS_CUH
#define ATTNGEN_SM90_WGMMA_WRAPPERS_CUH

typedef unsigned int wg_u32;
typedef unsigned long long wg_u64;

#define WG_FN static __device__ __forceinline__

// x, made opaque to the compiler (an empty asm, no instruction): a value computed from it is
// computed where it is used, not taken from an earlier equal expression and kept live
// (a producer thread of 24 registers recomputes the job's coordinates this way).
WG_FN int wg_opaque(int x) {
  asm volatile("" : "+r"(x));
  return x;
}

// ---- addresses ----------------------------------------------------------------------------

// The .shared window address (32 bits) of a generic pointer into shared memory.
WG_FN wg_u32 wg_smem_addr(const void *p) {
  wg_u64 r;
  asm("cvta.to.shared.u64 %0, %1;" : "=l"(r) : "l"(p));
  return (wg_u32)r;
}

// ---- wgmma (warpgroup MMA, PTX ISA 9.7.15) ------------------------------------------------
// Shared-memory matrix descriptor (64 bits): [13:0] start address >> 4, [29:16] leading
// dimension byte offset >> 4, [45:32] stride dimension byte offset >> 4, [51:49] base offset
// (0: every swizzle atom starts on a 1024-byte boundary), [63:62] swizzle (1 = 128-byte).
// Built in the template (plain integer arithmetic); advanced along K by adding (bytes >> 4).

// Orders this warpgroup's earlier register writes (accumulators, A fragments) before the
// following wgmma.mma_async; issued by all 128 threads before a batch of wgmmas.
WG_FN void wg_fence() { asm volatile("wgmma.fence.sync.aligned;" ::: "memory"); }

// Closes the wgmma operations issued since the last commit into one wgmma-group.
WG_FN void wg_commit() { asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory"); }

// Waits until at most N of this warpgroup's wgmma-groups are pending.
template <int N>
WG_FN void wg_wait() {
  asm volatile("wgmma.wait_group.sync.aligned %0;" ::"n"(N) : "memory");
}

// Compiler-only fence on an accumulator register: keeps the compiler from moving reads or
// writes of x across the surrounding wgmma issue/wait (the asm statements do not name it).
WG_FN void wg_fence_operand(float &x) { asm volatile("" : "+f"(x)::"memory"); }
WG_FN void wg_fence_operand(wg_u32 &x) { asm volatile("" : "+r"(x)::"memory"); }

//$ local wg_ns = { kv_tile }
//$ if head_dim ~= kv_tile then wg_ns[#wg_ns + 1] = head_dim end
//$ local function wg_acc_list(n, first)
//$   local t = {}
//$   for i = 0, n // 2 - 1 do t[#t + 1] = "%" .. (first + i) end
//$   return table.concat(t, ", ")
//$ end
//$ local function wg_acc_operands(n)
//$   local t = {}
//$   for i = 0, n // 2 - 1 do t[#t + 1] = string.format('"+f"(d[%d])', i) end
//$   return table.concat(t, ", ")
//$ end
//$ for _, n in ipairs(wg_ns) do
// d[0..${n // 2 - 1}] (+)= A(64x16, shared, K-major) * B(16x${n}, shared, K-major), fp32.
// scale_d = 0 ignores the old d (d = A*B). Accumulator layout (PTX ISA "Matrix Fragments for
// wgmma .m64nNk16"): warp w of the warpgroup owns rows 16w..16w+15; with g = lane/4,
// t = lane%4, d[4i+0], d[4i+1] are row 16w+g, columns 8i+2t, 8i+2t+1; d[4i+2], d[4i+3] the
// same columns of row 16w+g+8.
WG_FN void wg_mma_ss_m64n${n}k16(float (&d)[${n // 2}], wg_u64 desc_a, wg_u64 desc_b,
                                  int scale_d) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %${n // 2 + 2}, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n${n}k16.f32.bf16.bf16 "
      "{${wg_acc_list(n, 0)}}, "
      "%${n // 2}, %${n // 2 + 1}, p, 1, 1, 0, 0;\n}\n"
      : ${wg_acc_operands(n)}
      : "l"(desc_a), "l"(desc_b), "r"(scale_d));
}

// d[0..${n // 2 - 1}] += A(64x16, registers) * B(16x${n}, shared, N-major: transpose bit), fp32.
// A fragment (same layout as two adjacent n8 chunks of the accumulator, packed to bf16x2,
// lower column in the low half): a0 = rows g, k 2t..2t+1; a1 = row g+8, k 2t..2t+1;
// a2 = row g, k 2t+8..2t+9; a3 = row g+8, k 2t+8..2t+9 (rows relative to 16w).
// scale_d = 0 ignores the old d.
WG_FN void wg_mma_rs_tb_m64n${n}k16(float (&d)[${n // 2}], wg_u32 a0, wg_u32 a1, wg_u32 a2,
                                     wg_u32 a3, wg_u64 desc_b, int scale_d) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %${n // 2 + 5}, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n${n}k16.f32.bf16.bf16 "
      "{${wg_acc_list(n, 0)}}, "
      "{%${n // 2}, %${n // 2 + 1}, %${n // 2 + 2}, %${n // 2 + 3}}, "
      "%${n // 2 + 4}, p, 1, 1, 1;\n}\n"
      : ${wg_acc_operands(n)}
      : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "l"(desc_b), "r"(scale_d));
}

//$ end
// ---- mbarrier (PTX ISA 9.7.13.15) ---------------------------------------------------------

// Initializes the mbarrier at shared address `bar` to expect `count` arrivals per phase.
WG_FN void wg_mbar_init(wg_u32 bar, wg_u32 count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(bar), "r"(count) : "memory");
}

// Makes mbarrier initializations visible to the other threads and the async proxy.
WG_FN void wg_fence_mbar_init() {
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
}

// Arrive (release, CTA scope) on the mbarrier; the returned state is discarded.
WG_FN void wg_mbar_arrive(wg_u32 bar) {
  asm volatile("{\n.reg .b64 st;\nmbarrier.arrive.shared::cta.b64 st, [%0];\n}\n" ::"r"(bar)
               : "memory");
}

// 1 when the phase of parity `parity` has completed (acquire, CTA scope), else 0 once the
// suspend-time hint (10 ms, as CUTLASS's ClusterBarrier::wait) has expired: until then the
// thread sleeps in the barrier unit (SASS: TRYWAIT, then NANOSLEEP.SYNCS and a second check)
// instead of returning at once, so a caller's retry loop runs rarely (bench/RESULTS.md, runs
// G1-G2: 0.08 SYNCS, 0.10 BRA, no YIELD per score on (2,24,8192,8192); speed unchanged). A
// retry loop written inside the asm instead of in C made ptxas spill 8 bytes.
WG_FN wg_u32 wg_mbar_try_wait(wg_u32 bar, wg_u32 parity) {
  wg_u32 ok;
  asm volatile(
      "{\n.reg .pred p;\nmbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2, %3;\n"
      "selp.u32 %0, 1, 0, p;\n}\n"
      : "=r"(ok)
      : "r"(bar), "r"(parity), "n"(0x989680)
      : "memory");
  return ok;
}

// Arrive (release, CTA scope) on the mbarrier and raise its expected transaction count by
// `bytes` for the current phase: the phase completes when every arrival has come and the bulk
// copies that name this mbarrier have delivered that many bytes.
WG_FN void wg_mbar_arrive_expect_tx(wg_u32 bar, wg_u32 bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(bytes)
               : "memory");
}

// ---- TMA: bulk tensor copies through a tensor map (PTX ISA 9.7.9.25) ------------------------
// `map` is the generic address of a CUtensorMap in the kernel's __grid_constant__ parameter.

// Brings the tensor map into the descriptor cache ahead of its first use.
WG_FN void wg_prefetch_tensormap(const void *map) {
  asm volatile("prefetch.tensormap [%0];" ::"l"(map) : "memory");
}

// L2 cache policies for the copies' .L2::cache_hint: evict_last keeps the lines (K/V, read by
// every m-block of a head), evict_first lets them go first (Q, read once).
WG_FN wg_u64 wg_policy_evict_last() {
  wg_u64 p;
  asm volatile("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;" : "=l"(p));
  return p;
}
WG_FN wg_u64 wg_policy_evict_first() {
  wg_u64 p;
  asm volatile("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(p));
  return p;
}

// One box of a 4D tensor map at coordinates (c0 innermost .. c3) -> shared memory at `dst`
// (1024-byte aligned for the 128-byte swizzle), completing `bytes` of the box on mbarrier
// `bar` (the box's full size: out-of-bounds elements are zero-filled and counted).
WG_FN void wg_tma_load_4d(wg_u32 dst, const void *map, wg_u32 bar, int c0, int c1, int c2, int c3,
                          wg_u64 policy) {
  asm volatile(
      "cp.async.bulk.tensor.4d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
      ".L2::cache_hint [%0], [%1, {%2, %3, %4, %5}], [%6], %7;" ::"r"(dst),
      "l"(map), "r"(c0), "r"(c1), "r"(c2), "r"(c3), "r"(bar), "l"(policy)
      : "memory");
}

// One box from shared memory at `src` to a 4D tensor map at (c0 .. c3); elements outside the
// tensor are not written. Completion is tracked per thread in bulk groups.
WG_FN void wg_tma_store_4d(const void *map, wg_u32 src, int c0, int c1, int c2, int c3) {
  asm volatile(
      "cp.async.bulk.tensor.4d.global.shared::cta.tile.bulk_group [%0, {%2, %3, %4, %5}], [%1];"
      ::"l"(map), "r"(src), "r"(c0), "r"(c1), "r"(c2), "r"(c3)
      : "memory");
}

// Closes this thread's bulk copies issued since the last commit into one bulk group.
WG_FN void wg_bulk_commit() { asm volatile("cp.async.bulk.commit_group;" ::: "memory"); }

// Waits until at most N of this thread's bulk groups still read their shared-memory source.
template <int N>
WG_FN void wg_bulk_wait_read() {
  asm volatile("cp.async.bulk.wait_group.read %0;" ::"n"(N) : "memory");
}

// ---- cp.async (16-byte global -> shared, completion tracked on an mbarrier) ----------------

// Copies 16 bytes when src_bytes = 16; src_bytes = 0 reads nothing and writes 16 zero bytes.
WG_FN void wg_cp_async_16(wg_u32 dst, const void *src, wg_u32 src_bytes) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(dst), "l"(src),
               "r"(src_bytes)
               : "memory");
}

// Arrive-on `bar` triggered when all prior cp.async of this thread have completed; .noinc:
// the arrival counts against the count given at mbarrier.init (one per producer thread).
WG_FN void wg_cp_async_mbar_arrive_noinc(wg_u32 bar) {
  asm volatile("cp.async.mbarrier.arrive.noinc.shared::cta.b64 [%0];" ::"r"(bar) : "memory");
}

// Waits for all of this thread's cp.async operations.
WG_FN void wg_cp_async_wait_all() { asm volatile("cp.async.wait_all;" ::: "memory"); }

// Bidirectional generic <-> async proxy fence for shared memory: cp.async and st.shared write
// through the generic proxy, wgmma reads its shared-memory operands through the async proxy.
WG_FN void wg_fence_proxy_async() {
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
}

// ---- warpgroup roles -----------------------------------------------------------------------

// Raise / lower this warpgroup's per-thread register budget (all 4 warps execute it).
template <int N>
WG_FN void wg_setmaxnreg_inc() {
  asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;" ::"n"(N));
}
template <int N>
WG_FN void wg_setmaxnreg_dec() {
  asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;" ::"n"(N));
}

// Named barriers (ids 1..15; 0 is __syncthreads): sync waits for `count` threads in total,
// arrive signals without waiting. count is a multiple of 32.
WG_FN void wg_bar_sync(wg_u32 id, wg_u32 count) {
  asm volatile("bar.sync %0, %1;" ::"r"(id), "r"(count) : "memory");
}
WG_FN void wg_bar_arrive(wg_u32 id, wg_u32 count) {
  asm volatile("bar.arrive %0, %1;" ::"r"(id), "r"(count) : "memory");
}

// ---- fp32 arithmetic with fixed rounding (explicit .rn: never contracted into an FMA) ------

WG_FN float wg_mul_rn(float a, float b) {
  float r;
  asm("mul.rn.f32 %0, %1, %2;" : "=f"(r) : "f"(a), "f"(b));
  return r;
}

WG_FN float wg_sub_rn(float a, float b) {
  float r;
  asm("sub.rn.f32 %0, %1, %2;" : "=f"(r) : "f"(a), "f"(b));
  return r;
}

WG_FN float wg_add_rn(float a, float b) {
  float r;
  asm("add.rn.f32 %0, %1, %2;" : "=f"(r) : "f"(a), "f"(b));
  return r;
}

// IEEE max: a NaN operand yields the other operand (C fmaxf).
WG_FN float wg_max(float a, float b) {
  float r;
  asm("max.f32 %0, %1, %2;" : "=f"(r) : "f"(a), "f"(b));
  return r;
}

// IEEE min: a NaN operand yields the other operand (C fminf).
WG_FN float wg_min(float a, float b) {
  float r;
  asm("min.f32 %0, %1, %2;" : "=f"(r) : "f"(a), "f"(b));
  return r;
}

// a * b + c rounded once (the score_fma form of docs/NUMERICS.md step 4).
WG_FN float wg_fma_rn(float a, float b, float c) {
  float r;
  asm("fma.rn.f32 %0, %1, %2, %3;" : "=f"(r) : "f"(a), "f"(b), "f"(c));
  return r;
}

// 2^x (MUFU.EX2, ~2 ulp); ex2(-inf) = +0, NaN stays NaN; subnormal results flush to zero.
WG_FN float wg_ex2(float x) {
  float r;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(x));
  return r;
}

// 1/x correctly rounded.
WG_FN float wg_rcp_rn(float x) {
  float r;
  asm("rcp.rn.f32 %0, %1;" : "=f"(r) : "f"(x));
  return r;
}

// Butterfly shuffle: the value of lane (lane ^ mask) of the full warp.
WG_FN float wg_shfl_xor(float x, int mask) {
  float r;
  asm volatile("shfl.sync.bfly.b32 %0, %1, %2, 0x1f, 0xffffffff;" : "=f"(r) : "f"(x), "r"(mask));
  return r;
}

// ---- bit moves and bf16x2 packing (low half = lo, high half = hi) ----------------------------

WG_FN wg_u32 wg_f32_bits(float x) {
  wg_u32 r;
  asm("mov.b32 %0, %1;" : "=r"(r) : "f"(x));
  return r;
}

WG_FN float wg_f32_from_bits(wg_u32 u) {
  float r;
  asm("mov.b32 %0, %1;" : "=f"(r) : "r"(u));
  return r;
}

// RTNE pack (cvt.rn: finite values exactly as docs/NUMERICS.md; NaN -> canonical NaN 0x7FFF).
WG_FN wg_u32 wg_pack_bf16x2_rn(float lo, float hi) {
  wg_u32 r;
  asm("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(hi), "f"(lo));
  return r;
}

// RTZ pack (cvt.rz: truncation of finite values; NaN -> canonical NaN 0x7FFF).
WG_FN wg_u32 wg_pack_bf16x2_rz(float lo, float hi) {
  wg_u32 r;
  asm("cvt.rz.bf16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(hi), "f"(lo));
  return r;
}

// RTNA tie-break of one finite-or-NaN value that is not +-Inf (P of the softmax): setting the
// lowest mantissa bit turns an exact tie (low 16 bits 0x8000) into 0x8001, which nearest-even
// rounds away from zero, and changes no other rounding decision (low bits below 0x8000 stay
// below it: x | 1 <= 0x7FFF); cvt.rn (wg_pack_bf16x2_rn) then rounds as RTNA. A NaN stays
// NaN. (+-Inf would become NaN, which is why this is only for P.)
WG_FN float wg_rna_tiebreak(float x) {
  float r;
  asm("or.b32 %0, %1, 1;" : "=f"(r) : "f"(x));
  return r;
}

// Whether any lane of the warp has `pred` (vote.any).
WG_FN bool wg_any(bool pred) {
  wg_u32 r;
  asm volatile("{\n.reg .pred p, q;\nsetp.ne.u32 p, %1, 0;\nvote.sync.any.pred q, p, 0xffffffff;\n"
               "selp.u32 %0, 1, 0, q;\n}\n"
               : "=r"(r)
               : "r"((wg_u32)pred));
  return r != 0;
}

// Whether every lane of the warp has `pred` (vote.all).
WG_FN bool wg_all(bool pred) {
  wg_u32 r;
  asm volatile("{\n.reg .pred p, q;\nsetp.ne.u32 p, %1, 0;\nvote.sync.all.pred q, p, 0xffffffff;\n"
               "selp.u32 %0, 1, 0, q;\n}\n"
               : "=r"(r)
               : "r"((wg_u32)pred));
  return r != 0;
}

// The bitwise OR of v over the warp's lanes (redux.sync.or; every lane active).
WG_FN wg_u32 wg_redux_or(wg_u32 v) {
  wg_u32 r;
  asm volatile("redux.sync.or.b32 %0, %1, 0xffffffff;\n" : "=r"(r) : "r"(v));
  return r;
}

// ---- shared / global moves -------------------------------------------------------------------

// A 4-byte global load (the tile-skipping kernels' list words).
WG_FN wg_u32 wg_ld_global_b32(const void *p) {
  wg_u32 x;
  asm volatile("ld.global.b32 %0, [%1];" : "=r"(x) : "l"(p) : "memory");
  return x;
}

// *addr &= x in shared memory, no result (red.shared.and).
WG_FN void wg_red_shared_and(wg_u32 addr, wg_u32 x) {
  asm volatile("red.shared.and.b32 [%0], %1;" ::"r"(addr), "r"(x) : "memory");
}

// *addr += x in shared memory; returns the old value (atom.shared.add).
WG_FN wg_u32 wg_atom_shared_add(wg_u32 addr, wg_u32 x) {
  wg_u32 r;
  asm volatile("atom.shared.add.u32 %0, [%1], %2;" : "=r"(r) : "r"(addr), "r"(x) : "memory");
  return r;
}

// *p += x in global memory, returning the old *p (atom.global.add).
WG_FN wg_u32 wg_atom_global_add(void *p, wg_u32 x) {
  wg_u32 r;
  asm volatile("atom.global.add.u32 %0, [%1], %2;" : "=r"(r) : "l"(p), "r"(x) : "memory");
  return r;
}

// A flag in shared memory between warps of the block: a release store (the writes before it
// are seen by whoever acquires it) and an acquire load (ptxas neither caches nor hoists it:
// a spin on it rereads shared memory).
WG_FN void wg_st_release_shared_b32(wg_u32 addr, wg_u32 x) {
  asm volatile("st.release.cta.shared.b32 [%0], %1;" ::"r"(addr), "r"(x) : "memory");
}

WG_FN wg_u32 wg_ld_acquire_shared_b32(wg_u32 addr) {
  wg_u32 x;
  asm volatile("ld.acquire.cta.shared.b32 %0, [%1];" : "=r"(x) : "r"(addr) : "memory");
  return x;
}

// *p += x in global memory, no result (red.global.add).
WG_FN void wg_red_global_add(void *p, wg_u32 x) {
  asm volatile("red.global.add.u32 [%0], %1;" ::"l"(p), "r"(x) : "memory");
}

WG_FN void wg_st_shared_b32(wg_u32 addr, wg_u32 x) {
  asm volatile("st.shared.b32 [%0], %1;" ::"r"(addr), "r"(x) : "memory");
}

WG_FN wg_u32 wg_ld_shared_b32(wg_u32 addr) {
  wg_u32 x;
  asm volatile("ld.shared.b32 %0, [%1];" : "=r"(x) : "r"(addr) : "memory");
  return x;
}

WG_FN void wg_ld_shared_v4(wg_u32 &x, wg_u32 &y, wg_u32 &z, wg_u32 &w, wg_u32 addr) {
  asm volatile("ld.shared.v4.b32 {%0, %1, %2, %3}, [%4];"
               : "=r"(x), "=r"(y), "=r"(z), "=r"(w)
               : "r"(addr)
               : "memory");
}

WG_FN void wg_st_global_v4(void *p, wg_u32 x, wg_u32 y, wg_u32 z, wg_u32 w) {
  asm volatile("st.global.v4.b32 [%0], {%1, %2, %3, %4};" ::"l"(p), "r"(x), "r"(y), "r"(z),
               "r"(w)
               : "memory");
}

WG_FN void wg_st_global_b32(void *p, wg_u32 x) {
  asm volatile("st.global.b32 [%0], %1;" ::"l"(p), "r"(x) : "memory");
}

WG_FN void wg_st_global_f32(float *p, float x) {
  asm volatile("st.global.f32 [%0], %1;" ::"l"(p), "f"(x) : "memory");
}
//$ if kv_split == "tail" then

// The tail KV split's fp32 partials in the workspace (written by the attention kernel, read
// by NAME_merge): 8- and 16-byte global moves of 32-bit words.
WG_FN void wg_st_global_v2(void *p, wg_u32 x, wg_u32 y) {
  asm volatile("st.global.v2.b32 [%0], {%1, %2};" ::"l"(p), "r"(x), "r"(y) : "memory");
}

WG_FN void wg_ld_global_v2(wg_u32 &x, wg_u32 &y, const void *p) {
  asm volatile("ld.global.v2.b32 {%0, %1}, [%2];" : "=r"(x), "=r"(y) : "l"(p));
}

WG_FN void wg_ld_global_v4(wg_u32 &x, wg_u32 &y, wg_u32 &z, wg_u32 &w, const void *p) {
  asm volatile("ld.global.v4.b32 {%0, %1, %2, %3}, [%4];"
               : "=r"(x), "=r"(y), "=r"(z), "=r"(w)
               : "l"(p));
}
//$ end

#endif // ATTNGEN_SM90_WGMMA_WRAPPERS_CUH
// ==== end of wgmma / TMA / mbarrier wrappers ==================================================
//$ end
