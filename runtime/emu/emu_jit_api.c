/* emu_jit_api.c: the engine's table for JIT-compiled kernel objects (see emu_jit_api.h). */
#include "emu_jit_api.h"

static const attngen__emu_jit_api table = {
  .version = ATTNGEN__EMU_JIT_API_VERSION,
  .size = sizeof(attngen__emu_jit_api),
  .thread_id = attngen__emu_thread_id,
  .block_id = attngen__emu_block_id,
  .block_dim = attngen__emu_block_dim,
  .grid_dim = attngen__emu_grid_dim,
  .lane_id = attngen__emu_lane_id,
  .wave_id = attngen__emu_wave_id,
  .lds_base = attngen__emu_lds_base,
  .wave_op = attngen__emu_wave_op,
  .exec_mfma_f32_16x16x16_bf16 = attngen__emu_exec_mfma_f32_16x16x16_bf16,
  .exec_ds_bpermute_b32 = attngen__emu_exec_ds_bpermute_b32,
  .exec_ds_swizzle_b32 = attngen__emu_exec_ds_swizzle_b32,
  .count_mfma = attngen__emu_count_mfma,
  .any = attngen__emu_any,
  .uniform_u32 = attngen__emu_uniform_u32,
  .make_rsrc = attngen__emu_make_rsrc,
  .buffer_load = attngen__emu_buffer_load,
  .buffer_store = attngen__emu_buffer_store,
  .buffer_load_lds = attngen__emu_buffer_load_lds,
  .ds_read = attngen__emu_ds_read,
  .ds_write = attngen__emu_ds_write,
  .ds_xlane = attngen__emu_ds_xlane,
  .waitcnt = attngen__emu_waitcnt,
  .waitcnt_list = attngen__emu_waitcnt_list,
  .barrier = attngen__emu_barrier,
  .v_exp_f32 = attngen__emu_v_exp_f32,
  .v_log_f32 = attngen__emu_v_log_f32,
  .v_perm_b32 = attngen__emu_v_perm_b32,
  .check_operand = attngen__emu_check_operand,
  .fail = attngen__emu_fail,
};

const attngen__emu_jit_api *attngen__emu_jit_api_table(void) { return &table; }
