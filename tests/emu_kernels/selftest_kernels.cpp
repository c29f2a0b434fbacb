// selftest_kernels.cpp: small gfx942 kernels written against templates/gfx942/wrappers.h,
// compiled for the host with the emulated twin (-DATTNGEN_EMU -include wrappers_emu.h) by
// cmake/emu.cmake and run by tests/test_emu.c. Each checks one emulated instruction
// against values the test derives from the ISA documentation, or plants one bug that the
// emulator must report. Buffers come through attngen_kargs: q, k, v inputs, o and ws
// outputs (sizes chosen by the test).
#include "kargs.h"
#include "gfx942/wrappers.h"
#include "emu.h"

AG_LDS_DECLARE(4096);

#define ST_KERNEL(name) AG_KERNEL(64) void attngen__emu_st_##name(attngen_kargs a)
#define ST_KERNEL2(name) AG_KERNEL(128) void attngen__emu_st_##name(attngen_kargs a)

// D = C + A*B for one 16x16x16 tile, operands loaded per the documented lane layout:
// q = A row-major [16][16] bf16, k = B transposed [n][k] bf16, v = C row-major fp32,
// ws = D row-major fp32, then D of the zero-accumulator form.
ST_KERNEL(mfma_layout) {
  unsigned l = ag_lane_id(), g = l / 16, c = l % 16;
  ag_rsrc ra = ag_make_rsrc(a.q, 512), rb = ag_make_rsrc(a.k, 512);
  ag_rsrc rc = ag_make_rsrc(a.v, 1024), rd = ag_make_rsrc(a.ws, 2048);
  ag_u32x2 fa, fb;
  unsigned c0, c1, c2, c3;
  ag_buffer_load_dwordx2<0>(fa, ra, (c * 16 + 4 * g) * 2);
  ag_buffer_load_dwordx2<0>(fb, rb, (c * 16 + 4 * g) * 2);
  ag_buffer_load_dword<0>(c0, rc, ((4 * g + 0) * 16 + c) * 4);
  ag_buffer_load_dword<0>(c1, rc, ((4 * g + 1) * 16 + c) * 4);
  ag_buffer_load_dword<0>(c2, rc, ((4 * g + 2) * 16 + c) * 4);
  ag_buffer_load_dword<0>(c3, rc, ((4 * g + 3) * 16 + c) * 4);
  ag_s_waitcnt_vmcnt<0>(fa, fb, c0, c1, c2, c3);
  ag_f32x4 acc = {ag_bits_f32(c0), ag_bits_f32(c1), ag_bits_f32(c2), ag_bits_f32(c3)};
  ag_mfma_16x16x16_bf16(acc, fa, fb);
  ag_f32x4 z;
  ag_mfma_16x16x16_bf16_zero(z, fa, fb);
  ag_mfma_drain(acc, z);
  for (unsigned i = 0; i < 4; i++) {
    ag_buffer_store_dword<0>(rd, ((4 * g + i) * 16 + c) * 4, ag_f32_bits(acc[i]));
    ag_buffer_store_dword<1024>(rd, ((4 * g + i) * 16 + c) * 4, ag_f32_bits(z[i]));
  }
}

// Cross-lane: ws[0..63] = swizzle xor 1, [64..] = swizzle and 0x18 or 3, [128..] = swizzle
// xor 0x10, [192..] = bpermute from lane (63 - l), of the source value 1000 + l.
ST_KERNEL(crosslane) {
  unsigned l = ag_lane_id(), s = 1000 + l;
  unsigned r0, r1, r2, r3;
  ag_ds_swizzle_b32<(1 << 10) | 31>(r0, s);
  ag_ds_swizzle_b32<(3 << 5) | 0x18>(r1, s);
  ag_ds_swizzle_b32<(0x10 << 10) | 31>(r2, s);
  ag_ds_bpermute_b32(r3, (63 - l) * 4, s);
  ag_s_waitcnt_lgkmcnt<0>(r0, r1, r2, r3);
  unsigned *o = (unsigned *)a.ws;
  o[l] = r0;
  o[64 + l] = r1;
  o[128 + l] = r2;
  o[192 + l] = r3;
}

// Buffer range checks: q holds 40 dwords but num_records = 37*4 + 2 bytes; lane l loads a
// dwordx4 at dword 4*(l%10)... and stores it to ws with num_records = 100 bytes.
ST_KERNEL(buffer_oob) {
  unsigned l = ag_lane_id();
  ag_rsrc rq = ag_make_rsrc(a.q, 37 * 4 + 2), rw = ag_make_rsrc(a.ws, 100);
  ag_u32x4 x;
  unsigned y;
  ag_buffer_load_dwordx4<0>(x, rq, (l % 10) * 16);
  ag_buffer_load_dword<8>(y, rq, l * 4);
  ag_s_waitcnt_vmcnt<0>(x, y);
  unsigned *o = (unsigned *)a.o;
  o[4 * l + 0] = x.x;
  o[4 * l + 1] = x.y;
  o[4 * l + 2] = x.z;
  o[4 * l + 3] = x.w;
  o[256 + l] = y;
  // every lane issues the store; lanes >= 32 are pushed out of range instead of branching
  ag_buffer_store_dword<0>(rw, l < 32 ? l * 4 : 0x80000000u, 7000 + l);
}

// A destination read before its wait sees poison; after the wait it holds the data.
ST_KERNEL(waitcnt_poison) {
  unsigned l = ag_lane_id();
  ag_rsrc rq = ag_make_rsrc(a.q, 256);
  unsigned x, y;
  ag_buffer_load_dword<0>(x, rq, l * 4);
  ((unsigned *)a.o)[l] = x;  // read too early (a plain C++ read, not checked)
  ag_s_waitcnt_vmcnt<0>(x);
  ((unsigned *)a.o)[64 + l] = x;
  ag_ds_write_b32<0>(AG_LDS_BASE() + l * 4, x + 1);
  ag_ds_read_b32<0>(y, l * 4);
  ((unsigned *)a.o)[128 + l] = y;  // before the lgkmcnt wait
  ag_s_waitcnt_lgkmcnt<0>(y);
  ((unsigned *)a.o)[192 + l] = y;
}

// LDS DMA: 64 dwords of q (num_records 200 bytes: dwords 50.. read 0) to LDS at 256, read
// back by ds_read_b128 with offset.
ST_KERNEL(lds_dma) {
  unsigned l = ag_lane_id(), base = AG_LDS_BASE();
  ag_rsrc rq = ag_make_rsrc(a.q, 200);
  ag_buffer_load_dword_lds(rq, l * 4, base + 256);
  ag_s_waitcnt_vmcnt<0>();
  ag_s_barrier();
  ag_u32x4 v;
  ag_ds_read_b128<256>(v, base + (l % 16) * 16);
  ag_s_waitcnt_lgkmcnt<0>(v);
  unsigned *o = (unsigned *)a.o;
  for (unsigned i = 0; i < 4; i++) o[4 * l + i] = v[i];
}

// VALU: per lane two floats from q; o gets exp, log, 3 packs and a v_perm.
ST_KERNEL(valu) {
  unsigned l = ag_lane_id();
  const float *in = (const float *)a.q;
  unsigned *o = (unsigned *)a.o;
  float x = in[2 * l], y = in[2 * l + 1];
  o[8 * l + 0] = ag_f32_bits(ag_v_exp_f32(x));
  o[8 * l + 1] = ag_f32_bits(ag_v_log_f32(y));
  o[8 * l + 2] = ag_pack_bf16_rtne(x, y);
  o[8 * l + 3] = ag_pack_bf16_rtna(x, y);
  o[8 * l + 4] = ag_pack_bf16_rtz(x, y);
  o[8 * l + 5] = ag_v_perm_b32(ag_f32_bits(y), ag_f32_bits(x), 0x07060302u);
  o[8 * l + 6] = ag_v_perm_b32(0x80402010u, 0x08040201u, 0x0C0B0805u);
  o[8 * l + 7] = ag_any(l == 17) ? 1u : 0u;
}

// Throughput: 512 threads, each wave 2000 MFMAs; ws[tid] = acc[0].
AG_KERNEL(512) void attngen__emu_st_mfma_speed(attngen_kargs a) {
  ag_u32x2 x = {0x3F803F80u, 0x3F803F80u}, y = x;  // bf16 1.0
  ag_f32x4 acc = {0, 0, 0, 0};
  for (int i = 0; i < 2000; i++) ag_mfma_16x16x16_bf16(acc, x, y);
  ag_mfma_drain(acc);
  ((float *)a.ws)[ag_thread_id()] = acc[0];
}

// ---- planted bugs -----------------------------------------------------------------------
// Missing s_waitcnt: the MFMA reads the A fragment before the vmcnt wait.
ST_KERNEL(bug_missing_waitcnt) {
  unsigned l = ag_lane_id();
  ag_rsrc rq = ag_make_rsrc(a.q, 512);
  ag_u32x2 fa;
  ag_buffer_load_dwordx2<0>(fa, rq, l * 8);
  ag_f32x4 acc = {0, 0, 0, 0};
  ag_mfma_16x16x16_bf16(acc, fa, fa);  // BUG: no ag_s_waitcnt_vmcnt<0>(fa) before
  ag_s_waitcnt_vmcnt<0>(fa);
  ag_mfma_drain(acc);
  ((float *)a.ws)[l] = acc[0];
}

// Missing s_barrier: 256 threads; each wave writes its slice of LDS and reads the next
// wave's slice without a barrier in between.
AG_KERNEL(256) void attngen__emu_st_bug_missing_barrier(attngen_kargs a) {
  unsigned t = ag_thread_id(), base = AG_LDS_BASE();
  unsigned v;
  ag_ds_write_b32<0>(base + t * 4, t * 3);
  ag_s_waitcnt_lgkmcnt<0>();
  // BUG: ag_s_barrier() missing
  ag_ds_read_b32<0>(v, base + ((t + 64) % 256) * 4);
  ag_s_waitcnt_lgkmcnt<0>(v);
  ((unsigned *)a.ws)[t] = v;
}

// Off-by-one LDS index: 64 dwords declared, lane l reads dword l + 1.
namespace obo {
AG_LDS_DECLARE(256);
ST_KERNEL(bug_lds_off_by_one) {
  unsigned l = ag_lane_id(), base = AG_LDS_BASE();
  unsigned v;
  ag_ds_write_b32<0>(base + l * 4, l);
  ag_s_waitcnt_lgkmcnt<0>();
  ag_s_barrier();
  ag_ds_read_b32<0>(v, base + (l + 1) * 4);  // BUG: lane 63 reads past the end
  ag_s_waitcnt_lgkmcnt<0>(v);
  ((unsigned *)a.ws)[l] = v;
}
}  // namespace obo
using obo::attngen__emu_st_bug_lds_off_by_one;

// Divergence: half the wave skips an MFMA.
ST_KERNEL(bug_divergent_mfma) {
  unsigned l = ag_lane_id();
  ag_u32x2 x = {0x3F803F80u, 0x3F803F80u};
  ag_f32x4 acc = {0, 0, 0, 0};
  if (l < 32) ag_mfma_16x16x16_bf16(acc, x, x);  // BUG: lanes 32..63 never arrive
  ag_s_barrier();
  ((float *)a.ws)[l] = acc[0];
}

// Wave 1 of 2 returns early while wave 0 waits at the barrier.
AG_KERNEL(128) void attngen__emu_st_bug_barrier_exit(attngen_kargs a) {
  if (ag_wave_id() == 1) return;  // BUG
  ag_s_barrier();
  ((float *)a.ws)[ag_thread_id()] = 1.0f;
}

// A load lands at a wait that does not name its destination.
ST_KERNEL(bug_unlisted_wait) {
  unsigned l = ag_lane_id();
  ag_rsrc rq = ag_make_rsrc(a.q, 512);
  unsigned x, y;
  ag_buffer_load_dword<0>(x, rq, l * 4);
  ag_buffer_load_dword<0>(y, rq, l * 4 + 256);
  ag_s_waitcnt_vmcnt<0>(y);  // BUG: x lands here too
  ((unsigned *)a.ws)[l] = x + y;
}

// A load whose destination is never waited for (dead or missing wait at the end).
ST_KERNEL(bug_load_never_waited) {
  unsigned l = ag_lane_id(), x;
  ag_rsrc rq = ag_make_rsrc(a.q, 512);
  ag_buffer_load_dword<0>(x, rq, l * 4);  // BUG: no ag_s_waitcnt_vmcnt<0>(x)
  ((unsigned *)a.ws)[l] = l;
}

// ag_uniform (v_readfirstlane_b32) of a wave-uniform value: every lane gets it.
ST_KERNEL(uniform_ok) {
  unsigned l = ag_lane_id();
  unsigned u = ag_uniform(ag_block_id_x() + 5u);
  ((unsigned *)a.ws)[l] = u + l;
}

// ag_uniform of a value that differs from lane 0's in lanes 40..63 only.
ST_KERNEL(bug_not_uniform) {
  unsigned l = ag_lane_id();
  unsigned u = ag_uniform(l < 40u ? 7u : 8u);  // BUG: not wave-uniform
  ((unsigned *)a.ws)[l] = u;
}

// v_readlane_b32, the ballot and buffer_atomic_add (the skip kernels' walk and counters),
// 2 waves: ws[64w + l] = lane (13 + 27w) of x = 500 + 3l; ws[128 + 2w], [129 + 2w] = the
// ballot of (l + w) % 3 == 0 (low, high half; lane 0 stores); lane l < 32 of both waves adds
// l + 1 to counter o[l & 1], lanes >= 32 add 1000 at an out-of-range offset (dropped).
ST_KERNEL2(readlane_atomic) {
  unsigned l = ag_lane_id(), w = ag_wave_id();
  ag_rsrc ro = ag_make_rsrc(a.o, 8), rw = ag_make_rsrc(a.ws, 528);
  unsigned r = ag_readlane(500u + 3u * l, 13u + 27u * w);
  ag_buffer_store_dword<0>(rw, (64u * w + l) * 4u, r);
  const unsigned long long b = ag_ballot((l + w) % 3u == 0u);
  const ag_u32x2 bb = {(unsigned)b, (unsigned)(b >> 32)};
  ag_buffer_store_dwordx2<0>(rw, l == 0u ? (128u + 2u * w) * 4u : 0x80000000u, bb);
  ag_buffer_atomic_add<0>(ro, l < 32u ? (l & 1u) * 4u : 0x80000000u, l < 32u ? l + 1u : 1000u);
  ag_s_waitcnt_vmcnt<0>();
}

// v_readlane_b32 with a lane index that differs in lanes 40..63.
ST_KERNEL(bug_readlane_divergent) {
  unsigned l = ag_lane_id();
  ((unsigned *)a.ws)[l] = ag_readlane(l, l < 40u ? 3u : 4u);  // BUG: not wave-uniform
}

extern "C" {
#define ST(name) {#name, attngen__emu_st_##name, 0}
const attngen__emu_kernel attngen__emu_selftest_kernels[] = {
    ST(mfma_layout),         ST(crosslane),           ST(buffer_oob),
    ST(waitcnt_poison),      ST(lds_dma),             ST(valu),
    ST(mfma_speed),          ST(bug_missing_waitcnt), ST(bug_missing_barrier),
    ST(bug_lds_off_by_one),  ST(bug_divergent_mfma),  ST(bug_barrier_exit),
    ST(bug_unlisted_wait),   ST(bug_load_never_waited), ST(uniform_ok),
    ST(bug_not_uniform),     ST(readlane_atomic),     ST(bug_readlane_divergent),
};
const size_t attngen__emu_selftest_kernel_count =
    sizeof attngen__emu_selftest_kernels / sizeof attngen__emu_selftest_kernels[0];
}
