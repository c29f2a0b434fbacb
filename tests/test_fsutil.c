/* test_fsutil.c: the file-system helpers every layer shares (base/fsutil.c):
 * mkdir -p, whole-file reads with a size limit, atomic writes that leave no temp files and
 * leave the old content on failure, and locks that give up after a bounded wait with a
 * message naming the lock file and its holder. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <errno.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>

#include "attngen_internal.h"
#include "test_util.h"

typedef struct fixture {
  char dir[256];
} fixture;

static int setup(void **state) {
  fixture *f = calloc(1, sizeof *f);
  if (!f || attngen_test_make_tmpdir(f->dir, sizeof f->dir, "attngen-fsutil") != 0) return -1;
  *state = f;
  return 0;
}

static int teardown(void **state) {
  fixture *f = *state;
  attngen_test_remove_tree(f->dir);
  free(f);
  return 0;
}

/* Names in dir, space-separated and sorted by readdir order; returns the count. */
static int entries(const char *dir, char *names, size_t size) {
  DIR *d = opendir(dir);
  int n = 0;
  names[0] = 0;
  if (!d) return -1;
  struct dirent *e;
  while ((e = readdir(d)) != NULL) {
    if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
    size_t k = strlen(names);
    snprintf(names + k, size - k, "%s ", e->d_name);
    n++;
  }
  closedir(d);
  return n;
}

static void test_mkdir_p_creates_parents_and_rejects_files(void **state) {
  fixture *f = *state;
  char p[512], file[512];
  snprintf(p, sizeof p, "%s/a/b/c", f->dir);
  assert_int_equal(attngen__fs_mkdir_p(p, 0777), 0);
  struct stat st;
  assert_int_equal(stat(p, &st), 0);
  assert_true(S_ISDIR(st.st_mode));
  assert_int_equal(attngen__fs_mkdir_p(p, 0777), 0); /* existing: fine */
  snprintf(file, sizeof file, "%s/a/file", f->dir);
  FILE *fp = fopen(file, "w");
  assert_non_null(fp);
  fclose(fp);
  assert_int_equal(attngen__fs_mkdir_p(file, 0777), -1);
  assert_int_equal(errno, ENOTDIR);
  snprintf(p, sizeof p, "%s/x/y/name.db", f->dir);
  assert_int_equal(attngen__fs_mkdir_parent(p, 0777), 0);
  snprintf(p, sizeof p, "%s/x/y", f->dir);
  assert_int_equal(stat(p, &st), 0);
}

static void test_atomic_write_round_trip_no_temp_left(void **state) {
  fixture *f = *state;
  char p[512], names[1024];
  snprintf(p, sizeof p, "%s/out.txt", f->dir);
  assert_int_equal(attngen__fs_write_atomic(p, "first\n", 6, 0), 0);
  assert_int_equal(attngen__fs_write_atomic(p, "second, longer\n", 15, 1), 0);
  char *data = NULL;
  size_t len = 0;
  assert_int_equal(attngen__fs_read_file(p, 0, &data, &len), 0);
  assert_int_equal(len, 15);
  assert_string_equal(data, "second, longer\n"); /* NUL-terminated */
  free(data);
  assert_int_equal(entries(f->dir, names, sizeof names), 1);
  assert_string_equal(names, "out.txt ");
}

/* A rename that fails (the target is a non-empty directory) leaves no temp file behind and
 * the target as it was; a missing directory fails before anything is written. */
static void test_atomic_write_failure_leaves_nothing(void **state) {
  fixture *f = *state;
  char target[512], inner[600], names[1024];
  snprintf(target, sizeof target, "%s/blocked", f->dir);
  assert_int_equal(mkdir(target, 0777), 0);
  snprintf(inner, sizeof inner, "%s/keep", target);
  assert_int_equal(attngen__fs_write_atomic(inner, "x", 1, 0), 0);
  assert_int_equal(attngen__fs_write_atomic(target, "data", 4, 0), -1);
  assert_true(errno == EISDIR || errno == ENOTEMPTY || errno == EEXIST);
  assert_int_equal(entries(f->dir, names, sizeof names), 1);
  assert_null(strstr(names, ".tmp."));
  snprintf(target, sizeof target, "%s/missing/file", f->dir);
  assert_int_equal(attngen__fs_write_atomic(target, "data", 4, 0), -1);
  assert_int_equal(errno, ENOENT);
}

static void test_read_file_limit_and_missing(void **state) {
  fixture *f = *state;
  char p[512];
  snprintf(p, sizeof p, "%s/big", f->dir);
  char buf[10000];
  memset(buf, 'a', sizeof buf);
  assert_int_equal(attngen__fs_write_atomic(p, buf, sizeof buf, 0), 0);
  char *data = NULL;
  size_t len = 0;
  assert_int_equal(attngen__fs_read_file(p, 9999, &data, &len), -1);
  assert_int_equal(errno, EFBIG);
  assert_null(data);
  assert_int_equal(attngen__fs_read_file(p, 10000, &data, &len), 0);
  assert_int_equal(len, 10000);
  free(data);
  snprintf(p, sizeof p, "%s/none", f->dir);
  assert_int_equal(attngen__fs_read_file(p, 0, &data, &len), -1);
  assert_int_equal(errno, ENOENT);
}

typedef struct notice {
  int calls;
  char text[4600];
} notice;

static void on_notice(void *user, const char *message) {
  notice *n = user;
  n->calls++;
  snprintf(n->text, sizeof n->text, "%s", message);
}

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Takes the fsutil lock at path ctx (for attngen_test_hold_lock_stopped). */
static int take_fs_lock(const void *ctx) {
  attngen__fs_lock_opts o = {1.0, 0, NULL, NULL, 0};
  return attngen__fs_lock((const char *)ctx, &o, NULL, 0);
}

/* A child takes the lock and stops itself (as a suspended compile would). The parent's wait
 * is bounded: it gets ETIMEDOUT after about the timeout, a notice while waiting, and both
 * name the lock file and the stopped holder's pid. Once the holder dies, the lock is free. */
static void test_lock_times_out_naming_file_and_holder(void **state) {
  fixture *f = *state;
  char p[512];
  snprintf(p, sizeof p, "%s/key.lock", f->dir);
  pid_t kid = attngen_test_hold_lock_stopped(take_fs_lock, p);
  assert_true(kid > 0);
  int status;

  notice n = {0, ""};
  attngen__fs_lock_opts o = {0.6, 0.2, on_notice, &n, 0};
  char why[4600];
  double t0 = now_s();
  int fd = attngen__fs_lock(p, &o, why, sizeof why);
  double waited = now_s() - t0;
  int e = errno;
  assert_int_equal(fd, -1);
  assert_int_equal(e, ETIMEDOUT);
  assert_true(waited >= 0.55 && waited < 5.0);
  char pid[32];
  snprintf(pid, sizeof pid, "process %ld (stopped)", (long)kid);
  assert_non_null(strstr(why, p));
  assert_non_null(strstr(why, pid));
  assert_int_equal(n.calls, 1);
  assert_non_null(strstr(n.text, p));
  assert_non_null(strstr(n.text, pid));

  kill(kid, SIGKILL);
  waitpid(kid, &status, 0);
  o.timeout_s = 0.5;
  fd = attngen__fs_lock(p, &o, why, sizeof why);
  assert_true(fd >= 0);
  attngen__fs_unlock(fd);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test_setup_teardown(test_mkdir_p_creates_parents_and_rejects_files, setup, teardown),
    cmocka_unit_test_setup_teardown(test_atomic_write_round_trip_no_temp_left, setup, teardown),
    cmocka_unit_test_setup_teardown(test_atomic_write_failure_leaves_nothing, setup, teardown),
    cmocka_unit_test_setup_teardown(test_read_file_limit_and_missing, setup, teardown),
    cmocka_unit_test_setup_teardown(test_lock_times_out_naming_file_and_holder, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
