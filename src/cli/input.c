/* Reading inputs: a named file or standard input, whole, into memory.
 *
 * The parser wants one contiguous buffer (spans are offsets into it), so we
 * read everything up front. A trailing NUL is added for convenience but the
 * length is what counts: a NUL byte inside the file stays data, and the
 * lexer reports it instead of silently stopping there.
 *
 * A large regular file is mapped, not read: its pages are the page cache's,
 * so nothing is cleared and copied into fresh memory (at 100k ops that copy
 * was a tenth of `check`). The mapping is private, so a write would stay
 * ours, and its NUL is the zero fill past the end of the file's last page;
 * a file whose size is a whole number of pages has none and is read. A file
 * truncated by someone else while mapped would raise SIGBUS on the lost
 * pages: that is reported as an input error, not a crash. The parser
 * tells a module's source what text it is done with (cli_input_read_past as
 * shard_parse_options.read_past), and those pages are given back as it goes: a
 * module is not in memory twice, as text and as IR. */
/* mmap and sigaction are POSIX; madvise(MADV_DONTNEED) is Linux and BSD. */
#define _DEFAULT_SOURCE

#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "support/arena.h"
#include "cli.h"

const char *cli_input_name(const char *path) { return strcmp(path, "-") == 0 ? "<stdin>" : path; }

/* Files smaller than this are read: mapping one costs more than the copy. */
#define CLI_INPUT_MAP_MIN ((size_t)1 << 16)

/* The buffers of cli_read_input that are mappings, so cli_input_free knows
 * what to unmap (a run reads a handful of inputs). */
typedef struct {
  char *text;
  size_t size;
  size_t given_back; /* bytes from text on whose pages cli_input_read_past ran */
} mapped_input;
static SHARD_VEC(mapped_input) mapped;

static void S_on_sigbus(int sig) {
  (void)sig;
  static const char msg[] = "shard: error: an input file shrank while it was being read\n";
  ssize_t ignored = write(STDERR_FILENO, msg, sizeof msg - 1);
  (void)ignored;
  _exit(1); /* CLI_EXIT_INVALID */
}

/* Maps the regular file open on `fd` of `size` bytes, or returns NULL (the
 * caller reads it instead). */
static char *S_map(int fd, size_t size) {
  long page = sysconf(_SC_PAGESIZE);
  if (size < CLI_INPUT_MAP_MIN || page <= 0 || size % (size_t)page == 0) return NULL;
  void *p = mmap(NULL, size + 1, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
  if (p == MAP_FAILED) return NULL;
  if (mapped.len == 0) {
    struct sigaction sa = {0};
    sa.sa_handler = S_on_sigbus;
    sigaction(SIGBUS, &sa, NULL);
  }
  SHARD_VEC_PUSH(mapped, ((mapped_input){p, size + 1, 0}));
  return p;
}

/* The mapped input whose text holds `p`, or NULL. */
static mapped_input *S_mapped_at(const char *p) {
  for (uint32_t i = 0; i < mapped.len; i++) {
    mapped_input *in = &mapped.items[i];
    if (p >= in->text && p < in->text + in->size) return in;
  }
  return NULL;
}

void cli_input_read_past(const char *p) {
  mapped_input *in = S_mapped_at(p);
  if (!in) return;
  size_t page = (size_t)sysconf(_SC_PAGESIZE);
  size_t upto = (size_t)(p - in->text) / page * page;
  /* The pages are the file's, never written (the text is const to every
   * reader): dropping them loses nothing, a later read faults them back. */
  if (upto > in->given_back && madvise(in->text + in->given_back, upto - in->given_back, MADV_DONTNEED) == 0)
    in->given_back = upto;
}

void cli_input_reread(const char *p) {
  mapped_input *in = S_mapped_at(p);
  if (!in) return;
  size_t page = (size_t)sysconf(_SC_PAGESIZE);
  size_t from = (size_t)(p - in->text) / page * page;
  if (from < in->given_back) in->given_back = from;
}

void cli_input_free(char *text) {
  if (!text) return;
  for (uint32_t i = 0; i < mapped.len; i++)
    if (mapped.items[i].text == text) {
      munmap(text, mapped.items[i].size);
      mapped.items[i] = mapped.items[--mapped.len];
      return;
    }
  free(text);
}

bool cli_read_input(const char *path, char **text, size_t *len, shard_buf *err) {
  bool is_stdin = strcmp(path, "-") == 0;
  FILE *f = is_stdin ? stdin : fopen(path, "rb");
  if (!f) {
    shard_buf_printf(err, "cannot read: %s", strerror(errno));
    return false;
  }
  cli_note_input(fileno(f));
  struct stat st;
  if (!is_stdin && fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
    shard_buf_printf(err, "cannot read: %s", strerror(EISDIR));
    fclose(f);
    return false;
  }
  /* A regular file is read at its size in one buffer (no doubling, no
   * copies); a pipe, or a file that grew meanwhile, grows it. */
  size_t cap = 1 << 16, n = 0;
  if (fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 && (uint64_t)st.st_size < SIZE_MAX / 2) {
    char *map = S_map(fileno(f), (size_t)st.st_size);
    if (map) {
      if (!is_stdin) fclose(f);
      *text = map;
      *len = (size_t)st.st_size;
      return true;
    }
    cap = (size_t)st.st_size + 2;
  }
  char *buf = shard_xmalloc(cap);
  for (;;) {
    if (n + 1 >= cap) {
      cap *= 2;
      buf = shard_xrealloc(buf, cap);
    }
    size_t got = fread(buf + n, 1, cap - n - 1, f);
    n += got;
    if (got == 0) break;
  }
  bool failed = ferror(f);
  int saved = errno;
  if (!is_stdin) fclose(f);
  if (failed) {
    shard_buf_printf(err, "cannot read: %s", strerror(saved));
    free(buf);
    return false;
  }
  buf[n] = '\0';
  *text = buf;
  *len = n;
  return true;
}

void cli_report_read_error(const char *path, shard_buf *err) {
  fprintf(stderr, "%s: error: %s\n", cli_input_name(path), shard_buf_str(err));
}

int cli_read_transform_input(const char *cmd, const char *input, const char *output, char **text, size_t *len) {
  shard_buf err;
  shard_buf_init(&err);
  bool ok = cli_read_input(input, text, len, &err);
  if (!ok) cli_report_read_error(input, &err);
  shard_buf_free(&err);
  if (!ok) return CLI_EXIT_INVALID;
  if (cli_output_is_input(output)) {
    cli_input_free(*text);
    *text = NULL;
    return cli_usage_error(cmd, "refusing to overwrite the input file '%s' with -o", output);
  }
  return -1;
}
