/* -split-input-file: chunk boundaries, line bases, near misses. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "ir/split.h"

static unsigned near_misses;
static uint32_t near_miss_line;
static void count(void *ctx, const shard_diag *d) {
  (void)ctx;
  cr_assert_eq(d->severity, SHARD_WARNING);
  cr_assert_str_eq(d->message, "near miss with file split marker");
  uint32_t col;
  shard_span_linecol(d->span, &near_miss_line, &col);
  near_misses++;
}

static shard_source make(const char *text) {
  shard_source s = {"t.mlir", text, strlen(text), 0};
  return s;
}

static void assert_chunk(const shard_source *c, const char *text, uint32_t line_base) {
  cr_assert_eq(c->len, strlen(text), "chunk '%.*s'", (int)c->len, c->text);
  cr_assert(memcmp(c->text, text, c->len) == 0, "chunk '%.*s'", (int)c->len, c->text);
  cr_assert_eq(c->line_base, line_base);
}

Test(split, no_marker_is_one_chunk) {
  shard_source src = make("a\nb\n"), *chunks;
  cr_assert_eq(shard_source_split(&src, &chunks, NULL), 1);
  assert_chunk(&chunks[0], "a\nb\n", 0);
  free(chunks);
}

Test(split, chunks_and_line_bases) {
  shard_source src = make("a\n// -----\nb\nc\n  // -----  \nd"), *chunks;
  cr_assert_eq(shard_source_split(&src, &chunks, NULL), 3);
  assert_chunk(&chunks[0], "a\n", 0);
  assert_chunk(&chunks[1], "b\nc\n", 2);
  assert_chunk(&chunks[2], "d", 5);
  /* A position in a later chunk reports the line of the file. */
  shard_span sp = {&chunks[2], 0, 1};
  uint32_t line, col;
  shard_span_linecol(sp, &line, &col);
  cr_assert_eq(line, 6);
  cr_assert_eq(col, 1);
  free(chunks);
}

Test(split, marker_at_ends_gives_empty_chunks) {
  shard_source src = make("// -----\nx\n// -----\n"), *chunks;
  cr_assert_eq(shard_source_split(&src, &chunks, NULL), 3);
  assert_chunk(&chunks[0], "", 0);
  assert_chunk(&chunks[1], "x\n", 1);
  assert_chunk(&chunks[2], "", 3);
  free(chunks);
}

Test(split, near_misses_warn_and_do_not_split) {
  shard_diag_engine de;
  shard_diag_init(&de, count, NULL);
  near_misses = 0;
  shard_source src = make("a\n// ----\nb\n// ------\nc\n// ----- x\n"), *chunks;
  cr_assert_eq(shard_source_split(&src, &chunks, &de), 1);
  cr_assert_eq(near_misses, 3);
  cr_assert_eq(near_miss_line, 6);
  cr_assert_eq(de.warnings, 3);
  free(chunks);
}

Test(split, crlf_lines) {
  shard_source src = make("a\r\n// -----\r\nb\r\n"), *chunks;
  cr_assert_eq(shard_source_split(&src, &chunks, NULL), 2);
  assert_chunk(&chunks[0], "a\r\n", 0);
  assert_chunk(&chunks[1], "b\r\n", 2);
  free(chunks);
}
