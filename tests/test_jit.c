/* test_jit.c: run-time compilation through NVRTC and the on-disk cache (runtime/src/jit.c).
 * No GPU is needed: NVRTC compiles for sm_90a without a device. Tests that need NVRTC print
 * SKIPPED when libnvrtc cannot be loaded. Each test gets a fresh cache directory. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#define ATTNGEN_TEST_REQUIRE "ATTNGEN_REQUIRE_NVRTC" /* what a skip here lacks (test_skip.h) */
#include "test_skip.h"
#include <dirent.h>
#include <pthread.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "attngen_internal.h"
#include "elf_sections.h"
#include "test_util.h"

static char log_path[256];

static const char *tiny_source =
    "extern \"C\" __global__ void attngen_test_tiny(float *x) { x[threadIdx.x] += 1.0f; }\n";

typedef struct fixture {
  char dir[256];
} fixture;

static void remove_tree(const char *dir) {
  DIR *d = opendir(dir);
  if (!d) return;
  struct dirent *e;
  while ((e = readdir(d)) != NULL) {
    if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
    char p[512];
    snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
    unlink(p);
  }
  closedir(d);
  rmdir(dir);
}

static int setup(void **state) {
  fixture *f = calloc(1, sizeof *f);
  if (!f) return -1;
  snprintf(f->dir, sizeof f->dir, "/tmp/attngen-jit-XXXXXX");
  if (!mkdtemp(f->dir)) return -1;
  setenv("ATTNGEN_CACHE_DIR", f->dir, 1);
  unsetenv("ATTNGEN_JIT");
  attngen__jit_forget_memory();
  *state = f;
  return 0;
}

static int teardown(void **state) {
  fixture *f = *state;
  chmod(f->dir, 0755);
  remove_tree(f->dir);
  free(f);
  unsetenv("ATTNGEN_CACHE_DIR");
  unsetenv("ATTNGEN_JIT");
  attngen__jit_forget_memory();
  return 0;
}

/* 1 when NVRTC loads; else prints SKIPPED and returns 0. */
static int have_nvrtc(void) {
  char version[64];
  if (attngen__jit_compiler(ATTNGEN__TARGET_SM90, version, sizeof version) == ATTNGEN_STATUS_OK)
    return 1;
  print_message("SKIPPED: NVRTC not available: %s\n", attngen_last_error());
  return 0;
}

static void entry_path(char *buf, size_t len, const char *dir, uint64_t key) {
  snprintf(buf, len, "%s/%016llx%s", dir, (unsigned long long)key, ATTNGEN__CACHE_EXT);
}

static int is_elf(const void *p, size_t n) { return n > 4 && memcmp(p, "\x7f" "ELF", 4) == 0; }

static int contains(const void *hay, size_t n, const char *needle) {
  return memmem(hay, n, needle, strlen(needle)) != NULL;
}

static attngen_status get_tiny(attngen__jit_result *r) {
  attngen__jit_request req = {"attngen_test_tiny", ATTNGEN__TARGET_SM90, tiny_source};
  return attngen__jit_get(&req, r);
}

static void test_jit_compiles_then_loads_from_cache(void **state) {
  fixture *f = *state;
  if (!have_nvrtc()) skip();
  unsigned long c0 = attngen__jit_compile_count();
  attngen__jit_result r1, r2, r3;
  assert_int_equal(get_tiny(&r1), ATTNGEN_STATUS_OK);
  assert_int_equal(r1.origin, ATTNGEN__JIT_COMPILED);
  assert_int_equal(attngen__jit_compile_count(), c0 + 1);
  assert_true(is_elf(r1.image, r1.size));
  assert_true(contains(r1.image, r1.size, "attngen_test_tiny"));
  char path[512];
  entry_path(path, sizeof path, f->dir, r1.key);
  struct stat st;
  assert_int_equal(stat(path, &st), 0);
  assert_int_equal((size_t)st.st_size, r1.size + ATTNGEN__CACHE_HEADER_BYTES);

  /* A new process would find it on disk: drop the memory cache, ask again. */
  attngen__jit_forget_memory();
  assert_int_equal(get_tiny(&r2), ATTNGEN_STATUS_OK);
  assert_int_equal(r2.origin, ATTNGEN__JIT_DISK);
  assert_int_equal(attngen__jit_compile_count(), c0 + 1);
  assert_int_equal(r2.key, r1.key);
  assert_int_equal(r2.size, r1.size);
  assert_memory_equal(r2.image, r1.image, r1.size);

  assert_int_equal(get_tiny(&r3), ATTNGEN_STATUS_OK);
  assert_int_equal(r3.origin, ATTNGEN__JIT_MEMORY);
  assert_int_equal(attngen__jit_compile_count(), c0 + 1);
  free(r1.image);
  free(r2.image);
  free(r3.image);

  /* The log has a line before and after the compile, naming variant, target and time. */
  FILE *lf = fopen(log_path, "r");
  assert_non_null(lf);
  char line[1024];
  int before = 0, after = 0;
  while (fgets(line, sizeof line, lf)) {
    if (strstr(line, "jit: compiling attngen_test_tiny for sm_90a")) before = 1;
    if (strstr(line, "jit: compiled attngen_test_tiny for sm_90a in ") && strstr(line, " s ("))
      after = 1;
  }
  fclose(lf);
  assert_true(before);
  assert_true(after);
}

static void test_jit_key_depends_on_source(void **state) {
  if (!have_nvrtc()) skip();
  attngen__jit_result a, b;
  attngen__jit_request ra = {"attngen_test_tiny", ATTNGEN__TARGET_SM90, tiny_source};
  attngen__jit_request rb = {"attngen_test_tiny", ATTNGEN__TARGET_SM90,
                             "extern \"C\" __global__ void attngen_test_tiny(float *x) "
                             "{ x[threadIdx.x] *= 2.0f; }\n"};
  assert_int_equal(attngen__jit_get(&ra, &a), ATTNGEN_STATUS_OK);
  assert_int_equal(attngen__jit_get(&rb, &b), ATTNGEN_STATUS_OK);
  assert_int_equal(b.origin, ATTNGEN__JIT_COMPILED);
  assert_true(a.key != b.key);
  free(a.image);
  free(b.image);
}

static void corrupt_and_expect_rebuild(fixture *f, void (*damage)(const char *path, size_t size)) {
  attngen__jit_result r1, r2;
  assert_int_equal(get_tiny(&r1), ATTNGEN_STATUS_OK);
  char path[512];
  entry_path(path, sizeof path, f->dir, r1.key);
  damage(path, r1.size + ATTNGEN__CACHE_HEADER_BYTES);
  attngen__jit_forget_memory();
  unsigned long c0 = attngen__jit_compile_count();
  assert_int_equal(get_tiny(&r2), ATTNGEN_STATUS_OK);
  assert_int_equal(r2.origin, ATTNGEN__JIT_COMPILED);
  assert_int_equal(attngen__jit_compile_count(), c0 + 1);
  assert_int_equal(r2.size, r1.size);
  assert_memory_equal(r2.image, r1.image, r1.size);
  /* The rebuilt entry is whole again. */
  void *data = NULL;
  size_t size = 0;
  char why[128];
  assert_int_equal(attngen__cache_read(f->dir, r1.key, &data, &size, NULL, why, sizeof why),
                   ATTNGEN__CACHE_HIT);
  assert_int_equal(size, r1.size);
  free(data);
  free(r1.image);
  free(r2.image);
}

static void truncate_half(const char *path, size_t size) {
  assert_int_equal(truncate(path, (off_t)(size / 2)), 0);
}

static void flip_payload_byte(const char *path, size_t size) {
  FILE *fp = fopen(path, "r+b");
  assert_non_null(fp);
  fseek(fp, (long)(size - 7), SEEK_SET);
  int c = fgetc(fp);
  fseek(fp, (long)(size - 7), SEEK_SET);
  fputc(c ^ 0x20, fp);
  fclose(fp);
}

static void test_jit_truncated_entry_is_rebuilt(void **state) {
  if (!have_nvrtc()) skip();
  corrupt_and_expect_rebuild(*state, truncate_half);
}

static void test_jit_corrupt_payload_is_rebuilt(void **state) {
  if (!have_nvrtc()) skip();
  corrupt_and_expect_rebuild(*state, flip_payload_byte);
}

/* Two processes ask for the same key at the same moment: one compiles, the other waits on
 * the key's lock and then reads the entry; both succeed. */
static void test_jit_two_processes_compile_once(void **state) {
  fixture *f = *state;
  if (!have_nvrtc()) skip();
  int gate[2];
  assert_int_equal(pipe(gate), 0);
  pid_t kids[2];
  for (int i = 0; i < 2; i++) {
    kids[i] = fork();
    assert_true(kids[i] >= 0);
    if (kids[i] == 0) {
      close(gate[1]);
      char c;
      while (read(gate[0], &c, 1) > 0) {
      }
      attngen__jit_result r;
      attngen_status st = get_tiny(&r);
      int ok = st == ATTNGEN_STATUS_OK && is_elf(r.image, r.size);
      _exit(ok ? 10 + r.origin : 1);
    }
  }
  close(gate[0]);
  close(gate[1]); /* both children start now */
  int origins[2];
  for (int i = 0; i < 2; i++) {
    int status = 0;
    assert_int_equal(waitpid(kids[i], &status, 0), kids[i]);
    assert_true(WIFEXITED(status));
    origins[i] = WEXITSTATUS(status);
  }
  int compiled = (origins[0] == 10 + ATTNGEN__JIT_COMPILED) + (origins[1] == 10 + ATTNGEN__JIT_COMPILED);
  int from_disk = (origins[0] == 10 + ATTNGEN__JIT_DISK) + (origins[1] == 10 + ATTNGEN__JIT_DISK);
  print_message("children: exit %d and %d (10 = compiled, 11 = from disk)\n", origins[0], origins[1]);
  assert_int_equal(compiled, 1);
  assert_int_equal(from_disk, 1);
  /* Exactly one entry, and it is valid. */
  attngen__cache_item *items = NULL;
  size_t n = 0;
  assert_int_equal(attngen__cache_list(f->dir, &items, &n), ATTNGEN_STATUS_OK);
  assert_int_equal(n, 1);
  assert_true(items[0].valid);
  assert_string_equal(items[0].meta.variant, "attngen_test_tiny");
  assert_string_equal(items[0].meta.arch, "sm_90a");
  free(items);
}

/* A cache directory that cannot be written: compiling still works, kept in memory. As
 * root permissions do not stop writes, so a directory inside /proc (read-only) is used. */
static void test_jit_readonly_cache_dir_works_from_memory(void **state) {
  fixture *f = *state;
  if (!have_nvrtc()) skip();
  char dir[300];
  if (geteuid() == 0) {
    snprintf(dir, sizeof dir, "/proc/self/attngen-cache");
  } else {
    snprintf(dir, sizeof dir, "%s", f->dir);
    assert_int_equal(chmod(dir, 0555), 0);
  }
  setenv("ATTNGEN_CACHE_DIR", dir, 1);
  unsigned long c0 = attngen__jit_compile_count();
  attngen__jit_result r1, r2;
  assert_int_equal(get_tiny(&r1), ATTNGEN_STATUS_OK);
  assert_int_equal(r1.origin, ATTNGEN__JIT_COMPILED);
  assert_true(is_elf(r1.image, r1.size));
  assert_int_equal(get_tiny(&r2), ATTNGEN_STATUS_OK);
  assert_int_equal(r2.origin, ATTNGEN__JIT_MEMORY);
  assert_int_equal(attngen__jit_compile_count(), c0 + 1);
  attngen__cache_item *items = NULL;
  size_t n = 0;
  assert_int_equal(attngen__cache_list(f->dir, &items, &n), ATTNGEN_STATUS_OK);
  assert_int_equal(n, 0);
  free(items);
  free(r1.image);
  free(r2.image);
}

static void test_jit_disabled_refuses_with_status(void **state) {
  setenv("ATTNGEN_JIT", "0", 1);
  attngen__jit_result r;
  unsigned long c0 = attngen__jit_compile_count();
  assert_int_equal(get_tiny(&r), ATTNGEN_STATUS_JIT_DISABLED);
  assert_null(r.image);
  assert_non_null(strstr(attngen_last_error(), "ATTNGEN_JIT=0"));
  assert_non_null(strstr(attngen_last_error(), "attngen_test_tiny"));
  assert_int_equal(attngen__jit_compile_count(), c0);
  assert_string_equal(attngen_status_name(ATTNGEN_STATUS_JIT_DISABLED), "JIT_DISABLED");
  setenv("ATTNGEN_JIT", "1", 1);
  assert_true(attngen__jit_enabled());
}

static void test_jit_compile_error_carries_the_log(void **state) {
  if (!have_nvrtc()) skip();
  attngen__jit_request req = {"attngen_test_broken", ATTNGEN__TARGET_SM90,
                              "extern \"C\" __global__ void attngen_test_broken() { undeclared_x = 1; }\n"};
  attngen__jit_result r;
  assert_int_equal(attngen__jit_get(&req, &r), ATTNGEN_STATUS_JIT_FAILED);
  assert_null(r.image);
  assert_non_null(strstr(attngen_last_error(), "undeclared_x"));
}

/* A variant outside the default set (kv_tile 128), generated by the embedded generator and
 * compiled for sm_90a. */
static void test_jit_generated_sm90_variant(void **state) {
  if (!have_nvrtc()) skip();
  /* The first kv_tile 128 variant of the sm90 search space (not in the default set). */
  char **names = NULL, *err = NULL;
  int count = attngen__gen_search_space("sm90", &names, &err);
  const char *name = NULL;
  for (int i = 0; i < count && !name; i++)
    if (strstr(names[i], "_kv128_")) name = names[i];
  /* a search space without it, or a generator error, is a failure (they were skips) */
  if (!name) fail_msg("no kv128 variant in the sm90 search space: %s", err ? err : "?");
  char *src = NULL;
  if (attngen__gen_source(name, &src, &err) != 0)
    fail_msg("the generator cannot produce %s: %s", name, err ? err : "?");
  free(src);
  attngen__jit_request req = {name, ATTNGEN__TARGET_SM90, NULL};
  attngen__jit_result r;
  attngen_status st = attngen__jit_get(&req, &r);
  if (st != ATTNGEN_STATUS_OK) print_message("%s\n", attngen_last_error());
  assert_int_equal(st, ATTNGEN_STATUS_OK);
  assert_true(is_elf(r.image, r.size));
  assert_true(contains(r.image, r.size, name));
  print_message("compiled %s: %zu bytes in %.2f s\n", name, r.size, r.seconds);
  free(r.image);
  attngen__gen_free_names(names, count);
}

#ifndef ATTNGEN_KERNEL_DIR
#define ATTNGEN_KERNEL_DIR "kernels"
#endif

/* JIT and AOT of one variant are one kernel: for every default sm90 variant, NVRTC's cubin
 * (the runtime's own request: generated source, JIT options) holds the same SASS as the
 * build's nvcc cubin (ATTNGEN_KERNEL_DIR/sm90/NAME.cubin), byte for byte in the kernel's
 * .text section. (The gfx942 twin, hiprtc vs hipcc, is in tests/test_rocm.c.) The compiles
 * run on two threads (the JIT is thread-safe; one NVRTC compile takes ~1.5 s here). */
typedef struct sm90_job {
  const char *name;
  attngen_status status;
  char error[512];
  attngen__jit_result r;
} sm90_job;

typedef struct sm90_work {
  sm90_job *jobs;
  size_t count, next;
} sm90_work;

static void *sm90_worker(void *arg) {
  sm90_work *w = arg;
  for (;;) {
    size_t i = __atomic_fetch_add(&w->next, 1, __ATOMIC_SEQ_CST);
    if (i >= w->count) return NULL;
    sm90_job *j = &w->jobs[i];
    attngen__jit_request req = {j->name, ATTNGEN__TARGET_SM90, NULL};
    j->status = attngen__jit_get(&req, &j->r);
    if (j->status != ATTNGEN_STATUS_OK) snprintf(j->error, sizeof j->error, "%s", attngen_last_error());
  }
}

static void test_jit_nvrtc_equals_nvcc_per_default_variant(void **state) {
  if (!have_nvrtc()) skip();
  static sm90_job jobs[256];
  size_t n = 0, missing = 0;
  for (size_t i = 0; i < attngen__manifest_count && n < 256; i++) {
    const attngen__variant_desc *d = &attngen__manifest[i];
    if (!d->name || d->target != ATTNGEN__TARGET_SM90) continue;
    char path[4400];
    snprintf(path, sizeof path, "%s/sm90/%s.cubin", ATTNGEN_KERNEL_DIR, d->name);
    struct stat st;
    if (stat(path, &st) != 0) {
      missing++;
      continue;
    }
    memset(&jobs[n], 0, sizeof jobs[n]);
    jobs[n++].name = d->name;
  }
  if (n == 0) {
    print_message("SKIPPED: no nvcc cubins in %s/sm90 (nvcc missing: sm90 is JIT-only)\n",
                  ATTNGEN_KERNEL_DIR);
    skip();
  }
  assert_int_equal(missing, 0);
  sm90_work w = {jobs, n, 0};
  pthread_t helper;
  int threaded = pthread_create(&helper, NULL, sm90_worker, &w) == 0;
  sm90_worker(&w);
  if (threaded) pthread_join(helper, NULL);
  size_t same = 0;
  for (size_t i = 0; i < n; i++) {
    sm90_job *j = &jobs[i];
    if (j->status != ATTNGEN_STATUS_OK) print_message("%s: %s\n", j->name, j->error);
    assert_int_equal(j->status, ATTNGEN_STATUS_OK);
    char path[4400], text[200], *aot = NULL;
    size_t naot = 0;
    snprintf(path, sizeof path, "%s/sm90/%s.cubin", ATTNGEN_KERNEL_DIR, j->name);
    assert_int_equal(attngen__fs_read_file(path, 0, &aot, &naot), 0);
    snprintf(text, sizeof text, ".text.%s", j->name);
    size_t ta = 0, tj = 0;
    const unsigned char *xa = attngen_test_elf_section(aot, naot, text, &ta);
    const unsigned char *xj = attngen_test_elf_section(j->r.image, j->r.size, text, &tj);
    if (xa && xj && ta == tj && memcmp(xa, xj, ta) == 0)
      same++;
    else
      print_message("FAIL %s: NVRTC's %s (%zu bytes) differs from nvcc's %s (%zu bytes)\n",
                    j->name, text, tj, path, ta);
    free(j->r.image);
    free(aot);
  }
  print_message("%zu sm90 variants: NVRTC .text == nvcc .text in %zu\n", n, same);
  assert_int_equal(same, n);
}

/* Takes the cache lock of a (dir, key) pair (for attngen_test_hold_lock_stopped). */
typedef struct {
  const char *dir;
  uint64_t key;
} cache_lock_ctx;

static int take_cache_lock(const void *ctx) {
  const cache_lock_ctx *c = ctx;
  char why[256];
  return attngen__cache_lock(c->dir, c->key, 1.0, why, sizeof why);
}

/* Holds the lock of `key` in a child that then stops itself; returns the child's pid. */
static pid_t hold_lock_stopped(const char *dir, uint64_t key) {
  cache_lock_ctx c = {dir, key};
  pid_t kid = attngen_test_hold_lock_stopped(take_cache_lock, &c);
  assert_true(kid > 0);
  return kid;
}

/* A process that holds a key's lock and is stopped (a suspended compile) must not block the
 * next process for ever: after the bounded wait the request fails with JIT_FAILED and a
 * message naming the lock file and the stopped holder. */
static void test_jit_stopped_lock_holder_times_out(void **state) {
  fixture *f = *state;
  if (!have_nvrtc()) skip();
  attngen__jit_result r;
  assert_int_equal(get_tiny(&r), ATTNGEN_STATUS_OK); /* learns the key */
  const uint64_t key = r.key;
  free(r.image);
  char path[512], lock[512];
  entry_path(path, sizeof path, f->dir, key);
  assert_int_equal(unlink(path), 0);
  attngen__jit_forget_memory();
  pid_t kid = hold_lock_stopped(f->dir, key);
  int status;
  attngen__jit_request req = {"attngen_test_tiny", ATTNGEN__TARGET_SM90, tiny_source, 0.5};
  unsigned long c0 = attngen__jit_compile_count();
  attngen_status st = attngen__jit_get(&req, &r);
  const char *msg = attngen_last_error();
  snprintf(lock, sizeof lock, "%s/%016llx.lock", f->dir, (unsigned long long)key);
  char holder[64];
  snprintf(holder, sizeof holder, "process %ld (stopped)", (long)kid);
  kill(kid, SIGKILL);
  waitpid(kid, &status, 0);
  assert_int_equal(st, ATTNGEN_STATUS_JIT_FAILED);
  assert_non_null(strstr(msg, lock));
  assert_non_null(strstr(msg, holder));
  assert_int_equal(attngen__jit_compile_count(), c0);
  /* With the holder gone the same request compiles. */
  assert_int_equal(attngen__jit_get(&req, &r), ATTNGEN_STATUS_OK);
  free(r.image);
}

static double seconds_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* ATTNGEN_JIT_LOCK_TIMEOUT bounds the wait of a request that carries no context (issue 29:
 * `attngen compile` ignored it and waited the default 300 s on a stopped holder, then told
 * the user to set it), through the API and through `attngen compile`; malformed values of it
 * and of ATTNGEN_JIT fail instead of being ignored (ATTNGEN_JIT=yes and a timeout of nan or
 * -1 were accepted silently). */
static void test_jit_lock_timeout_from_environment(void **state) {
  fixture *f = *state;
  char cmd[2048], out[4096] = "";
  const char *variant = "attn_fwd_d128_bshd_rtne_q1_kv64_w4_nosplit_mma_sm90";
  static const char *const bad[][2] = {
      {"ATTNGEN_JIT", "yes"}, {"ATTNGEN_JIT_LOCK_TIMEOUT", "nan"},
      {"ATTNGEN_JIT_LOCK_TIMEOUT", "-1"}};
  for (int i = 0; i < 3; i++) {
    snprintf(cmd, sizeof cmd, "%s=%s ATTNGEN_CACHE_DIR='%s' '%s' compile --variant %s 2>&1",
             bad[i][0], bad[i][1], f->dir, ATTNGEN_CLI, variant);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    size_t n = fread(out, 1, sizeof out - 1, p);
    out[n] = 0;
    int st = pclose(p);
    assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 1);
    assert_non_null(strstr(out, bad[i][0]));
    assert_non_null(strstr(out, bad[i][1]));
    assert_non_null(strstr(out, "not allowed"));
    setenv(bad[i][0], bad[i][1], 1);
    attngen__jit_result r;
    assert_int_equal(get_tiny(&r), ATTNGEN_STATUS_INVALID_ARGUMENT);
    unsetenv(bad[i][0]);
  }
  if (!have_nvrtc()) skip();
  /* the API: no context, the timeout from the environment */
  attngen__jit_result r;
  assert_int_equal(get_tiny(&r), ATTNGEN_STATUS_OK);
  uint64_t key = r.key;
  free(r.image);
  char path[512];
  entry_path(path, sizeof path, f->dir, key);
  assert_int_equal(unlink(path), 0);
  attngen__jit_forget_memory();
  pid_t kid = hold_lock_stopped(f->dir, key);
  setenv("ATTNGEN_JIT_LOCK_TIMEOUT", "0.5", 1);
  double t0 = seconds_now();
  attngen_status st = get_tiny(&r);
  double waited = seconds_now() - t0;
  unsetenv("ATTNGEN_JIT_LOCK_TIMEOUT");
  kill(kid, SIGKILL);
  int status;
  waitpid(kid, &status, 0);
  assert_int_equal(st, ATTNGEN_STATUS_JIT_FAILED);
  assert_true(waited >= 0.4 && waited < 20.0);
  /* `attngen compile`: learn the variant's key, drop its entry, hold its lock */
  snprintf(cmd, sizeof cmd, "ATTNGEN_CACHE_DIR='%s' '%s' compile --variant %s", f->dir,
           ATTNGEN_CLI, variant);
  FILE *p = popen(cmd, "r");
  assert_non_null(p);
  size_t n = fread(out, 1, sizeof out - 1, p);
  out[n] = 0;
  assert_int_equal(pclose(p), 0);
  const char *line = strstr(out, variant);
  assert_non_null(line);
  while (line > out && line[-1] != '\n') --line;
  unsigned long long k = 0;
  char origin[32];
  double secs;
  size_t bytes;
  assert_int_equal(sscanf(line, "%31s %lf %zu %llx", origin, &secs, &bytes, &k), 4);
  entry_path(path, sizeof path, f->dir, (uint64_t)k);
  assert_int_equal(unlink(path), 0);
  kid = hold_lock_stopped(f->dir, (uint64_t)k);
  snprintf(cmd, sizeof cmd, "ATTNGEN_JIT_LOCK_TIMEOUT=1 ATTNGEN_CACHE_DIR='%s' '%s' compile "
           "--variant %s 2>&1", f->dir, ATTNGEN_CLI, variant);
  t0 = seconds_now();
  p = popen(cmd, "r");
  assert_non_null(p);
  n = fread(out, 1, sizeof out - 1, p);
  out[n] = 0;
  int cst = pclose(p);
  waited = seconds_now() - t0;
  kill(kid, SIGKILL);
  waitpid(kid, &status, 0);
  print_message("compile with a stopped lock holder and ATTNGEN_JIT_LOCK_TIMEOUT=1: %.1f s\n",
                waited);
  assert_true(WIFEXITED(cst) && WEXITSTATUS(cst) == 1);
  assert_non_null(strstr(out, "JIT_FAILED"));
  assert_non_null(strstr(out, "(stopped)"));
  assert_true(waited < 60.0);
}

int main(void) {
  snprintf(log_path, sizeof log_path, "/tmp/attngen-test-jit-%ld.log", (long)getpid());
  setenv("ATTNGEN_LOG_FILE", log_path, 1);
  setenv("ATTNGEN_LOG", "2", 1);
  const struct CMUnitTest tests[] = {
    cmocka_unit_test_setup_teardown(test_jit_compiles_then_loads_from_cache, setup, teardown),
    cmocka_unit_test_setup_teardown(test_jit_key_depends_on_source, setup, teardown),
    cmocka_unit_test_setup_teardown(test_jit_truncated_entry_is_rebuilt, setup, teardown),
    cmocka_unit_test_setup_teardown(test_jit_corrupt_payload_is_rebuilt, setup, teardown),
    cmocka_unit_test_setup_teardown(test_jit_two_processes_compile_once, setup, teardown),
    cmocka_unit_test_setup_teardown(test_jit_stopped_lock_holder_times_out, setup, teardown),
    cmocka_unit_test_setup_teardown(test_jit_lock_timeout_from_environment, setup, teardown),
    cmocka_unit_test_setup_teardown(test_jit_readonly_cache_dir_works_from_memory, setup, teardown),
    cmocka_unit_test_setup_teardown(test_jit_disabled_refuses_with_status, setup, teardown),
    cmocka_unit_test_setup_teardown(test_jit_compile_error_carries_the_log, setup, teardown),
    cmocka_unit_test_setup_teardown(test_jit_generated_sm90_variant, setup, teardown),
    cmocka_unit_test_setup_teardown(test_jit_nvrtc_equals_nvcc_per_default_variant, setup,
                                    teardown),
  };
  int rc = attngen_test_exit(cmocka_run_group_tests(tests, NULL, NULL));
  unlink(log_path);
  return rc;
}
