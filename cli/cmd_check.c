/* cmd_check.c: `attngen check` — holds a backend to the numerics contract (docs/NUMERICS.md).
 * Fresh seeded inputs; the backend runs through the public API (attngen_fwd) into a poisoned
 * output with guard bands, twice (determinism); the CPU reference (numerics.h) gives the
 * expected bf16 result and LSE, the exact fp64 attention the sanity bound; the comparator
 * prints one report block. With --backend cpu the backend is the reference itself, so the
 * check exercises the whole path and the fp64 bound. --all runs the contract's case set
 * (attngen__contract_cases) on every variant of the backend's target search space, one
 * progress line per variant and the report block of each failing case; on the emulator the
 * variants that are not built in are JIT-compiled first, -j at a time, and the second run of
 * each case uses another wave-order seed. */
#define _GNU_SOURCE /* open_memstream */
#include <errno.h>
#include <fnmatch.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "attngen.h"
#include "cli.h"

typedef struct check_opts {
  const char *backend;
  int device;
  attngen__call_shape shape; /* shape, layout and rounding of the checked call */
  uint64_t seed;
  float scale;
  attngen__input_kind inputs;
  const char *variant; /* NULL = the dispatcher's choice */
  int special;         /* plant NaN/Inf in the inputs */
  const char *filter;  /* --all: only variants matching this glob */
  int jobs;            /* --all: JIT compiles at a time */
  int second_seed;     /* emu: run 2 on another wave-order seed */
  const int32_t *kvl;  /* --all's key-length cases: per-batch key lengths (host), or NULL */
  int causal;          /* args.causal */
} check_opts;

static const char *const input_names[] = {"uniform", "realistic", "large"};

static const attngen__cli_option options[] = {
    {"--shape", ATTNGEN__CLI_SHAPE, "B,H,Sq,Skv",
     "batch, heads, query and key/value lengths (B,H,S: Skv = Sq);\n"
     "required unless --all"},
    {"--head-dim", ATTNGEN__CLI_INT, "D",
     "elements per row of q, k, v and out (args.head_dim; default 128;\n"
     "allowed 64, 128, 256)", 1, 65535},
    {"--heads-kv", ATTNGEN__CLI_INT, "N",
     "KV heads of a grouped-query call (args.heads_kv; default: the\n"
     "heads of --shape; must divide them, 1 = MQA)", 1, 65535},
    {"--backend", ATTNGEN__CLI_BACKEND, "NAME", "the backend checked (default cpu)"},
    {"--device", ATTNGEN__CLI_INT, "N", "device ordinal (default 0)", 0, 1024},
    {"--layout", ATTNGEN__CLI_CHOICE, "L", "tensor layout (default " ATTNGEN__LAYOUT_BSHD_NAME ")",
     .choices = attngen__layout_names, .nchoices = ATTNGEN__LAYOUT_COUNT},
    {"--round", ATTNGEN__CLI_CHOICE, "R",
     "bf16 rounding of P and O (default " ATTNGEN__ROUNDING_RTNE_NAME ")",
     .choices = attngen__rounding_names, .nchoices = ATTNGEN__ROUNDING_COUNT},
    {"--seed", ATTNGEN__CLI_INT, "N", "input seed (default: fresh, printed in the report)", 0,
     2147483647},
    {"--scale", ATTNGEN__CLI_REAL, "X",
     "softmax scale (default 1/sqrt(head_dim); any finite float)",
     ATTNGEN__CLI_SCALE_RANGE},
    {"--inputs", ATTNGEN__CLI_CHOICE, "KIND", "input distribution (default uniform)",
     .choices = input_names, .nchoices = 3, .excludes = "--large-scores"},
    {"--large-scores", ATTNGEN__CLI_FLAG, NULL,
     "same as --inputs large (|t| ~ 100: rescale path runs)"},
    {"--special", ATTNGEN__CLI_FLAG, NULL, "plant NaN and Inf in q, k and v"},
    {"--causal", ATTNGEN__CLI_FLAG, NULL,
     "the causal mask (bottom-right aligned; args.causal = 1)"},
    {"--variant", ATTNGEN__CLI_TEXT, "NAME", "force a kernel variant", .max_len = 255},
    {"--all", ATTNGEN__CLI_FLAG, NULL,
     "every variant of the backend's target search space (attngen list\n"
     "--search-space; emu and hip: gfx942, cuda: sm90) on the contract's case\n"
     "set (Skv = 0, Sq = 1, ragged, several KV tiles, tail splits, NaN/Inf,\n"
     "large scores, negative, zero and huge scales, key lengths, GQA/MQA);\n"
     "one line per variant, the report of each failing case, a summary. On\n"
     "emu, variants not built in are JIT-compiled first (cached) and each\n"
     "case's second run uses another wave-order seed. Causal variants (mask\n"
     "causal) run with args.causal = 1 and without the NaN/Inf cases (a\n"
     "non-finite v of a key a row does not see may reach it: docs/NUMERICS.md)",
     .excludes = "--shape --heads-kv --head-dim --layout --round --scale --inputs "
                 "--large-scores --special --variant --causal"},
    {"--seqlens", ATTNGEN__CLI_TEXT, "N,N,...",
     "a packed variable-length batch (args.cu_seqlens_q/_k) of these query\n"
     "lengths (>= 0, at least one > 0; bshd = THD rows), checked against\n"
     "the per-sequence dense calls on the same variant: each dense call\n"
     "against the contract, the packed rows and LSE bit for bit, coverage,\n"
     "guard bands, two runs bitwise equal. Heads from --heads, head_dim from\n"
     "--head-dim", .max_len = 4095,
     .excludes = "--shape --all --layout --special"},
    {"--kv-seqlens", ATTNGEN__CLI_TEXT, "N,N,...",
     "--seqlens: the key lengths (default: the query lengths), one per\n"
     "sequence", .max_len = 4095, .needs = "--seqlens"},
    {"--seqused-k", ATTNGEN__CLI_TEXT, "N,N,...",
     "--seqlens: per-sequence key lengths passed as args.kv_lengths as\n"
     "well (FlashAttention-3's seqused_k; any int32, clamped)", .max_len = 4095,
     .needs = "--seqlens"},
    {"--heads", ATTNGEN__CLI_INT, "N", "--seqlens: query heads (default 2)", 1, 65535,
     .needs = "--seqlens"},
    {"--skip", ATTNGEN__CLI_REAL, "T",
     "temporal tile skipping (args.skip, docs/NUMERICS.md \"Tile skipping\"):\n"
     "a skip state with threshold T (log2 units, < 0) over --skip-steps\n"
     "calls on the same inputs, each read list the previous call's; per\n"
     "call the output against the reference run on the same lists (the\n"
     "contract but the fp64 bound), the written list and the counts bit\n"
     "for bit",
     -1e30, -1e-30, .excludes = "--all --seqlens --special"},
    {"--skip-steps", ATTNGEN__CLI_INT, "N", "--skip: calls on one state (default 3)", 1, 100,
     .needs = "--skip"},
    {"--skip-read", ATTNGEN__CLI_INT, "PCT",
     "--skip: the first call reads a random list with PCT% of the tiles\n"
     "set (default 0: none)", 0, 100, .needs = "--skip"},
    {"--skip-masks", ATTNGEN__CLI_INT, "PCT",
     "--skip: random must-skip and must-do masks, PCT% of the tiles each\n"
     "(default 0: none)", 0, 100, .needs = "--skip"},
    {"--filter", ATTNGEN__CLI_TEXT, "GLOB", "--all: only variants whose name matches GLOB",
     .needs = "--all"},
    {"-j", ATTNGEN__CLI_INT, "N", "--all on emu: JIT compiles at a time (default 2; -jN too)", 1,
     64, .needs = "--all"},
    {NULL}};

static int check(const attngen__cli_args *args);

const attngen__cli_command attngen__cli_cmd_check = {
    "check", "check a backend against the numerics contract",
    "--shape B,H,Sq,Skv [options] | --seqlens N,N,... [--kv-seqlens N,N,...] [options] | "
    "--all [--backend B] [--filter GLOB] [-j N] [--seed N]",
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
  o->shape = attngen__cli_get(args, "--shape")->shape; /* zero when --all */
  o->shape.layout = attngen__cli_choice(args, "--layout", ATTNGEN_LAYOUT_BSHD);
  o->shape.rounding = attngen__cli_choice(args, "--round", ATTNGEN_ROUND_RTNE);
  const int heads_kv = (int)attngen__cli_int(args, "--heads-kv", 0);
  o->shape.heads_kv = heads_kv == o->shape.heads ? 0 : heads_kv; /* call_shape.h: canonical */
  o->seed = attngen__cli_given(args, "--seed") ? (uint64_t)attngen__cli_int(args, "--seed", 0)
                                               : fresh_seed();
  const int head_dim = (int)attngen__cli_int(args, "--head-dim", 128);
  o->shape.head_dim = head_dim == 128 ? 0 : head_dim; /* call_shape.h: canonical */
  o->scale = (float)attngen__cli_real(args, "--scale", 1.0 / sqrt((double)head_dim));
  o->inputs = (attngen__input_kind)attngen__cli_choice(args, "--inputs", ATTNGEN__INPUT_UNIFORM);
  if (attngen__cli_given(args, "--large-scores")) o->inputs = ATTNGEN__INPUT_LARGE;
  o->special = attngen__cli_given(args, "--special");
  o->causal = attngen__cli_given(args, "--causal");
  o->variant = attngen__cli_text(args, "--variant", NULL);
  o->filter = attngen__cli_text(args, "--filter", NULL);
  o->jobs = (int)attngen__cli_int(args, "-j", 2);
}

/* Seeded inputs (a zero scale, from --all's case set, makes them with the default one);
 * with --special, NaN and Inf planted (attngen__plant_special). */
static attngen_status make_inputs(const check_opts *o, attngen__inputs *in) {
  const attngen__call_shape *c = &o->shape;
  attngen_status st = attngen__inputs_make_hd(
      in, o->inputs, o->seed, c->layout, c->batch, c->heads, c->heads_kv, c->seqlen_q,
      c->seqlen_kv, attngen__shape_head_dim(c),
      o->scale != 0.0f ? o->scale : ATTNGEN__DEFAULT_SCALE);
  if (st == ATTNGEN_STATUS_OK && o->special) attngen__plant_special(in);
  if (st == ATTNGEN_STATUS_OK && o->kvl) attngen__plant_masked(in, o->kvl);
  return st;
}

/* Device buffers of one backend run (the context lives on for the verification). */
typedef struct device_run {
  attngen_context *ctx;
  void *q, *k, *v, *out_base, *lse, *kvl;
} device_run;

static void device_run_free(device_run *r) {
  if (!r->ctx) return;
  attngen_free(r->ctx, r->q);
  attngen_free(r->ctx, r->k);
  attngen_free(r->ctx, r->v);
  attngen_free(r->ctx, r->out_base);
  attngen_free(r->ctx, r->lse);
  attngen_free(r->ctx, r->kvl);
  r->q = r->k = r->v = r->out_base = r->lse = r->kvl = NULL;
}

static void call_args(const check_opts *o, attngen_fwd_args *a) {
  attngen_fwd_args_init(a);
  attngen__call_shape_to_args(&o->shape, a);
  a->softmax_scale = o->scale;
  a->variant = o->variant;
  a->causal = o->causal;
}

/* Runs the backend twice through the public API on r->ctx. Each run starts from the poisoned,
 * guarded buffer `g` (copied in whole, copied back whole: guards included) and a NaN-filled
 * LSE. Results: g / lse (first run), g2 / lse2 (second run). `variant` gets the variant name
 * and the rule that chose it. */
static attngen_status run_backend(const check_opts *o, const attngen__inputs *in, device_run *r,
                                  attngen__guarded *g, attngen__guarded *g2, float *lse,
                                  float *lse2, char *variant, size_t variant_size) {
  const size_t D = (size_t)attngen__shape_head_dim(&o->shape);
  const size_t nq = (size_t)o->shape.batch * o->shape.heads * o->shape.seqlen_q * D;
  const size_t nkv =
      (size_t)o->shape.batch * attngen__shape_heads_kv(&o->shape) * o->shape.seqlen_kv * D;
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
  const size_t nkvl = o->kvl ? (size_t)o->shape.batch * sizeof(int32_t) : 0;
  if (!st && nkvl) st = attngen_malloc(r->ctx, nkvl, &r->kvl);
  if (!st && nkvl) st = attngen_memcpy_htod(r->ctx, r->kvl, o->kvl, nkvl);
  attngen_fwd_args a;
  call_args(o, &a);
  a.q = r->q;
  a.k = r->k;
  a.v = r->v;
  a.out = (char *)r->out_base + (size_t)g->guard * sizeof(uint16_t);
  a.lse = r->lse;
  a.kv_lengths = r->kvl;
  if (!st) {
    attngen_choice ch;
    st = attngen_explain(r->ctx, &a, &ch);
    if (!st) snprintf(variant, variant_size, "%s (%s)", ch.variant, ch.rule_name);
  }
  attngen__guarded *outs[2] = {g, g2};
  float *lses[2] = {lse, lse2};
  attngen_context *first = r->ctx;
  for (int run = 0; run < 2 && !st; ++run) {
    if (run == 1 && o->second_seed) {
      /* the emulator's waves interleave in another order: a context with another seed */
      const char *old = getenv("ATTNGEN_EMU_SEED");
      char *saved = old ? strdup(old) : NULL;
      setenv("ATTNGEN_EMU_SEED", "987654321", 1);
      attngen_context *c2 = NULL;
      st = attngen_create(&c2, &opts);
      if (saved) setenv("ATTNGEN_EMU_SEED", saved, 1);
      else unsetenv("ATTNGEN_EMU_SEED");
      free(saved);
      if (st) break;
      r->ctx = c2; /* host memory: the emulator's buffers are valid in any of its contexts */
    }
    for (size_t i = 0; i < nl; ++i) lses[run][i] = NAN;
    st = attngen_memcpy_htod(r->ctx, r->out_base, outs[run]->base, out_bytes);
    if (!st) st = attngen_memcpy_htod(r->ctx, r->lse, lses[run], nl * sizeof(float));
    if (!st) st = attngen_fwd(r->ctx, &a);
    if (!st) st = attngen_synchronize(r->ctx, NULL);
    if (!st) st = attngen_memcpy_dtoh(r->ctx, outs[run]->base, r->out_base, out_bytes);
    if (!st) st = attngen_memcpy_dtoh(r->ctx, lses[run], r->lse, nl * sizeof(float));
  }
  if (r->ctx != first) {
    attngen_destroy(r->ctx);
    r->ctx = first;
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
  char gqa[64] = "";
  if (o->shape.heads_kv > 0) snprintf(gqa, sizeof gqa, " heads_kv %d", o->shape.heads_kv);
  if (o->shape.head_dim > 0)
    snprintf(gqa + strlen(gqa), sizeof gqa - strlen(gqa), " head_dim %d", o->shape.head_dim);
  snprintf(title, sizeof title, "check %s %dx%dx%dx%d%s %s %s seed %llu inputs %s%s%s scale %g\n"
           "  variant: %s\n  output",
           o->backend, o->shape.batch, o->shape.heads, o->shape.seqlen_q, o->shape.seqlen_kv, gqa,
           attngen__layout_name(o->shape.layout), attngen__rounding_name(o->shape.rounding),
           (unsigned long long)o->seed, input_names[o->inputs], o->special ? " +nan/inf" : "",
           o->kvl ? " +key lengths (masked keys NaN/Inf)" : "", (double)o->scale, variant);
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

/* One check of o's call: 0 pass, 1 fail or backend error. The report goes to f (stdout, or
 * a memory stream that --all prints only for a failure). */
static int check_one(const check_opts *o, FILE *f) {
  const size_t D = (size_t)attngen__shape_head_dim(&o->shape);
  const size_t nq = (size_t)o->shape.batch * o->shape.heads * o->shape.seqlen_q * D;
  const size_t nl = (size_t)o->shape.batch * o->shape.heads * o->shape.seqlen_q;
  attngen__inputs in;
  attngen__guarded g = {0}, g2 = {0};
  float *lse = malloc(nl * sizeof(float) + 4), *lse2 = malloc(nl * sizeof(float) + 4);
  char variant[256] = "?";
  device_run dev = {0};
  int rc = 1;
  attngen_status st = make_inputs(o, &in);
  if (!st && !(lse && lse2)) st = ATTNGEN_STATUS_OUT_OF_MEMORY;
  if (!st) st = attngen__guarded_alloc(&g, (int64_t)nq, ATTNGEN__GUARD_ELEMS);
  if (!st) st = attngen__guarded_alloc(&g2, (int64_t)nq, ATTNGEN__GUARD_ELEMS);
  if (st) fprintf(stderr, "attngen check: inputs: %s\n", attngen_status_string(st));
  if (!st) st = run_backend(o, &in, &dev, &g, &g2, lse, lse2, variant, sizeof variant);
  if (!st) {
    /* The expected result: the CPU reference with the kernel's softmax step and tail split,
     * the exact fp64 attention as the sanity bound (verify.h). */
    attngen_fwd_args call;
    call_args(o, &call);
    attngen__verify_args va = {dev.ctx, &call, &in, g.data, lse, 1, 0, NULL, o->kvl};
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
      rc = report(f, o, variant, &vr, guard_bad, guard_first, differ) ? 0 : 1;
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

/* ---- --all -------------------------------------------------------------------------------- */

typedef struct compile_work {
  char **names;
  int count;
  int done; /* atomic */
  int failed; /* atomic */
  int tty;
} compile_work;

/* JIT-compiles (or finds in the cache) the emulator objects of the variants not built in. */
static void compile_one(void *ctx, size_t i) {
  compile_work *w = ctx;
  attngen__jit_request req = {w->names[i], ATTNGEN__TARGET_GFX942, NULL, 0, NULL, 1};
  attngen__jit_result res;
  const attngen_status st = attngen__jit_get(&req, &res);
  const int done = __atomic_add_fetch(&w->done, 1, __ATOMIC_SEQ_CST);
  if (st != ATTNGEN_STATUS_OK) {
    __atomic_fetch_add(&w->failed, 1, __ATOMIC_SEQ_CST);
    fprintf(stderr, "%sattngen check: %s: %s: %s\n", w->tty ? "\r\033[K" : "", w->names[i],
            attngen_status_name(st), attngen_last_error());
    return;
  }
  if (w->tty)
    fprintf(stderr, "\r\033[K  compiled %d/%d %s (%s, %.1f s)", done, w->count, w->names[i],
            res.origin == ATTNGEN__JIT_COMPILED ? "compiled" : "cache", res.seconds);
  free(res.image);
}

static int builtin_emu(const char *name) {
#if defined(ATTNGEN_HAVE_EMU) && ATTNGEN_HAVE_EMU
  return attngen__emu_find(name) != NULL;
#else
  (void)name;
  return 0;
#endif
}

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int check_all(check_opts *o) {
  attngen_context *ctx = NULL;
  attngen_context_options copts = {o->backend, o->device};
  attngen_device_props props;
  attngen_status st = attngen_create(&ctx, &copts);
  if (!st) st = attngen_device_info(ctx, &props);
  if (st) {
    fprintf(stderr, "attngen check: backend %s: %s: %s\n", o->backend, attngen_status_name(st),
            attngen_last_error());
    if (ctx) attngen_destroy(ctx);
    return 1;
  }
  const char *target = props.target ? props.target : "";
  const int emu = !strcmp(props.backend, "emu");
  const int cus = props.compute_units;
  attngen_destroy(ctx);
  char **space = NULL, *err = NULL;
  const int nspace = attngen__gen_search_space(target, &space, &err);
  if (nspace < 0) {
    fprintf(stderr, "attngen check: target %s has no search space: %s\n", target,
            err ? err : "?");
    free(err);
    return 1;
  }
  int n = 0;
  for (int i = 0; i < nspace; i++) {
    if (o->filter && fnmatch(o->filter, space[i], 0) != 0) continue;
    char *keep = space[i];
    space[i] = space[n];
    space[n++] = keep;
  }
  if (n == 0) {
    fprintf(stderr, "attngen check: no variant of the %s search space matches '%s'\n", target,
            o->filter ? o->filter : "*");
    attngen__gen_free_names(space, nspace);
    return 1;
  }
  const int tty = isatty(STDERR_FILENO);
  printf("check --all: backend %s (%s), %d variant%s of the %s search space, input seed %llu\n",
         props.backend, props.name, n, n == 1 ? "" : "s", target, (unsigned long long)o->seed);
  fflush(stdout);
  const double t0 = now_s();
  int compile_failed = 0;
  if (emu) {
    /* the variants the emulator does not have built in, compiled -j at a time */
    compile_work w = {calloc((size_t)n, sizeof(char *)), 0, 0, 0, tty};
    for (int i = 0; w.names && i < n; i++)
      if (!builtin_emu(space[i])) w.names[w.count++] = space[i];
    if (w.count) {
      fprintf(stderr, "attngen check: %d variant%s to JIT-compile for the emulator (or load from "
              "the cache), %d at a time\n", w.count, w.count == 1 ? "" : "s", o->jobs);
      attngen__cli_parallel((size_t)w.count, o->jobs, compile_one, &w);
      if (tty) fprintf(stderr, "\r\033[K");
      fprintf(stderr, "attngen check: compiling done in %.1f s (%d failed)\n", now_s() - t0,
              w.failed);
    }
    compile_failed = w.failed;
    free(w.names);
  }
  int failed_variants = 0, failed_cases = 0, ncases_total = 0;
  const int cus_ok = cus == 8; /* the case set's split expectations assume 8 CUs */
  for (int i = 0; i < n; i++) {
    char *verr = NULL;
    attngen__variant_desc d;
    if (attngen__gen_variant_desc(space[i], &d, &verr) != 0) {
      printf("[%3d/%d] %-58s INVALID: %s\n", i + 1, n, space[i], verr ? verr : "?");
      free(verr);
      failed_variants++;
      continue;
    }
    attngen__contract_case cases[ATTNGEN__CONTRACT_CASES_MAX];
    const size_t nc = attngen__contract_cases(d.kv_tile, cases);
    const double tv = now_s();
    int bad = 0;
    size_t ran = 0;
    for (size_t c = 0; c < nc; c++) {
      check_opts one = *o;
      one.shape.batch = cases[c].batch;
      one.shape.heads = cases[c].heads;
      one.shape.seqlen_q = cases[c].seqlen_q;
      one.shape.seqlen_kv = cases[c].seqlen_kv;
      one.shape.heads_kv = cases[c].heads_kv;
      one.shape.head_dim = attngen__desc_head_dim(&d) == 128 ? 0 : attngen__desc_head_dim(&d);
      one.shape.layout = d.layout;
      one.shape.rounding = d.rounding;
      one.inputs = cases[c].inputs;
      one.special = cases[c].special;
      one.scale = cases[c].scale;
      one.variant = space[i];
      one.seed = o->seed + (uint64_t)(i * ATTNGEN__CONTRACT_CASES_MAX) + c;
      one.second_seed = emu;
      one.kvl = cases[c].nkvl ? cases[c].kvl : NULL;
      one.causal = d.mask == ATTNGEN__MASK_CAUSAL;
      if (one.causal && cases[c].special) continue; /* NUMERICS.md's causal carve-out */
      ran++;
      char *text = NULL;
      size_t len = 0;
      FILE *mem = open_memstream(&text, &len);
      int rc = check_one(&one, mem ? mem : stdout);
      if (mem) fclose(mem);
      if (!rc && emu && cus_ok && cases[c].split >= 0) {
        /* the plan: tail variants split the split cases, nothing else splits */
        attngen_context *pc = NULL;
        attngen_choice ch;
        attngen_fwd_args a;
        call_args(&one, &a);
        if (attngen_create(&pc, &copts) == ATTNGEN_STATUS_OK &&
            attngen_explain(pc, &a, &ch) == ATTNGEN_STATUS_OK) {
          const int want = cases[c].split && d.kv_split == ATTNGEN__SPLIT_TAIL;
          if ((ch.num_splits > 1) != want) {
            printf("FAIL %s (%s): plan has %d KV parts, expected %s\n", space[i], cases[c].what,
                   ch.num_splits, want ? "a split" : "none");
            rc = 1;
          }
        }
        if (pc) attngen_destroy(pc);
      }
      if (rc) {
        bad++;
        printf("--- %s: case '%s' failed:\n%s", space[i], cases[c].what, text ? text : "");
      }
      free(text);
    }
    ncases_total += (int)ran;
    failed_cases += bad;
    failed_variants += bad > 0;
    printf("[%3d/%d] %-58s %zu cases %s  %.1f s\n", i + 1, n, space[i], ran,
           bad ? "FAIL" : "pass", now_s() - tv);
    fflush(stdout);
  }
  printf("check --all: %d variant%s, %d cases: %d variant%s failed (%d cases)%s, %.1f s\n", n,
         n == 1 ? "" : "s", ncases_total, failed_variants, failed_variants == 1 ? "" : "s",
         failed_cases, compile_failed ? ", some did not compile" : "", now_s() - t0);
  attngen__gen_free_names(space, nspace);
  return failed_variants || compile_failed ? 1 : 0;
}

#define PACKED_MAX_SEQS 1024

/* --seqlens: one packed batch against its per-sequence dense calls (verify_packed.c). */
static int check_packed(const attngen__cli_args *args, const check_opts *o) {
  static int32_t lq[PACKED_MAX_SEQS], lk[PACKED_MAX_SEQS], used[PACKED_MAX_SEQS];
  const int n = attngen__cli_int_list(args, "--seqlens", lq, PACKED_MAX_SEQS, 0);
  if (n < 0) return 2;
  int nk = n, nu = 0;
  if (attngen__cli_given(args, "--kv-seqlens")) {
    if ((nk = attngen__cli_int_list(args, "--kv-seqlens", lk, PACKED_MAX_SEQS, 0)) < 0) return 2;
  } else {
    memcpy(lk, lq, sizeof(int32_t) * (size_t)n);
  }
  if (attngen__cli_given(args, "--seqused-k") &&
      (nu = attngen__cli_int_list(args, "--seqused-k", used, PACKED_MAX_SEQS, INT32_MIN)) < 0)
    return 2;
  if (n == 0 || nk != n || (nu && nu != n))
    return attngen__cli_usage_error(args->cmd, "--seqlens gives %d lengths, --kv-seqlens %d, "
                                    "--seqused-k %d (allowed: the same count, at least one)",
                                    n, nk, nu ? nu : n);
  const int heads = (int)attngen__cli_int(args, "--heads", 2);
  char what[48];
  snprintf(what, sizeof what, "--heads %d", heads);
  if (attngen__cli_check_heads_kv(args->cmd, o->shape.heads_kv, heads, what)) return 2;
  attngen_context *ctx = NULL;
  attngen_context_options opts = {o->backend, o->device};
  attngen_status st = attngen_create(&ctx, &opts);
  attngen__packed_args pa = {ctx, n, lq, lk, nu ? used : NULL, heads,
                             o->shape.heads_kv == heads ? 0 : o->shape.heads_kv,
                             (attngen_rounding)o->shape.rounding, o->causal, o->scale, o->inputs,
                             o->seed, o->variant, 1, 0, stdout,
                             attngen__shape_head_dim(&o->shape)};
  attngen__packed_result r;
  memset(&r, 0, sizeof r);
  if (!st) {
    printf("attngen check: packed batch of %d sequences, %d heads (%d KV), head_dim %d, seed "
           "%llu, backend %s\n", n, heads, pa.heads_kv ? pa.heads_kv : heads, pa.head_dim,
           (unsigned long long)o->seed, o->backend);
    st = attngen__verify_packed(&pa, &r);
  }
  if (st) {
    fprintf(stderr, "attngen check: %s: %s\n", attngen_status_name(st),
            attngen_last_error()[0] ? attngen_last_error() : "the packed check could not run");
    attngen_destroy(ctx);
    return 1;
  }
  printf("variant %s: %d dense calls (%d failed), packed vs dense: %lld output elements and "
         "%lld LSE values differ; unwritten %lld, guard damage %lld, deterministic %s: %s\n",
         r.variant, r.sequences, r.dense_failed, (long long)r.out_mismatch,
         (long long)r.lse_mismatch, (long long)r.unwritten, (long long)r.guard_damage,
         r.deterministic ? "yes" : "no", r.pass ? "PASS" : "FAIL");
  attngen_destroy(ctx);
  return r.pass ? 0 : 1;
}

/* ---- --skip ------------------------------------------------------------------------------ */

/* --skip T: calls on one skip state, each checked against the reference on the lists it
 * read (verify_run with the lists), its written list and counts against the reference's. */
static int check_skip(const attngen__cli_args *args, const check_opts *o) {
  const float t = (float)attngen__cli_real(args, "--skip", -6.0);
  const int steps = (int)attngen__cli_int(args, "--skip-steps", 3);
  const int read_pct = (int)attngen__cli_int(args, "--skip-read", 0);
  const int mask_pct = (int)attngen__cli_int(args, "--skip-masks", 0);
  attngen__inputs in;
  memset(&in, 0, sizeof in);
  attngen_context *ctx = NULL;
  attngen_skip_state *s = NULL;
  uint32_t *r = NULL, *w = NULL, *wref = NULL, *ms = NULL, *md = NULL;
  int pass = 1;
  attngen_status st = make_inputs(o, &in);
  attngen_context_options copts = {o->backend, o->device};
  if (!st) st = attngen_create(&ctx, &copts);
  attngen_fwd_args a;
  call_args(o, &a);
  if (!st) st = attngen_skip_state_create(ctx, &a, 0, 0, t, &s);
  attngen_skip_info info;
  memset(&info, 0, sizeof info);
  if (!st) st = attngen_skip_state_info(s, &info);
  if (!st) {
    r = calloc(info.words + 1, 4);
    w = calloc(info.words + 1, 4);
    wref = calloc(info.words + 1, 4);
    attngen__rng rng;
    attngen__rng_seed(&rng, o->seed ^ 0x5EEDu);
    if (mask_pct) {
      ms = attngen__rng_words(&rng, info.words, mask_pct);
      md = attngen__rng_words(&rng, info.words, mask_pct);
    }
    if (!r || !w || !wref || (mask_pct && (!ms || !md))) st = ATTNGEN_STATUS_OUT_OF_MEMORY;
    if (!st && ms) st = attngen_skip_state_set_list(s, ATTNGEN_SKIP_MUST_SKIP, ms);
    if (!st && md) st = attngen_skip_state_set_list(s, ATTNGEN_SKIP_MUST_DO, md);
    if (!st && read_pct) {
      uint32_t *first = attngen__rng_words(&rng, info.words, read_pct);
      st = first ? attngen_skip_state_set_list(s, ATTNGEN_SKIP_NEXT_READ, first)
                 : ATTNGEN_STATUS_OUT_OF_MEMORY;
      free(first);
    }
  }
  if (!st)
    printf("check %s skip %dx%dx%dx%d %s %s seed %llu inputs %s scale %g: variant %s, tile "
           "grid %d x %d (%d x %d tiles, %zu words), T = %g, %d calls%s\n", o->backend,
           o->shape.batch, o->shape.heads, o->shape.seqlen_q, o->shape.seqlen_kv,
           attngen__layout_name(o->shape.layout), attngen__rounding_name(o->shape.rounding),
           (unsigned long long)o->seed, input_names[o->inputs], (double)o->scale, info.variant,
           info.block_m, info.block_n, info.q_tiles, info.kv_tiles, info.words, (double)t, steps,
           mask_pct ? " +must-skip/must-do masks" : "");
  for (int step = 1; step <= steps && !st; ++step) {
    const int reads = step > 1 || read_pct > 0;
    if (reads) st = attngen_skip_state_get_list(s, ATTNGEN_SKIP_NEXT_READ, r);
    if (st) break;
    a.skip = s;
    uint32_t cref[2] = {0, 0};
    /* no fp64 bound: the exact attention has every key, the call does not */
    attngen__verify_args va = {ctx, &a, &in, NULL, NULL, 0, 0, NULL, o->kvl,
                               reads ? r : NULL, ms, md, t, wref, cref};
    attngen__verify_result vr;
    if ((st = attngen__verify_run(&va, &vr))) break;
    uint64_t sk = 0, vi = 0;
    double f = 0;
    if ((st = attngen_skip_state_get_list(s, ATTNGEN_SKIP_NEXT_READ, w))) break;
    if ((st = attngen_skip_state_stats(s, &sk, &vi, &f))) break;
    size_t wbad = 0;
    for (size_t i = 0; i < info.words; ++i) wbad += w[i] != wref[i];
    const int counts_ok = sk == cref[0] && vi == cref[1];
    char title[160];
    snprintf(title, sizeof title, "  call %d: skipped %llu of %llu tiles (%.4f)", step,
             (unsigned long long)sk, (unsigned long long)vi, f);
    attngen__compare_print(stdout, title, &vr.out);
    attngen__compare_lse_print(stdout, &vr.lse);
    printf("  written list: %zu of %zu words differ from the reference's; counts %s "
           "(reference: %u skipped of %u)\n", wbad, info.words, counts_ok ? "equal" : "DIFFER",
           cref[0], cref[1]);
    pass &= vr.pass && wbad == 0 && counts_ok;
  }
  if (st)
    fprintf(stderr, "attngen check --skip: %s: %s\n", attngen_status_name(st),
            attngen_last_error());
  else
    printf("check: %s\n", pass ? "PASS" : "FAIL");
  attngen_skip_state_destroy(s);
  if (ctx) attngen_destroy(ctx);
  attngen__inputs_free(&in);
  free(r);
  free(w);
  free(wref);
  free(ms);
  free(md);
  return st || !pass ? 1 : 0;
}

static int check(const attngen__cli_args *args) {
  check_opts o;
  options_of(args, &o);
  const int hd = attngen__shape_head_dim(&o.shape);
  if (!attngen__head_dim_valid(hd))
    return attngen__cli_usage_error(args->cmd, "--head-dim %d is not supported (allowed: "
                                               ATTNGEN__HEAD_DIM_LIST ")", hd);
  if (attngen__cli_given(args, "--seqlens")) return check_packed(args, &o);
  if (attngen__cli_given(args, "--all")) {
    if (!strcmp(o.backend, "cpu"))
      return attngen__cli_usage_error(args->cmd, "--all checks kernel variants; backend 'cpu' "
                                                 "has none (choose --backend emu, hip or cuda)");
    return check_all(&o);
  }
  if (!attngen__cli_given(args, "--shape"))
    return attngen__cli_usage_error(args->cmd, "--shape B,H,Sq,Skv is required (or --all), "
                                    "or --seqlens for a packed batch");
  char what[48];
  snprintf(what, sizeof what, "the %d heads of --shape", o.shape.heads);
  if (attngen__cli_check_heads_kv(args->cmd, o.shape.heads_kv, o.shape.heads, what)) return 2;
  if (o.inputs == ATTNGEN__INPUT_LARGE && o.scale == 0.0f)
    return attngen__cli_usage_error(args->cmd, "--inputs large sets the scores' size through "
                                               "--scale: it needs a nonzero --scale");
  if (attngen__cli_given(args, "--skip")) return check_skip(args, &o);
  return check_one(&o, stdout);
}
