/* cli_util.h: argument parsing and input filling shared by the C commands of the CLI. */
#ifndef ATTNGEN_CLI_UTIL_H
#define ATTNGEN_CLI_UTIL_H

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "numerics.h"

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

/* "B,H,Sq,Skv" with B, H, Sq in [1, 2^24] and Skv in [0, 2^24]; returns 1 or 0. */
static inline int attngen__cli_parse_shape(const char *s, int *b, int *h, int *sq, int *skv) {
  long v[4];
  const char *p = s;
  for (int i = 0; i < 4; ++i) {
    char buf[32];
    const char *comma = strchr(p, ',');
    const size_t len = i < 3 ? (comma ? (size_t)(comma - p) : sizeof buf) : strlen(p);
    if (len == 0 || len >= sizeof buf || (i < 3 && !comma)) return 0;
    memcpy(buf, p, len);
    buf[len] = 0;
    if (!attngen__cli_parse_long(buf, i == 3 ? 0 : 1, 1L << 24, &v[i])) return 0;
    p += len + 1;
  }
  *b = (int)v[0];
  *h = (int)v[1];
  *sq = (int)v[2];
  *skv = (int)v[3];
  return 1;
}

/* Fills a dense [B,H,S,128] bf16 tensor of `layout` with uniform values in [-1, 1], never
 * zero (testdata.c), from the generator r. */
static inline void attngen__cli_fill(void *data, attngen_layout layout, int b, int h, int s,
                                     attngen__rng *r) {
  attngen__fill_uniform(attngen__view_out(data, layout, h, s), b, h, s, r, -1.0, 1.0);
}

#endif /* ATTNGEN_CLI_UTIL_H */
