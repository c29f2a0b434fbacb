/* cmd_cache.c: `attngen cache ls | clear | verify` — the JIT cache on disk. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "attngen.h"
#include "cli.h"

static const char *const subcommands[] = {"ls", "clear", "verify", NULL};

static const attngen__cli_option options[] = {
    {"--dir", ATTNGEN__CLI_TEXT, "DIR",
     "the cache directory (default: $ATTNGEN_CACHE_DIR, else\n"
     "$XDG_CACHE_HOME/attngen, else ~/.cache/attngen)", .max_len = ATTNGEN__CACHE_DIR_MAX},
    {"--remove", ATTNGEN__CLI_FLAG, NULL, "verify: delete the invalid entries"},
    {NULL}};

static int cache(const attngen__cli_args *args);

const attngen__cli_command attngen__cli_cmd_cache = {
    "cache", "list, clear or verify the JIT cache", "(ls | clear | verify [--remove]) [--dir DIR]",
    "  ls       list the entries: key, variant, target arch, compiler, size, age, state\n"
    "  clear    remove every entry (and the lock and temporary files of the cache)\n"
    "  verify   check every entry's header and checksum; --remove deletes bad ones\n",
    options, "ls|clear|verify", subcommands, 1, 1,
    "0 ok, 1 failure (verify: an invalid entry remains)", cache};

static int list(const char *dir, int verify, int remove_bad) {
  attngen__cache_item *items = NULL;
  size_t n = 0;
  if (attngen__cache_list(dir, &items, &n) != ATTNGEN_STATUS_OK) {
    fprintf(stderr, "attngen cache: %s\n", attngen_last_error());
    return 1;
  }
  printf("cache %s: %zu entr%s\n", dir, n, n == 1 ? "y" : "ies");
  if (n) printf("  %-16s  %-10s  %-7s  %-14s  %9s  %-16s  %s\n", "key", "arch", "target", "compiler",
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
    printf("  %016llx  %-10s  %-7s  %-14s  %9lld  %-16s  ", (unsigned long long)it->key,
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

static int cache(const attngen__cli_args *args) {
  const char *sub = args->positional[0];
  const char *dir_opt = attngen__cli_text(args, "--dir", NULL);
  const int remove_bad = attngen__cli_given(args, "--remove");
  if (remove_bad && strcmp(sub, "verify") != 0)
    return attngen__cli_usage_error(args->cmd, "--remove goes with verify");
  char dir[ATTNGEN__CACHE_DIR_MAX + 1];
  if (dir_opt) {
    snprintf(dir, sizeof dir, "%s", dir_opt); /* fits: --dir's max_len */
  } else if (attngen__cache_dir(dir, sizeof dir) != 0) {
    if (errno == ENAMETOOLONG)
      fprintf(stderr, "attngen cache: the cache directory is longer than %d bytes "
              "(ATTNGEN_CACHE_DIR, XDG_CACHE_HOME or HOME)\n", ATTNGEN__CACHE_DIR_MAX);
    else
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
