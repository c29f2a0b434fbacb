/* tuning_db.c: the tuning database file (format, shape classes and lookup rules are
 * documented in tuning_db.h). Parsing is all-or-nothing: a database object exists only for
 * a file that is valid from its first line to its last and matches the expected metadata. */
#define _GNU_SOURCE
#include "tuning_db.h"

#include "axes.h"
#include "cache.h"
#include "fsutil.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define MAX_FILE_BYTES (16u << 20)
#define META_FIELDS 5

typedef struct entry {
  attngen__tuning_record r; /* first member: &entry->r is what callers see */
  int cls[3];               /* R(Sq), R(Skv), R(W) */
  double log_sq, log_skv, log_w;
} entry;

struct attngen__tuning_file {
  attngen__tuning_meta meta;
  entry *e;
  size_t n, cap;
};

static const char *const meta_names[META_FIELDS] = {"attngen_version", "target", "device",
                                                    "cu_count", "runtime"};

static void diag_clear(attngen__tuning_diag *d) {
  if (!d) return;
  d->problem = ATTNGEN__TUNING_FINE;
  d->line = 0;
  d->field[0] = 0;
  d->message[0] = 0;
}

static void diag_set(attngen__tuning_diag *d, attngen__tuning_problem p, int line,
                     const char *field, const char *fmt, ...) {
  if (!d) return;
  d->problem = p;
  d->line = line;
  snprintf(d->field, sizeof d->field, "%s", field ? field : "");
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(d->message, sizeof d->message, fmt, ap);
  va_end(ap);
}

/* ---- shape classes ---------------------------------------------------------------------- */

int attngen__tuning_bucket(double x) {
  if (!(x > 0)) return -1000;
  return (int)floor(log2(x) + 0.5);
}

static double work_waves(int batch, int heads, int seqlen_q, int cu_count) {
  double blocks = (double)batch * heads *
                  (double)(((int64_t)seqlen_q + ATTNGEN__TUNING_QUERY_ROWS - 1) /
                           ATTNGEN__TUNING_QUERY_ROWS);
  return blocks / (cu_count > 0 ? cu_count : 1);
}

void attngen__tuning_class(int batch, int heads, int seqlen_q, int seqlen_kv, int cu_count,
                           int key[3]) {
  key[0] = attngen__tuning_bucket(seqlen_q);
  key[1] = attngen__tuning_bucket(seqlen_kv);
  key[2] = attngen__tuning_bucket(work_waves(batch, heads, seqlen_q, cu_count));
}

static double log2_or_zero(double x) { return x > 0 ? log2(x) : -1e9; }

static void entry_fill(entry *e, const attngen__tuning_record *r, int cu_count) {
  e->r = *r;
  attngen__tuning_class(r->batch, r->heads, r->seqlen_q, r->seqlen_kv, cu_count, e->cls);
  e->log_sq = log2_or_zero(r->seqlen_q);
  e->log_skv = log2_or_zero(r->seqlen_kv);
  e->log_w = log2_or_zero(work_waves(r->batch, r->heads, r->seqlen_q, cu_count));
}

/* ---- records ---------------------------------------------------------------------------- */

static int cmp_int(int a, int b) { return (a > b) - (a < b); }

static int key_cmp(const attngen__tuning_record *a, const attngen__tuning_record *b) {
  int c;
  if ((c = cmp_int((int)a->layout, (int)b->layout))) return c;
  if ((c = cmp_int((int)a->rounding, (int)b->rounding))) return c;
  if ((c = cmp_int(a->batch, b->batch))) return c;
  if ((c = cmp_int(a->heads, b->heads))) return c;
  if ((c = cmp_int(a->seqlen_q, b->seqlen_q))) return c;
  return cmp_int(a->seqlen_kv, b->seqlen_kv);
}


static int variant_name_ok(const char *s) {
  size_t n = strnlen(s, ATTNGEN__TUNING_NAME_MAX);
  if (n == 0 || n >= ATTNGEN__TUNING_NAME_MAX) return 0;
  for (size_t i = 0; i < n; i++) {
    char c = s[i];
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
          c == '_'))
      return 0;
  }
  return 1;
}

/* Bounds keep the values normal doubles, so "%.9g" text reads back to the same text. */
static int time_ok(double ms) { return ms >= 1e-9 && ms <= 1e9; }
static int tflops_ok(double t) { return t == 0 || (t >= 1e-9 && t <= 1e9); }

/* Why a record is invalid, or NULL. */
static const char *record_problem(const attngen__tuning_record *r) {
  if (!attngen__layout_name(r->layout)) return "unknown layout";
  if (!attngen__rounding_name(r->rounding)) return "unknown rounding";
  if (r->batch < 1 || r->heads < 1 || r->seqlen_q < 1 || r->seqlen_kv < 0)
    return "shape out of range (B, H, Sq >= 1, Skv >= 0)";
  if (!variant_name_ok(r->variant)) return "variant name is not [A-Za-z0-9_]{1,127}";
  if (!time_ok(r->time_ms)) return "time_ms must be in [1e-9, 1e9]";
  if (!tflops_ok(r->tflops)) return "tflops must be in [0, 1e9]";
  return NULL;
}

/* Index of the record with r's key, or where it would go (*found says which). */
static size_t find_slot(const attngen__tuning_file *db, const attngen__tuning_record *r,
                        int *found) {
  size_t lo = 0, hi = db->n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    int c = key_cmp(&db->e[mid].r, r);
    if (c == 0) {
      *found = 1;
      return mid;
    }
    if (c < 0)
      lo = mid + 1;
    else
      hi = mid;
  }
  *found = 0;
  return lo;
}

/* Inserts or replaces; *replaced (optional) tells which. Record already validated. */
static attngen_status insert(attngen__tuning_file *db, const attngen__tuning_record *r,
                             int *replaced) {
  int found;
  size_t at = find_slot(db, r, &found);
  if (replaced) *replaced = found;
  if (found) {
    entry_fill(&db->e[at], r, db->meta.cu_count);
    return ATTNGEN_STATUS_OK;
  }
  if (db->n == db->cap) {
    size_t cap = db->cap ? db->cap * 2 : 16;
    entry *e = realloc(db->e, cap * sizeof *e);
    if (!e) return ATTNGEN_STATUS_OUT_OF_MEMORY;
    db->e = e;
    db->cap = cap;
  }
  memmove(&db->e[at + 1], &db->e[at], (db->n - at) * sizeof *db->e);
  entry_fill(&db->e[at], r, db->meta.cu_count);
  db->n++;
  return ATTNGEN_STATUS_OK;
}

/* ---- metadata --------------------------------------------------------------------------- */

/* Non-empty, and no control character but tab (what a line of the file can carry). */
static int single_line_nonempty(const char *s) {
  if (!s || !*s) return 0;
  for (; *s; s++)
    if ((unsigned char)*s < 0x20 && *s != '\t') return 0;
  return 1;
}

static int copy_field(char *dst, size_t size, const char *src) {
  size_t n = strlen(src);
  if (n >= size) return 0;
  memcpy(dst, src, n + 1);
  return 1;
}

static int value_ok(const char *v, size_t size) {
  if (!single_line_nonempty(v) || strlen(v) >= size) return 0;
  /* stored values are trimmed, so leading/trailing blanks would not survive a round trip */
  size_t n = strlen(v);
  return !(v[0] == ' ' || v[0] == '\t' || v[n - 1] == ' ' || v[n - 1] == '\t');
}

static const char *meta_problem(const attngen__tuning_meta *m) {
  if (!value_ok(m->attngen_version, sizeof m->attngen_version)) return "attngen_version";
  if (!value_ok(m->target, sizeof m->target)) return "target";
  if (!value_ok(m->device, sizeof m->device)) return "device";
  if (m->cu_count < 0) return "cu_count";
  if (!value_ok(m->runtime, sizeof m->runtime)) return "runtime";
  return NULL;
}

attngen_status attngen__tuning_meta_set(attngen__tuning_meta *m, const char *attngen_version,
                                        const char *target, const char *device, int cu_count,
                                        const char *runtime, attngen__tuning_diag *diag) {
  diag_clear(diag);
  if (!m || !attngen_version || !target || !device || !runtime) {
    diag_set(diag, ATTNGEN__TUNING_BAD_INPUT, 0, NULL, "tuning metadata: a value is NULL");
    return ATTNGEN_STATUS_NULL_POINTER;
  }
  memset(m, 0, sizeof *m);
  m->cu_count = cu_count;
  const char *bad = NULL;
  if (!copy_field(m->attngen_version, sizeof m->attngen_version, attngen_version))
    bad = "attngen_version";
  else if (!copy_field(m->target, sizeof m->target, target))
    bad = "target";
  else if (!copy_field(m->device, sizeof m->device, device))
    bad = "device";
  else if (!copy_field(m->runtime, sizeof m->runtime, runtime))
    bad = "runtime";
  if (!bad) bad = meta_problem(m);
  if (bad) {
    diag_set(diag, ATTNGEN__TUNING_BAD_INPUT, 0, bad,
             "tuning metadata: '%s' must be one non-empty line without outer blanks that fits "
             "its field (cu_count >= 0)",
             bad);
    return ATTNGEN_STATUS_INVALID_ARGUMENT;
  }
  return ATTNGEN_STATUS_OK;
}

const char *attngen__tuning_meta_diff(const attngen__tuning_meta *a,
                                      const attngen__tuning_meta *b) {
  if (strcmp(a->attngen_version, b->attngen_version) != 0) return "attngen_version";
  if (strcmp(a->target, b->target) != 0) return "target";
  if (strcmp(a->device, b->device) != 0) return "device";
  if (a->cu_count != b->cu_count) return "cu_count";
  if (strcmp(a->runtime, b->runtime) != 0) return "runtime";
  return NULL;
}

static void meta_value_text(const attngen__tuning_meta *m, const char *field, char *buf,
                            size_t size) {
  if (strcmp(field, "attngen_version") == 0) snprintf(buf, size, "%s", m->attngen_version);
  else if (strcmp(field, "target") == 0) snprintf(buf, size, "%s", m->target);
  else if (strcmp(field, "device") == 0) snprintf(buf, size, "%s", m->device);
  else if (strcmp(field, "cu_count") == 0) snprintf(buf, size, "%d", m->cu_count);
  else snprintf(buf, size, "%s", m->runtime);
}

/* ---- database object -------------------------------------------------------------------- */

attngen_status attngen__tuning_db_new(const attngen__tuning_meta *meta, attngen__tuning_file **out,
                                      attngen__tuning_diag *diag) {
  diag_clear(diag);
  if (!out) return ATTNGEN_STATUS_NULL_POINTER;
  *out = NULL;
  if (!meta) return ATTNGEN_STATUS_NULL_POINTER;
  const char *bad = meta_problem(meta);
  if (bad) {
    diag_set(diag, ATTNGEN__TUNING_BAD_INPUT, 0, bad,
             "tuning metadata: '%s' must be one non-empty line without outer blanks "
             "(cu_count >= 0)",
             bad);
    return ATTNGEN_STATUS_INVALID_ARGUMENT;
  }
  attngen__tuning_file *db = calloc(1, sizeof *db);
  if (!db) return ATTNGEN_STATUS_OUT_OF_MEMORY;
  db->meta = *meta;
  *out = db;
  return ATTNGEN_STATUS_OK;
}

void attngen__tuning_db_free(attngen__tuning_file *db) {
  if (!db) return;
  free(db->e);
  free(db);
}

const attngen__tuning_meta *attngen__tuning_db_meta(const attngen__tuning_file *db) {
  return db ? &db->meta : NULL;
}

size_t attngen__tuning_db_count(const attngen__tuning_file *db) { return db ? db->n : 0; }

const attngen__tuning_record *attngen__tuning_db_record(const attngen__tuning_file *db, size_t i) {
  return db && i < db->n ? &db->e[i].r : NULL;
}

attngen_status attngen__tuning_db_put(attngen__tuning_file *db, const attngen__tuning_record *r,
                                      attngen__tuning_diag *diag) {
  diag_clear(diag);
  if (!db || !r) return ATTNGEN_STATUS_NULL_POINTER;
  const char *why = record_problem(r);
  if (why) {
    diag_set(diag, ATTNGEN__TUNING_BAD_INPUT, 0, NULL, "tuning record: %s", why);
    return ATTNGEN_STATUS_INVALID_ARGUMENT;
  }
  return insert(db, r, NULL);
}

const attngen__tuning_record *attngen__tuning_db_lookup(const attngen__tuning_file *db, int batch,
                                                        int heads, int seqlen_q,
                                                        int seqlen_kv, attngen_layout layout,
                                                        attngen_rounding rounding,
                                                        attngen__tuning_match *match) {
  if (match) *match = ATTNGEN__TUNING_NONE;
  if (!db || batch < 1 || heads < 1 || seqlen_q < 1 || seqlen_kv < 0) return NULL;
  attngen__tuning_record key;
  key.layout = layout;
  key.rounding = rounding;
  key.batch = batch;
  key.heads = heads;
  key.seqlen_q = seqlen_q;
  key.seqlen_kv = seqlen_kv;
  int found;
  size_t at = find_slot(db, &key, &found);
  if (found) {
    if (match) *match = ATTNGEN__TUNING_EXACT;
    return &db->e[at].r;
  }
  int cls[3];
  attngen__tuning_class(batch, heads, seqlen_q, seqlen_kv, db->meta.cu_count, cls);
  double lsq = log2_or_zero(seqlen_q), lskv = log2_or_zero(seqlen_kv);
  double lw = log2_or_zero(work_waves(batch, heads, seqlen_q, db->meta.cu_count));
  const entry *best = NULL;
  double best_d = 0;
  for (size_t i = 0; i < db->n; i++) {
    const entry *e = &db->e[i];
    if (e->r.layout != layout || e->r.rounding != rounding) continue;
    if (e->cls[0] != cls[0] || e->cls[1] != cls[1] || e->cls[2] != cls[2]) continue;
    double d = fabs(e->log_sq - lsq) + fabs(e->log_skv - lskv) + fabs(e->log_w - lw);
    if (!best || d < best_d) {
      best = e;
      best_d = d;
    }
  }
  if (!best) return NULL;
  if (match) *match = ATTNGEN__TUNING_CLASS;
  return &best->r;
}

/* ---- parsing ---------------------------------------------------------------------------- */

#define MAX_TOKENS 12

typedef struct tokens {
  int n;
  const char *s[MAX_TOKENS];
  size_t len[MAX_TOKENS];
} tokens;

static int is_blank(char c) { return c == ' ' || c == '\t'; }

/* Splits on blanks; returns 0 when there are more than MAX_TOKENS tokens. */
static int tokenize(const char *s, size_t n, tokens *t) {
  t->n = 0;
  size_t i = 0;
  while (i < n) {
    while (i < n && is_blank(s[i])) i++;
    if (i == n) break;
    size_t start = i;
    while (i < n && !is_blank(s[i])) i++;
    if (t->n == MAX_TOKENS) return 0;
    t->s[t->n] = s + start;
    t->len[t->n] = i - start;
    t->n++;
  }
  return 1;
}

static int tok_is(const tokens *t, int i, const char *word) {
  size_t n = strlen(word);
  return t->len[i] == n && memcmp(t->s[i], word, n) == 0;
}

/* Copies token i into buf (NUL-terminated); 0 when it does not fit. */
static int tok_copy(const tokens *t, int i, char *buf, size_t size) {
  if (t->len[i] >= size) return 0;
  memcpy(buf, t->s[i], t->len[i]);
  buf[t->len[i]] = 0;
  return 1;
}

/* Decimal integer in [lo, hi], digits only (no sign, no blanks). */
static int tok_int(const tokens *t, int i, long lo, long hi, int *out) {
  if (t->len[i] == 0 || t->len[i] > 10) return 0;
  long v = 0;
  for (size_t k = 0; k < t->len[i]; k++) {
    char c = t->s[i][k];
    if (c < '0' || c > '9') return 0;
    v = v * 10 + (c - '0');
  }
  if (v < lo || v > hi) return 0;
  *out = (int)v;
  return 1;
}

static int tok_double(const tokens *t, int i, double *out) {
  char buf[64];
  if (!tok_copy(t, i, buf, sizeof buf)) return 0;
  for (const char *p = buf; *p; p++)
    if (!((*p >= '0' && *p <= '9') || *p == '.' || *p == 'e' || *p == 'E' || *p == '+' ||
          *p == '-'))
      return 0; /* no "inf", "nan", hex floats or locale surprises */
  char *end;
  errno = 0;
  double v = strtod(buf, &end);
  if (end == buf || *end != 0 || errno == ERANGE) return 0;
  *out = v;
  return 1;
}

typedef struct parser {
  const char *name;
  attngen__tuning_diag *diag;
  attngen__tuning_file *db;
  int seen_format;
  int meta_seen[META_FIELDS];
  int line;
} parser;

static attngen_status malformed(parser *p, const char *fmt, ...) {
  char what[400];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);
  diag_set(p->diag, ATTNGEN__TUNING_MALFORMED, p->line, NULL,
           "%s:%d: malformed tuning database: %s; the file is ignored", p->name, p->line, what);
  return ATTNGEN_STATUS_INVALID_ARGUMENT;
}

static const char *first_missing_meta(const parser *p) {
  for (int i = 0; i < META_FIELDS; i++)
    if (!p->meta_seen[i]) return meta_names[i];
  return NULL;
}

static attngen_status parse_meta(parser *p, const char *s, size_t n, const tokens *t) {
  if (t->n < 3) return malformed(p, "'meta' needs a field name and a value");
  int field = -1;
  for (int i = 0; i < META_FIELDS; i++)
    if (tok_is(t, 1, meta_names[i])) field = i;
  if (field < 0) {
    char name[40];
    if (!tok_copy(t, 1, name, sizeof name)) snprintf(name, sizeof name, "(too long)");
    return malformed(p, "unknown meta field '%s' (known: attngen_version, target, device, "
                        "cu_count, runtime)", name);
  }
  if (p->meta_seen[field]) return malformed(p, "meta '%s' given twice", meta_names[field]);
  /* value = rest of the line after the field name, outer blanks trimmed */
  const char *v = t->s[2];
  const char *end = s + n;
  while (end > v && is_blank(end[-1])) end--;
  size_t vlen = (size_t)(end - v);
  attngen__tuning_meta *m = &p->db->meta;
  char *dst = NULL;
  size_t size = 0;
  switch (field) {
    case 0: dst = m->attngen_version; size = sizeof m->attngen_version; break;
    case 1: dst = m->target; size = sizeof m->target; break;
    case 2: dst = m->device; size = sizeof m->device; break;
    case 4: dst = m->runtime; size = sizeof m->runtime; break;
    default: break;
  }
  if (field == 3) {
    if (t->n != 3 || !tok_int(t, 2, 0, 1000000, &m->cu_count))
      return malformed(p, "meta cu_count must be an integer in [0, 1000000]");
  } else {
    if (vlen >= size)
      return malformed(p, "meta '%s' is longer than %zu bytes", meta_names[field], size - 1);
    memcpy(dst, v, vlen);
    dst[vlen] = 0;
  }
  p->meta_seen[field] = 1;
  return ATTNGEN_STATUS_OK;
}

static attngen_status parse_record(parser *p, const tokens *t) {
  const char *missing = first_missing_meta(p);
  if (missing) return malformed(p, "record before the metadata is complete (no meta '%s' yet)",
                                missing);
  if (t->n != 10)
    return malformed(p, "a record has 9 fields (layout rounding B H Sq Skv variant time_ms "
                        "tflops), found %d", t->n - 1);
  attngen__tuning_record r;
  memset(&r, 0, sizeof r);
  char word[16];
  if (!tok_copy(t, 1, word, sizeof word) || !attngen__layout_from_name(word, &r.layout))
    return malformed(p, "layout must be one of " ATTNGEN__LAYOUT_LIST);
  if (!tok_copy(t, 2, word, sizeof word) || !attngen__rounding_from_name(word, &r.rounding))
    return malformed(p, "rounding must be one of " ATTNGEN__ROUNDING_LIST);
  if (!tok_int(t, 3, 1, INT_MAX, &r.batch) || !tok_int(t, 4, 1, INT_MAX, &r.heads) ||
      !tok_int(t, 5, 1, INT_MAX, &r.seqlen_q) || !tok_int(t, 6, 0, INT_MAX, &r.seqlen_kv))
    return malformed(p, "B, H, Sq must be integers >= 1 and Skv an integer >= 0");
  if (!tok_copy(t, 7, r.variant, sizeof r.variant) || !variant_name_ok(r.variant))
    return malformed(p, "variant name must be 1-%d characters of [A-Za-z0-9_]",
                     ATTNGEN__TUNING_NAME_MAX - 1);
  if (!tok_double(t, 8, &r.time_ms) || !time_ok(r.time_ms))
    return malformed(p, "time_ms must be a number in [1e-9, 1e9]");
  if (!tok_double(t, 9, &r.tflops) || !tflops_ok(r.tflops))
    return malformed(p, "tflops must be 0 or a number in [1e-9, 1e9]");
  int found;
  find_slot(p->db, &r, &found);
  if (found)
    return malformed(p, "a second record for %s %s %d,%d,%d,%d", attngen__layout_name(r.layout),
                     attngen__rounding_name(r.rounding), r.batch, r.heads, r.seqlen_q, r.seqlen_kv);
  return insert(p->db, &r, NULL);
}

static attngen_status parse_line(parser *p, const char *s, size_t n) {
  for (size_t k = 0; k < n; k++)
    if ((unsigned char)s[k] < 0x20 && s[k] != '\t')
      return malformed(p, "control character 0x%02x in the line", (unsigned char)s[k]);
  if (n > ATTNGEN__TUNING_MAX_LINE)
    return malformed(p, "line longer than %d bytes", ATTNGEN__TUNING_MAX_LINE);
  size_t i = 0;
  while (i < n && is_blank(s[i])) i++;
  if (i == n || s[i] == '#') return ATTNGEN_STATUS_OK;
  tokens t;
  if (!tokenize(s, n, &t)) return malformed(p, "too many fields");
  if (!p->seen_format) {
    if (t.n == 2 && tok_is(&t, 0, "attngen-tuning") && tok_is(&t, 1, "1")) {
      p->seen_format = 1;
      return ATTNGEN_STATUS_OK;
    }
    if (t.n >= 1 && tok_is(&t, 0, "attngen-tuning"))
      return malformed(p, "unsupported format version (this attngen reads '%s')",
                       ATTNGEN__TUNING_FORMAT_LINE);
    return malformed(p, "not a tuning database (the first line must be '%s')",
                     ATTNGEN__TUNING_FORMAT_LINE);
  }
  if (tok_is(&t, 0, "meta")) {
    if (p->db->n > 0) return malformed(p, "meta after the first record");
    return parse_meta(p, s, n, &t);
  }
  if (tok_is(&t, 0, "record")) return parse_record(p, &t);
  return malformed(p, "unknown item (expected 'meta', 'record' or a '#' comment)");
}

attngen_status attngen__tuning_db_parse(const char *text, size_t len, const char *name,
                                        const attngen__tuning_meta *expected,
                                        attngen__tuning_file **out, attngen__tuning_diag *diag) {
  diag_clear(diag);
  if (!out) return ATTNGEN_STATUS_NULL_POINTER;
  *out = NULL;
  if (!text && len) return ATTNGEN_STATUS_NULL_POINTER;
  parser p;
  memset(&p, 0, sizeof p);
  p.name = name ? name : "(tuning database)";
  p.diag = diag;
  p.db = calloc(1, sizeof *p.db);
  if (!p.db) return ATTNGEN_STATUS_OUT_OF_MEMORY;
  attngen_status st = ATTNGEN_STATUS_OK;
  size_t pos = 0;
  while (pos < len && st == ATTNGEN_STATUS_OK) {
    const char *nl = memchr(text + pos, '\n', len - pos);
    size_t end = nl ? (size_t)(nl - text) : len;
    size_t n = end - pos;
    if (n > 0 && text[pos + n - 1] == '\r') n--;
    p.line++;
    st = parse_line(&p, text + pos, n);
    pos = end + 1;
  }
  if (st == ATTNGEN_STATUS_OK) {
    if (!p.seen_format) {
      if (p.line == 0) p.line = 1;
      st = malformed(&p, "no '%s' line (empty file?)", ATTNGEN__TUNING_FORMAT_LINE);
    } else if (first_missing_meta(&p)) {
      st = malformed(&p, "end of file: meta '%s' is missing", first_missing_meta(&p));
    }
  }
  if (st == ATTNGEN_STATUS_OK && expected) {
    const char *field = attngen__tuning_meta_diff(&p.db->meta, expected);
    if (field) {
      char want[300], found[300];
      meta_value_text(expected, field, want, sizeof want);
      meta_value_text(&p.db->meta, field, found, sizeof found);
      diag_set(diag, ATTNGEN__TUNING_MISMATCH, 0, field,
               "%s: tuning database is for another machine: %s is '%s' in the file but '%s' "
               "here; the file is ignored (run `attngen tune` to make one for this machine)",
               p.name, field, found, want);
      st = ATTNGEN_STATUS_INVALID_ARGUMENT;
    }
  }
  if (st != ATTNGEN_STATUS_OK) {
    if (st == ATTNGEN_STATUS_OUT_OF_MEMORY && diag && diag->problem == ATTNGEN__TUNING_FINE)
      diag_set(diag, ATTNGEN__TUNING_UNREADABLE, p.line, NULL, "%s: out of memory", p.name);
    attngen__tuning_db_free(p.db);
    return st;
  }
  *out = p.db;
  return ATTNGEN_STATUS_OK;
}

/* Reads a whole file; IO_ERROR with MISSING / UNREADABLE on failure. */
static attngen_status read_file(const char *path, char **text, size_t *len,
                                attngen__tuning_diag *diag) {
  if (attngen__fs_read_file(path, MAX_FILE_BYTES, text, len) == 0) return ATTNGEN_STATUS_OK;
  const int e = errno;
  if (e == ENOMEM) {
    diag_set(diag, ATTNGEN__TUNING_UNREADABLE, 0, NULL, "%s: out of memory", path);
    return ATTNGEN_STATUS_OUT_OF_MEMORY;
  }
  if (e == EFBIG)
    diag_set(diag, ATTNGEN__TUNING_UNREADABLE, 0, NULL,
             "%s: tuning database larger than %u bytes; the file is ignored", path, MAX_FILE_BYTES);
  else
    diag_set(diag, e == ENOENT ? ATTNGEN__TUNING_MISSING : ATTNGEN__TUNING_UNREADABLE, 0, NULL,
             "%s: cannot open the tuning database: %s", path, strerror(e));
  return ATTNGEN_STATUS_IO_ERROR;
}

attngen_status attngen__tuning_db_load(const char *path, const attngen__tuning_meta *expected,
                                       attngen__tuning_file **out, attngen__tuning_diag *diag) {
  diag_clear(diag);
  if (!out) return ATTNGEN_STATUS_NULL_POINTER;
  *out = NULL;
  if (!path) return ATTNGEN_STATUS_NULL_POINTER;
  char *text;
  size_t len;
  attngen_status st = read_file(path, &text, &len, diag);
  if (st != ATTNGEN_STATUS_OK) return st;
  st = attngen__tuning_db_parse(text, len, path, expected, out, diag);
  free(text);
  return st;
}

/* ---- writing ---------------------------------------------------------------------------- */

typedef struct sbuf {
  char *s;
  size_t n, cap;
  int oom;
} sbuf;

static void sbuf_printf(sbuf *b, const char *fmt, ...) {
  if (b->oom) return;
  for (;;) {
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(b->s ? b->s + b->n : NULL, b->s ? b->cap - b->n : 0, fmt, ap);
    va_end(ap);
    if (k < 0) {
      b->oom = 1;
      return;
    }
    if (b->s && b->n + (size_t)k < b->cap) {
      b->n += (size_t)k;
      return;
    }
    size_t cap = b->cap ? b->cap : 1024;
    while (cap <= b->n + (size_t)k) cap *= 2;
    char *ns = realloc(b->s, cap);
    if (!ns) {
      b->oom = 1;
      return;
    }
    b->s = ns;
    b->cap = cap;
  }
}

attngen_status attngen__tuning_db_format(const attngen__tuning_file *db, char **text, size_t *len) {
  if (!db || !text) return ATTNGEN_STATUS_NULL_POINTER;
  *text = NULL;
  sbuf b = {0};
  sbuf_printf(&b,
              "# attngen tuning database, written by `attngen tune` (merged on every write).\n"
              "# record: layout rounding batch heads seqlen_q seqlen_kv variant time_ms tflops\n"
              "%s\n",
              ATTNGEN__TUNING_FORMAT_LINE);
  const attngen__tuning_meta *m = &db->meta;
  sbuf_printf(&b, "meta attngen_version %s\nmeta target %s\nmeta device %s\n",
              m->attngen_version, m->target, m->device);
  sbuf_printf(&b, "meta cu_count %d\nmeta runtime %s\n", m->cu_count, m->runtime);
  for (size_t i = 0; i < db->n; i++) {
    const attngen__tuning_record *r = &db->e[i].r;
    sbuf_printf(&b, "record %s %s %d %d %d %d %s %.9g %.9g\n", attngen__layout_name(r->layout),
                attngen__rounding_name(r->rounding), r->batch, r->heads, r->seqlen_q, r->seqlen_kv,
                r->variant, r->time_ms, r->tflops);
  }
  if (b.oom) {
    free(b.s);
    return ATTNGEN_STATUS_OUT_OF_MEMORY;
  }
  *text = b.s;
  if (len) *len = b.n;
  return ATTNGEN_STATUS_OK;
}

attngen_status attngen__tuning_db_save(const attngen__tuning_file *db, const char *path,
                                       attngen__tuning_diag *diag) {
  diag_clear(diag);
  if (!db || !path) return ATTNGEN_STATUS_NULL_POINTER;
  char *text;
  size_t len;
  attngen_status st = attngen__tuning_db_format(db, &text, &len);
  if (st != ATTNGEN_STATUS_OK) {
    diag_set(diag, ATTNGEN__TUNING_UNREADABLE, 0, NULL, "%s: out of memory", path);
    return st;
  }
  if (attngen__fs_mkdir_parent(path, 0777) != 0) {
    int e = errno;
    diag_set(diag, ATTNGEN__TUNING_UNREADABLE, 0, NULL, "%s: cannot create its directory: %s",
             path, strerror(e));
    free(text);
    return ATTNGEN_STATUS_IO_ERROR;
  }
  const int rc = attngen__fs_write_atomic(path, text, len, 1);
  const int e = errno;
  free(text);
  if (rc != 0) {
    diag_set(diag, ATTNGEN__TUNING_UNREADABLE, 0, NULL,
             "%s: cannot write the tuning database: %s", path, strerror(e));
    return ATTNGEN_STATUS_IO_ERROR;
  }
  return ATTNGEN_STATUS_OK;
}

/* Advisory lock on the directory holding `path` (released by close or process exit), waited
 * for at most MERGE_LOCK_TIMEOUT_S; returns the descriptor or -1 (then the merge runs
 * unlocked, as on a file system without locks). */
#define MERGE_LOCK_TIMEOUT_S 60.0
static int lock_parent_dir(const char *path) {
  char dir[4096];
  if (snprintf(dir, sizeof dir, "%s", path) >= (int)sizeof dir) return -1;
  char *slash = strrchr(dir, '/');
  if (!slash)
    snprintf(dir, sizeof dir, ".");
  else if (slash == dir)
    dir[1] = 0;
  else
    *slash = 0;
  attngen__fs_lock_opts o = {MERGE_LOCK_TIMEOUT_S, 0, NULL, NULL, 1};
  return attngen__fs_lock(dir, &o, NULL, 0);
}

attngen_status attngen__tuning_db_merge_file(const char *path, const attngen__tuning_meta *meta,
                                             const attngen__tuning_record *records, size_t n,
                                             int replace_invalid, attngen__tuning_diag *diag) {
  diag_clear(diag);
  if (!path || !meta || (!records && n)) return ATTNGEN_STATUS_NULL_POINTER;
  for (size_t i = 0; i < n; i++) {
    const char *why = record_problem(&records[i]);
    if (why) {
      diag_set(diag, ATTNGEN__TUNING_BAD_INPUT, 0, NULL, "tuning record %zu: %s", i, why);
      return ATTNGEN_STATUS_INVALID_ARGUMENT;
    }
  }
  attngen__tuning_file *fresh;
  attngen_status st = attngen__tuning_db_new(meta, &fresh, diag);
  if (st != ATTNGEN_STATUS_OK) return st;
  attngen__tuning_db_free(fresh);
  if (attngen__fs_mkdir_parent(path, 0777) != 0) {
    int e = errno;
    diag_set(diag, ATTNGEN__TUNING_UNREADABLE, 0, NULL, "%s: cannot create its directory: %s",
             path, strerror(e));
    return ATTNGEN_STATUS_IO_ERROR;
  }
  int lock = lock_parent_dir(path);
  attngen__tuning_file *db = NULL;
  attngen__tuning_diag ld;
  st = attngen__tuning_db_load(path, meta, &db, &ld);
  if (st != ATTNGEN_STATUS_OK) {
    attngen__tuning_problem pr = ld.problem;
    int invalid = pr == ATTNGEN__TUNING_MALFORMED || pr == ATTNGEN__TUNING_MISMATCH;
    if (!(pr == ATTNGEN__TUNING_MISSING || (replace_invalid && invalid))) {
      if (invalid) {
        size_t k = strlen(ld.message);
        snprintf(ld.message + k, sizeof ld.message - k,
                 "; not overwritten (choose another file, or replace it)");
      }
      if (diag) *diag = ld;
      attngen__fs_unlock(lock);
      return st;
    }
    st = attngen__tuning_db_new(meta, &db, NULL);
    if (st != ATTNGEN_STATUS_OK) {
      attngen__fs_unlock(lock);
      return st;
    }
  }
  for (size_t i = 0; i < n && st == ATTNGEN_STATUS_OK; i++) st = insert(db, &records[i], NULL);
  if (st == ATTNGEN_STATUS_OK) {
    st = attngen__tuning_db_save(db, path, diag);
    if (st == ATTNGEN_STATUS_OK && diag && ld.problem != ATTNGEN__TUNING_FINE &&
        ld.problem != ATTNGEN__TUNING_MISSING)
      snprintf(diag->message, sizeof diag->message, "replaced the previous file (%.470s)",
               ld.message);
  } else
    diag_set(diag, ATTNGEN__TUNING_UNREADABLE, 0, NULL, "%s: out of memory", path);
  attngen__tuning_db_free(db);
  attngen__fs_unlock(lock);
  return st;
}

/* ---- default location ------------------------------------------------------------------- */

int attngen__tuning_default_path(char *buf, size_t size) {
  const char *f = getenv("ATTNGEN_TUNING_FILE");
  char dir[4096];
  int k;
  if (f && *f)
    k = snprintf(buf, size, "%s", f);
  else if (attngen__cache_dir(dir, sizeof dir) == 0)
    k = snprintf(buf, size, "%s/tuning.db", dir);
  else
    return -1;
  return k < 0 || (size_t)k >= size ? -1 : 0;
}

/* ---- metadata of a running device ------------------------------------------------------- */

/* Copies src into dst (size bytes), tabs as spaces, other control characters as '?', outer
 * blanks trimmed; "unknown" when nothing is left. */
static void clean_copy(char *dst, size_t size, const char *src) {
  if (!src) src = "";
  while (is_blank(*src)) src++;
  size_t n = strnlen(src, size - 1);
  while (n > 0 && is_blank(src[n - 1])) n--;
  for (size_t i = 0; i < n; i++)
    if (src[i] == '\t')
      dst[i] = ' ';
    else
      dst[i] = ((unsigned char)src[i] < 0x20 || src[i] == 0x7f) ? '?' : src[i];
  dst[n] = 0;
  while (n > 0 && is_blank(dst[n - 1])) dst[--n] = 0;
  if (n == 0) snprintf(dst, size, "unknown");
}

void attngen__tuning_meta_from_device(const attngen_device_props *p, attngen__tuning_meta *m) {
  memset(m, 0, sizeof *m);
  clean_copy(m->attngen_version, sizeof m->attngen_version, ATTNGEN_VERSION_STRING);
  clean_copy(m->target, sizeof m->target, p->target && *p->target ? p->target : p->backend);
  clean_copy(m->device, sizeof m->device, p->name);
  m->cu_count = p->compute_units > 0 ? p->compute_units : 0;
  char rt[64];
  snprintf(rt, sizeof rt, "%s %d", p->backend[0] ? p->backend : "unknown", p->driver_version);
  clean_copy(m->runtime, sizeof m->runtime, rt);
}
