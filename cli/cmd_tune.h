/* cmd_tune.h: what the two files of `attngen tune` share: cmd_tune.c (the search: check,
 * time, record) and cmd_tune_args.c (usage and argument parsing). */
#ifndef ATTNGEN_CMD_TUNE_H
#define ATTNGEN_CMD_TUNE_H

#include "attngen.h"
#include "cli.h"

#define MAX_SHAPES 4096
#define MAX_ITERS 100000
#define ROTATE_BYTES ((size_t)1 << 30) /* > MI300X Infinity Cache (256 MiB), H200 L2 */
#define MAX_SETS 8
#define CHECK_FULL_LIMIT 2048           /* Sq, Skv up to this are checked at full length */
#define CHECK_SEED 0x7475u

typedef struct options {
  attngen__call_shape *shapes; /* layout and rounding unset: a job takes them from --layout
                                  and --round */
  int nshapes;
  attngen_layout layouts[ATTNGEN__LAYOUT_COUNT];
  int nlayouts;
  attngen_rounding roundings[ATTNGEN__ROUNDING_COUNT];
  int nroundings;
  int head_dim;     /* --head-dim (128 by default) */
  int heads_kv;     /* --heads-kv, 0 = each shape's heads */
  int causal;       /* --causal */
  const char *target;
  const char *backend;
  int device;
  int warmup, iters;
  double timeout_s;
  const char *out_path;
  int replace;
  int write;
  int jobs;         /* -j: candidates compiled at a time before the timing */
  char **only;      /* --variants: names to keep, NULL = all */
  int nonly;
} options;

typedef struct candidate {
  char name[ATTNGEN__TUNING_NAME_MAX];
  int force;        /* 0: the dispatcher's own choice (a target without a search space) */
  int is_default;
  int ok;           /* passed the check and timed */
  char failure[256];
  double median, q20, q80;
  int samples;
} candidate;

typedef struct job {
  attngen__call_shape s; /* the shape, layout, rounding, head_dim and KV heads tuned */
  int causal;            /* the call's mask (args.causal) */
  char default_name[128];
  const char *default_rule;
  candidate *c;
  int nc;
  int best;         /* index into c, -1 = none */
  int def;          /* index of the default into c, -1 = none */
} job;

/* The options of the parsed command line (the table is cmd_tune_args.c's; shapes files are
 * read here): -1 to go on, else 2 after a usage error (printed). */
int attngen__tune_options_of(const attngen__cli_args *args, options *o);
void attngen__tune_options_free(options *o);
/* The handler (cmd_tune.c). */
int attngen__cmd_tune(const attngen__cli_args *args);

#endif /* ATTNGEN_CMD_TUNE_H */
