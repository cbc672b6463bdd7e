/* One updating status line on stderr for long work (`shard lower --verify`,
 * big propagate/lower runs), the one owner of that line.
 *
 * Shown only when stderr is a terminal, and not with --no-progress (the
 * commands pass it as `allowed`) or TERM=dumb: a file or pipe never sees a
 * byte of it. Each update rewrites the line (`\r`, text, erase to end);
 * cli_progress_finish erases it, and cli_progress_diag erases it before a
 * diagnostic so messages start on a clean line. */
#ifndef SHARD_CLI_PROGRESS_H
#define SHARD_CLI_PROGRESS_H

#include <stdbool.h>

#include "support/diag.h"

/* The longest status text drawn; longer text is cut with "...". */
#define CLI_PROGRESS_MAX_TEXT 76

/* Starts a status line for command `cmd` (the line reads "shard CMD: ...").
 * `allowed` is false under --no-progress. */
void cli_progress_start(const char *cmd, bool allowed);
/* Replaces the status text (printf format); nothing when not shown. */
void cli_progress_update(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Erases the status line; nothing after it until the next start. */
void cli_progress_finish(void);
/* True while a status line is being drawn. */
bool cli_progress_active(void);
/* A shard_diag_engine callback: erases the status line, then prints the
 * diagnostic with shard_diag_print_text (`printer` is its printer). */
void cli_progress_diag(void *printer, const shard_diag *d);

#endif
