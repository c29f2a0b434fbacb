-- target_gfx942.lua: launch geometry and template constants of the AMD MI300X (gfx942)
-- kernel family (templates/gfx942/attn_fwd.hip.in). A block is `waves` waves of 64 lanes,
-- each owning q_tiles 16-row Q tiles; the only LDS is the K tile, double-buffered and
-- declared statically (smem_bytes = 0):
--   [ K buffer 0: kv_tile rows x 272 B | K buffer 1: kv_tile rows x 272 B ]
-- rows padded from 256 to 272 bytes so that 8 lanes reading 8 consecutive rows hit 8
-- distinct groups of 4 LDS banks.
local M = {}

local HEAD_DIM = 128
local ROW_BYTES = HEAD_DIM * 2
local K_PITCH = ROW_BYTES + 16

function M.derive(v)
  assert(v.waves == 8, "gfx942 kernel: waves must be 8 (two phase-shifted groups of 4)")
  assert(v.kv_tile % 16 == 0 and v.kv_tile >= 16, "gfx942 kernel: kv_tile must be a multiple of 16")
  local threads = v.waves * 64
  local block_m = v.waves * v.q_tiles * 16
  local tile_bytes = v.kv_tile * K_PITCH
  local d = {
    threads = threads,
    block_m = block_m,
    smem_bytes = 0,                       -- LDS is static (AG_LDS_DECLARE)
    head_dim = HEAD_DIM,
    lds_bytes = 2 * tile_bytes,           -- K double buffer
    tile_bytes = tile_bytes,              -- one K buffer (power of two not required)
    k_pitch = K_PITCH,
    kv_blocks = v.kv_tile // 16,          -- 16-key MFMA blocks per KV tile
    k_rows_per_wave = v.kv_tile // v.waves, -- LDS-DMA instructions per wave per K tile
    -- V chunks (16 keys, 16 VGPRs) loaded ahead in the softmax phase; the rest stream in
    -- during P.V through a ring of v_ahead chunks. q_tiles = 3 cannot hold a whole 64-key V
    -- tile next to Q (48), O (96) and P (24) within 256 VGPRs, q_tiles = 2 not a 96-key one
    -- next to Q (32), O (64), S (48) and P (24).
    v_ahead = math.min(v.q_tiles == 2 and 3 or 2, v.kv_tile // 16),
    -- v_path = vt: the pre-pass writes V of each (b, h) as 16-key chunks of 4096 bytes, in
    -- MFMA B-operand order (see the template); a block of the pre-pass converts 8 chunks.
    vt = v.v_path == "vt",
    vt_chunk_bytes = 16 * ROW_BYTES,
    -- Softmax form (NUMERICS.md step 4): p = exp2(fma(s, scale_log2, -m)), one rounding
    -- (1) instead of exp2(fl(s * scale_log2) - m) (0). The manifest records it and the CPU
    -- reference follows it per variant.
    score_fma = 1,
    ws_row_floats = HEAD_DIM + 2,         -- split partials: O row (fp32) + (m, l) per Q row
    merge_items = block_m * 16 // threads, -- (row, 8-column chunk) items per merge thread
  }
  assert(d.k_rows_per_wave * v.waves == v.kv_tile)
  assert(d.merge_items * threads == block_m * 16)
  assert(d.lds_bytes <= 65536, "gfx942 kernel: K double buffer exceeds 64 KiB of LDS")
  return d
end

return M
