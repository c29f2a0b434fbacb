/* cmd_check.c: `attngen check` — holds a backend to the numerics contract (docs/NUMERICS.md).
 * Fresh seeded inputs; the backend runs through the public API (attngen_fwd) into a poisoned
 * output with guard bands, twice (determinism); the CPU reference (numerics.h) gives the
 * expected bf16 result and LSE, the exact fp64 attention the sanity bound; the comparator
 * prints one report block. With --backend cpu the backend is the reference itself, so the
 * check exercises the whole path and the fp64 bound. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "attngen.h"
#include "cli.h"

#define D ATTNGEN__HEAD_DIM

typedef struct check_opts {
  const char *backend;
  int device;
  attngen__call_shape shape; /* shape, layout and rounding of the checked call */
  uint64_t seed;
  float scale;
  attngen__input_kind inputs;
  const char *variant; /* NULL = the dispatcher's choice */
  int special;         /* plant NaN/Inf in the inputs */
} check_opts;

static const char *const input_names[] = {"uniform", "realistic", "large"};

static const attngen__cli_option options[] = {
    {"--shape", ATTNGEN__CLI_SHAPE, "B,H,Sq,Skv",
     "batch, heads, query and key/value lengths (head_dim 128; B,H,S: Skv = Sq)", .required = 1},
    {"--backend", ATTNGEN__CLI_BACKEND, "NAME", "the backend checked (default cpu)"},
    {"--device", ATTNGEN__CLI_INT, "N", "device ordinal (default 0)", 0, 1024},
    {"--layout", ATTNGEN__CLI_CHOICE, "L", "tensor layout (default " ATTNGEN__LAYOUT_BSHD_NAME ")",
     .choices = attngen__layout_names, .nchoices = ATTNGEN__LAYOUT_COUNT},
    {"--round", ATTNGEN__CLI_CHOICE, "R",
     "bf16 rounding of P and O (default " ATTNGEN__ROUNDING_RTNE_NAME ")",
     .choices = attngen__rounding_names, .nchoices = ATTNGEN__ROUNDING_COUNT},
    {"--seed", ATTNGEN__CLI_INT, "N", "input seed (default: fresh, printed in the report)", 0,
     2147483647},
    {"--scale", ATTNGEN__CLI_REAL, "X", "softmax scale (default 1/sqrt(128); any finite float)",
     ATTNGEN__CLI_SCALE_RANGE},
    {"--inputs", ATTNGEN__CLI_CHOICE, "KIND", "input distribution (default uniform)",
     .choices = input_names, .nchoices = 3, .excludes = "--large-scores"},
    {"--large-scores", ATTNGEN__CLI_FLAG, NULL,
     "same as --inputs large (|t| ~ 100: rescale path runs)"},
    {"--special", ATTNGEN__CLI_FLAG, NULL, "plant NaN and Inf in q, k and v"},
    {"--variant", ATTNGEN__CLI_TEXT, "NAME", "force a kernel variant", .max_len = 255},
    {NULL}};

static int check(const attngen__cli_args *args);

const attngen__cli_command attngen__cli_cmd_check = {
    "check", "check a backend against the numerics contract", "--shape B,H,Sq,Skv [options]",
    "Runs one backend on fresh random inputs and checks it against the numerics\n"
    "contract: the CPU reference (<= 1 bf16 ULP, NaN/Inf exact, NaN = 0x7FFF), the\n"
    "exact fp64 attention (relative L2 <= 1e-2), LSE, coverage (poisoned output),\n"
    "guard bands and determinism (two runs bitwise equal).\n",
    options, NULL, NULL, 0, 0, "0 pass, 1 check failed or backend error", check};

static uint64_t fresh_seed(void) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  attngen__rng r;
  attngen__rng_seed(&r, (uint64_t)ts.tv_sec * 1000000007ull ^ (uint64_t)ts.tv_nsec ^
                            ((uint64_t)getpid() << 32));
  return attngen__rng_next(&r) % 1000000000ull;
}

static void options_of(const attngen__cli_args *args, check_opts *o) {
  memset(o, 0, sizeof *o);
  o->backend = attngen__cli_text(args, "--backend", "cpu");
  o->device = (int)attngen__cli_int(args, "--device", 0);
  o->shape = attngen__cli_get(args, "--shape")->shape;
  o->shape.layout = attngen__cli_choice(args, "--layout", ATTNGEN_LAYOUT_BSHD);
  o->shape.rounding = attngen__cli_choice(args, "--round", ATTNGEN_ROUND_RTNE);
  o->seed = attngen__cli_given(args, "--seed") ? (uint64_t)attngen__cli_int(args, "--seed", 0)
                                               : fresh_seed();
  o->scale = (float)attngen__cli_real(args, "--scale", 0.088388347648);
  o->inputs = (attngen__input_kind)attngen__cli_choice(args, "--inputs", ATTNGEN__INPUT_UNIFORM);
  if (attngen__cli_given(args, "--large-scores")) o->inputs = ATTNGEN__INPUT_LARGE;
  o->special = attngen__cli_given(args, "--special");
  o->variant = attngen__cli_text(args, "--variant", NULL);
}

/* Seeded inputs; with --special: NaN in one key of the first (b, h), +Inf in one query row
 * of the last (b, h) (its k values have both signs -> Inf - Inf = NaN), +Inf and -Inf in two
 * value columns of the last (b, h) when it has keys. */
static attngen_status make_inputs(const check_opts *o, attngen__inputs *in) {
  const attngen__call_shape *c = &o->shape;
  attngen_status st = attngen__inputs_make(in, o->inputs, o->seed, c->layout, c->batch, c->heads,
                                           c->seqlen_q, c->seqlen_kv, o->scale);
  if (st != ATTNGEN_STATUS_OK || !o->special || c->seqlen_kv == 0) return st;
  const attngen__out_view q = attngen__view_out(in->q, c->layout, c->heads, c->seqlen_q);
  const attngen__out_view k = attngen__view_out(in->k, c->layout, c->heads, c->seqlen_kv);
  const attngen__out_view v = attngen__view_out(in->v, c->layout, c->heads, c->seqlen_kv);
  const int lb = c->batch - 1, lh = c->heads - 1;
  attngen__plant(k, 0, 0, c->seqlen_kv / 2, 17, ATTNGEN__BF16_NAN);
  attngen__plant(q, lb, lh, c->seqlen_q - 1, 3, ATTNGEN__BF16_POS_INF);
  attngen__plant(v, lb, lh, 0, 40, ATTNGEN__BF16_POS_INF);
  attngen__plant(v, lb, lh, c->seqlen_kv - 1, 41, ATTNGEN__BF16_NEG_INF);
  return ATTNGEN_STATUS_OK;
}

/* Device buffers of one backend run (the context lives on for the verification). */
typedef struct device_run {
  attngen_context *ctx;
  void *q, *k, *v, *out_base, *lse;
} device_run;

static void device_run_free(device_run *r) {
  if (!r->ctx) return;
  attngen_free(r->ctx, r->q);
  attngen_free(r->ctx, r->k);
  attngen_free(r->ctx, r->v);
  attngen_free(r->ctx, r->out_base);
  attngen_free(r->ctx, r->lse);
  r->q = r->k = r->v = r->out_base = r->lse = NULL;
}

static void call_args(const check_opts *o, attngen_fwd_args *a) {
  attngen_fwd_args_init(a);
  attngen__call_shape_to_args(&o->shape, a);
  a->softmax_scale = o->scale;
  a->variant = o->variant;
}

/* Runs the backend twice through the public API on r->ctx. Each run starts from the poisoned,
 * guarded buffer `g` (copied in whole, copied back whole: guards included) and a NaN-filled
 * LSE. Results: g / lse (first run), g2 / lse2 (second run). `variant` gets the variant name
 * and the rule that chose it. */
static attngen_status run_backend(const check_opts *o, const attngen__inputs *in, device_run *r,
                                  attngen__guarded *g, attngen__guarded *g2, float *lse,
                                  float *lse2, char *variant, size_t variant_size) {
  const size_t nq = (size_t)o->shape.batch * o->shape.heads * o->shape.seqlen_q * D;
  const size_t nkv = (size_t)o->shape.batch * o->shape.heads * o->shape.seqlen_kv * D;
  const size_t nl = (size_t)o->shape.batch * o->shape.heads * o->shape.seqlen_q;
  const size_t out_bytes = (size_t)(g->n + 2 * g->guard) * sizeof(uint16_t);
  attngen_context_options opts = {o->backend, o->device};
  attngen_status st = attngen_create(&r->ctx, &opts);
  /* +16 bytes: no zero-size allocation when Skv == 0 */
  if (!st) st = attngen_malloc(r->ctx, nq * 2 + 16, &r->q);
  if (!st) st = attngen_malloc(r->ctx, nkv * 2 + 16, &r->k);
  if (!st) st = attngen_malloc(r->ctx, nkv * 2 + 16, &r->v);
  if (!st) st = attngen_malloc(r->ctx, out_bytes, &r->out_base);
  if (!st) st = attngen_malloc(r->ctx, nl * sizeof(float), &r->lse);
  if (!st) st = attngen_memcpy_htod(r->ctx, r->q, in->q, nq * 2);
  if (!st && nkv) st = attngen_memcpy_htod(r->ctx, r->k, in->k, nkv * 2);
  if (!st && nkv) st = attngen_memcpy_htod(r->ctx, r->v, in->v, nkv * 2);
  attngen_fwd_args a;
  call_args(o, &a);
  a.q = r->q;
  a.k = r->k;
  a.v = r->v;
  a.out = (char *)r->out_base + (size_t)g->guard * sizeof(uint16_t);
  a.lse = r->lse;
  if (!st) {
    attngen_choice ch;
    st = attngen_explain(r->ctx, &a, &ch);
    if (!st) snprintf(variant, variant_size, "%s (%s)", ch.variant, ch.rule_name);
  }
  attngen__guarded *outs[2] = {g, g2};
  float *lses[2] = {lse, lse2};
  for (int run = 0; run < 2 && !st; ++run) {
    for (size_t i = 0; i < nl; ++i) lses[run][i] = NAN;
    st = attngen_memcpy_htod(r->ctx, r->out_base, outs[run]->base, out_bytes);
    if (!st) st = attngen_memcpy_htod(r->ctx, r->lse, lses[run], nl * sizeof(float));
    if (!st) st = attngen_fwd(r->ctx, &a);
    if (!st) st = attngen_synchronize(r->ctx, NULL);
    if (!st) st = attngen_memcpy_dtoh(r->ctx, outs[run]->base, r->out_base, out_bytes);
    if (!st) st = attngen_memcpy_dtoh(r->ctx, lses[run], r->lse, nl * sizeof(float));
  }
  if (st) {
    fprintf(stderr, "attngen check: backend %s: %s: %s\n", o->backend, attngen_status_name(st),
            attngen_last_error());
  }
  device_run_free(r);
  return st;
}

/* Prints the report block; returns 1 when everything passed. */
static int report(FILE *f, const check_opts *o, const char *variant,
                  const attngen__verify_result *v, int64_t guard_bad, int64_t guard_first,
                  int64_t nondeterministic) {
  char title[512];
  snprintf(title, sizeof title, "check %s %dx%dx%dx%d %s %s seed %llu inputs %s%s scale %g\n"
           "  variant: %s\n  output",
           o->backend, o->shape.batch, o->shape.heads, o->shape.seqlen_q, o->shape.seqlen_kv,
           attngen__layout_name(o->shape.layout), attngen__rounding_name(o->shape.rounding),
           (unsigned long long)o->seed, input_names[o->inputs], o->special ? " +nan/inf" : "",
           (double)o->scale, variant);
  attngen__compare_print(f, title, &v->out);
  const size_t nl = (size_t)o->shape.batch * o->shape.heads * o->shape.seqlen_q;
  fprintf(f, "  reference: softmax step %d keys%s", v->kv_step,
          v->score_fma ? ", p = exp2(fma(s, scale_log2, -m))" : "");
  if (v->kv_per_split)
    fprintf(f, ", " ATTNGEN__SPLIT_TAIL_NAME " split: %lld of %zu rows in parts of %d keys",
            v->split_rows, nl,
            v->kv_per_split);
  fprintf(f, "\n");
  fprintf(f, "  guard bands: %lld elements overwritten", (long long)guard_bad);
  if (guard_bad) fprintf(f, " (first at offset %lld)", (long long)guard_first);
  fprintf(f, "\n  determinism: %lld elements differ between two runs\n",
          (long long)nondeterministic);
  attngen__compare_lse_print(f, &v->lse);
  const int pass = v->pass && guard_bad == 0 && nondeterministic == 0;
  fprintf(f, "check: %s\n", pass ? "PASS" : "FAIL");
  return pass;
}

static int check(const attngen__cli_args *args) {
  check_opts o;
  options_of(args, &o);
  if (o.inputs == ATTNGEN__INPUT_LARGE && o.scale == 0.0f)
    return attngen__cli_usage_error(args->cmd, "--inputs large sets the scores' size through "
                                               "--scale: it needs a nonzero --scale");

  const size_t nq = (size_t)o.shape.batch * o.shape.heads * o.shape.seqlen_q * D;
  const size_t nl = (size_t)o.shape.batch * o.shape.heads * o.shape.seqlen_q;
  attngen__inputs in;
  attngen__guarded g = {0}, g2 = {0};
  float *lse = malloc(nl * sizeof(float)), *lse2 = malloc(nl * sizeof(float));
  char variant[256] = "?";
  device_run dev = {0};
  int rc = 1;
  attngen_status st = make_inputs(&o, &in);
  if (!st && !(lse && lse2)) st = ATTNGEN_STATUS_OUT_OF_MEMORY;
  if (!st) st = attngen__guarded_alloc(&g, (int64_t)nq, ATTNGEN__GUARD_ELEMS);
  if (!st) st = attngen__guarded_alloc(&g2, (int64_t)nq, ATTNGEN__GUARD_ELEMS);
  if (st) fprintf(stderr, "attngen check: inputs: %s\n", attngen_status_string(st));
  if (!st) st = run_backend(&o, &in, &dev, &g, &g2, lse, lse2, variant, sizeof variant);
  if (!st) {
    /* The expected result: the CPU reference with the kernel's softmax step and tail split,
     * the exact fp64 attention as the sanity bound (verify.h). */
    attngen_fwd_args call;
    call_args(&o, &call);
    attngen__verify_args va = {dev.ctx, &call, &in, g.data, lse, 1, 0, NULL};
    attngen__verify_result vr;
    st = attngen__verify_run(&va, &vr);
    if (st) {
      fprintf(stderr, "attngen check: reference: %s: %s\n", attngen_status_string(st),
              attngen_last_error());
    } else {
      int64_t guard_first = 0;
      const int64_t guard_bad = attngen__guarded_check(&g, &guard_first) +
                                attngen__guarded_check(&g2, NULL);
      int64_t differ = 0;
      for (size_t i = 0; i < nq; ++i) differ += g.data[i] != g2.data[i];
      for (size_t i = 0; i < nl; ++i) differ += memcmp(&lse[i], &lse2[i], sizeof(float)) != 0;
      rc = report(stdout, &o, variant, &vr, guard_bad, guard_first, differ) ? 0 : 1;
    }
  }
  if (dev.ctx) attngen_destroy(dev.ctx);
  attngen__guarded_free(&g);
  attngen__guarded_free(&g2);
  attngen__inputs_free(&in);
  free(lse);
  free(lse2);
  return rc;
}
