/* HLO text to StableHLO (see hlo_text.h). Two steps: the text is read into
 * computations and instructions (names, shapes, operand names, attribute
 * values kept as raw text spans), then each entry or called computation is
 * written out as a func.func in MLIR's generic op syntax, the others inlined
 * where they are used as regions. The syntax follows XLA's HLO parser
 * (xla/hlo/parser/hlo_parser.cc) and printer; the op mapping follows XLA's
 * HLO-to-MHLO importer (hlo_function_importer.cc) with StableHLO names. */
#include <ctype.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support/strmap.h"
#include "xla/hlo_text.h"
#include "xla/xla.h"

/* ---- the read form --------------------------------------------------------- */

typedef struct hshape hshape;
struct hshape {
  int kind; /* 0 array, 1 tuple, 2 token */
  const char *elem; /* MLIR element type */
  int64_t *dims;
  uint32_t rank;
  hshape **elems;
  uint32_t n;
};

typedef struct hattr {
  const char *key;
  uint32_t klen, off, len; /* value: src text [off, off + len) */
  bool used;
} hattr;

typedef struct href {
  const char *name;
  uint32_t len, off;
} href;

typedef struct hinst {
  const char *name;
  uint32_t nlen, off, op_off, op_len;
  hshape *shape;
  bool root;
  href *ops;
  uint32_t nops;
  uint32_t args_off, args_len; /* the text inside the parentheses */
  hattr *attrs;
  uint32_t nattrs;
} hinst;

typedef struct hcomp {
  const char *name;
  uint32_t nlen, off;
  bool entry, as_func;
  hinst *insts;
  uint32_t n;
  int32_t root;
  hinst **params; /* by number, once S_params has run */
  uint32_t np;
  bool params_read;
} hcomp;

/* An HLO value in MLIR: a leaf (one SSA value) or a tuple of values. */
typedef struct hv hv;
struct hv {
  const char *ref, *type; /* leaf: "%v3" / "%v3#1", "tensor<4xf32>" */
  hv **elems;
  uint32_t n;
  bool tuple;
};

typedef SHARD_VEC(hattr) hattrvec;
typedef SHARD_VEC(const char *) strvec;
typedef SHARD_VEC(const hv *) hvvec;
typedef SHARD_VEC(struct hcomp *) compvec;

typedef struct hp {
  const shard_source *src;
  const char *t;
  uint32_t n, pos;
  shard_diag_engine *de;
  shard_arena *a;
  bool bad;
  SHARD_VEC(hcomp *) comps;
  shard_strmap by_name; /* computation name -> hcomp */
  const char *mod_name;
  uint32_t mod_nlen;
  hattr *mod_attrs;
  uint32_t mod_nattrs;
  shard_buf *out;
  uint32_t next_id;
  SHARD_VEC(uint32_t) map;
} hp;

static bool S_err(hp *p, uint32_t off, uint32_t len, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static bool S_err(hp *p, uint32_t off, uint32_t len, const char *fmt, ...) {
  if (p->bad) return false;
  p->bad = true;
  shard_span at = {p->src, off > p->n ? p->n : off, len};
  va_list ap;
  va_start(ap, fmt);
  shard_diag_vemit(p->de, SHARD_ERROR, at, fmt, ap);
  va_end(ap);
  return false;
}

/* ---- lexing -------------------------------------------------------------- */

static int S_c(const hp *p, uint32_t i) { return i < p->n ? (unsigned char)p->t[i] : -1; }

static void S_ws(hp *p) {
  for (;;) {
    int c = S_c(p, p->pos);
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') p->pos++;
    else if (c == '/' && S_c(p, p->pos + 1) == '/') {
      while (p->pos < p->n && p->t[p->pos] != '\n') p->pos++;
    } else if (c == '/' && S_c(p, p->pos + 1) == '*') {
      p->pos += 2;
      while (p->pos < p->n && !(p->t[p->pos] == '*' && S_c(p, p->pos + 1) == '/')) p->pos++;
      p->pos = p->pos + 2 > p->n ? p->n : p->pos + 2;
    } else return;
  }
}

static bool S_word_char(int c) { return c >= 0 && (isalnum(c) || c == '_' || c == '.' || c == '-'); }

/* A name: `%`? [A-Za-z0-9_.-]+ (no leading '-'). */
static bool S_name(hp *p, const char **s, uint32_t *len, uint32_t *off) {
  S_ws(p);
  uint32_t start = p->pos;
  if (S_c(p, p->pos) == '%') p->pos++;
  uint32_t b = p->pos;
  if (S_c(p, b) == '-') return false;
  while (S_word_char(S_c(p, p->pos)) && !(S_c(p, p->pos) == '-' && S_c(p, p->pos + 1) == '>')) p->pos++;
  if (p->pos == b) {
    p->pos = start;
    return false;
  }
  *s = p->t + b;
  *len = p->pos - b;
  if (off) *off = start;
  return true;
}

static bool S_accept(hp *p, const char *tok) {
  S_ws(p);
  size_t k = strlen(tok);
  if (p->pos + k <= p->n && memcmp(p->t + p->pos, tok, k) == 0) {
    p->pos += (uint32_t)k;
    return true;
  }
  return false;
}

static bool S_expect(hp *p, const char *tok, const char *where) {
  if (S_accept(p, tok)) return true;
  S_ws(p);
  return S_err(p, p->pos, 1, "expected '%s' %s", tok, where);
}

static bool S_eq(const char *s, uint32_t n, const char *lit) { return strlen(lit) == n && memcmp(s, lit, n) == 0; }

/* The end of a balanced (...), [...] or {...} starting at i, strings
 * skipped; 0 when it is not closed. */
static uint32_t S_balanced(const hp *p, uint32_t i) {
  int depth = 0;
  for (; i < p->n; i++) {
    char c = p->t[i];
    if (c == '"') {
      for (i++; i < p->n && p->t[i] != '"'; i++)
        if (p->t[i] == '\\') i++;
      continue;
    }
    if (c == '(' || c == '[' || c == '{') depth++;
    else if ((c == ')' || c == ']' || c == '}') && --depth == 0) return i + 1;
  }
  return 0;
}

static bool S_skip_balanced(hp *p, const char *what) {
  S_ws(p);
  uint32_t end = S_balanced(p, p->pos);
  if (!end) return S_err(p, p->pos, 1, "%s is not closed", what);
  p->pos = end;
  return true;
}

/* ---- shapes -------------------------------------------------------------- */

static const char *S_elem_type(const char *s, uint32_t n) {
  static const char *const map[][2] = {
      {"pred", "i1"},
      {"s2", "i2"},
      {"s4", "i4"},
      {"s8", "i8"},
      {"s16", "i16"},
      {"s32", "i32"},
      {"s64", "i64"},
      {"u2", "ui2"},
      {"u4", "ui4"},
      {"u8", "ui8"},
      {"u16", "ui16"},
      {"u32", "ui32"},
      {"u64", "ui64"},
      {"f16", "f16"},
      {"bf16", "bf16"},
      {"f32", "f32"},
      {"f64", "f64"},
      {"c64", "complex<f32>"},
      {"c128", "complex<f64>"},
      {"f8e5m2", "f8E5M2"},
      {"f8e4m3fn", "f8E4M3FN"},
      {"f8e4m3b11fnuz", "f8E4M3B11FNUZ"},
      {"f8e5m2fnuz", "f8E5M2FNUZ"},
      {"f8e4m3fnuz", "f8E4M3FNUZ"},
      {"f8e4m3", "f8E4M3"},
      {"f8e3m4", "f8E3M4"},
  };
  for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
    if (S_eq(s, n, map[i][0])) return map[i][1];
  return NULL;
}

static hshape *S_shape(hp *p, uint32_t depth) {
  S_ws(p);
  hshape *sh = SHARD_NEW(p->a, hshape);
  if (depth > SHARD_HLO_MAX_DEPTH) {
    S_err(p, p->pos, 1, "tuple shape nested deeper than %d", SHARD_HLO_MAX_DEPTH);
    return NULL;
  }
  if (S_accept(p, "(")) {
    sh->kind = 1;
    SHARD_VEC(hshape *) elems = {0};
    if (!S_accept(p, ")")) {
      do {
        hshape *e = S_shape(p, depth + 1);
        if (!e) {
          SHARD_VEC_FREE(elems);
          return NULL;
        }
        SHARD_VEC_PUSH(elems, e);
      } while (S_accept(p, ","));
      if (!S_expect(p, ")", "to close the tuple shape")) {
        SHARD_VEC_FREE(elems);
        return NULL;
      }
    }
    sh->n = elems.len;
    SHARD_VEC_FREEZE(p->a, elems, sh->elems);
    return sh;
  }
  uint32_t off = p->pos;
  while (S_c(p, p->pos) >= 0 && isalnum(S_c(p, p->pos))) p->pos++;
  const char *ty = p->t + off;
  uint32_t tn = p->pos - off;
  if (S_c(p, p->pos) != '[') {
    S_err(p, off, tn ? tn : 1, "expected a shape (element type and dimensions, like f32[8,16])");
    return NULL;
  }
  if (S_eq(ty, tn, "token")) sh->kind = 2;
  else if (!(sh->elem = S_elem_type(ty, tn))) {
    S_err(p, off, tn, "unknown element type '%.*s'", (int)tn, ty);
    return NULL;
  }
  p->pos++;
  int64_t dims[SHARD_HLO_MAX_RANK];
  uint32_t rank = 0;
  S_ws(p);
  if (!S_accept(p, "]")) {
    do {
      S_ws(p);
      uint32_t d = p->pos;
      if (S_c(p, d) == '<' || S_c(p, d) == '?') {
        S_err(p, d, 1, "dynamic dimensions are not supported by the HLO text reader");
        return NULL;
      }
      char *end;
      long long v = strtoll(p->t + d, &end, 10);
      if (end == p->t + d || v < 0 || !isdigit((unsigned char)p->t[d])) {
        S_err(p, d, 1, "expected a dimension size");
        return NULL;
      }
      if (rank == SHARD_HLO_MAX_RANK) {
        S_err(p, d, 1, "shape of rank above %d", SHARD_HLO_MAX_RANK);
        return NULL;
      }
      dims[rank++] = v;
      p->pos = (uint32_t)(end - p->t);
    } while (S_accept(p, ","));
    if (!S_expect(p, "]", "to close the dimensions")) return NULL;
  }
  if (sh->kind == 2 && rank) {
    S_err(p, off, tn, "a token has no dimensions");
    return NULL;
  }
  sh->rank = rank;
  sh->dims = rank ? shard_arena_dup(p->a, dims, sizeof(int64_t) * rank) : NULL;
  /* A layout follows the dimensions without a space: {1,0} (ignored). */
  if (S_c(p, p->pos) == '{' && !S_skip_balanced(p, "the layout")) return NULL;
  return sh;
}

/* ---- instructions and computations ------------------------------------------ */

/* `key=value`: the value as raw text up to the next ',' (or the end of the
 * line, the list or the instruction) outside brackets and strings. */
static bool S_attr(hp *p, hattrvec *attrs) {
  const char *k;
  uint32_t kn, koff;
  if (!S_name(p, &k, &kn, &koff)) {
    S_ws(p);
    return S_err(p, p->pos, 1, "expected an attribute name");
  }
  if (!S_expect(p, "=", "after the attribute name")) return false;
  while (S_c(p, p->pos) == ' ' || S_c(p, p->pos) == '\t') p->pos++;
  uint32_t b = p->pos;
  int depth = 0;
  for (; p->pos < p->n; p->pos++) {
    char c = p->t[p->pos];
    if (c == '"') {
      for (p->pos++; p->pos < p->n && p->t[p->pos] != '"'; p->pos++)
        if (p->t[p->pos] == '\\') p->pos++;
      if (p->pos >= p->n) return S_err(p, b, 1, "string is not closed");
      continue;
    }
    if (c == '(' || c == '[' || c == '{') depth++;
    else if (c == ')' || c == ']' || c == '}') {
      if (depth == 0) break;
      depth--;
    } else if (depth == 0 && (c == ',' || c == '\n')) break;
  }
  if (depth) return S_err(p, b, 1, "the value of '%.*s' is not closed", (int)kn, k);
  uint32_t e = p->pos;
  while (e > b && (p->t[e - 1] == ' ' || p->t[e - 1] == '\t' || p->t[e - 1] == '\r')) e--;
  if (e == b) return S_err(p, b, 1, "expected a value after '%.*s='", (int)kn, k);
  hattr at = {k, kn, b, e - b, false};
  (void)koff;
  SHARD_VEC_PUSH(*attrs, at);
  return true;
}

static bool S_attr_list(hp *p, hattr **out, uint32_t *n) {
  hattrvec attrs = {0};
  while (!p->bad && S_accept(p, ",")) S_attr(p, &attrs);
  *n = attrs.len;
  SHARD_VEC_FREEZE(p->a, attrs, *out);
  return !p->bad;
}

static bool S_is_shape_start(hp *p) {
  S_ws(p);
  if (S_c(p, p->pos) == '(') return true;
  uint32_t i = p->pos;
  while (S_c(p, i) >= 0 && isalnum(S_c(p, i))) i++;
  return i > p->pos && S_c(p, i) == '[';
}

static bool S_inst(hp *p, hinst *in) {
  S_ws(p);
  in->off = p->pos;
  const char *s;
  uint32_t n;
  if (!S_name(p, &s, &n, NULL)) return S_err(p, p->pos, 1, "expected an instruction");
  if (S_eq(s, n, "ROOT")) {
    in->root = true;
    if (!S_name(p, &s, &n, NULL)) {
      S_ws(p);
      return S_err(p, p->pos, 1, "expected an instruction name after ROOT");
    }
  }
  in->name = s;
  in->nlen = n;
  if (!S_expect(p, "=", "after the instruction name")) return false;
  if (!(in->shape = S_shape(p, 0))) return false;
  S_ws(p);
  in->op_off = p->pos;
  while (S_word_char(S_c(p, p->pos))) p->pos++;
  in->op_len = p->pos - in->op_off;
  if (!in->op_len) return S_err(p, in->op_off, 1, "expected an opcode");
  if (S_c(p, p->pos) != '(') return S_err(p, p->pos, 1, "expected '(' after the opcode");
  uint32_t open = p->pos;
  uint32_t close = S_balanced(p, open);
  if (!close) return S_err(p, open, 1, "the operand list is not closed");
  in->args_off = open + 1;
  in->args_len = close - 1 - in->args_off;
  const char *op = p->t + in->op_off;
  if (S_eq(op, in->op_len, "constant") || S_eq(op, in->op_len, "parameter")) {
    p->pos = close;
  } else {
    p->pos = open + 1;
    SHARD_VEC(href) ops = {0};
    if (!S_accept(p, ")")) {
      do {
        if (S_is_shape_start(p) && !S_shape(p, 0)) break;
        href r;
        if (!S_name(p, &r.name, &r.len, &r.off)) {
          S_ws(p);
          S_err(p, p->pos, 1, "expected an operand");
          break;
        }
        SHARD_VEC_PUSH(ops, r);
      } while (S_accept(p, ","));
      if (!p->bad) S_expect(p, ")", "to close the operand list");
    }
    in->nops = ops.len;
    SHARD_VEC_FREEZE(p->a, ops, in->ops);
    if (p->bad) return false;
  }
  return S_attr_list(p, &in->attrs, &in->nattrs);
}

static bool S_computation(hp *p) {
  S_ws(p);
  hcomp *c = SHARD_NEW(p->a, hcomp);
  c->off = p->pos;
  c->root = -1;
  const char *s;
  uint32_t n;
  if (!S_name(p, &s, &n, NULL)) return S_err(p, p->pos, 1, "expected a computation");
  if (S_eq(s, n, "ENTRY")) {
    c->entry = true;
    if (!S_name(p, &s, &n, NULL)) {
      S_ws(p);
      return S_err(p, p->pos, 1, "expected the entry computation's name");
    }
  }
  c->name = s;
  c->nlen = n;
  S_ws(p);
  if (S_c(p, p->pos) == '(' && !S_skip_balanced(p, "the parameter list")) return false;
  if (S_accept(p, "->") && !S_shape(p, 0)) return false;
  hattr *attrs;
  uint32_t na;
  if (!S_attr_list(p, &attrs, &na)) return false;
  if (!S_expect(p, "{", "to open the computation")) return false;
  SHARD_VEC(hinst) insts = {0};
  for (;;) {
    S_ws(p);
    if (p->pos >= p->n) {
      SHARD_VEC_FREE(insts);
      return S_err(p, c->off, n, "computation '%.*s' is not closed", (int)n, s);
    }
    if (S_accept(p, "}")) break;
    hinst in = {0};
    if (!S_inst(p, &in)) {
      SHARD_VEC_FREE(insts);
      return false;
    }
    if (in.root) {
      if (c->root >= 0) {
        SHARD_VEC_FREE(insts);
        return S_err(p, in.off, 4, "computation '%.*s' has two ROOT instructions", (int)n, s);
      }
      c->root = (int32_t)insts.len;
    }
    SHARD_VEC_PUSH(insts, in);
  }
  c->n = insts.len;
  SHARD_VEC_FREEZE(p->a, insts, c->insts);
  if (c->n && c->root < 0) c->root = (int32_t)c->n - 1; /* the last one, as XLA's parser does */
  if (!c->n) return S_err(p, c->off, n, "computation '%.*s' has no instructions", (int)n, s);
  if (shard_strmap_get(&p->by_name, s, n)) return S_err(p, c->off, n, "computation '%.*s' is defined twice", (int)n, s);
  shard_strmap_put(&p->by_name, s, n, c);
  SHARD_VEC_PUSH(p->comps, c);
  return true;
}

static bool S_module(hp *p) {
  const char *s;
  uint32_t n;
  S_ws(p);
  if (!S_name(p, &s, &n, NULL) || !S_eq(s, n, "HloModule")) return S_err(p, p->pos, 1, "expected 'HloModule'");
  if (!S_name(p, &p->mod_name, &p->mod_nlen, NULL)) {
    S_ws(p);
    return S_err(p, p->pos, 1, "expected the module name after HloModule");
  }
  if (!S_attr_list(p, &p->mod_attrs, &p->mod_nattrs)) return false;
  for (;;) {
    S_ws(p);
    if (p->pos >= p->n) break;
    if (!S_computation(p)) return false;
  }
  bool entry = false;
  for (uint32_t i = 0; i < p->comps.len; i++) entry |= p->comps.items[i]->entry;
  if (!entry && p->comps.len) p->comps.items[p->comps.len - 1]->entry = true; /* XLA: the last one */
  if (!p->comps.len) return S_err(p, 0, 9, "the HLO module has no computations");
  return true;
}

/* ---- attribute values ---------------------------------------------------- */

static hattr *S_find(hinst *in, const char *key) {
  for (uint32_t i = 0; i < in->nattrs; i++)
    if (S_eq(in->attrs[i].key, in->attrs[i].klen, key)) {
      in->attrs[i].used = true;
      return &in->attrs[i];
    }
  return NULL;
}

static const char *S_opcode(const hinst *in, const hp *p) { return p->t + in->op_off; }

static hattr *S_need(hp *p, hinst *in, const char *key) {
  hattr *a = S_find(in, key);
  if (!a) S_err(p, in->op_off, in->op_len, "'%.*s' needs '%s='", (int)in->op_len, S_opcode(in, p), key);
  return a;
}

/* The offset of `needle` in the text [from, to), or `to`. */
static uint32_t S_find_in(const hp *p, uint32_t from, uint32_t to, const char *needle) {
  size_t k = strlen(needle);
  for (uint32_t i = from; i + k <= to; i++)
    if (memcmp(p->t + i, needle, k) == 0) return i;
  return to;
}

/* {1,2,3} (or a bare integer) into a vector. */
typedef SHARD_VEC(int64_t) i64vec;

static bool S_ints_at(hp *p, uint32_t off, uint32_t len, i64vec *out, const char *what) {
  const char *s = p->t + off, *e = s + len;
  bool braced = s < e && *s == '{';
  if (braced) s++;
  for (;;) {
    while (s < e && (*s == ' ' || *s == '\n' || *s == '\t')) s++;
    if (s < e && *s == '}' && braced) {
      s++;
      break;
    }
    if (s >= e) break;
    char *end;
    long long v = strtoll(s, &end, 10);
    if (end == s || end > e) return S_err(p, (uint32_t)(s - p->t), 1, "expected an integer in %s", what);
    SHARD_VEC_PUSH(*out, v);
    s = end;
    while (s < e && (*s == ' ' || *s == '\n' || *s == '\t')) s++;
    if (s < e && *s == ',') s++;
  }
  while (s < e && (*s == ' ' || *s == '\n')) s++;
  if (s != e) return S_err(p, (uint32_t)(s - p->t), 1, "unexpected text in %s", what);
  return true;
}

static bool S_ints(hp *p, hattr *a, i64vec *out) {
  char what[64];
  snprintf(what, sizeof what, "'%.*s'", (int)(a->klen > 40 ? 40 : a->klen), a->key);
  return S_ints_at(p, a->off, a->len, out, what);
}

static void S_put_ints(shard_buf *b, const int64_t *v, uint32_t n) {
  for (uint32_t i = 0; i < n; i++) {
    if (i) shard_buf_puts(b, ", ");
    shard_buf_put_i64(b, v[i]);
  }
}

/* name = array<i64: ...> from the list attribute `key`. */
static bool S_array_attr(hp *p, hinst *in, const char *key, const char *mlir, shard_buf *attrs, bool required) {
  hattr *a = required ? S_need(p, in, key) : S_find(in, key);
  if (!a) return !required;
  i64vec v = {0};
  bool ok = S_ints(p, a, &v);
  if (ok) {
    shard_buf_printf(attrs, "%s%s = array<i64", attrs->len ? ", " : "", mlir);
    if (v.len) shard_buf_puts(attrs, ": ");
    S_put_ints(attrs, v.items, v.len);
    shard_buf_puts(attrs, ">");
  }
  SHARD_VEC_FREE(v);
  return ok;
}

static bool S_int_attr(hp *p, hinst *in, const char *key, int64_t *out) {
  hattr *a = S_need(p, in, key);
  if (!a) return false;
  i64vec v = {0};
  bool ok = S_ints(p, a, &v);
  if (ok && v.len != 1) ok = S_err(p, a->off, a->len, "'%s' takes one integer", key);
  if (ok) *out = v.items[0];
  SHARD_VEC_FREE(v);
  return ok;
}

static void S_sep(shard_buf *b) {
  if (b->len) shard_buf_puts(b, ", ");
}

/* A string attribute value, unescaped as XLA's lexer does (absl::CUnescape). */
static char *S_string(hp *p, uint32_t off, uint32_t len) {
  if (len < 2 || p->t[off] != '"' || p->t[off + len - 1] != '"') {
    S_err(p, off, len ? len : 1, "expected a string");
    return NULL;
  }
  char *raw = shard_arena_strndup(p->a, p->t + off + 1, len - 2);
  char *s = shard_xla_unescape(p->a, raw);
  if (!s) S_err(p, off, len, "bad escape in string");
  return s;
}

/* frontend_attributes={k="v", k2={...}} as an MLIR dictionary. */
static bool S_frontend(hp *p, hattr *a, shard_buf *b) {
  const char *s = p->t + a->off, *e = s + a->len;
  if (a->len < 2 || *s != '{' || e[-1] != '}') return S_err(p, a->off, 1, "expected {key=\"value\", ...}");
  shard_buf_puts(b, "{");
  s++;
  e--;
  bool first = true;
  while (s < e) {
    while (s < e && (*s == ' ' || *s == ',' || *s == '\n')) s++;
    if (s >= e) break;
    const char *k = s;
    while (s < e && *s != '=') s++;
    if (s >= e) return S_err(p, (uint32_t)(k - p->t), 1, "expected '=' in the frontend attributes");
    const char *ke = s;
    while (ke > k && ke[-1] == ' ') ke--;
    s++;
    while (s < e && *s == ' ') s++;
    uint32_t voff = (uint32_t)(s - p->t), vlen;
    if (s < e && *s == '"') {
      const char *q = s + 1;
      while (q < e && *q != '"') q += *q == '\\' ? 2 : 1;
      if (q >= e) return S_err(p, voff, 1, "string is not closed");
      vlen = (uint32_t)(q + 1 - s);
      s = q + 1;
    } else {
      uint32_t end = *s == '{' ? S_balanced(p, voff) : 0;
      if (!end) {
        const char *q = s;
        while (q < e && *q != ',') q++;
        end = (uint32_t)(q - p->t);
      }
      vlen = end - voff;
      s = p->t + end;
    }
    shard_buf_puts(b, first ? "" : ", ");
    first = false;
    shard_buf_put_escaped(b, k, (size_t)(ke - k));
    shard_buf_puts(b, " = ");
    if (p->t[voff] == '"') {
      char *v = S_string(p, voff, vlen);
      if (!v) return false;
      shard_buf_put_escaped(b, v, strlen(v));
    } else {
      shard_buf_put_escaped(b, p->t + voff, vlen);
    }
  }
  shard_buf_puts(b, "}");
  return true;
}

/* mhlo.sharding and mhlo.frontend_attributes of an instruction. */
static bool S_common_attrs(hp *p, hinst *in, shard_buf *attrs) {
  hattr *sh = S_find(in, "sharding");
  if (sh) {
    S_sep(attrs);
    shard_buf_puts(attrs, SHARD_XLA_MHLO_SHARDING " = ");
    shard_buf_put_escaped(attrs, p->t + sh->off, sh->len);
  }
  hattr *fa = S_find(in, "frontend_attributes");
  if (fa) {
    S_sep(attrs);
    shard_buf_puts(attrs, SHARD_XLA_FRONTEND_ATTRS " = ");
    if (!S_frontend(p, fa, attrs)) return false;
  }
  return true;
}

/* Attributes that carry no meaning for the StableHLO module (XLA's
 * importer turns metadata into locations and drops the rest). */
static bool S_harmless(const hattr *a) {
  static const char *const keys[] = {"metadata",
                                     "backend_config",
                                     "control-predecessors",
                                     "statistics",
                                     "operand_layout_constraints",
                                     "origin",
                                     "inferred_dimension",
                                     "constrain_layout",
                                     "indices_are_sorted",
                                     "unique_indices",
                                     "parameter_replication"};
  for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
    if (S_eq(a->key, a->klen, keys[i])) return true;
  return false;
}

static bool S_check_unused(hp *p, hinst *in) {
  for (uint32_t i = 0; i < in->nattrs; i++)
    if (!in->attrs[i].used && !S_harmless(&in->attrs[i]))
      return S_err(p, in->attrs[i].off - in->attrs[i].klen - 1, in->attrs[i].klen,
                   "attribute '%.*s' of '%.*s' is not supported by the HLO text reader", (int)in->attrs[i].klen,
                   in->attrs[i].key, (int)in->op_len, S_opcode(in, p));
  return true;
}

/* ---- types and values ---------------------------------------------------- */

static const char *S_type(hp *p, const hshape *sh) {
  if (sh->kind == 2) return "!stablehlo.token";
  shard_buf b;
  shard_buf_init(&b);
  shard_buf_puts(&b, "tensor<");
  for (uint32_t i = 0; i < sh->rank; i++) shard_buf_printf(&b, "%" PRId64 "x", sh->dims[i]);
  shard_buf_puts(&b, sh->elem);
  shard_buf_puts(&b, ">");
  char *s = shard_arena_strdup(p->a, shard_buf_str(&b));
  shard_buf_free(&b);
  return s;
}

static void S_leaf_types(hp *p, const hshape *sh, strvec *out) {
  if (sh->kind == 1)
    for (uint32_t i = 0; i < sh->n; i++) S_leaf_types(p, sh->elems[i], out);
  else SHARD_VEC_PUSH(*out, S_type(p, sh));
}

static void S_leaves(const hv *v, hvvec *out) {
  if (v->tuple)
    for (uint32_t i = 0; i < v->n; i++) S_leaves(v->elems[i], out);
  else SHARD_VEC_PUSH(*out, v);
}

/* A value of `sh` whose leaves are `base#k` (or `base` alone), k from *next. */
static hv *S_value_of(hp *p, const hshape *sh, const char *base, bool numbered, uint32_t *next) {
  hv *v = SHARD_NEW(p->a, hv);
  if (sh->kind == 1) {
    v->tuple = true;
    v->n = sh->n;
    v->elems = SHARD_NEW_ARRAY(p->a, hv *, sh->n ? sh->n : 1);
    for (uint32_t i = 0; i < sh->n; i++) v->elems[i] = S_value_of(p, sh->elems[i], base, numbered, next);
    return v;
  }
  v->type = S_type(p, sh);
  v->ref = numbered ? shard_arena_printf(p->a, "%s#%u", base, (*next)++) : base;
  return v;
}

/* The types of values: "t" or "(t1, t2)" (a list in parentheses always when
 * `paren`). */
static void S_put_types(shard_buf *b, const hvvec *v, bool paren) {
  bool p = paren || v->len != 1;
  if (p) shard_buf_puts(b, "(");
  for (uint32_t i = 0; i < v->len; i++) {
    if (i) shard_buf_puts(b, ", ");
    shard_buf_puts(b, v->items[i]->type);
  }
  if (p) shard_buf_puts(b, ")");
}

static void S_put_refs(shard_buf *b, const hvvec *v) {
  for (uint32_t i = 0; i < v->len; i++) {
    if (i) shard_buf_puts(b, ", ");
    shard_buf_puts(b, v->items[i]->ref);
  }
}

static void S_put_type_list(shard_buf *b, const char *const *t, uint32_t n) {
  if (n != 1) shard_buf_puts(b, "(");
  for (uint32_t i = 0; i < n; i++) {
    if (i) shard_buf_puts(b, ", ");
    shard_buf_puts(b, t[i]);
  }
  if (n != 1) shard_buf_puts(b, ")");
}

static void S_put_sym(shard_buf *b, const char *s, uint32_t n) {
  bool bare = n && (isalpha((unsigned char)s[0]) || s[0] == '_');
  for (uint32_t i = 0; i < n && bare; i++)
    bare = isalnum((unsigned char)s[i]) || s[i] == '_' || s[i] == '.' || s[i] == '$';
  shard_buf_putc(b, '@');
  if (bare) shard_buf_putn(b, s, n);
  else shard_buf_put_escaped(b, s, n);
}

/* ---- emitting ------------------------------------------------------------ */

typedef struct scope {
  shard_strmap vals; /* instruction name -> hv */
  hv **params;
  uint32_t nparams;
} scope;

static hv *S_body(hp *p, hcomp *c, hv **params, uint32_t nparams, uint32_t depth);

static hcomp *S_comp_ref(hp *p, hinst *in, const char *key, uint32_t off, uint32_t len) {
  const char *s = p->t + off;
  if (len && *s == '%') {
    s++;
    len--;
  }
  hcomp *c = shard_strmap_get(&p->by_name, s, len);
  if (!c) S_err(p, off, len ? len : 1, "'%s' of '%.*s' names no computation", key, (int)in->op_len, S_opcode(in, p));
  return c;
}

static hcomp *S_comp_attr(hp *p, hinst *in, const char *key) {
  hattr *a = S_need(p, in, key);
  return a ? S_comp_ref(p, in, key, a->off, a->len) : NULL;
}

/* {%a, %b} */
static bool S_comp_list(hp *p, hinst *in, hattr *a, compvec *out) {
  const char *s = p->t + a->off, *e = s + a->len;
  if (*s != '{') return S_err(p, a->off, 1, "expected {%%computation, ...}");
  s++;
  while (s < e) {
    while (s < e && (*s == ' ' || *s == ',' || *s == '}')) s++;
    const char *b = s;
    while (s < e && *s != ',' && *s != '}' && *s != ' ') s++;
    if (s == b) break;
    hcomp *c = S_comp_ref(p, in, "called computation", (uint32_t)(b - p->t), (uint32_t)(s - b));
    if (!c) return false;
    SHARD_VEC_PUSH(*out, c);
  }
  return true;
}

/* Writes `%vN = ` (or `%vN:k = `) and returns the result value of shape sh. */
static hv *S_results(hp *p, const hshape *sh, uint32_t *nleaves) {
  strvec types = {0};
  S_leaf_types(p, sh, &types);
  *nleaves = types.len;
  SHARD_VEC_FREE(types);
  uint32_t id = p->next_id++;
  const char *base = shard_arena_printf(p->a, "%%v%u", id);
  if (*nleaves == 1) shard_buf_printf(p->out, "%s = ", base);
  else if (*nleaves > 1) shard_buf_printf(p->out, "%s:%u = ", base, *nleaves);
  uint32_t k = 0;
  if (sh->kind == 1) return S_value_of(p, sh, base, true, &k);
  return S_value_of(p, sh, base, false, &k);
}

/* The result type part ": (operands) -> results" of a generic op. */
static void S_signature(hp *p, const hvvec *ops, const hshape *sh) {
  strvec types = {0};
  S_leaf_types(p, sh, &types);
  shard_buf_puts(p->out, " : ");
  S_put_types(p->out, ops, true);
  shard_buf_puts(p->out, " -> ");
  S_put_type_list(p->out, types.items, types.len);
  SHARD_VEC_FREE(types);
}

/* The parameter instructions of c by number: parameter(0) .. parameter(n-1),
 * each once. */
static bool S_params(hp *p, hcomp *c) {
  if (c->params_read) return true;
  uint32_t np = 0;
  for (uint32_t i = 0; i < c->n; i++)
    if (S_eq(S_opcode(&c->insts[i], p), c->insts[i].op_len, "parameter")) np++;
  c->params = SHARD_NEW_ARRAY(p->a, hinst *, np ? np : 1);
  for (uint32_t i = 0; i < c->n; i++) {
    hinst *in = &c->insts[i];
    if (!S_eq(S_opcode(in, p), in->op_len, "parameter")) continue;
    i64vec num = {0};
    bool ok = S_ints_at(p, in->args_off, in->args_len, &num, "the parameter number");
    if (ok && (num.len != 1 || num.items[0] < 0 || num.items[0] >= np || c->params[num.items[0]]))
      ok = S_err(p, in->op_off, in->op_len, "parameter numbers of computation '%.*s' are not 0 to %u, each once",
                 (int)c->nlen, c->name, np ? np - 1 : 0);
    if (ok) c->params[num.items[0]] = in;
    SHARD_VEC_FREE(num);
    if (!ok) return false;
  }
  c->np = np;
  c->params_read = true;
  return true;
}

/* A region from computation c: block arguments for its parameters
 * (flattened) or, when `args` is given, the parameters are those values
 * (the region takes no arguments); ends with stablehlo.return. */
static bool S_region(hp *p, hcomp *c, const hv *arg_value, uint32_t depth) {
  if (depth > SHARD_HLO_MAX_DEPTH)
    return S_err(p, c->off, c->nlen, "computations nested deeper than %d", SHARD_HLO_MAX_DEPTH);
  if (!S_params(p, c)) return false;
  uint32_t np = c->np;
  hv **params = SHARD_NEW_ARRAY(p->a, hv *, np ? np : 1);
  shard_buf_puts(p->out, "{\n");
  if (arg_value) {
    if (np > 1)
      return S_err(p, c->off, c->nlen, "branch computation '%.*s' takes more than one parameter", (int)c->nlen,
                   c->name);
    if (np) params[0] = (hv *)arg_value;
  } else if (np) {
    shard_buf_puts(p->out, "^bb0(");
    bool first = true;
    for (uint32_t k = 0; k < np; k++) {
      hinst *pin = c->params[k];
      uint32_t id = p->next_id++;
      strvec types = {0};
      S_leaf_types(p, pin->shape, &types);
      uint32_t first_id = id;
      p->next_id += types.len;
      for (uint32_t j = 0; j < types.len; j++) {
        shard_buf_printf(p->out, "%s%%v%u_%u: %s", first ? "" : ", ", first_id, j, types.items[j]);
        first = false;
      }
      /* the parameter's value, leaf j named %v<id>_<j> */
      uint32_t next = 0;
      params[k] = S_value_of(p, pin->shape, shard_arena_printf(p->a, "%%v%u_", first_id), true, &next);
      /* S_value_of numbered them "base#j": rename to "base<j>" */
      hvvec leaves = {0};
      S_leaves(params[k], &leaves);
      for (uint32_t j = 0; j < leaves.len; j++)
        ((hv *)leaves.items[j])->ref = shard_arena_printf(p->a, "%%v%u_%u", first_id, j);
      SHARD_VEC_FREE(leaves);
      SHARD_VEC_FREE(types);
    }
    shard_buf_puts(p->out, "):\n");
  }
  hv *root = S_body(p, c, params, np, depth + 1);
  if (!root) return false;
  hvvec leaves = {0};
  S_leaves(root, &leaves);
  shard_buf_puts(p->out, "\"stablehlo.return\"(");
  S_put_refs(p->out, &leaves);
  shard_buf_puts(p->out, ") : ");
  S_put_types(p->out, &leaves, true);
  shard_buf_puts(p->out, " -> ()\n}");
  SHARD_VEC_FREE(leaves);
  return true;
}

static const char *S_hex_special(const char *elem, int which /* 0 inf, 1 -inf, 2 nan */) {
  static const struct {
    const char *elem, *v[3];
  } t[] = {
      {"f32", {"0x7F800000", "0xFF800000", "0x7FC00000"}},
      {"f64", {"0x7FF0000000000000", "0xFFF0000000000000", "0x7FF8000000000000"}},
      {"f16", {"0x7C00", "0xFC00", "0x7E00"}},
      {"bf16", {"0x7F80", "0xFF80", "0x7FC0"}},
  };
  for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
    if (strcmp(t[i].elem, elem) == 0) return t[i].v[which];
  return NULL;
}

/* A literal: {{1, 2}, {3, 4}} -> dense<[[1, 2], [3, 4]]> : tensor<2x2xf32>. */
static bool S_constant(hp *p, hinst *in, shard_buf *b) {
  const hshape *sh = in->shape;
  if (sh->kind != 0)
    return S_err(p, in->op_off, in->op_len, "tuple and token constants are not supported by the HLO text reader");
  bool is_float = sh->elem[0] == 'f' || sh->elem[0] == 'b' || strncmp(sh->elem, "complex", 7) == 0;
  bool is_pred = strcmp(sh->elem, "i1") == 0;
  const char *s = p->t + in->args_off, *e = s + in->args_len;
  shard_buf_puts(b, "dense<");
  while (s < e) {
    char c = *s;
    if (c == '{' || c == '}') {
      if (c == '{' && s + 5 <= e && memcmp(s, "{...}", 5) == 0)
        return S_err(p, (uint32_t)(s - p->t), 5,
                     "the constant's values were left out of the dump ({...}); dump with "
                     "--xla_dump_large_constants");
      shard_buf_putc(b, c == '{' ? '[' : ']');
      s++;
    } else if (c == ',' || c == ' ' || c == '\n' || c == '\t' || c == '(' || c == ')') {
      if (c != '\n' && c != '\t') shard_buf_putc(b, c);
      s++;
    } else {
      const char *w = s;
      /* a NUL byte is part of a word (strchr would find the terminator and
       * stop the word before it: an empty word, and no progress) */
      while (s < e && (*s == '\0' || !strchr("{}, \n\t()", *s))) s++;
      uint32_t n = (uint32_t)(s - w);
      if (memchr(w, '\0', n)) return S_err(p, (uint32_t)(w - p->t), n, "a NUL byte in the constant");
      if (is_pred && (S_eq(w, n, "true") || S_eq(w, n, "false") || S_eq(w, n, "1") || S_eq(w, n, "0"))) {
        shard_buf_puts(b, (S_eq(w, n, "true") || S_eq(w, n, "1")) ? "true" : "false");
        continue;
      }
      int special = S_eq(w, n, "inf")                                                                 ? 0
                    : S_eq(w, n, "-inf")                                                              ? 1
                    : (n >= 3 && (memcmp(w, "nan", 3) == 0 || (n >= 4 && memcmp(w, "-nan", 4) == 0))) ? 2
                                                                                                      : -1;
      if (special >= 0) {
        const char *h = is_float ? S_hex_special(sh->elem, special) : NULL;
        if (!h)
          return S_err(p, (uint32_t)(w - p->t), n, "'%.*s' in a constant of %s is not supported", (int)n, w, sh->elem);
        shard_buf_puts(b, h);
        continue;
      }
      char *end;
      (void)strtod(w, &end);
      if (end != s)
        return S_err(p, (uint32_t)(w - p->t), n, "expected a number in the constant, got '%.*s'", (int)n, w);
      if (!is_float) {
        if (memchr(w, '.', n) || memchr(w, 'e', n))
          return S_err(p, (uint32_t)(w - p->t), n, "expected an integer in the constant of %s", sh->elem);
        shard_buf_putn(b, w, n);
        continue;
      }
      /* MLIR's float literals need a '.' before the exponent. */
      const char *ex = w;
      while (ex < s && *ex != 'e' && *ex != 'E') ex++;
      shard_buf_putn(b, w, (size_t)(ex - w));
      if (!memchr(w, '.', (size_t)(ex - w))) shard_buf_puts(b, ".0");
      shard_buf_putn(b, ex, (size_t)(s - ex));
    }
  }
  shard_buf_printf(b, "> : %s", S_type(p, sh));
  return true;
}

/* replica_groups={{0,1},{2,3}} or [G,S]<=[dims]T(perm) (XLA's iota form). */
static bool S_groups(hp *p, hattr *a, const char *mlir, shard_buf *attrs) {
  const char *s = p->t + a->off;
  i64vec all = {0};
  int64_t groups = 0, size = 0;
  bool ok = true;
  if (*s == '[') {
    /* [G,S]<=[d...] with an optional T(p...) */
    /* [G,S]<=[d,...] then T(p,...) or nothing, all within the value */
    i64vec gs = {0}, dims = {0}, perm = {0};
    uint32_t end = a->off + a->len;
    uint32_t close = S_find_in(p, a->off, end, "]");
    uint32_t lt = close < end ? S_find_in(p, close, end, "<=[") : end;
    uint32_t dclose = lt < end ? S_find_in(p, lt + 3, end, "]") : end;
    ok = dclose < end && lt == close + 1;
    if (ok)
      ok = S_ints_at(p, a->off + 1, close - a->off - 1, &gs, "the replica groups") &&
           S_ints_at(p, lt + 3, dclose - lt - 3, &dims, "the replica groups");
    if (ok && dclose + 1 < end) {
      uint32_t pc = S_find_in(p, dclose, end, ")");
      ok = dclose + 2 < end && p->t[dclose + 1] == 'T' && p->t[dclose + 2] == '(' && pc + 1 == end &&
           S_ints_at(p, dclose + 3, pc - dclose - 3, &perm, "the replica groups");
    }
    if (!ok || gs.len != 2 || !dims.len || (perm.len && perm.len != dims.len) || dims.len > SHARD_HLO_MAX_RANK)
      ok = S_err(p, a->off, a->len, "expected replica groups [G,S]<=[dims]T(perm)");
    else ok = true;
    int64_t total = 1;
    for (uint32_t i = 0; ok && i < dims.len; i++) {
      if (dims.items[i] <= 0 || total > (INT64_C(1) << 24) / dims.items[i])
        ok = S_err(p, a->off, a->len, "replica groups too large");
      else total *= dims.items[i];
    }
    if (ok && (gs.items[0] < 0 || gs.items[1] < 0 || gs.items[0] * gs.items[1] != total))
      ok = S_err(p, a->off, a->len, "replica groups [%" PRId64 ",%" PRId64 "] do not hold %" PRId64 " devices",
                 gs.items[0], gs.items[1], total);
    if (ok) {
      /* device at position i of the transposed array */
      uint32_t r = dims.len;
      int64_t tdims[SHARD_HLO_MAX_RANK], strides[SHARD_HLO_MAX_RANK], idx[SHARD_HLO_MAX_RANK];
      int64_t st = 1;
      for (int32_t i = (int32_t)r - 1; i >= 0; i--) {
        strides[i] = st;
        st *= dims.items[i];
      }
      for (uint32_t i = 0; i < r; i++) {
        int64_t pi = perm.len ? perm.items[i] : i;
        if (pi < 0 || pi >= r) {
          ok = S_err(p, a->off, a->len, "bad transpose in the replica groups");
          break;
        }
        tdims[i] = dims.items[pi];
        idx[i] = 0;
      }
      for (int64_t k = 0; ok && k < total; k++) {
        int64_t dev = 0;
        for (uint32_t i = 0; i < r; i++) dev += idx[i] * strides[perm.len ? perm.items[i] : i];
        SHARD_VEC_PUSH(all, dev);
        for (int32_t i = (int32_t)r - 1; i >= 0; i--) {
          if (++idx[i] < tdims[i]) break;
          idx[i] = 0;
        }
      }
      groups = gs.items[0];
      size = gs.items[1];
    }
    SHARD_VEC_FREE(gs);
    SHARD_VEC_FREE(dims);
    SHARD_VEC_FREE(perm);
  } else if (*s == '{') {
    /* {{0,1},{2,3}} */
    const char *e = s + a->len;
    s++;
    while (ok && s < e) {
      while (s < e && (*s == ' ' || *s == ',')) s++;
      if (s >= e || *s == '}') break;
      if (*s != '{') {
        ok = S_err(p, (uint32_t)(s - p->t), 1, "expected '{' in the replica groups");
        break;
      }
      const char *c = memchr(s, '}', (size_t)(e - s));
      if (!c) {
        ok = S_err(p, (uint32_t)(s - p->t), 1, "replica group is not closed");
        break;
      }
      uint32_t before = all.len;
      ok = S_ints_at(p, (uint32_t)(s - p->t), (uint32_t)(c + 1 - s), &all, "the replica groups");
      int64_t n = all.len - before;
      if (ok && groups && n != size)
        ok = S_err(p, (uint32_t)(s - p->t), (uint32_t)(c + 1 - s),
                   "replica groups of different sizes are not supported");
      size = n;
      groups++;
      s = c + 1;
    }
  } else {
    ok = S_err(p, a->off, a->len, "expected replica groups {{...}} or [G,S]<=[N]");
  }
  if (ok) {
    S_sep(attrs);
    shard_buf_printf(attrs, "%s = dense<", mlir);
    if (groups && size) {
      shard_buf_puts(attrs, "[");
      for (int64_t g = 0; g < groups; g++) {
        shard_buf_puts(attrs, g ? ", [" : "[");
        S_put_ints(attrs, all.items + g * size, (uint32_t)size);
        shard_buf_puts(attrs, "]");
      }
      shard_buf_puts(attrs, "]");
    }
    shard_buf_printf(attrs, "> : tensor<%" PRId64 "x%" PRId64 "xi64>", groups, size);
  }
  SHARD_VEC_FREE(all);
  return ok;
}

static bool S_channel(hp *p, hinst *in, shard_buf *attrs) {
  if (!S_find(in, "channel_id")) return true;
  int64_t ch;
  if (!S_int_attr(p, in, "channel_id", &ch)) return false;
  S_sep(attrs);
  shard_buf_printf(attrs, "channel_handle = #stablehlo.channel_handle<handle = %" PRId64 ", type = 1>", ch);
  return true;
}

static bool S_flag(hp *p, hinst *in, const char *key, bool *out) {
  hattr *a = S_find(in, key);
  *out = false;
  if (!a) return true;
  if (S_eq(p->t + a->off, a->len, "true")) *out = true;
  else if (!S_eq(p->t + a->off, a->len, "false")) return S_err(p, a->off, a->len, "'%s' is true or false", key);
  return true;
}

static bool S_precision(hp *p, hinst *in, shard_buf *attrs) {
  hattr *a = S_find(in, "operand_precision");
  S_sep(attrs);
  shard_buf_puts(attrs, "precision_config = [");
  if (!a) {
    shard_buf_puts(attrs, "#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]");
    return true;
  }
  const char *s = p->t + a->off, *e = s + a->len;
  if (*s == '{') s++;
  bool first = true;
  while (s < e) {
    while (s < e && (*s == ' ' || *s == ',' || *s == '}')) s++;
    const char *w = s;
    while (s < e && isalpha((unsigned char)*s)) s++;
    if (s == w) break;
    const char *v = S_eq(w, (uint32_t)(s - w), "default")   ? "DEFAULT"
                    : S_eq(w, (uint32_t)(s - w), "high")    ? "HIGH"
                    : S_eq(w, (uint32_t)(s - w), "highest") ? "HIGHEST"
                                                            : NULL;
    if (!v)
      return S_err(p, (uint32_t)(w - p->t), (uint32_t)(s - w), "unknown operand precision '%.*s'", (int)(s - w), w);
    shard_buf_printf(attrs, "%s#stablehlo<precision %s>", first ? "" : ", ", v);
    first = false;
  }
  shard_buf_puts(attrs, "]");
  return true;
}

static void S_dims_field(shard_buf *b, const char *name, const i64vec *v, bool *first) {
  if (!v->len) return;
  shard_buf_printf(b, "%s%s = [", *first ? "" : ", ", name);
  S_put_ints(b, v->items, v->len);
  shard_buf_puts(b, "]");
  *first = false;
}

static bool S_dot(hp *p, hinst *in, shard_buf *attrs) {
  static const char *const keys[4][2] = {{"lhs_batch_dims", "lhs_batching_dimensions"},
                                         {"rhs_batch_dims", "rhs_batching_dimensions"},
                                         {"lhs_contracting_dims", "lhs_contracting_dimensions"},
                                         {"rhs_contracting_dims", "rhs_contracting_dimensions"}};
  i64vec v[4] = {{0}};
  bool ok = true;
  for (int i = 0; i < 4 && ok; i++) {
    hattr *a = S_find(in, keys[i][0]);
    if (a) ok = S_ints(p, a, &v[i]);
  }
  if (ok) {
    S_sep(attrs);
    shard_buf_puts(attrs, "dot_dimension_numbers = #stablehlo.dot<");
    bool first = true;
    for (int i = 0; i < 4; i++) S_dims_field(attrs, keys[i][1], &v[i], &first);
    shard_buf_puts(attrs, ">");
    ok = S_precision(p, in, attrs);
  }
  for (int i = 0; i < 4; i++) SHARD_VEC_FREE(v[i]);
  return ok;
}

/* window={size=3x3 stride=2x2 pad=1_1x1_1 lhs_dilate=1x1 rhs_dilate=1x1}
 * over n dimensions (absent fields: 1, padding 0). */
typedef struct hwin {
  int64_t size[SHARD_HLO_MAX_RANK], stride[SHARD_HLO_MAX_RANK], lo[SHARD_HLO_MAX_RANK], hi[SHARD_HLO_MAX_RANK],
      ld[SHARD_HLO_MAX_RANK], rd[SHARD_HLO_MAX_RANK];
} hwin;

static bool S_window(hp *p, hinst *in, uint32_t n, hwin *w) {
  for (uint32_t i = 0; i < SHARD_HLO_MAX_RANK; i++)
    w->size[i] = w->stride[i] = w->ld[i] = w->rd[i] = 1, w->lo[i] = w->hi[i] = 0;
  hattr *a = S_find(in, "window");
  if (!a) return true;
  const char *s = p->t + a->off, *e = s + a->len;
  if (*s == '{') s++, e--;
  while (s < e) {
    while (s < e && *s == ' ') s++;
    const char *k = s;
    while (s < e && *s != '=') s++;
    if (s >= e) break;
    uint32_t kn = (uint32_t)(s - k);
    s++;
    int64_t *dst = S_eq(k, kn, "stride")       ? w->stride
                   : S_eq(k, kn, "lhs_dilate") ? w->ld
                   : S_eq(k, kn, "rhs_dilate") ? w->rd
                   : S_eq(k, kn, "size")       ? w->size
                                               : NULL;
    bool pad = S_eq(k, kn, "pad");
    if (!dst && !pad)
      return S_err(p, (uint32_t)(k - p->t), kn, "window field '%.*s' is not supported by the HLO text reader", (int)kn,
                   k);
    uint32_t d = 0;
    while (s < e && *s != ' ') {
      char *end;
      long long v = strtoll(s, &end, 10);
      if (end == s || end > e || d >= n)
        return S_err(p, (uint32_t)(s - p->t), 1, "bad window field '%.*s'", (int)kn, k);
      if (pad) {
        w->lo[d] = v;
        if (end >= e || *end != '_') return S_err(p, (uint32_t)(end - p->t), 1, "expected LOW_HIGH padding");
        s = end + 1;
        w->hi[d] = strtoll(s, &end, 10);
        if (end == s || end > e) return S_err(p, (uint32_t)(s - p->t), 1, "expected LOW_HIGH padding");
      } else dst[d] = v;
      d++;
      s = end;
      if (s < e && *s == 'x') s++;
    }
  }
  return true;
}

static void S_put_i64_array(shard_buf *b, const char *name, const int64_t *v, uint32_t n) {
  shard_buf_printf(b, "%s%s = array<i64", b->len ? ", " : "", name);
  for (uint32_t i = 0; i < n; i++) shard_buf_printf(b, "%s%" PRId64, i ? ", " : ": ", v[i]);
  shard_buf_puts(b, ">");
}

static void S_put_padding(shard_buf *b, const hwin *w, uint32_t n) {
  shard_buf_printf(b, "%spadding = dense<", b->len ? ", " : "");
  if (n) {
    shard_buf_puts(b, "[");
    for (uint32_t i = 0; i < n; i++)
      shard_buf_printf(b, "%s[%" PRId64 ", %" PRId64 "]", i ? ", " : "", w->lo[i], w->hi[i]);
    shard_buf_puts(b, "]");
  }
  shard_buf_printf(b, "> : tensor<%ux2xi64>", n);
}

/* reduce-window: the window over every dimension of the operands. */
static bool S_reduce_window(hp *p, hinst *in, uint32_t rank, shard_buf *attrs) {
  hwin w;
  if (!S_window(p, in, rank, &w)) return false;
  S_put_i64_array(attrs, "window_dimensions", w.size, rank);
  S_put_i64_array(attrs, "window_strides", w.stride, rank);
  S_put_i64_array(attrs, "base_dilations", w.ld, rank);
  S_put_i64_array(attrs, "window_dilations", w.rd, rank);
  S_put_padding(attrs, &w, rank);
  return true;
}

static bool S_conv(hp *p, hinst *in, uint32_t spatial, shard_buf *attrs) {
  hwin w;
  if (!S_window(p, in, spatial, &w)) return false;
  hattr *dl = S_need(p, in, "dim_labels");
  if (!dl) return false;
  /* b01f_01io->b01f */
  const char *s = p->t + dl->off;
  uint32_t dend = dl->off + dl->len, uo = S_find_in(p, dl->off, dend, "_"), ao = S_find_in(p, dl->off, dend, "->");
  if (uo >= dend || ao >= dend || ao < uo)
    return S_err(p, dl->off, dl->len, "expected dim_labels like b01f_01io->b01f");
  const char *parts[3] = {s, p->t + uo + 1, p->t + ao + 2};
  uint32_t lens[3] = {uo - dl->off, ao - uo - 1, dend - ao - 2};
  S_sep(attrs);
  shard_buf_puts(attrs, "dimension_numbers = #stablehlo.conv<");
  for (int i = 0; i < 3; i++) {
    /* b and f (i and o for the kernel) once each, and the spatial
     * dimensions 0 .. n-1 once each */
    const char *two = i == 1 ? "io" : "bf";
    bool seen[12] = {false};
    if (lens[i] != spatial + 2 || spatial > 10)
      return S_err(p, dl->off, dl->len, "dim_labels: '%.*s' does not name %u dimensions", (int)lens[i], parts[i],
                   spatial + 2);
    shard_buf_puts(attrs, i == 0 ? "[" : i == 1 ? "]x[" : "]->[");
    for (uint32_t j = 0; j < lens[i]; j++) {
      char c = parts[i][j];
      int slot = c == two[0] ? 10 : c == two[1] ? 11 : (c >= '0' && c < (char)('0' + spatial)) ? c - '0' : -1;
      if (slot < 0 || seen[slot])
        return S_err(p, dl->off, dl->len, "dim_labels: bad or repeated label '%c' in '%.*s'", c, (int)lens[i],
                     parts[i]);
      seen[slot] = true;
      shard_buf_printf(attrs, "%s%c", j ? ", " : "", c);
    }
  }
  shard_buf_puts(attrs, "]>");
  S_put_i64_array(attrs, "window_strides", w.stride, spatial);
  S_put_padding(attrs, &w, spatial);
  S_put_i64_array(attrs, "lhs_dilation", w.ld, spatial);
  S_put_i64_array(attrs, "rhs_dilation", w.rd, spatial);
  int64_t fg = 1, bg = 1;
  if (S_find(in, "feature_group_count") && !S_int_attr(p, in, "feature_group_count", &fg)) return false;
  if (S_find(in, "batch_group_count") && !S_int_attr(p, in, "batch_group_count", &bg)) return false;
  shard_buf_printf(attrs, ", feature_group_count = %" PRId64 " : i64, batch_group_count = %" PRId64 " : i64", fg, bg);
  return S_precision(p, in, attrs);
}

/* slice={[0:4], [0:8:2]} */
static bool S_slice(hp *p, hinst *in, shard_buf *attrs) {
  hattr *a = S_need(p, in, "slice");
  if (!a) return false;
  i64vec st = {0}, li = {0}, sd = {0};
  const char *s = p->t + a->off, *e = s + a->len;
  bool ok = true;
  while (ok && s < e) {
    const char *b = memchr(s, '[', (size_t)(e - s));
    if (!b) break;
    char *end;
    int64_t v[3] = {0, 0, 1};
    const char *q = b + 1;
    for (int k = 0; k < 3; k++) {
      v[k] = strtoll(q, &end, 10);
      if (end == q) {
        ok = S_err(p, (uint32_t)(q - p->t), 1, "expected [start:limit(:stride)] in 'slice'");
        break;
      }
      q = end;
      if (*q == ':') q++;
      else break;
    }
    if (!ok) break;
    if (*q != ']') ok = S_err(p, (uint32_t)(q - p->t), 1, "expected ']' in 'slice'");
    SHARD_VEC_PUSH(st, v[0]);
    SHARD_VEC_PUSH(li, v[1]);
    SHARD_VEC_PUSH(sd, v[2]);
    s = q + 1;
  }
  if (ok) {
    S_sep(attrs);
    shard_buf_puts(attrs, "start_indices = array<i64");
    if (st.len) shard_buf_puts(attrs, ": ");
    S_put_ints(attrs, st.items, st.len);
    shard_buf_puts(attrs, ">, limit_indices = array<i64");
    if (li.len) shard_buf_puts(attrs, ": ");
    S_put_ints(attrs, li.items, li.len);
    shard_buf_puts(attrs, ">, strides = array<i64");
    if (sd.len) shard_buf_puts(attrs, ": ");
    S_put_ints(attrs, sd.items, sd.len);
    shard_buf_puts(attrs, ">");
  }
  SHARD_VEC_FREE(st);
  SHARD_VEC_FREE(li);
  SHARD_VEC_FREE(sd);
  return ok;
}

/* padding=0_1x2_3_1 (low_high[_interior] per dimension) */
static bool S_pad(hp *p, hinst *in, shard_buf *attrs) {
  hattr *a = S_need(p, in, "padding");
  if (!a) return false;
  i64vec v[3] = {{0}};
  const char *s = p->t + a->off, *e = s + a->len;
  bool ok = true;
  while (ok && s < e) {
    int64_t x[3] = {0, 0, 0};
    int k = 0;
    for (; k < 3; k++) {
      char *end;
      x[k] = strtoll(s, &end, 10);
      if (end == s) {
        ok = S_err(p, (uint32_t)(s - p->t), 1, "expected LOW_HIGH(_INTERIOR) in 'padding'");
        break;
      }
      s = end;
      if (s < e && *s == '_') s++;
      else break;
    }
    if (!ok) break;
    if (k == 0) ok = S_err(p, (uint32_t)(s - p->t), 1, "expected LOW_HIGH in 'padding'");
    for (int j = 0; j < 3; j++) SHARD_VEC_PUSH(v[j], x[j]);
    if (s < e && *s == 'x') s++;
    else if (s < e) ok = S_err(p, (uint32_t)(s - p->t), 1, "unexpected text in 'padding'");
  }
  static const char *const names[3] = {"edge_padding_low", "edge_padding_high", "interior_padding"};
  for (int j = 0; j < 3 && ok; j++) {
    S_sep(attrs);
    shard_buf_printf(attrs, "%s = array<i64", names[j]);
    if (v[j].len) shard_buf_puts(attrs, ": ");
    S_put_ints(attrs, v[j].items, v[j].len);
    shard_buf_puts(attrs, ">");
  }
  for (int j = 0; j < 3; j++) SHARD_VEC_FREE(v[j]);
  return ok;
}

/* Gather's and scatter's dimension numbers, `head` then their five dim
 * lists `keys` (HLO and StableHLO spell them alike) and index_vector_dim. */
static bool S_index_dimnums(hp *p, hinst *in, shard_buf *attrs, const char *head, const char *const keys[5]) {
  bool ok = true, first = true;
  S_sep(attrs);
  shard_buf_puts(attrs, head);
  for (int i = 0; i < 5 && ok; i++) {
    hattr *a = S_find(in, keys[i]);
    i64vec v = {0};
    if (a) ok = S_ints(p, a, &v);
    S_dims_field(attrs, keys[i], &v, &first);
    SHARD_VEC_FREE(v);
  }
  int64_t ivd = 0;
  if (ok) ok = S_int_attr(p, in, "index_vector_dim", &ivd);
  if (ok) shard_buf_printf(attrs, "%sindex_vector_dim = %" PRId64 ">", first ? "" : ", ", ivd);
  return ok;
}

/* A boolean HLO attribute `key`, written `, key = true` when set (false is
 * the default StableHLO leaves out). */
static bool S_true_flag(hp *p, hinst *in, const char *key, shard_buf *attrs) {
  bool flag;
  if (!S_flag(p, in, key, &flag)) return false;
  if (flag) shard_buf_printf(attrs, ", %s = true", key);
  return true;
}

static bool S_gather(hp *p, hinst *in, shard_buf *attrs) {
  static const char *const keys[5] = {"offset_dims", "collapsed_slice_dims", "operand_batching_dims",
                                      "start_indices_batching_dims", "start_index_map"};
  return S_index_dimnums(p, in, attrs, "dimension_numbers = #stablehlo.gather<", keys) &&
         S_array_attr(p, in, "slice_sizes", "slice_sizes", attrs, true) &&
         S_true_flag(p, in, "indices_are_sorted", attrs);
}

static bool S_scatter(hp *p, hinst *in, shard_buf *attrs) {
  static const char *const keys[5] = {"update_window_dims", "inserted_window_dims", "input_batching_dims",
                                      "scatter_indices_batching_dims", "scatter_dims_to_operand_dims"};
  return S_index_dimnums(p, in, attrs, "scatter_dimension_numbers = #stablehlo.scatter<", keys) &&
         S_true_flag(p, in, "indices_are_sorted", attrs) && S_true_flag(p, in, "unique_indices", attrs);
}

/* HLO opcode -> StableHLO op for the ops without attributes of their own. */
static const char *S_plain_op(const char *s, uint32_t n) {
  static const char *const map[][2] = {
      {"abs", "abs"},
      {"add", "add"},
      {"and", "and"},
      {"atan2", "atan2"},
      {"bitcast-convert", "bitcast_convert"},
      {"cbrt", "cbrt"},
      {"ceil", "ceil"},
      {"clamp", "clamp"},
      {"complex", "complex"},
      {"convert", "convert"},
      {"cosine", "cosine"},
      {"count-leading-zeros", "count_leading_zeros"},
      {"divide", "divide"},
      {"dynamic-update-slice", "dynamic_update_slice"},
      {"exponential", "exponential"},
      {"exponential-minus-one", "exponential_minus_one"},
      {"floor", "floor"},
      {"imag", "imag"},
      {"is-finite", "is_finite"},
      {"log", "log"},
      {"log-plus-one", "log_plus_one"},
      {"logistic", "logistic"},
      {"maximum", "maximum"},
      {"minimum", "minimum"},
      {"multiply", "multiply"},
      {"negate", "negate"},
      {"not", "not"},
      {"or", "or"},
      {"popcnt", "popcnt"},
      {"power", "power"},
      {"real", "real"},
      {"remainder", "remainder"},
      {"reshape", "reshape"},
      {"round-nearest-afz", "round_nearest_afz"},
      {"round-nearest-even", "round_nearest_even"},
      {"rsqrt", "rsqrt"},
      {"select", "select"},
      {"shift-left", "shift_left"},
      {"shift-right-arithmetic", "shift_right_arithmetic"},
      {"shift-right-logical", "shift_right_logical"},
      {"sign", "sign"},
      {"sine", "sine"},
      {"sqrt", "sqrt"},
      {"subtract", "subtract"},
      {"tan", "tan"},
      {"tanh", "tanh"},
      {"xor", "xor"},
      {"opt-barrier", "optimization_barrier"},
      {"after-all", "after_all"},
      {"partition-id", "partition_id"},
      {"replica-id", "replica_id"},
  };
  for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
    if (S_eq(s, n, map[i][0])) return map[i][1];
  return NULL;
}

static hv *S_operand(hp *p, scope *sc, hinst *in, uint32_t k) {
  href *r = &in->ops[k];
  hv *v = shard_strmap_get(&sc->vals, r->name, r->len);
  if (!v) S_err(p, r->off, r->len + (p->t[r->off] == '%'), "use of undefined value '%.*s'", (int)r->len, r->name);
  return v;
}

/* The instruction's leaf operands (tuples flattened). */
static bool S_flat_operands(hp *p, scope *sc, hinst *in, uint32_t from, uint32_t to, hvvec *out) {
  for (uint32_t k = from; k < to; k++) {
    hv *v = S_operand(p, sc, in, k);
    if (!v) return false;
    S_leaves(v, out);
  }
  return true;
}

static bool S_need_ops(hp *p, hinst *in, uint32_t min, uint32_t max) {
  if (in->nops < min || in->nops > max) {
    if (min == max)
      return S_err(p, in->op_off, in->op_len, "'%.*s' takes %u operand%s, got %u", (int)in->op_len, S_opcode(in, p),
                   min, min == 1 ? "" : "s", in->nops);
    return S_err(p, in->op_off, in->op_len, "'%.*s' takes %u to %u operands, got %u", (int)in->op_len, S_opcode(in, p),
                 min, max, in->nops);
  }
  return true;
}

/* One generic op: %r = "stablehlo.X"(ops) ({regions}) {attrs} : (types) -> types.
 * Regions are written by the caller between head and tail. */
static hv *S_op_head(hp *p, hinst *in, const char *name, const hvvec *ops) {
  uint32_t nres;
  hv *r = S_results(p, in->shape, &nres);
  shard_buf_printf(p->out, "\"%s\"(", name);
  S_put_refs(p->out, ops);
  shard_buf_puts(p->out, ")");
  return r;
}

static bool S_op_tail(hp *p, hinst *in, const hvvec *ops, shard_buf *attrs) {
  if (!S_common_attrs(p, in, attrs)) return false;
  if (attrs->len) shard_buf_printf(p->out, " {%s}", shard_buf_str(attrs));
  S_signature(p, ops, in->shape);
  shard_buf_putc(p->out, '\n');
  return S_check_unused(p, in);
}

static hv *S_gte(hp *p, scope *sc, hinst *in) {
  if (!S_need_ops(p, in, 1, 1)) return NULL;
  hv *t = S_operand(p, sc, in, 0);
  int64_t idx;
  if (!t || !S_int_attr(p, in, "index", &idx)) return NULL;
  if (!t->tuple || idx < 0 || idx >= t->n) {
    S_err(p, in->op_off, in->op_len, "get-tuple-element index %" PRId64 " out of range of its operand", idx);
    return NULL;
  }
  S_common_attrs(p, in, &(shard_buf){0}); /* no op of its own: its sharding belongs to the producer */
  return S_check_unused(p, in) ? t->elems[idx] : NULL;
}

static hv *S_inst_emit(hp *p, scope *sc, hcomp *c, hinst *in, uint32_t depth) {
  const char *op = S_opcode(in, p);
  uint32_t on = in->op_len;
  shard_buf attrs;
  shard_buf_init(&attrs);
  hvvec ops = {0};
  hv *r = NULL;
  const char *plain = S_plain_op(op, on);
#define OPEQ(s) S_eq(op, on, s)
  if (OPEQ("parameter")) {
    i64vec num = {0};
    if (S_ints_at(p, in->args_off, in->args_len, &num, "the parameter number")) {
      if (num.len != 1 || num.items[0] < 0 || num.items[0] >= sc->nparams || !sc->params[num.items[0]])
        S_err(p, in->op_off, in->op_len, "parameter number out of range in computation '%.*s'", (int)c->nlen, c->name);
      else r = sc->params[num.items[0]];
    }
    SHARD_VEC_FREE(num);
    if (r) {
      S_find(in, "sharding");
      S_find(in, "frontend_attributes"); /* put on the function argument */
      if (!S_check_unused(p, in)) r = NULL;
    }
  } else if (OPEQ("tuple")) {
    r = SHARD_NEW(p->a, hv);
    r->tuple = true;
    r->n = in->nops;
    r->elems = SHARD_NEW_ARRAY(p->a, hv *, in->nops ? in->nops : 1);
    for (uint32_t k = 0; k < in->nops && r; k++)
      if (!(r->elems[k] = S_operand(p, sc, in, k))) r = NULL;
    if (r) {
      S_find(in, "sharding");
      S_find(in, "frontend_attributes");
      if (!S_check_unused(p, in)) r = NULL;
    }
  } else if (OPEQ("get-tuple-element")) {
    r = S_gte(p, sc, in);
  } else if (OPEQ("constant")) {
    shard_buf lit;
    shard_buf_init(&lit);
    if (S_constant(p, in, &lit)) {
      shard_buf_printf(&attrs, "value = %s", shard_buf_str(&lit));
      r = S_op_head(p, in, "stablehlo.constant", &ops);
      if (!S_op_tail(p, in, &ops, &attrs)) r = NULL;
    }
    shard_buf_free(&lit);
  } else if (plain) {
    if (in->shape->kind == 1 && !OPEQ("opt-barrier")) {
      S_err(p, in->op_off, on, "'%.*s' with a tuple result is not supported by the HLO text reader", (int)on, op);
    } else if (S_flat_operands(p, sc, in, 0, in->nops, &ops)) {
      char name[64];
      snprintf(name, sizeof name, "stablehlo.%s", plain);
      r = S_op_head(p, in, name, &ops);
      if (!S_op_tail(p, in, &ops, &attrs)) r = NULL;
    }
  } else if (OPEQ("copy")) {
    if (S_need_ops(p, in, 1, 1) && S_flat_operands(p, sc, in, 0, 1, &ops)) {
      r = S_op_head(p, in, "mhlo.copy", &ops);
      if (!S_op_tail(p, in, &ops, &attrs)) r = NULL;
    }
  } else {
    /* the ops with attributes */
    const char *name = NULL;
    hcomp *region = NULL;
    bool ok = S_flat_operands(p, sc, in, 0, in->nops, &ops);
    if (!ok) {
    } else if (OPEQ("compare")) {
      hattr *d = S_need(p, in, "direction");
      ok = d && S_need_ops(p, in, 2, 2);
      if (ok) {
        shard_buf_printf(&attrs, "comparison_direction = #stablehlo<comparison_direction %.*s>", (int)d->len,
                         p->t + d->off);
        hattr *t = S_find(in, "type");
        if (t)
          shard_buf_printf(&attrs, ", compare_type = #stablehlo<comparison_type %.*s>", (int)t->len, p->t + t->off);
        name = "stablehlo.compare";
      }
    } else if (OPEQ("broadcast")) {
      ok = S_need_ops(p, in, 1, 1) && S_array_attr(p, in, "dimensions", "broadcast_dimensions", &attrs, true);
      name = "stablehlo.broadcast_in_dim";
    } else if (OPEQ("transpose")) {
      ok = S_need_ops(p, in, 1, 1) && S_array_attr(p, in, "dimensions", "permutation", &attrs, true);
      name = "stablehlo.transpose";
    } else if (OPEQ("reverse")) {
      ok = S_need_ops(p, in, 1, 1) && S_array_attr(p, in, "dimensions", "dimensions", &attrs, true);
      name = "stablehlo.reverse";
    } else if (OPEQ("dynamic-slice")) {
      ok = S_need_ops(p, in, 2, 1u << 20) && S_array_attr(p, in, "dynamic_slice_sizes", "slice_sizes", &attrs, true);
      name = "stablehlo.dynamic_slice";
    } else if (OPEQ("slice")) {
      ok = S_need_ops(p, in, 1, 1) && S_slice(p, in, &attrs);
      name = "stablehlo.slice";
    } else if (OPEQ("pad")) {
      ok = S_need_ops(p, in, 2, 2) && S_pad(p, in, &attrs);
      name = "stablehlo.pad";
    } else if (OPEQ("concatenate")) {
      int64_t d;
      ok = S_int_attr(p, in, "dimensions", &d);
      if (ok) shard_buf_printf(&attrs, "dimension = %" PRId64 " : i64", d);
      name = "stablehlo.concatenate";
    } else if (OPEQ("iota")) {
      int64_t d;
      ok = S_need_ops(p, in, 0, 0) && S_int_attr(p, in, "iota_dimension", &d);
      if (ok) shard_buf_printf(&attrs, "iota_dimension = %" PRId64 " : i64", d);
      name = "stablehlo.iota";
    } else if (OPEQ("dot")) {
      ok = S_need_ops(p, in, 2, 2) && S_dot(p, in, &attrs);
      name = "stablehlo.dot_general";
    } else if (OPEQ("convolution")) {
      ok = S_need_ops(p, in, 2, 2) && in->shape->kind == 0;
      if (ok) ok = in->shape->rank >= 2 && S_conv(p, in, in->shape->rank - 2, &attrs);
      else S_err(p, in->op_off, on, "'convolution' needs an array result");
      name = "stablehlo.convolution";
    } else if (OPEQ("gather")) {
      ok = S_need_ops(p, in, 2, 2) && S_gather(p, in, &attrs);
      name = "stablehlo.gather";
    } else if (OPEQ("scatter")) {
      ok = in->nops >= 3 && in->nops % 2 == 1 && S_scatter(p, in, &attrs) && (region = S_comp_attr(p, in, "to_apply"));
      if (!ok) S_err(p, in->op_off, on, "'scatter' takes operands, indices and updates and 'to_apply='");
      name = "stablehlo.scatter";
    } else if (OPEQ("reduce")) {
      ok = in->nops >= 2 && in->nops % 2 == 0;
      if (!ok) S_err(p, in->op_off, on, "'reduce' takes inputs and as many initial values");
      ok = ok && S_array_attr(p, in, "dimensions", "dimensions", &attrs, true) &&
           (region = S_comp_attr(p, in, "to_apply"));
      name = "stablehlo.reduce";
    } else if (OPEQ("reduce-window")) {
      ok = in->nops >= 2 && in->nops % 2 == 0;
      hv *first = ok ? S_operand(p, sc, in, 0) : NULL;
      ok = ok && first && !first->tuple;
      if (!ok) S_err(p, in->op_off, on, "'reduce-window' takes array inputs and as many initial values");
      uint32_t rank = 0;
      if (ok) {
        const char *t = strchr(first->type, '<');
        while (t && *t && *t != '>') rank += *t++ == 'x';
      }
      ok = ok && S_reduce_window(p, in, rank, &attrs) && (region = S_comp_attr(p, in, "to_apply"));
      name = "stablehlo.reduce_window";
    } else if (OPEQ("reduce-precision")) {
      int64_t eb, mb;
      ok =
          S_need_ops(p, in, 1, 1) && S_int_attr(p, in, "exponent_bits", &eb) && S_int_attr(p, in, "mantissa_bits", &mb);
      if (ok) shard_buf_printf(&attrs, "exponent_bits = %" PRId64 " : i32, mantissa_bits = %" PRId64 " : i32", eb, mb);
      name = "stablehlo.reduce_precision";
    } else if (OPEQ("erf")) {
      ok = S_need_ops(p, in, 1, 1);
      name = "chlo.erf";
    } else if (OPEQ("sort")) {
      int64_t d;
      bool stable;
      ok = S_int_attr(p, in, "dimensions", &d) && S_flag(p, in, "is_stable", &stable) &&
           (region = S_comp_attr(p, in, "to_apply"));
      if (ok) shard_buf_printf(&attrs, "dimension = %" PRId64 " : i64, is_stable = %s", d, stable ? "true" : "false");
      name = "stablehlo.sort";
    } else if (OPEQ("all-reduce") || OPEQ("reduce-scatter") || OPEQ("all-gather") || OPEQ("all-to-all")) {
      hattr *g = S_find(in, "replica_groups");
      bool global;
      if (g) ok = S_groups(p, g, "replica_groups", &attrs);
      else shard_buf_puts(&attrs, "replica_groups = dense<> : tensor<0x0xi64>");
      ok = ok && S_channel(p, in, &attrs) && S_flag(p, in, "use_global_device_ids", &global);
      if (ok && global) shard_buf_puts(&attrs, ", use_global_device_ids");
      if (ok && (OPEQ("all-reduce") || OPEQ("reduce-scatter"))) ok = (region = S_comp_attr(p, in, "to_apply")) != NULL;
      int64_t d = 0;
      if (ok && !OPEQ("all-reduce")) ok = S_int_attr(p, in, "dimensions", &d);
      if (ok && OPEQ("reduce-scatter")) shard_buf_printf(&attrs, ", scatter_dimension = %" PRId64 " : i64", d);
      if (ok && OPEQ("all-gather")) shard_buf_printf(&attrs, ", all_gather_dim = %" PRId64 " : i64", d);
      if (ok && OPEQ("all-to-all")) {
        /* split_count: the size of a replica group */
        const char *gs = g ? strstr(shard_buf_str(&attrs), "tensor<") : NULL;
        long long size = 0;
        if (gs) {
          const char *x = strchr(gs, 'x');
          size = x ? strtoll(x + 1, NULL, 10) : 0;
        }
        if (!size || in->nops != 1)
          ok = S_err(p, in->op_off, on, "'all-to-all' needs one operand and non-empty replica_groups");
        else
          shard_buf_printf(&attrs,
                           ", split_dimension = %" PRId64 " : i64, concat_dimension = %" PRId64
                           " : i64, split_count = %lld : i64",
                           d, d, size);
      }
      name = OPEQ("all-reduce")       ? "stablehlo.all_reduce"
             : OPEQ("reduce-scatter") ? "stablehlo.reduce_scatter"
             : OPEQ("all-gather")     ? "stablehlo.all_gather"
                                      : "stablehlo.all_to_all";
    } else if (OPEQ("collective-permute")) {
      hattr *g = S_need(p, in, "source_target_pairs");
      ok = g && S_need_ops(p, in, 1, 1) && S_groups(p, g, "source_target_pairs", &attrs) && S_channel(p, in, &attrs);
      name = "stablehlo.collective_permute";
    } else if (OPEQ("custom-call")) {
      hattr *t = S_need(p, in, "custom_call_target");
      char *target = t ? S_string(p, t->off, t->len) : NULL;
      ok = target != NULL;
      if (ok) {
        shard_buf_puts(&attrs, "call_target_name = ");
        shard_buf_put_escaped(&attrs, target, strlen(target));
        bool side;
        ok = S_flag(p, in, "custom_call_has_side_effect", &side);
        if (ok && side) shard_buf_puts(&attrs, ", has_side_effect = true");
        hattr *bc = S_find(in, "backend_config");
        if (bc && p->t[bc->off] == '"') {
          char *v = S_string(p, bc->off, bc->len);
          ok = ok && v;
          if (v && *v) {
            shard_buf_puts(&attrs, ", backend_config = ");
            shard_buf_put_escaped(&attrs, v, strlen(v));
          }
        } else if (bc) {
          shard_buf_printf(&attrs, ", backend_config = %.*s", (int)bc->len, p->t + bc->off);
        }
        hattr *api = S_find(in, "api_version");
        if (ok && api) {
          static const char *const versions[] = {"API_VERSION_UNSPECIFIED", "API_VERSION_ORIGINAL",
                                                 "API_VERSION_STATUS_RETURNING", "API_VERSION_STATUS_RETURNING_UNIFIED",
                                                 "API_VERSION_TYPED_FFI"};
          int vi = -1;
          for (int k = 0; k < 5; k++)
            if (S_eq(p->t + api->off, api->len, versions[k])) vi = k;
          if (vi < 0) ok = S_err(p, api->off, api->len, "unknown api_version");
          else if (vi != 1) shard_buf_printf(&attrs, ", api_version = %d : i32", vi);
        }
        hattr *cc = S_find(in, "called_computations");
        if (ok && cc) {
          compvec callees = {0};
          ok = S_comp_list(p, in, cc, &callees);
          if (ok && callees.len) {
            shard_buf_puts(&attrs, ", called_computations = [");
            for (uint32_t k = 0; k < callees.len; k++) {
              if (k) shard_buf_puts(&attrs, ", ");
              S_put_sym(&attrs, callees.items[k]->name, callees.items[k]->nlen);
            }
            shard_buf_puts(&attrs, "]");
          }
          SHARD_VEC_FREE(callees);
        }
      }
      name = "stablehlo.custom_call";
    } else if (OPEQ("call")) {
      hcomp *callee = S_comp_attr(p, in, "to_apply");
      ok = callee != NULL;
      if (ok) {
        uint32_t nres;
        r = S_results(p, in->shape, &nres);
        shard_buf_puts(p->out, "func.call ");
        S_put_sym(p->out, callee->name, callee->nlen);
        shard_buf_puts(p->out, "(");
        S_put_refs(p->out, &ops);
        shard_buf_puts(p->out, ")");
        if (!S_common_attrs(p, in, &attrs)) r = NULL;
        else {
          if (attrs.len) shard_buf_printf(p->out, " {%s}", shard_buf_str(&attrs));
          S_signature(p, &ops, in->shape);
          shard_buf_putc(p->out, '\n');
          if (!S_check_unused(p, in)) r = NULL;
        }
      }
      name = NULL;
    } else if (OPEQ("while")) {
      hcomp *cond = S_comp_attr(p, in, "condition");
      hcomp *body = cond ? S_comp_attr(p, in, "body") : NULL;
      ok = body && S_need_ops(p, in, 1, 1);
      if (ok) {
        r = S_op_head(p, in, "stablehlo.while", &ops);
        shard_buf_puts(p->out, " (");
        ok = S_region(p, cond, NULL, depth);
        shard_buf_puts(p->out, ", ");
        ok = ok && S_region(p, body, NULL, depth);
        shard_buf_puts(p->out, ")");
        if (!ok || !S_op_tail(p, in, &ops, &attrs)) r = NULL;
      }
      name = NULL;
    } else if (OPEQ("conditional")) {
      compvec branches = {0};
      hattr *bc = S_find(in, "branch_computations");
      if (bc) ok = S_comp_list(p, in, bc, &branches);
      else {
        hcomp *t = S_comp_attr(p, in, "true_computation");
        hcomp *f = t ? S_comp_attr(p, in, "false_computation") : NULL;
        ok = f != NULL;
        if (ok) {
          SHARD_VEC_PUSH(branches, t);
          SHARD_VEC_PUSH(branches, f);
        }
      }
      if (ok && in->nops != branches.len + 1)
        ok = S_err(p, in->op_off, on, "'conditional' takes a selector and one operand per branch");
      if (ok) {
        hvvec sel = {0};
        S_leaves(S_operand(p, sc, in, 0), &sel);
        r = S_op_head(p, in, bc ? "stablehlo.case" : "stablehlo.if", &sel);
        shard_buf_puts(p->out, " (");
        for (uint32_t k = 0; k < branches.len && ok; k++) {
          if (k) shard_buf_puts(p->out, ", ");
          ok = S_region(p, branches.items[k], S_operand(p, sc, in, k + 1), depth);
        }
        shard_buf_puts(p->out, ")");
        if (!ok || !S_op_tail(p, in, &sel, &attrs)) r = NULL;
        SHARD_VEC_FREE(sel);
      }
      SHARD_VEC_FREE(branches);
      name = NULL;
    } else {
      S_err(p, in->op_off, on, "HLO instruction '%.*s' is not supported by the HLO text reader", (int)on, op);
      ok = false;
    }
    if (ok && name) {
      if (in->shape->kind == 1 && !region && !OPEQ("custom-call") && !OPEQ("all-reduce") && !OPEQ("all-gather") &&
          !OPEQ("reduce-scatter")) {
        S_err(p, in->op_off, on, "'%.*s' with a tuple result is not supported by the HLO text reader", (int)on, op);
      } else {
        r = S_op_head(p, in, name, &ops);
        if (region) {
          shard_buf_puts(p->out, " (");
          ok = S_region(p, region, NULL, depth);
          shard_buf_puts(p->out, ")");
        }
        if (!ok || !S_op_tail(p, in, &ops, &attrs)) r = NULL;
      }
    }
  }
#undef OPEQ
  SHARD_VEC_FREE(ops);
  shard_buf_free(&attrs);
  return p->bad ? NULL : r;
}

static hv *S_body(hp *p, hcomp *c, hv **params, uint32_t nparams, uint32_t depth) {
  scope sc = {{0}, params, nparams};
  hv *root = NULL;
  for (uint32_t i = 0; i < c->n && !p->bad; i++) {
    hinst *in = &c->insts[i];
    if (p->out->len > SHARD_HLO_MAX_TEXT) {
      S_err(p, in->off, in->nlen + 1,
            "the StableHLO of this dump passes %u MiB (computations inlined as regions too often)",
            (unsigned)(SHARD_HLO_MAX_TEXT >> 20));
      break;
    }
    SHARD_VEC_PUSH(p->map, p->out->len);
    SHARD_VEC_PUSH(p->map, in->off);
    hv *v = S_inst_emit(p, &sc, c, in, depth);
    if (!v) break;
    if (shard_strmap_get(&sc.vals, in->name, in->nlen)) {
      S_err(p, in->off, in->nlen, "instruction '%.*s' is defined twice", (int)in->nlen, in->name);
      break;
    }
    shard_strmap_put(&sc.vals, in->name, in->nlen, v);
    if ((int32_t)i == c->root) root = v;
  }
  shard_strmap_release(&sc.vals);
  return p->bad ? NULL : root;
}

/* A tuple sharding {{a}, {b}} split into its elements when it has n. */
static bool S_split_sharding(hp *p, uint32_t off, uint32_t len, uint32_t n, uint32_t *offs, uint32_t *lens) {
  const char *s = p->t + off, *e = s + len;
  if (len < 4 || s[0] != '{' || e[-1] != '}') return false;
  uint32_t i = off + 1, k = 0;
  while (i < off + len - 1) {
    while (i < off + len - 1 && (p->t[i] == ' ' || p->t[i] == ',')) i++;
    if (p->t[i] != '{') return false;
    uint32_t end = S_balanced(p, i);
    if (!end || end > off + len - 1 || k == n) return false;
    offs[k] = i;
    lens[k] = end - i;
    k++;
    i = end;
  }
  return k == n;
}

static void S_put_sharding_attr(hp *p, shard_buf *b, uint32_t off, uint32_t len) {
  shard_buf_puts(b, SHARD_XLA_MHLO_SHARDING " = ");
  shard_buf_put_escaped(b, p->t + off, len);
}

static bool S_func(hp *p, hcomp *c) {
  SHARD_VEC_PUSH(p->map, p->out->len);
  SHARD_VEC_PUSH(p->map, c->off);
  shard_buf_puts(p->out, c->entry ? "func.func @main(" : "func.func private ");
  if (!c->entry) {
    S_put_sym(p->out, c->name, c->nlen);
    shard_buf_puts(p->out, "(");
  }
  if (!S_params(p, c)) return false;
  uint32_t np = c->np;
  hv **params = SHARD_NEW_ARRAY(p->a, hv *, np ? np : 1);
  bool first = true;
  for (uint32_t k = 0; k < np; k++) {
    hinst *pin = c->params[k];
    uint32_t id = p->next_id++, next = 0;
    params[k] = S_value_of(p, pin->shape, shard_arena_printf(p->a, "%%v%u_", id), true, &next);
    hvvec leaves = {0};
    S_leaves(params[k], &leaves);
    hattr *sh = S_find(pin, "sharding"), *fa = S_find(pin, "frontend_attributes");
    uint32_t soffs[SHARD_HLO_MAX_RANK], slens[SHARD_HLO_MAX_RANK];
    bool split = sh && leaves.len > 1 && leaves.len <= SHARD_HLO_MAX_RANK &&
                 S_split_sharding(p, sh->off, sh->len, leaves.len, soffs, slens);
    for (uint32_t j = 0; j < leaves.len; j++) {
      hv *leaf = (hv *)leaves.items[j];
      leaf->ref = shard_arena_printf(p->a, "%%v%u_%u", id, j);
      shard_buf_printf(p->out, "%s%s: %s", first ? "" : ", ", leaf->ref, leaf->type);
      first = false;
      shard_buf a;
      shard_buf_init(&a);
      if (sh && (leaves.len == 1 || split))
        S_put_sharding_attr(p, &a, split ? soffs[j] : sh->off, split ? slens[j] : sh->len);
      if (fa && leaves.len == 1) {
        S_sep(&a);
        shard_buf_puts(&a, SHARD_XLA_FRONTEND_ATTRS " = ");
        if (!S_frontend(p, fa, &a)) {
          shard_buf_free(&a);
          SHARD_VEC_FREE(leaves);
          return false;
        }
      }
      if (a.len) shard_buf_printf(p->out, " {%s}", shard_buf_str(&a));
      shard_buf_free(&a);
    }
    SHARD_VEC_FREE(leaves);
  }
  shard_buf_puts(p->out, ")");
  /* results */
  hinst *root = &c->insts[c->root];
  strvec rtypes = {0};
  S_leaf_types(p, root->shape, &rtypes);
  hattr *rsh = NULL;
  for (uint32_t i = 0; i < root->nattrs; i++)
    if (S_eq(root->attrs[i].key, root->attrs[i].klen, "sharding")) rsh = &root->attrs[i];
  uint32_t soffs[SHARD_HLO_MAX_RANK], slens[SHARD_HLO_MAX_RANK];
  bool split = rsh && rtypes.len > 1 && rtypes.len <= SHARD_HLO_MAX_RANK &&
               S_split_sharding(p, rsh->off, rsh->len, rtypes.len, soffs, slens);
  shard_buf_puts(p->out, " -> (");
  for (uint32_t j = 0; j < rtypes.len; j++) {
    shard_buf_printf(p->out, "%s%s", j ? ", " : "", rtypes.items[j]);
    if (c->entry && rsh && (rtypes.len == 1 || split)) {
      shard_buf_puts(p->out, " {");
      S_put_sharding_attr(p, p->out, split ? soffs[j] : rsh->off, split ? slens[j] : rsh->len);
      shard_buf_puts(p->out, "}");
    }
  }
  shard_buf_puts(p->out, ") {\n");
  SHARD_VEC_FREE(rtypes);
  hv *rv = S_body(p, c, params, np, 0);
  if (!rv) return false;
  hvvec leaves = {0};
  S_leaves(rv, &leaves);
  shard_buf_puts(p->out, "\"func.return\"(");
  S_put_refs(p->out, &leaves);
  shard_buf_puts(p->out, ") : ");
  S_put_types(p->out, &leaves, true);
  shard_buf_puts(p->out, " -> ()\n}\n");
  SHARD_VEC_FREE(leaves);
  return true;
}

static bool S_emit(hp *p) {
  /* functions: the entry and every computation a call or custom call names */
  for (uint32_t i = 0; i < p->comps.len; i++) {
    hcomp *c = p->comps.items[i];
    c->as_func |= c->entry;
    for (uint32_t k = 0; k < c->n; k++) {
      hinst *in = &c->insts[k];
      bool call = S_eq(S_opcode(in, p), in->op_len, "call"), cc = S_eq(S_opcode(in, p), in->op_len, "custom-call");
      if (!call && !cc) continue;
      for (uint32_t j = 0; j < in->nattrs; j++) {
        hattr *a = &in->attrs[j];
        if (call && S_eq(a->key, a->klen, "to_apply")) {
          uint32_t off = a->off + (p->t[a->off] == '%'), len = a->len - (p->t[a->off] == '%');
          hcomp *callee = shard_strmap_get(&p->by_name, p->t + off, len);
          if (callee) callee->as_func = true;
        } else if (cc && S_eq(a->key, a->klen, "called_computations")) {
          compvec callees = {0};
          bool ok = S_comp_list(p, in, a, &callees);
          for (uint32_t m = 0; ok && m < callees.len; m++) callees.items[m]->as_func = true;
          SHARD_VEC_FREE(callees);
          if (!ok) return false;
        }
      }
    }
  }
  shard_buf_puts(p->out, "module ");
  S_put_sym(p->out, p->mod_name, p->mod_nlen);
  shard_buf attrs;
  shard_buf_init(&attrs);
  bool ok = true;
  for (uint32_t i = 0; i < p->mod_nattrs && ok; i++) {
    hattr *a = &p->mod_attrs[i];
    if (S_eq(a->key, a->klen, "frontend_attributes")) {
      S_sep(&attrs);
      shard_buf_puts(&attrs, SHARD_XLA_FRONTEND_ATTRS " = ");
      ok = S_frontend(p, a, &attrs);
    } else if (S_eq(a->key, a->klen, "num_partitions") || S_eq(a->key, a->klen, "replica_count")) {
      i64vec v = {0};
      ok = S_ints(p, a, &v) && v.len == 1;
      if (ok) {
        S_sep(&attrs);
        shard_buf_printf(&attrs, "%s = %" PRId64 " : i32",
                         S_eq(a->key, a->klen, "num_partitions") ? "mhlo.num_partitions" : "mhlo.num_replicas",
                         v.items[0]);
      }
      SHARD_VEC_FREE(v);
    }
  }
  if (ok && attrs.len) shard_buf_printf(p->out, " attributes {%s}", shard_buf_str(&attrs));
  shard_buf_free(&attrs);
  shard_buf_puts(p->out, " {\n");
  for (uint32_t i = 0; i < p->comps.len && ok; i++)
    if (p->comps.items[i]->as_func) ok = S_func(p, p->comps.items[i]);
  shard_buf_puts(p->out, "}\n");
  return ok && !p->bad;
}

bool shard_hlo_text_detect(const char *text, size_t len) {
  size_t i = 0;
  while (i < len && (text[i] == ' ' || text[i] == '\n' || text[i] == '\t' || text[i] == '\r')) i++;
  return len - i >= 9 && memcmp(text + i, "HloModule", 9) == 0;
}

bool shard_hlo_text_to_mlir(const shard_source *src, shard_buf *out, uint32_t **map, uint32_t *map_len,
                            shard_diag_engine *de) {
  hp p = {0};
  p.src = src;
  p.t = src->text;
  p.n = (uint32_t)src->len;
  p.de = de;
  p.a = shard_arena_new();
  p.out = out;
  bool ok = src->len < UINT32_MAX ? S_module(&p) && S_emit(&p) : S_err(&p, 0, 0, "the HLO text is too large");
  if (ok && map) {
    *map = p.map.items;
    *map_len = p.map.len;
  } else {
    SHARD_VEC_FREE(p.map);
  }
  SHARD_VEC_FREE(p.comps);
  shard_strmap_release(&p.by_name);
  shard_arena_free(p.a);
  return ok;
}

/* ---- the module ---------------------------------------------------------- */

typedef struct span_map {
  const shard_source *hlo, *gen;
  const uint32_t *map; /* (gen offset, hlo offset) pairs */
  uint32_t len;
  shard_diag_engine *de;
} span_map;

static shard_span S_map_span(const span_map *sm, shard_span s) {
  if (s.src != sm->gen || !sm->len) return s;
  uint32_t lo = 0, hi = sm->len / 2; /* the last pair whose gen offset <= s.off */
  while (hi - lo > 1) {
    uint32_t mid = (lo + hi) / 2;
    if (sm->map[2 * mid] <= s.off) lo = mid;
    else hi = mid;
  }
  uint32_t off = sm->map[2 * lo + 1], end = off;
  while (end < sm->hlo->len && sm->hlo->text[end] != '\n' && sm->hlo->text[end] != ' ' && sm->hlo->text[end] != '=')
    end++;
  shard_span out = {sm->hlo, off, end > off ? end - off : 1};
  return out;
}

static void S_relay(void *ctx, const shard_diag *d) {
  span_map *sm = ctx;
  shard_diag_emit(sm->de, d->severity, S_map_span(sm, d->span), "%s (in the StableHLO the HLO instruction became)",
                  d->message);
}

static bool S_remap_op(shard_op *op, void *ctx) {
  span_map *sm = ctx;
  op->span = S_map_span(sm, op->span);
  op->flags |= SHARD_OP_RESULT_SPANS;
  for (uint32_t r = 0; r < op->num_regions; r++)
    for (shard_block *b = op->regions[r].first; b; b = b->next)
      for (uint32_t i = 0; i < b->num_args; i++) b->arg_info[i].span = S_map_span(sm, b->arg_info[i].span);
  return true;
}

shard_module *shard_hlo_text_read(const shard_source *src, const shard_parse_options *popts, shard_source *gen,
                                  shard_diag_engine *de) {
  memset(gen, 0, sizeof *gen);
  shard_buf out;
  shard_buf_init(&out);
  uint32_t *map = NULL, map_len = 0;
  if (!shard_hlo_text_to_mlir(src, &out, &map, &map_len, de)) {
    shard_buf_free(&out);
    free(map);
    return NULL;
  }
  gen->len = out.len;
  gen->text = shard_buf_take(&out);
  /* a diagnostic on an attribute stays in this text: say which text it is */
  size_t nn = strlen(src->name ? src->name : "<hlo>") + sizeof " (as StableHLO)";
  char *name = shard_xmalloc(nn);
  snprintf(name, nn, "%s (as StableHLO)", src->name ? src->name : "<hlo>");
  gen->name = name;
  span_map sm = {src, gen, map, map_len, de};
  shard_diag_engine relay;
  shard_diag_init(&relay, S_relay, &sm);
  relay.warnings_as_errors = de->warnings_as_errors;
  shard_module *m = shard_parse_module(gen, popts, &relay);
  if (m && relay.errors) {
    shard_module_free(m);
    m = NULL;
  }
  if (m) shard_walk(m->top, S_remap_op, &sm);
  free(map);
  return m;
}
