/* The MLIR lexer. Tokens point into the source text; nothing is copied. */
#ifndef SHARD_LEX_H
#define SHARD_LEX_H

#include <stdbool.h>
#include <stdint.h>

#include "support/diag.h"

typedef enum shard_tok_kind {
  SHARD_TOK_EOF,
  SHARD_TOK_ERROR, /* a character that starts no token */
  SHARD_TOK_IDENT, /* bare-id: [a-zA-Z_][a-zA-Z0-9_$.]* */
  SHARD_TOK_PERCENT, /* %name, %0 */
  SHARD_TOK_AT, /* @name or @"string" */
  SHARD_TOK_CARET, /* ^bb0 */
  SHARD_TOK_HASH, /* #name (attribute alias or dialect attribute), #1 after a value */
  SHARD_TOK_BANG, /* !name */
  SHARD_TOK_STRING, /* "..." with escapes (text includes the quotes) */
  SHARD_TOK_INT, /* 123, 0x1F (no sign) */
  SHARD_TOK_FLOAT, /* 1.5, 1.0e-3 (no sign) */
  SHARD_TOK_PUNCT /* ( ) [ ] { } < > , : = ? * + - | -> :: ... */
} shard_tok_kind;

/* The lexer's character classes (index: byte), for the parser's own scans
 * of type bodies: SHARD_LEX_ALPHA (letters and '_'), SHARD_LEX_DIGIT,
 * SHARD_LEX_BARE (what may follow in an identifier: _ $ .), SHARD_LEX_DASH
 * ('-', which may follow in a symbol or SSA name) and SHARD_LEX_QUESTION
 * ('?', a dynamic dimension). */
extern const unsigned char shard_lex_class[256];
enum {
  SHARD_LEX_ALPHA = 1,
  SHARD_LEX_DIGIT = 2,
  SHARD_LEX_BARE = 4 /* _ $ . */,
  SHARD_LEX_DASH = 8,
  SHARD_LEX_QUESTION = 64
};

/* The end of the run of bytes of `classes` from s[i], at most n. One test a
 * byte when the text's last byte ends the run (it nearly always does: a
 * closing bracket or a newline): type bodies are scanned this way. */
static inline uint32_t shard_lex_scan(const char *s, uint32_t i, uint32_t n, unsigned classes) {
  const unsigned char *t = (const unsigned char *)s;
  if (i < n && !(shard_lex_class[t[n - 1]] & classes)) {
    /* two bytes a step (q[1] is there when q[0] is in the run) */
    const unsigned char *q = t + i;
    while ((shard_lex_class[q[0]] & classes) && (shard_lex_class[q[1]] & classes)) q += 2;
    q += (shard_lex_class[q[0]] & classes) != 0;
    return (uint32_t)(q - t);
  }
  while (i < n && (shard_lex_class[t[i]] & classes)) i++;
  return i;
}

typedef struct shard_tok {
  shard_tok_kind kind;
  const char *text; /* start in the source */
  uint32_t len;
  uint32_t off; /* offset in the source */
} shard_tok;

typedef struct shard_lexer {
  const shard_source *src;
  uint32_t pos;
  /* Offset of the source's last byte that ends every run the lexer scans
   * (a closing bracket: no blank, letter, digit, '_$.-'), 0 if none: a
   * token starting before it needs no end-of-input checks in its loops,
   * which matters because a `// -----` chunk has no NUL after it. */
  uint32_t fast_end;
} shard_lexer;

void shard_lexer_init(shard_lexer *lx, const shard_source *src, uint32_t pos);
/* Skips whitespace and // comments, then lexes one token. */
shard_tok shard_lex(shard_lexer *lx);
/* The same, written into *out (the parser's lookahead). */
void shard_lex_into(shard_lexer *lx, shard_tok *out);
/* Exact text match. Inline: the parser asks it of every token it accepts,
 * and most asks are a one-character punctuation or a first-character miss. */
static inline bool shard_tok_is(const shard_tok *t, const char *text) {
  if (t->len == 0 || t->text[0] != text[0]) return false;
  if (t->len == 1) return text[1] == 0;
  for (uint32_t i = 1; i < t->len; i++)
    if (text[i] == 0 || t->text[i] != text[i]) return false;
  return text[t->len] == 0;
}
/* Inline: the parser takes the span of nearly every token it reads. */
static inline shard_span shard_tok_span(const shard_lexer *lx, const shard_tok *t) {
  shard_span s = {lx->src, t->off, t->len};
  return s;
}
/* Unescapes a STRING token's body (MLIR escapes: \n \t \" \\ \XX). Returns a
 * heap string (caller frees) and its length. */
char *shard_unescape_string(const char *text, uint32_t len, uint32_t *out_len);

#endif
