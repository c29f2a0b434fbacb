/* cli_util.h: argument parsing and input filling shared by the C commands of the CLI. */
#ifndef ATTNGEN_CLI_UTIL_H
#define ATTNGEN_CLI_UTIL_H

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "verify.h"

/* A decimal integer in [lo, hi]; returns 1 and sets *out, else 0. */
static inline int attngen__cli_parse_long(const char *s, long lo, long hi, long *out) {
  if (!s) return 0;
  char *end;
  errno = 0;
  const long v = strtol(s, &end, 10);
  if (errno || end == s || *end || v < lo || v > hi) return 0;
  *out = v;
  return 1;
}

/* The one shape syntax of every command (run, check, tune, bench): "B,H,Sq,Skv", or
 * "B,H,S" for Sq = Skv = S; ',', 'x' and blanks separate. B, H, Sq in [1, 2^24], Skv in
 * [0, 2^24], each a plain decimal (no wrap-around: 4294967297 is rejected, not read as 1).
 * Returns 1, or 0 with nothing set. */
#define ATTNGEN__CLI_SHAPE_MAX (1L << 24)
static inline int attngen__cli_parse_shape(const char *s, int *b, int *h, int *sq, int *skv) {
  char buf[128];
  if (!s || strlen(s) >= sizeof buf) return 0;
  memcpy(buf, s, strlen(s) + 1);
  long v[4];
  int n = 0;
  char *save = NULL;
  for (char *tok = strtok_r(buf, ", \tx", &save); tok; tok = strtok_r(NULL, ", \tx", &save)) {
    if (n == 4 || !attngen__cli_parse_long(tok, n == 3 ? 0 : 1, ATTNGEN__CLI_SHAPE_MAX, &v[n]))
      return 0;
    n++;
  }
  if (n < 3) return 0;
  *b = (int)v[0];
  *h = (int)v[1];
  *sq = (int)v[2];
  *skv = (int)(n == 4 ? v[3] : v[2]);
  return 1;
}

/* Fills a dense [B,H,S,128] bf16 tensor of `layout` with uniform values in [-1, 1], never
 * zero (testdata.c), from the generator r. */
static inline void attngen__cli_fill(void *data, attngen_layout layout, int b, int h, int s,
                                     attngen__rng *r) {
  attngen__fill_uniform(attngen__view_out(data, layout, h, s), b, h, s, r, -1.0, 1.0);
}

#endif /* ATTNGEN_CLI_UTIL_H */
