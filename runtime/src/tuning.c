/* tuning.c: loading the tuning database for a context's device, and the lookup the
 * dispatcher calls. */
#include "tuning.h"

#include <stdio.h>
#include <string.h>

#include "status.h"

attngen__tuning_file *attngen__tuning_load_for_device(const attngen_device_props *props) {
  char path[4096];
  if (attngen__tuning_default_path(path, sizeof path) != 0) return NULL;
  attngen__tuning_meta expected;
  attngen__tuning_meta_from_device(props, &expected);
  attngen__tuning_file *db = NULL;
  attngen__tuning_diag diag;
  memset(&diag, 0, sizeof diag);
  attngen_status st = attngen__tuning_db_load(path, &expected, &db, &diag);
  if (st == ATTNGEN_STATUS_OK) {
    attngen__log(ATTNGEN__LOG_INFO, "tuning database %s: %zu entries", path,
                 attngen__tuning_db_count(db));
    return db;
  }
  if (diag.problem != ATTNGEN__TUNING_MISSING)
    attngen__log(ATTNGEN__LOG_NOTICE, "tuning database ignored: %s%s", diag.message,
                 diag.problem == ATTNGEN__TUNING_MISMATCH
                     ? " (run `attngen tune` to make one for this machine)"
                     : "");
  attngen__clear_error();
  return NULL;
}

int attngen__tuning_lookup(const attngen__tuning_file *db, const attngen__tuning_query *q,
                           char *variant, size_t len, char *why, size_t why_len) {
  if (!db) {
    if (why && why_len) snprintf(why, why_len, "no tuning database loaded");
    return 0;
  }
  if (q->heads_kv > 0) { /* the records are dense shapes (the file has no KV-head field) */
    if (why && why_len)
      snprintf(why, why_len, "grouped-query call (heads_kv %d of %d heads): the tuning "
               "database holds dense shapes only", q->heads_kv, q->heads);
    return 0;
  }
  if (q->head_dim > 0 && q->head_dim != 128) { /* the records are head_dim 128 shapes */
    if (why && why_len)
      snprintf(why, why_len, "head_dim %d: the tuning database holds head_dim 128 shapes only",
               q->head_dim);
    return 0;
  }
  attngen__tuning_match match = ATTNGEN__TUNING_NONE;
  const attngen__tuning_record *r =
      attngen__tuning_db_lookup(db, q->batch, q->heads, q->seqlen_q, q->seqlen_kv,
                                (attngen_layout)q->layout, (attngen_rounding)q->rounding, &match);
  if (!r) {
    if (why && why_len) snprintf(why, why_len, "no tuning entry for this shape class");
    return 0;
  }
  snprintf(variant, len, "%s", r->variant);
  if (why && why_len)
    snprintf(why, why_len, "%s entry (%d,%d,%d,%d), %.4f ms when tuned",
             match == ATTNGEN__TUNING_EXACT ? "exact" : "shape-class", r->batch, r->heads,
             r->seqlen_q, r->seqlen_kv, r->time_ms);
  return 1;
}
