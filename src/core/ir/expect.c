/* The -verify-diagnostics matcher (see expect.h for the designator syntax).
 *
 * shard_expect_new scans the chunk once and records every designator with
 * the line it applies to. Each emitted diagnostic is then compared with the
 * designators of its line (or the @unknown ones when it has no location):
 * same line, TEXT contained in the message, same severity. A designator that
 * matches everything but the severity is a "near miss" and gets the more
 * helpful message. shard_expect_finish reports the designators that were
 * never matched. The rules and texts follow mlir-opt's
 * SourceMgrDiagnosticVerifierHandler, so Shardy's lit tests behave the same. */
#include "ir/expect.h"

#include <limits.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>

#include "support/arena.h"
#include "support/buf.h"

typedef struct expected_diag {
  shard_severity severity;
  uint32_t line; /* file line it applies to (includes line_base) */
  bool unknown_loc; /* @unknown */
  uint32_t off; /* offset of "expected-" in the source, for reports */
  const char *text; /* TEXT between {{ and the last }} (points into the source) */
  uint32_t text_len;
  regex_t *re; /* -re: the compiled pattern (heap, so the vector may move) */
  bool matched;
} expected_diag;

struct shard_expect {
  const shard_source *src;
  shard_diag_engine *report;
  SHARD_VEC(expected_diag) diags;
  bool ok;
};

static void report_at(shard_expect *e, uint32_t off, bool located, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Reports an error positioned at a designator (or nowhere, for @unknown). */
static void report_at(shard_expect *e, uint32_t off, bool located, const char *fmt, ...) {
  shard_span sp = located ? (shard_span){e->src, off, 0} : shard_no_span;
  va_list ap;
  va_start(ap, fmt);
  shard_diag_vemit(e->report, SHARD_ERROR, sp, fmt, ap);
  va_end(ap);
  e->ok = false;
}

static bool has_prefix(const char *s, size_t n, const char *p) {
  size_t pn = strlen(p);
  return n >= pn && memcmp(s, p, pn) == 0;
}

/* A designator parsed from one line. */
typedef struct designator {
  shard_severity severity;
  bool is_regex;
  enum { AT_NONE, AT_OFFSET, AT_ABOVE, AT_BELOW, AT_UNKNOWN } at;
  int64_t offset;
  size_t start; /* of "expected-" within the line */
  size_t text_start, text_len;
} designator;

// designator ::= 'expected-' kind '-re'? ' '* ('@' ([+-] digit+ | 'above' | 'below' | 'unknown'))?
//                ' '* '{{' text '}}' end-of-line
// Tries the designator at line[i]; the line has already been right-trimmed.
static bool parse_designator_at(const char *line, size_t n, size_t i, designator *out) {
  static const struct {
    const char *word;
    shard_severity sev;
  } kinds[] = {{"error", SHARD_ERROR}, {"warning", SHARD_WARNING}, {"note", SHARD_NOTE}, {"remark", SHARD_REMARK}};
  size_t start = i;
  i += strlen("expected-");
  bool found = false;
  for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
    if (has_prefix(line + i, n - i, kinds[k].word)) {
      out->severity = kinds[k].sev;
      i += strlen(kinds[k].word);
      found = true;
      break;
    }
  }
  if (!found) return false;
  out->is_regex = false;
  if (has_prefix(line + i, n - i, "-re")) {
    out->is_regex = true;
    i += 3;
  }
  while (i < n && line[i] == ' ') i++;
  out->at = AT_NONE;
  out->offset = 0;
  if (i < n && line[i] == '@') {
    i++;
    if (i < n && (line[i] == '+' || line[i] == '-')) {
      bool neg = line[i] == '-';
      i++;
      if (i >= n || line[i] < '0' || line[i] > '9') return false;
      int64_t v = 0;
      while (i < n && line[i] >= '0' && line[i] <= '9') {
        if (v < INT32_MAX) /* saturate: such a line does not exist anyway */
          v = v * 10 + (line[i] - '0');
        i++;
      }
      out->at = AT_OFFSET;
      out->offset = neg ? -v : v;
    } else if (has_prefix(line + i, n - i, "above")) {
      out->at = AT_ABOVE;
      i += 5;
    } else if (has_prefix(line + i, n - i, "below")) {
      out->at = AT_BELOW;
      i += 5;
    } else if (has_prefix(line + i, n - i, "unknown")) {
      out->at = AT_UNKNOWN;
      i += 7;
    } else {
      return false;
    }
  }
  while (i < n && line[i] == ' ') i++;
  if (!has_prefix(line + i, n - i, "{{")) return false;
  i += 2;
  /* TEXT is greedy: it ends at the `}}` that ends the line. */
  if (n - i < 2 || line[n - 2] != '}' || line[n - 1] != '}') return false;
  out->start = start;
  out->text_start = i;
  out->text_len = n - 2 - i;
  return true;
}

/* Finds the leftmost designator on a line, like an unanchored regex search. */
static bool parse_designator(const char *line, size_t n, designator *out) {
  for (size_t i = 0; i + 9 <= n; i++) {
    if (memcmp(line + i, "expected-", 9) == 0 && parse_designator_at(line, n, i, out)) return true;
  }
  return false;
}

/* Builds the ERE for an -re designator: literal text is escaped, each
 * {{regex}} piece is inserted as a group. */
static bool compile_regex(shard_expect *e, expected_diag *x) {
  shard_buf pat;
  shard_buf_init(&pat);
  const char *s = x->text, *end = x->text + x->text_len;
  bool ok = true;
  while (s < end) {
    const char *open = NULL;
    for (const char *p = s; p + 1 < end; p++)
      if (p[0] == '{' && p[1] == '{') {
        open = p;
        break;
      }
    const char *lit_end = open ? open : end;
    for (const char *p = s; p < lit_end; p++) {
      if (strchr("()^$|*+?.[]\\{}", *p)) shard_buf_putc(&pat, '\\');
      shard_buf_putc(&pat, *p);
    }
    if (!open) break;
    const char *body = open + 2, *close = NULL;
    for (const char *p = body; p + 1 < end; p++)
      if (p[0] == '}' && p[1] == '}') {
        close = p;
        break;
      }
    if (!close) {
      report_at(e, x->off, !x->unknown_loc, "found start of regex with no end '}}'");
      ok = false;
      break;
    }
    shard_buf_putc(&pat, '(');
    shard_buf_putn(&pat, body, (size_t)(close - body));
    shard_buf_putc(&pat, ')');
    s = close + 2;
  }
  if (ok) {
    x->re = shard_xmalloc(sizeof *x->re);
    int rc = regcomp(x->re, shard_buf_str(&pat), REG_EXTENDED | REG_NOSUB);
    if (rc != 0) {
      char why[256];
      regerror(rc, x->re, why, sizeof why);
      report_at(e, x->off, !x->unknown_loc, "invalid regex: %s", why);
      free(x->re);
      x->re = NULL;
      ok = false;
    }
  }
  shard_buf_free(&pat);
  return ok;
}

shard_expect *shard_expect_new(const shard_source *src, shard_diag_engine *report) {
  shard_expect *e = shard_xcalloc(1, sizeof *e);
  e->src = src;
  e->report = report;
  e->ok = true;

  SHARD_VEC(uint32_t) pending_below = {0}; /* indices waiting for the next plain line */
  uint32_t last_plain_line = 0; /* 0-based index of the last non-designator line */
  uint32_t line_idx = 0;
  const char *text = src->text;
  size_t len = src->len, pos = 0;
  for (;;) {
    const char *nl = pos < len ? memchr(text + pos, '\n', len - pos) : NULL;
    size_t line_end = nl ? (size_t)(nl - text) : len;
    size_t n = line_end - pos;
    while (n > 0 && strchr(" \t\r\v\f", text[pos + n - 1])) n--;
    designator d;
    if (!parse_designator(text + pos, n, &d)) {
      for (uint32_t k = 0; k < pending_below.len; k++)
        e->diags.items[pending_below.items[k]].line = src->line_base + line_idx + 1;
      pending_below.len = 0;
      last_plain_line = line_idx;
    } else {
      expected_diag x = {0};
      x.severity = d.severity;
      x.off = (uint32_t)(pos + d.start);
      x.text = text + pos + d.text_start;
      x.text_len = (uint32_t)d.text_len;
      x.line = src->line_base + line_idx + 1;
      switch (d.at) {
      case AT_NONE: break;
      case AT_OFFSET: {
        int64_t l = (int64_t)x.line + d.offset;
        x.line = l < 0 ? 0 : l > UINT32_MAX ? UINT32_MAX : (uint32_t)l;
        break;
      }
      case AT_ABOVE: x.line = src->line_base + last_plain_line + 1; break;
      case AT_BELOW: SHARD_VEC_PUSH(pending_below, e->diags.len); break;
      case AT_UNKNOWN: x.unknown_loc = true; break;
      }
      if (!d.is_regex || compile_regex(e, &x)) {
        SHARD_VEC_PUSH(e->diags, x);
      } else if (d.at == AT_BELOW) {
        pending_below.len--; /* the designator was dropped */
      }
    }
    line_idx++;
    if (!nl) break;
    pos = line_end + 1;
  }
  /* A dangling @below applies to the last line, where nothing can match it. */
  for (uint32_t k = 0; k < pending_below.len; k++)
    e->diags.items[pending_below.items[k]].line = src->line_base + line_idx;
  SHARD_VEC_FREE(pending_below);
  return e;
}

void shard_expect_free(shard_expect *e) {
  if (!e) return;
  for (uint32_t i = 0; i < e->diags.len; i++)
    if (e->diags.items[i].re) {
      regfree(e->diags.items[i].re);
      free(e->diags.items[i].re);
    }
  SHARD_VEC_FREE(e->diags);
  free(e);
}

unsigned shard_expect_count(const shard_expect *e) { return e->diags.len; }

static bool text_matches(const expected_diag *x, const char *msg) {
  if (x->re) return regexec(x->re, msg, 0, NULL, 0) == 0;
  if (x->text_len == 0) return true;
  /* memmem is not C11/POSIX; the messages are short. */
  size_t mlen = strlen(msg);
  for (size_t i = 0; i + x->text_len <= mlen; i++)
    if (memcmp(msg + i, x->text, x->text_len) == 0) return true;
  return false;
}

void shard_expect_consume(void *expect, const shard_diag *d) {
  shard_expect *e = expect;
  bool located = d->span.src != NULL;
  uint32_t line = 0, col = 0;
  if (located) shard_span_linecol(d->span, &line, &col);

  expected_diag *near_miss = NULL;
  for (uint32_t i = 0; i < e->diags.len; i++) {
    expected_diag *x = &e->diags.items[i];
    if (x->unknown_loc != !located) continue;
    if (located && x->line != line) continue;
    if (!text_matches(x, d->message)) continue;
    if (x->severity == d->severity) {
      x->matched = true;
      return;
    }
    near_miss = x;
  }
  if (near_miss) {
    report_at(e, near_miss->off, !near_miss->unknown_loc, "'%s' diagnostic emitted when expecting a '%s'",
              shard_severity_name(d->severity), shard_severity_name(near_miss->severity));
    return;
  }
  shard_error(e->report, d->span, "unexpected %s: %s", shard_severity_name(d->severity), d->message);
  e->ok = false;
}

bool shard_expect_finish(shard_expect *e) {
  /* Located designators first, then @unknown ones, each in source order. */
  for (int pass = 0; pass < 2; pass++) {
    for (uint32_t i = 0; i < e->diags.len; i++) {
      expected_diag *x = &e->diags.items[i];
      if (x->matched || x->unknown_loc != (pass == 1)) continue;
      report_at(e, x->off, !x->unknown_loc, "expected %s \"%.*s\" was not produced", shard_severity_name(x->severity),
                (int)x->text_len, x->text);
      x->matched = true; /* report once even if finish is called again */
    }
  }
  return e->ok;
}
