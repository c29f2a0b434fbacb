/* test_split_plan.c: the tail KV split planner (runtime/src/split_plan.c) on the CPU, for
 * MI300X (304 CUs) and other CU counts: when it splits, the grid, the workspace size, the
 * kargs fields, and that every (q-job, key) is covered exactly once by the planned blocks. */
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "attngen_internal.h"

/* Replays the kernel's block -> (job, key range) mapping and checks exact coverage. */
static void check_coverage(const attngen__split_plan *p, int seqlen_kv) {
  int *covered = calloc((size_t)p->jobs > 0 ? (size_t)p->jobs : 1, sizeof(int));
  assert_non_null(covered);
  for (unsigned w = 0; w < p->grid_x; ++w) {
    int job, begin, end;
    if ((int)w < p->split_first) {
      job = (int)w;
      begin = 0;
      end = seqlen_kv;
    } else {
      const int t = (int)w - p->split_first;
      const int part = t % p->num_splits;
      job = p->split_first + t / p->num_splits;
      begin = part * p->kv_per_split;
      end = begin + p->kv_per_split < seqlen_kv ? begin + p->kv_per_split : seqlen_kv;
      assert_true(begin < end); /* no empty part */
    }
    assert_true(job >= 0 && job < p->jobs);
    covered[job] += end - begin;
  }
  for (int j = 0; j < p->jobs; ++j) assert_int_equal(covered[j], seqlen_kv);
  free(covered);
}

/* Parts of whole skip-list words (the sm90 skip variants, align 32 tiles): Wan 1.3B's
 * (1,12,32760) at block_m 128, kv 176 on 132 SMs: 3072 q-jobs, the last round 36; 187 tiles in
 * 3 parts of 63 tiles unaligned, of 64 aligned (11264 keys: 3 parts, the last 59 tiles). A
 * KV range of 29 tiles splits unaligned (7 parts of 5 tiles) and not aligned (one 32-tile
 * part covers it); align 0 is refused. */
static void test_split_plan_aligned_parts(void **state) {
  (void)state;
  attngen__split_plan p;
  assert_int_equal(attngen__split_plan_make_aligned(1, 12, 32760, 32760, 128, 176, 132, 1, 1, &p),
                   ATTNGEN_STATUS_OK);
  assert_int_equal(p.num_splits, 3);
  assert_int_equal(p.kv_per_split, 63 * 176);
  assert_int_equal(attngen__split_plan_make_aligned(1, 12, 32760, 32760, 128, 176, 132, 1,
                                                    ATTNGEN__SPLIT_SKIP_ALIGN_TILES, &p),
                   ATTNGEN_STATUS_OK);
  assert_int_equal(p.jobs, 3072);
  assert_int_equal(p.split_first, 3036);
  assert_int_equal(p.num_splits, 3);
  assert_int_equal(p.kv_per_split, 64 * 176);
  assert_int_equal(p.kv_per_split / 176 % 32, 0);
  assert_int_equal(p.grid_x, 3036 + 36 * 3);
  assert_int_equal(p.merge_grid_x, 36);
  check_coverage(&p, 32760);
  assert_int_equal(attngen__split_plan_make(1, 2, 300, 5000, 128, 176, 132, 1, &p),
                   ATTNGEN_STATUS_OK);
  assert_int_equal(p.num_splits, 6);
  assert_int_equal(attngen__split_plan_make_aligned(1, 2, 300, 5000, 128, 176, 132, 1, 32, &p),
                   ATTNGEN_STATUS_OK);
  assert_int_equal(p.num_splits, 1);
  assert_int_equal(p.split_first, p.jobs);
  assert_int_equal(attngen__split_plan_make_aligned(1, 2, 300, 5000, 128, 176, 132, 1, 0, &p),
                   ATTNGEN_STATUS_BAD_SHAPE);
}

static void test_split_plan_full_last_round_does_not_split(void **state) {
  (void)state;
  attngen__split_plan p;
  /* 304 CUs, block_m 128: 2 x 19 x 8 = 304 jobs fill exactly one round. */
  assert_int_equal(attngen__split_plan_make(2, 19, 1024, 8192, 128, 64, 304, 1, &p),
                   ATTNGEN_STATUS_OK);
  assert_int_equal(p.jobs, 304);
  assert_int_equal(p.split_first, 304);
  assert_int_equal(p.num_splits, 1);
  assert_int_equal(p.grid_x, 304);
  assert_int_equal(p.merge_grid_x, 0);
  assert_int_equal(p.ws_rows, 0);
  check_coverage(&p, 8192);
}

static void test_split_plan_mi300x_cross_attention_splits_all(void **state) {
  (void)state;
  attngen__split_plan p;
  /* Wan2.1-like few-job case: 1 x 12 heads x 1 q-block = 12 jobs on 304 CUs, Skv = 4096. */
  assert_int_equal(attngen__split_plan_make(1, 12, 100, 4096, 128, 64, 304, 1, &p),
                   ATTNGEN_STATUS_OK);
  assert_int_equal(p.jobs, 12);
  assert_int_equal(p.split_first, 0);
  /* slots / tail = 25, tiles / 4 = 16, cap 16 -> 16 parts of 4 tiles = 256 keys */
  assert_int_equal(p.num_splits, 16);
  assert_int_equal(p.kv_per_split, 256);
  assert_int_equal(p.grid_x, 12 * 16);
  assert_int_equal(p.merge_grid_x, 12);
  assert_int_equal(p.ws_rows, (size_t)12 * 16 * 128);
  check_coverage(&p, 4096);
}

static void test_split_plan_partial_last_round_splits_tail(void **state) {
  (void)state;
  attngen__split_plan p;
  /* 2 x 24 x 64 = 3072 jobs of block_m 128 (S = 8192) on 304 CUs: 10 full rounds + 32. */
  assert_int_equal(attngen__split_plan_make(2, 24, 8192, 8192, 128, 64, 304, 1, &p),
                   ATTNGEN_STATUS_OK);
  assert_int_equal(p.jobs, 3072);
  assert_int_equal(p.split_first, 3040);
  assert_int_equal(p.num_splits, 9);          /* 304 / 32 = 9 <= 128 tiles / 4 */
  assert_int_equal(p.kv_per_split, 15 * 64);  /* ceil(128 / 9) = 15 tiles */
  assert_int_equal(p.grid_x, 3040 + 32 * 9);
  assert_int_equal(p.merge_grid_x, 32);
  check_coverage(&p, 8192);
}

static void test_split_plan_other_cu_counts(void **state) {
  (void)state;
  attngen__split_plan p;
  const int cus[] = {1, 7, 80, 104, 110, 228, 304};
  for (size_t i = 0; i < sizeof cus / sizeof cus[0]; ++i) {
    assert_int_equal(attngen__split_plan_make(1, 5, 700, 3000, 192, 64, cus[i], 1, &p),
                     ATTNGEN_STATUS_OK);
    assert_int_equal(p.jobs, 20);
    check_coverage(&p, 3000);
    const int tail = p.jobs - p.split_first;
    if (p.num_splits > 1) {
      assert_true(tail > 0);
      assert_true((long long)tail * p.num_splits <= (long long)cus[i] * 1 + tail);
      assert_int_equal(p.kv_per_split % 64, 0);
      assert_true(p.kv_per_split >= 4 * 64);
    }
  }
  /* one CU holding all 20 jobs in 20 full rounds of 1: the last round is full */
  assert_int_equal(attngen__split_plan_make(1, 5, 700, 3000, 192, 64, 1, 1, &p),
                   ATTNGEN_STATUS_OK);
  assert_int_equal(p.num_splits, 1);
  /* 7 CUs, 2 blocks per CU: 14 slots, tail 6 -> min(14/6 = 2, 47/4 = 11) = 2 parts */
  assert_int_equal(attngen__split_plan_make(1, 5, 700, 3000, 192, 64, 7, 2, &p),
                   ATTNGEN_STATUS_OK);
  assert_int_equal(p.split_first, 14);
  assert_int_equal(p.num_splits, 2);
  assert_int_equal(p.kv_per_split, 24 * 64);
  check_coverage(&p, 3000);
}

static void test_split_plan_short_or_empty_kv_does_not_split(void **state) {
  (void)state;
  attngen__split_plan p;
  /* 7 tiles < 2 parts x 4 tiles */
  assert_int_equal(attngen__split_plan_make(1, 2, 64, 448, 128, 64, 304, 1, &p),
                   ATTNGEN_STATUS_OK);
  assert_int_equal(p.num_splits, 1);
  assert_int_equal(p.grid_x, 2);
  assert_int_equal(attngen__split_plan_make(1, 2, 64, 0, 128, 64, 304, 1, &p),
                   ATTNGEN_STATUS_OK);
  assert_int_equal(p.num_splits, 1);
  check_coverage(&p, 0);
  /* no rows: no jobs, empty grid */
  assert_int_equal(attngen__split_plan_make(1, 2, 0, 4096, 128, 64, 304, 1, &p),
                   ATTNGEN_STATUS_OK);
  assert_int_equal(p.jobs, 0);
  assert_int_equal(p.grid_x, 0);
}

/* The sm90 wgmma kernels (persistent, one block per SM, H200: 132 SMs) run the plan as a list
 * of jobs on min(grid_x, SMs) blocks: the whole q-jobs fill the first rounds and the parts
 * exactly the last one, so a split call takes as many rounds as the unsplit one, its last
 * shorter. Checks that, the coverage, and the merge grid. */
static void check_sm90(const attngen__split_plan *p, int seqlen_kv, int sms) {
  check_coverage(p, seqlen_kv);
  const unsigned grid = p->grid_x < (unsigned)sms ? p->grid_x : (unsigned)sms;
  const unsigned rounds = (p->grid_x + grid - 1) / grid;
  assert_int_equal(rounds, ((unsigned)p->jobs + (unsigned)sms - 1) / (unsigned)sms);
  if (p->num_splits > 1) assert_int_equal((unsigned)p->split_first, (rounds - 1) * grid);
}

static void test_split_plan_sm90_few_heads_split_the_tail(void **state) {
  (void)state;
  attngen__split_plan p;
  unsigned mg[3];
  /* Flux, 4 heads at 4608 tokens, kv 128: 144 q-jobs = 132 + 12; the 12 go into
   * min(132 / 12, 36 tiles / 4, 16) = 9 parts of 4 tiles (512 keys). */
  assert_int_equal(attngen__split_plan_make(1, 4, 4608, 4608, 128, 128, 132, 1, &p),
                   ATTNGEN_STATUS_OK);
  assert_int_equal(p.jobs, 144);
  assert_int_equal(p.split_first, 132);
  assert_int_equal(p.num_splits, 9);
  assert_int_equal(p.kv_per_split, 512);
  assert_int_equal(p.grid_x, 132 + 12 * 9);
  assert_int_equal(p.merge_grid_x, 12);
  assert_int_equal(p.ws_rows, (size_t)12 * 9 * 128);
  check_sm90(&p, 4608, 132);
  {
    /* the split rows (the reference's split_rows): q-jobs 132..143 = head 3, m-blocks 24..35 */
    unsigned char *flags = malloc((size_t)4 * 4608);
    assert_non_null(flags);
    assert_int_equal(attngen__split_plan_row_flags(&p, 1, 4, 4608, 128, flags), 12 * 128);
    assert_int_equal(flags[2 * 4608 + 4607], 0);
    assert_int_equal(flags[3 * 4608 + 3071], 0);
    assert_int_equal(flags[3 * 4608 + 3072], 1);
    assert_int_equal(flags[3 * 4608 + 4607], 1);
    free(flags);
  }
  attngen__wgmma_merge_grid(&p, 128, 128, mg); /* 128 rows x 16 chunks / 128 threads */
  assert_int_equal(mg[0], 12);
  assert_int_equal(mg[1], 16);
  assert_int_equal(mg[2], 1);
  /* the same at kv 176: 27 tiles, min(11, 6, 16) = 6 parts of 5 tiles (880 keys) */
  assert_int_equal(attngen__split_plan_make(1, 4, 4608, 4608, 128, 176, 132, 1, &p),
                   ATTNGEN_STATUS_OK);
  assert_int_equal(p.num_splits, 6);
  assert_int_equal(p.kv_per_split, 880);
  assert_int_equal(p.grid_x, 132 + 12 * 6);
  check_sm90(&p, 4608, 132);
  /* (1,2,9000): 142 q-jobs, 10 in the last round; 71 tiles: 13 parts of 6 tiles would leave
   * the 13th empty, so 12 parts of 768 keys */
  assert_int_equal(attngen__split_plan_make(1, 2, 9000, 9000, 128, 128, 132, 1, &p),
                   ATTNGEN_STATUS_OK);
  assert_int_equal(p.jobs, 142);
  assert_int_equal(p.split_first, 132);
  assert_int_equal(p.num_splits, 12);
  assert_int_equal(p.kv_per_split, 768);
  assert_int_equal(p.merge_grid_x, 10);
  check_sm90(&p, 9000, 132);
  /* head_dim 64 with three consumers (block_m 192) and 256: the merge's row groups */
  assert_int_equal(attngen__split_plan_make(1, 2, 4000, 4000, 192, 128, 132, 1, &p),
                   ATTNGEN_STATUS_OK);
  assert_int_equal(p.jobs, 42); /* one round of 42: 3 parts each (132 / 42) */
  assert_int_equal(p.split_first, 0);
  assert_int_equal(p.num_splits, 3);
  check_sm90(&p, 4000, 132);
  attngen__wgmma_merge_grid(&p, 192, 64, mg);
  assert_int_equal(mg[0], 42);
  assert_int_equal(mg[1], 12);
  attngen__wgmma_merge_grid(&p, 128, 256, mg);
  assert_int_equal(mg[1], 32);
}

static void test_split_plan_sm90_full_rounds_do_not_split(void **state) {
  (void)state;
  attngen__split_plan p;
  unsigned mg[3];
  /* last rounds more than half full: 108 of 132 (n = 132 / 108 = 1) */
  const int shapes[][4] = {{3, 7, 3000, 176}, {1, 24, 4096, 128}, {1, 3, 32760, 176},
                           {2, 24, 4096, 128} /* 1536 jobs: 12 rounds minus 48 */};
  for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; ++i) {
    const int *x = shapes[i];
    assert_int_equal(attngen__split_plan_make(x[0], x[1], x[2], x[2], 128, x[3], 132, 1, &p),
                     ATTNGEN_STATUS_OK);
    assert_int_equal(p.num_splits, 1);
    assert_int_equal(p.split_first, p.jobs);
    assert_int_equal(p.merge_grid_x, 0);
    check_sm90(&p, x[2], 132);
    attngen__wgmma_merge_grid(&p, 128, 128, mg);
    assert_int_equal(mg[0], 0);
  }
  assert_int_equal(p.jobs, 2 * 24 * 32);
  /* exactly full: 132 q-jobs (1 x 33 heads x 4 q-blocks) */
  assert_int_equal(attngen__split_plan_make(1, 33, 512, 8192, 128, 128, 132, 1, &p),
                   ATTNGEN_STATUS_OK);
  assert_int_equal(p.num_splits, 1);
}

static void test_split_plan_rejects_bad_arguments(void **state) {
  (void)state;
  attngen__split_plan p;
  assert_int_equal(attngen__split_plan_make(1, 1, 1, 1, 128, 64, 0, 1, &p),
                   ATTNGEN_STATUS_BAD_SHAPE);
  assert_int_equal(attngen__split_plan_make(-1, 1, 1, 1, 128, 64, 304, 1, &p),
                   ATTNGEN_STATUS_BAD_SHAPE);
  assert_int_equal(attngen__split_plan_make(1, 1, 1, 1, 0, 64, 304, 1, &p),
                   ATTNGEN_STATUS_BAD_SHAPE);
  assert_int_equal(attngen__split_plan_make(1, 1, 1, 1, 128, 64, 304, 1, NULL),
                   ATTNGEN_STATUS_NULL_POINTER);
}

static void test_split_plan_apply_fills_kargs(void **state) {
  (void)state;
  attngen__split_plan p;
  attngen_kargs a;
  memset(&a, 0, sizeof a);
  assert_int_equal(attngen__split_plan_make(1, 12, 100, 4096, 128, 64, 304, 1, &p),
                   ATTNGEN_STATUS_OK);
  attngen__split_plan_apply(&p, &a);
  assert_int_equal(a.num_q_blocks, 1);
  assert_int_equal(a.split_first, 0);
  assert_int_equal(a.num_splits, 16);
  assert_int_equal(a.kv_per_split, 256);
}

/* The V pre-pass of v_path=vt: 16-key chunks of 16 rows of V (32 * head_dim bytes), 8 per
 * block, per (b, KV head); the last chunk zero-padded; nothing for an empty call. */
static void test_split_plan_vt_bytes_follow_head_dim(void **state) {
  (void)state;
  unsigned g[3];
  assert_int_equal(attngen__vt_plan(2, 3, 257, 128, g), (size_t)2 * 3 * 17 * 4096);
  assert_int_equal(g[0], 3u);
  assert_int_equal(g[1], 3u);
  assert_int_equal(g[2], 2u);
  assert_int_equal(attngen__vt_plan(2, 3, 257, 64, g), (size_t)2 * 3 * 17 * 2048);
  assert_int_equal(g[0], 3u);
  assert_int_equal(attngen__vt_plan(1, 1, 128, 64, g), (size_t)8 * 2048);
  assert_int_equal(g[0], 1u);
  assert_int_equal(attngen__vt_plan(1, 1, 0, 64, g), 0u);
  assert_int_equal(g[0] | g[1] | g[2], 0u);
  assert_int_equal(attngen__vt_plan(1, 1, 16, 0, g), 0u);
}

/* The causal job order of the sm90 wgmma kernels (H200: 132 SMs, head_dim 128): pairs only
 * when one longest-first round's K/V exceeds the L2 budget and there are two rounds of jobs. */
/* The pair order with its longest-first end (split_plan.h attngen__pair_end, the C copy of the
 * map the sm90 kernels' job_at computes; tests/test_gpu_sm90.c pair_order holds the kernels to
 * it on the GPU) runs every job exactly once and, per block, stops at its first
 * round past the last job (the kernel's loop ends there); the end exists iff R >= 3 rounds of
 * pairs, or R >= 1 and the pairs' part-empty last round would leave the blocks' largest total
 * more than 10% above their mean (the kernel's own integer test); every pair of the pair
 * rounds has n_mb + 1 tiles (m-block b has b + 1) unless it holds a head's last m-block of an
 * odd n_mb with no next head; and with the end the blocks' totals
 * (tiles) are at most one longest job (n_mb tiles) apart. */
static void test_pair_order_end(void **state) {
  (void)state;
  static const long grids[] = {1, 2, 7, 13, 66, 132};
  long cases = 0, ends = 0, holes = 0, short_ends = 0;
  for (size_t gi = 0; gi < sizeof grids / sizeof grids[0]; ++gi) {
    const long g = grids[gi];
    for (long n_mb = 1; n_mb < 48; ++n_mb) {
      for (long nhb = 1; nhb < (g == 132 ? 120 : 40); ++nhb) {
        const long n_jobs = n_mb * nhb;
        attngen__pair_end e;
        const int round = attngen__pair_end_round(n_mb, nhb, g);
        attngen__pair_end_plan(n_mb, nhb, g, round, &e);
        const long rp = n_jobs / (2 * g) - 1, pairs = (n_jobs + 1) / 2;
        /* the kernel's own test (job_at), in 32-bit unsigned as there */
        const unsigned up = (unsigned)((n_jobs + 1) >> 1);
        const unsigned pr = up > (unsigned)((rp + 1) * g) ? (unsigned)rp + 2 : (unsigned)rp + 1;
        assert_int_equal(pr, (pairs + g - 1) / g);
        assert_int_equal(e.round != INT_MAX,
                         rp >= 3 || (rp >= 1 && 10u * pr * (unsigned)g > 11u * up));
        if (e.round != INT_MAX) assert_int_equal(e.round, 2 * rp);
        ends += e.round != INT_MAX, holes += e.hole >= 0;
        short_ends += e.round != INT_MAX && rp < 3;
        unsigned char *seen = calloc((size_t)n_jobs, 1);
        long *load = calloc((size_t)g, sizeof(long));
        assert_true(seen && load);
        long count = 0, rounds = n_jobs / g + 4;
        for (long k = 0; k < g; ++k) {
          int ended = 0;
          for (long i = 0; i < rounds; ++i) {
            const long j = attngen__pair_job(&e, n_mb, nhb, g, i, k);
            if (j >= n_jobs) { ended = 1; continue; }
            assert_false(ended);          /* a job after the block's end */
            assert_true(j >= 0);
            assert_int_equal(seen[j], 0);  /* run twice */
            seen[j] = 1, ++count, load[k] += j % n_mb + 1;
            if (i < e.round && (i & 1)) {  /* a pair: rounds i - 1, i */
              const long j0 = attngen__pair_job(&e, n_mb, nhb, g, i - 1, k);
              const long hb = j / n_mb, last_odd = (n_mb & 1) && hb == nhb - 1;
              if (!last_odd) assert_int_equal(j0 % n_mb + 1 + j % n_mb + 1, n_mb + 1);
            }
          }
        }
        assert_int_equal(count, n_jobs);  /* none left out */
        if (e.round != INT_MAX) {
          long mx = 0, mn = LONG_MAX;
          for (long k = 0; k < g; ++k) mx = load[k] > mx ? load[k] : mx, mn = load[k] < mn ? load[k] : mn;
          assert_true(mx - mn <= n_mb);
        }
        free(seen), free(load);
        ++cases;
      }
    }
  }
  print_message("pair order: %ld cases, %ld with the end (%ld after R = 1 or 2 rounds of "
                "pairs), %ld of them with the hole\n", cases, ends, short_ends, holes);
  assert_true(ends > 100 && holes > 20 && short_ends > 100);
}

static void test_causal_order_follows_kv_bytes(void **state) {
  (void)state;
  /* (4,32,4096) MHA: a round holds 128 heads' K/V, 256 MiB: pairs */
  assert_int_equal(attngen__causal_order(4, 32, 32, 4096, 128, 4096, 132, 0, 0), ATTNGEN__CAUSAL_PAIRS);
  /* MQA (1,64/1,16384): one KV head of 8 MiB: longest first */
  assert_int_equal(attngen__causal_order(1, 64, 1, 16384, 128, 8192, 132, 0, 0), ATTNGEN__CAUSAL_LONGEST);
  /* GQA (1,32/8,8192): 8 KV heads x 8192 keys = 32 MiB: longest first; at 16384 keys 64 MiB: pairs */
  assert_int_equal(attngen__causal_order(1, 32, 8, 8192, 128, 2048, 132, 0, 0), ATTNGEN__CAUSAL_LONGEST);
  assert_int_equal(attngen__causal_order(1, 32, 8, 16384, 128, 4096, 132, 0, 0), ATTNGEN__CAUSAL_PAIRS);
  /* head_dim 64 halves the bytes: (2,16,5120) 32 heads x 5120 x 64 x 4 = 40 MiB, not above */
  assert_int_equal(attngen__causal_order(2, 16, 16, 5120, 64, 1280, 132, 0, 0), ATTNGEN__CAUSAL_LONGEST);
  assert_int_equal(attngen__causal_order(2, 16, 16, 5121, 64, 1312, 132, 0, 0), ATTNGEN__CAUSAL_PAIRS);
  /* fewer jobs than two rounds: longest first whatever the bytes */
  assert_int_equal(attngen__causal_order(1, 2, 2, 1 << 20, 128, 263, 132, 0, 0), ATTNGEN__CAUSAL_LONGEST);
  /* a packed batch takes the same rule on its longest sequence: 16 sequences up to 16384 keys,
   * 33 KV heads a round, 264 MiB: pairs; up to 512 keys, 8 MiB: longest first; forced wins */
  assert_int_equal(attngen__causal_order(16, 32, 8, 16384, 128, 65536, 132, 0, 0), ATTNGEN__CAUSAL_PAIRS);
  assert_int_equal(attngen__causal_order(16, 32, 8, 512, 128, 2048, 132, 0, 0), ATTNGEN__CAUSAL_LONGEST);
  assert_int_equal(attngen__causal_order(16, 32, 8, 16384, 128, 65536, 132, 1, 0), ATTNGEN__CAUSAL_LONGEST);
  /* forced (ATTNGEN_CAUSAL_ORDER) wins either way */
  assert_int_equal(attngen__causal_order(4, 32, 32, 4096, 128, 4096, 132, 1, 0), ATTNGEN__CAUSAL_LONGEST);
  assert_int_equal(attngen__causal_order(1, 64, 1, 16384, 128, 8192, 132, 2, 0), ATTNGEN__CAUSAL_PAIRS);
}

/* The dynamic order (3) instead of pairs where the kernel has it (dynamic_ok: the
 * head_dim-64 causal TMA kernels, dense batch); longest first stays; forced 1 or 2 still
 * wins; forced 3 takes it where the kernel has it, else the static rule decides. */
static void test_causal_order_dynamic(void **state) {
  (void)state;
  /* SD3-sized (2,24,4429) at head_dim 64: pairs without the dynamic order, 3 with it */
  assert_int_equal(attngen__causal_order(2, 24, 24, 4429, 64, 1680, 132, 0, 0), ATTNGEN__CAUSAL_PAIRS);
  assert_int_equal(attngen__causal_order(2, 24, 24, 4429, 64, 1680, 132, 0, 1), ATTNGEN__CAUSAL_DYNAMIC);
  /* longest first (K/V fits, or fewer than two rounds) stays with or without it */
  assert_int_equal(attngen__causal_order(1, 32, 8, 8192, 64, 2048, 132, 0, 1), ATTNGEN__CAUSAL_LONGEST);
  assert_int_equal(attngen__causal_order(8, 16, 16, 1024, 64, 1024, 132, 0, 1), ATTNGEN__CAUSAL_LONGEST);
  assert_int_equal(attngen__causal_order(1, 2, 2, 1 << 20, 64, 263, 132, 0, 1), ATTNGEN__CAUSAL_LONGEST);
  /* forced 3 */
  assert_int_equal(attngen__causal_order(1, 2, 2, 100, 64, 1, 1, 3, 1), ATTNGEN__CAUSAL_DYNAMIC);
  assert_int_equal(attngen__causal_order(8, 16, 16, 1024, 64, 1024, 132, 3, 1), ATTNGEN__CAUSAL_DYNAMIC);
  assert_int_equal(attngen__causal_order(2, 24, 24, 4429, 64, 1680, 132, 2, 1), ATTNGEN__CAUSAL_PAIRS);
  assert_int_equal(attngen__causal_order(2, 24, 24, 4429, 64, 1680, 132, 1, 1), ATTNGEN__CAUSAL_LONGEST);
  assert_int_equal(attngen__causal_order(4, 32, 32, 4096, 128, 4096, 132, 3, 0), ATTNGEN__CAUSAL_PAIRS);
  assert_int_equal(attngen__causal_order(1, 64, 1, 16384, 128, 8192, 132, 3, 0), ATTNGEN__CAUSAL_LONGEST);
}

/* A section of the dynamic order: the KV heads whose K/V fit the 40 MiB budget, times the
 * query heads per KV head, at least one and at most heads x batch; then the fewest sections
 * of that size, made equal (whole query-head groups). */
/* templates/common/fastdiv.h (the sm90 job decode's divisions): n / d for every divisor up to
 * 3000 and around each power of two up to 2^31 - 1, at the quotient boundaries (k d - 1, k d,
 * k d + d - 1 for small and large k), 0, 2^31 - 1 and seeded n. */
static int fdiv_bad(unsigned n, unsigned d) {
  unsigned m, s;
  ag_fdiv_make(d, &m, &s);
  const unsigned q = ag_fdiv(n, m, s);
  if (q != n / d) print_error("%u / %u: %u, not %u (m %u, s %u)\n", n, d, q, n / d, m, s);
  return q != n / d;
}

static void test_fastdiv(void **state) {
  (void)state;
  unsigned ds[3000 + 31 * 3 + 1];
  int nd = 0;
  for (unsigned d = 1; d <= 3000; d++) ds[nd++] = d;
  for (int k = 12; k <= 30; k++) {
    ds[nd++] = (1u << k) - 1;
    ds[nd++] = 1u << k;
    ds[nd++] = (1u << k) + 1;
  }
  ds[nd++] = 0x7FFFFFFFu;
  uint64_t x = 0x9E3779B97F4A7C15ull;
  long bad = 0, checked = 0;
  for (int i = 0; i < nd; i++) {
    const unsigned d = ds[i];
    const unsigned top = 0x7FFFFFFFu;
    bad += fdiv_bad(0, d) + fdiv_bad(top, d) + fdiv_bad(top - 1, d);
    checked += 3;
    const unsigned kmax = top / d;
    const unsigned ks[6] = {1, 2, 3, kmax > 2 ? kmax - 1 : 1, kmax, kmax / 2 + 1};
    for (int j = 0; j < 6; j++) {
      const unsigned long long base = (unsigned long long)ks[j] * d;
      for (int e = -1; e <= 1; e++) {
        const long long n = (long long)base + (e < 0 ? -1 : e == 0 ? 0 : (long long)d - 1);
        if (n < 0 || n > (long long)top) continue;
        bad += fdiv_bad((unsigned)n, d);
        checked++;
      }
    }
    for (int j = 0; j < 64; j++) {
      x ^= x << 13, x ^= x >> 7, x ^= x << 17;
      bad += fdiv_bad((unsigned)(x & top), d);
      checked++;
    }
  }
  print_message("fastdiv: %ld quotients, %ld wrong\n", checked, bad);
  assert_int_equal(bad, 0);
  assert_true(checked > 200000);
}

static void test_causal_section(void **state) {
  (void)state;
  /* head_dim 64, 4429 keys: 1.08 MiB per KV head -> 36 heads of 48 fit: two sections of 24 */
  assert_int_equal(attngen__causal_section(2, 24, 24, 4429, 64), 24);
  /* (4,16,4096) at 64: 1 MiB per head -> 40 of 64 fit: two of 32 */
  assert_int_equal(attngen__causal_section(4, 16, 16, 4096, 64), 32);
  /* 4 MiB per head -> 10 of 21 fit: three of 7, not 10, 10 and a last one of 1 */
  assert_int_equal(attngen__causal_section(1, 21, 21, 16384, 64), 7);
  /* 2 MiB per head -> 20 of 41 fit: three of 14 (14, 14, 13) */
  assert_int_equal(attngen__causal_section(1, 41, 41, 8192, 64), 14);
  /* everything fits: all (head, batch) pairs (0.25 MiB per head: 160 > 128) */
  assert_int_equal(attngen__causal_section(8, 16, 16, 1024, 64), 128);
  assert_int_equal(attngen__causal_section(1, 8, 8, 1024, 64), 8);
  /* GQA 32/8 at 8192 keys: 2 MiB per KV head -> 20 KV heads x 4 query heads, capped at 32 */
  assert_int_equal(attngen__causal_section(1, 32, 8, 8192, 64), 32);
  /* 65536 keys: 16 MiB per KV head -> 2 KV heads x 4 (16 KV heads: eight sections of 2) */
  assert_int_equal(attngen__causal_section(2, 32, 8, 65536, 64), 8);
  /* GQA 24/8 x 3 at 16384 keys: 4 MiB per KV head -> 10 of 24 KV heads fit: three sections of
   * 8 KV heads, 24 query heads each (whole groups of 3) */
  assert_int_equal(attngen__causal_section(3, 24, 8, 16384, 64), 24);
  /* one KV head above the budget: still one KV head's group */
  assert_int_equal(attngen__causal_section(1, 8, 2, 1 << 22, 64), 4);
  assert_int_equal(attngen__causal_section(1, 8, 8, 1 << 22, 64), 1);
  /* no keys: every pair in one section */
  assert_int_equal(attngen__causal_section(3, 5, 5, 0, 64), 15);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_split_plan_full_last_round_does_not_split),
      cmocka_unit_test(test_split_plan_aligned_parts),
      cmocka_unit_test(test_split_plan_mi300x_cross_attention_splits_all),
      cmocka_unit_test(test_split_plan_partial_last_round_splits_tail),
      cmocka_unit_test(test_split_plan_other_cu_counts),
      cmocka_unit_test(test_split_plan_short_or_empty_kv_does_not_split),
      cmocka_unit_test(test_split_plan_sm90_few_heads_split_the_tail),
      cmocka_unit_test(test_split_plan_sm90_full_rounds_do_not_split),
      cmocka_unit_test(test_split_plan_rejects_bad_arguments),
      cmocka_unit_test(test_split_plan_apply_fills_kargs),
      cmocka_unit_test(test_split_plan_vt_bytes_follow_head_dim),
      cmocka_unit_test(test_pair_order_end),
      cmocka_unit_test(test_causal_order_follows_kv_bytes),
      cmocka_unit_test(test_causal_order_dynamic),
      cmocka_unit_test(test_causal_section),
      cmocka_unit_test(test_fastdiv),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
