-- target_gfx942.lua: launch geometry and template constants of the AMD MI300X (gfx942)
-- kernel family (templates/gfx942/attn_fwd.hip.in). A block is `waves` waves of 64 lanes,
-- each owning q_tiles 16-row Q tiles; the only LDS is the K tile, double-buffered and
-- declared statically (smem_bytes = 0). head_dim 128:
--   [ K buffer 0: kv_tile rows x 272 B | K buffer 1: kv_tile rows x 272 B ]
-- rows padded from 256 to 272 bytes so that 8 lanes reading 8 consecutive rows hit 8
-- distinct groups of 4 LDS banks. head_dim 64: a buffer holds columns 0-31 of its rows, then
-- columns 32-63, 64 bytes per row, the 16-byte chunks of a row swizzled (chunk j at slot
-- j ^ ((row >> 1) & 3)): the same conflict-free reads without padding, and one LDS DMA
-- instruction fills 4 whole rows of one half (see the template). head_dim 256: the head_dim
-- 128 layout with 512-byte rows padded to 528 (528 mod 256 = 16 as 272: the same
-- conflict-free reads), two LDS DMA instructions per key row.
local M = {}

function M.derive(v)
  assert(v.waves == 8, "gfx942 kernel: waves must be 8 (two phase-shifted groups of 4)")
  assert(v.kv_tile % 16 == 0 and v.kv_tile >= 16, "gfx942 kernel: kv_tile must be a multiple of 16")
  assert(v.head_dim == 64 or v.head_dim == 128 or v.head_dim == 256,
    "gfx942 kernel: head_dim must be 64, 128 or 256")
  local head_dim = v.head_dim
  local row_bytes = head_dim * 2
  local k_pitch = head_dim == 64 and row_bytes or row_bytes + 16
  local threads = v.waves * 64
  local block_m = v.waves * v.q_tiles * 16
  local tile_bytes = v.kv_tile * k_pitch
  local d = {
    threads = threads,
    block_m = block_m,
    smem_bytes = 0,                       -- LDS is static (AG_LDS_DECLARE)
    head_dim = head_dim,
    row_bytes = row_bytes,
    lds_bytes = 2 * tile_bytes,           -- K double buffer
    tile_bytes = tile_bytes,              -- one K buffer (power of two not required)
    k_pitch = k_pitch,
    kv_blocks = v.kv_tile // 16,          -- 16-key MFMA blocks per KV tile
    -- LDS-DMA instructions (256 bytes each) per wave per K tile: half a key row (256), one
    -- key row (128) or four half rows (64)
    k_rows_per_wave = v.kv_tile * row_bytes // (256 * v.waves),
    -- V chunks (16 keys, 16 VGPRs at head_dim 128, 8 at 64) loaded ahead in the softmax
    -- phase; the rest stream in during P.V through a ring of v_ahead chunks. q_tiles = 3
    -- cannot hold a whole 64-key V tile next to Q (48), O (96) and P (24) within 256 VGPRs,
    -- q_tiles = 2 not a 96-key one next to Q (32), O (64), S (48) and P (24).
    v_ahead = math.min(v.q_tiles == 2 and 3 or 2, v.kv_tile // 16),
    -- head_dim 256: a 16-key V chunk is 32 VGPRs (8 dwordx4 pieces, one per MFMA column
    -- pair), so V streams through a ring of v_ring pieces instead of whole chunks: Q (32 per
    -- tile) and O (64 per tile) leave no room for a chunk ring next to P.
    v_ring = head_dim == 256 and 8 or 0,
    -- v_path = vt: the pre-pass writes V of each (b, h) as 16-key chunks of 16 * row_bytes
    -- bytes, in MFMA B-operand order (see the template); a block of the pre-pass converts 8
    -- chunks.
    vt = v.v_path == "vt",
    vt_chunk_bytes = 16 * row_bytes,
    -- Softmax form (NUMERICS.md step 4): p = exp2(fma(s, scale_log2, -m)), one rounding
    -- (1) instead of exp2(fl(s * scale_log2) - m) (0). The manifest records it and the CPU
    -- reference follows it per variant.
    score_fma = 1,
    -- Packed variable-length batches (kargs.cu_q; the template's PACKED): bshd variants
    -- without the tail split (a split plan is made for a dense shape) or tile skipping, at
    -- every head dim. The manifest records it; the dispatcher passes the others over for a
    -- packed call.
    packed = (v.layout == "bshd" and v.kv_split ~= "tail" and v.skip ~= "on") and 1 or 0,
    ws_row_floats = head_dim + 2,         -- split partials: O row (fp32) + (m, l) per Q row
    merge_items = block_m * (head_dim // 8) // threads, -- (row, 8-column chunk) items per thread
  }
  assert(d.k_rows_per_wave * v.waves * 256 == v.kv_tile * row_bytes)
  assert(d.merge_items * threads == block_m * (head_dim // 8))
  assert(d.lds_bytes <= 65536, "gfx942 kernel: K double buffer exceeds 64 KiB of LDS")
  return d
end

return M
