/* jit_host.c: see jit_host.h. */
#define _GNU_SOURCE /* environ, mkdtemp */
#include "jit_host.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "embedded.h"
#include "fsutil.h"
#include "status.h"

extern char **environ;

/* The clang++-19 cmake found (cmake/emu.cmake passes it; empty when it found none). */
#ifndef ATTNGEN_EMU_BUILD_CLANGXX
#define ATTNGEN_EMU_BUILD_CLANGXX ""
#endif
#define FALLBACK_CLANGXX "/usr/lib/llvm-19/bin/clang++"
#define WANT_VERSION "clang version 19."

/* The embedded files a JIT object is compiled from (besides the variant's source), each
 * written into the compile directory under its base name. */
static const char *const inputs[] = {
  "runtime/emu/wrappers_emu.h", "runtime/emu/emu_core.h", "runtime/emu/emu_jit_api.h",
  "runtime/emu/emu_jit_shim.cpp",
};
#define FLAGS_FILE "runtime/emu/kernel_flags.txt"
#define WRAPPERS_BASE "wrappers_emu.h"
#define SHIM_BASE "emu_jit_shim.cpp"

/* The table CMakeLists.txt embeds (cmake/emu.cmake: ATTNGEN_EMU_JIT_FILES). */
extern const attngen__embedded_file attngen__emu_jit_files[];
extern const size_t attngen__emu_jit_files_count;

static const attngen__embedded_file *embedded_find(const char *name) {
  for (size_t i = 0; i < attngen__emu_jit_files_count; i++)
    if (strcmp(attngen__emu_jit_files[i].name, name) == 0) return &attngen__emu_jit_files[i];
  return NULL;
}

static const char *base_name(const char *path) {
  const char *s = strrchr(path, '/');
  return s ? s + 1 : path;
}

/* ---- flags ------------------------------------------------------------------------------ */

static pthread_once_t flags_once = PTHREAD_ONCE_INIT;
static const char *flag_list[32];
static size_t flag_count;
static char *flag_text;

/* kernel_flags.txt: one flag a line; blank lines and lines starting with # are skipped. */
static void flags_load(void) {
  const attngen__embedded_file *f = embedded_find(FLAGS_FILE);
  if (!f || !(flag_text = strdup((const char *)f->data))) return;
  for (char *line = strtok(flag_text, "\n"); line && flag_count < 28; line = strtok(NULL, "\n")) {
    while (*line == ' ') line++;
    size_t n = strlen(line);
    while (n && (line[n - 1] == ' ' || line[n - 1] == '\r')) line[--n] = 0;
    if (n && line[0] != '#') flag_list[flag_count++] = line;
  }
#if defined(ATTNGEN_EMU_ASAN) && ATTNGEN_EMU_ASAN
  /* cmake/emu.cmake adds the same two to the built-in kernels of an ASan build */
  flag_list[flag_count++] = "-fsanitize=address";
  flag_list[flag_count++] = "-fno-omit-frame-pointer";
#endif
}

size_t attngen__host_cc_flags(const char **flags, size_t max) {
  pthread_once(&flags_once, flags_load);
  for (size_t i = 0; i < flag_count && i < max; i++) flags[i] = flag_list[i];
  return flag_count;
}

void attngen__host_cc_inputs(void (*fn)(void *user, const char *name, const char *data),
                             void *user) {
  for (size_t i = 0; i < sizeof inputs / sizeof inputs[0]; i++) {
    const attngen__embedded_file *f = embedded_find(inputs[i]);
    fn(user, inputs[i], f ? (const char *)f->data : "");
  }
}

/* ---- running the compiler --------------------------------------------------------------- */

/* Runs argv (argv[0] an absolute path) with stdin from /dev/null and stdout + stderr into
 * out (the first out_len - 1 bytes, NUL-terminated). Returns the exit status (0 = success),
 * 127 when it could not be started (errno's text in out), or 128 + signal. */
static int run(char *const argv[], char *out, size_t out_len) {
  int fds[2];
  out[0] = 0;
  if (pipe2(fds, O_CLOEXEC) != 0) {
    snprintf(out, out_len, "pipe: %s", strerror(errno));
    return 127;
  }
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&fa, fds[1], 1);
  posix_spawn_file_actions_adddup2(&fa, fds[1], 2);
  pid_t pid;
  int err = posix_spawn(&pid, argv[0], &fa, NULL, argv, environ);
  posix_spawn_file_actions_destroy(&fa);
  close(fds[1]);
  if (err != 0) {
    close(fds[0]);
    snprintf(out, out_len, "cannot run %s: %s", argv[0], strerror(err));
    return 127;
  }
  size_t used = 0;
  char sink[4096];
  for (;;) {
    char *dst = used + 1 < out_len ? out + used : sink;
    size_t room = used + 1 < out_len ? out_len - 1 - used : sizeof sink;
    ssize_t n = read(fds[0], dst, room);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    if (dst != sink) used += (size_t)n;
  }
  out[used] = 0;
  close(fds[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) return 127;
  }
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  return 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

/* ---- finding the compiler ----------------------------------------------------------------- */

/* Identities already established in this process (running --version costs ~20 ms). */
typedef struct known_cc {
  attngen__host_cc cc;
  int ok;
  char why[600];
} known_cc;
static pthread_mutex_t known_mutex = PTHREAD_MUTEX_INITIALIZER;
static known_cc known[4];
static size_t known_count;

static int executable(const char *path) {
  struct stat sb;
  return path && path[0] == '/' && stat(path, &sb) == 0 && S_ISREG(sb.st_mode) &&
         access(path, X_OK) == 0;
}

/* clang++-19 in a PATH directory, into buf; 0 when none. */
static int on_path(char *buf, size_t len) {
  const char *path = getenv("PATH");
  if (!path) return 0;
  const char *p = path;
  while (*p) {
    const char *end = strchr(p, ':');
    size_t n = end ? (size_t)(end - p) : strlen(p);
    if (n > 0 && n + sizeof "/clang++-19" < len) {
      snprintf(buf, len, "%.*s/clang++-19", (int)n, p);
      if (executable(buf)) return 1;
    }
    if (!end) break;
    p = end + 1;
  }
  return 0;
}

/* Runs `path --version` and checks that it is clang 19; fills k. */
static void identify(const char *path, known_cc *k) {
  memset(k, 0, sizeof *k);
  snprintf(k->cc.path, sizeof k->cc.path, "%s", path);
  char *real = realpath(path, NULL);
  snprintf(k->cc.real, sizeof k->cc.real, "%s", real ? real : path);
  free(real);
  char out[2048];
  char *argv[] = {(char *)path, "--version", NULL};
  int rc = run(argv, out, sizeof out);
  char *nl = strchr(out, '\n');
  if (nl) *nl = 0;
  if (rc != 0) {
    snprintf(k->why, sizeof k->why, "%s --version failed (status %d): %.300s", path, rc, out);
    return;
  }
  const char *v = strstr(out, "clang version ");
  if (!v || strncmp(v, WANT_VERSION, strlen(WANT_VERSION)) != 0) {
    snprintf(k->why, sizeof k->why,
             "%s is not clang 19 (it says \"%.200s\"); the emulator's JIT compiles with the "
             "compiler of the built-in variants, clang++ 19", path, out);
    return;
  }
  snprintf(k->cc.version, sizeof k->cc.version, "%s", out);
  v += strlen("clang version ");
  size_t n = strspn(v, "0123456789.");
  snprintf(k->cc.short_ver, sizeof k->cc.short_ver, "%.*s", (int)(n < 31 ? n : 31), v);
  k->ok = 1;
}

attngen_status attngen__host_cc_find(attngen__host_cc *out) {
  memset(out, 0, sizeof *out);
  char cand[4096] = "", tried[1500] = "";
  const char *env = getenv("ATTNGEN_EMU_CLANG");
  if (env && *env) {
    if (!executable(env))
      return attngen__fail(ATTNGEN_STATUS_NO_VARIANT,
                           "emu: the emulator's JIT compiler ATTNGEN_EMU_CLANG=%s is not an "
                           "executable file (give the absolute path of clang++ 19, or unset it "
                           "to search PATH for clang++-19)", env);
    snprintf(cand, sizeof cand, "%s", env);
  } else if (on_path(cand, sizeof cand)) {
    /* cand is PATH's clang++-19 */
  } else if (executable(ATTNGEN_EMU_BUILD_CLANGXX)) {
    snprintf(cand, sizeof cand, "%s", ATTNGEN_EMU_BUILD_CLANGXX);
  } else if (executable(FALLBACK_CLANGXX)) {
    snprintf(cand, sizeof cand, "%s", FALLBACK_CLANGXX);
  } else {
    snprintf(tried, sizeof tried, "clang++-19 on PATH, %s%s" FALLBACK_CLANGXX,
             ATTNGEN_EMU_BUILD_CLANGXX[0] ? ATTNGEN_EMU_BUILD_CLANGXX : "",
             ATTNGEN_EMU_BUILD_CLANGXX[0] ? " (the build's), " : "");
    return attngen__fail(ATTNGEN_STATUS_NO_VARIANT,
                         "emu: the emulator's JIT needs clang++ 19 and none was found (tried "
                         "%s); install clang-19 (Debian: apt-get install clang-19) or set "
                         "ATTNGEN_EMU_CLANG to its path", tried);
  }
  pthread_mutex_lock(&known_mutex);
  known_cc *k = NULL;
  for (size_t i = 0; i < known_count; i++)
    if (strcmp(known[i].cc.path, cand) == 0) k = &known[i];
  if (!k) {
    k = &known[known_count < 4 ? known_count++ : 3];
    identify(cand, k);
  }
  known_cc copy = *k;
  pthread_mutex_unlock(&known_mutex);
  if (!copy.ok)
    return attngen__fail(ATTNGEN_STATUS_NO_VARIANT, "emu: the emulator's JIT compiler: %s",
                         copy.why);
  *out = copy.cc;
  return ATTNGEN_STATUS_OK;
}

/* ---- compiling ------------------------------------------------------------------------------ */

static int write_text(const char *dir, const char *base, const char *text) {
  char path[4400];
  snprintf(path, sizeof path, "%s/%s", dir, base);
  FILE *f = fopen(path, "wb");
  if (!f) return -1;
  size_t n = strlen(text);
  int ok = fwrite(text, 1, n, f) == n;
  return fclose(f) == 0 && ok ? 0 : -1;
}

/* Runs one step; on failure sets JIT_FAILED naming the step and the compiler's output. */
static attngen_status step(const char *what, const char *name, char **argv) {
  char out[16384];
  int rc = run(argv, out, sizeof out);
  if (rc == 0) return ATTNGEN_STATUS_OK;
  return attngen__fail(ATTNGEN_STATUS_JIT_FAILED,
                       "emu: %s of %s with %s failed (status %d):\n%s", what, name, argv[0], rc,
                       out[0] ? out : "(no output)");
}

attngen_status attngen__host_cc_compile(const attngen__host_cc *cc, const char *name,
                                        const char *source, void **image, size_t *size) {
  *image = NULL;
  *size = 0;
  const char *tmp = getenv("TMPDIR");
  char dir[4096];
  snprintf(dir, sizeof dir, "%s/attngen-emu-jit-XXXXXX", tmp && *tmp ? tmp : "/tmp");
  if (!mkdtemp(dir)) {
    snprintf(dir, sizeof dir, "/tmp/attngen-emu-jit-XXXXXX");
    if (!mkdtemp(dir))
      return attngen__fail(ATTNGEN_STATUS_JIT_FAILED,
                           "emu: cannot make a compile directory in %s or /tmp: %s",
                           tmp && *tmp ? tmp : "/tmp", strerror(errno));
  }
  attngen_status st = ATTNGEN_STATUS_OK;
  for (size_t i = 0; i < sizeof inputs / sizeof inputs[0] && st == ATTNGEN_STATUS_OK; i++) {
    const attngen__embedded_file *f = embedded_find(inputs[i]);
    if (!f)
      st = attngen__fail(ATTNGEN_STATUS_INTERNAL, "emu: %s is not embedded in the library",
                         inputs[i]);
    else if (write_text(dir, base_name(inputs[i]), (const char *)f->data) != 0)
      st = attngen__fail(ATTNGEN_STATUS_JIT_FAILED, "emu: cannot write %s/%s: %s", dir,
                         base_name(inputs[i]), strerror(errno));
  }
  const char *flags[32];
  const size_t nflags = attngen__host_cc_flags(flags, 32);
  if (st == ATTNGEN_STATUS_OK && nflags == 0)
    st = attngen__fail(ATTNGEN_STATUS_INTERNAL, "emu: " FLAGS_FILE " is not embedded");
  if (st == ATTNGEN_STATUS_OK && write_text(dir, "kernel.hip", source) != 0)
    st = attngen__fail(ATTNGEN_STATUS_JIT_FAILED, "emu: cannot write %s/kernel.hip: %s", dir,
                       strerror(errno));
  char src[4200], kobj[4200], shim[4200], sobj[4200], so[4200], wrappers[4200], inc[4200];
  snprintf(src, sizeof src, "%s/kernel.hip", dir);
  snprintf(kobj, sizeof kobj, "%s/kernel.o", dir);
  snprintf(shim, sizeof shim, "%s/" SHIM_BASE, dir);
  snprintf(sobj, sizeof sobj, "%s/shim.o", dir);
  snprintf(so, sizeof so, "%s/kernel.so", dir);
  snprintf(wrappers, sizeof wrappers, "%s/" WRAPPERS_BASE, dir);
  snprintf(inc, sizeof inc, "-I%s", dir);
  char *argv[48];
  size_t n = 0;
  if (st == ATTNGEN_STATUS_OK) {
    /* the kernel: the built-in kernels' command (cmake/emu.cmake) */
    argv[n++] = (char *)cc->path;
    for (size_t i = 0; i < nflags; i++) argv[n++] = (char *)flags[i];
    argv[n++] = "-include";
    argv[n++] = wrappers;
    argv[n++] = inc;
    argv[n++] = "-c";
    argv[n++] = src;
    argv[n++] = "-o";
    argv[n++] = kobj;
    argv[n] = NULL;
    st = step("compiling", name, argv);
  }
  if (st == ATTNGEN_STATUS_OK) {
    n = 1;
    for (size_t i = 0; i < nflags; i++) argv[n++] = (char *)flags[i];
    argv[n++] = inc;
    argv[n++] = "-c";
    argv[n++] = shim;
    argv[n++] = "-o";
    argv[n++] = sobj;
    argv[n] = NULL;
    st = step("compiling the engine shim", name, argv);
  }
  if (st == ATTNGEN_STATUS_OK) {
    /* No C++ runtime (the flags leave none needed); every symbol resolved inside the object
     * or in libc/libm (-z defs), so a missing shim function fails here, not at dlopen. */
    n = 1;
    argv[n++] = "-shared";
    argv[n++] = "-nostdlib++";
#if defined(ATTNGEN_EMU_ASAN) && ATTNGEN_EMU_ASAN
    argv[n++] = "-fsanitize=address";
#else
    argv[n++] = "-Wl,-z,defs";
#endif
    argv[n++] = "-o";
    argv[n++] = so;
    argv[n++] = kobj;
    argv[n++] = sobj;
    argv[n++] = "-lm";
    argv[n] = NULL;
    st = step("linking", name, argv);
  }
  if (st == ATTNGEN_STATUS_OK) {
    char *data = NULL;
    size_t len = 0;
    if (attngen__fs_read_file(so, 0, &data, &len) != 0 || len == 0) {
      free(data);
      st = attngen__fail(ATTNGEN_STATUS_JIT_FAILED, "emu: cannot read %s: %s", so,
                         strerror(errno));
    } else {
      *image = data;
      *size = len;
    }
  }
  const char *const made[] = {"kernel.hip", "kernel.o", "shim.o", "kernel.so"};
  for (size_t i = 0; i < sizeof made / sizeof made[0]; i++) {
    char p[4400];
    snprintf(p, sizeof p, "%s/%s", dir, made[i]);
    unlink(p);
  }
  for (size_t i = 0; i < sizeof inputs / sizeof inputs[0]; i++) {
    char p[4400];
    snprintf(p, sizeof p, "%s/%s", dir, base_name(inputs[i]));
    unlink(p);
  }
  rmdir(dir);
  return st;
}
