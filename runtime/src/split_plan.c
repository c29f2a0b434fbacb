/* split_plan.c: host-side planner of the tail KV split (see split_plan.h for the launch
 * contract and the rule). */
#include "split_plan.h"

#include <limits.h>

#include <math.h>

static int ceil_div(long long a, long long b) { return (int)((a + b - 1) / b); }

attngen_status attngen__split_plan_make(int batch, int heads, int seqlen_q, int seqlen_kv,
                                        int block_m, int kv_tile, int cu_count,
                                        int blocks_per_cu, attngen__split_plan *out) {
  return attngen__split_plan_make_aligned(batch, heads, seqlen_q, seqlen_kv, block_m, kv_tile,
                                          cu_count, blocks_per_cu, 1, out);
}

attngen_status attngen__split_plan_make_aligned(int batch, int heads, int seqlen_q, int seqlen_kv,
                                                int block_m, int kv_tile, int cu_count,
                                                int blocks_per_cu, int align_tiles,
                                                attngen__split_plan *out) {
  if (!out) return ATTNGEN_STATUS_NULL_POINTER;
  if (batch < 0 || heads < 0 || seqlen_q < 0 || seqlen_kv < 0 || block_m <= 0 || kv_tile <= 0 ||
      cu_count <= 0 || blocks_per_cu <= 0 || align_tiles <= 0)
    return ATTNGEN_STATUS_BAD_SHAPE;
  const int q_blocks = ceil_div(seqlen_q, block_m);
  const long long jobs = (long long)batch * heads * q_blocks;
  if (jobs > 0x7FFFFFFFLL) return ATTNGEN_STATUS_BAD_SHAPE;
  out->jobs = (int)jobs;
  out->num_q_blocks = q_blocks;
  out->split_first = (int)jobs;
  out->num_splits = 1;
  out->kv_per_split = 0;
  out->grid_x = (unsigned)jobs;
  out->merge_grid_x = 0;
  out->ws_rows = 0;
  if (jobs == 0) return ATTNGEN_STATUS_OK;

  const long long slots = (long long)cu_count * blocks_per_cu;
  const long long rounds = (jobs + slots - 1) / slots;
  const long long tail = jobs - (rounds - 1) * slots;
  const int tiles = ceil_div(seqlen_kv, kv_tile);
  if (tail == slots || tiles < 2 * ATTNGEN__SPLIT_MIN_TILES_PER_PART) return ATTNGEN_STATUS_OK;

  long long n = slots / tail;
  if (n > tiles / ATTNGEN__SPLIT_MIN_TILES_PER_PART) n = tiles / ATTNGEN__SPLIT_MIN_TILES_PER_PART;
  if (n > ATTNGEN__SPLIT_MAX_PARTS) n = ATTNGEN__SPLIT_MAX_PARTS;
  if (n < 2) return ATTNGEN_STATUS_OK;
  const int tiles_per_part = ceil_div(ceil_div(tiles, n), align_tiles) * align_tiles;
  const int kv_per_split = tiles_per_part * kv_tile;
  n = ceil_div(seqlen_kv, kv_per_split);
  if (n < 2) return ATTNGEN_STATUS_OK;

  out->split_first = (int)(jobs - tail);
  out->num_splits = (int)n;
  out->kv_per_split = kv_per_split;
  out->grid_x = (unsigned)(out->split_first + tail * n);
  out->merge_grid_x = (unsigned)tail;
  out->ws_rows = (size_t)tail * (size_t)n * (size_t)block_m;
  return ATTNGEN_STATUS_OK;
}

void attngen__wgmma_merge_grid(const attngen__split_plan *plan, int block_m, int head_dim,
                               unsigned grid[3]) {
  grid[0] = grid[1] = grid[2] = 0;
  if (plan->merge_grid_x == 0 || block_m <= 0 || head_dim < 8) return;
  const long long items = (long long)block_m * (head_dim / 8);
  grid[0] = plan->merge_grid_x;
  grid[1] = (unsigned)((items + ATTNGEN__WGMMA_MERGE_THREADS - 1) / ATTNGEN__WGMMA_MERGE_THREADS);
  grid[2] = 1;
}

void attngen__split_plan_apply(const attngen__split_plan *plan, attngen_kargs *a) {
  a->num_q_blocks = plan->num_q_blocks;
  a->split_first = plan->split_first;
  a->num_splits = plan->num_splits;
  a->kv_per_split = plan->kv_per_split;
}

long long attngen__split_plan_row_flags(const attngen__split_plan *plan, int batch, int heads,
                                        int seqlen_q, int block_m, unsigned char *flags) {
  long long count = 0;
  const int split = plan->num_splits > 1;
  for (long long bh = 0; bh < (long long)batch * heads; ++bh) {
    for (int s = 0; s < seqlen_q; ++s) {
      const long long job = bh * plan->num_q_blocks + s / block_m;
      const unsigned char f = split && job >= plan->split_first;
      flags[bh * seqlen_q + s] = f;
      count += f;
    }
  }
  return count;
}

size_t attngen__vt_plan(int batch, int heads, int seqlen_kv, int head_dim, unsigned grid[3]) {
  grid[0] = grid[1] = grid[2] = 0;
  if (batch <= 0 || heads <= 0 || seqlen_kv <= 0 || head_dim <= 0) return 0;
  const size_t chunks = ((size_t)seqlen_kv + ATTNGEN__VT_CHUNK_KEYS - 1) / ATTNGEN__VT_CHUNK_KEYS;
  grid[0] = (unsigned)((chunks + ATTNGEN__VT_CHUNKS_PER_BLOCK - 1) / ATTNGEN__VT_CHUNKS_PER_BLOCK);
  grid[1] = (unsigned)heads;
  grid[2] = (unsigned)batch;
  return (size_t)batch * (size_t)heads * chunks * ATTNGEN__VT_CHUNK_BYTES(head_dim);
}

/* Query heads per KV head (1 unless heads_kv divides heads), and one KV head's K and V bytes. */
static long group_of(int heads, int heads_kv) {
  return heads_kv > 0 && heads % heads_kv == 0 ? heads / heads_kv : 1;
}
static double kv_head_bytes(int seqlen_kv, int head_dim) {
  return (double)seqlen_kv * head_dim * 2.0 /* K and V */ * 2.0 /* bf16 */;
}

int attngen__causal_section(int batch, int heads, int heads_kv, int seqlen_kv, int head_dim) {
  const long hb = (long)heads * batch;
  const long group = group_of(heads, heads_kv);
  const double units = ceil((double)hb / (double)group); /* batch x KV heads */
  const double per_kv_head = kv_head_bytes(seqlen_kv, head_dim);
  /* the KV heads whose K/V fit the budget: at least one, at most all */
  double per = per_kv_head > 0 ? floor(ATTNGEN__CAUSAL_L2_BUDGET / per_kv_head) : units;
  if (per < 1) per = 1;
  if (per > units) per = units;
  /* Then sections of equal size, as few as that many allow (whole groups of query heads per
   * KV head): a small last section starts its longest jobs when the others run out of jobs,
   * and the blocks that take them end last (one KV head's 86 jobs of (1,21,16384) at head_dim
   * 64 after two sections of 10: H200, bench/RESULTS.md run M87). */
  const double ns = ceil(units / per);
  double sec = ceil(units / ns) * (double)group;
  if (sec > (double)hb) sec = (double)hb;
  return sec < 1 ? 1 : (int)sec;
}

int attngen__causal_order(int batch, int heads, int heads_kv, int seqlen_kv, int head_dim,
                          long jobs, long grid, int forced, int dynamic_ok) {
  if (forced == ATTNGEN__CAUSAL_LONGEST || forced == ATTNGEN__CAUSAL_PAIRS) return forced;
  if (dynamic_ok && forced == ATTNGEN__CAUSAL_DYNAMIC) return ATTNGEN__CAUSAL_DYNAMIC;
  if (grid < 1 || jobs < 2 * grid || heads < 1) return ATTNGEN__CAUSAL_LONGEST;
  const long hb = (long)heads * batch;
  const long group = group_of(heads, heads_kv);
  const long per_round = hb < grid ? hb : grid; /* (head, batch) pairs of a round */
  const double kv_heads = (double)((per_round + group - 1) / group);
  const double bytes = kv_heads * kv_head_bytes(seqlen_kv, head_dim);
  if (bytes <= ATTNGEN__CAUSAL_L2_BUDGET) return ATTNGEN__CAUSAL_LONGEST;
  /* where pairs would run, the dynamic order where the kernel has it */
  return dynamic_ok ? ATTNGEN__CAUSAL_DYNAMIC : ATTNGEN__CAUSAL_PAIRS;
}

int attngen__pair_end_round(long n_mb, long nhb, long grid) {
  if (n_mb < 1 || nhb < 1 || grid < 1 || n_mb * nhb > INT_MAX) return INT_MAX;
  const long n_jobs = n_mb * nhb, rp = n_jobs / (2 * grid) - 1;
  if (rp >= 3) return (int)(2 * rp);
  if (rp < 1) return INT_MAX;
  const long pairs = (n_jobs + 1) / 2, rounds = (pairs + grid - 1) / grid;
  return 10 * rounds * grid > 11 * pairs ? (int)(2 * rp) : INT_MAX;
}

void attngen__pair_end_plan(long n_mb, long nhb, long grid, int round, attngen__pair_end *e) {
  e->round = INT_MAX, e->jobs = 0, e->hb0 = 0, e->lo = 0, e->hi = -1, e->nf = 0;
  e->above = 0, e->mid = 0, e->uh = INT_MAX, e->hole = -1;
  if (n_mb < 1 || nhb < 1 || grid < 1 || round == INT_MAX || round < 0 || (round & 1)) return;
  const long n_jobs = n_mb * nhb;
  if (n_jobs > INT_MAX || (long)round * grid > n_jobs) return;
  const long t0 = (long)round * grid, hb0 = t0 / n_mb, p0 = t0 - hb0 * n_mb;
  const int hole = (n_mb & hb0 & 1) && p0 > 0;
  const long pp = hole ? p0 - 1 : p0;
  const long lo = pp >> 1, hi = n_mb - 1 - ((pp + 1) >> 1), nf = nhb - 1 - hb0;
  e->round = round, e->jobs = (int)(n_jobs - t0), e->hb0 = (int)hb0;
  e->lo = (int)lo, e->hi = (int)hi, e->nf = (int)nf;
  e->above = (int)((n_mb - 1 - hi) * nf);
  e->mid = (int)((hi - lo + 1) * (nf + 1) - hole);
  if (hole) e->hole = (int)((n_mb - 1) >> 1), e->uh = (int)((hi - e->hole) * (nf + 1));
}

long attngen__pair_job(const attngen__pair_end *e, long n_mb, long nhb, long grid, long i, long k) {
  const long n_jobs = n_mb * nhb;
  if (i >= e->round) {
    const long tr = i - e->round;
    const long t = tr * grid + ((tr & 1) ? grid - 1 - k : k);
    if (t >= e->jobs) return n_jobs;
    if (t >= e->above && t < e->above + e->mid) {
      long u = t - e->above;
      if (u >= e->uh) {
        if (u < (long)e->uh + e->nf) return (e->hb0 + 1 + u - e->uh) * n_mb + e->hole;
        ++u;
      }
      const long q = u / (e->nf + 1);
      return (e->hb0 + u - q * (e->nf + 1)) * n_mb + e->hi - q;
    }
    const long u = t < e->above ? t : t - e->mid;
    const long q = u / e->nf;
    return (e->hb0 + 1 + u - q * e->nf) * n_mb +
           (t < e->above ? n_mb - 1 - q : e->lo - 1 - (q - (n_mb - 1 - e->hi)));
  }
  const long f = ((i >> 1) * grid + k) * 2 + (i & 1);
  if (f >= n_jobs) return n_jobs;
  const long hb = f / n_mb;
  long pos = f - hb * n_mb;
  if (n_mb & hb & 1) pos = pos == 0 ? n_mb - 1 : pos - 1;
  return hb * n_mb + ((pos & 1) ? pos >> 1 : n_mb - 1 - (pos >> 1));
}
