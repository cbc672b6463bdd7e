/* Reading inputs: a named file or standard input, whole, into memory.
 *
 * The parser wants one contiguous buffer (spans are offsets into it), so we
 * read everything up front. A trailing NUL is added for convenience but the
 * length is what counts: a NUL byte inside the file stays data, and the
 * lexer reports it instead of silently stopping there. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "support/arena.h"
#include "cli.h"

const char *cli_input_name(const char *path) { return strcmp(path, "-") == 0 ? "<stdin>" : path; }

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
  if (fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 && (uint64_t)st.st_size < SIZE_MAX / 2)
    cap = (size_t)st.st_size + 2;
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
    free(*text);
    *text = NULL;
    return cli_usage_error(cmd, "refusing to overwrite the input file '%s' with -o", output);
  }
  return -1;
}
