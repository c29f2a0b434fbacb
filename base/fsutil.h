/* fsutil.h: the file-system helpers of every layer: directories (mkdir -p), whole-file reads,
 * atomic writes (temp file + rename) and advisory locks with a bounded wait. It lives in base/,
 * the bottom layer, so that the Lua host (gen.c) and the runtime (cache.c, tuning_db.c)
 * share one implementation. Functions return 0, or -1 with errno set. */
#ifndef ATTNGEN_FSUTIL_H
#define ATTNGEN_FSUTIL_H
#include <stddef.h>

/* Creates dir and its parents with `mode` (before the umask); an existing directory is
 * fine, an existing non-directory fails with ENOTDIR. */
int attngen__fs_mkdir_p(const char *dir, unsigned mode);

/* attngen__fs_mkdir_p of the directory part of path ("a/b/c" -> "a/b"); none is fine. */
int attngen__fs_mkdir_parent(const char *path, unsigned mode);

/* Reads a whole file into a malloc'd buffer (NUL-terminated, *len without the NUL). A file
 * larger than max_bytes (0: no limit) fails with EFBIG. */
int attngen__fs_read_file(const char *path, size_t max_bytes, char **data, size_t *len);

/* Writes data to path atomically: a unique temp file in the same directory (created with
 * O_EXCL, mode 0644 before the umask), optionally fsync'ed, then renamed over path.
 * Readers see the old or the new content, never a part; on failure the temp file is
 * removed and path is untouched. */
int attngen__fs_write_atomic(const char *path, const void *data, size_t len, int sync);

/* Called while attngen__fs_lock waits (once, after notice_s seconds): `message` names the
 * lock file and the process that holds it. */
typedef void (*attngen__fs_lock_notify)(void *user, const char *message);

typedef struct attngen__fs_lock_opts {
  double timeout_s;               /* give up after this long (<= 0: try once) */
  double notice_s;                /* call notify after this long (default 2 s when 0) */
  attngen__fs_lock_notify notify; /* may be NULL */
  void *user;
  int directory;                  /* path is a directory: lock it (no pid is recorded) */
} attngen__fs_lock_opts;

/* Takes an exclusive flock on the lock file `path` (created if needed; the holder writes its
 * pid into it, so a waiter can name it). The lock goes away with the descriptor or the
 * process. Returns the descriptor, or -1: errno ETIMEDOUT when another process held it for
 * the whole timeout, and then `why` (if not NULL) says which file and which holder. */
int attngen__fs_lock(const char *path, const attngen__fs_lock_opts *opts, char *why,
                     size_t why_len);
void attngen__fs_unlock(int fd);

#endif /* ATTNGEN_FSUTIL_H */
