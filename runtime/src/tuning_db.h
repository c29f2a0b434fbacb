/* tuning_db.h: the tuning database that `attngen tune` writes and the dispatcher reads.
 * Pure C, no device: parse, validate against the running machine's metadata, look up a
 * variant for a shape, merge records and write the file atomically.
 *
 * File format (text, one item per line, '#' starts a comment line, blank lines ignored):
 *
 *   attngen-tuning 1
 *   meta attngen_version 0.1.0
 *   meta target gfx942
 *   meta device AMD Instinct MI300X
 *   meta cu_count 304
 *   meta runtime hip 6.2.41133
 *   record bshd rtne 2 24 8192 8192 attn_fwd_d128_bshd_rtne_q3_kv64_w8_tail_gfx942 1.2345 512.37
 *
 * The first item is the format line; the five meta lines follow in any order (each exactly
 * once; the value is the rest of the line, inner spaces kept) before the first record. A
 * record is: layout rounding B H Sq Skv variant time_ms tflops — the tuned shape, the
 * winning variant, its median time and its TFLOP/s (information only). Each (layout,
 * rounding, B, H, Sq, Skv) appears at most once. Anything else is malformed: the whole file
 * is ignored and the diagnostic names the line. A file whose metadata differs from the
 * running machine's is ignored as a whole (never half-applied); the diagnostic names the
 * first differing field with the expected and the found value. Meta values are non-empty;
 * numbers use the C locale (a '.' decimal point).
 *
 * Shape classes (how a tuned shape serves nearby shapes):
 *   class = (layout, rounding, R(Sq), R(Skv), R(W))
 *   R(x)  = round(log2 x), an octave bucket centred on the powers of two, so 8192 and 8000
 *           share a bucket (boundaries at 2^(k+1/2): 5793 | 11585 for 8192); R(0) = -1000.
 *   W     = B * H * ceil(Sq / 128) / cu_count: blocks of 128 query rows per compute unit,
 *           i.e. the number of "waves" of blocks the device runs (cu_count from the file's
 *           metadata, which equals the device's; <= 0 counts as 1). W captures the tail
 *           effect that decides e.g. the KV split, and B*H enters only through it.
 * Lookup: an exact record of (layout, rounding, B, H, Sq, Skv) wins; otherwise, among the
 * records of the query's class, the one nearest to the query (sum of |log2| ratios of Sq,
 * Skv and W; ties -> the first in key order) is used; otherwise there is no entry and the
 * dispatcher falls back to its heuristic. Records are kept sorted by key, so the result
 * does not depend on how the file was assembled. */
#ifndef ATTNGEN_TUNING_DB_H
#define ATTNGEN_TUNING_DB_H

#include <stddef.h>

#include "attngen.h"

#define ATTNGEN__TUNING_FORMAT_LINE "attngen-tuning 1"
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
  char variant[ATTNGEN__TUNING_NAME_MAX];
  double time_ms; /* median time of the winner, in [1e-9, 1e9] */
  double tflops;  /* 4*B*H*Sq*Skv*128 / time, information only; 0 or in [1e-9, 1e9] */
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

/* Parses a file's text. `name` is used in messages. `expected` NULL accepts any metadata.
 * On any problem *out stays NULL and nothing of the text is kept. Status: OK,
 * INVALID_ARGUMENT (malformed, mismatch or bad argument; diag->problem says which),
 * OUT_OF_MEMORY. */
attngen_status attngen__tuning_db_parse(const char *text, size_t len, const char *name,
                                        const attngen__tuning_meta *expected,
                                        attngen__tuning_file **out, attngen__tuning_diag *diag);

/* Reads and parses `path`. A missing file gives IO_ERROR with problem MISSING. */
attngen_status attngen__tuning_db_load(const char *path, const attngen__tuning_meta *expected,
                                       attngen__tuning_file **out, attngen__tuning_diag *diag);

void attngen__tuning_db_free(attngen__tuning_file *db);

const attngen__tuning_meta *attngen__tuning_db_meta(const attngen__tuning_file *db);
size_t attngen__tuning_db_count(const attngen__tuning_file *db);
/* Record i in key order (i < count), NULL past the end. */
const attngen__tuning_record *attngen__tuning_db_record(const attngen__tuning_file *db, size_t i);

/* The record serving a call, or NULL; *match (optional) says exact or class. Read-only, so
 * concurrent lookups on one database are safe. */
const attngen__tuning_record *attngen__tuning_db_lookup(const attngen__tuning_file *db, int batch,
                                                        int heads, int seqlen_q,
                                                        int seqlen_kv, attngen_layout layout,
                                                        attngen_rounding rounding,
                                                        attngen__tuning_match *match);

/* Inserts a record, replacing the one with the same key. */
attngen_status attngen__tuning_db_put(attngen__tuning_file *db, const attngen__tuning_record *r,
                                      attngen__tuning_diag *diag);

/* Serializes into a malloc'd NUL-terminated text (*len without the NUL). */
attngen_status attngen__tuning_db_format(const attngen__tuning_file *db, char **text, size_t *len);

/* Writes the database to `path` through a temporary file in the same directory and an
 * atomic rename; the temporary file is removed on failure. */
attngen_status attngen__tuning_db_save(const attngen__tuning_file *db, const char *path,
                                       attngen__tuning_diag *diag);

/* Merges records into the file at `path` under `meta`: existing records of other keys are
 * kept, same keys replaced. A missing file is created. An existing file that is malformed
 * or whose metadata differs is left untouched and reported (INVALID_ARGUMENT), unless
 * `replace_invalid` is set, in which case a new file replaces it (then the call succeeds with
 * problem FINE and diag->message telling what was replaced). Holds an advisory lock on
 * the directory across read-merge-write so that concurrent tuners do not lose records. */
attngen_status attngen__tuning_db_merge_file(const char *path, const attngen__tuning_meta *meta,
                                             const attngen__tuning_record *records, size_t n,
                                             int replace_invalid, attngen__tuning_diag *diag);

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

/* The metadata of the device a context runs on, the same way for the tuner (writing) and
 * the dispatcher (reading): attngen version, props.target, props.name, props.compute_units
 * and "<backend> <driver_version>". Never fails: odd characters become '?', empty values
 * "unknown". */
void attngen__tuning_meta_from_device(const attngen_device_props *props,
                                      attngen__tuning_meta *meta);

/* Default file: $ATTNGEN_TUNING_FILE, else <cache dir>/tuning.db with the cache dir of the
 * JIT ($ATTNGEN_CACHE_DIR, $XDG_CACHE_HOME/attngen, ~/.cache/attngen). Returns 0 on success,
 * -1 if no location can be found or it does not fit. */
int attngen__tuning_default_path(char *buf, size_t size);

#endif /* ATTNGEN_TUNING_DB_H */
