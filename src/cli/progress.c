/* The status line of long work on a terminal (see progress.h). */
#include "progress.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static struct {
  bool on; /* drawing enabled for this run */
  bool shown; /* a line is on the screen now */
  const char *cmd;
} progress;

void cli_progress_start(const char *cmd, bool allowed) {
  const char *term = getenv("TERM");
  progress.on = allowed && isatty(fileno(stderr)) && !(term && strcmp(term, "dumb") == 0);
  progress.shown = false;
  progress.cmd = cmd;
}

static void erase(void) {
  if (progress.shown) {
    fputs("\r\033[K", stderr);
    fflush(stderr);
    progress.shown = false;
  }
}

void cli_progress_update(const char *fmt, ...) {
  if (!progress.on) return;
  char text[CLI_PROGRESS_MAX_TEXT + 1];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(text, sizeof text, fmt, ap);
  va_end(ap);
  if (n > CLI_PROGRESS_MAX_TEXT) memcpy(text + CLI_PROGRESS_MAX_TEXT - 3, "...", 4);
  fprintf(stderr, "\rshard %s: %s\033[K", progress.cmd, text);
  fflush(stderr);
  progress.shown = true;
}

void cli_progress_finish(void) {
  erase();
  progress.on = false;
}

bool cli_progress_active(void) { return progress.on; }

void cli_progress_diag(void *printer, const shard_diag *d) {
  erase();
  shard_diag_print_text(printer, d);
}
