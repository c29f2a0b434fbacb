/* cache.h: the on-disk JIT cache. One file per key, "<16 hex digits>.atgk": a 256-byte
 * header (magic, format version, key, payload length, payload checksum, metadata, header
 * checksum) followed by the payload (a cubin or a gfx942 code object). Entries are written
 * to a temp file and renamed into place, so readers never see a partial entry; a corrupt
 * or truncated one fails validation and is rebuilt. A per-key lock file ("<key>.lock",
 * flock) serializes the compile of one key across threads and processes; the lock goes
 * away with its process. */
#ifndef ATTNGEN_CACHE_H
#define ATTNGEN_CACHE_H
#include <stddef.h>
#include <stdint.h>

#include "attngen.h"

#define ATTNGEN__CACHE_HEADER_BYTES 256
#define ATTNGEN__CACHE_EXT ".atgk"

typedef struct attngen__cache_meta {
  char variant[128];
  char target[16];
  char arch[24];
  char compiler[32];
  int64_t created; /* unix seconds */
} attngen__cache_meta;

/* The longest cache directory (bytes): entry paths add a file name to it. */
#define ATTNGEN__CACHE_DIR_MAX 4000

/* The cache directory: $ATTNGEN_CACHE_DIR, else $XDG_CACHE_HOME/attngen, else
 * $HOME/.cache/attngen. Returns 0, or -1 when none can be derived (no HOME: errno ENOENT) or
 * it is longer than ATTNGEN__CACHE_DIR_MAX or len - 1 bytes (errno ENAMETOOLONG; never
 * truncated). */
int attngen__cache_dir(char *buf, size_t len);

typedef enum attngen__cache_result {
  ATTNGEN__CACHE_HIT = 0,
  ATTNGEN__CACHE_MISS = 1,   /* no entry */
  ATTNGEN__CACHE_CORRUPT = 2 /* an entry exists but fails validation (why says how) */
} attngen__cache_result;

/* Reads the entry of key. On a hit *data is malloc'd (caller frees). meta may be NULL. */
attngen__cache_result attngen__cache_read(const char *dir, uint64_t key, void **data,
                                          size_t *size, attngen__cache_meta *meta, char *why,
                                          size_t why_len);

/* Writes the entry of key (creating dir if needed) through a temp file and rename. */
attngen_status attngen__cache_write(const char *dir, uint64_t key, const void *data, size_t size,
                                    const attngen__cache_meta *meta);

/* Takes the per-key lock, waiting up to timeout_s for another holder (a notice names the
 * lock file and the holder after 2 s). Returns an fd >= 0, or -1 with errno set: ETIMEDOUT
 * when the holder kept it for the whole timeout (why says which file and which process),
 * else the lock file cannot be created (e.g. a read-only directory). */
int attngen__cache_lock(const char *dir, uint64_t key, double timeout_s, char *why,
                        size_t why_len);
void attngen__cache_unlock(int fd);

/* One entry as `attngen cache ls / verify` shows it. */
typedef struct attngen__cache_item {
  char file[256];
  uint64_t key;
  int64_t file_bytes;
  int valid;
  char problem[160];
  attngen__cache_meta meta;
} attngen__cache_item;

/* Lists the entries of dir (sorted by file name), validating each. *items is malloc'd.
 * Returns OK (an absent directory is an empty cache) or IO_ERROR. */
attngen_status attngen__cache_list(const char *dir, attngen__cache_item **items, size_t *count);

/* Removes entries, lock files and stale temp files. *removed counts entries. */
attngen_status attngen__cache_clear(const char *dir, size_t *removed);

#endif /* ATTNGEN_CACHE_H */
