/* fsutil.c: see fsutil.h. */
#include "fsutil.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define PATH_BYTES 4096

int attngen__fs_mkdir_p(const char *dir, unsigned mode) {
  char buf[PATH_BYTES];
  if (!dir || !*dir) {
    errno = ENOENT;
    return -1;
  }
  if (snprintf(buf, sizeof buf, "%s", dir) >= (int)sizeof buf) {
    errno = ENAMETOOLONG;
    return -1;
  }
  for (char *p = buf + 1; *p; p++) {
    if (*p != '/') continue;
    *p = 0;
    if (mkdir(buf, (mode_t)mode) != 0 && errno != EEXIST) return -1;
    *p = '/';
  }
  if (mkdir(buf, (mode_t)mode) != 0 && errno != EEXIST) return -1;
  struct stat st;
  if (stat(buf, &st) != 0) return -1;
  if (!S_ISDIR(st.st_mode)) {
    errno = ENOTDIR;
    return -1;
  }
  return 0;
}

int attngen__fs_mkdir_parent(const char *path, unsigned mode) {
  char buf[PATH_BYTES];
  if (snprintf(buf, sizeof buf, "%s", path) >= (int)sizeof buf) {
    errno = ENAMETOOLONG;
    return -1;
  }
  char *slash = strrchr(buf, '/');
  if (!slash || slash == buf) return 0;
  *slash = 0;
  return attngen__fs_mkdir_p(buf, mode);
}

int attngen__fs_read_file(const char *path, size_t max_bytes, char **data, size_t *len) {
  *data = NULL;
  *len = 0;
  FILE *f = fopen(path, "rb");
  if (!f) return -1;
  size_t cap = 4096, n = 0;
  char *buf = malloc(cap + 1);
  int e = buf ? 0 : ENOMEM;
  while (!e) {
    if (n == cap) {
      if (max_bytes && cap >= max_bytes) {
        e = EFBIG;
        break;
      }
      if (cap > SIZE_MAX / 2 - 1) {
        e = ENOMEM;
        break;
      }
      char *grown = realloc(buf, cap * 2 + 1);
      if (!grown) {
        e = ENOMEM;
        break;
      }
      buf = grown;
      cap *= 2;
    }
    size_t got = fread(buf + n, 1, cap - n, f);
    n += got;
    if (got == 0) {
      if (ferror(f)) e = errno ? errno : EIO;
      break;
    }
  }
  fclose(f);
  if (!e && max_bytes && n > max_bytes) e = EFBIG;
  if (e) {
    free(buf);
    errno = e;
    return -1;
  }
  buf[n] = 0;
  *data = buf;
  *len = n;
  return 0;
}

static int write_all(int fd, const void *data, size_t n) {
  const unsigned char *p = data;
  while (n) {
    ssize_t k = write(fd, p, n);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) {
      if (k == 0) errno = EIO;
      return -1;
    }
    p += k;
    n -= (size_t)k;
  }
  return 0;
}

int attngen__fs_write_atomic(const char *path, const void *data, size_t len, int sync) {
  static unsigned counter;
  char tmp[PATH_BYTES + 64];
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  if (snprintf(tmp, sizeof tmp, "%s.tmp.%ld.%u.%lx", path, (long)getpid(),
               __atomic_fetch_add(&counter, 1, __ATOMIC_RELAXED),
               (unsigned long)ts.tv_nsec) >= (int)sizeof tmp) {
    errno = ENAMETOOLONG;
    return -1;
  }
  int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) return -1;
  int ok = write_all(fd, data, len) == 0 && (!sync || fsync(fd) == 0);
  int e = errno;
  if (close(fd) != 0 && ok) {
    ok = 0;
    e = errno;
  }
  if (ok && rename(tmp, path) != 0) {
    ok = 0;
    e = errno;
  }
  if (!ok) {
    unlink(tmp);
    errno = e;
    return -1;
  }
  return 0;
}

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* "process 123 (stopped)" from the pid the holder wrote into the lock file. */
static void describe_holder(int fd, char *buf, size_t len) {
  char text[32] = "";
  struct stat st;
  ssize_t n = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) ? pread(fd, text, sizeof text - 1, 0) : 0;
  long pid = n > 0 ? strtol(text, NULL, 10) : 0;
  if (pid <= 0) {
    snprintf(buf, len, "an unknown process");
    return;
  }
  char stat_path[64], stat_text[512] = "";
  snprintf(stat_path, sizeof stat_path, "/proc/%ld/stat", pid);
  FILE *f = fopen(stat_path, "r");
  const char *state = "";
  if (f) {
    size_t got = fread(stat_text, 1, sizeof stat_text - 1, f);
    stat_text[got] = 0;
    fclose(f);
    const char *close_paren = strrchr(stat_text, ')');
    if (close_paren && close_paren[1] == ' ') {
      switch (close_paren[2]) {
        case 'T': case 't': state = " (stopped)"; break;
        case 'Z': state = " (a zombie)"; break;
        default: state = " (running)"; break;
      }
    }
  }
  snprintf(buf, len, "process %ld%s", pid, state);
}

int attngen__fs_lock(const char *path, const attngen__fs_lock_opts *opts, char *why,
                     size_t why_len) {
  if (why && why_len) why[0] = 0;
  const int directory = opts && opts->directory;
  int fd = directory ? open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
                     : open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return -1;
  const double timeout = opts ? opts->timeout_s : 0;
  const double notice = opts && opts->notice_s > 0 ? opts->notice_s : 2.0;
  const double t0 = now_s();
  int noticed = 0;
  for (;;) {
    if (flock(fd, LOCK_EX | LOCK_NB) == 0) break;
    if (errno == EINTR) continue;
    if (errno != EWOULDBLOCK) {
      int e = errno;
      close(fd);
      errno = e;
      return -1;
    }
    const double waited = now_s() - t0;
    if (waited >= timeout) {
      char holder[128];
      describe_holder(fd, holder, sizeof holder);
      if (why && why_len)
        snprintf(why, why_len, "lock file %s is held by %s; gave up after %.1f s", path, holder,
                 waited);
      close(fd);
      errno = ETIMEDOUT;
      return -1;
    }
    if (!noticed && waited >= notice && opts && opts->notify) {
      char holder[128], msg[PATH_BYTES + 256];
      describe_holder(fd, holder, sizeof holder);
      snprintf(msg, sizeof msg, "waiting for lock file %s, held by %s (giving up after %.0f s)",
               path, holder, timeout);
      opts->notify(opts->user, msg);
      noticed = 1;
    }
    /* 1 ms at first, growing to 50 ms: short waits stay short, long ones cost nothing. */
    double step = waited < 0.05 ? 0.001 : waited < 1 ? 0.01 : 0.05;
    struct timespec ts = {0, (long)(step * 1e9)};
    nanosleep(&ts, NULL);
  }
  if (!directory) { /* best effort: a waiter names the holder from it */
    char pid[32];
    int n = snprintf(pid, sizeof pid, "%ld\n", (long)getpid());
    if (ftruncate(fd, 0) == 0 && pwrite(fd, pid, (size_t)n, 0) == n) {
    }
  }
  return fd;
}

void attngen__fs_unlock(int fd) {
  if (fd < 0) return;
  flock(fd, LOCK_UN);
  close(fd);
}
