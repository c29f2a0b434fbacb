/* test_util.h: small helpers shared by the cmocka test binaries (temporary folders). */
#ifndef ATTNGEN_TEST_UTIL_H
#define ATTNGEN_TEST_UTIL_H

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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

#endif /* ATTNGEN_TEST_UTIL_H */
