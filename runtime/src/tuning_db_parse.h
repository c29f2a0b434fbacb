/* tuning_db_parse.h: the parser of the tuning database's text format (tuning_db_parse.c; the
 * format is in tuning_db.h's header comment), over tuning_table.h. */
#ifndef ATTNGEN_TUNING_DB_PARSE_H
#define ATTNGEN_TUNING_DB_PARSE_H

#include "tuning_table.h"

/* Parses a file's text. `name` is used in messages. `expected` NULL accepts any metadata.
 * On any problem *out stays NULL and nothing of the text is kept. Status: OK,
 * INVALID_ARGUMENT (malformed, mismatch or bad argument; diag->problem says which),
 * OUT_OF_MEMORY. */
attngen_status attngen__tuning_db_parse(const char *text, size_t len, const char *name,
                                        const attngen__tuning_meta *expected,
                                        attngen__tuning_file **out, attngen__tuning_diag *diag);

#endif /* ATTNGEN_TUNING_DB_PARSE_H */
