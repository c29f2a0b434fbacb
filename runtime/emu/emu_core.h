/* emu_core.h: the interface between the emulated gfx942 wrappers
 * (runtime/emu/wrappers_emu.h, compiled into host-side kernels) and the wave64
 * execution engine (runtime/emu/emu_engine.c). Every function here is called from inside
 * a work-item fiber; wave-wide operations suspend the fiber until all 64 lanes of its wave
 * have arrived. Plain C so that C tests and C++ kernels share it. */
#ifndef ATTNGEN_EMU_CORE_H
#define ATTNGEN_EMU_CORE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define ATTNGEN__EMU_WAVE 64
#define ATTNGEN__EMU_LDS_BYTES 65536u
/* Value written into a load's destination at issue; it is replaced by the loaded data at
 * the s_waitcnt that covers the load. As fp32 it is a NaN, each bf16 half too. */
#define ATTNGEN__EMU_POISON 0x7FA57FA5u
/* Initial content of every LDS dword of a block (a different NaN, to tell the cases apart). */
#define ATTNGEN__EMU_LDS_POISON 0x7FA67FA6u
/* fp32 arithmetic quiets a signalling NaN: the poison after one arithmetic step. */
#define ATTNGEN__EMU_POISON_QUIET 0x7FE57FA5u

/* Where a wrapper was called from (template file and line, through #line). */
typedef struct attngen__emu_site {
  const char *file;
  unsigned line;
} attngen__emu_site;

/* A variable (register) named at a wait: loads landing there must write inside one. */
typedef struct attngen__emu_var {
  void *p;
  unsigned bytes;
} attngen__emu_var;

/* --- identity of the calling work-item ------------------------------------------------ */
unsigned attngen__emu_thread_id(int dim);  /* threadIdx (only x is used: 1-D blocks) */
unsigned attngen__emu_block_id(int dim);   /* blockIdx */
unsigned attngen__emu_block_dim(int dim);  /* blockDim */
unsigned attngen__emu_grid_dim(int dim);   /* gridDim (in blocks) */
unsigned attngen__emu_lane_id(void);       /* threadIdx.x % 64 */
unsigned attngen__emu_wave_id(void);       /* threadIdx.x / 64 */
/* LDS byte address of the block's static LDS (always 0) and declaration of its size:
 * accesses are bounds-checked against the declared bytes from then on. */
unsigned attngen__emu_lds_base(unsigned declared_bytes);

/* --- wave-wide (cross-lane) operations ------------------------------------------------ */
/* Semantics of a wave-wide operation: in = [64][in_size] bytes gathered from the lanes,
 * out = [64][out_size] bytes scattered back; imm = the operation's uniform immediates. */
typedef void (*attngen__emu_wave_fn)(const unsigned char *in, unsigned char *out,
                                     const void *imm);

/* Suspends the calling lane until all 64 lanes of its wave call the same operation (same
 * fn, name, site and immediates), then runs fn once and returns this lane's result in out.
 * Lanes that disagree stop the run with a report. */
void attngen__emu_wave_op(const char *name, attngen__emu_wave_fn fn, const void *in,
                          unsigned in_size, void *out, unsigned out_size, const void *imm,
                          unsigned imm_size, attngen__emu_site site);

/* Semantics of the cross-lane instructions (64-lane arrays, see emu_ops.c for sources). */
void attngen__emu_exec_mfma_f32_16x16x16_bf16(const unsigned char *in, unsigned char *out,
                                              const void *imm);
void attngen__emu_exec_ds_bpermute_b32(const unsigned char *in, unsigned char *out,
                                       const void *imm);
void attngen__emu_exec_ds_swizzle_b32(const unsigned char *in, unsigned char *out,
                                      const void *imm);
/* Counts one executed MFMA in the emulator statistics. */
void attngen__emu_count_mfma(void);
/* Inputs of attngen__emu_exec_mfma_f32_16x16x16_bf16, per lane. */
typedef struct attngen__emu_mfma_in {
  uint16_t a[4];
  uint16_t b[4];
  float c[4];
} attngen__emu_mfma_in;

/* Wave-wide OR of p over the lanes (v_cmp + s_cmp of the ballot). */
int attngen__emu_any(int p, attngen__emu_site site);
/* The ballot of p: bit l set when lane l's p is nonzero, the same mask in every lane. */
uint64_t attngen__emu_ballot(int p, attngen__emu_site site);

/* --- scalar (wave-uniform) values ------------------------------------------------------ */
/* Checks that all lanes hold the same value (an SGPR operand) at a wave-wide sync point;
 * non-uniform values stop the run. Returns the value. */
uint32_t attngen__emu_uniform_u32(const char *name, uint32_t v, attngen__emu_site site);

/* v_readlane_b32: lane `l` (uniform across the wave, 0..63) of v, to every lane. Lanes that
 * disagree on l, or l > 63, stop the run. */
uint32_t attngen__emu_readlane_u32(const char *name, uint32_t v, uint32_t l,
                                   attngen__emu_site site);

/* --- buffer (vector memory) operations, counted by vmcnt -------------------------------- */
/* A decoded 128-bit buffer resource (V#). Only raw buffers (stride 0) are supported. */
typedef struct attngen__emu_rsrc {
  uint32_t dw[4];
} attngen__emu_rsrc;
/* Packs a V#: 48-bit base address, stride 0, num_records bytes, dword3 config word. */
attngen__emu_rsrc attngen__emu_make_rsrc(const void *base, uint32_t num_records,
                                         uint32_t config);

/* Issues a load of bytes (2, 4, 8, 12 or 16) from base + soffset + voffset + ioffset; each
 * dword whose offset voffset + ioffset + 4i is not below num_records reads 0. dst receives
 * ATTNGEN__EMU_POISON now and the data at the s_waitcnt vmcnt that covers the load. */
void attngen__emu_buffer_load(const char *name, const attngen__emu_rsrc *r, uint32_t voffset,
                              uint32_t soffset, uint32_t ioffset, unsigned bytes, void *dst,
                              attngen__emu_site site);
/* Issues a store; out-of-range dwords are dropped. Memory is written at the s_waitcnt
 * that covers it (or when the wave ends). */
void attngen__emu_buffer_store(const char *name, const attngen__emu_rsrc *r, uint32_t voffset,
                               uint32_t soffset, uint32_t ioffset, unsigned bytes,
                               const void *src, attngen__emu_site site);
/* Issues an atomic add without return (buffer_atomic_add): the dword at base + soffset +
 * voffset + ioffset += data when it lands (the engine runs one block at a time, so landing is
 * atomic); out of range: dropped. Counted by vmcnt like a store. */
void attngen__emu_buffer_atomic_add(const char *name, const attngen__emu_rsrc *r,
                                    uint32_t voffset, uint32_t soffset, uint32_t ioffset,
                                    uint32_t data, attngen__emu_site site);
/* Issues a load straight into LDS (buffer_load_* ... lds): lane l's bytes land at LDS
 * address m0 + ioffset + l * bytes (out-of-range dwords write 0). Counted by vmcnt. */
void attngen__emu_buffer_load_lds(const char *name, const attngen__emu_rsrc *r,
                                  uint32_t voffset, uint32_t soffset, uint32_t ioffset,
                                  unsigned bytes, uint32_t m0, attngen__emu_site site);

/* --- LDS operations, counted by lgkmcnt ------------------------------------------------- */
/* ds_read: bytes from LDS address addr + offset into dst at the covering s_waitcnt. */
void attngen__emu_ds_read(const char *name, uint32_t addr, uint32_t offset, unsigned bytes,
                          void *dst, attngen__emu_site site);
/* ds_write: bytes from src to LDS address addr + offset when the op lands. */
void attngen__emu_ds_write(const char *name, uint32_t addr, uint32_t offset, unsigned bytes,
                           const void *src, attngen__emu_site site);
/* Cross-lane ops through the LDS unit (ds_swizzle_b32, ds_bpermute_b32): counted by
 * lgkmcnt; at landing fn runs over the lanes' {addr, data} (imm = the uniform pattern) and
 * each lane's result is written to its dst. */
void attngen__emu_ds_xlane(const char *name, attngen__emu_wave_fn fn, uint32_t addr,
                           uint32_t data, uint32_t imm, void *dst, attngen__emu_site site);

/* --- synchronization -------------------------------------------------------------------- */
/* s_waitcnt: lands the oldest operations of the wave until at most vmcnt vector-memory and
 * lgkmcnt LDS operations are outstanding (pass -1 for "do not wait on this counter"). */
void attngen__emu_waitcnt(int vmcnt, int lgkmcnt, attngen__emu_site site);
/* s_waitcnt naming the variables that the wait lands (see wrappers.h): every load landing
 * here must write inside one of vars[0..nvars). */
void attngen__emu_waitcnt_list(int vmcnt, int lgkmcnt, const attngen__emu_var *vars,
                               unsigned nvars, attngen__emu_site site);
/* s_barrier: waits until every wave of the block arrives. */
void attngen__emu_barrier(attngen__emu_site site);

/* --- VALU with emulator-defined numerics (see emu_ops.c) -------------------------------- */
float attngen__emu_v_exp_f32(float x);
float attngen__emu_v_log_f32(float x);
uint32_t attngen__emu_v_perm_b32(uint32_t hi, uint32_t lo, uint32_t sel);

/* --- diagnostics ------------------------------------------------------------------------ */
/* Stops the run if any dword of the n dwords at p is a poison pattern (a register read
 * before its s_waitcnt, or LDS never written), naming the operand. */
void attngen__emu_check_operand(const char *name, const char *operand, const void *p,
                                unsigned n_dwords, attngen__emu_site site);
/* Stops the run with a report (printf-style), naming the calling wave and lane. */
void attngen__emu_fail(attngen__emu_site site, const char *fmt, ...)
    __attribute__((format(printf, 2, 3), noreturn));

#ifdef __cplusplus
}
#endif
#endif /* ATTNGEN_EMU_CORE_H */
