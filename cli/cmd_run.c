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
     "batch, heads, query and key/value lengths (B,H,S: Skv = Sq); required\n"
     "unless --seqlens", .excludes = "--seqlens --heads"},
    {"--seqlens", ATTNGEN__CLI_TEXT, "N,N,...",
     "a packed variable-length batch (args.cu_seqlens_q / _k, bshd rows of\n"
     "all sequences one after the other) of these query lengths (>= 0, one\n"
     "at least > 0); needs --heads", .max_len = 4095, .excludes = "--kv-lengths"},
    {"--kv-seqlens", ATTNGEN__CLI_TEXT, "N,N,...",
     "--seqlens: the key lengths, one per sequence (default: the query\n"
     "lengths)", .max_len = 4095, .needs = "--seqlens"},
    {"--heads", ATTNGEN__CLI_INT, "N", "--seqlens: query heads", 1, 65535,
     .needs = "--seqlens"},
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
    "--shape B,H,Sq,Skv [options] | --seqlens N,N,... --heads N [--kv-seqlens N,N,...] [options]",
    "One call on random inputs: the variant the dispatcher picks and why, one warm-up call\n"
    "(loads or JIT-compiles it), then --iters timed calls. TFLOP/s count 4 H D per (query,\n"
    "key) pair the call computes: those the mask, the key lengths and the sequences keep.\n",
    options, NULL, NULL, 0, 0,
    "0 ok, 1 failure (no backend, no variant, launch error)", run};

#define MAX_SEQS 65536

static int run(const attngen__cli_args *args) {
  attngen_fwd_args a;
  attngen_fwd_args_init(&a);
  const int packed = attngen__cli_given(args, "--seqlens");
  if (!packed && !attngen__cli_given(args, "--shape"))
    return attngen__cli_usage_error(args->cmd, "no call given: --shape B,H,Sq,Skv, or "
                                    "--seqlens N,N,... --heads N for a packed batch");
  if (packed && !attngen__cli_given(args, "--heads"))
    return attngen__cli_usage_error(args->cmd, "--seqlens needs --heads N (the query heads)");
  if (!packed) attngen__call_shape_to_args(&attngen__cli_get(args, "--shape")->shape, &a);
  a.layout = (attngen_layout)attngen__cli_choice(args, "--layout", ATTNGEN_LAYOUT_BSHD);
  a.rounding = (attngen_rounding)attngen__cli_choice(args, "--round", ATTNGEN_ROUND_RTNE);
  a.variant = attngen__cli_text(args, "--variant", NULL);
  a.head_dim = (int)attngen__cli_int(args, "--head-dim", 128);
  if (!attngen__head_dim_valid(a.head_dim))
    return attngen__cli_usage_error(args->cmd, "--head-dim %d is not supported (allowed: "
                                               ATTNGEN__HEAD_DIM_LIST ")", a.head_dim);
  a.softmax_scale = (float)attngen__cli_real(args, "--scale", 1.0 / sqrt((double)a.head_dim));
  a.causal = attngen__cli_given(args, "--causal");
  /* a packed batch: its lengths, totals and maxima (cu_seqlens made below) */
  int32_t *lq = NULL, *lk = NULL, *kvl = NULL, *cu = NULL;
  int nseq = 0, nkvl = 0, rc = 2;
  if (packed) {
    if (a.layout != ATTNGEN_LAYOUT_BSHD)
      return attngen__cli_usage_error(args->cmd, "--layout %s with --seqlens (allowed: bshd: "
                                      "a packed batch's rows are bshd)",
                                      attngen__layout_name(a.layout));
    lq = malloc(sizeof(int32_t) * MAX_SEQS);
    lk = malloc(sizeof(int32_t) * MAX_SEQS);
    cu = malloc(sizeof(int32_t) * 2 * (MAX_SEQS + 1));
    if (!lq || !lk || !cu) goto usage_out;
    if ((nseq = attngen__cli_int_list(args, "--seqlens", lq, MAX_SEQS, 0)) < 0) goto usage_out;
    int nk = nseq;
    if (attngen__cli_given(args, "--kv-seqlens")) {
      if ((nk = attngen__cli_int_list(args, "--kv-seqlens", lk, MAX_SEQS, 0)) < 0) goto usage_out;
    } else {
      memcpy(lk, lq, sizeof(int32_t) * (size_t)nseq);
    }
    long long tq = 0, tk = 0;
    int mq = 0, mk = 0;
    for (int i = 0; i < nseq; i++) tq += lq[i], mq = lq[i] > mq ? lq[i] : mq;
    for (int i = 0; i < nk; i++) tk += lk[i], mk = lk[i] > mk ? lk[i] : mk;
    if (nseq == 0 || nk != nseq || mq == 0) {
      attngen__cli_usage_error(args->cmd, "--seqlens gives %d lengths (longest %d), --kv-seqlens "
                               "%d (allowed: the same count, at least one query length > 0)",
                               nseq, mq, nk);
      goto usage_out;
    }
    a.heads = (int)attngen__cli_int(args, "--heads", 1);
    if (tq * a.heads >= (1LL << 31) || tk * a.heads >= (1LL << 31)) {
      attngen__cli_usage_error(args->cmd, "--seqlens: %lld query and %lld key rows x %d heads "
                               "(allowed: each below 2^31)", tq, tk, a.heads);
      goto usage_out;
    }
    a.batch = nseq;
    a.seqlen_q = mq;
    a.seqlen_kv = mk;
    a.total_q = (int)tq;
    a.total_kv = (int)tk;
    cu[0] = cu[nseq + 1] = 0;
    for (int i = 0; i < nseq; i++) {
      cu[i + 1] = cu[i] + lq[i];
      cu[nseq + 2 + i] = cu[nseq + 1 + i] + lk[i];
    }
  }
  const int hkv = (int)attngen__cli_int(args, "--heads-kv", a.heads);
  char what[48];
  snprintf(what, sizeof what, packed ? "--heads %d" : "the %d heads of --shape", a.heads);
  if (attngen__cli_check_heads_kv(args->cmd, hkv, a.heads, what)) goto usage_out;
  a.heads_kv = hkv == a.heads ? 0 : hkv;
  if (attngen__cli_given(args, "--kv-lengths")) {
    kvl = malloc(sizeof(int32_t) * (size_t)a.batch);
    if (!kvl) goto usage_out;
    nkvl = attngen__cli_int_list(args, "--kv-lengths", kvl, a.batch, INT32_MIN);
    if (nkvl < 0) goto usage_out;
    if (nkvl != a.batch) {
      attngen__cli_usage_error(args->cmd, "--kv-lengths gives %d values (allowed: one per batch "
                               "entry, B = %d)", nkvl, a.batch);
      goto usage_out;
    }
  }
  attngen_context_options o = {attngen__cli_text(args, "--backend", NULL),
                               (int)attngen__cli_int(args, "--device", 0)};
  const long iters = attngen__cli_int(args, "--iters", 1);
  const long seed = attngen__cli_int(args, "--seed", 1);
  const int want_lse = attngen__cli_given(args, "--lse");
  rc = 1;
  attngen_context *ctx = NULL;
  if (attngen_create(&ctx, &o) != ATTNGEN_STATUS_OK) {
    fprintf(stderr, "attngen run: %s\n", attngen_last_error());
    goto usage_out;
  }
  attngen_device_props p;
  attngen_device_info(ctx, &p);
  printf("device:   %s %d: %s (%s, %d compute units)\n", p.backend, p.device, p.name, p.arch,
         p.compute_units);
  if (packed)
    printf("shape:    packed batch of %d sequences (total %d query, %d key rows; longest %d / "
           "%d) H=%d D=%d %s %s scale=%g", a.batch, a.total_q, a.total_kv, a.seqlen_q,
           a.seqlen_kv, a.heads, a.head_dim, attngen__layout_name(a.layout),
           attngen__rounding_name(a.rounding), (double)a.softmax_scale);
  else
    printf("shape:    B=%d H=%d Sq=%d Skv=%d D=%d %s %s scale=%g", a.batch, a.heads,
           a.seqlen_q, a.seqlen_kv, a.head_dim, attngen__layout_name(a.layout),
           attngen__rounding_name(a.rounding), (double)a.softmax_scale);
  if (a.heads_kv) printf(" heads_kv=%d", a.heads_kv);
  printf("%s", a.causal ? " causal" : "");
  if (kvl) {
    printf(" kv_lengths=");
    for (int b = 0; b < nkvl && b < 8; b++) printf("%s%d", b ? "," : "", (int)kvl[b]);
    if (nkvl > 8) printf(",... (%d)", nkvl);
  }
  printf("\n");
  /* lengths and cu_seqlens in the backend's memory (attngen_malloc: host memory on cpu, emu) */
  void *dkvl = NULL, *dcu = NULL;
  void *dq = NULL, *dk = NULL, *dv = NULL, *dout = NULL, *dl = NULL;
  uint16_t *hq = NULL, *hk = NULL, *hv = NULL, *ho = NULL;
  attngen_status st = ATTNGEN_STATUS_OK;
  if (kvl && ((st = attngen_malloc(ctx, sizeof(int32_t) * (size_t)nkvl, &dkvl)) ||
              (st = attngen_memcpy_htod(ctx, dkvl, kvl, sizeof(int32_t) * (size_t)nkvl))))
    goto fail;
  a.kv_lengths = dkvl;
  if (packed) {
    const size_t bytes = sizeof(int32_t) * 2 * (size_t)(nseq + 1);
    if ((st = attngen_malloc(ctx, bytes, &dcu)) || (st = attngen_memcpy_htod(ctx, dcu, cu, bytes)))
      goto fail;
    a.cu_seqlens_q = (const int32_t *)dcu;
    a.cu_seqlens_k = (const int32_t *)dcu + nseq + 1;
  }
  attngen_choice ch;
  if ((st = attngen_explain(ctx, &a, &ch)) != ATTNGEN_STATUS_OK) goto fail;
  printf("variant:  %s (%s)\n", ch.variant,
         ch.embedded ? "embedded" : ch.needs_jit ? "JIT-compiled at first use" : "not embedded");
  /* the reason without the rule's name where it starts with it ("tuning database: ...") */
  const size_t rn = strlen(ch.rule_name);
  const char *why = strncmp(ch.reason, ch.rule_name, rn) == 0 && ch.reason[rn] == ':' &&
                            ch.reason[rn + 1] == ' '
                        ? ch.reason + rn + 2
                        : ch.reason;
  printf("rule:     %s: %s\n", ch.rule_name, why);
  if (ch.threads)
    printf("launch:   grid (%u, %u, %u) x %d threads, %d bytes shared memory, %d KV split(s)\n",
           ch.grid[0], ch.grid[1], ch.grid[2], ch.threads, ch.smem_bytes, ch.num_splits);

  /* rows of q / out and of k / v: a packed batch's totals (bshd [total, heads, D]) */
  const size_t rows_q = packed ? (size_t)a.total_q : (size_t)a.batch * a.seqlen_q;
  const size_t rows_kv = packed ? (size_t)a.total_kv : (size_t)a.batch * a.seqlen_kv;
  const int fill_b = packed ? 1 : a.batch;
  const size_t nq = rows_q * a.heads * a.head_dim;
  const size_t nkv = rows_kv * hkv * a.head_dim;
  const size_t nl = rows_q * a.heads;
  hq = malloc(nq * 2);
  hk = malloc(nkv * 2 + 2);
  hv = malloc(nkv * 2 + 2);
  ho = malloc(nq * 2);
  st = ATTNGEN_STATUS_OUT_OF_MEMORY;
  if (hq && hk && hv && ho) {
    attngen__rng r;
    attngen__rng_seed(&r, (uint64_t)seed);
    attngen__cli_fill(hq, a.layout, fill_b, a.heads, (int)(rows_q / fill_b), a.head_dim, &r);
    attngen__cli_fill(hk, a.layout, fill_b, hkv, (int)(rows_kv / fill_b), a.head_dim, &r);
    attngen__cli_fill(hv, a.layout, fill_b, hkv, (int)(rows_kv / fill_b), a.head_dim, &r);
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
  if (!st) {
    size_t finite = 0;
    double sum = 0;
    for (size_t i = 0; i < nq; i++) {
      const float x = attngen_bf16_to_float(ho[i]);
      if (isfinite(x)) {
        finite++;
        sum += x;
      }
    }
    /* the pairs computed: per batch entry (key lengths) or sequence (packed), else the call */
    const attngen__call_shape cs = attngen__call_shape_of(&a);
    double flops = 0;
    if (!kvl && !packed) {
      flops = attngen__cli_flops(&cs, a.causal);
    } else {
      attngen__call_shape one = cs;
      one.batch = 1;
      for (int b = 0; b < a.batch; b++) {
        int n = packed ? lk[b] : a.seqlen_kv;
        if (kvl) n = kvl[b] < 0 ? 0 : kvl[b] < n ? kvl[b] : n;
        if (packed) one.seqlen_q = lq[b];
        one.seqlen_kv = n;
        if (one.seqlen_q > 0) flops += attngen__cli_flops(&one, a.causal);
      }
    }
    printf("time:     %.4f ms per call (mean of %ld after a warm-up), %.2f TFLOP/s\n", ms, iters,
           ms > 0 ? flops / (ms * 1e-3) / 1e12 : 0.0);
    printf("output:   %zu of %zu elements finite, sum %.6g\n", finite, nq, sum);
    rc = 0;
  }
fail:
  if (st) fprintf(stderr, "attngen run: %s: %s\n", attngen_status_name(st), attngen_last_error());
  attngen_free(ctx, dq);
  attngen_free(ctx, dk);
  attngen_free(ctx, dv);
  attngen_free(ctx, dout);
  attngen_free(ctx, dl);
  attngen_free(ctx, dkvl);
  attngen_free(ctx, dcu);
  free(hq);
  free(hk);
  free(hv);
  free(ho);
  attngen_destroy(ctx);
usage_out:
  free(lq);
  free(lk);
  free(cu);
  free(kvl);
  return rc;
}
