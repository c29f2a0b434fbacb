-- target_sm90.lua: launch geometry and template constants of the NVIDIA Hopper (sm_90a)
-- kernel family (templates/sm90/attn_fwd.cu.in). Each warp owns q_tiles 16-row Q tiles;
-- shared memory holds the block's Q tile and K and V tiles, each double-buffered:
--   [ Q: block_m x 128 | K stage 0 | K stage 1 | V stage 0 | V stage 1 ], rows of 256 bytes.
local M = {}

-- impl = "wgmma" variants are another family (config.families): target_sm90_wgmma.lua.

local HEAD_DIM = 128
local ROW_BYTES = HEAD_DIM * 2   -- one bf16 row of the head dimension
local CHUNKS_PER_ROW = ROW_BYTES // 16
M.SOFTMAX_STEP = 64

function M.derive(v)
  local threads = v.waves * 32
  local block_m = v.waves * v.q_tiles * 16
  local q_bytes = block_m * ROW_BYTES
  local kv_stage_bytes = v.kv_tile * ROW_BYTES
  local d = {
    threads = threads,
    block_m = block_m,
    head_dim = HEAD_DIM,
    row_bytes = ROW_BYTES,
    -- byte offsets of the shared-memory regions
    smem_q = 0,
    smem_k = q_bytes,
    smem_v = q_bytes + 2 * kv_stage_bytes,
    kv_stage_bytes = kv_stage_bytes,
    smem_bytes = q_bytes + 4 * kv_stage_bytes,
    -- 16-byte cp.async chunks per thread for one Q block / one K or V tile
    q_chunks_per_thread = block_m * CHUNKS_PER_ROW // threads,
    kv_chunks_per_thread = v.kv_tile * CHUNKS_PER_ROW // threads,
    -- mma.m16n8k16 tiling: S has kv_tile/8 n-tiles of 8 keys
    s_ntiles = v.kv_tile // 8,
    -- The online softmax advances in steps of SOFTMAX_STEP keys, the CPU reference's step
    -- (ATTNGEN__REF_KV_TILE in runtime/numerics/numerics.h): P is rounded against the same running
    -- max as in the reference, which the 1-ULP contract needs (a 32-key step already gives
    -- > 1 ULP differences on small outputs).
    softmax_steps = v.kv_tile // M.SOFTMAX_STEP,
    softmax_step = M.SOFTMAX_STEP,
    -- Q fragments stay in registers when Q + O + S fit next to each other (32 + 64 +
    -- kv_tile/2 registers per Q tile); otherwise they are re-read from shared memory per k-step.
    q_in_regs = v.q_tiles * (32 + 64 + v.kv_tile // 2) <= 192,
    -- Packed variable-length batches (kargs.cu_q): every bshd variant without the tail split
    -- (the template decodes the sequence per block).
    packed = (v.layout == "bshd" and v.kv_split ~= "tail") and 1 or 0,
  }
  assert(d.q_chunks_per_thread * threads == block_m * CHUNKS_PER_ROW)
  assert(d.kv_chunks_per_thread * threads == v.kv_tile * CHUNKS_PER_ROW)
  return d
end

return M
