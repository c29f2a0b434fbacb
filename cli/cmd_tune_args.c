/* cmd_tune_args.c: the option table of `attngen tune` and the options it makes (cmd_tune.h). */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "cmd_tune.h"

static const attngen__cli_option tune_options[] = {
    {"--shape", ATTNGEN__CLI_SHAPE, "B,H,Sq,Skv", "a shape to tune (B,H,S: Skv = Sq)", .repeat = 1},
    {"--shapes-file", ATTNGEN__CLI_TEXT, "FILE",
     "one shape per line (B,H,Sq,Skv or B H Sq Skv; '#' comments)", .max_len = 4000},
    {"--layout", ATTNGEN__CLI_CHOICE, "L",
     "tensor layout (default " ATTNGEN__LAYOUT_BSHD_NAME "; all = every one)",
     .choices = attngen__layout_names, .nchoices = ATTNGEN__LAYOUT_COUNT, .extra = "all"},
    {"--round", ATTNGEN__CLI_CHOICE, "R",
     "rounding mode of P and O (default " ATTNGEN__ROUNDING_RTNE_NAME "; all = every one)",
     .choices = attngen__rounding_names, .nchoices = ATTNGEN__ROUNDING_COUNT, .extra = "all"},
    {"--head-dim", ATTNGEN__CLI_INT, "D",
     "elements per row of q, k, v (args.head_dim; default 128; allowed\n"
     ATTNGEN__HEAD_DIM_LIST ")", 1, 65535},
    {"--heads-kv", ATTNGEN__CLI_INT, "N",
     "KV heads of grouped-query calls (args.heads_kv; default: each\n"
     "shape's heads; must divide them, 1 = MQA)", 1, 65535},
    {"--causal", ATTNGEN__CLI_FLAG, NULL,
     "tune causal calls (args.causal = 1; candidates with mask causal)"},
    {"--target", ATTNGEN__CLI_CHOICE, "T",
     "kernel target; must be the one the backend runs\n"
     "(default: the backend's; a target alone selects its GPU backend)",
     .choices = attngen__target_names, .nchoices = ATTNGEN__TARGET_COUNT},
    {"--backend", ATTNGEN__CLI_BACKEND, "B",
     "runtime backend (default auto); emu and cpu time with the\n"
     "host clock and are meant for testing"},
    {"--device", ATTNGEN__CLI_INT, "N", "device ordinal (default 0)", 0, 1024},
    {"--warmup", ATTNGEN__CLI_INT, "N", "untimed calls per candidate before timing (default 5)", 0,
     MAX_ITERS},
    {"--iters", ATTNGEN__CLI_INT, "N", "timed calls per candidate (default 50)", 1, MAX_ITERS},
    {"--timeout", ATTNGEN__CLI_REAL, "SECONDS",
     "seconds of timed calls per candidate before the count is\n"
     "cut (default 20; at least one call is timed), in (0, 86400]", 0, 86400, .lo_open = 1},
    {"--variants", ATTNGEN__CLI_TEXT, "LIST",
     "these candidates instead of the search space (comma-separated\n"
     "canonical names, any valid variant; the heuristic's choice\n"
     "is always measured too, as the baseline)"},
    {"-j", ATTNGEN__CLI_INT, "N",
     "candidates that are not built in are JIT-compiled N at a time\n"
     "before any timing (default: the CPUs, at most 16; -jN too)", 1, 64},
    {"-o", ATTNGEN__CLI_TEXT, "FILE",
     "database to merge into (default $ATTNGEN_TUNING_FILE, else\n"
     "<cache dir>/tuning.db)", .max_len = 4000},
    {"--replace", ATTNGEN__CLI_FLAG, NULL,
     "replace a database written for another machine or malformed\n"
     "(otherwise it is left alone and tune fails)", .excludes = "--no-write"},
    {"--no-write", ATTNGEN__CLI_FLAG, NULL, "measure and print, do not touch the database",
     .excludes = "-o"},
    {NULL}};

const attngen__cli_command attngen__cli_cmd_tune = {
    "tune", "measure candidate variants and record the winners",
    "(--shape B,H,Sq,Skv [--shape ...] | --shapes-file FILE) [options]",
    "Measures every variant of the target's search space (generator/lua/config.lua,\n"
    "variants outside the built-in set are JIT-compiled) for each shape and records the\n"
    "fastest in the tuning database that the dispatcher reads. --head-dim, --heads-kv and\n"
    "--causal choose the kind of call (every shape of the run); the database keeps each\n"
    "kind apart and a call only takes a record of its own kind. Each candidate is first\n"
    "checked against the CPU reference (docs/NUMERICS.md) on a reduced problem (B,H <= 2;\n"
    "Sq, Skv > " ATTNGEN__CLI_STR(CHECK_FULL_LIMIT) " become 1024 + S mod 1024); candidates that fail the check, the\n"
    "compile or a launch are reported and skipped.\n",
    tune_options, NULL, NULL, 0, 0,
    "0 all shapes tuned, 1 a failure (no valid candidate for a shape, no\n"
    "device, the database cannot be written)", attngen__cmd_tune};

/* ---- argument parsing ------------------------------------------------------------------- */

static int add_shape(options *o, const attngen__call_shape *s) {
  if (o->nshapes == MAX_SHAPES) return 0;
  if (!o->shapes) {
    o->shapes = calloc(MAX_SHAPES, sizeof *o->shapes);
    if (!o->shapes) return 0;
  }
  o->shapes[o->nshapes++] = *s;
  return 1;
}

/* One line of a shapes file into the --shape syntax: blanks around a ',' go, a run of blanks
 * between two numbers becomes one ','. */
static void line_to_shape_text(const char *line, char *out, size_t size) {
  size_t n = 0;
  for (const char *p = line; *p && n + 1 < size; p++) {
    if (*p == ' ' || *p == '\t') {
      while (p[1] == ' ' || p[1] == '\t') p++;
      const int sep_before = n > 0 && (out[n - 1] == ',' || out[n - 1] == 'x');
      const int sep_after = p[1] == ',' || p[1] == 'x';
      if (!sep_before && !sep_after && p[1]) out[n++] = ',';
      continue;
    }
    out[n++] = *p;
  }
  out[n] = 0;
}

/* Reads a shapes file; returns 0 ok, 2 after printing a usage error. */
static int read_shapes_file(options *o, const char *path) {
  const attngen__cli_command *cmd = &attngen__cli_cmd_tune;
  FILE *f = fopen(path, "r");
  if (!f) return attngen__cli_usage_error(cmd, "--shapes-file %s: %s", path, strerror(errno));
  char line[512], text[512], why[320];
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
    line_to_shape_text(p, text, sizeof text);
    if (!attngen__cli_parse_shape(text, &s, why, sizeof why)) {
      rc = attngen__cli_usage_error(cmd, "--shapes-file %s:%d: '%s' is not a shape: %s", path,
                                    lineno, p, why);
      break;
    }
    if (!add_shape(o, &s)) {
      rc = attngen__cli_usage_error(cmd, "--shapes-file %s: more than %d shapes", path,
                                    MAX_SHAPES);
      break;
    }
  }
  fclose(f);
  if (rc == 0 && o->nshapes == 0)
    rc = attngen__cli_usage_error(cmd, "--shapes-file %s: no shapes in it", path);
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

int attngen__tune_options_of(const attngen__cli_args *args, options *o) {
  const attngen__cli_command *cmd = args->cmd;
  memset(o, 0, sizeof *o);
  const int layout = attngen__cli_choice(args, "--layout", ATTNGEN_LAYOUT_BSHD);
  o->nlayouts = layout == ATTNGEN__LAYOUT_COUNT ? ATTNGEN__LAYOUT_COUNT : 1;
  for (int k = 0; k < o->nlayouts; k++)
    o->layouts[k] = (attngen_layout)(o->nlayouts == 1 ? layout : k);
  const int rounding = attngen__cli_choice(args, "--round", ATTNGEN_ROUND_RTNE);
  o->nroundings = rounding == ATTNGEN__ROUNDING_COUNT ? ATTNGEN__ROUNDING_COUNT : 1;
  for (int k = 0; k < o->nroundings; k++)
    o->roundings[k] = (attngen_rounding)(o->nroundings == 1 ? rounding : k);
  o->warmup = (int)attngen__cli_int(args, "--warmup", 5);
  o->iters = (int)attngen__cli_int(args, "--iters", 50);
  o->timeout_s = attngen__cli_real(args, "--timeout", 20);
  o->write = !attngen__cli_given(args, "--no-write");
  o->replace = attngen__cli_given(args, "--replace");
  o->target = attngen__cli_text(args, "--target", NULL);
  o->backend = attngen__cli_text(args, "--backend", NULL);
  o->device = (int)attngen__cli_int(args, "--device", 0);
  long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  o->jobs = (int)attngen__cli_int(args, "-j", cpus < 1 ? 1 : cpus > 16 ? 16 : cpus);
  o->out_path = attngen__cli_text(args, "-o", NULL);
  const attngen__cli_value *shapes = attngen__cli_get(args, "--shape");
  for (int i = 0; i < shapes->given; i++) {
    attngen__call_shape s;
    char why[320];
    if (!attngen__cli_parse_shape(shapes->all[i], &s, why, sizeof why))
      return attngen__cli_usage_error(cmd, "--shape '%s': %s", shapes->all[i], why);
    if (!add_shape(o, &s))
      return attngen__cli_usage_error(cmd, "--shape: more than %d shapes", MAX_SHAPES);
  }
  const char *file = attngen__cli_text(args, "--shapes-file", NULL);
  if (file) {
    const int rc = read_shapes_file(o, file);
    if (rc) return rc;
  }
  const char *list = attngen__cli_text(args, "--variants", NULL);
  if (list && !split_names(list, o))
    return attngen__cli_usage_error(cmd, "--variants '%s': expected NAME[,NAME...]", list);
  if (o->nshapes == 0)
    return attngen__cli_usage_error(cmd, "no shape given: use --shape B,H,Sq,Skv or "
                                         "--shapes-file FILE");
  o->head_dim = (int)attngen__cli_int(args, "--head-dim", 128);
  if (!attngen__head_dim_valid(o->head_dim))
    return attngen__cli_usage_error(cmd, "--head-dim %d is not supported (allowed: "
                                         ATTNGEN__HEAD_DIM_LIST ")", o->head_dim);
  o->heads_kv = (int)attngen__cli_int(args, "--heads-kv", 0);
  o->causal = attngen__cli_given(args, "--causal");
  for (int i = 0; i < o->nshapes; i++) {
    attngen__call_shape *s = &o->shapes[i];
    char what[96];
    snprintf(what, sizeof what, "the %d heads of shape %d,%d,%d,%d", s->heads, s->batch,
             s->heads, s->seqlen_q, s->seqlen_kv);
    if (attngen__cli_check_heads_kv(cmd, o->heads_kv, s->heads, what)) return 2;
    /* canonical (call_shape.h): 128 -> 0, heads_kv == heads -> 0 */
    s->head_dim = o->head_dim == 128 ? 0 : o->head_dim;
    s->heads_kv = o->heads_kv == s->heads ? 0 : o->heads_kv;
  }
  int target;
  if (o->target && !o->backend && attngen__target_from_name(o->target, &target))
    o->backend = attngen__target_backend[target];
  return -1;
}
