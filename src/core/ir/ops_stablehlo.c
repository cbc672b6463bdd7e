/* The pretty syntax of StableHLO ops, and the op-definition table the generic
 * parser and printer look `stablehlo.*` names up in.
 *
 * Each parse function is called after the op name and fills a shard_op_state;
 * each print function writes everything after the op name, up to but not
 * including a trailing loc(...). The syntax follows StableHLO's ODS
 * assemblyFormats and its custom directives (AssemblyFormat.cpp), including
 * MLIR's spacing quirks: an enum attribute printed inside a format gets a
 * space from the format and another from the enum printer, hence
 * `compare  LT, %a, %b,  FLOAT` and `algorithm =  DEFAULT`.
 *
 * Attributes the syntax shows are inherent (printed in <{...}> in generic
 * form); the ones StableHLO keeps as dialect attributes are stored as raw
 * generic text and converted in ops_stablehlo_attr.c. Default-valued
 * properties (has_side_effect = false, api_version = 1, ...) are elided from
 * the printed attr-dict the way ODS-generated printers do.
 *
 * Ops whose StableHLO definition has no assembly format (gather, scatter,
 * case, if, sort, the collectives, ...) have no parse/print here: MLIR prints
 * them generically, and so does shard. Printers do not crash on ops built from
 * generic input that lack required attributes: they print MLIR's
 * <<NULL ATTRIBUTE>> placeholder and leave the complaint to the verifier. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "ir/opdef.h"
#include "ir/ops_stablehlo.h"

#define S_NULL_ATTR "<<NULL ATTRIBUTE>>"

/* ---- parsing helpers ------------------------------------------------------ */

static shard_type *S_type_named(shard_parser *p, const char *text) {
  return shard_type_other(shard_parser_arena(p), text);
}

/* attr-dict ::= ('{' named-attr (',' named-attr)* '}')?
 * Entries naming an inherent attribute become properties when the op is built
 * (the generic machinery consults the op definition). */
static bool S_attr_dict(shard_parser *p, shard_op_state *st) { return shard_parser_attr_dict(p, st); }

/* ':' function-type, whose inputs must match the operands parsed so far */
static bool S_colon_functional(shard_parser *p, shard_op_state *st) {
  if (!shard_parser_expect(p, ":")) return false;
  shard_span at = shard_parser_here(p);
  uint32_t before = st->operand_types.len;
  if (!shard_parser_functional_type(p, st)) return false;
  if (st->operand_types.len != st->operands.len)
    return shard_parser_error_at(p, at, "%u operands present, but expected %u", st->operands.len - before,
                                 st->operand_types.len - before);
  return true;
}

/* ':' (type | function-type): custom<SameOperandsAndResultType> */
static bool S_colon_same(shard_parser *p, shard_op_state *st) {
  return shard_parser_expect(p, ":") && shard_parser_same_or_functional_type(p, st);
}

static void S_add(shard_parser *p, shard_op_state *st, const char *name, shard_attr *a, shard_span span) {
  a->span = span;
  shard_op_state_add_attr(st, name, a, true);
}

/* int-list ::= '[' (int (',' int)*)? ']' */
static bool S_int_list(shard_parser *p, shlo_dims *out) {
  /* the usual short list stays in out->inl: no allocation per op */
  uint32_t cap = (uint32_t)(sizeof out->inl / sizeof out->inl[0]);
  out->vals = out->inl;
  out->num = 0;
  if (shard_parser_plain_int_list(p, out->inl, cap, &out->num)) return true;
  if (!shard_parser_expect(p, "[")) return false;
  if (!shard_parser_accept(p, "]")) {
    do {
      int64_t x;
      if (!shard_parser_int(p, &x)) {
        shard_shlo_dims_free(out);
        return false;
      }
      if (out->num == cap) out->vals = shard_svec_grow(out->vals, out->inl, &cap, sizeof x);
      out->vals[out->num++] = x;
    } while (shard_parser_accept(p, ","));
    if (!shard_parser_expect(p, "]")) {
      shard_shlo_dims_free(out);
      return false;
    }
  }
  return true;
}

/* An int-list stored as the inherent dense i64 array `name`. */
static bool S_dims_attr(shard_parser *p, shard_op_state *st, const char *name) {
  shard_span at = shard_parser_here(p);
  shlo_dims d;
  if (!S_int_list(p, &d)) return false;
  S_add(p, st, name, shard_attr_dense_i64(shard_parser_arena(p), d.vals, d.num), at);
  shard_shlo_dims_free(&d);
  return true;
}

/* kw-dims ::= kw '=' int-list */
static bool S_kw_dims(shard_parser *p, shard_op_state *st, const char *kw, const char *name) {
  return shard_parser_expect_keyword(p, kw) && shard_parser_expect(p, "=") && S_dims_attr(p, st, name);
}

/* kw-int ::= kw '=' int, stored as `name` with integer type `ty`. */
static bool S_kw_int(shard_parser *p, shard_op_state *st, const char *kw, const char *name, const char *ty) {
  int64_t v;
  if (!shard_parser_expect_keyword(p, kw) || !shard_parser_expect(p, "=")) return false;
  shard_span at = shard_parser_here(p);
  if (!shard_parser_int(p, &v)) return false;
  S_add(p, st, name, shard_attr_int(shard_parser_arena(p), v, S_type_named(p, ty)), at);
  return true;
}

/* enum ::= bare-id, one of the cases of `kind` */
static bool S_enum(shard_parser *p, shard_op_state *st, const char *kind, const char *name) {
  shard_span at = shard_parser_here(p);
  const char *v;
  if (!shard_parser_ident(p, &v)) return false;
  if (!shard_shlo_enum_valid(kind, v))
    return shard_parser_error_at(p, at, "expected %s to be one of: %s", kind, shard_shlo_enum_cases(kind));
  S_add(p, st, name, shard_shlo_enum_encode(shard_parser_arena(p), kind, v), at);
  return true;
}

/* type-list ::= type (',' type)*   (appended to `vec`) */
static bool S_type_list(shard_parser *p, void *vec) {
  SHARD_VEC(shard_type *) *v = vec;
  do {
    shard_type *t;
    if (!shard_parser_type(p, &t)) return false;
    SHARD_VEC_PUSH(*v, t);
  } while (shard_parser_accept(p, ","));
  return true;
}

/* Pops the operand just parsed (to reorder operands the syntax interleaves). */
static shard_unresolved S_pop_operand(shard_op_state *st) { return st->operands.items[--st->operands.len]; }

/* ---- printing helpers ----------------------------------------------------- */

/* Properties left at their default value are not printed by ODS printers.
 * Asked of every inherent attribute printed: the first letter turns most
 * names away before any strcmp. */
static bool S_is_default(const shard_named_attr *na) {
  const char *n = na->name;
  const shard_attr *a = na->value;
  if (!na->inherent || !n[0] || !strchr("acehiortuv", n[0])) return false;
  if (!strcmp(n, "has_side_effect") || !strcmp(n, "is_host_transfer") || !strcmp(n, "indices_are_sorted") ||
      !strcmp(n, "unique_indices") || !strcmp(n, "is_stable"))
    return a->kind == SHARD_ATTR_BOOL && !a->u.boolean;
  if (!strcmp(n, "api_version")) return a->kind == SHARD_ATTR_INT && a->u.integer.value == 1;
  if (!strcmp(n, "called_computations") || !strcmp(n, "output_operand_aliases"))
    return a->kind == SHARD_ATTR_ARRAY && a->u.array.num == 0;
  if (!strcmp(n, "composite_attributes")) return a->kind == SHARD_ATTR_DICT && a->u.dict.num == 0;
  if (!strcmp(n, "version")) return a->kind == SHARD_ATTR_INT && a->u.integer.value == 0;
  if (!strcmp(n, "result_accuracy") && a->kind == SHARD_ATTR_RAW) {
    /* #stablehlo.result_accuracy<mode = #stablehlo.result_accuracy_mode<DEFAULT>> */
    const char *want = "#stablehlo.result_accuracy<mode=#stablehlo.result_accuracy_mode<DEFAULT>>";
    const char *s = a->u.raw;
    for (; *s; s++) {
      if (*s == ' ' || *s == '\n' || *s == '\t' || *s == '\r') continue;
      if (*s != *want) return false;
      want++;
    }
    return *want == 0;
  }
  return false;
}

/* " {...}" of all attributes except `elided` (NULL-terminated) and the
 * default-valued properties: the attr-dict directive of an assembly format. */
static void S_print_attr_dict(shard_printer *pr, const shard_op *op, const char *const *elided) {
  shard_printer_attr_dict_all_except(pr, op, elided, S_is_default);
}

static void S_print_one_elided(shard_printer *pr, const shard_op *op, const char *name) {
  const char *el[] = {name, NULL};
  S_print_attr_dict(pr, op, el);
}

/* "[1, 2]" of a dense i64 array */
static void S_print_list(shard_printer *pr, shard_i64s l);

static void S_print_dims(shard_printer *pr, const shard_attr *a) {
  if (!a) {
    shard_printer_puts(pr, S_NULL_ATTR);
    return;
  }
  if (a->kind != SHARD_ATTR_DENSE_ARRAY) {
    shard_printer_attr(pr, a);
    return;
  }
  S_print_list(pr, (shard_i64s){a->u.dense_array.vals, a->u.dense_array.num});
}

/* "[1, 2]" of an attribute's integer list */
static void S_print_list(shard_printer *pr, shard_i64s l) {
  shard_buf *b = shard_printer_buf(pr); /* integers without printf */
  shard_buf_putc(b, '[');
  for (uint32_t i = 0; i < l.n; i++) {
    if (i) shard_buf_putn(b, ", ", 2);
    shard_buf_put_i64(b, l.v[i]);
  }
  shard_buf_putc(b, ']');
}

/* An integer attribute without its type, as formats print I64Attr/I32Attr. */
static void S_print_int(shard_printer *pr, const shard_attr *a) {
  if (!a) shard_printer_puts(pr, S_NULL_ATTR);
  else if (a->kind != SHARD_ATTR_INT) shard_printer_attr(pr, a);
  else if (a->u.integer.text) shard_printer_puts(pr, a->u.integer.text);
  else shard_printer_printf(pr, "%" PRId64, a->u.integer.value);
}

/* " VALUE" of an enum attribute (the leading space is the enum printer's). */
static void S_print_enum(shard_printer *pr, const shard_op *op, const char *name, const char *kind) {
  const shard_attr *a = shard_op_attr(op, name);
  char v[64];
  shard_printer_puts(pr, " ");
  if (shard_shlo_enum_decode(a, kind, v, sizeof v)) shard_printer_puts(pr, v);
  else if (a) shard_printer_attr(pr, a);
  else shard_printer_puts(pr, S_NULL_ATTR);
}

static void S_print_colon_functional(shard_printer *pr, const shard_op *op) {
  shard_printer_puts(pr, " : ");
  shard_printer_functional_type(pr, op);
}

static void S_print_colon_same(shard_printer *pr, const shard_op *op) {
  shard_printer_puts(pr, " : ");
  shard_printer_same_or_functional_type(pr, op);
}

static void S_print_result_type(shard_printer *pr, const shard_op *op) {
  shard_printer_puts(pr, " : ");
  if (op->num_results) shard_printer_type(pr, op->results[0].type);
}

static bool S_types_equal(const shard_type *a, const shard_type *b) { return a && b && shard_type_equal(a, b); }

static bool S_is_bare_id(const char *s) {
  if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || *s == '_')) return false;
  for (; *s; s++)
    if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') || *s == '_' || *s == '$' ||
          *s == '.'))
      return false;
  return true;
}

/* ---- same-type and functional-type ops ------------------------------------ */

// same-type-op ::= operand (',' operand)* attr-dict ':' (type | function-type)
// (abs, add, negate, ..., clamp, after_all: custom<SameOperandsAndResultType>)
static bool S_parse_same(shard_parser *p, shard_op_state *st) {
  return shard_parser_operand_list(p, st) && S_attr_dict(p, st) && S_colon_same(p, st);
}

static void S_print_same(shard_printer *pr, const shard_op *op) {
  if (op->num_operands) shard_printer_puts(pr, " ");
  shard_printer_operands(pr, op, 0, op->num_operands);
  S_print_attr_dict(pr, op, NULL);
  S_print_colon_same(pr, op);
}

// functional-op ::= operand (',' operand)* attr-dict ':' function-type
// (reshape, bitcast_convert, dynamic_update_slice, is_finite, ...)
static bool S_parse_functional(shard_parser *p, shard_op_state *st) {
  return shard_parser_operand_list(p, st) && S_attr_dict(p, st) && S_colon_functional(p, st);
}

static void S_print_functional(shard_printer *pr, const shard_op *op) {
  if (op->num_operands) shard_printer_puts(pr, " ");
  shard_printer_operands(pr, op, 0, op->num_operands);
  S_print_attr_dict(pr, op, NULL);
  S_print_colon_functional(pr, op);
}

// result-type-op ::= attr-dict ':' type   (create_token, partition_id, replica_id)
static bool S_parse_result_type(shard_parser *p, shard_op_state *st) {
  shard_type *t;
  if (!S_attr_dict(p, st) || !shard_parser_expect(p, ":") || !shard_parser_type(p, &t)) return false;
  SHARD_VEC_PUSH(st->result_types, t);
  return true;
}

static void S_print_result_type_op(shard_printer *pr, const shard_op *op) {
  S_print_attr_dict(pr, op, NULL);
  S_print_result_type(pr, op);
}

// select ::= operand ',' operand ',' operand attr-dict ':' (type ',' type | function-type)
static bool S_parse_select(shard_parser *p, shard_op_state *st) {
  if (!shard_parser_operand_list(p, st) || !S_attr_dict(p, st) || !shard_parser_expect(p, ":")) return false;
  shard_span at = shard_parser_here(p);
  SHARD_VEC(shard_type *) ts = {0};
  if (!S_type_list(p, &ts)) {
    SHARD_VEC_FREE(ts);
    return false;
  }
  bool ok = true;
  if (ts.len == 2) {
    SHARD_VEC_PUSH(st->operand_types, ts.items[0]);
    SHARD_VEC_PUSH(st->operand_types, ts.items[1]);
    SHARD_VEC_PUSH(st->operand_types, ts.items[1]);
    SHARD_VEC_PUSH(st->result_types, ts.items[1]);
  } else if (ts.len == 1 && ts.items[0]->kind == SHARD_TYPE_FUNCTION) {
    const shard_type *fn = ts.items[0];
    if (fn->num_inputs != st->operands.len)
      ok = shard_parser_error_at(p, at, "%u operands present, but expected %u", st->operands.len, fn->num_inputs);
    else if (fn->num_results != 1) ok = shard_parser_error_at(p, at, "expected single output");
    for (uint32_t i = 0; ok && i < fn->num_inputs; i++) SHARD_VEC_PUSH(st->operand_types, fn->inputs[i]);
    if (ok) SHARD_VEC_PUSH(st->result_types, fn->results[0]);
  } else {
    ok = shard_parser_error_at(p, at, "expected functional type or list of two types");
  }
  SHARD_VEC_FREE(ts);
  return ok;
}

static void S_print_select(shard_printer *pr, const shard_op *op) {
  shard_printer_puts(pr, " ");
  shard_printer_operands(pr, op, 0, op->num_operands);
  S_print_attr_dict(pr, op, NULL);
  if (op->num_operands == 3 && op->num_results == 1 &&
      S_types_equal(op->operands[1].value->type, op->results[0].type) &&
      S_types_equal(op->operands[2].value->type, op->results[0].type)) {
    shard_printer_puts(pr, " : ");
    shard_printer_type(pr, op->operands[0].value->type);
    shard_printer_puts(pr, ", ");
    shard_printer_type(pr, op->results[0].type);
  } else {
    S_print_colon_functional(pr, op);
  }
}

/* The real counterpart of a complex tensor type: complex<f32> -> f32. */
static shard_type *S_real_type(shard_arena *a, const shard_type *t) {
  if (!t || t->kind != SHARD_TYPE_TENSOR || strncmp(t->elem, "complex<", 8) != 0) return NULL;
  size_t n = strlen(t->elem);
  char *elem = shard_arena_strndup(a, t->elem + 8, n - 9);
  return shard_type_tensor(a, t->rank, t->dims, elem, t->encoding);
}

// complex ::= operand ',' operand attr-dict ':' (complex-tensor-type | function-type)
static bool S_parse_complex(shard_parser *p, shard_op_state *st) {
  if (!shard_parser_operand_list(p, st) || !S_attr_dict(p, st) || !shard_parser_expect(p, ":")) return false;
  shard_span at = shard_parser_here(p);
  shard_type *t;
  if (!shard_parser_type(p, &t)) return false;
  if (t->kind == SHARD_TYPE_FUNCTION) {
    if (t->num_inputs != st->operands.len)
      return shard_parser_error_at(p, at, "%u operands present, but expected %u", st->operands.len, t->num_inputs);
    if (t->num_results != 1) return shard_parser_error_at(p, at, "expected single output");
    for (uint32_t i = 0; i < t->num_inputs; i++) SHARD_VEC_PUSH(st->operand_types, t->inputs[i]);
    SHARD_VEC_PUSH(st->result_types, t->results[0]);
    return true;
  }
  shard_type *real = S_real_type(shard_parser_arena(p), t);
  if (!real) return shard_parser_error_at(p, at, "expected tensor with complex element type");
  for (uint32_t i = 0; i < st->operands.len; i++) SHARD_VEC_PUSH(st->operand_types, real);
  SHARD_VEC_PUSH(st->result_types, t);
  return true;
}

static void S_print_complex(shard_printer *pr, const shard_op *op) {
  shard_printer_puts(pr, " ");
  shard_printer_operands(pr, op, 0, op->num_operands);
  S_print_attr_dict(pr, op, NULL);
  const shard_type *res = op->num_results ? op->results[0].type : NULL;
  shard_type *real = NULL;
  if (res && res->kind == SHARD_TYPE_TENSOR && !strncmp(res->elem, "complex<", 8)) {
    /* compare by text without building a type: "tensor<2xf32>" vs elem */
    shard_arena *tmp = shard_arena_new();
    real = S_real_type(tmp, res);
    bool same = op->num_operands == 2 && S_types_equal(op->operands[0].value->type, real) &&
                S_types_equal(op->operands[1].value->type, real);
    shard_arena_free(tmp);
    if (same) {
      shard_printer_puts(pr, " : ");
      shard_printer_type(pr, res);
      return;
    }
  }
  S_print_colon_functional(pr, op);
}

// return ::= (operand (',' operand)*)? attr-dict (':' type (',' type)*)?
static bool S_parse_return(shard_parser *p, shard_op_state *st) {
  if (!shard_parser_operand_list(p, st) || !S_attr_dict(p, st)) return false;
  if (!shard_parser_accept(p, ":")) {
    if (st->operands.len) return shard_parser_error(p, "expected ':'");
    return true;
  }
  shard_span at = shard_parser_here(p);
  uint32_t before = st->operand_types.len;
  if (!S_type_list(p, &st->operand_types)) return false;
  if (st->operand_types.len - before != st->operands.len)
    return shard_parser_error_at(p, at, "%u operands present, but expected %u", st->operands.len,
                                 st->operand_types.len - before);
  return true;
}

static void S_print_return(shard_printer *pr, const shard_op *op) {
  if (op->num_operands) shard_printer_puts(pr, " ");
  shard_printer_operands(pr, op, 0, op->num_operands);
  S_print_attr_dict(pr, op, NULL);
  if (op->num_operands) {
    shard_printer_puts(pr, " : ");
    shard_printer_operand_types(pr, op);
  }
}

/* ---- constant, iota, compare ---------------------------------------------- */

// constant ::= attr-dict dense-attr
//            | '(' ')' ('<' '{' 'value' '=' attr '}' '>')? attr-dict ':' '(' ')' '->' type
// The second form is what StableHLO prints when the value's type differs from
// the result type.
static bool S_parse_constant(shard_parser *p, shard_op_state *st) {
  if (shard_parser_accept(p, "(")) {
    if (!shard_parser_expect(p, ")") || !shard_parser_properties(p, st)) return false;
    shard_type *fn;
    if (!S_attr_dict(p, st) || !shard_parser_expect(p, ":")) return false;
    shard_span at = shard_parser_here(p);
    if (!shard_parser_type(p, &fn)) return false;
    if (fn->kind != SHARD_TYPE_FUNCTION || fn->num_inputs != 0 || fn->num_results != 1)
      return shard_parser_error_at(p, at, "expected '() -> type'");
    SHARD_VEC_PUSH(st->result_types, fn->results[0]);
    return true;
  }
  if (!S_attr_dict(p, st)) return false;
  shard_span at = shard_parser_here(p);
  shard_attr *v;
  if (!shard_parser_attr(p, &v)) return false;
  if (v->kind != SHARD_ATTR_DENSE) return shard_parser_error_at(p, at, "expected elements attribute with a type");
  shard_op_state_add_attr(st, "value", v, true);
  SHARD_VEC_PUSH(st->result_types, v->u.dense.type);
  return true;
}

static void S_print_constant(shard_printer *pr, const shard_op *op) {
  const shard_attr *v = shard_op_attr(op, "value");
  const shard_type *res = op->num_results ? op->results[0].type : NULL;
  if (v && v->kind == SHARD_ATTR_DENSE && S_types_equal(v->u.dense.type, res)) {
    S_print_one_elided(pr, op, "value");
    shard_printer_puts(pr, " ");
    shard_printer_attr(pr, v);
    return;
  }
  /* printGenericOp without the name, which S_parse_constant reads back */
  shard_printer_puts(pr, "()");
  bool any = false;
  for (uint32_t i = 0; i < op->num_attrs; i++) {
    if (!op->attrs[i].inherent) continue;
    shard_printer_puts(pr, any ? ", " : " <{");
    any = true;
    shard_printer_printf(pr, "%s = ", op->attrs[i].name);
    shard_printer_attr(pr, op->attrs[i].value);
  }
  if (any) shard_printer_puts(pr, "}>");
  shard_printer_attr_dict(pr, op, NULL);
  shard_printer_puts(pr, " : () -> ");
  if (res) shard_printer_type(pr, res);
}

/* IntegerType elements (i1, si8, ui32, ...) name constants %c, others %cst. */
static const char *S_constant_name(const shard_op *op) {
  const shard_type *t = op->num_results ? op->results[0].type : NULL;
  if (!t || (t->kind != SHARD_TYPE_TENSOR && t->kind != SHARD_TYPE_UNRANKED_TENSOR) || !t->elem) return "cst";
  const char *e = t->elem;
  if (!strncmp(e, "ui", 2) || !strncmp(e, "si", 2)) e += 2;
  else if (*e == 'i') e += 1;
  else return "cst";
  if (!*e) return "cst";
  for (; *e; e++)
    if (*e < '0' || *e > '9') return "cst";
  return "c";
}

// iota ::= 'dim' '=' int attr-dict ':' type
static bool S_parse_iota(shard_parser *p, shard_op_state *st) {
  return S_kw_int(p, st, "dim", "iota_dimension", "i64") && S_parse_result_type(p, st);
}

static void S_print_iota(shard_printer *pr, const shard_op *op) {
  shard_printer_puts(pr, " dim = ");
  S_print_int(pr, shard_op_attr(op, "iota_dimension"));
  S_print_one_elided(pr, op, "iota_dimension");
  S_print_result_type(pr, op);
}

// dynamic_iota ::= operand ',' 'dim' '=' int attr-dict ':' function-type
static bool S_parse_dynamic_iota(shard_parser *p, shard_op_state *st) {
  return shard_parser_operand(p, st) && shard_parser_expect(p, ",") &&
         S_kw_int(p, st, "dim", "iota_dimension", "i64") && S_attr_dict(p, st) && S_colon_functional(p, st);
}

static void S_print_dynamic_iota(shard_printer *pr, const shard_op *op) {
  shard_printer_puts(pr, " ");
  shard_printer_operands(pr, op, 0, op->num_operands);
  shard_printer_puts(pr, ", dim = ");
  S_print_int(pr, shard_op_attr(op, "iota_dimension"));
  S_print_one_elided(pr, op, "iota_dimension");
  S_print_colon_functional(pr, op);
}

// compare ::= direction ',' operand ',' operand (',' compare-type)? attr-dict ':' function-type
static bool S_parse_compare(shard_parser *p, shard_op_state *st) {
  if (!S_enum(p, st, "comparison_direction", "comparison_direction") || !shard_parser_expect(p, ",") ||
      !shard_parser_operand(p, st) || !shard_parser_expect(p, ",") || !shard_parser_operand(p, st))
    return false;
  if (shard_parser_accept(p, ",") && !S_enum(p, st, "comparison_type", "compare_type")) return false;
  return S_attr_dict(p, st) && S_colon_functional(p, st);
}

static void S_print_compare(shard_printer *pr, const shard_op *op) {
  static const char *const el[] = {"comparison_direction", "compare_type", NULL};
  shard_printer_puts(pr, " ");
  S_print_enum(pr, op, "comparison_direction", "comparison_direction");
  shard_printer_puts(pr, ", ");
  shard_printer_operands(pr, op, 0, op->num_operands);
  if (shard_op_attr(op, "compare_type")) {
    shard_printer_puts(pr, ", ");
    S_print_enum(pr, op, "compare_type", "comparison_type");
  }
  S_print_attr_dict(pr, op, el);
  S_print_colon_functional(pr, op);
}

/* ---- shape ops ------------------------------------------------------------ */

// kw-dims-op ::= operand (',' operand)* ',' kw '=' int-list attr-dict ':' type-form
// where the op's row in S_kw_dims_ops gives the operand count, the keyword,
// the attribute and the type form (function-type, or type | function-type):
//   broadcast_in_dim %x, dims = [0] : (tensor<2xf32>) -> tensor<2x3xf32>
//   dynamic_broadcast_in_dim %x, %s, dims = [0] : ...
//   broadcast %x, sizes = [3] : ...   transpose %x, dims = [1, 0] : ...
//   reverse %x, dims = [0] : tensor<2xf32>
static const struct {
  const char *op; /* after the dialect prefix (stablehlo. or mhlo.) */
  uint32_t operands;
  const char *kw, *attr;
  bool same; /* ':' (type | function-type), custom<SameOperandsAndResultType> */
} S_kw_dims_ops[] = {
    {"broadcast", 1, "sizes", "broadcast_sizes", false},
    {"broadcast_in_dim", 1, "dims", "broadcast_dimensions", false},
    {"dynamic_broadcast_in_dim", 2, "dims", "broadcast_dimensions", false},
    {"reverse", 1, "dims", "dimensions", true},
    {"transpose", 1, "dims", "permutation", false},
};

static int S_kw_dims_row(const char *name) {
  const char *dot = strchr(name, '.');
  const char *op = dot ? dot + 1 : name;
  for (int i = 0; i < (int)(sizeof S_kw_dims_ops / sizeof S_kw_dims_ops[0]); i++)
    if (strcmp(S_kw_dims_ops[i].op, op) == 0) return i;
  return -1;
}

static bool S_parse_kw_dims_op(shard_parser *p, shard_op_state *st) {
  int r = S_kw_dims_row(st->name);
  if (r < 0) return shard_parser_error(p, "no custom syntax for '%s'", st->name);
  for (uint32_t i = 0; i < S_kw_dims_ops[r].operands; i++)
    if (!shard_parser_operand(p, st) || !shard_parser_expect(p, ",")) return false;
  if (!S_kw_dims(p, st, S_kw_dims_ops[r].kw, S_kw_dims_ops[r].attr) || !S_attr_dict(p, st)) return false;
  return S_kw_dims_ops[r].same ? S_colon_same(p, st) : S_colon_functional(p, st);
}

/* operand(s) ',' kw '=' dims attr-dict, the shared middle of several ops */
static void S_print_operands_kw_dims(shard_printer *pr, const shard_op *op, const char *kw, const char *name) {
  shard_printer_puts(pr, " ");
  shard_printer_operands(pr, op, 0, op->num_operands);
  shard_printer_puts(pr, ", ");
  shard_printer_puts(pr, kw);
  shard_printer_puts(pr, " = ");
  S_print_dims(pr, shard_op_attr(op, name));
  S_print_one_elided(pr, op, name);
}

static void S_print_kw_dims_op(shard_printer *pr, const shard_op *op) {
  int r = S_kw_dims_row(op->name);
  if (r < 0) return;
  S_print_operands_kw_dims(pr, op, S_kw_dims_ops[r].kw, S_kw_dims_ops[r].attr);
  if (S_kw_dims_ops[r].same) S_print_colon_same(pr, op);
  else S_print_colon_functional(pr, op);
}

// pad ::= operand ',' operand ',' 'low' '=' int-list ',' 'high' '=' int-list ','
//         'interior' '=' int-list attr-dict ':' function-type
static bool S_parse_pad(shard_parser *p, shard_op_state *st) {
  return shard_parser_operand(p, st) && shard_parser_expect(p, ",") && shard_parser_operand(p, st) &&
         shard_parser_expect(p, ",") && S_kw_dims(p, st, "low", "edge_padding_low") && shard_parser_expect(p, ",") &&
         S_kw_dims(p, st, "high", "edge_padding_high") && shard_parser_expect(p, ",") &&
         S_kw_dims(p, st, "interior", "interior_padding") && S_attr_dict(p, st) && S_colon_functional(p, st);
}

static void S_print_pad(shard_printer *pr, const shard_op *op) {
  static const char *const el[] = {"edge_padding_low", "edge_padding_high", "interior_padding", NULL};
  shard_printer_puts(pr, " ");
  shard_printer_operands(pr, op, 0, op->num_operands);
  shard_printer_puts(pr, ", low = ");
  S_print_dims(pr, shard_op_attr(op, "edge_padding_low"));
  shard_printer_puts(pr, ", high = ");
  S_print_dims(pr, shard_op_attr(op, "edge_padding_high"));
  shard_printer_puts(pr, ", interior = ");
  S_print_dims(pr, shard_op_attr(op, "interior_padding"));
  S_print_attr_dict(pr, op, el);
  S_print_colon_functional(pr, op);
}

/* operands-with-trailing-commas ::= (operand ',')*
 * custom<VariadicOperandWithAttribute>: every operand is followed by a comma,
 * and the list ends at the first token that is not an operand. */
static bool S_parse_operands_each_comma(shard_parser *p, shard_op_state *st) {
  while (shard_parser_peek(p).kind == SHARD_TOK_PERCENT)
    if (!shard_parser_operand(p, st) || !shard_parser_expect(p, ",")) return false;
  return true;
}

static void S_print_operands_each_comma(shard_printer *pr, const shard_op *op, uint32_t from) {
  for (uint32_t i = from; i < op->num_operands; i++) {
    shard_printer_puts(pr, " ");
    shard_printer_operands(pr, op, i, i + 1);
    shard_printer_puts(pr, ",");
  }
}

// concatenate ::= (operand ',')* 'dim' '=' int attr-dict ':' function-type
static bool S_parse_concatenate(shard_parser *p, shard_op_state *st) {
  return S_parse_operands_each_comma(p, st) && S_kw_int(p, st, "dim", "dimension", "i64") && S_attr_dict(p, st) &&
         S_colon_functional(p, st);
}

static void S_print_concatenate(shard_printer *pr, const shard_op *op) {
  S_print_operands_each_comma(pr, op, 0);
  shard_printer_puts(pr, " dim = ");
  S_print_int(pr, shard_op_attr(op, "dimension"));
  S_print_one_elided(pr, op, "dimension");
  S_print_colon_functional(pr, op);
}

// dynamic_slice ::= operand ',' (operand ',')* 'sizes' '=' int-list attr-dict ':' function-type
static bool S_parse_dynamic_slice(shard_parser *p, shard_op_state *st) {
  return shard_parser_operand(p, st) && shard_parser_expect(p, ",") && S_parse_operands_each_comma(p, st) &&
         S_kw_dims(p, st, "sizes", "slice_sizes") && S_attr_dict(p, st) && S_colon_functional(p, st);
}

static void S_print_dynamic_slice(shard_printer *pr, const shard_op *op) {
  shard_printer_puts(pr, " ");
  if (op->num_operands) shard_printer_operands(pr, op, 0, 1);
  shard_printer_puts(pr, ",");
  S_print_operands_each_comma(pr, op, 1);
  shard_printer_puts(pr, " sizes = ");
  S_print_dims(pr, shard_op_attr(op, "slice_sizes"));
  S_print_one_elided(pr, op, "slice_sizes");
  S_print_colon_functional(pr, op);
}

// slice ::= operand '[' (int ':' int (':' int)? (',' int ':' int (':' int)?)*)? ']'
//           attr-dict ':' function-type
static bool S_parse_slice(shard_parser *p, shard_op_state *st) {
  if (!shard_parser_operand(p, st)) return false;
  shard_span at = shard_parser_here(p);
  if (!shard_parser_expect(p, "[")) return false;
  SHARD_VEC(int64_t) start = {0}, limit = {0}, stride = {0};
  bool ok = true;
  if (!shard_parser_accept(p, "]")) {
    do {
      int64_t a, b, c = 1;
      ok = shard_parser_int(p, &a) && shard_parser_expect(p, ":") && shard_parser_int(p, &b);
      if (ok && shard_parser_accept(p, ":")) ok = shard_parser_int(p, &c);
      if (!ok) break;
      SHARD_VEC_PUSH(start, a);
      SHARD_VEC_PUSH(limit, b);
      SHARD_VEC_PUSH(stride, c);
    } while (shard_parser_accept(p, ","));
    ok = ok && shard_parser_expect(p, "]");
  }
  if (ok) {
    shard_arena *a = shard_parser_arena(p);
    S_add(p, st, "start_indices", shard_attr_dense_i64(a, start.items, start.len), at);
    S_add(p, st, "limit_indices", shard_attr_dense_i64(a, limit.items, limit.len), at);
    S_add(p, st, "strides", shard_attr_dense_i64(a, stride.items, stride.len), at);
  }
  SHARD_VEC_FREE(start);
  SHARD_VEC_FREE(limit);
  SHARD_VEC_FREE(stride);
  return ok && S_attr_dict(p, st) && S_colon_functional(p, st);
}

static void S_print_slice(shard_printer *pr, const shard_op *op) {
  static const char *const el[] = {"start_indices", "limit_indices", "strides", NULL};
  const shard_attr *s = shard_op_attr(op, "start_indices");
  const shard_attr *l = shard_op_attr(op, "limit_indices");
  const shard_attr *k = shard_op_attr(op, "strides");
  shard_printer_puts(pr, " ");
  shard_printer_operands(pr, op, 0, op->num_operands);
  shard_printer_puts(pr, " [");
  if (s && l && k && s->kind == SHARD_ATTR_DENSE_ARRAY && l->kind == SHARD_ATTR_DENSE_ARRAY &&
      k->kind == SHARD_ATTR_DENSE_ARRAY && s->u.dense_array.num == l->u.dense_array.num &&
      s->u.dense_array.num == k->u.dense_array.num) {
    for (uint32_t i = 0; i < s->u.dense_array.num; i++) {
      shard_printer_printf(pr, "%s%" PRId64 ":%" PRId64, i ? ", " : "", s->u.dense_array.vals[i],
                           l->u.dense_array.vals[i]);
      if (k->u.dense_array.vals[i] != 1) shard_printer_printf(pr, ":%" PRId64, k->u.dense_array.vals[i]);
    }
  } else {
    /* StableHLO's spelling for inconsistent ranges (it cannot be parsed back) */
    shard_printer_puts(pr, "start_indices: ");
    S_print_dims(pr, s);
    shard_printer_puts(pr, ", limit_indices: ");
    S_print_dims(pr, l);
    shard_printer_puts(pr, ", strides: ");
    S_print_dims(pr, k);
  }
  shard_printer_puts(pr, "]");
  S_print_attr_dict(pr, op, el);
  S_print_colon_functional(pr, op);
}

// get_dimension_size ::= operand ',' 'dim' '=' int attr-dict ':' function-type
// set_dimension_size ::= operand ',' operand ',' 'dim' '=' int attr-dict ':' function-type
static bool S_parse_dimension_size(shard_parser *p, shard_op_state *st) {
  do {
    if (!shard_parser_operand(p, st) || !shard_parser_expect(p, ",")) return false;
  } while (shard_parser_peek(p).kind == SHARD_TOK_PERCENT);
  return S_kw_int(p, st, "dim", "dimension", "i64") && S_attr_dict(p, st) && S_colon_functional(p, st);
}

static void S_print_dimension_size(shard_printer *pr, const shard_op *op) {
  shard_printer_puts(pr, " ");
  shard_printer_operands(pr, op, 0, op->num_operands);
  shard_printer_puts(pr, ", dim = ");
  S_print_int(pr, shard_op_attr(op, "dimension"));
  S_print_one_elided(pr, op, "dimension");
  S_print_colon_functional(pr, op);
}

// get_tuple_element ::= operand '[' int ']' attr-dict ':' function-type
static bool S_parse_get_tuple_element(shard_parser *p, shard_op_state *st) {
  int64_t v;
  if (!shard_parser_operand(p, st) || !shard_parser_expect(p, "[")) return false;
  shard_span at = shard_parser_here(p);
  if (!shard_parser_int(p, &v) || !shard_parser_expect(p, "]")) return false;
  S_add(p, st, "index", shard_attr_int(shard_parser_arena(p), v, S_type_named(p, "i32")), at);
  return S_attr_dict(p, st) && S_colon_functional(p, st);
}

static void S_print_get_tuple_element(shard_printer *pr, const shard_op *op) {
  shard_printer_puts(pr, " ");
  shard_printer_operands(pr, op, 0, op->num_operands);
  shard_printer_puts(pr, "[");
  S_print_int(pr, shard_op_attr(op, "index"));
  shard_printer_puts(pr, "]");
  S_print_one_elided(pr, op, "index");
  S_print_colon_functional(pr, op);
}

// tuple ::= (operand (',' operand)*)? attr-dict ':' tuple-type
static bool S_parse_tuple(shard_parser *p, shard_op_state *st) {
  if (!shard_parser_operand_list(p, st) || !S_attr_dict(p, st) || !shard_parser_expect(p, ":")) return false;
  shard_span at = shard_parser_here(p);
  shard_type *t;
  if (!shard_parser_type(p, &t)) return false;
  if (t->kind != SHARD_TYPE_TUPLE) return shard_parser_error_at(p, at, "expected tuple type");
  if (t->num_inputs != st->operands.len)
    return shard_parser_error_at(p, at, "%u operands present, but expected %u", st->operands.len, t->num_inputs);
  for (uint32_t i = 0; i < t->num_inputs; i++) SHARD_VEC_PUSH(st->operand_types, t->inputs[i]);
  SHARD_VEC_PUSH(st->result_types, t);
  return true;
}

static void S_print_tuple(shard_printer *pr, const shard_op *op) {
  if (op->num_operands) shard_printer_puts(pr, " ");
  shard_printer_operands(pr, op, 0, op->num_operands);
  S_print_attr_dict(pr, op, NULL);
  S_print_result_type(pr, op);
}

/* ---- ops with enum or keyword parameters ---------------------------------- */

// fft ::= operand ',' 'type' '=' fft-type ',' 'length' '=' int-list attr-dict ':' function-type
static bool S_parse_fft(shard_parser *p, shard_op_state *st) {
  return shard_parser_operand(p, st) && shard_parser_expect(p, ",") && shard_parser_expect_keyword(p, "type") &&
         shard_parser_expect(p, "=") && S_enum(p, st, "fft_type", "fft_type") && shard_parser_expect(p, ",") &&
         S_kw_dims(p, st, "length", "fft_length") && S_attr_dict(p, st) && S_colon_functional(p, st);
}

static void S_print_fft(shard_printer *pr, const shard_op *op) {
  static const char *const el[] = {"fft_type", "fft_length", NULL};
  shard_printer_puts(pr, " ");
  shard_printer_operands(pr, op, 0, op->num_operands);
  shard_printer_puts(pr, ", type = ");
  S_print_enum(pr, op, "fft_type", "fft_type");
  shard_printer_puts(pr, ", length = ");
  S_print_dims(pr, shard_op_attr(op, "fft_length"));
  S_print_attr_dict(pr, op, el);
  S_print_colon_functional(pr, op);
}

// rng_bit_generator ::= operand ',' 'algorithm' '=' rng-algorithm attr-dict ':' function-type
static bool S_parse_rng_bit_generator(shard_parser *p, shard_op_state *st) {
  return shard_parser_operand(p, st) && shard_parser_expect(p, ",") && shard_parser_expect_keyword(p, "algorithm") &&
         shard_parser_expect(p, "=") && S_enum(p, st, "rng_algorithm", "rng_algorithm") && S_attr_dict(p, st) &&
         S_colon_functional(p, st);
}

static void S_print_rng_bit_generator(shard_printer *pr, const shard_op *op) {
  shard_printer_puts(pr, " ");
  shard_printer_operands(pr, op, 0, op->num_operands);
  shard_printer_puts(pr, ", algorithm = ");
  S_print_enum(pr, op, "rng_algorithm", "rng_algorithm");
  S_print_one_elided(pr, op, "rng_algorithm");
  S_print_colon_functional(pr, op);
}

// rng ::= operand ',' operand ',' operand ',' 'distribution' '=' rng-distribution
//         attr-dict ':' function-type
static bool S_parse_rng(shard_parser *p, shard_op_state *st) {
  for (int i = 0; i < 3; i++)
    if (!shard_parser_operand(p, st) || !shard_parser_expect(p, ",")) return false;
  return shard_parser_expect_keyword(p, "distribution") && shard_parser_expect(p, "=") &&
         S_enum(p, st, "rng_distribution", "rng_distribution") && S_attr_dict(p, st) && S_colon_functional(p, st);
}

static void S_print_rng(shard_printer *pr, const shard_op *op) {
  shard_printer_puts(pr, " ");
  shard_printer_operands(pr, op, 0, op->num_operands);
  shard_printer_puts(pr, ", distribution = ");
  S_print_enum(pr, op, "rng_distribution", "rng_distribution");
  S_print_one_elided(pr, op, "rng_distribution");
  S_print_colon_functional(pr, op);
}

// cholesky ::= operand (',' 'lower' '=' bool)? attr-dict ':' (type | function-type)
static bool S_parse_cholesky(shard_parser *p, shard_op_state *st) {
  if (!shard_parser_operand(p, st)) return false;
  if (shard_parser_accept(p, ",")) {
    if (!shard_parser_expect_keyword(p, "lower") || !shard_parser_expect(p, "=")) return false;
    shard_span at = shard_parser_here(p);
    shard_attr *a;
    if (!shard_parser_attr(p, &a)) return false;
    if (a->kind != SHARD_ATTR_BOOL) return shard_parser_error_at(p, at, "expected 'true' or 'false'");
    shard_op_state_add_attr(st, "lower", a, true);
  }
  return S_attr_dict(p, st) && S_colon_same(p, st);
}

static void S_print_cholesky(shard_printer *pr, const shard_op *op) {
  const shard_attr *lower = shard_op_attr(op, "lower");
  shard_printer_puts(pr, " ");
  shard_printer_operands(pr, op, 0, op->num_operands);
  /* the optional group is printed when the property is not its default */
  if (lower && !(lower->kind == SHARD_ATTR_BOOL && !lower->u.boolean)) {
    shard_printer_puts(pr, ", lower = ");
    shard_printer_attr(pr, lower);
  }
  S_print_one_elided(pr, op, "lower");
  S_print_colon_same(pr, op);
}

// reduce_precision ::= operand ',' 'format' '=' exponent-mantissa attr-dict ':' (type | function-type)
// exponent-mantissa ::= `e` int `m` int, written as one word (e5m10)
static bool S_parse_reduce_precision(shard_parser *p, shard_op_state *st) {
  if (!shard_parser_operand(p, st) || !shard_parser_expect(p, ",") || !shard_parser_expect_keyword(p, "format") ||
      !shard_parser_expect(p, "="))
    return false;
  shard_span at = shard_parser_here(p);
  const char *w;
  if (!shard_parser_ident(p, &w)) return false;
  char *end;
  long e = -1, m = -1;
  if (w[0] == 'e' && w[1] >= '0' && w[1] <= '9') {
    e = strtol(w + 1, &end, 10);
    if (*end == 'm' && end[1] >= '0' && end[1] <= '9') {
      m = strtol(end + 1, &end, 10);
      if (*end) m = -1;
    }
  }
  if (e < 0 || m < 0) return shard_parser_error_at(p, at, "expected exponent mantissa in format e#m#, saw %s", w);
  shard_arena *a = shard_parser_arena(p);
  S_add(p, st, "exponent_bits", shard_attr_int(a, e, S_type_named(p, "i32")), at);
  S_add(p, st, "mantissa_bits", shard_attr_int(a, m, S_type_named(p, "i32")), at);
  return S_attr_dict(p, st) && S_colon_same(p, st);
}

static void S_print_reduce_precision(shard_printer *pr, const shard_op *op) {
  static const char *const el[] = {"exponent_bits", "mantissa_bits", NULL};
  shard_printer_puts(pr, " ");
  shard_printer_operands(pr, op, 0, op->num_operands);
  shard_printer_puts(pr, ", format = e");
  S_print_int(pr, shard_op_attr(op, "exponent_bits"));
  shard_printer_puts(pr, "m");
  S_print_int(pr, shard_op_attr(op, "mantissa_bits"));
  S_print_attr_dict(pr, op, el);
  S_print_colon_same(pr, op);
}

// einsum ::= operand ',' operand ',' 'config' '=' string attr-dict ':' function-type
// unary_einsum ::= operand ',' 'config' '=' string attr-dict ':' function-type
static bool S_parse_einsum(shard_parser *p, shard_op_state *st) {
  do {
    if (!shard_parser_operand(p, st) || !shard_parser_expect(p, ",")) return false;
  } while (shard_parser_peek(p).kind == SHARD_TOK_PERCENT);
  if (!shard_parser_expect_keyword(p, "config") || !shard_parser_expect(p, "=")) return false;
  shard_span at = shard_parser_here(p);
  const char *s;
  uint32_t n;
  if (!shard_parser_string(p, &s, &n)) return false;
  S_add(p, st, "einsum_config", shard_attr_string(shard_parser_arena(p), s, n), at);
  return S_attr_dict(p, st) && S_colon_functional(p, st);
}

static void S_print_einsum(shard_printer *pr, const shard_op *op) {
  shard_printer_puts(pr, " ");
  shard_printer_operands(pr, op, 0, op->num_operands);
  shard_printer_puts(pr, ", config = ");
  const shard_attr *c = shard_op_attr(op, "einsum_config");
  if (c) shard_printer_attr(pr, c);
  else shard_printer_puts(pr, S_NULL_ATTR);
  S_print_one_elided(pr, op, "einsum_config");
  S_print_colon_functional(pr, op);
}

/* ---- dot, dot_general ------------------------------------------------------ */

// precision ::= 'precision' '=' '[' (precision-value (',' precision-value)*)? ']'
static bool S_parse_precision(shard_parser *p, shard_op_state *st) {
  if (!shard_parser_expect_keyword(p, "precision") || !shard_parser_expect(p, "=")) return false;
  shard_span at = shard_parser_here(p);
  shard_arena *a = shard_parser_arena(p);
  /* the usual [DEFAULT, DEFAULT] straight from the text */
  shard_tok items[4];
  uint32_t n, end = shard_parser_plain_ident_list(p, items, 4, &n);
  shard_attr *plain[4];
  for (uint32_t i = 0; end && i < n; i++) {
    int known = shard_shlo_enum_case(SHARD_SHLO_PRECISION, items[i].text, items[i].len);
    if (known < 0) end = 0;
    else plain[i] = shard_parser_precision(p, (uint32_t)known);
  }
  if (end) {
    shard_parser_skip_to(p, end);
    S_add(p, st, "precision_config", shard_attr_array(a, plain, n), at);
    return true;
  }
  if (!shard_parser_expect(p, "[")) return false;
  SHARD_SVEC(shard_attr *, 4) elems;
  SHARD_SVEC_INIT(elems);
  if (!shard_parser_accept(p, "]")) {
    do {
      /* a known case straight from the token: no span, intern or lookup by
       * the kind's name for each of the two values of every dot */
      shard_tok t = shard_parser_peek(p);
      int known = t.kind == SHARD_TOK_IDENT ? shard_shlo_enum_case(SHARD_SHLO_PRECISION, t.text, t.len) : -1;
      if (known >= 0) {
        shard_parser_next(p);
        SHARD_SVEC_PUSH(elems, shard_parser_precision(p, (uint32_t)known));
        continue;
      }
      shard_span vat = shard_parser_here(p);
      const char *v;
      if (!shard_parser_ident(p, &v) ||
          (!shard_shlo_enum_valid("precision", v) &&
           !shard_parser_error_at(p, vat, "expected precision to be one of: %s", shard_shlo_enum_cases("precision")))) {
        SHARD_SVEC_FREE(elems);
        return false;
      }
      SHARD_SVEC_PUSH(elems, shard_shlo_enum_encode(a, "precision", v));
    } while (shard_parser_accept(p, ","));
    if (!shard_parser_expect(p, "]")) {
      SHARD_SVEC_FREE(elems);
      return false;
    }
  }
  shard_attr *arr = shard_attr_array(a, elems.items, elems.len);
  SHARD_SVEC_FREE(elems);
  S_add(p, st, "precision_config", arr, at);
  return true;
}

static void S_print_precision(shard_printer *pr, const shard_op *op) {
  const shard_attr *a = shard_op_attr(op, "precision_config");
  if (!a) return;
  shard_printer_puts(pr, ", precision = ");
  if (a->kind != SHARD_ATTR_ARRAY) {
    shard_printer_attr(pr, a);
    return;
  }
  shard_printer_puts(pr, "[");
  for (uint32_t i = 0; i < a->u.array.num; i++) {
    char v[32];
    if (i) shard_printer_puts(pr, ", ");
    if (shard_shlo_enum_decode(a->u.array.elems[i], "precision", v, sizeof v)) shard_printer_puts(pr, v);
    else shard_printer_attr(pr, a->u.array.elems[i]);
  }
  shard_printer_puts(pr, "]");
}

// dot ::= operand ',' operand (',' precision)? attr-dict ':' function-type
static bool S_parse_dot(shard_parser *p, shard_op_state *st) {
  if (!shard_parser_operand(p, st) || !shard_parser_expect(p, ",") || !shard_parser_operand(p, st)) return false;
  if (shard_parser_accept(p, ",") && !S_parse_precision(p, st)) return false;
  return S_attr_dict(p, st) && S_colon_functional(p, st);
}

static void S_print_dot(shard_printer *pr, const shard_op *op) {
  shard_printer_puts(pr, " ");
  shard_printer_operands(pr, op, 0, op->num_operands);
  S_print_precision(pr, op);
  S_print_one_elided(pr, op, "precision_config");
  S_print_colon_functional(pr, op);
}

// lhs-rhs-dims ::= int-list 'x' int-list
static bool S_parse_lhs_rhs(shard_parser *p, shlo_dims *lhs, shlo_dims *rhs) {
  return S_int_list(p, lhs) && shard_parser_expect_keyword(p, "x") && S_int_list(p, rhs);
}

/* Captures a balanced `<...>` group verbatim (the stripped dot algorithm). */
static bool S_angle_group(shard_parser *p, const char **out) {
  shard_span at = shard_parser_here(p);
  if (!shard_parser_expect(p, "<")) return false;
  int depth = 1;
  shard_tok t;
  while (depth > 0) {
    t = shard_parser_next(p);
    if (t.kind == SHARD_TOK_EOF || t.kind == SHARD_TOK_ERROR) return shard_parser_error_at(p, at, "unbalanced '<'");
    if (shard_tok_is(&t, "<")) depth++;
    else if (shard_tok_is(&t, ">")) depth--;
  }
  const shard_source *src = shard_parser_source(p);
  *out = shard_arena_strndup(shard_parser_arena(p), src->text + at.off, t.off + t.len - at.off);
  return true;
}

// dot_general ::= operand ',' operand ',' ('batching_dims' '=' lhs-rhs-dims ',')?
//                 'contracting_dims' '=' lhs-rhs-dims (',' precision)? (',' 'algorithm' '=' '<' ... '>')?
//                 attr-dict ':' function-type
/* The attribute of dimension numbers d, its numbers shared with every dot
 * of this parse that has the same (they are read-only; each op keeps an
 * attribute of its own, which shard_op_mark_mhlo may change). */
static shard_attr *S_dot_dims_attr(shard_parser *p, const shard_dot_dims *d) {
  enum { MAX = 64 };
  const shard_i64s *lists[4] = {&d->lhs_batch, &d->rhs_batch, &d->lhs_contract, &d->rhs_contract};
  int64_t key[4 + MAX];
  size_t n = 4;
  for (int i = 0; i < 4; i++) {
    key[i] = (int64_t)lists[i]->n;
    if (n + lists[i]->n > 4 + MAX) return shard_attr_dot_dims_new(shard_parser_arena(p), d);
    for (uint32_t k = 0; k < lists[i]->n; k++) key[n++] = lists[i]->v[k];
  }
  shard_dot_dims *shared = shard_parser_memo_get(p, key, n * sizeof key[0]);
  if (shared) {
    shard_attr *a = shard_attr_new(shard_parser_arena(p), SHARD_ATTR_SHLO_DOT);
    a->u.dot = shared;
    return a;
  }
  shard_attr *a = shard_attr_dot_dims_new(shard_parser_arena(p), d);
  shard_parser_memo_put(p, key, n * sizeof key[0], a->u.dot);
  return a;
}

static bool S_parse_dot_general(shard_parser *p, shard_op_state *st) {
  if (!shard_parser_operand(p, st) || !shard_parser_expect(p, ",") || !shard_parser_operand(p, st) ||
      !shard_parser_expect(p, ","))
    return false;
  shlo_dims l[4] = {{0}};
  shard_span at = shard_parser_here(p);
  bool ok = true;
  if (shard_parser_accept_keyword(p, "batching_dims"))
    ok = shard_parser_expect(p, "=") && S_parse_lhs_rhs(p, &l[0], &l[1]) && shard_parser_expect(p, ",");
  ok = ok && shard_parser_expect_keyword(p, "contracting_dims") && shard_parser_expect(p, "=") &&
       S_parse_lhs_rhs(p, &l[2], &l[3]);
  if (ok) {
    shard_dot_dims d = {{l[0].vals, l[0].num}, {l[1].vals, l[1].num}, {l[2].vals, l[2].num}, {l[3].vals, l[3].num}};
    S_add(p, st, "dot_dimension_numbers", S_dot_dims_attr(p, &d), at);
  }
  for (int i = 0; i < 4; i++) shard_shlo_dims_free(&l[i]);
  if (!ok) return false;
  if (shard_parser_accept(p, ",")) {
    bool algorithm = shard_parser_accept_keyword(p, "algorithm");
    if (!algorithm) {
      if (!S_parse_precision(p, st)) return false;
      if (shard_parser_accept(p, ",")) {
        if (!shard_parser_expect_keyword(p, "algorithm")) return false;
        algorithm = true;
      }
    }
    if (algorithm) {
      if (!shard_parser_expect(p, "=")) return false;
      shard_span aat = shard_parser_here(p);
      const char *body = NULL;
      if (!S_angle_group(p, &body)) return false;
      shard_arena *a = shard_parser_arena(p);
      S_add(p, st, "algorithm", shard_attr_raw(a, shard_arena_printf(a, "#stablehlo.dot_algorithm%s", body)), aat);
    }
  }
  return S_attr_dict(p, st) && S_colon_functional(p, st);
}

static void S_print_dot_general(shard_printer *pr, const shard_op *op) {
  static const char *const el[] = {"dot_dimension_numbers", "precision_config", "algorithm", NULL};
  shard_printer_puts(pr, " ");
  shard_printer_operands(pr, op, 0, op->num_operands);
  shard_printer_puts(pr, ", ");
  const shard_attr *dd = shard_op_attr(op, "dot_dimension_numbers");
  const shard_dot_dims *d = shard_attr_dot_dims(dd);
  if (d) {
    if (d->lhs_batch.n || d->rhs_batch.n) {
      shard_printer_puts(pr, "batching_dims = ");
      S_print_list(pr, d->lhs_batch);
      shard_printer_puts(pr, " x ");
      S_print_list(pr, d->rhs_batch);
      shard_printer_puts(pr, ", ");
    }
    shard_printer_puts(pr, "contracting_dims = ");
    S_print_list(pr, d->lhs_contract);
    shard_printer_puts(pr, " x ");
    S_print_list(pr, d->rhs_contract);
  } else if (dd) {
    shard_printer_attr(pr, dd);
  } else {
    shard_printer_puts(pr, S_NULL_ATTR);
  }
  S_print_precision(pr, op);
  const shard_attr *alg = shard_op_attr(op, "algorithm");
  if (alg) {
    shard_printer_puts(pr, ", algorithm = ");
    const char *prefix = "#stablehlo.dot_algorithm";
    if (alg->kind == SHARD_ATTR_RAW && !strncmp(alg->u.raw, prefix, strlen(prefix)))
      shard_printer_puts(pr, alg->u.raw + strlen(prefix));
    else shard_printer_attr(pr, alg);
  }
  S_print_attr_dict(pr, op, el);
  S_print_colon_functional(pr, op);
}

/* ---- composite ------------------------------------------------------------ */

// composite ::= string-literal (operand (',' operand)*)? attr-dict ':' function-type
// (`$name $inputs attr-dict : functional-type`; decomposition, composite_attributes
// and version are in the attr-dict, the last two elided at their defaults)
static bool S_parse_composite(shard_parser *p, shard_op_state *st) {
  shard_span at = shard_parser_here(p);
  const char *name;
  uint32_t len;
  if (!shard_parser_string(p, &name, &len)) return false;
  S_add(p, st, "name", shard_attr_string(shard_parser_arena(p), name, len), at);
  return shard_parser_operand_list(p, st) && S_attr_dict(p, st) && S_colon_functional(p, st);
}

static void S_print_composite(shard_printer *pr, const shard_op *op) {
  const shard_attr *n = shard_op_attr(op, "name");
  shard_printer_puts(pr, " ");
  if (n && n->kind == SHARD_ATTR_STRING) shard_buf_put_escaped(shard_printer_buf(pr), n->u.str.data, n->u.str.len);
  else shard_printer_puts(pr, S_NULL_ATTR);
  if (op->num_operands) shard_printer_puts(pr, " ");
  shard_printer_operands(pr, op, 0, op->num_operands);
  S_print_one_elided(pr, op, "name");
  S_print_colon_functional(pr, op);
}

/* ---- custom_call, optimization_barrier ------------------------------------- */

// custom_call ::= symbol-ref-id '(' (operand (',' operand)*)? ')' attr-dict ':' function-type
static bool S_parse_custom_call(shard_parser *p, shard_op_state *st) {
  shard_span at = shard_parser_here(p);
  const char *target;
  if (!shard_parser_symbol(p, &target)) return false;
  S_add(p, st, "call_target_name", shard_attr_string(shard_parser_arena(p), target, (uint32_t)strlen(target)), at);
  if (!shard_parser_expect(p, "(")) return false;
  if (!shard_parser_accept(p, ")") && !(shard_parser_operand_list(p, st) && shard_parser_expect(p, ")"))) return false;
  return S_attr_dict(p, st) && S_colon_functional(p, st);
}

static void S_print_custom_call(shard_printer *pr, const shard_op *op) {
  const shard_attr *t = shard_op_attr(op, "call_target_name");
  shard_printer_puts(pr, " ");
  if (t && t->kind == SHARD_ATTR_STRING) {
    /* printSymbolName: bare when it is a bare identifier, quoted otherwise */
    char *name = shard_xstrndup(t->u.str.data, t->u.str.len);
    shard_printer_puts(pr, "@");
    if (strlen(name) == t->u.str.len && S_is_bare_id(name)) shard_printer_puts(pr, name);
    else shard_buf_put_escaped(shard_printer_buf(pr), t->u.str.data, t->u.str.len);
    free(name);
  } else {
    shard_printer_puts(pr, S_NULL_ATTR);
  }
  shard_printer_puts(pr, "(");
  shard_printer_operands(pr, op, 0, op->num_operands);
  shard_printer_puts(pr, ")");
  S_print_one_elided(pr, op, "call_target_name");
  S_print_colon_functional(pr, op);
}

// optimization_barrier ::= attr-dict (operand (',' operand)* ':' type (',' type)* | '(' ')')
static bool S_parse_optimization_barrier(shard_parser *p, shard_op_state *st) {
  if (!S_attr_dict(p, st)) return false;
  if (shard_parser_accept(p, "(")) return shard_parser_expect(p, ")");
  if (!shard_parser_operand_list(p, st) || !shard_parser_expect(p, ":")) return false;
  shard_span at = shard_parser_here(p);
  uint32_t before = st->operand_types.len;
  if (!S_type_list(p, &st->operand_types)) return false;
  if (st->operand_types.len - before != st->operands.len)
    return shard_parser_error_at(p, at, "%u operands present, but expected %u", st->operands.len,
                                 st->operand_types.len - before);
  for (uint32_t i = before; i < st->operand_types.len; i++)
    SHARD_VEC_PUSH(st->result_types, st->operand_types.items[i]);
  return true;
}

static void S_print_optimization_barrier(shard_printer *pr, const shard_op *op) {
  S_print_attr_dict(pr, op, NULL);
  if (!op->num_operands) {
    shard_printer_puts(pr, "()");
    return;
  }
  shard_printer_puts(pr, " ");
  shard_printer_operands(pr, op, 0, op->num_operands);
  shard_printer_puts(pr, " : ");
  shard_printer_operand_types(pr, op);
}

/* ---- convolution ---------------------------------------------------------- */

/* conv-dim-list ::= '[' (int | letter) (',' (int | letter))* ']'
 * `letters` are the non-spatial dimensions this list must name once each
 * ("bf" for input and output, "io" for the kernel); the integers must be the
 * spatial dimensions 0..n-1, once each. Appends the canonical text to b. */
static bool S_parse_conv_list(shard_parser *p, const char *letters, shard_buf *b) {
  if (!shard_parser_expect(p, "[")) return false;
  bool seen_letter[2] = {false, false};
  SHARD_VEC(int64_t) spatial = {0};
  bool ok = true;
  shard_buf_putc(b, '[');
  do {
    shard_span at = shard_parser_here(p);
    shard_tok t = shard_parser_peek(p);
    if (spatial.len + seen_letter[0] + seen_letter[1]) shard_buf_puts(b, ", ");
    if (t.kind == SHARD_TOK_INT) {
      int64_t v;
      if (!(ok = shard_parser_int(p, &v))) break;
      for (uint32_t i = 0; i < spatial.len; i++)
        if (spatial.items[i] == v)
          ok = shard_parser_error_at(p, at, "Duplicate entries for spatial dimension %" PRId64, v);
      if (!ok) break;
      SHARD_VEC_PUSH(spatial, v);
      shard_buf_printf(b, "%" PRId64, v);
    } else {
      const char *w;
      if (!(ok = shard_parser_ident(p, &w))) break;
      int which = strlen(w) == 1 ? (w[0] == letters[0] ? 0 : w[0] == letters[1] ? 1 : -1) : -1;
      if (which < 0 || seen_letter[which]) {
        ok = shard_parser_error_at(p, at, "Unexpected dimension %s, expecting %s", w,
                                   !seen_letter[0] && !seen_letter[1] ? (letters[0] == 'b' ? "b, f" : "i, o")
                                   : !seen_letter[0]                  ? (letters[0] == 'b' ? "b" : "i")
                                                                      : (letters[0] == 'b' ? "f" : "o"));
        break;
      }
      seen_letter[which] = true;
      shard_buf_putc(b, w[0]);
    }
  } while (shard_parser_accept(p, ","));
  if (ok && (!seen_letter[0] || !seen_letter[1])) {
    char missing[8] = "";
    if (!seen_letter[0]) snprintf(missing, sizeof missing, "%c", letters[0]);
    if (!seen_letter[1])
      snprintf(missing + strlen(missing), sizeof missing - strlen(missing), "%s%c", *missing ? ", " : "", letters[1]);
    ok = shard_parser_error(p, "Expected dimensions %s not specified", missing);
  }
  for (uint32_t d = 0; ok && d < spatial.len; d++) {
    bool found = false;
    for (uint32_t i = 0; i < spatial.len; i++) found |= spatial.items[i] == (int64_t)d;
    if (!found) ok = shard_parser_error(p, "Expected spatial dimensions %u not specified", d);
  }
  SHARD_VEC_FREE(spatial);
  if (!ok || !shard_parser_expect(p, "]")) return false;
  shard_buf_putc(b, ']');
  return true;
}

// conv-dims ::= conv-dim-list 'x' conv-dim-list '->' conv-dim-list
static bool S_parse_conv_dims(shard_parser *p, shard_op_state *st) {
  shard_span at = shard_parser_here(p);
  shard_buf b;
  shard_buf_init(&b);
  shard_buf_puts(&b, "#stablehlo.conv<");
  bool ok = S_parse_conv_list(p, "bf", &b) && shard_parser_expect_keyword(p, "x") &&
            (shard_buf_putc(&b, 'x'), S_parse_conv_list(p, "io", &b)) && shard_parser_expect(p, "->") &&
            (shard_buf_puts(&b, "->"), S_parse_conv_list(p, "bf", &b));
  if (ok) {
    /* the lists were checked above: the one decoder of the attribute makes the struct */
    shard_buf_putc(&b, '>');
    shard_arena *a = shard_parser_arena(p);
    shard_attr *dn = shard_attr_shlo_decode(a, shard_buf_str(&b));
    S_add(p, st, "dimension_numbers", dn ? dn : shard_attr_raw(a, shard_arena_strdup(a, shard_buf_str(&b))), at);
  }
  shard_buf_free(&b);
  return ok;
}

// window ::= '{' (window-entry (',' window-entry)*)? '}'
// window-entry ::= ('stride' | 'lhs_dilate' | 'rhs_dilate' | 'reverse') '=' int-list
//                | 'pad' '=' '[' ('[' int ',' int ']' (',' '[' int ',' int ']')*)? ']'
static bool S_parse_window(shard_parser *p, shard_op_state *st) {
  static const char *const keys[] = {"stride", "pad", "lhs_dilate", "rhs_dilate", "reverse"};
  static const char *const names[] = {"window_strides", "padding", "lhs_dilation", "rhs_dilation", "window_reversal"};
  bool seen[5] = {false};
  shard_arena *a = shard_parser_arena(p);
  if (!shard_parser_expect(p, "{")) return false;
  while (shard_parser_peek(p).kind == SHARD_TOK_IDENT) {
    shard_span at = shard_parser_here(p);
    const char *k;
    if (!shard_parser_ident(p, &k)) return false;
    int which = -1;
    for (int i = 0; i < 5; i++)
      if (!strcmp(k, keys[i]) && !seen[i]) which = i;
    if (which < 0) return shard_parser_error_at(p, at, "Unexpected keyword %s", k);
    seen[which] = true;
    if (!shard_parser_expect(p, "=")) return false;
    shard_span vat = shard_parser_here(p);
    if (which == 1) {
      SHARD_VEC(int64_t) v = {0};
      bool ok = shard_parser_expect(p, "[");
      if (ok && !shard_parser_accept(p, "]")) {
        do {
          int64_t lo, hi;
          ok = shard_parser_expect(p, "[") && shard_parser_int(p, &lo) && shard_parser_expect(p, ",") &&
               shard_parser_int(p, &hi) && shard_parser_expect(p, "]");
          if (!ok) break;
          SHARD_VEC_PUSH(v, lo);
          SHARD_VEC_PUSH(v, hi);
        } while (shard_parser_accept(p, ","));
        ok = ok && shard_parser_expect(p, "]");
      }
      if (ok) S_add(p, st, names[which], shard_shlo_dense_pairs(a, v.items, v.len / 2), vat);
      SHARD_VEC_FREE(v);
      if (!ok) return false;
    } else if (which == 4) {
      /* reverse = [false, true] (also written [0, 1]) */
      SHARD_VEC(int64_t) v = {0};
      bool ok = shard_parser_expect(p, "[");
      if (ok && !shard_parser_accept(p, "]")) {
        do {
          int64_t b;
          if (shard_parser_accept_keyword(p, "true")) b = 1;
          else if (shard_parser_accept_keyword(p, "false")) b = 0;
          else if (!(ok = shard_parser_int(p, &b))) break;
          SHARD_VEC_PUSH(v, b != 0);
        } while (shard_parser_accept(p, ","));
        ok = ok && shard_parser_expect(p, "]");
      }
      if (ok) {
        shard_attr *attr = shard_attr_dense_i64(a, v.items, v.len);
        attr->u.dense_array.elem = "i1";
        S_add(p, st, names[which], attr, vat);
      }
      SHARD_VEC_FREE(v);
      if (!ok) return false;
    } else {
      shlo_dims d;
      if (!S_int_list(p, &d)) return false;
      S_add(p, st, names[which], shard_attr_dense_i64(a, d.vals, d.num), vat);
      shard_shlo_dims_free(&d);
    }
    if (!shard_parser_accept(p, ",")) break;
  }
  return shard_parser_expect(p, "}");
}

static void S_print_window(shard_printer *pr, const shard_op *op) {
  static const char *const keys[] = {"stride", "pad", "lhs_dilate", "rhs_dilate", "reverse"};
  static const char *const names[] = {"window_strides", "padding", "lhs_dilation", "rhs_dilation", "window_reversal"};
  bool first = true;
  for (int i = 0; i < 5; i++) {
    const shard_attr *a = shard_op_attr(op, names[i]);
    if (!a) continue;
    shard_printer_printf(pr, "%s%s = ", first ? "" : ", ", keys[i]);
    first = false;
    if (i == 4 && a->kind == SHARD_ATTR_DENSE_ARRAY) {
      /* StableHLO prints the reversal flags as booleans */
      shard_printer_puts(pr, "[");
      for (uint32_t k = 0; k < a->u.dense_array.num; k++)
        shard_printer_printf(pr, "%s%s", k ? ", " : "", a->u.dense_array.vals[k] ? "true" : "false");
      shard_printer_puts(pr, "]");
      continue;
    }
    if (i != 1) {
      S_print_dims(pr, a);
      continue;
    }
    shard_i64s v;
    if (a->kind == SHARD_ATTR_DENSE && shard_attr_i64_list(a, &v) && v.n % 2 == 0) {
      shard_printer_puts(pr, "[");
      for (uint32_t j = 0; j < v.n; j += 2)
        shard_printer_printf(pr, "%s[%" PRId64 ", %" PRId64 "]", j ? ", " : "", v.v[j], v.v[j + 1]);
      shard_printer_puts(pr, "]");
    } else {
      shard_printer_attr(pr, a);
    }
  }
}

// convolution ::= '(' operand ',' operand ')' 'dim_numbers' '=' conv-dims ','
//                 'window' '=' window attr-dict ':' function-type
static bool S_parse_convolution(shard_parser *p, shard_op_state *st) {
  return shard_parser_expect(p, "(") && shard_parser_operand_list(p, st) && shard_parser_expect(p, ")") &&
         shard_parser_expect_keyword(p, "dim_numbers") && shard_parser_expect(p, "=") && S_parse_conv_dims(p, st) &&
         shard_parser_expect(p, ",") && shard_parser_expect_keyword(p, "window") && shard_parser_expect(p, "=") &&
         S_parse_window(p, st) && S_attr_dict(p, st) && S_colon_functional(p, st);
}

static void S_print_convolution(shard_printer *pr, const shard_op *op) {
  static const char *const el[] = {"dimension_numbers", "window_strides",  "padding", "lhs_dilation",
                                   "rhs_dilation",      "window_reversal", NULL};
  shard_printer_puts(pr, "(");
  shard_printer_operands(pr, op, 0, op->num_operands);
  shard_printer_puts(pr, ") dim_numbers = ");
  const shard_attr *dn = shard_op_attr(op, "dimension_numbers");
  const shard_conv_dims *cd = shard_attr_conv_dims(dn);
  if (!(cd && shard_conv_dims_print_body(shard_printer_buf(pr), cd))) {
    if (dn) shard_printer_attr(pr, dn);
    else shard_printer_puts(pr, S_NULL_ATTR);
  }
  shard_printer_puts(pr, ", window = {");
  S_print_window(pr, op);
  shard_printer_puts(pr, "}");
  S_print_attr_dict(pr, op, el);
  S_print_colon_functional(pr, op);
}

/* ---- while ---------------------------------------------------------------- */

// while ::= '(' (value-name '=' operand (',' value-name '=' operand)*)? ')'
//           (':' type (',' type)*)? ('attributes' attr-dict)? 'cond' region 'do' region
// The iteration names declare the entry block arguments of both regions.
static bool S_parse_while(shard_parser *p, shard_op_state *st) {
  SHARD_VEC(shard_arg_decl) args = {0};
  bool ok = shard_parser_expect(p, "(");
  if (ok && !shard_parser_accept(p, ")")) {
    do {
      shard_arg_decl d;
      memset(&d, 0, sizeof d);
      ok = shard_parser_value_name(p, &d.ref) && shard_parser_expect(p, "=") && shard_parser_operand(p, st);
      if (!ok) break;
      SHARD_VEC_PUSH(args, d);
    } while (shard_parser_accept(p, ","));
    ok = ok && shard_parser_expect(p, ")");
  }
  if (ok && args.len) {
    ok = shard_parser_expect(p, ":");
    shard_span at = shard_parser_here(p);
    uint32_t before = st->result_types.len;
    ok = ok && S_type_list(p, &st->result_types);
    if (ok && st->result_types.len - before != args.len)
      ok =
          shard_parser_error_at(p, at, "%u operands present, but expected %u", args.len, st->result_types.len - before);
    for (uint32_t i = 0; ok && i < args.len; i++) {
      args.items[i].type = st->result_types.items[before + i];
      SHARD_VEC_PUSH(st->operand_types, args.items[i].type);
    }
  }
  if (ok && shard_parser_accept_keyword(p, "attributes")) ok = S_attr_dict(p, st);
  ok = ok && shard_parser_expect_keyword(p, "cond") && shard_parser_region(p, st, args.items, args.len) &&
       shard_parser_expect_keyword(p, "do") && shard_parser_region(p, st, args.items, args.len);
  SHARD_VEC_FREE(args);
  return ok;
}

static void S_print_while(shard_printer *pr, const shard_op *op) {
  const shard_block *body = op->num_regions == 2 ? op->regions[1].first : NULL;
  shard_printer_puts(pr, "(");
  for (uint32_t i = 0; i < op->num_operands; i++) {
    if (i) shard_printer_puts(pr, ", ");
    if (body && i < body->num_args) shard_printer_value(pr, &body->args[i]);
    else shard_printer_puts(pr, "<<UNKNOWN SSA VALUE>>");
    shard_printer_puts(pr, " = ");
    shard_printer_operands(pr, op, i, i + 1);
  }
  shard_printer_puts(pr, ")");
  if (op->num_operands) {
    shard_printer_puts(pr, " : ");
    shard_printer_operand_types(pr, op);
  }
  if (op->num_attrs) {
    shard_printer_puts(pr, " attributes");
    shard_printer_attr_dict_all(pr, op, NULL);
  }
  /* StableHLO starts `cond` on a new line; recent MLIR indents it one level
   * past the op (FileCheck ignores the leading blanks either way). */
  shard_printer_newline(pr);
  shard_printer_puts(pr, "  cond");
  if (op->num_regions > 0) shard_printer_region(pr, &op->regions[0], false, false);
  shard_printer_puts(pr, " do");
  if (op->num_regions > 1) shard_printer_region(pr, &op->regions[1], false, false);
}

/* ---- reduce --------------------------------------------------------------- */

/* The binary ops that may appear in reduce's compact form: commutative, no
 * regions, one result (isCommutativeNoRegionMatchingDialect). */
static bool S_is_compact_reducer(const char *name) {
  static const char *const ops[] = {"stablehlo.add",      "stablehlo.and", "stablehlo.maximum", "stablehlo.minimum",
                                    "stablehlo.multiply", "stablehlo.or",  "stablehlo.xor"};
  for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
    if (!strcmp(name, ops[i])) return true;
  return false;
}

/* Builds the body of `applies <op>`: ^bb0(%lhs: T, %rhs: T): %r = op %lhs, %rhs
 * : T; stablehlo.return %r, with T the 0-d tensor of the first input's element
 * type. */
static bool S_build_compact_body(shard_parser *p, shard_op_state *st, const char *inner, unsigned alias,
                                 shard_span at) {
  if (!st->operand_types.len) return shard_parser_error_at(p, at, "input types missing in reduce-op function type");
  const shard_type *in = st->operand_types.items[0];
  if (!in || (in->kind != SHARD_TYPE_TENSOR && in->kind != SHARD_TYPE_UNRANKED_TENSOR))
    return shard_parser_error_at(p, at, "expected a tensor input type");
  shard_arena *a = shard_parser_arena(p);
  shard_type *scalar = shard_type_tensor(a, 0, NULL, in->elem, NULL);
  shard_region *r = SHARD_NEW(a, shard_region);
  shard_block *b = shard_region_add_block(a, r);
  shard_type *scalars[2] = {scalar, scalar};
  shard_block_add_args(a, b, 2, scalars);
  shard_value *lhs = &b->args[0], *rhs = &b->args[1];
  b->arg_info[0].span = b->arg_info[1].span = at;
  shard_value *ins[2] = {lhs, rhs};
  shard_op *op = shard_op_create(a, inner, 2, ins, 1, &scalar, 0);
  op->def = shard_op_def_lookup(inner, strlen(inner));
  op->flags |= alias;
  op->span = at;
  shard_block_append(b, op);
  shard_value *res = &op->results[0];
  shard_op *ret = shard_op_create(a, "stablehlo.return", 1, &res, 0, NULL, 0);
  ret->def = shard_op_def_lookup("stablehlo.return", strlen("stablehlo.return"));
  ret->flags |= alias;
  ret->span = at;
  shard_block_append(b, ret);
  SHARD_VEC_PUSH(st->regions, r);
  return true;
}

// reduce ::= '(' operand 'init' ':' operand ')' (',' '(' operand 'init' ':' operand ')')*
//            ( 'applies' op-name 'across' 'dimensions' '=' int-list attr-dict ':' function-type
//            | 'across' 'dimensions' '=' int-list attr-dict ':' function-type
//              'reducer' ('(' arg ',' arg ')')+ region )
// arg ::= value-name ':' type loc?
// Operands are stored inputs first, then init values.
static bool S_parse_reduce(shard_parser *p, shard_op_state *st) {
  SHARD_VEC(shard_unresolved) inits = {0};
  bool ok = true;
  do {
    ok = shard_parser_expect(p, "(") && shard_parser_operand(p, st) && shard_parser_expect_keyword(p, "init") &&
         shard_parser_expect(p, ":") && shard_parser_operand(p, st) && shard_parser_expect(p, ")");
    if (!ok) break;
    SHARD_VEC_PUSH(inits, S_pop_operand(st));
  } while (shard_parser_accept(p, ","));
  for (uint32_t i = 0; ok && i < inits.len; i++) SHARD_VEC_PUSH(st->operands, inits.items[i]);
  SHARD_VEC_FREE(inits);
  if (!ok) return false;

  const char *inner = NULL;
  unsigned alias = 0;
  shard_span inner_at = shard_parser_here(p);
  if (shard_parser_accept_keyword(p, "applies")) {
    inner_at = shard_parser_here(p);
    if (!shard_parser_ident(p, &inner)) return false;
    const shard_op_def *d = shard_op_def_lookup(inner, strlen(inner));
    alias = shard_op_def_alias_flags(inner, strlen(inner), d); /* mhlo.reduce applies mhlo.add */
    if (alias) inner = d->name;
    if (!S_is_compact_reducer(inner))
      return shard_parser_error_at(p, inner_at,
                                   "expected the inner-op to be a commutative binary-op from the stablehlo dialect, "
                                   "with zero region, producing single result");
  }
  if (!shard_parser_expect_keyword(p, "across") || !S_kw_dims(p, st, "dimensions", "dimensions") ||
      !S_attr_dict(p, st) || !S_colon_functional(p, st))
    return false;
  if (inner) return S_build_compact_body(p, st, inner, alias, inner_at);

  if (!shard_parser_expect_keyword(p, "reducer")) return false;
  SHARD_VEC(shard_arg_decl) elems = {0}, accs = {0};
  while (ok && shard_parser_accept(p, "(")) {
    shard_arg_decl d[2];
    memset(d, 0, sizeof d);
    for (int k = 0; ok && k < 2; k++) {
      ok = (k == 0 || shard_parser_expect(p, ",")) && shard_parser_value_name(p, &d[k].ref) &&
           shard_parser_expect(p, ":") && shard_parser_type(p, &d[k].type) && shard_parser_optional_loc(p, &d[k].loc);
    }
    ok = ok && shard_parser_expect(p, ")");
    if (ok) {
      SHARD_VEC_PUSH(elems, d[0]);
      SHARD_VEC_PUSH(accs, d[1]);
    }
  }
  for (uint32_t i = 0; ok && i < accs.len; i++) SHARD_VEC_PUSH(elems, accs.items[i]);
  ok = ok && shard_parser_region(p, st, elems.items, elems.len);
  SHARD_VEC_FREE(elems);
  SHARD_VEC_FREE(accs);
  return ok;
}

/* isReduceEligibleForCompactPrint: one inner op, a commutative binary stablehlo
 * op on the two block arguments in order, all of type tensor<elem of input 0>,
 * whose result is what the block returns. */
static const shard_op *S_compact_inner(const shard_op *op) {
  if (op->num_regions != 1 || op->num_operands < 2) return NULL;
  const shard_block *b = op->regions[0].first;
  if (!b || b->next || b->num_args != 2) return NULL;
  const shard_op *inner = b->first;
  const shard_op *ret = inner ? inner->next : NULL;
  if (!inner || !ret || ret->next || strcmp(ret->name, "stablehlo.return") != 0) return NULL;
  if (!S_is_compact_reducer(inner->name) || inner->num_operands != 2 || inner->num_results != 1 ||
      inner->num_regions != 0)
    return NULL;
  const shard_type *t = inner->results[0].type;
  if (!S_types_equal(inner->operands[0].value->type, t) || !S_types_equal(inner->operands[1].value->type, t))
    return NULL;
  const shard_type *in = op->operands[0].value->type;
  if (!in || (in->kind != SHARD_TYPE_TENSOR && in->kind != SHARD_TYPE_UNRANKED_TENSOR) ||
      t->kind != SHARD_TYPE_TENSOR || t->rank != 0 || strcmp(t->elem, in->elem) != 0 || t->encoding)
    return NULL;
  if (inner->operands[0].value != &b->args[0] || inner->operands[1].value != &b->args[1]) return NULL;
  if (ret->num_operands != 1 || ret->operands[0].value != &inner->results[0]) return NULL;
  return inner;
}

static void S_print_region_arg(shard_printer *pr, const shard_value *v) {
  shard_printer_value(pr, v);
  shard_printer_puts(pr, ": ");
  shard_printer_type(pr, v->type);
}

static void S_print_reduce(shard_printer *pr, const shard_op *op) {
  uint32_t pairs = op->num_operands / 2;
  for (uint32_t i = 0; i < pairs; i++) {
    shard_printer_puts(pr, i ? ", (" : "(");
    shard_printer_operands(pr, op, i, i + 1);
    shard_printer_puts(pr, " init: ");
    shard_printer_operands(pr, op, i + pairs, i + pairs + 1);
    shard_printer_puts(pr, ")");
  }
  const shard_op *inner = S_compact_inner(op);
  if (inner) shard_printer_printf(pr, " applies %s%s", shard_op_written_prefix(inner), shard_op_written_rest(inner));
  shard_printer_puts(pr, " across dimensions = ");
  S_print_dims(pr, shard_op_attr(op, "dimensions"));
  S_print_one_elided(pr, op, "dimensions");
  S_print_colon_functional(pr, op);
  if (inner || op->num_regions != 1) return;
  shard_printer_newline(pr);
  shard_printer_puts(pr, "   reducer");
  const shard_block *b = op->regions[0].first;
  for (uint32_t i = 0; b && i < pairs && i + pairs < b->num_args; i++) {
    shard_printer_puts(pr, "(");
    S_print_region_arg(pr, &b->args[i]);
    shard_printer_puts(pr, ", ");
    S_print_region_arg(pr, &b->args[i + pairs]);
    shard_printer_puts(pr, ") ");
  }
  shard_printer_region(pr, &op->regions[0], false, false);
}

/* Both regions of a while name their arguments after the iteration values. */
static const char *S_while_arg_name(const shard_op *op, uint32_t region) {
  (void)op;
  (void)region;
  return "iterArg";
}

/* ---- the table ----------------------------------------------------------- */
static const char *const S_inh_all_gather[] = {"all_gather_dim", "replica_groups", "channel_handle",
                                               "use_global_device_ids", NULL};
static const char *const S_inh_all_reduce[] = {"replica_groups", "channel_handle", "use_global_device_ids", NULL};
static const char *const S_inh_all_to_all[] = {"split_dimension", "concat_dimension", "split_count",
                                               "replica_groups",  "channel_handle",   NULL};
static const char *const S_inh_batch_norm_grad[] = {"epsilon", "feature_index", NULL};
static const char *const S_inh_broadcast[] = {"broadcast_sizes", NULL};
static const char *const S_inh_broadcast_in_dim[] = {"broadcast_dimensions", NULL};
static const char *const S_inh_cbrt[] = {"result_accuracy", NULL};
static const char *const S_inh_cholesky[] = {"lower", NULL};
static const char *const S_inh_collective_broadcast[] = {"replica_groups", "channel_handle", "has_dynamic_root", NULL};
static const char *const S_inh_collective_permute[] = {"source_target_pairs", "channel_handle", NULL};
static const char *const S_inh_collective_reduce[] = {"replica_groups", "channel_handle", "use_global_device_ids",
                                                      "has_dynamic_root", NULL};
static const char *const S_inh_compare[] = {"comparison_direction", "compare_type", NULL};
static const char *const S_inh_composite[] = {"name", "composite_attributes", "decomposition", "version", NULL};
static const char *const S_inh_concatenate[] = {"dimension", NULL};
static const char *const S_inh_constant[] = {"value", NULL};
static const char *const S_inh_convolution[] = {"window_strides",      "padding",
                                                "lhs_dilation",        "rhs_dilation",
                                                "window_reversal",     "dimension_numbers",
                                                "feature_group_count", "batch_group_count",
                                                "precision_config",    NULL};
static const char *const S_inh_custom_call[] = {
    "call_target_name", "has_side_effect", "backend_config",         "api_version",    "called_computations",
    "operand_layouts",  "result_layouts",  "output_operand_aliases", "result_tilings", NULL};
static const char *const S_inh_dot[] = {"precision_config", NULL};
static const char *const S_inh_dot_general[] = {"dot_dimension_numbers", "precision_config", "algorithm", NULL};
static const char *const S_inh_dynamic_broadcast_in_dim[] = {"broadcast_dimensions", "known_expanding_dimensions",
                                                             "known_nonexpanding_dimensions", NULL};
static const char *const S_inh_dynamic_conv[] = {"window_strides",    "lhs_dilation",      "rhs_dilation",
                                                 "window_reversal",   "dimension_numbers", "feature_group_count",
                                                 "batch_group_count", "precision_config",  NULL};
static const char *const S_inh_dynamic_gather[] = {"dimension_numbers", "indices_are_sorted", NULL};
static const char *const S_inh_dynamic_iota[] = {"iota_dimension", NULL};
static const char *const S_inh_dynamic_slice[] = {"slice_sizes", NULL};
static const char *const S_inh_einsum[] = {"einsum_config", NULL};
static const char *const S_inh_fft[] = {"fft_type", "fft_length", NULL};
static const char *const S_inh_gather[] = {"dimension_numbers", "slice_sizes", "indices_are_sorted", NULL};
static const char *const S_inh_get_tuple_element[] = {"index", NULL};
static const char *const S_inh_infeed[] = {"infeed_config", "layout", NULL};
static const char *const S_inh_map[] = {"dimensions", NULL};
static const char *const S_inh_outfeed[] = {"outfeed_config", NULL};
static const char *const S_inh_pad[] = {"edge_padding_low", "edge_padding_high", "interior_padding", NULL};
static const char *const S_inh_recv[] = {"channel_handle", "is_host_transfer", "source_target_pairs", NULL};
static const char *const S_inh_reduce_precision[] = {"exponent_bits", "mantissa_bits", NULL};
static const char *const S_inh_reduce_scatter[] = {"scatter_dimension", "replica_groups", "channel_handle",
                                                   "use_global_device_ids", NULL};
static const char *const S_inh_reduce_window[] = {"window_dimensions", "window_strides", "base_dilations",
                                                  "window_dilations",  "padding",        NULL};
static const char *const S_inh_rng[] = {"rng_distribution", NULL};
static const char *const S_inh_rng_bit_generator[] = {"rng_algorithm", NULL};

/* StableHLO names the two results of rng_bit_generator. */
static const char *S_rng_bit_generator_names(const shard_op *op, uint32_t result) {
  (void)op;
  return result == 0 ? "output_state" : "output";
}
static const char *const S_inh_scatter[] = {"scatter_dimension_numbers", "indices_are_sorted", "unique_indices", NULL};
static const char *const S_inh_select_and_scatter[] = {"window_dimensions", "window_strides", "padding", NULL};
static const char *const S_inh_slice[] = {"start_indices", "limit_indices", "strides", NULL};
static const char *const S_inh_sort[] = {"dimension", "is_stable", NULL};
static const char *const S_inh_torch_index_select[] = {"dim", "batch_dims", NULL};
static const char *const S_inh_transpose[] = {"permutation", NULL};
static const char *const S_inh_triangular_solve[] = {"left_side", "lower", "unit_diagonal", "transpose_a", NULL};

/* ---- what the verifier demands before a custom form prints (opdef.h) ---- */

/* Requirements several ops share (an op's own list below otherwise). */
static const shard_attr_req S_required_broadcast_dimensions[] = {
    {.name = "broadcast_dimensions", .need = SHARD_NEED_DIMS},
    {0},
};
static const shard_attr_req S_required_dimension[] = {
    {.name = "dimension", .need = SHARD_NEED_INT},
    {0},
};
static const shard_attr_req S_required_dimensions[] = {
    {.name = "dimensions", .need = SHARD_NEED_DIMS},
    {0},
};
static const shard_attr_req S_required_iota_dimension[] = {
    {.name = "iota_dimension", .need = SHARD_NEED_INT},
    {0},
};
static const shard_attr_req S_required_stablehlo_broadcast[] = {
    {.name = "broadcast_sizes", .need = SHARD_NEED_DIMS},
    {0},
};
static const shard_op_signature S_signature_stablehlo_cholesky = {1, 1, SHARD_ARITY_ANY, 0};
static const shard_attr_req S_required_stablehlo_compare[] = {
    {.name = "compare_type", .need = SHARD_NEED_ENUM, .enum_kind = "comparison_type", .optional = true},
    {.name = "comparison_direction", .need = SHARD_NEED_ENUM, .enum_kind = "comparison_direction"},
    {0},
};
static const shard_op_signature S_signature_stablehlo_complex = {2, 1, SHARD_ARITY_ANY, 0};
static const shard_attr_req S_required_stablehlo_constant[] = {
    {.name = "value", .need = SHARD_NEED_PRESENT},
    {0},
};
static const shard_op_signature S_signature_stablehlo_constant = {0, 1, SHARD_ARITY_ANY, 0};
static const shard_attr_req S_required_stablehlo_convolution[] = {
    {.name = "dimension_numbers", .need = SHARD_NEED_SHLO, .sdy_kind = SHARD_ATTR_SHLO_CONV},
    {0},
};
static const shard_op_signature S_signature_stablehlo_convolution = {2, 1, SHARD_ARITY_ANY, 0};
static const shard_op_signature S_signature_stablehlo_create_token = {0, 1, SHARD_ARITY_ANY, 0};
static const shard_attr_req S_required_stablehlo_composite[] = {
    {.name = "name", .need = SHARD_NEED_STRING},
    {.name = "decomposition", .need = SHARD_NEED_SYMREF},
    {0},
};
static const shard_attr_req S_required_stablehlo_custom_call[] = {
    {.name = "call_target_name", .need = SHARD_NEED_STRING},
    {0},
};
static const shard_op_signature S_signature_stablehlo_dot = {2, 1, SHARD_ARITY_ANY, 0};
static const shard_attr_req S_required_stablehlo_dot_general[] = {
    {.name = "dot_dimension_numbers", .need = SHARD_NEED_SHLO, .sdy_kind = SHARD_ATTR_SHLO_DOT},
    {0},
};
static const shard_op_signature S_signature_stablehlo_dot_general = {2, 1, SHARD_ARITY_ANY, 0};
static const shard_attr_req S_required_stablehlo_dynamic_slice[] = {
    {.name = "slice_sizes", .need = SHARD_NEED_DIMS},
    {0},
};
static const shard_attr_req S_required_stablehlo_einsum[] = {
    {.name = "einsum_config", .need = SHARD_NEED_STRING},
    {0},
};
static const shard_attr_req S_required_stablehlo_fft[] = {
    {.name = "fft_length", .need = SHARD_NEED_DIMS},
    {.name = "fft_type", .need = SHARD_NEED_ENUM, .enum_kind = "fft_type"},
    {0},
};
static const shard_attr_req S_required_stablehlo_get_tuple_element[] = {
    {.name = "index", .need = SHARD_NEED_INT},
    {0},
};
static const shard_op_signature S_signature_stablehlo_iota = {0, 1, SHARD_ARITY_ANY, 0};
static const shard_op_signature S_signature_stablehlo_optimization_barrier = {
    SHARD_ARITY_ANY, SHARD_ARITY_ANY, SHARD_ARITY_ANY, SHARD_SIG_OPERANDS_ARE_RESULTS};
static const shard_attr_req S_required_stablehlo_pad[] = {
    {.name = "edge_padding_high", .need = SHARD_NEED_DIMS},
    {.name = "edge_padding_low", .need = SHARD_NEED_DIMS},
    {.name = "interior_padding", .need = SHARD_NEED_DIMS},
    {0},
};
static const shard_op_signature S_signature_stablehlo_partition_id = {0, 1, SHARD_ARITY_ANY, 0};
static const shard_attr_req S_required_stablehlo_reduce_precision[] = {
    {.name = "exponent_bits", .need = SHARD_NEED_INT},
    {.name = "mantissa_bits", .need = SHARD_NEED_INT},
    {0},
};
static const shard_op_signature S_signature_stablehlo_replica_id = {0, 1, SHARD_ARITY_ANY, 0};
static const shard_attr_req S_required_stablehlo_rng[] = {
    {.name = "rng_distribution", .need = SHARD_NEED_ENUM, .enum_kind = "rng_distribution"},
    {0},
};
static const shard_attr_req S_required_stablehlo_rng_bit_generator[] = {
    {.name = "rng_algorithm", .need = SHARD_NEED_ENUM, .enum_kind = "rng_algorithm"},
    {0},
};
static const shard_op_signature S_signature_stablehlo_select = {3, 1, SHARD_ARITY_ANY, 0};
static const shard_attr_req S_required_stablehlo_slice[] = {
    {.name = "limit_indices", .need = SHARD_NEED_DIMS},
    {.name = "start_indices", .need = SHARD_NEED_DIMS},
    {.name = "strides", .need = SHARD_NEED_DIMS},
    {0},
};
static const shard_attr_req S_required_stablehlo_transpose[] = {
    {.name = "permutation", .need = SHARD_NEED_DIMS},
    {0},
};
static const shard_op_signature S_signature_stablehlo_tuple = {SHARD_ARITY_ANY, 1, SHARD_ARITY_ANY,
                                                               SHARD_SIG_TUPLE_OF_OPERANDS};
static const shard_attr_req S_required_stablehlo_unary_einsum[] = {
    {.name = "einsum_config", .need = SHARD_NEED_STRING},
    {0},
};
static const shard_op_signature S_signature_stablehlo_while = {
    SHARD_ARITY_ANY, SHARD_ARITY_ANY, 2, SHARD_SIG_OPERANDS_ARE_RESULTS | SHARD_SIG_BLOCKS_TAKE_OPERANDS};

/* Sorted by name (strcmp): shard_op_def_lookup searches it by bisection. */
const shard_op_def shard_stablehlo_ops[] = {
    {.name = "stablehlo.abs", .parse = S_parse_same, .print = S_print_same, .traits = SHARD_TRAIT_ELEMENTWISE},
    {.name = "stablehlo.add", .parse = S_parse_same, .print = S_print_same, .traits = SHARD_TRAIT_ELEMENTWISE},
    {.name = "stablehlo.after_all", .parse = S_parse_same, .print = S_print_same},
    {.name = "stablehlo.all_gather", .inherent = S_inh_all_gather},
    {.name = "stablehlo.all_reduce", .inherent = S_inh_all_reduce},
    {.name = "stablehlo.all_to_all", .inherent = S_inh_all_to_all},
    {.name = "stablehlo.and", .parse = S_parse_same, .print = S_print_same, .traits = SHARD_TRAIT_ELEMENTWISE},
    {.name = "stablehlo.async_done"},
    {.name = "stablehlo.async_start"},
    {.name = "stablehlo.atan2", .parse = S_parse_same, .print = S_print_same, .traits = SHARD_TRAIT_ELEMENTWISE},
    {.name = "stablehlo.batch_norm_grad", .inherent = S_inh_batch_norm_grad},
    {.name = "stablehlo.batch_norm_inference", .inherent = S_inh_batch_norm_grad},
    {.name = "stablehlo.batch_norm_training", .inherent = S_inh_batch_norm_grad},
    {.name = "stablehlo.bitcast_convert", .parse = S_parse_functional, .print = S_print_functional},
    {.name = "stablehlo.broadcast",
     .parse = S_parse_kw_dims_op,
     .print = S_print_kw_dims_op,
     .inherent = S_inh_broadcast,
     .required = S_required_stablehlo_broadcast},
    {.name = "stablehlo.broadcast_in_dim",
     .parse = S_parse_kw_dims_op,
     .print = S_print_kw_dims_op,
     .inherent = S_inh_broadcast_in_dim,
     .required = S_required_broadcast_dimensions},
    {.name = "stablehlo.case"},
    {.name = "stablehlo.cbrt",
     .parse = S_parse_same,
     .print = S_print_same,
     .inherent = S_inh_cbrt,
     .traits = SHARD_TRAIT_ELEMENTWISE},
    {.name = "stablehlo.ceil", .parse = S_parse_same, .print = S_print_same, .traits = SHARD_TRAIT_ELEMENTWISE},
    {.name = "stablehlo.cholesky",
     .parse = S_parse_cholesky,
     .print = S_print_cholesky,
     .inherent = S_inh_cholesky,
     .signature = &S_signature_stablehlo_cholesky},
    {.name = "stablehlo.clamp", .parse = S_parse_same, .print = S_print_same},
    {.name = "stablehlo.collective_broadcast", .inherent = S_inh_collective_broadcast},
    {.name = "stablehlo.collective_permute", .inherent = S_inh_collective_permute},
    {.name = "stablehlo.collective_reduce", .inherent = S_inh_collective_reduce},
    {.name = "stablehlo.compare",
     .parse = S_parse_compare,
     .print = S_print_compare,
     .inherent = S_inh_compare,
     .traits = SHARD_TRAIT_ELEMENTWISE,
     .required = S_required_stablehlo_compare},
    {.name = "stablehlo.complex",
     .parse = S_parse_complex,
     .print = S_print_complex,
     .traits = SHARD_TRAIT_ELEMENTWISE,
     .signature = &S_signature_stablehlo_complex},
    {.name = "stablehlo.composite",
     .parse = S_parse_composite,
     .print = S_print_composite,
     .inherent = S_inh_composite,
     .required = S_required_stablehlo_composite},
    {.name = "stablehlo.concatenate",
     .parse = S_parse_concatenate,
     .print = S_print_concatenate,
     .inherent = S_inh_concatenate,
     .required = S_required_dimension},
    {.name = "stablehlo.constant",
     .parse = S_parse_constant,
     .print = S_print_constant,
     .inherent = S_inh_constant,
     .result_name = S_constant_name,
     .required = S_required_stablehlo_constant,
     .signature = &S_signature_stablehlo_constant},
    {.name = "stablehlo.convert", .parse = S_parse_same, .print = S_print_same, .traits = SHARD_TRAIT_ELEMENTWISE},
    {.name = "stablehlo.convolution",
     .parse = S_parse_convolution,
     .print = S_print_convolution,
     .inherent = S_inh_convolution,
     .required = S_required_stablehlo_convolution,
     .signature = &S_signature_stablehlo_convolution},
    {.name = "stablehlo.cosine",
     .parse = S_parse_same,
     .print = S_print_same,
     .inherent = S_inh_cbrt,
     .traits = SHARD_TRAIT_ELEMENTWISE},
    {.name = "stablehlo.count_leading_zeros",
     .parse = S_parse_same,
     .print = S_print_same,
     .traits = SHARD_TRAIT_ELEMENTWISE},
    {.name = "stablehlo.create_token",
     .parse = S_parse_result_type,
     .print = S_print_result_type_op,
     .signature = &S_signature_stablehlo_create_token},
    {.name = "stablehlo.custom_call",
     .parse = S_parse_custom_call,
     .print = S_print_custom_call,
     .inherent = S_inh_custom_call,
     .required = S_required_stablehlo_custom_call},
    {.name = "stablehlo.divide", .parse = S_parse_same, .print = S_print_same, .traits = SHARD_TRAIT_ELEMENTWISE},
    {.name = "stablehlo.dot",
     .parse = S_parse_dot,
     .print = S_print_dot,
     .inherent = S_inh_dot,
     .signature = &S_signature_stablehlo_dot},
    {.name = "stablehlo.dot_general",
     .parse = S_parse_dot_general,
     .print = S_print_dot_general,
     .inherent = S_inh_dot_general,
     .required = S_required_stablehlo_dot_general,
     .signature = &S_signature_stablehlo_dot_general},
    {.name = "stablehlo.dynamic_broadcast_in_dim",
     .parse = S_parse_kw_dims_op,
     .print = S_print_kw_dims_op,
     .inherent = S_inh_dynamic_broadcast_in_dim,
     .required = S_required_broadcast_dimensions},
    {.name = "stablehlo.dynamic_conv", .inherent = S_inh_dynamic_conv},
    {.name = "stablehlo.dynamic_gather", .inherent = S_inh_dynamic_gather},
    {.name = "stablehlo.dynamic_iota",
     .parse = S_parse_dynamic_iota,
     .print = S_print_dynamic_iota,
     .inherent = S_inh_dynamic_iota,
     .required = S_required_iota_dimension},
    {.name = "stablehlo.dynamic_pad", .parse = S_parse_functional, .print = S_print_functional},
    {.name = "stablehlo.dynamic_reshape", .parse = S_parse_functional, .print = S_print_functional},
    {.name = "stablehlo.dynamic_slice",
     .parse = S_parse_dynamic_slice,
     .print = S_print_dynamic_slice,
     .inherent = S_inh_dynamic_slice,
     .required = S_required_stablehlo_dynamic_slice},
    {.name = "stablehlo.dynamic_update_slice", .parse = S_parse_functional, .print = S_print_functional},
    {.name = "stablehlo.einsum",
     .parse = S_parse_einsum,
     .print = S_print_einsum,
     .inherent = S_inh_einsum,
     .required = S_required_stablehlo_einsum},
    {.name = "stablehlo.exponential",
     .parse = S_parse_same,
     .print = S_print_same,
     .inherent = S_inh_cbrt,
     .traits = SHARD_TRAIT_ELEMENTWISE},
    {.name = "stablehlo.exponential_minus_one",
     .parse = S_parse_same,
     .print = S_print_same,
     .inherent = S_inh_cbrt,
     .traits = SHARD_TRAIT_ELEMENTWISE},
    {.name = "stablehlo.fft",
     .parse = S_parse_fft,
     .print = S_print_fft,
     .inherent = S_inh_fft,
     .required = S_required_stablehlo_fft},
    {.name = "stablehlo.floor", .parse = S_parse_same, .print = S_print_same, .traits = SHARD_TRAIT_ELEMENTWISE},
    {.name = "stablehlo.gather", .inherent = S_inh_gather},
    {.name = "stablehlo.get_dimension_size",
     .parse = S_parse_dimension_size,
     .print = S_print_dimension_size,
     .inherent = S_inh_concatenate,
     .required = S_required_dimension},
    {.name = "stablehlo.get_tuple_element",
     .parse = S_parse_get_tuple_element,
     .print = S_print_get_tuple_element,
     .inherent = S_inh_get_tuple_element,
     .required = S_required_stablehlo_get_tuple_element},
    {.name = "stablehlo.if"},
    {.name = "stablehlo.imag", .parse = S_parse_same, .print = S_print_same, .traits = SHARD_TRAIT_ELEMENTWISE},
    {.name = "stablehlo.infeed", .inherent = S_inh_infeed},
    {.name = "stablehlo.iota",
     .parse = S_parse_iota,
     .print = S_print_iota,
     .inherent = S_inh_dynamic_iota,
     .required = S_required_iota_dimension,
     .signature = &S_signature_stablehlo_iota},
    {.name = "stablehlo.is_finite",
     .parse = S_parse_functional,
     .print = S_print_functional,
     .traits = SHARD_TRAIT_ELEMENTWISE},
    {.name = "stablehlo.log",
     .parse = S_parse_same,
     .print = S_print_same,
     .inherent = S_inh_cbrt,
     .traits = SHARD_TRAIT_ELEMENTWISE},
    {.name = "stablehlo.log_plus_one",
     .parse = S_parse_same,
     .print = S_print_same,
     .inherent = S_inh_cbrt,
     .traits = SHARD_TRAIT_ELEMENTWISE},
    {.name = "stablehlo.logistic",
     .parse = S_parse_same,
     .print = S_print_same,
     .inherent = S_inh_cbrt,
     .traits = SHARD_TRAIT_ELEMENTWISE},
    {.name = "stablehlo.map", .inherent = S_inh_map},
    {.name = "stablehlo.maximum", .parse = S_parse_same, .print = S_print_same, .traits = SHARD_TRAIT_ELEMENTWISE},
    {.name = "stablehlo.minimum", .parse = S_parse_same, .print = S_print_same, .traits = SHARD_TRAIT_ELEMENTWISE},
    {.name = "stablehlo.multiply", .parse = S_parse_same, .print = S_print_same, .traits = SHARD_TRAIT_ELEMENTWISE},
    {.name = "stablehlo.negate", .parse = S_parse_same, .print = S_print_same, .traits = SHARD_TRAIT_ELEMENTWISE},
    {.name = "stablehlo.not", .parse = S_parse_same, .print = S_print_same, .traits = SHARD_TRAIT_ELEMENTWISE},
    {.name = "stablehlo.optimization_barrier",
     .parse = S_parse_optimization_barrier,
     .print = S_print_optimization_barrier,
     .signature = &S_signature_stablehlo_optimization_barrier},
    {.name = "stablehlo.or", .parse = S_parse_same, .print = S_print_same, .traits = SHARD_TRAIT_ELEMENTWISE},
    {.name = "stablehlo.outfeed", .inherent = S_inh_outfeed},
    {.name = "stablehlo.pad",
     .parse = S_parse_pad,
     .print = S_print_pad,
     .inherent = S_inh_pad,
     .required = S_required_stablehlo_pad},
    {.name = "stablehlo.partition_id",
     .parse = S_parse_result_type,
     .print = S_print_result_type_op,
     .signature = &S_signature_stablehlo_partition_id},
    {.name = "stablehlo.popcnt", .parse = S_parse_same, .print = S_print_same, .traits = SHARD_TRAIT_ELEMENTWISE},
    {.name = "stablehlo.power", .parse = S_parse_same, .print = S_print_same, .traits = SHARD_TRAIT_ELEMENTWISE},
    {.name = "stablehlo.real", .parse = S_parse_same, .print = S_print_same, .traits = SHARD_TRAIT_ELEMENTWISE},
    {.name = "stablehlo.real_dynamic_slice", .parse = S_parse_functional, .print = S_print_functional},
    {.name = "stablehlo.recv", .inherent = S_inh_recv},
    {.name = "stablehlo.reduce",
     .parse = S_parse_reduce,
     .print = S_print_reduce,
     .inherent = S_inh_map,
     .required = S_required_dimensions},
    {.name = "stablehlo.reduce_precision",
     .parse = S_parse_reduce_precision,
     .print = S_print_reduce_precision,
     .inherent = S_inh_reduce_precision,
     .traits = SHARD_TRAIT_ELEMENTWISE,
     .required = S_required_stablehlo_reduce_precision},
    {.name = "stablehlo.reduce_scatter", .inherent = S_inh_reduce_scatter},
    {.name = "stablehlo.reduce_window", .inherent = S_inh_reduce_window},
    {.name = "stablehlo.remainder", .parse = S_parse_same, .print = S_print_same, .traits = SHARD_TRAIT_ELEMENTWISE},
    {.name = "stablehlo.replica_id",
     .parse = S_parse_result_type,
     .print = S_print_result_type_op,
     .signature = &S_signature_stablehlo_replica_id},
    {.name = "stablehlo.reshape", .parse = S_parse_functional, .print = S_print_functional},
    {.name = "stablehlo.return", .parse = S_parse_return, .print = S_print_return, .traits = SHARD_TRAIT_TERMINATOR},
    {.name = "stablehlo.reverse",
     .parse = S_parse_kw_dims_op,
     .print = S_print_kw_dims_op,
     .inherent = S_inh_map,
     .required = S_required_dimensions},
    {.name = "stablehlo.rng",
     .parse = S_parse_rng,
     .print = S_print_rng,
     .inherent = S_inh_rng,
     .required = S_required_stablehlo_rng},
    {.name = "stablehlo.rng_bit_generator",
     .parse = S_parse_rng_bit_generator,
     .print = S_print_rng_bit_generator,
     .inherent = S_inh_rng_bit_generator,
     .result_names = S_rng_bit_generator_names,
     .required = S_required_stablehlo_rng_bit_generator},
    {.name = "stablehlo.round_nearest_afz",
     .parse = S_parse_same,
     .print = S_print_same,
     .traits = SHARD_TRAIT_ELEMENTWISE},
    {.name = "stablehlo.round_nearest_even",
     .parse = S_parse_same,
     .print = S_print_same,
     .traits = SHARD_TRAIT_ELEMENTWISE},
    {.name = "stablehlo.rsqrt",
     .parse = S_parse_same,
     .print = S_print_same,
     .inherent = S_inh_cbrt,
     .traits = SHARD_TRAIT_ELEMENTWISE},
    {.name = "stablehlo.scatter", .inherent = S_inh_scatter},
    {.name = "stablehlo.select",
     .parse = S_parse_select,
     .print = S_print_select,
     .signature = &S_signature_stablehlo_select},
    {.name = "stablehlo.select_and_scatter", .inherent = S_inh_select_and_scatter},
    {.name = "stablehlo.send", .inherent = S_inh_recv},
    {.name = "stablehlo.set_dimension_size",
     .parse = S_parse_dimension_size,
     .print = S_print_dimension_size,
     .inherent = S_inh_concatenate,
     .required = S_required_dimension},
    {.name = "stablehlo.shift_left", .parse = S_parse_same, .print = S_print_same, .traits = SHARD_TRAIT_ELEMENTWISE},
    {.name = "stablehlo.shift_right_arithmetic",
     .parse = S_parse_same,
     .print = S_print_same,
     .traits = SHARD_TRAIT_ELEMENTWISE},
    {.name = "stablehlo.shift_right_logical",
     .parse = S_parse_same,
     .print = S_print_same,
     .traits = SHARD_TRAIT_ELEMENTWISE},
    {.name = "stablehlo.sign", .parse = S_parse_same, .print = S_print_same, .traits = SHARD_TRAIT_ELEMENTWISE},
    {.name = "stablehlo.sine",
     .parse = S_parse_same,
     .print = S_print_same,
     .inherent = S_inh_cbrt,
     .traits = SHARD_TRAIT_ELEMENTWISE},
    {.name = "stablehlo.slice",
     .parse = S_parse_slice,
     .print = S_print_slice,
     .inherent = S_inh_slice,
     .required = S_required_stablehlo_slice},
    {.name = "stablehlo.sort", .inherent = S_inh_sort},
    {.name = "stablehlo.sqrt",
     .parse = S_parse_same,
     .print = S_print_same,
     .inherent = S_inh_cbrt,
     .traits = SHARD_TRAIT_ELEMENTWISE},
    {.name = "stablehlo.subtract", .parse = S_parse_same, .print = S_print_same, .traits = SHARD_TRAIT_ELEMENTWISE},
    {.name = "stablehlo.tan",
     .parse = S_parse_same,
     .print = S_print_same,
     .inherent = S_inh_cbrt,
     .traits = SHARD_TRAIT_ELEMENTWISE},
    {.name = "stablehlo.tanh",
     .parse = S_parse_same,
     .print = S_print_same,
     .inherent = S_inh_cbrt,
     .traits = SHARD_TRAIT_ELEMENTWISE},
    {.name = "stablehlo.torch_index_select", .inherent = S_inh_torch_index_select},
    {.name = "stablehlo.transpose",
     .parse = S_parse_kw_dims_op,
     .print = S_print_kw_dims_op,
     .inherent = S_inh_transpose,
     .required = S_required_stablehlo_transpose},
    {.name = "stablehlo.triangular_solve", .inherent = S_inh_triangular_solve},
    {.name = "stablehlo.tuple",
     .parse = S_parse_tuple,
     .print = S_print_tuple,
     .signature = &S_signature_stablehlo_tuple},
    {.name = "stablehlo.unary_einsum",
     .parse = S_parse_einsum,
     .print = S_print_einsum,
     .inherent = S_inh_einsum,
     .required = S_required_stablehlo_unary_einsum},
    {.name = "stablehlo.uniform_dequantize",
     .parse = S_parse_same,
     .print = S_print_same,
     .traits = SHARD_TRAIT_ELEMENTWISE},
    {.name = "stablehlo.uniform_quantize",
     .parse = S_parse_same,
     .print = S_print_same,
     .traits = SHARD_TRAIT_ELEMENTWISE},
    {.name = "stablehlo.while",
     .parse = S_parse_while,
     .print = S_print_while,
     .block_arg_name = S_while_arg_name,
     .signature = &S_signature_stablehlo_while},
    {.name = "stablehlo.xor", .parse = S_parse_same, .print = S_print_same, .traits = SHARD_TRAIT_ELEMENTWISE},
};

const unsigned shard_num_stablehlo_ops = sizeof shard_stablehlo_ops / sizeof shard_stablehlo_ops[0];

/* mhlo ops that StableHLO has no twin for, under their own name (XLA's
 * hlo_ops.td). Sorted by name. mhlo.copy (XLA's kCopy: the export puts it
 * around manual computations and in place of reshards) is elementwise with
 * custom<SameOperandsAndResultType>: `mhlo.copy %x {attrs} : T`. */
static const shard_op_signature S_sig_mhlo_copy = {1, 1, 0, SHARD_SIG_SAME_OPERANDS_AND_RESULTS};
const shard_op_def shard_mhlo_ops[] = {
    {.name = "mhlo.copy",
     .parse = S_parse_same,
     .print = S_print_same,
     .traits = SHARD_TRAIT_ELEMENTWISE,
     .signature = &S_sig_mhlo_copy},
};

const unsigned shard_num_mhlo_ops = sizeof shard_mhlo_ops / sizeof shard_mhlo_ops[0];
