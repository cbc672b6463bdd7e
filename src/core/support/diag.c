/* Diagnostics: formatting, counting, delivery, and the clang-style printer.
 *
 * shard_diag_emit formats the message once, applies --Werror (a warning is
 * delivered as an error), counts it, and hands it to the engine's callback.
 * An engine without a callback only counts, which is what a caller wants
 * when it just needs to know whether something failed.
 *
 * Positions are computed on demand from byte offsets: a column counts bytes
 * from the line start (a tab, a CR, each byte of a UTF-8 character is one),
 * lines count '\n' only, found through a line index built on the first
 * lookup in a source (which keeps the IR free of line tables). Lines include the source's line_base, so a chunk
 * of a -split-input-file buffer reports the line of the whole file. */
#include "support/diag.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support/arena.h"
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

/* Line indexes: the offsets where each line starts, built once per source
 * on its first lookup and binary-searched after, so asking for positions in
 * any order costs a log each. A source is a plain struct its creator owns and
 * drops without telling us, so the indexes are kept here, per thread, for
 * the last few sources asked about (a module and its mesh or rules text, the
 * chunks of a split file one after another); the oldest is dropped when
 * another source comes. An entry matches by source, name, text and length
 * (`check a.mlir b.mlir` reuses one source struct, and b's text can land
 * where a's was), and a hit checks that the lines around the answer still
 * start after newlines. Small texts are scanned directly. */
#define S_INDEX_MIN_LEN 4096
#define S_INDEXES 4

typedef struct line_index {
  const shard_source *src;
  const char *name, *text;
  size_t len;
  uint32_t *starts; /* starts[0] = 0; starts[i] = one past the i-th newline */
  uint32_t n;
} line_index;

static _Thread_local struct {
  line_index items[S_INDEXES];
  unsigned next; /* the entry replaced next: the oldest */
} S_indexes;

static bool S_starts_line(const char *text, uint32_t off) { return off == 0 || text[off - 1] == '\n'; }

static bool S_index_valid(const line_index *ix, uint32_t i) {
  return S_starts_line(ix->text, ix->starts[i]) && (i + 1 == ix->n || S_starts_line(ix->text, ix->starts[i + 1])) &&
         S_starts_line(ix->text, ix->starts[ix->n - 1]) && S_starts_line(ix->text, ix->starts[ix->n / 2]);
}

static line_index *S_index_build(const shard_source *src) {
  line_index *ix = &S_indexes.items[S_indexes.next];
  S_indexes.next = (S_indexes.next + 1) % S_INDEXES;
  free(ix->starts);
  uint32_t cap = 1024, n = 1;
  uint32_t *starts = shard_xmalloc(sizeof *starts * cap);
  starts[0] = 0;
  const char *text = src->text, *end = text + src->len;
  for (const char *p = text; p < end;) {
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    if (!nl) break;
    if (n == cap) starts = shard_xrealloc(starts, sizeof *starts * (cap *= 2));
    starts[n++] = (uint32_t)(nl - text) + 1;
    p = nl + 1;
  }
  *ix = (line_index){src, src->name, text, src->len, starts, n};
  return ix;
}

/* The index of the line holding `off`: the last start <= off. */
static uint32_t S_index_line(const line_index *ix, uint32_t off) {
  uint32_t lo = 0, hi = ix->n; /* starts[lo] <= off < starts[hi] (hi == n: end) */
  while (hi - lo > 1) {
    uint32_t mid = lo + (hi - lo) / 2;
    if (ix->starts[mid] <= off) lo = mid;
    else hi = mid;
  }
  return lo;
}

void shard_span_linecol(shard_span span, uint32_t *line, uint32_t *col) {
  if (!span.src || !span.src->text) {
    *line = *col = 0;
    return;
  }
  const shard_source *src = span.src;
  const char *text = src->text;
  uint32_t off = clamp_off(src, span.off);
  uint32_t l = 0, line_start = 0; /* l counts newlines before off */
  if (src->len < S_INDEX_MIN_LEN) {
    for (const char *p = text, *end = text + off; p < end;) {
      const char *nl = memchr(p, '\n', (size_t)(end - p));
      if (!nl) break;
      l++;
      line_start = (uint32_t)(nl - text) + 1;
      p = nl + 1;
    }
  } else {
    line_index *ix = NULL;
    for (unsigned k = 0; k < S_INDEXES && !ix; k++) {
      line_index *c = &S_indexes.items[k];
      if (c->src == src && c->name == src->name && c->text == text && c->len == src->len) ix = c;
    }
    if (ix) {
      l = S_index_line(ix, off);
      if (!S_index_valid(ix, l)) ix = NULL;
    }
    if (!ix) {
      ix = S_index_build(src);
      l = S_index_line(ix, off);
    }
    line_start = ix->starts[l];
  }
  *line = l + 1 + src->line_base;
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
