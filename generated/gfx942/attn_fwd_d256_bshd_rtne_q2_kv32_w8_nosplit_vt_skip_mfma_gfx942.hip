// attngen 0.1.0 | template templates/gfx942/attn_fwd.hip.in | variant attn_fwd_d256_bshd_rtne_q2_kv32_w8_nosplit_vt_skip_mfma_gfx942 | generated, do not edit
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
#line 1 "templates/gfx942/wrappers.h"
// wrappers.h: the one ISA wrapper header of the gfx942 (MI300X, CDNA3) kernels. Every
// instruction the kernel templates pick by hand is issued through a function here: a
// __device__ __forceinline__ function around a single `asm volatile` whose operand
// constraints let the compiler allocate the registers. Templates use no raw asm and no
// __builtin_amdgcn_* themselves; the kernel attribute, thread ids and the LDS block come
// from here too.
//
// Emulated twin: runtime/emu/wrappers_emu.h has the SAME names and signatures. A
// generated source compiles for the host with `-DATTNGEN_EMU -include wrappers_emu.h`;
// this file then contributes only its unguarded part (the shared types below, which the
// twin defines identically under the same include guard ATTNGEN_GFX942_TYPES).
//
// ---------------------------------------------------------------------------------------
// Semantics (what the emulator must reproduce) and the asm form of each wrapper
// ---------------------------------------------------------------------------------------
// Asynchronous results. A load (buffer_load*, ds_read*, ds_swizzle, ds_bpermute) writes
// its destination VARIABLE PASSED BY REFERENCE; the value lands only at the s_waitcnt
// that covers it (vmcnt for buffer loads incl. LDS DMA, lgkmcnt for ds_*). Reading the
// variable earlier is a bug (the emulator shows poison). Counters decrement in issue
// order per counter, as on gfx942 for VMEM loads and for LDS ops of one wave (the
// kernels issue no SMEM through these wrappers). The waits take the landed variables as
// arguments: `ag_s_waitcnt_vmcnt<2>(v0, v1)` emits `s_waitcnt vmcnt(2)` and then pins
// v0, v1 with empty `asm volatile("" : "+v"(x))` so that the compiler cannot move a use
// of them above the wait (an asm output is otherwise "available" right after the load
// asm). Every variable a load writes must be listed at the wait that covers it and must
// be used after it (a dead destination could be re-allocated while the load is in
// flight). The emulator may ignore the list or check it.
//
//   ag_buffer_load_dword{,x2,x4}<OFF>(dst&, rsrc, voff)
//       buffer_load_dwordxN dst, voff, rsrc, 0 offen offset:OFF
//       Reads bytes [voff+OFF, +4N) of the buffer; out of range (offset >= num_records,
//       per dword) reads 0. soffset is always 0: gfx9 does not range-check soffset.
//   ag_buffer_store_dword{,x2,x4}<OFF>(rsrc, voff, data)
//       buffer_store_dwordxN data, voff, rsrc, 0 offen offset:OFF; out of range: dropped.
//       Stores are fire-and-forget (visible to later kernels; the kernels never read back
//       what they stored).
//   ag_buffer_atomic_add<OFF>(rsrc, voff, data)
//       buffer_atomic_add data, voff, rsrc, 0 offen offset:OFF (no return): the dword at
//       voff+OFF += data, atomically with respect to every other wave and block; out of range:
//       dropped. Counted by vmcnt like a store; fire-and-forget.
//   ag_buffer_load_dword_lds(rsrc, voff, lds_addr)
//       s_mov_b32 m0, lds_addr (via the "{m0}" constraint); s_nop 0;
//       buffer_load_dword voff, rsrc, 0 offen lds
//       LDS DMA: each lane's dword at buffer offset voff goes to LDS byte address
//       lds_addr + 4*lane (lds_addr wave-uniform; out of range writes 0). Completes at
//       the vmcnt wait that covers it (no destination VGPR, nothing to list).
//   ag_ds_read_b{32,64,128}<OFF>(dst&, addr)      ds_read_bN dst, addr offset:OFF
//   ag_ds_write_b{32,64,128}<OFF>(addr, data)     ds_write_bN addr, data offset:OFF
//       LDS byte address addr+OFF (16-bit OFF), natural alignment. Writes are visible to
//       other waves after lgkmcnt(0) by the writer and a following s_barrier.
//   ag_ds_swizzle_b32<PATTERN>(dst&, src)         ds_swizzle_b32 dst, src offset:PATTERN
//       Only bit-mask mode (PATTERN < 0x8000) is used: within each group of 32 lanes,
//       lane i reads lane ((i & and) | or) ^ xor, and = PATTERN & 31,
//       or = (PATTERN >> 5) & 31, xor = (PATTERN >> 10) & 31. Counts on lgkmcnt.
//   ag_ds_bpermute_b32(dst&, addr, src)           ds_bpermute_b32 dst, addr, src
//       dst of lane i = src of lane (addr_i / 4) & 63. Counts on lgkmcnt.
//   ag_s_waitcnt_vmcnt<N>(xs&...)    s_waitcnt vmcnt(N)    (0 <= N <= 63)
//   ag_s_waitcnt_lgkmcnt<N>(xs&...)  s_waitcnt lgkmcnt(N)  (0 <= N <= 15)
//   ag_s_barrier()                   s_barrier: all waves of the block arrive first.
//                                    Does not wait for memory (wait counters first).
//   ag_s_setprio<P>()                s_setprio P (0..3), wave issue priority.
//   ag_s_nop<N>()                    s_nop N (N+1 wait states, 0 <= N <= 7).
//   ag_mfma_drain(accs&...)          s_nop 6: 7 wait states, the gfx942 requirement for
//                                    "XDL write VGPR -> VALU/VMEM/LDS read" of a 4-pass
//                                    XDL op (v_mfma_f32_16x16x16_bf16; passes + 3, the
//                                    CDNA3 ISA's dependency table, also what clang-19's
//                                    hazard recognizer inserts for the builtin), then pins
//                                    the listed accumulators like a wait does. The
//                                    compiler does not see asm MFMAs, so a template
//                                    drains (listing the accumulators it will read)
//                                    before reading an MFMA result with anything but
//                                    another MFMA (srcC of the same-shape MFMA on the
//                                    exact same registers needs nothing). No-op in the
//                                    emulator.
// MFMA (synchronous as far as the source is concerned; see ag_mfma_drain):
//   ag_mfma_16x16x16_bf16(acc&, a, b)       v_mfma_f32_16x16x16_bf16 acc, a, b, acc  ("+v")
//   ag_mfma_16x16x16_bf16_zero(acc&, a, b)  v_mfma_f32_16x16x16_bf16 acc, a, b, 0    ("=v")
//       D(16x16 fp32) = A(16x16) * B(16x16) (+ C). Lane l = 16*g + c (g = l/16, c = l%16):
//       a holds A[c][4g..4g+3], b holds B[4g..4g+3][c] (bf16, element 4g+i in bits
//       16*(i%2) of dword i/2), acc[i] is D[4g+i][c]. The template keeps >= 2 other
//       instructions between a VALU write of a/b and the MFMA reading it.
// VALU (synchronous, results returned):
//   ag_v_exp_f32(x)       v_exp_f32 d, x              2^x, through __builtin_amdgcn_exp2f
//   ag_v_log_f32(x)       v_log_f32 d, x              log2(x), __builtin_amdgcn_logf
//                         (builtins, not asm: the compiler then sees the transcendental and
//                         inserts the 1 wait state of the gfx942 trans-forwarding hazard only
//                         where a consumer follows at once, which its scheduler avoids)
//   ag_fma_f32(a, b, c)   v_fma_f32 d, a, b, c         a * b + c rounded once (fmaf)
//   ag_v_perm_b32(hi, lo, sel)  v_perm_b32 d, hi, lo, sel   byte select from {hi:lo}
//                               (selector bytes 0-3 pick bytes of lo, 4-7 bytes of hi)
//   ag_pack_bf16_{rtne,rtna,rtz}(lo, hi)
//       Two fp32 -> bf16 per docs/NUMERICS.md, packed: bits [15:0] = bf16(lo),
//       [31:16] = bf16(hi). u = bits of x; RTNE: (u + 0x7FFF + ((u >> 16) & 1)) >> 16,
//       RTNA: (u + 0x8000) >> 16, RTZ: u >> 16; NaN -> 0x7FFF in every mode. In asm so
//       that no compiler option can fold the NaN test away:
//         v_bfe_u32 t, x, 16, 1; v_add3_u32 t, x, t, 0x7fff (rtne) | v_add_u32 t, 0x8000, x
//         (rtna) | t = x (rtz); v_cmp_o_f32 vcc, x, x; v_cndmask_b32 t, 0x7fff0000, t, vcc;
//         ... ; v_perm_b32 d, t_hi, t_lo, 0x07060302
//   ag_pack_p_{rtne,rtna,rtz}(lo, hi)
//       The same rounding and packing WITHOUT the NaN canonicalization, for P only:
//       v_bfe_u32 + v_add3_u32 (rtne) | v_add_u32 0x8000 (rtna) per value, one v_perm_b32.
//       Why P needs no guard: p = exp2(fma(s, c, -m)) with m >= the row's max of s*c is in
//       [0, 2) or NaN (+Inf would need fma(...) = +Inf, i.e. m = -Inf with a finite s, but a
//       finite s makes m finite). On [0, 2) the formulas cannot carry into the sign or
//       exponent, so the result is the contract's. A NaN p may round to any pattern, but it
//       feeds only the P V products of its own output row, and l (which sums the UNROUNDED
//       p) is NaN from then on (l is only scaled and added to), so that row's output is
//       O * (1/l) = NaN everywhere, encoded 0x7FFF by the guarded O rounding, and its LSE is
//       NaN: exactly the reference, whose P of that key is NaN too. Split parts carry the
//       NaN l into the merge (L = sum l_p w_p), same result.
// Cross-lane and ids (non-asm builtins, same semantics in the twin):
//   ag_thread_id() = workitem id x, ag_lane_id() = thread_id & 63, ag_wave_id() =
//   readfirstlane(thread_id / 64) (wave-uniform), ag_block_id_{x,y,z}(),
//   ag_lane_id_here() = the lane id, recomputed where it is called (v_mbcnt_lo/hi in asm
//   volatile: the compiler cannot hoist it out of a rarely taken branch and keep it in a
//   VGPR across the loop),
//   ag_uniform(x) = v_readfirstlane (x must be wave-uniform already; tells the compiler),
//   ag_any(p) = (ballot(p) != 0) over the active lanes of the wave.
//   ag_readlane(x, l) = v_readlane_b32: lane l's x (l wave-uniform, 0..63), a uniform value.
//   ag_ballot(p) = the 64-bit mask of the lanes where p holds (bit l: lane l), uniform.
//   ag_make_rsrc(base, num_records): buffer resource {base, stride 0, num_records bytes,
//   dword3 0x00020000} for raw (stride 0) access with per-dword range checking.
// Kernel frame (macros):
//   AG_KERNEL(threads) void NAME(attngen_kargs a)   extern "C" __global__ with
//                                                   amdgpu_flat_work_group_size(t, t)
//   AG_DEVICE                                       __device__ __forceinline__
//   AG_LDS_DECLARE(bytes); unsigned base = AG_LDS_BASE();
//       the block's static LDS (16-byte aligned) and its 32-bit LDS byte address.
// ---------------------------------------------------------------------------------------

#ifndef ATTNGEN_GFX942_TYPES
#define ATTNGEN_GFX942_TYPES
typedef float ag_f32x4 __attribute__((ext_vector_type(4)));
typedef unsigned ag_u32x4 __attribute__((ext_vector_type(4)));
typedef unsigned ag_u32x2 __attribute__((ext_vector_type(2)));
typedef ag_u32x4 ag_rsrc;  // buffer resource descriptor (4 dwords, wave-uniform)
#endif // ATTNGEN_GFX942_TYPES

#ifndef ATTNGEN_EMU

#define AG_DEVICE __attribute__((device)) __attribute__((always_inline)) inline
#define AG_KERNEL(threads)                                                           \
  extern "C" __attribute__((global))                                                 \
  __attribute__((amdgpu_flat_work_group_size(threads, threads)))
#define AG_LDS_DECLARE(bytes) \
  __attribute__((shared)) __attribute__((aligned(16))) static unsigned char ag_lds_[bytes]
#define AG_LDS_BASE() \
  ((unsigned)(__SIZE_TYPE__)(__attribute__((address_space(3))) unsigned char *)ag_lds_)

// ---- ids, uniformity, descriptors --------------------------------------------------------
AG_DEVICE unsigned ag_thread_id() { return __builtin_amdgcn_workitem_id_x(); }
AG_DEVICE unsigned ag_lane_id() { return __builtin_amdgcn_workitem_id_x() & 63u; }
AG_DEVICE unsigned ag_wave_id() {
  return __builtin_amdgcn_readfirstlane(__builtin_amdgcn_workitem_id_x() >> 6);
}
AG_DEVICE unsigned ag_lane_id_here() {
  unsigned d;
  asm volatile("v_mbcnt_lo_u32_b32 %0, -1, 0\n\tv_mbcnt_hi_u32_b32 %0, -1, %0" : "=v"(d));
  return d;
}
AG_DEVICE unsigned ag_block_id_x() { return __builtin_amdgcn_workgroup_id_x(); }
AG_DEVICE unsigned ag_block_id_y() { return __builtin_amdgcn_workgroup_id_y(); }
AG_DEVICE unsigned ag_block_id_z() { return __builtin_amdgcn_workgroup_id_z(); }
AG_DEVICE unsigned ag_uniform(unsigned x) { return __builtin_amdgcn_readfirstlane(x); }
AG_DEVICE bool ag_any(bool p) { return __builtin_amdgcn_ballot_w64(p) != 0; }
AG_DEVICE unsigned long long ag_ballot(bool p) { return __builtin_amdgcn_ballot_w64(p); }
AG_DEVICE unsigned ag_readlane(unsigned x, unsigned l) {
  return (unsigned)__builtin_amdgcn_readlane((int)x, (int)l);
}

AG_DEVICE ag_rsrc ag_make_rsrc(const void *base, unsigned num_records) {
  unsigned long long p = (unsigned long long)base;
  ag_rsrc r;
  r.x = ag_uniform((unsigned)p);
  r.y = ag_uniform((unsigned)(p >> 32) & 0xFFFFu);  // stride 0, no swizzle
  r.z = ag_uniform(num_records);
  r.w = 0x00020000u;  // raw buffer, 32-bit data format (gfx9 family)
  return r;
}

// ---- landing of asynchronous results ------------------------------------------------------
template <typename T> AG_DEVICE void ag_pin_(T &x) { asm volatile("" : "+v"(x)); }

template <int N, typename... T> AG_DEVICE void ag_s_waitcnt_vmcnt(T &...xs) {
  static_assert(N >= 0 && N <= 63, "vmcnt is 0..63 on gfx942");
  asm volatile("s_waitcnt vmcnt(%0)" ::"n"(N) : "memory");
  (ag_pin_(xs), ...);
}
template <int N, typename... T> AG_DEVICE void ag_s_waitcnt_lgkmcnt(T &...xs) {
  static_assert(N >= 0 && N <= 15, "lgkmcnt is 0..15 on gfx942");
  asm volatile("s_waitcnt lgkmcnt(%0)" ::"n"(N) : "memory");
  (ag_pin_(xs), ...);
}

// ---- scalar control ---------------------------------------------------------------------
AG_DEVICE void ag_s_barrier() { asm volatile("s_barrier" ::: "memory"); }
template <int P> AG_DEVICE void ag_s_setprio() {
  static_assert(P >= 0 && P <= 3, "s_setprio takes 0..3");
  asm volatile("s_setprio %0" ::"n"(P));
}
template <int N> AG_DEVICE void ag_s_nop() {
  static_assert(N >= 0 && N <= 7, "s_nop takes 0..7");
  asm volatile("s_nop %0" ::"n"(N));
}
template <typename... T> AG_DEVICE void ag_mfma_drain(T &...accs) {
  asm volatile("s_nop 6");
  (ag_pin_(accs), ...);
}

// ---- buffer (VMEM) -----------------------------------------------------------------------
template <int OFF> AG_DEVICE void ag_buffer_load_dword(unsigned &dst, ag_rsrc r, unsigned voff) {
  static_assert(OFF >= 0 && OFF < 4096, "buffer offset is 12 bits");
  asm volatile("buffer_load_dword %0, %1, %2, 0 offen offset:%3"
               : "=v"(dst) : "v"(voff), "s"(r), "n"(OFF) : "memory");
}
template <int OFF> AG_DEVICE void ag_buffer_load_dwordx2(ag_u32x2 &dst, ag_rsrc r, unsigned voff) {
  static_assert(OFF >= 0 && OFF < 4096, "buffer offset is 12 bits");
  asm volatile("buffer_load_dwordx2 %0, %1, %2, 0 offen offset:%3"
               : "=v"(dst) : "v"(voff), "s"(r), "n"(OFF) : "memory");
}
template <int OFF> AG_DEVICE void ag_buffer_load_dwordx4(ag_u32x4 &dst, ag_rsrc r, unsigned voff) {
  static_assert(OFF >= 0 && OFF < 4096, "buffer offset is 12 bits");
  asm volatile("buffer_load_dwordx4 %0, %1, %2, 0 offen offset:%3"
               : "=v"(dst) : "v"(voff), "s"(r), "n"(OFF) : "memory");
}
template <int OFF> AG_DEVICE void ag_buffer_store_dword(ag_rsrc r, unsigned voff, unsigned data) {
  static_assert(OFF >= 0 && OFF < 4096, "buffer offset is 12 bits");
  asm volatile("buffer_store_dword %0, %1, %2, 0 offen offset:%3"
               :: "v"(data), "v"(voff), "s"(r), "n"(OFF) : "memory");
}
template <int OFF> AG_DEVICE void ag_buffer_store_dwordx2(ag_rsrc r, unsigned voff, ag_u32x2 data) {
  static_assert(OFF >= 0 && OFF < 4096, "buffer offset is 12 bits");
  asm volatile("buffer_store_dwordx2 %0, %1, %2, 0 offen offset:%3"
               :: "v"(data), "v"(voff), "s"(r), "n"(OFF) : "memory");
}
template <int OFF> AG_DEVICE void ag_buffer_store_dwordx4(ag_rsrc r, unsigned voff, ag_u32x4 data) {
  static_assert(OFF >= 0 && OFF < 4096, "buffer offset is 12 bits");
  asm volatile("buffer_store_dwordx4 %0, %1, %2, 0 offen offset:%3"
               :: "v"(data), "v"(voff), "s"(r), "n"(OFF) : "memory");
}
template <int OFF> AG_DEVICE void ag_buffer_atomic_add(ag_rsrc r, unsigned voff, unsigned data) {
  static_assert(OFF >= 0 && OFF < 4096, "buffer offset is 12 bits");
  asm volatile("buffer_atomic_add %0, %1, %2, 0 offen offset:%3"
               :: "v"(data), "v"(voff), "s"(r), "n"(OFF) : "memory");
}
AG_DEVICE void ag_buffer_load_dword_lds(ag_rsrc r, unsigned voff, unsigned lds_addr) {
  asm volatile("s_nop 0\n\tbuffer_load_dword %0, %1, 0 offen lds"
               :: "v"(voff), "s"(r), "{m0}"(ag_uniform(lds_addr)) : "memory");
}

// ---- LDS ---------------------------------------------------------------------------------
template <int OFF> AG_DEVICE void ag_ds_read_b32(unsigned &dst, unsigned addr) {
  static_assert(OFF >= 0 && OFF < 65536, "ds offset is 16 bits");
  asm volatile("ds_read_b32 %0, %1 offset:%2" : "=v"(dst) : "v"(addr), "n"(OFF) : "memory");
}
template <int OFF> AG_DEVICE void ag_ds_read_b64(ag_u32x2 &dst, unsigned addr) {
  static_assert(OFF >= 0 && OFF < 65536, "ds offset is 16 bits");
  asm volatile("ds_read_b64 %0, %1 offset:%2" : "=v"(dst) : "v"(addr), "n"(OFF) : "memory");
}
template <int OFF> AG_DEVICE void ag_ds_read_b128(ag_u32x4 &dst, unsigned addr) {
  static_assert(OFF >= 0 && OFF < 65536, "ds offset is 16 bits");
  asm volatile("ds_read_b128 %0, %1 offset:%2" : "=v"(dst) : "v"(addr), "n"(OFF) : "memory");
}
template <int OFF> AG_DEVICE void ag_ds_write_b32(unsigned addr, unsigned data) {
  static_assert(OFF >= 0 && OFF < 65536, "ds offset is 16 bits");
  asm volatile("ds_write_b32 %0, %1 offset:%2" :: "v"(addr), "v"(data), "n"(OFF) : "memory");
}
template <int OFF> AG_DEVICE void ag_ds_write_b64(unsigned addr, ag_u32x2 data) {
  static_assert(OFF >= 0 && OFF < 65536, "ds offset is 16 bits");
  asm volatile("ds_write_b64 %0, %1 offset:%2" :: "v"(addr), "v"(data), "n"(OFF) : "memory");
}
template <int OFF> AG_DEVICE void ag_ds_write_b128(unsigned addr, ag_u32x4 data) {
  static_assert(OFF >= 0 && OFF < 65536, "ds offset is 16 bits");
  asm volatile("ds_write_b128 %0, %1 offset:%2" :: "v"(addr), "v"(data), "n"(OFF) : "memory");
}
template <int PATTERN> AG_DEVICE void ag_ds_swizzle_b32(unsigned &dst, unsigned src) {
  static_assert(PATTERN >= 0 && PATTERN < 0x8000, "only bit-mask swizzles are used");
  asm volatile("ds_swizzle_b32 %0, %1 offset:%2" : "=v"(dst) : "v"(src), "n"(PATTERN));
}
AG_DEVICE void ag_ds_bpermute_b32(unsigned &dst, unsigned addr, unsigned src) {
  asm volatile("ds_bpermute_b32 %0, %1, %2" : "=v"(dst) : "v"(addr), "v"(src));
}

// ---- MFMA --------------------------------------------------------------------------------
AG_DEVICE void ag_mfma_16x16x16_bf16(ag_f32x4 &acc, ag_u32x2 a, ag_u32x2 b) {
  asm volatile("v_mfma_f32_16x16x16_bf16 %0, %1, %2, %0" : "+v"(acc) : "v"(a), "v"(b));
}
AG_DEVICE void ag_mfma_16x16x16_bf16_zero(ag_f32x4 &acc, ag_u32x2 a, ag_u32x2 b) {
  asm volatile("v_mfma_f32_16x16x16_bf16 %0, %1, %2, 0" : "=v"(acc) : "v"(a), "v"(b));
}

// ---- VALU --------------------------------------------------------------------------------
AG_DEVICE float ag_v_exp_f32(float x) { return __builtin_amdgcn_exp2f(x); }
AG_DEVICE float ag_v_log_f32(float x) { return __builtin_amdgcn_logf(x); }
AG_DEVICE float ag_fma_f32(float a, float b, float c) { return __builtin_fmaf(a, b, c); }
AG_DEVICE unsigned ag_pack_p_rtne(float lo, float hi) {
  const unsigned a = __builtin_bit_cast(unsigned, lo), b = __builtin_bit_cast(unsigned, hi);
  return __builtin_amdgcn_perm(b + 0x7FFFu + ((b >> 16) & 1u), a + 0x7FFFu + ((a >> 16) & 1u),
                               0x07060302u);
}
AG_DEVICE unsigned ag_pack_p_rtna(float lo, float hi) {
  const unsigned a = __builtin_bit_cast(unsigned, lo), b = __builtin_bit_cast(unsigned, hi);
  return __builtin_amdgcn_perm(b + 0x8000u, a + 0x8000u, 0x07060302u);
}
AG_DEVICE unsigned ag_pack_p_rtz(float lo, float hi) {
  return __builtin_amdgcn_perm(__builtin_bit_cast(unsigned, hi), __builtin_bit_cast(unsigned, lo),
                               0x07060302u);
}
AG_DEVICE unsigned ag_v_perm_b32(unsigned hi, unsigned lo, unsigned sel) {
  unsigned d;
  asm volatile("v_perm_b32 %0, %1, %2, %3" : "=v"(d) : "v"(hi), "v"(lo), "s"(sel));
  return d;
}
AG_DEVICE unsigned ag_pack_bf16_rtne(float lo, float hi) {
  unsigned d, t0, t1;
  asm volatile(
      "v_bfe_u32 %1, %3, 16, 1\n\t"
      "v_add3_u32 %1, %3, %1, %5\n\t"
      "v_cmp_o_f32 vcc, %3, %3\n\t"
      "v_cndmask_b32 %1, %6, %1, vcc\n\t"
      "v_bfe_u32 %2, %4, 16, 1\n\t"
      "v_add3_u32 %2, %4, %2, %5\n\t"
      "v_cmp_o_f32 vcc, %4, %4\n\t"
      "v_cndmask_b32 %2, %6, %2, vcc\n\t"
      "v_perm_b32 %0, %2, %1, %7"
      : "=v"(d), "=&v"(t0), "=&v"(t1)
      : "v"(lo), "v"(hi), "s"(0x7FFFu), "v"(0x7FFF0000u), "s"(0x07060302u)
      : "vcc");
  return d;
}
AG_DEVICE unsigned ag_pack_bf16_rtna(float lo, float hi) {
  unsigned d, t0, t1;
  asm volatile(
      "v_add_u32 %1, 0x8000, %3\n\t"
      "v_cmp_o_f32 vcc, %3, %3\n\t"
      "v_cndmask_b32 %1, %5, %1, vcc\n\t"
      "v_add_u32 %2, 0x8000, %4\n\t"
      "v_cmp_o_f32 vcc, %4, %4\n\t"
      "v_cndmask_b32 %2, %5, %2, vcc\n\t"
      "v_perm_b32 %0, %2, %1, %6"
      : "=v"(d), "=&v"(t0), "=&v"(t1)
      : "v"(lo), "v"(hi), "v"(0x7FFF0000u), "s"(0x07060302u)
      : "vcc");
  return d;
}
AG_DEVICE unsigned ag_pack_bf16_rtz(float lo, float hi) {
  unsigned d, t0, t1;
  asm volatile(
      "v_cmp_o_f32 vcc, %3, %3\n\t"
      "v_cndmask_b32 %1, %5, %3, vcc\n\t"
      "v_cmp_o_f32 vcc, %4, %4\n\t"
      "v_cndmask_b32 %2, %5, %4, vcc\n\t"
      "v_perm_b32 %0, %2, %1, %6"
      : "=v"(d), "=&v"(t0), "=&v"(t1)
      : "v"(lo), "v"(hi), "v"(0x7FFF0000u), "s"(0x07060302u)
      : "vcc");
  return d;
}

#endif // ATTNGEN_EMU

// ---- portable helpers (device and host alike) ---------------------------------------------
AG_DEVICE unsigned ag_f32_bits(float x) { return __builtin_bit_cast(unsigned, x); }
AG_DEVICE float ag_bits_f32(unsigned u) { return __builtin_bit_cast(float, u); }
AG_DEVICE float ag_max_f32(float a, float b) { return __builtin_fmaxf(a, b); }
#line 30 "templates/gfx942/attn_fwd.hip.in"
// attn_fwd.hip.in: bf16 forward attention (head_dim 256) for AMD MI300X (gfx942), one
// variant per expansion. Numerics: docs/NUMERICS.md (exp2 softmax with the scale
// folded into a.scale_log2, l sums unrounded p, P and O rounded with the variant's mode).
//
// Block: 512 threads = 8 waves; wave w owns Q rows [w*Q*16, (w+1)*Q*16) of the block
// (Q = q_tiles 16-row tiles), Q fragments and O accumulators live in VGPRs.
//
// MFMA operand mapping (v_mfma_f32_16x16x16_bf16, lane l = 16g + c):
//  * S^T = K Q^T: A = K rows (lane c reads key c of the 16-key block), B = Q^T (lane c
//    holds query c). The head dimension d is the reduction axis; MFMA kk = 2hh + e of the
//    8 per block covers d = 32hh + 8g + 4e + i (i = 0..3), so one ds_read_b128 of K and one
//    buffer_load_dwordx4 of Q per (hh) feed two MFMAs. The result lane (g, c) holds
//    S[q_c][key 4g+i], i.e. exactly the A-operand layout of P for the P·V MFMA: P needs no
//    cross-lane shuffle, only rounding and packing.
//  * O = P V: B = V[key 4g+i][column]. Column n of MFMA dd (0..7) is d = 8n + dd, so lane
//    (g, c) needs V[4g+i][8c .. 8c+7] for i = 0..3: four buffer_load_dwordx4 of 16 bytes,
//    each a coalesced 256-byte row segment per 16 lanes, straight from BSHD/BHSD without a
//    transpose. The B operand of (kb, dd) is built with two v_perm_b32 (pick half dd%2 of
//    dword dd/2 from the rows 4g..4g+3), and is shared by the Q MFMAs of all q-tiles.
//    Why V does not go through LDS: the rows a lane needs are exactly one 16-byte chunk
//    each (no LDS transpose helps; gfx942 has no transposing LDS read), LDS bandwidth is
//    kept for K (read by all 8 waves) and the row reductions, and the 8 waves of a block
//    read the same V tile within one phase, so it is served by L1/L2.
//    O lane (g, c) holds O[q_{4g+i}][8c + dd]: one 16-byte store per row at the end.
//  * K tile: HBM -> LDS by LDS DMA (buffer_load_dword ... lds, 256 bytes = one key row per
//    instruction and wave), double-buffered, rows padded to 272 bytes so that the
//    ds_read_b128 of 8 consecutive lanes (rows c..c+7, same chunk) hit 8 distinct groups of
//    4 banks: conflict-free, and every fragment address is one VGPR plus an immediate.
//
// Schedule: group A = waves 0-3, group B = waves 4-7, B half an iteration behind A. Slots
// are separated by s_barrier; in slot 2j A runs phase X_j and B phase Y_{j-1}, in slot
// 2j+1 A runs Y_j and B X_j:
//   X_j (MFMA phase, s_setprio 1): O += P_{j-1} V_{j-1} (V_{j-1} loaded during Y_{j-1}),
//       then S_j = Q K_j^T from LDS buffer j%2.
//   Y_j (VALU phase): mask, lane max; only when some lane's max exceeds its row's running
//       max (wave vote, the skip-rescale gate): row max (ds_swizzle + ds_bpermute), alpha,
//       l and O rescale. Then p = exp2(fma(s, c, -m)), l, P_j rounded and packed, V_j loads.
//   K_{j+1} is DMA'd into buffer (j+1)%2 by all 8 waves in slot 2j (A in X_j, B in
//   Y_{j-1}) and waited for (vmcnt) before the barrier that ends slot 2j+1.
// Two barriers per KV iteration per wave; all other ordering by exact s_waitcnt counts.
// The last P V runs after the loop. Keys >= kv_end: K and V rows read 0 through the
// descriptor bounds, scores of the last partial tile are masked to -inf. Query rows >= Sq
// read 0 and their stores fall outside the descriptor (dropped).
// Tail KV split (kv_split = tail): see runtime/src/split_plan.h for the grid; split parts
// write unnormalized fp32 O and (m, l) per row into a.ws and attn_fwd_d256_bshd_rtne_q2_kv32_w8_nosplit_vt_skip_mfma_gfx942_merge combines them.
#line 95 "templates/gfx942/attn_fwd.hip.in"
// Tile skipping (skip = on; docs/NUMERICS.md "Tile skipping"): the block's q-tile is its
// 256 rows, the kv-tiles its 32-key tiles. Lane w of every wave holds list word w of the
// q-tile (at most 64 words: 2048 tiles, the host refuses more): cw = the computed tiles
// (visited, i.e. below kv_end, and not (R | MS) & ~MD), mk = the computed tiles not in MD
// that no wave has vetoed yet. The KV loop runs over the computed tiles only, ascending:
// the tiles j - 1, j, j + 1, j + 2 of an iteration are the wave-uniform kp, kc, kn1, kn2 of
// the walk (nvis = none), so the K double buffer is prefetched with the next COMPUTED tile
// and a skipped tile costs no load, MFMA or exp (a walk step: v_readlane of word k / 32 and
// s_ff1; a ballot over the later words when the rest of the word is skipped). After the
// softmax of tile kc, a wave vetoes it when a lane of a row below Sq holds a max t over its
// keys (NaN: none) that is not below the row's running max + T (kargs.skip_threshold_log2);
// the vetoes of one list word collect in a scalar word and clear their bits of mk when the
// walk leaves the word. At the end the waves' mk words meet in LDS (the dead K buffer):
// W = (visited & ~cw) | AND of the 8 mk words,
// stored whole by wave 0, which also adds (skipped, visited) to kargs.skip_count (buffer
// atomics). With no tile skipped the walk is 0, 1, 2, ... and the numerics are the dense
// variant's bit for bit. A q-tile whose every tile is skipped runs no iteration: O = 0,
// l = 0 (out 0, LSE -inf), as the reference.
#line 124 "templates/gfx942/attn_fwd.hip.in"
//
// head_dim 256 (the mapping above with twice the columns): hh = 0..7 (8 ds_read_b128 of K
// and 8 dwordx4 of Q per 16-key block); P V has 16 MFMAs per 16-key block, column n of MFMA
// dd (0..15) is d = 16n + dd, so lane (g, c) needs V[4g+i][16c .. 16c+15] (32 bytes per row:
// 8 dwordx4 of the pre-transposed chunk, v_path = vt only) and stores 32 bytes of O per row;
// split partials hold 256 O values per row. Q (32 VGPRs per tile) and O (64) leave no room
// for a ring of whole V chunks (32 VGPRs each): V streams through a ring of 8 dwordx4
// pieces (see pv256). K rows in LDS at a pitch of 528 bytes, two LDS DMA instructions
// per row.
#line 134 "templates/gfx942/attn_fwd.hip.in"

#line 150 "templates/gfx942/attn_fwd.hip.in"

#line 178 "templates/gfx942/attn_fwd.hip.in"

AG_KERNEL(512) void attn_fwd_d256_bshd_rtne_q2_kv32_w8_nosplit_vt_skip_mfma_gfx942(attngen_kargs a) {
  AG_LDS_DECLARE(33792);
  const unsigned lds = AG_LDS_BASE();
  const unsigned lane = ag_lane_id();
  const unsigned wave = ag_wave_id();
  const unsigned grp = wave >> 2;  // 0: group A (leads), 1: group B (half an iteration behind)
  const unsigned g = lane >> 4, c = lane & 15u;
  const unsigned H = (unsigned)a.H;
  // KV heads (grouped-query calls: H_kv divides H; 0 = H): query head h reads KV head
  // h H_kv / H = h / (H / H_kv), one division
  const unsigned Hkv = a.H_kv > 0 ? (unsigned)a.H_kv : H;
#line 191 "templates/gfx942/attn_fwd.hip.in"

  // ---- pre-pass (kargs.vt_prepass = 1; grid (ceil(chunks / 8), H, B), before the attention
  // launch): wave w converts 16-key chunk x = 8 blockIdx.x + w of V[b, h] into the operand
  // order of the P V MFMA, at a.ws + 8192 ((b H_kv + h) chunks + x) (h: the KV head, grid
  // (ceil(chunks / 8), H_kv, B); the query heads of a group share it): lane (g, c) writes 16 bytes
  // per column pair w at 1024 w + 16 lane: {V[4g][d], V[4g+1][d]}, {V[4g+2][d], V[4g+3][d]}
  // for d = 16c + 2w, then the same for d = 16c + 2w + 1 (bf16 pairs, low half first), i.e.
  // the B operands of MFMA columns dd = 2w and 2w + 1. Keys >= the batch entry's key length
  // (kv_len[b], else Skv) read 0 (descriptor bounds), so the chunk of its last key is
  // zero-padded and a masked key's V is 0 even if its memory holds Inf or NaN. Reads and
  // writes 8192 bytes per chunk.
  if (a.vt_prepass) {  // the pre-pass launch (runtime/src/api.c)
    const unsigned b = ag_block_id_z(), h = ag_block_id_y();
    const unsigned chunks = ((unsigned)a.Skv + 15u) / 16u;
    const unsigned x = ag_block_id_x() * 8u + wave;
#line 140 "templates/gfx942/attn_fwd.hip.in"
  unsigned kv_n = (unsigned)a.Skv;
  if (a.kv_len) {
    const ag_rsrc kl_rsrc = ag_make_rsrc(a.kv_len, (unsigned)a.B * 4u);
    unsigned kl_raw;
    ag_buffer_load_dword<0>(kl_raw, kl_rsrc, (b) * 4u);
    ag_s_waitcnt_vmcnt<0>(kl_raw);
    const int kl = (int)kl_raw;
    kv_n = ag_uniform(kl <= 0 ? 0u : ((unsigned)kl < kv_n ? (unsigned)kl : kv_n));
  }
#line 213 "templates/gfx942/attn_fwd.hip.in"
    if (x < chunks) {  // wave-uniform
      // V of (b, KV head h) through the call's strides (kargs.h; a packed sequence: from its
      // first key row, sb = 0)
      const unsigned rs = (unsigned)a.v_ss * 2u;
#line 220 "templates/gfx942/attn_fwd.hip.in"
      const unsigned long long kv_row0 = 0ull;
#line 222 "templates/gfx942/attn_fwd.hip.in"
      const unsigned long long kv_base = 2ull * ((unsigned long long)b * (unsigned long long)a.v_sb +
                                                 kv_row0 * (unsigned)a.v_ss + (unsigned long long)h * (unsigned)a.v_sh);
      const ag_rsrc src = ag_make_rsrc((const char *)a.v + kv_base, kv_n > 0u ? (kv_n - 1u) * rs + 512u : 0u);
      const ag_rsrc dst = ag_make_rsrc((char *)a.ws + ((unsigned long long)b * Hkv + h) * chunks * 8192ull,
                                       chunks * 8192u);
#line 228 "templates/gfx942/attn_fwd.hip.in"
      // head_dim 256: 32 bytes of each row (two dwordx4), dword w of them in r[i][w / 4];
      // the pieces w >= 4 lie past the 12-bit immediate offset: 4096 more in the VGPR offset
      ag_u32x4 r[4][2];
#line 233 "templates/gfx942/attn_fwd.hip.in"
      ag_buffer_load_dwordx4<0>(r[0][0], src, (16u * x + 4u * g + 0u) * rs + 32u * c);
#line 233 "templates/gfx942/attn_fwd.hip.in"
      ag_buffer_load_dwordx4<16>(r[0][1], src, (16u * x + 4u * g + 0u) * rs + 32u * c);
#line 233 "templates/gfx942/attn_fwd.hip.in"
      ag_buffer_load_dwordx4<0>(r[1][0], src, (16u * x + 4u * g + 1u) * rs + 32u * c);
#line 233 "templates/gfx942/attn_fwd.hip.in"
      ag_buffer_load_dwordx4<16>(r[1][1], src, (16u * x + 4u * g + 1u) * rs + 32u * c);
#line 233 "templates/gfx942/attn_fwd.hip.in"
      ag_buffer_load_dwordx4<0>(r[2][0], src, (16u * x + 4u * g + 2u) * rs + 32u * c);
#line 233 "templates/gfx942/attn_fwd.hip.in"
      ag_buffer_load_dwordx4<16>(r[2][1], src, (16u * x + 4u * g + 2u) * rs + 32u * c);
#line 233 "templates/gfx942/attn_fwd.hip.in"
      ag_buffer_load_dwordx4<0>(r[3][0], src, (16u * x + 4u * g + 3u) * rs + 32u * c);
#line 233 "templates/gfx942/attn_fwd.hip.in"
      ag_buffer_load_dwordx4<16>(r[3][1], src, (16u * x + 4u * g + 3u) * rs + 32u * c);
#line 236 "templates/gfx942/attn_fwd.hip.in"
      ag_s_waitcnt_vmcnt<0>(r[0][0], r[0][1], r[1][0], r[1][1], r[2][0], r[2][1], r[3][0], r[3][1]);
#line 249 "templates/gfx942/attn_fwd.hip.in"
      {
        const ag_u32x4 t = {ag_v_perm_b32(r[1][0][0], r[0][0][0], 0x05040100u),
                            ag_v_perm_b32(r[3][0][0], r[2][0][0], 0x05040100u),
                            ag_v_perm_b32(r[1][0][0], r[0][0][0], 0x07060302u),
                            ag_v_perm_b32(r[3][0][0], r[2][0][0], 0x07060302u)};
        ag_buffer_store_dwordx4<0>(dst, x * 8192u + lane * 16u, t);
      }
#line 249 "templates/gfx942/attn_fwd.hip.in"
      {
        const ag_u32x4 t = {ag_v_perm_b32(r[1][0][1], r[0][0][1], 0x05040100u),
                            ag_v_perm_b32(r[3][0][1], r[2][0][1], 0x05040100u),
                            ag_v_perm_b32(r[1][0][1], r[0][0][1], 0x07060302u),
                            ag_v_perm_b32(r[3][0][1], r[2][0][1], 0x07060302u)};
        ag_buffer_store_dwordx4<1024>(dst, x * 8192u + lane * 16u, t);
      }
#line 249 "templates/gfx942/attn_fwd.hip.in"
      {
        const ag_u32x4 t = {ag_v_perm_b32(r[1][0][2], r[0][0][2], 0x05040100u),
                            ag_v_perm_b32(r[3][0][2], r[2][0][2], 0x05040100u),
                            ag_v_perm_b32(r[1][0][2], r[0][0][2], 0x07060302u),
                            ag_v_perm_b32(r[3][0][2], r[2][0][2], 0x07060302u)};
        ag_buffer_store_dwordx4<2048>(dst, x * 8192u + lane * 16u, t);
      }
#line 249 "templates/gfx942/attn_fwd.hip.in"
      {
        const ag_u32x4 t = {ag_v_perm_b32(r[1][0][3], r[0][0][3], 0x05040100u),
                            ag_v_perm_b32(r[3][0][3], r[2][0][3], 0x05040100u),
                            ag_v_perm_b32(r[1][0][3], r[0][0][3], 0x07060302u),
                            ag_v_perm_b32(r[3][0][3], r[2][0][3], 0x07060302u)};
        ag_buffer_store_dwordx4<3072>(dst, x * 8192u + lane * 16u, t);
      }
#line 249 "templates/gfx942/attn_fwd.hip.in"
      {
        const ag_u32x4 t = {ag_v_perm_b32(r[1][1][0], r[0][1][0], 0x05040100u),
                            ag_v_perm_b32(r[3][1][0], r[2][1][0], 0x05040100u),
                            ag_v_perm_b32(r[1][1][0], r[0][1][0], 0x07060302u),
                            ag_v_perm_b32(r[3][1][0], r[2][1][0], 0x07060302u)};
        ag_buffer_store_dwordx4<0>(dst, x * 8192u + lane * 16u + 4096u, t);
      }
#line 249 "templates/gfx942/attn_fwd.hip.in"
      {
        const ag_u32x4 t = {ag_v_perm_b32(r[1][1][1], r[0][1][1], 0x05040100u),
                            ag_v_perm_b32(r[3][1][1], r[2][1][1], 0x05040100u),
                            ag_v_perm_b32(r[1][1][1], r[0][1][1], 0x07060302u),
                            ag_v_perm_b32(r[3][1][1], r[2][1][1], 0x07060302u)};
        ag_buffer_store_dwordx4<1024>(dst, x * 8192u + lane * 16u + 4096u, t);
      }
#line 249 "templates/gfx942/attn_fwd.hip.in"
      {
        const ag_u32x4 t = {ag_v_perm_b32(r[1][1][2], r[0][1][2], 0x05040100u),
                            ag_v_perm_b32(r[3][1][2], r[2][1][2], 0x05040100u),
                            ag_v_perm_b32(r[1][1][2], r[0][1][2], 0x07060302u),
                            ag_v_perm_b32(r[3][1][2], r[2][1][2], 0x07060302u)};
        ag_buffer_store_dwordx4<2048>(dst, x * 8192u + lane * 16u + 4096u, t);
      }
#line 249 "templates/gfx942/attn_fwd.hip.in"
      {
        const ag_u32x4 t = {ag_v_perm_b32(r[1][1][3], r[0][1][3], 0x05040100u),
                            ag_v_perm_b32(r[3][1][3], r[2][1][3], 0x05040100u),
                            ag_v_perm_b32(r[1][1][3], r[0][1][3], 0x07060302u),
                            ag_v_perm_b32(r[3][1][3], r[2][1][3], 0x07060302u)};
        ag_buffer_store_dwordx4<3072>(dst, x * 8192u + lane * 16u + 4096u, t);
      }
#line 257 "templates/gfx942/attn_fwd.hip.in"
    }
    return;
  }
#line 261 "templates/gfx942/attn_fwd.hip.in"

  // ---- the block's job: (b, h, q-block) and KV range [kv_begin, kv_end)
#line 300 "templates/gfx942/attn_fwd.hip.in"
  const unsigned qb = ag_block_id_x(), h = ag_block_id_y(), b = ag_block_id_z();
  const unsigned kv_begin = 0;
  unsigned kv_end = (unsigned)a.Skv;
#line 304 "templates/gfx942/attn_fwd.hip.in"
  // ---- per-batch key length: keys >= kv_len[b] (clamped into [0, Skv]) do not exist for
  // this block; a split part past it is empty (no tile: m = -inf, l = 0, O = 0)
  {
#line 140 "templates/gfx942/attn_fwd.hip.in"
  unsigned kv_n = (unsigned)a.Skv;
  if (a.kv_len) {
    const ag_rsrc kl_rsrc = ag_make_rsrc(a.kv_len, (unsigned)a.B * 4u);
    unsigned kl_raw;
    ag_buffer_load_dword<0>(kl_raw, kl_rsrc, (b) * 4u);
    ag_s_waitcnt_vmcnt<0>(kl_raw);
    const int kl = (int)kl_raw;
    kv_n = ag_uniform(kl <= 0 ? 0u : ((unsigned)kl < kv_n ? (unsigned)kl : kv_n));
  }
#line 308 "templates/gfx942/attn_fwd.hip.in"
    kv_end = kv_end < kv_n ? kv_end : kv_n;
#line 312 "templates/gfx942/attn_fwd.hip.in"
  }
#line 337 "templates/gfx942/attn_fwd.hip.in"

  // ---- per-(b, h) slices through the call's strides (kargs.h: element (b, s, h) at
  // b sb + s ss + h sh, whatever the layout): row strides in bytes rs (q), o_rs (o), kv_rs
  // (k), v_rs (v), buffer descriptors bounded to the rows; K and V are those of the group's
  // KV head hk
  const unsigned hk = ag_uniform(h * Hkv / H);
  const unsigned rs = (unsigned)a.q_ss * 2u, o_rs = (unsigned)a.o_ss * 2u;
  const unsigned kv_rs = (unsigned)a.k_ss * 2u;
#line 351 "templates/gfx942/attn_fwd.hip.in"
  const unsigned long long q_row0s = 0ull, kv_row0s = 0ull;
  const unsigned q_n = (unsigned)a.Sq;
#line 354 "templates/gfx942/attn_fwd.hip.in"
  const unsigned long long q_base = 2ull * ((unsigned long long)b * (unsigned long long)a.q_sb +
                                            q_row0s * (unsigned)a.q_ss + (unsigned long long)h * (unsigned)a.q_sh);
  const unsigned long long o_base = 2ull * ((unsigned long long)b * (unsigned long long)a.o_sb +
                                            q_row0s * (unsigned)a.o_ss + (unsigned long long)h * (unsigned)a.o_sh);
  const unsigned long long kv_base = 2ull * ((unsigned long long)b * (unsigned long long)a.k_sb +
                                             kv_row0s * (unsigned)a.k_ss + (unsigned long long)hk * (unsigned)a.k_sh);
  const unsigned q_bytes = q_n > 0u ? (q_n - 1u) * rs + 512u : 0u;
  const unsigned o_bytes = q_n > 0u ? (q_n - 1u) * o_rs + 512u : 0u;
  const unsigned kv_bytes = kv_end > 0 ? (kv_end - 1u) * kv_rs + 512u : 0u;
  const ag_rsrc q_rsrc = ag_make_rsrc((const char *)a.q + q_base, q_bytes);
  const ag_rsrc o_rsrc = ag_make_rsrc((const char *)a.o + o_base, o_bytes);
  const ag_rsrc k_rsrc = ag_make_rsrc((const char *)a.k + kv_base, kv_bytes);
#line 367 "templates/gfx942/attn_fwd.hip.in"
  // V in operand order (written by the pre-pass): chunk x (keys 16x .. 16x+15) of this
  // (b, h) at byte 8192 x, bounded to the chunks below kv_end (a split part ends on a tile
  // boundary, the last chunk of Skv is zero-padded by the pre-pass)
  const unsigned vt_chunks = ((unsigned)a.Skv + 15u) / 16u;
  const ag_rsrc v_rsrc = ag_make_rsrc((const char *)a.ws + ((unsigned long long)b * Hkv + hk) * vt_chunks * 8192ull,
                                      (kv_end + 15u) / 16u * 8192u);
#line 380 "templates/gfx942/attn_fwd.hip.in"

  const unsigned q_row0 = qb * 256u + wave * 32u;  // first row of q-tile 0
  const unsigned kv_len = kv_end - kv_begin;
  const unsigned nt = (kv_len + 31u) / 32u;             // KV tiles
#line 391 "templates/gfx942/attn_fwd.hip.in"

  // ---- tile skipping: the q-tile's list words, word w in lane w (absent lists read 0)
  const unsigned nvis = nt;  // visited tiles (from kv_begin); list words from swb (lane w: swb + w)
  const unsigned swb = 0u;
  const unsigned sw_left = (unsigned)a.skip_nw > swb ? (unsigned)a.skip_nw - swb : 0u;
  const unsigned swn = sw_left;
  const float skip_t = a.skip_threshold_log2;
  const unsigned wrows = ag_uniform((unsigned)a.Sq <= q_row0 ? 0u  // rows of the wave below Sq (the others do not vote)
                                    : (unsigned)a.Sq - q_row0 < 32u ? (unsigned)a.Sq - q_row0 : 32u);
  unsigned cw, mk;  // computed tiles; computed tiles not in MD that no wave has vetoed (yet)
  unsigned vw = 0u, vwi = 0u;  // this wave's vetoes of list word vwi, not yet in mk (uniform)
  {
    const unsigned long long w0 = (((unsigned long long)b * H + h) * (unsigned)a.skip_nqt + qb) *
                                  (unsigned)a.skip_nw + swb;
    const unsigned nwb = sw_left * 4u;
    const ag_rsrc r_rsrc = ag_make_rsrc(a.skip_read ? a.skip_read + w0 : a.skip_read,
                                        a.skip_read ? nwb : 0u);
    const ag_rsrc ms_rsrc = ag_make_rsrc(a.skip_must_skip ? a.skip_must_skip + w0 : a.skip_must_skip,
                                         a.skip_must_skip ? nwb : 0u);
    const ag_rsrc md_rsrc = ag_make_rsrc(a.skip_must_do ? a.skip_must_do + w0 : a.skip_must_do,
                                         a.skip_must_do ? nwb : 0u);
    unsigned r, ms, md;
    ag_buffer_load_dword<0>(r, r_rsrc, lane * 4u);
    ag_buffer_load_dword<0>(ms, ms_rsrc, lane * 4u);
    ag_buffer_load_dword<0>(md, md_rsrc, lane * 4u);
    ag_s_waitcnt_vmcnt<0>(r, ms, md);
    cw = (nvis <= 32u * lane ? 0u : (nvis - 32u * lane >= 32u ? ~0u : (1u << (nvis - 32u * lane)) - 1u)) & ~((r | ms) & ~md);
    mk = cw & ~md;
  }
#line 421 "templates/gfx942/attn_fwd.hip.in"

  // ---- per-lane address parts
#line 424 "templates/gfx942/attn_fwd.hip.in"
  // K tile in LDS: key rows at a pitch of 528 bytes (512 + 16 of padding), so that the
  // ds_read_b128 of 8 consecutive lanes (rows c..c+7, same 16-byte chunk) start 4 banks
  // apart: conflict-free. The LDS DMA of wave w writes key rows w + 8u, 256 bytes per row.
#line 428 "templates/gfx942/attn_fwd.hip.in"
  // (head_dim 256: instruction u writes half u & 1 of key row w + 8 (u >> 1), 256 bytes each)
#line 430 "templates/gfx942/attn_fwd.hip.in"
  const unsigned k_dma_off = lane << 2;
  // K fragment reads: key row 16kb + c, columns 32hh + 8g .. +7 (hh, kb: immediate offsets).
  const unsigned k_rd = lds + c * 528u + g * 16u;
#line 449 "templates/gfx942/attn_fwd.hip.in"
  // V operand chunk: 16 bytes per lane and column pair (dd = 2w, 2w + 1) at 1024 w.
  const unsigned v_lane = lane * 16u;
#line 458 "templates/gfx942/attn_fwd.hip.in"

  // ---- Q fragments (B operand of S^T = K Q^T) and K tile 0
  ag_u32x4 qv[2][8];
#line 463 "templates/gfx942/attn_fwd.hip.in"
  ag_buffer_load_dwordx4<0>(qv[0][0], q_rsrc, (q_row0 + 0u + c) * rs + 16u * g);
#line 463 "templates/gfx942/attn_fwd.hip.in"
  ag_buffer_load_dwordx4<64>(qv[0][1], q_rsrc, (q_row0 + 0u + c) * rs + 16u * g);
#line 463 "templates/gfx942/attn_fwd.hip.in"
  ag_buffer_load_dwordx4<128>(qv[0][2], q_rsrc, (q_row0 + 0u + c) * rs + 16u * g);
#line 463 "templates/gfx942/attn_fwd.hip.in"
  ag_buffer_load_dwordx4<192>(qv[0][3], q_rsrc, (q_row0 + 0u + c) * rs + 16u * g);
#line 463 "templates/gfx942/attn_fwd.hip.in"
  ag_buffer_load_dwordx4<256>(qv[0][4], q_rsrc, (q_row0 + 0u + c) * rs + 16u * g);
#line 463 "templates/gfx942/attn_fwd.hip.in"
  ag_buffer_load_dwordx4<320>(qv[0][5], q_rsrc, (q_row0 + 0u + c) * rs + 16u * g);
#line 463 "templates/gfx942/attn_fwd.hip.in"
  ag_buffer_load_dwordx4<384>(qv[0][6], q_rsrc, (q_row0 + 0u + c) * rs + 16u * g);
#line 463 "templates/gfx942/attn_fwd.hip.in"
  ag_buffer_load_dwordx4<448>(qv[0][7], q_rsrc, (q_row0 + 0u + c) * rs + 16u * g);
#line 463 "templates/gfx942/attn_fwd.hip.in"
  ag_buffer_load_dwordx4<0>(qv[1][0], q_rsrc, (q_row0 + 16u + c) * rs + 16u * g);
#line 463 "templates/gfx942/attn_fwd.hip.in"
  ag_buffer_load_dwordx4<64>(qv[1][1], q_rsrc, (q_row0 + 16u + c) * rs + 16u * g);
#line 463 "templates/gfx942/attn_fwd.hip.in"
  ag_buffer_load_dwordx4<128>(qv[1][2], q_rsrc, (q_row0 + 16u + c) * rs + 16u * g);
#line 463 "templates/gfx942/attn_fwd.hip.in"
  ag_buffer_load_dwordx4<192>(qv[1][3], q_rsrc, (q_row0 + 16u + c) * rs + 16u * g);
#line 463 "templates/gfx942/attn_fwd.hip.in"
  ag_buffer_load_dwordx4<256>(qv[1][4], q_rsrc, (q_row0 + 16u + c) * rs + 16u * g);
#line 463 "templates/gfx942/attn_fwd.hip.in"
  ag_buffer_load_dwordx4<320>(qv[1][5], q_rsrc, (q_row0 + 16u + c) * rs + 16u * g);
#line 463 "templates/gfx942/attn_fwd.hip.in"
  ag_buffer_load_dwordx4<384>(qv[1][6], q_rsrc, (q_row0 + 16u + c) * rs + 16u * g);
#line 463 "templates/gfx942/attn_fwd.hip.in"
  ag_buffer_load_dwordx4<448>(qv[1][7], q_rsrc, (q_row0 + 16u + c) * rs + 16u * g);
#line 508 "templates/gfx942/attn_fwd.hip.in"
  // the walk's window: computed tiles j - 1, j, j + 1, j + 2 (nvis: none)
  unsigned kp = 0u, kc, kn1, kn2;
#line 489 "templates/gfx942/attn_fwd.hip.in"
  {
    const unsigned k = ~0u + 1u;
    unsigned t = nvis;
    if (k < nvis) {
      const unsigned w = ag_readlane(cw, k >> 5) >> (k & 31u);
      if (w != 0u) {
        t = k + (unsigned)__builtin_ctz(w);
      } else {
        const unsigned long long later = ag_ballot(cw != 0u && ag_lane_id_here() > (k >> 5));
        if (later != 0ull) {
          const unsigned wi = (unsigned)__builtin_ctzll(later);
          t = 32u * wi + (unsigned)__builtin_ctz(ag_readlane(cw, wi));
        }
      }
    }
    kc = t;
  }
#line 489 "templates/gfx942/attn_fwd.hip.in"
  {
    const unsigned k = kc + 1u;
    unsigned t = nvis;
    if (k < nvis) {
      const unsigned w = ag_readlane(cw, k >> 5) >> (k & 31u);
      if (w != 0u) {
        t = k + (unsigned)__builtin_ctz(w);
      } else {
        const unsigned long long later = ag_ballot(cw != 0u && ag_lane_id_here() > (k >> 5));
        if (later != 0ull) {
          const unsigned wi = (unsigned)__builtin_ctzll(later);
          t = 32u * wi + (unsigned)__builtin_ctz(ag_readlane(cw, wi));
        }
      }
    }
    kn1 = t;
  }
#line 489 "templates/gfx942/attn_fwd.hip.in"
  {
    const unsigned k = kn1 + 1u;
    unsigned t = nvis;
    if (k < nvis) {
      const unsigned w = ag_readlane(cw, k >> 5) >> (k & 31u);
      if (w != 0u) {
        t = k + (unsigned)__builtin_ctz(w);
      } else {
        const unsigned long long later = ag_ballot(cw != 0u && ag_lane_id_here() > (k >> 5));
        if (later != 0ull) {
          const unsigned wi = (unsigned)__builtin_ctzll(later);
          t = 32u * wi + (unsigned)__builtin_ctz(ag_readlane(cw, wi));
        }
      }
    }
    kn2 = t;
  }
#line 472 "templates/gfx942/attn_fwd.hip.in"
  ag_buffer_load_dword_lds(k_rsrc, k_dma_off + (kc * 32u + wave + 0u) * kv_rs,
                           lds + 0u + (wave + 0u) * 528u);
#line 472 "templates/gfx942/attn_fwd.hip.in"
  ag_buffer_load_dword_lds(k_rsrc, k_dma_off + (kc * 32u + wave + 0u) * kv_rs + 256u,
                           lds + 0u + (wave + 0u) * 528u + 256u);
#line 472 "templates/gfx942/attn_fwd.hip.in"
  ag_buffer_load_dword_lds(k_rsrc, k_dma_off + (kc * 32u + wave + 8u) * kv_rs,
                           lds + 0u + (wave + 8u) * 528u);
#line 472 "templates/gfx942/attn_fwd.hip.in"
  ag_buffer_load_dword_lds(k_rsrc, k_dma_off + (kc * 32u + wave + 8u) * kv_rs + 256u,
                           lds + 0u + (wave + 8u) * 528u + 256u);
#line 472 "templates/gfx942/attn_fwd.hip.in"
  ag_buffer_load_dword_lds(k_rsrc, k_dma_off + (kc * 32u + wave + 16u) * kv_rs,
                           lds + 0u + (wave + 16u) * 528u);
#line 472 "templates/gfx942/attn_fwd.hip.in"
  ag_buffer_load_dword_lds(k_rsrc, k_dma_off + (kc * 32u + wave + 16u) * kv_rs + 256u,
                           lds + 0u + (wave + 16u) * 528u + 256u);
#line 472 "templates/gfx942/attn_fwd.hip.in"
  ag_buffer_load_dword_lds(k_rsrc, k_dma_off + (kc * 32u + wave + 24u) * kv_rs,
                           lds + 0u + (wave + 24u) * 528u);
#line 472 "templates/gfx942/attn_fwd.hip.in"
  ag_buffer_load_dword_lds(k_rsrc, k_dma_off + (kc * 32u + wave + 24u) * kv_rs + 256u,
                           lds + 0u + (wave + 24u) * 528u + 256u);
#line 517 "templates/gfx942/attn_fwd.hip.in"
  ag_s_waitcnt_vmcnt<0>(
#line 519 "templates/gfx942/attn_fwd.hip.in"
      qv[0][0], qv[0][1], qv[0][2], qv[0][3], qv[0][4], qv[0][5], qv[0][6], qv[0][7],
#line 519 "templates/gfx942/attn_fwd.hip.in"
      qv[1][0], qv[1][1], qv[1][2], qv[1][3], qv[1][4], qv[1][5], qv[1][6], qv[1][7]);
#line 521 "templates/gfx942/attn_fwd.hip.in"
  ag_s_barrier();
  // The softmax takes its running max over raw scores, which needs c = scale_log2 > 0: for
  // a negative scale, negate Q (exact) and sc, so that s * sc and fma(s, sc, -m) stay the same.
  float sc = a.scale_log2;
  if (sc < 0.0f) {
    sc = -sc;
#line 529 "templates/gfx942/attn_fwd.hip.in"
    qv[0][0] ^= 0x80008000u;
#line 529 "templates/gfx942/attn_fwd.hip.in"
    qv[0][1] ^= 0x80008000u;
#line 529 "templates/gfx942/attn_fwd.hip.in"
    qv[0][2] ^= 0x80008000u;
#line 529 "templates/gfx942/attn_fwd.hip.in"
    qv[0][3] ^= 0x80008000u;
#line 529 "templates/gfx942/attn_fwd.hip.in"
    qv[0][4] ^= 0x80008000u;
#line 529 "templates/gfx942/attn_fwd.hip.in"
    qv[0][5] ^= 0x80008000u;
#line 529 "templates/gfx942/attn_fwd.hip.in"
    qv[0][6] ^= 0x80008000u;
#line 529 "templates/gfx942/attn_fwd.hip.in"
    qv[0][7] ^= 0x80008000u;
#line 529 "templates/gfx942/attn_fwd.hip.in"
    qv[1][0] ^= 0x80008000u;
#line 529 "templates/gfx942/attn_fwd.hip.in"
    qv[1][1] ^= 0x80008000u;
#line 529 "templates/gfx942/attn_fwd.hip.in"
    qv[1][2] ^= 0x80008000u;
#line 529 "templates/gfx942/attn_fwd.hip.in"
    qv[1][3] ^= 0x80008000u;
#line 529 "templates/gfx942/attn_fwd.hip.in"
    qv[1][4] ^= 0x80008000u;
#line 529 "templates/gfx942/attn_fwd.hip.in"
    qv[1][5] ^= 0x80008000u;
#line 529 "templates/gfx942/attn_fwd.hip.in"
    qv[1][6] ^= 0x80008000u;
#line 529 "templates/gfx942/attn_fwd.hip.in"
    qv[1][7] ^= 0x80008000u;
#line 532 "templates/gfx942/attn_fwd.hip.in"
  }

  float m[2], l[2];
  // some row of this wave has |m| >= 2^24 (its x takes the t - m form, NUMERICS.md step 4);
  // wave-uniform, changes only where m does
  bool big_m = false;
  ag_f32x4 o[2][16];
  ag_f32x4 s[2][2];
  ag_u32x2 p[2][2];
#line 542 "templates/gfx942/attn_fwd.hip.in"
  ag_u32x4 vv[8];  // V ring: 8 pieces (16 keys x 2 columns of the MFMAs per lane)
#line 546 "templates/gfx942/attn_fwd.hip.in"
  {  // O = 0 through zero-C MFMAs: 8*Q distinct accumulators (a shared constant zero would
     // make the compiler copy it into each tied accumulator inside the loop)
    const ag_u32x2 zero2 = {0u, 0u};
#line 550 "templates/gfx942/attn_fwd.hip.in"
    m[0] = -__builtin_inff();
    l[0] = 0.0f;
#line 553 "templates/gfx942/attn_fwd.hip.in"
    ag_mfma_16x16x16_bf16_zero(o[0][0], zero2, zero2);
#line 553 "templates/gfx942/attn_fwd.hip.in"
    ag_mfma_16x16x16_bf16_zero(o[0][1], zero2, zero2);
#line 553 "templates/gfx942/attn_fwd.hip.in"
    ag_mfma_16x16x16_bf16_zero(o[0][2], zero2, zero2);
#line 553 "templates/gfx942/attn_fwd.hip.in"
    ag_mfma_16x16x16_bf16_zero(o[0][3], zero2, zero2);
#line 553 "templates/gfx942/attn_fwd.hip.in"
    ag_mfma_16x16x16_bf16_zero(o[0][4], zero2, zero2);
#line 553 "templates/gfx942/attn_fwd.hip.in"
    ag_mfma_16x16x16_bf16_zero(o[0][5], zero2, zero2);
#line 553 "templates/gfx942/attn_fwd.hip.in"
    ag_mfma_16x16x16_bf16_zero(o[0][6], zero2, zero2);
#line 553 "templates/gfx942/attn_fwd.hip.in"
    ag_mfma_16x16x16_bf16_zero(o[0][7], zero2, zero2);
#line 553 "templates/gfx942/attn_fwd.hip.in"
    ag_mfma_16x16x16_bf16_zero(o[0][8], zero2, zero2);
#line 553 "templates/gfx942/attn_fwd.hip.in"
    ag_mfma_16x16x16_bf16_zero(o[0][9], zero2, zero2);
#line 553 "templates/gfx942/attn_fwd.hip.in"
    ag_mfma_16x16x16_bf16_zero(o[0][10], zero2, zero2);
#line 553 "templates/gfx942/attn_fwd.hip.in"
    ag_mfma_16x16x16_bf16_zero(o[0][11], zero2, zero2);
#line 553 "templates/gfx942/attn_fwd.hip.in"
    ag_mfma_16x16x16_bf16_zero(o[0][12], zero2, zero2);
#line 553 "templates/gfx942/attn_fwd.hip.in"
    ag_mfma_16x16x16_bf16_zero(o[0][13], zero2, zero2);
#line 553 "templates/gfx942/attn_fwd.hip.in"
    ag_mfma_16x16x16_bf16_zero(o[0][14], zero2, zero2);
#line 553 "templates/gfx942/attn_fwd.hip.in"
    ag_mfma_16x16x16_bf16_zero(o[0][15], zero2, zero2);
#line 550 "templates/gfx942/attn_fwd.hip.in"
    m[1] = -__builtin_inff();
    l[1] = 0.0f;
#line 553 "templates/gfx942/attn_fwd.hip.in"
    ag_mfma_16x16x16_bf16_zero(o[1][0], zero2, zero2);
#line 553 "templates/gfx942/attn_fwd.hip.in"
    ag_mfma_16x16x16_bf16_zero(o[1][1], zero2, zero2);
#line 553 "templates/gfx942/attn_fwd.hip.in"
    ag_mfma_16x16x16_bf16_zero(o[1][2], zero2, zero2);
#line 553 "templates/gfx942/attn_fwd.hip.in"
    ag_mfma_16x16x16_bf16_zero(o[1][3], zero2, zero2);
#line 553 "templates/gfx942/attn_fwd.hip.in"
    ag_mfma_16x16x16_bf16_zero(o[1][4], zero2, zero2);
#line 553 "templates/gfx942/attn_fwd.hip.in"
    ag_mfma_16x16x16_bf16_zero(o[1][5], zero2, zero2);
#line 553 "templates/gfx942/attn_fwd.hip.in"
    ag_mfma_16x16x16_bf16_zero(o[1][6], zero2, zero2);
#line 553 "templates/gfx942/attn_fwd.hip.in"
    ag_mfma_16x16x16_bf16_zero(o[1][7], zero2, zero2);
#line 553 "templates/gfx942/attn_fwd.hip.in"
    ag_mfma_16x16x16_bf16_zero(o[1][8], zero2, zero2);
#line 553 "templates/gfx942/attn_fwd.hip.in"
    ag_mfma_16x16x16_bf16_zero(o[1][9], zero2, zero2);
#line 553 "templates/gfx942/attn_fwd.hip.in"
    ag_mfma_16x16x16_bf16_zero(o[1][10], zero2, zero2);
#line 553 "templates/gfx942/attn_fwd.hip.in"
    ag_mfma_16x16x16_bf16_zero(o[1][11], zero2, zero2);
#line 553 "templates/gfx942/attn_fwd.hip.in"
    ag_mfma_16x16x16_bf16_zero(o[1][12], zero2, zero2);
#line 553 "templates/gfx942/attn_fwd.hip.in"
    ag_mfma_16x16x16_bf16_zero(o[1][13], zero2, zero2);
#line 553 "templates/gfx942/attn_fwd.hip.in"
    ag_mfma_16x16x16_bf16_zero(o[1][14], zero2, zero2);
#line 553 "templates/gfx942/attn_fwd.hip.in"
    ag_mfma_16x16x16_bf16_zero(o[1][15], zero2, zero2);
#line 556 "templates/gfx942/attn_fwd.hip.in"
  }

#line 642 "templates/gfx942/attn_fwd.hip.in"

#line 676 "templates/gfx942/attn_fwd.hip.in"

#line 687 "templates/gfx942/attn_fwd.hip.in"

#line 918 "templates/gfx942/attn_fwd.hip.in"

#line 960 "templates/gfx942/attn_fwd.hip.in"

#line 962 "templates/gfx942/attn_fwd.hip.in"
  unsigned jj = 0;  // computed tiles run (the walk's j)
  if (grp == 1u && kc < nvis) {  // group B: K_1 DMA in slot 0, then start half a phase late
#line 472 "templates/gfx942/attn_fwd.hip.in"
  ag_buffer_load_dword_lds(k_rsrc, k_dma_off + (kn1 * 32u + wave + 0u) * kv_rs,
                           lds + 16896u + (wave + 0u) * 528u);
#line 472 "templates/gfx942/attn_fwd.hip.in"
  ag_buffer_load_dword_lds(k_rsrc, k_dma_off + (kn1 * 32u + wave + 0u) * kv_rs + 256u,
                           lds + 16896u + (wave + 0u) * 528u + 256u);
#line 472 "templates/gfx942/attn_fwd.hip.in"
  ag_buffer_load_dword_lds(k_rsrc, k_dma_off + (kn1 * 32u + wave + 8u) * kv_rs,
                           lds + 16896u + (wave + 8u) * 528u);
#line 472 "templates/gfx942/attn_fwd.hip.in"
  ag_buffer_load_dword_lds(k_rsrc, k_dma_off + (kn1 * 32u + wave + 8u) * kv_rs + 256u,
                           lds + 16896u + (wave + 8u) * 528u + 256u);
#line 472 "templates/gfx942/attn_fwd.hip.in"
  ag_buffer_load_dword_lds(k_rsrc, k_dma_off + (kn1 * 32u + wave + 16u) * kv_rs,
                           lds + 16896u + (wave + 16u) * 528u);
#line 472 "templates/gfx942/attn_fwd.hip.in"
  ag_buffer_load_dword_lds(k_rsrc, k_dma_off + (kn1 * 32u + wave + 16u) * kv_rs + 256u,
                           lds + 16896u + (wave + 16u) * 528u + 256u);
#line 472 "templates/gfx942/attn_fwd.hip.in"
  ag_buffer_load_dword_lds(k_rsrc, k_dma_off + (kn1 * 32u + wave + 24u) * kv_rs,
                           lds + 16896u + (wave + 24u) * 528u);
#line 472 "templates/gfx942/attn_fwd.hip.in"
  ag_buffer_load_dword_lds(k_rsrc, k_dma_off + (kn1 * 32u + wave + 24u) * kv_rs + 256u,
                           lds + 16896u + (wave + 24u) * 528u + 256u);
#line 965 "templates/gfx942/attn_fwd.hip.in"
    ag_s_barrier();
  }
  if (kc < nvis) {
    {
#line 927 "templates/gfx942/attn_fwd.hip.in"
    const unsigned buf = (jj & 1u) * 16896u;
    // ---- X_j: MFMA phase
    ag_s_setprio<1>();
#line 933 "templates/gfx942/attn_fwd.hip.in"
    if (grp == 0u) {  // K_{j+1} into the other buffer (B issued its share in Y_{j-1})
#line 472 "templates/gfx942/attn_fwd.hip.in"
  ag_buffer_load_dword_lds(k_rsrc, k_dma_off + (kn1 * 32u + wave + 0u) * kv_rs,
                           lds + (16896u - buf) + (wave + 0u) * 528u);
#line 472 "templates/gfx942/attn_fwd.hip.in"
  ag_buffer_load_dword_lds(k_rsrc, k_dma_off + (kn1 * 32u + wave + 0u) * kv_rs + 256u,
                           lds + (16896u - buf) + (wave + 0u) * 528u + 256u);
#line 472 "templates/gfx942/attn_fwd.hip.in"
  ag_buffer_load_dword_lds(k_rsrc, k_dma_off + (kn1 * 32u + wave + 8u) * kv_rs,
                           lds + (16896u - buf) + (wave + 8u) * 528u);
#line 472 "templates/gfx942/attn_fwd.hip.in"
  ag_buffer_load_dword_lds(k_rsrc, k_dma_off + (kn1 * 32u + wave + 8u) * kv_rs + 256u,
                           lds + (16896u - buf) + (wave + 8u) * 528u + 256u);
#line 472 "templates/gfx942/attn_fwd.hip.in"
  ag_buffer_load_dword_lds(k_rsrc, k_dma_off + (kn1 * 32u + wave + 16u) * kv_rs,
                           lds + (16896u - buf) + (wave + 16u) * 528u);
#line 472 "templates/gfx942/attn_fwd.hip.in"
  ag_buffer_load_dword_lds(k_rsrc, k_dma_off + (kn1 * 32u + wave + 16u) * kv_rs + 256u,
                           lds + (16896u - buf) + (wave + 16u) * 528u + 256u);
#line 472 "templates/gfx942/attn_fwd.hip.in"
  ag_buffer_load_dword_lds(k_rsrc, k_dma_off + (kn1 * 32u + wave + 24u) * kv_rs,
                           lds + (16896u - buf) + (wave + 24u) * 528u);
#line 472 "templates/gfx942/attn_fwd.hip.in"
  ag_buffer_load_dword_lds(k_rsrc, k_dma_off + (kn1 * 32u + wave + 24u) * kv_rs + 256u,
                           lds + (16896u - buf) + (wave + 24u) * 528u + 256u);
#line 935 "templates/gfx942/attn_fwd.hip.in"
    } else {
      ag_s_waitcnt_vmcnt<0>();  // K_{j+1} (DMA issued in Y_{j-1}) lands before the barrier
    }
#line 653 "templates/gfx942/attn_fwd.hip.in"
  {
    ag_u32x4 kf[3];
#line 651 "templates/gfx942/attn_fwd.hip.in"
    ag_ds_read_b128<0>(kf[1], k_rd + buf);
#line 651 "templates/gfx942/attn_fwd.hip.in"
    ag_ds_read_b128<8448>(kf[2], k_rd + buf);
#line 658 "templates/gfx942/attn_fwd.hip.in"
    ag_s_waitcnt_lgkmcnt<1>(kf[1]);
#line 660 "templates/gfx942/attn_fwd.hip.in"
    {
      const ag_u32x2 ka = {kf[1][0], kf[1][1]};
#line 663 "templates/gfx942/attn_fwd.hip.in"
      const ag_u32x2 qf0 = {qv[0][0][0], qv[0][0][1]};
#line 665 "templates/gfx942/attn_fwd.hip.in"
      ag_mfma_16x16x16_bf16_zero(s[0][0], ka, qf0);
#line 663 "templates/gfx942/attn_fwd.hip.in"
      const ag_u32x2 qf1 = {qv[1][0][0], qv[1][0][1]};
#line 665 "templates/gfx942/attn_fwd.hip.in"
      ag_mfma_16x16x16_bf16_zero(s[1][0], ka, qf1);
#line 670 "templates/gfx942/attn_fwd.hip.in"
    }
#line 660 "templates/gfx942/attn_fwd.hip.in"
    {
      const ag_u32x2 ka = {kf[1][2], kf[1][3]};
#line 663 "templates/gfx942/attn_fwd.hip.in"
      const ag_u32x2 qf0 = {qv[0][0][2], qv[0][0][3]};
#line 667 "templates/gfx942/attn_fwd.hip.in"
      ag_mfma_16x16x16_bf16(s[0][0], ka, qf0);
#line 663 "templates/gfx942/attn_fwd.hip.in"
      const ag_u32x2 qf1 = {qv[1][0][2], qv[1][0][3]};
#line 667 "templates/gfx942/attn_fwd.hip.in"
      ag_mfma_16x16x16_bf16(s[1][0], ka, qf1);
#line 670 "templates/gfx942/attn_fwd.hip.in"
    }
#line 651 "templates/gfx942/attn_fwd.hip.in"
    ag_ds_read_b128<64>(kf[0], k_rd + buf);
#line 658 "templates/gfx942/attn_fwd.hip.in"
    ag_s_waitcnt_lgkmcnt<1>(kf[2]);
#line 660 "templates/gfx942/attn_fwd.hip.in"
    {
      const ag_u32x2 ka = {kf[2][0], kf[2][1]};
#line 663 "templates/gfx942/attn_fwd.hip.in"
      const ag_u32x2 qf0 = {qv[0][0][0], qv[0][0][1]};
#line 665 "templates/gfx942/attn_fwd.hip.in"
      ag_mfma_16x16x16_bf16_zero(s[0][1], ka, qf0);
#line 663 "templates/gfx942/attn_fwd.hip.in"
      const ag_u32x2 qf1 = {qv[1][0][0], qv[1][0][1]};
#line 665 "templates/gfx942/attn_fwd.hip.in"
      ag_mfma_16x16x16_bf16_zero(s[1][1], ka, qf1);
#line 670 "templates/gfx942/attn_fwd.hip.in"
    }
#line 660 "templates/gfx942/attn_fwd.hip.in"
    {
      const ag_u32x2 ka = {kf[2][2], kf[2][3]};
#line 663 "templates/gfx942/attn_fwd.hip.in"
      const ag_u32x2 qf0 = {qv[0][0][2], qv[0][0][3]};
#line 667 "templates/gfx942/attn_fwd.hip.in"
      ag_mfma_16x16x16_bf16(s[0][1], ka, qf0);
#line 663 "templates/gfx942/attn_fwd.hip.in"
      const ag_u32x2 qf1 = {qv[1][0][2], qv[1][0][3]};
#line 667 "templates/gfx942/attn_fwd.hip.in"
      ag_mfma_16x16x16_bf16(s[1][1], ka, qf1);
#line 670 "templates/gfx942/attn_fwd.hip.in"
    }
#line 651 "templates/gfx942/attn_fwd.hip.in"
    ag_ds_read_b128<8512>(kf[1], k_rd + buf);
#line 658 "templates/gfx942/attn_fwd.hip.in"
    ag_s_waitcnt_lgkmcnt<1>(kf[0]);
#line 660 "templates/gfx942/attn_fwd.hip.in"
    {
      const ag_u32x2 ka = {kf[0][0], kf[0][1]};
#line 663 "templates/gfx942/attn_fwd.hip.in"
      const ag_u32x2 qf0 = {qv[0][1][0], qv[0][1][1]};
#line 667 "templates/gfx942/attn_fwd.hip.in"
      ag_mfma_16x16x16_bf16(s[0][0], ka, qf0);
#line 663 "templates/gfx942/attn_fwd.hip.in"
      const ag_u32x2 qf1 = {qv[1][1][0], qv[1][1][1]};
#line 667 "templates/gfx942/attn_fwd.hip.in"
      ag_mfma_16x16x16_bf16(s[1][0], ka, qf1);
#line 670 "templates/gfx942/attn_fwd.hip.in"
    }
#line 660 "templates/gfx942/attn_fwd.hip.in"
    {
      const ag_u32x2 ka = {kf[0][2], kf[0][3]};
#line 663 "templates/gfx942/attn_fwd.hip.in"
      const ag_u32x2 qf0 = {qv[0][1][2], qv[0][1][3]};
#line 667 "templates/gfx942/attn_fwd.hip.in"
      ag_mfma_16x16x16_bf16(s[0][0], ka, qf0);
#line 663 "templates/gfx942/attn_fwd.hip.in"
      const ag_u32x2 qf1 = {qv[1][1][2], qv[1][1][3]};
#line 667 "templates/gfx942/attn_fwd.hip.in"
      ag_mfma_16x16x16_bf16(s[1][0], ka, qf1);
#line 670 "templates/gfx942/attn_fwd.hip.in"
    }
#line 651 "templates/gfx942/attn_fwd.hip.in"
    ag_ds_read_b128<128>(kf[2], k_rd + buf);
#line 658 "templates/gfx942/attn_fwd.hip.in"
    ag_s_waitcnt_lgkmcnt<1>(kf[1]);
#line 660 "templates/gfx942/attn_fwd.hip.in"
    {
      const ag_u32x2 ka = {kf[1][0], kf[1][1]};
#line 663 "templates/gfx942/attn_fwd.hip.in"
      const ag_u32x2 qf0 = {qv[0][1][0], qv[0][1][1]};
#line 667 "templates/gfx942/attn_fwd.hip.in"
      ag_mfma_16x16x16_bf16(s[0][1], ka, qf0);
#line 663 "templates/gfx942/attn_fwd.hip.in"
      const ag_u32x2 qf1 = {qv[1][1][0], qv[1][1][1]};
#line 667 "templates/gfx942/attn_fwd.hip.in"
      ag_mfma_16x16x16_bf16(s[1][1], ka, qf1);
#line 670 "templates/gfx942/attn_fwd.hip.in"
    }
#line 660 "templates/gfx942/attn_fwd.hip.in"
    {
      const ag_u32x2 ka = {kf[1][2], kf[1][3]};
#line 663 "templates/gfx942/attn_fwd.hip.in"
      const ag_u32x2 qf0 = {qv[0][1][2], qv[0][1][3]};
#line 667 "templates/gfx942/attn_fwd.hip.in"
      ag_mfma_16x16x16_bf16(s[0][1], ka, qf0);
#line 663 "templates/gfx942/attn_fwd.hip.in"
      const ag_u32x2 qf1 = {qv[1][1][2], qv[1][1][3]};
#line 667 "templates/gfx942/attn_fwd.hip.in"
      ag_mfma_16x16x16_bf16(s[1][1], ka, qf1);
#line 670 "templates/gfx942/attn_fwd.hip.in"
    }
#line 651 "templates/gfx942/attn_fwd.hip.in"
    ag_ds_read_b128<8576>(kf[0], k_rd + buf);
#line 658 "templates/gfx942/attn_fwd.hip.in"
    ag_s_waitcnt_lgkmcnt<1>(kf[2]);
#line 660 "templates/gfx942/attn_fwd.hip.in"
    {
      const ag_u32x2 ka = {kf[2][0], kf[2][1]};
#line 663 "templates/gfx942/attn_fwd.hip.in"
      const ag_u32x2 qf0 = {qv[0][2][0], qv[0][2][1]};
#line 667 "templates/gfx942/attn_fwd.hip.in"
      ag_mfma_16x16x16_bf16(s[0][0], ka, qf0);
#line 663 "templates/gfx942/attn_fwd.hip.in"
      const ag_u32x2 qf1 = {qv[1][2][0], qv[1][2][1]};
#line 667 "templates/gfx942/attn_fwd.hip.in"
      ag_mfma_16x16x16_bf16(s[1][0], ka, qf1);
#line 670 "templates/gfx942/attn_fwd.hip.in"
    }
#line 660 "templates/gfx942/attn_fwd.hip.in"
    {
      const ag_u32x2 ka = {kf[2][2], kf[2][3]};
#line 663 "templates/gfx942/attn_fwd.hip.in"
      const ag_u32x2 qf0 = {qv[0][2][2], qv[0][2][3]};
#line 667 "templates/gfx942/attn_fwd.hip.in"
      ag_mfma_16x16x16_bf16(s[0][0], ka, qf0);
#line 663 "templates/gfx942/attn_fwd.hip.in"
      const ag_u32x2 qf1 = {qv[1][2][2], qv[1][2][3]};
#line 667 "templates/gfx942/attn_fwd.hip.in"
      ag_mfma_16x16x16_bf16(s[1][0], ka, qf1);
#line 670 "templates/gfx942/attn_fwd.hip.in"
    }
#line 651 "templates/gfx942/attn_fwd.hip.in"
    ag_ds_read_b128<192>(kf[1], k_rd + buf);
#line 658 "templates/gfx942/attn_fwd.hip.in"
    ag_s_waitcnt_lgkmcnt<1>(kf[0]);
#line 660 "templates/gfx942/attn_fwd.hip.in"
    {
      const ag_u32x2 ka = {kf[0][0], kf[0][1]};
#line 663 "templates/gfx942/attn_fwd.hip.in"
      const ag_u32x2 qf0 = {qv[0][2][0], qv[0][2][1]};
#line 667 "templates/gfx942/attn_fwd.hip.in"
      ag_mfma_16x16x16_bf16(s[0][1], ka, qf0);
#line 663 "templates/gfx942/attn_fwd.hip.in"
      const ag_u32x2 qf1 = {qv[1][2][0], qv[1][2][1]};
#line 667 "templates/gfx942/attn_fwd.hip.in"
      ag_mfma_16x16x16_bf16(s[1][1], ka, qf1);
#line 670 "templates/gfx942/attn_fwd.hip.in"
    }
#line 660 "templates/gfx942/attn_fwd.hip.in"
    {
      const ag_u32x2 ka = {kf[0][2], kf[0][3]};
#line 663 "templates/gfx942/attn_fwd.hip.in"
      const ag_u32x2 qf0 = {qv[0][2][2], qv[0][2][3]};
#line 667 "templates/gfx942/attn_fwd.hip.in"
      ag_mfma_16x16x16_bf16(s[0][1], ka, qf0);
#line 663 "templates/gfx942/attn_fwd.hip.in"
      const ag_u32x2 qf1 = {qv[1][2][2], qv[1][2][3]};
#line 667 "templates/gfx942/attn_fwd.hip.in"
      ag_mfma_16x16x16_bf16(s[1][1], ka, qf1);
#line 670 "templates/gfx942/attn_fwd.hip.in"
    }
#line 651 "templates/gfx942/attn_fwd.hip.in"
    ag_ds_read_b128<8640>(kf[2], k_rd + buf);
#line 658 "templates/gfx942/attn_fwd.hip.in"
    ag_s_waitcnt_lgkmcnt<1>(kf[1]);
#line 660 "templates/gfx942/attn_fwd.hip.in"
    {
      const ag_u32x2 ka = {kf[1][0], kf[1][1]};
#line 663 "templates/gfx942/attn_fwd.hip.in"
      const ag_u32x2 qf0 = {qv[0][3][0], qv[0][3][1]};
#line 667 "templates/gfx942/attn_fwd.hip.in"
      ag_mfma_16x16x16_bf16(s[0][0], ka, qf0);
#line 663 "templates/gfx942/attn_fwd.hip.in"
      const ag_u32x2 qf1 = {qv[1][3][0], qv[1][3][1]};
#line 667 "templates/gfx942/attn_fwd.hip.in"
      ag_mfma_16x16x16_bf16(s[1][0], ka, qf1);
#line 670 "templates/gfx942/attn_fwd.hip.in"
    }
#line 660 "templates/gfx942/attn_fwd.hip.in"
    {
      const ag_u32x2 ka = {kf[1][2], kf[1][3]};
#line 663 "templates/gfx942/attn_fwd.hip.in"
      const ag_u32x2 qf0 = {qv[0][3][2], qv[0][3][3]};
#line 667 "templates/gfx942/attn_fwd.hip.in"
      ag_mfma_16x16x16_bf16(s[0][0], ka, qf0);
#line 663 "templates/gfx942/attn_fwd.hip.in"
      const ag_u32x2 qf1 = {qv[1][3][2], qv[1][3][3]};
#line 667 "templates/gfx942/attn_fwd.hip.in"
      ag_mfma_16x16x16_bf16(s[1][0], ka, qf1);
#line 670 "templates/gfx942/attn_fwd.hip.in"
    }
#line 651 "templates/gfx942/attn_fwd.hip.in"
    ag_ds_read_b128<256>(kf[0], k_rd + buf);
#line 658 "templates/gfx942/attn_fwd.hip.in"
    ag_s_waitcnt_lgkmcnt<1>(kf[2]);
#line 660 "templates/gfx942/attn_fwd.hip.in"
    {
      const ag_u32x2 ka = {kf[2][0], kf[2][1]};
#line 663 "templates/gfx942/attn_fwd.hip.in"
      const ag_u32x2 qf0 = {qv[0][3][0], qv[0][3][1]};
#line 667 "templates/gfx942/attn_fwd.hip.in"
      ag_mfma_16x16x16_bf16(s[0][1], ka, qf0);
#line 663 "templates/gfx942/attn_fwd.hip.in"
      const ag_u32x2 qf1 = {qv[1][3][0], qv[1][3][1]};
#line 667 "templates/gfx942/attn_fwd.hip.in"
      ag_mfma_16x16x16_bf16(s[1][1], ka, qf1);
#line 670 "templates/gfx942/attn_fwd.hip.in"
    }
#line 660 "templates/gfx942/attn_fwd.hip.in"
    {
      const ag_u32x2 ka = {kf[2][2], kf[2][3]};
#line 663 "templates/gfx942/attn_fwd.hip.in"
      const ag_u32x2 qf0 = {qv[0][3][2], qv[0][3][3]};
#line 667 "templates/gfx942/attn_fwd.hip.in"
      ag_mfma_16x16x16_bf16(s[0][1], ka, qf0);
#line 663 "templates/gfx942/attn_fwd.hip.in"
      const ag_u32x2 qf1 = {qv[1][3][2], qv[1][3][3]};
#line 667 "templates/gfx942/attn_fwd.hip.in"
      ag_mfma_16x16x16_bf16(s[1][1], ka, qf1);
#line 670 "templates/gfx942/attn_fwd.hip.in"
    }
#line 651 "templates/gfx942/attn_fwd.hip.in"
    ag_ds_read_b128<8704>(kf[1], k_rd + buf);
#line 658 "templates/gfx942/attn_fwd.hip.in"
    ag_s_waitcnt_lgkmcnt<1>(kf[0]);
#line 660 "templates/gfx942/attn_fwd.hip.in"
    {
      const ag_u32x2 ka = {kf[0][0], kf[0][1]};
#line 663 "templates/gfx942/attn_fwd.hip.in"
      const ag_u32x2 qf0 = {qv[0][4][0], qv[0][4][1]};
#line 667 "templates/gfx942/attn_fwd.hip.in"
      ag_mfma_16x16x16_bf16(s[0][0], ka, qf0);
#line 663 "templates/gfx942/attn_fwd.hip.in"
      const ag_u32x2 qf1 = {qv[1][4][0], qv[1][4][1]};
#line 667 "templates/gfx942/attn_fwd.hip.in"
      ag_mfma_16x16x16_bf16(s[1][0], ka, qf1);
#line 670 "templates/gfx942/attn_fwd.hip.in"
    }
#line 660 "templates/gfx942/attn_fwd.hip.in"
    {
      const ag_u32x2 ka = {kf[0][2], kf[0][3]};
#line 663 "templates/gfx942/attn_fwd.hip.in"
      const ag_u32x2 qf0 = {qv[0][4][2], qv[0][4][3]};
#line 667 "templates/gfx942/attn_fwd.hip.in"
      ag_mfma_16x16x16_bf16(s[0][0], ka, qf0);
#line 663 "templates/gfx942/attn_fwd.hip.in"
      const ag_u32x2 qf1 = {qv[1][4][2], qv[1][4][3]};
#line 667 "templates/gfx942/attn_fwd.hip.in"
      ag_mfma_16x16x16_bf16(s[1][0], ka, qf1);
#line 670 "templates/gfx942/attn_fwd.hip.in"
    }
#line 651 "templates/gfx942/attn_fwd.hip.in"
    ag_ds_read_b128<320>(kf[2], k_rd + buf);
#line 658 "templates/gfx942/attn_fwd.hip.in"
    ag_s_waitcnt_lgkmcnt<1>(kf[1]);
#line 660 "templates/gfx942/attn_fwd.hip.in"
    {
      const ag_u32x2 ka = {kf[1][0], kf[1][1]};
#line 663 "templates/gfx942/attn_fwd.hip.in"
      const ag_u32x2 qf0 = {qv[0][4][0], qv[0][4][1]};
#line 667 "templates/gfx942/attn_fwd.hip.in"
      ag_mfma_16x16x16_bf16(s[0][1], ka, qf0);
#line 663 "templates/gfx942/attn_fwd.hip.in"
      const ag_u32x2 qf1 = {qv[1][4][0], qv[1][4][1]};
#line 667 "templates/gfx942/attn_fwd.hip.in"
      ag_mfma_16x16x16_bf16(s[1][1], ka, qf1);
#line 670 "templates/gfx942/attn_fwd.hip.in"
    }
#line 660 "templates/gfx942/attn_fwd.hip.in"
    {
      const ag_u32x2 ka = {kf[1][2], kf[1][3]};
#line 663 "templates/gfx942/attn_fwd.hip.in"
      const ag_u32x2 qf0 = {qv[0][4][2], qv[0][4][3]};
#line 667 "templates/gfx942/attn_fwd.hip.in"
      ag_mfma_16x16x16_bf16(s[0][1], ka, qf0);
#line 663 "templates/gfx942/attn_fwd.hip.in"
      const ag_u32x2 qf1 = {qv[1][4][2], qv[1][4][3]};
#line 667 "templates/gfx942/attn_fwd.hip.in"
      ag_mfma_16x16x16_bf16(s[1][1], ka, qf1);
#line 670 "templates/gfx942/attn_fwd.hip.in"
    }
#line 651 "templates/gfx942/attn_fwd.hip.in"
    ag_ds_read_b128<8768>(kf[0], k_rd + buf);
#line 658 "templates/gfx942/attn_fwd.hip.in"
    ag_s_waitcnt_lgkmcnt<1>(kf[2]);
#line 660 "templates/gfx942/attn_fwd.hip.in"
    {
      const ag_u32x2 ka = {kf[2][0], kf[2][1]};
#line 663 "templates/gfx942/attn_fwd.hip.in"
      const ag_u32x2 qf0 = {qv[0][5][0], qv[0][5][1]};
#line 667 "templates/gfx942/attn_fwd.hip.in"
      ag_mfma_16x16x16_bf16(s[0][0], ka, qf0);
#line 663 "templates/gfx942/attn_fwd.hip.in"
      const ag_u32x2 qf1 = {qv[1][5][0], qv[1][5][1]};
#line 667 "templates/gfx942/attn_fwd.hip.in"
      ag_mfma_16x16x16_bf16(s[1][0], ka, qf1);
#line 670 "templates/gfx942/attn_fwd.hip.in"
    }
#line 660 "templates/gfx942/attn_fwd.hip.in"
    {
      const ag_u32x2 ka = {kf[2][2], kf[2][3]};
#line 663 "templates/gfx942/attn_fwd.hip.in"
      const ag_u32x2 qf0 = {qv[0][5][2], qv[0][5][3]};
#line 667 "templates/gfx942/attn_fwd.hip.in"
      ag_mfma_16x16x16_bf16(s[0][0], ka, qf0);
#line 663 "templates/gfx942/attn_fwd.hip.in"
      const ag_u32x2 qf1 = {qv[1][5][2], qv[1][5][3]};
#line 667 "templates/gfx942/attn_fwd.hip.in"
      ag_mfma_16x16x16_bf16(s[1][0], ka, qf1);
#line 670 "templates/gfx942/attn_fwd.hip.in"
    }
#line 651 "templates/gfx942/attn_fwd.hip.in"
    ag_ds_read_b128<384>(kf[1], k_rd + buf);
#line 658 "templates/gfx942/attn_fwd.hip.in"
    ag_s_waitcnt_lgkmcnt<1>(kf[0]);
#line 660 "templates/gfx942/attn_fwd.hip.in"
    {
      const ag_u32x2 ka = {kf[0][0], kf[0][1]};
#line 663 "templates/gfx942/attn_fwd.hip.in"
      const ag_u32x2 qf0 = {qv[0][5][0], qv[0][5][1]};
#line 667 "templates/gfx942/attn_fwd.hip.in"
      ag_mfma_16x16x16_bf16(s[0][1], ka, qf0);
#line 663 "templates/gfx942/attn_fwd.hip.in"
      const ag_u32x2 qf1 = {qv[1][5][0], qv[1][5][1]};
#line 667 "templates/gfx942/attn_fwd.hip.in"
      ag_mfma_16x16x16_bf16(s[1][1], ka, qf1);
#line 670 "templates/gfx942/attn_fwd.hip.in"
    }
#line 660 "templates/gfx942/attn_fwd.hip.in"
    {
      const ag_u32x2 ka = {kf[0][2], kf[0][3]};
#line 663 "templates/gfx942/attn_fwd.hip.in"
      const ag_u32x2 qf0 = {qv[0][5][2], qv[0][5][3]};
#line 667 "templates/gfx942/attn_fwd.hip.in"
      ag_mfma_16x16x16_bf16(s[0][1], ka, qf0);
#line 663 "templates/gfx942/attn_fwd.hip.in"
      const ag_u32x2 qf1 = {qv[1][5][2], qv[1][5][3]};
#line 667 "templates/gfx942/attn_fwd.hip.in"
      ag_mfma_16x16x16_bf16(s[1][1], ka, qf1);
#line 670 "templates/gfx942/attn_fwd.hip.in"
    }
#line 651 "templates/gfx942/attn_fwd.hip.in"
    ag_ds_read_b128<8832>(kf[2], k_rd + buf);
#line 658 "templates/gfx942/attn_fwd.hip.in"
    ag_s_waitcnt_lgkmcnt<1>(kf[1]);
#line 660 "templates/gfx942/attn_fwd.hip.in"
    {
      const ag_u32x2 ka = {kf[1][0], kf[1][1]};
#line 663 "templates/gfx942/attn_fwd.hip.in"
      const ag_u32x2 qf0 = {qv[0][6][0], qv[0][6][1]};
#line 667 "templates/gfx942/attn_fwd.hip.in"
      ag_mfma_16x16x16_bf16(s[0][0], ka, qf0);
#line 663 "templates/gfx942/attn_fwd.hip.in"
      const ag_u32x2 qf1 = {qv[1][6][0], qv[1][6][1]};
#line 667 "templates/gfx942/attn_fwd.hip.in"
      ag_mfma_16x16x16_bf16(s[1][0], ka, qf1);
#line 670 "templates/gfx942/attn_fwd.hip.in"
    }
#line 660 "templates/gfx942/attn_fwd.hip.in"
    {
      const ag_u32x2 ka = {kf[1][2], kf[1][3]};
#line 663 "templates/gfx942/attn_fwd.hip.in"
      const ag_u32x2 qf0 = {qv[0][6][2], qv[0][6][3]};
#line 667 "templates/gfx942/attn_fwd.hip.in"
      ag_mfma_16x16x16_bf16(s[0][0], ka, qf0);
#line 663 "templates/gfx942/attn_fwd.hip.in"
      const ag_u32x2 qf1 = {qv[1][6][2], qv[1][6][3]};
#line 667 "templates/gfx942/attn_fwd.hip.in"
      ag_mfma_16x16x16_bf16(s[1][0], ka, qf1);
#line 670 "templates/gfx942/attn_fwd.hip.in"
    }
#line 651 "templates/gfx942/attn_fwd.hip.in"
    ag_ds_read_b128<448>(kf[0], k_rd + buf);
#line 658 "templates/gfx942/attn_fwd.hip.in"
    ag_s_waitcnt_lgkmcnt<1>(kf[2]);
#line 660 "templates/gfx942/attn_fwd.hip.in"
    {
      const ag_u32x2 ka = {kf[2][0], kf[2][1]};
#line 663 "templates/gfx942/attn_fwd.hip.in"
      const ag_u32x2 qf0 = {qv[0][6][0], qv[0][6][1]};
#line 667 "templates/gfx942/attn_fwd.hip.in"
      ag_mfma_16x16x16_bf16(s[0][1], ka, qf0);
#line 663 "templates/gfx942/attn_fwd.hip.in"
      const ag_u32x2 qf1 = {qv[1][6][0], qv[1][6][1]};
#line 667 "templates/gfx942/attn_fwd.hip.in"
      ag_mfma_16x16x16_bf16(s[1][1], ka, qf1);
#line 670 "templates/gfx942/attn_fwd.hip.in"
    }
#line 660 "templates/gfx942/attn_fwd.hip.in"
    {
      const ag_u32x2 ka = {kf[2][2], kf[2][3]};
#line 663 "templates/gfx942/attn_fwd.hip.in"
      const ag_u32x2 qf0 = {qv[0][6][2], qv[0][6][3]};
#line 667 "templates/gfx942/attn_fwd.hip.in"
      ag_mfma_16x16x16_bf16(s[0][1], ka, qf0);
#line 663 "templates/gfx942/attn_fwd.hip.in"
      const ag_u32x2 qf1 = {qv[1][6][2], qv[1][6][3]};
#line 667 "templates/gfx942/attn_fwd.hip.in"
      ag_mfma_16x16x16_bf16(s[1][1], ka, qf1);
#line 670 "templates/gfx942/attn_fwd.hip.in"
    }
#line 651 "templates/gfx942/attn_fwd.hip.in"
    ag_ds_read_b128<8896>(kf[1], k_rd + buf);
#line 658 "templates/gfx942/attn_fwd.hip.in"
    ag_s_waitcnt_lgkmcnt<1>(kf[0]);
#line 660 "templates/gfx942/attn_fwd.hip.in"
    {
      const ag_u32x2 ka = {kf[0][0], kf[0][1]};
#line 663 "templates/gfx942/attn_fwd.hip.in"
      const ag_u32x2 qf0 = {qv[0][7][0], qv[0][7][1]};
#line 667 "templates/gfx942/attn_fwd.hip.in"
      ag_mfma_16x16x16_bf16(s[0][0], ka, qf0);
#line 663 "templates/gfx942/attn_fwd.hip.in"
      const ag_u32x2 qf1 = {qv[1][7][0], qv[1][7][1]};
#line 667 "templates/gfx942/attn_fwd.hip.in"
      ag_mfma_16x16x16_bf16(s[1][0], ka, qf1);
#line 670 "templates/gfx942/attn_fwd.hip.in"
    }
#line 660 "templates/gfx942/attn_fwd.hip.in"
    {
      const ag_u32x2 ka = {kf[0][2], kf[0][3]};
#line 663 "templates/gfx942/attn_fwd.hip.in"
      const ag_u32x2 qf0 = {qv[0][7][2], qv[0][7][3]};
#line 667 "templates/gfx942/attn_fwd.hip.in"
      ag_mfma_16x16x16_bf16(s[0][0], ka, qf0);
#line 663 "templates/gfx942/attn_fwd.hip.in"
      const ag_u32x2 qf1 = {qv[1][7][2], qv[1][7][3]};
#line 667 "templates/gfx942/attn_fwd.hip.in"
      ag_mfma_16x16x16_bf16(s[1][0], ka, qf1);
#line 670 "templates/gfx942/attn_fwd.hip.in"
    }
#line 658 "templates/gfx942/attn_fwd.hip.in"
    ag_s_waitcnt_lgkmcnt<0>(kf[1]);
#line 660 "templates/gfx942/attn_fwd.hip.in"
    {
      const ag_u32x2 ka = {kf[1][0], kf[1][1]};
#line 663 "templates/gfx942/attn_fwd.hip.in"
      const ag_u32x2 qf0 = {qv[0][7][0], qv[0][7][1]};
#line 667 "templates/gfx942/attn_fwd.hip.in"
      ag_mfma_16x16x16_bf16(s[0][1], ka, qf0);
#line 663 "templates/gfx942/attn_fwd.hip.in"
      const ag_u32x2 qf1 = {qv[1][7][0], qv[1][7][1]};
#line 667 "templates/gfx942/attn_fwd.hip.in"
      ag_mfma_16x16x16_bf16(s[1][1], ka, qf1);
#line 670 "templates/gfx942/attn_fwd.hip.in"
    }
#line 660 "templates/gfx942/attn_fwd.hip.in"
    {
      const ag_u32x2 ka = {kf[1][2], kf[1][3]};
#line 663 "templates/gfx942/attn_fwd.hip.in"
      const ag_u32x2 qf0 = {qv[0][7][2], qv[0][7][3]};
#line 667 "templates/gfx942/attn_fwd.hip.in"
      ag_mfma_16x16x16_bf16(s[0][1], ka, qf0);
#line 663 "templates/gfx942/attn_fwd.hip.in"
      const ag_u32x2 qf1 = {qv[1][7][2], qv[1][7][3]};
#line 667 "templates/gfx942/attn_fwd.hip.in"
      ag_mfma_16x16x16_bf16(s[1][1], ka, qf1);
#line 670 "templates/gfx942/attn_fwd.hip.in"
    }
#line 674 "templates/gfx942/attn_fwd.hip.in"
  }
#line 939 "templates/gfx942/attn_fwd.hip.in"
    ag_s_setprio<0>();
    ag_mfma_drain(s[0][0], s[0][1], s[1][0], s[1][1]);
    ag_s_barrier();
    // ---- Y_j: softmax phase
    if (grp == 1u) {  // K_{j+2} into this buffer (everyone is done with K_j)
#line 472 "templates/gfx942/attn_fwd.hip.in"
  ag_buffer_load_dword_lds(k_rsrc, k_dma_off + (kn2 * 32u + wave + 0u) * kv_rs,
                           lds + buf + (wave + 0u) * 528u);
#line 472 "templates/gfx942/attn_fwd.hip.in"
  ag_buffer_load_dword_lds(k_rsrc, k_dma_off + (kn2 * 32u + wave + 0u) * kv_rs + 256u,
                           lds + buf + (wave + 0u) * 528u + 256u);
#line 472 "templates/gfx942/attn_fwd.hip.in"
  ag_buffer_load_dword_lds(k_rsrc, k_dma_off + (kn2 * 32u + wave + 8u) * kv_rs,
                           lds + buf + (wave + 8u) * 528u);
#line 472 "templates/gfx942/attn_fwd.hip.in"
  ag_buffer_load_dword_lds(k_rsrc, k_dma_off + (kn2 * 32u + wave + 8u) * kv_rs + 256u,
                           lds + buf + (wave + 8u) * 528u + 256u);
#line 472 "templates/gfx942/attn_fwd.hip.in"
  ag_buffer_load_dword_lds(k_rsrc, k_dma_off + (kn2 * 32u + wave + 16u) * kv_rs,
                           lds + buf + (wave + 16u) * 528u);
#line 472 "templates/gfx942/attn_fwd.hip.in"
  ag_buffer_load_dword_lds(k_rsrc, k_dma_off + (kn2 * 32u + wave + 16u) * kv_rs + 256u,
                           lds + buf + (wave + 16u) * 528u + 256u);
#line 472 "templates/gfx942/attn_fwd.hip.in"
  ag_buffer_load_dword_lds(k_rsrc, k_dma_off + (kn2 * 32u + wave + 24u) * kv_rs,
                           lds + buf + (wave + 24u) * 528u);
#line 472 "templates/gfx942/attn_fwd.hip.in"
  ag_buffer_load_dword_lds(k_rsrc, k_dma_off + (kn2 * 32u + wave + 24u) * kv_rs + 256u,
                           lds + buf + (wave + 24u) * 528u + 256u);
#line 945 "templates/gfx942/attn_fwd.hip.in"
    }
#line 697 "templates/gfx942/attn_fwd.hip.in"
  {
#line 699 "templates/gfx942/attn_fwd.hip.in"
    const unsigned kv0 = kc * 32u;  // the walk's tile j
#line 703 "templates/gfx942/attn_fwd.hip.in"
    const bool tail = kv0 + 32u > kv_end;
    if (tail) {  // last, partial tile: keys >= kv_end do not exist
      // With a zero scale the scores become t = s * 0 (0, or NaN for an infinite s) before
      // the keys past kv_end are set to -inf (fma(-inf, 0, -m) = NaN made every row NaN); the
      // slow path below then takes x = fma(t, 1, -m) = -m = fma(s, 0, -m) for the others.
      if (sc == 0.0f) {
#line 712 "templates/gfx942/attn_fwd.hip.in"
        s[0][0][0] *= sc;
#line 712 "templates/gfx942/attn_fwd.hip.in"
        s[0][0][1] *= sc;
#line 712 "templates/gfx942/attn_fwd.hip.in"
        s[0][0][2] *= sc;
#line 712 "templates/gfx942/attn_fwd.hip.in"
        s[0][0][3] *= sc;
#line 712 "templates/gfx942/attn_fwd.hip.in"
        s[0][1][0] *= sc;
#line 712 "templates/gfx942/attn_fwd.hip.in"
        s[0][1][1] *= sc;
#line 712 "templates/gfx942/attn_fwd.hip.in"
        s[0][1][2] *= sc;
#line 712 "templates/gfx942/attn_fwd.hip.in"
        s[0][1][3] *= sc;
#line 712 "templates/gfx942/attn_fwd.hip.in"
        s[1][0][0] *= sc;
#line 712 "templates/gfx942/attn_fwd.hip.in"
        s[1][0][1] *= sc;
#line 712 "templates/gfx942/attn_fwd.hip.in"
        s[1][0][2] *= sc;
#line 712 "templates/gfx942/attn_fwd.hip.in"
        s[1][0][3] *= sc;
#line 712 "templates/gfx942/attn_fwd.hip.in"
        s[1][1][0] *= sc;
#line 712 "templates/gfx942/attn_fwd.hip.in"
        s[1][1][1] *= sc;
#line 712 "templates/gfx942/attn_fwd.hip.in"
        s[1][1][2] *= sc;
#line 712 "templates/gfx942/attn_fwd.hip.in"
        s[1][1][3] *= sc;
#line 716 "templates/gfx942/attn_fwd.hip.in"
      }
      // g recomputed here: the kernel's g, kept live across the loop for this rare block,
      // made clang-17 (hipcc/hiprtc 5.7) spill a VGPR in rtna tail (tests/test_rocm.c)
      const unsigned g_tail = ag_lane_id_here() >> 4;
#line 722 "templates/gfx942/attn_fwd.hip.in"
      const bool valid0_0 = kv0 + 0u + 4u * g_tail < kv_end;
#line 724 "templates/gfx942/attn_fwd.hip.in"
      s[0][0][0] = valid0_0 ? s[0][0][0] : -__builtin_inff();
#line 724 "templates/gfx942/attn_fwd.hip.in"
      s[1][0][0] = valid0_0 ? s[1][0][0] : -__builtin_inff();
#line 722 "templates/gfx942/attn_fwd.hip.in"
      const bool valid0_1 = kv0 + 1u + 4u * g_tail < kv_end;
#line 724 "templates/gfx942/attn_fwd.hip.in"
      s[0][0][1] = valid0_1 ? s[0][0][1] : -__builtin_inff();
#line 724 "templates/gfx942/attn_fwd.hip.in"
      s[1][0][1] = valid0_1 ? s[1][0][1] : -__builtin_inff();
#line 722 "templates/gfx942/attn_fwd.hip.in"
      const bool valid0_2 = kv0 + 2u + 4u * g_tail < kv_end;
#line 724 "templates/gfx942/attn_fwd.hip.in"
      s[0][0][2] = valid0_2 ? s[0][0][2] : -__builtin_inff();
#line 724 "templates/gfx942/attn_fwd.hip.in"
      s[1][0][2] = valid0_2 ? s[1][0][2] : -__builtin_inff();
#line 722 "templates/gfx942/attn_fwd.hip.in"
      const bool valid0_3 = kv0 + 3u + 4u * g_tail < kv_end;
#line 724 "templates/gfx942/attn_fwd.hip.in"
      s[0][0][3] = valid0_3 ? s[0][0][3] : -__builtin_inff();
#line 724 "templates/gfx942/attn_fwd.hip.in"
      s[1][0][3] = valid0_3 ? s[1][0][3] : -__builtin_inff();
#line 722 "templates/gfx942/attn_fwd.hip.in"
      const bool valid1_0 = kv0 + 16u + 4u * g_tail < kv_end;
#line 724 "templates/gfx942/attn_fwd.hip.in"
      s[0][1][0] = valid1_0 ? s[0][1][0] : -__builtin_inff();
#line 724 "templates/gfx942/attn_fwd.hip.in"
      s[1][1][0] = valid1_0 ? s[1][1][0] : -__builtin_inff();
#line 722 "templates/gfx942/attn_fwd.hip.in"
      const bool valid1_1 = kv0 + 17u + 4u * g_tail < kv_end;
#line 724 "templates/gfx942/attn_fwd.hip.in"
      s[0][1][1] = valid1_1 ? s[0][1][1] : -__builtin_inff();
#line 724 "templates/gfx942/attn_fwd.hip.in"
      s[1][1][1] = valid1_1 ? s[1][1][1] : -__builtin_inff();
#line 722 "templates/gfx942/attn_fwd.hip.in"
      const bool valid1_2 = kv0 + 18u + 4u * g_tail < kv_end;
#line 724 "templates/gfx942/attn_fwd.hip.in"
      s[0][1][2] = valid1_2 ? s[0][1][2] : -__builtin_inff();
#line 724 "templates/gfx942/attn_fwd.hip.in"
      s[1][1][2] = valid1_2 ? s[1][1][2] : -__builtin_inff();
#line 722 "templates/gfx942/attn_fwd.hip.in"
      const bool valid1_3 = kv0 + 19u + 4u * g_tail < kv_end;
#line 724 "templates/gfx942/attn_fwd.hip.in"
      s[0][1][3] = valid1_3 ? s[0][1][3] : -__builtin_inff();
#line 724 "templates/gfx942/attn_fwd.hip.in"
      s[1][1][3] = valid1_3 ? s[1][1][3] : -__builtin_inff();
#line 728 "templates/gfx942/attn_fwd.hip.in"
    }
#line 760 "templates/gfx942/attn_fwd.hip.in"
    bool changed[2];
    float alpha[2];
#line 763 "templates/gfx942/attn_fwd.hip.in"
    float tmx[2];  // this lane's max t over its keys of the tile, per Q tile (the verdict)
#line 768 "templates/gfx942/attn_fwd.hip.in"
    {
      float mx = s[0][0][0];
#line 773 "templates/gfx942/attn_fwd.hip.in"
      mx = ag_max_f32(mx, s[0][0][1]);
#line 773 "templates/gfx942/attn_fwd.hip.in"
      mx = ag_max_f32(mx, s[0][0][2]);
#line 773 "templates/gfx942/attn_fwd.hip.in"
      mx = ag_max_f32(mx, s[0][0][3]);
#line 773 "templates/gfx942/attn_fwd.hip.in"
      mx = ag_max_f32(mx, s[0][1][0]);
#line 773 "templates/gfx942/attn_fwd.hip.in"
      mx = ag_max_f32(mx, s[0][1][1]);
#line 773 "templates/gfx942/attn_fwd.hip.in"
      mx = ag_max_f32(mx, s[0][1][2]);
#line 773 "templates/gfx942/attn_fwd.hip.in"
      mx = ag_max_f32(mx, s[0][1][3]);
#line 777 "templates/gfx942/attn_fwd.hip.in"
      const float mt = mx * sc;  // this lane's max of t = s * sc (exact: see above)
#line 779 "templates/gfx942/attn_fwd.hip.in"
      tmx[0] = mt;
#line 781 "templates/gfx942/attn_fwd.hip.in"
      changed[0] = ag_any(mt > m[0]);
      alpha[0] = 1.0f;
      if (changed[0]) {  // some row's max may rise: row max across the 4 lanes of each row
        unsigned xr;
        ag_ds_swizzle_b32<0x401F>(xr, ag_f32_bits(mt));  // lane ^ 16
        ag_s_waitcnt_lgkmcnt<0>(xr);
        const float m2 = ag_max_f32(mt, ag_bits_f32(xr));
        // the lane id recomputed here (rare path) rather than kept in a VGPR across the loop
        ag_ds_bpermute_b32(xr, (ag_lane_id_here() ^ 32u) << 2, ag_f32_bits(m2));  // lane ^ 32
        ag_s_waitcnt_lgkmcnt<0>(xr);
        const float mnew = ag_max_f32(m[0], ag_max_f32(m2, ag_bits_f32(xr)));
        // as the reference: rescale only where the max rose (a row still at -inf keeps l)
        alpha[0] = mnew > m[0] ? ag_v_exp_f32(m[0] - mnew) : 1.0f;
        m[0] = mnew;
        l[0] *= alpha[0];
        big_m = ag_any(!(__builtin_fabsf(m[0]) < 0x1p24f) || !(__builtin_fabsf(m[1]) < 0x1p24f));
      }
    }
#line 768 "templates/gfx942/attn_fwd.hip.in"
    {
      float mx = s[1][0][0];
#line 773 "templates/gfx942/attn_fwd.hip.in"
      mx = ag_max_f32(mx, s[1][0][1]);
#line 773 "templates/gfx942/attn_fwd.hip.in"
      mx = ag_max_f32(mx, s[1][0][2]);
#line 773 "templates/gfx942/attn_fwd.hip.in"
      mx = ag_max_f32(mx, s[1][0][3]);
#line 773 "templates/gfx942/attn_fwd.hip.in"
      mx = ag_max_f32(mx, s[1][1][0]);
#line 773 "templates/gfx942/attn_fwd.hip.in"
      mx = ag_max_f32(mx, s[1][1][1]);
#line 773 "templates/gfx942/attn_fwd.hip.in"
      mx = ag_max_f32(mx, s[1][1][2]);
#line 773 "templates/gfx942/attn_fwd.hip.in"
      mx = ag_max_f32(mx, s[1][1][3]);
#line 777 "templates/gfx942/attn_fwd.hip.in"
      const float mt = mx * sc;  // this lane's max of t = s * sc (exact: see above)
#line 779 "templates/gfx942/attn_fwd.hip.in"
      tmx[1] = mt;
#line 781 "templates/gfx942/attn_fwd.hip.in"
      changed[1] = ag_any(mt > m[1]);
      alpha[1] = 1.0f;
      if (changed[1]) {  // some row's max may rise: row max across the 4 lanes of each row
        unsigned xr;
        ag_ds_swizzle_b32<0x401F>(xr, ag_f32_bits(mt));  // lane ^ 16
        ag_s_waitcnt_lgkmcnt<0>(xr);
        const float m2 = ag_max_f32(mt, ag_bits_f32(xr));
        // the lane id recomputed here (rare path) rather than kept in a VGPR across the loop
        ag_ds_bpermute_b32(xr, (ag_lane_id_here() ^ 32u) << 2, ag_f32_bits(m2));  // lane ^ 32
        ag_s_waitcnt_lgkmcnt<0>(xr);
        const float mnew = ag_max_f32(m[1], ag_max_f32(m2, ag_bits_f32(xr)));
        // as the reference: rescale only where the max rose (a row still at -inf keeps l)
        alpha[1] = mnew > m[1] ? ag_v_exp_f32(m[1] - mnew) : 1.0f;
        m[1] = mnew;
        l[1] *= alpha[1];
        big_m = ag_any(!(__builtin_fabsf(m[0]) < 0x1p24f) || !(__builtin_fabsf(m[1]) < 0x1p24f));
      }
    }
#line 801 "templates/gfx942/attn_fwd.hip.in"
    // The verdict of tile kc (NUMERICS.md "Tile skipping"): a lane of a row below Sq vetoes
    // when the max t of its keys (max(t, -inf): a NaN score does not count) is not below the
    // row's running max m + T (now m after this tile); a row's max over the tile is below
    // m + T iff each of its 4 lanes' is. A veto of the wave sets bit kc of the uniform word
    // vw (list word vwi; flushed into mk when the walk leaves the word). Past the compares
    // scalar work only: ballots, and in the last q-block the lanes of the rows below Sq as a
    // mask made in SGPRs (lane l holds row (l & 15) + 16 qt), no per-lane row test (6 VALU).
    {
      unsigned long long vb[2];  // the lanes that veto, per Q tile
#line 811 "templates/gfx942/attn_fwd.hip.in"
      vb[0] = ag_ballot(!(ag_max_f32(tmx[0], -__builtin_inff()) - m[0] < skip_t));
      if (wrows < 16u) {  // r: bit c for the rows c + 0 below wrows (c < 16)
        const unsigned long long r = (1ull << (wrows > 0u ? wrows - 0u : 0u)) - 1ull;
        vb[0] &= (r | r << 16) | (r | r << 16) << 32;  // the 4 lane groups g of row c
      }
#line 811 "templates/gfx942/attn_fwd.hip.in"
      vb[1] = ag_ballot(!(ag_max_f32(tmx[1], -__builtin_inff()) - m[1] < skip_t));
      if (wrows < 32u) {  // r: bit c for the rows c + 16 below wrows (c < 16)
        const unsigned long long r = (1ull << (wrows > 16u ? wrows - 16u : 0u)) - 1ull;
        vb[1] &= (r | r << 16) | (r | r << 16) << 32;  // the 4 lane groups g of row c
      }
#line 817 "templates/gfx942/attn_fwd.hip.in"
      if ((vb[0] | vb[1]) != 0ull) {
        if ((kc >> 5) != vwi) {
#line 482 "templates/gfx942/attn_fwd.hip.in"
          mk &= ag_lane_id_here() == vwi ? ~vw : ~0u;
#line 820 "templates/gfx942/attn_fwd.hip.in"
          vw = 0u;
          vwi = kc >> 5;
        }
        vw |= 1u << (kc & 31u);
      }
    }
#line 827 "templates/gfx942/attn_fwd.hip.in"
    // Slow path (wave-uniform, never the steady state): rows with |m| >= 2^24 take
    // x = fl(s * sc) - m (there fl(max s * sc) = m may be more than 1/2 off the exact product,
    // and the fma form's x at the row's max, that error, made p = +Inf: scale 1e10 gave NaN
    // rows), and a zero scale in the last tile takes x = fma(t, 1, -m) (see above).
#line 835 "templates/gfx942/attn_fwd.hip.in"
    const bool zero_tail = tail && sc == 0.0f;
    if (big_m || zero_tail) {
#line 839 "templates/gfx942/attn_fwd.hip.in"
    {
#line 844 "templates/gfx942/attn_fwd.hip.in"
      const float nm = -m[0];
#line 846 "templates/gfx942/attn_fwd.hip.in"
      const bool big = !(__builtin_fabsf(m[0]) < 0x1p24f) && !zero_tail;
      if (big) {  // s -> t = fl(s * sc): x = fma(t, 1, -m) = t - m
#line 850 "templates/gfx942/attn_fwd.hip.in"
        s[0][0][0] *= sc;
#line 850 "templates/gfx942/attn_fwd.hip.in"
        s[0][0][1] *= sc;
#line 850 "templates/gfx942/attn_fwd.hip.in"
        s[0][0][2] *= sc;
#line 850 "templates/gfx942/attn_fwd.hip.in"
        s[0][0][3] *= sc;
#line 850 "templates/gfx942/attn_fwd.hip.in"
        s[0][1][0] *= sc;
#line 850 "templates/gfx942/attn_fwd.hip.in"
        s[0][1][1] *= sc;
#line 850 "templates/gfx942/attn_fwd.hip.in"
        s[0][1][2] *= sc;
#line 850 "templates/gfx942/attn_fwd.hip.in"
        s[0][1][3] *= sc;
#line 853 "templates/gfx942/attn_fwd.hip.in"
      }
      const float scr = big || zero_tail ? 1.0f : sc;
#line 856 "templates/gfx942/attn_fwd.hip.in"
      {
        const float p0 = ag_v_exp_f32(ag_fma_f32(s[0][0][0], scr, nm));
        const float p1 = ag_v_exp_f32(ag_fma_f32(s[0][0][1], scr, nm));
        const float p2 = ag_v_exp_f32(ag_fma_f32(s[0][0][2], scr, nm));
        const float p3 = ag_v_exp_f32(ag_fma_f32(s[0][0][3], scr, nm));
        // l sums the unrounded p; P only feeds the P V MFMA, so it needs no NaN guard (p is
        // in [0, 2) or NaN, and a NaN p makes l, hence the whole output row, NaN: see
        // ag_pack_p_* in wrappers.h)
        l[0] += (p0 + p1) + (p2 + p3);
        p[0][0].x = ag_pack_p_rtne(p0, p1);
        p[0][0].y = ag_pack_p_rtne(p2, p3);
      }
#line 856 "templates/gfx942/attn_fwd.hip.in"
      {
        const float p0 = ag_v_exp_f32(ag_fma_f32(s[0][1][0], scr, nm));
        const float p1 = ag_v_exp_f32(ag_fma_f32(s[0][1][1], scr, nm));
        const float p2 = ag_v_exp_f32(ag_fma_f32(s[0][1][2], scr, nm));
        const float p3 = ag_v_exp_f32(ag_fma_f32(s[0][1][3], scr, nm));
        // l sums the unrounded p; P only feeds the P V MFMA, so it needs no NaN guard (p is
        // in [0, 2) or NaN, and a NaN p makes l, hence the whole output row, NaN: see
        // ag_pack_p_* in wrappers.h)
        l[0] += (p0 + p1) + (p2 + p3);
        p[0][1].x = ag_pack_p_rtne(p0, p1);
        p[0][1].y = ag_pack_p_rtne(p2, p3);
      }
#line 869 "templates/gfx942/attn_fwd.hip.in"
    }
#line 839 "templates/gfx942/attn_fwd.hip.in"
    {
#line 844 "templates/gfx942/attn_fwd.hip.in"
      const float nm = -m[1];
#line 846 "templates/gfx942/attn_fwd.hip.in"
      const bool big = !(__builtin_fabsf(m[1]) < 0x1p24f) && !zero_tail;
      if (big) {  // s -> t = fl(s * sc): x = fma(t, 1, -m) = t - m
#line 850 "templates/gfx942/attn_fwd.hip.in"
        s[1][0][0] *= sc;
#line 850 "templates/gfx942/attn_fwd.hip.in"
        s[1][0][1] *= sc;
#line 850 "templates/gfx942/attn_fwd.hip.in"
        s[1][0][2] *= sc;
#line 850 "templates/gfx942/attn_fwd.hip.in"
        s[1][0][3] *= sc;
#line 850 "templates/gfx942/attn_fwd.hip.in"
        s[1][1][0] *= sc;
#line 850 "templates/gfx942/attn_fwd.hip.in"
        s[1][1][1] *= sc;
#line 850 "templates/gfx942/attn_fwd.hip.in"
        s[1][1][2] *= sc;
#line 850 "templates/gfx942/attn_fwd.hip.in"
        s[1][1][3] *= sc;
#line 853 "templates/gfx942/attn_fwd.hip.in"
      }
      const float scr = big || zero_tail ? 1.0f : sc;
#line 856 "templates/gfx942/attn_fwd.hip.in"
      {
        const float p0 = ag_v_exp_f32(ag_fma_f32(s[1][0][0], scr, nm));
        const float p1 = ag_v_exp_f32(ag_fma_f32(s[1][0][1], scr, nm));
        const float p2 = ag_v_exp_f32(ag_fma_f32(s[1][0][2], scr, nm));
        const float p3 = ag_v_exp_f32(ag_fma_f32(s[1][0][3], scr, nm));
        // l sums the unrounded p; P only feeds the P V MFMA, so it needs no NaN guard (p is
        // in [0, 2) or NaN, and a NaN p makes l, hence the whole output row, NaN: see
        // ag_pack_p_* in wrappers.h)
        l[1] += (p0 + p1) + (p2 + p3);
        p[1][0].x = ag_pack_p_rtne(p0, p1);
        p[1][0].y = ag_pack_p_rtne(p2, p3);
      }
#line 856 "templates/gfx942/attn_fwd.hip.in"
      {
        const float p0 = ag_v_exp_f32(ag_fma_f32(s[1][1][0], scr, nm));
        const float p1 = ag_v_exp_f32(ag_fma_f32(s[1][1][1], scr, nm));
        const float p2 = ag_v_exp_f32(ag_fma_f32(s[1][1][2], scr, nm));
        const float p3 = ag_v_exp_f32(ag_fma_f32(s[1][1][3], scr, nm));
        // l sums the unrounded p; P only feeds the P V MFMA, so it needs no NaN guard (p is
        // in [0, 2) or NaN, and a NaN p makes l, hence the whole output row, NaN: see
        // ag_pack_p_* in wrappers.h)
        l[1] += (p0 + p1) + (p2 + p3);
        p[1][1].x = ag_pack_p_rtne(p0, p1);
        p[1][1].y = ag_pack_p_rtne(p2, p3);
      }
#line 869 "templates/gfx942/attn_fwd.hip.in"
    }
#line 871 "templates/gfx942/attn_fwd.hip.in"
    } else {
#line 873 "templates/gfx942/attn_fwd.hip.in"
    {
      const float nm = -m[0];
#line 876 "templates/gfx942/attn_fwd.hip.in"
      {
        const float p0 = ag_v_exp_f32(ag_fma_f32(s[0][0][0], sc, nm));
        const float p1 = ag_v_exp_f32(ag_fma_f32(s[0][0][1], sc, nm));
        const float p2 = ag_v_exp_f32(ag_fma_f32(s[0][0][2], sc, nm));
        const float p3 = ag_v_exp_f32(ag_fma_f32(s[0][0][3], sc, nm));
        // l sums the unrounded p; P only feeds the P V MFMA, so it needs no NaN guard (p is
        // in [0, 2) or NaN, and a NaN p makes l, hence the whole output row, NaN: see
        // ag_pack_p_* in wrappers.h)
        l[0] += (p0 + p1) + (p2 + p3);
        p[0][0].x = ag_pack_p_rtne(p0, p1);
        p[0][0].y = ag_pack_p_rtne(p2, p3);
      }
#line 876 "templates/gfx942/attn_fwd.hip.in"
      {
        const float p0 = ag_v_exp_f32(ag_fma_f32(s[0][1][0], sc, nm));
        const float p1 = ag_v_exp_f32(ag_fma_f32(s[0][1][1], sc, nm));
        const float p2 = ag_v_exp_f32(ag_fma_f32(s[0][1][2], sc, nm));
        const float p3 = ag_v_exp_f32(ag_fma_f32(s[0][1][3], sc, nm));
        // l sums the unrounded p; P only feeds the P V MFMA, so it needs no NaN guard (p is
        // in [0, 2) or NaN, and a NaN p makes l, hence the whole output row, NaN: see
        // ag_pack_p_* in wrappers.h)
        l[0] += (p0 + p1) + (p2 + p3);
        p[0][1].x = ag_pack_p_rtne(p0, p1);
        p[0][1].y = ag_pack_p_rtne(p2, p3);
      }
#line 889 "templates/gfx942/attn_fwd.hip.in"
    }
#line 873 "templates/gfx942/attn_fwd.hip.in"
    {
      const float nm = -m[1];
#line 876 "templates/gfx942/attn_fwd.hip.in"
      {
        const float p0 = ag_v_exp_f32(ag_fma_f32(s[1][0][0], sc, nm));
        const float p1 = ag_v_exp_f32(ag_fma_f32(s[1][0][1], sc, nm));
        const float p2 = ag_v_exp_f32(ag_fma_f32(s[1][0][2], sc, nm));
        const float p3 = ag_v_exp_f32(ag_fma_f32(s[1][0][3], sc, nm));
        // l sums the unrounded p; P only feeds the P V MFMA, so it needs no NaN guard (p is
        // in [0, 2) or NaN, and a NaN p makes l, hence the whole output row, NaN: see
        // ag_pack_p_* in wrappers.h)
        l[1] += (p0 + p1) + (p2 + p3);
        p[1][0].x = ag_pack_p_rtne(p0, p1);
        p[1][0].y = ag_pack_p_rtne(p2, p3);
      }
#line 876 "templates/gfx942/attn_fwd.hip.in"
      {
        const float p0 = ag_v_exp_f32(ag_fma_f32(s[1][1][0], sc, nm));
        const float p1 = ag_v_exp_f32(ag_fma_f32(s[1][1][1], sc, nm));
        const float p2 = ag_v_exp_f32(ag_fma_f32(s[1][1][2], sc, nm));
        const float p3 = ag_v_exp_f32(ag_fma_f32(s[1][1][3], sc, nm));
        // l sums the unrounded p; P only feeds the P V MFMA, so it needs no NaN guard (p is
        // in [0, 2) or NaN, and a NaN p makes l, hence the whole output row, NaN: see
        // ag_pack_p_* in wrappers.h)
        l[1] += (p0 + p1) + (p2 + p3);
        p[1][1].x = ag_pack_p_rtne(p0, p1);
        p[1][1].y = ag_pack_p_rtne(p2, p3);
      }
#line 889 "templates/gfx942/attn_fwd.hip.in"
    }
#line 891 "templates/gfx942/attn_fwd.hip.in"
    }
    // V_j for the P_j V_j product of the next X phase (S is dead now: registers are free)
#line 581 "templates/gfx942/attn_fwd.hip.in"
    ag_buffer_load_dwordx4<0>(vv[0], v_rsrc, v_lane + (kv0 + 0u) * 512u);
#line 581 "templates/gfx942/attn_fwd.hip.in"
    ag_buffer_load_dwordx4<1024>(vv[1], v_rsrc, v_lane + (kv0 + 0u) * 512u);
#line 581 "templates/gfx942/attn_fwd.hip.in"
    ag_buffer_load_dwordx4<2048>(vv[2], v_rsrc, v_lane + (kv0 + 0u) * 512u);
#line 581 "templates/gfx942/attn_fwd.hip.in"
    ag_buffer_load_dwordx4<3072>(vv[3], v_rsrc, v_lane + (kv0 + 0u) * 512u);
#line 581 "templates/gfx942/attn_fwd.hip.in"
    ag_buffer_load_dwordx4<0>(vv[4], v_rsrc, v_lane + (kv0 + 0u) * 512u + 4096u);
#line 581 "templates/gfx942/attn_fwd.hip.in"
    ag_buffer_load_dwordx4<1024>(vv[5], v_rsrc, v_lane + (kv0 + 0u) * 512u + 4096u);
#line 581 "templates/gfx942/attn_fwd.hip.in"
    ag_buffer_load_dwordx4<2048>(vv[6], v_rsrc, v_lane + (kv0 + 0u) * 512u + 4096u);
#line 581 "templates/gfx942/attn_fwd.hip.in"
    ag_buffer_load_dwordx4<3072>(vv[7], v_rsrc, v_lane + (kv0 + 0u) * 512u + 4096u);
#line 900 "templates/gfx942/attn_fwd.hip.in"
    // O rows are 4g + i in the accumulator layout: fetch their alpha from lane 4g + i.
#line 916 "templates/gfx942/attn_fwd.hip.in"
  }
#line 947 "templates/gfx942/attn_fwd.hip.in"
    if (grp == 0u) {
      ag_s_waitcnt_vmcnt<8>();  // K_{j+1} (DMA issued in X_j, before V_j) has landed
      ag_s_barrier();
    } else if (kn1 < nvis) {
      ag_s_barrier();
    }
#line 954 "templates/gfx942/attn_fwd.hip.in"
    kp = kc;
    kc = kn1;
    kn1 = kn2;
#line 489 "templates/gfx942/attn_fwd.hip.in"
  {
    const unsigned k = kn2 + 1u;
    unsigned t = nvis;
    if (k < nvis) {
      const unsigned w = ag_readlane(cw, k >> 5) >> (k & 31u);
      if (w != 0u) {
        t = k + (unsigned)__builtin_ctz(w);
      } else {
        const unsigned long long later = ag_ballot(cw != 0u && ag_lane_id_here() > (k >> 5));
        if (later != 0ull) {
          const unsigned wi = (unsigned)__builtin_ctzll(later);
          t = 32u * wi + (unsigned)__builtin_ctz(ag_readlane(cw, wi));
        }
      }
    }
    kn2 = t;
  }
#line 970 "templates/gfx942/attn_fwd.hip.in"
    }
    for (jj = 1; kc < nvis; ++jj) {
#line 927 "templates/gfx942/attn_fwd.hip.in"
    const unsigned buf = (jj & 1u) * 16896u;
    // ---- X_j: MFMA phase
    ag_s_setprio<1>();
#line 600 "templates/gfx942/attn_fwd.hip.in"
  {
    ag_u32x2 bv[2];
#line 594 "templates/gfx942/attn_fwd.hip.in"
    ag_s_waitcnt_vmcnt<7>(vv[0]);
#line 596 "templates/gfx942/attn_fwd.hip.in"
    bv[1].x = vv[0][0];
    bv[1].y = vv[0][1];
#line 596 "templates/gfx942/attn_fwd.hip.in"
    bv[0].x = vv[0][2];
    bv[0].y = vv[0][3];
#line 581 "templates/gfx942/attn_fwd.hip.in"
    ag_buffer_load_dwordx4<0>(vv[0], v_rsrc, v_lane + ((kp * 32u) + 16u) * 512u);
#line 606 "templates/gfx942/attn_fwd.hip.in"
    ag_mfma_16x16x16_bf16(o[0][0], p[0][0], bv[1]);
#line 606 "templates/gfx942/attn_fwd.hip.in"
    ag_mfma_16x16x16_bf16(o[1][0], p[1][0], bv[1]);
#line 594 "templates/gfx942/attn_fwd.hip.in"
    ag_s_waitcnt_vmcnt<7>(vv[1]);
#line 596 "templates/gfx942/attn_fwd.hip.in"
    bv[1].x = vv[1][0];
    bv[1].y = vv[1][1];
#line 606 "templates/gfx942/attn_fwd.hip.in"
    ag_mfma_16x16x16_bf16(o[0][1], p[0][0], bv[0]);
#line 606 "templates/gfx942/attn_fwd.hip.in"
    ag_mfma_16x16x16_bf16(o[1][1], p[1][0], bv[0]);
#line 596 "templates/gfx942/attn_fwd.hip.in"
    bv[0].x = vv[1][2];
    bv[0].y = vv[1][3];
#line 581 "templates/gfx942/attn_fwd.hip.in"
    ag_buffer_load_dwordx4<1024>(vv[1], v_rsrc, v_lane + ((kp * 32u) + 16u) * 512u);
#line 606 "templates/gfx942/attn_fwd.hip.in"
    ag_mfma_16x16x16_bf16(o[0][2], p[0][0], bv[1]);
#line 606 "templates/gfx942/attn_fwd.hip.in"
    ag_mfma_16x16x16_bf16(o[1][2], p[1][0], bv[1]);
#line 594 "templates/gfx942/attn_fwd.hip.in"
    ag_s_waitcnt_vmcnt<7>(vv[2]);
#line 596 "templates/gfx942/attn_fwd.hip.in"
    bv[1].x = vv[2][0];
    bv[1].y = vv[2][1];
#line 606 "templates/gfx942/attn_fwd.hip.in"
    ag_mfma_16x16x16_bf16(o[0][3], p[0][0], bv[0]);
#line 606 "templates/gfx942/attn_fwd.hip.in"
    ag_mfma_16x16x16_bf16(o[1][3], p[1][0], bv[0]);
#line 596 "templates/gfx942/attn_fwd.hip.in"
    bv[0].x = vv[2][2];
    bv[0].y = vv[2][3];
#line 581 "templates/gfx942/attn_fwd.hip.in"
    ag_buffer_load_dwordx4<2048>(vv[2], v_rsrc, v_lane + ((kp * 32u) + 16u) * 512u);
#line 606 "templates/gfx942/attn_fwd.hip.in"
    ag_mfma_16x16x16_bf16(o[0][4], p[0][0], bv[1]);
#line 606 "templates/gfx942/attn_fwd.hip.in"
    ag_mfma_16x16x16_bf16(o[1][4], p[1][0], bv[1]);
#line 594 "templates/gfx942/attn_fwd.hip.in"
    ag_s_waitcnt_vmcnt<7>(vv[3]);
#line 596 "templates/gfx942/attn_fwd.hip.in"
    bv[1].x = vv[3][0];
    bv[1].y = vv[3][1];
#line 606 "templates/gfx942/attn_fwd.hip.in"
    ag_mfma_16x16x16_bf16(o[0][5], p[0][0], bv[0]);
#line 606 "templates/gfx942/attn_fwd.hip.in"
    ag_mfma_16x16x16_bf16(o[1][5], p[1][0], bv[0]);
#line 596 "templates/gfx942/attn_fwd.hip.in"
    bv[0].x = vv[3][2];
    bv[0].y = vv[3][3];
#line 581 "templates/gfx942/attn_fwd.hip.in"
    ag_buffer_load_dwordx4<3072>(vv[3], v_rsrc, v_lane + ((kp * 32u) + 16u) * 512u);
#line 606 "templates/gfx942/attn_fwd.hip.in"
    ag_mfma_16x16x16_bf16(o[0][6], p[0][0], bv[1]);
#line 606 "templates/gfx942/attn_fwd.hip.in"
    ag_mfma_16x16x16_bf16(o[1][6], p[1][0], bv[1]);
#line 594 "templates/gfx942/attn_fwd.hip.in"
    ag_s_waitcnt_vmcnt<7>(vv[4]);
#line 596 "templates/gfx942/attn_fwd.hip.in"
    bv[1].x = vv[4][0];
    bv[1].y = vv[4][1];
#line 606 "templates/gfx942/attn_fwd.hip.in"
    ag_mfma_16x16x16_bf16(o[0][7], p[0][0], bv[0]);
#line 606 "templates/gfx942/attn_fwd.hip.in"
    ag_mfma_16x16x16_bf16(o[1][7], p[1][0], bv[0]);
#line 596 "templates/gfx942/attn_fwd.hip.in"
    bv[0].x = vv[4][2];
    bv[0].y = vv[4][3];
#line 581 "templates/gfx942/attn_fwd.hip.in"
    ag_buffer_load_dwordx4<0>(vv[4], v_rsrc, v_lane + ((kp * 32u) + 16u) * 512u + 4096u);
#line 606 "templates/gfx942/attn_fwd.hip.in"
    ag_mfma_16x16x16_bf16(o[0][8], p[0][0], bv[1]);
#line 606 "templates/gfx942/attn_fwd.hip.in"
    ag_mfma_16x16x16_bf16(o[1][8], p[1][0], bv[1]);
#line 594 "templates/gfx942/attn_fwd.hip.in"
    ag_s_waitcnt_vmcnt<7>(vv[5]);
#line 596 "templates/gfx942/attn_fwd.hip.in"
    bv[1].x = vv[5][0];
    bv[1].y = vv[5][1];
#line 606 "templates/gfx942/attn_fwd.hip.in"
    ag_mfma_16x16x16_bf16(o[0][9], p[0][0], bv[0]);
#line 606 "templates/gfx942/attn_fwd.hip.in"
    ag_mfma_16x16x16_bf16(o[1][9], p[1][0], bv[0]);
#line 596 "templates/gfx942/attn_fwd.hip.in"
    bv[0].x = vv[5][2];
    bv[0].y = vv[5][3];
#line 581 "templates/gfx942/attn_fwd.hip.in"
    ag_buffer_load_dwordx4<1024>(vv[5], v_rsrc, v_lane + ((kp * 32u) + 16u) * 512u + 4096u);
#line 606 "templates/gfx942/attn_fwd.hip.in"
    ag_mfma_16x16x16_bf16(o[0][10], p[0][0], bv[1]);
#line 606 "templates/gfx942/attn_fwd.hip.in"
    ag_mfma_16x16x16_bf16(o[1][10], p[1][0], bv[1]);
#line 594 "templates/gfx942/attn_fwd.hip.in"
    ag_s_waitcnt_vmcnt<7>(vv[6]);
#line 596 "templates/gfx942/attn_fwd.hip.in"
    bv[1].x = vv[6][0];
    bv[1].y = vv[6][1];
#line 606 "templates/gfx942/attn_fwd.hip.in"
    ag_mfma_16x16x16_bf16(o[0][11], p[0][0], bv[0]);
#line 606 "templates/gfx942/attn_fwd.hip.in"
    ag_mfma_16x16x16_bf16(o[1][11], p[1][0], bv[0]);
#line 596 "templates/gfx942/attn_fwd.hip.in"
    bv[0].x = vv[6][2];
    bv[0].y = vv[6][3];
#line 581 "templates/gfx942/attn_fwd.hip.in"
    ag_buffer_load_dwordx4<2048>(vv[6], v_rsrc, v_lane + ((kp * 32u) + 16u) * 512u + 4096u);
#line 606 "templates/gfx942/attn_fwd.hip.in"
    ag_mfma_16x16x16_bf16(o[0][12], p[0][0], bv[1]);
#line 606 "templates/gfx942/attn_fwd.hip.in"
    ag_mfma_16x16x16_bf16(o[1][12], p[1][0], bv[1]);
#line 594 "templates/gfx942/attn_fwd.hip.in"
    ag_s_waitcnt_vmcnt<7>(vv[7]);
#line 596 "templates/gfx942/attn_fwd.hip.in"
    bv[1].x = vv[7][0];
    bv[1].y = vv[7][1];
#line 606 "templates/gfx942/attn_fwd.hip.in"
    ag_mfma_16x16x16_bf16(o[0][13], p[0][0], bv[0]);
#line 606 "templates/gfx942/attn_fwd.hip.in"
    ag_mfma_16x16x16_bf16(o[1][13], p[1][0], bv[0]);
#line 596 "templates/gfx942/attn_fwd.hip.in"
    bv[0].x = vv[7][2];
    bv[0].y = vv[7][3];
#line 581 "templates/gfx942/attn_fwd.hip.in"
    ag_buffer_load_dwordx4<3072>(vv[7], v_rsrc, v_lane + ((kp * 32u) + 16u) * 512u + 4096u);
#line 606 "templates/gfx942/attn_fwd.hip.in"
    ag_mfma_16x16x16_bf16(o[0][14], p[0][0], bv[1]);
#line 606 "templates/gfx942/attn_fwd.hip.in"
    ag_mfma_16x16x16_bf16(o[1][14], p[1][0], bv[1]);
#line 594 "templates/gfx942/attn_fwd.hip.in"
    ag_s_waitcnt_vmcnt<7>(vv[0]);
#line 596 "templates/gfx942/attn_fwd.hip.in"
    bv[1].x = vv[0][0];
    bv[1].y = vv[0][1];
#line 606 "templates/gfx942/attn_fwd.hip.in"
    ag_mfma_16x16x16_bf16(o[0][15], p[0][0], bv[0]);
#line 606 "templates/gfx942/attn_fwd.hip.in"
    ag_mfma_16x16x16_bf16(o[1][15], p[1][0], bv[0]);
#line 596 "templates/gfx942/attn_fwd.hip.in"
    bv[0].x = vv[0][2];
    bv[0].y = vv[0][3];
#line 606 "templates/gfx942/attn_fwd.hip.in"
    ag_mfma_16x16x16_bf16(o[0][0], p[0][1], bv[1]);
#line 606 "templates/gfx942/attn_fwd.hip.in"
    ag_mfma_16x16x16_bf16(o[1][0], p[1][1], bv[1]);
#line 594 "templates/gfx942/attn_fwd.hip.in"
    ag_s_waitcnt_vmcnt<6>(vv[1]);
#line 596 "templates/gfx942/attn_fwd.hip.in"
    bv[1].x = vv[1][0];
    bv[1].y = vv[1][1];
#line 606 "templates/gfx942/attn_fwd.hip.in"
    ag_mfma_16x16x16_bf16(o[0][1], p[0][1], bv[0]);
#line 606 "templates/gfx942/attn_fwd.hip.in"
    ag_mfma_16x16x16_bf16(o[1][1], p[1][1], bv[0]);
#line 596 "templates/gfx942/attn_fwd.hip.in"
    bv[0].x = vv[1][2];
    bv[0].y = vv[1][3];
#line 606 "templates/gfx942/attn_fwd.hip.in"
    ag_mfma_16x16x16_bf16(o[0][2], p[0][1], bv[1]);
#line 606 "templates/gfx942/attn_fwd.hip.in"
    ag_mfma_16x16x16_bf16(o[1][2], p[1][1], bv[1]);
#line 594 "templates/gfx942/attn_fwd.hip.in"
    ag_s_waitcnt_vmcnt<5>(vv[2]);
#line 596 "templates/gfx942/attn_fwd.hip.in"
    bv[1].x = vv[2][0];
    bv[1].y = vv[2][1];
#line 606 "templates/gfx942/attn_fwd.hip.in"
    ag_mfma_16x16x16_bf16(o[0][3], p[0][1], bv[0]);
#line 606 "templates/gfx942/attn_fwd.hip.in"
    ag_mfma_16x16x16_bf16(o[1][3], p[1][1], bv[0]);
#line 596 "templates/gfx942/attn_fwd.hip.in"
    bv[0].x = vv[2][2];
    bv[0].y = vv[2][3];
#line 606 "templates/gfx942/attn_fwd.hip.in"
    ag_mfma_16x16x16_bf16(o[0][4], p[0][1], bv[1]);
#line 606 "templates/gfx942/attn_fwd.hip.in"
    ag_mfma_16x16x16_bf16(o[1][4], p[1][1], bv[1]);
#line 594 "templates/gfx942/attn_fwd.hip.in"
    ag_s_waitcnt_vmcnt<4>(vv[3]);
#line 596 "templates/gfx942/attn_fwd.hip.in"
    bv[1].x = vv[3][0];
    bv[1].y = vv[3][1];
#line 606 "templates/gfx942/attn_fwd.hip.in"
    ag_mfma_16x16x16_bf16(o[0][5], p[0][1], bv[0]);
#line 606 "templates/gfx942/attn_fwd.hip.in"
    ag_mfma_16x16x16_bf16(o[1][5], p[1][1], bv[0]);
#line 596 "templates/gfx942/attn_fwd.hip.in"
    bv[0].x = vv[3][2];
    bv[0].y = vv[3][3];
#line 606 "templates/gfx942/attn_fwd.hip.in"
    ag_mfma_16x16x16_bf16(o[0][6], p[0][1], bv[1]);
#line 606 "templates/gfx942/attn_fwd.hip.in"
    ag_mfma_16x16x16_bf16(o[1][6], p[1][1], bv[1]);
#line 594 "templates/gfx942/attn_fwd.hip.in"
    ag_s_waitcnt_vmcnt<3>(vv[4]);
#line 596 "templates/gfx942/attn_fwd.hip.in"
    bv[1].x = vv[4][0];
    bv[1].y = vv[4][1];
#line 606 "templates/gfx942/attn_fwd.hip.in"
    ag_mfma_16x16x16_bf16(o[0][7], p[0][1], bv[0]);
#line 606 "templates/gfx942/attn_fwd.hip.in"
    ag_mfma_16x16x16_bf16(o[1][7], p[1][1], bv[0]);
#line 596 "templates/gfx942/attn_fwd.hip.in"
    bv[0].x = vv[4][2];
    bv[0].y = vv[4][3];
#line 606 "templates/gfx942/attn_fwd.hip.in"
    ag_mfma_16x16x16_bf16(o[0][8], p[0][1], bv[1]);
#line 606 "templates/gfx942/attn_fwd.hip.in"
    ag_mfma_16x16x16_bf16(o[1][8], p[1][1], bv[1]);
#line 594 "templates/gfx942/attn_fwd.hip.in"
    ag_s_waitcnt_vmcnt<2>(vv[5]);
#line 596 "templates/gfx942/attn_fwd.hip.in"
    bv[1].x = vv[5][0];
    bv[1].y = vv[5][1];
#line 606 "templates/gfx942/attn_fwd.hip.in"
    ag_mfma_16x16x16_bf16(o[0][9], p[0][1], bv[0]);
#line 606 "templates/gfx942/attn_fwd.hip.in"
    ag_mfma_16x16x16_bf16(o[1][9], p[1][1], bv[0]);
#line 596 "templates/gfx942/attn_fwd.hip.in"
    bv[0].x = vv[5][2];
    bv[0].y = vv[5][3];
#line 606 "templates/gfx942/attn_fwd.hip.in"
    ag_mfma_16x16x16_bf16(o[0][10], p[0][1], bv[1]);
#line 606 "templates/gfx942/attn_fwd.hip.in"
    ag_mfma_16x16x16_bf16(o[1][10], p[1][1], bv[1]);
#line 594 "templates/gfx942/attn_fwd.hip.in"
    ag_s_waitcnt_vmcnt<1>(vv[6]);
#line 596 "templates/gfx942/attn_fwd.hip.in"
    bv[1].x = vv[6][0];
    bv[1].y = vv[6][1];
#line 606 "templates/gfx942/attn_fwd.hip.in"
    ag_mfma_16x16x16_bf16(o[0][11], p[0][1], bv[0]);
#line 606 "templates/gfx942/attn_fwd.hip.in"
    ag_mfma_16x16x16_bf16(o[1][11], p[1][1], bv[0]);
#line 596 "templates/gfx942/attn_fwd.hip.in"
    bv[0].x = vv[6][2];
    bv[0].y = vv[6][3];
#line 606 "templates/gfx942/attn_fwd.hip.in"
    ag_mfma_16x16x16_bf16(o[0][12], p[0][1], bv[1]);
#line 606 "templates/gfx942/attn_fwd.hip.in"
    ag_mfma_16x16x16_bf16(o[1][12], p[1][1], bv[1]);
#line 594 "templates/gfx942/attn_fwd.hip.in"
    ag_s_waitcnt_vmcnt<0>(vv[7]);
#line 596 "templates/gfx942/attn_fwd.hip.in"
    bv[1].x = vv[7][0];
    bv[1].y = vv[7][1];
#line 606 "templates/gfx942/attn_fwd.hip.in"
    ag_mfma_16x16x16_bf16(o[0][13], p[0][1], bv[0]);
#line 606 "templates/gfx942/attn_fwd.hip.in"
    ag_mfma_16x16x16_bf16(o[1][13], p[1][1], bv[0]);
#line 596 "templates/gfx942/attn_fwd.hip.in"
    bv[0].x = vv[7][2];
    bv[0].y = vv[7][3];
#line 606 "templates/gfx942/attn_fwd.hip.in"
    ag_mfma_16x16x16_bf16(o[0][14], p[0][1], bv[1]);
#line 606 "templates/gfx942/attn_fwd.hip.in"
    ag_mfma_16x16x16_bf16(o[1][14], p[1][1], bv[1]);
#line 606 "templates/gfx942/attn_fwd.hip.in"
    ag_mfma_16x16x16_bf16(o[0][15], p[0][1], bv[0]);
#line 606 "templates/gfx942/attn_fwd.hip.in"
    ag_mfma_16x16x16_bf16(o[1][15], p[1][1], bv[0]);
#line 609 "templates/gfx942/attn_fwd.hip.in"
  }
#line 933 "templates/gfx942/attn_fwd.hip.in"
    if (grp == 0u) {  // K_{j+1} into the other buffer (B issued its share in Y_{j-1})
#line 472 "templates/gfx942/attn_fwd.hip.in"
  ag_buffer_load_dword_lds(k_rsrc, k_dma_off + (kn1 * 32u + wave + 0u) * kv_rs,
                           lds + (16896u - buf) + (wave + 0u) * 528u);
#line 472 "templates/gfx942/attn_fwd.hip.in"
  ag_buffer_load_dword_lds(k_rsrc, k_dma_off + (kn1 * 32u + wave + 0u) * kv_rs + 256u,
                           lds + (16896u - buf) + (wave + 0u) * 528u + 256u);
#line 472 "templates/gfx942/attn_fwd.hip.in"
  ag_buffer_load_dword_lds(k_rsrc, k_dma_off + (kn1 * 32u + wave + 8u) * kv_rs,
                           lds + (16896u - buf) + (wave + 8u) * 528u);
#line 472 "templates/gfx942/attn_fwd.hip.in"
  ag_buffer_load_dword_lds(k_rsrc, k_dma_off + (kn1 * 32u + wave + 8u) * kv_rs + 256u,
                           lds + (16896u - buf) + (wave + 8u) * 528u + 256u);
#line 472 "templates/gfx942/attn_fwd.hip.in"
  ag_buffer_load_dword_lds(k_rsrc, k_dma_off + (kn1 * 32u + wave + 16u) * kv_rs,
                           lds + (16896u - buf) + (wave + 16u) * 528u);
#line 472 "templates/gfx942/attn_fwd.hip.in"
  ag_buffer_load_dword_lds(k_rsrc, k_dma_off + (kn1 * 32u + wave + 16u) * kv_rs + 256u,
                           lds + (16896u - buf) + (wave + 16u) * 528u + 256u);
#line 472 "templates/gfx942/attn_fwd.hip.in"
  ag_buffer_load_dword_lds(k_rsrc, k_dma_off + (kn1 * 32u + wave + 24u) * kv_rs,
                           lds + (16896u - buf) + (wave + 24u) * 528u);
#line 472 "templates/gfx942/attn_fwd.hip.in"
  ag_buffer_load_dword_lds(k_rsrc, k_dma_off + (kn1 * 32u + wave + 24u) * kv_rs + 256u,
                           lds + (16896u - buf) + (wave + 24u) * 528u + 256u);
#line 935 "templates/gfx942/attn_fwd.hip.in"
    } else {
      ag_s_waitcnt_vmcnt<0>();  // K_{j+1} (DMA issued in Y_{j-1}) lands before the barrier
    }
#line 653 "templates/gfx942/attn_fwd.hip.in"
  {
    ag_u32x4 kf[3];
#line 651 "templates/gfx942/attn_fwd.hip.in"
    ag_ds_read_b128<0>(kf[1], k_rd + buf);
#line 651 "templates/gfx942/attn_fwd.hip.in"
    ag_ds_read_b128<8448>(kf[2], k_rd + buf);
#line 658 "templates/gfx942/attn_fwd.hip.in"
    ag_s_waitcnt_lgkmcnt<1>(kf[1]);
#line 660 "templates/gfx942/attn_fwd.hip.in"
    {
      const ag_u32x2 ka = {kf[1][0], kf[1][1]};
#line 663 "templates/gfx942/attn_fwd.hip.in"
      const ag_u32x2 qf0 = {qv[0][0][0], qv[0][0][1]};
#line 665 "templates/gfx942/attn_fwd.hip.in"
      ag_mfma_16x16x16_bf16_zero(s[0][0], ka, qf0);
#line 663 "templates/gfx942/attn_fwd.hip.in"
      const ag_u32x2 qf1 = {qv[1][0][0], qv[1][0][1]};
#line 665 "templates/gfx942/attn_fwd.hip.in"
      ag_mfma_16x16x16_bf16_zero(s[1][0], ka, qf1);
#line 670 "templates/gfx942/attn_fwd.hip.in"
    }
#line 660 "templates/gfx942/attn_fwd.hip.in"
    {
      const ag_u32x2 ka = {kf[1][2], kf[1][3]};
#line 663 "templates/gfx942/attn_fwd.hip.in"
      const ag_u32x2 qf0 = {qv[0][0][2], qv[0][0][3]};
#line 667 "templates/gfx942/attn_fwd.hip.in"
      ag_mfma_16x16x16_bf16(s[0][0], ka, qf0);
#line 663 "templates/gfx942/attn_fwd.hip.in"
      const ag_u32x2 qf1 = {qv[1][0][2], qv[1][0][3]};
#line 667 "templates/gfx942/attn_fwd.hip.in"
      ag_mfma_16x16x16_bf16(s[1][0], ka, qf1);
#line 670 "templates/gfx942/attn_fwd.hip.in"
    }
#line 651 "templates/gfx942/attn_fwd.hip.in"
    ag_ds_read_b128<64>(kf[0], k_rd + buf);
#line 658 "templates/gfx942/attn_fwd.hip.in"
    ag_s_waitcnt_lgkmcnt<1>(kf[2]);
#line 660 "templates/gfx942/attn_fwd.hip.in"
    {
      const ag_u32x2 ka = {kf[2][0], kf[2][1]};
#line 663 "templates/gfx942/attn_fwd.hip.in"
      const ag_u32x2 qf0 = {qv[0][0][0], qv[0][0][1]};
#line 665 "templates/gfx942/attn_fwd.hip.in"
      ag_mfma_16x16x16_bf16_zero(s[0][1], ka, qf0);
#line 663 "templates/gfx942/attn_fwd.hip.in"
      const ag_u32x2 qf1 = {qv[1][0][0], qv[1][0][1]};
#line 665 "templates/gfx942/attn_fwd.hip.in"
      ag_mfma_16x16x16_bf16_zero(s[1][1], ka, qf1);
#line 670 "templates/gfx942/attn_fwd.hip.in"
    }
#line 660 "templates/gfx942/attn_fwd.hip.in"
    {
      const ag_u32x2 ka = {kf[2][2], kf[2][3]};
#line 663 "templates/gfx942/attn_fwd.hip.in"
      const ag_u32x2 qf0 = {qv[0][0][2], qv[0][0][3]};
#line 667 "templates/gfx942/attn_fwd.hip.in"
      ag_mfma_16x16x16_bf16(s[0][1], ka, qf0);
#line 663 "templates/gfx942/attn_fwd.hip.in"
      const ag_u32x2 qf1 = {qv[1][0][2], qv[1][0][3]};
#line 667 "templates/gfx942/attn_fwd.hip.in"
      ag_mfma_16x16x16_bf16(s[1][1], ka, qf1);
#line 670 "templates/gfx942/attn_fwd.hip.in"
    }
#line 651 "templates/gfx942/attn_fwd.hip.in"
    ag_ds_read_b128<8512>(kf[1], k_rd + buf);
#line 658 "templates/gfx942/attn_fwd.hip.in"
    ag_s_waitcnt_lgkmcnt<1>(kf[0]);
#line 660 "templates/gfx942/attn_fwd.hip.in"
    {
      const ag_u32x2 ka = {kf[0][0], kf[0][1]};
#line 663 "templates/gfx942/attn_fwd.hip.in"
      const ag_u32x2 qf0 = {qv[0][1][0], qv[0][1][1]};
#line 667 "templates/gfx942/attn_fwd.hip.in"
      ag_mfma_16x16x16_bf16(s[0][0], ka, qf0);
#line 663 "templates/gfx942/attn_fwd.hip.in"
      const ag_u32x2 qf1 = {qv[1][1][0], qv[1][1][1]};
#line 667 "templates/gfx942/attn_fwd.hip.in"
      ag_mfma_16x16x16_bf16(s[1][0], ka, qf1);
#line 670 "templates/gfx942/attn_fwd.hip.in"
    }
#line 660 "templates/gfx942/attn_fwd.hip.in"
    {
      const ag_u32x2 ka = {kf[0][2], kf[0][3]};
#line 663 "templates/gfx942/attn_fwd.hip.in"
      const ag_u32x2 qf0 = {qv[0][1][2], qv[0][1][3]};
#line 667 "templates/gfx942/attn_fwd.hip.in"
      ag_mfma_16x16x16_bf16(s[0][0], ka, qf0);
#line 663 "templates/gfx942/attn_fwd.hip.in"
      const ag_u32x2 qf1 = {qv[1][1][2], qv[1][1][3]};
#line 667 "templates/gfx942/attn_fwd.hip.in"
      ag_mfma_16x16x16_bf16(s[1][0], ka, qf1);
#line 670 "templates/gfx942/attn_fwd.hip.in"
    }
#line 651 "templates/gfx942/attn_fwd.hip.in"
    ag_ds_read_b128<128>(kf[2], k_rd + buf);
#line 658 "templates/gfx942/attn_fwd.hip.in"
    ag_s_waitcnt_lgkmcnt<1>(kf[1]);
#line 660 "templates/gfx942/attn_fwd.hip.in"
    {
      const ag_u32x2 ka = {kf[1][0], kf[1][1]};
#line 663 "templates/gfx942/attn_fwd.hip.in"
      const ag_u32x2 qf0 = {qv[0][1][0], qv[0][1][1]};
#line 667 "templates/gfx942/attn_fwd.hip.in"
      ag_mfma_16x16x16_bf16(s[0][1], ka, qf0);
#line 663 "templates/gfx942/attn_fwd.hip.in"
      const ag_u32x2 qf1 = {qv[1][1][0], qv[1][1][1]};
#line 667 "templates/gfx942/attn_fwd.hip.in"
      ag_mfma_16x16x16_bf16(s[1][1], ka, qf1);
#line 670 "templates/gfx942/attn_fwd.hip.in"
    }
#line 660 "templates/gfx942/attn_fwd.hip.in"
    {
      const ag_u32x2 ka = {kf[1][2], kf[1][3]};
#line 663 "templates/gfx942/attn_fwd.hip.in"
      const ag_u32x2 qf0 = {qv[0][1][2], qv[0][1][3]};
#line 667 "templates/gfx942/attn_fwd.hip.in"
      ag_mfma_16x16x16_bf16(s[0][1], ka, qf0);
#line 663 "templates/gfx942/attn_fwd.hip.in"
      const ag_u32x2 qf1 = {qv[1][1][2], qv[1][1][3]};
#line 667 "templates/gfx942/attn_fwd.hip.in"
      ag_mfma_16x16x16_bf16(s[1][1], ka, qf1);
#line 670 "templates/gfx942/attn_fwd.hip.in"
    }
#line 651 "templates/gfx942/attn_fwd.hip.in"
    ag_ds_read_b128<8576>(kf[0], k_rd + buf);
#line 658 "templates/gfx942/attn_fwd.hip.in"
    ag_s_waitcnt_lgkmcnt<1>(kf[2]);
#line 660 "templates/gfx942/attn_fwd.hip.in"
    {
      const ag_u32x2 ka = {kf[2][0], kf[2][1]};
#line 663 "templates/gfx942/attn_fwd.hip.in"
      const ag_u32x2 qf0 = {qv[0][2][0], qv[0][2][1]};
#line 667 "templates/gfx942/attn_fwd.hip.in"
      ag_mfma_16x16x16_bf16(s[0][0], ka, qf0);
#line 663 "templates/gfx942/attn_fwd.hip.in"
      const ag_u32x2 qf1 = {qv[1][2][0], qv[1][2][1]};
#line 667 "templates/gfx942/attn_fwd.hip.in"
      ag_mfma_16x16x16_bf16(s[1][0], ka, qf1);
#line 670 "templates/gfx942/attn_fwd.hip.in"
    }
#line 660 "templates/gfx942/attn_fwd.hip.in"
    {
      const ag_u32x2 ka = {kf[2][2], kf[2][3]};
#line 663 "templates/gfx942/attn_fwd.hip.in"
      const ag_u32x2 qf0 = {qv[0][2][2], qv[0][2][3]};
#line 667 "templates/gfx942/attn_fwd.hip.in"
      ag_mfma_16x16x16_bf16(s[0][0], ka, qf0);
#line 663 "templates/gfx942/attn_fwd.hip.in"
      const ag_u32x2 qf1 = {qv[1][2][2], qv[1][2][3]};
#line 667 "templates/gfx942/attn_fwd.hip.in"
      ag_mfma_16x16x16_bf16(s[1][0], ka, qf1);
#line 670 "templates/gfx942/attn_fwd.hip.in"
    }
#line 651 "templates/gfx942/attn_fwd.hip.in"
    ag_ds_read_b128<192>(kf[1], k_rd + buf);
#line 658 "templates/gfx942/attn_fwd.hip.in"
    ag_s_waitcnt_lgkmcnt<1>(kf[0]);
#line 660 "templates/gfx942/attn_fwd.hip.in"
    {
      const ag_u32x2 ka = {kf[0][0], kf[0][1]};
#line 663 "templates/gfx942/attn_fwd.hip.in"
      const ag_u32x2 qf0 = {qv[0][2][0], qv[0][2][1]};
#line 667 "templates/gfx942/attn_fwd.hip.in"
      ag_mfma_16x16x16_bf16(s[0][1], ka, qf0);
#line 663 "templates/gfx942/attn_fwd.hip.in"
      const ag_u32x2 qf1 = {qv[1][2][0], qv[1][2][1]};
#line 667 "templates/gfx942/attn_fwd.hip.in"
      ag_mfma_16x16x16_bf16(s[1][1], ka, qf1);
#line 670 "templates/gfx942/attn_fwd.hip.in"
    }
#line 660 "templates/gfx942/attn_fwd.hip.in"
    {
      const ag_u32x2 ka = {kf[0][2], kf[0][3]};
#line 663 "templates/gfx942/attn_fwd.hip.in"
      const ag_u32x2 qf0 = {qv[0][2][2], qv[0][2][3]};
#line 667 "templates/gfx942/attn_fwd.hip.in"
      ag_mfma_16x16x16_bf16(s[0][1], ka, qf0);
#line 663 "templates/gfx942/attn_fwd.hip.in"
      const ag_u32x2 qf1 = {qv[1][2][2], qv[1][2][3]};
#line 667 "templates/gfx942/attn_fwd.hip.in"
      ag_mfma_16x16x16_bf16(s[1][1], ka, qf1);
#line 670 "templates/gfx942/attn_fwd.hip.in"
    }
#line 651 "templates/gfx942/attn_fwd.hip.in"
    ag_ds_read_b128<8640>(kf[2], k_rd + buf);
#line 658 "templates/gfx942/attn_fwd.hip.in"
    ag_s_waitcnt_lgkmcnt<1>(kf[1]);
#line 660 "templates/gfx942/attn_fwd.hip.in"
    {
      const ag_u32x2 ka = {kf[1][0], kf[1][1]};
#line 663 "templates/gfx942/attn_fwd.hip.in"
      const ag_u32x2 qf0 = {qv[0][3][0], qv[0][3][1]};
#line 667 "templates/gfx942/attn_fwd.hip.in"
      ag_mfma_16x16x16_bf16(s[0][0], ka, qf0);
#line 663 "templates/gfx942/attn_fwd.hip.in"
      const ag_u32x2 qf1 = {qv[1][3][0], qv[1][3][1]};
#line 667 "templates/gfx942/attn_fwd.hip.in"
      ag_mfma_16x16x16_bf16(s[1][0], ka, qf1);
#line 670 "templates/gfx942/attn_fwd.hip.in"
    }
#line 660 "templates/gfx942/attn_fwd.hip.in"
    {
      const ag_u32x2 ka = {kf[1][2], kf[1][3]};
#line 663 "templates/gfx942/attn_fwd.hip.in"
      const ag_u32x2 qf0 = {qv[0][3][2], qv[0][3][3]};
#line 667 "templates/gfx942/attn_fwd.hip.in"
      ag_mfma_16x16x16_bf16(s[0][0], ka, qf0);
#line 663 "templates/gfx942/attn_fwd.hip.in"
      const ag_u32x2 qf1 = {qv[1][3][2], qv[1][3][3]};
#line 667 "templates/gfx942/attn_fwd.hip.in"
      ag_mfma_16x16x16_bf16(s[1][0], ka, qf1);
#line 670 "templates/gfx942/attn_fwd.hip.in"
    }
#line 651 "templates/gfx942/attn_fwd.hip.in"
    ag_ds_read_b128<256>(kf[0], k_rd + buf);
#line 658 "templates/gfx942/attn_fwd.hip.in"
    ag_s_waitcnt_lgkmcnt<1>(kf[2]);
#line 660 "templates/gfx942/attn_fwd.hip.in"
    {
      const ag_u32x2 ka = {kf[2][0], kf[2][1]};
#line 663 "templates/gfx942/attn_fwd.hip.in"
      const ag_u32x2 qf0 = {qv[0][3][0], qv[0][3][1]};
#line 667 "templates/gfx942/attn_fwd.hip.in"
      ag_mfma_16x16x16_bf16(s[0][1], ka, qf0);
#line 663 "templates/gfx942/attn_fwd.hip.in"
      const ag_u32x2 qf1 = {qv[1][3][0], qv[1][3][1]};
#line 667 "templates/gfx942/attn_fwd.hip.in"
      ag_mfma_16x16x16_bf16(s[1][1], ka, qf1);
#line 670 "templates/gfx942/attn_fwd.hip.in"
    }
#line 660 "templates/gfx942/attn_fwd.hip.in"
    {
      const ag_u32x2 ka = {kf[2][2], kf[2][3]};
#line 663 "templates/gfx942/attn_fwd.hip.in"
      const ag_u32x2 qf0 = {qv[0][3][2], qv[0][3][3]};
#line 667 "templates/gfx942/attn_fwd.hip.in"
      ag_mfma_16x16x16_bf16(s[0][1], ka, qf0);
#line 663 "templates/gfx942/attn_fwd.hip.in"
      const ag_u32x2 qf1 = {qv[1][3][2], qv[1][3][3]};
#line 667 "templates/gfx942/attn_fwd.hip.in"
      ag_mfma_16x16x16_bf16(s[1][1], ka, qf1);
#line 670 "templates/gfx942/attn_fwd.hip.in"
    }
#line 651 "templates/gfx942/attn_fwd.hip.in"
    ag_ds_read_b128<8704>(kf[1], k_rd + buf);
#line 658 "templates/gfx942/attn_fwd.hip.in"
    ag_s_waitcnt_lgkmcnt<1>(kf[0]);
#line 660 "templates/gfx942/attn_fwd.hip.in"
    {
      const ag_u32x2 ka = {kf[0][0], kf[0][1]};
#line 663 "templates/gfx942/attn_fwd.hip.in"
      const ag_u32x2 qf0 = {qv[0][4][0], qv[0][4][1]};
#line 667 "templates/gfx942/attn_fwd.hip.in"
      ag_mfma_16x16x16_bf16(s[0][0], ka, qf0);
#line 663 "templates/gfx942/attn_fwd.hip.in"
      const ag_u32x2 qf1 = {qv[1][4][0], qv[1][4][1]};
#line 667 "templates/gfx942/attn_fwd.hip.in"
      ag_mfma_16x16x16_bf16(s[1][0], ka, qf1);
#line 670 "templates/gfx942/attn_fwd.hip.in"
    }
#line 660 "templates/gfx942/attn_fwd.hip.in"
    {
      const ag_u32x2 ka = {kf[0][2], kf[0][3]};
#line 663 "templates/gfx942/attn_fwd.hip.in"
      const ag_u32x2 qf0 = {qv[0][4][2], qv[0][4][3]};
#line 667 "templates/gfx942/attn_fwd.hip.in"
      ag_mfma_16x16x16_bf16(s[0][0], ka, qf0);
#line 663 "templates/gfx942/attn_fwd.hip.in"
      const ag_u32x2 qf1 = {qv[1][4][2], qv[1][4][3]};
#line 667 "templates/gfx942/attn_fwd.hip.in"
      ag_mfma_16x16x16_bf16(s[1][0], ka, qf1);
#line 670 "templates/gfx942/attn_fwd.hip.in"
    }
#line 651 "templates/gfx942/attn_fwd.hip.in"
    ag_ds_read_b128<320>(kf[2], k_rd + buf);
#line 658 "templates/gfx942/attn_fwd.hip.in"
    ag_s_waitcnt_lgkmcnt<1>(kf[1]);
#line 660 "templates/gfx942/attn_fwd.hip.in"
    {
      const ag_u32x2 ka = {kf[1][0], kf[1][1]};
#line 663 "templates/gfx942/attn_fwd.hip.in"
      const ag_u32x2 qf0 = {qv[0][4][0], qv[0][4][1]};
#line 667 "templates/gfx942/attn_fwd.hip.in"
      ag_mfma_16x16x16_bf16(s[0][1], ka, qf0);
#line 663 "templates/gfx942/attn_fwd.hip.in"
      const ag_u32x2 qf1 = {qv[1][4][0], qv[1][4][1]};
#line 667 "templates/gfx942/attn_fwd.hip.in"
      ag_mfma_16x16x16_bf16(s[1][1], ka, qf1);
#line 670 "templates/gfx942/attn_fwd.hip.in"
    }
#line 660 "templates/gfx942/attn_fwd.hip.in"
    {
      const ag_u32x2 ka = {kf[1][2], kf[1][3]};
#line 663 "templates/gfx942/attn_fwd.hip.in"
      const ag_u32x2 qf0 = {qv[0][4][2], qv[0][4][3]};
#line 667 "templates/gfx942/attn_fwd.hip.in"
      ag_mfma_16x16x16_bf16(s[0][1], ka, qf0);
#line 663 "templates/gfx942/attn_fwd.hip.in"
      const ag_u32x2 qf1 = {qv[1][4][2], qv[1][4][3]};
#line 667 "templates/gfx942/attn_fwd.hip.in"
      ag_mfma_16x16x16_bf16(s[1][1], ka, qf1);
#line 670 "templates/gfx942/attn_fwd.hip.in"
    }
#line 651 "templates/gfx942/attn_fwd.hip.in"
    ag_ds_read_b128<8768>(kf[0], k_rd + buf);
#line 658 "templates/gfx942/attn_fwd.hip.in"
    ag_s_waitcnt_lgkmcnt<1>(kf[2]);
#line 660 "templates/gfx942/attn_fwd.hip.in"
    {
      const ag_u32x2 ka = {kf[2][0], kf[2][1]};
#line 663 "templates/gfx942/attn_fwd.hip.in"
      const ag_u32x2 qf0 = {qv[0][5][0], qv[0][5][1]};
#line 667 "templates/gfx942/attn_fwd.hip.in"
      ag_mfma_16x16x16_bf16(s[0][0], ka, qf0);
#line 663 "templates/gfx942/attn_fwd.hip.in"
      const ag_u32x2 qf1 = {qv[1][5][0], qv[1][5][1]};
#line 667 "templates/gfx942/attn_fwd.hip.in"
      ag_mfma_16x16x16_bf16(s[1][0], ka, qf1);
#line 670 "templates/gfx942/attn_fwd.hip.in"
    }
#line 660 "templates/gfx942/attn_fwd.hip.in"
    {
      const ag_u32x2 ka = {kf[2][2], kf[2][3]};
#line 663 "templates/gfx942/attn_fwd.hip.in"
      const ag_u32x2 qf0 = {qv[0][5][2], qv[0][5][3]};
#line 667 "templates/gfx942/attn_fwd.hip.in"
      ag_mfma_16x16x16_bf16(s[0][0], ka, qf0);
#line 663 "templates/gfx942/attn_fwd.hip.in"
      const ag_u32x2 qf1 = {qv[1][5][2], qv[1][5][3]};
#line 667 "templates/gfx942/attn_fwd.hip.in"
      ag_mfma_16x16x16_bf16(s[1][0], ka, qf1);
#line 670 "templates/gfx942/attn_fwd.hip.in"
    }
#line 651 "templates/gfx942/attn_fwd.hip.in"
    ag_ds_read_b128<384>(kf[1], k_rd + buf);
#line 658 "templates/gfx942/attn_fwd.hip.in"
    ag_s_waitcnt_lgkmcnt<1>(kf[0]);
#line 660 "templates/gfx942/attn_fwd.hip.in"
    {
      const ag_u32x2 ka = {kf[0][0], kf[0][1]};
#line 663 "templates/gfx942/attn_fwd.hip.in"
      const ag_u32x2 qf0 = {qv[0][5][0], qv[0][5][1]};
#line 667 "templates/gfx942/attn_fwd.hip.in"
      ag_mfma_16x16x16_bf16(s[0][1], ka, qf0);
#line 663 "templates/gfx942/attn_fwd.hip.in"
      const ag_u32x2 qf1 = {qv[1][5][0], qv[1][5][1]};
#line 667 "templates/gfx942/attn_fwd.hip.in"
      ag_mfma_16x16x16_bf16(s[1][1], ka, qf1);
#line 670 "templates/gfx942/attn_fwd.hip.in"
    }
#line 660 "templates/gfx942/attn_fwd.hip.in"
    {
      const ag_u32x2 ka = {kf[0][2], kf[0][3]};
#line 663 "templates/gfx942/attn_fwd.hip.in"
      const ag_u32x2 qf0 = {qv[0][5][2], qv[0][5][3]};
#line 667 "templates/gfx942/attn_fwd.hip.in"
      ag_mfma_16x16x16_bf16(s[0][1], ka, qf0);
#line 663 "templates/gfx942/attn_fwd.hip.in"
      const ag_u32x2 qf1 = {qv[1][5][2], qv[1][5][3]};
#line 667 "templates/gfx942/attn_fwd.hip.in"
      ag_mfma_16x16x16_bf16(s[1][1], ka, qf1);
#line 670 "templates/gfx942/attn_fwd.hip.in"
    }
#line 651 "templates/gfx942/attn_fwd.hip.in"
    ag_ds_read_b128<8832>(kf[2], k_rd + buf);
#line 658 "templates/gfx942/attn_fwd.hip.in"
    ag_s_waitcnt_lgkmcnt<1>(kf[1]);
#line 660 "templates/gfx942/attn_fwd.hip.in"
    {
      const ag_u32x2 ka = {kf[1][0], kf[1][1]};
#line 663 "templates/gfx942/attn_fwd.hip.in"
      const ag_u32x2 qf0 = {qv[0][6][0], qv[0][6][1]};
#line 667 "templates/gfx942/attn_fwd.hip.in"
      ag_mfma_16x16x16_bf16(s[0][0], ka, qf0);
#line 663 "templates/gfx942/attn_fwd.hip.in"
      const ag_u32x2 qf1 = {qv[1][6][0], qv[1][6][1]};
#line 667 "templates/gfx942/attn_fwd.hip.in"
      ag_mfma_16x16x16_bf16(s[1][0], ka, qf1);
#line 670 "templates/gfx942/attn_fwd.hip.in"
    }
#line 660 "templates/gfx942/attn_fwd.hip.in"
    {
      const ag_u32x2 ka = {kf[1][2], kf[1][3]};
#line 663 "templates/gfx942/attn_fwd.hip.in"
      const ag_u32x2 qf0 = {qv[0][6][2], qv[0][6][3]};
#line 667 "templates/gfx942/attn_fwd.hip.in"
      ag_mfma_16x16x16_bf16(s[0][0], ka, qf0);
#line 663 "templates/gfx942/attn_fwd.hip.in"
      const ag_u32x2 qf1 = {qv[1][6][2], qv[1][6][3]};
#line 667 "templates/gfx942/attn_fwd.hip.in"
      ag_mfma_16x16x16_bf16(s[1][0], ka, qf1);
#line 670 "templates/gfx942/attn_fwd.hip.in"
    }
#line 651 "templates/gfx942/attn_fwd.hip.in"
    ag_ds_read_b128<448>(kf[0], k_rd + buf);
#line 658 "templates/gfx942/attn_fwd.hip.in"
    ag_s_waitcnt_lgkmcnt<1>(kf[2]);
#line 660 "templates/gfx942/attn_fwd.hip.in"
    {
      const ag_u32x2 ka = {kf[2][0], kf[2][1]};
#line 663 "templates/gfx942/attn_fwd.hip.in"
      const ag_u32x2 qf0 = {qv[0][6][0], qv[0][6][1]};
#line 667 "templates/gfx942/attn_fwd.hip.in"
      ag_mfma_16x16x16_bf16(s[0][1], ka, qf0);
#line 663 "templates/gfx942/attn_fwd.hip.in"
      const ag_u32x2 qf1 = {qv[1][6][0], qv[1][6][1]};
#line 667 "templates/gfx942/attn_fwd.hip.in"
      ag_mfma_16x16x16_bf16(s[1][1], ka, qf1);
#line 670 "templates/gfx942/attn_fwd.hip.in"
    }
#line 660 "templates/gfx942/attn_fwd.hip.in"
    {
      const ag_u32x2 ka = {kf[2][2], kf[2][3]};
#line 663 "templates/gfx942/attn_fwd.hip.in"
      const ag_u32x2 qf0 = {qv[0][6][2], qv[0][6][3]};
#line 667 "templates/gfx942/attn_fwd.hip.in"
      ag_mfma_16x16x16_bf16(s[0][1], ka, qf0);
#line 663 "templates/gfx942/attn_fwd.hip.in"
      const ag_u32x2 qf1 = {qv[1][6][2], qv[1][6][3]};
#line 667 "templates/gfx942/attn_fwd.hip.in"
      ag_mfma_16x16x16_bf16(s[1][1], ka, qf1);
#line 670 "templates/gfx942/attn_fwd.hip.in"
    }
#line 651 "templates/gfx942/attn_fwd.hip.in"
    ag_ds_read_b128<8896>(kf[1], k_rd + buf);
#line 658 "templates/gfx942/attn_fwd.hip.in"
    ag_s_waitcnt_lgkmcnt<1>(kf[0]);
#line 660 "templates/gfx942/attn_fwd.hip.in"
    {
      const ag_u32x2 ka = {kf[0][0], kf[0][1]};
#line 663 "templates/gfx942/attn_fwd.hip.in"
      const ag_u32x2 qf0 = {qv[0][7][0], qv[0][7][1]};
#line 667 "templates/gfx942/attn_fwd.hip.in"
      ag_mfma_16x16x16_bf16(s[0][0], ka, qf0);
#line 663 "templates/gfx942/attn_fwd.hip.in"
      const ag_u32x2 qf1 = {qv[1][7][0], qv[1][7][1]};
#line 667 "templates/gfx942/attn_fwd.hip.in"
      ag_mfma_16x16x16_bf16(s[1][0], ka, qf1);
#line 670 "templates/gfx942/attn_fwd.hip.in"
    }
#line 660 "templates/gfx942/attn_fwd.hip.in"
    {
      const ag_u32x2 ka = {kf[0][2], kf[0][3]};
#line 663 "templates/gfx942/attn_fwd.hip.in"
      const ag_u32x2 qf0 = {qv[0][7][2], qv[0][7][3]};
#line 667 "templates/gfx942/attn_fwd.hip.in"
      ag_mfma_16x16x16_bf16(s[0][0], ka, qf0);
#line 663 "templates/gfx942/attn_fwd.hip.in"
      const ag_u32x2 qf1 = {qv[1][7][2], qv[1][7][3]};
#line 667 "templates/gfx942/attn_fwd.hip.in"
      ag_mfma_16x16x16_bf16(s[1][0], ka, qf1);
#line 670 "templates/gfx942/attn_fwd.hip.in"
    }
#line 658 "templates/gfx942/attn_fwd.hip.in"
    ag_s_waitcnt_lgkmcnt<0>(kf[1]);
#line 660 "templates/gfx942/attn_fwd.hip.in"
    {
      const ag_u32x2 ka = {kf[1][0], kf[1][1]};
#line 663 "templates/gfx942/attn_fwd.hip.in"
      const ag_u32x2 qf0 = {qv[0][7][0], qv[0][7][1]};
#line 667 "templates/gfx942/attn_fwd.hip.in"
      ag_mfma_16x16x16_bf16(s[0][1], ka, qf0);
#line 663 "templates/gfx942/attn_fwd.hip.in"
      const ag_u32x2 qf1 = {qv[1][7][0], qv[1][7][1]};
#line 667 "templates/gfx942/attn_fwd.hip.in"
      ag_mfma_16x16x16_bf16(s[1][1], ka, qf1);
#line 670 "templates/gfx942/attn_fwd.hip.in"
    }
#line 660 "templates/gfx942/attn_fwd.hip.in"
    {
      const ag_u32x2 ka = {kf[1][2], kf[1][3]};
#line 663 "templates/gfx942/attn_fwd.hip.in"
      const ag_u32x2 qf0 = {qv[0][7][2], qv[0][7][3]};
#line 667 "templates/gfx942/attn_fwd.hip.in"
      ag_mfma_16x16x16_bf16(s[0][1], ka, qf0);
#line 663 "templates/gfx942/attn_fwd.hip.in"
      const ag_u32x2 qf1 = {qv[1][7][2], qv[1][7][3]};
#line 667 "templates/gfx942/attn_fwd.hip.in"
      ag_mfma_16x16x16_bf16(s[1][1], ka, qf1);
#line 670 "templates/gfx942/attn_fwd.hip.in"
    }
#line 674 "templates/gfx942/attn_fwd.hip.in"
  }
#line 939 "templates/gfx942/attn_fwd.hip.in"
    ag_s_setprio<0>();
    ag_mfma_drain(s[0][0], s[0][1], s[1][0], s[1][1], o[0][0], o[0][1], o[0][2], o[0][3], o[0][4], o[0][5], o[0][6], o[0][7], o[0][8], o[0][9], o[0][10], o[0][11], o[0][12], o[0][13], o[0][14], o[0][15], o[1][0], o[1][1], o[1][2], o[1][3], o[1][4], o[1][5], o[1][6], o[1][7], o[1][8], o[1][9], o[1][10], o[1][11], o[1][12], o[1][13], o[1][14], o[1][15]);
    ag_s_barrier();
    // ---- Y_j: softmax phase
    if (grp == 1u) {  // K_{j+2} into this buffer (everyone is done with K_j)
#line 472 "templates/gfx942/attn_fwd.hip.in"
  ag_buffer_load_dword_lds(k_rsrc, k_dma_off + (kn2 * 32u + wave + 0u) * kv_rs,
                           lds + buf + (wave + 0u) * 528u);
#line 472 "templates/gfx942/attn_fwd.hip.in"
  ag_buffer_load_dword_lds(k_rsrc, k_dma_off + (kn2 * 32u + wave + 0u) * kv_rs + 256u,
                           lds + buf + (wave + 0u) * 528u + 256u);
#line 472 "templates/gfx942/attn_fwd.hip.in"
  ag_buffer_load_dword_lds(k_rsrc, k_dma_off + (kn2 * 32u + wave + 8u) * kv_rs,
                           lds + buf + (wave + 8u) * 528u);
#line 472 "templates/gfx942/attn_fwd.hip.in"
  ag_buffer_load_dword_lds(k_rsrc, k_dma_off + (kn2 * 32u + wave + 8u) * kv_rs + 256u,
                           lds + buf + (wave + 8u) * 528u + 256u);
#line 472 "templates/gfx942/attn_fwd.hip.in"
  ag_buffer_load_dword_lds(k_rsrc, k_dma_off + (kn2 * 32u + wave + 16u) * kv_rs,
                           lds + buf + (wave + 16u) * 528u);
#line 472 "templates/gfx942/attn_fwd.hip.in"
  ag_buffer_load_dword_lds(k_rsrc, k_dma_off + (kn2 * 32u + wave + 16u) * kv_rs + 256u,
                           lds + buf + (wave + 16u) * 528u + 256u);
#line 472 "templates/gfx942/attn_fwd.hip.in"
  ag_buffer_load_dword_lds(k_rsrc, k_dma_off + (kn2 * 32u + wave + 24u) * kv_rs,
                           lds + buf + (wave + 24u) * 528u);
#line 472 "templates/gfx942/attn_fwd.hip.in"
  ag_buffer_load_dword_lds(k_rsrc, k_dma_off + (kn2 * 32u + wave + 24u) * kv_rs + 256u,
                           lds + buf + (wave + 24u) * 528u + 256u);
#line 945 "templates/gfx942/attn_fwd.hip.in"
    }
#line 697 "templates/gfx942/attn_fwd.hip.in"
  {
#line 699 "templates/gfx942/attn_fwd.hip.in"
    const unsigned kv0 = kc * 32u;  // the walk's tile j
#line 703 "templates/gfx942/attn_fwd.hip.in"
    const bool tail = kv0 + 32u > kv_end;
    if (tail) {  // last, partial tile: keys >= kv_end do not exist
      // With a zero scale the scores become t = s * 0 (0, or NaN for an infinite s) before
      // the keys past kv_end are set to -inf (fma(-inf, 0, -m) = NaN made every row NaN); the
      // slow path below then takes x = fma(t, 1, -m) = -m = fma(s, 0, -m) for the others.
      if (sc == 0.0f) {
#line 712 "templates/gfx942/attn_fwd.hip.in"
        s[0][0][0] *= sc;
#line 712 "templates/gfx942/attn_fwd.hip.in"
        s[0][0][1] *= sc;
#line 712 "templates/gfx942/attn_fwd.hip.in"
        s[0][0][2] *= sc;
#line 712 "templates/gfx942/attn_fwd.hip.in"
        s[0][0][3] *= sc;
#line 712 "templates/gfx942/attn_fwd.hip.in"
        s[0][1][0] *= sc;
#line 712 "templates/gfx942/attn_fwd.hip.in"
        s[0][1][1] *= sc;
#line 712 "templates/gfx942/attn_fwd.hip.in"
        s[0][1][2] *= sc;
#line 712 "templates/gfx942/attn_fwd.hip.in"
        s[0][1][3] *= sc;
#line 712 "templates/gfx942/attn_fwd.hip.in"
        s[1][0][0] *= sc;
#line 712 "templates/gfx942/attn_fwd.hip.in"
        s[1][0][1] *= sc;
#line 712 "templates/gfx942/attn_fwd.hip.in"
        s[1][0][2] *= sc;
#line 712 "templates/gfx942/attn_fwd.hip.in"
        s[1][0][3] *= sc;
#line 712 "templates/gfx942/attn_fwd.hip.in"
        s[1][1][0] *= sc;
#line 712 "templates/gfx942/attn_fwd.hip.in"
        s[1][1][1] *= sc;
#line 712 "templates/gfx942/attn_fwd.hip.in"
        s[1][1][2] *= sc;
#line 712 "templates/gfx942/attn_fwd.hip.in"
        s[1][1][3] *= sc;
#line 716 "templates/gfx942/attn_fwd.hip.in"
      }
      // g recomputed here: the kernel's g, kept live across the loop for this rare block,
      // made clang-17 (hipcc/hiprtc 5.7) spill a VGPR in rtna tail (tests/test_rocm.c)
      const unsigned g_tail = ag_lane_id_here() >> 4;
#line 722 "templates/gfx942/attn_fwd.hip.in"
      const bool valid0_0 = kv0 + 0u + 4u * g_tail < kv_end;
#line 724 "templates/gfx942/attn_fwd.hip.in"
      s[0][0][0] = valid0_0 ? s[0][0][0] : -__builtin_inff();
#line 724 "templates/gfx942/attn_fwd.hip.in"
      s[1][0][0] = valid0_0 ? s[1][0][0] : -__builtin_inff();
#line 722 "templates/gfx942/attn_fwd.hip.in"
      const bool valid0_1 = kv0 + 1u + 4u * g_tail < kv_end;
#line 724 "templates/gfx942/attn_fwd.hip.in"
      s[0][0][1] = valid0_1 ? s[0][0][1] : -__builtin_inff();
#line 724 "templates/gfx942/attn_fwd.hip.in"
      s[1][0][1] = valid0_1 ? s[1][0][1] : -__builtin_inff();
#line 722 "templates/gfx942/attn_fwd.hip.in"
      const bool valid0_2 = kv0 + 2u + 4u * g_tail < kv_end;
#line 724 "templates/gfx942/attn_fwd.hip.in"
      s[0][0][2] = valid0_2 ? s[0][0][2] : -__builtin_inff();
#line 724 "templates/gfx942/attn_fwd.hip.in"
      s[1][0][2] = valid0_2 ? s[1][0][2] : -__builtin_inff();
#line 722 "templates/gfx942/attn_fwd.hip.in"
      const bool valid0_3 = kv0 + 3u + 4u * g_tail < kv_end;
#line 724 "templates/gfx942/attn_fwd.hip.in"
      s[0][0][3] = valid0_3 ? s[0][0][3] : -__builtin_inff();
#line 724 "templates/gfx942/attn_fwd.hip.in"
      s[1][0][3] = valid0_3 ? s[1][0][3] : -__builtin_inff();
#line 722 "templates/gfx942/attn_fwd.hip.in"
      const bool valid1_0 = kv0 + 16u + 4u * g_tail < kv_end;
#line 724 "templates/gfx942/attn_fwd.hip.in"
      s[0][1][0] = valid1_0 ? s[0][1][0] : -__builtin_inff();
#line 724 "templates/gfx942/attn_fwd.hip.in"
      s[1][1][0] = valid1_0 ? s[1][1][0] : -__builtin_inff();
#line 722 "templates/gfx942/attn_fwd.hip.in"
      const bool valid1_1 = kv0 + 17u + 4u * g_tail < kv_end;
#line 724 "templates/gfx942/attn_fwd.hip.in"
      s[0][1][1] = valid1_1 ? s[0][1][1] : -__builtin_inff();
#line 724 "templates/gfx942/attn_fwd.hip.in"
      s[1][1][1] = valid1_1 ? s[1][1][1] : -__builtin_inff();
#line 722 "templates/gfx942/attn_fwd.hip.in"
      const bool valid1_2 = kv0 + 18u + 4u * g_tail < kv_end;
#line 724 "templates/gfx942/attn_fwd.hip.in"
      s[0][1][2] = valid1_2 ? s[0][1][2] : -__builtin_inff();
#line 724 "templates/gfx942/attn_fwd.hip.in"
      s[1][1][2] = valid1_2 ? s[1][1][2] : -__builtin_inff();
#line 722 "templates/gfx942/attn_fwd.hip.in"
      const bool valid1_3 = kv0 + 19u + 4u * g_tail < kv_end;
#line 724 "templates/gfx942/attn_fwd.hip.in"
      s[0][1][3] = valid1_3 ? s[0][1][3] : -__builtin_inff();
#line 724 "templates/gfx942/attn_fwd.hip.in"
      s[1][1][3] = valid1_3 ? s[1][1][3] : -__builtin_inff();
#line 728 "templates/gfx942/attn_fwd.hip.in"
    }
#line 760 "templates/gfx942/attn_fwd.hip.in"
    bool changed[2];
    float alpha[2];
#line 763 "templates/gfx942/attn_fwd.hip.in"
    float tmx[2];  // this lane's max t over its keys of the tile, per Q tile (the verdict)
#line 768 "templates/gfx942/attn_fwd.hip.in"
    {
      float mx = s[0][0][0];
#line 773 "templates/gfx942/attn_fwd.hip.in"
      mx = ag_max_f32(mx, s[0][0][1]);
#line 773 "templates/gfx942/attn_fwd.hip.in"
      mx = ag_max_f32(mx, s[0][0][2]);
#line 773 "templates/gfx942/attn_fwd.hip.in"
      mx = ag_max_f32(mx, s[0][0][3]);
#line 773 "templates/gfx942/attn_fwd.hip.in"
      mx = ag_max_f32(mx, s[0][1][0]);
#line 773 "templates/gfx942/attn_fwd.hip.in"
      mx = ag_max_f32(mx, s[0][1][1]);
#line 773 "templates/gfx942/attn_fwd.hip.in"
      mx = ag_max_f32(mx, s[0][1][2]);
#line 773 "templates/gfx942/attn_fwd.hip.in"
      mx = ag_max_f32(mx, s[0][1][3]);
#line 777 "templates/gfx942/attn_fwd.hip.in"
      const float mt = mx * sc;  // this lane's max of t = s * sc (exact: see above)
#line 779 "templates/gfx942/attn_fwd.hip.in"
      tmx[0] = mt;
#line 781 "templates/gfx942/attn_fwd.hip.in"
      changed[0] = ag_any(mt > m[0]);
      alpha[0] = 1.0f;
      if (changed[0]) {  // some row's max may rise: row max across the 4 lanes of each row
        unsigned xr;
        ag_ds_swizzle_b32<0x401F>(xr, ag_f32_bits(mt));  // lane ^ 16
        ag_s_waitcnt_lgkmcnt<0>(xr);
        const float m2 = ag_max_f32(mt, ag_bits_f32(xr));
        // the lane id recomputed here (rare path) rather than kept in a VGPR across the loop
        ag_ds_bpermute_b32(xr, (ag_lane_id_here() ^ 32u) << 2, ag_f32_bits(m2));  // lane ^ 32
        ag_s_waitcnt_lgkmcnt<0>(xr);
        const float mnew = ag_max_f32(m[0], ag_max_f32(m2, ag_bits_f32(xr)));
        // as the reference: rescale only where the max rose (a row still at -inf keeps l)
        alpha[0] = mnew > m[0] ? ag_v_exp_f32(m[0] - mnew) : 1.0f;
        m[0] = mnew;
        l[0] *= alpha[0];
        big_m = ag_any(!(__builtin_fabsf(m[0]) < 0x1p24f) || !(__builtin_fabsf(m[1]) < 0x1p24f));
      }
    }
#line 768 "templates/gfx942/attn_fwd.hip.in"
    {
      float mx = s[1][0][0];
#line 773 "templates/gfx942/attn_fwd.hip.in"
      mx = ag_max_f32(mx, s[1][0][1]);
#line 773 "templates/gfx942/attn_fwd.hip.in"
      mx = ag_max_f32(mx, s[1][0][2]);
#line 773 "templates/gfx942/attn_fwd.hip.in"
      mx = ag_max_f32(mx, s[1][0][3]);
#line 773 "templates/gfx942/attn_fwd.hip.in"
      mx = ag_max_f32(mx, s[1][1][0]);
#line 773 "templates/gfx942/attn_fwd.hip.in"
      mx = ag_max_f32(mx, s[1][1][1]);
#line 773 "templates/gfx942/attn_fwd.hip.in"
      mx = ag_max_f32(mx, s[1][1][2]);
#line 773 "templates/gfx942/attn_fwd.hip.in"
      mx = ag_max_f32(mx, s[1][1][3]);
#line 777 "templates/gfx942/attn_fwd.hip.in"
      const float mt = mx * sc;  // this lane's max of t = s * sc (exact: see above)
#line 779 "templates/gfx942/attn_fwd.hip.in"
      tmx[1] = mt;
#line 781 "templates/gfx942/attn_fwd.hip.in"
      changed[1] = ag_any(mt > m[1]);
      alpha[1] = 1.0f;
      if (changed[1]) {  // some row's max may rise: row max across the 4 lanes of each row
        unsigned xr;
        ag_ds_swizzle_b32<0x401F>(xr, ag_f32_bits(mt));  // lane ^ 16
        ag_s_waitcnt_lgkmcnt<0>(xr);
        const float m2 = ag_max_f32(mt, ag_bits_f32(xr));
        // the lane id recomputed here (rare path) rather than kept in a VGPR across the loop
        ag_ds_bpermute_b32(xr, (ag_lane_id_here() ^ 32u) << 2, ag_f32_bits(m2));  // lane ^ 32
        ag_s_waitcnt_lgkmcnt<0>(xr);
        const float mnew = ag_max_f32(m[1], ag_max_f32(m2, ag_bits_f32(xr)));
        // as the reference: rescale only where the max rose (a row still at -inf keeps l)
        alpha[1] = mnew > m[1] ? ag_v_exp_f32(m[1] - mnew) : 1.0f;
        m[1] = mnew;
        l[1] *= alpha[1];
        big_m = ag_any(!(__builtin_fabsf(m[0]) < 0x1p24f) || !(__builtin_fabsf(m[1]) < 0x1p24f));
      }
    }
#line 801 "templates/gfx942/attn_fwd.hip.in"
    // The verdict of tile kc (NUMERICS.md "Tile skipping"): a lane of a row below Sq vetoes
    // when the max t of its keys (max(t, -inf): a NaN score does not count) is not below the
    // row's running max m + T (now m after this tile); a row's max over the tile is below
    // m + T iff each of its 4 lanes' is. A veto of the wave sets bit kc of the uniform word
    // vw (list word vwi; flushed into mk when the walk leaves the word). Past the compares
    // scalar work only: ballots, and in the last q-block the lanes of the rows below Sq as a
    // mask made in SGPRs (lane l holds row (l & 15) + 16 qt), no per-lane row test (6 VALU).
    {
      unsigned long long vb[2];  // the lanes that veto, per Q tile
#line 811 "templates/gfx942/attn_fwd.hip.in"
      vb[0] = ag_ballot(!(ag_max_f32(tmx[0], -__builtin_inff()) - m[0] < skip_t));
      if (wrows < 16u) {  // r: bit c for the rows c + 0 below wrows (c < 16)
        const unsigned long long r = (1ull << (wrows > 0u ? wrows - 0u : 0u)) - 1ull;
        vb[0] &= (r | r << 16) | (r | r << 16) << 32;  // the 4 lane groups g of row c
      }
#line 811 "templates/gfx942/attn_fwd.hip.in"
      vb[1] = ag_ballot(!(ag_max_f32(tmx[1], -__builtin_inff()) - m[1] < skip_t));
      if (wrows < 32u) {  // r: bit c for the rows c + 16 below wrows (c < 16)
        const unsigned long long r = (1ull << (wrows > 16u ? wrows - 16u : 0u)) - 1ull;
        vb[1] &= (r | r << 16) | (r | r << 16) << 32;  // the 4 lane groups g of row c
      }
#line 817 "templates/gfx942/attn_fwd.hip.in"
      if ((vb[0] | vb[1]) != 0ull) {
        if ((kc >> 5) != vwi) {
#line 482 "templates/gfx942/attn_fwd.hip.in"
          mk &= ag_lane_id_here() == vwi ? ~vw : ~0u;
#line 820 "templates/gfx942/attn_fwd.hip.in"
          vw = 0u;
          vwi = kc >> 5;
        }
        vw |= 1u << (kc & 31u);
      }
    }
#line 827 "templates/gfx942/attn_fwd.hip.in"
    // Slow path (wave-uniform, never the steady state): rows with |m| >= 2^24 take
    // x = fl(s * sc) - m (there fl(max s * sc) = m may be more than 1/2 off the exact product,
    // and the fma form's x at the row's max, that error, made p = +Inf: scale 1e10 gave NaN
    // rows), and a zero scale in the last tile takes x = fma(t, 1, -m) (see above).
#line 835 "templates/gfx942/attn_fwd.hip.in"
    const bool zero_tail = tail && sc == 0.0f;
    if (big_m || zero_tail) {
#line 839 "templates/gfx942/attn_fwd.hip.in"
    {
#line 844 "templates/gfx942/attn_fwd.hip.in"
      const float nm = -m[0];
#line 846 "templates/gfx942/attn_fwd.hip.in"
      const bool big = !(__builtin_fabsf(m[0]) < 0x1p24f) && !zero_tail;
      if (big) {  // s -> t = fl(s * sc): x = fma(t, 1, -m) = t - m
#line 850 "templates/gfx942/attn_fwd.hip.in"
        s[0][0][0] *= sc;
#line 850 "templates/gfx942/attn_fwd.hip.in"
        s[0][0][1] *= sc;
#line 850 "templates/gfx942/attn_fwd.hip.in"
        s[0][0][2] *= sc;
#line 850 "templates/gfx942/attn_fwd.hip.in"
        s[0][0][3] *= sc;
#line 850 "templates/gfx942/attn_fwd.hip.in"
        s[0][1][0] *= sc;
#line 850 "templates/gfx942/attn_fwd.hip.in"
        s[0][1][1] *= sc;
#line 850 "templates/gfx942/attn_fwd.hip.in"
        s[0][1][2] *= sc;
#line 850 "templates/gfx942/attn_fwd.hip.in"
        s[0][1][3] *= sc;
#line 853 "templates/gfx942/attn_fwd.hip.in"
      }
      const float scr = big || zero_tail ? 1.0f : sc;
#line 856 "templates/gfx942/attn_fwd.hip.in"
      {
        const float p0 = ag_v_exp_f32(ag_fma_f32(s[0][0][0], scr, nm));
        const float p1 = ag_v_exp_f32(ag_fma_f32(s[0][0][1], scr, nm));
        const float p2 = ag_v_exp_f32(ag_fma_f32(s[0][0][2], scr, nm));
        const float p3 = ag_v_exp_f32(ag_fma_f32(s[0][0][3], scr, nm));
        // l sums the unrounded p; P only feeds the P V MFMA, so it needs no NaN guard (p is
        // in [0, 2) or NaN, and a NaN p makes l, hence the whole output row, NaN: see
        // ag_pack_p_* in wrappers.h)
        l[0] += (p0 + p1) + (p2 + p3);
        p[0][0].x = ag_pack_p_rtne(p0, p1);
        p[0][0].y = ag_pack_p_rtne(p2, p3);
      }
#line 856 "templates/gfx942/attn_fwd.hip.in"
      {
        const float p0 = ag_v_exp_f32(ag_fma_f32(s[0][1][0], scr, nm));
        const float p1 = ag_v_exp_f32(ag_fma_f32(s[0][1][1], scr, nm));
        const float p2 = ag_v_exp_f32(ag_fma_f32(s[0][1][2], scr, nm));
        const float p3 = ag_v_exp_f32(ag_fma_f32(s[0][1][3], scr, nm));
        // l sums the unrounded p; P only feeds the P V MFMA, so it needs no NaN guard (p is
        // in [0, 2) or NaN, and a NaN p makes l, hence the whole output row, NaN: see
        // ag_pack_p_* in wrappers.h)
        l[0] += (p0 + p1) + (p2 + p3);
        p[0][1].x = ag_pack_p_rtne(p0, p1);
        p[0][1].y = ag_pack_p_rtne(p2, p3);
      }
#line 869 "templates/gfx942/attn_fwd.hip.in"
    }
#line 839 "templates/gfx942/attn_fwd.hip.in"
    {
#line 844 "templates/gfx942/attn_fwd.hip.in"
      const float nm = -m[1];
#line 846 "templates/gfx942/attn_fwd.hip.in"
      const bool big = !(__builtin_fabsf(m[1]) < 0x1p24f) && !zero_tail;
      if (big) {  // s -> t = fl(s * sc): x = fma(t, 1, -m) = t - m
#line 850 "templates/gfx942/attn_fwd.hip.in"
        s[1][0][0] *= sc;
#line 850 "templates/gfx942/attn_fwd.hip.in"
        s[1][0][1] *= sc;
#line 850 "templates/gfx942/attn_fwd.hip.in"
        s[1][0][2] *= sc;
#line 850 "templates/gfx942/attn_fwd.hip.in"
        s[1][0][3] *= sc;
#line 850 "templates/gfx942/attn_fwd.hip.in"
        s[1][1][0] *= sc;
#line 850 "templates/gfx942/attn_fwd.hip.in"
        s[1][1][1] *= sc;
#line 850 "templates/gfx942/attn_fwd.hip.in"
        s[1][1][2] *= sc;
#line 850 "templates/gfx942/attn_fwd.hip.in"
        s[1][1][3] *= sc;
#line 853 "templates/gfx942/attn_fwd.hip.in"
      }
      const float scr = big || zero_tail ? 1.0f : sc;
#line 856 "templates/gfx942/attn_fwd.hip.in"
      {
        const float p0 = ag_v_exp_f32(ag_fma_f32(s[1][0][0], scr, nm));
        const float p1 = ag_v_exp_f32(ag_fma_f32(s[1][0][1], scr, nm));
        const float p2 = ag_v_exp_f32(ag_fma_f32(s[1][0][2], scr, nm));
        const float p3 = ag_v_exp_f32(ag_fma_f32(s[1][0][3], scr, nm));
        // l sums the unrounded p; P only feeds the P V MFMA, so it needs no NaN guard (p is
        // in [0, 2) or NaN, and a NaN p makes l, hence the whole output row, NaN: see
        // ag_pack_p_* in wrappers.h)
        l[1] += (p0 + p1) + (p2 + p3);
        p[1][0].x = ag_pack_p_rtne(p0, p1);
        p[1][0].y = ag_pack_p_rtne(p2, p3);
      }
#line 856 "templates/gfx942/attn_fwd.hip.in"
      {
        const float p0 = ag_v_exp_f32(ag_fma_f32(s[1][1][0], scr, nm));
        const float p1 = ag_v_exp_f32(ag_fma_f32(s[1][1][1], scr, nm));
        const float p2 = ag_v_exp_f32(ag_fma_f32(s[1][1][2], scr, nm));
        const float p3 = ag_v_exp_f32(ag_fma_f32(s[1][1][3], scr, nm));
        // l sums the unrounded p; P only feeds the P V MFMA, so it needs no NaN guard (p is
        // in [0, 2) or NaN, and a NaN p makes l, hence the whole output row, NaN: see
        // ag_pack_p_* in wrappers.h)
        l[1] += (p0 + p1) + (p2 + p3);
        p[1][1].x = ag_pack_p_rtne(p0, p1);
        p[1][1].y = ag_pack_p_rtne(p2, p3);
      }
#line 869 "templates/gfx942/attn_fwd.hip.in"
    }
#line 871 "templates/gfx942/attn_fwd.hip.in"
    } else {
#line 873 "templates/gfx942/attn_fwd.hip.in"
    {
      const float nm = -m[0];
#line 876 "templates/gfx942/attn_fwd.hip.in"
      {
        const float p0 = ag_v_exp_f32(ag_fma_f32(s[0][0][0], sc, nm));
        const float p1 = ag_v_exp_f32(ag_fma_f32(s[0][0][1], sc, nm));
        const float p2 = ag_v_exp_f32(ag_fma_f32(s[0][0][2], sc, nm));
        const float p3 = ag_v_exp_f32(ag_fma_f32(s[0][0][3], sc, nm));
        // l sums the unrounded p; P only feeds the P V MFMA, so it needs no NaN guard (p is
        // in [0, 2) or NaN, and a NaN p makes l, hence the whole output row, NaN: see
        // ag_pack_p_* in wrappers.h)
        l[0] += (p0 + p1) + (p2 + p3);
        p[0][0].x = ag_pack_p_rtne(p0, p1);
        p[0][0].y = ag_pack_p_rtne(p2, p3);
      }
#line 876 "templates/gfx942/attn_fwd.hip.in"
      {
        const float p0 = ag_v_exp_f32(ag_fma_f32(s[0][1][0], sc, nm));
        const float p1 = ag_v_exp_f32(ag_fma_f32(s[0][1][1], sc, nm));
        const float p2 = ag_v_exp_f32(ag_fma_f32(s[0][1][2], sc, nm));
        const float p3 = ag_v_exp_f32(ag_fma_f32(s[0][1][3], sc, nm));
        // l sums the unrounded p; P only feeds the P V MFMA, so it needs no NaN guard (p is
        // in [0, 2) or NaN, and a NaN p makes l, hence the whole output row, NaN: see
        // ag_pack_p_* in wrappers.h)
        l[0] += (p0 + p1) + (p2 + p3);
        p[0][1].x = ag_pack_p_rtne(p0, p1);
        p[0][1].y = ag_pack_p_rtne(p2, p3);
      }
#line 889 "templates/gfx942/attn_fwd.hip.in"
    }
#line 873 "templates/gfx942/attn_fwd.hip.in"
    {
      const float nm = -m[1];
#line 876 "templates/gfx942/attn_fwd.hip.in"
      {
        const float p0 = ag_v_exp_f32(ag_fma_f32(s[1][0][0], sc, nm));
        const float p1 = ag_v_exp_f32(ag_fma_f32(s[1][0][1], sc, nm));
        const float p2 = ag_v_exp_f32(ag_fma_f32(s[1][0][2], sc, nm));
        const float p3 = ag_v_exp_f32(ag_fma_f32(s[1][0][3], sc, nm));
        // l sums the unrounded p; P only feeds the P V MFMA, so it needs no NaN guard (p is
        // in [0, 2) or NaN, and a NaN p makes l, hence the whole output row, NaN: see
        // ag_pack_p_* in wrappers.h)
        l[1] += (p0 + p1) + (p2 + p3);
        p[1][0].x = ag_pack_p_rtne(p0, p1);
        p[1][0].y = ag_pack_p_rtne(p2, p3);
      }
#line 876 "templates/gfx942/attn_fwd.hip.in"
      {
        const float p0 = ag_v_exp_f32(ag_fma_f32(s[1][1][0], sc, nm));
        const float p1 = ag_v_exp_f32(ag_fma_f32(s[1][1][1], sc, nm));
        const float p2 = ag_v_exp_f32(ag_fma_f32(s[1][1][2], sc, nm));
        const float p3 = ag_v_exp_f32(ag_fma_f32(s[1][1][3], sc, nm));
        // l sums the unrounded p; P only feeds the P V MFMA, so it needs no NaN guard (p is
        // in [0, 2) or NaN, and a NaN p makes l, hence the whole output row, NaN: see
        // ag_pack_p_* in wrappers.h)
        l[1] += (p0 + p1) + (p2 + p3);
        p[1][1].x = ag_pack_p_rtne(p0, p1);
        p[1][1].y = ag_pack_p_rtne(p2, p3);
      }
#line 889 "templates/gfx942/attn_fwd.hip.in"
    }
#line 891 "templates/gfx942/attn_fwd.hip.in"
    }
    // V_j for the P_j V_j product of the next X phase (S is dead now: registers are free)
#line 581 "templates/gfx942/attn_fwd.hip.in"
    ag_buffer_load_dwordx4<0>(vv[0], v_rsrc, v_lane + (kv0 + 0u) * 512u);
#line 581 "templates/gfx942/attn_fwd.hip.in"
    ag_buffer_load_dwordx4<1024>(vv[1], v_rsrc, v_lane + (kv0 + 0u) * 512u);
#line 581 "templates/gfx942/attn_fwd.hip.in"
    ag_buffer_load_dwordx4<2048>(vv[2], v_rsrc, v_lane + (kv0 + 0u) * 512u);
#line 581 "templates/gfx942/attn_fwd.hip.in"
    ag_buffer_load_dwordx4<3072>(vv[3], v_rsrc, v_lane + (kv0 + 0u) * 512u);
#line 581 "templates/gfx942/attn_fwd.hip.in"
    ag_buffer_load_dwordx4<0>(vv[4], v_rsrc, v_lane + (kv0 + 0u) * 512u + 4096u);
#line 581 "templates/gfx942/attn_fwd.hip.in"
    ag_buffer_load_dwordx4<1024>(vv[5], v_rsrc, v_lane + (kv0 + 0u) * 512u + 4096u);
#line 581 "templates/gfx942/attn_fwd.hip.in"
    ag_buffer_load_dwordx4<2048>(vv[6], v_rsrc, v_lane + (kv0 + 0u) * 512u + 4096u);
#line 581 "templates/gfx942/attn_fwd.hip.in"
    ag_buffer_load_dwordx4<3072>(vv[7], v_rsrc, v_lane + (kv0 + 0u) * 512u + 4096u);
#line 900 "templates/gfx942/attn_fwd.hip.in"
    // O rows are 4g + i in the accumulator layout: fetch their alpha from lane 4g + i.
#line 902 "templates/gfx942/attn_fwd.hip.in"
    if (changed[0]) {
      unsigned ar[4];
      const unsigned g4 = (ag_lane_id_here() >> 4) << 4;  // (4g) << 2
#line 906 "templates/gfx942/attn_fwd.hip.in"
      ag_ds_bpermute_b32(ar[0], g4 + 0u, ag_f32_bits(alpha[0]));
#line 906 "templates/gfx942/attn_fwd.hip.in"
      ag_ds_bpermute_b32(ar[1], g4 + 4u, ag_f32_bits(alpha[0]));
#line 906 "templates/gfx942/attn_fwd.hip.in"
      ag_ds_bpermute_b32(ar[2], g4 + 8u, ag_f32_bits(alpha[0]));
#line 906 "templates/gfx942/attn_fwd.hip.in"
      ag_ds_bpermute_b32(ar[3], g4 + 12u, ag_f32_bits(alpha[0]));
#line 908 "templates/gfx942/attn_fwd.hip.in"
      ag_s_waitcnt_lgkmcnt<0>(ar[0], ar[1], ar[2], ar[3]);
#line 911 "templates/gfx942/attn_fwd.hip.in"
      o[0][0][0] *= ag_bits_f32(ar[0]);
#line 911 "templates/gfx942/attn_fwd.hip.in"
      o[0][0][1] *= ag_bits_f32(ar[1]);
#line 911 "templates/gfx942/attn_fwd.hip.in"
      o[0][0][2] *= ag_bits_f32(ar[2]);
#line 911 "templates/gfx942/attn_fwd.hip.in"
      o[0][0][3] *= ag_bits_f32(ar[3]);
#line 911 "templates/gfx942/attn_fwd.hip.in"
      o[0][1][0] *= ag_bits_f32(ar[0]);
#line 911 "templates/gfx942/attn_fwd.hip.in"
      o[0][1][1] *= ag_bits_f32(ar[1]);
#line 911 "templates/gfx942/attn_fwd.hip.in"
      o[0][1][2] *= ag_bits_f32(ar[2]);
#line 911 "templates/gfx942/attn_fwd.hip.in"
      o[0][1][3] *= ag_bits_f32(ar[3]);
#line 911 "templates/gfx942/attn_fwd.hip.in"
      o[0][2][0] *= ag_bits_f32(ar[0]);
#line 911 "templates/gfx942/attn_fwd.hip.in"
      o[0][2][1] *= ag_bits_f32(ar[1]);
#line 911 "templates/gfx942/attn_fwd.hip.in"
      o[0][2][2] *= ag_bits_f32(ar[2]);
#line 911 "templates/gfx942/attn_fwd.hip.in"
      o[0][2][3] *= ag_bits_f32(ar[3]);
#line 911 "templates/gfx942/attn_fwd.hip.in"
      o[0][3][0] *= ag_bits_f32(ar[0]);
#line 911 "templates/gfx942/attn_fwd.hip.in"
      o[0][3][1] *= ag_bits_f32(ar[1]);
#line 911 "templates/gfx942/attn_fwd.hip.in"
      o[0][3][2] *= ag_bits_f32(ar[2]);
#line 911 "templates/gfx942/attn_fwd.hip.in"
      o[0][3][3] *= ag_bits_f32(ar[3]);
#line 911 "templates/gfx942/attn_fwd.hip.in"
      o[0][4][0] *= ag_bits_f32(ar[0]);
#line 911 "templates/gfx942/attn_fwd.hip.in"
      o[0][4][1] *= ag_bits_f32(ar[1]);
#line 911 "templates/gfx942/attn_fwd.hip.in"
      o[0][4][2] *= ag_bits_f32(ar[2]);
#line 911 "templates/gfx942/attn_fwd.hip.in"
      o[0][4][3] *= ag_bits_f32(ar[3]);
#line 911 "templates/gfx942/attn_fwd.hip.in"
      o[0][5][0] *= ag_bits_f32(ar[0]);
#line 911 "templates/gfx942/attn_fwd.hip.in"
      o[0][5][1] *= ag_bits_f32(ar[1]);
#line 911 "templates/gfx942/attn_fwd.hip.in"
      o[0][5][2] *= ag_bits_f32(ar[2]);
#line 911 "templates/gfx942/attn_fwd.hip.in"
      o[0][5][3] *= ag_bits_f32(ar[3]);
#line 911 "templates/gfx942/attn_fwd.hip.in"
      o[0][6][0] *= ag_bits_f32(ar[0]);
#line 911 "templates/gfx942/attn_fwd.hip.in"
      o[0][6][1] *= ag_bits_f32(ar[1]);
#line 911 "templates/gfx942/attn_fwd.hip.in"
      o[0][6][2] *= ag_bits_f32(ar[2]);
#line 911 "templates/gfx942/attn_fwd.hip.in"
      o[0][6][3] *= ag_bits_f32(ar[3]);
#line 911 "templates/gfx942/attn_fwd.hip.in"
      o[0][7][0] *= ag_bits_f32(ar[0]);
#line 911 "templates/gfx942/attn_fwd.hip.in"
      o[0][7][1] *= ag_bits_f32(ar[1]);
#line 911 "templates/gfx942/attn_fwd.hip.in"
      o[0][7][2] *= ag_bits_f32(ar[2]);
#line 911 "templates/gfx942/attn_fwd.hip.in"
      o[0][7][3] *= ag_bits_f32(ar[3]);
#line 911 "templates/gfx942/attn_fwd.hip.in"
      o[0][8][0] *= ag_bits_f32(ar[0]);
#line 911 "templates/gfx942/attn_fwd.hip.in"
      o[0][8][1] *= ag_bits_f32(ar[1]);
#line 911 "templates/gfx942/attn_fwd.hip.in"
      o[0][8][2] *= ag_bits_f32(ar[2]);
#line 911 "templates/gfx942/attn_fwd.hip.in"
      o[0][8][3] *= ag_bits_f32(ar[3]);
#line 911 "templates/gfx942/attn_fwd.hip.in"
      o[0][9][0] *= ag_bits_f32(ar[0]);
#line 911 "templates/gfx942/attn_fwd.hip.in"
      o[0][9][1] *= ag_bits_f32(ar[1]);
#line 911 "templates/gfx942/attn_fwd.hip.in"
      o[0][9][2] *= ag_bits_f32(ar[2]);
#line 911 "templates/gfx942/attn_fwd.hip.in"
      o[0][9][3] *= ag_bits_f32(ar[3]);
#line 911 "templates/gfx942/attn_fwd.hip.in"
      o[0][10][0] *= ag_bits_f32(ar[0]);
#line 911 "templates/gfx942/attn_fwd.hip.in"
      o[0][10][1] *= ag_bits_f32(ar[1]);
#line 911 "templates/gfx942/attn_fwd.hip.in"
      o[0][10][2] *= ag_bits_f32(ar[2]);
#line 911 "templates/gfx942/attn_fwd.hip.in"
      o[0][10][3] *= ag_bits_f32(ar[3]);
#line 911 "templates/gfx942/attn_fwd.hip.in"
      o[0][11][0] *= ag_bits_f32(ar[0]);
#line 911 "templates/gfx942/attn_fwd.hip.in"
      o[0][11][1] *= ag_bits_f32(ar[1]);
#line 911 "templates/gfx942/attn_fwd.hip.in"
      o[0][11][2] *= ag_bits_f32(ar[2]);
#line 911 "templates/gfx942/attn_fwd.hip.in"
      o[0][11][3] *= ag_bits_f32(ar[3]);
#line 911 "templates/gfx942/attn_fwd.hip.in"
      o[0][12][0] *= ag_bits_f32(ar[0]);
#line 911 "templates/gfx942/attn_fwd.hip.in"
      o[0][12][1] *= ag_bits_f32(ar[1]);
#line 911 "templates/gfx942/attn_fwd.hip.in"
      o[0][12][2] *= ag_bits_f32(ar[2]);
#line 911 "templates/gfx942/attn_fwd.hip.in"
      o[0][12][3] *= ag_bits_f32(ar[3]);
#line 911 "templates/gfx942/attn_fwd.hip.in"
      o[0][13][0] *= ag_bits_f32(ar[0]);
#line 911 "templates/gfx942/attn_fwd.hip.in"
      o[0][13][1] *= ag_bits_f32(ar[1]);
#line 911 "templates/gfx942/attn_fwd.hip.in"
      o[0][13][2] *= ag_bits_f32(ar[2]);
#line 911 "templates/gfx942/attn_fwd.hip.in"
      o[0][13][3] *= ag_bits_f32(ar[3]);
#line 911 "templates/gfx942/attn_fwd.hip.in"
      o[0][14][0] *= ag_bits_f32(ar[0]);
#line 911 "templates/gfx942/attn_fwd.hip.in"
      o[0][14][1] *= ag_bits_f32(ar[1]);
#line 911 "templates/gfx942/attn_fwd.hip.in"
      o[0][14][2] *= ag_bits_f32(ar[2]);
#line 911 "templates/gfx942/attn_fwd.hip.in"
      o[0][14][3] *= ag_bits_f32(ar[3]);
#line 911 "templates/gfx942/attn_fwd.hip.in"
      o[0][15][0] *= ag_bits_f32(ar[0]);
#line 911 "templates/gfx942/attn_fwd.hip.in"
      o[0][15][1] *= ag_bits_f32(ar[1]);
#line 911 "templates/gfx942/attn_fwd.hip.in"
      o[0][15][2] *= ag_bits_f32(ar[2]);
#line 911 "templates/gfx942/attn_fwd.hip.in"
      o[0][15][3] *= ag_bits_f32(ar[3]);
#line 914 "templates/gfx942/attn_fwd.hip.in"
    }
#line 902 "templates/gfx942/attn_fwd.hip.in"
    if (changed[1]) {
      unsigned ar[4];
      const unsigned g4 = (ag_lane_id_here() >> 4) << 4;  // (4g) << 2
#line 906 "templates/gfx942/attn_fwd.hip.in"
      ag_ds_bpermute_b32(ar[0], g4 + 0u, ag_f32_bits(alpha[1]));
#line 906 "templates/gfx942/attn_fwd.hip.in"
      ag_ds_bpermute_b32(ar[1], g4 + 4u, ag_f32_bits(alpha[1]));
#line 906 "templates/gfx942/attn_fwd.hip.in"
      ag_ds_bpermute_b32(ar[2], g4 + 8u, ag_f32_bits(alpha[1]));
#line 906 "templates/gfx942/attn_fwd.hip.in"
      ag_ds_bpermute_b32(ar[3], g4 + 12u, ag_f32_bits(alpha[1]));
#line 908 "templates/gfx942/attn_fwd.hip.in"
      ag_s_waitcnt_lgkmcnt<0>(ar[0], ar[1], ar[2], ar[3]);
#line 911 "templates/gfx942/attn_fwd.hip.in"
      o[1][0][0] *= ag_bits_f32(ar[0]);
#line 911 "templates/gfx942/attn_fwd.hip.in"
      o[1][0][1] *= ag_bits_f32(ar[1]);
#line 911 "templates/gfx942/attn_fwd.hip.in"
      o[1][0][2] *= ag_bits_f32(ar[2]);
#line 911 "templates/gfx942/attn_fwd.hip.in"
      o[1][0][3] *= ag_bits_f32(ar[3]);
#line 911 "templates/gfx942/attn_fwd.hip.in"
      o[1][1][0] *= ag_bits_f32(ar[0]);
#line 911 "templates/gfx942/attn_fwd.hip.in"
      o[1][1][1] *= ag_bits_f32(ar[1]);
#line 911 "templates/gfx942/attn_fwd.hip.in"
      o[1][1][2] *= ag_bits_f32(ar[2]);
#line 911 "templates/gfx942/attn_fwd.hip.in"
      o[1][1][3] *= ag_bits_f32(ar[3]);
#line 911 "templates/gfx942/attn_fwd.hip.in"
      o[1][2][0] *= ag_bits_f32(ar[0]);
#line 911 "templates/gfx942/attn_fwd.hip.in"
      o[1][2][1] *= ag_bits_f32(ar[1]);
#line 911 "templates/gfx942/attn_fwd.hip.in"
      o[1][2][2] *= ag_bits_f32(ar[2]);
#line 911 "templates/gfx942/attn_fwd.hip.in"
      o[1][2][3] *= ag_bits_f32(ar[3]);
#line 911 "templates/gfx942/attn_fwd.hip.in"
      o[1][3][0] *= ag_bits_f32(ar[0]);
#line 911 "templates/gfx942/attn_fwd.hip.in"
      o[1][3][1] *= ag_bits_f32(ar[1]);
#line 911 "templates/gfx942/attn_fwd.hip.in"
      o[1][3][2] *= ag_bits_f32(ar[2]);
#line 911 "templates/gfx942/attn_fwd.hip.in"
      o[1][3][3] *= ag_bits_f32(ar[3]);
#line 911 "templates/gfx942/attn_fwd.hip.in"
      o[1][4][0] *= ag_bits_f32(ar[0]);
#line 911 "templates/gfx942/attn_fwd.hip.in"
      o[1][4][1] *= ag_bits_f32(ar[1]);
#line 911 "templates/gfx942/attn_fwd.hip.in"
      o[1][4][2] *= ag_bits_f32(ar[2]);
#line 911 "templates/gfx942/attn_fwd.hip.in"
      o[1][4][3] *= ag_bits_f32(ar[3]);
#line 911 "templates/gfx942/attn_fwd.hip.in"
      o[1][5][0] *= ag_bits_f32(ar[0]);
#line 911 "templates/gfx942/attn_fwd.hip.in"
      o[1][5][1] *= ag_bits_f32(ar[1]);
#line 911 "templates/gfx942/attn_fwd.hip.in"
      o[1][5][2] *= ag_bits_f32(ar[2]);
#line 911 "templates/gfx942/attn_fwd.hip.in"
      o[1][5][3] *= ag_bits_f32(ar[3]);
#line 911 "templates/gfx942/attn_fwd.hip.in"
      o[1][6][0] *= ag_bits_f32(ar[0]);
#line 911 "templates/gfx942/attn_fwd.hip.in"
      o[1][6][1] *= ag_bits_f32(ar[1]);
#line 911 "templates/gfx942/attn_fwd.hip.in"
      o[1][6][2] *= ag_bits_f32(ar[2]);
#line 911 "templates/gfx942/attn_fwd.hip.in"
      o[1][6][3] *= ag_bits_f32(ar[3]);
#line 911 "templates/gfx942/attn_fwd.hip.in"
      o[1][7][0] *= ag_bits_f32(ar[0]);
#line 911 "templates/gfx942/attn_fwd.hip.in"
      o[1][7][1] *= ag_bits_f32(ar[1]);
#line 911 "templates/gfx942/attn_fwd.hip.in"
      o[1][7][2] *= ag_bits_f32(ar[2]);
#line 911 "templates/gfx942/attn_fwd.hip.in"
      o[1][7][3] *= ag_bits_f32(ar[3]);
#line 911 "templates/gfx942/attn_fwd.hip.in"
      o[1][8][0] *= ag_bits_f32(ar[0]);
#line 911 "templates/gfx942/attn_fwd.hip.in"
      o[1][8][1] *= ag_bits_f32(ar[1]);
#line 911 "templates/gfx942/attn_fwd.hip.in"
      o[1][8][2] *= ag_bits_f32(ar[2]);
#line 911 "templates/gfx942/attn_fwd.hip.in"
      o[1][8][3] *= ag_bits_f32(ar[3]);
#line 911 "templates/gfx942/attn_fwd.hip.in"
      o[1][9][0] *= ag_bits_f32(ar[0]);
#line 911 "templates/gfx942/attn_fwd.hip.in"
      o[1][9][1] *= ag_bits_f32(ar[1]);
#line 911 "templates/gfx942/attn_fwd.hip.in"
      o[1][9][2] *= ag_bits_f32(ar[2]);
#line 911 "templates/gfx942/attn_fwd.hip.in"
      o[1][9][3] *= ag_bits_f32(ar[3]);
#line 911 "templates/gfx942/attn_fwd.hip.in"
      o[1][10][0] *= ag_bits_f32(ar[0]);
#line 911 "templates/gfx942/attn_fwd.hip.in"
      o[1][10][1] *= ag_bits_f32(ar[1]);
#line 911 "templates/gfx942/attn_fwd.hip.in"
      o[1][10][2] *= ag_bits_f32(ar[2]);
#line 911 "templates/gfx942/attn_fwd.hip.in"
      o[1][10][3] *= ag_bits_f32(ar[3]);
#line 911 "templates/gfx942/attn_fwd.hip.in"
      o[1][11][0] *= ag_bits_f32(ar[0]);
#line 911 "templates/gfx942/attn_fwd.hip.in"
      o[1][11][1] *= ag_bits_f32(ar[1]);
#line 911 "templates/gfx942/attn_fwd.hip.in"
      o[1][11][2] *= ag_bits_f32(ar[2]);
#line 911 "templates/gfx942/attn_fwd.hip.in"
      o[1][11][3] *= ag_bits_f32(ar[3]);
#line 911 "templates/gfx942/attn_fwd.hip.in"
      o[1][12][0] *= ag_bits_f32(ar[0]);
#line 911 "templates/gfx942/attn_fwd.hip.in"
      o[1][12][1] *= ag_bits_f32(ar[1]);
#line 911 "templates/gfx942/attn_fwd.hip.in"
      o[1][12][2] *= ag_bits_f32(ar[2]);
#line 911 "templates/gfx942/attn_fwd.hip.in"
      o[1][12][3] *= ag_bits_f32(ar[3]);
#line 911 "templates/gfx942/attn_fwd.hip.in"
      o[1][13][0] *= ag_bits_f32(ar[0]);
#line 911 "templates/gfx942/attn_fwd.hip.in"
      o[1][13][1] *= ag_bits_f32(ar[1]);
#line 911 "templates/gfx942/attn_fwd.hip.in"
      o[1][13][2] *= ag_bits_f32(ar[2]);
#line 911 "templates/gfx942/attn_fwd.hip.in"
      o[1][13][3] *= ag_bits_f32(ar[3]);
#line 911 "templates/gfx942/attn_fwd.hip.in"
      o[1][14][0] *= ag_bits_f32(ar[0]);
#line 911 "templates/gfx942/attn_fwd.hip.in"
      o[1][14][1] *= ag_bits_f32(ar[1]);
#line 911 "templates/gfx942/attn_fwd.hip.in"
      o[1][14][2] *= ag_bits_f32(ar[2]);
#line 911 "templates/gfx942/attn_fwd.hip.in"
      o[1][14][3] *= ag_bits_f32(ar[3]);
#line 911 "templates/gfx942/attn_fwd.hip.in"
      o[1][15][0] *= ag_bits_f32(ar[0]);
#line 911 "templates/gfx942/attn_fwd.hip.in"
      o[1][15][1] *= ag_bits_f32(ar[1]);
#line 911 "templates/gfx942/attn_fwd.hip.in"
      o[1][15][2] *= ag_bits_f32(ar[2]);
#line 911 "templates/gfx942/attn_fwd.hip.in"
      o[1][15][3] *= ag_bits_f32(ar[3]);
#line 914 "templates/gfx942/attn_fwd.hip.in"
    }
#line 916 "templates/gfx942/attn_fwd.hip.in"
  }
#line 947 "templates/gfx942/attn_fwd.hip.in"
    if (grp == 0u) {
      ag_s_waitcnt_vmcnt<8>();  // K_{j+1} (DMA issued in X_j, before V_j) has landed
      ag_s_barrier();
    } else if (kn1 < nvis) {
      ag_s_barrier();
    }
#line 954 "templates/gfx942/attn_fwd.hip.in"
    kp = kc;
    kc = kn1;
    kn1 = kn2;
#line 489 "templates/gfx942/attn_fwd.hip.in"
  {
    const unsigned k = kn2 + 1u;
    unsigned t = nvis;
    if (k < nvis) {
      const unsigned w = ag_readlane(cw, k >> 5) >> (k & 31u);
      if (w != 0u) {
        t = k + (unsigned)__builtin_ctz(w);
      } else {
        const unsigned long long later = ag_ballot(cw != 0u && ag_lane_id_here() > (k >> 5));
        if (later != 0ull) {
          const unsigned wi = (unsigned)__builtin_ctzll(later);
          t = 32u * wi + (unsigned)__builtin_ctz(ag_readlane(cw, wi));
        }
      }
    }
    kn2 = t;
  }
#line 973 "templates/gfx942/attn_fwd.hip.in"
    }
    // O += P_{nt-1} V_{nt-1} (kp: the last computed tile)
    ag_s_setprio<1>();
#line 600 "templates/gfx942/attn_fwd.hip.in"
  {
    ag_u32x2 bv[2];
#line 594 "templates/gfx942/attn_fwd.hip.in"
    ag_s_waitcnt_vmcnt<7>(vv[0]);
#line 596 "templates/gfx942/attn_fwd.hip.in"
    bv[1].x = vv[0][0];
    bv[1].y = vv[0][1];
#line 596 "templates/gfx942/attn_fwd.hip.in"
    bv[0].x = vv[0][2];
    bv[0].y = vv[0][3];
#line 581 "templates/gfx942/attn_fwd.hip.in"
    ag_buffer_load_dwordx4<0>(vv[0], v_rsrc, v_lane + ((kp * 32u) + 16u) * 512u);
#line 606 "templates/gfx942/attn_fwd.hip.in"
    ag_mfma_16x16x16_bf16(o[0][0], p[0][0], bv[1]);
#line 606 "templates/gfx942/attn_fwd.hip.in"
    ag_mfma_16x16x16_bf16(o[1][0], p[1][0], bv[1]);
#line 594 "templates/gfx942/attn_fwd.hip.in"
    ag_s_waitcnt_vmcnt<7>(vv[1]);
#line 596 "templates/gfx942/attn_fwd.hip.in"
    bv[1].x = vv[1][0];
    bv[1].y = vv[1][1];
#line 606 "templates/gfx942/attn_fwd.hip.in"
    ag_mfma_16x16x16_bf16(o[0][1], p[0][0], bv[0]);
#line 606 "templates/gfx942/attn_fwd.hip.in"
    ag_mfma_16x16x16_bf16(o[1][1], p[1][0], bv[0]);
#line 596 "templates/gfx942/attn_fwd.hip.in"
    bv[0].x = vv[1][2];
    bv[0].y = vv[1][3];
#line 581 "templates/gfx942/attn_fwd.hip.in"
    ag_buffer_load_dwordx4<1024>(vv[1], v_rsrc, v_lane + ((kp * 32u) + 16u) * 512u);
#line 606 "templates/gfx942/attn_fwd.hip.in"
    ag_mfma_16x16x16_bf16(o[0][2], p[0][0], bv[1]);
#line 606 "templates/gfx942/attn_fwd.hip.in"
    ag_mfma_16x16x16_bf16(o[1][2], p[1][0], bv[1]);
#line 594 "templates/gfx942/attn_fwd.hip.in"
    ag_s_waitcnt_vmcnt<7>(vv[2]);
#line 596 "templates/gfx942/attn_fwd.hip.in"
    bv[1].x = vv[2][0];
    bv[1].y = vv[2][1];
#line 606 "templates/gfx942/attn_fwd.hip.in"
    ag_mfma_16x16x16_bf16(o[0][3], p[0][0], bv[0]);
#line 606 "templates/gfx942/attn_fwd.hip.in"
    ag_mfma_16x16x16_bf16(o[1][3], p[1][0], bv[0]);
#line 596 "templates/gfx942/attn_fwd.hip.in"
    bv[0].x = vv[2][2];
    bv[0].y = vv[2][3];
#line 581 "templates/gfx942/attn_fwd.hip.in"
    ag_buffer_load_dwordx4<2048>(vv[2], v_rsrc, v_lane + ((kp * 32u) + 16u) * 512u);
#line 606 "templates/gfx942/attn_fwd.hip.in"
    ag_mfma_16x16x16_bf16(o[0][4], p[0][0], bv[1]);
#line 606 "templates/gfx942/attn_fwd.hip.in"
    ag_mfma_16x16x16_bf16(o[1][4], p[1][0], bv[1]);
#line 594 "templates/gfx942/attn_fwd.hip.in"
    ag_s_waitcnt_vmcnt<7>(vv[3]);
#line 596 "templates/gfx942/attn_fwd.hip.in"
    bv[1].x = vv[3][0];
    bv[1].y = vv[3][1];
#line 606 "templates/gfx942/attn_fwd.hip.in"
    ag_mfma_16x16x16_bf16(o[0][5], p[0][0], bv[0]);
#line 606 "templates/gfx942/attn_fwd.hip.in"
    ag_mfma_16x16x16_bf16(o[1][5], p[1][0], bv[0]);
#line 596 "templates/gfx942/attn_fwd.hip.in"
    bv[0].x = vv[3][2];
    bv[0].y = vv[3][3];
#line 581 "templates/gfx942/attn_fwd.hip.in"
    ag_buffer_load_dwordx4<3072>(vv[3], v_rsrc, v_lane + ((kp * 32u) + 16u) * 512u);
#line 606 "templates/gfx942/attn_fwd.hip.in"
    ag_mfma_16x16x16_bf16(o[0][6], p[0][0], bv[1]);
#line 606 "templates/gfx942/attn_fwd.hip.in"
    ag_mfma_16x16x16_bf16(o[1][6], p[1][0], bv[1]);
#line 594 "templates/gfx942/attn_fwd.hip.in"
    ag_s_waitcnt_vmcnt<7>(vv[4]);
#line 596 "templates/gfx942/attn_fwd.hip.in"
    bv[1].x = vv[4][0];
    bv[1].y = vv[4][1];
#line 606 "templates/gfx942/attn_fwd.hip.in"
    ag_mfma_16x16x16_bf16(o[0][7], p[0][0], bv[0]);
#line 606 "templates/gfx942/attn_fwd.hip.in"
    ag_mfma_16x16x16_bf16(o[1][7], p[1][0], bv[0]);
#line 596 "templates/gfx942/attn_fwd.hip.in"
    bv[0].x = vv[4][2];
    bv[0].y = vv[4][3];
#line 581 "templates/gfx942/attn_fwd.hip.in"
    ag_buffer_load_dwordx4<0>(vv[4], v_rsrc, v_lane + ((kp * 32u) + 16u) * 512u + 4096u);
#line 606 "templates/gfx942/attn_fwd.hip.in"
    ag_mfma_16x16x16_bf16(o[0][8], p[0][0], bv[1]);
#line 606 "templates/gfx942/attn_fwd.hip.in"
    ag_mfma_16x16x16_bf16(o[1][8], p[1][0], bv[1]);
#line 594 "templates/gfx942/attn_fwd.hip.in"
    ag_s_waitcnt_vmcnt<7>(vv[5]);
#line 596 "templates/gfx942/attn_fwd.hip.in"
    bv[1].x = vv[5][0];
    bv[1].y = vv[5][1];
#line 606 "templates/gfx942/attn_fwd.hip.in"
    ag_mfma_16x16x16_bf16(o[0][9], p[0][0], bv[0]);
#line 606 "templates/gfx942/attn_fwd.hip.in"
    ag_mfma_16x16x16_bf16(o[1][9], p[1][0], bv[0]);
#line 596 "templates/gfx942/attn_fwd.hip.in"
    bv[0].x = vv[5][2];
    bv[0].y = vv[5][3];
#line 581 "templates/gfx942/attn_fwd.hip.in"
    ag_buffer_load_dwordx4<1024>(vv[5], v_rsrc, v_lane + ((kp * 32u) + 16u) * 512u + 4096u);
#line 606 "templates/gfx942/attn_fwd.hip.in"
    ag_mfma_16x16x16_bf16(o[0][10], p[0][0], bv[1]);
#line 606 "templates/gfx942/attn_fwd.hip.in"
    ag_mfma_16x16x16_bf16(o[1][10], p[1][0], bv[1]);
#line 594 "templates/gfx942/attn_fwd.hip.in"
    ag_s_waitcnt_vmcnt<7>(vv[6]);
#line 596 "templates/gfx942/attn_fwd.hip.in"
    bv[1].x = vv[6][0];
    bv[1].y = vv[6][1];
#line 606 "templates/gfx942/attn_fwd.hip.in"
    ag_mfma_16x16x16_bf16(o[0][11], p[0][0], bv[0]);
#line 606 "templates/gfx942/attn_fwd.hip.in"
    ag_mfma_16x16x16_bf16(o[1][11], p[1][0], bv[0]);
#line 596 "templates/gfx942/attn_fwd.hip.in"
    bv[0].x = vv[6][2];
    bv[0].y = vv[6][3];
#line 581 "templates/gfx942/attn_fwd.hip.in"
    ag_buffer_load_dwordx4<2048>(vv[6], v_rsrc, v_lane + ((kp * 32u) + 16u) * 512u + 4096u);
#line 606 "templates/gfx942/attn_fwd.hip.in"
    ag_mfma_16x16x16_bf16(o[0][12], p[0][0], bv[1]);
#line 606 "templates/gfx942/attn_fwd.hip.in"
    ag_mfma_16x16x16_bf16(o[1][12], p[1][0], bv[1]);
#line 594 "templates/gfx942/attn_fwd.hip.in"
    ag_s_waitcnt_vmcnt<7>(vv[7]);
#line 596 "templates/gfx942/attn_fwd.hip.in"
    bv[1].x = vv[7][0];
    bv[1].y = vv[7][1];
#line 606 "templates/gfx942/attn_fwd.hip.in"
    ag_mfma_16x16x16_bf16(o[0][13], p[0][0], bv[0]);
#line 606 "templates/gfx942/attn_fwd.hip.in"
    ag_mfma_16x16x16_bf16(o[1][13], p[1][0], bv[0]);
#line 596 "templates/gfx942/attn_fwd.hip.in"
    bv[0].x = vv[7][2];
    bv[0].y = vv[7][3];
#line 581 "templates/gfx942/attn_fwd.hip.in"
    ag_buffer_load_dwordx4<3072>(vv[7], v_rsrc, v_lane + ((kp * 32u) + 16u) * 512u + 4096u);
#line 606 "templates/gfx942/attn_fwd.hip.in"
    ag_mfma_16x16x16_bf16(o[0][14], p[0][0], bv[1]);
#line 606 "templates/gfx942/attn_fwd.hip.in"
    ag_mfma_16x16x16_bf16(o[1][14], p[1][0], bv[1]);
#line 594 "templates/gfx942/attn_fwd.hip.in"
    ag_s_waitcnt_vmcnt<7>(vv[0]);
#line 596 "templates/gfx942/attn_fwd.hip.in"
    bv[1].x = vv[0][0];
    bv[1].y = vv[0][1];
#line 606 "templates/gfx942/attn_fwd.hip.in"
    ag_mfma_16x16x16_bf16(o[0][15], p[0][0], bv[0]);
#line 606 "templates/gfx942/attn_fwd.hip.in"
    ag_mfma_16x16x16_bf16(o[1][15], p[1][0], bv[0]);
#line 596 "templates/gfx942/attn_fwd.hip.in"
    bv[0].x = vv[0][2];
    bv[0].y = vv[0][3];
#line 606 "templates/gfx942/attn_fwd.hip.in"
    ag_mfma_16x16x16_bf16(o[0][0], p[0][1], bv[1]);
#line 606 "templates/gfx942/attn_fwd.hip.in"
    ag_mfma_16x16x16_bf16(o[1][0], p[1][1], bv[1]);
#line 594 "templates/gfx942/attn_fwd.hip.in"
    ag_s_waitcnt_vmcnt<6>(vv[1]);
#line 596 "templates/gfx942/attn_fwd.hip.in"
    bv[1].x = vv[1][0];
    bv[1].y = vv[1][1];
#line 606 "templates/gfx942/attn_fwd.hip.in"
    ag_mfma_16x16x16_bf16(o[0][1], p[0][1], bv[0]);
#line 606 "templates/gfx942/attn_fwd.hip.in"
    ag_mfma_16x16x16_bf16(o[1][1], p[1][1], bv[0]);
#line 596 "templates/gfx942/attn_fwd.hip.in"
    bv[0].x = vv[1][2];
    bv[0].y = vv[1][3];
#line 606 "templates/gfx942/attn_fwd.hip.in"
    ag_mfma_16x16x16_bf16(o[0][2], p[0][1], bv[1]);
#line 606 "templates/gfx942/attn_fwd.hip.in"
    ag_mfma_16x16x16_bf16(o[1][2], p[1][1], bv[1]);
#line 594 "templates/gfx942/attn_fwd.hip.in"
    ag_s_waitcnt_vmcnt<5>(vv[2]);
#line 596 "templates/gfx942/attn_fwd.hip.in"
    bv[1].x = vv[2][0];
    bv[1].y = vv[2][1];
#line 606 "templates/gfx942/attn_fwd.hip.in"
    ag_mfma_16x16x16_bf16(o[0][3], p[0][1], bv[0]);
#line 606 "templates/gfx942/attn_fwd.hip.in"
    ag_mfma_16x16x16_bf16(o[1][3], p[1][1], bv[0]);
#line 596 "templates/gfx942/attn_fwd.hip.in"
    bv[0].x = vv[2][2];
    bv[0].y = vv[2][3];
#line 606 "templates/gfx942/attn_fwd.hip.in"
    ag_mfma_16x16x16_bf16(o[0][4], p[0][1], bv[1]);
#line 606 "templates/gfx942/attn_fwd.hip.in"
    ag_mfma_16x16x16_bf16(o[1][4], p[1][1], bv[1]);
#line 594 "templates/gfx942/attn_fwd.hip.in"
    ag_s_waitcnt_vmcnt<4>(vv[3]);
#line 596 "templates/gfx942/attn_fwd.hip.in"
    bv[1].x = vv[3][0];
    bv[1].y = vv[3][1];
#line 606 "templates/gfx942/attn_fwd.hip.in"
    ag_mfma_16x16x16_bf16(o[0][5], p[0][1], bv[0]);
#line 606 "templates/gfx942/attn_fwd.hip.in"
    ag_mfma_16x16x16_bf16(o[1][5], p[1][1], bv[0]);
#line 596 "templates/gfx942/attn_fwd.hip.in"
    bv[0].x = vv[3][2];
    bv[0].y = vv[3][3];
#line 606 "templates/gfx942/attn_fwd.hip.in"
    ag_mfma_16x16x16_bf16(o[0][6], p[0][1], bv[1]);
#line 606 "templates/gfx942/attn_fwd.hip.in"
    ag_mfma_16x16x16_bf16(o[1][6], p[1][1], bv[1]);
#line 594 "templates/gfx942/attn_fwd.hip.in"
    ag_s_waitcnt_vmcnt<3>(vv[4]);
#line 596 "templates/gfx942/attn_fwd.hip.in"
    bv[1].x = vv[4][0];
    bv[1].y = vv[4][1];
#line 606 "templates/gfx942/attn_fwd.hip.in"
    ag_mfma_16x16x16_bf16(o[0][7], p[0][1], bv[0]);
#line 606 "templates/gfx942/attn_fwd.hip.in"
    ag_mfma_16x16x16_bf16(o[1][7], p[1][1], bv[0]);
#line 596 "templates/gfx942/attn_fwd.hip.in"
    bv[0].x = vv[4][2];
    bv[0].y = vv[4][3];
#line 606 "templates/gfx942/attn_fwd.hip.in"
    ag_mfma_16x16x16_bf16(o[0][8], p[0][1], bv[1]);
#line 606 "templates/gfx942/attn_fwd.hip.in"
    ag_mfma_16x16x16_bf16(o[1][8], p[1][1], bv[1]);
#line 594 "templates/gfx942/attn_fwd.hip.in"
    ag_s_waitcnt_vmcnt<2>(vv[5]);
#line 596 "templates/gfx942/attn_fwd.hip.in"
    bv[1].x = vv[5][0];
    bv[1].y = vv[5][1];
#line 606 "templates/gfx942/attn_fwd.hip.in"
    ag_mfma_16x16x16_bf16(o[0][9], p[0][1], bv[0]);
#line 606 "templates/gfx942/attn_fwd.hip.in"
    ag_mfma_16x16x16_bf16(o[1][9], p[1][1], bv[0]);
#line 596 "templates/gfx942/attn_fwd.hip.in"
    bv[0].x = vv[5][2];
    bv[0].y = vv[5][3];
#line 606 "templates/gfx942/attn_fwd.hip.in"
    ag_mfma_16x16x16_bf16(o[0][10], p[0][1], bv[1]);
#line 606 "templates/gfx942/attn_fwd.hip.in"
    ag_mfma_16x16x16_bf16(o[1][10], p[1][1], bv[1]);
#line 594 "templates/gfx942/attn_fwd.hip.in"
    ag_s_waitcnt_vmcnt<1>(vv[6]);
#line 596 "templates/gfx942/attn_fwd.hip.in"
    bv[1].x = vv[6][0];
    bv[1].y = vv[6][1];
#line 606 "templates/gfx942/attn_fwd.hip.in"
    ag_mfma_16x16x16_bf16(o[0][11], p[0][1], bv[0]);
#line 606 "templates/gfx942/attn_fwd.hip.in"
    ag_mfma_16x16x16_bf16(o[1][11], p[1][1], bv[0]);
#line 596 "templates/gfx942/attn_fwd.hip.in"
    bv[0].x = vv[6][2];
    bv[0].y = vv[6][3];
#line 606 "templates/gfx942/attn_fwd.hip.in"
    ag_mfma_16x16x16_bf16(o[0][12], p[0][1], bv[1]);
#line 606 "templates/gfx942/attn_fwd.hip.in"
    ag_mfma_16x16x16_bf16(o[1][12], p[1][1], bv[1]);
#line 594 "templates/gfx942/attn_fwd.hip.in"
    ag_s_waitcnt_vmcnt<0>(vv[7]);
#line 596 "templates/gfx942/attn_fwd.hip.in"
    bv[1].x = vv[7][0];
    bv[1].y = vv[7][1];
#line 606 "templates/gfx942/attn_fwd.hip.in"
    ag_mfma_16x16x16_bf16(o[0][13], p[0][1], bv[0]);
#line 606 "templates/gfx942/attn_fwd.hip.in"
    ag_mfma_16x16x16_bf16(o[1][13], p[1][1], bv[0]);
#line 596 "templates/gfx942/attn_fwd.hip.in"
    bv[0].x = vv[7][2];
    bv[0].y = vv[7][3];
#line 606 "templates/gfx942/attn_fwd.hip.in"
    ag_mfma_16x16x16_bf16(o[0][14], p[0][1], bv[1]);
#line 606 "templates/gfx942/attn_fwd.hip.in"
    ag_mfma_16x16x16_bf16(o[1][14], p[1][1], bv[1]);
#line 606 "templates/gfx942/attn_fwd.hip.in"
    ag_mfma_16x16x16_bf16(o[0][15], p[0][1], bv[0]);
#line 606 "templates/gfx942/attn_fwd.hip.in"
    ag_mfma_16x16x16_bf16(o[1][15], p[1][1], bv[0]);
#line 609 "templates/gfx942/attn_fwd.hip.in"
  }
#line 977 "templates/gfx942/attn_fwd.hip.in"
    ag_s_setprio<0>();
  }
#line 998 "templates/gfx942/attn_fwd.hip.in"
  ag_s_waitcnt_vmcnt<0>();  // K DMAs past the end (zero-filled) are complete
  ag_mfma_drain(o[0][0], o[0][1], o[0][2], o[0][3], o[0][4], o[0][5], o[0][6], o[0][7], o[0][8], o[0][9], o[0][10], o[0][11], o[0][12], o[0][13], o[0][14], o[0][15], o[1][0], o[1][1], o[1][2], o[1][3], o[1][4], o[1][5], o[1][6], o[1][7], o[1][8], o[1][9], o[1][10], o[1][11], o[1][12], o[1][13], o[1][14], o[1][15]);
#line 1001 "templates/gfx942/attn_fwd.hip.in"
  {  // ---- the written list (whole words of the q-tile) and the counters
#line 482 "templates/gfx942/attn_fwd.hip.in"
          mk &= ag_lane_id_here() == vwi ? ~vw : ~0u;
#line 1003 "templates/gfx942/attn_fwd.hip.in"
    ag_s_barrier();  // every wave is done with the K buffers: buffer 0 takes the mk words
    const unsigned ln = ag_lane_id_here();
    ag_ds_write_b32<0>(lds + wave * 256u + ln * 4u, mk);
    ag_s_waitcnt_lgkmcnt<0>();
    ag_s_barrier();
    if (wave == 0u) {
      unsigned x[8];
#line 1011 "templates/gfx942/attn_fwd.hip.in"
      ag_ds_read_b32<0>(x[0], lds + ln * 4u);
#line 1011 "templates/gfx942/attn_fwd.hip.in"
      ag_ds_read_b32<256>(x[1], lds + ln * 4u);
#line 1011 "templates/gfx942/attn_fwd.hip.in"
      ag_ds_read_b32<512>(x[2], lds + ln * 4u);
#line 1011 "templates/gfx942/attn_fwd.hip.in"
      ag_ds_read_b32<768>(x[3], lds + ln * 4u);
#line 1011 "templates/gfx942/attn_fwd.hip.in"
      ag_ds_read_b32<1024>(x[4], lds + ln * 4u);
#line 1011 "templates/gfx942/attn_fwd.hip.in"
      ag_ds_read_b32<1280>(x[5], lds + ln * 4u);
#line 1011 "templates/gfx942/attn_fwd.hip.in"
      ag_ds_read_b32<1536>(x[6], lds + ln * 4u);
#line 1011 "templates/gfx942/attn_fwd.hip.in"
      ag_ds_read_b32<1792>(x[7], lds + ln * 4u);
#line 1013 "templates/gfx942/attn_fwd.hip.in"
      ag_s_waitcnt_lgkmcnt<0>(x[0], x[1], x[2], x[3], x[4], x[5], x[6], x[7]);
      // skipped (visited, not computed) | marked by no wave
      const unsigned wd = ((nvis <= 32u * ln ? 0u : (nvis - 32u * ln >= 32u ? ~0u : (1u << (nvis - 32u * ln)) - 1u)) & ~cw) |
                          (((x[0] & x[1]) & (x[2] & x[3])) & ((x[4] & x[5]) & (x[6] & x[7])));
      const unsigned long long w0 = (((unsigned long long)b * H + h) * (unsigned)a.skip_nqt + qb) *
                                    (unsigned)a.skip_nw + swb;
      const ag_rsrc w_rsrc = ag_make_rsrc(a.skip_write ? a.skip_write + w0 : a.skip_write,
                                          a.skip_write ? swn * 4u : 0u);
      ag_buffer_store_dword<0>(w_rsrc, ln * 4u, wd);
      const ag_rsrc c_rsrc = ag_make_rsrc(a.skip_count, a.skip_count ? 8u : 0u);
      ag_buffer_atomic_add<0>(c_rsrc, ln == 0u ? 0u : 0x80000000u, nvis - jj);  // skipped
      ag_buffer_atomic_add<4>(c_rsrc, ln == 0u ? 0u : 0x80000000u, nvis);       // visited
    }
  }
#line 1028 "templates/gfx942/attn_fwd.hip.in"
  {  // epilogue: lane, g, c recomputed, not kept in VGPRs across the loop
  const unsigned lane = ag_lane_id_here();
  const unsigned g = lane >> 4, c = lane & 15u;

  // ---- epilogue: row sums, normalization, stores
  float lsum[2];
  {
    unsigned xr[2];
#line 1037 "templates/gfx942/attn_fwd.hip.in"
    ag_ds_swizzle_b32<0x401F>(xr[0], ag_f32_bits(l[0]));
#line 1037 "templates/gfx942/attn_fwd.hip.in"
    ag_ds_swizzle_b32<0x401F>(xr[1], ag_f32_bits(l[1]));
#line 1039 "templates/gfx942/attn_fwd.hip.in"
    ag_s_waitcnt_lgkmcnt<0>(xr[0], xr[1]);
#line 1041 "templates/gfx942/attn_fwd.hip.in"
    lsum[0] = l[0] + ag_bits_f32(xr[0]);
    ag_ds_bpermute_b32(xr[0], (lane ^ 32u) << 2, ag_f32_bits(lsum[0]));
#line 1041 "templates/gfx942/attn_fwd.hip.in"
    lsum[1] = l[1] + ag_bits_f32(xr[1]);
    ag_ds_bpermute_b32(xr[1], (lane ^ 32u) << 2, ag_f32_bits(lsum[1]));
#line 1044 "templates/gfx942/attn_fwd.hip.in"
    ag_s_waitcnt_lgkmcnt<0>(xr[0], xr[1]);
#line 1046 "templates/gfx942/attn_fwd.hip.in"
    lsum[0] = lsum[0] + ag_bits_f32(xr[0]);
#line 1046 "templates/gfx942/attn_fwd.hip.in"
    lsum[1] = lsum[1] + ag_bits_f32(xr[1]);
#line 1048 "templates/gfx942/attn_fwd.hip.in"
  }
#line 1094 "templates/gfx942/attn_fwd.hip.in"
  {
#line 1096 "templates/gfx942/attn_fwd.hip.in"
    float inv0;
    unsigned ir0[4];
    inv0 = lsum[0] == 0.0f ? 0.0f : 1.0f / lsum[0];
#line 1100 "templates/gfx942/attn_fwd.hip.in"
    ag_ds_bpermute_b32(ir0[0], (4u * g + 0u) << 2, ag_f32_bits(inv0));
#line 1100 "templates/gfx942/attn_fwd.hip.in"
    ag_ds_bpermute_b32(ir0[1], (4u * g + 1u) << 2, ag_f32_bits(inv0));
#line 1100 "templates/gfx942/attn_fwd.hip.in"
    ag_ds_bpermute_b32(ir0[2], (4u * g + 2u) << 2, ag_f32_bits(inv0));
#line 1100 "templates/gfx942/attn_fwd.hip.in"
    ag_ds_bpermute_b32(ir0[3], (4u * g + 3u) << 2, ag_f32_bits(inv0));
#line 1096 "templates/gfx942/attn_fwd.hip.in"
    float inv1;
    unsigned ir1[4];
    inv1 = lsum[1] == 0.0f ? 0.0f : 1.0f / lsum[1];
#line 1100 "templates/gfx942/attn_fwd.hip.in"
    ag_ds_bpermute_b32(ir1[0], (4u * g + 0u) << 2, ag_f32_bits(inv1));
#line 1100 "templates/gfx942/attn_fwd.hip.in"
    ag_ds_bpermute_b32(ir1[1], (4u * g + 1u) << 2, ag_f32_bits(inv1));
#line 1100 "templates/gfx942/attn_fwd.hip.in"
    ag_ds_bpermute_b32(ir1[2], (4u * g + 2u) << 2, ag_f32_bits(inv1));
#line 1100 "templates/gfx942/attn_fwd.hip.in"
    ag_ds_bpermute_b32(ir1[3], (4u * g + 3u) << 2, ag_f32_bits(inv1));
#line 1103 "templates/gfx942/attn_fwd.hip.in"
    ag_s_waitcnt_lgkmcnt<0>(ir0[0], ir0[1], ir0[2], ir0[3], ir1[0], ir1[1], ir1[2], ir1[3]);
#line 1106 "templates/gfx942/attn_fwd.hip.in"
    {
      const float r = ag_bits_f32(ir0[0]);
#line 1118 "templates/gfx942/attn_fwd.hip.in"
      {
        const ag_u32x4 out = {ag_pack_bf16_rtne(o[0][0][0] * r, o[0][1][0] * r),
                              ag_pack_bf16_rtne(o[0][2][0] * r, o[0][3][0] * r),
                              ag_pack_bf16_rtne(o[0][4][0] * r, o[0][5][0] * r),
                              ag_pack_bf16_rtne(o[0][6][0] * r, o[0][7][0] * r)};
        ag_buffer_store_dwordx4<0>(o_rsrc, (q_row0 + 0u + 4u * g) * o_rs + 32u * c, out);
      }
#line 1118 "templates/gfx942/attn_fwd.hip.in"
      {
        const ag_u32x4 out = {ag_pack_bf16_rtne(o[0][8][0] * r, o[0][9][0] * r),
                              ag_pack_bf16_rtne(o[0][10][0] * r, o[0][11][0] * r),
                              ag_pack_bf16_rtne(o[0][12][0] * r, o[0][13][0] * r),
                              ag_pack_bf16_rtne(o[0][14][0] * r, o[0][15][0] * r)};
        ag_buffer_store_dwordx4<16>(o_rsrc, (q_row0 + 0u + 4u * g) * o_rs + 32u * c, out);
      }
#line 1137 "templates/gfx942/attn_fwd.hip.in"
    }
#line 1106 "templates/gfx942/attn_fwd.hip.in"
    {
      const float r = ag_bits_f32(ir0[1]);
#line 1118 "templates/gfx942/attn_fwd.hip.in"
      {
        const ag_u32x4 out = {ag_pack_bf16_rtne(o[0][0][1] * r, o[0][1][1] * r),
                              ag_pack_bf16_rtne(o[0][2][1] * r, o[0][3][1] * r),
                              ag_pack_bf16_rtne(o[0][4][1] * r, o[0][5][1] * r),
                              ag_pack_bf16_rtne(o[0][6][1] * r, o[0][7][1] * r)};
        ag_buffer_store_dwordx4<0>(o_rsrc, (q_row0 + 1u + 4u * g) * o_rs + 32u * c, out);
      }
#line 1118 "templates/gfx942/attn_fwd.hip.in"
      {
        const ag_u32x4 out = {ag_pack_bf16_rtne(o[0][8][1] * r, o[0][9][1] * r),
                              ag_pack_bf16_rtne(o[0][10][1] * r, o[0][11][1] * r),
                              ag_pack_bf16_rtne(o[0][12][1] * r, o[0][13][1] * r),
                              ag_pack_bf16_rtne(o[0][14][1] * r, o[0][15][1] * r)};
        ag_buffer_store_dwordx4<16>(o_rsrc, (q_row0 + 1u + 4u * g) * o_rs + 32u * c, out);
      }
#line 1137 "templates/gfx942/attn_fwd.hip.in"
    }
#line 1106 "templates/gfx942/attn_fwd.hip.in"
    {
      const float r = ag_bits_f32(ir0[2]);
#line 1118 "templates/gfx942/attn_fwd.hip.in"
      {
        const ag_u32x4 out = {ag_pack_bf16_rtne(o[0][0][2] * r, o[0][1][2] * r),
                              ag_pack_bf16_rtne(o[0][2][2] * r, o[0][3][2] * r),
                              ag_pack_bf16_rtne(o[0][4][2] * r, o[0][5][2] * r),
                              ag_pack_bf16_rtne(o[0][6][2] * r, o[0][7][2] * r)};
        ag_buffer_store_dwordx4<0>(o_rsrc, (q_row0 + 2u + 4u * g) * o_rs + 32u * c, out);
      }
#line 1118 "templates/gfx942/attn_fwd.hip.in"
      {
        const ag_u32x4 out = {ag_pack_bf16_rtne(o[0][8][2] * r, o[0][9][2] * r),
                              ag_pack_bf16_rtne(o[0][10][2] * r, o[0][11][2] * r),
                              ag_pack_bf16_rtne(o[0][12][2] * r, o[0][13][2] * r),
                              ag_pack_bf16_rtne(o[0][14][2] * r, o[0][15][2] * r)};
        ag_buffer_store_dwordx4<16>(o_rsrc, (q_row0 + 2u + 4u * g) * o_rs + 32u * c, out);
      }
#line 1137 "templates/gfx942/attn_fwd.hip.in"
    }
#line 1106 "templates/gfx942/attn_fwd.hip.in"
    {
      const float r = ag_bits_f32(ir0[3]);
#line 1118 "templates/gfx942/attn_fwd.hip.in"
      {
        const ag_u32x4 out = {ag_pack_bf16_rtne(o[0][0][3] * r, o[0][1][3] * r),
                              ag_pack_bf16_rtne(o[0][2][3] * r, o[0][3][3] * r),
                              ag_pack_bf16_rtne(o[0][4][3] * r, o[0][5][3] * r),
                              ag_pack_bf16_rtne(o[0][6][3] * r, o[0][7][3] * r)};
        ag_buffer_store_dwordx4<0>(o_rsrc, (q_row0 + 3u + 4u * g) * o_rs + 32u * c, out);
      }
#line 1118 "templates/gfx942/attn_fwd.hip.in"
      {
        const ag_u32x4 out = {ag_pack_bf16_rtne(o[0][8][3] * r, o[0][9][3] * r),
                              ag_pack_bf16_rtne(o[0][10][3] * r, o[0][11][3] * r),
                              ag_pack_bf16_rtne(o[0][12][3] * r, o[0][13][3] * r),
                              ag_pack_bf16_rtne(o[0][14][3] * r, o[0][15][3] * r)};
        ag_buffer_store_dwordx4<16>(o_rsrc, (q_row0 + 3u + 4u * g) * o_rs + 32u * c, out);
      }
#line 1137 "templates/gfx942/attn_fwd.hip.in"
    }
#line 1106 "templates/gfx942/attn_fwd.hip.in"
    {
      const float r = ag_bits_f32(ir1[0]);
#line 1118 "templates/gfx942/attn_fwd.hip.in"
      {
        const ag_u32x4 out = {ag_pack_bf16_rtne(o[1][0][0] * r, o[1][1][0] * r),
                              ag_pack_bf16_rtne(o[1][2][0] * r, o[1][3][0] * r),
                              ag_pack_bf16_rtne(o[1][4][0] * r, o[1][5][0] * r),
                              ag_pack_bf16_rtne(o[1][6][0] * r, o[1][7][0] * r)};
        ag_buffer_store_dwordx4<0>(o_rsrc, (q_row0 + 16u + 4u * g) * o_rs + 32u * c, out);
      }
#line 1118 "templates/gfx942/attn_fwd.hip.in"
      {
        const ag_u32x4 out = {ag_pack_bf16_rtne(o[1][8][0] * r, o[1][9][0] * r),
                              ag_pack_bf16_rtne(o[1][10][0] * r, o[1][11][0] * r),
                              ag_pack_bf16_rtne(o[1][12][0] * r, o[1][13][0] * r),
                              ag_pack_bf16_rtne(o[1][14][0] * r, o[1][15][0] * r)};
        ag_buffer_store_dwordx4<16>(o_rsrc, (q_row0 + 16u + 4u * g) * o_rs + 32u * c, out);
      }
#line 1137 "templates/gfx942/attn_fwd.hip.in"
    }
#line 1106 "templates/gfx942/attn_fwd.hip.in"
    {
      const float r = ag_bits_f32(ir1[1]);
#line 1118 "templates/gfx942/attn_fwd.hip.in"
      {
        const ag_u32x4 out = {ag_pack_bf16_rtne(o[1][0][1] * r, o[1][1][1] * r),
                              ag_pack_bf16_rtne(o[1][2][1] * r, o[1][3][1] * r),
                              ag_pack_bf16_rtne(o[1][4][1] * r, o[1][5][1] * r),
                              ag_pack_bf16_rtne(o[1][6][1] * r, o[1][7][1] * r)};
        ag_buffer_store_dwordx4<0>(o_rsrc, (q_row0 + 17u + 4u * g) * o_rs + 32u * c, out);
      }
#line 1118 "templates/gfx942/attn_fwd.hip.in"
      {
        const ag_u32x4 out = {ag_pack_bf16_rtne(o[1][8][1] * r, o[1][9][1] * r),
                              ag_pack_bf16_rtne(o[1][10][1] * r, o[1][11][1] * r),
                              ag_pack_bf16_rtne(o[1][12][1] * r, o[1][13][1] * r),
                              ag_pack_bf16_rtne(o[1][14][1] * r, o[1][15][1] * r)};
        ag_buffer_store_dwordx4<16>(o_rsrc, (q_row0 + 17u + 4u * g) * o_rs + 32u * c, out);
      }
#line 1137 "templates/gfx942/attn_fwd.hip.in"
    }
#line 1106 "templates/gfx942/attn_fwd.hip.in"
    {
      const float r = ag_bits_f32(ir1[2]);
#line 1118 "templates/gfx942/attn_fwd.hip.in"
      {
        const ag_u32x4 out = {ag_pack_bf16_rtne(o[1][0][2] * r, o[1][1][2] * r),
                              ag_pack_bf16_rtne(o[1][2][2] * r, o[1][3][2] * r),
                              ag_pack_bf16_rtne(o[1][4][2] * r, o[1][5][2] * r),
                              ag_pack_bf16_rtne(o[1][6][2] * r, o[1][7][2] * r)};
        ag_buffer_store_dwordx4<0>(o_rsrc, (q_row0 + 18u + 4u * g) * o_rs + 32u * c, out);
      }
#line 1118 "templates/gfx942/attn_fwd.hip.in"
      {
        const ag_u32x4 out = {ag_pack_bf16_rtne(o[1][8][2] * r, o[1][9][2] * r),
                              ag_pack_bf16_rtne(o[1][10][2] * r, o[1][11][2] * r),
                              ag_pack_bf16_rtne(o[1][12][2] * r, o[1][13][2] * r),
                              ag_pack_bf16_rtne(o[1][14][2] * r, o[1][15][2] * r)};
        ag_buffer_store_dwordx4<16>(o_rsrc, (q_row0 + 18u + 4u * g) * o_rs + 32u * c, out);
      }
#line 1137 "templates/gfx942/attn_fwd.hip.in"
    }
#line 1106 "templates/gfx942/attn_fwd.hip.in"
    {
      const float r = ag_bits_f32(ir1[3]);
#line 1118 "templates/gfx942/attn_fwd.hip.in"
      {
        const ag_u32x4 out = {ag_pack_bf16_rtne(o[1][0][3] * r, o[1][1][3] * r),
                              ag_pack_bf16_rtne(o[1][2][3] * r, o[1][3][3] * r),
                              ag_pack_bf16_rtne(o[1][4][3] * r, o[1][5][3] * r),
                              ag_pack_bf16_rtne(o[1][6][3] * r, o[1][7][3] * r)};
        ag_buffer_store_dwordx4<0>(o_rsrc, (q_row0 + 19u + 4u * g) * o_rs + 32u * c, out);
      }
#line 1118 "templates/gfx942/attn_fwd.hip.in"
      {
        const ag_u32x4 out = {ag_pack_bf16_rtne(o[1][8][3] * r, o[1][9][3] * r),
                              ag_pack_bf16_rtne(o[1][10][3] * r, o[1][11][3] * r),
                              ag_pack_bf16_rtne(o[1][12][3] * r, o[1][13][3] * r),
                              ag_pack_bf16_rtne(o[1][14][3] * r, o[1][15][3] * r)};
        ag_buffer_store_dwordx4<16>(o_rsrc, (q_row0 + 19u + 4u * g) * o_rs + 32u * c, out);
      }
#line 1137 "templates/gfx942/attn_fwd.hip.in"
    }
#line 1140 "templates/gfx942/attn_fwd.hip.in"
  }
  if (a.lse) {  // natural-log LSE = m ln2 + ln l; row c, written by the lanes with g == 0
#line 1148 "templates/gfx942/attn_fwd.hip.in"
    const ag_rsrc lse_rsrc = ag_make_rsrc(a.lse + ((unsigned long long)b * H + h) * (unsigned)a.Sq,
                                          (unsigned)a.Sq * 4u);
#line 1152 "templates/gfx942/attn_fwd.hip.in"
    {
      const float lse = m[0] * 0.693147180559945309f + ag_v_log_f32(lsum[0]) * 0.693147180559945309f;
      ag_buffer_store_dword<0>(lse_rsrc, g == 0u ? (q_row0 + 0u + c) * 4u : 0x80000000u,
                               ag_f32_bits(lse));
    }
#line 1152 "templates/gfx942/attn_fwd.hip.in"
    {
      const float lse = m[1] * 0.693147180559945309f + ag_v_log_f32(lsum[1]) * 0.693147180559945309f;
      ag_buffer_store_dword<0>(lse_rsrc, g == 0u ? (q_row0 + 16u + c) * 4u : 0x80000000u,
                               ag_f32_bits(lse));
    }
#line 1158 "templates/gfx942/attn_fwd.hip.in"
  }
  }  // epilogue
}
