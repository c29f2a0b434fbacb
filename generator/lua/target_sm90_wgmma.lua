-- target_sm90_wgmma.lua: launch geometry and template constants of the sm90 wgmma kernel
-- family (templates/sm90/attn_fwd_wgmma.cu.in, impl = "wgmma"; config.families).
--
-- Block: 3 warpgroups (waves = 12): warpgroup 0 is the producer (cp.async from its 128
-- threads, or with load = tma bulk tensor copies from one thread, into a ring of K and V
-- stages), warpgroups 1 and 2 are consumers in ping-pong, each owning 64 query rows
-- per q_tile (q_tiles = 1: block_m = 128). Shared memory, from a 1024-byte aligned base
-- (the 128-byte swizzle repeats every 1024 bytes; the launch asks for 1024 extra bytes so the
-- kernel can round its base up):
--   Q        q_bufs x [head_dim / 64 column boxes (d 0..63, 64..127, ...) x block_m rows x
--            128 bytes] (the 128 kernels' two boxes are "halves" in the template); two buffers
--            (load = tma, when they fit) let the next job's Q land during the current job
--   K ring   stages x [boxes x kv_tile rows x 128 bytes]
--   V ring   stages x [boxes x kv_tile rows x 128 bytes]
--   O staging (load = tma only): o_bufs x [boxes x 64 rows x 128 bytes], a consumer's
--            64 output rows, swizzled like Q, which one producer thread stores with bulk
--            tensor copies (two buffers when they fit, one per consumer; else one, taken in
--            turn; else none: the consumers store O from registers)
--   mbarriers: q_full[q_bufs], q_empty[q_bufs], full_k[stages], full_v[stages],
--            empty_k[stages], empty_v[stages], o_full[o_bufs] (tma); then (tma) 16 bytes
--            where the producer thread keeps its job count and the next Q tile's
--            coordinates (held in its 24 registers they spilled); skip = on: 32 bytes more
--            (the job's list entry, first tile, done counts, held list word), then 3 x 64 uint32, the verdict words of the
--            jobs in flight, then the job ring (16 x 8 bytes; mask = causal at head_dim 64
--            too: the dynamic causal order)
-- stages: the most (<= 4) that fit next to one Q and one O buffer; then a second Q buffer, then
-- a second O buffer, each when it fits (kv 176: 2 stages, 1 Q, 1 O; 144: 2, 2, 1; 128: 2, 2, 2;
-- 96: 3, 2, 1; 64: 4, 2, 2; head_dim 256: kv 64: 2, 1, 1; 80: 2, 1, 0).
-- The grid is persistent (runtime: min(jobs, SMs) blocks, each looping over jobs).
local M = {}

local HALF_ROW_BYTES = 128            -- 64 bf16: one 128-byte swizzle row
local SMEM_LIMIT = 227 * 1024         -- Hopper: dynamic shared memory per block (opt-in)
local ALIGN_SLACK = 1024
local MAX_STAGES = 4
local PRODUCER_REGS = 40              -- setmaxnreg budgets: 128*40 + 256*232 <= 65536
local CONSUMER_REGS = 232
-- load = tma: one producer thread issues the bulk tensor copies, the producer warpgroup keeps
-- 24 registers and the consumers get the rest, a multiple of 8: 2 consumers (waves = 12)
-- 128*24 + 256*240 = 64512 <= 65536, 3 consumers (waves = 16) 128*24 + 384*160 = 64512.
local TMA_PRODUCER_REGS = 24
local REGS_PER_SM = 65536
-- skip = on (load = tma): the verdict words of the jobs in flight, 3 x SKIP_WORDS uint32 after
-- the producer's 16 bytes (SKIP_WORDS x 32 KV tiles per job at most: the runtime refuses more),
-- then the job ring: JOB_RING (round, job) pairs of 8 bytes (the dynamic job order).
local SKIP_WORDS = 64
local JOB_RING = 16
-- kv_split = tail: threads per block of NAME_merge (the runtime's ATTNGEN__WGMMA_MERGE_THREADS
-- launches it so): 128 threads = 8 rows of 16 eight-column chunks at head_dim 128.
local MERGE_THREADS = 128

function M.derive(v)
  -- (head_dim 256: the 64-key tiles only; with the packed code in NAME_var the RTNA 80-key
  -- kernel's NAME spilled 24 bytes, 0 without; the dispatcher takes the 64-key kernel for a
  -- packed call, as it passes over every variant without the code)
  local packed_code = v.layout == "bshd" and v.kv_split ~= "tail" and v.skip ~= "on"
    and (v.head_dim ~= 256 or v.kv_tile == 64)
  local boxes = v.head_dim // 64       -- 64-column boxes per row
  local consumers = v.waves // 4 - 1   -- warpgroups after the producer
  local block_m = 64 * v.q_tiles * consumers
  local q_bytes = boxes * block_m * HALF_ROW_BYTES
  local kv_half_bytes = v.kv_tile * HALF_ROW_BYTES
  local kv_stage_bytes = boxes * kv_half_bytes
  local tma = v.load == "tma"
  local o_buf_bytes = tma and (64 * boxes * HALF_ROW_BYTES) or 0
  local skip = v.skip == "on"
  -- The dynamic causal job order (templates/sm90/attn_fwd_wgmma.cu.in dyn_job; the runtime's
  -- dynamic_ok in plan_launch names the same kernels): the head_dim-64 causal TMA kernels.
  local causal_dyn = tma and v.mask == "causal" and v.head_dim == 64
  local function total(stages, o_bufs, q_bufs)
    local bars = 8 * (2 * q_bufs + 4 * stages + o_bufs) + (tma and 16 or 0)
      + (skip and 32 + 3 * SKIP_WORDS * 4 + 8 * JOB_RING or 0)
      + (causal_dyn and 8 * JOB_RING or 0)
    return q_bufs * q_bytes + 2 * stages * kv_stage_bytes + o_bufs * o_buf_bytes + bars
      + ALIGN_SLACK
  end
  local o_bufs, q_bufs = tma and 1 or 0, 1
  local stages = MAX_STAGES
  while stages > 2 and total(stages, o_bufs, 1) > SMEM_LIMIT do stages = stages - 1 end
  -- (head_dim 256 with 80-key tiles: two stages and one Q buffer leave no room for an O
  -- buffer; the consumers store O from registers)
  if tma and total(stages, o_bufs, 1) > SMEM_LIMIT then o_bufs = 0 end
  if tma then
    if total(stages, 1, 2) <= SMEM_LIMIT then q_bufs = 2 end
    if total(stages, consumers, q_bufs) <= SMEM_LIMIT then o_bufs = consumers end
  end
  return {
    threads = v.waves * 32,
    block_m = block_m,
    smem_bytes = total(stages, o_bufs, q_bufs),
    head_dim = v.head_dim,
    boxes = boxes,
    consumers = consumers,
    stages = stages,
    q_bytes = q_bytes,
    q_half_bytes = block_m * HALF_ROW_BYTES,
    kv_half_bytes = kv_half_bytes,
    kv_stage_bytes = kv_stage_bytes,
    o_bufs = o_bufs,
    q_bufs = q_bufs,
    o_buf_bytes = o_buf_bytes,
    tma = tma,
    skip_words = SKIP_WORDS,
    job_ring = JOB_RING,
    causal_dyn = causal_dyn,
    -- Variable lengths: per-batch key lengths (kargs.kv_len) and packed batches (kargs.cu_q;
    -- the host takes those with bshd and head_dim 128, never with the tail split or
    -- skipping: packed_code). In the causal kernels, the head_dim-64 ones without the split
    -- (the split ones spilled 4-8 bytes with two entries) and those with the packed code,
    -- that code is a second entry point, NAME_var, which the runtime launches for such
    -- calls; NAME itself is built without it (the packed and the key-length code cost the
    -- dense calls of the head_dim-128 causal kernel 1-7% and 0.5-5%, head_dim 64 about 1%;
    -- the key-length code alone costs the head_dim-128 dense tail kernels nothing measurable,
    -- so those keep one entry: bench/RESULTS.md runs M68-M71).
    packed_code = packed_code,
    packed = packed_code and 1 or 0,
    var_entry = (packed_code or ((v.mask == "causal" or v.head_dim == 64) and v.skip ~= "on"
      and v.kv_split ~= "tail")) and 1 or 0,
    -- Softmax form (docs/NUMERICS.md step 4): 2 = x = fma(s, scale_log2, -m), one FFMA per
    -- score, the max over raw scores, for a positive scale (fl(fl(s * scale_log2) - m) for
    -- scale <= 0), in the RTNE / RTNA kernels (dense, causal and skip: a skip call with
    -- nothing skipped stays bitwise the dense one); 0 = fl(fl(s * scale_log2) - m) in RTZ
    -- (the fma form's p = 1 - tiny at a row's max key truncates to 0.996) and in the RTNA
    -- head_dim-256 kernel with 80-key tiles (with form 2 ptxas spills 12 bytes there; RTNE
    -- is spill-free). The manifest records it and the CPU reference follows it per variant.
    score_fma = (v.rounding ~= "rtz"
      and not (v.head_dim == 256 and v.kv_tile == 80 and v.rounding == "rtna")) and 2 or 0,
    -- Tail KV split (kv_split = tail; runtime/src/split_plan.h): a part's row in the workspace
    -- is head_dim fp32 O values (unnormalised), its (m, l) pair after the part's block_m rows;
    -- NAME_merge runs merge_threads threads per block (ATTNGEN__WGMMA_MERGE_THREADS).
    ws_row_floats = v.head_dim + 2,
    merge_threads = MERGE_THREADS,
    reg_producer = tma and TMA_PRODUCER_REGS or PRODUCER_REGS,
    reg_consumer = tma and
      (REGS_PER_SM - 128 * TMA_PRODUCER_REGS) // (128 * consumers) // 8 * 8 or CONSUMER_REGS,
  }
end

return M
