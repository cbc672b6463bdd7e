/* Parsers for the sdy attributes: meshes, tensor shardings (alone, per value
 * or as stripped op operands), op sharding rules, propagation edges and the
 * op parameters of the collectives (axis lists, per-dim axis lists,
 * all-to-all params, manual axes).
 *
 * They are written only against the token API of parse.h and mirror Shardy's
 * hand-written parsers (parsers.cc) and the parsers MLIR generates from the
 * assembly formats in attrs.td, including their error messages and the chain
 * of "failed to parse <Attr> parameter '<name>' ..." follow-ups each level
 * adds, because Shardy's lit tests expect every message of that chain.
 *
 * Parsers build plain model structs in the parser's arena. They check syntax
 * only: axis sizes, unknown axes, bad sub-axis sizes, duplicates and unsorted
 * lists are the verifier's job. Meshes are canonicalised as Shardy's MeshAttr
 * builder does (iota device ids dropped).
 *
 * The parser core reports only the first error of a buffer. The follow-ups
 * Shardy adds on the way out are emitted here directly on the diagnostic
 * engine (see follow_up), and only after an error has been reported. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "support/buf.h"
#include "ir/parse.h"
#include "ir/parse_internal.h"

/* ---- small token helpers ------------------------------------------------ */

static bool peek_is(shard_parser *p, const char *text) {
  shard_tok t = shard_parser_peek(p);
  return t.kind != SHARD_TOK_STRING && shard_tok_is(&t, text);
}

static bool peek_ident_is(shard_parser *p, const char *text) {
  shard_tok t = shard_parser_peek(p);
  return t.kind == SHARD_TOK_IDENT && shard_tok_is(&t, text);
}

/* Consumes the closing punctuation `text` and records where it ends, so the
 * node's span covers exactly its text. */
static bool expect_close(shard_parser *p, const char *text, uint32_t *end) {
  shard_tok t = shard_parser_peek(p);
  if (!peek_is(p, text)) return shard_parser_expect(p, text);
  shard_parser_next(p);
  *end = t.off + t.len;
  return true;
}

static shard_span span_from(shard_parser *p, uint32_t start, uint32_t end) {
  shard_span s = {shard_parser_source(p), start, end > start ? end - start : 0};
  return s;
}

static shard_attr *new_attr(shard_parser *p, shard_attr_kind kind, shard_span span) {
  shard_attr *a = SHARD_NEW(shard_parser_arena(p), shard_attr);
  a->kind = kind;
  a->span = span;
  return a;
}

/* A follow-up error of the chain MLIR emits while unwinding a failed parse
 * ("failed to parse Sdy_TensorSharding parameter ..."). It goes straight to
 * the diagnostic engine because the parser core drops every error after the
 * first; without a first error it is the first, reported normally. Always
 * returns false. */
static bool follow_up(shard_parser *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static bool follow_up(shard_parser *p, const char *fmt, ...) {
  shard_buf msg;
  va_list ap;
  shard_buf_init(&msg);
  va_start(ap, fmt);
  shard_buf_vprintf(&msg, fmt, ap);
  va_end(ap);
  shard_diag_engine *de = shard_parser_diag(p);
  if (de->errors == 0) shard_parser_error(p, "%s", shard_buf_str(&msg));
  else shard_error(de, shard_parser_here(p), "%s", shard_buf_str(&msg));
  shard_buf_free(&msg);
  return false;
}

/* Generated-parser wording for a parameter that failed to parse. */
#define PARAM_FAIL(attr, param, type) "failed to parse " attr " parameter '" param "' which is to be a `" type "`"

/* ---- axis refs ------------------------------------------------------------ */

// sub-axis-info ::= '(' integer ')' integer
static bool parse_sub_axis(shard_parser *p, shard_axis_ref *out) {
  if (!shard_parser_expect(p, "(")) return false;
  if (!shard_parser_int(p, &out->pre_size)) return follow_up(p, PARAM_FAIL("Sdy_SubAxisInfo", "pre_size", "int64_t"));
  if (!shard_parser_expect(p, ")")) return false;
  shard_span size_span = shard_parser_here(p);
  if (!shard_parser_int(p, &out->size)) return follow_up(p, PARAM_FAIL("Sdy_SubAxisInfo", "size", "int64_t"));
  /* Everything downstream multiplies pre-size by size (the "next pre-size");
   * this is the boundary where that product must be known to fit. Sizes < 1
   * are left to the verifier, which reports them in Shardy's words. */
  int64_t next;
  if (out->pre_size > 0 && out->size > 0 && __builtin_mul_overflow(out->pre_size, out->size, &next))
    return shard_parser_error_at(p, size_span, "sub-axis pre-size times size does not fit in 64 bits");
  return true;
}

// axis-ref ::= string-literal (':' sub-axis-info)?
static bool parse_axis_ref(shard_parser *p, shard_axis_ref *out) {
  memset(out, 0, sizeof *out);
  if (shard_parser_peek(p).kind != SHARD_TOK_STRING) {
    shard_parser_error(p, "expected string");
    return follow_up(p, PARAM_FAIL("Sdy_AxisRef", "name", "::llvm::StringRef"));
  }
  uint32_t len;
  if (!shard_parser_string(p, &out->name, &len)) return false;
  if (!shard_parser_accept(p, ":")) return true;
  out->is_sub = true;
  if (!parse_sub_axis(p, out)) return follow_up(p, PARAM_FAIL("Sdy_AxisRef", "sub_axis_info", "SubAxisInfoAttr"));
  return true;
}

/* axis-list ::= '{' (axis-ref (',' axis-ref)*)? '}'
 * `elem_fail` is the follow-up error the enclosing generated parser adds when
 * an element fails (NULL for none). Shardy's list parser needs at least one
 * element; we also take `{}`, which is what every printer emits for "none". */
static bool parse_axis_list(shard_parser *p, shard_axis_list *out, const char *elem_fail) {
  SHARD_VEC(shard_axis_ref) axes = {0};
  if (!shard_parser_expect(p, "{")) return false;
  if (!peek_is(p, "}")) {
    do {
      shard_axis_ref r;
      if (!parse_axis_ref(p, &r)) {
        SHARD_VEC_FREE(axes);
        return elem_fail ? follow_up(p, "%s", elem_fail) : false;
      }
      SHARD_VEC_PUSH(axes, r);
    } while (shard_parser_accept(p, ","));
  }
  if (!shard_parser_expect(p, "}")) {
    SHARD_VEC_FREE(axes);
    return false;
  }
  out->num = axes.len;
  SHARD_VEC_FREEZE(shard_parser_arena(p), axes, out->axes);
  return true;
}

bool shard_parse_sdy_axis_list(shard_parser *p, shard_axis_list *out) {
  return parse_axis_list(p, out, PARAM_FAIL("Sdy_AxisRefList", "value", "::llvm::ArrayRef<AxisRefAttr>"));
}

// axes-per-dim ::= '[' (axis-list (',' axis-list)*)? ']'
bool shard_parse_sdy_axis_lists(shard_parser *p, shard_attr **out) {
  SHARD_VEC(shard_axis_list) dims = {0};
  shard_span start = shard_parser_here(p);
  uint32_t end = 0;
  if (!shard_parser_expect(p, "[")) return false;
  if (!peek_is(p, "]")) {
    do {
      shard_axis_list l;
      if (!shard_parse_sdy_axis_list(p, &l)) {
        SHARD_VEC_FREE(dims);
        return follow_up(p, PARAM_FAIL("Sdy_ListOfAxisRefLists", "value", "::llvm::ArrayRef<AxisRefListAttr>"));
      }
      SHARD_VEC_PUSH(dims, l);
    } while (shard_parser_accept(p, ","));
  }
  if (!expect_close(p, "]", &end)) {
    SHARD_VEC_FREE(dims);
    return false;
  }
  shard_attr *a = new_attr(p, SHARD_ATTR_SDY_AXIS_LISTS, span_from(p, start.off, end));
  a->u.axis_lists.num = dims.len;
  SHARD_VEC_FREEZE(shard_parser_arena(p), dims, a->u.axis_lists.dims);
  *out = a;
  return true;
}

// all-to-all-param ::= axis-list ':' integer '->' integer
static bool parse_all_to_all_param(shard_parser *p, shard_all_to_all_param *out) {
  if (!parse_axis_list(p, &out->axes, PARAM_FAIL("Sdy_AllToAllParam", "axes", "::llvm::ArrayRef<AxisRefAttr>")))
    return false;
  if (!shard_parser_expect(p, ":")) return false;
  if (!shard_parser_int(p, &out->src_dim)) return follow_up(p, PARAM_FAIL("Sdy_AllToAllParam", "src_dim", "int64_t"));
  if (!shard_parser_expect(p, "->")) return false;
  if (!shard_parser_int(p, &out->tgt_dim)) return follow_up(p, PARAM_FAIL("Sdy_AllToAllParam", "tgt_dim", "int64_t"));
  return true;
}

/* all-to-all-params ::= '[' all-to-all-param (',' all-to-all-param)* ']'
 *                     | all-to-all-param      (single param, older syntax) */
bool shard_parse_sdy_all_to_all_params(shard_parser *p, shard_attr **out) {
  SHARD_VEC(shard_all_to_all_param) params = {0};
  shard_span start = shard_parser_here(p);
  uint32_t end = 0;
  bool bracketed = shard_parser_accept(p, "[");
  if (!bracketed || !peek_is(p, "]")) {
    do {
      shard_all_to_all_param q;
      if (!parse_all_to_all_param(p, &q)) {
        SHARD_VEC_FREE(params);
        return follow_up(p, PARAM_FAIL("Sdy_AllToAllParamList", "value", "::llvm::ArrayRef<AllToAllParamAttr>"));
      }
      SHARD_VEC_PUSH(params, q);
    } while (bracketed && shard_parser_accept(p, ","));
  }
  if (bracketed) {
    if (!expect_close(p, "]", &end)) {
      SHARD_VEC_FREE(params);
      return false;
    }
  } else {
    end = shard_parser_here(p).off; /* approximate: start of the next token */
  }
  shard_attr *a = new_attr(p, SHARD_ATTR_SDY_ALL_TO_ALL, span_from(p, start.off, end));
  a->u.all_to_all.num = params.len;
  SHARD_VEC_FREEZE(shard_parser_arena(p), params, a->u.all_to_all.params);
  *out = a;
  return true;
}

// manual-axes ::= '{' (string-literal (',' string-literal)*)? '}'
bool shard_parse_sdy_manual_axes(shard_parser *p, shard_attr **out) {
  SHARD_VEC(const char *) names = {0};
  shard_span start = shard_parser_here(p);
  uint32_t end = 0;
  if (!shard_parser_expect(p, "{")) return false;
  if (!peek_is(p, "}")) {
    do {
      const char *name;
      uint32_t len;
      if (shard_parser_peek(p).kind != SHARD_TOK_STRING) {
        SHARD_VEC_FREE(names);
        shard_parser_error(p, "expected string");
        return follow_up(p, PARAM_FAIL("Sdy_ManualAxes", "value", "::llvm::ArrayRef<StringAttr>"));
      }
      if (!shard_parser_string(p, &name, &len)) {
        SHARD_VEC_FREE(names);
        return false;
      }
      SHARD_VEC_PUSH(names, name);
    } while (shard_parser_accept(p, ","));
  }
  if (!expect_close(p, "}", &end)) {
    SHARD_VEC_FREE(names);
    return false;
  }
  shard_attr *a = new_attr(p, SHARD_ATTR_SDY_MANUAL_AXES, span_from(p, start.off, end));
  a->u.manual_axes.num = names.len;
  SHARD_VEC_FREEZE(shard_parser_arena(p), names, a->u.manual_axes.names);
  *out = a;
  return true;
}

/* ---- meshes ----------------------------------------------------------------- */

#define MESH_AXES_FAIL PARAM_FAIL("Sdy_Mesh", "axes", "::llvm::ArrayRef<MeshAxisAttr>")

// mesh-axis ::= string-literal '=' integer
static bool parse_mesh_axis(shard_parser *p, shard_mesh_axis *out) {
  if (shard_parser_peek(p).kind != SHARD_TOK_STRING) {
    shard_parser_error(p, "expected string");
    return follow_up(p, PARAM_FAIL("Sdy_MeshAxis", "name", "::llvm::StringRef"));
  }
  uint32_t len;
  if (!shard_parser_string(p, &out->name, &len)) return false;
  if (!shard_parser_expect(p, "=")) return false;
  if (!shard_parser_int(p, &out->size)) return follow_up(p, PARAM_FAIL("Sdy_MeshAxis", "size", "int64_t"));
  return true;
}

// mesh-axes ::= mesh-axis (',' mesh-axis)*      (appends to a SHARD_VEC(shard_mesh_axis))
static bool parse_mesh_axes(shard_parser *p, void *vec) {
  SHARD_VEC(shard_mesh_axis) *axes = vec;
  int64_t devices = 1;
  do {
    shard_mesh_axis ax;
    shard_span at = shard_parser_here(p);
    if (!parse_mesh_axis(p, &ax)) return follow_up(p, MESH_AXES_FAIL);
    /* Device counts and every axis product below them are int64; a mesh
     * whose device count does not fit is rejected here, where the numbers
     * come in. Sizes < 1 are left to the verifier's own message. */
    if (ax.size > 0 && devices > 0 && __builtin_mul_overflow(devices, ax.size, &devices))
      return shard_parser_error_at(p, at,
                                   "mesh has too many devices: the product of its axis sizes does "
                                   "not fit in 64 bits");
    SHARD_VEC_PUSH(*axes, ax);
  } while (shard_parser_accept(p, ","));
  return true;
}

/* mesh-body ::= '<' ( '[' (mesh-axis (',' mesh-axis)*)? ']'
 *                     (','? 'device_ids' '=' '[' (integer (',' integer)*)? ']')?
 *                   | mesh-axis (',' mesh-axis)*          -- before 2024-08
 *                   | 'device_id' '=' integer              -- before 2024-08
 *                   )? '>'
 * The current printer always puts the comma before device_ids; the interim
 * format of 2024-08/09 had none, so it is optional here. */
bool shard_parse_sdy_mesh_body(shard_parser *p, shard_mesh **out) {
  SHARD_VEC(shard_mesh_axis) axes = {0};
  SHARD_VEC(int64_t) ids = {0};
  shard_span start = shard_parser_here(p);
  uint32_t end = 0;
  if (!shard_parser_expect(p, "<")) return false;

  if (shard_parser_accept(p, "[")) {
    if (!peek_is(p, "]") && !parse_mesh_axes(p, &axes)) goto fail;
    if (!shard_parser_expect(p, "]")) goto fail;
    bool comma = shard_parser_accept(p, ",");
    if (comma || peek_ident_is(p, "device_ids")) {
      if (!shard_parser_expect_keyword(p, "device_ids") || !shard_parser_expect(p, "=") || !shard_parser_expect(p, "["))
        goto fail;
      if (!peek_is(p, "]")) {
        do {
          int64_t id;
          if (!shard_parser_int(p, &id)) {
            follow_up(p, PARAM_FAIL("Sdy_Mesh", "device_ids", "::llvm::ArrayRef<int64_t>"));
            goto fail;
          }
          SHARD_VEC_PUSH(ids, id);
        } while (shard_parser_accept(p, ","));
      }
      if (!shard_parser_expect(p, "]")) goto fail;
    }
  } else if (peek_ident_is(p, "device_id")) {
    int64_t id;
    shard_parser_next(p);
    if (!shard_parser_expect(p, "=") || !shard_parser_int(p, &id)) goto fail;
    SHARD_VEC_PUSH(ids, id);
  } else if (shard_parser_peek(p).kind == SHARD_TOK_STRING) {
    if (!parse_mesh_axes(p, &axes)) goto fail;
  }
  if (!expect_close(p, ">", &end)) goto fail;

  shard_arena *arena = shard_parser_arena(p);
  shard_mesh *m = SHARD_NEW(arena, shard_mesh);
  m->num_axes = axes.len;
  SHARD_VEC_FREEZE(arena, axes, m->axes);
  m->num_device_ids = ids.len;
  SHARD_VEC_FREEZE(arena, ids, m->device_ids);
  m->span = span_from(p, start.off, end);
  shard_mesh_canonicalize(m);
  *out = m;
  return true;

fail:
  SHARD_VEC_FREE(axes);
  SHARD_VEC_FREE(ids);
  return false;
}

/* ---- tensor shardings -------------------------------------------------------- */

/* priority ::= bare-id of the form 'p' [0-9]+ (no leading zeros), written
 * right after the closing brace of a dim sharding: {"a"}p1 */
static bool parse_priority(shard_parser *p, int64_t *out) {
  shard_tok t = shard_parser_next(p);
  shard_span at = shard_parser_span(p, &t);
  bool digits = t.len >= 2 && t.text[0] == 'p';
  for (uint32_t i = 1; digits && i < t.len; i++) digits = t.text[i] >= '0' && t.text[i] <= '9';
  if (!digits)
    return shard_parser_error_at(p, at, "expecting priority in format 'p<number>', got: %.*s", (int)t.len, t.text);
  if (t.text[1] == '0' && t.len > 2)
    return shard_parser_error_at(p, at, "priorities with leading zeros are not allowed, got: %.*s", (int)t.len, t.text);
  int64_t v = 0;
  for (uint32_t i = 1; i < t.len; i++) {
    int d = t.text[i] - '0';
    if (v > (INT64_MAX - d) / 10)
      return shard_parser_error_at(p, at, "expecting integer priority, got: %.*s", (int)t.len, t.text);
    v = v * 10 + d;
  }
  *out = v;
  return true;
}

/* dim-sharding ::= '{' (axis-ref (',' axis-ref)* (',' '?')? | '?')? '}' priority?
 * Same loop as DimensionShardingAttr::parse: a '?' must be last. */
static bool parse_dim_sharding(shard_parser *p, shard_dim_sharding *out) {
  SHARD_SVEC(shard_axis_ref, 4) axes;
  SHARD_SVEC_INIT(axes);
  memset(out, 0, sizeof *out);
  out->priority = SHARD_NO_PRIORITY;
  if (!shard_parser_expect(p, "{")) return false;
  while (!shard_parser_accept(p, "}")) {
    if (axes.len && !shard_parser_expect(p, ",")) goto fail;
    if (shard_parser_accept(p, "?")) {
      out->is_open = true;
      if (!shard_parser_expect(p, "}")) goto fail;
      break;
    }
    shard_axis_ref r;
    if (!parse_axis_ref(p, &r)) goto fail;
    SHARD_SVEC_PUSH(axes, r);
  }
  if (shard_parser_peek(p).kind == SHARD_TOK_IDENT && !parse_priority(p, &out->priority)) goto fail;
  out->num_axes = axes.len;
  SHARD_SVEC_FREEZE(shard_parser_arena(p), axes, out->axes);
  return true;

fail:
  SHARD_SVEC_FREE(axes);
  return false;
}

// mesh-or-ref ::= '@' symbol-name | 'mesh' mesh-body
static bool parse_mesh_or_ref(shard_parser *p, shard_tensor_sharding *s) {
  if (peek_ident_is(p, "mesh")) {
    shard_parser_next(p);
    if (!shard_parse_sdy_mesh_body(p, &s->inline_mesh)) return follow_up(p, "failed to parse MeshAttr");
    return true;
  }
  shard_tok t = shard_parser_peek(p);
  if (t.kind != SHARD_TOK_AT)
    return shard_parser_error(p, "expecting MeshAttr or FlatSymbolRefAttr, got: %.*s", (int)t.len, t.text);
  return shard_parser_symbol(p, &s->mesh_name);
}

/* The clauses after the dim shardings, as parseReplicatedAndUnreducedAxes:
 *   (',' ( 'replicated' '=' axis-list
 *        | 'unreduced' ('=' ('sum' | 'max' | 'min')?)? axis-list ))*
 * each clause at most once, in either order. */
static bool parse_replicated_unreduced(shard_parser *p, shard_tensor_sharding *s) {
  static const char list_fail[] = "failed to parse axis list which is expected to be an `ArrayRef<AxisRefAttr>`";
  bool seen_replicated = false, seen_unreduced = false;
  s->reduction = SHARD_RED_SUM;
  while (shard_parser_accept(p, ",")) {
    shard_axis_list l;
    if (!seen_replicated && peek_ident_is(p, "replicated")) {
      shard_parser_next(p);
      seen_replicated = true;
      if (!shard_parser_expect(p, "=") || !parse_axis_list(p, &l, list_fail))
        return follow_up(p, "failed to parse Sdy_TensorSharding parameter 'replicated_axes'");
      s->replicated = l.axes;
      s->num_replicated = l.num;
    } else if (!seen_unreduced && peek_ident_is(p, "unreduced")) {
      shard_parser_next(p);
      seen_unreduced = true;
      if (shard_parser_accept(p, "=")) {
        if (peek_ident_is(p, "max")) {
          s->reduction = SHARD_RED_MAX;
          shard_parser_next(p);
        } else if (peek_ident_is(p, "min")) {
          s->reduction = SHARD_RED_MIN;
          shard_parser_next(p);
        } else if (peek_ident_is(p, "sum")) {
          shard_parser_next(p);
        }
      }
      if (!parse_axis_list(p, &l, list_fail))
        return follow_up(p, "failed to parse Sdy_TensorSharding parameter 'unreduced_axes'");
      s->unreduced = l.axes;
      s->num_unreduced = l.num;
    } else {
      return shard_parser_error(p, "failed to parse Sdy_TensorSharding, expected valid named axis list after comma");
    }
  }
  return true;
}

/* sharding-body ::= '<' mesh-or-ref ',' '[' (dim-sharding (',' dim-sharding)*)? ']'
 *                   replicated-unreduced '>' */
/* The usual sharding spelled plainly, `<@mesh, [{"x"}, {}, {"y", "z"}]>`
 * (a mesh name, closed dimensions of full axes without escapes, no
 * priorities, replicated or unreduced axes), read from the text at once:
 * the same sharding the token-by-token reader builds. False, consuming
 * nothing, for anything else. */
static bool S_plain_sharding_body(shard_parser *p, shard_tensor_sharding **out) {
  shard_tok t = shard_parser_peek(p);
  if (t.kind != SHARD_TOK_PUNCT || t.text[0] != '<') return false;
  const char *src = shard_parser_source(p)->text;
  uint32_t n = (uint32_t)shard_parser_source(p)->len, i = t.off + 1;
  if (i >= n || src[i] != '@') return false;
  uint32_t name = ++i;
  i = shard_lex_scan(src, i, n, SHARD_LEX_ALPHA | SHARD_LEX_DIGIT | SHARD_LEX_BARE | SHARD_LEX_DASH);
  uint32_t name_end = i;
  if (name_end == name || n - i < 3 || src[i] != ',' || src[i + 1] != ' ' || src[i + 2] != '[') return false;
  i += 3;
  /* first pass: the shape (dims, axes per dim), nothing allocated */
  enum { MAX_DIMS = 16, MAX_AXES = 32 };
  uint32_t dim_axes[MAX_DIMS], axis_at[MAX_AXES], axis_len[MAX_AXES], rank = 0, naxes = 0;
  if (i < n && src[i] != ']') {
    for (;;) {
      if (i >= n || src[i] != '{' || rank == MAX_DIMS) return false;
      i++;
      dim_axes[rank] = 0;
      if (i < n && src[i] != '}') {
        for (;;) {
          if (i >= n || src[i] != '"' || naxes == MAX_AXES) return false;
          uint32_t a = ++i;
          while (i < n && src[i] != '"' && src[i] != '\\' && src[i] != '\n') i++;
          if (i >= n || src[i] != '"') return false;
          axis_at[naxes] = a;
          axis_len[naxes++] = i - a;
          dim_axes[rank]++;
          i++;
          if (i < n && src[i] == '}') break;
          if (n - i < 2 || src[i] != ',' || src[i + 1] != ' ') return false;
          i += 2;
        }
      }
      if (i >= n || src[i] != '}') return false;
      i++;
      rank++;
      if (i < n && src[i] == ']') break;
      if (n - i < 2 || src[i] != ',' || src[i + 1] != ' ') return false;
      i += 2;
    }
  }
  if (n - i < 2 || src[i] != ']' || src[i + 1] != '>') return false;
  uint32_t end = i + 2;
  /* second pass: build it */
  shard_arena *arena = shard_parser_arena(p);
  shard_tensor_sharding *s = SHARD_NEW(arena, shard_tensor_sharding);
  s->mesh_name = shard_parser_intern(p, src + name, name_end - name);
  s->reduction = SHARD_RED_SUM;
  s->rank = rank;
  s->dims = rank ? SHARD_NEW_ARRAY(arena, shard_dim_sharding, rank) : NULL;
  for (uint32_t d = 0, k = 0; d < rank; d++) {
    shard_dim_sharding *dim = &s->dims[d];
    dim->priority = SHARD_NO_PRIORITY;
    dim->num_axes = dim_axes[d];
    dim->axes = dim_axes[d] ? SHARD_NEW_ARRAY(arena, shard_axis_ref, dim_axes[d]) : NULL;
    for (uint32_t a = 0; a < dim_axes[d]; a++, k++)
      dim->axes[a].name = shard_parser_intern(p, src + axis_at[k], axis_len[k]);
  }
  s->span = span_from(p, t.off, end);
  shard_parser_skip_to(p, end);
  *out = s;
  return true;
}

bool shard_parse_sdy_sharding_body(shard_parser *p, shard_tensor_sharding **out) {
  if (S_plain_sharding_body(p, out)) return true;
  SHARD_SVEC(shard_dim_sharding, 6) dims;
  SHARD_SVEC_INIT(dims);
  shard_arena *arena = shard_parser_arena(p);
  shard_tensor_sharding *s = SHARD_NEW(arena, shard_tensor_sharding);
  shard_span start = shard_parser_here(p);
  uint32_t end = 0;
  if (!shard_parser_expect(p, "<") || !parse_mesh_or_ref(p, s) || !shard_parser_expect(p, ",") ||
      !shard_parser_expect(p, "["))
    return false;
  if (!peek_is(p, "]")) {
    do {
      shard_dim_sharding d;
      if (!parse_dim_sharding(p, &d)) {
        follow_up(p, PARAM_FAIL("Sdy_TensorSharding", "dim_shardings", "::llvm::ArrayRef<DimensionShardingAttr>"));
        goto fail;
      }
      SHARD_SVEC_PUSH(dims, d);
    } while (shard_parser_accept(p, ","));
  }
  if (!shard_parser_expect(p, "]") || !parse_replicated_unreduced(p, s) || !expect_close(p, ">", &end)) goto fail;
  s->rank = dims.len;
  SHARD_SVEC_FREEZE(arena, dims, s->dims);
  s->span = span_from(p, start.off, end);
  *out = s;
  return true;

fail:
  SHARD_SVEC_FREE(dims);
  return false;
}

/* sharding-list ::= '[' (sharding (',' sharding)*)? ']'
 * sharding      ::= sharding-body | '#sdy.sharding' sharding-body
 * `elem_fail` is the follow-up error for a failing element (NULL: none, as in
 * the stripped in_shardings=/out_shardings= lists). */
static bool parse_sharding_list(shard_parser *p, shard_sharding_per_value **out, const char *elem_fail) {
  SHARD_VEC(shard_tensor_sharding) list = {0};
  shard_span start = shard_parser_here(p);
  uint32_t end = 0;
  if (!shard_parser_expect(p, "[")) return false;
  if (!peek_is(p, "]")) {
    do {
      shard_tensor_sharding *s;
      shard_tok t = shard_parser_peek(p);
      if (t.kind == SHARD_TOK_HASH && shard_tok_is(&t, "#sdy.sharding")) shard_parser_next(p);
      if (!shard_parse_sdy_sharding_body(p, &s)) {
        SHARD_VEC_FREE(list);
        return elem_fail ? follow_up(p, "%s", elem_fail) : false;
      }
      SHARD_VEC_PUSH(list, *s);
    } while (shard_parser_accept(p, ","));
  }
  if (!expect_close(p, "]", &end)) {
    SHARD_VEC_FREE(list);
    return false;
  }
  shard_arena *arena = shard_parser_arena(p);
  shard_sharding_per_value *pv = SHARD_NEW(arena, shard_sharding_per_value);
  pv->num = list.len;
  SHARD_VEC_FREEZE(arena, list, pv->shardings);
  pv->span = span_from(p, start.off, end);
  *out = pv;
  return true;
}

bool shard_parse_sdy_sharding_list(shard_parser *p, shard_sharding_per_value **out) {
  return parse_sharding_list(p, out, NULL);
}

/* ---- op sharding rules ------------------------------------------------------- */

/* Index of 'z'; factors past it are spelled z_1, z_2, ... (kStartAtZ). */
#define START_AT_Z ('z' - 'i')

/* Reads one factor symbol from the bare-id text [*s, end) and advances *s,
 * as Shardy's parseFactorSymbolIndex: [i-z] or 'z_' [1-9][0-9]*. An index
 * that doesn't fit int64 is reported but parsing goes on (as in Shardy, whose
 * tests expect the follow-up errors). */
static bool parse_factor_symbol(shard_parser *p, const char **s, const char *end, int64_t *out) {
  const char *c = *s;
  if (end - c >= 2 && c[0] == 'z' && c[1] == '_') {
    const char *num = c + 2, *q = num;
    while (q < end && *q >= '0' && *q <= '9') q++;
    if (q == num) return shard_parser_error(p, "expecting integer after 'z_'. Received: '%.*s'", (int)(end - c), c);
    if (*num == '0')
      return shard_parser_error(p, "expecting positive integer without leading zeros. Received: '%.*s'", (int)(q - num),
                                num);
    int64_t v = 0;
    for (const char *d = num; d < q; d++) {
      if (v > (INT64_MAX - (*d - '0')) / 10) {
        /* Reported without failing, so it must not use up the parser core's
         * single error: Shardy's test expects the iota error that follows. */
        shard_error(shard_parser_diag(p), shard_parser_here(p), "expecting symbol index <=2^63-1. Received: '%.*s'",
                    (int)(q - num), num);
        v = 0;
        break;
      }
      v = v * 10 + (*d - '0');
    }
    *out = v > INT64_MAX - START_AT_Z ? INT64_MAX : v + START_AT_Z;
    *s = q;
    return true;
  }
  if (*c < 'i' || *c > 'z') return shard_parser_error(p, "expecting symbol from 'i' to 'z'. Received: '%c'", *c);
  *out = *c - 'i';
  *s = c + 1;
  return true;
}

/* Next token as a bare identifier for the factor lists ("keyword" in MLIR). */
static bool take_keyword(shard_parser *p, shard_tok *t) {
  *t = shard_parser_peek(p);
  if (t->kind != SHARD_TOK_IDENT) return shard_parser_error(p, "expected valid keyword");
  shard_parser_next(p);
  return true;
}

/* dim-mapping ::= bare-id?    -- factor symbols glued together: i, ij, zz_1
 * A missing id gives an empty mapping, which the verifier reports. */
static bool parse_dim_mapping(shard_parser *p, shard_dim_mapping *out) {
  SHARD_VEC(int64_t) factors = {0};
  memset(out, 0, sizeof *out);
  shard_tok t = shard_parser_peek(p);
  if (t.kind != SHARD_TOK_IDENT) return true;
  shard_parser_next(p);
  const char *s = t.text, *end = t.text + t.len;
  while (s < end) {
    int64_t f;
    if (!parse_factor_symbol(p, &s, end, &f)) {
      SHARD_VEC_FREE(factors);
      return false;
    }
    SHARD_VEC_PUSH(factors, f);
  }
  out->num_factors = factors.len;
  SHARD_VEC_FREEZE(shard_parser_arena(p), factors, out->factors);
  return true;
}

// tensor-mapping ::= '[' (dim-mapping (',' dim-mapping)*)? ']'
static bool parse_tensor_mapping(shard_parser *p, shard_tensor_mapping *out) {
  SHARD_VEC(shard_dim_mapping) dims = {0};
  memset(out, 0, sizeof *out);
  if (!shard_parser_expect(p, "[")) return false;
  if (!shard_parser_accept(p, "]")) {
    do {
      shard_dim_mapping d;
      if (!parse_dim_mapping(p, &d)) {
        SHARD_VEC_FREE(dims);
        return follow_up(p, PARAM_FAIL("Sdy_TensorMapping", "dim_mappings", "::llvm::ArrayRef<DimMappingAttr>"));
      }
      SHARD_VEC_PUSH(dims, d);
    } while (shard_parser_accept(p, ","));
    if (!shard_parser_expect(p, "]")) {
      SHARD_VEC_FREE(dims);
      return false;
    }
  }
  out->rank = dims.len;
  SHARD_VEC_FREEZE(shard_parser_arena(p), dims, out->dims);
  return true;
}

/* '(' tensor-mapping (',' tensor-mapping)* ')'. At least one mapping: an
 * op without operands (or results) has no rule syntax, as in Shardy. */
static bool parse_tensor_mappings(shard_parser *p, shard_tensor_mapping **out, uint32_t *n, const char *fail) {
  SHARD_VEC(shard_tensor_mapping) list = {0};
  if (!shard_parser_expect(p, "(")) return false;
  do {
    shard_tensor_mapping t;
    if (!parse_tensor_mapping(p, &t)) {
      SHARD_VEC_FREE(list);
      return follow_up(p, "%s", fail);
    }
    SHARD_VEC_PUSH(list, t);
  } while (shard_parser_accept(p, ","));
  if (!shard_parser_expect(p, ")")) {
    SHARD_VEC_FREE(list);
    return false;
  }
  *n = list.len;
  SHARD_VEC_FREEZE(shard_parser_arena(p), list, *out);
  return true;
}

/* factor-sizes ::= ('{' (symbol '=' integer (',' symbol '=' integer)*)? '}')?
 * Symbols must come in iota order i, j, k, ... (parseFactorSizes). */
static bool parse_factor_sizes(shard_parser *p, shard_op_sharding_rule *r) {
  SHARD_VEC(int64_t) sizes = {0};
  if (!shard_parser_accept(p, "{")) return true;
  if (!shard_parser_accept(p, "}")) {
    do {
      shard_tok t;
      int64_t f, size;
      if (!take_keyword(p, &t)) goto fail;
      const char *s = t.text, *end = t.text + t.len;
      if (!parse_factor_symbol(p, &s, end, &f)) goto fail;
      int64_t expected = sizes.len;
      if (f != expected) {
        shard_buf want, got;
        shard_buf_init(&want);
        shard_buf_init(&got);
        shard_rule_factor_symbol(&want, expected);
        shard_rule_factor_symbol(&got, f);
        shard_parser_error(p,
                           "expecting factor indices to be ordered like an iota ([0,1,2,...], "
                           "e.g. {i=#, j=#, ...}). Expecting factor index symbol '%s', received: '%s'",
                           shard_buf_str(&want), shard_buf_str(&got));
        shard_buf_free(&want);
        shard_buf_free(&got);
        goto fail;
      }
      if (s < end) {
        shard_parser_error(p, "expecting single factor symbol: %.*s", (int)(end - s), s);
        goto fail;
      }
      if (!shard_parser_expect(p, "=") || !shard_parser_int(p, &size)) goto fail;
      SHARD_VEC_PUSH(sizes, size);
    } while (shard_parser_accept(p, ","));
    if (!shard_parser_expect(p, "}")) goto fail;
  }
  r->num_factors = sizes.len;
  SHARD_VEC_FREEZE(shard_parser_arena(p), sizes, r->factor_sizes);
  return true;

fail:
  SHARD_VEC_FREE(sizes);
  return false;
}

/* factors-with-type ::= (kind '=' ('{' (symbol (',' symbol)*)? '}')?)?
 * As parseFactorsWithType, each element is read as one symbol (anything glued
 * after it is ignored). */
static bool parse_factors_with_type(shard_parser *p, const char *kind, int64_t **out, uint32_t *n) {
  SHARD_VEC(int64_t) factors = {0};
  if (!peek_ident_is(p, kind)) return true;
  shard_parser_next(p);
  if (!shard_parser_expect(p, "=")) return false;
  if (shard_parser_accept(p, "{") && !shard_parser_accept(p, "}")) {
    do {
      shard_tok t;
      int64_t f;
      const char *s;
      if (!take_keyword(p, &t)) goto fail;
      s = t.text;
      if (!parse_factor_symbol(p, &s, t.text + t.len, &f)) goto fail;
      SHARD_VEC_PUSH(factors, f);
    } while (shard_parser_accept(p, ","));
    if (!shard_parser_expect(p, "}")) goto fail;
  }
  *n = factors.len;
  SHARD_VEC_FREEZE(shard_parser_arena(p), factors, *out);
  return true;

fail:
  SHARD_VEC_FREE(factors);
  return false;
}

/* rule-body ::= '<' '(' tensor-mappings ')' '->' '(' tensor-mappings ')' factor-sizes
 *               ('reduction' '=' factor-list)? ('need_replication' '=' factor-list)?
 *               ('permutation' '=' factor-list)? ('blocked_propagation' '=' factor-list)?
 *               (',' 'custom')? '>'
 * The special-factor clauses only in this order: anything else ends at '>'. */
bool shard_parse_sdy_rule_body(shard_parser *p, shard_op_sharding_rule **out) {
  shard_op_sharding_rule *r = SHARD_NEW(shard_parser_arena(p), shard_op_sharding_rule);
  shard_span start = shard_parser_here(p);
  uint32_t end = 0;
  if (!shard_parser_expect(p, "<")) return false;
  if (!parse_tensor_mappings(
          p, &r->operands, &r->num_operands,
          PARAM_FAIL("Sdy_OpShardingRule", "operand_mappings", "::llvm::ArrayRef<TensorMappingAttr>")))
    return false;
  if (!shard_parser_expect(p, "->")) return false;
  if (!parse_tensor_mappings(
          p, &r->results, &r->num_results,
          PARAM_FAIL("Sdy_OpShardingRule", "result_mappings", "::llvm::ArrayRef<TensorMappingAttr>")))
    return false;
  if (!parse_factor_sizes(p, r) || !parse_factors_with_type(p, "reduction", &r->reduction, &r->num_reduction) ||
      !parse_factors_with_type(p, "need_replication", &r->need_replication, &r->num_need_replication) ||
      !parse_factors_with_type(p, "permutation", &r->permutation, &r->num_permutation) ||
      !parse_factors_with_type(p, "blocked_propagation", &r->blocked_propagation, &r->num_blocked_propagation))
    return false;
  if (shard_parser_accept(p, ",")) {
    if (!peek_ident_is(p, "custom")) return shard_parser_error(p, "expected 'custom'");
    shard_parser_next(p);
    r->is_custom = true;
  }
  if (!expect_close(p, ">", &end)) return false;
  r->span = span_from(p, start.off, end);
  *out = r;
  return true;
}

/* ---- propagation edges --------------------------------------------------------- */

// value-ref ::= ('operand' | 'result') '-' integer
static bool parse_value_ref(shard_parser *p, shard_value_ref *out) {
  if (peek_ident_is(p, "operand")) {
    out->is_result = false;
  } else if (peek_ident_is(p, "result")) {
    out->is_result = true;
  } else {
    return shard_parser_error(p, "expected ::mlir::sdy::EdgeNodeType to be one of: operand, result");
  }
  shard_parser_next(p);
  return shard_parser_expect(p, "-") && shard_parser_int(p, &out->index);
}

// axis-edge ::= '{' axis-ref '=' value-ref '->' '[' value-ref (',' value-ref)* ']' '}'
static bool parse_axis_edge(shard_parser *p, shard_axis_edge *out) {
  SHARD_VEC(shard_value_ref) targets = {0};
  if (!shard_parser_expect(p, "{") || !parse_axis_ref(p, &out->axis) || !shard_parser_expect(p, "=") ||
      !parse_value_ref(p, &out->source) || !shard_parser_expect(p, "->") || !shard_parser_expect(p, "["))
    return false;
  if (!peek_is(p, "]")) {
    do {
      shard_value_ref v;
      if (!parse_value_ref(p, &v)) goto fail;
      SHARD_VEC_PUSH(targets, v);
    } while (shard_parser_accept(p, ","));
  }
  if (!shard_parser_expect(p, "]") || !shard_parser_expect(p, "}")) goto fail;
  out->num_targets = targets.len;
  SHARD_VEC_FREEZE(shard_parser_arena(p), targets, out->targets);
  return true;

fail:
  SHARD_VEC_FREE(targets);
  return false;
}

// edge-step ::= '{' 'step' '-' integer '=' '[' axis-edge (',' axis-edge)* ']' '}'
static bool parse_edge_step(shard_parser *p, shard_edge_step *out) {
  SHARD_VEC(shard_axis_edge) edges = {0};
  if (!shard_parser_expect(p, "{") || !shard_parser_expect_keyword(p, "step") || !shard_parser_expect(p, "-") ||
      !shard_parser_int(p, &out->step) || !shard_parser_expect(p, "=") || !shard_parser_expect(p, "["))
    return false;
  if (!peek_is(p, "]")) {
    do {
      shard_axis_edge e;
      memset(&e, 0, sizeof e);
      if (!parse_axis_edge(p, &e)) goto fail;
      SHARD_VEC_PUSH(edges, e);
    } while (shard_parser_accept(p, ","));
  }
  if (!shard_parser_expect(p, "]") || !shard_parser_expect(p, "}")) goto fail;
  out->num_edges = edges.len;
  SHARD_VEC_FREEZE(shard_parser_arena(p), edges, out->edges);
  return true;

fail:
  SHARD_VEC_FREE(edges);
  return false;
}

// edges-body ::= '<' '[' (edge-step (',' edge-step)*)? ']' '>'
static bool parse_edges_body(shard_parser *p, shard_attr **out, shard_span start) {
  SHARD_VEC(shard_edge_step) steps = {0};
  uint32_t end = 0;
  if (!shard_parser_expect(p, "<") || !shard_parser_expect(p, "[")) return false;
  if (!peek_is(p, "]")) {
    do {
      shard_edge_step s;
      memset(&s, 0, sizeof s);
      if (!parse_edge_step(p, &s)) goto fail;
      SHARD_VEC_PUSH(steps, s);
    } while (shard_parser_accept(p, ","));
  }
  if (!shard_parser_expect(p, "]") || !expect_close(p, ">", &end)) goto fail;
  shard_attr *a = new_attr(p, SHARD_ATTR_SDY_EDGES, span_from(p, start.off, end));
  a->u.edges.num = steps.len;
  SHARD_VEC_FREEZE(shard_parser_arena(p), steps, a->u.edges.steps);
  *out = a;
  return true;

fail:
  SHARD_VEC_FREE(steps);
  return false;
}

/* ---- entry point ------------------------------------------------------------------ */

/* `#sdy<mnemonic body>`: the non-pretty form MLIR uses for sdy attributes
 * whose format doesn't start with '<' (manual_axes{"a"} and the op-parameter
 * lists). */
static bool parse_bare_sdy(shard_parser *p, shard_span start, shard_attr **out) {
  if (!shard_parser_expect(p, "<")) return false;
  shard_tok t = shard_parser_peek(p);
  if (t.kind != SHARD_TOK_IDENT) return shard_parser_error(p, "expected attribute name");
  shard_parser_next(p);
  shard_attr *a = NULL;
  bool ok;
  if (shard_tok_is(&t, "manual_axes")) {
    ok = shard_parse_sdy_manual_axes(p, &a);
  } else if (shard_tok_is(&t, "axis_ref_list")) {
    a = new_attr(p, SHARD_ATTR_SDY_AXIS_LIST, start);
    ok = shard_parse_sdy_axis_list(p, &a->u.axis_list);
  } else if (shard_tok_is(&t, "list_of_axis_ref_lists")) {
    ok = shard_parse_sdy_axis_lists(p, &a);
  } else if (shard_tok_is(&t, "all_to_all_param_list")) {
    ok = shard_parse_sdy_all_to_all_params(p, &a);
  } else if (shard_tok_is(&t, "reduction_op") || shard_tok_is(&t, "propagation_direction")) {
    /* The wrapped enums, as shard's attribute printer writes op parameters
     * outside their op's syntax: #sdy<reduction_op max>. */
    bool reduction = shard_tok_is(&t, "reduction_op");
    static const char *const reductions[] = {"sum", "max", "min"};
    static const char *const directions[] = {"BOTH", "FORWARD", "BACKWARD", "NONE"};
    const char *const *names = reduction ? reductions : directions;
    int count = reduction ? 3 : 4, found = -1;
    shard_tok v = shard_parser_peek(p);
    for (int i = 0; i < count && v.kind == SHARD_TOK_IDENT; i++)
      if (shard_tok_is(&v, names[i])) found = i;
    if (found < 0)
      return shard_parser_error(p, reduction ? "expected one of: sum, max, min"
                                             : "expected one of: FORWARD, BACKWARD, NONE, BOTH");
    shard_parser_next(p);
    a = new_attr(p, reduction ? SHARD_ATTR_SDY_REDUCTION : SHARD_ATTR_SDY_DIRECTION, start);
    /* Both tables follow the order of their enum. */
    if (reduction) a->u.reduction = (shard_reduction)found;
    else a->u.direction = (shard_direction)found;
    ok = true;
  } else {
    return shard_parser_error_at(p, shard_parser_span(p, &t), "unknown attribute `%.*s` in dialect `sdy`", (int)t.len,
                                 t.text);
  }
  uint32_t end = 0;
  if (!ok || !expect_close(p, ">", &end)) return false;
  a->span = span_from(p, start.off, end);
  *out = a;
  return true;
}

bool shard_parse_sdy_attr(shard_parser *p, const char *mnemonic, shard_span start, shard_attr **out) {
  shard_attr *a;
  if (strcmp(mnemonic, "") == 0) return parse_bare_sdy(p, start, out);
  if (strcmp(mnemonic, "propagation_edges") == 0) return parse_edges_body(p, out, start);

  if (strcmp(mnemonic, "mesh") == 0) {
    shard_mesh *m;
    if (!shard_parse_sdy_mesh_body(p, &m)) return false;
    a = new_attr(p, SHARD_ATTR_SDY_MESH, span_from(p, start.off, m->span.off + m->span.len));
    a->u.mesh = m;
  } else if (strcmp(mnemonic, "sharding") == 0) {
    shard_tensor_sharding *s;
    if (!shard_parse_sdy_sharding_body(p, &s)) return false;
    a = new_attr(p, SHARD_ATTR_SDY_SHARDING, span_from(p, start.off, s->span.off + s->span.len));
    a->u.sharding = s;
  } else if (strcmp(mnemonic, "sharding_per_value") == 0) {
    shard_sharding_per_value *pv;
    uint32_t end = 0;
    if (!shard_parser_expect(p, "<") ||
        !parse_sharding_list(
            p, &pv, PARAM_FAIL("Sdy_TensorShardingPerValue", "shardings", "::llvm::ArrayRef<TensorShardingAttr>")) ||
        !expect_close(p, ">", &end))
      return false;
    a = new_attr(p, SHARD_ATTR_SDY_PER_VALUE, span_from(p, start.off, end));
    a->u.per_value = pv;
  } else if (strcmp(mnemonic, "op_sharding_rule") == 0) {
    shard_op_sharding_rule *r;
    if (!shard_parse_sdy_rule_body(p, &r)) return false;
    a = new_attr(p, SHARD_ATTR_SDY_RULE, span_from(p, start.off, r->span.off + r->span.len));
    a->u.rule = r;
  } else {
    return shard_parser_error_at(p, start, "unknown attribute `%s` in dialect `sdy`", mnemonic);
  }
  *out = a;
  return true;
}
