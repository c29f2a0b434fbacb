/* cli.h: the command line as data. Every command of the attngen program is one
 * attngen__cli_command: its name, summary, synopsis, the table of its options (name, type,
 * value name, help, allowed values) and its handler. One parser (cli.c) reads every
 * command's arguments against its table and produces the usage text, --help and the
 * argument errors from it: unknown options, a missing or malformed value, a value out of
 * range or not among the allowed names, an option given twice, options that exclude each
 * other and missing required ones all end with the same message form and exit status 2;
 * a handler runs only on arguments that passed. Checks that need more than one option or the
 * machine go through attngen__cli_usage_error, the one usage error of the program. */
#ifndef ATTNGEN_CLI_H
#define ATTNGEN_CLI_H

#include <float.h>
#include <stddef.h>

#include "attngen.h"
#include "verify.h"

typedef enum attngen__cli_type {
  ATTNGEN__CLI_FLAG = 0, /* no value */
  ATTNGEN__CLI_INT,      /* a plain decimal (digits only) in [lo, hi] */
  ATTNGEN__CLI_REAL,     /* a number (strtod syntax) that is finite as a float, in [lo, hi] */
  ATTNGEN__CLI_TEXT,     /* non-empty text of at most max_len bytes (0: 4095) */
  ATTNGEN__CLI_CHOICE,   /* one of choices[0..nchoices) or `extra`; value: its index (extra:
                            nchoices) */
  ATTNGEN__CLI_SHAPE,    /* B,H,Sq,Skv or B,H,S (Skv = Sq): plain decimals separated by one
                            ',' or 'x'; the shape must pass the library's argument checks */
  ATTNGEN__CLI_BACKEND   /* "auto" or a backend's name (the library's list) */
} attngen__cli_type;

typedef struct attngen__cli_option {
  const char *name;     /* "--shape", "-o" */
  attngen__cli_type type;
  const char *metavar;  /* the value's name in the usage ("B,H,Sq,Skv"); NULL for flags */
  const char *help;     /* one or more lines (without the option column) */
  double lo, hi;        /* INT and REAL: allowed range */
  int lo_open;          /* REAL: lo itself is not allowed (the range is (lo, hi]) */
  const char *const *choices; /* CHOICE: the allowed names */
  int nchoices;
  const char *extra;    /* CHOICE: one more allowed name (e.g. "all"), or NULL */
  size_t max_len;       /* TEXT: longest value in bytes (0: 4095) */
  int repeat;           /* may be given more than once (each value kept, in order) */
  int required;         /* must be given */
  const char *excludes; /* options (space-separated) that may not be given with this one */
  const char *needs;    /* an option that must be given with this one, or NULL */
} attngen__cli_option;

/* One option as parsed. */
typedef struct attngen__cli_value {
  int given;            /* times given (0: not given; the accessors return the default) */
  const char *text;     /* the last value's text (NULL for flags) */
  long i;               /* INT value, CHOICE index */
  double r;             /* REAL value */
  attngen__call_shape shape; /* SHAPE value (layout and rounding 0) */
  const char **all;     /* repeat: the value texts in order (all[0..given)) */
} attngen__cli_value;

#define ATTNGEN__CLI_MAX_OPTIONS 32

struct attngen__cli_command;

typedef struct attngen__cli_args {
  const struct attngen__cli_command *cmd;
  attngen__cli_value v[ATTNGEN__CLI_MAX_OPTIONS]; /* indexed like cmd->options */
  const char **positional;                        /* the positional arguments */
  int npositional;
} attngen__cli_args;

typedef struct attngen__cli_command {
  const char *name;
  const char *summary;      /* one line, for `attngen --help` */
  const char *synopsis;     /* after "usage: attngen NAME ", e.g. "--shape B,H,Sq,Skv [options]" */
  const char *description;  /* paragraphs between the usage line and the options, or NULL */
  const attngen__cli_option *options; /* ends with an entry whose name is NULL */
  const char *positional;   /* the positional arguments' name ("FILE.co", "ls|clear|verify"),
                               NULL when the command takes none */
  const char *const *positional_choices; /* allowed positional words (NULL-terminated), or NULL */
  int min_positional, max_positional;
  const char *exit_status;  /* "0 ok, 1 failure ..." (", 2 usage error." is appended) */
  int (*run)(const attngen__cli_args *args);
} attngen__cli_command;

/* The commands, each defined with its option table in cli/cmd_<name>.c. */
extern const attngen__cli_command attngen__cli_cmd_generate, attngen__cli_cmd_list,
    attngen__cli_cmd_info, attngen__cli_cmd_run, attngen__cli_cmd_check, attngen__cli_cmd_tune,
    attngen__cli_cmd_bench, attngen__cli_cmd_cache, attngen__cli_cmd_compile,
    attngen__cli_cmd_report;

/* The program's commands (main.c), in the order of `attngen --help`. */
extern const attngen__cli_command *const attngen__cli_commands[];
extern const size_t attngen__cli_command_count;

/* Runs the command line: finds the command, parses its arguments, prints --help, runs the
 * handler. Returns the exit status. */
int attngen__cli_main(int argc, char **argv);

/* Parses argv[1..argc) (argv[0] is the command name) against cmd's table into *a. Returns
 * -1 to go on, 0 after --help (printed to stdout), 2 after a usage error (printed). */
int attngen__cli_parse(const attngen__cli_command *cmd, int argc, char **argv,
                       attngen__cli_args *a);
void attngen__cli_args_free(attngen__cli_args *a);

/* Prints the command's usage text (from its table) to f. */
void attngen__cli_usage(const attngen__cli_command *cmd, FILE *f);

/* The one usage error: "attngen CMD: <message>" and the --help hint on stderr; returns 2. */
int attngen__cli_usage_error(const attngen__cli_command *cmd, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* --heads-kv against the query heads: 0 when heads_kv is 0 (none given) or divides heads, else
 * the usage error "--heads-kv N does not divide <heads_what> (allowed: a divisor of the
 * heads)" and 2. heads_what names the heads, e.g. "--heads 6" or "the 4 heads of --shape". */
int attngen__cli_check_heads_kv(const attngen__cli_command *cmd, int heads_kv, int heads,
                                const char *heads_what);

/* The TEXT option `opt`, a comma-separated list of int32 values in [lo, 2^31) (at most `max`),
 * into out: their count (0 when not given), or -1 after the usage error "OPT TEXT: expected at
 * most MAX comma-separated integers in [LO, 2147483647]". */
int attngen__cli_int_list(const attngen__cli_args *args, const char *opt, int32_t *out, int max,
                          long long lo);

/* Runs fn(ctx, i) once for every i in [0, count), on `threads` threads (the caller's
 * included; at most 64, at most count): each thread takes the next index until none is left.
 * fn must be safe to call concurrently; returns when every call has returned. */
void attngen__cli_parallel(size_t count, long threads, void (*fn)(void *ctx, size_t i), void *ctx);

/* Floating-point work of a call: 2 x the multiply-adds of Q K^T and P V over the (query, key)
 * pairs the mask keeps (causal: query i sees keys j <= i + Skv - Sq), 4 B H pairs head_dim. */
double attngen__cli_flops(const attngen__call_shape *s, int causal);

/* The option `name` of the command as parsed; aborts on a name the table does not have (a
 * programming error, caught by every test that runs the command). */
const attngen__cli_value *attngen__cli_get(const attngen__cli_args *a, const char *name);
int attngen__cli_given(const attngen__cli_args *a, const char *name);
long attngen__cli_int(const attngen__cli_args *a, const char *name, long dflt);
double attngen__cli_real(const attngen__cli_args *a, const char *name, double dflt);
const char *attngen__cli_text(const attngen__cli_args *a, const char *name, const char *dflt);
/* The CHOICE's index (nchoices for `extra`), dflt when not given. */
int attngen__cli_choice(const attngen__cli_args *a, const char *name, int dflt);

/* Shape text -> shape, with the rules of ATTNGEN__CLI_SHAPE: 1, or 0 with why (a sentence
 * naming the first problem) in why[0..why_len). Also used for shapes read from files. */
int attngen__cli_parse_shape(const char *text, attngen__call_shape *s, char *why,
                             size_t why_len);

/* A macro's value as a string (for usage texts). */
#define ATTNGEN__CLI_STR_(x) #x
#define ATTNGEN__CLI_STR(x) ATTNGEN__CLI_STR_(x)

/* --scale's range in every command (run, check): any finite float, 0 included, as the
 * library accepts (attngen_fwd_args.softmax_scale). */
#define ATTNGEN__CLI_SCALE_RANGE (-(double)FLT_MAX), ((double)FLT_MAX)

/* The choices of the options every command shares, from the library (generated names). */
#define ATTNGEN__CLI_LAYOUT_CHOICES attngen__layout_names, ATTNGEN__LAYOUT_COUNT
#define ATTNGEN__CLI_ROUNDING_CHOICES attngen__rounding_names, ATTNGEN__ROUNDING_COUNT
#define ATTNGEN__CLI_TARGET_CHOICES attngen__target_names, ATTNGEN__TARGET_COUNT

/* Fills a dense [B,H,S,d] bf16 tensor of `layout` with uniform values in [-1, 1], never
 * zero (check/testdata.c), from the generator r. */
void attngen__cli_fill(void *data, attngen_layout layout, int b, int h, int s, int d,
                       attngen__rng *r);

#endif /* ATTNGEN_CLI_H */
