/* cmd_tune_args.c: `attngen tune --help` and its argument parsing (cmd_tune.h). */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_util.h"
#include "cmd_tune.h"

static void usage(FILE *f) {
  fprintf(f,
          "usage: attngen tune (--shape B,H,Sq,Skv [--shape ...] | --shapes-file FILE)\n"
          "                    [--layout " ATTNGEN__LAYOUT_CHOICES "|all] [--round "
          ATTNGEN__ROUNDING_CHOICES "|all]\n"
          "                    [--target " ATTNGEN__TARGET_CHOICES "] [--backend NAME]\n"
          "                    [--device N] [--warmup N] [--iters N] [--timeout SECONDS]\n"
          "                    [--variants NAME,...] [-o FILE] [--replace] [--no-write]\n"
          "\n"
          "Measures every variant of the target's search space (generator/lua/config.lua,\n"
          "variants outside the built-in set are JIT-compiled) for each shape and records the\n"
          "fastest in the tuning database that the dispatcher reads.\n"
          "\n"
          "  --shape B,H,Sq,Skv  a shape to tune (Skv may be left out: Skv = Sq); repeatable\n"
          "  --shapes-file FILE  one shape per line (B,H,Sq,Skv or B H Sq Skv; '#' comments)\n"
          "  --layout L          tensor layout (default " ATTNGEN__LAYOUT_BSHD_NAME "; all = every one)\n"
          "  --round R           rounding mode of P and O (default " ATTNGEN__ROUNDING_RTNE_NAME
          "; all = every one)\n"
          "  --target T          kernel target; must be the one the backend runs\n"
          "                      (default: the backend's; a target alone selects its GPU backend)\n"
          "  --backend B         runtime backend (default auto); emu and cpu time with the\n"
          "                      host clock and are meant for testing\n"
          "  --warmup N          untimed calls per candidate before timing (default 5)\n"
          "  --iters N           timed calls per candidate (default 50)\n"
          "  --timeout S         seconds of timed calls per candidate before the count is\n"
          "                      cut (default 20; at least one call is timed)\n"
          "  --variants LIST     these candidates instead of the search space (comma-separated\n"
          "                      canonical names, any valid variant; the heuristic's choice\n"
          "                      is always measured too, as the baseline)\n"
          "  -o FILE             database to merge into (default $ATTNGEN_TUNING_FILE, else\n"
          "                      <cache dir>/tuning.db)\n"
          "  --replace           replace a database written for another machine or malformed\n"
          "                      (otherwise it is left alone and tune fails)\n"
          "  --no-write          measure and print, do not touch the database\n"
          "\n"
          "Each candidate is first checked against the CPU reference (docs/NUMERICS.md) on a reduced\n"
          "problem (B,H <= 2; Sq, Skv > %d become 1024 + S mod 1024); candidates that fail\n"
          "the check, the compile or a launch are reported and skipped.\n"
          "Exit status: 0 all shapes tuned, 1 a failure (no valid candidate for a shape, no\n"
          "device, the database cannot be written), 2 usage error.\n",
          CHECK_FULL_LIMIT);
}

int attngen__tune_usage_error(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "attngen tune: ");
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fprintf(stderr, "\n(attngen tune --help for usage)\n");
  return 2;
}

/* ---- argument parsing ------------------------------------------------------------------- */

static int parse_int(const char *s, long lo, long hi, int *out) {
  long v;
  if (!attngen__cli_parse_long(s, lo, hi, &v)) return 0;
  *out = (int)v;
  return 1;
}

static int parse_shape(const char *text, attngen__call_shape *s) {
  return attngen__cli_parse_shape(text, &s->batch, &s->heads, &s->seqlen_q, &s->seqlen_kv);
}

static int add_shape(options *o, const attngen__call_shape *s) {
  if (o->nshapes == MAX_SHAPES) return 0;
  if (!o->shapes) {
    o->shapes = calloc(MAX_SHAPES, sizeof *o->shapes);
    if (!o->shapes) return 0;
  }
  o->shapes[o->nshapes++] = *s;
  return 1;
}

/* Reads a shapes file; returns 0 ok, 2 after printing a usage error. */
static int read_shapes_file(options *o, const char *path) {
  FILE *f = fopen(path, "r");
  if (!f) return attngen__tune_usage_error("--shapes-file %s: %s", path, strerror(errno));
  char line[512];
  int lineno = 0, rc = 0;
  while (fgets(line, sizeof line, f)) {
    lineno++;
    char *hash = strchr(line, '#');
    if (hash) *hash = 0;
    char *p = line;
    while (*p == ' ' || *p == '\t') p++;
    size_t n = strlen(p);
    while (n > 0 && (p[n - 1] == '\n' || p[n - 1] == '\r' || p[n - 1] == ' ' ||
                     p[n - 1] == '\t'))
      p[--n] = 0;
    if (n == 0) continue;
    attngen__call_shape s = {0};
    if (!parse_shape(p, &s)) {
      rc = attngen__tune_usage_error("--shapes-file %s:%d: '%s' is not a shape (B,H,Sq,Skv with B,H,Sq >= 1, "
                       "Skv >= 0, each <= 2^24)", path, lineno, p);
      break;
    }
    if (!add_shape(o, &s)) {
      rc = attngen__tune_usage_error("--shapes-file %s: more than %d shapes", path, MAX_SHAPES);
      break;
    }
  }
  fclose(f);
  if (rc == 0 && o->nshapes == 0) rc = attngen__tune_usage_error("--shapes-file %s: no shapes in it", path);
  return rc;
}

static int split_names(const char *list, options *o) {
  int n = 1;
  for (const char *p = list; *p; p++) n += *p == ',';
  o->only = calloc((size_t)n, sizeof *o->only);
  if (!o->only) return 0;
  const char *p = list;
  while (*p) {
    const char *e = strchr(p, ',');
    size_t len = e ? (size_t)(e - p) : strlen(p);
    if (len > 0) {
      o->only[o->nonly] = strndup(p, len);
      if (!o->only[o->nonly]) return 0;
      o->nonly++;
    }
    p += len + (e ? 1 : 0);
  }
  return o->nonly > 0;
}

void attngen__tune_options_free(options *o) {
  free(o->shapes);
  for (int i = 0; i < o->nonly; i++) free(o->only[i]);
  free(o->only);
}

/* Returns -1 to go on, else the exit code (0 for --help, 2 for a usage error). */
int attngen__tune_parse_args(int argc, char **argv, options *o) {
  memset(o, 0, sizeof *o);
  o->layouts[0] = ATTNGEN_LAYOUT_BSHD;
  o->nlayouts = 1;
  o->roundings[0] = ATTNGEN_ROUND_RTNE;
  o->nroundings = 1;
  o->warmup = 5;
  o->iters = 50;
  o->timeout_s = 20;
  o->write = 1;
  int have_file = 0;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
      usage(stdout);
      return 0;
    }
    if (strcmp(a, "--replace") == 0) {
      o->replace = 1;
      continue;
    }
    if (strcmp(a, "--no-write") == 0) {
      o->write = 0;
      continue;
    }
    static const char *const with_value[] = {"--shape", "--shapes-file", "--layout", "--round",
                                             "--target", "--backend", "--device", "--warmup",
                                             "--iters", "--timeout", "--variants", "-o"};
    int known = 0;
    for (size_t k = 0; k < sizeof with_value / sizeof with_value[0]; k++)
      known |= strcmp(a, with_value[k]) == 0;
    if (!known)
      return attngen__tune_usage_error("unknown argument '%s' (options: --shape, --shapes-file, --layout, "
                         "--round, --target, --backend, --device, --warmup, --iters, "
                         "--timeout, --variants, -o, --replace, --no-write, --help)", a);
    if (i + 1 >= argc) return attngen__tune_usage_error("%s needs a value", a);
    const char *v = argv[++i];
    if (strcmp(a, "--shape") == 0) {
      attngen__call_shape s = {0};
      if (!parse_shape(v, &s))
        return attngen__tune_usage_error("--shape '%s': expected B,H,Sq,Skv (or B,H,S) with B, H, Sq >= 1 "
                           "and Skv >= 0, each <= 2^24", v);
      if (!add_shape(o, &s)) return attngen__tune_usage_error("--shape: more than %d shapes", MAX_SHAPES);
    } else if (strcmp(a, "--shapes-file") == 0) {
      if (have_file) return attngen__tune_usage_error("--shapes-file given twice");
      have_file = 1;
      int rc = read_shapes_file(o, v);
      if (rc) return rc;
    } else if (strcmp(a, "--layout") == 0) {
      if (strcmp(v, "all") == 0) {
        for (int k = 0; k < ATTNGEN__LAYOUT_COUNT; k++) o->layouts[k] = (attngen_layout)k;
        o->nlayouts = ATTNGEN__LAYOUT_COUNT;
      } else if (attngen__layout_from_name(v, &o->layouts[0])) {
        o->nlayouts = 1;
      } else {
        return attngen__tune_usage_error("--layout '%s': allowed values are " ATTNGEN__LAYOUT_LIST ", all", v);
      }
    } else if (strcmp(a, "--round") == 0) {
      if (strcmp(v, "all") == 0) {
        for (int k = 0; k < ATTNGEN__ROUNDING_COUNT; k++) o->roundings[k] = (attngen_rounding)k;
        o->nroundings = ATTNGEN__ROUNDING_COUNT;
      } else if (attngen__rounding_from_name(v, &o->roundings[0])) {
        o->nroundings = 1;
      } else {
        return attngen__tune_usage_error("--round '%s': allowed values are " ATTNGEN__ROUNDING_LIST ", all", v);
      }
    } else if (strcmp(a, "--target") == 0) {
      int target;
      if (!attngen__target_from_name(v, &target))
        return attngen__tune_usage_error("--target '%s': allowed values are " ATTNGEN__TARGET_LIST, v);
      o->target = v;
    } else if (strcmp(a, "--backend") == 0) {
      if (!attngen__backend_name_ok(v))
        return attngen__tune_usage_error("--backend '%s': allowed values are %s", v, attngen__backend_names());
      o->backend = v;
    } else if (strcmp(a, "--device") == 0) {
      if (!parse_int(v, 0, 1024, &o->device))
        return attngen__tune_usage_error("--device '%s': expected an integer in [0, 1024]", v);
    } else if (strcmp(a, "--warmup") == 0) {
      if (!parse_int(v, 0, MAX_ITERS, &o->warmup))
        return attngen__tune_usage_error("--warmup '%s': expected an integer in [0, %d]", v, MAX_ITERS);
    } else if (strcmp(a, "--iters") == 0) {
      if (!parse_int(v, 1, MAX_ITERS, &o->iters))
        return attngen__tune_usage_error("--iters '%s': expected an integer in [1, %d]", v, MAX_ITERS);
    } else if (strcmp(a, "--timeout") == 0) {
      char *end;
      errno = 0;
      double t = strtod(v, &end);
      if (errno || *end || !(t > 0) || t > 86400)
        return attngen__tune_usage_error("--timeout '%s': expected seconds in (0, 86400]", v);
      o->timeout_s = t;
    } else if (strcmp(a, "--variants") == 0) {
      if (o->only) return attngen__tune_usage_error("--variants given twice");
      if (!split_names(v, o)) return attngen__tune_usage_error("--variants '%s': expected NAME[,NAME...]", v);
    } else {
      o->out_path = v;
    }
  }
  if (o->nshapes == 0)
    return attngen__tune_usage_error("no shape given: use --shape B,H,Sq,Skv or --shapes-file FILE");
  int target;
  if (o->target && !o->backend && attngen__target_from_name(o->target, &target))
    o->backend = attngen__target_backend[target];
  return -1;
}
