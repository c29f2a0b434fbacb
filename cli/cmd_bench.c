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

/* docs/SHAPES.md */
static const attngen__call_shape sweep_shapes[] = {
    {2, 24, 8192, 8192},   {2, 24, 16384, 16384}, {1, 32, 16384, 16384},
    {4, 16, 16384, 16384}, {1, 64, 16384, 16384}, {2, 24, 32768, 32768},
    {2, 16, 65536, 65536}, {2, 8, 86016, 86016},  {1, 16, 131072, 131072}};
static const attngen__call_shape video_shapes[] = {{1, 12, 32760, 32760}, {1, 40, 75600, 75600},
                                                   {2, 40, 32760, 32760}, {1, 12, 32760, 512},
                                                   {1, 40, 75600, 512},   {2, 40, 32760, 257}};
static const attngen__call_shape short_shapes[] = {
    {32, 16, 512, 512}, {16, 16, 1024, 1024}, {8, 16, 2048, 2048}};
static const attngen__call_shape fewhead_shapes[] = {
    {1, 3, 32760, 32760}, {1, 4, 4608, 4608}, {2, 5, 75600, 75600}};

#define MAX_SHAPES 64

static const char *const group_names[] = {"sweep", "video", "short", "fewhead"};

static const attngen__cli_option options[] = {
    {"--shapes", ATTNGEN__CLI_CHOICE, "GROUP",
     "a group of docs/SHAPES.md (default: short; all = every group)", .choices = group_names,
     .nchoices = 4, .extra = "all", .repeat = 1},
    {"--shape", ATTNGEN__CLI_SHAPE, "B,H,Sq,Skv", "a shape (after the groups' shapes)",
     .repeat = 1},
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
    "between device events; prints ms and TFLOP/s (4*B*H*Sq*Skv*128 / time). Inputs are\n"
    "random (never zeros). For peers (PyTorch SDPA backends) and the GEMM ceiling use\n"
    "bench/bench.py.\n",
    options, NULL, NULL, 0, 0, "0 ok, 1 a shape failed or no GPU backend (auto)", bench};

/* Appends the shapes of group `name` (group_names[] or "all"). */
static void add_group(const char *name, attngen__call_shape *out, int *n) {
  const attngen__call_shape *g[4] = {sweep_shapes, video_shapes, short_shapes, fewhead_shapes};
  const int gn[4] = {9, 6, 3, 3};
  for (int i = 0; i < 4; i++) {
    if (strcmp(name, "all") != 0 && strcmp(name, group_names[i]) != 0) continue;
    for (int j = 0; j < gn[i] && *n < MAX_SHAPES; j++) out[(*n)++] = g[i][j];
  }
}

/* Times one shape; prints its row. Returns 0 or 1 (failure, message printed). */
static int bench_one(attngen_context *ctx, const attngen__call_shape *s, attngen_layout layout,
                     attngen_rounding rounding, const char *variant, int iters) {
  const size_t nq = (size_t)s->batch * s->heads * s->seqlen_q * 128,
               nkv = (size_t)s->batch * s->heads * s->seqlen_kv * 128;
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
  for (int i = 0; i < 3 && !st; i++) {
    attngen__cli_fill(host, layout, s->batch, s->heads, lens[i], 128, &r);
    if (lens[i])
      st = attngen_memcpy_htod(ctx, fills[i], host, (size_t)s->batch * s->heads * lens[i] * 256);
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
  a.variant = variant;
  attngen_choice choice;
  memset(&choice, 0, sizeof choice);
  if (!st) st = attngen_explain(ctx, &a, &choice);
  float ms = 0.0f;
  if (!st) st = attngen_time_fwd(ctx, &a, iters, &ms);
  int rc = 0;
  char shape[64];
  snprintf(shape, sizeof shape, "%d,%d,%d,%d", s->batch, s->heads, s->seqlen_q, s->seqlen_kv);
  if (st) {
    printf("%-22s FAILED: %s: %s\n", shape, attngen_status_name(st), attngen_last_error());
    rc = 1;
  } else {
    const double flops =
        4.0 * s->batch * s->heads * (double)s->seqlen_q * (double)s->seqlen_kv * 128.0;
    printf("%-22s %10.4f %9.1f  %s (%s)\n", shape, ms, ms > 0 ? flops / (ms * 1e-3) / 1e12 : 0.0,
           choice.variant, choice.rule_name);
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
  attngen__call_shape shapes[MAX_SHAPES];
  int nshapes = 0;
  const int iters = (int)attngen__cli_int(args, "--iters", 20);
  const attngen_layout layout =
      (attngen_layout)attngen__cli_choice(args, "--layout", ATTNGEN_LAYOUT_BSHD);
  const attngen_rounding rounding =
      (attngen_rounding)attngen__cli_choice(args, "--round", ATTNGEN_ROUND_RTNE);
  attngen_context_options opts = {attngen__cli_text(args, "--backend", NULL),
                                  (int)attngen__cli_int(args, "--device", 0)};
  const char *variant = attngen__cli_text(args, "--variant", NULL);
  const attngen__cli_value *groups = attngen__cli_get(args, "--shapes");
  const attngen__cli_value *given = attngen__cli_get(args, "--shape");
  for (int i = 0; i < groups->given; i++) add_group(groups->all[i], shapes, &nshapes);
  for (int i = 0; i < given->given; i++) {
    if (nshapes == MAX_SHAPES)
      return attngen__cli_usage_error(args->cmd, "more than %d shapes", MAX_SHAPES);
    char why[320];
    if (!attngen__cli_parse_shape(given->all[i], &shapes[nshapes], why, sizeof why))
      return attngen__cli_usage_error(args->cmd, "--shape '%s': %s", given->all[i], why);
    nshapes++;
  }
  if (nshapes == 0) add_group("short", shapes, &nshapes);
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
  printf("%-22s %10s %9s  %s\n", "shape B,H,Sq,Skv", "ms", "TFLOP/s", "variant (rule)");
  int failed = 0;
  for (int i = 0; i < nshapes; i++) failed += bench_one(ctx, &shapes[i], layout, rounding, variant, iters);
  attngen_destroy(ctx);
  printf("attngen bench: %d shape(s), %d failed\n", nshapes, failed);
  return failed ? 1 : 0;
}
