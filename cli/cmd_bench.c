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
#include "cli_util.h"
#include "verify.h"

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

#define MAX_SHAPES 64

static void usage(FILE *f) {
  fprintf(f,
          "usage: attngen bench [--shapes sweep|video|short|all | --shape B,H,Sq,Skv ...]\n"
          "                     [--layout " ATTNGEN__LAYOUT_CHOICES "] [--round " ATTNGEN__ROUNDING_CHOICES
          "] [--backend NAME]\n"
          "                     [--device N] [--variant NAME] [--iters N]\n\n"
          "Times attngen on the benchmark shapes of docs/SHAPES.md (default: short) or the given\n"
          "shapes: per shape the variant the dispatcher picks (or --variant) and why, one\n"
          "warm-up call (loads or JIT-compiles the variant), then --iters calls (default 20)\n"
          "between device events; prints ms and TFLOP/s (4*B*H*Sq*Skv*128 / time). Inputs are\n"
          "random (never zeros). For peers (PyTorch SDPA backends) and the GEMM ceiling use\n"
          "bench/bench.py.\n\n"
          "Exit status: 0 ok, 1 a shape failed, 2 usage error.\n");
}

static int usage_error(const char *msg, const char *arg) {
  fprintf(stderr, "attngen bench: %s%s%s\n\n(attngen bench --help for usage)\n", msg,
          arg ? ": " : "", arg ? arg : "");
  return 2;
}

static int add_group(const char *name, attngen__call_shape *out, int *n) {
  const attngen__call_shape *g[3] = {sweep_shapes, video_shapes, short_shapes};
  const int gn[3] = {9, 6, 3};
  const char *names[3] = {"sweep", "video", "short"};
  int any = 0;
  for (int i = 0; i < 3; i++) {
    if (strcmp(name, "all") != 0 && strcmp(name, names[i]) != 0) continue;
    for (int j = 0; j < gn[i] && *n < MAX_SHAPES; j++) out[(*n)++] = g[i][j];
    any = 1;
  }
  return any ? 0 : -1;
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
    attngen__cli_fill(host, layout, s->batch, s->heads, lens[i], &r);
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

int attngen__cmd_bench(int argc, char **argv) {
  attngen__call_shape shapes[MAX_SHAPES];
  int nshapes = 0, iters = 20;
  attngen_layout layout = ATTNGEN_LAYOUT_BSHD;
  attngen_rounding rounding = ATTNGEN_ROUND_RTNE;
  attngen_context_options opts = {NULL, 0};
  const char *variant = NULL;
  for (int i = 1; i < argc; i++) {
    const char *o = argv[i];
    const char *val = i + 1 < argc ? argv[i + 1] : NULL;
    if (strcmp(o, "--help") == 0 || strcmp(o, "-h") == 0) {
      usage(stdout);
      return 0;
    }
    if (strncmp(o, "--", 2) != 0) return usage_error("unexpected argument", o);
    if (!val) return usage_error("option needs a value", o);
    i++;
    if (strcmp(o, "--shapes") == 0) {
      if (add_group(val, shapes, &nshapes) != 0)
        return usage_error("--shapes must be sweep, video, short or all, not", val);
    } else if (strcmp(o, "--shape") == 0) {
      if (nshapes >= MAX_SHAPES) return usage_error("too many shapes", val);
      attngen__call_shape *sh = &shapes[nshapes];
      *sh = (attngen__call_shape){0};
      if (!attngen__cli_parse_shape(val, &sh->batch, &sh->heads, &sh->seqlen_q, &sh->seqlen_kv))
        return usage_error("--shape must be B,H,Sq,Skv (or B,H,S) with B, H, Sq >= 1 and Skv >= 0, each <= 2^24, not", val);
      nshapes++;
    } else if (strcmp(o, "--layout") == 0) {
      if (!attngen__layout_from_name(val, &layout))
        return usage_error("--layout must be one of " ATTNGEN__LAYOUT_LIST ", not", val);
    } else if (strcmp(o, "--round") == 0) {
      if (!attngen__rounding_from_name(val, &rounding))
        return usage_error("--round must be one of " ATTNGEN__ROUNDING_LIST ", not", val);
    } else if (strcmp(o, "--backend") == 0) {
      if (!attngen__backend_name_ok(val)) {
        char m[192];
        snprintf(m, sizeof m, "--backend allows %s; not", attngen__backend_names());
        return usage_error(m, val);
      }
      opts.backend = val;
    } else if (strcmp(o, "--device") == 0) {
      long d;
      if (!attngen__cli_parse_long(val, 0, 1024, &d))
        return usage_error("--device must be 0..1024, not", val);
      opts.device = (int)d;
    } else if (strcmp(o, "--variant") == 0) {
      variant = val;
    } else if (strcmp(o, "--iters") == 0) {
      long n;
      if (!attngen__cli_parse_long(val, 1, 100000, &n))
        return usage_error("--iters must be 1..100000, not", val);
      iters = (int)n;
    } else {
      return usage_error("unknown option", o);
    }
  }
  if (nshapes == 0) add_group("short", shapes, &nshapes);
  attngen_context *ctx = NULL;
  attngen_status st = attngen_create(&ctx, &opts);
  if (st) {
    fprintf(stderr, "attngen bench: %s: %s\n", attngen_status_name(st), attngen_last_error());
    return 1;
  }
  attngen_device_props props;
  if (attngen_device_info(ctx, &props) == ATTNGEN_STATUS_OK)
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
