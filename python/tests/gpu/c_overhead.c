/* c_overhead.c: host time per attngen_fwd call from C (the baseline of the Python op's
 * overhead). One CUDA context, bf16 inputs from attngen_malloc (contents irrelevant:
 * zeros), B,H,S,S given; REPS rounds of N back-to-back calls (launches queue, the clock
 * stops before the synchronize), then the median microseconds per call.
 * usage: c_overhead B H S N REPS   (build: gcc -O2 c_overhead.c -I runtime/include -lattngen) */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "attngen.h"

static double now_us(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
  if (argc != 6) {
    fprintf(stderr, "usage: c_overhead B H S N REPS\n");
    return 2;
  }
  int B = atoi(argv[1]), H = atoi(argv[2]), S = atoi(argv[3]), N = atoi(argv[4]);
  int reps = atoi(argv[5]);
  attngen_context_options o = {"cuda", 0};
  attngen_context *ctx;
  if (attngen_create(&ctx, &o) != ATTNGEN_STATUS_OK) {
    fprintf(stderr, "%s\n", attngen_last_error());
    return 1;
  }
  size_t bytes = (size_t)B * H * S * 128 * 2;
  void *q, *k, *v, *out;
  attngen_malloc(ctx, bytes, &q);
  attngen_malloc(ctx, bytes, &k);
  attngen_malloc(ctx, bytes, &v);
  attngen_malloc(ctx, bytes, &out);
  attngen_memset(ctx, q, 0, bytes);
  attngen_memset(ctx, k, 0, bytes);
  attngen_memset(ctx, v, 0, bytes);
  attngen_fwd_args a;
  attngen_fwd_args_init(&a);
  a.q = q; a.k = k; a.v = v; a.out = out;
  a.batch = B; a.heads = H; a.seqlen_q = S; a.seqlen_kv = S;
  a.layout = ATTNGEN_LAYOUT_BHSD;
  if (attngen_fwd(ctx, &a) != ATTNGEN_STATUS_OK) {
    fprintf(stderr, "%s\n", attngen_last_error());
    return 1;
  }
  attngen_synchronize(ctx, NULL);
  double *per = calloc((size_t)reps, sizeof *per);
  for (int r = 0; r < reps; r++) {
    double t0 = now_us();
    for (int i = 0; i < N; i++) attngen_fwd(ctx, &a);
    per[r] = (now_us() - t0) / N;
    attngen_synchronize(ctx, NULL);
  }
  qsort(per, (size_t)reps, sizeof *per, cmp);
  float ms = 0;
  attngen_time_fwd(ctx, &a, N, &ms);
  printf("c_api_host_us_per_call %.3f\nc_api_gpu_us_per_call %.3f\n", per[reps / 2], ms * 1e3);
  free(per);
  attngen_destroy(ctx);
  return 0;
}
