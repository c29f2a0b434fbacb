/* tuning.h: the dispatcher's hook into the tuning database (tuning_db.h owns the file
 * format and the lookup rules). A context loads the default tuning file once, expecting the
 * metadata of its own device; a file for another device is ignored as a whole with a
 * notice. The dispatcher then only asks "is there an entry for this shape?".
 * ATTNGEN_TUNING=0 switches the lookup off (read at every call; `attngen tune` uses it to ask
 * for the heuristic's own choice). */
#ifndef ATTNGEN_TUNING_H
#define ATTNGEN_TUNING_H
#include <stddef.h>

#include "attngen.h"
#include "call_shape.h"
#include "tuning_db.h"

/* Loads the default tuning file (attngen__tuning_default_path) for the device, expecting
 * attngen__tuning_meta_from_device(props) (what `attngen tune` writes). Returns NULL
 * when there is no file, or it is malformed or for another device (then with a notice). */
attngen__tuning_file *attngen__tuning_load_for_device(const attngen_device_props *props);

/* A lookup is by the call's shape (call_shape.h: B, H, Sq, Skv, layout, rounding, head_dim,
 * heads_kv) and mask: the database keys records by all of them (tuning_db.h). A packed
 * variable-length call (args.cu_seqlens_q) has no entry: the records are fixed-length calls. */
typedef struct attngen__tuning_query {
  attngen__call_shape shape;
  int causal; /* args.causal */
  int varlen; /* args.cu_seqlens_q given */
} attngen__tuning_query;

/* Returns 1 and copies the winner's name into variant when db (may be NULL = no database)
 * has an entry serving the query (exact shape or its shape class); 0 otherwise. why (may
 * be NULL) says which entry was used or why none. */
int attngen__tuning_lookup(const attngen__tuning_file *db, const attngen__tuning_query *q,
                           char *variant, size_t len, char *why, size_t why_len);

#endif /* ATTNGEN_TUNING_H */
