/* emu_jit_api.h: how a JIT-compiled emulated kernel reaches the engine. A variant compiled
 * at run time (runtime/src/jit_host.c) is a shared object loaded with dlopen; the engine's
 * functions (emu_core.h) live in libattngen, the attngen program or any program linking
 * libattngen.a, and are not exported from any of them. So the object carries a shim
 * (emu_jit_shim.cpp, compiled with it) that defines every emu_core.h function as a call
 * through this table, and the loader hands the table over once, through
 * attngen__emu_jit_bind, before any kernel of the object runs. Plain C; included by the
 * engine and by the shim. */
#ifndef ATTNGEN_EMU_JIT_API_H
#define ATTNGEN_EMU_JIT_API_H

#include <stdarg.h>

#include "emu_core.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Raised whenever a member is added, removed or changes meaning; the shim refuses another. */
#define ATTNGEN__EMU_JIT_API_VERSION 3

typedef struct attngen__emu_jit_api {
  unsigned version; /* ATTNGEN__EMU_JIT_API_VERSION */
  unsigned size;    /* sizeof(attngen__emu_jit_api) */
  __typeof__(attngen__emu_thread_id) *thread_id;
  __typeof__(attngen__emu_block_id) *block_id;
  __typeof__(attngen__emu_block_dim) *block_dim;
  __typeof__(attngen__emu_grid_dim) *grid_dim;
  __typeof__(attngen__emu_lane_id) *lane_id;
  __typeof__(attngen__emu_wave_id) *wave_id;
  __typeof__(attngen__emu_lds_base) *lds_base;
  __typeof__(attngen__emu_wave_op) *wave_op;
  __typeof__(attngen__emu_exec_mfma_f32_16x16x16_bf16) *exec_mfma_f32_16x16x16_bf16;
  __typeof__(attngen__emu_exec_ds_bpermute_b32) *exec_ds_bpermute_b32;
  __typeof__(attngen__emu_exec_ds_swizzle_b32) *exec_ds_swizzle_b32;
  __typeof__(attngen__emu_count_mfma) *count_mfma;
  __typeof__(attngen__emu_any) *any;
  __typeof__(attngen__emu_ballot) *ballot;
  __typeof__(attngen__emu_uniform_u32) *uniform_u32;
  __typeof__(attngen__emu_readlane_u32) *readlane_u32;
  __typeof__(attngen__emu_make_rsrc) *make_rsrc;
  __typeof__(attngen__emu_buffer_load) *buffer_load;
  __typeof__(attngen__emu_buffer_store) *buffer_store;
  __typeof__(attngen__emu_buffer_atomic_add) *buffer_atomic_add;
  __typeof__(attngen__emu_buffer_load_lds) *buffer_load_lds;
  __typeof__(attngen__emu_ds_read) *ds_read;
  __typeof__(attngen__emu_ds_write) *ds_write;
  __typeof__(attngen__emu_ds_xlane) *ds_xlane;
  __typeof__(attngen__emu_waitcnt) *waitcnt;
  __typeof__(attngen__emu_waitcnt_list) *waitcnt_list;
  __typeof__(attngen__emu_barrier) *barrier;
  __typeof__(attngen__emu_v_exp_f32) *v_exp_f32;
  __typeof__(attngen__emu_v_log_f32) *v_log_f32;
  __typeof__(attngen__emu_v_perm_b32) *v_perm_b32;
  __typeof__(attngen__emu_check_operand) *check_operand;
  __typeof__(attngen__emu_fail) *fail;
} attngen__emu_jit_api;

/* The engine's table (emu_engine.c). */
const attngen__emu_jit_api *attngen__emu_jit_api_table(void);

/* Exported by every JIT-compiled object (the shim): keeps api for its wrappers. Returns 0,
 * or -1 when api's version or size is not the one the object was compiled for. */
typedef int (*attngen__emu_jit_bind_fn)(const attngen__emu_jit_api *api);
#define ATTNGEN__EMU_JIT_BIND_SYMBOL "attngen__emu_jit_bind"

#ifdef __cplusplus
}
#endif
#endif /* ATTNGEN_EMU_JIT_API_H */
