// attngen 0.1.0 | template templates/sm90/attn_fwd_wgmma.cu.in | variant attn_fwd_d128_bshd_rtne_q1_kv128_w12_tail_tma_wgmma_sm90 | generated, do not edit
#line 1 "templates/common/kargs.h"
// kargs.h: the one kernel-argument block, shared by every target's kernels, the runtime
// (which fills it) and the emulator (which passes it to host-compiled gfx942 kernels).
// Passed by value as the single kernel parameter. Plain C, no includes, so it can be
// inlined into self-contained generated sources and compiled by hiprtc/nvrtc/clang/nvcc.
#ifndef ATTNGEN_KARGS_H
#define ATTNGEN_KARGS_H

typedef struct attngen_kargs {
  const void *q;     // bf16 [B,Sq,H,D] by index, in memory per q_sb, q_ss, q_sh (below)
  const void *k;     // bf16 [B,Skv,H_kv,D] by index (k_* strides)
  const void *v;     // bf16 [B,Skv,H_kv,D] by index (v_* strides)
  void *o;           // bf16 [B,Sq,H,D] by index (o_* strides)
  float *lse;        // fp32 [B,H,Sq] natural-log LSE, or 0 when not requested
  float *ws;         // fp32 workspace for tail KV split partials, or 0 (kv_split = off)
  int B, H, Sq, Skv;
  float scale_log2;  // softmax_scale * log2(e), folded into the exp2 softmax
  int num_q_blocks;  // ceil(Sq / block_m) of the variant
  // Tail KV split plan (see runtime/src/split_plan.c). Linear block ids below
  // split_first are whole (b, h, q-block) jobs; the tail is split in num_splits KV parts.
  int split_first;   // first q-job index that is split; == total q-jobs when no split
  int num_splits;    // KV parts per split q-job (1 = no split)
  int kv_per_split;  // KV rows per part, a multiple of the variant's kv_tile
  int vt_prepass;     // v_path=vt: 1 in the V pre-pass launch, 0 in the attention launch
  // Per-batch key lengths, int32 [B], or 0 = all Skv (attngen_fwd_args.kv_lengths). The
  // kernels clamp each value into [0, Skv]: keys >= the clamped length contribute nothing.
  const int *kv_len;
  // Causal mask (attngen_fwd_args.causal): query i of an entry with n keys sees the keys
  // j <= i + n - Sq (bottom-right aligned). 0 = none; nonzero = the mask, and for the
  // persistent sm90 wgmma kernels the job order the runtime chose (1 = longest first, 2 =
  // pairs of m-blocks, 3 = dynamic (job_section below); templates/sm90/attn_fwd_wgmma.cu.in
  // job_at).
  int causal;
  // KV heads (attngen_fwd_args.heads_kv; == H for a dense call): k and v have H_kv heads
  // ([B,Skv,H_kv,128] / [B,H_kv,Skv,128]) and query head h reads KV head h / (H / H_kv).
  int H_kv;
  // Packed variable-length batch (attngen_fwd_args.cu_seqlens_q/_k), or 0 = dense: int32
  // [B + 1] row offsets into q/o ([total_q, H, 128]) and k/v ([total_kv, H_kv, 128]); Sq and
  // Skv are the largest lengths. Sequence b: start = clamp(cu[b], 0, total), end =
  // clamp(cu[b + 1], 0, total), length = clamp(end - start, 0, Sq or Skv); lse [H, total_q].
  const int *cu_q;
  const int *cu_k;
  int total_q, total_kv;
  // Temporal tile skipping (variant axis skip = on; docs/NUMERICS.md "Tile skipping"); all 0
  // when the call has no skip state (skip = off kernels never read them). The grid: q-tiles
  // of the variant's block_m rows x kv-tiles of its kv_tile keys per (batch, query head).
  // A list is uint32 words: tile (b, h, qt, kt) is bit kt % 32 of word
  // ((b * H + h) * skip_nqt + qt) * skip_nw + kt / 32; bit 1 = skip.
  const unsigned *skip_read;      // R: tiles to skip this call, or 0 = none
  unsigned *skip_write;           // W: this call's list for the next call (every word of the
                                  // job's rows stored whole), or 0 = not written
  const unsigned *skip_must_skip; // MS: skipped whatever R says, or 0 = none
  const unsigned *skip_must_do;   // MD: computed and never marked, wins over R and MS; or 0
  unsigned *skip_count;           // [4]: += skipped tiles, += visited tiles; or 0. [2]: the
                                  // sm90 skip kernels' job counter (0 at launch)
  float skip_threshold_log2;      // T < 0: a computed tile is marked when every valid row's
                                  // max t over the tile is below its running max + T
  int skip_nqt;                   // ceil(Sq / block_m)
  int skip_nkt;                   // ceil(Skv / kv_tile)
  int skip_nw;                    // ceil(skip_nkt / 32): words per (b, h, qt)
  // Element strides (batch, sequence, head) of q, k, v and o; the last dimension is
  // unit-stride. Always filled by the runtime (attngen_fwd_args.q_strides ..., else the
  // layout's dense strides), so a kernel addresses (b, s, h) at b sb + s ss + h sh whatever
  // its layout; a packed batch has sb = 0 (a sequence's first row counts its rows). The host
  // keeps every stride a multiple of 8 and a batch entry's span of each tensor below 2^31
  // bytes, so ss and sh fit 32-bit row offsets.
  long long q_sb, k_sb, v_sb, o_sb;
  int q_ss, q_sh, k_ss, k_sh, v_ss, v_sh, o_ss, o_sh;
  // The dynamic causal job order (causal = 3; the head_dim-64 sm90 wgmma causal kernels, whose
  // ws is then the job counter: 16 bytes of the call's workspace, zeroed on the call's stream
  // before the launch): the (head, batch) pairs of one section of the order (longest job first
  // within a section, sections in turn; templates/sm90/attn_fwd_wgmma.cu.in dyn_job); 0
  // otherwise.
  int job_section;
  // The sm90 wgmma kernels' job decode divides by multiply-shift pairs (templates/common/
  // fastdiv.h, made by the runtime for every launch): divisor i = num_q_blocks, H, H * B,
  // H / H_kv for i = 0..3.
  unsigned div_m[4], div_s[4];
} attngen_kargs;

#endif // ATTNGEN_KARGS_H
#line 1 "templates/common/kargs_tma.h"
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
#line 1 "templates/sm90/wrappers.cuh"
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
#line 185 "templates/sm90/wrappers.cuh"
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

#line 248 "templates/sm90/wrappers.cuh"
// d[0..63] (+)= A(64x16, shared, K-major) * B(16x128, shared, K-major), fp32.
// scale_d = 0 ignores the old d (d = A*B). Accumulator layout (PTX ISA "Matrix Fragments for
// wgmma .m64nNk16"): warp w of the warpgroup owns rows 16w..16w+15; with g = lane/4,
// t = lane%4, d[4i+0], d[4i+1] are row 16w+g, columns 8i+2t, 8i+2t+1; d[4i+2], d[4i+3] the
// same columns of row 16w+g+8.
WG_FN void wg_mma_ss_m64n128k16(float (&d)[64], wg_u64 desc_a, wg_u64 desc_b,
                                  int scale_d) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 "
      "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63}, "
      "%64, %65, p, 1, 1, 0, 0;\n}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
      : "l"(desc_a), "l"(desc_b), "r"(scale_d));
}

// d[0..63] += A(64x16, registers) * B(16x128, shared, N-major: transpose bit), fp32.
// A fragment (same layout as two adjacent n8 chunks of the accumulator, packed to bf16x2,
// lower column in the low half): a0 = rows g, k 2t..2t+1; a1 = row g+8, k 2t..2t+1;
// a2 = row g, k 2t+8..2t+9; a3 = row g+8, k 2t+8..2t+9 (rows relative to 16w).
// scale_d = 0 ignores the old d.
WG_FN void wg_mma_rs_tb_m64n128k16(float (&d)[64], wg_u32 a0, wg_u32 a1, wg_u32 a2,
                                     wg_u32 a3, wg_u64 desc_b, int scale_d) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %69, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 "
      "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63}, "
      "{%64, %65, %66, %67}, "
      "%68, p, 1, 1, 1;\n}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
      : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "l"(desc_b), "r"(scale_d));
}

#line 282 "templates/sm90/wrappers.cuh"
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
#line 626 "templates/sm90/wrappers.cuh"

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
#line 643 "templates/sm90/wrappers.cuh"

#endif // ATTNGEN_SM90_WGMMA_WRAPPERS_CUH
// ==== end of wgmma / TMA / mbarrier wrappers ==================================================
#line 6 "templates/sm90/attn_fwd_wgmma.cu.in"
#define AG_BF16_FN static __device__ __forceinline__
#line 1 "templates/common/bf16_round.h"
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
// Templates pick the mode at expansion time: ag_bf16_rtne(bits).
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
#line 8 "templates/sm90/attn_fwd_wgmma.cu.in"
#define AG_FDIV_FN static __device__ __forceinline__
#define AG_FDIV_DEVICE_ONLY 1
#line 1 "templates/common/fastdiv.h"
// fastdiv.h: n / d for 0 <= n < 2^31 and 1 <= d < 2^31 by a multiply-high and a shift, the
// divisor's pair (m, s) made once on the host. One copy serves the sm90 wgmma template (via
// `//$ include "common/fastdiv.h"`: the job decode's divisions by num_q_blocks, H, H * B and
// H / H_kv, one IMAD.HI and a shift each instead of an inlined 32-bit division) and the runtime
// (runtime/src/api.c fills kargs.div_m / div_s; tests/test_split_plan.c test_fastdiv checks
// the quotients).
//
// Plain C/C++, no includes. Define AG_FDIV_FN before including to change the qualifiers of the
// quotient (CUDA: __device__ __forceinline__; the default is `static inline`, host C/C++), and
// AG_FDIV_DEVICE_ONLY to leave the host's ag_fdiv_make out.
//
// s = ceil(log2 d), m = ceil(2^(31 + s) / d) (< 2^32 as d > 2^(s - 1); d = 1: s = 0, m = 2^31);
// n / d = floor(2n m / 2^(32 + s)): with m = 2^(31 + s) / d + e, 0 <= e < 1, the error term
// n e / 2^(31 + s) < 2^-s <= 1 / d, and the fraction of n / d is at most (d - 1) / d.
#ifndef AG_FASTDIV_H
#define AG_FASTDIV_H

#ifndef AG_FDIV_FN
#define AG_FDIV_FN static inline
#endif

#ifndef AG_FDIV_DEVICE_ONLY
// The pair (m, s) of divisor d (1 <= d < 2^31; the host's side).
static inline void ag_fdiv_make(unsigned int d, unsigned int *m, unsigned int *s) {
  unsigned int l = 0;
  while (l < 31u && (1u << l) < d) ++l;
  *s = l;
  *m = (unsigned int)(((1ull << (31u + l)) + d - 1u) / d);
}
#endif

// n / d for 0 <= n < 2^31, with (m, s) from ag_fdiv_make(d).
AG_FDIV_FN unsigned int ag_fdiv(unsigned int n, unsigned int m, unsigned int s) {
  return (unsigned int)(((unsigned long long)(n + n) * m) >> 32) >> s;
}

#endif // AG_FASTDIV_H
#line 28 "templates/sm90/attn_fwd_wgmma.cu.in"
// attn_fwd_wgmma.cu.in: bf16 forward attention (head_dim 128) for NVIDIA Hopper (sm_90a) with
// warpgroup MMA (wgmma), a producer warpgroup and two consumer warpgroups in ping-pong.
// Variant attn_fwd_d128_bshd_rtne_q1_kv128_w12_tail_tma_wgmma_sm90.
//
// Persistent grid (384 threads = 3 warpgroups per block; grid (min(jobs, SMs), 1, 1)):
// a job is one (m-block of 128 query rows, head, batch); block x runs jobs x, x + gridDim.x,
// ... with m-blocks fastest, then heads, then batch (the blocks running at one time share a
// few heads' K/V in L2; in a grouped-query call (kargs H_kv < H) the consecutive query heads
// of a group read the same KV head's K/V, in place). Under the causal mask (kernel argument)
// the job order is the host's (kargs.causal, job_at): 1 = longest first, m-block-major from
// the last m-block, the block order reversed in odd rounds; 2 = in pairs of equal total
// length, heads in order: block x takes m-blocks n_mb - 1 - k and k of one head in two
// consecutive rounds, so the blocks running at one time share a few heads' K/V in L2 (as
// without the mask) and stay balanced. The K/V ring and the named-barrier ping-pong continue across jobs,
// so the producer loads the next job's Q and first K/V tiles while the consumers finish the
// current job (last P.V, epilogue).
//   warpgroup 0 (producer, 24 registers after setmaxnreg.dec): per job loads Q
//     (128 rows; after all consumers released the previous job's Q: q_empty) and then
//     K and V tiles of 128 keys into a ring of 2 stages. Each tile's arrival
//     completes an mbarrier (full_k / full_v); a stage is refilled after all consumers
//     released it (empty_k / empty_v, one arrival per consumer warp).
//   warpgroups 1 .. 2 (consumers, 240 registers after setmaxnreg.inc): consumer c
//     owns query rows [64c, 64c + 64) of the block. Per KV tile j it issues S_j = Q K_j^T
//     (wgmma m64n128k16, Q and K from shared memory) and O += P_{j-1} V_{j-1}
//     (wgmma m64n128k16, P from registers, V from shared memory read N-major through the
//     descriptor's transpose bit: no transposed copy of V), then does the softmax of S_j
//     while the other consumer's wgmmas run. Named barriers 1 and 2 hand the tensor cores
//     from one consumer to the other (ping-pong): consumer c waits on barrier 1 + c before
//     issuing and arrives on the other's barrier after issuing.
//
#line 59 "templates/sm90/attn_fwd_wgmma.cu.in"
// Loads (load = tma): thread 0 of the producer issues every copy as a bulk tensor copy
// (cp.async.bulk.tensor.4d) through the tensor maps of the kernel's one parameter
// (attngen_kargs_tma, `const __grid_constant__`: the maps stay in parameter space, encoded by
// the runtime per call: 4D (d, sequence, head, batch) with the call's strides, so rows past
// Sq / Skv are out of bounds and zero-filled, never another head's rows). A tile's rows of
// 128 elements are 2 box(es) of 64 columns (128 bytes) that the copy engine
// writes 128-byte swizzled, the layout the wgmma descriptors read. Each tile's mbarrier expects one arrival (with the
// tile's byte count, mbarrier.arrive.expect_tx) and completes when the bytes have landed;
// the copies write through the async proxy that wgmma reads, so no proxy fence is needed.
// K and V carry an L2 evict_last hint (every m-block of the head reads them), Q evict_first.
// Thread 32 of the producer warpgroup stores O (below); the other 126 producer threads only
// give their registers back (setmaxnreg.dec).
#line 81 "templates/sm90/attn_fwd_wgmma.cu.in"
//
// Shared memory (128-byte swizzle: in every 1024-byte atom of 8 rows x 128 bytes, 16-byte
// chunk c of row r sits at chunk c ^ (r & 7)); rows of 256 bytes are split into
// 2 box(es) of 64 columns (d 0..63, 64..127, ...; "halves" below, whatever their count),
// each a K-major (Q, K) or N-major (V) canonical layout:
#line 87 "templates/sm90/attn_fwd_wgmma.cu.in"
//   Q [2][2][128][128 B] | K [2][2][128][128 B]
//   | V (same) | O staging [2][2][64][128 B] | mbarriers
#line 90 "templates/sm90/attn_fwd_wgmma.cu.in"
// Two Q buffers: job n of the block reads buffer n % 2, so the producer loads the next job's
// Q while the current job runs (it only waits until job n - 2 released the buffer) and the
// job boundary does not wait for a Q load.
#line 99 "templates/sm90/attn_fwd_wgmma.cu.in"
// O leaves through shared memory: a consumer rounds its 64 rows into an O buffer (the
// layout of a Q half, 128-byte swizzled; each thread's 4-byte words hit 32 different banks),
// fences them for the async proxy and arrives on the buffer's o_full mbarrier; thread 32 of
// the producer warpgroup (the storer) then writes the buffer to global memory with two bulk
// tensor stores through the o map (rows past Sq are dropped), waits until they have read
// the buffer and frees it (named barriers 3 and 4, kBarOFree below). With 2 buffer(s): one per consumer.
#line 111 "templates/sm90/attn_fwd_wgmma.cu.in"
// Packed variable-length batches (kernel argument kargs.cu_q / cu_k, bshd only; 0 = dense):
// the jobs are (m-block, head, sequence) over ceil(Sq / block_m) m-blocks, Sq the largest
// query length; every role of the block (producer, storer, consumers) walks the same jobs and
// passes over those whose m-block starts at or past the sequence's query length (live_round).
// Q/K/V/O rows are addressed from the sequence's first row (the maps and pointers see one
// batch entry of total rows). Tiles that reach past a sequence read the next sequence's rows
// (or zeros past the total): harmless for Q (rows are independent, and rows past the
// sequence are never stored), and for K/V those keys are masked exactly like keys past a
// kv_len (scores -inf, V rows zeroed: zero_v_tail). O rows past the sequence must not be
// stored (they belong to the next sequence): a consumer whose 64 rows cross the sequence's
// end stores them from registers, row by row (the storer skips that box); LSE goes to
// [H, total_q]. Dense calls keep every loop as it was (per-job setup only).
#line 144 "templates/sm90/attn_fwd_wgmma.cu.in"
// Tail KV split (kv_split = tail; runtime/src/split_plan.h plans it per call, kargs
// split_first, num_splits, kv_per_split): the jobs below split_first are whole q-jobs as
// above; job split_first + t is part p = t % num_splits of q-job split_first + t / num_splits,
// its KV tiles [p T, (p + 1) T) (T = kv_per_split / 128, cut at the entry's key length; a
// part past the length runs its first tile with every key masked, as a job without keys). The
// persistent blocks take them after the whole jobs (the plan puts them in the last round). A
// part neither stores O nor LSE: each consumer writes its rows' unnormalised fp32 O, and
// (m, l) (m = -inf for a part without keys), to the workspace (a.ws: part slot t at float
// t x 128 x 130: 128 rows of 128 O values, then 128 (m, l) pairs); the
// storer and the O buffers pass the parts over. attn_fwd_d128_bshd_rtne_q1_kv128_w12_tail_tma_wgmma_sm90_merge (below) combines the parts of
// each split q-job in the fixed order 0..num_splits-1 and writes O and LSE.
#line 156 "templates/sm90/attn_fwd_wgmma.cu.in"
// Numerics follow docs/NUMERICS.md step by step (comments numbered like its steps).
// attngen-launch: threads=384 block_m=128 smem_bytes=230528

namespace {

constexpr int kD = 128;              // head_dim: elements per row of q, k, v, o
constexpr int kBoxes = 2;              // 64-column boxes per row ("halves")
constexpr int kORegs = kD / 2;               // fp32 O registers per consumer thread
constexpr int kKv = 128;              // keys per KV tile
constexpr int kStages = 2;
constexpr int kBlockM = 128;
constexpr int kConsumers = 2;      // consumer warpgroups, 64 query rows each
constexpr int kSRegs = 64;      // fp32 S registers per consumer thread
constexpr int kPRegs = 32;      // bf16x2 P registers per consumer thread
constexpr int kKvChunks = 16;   // 16-byte copies per producer thread per tile
constexpr wg_u32 kQHalf = 16384;
constexpr wg_u32 kKvHalf = 16384;
constexpr wg_u32 kKvStage = 32768;
constexpr int kQBufs = 2;            // Q buffers: job n uses buffer n % kQBufs
constexpr wg_u32 kQBytes = 32768;
constexpr wg_u32 kOffK = kQBufs * kQBytes;
constexpr wg_u32 kOffV = kOffK + kStages * kKvStage;
#line 179 "templates/sm90/attn_fwd_wgmma.cu.in"
constexpr int kOBufs = 2;
constexpr wg_u32 kOBufBytes = 16384;  // boxes x 64 rows x 128 bytes
constexpr wg_u32 kOBox = kOBufBytes / kBoxes;
constexpr wg_u32 kOffO = kOffV + kStages * kKvStage;
constexpr wg_u32 kOffBar = kOffO + kOBufs * kOBufBytes;
#line 187 "templates/sm90/attn_fwd_wgmma.cu.in"
constexpr float kLn2 = 0.693147180559945309f;
#line 191 "templates/sm90/attn_fwd_wgmma.cu.in"

// 128-byte swizzled, 1024-byte atoms: wgmma shared-memory descriptor for a start address,
// leading and stride byte offsets (PTX ISA "Matrix Descriptor Format", swizzle mode 1).
__device__ __forceinline__ wg_u64 make_desc(wg_u32 addr, wg_u32 lbo, wg_u32 sbo) {
  return (wg_u64)((addr & 0x3FFFFu) >> 4) | ((wg_u64)((lbo & 0x3FFFFu) >> 4) << 16) |
         ((wg_u64)((sbo & 0x3FFFFu) >> 4) << 32) | (1ull << 62);
}

// The descriptor d advanced by `bytes` (a multiple of 16): one 32-bit add on the start address
// field, which cannot carry into the leading byte offset (shared addresses stay below 2^18).
// Built once per tile and advanced per k-step, as CUTLASS's descriptor iterator does: the
// per-k-step mask/shift/or sequence (0.9 uniform-datapath instructions per score, run G1) goes.
__device__ __forceinline__ wg_u64 desc_add(wg_u64 d, wg_u32 bytes) {
  const wg_u32 lo = (wg_u32)d + (bytes >> 4);
  return ((d >> 32) << 32) | (wg_u64)lo;
}

// Byte offset of 16-byte chunk c (0..7) of row r in a swizzled half (r counted from an atom
// boundary; rows are 128 bytes apart).
__device__ __forceinline__ wg_u32 swz(int r, int c) {
  return (wg_u32)(r * 128 + ((c ^ (r & 7)) << 4));
}

// P (step 5): two fp32 probabilities -> bf16x2 with the variant's rounding, lower column low.
// For P only finite values in [0, 1] and NaN occur; NaN stays a NaN (it only feeds P.V).
__device__ __forceinline__ wg_u32 pack_p(float lo, float hi) {
#line 218 "templates/sm90/attn_fwd_wgmma.cu.in"
  return wg_pack_bf16x2_rn(lo, hi);
#line 226 "templates/sm90/attn_fwd_wgmma.cu.in"
}

// Output rounding (step 6) of two values, lower column low: exactly the docs/NUMERICS.md formula
// (NaN -> 0x7FFF, +-Inf kept, overflow per the formula). RTNE and RTZ are one cvt each
// (cvt.rn / cvt.rz to bf16x2 round finite values as the formulas and give 0x7FFF for every
// NaN); RTNA has no cvt and uses the integer formula.
__device__ __forceinline__ wg_u32 round_out2(float lo, float hi) {
#line 234 "templates/sm90/attn_fwd_wgmma.cu.in"
  return wg_pack_bf16x2_rn(lo, hi);
#line 240 "templates/sm90/attn_fwd_wgmma.cu.in"
}

__device__ __forceinline__ void mbar_wait(wg_u32 bar, wg_u32 parity) {
  while (!wg_mbar_try_wait(bar, parity)) {
  }
}

} // namespace

// The kernel's body, instantiated once per entry point: attn_fwd_d128_bshd_rtne_q1_kv128_w12_tail_tma_wgmma_sm90 (kVarEntry = false) and, where
// the variant has it (var_entry = 0), attn_fwd_d128_bshd_rtne_q1_kv128_w12_tail_tma_wgmma_sm90_var (true), which the runtime launches
// for calls with key lengths or packed batches; the first is then built without their code.
#line 253 "templates/sm90/attn_fwd_wgmma.cu.in"
template <bool kVarEntry>
static __device__ __forceinline__ void attn_body(const attngen_kargs_tma &prm) {
  const attngen_kargs a = prm.a;            // (a reference kept the param address live: a spill)
#line 260 "templates/sm90/attn_fwd_wgmma.cu.in"
  extern __shared__ __align__(1024) unsigned char smem_raw[];
  const wg_u32 sbase = (wg_smem_addr(smem_raw) + 1023u) & ~1023u;
  const wg_u32 sQ = sbase;
  const wg_u32 sK = sbase + kOffK;
  const wg_u32 sV = sbase + kOffV;
  const wg_u32 bar_q = sbase + kOffBar;            // [Q buffer]: Q landed
  const wg_u32 bar_q_empty = bar_q + 8 * kQBufs;   // [Q buffer]: released (job's last S done)
  const wg_u32 bar_full_k = bar_q_empty + 8 * kQBufs;  // [stage]: K tile landed
  const wg_u32 bar_full_v = bar_full_k + 8 * kStages;
  const wg_u32 bar_empty_k = bar_full_v + 8 * kStages;  // [stage]: K tile released
  const wg_u32 bar_empty_v = bar_empty_k + 8 * kStages;
#line 272 "templates/sm90/attn_fwd_wgmma.cu.in"
  // (macros, not variables: computed where used, so that no register holds them in the
  // producer's 24-register code)
#define sO (sbase + kOffO)
#define bar_o_full (bar_empty_v + 8 * kStages)   /* [O buffer]: written (128 arrivals) */
  // The producer thread's count of the jobs it loaded (the Q buffers' uses; a packed batch
  // passes over jobs, so the round is not the count): in shared memory, because held in one
  // of its 24 registers it spilled. (16 bytes: the derive of target_sm90_wgmma.lua.)
#define job_count (bar_o_full + 8 * kOBufs)
  // The Q tile coordinates of the job being loaded, made where its keys are and read where
  // its Q is loaded (after K_0; decoded there, a packed sequence's first row spilled): the
  // row (a packed sequence's first row + the m-block's), and head | batch << 16 (both are
  // < 2^16: ATTNGEN__GRID_YZ_LIMIT).
#define job_q_row (job_count + 4)
#define job_q_hb (job_count + 8)
#line 303 "templates/sm90/attn_fwd_wgmma.cu.in"
  // O buffer free again (its stores have read it): named barriers kBarOFree + c (after the
  // consumers' turn barriers 1..kConsumers), 160 threads (a consumer's 128 wait with bar.sync,
  // the storer's warp arrives). One buffer: kBarOFree + c = "free for consumer c" (the
  // storer arrives on it after storing the previous consumer's tile); a buffer per consumer:
  // kBarOFree + c = "buffer c free". The storer makes each job's first arrivals when it
  // takes the job up (consumer 0's barrier, and every consumer's with a buffer per consumer:
  // the previous job's stores have read the buffers), so no arrival is left that no use
  // waits for.
  constexpr wg_u32 kBarOFree = 1 + kConsumers;
#line 313 "templates/sm90/attn_fwd_wgmma.cu.in"

  const int tid = (int)threadIdx.x;
  // The warpgroup index, broadcast from lane 0 so that the compiler knows it is the same in
  // the whole warp: what derives from it (shared addresses, wgmma descriptors) then stays in
  // the uniform datapath instead of being moved there (R2UR) before every wgmma.
  const int wgroup = __shfl_sync(0xffffffffu, tid >> 7, 0);
  const int H = a.H, Sq = a.Sq, Skv = a.Skv;
  // KV heads (grouped-query calls: H_kv divides H; 0 = H): query head h reads K and V of KV
  // head h H_kv / H = h / (H / H_kv)
  const int Hkv = a.H_kv > 0 ? a.H_kv : H;
  const int n_mb = a.num_q_blocks;
  // Quotients by the call's divisors (kargs.div_m / div_s, templates/common/fastdiv.h): one
  // multiply-high and a shift instead of an inlined division, in every role's job decode.
  auto div_nmb = [&](int n) -> int { return (int)ag_fdiv((wg_u32)n, a.div_m[0], a.div_s[0]); };
  auto div_h = [&](int n) -> int { return (int)ag_fdiv((wg_u32)n, a.div_m[1], a.div_s[1]); };
  auto div_nhb = [&](int n) -> int { return (int)ag_fdiv((wg_u32)n, a.div_m[2], a.div_s[2]); };
  // query head h reads KV head h H_kv / H = h / (H / H_kv)
  auto div_group = [&](int h) -> int { return (int)ag_fdiv((wg_u32)h, a.div_m[3], a.div_s[3]); };
#line 332 "templates/sm90/attn_fwd_wgmma.cu.in"
  // jobs: the whole q-jobs below split_first, then num_splits parts of each later q-job
  const int n_jobs = a.split_first + (n_mb * H * a.B - a.split_first) * a.num_splits;
#line 337 "templates/sm90/attn_fwd_wgmma.cu.in"
  const int n_tiles = (Skv + kKv - 1) / kKv;
  // A packed batch (kargs.cu_q != 0; the host allows it with bshd and head_dim 128 only, so
  // the other kernels compile without its code: in the head_dim 64 ones it spilled 4 bytes):
  // Sq and Skv are the largest lengths. Key lengths: kvl (kargs.kv_len). Where the variant
  // has the entry attn_fwd_d128_bshd_rtne_q1_kv128_w12_tail_tma_wgmma_sm90_var, only that one has their code (the runtime launches it for
  // such calls) and attn_fwd_d128_bshd_rtne_q1_kv128_w12_tail_tma_wgmma_sm90 traps if given one.
#line 347 "templates/sm90/attn_fwd_wgmma.cu.in"
  const int *const kvl = a.kv_len;
#line 352 "templates/sm90/attn_fwd_wgmma.cu.in"
  constexpr bool packed = false;
#line 354 "templates/sm90/attn_fwd_wgmma.cu.in"
  // Sequence b of a packed batch in a cu_seqlens array: its first row (start) and length,
  // clamped as kargs.h says, so that no value can address a row outside [0, total).
  auto seq_of = [&](const int *cu, int b, int total, int max, int &start) -> int {
    int s0 = cu[b], e0 = cu[b + 1];
    s0 = s0 < 0 ? 0 : (s0 > total ? total : s0);
    e0 = e0 < 0 ? 0 : (e0 > total ? total : e0);
    start = s0;
    const int n = e0 - s0;
    return n < 0 ? 0 : (n > max ? max : n);
  };
  // The query rows of batch entry b (Sq, or its sequence's length) and its first row.
  auto q_len = [&](int b, int &row0) -> int {
    row0 = 0;
    return packed ? seq_of(a.cu_q, b, a.total_q, Sq, row0) : Sq;
  };
  // The causal mask is the variant's (axis mask; the dispatcher gives it only calls with
  // kargs.causal set accordingly): the dense kernels compile without any of its code.
#line 374 "templates/sm90/attn_fwd_wgmma.cu.in"
  constexpr bool kCausal = false;
#line 376 "templates/sm90/attn_fwd_wgmma.cu.in"
  // Keys of the jobs of batch entry b: its length (attngen_kargs.kv_len) clamped into
  // [0, Skv], or Skv; and a job's KV tiles: at least one (a job with no key runs one fully
  // masked tile, so that every job keeps its place in the pipeline; n_tiles == 0, Skv = 0,
  // is handled apart).
  // A packed sequence's keys: the smaller of its cu_seqlens_k length and its kv_len; its
  // first key row in row0 (0 in a dense call).
  auto keys_of = [&](int b, int &row0) -> int {
    int n = Skv;
    if (kvl != nullptr) {
      n = kvl[b];
      n = n < 0 ? 0 : (n > Skv ? Skv : n);
    }
    row0 = 0;
    if (packed) {
      const int m = seq_of(a.cu_k, b, a.total_kv, Skv, row0);
      n = m < n ? m : n;
    }
    return n;
  };
  auto tiles_of = [&](int keys) -> int { return keys > kKv ? (keys + kKv - 1) / kKv : 1; };
  // The causal mask (a.causal): query row i of an entry with n keys and sq queries (Sq, or
  // its sequence's length) sees the keys j <= i + n - sq. The keys the job of m-block row q0
  // needs: below min(n, min(q0 + block_m, sq) + n - sq) (<= 0: none of its rows sees a key);
  // its tiles past them are neither loaded nor computed.
  auto job_keys = [&](int n, int q0, int sq) -> int {
    if (!kCausal) return n;
    const int last = (q0 + kBlockM < sq ? q0 + kBlockM : sq) + n - sq;
    return last < n ? last : n;
  };
#line 406 "templates/sm90/attn_fwd_wgmma.cu.in"
  (void)job_keys;                          // (no causal mask with the split)
#line 408 "templates/sm90/attn_fwd_wgmma.cu.in"
  // The job of this block's round i (job = (batch * H + head) * n_mb + m-block; >= n_jobs:
  // none left; increasing in i for each block): x + i * gridDim.x. Causal calls, in the
  // order kargs.causal names (1 or 2, the host's choice): the position F of the round in an
  // order of the jobs, mapped to the job at F:
  //   1, longest first: F = x + i g, the blocks reversed in odd rounds (snake: no block gets
  //     the shorter job of every round); F -> m-block n_mb - 1 - F / (H B), (head, batch)
  //     F % (H B). Balanced, but the blocks running at one time read as many heads' K/V as
  //     there are blocks: when that exceeds L2, each round reads K/V from DRAM again.
  //   2, pairs: F = 2 x + (i & 1) + (i >> 1) 2 g, heads in order, and in each head the
  //     m-blocks zigzag n_mb - 1, 0, n_mb - 2, 1, ...: a block's two rounds 2r, 2r + 1 take
  //     m-blocks n_mb - 1 - k and k (together n_mb + 1 tiles when Sq = Skv; an odd n_mb
  //     pairs across heads), and the blocks running at one time read about 2 g / n_mb heads.
#line 456 "templates/sm90/attn_fwd_wgmma.cu.in"
  auto job_at = [&](int i) -> int {
    const int k = (int)blockIdx.x, g = (int)gridDim.x;
#line 466 "templates/sm90/attn_fwd_wgmma.cu.in"
    if (!kCausal) return i * g + k;
    if (a.causal == 2) {
#line 469 "templates/sm90/attn_fwd_wgmma.cu.in"
      // Pairs for the first 2 R rounds (R <= n_jobs / 2g - 1 rounds of pairs: every block has
      // the same total then); the jobs left (zigzag positions T = 2 R g on: head hb0's m-blocks
      // [lo, hi] not yet run, all of the nf heads after it) longest first, the blocks reversed
      // in odd rounds, so the blocks end together (pairs alone leave the last round of pairs
      // part-empty: SMs up to one pair's tiles apart). That end reads more heads' K/V at a
      // time than a round of pairs, so it runs only where the pairs' part-empty last round
      // costs more: R >= 3, or R >= 1 where the pairs' rounds ceil(P / g) (P = ceil(n_jobs / 2)
      // pairs) are more than 11/10 of P / g (runtime/src/split_plan.h attngen__pair_end_round,
      // the same rule; bench/RESULTS.md runs M89, M92, M94). (The host's choice as a kernel
      // argument instead cost short calls 2.2-2.6%: 280 instructions more, or a spill.) Head
      // hb0 odd with n_mb odd started with its middle m-block (below): [lo, hi] less that one.
      // (Kernels with the dynamic order, which the host takes instead of pairs: pairs only;
      // this end spilled 4 bytes in the head_dim-64 two-consumer kernel.)
      const int rp = n_jobs / (2 * g) - 1;
      const unsigned pairs = ((unsigned)n_jobs + 1u) >> 1;
      const unsigned pr = pairs > (unsigned)((rp + 1) * g) ? rp + 2 : rp + 1;  // ceil(P / g)
      if ((rp >= 3 || (rp >= 1 && 10u * pr * (unsigned)g > 11u * pairs)) && i >= 2 * rp) {
        const int tr = i - 2 * rp, t0 = 2 * rp * g;
        const int t = tr * g + ((tr & 1) ? g - 1 - k : k);
        if (t >= n_jobs - t0) return n_jobs;
        const int hb0 = div_nmb(t0), p0 = t0 - hb0 * n_mb;
        const int hole = (n_mb & hb0 & 1) && p0 > 0 ? (n_mb - 1) >> 1 : -1;
        const int pp = hole >= 0 ? p0 - 1 : p0;
        const int lo = pp >> 1, hi = n_mb - 1 - ((pp + 1) >> 1);
        const int nf = H * a.B - 1 - hb0;    // heads after hb0, whole
        const int above = (n_mb - 1 - hi) * nf;
        const int mid = (hi - lo + 1) * (nf + 1) - (hole >= 0);
        if (t >= above && t < above + mid) {  // m-blocks hi .. lo: head hb0 and the nf after
          int u = t - above;
          if (hole >= 0) {                    // (the hole's level: the nf heads after only)
            const int uh = (hi - hole) * (nf + 1);
            if (u >= uh && u < uh + nf) return (hb0 + 1 + u - uh) * n_mb + hole;
            if (u >= uh + nf) ++u;
          }
          const int q = u / (nf + 1);
          return (hb0 + u - q * (nf + 1)) * n_mb + hi - q;
        }
        const int u = t < above ? t : t - mid;   // (nf > 0 here: levels of nf jobs)
        const int q = u / nf;
        return (hb0 + 1 + u - q * nf) * n_mb +
               (t < above ? n_mb - 1 - q : lo - 1 - (q - (n_mb - 1 - hi)));
      }
#line 512 "templates/sm90/attn_fwd_wgmma.cu.in"
      const int f = ((i >> 1) * g + k) * 2 + (i & 1);
      if (f >= n_jobs) return n_jobs;
      const int hb = div_nmb(f);
      int pos = f - hb * n_mb;
      // An odd n_mb: a pair that crosses from head hb - 1 (even) into head hb pairs the two
      // heads' middle m-blocks (head hb - 1's zigzag ends with its middle; head hb starts with
      // its middle, then its other m-blocks zigzag), so that every pair has n_mb + 1 tiles
      // (across the boundary it had between (n_mb + 3) / 2 and 3 n_mb / 2: e.g. 47 m-blocks
      // left the SMs far apart).
      if (n_mb & hb & 1) pos = pos == 0 ? n_mb - 1 : pos - 1;
      return hb * n_mb + ((pos & 1) ? pos >> 1 : n_mb - 1 - (pos >> 1));
    }
    const int f = i * g + ((i & 1) ? g - 1 - k : k);
    if (f >= n_jobs) return n_jobs;
    const int nhb = H * a.B;
    const int q = div_nhb(f);
    return (f - q * nhb) * n_mb + n_mb - 1 - q;
  };
  // Job -> (m-block, head, batch): m-blocks fastest. A split part: its q-job's.
  auto decode = [&](int job, int &mb, int &h, int &b) {
#line 533 "templates/sm90/attn_fwd_wgmma.cu.in"
    if (job >= a.split_first) job = a.split_first + (job - a.split_first) / a.num_splits;
#line 535 "templates/sm90/attn_fwd_wgmma.cu.in"
    const int hb = div_nmb(job);
    mb = job - hb * n_mb;
    b = div_h(hb);
    h = hb - b * H;
  };
  // The first round at or after round i whose job has query rows (past the last job: a round
  // whose job is >= n_jobs). Dense calls: i itself. A packed job whose m-block starts at or
  // past its sequence's length is passed over by every role alike.
  auto live_round = [&](int i) -> int {
    while (packed) {
      const int job = job_at(i);
      if (job >= n_jobs) break;
      int mb, h, b, r0;
      decode(job, mb, h, b);
      if (mb * kBlockM < q_len(b, r0)) break;
      ++i;
    }
    return i;
  };
#line 555 "templates/sm90/attn_fwd_wgmma.cu.in"
  // The KV tiles [j0, end) of job `job` with kn keys (its entry's length): every tile of a
  // whole q-job; part p: [p T, min(p T + T, tiles_of(kn))), T = kv_per_split / kKv tiles; a
  // part past the length (no key) runs tile p T with every key masked (out of its m: -inf).
  // Returns end.
  auto part_tiles = [&](int job, int kn, int &j0) -> int {
    const int nt = tiles_of(kn);
    j0 = 0;
    if (job < a.split_first) return nt;
    const int per = a.kv_per_split / kKv;
    j0 = (job - a.split_first) % a.num_splits * per;
    const int end = j0 + per < nt ? j0 + per : nt;
    return end > j0 ? end : j0 + 1;
  };
#line 569 "templates/sm90/attn_fwd_wgmma.cu.in"
  // Tile skipping (variant axis skip): the dense kernels compile without any of its code.
#line 573 "templates/sm90/attn_fwd_wgmma.cu.in"
  constexpr bool kSkip = false;
#line 575 "templates/sm90/attn_fwd_wgmma.cu.in"
  // A job's list entry: the index of its first word (the host keeps lists below 2^32 words).
  auto skip_base = [&](int mb, int h, int b) -> wg_u32 {
    return (((wg_u32)b * (wg_u32)H + (wg_u32)h) * (wg_u32)a.skip_nqt + (wg_u32)mb) *
           (wg_u32)a.skip_nw;
  };
  // Word w of the lists: the tiles computed, ~((R | MS) & ~MD).
  auto live_word = [&](wg_u32 w) -> wg_u32 {
    wg_u32 sk = 0;
    if (a.skip_read != 0) sk = wg_ld_global_b32(a.skip_read + w);
    if (a.skip_must_skip != 0) sk |= wg_ld_global_b32(a.skip_must_skip + w);
    if (a.skip_must_do != 0) sk &= ~wg_ld_global_b32(a.skip_must_do + w);
    return ~sk;
  };
  (void)skip_base;                         // (used by the skip variants only)
  (void)live_word;
  (void)kSkip;
  (void)skip_base;
  (void)live_word;
#line 600 "templates/sm90/attn_fwd_wgmma.cu.in"
  // Element offsets of job `job`'s first Q, K, V and O rows (K and V: those of its KV head)
  // through the call's strides (kargs.h: (b, s, h) at b sb + s ss + h sh, whatever the
  // layout): 64-bit per-(batch, head) bases, 32-bit row offsets within a batch entry. Also
  // returns the job's first query row. A packed job: the bases of its sequence's first rows
  // (sb = 0: b counts no rows).
  auto job_bases = [&](int job, long long &q_base, long long &k_base, long long &v_base,
                       long long &o_base, int &q0, int &h, int &b) {
    int mb;
    decode(job, mb, h, b);
    q0 = mb * kBlockM;
    const int hk = div_group(h);
    int qr = 0, kr = 0;
    if (packed) {
      q_len(b, qr);
      keys_of(b, kr);
    }
    q_base = (long long)b * a.q_sb + (long long)qr * a.q_ss + (long long)h * a.q_sh;
    o_base = (long long)b * a.o_sb + (long long)qr * a.o_ss + (long long)h * a.o_sh;
    k_base = (long long)b * a.k_sb + (long long)kr * a.k_ss + (long long)hk * a.k_sh;
    v_base = (long long)b * a.v_sb + (long long)kr * a.v_ss + (long long)hk * a.v_sh;
  };

#line 623 "templates/sm90/attn_fwd_wgmma.cu.in"
  constexpr wg_u32 kFullArrivals = 1;        // the producer thread's arrive.expect_tx
#line 627 "templates/sm90/attn_fwd_wgmma.cu.in"
  if (tid == 0) {
    for (int i = 0; i < kQBufs; ++i) {
      wg_mbar_init(bar_q + 8 * i, kFullArrivals);
      wg_mbar_init(bar_q_empty + 8 * i, 4 * kConsumers);  // one arrival per consumer warp
    }
    for (int s = 0; s < kStages; ++s) {
      wg_mbar_init(bar_full_k + 8 * s, kFullArrivals);
      wg_mbar_init(bar_full_v + 8 * s, kFullArrivals);
      wg_mbar_init(bar_empty_k + 8 * s, 4 * kConsumers);
      wg_mbar_init(bar_empty_v + 8 * s, 4 * kConsumers);
    }
#line 639 "templates/sm90/attn_fwd_wgmma.cu.in"
    for (int i = 0; i < kOBufs; ++i) wg_mbar_init(bar_o_full + 8 * i, 128);  // its consumer
#line 648 "templates/sm90/attn_fwd_wgmma.cu.in"
    wg_fence_mbar_init();
  }
  __syncthreads();

  if (wgroup == 0) {
    // ================================ producer ================================
    wg_setmaxnreg_dec<24>();
#line 656 "templates/sm90/attn_fwd_wgmma.cu.in"
    if (tid == 0 && n_tiles > 0) {
      const void *map_q = &prm.q;
      const void *map_k = &prm.k;
      const void *map_v = &prm.v;
      wg_prefetch_tensormap(map_q);
      wg_prefetch_tensormap(map_k);
      wg_prefetch_tensormap(map_v);
      // L2 policies made where used (one instruction each), not held: this thread has 24
      // registers.
#define keep wg_policy_evict_last()
#define once wg_policy_evict_first()
      int it = 0;                            // K/V tiles issued so far (ring position)
      wg_st_shared_b32(job_count, 0u);
#line 690 "templates/sm90/attn_fwd_wgmma.cu.in"
      // A packed job without query rows is passed over here (continue) rather than by
      // live_round: that second copy of the test in the loop's step spilled.
#line 710 "templates/sm90/attn_fwd_wgmma.cu.in"
      for (int ri = 0;; ++ri) {
        const int job = job_at(ri);
        if (job >= n_jobs) break;
        // K/V of the job's KV head hk; its Q coordinates (row, head, batch) go to shared
        // memory for j == 0 (held across the tile loop next to hk they cost this 24-register
        // thread a spill). The K/V coordinates: row j kKv of batch b, or in a packed batch
        // row kr + j kKv of batch 0, kr the sequence's first key row; one register holds b or
        // kr (kc; both held spilled).
        int mb, h, b;
        decode(job, mb, h, b);
        const int hk = div_group(h);
        int nt = n_tiles, kc = b, qr = 0;
#line 723 "templates/sm90/attn_fwd_wgmma.cu.in"
        int j0;                              // the job's first tile (a split part's)
        {
          int kr;
          nt = part_tiles(job, keys_of(b, kr), j0);
        }
#line 741 "templates/sm90/attn_fwd_wgmma.cu.in"
        wg_st_shared_b32(job_q_row, (wg_u32)(qr + mb * kBlockM));
        wg_st_shared_b32(job_q_hb, (wg_u32)h | ((wg_u32)b << 16));
#define kv_row (packed ? kc + j * kKv : j * kKv)
#define kv_batch (packed ? 0 : kc)
#line 754 "templates/sm90/attn_fwd_wgmma.cu.in"
        for (int j = j0; j < nt; ++j, ++it) {
#line 756 "templates/sm90/attn_fwd_wgmma.cu.in"
          const int s = it % kStages;
          const wg_u32 round_parity = (wg_u32)((it / kStages - 1) & 1);
          // K tile j, then V tile j (keys past Skv are zero-filled: their scores are masked,
          // and P is 0 there, so 0 * 0 cannot inject a NaN; keys past a shorter length are
          // loaded, masked, and their V rows zeroed by the consumers: zero_v_tail).
          if (it >= kStages) mbar_wait(bar_empty_k + 8 * s, round_parity);
          const wg_u32 fk = bar_full_k + 8 * s;
          const wg_u32 dk = sK + s * kKvStage;
          wg_mbar_arrive_expect_tx(fk, kBoxes * kKvHalf);
#pragma unroll
          for (int x = 0; x < kBoxes; ++x)
            wg_tma_load_4d(dk + x * kKvHalf, map_k, fk, 64 * x, kv_row, hk, kv_batch, keep);
          if (j == j0) {
            // The job's Q after its first K tile: K_0's stage is free a round before the
            // previous job's last S releases Q, so K_0 is not held up behind that wait.
            // Job nj's Q goes to buffer nj % kQBufs, its (nj / kQBufs)-th use: wait until the
            // use before was released (with two buffers: by job nj - 2, long done).
            const int mq = (int)wg_ld_shared_b32(job_q_row);
            const wg_u32 hbq = wg_ld_shared_b32(job_q_hb);
            const int hq = (int)(hbq & 0xFFFFu), bq = (int)(hbq >> 16);
            const int nj = (int)wg_ld_shared_b32(job_count);  // the job's place in the block
            wg_st_shared_b32(job_count, (wg_u32)nj + 1u);
            const int qb = nj % kQBufs, qu = nj / kQBufs;
            if (qu > 0) mbar_wait(bar_q_empty + 8 * qb, (wg_u32)((qu - 1) & 1));
            const wg_u32 fq = bar_q + 8 * qb;
            const wg_u32 dq = sQ + (wg_u32)qb * kQBytes;
            wg_mbar_arrive_expect_tx(fq, kBoxes * kQHalf);
#pragma unroll
            for (int x = 0; x < kBoxes; ++x)
              wg_tma_load_4d(dq + x * kQHalf, map_q, fq, 64 * x, mq, hq, bq, once);
            // (No L2 prefetch of the next job's Q: run T5 measured no effect, and its
            // coordinates cost this 24-register thread a spill here.)
          }
          if (it >= kStages) mbar_wait(bar_empty_v + 8 * s, round_parity);
          const wg_u32 fv = bar_full_v + 8 * s;
          const wg_u32 dv = sV + s * kKvStage;
          wg_mbar_arrive_expect_tx(fv, kBoxes * kKvHalf);
#pragma unroll
          for (int x = 0; x < kBoxes; ++x)
            wg_tma_load_4d(dv + x * kKvHalf, map_v, fv, 64 * x, kv_row, hk, kv_batch, keep);
        }
#undef kv_row
#undef kv_batch
      }
#undef keep
#undef once
    } else if ((tid >> 5) == 1 && kOBufs > 0) {
      // The storer (warp 1; lane 0 issues): the O buffers of the block's jobs in the
      // consumers' order (job by job, consumer 0 then 1), each as one bulk tensor store of
      // 64 rows x 64 columns per box.
      const bool issuer = tid == 32;
      const void *map_o = &prm.o;
      if (issuer) wg_prefetch_tensormap(map_o);
      // The k-th use of a buffer completes phase k of its o_full: with one buffer the uses
      // are kConsumers n + c, with a buffer per consumer n (n: the count of the block's jobs
      // stored so far, whose parity jpar holds). Each job begins with the arrivals that free
      // the buffer(s) for its first box(es) (the previous job's stores have read them; the
      // block's first job: nothing was stored yet), so the last job leaves no arrival that no
      // use waits for (and no look-ahead is needed to know it is the last: a packed batch
      // passes over jobs).
      // The job's coordinates are stepped, not divided (this thread has 24 registers and
      // issues the stores that free the O buffer: no divisions in between); the causal order
      // and packed batches decode them per job. A packed job's box is stored here only when
      // all its 64 rows are in the sequence (its consumer stores a box that crosses the
      // sequence's end itself); the sequence's first row qr offsets the row coordinate.
      wg_u32 jpar = 0;
      int mb = (int)blockIdx.x % n_mb;
      int h = ((int)blockIdx.x / n_mb) % H;
      int b = ((int)blockIdx.x / n_mb) / H;
      for (int ni = 0;; ++ni) {
        const int job = job_at(ni);
#line 828 "templates/sm90/attn_fwd_wgmma.cu.in"
        if (job >= a.split_first) break;     // (split parts follow the whole jobs: no O to store)
#line 832 "templates/sm90/attn_fwd_wgmma.cu.in"
        if (kCausal || packed || kSkip) decode(job, mb, h, b);
        int qr = 0, sq = Sq;
        if (packed) {
          sq = q_len(b, qr);
          if (mb * kBlockM >= sq) continue;  // passed over (live_round)
        }
        wg_bar_arrive(kBarOFree, 160);       // consumer 0's (a buffer per consumer: all free)
        if (kOBufs == kConsumers)
          for (int c = 1; c < kConsumers; ++c) wg_bar_arrive(kBarOFree + c, 160);
        for (int c = 0; c < kConsumers; ++c) {
          const int ob = kOBufs == kConsumers ? c : 0;
          const int row = mb * kBlockM + 64 * c;
          if (issuer) {
            mbar_wait(bar_o_full + 8 * ob, kOBufs == kConsumers
                                               ? jpar
                                               : ((kConsumers & 1 ? jpar : 0u) + (wg_u32)c) & 1u);
            // (a box wholly past Sq has nothing to store)
            if (packed ? row + 64 <= sq : row < Sq) {
              const wg_u32 src = sO + (wg_u32)ob * kOBufBytes;
#pragma unroll
              for (int x = 0; x < kBoxes; ++x)
                wg_tma_store_4d(map_o, src + x * kOBox, 64 * x, qr + row, h, packed ? 0 : b);
              wg_bulk_commit();
              wg_bulk_wait_read<0>();
            }
          }
          __syncwarp();
          // One buffer: consumer c's tile is stored, so the buffer is free for the next
          // consumer of this job (the next job's consumer 0: when the storer takes it up).
          if (kOBufs == 1 && c + 1 < kConsumers) wg_bar_arrive(kBarOFree + c + 1, 160);
        }
        jpar ^= 1u;
        if (!kCausal && !packed && !kSkip) {
          for (mb += (int)gridDim.x; mb >= n_mb; mb -= n_mb) {
            if (++h == H) {
              h = 0;
              ++b;
            }
          }
        }
      }
    }
#line 942 "templates/sm90/attn_fwd_wgmma.cu.in"
  } else {
    // ================================ consumers ===============================
    wg_setmaxnreg_inc<240>();
    const int cw = wgroup - 1;               // consumer index: rows [64 cw, 64 cw + 64)
    const int ct = tid & 127;
    const int wq = ct >> 5;                  // warp in the warpgroup: rows 16 wq .. 16 wq + 15
    const int lane = tid & 31;
    const int g = lane >> 2;                 // accumulator rows g and g + 8
    const int t4 = lane & 3;                 // accumulator columns 8i + 2 t4, + 1
    const wg_u32 bar_me = 1u + (wg_u32)cw;   // ping-pong: my turn on the tensor cores
    // (the next consumer's turn: round robin over the consumers, 2: ping-pong)
    const wg_u32 bar_other = kConsumers == 2 ? 2u - (wg_u32)cw
                                             : 1u + (wg_u32)(cw + 1 < kConsumers ? cw + 1 : 0);
    const float scale_log2 = a.scale_log2;
    const float neg_inf = wg_f32_from_bits(0xFF800000u);

    float o[kORegs];
    float s[kSRegs];
    wg_u32 p[kPRegs];
#pragma unroll
    for (int i = 0; i < kSRegs; ++i) s[i] = 0.f;
#pragma unroll
    for (int i = 0; i < kPRegs; ++i) p[i] = 0u;
    float m0, m1;                            // running max of t (rows g, g + 8), step 3
    float l0, l1;                            // this thread's part of l, step 4
    int kv_n = Skv, nt = n_tiles;            // keys and KV tiles of the job whose S is next
#line 969 "templates/sm90/attn_fwd_wgmma.cu.in"
    int j0 = 0;                              // and its first tile (a split part's: part_tiles)
#line 971 "templates/sm90/attn_fwd_wgmma.cu.in"
    // That job's causal diagonal: its first query row + kv_n - its entry's query rows (Sq, a
    // packed sequence's length): query row q0 + i sees the keys below cdiag + i + 1.
    int cdiag = Skv - Sq;
#line 1024 "templates/sm90/attn_fwd_wgmma.cu.in"

    // This consumer's 64 rows of the Q buffer of the job whose S is issued next, and that
    // buffer's q_empty mbarrier (switched at each job boundary).
    wg_u32 q_rows = sQ + (wg_u32)cw * 64u * 128u;
    wg_u32 q_empty = bar_q_empty;

    // Issue S = Q K_j^T (step 1) from stage sj: kD / 16 k-steps of 16 over d; the k-step's 32
    // bytes sit at offset 32 (kk & 3) of box kk >> 2 (the hardware applies the swizzle).
    auto issue_qk = [&](int sj) {
#line 1041 "templates/sm90/attn_fwd_wgmma.cu.in"
      const wg_u64 da0 = make_desc(q_rows, 16, 1024);
      const wg_u64 db0 = make_desc(sK + sj * kKvStage, 16, 1024);
#line 1044 "templates/sm90/attn_fwd_wgmma.cu.in"
#pragma unroll
      for (int kk = 0; kk < kD / 16; ++kk) {
        const wg_u64 da = desc_add(da0, (kk >> 2) * kQHalf + (kk & 3) * 32);
        const wg_u64 db = desc_add(db0, (kk >> 2) * kKvHalf + (kk & 3) * 32);
        wg_mma_ss_m64n128k16(s, da, db, kk > 0 ? 1 : 0);
      }
      wg_commit();
    };
    // Issue O += P V (step 5) from stage sp. V is read N-major: 64 d-columns per 128-byte row,
    // the boxes kKvHalf apart (LBO), 8-key groups 1024 bytes apart (SBO), 16 keys per
    // k-step = 2048 bytes.
    auto issue_pv = [&](int sp) {
      const wg_u64 db0 = make_desc(sV + sp * kKvStage, kKvHalf, 1024);
#pragma unroll
      for (int kk = 0; kk < kKv / 16; ++kk) {
        const wg_u64 db = desc_add(db0, kk * 2048);
        wg_mma_rs_tb_m64n128k16(o, p[4 * kk], p[4 * kk + 1], p[4 * kk + 2], p[4 * kk + 3], db, 1);
      }
      wg_commit();
    };
#line 1065 "templates/sm90/attn_fwd_wgmma.cu.in"
    // Waits for my turn on the tensor cores, then orders my register writes before the
    // wgmmas (the tiles arrived through the async proxy: no proxy fence).
    auto begin_issue = [&]() {
      wg_bar_sync(bar_me, 256);
#line 1076 "templates/sm90/attn_fwd_wgmma.cu.in"
#pragma unroll
      for (int i = 0; i < kORegs; ++i) wg_fence_operand(o[i]);
#pragma unroll
      for (int i = 0; i < kSRegs; ++i) wg_fence_operand(s[i]);
#pragma unroll
      for (int i = 0; i < kPRegs; ++i) wg_fence_operand(p[i]);
      wg_fence();
    };
#line 1085 "templates/sm90/attn_fwd_wgmma.cu.in"
    // Steps 2-4 on S of tile j (already complete) in the score_fma form (docs/NUMERICS.md
    // step 4, the manifest's score_fma = 2): for c = scale_log2 > 0, x = fma(s, c, -m)
    // rounded once, one FFMA per score instead of a multiply and a subtract. m is still the
    // running max of t = fl(s c): t is monotonic in s, so the tile's max t is fl(max s * c),
    // the max taken over the raw scores (keys past kv_n set to -inf: fma(-inf, c, -m) =
    // -inf, p = 0). Rare cases, each a uniform branch that leaves the loop below as it is:
    //  - c <= 0: form 0 (score_fma = 2): the scores become t = fl(s c) first and the
    //    multiplier 1, so x = fma(t, 1, -m) = fl(t - m). (The fma form at c < 0, the scores
    //    negated and c' = -c, failed the GPU suite's negative-scale case by one element in
    //    run K4, as a max over raw scores did in runs F3-F5: not understood.)
    //  - a row whose |m| >= 2^24 (or NaN): the contract takes x = fl(t - m) there (the fma
    //    form's x at the max would be the product's rounding error, growing with |t|): its
    //    scores become t first and its multiplier 1.
    // Returns the rescale factors exp2(m_old - m_new) of rows g and g + 8 (unused for the
    // first tile). (RTZ keeps score_fma = 0: the max key's p = 1 - tiny truncates to 0.996.)
    const float big_m = wg_f32_from_bits(0x4B800000u);   // 2^24
    const float c_pos = scale_log2 > 0.f ? scale_log2 : 1.f;
    auto softmax = [&](int j, bool first, float &alpha0, float &alpha1) {
      const bool pre = !(scale_log2 > 0.f);  // (c <= 0 or NaN: form 0, see above)
      // The keys rows g and g + 8 see (rk0, rk1): kv_n, or under the causal mask the first
      // row + kv_n - Sq + 1 of them (<= 0: the row sees none). The warp's first row sees the
      // fewest (wk), so the masking branch is uniform per warp; one loop masks both the keys
      // past kv_n and the causal ones.
      int rk0 = kv_n, rk1 = kv_n, wk = kv_n;
      if (kCausal) {
        const int r = cdiag + 64 * cw + 16 * wq + 1;
        wk = r < kv_n ? r : kv_n;
        rk0 = r + g < kv_n ? r + g : kv_n;
        rk1 = r + g + 8 < kv_n ? r + g + 8 : kv_n;
      }
      if (pre || wk - j * kKv < kKv) {       // (c <= 0: the scores become t here; T4L: see top)
        const int lim0 = rk0 - j * kKv, lim1 = rk1 - j * kKv;
#pragma unroll
        for (int i = 0; i < kSRegs; ++i) {
          const int col = 8 * (i >> 2) + 2 * t4 + (i & 1);
          const float v = pre ? wg_mul_rn(s[i], scale_log2) : s[i];
          s[i] = col >= ((i & 2) ? lim1 : lim0) ? neg_inf : v;
        }
      }
      float mx0 = neg_inf, mx1 = neg_inf;      // the tile's row max of the scores
#pragma unroll
      for (int i = 0; i < kSRegs; i += 4) {
        mx0 = wg_max(mx0, wg_max(s[i], s[i + 1]));
        mx1 = wg_max(mx1, wg_max(s[i + 2], s[i + 3]));
      }
      mx0 = wg_max(mx0, wg_shfl_xor(mx0, 1));
      mx0 = wg_max(mx0, wg_shfl_xor(mx0, 2));
      mx1 = wg_max(mx1, wg_shfl_xor(mx1, 1));
      mx1 = wg_max(mx1, wg_shfl_xor(mx1, 2));
      mx0 = wg_mul_rn(mx0, c_pos);             // the tile's max t = fl(max s * c) (c <= 0: * 1)
      mx1 = wg_mul_rn(mx1, c_pos);
#line 1140 "templates/sm90/attn_fwd_wgmma.cu.in"
      mx0 = wg_max(m0, mx0);                 // (max is exact: the same m as the reference's)
      mx1 = wg_max(m1, mx1);
      // A row that sees no key (a job with no key, a causal row above the diagonal, a split
      // part past the key length): max 0,
      // so p = exp2(-inf) = 0 and l = 0 (the epilogue writes out = 0, LSE = -inf).
      if (rk0 <= j0 * kKv) mx0 = 0.f;
      if (rk1 <= j0 * kKv) mx1 = 0.f;
      alpha0 = first ? 0.f : wg_ex2(wg_sub_rn(m0, mx0));
      alpha1 = first ? 0.f : wg_ex2(wg_sub_rn(m1, mx1));
      m0 = mx0;
      m1 = mx1;
      float c0 = c_pos, c1 = c_pos;
      const bool big0 = !(fabsf(m0) < big_m), big1 = !(fabsf(m1) < big_m);
#line 1154 "templates/sm90/attn_fwd_wgmma.cu.in"
      // (128-key dense kernels: the two per-row fix-ups behind one warp vote, a uniform branch:
      // 1-2% faster there, bitwise the same outputs; 2-3% slower in the 176-key kernels, and
      // the causal kernel spilled 40 bytes with it: bench/RESULTS.md runs M51, M54, M56)
      if (wg_any(big0 || big1)) {
#line 1159 "templates/sm90/attn_fwd_wgmma.cu.in"
      if (big0) {                            // (|m| >= 2^24: see above; rare)
#pragma unroll
        for (int i = 0; i < kSRegs; i += 4) {
          s[i] = wg_mul_rn(s[i], c_pos);
          s[i + 1] = wg_mul_rn(s[i + 1], c_pos);
        }
        c0 = 1.f;
      }
      if (big1) {
#pragma unroll
        for (int i = 2; i < kSRegs; i += 4) {
          s[i] = wg_mul_rn(s[i], c_pos);
          s[i + 1] = wg_mul_rn(s[i + 1], c_pos);
        }
        c1 = 1.f;
      }
#line 1176 "templates/sm90/attn_fwd_wgmma.cu.in"
      }
#line 1178 "templates/sm90/attn_fwd_wgmma.cu.in"
      const float nm0 = -m0, nm1 = -m1;
      float rs0 = 0.f, rs1 = 0.f;
#pragma unroll
      for (int i = 0; i < kSRegs; i += 4) {
        s[i] = wg_ex2(wg_fma_rn(s[i], c0, nm0));
        s[i + 1] = wg_ex2(wg_fma_rn(s[i + 1], c0, nm0));
        s[i + 2] = wg_ex2(wg_fma_rn(s[i + 2], c1, nm1));
        s[i + 3] = wg_ex2(wg_fma_rn(s[i + 3], c1, nm1));
        rs0 = wg_add_rn(rs0, wg_add_rn(s[i], s[i + 1]));
        rs1 = wg_add_rn(rs1, wg_add_rn(s[i + 2], s[i + 3]));
      }
      l0 = first ? rs0 : wg_add_rn(wg_mul_rn(l0, alpha0), rs0);
      l1 = first ? rs1 : wg_add_rn(wg_mul_rn(l1, alpha1), rs1);
    };
#line 1267 "templates/sm90/attn_fwd_wgmma.cu.in"
    // Step 5: P = bf16_round(p). Two adjacent n8 chunks of the S accumulator have the layout
    // of one k16 A fragment of P.V.
    auto pack = [&]() {
#pragma unroll
      for (int kk = 0; kk < kKv / 16; ++kk) {
        p[4 * kk] = pack_p(s[8 * kk], s[8 * kk + 1]);
        p[4 * kk + 1] = pack_p(s[8 * kk + 2], s[8 * kk + 3]);
        p[4 * kk + 2] = pack_p(s[8 * kk + 4], s[8 * kk + 5]);
        p[4 * kk + 3] = pack_p(s[8 * kk + 6], s[8 * kk + 7]);
      }
    };
    // Step 3 for the tile whose P.V is issued next: O (accumulated at the previous running
    // max) rescaled by that tile's alpha = exp2(m_old - m_new), as FlashAttention-3 does
    // (RescaleOBeforeGemm): after S_j is issued and before P_{j-1} V_{j-1}, so the multiplies
    // run behind this warpgroup's own QK^T instead of after its P.V wait. Same arithmetic as
    // rescaling right after the previous P.V: O * alpha, then += P V. RTNE/RTZ skip it when no
    // row of the warp has a new max (alpha = exp2(0) = 1 exactly on all of them).
    float pa0 = 1.f, pa1 = 1.f;              // the pending alphas (rows g, g + 8)
    bool prs = false;                        // whether they differ from 1 in this warp
    auto rescale_then_pv = [&](int sp) {
      if (prs) {
#pragma unroll
        for (int i = 0; i < kORegs; i += 4) {
          o[i] = wg_mul_rn(o[i], pa0);
          o[i + 1] = wg_mul_rn(o[i + 1], pa0);
          o[i + 2] = wg_mul_rn(o[i + 2], pa1);
          o[i + 3] = wg_mul_rn(o[i + 3], pa1);
        }
      }
#pragma unroll
      for (int i = 0; i < kORegs; ++i) wg_fence_operand(o[i]);
      wg_fence();                            // my writes of O before the wgmmas that read it
      issue_pv(sp);
    };
    // A job's keys past a length shorter than Skv (attngen_kargs.kv_len) are real memory in
    // its last V tile (the loads zero-fill only rows past Skv): zeroed in shared memory before
    // the P.V that reads them, so that their p = 0 meets 0, never an Inf or NaN (0 * Inf is
    // NaN). `vrows` = the tile's keys within the length. Both consumers write the same zeros;
    // the stage is not refilled before both release it. Each thread's stores, its proxy fence,
    // then begin_issue's barrier: the wgmmas of the warpgroup see all of them.
    // (A packed sequence's keys past its end are the next sequence's rows: zeroed alike. A
    // skipping job whose every tile is skipped runs tile 0 with kv_n = 0: its V rows too.)
    auto zero_v_tail = [&](int sp, int vrows) {
      if ((kvl == nullptr && !packed && !(kSkip && kv_n == 0)) || vrows >= kKv) return;
#line 1312 "templates/sm90/attn_fwd_wgmma.cu.in"
      if (vrows < 0) vrows = 0;              // (a split part past the length: its whole tile)
#line 1314 "templates/sm90/attn_fwd_wgmma.cu.in"
      const wg_u32 vt = sV + sp * kKvStage;
      for (int i = ct; i < (kKv - vrows) * (kD / 2); i += 128) {  // kD / 2 words per row
        const wg_u32 w = (wg_u32)i % (kD / 2), r = (wg_u32)i / (kD / 2);  // (shifts, masks)
        wg_st_shared_b32(vt + (w >> 5) * kKvHalf + ((wg_u32)vrows + r) * 128u + (w & 31) * 4u, 0u);
      }
      wg_fence_proxy_async();                // st.shared (generic) -> wgmma (async proxy)
    };
    // Makes (alpha0, alpha1) of the tile just softmaxed the pending ones.
    auto set_pending = [&](float alpha0, float alpha1) {
      pa0 = alpha0;
      pa1 = alpha1;
#line 1330 "templates/sm90/attn_fwd_wgmma.cu.in"
      prs = wg_any(alpha0 != 1.f || alpha1 != 1.f);
#line 1332 "templates/sm90/attn_fwd_wgmma.cu.in"
    };

#line 1335 "templates/sm90/attn_fwd_wgmma.cu.in"
    // Step 6: o = O * (1 / l) (l = 0 -> 0), rounded, into this consumer's O buffer (the
    // storer writes it out). Step 7: LSE = m ln2 + ln l. For job `job` with the final running
    // max (em0, em1) and this thread's parts of l (el0, el1).
#line 1343 "templates/sm90/attn_fwd_wgmma.cu.in"
    auto epilogue = [&](int job, float em0, float em1, float el0, float el1) {
      long long q_base, k_base, v_base, o_base;
      int q0, h, b;
      job_bases(job, q_base, k_base, v_base, o_base, q0, h, b);
      (void)q_base;
      (void)k_base;
      (void)v_base;
      float ls0 = wg_add_rn(el0, wg_shfl_xor(el0, 1));
      ls0 = wg_add_rn(ls0, wg_shfl_xor(ls0, 2));
      float ls1 = wg_add_rn(el1, wg_shfl_xor(el1, 1));
      ls1 = wg_add_rn(ls1, wg_shfl_xor(ls1, 2));
#line 1355 "templates/sm90/attn_fwd_wgmma.cu.in"
      if (job >= a.split_first) {
        // A split part (slot t = job - split_first): its rows' unnormalised O and (m, l) into
        // the workspace (layout: the head of this file); m = -inf when the part has no key
        // (it starts at or past the entry's length: weight 0 in the merge; its O and l are 0).
        const int t = job - a.split_first;
        float *ws = a.ws + (long long)t * (kBlockM * (kD + 2));
        const int r = 64 * cw + 16 * wq + g;   // rows r and r + 8 of the part's block
        float *w0 = ws + r * kD + 2 * t4;
#pragma unroll
        for (int i = 0; i < kD / 8; ++i) {
          wg_st_global_v2(w0 + 8 * i, wg_f32_bits(o[4 * i]), wg_f32_bits(o[4 * i + 1]));
          wg_st_global_v2(w0 + 8 * kD + 8 * i, wg_f32_bits(o[4 * i + 2]),
                          wg_f32_bits(o[4 * i + 3]));
        }
        // A row without keys in the part is the one with l = 0 (a key gives p = 1 at the row's
        // max, and NaN scores a NaN l): its m (0 there, see softmax) becomes -inf. (Testing the
        // part's first key against the length instead spilled 4 bytes at kv_tile 176.)
        if (t4 == 0) {
          float *ml = ws + kBlockM * kD + 2 * r;
          wg_st_global_v2(ml, wg_f32_bits(ls0 == 0.f ? neg_inf : em0), wg_f32_bits(ls0));
          wg_st_global_v2(ml + 16, wg_f32_bits(ls1 == 0.f ? neg_inf : em1), wg_f32_bits(ls1));
        }
        return;
      }
#line 1380 "templates/sm90/attn_fwd_wgmma.cu.in"
      const float inv0 = ls0 == 0.f ? 0.f : wg_rcp_rn(ls0);
      const float inv1 = ls1 == 0.f ? 0.f : wg_rcp_rn(ls1);
      // Causal: l = 0 only in a row that saw no key (with one, p = 1 at its max): out = 0
      // even where P = 0 met a non-finite v of a key the row does not see (0 * Inf = NaN in
      // O). (Without the mask a row without keys is a job whose length is 0: its V rows were
      // zeroed, so O is 0 already.)
      if (kCausal && ls0 == 0.f) {
#pragma unroll
        for (int i = 0; i < kORegs; i += 4) o[i] = o[i + 1] = 0.f;
      }
      if (kCausal && ls1 == 0.f) {
#pragma unroll
        for (int i = 0; i < kORegs; i += 4) o[i + 2] = o[i + 3] = 0.f;
      }
      const int qa = q0 + 64 * cw + 16 * wq + g;  // rows qa and qa + 8
      int qr = 0;                            // a packed sequence's first row, its rows sq
      const int sq = q_len(b, qr);
      const bool ok0 = qa < sq, ok1 = qa + 8 < sq;
#line 1399 "templates/sm90/attn_fwd_wgmma.cu.in"
      // Wait until the buffer's previous contents have been read by their stores (a named
      // barrier: an mbarrier wait loop here, with O and S live, made ptxas spill).
      const int ob = kOBufs == kConsumers ? cw : 0;
      if (kOBufs > 0) wg_bar_sync(kBarOFree + (wg_u32)cw, 160);
      // Row r = 16 wq + g of the buffer (r & 7 = g): 16-byte chunk c of the row at c ^ g, i.e.
      // the chunk bits (4..6) of the address XOR c, with g's bits set in `orow`.
      const wg_u32 orow = (sO + (wg_u32)ob * kOBufBytes + (wg_u32)(16 * wq) * 128u +
                           (wg_u32)g * 128u + 4u * t4) | ((wg_u32)g << 4);
      // A packed box that crosses its sequence's end: stored from registers here (a quad of
      // lanes writes 16 contiguous bytes of a row, rows past the end not at all); the storer
      // skips it (same condition) but the buffer's handshake runs as for any box. Without an
      // O buffer (kOBufs = 0) every box is stored so.
      const bool direct = kOBufs == 0 || (packed && q0 + 64 * cw + 64 > sq);
      const wg_u32 o_row_stride = (wg_u32)a.o_ss;
      unsigned short *og = (unsigned short *)a.o + o_base + 2 * t4;
      unsigned short *og0 = og + (wg_u32)(ok0 ? qa : 0) * o_row_stride;
      unsigned short *og1 = og + (wg_u32)(ok1 ? qa + 8 : 0) * o_row_stride;
#line 1421 "templates/sm90/attn_fwd_wgmma.cu.in"
#pragma unroll
      for (int i = 0; i < kD / 8; ++i) {
        const wg_u32 r0 = round_out2(wg_mul_rn(o[4 * i], inv0), wg_mul_rn(o[4 * i + 1], inv0));
        const wg_u32 r1 = round_out2(wg_mul_rn(o[4 * i + 2], inv1), wg_mul_rn(o[4 * i + 3], inv1));
#line 1426 "templates/sm90/attn_fwd_wgmma.cu.in"
        if (direct) {
          if (ok0) wg_st_global_b32(og0 + 8 * i, r0);
          if (ok1) wg_st_global_b32(og1 + 8 * i, r1);
        } else {
          const wg_u32 at = (orow ^ ((wg_u32)(i & 7) << 4)) + (wg_u32)(i >> 3) * kOBox;
          wg_st_shared_b32(at, r0);
          wg_st_shared_b32(at + 8u * 128u, r1);
        }
#line 1438 "templates/sm90/attn_fwd_wgmma.cu.in"
      }
#line 1440 "templates/sm90/attn_fwd_wgmma.cu.in"
      if (kOBufs > 0) {
        wg_fence_proxy_async();              // st.shared (generic) -> the stores (async proxy)
        wg_mbar_arrive(bar_o_full + 8 * ob);
      }
#line 1445 "templates/sm90/attn_fwd_wgmma.cu.in"
      if (a.lse != 0 && t4 == 0) {
        // [B, H, Sq], or [H, total_q] from the sequence's first row
        float *lse = a.lse + (packed ? (long long)h * a.total_q + qr : ((long long)b * H + h) * (long long)Sq);
        if (ok0) wg_st_global_f32(lse + qa, wg_add_rn(wg_mul_rn(em0, kLn2), logf(ls0)));
        if (ok1) wg_st_global_f32(lse + qa + 8, wg_add_rn(wg_mul_rn(em1, kLn2), logf(ls1)));
      }
    };

#pragma unroll
    for (int i = 0; i < kORegs; ++i) o[i] = 0.f;
    m0 = neg_inf;
    m1 = neg_inf;
    l0 = 0.f;
    l1 = 0.f;
    // One continuous pipeline over all of the block's jobs: round r issues S of the r-th KV
    // tile and P.V of the tile before it, also across a job boundary, where the round issues
    // S_0 of the new job next to P_{n-1} V_{n-1} of the old one and, once that P.V is done,
    // stores the old job's O (its epilogue overlaps the other consumer's wgmmas) before the
    // new job's P_0 is packed. Only the block's last job has a round of its own for its last
    // P.V. Each consumer issues the same number of rounds and arrives on the other's barrier
    // after each, so the ping-pong turns alternate; consumer 1's final arrival is never
    // waited on.
    int it = 0;                              // K/V tiles consumed so far (ring position)
    int nj = 0;                              // jobs of this block so far
    int ri = live_round(0);                  // the round of the current job
    int job = job_at(ri);                    // the job of the current round
    int o_job = job;                         // the job whose O is in o[]
    if (n_tiles == 0) {                      // Skv = 0: out = 0, LSE = -inf
      for (; job < n_jobs; job = job_at(ri = live_round(ri + 1)))
        epilogue(job, neg_inf, neg_inf, 0.f, 0.f);
      return;
    }
    if (job >= n_jobs) return;               // a packed block without a live job
    // The keys, first query row and KV tiles of job jb, for its rounds.
    // (A dense call without key lengths keeps Skv and n_tiles: nothing to decode.)
    auto start_job = [&](int jb) {
#line 1482 "templates/sm90/attn_fwd_wgmma.cu.in"
      // (split variants: every job has its tile range, a part's from part_tiles)
      int mb, h, b, r0;
      decode(jb, mb, h, b);
      kv_n = keys_of(b, r0);
      nt = part_tiles(jb, kv_n, j0);
#line 1539 "templates/sm90/attn_fwd_wgmma.cu.in"
    };
#line 1621 "templates/sm90/attn_fwd_wgmma.cu.in"
    start_job(job);
#line 1626 "templates/sm90/attn_fwd_wgmma.cu.in"
    if (cw == kConsumers - 1) wg_bar_arrive(1, 256);  // consumer 0 issues first
    {
      // The block's first round: S_0 of its first job only.
      mbar_wait(bar_q, 0u);
      mbar_wait(bar_full_k, 0u);
      begin_issue();
      issue_qk(0);
      wg_bar_arrive(bar_other, 256);
      wg_wait<0>();
#pragma unroll
      for (int i = 0; i < kSRegs; ++i) wg_fence_operand(s[i]);
      if (lane == 0) {
        wg_mbar_arrive(bar_empty_k);
        if (nt == j0 + 1) wg_mbar_arrive(q_empty);
      }
      float alpha0, alpha1;
      softmax(j0, true, alpha0, alpha1);
      pack();
#line 1647 "templates/sm90/attn_fwd_wgmma.cu.in"
    }
    // A round that issues S_j and P_{j-1} V_{j-1} of the same job (1 <= j < nt; `last`: j is
    // the job's last computed tile; skip variants find it themselves). Returns the job's next
    // computed tile.
    auto steady_round = [&](int j, bool last_in) -> int {
      const int sj = it % kStages;
      const int sp = (it + kStages - 1) % kStages;
      mbar_wait(bar_full_k + 8 * sj, (wg_u32)((it / kStages) & 1));
      mbar_wait(bar_full_v + 8 * sp, (wg_u32)(((it - 1) / kStages) & 1));
      begin_issue();
      issue_qk(sj);
      rescale_then_pv(sp);
      wg_bar_arrive(bar_other, 256);         // the other consumer's wgmmas queue behind mine
#line 1666 "templates/sm90/attn_fwd_wgmma.cu.in"
      const int jn = j + 1;
      const bool last = last_in;
#line 1669 "templates/sm90/attn_fwd_wgmma.cu.in"
      wg_wait<1>();                          // S_j done, P V may still run
#pragma unroll
      for (int i = 0; i < kSRegs; ++i) wg_fence_operand(s[i]);
      if (lane == 0) {
        wg_mbar_arrive(bar_empty_k + 8 * sj);
        if (last) wg_mbar_arrive(q_empty);   // the job's last read of Q
      }
      // In the SASS, ptxas schedules the wgmma.wait_group 0 below to the top of the softmax's
      // basic block (right after the score scaling and masking), so the softmax runs once
      // P_{j-1} V_{j-1} is done, while the other consumer's wgmmas run. Forcing the source
      // order (the softmax during this consumer's own P.V: a branch on a vote of l before the
      // wait) measured slower in every mode (bench/RESULTS.md, run AB2);
      // bench/sm90_sass_local.sh shows it. After the wait only the P packing is left: O was
      // rescaled before the P.V was issued (rescale_then_pv).
      float alpha0, alpha1;
      softmax(j, false, alpha0, alpha1);
      set_pending(alpha0, alpha1);
      wg_wait<0>();
#pragma unroll
      for (int i = 0; i < kORegs; ++i) wg_fence_operand(o[i]);
#pragma unroll
      for (int i = 0; i < kPRegs; ++i) wg_fence_operand(p[i]);
      if (lane == 0) wg_mbar_arrive(bar_empty_v + 8 * sp);
      pack();
#line 1696 "templates/sm90/attn_fwd_wgmma.cu.in"
      ++it;
      return jn;
    };
    it = 1;
#line 1703 "templates/sm90/attn_fwd_wgmma.cu.in"
    for (int j = j0 + 1; j < nt; ++j) steady_round(j, j == nt - 1);
#line 1705 "templates/sm90/attn_fwd_wgmma.cu.in"
    for (job = job_at(ri = live_round(ri + 1)); job < n_jobs;
         job = job_at(ri = live_round(ri + 1))) {
      ++nj;
      {
        // Job boundary: S_0 of `job` and the last P.V of o_job; then o_job's epilogue.
        const int sj = it % kStages;
        const int sp = (it + kStages - 1) % kStages;
        {
          const int qb = nj % kQBufs;
          mbar_wait(bar_q + 8 * qb, (wg_u32)((nj / kQBufs) & 1));
          q_rows = sQ + (wg_u32)qb * kQBytes + (wg_u32)cw * 64u * 128u;
          q_empty = bar_q_empty + 8 * qb;
        }
        mbar_wait(bar_full_k + 8 * sj, (wg_u32)((it / kStages) & 1));
        mbar_wait(bar_full_v + 8 * sp, (wg_u32)(((it - 1) / kStages) & 1));
#line 1723 "templates/sm90/attn_fwd_wgmma.cu.in"
        zero_v_tail(sp, kv_n - (nt - 1) * kKv);  // o_job's last V tile
        start_job(job);                      // from here on: the new job's
        begin_issue();
        issue_qk(sj);
        rescale_then_pv(sp);
        wg_bar_arrive(bar_other, 256);
        wg_wait<1>();
#pragma unroll
        for (int i = 0; i < kSRegs; ++i) wg_fence_operand(s[i]);
        if (lane == 0) {
          wg_mbar_arrive(bar_empty_k + 8 * sj);
          if (nt == j0 + 1) wg_mbar_arrive(q_empty);
        }
        const float pm0 = m0, pm1 = m1, pl0 = l0, pl1 = l1;  // o_job's, for its epilogue
#line 1741 "templates/sm90/attn_fwd_wgmma.cu.in"
        m0 = neg_inf;
        m1 = neg_inf;
#line 1744 "templates/sm90/attn_fwd_wgmma.cu.in"
        float alpha0, alpha1;
        softmax(j0, true, alpha0, alpha1);
        prs = false;                         // the new job's O starts at 0: nothing to rescale
        wg_wait<0>();
#pragma unroll
        for (int i = 0; i < kORegs; ++i) wg_fence_operand(o[i]);
#pragma unroll
        for (int i = 0; i < kPRegs; ++i) wg_fence_operand(p[i]);
        if (lane == 0) wg_mbar_arrive(bar_empty_v + 8 * sp);
        epilogue(o_job, pm0, pm1, pl0, pl1);
#line 1757 "templates/sm90/attn_fwd_wgmma.cu.in"
        o_job = job;
#pragma unroll
        for (int i = 0; i < kORegs; ++i) o[i] = 0.f;
        pack();
#line 1764 "templates/sm90/attn_fwd_wgmma.cu.in"
        ++it;
      }
#line 1769 "templates/sm90/attn_fwd_wgmma.cu.in"
      for (int j = j0 + 1; j < nt; ++j) steady_round(j, j == nt - 1);
#line 1771 "templates/sm90/attn_fwd_wgmma.cu.in"
    }
    {
      // The last job's P_{n-1} V_{n-1}, then its epilogue.
      const int sp = (it + kStages - 1) % kStages;
      mbar_wait(bar_full_v + 8 * sp, (wg_u32)(((it - 1) / kStages) & 1));
#line 1779 "templates/sm90/attn_fwd_wgmma.cu.in"
      zero_v_tail(sp, kv_n - (nt - 1) * kKv);
      begin_issue();
      rescale_then_pv(sp);
      wg_bar_arrive(bar_other, 256);
      wg_wait<0>();
#pragma unroll
      for (int i = 0; i < kORegs; ++i) wg_fence_operand(o[i]);
      if (lane == 0) wg_mbar_arrive(bar_empty_v + 8 * sp);
      epilogue(o_job, m0, m1, l0, l1);
#line 1791 "templates/sm90/attn_fwd_wgmma.cu.in"
    }
  }
}

#line 1797 "templates/sm90/attn_fwd_wgmma.cu.in"
extern "C" __global__ void __launch_bounds__(384, 1)
    attn_fwd_d128_bshd_rtne_q1_kv128_w12_tail_tma_wgmma_sm90(const __grid_constant__ attngen_kargs_tma prm) {
  attn_body<false>(prm);
}
#line 1808 "templates/sm90/attn_fwd_wgmma.cu.in"

// Merge of the tail KV split (runtime/src/split_plan.h: after the attention kernel on the same
// stream, grid (split q-jobs, ceil(128 x 16 / 128), 1) x 128 threads, the
// attention kernel's kargs). Thread x of block (s, y) merges 8 columns of a row of split q-job
// split_first + s: row y (128 / 16) + x / 16, columns 8 (x % 16) + 0..7. Per row, in the
// fixed part order 0..num_splits-1 (docs/NUMERICS.md; the CPU reference's merge_parts does
// the same float operations, the gfx942 NAME_merge too):
//   M = max_p m_p;  w_p = (m_p == -inf) ? 0 : exp2(m_p - M);
//   L = sum_p l_p w_p;  O = sum_p O_p w_p (from 0, one product then one add per part);
//   out = round(O * (L == 0 ? 0 : 1 / L));  LSE = M ln2 + ln L.
// Each part rounded its P against its own running max, so the merge reorders only the fp32
// rescaling: within the 1-ULP contract of the unsplit kernel, and bitwise deterministic.
extern "C" __global__ void __launch_bounds__(128) attn_fwd_d128_bshd_rtne_q1_kv128_w12_tail_tma_wgmma_sm90_merge(attngen_kargs a) {
  constexpr int kChunks = kD / 8;                // 8-column chunks per row
  constexpr long long kPart = (long long)kBlockM * (kD + 2);  // floats per part slot
  const int row = (int)blockIdx.y * ((int)blockDim.x / kChunks) + (int)threadIdx.x / kChunks;
  const int ch = (int)threadIdx.x % kChunks;
  const int s = (int)blockIdx.x;
  const int job = a.split_first + s;
  const int mb = job % a.num_q_blocks, hb = job / a.num_q_blocks;
  const int h = hb % a.H, b = hb / a.H;
  const int q = mb * kBlockM + row;              // the query row
  if (row >= kBlockM || q >= a.Sq) return;
  const int ns = a.num_splits;
  const float *ws = a.ws + (long long)s * ns * kPart;
  const float neg_inf = wg_f32_from_bits(0xFF800000u);
  float mmax = neg_inf;
  for (int p = 0; p < ns; ++p) {
    wg_u32 m, l;
    wg_ld_global_v2(m, l, ws + p * kPart + kBlockM * kD + 2 * row);
    mmax = wg_max(mmax, wg_f32_from_bits(m));
  }
  float lt = 0.f;
  float acc[8];
#pragma unroll
  for (int i = 0; i < 8; ++i) acc[i] = 0.f;
  for (int p = 0; p < ns; ++p) {
    const float *part = ws + p * kPart;
    wg_u32 m, l, x[8];
    wg_ld_global_v2(m, l, part + kBlockM * kD + 2 * row);
    wg_ld_global_v4(x[0], x[1], x[2], x[3], part + row * kD + 8 * ch);
    wg_ld_global_v4(x[4], x[5], x[6], x[7], part + row * kD + 8 * ch + 4);
    const float mp = wg_f32_from_bits(m);
    const float w = mp == neg_inf ? 0.f : wg_ex2(wg_sub_rn(mp, mmax));
    lt = wg_add_rn(lt, wg_mul_rn(wg_f32_from_bits(l), w));
#pragma unroll
    for (int i = 0; i < 8; ++i) acc[i] = wg_add_rn(acc[i], wg_mul_rn(wg_f32_from_bits(x[i]), w));
  }
  const float r = lt == 0.f ? 0.f : wg_rcp_rn(lt);
  unsigned short *o = (unsigned short *)a.o + (long long)b * a.o_sb + (long long)h * a.o_sh +
                      (long long)q * a.o_ss + 8 * ch;
  wg_st_global_v4(o, round_out2(wg_mul_rn(acc[0], r), wg_mul_rn(acc[1], r)),
                  round_out2(wg_mul_rn(acc[2], r), wg_mul_rn(acc[3], r)),
                  round_out2(wg_mul_rn(acc[4], r), wg_mul_rn(acc[5], r)),
                  round_out2(wg_mul_rn(acc[6], r), wg_mul_rn(acc[7], r)));
  if (a.lse != 0 && ch == 0)
    wg_st_global_f32(a.lse + ((long long)b * a.H + h) * a.Sq + q,
                     wg_add_rn(wg_mul_rn(mmax, kLn2), logf(lt)));
}
#line 1869 "templates/sm90/attn_fwd_wgmma.cu.in"
#undef sO
#undef bar_o_full
#undef job_count
#undef job_q_row
#undef job_q_hb
