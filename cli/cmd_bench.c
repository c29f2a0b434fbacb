/* cmd_bench.c: `attngen bench` — times the variant the dispatcher picks (or a forced one)
 * on the benchmark shapes of docs/SHAPES.md or on given shapes, and prints TFLOP/s per shape.
 * attngen alone, from C with no Python: bench/bench.py adds the PyTorch peers and the GEMM
 * ceiling for reported comparisons. */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attngen.h"
#include "cli.h"

/* docs/SHAPES.md. A shape of a group: B, H, Sq, Skv (layout and rounding from the options),
 * heads_kv (0 = H) and head_dim (0 = 128) as in call_shape.h, and the mask. */
typedef struct bench_shape {
  attngen__call_shape s;
  int causal;
} bench_shape;

#define DENSE(b, h, sq, skv) {{b, h, sq, skv}, 0}
#define KIND(b, h, sq, skv, hkv, d, causal) {{b, h, sq, skv, 0, 0, hkv, d}, causal}

static const bench_shape sweep_shapes[] = {
    DENSE(2, 24, 8192, 8192),   DENSE(2, 24, 16384, 16384), DENSE(1, 32, 16384, 16384),
    DENSE(4, 16, 16384, 16384), DENSE(1, 64, 16384, 16384), DENSE(2, 24, 32768, 32768),
    DENSE(2, 16, 65536, 65536), DENSE(2, 8, 86016, 86016),  DENSE(1, 16, 131072, 131072)};
static const bench_shape video_shapes[] = {
    DENSE(1, 12, 32760, 32760), DENSE(1, 40, 75600, 75600), DENSE(2, 40, 32760, 32760),
    DENSE(1, 12, 32760, 512),   DENSE(1, 40, 75600, 512),   DENSE(2, 40, 32760, 257)};
static const bench_shape short_shapes[] = {
    DENSE(32, 16, 512, 512), DENSE(16, 16, 1024, 1024), DENSE(8, 16, 2048, 2048)};
static const bench_shape fewhead_shapes[] = {
    DENSE(1, 3, 32760, 32760), DENSE(1, 4, 4608, 4608), DENSE(2, 5, 75600, 75600)};

/* LLM prefill, causal: MHA, Llama-style GQA (8 KV heads), MQA */
static const bench_shape prefill_shapes[] = {KIND(4, 32, 4096, 4096, 0, 0, 1),
                                             KIND(1, 32, 8192, 8192, 8, 0, 1),
                                             KIND(1, 64, 16384, 16384, 1, 0, 1)};
/* head_dim 64: SD3 1024px joint attention, an LLM set, a video length */
static const bench_shape hd64_shapes[] = {
    KIND(2, 24, 4429, 4429, 0, 64, 0),   KIND(4, 16, 4096, 4096, 0, 64, 0),
    KIND(1, 16, 16384, 16384, 0, 64, 0), KIND(16, 12, 1024, 1024, 0, 64, 0),
    KIND(1, 24, 32760, 32760, 0, 64, 0)};
/* head_dim 256 (Gemma-style): prefill lengths, grouped-query with 8 KV heads */
static const bench_shape hd256_shapes[] = {KIND(1, 16, 8192, 8192, 0, 256, 0),
                                           KIND(4, 8, 4096, 4096, 0, 256, 0),
                                           KIND(1, 16, 16384, 16384, 8, 256, 0)};

#define MAX_SHAPES 64

#define NGROUPS 7
static const char *const group_names[NGROUPS] = {"sweep", "video", "short", "fewhead",
                                                 "prefill", "hd64", "hd256"};

static const attngen__cli_option options[] = {
    {"--shapes", ATTNGEN__CLI_CHOICE, "GROUP",
     "a group of docs/SHAPES.md (default: short; all = every group); prefill\n"
     "is causal with its KV heads, hd64 / hd256 at their head dims",
     .choices = group_names, .nchoices = NGROUPS, .extra = "all", .repeat = 1},
    {"--shape", ATTNGEN__CLI_SHAPE, "B,H,Sq,Skv", "a shape (after the groups' shapes)",
     .repeat = 1},
    {"--head-dim", ATTNGEN__CLI_INT, "D",
     "elements per row of the --shape calls (args.head_dim; default 128;\n"
     "allowed " ATTNGEN__HEAD_DIM_LIST ")", 1, 65535},
    {"--heads-kv", ATTNGEN__CLI_INT, "N",
     "KV heads of the --shape calls (args.heads_kv; default: their heads;\n"
     "must divide them, 1 = MQA)", 1, 65535},
    {"--causal", ATTNGEN__CLI_FLAG, NULL,
     "the causal mask on every shape (args.causal = 1; the prefill group\n"
     "is causal anyway)"},
    {"--layout", ATTNGEN__CLI_CHOICE, "L", "tensor layout (default " ATTNGEN__LAYOUT_BSHD_NAME ")",
     .choices = attngen__layout_names, .nchoices = ATTNGEN__LAYOUT_COUNT},
    {"--round", ATTNGEN__CLI_CHOICE, "R",
     "bf16 rounding of P and O (default " ATTNGEN__ROUNDING_RTNE_NAME ")",
     .choices = attngen__rounding_names, .nchoices = ATTNGEN__ROUNDING_COUNT},
    {"--backend", ATTNGEN__CLI_BACKEND, "NAME",
     "runtime backend (default auto, or ATTNGEN_BACKEND); auto refuses the\n"
     "host backends (the benchmark shapes take hours on cpu or emu): name one to time there"},
    {"--device", ATTNGEN__CLI_INT, "N", "device ordinal (default 0)", 0, 1024},
    {"--variant", ATTNGEN__CLI_TEXT, "NAME", "force a variant", .max_len = 255},
    {"--iters", ATTNGEN__CLI_INT, "N", "timed calls per shape (default 20)", 1, 100000},
    {NULL}};

static int bench(const attngen__cli_args *args);

const attngen__cli_command attngen__cli_cmd_bench = {
    "bench", "benchmark variants on a device", "[--shapes GROUP | --shape B,H,Sq,Skv ...] [options]",
    "Times attngen on the benchmark shapes of docs/SHAPES.md (default: short) or the given\n"
    "shapes: per shape the variant the dispatcher picks (or --variant) and why, one\n"
    "warm-up call (loads or JIT-compiles the variant), then --iters calls (default 20)\n"
    "between device events; prints ms and TFLOP/s (4*B*H*pairs*D / time: pairs = Sq*Skv,\n"
    "or the (query, key) pairs the causal mask keeps). Inputs are random (never zeros).\n"
    "For peers (PyTorch SDPA backends, FlashAttention-3), the GEMM ceiling and the packed\n"
    "varlen and key-padding shapes use bench/bench.py.\n",
    options, NULL, NULL, 0, 0, "0 ok, 1 a shape failed or no GPU backend (auto)", bench};

#define COUNT(a) ((int)(sizeof(a) / sizeof((a)[0])))

/* Appends the shapes of group `name` (group_names[] or "all"). */
static void add_group(const char *name, bench_shape *out, int *n) {
  const bench_shape *g[NGROUPS] = {sweep_shapes,   video_shapes, short_shapes, fewhead_shapes,
                                   prefill_shapes, hd64_shapes,  hd256_shapes};
  const int gn[NGROUPS] = {COUNT(sweep_shapes),   COUNT(video_shapes), COUNT(short_shapes),
                           COUNT(fewhead_shapes), COUNT(prefill_shapes), COUNT(hd64_shapes),
                           COUNT(hd256_shapes)};
  for (int i = 0; i < NGROUPS; i++) {
    if (strcmp(name, "all") != 0 && strcmp(name, group_names[i]) != 0) continue;
    for (int j = 0; j < gn[i] && *n < MAX_SHAPES; j++) out[(*n)++] = g[i][j];
  }
}

/* Times one shape; prints its row. Returns 0 or 1 (failure, message printed). */
static int bench_one(attngen_context *ctx, const bench_shape *bs, attngen_layout layout,
                     attngen_rounding rounding, const char *variant, int iters) {
  const attngen__call_shape *s = &bs->s;
  const int D = attngen__shape_head_dim(s), hkv = attngen__shape_heads_kv(s);
  const size_t nq = (size_t)s->batch * s->heads * s->seqlen_q * D,
               nkv = (size_t)s->batch * hkv * s->seqlen_kv * D;
  const size_t nmax = nq > nkv ? nq : nkv;
  uint16_t *host = malloc((nmax ? nmax : 1) * sizeof(uint16_t));
  void *q = NULL, *k = NULL, *v = NULL, *o = NULL;
  attngen_status st = host ? ATTNGEN_STATUS_OK : ATTNGEN_STATUS_OUT_OF_MEMORY;
  if (!st) st = attngen_malloc(ctx, nq * 2, &q);
  if (!st) st = attngen_malloc(ctx, nkv ? nkv * 2 : 16, &k);
  if (!st) st = attngen_malloc(ctx, nkv ? nkv * 2 : 16, &v);
  if (!st) st = attngen_malloc(ctx, nq * 2, &o);
  attngen__rng r;
  attngen__rng_seed(&r, 0x5EEDu);
  void *fills[3] = {q, k, v};
  const int lens[3] = {s->seqlen_q, s->seqlen_kv, s->seqlen_kv};
  const int heads[3] = {s->heads, hkv, hkv};
  for (int i = 0; i < 3 && !st; i++) {
    attngen__cli_fill(host, layout, s->batch, heads[i], lens[i], D, &r);
    if (lens[i])
      st = attngen_memcpy_htod(ctx, fills[i], host,
                               (size_t)s->batch * heads[i] * lens[i] * D * sizeof(uint16_t));
  }
  attngen_fwd_args a;
  attngen_fwd_args_init(&a);
  a.q = q;
  a.k = k;
  a.v = v;
  a.out = o;
  attngen__call_shape call = *s; /* the shape tables leave layout and rounding unset */
  call.layout = (int)layout;
  call.rounding = (int)rounding;
  attngen__call_shape_to_args(&call, &a);
  a.causal = bs->causal;
  a.softmax_scale = attngen__default_scale(D);
  a.variant = variant;
  attngen_choice choice;
  memset(&choice, 0, sizeof choice);
  if (!st) st = attngen_explain(ctx, &a, &choice);
  float ms = 0.0f;
  if (!st) st = attngen_time_fwd(ctx, &a, iters, &ms);
  int rc = 0;
  char shape[64], kind[48];
  snprintf(shape, sizeof shape, "%d,%d,%d,%d", s->batch, s->heads, s->seqlen_q, s->seqlen_kv);
  snprintf(kind, sizeof kind, "%d %s %d", D, bs->causal ? "causal" : "none", hkv);
  if (st) {
    printf("%-22s %-15s FAILED: %s: %s\n", shape, kind, attngen_status_name(st),
           attngen_last_error());
    rc = 1;
  } else {
    const double flops = attngen__cli_flops(s, bs->causal);
    printf("%-22s %-15s %10.4f %9.1f  %s (%s)\n", shape, kind, ms,
           ms > 0 ? flops / (ms * 1e-3) / 1e12 : 0.0, choice.variant, choice.rule_name);
  }
  fflush(stdout);
  attngen_free(ctx, q);
  attngen_free(ctx, k);
  attngen_free(ctx, v);
  attngen_free(ctx, o);
  free(host);
  return rc;
}

static int bench(const attngen__cli_args *args) {
  bench_shape shapes[MAX_SHAPES];
  int nshapes = 0;
  const int iters = (int)attngen__cli_int(args, "--iters", 20);
  const attngen_layout layout =
      (attngen_layout)attngen__cli_choice(args, "--layout", ATTNGEN_LAYOUT_BSHD);
  const attngen_rounding rounding =
      (attngen_rounding)attngen__cli_choice(args, "--round", ATTNGEN_ROUND_RTNE);
  attngen_context_options opts = {attngen__cli_text(args, "--backend", NULL),
                                  (int)attngen__cli_int(args, "--device", 0)};
  const char *variant = attngen__cli_text(args, "--variant", NULL);
  const int head_dim = (int)attngen__cli_int(args, "--head-dim", 128);
  if (!attngen__head_dim_valid(head_dim))
    return attngen__cli_usage_error(args->cmd, "--head-dim %d is not supported (allowed: "
                                               ATTNGEN__HEAD_DIM_LIST ")", head_dim);
  const attngen__cli_value *groups = attngen__cli_get(args, "--shapes");
  const attngen__cli_value *given = attngen__cli_get(args, "--shape");
  for (int i = 0; i < groups->given; i++) add_group(groups->all[i], shapes, &nshapes);
  for (int i = 0; i < given->given; i++) {
    if (nshapes == MAX_SHAPES)
      return attngen__cli_usage_error(args->cmd, "more than %d shapes", MAX_SHAPES);
    char why[320];
    attngen__call_shape *s = &shapes[nshapes].s;
    memset(&shapes[nshapes], 0, sizeof shapes[nshapes]);
    if (!attngen__cli_parse_shape(given->all[i], s, why, sizeof why))
      return attngen__cli_usage_error(args->cmd, "--shape '%s': %s", given->all[i], why);
    const int hkv = (int)attngen__cli_int(args, "--heads-kv", 0);
    char what[96];
    snprintf(what, sizeof what, "the %d heads of --shape %s", s->heads, given->all[i]);
    if (attngen__cli_check_heads_kv(args->cmd, hkv, s->heads, what)) return 2;
    s->heads_kv = hkv == s->heads ? 0 : hkv; /* canonical (call_shape.h) */
    s->head_dim = head_dim == 128 ? 0 : head_dim;
    nshapes++;
  }
  if (nshapes == 0) add_group("short", shapes, &nshapes);
  if (attngen__cli_given(args, "--causal"))
    for (int i = 0; i < nshapes; i++) shapes[i].causal = 1;
  attngen_context *ctx = NULL;
  attngen_status st = attngen_create(&ctx, &opts);
  if (st) {
    fprintf(stderr, "attngen bench: %s: %s\n", attngen_status_name(st), attngen_last_error());
    return 1;
  }
  attngen_device_props props;
  st = attngen_device_info(ctx, &props);
  const char *env_backend = getenv("ATTNGEN_BACKEND");
  const int named = opts.backend || (env_backend && *env_backend && strcmp(env_backend, "auto"));
  if (st == ATTNGEN_STATUS_OK && !named &&
      (!strcmp(props.backend, attngen__backend_cpu.name) ||
       !strcmp(props.backend, attngen__backend_emu.name))) {
    fprintf(stderr,
            "attngen bench: no GPU backend: auto chose %s, where the benchmark shapes take\n"
            "hours; name it to time there anyway (--backend %s), or run on a GPU machine\n",
            props.backend, props.backend);
    attngen_destroy(ctx);
    return 1;
  }
  if (st == ATTNGEN_STATUS_OK)
    printf("attngen bench: %s %d: %s (%s, %d compute units), %s %s, %d timed calls per shape\n",
           props.backend, props.device, props.name, props.arch, props.compute_units,
           attngen__layout_name(layout), attngen__rounding_name(rounding), iters);
  printf("%-22s %-15s %10s %9s  %s\n", "shape B,H,Sq,Skv", "D mask H_kv", "ms", "TFLOP/s",
         "variant (rule)");
  int failed = 0;
  for (int i = 0; i < nshapes; i++) failed += bench_one(ctx, &shapes[i], layout, rounding, variant, iters);
  attngen_destroy(ctx);
  printf("attngen bench: %d shape(s), %d failed\n", nshapes, failed);
  return failed ? 1 : 0;
}
