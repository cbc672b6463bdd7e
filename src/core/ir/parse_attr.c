/* Types and attributes of the MLIR syntax.
 *
 * Types are read character by character where MLIR's grammar needs it
 * (tensor<8x?xf32> is not a token sequence). Attributes shard models are
 * built structurally; any other attribute is captured verbatim by balanced
 * bracket scanning, so unknown dialects round-trip untouched. */
#include <errno.h>
#include <stdio.h>
#include <inttypes.h>
#include <stdlib.h>
#include <ctype.h>
#include <string.h>

#include "ir/attr_stablehlo_mesh.h"
#include "ir/ops_chlo.h"
#include "ir/parse_internal.h"

/* ---- character-level helpers ------------------------------------------ */

/* Drops the lookahead token so the lexer position is at its start. */
static void S_sync(shard_parser *p) {
  if (p->has_tok) {
    p->lx.pos = p->tok.off;
    p->has_tok = false;
  }
}

static int S_ch(shard_parser *p, uint32_t pos) {
  return pos < p->lx.src->len ? (unsigned char)p->lx.src->text[pos] : -1;
}

static void S_skip_ws(shard_parser *p) {
  S_sync(p);
  for (;;) {
    int c = S_ch(p, p->lx.pos);
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') p->lx.pos++;
    else if (c == '/' && S_ch(p, p->lx.pos + 1) == '/')
      while (p->lx.pos < p->lx.src->len && p->lx.src->text[p->lx.pos] != '\n') p->lx.pos++;
    else return;
  }
}

/* The first character at or after pos that is not white space. */
static int S_next_ch_after_ws(shard_parser *p, uint32_t pos) {
  int c;
  while ((c = S_ch(p, pos)) == ' ' || c == '\t' || c == '\n' || c == '\r') pos++;
  return c;
}

static shard_span S_span_at(shard_parser *p, uint32_t off, uint32_t len) {
  shard_span s = {p->lx.src, off, len};
  return s;
}

/* From an opening bracket at `pos`, returns the offset just past its match,
 * or 0 when unbalanced. Strings are skipped and `->` does not close a '<'. */
/* Deeper groups than the parser's nesting limit count as unbalanced; the
 * caller reports them (S_capture_group says which). */
#define BALANCED_MAX_DEPTH 1024
static uint32_t S_balanced_end(shard_parser *p, uint32_t pos) {
  char stack[BALANCED_MAX_DEPTH];
  int depth = 0;
  int limit = p->max_depth < BALANCED_MAX_DEPTH ? (int)p->max_depth : BALANCED_MAX_DEPTH;
  const char *t = p->lx.src->text;
  uint32_t n = p->lx.src->len;
  for (uint32_t i = pos; i < n; i++) {
    char c = t[i];
    if (c == '"') {
      for (i++; i < n && t[i] != '"'; i++)
        if (t[i] == '\\') i++;
      continue;
    }
    /* a // comment ends at the line's end: its brackets do not count (the
     * captured text drops comments when it folds lines, see S_fold_lines) */
    if (c == '/' && i + 1 < n && t[i + 1] == '/') {
      while (i + 1 < n && t[i + 1] != '\n') i++;
      continue;
    }
    if (c == '-' && i + 1 < n && t[i + 1] == '>') {
      i++;
      continue;
    }
    if (c == '<' || c == '(' || c == '[' || c == '{') {
      if (depth == limit) return 0;
      stack[depth++] = c == '<' ? '>' : c == '(' ? ')' : c == '[' ? ']' : '}';
    } else if (c == '>' || c == ')' || c == ']' || c == '}') {
      if (depth == 0 || stack[depth - 1] != c) return 0;
      if (--depth == 0) return i + 1;
    }
  }
  return 0;
}

/* Captures text from `start` through the bracket group beginning at the
 * current position (which must hold the opening bracket). */
/* Copies verbatim attribute text, folding line breaks the way MLIR's
 * printers lay such attributes out on one line: a run of white space (and
 * // comments) with a newline becomes one space, or nothing next to a
 * bracket. Strings are kept. */
static const char *S_fold_lines(shard_arena *a, const char *text, uint32_t n) {
  if (!memchr(text, '\n', n)) return shard_arena_strndup(a, text, n);
  char *out = shard_arena_alloc(a, n + 1);
  uint32_t o = 0;
  for (uint32_t i = 0; i < n;) {
    char c = text[i];
    if (c == '"') {
      out[o++] = text[i++];
      while (i < n && text[i] != '"') {
        if (text[i] == '\\' && i + 1 < n) out[o++] = text[i++];
        out[o++] = text[i++];
      }
      if (i < n) out[o++] = text[i++];
      continue;
    }
    bool comment = c == '/' && i + 1 < n && text[i + 1] == '/';
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || comment) {
      uint32_t j = i;
      bool newline = false;
      for (;;) {
        if (j < n && (text[j] == ' ' || text[j] == '\t' || text[j] == '\n' || text[j] == '\r')) {
          if (text[j] == '\n') newline = true;
          j++;
        } else if (j + 1 < n && text[j] == '/' && text[j + 1] == '/') {
          /* a comment runs to the end of its line: it is white space */
          while (j < n && text[j] != '\n') j++;
          newline = true;
        } else {
          break;
        }
      }
      if (!newline) {
        while (i < j) out[o++] = text[i++];
        continue;
      }
      bool after_open = o > 0 && strchr("<([{", out[o - 1]);
      bool before_close = j < n && strchr(">)]}", text[j]);
      if (!after_open && !before_close && o > 0) out[o++] = ' ';
      i = j;
      continue;
    }
    out[o++] = text[i++];
  }
  out[o] = 0;
  return out;
}

/* Whether text[0..n) is an element literal of a dense payload: true, false,
 * a decimal integer or float ([+-]digits[.digits][e[+-]digits]), a hex
 * bit pattern (0x...), or inf/nan (kept as written). */
static bool S_dense_leaf_ok(const char *t, size_t n) {
  if ((n == 4 && !memcmp(t, "true", 4)) || (n == 5 && !memcmp(t, "false", 5))) return true;
  size_t i = 0;
  if (i < n && (t[i] == '+' || t[i] == '-')) i++;
  if (n - i == 3 && (!memcmp(t + i, "inf", 3) || !memcmp(t + i, "nan", 3))) return true;
  if (n - i > 2 && t[i] == '0' && (t[i + 1] == 'x' || t[i + 1] == 'X')) {
    for (i += 2; i < n; i++)
      if (!isxdigit((unsigned char)t[i])) return false;
    return true;
  }
  size_t digits = 0;
  while (i < n && isdigit((unsigned char)t[i])) i++, digits++;
  if (!digits) return false;
  if (i < n && t[i] == '.')
    for (i++; i < n && isdigit((unsigned char)t[i]); i++) {
    }
  if (i < n && (t[i] == 'e' || t[i] == 'E')) {
    i++;
    if (i < n && (t[i] == '+' || t[i] == '-')) i++;
    size_t exp = 0;
    while (i < n && isdigit((unsigned char)t[i])) i++, exp++;
    if (!exp) return false;
  }
  return i == n;
}

/* One element of a dense payload at src[*i] (before `end`): a quoted string
 * or a literal; *i moves past it. */
static bool S_dense_element(shard_parser *p, uint32_t *i, uint32_t end) {
  const char *src = p->lx.src->text;
  uint32_t start = *i;
  if (src[start] == '"') {
    for ((*i)++; *i < end && src[*i] != '"'; (*i)++)
      if (src[*i] == '\\') (*i)++;
    (*i)++;
    return true;
  }
  while (*i < end && !strchr("[](), \t\r\n\"", src[*i])) (*i)++;
  if (!S_dense_leaf_ok(src + start, *i - start))
    return shard_parser_error_at(p, S_span_at(p, start, *i > start ? *i - start : 1),
                                 "expected element literal of primitive type");
  return true;
}

/* An error at src[i] where another token was expected, placed as MLIR
 * places it: after a blank, at the blank that follows the previous token. */
static bool S_dense_wrong_token(shard_parser *p, uint32_t from, uint32_t i, const char *msg) {
  const char *src = p->lx.src->text;
  uint32_t at = i;
  while (at > from + 1 && (src[at - 1] == ' ' || src[at - 1] == '\t' || src[at - 1] == '\r' || src[at - 1] == '\n'))
    at--;
  return shard_parser_error_at(p, S_span_at(p, at, 1), "%s", msg);
}

static uint32_t S_dense_skip_blanks(const char *src, uint32_t i, uint32_t end) {
  while (i < end && (src[i] == ' ' || src[i] == '\t' || src[i] == '\r' || src[i] == '\n')) i++;
  return i;
}

/* The elements of dense<...> (source [from, to), brackets included), read as
 * MLIR's TensorLiteralParser reads them: an element, a complex pair
 * `(re, im)`, or a bracketed comma-separated list of those or of lists;
 * anything else is an error with MLIR's message (the payload is kept as
 * text, and its print folds whitespace, so stray text could print as
 * something else, a comment even). Nesting is counted, not recursed into:
 * only '[' nests. */
static bool S_check_dense_elements(shard_parser *p, uint32_t from, uint32_t to) {
  const char *src = p->lx.src->text;
  uint32_t end = to - 1, depth = 0;
  bool expect_value = true;
  for (uint32_t i = S_dense_skip_blanks(src, from + 1, end); i < end; i = S_dense_skip_blanks(src, i, end)) {
    char c = src[i];
    if (!expect_value) {
      if (depth == 0) return S_dense_wrong_token(p, from, i, "expected '>'");
      if (c == ',') expect_value = true;
      else if (c == ']') depth--;
      else return S_dense_wrong_token(p, from, i, "expected ']'");
      i++;
      continue;
    }
    if (c == '[') {
      depth++;
      i = S_dense_skip_blanks(src, i + 1, end);
      if (i < end && src[i] == ']') {
        depth--;
        i++;
        expect_value = false;
      }
      continue;
    }
    if (c == '(') {
      i = S_dense_skip_blanks(src, i + 1, end);
      if (!S_dense_element(p, &i, end)) return false;
      i = S_dense_skip_blanks(src, i, end);
      if (i >= end || src[i] != ',') return S_dense_wrong_token(p, from, i, "expected ',' between complex elements");
      i = S_dense_skip_blanks(src, i + 1, end);
      if (!S_dense_element(p, &i, end)) return false;
      i = S_dense_skip_blanks(src, i, end);
      if (i >= end || src[i] != ')') return S_dense_wrong_token(p, from, i, "expected ')' after complex elements");
      i++;
    } else if (!S_dense_element(p, &i, end)) {
      return false;
    }
    expect_value = false;
  }
  if (expect_value && depth)
    return shard_parser_error_at(p, S_span_at(p, end, 1), "expected element literal of primitive type");
  return true;
}

static bool S_capture_group(shard_parser *p, uint32_t start, const char **out) {
  S_sync(p);
  uint32_t end = S_balanced_end(p, p->lx.pos);
  if (!end) {
    /* too deep, or really unbalanced? count the openers up to the limit */
    uint32_t depth = 0, i = p->lx.pos;
    for (; i < p->lx.src->len && depth <= p->max_depth; i++) {
      char c = p->lx.src->text[i];
      if (c == '<' || c == '(' || c == '[' || c == '{') depth++;
      else if (c == '>' || c == ')' || c == ']' || c == '}') break;
    }
    if (depth > p->max_depth)
      return shard_parser_error_at(p, S_span_at(p, i - 1, 1), "nesting is deeper than %u levels", p->max_depth);
    return shard_parser_error_at(p, S_span_at(p, p->lx.pos, 1), "unbalanced brackets");
  }
  /* The captured text lives on as a C string: a NUL would cut it short
   * when printed (and the print would not parse again). */
  const char *nul = memchr(p->lx.src->text + start, '\0', end - start);
  if (nul)
    return shard_parser_error_at(p, S_span_at(p, (uint32_t)(nul - p->lx.src->text), 1),
                                 "unexpected NUL character in an attribute");
  *out = S_fold_lines(p->arena, p->lx.src->text + start, end - start);
  p->lx.pos = end;
  return true;
}

static const alias_def *S_find_alias(const alias_def *list, uint32_t n, const char *name, uint32_t len) {
  for (uint32_t i = n; i-- > 0;)
    if (list[i].len == len && memcmp(list[i].name, name, len) == 0) return &list[i];
  return NULL;
}

/* ---- types ------------------------------------------------------------ */

static bool S_tensor_body(shard_parser *p, shard_type **out);
/* The parts of a function type, on the stack for the usual few. */
typedef SHARD_SVEC(shard_type *, 8) S_types;
static bool S_type_list(shard_parser *p, S_types *out);

/* Builtin type keywords: i32, si8, ui64, f32, f8E4M3FN, bf16, tf32, index,
 * none; with '<': vector, memref, complex, tuple, tensor. Anything else is
 * not a type (MLIR: "expected non-function type"). */
static bool S_builtin_type_name(const shard_tok *t, bool angle) {
  if (angle)
    return shard_tok_is(t, "vector") || shard_tok_is(t, "memref") || shard_tok_is(t, "complex") ||
           shard_tok_is(t, "tuple") || shard_tok_is(t, "tensor");
  if (shard_tok_is(t, "index") || shard_tok_is(t, "none") || shard_tok_is(t, "bf16") || shard_tok_is(t, "tf32"))
    return true;
  const char *s = t->text;
  uint32_t n = t->len, i = 0;
  if (n > 2 && (s[0] == 's' || s[0] == 'u') && s[1] == 'i') i = 2;
  else if (n > 1 && s[0] == 'i') i = 1;
  else if (n > 1 && s[0] == 'f' && s[1] >= '0' && s[1] <= '9') return true; /* f16, f8E5M2, ... */
  else return false;
  if (i >= n) return false;
  for (; i < n; i++)
    if (s[i] < '0' || s[i] > '9') return false;
  return true;
}

// type ::= tensor-type | tuple-type | function-type | '!' alias | '!' dialect-type | builtin
/* The function type of these parts, shared by every op of the same
 * signature (its parts are themselves shared through the type cache). */
static shard_type *S_function_type(shard_parser *p, shard_type **in, uint32_t nin, shard_type **out, uint32_t nout) {
  enum { INLINE_PARTS = 16 };
  shard_type *stack_key[INLINE_PARTS + 1];
  uint32_t nparts = nin + nout + 1;
  shard_type **key = nparts <= INLINE_PARTS + 1 ? stack_key : shard_xmalloc(sizeof *key * nparts);
  key[0] = (shard_type *)(uintptr_t)nin; /* where the inputs end */
  if (nin) memcpy(key + 1, in, sizeof *in * nin);
  if (nout) memcpy(key + 1 + nin, out, sizeof *out * nout);
  size_t len = sizeof *key * nparts;
  shard_type *t = shard_strmap_get(&p->fn_type_cache, (const char *)key, len);
  if (!t) {
    t = shard_type_function(p->arena, in, nin, out, nout);
    shard_strmap_put(&p->fn_type_cache, shard_arena_dup(p->arena, key, len), len, t);
  }
  if (key != stack_key) free(key);
  return t;
}

/* !quant.uniform<...> (the '<' is next): read and checked by the type's
 * owner (ir/type.c), kept in its canonical printed form. */
static bool S_quant_type(shard_parser *p, uint32_t start, shard_type **out) {
  const char *text;
  if (!S_capture_group(p, start, &text)) return false;
  const char *src = p->lx.src->text + start;
  shard_quant q;
  const char *err;
  size_t off;
  if (!shard_quant_parse(p->arena, src, p->lx.pos - start, &q, &err, &off))
    return shard_parser_error_at(p, S_span_at(p, start + (uint32_t)off, 1), "%s", err);
  shard_buf b;
  shard_buf_init(&b);
  shard_quant_print(&b, &q);
  *out = shard_type_other(p->arena, shard_parser_intern(p, shard_buf_str(&b), (uint32_t)b.len));
  shard_buf_free(&b);
  return true;
}

/* The end of `tensor<` dims and element type `>` at s[i] (no encoding, no
 * nested type), or 0. */
static uint32_t S_plain_tensor_end(const char *s, uint32_t i, uint32_t n) {
  if (n - i < 8 || memcmp(s + i, "tensor<", 7) != 0) return 0;
  i = shard_lex_scan(s, i + 7, n, SHARD_LEX_ALPHA | SHARD_LEX_DIGIT | SHARD_LEX_QUESTION);
  return i < n && s[i] == '>' ? i + 1 : 0;
}

/* The end of a parenthesised list of plain tensor types, blanks after its
 * commas, at s[i] ('('), or 0. */
static uint32_t S_plain_tensor_list_end(const char *s, uint32_t i, uint32_t n) {
  i++;
  if (i < n && s[i] == ')') return i + 1;
  for (;;) {
    if (!(i = S_plain_tensor_end(s, i, n))) return 0;
    if (i < n && s[i] == ')') return i + 1;
    if (i >= n || s[i] != ',') return 0;
    for (i++; i < n && s[i] == ' ';) i++;
  }
}

/* The end of a function type of plain tensor types spelled on one line,
 * `(tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>`, at s[i] ('('), or 0:
 * such text always reads as the same type, so it is read once. */
static uint32_t S_plain_fn_type_end(const char *s, uint32_t i, uint32_t n) {
  if (!(i = S_plain_tensor_list_end(s, i, n))) return 0;
  while (i < n && s[i] == ' ') i++;
  if (n - i < 2 || s[i] != '-' || s[i + 1] != '>') return 0;
  for (i += 2; i < n && s[i] == ' ';) i++;
  if (i < n && s[i] == '(') return S_plain_tensor_list_end(s, i, n);
  return S_plain_tensor_end(s, i, n);
}

static bool S_type(shard_parser *p, shard_type **out);

bool shard_parser_type(shard_parser *p, shard_type **out) {
  const shard_tok *t = shard_parser_peek_ref(p);
  /* a plain function type read before (its parts nest two levels deep) */
  if (t->kind != SHARD_TOK_PUNCT || t->text[0] != '(' || p->depth + 2 > p->max_depth) return S_type(p, out);
  const char *src = p->lx.src->text;
  uint32_t start = t->off, end = S_plain_fn_type_end(src, start, (uint32_t)p->lx.src->len);
  if (!end) return S_type(p, out);
  shard_type *cached = shard_strmap_get(&p->fn_text_cache, src + start, end - start);
  if (cached) {
    p->has_tok = false;
    p->lx.pos = end;
    *out = cached;
    return true;
  }
  if (!S_type(p, out)) return false;
  if (!p->has_tok && p->lx.pos == end) shard_strmap_put(&p->fn_text_cache, src + start, end - start, *out);
  return true;
}

static bool S_type(shard_parser *p, shard_type **out) {
  if (!shard_parser_enter(p)) return false;
  bool ok = false;
  shard_tok t = *shard_parser_peek_ref(p);
  uint32_t start = t.off;
  if (t.kind == SHARD_TOK_PUNCT && shard_tok_is(&t, "(")) {
    shard_parser_next(p);
    S_types ins, outs;
    SHARD_SVEC_INIT(ins);
    SHARD_SVEC_INIT(outs);
    if (!shard_parser_accept(p, ")")) {
      do {
        shard_type *ty;
        if (!shard_parser_type(p, &ty)) goto fn_done;
        SHARD_SVEC_PUSH(ins, ty);
      } while (shard_parser_accept(p, ","));
      if (!shard_parser_expect(p, ")")) goto fn_done;
    }
    if (!shard_parser_expect(p, "->")) goto fn_done;
    if (!S_type_list(p, &outs)) goto fn_done;
    *out = S_function_type(p, ins.items, ins.len, outs.items, outs.len);
    ok = true;
  fn_done:
    SHARD_SVEC_FREE(ins);
    SHARD_SVEC_FREE(outs);
  } else if (t.kind == SHARD_TOK_BANG) {
    shard_parser_next(p);
    const char *name = t.text + 1;
    uint32_t len = t.len - 1;
    if (S_ch(p, p->lx.pos) == '<' && len == 13 && memcmp(name, "quant.uniform", 13) == 0) {
      ok = S_quant_type(p, start, out);
    } else if (S_ch(p, p->lx.pos) == '<') {
      const char *text;
      ok = S_capture_group(p, start, &text);
      if (ok) *out = shard_type_other(p->arena, text);
    } else if (memchr(name, '.', len)) {
      *out = shard_type_other(p->arena, shard_arena_strndup(p->arena, t.text, t.len));
      ok = true;
    } else {
      const alias_def *a = S_find_alias(p->type_aliases.items, p->type_aliases.len, name, len);
      if (!a)
        ok = shard_parser_error_at(p, shard_parser_span(p, &t), "undefined symbol alias id '%.*s'", (int)len, name);
      else {
        *out = a->type;
        ok = true;
      }
    }
  } else if (t.kind == SHARD_TOK_IDENT) {
    shard_parser_next(p);
    bool angle = S_ch(p, p->lx.pos) == '<';
    if (angle && t.len == 6 && memcmp(t.text, "tensor", 6) == 0) {
      ok = S_tensor_body(p, out); /* nearly every type a module spells */
    } else if (!S_builtin_type_name(&t, angle)) {
      ok = shard_parser_error_at(p, shard_parser_span(p, &t), "expected non-function type");
    } else if (shard_tok_is(&t, "tensor") && angle) {
      ok = S_tensor_body(p, out);
    } else if (shard_tok_is(&t, "tuple") && angle) {
      shard_parser_next(p); /* '<' */
      SHARD_VEC(shard_type *) elems = {0};
      ok = true;
      if (!shard_parser_accept(p, ">")) {
        do {
          shard_type *ty;
          if (!(ok = shard_parser_type(p, &ty))) break;
          SHARD_VEC_PUSH(elems, ty);
        } while (shard_parser_accept(p, ","));
        if (ok) ok = shard_parser_expect(p, ">");
      }
      if (ok) *out = shard_type_tuple(p->arena, elems.items, elems.len);
      SHARD_VEC_FREE(elems);
    } else if (angle) {
      const char *text;
      ok = S_capture_group(p, start, &text);
      if (ok) *out = shard_type_other(p->arena, text);
    } else {
      *out = shard_type_other(p->arena, shard_parser_intern(p, t.text, t.len));
      ok = true;
    }
  } else {
    ok = shard_parser_error(p, "expected non-function type");
  }
  shard_parser_leave(p);
  return ok;
}

// tensor-type ::= 'tensor' '<' ('*' 'x' | (dim 'x')*) elem-type (',' encoding)? '>'
static bool S_tensor_body_uncached(shard_parser *p, shard_type **out);

/* The same text always denotes the same type, so a type read once is reused
 * for every later occurrence of its exact source text. */
static bool S_tensor_body(shard_parser *p, shard_type **out) {
  S_sync(p);
  uint32_t lt = p->lx.pos;
  /* the common body, dimensions and an element type (<8x?x128xf32>), ends at
   * the first '>'; anything else (encodings, nested types) is matched */
  const char *src = p->lx.src->text;
  uint32_t n = (uint32_t)p->lx.src->len;
  uint32_t end = shard_lex_scan(src, lt + 1, n, SHARD_LEX_ALPHA | SHARD_LEX_DIGIT | SHARD_LEX_QUESTION);
  if (end < n && src[end] == '>') end++;
  else end = S_balanced_end(p, lt);
  const char *text = p->lx.src->text + lt;
  uint32_t len = end ? end - lt : 0;
  if (len) {
    shard_type *cached = shard_strmap_get(&p->type_cache, text, len);
    if (cached) {
      *out = cached;
      p->lx.pos = end;
      return true;
    }
  }
  if (!S_tensor_body_uncached(p, out)) return false;
  if (len && p->lx.pos == end && *out) shard_strmap_put(&p->type_cache, text, len, *out);
  return true;
}

static bool S_tensor_body_uncached(shard_parser *p, shard_type **out) {
  S_sync(p);
  p->lx.pos++; /* '<' */
  // unranked ::= '<' '*' 'x' elem-type '>'
  if (S_ch(p, p->lx.pos) == '*') {
    p->lx.pos++;
    S_skip_ws(p); /* MLIR lexes '*' and 'x' as tokens: `* x f32` is fine */
    if (S_ch(p, p->lx.pos) != 'x')
      return shard_parser_error_at(p, S_span_at(p, p->lx.pos, 1), "expected 'x' in dimension list");
    p->lx.pos++;
    shard_type *elem;
    if (!shard_parser_type(p, &elem) || !shard_parser_expect(p, ">")) return false;
    *out = shard_type_other(p->arena, shard_arena_printf(p->arena, "tensor<*x%s>", elem->text));
    return true;
  }
  SHARD_VEC(int64_t) dims = {0};
  for (;;) {
    S_skip_ws(p);
    int c = S_ch(p, p->lx.pos);
    uint32_t dstart = p->lx.pos;
    int64_t d;
    if (c == '?') {
      p->lx.pos++;
      d = SHARD_DYNAMIC_DIM;
    } else if (c >= '0' && c <= '9') {
      d = 0;
      while ((c = S_ch(p, p->lx.pos)) >= '0' && c <= '9') {
        if (d > (INT64_MAX - (c - '0')) / 10) {
          SHARD_VEC_FREE(dims);
          return shard_parser_error_at(p, S_span_at(p, dstart, p->lx.pos - dstart + 1),
                                       "tensor dimension is too large");
        }
        d = d * 10 + (c - '0');
        p->lx.pos++;
      }
    } else {
      break;
    }
    if (S_ch(p, p->lx.pos) != 'x') {
      SHARD_VEC_FREE(dims);
      return shard_parser_error_at(p, S_span_at(p, p->lx.pos, 1), "expected 'x' in dimension list");
    }
    p->lx.pos++;
    SHARD_VEC_PUSH(dims, d);
  }
  shard_type *elem;
  S_skip_ws(p);
  uint32_t elem_at = p->lx.pos;
  if (!shard_parser_type(p, &elem)) {
    SHARD_VEC_FREE(dims);
    return false;
  }
  const char *encoding = NULL;
  if (shard_parser_accept(p, ",")) {
    S_skip_ws(p);
    uint32_t estart = p->lx.pos;
    /* the encoding is an attribute; keep its text */
    shard_attr *enc;
    if (!shard_parser_attr(p, &enc)) {
      SHARD_VEC_FREE(dims);
      return false;
    }
    S_sync(p);
    uint32_t eend = p->lx.pos;
    while (eend > estart && (p->lx.src->text[eend - 1] == ' ' || p->lx.src->text[eend - 1] == '\n')) eend--;
    encoding = shard_arena_strndup(p->arena, p->lx.src->text + estart, eend - estart);
  }
  if (!shard_parser_expect(p, ">")) {
    SHARD_VEC_FREE(dims);
    return false;
  }
  *out = shard_type_tensor(p->arena, dims.len, dims.items, elem->text, encoding);
  SHARD_VEC_FREE(dims);
  const char *bad = (*out)->quant ? shard_quant_check_shape(p->arena, (*out)->quant, (*out)->rank, (*out)->dims) : NULL;
  if (bad) return shard_parser_error_at(p, S_span_at(p, elem_at, 1), "%s", bad);
  return true;
}

/* t or (t1, t2), appended to `out` (the results of a function type) */
static bool S_type_list(shard_parser *p, S_types *out) {
  if (shard_parser_accept(p, "(")) {
    if (shard_parser_accept(p, ")")) return true;
    do {
      shard_type *t;
      if (!shard_parser_type(p, &t)) return false;
      SHARD_SVEC_PUSH(*out, t);
    } while (shard_parser_accept(p, ","));
    return shard_parser_expect(p, ")");
  }
  shard_type *t;
  if (!shard_parser_type(p, &t)) return false;
  SHARD_SVEC_PUSH(*out, t);
  return true;
}

/* ---- attributes --------------------------------------------------------- */

static bool S_int_text(shard_parser *p, const shard_tok *t, bool neg, int64_t *out) {
  errno = 0;
  char buf[72];
  if (t->len >= sizeof buf - 2) return false;
  int n = snprintf(buf, sizeof buf, "%s%.*s", neg ? "-" : "", (int)t->len, t->text);
  (void)n;
  char *end;
  if (t->len > 2 && t->text[1] == 'x') {
    uint64_t u = strtoull(buf + (neg ? 1 : 0), &end, 16);
    if (errno) return false;
    *out = neg ? -(int64_t)u : (int64_t)u;
    return true;
  }
  long long v = strtoll(buf, &end, 10);
  if (errno) return false;
  *out = v;
  return true;
}

/* Bit width of an integer or index type written as text (i32, si8, ui16,
 * index); 0 for anything else. Sets *is_unsigned for ui, *is_signed for si. */
static unsigned S_int_type_width(const shard_type *ty, bool *is_unsigned, bool *is_signed) {
  const char *t = ty->text;
  *is_unsigned = *is_signed = false;
  if (strcmp(t, "index") == 0) return 64;
  if (t[0] == 's' && t[1] == 'i') t += 2, *is_signed = true;
  else if (t[0] == 'u' && t[1] == 'i') t += 2, *is_unsigned = true;
  else if (t[0] == 'i') t += 1;
  else return 0;
  if (*t < '0' || *t > '9') return 0;
  char *end;
  unsigned long w = strtoul(t, &end, 10);
  return *end || w > 1u << 24 ? 0 : (unsigned)w;
}

/* MLIR rejects an integer literal that does not fit its type: the magnitude
 * must fit in the type's width (one bit less for a positive si value), a
 * negative value must fit as two's complement and unsigned types take no '-'.
 * The error points at the digits, after any '-', as MLIR's does. Widths above
 * 64 bits are not checked: the literal text is kept as written anyway. */
static bool S_check_int_range(shard_parser *p, const shard_tok *t, bool neg, const shard_type *ty) {
  shard_span at = shard_parser_span(p, t);
  bool is_unsigned, is_signed;
  unsigned width = S_int_type_width(ty, &is_unsigned, &is_signed);
  if (width == 0) return true;
  if (neg && is_unsigned)
    return shard_parser_error_at(p, at, "negative integer literal not valid for unsigned integer type");
  if (width > 64) return true;
  char digits[72];
  bool huge = t->len >= sizeof digits;
  uint64_t mag = 0;
  if (!huge) {
    bool hex = t->len > 2 && t->text[1] == 'x';
    snprintf(digits, sizeof digits, "%.*s", (int)t->len, t->text);
    errno = 0;
    mag = strtoull(digits, NULL, hex ? 16 : 10);
    huge = errno == ERANGE;
  }
  bool fits = !huge && (width == 64 || mag >> width == 0);
  if (fits && neg && mag != 0) fits = mag - 1 <= (UINT64_MAX >> (65 - width));
  if (fits && !neg && is_signed) fits = mag >> (width - 1) == 0;
  if (!fits) return shard_parser_error_at(p, at, "integer constant out of range for attribute");
  return true;
}

static bool S_number_attr(shard_parser *p, shard_attr **out) {
  shard_tok first = shard_parser_peek(p);
  bool neg = shard_parser_accept(p, "-");
  shard_tok t = shard_parser_next(p);
  shard_attr *a;
  if (t.kind == SHARD_TOK_INT) {
    a = shard_attr_new(p->arena, SHARD_ATTR_INT);
    if (!S_int_text(p, &t, neg, &a->u.integer.value))
      a->u.integer.text = shard_arena_printf(p->arena, "%s%.*s", neg ? "-" : "", (int)t.len, t.text);
  } else if (t.kind == SHARD_TOK_FLOAT) {
    a = shard_attr_new(p->arena, SHARD_ATTR_FLOAT);
    a->u.flt.text = shard_arena_printf(p->arena, "%s%.*s", neg ? "-" : "", (int)t.len, t.text);
  } else {
    return shard_parser_error_at(p, shard_parser_span(p, &t), "expected integer or float literal");
  }
  a->span = shard_span_join(shard_parser_span(p, &first), shard_parser_span(p, &t));
  if (shard_parser_accept(p, ":")) {
    shard_type *ty;
    if (!shard_parser_type(p, &ty)) return false;
    if (a->kind == SHARD_ATTR_INT) {
      if (!S_check_int_range(p, &t, neg, ty)) return false;
      a->u.integer.type = ty;
      /* a float attribute may be written as its bit pattern in hex, never as
       * a decimal integer (MLIR's rule) */
      if (ty->text[0] == 'f' || strcmp(ty->text, "bf16") == 0) {
        bool hex = t.len > 2 && t.text[1] == 'x';
        if (!hex)
          return shard_parser_error_at(p, shard_parser_span(p, &t),
                                       "unexpected decimal integer literal for a floating point value");
        const char *text = shard_arena_printf(p->arena, "%s%.*s", neg ? "-" : "", (int)t.len, t.text);
        a->kind = SHARD_ATTR_FLOAT;
        a->u.flt.text = text;
        a->u.flt.type = ty;
      }
    } else {
      a->u.flt.type = ty;
    }
  } else if (a->kind == SHARD_ATTR_INT) {
    /* an integer without a type is an i64: it must fit in 64 bits */
    static const shard_type i64 = {.kind = SHARD_TYPE_OTHER, .text = "i64"};
    if (!S_check_int_range(p, &t, neg, &i64)) return false;
  }
  *out = a;
  return true;
}

static int S_cmp_named(const void *x, const void *y) {
  const shard_named_attr *a = x, *b = y;
  return strcmp(a->name, b->name);
}

// dict ::= '{' (name ('=' attr)?) (',' ...)* '}'
bool shard_parser_properties(shard_parser *p, shard_op_state *st) {
  if (!shard_parser_accept(p, "<")) return true;
  shard_named_attr *props;
  uint32_t n;
  if (!shard_parser_attr_dict_into(p, &props, &n) || !shard_parser_expect(p, ">")) return false;
  for (uint32_t i = 0; i < n; i++) shard_op_state_add_attr(st, props[i].name, props[i].value, true);
  return true;
}

bool shard_parser_attr_dict_into(shard_parser *p, shard_named_attr **out, uint32_t *n) {
  if (!shard_parser_expect(p, "{")) return false;
  SHARD_VEC(shard_named_attr) entries = {0};
  bool ok = true;
  if (!shard_parser_accept(p, "}")) {
    do {
      shard_tok t = shard_parser_next(p);
      const char *name;
      if (t.kind == SHARD_TOK_IDENT) {
        name = shard_parser_intern(p, t.text, t.len);
      } else if (t.kind == SHARD_TOK_STRING) {
        uint32_t len;
        char *s = shard_unescape_string(t.text, t.len, &len);
        name = shard_parser_intern(p, s, len);
        free(s);
      } else {
        ok = shard_parser_error_at(p, shard_parser_span(p, &t), "expected attribute name");
        break;
      }
      shard_attr *v;
      if (shard_parser_accept(p, "=")) {
        if (!(ok = shard_parser_attr(p, &v))) break;
      } else {
        v = shard_attr_new(p->arena, SHARD_ATTR_UNIT);
      }
      for (uint32_t i = 0; i < entries.len; i++)
        if (strcmp(entries.items[i].name, name) == 0) {
          ok = shard_parser_error_at(p, shard_parser_span(p, &t), "duplicate key '%s' in dictionary attribute", name);
          break;
        }
      if (!ok) break;
      shard_named_attr na = {name, v, false};
      SHARD_VEC_PUSH(entries, na);
    } while (shard_parser_accept(p, ","));
    if (ok) ok = shard_parser_expect(p, "}");
  }
  if (ok) {
    if (entries.len) qsort(entries.items, entries.len, sizeof(shard_named_attr), S_cmp_named);
    *n = entries.len;
    SHARD_VEC_FREEZE(p->arena, entries, *out);
  } else {
    SHARD_VEC_FREE(entries);
  }
  return ok;
}

// dense-array ::= 'array' '<' type (':' value (',' value)*)? '>'
static bool S_dense_array(shard_parser *p, uint32_t start, shard_attr **out) {
  uint32_t save = shard_parser_save(p);
  shard_parser_expect(p, "<");
  shard_tok elem = shard_parser_next(p);
  if (elem.kind == SHARD_TOK_IDENT && elem.text[0] == 'i') {
    SHARD_VEC(int64_t) vals = {0};
    bool ok = true;
    if (shard_parser_accept(p, ":")) {
      do {
        int64_t v;
        if (shard_parser_accept_keyword(p, "true")) v = 1;
        else if (shard_parser_accept_keyword(p, "false")) v = 0;
        else if (!(ok = shard_parser_int(p, &v))) break;
        SHARD_VEC_PUSH(vals, v);
      } while (shard_parser_accept(p, ","));
    }
    if (ok) ok = shard_parser_expect(p, ">");
    if (!ok) {
      SHARD_VEC_FREE(vals);
      return false;
    }
    shard_attr *a = shard_attr_dense_i64(p->arena, vals.items, vals.len);
    a->u.dense_array.elem = shard_parser_intern(p, elem.text, elem.len);
    SHARD_VEC_FREE(vals);
    *out = a;
    return true;
  }
  shard_parser_restore(p, save);
  const char *text;
  if (!S_capture_group(p, start, &text)) return false;
  *out = shard_attr_raw(p->arena, text);
  return true;
}

static bool S_hash_attr(shard_parser *p, shard_tok t, shard_attr **out) {
  const char *name = t.text + 1;
  uint32_t len = t.len - 1;
  shard_span span = shard_parser_span(p, &t);
  bool angle = S_ch(p, t.off + t.len) == '<';
  if (len >= 3 && memcmp(name, "sdy", 3) == 0 && (len == 3 || name[3] == '.')) {
    const char *mnemonic = len > 4 ? shard_parser_intern(p, name + 4, len - 4) : "";
    return shard_parse_sdy_attr(p, mnemonic, span, out);
  }
  if (angle && shard_shlo_mesh_attr_name(name, len)) {
    if (!shard_parse_shlo_mesh_attr(p, name, len, out)) return false;
    (*out)->span = span;
    return true;
  }
  if (angle || memchr(name, '.', len)) {
    const char *text = shard_parser_intern(p, t.text, t.len);
    if (angle && !S_capture_group(p, t.off, &text)) return false;
    /* StableHLO attributes shard models are decoded here, once */
    bool shlo = (len >= 9 && memcmp(name, "stablehlo", 9) == 0) || (len >= 4 && memcmp(name, "mhlo", 4) == 0);
    *out = shlo ? shard_attr_shlo_decode(p->arena, text) : NULL;
    if (len == 4 && memcmp(name, "chlo", 4) == 0) *out = shard_chlo_enum_decode(p->arena, text);
    if (!*out) *out = shard_attr_raw(p->arena, text);
    (*out)->span = span;
    return true;
  }
  const alias_def *a = S_find_alias(p->attr_aliases.items, p->attr_aliases.len, name, len);
  if (!a) return shard_parser_error_at(p, span, "undefined symbol alias id '%.*s'", (int)len, name);
  *out = a->attr;
  return true;
}

// attr ::= builtin-attr | '#' dialect-attr | '#' alias | type
bool shard_parser_attr(shard_parser *p, shard_attr **out) {
  if (!shard_parser_enter(p)) return false;
  bool ok = true;
  shard_tok t = *shard_parser_peek_ref(p);
  shard_span span = shard_parser_span(p, &t);
  switch (t.kind) {
  case SHARD_TOK_HASH:
    shard_parser_next(p);
    ok = S_hash_attr(p, t, out);
    break;
  case SHARD_TOK_STRING: {
    shard_parser_next(p);
    uint32_t len;
    char *s = shard_unescape_string(t.text, t.len, &len);
    *out = shard_attr_string(p->arena, s, len);
    free(s);
    if (shard_parser_accept(p, ":")) { /* typed string: keep it verbatim */
      shard_type *ty;
      if ((ok = shard_parser_type(p, &ty)))
        *out = shard_attr_raw(p->arena, shard_arena_printf(p->arena, "%.*s : %s", (int)t.len, t.text, ty->text));
    }
    break;
  }
  case SHARD_TOK_INT:
  case SHARD_TOK_FLOAT: ok = S_number_attr(p, out); break;
  case SHARD_TOK_AT: {
    SHARD_VEC(const char *) path = {0};
    do {
      const char *sym;
      if (!(ok = shard_parser_symbol(p, &sym))) break;
      SHARD_VEC_PUSH(path, sym);
    } while (shard_parser_accept(p, "::"));
    if (ok) {
      *out = shard_attr_new(p->arena, SHARD_ATTR_SYMREF);
      (*out)->u.symref.num = path.len;
      SHARD_VEC_FREEZE(p->arena, path, (*out)->u.symref.path);
    } else {
      SHARD_VEC_FREE(path);
    }
    break;
  }
  case SHARD_TOK_PUNCT:
    if (shard_tok_is(&t, "-")) {
      ok = S_number_attr(p, out);
    } else if (shard_tok_is(&t, "[")) {
      shard_parser_next(p);
      SHARD_VEC(shard_attr *) elems = {0};
      if (!shard_parser_accept(p, "]")) {
        do {
          shard_attr *e;
          if (!(ok = shard_parser_attr(p, &e))) break;
          SHARD_VEC_PUSH(elems, e);
        } while (shard_parser_accept(p, ","));
        if (ok) ok = shard_parser_expect(p, "]");
      }
      if (ok) {
        *out = shard_attr_new(p->arena, SHARD_ATTR_ARRAY);
        (*out)->u.array.num = elems.len;
        bool ints = elems.len > 0;
        for (uint32_t i = 0; i < elems.len && ints; i++) ints = elems.items[i]->kind == SHARD_ATTR_INT;
        if (ints) {
          int64_t *v = shard_arena_alloc(p->arena, sizeof(int64_t) * elems.len);
          for (uint32_t i = 0; i < elems.len; i++) v[i] = elems.items[i]->u.integer.value;
          (*out)->u.array.ints = v;
        }
        SHARD_VEC_FREEZE(p->arena, elems, (*out)->u.array.elems);
      } else {
        SHARD_VEC_FREE(elems);
      }
    } else if (shard_tok_is(&t, "{")) {
      shard_attr *a = shard_attr_new(p->arena, SHARD_ATTR_DICT);
      ok = shard_parser_attr_dict_into(p, &a->u.dict.entries, &a->u.dict.num);
      *out = a;
    } else if (shard_tok_is(&t, "(")) {
      shard_type *ty;
      if ((ok = shard_parser_type(p, &ty))) {
        *out = shard_attr_new(p->arena, SHARD_ATTR_TYPE);
        (*out)->u.type = ty;
      }
    } else {
      ok = shard_parser_error(p, "expected attribute value");
    }
    break;
  case SHARD_TOK_IDENT: {
    bool angle = S_ch(p, t.off + t.len) == '<';
    if (shard_tok_is(&t, "true") || shard_tok_is(&t, "false")) {
      shard_parser_next(p);
      *out = shard_attr_new(p->arena, SHARD_ATTR_BOOL);
      (*out)->u.boolean = t.text[0] == 't';
    } else if (shard_tok_is(&t, "unit")) {
      shard_parser_next(p);
      *out = shard_attr_new(p->arena, SHARD_ATTR_UNIT);
    } else if (shard_tok_is(&t, "loc") && S_ch(p, t.off + t.len) == '(') {
      shard_parser_next(p);
      const char *text;
      if ((ok = S_capture_group(p, t.off, &text))) {
        *out = shard_attr_new(p->arena, SHARD_ATTR_LOC);
        (*out)->u.raw = text;
      }
    } else if (shard_tok_is(&t, "dense") && S_next_ch_after_ws(p, t.off + t.len) == '<') {
      /* MLIR's lexer takes `dense` and `<` as two tokens: `dense <[1]>` is valid */
      shard_parser_next(p);
      S_skip_ws(p);
      uint32_t lt = p->lx.pos;
      const char *text;
      if (!(ok = S_capture_group(p, lt, &text))) break;
      if (!(ok = S_check_dense_elements(p, lt, p->lx.pos))) break;
      shard_type *ty;
      if (!(ok = shard_parser_expect(p, ":") && shard_parser_type(p, &ty))) break;
      *out = shard_attr_new(p->arena, SHARD_ATTR_DENSE);
      size_t n = strlen(text);
      (*out)->u.dense.payload = shard_arena_strndup(p->arena, text + 1, n - 2);
      (*out)->u.dense.type = ty;
      shard_attr_dense_set_ints(p->arena, *out);
    } else if (shard_tok_is(&t, "array") && angle) {
      shard_parser_next(p);
      ok = S_dense_array(p, t.off, out);
    } else if (angle &&
               (shard_tok_is(&t, "affine_map") || shard_tok_is(&t, "affine_set") || shard_tok_is(&t, "sparse") ||
                shard_tok_is(&t, "dense_resource") || shard_tok_is(&t, "strided") || shard_tok_is(&t, "opaque"))) {
      /* affine_map<...>, sparse<...>, dense_resource<...>, strided<...>: verbatim,
       * with a trailing `: type` where the attribute has one */
      shard_parser_next(p);
      const char *text;
      if (!(ok = S_capture_group(p, t.off, &text))) break;
      if ((shard_tok_is(&t, "sparse") || shard_tok_is(&t, "dense_resource")) && shard_parser_accept(p, ":")) {
        shard_type *ty;
        if (!(ok = shard_parser_type(p, &ty))) break;
        text = shard_arena_printf(p->arena, "%s : %s", text, ty->text);
      }
      *out = shard_attr_raw(p->arena, text);
    } else {
      shard_type *ty;
      if ((ok = shard_parser_type(p, &ty))) {
        *out = shard_attr_new(p->arena, SHARD_ATTR_TYPE);
        (*out)->u.type = ty;
      }
    }
    break;
  }
  case SHARD_TOK_BANG: {
    shard_type *ty;
    if ((ok = shard_parser_type(p, &ty))) {
      *out = shard_attr_new(p->arena, SHARD_ATTR_TYPE);
      (*out)->u.type = ty;
    }
    break;
  }
  default: ok = shard_parser_error(p, "expected attribute value");
  }
  if (ok && (*out)->span.src == NULL) {
    /* shared alias attrs keep their own span; fresh ones get this one */
    (*out)->span = span;
  }
  shard_parser_leave(p);
  return ok;
}

bool shard_parser_optional_loc(shard_parser *p, shard_attr **out) {
  *out = NULL;
  shard_tok t = *shard_parser_peek_ref(p);
  if (t.kind != SHARD_TOK_IDENT || !shard_tok_is(&t, "loc")) return true;
  return shard_parser_attr(p, out);
}

/* Top-level `#name = attr` and `!name = type`. */
bool shard_parser_alias_def(shard_parser *p);
bool shard_parser_alias_def(shard_parser *p) {
  shard_tok t = shard_parser_next(p);
  alias_def d = {shard_parser_intern(p, t.text + 1, t.len - 1), t.len - 1, NULL, NULL};
  if (!shard_parser_expect(p, "=")) return false;
  if (t.kind == SHARD_TOK_HASH) {
    if (!shard_parser_attr(p, &d.attr)) return false;
    SHARD_VEC_PUSH(p->attr_aliases, d);
  } else {
    if (!shard_parser_type(p, &d.type)) return false;
    SHARD_VEC_PUSH(p->type_aliases, d);
  }
  return true;
}
