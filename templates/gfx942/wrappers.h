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
