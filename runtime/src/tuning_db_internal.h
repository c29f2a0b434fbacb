/* tuning_db_internal.h: what tuning_db.c (the database object, lookup, files) and
 * tuning_db_parse.c (the text format's parser) share. Not part of the runtime's interface. */
#ifndef ATTNGEN_TUNING_DB_INTERNAL_H
#define ATTNGEN_TUNING_DB_INTERNAL_H

#include "tuning_db.h"

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

#endif /* ATTNGEN_TUNING_DB_INTERNAL_H */
