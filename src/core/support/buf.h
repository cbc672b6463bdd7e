/* A growable byte buffer used by the printers and by diagnostics. */
#ifndef SHARD_BUF_H
#define SHARD_BUF_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* Where a streaming buffer's text goes (see shard_buf_drain). */
typedef struct shard_buf_sink {
  void (*write)(void *ctx, const char *data, size_t len);
  void *ctx;
} shard_buf_sink;

typedef struct shard_buf {
  char *data; /* always NUL-terminated once anything was written */
  size_t len, cap;
  const shard_buf_sink *sink; /* NULL: the buffer keeps all its text */
} shard_buf;

/* A buffer with a sink is a window: at the drain points its writer picks
 * (where nothing holds an offset into the buffer, such as between two ops
 * of a printed module) the text gathered so far goes to the sink once there
 * is SHARD_BUF_DRAIN_AT of it, and the buffer starts again. Printing a
 * module to a file then needs a window of memory, not the module's text. */
#define SHARD_BUF_DRAIN_AT ((size_t)1 << 16)
void shard_buf_drain_all(shard_buf *b); /* hands on everything (the end) */
static inline void shard_buf_drain(shard_buf *b) {
  if (b->sink && b->len >= SHARD_BUF_DRAIN_AT) shard_buf_drain_all(b);
}

void shard_buf_init(shard_buf *b);
void shard_buf_free(shard_buf *b);
void shard_buf_clear(shard_buf *b);
/* Room for `extra` more bytes (and the NUL) without another allocation;
 * also the slow path of the puts below. */
void shard_buf_reserve(shard_buf *b, size_t extra);
/* putc, putn and puts are inline: the printers call them for every few
 * characters, and a literal's strlen folds away. */
static inline void shard_buf_putn(shard_buf *b, const char *s, size_t n) {
  if (b->len + n + 1 > b->cap) shard_buf_reserve(b, n);
  if (n) memcpy(b->data + b->len, s, n);
  b->len += n;
  b->data[b->len] = '\0';
}
static inline void shard_buf_putc(shard_buf *b, char c) {
  if (b->len + 2 > b->cap) shard_buf_reserve(b, 1);
  b->data[b->len++] = c;
  b->data[b->len] = '\0';
}
static inline void shard_buf_puts(shard_buf *b, const char *s) { shard_buf_putn(b, s, strlen(s)); }
void shard_buf_printf(shard_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Decimal integer, without printf's cost (hot in printing and parsing). */
void shard_buf_put_i64(shard_buf *b, int64_t v);
/* Writes v in decimal into out (room for 20 digits) without a NUL; returns
 * how many characters. */
size_t shard_fmt_u64(char *out, uint64_t v);
void shard_buf_vprintf(shard_buf *b, const char *fmt, va_list ap);
/* Writes a string literal the way MLIR prints one: "..." with \22, \\ and \XX escapes. */
void shard_buf_put_escaped(shard_buf *b, const char *s, size_t n);
/* `s` as a JSON string: quoted, with '"', '\\', newline and tab escaped and
 * other control characters as \u00XX (NULL writes ""). */
void shard_buf_put_json_string(shard_buf *b, const char *s);
/* Returns data and hands ownership to the caller (free()); leaves b empty. */
char *shard_buf_take(shard_buf *b);
/* Returns a NUL-terminated view ("" when empty). */
const char *shard_buf_str(shard_buf *b);

#endif
