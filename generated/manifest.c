/* attngen 0.1.0 | manifest of the default variant set | generated, do not edit */
#include "variant.h"

const attngen__variant_desc attngen__manifest[] = {
  {"attn_fwd_d128_bshd_rtne_q2_kv64_w8_nosplit_mfma_gfx942", 0, 0, 0, 2, 64, 8, 0, 0, 512, 256, 0},
  {"attn_fwd_d128_bshd_rtne_q2_kv64_w8_tail_mfma_gfx942", 0, 0, 0, 2, 64, 8, 1, 0, 512, 256, 0},
  {"attn_fwd_d128_bshd_rtna_q2_kv64_w8_nosplit_mfma_gfx942", 0, 0, 1, 2, 64, 8, 0, 0, 512, 256, 0},
  {"attn_fwd_d128_bshd_rtna_q2_kv64_w8_tail_mfma_gfx942", 0, 0, 1, 2, 64, 8, 1, 0, 512, 256, 0},
  {"attn_fwd_d128_bshd_rtz_q2_kv64_w8_nosplit_mfma_gfx942", 0, 0, 2, 2, 64, 8, 0, 0, 512, 256, 0},
  {"attn_fwd_d128_bshd_rtz_q2_kv64_w8_tail_mfma_gfx942", 0, 0, 2, 2, 64, 8, 1, 0, 512, 256, 0},
  {"attn_fwd_d128_bhsd_rtne_q2_kv64_w8_nosplit_mfma_gfx942", 0, 1, 0, 2, 64, 8, 0, 0, 512, 256, 0},
  {"attn_fwd_d128_bhsd_rtne_q2_kv64_w8_tail_mfma_gfx942", 0, 1, 0, 2, 64, 8, 1, 0, 512, 256, 0},
  {"attn_fwd_d128_bhsd_rtna_q2_kv64_w8_nosplit_mfma_gfx942", 0, 1, 1, 2, 64, 8, 0, 0, 512, 256, 0},
  {"attn_fwd_d128_bhsd_rtna_q2_kv64_w8_tail_mfma_gfx942", 0, 1, 1, 2, 64, 8, 1, 0, 512, 256, 0},
  {"attn_fwd_d128_bhsd_rtz_q2_kv64_w8_nosplit_mfma_gfx942", 0, 1, 2, 2, 64, 8, 0, 0, 512, 256, 0},
  {"attn_fwd_d128_bhsd_rtz_q2_kv64_w8_tail_mfma_gfx942", 0, 1, 2, 2, 64, 8, 1, 0, 512, 256, 0},
  {"attn_fwd_d128_bshd_rtne_q3_kv32_w8_nosplit_mfma_gfx942", 0, 0, 0, 3, 32, 8, 0, 0, 512, 384, 0},
  {"attn_fwd_d128_bshd_rtne_q3_kv32_w8_tail_mfma_gfx942", 0, 0, 0, 3, 32, 8, 1, 0, 512, 384, 0},
  {"attn_fwd_d128_bshd_rtna_q3_kv32_w8_nosplit_mfma_gfx942", 0, 0, 1, 3, 32, 8, 0, 0, 512, 384, 0},
  {"attn_fwd_d128_bshd_rtna_q3_kv32_w8_tail_mfma_gfx942", 0, 0, 1, 3, 32, 8, 1, 0, 512, 384, 0},
  {"attn_fwd_d128_bshd_rtz_q3_kv32_w8_nosplit_mfma_gfx942", 0, 0, 2, 3, 32, 8, 0, 0, 512, 384, 0},
  {"attn_fwd_d128_bshd_rtz_q3_kv32_w8_tail_mfma_gfx942", 0, 0, 2, 3, 32, 8, 1, 0, 512, 384, 0},
  {"attn_fwd_d128_bhsd_rtne_q3_kv32_w8_nosplit_mfma_gfx942", 0, 1, 0, 3, 32, 8, 0, 0, 512, 384, 0},
  {"attn_fwd_d128_bhsd_rtne_q3_kv32_w8_tail_mfma_gfx942", 0, 1, 0, 3, 32, 8, 1, 0, 512, 384, 0},
  {"attn_fwd_d128_bhsd_rtna_q3_kv32_w8_nosplit_mfma_gfx942", 0, 1, 1, 3, 32, 8, 0, 0, 512, 384, 0},
  {"attn_fwd_d128_bhsd_rtna_q3_kv32_w8_tail_mfma_gfx942", 0, 1, 1, 3, 32, 8, 1, 0, 512, 384, 0},
  {"attn_fwd_d128_bhsd_rtz_q3_kv32_w8_nosplit_mfma_gfx942", 0, 1, 2, 3, 32, 8, 0, 0, 512, 384, 0},
  {"attn_fwd_d128_bhsd_rtz_q3_kv32_w8_tail_mfma_gfx942", 0, 1, 2, 3, 32, 8, 1, 0, 512, 384, 0},
  {"attn_fwd_d128_bshd_rtne_q1_kv64_w4_nosplit_mma_sm90", 1, 0, 0, 1, 64, 4, 0, 1, 128, 64, 81920},
  {"attn_fwd_d128_bshd_rtna_q1_kv64_w4_nosplit_mma_sm90", 1, 0, 1, 1, 64, 4, 0, 1, 128, 64, 81920},
  {"attn_fwd_d128_bshd_rtz_q1_kv64_w4_nosplit_mma_sm90", 1, 0, 2, 1, 64, 4, 0, 1, 128, 64, 81920},
  {"attn_fwd_d128_bhsd_rtne_q1_kv64_w4_nosplit_mma_sm90", 1, 1, 0, 1, 64, 4, 0, 1, 128, 64, 81920},
  {"attn_fwd_d128_bhsd_rtna_q1_kv64_w4_nosplit_mma_sm90", 1, 1, 1, 1, 64, 4, 0, 1, 128, 64, 81920},
  {"attn_fwd_d128_bhsd_rtz_q1_kv64_w4_nosplit_mma_sm90", 1, 1, 2, 1, 64, 4, 0, 1, 128, 64, 81920},
  {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0} /* end */
};
const size_t attngen__manifest_count = 30;
