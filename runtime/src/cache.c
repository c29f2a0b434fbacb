/* cache.c: JIT cache entries on disk: format, validation, atomic writes, per-key locks. */
#include "cache.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fsutil.h"
#include "hash.h"
#include "status.h"

static const char cache_magic[8] = {'A', 'T', 'G', 'N', 'J', 'I', 'T', '\n'};
#define CACHE_FORMAT_VERSION 1u

/* Header field offsets (little-endian integers). */
enum {
  OFF_MAGIC = 0,
  OFF_HEADER_BYTES = 8,
  OFF_VERSION = 12,
  OFF_KEY = 16,
  OFF_LENGTH = 24,
  OFF_CHECKSUM = 32,
  OFF_CREATED = 40,
  OFF_VARIANT = 48,   /* 128 bytes */
  OFF_TARGET = 176,   /* 16 */
  OFF_ARCH = 192,     /* 24 */
  OFF_COMPILER = 216, /* 32 */
  OFF_HEADER_SUM = 248
};

static void put_u64(unsigned char *p, uint64_t v) {
  for (int i = 0; i < 8; i++) p[i] = (unsigned char)(v >> (8 * i));
}
static void put_u32(unsigned char *p, uint32_t v) {
  for (int i = 0; i < 4; i++) p[i] = (unsigned char)(v >> (8 * i));
}
static uint64_t get_u64(const unsigned char *p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; i--) v = (v << 8) | p[i];
  return v;
}
static uint32_t get_u32(const unsigned char *p) {
  uint32_t v = 0;
  for (int i = 3; i >= 0; i--) v = (v << 8) | p[i];
  return v;
}
static void put_str(unsigned char *p, size_t cap, const char *s) {
  memset(p, 0, cap);
  if (s) memcpy(p, s, strnlen(s, cap - 1));
}
static void get_str(char *dst, const unsigned char *p, size_t cap) {
  memcpy(dst, p, cap - 1);
  dst[cap - 1] = 0;
}

int attngen__cache_dir(char *buf, size_t len) {
  const char *env = getenv("ATTNGEN_CACHE_DIR");
  const char *xdg = getenv("XDG_CACHE_HOME");
  const char *home = getenv("HOME");
  int n;
  if (env && *env)
    n = snprintf(buf, len, "%s", env);
  else if (xdg && *xdg)
    n = snprintf(buf, len, "%s/attngen", xdg);
  else if (home && *home)
    n = snprintf(buf, len, "%s/.cache/attngen", home);
  else {
    errno = ENOENT;
    return -1;
  }
  if (n < 0 || (size_t)n >= len || n > ATTNGEN__CACHE_DIR_MAX) {
    if (len) buf[0] = 0;
    errno = ENAMETOOLONG;
    return -1;
  }
  return 0;
}

static void entry_path(char *buf, size_t len, const char *dir, uint64_t key, const char *ext) {
  snprintf(buf, len, "%s/%016llx%s", dir, (unsigned long long)key, ext);
}

/* Validates header + payload in memory; returns NULL or a problem text. */
static const char *validate(const unsigned char *h, int64_t file_bytes, uint64_t *key,
                            uint64_t *length, uint64_t *checksum) {
  if (file_bytes < ATTNGEN__CACHE_HEADER_BYTES) return "shorter than its header (truncated)";
  if (memcmp(h + OFF_MAGIC, cache_magic, sizeof cache_magic) != 0) return "bad magic";
  if (get_u32(h + OFF_HEADER_BYTES) != ATTNGEN__CACHE_HEADER_BYTES ||
      get_u32(h + OFF_VERSION) != CACHE_FORMAT_VERSION)
    return "unknown format version";
  if (attngen__fnv1a64(ATTNGEN__FNV64_INIT, h, OFF_HEADER_SUM) != get_u64(h + OFF_HEADER_SUM))
    return "header checksum mismatch";
  *key = get_u64(h + OFF_KEY);
  *length = get_u64(h + OFF_LENGTH);
  *checksum = get_u64(h + OFF_CHECKSUM);
  if ((uint64_t)(file_bytes - ATTNGEN__CACHE_HEADER_BYTES) != *length)
    return file_bytes - ATTNGEN__CACHE_HEADER_BYTES < (int64_t)*length
               ? "payload shorter than recorded (truncated)"
               : "payload longer than recorded";
  return NULL;
}

static void read_meta(const unsigned char *h, attngen__cache_meta *m) {
  get_str(m->variant, h + OFF_VARIANT, sizeof m->variant);
  get_str(m->target, h + OFF_TARGET, sizeof m->target);
  get_str(m->arch, h + OFF_ARCH, sizeof m->arch);
  get_str(m->compiler, h + OFF_COMPILER, sizeof m->compiler);
  m->created = (int64_t)get_u64(h + OFF_CREATED);
}

/* Reads and validates one entry file; on success *data is malloc'd unless data is NULL. */
static attngen__cache_result read_entry(const char *path, uint64_t want_key, int check_key,
                                        void **data, size_t *size, attngen__cache_meta *meta,
                                        char *why, size_t why_len, int64_t *file_bytes_out) {
  char *file = NULL;
  size_t n = 0;
  if (file_bytes_out) *file_bytes_out = 0;
  if (attngen__fs_read_file(path, 0, &file, &n) != 0) {
    if (why) snprintf(why, why_len, "%s", strerror(errno));
    return errno == ENOENT ? ATTNGEN__CACHE_MISS : ATTNGEN__CACHE_CORRUPT;
  }
  if (file_bytes_out) *file_bytes_out = (int64_t)n;
  const unsigned char *h = (const unsigned char *)file;
  const char *problem = NULL;
  uint64_t key = 0, length = 0, checksum = 0;
  if (n < ATTNGEN__CACHE_HEADER_BYTES) problem = "shorter than its header (truncated)";
  if (!problem) problem = validate(h, (int64_t)n, &key, &length, &checksum);
  if (!problem && check_key && key != want_key) problem = "key in the header differs from the file name";
  if (!problem && attngen__fnv1a64(ATTNGEN__FNV64_INIT, h + ATTNGEN__CACHE_HEADER_BYTES, length) !=
                      checksum)
    problem = "payload checksum mismatch";
  if (problem) {
    free(file);
    if (why) snprintf(why, why_len, "%s", problem);
    return ATTNGEN__CACHE_CORRUPT;
  }
  if (meta) read_meta(h, meta);
  if (data) {
    /* The payload moves to the front of the buffer it was read into. */
    memmove(file, file + ATTNGEN__CACHE_HEADER_BYTES, length);
    *data = file;
    *size = length;
  } else {
    free(file);
  }
  return ATTNGEN__CACHE_HIT;
}

attngen__cache_result attngen__cache_read(const char *dir, uint64_t key, void **data,
                                          size_t *size, attngen__cache_meta *meta, char *why,
                                          size_t why_len) {
  char path[4200];
  entry_path(path, sizeof path, dir, key, ATTNGEN__CACHE_EXT);
  return read_entry(path, key, 1, data, size, meta, why, why_len, NULL);
}

attngen_status attngen__cache_write(const char *dir, uint64_t key, const void *data, size_t size,
                                    const attngen__cache_meta *meta) {
  if (attngen__fs_mkdir_p(dir, 0755) != 0)
    return attngen__fail(ATTNGEN_STATUS_IO_ERROR, "cache: cannot create %s: %s", dir, strerror(errno));
  unsigned char h[ATTNGEN__CACHE_HEADER_BYTES];
  memset(h, 0, sizeof h);
  memcpy(h + OFF_MAGIC, cache_magic, sizeof cache_magic);
  put_u32(h + OFF_HEADER_BYTES, ATTNGEN__CACHE_HEADER_BYTES);
  put_u32(h + OFF_VERSION, CACHE_FORMAT_VERSION);
  put_u64(h + OFF_KEY, key);
  put_u64(h + OFF_LENGTH, size);
  put_u64(h + OFF_CHECKSUM, attngen__fnv1a64(ATTNGEN__FNV64_INIT, data, size));
  put_u64(h + OFF_CREATED, (uint64_t)(meta && meta->created ? meta->created : (int64_t)time(NULL)));
  put_str(h + OFF_VARIANT, 128, meta ? meta->variant : NULL);
  put_str(h + OFF_TARGET, 16, meta ? meta->target : NULL);
  put_str(h + OFF_ARCH, 24, meta ? meta->arch : NULL);
  put_str(h + OFF_COMPILER, 32, meta ? meta->compiler : NULL);
  put_u64(h + OFF_HEADER_SUM, attngen__fnv1a64(ATTNGEN__FNV64_INIT, h, OFF_HEADER_SUM));

  char path[4200];
  entry_path(path, sizeof path, dir, key, ATTNGEN__CACHE_EXT);
  unsigned char *file = malloc(sizeof h + size);
  if (!file) return attngen__fail(ATTNGEN_STATUS_OUT_OF_MEMORY, "cache: out of memory");
  memcpy(file, h, sizeof h);
  if (size) memcpy(file + sizeof h, data, size);
  int rc = attngen__fs_write_atomic(path, file, sizeof h + size, 0);
  int e = errno;
  free(file);
  if (rc != 0)
    return attngen__fail(ATTNGEN_STATUS_IO_ERROR, "cache: cannot write %s: %s", path, strerror(e));
  return ATTNGEN_STATUS_OK;
}

static void lock_notice(void *user, const char *message) {
  attngen__log(ATTNGEN__LOG_NOTICE, "jit: %s", message);
}

int attngen__cache_lock(const char *dir, uint64_t key, double timeout_s, char *why,
                        size_t why_len) {
  if (why && why_len) why[0] = 0;
  if (attngen__fs_mkdir_p(dir, 0755) != 0) return -1;
  char path[4200];
  entry_path(path, sizeof path, dir, key, ".lock");
  attngen__fs_lock_opts o = {timeout_s, 0, lock_notice, NULL, 0};
  return attngen__fs_lock(path, &o, why, why_len);
}

void attngen__cache_unlock(int fd) { attngen__fs_unlock(fd); }

static int hex_prefix(const char *name) {
  for (int i = 0; i < 16; i++)
    if (!((name[i] >= '0' && name[i] <= '9') || (name[i] >= 'a' && name[i] <= 'f'))) return 0;
  return 1;
}

static int item_cmp(const void *a, const void *b) {
  return strcmp(((const attngen__cache_item *)a)->file, ((const attngen__cache_item *)b)->file);
}

attngen_status attngen__cache_list(const char *dir, attngen__cache_item **items, size_t *count) {
  *items = NULL;
  *count = 0;
  DIR *d = opendir(dir);
  if (!d) {
    if (errno == ENOENT) return ATTNGEN_STATUS_OK;
    return attngen__fail(ATTNGEN_STATUS_IO_ERROR, "cache: cannot open %s: %s", dir, strerror(errno));
  }
  size_t cap = 0, n = 0;
  attngen__cache_item *list = NULL;
  struct dirent *e;
  attngen_status rc = ATTNGEN_STATUS_OK;
  while ((e = readdir(d)) != NULL) {
    if (!hex_prefix(e->d_name) || strcmp(e->d_name + 16, ATTNGEN__CACHE_EXT) != 0) continue;
    if (n == cap) {
      cap = cap ? cap * 2 : 16;
      attngen__cache_item *grown = realloc(list, cap * sizeof *list);
      if (!grown) {
        rc = attngen__fail(ATTNGEN_STATUS_OUT_OF_MEMORY, "cache: out of memory");
        break;
      }
      list = grown;
    }
    attngen__cache_item *it = &list[n++];
    memset(it, 0, sizeof *it);
    snprintf(it->file, sizeof it->file, "%s", e->d_name);
    it->key = strtoull(e->d_name, NULL, 16);
    char path[4400];
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    it->valid = read_entry(path, it->key, 1, NULL, NULL, &it->meta, it->problem,
                          sizeof it->problem, &it->file_bytes) == ATTNGEN__CACHE_HIT;
  }
  closedir(d);
  if (rc != ATTNGEN_STATUS_OK) {
    free(list);
    return rc;
  }
  if (n) qsort(list, n, sizeof *list, item_cmp);
  *items = list;
  *count = n;
  return ATTNGEN_STATUS_OK;
}

attngen_status attngen__cache_clear(const char *dir, size_t *removed) {
  *removed = 0;
  DIR *d = opendir(dir);
  if (!d) {
    if (errno == ENOENT) return ATTNGEN_STATUS_OK;
    return attngen__fail(ATTNGEN_STATUS_IO_ERROR, "cache: cannot open %s: %s", dir, strerror(errno));
  }
  attngen_status rc = ATTNGEN_STATUS_OK;
  struct dirent *e;
  while ((e = readdir(d)) != NULL) {
    /* Only our own names: 16 hex digits + ".atgk", ".lock" or ".atgk.tmp.*" (other files,
     * e.g. the tuning database, may share the directory). */
    if (!hex_prefix(e->d_name)) continue;
    const char *rest = e->d_name + 16;
    int entry = strcmp(rest, ATTNGEN__CACHE_EXT) == 0;
    int ours = entry || strcmp(rest, ".lock") == 0 ||
               strncmp(rest, ATTNGEN__CACHE_EXT ".tmp.", strlen(ATTNGEN__CACHE_EXT) + 5) == 0;
    if (!ours) continue;
    char path[4400];
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    if (unlink(path) != 0) {
      rc = attngen__fail(ATTNGEN_STATUS_IO_ERROR, "cache: cannot remove %s: %s", path, strerror(errno));
      continue;
    }
    if (entry) (*removed)++;
  }
  closedir(d);
  return rc;
}
