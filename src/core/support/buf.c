/* A growable byte buffer: the printers, the diagnostics engine and the CLI
 * output all build text here before it goes anywhere.
 *
 * The buffer keeps a NUL after the last byte once anything was written, so
 * `data` can be handed to C string functions; `len` never counts that NUL.
 * Growth doubles the capacity, so appending n bytes costs O(n) amortised. */
#include "support/buf.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support/arena.h"

void shard_buf_init(shard_buf *b) {
  b->data = NULL;
  b->len = b->cap = 0;
  b->sink = NULL;
}

void shard_buf_free(shard_buf *b) {
  free(b->data);
  shard_buf_init(b);
}

void shard_buf_drain_all(shard_buf *b) {
  if (!b->sink || !b->len) return;
  b->sink->write(b->sink->ctx, b->data, b->len);
  shard_buf_clear(b);
}

void shard_buf_clear(shard_buf *b) {
  b->len = 0;
  if (b->data) b->data[0] = '\0';
}

/* Makes room for `extra` more bytes plus the terminating NUL. */
static void reserve(shard_buf *b, size_t extra) {
  size_t need = b->len + extra + 1;
  if (need <= b->cap) return;
  size_t cap = b->cap ? b->cap : 64;
  while (cap < need) cap *= 2;
  b->data = shard_xrealloc(b->data, cap);
  b->cap = cap;
}

void shard_buf_reserve(shard_buf *b, size_t extra) {
  reserve(b, extra);
  b->data[b->len] = '\0';
}

void shard_buf_vprintf(shard_buf *b, const char *fmt, va_list ap) {
  va_list again;
  va_copy(again, ap);
  /* Try to format into the space we already have; retry once with the exact size. */
  reserve(b, 0);
  size_t room = b->cap - b->len;
  int n = vsnprintf(b->data + b->len, room, fmt, ap);
  if (n < 0) {
    /* An encoding error: leave the buffer as it was. */
    b->data[b->len] = '\0';
    va_end(again);
    return;
  }
  if ((size_t)n >= room) {
    reserve(b, (size_t)n);
    vsnprintf(b->data + b->len, (size_t)n + 1, fmt, again);
  }
  b->len += (size_t)n;
  va_end(again);
}

/* Two digits a step from a table: half the divisions of one at a time. */
static const char S_digit_pairs[201] =
    "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
    "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
    "8081828384858687888990919293949596979899";

size_t shard_fmt_u64(char *out, uint64_t v) {
  /* the digits are counted first so that they go straight to out, without
   * a copy (and a call to memcpy) per number: most have a few digits */
  size_t n = 1;
  for (uint64_t t = v; t >= 10; t /= 10) n++;
  char *p = out + n;
  while (v >= 100) {
    unsigned d = (unsigned)(v % 100) * 2;
    v /= 100;
    *--p = S_digit_pairs[d + 1];
    *--p = S_digit_pairs[d];
  }
  if (v >= 10) {
    unsigned d = (unsigned)v * 2;
    *--p = S_digit_pairs[d + 1];
    *--p = S_digit_pairs[d];
  } else {
    *--p = (char)('0' + v);
  }
  return n;
}

void shard_buf_put_i64(shard_buf *b, int64_t v) {
  if (b->len + 22 > b->cap) reserve(b, 21);
  char *o = b->data + b->len;
  size_t n = 0;
  uint64_t u = (uint64_t)v;
  if (v < 0) {
    o[n++] = '-';
    u = (uint64_t)0 - u;
  }
  n += shard_fmt_u64(o + n, u);
  b->len += n;
  b->data[b->len] = '\0';
}

void shard_buf_printf(shard_buf *b, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  shard_buf_vprintf(b, fmt, ap);
  va_end(ap);
}

/* MLIR's printEscapedString: printable ASCII other than '"' and '\\' goes
 * through as is; everything else becomes a two-digit uppercase hex escape.
 * That is why a quote prints as \22 and a newline as \0A. */
static bool S_plain(unsigned char c) { return c >= 0x20 && c < 0x7f && c != '"' && c != '\\'; }

void shard_buf_put_escaped(shard_buf *b, const char *s, size_t n) {
  static const char hex[] = "0123456789ABCDEF";
  /* Mostly short names that need no escape ("x", an axis): copied while
   * checked, the quotes and the NUL written once. */
  reserve(b, n + 2);
  char *p = b->data + b->len;
  *p++ = '"';
  size_t i = 0;
  while (i < n && S_plain((unsigned char)s[i])) {
    p[i] = s[i];
    i++;
  }
  if (i == n) {
    p[n] = '"';
    b->len += n + 2;
    b->data[b->len] = '\0';
    return;
  }
  b->len += 1 + i;
  for (; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    if (c == '\\') {
      shard_buf_puts(b, "\\\\");
    } else if (c >= 0x20 && c < 0x7f && c != '"') {
      /* a run of characters that need no escape, in one write */
      size_t j = i + 1;
      while (j < n && (unsigned char)s[j] >= 0x20 && (unsigned char)s[j] < 0x7f && s[j] != '"' && s[j] != '\\') j++;
      shard_buf_putn(b, s + i, j - i);
      i = j - 1;
    } else {
      char esc[3] = {'\\', hex[c >> 4], hex[c & 15]};
      shard_buf_putn(b, esc, 3);
    }
  }
  shard_buf_putc(b, '"');
}

char *shard_buf_take(shard_buf *b) {
  char *s = b->data;
  if (!s) s = shard_xstrdup("");
  shard_buf_init(b);
  return s;
}

const char *shard_buf_str(shard_buf *b) { return b->data ? b->data : ""; }

void shard_buf_put_json_string(shard_buf *b, const char *s) {
  shard_buf_putc(b, '"');
  for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
    switch (*p) {
    case '"': shard_buf_puts(b, "\\\""); break;
    case '\\': shard_buf_puts(b, "\\\\"); break;
    case '\n': shard_buf_puts(b, "\\n"); break;
    case '\t': shard_buf_puts(b, "\\t"); break;
    default:
      if (*p < 0x20) shard_buf_printf(b, "\\u%04x", *p);
      else shard_buf_putc(b, (char)*p);
    }
  }
  shard_buf_putc(b, '"');
}
