/* cmd_tune.c: `attngen tune` — measures every candidate of the target's search space on the
 * machine for each requested shape and records the winners in the tuning database
 * (runtime/src/tuning_db.h) that the dispatcher reads.
 *
 * Per job (shape x layout x rounding, of the run's kind: head_dim, mask, KV heads):
 *   0. the candidates (the search space's variants of the job's layout, rounding, head_dim
 *      and mask, without tile skipping) that are not built in are JIT-compiled -j at a time
 *      (precompile), so that the calls below load them from the JIT cache;
 *   1. the default heuristic's choice is asked from the runtime (attngen_explain, with the
 *      tuning database switched off through ATTNGEN_TUNING=0);
 *   2. every candidate is checked against the CPU reference (docs/NUMERICS.md, comparator of
 *      numerics.h) on a reduced problem: the same variant, layout, rounding, head_dim and
 *      mask, with B' = min(B, 2), H' = min(H, 2) (a grouped-query call: 2 query heads over
 *      1 KV head) and each of Sq, Skv kept when <= 2048, otherwise
 *      replaced by 1024 + (S mod 1024) so that the ragged ends (residues mod 128/256) stay
 *      the same; the reference is computed once per job and shared by all candidates;
 *   3. a candidate that passes is timed with device events (host clock on cpu/emu):
 *      warm-up calls, then one event pair per call, rotating through several input/output
 *      sets (>= 1 GiB in all when memory allows) so that calls do not run from cache;
 *      median and 20/80 % quantiles; the number of timed calls is cut to stay within
 *      --timeout seconds per candidate;
 *   4. a candidate that fails the check, the compile or a launch is reported, scored
 *      infinite and the job goes on.
 * At the end: a table per job and a merge of the winners into the database file. */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <pthread.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "attngen.h"
#include "cli.h"

#include "cmd_tune.h"

/* ---- output ----------------------------------------------------------------------------- */

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static double flops(const job *j) { return attngen__cli_flops(&j->s, j->causal); }

/* "B,H,Sq,Skv" and what is not the default kind: " hd64", " causal", " kv8" (KV heads). */
static const char *shape_label(const job *j, char *buf, size_t len) {
  int n = snprintf(buf, len, "%d,%d,%d,%d", j->s.batch, j->s.heads, j->s.seqlen_q,
                   j->s.seqlen_kv);
  if (j->s.head_dim && n >= 0 && (size_t)n < len)
    n += snprintf(buf + n, len - (size_t)n, " hd%d", j->s.head_dim);
  if (j->causal && n >= 0 && (size_t)n < len) n += snprintf(buf + n, len - (size_t)n, " causal");
  if (j->s.heads_kv && n >= 0 && (size_t)n < len)
    snprintf(buf + n, len - (size_t)n, " kv%d", j->s.heads_kv);
  return buf;
}

typedef struct progress {
  int tty;
  int done, total;
} progress;

/* One status update: a redrawn bar on a terminal; otherwise a plain line, only for the
 * final word on a candidate (final != 0). */
static void progress_say(progress *p, int final, const job *j, const char *what,
                         const char *fmt, ...) {
  if (!p->tty && !final) return;
  char msg[400];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  char where[128], label[80];
  snprintf(where, sizeof where, "%s %s %s", shape_label(j, label, sizeof label),
           attngen__layout_name(j->s.layout), attngen__rounding_name(j->s.rounding));
  if (p->tty) {
    const int width = 24;
    int fill = p->total ? (int)((long)width * p->done / p->total) : width;
    char bar[32];
    for (int i = 0; i < width; i++) bar[i] = i < fill ? '#' : '.';
    bar[width] = 0;
    char line[700];
    snprintf(line, sizeof line, "[%s] %d/%d %s %s %s", bar, p->done, p->total, where, what, msg);
    /* one screen line, or the carriage return cannot redraw it */
    struct winsize ws;
    int cols = ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0 ? ws.ws_col : 80;
    if (cols - 1 < (int)sizeof line) line[cols - 1 > 0 ? cols - 1 : 0] = 0;
    fprintf(stderr, "\r\033[K%s", line);
  } else {
    fprintf(stderr, "tune: [%d/%d] %s %s: %s\n", p->done, p->total, where, what, msg);
  }
  fflush(stderr);
}

/* A message that must stay on screen (a failure), also on a terminal. */
static void progress_note(progress *p, const char *fmt, ...) {
  if (p->tty) fprintf(stderr, "\r\033[K");
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "tune: ");
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fprintf(stderr, "\n");
}

/* ---- device buffers --------------------------------------------------------------------- */

typedef struct buffers {
  void *q, *k, *v, *o;
} buffers;

static void buffers_free(attngen_context *ctx, buffers *b) {
  if (b->q) attngen_free(ctx, b->q);
  if (b->k) attngen_free(ctx, b->k);
  if (b->v) attngen_free(ctx, b->v);
  if (b->o) attngen_free(ctx, b->o);
  memset(b, 0, sizeof *b);
}

/* Fills a device tensor of n bf16 elements from a random host pool (tiled, shifted by
 * `salt` so that the tensors differ). */
static attngen_status fill_random(attngen_context *ctx, void *dst, size_t n, const uint16_t *pool,
                                  size_t pool_n, size_t salt) {
  size_t done = 0, start = (salt * 7919u) % pool_n;
  while (done < n) {
    size_t chunk = pool_n - start;
    if (chunk > n - done) chunk = n - done;
    attngen_status st = attngen_memcpy_htod(ctx, (uint16_t *)dst + done, pool + start,
                                            chunk * sizeof(uint16_t));
    if (st != ATTNGEN_STATUS_OK) return st;
    done += chunk;
    start = 0;
  }
  return ATTNGEN_STATUS_OK;
}

static attngen_status buffers_alloc(attngen_context *ctx, const attngen__call_shape *s,
                                    const uint16_t *pool, size_t pool_n, size_t salt, buffers *b) {
  memset(b, 0, sizeof *b);
  const size_t D = (size_t)attngen__shape_head_dim(s);
  size_t nq = (size_t)s->batch * s->heads * (size_t)s->seqlen_q * D;
  size_t nkv = (size_t)s->batch * attngen__shape_heads_kv(s) * (size_t)s->seqlen_kv * D;
  size_t bq = nq * 2, bkv = nkv ? nkv * 2 : 16;
  attngen_status st;
  if ((st = attngen_malloc(ctx, bq, &b->q)) || (st = attngen_malloc(ctx, bkv, &b->k)) ||
      (st = attngen_malloc(ctx, bkv, &b->v)) || (st = attngen_malloc(ctx, bq, &b->o)) ||
      (st = fill_random(ctx, b->q, nq, pool, pool_n, 3 * salt)) ||
      (st = fill_random(ctx, b->k, nkv, pool, pool_n, 3 * salt + 1)) ||
      (st = fill_random(ctx, b->v, nkv, pool, pool_n, 3 * salt + 2)) ||
      (st = attngen_memset(ctx, b->o, 0, bq))) {
    buffers_free(ctx, b);
    return st;
  }
  return ATTNGEN_STATUS_OK;
}

/* ---- the correctness check on the reduced problem --------------------------------------- */

static int reduce_len(int s) { return s <= CHECK_FULL_LIMIT ? s : 1024 + s % 1024; }

typedef struct check {
  int ready;
  attngen__call_shape s;
  attngen__inputs in;
  uint16_t *out;
  /* The reference, kept across candidates: recomputed by verify_run only for a candidate
   * whose kernel has another softmax step or tail split. */
  attngen__verify_ref ref;
  buffers dev;
  char failure[256]; /* why the check itself could not be prepared */
} check;

static void check_free(attngen_context *ctx, check *c) {
  attngen__inputs_free(&c->in);
  attngen__verify_ref_free(&c->ref);
  free(c->out);
  buffers_free(ctx, &c->dev);
  memset(c, 0, sizeof *c);
}

static attngen_status check_prepare(attngen_context *ctx, const job *j, check *c) {
  memset(c, 0, sizeof *c);
  c->s = j->s; /* the job's layout and rounding, a reduced shape: */
  c->s.batch = j->s.batch < 2 ? j->s.batch : 2;
  c->s.heads = j->s.heads < 2 ? j->s.heads : 2;
  if (j->s.heads_kv > 0) { /* a grouped-query call stays one: 2 query heads over 1 KV head */
    c->s.heads = 2;
    c->s.heads_kv = 1;
  }
  c->s.seqlen_q = reduce_len(j->s.seqlen_q);
  c->s.seqlen_kv = reduce_len(j->s.seqlen_kv);
  const int D = attngen__shape_head_dim(&c->s);
  attngen_status st = attngen__inputs_make_hd(
      &c->in, ATTNGEN__INPUT_REALISTIC, CHECK_SEED, (attngen_layout)c->s.layout, c->s.batch,
      c->s.heads, c->s.heads_kv, c->s.seqlen_q, c->s.seqlen_kv, D, attngen__default_scale(D));
  if (st != ATTNGEN_STATUS_OK) {
    snprintf(c->failure, sizeof c->failure, "check inputs: %s", attngen_status_string(st));
    return st;
  }
  size_t nq = (size_t)c->s.batch * c->s.heads * (size_t)c->s.seqlen_q * D;
  size_t nkv = (size_t)c->s.batch * attngen__shape_heads_kv(&c->s) * (size_t)c->s.seqlen_kv * D;
  c->out = malloc(nq * 2);
  if (!c->out) {
    snprintf(c->failure, sizeof c->failure, "check: out of host memory");
    return ATTNGEN_STATUS_OUT_OF_MEMORY;
  }
  size_t bq = nq * 2, bkv = nkv ? nkv * 2 : 16;
  if ((st = attngen_malloc(ctx, bq, &c->dev.q)) || (st = attngen_malloc(ctx, bkv, &c->dev.k)) ||
      (st = attngen_malloc(ctx, bkv, &c->dev.v)) || (st = attngen_malloc(ctx, bq, &c->dev.o)) ||
      (st = attngen_memcpy_htod(ctx, c->dev.q, c->in.q, bq)) ||
      (nkv && (st = attngen_memcpy_htod(ctx, c->dev.k, c->in.k, nkv * 2))) ||
      (nkv && (st = attngen_memcpy_htod(ctx, c->dev.v, c->in.v, nkv * 2)))) {
    snprintf(c->failure, sizeof c->failure, "check buffers: %s", attngen_last_error());
    return st;
  }
  c->ready = 1;
  return ATTNGEN_STATUS_OK;
}

/* The call of a job (or its reduced check) on buffers b: shape, layout, rounding, head_dim,
 * KV heads (call_shape_to_args), the mask, the head dim's default scale. */
static void args_for(const attngen__call_shape *s, int causal, const candidate *cand,
                     const buffers *b, attngen_fwd_args *a) {
  attngen_fwd_args_init(a);
  a->q = b->q;
  a->k = b->k;
  a->v = b->v;
  a->out = b->o;
  attngen__call_shape_to_args(s, a);
  a->causal = causal;
  a->softmax_scale = attngen__default_scale(a->head_dim);
  a->variant = cand && cand->force ? cand->name : NULL;
}

/* Runs the candidate on the reduced problem and compares with the reference (computed with
 * the candidate's softmax step and tail split); returns 1 on pass, else 0 with the reason in
 * cand->failure. */
static int check_candidate(attngen_context *ctx, const job *j, check *c, candidate *cand) {
  size_t nq = (size_t)c->s.batch * c->s.heads * (size_t)c->s.seqlen_q *
              (size_t)attngen__shape_head_dim(&c->s);
  attngen_fwd_args a;
  args_for(&c->s, j->causal, cand, &c->dev, &a);
  attngen_status st = attngen_memset(ctx, c->dev.o, 0xFF, nq * 2); /* poison 0xFFFF */
  if (st == ATTNGEN_STATUS_OK) st = attngen_fwd(ctx, &a);
  if (st != ATTNGEN_STATUS_OK) {
    snprintf(cand->failure, sizeof cand->failure, "%s: %s",
             st == ATTNGEN_STATUS_JIT_FAILED ? "compile failed" : "launch failed",
             *attngen_last_error() ? attngen_last_error() : attngen_status_string(st));
    return 0;
  }
  if ((st = attngen_synchronize(ctx, NULL)) != ATTNGEN_STATUS_OK ||
      (st = attngen_memcpy_dtoh(ctx, c->out, c->dev.o, nq * 2)) != ATTNGEN_STATUS_OK) {
    snprintf(cand->failure, sizeof cand->failure, "run failed: %s", attngen_last_error());
    return 0;
  }
  /* The CPU reference of the candidate's kernel (its softmax step and tail split). */
  attngen__verify_args va = {ctx, &a, &c->in, c->out, NULL, 0, 0, &c->ref};
  attngen__verify_result vr;
  st = attngen__verify_run(&va, &vr);
  if (st != ATTNGEN_STATUS_OK) {
    snprintf(cand->failure, sizeof cand->failure, "CPU reference: %s",
             *attngen_last_error() ? attngen_last_error() : attngen_status_string(st));
    return 0;
  }
  const attngen__compare_report rep = vr.out;
  if (!rep.pass) {
    snprintf(cand->failure, sizeof cand->failure,
             "wrong results on %d,%d,%d,%d: %lld elements > 1 ULP (worst %d ULP at b%d h%d "
             "s%d d%d), %lld unwritten, %lld NaN/Inf mismatches",
             c->s.batch, c->s.heads, c->s.seqlen_q, c->s.seqlen_kv, (long long)rep.ulp_over,
             rep.worst_ulp, rep.worst.b, rep.worst.h, rep.worst.s, rep.worst.d,
             (long long)rep.unwritten, (long long)rep.nonfinite_mismatch);
    return 0;
  }
  return 1;
}

/* ---- timing ----------------------------------------------------------------------------- */

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Quantile q of sorted samples by linear interpolation. */
static double quantile(const double *v, int n, double q) {
  if (n == 1) return v[0];
  double pos = q * (n - 1);
  int i = (int)pos;
  if (i >= n - 1) return v[n - 1];
  return v[i] + (pos - i) * (v[i + 1] - v[i]);
}

typedef struct timing_env {
  buffers *sets;
  int nsets;
  attngen_event **ev; /* iters + 1 events */
  double *samples;
} timing_env;

/* Times one candidate on the full shape; returns 1 on success (fills median/q20/q80). */
static int time_candidate(attngen_context *ctx, const options *o, const job *j, timing_env *t,
                          candidate *cand) {
  attngen_fwd_args a;
  attngen_status st = ATTNGEN_STATUS_OK;
  int next = 0;
  for (int i = 0; i < o->warmup && st == ATTNGEN_STATUS_OK; i++) {
    args_for(&j->s, j->causal, cand, &t->sets[next], &a);
    next = (next + 1) % t->nsets;
    st = attngen_fwd(ctx, &a);
  }
  if (st == ATTNGEN_STATUS_OK) st = attngen_synchronize(ctx, NULL);
  /* one timed call estimates how many fit into the time budget */
  float ms = 0;
  if (st == ATTNGEN_STATUS_OK) st = attngen_event_record(ctx, t->ev[0], NULL);
  if (st == ATTNGEN_STATUS_OK) {
    args_for(&j->s, j->causal, cand, &t->sets[next], &a);
    next = (next + 1) % t->nsets;
    st = attngen_fwd(ctx, &a);
  }
  if (st == ATTNGEN_STATUS_OK) st = attngen_event_record(ctx, t->ev[1], NULL);
  if (st == ATTNGEN_STATUS_OK) st = attngen_event_elapsed(ctx, t->ev[0], t->ev[1], &ms);
  if (st != ATTNGEN_STATUS_OK) {
    snprintf(cand->failure, sizeof cand->failure, "launch failed while timing: %s",
             *attngen_last_error() ? attngen_last_error() : attngen_status_string(st));
    return 0;
  }
  int n = o->iters;
  double per_call_s = ms > 0 ? ms * 1e-3 : 1e-6;
  if (n > 1 && per_call_s * n > o->timeout_s) {
    n = (int)(o->timeout_s / per_call_s);
    if (n < 1) n = 1;
  }
  if (n == 1) {
    t->samples[0] = ms;
  } else {
    st = attngen_event_record(ctx, t->ev[0], NULL);
    for (int i = 0; i < n && st == ATTNGEN_STATUS_OK; i++) {
      args_for(&j->s, j->causal, cand, &t->sets[next], &a);
      next = (next + 1) % t->nsets;
      st = attngen_fwd(ctx, &a);
      if (st == ATTNGEN_STATUS_OK) st = attngen_event_record(ctx, t->ev[i + 1], NULL);
    }
    for (int i = 0; i < n && st == ATTNGEN_STATUS_OK; i++) {
      float e = 0;
      st = attngen_event_elapsed(ctx, t->ev[i], t->ev[i + 1], &e);
      t->samples[i] = e;
    }
    if (st != ATTNGEN_STATUS_OK) {
      snprintf(cand->failure, sizeof cand->failure, "launch failed while timing: %s",
               *attngen_last_error() ? attngen_last_error() : attngen_status_string(st));
      attngen_synchronize(ctx, NULL);
      return 0;
    }
  }
  qsort(t->samples, (size_t)n, sizeof *t->samples, cmp_double);
  cand->samples = n;
  cand->median = quantile(t->samples, n, 0.5);
  cand->q20 = quantile(t->samples, n, 0.2);
  cand->q80 = quantile(t->samples, n, 0.8);
  /* a host clock can read 0 for a tiny call; the database needs a positive time */
  if (!(cand->median > 0)) cand->median = 1e-6;
  return 1;
}

static void timing_free(attngen_context *ctx, timing_env *t, int nev) {
  for (int i = 0; i < t->nsets; i++) buffers_free(ctx, &t->sets[i]);
  free(t->sets);
  if (t->ev)
    for (int i = 0; i < nev; i++)
      if (t->ev[i]) attngen_event_destroy(ctx, t->ev[i]);
  free(t->ev);
  free(t->samples);
  memset(t, 0, sizeof *t);
}

/* Input/output sets for rotation: enough to exceed ROTATE_BYTES, 2..MAX_SETS, within half
 * of the device memory when it is known. */
static attngen_status timing_prepare(attngen_context *ctx, const options *o, const job *j,
                                     const attngen_device_props *props, timing_env *t,
                                     char *why, size_t why_len) {
  memset(t, 0, sizeof *t);
  double set_bytes = (double)j->s.batch *
                     (2.0 * j->s.heads * j->s.seqlen_q +
                      2.0 * attngen__shape_heads_kv(&j->s) * j->s.seqlen_kv) *
                     2.0 * attngen__shape_head_dim(&j->s);
  int nsets = (int)ceil(ROTATE_BYTES / (set_bytes > 1 ? set_bytes : 1));
  if (nsets < 2) nsets = 2;
  if (nsets > MAX_SETS) nsets = MAX_SETS;
  if (props->total_memory > 0)
    while (nsets > 1 && nsets * set_bytes > props->total_memory / 2.0) nsets--;
  t->sets = calloc((size_t)nsets, sizeof *t->sets);
  t->ev = calloc((size_t)o->iters + 1, sizeof *t->ev);
  t->samples = calloc((size_t)o->iters + 1, sizeof *t->samples);
  size_t pool_n = ((size_t)1 << 20) + 7;
  uint16_t *pool = malloc(pool_n * sizeof *pool);
  if (!t->sets || !t->ev || !t->samples || !pool) {
    free(pool);
    snprintf(why, why_len, "out of host memory");
    return ATTNGEN_STATUS_OUT_OF_MEMORY;
  }
  attngen__rng rng;
  attngen__rng_seed(&rng, 0x5eed0000u + (uint64_t)j->s.seqlen_q * 31u + (uint64_t)j->s.seqlen_kv);
  for (size_t i = 0; i < pool_n; i++) {
    double x = attngen__rng_uniform(&rng) * 2.0 - 1.0;
    uint16_t b = attngen_bf16_round((float)x, ATTNGEN_ROUND_RTNE);
    pool[i] = (b & 0x7FFF) ? b : 0x3F80; /* never zero */
  }
  attngen_status st = ATTNGEN_STATUS_OK;
  for (int i = 0; i < nsets && st == ATTNGEN_STATUS_OK; i++) {
    st = buffers_alloc(ctx, &j->s, pool, pool_n, (size_t)i, &t->sets[i]);
    if (st == ATTNGEN_STATUS_OK) t->nsets = i + 1;
  }
  free(pool);
  if (st != ATTNGEN_STATUS_OK && t->nsets >= 1) st = ATTNGEN_STATUS_OK; /* fewer sets */
  for (int i = 0; i <= o->iters && st == ATTNGEN_STATUS_OK; i++)
    st = attngen_event_create(ctx, &t->ev[i]);
  if (st != ATTNGEN_STATUS_OK)
    snprintf(why, why_len, "cannot prepare timing buffers/events: %s",
             *attngen_last_error() ? attngen_last_error() : attngen_status_string(st));
  return st;
}

/* ---- candidates ------------------------------------------------------------------------- */

/* The job's candidates: the search space of the target (or the --variants list instead)
 * filtered by layout and rounding, plus the heuristic's choice if it is not among them. */
static int build_candidates(const options *o, job *j, char **space, int nspace, int force) {
  char **names = o->only ? o->only : space;
  int count = o->only ? o->nonly : nspace;
  j->c = calloc((size_t)count + 1, sizeof *j->c);
  if (!j->c) return 0;
  j->nc = 0;
  j->def = -1;
  for (int i = 0; i < count; i++) {
    attngen__variant_desc d;
    char *err = NULL;
    if (attngen__gen_variant_desc(names[i], &d, &err) != 0) {
      free(err);
      continue;
    }
    /* what the dispatcher would refuse for this call (dispatch.c: unsupported) */
    if (d.layout != (int)j->s.layout || d.rounding != (int)j->s.rounding) continue;
    if (attngen__desc_head_dim(&d) != attngen__shape_head_dim(&j->s)) continue;
    if ((d.mask == ATTNGEN__MASK_CAUSAL) != (j->causal != 0)) continue;
    if (d.skip == ATTNGEN__SKIP_ON) continue; /* tuned calls have no skip lists */
    int dup = 0;
    for (int k = 0; k < j->nc; k++) dup |= strcmp(j->c[k].name, names[i]) == 0;
    if (dup) continue;
    candidate *c = &j->c[j->nc];
    snprintf(c->name, sizeof c->name, "%s", names[i]);
    c->force = 1;
    if (strcmp(names[i], j->default_name) == 0) {
      c->is_default = 1;
      j->def = j->nc;
    }
    j->nc++;
  }
  /* the heuristic's choice is always measured: it is the baseline of the speedup */
  if (j->def < 0 && j->default_name[0]) {
    candidate *c = &j->c[j->nc];
    snprintf(c->name, sizeof c->name, "%s", j->default_name);
    c->force = force;
    c->is_default = 1;
    j->def = j->nc;
    j->nc++;
  }
  return 1;
}

/* Every --variants name must be a valid variant; returns 0, or 2 after a usage error. */
static int check_variant_names(const options *o) {
  for (int i = 0; i < o->nonly; i++) {
    attngen__variant_desc d;
    char *err = NULL;
    if (attngen__gen_variant_desc(o->only[i], &d, &err) != 0) {
      int rc = attngen__cli_usage_error(&attngen__cli_cmd_tune,
                                        "--variants: '%s' is not a variant: %s", o->only[i],
                                        err ? err : "rejected by the generator");
      free(err);
      return rc;
    }
  }
  return 0;
}

/* ---- compiling the candidates before the timing ------------------------------------------ */

/* Candidates that are not built in are JIT-compiled (the run-time compiler of the target, or
 * the host's clang++ for the emulator) -j at a time before any job is timed, through the
 * function a first call uses (attngen__jit_get: the same source, options and cache key), so
 * the calls then load them from the cache. A compile that fails here fails again at the
 * candidate's first call, where it is reported and scored infinite like any other failure. */
typedef struct precompile_work {
  const char **names;
  size_t count;
  int target, emu;
  const attngen__env *env;
  pthread_mutex_t lock; /* progress and counts */
  size_t done, failed;
  double seconds;
  progress *pr;
} precompile_work;

static void precompile_one(void *ctx, size_t i) {
  precompile_work *w = ctx;
  attngen__jit_request req = {w->names[i], w->target, NULL, w->env->jit_lock_timeout_s,
                              w->env, w->emu};
  attngen__jit_result res;
  memset(&res, 0, sizeof res);
  const attngen_status st = attngen__jit_get(&req, &res);
  free(res.image);
  pthread_mutex_lock(&w->lock);
  w->done++;
  if (st != ATTNGEN_STATUS_OK) w->failed++;
  if (st == ATTNGEN_STATUS_OK && res.origin == ATTNGEN__JIT_COMPILED) w->seconds += res.seconds;
  if (w->pr->tty) {
    fprintf(stderr, "\r\033[Kattngen tune: compiled %zu/%zu candidates (%zu failed)", w->done,
            w->count, w->failed);
    fflush(stderr);
  }
  pthread_mutex_unlock(&w->lock);
}

/* Compiles the candidates of every job that a call would JIT-compile (attngen_explain says
 * needs_jit), `threads` at a time. */
static void precompile(attngen_context *ctx, const attngen_device_props *props, job *jobs,
                       int njobs, int threads, progress *pr) {
  int target = -1;
  if (!props->target || !attngen__target_from_name(props->target, &target)) return;
  const int emu = strcmp(props->backend, attngen__backend_emu.name) == 0;
  size_t total = 0;
  for (int i = 0; i < njobs; i++) total += (size_t)jobs[i].nc;
  const char **names = calloc(total + 1, sizeof *names);
  if (!names) return;
  size_t n = 0;
  for (int i = 0; i < njobs; i++)
    for (int c = 0; c < jobs[i].nc; c++) {
      const candidate *cand = &jobs[i].c[c];
      if (!cand->force) continue;
      int dup = 0;
      for (size_t k = 0; k < n && !dup; k++) dup = strcmp(names[k], cand->name) == 0;
      if (dup) continue;
      attngen_fwd_args a;
      args_for(&jobs[i].s, jobs[i].causal, cand, &(buffers){0}, &a);
      attngen_choice ch;
      memset(&ch, 0, sizeof ch);
      if (attngen_explain(ctx, &a, &ch) == ATTNGEN_STATUS_OK && ch.needs_jit)
        names[n++] = cand->name;
      attngen__clear_error();
    }
  attngen__env env;
  if (n == 0 || attngen__env_read(&env) != ATTNGEN_STATUS_OK) {
    attngen__clear_error();
    free(names);
    return;
  }
  if ((size_t)threads > n) threads = (int)n;
  fprintf(stderr, "attngen tune: compiling %zu candidate(s) that are not built in, %d at a time "
          "(%s; JIT cache: they load from it afterwards)\n", n, threads,
          emu ? "the host's clang++ for the emulator" : "the run-time compiler");
  const double t0 = now_s();
  precompile_work w;
  memset(&w, 0, sizeof w);
  w.names = names, w.count = n, w.target = target, w.emu = emu, w.env = &env, w.pr = pr;
  pthread_mutex_init(&w.lock, NULL);
  attngen__cli_parallel(n, threads, precompile_one, &w);
  pthread_mutex_destroy(&w.lock);
  if (pr->tty) fprintf(stderr, "\r\033[K");
  fprintf(stderr, "attngen tune: %zu compiled or loaded, %zu failed (reported with their "
          "candidates) in %.1f s (%.1f s of compiling)\n", n - w.failed, w.failed,
          now_s() - t0, w.seconds);
  free(names);
}

/* ---- the command ------------------------------------------------------------------------ */

static void print_table(const job *jobs, int njobs) {
  printf("\n%-30s %-4s %-4s %-52s %10s %9s %-52s %10s %8s\n", "shape B,H,Sq,Skv", "lay",
         "rnd", "best variant", "ms", "TFLOP/s", "default (heuristic)", "default ms", "speedup");
  for (int i = 0; i < njobs; i++) {
    const job *j = &jobs[i];
    char sh[80];
    shape_label(j, sh, sizeof sh);
    const candidate *b = j->best >= 0 ? &j->c[j->best] : NULL;
    const candidate *d = j->def >= 0 ? &j->c[j->def] : NULL;
    char best_ms[32] = "-", tf[32] = "-", def_ms[32] = "-", speed[32] = "-";
    if (b) {
      snprintf(best_ms, sizeof best_ms, "%.4f", b->median);
      snprintf(tf, sizeof tf, "%.1f", flops(j) / (b->median * 1e-3) / 1e12);
    }
    if (d && d->ok) snprintf(def_ms, sizeof def_ms, "%.4f", d->median);
    if (d && !d->ok) snprintf(def_ms, sizeof def_ms, "FAILED");
    if (b && d && d->ok) snprintf(speed, sizeof speed, "%.2fx", d->median / b->median);
    printf("%-30s %-4s %-4s %-52s %10s %9s %-52s %10s %8s\n", sh, attngen__layout_name(j->s.layout),
           attngen__rounding_name(j->s.rounding), b ? b->name : "(no valid candidate)", best_ms, tf,
           j->default_name[0] ? j->default_name : "-", def_ms, speed);
  }
  for (int i = 0; i < njobs; i++)
    if (jobs[i].default_rule && strcmp(jobs[i].default_rule, "heuristic") != 0) {
      printf("note: the default column comes from the %s, not the heuristic (ATTNGEN_TUNING=0 "
             "was not honoured)\n", jobs[i].default_rule);
      break;
    }
}

int attngen__cmd_tune(const attngen__cli_args *args) {
  options o;
  int rc = attngen__tune_options_of(args, &o);
  if (rc >= 0) {
    attngen__tune_options_free(&o);
    return rc;
  }
  if ((rc = check_variant_names(&o)) != 0) {
    attngen__tune_options_free(&o);
    return rc;
  }
  /* the baseline is the heuristic: this process must not read an older database */
  setenv("ATTNGEN_TUNING", "0", 1);

  attngen_context *ctx = NULL;
  attngen_context_options copts = {o.backend, o.device};
  attngen_status st = attngen_create(&ctx, &copts);
  if (st != ATTNGEN_STATUS_OK) {
    fprintf(stderr, "attngen tune: cannot create a context (backend %s): %s: %s\n",
            o.backend ? o.backend : "auto", attngen_status_name(st), attngen_last_error());
    attngen__tune_options_free(&o);
    return 1;
  }
  attngen_device_props props;
  memset(&props, 0, sizeof props);
  if ((st = attngen_device_info(ctx, &props)) != ATTNGEN_STATUS_OK) {
    fprintf(stderr, "attngen tune: device info: %s\n", attngen_last_error());
    attngen_destroy(ctx);
    attngen__tune_options_free(&o);
    return 1;
  }
  const char *target = props.target ? props.target : "";
  if (o.target && strcmp(o.target, target) != 0) {
    int t = 0;
    attngen__target_from_name(o.target, &t);
    fprintf(stderr, "attngen tune: --target %s, but backend '%s' runs %s kernels (choose "
            "--backend %s%s)\n", o.target, props.backend, target, attngen__target_backend[t],
            t == ATTNGEN__TARGET_GFX942 ? " or emu" : "");
    attngen_destroy(ctx);
    attngen__tune_options_free(&o);
    return 1;
  }
  char **space = NULL;
  char *err = NULL;
  int nspace = attngen__gen_search_space(target, &space, &err);
  int force = 1;
  if (nspace < 0) {
    fprintf(stderr, "attngen tune: target '%s' has no search space (%s); timing the runtime's "
            "own choice only\n", target, err ? err : "?");
    nspace = 0;
    force = 0;
  }
  free(err);
  fprintf(stderr, "attngen tune: %s backend, %s (%s, %d compute units), %d candidates in the "
          "%s search space\n", props.backend, props.name, props.arch, props.compute_units,
          nspace, target);

  int njobs = o.nshapes * o.nlayouts * o.nroundings;
  job *jobs = calloc((size_t)njobs, sizeof *jobs);
  if (!jobs) {
    attngen__gen_free_names(space, nspace);
    attngen_destroy(ctx);
    attngen__tune_options_free(&o);
    return 1;
  }
  int n = 0, total = 0;
  for (int s = 0; s < o.nshapes; s++)
    for (int l = 0; l < o.nlayouts; l++)
      for (int r = 0; r < o.nroundings; r++) {
        job *j = &jobs[n++];
        j->s = o.shapes[s];
        j->causal = o.causal;
        j->s.layout = o.layouts[l];
        j->s.rounding = o.roundings[r];
        j->best = -1;
        attngen_fwd_args a;
        args_for(&j->s, j->causal, NULL, &(buffers){0}, &a);
        attngen_choice ch;
        memset(&ch, 0, sizeof ch);
        if (attngen_explain(ctx, &a, &ch) == ATTNGEN_STATUS_OK) {
          snprintf(j->default_name, sizeof j->default_name, "%s", ch.variant);
          j->default_rule = ch.rule_name;
        } else {
          char label[80];
          fprintf(stderr, "attngen tune: %s %s %s: no default variant: %s\n",
                  shape_label(j, label, sizeof label), attngen__layout_name(j->s.layout),
                  attngen__rounding_name(j->s.rounding), attngen_last_error());
        }
        if (!build_candidates(&o, j, space, nspace, force)) {
          fprintf(stderr, "attngen tune: out of memory\n");
          rc = 1;
        }
        total += j->nc;
      }

  progress pr = {isatty(STDERR_FILENO), 0, total};
  double t_start = now_s();
  if (force) precompile(ctx, &props, jobs, njobs, o.jobs, &pr);
  rc = rc > 0 ? rc : 0;
  for (int i = 0; i < njobs; i++) {
    job *j = &jobs[i];
    if (j->nc == 0) {
      char label[80];
      progress_note(&pr,
                    "%s %s %s: no candidate (search space filtered by layout, rounding, "
                    "head_dim, mask and --variants is empty)",
                    shape_label(j, label, sizeof label), attngen__layout_name(j->s.layout),
                    attngen__rounding_name(j->s.rounding));
      continue;
    }
    check ck;
    progress_say(&pr, 0, j, "", "CPU reference on %d,%d,%d,%d", j->s.batch < 2 ? j->s.batch : 2,
                 j->s.heads < 2 ? j->s.heads : 2, reduce_len(j->s.seqlen_q),
                 reduce_len(j->s.seqlen_kv));
    attngen_status cst = check_prepare(ctx, j, &ck);
    timing_env te;
    char why[300] = "";
    attngen_status tst = cst == ATTNGEN_STATUS_OK
                             ? timing_prepare(ctx, &o, j, &props, &te, why, sizeof why)
                             : ATTNGEN_STATUS_INTERNAL;
    if (cst != ATTNGEN_STATUS_OK || tst != ATTNGEN_STATUS_OK) {
      char label[80];
      progress_note(&pr, "%s %s %s: cannot tune: %s", shape_label(j, label, sizeof label),
                    attngen__layout_name(j->s.layout), attngen__rounding_name(j->s.rounding),
                    cst != ATTNGEN_STATUS_OK ? ck.failure : why);
      pr.done += j->nc;
    } else {
      for (int c = 0; c < j->nc; c++) {
        candidate *cand = &j->c[c];
        progress_say(&pr, 0, j, cand->name, "checking");
        if (check_candidate(ctx, j, &ck, cand)) {
          progress_say(&pr, 0, j, cand->name, "timing");
          cand->ok = time_candidate(ctx, &o, j, &te, cand);
        }
        pr.done++;
        if (cand->ok) {
          progress_say(&pr, 1, j, cand->name, "%.4f ms (p20 %.4f, p80 %.4f, %d calls)",
                       cand->median, cand->q20, cand->q80, cand->samples);
          if (j->best < 0 || cand->median < j->c[j->best].median) j->best = c;
        } else {
          char label[80];
          progress_note(&pr, "%s %s %s %s: FAILED, scored infinite: %s",
                        shape_label(j, label, sizeof label), attngen__layout_name(j->s.layout),
                        attngen__rounding_name(j->s.rounding), cand->name, cand->failure);
        }
      }
    }
    if (cst == ATTNGEN_STATUS_OK) timing_free(ctx, &te, o.iters + 1);
    check_free(ctx, &ck);
  }
  if (pr.tty) fprintf(stderr, "\r\033[K");
  fprintf(stderr, "attngen tune: %d jobs, %d candidates in %.1f s\n", njobs, total,
          now_s() - t_start);
  print_table(jobs, njobs);

  /* the winners go into the database */
  attngen__tuning_record *recs = calloc((size_t)njobs + 1, sizeof *recs);
  size_t nrec = 0;
  for (int i = 0; recs && i < njobs; i++) {
    const job *j = &jobs[i];
    if (j->best < 0) {
      rc = 1;
      continue;
    }
    const candidate *b = &j->c[j->best];
    attngen__tuning_record *r = &recs[nrec++];
    *r = attngen__tuning_key(&j->s, j->causal);
    snprintf(r->variant, sizeof r->variant, "%s", b->name);
    r->time_ms = b->median < 1e-9 ? 1e-9 : b->median;
    double tf = flops(j) / (r->time_ms * 1e-3) / 1e12;
    r->tflops = tf < 1e-9 ? 0 : tf > 1e9 ? 1e9 : tf;
  }
  if (!recs) rc = 1;
  if (recs && o.write && nrec > 0) {
    char path[4096];
    if (o.out_path) {
      snprintf(path, sizeof path, "%s", o.out_path);
    } else if (attngen__tuning_default_path(path, sizeof path) != 0) {
      fprintf(stderr, "attngen tune: no place for the database: set ATTNGEN_TUNING_FILE, "
              "ATTNGEN_CACHE_DIR or HOME, or pass -o FILE\n");
      path[0] = 0;
      rc = 1;
    }
    if (path[0]) {
      attngen__tuning_meta meta;
      attngen__tuning_meta_from_device(&props, &meta);
      attngen__tuning_diag d;
      st = attngen__tuning_db_merge_file(path, &meta, recs, nrec, o.replace, &d);
      if (st != ATTNGEN_STATUS_OK) {
        fprintf(stderr, "attngen tune: %s%s\n", d.message,
                d.problem == ATTNGEN__TUNING_MISMATCH || d.problem == ATTNGEN__TUNING_MALFORMED
                    ? " (--replace overwrites it; -o FILE writes another database)"
                    : "");
        rc = 1;
      } else {
        if (d.message[0]) fprintf(stderr, "attngen tune: %s\n", d.message);
        printf("\nwrote %zu record(s) to %s\n", nrec, path);
      }
    }
  }
  free(recs);
  for (int i = 0; i < njobs; i++) free(jobs[i].c);
  free(jobs);
  attngen__gen_free_names(space, nspace);
  attngen_destroy(ctx);
  attngen__tune_options_free(&o);
  return rc;
}
