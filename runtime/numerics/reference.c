/* reference.c: the CPU reference attention (docs/NUMERICS.md steps 1-7 in fp32 with the selected
 * bf16 rounding; also the runtime's CPU backend), the exact fp64 attention used as the sanity
 * bound, and the pthread job runner both use. */
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bf16_round.h"
#include "numerics.h"

#define KV_TILE ATTNGEN__REF_KV_TILE
#define Q_BLOCK 64  /* query rows per job: K/V tiles are converted once for this many rows */
#define MAX_THREADS 256

/* ---- job runner ---------------------------------------------------------------------- */

typedef struct worker {
  int64_t jobs, first, stride;
  void (*fn)(void *ctx, int64_t job);
  void *ctx;
} worker;

static void *worker_main(void *p) {
  const worker *w = p;
  for (int64_t j = w->first; j < w->jobs; j += w->stride) w->fn(w->ctx, j);
  return NULL;
}

static int online_cpus(void) {
  const long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n < 1 ? 1 : n > MAX_THREADS ? MAX_THREADS : (int)n;
}

attngen_status attngen__parallel_for(int64_t jobs, int threads,
                                     void (*fn)(void *ctx, int64_t job), void *ctx) {
  if (!fn) return ATTNGEN_STATUS_NULL_POINTER;
  if (jobs <= 0) return ATTNGEN_STATUS_OK;
  int nt = threads > 0 ? threads : online_cpus();
  if (nt > MAX_THREADS) nt = MAX_THREADS;
  if ((int64_t)nt > jobs) nt = (int)jobs;
  worker w[MAX_THREADS];
  pthread_t tid[MAX_THREADS];
  int started[MAX_THREADS];
  for (int t = 0; t < nt; ++t) w[t] = (worker){jobs, t, nt, fn, ctx};
  /* worker 0 runs on the calling thread; a share whose thread cannot start runs here too */
  for (int t = 1; t < nt; ++t) started[t] = pthread_create(&tid[t], NULL, worker_main, &w[t]) == 0;
  worker_main(&w[0]);
  for (int t = 1; t < nt; ++t) {
    if (started[t]) {
      pthread_join(tid[t], NULL);
    } else {
      worker_main(&w[t]);
    }
  }
  return ATTNGEN_STATUS_OK;
}

/* ---- shared argument checks ---------------------------------------------------------- */

static attngen_status check_shape(int batch, int heads, int seqlen_q, int seqlen_kv) {
  if (batch < 0 || heads < 0 || seqlen_q < 0 || seqlen_kv < 0) return ATTNGEN_STATUS_BAD_SHAPE;
  return ATTNGEN_STATUS_OK;
}

/* KV heads of a grouped-query call: 0 (= heads) or a divisor of heads. */
static attngen_status check_heads_kv(int heads, int heads_kv) {
  if (heads_kv < 0 || (heads_kv > 0 && heads > 0 && heads % heads_kv != 0))
    return ATTNGEN_STATUS_BAD_SHAPE;
  return ATTNGEN_STATUS_OK;
}

static int has_work(int batch, int heads, int seqlen_q) {
  return batch > 0 && heads > 0 && seqlen_q > 0;
}

static inline float bf16_value(uint16_t b) {
  return attngen__f32_from_bits(ag_bf16_to_f32_bits(b));
}

/* ---- fp32 reference ------------------------------------------------------------------ */

typedef struct ref_job_ctx {
  const attngen__ref_args *a;
  float scale_log2;
  int q_blocks;
  int q_rows; /* query rows per job: Q_BLOCK, or the skip grid's q-tile */
  attngen__skip_grid grid; /* tile skipping (a->skip_block_m > 0) */
  int step;   /* keys per running-max update */
  int nparts; /* KV parts of a split row (0 when nothing is split) */
  int d;      /* head_dim: elements per row */
  atomic_int out_of_memory;
} ref_job_ctx;

/* s = q . k in fp32; eight interleaved partial sums (the summation order is not part of the
 * contract, and this order lets the compiler use vector registers). */
static inline float dot_f32(const float *q, const float *k, int D) {
  float part[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  for (int d = 0; d < D; d += 8) {
    for (int i = 0; i < 8; ++i) part[i] += q[d + i] * k[d + i];
  }
  return ((part[0] + part[4]) + (part[1] + part[5])) + ((part[2] + part[6]) + (part[3] + part[7]));
}

static void load_rows(float *dst, const uint16_t *base, int64_t stride, int rows, int D) {
  for (int r = 0; r < rows; ++r) {
    const uint16_t *src = base + (int64_t)r * stride;
    for (int d = 0; d < D; ++d) dst[r * D + d] = bf16_value(src[d]);
  }
}

/* Merge of the parts of one split row, in the float operations of NAME_merge
 * (templates/gfx942/attn_fwd.hip.in, templates/sm90/attn_fwd_wgmma.cu.in; the kernels' exp2
 * is the hardware's, within the contract's tolerance): max of m_p, weights exp2(m_p - M) (0
 * for an empty part), then L and O summed in part order. Leaves the merged (M, L, O) in *m,
 * *l, o. */
static void merge_parts(int nparts, const float *pm, const float *pl, const float *po,
                        const float *pt, float *m, float *l, float *o, float *tacc, int D) {
  float mmax = -INFINITY;
  for (int p = 0; p < nparts; ++p) mmax = fmaxf(mmax, pm[p]);
  float lt = 0.0f;
  for (int d = 0; d < D; ++d) o[d] = 0.0f;
  for (int p = 0; p < nparts; ++p) {
    const float w = pm[p] == -INFINITY ? 0.0f : exp2f(pm[p] - mmax);
    const float lw = pl[p] * w;
    lt += lw;
    const float *op = po + (size_t)p * D;
    for (int d = 0; d < D; ++d) {
      const float ow = op[d] * w;
      o[d] += ow;
    }
    if (tacc)
      for (int d = 0; d < D; ++d) tacc[d] = (p == 0 ? 0.0f : tacc[d]) + pt[(size_t)p * D + d] * w;
  }
  if (tacc && nparts == 0)
    for (int d = 0; d < D; ++d) tacc[d] = 0.0f;
  *m = mmax;
  *l = lt;
}

/* The skip verdicts of one job's q-tile (tile skipping, attngen__ref_args.skip_*). */
typedef struct skip_job {
  size_t word0;        /* its first list word */
  uint32_t *w;         /* W words being built (nw) */
  float *tmax;         /* per row: max t over the current tile */
  unsigned char *hask; /* per row: the row has a key in the current tile */
  int visited, skipped, must_do;
  uint32_t n_skipped, n_visited;
} skip_job;

static int list_bit(const uint32_t *list, size_t word, int kt) {
  return list && ((list[word + (size_t)kt / 32] >> (kt % 32)) & 1u);
}

/* Rows [q0, q0 + q_rows) of one (b, h): the online softmax of docs/NUMERICS.md per row, one
 * running-max update per step of keys, with the K/V keys of a step converted to fp32 once
 * for all rows of the block. A split row restarts at each part boundary (a multiple of the
 * step) after saving the part's (m, l, O), and merges the parts at the end. Rows are
 * independent, so the result of a row does not depend on the block it falls in. With tile
 * skipping a job is one q-tile: a skipped tile's steps are passed over (its keys are not
 * read), and each computed tile's verdict is taken after its last step. */
static void ref_job(void *p, int64_t job) {
  ref_job_ctx *c = p;
  const attngen__ref_args *a = c->a;
  const attngen__call_shape *sh = &a->shape;
  const int qb = (int)(job % c->q_blocks);
  const int h = (int)((job / c->q_blocks) % sh->heads);
  const int b = (int)(job / c->q_blocks / sh->heads);
  const int hk = h / (sh->heads / attngen__shape_heads_kv(sh)); /* the group's KV head */
  /* the entry's rows: its sequence in a packed call (vb = 0, rows from e.q0 / e.k0) */
  const attngen__entry e =
      attngen__entry_of(a->cu_seqlens_q, a->cu_seqlens_k, a->total_q, a->total_kv,
                        a->kv_lengths, b, sh->seqlen_q, sh->seqlen_kv);
  const int packed = a->cu_seqlens_q != NULL;
  const int QR = c->q_rows;
  const int q0 = qb * QR;
  const int rows = e.nq - q0 < QR ? e.nq - q0 : QR;
  if (rows <= 0) return; /* a packed sequence shorter than the largest */
  const int rmode = (int)sh->rounding;
  const int step = c->step;
  const int D = c->d;

  /* per-row state: m, l, the keys each row sees, split flags, skip verdict inputs */
  const int sk = a->skip_block_m > 0;
  const int nw = sk ? c->grid.nw : 0;
  char *rowmem = malloc((size_t)QR * (3 * sizeof(float) + sizeof(int) + 2) +
                        (size_t)nw * sizeof(uint32_t) + 16);
  if (!rowmem) {
    atomic_store(&c->out_of_memory, 1);
    return;
  }
  float *m = (float *)(void *)rowmem, *l = m + QR;
  int *row_keys = (int *)(void *)(l + QR); /* the keys each row sees (the causal mask) */
  skip_job sj = {0};
  sj.tmax = (float *)(void *)(row_keys + QR);
  sj.w = (uint32_t *)(void *)(sj.tmax + QR);
  unsigned char *split = (unsigned char *)(sj.w + nw);
  sj.hask = split + QR;
  if (sk) {
    sj.word0 = (((size_t)b * sh->heads + h) * (size_t)c->grid.nqt + (size_t)qb) * (size_t)nw;
    memset(sj.w, 0, sizeof(uint32_t) * (size_t)nw);
  }
  int any_split = 0;
  for (int r = 0; r < rows; ++r) {
    const int64_t row = ((int64_t)b * sh->heads + h) * sh->seqlen_q + q0 + r;
    split[r] = c->nparts > 0 && (!a->split_rows || a->split_rows[row]);
    any_split |= split[r];
  }
  const int nparts = any_split ? c->nparts : 0;

  /* fp32 working set: Q block, O accumulators, the K and V keys of one step, the scores of
   * one row, and (split rows) every part's O, m and l */
  const int want_tol = a->tol != NULL;
  const size_t floats = (size_t)2 * QR * D + (size_t)2 * step * D + (size_t)2 * step +
                        (size_t)QR * nparts * (D + 2) +
                        (want_tol ? (size_t)QR * D * (1 + (size_t)nparts) : 0);
  float *scratch = malloc(sizeof(float) * floats);
  if (!scratch) {
    free(rowmem);
    atomic_store(&c->out_of_memory, 1);
    return;
  }
  float *qf = scratch, *acc = qf + (size_t)QR * D, *kf = acc + (size_t)QR * D;
  float *vf = kf + step * D;
  float *t = vf + step * D, *sc = t + step; /* t = s * c, and the score s itself */
  float *part_o = sc + step, *part_m = part_o + (size_t)QR * nparts * D;
  float *part_l = part_m + (size_t)QR * nparts;
  /* tolerance accumulators (a->tol): handled exactly like acc and part_o */
  float *tacc = want_tol ? part_l + (size_t)QR * nparts : NULL;
  float *part_t = want_tol ? tacc + (size_t)QR * D : NULL;

  load_rows(qf, a->q.data + attngen__view_offset(a->q.sb, a->q.sh, a->q.ss, e.vb, h, e.q0 + q0),
            a->q.ss, rows, D);
  for (int r = 0; r < rows; ++r) {
    m[r] = -INFINITY;
    l[r] = 0.0f;
  }
  memset(acc, 0, sizeof(float) * (size_t)rows * D);
  if (tacc) memset(tacc, 0, sizeof(float) * (size_t)rows * D);

  const int kvn = e.nk; /* keys of entry b */
  int seen = 0;         /* the most keys a row of the job sees: tiles from there are not visited */
  for (int r = 0; r < rows; ++r) {
    row_keys[r] = attngen__causal_keys(a->causal, q0 + r, kvn, e.nq);
    if (row_keys[r] > seen) seen = row_keys[r];
  }
  const int bn = sk ? a->skip_block_n : 0;
  for (int kv0 = 0; kv0 < kvn; kv0 += step) {
    const int n = kvn - kv0 < step ? kvn - kv0 : step;
    /* a new part starts here: split rows save the finished one and restart */
    const int part_start = nparts > 0 && kv0 > 0 && kv0 % a->kv_per_split == 0;
    const int done_part = part_start ? kv0 / a->kv_per_split - 1 : 0;
    const int kt = sk ? kv0 / bn : 0;
    if (sk && kv0 % bn == 0) { /* a tile starts: skip it, or compute it and judge it */
      sj.visited = kv0 < seen;
      sj.must_do = list_bit(a->skip_must_do, sj.word0, kt);
      sj.skipped = sj.visited && !sj.must_do &&
                   (list_bit(a->skip_read, sj.word0, kt) ||
                    list_bit(a->skip_must_skip, sj.word0, kt));
      sj.n_visited += (uint32_t)sj.visited;
      sj.n_skipped += (uint32_t)sj.skipped;
      if (sj.skipped) sj.w[kt / 32] |= 1u << (kt % 32);
      for (int r = 0; r < rows; ++r) {
        sj.tmax[r] = -INFINITY;
        sj.hask[r] = 0;
      }
    }
    const int skipped = sk && sj.skipped;
    if (!skipped) {
      load_rows(kf, a->k.data + attngen__view_offset(a->k.sb, a->k.sh, a->k.ss, e.vb, hk,
                                                     e.k0 + kv0), a->k.ss, n, D);
      load_rows(vf, a->v.data + attngen__view_offset(a->v.sb, a->v.sh, a->v.ss, e.vb, hk,
                                                     e.k0 + kv0), a->v.ss, n, D);
    }
    for (int r = 0; r < rows; ++r) {
      float *o = acc + r * D;
      if (part_start && split[r]) {
        const size_t pi = (size_t)r * nparts + done_part;
        part_m[pi] = m[r];
        part_l[pi] = l[r];
        memcpy(part_o + pi * D, o, sizeof(float) * D);
        m[r] = -INFINITY;
        l[r] = 0.0f;
        memset(o, 0, sizeof(float) * D);
        if (tacc) {
          memcpy(part_t + pi * D, tacc + r * D, sizeof(float) * D);
          memset(tacc + r * D, 0, sizeof(float) * D);
        }
      }
      /* keys past the row's causal limit are not visited (a step wholly past it changes
       * nothing: its max would be m, its p 0); a skipped tile's keys are not either */
      const int nr = row_keys[r] - kv0 < n ? row_keys[r] - kv0 : n;
      if (nr <= 0 || skipped) continue;
      /* steps 1-2: scores in fp32, scaled into base 2 */
      float step_max = m[r];
      for (int j = 0; j < nr; ++j) {
        sc[j] = dot_f32(qf + r * D, kf + j * D, D);
        t[j] = sc[j] * c->scale_log2;
        step_max = fmaxf(step_max, t[j]); /* a NaN score does not become the max */
      }
      if (sk) {
        sj.hask[r] = 1;
        for (int j = 0; j < nr; ++j) sj.tmax[r] = fmaxf(sj.tmax[r], t[j]);
      }
      /* step 3: on a new max, rescale O and l by exp2(m_old - m_new) */
      if (step_max > m[r]) {
        const float alpha = exp2f(m[r] - step_max);
        l[r] *= alpha;
        for (int d = 0; d < D; ++d) o[d] *= alpha;
        if (tacc)
          for (int d = 0; d < D; ++d) tacc[r * D + d] *= alpha;
        m[r] = step_max;
      }
      /* steps 4-5: l takes the unrounded p, P.V uses p rounded to bf16; x = t - m, or in
       * the fma form s * c - m rounded once while |m| < 2^24 (beyond, fl(s * c) = m may be
       * more than 1/2 off the exact product: the fma form's x at the row's max, that error,
       * could make p = +Inf) */
      for (int j = 0; j < nr; ++j) {
        const float x = a->score_fma && (a->score_fma == 1 || c->scale_log2 > 0.0f) &&
                                fabsf(m[r]) < 0x1p24f
                            ? fmaf(sc[j], c->scale_log2, -m[r])
                            : t[j] - m[r];
        const float pj = exp2f(x);
        l[r] += pj;
        const float pb = a->unrounded_p ? pj
                                         : attngen__f32_from_bits(ag_bf16_to_f32_bits(
                                               ag_bf16_round(attngen__f32_bits(pj), rmode)));
        const float *vj = vf + j * D;
        for (int d = 0; d < D; ++d) o[d] += pb * vj[d];
        /* Could a slightly different exp2 round this P to the neighbouring bf16? 2^x of an
         * integer x (x = 0 for the row's max) is exact on the hardware too. */
        if (tacc && isfinite(pj) && pj > 0.0f && x != floorf(x)) {
          const float lo = pj * (1.0f - ATTNGEN__P_FLIP_REL), hi = pj * (1.0f + ATTNGEN__P_FLIP_REL);
          const float plo = attngen__f32_from_bits(
              ag_bf16_to_f32_bits(ag_bf16_round(attngen__f32_bits(lo), rmode)));
          const float phi = attngen__f32_from_bits(
              ag_bf16_to_f32_bits(ag_bf16_round(attngen__f32_bits(hi), rmode)));
          if (plo != phi)
            for (int d = 0; d < D; ++d) tacc[r * D + d] += (phi - plo) * fabsf(vj[d]);
        }
      }
    }
    /* the tile's last step: a computed tile is marked when every row with a key in it stays
     * below its running max (m after this tile) by more than |threshold| */
    const int tile_end = (kt + 1) * bn < kvn ? (kt + 1) * bn : kvn;
    if (sk && sj.visited && !skipped && !sj.must_do && kv0 + n >= tile_end) {
      int mark = 1;
      for (int r = 0; r < rows && mark; ++r)
        mark = !sj.hask[r] || sj.tmax[r] - m[r] < a->skip_threshold_log2;
      if (mark) sj.w[kt / 32] |= 1u << (kt % 32);
    }
  }
  if (sk) {
    if (a->skip_write)
      memcpy(a->skip_write + sj.word0, sj.w, sizeof(uint32_t) * (size_t)nw);
    if (a->skip_count) {
      __atomic_fetch_add(&a->skip_count[0], sj.n_skipped, __ATOMIC_RELAXED);
      __atomic_fetch_add(&a->skip_count[1], sj.n_visited, __ATOMIC_RELAXED);
    }
  }

  /* split rows: save the last part, merge */
  for (int r = 0; r < rows && nparts > 0; ++r) {
    if (!split[r]) continue;
    float *o = acc + r * D;
    /* parts past the key length are empty (m = -inf: weight 0 in the merge) */
    const int used = (kvn + a->kv_per_split - 1) / a->kv_per_split;
    if (used > 0) {
      const size_t pi = (size_t)r * nparts + used - 1;
      part_m[pi] = m[r];
      part_l[pi] = l[r];
      memcpy(part_o + pi * D, o, sizeof(float) * D);
      if (tacc) memcpy(part_t + pi * D, tacc + r * D, sizeof(float) * D);
    }
    merge_parts(used, part_m + (size_t)r * nparts, part_l + (size_t)r * nparts,
                part_o + (size_t)r * nparts * D,
                part_t ? part_t + (size_t)r * nparts * D : NULL, &m[r], &l[r], o,
                tacc ? tacc + r * D : NULL, D);
  }

  /* steps 6-7 */
  /* the row's place in lse and tol: [B,H,Sq], or [H, total_q] in a packed call */
  const int64_t row_base = packed ? (int64_t)h * a->total_q + e.q0 + q0
                                  : ((int64_t)b * sh->heads + h) * sh->seqlen_q + q0;
  for (int r = 0; r < rows; ++r) {
    uint16_t *dst = a->out.data + attngen__view_offset(a->out.sb, a->out.sh, a->out.ss, e.vb, h,
                                                       e.q0 + q0 + r);
    const float inv_l = l[r] == 0.0f ? 0.0f : 1.0f / l[r]; /* l == 0 only without keys */
    for (int d = 0; d < D; ++d) {
      dst[d] = (uint16_t)ag_bf16_round(attngen__f32_bits(acc[r * D + d] * inv_l), rmode);
    }
    if (tacc) {
      float *tol = a->tol + (row_base + r) * D;
      for (int d = 0; d < D; ++d) tol[d] = tacc[r * D + d] * inv_l;
    }
    if (a->lse) {
      float *lse = a->lse + row_base + r;
      *lse = row_keys[r] == 0 ? -INFINITY : m[r] * 0.693147182f + logf(l[r]);
    }
  }
  free(scratch);
  free(rowmem);
}

attngen_status attngen__reference_fwd(const attngen__ref_args *a) {
  if (!a) return ATTNGEN_STATUS_NULL_POINTER;
  const attngen__call_shape *sh = &a->shape;
  attngen_status st = check_shape(sh->batch, sh->heads, sh->seqlen_q, sh->seqlen_kv);
  if (st != ATTNGEN_STATUS_OK) return st;
  if ((st = check_heads_kv(sh->heads, sh->heads_kv)) != ATTNGEN_STATUS_OK) return st;
  if ((unsigned)sh->rounding > (unsigned)ATTNGEN_ROUND_RTZ) return ATTNGEN_STATUS_BAD_ROUNDING;
  if (sh->head_dim < 0 || sh->head_dim > ATTNGEN__HEAD_DIM_MAX || sh->head_dim % 8 != 0)
    return ATTNGEN_STATUS_UNSUPPORTED_HEAD_DIM;
  if (!isfinite(a->softmax_scale)) return ATTNGEN_STATUS_BAD_SCALE;
  const int step = a->kv_step > 0 ? a->kv_step : KV_TILE;
  if (a->kv_step < 0 || a->kv_per_split < 0 || a->kv_per_split % step != 0)
    return ATTNGEN_STATUS_INVALID_ARGUMENT;
  if ((!a->cu_seqlens_q) != (!a->cu_seqlens_k) || (a->cu_seqlens_q && a->kv_per_split > 0))
    return ATTNGEN_STATUS_INVALID_ARGUMENT;
  if (a->cu_seqlens_q && (a->total_q < 0 || a->total_kv < 0)) return ATTNGEN_STATUS_BAD_SHAPE;
  if (!has_work(sh->batch, sh->heads, sh->seqlen_q)) return ATTNGEN_STATUS_OK;
  if (!a->q.data || !a->out.data) return ATTNGEN_STATUS_NULL_POINTER;
  if (sh->seqlen_kv > 0 && (!a->k.data || !a->v.data)) return ATTNGEN_STATUS_NULL_POINTER;
  const int sk = a->skip_block_m > 0;
  if (sk && (a->skip_block_n <= 0 || a->skip_block_n % step != 0 ||
             a->kv_per_split % a->skip_block_n != 0 || a->cu_seqlens_q ||
             !(a->skip_threshold_log2 < 0.0f)))
    return ATTNGEN_STATUS_INVALID_ARGUMENT;
  if (a->skip_block_m < 0) return ATTNGEN_STATUS_INVALID_ARGUMENT;
  const int nparts =
      a->kv_per_split > 0 ? (sh->seqlen_kv + a->kv_per_split - 1) / a->kv_per_split : 0;
  const int q_rows = sk ? a->skip_block_m : Q_BLOCK;
  ref_job_ctx c = {a, attngen__scale_log2(a->softmax_scale), (sh->seqlen_q + q_rows - 1) / q_rows,
                   q_rows, {0, 0, 0}, step, nparts, attngen__shape_head_dim(sh), 0};
  if (sk)
    c.grid = attngen__skip_grid_of(sh->seqlen_q, sh->seqlen_kv, a->skip_block_m, a->skip_block_n);
  st = attngen__parallel_for((int64_t)sh->batch * sh->heads * c.q_blocks, a->threads, ref_job, &c);
  if (st == ATTNGEN_STATUS_OK && atomic_load(&c.out_of_memory)) st = ATTNGEN_STATUS_OUT_OF_MEMORY;
  return st;
}

/* ---- exact fp64 attention ------------------------------------------------------------ */

static double dot_f64(const uint16_t *q, const uint16_t *k, int D) {
  double s = 0.0;
  for (int d = 0; d < D; ++d) s += (double)bf16_value(q[d]) * (double)bf16_value(k[d]);
  return s;
}

/* One query row: two passes over the keys (max, then exp-sum and weighted V sum). */
static void exact_job(void *p, int64_t job) {
  const attngen__exact_args *a = p;
  const int s = (int)(job % a->seqlen_q);
  const int h = (int)((job / a->seqlen_q) % a->heads);
  const int b = (int)(job / a->seqlen_q / a->heads);
  const int hk = h / (a->heads / (a->heads_kv > 0 ? a->heads_kv : a->heads));
  const attngen__entry e = attngen__entry_of(a->cu_seqlens_q, a->cu_seqlens_k, a->total_q,
                                             a->total_kv, a->kv_lengths, b, a->seqlen_q,
                                             a->seqlen_kv);
  if (s >= e.nq) return; /* a packed sequence shorter than the largest */
  const uint16_t *q =
      a->q.data + attngen__view_offset(a->q.sb, a->q.sh, a->q.ss, e.vb, h, e.q0 + s);
  double *out =
      a->out.data + attngen__view_offset(a->out.sb, a->out.sh, a->out.ss, e.vb, h, e.q0 + s);
  const int D = a->head_dim > 0 ? a->head_dim : ATTNGEN__HEAD_DIM;
  double o[ATTNGEN__HEAD_DIM_MAX];
  for (int d = 0; d < D; ++d) o[d] = 0.0;
  double mx = -INFINITY, sum = 0.0;
  const int kvn = attngen__causal_keys(a->causal, s, e.nk, e.nq);
  for (int j = 0; j < kvn; ++j) {
    const uint16_t *k =
        a->k.data + attngen__view_offset(a->k.sb, a->k.sh, a->k.ss, e.vb, hk, e.k0 + j);
    mx = fmax(mx, dot_f64(q, k, D) * a->softmax_scale);
  }
  for (int j = 0; j < kvn; ++j) {
    const uint16_t *k =
        a->k.data + attngen__view_offset(a->k.sb, a->k.sh, a->k.ss, e.vb, hk, e.k0 + j);
    const uint16_t *v =
        a->v.data + attngen__view_offset(a->v.sb, a->v.sh, a->v.ss, e.vb, hk, e.k0 + j);
    const double pj = exp(dot_f64(q, k, D) * a->softmax_scale - mx);
    sum += pj;
    for (int d = 0; d < D; ++d) o[d] += pj * (double)bf16_value(v[d]);
  }
  for (int d = 0; d < D; ++d) out[d] = sum == 0.0 ? 0.0 : o[d] / sum;
  if (a->lse) {
    const int64_t at = a->cu_seqlens_q ? (int64_t)h * a->total_q + e.q0 + s : job;
    a->lse[at] = kvn == 0 ? -INFINITY : mx + log(sum);
  }
}

attngen_status attngen__exact_fwd(const attngen__exact_args *a) {
  if (!a) return ATTNGEN_STATUS_NULL_POINTER;
  attngen_status st = check_shape(a->batch, a->heads, a->seqlen_q, a->seqlen_kv);
  if (st != ATTNGEN_STATUS_OK) return st;
  if ((st = check_heads_kv(a->heads, a->heads_kv)) != ATTNGEN_STATUS_OK) return st;
  if (a->head_dim < 0 || a->head_dim > ATTNGEN__HEAD_DIM_MAX)
    return ATTNGEN_STATUS_UNSUPPORTED_HEAD_DIM;
  if (!isfinite(a->softmax_scale)) return ATTNGEN_STATUS_BAD_SCALE;
  if ((!a->cu_seqlens_q) != (!a->cu_seqlens_k)) return ATTNGEN_STATUS_INVALID_ARGUMENT;
  if (!has_work(a->batch, a->heads, a->seqlen_q)) return ATTNGEN_STATUS_OK;
  if (!a->q.data || !a->out.data) return ATTNGEN_STATUS_NULL_POINTER;
  if (a->seqlen_kv > 0 && (!a->k.data || !a->v.data)) return ATTNGEN_STATUS_NULL_POINTER;
  return attngen__parallel_for((int64_t)a->batch * a->heads * a->seqlen_q, a->threads,
                               exact_job, (void *)a);
}

attngen__ref_args attngen__ref_args_of_call(const attngen_fwd_args *a) {
  attngen__ref_args r;
  memset(&r, 0, sizeof r);
  const int d = a->head_dim;
  /* a packed batch: views of one entry of total rows (the layout is bshd) */
  const int packed = a->cu_seqlens_q != NULL;
  const int rows_q = packed ? a->total_q : a->seqlen_q;
  const int rows_kv = packed ? a->total_kv : a->seqlen_kv;
  r.q = attngen__view_in_d(a->q, a->layout, a->heads, rows_q, d);
  const int heads_kv = a->heads_kv > 0 ? a->heads_kv : a->heads;
  r.k = attngen__view_in_d(a->k, a->layout, heads_kv, rows_kv, d);
  r.v = attngen__view_in_d(a->v, a->layout, heads_kv, rows_kv, d);
  r.out = attngen__view_out_d(a->out, a->layout, a->heads, rows_q, d);
  /* the call's strides (its own, or the layout's dense ones) */
  int64_t s[3];
  attngen__call_strides(a, ATTNGEN__T_Q, s);
  r.q.sb = s[0], r.q.ss = s[1], r.q.sh = s[2];
  attngen__call_strides(a, ATTNGEN__T_K, s);
  r.k.sb = s[0], r.k.ss = s[1], r.k.sh = s[2];
  attngen__call_strides(a, ATTNGEN__T_V, s);
  r.v.sb = s[0], r.v.ss = s[1], r.v.sh = s[2];
  attngen__call_strides(a, ATTNGEN__T_OUT, s);
  r.out.sb = s[0], r.out.ss = s[1], r.out.sh = s[2];
  r.cu_seqlens_q = a->cu_seqlens_q;
  r.cu_seqlens_k = a->cu_seqlens_k;
  r.total_q = a->total_q;
  r.total_kv = a->total_kv;
  r.shape = attngen__call_shape_of(a);
  r.softmax_scale = a->softmax_scale;
  r.lse = a->lse;
  r.kv_lengths = a->kv_lengths;
  r.causal = a->causal != 0;
  return r;
}
