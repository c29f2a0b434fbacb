/* tuning_table.c: the tuning database as an object in memory (declared in tuning_table.h):
 * metadata, records kept in key order, shape classes, lookup, and the checks of a record that
 * the parser (tuning_db_parse.c) and the writers (tuning_db.c) share. */
#include "tuning_table.h"

#include "axes.h"
#include "call_shape.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


const char *const attngen__tdb_meta_names[ATTNGEN__TDB_META_FIELDS] = {
    "attngen_version", "target", "device", "cu_count", "runtime"};

void attngen__tdb_diag_clear(attngen__tuning_diag *d) {
  if (!d) return;
  d->problem = ATTNGEN__TUNING_FINE;
  d->line = 0;
  d->field[0] = 0;
  d->message[0] = 0;
}

void attngen__tdb_diag_set(attngen__tuning_diag *d, attngen__tuning_problem p, int line,
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

/* The canonical kind fields (tuning_table.h): head_dim 128 -> 0, heads_kv == heads -> 0. */
static attngen__tuning_record canon(const attngen__tuning_record *r) {
  attngen__tuning_record c = *r;
  if (c.head_dim == 128) c.head_dim = 0;
  if (c.heads_kv == c.heads) c.heads_kv = 0;
  c.causal = c.causal != 0;
  return c;
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

static void entry_fill(attngen__tdb_entry *e, const attngen__tuning_record *r, int cu_count) {
  e->r = canon(r);
  attngen__tuning_class(r->batch, r->heads, r->seqlen_q, r->seqlen_kv, cu_count, e->cls);
  e->log_sq = log2_or_zero(r->seqlen_q);
  e->log_skv = log2_or_zero(r->seqlen_kv);
  e->log_w = log2_or_zero(work_waves(r->batch, r->heads, r->seqlen_q, cu_count));
}

/* ---- records ---------------------------------------------------------------------------- */

static int cmp_int(int a, int b) { return (a > b) - (a < b); }

/* Key order: layout, rounding, head_dim, causal, then the shape (B, H, H_kv, Sq, Skv). */
static int key_cmp(const attngen__tuning_record *a, const attngen__tuning_record *b) {
  int c;
  if ((c = cmp_int((int)a->layout, (int)b->layout))) return c;
  if ((c = cmp_int((int)a->rounding, (int)b->rounding))) return c;
  if ((c = cmp_int(a->head_dim, b->head_dim))) return c;
  if ((c = cmp_int(a->causal, b->causal))) return c;
  if ((c = cmp_int(a->batch, b->batch))) return c;
  if ((c = cmp_int(a->heads, b->heads))) return c;
  if ((c = cmp_int(a->heads_kv, b->heads_kv))) return c;
  if ((c = cmp_int(a->seqlen_q, b->seqlen_q))) return c;
  return cmp_int(a->seqlen_kv, b->seqlen_kv);
}


int attngen__tdb_variant_name_ok(const char *s) {
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
int attngen__tdb_time_ok(double ms) { return ms >= 1e-9 && ms <= 1e9; }
int attngen__tdb_tflops_ok(double t) { return t == 0 || (t >= 1e-9 && t <= 1e9); }

/* Why a record is invalid, or NULL. */
const char *attngen__tdb_record_problem(const attngen__tuning_record *r) {
  if (!attngen__layout_name(r->layout)) return "unknown layout";
  if (!attngen__rounding_name(r->rounding)) return "unknown rounding";
  if (r->batch < 1 || r->heads < 1 || r->seqlen_q < 1 || r->seqlen_kv < 0)
    return "shape out of range (B, H, Sq >= 1, Skv >= 0)";
  if (r->head_dim != 0 && !attngen__head_dim_valid(r->head_dim))
    return "head_dim must be one of " ATTNGEN__HEAD_DIM_LIST;
  if (r->causal != 0 && r->causal != 1) return "causal must be 0 or 1";
  if (r->heads_kv < 0 || (r->heads_kv > 0 && r->heads % r->heads_kv != 0))
    return "heads_kv must divide heads";
  if (!attngen__tdb_variant_name_ok(r->variant)) return "variant name is not [A-Za-z0-9_]{1,127}";
  if (!attngen__tdb_time_ok(r->time_ms)) return "time_ms must be in [1e-9, 1e9]";
  if (!attngen__tdb_tflops_ok(r->tflops)) return "tflops must be in [0, 1e9]";
  return NULL;
}

/* Index of the record with r's key, or where it would go (*found says which). */
size_t attngen__tdb_find_slot(const attngen__tuning_file *db, const attngen__tuning_record *key,
                        int *found) {
  const attngen__tuning_record k = canon(key), *r = &k;
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
attngen_status attngen__tdb_insert(attngen__tuning_file *db, const attngen__tuning_record *r,
                             int *replaced) {
  int found;
  size_t at = attngen__tdb_find_slot(db, r, &found);
  if (replaced) *replaced = found;
  if (found) {
    entry_fill(&db->e[at], r, db->meta.cu_count);
    return ATTNGEN_STATUS_OK;
  }
  if (db->n == db->cap) {
    size_t cap = db->cap ? db->cap * 2 : 16;
    attngen__tdb_entry *e = realloc(db->e, cap * sizeof *e);
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
  attngen__tdb_diag_clear(diag);
  if (!m || !attngen_version || !target || !device || !runtime) {
    attngen__tdb_diag_set(diag, ATTNGEN__TUNING_BAD_INPUT, 0, NULL, "tuning metadata: a value is NULL");
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
    attngen__tdb_diag_set(diag, ATTNGEN__TUNING_BAD_INPUT, 0, bad,
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

void attngen__tdb_meta_value_text(const attngen__tuning_meta *m, const char *field, char *buf,
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
  attngen__tdb_diag_clear(diag);
  if (!out) return ATTNGEN_STATUS_NULL_POINTER;
  *out = NULL;
  if (!meta) return ATTNGEN_STATUS_NULL_POINTER;
  const char *bad = meta_problem(meta);
  if (bad) {
    attngen__tdb_diag_set(diag, ATTNGEN__TUNING_BAD_INPUT, 0, bad,
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
  attngen__tdb_diag_clear(diag);
  if (!db || !r) return ATTNGEN_STATUS_NULL_POINTER;
  const char *why = attngen__tdb_record_problem(r);
  if (why) {
    attngen__tdb_diag_set(diag, ATTNGEN__TUNING_BAD_INPUT, 0, NULL, "tuning record: %s", why);
    return ATTNGEN_STATUS_INVALID_ARGUMENT;
  }
  return attngen__tdb_insert(db, r, NULL);
}

const attngen__tuning_record *attngen__tuning_db_lookup(const attngen__tuning_file *db, int batch,
                                                        int heads, int seqlen_q,
                                                        int seqlen_kv, attngen_layout layout,
                                                        attngen_rounding rounding,
                                                        attngen__tuning_match *match) {
  attngen__tuning_record key;
  memset(&key, 0, sizeof key);
  key.layout = layout;
  key.rounding = rounding;
  key.batch = batch;
  key.heads = heads;
  key.seqlen_q = seqlen_q;
  key.seqlen_kv = seqlen_kv;
  return attngen__tuning_db_find(db, &key, match);
}

attngen__tuning_record attngen__tuning_key(const attngen__call_shape *s, int causal) {
  attngen__tuning_record key;
  memset(&key, 0, sizeof key);
  key.layout = (attngen_layout)s->layout;
  key.rounding = (attngen_rounding)s->rounding;
  key.batch = s->batch;
  key.heads = s->heads;
  key.seqlen_q = s->seqlen_q;
  key.seqlen_kv = s->seqlen_kv;
  key.head_dim = s->head_dim;
  key.heads_kv = s->heads_kv;
  key.causal = causal != 0;
  return key;
}

/* Query heads per KV head of a canonical record (1 for MHA). */
static int kv_group(const attngen__tuning_record *r) {
  return r->heads_kv > 0 ? r->heads / r->heads_kv : 1;
}

const attngen__tuning_record *attngen__tuning_db_find(const attngen__tuning_file *db,
                                                      const attngen__tuning_record *query,
                                                      attngen__tuning_match *match) {
  if (match) *match = ATTNGEN__TUNING_NONE;
  if (!db || !query) return NULL;
  const attngen__tuning_record q = canon(query);
  if (q.batch < 1 || q.heads < 1 || q.seqlen_q < 1 || q.seqlen_kv < 0 || q.heads_kv < 0 ||
      (q.heads_kv > 0 && q.heads % q.heads_kv != 0))
    return NULL;
  int found;
  size_t at = attngen__tdb_find_slot(db, &q, &found);
  if (found) {
    if (match) *match = ATTNGEN__TUNING_EXACT;
    return &db->e[at].r;
  }
  int cls[3];
  attngen__tuning_class(q.batch, q.heads, q.seqlen_q, q.seqlen_kv, db->meta.cu_count, cls);
  double lsq = log2_or_zero(q.seqlen_q), lskv = log2_or_zero(q.seqlen_kv);
  double lw = log2_or_zero(work_waves(q.batch, q.heads, q.seqlen_q, db->meta.cu_count));
  const int group = kv_group(&q);
  const attngen__tdb_entry *best = NULL;
  double best_d = 0;
  for (size_t i = 0; i < db->n; i++) {
    const attngen__tdb_entry *e = &db->e[i];
    if (e->r.layout != q.layout || e->r.rounding != q.rounding) continue;
    if (e->r.head_dim != q.head_dim || e->r.causal != q.causal || kv_group(&e->r) != group)
      continue;
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
