/* tuning_db.c: the tuning database file (format, shape classes and lookup rules are
 * documented in tuning_db.h). Parsing is all-or-nothing: a database object exists only for
 * a file that is valid from its first line to its last and matches the expected metadata. */
#define _GNU_SOURCE
#include "tuning_db.h"

#include "axes.h"
#include "cache.h"
#include "env.h"
#include "fsutil.h"
#include "log.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define MAX_FILE_BYTES (16u << 20)

/* Reads a whole file; IO_ERROR with MISSING / UNREADABLE on failure. */
static attngen_status read_file(const char *path, char **text, size_t *len,
                                attngen__tuning_diag *diag) {
  if (attngen__fs_read_file(path, MAX_FILE_BYTES, text, len) == 0) return ATTNGEN_STATUS_OK;
  const int e = errno;
  if (e == ENOMEM) {
    attngen__tdb_diag_set(diag, ATTNGEN__TUNING_UNREADABLE, 0, NULL, "%s: out of memory", path);
    return ATTNGEN_STATUS_OUT_OF_MEMORY;
  }
  if (e == EFBIG)
    attngen__tdb_diag_set(diag, ATTNGEN__TUNING_UNREADABLE, 0, NULL,
             "%s: tuning database larger than %u bytes; the file is ignored", path, MAX_FILE_BYTES);
  else
    attngen__tdb_diag_set(diag, e == ENOENT ? ATTNGEN__TUNING_MISSING : ATTNGEN__TUNING_UNREADABLE, 0, NULL,
             "%s: cannot open the tuning database: %s", path, strerror(e));
  return ATTNGEN_STATUS_IO_ERROR;
}

attngen_status attngen__tuning_db_load(const char *path, const attngen__tuning_meta *expected,
                                       attngen__tuning_file **out, attngen__tuning_diag *diag) {
  attngen__tdb_diag_clear(diag);
  if (!out) return ATTNGEN_STATUS_NULL_POINTER;
  *out = NULL;
  if (!path) return ATTNGEN_STATUS_NULL_POINTER;
  char *text;
  size_t len;
  attngen_status st = read_file(path, &text, &len, diag);
  if (st != ATTNGEN_STATUS_OK) return st;
  st = attngen__tuning_db_parse(text, len, path, expected, out, diag);
  free(text);
  return st;
}

/* ---- writing ---------------------------------------------------------------------------- */

typedef struct sbuf {
  char *s;
  size_t n, cap;
  int oom;
} sbuf;

static void sbuf_printf(sbuf *b, const char *fmt, ...) {
  if (b->oom) return;
  for (;;) {
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(b->s ? b->s + b->n : NULL, b->s ? b->cap - b->n : 0, fmt, ap);
    va_end(ap);
    if (k < 0) {
      b->oom = 1;
      return;
    }
    if (b->s && b->n + (size_t)k < b->cap) {
      b->n += (size_t)k;
      return;
    }
    size_t cap = b->cap ? b->cap : 1024;
    while (cap <= b->n + (size_t)k) cap *= 2;
    char *ns = realloc(b->s, cap);
    if (!ns) {
      b->oom = 1;
      return;
    }
    b->s = ns;
    b->cap = cap;
  }
}

attngen_status attngen__tuning_db_format(const attngen__tuning_file *db, char **text, size_t *len) {
  if (!db || !text) return ATTNGEN_STATUS_NULL_POINTER;
  *text = NULL;
  sbuf b = {0};
  sbuf_printf(&b,
              "# attngen tuning database, written by `attngen tune` (merged on every write).\n"
              "# record: layout rounding head_dim mask batch heads heads_kv seqlen_q seqlen_kv "
              "variant time_ms tflops\n"
              "%s\n",
              ATTNGEN__TUNING_FORMAT_LINE);
  const attngen__tuning_meta *m = &db->meta;
  sbuf_printf(&b, "meta attngen_version %s\nmeta target %s\nmeta device %s\n",
              m->attngen_version, m->target, m->device);
  sbuf_printf(&b, "meta cu_count %d\nmeta runtime %s\n", m->cu_count, m->runtime);
  for (size_t i = 0; i < db->n; i++) {
    const attngen__tuning_record *r = &db->e[i].r;
    sbuf_printf(&b, "record %s %s %d %s %d %d %d %d %d %s %.9g %.9g\n",
                attngen__layout_name(r->layout), attngen__rounding_name(r->rounding),
                r->head_dim ? r->head_dim : 128, r->causal ? "causal" : "none", r->batch,
                r->heads, r->heads_kv ? r->heads_kv : r->heads, r->seqlen_q, r->seqlen_kv,
                r->variant, r->time_ms, r->tflops);
  }
  if (b.oom) {
    free(b.s);
    return ATTNGEN_STATUS_OUT_OF_MEMORY;
  }
  *text = b.s;
  if (len) *len = b.n;
  return ATTNGEN_STATUS_OK;
}

attngen_status attngen__tuning_db_save(const attngen__tuning_file *db, const char *path,
                                       attngen__tuning_diag *diag) {
  attngen__tdb_diag_clear(diag);
  if (!db || !path) return ATTNGEN_STATUS_NULL_POINTER;
  char *text;
  size_t len;
  attngen_status st = attngen__tuning_db_format(db, &text, &len);
  if (st != ATTNGEN_STATUS_OK) {
    attngen__tdb_diag_set(diag, ATTNGEN__TUNING_UNREADABLE, 0, NULL, "%s: out of memory", path);
    return st;
  }
  if (attngen__fs_mkdir_parent(path, 0777) != 0) {
    int e = errno;
    attngen__tdb_diag_set(diag, ATTNGEN__TUNING_UNREADABLE, 0, NULL, "%s: cannot create its directory: %s",
             path, strerror(e));
    free(text);
    return ATTNGEN_STATUS_IO_ERROR;
  }
  const int rc = attngen__fs_write_atomic(path, text, len, 1);
  const int e = errno;
  free(text);
  if (rc != 0) {
    attngen__tdb_diag_set(diag, ATTNGEN__TUNING_UNREADABLE, 0, NULL,
             "%s: cannot write the tuning database: %s", path, strerror(e));
    return ATTNGEN_STATUS_IO_ERROR;
  }
  return ATTNGEN_STATUS_OK;
}

static void merge_lock_notice(void *user, const char *message) {
  (void)user;
  attngen__log(ATTNGEN__LOG_NOTICE, "tuning database: %s", message);
}

/* Exclusive lock on PATH.lock (the holder's pid inside, so a waiter names it; released by
 * unlock or process exit), waited for at most timeout_s with a notice after 2 s. Returns the
 * descriptor; -1 with a message in diag when the lock cannot be had: the merge then writes
 * nothing (a read-merge-write without it could drop another process's records). Only a
 * file system without locks (ENOLCK, EOPNOTSUPP) merges unlocked, and says so. */
static int lock_db(const char *path, double timeout_s, int *unlocked,
                   attngen__tuning_diag *diag) {
  char lock[4200], why[4400];
  *unlocked = 0;
  if (snprintf(lock, sizeof lock, "%s.lock", path) >= (int)sizeof lock) {
    attngen__tdb_diag_set(diag, ATTNGEN__TUNING_UNREADABLE, 0, NULL, "%s: path too long", path);
    return -1;
  }
  attngen__fs_lock_opts o = {timeout_s, 0, merge_lock_notice, NULL, 0};
  const int fd = attngen__fs_lock(lock, &o, why, sizeof why);
  if (fd >= 0) return fd;
  const int e = errno;
  if (e == ETIMEDOUT) {
    attngen__tdb_diag_set(diag, ATTNGEN__TUNING_UNREADABLE, 0, NULL,
                          "%s: not written: %s (is that process stopped? end it, or remove the "
                          "lock file; ATTNGEN_JIT_LOCK_TIMEOUT sets the wait in seconds)",
                          path, why);
  } else if (e == ENOLCK || e == EOPNOTSUPP) {
    attngen__log(ATTNGEN__LOG_NOTICE, "tuning database: %s: no file locks here (%s); merging "
                 "without the lock", lock, strerror(e));
    *unlocked = 1;
  } else {
    attngen__tdb_diag_set(diag, ATTNGEN__TUNING_UNREADABLE, 0, NULL,
                          "%s: cannot take the lock file %s: %s", path, lock, strerror(e));
  }
  return -1;
}

attngen_status attngen__tuning_db_merge_file(const char *path, const attngen__tuning_meta *meta,
                                             const attngen__tuning_record *records, size_t n,
                                             int replace_invalid, attngen__tuning_diag *diag) {
  attngen__tdb_diag_clear(diag);
  if (!path || !meta || (!records && n)) return ATTNGEN_STATUS_NULL_POINTER;
  for (size_t i = 0; i < n; i++) {
    const char *why = attngen__tdb_record_problem(&records[i]);
    if (why) {
      attngen__tdb_diag_set(diag, ATTNGEN__TUNING_BAD_INPUT, 0, NULL, "tuning record %zu: %s", i, why);
      return ATTNGEN_STATUS_INVALID_ARGUMENT;
    }
  }
  attngen__tuning_file *fresh;
  attngen_status st = attngen__tuning_db_new(meta, &fresh, diag);
  if (st != ATTNGEN_STATUS_OK) return st;
  attngen__tuning_db_free(fresh);
  if (attngen__fs_mkdir_parent(path, 0777) != 0) {
    int e = errno;
    attngen__tdb_diag_set(diag, ATTNGEN__TUNING_UNREADABLE, 0, NULL, "%s: cannot create its directory: %s",
             path, strerror(e));
    return ATTNGEN_STATUS_IO_ERROR;
  }
  attngen__env env;
  st = attngen__env_read(&env);
  if (st != ATTNGEN_STATUS_OK) {
    attngen__tdb_diag_set(diag, ATTNGEN__TUNING_BAD_INPUT, 0, NULL, "%s", attngen_last_error());
    return st;
  }
  int unlocked;
  int lock = lock_db(path, env.jit_lock_timeout_s, &unlocked, diag);
  if (lock < 0 && !unlocked) return ATTNGEN_STATUS_IO_ERROR;
  attngen__tuning_file *db = NULL;
  attngen__tuning_diag ld;
  st = attngen__tuning_db_load(path, meta, &db, &ld);
  if (st != ATTNGEN_STATUS_OK) {
    attngen__tuning_problem pr = ld.problem;
    int invalid = pr == ATTNGEN__TUNING_MALFORMED || pr == ATTNGEN__TUNING_MISMATCH;
    if (!(pr == ATTNGEN__TUNING_MISSING || (replace_invalid && invalid))) {
      if (invalid) {
        size_t k = strlen(ld.message);
        snprintf(ld.message + k, sizeof ld.message - k,
                 "; not overwritten");
      }
      if (diag) *diag = ld;
      attngen__fs_unlock(lock);
      return st;
    }
    st = attngen__tuning_db_new(meta, &db, NULL);
    if (st != ATTNGEN_STATUS_OK) {
      attngen__fs_unlock(lock);
      return st;
    }
  }
  for (size_t i = 0; i < n && st == ATTNGEN_STATUS_OK; i++) st = attngen__tdb_insert(db, &records[i], NULL);
  if (st == ATTNGEN_STATUS_OK) {
    st = attngen__tuning_db_save(db, path, diag);
    if (st == ATTNGEN_STATUS_OK && diag && ld.problem != ATTNGEN__TUNING_FINE &&
        ld.problem != ATTNGEN__TUNING_MISSING)
      snprintf(diag->message, sizeof diag->message, "replaced the previous file (%.470s)",
               ld.message);
  } else
    attngen__tdb_diag_set(diag, ATTNGEN__TUNING_UNREADABLE, 0, NULL, "%s: out of memory", path);
  attngen__tuning_db_free(db);
  attngen__fs_unlock(lock);
  return st;
}

/* ---- default location ------------------------------------------------------------------- */

int attngen__tuning_default_path(char *buf, size_t size) {
  const char *f = getenv("ATTNGEN_TUNING_FILE");
  char dir[4096];
  int k;
  if (f && *f)
    k = snprintf(buf, size, "%s", f);
  else if (attngen__cache_dir(dir, sizeof dir) == 0)
    k = snprintf(buf, size, "%s/tuning.db", dir);
  else
    return -1;
  return k < 0 || (size_t)k >= size ? -1 : 0;
}

/* ---- metadata of a running device ------------------------------------------------------- */

/* Copies src into dst (size bytes), tabs as spaces, other control characters as '?', outer
 * blanks trimmed; "unknown" when nothing is left. */
static void clean_copy(char *dst, size_t size, const char *src) {
  if (!src) src = "";
  while (attngen__tdb_is_blank(*src)) src++;
  size_t n = strnlen(src, size - 1);
  while (n > 0 && attngen__tdb_is_blank(src[n - 1])) n--;
  for (size_t i = 0; i < n; i++)
    if (src[i] == '\t')
      dst[i] = ' ';
    else
      dst[i] = ((unsigned char)src[i] < 0x20 || src[i] == 0x7f) ? '?' : src[i];
  dst[n] = 0;
  while (n > 0 && attngen__tdb_is_blank(dst[n - 1])) dst[--n] = 0;
  if (n == 0) snprintf(dst, size, "unknown");
}

void attngen__tuning_meta_from_device(const attngen_device_props *p, attngen__tuning_meta *m) {
  memset(m, 0, sizeof *m);
  clean_copy(m->attngen_version, sizeof m->attngen_version, ATTNGEN_VERSION_STRING);
  clean_copy(m->target, sizeof m->target, p->target && *p->target ? p->target : p->backend);
  clean_copy(m->device, sizeof m->device, p->name);
  m->cu_count = p->compute_units > 0 ? p->compute_units : 0;
  char rt[64];
  snprintf(rt, sizeof rt, "%s %d", p->backend[0] ? p->backend : "unknown", p->driver_version);
  clean_copy(m->runtime, sizeof m->runtime, rt);
}
