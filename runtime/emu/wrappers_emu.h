// wrappers_emu.h (runtime/emu): the emulated twin of templates/gfx942/wrappers.h. Same names and
// signatures; each wrapper calls the wave64 emulator (runtime/emu/emu_core.h) instead of
// issuing an instruction. Force-included (`-DATTNGEN_EMU -include wrappers_emu.h`) when a
// generated gfx942 source is compiled for the host; wrappers.h then contributes only its
// unguarded part (shared types under ATTNGEN_GFX942_TYPES, portable helpers).
//
// Every wrapper takes a trailing defaulted `site` argument (template file and line via
// __builtin_FILE/__builtin_LINE, which follow #line) used in reports; call syntax is
// unchanged. The waits are object-like macros expanding to `helper(site).wait<N>(xs...)`
// because a parameter pack cannot be followed by a defaulted argument.
//
// Emulated semantics (sources: wrappers.h's contract, the CDNA3 ISA reference guide):
//   loads (buffer_load*, ds_read*, ds_swizzle, ds_bpermute) write ATTNGEN__EMU_POISON into
//   the destination at issue and the data at the s_waitcnt that covers them; every
//   destination landing at a wait must be listed in that wait's arguments (checked).
//   Stores, ds_write and LDS DMA take effect when they land (wait or wave end).
//   v_exp_f32(x) = exp2f(x) with results below 2^-126 flushed to +0 (the hardware unit
//   does not produce denormals; LLVM scales around it for the same reason); the hardware
//   result is approximate (~1 ULP), which the 1-bf16-ULP tests absorb.
//   v_log_f32(x) = log2f(x) with denormal inputs flushed to 0 (-> -inf).
//   MFMA operands and store data holding a poison pattern stop the run with a report.
#ifndef ATTNGEN_GFX942_WRAPPERS_EMU_H
#define ATTNGEN_GFX942_WRAPPERS_EMU_H

#include "emu_core.h"

#ifndef ATTNGEN_EMU
#error "wrappers_emu.h is the host twin: compile with -DATTNGEN_EMU"
#endif

#ifndef ATTNGEN_GFX942_TYPES
#define ATTNGEN_GFX942_TYPES
typedef float ag_f32x4 __attribute__((ext_vector_type(4)));
typedef unsigned ag_u32x4 __attribute__((ext_vector_type(4)));
typedef unsigned ag_u32x2 __attribute__((ext_vector_type(2)));
typedef ag_u32x4 ag_rsrc;  // buffer resource descriptor (4 dwords, wave-uniform)
#endif  // ATTNGEN_GFX942_TYPES

// Plain `inline`, not always_inline: forcing every wrapper into a fully unrolled variant
// makes the host compile ~20x slower (seconds -> tens of seconds per variant) for no
// measurable run-time gain; the wrappers are thin calls into the engine anyway.
#define AG_DEVICE inline
#define AG_KERNEL(threads) extern "C"
#define AG_LDS_DECLARE(bytes)                                                  \
  static constexpr unsigned ag_lds_bytes_ = (bytes);                           \
  static_assert(ag_lds_bytes_ <= ATTNGEN__EMU_LDS_BYTES, "LDS is 64 KiB on gfx942")
#define AG_LDS_BASE() attngen__emu_lds_base(ag_lds_bytes_)
#define AG_EMU_HERE attngen__emu_site{__builtin_FILE(), __builtin_LINE()}
#define AG_EMU_SITE attngen__emu_site site = AG_EMU_HERE

// ---- helpers of the twin -------------------------------------------------------------------
AG_DEVICE bool ag_emu_poison_(unsigned u) {
  return u == ATTNGEN__EMU_POISON || u == ATTNGEN__EMU_LDS_POISON ||
         u == ATTNGEN__EMU_POISON_QUIET || u == (ATTNGEN__EMU_LDS_POISON | 0x400000u);
}
template <typename T>
AG_DEVICE void ag_emu_check_(const char *name, const char *operand, const T &x,
                             attngen__emu_site site) {
  static_assert(sizeof(T) % 4 == 0, "operands are dwords");
  unsigned w[sizeof(T) / 4];
  __builtin_memcpy(w, &x, sizeof(T));
  for (unsigned i = 0; i < sizeof(T) / 4; i++)
    if (__builtin_expect(ag_emu_poison_(w[i]), 0))
      attngen__emu_check_operand(name, operand, &x, sizeof(T) / 4, site);
}
AG_DEVICE attngen__emu_rsrc ag_emu_rsrc_(ag_rsrc r) {
  attngen__emu_rsrc e;
  __builtin_memcpy(e.dw, &r, 16);
  return e;
}

// ---- ids, uniformity, descriptors ----------------------------------------------------------
AG_DEVICE unsigned ag_thread_id() { return attngen__emu_thread_id(0); }
AG_DEVICE unsigned ag_lane_id() { return attngen__emu_lane_id(); }
AG_DEVICE unsigned ag_lane_id_here() { return attngen__emu_lane_id(); }
AG_DEVICE unsigned ag_wave_id() { return attngen__emu_wave_id(); }
AG_DEVICE unsigned ag_block_id_x() { return attngen__emu_block_id(0); }
AG_DEVICE unsigned ag_block_id_y() { return attngen__emu_block_id(1); }
AG_DEVICE unsigned ag_block_id_z() { return attngen__emu_block_id(2); }
AG_DEVICE unsigned ag_uniform(unsigned x, AG_EMU_SITE) {
  return attngen__emu_uniform_u32("v_readfirstlane_b32", x, site);
}
AG_DEVICE bool ag_any(bool p, AG_EMU_SITE) { return attngen__emu_any(p, site) != 0; }
AG_DEVICE unsigned long long ag_ballot(bool p, AG_EMU_SITE) { return attngen__emu_ballot(p, site); }
AG_DEVICE unsigned ag_readlane(unsigned x, unsigned l, AG_EMU_SITE) {
  return attngen__emu_readlane_u32("v_readlane_b32", x, l, site);
}

AG_DEVICE ag_rsrc ag_make_rsrc(const void *base, unsigned num_records, AG_EMU_SITE) {
  unsigned long long p = (unsigned long long)base;
  if (p >> 48)
    attngen__emu_fail(site, "ag_make_rsrc: host address %p does not fit the 48-bit base", base);
  ag_rsrc r;
  r.x = (unsigned)p;
  r.y = (unsigned)(p >> 32) & 0xFFFFu;
  r.z = num_records;
  r.w = 0x00020000u;
  return r;
}

// ---- landing of asynchronous results -------------------------------------------------------
struct ag_emu_wait_ {
  int vm, lgkm;
  attngen__emu_site site;
  template <int N, typename... T> AG_DEVICE void vm_wait(T &...xs) const {
    static_assert(N >= 0 && N <= 63, "vmcnt is 0..63 on gfx942");
    attngen__emu_var vars[sizeof...(T) + 1] = {{(void *)&xs, (unsigned)sizeof(xs)}..., {0, 0}};
    attngen__emu_waitcnt_list(N, -1, vars, sizeof...(T), site);
  }
  template <int N, typename... T> AG_DEVICE void lgkm_wait(T &...xs) const {
    static_assert(N >= 0 && N <= 15, "lgkmcnt is 0..15 on gfx942");
    attngen__emu_var vars[sizeof...(T) + 1] = {{(void *)&xs, (unsigned)sizeof(xs)}..., {0, 0}};
    attngen__emu_waitcnt_list(-1, N, vars, sizeof...(T), site);
  }
};
AG_DEVICE ag_emu_wait_ ag_emu_wait_at_(attngen__emu_site site) { return {0, 0, site}; }
#define ag_s_waitcnt_vmcnt ag_emu_wait_at_(AG_EMU_HERE).vm_wait
#define ag_s_waitcnt_lgkmcnt ag_emu_wait_at_(AG_EMU_HERE).lgkm_wait

// ---- scalar control ------------------------------------------------------------------------
AG_DEVICE void ag_s_barrier(AG_EMU_SITE) { attngen__emu_barrier(site); }
template <int P> AG_DEVICE void ag_s_setprio() {
  static_assert(P >= 0 && P <= 3, "s_setprio takes 0..3");
}
template <int N> AG_DEVICE void ag_s_nop() { static_assert(N >= 0 && N <= 7, "s_nop takes 0..7"); }
template <typename... T> AG_DEVICE void ag_mfma_drain(T &...) {}

// ---- buffer (VMEM) -------------------------------------------------------------------------
template <int OFF>
AG_DEVICE void ag_buffer_load_dword(unsigned &dst, ag_rsrc r, unsigned voff, AG_EMU_SITE) {
  static_assert(OFF >= 0 && OFF < 4096, "buffer offset is 12 bits");
  attngen__emu_rsrc e = ag_emu_rsrc_(r);
  attngen__emu_buffer_load("buffer_load_dword", &e, voff, 0, OFF, 4, &dst, site);
}
template <int OFF>
AG_DEVICE void ag_buffer_load_dwordx2(ag_u32x2 &dst, ag_rsrc r, unsigned voff, AG_EMU_SITE) {
  static_assert(OFF >= 0 && OFF < 4096, "buffer offset is 12 bits");
  attngen__emu_rsrc e = ag_emu_rsrc_(r);
  attngen__emu_buffer_load("buffer_load_dwordx2", &e, voff, 0, OFF, 8, &dst, site);
}
template <int OFF>
AG_DEVICE void ag_buffer_load_dwordx4(ag_u32x4 &dst, ag_rsrc r, unsigned voff, AG_EMU_SITE) {
  static_assert(OFF >= 0 && OFF < 4096, "buffer offset is 12 bits");
  attngen__emu_rsrc e = ag_emu_rsrc_(r);
  attngen__emu_buffer_load("buffer_load_dwordx4", &e, voff, 0, OFF, 16, &dst, site);
}
template <int OFF>
AG_DEVICE void ag_buffer_store_dword(ag_rsrc r, unsigned voff, unsigned data, AG_EMU_SITE) {
  static_assert(OFF >= 0 && OFF < 4096, "buffer offset is 12 bits");
  attngen__emu_rsrc e = ag_emu_rsrc_(r);
  attngen__emu_buffer_store("buffer_store_dword", &e, voff, 0, OFF, 4, &data, site);
}
template <int OFF>
AG_DEVICE void ag_buffer_store_dwordx2(ag_rsrc r, unsigned voff, ag_u32x2 data, AG_EMU_SITE) {
  static_assert(OFF >= 0 && OFF < 4096, "buffer offset is 12 bits");
  attngen__emu_rsrc e = ag_emu_rsrc_(r);
  attngen__emu_buffer_store("buffer_store_dwordx2", &e, voff, 0, OFF, 8, &data, site);
}
template <int OFF>
AG_DEVICE void ag_buffer_store_dwordx4(ag_rsrc r, unsigned voff, ag_u32x4 data, AG_EMU_SITE) {
  static_assert(OFF >= 0 && OFF < 4096, "buffer offset is 12 bits");
  attngen__emu_rsrc e = ag_emu_rsrc_(r);
  attngen__emu_buffer_store("buffer_store_dwordx4", &e, voff, 0, OFF, 16, &data, site);
}
template <int OFF>
AG_DEVICE void ag_buffer_atomic_add(ag_rsrc r, unsigned voff, unsigned data, AG_EMU_SITE) {
  static_assert(OFF >= 0 && OFF < 4096, "buffer offset is 12 bits");
  attngen__emu_rsrc e = ag_emu_rsrc_(r);
  attngen__emu_buffer_atomic_add("buffer_atomic_add", &e, voff, 0, OFF, data, site);
}
AG_DEVICE void ag_buffer_load_dword_lds(ag_rsrc r, unsigned voff, unsigned lds_addr,
                                        AG_EMU_SITE) {
  attngen__emu_rsrc e = ag_emu_rsrc_(r);
  attngen__emu_buffer_load_lds("buffer_load_dword lds", &e, voff, 0, 0, 4, lds_addr, site);
}

// ---- LDS -----------------------------------------------------------------------------------
template <int OFF> AG_DEVICE void ag_ds_read_b32(unsigned &dst, unsigned addr, AG_EMU_SITE) {
  static_assert(OFF >= 0 && OFF < 65536, "ds offset is 16 bits");
  attngen__emu_ds_read("ds_read_b32", addr, OFF, 4, &dst, site);
}
template <int OFF> AG_DEVICE void ag_ds_read_b64(ag_u32x2 &dst, unsigned addr, AG_EMU_SITE) {
  static_assert(OFF >= 0 && OFF < 65536, "ds offset is 16 bits");
  attngen__emu_ds_read("ds_read_b64", addr, OFF, 8, &dst, site);
}
template <int OFF> AG_DEVICE void ag_ds_read_b128(ag_u32x4 &dst, unsigned addr, AG_EMU_SITE) {
  static_assert(OFF >= 0 && OFF < 65536, "ds offset is 16 bits");
  attngen__emu_ds_read("ds_read_b128", addr, OFF, 16, &dst, site);
}
template <int OFF> AG_DEVICE void ag_ds_write_b32(unsigned addr, unsigned data, AG_EMU_SITE) {
  static_assert(OFF >= 0 && OFF < 65536, "ds offset is 16 bits");
  attngen__emu_ds_write("ds_write_b32", addr, OFF, 4, &data, site);
}
template <int OFF> AG_DEVICE void ag_ds_write_b64(unsigned addr, ag_u32x2 data, AG_EMU_SITE) {
  static_assert(OFF >= 0 && OFF < 65536, "ds offset is 16 bits");
  attngen__emu_ds_write("ds_write_b64", addr, OFF, 8, &data, site);
}
template <int OFF> AG_DEVICE void ag_ds_write_b128(unsigned addr, ag_u32x4 data, AG_EMU_SITE) {
  static_assert(OFF >= 0 && OFF < 65536, "ds offset is 16 bits");
  attngen__emu_ds_write("ds_write_b128", addr, OFF, 16, &data, site);
}
template <int PATTERN> AG_DEVICE void ag_ds_swizzle_b32(unsigned &dst, unsigned src, AG_EMU_SITE) {
  static_assert(PATTERN >= 0 && PATTERN < 0x8000, "only bit-mask swizzles are used");
  attngen__emu_ds_xlane("ds_swizzle_b32", attngen__emu_exec_ds_swizzle_b32, 0, src, PATTERN,
                        &dst, site);
}
AG_DEVICE void ag_ds_bpermute_b32(unsigned &dst, unsigned addr, unsigned src, AG_EMU_SITE) {
  attngen__emu_ds_xlane("ds_bpermute_b32", attngen__emu_exec_ds_bpermute_b32, addr, src, 0, &dst,
                        site);
}

// ---- MFMA ----------------------------------------------------------------------------------
AG_DEVICE void ag_emu_mfma_(ag_f32x4 &acc, ag_u32x2 a, ag_u32x2 b, bool zero,
                            attngen__emu_site site) {
  const char *name = "v_mfma_f32_16x16x16_bf16";
  attngen__emu_mfma_in in;
  ag_emu_check_(name, "A", a, site);
  ag_emu_check_(name, "B", b, site);
  __builtin_memcpy(in.a, &a, 8);
  __builtin_memcpy(in.b, &b, 8);
  if (zero) {
    in.c[0] = in.c[1] = in.c[2] = in.c[3] = 0.0f;
  } else {
    ag_emu_check_(name, "C", acc, site);
    __builtin_memcpy(in.c, &acc, 16);
  }
  attngen__emu_wave_op(name, attngen__emu_exec_mfma_f32_16x16x16_bf16, &in, sizeof in, &acc, 16,
                       0, 0, site);
}
AG_DEVICE void ag_mfma_16x16x16_bf16(ag_f32x4 &acc, ag_u32x2 a, ag_u32x2 b, AG_EMU_SITE) {
  ag_emu_mfma_(acc, a, b, false, site);
}
AG_DEVICE void ag_mfma_16x16x16_bf16_zero(ag_f32x4 &acc, ag_u32x2 a, ag_u32x2 b, AG_EMU_SITE) {
  ag_emu_mfma_(acc, a, b, true, site);
}

// ---- VALU ----------------------------------------------------------------------------------
AG_DEVICE float ag_v_exp_f32(float x, AG_EMU_SITE) {
  ag_emu_check_("v_exp_f32", "src", x, site);
  return attngen__emu_v_exp_f32(x);
}
AG_DEVICE float ag_v_log_f32(float x, AG_EMU_SITE) {
  ag_emu_check_("v_log_f32", "src", x, site);
  return attngen__emu_v_log_f32(x);
}
AG_DEVICE unsigned ag_v_perm_b32(unsigned hi, unsigned lo, unsigned sel) {
  return attngen__emu_v_perm_b32(hi, lo, sel);
}
AG_DEVICE float ag_fma_f32(float a, float b, float c) { return __builtin_fmaf(a, b, c); }
// P packing without the NaN guard: the hardware's integer formulas bit for bit, NaN included.
AG_DEVICE unsigned ag_emu_p_bf16_(float x, int mode) {
  const unsigned u = __builtin_bit_cast(unsigned, x);
  if (mode == 0) return (u + 0x7FFFu + ((u >> 16) & 1u)) >> 16;
  if (mode == 1) return (u + 0x8000u) >> 16;
  return u >> 16;
}
// O packing: the same formulas with NaN -> 0x7FFF.
AG_DEVICE unsigned ag_emu_bf16_(float x, int mode) {
  return x != x ? 0x7FFFu : ag_emu_p_bf16_(x, mode);
}
AG_DEVICE unsigned ag_pack_p_rtne(float lo, float hi) {
  return ag_emu_p_bf16_(lo, 0) | (ag_emu_p_bf16_(hi, 0) << 16);
}
AG_DEVICE unsigned ag_pack_p_rtna(float lo, float hi) {
  return ag_emu_p_bf16_(lo, 1) | (ag_emu_p_bf16_(hi, 1) << 16);
}
AG_DEVICE unsigned ag_pack_p_rtz(float lo, float hi) {
  return ag_emu_p_bf16_(lo, 2) | (ag_emu_p_bf16_(hi, 2) << 16);
}
AG_DEVICE unsigned ag_pack_bf16_rtne(float lo, float hi) {
  return ag_emu_bf16_(lo, 0) | (ag_emu_bf16_(hi, 0) << 16);
}
AG_DEVICE unsigned ag_pack_bf16_rtna(float lo, float hi) {
  return ag_emu_bf16_(lo, 1) | (ag_emu_bf16_(hi, 1) << 16);
}
AG_DEVICE unsigned ag_pack_bf16_rtz(float lo, float hi) {
  return ag_emu_bf16_(lo, 2) | (ag_emu_bf16_(hi, 2) << 16);
}

#endif  // ATTNGEN_GFX942_WRAPPERS_EMU_H
