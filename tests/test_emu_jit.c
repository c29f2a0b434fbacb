/* test_emu_jit.c: the emulator's JIT (runtime/src/jit_host.c, backend_emu.c's module_load).
 * A variant that is not built into the emulator is compiled with the host's clang++ 19 and
 * the built-in kernels' flags into a shared object, cached like a code object (compiled,
 * then from disk, then from memory; a corrupt entry is rebuilt; a read-only cache dir works
 * from memory), loaded with dlopen and bound to the engine. The JIT object of a default
 * variant gives the built-in object's results bit for bit (ATTNGEN_EMU_BUILTIN=0 makes a
 * context JIT-compile it). A missing or wrong compiler is NO_VARIANT naming what is missing;
 * a compile error is JIT_FAILED with the compiler's output. The issue's command (`attngen
 * run` and `check` of a q3/kv32/perm variant) runs. Without clang++ 19 the tests print
 * SKIPPED (a failure where ATTNGEN_REQUIRE_CLANG19=1, as in CI). Each test gets a fresh cache
 * directory. */
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
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "attngen.h"
#include "test_util.h"
#include "verify.h"

#define ISSUE_VARIANT "attn_fwd_d128_bshd_rtne_q3_kv32_w8_nosplit_mfma_gfx942"

/* A kernel object the emulator can load (one function calls the engine through the shim). */
static const char *tiny_source =
    "extern \"C\" void attngen_emu_tiny(void) {}\n"
    "extern \"C\" unsigned attngen_emu_tiny_lane(void) { return ag_lane_id(); }\n";

static char dir[256];

static int setup(void **state) {
  (void)state;
  if (attngen_test_make_tmpdir(dir, sizeof dir, "attngen-emu-jit") != 0) return -1;
  setenv("ATTNGEN_CACHE_DIR", dir, 1);
  unsetenv("ATTNGEN_JIT");
  unsetenv("ATTNGEN_EMU_CLANG");
  unsetenv("ATTNGEN_EMU_BUILTIN");
  attngen__jit_forget_memory();
  return 0;
}

static int teardown(void **state) {
  (void)state;
  attngen_test_remove_tree(dir);
  unsetenv("ATTNGEN_CACHE_DIR");
  unsetenv("ATTNGEN_EMU_CLANG");
  unsetenv("ATTNGEN_EMU_BUILTIN");
  attngen__jit_forget_memory();
  return 0;
}

/* 1 when the host compiler is there; else prints SKIPPED and returns 0. */
static int have_clang(void) {
  attngen__host_cc cc;
  if (attngen__host_cc_find(&cc) == ATTNGEN_STATUS_OK) return 1;
  print_message("SKIPPED: the emulator's JIT compiler is not available: %s\n",
                attngen_last_error());
  return 0;
}

static attngen_status get_tiny(attngen__jit_result *r) {
  attngen__jit_request req = {"attngen_emu_tiny", ATTNGEN__TARGET_GFX942, tiny_source, 0, NULL,
                              1};
  return attngen__jit_get(&req, r);
}

static int is_elf_so(const void *p, size_t n) {
  return n > 18 && memcmp(p, "\x7f" "ELF", 4) == 0 && ((const unsigned char *)p)[16] == 3;
}

/* Compiled, then from disk (a new process would find it), then from memory; the entry's
 * metadata names the emulator, and the object loads, binds and exports the kernel. */
static void test_emu_jit_compiles_caches_and_loads(void **state) {
  if (!have_clang()) skip();
  const unsigned long c0 = attngen__jit_compile_count();
  attngen__jit_result r1, r2, r3;
  assert_int_equal(get_tiny(&r1), ATTNGEN_STATUS_OK);
  assert_int_equal(r1.origin, ATTNGEN__JIT_COMPILED);
  assert_true(is_elf_so(r1.image, r1.size));
  assert_int_equal(attngen__jit_compile_count(), c0 + 1);
  attngen__jit_forget_memory();
  assert_int_equal(get_tiny(&r2), ATTNGEN_STATUS_OK);
  assert_int_equal(r2.origin, ATTNGEN__JIT_DISK);
  assert_int_equal(r2.size, r1.size);
  assert_memory_equal(r2.image, r1.image, r1.size);
  assert_int_equal(get_tiny(&r3), ATTNGEN_STATUS_OK);
  assert_int_equal(r3.origin, ATTNGEN__JIT_MEMORY);
  assert_int_equal(attngen__jit_compile_count(), c0 + 1);

  attngen__cache_item *items = NULL;
  size_t n = 0;
  assert_int_equal(attngen__cache_list(dir, &items, &n), ATTNGEN_STATUS_OK);
  assert_int_equal(n, 1);
  assert_true(items[0].valid);
  assert_string_equal(items[0].meta.variant, "attngen_emu_tiny");
  assert_string_equal(items[0].meta.arch, attngen__jit_emu_arch());
  assert_non_null(strstr(items[0].meta.compiler, "clang++ 19."));
  free(items);

  void *bs = NULL, *module = NULL, *fn = NULL;
  attngen_device_props props;
  assert_int_equal(attngen__backend_emu.open(0, &bs, &props), ATTNGEN_STATUS_OK);
  assert_int_equal(attngen__backend_emu.module_load(bs, r1.image, r1.size, &module),
                   ATTNGEN_STATUS_OK);
  assert_int_equal(attngen__backend_emu.function(bs, module, "attngen_emu_tiny", 0, &fn),
                   ATTNGEN_STATUS_OK);
  assert_non_null(fn);
  assert_int_equal(attngen__backend_emu.function(bs, module, "attngen_emu_nothing", 0, &fn),
                   ATTNGEN_STATUS_NO_VARIANT);
  attngen__backend_emu.module_unload(bs, module);
  attngen__backend_emu.close(bs);
  free(r1.image);
  free(r2.image);
  free(r3.image);
}

/* A damaged entry fails validation and is compiled again, whole. */
static void test_emu_jit_corrupt_entry_is_rebuilt(void **state) {
  if (!have_clang()) skip();
  attngen__jit_result r1, r2;
  assert_int_equal(get_tiny(&r1), ATTNGEN_STATUS_OK);
  char path[512];
  snprintf(path, sizeof path, "%s/%016llx%s", dir, (unsigned long long)r1.key,
           ATTNGEN__CACHE_EXT);
  FILE *fp = fopen(path, "r+b");
  assert_non_null(fp);
  const long at = (long)(ATTNGEN__CACHE_HEADER_BYTES + r1.size / 2);
  fseek(fp, at, SEEK_SET);
  const int c = fgetc(fp);
  fseek(fp, at, SEEK_SET);
  fputc(c ^ 0x40, fp);
  fclose(fp);
  attngen__jit_forget_memory();
  const unsigned long c0 = attngen__jit_compile_count();
  assert_int_equal(get_tiny(&r2), ATTNGEN_STATUS_OK);
  assert_int_equal(r2.origin, ATTNGEN__JIT_COMPILED);
  assert_int_equal(attngen__jit_compile_count(), c0 + 1);
  void *data = NULL;
  size_t size = 0;
  char why[128];
  assert_int_equal(attngen__cache_read(dir, r1.key, &data, &size, NULL, why, sizeof why),
                   ATTNGEN__CACHE_HIT);
  assert_int_equal(size, r2.size);
  free(data);
  free(r1.image);
  free(r2.image);
}

/* A cache directory that cannot be written (as root: one inside /proc): compiled, kept in
 * memory, nothing on disk. */
static void test_emu_jit_readonly_cache_dir_works_from_memory(void **state) {
  if (!have_clang()) skip();
  char ro[300];
  if (geteuid() == 0) {
    snprintf(ro, sizeof ro, "/proc/self/attngen-cache");
  } else {
    snprintf(ro, sizeof ro, "%s", dir);
    assert_int_equal(chmod(ro, 0555), 0);
  }
  setenv("ATTNGEN_CACHE_DIR", ro, 1);
  attngen__jit_result r1, r2;
  assert_int_equal(get_tiny(&r1), ATTNGEN_STATUS_OK);
  assert_int_equal(r1.origin, ATTNGEN__JIT_COMPILED);
  assert_int_equal(get_tiny(&r2), ATTNGEN_STATUS_OK);
  assert_int_equal(r2.origin, ATTNGEN__JIT_MEMORY);
  chmod(dir, 0755);
  attngen__cache_item *items = NULL;
  size_t n = 0;
  assert_int_equal(attngen__cache_list(dir, &items, &n), ATTNGEN_STATUS_OK);
  assert_int_equal(n, 0);
  free(items);
  free(r1.image);
  free(r2.image);
}

/* A compile error: JIT_FAILED with the compiler's own message. */
static void test_emu_jit_compile_error_carries_the_output(void **state) {
  if (!have_clang()) skip();
  attngen__jit_request req = {"attngen_emu_broken", ATTNGEN__TARGET_GFX942,
                              "extern \"C\" void attngen_emu_broken() { undeclared_thing(); }\n",
                              0, NULL, 1};
  attngen__jit_result r;
  assert_int_equal(attngen__jit_get(&req, &r), ATTNGEN_STATUS_JIT_FAILED);
  assert_null(r.image);
  assert_non_null(strstr(attngen_last_error(), "attngen_emu_broken"));
  assert_non_null(strstr(attngen_last_error(), "undeclared_thing"));
}

/* No compiler, or not clang 19: NO_VARIANT naming what is missing, through the public API. */
static void test_emu_jit_missing_compiler_is_named(void **state) {
  (void)state;
  attngen_context *ctx = NULL;
  attngen_context_options o = {"emu", 0};
  /* the emu backend is part of every build: not opening is a failure */
  if (attngen_create(&ctx, &o) != ATTNGEN_STATUS_OK)
    fail_msg("the emu backend does not open: %s", attngen_last_error());
  const int B = 1, H = 1, S = 20;
  attngen__inputs in;
  assert_int_equal(attngen__inputs_make(&in, ATTNGEN__INPUT_UNIFORM, 3, ATTNGEN_LAYOUT_BSHD, B,
                                        H, S, S, 0.088388347648f),
                   ATTNGEN_STATUS_OK);
  uint16_t *out = calloc((size_t)B * H * S * 128, 2);
  attngen_fwd_args a;
  attngen_fwd_args_init(&a);
  a.q = in.q;
  a.k = in.k;
  a.v = in.v;
  a.out = out;
  a.batch = B;
  a.heads = H;
  a.seqlen_q = a.seqlen_kv = S;
  a.variant = ISSUE_VARIANT;
  setenv("ATTNGEN_EMU_CLANG", "/nonexistent/clang++-19", 1);
  assert_int_equal(attngen_fwd(ctx, &a), ATTNGEN_STATUS_NO_VARIANT);
  print_message("message: %s\n", attngen_last_error());
  assert_non_null(strstr(attngen_last_error(), ISSUE_VARIANT));
  assert_non_null(strstr(attngen_last_error(), "ATTNGEN_EMU_CLANG=/nonexistent/clang++-19"));
  /* a program that is not clang 19 (it prints no version) */
  setenv("ATTNGEN_EMU_CLANG", "/bin/true", 1);
  assert_int_equal(attngen_fwd(ctx, &a), ATTNGEN_STATUS_NO_VARIANT);
  assert_non_null(strstr(attngen_last_error(), "is not clang 19"));
  unsetenv("ATTNGEN_EMU_CLANG");
  free(out);
  attngen__inputs_free(&in);
  attngen_destroy(ctx);
}

/* One call on a context; out/lse are the caller's. */
static attngen_status run_call(attngen_context *ctx, const attngen__inputs *in, const char *variant,
                               uint16_t *out, float *lse, attngen_choice *ch) {
  attngen_fwd_args a;
  attngen_fwd_args_init(&a);
  a.q = in->q;
  a.k = in->k;
  a.v = in->v;
  a.out = out;
  a.lse = lse;
  a.batch = in->batch;
  a.heads = in->heads;
  a.seqlen_q = in->seqlen_q;
  a.seqlen_kv = in->seqlen_kv;
  a.layout = in->layout;
  a.variant = variant;
  attngen_status st = attngen_explain(ctx, &a, ch);
  if (st == ATTNGEN_STATUS_OK) st = attngen_fwd(ctx, &a);
  if (st == ATTNGEN_STATUS_OK) st = attngen_synchronize(ctx, NULL);
  return st;
}

/* A default variant's JIT object and its built-in object: the same bits (output and LSE),
 * for a nosplit variant and for a tail variant on a call that splits (its merge kernel runs
 * too), with the same wave-order seed. */
static void test_emu_jit_object_equals_builtin_bitwise(void **state) {
  if (!have_clang()) skip();
  if (attngen__emu_kernel_count == 0) {
    print_message("SKIPPED: no built-in emulated variants in this build\n");
    skip();
  }
  setenv("ATTNGEN_EMU_CUS", "8", 1);
  attngen_context *builtin = NULL, *jit = NULL;
  attngen_context_options o = {"emu", 0};
  assert_int_equal(attngen_create(&builtin, &o), ATTNGEN_STATUS_OK);
  setenv("ATTNGEN_EMU_BUILTIN", "0", 1);
  assert_int_equal(attngen_create(&jit, &o), ATTNGEN_STATUS_OK);
  unsetenv("ATTNGEN_EMU_BUILTIN");
  int tested = 0;
  for (int want_tail = 0; want_tail < 2; want_tail++) {
    const attngen__variant_desc *var = NULL;
    for (size_t i = 0; i < attngen__manifest_count && !var; i++) {
      const attngen__variant_desc *d = &attngen__manifest[i];
      if (d->name && d->target == ATTNGEN__TARGET_GFX942 && attngen__emu_find(d->name) &&
          (d->kv_split == ATTNGEN__SPLIT_TAIL) == want_tail)
        var = d;
    }
    if (!var) continue;
    /* tail: 10 KV tiles and 2 heads on 8 CUs split; large scores: the rescale path runs */
    const int B = 1, H = 2, Sq = 64, Skv = 10 * var->kv_tile - 15;
    attngen__inputs in;
    assert_int_equal(attngen__inputs_make(&in, ATTNGEN__INPUT_LARGE, 11 + want_tail,
                                          (attngen_layout)var->layout, B, H, Sq, Skv,
                                          0.088388347648f),
                     ATTNGEN_STATUS_OK);
    const size_t n = (size_t)B * H * Sq * 128, nl = (size_t)B * H * Sq;
    uint16_t *o1 = malloc(n * 2), *o2 = malloc(n * 2);
    float *l1 = malloc(nl * 4), *l2 = malloc(nl * 4);
    memset(o1, 0xFF, n * 2);
    memset(o2, 0xEE, n * 2);
    attngen_choice c1, c2;
    assert_int_equal(run_call(builtin, &in, var->name, o1, l1, &c1), ATTNGEN_STATUS_OK);
    const unsigned long k0 = attngen__jit_compile_count();
    const attngen_status st = run_call(jit, &in, var->name, o2, l2, &c2);
    if (st != ATTNGEN_STATUS_OK) print_message("%s: %s\n", var->name, attngen_last_error());
    assert_int_equal(st, ATTNGEN_STATUS_OK);
    assert_true(c1.embedded);
    assert_false(c2.embedded);
    assert_true(c2.needs_jit);
    assert_int_equal(attngen__jit_compile_count(), k0 + 1);
    assert_int_equal(c1.num_splits, c2.num_splits);
    if (want_tail) assert_true(c1.num_splits > 1);
    size_t differ = 0;
    for (size_t i = 0; i < n; i++) differ += o1[i] != o2[i];
    for (size_t i = 0; i < nl; i++) differ += memcmp(&l1[i], &l2[i], 4) != 0;
    print_message("%s: %zu outputs + %zu LSE, %zu differ between the built-in and the JIT "
                  "object (%d KV parts)\n", var->name, n, nl, differ, c1.num_splits);
    assert_int_equal(differ, 0);
    tested++;
    free(o1);
    free(o2);
    free(l1);
    free(l2);
    attngen__inputs_free(&in);
  }
  assert_int_equal(tested, 2);
  attngen_destroy(builtin);
  attngen_destroy(jit);
}

/* Runs `attngen ARGS` with stdout+stderr into out; returns the exit status. */
static int cli(char *out, size_t len, const char *args) {
  char cmd[2048], path[400];
  snprintf(path, sizeof path, "%s/cli.out", dir);
  snprintf(cmd, sizeof cmd, "ATTNGEN_CACHE_DIR='%s' '%s' %s >'%s' 2>&1", dir, ATTNGEN_CLI, args,
           path);
  const int rc = system(cmd);
  FILE *f = fopen(path, "r");
  size_t n = f ? fread(out, 1, len - 1, f) : 0;
  out[n] = 0;
  if (f) fclose(f);
  return WIFEXITED(rc) ? WEXITSTATUS(rc) : 128;
}

/* The issue's command: a variant outside the default set runs on the emulator (JIT-compiled
 * by the first process, loaded from the cache by the second) and passes its check. */
static void test_emu_jit_issue_command_runs_and_checks(void **state) {
  if (!have_clang()) skip();
  char out[16384];
  int rc = cli(out, sizeof out,
               "run --backend emu --shape 1,1,100,300 --variant " ISSUE_VARIANT);
  print_message("%s", out);
  assert_int_equal(rc, 0);
  assert_non_null(strstr(out, ISSUE_VARIANT));
  rc = cli(out, sizeof out,
           "check --backend emu --shape 1,1,100,300 --large-scores --variant " ISSUE_VARIANT);
  print_message("%s", out);
  assert_int_equal(rc, 0);
  assert_non_null(strstr(out, "check: PASS"));
  /* the second process compiled nothing: its entry was in the cache */
  attngen__cache_item *items = NULL;
  size_t n = 0;
  assert_int_equal(attngen__cache_list(dir, &items, &n), ATTNGEN_STATUS_OK);
  assert_int_equal(n, 1);
  assert_string_equal(items[0].meta.variant, ISSUE_VARIANT);
  free(items);

  /* In this process, through the API: the plan carries the source generated when the
   * variant was described, so a context generates it once and the JIT compiles nothing (the
   * key hashed from the plan's source is the entry the CLI stored); a second context
   * describes it again; the JIT asked by name alone (the source generated from the name)
   * finds the same entry. */
  attngen__inputs in;
  assert_int_equal(attngen__inputs_make(&in, ATTNGEN__INPUT_UNIFORM, 5, ATTNGEN_LAYOUT_BSHD, 1,
                                        1, 20, 30, 0.088388347648f),
                   ATTNGEN_STATUS_OK);
  uint16_t *o = calloc((size_t)20 * 128, 2);
  assert_non_null(o);
  attngen_choice ch;
  const unsigned long g0 = attngen__gen_source_count(), c0 = attngen__jit_compile_count();
  attngen_context_options opts = {"emu", 0};
  attngen_context *ctx[2] = {NULL, NULL};
  for (int i = 0; i < 2; i++) {
    assert_int_equal(attngen_create(&ctx[i], &opts), ATTNGEN_STATUS_OK);
    assert_int_equal(run_call(ctx[i], &in, ISSUE_VARIANT, o, NULL, &ch), ATTNGEN_STATUS_OK);
    assert_int_equal(run_call(ctx[i], &in, ISSUE_VARIANT, o, NULL, &ch), ATTNGEN_STATUS_OK);
    assert_string_equal(ch.variant, ISSUE_VARIANT);
    assert_int_equal(attngen__gen_source_count(), g0 + 1 + (unsigned long)i);
  }
  assert_int_equal(attngen__jit_compile_count(), c0);
  attngen__jit_request req = {ISSUE_VARIANT, ATTNGEN__TARGET_GFX942, NULL, 0, NULL, 1};
  attngen__jit_result r;
  assert_int_equal(attngen__jit_get(&req, &r), ATTNGEN_STATUS_OK);
  assert_int_not_equal(r.origin, ATTNGEN__JIT_COMPILED);
  free(r.image);
  assert_int_equal(attngen__gen_source_count(), g0 + 3);
  assert_int_equal(attngen__jit_compile_count(), c0);
  assert_int_equal(attngen__cache_list(dir, &items, &n), ATTNGEN_STATUS_OK);
  assert_int_equal(n, 1);
  free(items);
  for (int i = 0; i < 2; i++) attngen_destroy(ctx[i]);
  free(o);
  attngen__inputs_free(&in);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_emu_jit_compiles_caches_and_loads, setup, teardown),
      cmocka_unit_test_setup_teardown(test_emu_jit_corrupt_entry_is_rebuilt, setup, teardown),
      cmocka_unit_test_setup_teardown(test_emu_jit_readonly_cache_dir_works_from_memory, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_emu_jit_compile_error_carries_the_output, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_emu_jit_missing_compiler_is_named, setup, teardown),
      cmocka_unit_test_setup_teardown(test_emu_jit_object_equals_builtin_bitwise, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_emu_jit_issue_command_runs_and_checks, setup,
                                      teardown),
  };
  return attngen_test_exit(cmocka_run_group_tests(tests, NULL, NULL));
}
