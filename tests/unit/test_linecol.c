/* shard_span_linecol through its line index: any order of lookups, sources
 * alternating, a source struct reused for another text, byte columns. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "support/diag.h"

/* The answer by a scan from the top: '\n' ends a line, a column is a byte. */
static void naive(const shard_source *src, uint32_t off, uint32_t *line, uint32_t *col) {
  if (off > src->len) off = (uint32_t)src->len;
  uint32_t l = 1, start = 0;
  for (uint32_t i = 0; i < off; i++)
    if (src->text[i] == '\n') l++, start = i + 1;
  *line = l + src->line_base;
  *col = off - start + 1;
}

/* Lines of varying length with tabs, CRs and UTF-8, sized past the
 * small-text scan. */
static char *make_text(unsigned seed, size_t len) {
  static const char *const bits[] = {"\t", "\r", "\xc3\xa9", "ab", "\n", "\n\n", "x", "   "};
  char *t = malloc(len + 1);
  size_t n = 0;
  while (n < len) {
    seed = seed * 1103515245u + 12345u;
    const char *b = bits[(seed >> 16) % 8];
    for (; *b && n < len; b++) t[n++] = *b;
  }
  t[n] = 0;
  return t;
}

static void check_all(const shard_source *src, unsigned seed) {
  for (uint32_t k = 0; k < 3000; k++) {
    seed = seed * 1103515245u + 12345u;
    uint32_t off = (seed >> 8) % (uint32_t)(src->len + 10);
    uint32_t l, c, el, ec;
    shard_span_linecol((shard_span){src, off, 0}, &l, &c);
    naive(src, off, &el, &ec);
    cr_assert(l == el && c == ec, "off %u: %u:%u, expected %u:%u", off, l, c, el, ec);
  }
}

Test(linecol, random_order_matches_a_scan) {
  char *t = make_text(1, 20000);
  shard_source src = {"a.mlir", t, strlen(t), 7};
  check_all(&src, 5);
  free(t);
}

Test(linecol, sources_alternate) {
  char *t[6];
  shard_source s[6];
  for (unsigned i = 0; i < 6; i++) {
    t[i] = make_text(i + 2, 5000 + 997 * i);
    s[i] = (shard_source){"s", t[i], strlen(t[i]), i};
  }
  for (unsigned round = 0; round < 3; round++)
    for (unsigned i = 0; i < 6; i++) check_all(&s[i], round * 6 + i);
  for (unsigned i = 0; i < 6; i++) free(t[i]);
}

Test(linecol, one_struct_and_buffer_reused_for_another_text) {
  size_t len = 9000;
  char *buf = malloc(len + 1);
  shard_source src;
  for (unsigned i = 0; i < 4; i++) {
    char *t = make_text(40 + i, len);
    memcpy(buf, t, len + 1);
    free(t);
    src = (shard_source){i % 2 ? "b.mlir" : "a.mlir", buf, len, 0};
    check_all(&src, i);
  }
  free(buf);
}

Test(linecol, small_and_empty_texts) {
  shard_source empty = {"e", "", 0, 0};
  uint32_t l, c;
  shard_span_linecol((shard_span){&empty, 0, 0}, &l, &c);
  cr_assert(l == 1 && c == 1);
  shard_source crlf = {"f", "a\r\n\tb\xc3\xa9z\n", 9, 2};
  shard_span_linecol((shard_span){&crlf, 7, 0}, &l, &c);
  cr_assert(l == 4 && c == 5, "%u:%u", l, c);
}
