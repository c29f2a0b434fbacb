/* cmd_cache.c: `attngen cache ls | clear | verify` — the JIT cache on disk. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "attngen.h"
#include "attngen_internal.h"

static void usage(FILE *f) {
  fprintf(f,
          "usage: attngen cache (ls | clear | verify [--remove]) [--dir DIR]\n\n"
          "  ls       list the entries: key, variant, target arch, compiler, size, age, state\n"
          "  clear    remove every entry (and the lock and temporary files of the cache)\n"
          "  verify   check every entry's header and checksum; --remove deletes bad ones\n"
          "  --dir    the cache directory (default: $ATTNGEN_CACHE_DIR, else\n"
          "           $XDG_CACHE_HOME/attngen, else ~/.cache/attngen)\n\n"
          "Exit status: 0 ok, 1 failure (verify: an invalid entry remains), 2 usage error.\n");
}

static int list(const char *dir, int verify, int remove_bad) {
  attngen__cache_item *items = NULL;
  size_t n = 0;
  if (attngen__cache_list(dir, &items, &n) != ATTNGEN_STATUS_OK) {
    fprintf(stderr, "attngen cache: %s\n", attngen_last_error());
    return 1;
  }
  printf("cache %s: %zu entr%s\n", dir, n, n == 1 ? "y" : "ies");
  if (n) printf("  %-16s  %-8s  %-7s  %-12s  %9s  %-16s  %s\n", "key", "arch", "target", "compiler",
                "bytes", "created", "variant / state");
  size_t bad = 0, removed = 0;
  long long total = 0;
  for (size_t i = 0; i < n; i++) {
    const attngen__cache_item *it = &items[i];
    total += it->file_bytes;
    char when[32] = "-";
    if (it->valid) {
      time_t t = (time_t)it->meta.created;
      struct tm tm;
      if (localtime_r(&t, &tm)) strftime(when, sizeof when, "%Y-%m-%d %H:%M", &tm);
    }
    printf("  %016llx  %-8s  %-7s  %-12s  %9lld  %-16s  ", (unsigned long long)it->key,
           it->valid ? it->meta.arch : "?", it->valid ? it->meta.target : "?",
           it->valid ? it->meta.compiler : "?", (long long)it->file_bytes, when);
    if (it->valid) {
      printf("%s%s\n", it->meta.variant, verify ? "  ok" : "");
      continue;
    }
    bad++;
    printf("INVALID: %s", it->problem);
    if (remove_bad) {
      char path[4400];
      snprintf(path, sizeof path, "%s/%s", dir, it->file);
      if (unlink(path) == 0) {
        removed++;
        printf(" (removed)");
      } else {
        printf(" (cannot remove)");
      }
    }
    printf("\n");
  }
  free(items);
  printf("total %.2f MiB", (double)total / (1 << 20));
  if (bad) printf(", %zu invalid%s", bad, remove_bad ? "" : " (rebuilt on next use; verify --remove deletes them)");
  printf("\n");
  return verify && bad > removed ? 1 : 0;
}

int attngen__cmd_cache(int argc, char **argv) {
  const char *sub = NULL, *dir_opt = NULL;
  int remove_bad = 0;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
      usage(stdout);
      return 0;
    }
    if (!strcmp(argv[i], "--dir")) {
      if (i + 1 >= argc) {
        fprintf(stderr, "attngen cache: --dir needs a directory\n");
        return 2;
      }
      dir_opt = argv[++i];
    } else if (!strcmp(argv[i], "--remove")) {
      remove_bad = 1;
    } else if (!sub && (!strcmp(argv[i], "ls") || !strcmp(argv[i], "clear") || !strcmp(argv[i], "verify"))) {
      sub = argv[i];
    } else {
      fprintf(stderr, "attngen cache: unexpected '%s'\n\n", argv[i]);
      usage(stderr);
      return 2;
    }
  }
  if (!sub) {
    usage(stderr);
    return 2;
  }
  if (remove_bad && strcmp(sub, "verify") != 0) {
    fprintf(stderr, "attngen cache: --remove goes with verify\n");
    return 2;
  }
  char dir[4096];
  if (dir_opt) {
    snprintf(dir, sizeof dir, "%s", dir_opt);
  } else if (attngen__cache_dir(dir, sizeof dir) != 0) {
    fprintf(stderr, "attngen cache: no cache directory (set ATTNGEN_CACHE_DIR or HOME)\n");
    return 1;
  }
  if (!strcmp(sub, "clear")) {
    size_t removed = 0;
    attngen_status st = attngen__cache_clear(dir, &removed);
    printf("cache %s: removed %zu entr%s\n", dir, removed, removed == 1 ? "y" : "ies");
    if (st != ATTNGEN_STATUS_OK) {
      fprintf(stderr, "attngen cache: %s\n", attngen_last_error());
      return 1;
    }
    return 0;
  }
  return list(dir, !strcmp(sub, "verify"), remove_bad);
}
