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
#include "cli_util.h"
#include "verify.h"

static void usage(FILE *f) {
  fprintf(f,
          "usage: attngen run --shape B,H,Sq,Skv [options]\n\n"
          "  --shape B,H,Sq,Skv   batch, heads, query and key/value lengths (head_dim 128)\n"
          "  --layout " ATTNGEN__LAYOUT_CHOICES "   tensor layout (default " ATTNGEN__LAYOUT_BSHD_NAME ")\n"
          "  --round " ATTNGEN__ROUNDING_CHOICES "  bf16 rounding of P and O (default " ATTNGEN__ROUNDING_RTNE_NAME ")\n"
          "  --backend NAME       auto (default), cuda, hip, emu, cpu\n"
          "  --device N           device ordinal (default 0)\n"
          "  --variant NAME       force a variant (JIT-compiled when not embedded)\n"
          "  --iters N            timed calls after the warm-up (default 1)\n"
          "  --scale X            softmax scale (default 1/sqrt(128))\n"
          "  --lse                also write the log-sum-exp\n"
          "  --seed N             input seed (default 1)\n"
          "  --help               this text\n\n"
          "Exit status: 0 ok, 1 failure (no backend, no variant, launch error), 2 usage error.\n");
}

static int usage_error(const char *msg, const char *arg) {
  fprintf(stderr, "attngen run: %s%s%s\n\n(attngen run --help for usage)\n", msg, arg ? ": " : "",
          arg ? arg : "");
  return 2;
}

int attngen__cmd_run(int argc, char **argv) {
  attngen_fwd_args a;
  attngen_fwd_args_init(&a);
  attngen_context_options o = {NULL, 0};
  long iters = 1, seed = 1;
  int have_shape = 0, want_lse = 0;
  for (int i = 1; i < argc; i++) {
    const char *opt = argv[i];
    if (!strcmp(opt, "--help") || !strcmp(opt, "-h")) {
      usage(stdout);
      return 0;
    }
    if (!strcmp(opt, "--lse")) {
      want_lse = 1;
      continue;
    }
    if (i + 1 >= argc) return usage_error("option needs a value", opt);
    const char *val = argv[++i];
    long v;
    if (!strcmp(opt, "--shape")) {
      if (!attngen__cli_parse_shape(val, &a.batch, &a.heads, &a.seqlen_q, &a.seqlen_kv))
        return usage_error("--shape wants B,H,Sq,Skv (B, H, Sq in 1..2^24, Skv in 0..2^24)", val);
      have_shape = 1;
    } else if (!strcmp(opt, "--layout")) {
      if (!attngen__layout_from_name(val, &a.layout))
        return usage_error("--layout allows " ATTNGEN__LAYOUT_LIST, val);
    } else if (!strcmp(opt, "--round")) {
      if (!attngen__rounding_from_name(val, &a.rounding))
        return usage_error("--round allows " ATTNGEN__ROUNDING_LIST, val);
    } else if (!strcmp(opt, "--backend")) {
      if (!attngen__backend_name_ok(val)) {
        char m[192];
        snprintf(m, sizeof m, "--backend allows %s; not", attngen__backend_names());
        return usage_error(m, val);
      }
      o.backend = val;
    } else if (!strcmp(opt, "--device")) {
      if (!attngen__cli_parse_long(val, 0, 1024, &v)) return usage_error("--device wants an ordinal", val);
      o.device = (int)v;
    } else if (!strcmp(opt, "--variant")) {
      a.variant = val;
    } else if (!strcmp(opt, "--iters")) {
      if (!attngen__cli_parse_long(val, 1, 1000000, &iters)) return usage_error("--iters wants 1..1000000", val);
    } else if (!strcmp(opt, "--seed")) {
      if (!attngen__cli_parse_long(val, 0, 0x7fffffff, &seed)) return usage_error("--seed wants a number", val);
    } else if (!strcmp(opt, "--scale")) {
      char *end;
      a.softmax_scale = strtof(val, &end);
      if (*end || end == val) return usage_error("--scale wants a number", val);
    } else {
      return usage_error("unknown option", opt);
    }
  }
  if (!have_shape) return usage_error("--shape is required", NULL);

  attngen_context *ctx = NULL;
  if (attngen_create(&ctx, &o) != ATTNGEN_STATUS_OK) {
    fprintf(stderr, "attngen run: %s\n", attngen_last_error());
    return 1;
  }
  int rc = 1;
  attngen_device_props p;
  attngen_device_info(ctx, &p);
  printf("device:   %s %d: %s (%s, %d compute units)\n", p.backend, p.device, p.name, p.arch,
         p.compute_units);
  printf("shape:    B=%d H=%d Sq=%d Skv=%d D=128 %s %s scale=%g\n", a.batch, a.heads, a.seqlen_q,
         a.seqlen_kv, attngen__layout_name(a.layout), attngen__rounding_name(a.rounding),
         (double)a.softmax_scale);
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

  size_t nq = (size_t)a.batch * a.heads * a.seqlen_q * 128;
  size_t nkv = (size_t)a.batch * a.heads * a.seqlen_kv * 128;
  size_t nl = (size_t)a.batch * a.heads * a.seqlen_q;
  uint16_t *hq = malloc(nq * 2), *hk = malloc(nkv * 2 + 2), *hv = malloc(nkv * 2 + 2);
  uint16_t *ho = malloc(nq * 2);
  void *dq = NULL, *dk = NULL, *dv = NULL, *dout = NULL, *dl = NULL;
  attngen_status st = ATTNGEN_STATUS_OUT_OF_MEMORY;
  if (hq && hk && hv && ho) {
    attngen__rng r;
    attngen__rng_seed(&r, (uint64_t)seed);
    attngen__cli_fill(hq, a.layout, a.batch, a.heads, a.seqlen_q, &r);
    attngen__cli_fill(hk, a.layout, a.batch, a.heads, a.seqlen_kv, &r);
    attngen__cli_fill(hv, a.layout, a.batch, a.heads, a.seqlen_kv, &r);
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
    double flops = 4.0 * a.batch * a.heads * (double)a.seqlen_q * a.seqlen_kv * 128;
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
  free(hq);
  free(hk);
  free(hv);
  free(ho);
  attngen_destroy(ctx);
  return rc;
}
