/* tuning_db.h: the tuning database that `attngen tune` writes and the dispatcher reads.
 * Pure C, no device: parse, validate against the running machine's metadata, look up a
 * variant for a shape, merge records and write the file atomically.
 *
 * File format (text, one item per line, '#' starts a comment line, blank lines ignored):
 *
 *   attngen-tuning 2
 *   meta attngen_version 0.1.0
 *   meta target gfx942
 *   meta device AMD Instinct MI300X
 *   meta cu_count 304
 *   meta runtime hip 6.2.41133
 *   record bshd rtne 128 none 2 24 24 8192 8192 attn_fwd_d128_bshd_rtne_q3_kv64_w8_tail_gfx942 1.2345 512.37
 *   record bshd rtne 128 causal 1 32 8 8192 8192 attn_fwd_d128_bshd_rtne_q1_kv128_w12_nosplit_tma_causal_wgmma_sm90 2.5 250.1
 *
 * The first item is the format line; the five meta lines follow in any order (each exactly
 * once; the value is the rest of the line, inner spaces kept) before the first record. A
 * record is: layout rounding head_dim mask B H H_kv Sq Skv variant time_ms tflops — the
 * tuned call (head_dim 64 / 128 / 256, mask none or causal, H_kv KV heads dividing H), the
 * winning variant, its median time and its TFLOP/s (information only). Each (layout,
 * rounding, head_dim, mask, B, H, H_kv, Sq, Skv) appears at most once. Files of format 1
 * ("attngen-tuning 1", written before head dims, masks and KV heads were keys) are read too:
 * their records have 9 fields (layout rounding B H Sq Skv variant time_ms tflops) and mean
 * head_dim 128, no mask, H_kv = H; a merge rewrites such a file in format 2, records kept.
 * Anything else is malformed: the whole file
 * is ignored and the diagnostic names the line. A file whose metadata differs from the
 * running machine's is ignored as a whole (never half-applied); the diagnostic names the
 * first differing field with the expected and the found value. Meta values are non-empty;
 * numbers use the C locale (a '.' decimal point).
 *
 * Shape classes (how a tuned shape serves nearby shapes):
 *   class = (R(Sq), R(Skv), R(W)) within a kind (layout, rounding, head_dim, mask, H / H_kv)
 *   R(x)  = round(log2 x), an octave bucket centred on the powers of two, so 8192 and 8000
 *           share a bucket (boundaries at 2^(k+1/2): 5793 | 11585 for 8192); R(0) = -1000.
 *   W     = B * H * ceil(Sq / 128) / cu_count: blocks of 128 query rows per compute unit,
 *           i.e. the number of "waves" of blocks the device runs (cu_count from the file's
 *           metadata, which equals the device's; <= 0 counts as 1). W captures the tail
 *           effect that decides e.g. the KV split, and B*H enters only through it.
 * Lookup: an exact record of the whole key wins; otherwise, among the records of the query's
 * kind (the same layout, rounding, head_dim, mask and KV-group size H / H_kv: a record tuned
 * for one kind never serves another) and class, the one nearest to the query (sum of |log2|
 * ratios of Sq, Skv and W; ties -> the first in key order) is used; otherwise there is no
 * entry and the dispatcher falls back to its heuristic. Records are kept sorted by key, so the result
 * does not depend on how the file was assembled. */
#ifndef ATTNGEN_TUNING_DB_H
#define ATTNGEN_TUNING_DB_H

#include <stddef.h>

#include "tuning_db_parse.h"
#include "tuning_table.h"

/* Reads and parses `path`. A missing file gives IO_ERROR with problem MISSING. */
attngen_status attngen__tuning_db_load(const char *path, const attngen__tuning_meta *expected,
                                       attngen__tuning_file **out, attngen__tuning_diag *diag);

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
