/* The MLIR parser: modules, operations (generic and custom form), regions,
 * blocks and SSA names.
 *
 * An op is read as: result names, op name, then either the generic form or
 * the custom syntax of its op definition (opdef.h), which fills a
 * shard_op_state; the state then becomes an op whose operands are resolved
 * against the SSA scope. Uses before definitions get placeholder values that
 * are replaced when the definition is seen; any left at the end of a
 * top-level op are errors. Names are visible in nested regions (isolation is
 * a verifier check, as in MLIR). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support/buf.h"
#include "ir/opdef.h"
#include "ir/parse_internal.h"

bool shard_parser_alias_def(shard_parser *p);

struct ssa_entry { /* one per definition: the counts side by side, 32 bytes */
  const char *name;
  shard_value *values; /* `count` consecutive values (op results or one block arg) */
  ssa_entry *shadowed;
  uint32_t len;
  uint32_t count;
};

struct fwd_ref {
  const char *name;
  uint32_t len, number;
  shard_value *placeholder;
  shard_span span;
};

/* ---- basics ------------------------------------------------------------- */

shard_arena *shard_parser_arena(shard_parser *p) { return p->arena; }

void *shard_parser_memo_get(shard_parser *p, const void *key, size_t len) {
  return shard_strmap_get(&p->memo, key, len);
}

void shard_parser_memo_put(shard_parser *p, const void *key, size_t len, void *val) {
  shard_strmap_put(&p->memo, shard_arena_dup(p->scratch ? p->scratch : p->arena, key, len), len, val);
}

shard_attr *shard_parser_precision(shard_parser *p, uint32_t value) {
  if (value >= sizeof p->precisions / sizeof p->precisions[0] || p->op_alias)
    return shard_attr_shlo_enum(p->arena, SHARD_SHLO_PRECISION, value);
  if (!p->precisions[value]) p->precisions[value] = shard_attr_shlo_enum(p->arena, SHARD_SHLO_PRECISION, value);
  return p->precisions[value];
}
shard_diag_engine *shard_parser_diag(shard_parser *p) { return p->de; }
const shard_source *shard_parser_source(shard_parser *p) { return p->lx.src; }

/* ---- interned strings ------------------------------------------------------ */

/* Seeded with the attribute names shard's code looks up (attr.c's list of
 * literals): a parsed name equal to one of them is that literal, which the
 * linker merges with the same literal at the lookup, so
 * shard_op_attr(op, "sdy.sharding") usually finds it by its pointer. */
void shard_parser_intern_init(shard_parser *p) {
  p->interning = true;
  uint32_t n;
  const char *const *known = shard_attr_known_names(&n);
  for (uint32_t i = 0; i < n; i++) shard_strmap_put_cstr(&p->interned, known[i], (void *)known[i]);
}

/* Strings longer than this (dense payloads, long backend configs) are
 * rarely repeated: copied per occurrence, not hashed and kept in the map. */
enum { S_INTERN_MAX = 256 };

const char *shard_parser_intern(shard_parser *p, const char *s, uint32_t n) {
  if (!p->interning || n > S_INTERN_MAX) return shard_arena_strndup(p->arena, s, n);
  const char *hit = shard_strmap_get(&p->interned, s, n);
  if (hit) return hit;
  char *copy = shard_arena_strndup(p->intern_arena ? p->intern_arena : p->arena, s, n);
  shard_strmap_put(&p->interned, copy, n, copy);
  return copy;
}

shard_tok shard_parser_peek(shard_parser *p) { return *shard_parser_peek_ref(p); }

shard_tok shard_parser_next(shard_parser *p) {
  shard_tok t = *shard_parser_peek_ref(p);
  p->has_tok = false;
  return t;
}

shard_span shard_parser_span(shard_parser *p, const shard_tok *t) { return shard_tok_span(&p->lx, t); }

shard_span shard_parser_here(shard_parser *p) {
  shard_tok t = *shard_parser_peek_ref(p);
  return shard_parser_span(p, &t);
}

uint32_t shard_parser_save(shard_parser *p) { return p->has_tok ? p->tok.off : p->lx.pos; }

void shard_parser_restore(shard_parser *p, uint32_t pos) {
  p->has_tok = false;
  p->lx.pos = pos;
}

static bool S_verror(shard_parser *p, shard_span span, const char *fmt, va_list ap) {
  if (p->failed) return false; /* one parse error per buffer, like MLIR */
  p->failed = true;
  shard_buf b;
  shard_buf_init(&b);
  shard_buf_vprintf(&b, fmt, ap);
  shard_error(p->de, span, "%s", shard_buf_str(&b));
  shard_buf_free(&b);
  return false;
}

static shard_span S_wrong_token_span(shard_parser *p);

bool shard_parser_error(shard_parser *p, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  /* at the end of the input, point at the last text, as MLIR does */
  shard_tok t = *shard_parser_peek_ref(p);
  S_verror(p, t.kind == SHARD_TOK_EOF ? S_wrong_token_span(p) : shard_parser_here(p), fmt, ap);
  va_end(ap);
  return false;
}

bool shard_parser_error_at(shard_parser *p, shard_span span, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  S_verror(p, span, fmt, ap);
  va_end(ap);
  return false;
}

bool shard_parser_enter(shard_parser *p) {
  if (++p->depth > p->max_depth) {
    p->depth--;
    return shard_parser_error(p, "nesting is deeper than %u levels", p->max_depth);
  }
  return true;
}

void shard_parser_leave(shard_parser *p) { p->depth--; }

bool shard_parser_accept(shard_parser *p, const char *text) {
  const shard_tok *t = shard_parser_peek_ref(p);
  /* most asks miss on the first character */
  if (t->len == 0 || t->text[0] != text[0]) return false;
  if ((t->kind == SHARD_TOK_PUNCT || t->kind == SHARD_TOK_IDENT) && shard_tok_is(t, text)) {
    p->has_tok = false;
    return true;
  }
  return false;
}

/* Where MLIR reports "expected X" (its emitWrongTokenError): at the end of
 * the text before the offending token, skipping back over blank space and
 * blank lines, so a missing ';' or ')' is flagged where it belongs rather
 * than at the next line's first token or one past the end of the file. */
static shard_span S_wrong_token_span(shard_parser *p) {
  shard_tok t = *shard_parser_peek_ref(p);
  const char *text = p->lx.src->text;
  uint32_t at = t.off;
  if (t.kind == SHARD_TOK_EOF && at > 0) at--;
  uint32_t end = at;
  for (;;) {
    while (end > 0 && (text[end - 1] == ' ' || text[end - 1] == '\t')) end--;
    if (end == 0) return shard_parser_span(p, &t);
    if (text[end - 1] != '\n' && text[end - 1] != '\r') break;
    end--;
  }
  shard_span s = {p->lx.src, end, 1};
  if (end >= p->lx.src->len) s.off = p->lx.src->len ? (uint32_t)p->lx.src->len - 1 : 0;
  return s;
}

bool shard_parser_expect(shard_parser *p, const char *text) {
  if (shard_parser_accept(p, text)) return true;
  return shard_parser_error_at(p, S_wrong_token_span(p), "expected '%s'", text);
}

bool shard_parser_accept_keyword(shard_parser *p, const char *kw) {
  const shard_tok *t = shard_parser_peek_ref(p);
  if (t->kind == SHARD_TOK_IDENT && shard_tok_is(t, kw)) {
    p->has_tok = false;
    return true;
  }
  return false;
}

bool shard_parser_expect_keyword(shard_parser *p, const char *kw) {
  if (shard_parser_accept_keyword(p, kw)) return true;
  return shard_parser_error_at(p, S_wrong_token_span(p), "expected '%s'", kw);
}

bool shard_parser_ident(shard_parser *p, const char **out) {
  shard_tok t = *shard_parser_peek_ref(p);
  if (t.kind != SHARD_TOK_IDENT) return shard_parser_error(p, "expected identifier");
  p->has_tok = false;
  *out = shard_parser_intern(p, t.text, t.len);
  return true;
}

bool shard_parser_accept_int(shard_parser *p, int64_t *out) {
  shard_tok t = *shard_parser_peek_ref(p);
  bool neg = false;
  uint32_t save = shard_parser_save(p);
  if (t.kind == SHARD_TOK_PUNCT && shard_tok_is(&t, "-")) {
    shard_parser_next(p);
    t = shard_parser_peek(p);
    neg = true;
  }
  if (t.kind != SHARD_TOK_INT) {
    if (neg) shard_parser_restore(p, save);
    return false;
  }
  shard_parser_next(p);
  uint64_t v = 0;
  bool hex = t.len > 2 && t.text[1] == 'x';
  for (uint32_t i = hex ? 2 : 0; i < t.len; i++) {
    char c = t.text[i];
    unsigned d = c <= '9' ? (unsigned)(c - '0') : (unsigned)((c | 32) - 'a' + 10);
    unsigned base = hex ? 16 : 10;
    if (v > (UINT64_MAX - d) / base) {
      shard_parser_error_at(p, shard_parser_span(p, &t), "integer value too large");
      return false;
    }
    v = v * base + d;
  }
  if (v > (uint64_t)INT64_MAX + (neg ? 1u : 0u)) {
    shard_parser_error_at(p, shard_parser_span(p, &t), "integer value too large");
    return false;
  }
  *out = neg ? (int64_t)(0 - v) : (int64_t)v;
  return true;
}

bool shard_parser_plain_int_list(shard_parser *p, int64_t *vals, uint32_t cap, uint32_t *n) {
  const shard_tok *t = shard_parser_peek_ref(p);
  if (t->kind != SHARD_TOK_PUNCT || t->text[0] != '[') return false;
  const char *s = p->lx.src->text;
  uint32_t i = t->off + 1, end = (uint32_t)p->lx.src->len, k = 0;
  if (i < end && s[i] != ']') {
    for (;;) {
      uint32_t first = i;
      int64_t v = 0;
      /* at most 18 digits: no overflow to report */
      while (i < end && s[i] >= '0' && s[i] <= '9' && i - first < 18) v = v * 10 + (s[i++] - '0');
      if (i == first || i >= end || k == cap) return false;
      vals[k++] = v;
      if (s[i] == ']') break;
      if (s[i] != ',') return false;
      for (i++; i < end && s[i] == ' ';) i++;
    }
  }
  if (i >= end) return false;
  p->has_tok = false;
  p->lx.pos = i + 1;
  *n = k;
  return true;
}

uint32_t shard_parser_plain_ident_list(shard_parser *p, shard_tok *items, uint32_t cap, uint32_t *n) {
  const shard_tok *t = shard_parser_peek_ref(p);
  if (t->kind != SHARD_TOK_PUNCT || t->text[0] != '[') return 0;
  const char *s = p->lx.src->text;
  uint32_t i = t->off + 1, end = (uint32_t)p->lx.src->len, k = 0;
  if (i < end && s[i] != ']') {
    for (;;) {
      uint32_t first = i;
      if (i >= end || !(shard_lex_class[(unsigned char)s[i]] & SHARD_LEX_ALPHA)) return 0;
      for (i++;
           i < end && (shard_lex_class[(unsigned char)s[i]] & (SHARD_LEX_ALPHA | SHARD_LEX_DIGIT | SHARD_LEX_BARE));)
        i++;
      if (i >= end || k == cap) return 0;
      items[k++] = (shard_tok){SHARD_TOK_IDENT, s + first, i - first, first};
      if (s[i] == ']') break;
      if (s[i] != ',') return 0;
      for (i++; i < end && s[i] == ' ';) i++;
    }
  }
  if (i >= end) return 0;
  *n = k;
  return i + 1;
}

void shard_parser_skip_to(shard_parser *p, uint32_t end) {
  p->has_tok = false;
  p->lx.pos = end;
}

bool shard_parser_int(shard_parser *p, int64_t *out) {
  if (shard_parser_accept_int(p, out)) return true;
  if (p->failed) return false;
  return shard_parser_error(p, "expected integer value");
}

bool shard_parser_string(shard_parser *p, const char **out, uint32_t *len) {
  shard_tok t = *shard_parser_peek_ref(p);
  if (t.kind != SHARD_TOK_STRING) return shard_parser_error(p, "expected string");
  p->has_tok = false;
  /* most strings (axis names, keys) have no escape: no heap copy */
  if (t.len >= 2 && !memchr(t.text + 1, '\\', t.len - 2)) {
    *out = shard_parser_intern(p, t.text + 1, t.len - 2);
    if (len) *len = t.len - 2;
    return true;
  }
  uint32_t n;
  char *s = shard_unescape_string(t.text, t.len, &n);
  *out = shard_parser_intern(p, s, n);
  if (len) *len = n;
  free(s);
  return true;
}

bool shard_parser_symbol(shard_parser *p, const char **out) {
  shard_tok t = *shard_parser_peek_ref(p);
  if (t.kind != SHARD_TOK_AT) return shard_parser_error(p, "expected symbol reference");
  p->has_tok = false;
  if (t.len > 1 && t.text[1] == '"') {
    uint32_t n;
    char *s = shard_unescape_string(t.text + 1, t.len - 1, &n);
    *out = shard_parser_intern(p, s, n);
    free(s);
  } else {
    *out = shard_parser_intern(p, t.text + 1, t.len - 1);
  }
  return true;
}

/* ---- SSA names ------------------------------------------------------------ */

/* The number a name like "17" stands for, or -1 ("017", "1a", "" and
 * numbers from 2^21 on, whose table would be large, are names like any
 * other). */
static inline int64_t S_name_number(const char *name, uint32_t len) {
  if (len - 1 >= 7 || (name[0] == '0' && len > 1)) return -1; /* len 0 wraps */
  uint32_t v = 0;
  for (const char *c = name, *end = name + len; c < end; c++) {
    unsigned d = (unsigned char)*c - '0';
    if (d > 9) return -1;
    v = v * 10 + d;
  }
  return v < (1u << 21) ? (int64_t)v : -1;
}

static void **S_name_slot_slow(shard_parser *p, const char *name, uint32_t len, int64_t k);

/* The map slot of a name (its innermost entry), made if new. Inline for a
 * number the table holds already (nearly every defined value of a printed
 * module): the rest is out of line. */
static inline void **S_name_slot(shard_parser *p, const char *name, uint32_t len) {
  int64_t k = S_name_number(name, len);
  if (k < 0 || (uint64_t)k >= p->numbered.cap) return S_name_slot_slow(p, name, len, k);
  if ((uint32_t)k >= p->numbered_used) p->numbered_used = (uint32_t)k + 1;
  return (void **)&p->numbered.items[k];
}

static void **S_name_slot_slow(shard_parser *p, const char *name, uint32_t len, int64_t k) {
  if (k < 0) return shard_strmap_slot(&p->names, name, len);
  if ((uint64_t)k >= p->numbered.cap) {
    uint32_t old = p->numbered.cap, cap = old ? old : 64;
    while (cap <= (uint64_t)k) cap *= 2;
    p->numbered.items = shard_xrealloc(p->numbered.items, cap * sizeof *p->numbered.items);
    memset(p->numbered.items + old, 0, (cap - old) * sizeof *p->numbered.items);
    p->numbered.cap = cap;
  }
  if ((uint32_t)k >= p->numbered_used) p->numbered_used = (uint32_t)k + 1;
  return (void **)&p->numbered.items[k];
}

static ssa_entry *S_lookup(shard_parser *p, const char *name, uint32_t len) {
  int64_t k = S_name_number(name, len);
  ssa_entry *e = k < 0                           ? shard_strmap_get(&p->names, name, len)
                 : (uint64_t)k < p->numbered.cap ? p->numbered.items[k]
                                                 : NULL;
  return e && e->values ? e : NULL;
}

static void S_push_scope(shard_parser *p) {
  SHARD_VEC_PUSH(p->scope_marks, p->defined.len);
  SHARD_VEC_PUSH(p->fwd_marks, p->fwd.len);
}

/* Forward references still unresolved when their scope closes move out to
 * the enclosing scope: the definition may come later there. */
static void S_pop_scope(shard_parser *p) {
  uint32_t mark = p->scope_marks.items[--p->scope_marks.len];
  while (p->defined.len > mark) {
    ssa_entry *e = p->defined.items[--p->defined.len];
    if (e->shadowed) {
      *S_name_slot(p, e->name, e->len) = e->shadowed;
    } else {
      /* the name stays in the map as an empty marker */
      e->values = NULL;
      e->count = 0;
    }
  }
  p->fwd_marks.len--;
}

static void S_replace_placeholder(shard_parser *p, fwd_ref *f, shard_value *v) {
  if (!shard_type_equal(f->placeholder->type, v->type) && f->placeholder->type && v->type) {
    shard_parser_error_at(p, f->span, "use of value '%%%.*s' expects different type than prior uses: '%s' vs '%s'",
                          (int)f->len, f->name, f->placeholder->type->text, v->type->text);
  }
  shard_value_replace_all_uses(f->placeholder, v);
  f->placeholder = NULL;
}

static bool S_define(shard_parser *p, const char *name, uint32_t len, shard_value *values, uint32_t count,
                     shard_span span) {
  void **slot = S_name_slot(p, name, len);
  ssa_entry *cur = *slot;
  /* A name defined again in the same scope is an error. */
  if (cur && cur->values) {
    uint32_t mark = p->scope_marks.len ? p->scope_marks.items[p->scope_marks.len - 1] : 0;
    for (uint32_t i = mark; i < p->defined.len; i++)
      if (p->defined.items[i] == cur)
        return shard_parser_error_at(p, span, "redefinition of SSA value '%%%.*s'", (int)len, name);
  }
  /* values keep it NUL-terminated; a name seen before (an outer or an
   * earlier scope's: the slot keeps its entry) keeps its copy, so `%0` of
   * every function is one string, without hashing SSA names */
  name = cur ? cur->name : shard_arena_strndup(p->body_block ? p->op_arena : p->arena, name, len);
  ssa_entry *e = SHARD_NEW(p->scratch ? p->scratch : p->arena, ssa_entry);
  e->name = name;
  e->len = len;
  e->values = values;
  e->count = count;
  e->shadowed = cur && cur->values ? cur : NULL;
  *slot = e;
  SHARD_VEC_PUSH(p->defined, e);
  for (uint32_t i = 0; i < count; i++) values[i].name = name;
  /* resolve forward references to it */
  for (uint32_t i = 0; i < p->fwd.len; i++) {
    fwd_ref *f = p->fwd.items[i];
    if (!f->placeholder || f->len != len || memcmp(f->name, name, len) != 0) continue;
    if (f->number >= count) return shard_parser_error_at(p, f->span, "reference to invalid result number");
    S_replace_placeholder(p, f, &values[f->number]);
  }
  return true;
}

static shard_value *S_resolve(shard_parser *p, const shard_unresolved *u, shard_type *type) {
  ssa_entry *e = S_lookup(p, u->name, u->name_len);
  if (e) {
    if (u->number >= e->count) {
      shard_parser_error_at(p, u->span, "reference to invalid result number");
      return NULL;
    }
    shard_value *v = &e->values[u->number];
    if (type && v->type && type != v->type && !shard_type_equal(type, v->type)) { /* usually the same pointer */
      shard_parser_error_at(p, u->span, "use of value '%%%.*s' expects different type than prior uses: '%s' vs '%s'",
                            (int)u->name_len, u->name, type->text, v->type->text);
      return NULL;
    }
    return v;
  }
  for (uint32_t i = 0; i < p->fwd.len; i++) {
    fwd_ref *f = p->fwd.items[i];
    if (f->placeholder && f->len == u->name_len && f->number == u->number && memcmp(f->name, u->name, u->name_len) == 0)
      return f->placeholder;
  }
  fwd_ref *f = SHARD_NEW(p->scratch ? p->scratch : p->arena, fwd_ref);
  f->name = u->name;
  f->len = u->name_len;
  f->number = u->number;
  f->span = u->span;
  f->placeholder = SHARD_NEW(p->arena, shard_value);
  f->placeholder->type = type;
  SHARD_VEC_PUSH(p->fwd, f);
  return f->placeholder;
}

static bool S_check_forward_refs(shard_parser *p) {
  for (uint32_t i = 0; i < p->fwd.len; i++) {
    fwd_ref *f = p->fwd.items[i];
    if (f->placeholder) return shard_parser_error_at(p, f->span, "use of undeclared SSA value name");
  }
  p->fwd.len = 0;
  return true;
}

/* ---- operands ---------------------------------------------------------------- */

bool shard_parser_value_name(shard_parser *p, shard_unresolved *out) {
  shard_tok t = *shard_parser_peek_ref(p);
  if (t.kind != SHARD_TOK_PERCENT) return shard_parser_error(p, "expected SSA operand");
  p->has_tok = false;
  /* in the source (not NUL-terminated): a use needs the name only for the
   * lookup; S_define keeps a copy of a defined one */
  out->name = t.text + 1;
  out->name_len = t.len - 1;
  out->number = 0;
  out->span = shard_parser_span(p, &t);
  return true;
}

static bool S_operand_ref(shard_parser *p, shard_unresolved *u) {
  if (!shard_parser_value_name(p, u)) return false;
  /* %x#N: the '#' must follow directly */
  if (p->lx.pos < p->lx.src->len && p->lx.src->text[p->lx.pos] == '#') {
    shard_tok h = shard_parser_next(p);
    char *end;
    long n = h.len > 1 ? strtol(h.text + 1, &end, 10) : -1;
    if (h.kind != SHARD_TOK_HASH || n < 0 || end != h.text + h.len)
      return shard_parser_error_at(p, shard_parser_span(p, &h), "invalid SSA value result number");
    u->number = (uint32_t)n;
    u->span = shard_span_join(u->span, shard_parser_span(p, &h));
  }
  return true;
}

bool shard_parser_operand(shard_parser *p, shard_op_state *st) {
  shard_unresolved u;
  if (!S_operand_ref(p, &u)) return false;
  SHARD_VEC_PUSH(st->operands, u);
  return true;
}

bool shard_parser_operand_list(shard_parser *p, shard_op_state *st) {
  if (shard_parser_peek(p).kind != SHARD_TOK_PERCENT) return true;
  do {
    if (!shard_parser_operand(p, st)) return false;
  } while (shard_parser_accept(p, ","));
  return true;
}

bool shard_parser_functional_type(shard_parser *p, shard_op_state *st) {
  shard_span at = shard_parser_here(p);
  shard_type *ft;
  if (!shard_parser_type(p, &ft)) return false;
  if (ft->kind != SHARD_TYPE_FUNCTION) return shard_parser_error_at(p, at, "expected function type");
  for (uint32_t i = 0; i < ft->num_inputs; i++) SHARD_VEC_PUSH(st->operand_types, ft->inputs[i]);
  for (uint32_t i = 0; i < ft->num_results; i++) SHARD_VEC_PUSH(st->result_types, ft->results[i]);
  return true;
}

bool shard_parser_same_or_functional_type(shard_parser *p, shard_op_state *st) {
  shard_span at = shard_parser_here(p);
  shard_type *t;
  if (!shard_parser_type(p, &t)) return false;
  if (t->kind == SHARD_TYPE_FUNCTION) {
    for (uint32_t i = 0; i < t->num_inputs; i++) SHARD_VEC_PUSH(st->operand_types, t->inputs[i]);
    for (uint32_t i = 0; i < t->num_results; i++) SHARD_VEC_PUSH(st->result_types, t->results[i]);
    if (t->num_inputs != st->operands.len)
      return shard_parser_error_at(p, at, "%u operands present, but expected %u", st->operands.len, t->num_inputs);
    return true;
  }
  for (uint32_t i = 0; i < st->operands.len; i++) SHARD_VEC_PUSH(st->operand_types, t);
  SHARD_VEC_PUSH(st->result_types, t);
  return true;
}

void shard_op_state_add_attr(shard_op_state *st, const char *name, shard_attr *value, bool inherent) {
  for (uint32_t i = 0; i < st->attrs.len; i++)
    if (strcmp(st->attrs.items[i].name, name) == 0) {
      st->attrs.items[i].value = value;
      st->attrs.items[i].inherent = inherent;
      return;
    }
  shard_named_attr na = {name, value, inherent};
  SHARD_VEC_PUSH(st->attrs, na);
}

bool shard_parser_attr_dict(shard_parser *p, shard_op_state *st) {
  shard_tok t = *shard_parser_peek_ref(p);
  if (t.kind != SHARD_TOK_PUNCT || !shard_tok_is(&t, "{")) return true;
  shard_named_attr *list;
  uint32_t n;
  if (!shard_parser_attr_dict_into(p, &list, &n)) return false;
  for (uint32_t i = 0; i < n; i++) shard_op_state_add_attr(st, list[i].name, list[i].value, false);
  return true;
}

/* ---- regions and blocks ---------------------------------------------------- */

static bool S_parse_op(shard_parser *p, shard_block *block);

// arg-decl ::= ssa-id ':' type attr-dict? loc?
bool shard_parser_arg_decls(shard_parser *p, void *vec, bool allow_attrs) {
  SHARD_VEC(shard_arg_decl) *out = vec;
  if (!shard_parser_expect(p, "(")) return false;
  if (shard_parser_accept(p, ")")) return true;
  do {
    shard_arg_decl d = {0};
    if (!shard_parser_value_name(p, &d.ref)) return false;
    if (!shard_parser_expect(p, ":") || !shard_parser_type(p, &d.type)) return false;
    shard_tok t = *shard_parser_peek_ref(p);
    if (allow_attrs && t.kind == SHARD_TOK_PUNCT && shard_tok_is(&t, "{"))
      if (!shard_parser_attr_dict_into(p, &d.attrs, &d.num_attrs)) return false;
    if (!shard_parser_optional_loc(p, &d.loc)) return false;
    SHARD_VEC_PUSH(*out, d);
  } while (shard_parser_accept(p, ","));
  return shard_parser_expect(p, ")");
}

static bool S_add_block_args(shard_parser *p, shard_block *b, shard_arg_decl *args, uint32_t n) {
  SHARD_SVEC(shard_type *, 8) types = {0};
  SHARD_SVEC_INIT(types);
  for (uint32_t i = 0; i < n; i++) SHARD_SVEC_PUSH(types, args[i].type);
  uint32_t first = b->num_args;
  shard_block_add_args(p->arena, b, n, types.items);
  SHARD_SVEC_FREE(types);
  for (uint32_t i = 0; i < n; i++) {
    shard_block_arg_info *info = &b->arg_info[first + i];
    info->loc = args[i].loc;
    info->attrs = args[i].attrs;
    info->num_attrs = args[i].num_attrs;
    info->span = args[i].ref.span;
  }
  for (uint32_t i = 0; i < n; i++)
    if (!S_define(p, args[i].ref.name, args[i].ref.name_len, &b->args[first + i], 1, args[i].ref.span)) return false;
  return true;
}

/* Block labels of the region being parsed (for successors). */
static shard_block *S_block_named(shard_parser *p, shard_region *r, const char *name, uint32_t len) {
  for (shard_block *b = r->first; b; b = b->next)
    if (b->label && strlen(b->label) == len && memcmp(b->label, name, len) == 0) return b;
  shard_block *b = shard_region_add_block(p->arena, r);
  b->label = shard_parser_intern(p, name, len);
  return b;
}

/* Every SHARD_PARSE_READ_PAST_STEP bytes, opts->read_past hears that the
 * text that far behind the lexer is read, less a margin for the lookahead
 * token and the op being built, which point into it. */
#define SHARD_PARSE_READ_PAST_STEP ((uint32_t)1 << 20)
static void S_tell_read_past(shard_parser *p) {
  uint32_t pos = p->lx.pos;
  if (p->opts->read_past && pos > SHARD_PARSE_READ_PAST_STEP)
    p->opts->read_past(p->lx.src->text + pos - SHARD_PARSE_READ_PAST_STEP);
  p->read_past_at = pos + SHARD_PARSE_READ_PAST_STEP;
}

/* The parser's caches of objects it made (types, memos): forgotten when
 * the memory they are in is reused. */
static void S_forget_caches(shard_parser *p) {
  shard_strmap_forget(&p->type_cache);
  shard_strmap_forget(&p->fn_type_cache);
  shard_strmap_forget(&p->fn_text_cache);
  shard_strmap_forget(&p->memo);
  memset(p->precisions, 0, sizeof p->precisions);
}

/* Forgets everything the parser keeps that may point into a streamed op,
 * before it is handed over (so that its checks do not run beside the
 * parser's records, which the op no longer needs) and once it is let go:
 * the SSA names and records, and the caches of types and memos (interned
 * strings are in the module's arena). Only ops that define no module-level
 * value and leave no forward reference are streamed, so no record of an
 * enclosing scope is lost. At a cost in what the op used, not in what the
 * largest op before it did. */
static void S_stream_forget(shard_parser *p) {
  shard_arena_reset(p->scratch);
  shard_strmap_forget(&p->names);
  /* one entry per number up to the largest: megabytes after a large op */
  if (p->numbered.cap > 4096) SHARD_VEC_FREE(p->numbered);
  else if (p->numbered_used) memset(p->numbered.items, 0, p->numbered_used * sizeof *p->numbered.items);
  p->numbered_used = 0;
  p->fwd.len = 0;
  S_forget_caches(p);
}

/* Function bodies handed over in pieces (shard_parse_options.body_ops)
 * once their ops take this much memory: a few hundred ops at a time. */
#define SHARD_PARSE_BODY_PIECE ((size_t)192 << 10)
/* ... looked at after each this many bytes of text */
#define SHARD_PARSE_BODY_LOOK ((uint32_t)8 << 10)

static bool S_unlink_operands(shard_op *op, void *ctx) {
  (void)ctx;
  for (uint32_t i = 0; i < op->num_operands; i++) shard_operand_set(&op->operands[i], NULL);
  return true;
}

/* After an op of the streamed function body b: hands the ops read since
 * the last time to body_ops, and lets them go if it says so. Only between
 * two ops (an empty block would read as a declaration), and only when each
 * of their values is found by its SSA name in order (defined[body_mark..))
 * and no forward reference is pending (its placeholder is in their
 * memory). What points into that memory is forgotten: the parser's caches,
 * the uses their operands added to values defined before. */
static void S_body_hand_over(shard_parser *p, shard_block *b) {
  /* the memory is looked at every few lines, not after every op */
  if (p->lx.pos < p->body_next) return;
  p->body_next = p->lx.pos + SHARD_PARSE_BODY_LOOK;
  if (shard_arena_used(p->body_arena) < SHARD_PARSE_BODY_PIECE) return;
  const shard_tok *t = shard_parser_peek_ref(p);
  if (t->kind == SHARD_TOK_CARET || (t->kind == SHARD_TOK_PUNCT && shard_tok_is(t, "}"))) return;
  for (uint32_t i = 0; i < p->fwd.len; i++)
    if (p->fwd.items[i]->placeholder) return;
  uint32_t k = p->body_mark;
  for (const shard_op *op = b->first; op; op = op->next)
    for (uint32_t r = 0; r < op->num_results; r += p->defined.items[k++]->count)
      if (k >= p->defined.len || p->defined.items[k]->values != &op->results[r] || !p->defined.items[k]->count) {
        p->body_whole = true;
        return;
      }
  if (k != p->defined.len || !p->opts->body_ops(p->opts->top_op_ctx, b)) {
    p->body_whole = true;
    return;
  }
  k = p->body_mark;
  for (shard_op *op = b->first; op; op = op->next) {
    for (uint32_t r = 0; r < op->num_results; r += p->defined.items[k++]->count)
      p->defined.items[k]->values = &op->results[r];
    shard_walk(op, S_unlink_operands, NULL);
  }
  p->body_mark = p->defined.len;
  b->first = b->last = NULL;
  shard_arena_reset(p->body_arena);
  S_forget_caches(p);
}

/* One op of a streamed module body (shard_parse_options.top_op): parsed
 * into the op arena (an sdy.mesh, which later ops name, into the module's),
 * handed over, unlinked, and its memory reused. */
static bool S_parse_streamed(shard_parser *p, shard_block *b) {
  const shard_tok *t = shard_parser_peek_ref(p);
  bool mesh = (t->kind == SHARD_TOK_IDENT && shard_tok_is(t, "sdy.mesh")) ||
              (t->kind == SHARD_TOK_STRING && shard_tok_is(t, "\"sdy.mesh\""));
  shard_arena *module_arena = p->arena;
  if (!mesh) {
    if (!p->op_arena) p->op_arena = shard_arena_new();
    p->arena = p->op_arena;
  }
  /* a body given in pieces: custom form only (a generic func.func's
   * argument attributes reach its block once the op is made) */
  p->body_pending = p->opts->body_ops && t->kind == SHARD_TOK_IDENT && shard_tok_is(t, "func.func");
  p->body_whole = false;
  bool ok = S_parse_op(p, b);
  p->arena = module_arena;
  p->body_pending = false;
  p->body_block = NULL;
  if (!ok) return false;
  shard_op *op = b->last;
  bool unresolved = false;
  for (uint32_t i = 0; i < p->fwd.len; i++) unresolved |= p->fwd.items[i]->placeholder != NULL;
  /* a module-level value or forward reference outlives the op: the module
   * must be read whole (the caller does, having seen NULL) */
  bool go_on = !unresolved && p->defined.len == 0 && (mesh || strcmp(op->name, "sdy.mesh") != 0);
  if (go_on) {
    S_stream_forget(p);
    go_on = p->opts->top_op(p->opts->top_op_ctx, op);
  }
  b->first = b->last = NULL;
  if (!go_on) {
    p->failed = true;
    return false;
  }
  if (!mesh) shard_arena_reset(p->op_arena);
  if (p->body_arena) shard_arena_reset(p->body_arena);
  return true;
}

// block ::= ('^' id ('(' arg-decl (',' arg-decl)* ')')? ':')? op*
// `brace` is the offset of the region's '{': a file that ends inside the
// region says where the unclosed brace is, not what the next op lacks.
static bool S_parse_block_body(shard_parser *p, shard_block *b, uint32_t brace) {
  for (;;) {
    shard_tok t = *shard_parser_peek_ref(p);
    if (t.kind == SHARD_TOK_PUNCT && shard_tok_is(&t, "}")) return true;
    if (t.kind == SHARD_TOK_CARET) return true;
    if (t.kind == SHARD_TOK_EOF) {
      uint32_t line, col;
      shard_span open = {p->lx.src, brace, 1};
      shard_span_linecol(open, &line, &col);
      return shard_parser_error_at(p, shard_parser_span(p, &t),
                                   "unexpected end of file: '{' opened at %u:%u is not closed", line, col);
    }
    if (b == p->body_block && !p->body_whole) {
      /* an op of a function body given in pieces: in the piece's memory */
      shard_arena *fn_arena = p->arena;
      if (!p->body_arena) p->body_arena = shard_arena_new();
      p->arena = p->body_arena;
      bool ok = S_parse_op(p, b);
      p->arena = fn_arena;
      if (!ok) return false;
      S_body_hand_over(p, b);
    } else if (b == p->stream_block ? !S_parse_streamed(p, b) : !S_parse_op(p, b)) {
      return false;
    }
    if (p->lx.pos >= p->read_past_at) S_tell_read_past(p);
  }
}

bool shard_parser_region(shard_parser *p, shard_op_state *st, shard_arg_decl *args, uint32_t nargs) {
  if (!shard_parser_enter(p)) return false;
  shard_region *r = SHARD_NEW(p->arena, shard_region);
  shard_region *saved_region = p->cur_region;
  p->cur_region = r;
  uint32_t brace = shard_parser_peek(p).off;
  bool stream = p->stream_pending; /* the body of the module to stream */
  p->stream_pending = false;
  bool body = p->body_pending; /* the body of a function to give in pieces */
  p->body_pending = false;
  bool ok = shard_parser_expect(p, "{");
  S_push_scope(p);
  if (ok) {
    shard_tok t = *shard_parser_peek_ref(p);
    bool header = t.kind == SHARD_TOK_CARET;
    if (!header || nargs) {
      shard_block *entry = shard_region_add_block(p->arena, r);
      if (stream && !nargs && !header) p->stream_block = entry;
      ok = S_add_block_args(p, entry, args, nargs);
      if (ok && body && !header) {
        p->body_block = entry;
        p->body_mark = p->defined.len;
        p->body_next = 0;
      }
      ok = ok && S_parse_block_body(p, entry, brace);
      if (ok && header && nargs) ok = shard_parser_error(p, "invalid block name in region with named arguments");
    }
    /* Labels defined so far: a branch may name a block before its label,
     * but a label may be defined only once. */
    SHARD_VEC(shard_block *) labelled = {0};
    while (ok) {
      t = shard_parser_peek(p);
      if (t.kind != SHARD_TOK_CARET) break;
      shard_parser_next(p);
      shard_block *b = S_block_named(p, r, t.text + 1, t.len - 1);
      for (uint32_t i = 0; i < labelled.len && ok; i++)
        if (labelled.items[i] == b)
          ok = shard_parser_error_at(p, shard_parser_span(p, &t), "redefinition of block '%.*s'", (int)t.len, t.text);
      if (!ok) break;
      SHARD_VEC_PUSH(labelled, b);
      /* a block named before (by a branch) is moved to the end in source order */
      if (b != r->last) {
        if (b->prev) b->prev->next = b->next;
        else r->first = b->next;
        if (b->next) b->next->prev = b->prev;
        b->prev = r->last;
        b->next = NULL;
        r->last->next = b;
        r->last = b;
      }
      if (shard_parser_peek(p).kind == SHARD_TOK_PUNCT && shard_tok_is(&p->tok, "(")) {
        SHARD_VEC(shard_arg_decl) decls = {0};
        ok = shard_parser_arg_decls(p, &decls, false) && S_add_block_args(p, b, decls.items, decls.len);
        SHARD_VEC_FREE(decls);
        if (!ok) break;
      }
      ok = shard_parser_expect(p, ":") && S_parse_block_body(p, b, brace);
    }
    /* every branch target must be a labelled block of this region */
    for (uint32_t i = 0; i < p->num_block_refs && ok; i++) {
      struct block_ref *ref = &p->block_refs[i];
      if (!ref->block || ref->block->parent != r) continue;
      bool defined = false;
      for (uint32_t j = 0; j < labelled.len && !defined; j++) defined = labelled.items[j] == ref->block;
      if (!defined) ok = shard_parser_error_at(p, ref->span, "reference to an undefined block");
      ref->block = NULL;
    }
    uint32_t kept = 0; /* drop the checked references: the list stays short */
    for (uint32_t i = 0; i < p->num_block_refs; i++)
      if (p->block_refs[i].block) p->block_refs[kept++] = p->block_refs[i];
    p->num_block_refs = kept;
    SHARD_VEC_FREE(labelled);
    if (ok) ok = shard_parser_expect(p, "}");
  }
  S_pop_scope(p);
  p->cur_region = saved_region;
  if (ok) SHARD_VEC_PUSH(st->regions, r);
  shard_parser_leave(p);
  return ok;
}

/* ---- operations ----------------------------------------------------------- */

typedef struct result_group {
  shard_unresolved name;
  uint32_t count;
} result_group;

/* Op states are recycled: parsing allocates no vectors per op once the
 * pool is warm. */
static shard_op_state *S_state_get(shard_parser *p) {
  if (p->state_pool.len) {
    shard_op_state *st = p->state_pool.items[--p->state_pool.len];
    st->operands.len = st->operand_types.len = st->result_types.len = 0;
    st->attrs.len = st->regions.len = st->successors.len = 0;
    st->name = NULL;
    st->span = shard_no_span;
    st->num_results_declared = 0;
    return st;
  }
  return shard_xcalloc(1, sizeof(shard_op_state));
}

static void S_state_put(shard_parser *p, shard_op_state *st) { SHARD_VEC_PUSH(p->state_pool, st); }

static void S_state_free(shard_op_state *st) {
  SHARD_VEC_FREE(st->operands);
  SHARD_VEC_FREE(st->operand_types);
  SHARD_VEC_FREE(st->result_types);
  SHARD_VEC_FREE(st->attrs);
  SHARD_VEC_FREE(st->regions);
  SHARD_VEC_FREE(st->successors);
}

static int S_cmp_named(const void *x, const void *y) {
  const shard_named_attr *a = x, *b = y;
  return strcmp(a->name, b->name);
}

// generic-op ::= string '(' operands ')' successors? ('<' '{' props '}' '>')?
//                ('(' region (',' region)* ')')? attr-dict? ':' function-type
static bool S_parse_generic(shard_parser *p, shard_op_state *st, const shard_op_def *def) {
  if (!shard_parser_expect(p, "(")) return false;
  if (!shard_parser_accept(p, ")")) {
    if (!shard_parser_operand_list(p, st) || !shard_parser_expect(p, ")")) return false;
  }
  if (shard_parser_accept(p, "[")) {
    do {
      shard_tok t = shard_parser_next(p);
      if (t.kind != SHARD_TOK_CARET) return shard_parser_error_at(p, shard_parser_span(p, &t), "expected block name");
      if (!p->cur_region) return shard_parser_error_at(p, shard_parser_span(p, &t), "successors outside of a region");
      if (st->successors.len == SHARD_OP_MAX_SUCCESSORS)
        return shard_parser_error_at(p, shard_parser_span(p, &t), "more than %u successors",
                                     (unsigned)SHARD_OP_MAX_SUCCESSORS);
      shard_block *b = S_block_named(p, p->cur_region, t.text + 1, t.len - 1);
      SHARD_VEC_PUSH(st->successors, b);
      if (p->num_block_refs == p->cap_block_refs) {
        p->cap_block_refs = p->cap_block_refs ? 2 * p->cap_block_refs : 16;
        p->block_refs = shard_xrealloc(p->block_refs, sizeof *p->block_refs * p->cap_block_refs);
      }
      p->block_refs[p->num_block_refs].block = b;
      p->block_refs[p->num_block_refs++].span = shard_parser_span(p, &t);
    } while (shard_parser_accept(p, ","));
    if (!shard_parser_expect(p, "]")) return false;
  }
  shard_tok t = *shard_parser_peek_ref(p);
  if (t.kind == SHARD_TOK_PUNCT && shard_tok_is(&t, "<")) {
    shard_parser_next(p);
    shard_named_attr *props;
    uint32_t n;
    if (!shard_parser_attr_dict_into(p, &props, &n) || !shard_parser_expect(p, ">")) return false;
    /* A known op keeps only its own properties inherent; any other entry
     * becomes a discardable attribute, so the custom printer, which elides
     * inherent attributes it knows, cannot drop it. */
    for (uint32_t i = 0; i < n; i++) {
      bool inherent = !def || !def->inherent || shard_op_def_is_inherent(def, props[i].name);
      shard_op_state_add_attr(st, props[i].name, props[i].value, inherent);
    }
  }
  t = shard_parser_peek(p);
  if (t.kind == SHARD_TOK_PUNCT && shard_tok_is(&t, "(")) {
    shard_parser_next(p);
    do {
      if (!shard_parser_region(p, st, NULL, 0)) return false;
    } while (shard_parser_accept(p, ","));
    if (!shard_parser_expect(p, ")")) return false;
  }
  if (!shard_parser_attr_dict(p, st)) return false;
  if (!shard_parser_expect(p, ":")) return false;
  shard_span at = shard_parser_here(p);
  uint32_t before = st->operand_types.len;
  if (!shard_parser_functional_type(p, st)) return false;
  if (st->operand_types.len - before != st->operands.len)
    return shard_parser_error_at(p, at, "expected %u operand type%s but had %u", st->operands.len,
                                 st->operands.len == 1 ? "" : "s", st->operand_types.len - before);
  return true;
}

/* A func.func with a body keeps its argument attributes on the entry block
 * arguments (ops_builtin.c), where the passes and the verifier read them;
 * the generic form writes them as the `arg_attrs` property. Moved there,
 * a generic print reads back as the module it came from (without this the
 * argument shardings of a generic input were invisible: a collective on an
 * argument failed to verify, and propagation ignored them). An array of
 * the wrong length stays for the verifier to reject. */
static void S_func_arg_attrs_to_block(shard_parser *p, shard_op *op) {
  if (op->name[0] != 'f' || strcmp(op->name, "func.func") != 0 || op->num_regions == 0 || !op->regions[0].first) return;
  shard_block *entry = op->regions[0].first;
  shard_attr *arr = shard_op_attr(op, "arg_attrs");
  if (!arr || arr->kind != SHARD_ATTR_ARRAY || arr->u.array.num != entry->num_args) return;
  for (uint32_t i = 0; i < arr->u.array.num; i++)
    if (arr->u.array.elems[i]->kind != SHARD_ATTR_DICT) return;
  for (uint32_t i = 0; i < arr->u.array.num; i++) {
    const shard_attr *d = arr->u.array.elems[i];
    for (uint32_t k = 0; k < d->u.dict.num; k++)
      shard_value_set_attr(p->arena, &entry->args[i], d->u.dict.entries[k].name, d->u.dict.entries[k].value);
  }
  shard_op_remove_attr(op, "arg_attrs");
}

static shard_op *S_build_op(shard_parser *p, shard_op_state *st, const shard_op_def *def) {
  if (st->operand_types.len != st->operands.len) {
    shard_parser_error_at(p, st->span, "internal: '%s' parsed %u operands but %u types", st->name, st->operands.len,
                          st->operand_types.len);
    return NULL;
  }
  shard_op *op = shard_op_create(p->arena, st->name, st->operands.len, NULL, st->result_types.len,
                                 st->result_types.items, st->regions.len);
  op->def = def;
  op->span = st->span;
  for (uint32_t i = 0; i < st->operands.len; i++) {
    shard_value *v = S_resolve(p, &st->operands.items[i], st->operand_types.items[i]);
    if (!v) return NULL;
    shard_operand_set(&op->operands[i], v);
  }
  if (st->attrs.len) {
    qsort(st->attrs.items, st->attrs.len, sizeof(shard_named_attr), S_cmp_named);
    op->num_attrs = st->attrs.len;
    op->attrs = shard_arena_dup(p->arena, st->attrs.items, sizeof(shard_named_attr) * st->attrs.len);
    /* known ops: inherent-ness comes from the definition, whatever the syntax */
    if (def)
      for (uint32_t i = 0; i < op->num_attrs; i++)
        op->attrs[i].inherent = op->attrs[i].inherent || shard_op_def_is_inherent(def, op->attrs[i].name);
  }
  for (uint32_t i = 0; i < st->regions.len; i++) {
    op->regions[i] = *st->regions.items[i];
    op->regions[i].parent = op;
    for (shard_block *b = op->regions[i].first; b; b = b->next) b->parent = &op->regions[i];
  }
  if (st->successors.len) {
    op->num_successors = (uint16_t)st->successors.len;
    op->successors = shard_arena_dup(p->arena, st->successors.items, sizeof(shard_block *) * st->successors.len);
  }
  S_func_arg_attrs_to_block(p, op);
  return op;
}

/* A generic func.func carries its argument attributes in the `arg_attrs`
 * property (an array of dictionaries, one per argument); shard keeps them on
 * the entry block's arguments, where the custom syntax puts them and where
 * the printer looks for them (it writes `arg_attrs` back in generic form).
 * A declaration has no block and keeps the property. `res_attrs` stays a
 * property either way; both must have one dictionary per argument/result,
 * as MLIR's function interface verifies. */
static bool S_func_generic_attrs(shard_parser *p, shard_op *op, shard_span at) {
  shard_attr *ft = shard_op_attr(op, "function_type");
  const shard_type *fty =
      ft && ft->kind == SHARD_ATTR_TYPE && ft->u.type->kind == SHARD_TYPE_FUNCTION ? ft->u.type : NULL;
  static const char *const which[] = {"arg_attrs", "res_attrs"};
  for (int k = 0; k < 2; k++) {
    shard_attr *arr = shard_op_attr(op, which[k]);
    if (!arr) continue;
    if (arr->kind != SHARD_ATTR_ARRAY)
      return shard_parser_error_at(p, at,
                                   "'func.func' op attribute '%s' failed to satisfy constraint: Array of dictionary "
                                   "attributes",
                                   which[k]);
    const char *what = k ? "result" : "argument";
    if (fty) {
      uint32_t want = k ? fty->num_results : fty->num_inputs;
      if (arr->u.array.num != want)
        return shard_parser_error_at(p, at,
                                     "'func.func' op expects %s attribute array to have the same number of elements "
                                     "as the number of function %ss, got %u, but expected %u",
                                     what, what, arr->u.array.num, want);
    }
    for (uint32_t i = 0; i < arr->u.array.num; i++)
      if (arr->u.array.elems[i]->kind != SHARD_ATTR_DICT)
        return shard_parser_error_at(p, at, "'func.func' op expects %s attribute dictionary to be a DictionaryAttr",
                                     what);
  }
  /* a declaration's region is empty in generic form: shard has none */
  const shard_region *r = op->num_regions == 1 ? &op->regions[0] : NULL;
  if (r && (!r->first || (r->first == r->last && !r->first->num_args && !r->first->first))) op->num_regions = 0;
  shard_attr *args = shard_op_attr(op, "arg_attrs");
  shard_block *entry = op->num_regions ? op->regions[0].first : NULL;
  if (!args || !entry) return true;
  if (args->u.array.num != entry->num_args)
    return shard_parser_error_at(p, at,
                                 "'func.func' op expects argument attribute array to have the same number of elements "
                                 "as the number of function arguments, got %u, but expected %u",
                                 args->u.array.num, entry->num_args);
  for (uint32_t i = 0; i < entry->num_args; i++) {
    const shard_attr *d = args->u.array.elems[i];
    entry->arg_info[i].attrs = d->u.dict.entries;
    entry->arg_info[i].num_attrs = d->u.dict.num;
  }
  shard_op_remove_attr(op, "arg_attrs");
  return true;
}

/* Streaming starts only at the body of a module that is the input's first
 * op: told the first op's name, the parser expects that body next. */
static inline void S_stream_arm(shard_parser *p, const char *name) {
  if (!p->stream_armed) return;
  p->stream_armed = false;
  p->stream_pending = strcmp(name, "builtin.module") == 0;
}

// op ::= (result (',' result)* '=')? (generic-op | custom-op) loc?
// result ::= ssa-id (':' integer)?
static bool S_parse_op(shard_parser *p, shard_block *block) {
  if (!shard_parser_enter(p)) return false;
  bool ok = true;
  SHARD_SVEC(result_group, 4) results;
  SHARD_SVEC_INIT(results);
  shard_op_state *st = S_state_get(p);
  shard_tok first = shard_parser_peek(p);
  st->span = shard_parser_span(p, &first);
  if (first.kind == SHARD_TOK_PERCENT) {
    do {
      result_group g = {{0}, 1};
      if (!(ok = shard_parser_value_name(p, &g.name))) goto done;
      if (shard_parser_accept(p, ":")) {
        int64_t n;
        shard_tok nt = shard_parser_peek(p);
        if (nt.kind != SHARD_TOK_INT || !shard_parser_accept_int(p, &n) || n < 1 || n > 1000000) {
          ok = shard_parser_error_at(p, shard_parser_span(p, &nt), "expected integer number of results");
          goto done;
        }
        g.count = (uint32_t)n;
      }
      SHARD_SVEC_PUSH(results, g);
    } while (shard_parser_accept(p, ","));
    if (!(ok = shard_parser_expect(p, "="))) goto done;
  }
  uint32_t declared = 0;
  for (uint32_t i = 0; i < results.len; i++) declared += results.items[i].count;
  st->num_results_declared = declared;

  shard_tok nt = shard_parser_next(p);
  const shard_op_def *def = NULL;
  bool generic = false;
  unsigned alias = 0; /* SHARD_OP_MHLO: an mhlo op read as its StableHLO twin */
  if (nt.kind == SHARD_TOK_STRING) {
    uint32_t n;
    char *s = shard_unescape_string(nt.text, nt.len, &n);
    st->name = shard_parser_intern(p, s, n);
    free(s);
    def = shard_op_def_lookup(st->name, n);
    if ((alias = shard_op_def_alias_flags(st->name, n, def))) st->name = def->name;
    S_stream_arm(p, st->name);
    generic = true;
    ok = S_parse_generic(p, st, def);
  } else if (nt.kind == SHARD_TOK_IDENT) {
    def = shard_strmap_get(&p->op_def_cache, nt.text, nt.len);
    if (!def) {
      def = shard_op_def_lookup(nt.text, nt.len);
      if (!def && !memchr(nt.text, '.', nt.len)) {
        /* the default dialect of func bodies */
        char name[128];
        if (nt.len < 100) {
          snprintf(name, sizeof name, "func.%.*s", (int)nt.len, nt.text);
          def = shard_op_def_lookup(name, strlen(name));
        }
      }
      if (def) shard_strmap_put(&p->op_def_cache, nt.text, nt.len, (void *)def);
    }
    if (!def || !def->parse) {
      ok = shard_parser_error_at(p, shard_parser_span(p, &nt), "custom op '%.*s' is unknown", (int)nt.len, nt.text);
      goto done;
    }
    st->name = def->name;
    S_stream_arm(p, st->name);
    alias = shard_op_def_alias_flags(nt.text, nt.len, def);
    unsigned outer_alias = p->op_alias;
    p->op_alias = alias;
    ok = def->parse(p, st);
    p->op_alias = outer_alias;
  } else {
    shard_parser_restore(p, nt.off);
    ok = shard_parser_error_at(p, S_wrong_token_span(p), "expected operation name in quotes");
    goto done;
  }
  if (!ok) goto done;
  shard_attr *loc;
  if (!(ok = shard_parser_optional_loc(p, &loc))) goto done;
  if (st->result_types.len != declared && results.len) {
    ok = shard_parser_error_at(p, st->span, "operation defines %u results but was provided %u to bind",
                               st->result_types.len, declared);
    goto done;
  }
  shard_op *op = S_build_op(p, st, def);
  if (!(ok = op != NULL)) goto done;
  op->loc = loc;
  if (generic) op->flags |= SHARD_OP_GENERIC_INPUT;
  if (alias) shard_op_mark_mhlo(op);
  shard_block_append(block, op);
  if (generic && def && strcmp(def->name, "func.func") == 0 && !(ok = S_func_generic_attrs(p, op, st->span))) goto done;
  uint32_t next = 0;
  for (uint32_t i = 0; i < results.len && ok; i++) {
    result_group *g = &results.items[i];
    ok = S_define(p, g->name.name, g->name.name_len, &op->results[next], g->count, g->name.span);
    next += g->count;
  }
done:
  SHARD_SVEC_FREE(results);
  S_state_put(p, st);
  shard_parser_leave(p);
  return ok;
}

/* ---- module ------------------------------------------------------------------ */

static bool S_skip_file_metadata(shard_parser *p) {
  /* {-# dialect_resources: ... #-} */
  shard_tok t = *shard_parser_peek_ref(p);
  if (!(t.kind == SHARD_TOK_PUNCT && shard_tok_is(&t, "{") && t.off + 1 < p->lx.src->len &&
        p->lx.src->text[t.off + 1] == '-'))
    return false;
  const char *end = strstr(p->lx.src->text + t.off, "#-}");
  shard_parser_restore(p, end ? (uint32_t)(end - p->lx.src->text) + 3 : p->lx.src->len);
  return true;
}

/* What a parser holds beside the module's arena (maps, pools, stacks): one
 * release for the module parser and the attribute parser. */
static void S_parser_release(shard_parser *p) {
  shard_strmap_release(&p->names);
  shard_arena_free(p->scratch);
  p->scratch = NULL;
  shard_arena_free(p->op_arena);
  p->op_arena = NULL;
  shard_arena_free(p->body_arena);
  p->body_arena = NULL;
  SHARD_VEC_FREE(p->numbered);
  shard_strmap_release(&p->type_cache);
  shard_strmap_release(&p->fn_type_cache);
  shard_strmap_release(&p->fn_text_cache);
  shard_strmap_release(&p->memo);
  shard_strmap_release(&p->op_def_cache);
  shard_strmap_release(&p->interned);
  free(p->block_refs);
  for (uint32_t i = 0; i < p->state_pool.len; i++) {
    S_state_free(p->state_pool.items[i]);
    free(p->state_pool.items[i]);
  }
  SHARD_VEC_FREE(p->state_pool);
  SHARD_VEC_FREE(p->defined);
  SHARD_VEC_FREE(p->scope_marks);
  SHARD_VEC_FREE(p->fwd);
  SHARD_VEC_FREE(p->fwd_marks);
  SHARD_VEC_FREE(p->attr_aliases);
  SHARD_VEC_FREE(p->type_aliases);
}

shard_module *shard_parse_module(shard_source *src, const shard_parse_options *opts, shard_diag_engine *de) {
  shard_parse_options defaults = {.allow_unregistered = false, .max_depth = 512};
  if (!opts) opts = &defaults;
  shard_module *m = shard_xcalloc(1, sizeof(shard_module));
  m->arena = shard_arena_new();
  m->src = src;
  shard_parser p = {0};
  shard_lexer_init(&p.lx, src, 0);
  p.arena = m->arena;
  p.scratch = shard_arena_new();
  p.de = de;
  p.module = m;
  p.opts = opts;
  p.max_depth = opts->max_depth ? opts->max_depth : 512;
  p.stream_armed = opts->top_op != NULL;
  p.intern_arena = m->arena;
  shard_parser_intern_init(&p);

  /* Everything at top level goes into an implicit module block; if that
   * block ends up holding a single builtin.module, that op is the module. */
  shard_op *implicit = shard_op_create(m->arena, "builtin.module", 0, NULL, 0, NULL, 1);
  implicit->def = shard_op_def_lookup("builtin.module", 14);
  shard_block *top = shard_region_add_block(m->arena, &implicit->regions[0]);
  bool ok = true;
  S_push_scope(&p);
  for (;;) {
    shard_tok t = shard_parser_peek(&p);
    if (t.kind == SHARD_TOK_EOF) break;
    if (t.kind == SHARD_TOK_ERROR) {
      ok = shard_parser_error(&p, "unexpected character");
      break;
    }
    if (S_skip_file_metadata(&p)) continue;
    if (t.kind == SHARD_TOK_HASH || t.kind == SHARD_TOK_BANG) {
      if (!(ok = shard_parser_alias_def(&p))) break;
      continue;
    }
    if (!(ok = S_parse_op(&p, top))) break;
    if (!(ok = S_check_forward_refs(&p))) break;
  }
  S_pop_scope(&p);
  if (ok && p.fwd.len) ok = S_check_forward_refs(&p);

  if (ok) {
    shard_op *only = top->first;
    if (only && only == top->last && strcmp(only->name, "builtin.module") == 0) {
      only->parent = NULL;
      only->prev = only->next = NULL;
      m->top = only;
    } else {
      m->top = implicit;
      m->implicit_top = true;
      implicit->span.src = src;
    }
    m->num_attr_aliases = p.attr_aliases.len;
    if (p.attr_aliases.len) {
      m->attr_aliases = SHARD_NEW_ARRAY(m->arena, shard_named_attr, p.attr_aliases.len);
      for (uint32_t i = 0; i < p.attr_aliases.len; i++) {
        m->attr_aliases[i].name = p.attr_aliases.items[i].name;
        m->attr_aliases[i].value = p.attr_aliases.items[i].attr;
      }
    }
  }
  S_parser_release(&p);
  if (!ok || p.failed) {
    shard_module_free(m);
    return NULL;
  }
  return m;
}

shard_attr *shard_parse_attr_text(shard_module *m, const shard_source *src, shard_diag_engine *de) {
  shard_parse_options opts = {.allow_unregistered = false, .max_depth = 512};
  shard_parser p = {0};
  shard_lexer_init(&p.lx, src, 0);
  p.arena = m->arena;
  p.de = de;
  p.module = m;
  p.opts = &opts;
  p.max_depth = opts.max_depth;
  shard_attr *out = NULL;
  bool ok = shard_parser_attr(&p, &out);
  if (ok && shard_parser_peek(&p).kind != SHARD_TOK_EOF)
    ok = shard_parser_error(&p, "unexpected text after the attribute");
  S_parser_release(&p);
  return ok && !p.failed ? out : NULL;
}
