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
/* realpath and readlink are POSIX/XSI; sync_file_range is Linux's. */
#define _XOPEN_SOURCE 700
#ifdef __linux__
#define _GNU_SOURCE
#endif

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ir/print.h"
#include "support/arena.h"
#include "cli.h"

/* Symbolic links followed before a destination is refused (Linux's own
 * limit, MAXSYMLINKS). */
#define CLI_OUTPUT_MAX_LINKS 40

/* An atomic output's written text is handed to the disk a slice this big
 * at a time while the rest is still being printed, so that the fsync at
 * the end waits for the last slice only, not for the whole file. */
#define CLI_OUTPUT_WRITEBACK_AT ((off_t)1 << 20)

/* ---- the inputs a command read ------------------------------------------ */

typedef struct {
  dev_t dev;
  ino_t ino;
} file_id;

static SHARD_VEC(file_id) inputs;

void cli_note_input(int fd) {
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) return;
  for (uint32_t i = 0; i < inputs.len; i++)
    if (inputs.items[i].dev == st.st_dev && inputs.items[i].ino == st.st_ino) return;
  SHARD_VEC_PUSH(inputs, ((file_id){st.st_dev, st.st_ino}));
}

bool cli_output_is_input(const char *path) {
  struct stat st;
  if (!path || strcmp(path, "-") == 0 || stat(path, &st) != 0 || !S_ISREG(st.st_mode)) return false;
  for (uint32_t i = 0; i < inputs.len; i++)
    if (inputs.items[i].dev == st.st_dev && inputs.items[i].ino == st.st_ino) return true;
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

/* An output being written, in one piece or many (cli_output_open). */
struct cli_output {
  enum { OUT_STDOUT, OUT_DIRECT, OUT_ATOMIC } how;
  const char *shown; /* the name the user gave */
  int fd; /* OUT_DIRECT, OUT_ATOMIC */
  bool own_fd; /* OUT_DIRECT: opened here, closed at the end */
  bool failed;
  const char *step; /* OUT_ATOMIC: what failed ("write", "flush", ...) */
  int err; /* its errno */
  const char *cmd; /* for messages: "shard CMD: error: ..." */
  char tmp[sizeof pending_tmp]; /* OUT_ATOMIC: the temporary file */
  char dest[PATH_MAX]; /* OUT_ATOMIC: what it replaces */
  void (*old_int)(int), (*old_term)(int);
  shard_buf_sink sink;
  off_t written, synced; /* OUT_ATOMIC: bytes written; of them, handed to the disk */
};

static void S_fail(cli_output *o, const char *step, int err) {
  if (o->failed) return;
  o->failed = true;
  o->step = step;
  o->err = err;
}

/* Writes into what is already there (a device, FIFO or socket, or one of
 * our own descriptors): opens it. */
static bool S_open_direct(cli_output *o, const char *path, int fd, shard_buf *err) {
  o->how = OUT_DIRECT;
  o->own_fd = fd < 0;
  if (fd == STDOUT_FILENO && fflush(stdout) != 0) {
    shard_buf_printf(err, "cannot write '%s': %s", path, strerror(errno));
    return false;
  }
  if (fd < 0) {
    fd = open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC);
    if (fd < 0) {
      shard_buf_printf(err, "cannot open '%s': %s", path, strerror(errno));
      return false;
    }
  }
  o->fd = fd;
  return true;
}

/* Replaces (or creates) the regular file `dest` atomically: the temporary
 * file next to it, with the mode `old` had (or a new file's). */
static bool S_open_atomic(cli_output *o, const char *dest, const struct stat *old, shard_buf *err) {
  o->how = OUT_ATOMIC;
  o->fd = -1;
  const char *slash = strrchr(dest, '/');
  size_t dir_len = slash ? (size_t)(slash - dest) + 1 : 0;
  if (strlen(dest) + 16 >= sizeof pending_tmp) {
    shard_buf_printf(err, "cannot write '%s': %s", o->shown, strerror(ENAMETOOLONG));
    return false;
  }
  strcpy(o->dest, dest);
  snprintf(o->tmp, sizeof o->tmp, "%.*s.%s.XXXXXX", (int)dir_len, dest, dest + dir_len);

  memcpy(pending_tmp, o->tmp, sizeof o->tmp);
  o->old_int = signal(SIGINT, on_signal);
  o->old_term = signal(SIGTERM, on_signal);
  o->fd = mkstemp(o->tmp);
  memcpy(pending_tmp, o->tmp, sizeof o->tmp);
  have_pending_tmp = o->fd >= 0;
  if (o->fd < 0) {
    S_fail(o, "create a temporary file for", errno);
    return true; /* reported by S_close, which restores the handlers */
  }
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
  if (fchmod(o->fd, mode) != 0) S_fail(o, "set permissions of", errno);
  return true;
}

/* Decides how `path` is written and opens it; false with err set when it
 * cannot be (nothing to close then). */
static bool S_open(cli_output *o, const char *path, shard_buf *err) {
  memset(o, 0, sizeof *o);
  o->fd = -1;
  if (!path || strcmp(path, "-") == 0) {
    o->how = OUT_STDOUT;
    return true;
  }
  o->shown = path;
  int fd = fd_alias(path);
  if (fd >= 0) return S_open_direct(o, path, fd, err);

  char dest[PATH_MAX];
  int e = 0;
  if (!follow_links(path, dest, sizeof dest, &e)) {
    shard_buf_printf(err, "cannot write '%s': %s", path, strerror(e));
    return false;
  }
  /* A link may lead to one of our own descriptors (a link to /dev/stdout). */
  fd = fd_alias(dest);
  if (fd >= 0) return S_open_direct(o, path, fd, err);
  struct stat st;
  if (stat(dest, &st) != 0) {
    if (errno != ENOENT) {
      shard_buf_printf(err, "cannot write '%s': %s", path, strerror(errno));
      return false;
    }
    return S_open_atomic(o, dest, NULL, err);
  }
  if (S_ISDIR(st.st_mode)) {
    shard_buf_printf(err, "cannot write '%s': %s", path, strerror(EISDIR));
    return false;
  }
  if (S_ISREG(st.st_mode)) return S_open_atomic(o, dest, &st, err);
  return S_open_direct(o, path, -1, err);
}

static void S_put(cli_output *o, const char *data, size_t len) {
  if (o->failed || !len) return;
  if (o->how == OUT_STDOUT) {
    if (fwrite(data, 1, len, stdout) != len) S_fail(o, "write", errno);
  } else if (!write_all(o->fd, data, len)) {
    S_fail(o, "write", errno);
  } else if (o->how == OUT_ATOMIC) {
    o->written += (off_t)len;
#ifdef __linux__
    /* starts the writeback without waiting for it; an error shows at fsync */
    if (o->written - o->synced >= CLI_OUTPUT_WRITEBACK_AT) {
      (void)sync_file_range(o->fd, o->synced, o->written - o->synced, SYNC_FILE_RANGE_WRITE);
      o->synced = o->written;
    }
#endif
  }
}

/* Finishes: a kept atomic output is flushed to disk and renamed into place,
 * one not kept (or failed) is removed, leaving the destination as it was. */
static bool S_close(cli_output *o, bool keep, shard_buf *err) {
  if (o->how == OUT_STDOUT) {
    if (!o->failed && fflush(stdout) != 0) S_fail(o, "write", errno);
    if (o->failed) {
      shard_buf_printf(err, "cannot write to standard output: %s", strerror(o->err));
      stdout_reported = true;
    }
    return !o->failed;
  }
  if (o->how == OUT_DIRECT) {
    if (o->own_fd && close(o->fd) != 0) S_fail(o, "write", errno);
    if (o->failed) shard_buf_printf(err, "cannot write '%s': %s", o->shown, strerror(o->err));
    return !o->failed;
  }
  if (keep && !o->failed && fsync(o->fd) != 0 && errno != EINVAL && errno != EROFS) S_fail(o, "flush", errno);
  if (o->fd >= 0 && close(o->fd) != 0) S_fail(o, "close", errno);
  if (keep && !o->failed && rename(o->tmp, o->dest) != 0) S_fail(o, "replace", errno);
  if (o->failed || !keep) {
    if (o->fd >= 0) unlink(o->tmp);
    if (o->failed) shard_buf_printf(err, "cannot %s '%s': %s", o->step, o->shown, strerror(o->err));
  }
  have_pending_tmp = 0;
  signal(SIGINT, o->old_int);
  signal(SIGTERM, o->old_term);
  return !o->failed;
}

bool cli_write_file(const char *path, const char *data, size_t len, shard_buf *err) {
  cli_output o;
  if (!S_open(&o, path, err)) return false;
  S_put(&o, data, len);
  return S_close(&o, true, err);
}

int cli_write_output(const char *cmd, const char *path, const char *data, size_t len) {
  int code;
  cli_output *o = cli_output_open(cmd, path, &code);
  if (!o) return code;
  cli_output_write(o, data ? data : "", len);
  return cli_output_close(o, true);
}

static void S_sink_write(void *ctx, const char *data, size_t len) { S_put(ctx, data, len); }

cli_output *cli_output_open(const char *cmd, const char *path, int *code) {
  if (path && strcmp(path, "-") != 0 && cli_output_is_input(path)) {
    *code = cli_usage_error(cmd, "refusing to overwrite the input file '%s' with -o", path);
    return NULL;
  }
  cli_output *o = shard_xmalloc(sizeof *o);
  shard_buf err;
  shard_buf_init(&err);
  if (!S_open(o, path, &err)) {
    fprintf(stderr, "shard %s: error: %s\n", cmd, shard_buf_str(&err));
    shard_buf_free(&err);
    free(o);
    *code = CLI_EXIT_INTERNAL;
    return NULL;
  }
  o->cmd = cmd;
  o->sink = (shard_buf_sink){S_sink_write, o};
  if (o->failed) { /* the temporary file: nothing to print into */
    *code = cli_output_close(o, false);
    return NULL;
  }
  return o;
}

const shard_buf_sink *cli_output_sink(cli_output *o) { return &o->sink; }

int cli_write_module(const char *cmd, const char *path, const shard_module *m, const shard_print_options *print,
                     const shard_buf *after) {
  int code;
  cli_output *o = cli_output_open(cmd, path, &code);
  if (!o) return code;
  shard_buf window;
  shard_buf_init(&window);
  window.sink = cli_output_sink(o);
  shard_print_module(&window, m, print);
  if (window.len && window.data[window.len - 1] != '\n') shard_buf_putc(&window, '\n');
  shard_buf_drain_all(&window);
  shard_buf_free(&window);
  if (after && after->len) cli_output_write(o, after->data, after->len);
  return cli_output_close(o, true);
}

void cli_output_write(cli_output *o, const char *data, size_t len) { S_put(o, data, len); }

int cli_output_close(cli_output *o, bool keep) {
  shard_buf err;
  shard_buf_init(&err);
  bool ok = S_close(o, keep, &err);
  if (!ok) fprintf(stderr, "shard %s: error: %s\n", o->cmd, shard_buf_str(&err));
  shard_buf_free(&err);
  free(o);
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
