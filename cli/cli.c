/* cli.c: the one parser of the attngen command line (the tables and rules are in cli.h):
 * command lookup, argument parsing against a command's option table, the usage text and
 * --help made from the table, and the one usage error. */
#include "cli.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attngen.h"

#define TEXT_MAX_DEFAULT 4095

int attngen__cli_usage_error(const attngen__cli_command *cmd, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "attngen %s: ", cmd->name);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fprintf(stderr, "\n(attngen %s --help for usage)\n", cmd->name);
  return 2;
}

int attngen__cli_check_heads_kv(const attngen__cli_command *cmd, int heads_kv, int heads,
                                const char *heads_what) {
  if (heads_kv <= 0 || heads % heads_kv == 0) return 0;
  return attngen__cli_usage_error(cmd, "--heads-kv %d does not divide %s (allowed: a divisor "
                                       "of the heads)", heads_kv, heads_what);
}

int attngen__cli_int_list(const attngen__cli_args *args, const char *opt, int32_t *out, int max,
                          long long lo) {
  const char *text = attngen__cli_text(args, opt, "");
  int n = 0;
  for (const char *p = text; *p;) {
    char *end = NULL;
    errno = 0;
    const long long v = strtoll(p, &end, 10);
    if (end == p || errno || v < lo || v > INT32_MAX || (*end && *end != ',') || n == max) {
      attngen__cli_usage_error(args->cmd, "%s %s: expected at most %d comma-separated integers "
                               "in [%lld, 2147483647]", opt, text, max, lo);
      return -1;
    }
    if (*end == ',' && end[1] == 0) { /* a trailing comma: a value left out */
      attngen__cli_usage_error(args->cmd, "%s %s: a value is missing after the last ','", opt,
                               text);
      return -1;
    }
    out[n++] = (int32_t)v;
    p = *end ? end + 1 : end;
  }
  return n;
}

typedef struct parallel_work {
  size_t count;
  size_t next; /* atomic */
  void (*fn)(void *ctx, size_t i);
  void *ctx;
} parallel_work;

static void *parallel_worker(void *arg) {
  parallel_work *w = arg;
  for (;;) {
    const size_t i = __atomic_fetch_add(&w->next, 1, __ATOMIC_SEQ_CST);
    if (i >= w->count) return NULL;
    w->fn(w->ctx, i);
  }
}

void attngen__cli_parallel(size_t count, long threads, void (*fn)(void *ctx, size_t i), void *ctx) {
  parallel_work w = {count, 0, fn, ctx};
  if (threads > 64) threads = 64;
  if (threads > 0 && (size_t)threads > count) threads = (long)count;
  pthread_t tid[64];
  long started = 0;
  for (long t = 1; t < threads; t++) {
    if (pthread_create(&tid[started], NULL, parallel_worker, &w) != 0) break;
    started++;
  }
  parallel_worker(&w); /* the caller's thread too, so one thread (or none started) still runs all */
  for (long t = 0; t < started; t++) pthread_join(tid[t], NULL);
}

double attngen__cli_flops(const attngen__call_shape *s, int causal) {
  double pairs = (double)s->seqlen_q * s->seqlen_kv;
  if (causal) {
    pairs = 0;
    for (long i = 0; i < s->seqlen_q; i++) {
      const long n = i + (long)s->seqlen_kv - s->seqlen_q + 1;
      pairs += n <= 0 ? 0 : n > s->seqlen_kv ? s->seqlen_kv : n;
    }
  }
  return 4.0 * s->batch * (double)s->heads * pairs * attngen__shape_head_dim(s);
}

static size_t option_count(const attngen__cli_command *cmd) {
  size_t n = 0;
  while (cmd->options && cmd->options[n].name) n++;
  return n;
}

static int option_index(const attngen__cli_command *cmd, const char *name) {
  for (size_t i = 0; cmd->options && cmd->options[i].name; i++)
    if (strcmp(cmd->options[i].name, name) == 0) return (int)i;
  return -1;
}

/* "a, b, c" of a CHOICE's names into buf. */
static const char *choice_list(const attngen__cli_option *o, char *buf, size_t len) {
  size_t used = 0;
  buf[0] = 0;
  for (int i = 0; i <= o->nchoices; i++) {
    const char *name = i < o->nchoices ? o->choices[i] : o->extra;
    if (!name) continue;
    int n = snprintf(buf + used, len - used, "%s%s", used ? ", " : "", name);
    if (n < 0 || (size_t)n >= len - used) break;
    used += (size_t)n;
  }
  return buf;
}

/* A plain decimal: digits only (no sign, no blanks, no base prefix), at most 18 of them. */
static int plain_decimal(const char *s, size_t len, long long *out) {
  if (len == 0 || len > 18) return 0;
  long long v = 0;
  for (size_t i = 0; i < len; i++) {
    if (s[i] < '0' || s[i] > '9') return 0;
    v = v * 10 + (s[i] - '0');
  }
  *out = v;
  return 1;
}

int attngen__cli_parse_shape(const char *text, attngen__call_shape *s, char *why,
                             size_t why_len) {
  static const char *const field_names[4] = {"B", "H", "Sq", "Skv"};
  long long v[4];
  int n = 0;
  const char *p = text;
  for (;;) {
    const char *e = p;
    while (*e && *e != ',' && *e != 'x') e++;
    if (n == 4) {
      snprintf(why, why_len, "more than 4 fields");
      return 0;
    }
    if (!plain_decimal(p, (size_t)(e - p), &v[n])) {
      snprintf(why, why_len, "field %d ('%.*s') is not a plain decimal number", n + 1,
               (int)(e - p > 32 ? 32 : e - p), p);
      return 0;
    }
    n++;
    if (!*e) break;
    p = e + 1;
  }
  if (n < 3) {
    snprintf(why, why_len, "%d field%s: B,H,Sq,Skv or B,H,S wanted", n, n == 1 ? "" : "s");
    return 0;
  }
  for (int i = 0; i < n; i++) {
    if (v[i] > INT_MAX) {
      snprintf(why, why_len, "%s = %lld is out of range", field_names[i], v[i]);
      return 0;
    }
  }
  attngen_fwd_args a;
  attngen_fwd_args_init(&a);
  a.batch = (int)v[0];
  a.heads = (int)v[1];
  a.seqlen_q = (int)v[2];
  a.seqlen_kv = (int)(n == 4 ? v[3] : v[2]);
  /* The library's own checks (dispatch.c): the CLI accepts exactly the shapes it runs. */
  if (attngen__check_args(&a, 0) != ATTNGEN_STATUS_OK) {
    snprintf(why, why_len, "%s", attngen_last_error());
    return 0;
  }
  memset(s, 0, sizeof *s);
  s->batch = a.batch;
  s->heads = a.heads;
  s->seqlen_q = a.seqlen_q;
  s->seqlen_kv = a.seqlen_kv;
  return 1;
}

/* Parses one value of option o into v; 1, or 0 after printing the usage error. */
static int parse_value(const attngen__cli_command *cmd, const attngen__cli_option *o,
                       const char *text, attngen__cli_value *v) {
  char allowed[512], why[320];
  switch (o->type) {
    case ATTNGEN__CLI_FLAG:
      return 1;
    case ATTNGEN__CLI_INT: {
      long long x;
      if (plain_decimal(text, strlen(text), &x) && (double)x >= o->lo && (double)x <= o->hi) {
        v->i = (long)x;
        return 1;
      }
      attngen__cli_usage_error(cmd, "%s '%s': allowed: an integer in [%.0f, %.0f]", o->name,
                               text, o->lo, o->hi);
      return 0;
    }
    case ATTNGEN__CLI_REAL: {
      char *end = NULL;
      const double x = strtod(text, &end);
      /* The value the library gets is a float: finite as a float, and inside the range. */
      if (end != text && !*end && isfinite(x) && isfinite((float)x) && x >= o->lo &&
          !(o->lo_open && x == o->lo) && x <= o->hi) {
        v->r = x;
        return 1;
      }
      attngen__cli_usage_error(cmd, "%s '%s': allowed: %s, a number in %c%g, %g]", o->name,
                               text, o->metavar, o->lo_open ? '(' : '[', o->lo, o->hi);
      return 0;
    }
    case ATTNGEN__CLI_TEXT: {
      const size_t max = o->max_len ? o->max_len : TEXT_MAX_DEFAULT;
      const size_t len = strlen(text);
      if (len > 0 && len <= max) return 1;
      attngen__cli_usage_error(cmd, "%s: allowed: a non-empty value of at most %zu bytes (this "
                               "one has %zu)", o->name, max, len);
      return 0;
    }
    case ATTNGEN__CLI_CHOICE:
      for (int i = 0; i < o->nchoices; i++) {
        if (strcmp(text, o->choices[i]) == 0) {
          v->i = i;
          return 1;
        }
      }
      if (o->extra && strcmp(text, o->extra) == 0) {
        v->i = o->nchoices;
        return 1;
      }
      attngen__cli_usage_error(cmd, "%s '%s': allowed: %s", o->name, text,
                               choice_list(o, allowed, sizeof allowed));
      return 0;
    case ATTNGEN__CLI_SHAPE:
      if (attngen__cli_parse_shape(text, &v->shape, why, sizeof why)) return 1;
      attngen__cli_usage_error(cmd, "%s '%s': %s (allowed: %s or B,H,S with "
                               ATTNGEN__SHAPE_LIMITS_TEXT ")", o->name, text, why, o->metavar);
      return 0;
    case ATTNGEN__CLI_BACKEND:
      if (attngen__backend_name_ok(text)) return 1;
      attngen__cli_usage_error(cmd, "%s '%s': allowed: %s", o->name, text,
                               attngen__backend_names());
      return 0;
  }
  return 0;
}

void attngen__cli_args_free(attngen__cli_args *a) {
  for (int i = 0; i < ATTNGEN__CLI_MAX_OPTIONS; i++) free(a->v[i].all);
  free(a->positional);
  memset(a, 0, sizeof *a);
}

int attngen__cli_parse(const attngen__cli_command *cmd, int argc, char **argv,
                       attngen__cli_args *a) {
  memset(a, 0, sizeof *a);
  a->cmd = cmd;
  const size_t nopt = option_count(cmd);
  if (nopt > ATTNGEN__CLI_MAX_OPTIONS) {
    fprintf(stderr, "attngen %s: more than %d options in its table\n", cmd->name,
            ATTNGEN__CLI_MAX_OPTIONS);
    return 2;
  }
  a->positional = calloc((size_t)argc + 1, sizeof *a->positional);
  if (!a->positional) {
    fprintf(stderr, "attngen %s: out of memory\n", cmd->name);
    return 2;
  }
  int rc = -1;
  for (int i = 1; i < argc && rc < 0; i++) {
    const char *arg = argv[i];
    if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
      attngen__cli_usage(cmd, stdout);
      rc = 0;
      break;
    }
    int k = arg[0] == '-' && arg[1] ? option_index(cmd, arg) : -1;
    const char *attached = NULL; /* "-jN": a one-letter option with its value attached */
    if (k < 0 && arg[0] == '-' && arg[1] && arg[1] != '-' && arg[2]) {
      char head[3] = {arg[0], arg[1], 0};
      const int h = option_index(cmd, head);
      if (h >= 0 && cmd->options[h].type != ATTNGEN__CLI_FLAG) {
        k = h;
        attached = arg + 2;
      }
    }
    if (k < 0) {
      if (arg[0] == '-' && arg[1]) {
        rc = attngen__cli_usage_error(cmd, "unknown option '%s'", arg);
      } else if (!cmd->positional || a->npositional == cmd->max_positional) {
        rc = attngen__cli_usage_error(cmd, "unexpected argument '%s'", arg);
      } else if (cmd->positional_choices) {
        int ok = 0;
        for (const char *const *c = cmd->positional_choices; *c; c++) ok |= strcmp(*c, arg) == 0;
        if (!ok)
          rc = attngen__cli_usage_error(cmd, "'%s': allowed: %s", arg, cmd->positional);
        else
          a->positional[a->npositional++] = arg;
      } else {
        a->positional[a->npositional++] = arg;
      }
      continue;
    }
    const attngen__cli_option *o = &cmd->options[k];
    attngen__cli_value *v = &a->v[k];
    if (v->given && !o->repeat) {
      rc = attngen__cli_usage_error(cmd, "%s given twice (once allowed)", o->name);
      break;
    }
    const char *text = attached;
    if (o->type != ATTNGEN__CLI_FLAG && !attached) {
      if (i + 1 >= argc) {
        rc = attngen__cli_usage_error(cmd, "%s needs a value (%s)", o->name, o->metavar);
        break;
      }
      text = argv[++i];
    }
    if (!parse_value(cmd, o, text, v)) {
      rc = 2;
      break;
    }
    if (o->repeat) {
      const char **all = realloc(v->all, (size_t)(v->given + 1) * sizeof *all);
      if (!all) {
        rc = attngen__cli_usage_error(cmd, "out of memory");
        break;
      }
      v->all = all;
      v->all[v->given] = text;
    }
    v->text = text;
    v->given++;
  }
  for (size_t k = 0; k < nopt && rc < 0; k++) {
    const attngen__cli_option *o = &cmd->options[k];
    if (o->required && !a->v[k].given) {
      rc = attngen__cli_usage_error(cmd, "%s %s is required", o->name, o->metavar);
      break;
    }
    if (!a->v[k].given) continue;
    if (o->needs && !attngen__cli_given(a, o->needs)) {
      rc = attngen__cli_usage_error(cmd, "%s needs %s", o->name, o->needs);
      break;
    }
    for (const char *p = o->excludes; p && *p && rc < 0;) {
      while (*p == ' ') p++;
      const char *e = p;
      while (*e && *e != ' ') e++;
      char other[64];
      snprintf(other, sizeof other, "%.*s", (int)(e - p), p);
      if (*other && attngen__cli_given(a, other))
        rc = attngen__cli_usage_error(cmd, "%s and %s exclude each other", o->name, other);
      p = e;
    }
  }
  if (rc < 0 && a->npositional < cmd->min_positional)
    rc = attngen__cli_usage_error(cmd, "%s is required", cmd->positional);
  if (rc >= 0) attngen__cli_args_free(a);
  return rc;
}

void attngen__cli_usage(const attngen__cli_command *cmd, FILE *f) {
  fprintf(f, "usage: attngen %s %s\n", cmd->name, cmd->synopsis ? cmd->synopsis : "");
  if (cmd->description) fprintf(f, "\n%s", cmd->description);
  fprintf(f, "\n");
  char allowed[512];
  for (size_t k = 0; cmd->options && cmd->options[k].name; k++) {
    const attngen__cli_option *o = &cmd->options[k];
    char head[64];
    snprintf(head, sizeof head, "%s%s%s", o->name, o->metavar ? " " : "",
             o->metavar ? o->metavar : "");
    /* The help's lines, the first beside the option, the others under it. */
    const char *h = o->help ? o->help : "";
    int first = 1;
    do {
      const char *e = strchr(h, '\n');
      const int n = e ? (int)(e - h) : (int)strlen(h);
      if (first && strlen(head) > 21)
        fprintf(f, "  %s\n  %-21s %.*s\n", head, "", n, h);
      else
        fprintf(f, "  %-21s %.*s\n", first ? head : "", n, h);
      first = 0;
      h = e ? e + 1 : NULL;
    } while (h && *h);
    if (o->type == ATTNGEN__CLI_CHOICE)
      fprintf(f, "  %-21s (%s)\n", "", choice_list(o, allowed, sizeof allowed));
    if (o->type == ATTNGEN__CLI_SHAPE)
      fprintf(f, "  %-21s (%s)\n", "", ATTNGEN__SHAPE_LIMITS_TEXT);
    if (o->type == ATTNGEN__CLI_BACKEND)
      fprintf(f, "  %-21s (%s)\n", "", attngen__backend_names());
    if (o->repeat) fprintf(f, "  %-21s (may be given more than once)\n", "");
  }
  fprintf(f, "  %-21s %s\n", "--help", "this text");
  fprintf(f, "\nExit status: %s, 2 usage error.\n", cmd->exit_status ? cmd->exit_status : "0 ok, 1 failure");
}

const attngen__cli_value *attngen__cli_get(const attngen__cli_args *a, const char *name) {
  const int k = option_index(a->cmd, name);
  if (k < 0) {
    fprintf(stderr, "attngen %s: internal error: no option %s in the table\n", a->cmd->name,
            name);
    abort();
  }
  return &a->v[k];
}

int attngen__cli_given(const attngen__cli_args *a, const char *name) {
  return attngen__cli_get(a, name)->given;
}

long attngen__cli_int(const attngen__cli_args *a, const char *name, long dflt) {
  const attngen__cli_value *v = attngen__cli_get(a, name);
  return v->given ? v->i : dflt;
}

double attngen__cli_real(const attngen__cli_args *a, const char *name, double dflt) {
  const attngen__cli_value *v = attngen__cli_get(a, name);
  return v->given ? v->r : dflt;
}

const char *attngen__cli_text(const attngen__cli_args *a, const char *name, const char *dflt) {
  const attngen__cli_value *v = attngen__cli_get(a, name);
  return v->given ? v->text : dflt;
}

int attngen__cli_choice(const attngen__cli_args *a, const char *name, int dflt) {
  const attngen__cli_value *v = attngen__cli_get(a, name);
  return v->given ? (int)v->i : dflt;
}

void attngen__cli_fill(void *data, attngen_layout layout, int b, int h, int s, int d,
                       attngen__rng *r) {
  attngen__fill_uniform(attngen__view_out_d(data, layout, h, s, d), b, h, s, r, -1.0, 1.0);
}

static void program_usage(FILE *f) {
  fprintf(f, "usage: attngen <command> [options]   (attngen <command> --help for details)\n\n"
             "attngen %s: generated bf16 forward attention kernels (head_dim 64/128/256) for\n"
             "AMD " ATTNGEN__TARGET_GFX942_NAME " (MI300X) and NVIDIA " ATTNGEN__TARGET_SM90_NAME
             " (H100/H200).\n\ncommands:\n",
          attngen_version());
  for (size_t i = 0; i < attngen__cli_command_count; i++)
    fprintf(f, "  %-9s %s\n", attngen__cli_commands[i]->name, attngen__cli_commands[i]->summary);
  fprintf(f, "\n  --version  print the version\n  --help     this text\n");
}

int attngen__cli_main(int argc, char **argv) {
  if (argc < 2) {
    program_usage(stderr);
    return 2;
  }
  const char *name = argv[1];
  if (strcmp(name, "--help") == 0 || strcmp(name, "-h") == 0 || strcmp(name, "help") == 0) {
    program_usage(stdout);
    return 0;
  }
  if (strcmp(name, "--version") == 0) {
    printf("attngen %s (generator %s, build %s)\n", attngen_version(), ATTNGEN_GENERATOR_VERSION,
           attngen_build_id());
    return 0;
  }
  for (size_t i = 0; i < attngen__cli_command_count; i++) {
    const attngen__cli_command *cmd = attngen__cli_commands[i];
    if (strcmp(name, cmd->name) != 0) continue;
    attngen__cli_args a;
    int rc = attngen__cli_parse(cmd, argc - 1, argv + 1, &a);
    if (rc >= 0) return rc;
    fflush(stdout);
    rc = cmd->run(&a);
    fflush(stdout);
    attngen__cli_args_free(&a);
    return rc;
  }
  fprintf(stderr, "attngen: unknown command '%s'\n\n", name);
  program_usage(stderr);
  return 2;
}
