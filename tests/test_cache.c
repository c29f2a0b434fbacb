/* test_cache.c: the JIT cache's entry format, validation, listing, clearing, directory
 * choice and per-key lock (runtime/src/cache.c), without any compiler. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "attngen_internal.h"

typedef struct fixture {
  char dir[256];
} fixture;

static int setup(void **state) {
  fixture *f = calloc(1, sizeof *f);
  if (!f) return -1;
  snprintf(f->dir, sizeof f->dir, "/tmp/attngen-cache-XXXXXX");
  if (!mkdtemp(f->dir)) return -1;
  *state = f;
  return 0;
}

static int teardown(void **state) {
  fixture *f = *state;
  DIR *d = opendir(f->dir);
  struct dirent *e;
  while (d && (e = readdir(d)) != NULL) {
    if (e->d_name[0] == '.') continue;
    char p[600];
    snprintf(p, sizeof p, "%s/%s", f->dir, e->d_name);
    unlink(p);
  }
  if (d) closedir(d);
  rmdir(f->dir);
  free(f);
  return 0;
}

static const unsigned char payload[] = "\x7f" "ELF fake code object payload 0123456789";

static attngen__cache_meta meta_of(const char *variant) {
  attngen__cache_meta m;
  memset(&m, 0, sizeof m);
  snprintf(m.variant, sizeof m.variant, "%s", variant);
  snprintf(m.target, sizeof m.target, "sm90");
  snprintf(m.arch, sizeof m.arch, "sm_90a");
  snprintf(m.compiler, sizeof m.compiler, "nvrtc 13.0");
  m.created = 1700000000;
  return m;
}

static void path_of(char *buf, size_t len, const char *dir, uint64_t key, const char *ext) {
  snprintf(buf, len, "%s/%016llx%s", dir, (unsigned long long)key, ext);
}

static void test_cache_round_trip(void **state) {
  fixture *f = *state;
  attngen__cache_meta m = meta_of("attn_fwd_x");
  assert_int_equal(attngen__cache_write(f->dir, 0x1234abcdULL, payload, sizeof payload, &m),
                   ATTNGEN_STATUS_OK);
  void *data = NULL;
  size_t size = 0;
  attngen__cache_meta back;
  char why[128];
  assert_int_equal(attngen__cache_read(f->dir, 0x1234abcdULL, &data, &size, &back, why, sizeof why),
                   ATTNGEN__CACHE_HIT);
  assert_int_equal(size, sizeof payload);
  assert_memory_equal(data, payload, sizeof payload);
  assert_string_equal(back.variant, "attn_fwd_x");
  assert_string_equal(back.arch, "sm_90a");
  assert_string_equal(back.compiler, "nvrtc 13.0");
  assert_int_equal(back.created, 1700000000);
  free(data);
  char p[512];
  path_of(p, sizeof p, f->dir, 0x1234abcdULL, ATTNGEN__CACHE_EXT);
  struct stat st;
  assert_int_equal(stat(p, &st), 0);
  assert_int_equal(st.st_size, ATTNGEN__CACHE_HEADER_BYTES + (off_t)sizeof payload);
  assert_int_equal(attngen__cache_read(f->dir, 0x99ULL, &data, &size, NULL, why, sizeof why),
                   ATTNGEN__CACHE_MISS);
}

/* Writes a valid entry, applies damage at byte offset `at` (or truncates to `at` when
 * truncate_it), and expects CORRUPT with `problem` in the reason. */
static void damaged(fixture *f, long at, int truncate_it, const char *problem) {
  uint64_t key = 0x42;
  attngen__cache_meta m = meta_of("v");
  assert_int_equal(attngen__cache_write(f->dir, key, payload, sizeof payload, &m), ATTNGEN_STATUS_OK);
  char p[512];
  path_of(p, sizeof p, f->dir, key, ATTNGEN__CACHE_EXT);
  if (truncate_it) {
    assert_int_equal(truncate(p, at), 0);
  } else {
    FILE *fp = fopen(p, "r+b");
    assert_non_null(fp);
    fseek(fp, at, SEEK_SET);
    int c = fgetc(fp);
    fseek(fp, at, SEEK_SET);
    fputc(c ^ 1, fp);
    fclose(fp);
  }
  void *data = NULL;
  size_t size = 0;
  char why[160] = "";
  assert_int_equal(attngen__cache_read(f->dir, key, &data, &size, NULL, why, sizeof why),
                   ATTNGEN__CACHE_CORRUPT);
  assert_null(data);
  if (!strstr(why, problem)) print_message("why: %s\n", why);
  assert_non_null(strstr(why, problem));
}

static void test_cache_detects_truncated_header(void **state) { damaged(*state, 100, 1, "truncated"); }
static void test_cache_detects_truncated_payload(void **state) {
  damaged(*state, ATTNGEN__CACHE_HEADER_BYTES + 5, 1, "truncated");
}
static void test_cache_detects_empty_file(void **state) { damaged(*state, 0, 1, "truncated"); }
static void test_cache_detects_payload_bit_flip(void **state) {
  damaged(*state, ATTNGEN__CACHE_HEADER_BYTES + 3, 0, "payload checksum");
}
static void test_cache_detects_header_bit_flip(void **state) {
  damaged(*state, 60, 0, "header checksum"); /* inside the variant name */
}
static void test_cache_detects_bad_magic(void **state) { damaged(*state, 0, 0, "magic"); }

static void test_cache_detects_entry_under_wrong_name(void **state) {
  fixture *f = *state;
  attngen__cache_meta m = meta_of("v");
  assert_int_equal(attngen__cache_write(f->dir, 0x1, payload, sizeof payload, &m), ATTNGEN_STATUS_OK);
  char a[512], b[512];
  path_of(a, sizeof a, f->dir, 0x1, ATTNGEN__CACHE_EXT);
  path_of(b, sizeof b, f->dir, 0x2, ATTNGEN__CACHE_EXT);
  assert_int_equal(rename(a, b), 0);
  char why[160];
  void *data = NULL;
  size_t size;
  assert_int_equal(attngen__cache_read(f->dir, 0x2, &data, &size, NULL, why, sizeof why),
                   ATTNGEN__CACHE_CORRUPT);
  assert_non_null(strstr(why, "key"));
}

static void test_cache_list_and_clear(void **state) {
  fixture *f = *state;
  attngen__cache_meta m = meta_of("good");
  assert_int_equal(attngen__cache_write(f->dir, 0xb, payload, sizeof payload, &m), ATTNGEN_STATUS_OK);
  assert_int_equal(attngen__cache_write(f->dir, 0xa, payload, sizeof payload, &m), ATTNGEN_STATUS_OK);
  char p[512];
  path_of(p, sizeof p, f->dir, 0xa, ATTNGEN__CACHE_EXT);
  assert_int_equal(truncate(p, 10), 0);
  int lock = attngen__cache_lock(f->dir, 0xb, 1.0, NULL, 0);
  assert_true(lock >= 0);
  attngen__cache_unlock(lock);
  /* A file that is not ours stays. */
  char other[512];
  snprintf(other, sizeof other, "%s/tuning.db", f->dir);
  FILE *fp = fopen(other, "w");
  assert_non_null(fp);
  fputs("attngen-tuning 1\n", fp);
  fclose(fp);

  attngen__cache_item *items = NULL;
  size_t n = 0;
  assert_int_equal(attngen__cache_list(f->dir, &items, &n), ATTNGEN_STATUS_OK);
  assert_int_equal(n, 2);
  assert_int_equal(items[0].key, 0xa); /* sorted by name */
  assert_false(items[0].valid);
  assert_non_null(strstr(items[0].problem, "truncated"));
  assert_true(items[1].valid);
  assert_string_equal(items[1].meta.variant, "good");
  assert_int_equal(items[1].file_bytes, ATTNGEN__CACHE_HEADER_BYTES + (int64_t)sizeof payload);
  free(items);

  size_t removed = 0;
  assert_int_equal(attngen__cache_clear(f->dir, &removed), ATTNGEN_STATUS_OK);
  assert_int_equal(removed, 2);
  assert_int_equal(attngen__cache_list(f->dir, &items, &n), ATTNGEN_STATUS_OK);
  assert_int_equal(n, 0);
  free(items);
  assert_int_equal(access(other, F_OK), 0);
  path_of(p, sizeof p, f->dir, 0xb, ".lock");
  assert_int_equal(access(p, F_OK), -1);
}

static void test_cache_missing_dir_is_empty(void **state) {
  attngen__cache_item *items = NULL;
  size_t n = 5, removed = 5;
  assert_int_equal(attngen__cache_list("/tmp/attngen-no-such-dir-really", &items, &n), ATTNGEN_STATUS_OK);
  assert_int_equal(n, 0);
  assert_int_equal(attngen__cache_clear("/tmp/attngen-no-such-dir-really", &removed), ATTNGEN_STATUS_OK);
  assert_int_equal(removed, 0);
}

static void test_cache_write_creates_directories(void **state) {
  fixture *f = *state;
  char sub[400];
  snprintf(sub, sizeof sub, "%s/a", f->dir);
  char deep[400];
  snprintf(deep, sizeof deep, "%s/a/b", f->dir);
  assert_int_equal(attngen__cache_write(deep, 7, payload, sizeof payload, NULL), ATTNGEN_STATUS_OK);
  char p[512];
  path_of(p, sizeof p, deep, 7, ATTNGEN__CACHE_EXT);
  assert_int_equal(unlink(p), 0);
  assert_int_equal(rmdir(deep), 0);
  assert_int_equal(rmdir(sub), 0);
}

static void test_cache_dir_precedence(void **state) {
  char buf[512];
  setenv("ATTNGEN_CACHE_DIR", "/x/explicit", 1);
  setenv("XDG_CACHE_HOME", "/x/xdg", 1);
  setenv("HOME", "/x/home", 1);
  assert_int_equal(attngen__cache_dir(buf, sizeof buf), 0);
  assert_string_equal(buf, "/x/explicit");
  unsetenv("ATTNGEN_CACHE_DIR");
  assert_int_equal(attngen__cache_dir(buf, sizeof buf), 0);
  assert_string_equal(buf, "/x/xdg/attngen");
  unsetenv("XDG_CACHE_HOME");
  assert_int_equal(attngen__cache_dir(buf, sizeof buf), 0);
  assert_string_equal(buf, "/x/home/.cache/attngen");
  unsetenv("HOME");
  assert_int_equal(attngen__cache_dir(buf, sizeof buf), -1);
}

/* A cache directory that does not fit is refused (ENAMETOOLONG), never truncated: a
 * 5000-byte ATTNGEN_CACHE_DIR was cut to 4095 bytes and used. */
static void test_cache_dir_too_long_is_refused(void **state) {
  char big[5001], buf[8192];
  memset(big, 'd', sizeof big - 1);
  big[0] = '/';
  big[sizeof big - 1] = 0;
  setenv("ATTNGEN_CACHE_DIR", big, 1);
  errno = 0;
  assert_int_equal(attngen__cache_dir(buf, sizeof buf), -1);
  assert_int_equal(errno, ENAMETOOLONG);
  big[ATTNGEN__CACHE_DIR_MAX] = 0; /* the longest allowed */
  setenv("ATTNGEN_CACHE_DIR", big, 1);
  assert_int_equal(attngen__cache_dir(buf, sizeof buf), 0);
  assert_int_equal(strlen(buf), ATTNGEN__CACHE_DIR_MAX);
  char small[64];
  assert_int_equal(attngen__cache_dir(small, sizeof small), -1); /* does not fit the buffer */
  big[ATTNGEN__CACHE_DIR_MAX] = 'd';
  big[ATTNGEN__CACHE_DIR_MAX + 1] = 0; /* one byte too long */
  setenv("ATTNGEN_CACHE_DIR", big, 1);
  attngen_context *ctx = NULL;
  assert_int_equal(attngen_create(&ctx, NULL), ATTNGEN_STATUS_INVALID_ARGUMENT);
  assert_non_null(strstr(attngen_last_error(), "ATTNGEN_CACHE_DIR is 4001 bytes long"));
  unsetenv("ATTNGEN_CACHE_DIR");
}

/* While one process holds a key's lock, another cannot take it; it can once released, and
 * a lock held by a process that dies is released with it. */
static void test_cache_lock_excludes_and_dies_with_process(void **state) {
  fixture *f = *state;
  int fd = attngen__cache_lock(f->dir, 0x77, 1.0, NULL, 0);
  assert_true(fd >= 0);
  char p[512];
  path_of(p, sizeof p, f->dir, 0x77, ".lock");
  pid_t kid = fork();
  if (kid == 0) {
    int x = open(p, O_RDWR);
    _exit(x >= 0 && flock(x, LOCK_EX | LOCK_NB) != 0 && errno == EWOULDBLOCK ? 0 : 1);
  }
  int status;
  waitpid(kid, &status, 0);
  assert_int_equal(WEXITSTATUS(status), 0);
  attngen__cache_unlock(fd);

  kid = fork();
  if (kid == 0) {
    int x = attngen__cache_lock(f->dir, 0x77, 1.0, NULL, 0);
    _exit(x >= 0 ? 0 : 1); /* exits holding it */
  }
  waitpid(kid, &status, 0);
  assert_int_equal(WEXITSTATUS(status), 0);
  int x = open(p, O_RDWR);
  assert_true(x >= 0);
  assert_int_equal(flock(x, LOCK_EX | LOCK_NB), 0);
  close(x);
}

static void test_cache_hash_is_fnv1a64(void **state) {
  /* Published FNV-1a 64 test vectors. */
  assert_int_equal(attngen__fnv1a64(ATTNGEN__FNV64_INIT, "", 0), 0xcbf29ce484222325ULL);
  assert_int_equal(attngen__fnv1a64(ATTNGEN__FNV64_INIT, "a", 1), 0xaf63dc4c8601ec8cULL);
  assert_int_equal(attngen__fnv1a64(ATTNGEN__FNV64_INIT, "foobar", 6), 0x85944171f73967e8ULL);
  /* String hashing separates ("ab","c") from ("a","bc"). */
  uint64_t h1 = attngen__fnv1a64_str(attngen__fnv1a64_str(ATTNGEN__FNV64_INIT, "ab"), "c");
  uint64_t h2 = attngen__fnv1a64_str(attngen__fnv1a64_str(ATTNGEN__FNV64_INIT, "a"), "bc");
  assert_true(h1 != h2);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test_setup_teardown(test_cache_round_trip, setup, teardown),
    cmocka_unit_test_setup_teardown(test_cache_detects_truncated_header, setup, teardown),
    cmocka_unit_test_setup_teardown(test_cache_detects_truncated_payload, setup, teardown),
    cmocka_unit_test_setup_teardown(test_cache_detects_empty_file, setup, teardown),
    cmocka_unit_test_setup_teardown(test_cache_detects_payload_bit_flip, setup, teardown),
    cmocka_unit_test_setup_teardown(test_cache_detects_header_bit_flip, setup, teardown),
    cmocka_unit_test_setup_teardown(test_cache_detects_bad_magic, setup, teardown),
    cmocka_unit_test_setup_teardown(test_cache_detects_entry_under_wrong_name, setup, teardown),
    cmocka_unit_test_setup_teardown(test_cache_list_and_clear, setup, teardown),
    cmocka_unit_test(test_cache_missing_dir_is_empty),
    cmocka_unit_test_setup_teardown(test_cache_write_creates_directories, setup, teardown),
    cmocka_unit_test(test_cache_dir_precedence),
    cmocka_unit_test(test_cache_dir_too_long_is_refused),
    cmocka_unit_test_setup_teardown(test_cache_lock_excludes_and_dies_with_process, setup, teardown),
    cmocka_unit_test(test_cache_hash_is_fnv1a64),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
