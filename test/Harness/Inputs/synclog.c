/* A test-only LD_PRELOAD library (test/Harness/durable.test): logs, to the
 * file named by $SYNCLOG, the calls that make a write durable, so that a
 * test can check the order of a real write path without strace:
 *   PID create PATH        open(O_CREAT) of a file that did not exist
 *   PID append PATH        open(O_APPEND)
 *   PID fsync PATH         fsync/fdatasync (PATH from /proc/self/fd)
 *   PID syncfs PATH        syncfs: the whole filesystem
 *   PID rename FROM TO
 * Every call goes on to libc's own. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

static void note(const char *what, const char *a, const char *b) {
  const char *log = getenv("SYNCLOG");
  if (!log)
    return;
  char line[3 * PATH_MAX + 64];
  int n = snprintf(line, sizeof line, "%d %s %s%s%s\n", (int)getpid(), what, a,
                   b ? " " : "", b ? b : "");
  if (n <= 0 || n >= (int)sizeof line)
    return;
  /* Raw syscalls: nothing here goes through the interposed functions. */
  int fd = (int)syscall(SYS_openat, AT_FDCWD, log,
                        O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0)
    return;
  (void)syscall(SYS_write, fd, line, (size_t)n);
  (void)syscall(SYS_close, fd);
}

/* An absolute form of PATH (relative to the working directory). */
static void absolute(const char *path, char *out) {
  if (path[0] == '/') {
    snprintf(out, PATH_MAX, "%s", path);
    return;
  }
  char cwd[PATH_MAX];
  if (!getcwd(cwd, sizeof cwd))
    cwd[0] = 0;
  snprintf(out, PATH_MAX, "%s/%s", cwd, path);
}

static void noteOpen(const char *path, int flags, int existed) {
  char p[PATH_MAX];
  absolute(path, p);
  if ((flags & O_CREAT) && !existed)
    note("create", p, NULL);
  if (flags & O_APPEND)
    note("append", p, NULL);
}

#define OPEN_LIKE(name)                                                        \
  int name(const char *path, int flags, ...) {                                 \
    static int (*real)(const char *, int, ...);                                \
    if (!real)                                                                 \
      real = (int (*)(const char *, int, ...))dlsym(RTLD_NEXT, #name);         \
    mode_t mode = 0;                                                           \
    if (flags & (O_CREAT | O_TMPFILE)) {                                       \
      va_list ap;                                                              \
      va_start(ap, flags);                                                     \
      mode = va_arg(ap, mode_t);                                               \
      va_end(ap);                                                              \
    }                                                                          \
    struct stat st;                                                            \
    int existed = (flags & O_CREAT) ? lstat(path, &st) == 0 : 1;               \
    int fd = real(path, flags, mode);                                          \
    if (fd >= 0)                                                               \
      noteOpen(path, flags, existed);                                          \
    return fd;                                                                 \
  }
OPEN_LIKE(open)
OPEN_LIKE(open64)

static void noteSync(int fd) {
  char link[64], p[PATH_MAX];
  snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
  ssize_t n = readlink(link, p, sizeof p - 1);
  if (n <= 0)
    return;
  p[n] = 0;
  note("fsync", p, NULL);
}

#define SYNC_LIKE(name)                                                        \
  int name(int fd) {                                                           \
    static int (*real)(int);                                                   \
    if (!real)                                                                 \
      real = (int (*)(int))dlsym(RTLD_NEXT, #name);                            \
    int rc = real(fd);                                                         \
    if (rc == 0)                                                               \
      noteSync(fd);                                                            \
    return rc;                                                                 \
  }
SYNC_LIKE(fsync)
SYNC_LIKE(fdatasync)

int syncfs(int fd) {
  static int (*real)(int);
  if (!real)
    real = (int (*)(int))dlsym(RTLD_NEXT, "syncfs");
  int rc = real(fd);
  char link[64], p[PATH_MAX];
  snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
  ssize_t n = readlink(link, p, sizeof p - 1);
  if (rc == 0 && n > 0) {
    p[n] = 0;
    note("syncfs", p, NULL);
  }
  return rc;
}

int rename(const char *from, const char *to) {
  static int (*real)(const char *, const char *);
  if (!real)
    real = (int (*)(const char *, const char *))dlsym(RTLD_NEXT, "rename");
  int rc = real(from, to);
  if (rc == 0) {
    char a[PATH_MAX], b[PATH_MAX];
    absolute(from, a);
    absolute(to, b);
    note("rename", a, b);
  }
  return rc;
}
