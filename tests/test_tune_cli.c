/* test_tune_cli.c: `attngen tune` end to end on this machine (no GPU): usage errors, a tune
 * run with the cpu backend (host-clock timing) that writes and then merges the database,
 * a foreign database left alone unless --replace, and the emulator backend, which runs
 * candidates outside its built-in set through its JIT and whose failing candidates must be
 * reported and skipped, never fatal. Runs the built CLI (ATTNGEN_CLI). */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#define ATTNGEN_TEST_REQUIRE "ATTNGEN_REQUIRE_CLANG19" /* what a skip here lacks (test_skip.h) */
#include "test_skip.h"

#include "test_util.h"
#include <dirent.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "attngen_internal.h"

#ifndef ATTNGEN_CLI
#error "tests/CMakeLists.txt passes ATTNGEN_CLI (path of the built attngen)"
#endif

typedef struct fixture {
  char dir[256];
  char db[320];
  char out[4096 * 4];
  char err[4096 * 16];
} fixture;

static int setup(void **state) {
  fixture *f = calloc(1, sizeof *f);
  if (!f) return -1;
  if (attngen_test_make_tmpdir(f->dir, sizeof f->dir, "attngen-tune") != 0) {
    free(f);
    return -1;
  }
  snprintf(f->db, sizeof f->db, "%s/tuning.db", f->dir);
  *state = f;
  return 0;
}

static int teardown(void **state) {
  fixture *f = *state;
  attngen_test_remove_tree(f->dir);
  free(f);
  return 0;
}

static void slurp(const char *path, char *buf, size_t size) {
  buf[0] = 0;
  FILE *fp = fopen(path, "rb");
  if (!fp) return;
  size_t n = fread(buf, 1, size - 1, fp);
  buf[n] = 0;
  fclose(fp);
}

/* Runs `attngen tune ARGS` with the JIT cache in the fixture directory; returns the exit
 * status (-1 when killed by a signal); stdout and stderr land in f->out and f->err. */
static int run_tune(fixture *f, const char *fmt, ...) {
  char args[2048];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(args, sizeof args, fmt, ap);
  va_end(ap);
  char cmd[4096], out[400], err[400];
  snprintf(out, sizeof out, "%s/stdout.txt", f->dir);
  snprintf(err, sizeof err, "%s/stderr.txt", f->dir);
  snprintf(cmd, sizeof cmd,
           "ATTNGEN_CACHE_DIR='%s/cache' ATTNGEN_TUNING_FILE= '%s' tune %s >'%s' 2>'%s'",
           f->dir, ATTNGEN_CLI, args, out, err);
  int st = system(cmd);
  slurp(out, f->out, sizeof f->out);
  slurp(err, f->err, sizeof f->err);
  unlink(out);
  unlink(err);
  if (st == -1 || !WIFEXITED(st)) return -1;
  return WEXITSTATUS(st);
}

static void expect_usage_error(fixture *f, const char *args, const char *w1, const char *w2) {
  int rc = run_tune(f, "%s", args);
  if (rc != 2) fail_msg("'tune %s' exited %d (expected 2); stderr: %s", args, rc, f->err);
  if (!strstr(f->err, w1) || !strstr(f->err, w2))
    fail_msg("'tune %s': stderr lacks '%s' / '%s': %s", args, w1, w2, f->err);
}

static void test_tune_cli_help_and_usage_errors(void **state) {
  fixture *f = *state;
  assert_int_equal(run_tune(f, "--help"), 0);
  assert_non_null(strstr(f->out, "usage: attngen tune"));
  assert_non_null(strstr(f->out, "--shapes-file"));
  expect_usage_error(f, "", "no shape given", "--shape");
  expect_usage_error(f, "--shape 1,1,64,64 --layout sbhd", "--layout 'sbhd'", "bshd, bhsd, all");
  expect_usage_error(f, "--shape 1,1,64,64 --round rtn", "--round 'rtn'", "rtne, rtna, rtz, all");
  expect_usage_error(f, "--shape 1,1,64,64 --backend rocm", "--backend 'rocm'", "emu, cpu");
  expect_usage_error(f, "--shape 1,1,64,64 --target gfx90a", "--target 'gfx90a'", "gfx942, sm90");
  expect_usage_error(f, "--shape 1,0,64,64", "--shape '1,0,64,64'", "args.heads = 0");
  expect_usage_error(f, "--shape 1,1,64,64 --iters 0", "--iters '0'", "[1, 100000]");
  expect_usage_error(f, "--shape 1,1,64,64 --timeout -3", "--timeout '-3'", "(0, 86400]");
  expect_usage_error(f, "--shape 1,1,64,64 -j 0", "-j '0'", "[1, 64]");
  expect_usage_error(f, "--shape 1,1,64,64 --frobnicate", "unknown option '--frobnicate'",
                     "tune --help");
  expect_usage_error(f, "--shape", "--shape needs a value", "tune --help");
  expect_usage_error(f, "--shape 1,4,64,64 --head-dim 96", "--head-dim 96 is not supported",
                     "allowed: 64, 128, 256");
  expect_usage_error(f, "--shape 1,4,64,64 --shape 1,6,64,64 --heads-kv 4",
                     "--heads-kv 4 does not divide", "the 6 heads of shape 1,6,64,64");
  expect_usage_error(f, "--shape 1,1,64,64 --variants attn_nonsense",
                     "--variants: 'attn_nonsense'", "not a variant");
  char bad[400];
  snprintf(bad, sizeof bad, "%s/shapes.txt", f->dir);
  FILE *fp = fopen(bad, "w");
  assert_non_null(fp);
  fputs("# shapes\n1,1,64,64\n2 x\n", fp);
  fclose(fp);
  char args[600];
  snprintf(args, sizeof args, "--shapes-file %s", bad);
  expect_usage_error(f, args, "shapes.txt:3:", "'2 x' is not a shape");
}

/* The cpu backend is part of every build: failing to create it is a failure (it was a skip
 * that hid the failure). */
static void cpu_backend_usable(fixture *f, int rc) {
  if (rc == 1 && strstr(f->err, "cannot create a context"))
    fail_msg("the cpu backend is not usable: %s", f->err);
}

static void test_tune_cli_cpu_backend_writes_and_merges_database(void **state) {
  fixture *f = *state;
  int rc = run_tune(f, "--backend cpu --shape 1,2,48,80 --warmup 1 --iters 3 -o %s", f->db);
  cpu_backend_usable(f, rc);
  if (rc != 0) fail_msg("tune exited %d; stderr:\n%s", rc, f->err);
  assert_non_null(strstr(f->out, "1,2,48,80"));
  assert_non_null(strstr(f->out, "wrote 1 record(s)"));

  attngen__tuning_file *db;
  attngen__tuning_diag d;
  if (attngen__tuning_db_load(f->db, NULL, &db, &d) != ATTNGEN_STATUS_OK)
    fail_msg("database not readable: %s", d.message);
  assert_int_equal(attngen__tuning_db_count(db), 1);
  const attngen__tuning_record *r = attngen__tuning_db_record(db, 0);
  assert_int_equal(r->batch, 1);
  assert_int_equal(r->heads, 2);
  assert_int_equal(r->seqlen_q, 48);
  assert_int_equal(r->seqlen_kv, 80);
  assert_int_equal(r->layout, ATTNGEN_LAYOUT_BSHD);
  assert_int_equal(r->rounding, ATTNGEN_ROUND_RTNE);
  assert_true(r->time_ms > 0 && r->time_ms < 60e3);
  assert_true(strlen(r->variant) > 0);
  /* the table names the winner that went into the file */
  assert_non_null(strstr(f->out, r->variant));
  const attngen__tuning_meta *m = attngen__tuning_db_meta(db);
  assert_string_equal(m->attngen_version, ATTNGEN_VERSION_STRING);
  assert_true(strncmp(m->runtime, "cpu", 3) == 0);
  attngen__tuning_meta meta = *m;
  attngen__tuning_db_free(db);

  /* a second run merges: new keys added, the first record kept */
  rc = run_tune(f, "--backend cpu --shape 1,1,17,0 --layout bhsd --round all --warmup 0 "
                   "--iters 2 -o %s", f->db);
  if (rc != 0) fail_msg("second tune exited %d; stderr:\n%s", rc, f->err);
  assert_int_equal(attngen__tuning_db_load(f->db, &meta, &db, &d), ATTNGEN_STATUS_OK);
  assert_int_equal(attngen__tuning_db_count(db), 4);
  attngen__tuning_match how;
  assert_non_null(attngen__tuning_db_lookup(db, 1, 2, 48, 80, ATTNGEN_LAYOUT_BSHD,
                                            ATTNGEN_ROUND_RTNE, &how));
  assert_int_equal(how, ATTNGEN__TUNING_EXACT);
  assert_non_null(attngen__tuning_db_lookup(db, 1, 1, 17, 0, ATTNGEN_LAYOUT_BHSD,
                                            ATTNGEN_ROUND_RTZ, &how));
  assert_int_equal(how, ATTNGEN__TUNING_EXACT);
  attngen__tuning_db_free(db);

  /* nothing but the database (and the cache dir the CLI may create) is left behind */
  DIR *dir = opendir(f->dir);
  assert_non_null(dir);
  struct dirent *e;
  while ((e = readdir(dir)) != NULL)
    if (strstr(e->d_name, ".tmp.")) fail_msg("temporary file left: %s", e->d_name);
  closedir(dir);
}

static void test_tune_cli_foreign_database_needs_replace(void **state) {
  fixture *f = *state;
  const char *foreign = "attngen-tuning 1\nmeta attngen_version 0.1.0\nmeta target gfx942\n"
                        "meta device AMD Instinct MI300X\nmeta cu_count 304\n"
                        "meta runtime hip 60241133\n"
                        "record bshd rtne 2 24 8192 8192 attn_fwd_x_gfx942 1.5 450\n";
  FILE *fp = fopen(f->db, "w");
  assert_non_null(fp);
  fputs(foreign, fp);
  fclose(fp);
  int rc = run_tune(f, "--backend cpu --shape 1,1,32,32 --warmup 0 --iters 1 -o %s", f->db);
  cpu_backend_usable(f, rc);
  if (rc != 1) fail_msg("tune over a foreign database exited %d; stderr:\n%s", rc, f->err);
  assert_non_null(strstr(f->err, "--replace"));
  assert_non_null(strstr(f->err, "is 'gfx942' in the file")); /* target is the first field */
  char now[4096];
  slurp(f->db, now, sizeof now);
  assert_string_equal(now, foreign);

  rc = run_tune(f, "--backend cpu --shape 1,1,32,32 --warmup 0 --iters 1 --replace -o %s",
                f->db);
  if (rc != 0) fail_msg("tune --replace exited %d; stderr:\n%s", rc, f->err);
  assert_non_null(strstr(f->err, "replaced the previous file"));
  attngen__tuning_file *db;
  attngen__tuning_diag d;
  assert_int_equal(attngen__tuning_db_load(f->db, NULL, &db, &d), ATTNGEN_STATUS_OK);
  assert_int_equal(attngen__tuning_db_count(db), 1);
  assert_int_equal(attngen__tuning_db_record(db, 0)->seqlen_q, 32);
  attngen__tuning_db_free(db);
}

static int count(const char *hay, const char *needle) {
  int n = 0;
  for (const char *p = hay; (p = strstr(p, needle)) != NULL; p++) n++;
  return n;
}

/* The emulator runs every gfx942 candidate: a built-in one directly, any other JIT-compiled
 * (so tune considers the whole search space). A candidate that cannot run (here: the JIT's
 * compiler is missing) is reported and scored infinite, never fatal. */
static void test_tune_cli_emu_runs_jit_candidates_and_fails_softly(void **state) {
  fixture *f = *state;
  const char *builtin = "attn_fwd_d128_bshd_rtne_q2_kv96_w8_nosplit_vt_mfma_gfx942";
  const char *jit = "attn_fwd_d128_bshd_rtne_q3_kv32_w8_nosplit_mfma_gfx942";
  setenv("ATTNGEN_EMU_CLANG", "/nonexistent/clang++-19", 1);
  int rc = run_tune(f, "--backend emu --shape 1,1,40,70 --warmup 0 --iters 1 --variants %s,%s "
                    "-o %s", builtin, jit, f->db);
  unsetenv("ATTNGEN_EMU_CLANG");
  if (rc != 0) fail_msg("tune --backend emu exited %d; stderr:\n%s", rc, f->err);
  assert_non_null(strstr(f->err, "gfx942 search space"));
  /* the JIT candidate is compiled before the timing (-j), its failure reported once, with it */
  assert_non_null(strstr(f->err, "compiling 1 candidate(s) that are not built in"));
  assert_non_null(strstr(f->err, "0 compiled or loaded, 1 failed (reported with their candidates)"));
  assert_int_equal(count(f->err, "scored infinite"), 1);
  assert_non_null(strstr(f->err, "ATTNGEN_EMU_CLANG=/nonexistent/clang++-19"));
  assert_int_equal(count(f->err, " calls)"), 1);
  attngen__tuning_file *db;
  attngen__tuning_diag d;
  assert_int_equal(attngen__tuning_db_load(f->db, NULL, &db, &d), ATTNGEN_STATUS_OK);
  assert_string_equal(attngen__tuning_db_record(db, 0)->variant, builtin);
  attngen__tuning_db_free(db);

  /* with the compiler (found the library's way) both candidates run */
  rc = run_tune(f, "--backend emu --shape 1,1,40,70 --warmup 0 --iters 1 --variants %s,%s "
                "-o %s.2", builtin, jit, f->db);
  if (rc != 0) fail_msg("tune --backend emu exited %d; stderr:\n%s", rc, f->err);
  assert_non_null(strstr(f->err, "1 compiled or loaded, 0 failed"));
  assert_int_equal(count(f->err, "scored infinite"), 0);
  assert_int_equal(count(f->err, " calls)"), 2);
  assert_non_null(strstr(f->err, jit));
}

/* Runs `attngen run ARGS` on the database f->db; returns the exit status, stdout in f->out. */
static int run_run(fixture *f, const char *args) {
  char cmd[4096], out[400];
  snprintf(out, sizeof out, "%s/run.txt", f->dir);
  snprintf(cmd, sizeof cmd, "ATTNGEN_CACHE_DIR='%s/cache' ATTNGEN_TUNING_FILE='%s' '%s' run %s "
           ">'%s' 2>&1", f->dir, f->db, ATTNGEN_CLI, args, out);
  int st = system(cmd);
  slurp(out, f->out, sizeof f->out);
  unlink(out);
  return st == -1 || !WIFEXITED(st) ? -1 : WEXITSTATUS(st);
}

/* The kind of call is tuned and recorded: a head_dim-64 causal grouped-query call runs only
 * the search space's head_dim-64 causal candidates (checked against the reference of that
 * call), its record carries the kind, and the dispatcher takes it for that call and for no
 * other kind of the same shape. */
static void test_tune_cli_tunes_head_dim_mask_and_kv_heads(void **state) {
  fixture *f = *state;
  int rc = run_tune(f, "--backend emu --shape 1,4,40,70 --head-dim 64 --causal --heads-kv 2 "
                    "--warmup 0 --iters 1 -o %s", f->db);
  if (rc != 0) fail_msg("tune exited %d; stderr:\n%s", rc, f->err);
  /* every candidate timed is a head_dim-64 causal variant; none failed */
  assert_int_equal(count(f->err, "scored infinite"), 0);
  const int timed = count(f->err, " calls)");
  assert_true(timed >= 1);
  assert_int_equal(count(f->err, "attn_fwd_d64_") >= timed, 1);
  assert_int_equal(count(f->err, "attn_fwd_d128_"), 0);
  assert_int_equal(count(f->err, "_causal_") >= timed, 1);
  assert_non_null(strstr(f->out, "1,4,40,70 hd64 causal kv2"));
  attngen__tuning_file *db;
  attngen__tuning_diag d;
  assert_int_equal(attngen__tuning_db_load(f->db, NULL, &db, &d), ATTNGEN_STATUS_OK);
  assert_int_equal(attngen__tuning_db_count(db), 1);
  const attngen__tuning_record *r = attngen__tuning_db_record(db, 0);
  assert_int_equal(r->head_dim, 64);
  assert_int_equal(r->causal, 1);
  assert_int_equal(r->heads_kv, 2);
  assert_non_null(strstr(r->variant, "_d64_"));
  assert_non_null(strstr(r->variant, "_causal_"));
  char variant[ATTNGEN__TUNING_NAME_MAX];
  snprintf(variant, sizeof variant, "%s", r->variant);
  attngen__tuning_db_free(db);
  char text[8192];
  slurp(f->db, text, sizeof text);
  assert_non_null(strstr(text, "attngen-tuning 2\n"));
  assert_non_null(strstr(text, "record bshd rtne 64 causal 1 4 2 40 70 "));

  /* the dispatcher takes the record for that call ... */
  rc = run_run(f, "--backend emu --shape 1,4,40,70 --head-dim 64 --causal --heads-kv 2");
  if (rc != 0) fail_msg("run exited %d:\n%s", rc, f->out);
  assert_non_null(strstr(f->out, "rule:     tuning database: exact entry (1,4,40,70, head_dim 64, "
                                 "causal, 2 KV heads)"));
  assert_non_null(strstr(f->out, variant));
  /* ... a nearby shape of the same kind by its class ... */
  rc = run_run(f, "--backend emu --shape 1,4,36,66 --head-dim 64 --causal --heads-kv 2");
  if (rc != 0) fail_msg("run exited %d:\n%s", rc, f->out);
  assert_non_null(strstr(f->out, "shape-class entry (1,4,40,70, head_dim 64, causal, 2 KV heads)"));
  /* ... and no other kind of the same shape */
  const char *others[] = {"--head-dim 64 --heads-kv 2", "--head-dim 64 --causal",
                          "--causal --heads-kv 2", "--head-dim 256 --causal --heads-kv 2"};
  for (size_t i = 0; i < sizeof others / sizeof others[0]; i++) {
    char args[300];
    snprintf(args, sizeof args, "--backend emu --shape 1,4,40,70 %s", others[i]);
    rc = run_run(f, args);
    if (rc != 0) fail_msg("run %s exited %d:\n%s", args, rc, f->out);
    if (!strstr(f->out, "rule:     heuristic"))
      fail_msg("run %s did not take the heuristic's choice:\n%s", args, f->out);
  }
}

/* Takes the fsutil lock at path ctx (for attngen_test_hold_lock_stopped). */
static int take_fs_lock(const void *ctx) {
  attngen__fs_lock_opts o = {1.0, 0, NULL, NULL, 0};
  return attngen__fs_lock((const char *)ctx, &o, NULL, 0);
}

/* A stopped process holding the database's lock: tune says it is waiting (after 2 s, naming
 * the lock file and the holder), gives up after ATTNGEN_JIT_LOCK_TIMEOUT seconds with exit 1
 * and writes nothing (issue 29: it waited 60 s without a word, then merged without the lock
 * and reported success). */
static void test_tune_cli_stopped_lock_holder_fails_without_writing(void **state) {
  fixture *f = *state;
  char lock[400];
  snprintf(lock, sizeof lock, "%s.lock", f->db);
  pid_t kid = attngen_test_hold_lock_stopped(take_fs_lock, lock);
  assert_true(kid > 0);
  int status;
  setenv("ATTNGEN_JIT_LOCK_TIMEOUT", "2.5", 1);
  int rc = run_tune(f, "--backend cpu --shape 1,1,16,16 --warmup 0 --iters 1 -o %s", f->db);
  unsetenv("ATTNGEN_JIT_LOCK_TIMEOUT");
  kill(kid, SIGKILL);
  waitpid(kid, &status, 0);
  if (rc != 1) fail_msg("tune exited %d (expected 1); stderr:\n%s", rc, f->err);
  char holder[64];
  snprintf(holder, sizeof holder, "process %ld (stopped)", (long)kid);
  assert_non_null(strstr(f->err, "waiting for lock file"));
  assert_non_null(strstr(f->err, lock));
  assert_non_null(strstr(f->err, holder));
  assert_non_null(strstr(f->err, "not written"));
  assert_null(strstr(f->out, "wrote "));
  struct stat st;
  assert_int_equal(stat(f->db, &st), -1);
  /* with the holder gone the same tune writes the database */
  rc = run_tune(f, "--backend cpu --shape 1,1,16,16 --warmup 0 --iters 1 -o %s", f->db);
  if (rc != 0) fail_msg("tune exited %d; stderr:\n%s", rc, f->err);
  assert_int_equal(stat(f->db, &st), 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_tune_cli_help_and_usage_errors, setup, teardown),
      cmocka_unit_test_setup_teardown(test_tune_cli_cpu_backend_writes_and_merges_database,
                                      setup, teardown),
      cmocka_unit_test_setup_teardown(test_tune_cli_foreign_database_needs_replace, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_tune_cli_emu_runs_jit_candidates_and_fails_softly,
                                      setup, teardown),
      cmocka_unit_test_setup_teardown(test_tune_cli_tunes_head_dim_mask_and_kv_heads, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_tune_cli_stopped_lock_holder_fails_without_writing,
                                      setup, teardown),
  };
  return attngen_test_exit(cmocka_run_group_tests(tests, NULL, NULL));
}
