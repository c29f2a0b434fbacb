/* cmd_run.c: `attngen run` — one attention call on random inputs: shows the variant the
 * dispatcher picks and why, runs it once as a warm-up (loading or JIT-compiling it), then
 * times it with device events (host clock on cpu/emu). */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attngen.h"
#include "cli.h"

static const attngen__cli_option options[] = {
    {"--shape", ATTNGEN__CLI_SHAPE, "B,H,Sq,Skv",
     "batch, heads, query and key/value lengths (B,H,S: Skv = Sq)", .required = 1},
    {"--head-dim", ATTNGEN__CLI_INT, "D",
     "elements per row of q, k, v (args.head_dim; default 128; allowed 64, 128, 256)", 1,
     65535},
    {"--layout", ATTNGEN__CLI_CHOICE, "L", "tensor layout (default " ATTNGEN__LAYOUT_BSHD_NAME ")",
     .choices = attngen__layout_names, .nchoices = ATTNGEN__LAYOUT_COUNT},
    {"--round", ATTNGEN__CLI_CHOICE, "R",
     "bf16 rounding of P and O (default " ATTNGEN__ROUNDING_RTNE_NAME ")",
     .choices = attngen__rounding_names, .nchoices = ATTNGEN__ROUNDING_COUNT},
    {"--backend", ATTNGEN__CLI_BACKEND, "NAME", "runtime backend (default auto)"},
    {"--device", ATTNGEN__CLI_INT, "N", "device ordinal (default 0)", 0, 1024},
    {"--variant", ATTNGEN__CLI_TEXT, "NAME", "force a variant (JIT-compiled when not embedded)",
     .max_len = 255},
    {"--iters", ATTNGEN__CLI_INT, "N", "timed calls after the warm-up (default 1)", 1, 1000000},
    {"--scale", ATTNGEN__CLI_REAL, "X",
     "softmax scale (default 1/sqrt(head_dim); any finite float)",
     ATTNGEN__CLI_SCALE_RANGE},
    {"--heads-kv", ATTNGEN__CLI_INT, "N",
     "KV heads of a grouped-query call (args.heads_kv; default: the heads\n"
     "of --shape; must divide them, 1 = MQA)", 1, 65535},
    {"--causal", ATTNGEN__CLI_FLAG, NULL,
     "the causal mask (bottom-right aligned; args.causal = 1); TFLOP/s then\n"
     "count the (query, key) pairs the mask keeps"},
    {"--kv-lengths", ATTNGEN__CLI_TEXT, "N,N,...",
     "key lengths per batch entry (args.kv_lengths: entry b uses keys\n"
     "[0, N_b), clamped into [0, Skv] as the kernels do; B values; under\n"
     "--causal N_b is the entry's key count for the alignment); TFLOP/s then\n"
     "count the pairs those keys make", .max_len = 4095},
    {"--lse", ATTNGEN__CLI_FLAG, NULL, "also write the log-sum-exp"},
    {"--seed", ATTNGEN__CLI_INT, "N", "input seed (default 1)", 0, 2147483647},
    {NULL}};

static int run(const attngen__cli_args *args);

const attngen__cli_command attngen__cli_cmd_run = {
    "run", "run one attention call with random inputs and time it",
    "--shape B,H,Sq,Skv [options]",
    "One call on random inputs: the variant the dispatcher picks and why, one warm-up call\n"
    "(loads or JIT-compiles it), then --iters timed calls.\n",
    options, NULL, NULL, 0, 0,
    "0 ok, 1 failure (no backend, no variant, launch error)", run};

static int run(const attngen__cli_args *args) {
  attngen_fwd_args a;
  attngen_fwd_args_init(&a);
  attngen__call_shape_to_args(&attngen__cli_get(args, "--shape")->shape, &a);
  a.layout = (attngen_layout)attngen__cli_choice(args, "--layout", ATTNGEN_LAYOUT_BSHD);
  a.rounding = (attngen_rounding)attngen__cli_choice(args, "--round", ATTNGEN_ROUND_RTNE);
  a.variant = attngen__cli_text(args, "--variant", NULL);
  a.head_dim = (int)attngen__cli_int(args, "--head-dim", 128);
  if (!attngen__head_dim_valid(a.head_dim))
    return attngen__cli_usage_error(args->cmd, "--head-dim %d is not supported (allowed: "
                                               ATTNGEN__HEAD_DIM_LIST ")", a.head_dim);
  a.softmax_scale = (float)attngen__cli_real(args, "--scale", 1.0 / sqrt((double)a.head_dim));
  a.causal = attngen__cli_given(args, "--causal");
  const int hkv = (int)attngen__cli_int(args, "--heads-kv", a.heads);
  char what[48];
  snprintf(what, sizeof what, "the %d heads of --shape", a.heads);
  if (attngen__cli_check_heads_kv(args->cmd, hkv, a.heads, what)) return 2;
  a.heads_kv = hkv == a.heads ? 0 : hkv;
  int32_t *kvl = NULL;
  int nkvl = 0;
  if (attngen__cli_given(args, "--kv-lengths")) {
    kvl = malloc(sizeof(int32_t) * (size_t)a.batch);
    if (!kvl) return 1;
    nkvl = attngen__cli_int_list(args, "--kv-lengths", kvl, a.batch, INT32_MIN);
    if (nkvl < 0) {
      free(kvl);
      return 2;
    }
    if (nkvl != a.batch) {
      free(kvl);
      return attngen__cli_usage_error(args->cmd, "--kv-lengths gives %d values (allowed: one "
                                      "per batch entry, B = %d)", nkvl, a.batch);
    }
  }
  attngen_context_options o = {attngen__cli_text(args, "--backend", NULL),
                               (int)attngen__cli_int(args, "--device", 0)};
  const long iters = attngen__cli_int(args, "--iters", 1);
  const long seed = attngen__cli_int(args, "--seed", 1);
  const int want_lse = attngen__cli_given(args, "--lse");
  attngen_context *ctx = NULL;
  if (attngen_create(&ctx, &o) != ATTNGEN_STATUS_OK) {
    fprintf(stderr, "attngen run: %s\n", attngen_last_error());
    free(kvl);
    return 1;
  }
  int rc = 1;
  attngen_device_props p;
  attngen_device_info(ctx, &p);
  printf("device:   %s %d: %s (%s, %d compute units)\n", p.backend, p.device, p.name, p.arch,
         p.compute_units);
  printf("shape:    B=%d H=%d Sq=%d Skv=%d D=%d %s %s scale=%g", a.batch, a.heads,
         a.seqlen_q, a.seqlen_kv, a.head_dim, attngen__layout_name(a.layout), attngen__rounding_name(a.rounding),
         (double)a.softmax_scale);
  if (a.heads_kv) printf(" heads_kv=%d", a.heads_kv);
  printf("%s", a.causal ? " causal" : "");
  if (kvl) {
    printf(" kv_lengths=");
    for (int b = 0; b < nkvl && b < 8; b++) printf("%s%d", b ? "," : "", (int)kvl[b]);
    if (nkvl > 8) printf(",... (%d)", nkvl);
  }
  printf("\n");
  /* the lengths in the backend's memory (attngen_malloc: host memory on cpu and emu) */
  void *dkvl = NULL;
  if (kvl) {
    attngen_status kst = ATTNGEN_STATUS_OK;
    if ((kst = attngen_malloc(ctx, sizeof(int32_t) * (size_t)nkvl, &dkvl)) ||
        (kst = attngen_memcpy_htod(ctx, dkvl, kvl, sizeof(int32_t) * (size_t)nkvl))) {
      fprintf(stderr, "attngen run: kv_lengths: %s: %s\n", attngen_status_name(kst),
              attngen_last_error());
      attngen_free(ctx, dkvl);
      attngen_destroy(ctx);
      free(kvl);
      return 1;
    } else {
      a.kv_lengths = dkvl;
    }
  }
  attngen_choice ch;
  if (attngen_explain(ctx, &a, &ch) != ATTNGEN_STATUS_OK) {
    fprintf(stderr, "attngen run: %s\n", attngen_last_error());
    attngen_destroy(ctx);
    return 1;
  }
  printf("variant:  %s (%s)\n", ch.variant,
         ch.embedded ? "embedded" : ch.needs_jit ? "JIT-compiled at first use" : "not embedded");
  printf("rule:     %s: %s\n", ch.rule_name, ch.reason);
  if (ch.threads)
    printf("launch:   grid (%u, %u, %u) x %d threads, %d bytes shared memory, %d KV split(s)\n",
           ch.grid[0], ch.grid[1], ch.grid[2], ch.threads, ch.smem_bytes, ch.num_splits);

  size_t nq = (size_t)a.batch * a.heads * a.seqlen_q * a.head_dim;
  size_t nkv = (size_t)a.batch * hkv * a.seqlen_kv * a.head_dim;
  size_t nl = (size_t)a.batch * a.heads * a.seqlen_q;
  uint16_t *hq = malloc(nq * 2), *hk = malloc(nkv * 2 + 2), *hv = malloc(nkv * 2 + 2);
  uint16_t *ho = malloc(nq * 2);
  void *dq = NULL, *dk = NULL, *dv = NULL, *dout = NULL, *dl = NULL;
  attngen_status st = ATTNGEN_STATUS_OUT_OF_MEMORY;
  if (hq && hk && hv && ho) {
    attngen__rng r;
    attngen__rng_seed(&r, (uint64_t)seed);
    attngen__cli_fill(hq, a.layout, a.batch, a.heads, a.seqlen_q, a.head_dim, &r);
    attngen__cli_fill(hk, a.layout, a.batch, hkv, a.seqlen_kv, a.head_dim, &r);
    attngen__cli_fill(hv, a.layout, a.batch, hkv, a.seqlen_kv, a.head_dim, &r);
    st = attngen_malloc(ctx, nq * 2, &dq);
    if (!st) st = attngen_malloc(ctx, nkv * 2 + 16, &dk);
    if (!st) st = attngen_malloc(ctx, nkv * 2 + 16, &dv);
    if (!st) st = attngen_malloc(ctx, nq * 2, &dout);
    if (!st && want_lse) st = attngen_malloc(ctx, nl * 4, &dl);
    if (!st) st = attngen_memcpy_htod(ctx, dq, hq, nq * 2);
    if (!st) st = attngen_memcpy_htod(ctx, dk, hk, nkv * 2);
    if (!st) st = attngen_memcpy_htod(ctx, dv, hv, nkv * 2);
  }
  float ms = 0;
  if (!st) {
    a.q = dq;
    a.k = dk;
    a.v = dv;
    a.out = dout;
    a.lse = dl;
    st = attngen_time_fwd(ctx, &a, (int)iters, &ms);
  }
  if (!st) st = attngen_memcpy_dtoh(ctx, ho, dout, nq * 2);
  if (st) {
    fprintf(stderr, "attngen run: %s: %s\n", attngen_status_name(st), attngen_last_error());
  } else {
    size_t finite = 0;
    double sum = 0;
    for (size_t i = 0; i < nq; i++) {
      const float x = attngen_bf16_to_float(ho[i]);
      if (isfinite(x)) {
        finite++;
        sum += x;
      }
    }
    const attngen__call_shape cs = attngen__call_shape_of(&a);
    double flops = 0;
    if (!kvl) {
      flops = attngen__cli_flops(&cs, a.causal);
    } else { /* per entry over its own keys */
      attngen__call_shape one = cs;
      one.batch = 1;
      for (int b = 0; b < nkvl; b++) {
        one.seqlen_kv = kvl[b] < 0 ? 0 : kvl[b] > a.seqlen_kv ? a.seqlen_kv : kvl[b];
        flops += attngen__cli_flops(&one, a.causal);
      }
    }
    printf("time:     %.4f ms per call (mean of %ld after a warm-up), %.2f TFLOP/s\n", ms, iters,
           ms > 0 ? flops / (ms * 1e-3) / 1e12 : 0.0);
    printf("output:   %zu of %zu elements finite, sum %.6g\n", finite, nq, sum);
    rc = 0;
  }
  attngen_free(ctx, dq);
  attngen_free(ctx, dk);
  attngen_free(ctx, dv);
  attngen_free(ctx, dout);
  attngen_free(ctx, dl);
  attngen_free(ctx, dkvl);
  free(kvl);
  free(hq);
  free(hk);
  free(hv);
  free(ho);
  attngen_destroy(ctx);
  return rc;
}
