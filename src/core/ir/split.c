/* Splitting a buffer at `// -----` lines (mlir-opt's -split-input-file).
 *
 * One pass over the lines. A line whose first non-blank characters are the
 * marker, followed by nothing but blanks, ends the current chunk; the next
 * chunk starts on the following line. So does a comment line that ends in
 * the marker (`// // -----`): mlir-opt splits at the marker's text anywhere. Chunks keep pointing into the original
 * text and carry line_base = number of lines before them, so a diagnostic in
 * the third chunk still names the line of the file the user has open. */
#include "ir/split.h"

#include <string.h>

#include "support/arena.h"

typedef enum { LINE_PLAIN, LINE_MARKER, LINE_NEAR_MISS } line_kind;

static bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\r'; }

/* Classifies the line [s, s+n). mlir-opt splits on "// ---" and then checks
 * for the remaining "--"; anything that gets that far without being the full
 * marker is a near miss worth warning about. */
static line_kind classify(const char *s, size_t n, size_t *marker_col) {
  size_t i = 0;
  while (i < n && is_blank(s[i])) i++;
  static const char near[] = "// ---";
  size_t near_len = sizeof near - 1, full_len = sizeof SHARD_SPLIT_MARKER - 1;
  if (n - i < near_len || memcmp(s + i, near, near_len) != 0) {
    /* mlir-opt splits at the marker's text wherever it stands, so a
     * commented-out marker (`// // -----`) still splits there; the text
     * before it stays with the chunk above (here: a comment). */
    for (size_t j = i + 1; j + full_len <= n; j++)
      if (memcmp(s + j, SHARD_SPLIT_MARKER, full_len) == 0 && (j + full_len == n || s[j + full_len] != '-') &&
          s[i] == '/' && s[i + 1] == '/') {
        bool rest_blank = true;
        for (size_t k = j + full_len; k < n; k++)
          if (!is_blank(s[k])) rest_blank = false;
        if (rest_blank) {
          *marker_col = j;
          return LINE_MARKER;
        }
      }
    return LINE_PLAIN;
  }
  *marker_col = i;
  if (n - i < full_len || memcmp(s + i, SHARD_SPLIT_MARKER, full_len) != 0) return LINE_NEAR_MISS;
  for (size_t j = i + full_len; j < n; j++)
    if (!is_blank(s[j])) return LINE_NEAR_MISS;
  return LINE_MARKER;
}

uint32_t shard_source_split(const shard_source *src, shard_source **out, shard_diag_engine *de) {
  SHARD_VEC(shard_source) chunks = {0};
  const char *text = src->text;
  size_t len = src->len;
  size_t chunk_start = 0;
  uint32_t chunk_line_base = src->line_base;
  uint32_t line_no = 0; /* lines of src fully consumed so far */

  size_t pos = 0;
  while (pos < len) {
    const char *nl = memchr(text + pos, '\n', len - pos);
    size_t line_end = nl ? (size_t)(nl - text) : len;
    size_t next = nl ? line_end + 1 : len;
    size_t col = 0;
    line_kind k = classify(text + pos, line_end - pos, &col);
    if (k == LINE_MARKER) {
      shard_source c = {src->name, text + chunk_start, pos - chunk_start, chunk_line_base};
      SHARD_VEC_PUSH(chunks, c);
      chunk_start = next;
      chunk_line_base = src->line_base + line_no + 1;
    } else if (k == LINE_NEAR_MISS && de) {
      shard_span sp = {src, (uint32_t)(pos + col), (uint32_t)(line_end - pos - col)};
      shard_warning(de, sp, "near miss with file split marker");
    }
    line_no++;
    pos = next;
  }
  shard_source last = {src->name, text + chunk_start, len - chunk_start, chunk_line_base};
  SHARD_VEC_PUSH(chunks, last);
  *out = chunks.items;
  return chunks.len;
}
