/* split_plan.h: the tail KV split (kv_split = "tail") of the gfx942 kernels and of the sm90
 * wgmma TMA kernels, planned on the host per call. When the last round of blocks leaves CUs
 * (SMs) idle, the q-jobs of that round are split into KV parts that run in parallel;
 * NAME_merge combines the parts.
 *
 * Launch of a split variant (both kernels take the same attngen_kargs, filled by
 * attngen__split_plan_apply):
 *   main:  grid = (plan.grid_x, 1, 1), block = (threads, 1, 1), no dynamic LDS.
 *          Block w < split_first runs q-job w over all keys and writes O/LSE directly.
 *          Block w >= split_first, t = w - split_first, runs q-job split_first + t / num_splits
 *          over keys [p * kv_per_split, min(Skv, (p + 1) * kv_per_split)), p = t % num_splits,
 *          and writes its unnormalized fp32 O rows and (m, l) per row into ws.
 *          q-job j = (b * H + h) * num_q_blocks + qb (q-block fastest, as dispatched).
 *   merge: only when plan.merge_grid_x > 0, after main on the same stream:
 *          grid = (plan.merge_grid_x, 1, 1), block = (threads, 1, 1); block s merges q-job
 *          split_first + s (parts in the fixed order 0..num_splits-1, deterministic).
 * Workspace (a.ws, fp32): plan.ws_rows rows of the variant's ws_row_bytes (the generator's
 *   number, in the manifest: 128 O values + (m, l) = 130 floats on gfx942). Per split q-job s
 *   and part p, at row (s * num_splits + p) * block_m: block_m rows of 128 O values, then
 *   block_m (m, l) pairs (m in base-2 units of the scaled scores, l the row sum of unrounded p).
 * With no split (split_first == jobs, num_splits == 1) the main grid is simply `jobs` blocks
 * and no merge runs. Pure C, no device calls: tested on the CPU (tests/test_split_plan.c).
 *
 * The sm90 wgmma kernels (templates/sm90/attn_fwd_wgmma.cu.in; persistent, one block per SM,
 * so blocks_per_cu = 1 and cu_count = the SMs) take the same plan as a list of jobs instead of
 * blocks: job w < split_first is q-job w over all keys, job split_first + t is part
 * t % num_splits of q-job split_first + t / num_splits (the same mapping as the block ids
 * above); the main grid is min(plan.grid_x, SMs) blocks, block x running jobs x, x + grid, ...
 * (the whole q-jobs fill the first rounds, the parts the last one). The workspace is the one
 * above, ws_row_bytes = (head_dim + 2) x 4 (head_dim O values per row, then the (m, l) pairs
 * after the part's block_m rows; m = -inf for a part without keys). The merge runs on
 * attngen__wgmma_merge_grid with ATTNGEN__WGMMA_MERGE_THREADS threads: block (s, y) merges
 * rows y * (threads / (head_dim / 8)) .. of split q-job split_first + s, one 8-column chunk of a
 * row per thread (many blocks: one per q-job would read all its parts' partials through one
 * SM).
 *
 * Why this rule, on sm90: H200 (132 SMs), a Flux block with 4 heads at 4608 tokens has 144
 * q-jobs of 128 rows: two rounds for 1.09 rounds of work (attngen 0.87x FlashAttention-3 there,
 * bench/RESULTS.md); the plan splits the 12 jobs of the last round into 9 parts of 512 keys,
 * 240 jobs in two rounds whose second is ~1/9 of a q-job. Shapes whose last round is more
 * than half full (e.g. (1,24,4096): 768 jobs, the last round 108 of 132) are not split: n =
 * slots / tail < 2. */
#ifndef ATTNGEN_SPLIT_PLAN_H
#define ATTNGEN_SPLIT_PLAN_H
#include <stddef.h>

#include "attngen.h"
#include "kargs.h"

/* Fewest KV tiles per part: below this the merge and the per-part prologue cost more than
 * the idle CUs they recover. */
#define ATTNGEN__SPLIT_MIN_TILES_PER_PART 4
/* Most KV parts per q-job (bounds the merge's reads per row). */
#define ATTNGEN__SPLIT_MAX_PARTS 16

typedef struct attngen__split_plan {
  int jobs;           /* B * H * num_q_blocks */
  int num_q_blocks;   /* ceil(Sq / block_m) */
  int split_first;    /* first split q-job; == jobs when nothing is split */
  int num_splits;     /* KV parts per split q-job (1 = no split) */
  int kv_per_split;   /* keys per part, a multiple of kv_tile (0 when no split) */
  unsigned grid_x;    /* blocks of the main kernel */
  unsigned merge_grid_x; /* blocks of NAME_merge; 0 = the merge must not run */
  size_t ws_rows;     /* workspace rows for a.ws, each desc.ws_row_bytes (0 when no split) */
} attngen__split_plan;

/* Plans one call. cu_count comes from the device (never hard-coded), blocks_per_cu is the
 * occupancy of the variant (1 for the 512-thread gfx942 kernels: 8 waves of 256 VGPRs fill
 * a CU's 4 SIMDs x 2 waves). Rule: slots = cu_count * blocks_per_cu; the last round holds
 * tail = jobs - (rounds - 1) * slots q-jobs; if it is full, or Skv is too short for two parts
 * of ATTNGEN__SPLIT_MIN_TILES_PER_PART tiles, nothing is split. Otherwise the tail jobs are
 * split into n = min(slots / tail, tiles / MIN_TILES, MAX_PARTS) parts of
 * ceil(tiles / n) tiles each (n then recomputed so that no part is empty); n < 2 = no split.
 * Returns BAD_SHAPE for negative sizes or non-positive block_m/kv_tile/cu_count/blocks_per_cu. */
attngen_status attngen__split_plan_make(int batch, int heads, int seqlen_q, int seqlen_kv,
                                        int block_m, int kv_tile, int cu_count,
                                        int blocks_per_cu, attngen__split_plan *out);

/* The same with parts of a multiple of align_tiles KV tiles (align_tiles = 1: the plan above):
 * tiles per part = ceil(tiles / n) rounded up to a multiple of align_tiles, then n recomputed
 * (n < 2: no split). BAD_SHAPE as above, and for align_tiles <= 0. The skip variants
 * (skip = on; sm90 and gfx942) take ATTNGEN__SPLIT_SKIP_ALIGN_TILES: each part writes whole
 * words of the skip lists (32 tiles a word, docs/NUMERICS.md "Tile skipping"), so a part
 * needs 64 tiles of KV for two parts (Skv > 32 x kv_tile) and the tail is cut into fewer,
 * longer parts (Wan 1.3B (1,12,32760) at kv 176: 36 tail q-jobs, 3 parts of 64 tiles where
 * 62 would do). */
#define ATTNGEN__SPLIT_SKIP_ALIGN_TILES 32
attngen_status attngen__split_plan_make_aligned(int batch, int heads, int seqlen_q, int seqlen_kv,
                                                int block_m, int kv_tile, int cu_count,
                                                int blocks_per_cu, int align_tiles,
                                                attngen__split_plan *out);

/* Threads per block of an sm90 wgmma variant's NAME_merge (generator/lua/target_sm90_wgmma.lua
 * merge_threads: the template's __launch_bounds__). */
#define ATTNGEN__WGMMA_MERGE_THREADS 128
/* The NAME_merge grid of an sm90 wgmma variant for a plan: (plan.merge_grid_x, row groups, 1),
 * row groups = ceil(block_m x head_dim / 8 / ATTNGEN__WGMMA_MERGE_THREADS); (0, 0, 0) when the
 * plan does not split (merge_grid_x == 0: no merge runs). */
void attngen__wgmma_merge_grid(const attngen__split_plan *plan, int block_m, int head_dim,
                               unsigned grid[3]);

/* Writes num_q_blocks and the split fields of kargs from the plan (ws is the caller's). */
void attngen__split_plan_apply(const attngen__split_plan *plan, attngen_kargs *a);

/* Per-row flags of a plan, for the CPU reference (numerics.h, split_rows): flags[(b * H + h)
 * * Sq + s] = 1 when the q-job of row s of (b, h) (q-block s / block_m) is split, else 0.
 * Returns the number of split rows. */
long long attngen__split_plan_row_flags(const attngen__split_plan *plan, int batch, int heads,
                                        int seqlen_q, int block_m, unsigned char *flags);

/* The V pre-pass of v_path=vt gfx942 variants (templates/gfx942/attn_fwd.hip.in, kargs
 * vt_prepass = 1; generator/lua/target_gfx942.lua vt_chunk_bytes): before the attention launch,
 * the same kernel writes V of every (b, KV head) into the workspace start in MFMA operand
 * order, 16-key chunks of 16 rows of V (4096 bytes at head_dim 128, 2048 at 64; the last one
 * zero-padded), one chunk per wave, 8 per block; `heads` is the KV head count
 * (args.heads_kv: the query heads of a group share their KV head's chunks), head_dim the
 * variant's. Fills the pre-pass grid (ceil(chunks / 8), H_kv, B) and returns the bytes it
 * writes, B * H_kv * chunks * chunk bytes (it reads |V| as well); Skv = 0 (or a non-positive
 * size): grid (0, 0, 0), 0 bytes. */
#define ATTNGEN__VT_CHUNK_KEYS 16
#define ATTNGEN__VT_CHUNK_BYTES(head_dim) ((size_t)ATTNGEN__VT_CHUNK_KEYS * (size_t)(head_dim) * 2u)
#define ATTNGEN__VT_CHUNKS_PER_BLOCK 8
size_t attngen__vt_plan(int batch, int heads, int seqlen_kv, int head_dim, unsigned grid[3]);

/* The job order of a causal call on the persistent sm90 wgmma kernels (kargs.causal; see
 * templates/sm90/attn_fwd_wgmma.cu.in job_at), for `jobs` jobs on `grid` blocks:
 * ATTNGEN__CAUSAL_LONGEST (1): longest job first, m-block-major; the blocks running at one
 *   time hold one m-block of as many (head, batch) pairs as there are blocks. Best balance.
 * ATTNGEN__CAUSAL_PAIRS (2): each block takes m-blocks n_mb - 1 - k and k of one head in
 *   two consecutive rounds (equal totals), heads in order: the blocks running at one time
 *   read about 2 grid / n_mb heads' K/V.
 * ATTNGEN__CAUSAL_DYNAMIC (3): each block takes its next job from a counter (the first 16 bytes
 *   of the call's workspace, kargs.ws, zeroed on the stream before the launch: so a CUDA graph
 *   replays it and concurrent calls never share one), the (head, batch) pairs in sections of
 *   attngen__causal_section (their K/V within ATTNGEN__CAUSAL_L2_BUDGET; the fewest such
 *   sections, of equal size), longest first within a section (FlashAttention-3's causal
 *   scheduler). The blocks end together whatever the rounds: pairs leave the last round
 *   part-empty (pairs / grid = 6.36 on (2,24,4429): 7 rounds). Taken instead of pairs where the kernel has it (`dynamic_ok`: the head_dim-64
 *   causal TMA kernels, dense batch): H200 (bench/RESULTS.md runs M61-M64), head_dim 64:
 *   0.88-0.98 of the pair order's time; where the rule gives longest first (balanced already)
 *   0.98-1.007, and 1.05 on a 30 us call (the counter's memset), so not there. At head_dim
 *   128 it ran 1.01-1.11 and at 256 1.07-1.15 of the static orders' time (and its code alone
 *   cost the 128 kernels up to 3%), so those kernels are built without it.
 * Else pairs when the K/V one round of longest-first reads (its KV heads x Skv x head_dim x 2
 * tensors x 2 bytes) exceeds ATTNGEN__CAUSAL_L2_BUDGET (then each round reads K/V from DRAM
 * again) and there are jobs for two rounds. A packed batch (batch = its sequences,
 * seqlen_kv = max_seqlen_k, jobs counted on max_seqlen_q, upper bounds) takes the same rule
 * (16 sequences, 256 to 16384 long, ~64k tokens, 32/8 heads: pairs 8.78 ms vs longest first
 * 9.14 ms, run L3); `forced` 1 or 2 (ATTNGEN_CAUSAL_ORDER) wins; 3 forces the dynamic order
 * where the kernel has it (elsewhere the rule decides). */
#define ATTNGEN__CAUSAL_LONGEST 1
#define ATTNGEN__CAUSAL_PAIRS 2
#define ATTNGEN__CAUSAL_DYNAMIC 3
#define ATTNGEN__JOB_COUNTER_BYTES 16 /* its counter: workspace bytes (16: the alignment) */
/* Above: pairs. GQA (1,32/8,8192), 32 MiB: longest first 619 TFLOP/s vs pairs 602 (H200, run
 * K1); MHA (4,32,4096), 256 MiB: 495 vs 570-580; (2,32/8,4000), 32 MiB: 530 vs 528. */
#define ATTNGEN__CAUSAL_L2_BUDGET (40.0 * 1024 * 1024) /* of Hopper's 50 MB L2 */
int attngen__causal_order(int batch, int heads, int heads_kv, int seqlen_kv, int head_dim,
                          long jobs, long grid, int forced, int dynamic_ok);
/* The pair order's longest-first end (ATTNGEN__CAUSAL_PAIRS; templates/sm90/attn_fwd_wgmma.cu.in
 * job_at, the kernels without the dynamic order): with n_mb m-blocks per (head, batch) pair,
 * nhb pairs and grid blocks, the first 2 R rounds are pairs (R <= n_mb nhb / (2 grid) - 1:
 * every block has the same total then) and the jobs after the first 2 R grid zigzag positions
 * run longest first, the blocks reversed in odd rounds, so the blocks end together (pairs alone
 * leave the last round part-empty). Those jobs: head hb0's m-blocks lo..hi not yet run (less
 * its middle one, `hole`, when n_mb and hb0 are odd: such a head began with its middle) and
 * every m-block of the nf heads after it. In the end's own count t (0 .. jobs - 1): levels
 * n_mb - 1 .. hi + 1 (nf jobs each: `above` in all), then hi .. lo (nf + 1 each, head hb0
 * first; the hole's level nf, at uh: `mid` in all), then lo - 1 .. 0 (nf each). Whether there
 * is an end, and its round 2 R: attngen__pair_end_round. The kernel computes all of it in
 * job_at itself (kept there: the whole plan as kernel arguments measured 3-7% slower on short
 * calls, a 16-byte spill; bench/RESULTS.md run M92); this C copy is the order's
 * specification for the host's tests (tests/test_split_plan.c: every job once) and the GPU
 * test's choice of shapes (tests/test_gpu_sm90.c pair_order: the kernel bit for bit the same
 * as longest first, every element written). */
typedef struct attngen__pair_end {
  int round;  /* 2 R: the first round of the end; INT_MAX: no end */
  int jobs;   /* the end's jobs */
  int hb0, lo, hi, nf, above, mid;
  int uh;     /* the hole's level's first count in hi .. lo's own count; INT_MAX: no hole */
  int hole;   /* hb0's middle m-block (already run); -1: none */
} attngen__pair_end;
/* 2 R, the first round of the end, or INT_MAX (none: pairs to the last job). The end holds
 * between 2 grid and 4 grid jobs whatever R (R = n_mb nhb / (2 grid) - 1), over more heads at
 * a time than a round of pairs: measured, it gains 5-12% once R >= 3 where the pairs' last
 * round was part-empty, and cost 6% at R = 2 where that round was nearly full ((8,16,1024):
 * 512 pairs on 132 blocks, 3.88 rounds; H200, bench/RESULTS.md runs M89, M92). So the end runs
 * when R >= 3, or when R >= 1 and the pairs' rounds ceil(P / grid) (P = ceil(n_mb nhb / 2)
 * pairs) are more than 11/10 of P / grid (the blocks' mean): the time the pairs' part-empty
 * last round leaves on the table, from the jobs and the grid alone (no shape fitted). The
 * kernels compute the same rule in job_at (templates/sm90/attn_fwd_wgmma.cu.in; the host's
 * choice as a kernel argument cost short calls 2.2-2.6%, run M94); tests/test_split_plan.c
 * holds this copy to the kernel's integer form. */
int attngen__pair_end_round(long n_mb, long nhb, long grid);
/* The end's plan from its first round (2 R, or INT_MAX: no end). */
void attngen__pair_end_plan(long n_mb, long nhb, long grid, int round, attngen__pair_end *e);
/* Job of round i on block k (0 <= k < grid) of the pair order with that end: the kernel's
 * job_at for causal = 2 (n_mb nhb: past the last job). For tests and simulations. */
long attngen__pair_job(const attngen__pair_end *e, long n_mb, long nhb, long grid, long i, long k);

/* The (head, batch) pairs of one section of the dynamic order: the KV heads whose K and V
 * (seqlen_kv x head_dim x 2 tensors x 2 bytes each) fit ATTNGEN__CAUSAL_L2_BUDGET (at least
 * one) times the query heads per KV head, at most heads x batch; then made equal: the fewest
 * sections of that size, each ceil(KV-head groups / sections) groups (a small last section
 * would start its longest jobs last). */
int attngen__causal_section(int batch, int heads, int heads_kv, int seqlen_kv, int head_dim);

#endif /* ATTNGEN_SPLIT_PLAN_H */
