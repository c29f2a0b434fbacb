/* cmd_compile.c: `attngen compile` — the JIT without a device. Compiles variants with the
 * run-time compiler of their target (hiprtc for gfx942, NVRTC for sm90) through the same
 * function a first call on a device uses (attngen__jit_get: the embedded generator's
 * source, the same options, the same cache key), so the code objects land in the JIT cache
 * and a later process, on a GPU machine or not, loads them without compiling. No backend
 * is opened and no device is needed or pretended. With --emu, gfx942 variants are compiled
 * for the emulator instead (the host's clang++ 19 into shared objects, jit_host.h), as the
 * emu backend's first call would. */
#define _GNU_SOURCE
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attngen.h"
#include "cli.h"

static const attngen__cli_option options[] = {
    {"--target", ATTNGEN__CLI_CHOICE, "T",
     "the target's default set (the variants of the manifest), narrowed by --filter",
     .choices = attngen__target_names, .nchoices = ATTNGEN__TARGET_COUNT},
    {"--search-space", ATTNGEN__CLI_FLAG, NULL,
     "with --target: the target's tuning search space (attngen list\n"
     "--search-space) instead of its default set", .excludes = "--variant"},
    {"--filter", ATTNGEN__CLI_TEXT, "GLOB", "only variants whose name matches GLOB (* and ?)",
     .needs = "--target"},
    {"--emu", ATTNGEN__CLI_FLAG, NULL,
     "compile " ATTNGEN__TARGET_GFX942_NAME " variants for the emulator (emu backend): the\n"
     "host's clang++ 19 with the built-in emulated kernels' flags into a\n"
     "shared object (-o: DIR/NAME.so)"},
    {"--variant", ATTNGEN__CLI_TEXT, "NAME", "this variant (any valid name, not only the default set)",
     .max_len = 255, .repeat = 1, .excludes = "--target --filter"},
    {"-o", ATTNGEN__CLI_TEXT, "DIR", "also write the code objects into DIR (created if needed)",
     .max_len = 4000},
    {"-j", ATTNGEN__CLI_INT, "N", "compile N variants at a time (default 1; -jN too)", 1, 64},
    {NULL}};

static int compile(const attngen__cli_args *args);

const attngen__cli_command attngen__cli_cmd_compile = {
    "compile", "JIT-compile variants without a device (hiprtc / NVRTC) into the cache",
    "(--target T [--search-space] [--filter GLOB] | --variant NAME ...) [--emu] [-o DIR] [-j N]",
    "Compiles variants with the run-time compiler of their target (hiprtc for " ATTNGEN__TARGET_GFX942_NAME ",\n"
    "NVRTC for " ATTNGEN__TARGET_SM90_NAME ") exactly as the first call on a device would: the embedded\n"
    "generator's source, the same compiler options and the same JIT cache key. No device is\n"
    "needed or opened. Each code object is stored in the JIT cache (a later run, in any\n"
    "process, loads it without compiling) and, with -o, also written to DIR/NAME.co\n"
    "(" ATTNGEN__TARGET_GFX942_NAME ") or DIR/NAME.cubin (" ATTNGEN__TARGET_SM90_NAME "); with --emu,\n"
    "DIR/NAME.so.\n"
    "One line per variant: how it was obtained (compiled, cache = read from the disk\n"
    "cache, memory), seconds spent compiling, bytes, cache key, name.\n"
    "Environment: ATTNGEN_CACHE_DIR (the cache), ATTNGEN_JIT (0 refuses), ATTNGEN_LOG,\n"
    "ATTNGEN_JIT_LOCK_TIMEOUT (seconds to wait for another process compiling the same\n"
    "variant, default 300); a malformed value of any of them fails (exit status 1);\n"
    "ATTNGEN_EMU_CLANG (--emu: the compiler; else clang++-19 on PATH, the build's).\n",
    options, NULL, NULL, 0, 0,
    "0 every variant compiled or loaded, 1 a variant failed (the run-time\n"
    "compiler is missing, a compile error: the message says which)", compile};

typedef struct job {
  const char *name;
  int target;
  int emu;
  attngen_status status;
  char error[2048];
  attngen__jit_result result;
} job;

typedef struct work {
  job *jobs;
  const char *out_dir;
  const attngen__env *env; /* checked once; its lock timeout bounds every wait */
} work;

static const char *origin_name(int origin) {
  return origin == ATTNGEN__JIT_COMPILED ? "compiled"
         : origin == ATTNGEN__JIT_DISK   ? "cache"
                                         : "memory";
}

static void run_job(void *ctx, size_t i) {
  const work *w = ctx;
  job *j = &w->jobs[i];
  attngen__jit_request req = {j->name, j->target, NULL, w->env->jit_lock_timeout_s, w->env,
                              j->emu};
  j->status = attngen__jit_get(&req, &j->result);
  if (j->status != ATTNGEN_STATUS_OK) {
    snprintf(j->error, sizeof j->error, "%s", attngen_last_error());
    return;
  }
  if (w->out_dir) {
    char path[4400];
    snprintf(path, sizeof path, "%s/%s%s", w->out_dir, j->name,
             j->emu ? ".so" : j->target == ATTNGEN__TARGET_SM90 ? ".cubin" : ".co");
    if (attngen__fs_write_atomic(path, j->result.image, j->result.size, 0) != 0) {
      j->status = ATTNGEN_STATUS_IO_ERROR;
      snprintf(j->error, sizeof j->error, "cannot write %s: %s", path, strerror(errno));
    }
  }
}

static int compile(const attngen__cli_args *args) {
  const char *filter = attngen__cli_text(args, "--filter", NULL);
  const char *out_dir = attngen__cli_text(args, "-o", NULL);
  const int target = attngen__cli_choice(args, "--target", -1);
  long threads = attngen__cli_int(args, "-j", 1);
  const attngen__cli_value *named = attngen__cli_get(args, "--variant");
  const char *const *variants = named->all;
  const size_t nvariants = (size_t)named->given;
  const int emu = attngen__cli_given(args, "--emu");
  const int search_space = attngen__cli_given(args, "--search-space");
  int rc = 0;
  if (!nvariants && target < 0)
    return attngen__cli_usage_error(args->cmd, "say what to compile: --target "
                                    ATTNGEN__TARGET_CHOICES " or --variant NAME");
  if (emu && target >= 0 && target != ATTNGEN__TARGET_GFX942)
    return attngen__cli_usage_error(args->cmd, "--emu compiles " ATTNGEN__TARGET_GFX942_NAME
                                    " variants only (the emulator runs " ATTNGEN__TARGET_GFX942_NAME
                                    " kernels), not --target %s", attngen__target_name(target));
  if (search_space && target < 0)
    return attngen__cli_usage_error(args->cmd, "--search-space needs --target");
  char **space = NULL;
  int nspace = 0;
  if (search_space) {
    char *err = NULL;
    nspace = attngen__gen_search_space(attngen__target_name(target), &space, &err);
    if (nspace < 0) {
      fprintf(stderr, "attngen compile: the %s search space: %s\n", attngen__target_name(target),
              err ? err : "?");
      free(err);
      return 1;
    }
  }

  /* The environment, checked as attngen_create checks it (ATTNGEN_JIT, the lock timeout):
   * a malformed value stops before anything is compiled. */
  attngen__env env;
  if (attngen__env_read(&env) != ATTNGEN_STATUS_OK) {
    fprintf(stderr, "attngen compile: %s\n", attngen_last_error());
    return 1;
  }
  job *jobs = calloc(nvariants + attngen__manifest_count + (size_t)nspace + 1, sizeof *jobs);
  if (!jobs) {
    fprintf(stderr, "attngen compile: out of memory\n");
    rc = 1;
    goto out;
  }
  size_t njobs = 0;
  for (size_t i = 0; i < nvariants; i++) {
    attngen__variant_desc d;
    char *err = NULL;
    if (attngen__gen_variant_desc(variants[i], &d, &err) != 0) {
      rc = attngen__cli_usage_error(args->cmd, "--variant %s: %s", variants[i],
                                    err ? err : "invalid");
      free(err);
      free(jobs);
      return rc;
    }
    if (emu && d.target != ATTNGEN__TARGET_GFX942) {
      free(jobs);
      return attngen__cli_usage_error(args->cmd, "--variant %s: --emu compiles "
                                      ATTNGEN__TARGET_GFX942_NAME " variants only", variants[i]);
    }
    jobs[njobs].name = variants[i];
    jobs[njobs++].target = d.target;
  }
  for (int i = 0; i < nspace; i++) {
    if (filter && fnmatch(filter, space[i], 0) != 0) continue;
    jobs[njobs].name = space[i];
    jobs[njobs++].target = target;
  }
  if (search_space && !njobs) {
    fprintf(stderr, "attngen compile: no variant of the %s search space matches '%s'\n",
            attngen__target_name(target), filter ? filter : "*");
    free(jobs);
    rc = 1;
    goto out;
  }
  if (!nvariants && !search_space) {
    for (size_t i = 0; i < attngen__manifest_count; i++) {
      const attngen__variant_desc *d = &attngen__manifest[i];
      if (!d->name || d->target != target) continue;
      if (filter && fnmatch(filter, d->name, 0) != 0) continue;
      jobs[njobs].name = d->name;
      jobs[njobs++].target = d->target;
    }
    if (!njobs) {
      fprintf(stderr, "attngen compile: no variant of the %s default set matches '%s'\n",
              attngen__target_name(target), filter ? filter : "*");
      free(jobs);
      rc = 1;
      goto out;
    }
  }
  for (size_t i = 0; i < njobs; i++) jobs[i].emu = emu;
  /* The compiler of every target involved, named before anything is compiled. */
  if (emu) {
    attngen__host_cc cc;
    if (attngen__host_cc_find(&cc) != ATTNGEN_STATUS_OK) {
      fprintf(stderr, "attngen compile: %s\n", attngen_last_error());
      free(jobs);
      rc = 1;
      goto out;
    }
    printf("%s (emulator): clang++ %s (%s), compiles for %s\n",
           attngen__target_name(ATTNGEN__TARGET_GFX942), cc.short_ver, cc.path,
           attngen__jit_emu_arch());
  }
  for (int t = 0; t < ATTNGEN__TARGET_COUNT && !emu; t++) {
    int used = 0;
    for (size_t i = 0; i < njobs; i++) used |= jobs[i].target == t;
    if (!used) continue;
    char version[160];
    if (attngen__jit_compiler(t, version, sizeof version) != ATTNGEN_STATUS_OK) {
      fprintf(stderr, "attngen compile: %s: %s\n", attngen__target_name(t), attngen_last_error());
      free(jobs);
      rc = 1;
      goto out;
    }
    printf("%s: %s, compiles for %s\n", attngen__target_name(t), version, attngen__jit_arch(t));
  }
  if (out_dir && attngen__fs_mkdir_p(out_dir, 0755) != 0) {
    fprintf(stderr, "attngen compile: cannot create -o %s: %s\n", out_dir, strerror(errno));
    free(jobs);
    rc = 1;
    goto out;
  }
  work w = {jobs, out_dir, &env};
  attngen__cli_parallel(njobs, threads, run_job, &w);

  printf("%-8s %8s %9s  %-16s  %s\n", "origin", "seconds", "bytes", "key", "variant");
  size_t failed = 0, compiled = 0;
  double seconds = 0;
  for (size_t i = 0; i < njobs; i++) {
    job *j = &jobs[i];
    if (j->status != ATTNGEN_STATUS_OK) {
      failed++;
      printf("%-8s %8s %9s  %-16s  %s\n", "FAILED", "-", "-", "-", j->name);
      fprintf(stderr, "attngen compile: %s: %s: %s\n", j->name, attngen_status_name(j->status),
              j->error);
      continue;
    }
    compiled += j->result.origin == ATTNGEN__JIT_COMPILED;
    seconds += j->result.seconds;
    printf("%-8s %8.2f %9zu  %016llx  %s\n", origin_name(j->result.origin), j->result.seconds,
           j->result.size, (unsigned long long)j->result.key, j->name);
    free(j->result.image);
  }
  printf("%zu variant%s: %zu compiled (%.1f s of compiling), %zu from the cache, %zu failed\n",
         njobs, njobs == 1 ? "" : "s", compiled, seconds, njobs - compiled - failed, failed);
  free(jobs);
  rc = failed ? 1 : 0;
out:
  attngen__gen_free_names(space, nspace);
  return rc;
}
