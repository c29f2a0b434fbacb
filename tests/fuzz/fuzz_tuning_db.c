/* fuzz_tuning_db.c: libFuzzer harness for the tuning database parser (runtime/src/tuning_db.c).
 * Any input must either be rejected with a diagnostic that names a line, or be accepted and
 * then survive format -> parse -> format unchanged, with sorted, valid records and lookups
 * that return only stored records. Build and run: tests/fuzz/run_fuzz.sh. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attngen_internal.h"

#define CHECK(cond)                                                                     \
  do {                                                                                  \
    if (!(cond)) {                                                                      \
      fprintf(stderr, "fuzz_tuning_db: check failed at line %d: %s\n", __LINE__, #cond); \
      abort();                                                                          \
    }                                                                                   \
  } while (0)

static void check_accepted(attngen__tuning_file *db, const uint8_t *data, size_t size) {
  size_t n = attngen__tuning_db_count(db);
  for (size_t i = 0; i < n; i++) {
    const attngen__tuning_record *r = attngen__tuning_db_record(db, i);
    CHECK(r && r->batch >= 1 && r->heads >= 1 && r->seqlen_q >= 1 && r->seqlen_kv >= 0);
    CHECK(isfinite(r->time_ms) && r->time_ms > 0 && isfinite(r->tflops) && r->tflops >= 0);
    /* the kind, canonical: head_dim 0 (= 128) or 64 / 256, causal 0 / 1, heads_kv 0 (= heads)
     * or a proper divisor */
    CHECK(r->head_dim == 0 || r->head_dim == 64 || r->head_dim == 256);
    CHECK(r->causal == 0 || r->causal == 1);
    CHECK(r->heads_kv == 0 || (r->heads_kv < r->heads && r->heads % r->heads_kv == 0));
    attngen__tuning_match how;
    const attngen__tuning_record *x = attngen__tuning_db_find(db, r, &how);
    CHECK(x == r && how == ATTNGEN__TUNING_EXACT);
  }
  CHECK(attngen__tuning_db_record(db, n) == NULL);

  char *t1 = NULL, *t2 = NULL;
  size_t n1 = 0, n2 = 0;
  CHECK(attngen__tuning_db_format(db, &t1, &n1) == ATTNGEN_STATUS_OK);
  attngen__tuning_file *again = NULL;
  attngen__tuning_diag d;
  attngen_status st =
      attngen__tuning_db_parse(t1, n1, "formatted", attngen__tuning_db_meta(db), &again, &d);
  if (st != ATTNGEN_STATUS_OK) fprintf(stderr, "re-parse failed: %s\n%s\n", d.message, t1);
  CHECK(st == ATTNGEN_STATUS_OK);
  CHECK(attngen__tuning_db_count(again) == n);
  CHECK(attngen__tuning_db_format(again, &t2, &n2) == ATTNGEN_STATUS_OK);
  CHECK(n1 == n2 && memcmp(t1, t2, n1) == 0);

  /* lookups of shapes derived from the input bytes: a result is always a stored record */
  for (size_t i = 0; i + 8 <= size && i < 256; i += 8) {
    int b = 1 + data[i] % 64, h = 1 + data[i + 1] % 64;
    int sq = 1 + ((data[i + 2] << 8 | data[i + 3]) << (data[i + 4] % 4));
    int skv = (data[i + 5] << 8 | data[i + 6]) << (data[i + 7] % 4);
    attngen__tuning_record q;
    memset(&q, 0, sizeof q);
    q.layout = (attngen_layout)(data[i] & 1);
    q.rounding = (attngen_rounding)(data[i + 1] % 3);
    q.batch = b, q.heads = h, q.seqlen_q = sq, q.seqlen_kv = skv;
    static const int dims[4] = {0, 64, 128, 256};
    q.head_dim = dims[(data[i + 2] >> 4) & 3];
    q.causal = (data[i + 3] >> 7) & 1;
    q.heads_kv = (data[i + 4] & 0x80) ? (data[i + 5] & 1 ? 1 : h) : 0; /* MQA, MHA written out */
    attngen__tuning_match how;
    const attngen__tuning_record *x = attngen__tuning_db_find(again, &q, &how);
    if (!x) {
      CHECK(how == ATTNGEN__TUNING_NONE);
      continue;
    }
    CHECK(how == ATTNGEN__TUNING_EXACT || how == ATTNGEN__TUNING_CLASS);
    CHECK(x->layout == q.layout && x->rounding == q.rounding);
    /* only a record of the query's own kind */
    CHECK(x->head_dim == (q.head_dim == 128 ? 0 : q.head_dim) && x->causal == q.causal);
    const int qg = q.heads_kv > 0 ? h / q.heads_kv : 1;
    CHECK((x->heads_kv > 0 ? x->heads / x->heads_kv : 1) == qg);
    int found = 0;
    for (size_t k = 0; k < n; k++) found |= attngen__tuning_db_record(again, k) == x;
    CHECK(found);
  }
  free(t1);
  free(t2);
  attngen__tuning_db_free(again);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  attngen__tuning_file *db = NULL;
  attngen__tuning_diag d;
  attngen_status st = attngen__tuning_db_parse((const char *)data, size, "fuzz", NULL, &db, &d);
  if (st == ATTNGEN_STATUS_OK) {
    CHECK(db != NULL && d.problem == ATTNGEN__TUNING_FINE);
    check_accepted(db, data, size);
    attngen__tuning_db_free(db);
  } else {
    CHECK(db == NULL);
    CHECK(st == ATTNGEN_STATUS_INVALID_ARGUMENT || st == ATTNGEN_STATUS_OUT_OF_MEMORY);
    if (st == ATTNGEN_STATUS_INVALID_ARGUMENT) {
      CHECK(d.problem == ATTNGEN__TUNING_MALFORMED);
      CHECK(d.line >= 1 && strstr(d.message, "fuzz:") == d.message);
    }
  }
  /* the same bytes against a fixed machine: accepted only when the metadata matches */
  attngen__tuning_meta m;
  CHECK(attngen__tuning_meta_set(&m, "0.1.0", "gfx942", "AMD Instinct MI300X", 304,
                                 "hip 6.2.41133", &d) == ATTNGEN_STATUS_OK);
  st = attngen__tuning_db_parse((const char *)data, size, "fuzz", &m, &db, &d);
  if (st == ATTNGEN_STATUS_OK) {
    CHECK(attngen__tuning_meta_diff(attngen__tuning_db_meta(db), &m) == NULL);
    attngen__tuning_db_free(db);
  } else {
    CHECK(db == NULL);
    CHECK(d.problem == ATTNGEN__TUNING_MALFORMED || d.problem == ATTNGEN__TUNING_MISMATCH ||
          st == ATTNGEN_STATUS_OUT_OF_MEMORY);
  }
  return 0;
}
