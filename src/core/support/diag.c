/* Diagnostics: formatting, counting, delivery, and the clang-style printer.
 *
 * shard_diag_emit formats the message once, applies --Werror (a warning is
 * delivered as an error), counts it, and hands it to the engine's callback.
 * An engine without a callback only counts, which is what a caller wants
 * when it just needs to know whether something failed.
 *
 * Positions are computed on demand from byte offsets, scanning the text for
 * newlines onwards from the last position asked for (which keeps the IR free
 * of line tables). Lines include the source's line_base, so a chunk
 * of a -split-input-file buffer reports the line of the whole file. */
#include "support/diag.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "support/buf.h"

const shard_span shard_no_span = {NULL, 0, 0};

void shard_diag_init(shard_diag_engine *de, shard_diag_fn fn, void *ctx) {
  de->fn = fn;
  de->ctx = ctx;
  de->errors = de->warnings = 0;
  de->warnings_as_errors = false;
}

void shard_diag_emit(shard_diag_engine *de, shard_severity sev, shard_span span, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  shard_diag_vemit(de, sev, span, fmt, ap);
  va_end(ap);
}

void shard_diag_vemit(shard_diag_engine *de, shard_severity sev, shard_span span, const char *fmt, va_list ap) {
  if (sev == SHARD_WARNING && de->warnings_as_errors) sev = SHARD_ERROR;
  if (sev == SHARD_ERROR) de->errors++;
  else if (sev == SHARD_WARNING) de->warnings++;
  if (!de->fn) return; /* only counted: the message is never read, so never formatted */

  shard_buf msg;
  shard_buf_init(&msg);
  shard_buf_vprintf(&msg, fmt, ap);
  shard_diag d = {sev, span, shard_buf_str(&msg)};
  de->fn(de->ctx, &d);
  shard_buf_free(&msg);
}

/* Clamps an offset into the source so a stale or hostile span can never make
 * us read outside the text. */
static uint32_t clamp_off(const shard_source *src, uint32_t off) { return off > src->len ? (uint32_t)src->len : off; }

/* The last position asked for, per thread: callers ask for positions in
 * text order (a walk over a module, a plan of every collective), so moving
 * from the last answer is linear over a whole run where scanning from the
 * start of the text each time was quadratic. */
static _Thread_local struct {
  const char *text;
  size_t len;
  uint32_t off, line, line_start; /* line counts from 1, without line_base */
} S_last;

void shard_span_linecol(shard_span span, uint32_t *line, uint32_t *col) {
  if (!span.src || !span.src->text) {
    *line = *col = 0;
    return;
  }
  const char *text = span.src->text;
  uint32_t off = clamp_off(span.src, span.off);
  uint32_t l = 1, line_start = 0, from = 0;
  /* The same text (and, as a cheap check that the buffer was not freed and
   * reused, the remembered line still starts after a newline and holds none) */
  bool same = S_last.text == text && S_last.len == span.src->len && S_last.off <= span.src->len &&
              (S_last.line_start == 0 || text[S_last.line_start - 1] == '\n') &&
              !memchr(text + S_last.line_start, '\n', S_last.off - S_last.line_start);
  if (same && S_last.off <= off) {
    l = S_last.line;
    line_start = S_last.line_start;
    from = S_last.off;
  } else if (same && off >= S_last.line_start) {
    /* backwards, within the last line */
    l = S_last.line;
    line_start = S_last.line_start;
    from = off;
  }
  for (const char *p = text + from, *end = text + off; p < end;) {
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    if (!nl) break;
    l++;
    line_start = (uint32_t)(nl - text) + 1;
    p = nl + 1;
  }
  S_last.text = text;
  S_last.len = span.src->len;
  S_last.off = off;
  S_last.line = l;
  S_last.line_start = line_start;
  *line = l + span.src->line_base;
  *col = off - line_start + 1;
}

void shard_span_print_location(shard_buf *b, shard_span span) {
  if (!span.src) {
    shard_buf_puts(b, "-");
    return;
  }
  uint32_t line, col;
  shard_span_linecol(span, &line, &col);
  shard_buf_printf(b, "%s:%u:%u", span.src->name ? span.src->name : "<input>", line, col);
}

const char *shard_span_line_text(shard_span span, size_t *len) {
  if (!span.src || !span.src->text) {
    *len = 0;
    return "";
  }
  const char *text = span.src->text;
  uint32_t off = clamp_off(span.src, span.off);
  uint32_t start = off, end = off;
  while (start > 0 && text[start - 1] != '\n') start--;
  while (end < span.src->len && text[end] != '\n') end++;
  /* Keep a CRLF file's carriage return out of the printed line. */
  if (end > start && text[end - 1] == '\r') end--;
  *len = end - start;
  return text + start;
}

shard_span shard_span_join(shard_span a, shard_span b) {
  if (!a.src) return b;
  if (!b.src || a.src != b.src) return a;
  uint32_t start = a.off < b.off ? a.off : b.off;
  uint32_t end_a = a.off + a.len, end_b = b.off + b.len;
  uint32_t end = end_a > end_b ? end_a : end_b;
  shard_span s = {a.src, start, end - start};
  return s;
}

const char *shard_severity_name(shard_severity s) {
  switch (s) {
  case SHARD_ERROR: return "error";
  case SHARD_WARNING: return "warning";
  case SHARD_NOTE: return "note";
  case SHARD_REMARK: return "remark";
  }
  return "error";
}

/* clang's palette: bold location and message, red errors, magenta warnings,
 * cyan notes, green caret. */
#define ANSI_BOLD "\033[1m"
#define ANSI_RESET "\033[0m"
static const char *severity_color(shard_severity s) {
  switch (s) {
  case SHARD_ERROR: return "\033[1;31m";
  case SHARD_WARNING: return "\033[1;35m";
  case SHARD_NOTE: return "\033[1;36m";
  case SHARD_REMARK: return "\033[1;34m";
  }
  return "";
}

/* Writes FILE:LINE:COL: error: MSG, then (when asked and known) the source
 * line and a caret under the column. Tabs in the source line are repeated in
 * the caret line so the caret lands under the right character in a terminal.
 * The whole diagnostic is assembled first and written with one fwrite so two
 * processes sharing a stderr cannot interleave halves of it. */
/* The part of a long source line shown under a diagnostic, clang-style: a
 * window of SHARD_DIAG_LINE_WINDOW bytes around the caret (column col), cut
 * at character boundaries; the printer marks cut ends with "...". A line
 * that fits is shown whole. */
static void S_line_window(const char *text, size_t n, uint32_t col, size_t *from, size_t *to) {
  *from = 0;
  *to = n;
  if (n <= SHARD_DIAG_LINE_WINDOW) return;
  size_t caret = col > 0 ? col - 1 : 0;
  if (caret > n) caret = n;
  size_t before = SHARD_DIAG_LINE_WINDOW / 3;
  size_t start = caret > before ? caret - before : 0;
  if (start + SHARD_DIAG_LINE_WINDOW > n) start = n - SHARD_DIAG_LINE_WINDOW;
  size_t end = start + SHARD_DIAG_LINE_WINDOW;
  /* never split a UTF-8 sequence: continuation bytes are 10xxxxxx */
  while (start > 0 && start < n && ((unsigned char)text[start] & 0xC0) == 0x80) start--;
  while (end < n && ((unsigned char)text[end] & 0xC0) == 0x80) end++;
  *from = start;
  *to = end;
}

void shard_diag_print_text(void *printer, const shard_diag *d) {
  const shard_diag_printer *pr = printer;
  FILE *f = pr->file ? (FILE *)pr->file : stderr;
  shard_buf out;
  shard_buf_init(&out);

  if (pr->color) shard_buf_puts(&out, ANSI_BOLD);
  bool has_line = d->span.src && d->span.src->text;
  if (has_line) {
    uint32_t line, col;
    shard_span_linecol(d->span, &line, &col);
    shard_buf_printf(&out, "%s:%u:%u: ", d->span.src->name ? d->span.src->name : "<input>", line, col);
  } else if (d->span.src) {
    shard_buf_printf(&out, "%s: ", d->span.src->name ? d->span.src->name : "<input>");
  }
  /* Without a location MLIR prints just "error: MSG"; so do we. */
  if (pr->color) shard_buf_printf(&out, "%s", severity_color(d->severity));
  shard_buf_printf(&out, "%s: ", shard_severity_name(d->severity));
  if (pr->color) shard_buf_puts(&out, ANSI_RESET ANSI_BOLD);
  shard_buf_puts(&out, d->message);
  if (pr->color) shard_buf_puts(&out, ANSI_RESET);
  shard_buf_putc(&out, '\n');

  if (pr->show_source && has_line) {
    size_t n;
    const char *text = shard_span_line_text(d->span, &n);
    uint32_t line, col;
    shard_span_linecol(d->span, &line, &col);
    size_t from = 0, to = n;
    S_line_window(text, n, col, &from, &to);
    if (from > 0) shard_buf_puts(&out, "...");
    shard_buf_putn(&out, text + from, to - from);
    if (to < n) shard_buf_puts(&out, "...");
    shard_buf_putc(&out, '\n');
    if (pr->color) shard_buf_puts(&out, "\033[1;32m");
    if (from > 0) shard_buf_puts(&out, "   ");
    for (size_t i = from; i + 1 < col && i < n; i++) shard_buf_putc(&out, text[i] == '\t' ? '\t' : ' ');
    shard_buf_putc(&out, '^');
    if (pr->color) shard_buf_puts(&out, ANSI_RESET);
    shard_buf_putc(&out, '\n');
  }
  fwrite(out.data, 1, out.len, f);
  shard_buf_free(&out);
}
