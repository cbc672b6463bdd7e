/* Where every command's output goes: the one owner of "write this text to
 * -o PATH or standard output".
 *
 * What a destination is decides how it is written:
 *   - "-" (or no -o) is standard output;
 *   - /dev/stdout, /dev/stderr, /dev/fd/N and /proc/self/fd/N are the
 *     process's own descriptor N, written as it is (its file, pipe or
 *     terminal, in its open mode), never replaced;
 *   - a regular file, or a path that does not exist yet, is written
 *     atomically: a temporary file next to it (same directory, so the final
 *     rename stays within one file system), flushed to disk, then renamed
 *     over it. Readers see the old file or the complete new one; a failure
 *     at any step leaves the old file as it was, and an existing file keeps
 *     its mode. A SIGINT/SIGTERM arriving while the temporary file exists
 *     removes it before the process dies;
 *   - a symbolic link is followed and its target written by these rules (a
 *     dangling link creates its target); the link itself stays;
 *   - anything else (character or block device, FIFO, socket) is opened
 *     and written directly: renaming a file over /dev/null would replace it
 *     for the whole machine.
 * Every write error is reported with the destination's name, and the files
 * a command read (cli_read_input notes them) are never written: `-o` naming
 * an input is refused. Standard output is checked once more when the
 * command ends (cli_finish_stdout), so text printed with stdio that could
 * not be written (`> /dev/full`) is an error too. */
/* realpath and readlink are POSIX/XSI. */
#define _XOPEN_SOURCE 700

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "support/arena.h"
#include "cli.h"

/* Symbolic links followed before a destination is refused (Linux's own
 * limit, MAXSYMLINKS). */
#define CLI_OUTPUT_MAX_LINKS 40

/* ---- the inputs a command read ------------------------------------------ */

typedef struct {
  dev_t dev;
  ino_t ino;
} file_id;

static file_id *inputs;
static unsigned num_inputs, cap_inputs;

void cli_note_input(int fd) {
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) return;
  for (unsigned i = 0; i < num_inputs; i++)
    if (inputs[i].dev == st.st_dev && inputs[i].ino == st.st_ino) return;
  if (num_inputs == cap_inputs) {
    cap_inputs = cap_inputs ? 2 * cap_inputs : 8;
    inputs = shard_xrealloc(inputs, cap_inputs * sizeof *inputs);
  }
  inputs[num_inputs++] = (file_id){st.st_dev, st.st_ino};
}

bool cli_output_is_input(const char *path) {
  struct stat st;
  if (!path || strcmp(path, "-") == 0 || stat(path, &st) != 0 || !S_ISREG(st.st_mode)) return false;
  for (unsigned i = 0; i < num_inputs; i++)
    if (inputs[i].dev == st.st_dev && inputs[i].ino == st.st_ino) return true;
  return false;
}

/* ---- writing ------------------------------------------------------------ */

/* The temporary file to remove if we are interrupted; written before the
 * handlers are installed and cleared after they are restored. */
static char pending_tmp[PATH_MAX + 32];
static volatile sig_atomic_t have_pending_tmp;
/* A failure to write standard output was reported already. */
static bool stdout_reported;

static void on_signal(int sig) {
  if (have_pending_tmp) unlink(pending_tmp);
  signal(sig, SIG_DFL);
  raise(sig);
}

static bool write_all(int fd, const char *data, size_t len) {
  while (len > 0) {
    ssize_t n = write(fd, data, len);
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    if (n == 0) {
      errno = EIO;
      return false;
    }
    data += n;
    len -= (size_t)n;
  }
  return true;
}

/* The descriptor a path names without being a file of its own: 1 for
 * /dev/stdout, N for /dev/fd/N or /proc/self/fd/N; -1 otherwise. */
static int fd_alias(const char *path) {
  if (strcmp(path, "/dev/stdout") == 0) return STDOUT_FILENO;
  if (strcmp(path, "/dev/stderr") == 0) return STDERR_FILENO;
  const char *n = NULL;
  if (strncmp(path, "/dev/fd/", 8) == 0) n = path + 8;
  else if (strncmp(path, "/proc/self/fd/", 14) == 0) n = path + 14;
  if (!n || *n < '0' || *n > '9') return -1;
  char *end;
  long fd = strtol(n, &end, 10);
  return *end == '\0' && fd <= INT_MAX ? (int)fd : -1;
}

/* Follows the symbolic links of `path` into `out` until a path that is no
 * link (it may not exist). */
static bool follow_links(const char *path, char *out, size_t cap, int *err) {
  if (strlen(path) >= cap) {
    *err = ENAMETOOLONG;
    return false;
  }
  strcpy(out, path);
  for (int hops = 0;; hops++) {
    struct stat lst;
    if (lstat(out, &lst) != 0 || !S_ISLNK(lst.st_mode)) return true;
    if (hops == CLI_OUTPUT_MAX_LINKS) {
      *err = ELOOP;
      return false;
    }
    char target[PATH_MAX];
    ssize_t n = readlink(out, target, sizeof target - 1);
    if (n < 0) {
      *err = errno;
      return false;
    }
    target[n] = '\0';
    if (target[0] == '/') {
      strcpy(out, target);
      continue;
    }
    /* A relative target is relative to the link's directory. */
    char *slash = strrchr(out, '/');
    size_t dir_len = slash ? (size_t)(slash - out) + 1 : 0;
    if (dir_len + (size_t)n >= cap) {
      *err = ENAMETOOLONG;
      return false;
    }
    memmove(out + dir_len, target, (size_t)n + 1);
  }
}

static bool write_stdout(const char *data, size_t len, shard_buf *err) {
  if (len && (fwrite(data, 1, len, stdout) != len)) {
    shard_buf_printf(err, "cannot write to standard output: %s", strerror(errno));
    return false;
  }
  if (fflush(stdout) != 0) {
    shard_buf_printf(err, "cannot write to standard output: %s", strerror(errno));
    return false;
  }
  return true;
}

/* Writes into what is already there: a device, FIFO or socket, or one of
 * our own descriptors. */
static bool write_direct(const char *path, int fd, const char *data, size_t len, shard_buf *err) {
  bool own = fd >= 0;
  if (own && fd == STDOUT_FILENO && fflush(stdout) != 0) {
    shard_buf_printf(err, "cannot write '%s': %s", path, strerror(errno));
    return false;
  }
  if (!own) {
    fd = open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC);
    if (fd < 0) {
      shard_buf_printf(err, "cannot open '%s': %s", path, strerror(errno));
      return false;
    }
  }
  bool ok = write_all(fd, data, len);
  int saved = errno;
  if (!own && close(fd) != 0 && ok) {
    ok = false;
    saved = errno;
  }
  if (!ok) shard_buf_printf(err, "cannot write '%s': %s", path, strerror(saved));
  return ok;
}

/* Replaces (or creates) the regular file `dest` atomically; `shown` is the
 * name the user gave. */
static bool write_atomic(const char *shown, const char *dest, const struct stat *old, const char *data, size_t len,
                         shard_buf *err) {
  const char *slash = strrchr(dest, '/');
  size_t dir_len = slash ? (size_t)(slash - dest) + 1 : 0;
  if (strlen(dest) + 16 >= sizeof pending_tmp) {
    shard_buf_printf(err, "cannot write '%s': %s", shown, strerror(ENAMETOOLONG));
    return false;
  }
  char tmp[sizeof pending_tmp];
  snprintf(tmp, sizeof tmp, "%.*s.%s.XXXXXX", (int)dir_len, dest, dest + dir_len);

  memcpy(pending_tmp, tmp, sizeof tmp);
  void (*old_int)(int) = signal(SIGINT, on_signal);
  void (*old_term)(int) = signal(SIGTERM, on_signal);
  int fd = mkstemp(tmp);
  memcpy(pending_tmp, tmp, sizeof tmp);
  have_pending_tmp = fd >= 0;

  bool ok = fd >= 0;
  const char *step = "create a temporary file for";
  if (ok) {
    /* mkstemp makes the file 0600; give it the mode the destination had, or
     * what a plain fopen would have given a new file. */
    mode_t mode;
    if (old) {
      mode = old->st_mode & 07777;
    } else {
      mode_t mask = umask(0);
      umask(mask);
      mode = 0666 & ~mask;
    }
    if (fchmod(fd, mode) != 0) {
      ok = false;
      step = "set permissions of";
    }
  }
  if (ok && !write_all(fd, data, len)) {
    ok = false;
    step = "write";
  }
  if (ok && fsync(fd) != 0 && errno != EINVAL && errno != EROFS) {
    ok = false;
    step = "flush";
  }
  int saved = errno;
  if (fd >= 0 && close(fd) != 0 && ok) {
    ok = false;
    step = "close";
    saved = errno;
  }
  if (ok && rename(tmp, dest) != 0) {
    ok = false;
    step = "replace";
    saved = errno;
  }
  if (!ok) {
    if (fd >= 0) unlink(tmp);
    shard_buf_printf(err, "cannot %s '%s': %s", step, shown, strerror(saved));
  }
  have_pending_tmp = 0;
  signal(SIGINT, old_int);
  signal(SIGTERM, old_term);
  return ok;
}

bool cli_write_file(const char *path, const char *data, size_t len, shard_buf *err) {
  if (!path || strcmp(path, "-") == 0) {
    if (!write_stdout(data, len, err)) {
      stdout_reported = true;
      return false;
    }
    return true;
  }
  int fd = fd_alias(path);
  if (fd >= 0) return write_direct(path, fd, data, len, err);

  char dest[PATH_MAX];
  int e = 0;
  if (!follow_links(path, dest, sizeof dest, &e)) {
    shard_buf_printf(err, "cannot write '%s': %s", path, strerror(e));
    return false;
  }
  /* A link may lead to one of our own descriptors (a link to /dev/stdout). */
  fd = fd_alias(dest);
  if (fd >= 0) return write_direct(path, fd, data, len, err);
  struct stat st;
  if (stat(dest, &st) != 0) {
    if (errno != ENOENT) {
      shard_buf_printf(err, "cannot write '%s': %s", path, strerror(errno));
      return false;
    }
    return write_atomic(path, dest, NULL, data, len, err);
  }
  if (S_ISDIR(st.st_mode)) {
    shard_buf_printf(err, "cannot write '%s': %s", path, strerror(EISDIR));
    return false;
  }
  if (S_ISREG(st.st_mode)) return write_atomic(path, dest, &st, data, len, err);
  return write_direct(path, -1, data, len, err);
}

int cli_write_output(const char *cmd, const char *path, const char *data, size_t len) {
  if (path && strcmp(path, "-") != 0 && cli_output_is_input(path))
    return cli_usage_error(cmd, "refusing to overwrite the input file '%s' with -o", path);
  shard_buf err;
  shard_buf_init(&err);
  bool ok = cli_write_file(path, data ? data : "", len, &err);
  if (!ok) fprintf(stderr, "shard %s: error: %s\n", cmd, shard_buf_str(&err));
  shard_buf_free(&err);
  return ok ? CLI_EXIT_OK : CLI_EXIT_INTERNAL;
}

int cli_finish_stdout(const char *cmd, int code) {
  bool failed = ferror(stdout) != 0;
  int saved = failed ? errno : 0;
  errno = 0;
  if (fflush(stdout) != 0) {
    failed = true;
    saved = errno;
  }
  if (!failed) return code;
  if (!stdout_reported)
    fprintf(stderr, "shard %s: error: cannot write to standard output: %s\n", cmd,
            saved ? strerror(saved) : "input/output error");
  stdout_reported = true;
  return CLI_EXIT_INTERNAL;
}
