/* test_util.h: small helpers shared by the cmocka test binaries (temporary folders). */
#ifndef ATTNGEN_TEST_UTIL_H
#define ATTNGEN_TEST_UTIL_H

#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* Creates $TMPDIR/<prefix>-XXXXXX (or under /tmp) in dir; returns 0 on success. */
static inline int attngen_test_make_tmpdir(char *dir, size_t size, const char *prefix) {
  const char *base = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
  snprintf(dir, size, "%s/%s-XXXXXX", base, prefix);
  return mkdtemp(dir) ? 0 : -1;
}

/* Removes a folder and everything below it (no links followed). */
static inline void attngen_test_remove_tree(const char *dir) {
  DIR *d = opendir(dir);
  if (!d) return;
  struct dirent *e;
  char p[1024];
  while ((e = readdir(d)) != NULL) {
    if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
    snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
    struct stat st;
    if (lstat(p, &st) == 0 && S_ISDIR(st.st_mode))
      attngen_test_remove_tree(p);
    else
      unlink(p);
  }
  closedir(d);
  rmdir(dir);
}

/* Forks a child that takes a lock with take(ctx) and then stops itself (as a suspended compile
 * would); returns the stopped child's pid, or -1 when the child could not take the lock or did
 * not stop. The caller kills and reaps it. */
static inline pid_t attngen_test_hold_lock_stopped(int (*take)(const void *ctx), const void *ctx) {
  int ready[2];
  if (pipe(ready) != 0) return -1;
  pid_t kid = fork();
  if (kid == 0) {
    char c = take(ctx) >= 0 ? 'y' : 'n';
    if (write(ready[1], &c, 1) != 1) _exit(2);
    raise(SIGSTOP);
    _exit(0);
  }
  char c = 0;
  int status = 0;
  int ok = kid > 0 && read(ready[0], &c, 1) == 1 && c == 'y' &&
           waitpid(kid, &status, WUNTRACED) == kid && WIFSTOPPED(status);
  close(ready[0]);
  close(ready[1]);
  if (!ok && kid > 0) {
    kill(kid, SIGKILL);
    waitpid(kid, &status, 0);
  }
  return ok ? kid : -1;
}

#endif /* ATTNGEN_TEST_UTIL_H */
