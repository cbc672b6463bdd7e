/* The MLIR lexer: whitespace and // comments are skipped, every token points
 * into the source. Types such as tensor<8x?xf32> are not lexed here: the
 * parser reads their bodies character by character, as MLIR's does. */
#include "ir/lex.h"

#include <ctype.h>
#include <string.h>

#include "support/arena.h"

/* Character classes by table (C_* bits below, index = byte): the lexer
 * touches every byte of the input. */
enum { C_ALPHA = 1, C_DIGIT = 2, C_BARE = 4 /* _ $ . */, C_DASH = 8, C_SPACE = 16, C_PUNCT = 32 /* (){}[]<>,:=?*+-| and NUL */ };
/* NUL is a punctuation token (the parser then reports what it expected
 * there), as it was when punctuation was found by strchr. */
static const unsigned char S_class[256] = {
    32, 0, 0, 0, 0, 0, 0, 0, 0, 16, 16, 16, 16, 16, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    16, 0, 0, 0, 4, 0, 0, 0, 32, 32, 32, 32, 32, 40, 4, 0, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 32, 0, 32, 32, 32, 32,
    0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 32, 0, 32, 0, 5,
    0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 32, 32, 32, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
};

static bool S_is_id_start(int c) { return c >= 0 && (S_class[c] & C_ALPHA); }
static bool S_is_suffix_char(int c) { return c >= 0 && (S_class[c] & (C_ALPHA | C_DIGIT | C_BARE | C_DASH)); }

void shard_lexer_init(shard_lexer *lx, const shard_source *src, uint32_t pos) {
  lx->src = src;
  lx->pos = pos;
  /* A UTF-8 byte order mark (editors on Windows write one) is not text. */
  if (pos == 0 && src->len >= 3 && memcmp(src->text, "\xEF\xBB\xBF", 3) == 0) lx->pos = 3;
}

static int S_at(const shard_lexer *lx, uint32_t i) {
  return i < lx->src->len ? (unsigned char)lx->src->text[i] : -1;
}


static void S_skip_space(shard_lexer *lx) {
  const unsigned char *t = (const unsigned char *)lx->src->text;
  uint32_t pos = lx->pos, n = (uint32_t)lx->src->len;
  for (;;) {
    while (pos < n && (S_class[t[pos]] & C_SPACE)) pos++;
    if (pos + 1 < n && t[pos] == '/' && t[pos + 1] == '/') {
      const unsigned char *nl = memchr(t + pos, '\n', n - pos);
      pos = nl ? (uint32_t)(nl - t) : n;
      continue;
    }
    break;
  }
  lx->pos = pos;
}

static shard_tok S_make(shard_lexer *lx, shard_tok_kind kind, uint32_t start) {
  shard_tok t = {kind, lx->src->text + start, lx->pos - start, start};
  return t;
}

/* string ::= '"' ([^"\\\n] | '\\' .)* '"' */
static bool S_lex_string_body(shard_lexer *lx) {
  lx->pos++; /* opening quote */
  for (;;) {
    int c = S_at(lx, lx->pos);
    if (c < 0 || c == '\n') return false;
    lx->pos++;
    if (c == '"') return true;
    if (c == '\\') {
      if (S_at(lx, lx->pos) < 0) return false;
      lx->pos++;
    }
  }
}

shard_tok shard_lex(shard_lexer *lx) {
  S_skip_space(lx);
  uint32_t start = lx->pos;
  int c = S_at(lx, lx->pos);
  if (c < 0) return S_make(lx, SHARD_TOK_EOF, start);

  if (S_is_id_start(c)) {
    const unsigned char *t = (const unsigned char *)lx->src->text;
    uint32_t pos = lx->pos + 1, n = (uint32_t)lx->src->len;
    while (pos < n && (S_class[t[pos]] & (C_ALPHA | C_DIGIT | C_BARE))) pos++;
    lx->pos = pos;
    return S_make(lx, SHARD_TOK_IDENT, start);
  }
  if (S_class[c] & C_DIGIT) {
    const unsigned char *t = (const unsigned char *)lx->src->text;
    uint32_t pos = lx->pos + 1, n = (uint32_t)lx->src->len;
    if (c == '0' && pos + 1 < n && t[pos] == 'x' && isxdigit(t[pos + 1])) {
      pos += 2;
      while (pos < n && isxdigit(t[pos])) pos++;
      lx->pos = pos;
      return S_make(lx, SHARD_TOK_INT, start);
    }
    while (pos < n && (S_class[t[pos]] & C_DIGIT)) pos++;
    lx->pos = pos;
    if (pos >= n || t[pos] != '.') return S_make(lx, SHARD_TOK_INT, start);
    lx->pos++;
    while (isdigit(S_at(lx, lx->pos))) lx->pos++;
    int e = S_at(lx, lx->pos);
    if (e == 'e' || e == 'E') {
      int s = S_at(lx, lx->pos + 1);
      uint32_t digits = lx->pos + 1 + ((s == '+' || s == '-') ? 1 : 0);
      if (isdigit(S_at(lx, digits))) {
        lx->pos = digits;
        while (isdigit(S_at(lx, lx->pos))) lx->pos++;
      }
    }
    return S_make(lx, SHARD_TOK_FLOAT, start);
  }
  if (c == '"') {
    if (!S_lex_string_body(lx)) return S_make(lx, SHARD_TOK_ERROR, start);
    return S_make(lx, SHARD_TOK_STRING, start);
  }
  if (c == '%' || c == '@' || c == '^' || c == '#' || c == '!') {
    lx->pos++;
    shard_tok_kind kind = c == '%'   ? SHARD_TOK_PERCENT
                          : c == '@' ? SHARD_TOK_AT
                          : c == '^' ? SHARD_TOK_CARET
                          : c == '#' ? SHARD_TOK_HASH
                                     : SHARD_TOK_BANG;
    if (c == '@' && S_at(lx, lx->pos) == '"') {
      if (!S_lex_string_body(lx)) return S_make(lx, SHARD_TOK_ERROR, start);
      return S_make(lx, kind, start);
    }
    while (S_is_suffix_char(S_at(lx, lx->pos))) lx->pos++;
    if (lx->pos == start + 1 && c != '#' && c != '!') return S_make(lx, SHARD_TOK_ERROR, start);
    return S_make(lx, kind, start);
  }
  lx->pos++;
  int d = S_at(lx, lx->pos);
  if ((c == '-' && d == '>') || (c == ':' && d == ':')) {
    lx->pos++;
  } else if (c == '.' && d == '.' && S_at(lx, lx->pos + 1) == '.') {
    lx->pos += 2;
  } else if (!(S_class[c] & C_PUNCT)) {
    return S_make(lx, SHARD_TOK_ERROR, start);
  }
  return S_make(lx, SHARD_TOK_PUNCT, start);
}

shard_span shard_tok_span(const shard_lexer *lx, const shard_tok *t) {
  shard_span s = {lx->src, t->off, t->len};
  return s;
}

static int S_hex(int c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

char *shard_unescape_string(const char *text, uint32_t len, uint32_t *out_len) {
  /* text includes the quotes */
  const char *s = text + 1, *end = text + len - 1;
  char *out = shard_xmalloc(len + 1);
  uint32_t n = 0;
  while (s < end) {
    if (*s != '\\' || s + 1 >= end) {
      out[n++] = *s++;
      continue;
    }
    s++;
    switch (*s) {
    case 'n': out[n++] = '\n'; s++; break;
    case 't': out[n++] = '\t'; s++; break;
    case '"': out[n++] = '"'; s++; break;
    case '\\': out[n++] = '\\'; s++; break;
    default:
      if (s + 1 < end && S_hex(s[0]) >= 0 && S_hex(s[1]) >= 0) {
        out[n++] = (char)(S_hex(s[0]) * 16 + S_hex(s[1]));
        s += 2;
      } else {
        out[n++] = *s++;
      }
    }
  }
  out[n] = 0;
  *out_len = n;
  return out;
}
