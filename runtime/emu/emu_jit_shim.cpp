// emu_jit_shim.cpp: linked into every JIT-compiled emulated kernel object (see
// emu_jit_api.h). Defines each emu_core.h function as a call through the table that the
// loader binds once; hidden, so the kernel's references resolve to these definitions inside
// the object and nothing but attngen__emu_jit_bind (and the kernels) is exported. Embedded
// in the library and compiled at run time with the kernel's own flags (runtime/src/jit_host.c).
#include <stdio.h>

#include "emu_jit_api.h"

#define SHIM extern "C" __attribute__((visibility("hidden")))

static const attngen__emu_jit_api *api;

extern "C" __attribute__((visibility("default"))) int attngen__emu_jit_bind(
    const attngen__emu_jit_api *table) {
  if (!table || table->version != ATTNGEN__EMU_JIT_API_VERSION ||
      table->size != sizeof(attngen__emu_jit_api))
    return -1;
  api = table;
  return 0;
}

SHIM unsigned attngen__emu_thread_id(int dim) { return api->thread_id(dim); }
SHIM unsigned attngen__emu_block_id(int dim) { return api->block_id(dim); }
SHIM unsigned attngen__emu_block_dim(int dim) { return api->block_dim(dim); }
SHIM unsigned attngen__emu_grid_dim(int dim) { return api->grid_dim(dim); }
SHIM unsigned attngen__emu_lane_id(void) { return api->lane_id(); }
SHIM unsigned attngen__emu_wave_id(void) { return api->wave_id(); }
SHIM unsigned attngen__emu_lds_base(unsigned declared_bytes) {
  return api->lds_base(declared_bytes);
}
SHIM void attngen__emu_wave_op(const char *name, attngen__emu_wave_fn fn, const void *in,
                               unsigned in_size, void *out, unsigned out_size, const void *imm,
                               unsigned imm_size, attngen__emu_site site) {
  api->wave_op(name, fn, in, in_size, out, out_size, imm, imm_size, site);
}
SHIM void attngen__emu_exec_mfma_f32_16x16x16_bf16(const unsigned char *in, unsigned char *out,
                                                   const void *imm) {
  api->exec_mfma_f32_16x16x16_bf16(in, out, imm);
}
SHIM void attngen__emu_exec_ds_bpermute_b32(const unsigned char *in, unsigned char *out,
                                            const void *imm) {
  api->exec_ds_bpermute_b32(in, out, imm);
}
SHIM void attngen__emu_exec_ds_swizzle_b32(const unsigned char *in, unsigned char *out,
                                           const void *imm) {
  api->exec_ds_swizzle_b32(in, out, imm);
}
SHIM void attngen__emu_count_mfma(void) { api->count_mfma(); }
SHIM int attngen__emu_any(int p, attngen__emu_site site) { return api->any(p, site); }
SHIM uint64_t attngen__emu_ballot(int p, attngen__emu_site site) { return api->ballot(p, site); }
SHIM uint32_t attngen__emu_uniform_u32(const char *name, uint32_t v, attngen__emu_site site) {
  return api->uniform_u32(name, v, site);
}
SHIM uint32_t attngen__emu_readlane_u32(const char *name, uint32_t v, uint32_t l,
                                        attngen__emu_site site) {
  return api->readlane_u32(name, v, l, site);
}
SHIM attngen__emu_rsrc attngen__emu_make_rsrc(const void *base, uint32_t num_records,
                                              uint32_t config) {
  return api->make_rsrc(base, num_records, config);
}
SHIM void attngen__emu_buffer_load(const char *name, const attngen__emu_rsrc *r,
                                   uint32_t voffset, uint32_t soffset, uint32_t ioffset,
                                   unsigned bytes, void *dst, attngen__emu_site site) {
  api->buffer_load(name, r, voffset, soffset, ioffset, bytes, dst, site);
}
SHIM void attngen__emu_buffer_store(const char *name, const attngen__emu_rsrc *r,
                                    uint32_t voffset, uint32_t soffset, uint32_t ioffset,
                                    unsigned bytes, const void *src, attngen__emu_site site) {
  api->buffer_store(name, r, voffset, soffset, ioffset, bytes, src, site);
}
SHIM void attngen__emu_buffer_atomic_add(const char *name, const attngen__emu_rsrc *r,
                                         uint32_t voffset, uint32_t soffset, uint32_t ioffset,
                                         uint32_t data, attngen__emu_site site) {
  api->buffer_atomic_add(name, r, voffset, soffset, ioffset, data, site);
}
SHIM void attngen__emu_buffer_load_lds(const char *name, const attngen__emu_rsrc *r,
                                       uint32_t voffset, uint32_t soffset, uint32_t ioffset,
                                       unsigned bytes, uint32_t m0, attngen__emu_site site) {
  api->buffer_load_lds(name, r, voffset, soffset, ioffset, bytes, m0, site);
}
SHIM void attngen__emu_ds_read(const char *name, uint32_t addr, uint32_t offset, unsigned bytes,
                               void *dst, attngen__emu_site site) {
  api->ds_read(name, addr, offset, bytes, dst, site);
}
SHIM void attngen__emu_ds_write(const char *name, uint32_t addr, uint32_t offset,
                                unsigned bytes, const void *src, attngen__emu_site site) {
  api->ds_write(name, addr, offset, bytes, src, site);
}
SHIM void attngen__emu_ds_xlane(const char *name, attngen__emu_wave_fn fn, uint32_t addr,
                                uint32_t data, uint32_t imm, void *dst, attngen__emu_site site) {
  api->ds_xlane(name, fn, addr, data, imm, dst, site);
}
SHIM void attngen__emu_waitcnt(int vmcnt, int lgkmcnt, attngen__emu_site site) {
  api->waitcnt(vmcnt, lgkmcnt, site);
}
SHIM void attngen__emu_waitcnt_list(int vmcnt, int lgkmcnt, const attngen__emu_var *vars,
                                    unsigned nvars, attngen__emu_site site) {
  api->waitcnt_list(vmcnt, lgkmcnt, vars, nvars, site);
}
SHIM void attngen__emu_barrier(attngen__emu_site site) { api->barrier(site); }
SHIM float attngen__emu_v_exp_f32(float x) { return api->v_exp_f32(x); }
SHIM float attngen__emu_v_log_f32(float x) { return api->v_log_f32(x); }
SHIM uint32_t attngen__emu_v_perm_b32(uint32_t hi, uint32_t lo, uint32_t sel) {
  return api->v_perm_b32(hi, lo, sel);
}
SHIM void attngen__emu_check_operand(const char *name, const char *operand, const void *p,
                                     unsigned n_dwords, attngen__emu_site site) {
  api->check_operand(name, operand, p, n_dwords, site);
}
SHIM void attngen__emu_fail(attngen__emu_site site, const char *fmt, ...) {
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  api->fail(site, "%s", msg);
  __builtin_unreachable();
}
