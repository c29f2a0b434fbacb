/* jit.c: generate -> compile (NVRTC / hiprtc, loaded with dlopen; the emulator's host
 * clang++, jit_host.c) -> cache. */
#define _GNU_SOURCE /* dladdr */
#include "jit.h"

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "axes.h"
#include "backend.h"
#include "cache.h"
#include "env.h"
#include "gen.h"
#include "hash.h"
#include "jit_host.h"
#include "status.h"
#include "variant.h"

/* ---- run-time compiler libraries ----------------------------------------------------- */

typedef int rtc_result;
typedef struct rtc_program *rtc_program;

/* NVRTC and hiprtc share one API shape; only names and the binary getter differ. */
typedef struct rtc_api {
  const char *name; /* "nvrtc" | "hiprtc" */
  void *lib;
  char path[512];  /* the library the API was found in (symbolic links resolved) */
  char ident[128]; /* its file name, e.g. libamdhip64.so.5.7.31921: HIP 5.7.1's
                      hiprtcVersion says 9.0, which does not name the release, so the cache
                      key hashes this too */
  int major, minor;
  attngen_status status;
  char error[1200];
  rtc_result (*version)(int *major, int *minor);
  const char *(*error_string)(rtc_result r);
  rtc_result (*create)(rtc_program *p, const char *src, const char *name, int nheaders,
                       const char *const *headers, const char *const *include_names);
  rtc_result (*destroy)(rtc_program *p);
  rtc_result (*compile)(rtc_program p, int nopts, const char *const *opts);
  rtc_result (*log_size)(rtc_program p, size_t *n);
  rtc_result (*log)(rtc_program p, char *buf);
  rtc_result (*code_size)(rtc_program p, size_t *n);
  rtc_result (*code)(rtc_program p, char *buf);
} rtc_api;

static rtc_api nvrtc = {.name = "nvrtc"};
static rtc_api hiprtc = {.name = "hiprtc"};
static pthread_once_t nvrtc_once = PTHREAD_ONCE_INIT;
static pthread_once_t hiprtc_once = PTHREAD_ONCE_INIT;

/* Opens the first of libs that loads and exports the API (PREFIXCreateProgram): a library
 * that loads but lacks the API (e.g. a libamdhip64 of a ROCm whose hiprtc is a separate
 * libhiprtc) does not stop the search. */
static void rtc_load(rtc_api *a, const char *const *libs, size_t nlibs, const char *prefix,
                     const char *code_size_sym, const char *code_sym) {
  char tried[1024], create[64];
  snprintf(create, sizeof create, "%sCreateProgram", prefix);
  a->lib = attngen__dlopen_first(libs, nlibs, create, tried, sizeof tried);
  if (!a->lib) {
    snprintf(a->error, sizeof a->error, "%s: the run-time compiler library is not installed (tried %s)",
             a->name, tried);
    a->status = ATTNGEN_STATUS_NO_BACKEND;
    return;
  }
  struct {
    const char *suffix;
    void **slot;
  } syms[] = {
    {"Version", (void **)&a->version},         {"GetErrorString", (void **)&a->error_string},
    {"CreateProgram", (void **)&a->create},    {"DestroyProgram", (void **)&a->destroy},
    {"CompileProgram", (void **)&a->compile},  {"GetProgramLogSize", (void **)&a->log_size},
    {"GetProgramLog", (void **)&a->log},       {code_size_sym, (void **)&a->code_size},
    {code_sym, (void **)&a->code},
  };
  for (size_t i = 0; i < sizeof syms / sizeof syms[0]; i++) {
    char sym[64];
    snprintf(sym, sizeof sym, "%s%s", prefix, syms[i].suffix);
    *syms[i].slot = dlsym(a->lib, sym);
    if (!*syms[i].slot) {
      snprintf(a->error, sizeof a->error, "%s: the library lacks %s", a->name, sym);
      a->status = ATTNGEN_STATUS_NO_BACKEND;
      return;
    }
  }
  Dl_info info;
  char *real = dladdr(*(void **)&a->create, &info) && info.dli_fname
                   ? realpath(info.dli_fname, NULL) : NULL;
  snprintf(a->path, sizeof a->path, "%s", real ? real : "?");
  const char *slash = strrchr(a->path, '/');
  snprintf(a->ident, sizeof a->ident, "%s", slash ? slash + 1 : a->path);
  free(real);
  if (a->version(&a->major, &a->minor) != 0) {
    snprintf(a->error, sizeof a->error, "%s: %sVersion failed", a->name, prefix);
    a->status = ATTNGEN_STATUS_NO_BACKEND;
    return;
  }
  a->status = ATTNGEN_STATUS_OK;
}

/* NVRTC: plain soname first, then the CUDA install locations. */
static void nvrtc_load(void) {
  char cuda_home[4096] = "", cuda_home13[4096] = "";
  const char *home = getenv("CUDA_HOME");
  if (home && *home) {
    snprintf(cuda_home, sizeof cuda_home, "%s/lib64/libnvrtc.so", home);
    snprintf(cuda_home13, sizeof cuda_home13, "%s/lib64/libnvrtc.so.13", home);
  }
  const char *libs[] = {
    "libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so",
    "/usr/local/cuda/lib64/libnvrtc.so.13", "/usr/local/cuda/lib64/libnvrtc.so.12",
    "/usr/local/cuda/lib64/libnvrtc.so", cuda_home13, cuda_home,
  };
  rtc_load(&nvrtc, libs, sizeof libs / sizeof libs[0], "nvrtc", "GetCUBINSize", "GetCUBIN");
}

/* hiprtc: ROCm's libhiprtc first; HIP 5.x builds without it (Debian's HIP 5.7) carry the
 * hiprtc API in libamdhip64 itself. */
static void hiprtc_load(void) {
  const char *libs[] = {
    "libhiprtc.so", "libhiprtc.so.7", "libhiprtc.so.6", "libhiprtc.so.5",
    "/opt/rocm/lib/libhiprtc.so", "libamdhip64.so", "libamdhip64.so.7", "libamdhip64.so.6",
    "libamdhip64.so.5", "/opt/rocm/lib/libamdhip64.so",
  };
  rtc_load(&hiprtc, libs, sizeof libs / sizeof libs[0], "hiprtc", "GetCodeSize", "GetCode");
}

static size_t options_for(int target, const char **opts, char *arch_opt, size_t arch_len);

static rtc_api *rtc_for(int target) {
  if (target == ATTNGEN__TARGET_SM90) {
    pthread_once(&nvrtc_once, nvrtc_load);
    return &nvrtc;
  }
  if (target == ATTNGEN__TARGET_GFX942) {
    pthread_once(&hiprtc_once, hiprtc_load);
    return &hiprtc;
  }
  return NULL;
}

const char *attngen__jit_arch(int target) {
  return target >= 0 && target < ATTNGEN__TARGET_COUNT ? attngen__target_arch[target] : "?";
}

const char *attngen__jit_emu_arch(void) {
#if defined(__x86_64__)
  return "emu-x86_64";
#elif defined(__aarch64__)
  return "emu-aarch64";
#else
  return "emu-host";
#endif
}

attngen_status attngen__jit_compiler(int target, char *buf, size_t len) {
  rtc_api *a = rtc_for(target);
  if (!a) return attngen__fail(ATTNGEN_STATUS_INVALID_ARGUMENT, "jit: unknown target %d", target);
  if (a->status != ATTNGEN_STATUS_OK) return attngen__fail(a->status, "%s", a->error);
  snprintf(buf, len, "%s %d.%d", a->name, a->major, a->minor);
  return ATTNGEN_STATUS_OK;
}

attngen_status attngen__jit_compiler_library(int target, char *buf, size_t len) {
  rtc_api *a = rtc_for(target);
  if (!a) return attngen__fail(ATTNGEN_STATUS_INVALID_ARGUMENT, "jit: unknown target %d", target);
  if (a->status != ATTNGEN_STATUS_OK) return attngen__fail(a->status, "%s", a->error);
  snprintf(buf, len, "%s", a->path);
  return ATTNGEN_STATUS_OK;
}

size_t attngen__jit_options(int target, const char **opts, size_t max, char *arch_opt,
                            size_t arch_len) {
  const char *all[8];
  size_t n = options_for(target, all, arch_opt, arch_len);
  for (size_t i = 0; i < n && i < max; i++) opts[i] = all[i];
  return n;
}

/* Compiler options per target (the architecture option is written into arch_opt, which
 * must outlive opts); part of the cache key. gfx942: -ffp-contract=off as the AOT build
 * (cmake/kernels.cmake), so a JIT-compiled variant is instruction for instruction the
 * hipcc-compiled one (hiprtc's default contracts a*b+c into FMAs: other instructions, other
 * registers, other bits); tests/test_rocm.c compares the two. */
static size_t options_for(int target, const char **opts, char *arch_opt, size_t arch_len) {
  size_t n = 0;
  if (target == ATTNGEN__TARGET_SM90) {
    snprintf(arch_opt, arch_len, "--gpu-architecture=%s", attngen__jit_arch(target));
    opts[n++] = arch_opt;
    opts[n++] = "-default-device";
    opts[n++] = "--std=c++17";
  } else {
    snprintf(arch_opt, arch_len, "--offload-arch=%s", attngen__jit_arch(target));
    opts[n++] = arch_opt;
    opts[n++] = "-O3";
    opts[n++] = "-std=c++17";
    opts[n++] = "-ffp-contract=off";
  }
  return n;
}

static unsigned long compile_count;

unsigned long attngen__jit_compile_count(void) {
  return __atomic_load_n(&compile_count, __ATOMIC_SEQ_CST);
}

int attngen__jit_enabled(void) {
  const char *s = getenv("ATTNGEN_JIT");
  return !(s && strcmp(s, "0") == 0);
}

static attngen_status rtc_compile(rtc_api *a, const char *name, const char *source,
                                  const char **opts, size_t nopts, void **image, size_t *size) {
  rtc_program p = NULL;
  char file[160];
  snprintf(file, sizeof file, "%s.%s", name, a == &nvrtc ? "cu" : "hip");
  rtc_result r = a->create(&p, source, file, 0, NULL, NULL);
  if (r != 0)
    return attngen__fail(ATTNGEN_STATUS_JIT_FAILED, "%s: cannot create program %s: %s", a->name,
                         name, a->error_string(r));
  attngen_status st = ATTNGEN_STATUS_OK;
  r = a->compile(p, (int)nopts, opts);
  if (r != 0) {
    size_t n = 0;
    char *log = NULL;
    if (a->log_size(p, &n) == 0 && n > 0 && (log = malloc(n + 1)) != NULL) {
      if (a->log(p, log) != 0) log[0] = 0;
      log[n] = 0;
    }
    st = attngen__fail(ATTNGEN_STATUS_JIT_FAILED, "%s: compiling %s failed: %s\n%s", a->name, name,
                       a->error_string(r), log ? log : "(no log)");
    free(log);
  } else {
    size_t n = 0;
    char *code = NULL;
    if (a->code_size(p, &n) != 0 || n == 0 || !(code = malloc(n)) || a->code(p, code) != 0) {
      free(code);
      st = attngen__fail(ATTNGEN_STATUS_JIT_FAILED, "%s: no binary for %s", a->name, name);
    } else {
      *image = code;
      *size = n;
    }
  }
  a->destroy(&p);
  return st;
}

/* ---- process-wide memory cache --------------------------------------------------------- */

typedef struct mem_entry {
  uint64_t key;
  void *image;
  size_t size;
  struct mem_entry *next;
} mem_entry;

static pthread_mutex_t mem_mutex = PTHREAD_MUTEX_INITIALIZER;
static mem_entry *mem_head;
static int readonly_notice_given;

static int mem_get(uint64_t key, void **image, size_t *size) {
  int found = 0;
  pthread_mutex_lock(&mem_mutex);
  for (mem_entry *e = mem_head; e; e = e->next) {
    if (e->key != key) continue;
    *image = malloc(e->size);
    if (*image) {
      memcpy(*image, e->image, e->size);
      *size = e->size;
      found = 1;
    }
    break;
  }
  pthread_mutex_unlock(&mem_mutex);
  return found;
}

static void mem_put(uint64_t key, const void *image, size_t size) {
  mem_entry *e = calloc(1, sizeof *e);
  void *copy = malloc(size);
  if (!e || !copy) {
    free(e);
    free(copy);
    return;
  }
  memcpy(copy, image, size);
  e->key = key;
  e->image = copy;
  e->size = size;
  pthread_mutex_lock(&mem_mutex);
  for (mem_entry *x = mem_head; x; x = x->next) {
    if (x->key == key) { /* another thread was first */
      pthread_mutex_unlock(&mem_mutex);
      free(copy);
      free(e);
      return;
    }
  }
  e->next = mem_head;
  mem_head = e;
  pthread_mutex_unlock(&mem_mutex);
}

void attngen__jit_forget_memory(void) {
  pthread_mutex_lock(&mem_mutex);
  mem_entry *e = mem_head;
  mem_head = NULL;
  readonly_notice_given = 0;
  pthread_mutex_unlock(&mem_mutex);
  while (e) {
    mem_entry *next = e->next;
    free(e->image);
    free(e);
    e = next;
  }
}

static void readonly_notice(const char *dir, const char *why) {
  pthread_mutex_lock(&mem_mutex);
  int first = !readonly_notice_given;
  readonly_notice_given = 1;
  pthread_mutex_unlock(&mem_mutex);
  if (first)
    attngen__log(ATTNGEN__LOG_NOTICE,
                 "jit: cache directory %s is not writable (%s); compiled kernels are kept in "
                 "memory only", dir, why);
}

/* ---- the request ------------------------------------------------------------------------ */

/* The compiler of one request: a run-time compiler library, or the emulator's host clang++. */
typedef struct jit_compiler {
  rtc_api *rtc;          /* NULL: the host compiler */
  attngen__host_cc host; /* rtc == NULL */
  char label[64];        /* "hiprtc 9.0", "clang++ 19.1.7": logs and cache metadata */
  const char *arch;      /* "sm_90a", "gfx942", "emu-x86_64" */
} jit_compiler;

static void hash_input(void *user, const char *name, const char *data) {
  uint64_t *h = user;
  *h = attngen__fnv1a64_str(attngen__fnv1a64_str(*h, name), data);
}

/* The emulator's key: the compiler's identity (its --version line and the file it resolves
 * to), the flags, the embedded headers and shim the object is compiled from, the source. */
static uint64_t emu_cache_key(const attngen__host_cc *cc, int target, const char *name,
                              const char *source) {
  uint64_t h = attngen__fnv1a64_str(ATTNGEN__FNV64_INIT, "attngen-emu-jit/1");
  h = attngen__fnv1a64_str(h, ATTNGEN_GENERATOR_VERSION);
  h = attngen__fnv1a64_str(h, attngen__target_name(target));
  h = attngen__fnv1a64_str(h, attngen__jit_emu_arch());
  h = attngen__fnv1a64_str(h, cc->version);
  h = attngen__fnv1a64_str(h, cc->real);
  const char *flags[32];
  size_t n = attngen__host_cc_flags(flags, 32);
  for (size_t i = 0; i < n && i < 32; i++) h = attngen__fnv1a64_str(h, flags[i]);
  attngen__host_cc_inputs(hash_input, &h);
  h = attngen__fnv1a64_str(h, name);
  return attngen__fnv1a64_str(h, source);
}

static uint64_t cache_key(const rtc_api *a, int target, const char *name, const char *source,
                          const char **opts, size_t nopts) {
  char version[32];
  snprintf(version, sizeof version, "%d.%d", a->major, a->minor);
  uint64_t h = attngen__fnv1a64_str(ATTNGEN__FNV64_INIT, "attngen-jit/1");
  h = attngen__fnv1a64_str(h, ATTNGEN_GENERATOR_VERSION);
  h = attngen__fnv1a64_str(h, attngen__target_name(target));
  h = attngen__fnv1a64_str(h, attngen__jit_arch(target));
  h = attngen__fnv1a64_str(h, a->name);
  h = attngen__fnv1a64_str(h, version);
  h = attngen__fnv1a64_str(h, a->ident);
  for (size_t i = 0; i < nopts; i++) h = attngen__fnv1a64_str(h, opts[i]);
  h = attngen__fnv1a64_str(h, name);
  return attngen__fnv1a64_str(h, source);
}

static attngen_status compile_and_store(const jit_compiler *jc, const attngen__jit_request *req,
                                        const char *source, const char **opts, size_t nopts,
                                        uint64_t key, const char *dir, attngen__jit_result *out) {
  const char *arch = jc->arch;
  attngen__log(ATTNGEN__LOG_NOTICE, "jit: compiling %s for %s with %s ...", req->name, arch,
               jc->label);
  double t0 = attngen__now();
  attngen_status st =
      jc->rtc ? rtc_compile(jc->rtc, req->name, source, opts, nopts, &out->image, &out->size)
              : attngen__host_cc_compile(&jc->host, req->name, source, &out->image, &out->size);
  double secs = attngen__now() - t0;
  if (st != ATTNGEN_STATUS_OK) {
    attngen__log(ATTNGEN__LOG_NOTICE, "jit: compiling %s for %s failed after %.2f s", req->name,
                 arch, secs);
    return st;
  }
  __atomic_fetch_add(&compile_count, 1, __ATOMIC_SEQ_CST);
  out->origin = ATTNGEN__JIT_COMPILED;
  out->seconds = secs;
  const char *where = "memory only";
  char stored[4300] = "";
  if (dir) {
    attngen__cache_meta meta;
    memset(&meta, 0, sizeof meta);
    snprintf(meta.variant, sizeof meta.variant, "%s", req->name);
    snprintf(meta.target, sizeof meta.target, "%s", attngen__target_name(req->target));
    snprintf(meta.arch, sizeof meta.arch, "%s", arch);
    snprintf(meta.compiler, sizeof meta.compiler, "%s", jc->label);
    meta.created = (int64_t)time(NULL);
    if (attngen__cache_write(dir, key, out->image, out->size, &meta) == ATTNGEN_STATUS_OK) {
      snprintf(stored, sizeof stored, "%s/%016llx%s", dir, (unsigned long long)key,
               ATTNGEN__CACHE_EXT);
      where = stored;
    } else {
      readonly_notice(dir, attngen_last_error());
      attngen__clear_error();
    }
  }
  attngen__log(ATTNGEN__LOG_NOTICE, "jit: compiled %s for %s in %.2f s (%zu bytes, %s)", req->name,
               arch, secs, out->size, where);
  mem_put(key, out->image, out->size);
  return ATTNGEN_STATUS_OK;
}

attngen_status attngen__jit_get(const attngen__jit_request *req, attngen__jit_result *out) {
  memset(out, 0, sizeof *out);
  if (!req || !req->name)
    return attngen__fail(ATTNGEN_STATUS_INVALID_ARGUMENT, "jit: request without a variant name");
  /* Without a context's environment (attngen compile, tests) the environment is read and
   * checked now, with the same rule as attngen_create: ATTNGEN_JIT=yes or
   * ATTNGEN_JIT_LOCK_TIMEOUT=nan fail instead of being ignored. */
  attngen__env now;
  const attngen__env *env = req->env;
  if (!env) {
    attngen_status est = attngen__env_read(&now);
    if (est != ATTNGEN_STATUS_OK) return est;
    env = &now;
  }
  if (!env->jit)
    return attngen__fail(ATTNGEN_STATUS_JIT_DISABLED,
                         "variant %s is not embedded in the library and ATTNGEN_JIT=0 allows "
                         "embedded (AOT) variants only (unset ATTNGEN_JIT or pick an embedded "
                         "variant)", req->name);
  jit_compiler *jc = malloc(sizeof *jc);
  if (!jc) return attngen__fail(ATTNGEN_STATUS_OUT_OF_MEMORY, "jit: out of memory");
  memset(jc, 0, sizeof *jc);
  attngen_status st = ATTNGEN_STATUS_OK;
  if (req->emu) {
    if (req->target != ATTNGEN__TARGET_GFX942)
      st = attngen__fail(ATTNGEN_STATUS_INVALID_ARGUMENT, "jit: the emulator runs %s kernels only",
                         attngen__target_name(ATTNGEN__TARGET_GFX942));
    else if ((st = attngen__host_cc_find(&jc->host)) != ATTNGEN_STATUS_OK) {
      char why[1200];
      snprintf(why, sizeof why, "%s", attngen_last_error());
      attngen__fail(st, "variant %s is not built into the emulator and cannot be JIT-compiled: %s",
                    req->name, why);
    }
    snprintf(jc->label, sizeof jc->label, "clang++ %s", jc->host.short_ver);
    jc->arch = attngen__jit_emu_arch();
  } else {
    jc->rtc = rtc_for(req->target);
    if (!jc->rtc)
      st = attngen__fail(ATTNGEN_STATUS_INVALID_ARGUMENT, "jit: unknown target %d", req->target);
    else if (jc->rtc->status != ATTNGEN_STATUS_OK)
      st = attngen__fail(jc->rtc->status, "%s", jc->rtc->error);
    else
      snprintf(jc->label, sizeof jc->label, "%s %d.%d", jc->rtc->name, jc->rtc->major,
               jc->rtc->minor);
    jc->arch = attngen__jit_arch(req->target);
  }
  if (st != ATTNGEN_STATUS_OK) {
    free(jc);
    return st;
  }

  char *generated = NULL, *gen_error = NULL;
  const char *source = req->source;
  if (!source) {
    if (attngen__gen_source(req->name, &generated, &gen_error) != 0) {
      st = attngen__fail(ATTNGEN_STATUS_JIT_FAILED, "jit: cannot generate %s: %s", req->name,
                         gen_error ? gen_error : "unknown error");
      free(gen_error);
      free(jc);
      return st;
    }
    source = generated;
  }
  const char *opts[8];
  char arch_opt[64];
  size_t nopts = jc->rtc ? options_for(req->target, opts, arch_opt, sizeof arch_opt) : 0;
  uint64_t key = jc->rtc ? cache_key(jc->rtc, req->target, req->name, source, opts, nopts)
                         : emu_cache_key(&jc->host, req->target, req->name, source);
  out->key = key;

  if (mem_get(key, &out->image, &out->size)) {
    out->origin = ATTNGEN__JIT_MEMORY;
    goto done;
  }
  char dir_buf[4096];
  const char *dir = attngen__cache_dir(dir_buf, sizeof dir_buf) == 0 ? dir_buf : NULL;
  if (!dir) readonly_notice("(none)", "neither ATTNGEN_CACHE_DIR, XDG_CACHE_HOME nor HOME is set");
  char why[256];
  if (dir) {
    /* Entries appear by rename, so reading without the lock is safe. */
    attngen__cache_result cr = attngen__cache_read(dir, key, &out->image, &out->size, NULL, why,
                                                   sizeof why);
    if (cr == ATTNGEN__CACHE_HIT) {
      out->origin = ATTNGEN__JIT_DISK;
      attngen__log(ATTNGEN__LOG_INFO, "jit: %s for %s loaded from the cache (%016llx)", req->name,
                   jc->arch, (unsigned long long)key);
      mem_put(key, out->image, out->size);
      goto done;
    }
  }
  const double timeout = req->lock_timeout_s > 0 ? req->lock_timeout_s : env->jit_lock_timeout_s;
  char lock_why[4400];
  int lock = dir ? attngen__cache_lock(dir, key, timeout, lock_why, sizeof lock_why) : -1;
  if (dir && lock < 0 && errno == ETIMEDOUT) {
    /* Another process holds the key's lock and neither finishes nor dies (a stopped or hung
     * compile): fail clearly instead of waiting for ever. */
    st = attngen__fail(ATTNGEN_STATUS_JIT_FAILED,
                       "jit: %s for %s: %s (is that process stopped? end it, or remove the "
                       "lock file; ATTNGEN_JIT_LOCK_TIMEOUT sets the wait in seconds)",
                       req->name, jc->arch, lock_why);
    goto done;
  }
  if (dir && lock < 0) {
    readonly_notice(dir, strerror(errno));
    dir = NULL;
  }
  if (lock >= 0) {
    /* Another process may have compiled it while we waited for the lock. */
    attngen__cache_result cr = attngen__cache_read(dir, key, &out->image, &out->size, NULL, why,
                                                   sizeof why);
    if (cr == ATTNGEN__CACHE_HIT) {
      attngen__cache_unlock(lock);
      out->origin = ATTNGEN__JIT_DISK;
      mem_put(key, out->image, out->size);
      goto done;
    }
    if (cr == ATTNGEN__CACHE_CORRUPT)
      attngen__log(ATTNGEN__LOG_NOTICE, "jit: cache entry %s/%016llx%s is corrupt (%s); rebuilding",
                   dir, (unsigned long long)key, ATTNGEN__CACHE_EXT, why);
  }
  st = compile_and_store(jc, req, source, opts, nopts, key, dir, out);
  attngen__cache_unlock(lock);
done:
  free(generated);
  free(jc);
  return st;
}
