/* The MLIR lexer: whitespace and // comments are skipped, every token points
 * into the source. Types such as tensor<8x?xf32> are not lexed here: the
 * parser reads their bodies character by character, as MLIR's does. */
#include "ir/lex.h"

#include <ctype.h>
#include <string.h>

#include "support/arena.h"

/* Character classes by table (C_* bits below, index = byte): the lexer
 * touches every byte of the input. */
enum {
  C_ALPHA = SHARD_LEX_ALPHA,
  C_DIGIT = SHARD_LEX_DIGIT,
  C_BARE = SHARD_LEX_BARE,
  C_DASH = SHARD_LEX_DASH,
  C_SPACE = 16,
  C_PUNCT = 32, /* (){}[]<>,:=?*+-| and NUL */
  C_QUESTION = SHARD_LEX_QUESTION /* '?' only, for the parser's scans of type bodies */
};
/* NUL is a punctuation token (the parser then reports what it expected
 * there), as it was when punctuation was found by strchr. */
const unsigned char shard_lex_class[256] = {
    32, 0, 0, 0, 0, 0, 0, 0, 0,  16, 16, 16, 16, 16, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,  0,  0,  0,  0,  0,
    16, 0, 0, 0, 4, 0, 0, 0, 32, 32, 32, 32, 32, 40, 4, 0, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 32, 0,  32, 32, 32, 96,
    0,  1, 1, 1, 1, 1, 1, 1, 1,  1,  1,  1,  1,  1,  1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,  32, 0,  32, 0,  5,
    0,  1, 1, 1, 1, 1, 1, 1, 1,  1,  1,  1,  1,  1,  1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,  32, 32, 32, 0,  0,
    0,  0, 0, 0, 0, 0, 0, 0, 0,  0,  0,  0,  0,  0,  0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,  0,  0,  0,  0,  0,
    0,  0, 0, 0, 0, 0, 0, 0, 0,  0,  0,  0,  0,  0,  0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,  0,  0,  0,  0,  0,
    0,  0, 0, 0, 0, 0, 0, 0, 0,  0,  0,  0,  0,  0,  0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,  0,  0,  0,  0,  0,
    0,  0, 0, 0, 0, 0, 0, 0, 0,  0,  0,  0,  0,  0,  0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,  0,  0,  0,  0,  0,
};
#define S_class shard_lex_class

void shard_lexer_init(shard_lexer *lx, const shard_source *src, uint32_t pos) {
  lx->src = src;
  lx->pos = pos;
  /* A UTF-8 byte order mark (editors on Windows write one) is not text. */
  if (pos == 0 && src->len >= 3 && memcmp(src->text, "\xEF\xBB\xBF", 3) == 0) lx->pos = 3;
  lx->fast_end = 0;
  for (size_t i = src->len; i > 0; i--) {
    char c = src->text[i - 1];
    if (c == '}' || c == ')' || c == ']' || c == '>') {
      lx->fast_end = (uint32_t)(i - 1);
      break;
    }
  }
}

/* string ::= '"' ([^"\\\n] | '\\' .)* '"'; t[*pos] is the opening quote.
 * Leaves *pos after the closing quote, or where an unterminated string
 * stops (its newline or the end). */
static bool S_string_body(const unsigned char *t, uint32_t *pos, uint32_t n) {
  uint32_t i = *pos + 1;
  bool ok = false;
  while (i < n && t[i] != '\n') {
    unsigned char c = t[i++];
    if (c == '"') {
      ok = true;
      break;
    }
    if (c == '\\') {
      if (i >= n) break;
      i++;
    }
  }
  *pos = i;
  return ok;
}

/* One token into *out, from locals (the lexer sees every byte of the input,
 * and the parser asks for a token about every six bytes). */
static void S_lex_general(shard_lexer *lx, shard_tok *out);

void shard_lex_into(shard_lexer *lx, shard_tok *out) {
  /* The common tokens before fast_end, without bounds checks: every loop
   * below stops at fast_end at the latest, and a punctuation's look-ahead
   * byte is at most fast_end. Anything else (comments, strings, numbers,
   * the last bytes) takes the general path. Pointers, not offsets: these
   * loops run over every byte of the input. */
  uint32_t pos = lx->pos;
  if (pos < lx->fast_end) {
    const unsigned char *t = (const unsigned char *)lx->src->text, *q = t + pos, *end = t + lx->fast_end;
    /* most tokens follow one blank, a line's first after a newline and its
     * indentation */
    q += *q == ' ';
    while (S_class[*q] & C_SPACE) q++;
    if (q < end) {
      const unsigned char *start = q;
      unsigned c = *q, cls = S_class[c];
      shard_tok_kind kind;
      if (cls & C_ALPHA) {
        q++;
        /* two bytes a step (q[1] is there when q[0] is in the run) */
        enum { ID = C_ALPHA | C_DIGIT | C_BARE };
        while ((S_class[q[0]] & ID) && (S_class[q[1]] & ID)) q += 2;
        q += (S_class[*q] & ID) != 0;
        kind = SHARD_TOK_IDENT;
      } else if (c == '%') {
        q++;
        enum { NAME = C_ALPHA | C_DIGIT | C_BARE | C_DASH };
        while ((S_class[q[0]] & NAME) && (S_class[q[1]] & NAME)) q += 2;
        q += (S_class[*q] & NAME) != 0;
        kind = q == start + 1 ? SHARD_TOK_ERROR : SHARD_TOK_PERCENT;
      } else if ((cls & C_PUNCT) && c != '-' && c != ':' && c != 0) {
        q++;
        kind = SHARD_TOK_PUNCT;
      } else if (c == ':' || c == '-') {
        /* ':' '::' '-' '->' (before fast_end, the next byte is there) */
        q += 1 + (q[1] == (c == ':' ? ':' : '>'));
        kind = SHARD_TOK_PUNCT;
      } else if ((c == '@' && q[1] != '"') || c == '#') {
        q++;
        while (S_class[*q] & (C_ALPHA | C_DIGIT | C_BARE | C_DASH)) q++;
        kind = c == '#' ? SHARD_TOK_HASH : q == start + 1 ? SHARD_TOK_ERROR : SHARD_TOK_AT;
      } else {
        lx->pos = (uint32_t)(start - t);
        S_lex_general(lx, out);
        return;
      }
      lx->pos = (uint32_t)(q - t);
      *out = (shard_tok){kind, (const char *)start, (uint32_t)(q - start), (uint32_t)(start - t)};
      return;
    }
    lx->pos = (uint32_t)(q - t);
  }
  S_lex_general(lx, out);
}

/* Any token, with every end-of-input check. */
static void S_lex_general(shard_lexer *lx, shard_tok *out) {
  const unsigned char *t = (const unsigned char *)lx->src->text;
  uint32_t pos = lx->pos;
  uint32_t n = (uint32_t)lx->src->len;
  /* blank space and // comments */
  for (;;) {
    while (pos < n && (S_class[t[pos]] & C_SPACE)) pos++;
    if (pos + 1 < n && t[pos] == '/' && t[pos + 1] == '/') {
      const unsigned char *nl = memchr(t + pos, '\n', n - pos);
      pos = nl ? (uint32_t)(nl - t) : n;
      continue;
    }
    break;
  }
  uint32_t start = pos;
  shard_tok_kind kind;
  if (pos >= n) {
    kind = SHARD_TOK_EOF;
    goto done;
  }
  unsigned c = t[pos], cls = S_class[c];
  if (cls & C_ALPHA) {
    pos++;
    while (pos < n && (S_class[t[pos]] & (C_ALPHA | C_DIGIT | C_BARE))) pos++;
    kind = SHARD_TOK_IDENT;
  } else if (cls & C_DIGIT) {
    pos++;
    kind = SHARD_TOK_INT;
    if (c == '0' && pos + 1 < n && t[pos] == 'x' && isxdigit(t[pos + 1])) {
      pos += 2;
      while (pos < n && isxdigit(t[pos])) pos++;
      goto done;
    }
    while (pos < n && (S_class[t[pos]] & C_DIGIT)) pos++;
    if (pos >= n || t[pos] != '.') goto done;
    kind = SHARD_TOK_FLOAT;
    pos++;
    while (pos < n && isdigit(t[pos])) pos++;
    if (pos < n && (t[pos] == 'e' || t[pos] == 'E')) {
      uint32_t digits = pos + 1;
      if (digits < n && (t[digits] == '+' || t[digits] == '-')) digits++;
      if (digits < n && isdigit(t[digits])) {
        pos = digits;
        while (pos < n && isdigit(t[pos])) pos++;
      }
    }
  } else if (c == '"') {
    kind = S_string_body(t, &pos, n) ? SHARD_TOK_STRING : SHARD_TOK_ERROR;
  } else if (c == '%' || c == '@' || c == '^' || c == '#' || c == '!') {
    pos++;
    kind = c == '%'   ? SHARD_TOK_PERCENT
           : c == '@' ? SHARD_TOK_AT
           : c == '^' ? SHARD_TOK_CARET
           : c == '#' ? SHARD_TOK_HASH
                      : SHARD_TOK_BANG;
    if (c == '@' && pos < n && t[pos] == '"') {
      if (!S_string_body(t, &pos, n)) kind = SHARD_TOK_ERROR;
      goto done;
    }
    while (pos < n && (S_class[t[pos]] & (C_ALPHA | C_DIGIT | C_BARE | C_DASH))) pos++;
    if (pos == start + 1 && c != '#' && c != '!') kind = SHARD_TOK_ERROR;
  } else {
    pos++;
    kind = SHARD_TOK_PUNCT;
    int d = pos < n ? t[pos] : -1;
    if ((c == '-' && d == '>') || (c == ':' && d == ':')) {
      pos++;
    } else if (c == '.' && d == '.' && pos + 1 < n && t[pos + 1] == '.') {
      pos += 2;
    } else if (!(cls & C_PUNCT)) {
      kind = SHARD_TOK_ERROR;
    }
  }
done:
  lx->pos = pos;
  *out = (shard_tok){kind, lx->src->text + start, pos - start, start};
}

shard_tok shard_lex(shard_lexer *lx) {
  shard_tok t;
  shard_lex_into(lx, &t);
  return t;
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
    case 'n':
      out[n++] = '\n';
      s++;
      break;
    case 't':
      out[n++] = '\t';
      s++;
      break;
    case '"':
      out[n++] = '"';
      s++;
      break;
    case '\\':
      out[n++] = '\\';
      s++;
      break;
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
