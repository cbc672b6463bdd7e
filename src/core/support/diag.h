/* Diagnostics: one variadic entry point, delivered through a callback.
 *
 * The CLI prints them clang-style (FILE:LINE:COL: error: MSG, source line,
 * caret), the REPL shows them, tests capture them, and the JSON/SARIF writers
 * serialise them. Every IR node carries a shard_span so a diagnostic can point
 * at the text it is about. */
#ifndef SHARD_DIAG_H
#define SHARD_DIAG_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A buffer of source text. For -split-input-file chunks, `line_base` is the
 * number of lines before the chunk in the file, so reported lines are file
 * lines. The text is owned by whoever created the source. */
/* A source line longer than this many bytes is shown under a diagnostic as a
 * window of this width around the caret, "..." marking the cut ends (JAX
 * writes lines of many hundred columns). */
#define SHARD_DIAG_LINE_WINDOW 200

/* A source whose text is NULL names a file without any line of it (a file
 * that could not be read): diagnostics on it print "NAME: error: MSG". */
typedef struct shard_source {
  const char *name;
  const char *text;
  size_t len;
  uint32_t line_base;
} shard_source;

typedef struct shard_span {
  const shard_source *src; /* NULL: unknown location */
  uint32_t off, len;
} shard_span;

typedef enum shard_severity { SHARD_ERROR, SHARD_WARNING, SHARD_NOTE, SHARD_REMARK } shard_severity;

typedef struct shard_diag {
  shard_severity severity;
  shard_span span;
  const char *message; /* valid only during the callback */
} shard_diag;

typedef void (*shard_diag_fn)(void *ctx, const shard_diag *d);

typedef struct shard_diag_engine {
  shard_diag_fn fn;
  void *ctx;
  unsigned errors, warnings;
  bool warnings_as_errors; /* --Werror: warnings are delivered as errors */
} shard_diag_engine;

void shard_diag_init(shard_diag_engine *de, shard_diag_fn fn, void *ctx);
void shard_diag_emit(shard_diag_engine *de, shard_severity sev, shard_span span, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* shard_diag_emit with the arguments as a va_list. */
void shard_diag_vemit(shard_diag_engine *de, shard_severity sev, shard_span span, const char *fmt, va_list ap);
#define shard_error(de, span, ...) shard_diag_emit((de), SHARD_ERROR, (span), __VA_ARGS__)
#define shard_warning(de, span, ...) shard_diag_emit((de), SHARD_WARNING, (span), __VA_ARGS__)
#define shard_note(de, span, ...) shard_diag_emit((de), SHARD_NOTE, (span), __VA_ARGS__)

/* 1-based line (including line_base) and column of a span's start. */
void shard_span_linecol(shard_span span, uint32_t *line, uint32_t *col);
/* Appends "FILE:LINE:COL" of the span's start to b ("-" for a span without
 * a source): the location column of the cost reports. */
struct shard_buf;
void shard_span_print_location(struct shard_buf *b, shard_span span);
/* The source line containing the span start, without its newline. */
const char *shard_span_line_text(shard_span span, size_t *len);
shard_span shard_span_join(shard_span a, shard_span b);
extern const shard_span shard_no_span;

/* Prints one diagnostic clang-style to a FILE* (ctx). `color` adds ANSI colours. */
typedef struct shard_diag_printer {
  void *file; /* FILE* */
  bool color;
  bool show_source; /* source line and caret */
} shard_diag_printer;
void shard_diag_print_text(void *printer /* shard_diag_printer* */, const shard_diag *d);
const char *shard_severity_name(shard_severity s);

#endif
