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

/* ", head_dim 64, causal, 8 KV heads" for what is not the default kind, "" otherwise. */
static const char *describe_kind(const attngen__tuning_record *r, char *buf, size_t len) {
  size_t n = 0;
  buf[0] = 0;
  if (r->head_dim && r->head_dim != 128 && n < len)
    n += (size_t)snprintf(buf + n, len - n, ", head_dim %d", r->head_dim);
  if (r->causal && n < len) n += (size_t)snprintf(buf + n, len - n, ", causal");
  if (r->heads_kv && r->heads_kv != r->heads && n < len)
    snprintf(buf + n, len - n, ", %d KV heads", r->heads_kv);
  return buf;
}

int attngen__tuning_lookup(const attngen__tuning_file *db, const attngen__tuning_query *q,
                           char *variant, size_t len, char *why, size_t why_len) {
  if (!db) {
    if (why && why_len) snprintf(why, why_len, "no tuning database loaded");
    return 0;
  }
  if (q->varlen) {
    if (why && why_len)
      snprintf(why, why_len, "packed variable-length call: the tuning database holds "
               "fixed-length calls");
    return 0;
  }
  const attngen__tuning_record key = attngen__tuning_key(&q->shape, q->causal);
  attngen__tuning_match match = ATTNGEN__TUNING_NONE;
  const attngen__tuning_record *r = attngen__tuning_db_find(db, &key, &match);
  if (!r) {
    if (why && why_len) snprintf(why, why_len, "no tuning entry for this shape class");
    return 0;
  }
  snprintf(variant, len, "%s", r->variant);
  char kind[64];
  if (why && why_len)
    snprintf(why, why_len, "%s entry (%d,%d,%d,%d%s), %.4f ms when tuned",
             match == ATTNGEN__TUNING_EXACT ? "exact" : "shape-class", r->batch, r->heads,
             r->seqlen_q, r->seqlen_kv, describe_kind(r, kind, sizeof kind), r->time_ms);
  return 1;
}
