/* tuning_table.h: the tuning database as an object in memory (tuning_table.c): its metadata
 * and records, shape classes and lookup (the rules are in tuning_db.h's header comment), and
 * the record checks that the parser (tuning_db_parse.c) and the file functions (tuning_db.c)
 * share. The bottom of the three: it calls neither. */
#ifndef ATTNGEN_TUNING_TABLE_H
#define ATTNGEN_TUNING_TABLE_H

#include <stddef.h>

#include "attngen.h"

#define ATTNGEN__TUNING_FORMAT_LINE "attngen-tuning 2" /* written; version 1 files are read too */
#define ATTNGEN__TUNING_MAX_LINE 1024   /* bytes per line, newline excluded */
#define ATTNGEN__TUNING_NAME_MAX 128    /* variant name, NUL included */
#define ATTNGEN__TUNING_QUERY_ROWS 128  /* query rows per work item in W */

/* Identity of the machine a file was tuned on. Strings are single-line, NUL-terminated. */
typedef struct attngen__tuning_meta {
  char attngen_version[32];
  char target[16];    /* "gfx942" | "sm90" | "emu" | "cpu" ... */
  char device[256];   /* device name as the driver reports it */
  int cu_count;       /* compute units (AMD) / SMs (NVIDIA) */
  char runtime[64];   /* runtime / driver version text */
} attngen__tuning_meta;

typedef struct attngen__tuning_record {
  attngen_layout layout;
  attngen_rounding rounding;
  int batch, heads, seqlen_q, seqlen_kv;
  /* The call's kind (format 2; a format-1 record is head_dim 128, no mask, MHA). Canonical
   * like call_shape.h: head_dim 0 = 128 and heads_kv 0 = heads (the table stores them so;
   * 128 and heads given by hand mean the same key). causal: 0 or 1 (args.causal). */
  int head_dim;
  int causal;
  int heads_kv;
  char variant[ATTNGEN__TUNING_NAME_MAX];
  double time_ms; /* median time of the winner, in [1e-9, 1e9] */
  double tflops;  /* 4*B*H*Sq*Skv*head_dim / time (causal: the kept pairs), information only;
                     0 or in [1e-9, 1e9] */
} attngen__tuning_record;

typedef enum attngen__tuning_problem {
  ATTNGEN__TUNING_FINE = 0,
  ATTNGEN__TUNING_MISSING,    /* the file does not exist (not worth a message) */
  ATTNGEN__TUNING_UNREADABLE, /* open/read/write failed */
  ATTNGEN__TUNING_MALFORMED,  /* a line is not valid; `line` names it */
  ATTNGEN__TUNING_MISMATCH,   /* metadata differs from the expected; `field` names it */
  ATTNGEN__TUNING_BAD_INPUT   /* an argument (meta value, record) is invalid */
} attngen__tuning_problem;

/* What went wrong, for the caller to report (the module itself prints nothing). */
typedef struct attngen__tuning_diag {
  attngen__tuning_problem problem;
  int line;          /* 1-based line of a malformed file, 0 when not about a line */
  char field[32];    /* metadata field of a mismatch, "" otherwise */
  char message[512]; /* full sentence, starts with the file name */
} attngen__tuning_diag;

typedef enum attngen__tuning_match {
  ATTNGEN__TUNING_NONE = 0,
  ATTNGEN__TUNING_EXACT,
  ATTNGEN__TUNING_CLASS
} attngen__tuning_match;

typedef struct attngen__tuning_file attngen__tuning_file;

/* An empty database carrying `meta` (validated: single-line strings that fit). */
attngen_status attngen__tuning_db_new(const attngen__tuning_meta *meta, attngen__tuning_file **out,
                                      attngen__tuning_diag *diag);

void attngen__tuning_db_free(attngen__tuning_file *db);

const attngen__tuning_meta *attngen__tuning_db_meta(const attngen__tuning_file *db);
size_t attngen__tuning_db_count(const attngen__tuning_file *db);
/* Record i in key order (i < count), NULL past the end. */
const attngen__tuning_record *attngen__tuning_db_record(const attngen__tuning_file *db, size_t i);

/* The record serving a head_dim-128, maskless, MHA call, or NULL; *match (optional) says
 * exact or class. Read-only, so concurrent lookups on one database are safe. */
const attngen__tuning_record *attngen__tuning_db_lookup(const attngen__tuning_file *db, int batch,
                                                        int heads, int seqlen_q,
                                                        int seqlen_kv, attngen_layout layout,
                                                        attngen_rounding rounding,
                                                        attngen__tuning_match *match);

/* The key of a call: its shape (call_shape.h, canonical head_dim / heads_kv) and mask; the
 * variant and the times left empty. */
struct attngen__call_shape;
attngen__tuning_record attngen__tuning_key(const struct attngen__call_shape *s, int causal);

/* The same for a call of any kind: key's layout, rounding, batch, heads, seqlen_q, seqlen_kv,
 * head_dim, causal and heads_kv are read (0 = 128 / heads as in the record). An exact record
 * has the whole key; a class record has the key's layout, rounding, head_dim, causal and
 * KV-group size heads / heads_kv, and the class of its shape. */
const attngen__tuning_record *attngen__tuning_db_find(const attngen__tuning_file *db,
                                                      const attngen__tuning_record *key,
                                                      attngen__tuning_match *match);

/* Inserts a record, replacing the one with the same key. */
attngen_status attngen__tuning_db_put(attngen__tuning_file *db, const attngen__tuning_record *r,
                                      attngen__tuning_diag *diag);

/* Class bucket R(x) = round(log2 x); -1000 for x <= 0. */
int attngen__tuning_bucket(double x);

/* The class key of a shape: [0]=R(Sq), [1]=R(Skv), [2]=R(W) (layout/rounding kept apart). */
void attngen__tuning_class(int batch, int heads, int seqlen_q, int seqlen_kv, int cu_count,
                           int key[3]);

/* Metadata fields compare: returns the name of the first differing field, NULL if equal. */
const char *attngen__tuning_meta_diff(const attngen__tuning_meta *a,
                                      const attngen__tuning_meta *b);

/* Fills a meta (truncation is an error: INVALID_ARGUMENT with diag). */
attngen_status attngen__tuning_meta_set(attngen__tuning_meta *m, const char *attngen_version,
                                        const char *target, const char *device, int cu_count,
                                        const char *runtime, attngen__tuning_diag *diag);

/* ---- shared with tuning_db_parse.c and tuning_db.c */

#define ATTNGEN__TDB_META_FIELDS 5

typedef struct attngen__tdb_entry {
  attngen__tuning_record r; /* first member: &entry->r is what callers see */
  int cls[3];               /* R(Sq), R(Skv), R(W) */
  double log_sq, log_skv, log_w;
} attngen__tdb_entry;

struct attngen__tuning_file {
  attngen__tuning_meta meta;
  attngen__tdb_entry *e;
  size_t n, cap;
};

/* The metadata fields in file order. */
extern const char *const attngen__tdb_meta_names[ATTNGEN__TDB_META_FIELDS];

static inline int attngen__tdb_is_blank(char c) { return c == ' ' || c == '\t'; }

void attngen__tdb_diag_clear(attngen__tuning_diag *d);
void attngen__tdb_diag_set(attngen__tuning_diag *d, attngen__tuning_problem p, int line,
                     const char *field, const char *fmt, ...);
size_t attngen__tdb_find_slot(const attngen__tuning_file *db, const attngen__tuning_record *r,
                        int *found);
attngen_status attngen__tdb_insert(attngen__tuning_file *db, const attngen__tuning_record *r,
                             int *replaced);
void attngen__tdb_meta_value_text(const attngen__tuning_meta *m, const char *field, char *buf,
                            size_t size);
int attngen__tdb_tflops_ok(double t);
int attngen__tdb_time_ok(double ms);
int attngen__tdb_variant_name_ok(const char *s);
/* Why a record is invalid, or NULL. */
const char *attngen__tdb_record_problem(const attngen__tuning_record *r);

#endif /* ATTNGEN_TUNING_TABLE_H */
