# attngen 0.1.0 | the default set for the build | generated, do not edit
# Variants with a NAME_merge kernel (kv_split=tail).
set(ATTNGEN_MERGE_VARIANTS
  attn_fwd_d128_bshd_rtne_q2_kv96_w8_tail_vt_mfma_gfx942
  attn_fwd_d128_bshd_rtna_q2_kv96_w8_tail_vt_mfma_gfx942
  attn_fwd_d128_bshd_rtz_q2_kv96_w8_tail_vt_mfma_gfx942
  attn_fwd_d128_bhsd_rtne_q2_kv96_w8_tail_vt_mfma_gfx942
  attn_fwd_d128_bhsd_rtna_q2_kv96_w8_tail_vt_mfma_gfx942
  attn_fwd_d128_bhsd_rtz_q2_kv96_w8_tail_vt_mfma_gfx942
)
