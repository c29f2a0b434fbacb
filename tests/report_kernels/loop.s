// loop.s: a hand-written gfx942 kernel with a known main loop, for tests/test_report.c.
// Assembled by tests/CMakeLists.txt (clang-19, ld.lld-19). Nothing here is meant to run: it
// only has the shape of an attention main loop, so that `attngen report --analyze` has exact
// counts to be checked against (see the expected values in tests/test_report.c).
//
// report_loop: 512 threads = 8 waves; group A = waves 0-3, group B = waves 4-7 (wave > 3).
// One iteration (the steady state):
//   - PV: 32 MFMA, skipped only in the first iteration (s4 == 0)
//   - QK: 32 MFMA                   -> 64 MFMA 16x16x16 bf16 = 1 unit of 64 keys x 16 rows
//   - s_nop 3 (4 wait states), 2 ds_read, s_waitcnt, s_barrier
//   - 16 v_exp_f32, 4 x (v_bfe_u32 16,1 + v_add3_u32) rtne rounding, v_cmp_u_f32 + v_cndmask
//     NaN select, 8 v_perm_b32, 3 v_add_f32, 2 v_mov_b32, 1 v_max_f32
//   - rescale gate on a loop-carried value: 16 v_mul_f32 when taken (rare: skipped)
//   - a partial-tile mask in clang-17's shape (hipcc/hiprtc 5.7): the full-tile side sets a
//     flag and jumps with s_cbranch_execz into the mask block, then around it; with exec full
//     the execz is never taken, so the mask (6 VALU) is off the path
//   - group A: 2 v_add_f32; group B: 1 buffer_load_dword
//   - s_waitcnt vmcnt(0), s_nop 0 (1 wait state), loop counter, back edge
// report_noloop: one MFMA and no loop.
// The labels are plain local symbols (not .L), as in hand-written assembly such as AITER's:
// the disassembly shows them as symbols, and the analysis must not cut the kernel there.
  .amdgcn_target "amdgcn-amd-amdhsa--gfx942"
  .text
  .globl report_loop
  .p2align 8
  .type report_loop,@function
report_loop:
  s_load_dword s10, s[0:1], 0x0
  s_load_dword s11, s[0:1], 0x4
  v_lshrrev_b32_e32 v1, 6, v0
  v_readfirstlane_b32 s5, v1
  s_cmp_gt_u32 s5, 3
  s_cselect_b64 s[6:7], -1, 0
  s_mov_b32 s4, 0
  s_waitcnt lgkmcnt(0)
report_loop_head:
  s_cmp_eq_u32 s4, 0
  s_cbranch_scc1 report_loop_qk
  v_mfma_f32_16x16x16_bf16 v[0:3], v[4:5], v[6:7], v[0:3]
  v_mfma_f32_16x16x16_bf16 v[0:3], v[4:5], v[6:7], v[0:3]
  v_mfma_f32_16x16x16_bf16 v[0:3], v[4:5], v[6:7], v[0:3]
  v_mfma_f32_16x16x16_bf16 v[0:3], v[4:5], v[6:7], v[0:3]
  v_mfma_f32_16x16x16_bf16 v[0:3], v[4:5], v[6:7], v[0:3]
  v_mfma_f32_16x16x16_bf16 v[0:3], v[4:5], v[6:7], v[0:3]
  v_mfma_f32_16x16x16_bf16 v[0:3], v[4:5], v[6:7], v[0:3]
  v_mfma_f32_16x16x16_bf16 v[0:3], v[4:5], v[6:7], v[0:3]
  v_mfma_f32_16x16x16_bf16 v[0:3], v[4:5], v[6:7], v[0:3]
  v_mfma_f32_16x16x16_bf16 v[0:3], v[4:5], v[6:7], v[0:3]
  v_mfma_f32_16x16x16_bf16 v[0:3], v[4:5], v[6:7], v[0:3]
  v_mfma_f32_16x16x16_bf16 v[0:3], v[4:5], v[6:7], v[0:3]
  v_mfma_f32_16x16x16_bf16 v[0:3], v[4:5], v[6:7], v[0:3]
  v_mfma_f32_16x16x16_bf16 v[0:3], v[4:5], v[6:7], v[0:3]
  v_mfma_f32_16x16x16_bf16 v[0:3], v[4:5], v[6:7], v[0:3]
  v_mfma_f32_16x16x16_bf16 v[0:3], v[4:5], v[6:7], v[0:3]
  v_mfma_f32_16x16x16_bf16 v[0:3], v[4:5], v[6:7], v[0:3]
  v_mfma_f32_16x16x16_bf16 v[0:3], v[4:5], v[6:7], v[0:3]
  v_mfma_f32_16x16x16_bf16 v[0:3], v[4:5], v[6:7], v[0:3]
  v_mfma_f32_16x16x16_bf16 v[0:3], v[4:5], v[6:7], v[0:3]
  v_mfma_f32_16x16x16_bf16 v[0:3], v[4:5], v[6:7], v[0:3]
  v_mfma_f32_16x16x16_bf16 v[0:3], v[4:5], v[6:7], v[0:3]
  v_mfma_f32_16x16x16_bf16 v[0:3], v[4:5], v[6:7], v[0:3]
  v_mfma_f32_16x16x16_bf16 v[0:3], v[4:5], v[6:7], v[0:3]
  v_mfma_f32_16x16x16_bf16 v[0:3], v[4:5], v[6:7], v[0:3]
  v_mfma_f32_16x16x16_bf16 v[0:3], v[4:5], v[6:7], v[0:3]
  v_mfma_f32_16x16x16_bf16 v[0:3], v[4:5], v[6:7], v[0:3]
  v_mfma_f32_16x16x16_bf16 v[0:3], v[4:5], v[6:7], v[0:3]
  v_mfma_f32_16x16x16_bf16 v[0:3], v[4:5], v[6:7], v[0:3]
  v_mfma_f32_16x16x16_bf16 v[0:3], v[4:5], v[6:7], v[0:3]
  v_mfma_f32_16x16x16_bf16 v[0:3], v[4:5], v[6:7], v[0:3]
  v_mfma_f32_16x16x16_bf16 v[0:3], v[4:5], v[6:7], v[0:3]
report_loop_qk:
  v_mfma_f32_16x16x16_bf16 v[8:11], v[4:5], v[6:7], v[8:11]
  v_mfma_f32_16x16x16_bf16 v[8:11], v[4:5], v[6:7], v[8:11]
  v_mfma_f32_16x16x16_bf16 v[8:11], v[4:5], v[6:7], v[8:11]
  v_mfma_f32_16x16x16_bf16 v[8:11], v[4:5], v[6:7], v[8:11]
  v_mfma_f32_16x16x16_bf16 v[8:11], v[4:5], v[6:7], v[8:11]
  v_mfma_f32_16x16x16_bf16 v[8:11], v[4:5], v[6:7], v[8:11]
  v_mfma_f32_16x16x16_bf16 v[8:11], v[4:5], v[6:7], v[8:11]
  v_mfma_f32_16x16x16_bf16 v[8:11], v[4:5], v[6:7], v[8:11]
  v_mfma_f32_16x16x16_bf16 v[8:11], v[4:5], v[6:7], v[8:11]
  v_mfma_f32_16x16x16_bf16 v[8:11], v[4:5], v[6:7], v[8:11]
  v_mfma_f32_16x16x16_bf16 v[8:11], v[4:5], v[6:7], v[8:11]
  v_mfma_f32_16x16x16_bf16 v[8:11], v[4:5], v[6:7], v[8:11]
  v_mfma_f32_16x16x16_bf16 v[8:11], v[4:5], v[6:7], v[8:11]
  v_mfma_f32_16x16x16_bf16 v[8:11], v[4:5], v[6:7], v[8:11]
  v_mfma_f32_16x16x16_bf16 v[8:11], v[4:5], v[6:7], v[8:11]
  v_mfma_f32_16x16x16_bf16 v[8:11], v[4:5], v[6:7], v[8:11]
  v_mfma_f32_16x16x16_bf16 v[8:11], v[4:5], v[6:7], v[8:11]
  v_mfma_f32_16x16x16_bf16 v[8:11], v[4:5], v[6:7], v[8:11]
  v_mfma_f32_16x16x16_bf16 v[8:11], v[4:5], v[6:7], v[8:11]
  v_mfma_f32_16x16x16_bf16 v[8:11], v[4:5], v[6:7], v[8:11]
  v_mfma_f32_16x16x16_bf16 v[8:11], v[4:5], v[6:7], v[8:11]
  v_mfma_f32_16x16x16_bf16 v[8:11], v[4:5], v[6:7], v[8:11]
  v_mfma_f32_16x16x16_bf16 v[8:11], v[4:5], v[6:7], v[8:11]
  v_mfma_f32_16x16x16_bf16 v[8:11], v[4:5], v[6:7], v[8:11]
  v_mfma_f32_16x16x16_bf16 v[8:11], v[4:5], v[6:7], v[8:11]
  v_mfma_f32_16x16x16_bf16 v[8:11], v[4:5], v[6:7], v[8:11]
  v_mfma_f32_16x16x16_bf16 v[8:11], v[4:5], v[6:7], v[8:11]
  v_mfma_f32_16x16x16_bf16 v[8:11], v[4:5], v[6:7], v[8:11]
  v_mfma_f32_16x16x16_bf16 v[8:11], v[4:5], v[6:7], v[8:11]
  v_mfma_f32_16x16x16_bf16 v[8:11], v[4:5], v[6:7], v[8:11]
  v_mfma_f32_16x16x16_bf16 v[8:11], v[4:5], v[6:7], v[8:11]
  v_mfma_f32_16x16x16_bf16 v[8:11], v[4:5], v[6:7], v[8:11]
  s_nop 3
  ds_read_b64 v[12:13], v20
  ds_read_b64 v[14:15], v20 offset:8
  s_waitcnt lgkmcnt(0)
  s_barrier
  v_exp_f32_e32 v24, v22
  v_exp_f32_e32 v25, v22
  v_exp_f32_e32 v26, v22
  v_exp_f32_e32 v27, v22
  v_exp_f32_e32 v28, v22
  v_exp_f32_e32 v29, v22
  v_exp_f32_e32 v30, v22
  v_exp_f32_e32 v31, v22
  v_exp_f32_e32 v32, v22
  v_exp_f32_e32 v33, v22
  v_exp_f32_e32 v34, v22
  v_exp_f32_e32 v35, v22
  v_exp_f32_e32 v36, v22
  v_exp_f32_e32 v37, v22
  v_exp_f32_e32 v38, v22
  v_exp_f32_e32 v39, v22
  v_bfe_u32 v50, v24, 16, 1
  v_add3_u32 v50, v24, v50, s12
  v_bfe_u32 v51, v25, 16, 1
  v_add3_u32 v51, v25, v51, s12
  v_bfe_u32 v52, v26, 16, 1
  v_add3_u32 v52, v26, v52, s12
  v_bfe_u32 v53, v27, 16, 1
  v_add3_u32 v53, v27, v53, s12
  v_cmp_u_f32_e32 vcc, v22, v22
  v_cndmask_b32_e32 v23, v23, v21, vcc
  v_perm_b32 v60, v24, v25, s13
  v_perm_b32 v61, v26, v27, s13
  v_perm_b32 v62, v28, v29, s13
  v_perm_b32 v63, v30, v31, s13
  v_perm_b32 v64, v24, v25, s13
  v_perm_b32 v65, v26, v27, s13
  v_perm_b32 v66, v28, v29, s13
  v_perm_b32 v67, v30, v31, s13
  v_add_f32_e32 v70, v71, v70
  v_add_f32_e32 v70, v72, v70
  v_add_f32_e32 v70, v73, v70
  v_mov_b32_e32 v74, v70
  v_mov_b32_e32 v75, v71
  v_max_f32_e32 v76, v77, v76
  s_add_u32 s11, s11, s4
  s_cmp_eq_u32 s11, 0
  s_cbranch_scc1 report_loop_norescale
  v_mul_f32_e32 v0, v30, v0
  v_mul_f32_e32 v1, v30, v1
  v_mul_f32_e32 v2, v30, v2
  v_mul_f32_e32 v3, v30, v3
  v_mul_f32_e32 v4, v30, v4
  v_mul_f32_e32 v5, v30, v5
  v_mul_f32_e32 v6, v30, v6
  v_mul_f32_e32 v7, v30, v7
  v_mul_f32_e32 v8, v30, v8
  v_mul_f32_e32 v9, v30, v9
  v_mul_f32_e32 v10, v30, v10
  v_mul_f32_e32 v11, v30, v11
  v_mul_f32_e32 v12, v30, v12
  v_mul_f32_e32 v13, v30, v13
  v_mul_f32_e32 v14, v30, v14
  v_mul_f32_e32 v15, v30, v15
report_loop_norescale:
  s_cmp_gt_u32 s4, s11
  s_cbranch_scc1 report_loop_partial
  s_mov_b64 s[20:21], 0
  s_cbranch_execz report_loop_mask
  s_branch report_loop_masked
report_loop_partial:
  s_mov_b64 s[20:21], -1
report_loop_mask:
  v_cmp_gt_u32_e32 vcc, s11, v44
  v_cndmask_b32_e32 v45, v46, v45, vcc
  v_cndmask_b32_e32 v47, v46, v47, vcc
  v_cmp_gt_u32_e32 vcc, s11, v48
  v_cndmask_b32_e32 v49, v46, v49, vcc
  v_cndmask_b32_e32 v54, v46, v54, vcc
report_loop_masked:
  s_and_b64 vcc, exec, s[6:7]
  s_cbranch_vccnz report_loop_groupb
  v_add_f32_e32 v40, v41, v40
  v_add_f32_e32 v40, v41, v40
  s_branch report_loop_groupend
report_loop_groupb:
  buffer_load_dword v42, v43, s[16:19], 0 offen
report_loop_groupend:
  s_waitcnt vmcnt(0)
  s_nop 0
  s_add_u32 s4, s4, 1
  s_cmp_lt_u32 s4, s10
  s_cbranch_scc1 report_loop_head
  s_endpgm
.Lreport_loop_end:
  .size report_loop, .Lreport_loop_end-report_loop

  .globl report_noloop
  .p2align 8
  .type report_noloop,@function
report_noloop:
  v_mfma_f32_16x16x16_bf16 v[0:3], v[4:5], v[6:7], v[0:3]
  s_endpgm
.Lreport_noloop_end:
  .size report_noloop, .Lreport_noloop_end-report_noloop

  .rodata
  .p2align 6
  .amdhsa_kernel report_loop
    .amdhsa_user_sgpr_kernarg_segment_ptr 1
    .amdhsa_next_free_vgpr 80
    .amdhsa_next_free_sgpr 24
    .amdhsa_accum_offset 80
    .amdhsa_group_segment_fixed_size 4096
  .end_amdhsa_kernel
  .p2align 6
  .amdhsa_kernel report_noloop
    .amdhsa_next_free_vgpr 8
    .amdhsa_next_free_sgpr 8
    .amdhsa_accum_offset 8
  .end_amdhsa_kernel

  .amdgpu_metadata
---
amdhsa.kernels:
  - .args:
      - .offset: 0
        .size: 8
        .value_kind: global_buffer
        .address_space: global
    .group_segment_fixed_size: 4096
    .kernarg_segment_align: 8
    .kernarg_segment_size: 8
    .max_flat_workgroup_size: 512
    .name: report_loop
    .private_segment_fixed_size: 0
    .sgpr_count: 24
    .sgpr_spill_count: 0
    .symbol: report_loop.kd
    .vgpr_count: 80
    .agpr_count: 0
    .vgpr_spill_count: 0
    .wavefront_size: 64
  - .group_segment_fixed_size: 0
    .kernarg_segment_align: 8
    .kernarg_segment_size: 0
    .max_flat_workgroup_size: 64
    .name: report_noloop
    .private_segment_fixed_size: 0
    .sgpr_count: 8
    .sgpr_spill_count: 0
    .symbol: report_noloop.kd
    .vgpr_count: 8
    .agpr_count: 0
    .vgpr_spill_count: 0
    .wavefront_size: 64
amdhsa.target: amdgcn-amd-amdhsa--gfx942
amdhsa.version:
  - 1
  - 2
...
  .end_amdgpu_metadata
