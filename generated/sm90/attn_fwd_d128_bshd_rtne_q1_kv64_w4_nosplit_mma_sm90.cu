// attngen 0.1.0 | template templates/sm90/attn_fwd.cu.in | variant attn_fwd_d128_bshd_rtne_q1_kv64_w4_nosplit_mma_sm90 | generated, do not edit
#line 1 "templates/sm90/attn_fwd.cu.in"
// attn_fwd.cu.in: bf16 forward attention (head_dim 128) for NVIDIA Hopper (sm_90a),
// FlashAttention-2 style with mma.sync.m16n8k16. Variant attn_fwd_d128_bshd_rtne_q1_kv64_w4_nosplit_mma_sm90.
//
// Block: 4 warps, warp w owns Q rows [w*16, (w+1)*16) of the
// block's 64 rows. K and V tiles of 64 keys stream through shared memory by
// cp.async, double-buffered; operands come from shared memory by ldmatrix (V transposed).
// Numerics follow docs/NUMERICS.md step by step (see the comments numbered like its steps).
// Packed variable-length batches (kargs.cu_q / cu_k, bshd only): block (q-block, head,
// sequence) over the largest query length; a block past its sequence's length exits; the
// rows and keys of a sequence are its own rows in the packed tensors (loads and stores stop
// at its end), LSE [H, total_q].
//
// Shared memory (rows of 256 bytes, the 16 chunks of 16 bytes of a row are XOR-swizzled with
// the row's low 3 bits so that ldmatrix and cp.async are free of bank conflicts):
//   [ Q: 64 rows | K stage 0 | K stage 1 | V stage 0 | V stage 1 ], 81920 bytes.
// Q is read into registers once (q_in_regs) or per k-step from shared memory; at the end
// each warp stages its O rows through its own Q rows for 16-byte coalesced stores.
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
#line 20 "templates/sm90/attn_fwd.cu.in"
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
#line 22 "templates/sm90/attn_fwd.cu.in"

#line 26 "templates/sm90/attn_fwd.cu.in"
namespace {

constexpr int kQTiles = 1;
constexpr int kKvTile = 64;
constexpr int kThreads = 128;
constexpr int kBlockM = 64;
constexpr int kWarpRows = 16;
constexpr int kSNTiles = 8;          // n-tiles (8 keys) of S per KV tile
constexpr int kSteps = 1;       // online-softmax steps of 64 keys per KV tile
constexpr int kQChunks = 8;
constexpr int kKvChunks = 8;
constexpr sm90_u32 kStageBytes = 16384;
constexpr float kLn2 = 0.693147180559945309f;

// Byte offset of 16-byte chunk `chunk` (0..15) of row `row` in a swizzled region.
__device__ __forceinline__ sm90_u32 swz(int row, int chunk) {
  return (sm90_u32)(row * 256 + ((chunk ^ (row & 7)) << 4));
}

} // namespace

extern "C" __global__ void __launch_bounds__(128, 1) attn_fwd_d128_bshd_rtne_q1_kv64_w4_nosplit_mma_sm90(attngen_kargs a) {
  extern __shared__ __attribute__((aligned(128))) unsigned char smem[];
  const sm90_u32 s_base = (sm90_u32)sm90_cvta_to_shared(smem);
  const sm90_u32 sQ = s_base + 0;
  const sm90_u32 sK = s_base + 16384;
  const sm90_u32 sV = s_base + 49152;

  const int tid = (int)threadIdx.x;
  const int warp = tid >> 5;
  const int lane = tid & 31;
  const int g = lane >> 2;          // mma groupID: fragment rows g and g + 8
  const int t4 = lane & 3;          // mma threadID_in_group: fragment columns 2*t4, +1
  const int lm_mat = lane >> 3;     // ldmatrix: the matrix this lane addresses
  const int lm_row = lane & 7;      //           and the row within it
  const int H = a.H, Skv = a.Skv;
  int Sq = a.Sq;
  const int h = (int)blockIdx.y, b = (int)blockIdx.z;
  // KV heads (grouped-query calls: H_kv divides H; 0 = H): query head h reads K and V of KV
  // head h H_kv / H = h / (H / H_kv)
  const int Hkv = a.H_kv > 0 ? a.H_kv : H;
  const int hk = (int)((unsigned)h * (unsigned)Hkv / (unsigned)H);
  const int q0 = (int)blockIdx.x * kBlockM;
  const int warp_row0 = warp * kWarpRows;
  // A packed batch (the host allows it with bshd only): sequence b's first rows and lengths,
  // clamped as kargs.h says (start = clamp(cu[b], 0, total), end = clamp(cu[b + 1], 0,
  // total), length = clamp(end - start, 0, max)); Sq becomes its query length, its keys the
  // smaller of its key length and kv_len.
  int q_row0 = 0, kv_seq = Skv, kv_row0 = 0;
#line 76 "templates/sm90/attn_fwd.cu.in"
  if (a.cu_q != 0) {
    auto seq = [&](const int *cu, int total, int max, int &start) -> int {
      int s0 = cu[b], e0 = cu[b + 1];
      s0 = s0 < 0 ? 0 : (s0 > total ? total : s0);
      e0 = e0 < 0 ? 0 : (e0 > total ? total : e0);
      start = s0;
      return e0 - s0 < 0 ? 0 : (e0 - s0 > max ? max : e0 - s0);
    };
    Sq = seq(a.cu_q, a.total_q, a.Sq, q_row0);
    kv_seq = seq(a.cu_k, a.total_kv, Skv, kv_row0);
    if (q0 >= Sq) return;  // no row of this block is in the sequence
  }
#line 89 "templates/sm90/attn_fwd.cu.in"

  // Element offsets through the call's strides (kargs.h: (b, s, h) at b sb + s ss + h sh,
  // whatever the layout; a packed sequence: from its first rows, sb = 0): 64-bit
  // per-(batch, head) bases, 32-bit row offsets within a batch entry.
  const int q_stride = a.q_ss, k_stride = a.k_ss, v_stride = a.v_ss, o_stride = a.o_ss;
  const unsigned short *qg = (const unsigned short *)a.q + ((long long)b * a.q_sb +
                             (long long)q_row0 * q_stride + (long long)h * a.q_sh);
  const unsigned short *kg = (const unsigned short *)a.k + ((long long)b * a.k_sb +
                             (long long)kv_row0 * k_stride + (long long)hk * a.k_sh);
  const unsigned short *vg = (const unsigned short *)a.v + ((long long)b * a.v_sb +
                             (long long)kv_row0 * v_stride + (long long)hk * a.v_sh);
  unsigned short *og = (unsigned short *)a.o + ((long long)b * a.o_sb +
                       (long long)q_row0 * o_stride + (long long)h * a.o_sh);

  // This batch entry's keys: its length (attngen_kargs.kv_len) clamped into [0, Skv], or Skv.
  // Keys past it are never loaded (zero-filled like keys past Skv) and masked like them.
  int kv_n = kv_seq;
  if (a.kv_len != 0) {
    kv_n = a.kv_len[b];
    kv_n = kv_n < 0 ? 0 : (kv_n > kv_seq ? kv_seq : kv_n);
  }
  // The causal mask (the variant's axis mask): query row i sees the keys j <= i + kv_n - Sq;
  // this block's rows need the keys below min(kv_n, min(q0 + block_m, Sq) + kv_n - Sq), its
  // later tiles are not loaded or computed. Its first row sees the fewest (kv_first).
  int kv_end = kv_n, kv_first = kv_n;
#line 117 "templates/sm90/attn_fwd.cu.in"
  constexpr bool kCausal = false;
#line 119 "templates/sm90/attn_fwd.cu.in"
  if (kCausal) {
    const int last = (q0 + kBlockM < Sq ? q0 + kBlockM : Sq) + kv_n - Sq;
    kv_end = last < kv_n ? (last > 0 ? last : 0) : kv_n;
    kv_first = q0 + kv_n - Sq + 1 < kv_n ? q0 + kv_n - Sq + 1 : kv_n;
  }
  const int n_tiles = (kv_end + kKvTile - 1) / kKvTile;

  // Rows past the end of Q / K / V are zero-filled (src-size 0), never read from memory.
#pragma unroll
  for (int i = 0; i < kQChunks; ++i) {
    const int c = tid + i * kThreads, row = c >> 4, chunk = c & 15;
    const bool ok = q0 + row < Sq;
    sm90_cp_async_16(sQ + swz(row, chunk), qg + (ok ? (q0 + row) * q_stride : 0) + chunk * 8,
                     ok ? 16u : 0u);
  }
  auto load_kv = [&](const unsigned short *src, int kv_stride, sm90_u32 dst, int tile) {
    const int key0 = tile * kKvTile;
#pragma unroll
    for (int i = 0; i < kKvChunks; ++i) {
      const int c = tid + i * kThreads, row = c >> 4, chunk = c & 15;
      const bool ok = key0 + row < kv_n;
      sm90_cp_async_16(dst + swz(row, chunk),
                       src + (ok ? (key0 + row) * kv_stride : 0) + chunk * 8, ok ? 16u : 0u);
    }
  };
  if (n_tiles > 0) load_kv(kg, k_stride, sK, 0);
  sm90_cp_async_commit();  // group: Q + K tile 0
  if (n_tiles > 0) load_kv(vg, v_stride, sV, 0);
  sm90_cp_async_commit();  // group: V tile 0
  sm90_cp_async_wait<1>();
  __syncthreads();

  // Q as mma A fragments: 8 k-steps of 16 head dims. ldmatrix matrix i covers rows
  // (i & 1) * 8.. and head-dim chunk 2 * kk + (i >> 1): registers a0..a3 in mma order.
  auto load_q_frag = [&](sm90_u32 (&f)[4], int qt, int kk) {
    sm90_ldmatrix_x4(f[0], f[1], f[2], f[3],
                     sQ + swz(warp_row0 + qt * 16 + (lm_mat & 1) * 8 + lm_row,
                              2 * kk + (lm_mat >> 1)));
  };
#line 159 "templates/sm90/attn_fwd.cu.in"
  sm90_u32 qf[kQTiles][8][4];
#pragma unroll
  for (int qt = 0; qt < kQTiles; ++qt)
#pragma unroll
    for (int kk = 0; kk < 8; ++kk) load_q_frag(qf[qt][kk], qt, kk);
#line 165 "templates/sm90/attn_fwd.cu.in"

  const float neg_inf = __int_as_float(0xff800000);  // -inf
  float o[kQTiles][16][4];   // O accumulators: 16 n-tiles of 8 head dims
  float m[kQTiles][2];       // running max of t for rows g and g + 8
  float l[kQTiles][2];       // this lane's part of the row sums of unrounded p
  int lim[kQTiles][2];       // the keys rows g and g + 8 see (kv_n, or fewer: causal)
#pragma unroll
  for (int qt = 0; qt < kQTiles; ++qt) {
#pragma unroll
    for (int r = 0; r < 2; ++r) {
      const int row = q0 + warp_row0 + qt * 16 + g + 8 * r;
      lim[qt][r] = kCausal && row + kv_n - Sq + 1 < kv_n ? row + kv_n - Sq + 1 : kv_n;
    }
#pragma unroll
    for (int n = 0; n < 16; ++n)
#pragma unroll
      for (int e = 0; e < 4; ++e) o[qt][n][e] = 0.f;
    m[qt][0] = m[qt][1] = neg_inf;
    l[qt][0] = l[qt][1] = 0.f;
  }

  for (int kt = 0; kt < n_tiles; ++kt) {
    const sm90_u32 stage = (sm90_u32)(kt & 1) * kStageBytes;
    if (kt > 0) {
      sm90_cp_async_wait<1>();  // K tile kt has landed (V tile kt may be in flight)
      __syncthreads();
    }

    // Step 1: s = q . k in fp32. ldmatrix matrix i covers keys 16 * np + (i >> 1) * 8.. and
    // head-dim chunk 2 * kk + (i & 1): b0, b1 of n-tile 2 * np, then of n-tile 2 * np + 1.
    float s[kQTiles][kSNTiles][4];
#pragma unroll
    for (int qt = 0; qt < kQTiles; ++qt)
#pragma unroll
      for (int n = 0; n < kSNTiles; ++n)
#pragma unroll
        for (int e = 0; e < 4; ++e) s[qt][n][e] = 0.f;
#pragma unroll
    for (int kk = 0; kk < 8; ++kk) {
#line 209 "templates/sm90/attn_fwd.cu.in"
#pragma unroll
      for (int np = 0; np < kSNTiles / 2; ++np) {
        sm90_u32 b0, b1, b2, b3;
        sm90_ldmatrix_x4(b0, b1, b2, b3,
                         sK + stage + swz(16 * np + (lm_mat >> 1) * 8 + lm_row,
                                          2 * kk + (lm_mat & 1)));
#pragma unroll
        for (int qt = 0; qt < kQTiles; ++qt) {
#line 218 "templates/sm90/attn_fwd.cu.in"
          const sm90_u32 *qa = qf[qt][kk];
#line 222 "templates/sm90/attn_fwd.cu.in"
          sm90_mma_bf16_16816(s[qt][2 * np], qa[0], qa[1], qa[2], qa[3], b0, b1);
          sm90_mma_bf16_16816(s[qt][2 * np + 1], qa[0], qa[1], qa[2], qa[3], b2, b3);
        }
      }
    }

    // K tile kt + 1 into the other stage (last read in iteration kt - 1, before the barrier).
    if (kt + 1 < n_tiles) load_kv(kg, k_stride, sK + (stage ^ kStageBytes), kt + 1);
    sm90_cp_async_commit();

    // Steps 2-5 in steps of 64 keys, the reference's online-softmax step
    // (ATTNGEN__REF_KV_TILE): the running max advances exactly where the reference's does, so
    // P is rounded against the same m. Element e of n-tile n: row g + 8 * (e >> 1),
    // key kt * kKvTile + 8 * n + 2 * t4 + (e & 1).
    const bool ragged = (kt + 1) * kKvTile > kv_first;
#pragma unroll
    for (int step = 0; step < kSteps; ++step) {
      sm90_u32 pa[kQTiles][4][4];  // P of this step as mma A fragments, rounded per mode
#pragma unroll
      for (int qt = 0; qt < kQTiles; ++qt) {
        float mx[2] = {neg_inf, neg_inf};
#pragma unroll
        for (int n = 8 * step; n < 8 * step + 8; ++n)
#pragma unroll
          for (int e = 0; e < 4; ++e) {
            // Step 2: t = s * (scale * log2 e), one fp32 multiply.
            float t = sm90_mul_rn(s[qt][n][e], a.scale_log2);
            // Keys past the row's limit do not exist for it: -inf leaves the max alone (p is
            // set to 0 below).
            if (ragged && kt * kKvTile + 8 * n + 2 * t4 + (e & 1) >= lim[qt][e >> 1]) t = neg_inf;
            s[qt][n][e] = t;
            mx[e >> 1] = sm90_fmax(mx[e >> 1], t);
          }
        // Step 3: running max (a NaN score never becomes the max); O and l are rescaled by
        // exp2(m_old - m_new) only on a new max, as in the reference.
        float alpha[2];
#pragma unroll
        for (int r = 0; r < 2; ++r) {
          mx[r] = sm90_fmax(mx[r], sm90_shfl_xor(mx[r], 1));
          mx[r] = sm90_fmax(mx[r], sm90_shfl_xor(mx[r], 2));
          const float m_new = sm90_fmax(m[qt][r], mx[r]);
          alpha[r] = m_new > m[qt][r] ? sm90_ex2(m[qt][r] - m_new) : 1.f;
          m[qt][r] = m_new;
        }
        // Step 4: p = exp2(t - m) in fp32 (a row whose max is -inf gets NaN, as in the
        // reference); keys past the row's limit get p = 0; l accumulates the unrounded p.
        float rowsum[2] = {0.f, 0.f};
#pragma unroll
        for (int n = 8 * step; n < 8 * step + 8; ++n)
#pragma unroll
          for (int e = 0; e < 4; ++e) {
            float p = sm90_ex2(s[qt][n][e] - m[qt][e >> 1]);
            if (ragged && kt * kKvTile + 8 * n + 2 * t4 + (e & 1) >= lim[qt][e >> 1]) p = 0.f;
            s[qt][n][e] = p;
            rowsum[e >> 1] += p;
          }
#pragma unroll
        for (int r = 0; r < 2; ++r) l[qt][r] = l[qt][r] * alpha[r] + rowsum[r];
#pragma unroll
        for (int n = 0; n < 16; ++n) {
          o[qt][n][0] *= alpha[0];
          o[qt][n][1] *= alpha[0];
          o[qt][n][2] *= alpha[1];
          o[qt][n][3] *= alpha[1];
        }
        // Step 5 (first half): P = bf16_round(p, rtne). The S accumulator layout of
        // n-tiles 2j and 2j + 1 is the A fragment layout of k-step j.
#pragma unroll
        for (int j = 0; j < 4; ++j) {
          const int n = 8 * step + 2 * j;
          pa[qt][j][0] = sm90_pack_bf16x2_rtne(s[qt][n][0], s[qt][n][1]);
          pa[qt][j][1] = sm90_pack_bf16x2_rtne(s[qt][n][2], s[qt][n][3]);
          pa[qt][j][2] = sm90_pack_bf16x2_rtne(s[qt][n + 1][0], s[qt][n + 1][1]);
          pa[qt][j][3] = sm90_pack_bf16x2_rtne(s[qt][n + 1][2], s[qt][n + 1][3]);
        }
      }

      if (step == 0) {
        sm90_cp_async_wait<1>();  // V tile kt has landed (K tile kt + 1 may be in flight)
        __syncthreads();
      }

      // Step 5 (second half): O += P . V. ldmatrix.trans matrix i covers keys
      // 16 * j + (i & 1) * 8.. and head-dim chunk 2 * dp + (i >> 1): b0, b1 of n-tile 2 * dp,
      // then of n-tile 2 * dp + 1.
#pragma unroll
      for (int j = 0; j < 4; ++j)
#pragma unroll
        for (int dp = 0; dp < 8; ++dp) {
          sm90_u32 b0, b1, b2, b3;
          sm90_ldmatrix_x4_trans(b0, b1, b2, b3,
                                 sV + stage + swz(64 * step + 16 * j + (lm_mat & 1) * 8 + lm_row,
                                                  2 * dp + (lm_mat >> 1)));
#pragma unroll
          for (int qt = 0; qt < kQTiles; ++qt) {
            const sm90_u32 *pj = pa[qt][j];
            sm90_mma_bf16_16816(o[qt][2 * dp], pj[0], pj[1], pj[2], pj[3], b0, b1);
            sm90_mma_bf16_16816(o[qt][2 * dp + 1], pj[0], pj[1], pj[2], pj[3], b2, b3);
          }
        }
    }

    // V tile kt + 1 into the other stage (last read in iteration kt - 1, before the barrier).
    if (kt + 1 < n_tiles) load_kv(vg, v_stride, sV + (stage ^ kStageBytes), kt + 1);
    sm90_cp_async_commit();
  }

  // Steps 6-7: o = O_acc * (1 / l), rounded per mode (NaN -> 0x7FFF); 1 / l is taken as 0
  // when l == 0 (no key: out = 0, LSE = -inf * ln 2 + ln 0 = -inf); LSE = m * ln 2 + ln l.
  // The warp's O rows go to its own Q rows in shared memory (only this warp read them), then
  // out with 16-byte stores.
#pragma unroll
  for (int qt = 0; qt < kQTiles; ++qt)
#pragma unroll
    for (int r = 0; r < 2; ++r) {
      float lr = l[qt][r];
      lr += sm90_shfl_xor(lr, 1);
      lr += sm90_shfl_xor(lr, 2);
      const float inv = lr == 0.f ? 0.f : sm90_rcp_rn(lr);
      // l = 0 only in a row that saw no key: out = 0 even where P = 0 met a non-finite v of
      // a key it does not see (0 * Inf = NaN in O).
      if (kCausal && lr == 0.f) {
#pragma unroll
        for (int n = 0; n < 16; ++n) o[qt][n][2 * r] = o[qt][n][2 * r + 1] = 0.f;
      }
      const int row = warp_row0 + qt * 16 + g + 8 * r;
#pragma unroll
      for (int n = 0; n < 16; ++n) {
        const float x0 = o[qt][n][2 * r] * inv;
        const float x1 = o[qt][n][2 * r + 1] * inv;
        const sm90_u32 packed = ag_bf16_rtne(sm90_f32_bits(x0)) |
                                (ag_bf16_rtne(sm90_f32_bits(x1)) << 16);
        sm90_st_shared_b32(sQ + swz(row, n) + 4 * t4, packed);
      }
      if (a.lse != 0 && t4 == 0 && q0 + row < Sq) {
        const float lse = m[qt][r] * kLn2 + sm90_lg2(lr) * kLn2;
        // [B, H, Sq], or [H, total_q] from the sequence's first row
        const long long at = a.cu_q != 0 ? (long long)h * a.total_q + q_row0
                                         : ((long long)b * H + h) * Sq;
        sm90_st_global_f32(a.lse + at + q0 + row, lse);
      }
    }
  __syncwarp();
#pragma unroll
  for (int i = 0; i < kWarpRows / 2; ++i) {
    const int c = lane + 32 * i, row = warp_row0 + (c >> 4), chunk = c & 15;
    sm90_u32 x, y, z, w;
    sm90_ld_shared_v4(x, y, z, w, sQ + swz(row, chunk));
    if (q0 + row < Sq) sm90_st_global_v4(og + (q0 + row) * o_stride + chunk * 8, x, y, z, w);
  }
}
