/* tuning_db_parse.c: the parser of the tuning database's text format (tuning_db.h): one
 * line at a time, every problem reported with its line (a malformed file is ignored whole). */
#define _GNU_SOURCE
#include "tuning_db_parse.h"

#include "axes.h"
#include "call_shape.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_TOKENS 16

typedef struct tokens {
  int n;
  const char *s[MAX_TOKENS];
  size_t len[MAX_TOKENS];
} tokens;


/* Splits on blanks; returns 0 when there are more than MAX_TOKENS tokens. */
static int tokenize(const char *s, size_t n, tokens *t) {
  t->n = 0;
  size_t i = 0;
  while (i < n) {
    while (i < n && attngen__tdb_is_blank(s[i])) i++;
    if (i == n) break;
    size_t start = i;
    while (i < n && !attngen__tdb_is_blank(s[i])) i++;
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
  int seen_format; /* the format version (1 or 2) once its line is read, else 0 */
  int meta_seen[ATTNGEN__TDB_META_FIELDS];
  int line;
} parser;

static attngen_status malformed(parser *p, const char *fmt, ...) {
  char what[400];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);
  attngen__tdb_diag_set(p->diag, ATTNGEN__TUNING_MALFORMED, p->line, NULL,
           "%s:%d: malformed tuning database: %s; the file is ignored", p->name, p->line, what);
  return ATTNGEN_STATUS_INVALID_ARGUMENT;
}

static const char *first_missing_meta(const parser *p) {
  for (int i = 0; i < ATTNGEN__TDB_META_FIELDS; i++)
    if (!p->meta_seen[i]) return attngen__tdb_meta_names[i];
  return NULL;
}

static attngen_status parse_meta(parser *p, const char *s, size_t n, const tokens *t) {
  if (t->n < 3) return malformed(p, "'meta' needs a field name and a value");
  int field = -1;
  for (int i = 0; i < ATTNGEN__TDB_META_FIELDS; i++)
    if (tok_is(t, 1, attngen__tdb_meta_names[i])) field = i;
  if (field < 0) {
    char name[40];
    if (!tok_copy(t, 1, name, sizeof name)) snprintf(name, sizeof name, "(too long)");
    return malformed(p, "unknown meta field '%s' (known: attngen_version, target, device, "
                        "cu_count, runtime)", name);
  }
  if (p->meta_seen[field]) return malformed(p, "meta '%s' given twice", attngen__tdb_meta_names[field]);
  /* value = rest of the line after the field name, outer blanks trimmed */
  const char *v = t->s[2];
  const char *end = s + n;
  while (end > v && attngen__tdb_is_blank(end[-1])) end--;
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
      return malformed(p, "meta '%s' is longer than %zu bytes", attngen__tdb_meta_names[field], size - 1);
    memcpy(dst, v, vlen);
    dst[vlen] = 0;
  }
  p->meta_seen[field] = 1;
  return ATTNGEN_STATUS_OK;
}

/* A record: format 1 "record layout rounding B H Sq Skv variant time_ms tflops" (head_dim 128,
 * no mask, MHA); format 2 "record layout rounding head_dim mask B H H_kv Sq Skv variant time_ms
 * tflops". */
static attngen_status parse_record(parser *p, const tokens *t) {
  const char *missing = first_missing_meta(p);
  if (missing) return malformed(p, "record before the metadata is complete (no meta '%s' yet)",
                                missing);
  const int v2 = p->seen_format == 2;
  if (!v2 && t->n != 10)
    return malformed(p, "a record of format 1 has 9 fields (layout rounding B H Sq Skv variant "
                        "time_ms tflops), found %d", t->n - 1);
  if (v2 && t->n != 13)
    return malformed(p, "a record has 12 fields (layout rounding head_dim mask B H H_kv Sq Skv "
                        "variant time_ms tflops), found %d", t->n - 1);
  attngen__tuning_record r;
  memset(&r, 0, sizeof r);
  char word[16];
  if (!tok_copy(t, 1, word, sizeof word) || !attngen__layout_from_name(word, &r.layout))
    return malformed(p, "layout must be one of " ATTNGEN__LAYOUT_LIST);
  if (!tok_copy(t, 2, word, sizeof word) || !attngen__rounding_from_name(word, &r.rounding))
    return malformed(p, "rounding must be one of " ATTNGEN__ROUNDING_LIST);
  int i = 3; /* the next field */
  if (v2) {
    if (!tok_int(t, i++, 1, 100000, &r.head_dim) || !attngen__head_dim_valid(r.head_dim))
      return malformed(p, "head_dim must be one of " ATTNGEN__HEAD_DIM_LIST);
    if (tok_is(t, i, "causal"))
      r.causal = 1;
    else if (!tok_is(t, i, "none"))
      return malformed(p, "mask must be none or causal");
    i++;
  }
  if (!tok_int(t, i++, 1, INT_MAX, &r.batch) || !tok_int(t, i++, 1, INT_MAX, &r.heads))
    return malformed(p, "B, H, Sq must be integers >= 1 and Skv an integer >= 0");
  if (v2 && (!tok_int(t, i++, 1, INT_MAX, &r.heads_kv) || r.heads % r.heads_kv != 0))
    return malformed(p, "H_kv must be an integer >= 1 that divides H (%d)", r.heads);
  if (!tok_int(t, i++, 1, INT_MAX, &r.seqlen_q) || !tok_int(t, i++, 0, INT_MAX, &r.seqlen_kv))
    return malformed(p, "B, H, Sq must be integers >= 1 and Skv an integer >= 0");
  if (!tok_copy(t, i, r.variant, sizeof r.variant) || !attngen__tdb_variant_name_ok(r.variant))
    return malformed(p, "variant name must be 1-%d characters of [A-Za-z0-9_]",
                     ATTNGEN__TUNING_NAME_MAX - 1);
  if (!tok_double(t, i + 1, &r.time_ms) || !attngen__tdb_time_ok(r.time_ms))
    return malformed(p, "time_ms must be a number in [1e-9, 1e9]");
  if (!tok_double(t, i + 2, &r.tflops) || !attngen__tdb_tflops_ok(r.tflops))
    return malformed(p, "tflops must be 0 or a number in [1e-9, 1e9]");
  int found;
  attngen__tdb_find_slot(p->db, &r, &found);
  if (found)
    return malformed(p, "a second record for %s %s head_dim %d %s %d,%d,%d,%d (%d KV heads)",
                     attngen__layout_name(r.layout), attngen__rounding_name(r.rounding),
                     r.head_dim ? r.head_dim : 128, r.causal ? "causal" : "no mask", r.batch,
                     r.heads, r.seqlen_q, r.seqlen_kv, r.heads_kv ? r.heads_kv : r.heads);
  return attngen__tdb_insert(p->db, &r, NULL);
}

static attngen_status parse_line(parser *p, const char *s, size_t n) {
  for (size_t k = 0; k < n; k++)
    if ((unsigned char)s[k] < 0x20 && s[k] != '\t')
      return malformed(p, "control character 0x%02x in the line", (unsigned char)s[k]);
  if (n > ATTNGEN__TUNING_MAX_LINE)
    return malformed(p, "line longer than %d bytes", ATTNGEN__TUNING_MAX_LINE);
  size_t i = 0;
  while (i < n && attngen__tdb_is_blank(s[i])) i++;
  if (i == n || s[i] == '#') return ATTNGEN_STATUS_OK;
  tokens t;
  if (!tokenize(s, n, &t)) return malformed(p, "too many fields");
  if (!p->seen_format) {
    if (t.n == 2 && tok_is(&t, 0, "attngen-tuning") && (tok_is(&t, 1, "1") || tok_is(&t, 1, "2"))) {
      p->seen_format = tok_is(&t, 1, "1") ? 1 : 2;
      return ATTNGEN_STATUS_OK;
    }
    if (t.n >= 1 && tok_is(&t, 0, "attngen-tuning"))
      return malformed(p, "unsupported format version (this attngen reads 'attngen-tuning 1' "
                       "and '%s')", ATTNGEN__TUNING_FORMAT_LINE);
    return malformed(p, "not a tuning database (the first line must be '%s', or "
                     "'attngen-tuning 1' in a file of the older format)",
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
  attngen__tdb_diag_clear(diag);
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
      attngen__tdb_meta_value_text(expected, field, want, sizeof want);
      attngen__tdb_meta_value_text(&p.db->meta, field, found, sizeof found);
      attngen__tdb_diag_set(diag, ATTNGEN__TUNING_MISMATCH, 0, field,
               "%s: tuning database of another machine or backend: %s is '%s' in the file "
               "but '%s' here",
               p.name, field, found, want);
      st = ATTNGEN_STATUS_INVALID_ARGUMENT;
    }
  }
  if (st != ATTNGEN_STATUS_OK) {
    if (st == ATTNGEN_STATUS_OUT_OF_MEMORY && diag && diag->problem == ATTNGEN__TUNING_FINE)
      attngen__tdb_diag_set(diag, ATTNGEN__TUNING_UNREADABLE, p.line, NULL, "%s: out of memory", p.name);
    attngen__tuning_db_free(p.db);
    return st;
  }
  *out = p.db;
  return ATTNGEN_STATUS_OK;
}
