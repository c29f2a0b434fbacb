/* cmd_info.c: `attngen info` — what this machine and this build offer: backends and their
 * devices (arch, CU/SM count), run-time compilers, the JIT cache, the tuning file, and the
 * embedded variants per target. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attngen.h"
#include "cli.h"

#if defined(ATTNGEN_HAVE_EMU) && ATTNGEN_HAVE_EMU
#endif

static const attngen__cli_option options[] = {
    {"--variants", ATTNGEN__CLI_FLAG, NULL, "also list every embedded variant by name"},
    {NULL}};

static int info(const attngen__cli_args *args);

const attngen__cli_command attngen__cli_cmd_info = {
    "info", "backends, devices, cache and embedded variants", "[--variants]",
    "Lists the backends (cuda, hip, emu, cpu) with their devices (name, arch, CU/SM\n"
    "count), the run-time compilers (NVRTC, hiprtc: version, the library they were found\n"
    "in, the architecture and options they compile with), the JIT cache directory and size,\n"
    "the tuning file, and the variants embedded in this build per target.\n"
    "Environment: ATTNGEN_BACKEND, ATTNGEN_CACHE_DIR, ATTNGEN_JIT, ATTNGEN_LOG,\n"
    "ATTNGEN_EMU_CLANG.\n",
    options, NULL, NULL, 0, 0, "0 ok", info};

static void show_backend(const char *name) {
  attngen_context_options o = {name, 0};
  attngen_context *ctx = NULL;
  attngen_status st = attngen_create(&ctx, &o);
  if (st != ATTNGEN_STATUS_OK) {
    printf("  %-5s not available: %s\n", name, attngen_last_error());
    return;
  }
  attngen_device_props p;
  attngen_device_info(ctx, &p);
  attngen_destroy(ctx);
  int count = p.device_count > 0 ? p.device_count : 1;
  for (int d = 0; d < count; d++) {
    if (d > 0) {
      attngen_context_options od = {name, d};
      if (attngen_create(&ctx, &od) != ATTNGEN_STATUS_OK) {
        printf("  %-5s device %d: %s\n", name, d, attngen_last_error());
        continue;
      }
      attngen_device_info(ctx, &p);
      attngen_destroy(ctx);
    }
    printf("  %-5s device %d: %s, arch %s, %d %s, kernels: %s", name, d, p.name, p.arch,
           p.compute_units,
           !strcmp(name, "cuda") ? "SMs" : !strcmp(name, "cpu") ? "threads" : "CUs", p.target);
    if (p.total_memory) printf(", %.1f GiB", (double)p.total_memory / (1u << 30));
    if (p.driver_version) printf(", driver %d", p.driver_version);
    printf("\n");
  }
}

static void show_compiler(int target) {
  char v[64], lib[512] = "?";
  if (attngen__jit_compiler(target, v, sizeof v) == ATTNGEN_STATUS_OK) {
    attngen__jit_compiler_library(target, lib, sizeof lib);
    printf("  %-7s %s, compiles for %s (%s)\n", attngen__target_name(target), v,
           attngen__jit_arch(target), lib);
    const char *opts[8];
    char arch_opt[64];
    size_t n = attngen__jit_options(target, opts, 8, arch_opt, sizeof arch_opt);
    printf("          options:");
    for (size_t i = 0; i < n && i < 8; i++) printf(" %s", opts[i]);
    printf("\n");
  } else
    printf("  %-7s not available: %s\n", attngen__target_name(target),
           attngen_last_error());
}

/* The emulator's JIT: the host clang++ it found (or why none) and its flags. */
static void show_emu_compiler(void) {
  attngen__host_cc cc;
  if (attngen__host_cc_find(&cc) != ATTNGEN_STATUS_OK) {
    printf("  %-7s not available: %s\n", "emu", attngen_last_error());
    return;
  }
  printf("  %-7s clang++ %s, compiles %s for %s (%s)\n", "emu", cc.short_ver,
         attngen__target_name(ATTNGEN__TARGET_GFX942), attngen__jit_emu_arch(), cc.path);
  const char *flags[32];
  size_t n = attngen__host_cc_flags(flags, 32);
  printf("          options:");
  for (size_t i = 0; i < n && i < 32; i++) printf(" %s", flags[i]);
  printf(" -include wrappers_emu.h\n");
}

static void show_cache(void) {
  char dir[4096];
  if (attngen__cache_dir(dir, sizeof dir) != 0) {
    printf("JIT cache: none (set ATTNGEN_CACHE_DIR, XDG_CACHE_HOME or HOME)\n");
    return;
  }
  attngen__cache_item *items = NULL;
  size_t n = 0;
  if (attngen__cache_list(dir, &items, &n) != ATTNGEN_STATUS_OK) {
    printf("JIT cache: %s: %s\n", dir, attngen_last_error());
    return;
  }
  long long bytes = 0;
  size_t bad = 0;
  for (size_t i = 0; i < n; i++) {
    bytes += items[i].file_bytes;
    bad += !items[i].valid;
  }
  free(items);
  printf("JIT cache: %s: %zu entr%s, %.2f MiB", dir, n, n == 1 ? "y" : "ies",
         (double)bytes / (1 << 20));
  if (bad) printf(", %zu invalid (attngen cache verify)", bad);
  printf("\nJIT: %s\n", attngen__jit_enabled() ? "enabled" : "disabled (ATTNGEN_JIT=0: AOT only)");
}

static int emu_has(const char *name) {
#if defined(ATTNGEN_HAVE_EMU) && ATTNGEN_HAVE_EMU
  return attngen__emu_find(name) != NULL;
#else
  (void)name;
  return 0;
#endif
}

static int has_code_object(const char *name, int target) {
  for (size_t i = 0; i < attngen__code_object_count; i++)
    if (attngen__code_objects[i].name && attngen__code_objects[i].target == target &&
        !strcmp(attngen__code_objects[i].name, name))
      return 1;
  return 0;
}

/* The tuning file: absent, ignored (why), or its machine and its records per kind of call
 * (head_dim, mask, query heads per KV head: what a call must match to take a record). */
static void show_tuning(const char *path) {
  attngen__tuning_file *db = NULL;
  attngen__tuning_diag d;
  memset(&d, 0, sizeof d);
  if (attngen__tuning_db_load(path, NULL, &db, &d) != ATTNGEN_STATUS_OK) {
    if (d.problem == ATTNGEN__TUNING_MISSING)
      printf("tuning file: %s (absent)\n", path);
    else
      printf("tuning file: %s (unusable: %s)\n", path, d.message);
    attngen__clear_error();
    return;
  }
  const attngen__tuning_meta *m = attngen__tuning_db_meta(db);
  const size_t n = attngen__tuning_db_count(db);
  printf("tuning file: %s (%zu record%s, tuned on %s: %s, %d compute units, %s; used only on "
         "that machine)\n", path, n, n == 1 ? "" : "s", m->target, m->device, m->cu_count,
         m->runtime);
  enum { KINDS = 32 };
  int kd[KINDS], kc[KINDS], kg[KINDS], kn[KINDS], nk = 0, more = 0;
  for (size_t i = 0; i < n; i++) {
    const attngen__tuning_record *r = attngen__tuning_db_record(db, i);
    const int hd = r->head_dim ? r->head_dim : 128;
    const int g = r->heads_kv ? r->heads / r->heads_kv : 1;
    int k = 0;
    while (k < nk && !(kd[k] == hd && kc[k] == r->causal && kg[k] == g)) k++;
    if (k == nk) {
      if (nk == KINDS) {
        more++;
        continue;
      }
      kd[k] = hd, kc[k] = r->causal, kg[k] = g, kn[k] = 0, nk++;
    }
    kn[k]++;
  }
  for (int k = 0; k < nk; k++) {
    printf("  head_dim %d, %s, ", kd[k], kc[k] ? "causal" : "no mask");
    if (kg[k] == 1)
      printf("MHA");
    else
      printf("%d query heads per KV head", kg[k]);
    printf(": %d record%s\n", kn[k], kn[k] == 1 ? "" : "s");
  }
  if (more) printf("  (%d records of further kinds)\n", more);
  attngen__tuning_db_free(db);
}

static void show_variants(int list) {
  static const int targets[] = {ATTNGEN__TARGET_GFX942, ATTNGEN__TARGET_SM90};
  printf("embedded variants (default set: %zu):\n", attngen__manifest_count);
  for (size_t t = 0; t < 2; t++) {
    int target = targets[t];
    size_t in_set = 0, aot = 0, emu = 0;
    for (size_t i = 0; i < attngen__manifest_count; i++) {
      const attngen__variant_desc *d = &attngen__manifest[i];
      if (!d->name || d->target != target) continue;
      in_set++;
      aot += has_code_object(d->name, target);
      emu += target == ATTNGEN__TARGET_GFX942 && emu_has(d->name);
    }
    printf("  %-7s %zu in the default set, %zu code objects embedded", attngen__target_name(target),
           in_set, aot);
    if (target == ATTNGEN__TARGET_GFX942) printf(", %zu in the emulator", emu);
    printf("\n");
    if (!list) continue;
    for (size_t i = 0; i < attngen__manifest_count; i++) {
      const attngen__variant_desc *d = &attngen__manifest[i];
      if (!d->name || d->target != target) continue;
      printf("    %-58s %4d threads, block_m %3d, %6d B smem  %s%s\n", d->name, d->threads,
             d->block_m, d->smem_bytes, has_code_object(d->name, target) ? "AOT" : "JIT",
             target == ATTNGEN__TARGET_GFX942 && emu_has(d->name) ? " +emu" : "");
    }
  }
}

static int info(const attngen__cli_args *args) {
  const int list = attngen__cli_given(args, "--variants");
  printf("attngen %s (generator %s)\n", attngen_version(), ATTNGEN_GENERATOR_VERSION);
  const char *env = getenv("ATTNGEN_BACKEND");
  printf("backends (auto order:");
  for (size_t i = 0; i < attngen__backend_auto_count; i++)
    printf(" %s,", attngen__backend_auto_order[i]->name);
  printf(" then %s%s%s):\n", attngen__backend_cpu.name, env && *env ? "; ATTNGEN_BACKEND=" : "",
         env && *env ? env : "");
  for (size_t i = 0; attngen__backend_at(i); i++) show_backend(attngen__backend_at(i)->name);
  printf("run-time compilers:\n");
  show_compiler(ATTNGEN__TARGET_SM90);
  show_compiler(ATTNGEN__TARGET_GFX942);
  show_emu_compiler();
  show_cache();
  char tuning[4096];
  if (attngen__tuning_default_path(tuning, sizeof tuning) == 0) show_tuning(tuning);
  show_variants(list);
  return 0;
}
