/* The custom syntax of every `sdy` op: one parse and one print function per
 * assembly format of Shardy's ops.td, and the op-definition table that the
 * generic parser and printer look op names up in.
 *
 * Each parser is called after the op name and fills a shard_op_state; each
 * printer writes everything after the op name. They call the sdy attribute
 * parsers and printers (sdy_parse.c, sdy_print.c, sharding.c) for the
 * sharding, mesh and axis syntax, so this file only knows the op-level
 * keywords, the order of the pieces and where types come from. Attributes the
 * syntax prints itself are inherent and elided from the printed attr-dict.
 *
 * Printers must not crash on ops built from generic input that lack required
 * attributes or operands: they print MLIR's <<NULL ATTRIBUTE>> / <<NULL TYPE>>
 * placeholders instead, and the verifier reports the op. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "ir/opdef.h"

/* ---- shared pieces ---------------------------------------------------- */

static shard_attr *S_new_attr(shard_parser *p, shard_attr_kind kind, shard_span span) {
  shard_attr *a = shard_attr_new(shard_parser_arena(p), kind);
  a->span = span;
  return a;
}

/* Gives every operand that has no type yet the type `t`. */
static void S_fill_operand_types(shard_op_state *st, shard_type *t) {
  while (st->operand_types.len < st->operands.len) SHARD_VEC_PUSH(st->operand_types, t);
}

/* type-suffix ::= attr-dict ':' type
 * The tail of every single-tensor op: operands and (optionally) the one result
 * all take the written type (SameOperandsAndResultType). */
static bool S_parse_attrs_colon_type(shard_parser *p, shard_op_state *st, bool has_result) {
  shard_type *t;
  if (!shard_parser_attr_dict(p, st) || !shard_parser_expect(p, ":") || !shard_parser_type(p, &t)) return false;
  S_fill_operand_types(st, t);
  if (has_result) SHARD_VEC_PUSH(st->result_types, t);
  return true;
}

/* Checks that `written` types were given for the operands parsed so far, the
 * way MLIR's resolveOperands does, then records them. */
static bool S_assign_operand_types(shard_parser *p, shard_op_state *st, shard_span at, shard_type *const *types,
                                   uint32_t n) {
  uint32_t have = st->operands.len - st->operand_types.len;
  if (have != n) return shard_parser_error_at(p, at, "%u operands present, but expected %u", have, n);
  for (uint32_t i = 0; i < n; i++) SHARD_VEC_PUSH(st->operand_types, types[i]);
  return true;
}

/* fn-type ::= ':' '(' type* ')' '->' (type | '(' type* ')')
 * functional-type(operands, results): inputs type the operands, outputs are
 * the results. */
static bool S_parse_functional_type(shard_parser *p, shard_op_state *st) {
  if (!shard_parser_expect(p, ":")) return false;
  shard_span at = shard_parser_here(p);
  shard_type *fn;
  if (!shard_parser_type(p, &fn)) return false;
  if (fn->kind != SHARD_TYPE_FUNCTION) return shard_parser_error_at(p, at, "invalid kind of type specified");
  if (!S_assign_operand_types(p, st, at, fn->inputs, fn->num_inputs)) return false;
  for (uint32_t i = 0; i < fn->num_results; i++) SHARD_VEC_PUSH(st->result_types, fn->results[i]);
  return true;
}

/* operand-group ::= '(' (ssa-use (',' ssa-use)*)? ')' */
static bool S_parse_paren_operands(shard_parser *p, shard_op_state *st) {
  return shard_parser_expect(p, "(") && shard_parser_operand_list(p, st) && shard_parser_expect(p, ")");
}

/* MLIR parses an attribute parameter with parseCustomAttributeWithFallback:
 * the stripped form, or else any full attribute (`#sdy.mesh<...>`, an alias)
 * of the right kind. True when the next token starts the full form. */
static bool S_at_full_attr(shard_parser *p) { return shard_parser_peek(p).kind == SHARD_TOK_HASH; }

static bool S_parse_full_attr(shard_parser *p, shard_attr_kind kind, shard_attr **out) {
  shard_span at = shard_parser_here(p);
  if (!shard_parser_attr(p, out)) return false;
  if ((*out)->kind != kind) return shard_parser_error_at(p, at, "invalid kind of attribute specified");
  return true;
}

/* A block's last op may end it when it is a terminator, or when shard does
 * not know it (MLIR's mightHaveTrait<IsTerminator>). */
static bool S_ends_with_terminator(const shard_block *b) {
  return b->last && (!b->last->def || (b->last->def->traits & SHARD_TRAIT_TERMINATOR));
}

/* SingleBlockImplicitTerminator<"ReturnOp">: a body written without
 * `sdy.return` gets an empty one, as MLIR's ensureTerminator does. */
static void S_ensure_return(shard_parser *p, shard_region *r, shard_span span) {
  shard_arena *a = shard_parser_arena(p);
  if (!r->first) shard_region_add_block(a, r);
  if (S_ends_with_terminator(r->first)) return;
  shard_op *ret = shard_op_create(a, "sdy.return", 0, NULL, 0, NULL, 0);
  ret->def = shard_op_def_lookup("sdy.return", strlen("sdy.return"));
  ret->span = span;
  shard_block_append(r->first, ret);
}

/* body ::= '(' (arg-decl (',' arg-decl)*)? ')' region
 * custom<SingleBlockRegionNoBlockId>: the entry block's arguments are written
 * before the region instead of in a ^bb0 header. */
static bool S_parse_body(shard_parser *p, shard_op_state *st) {
  SHARD_VEC(shard_arg_decl) args = {0};
  shard_span at = shard_parser_here(p);
  bool ok = shard_parser_arg_decls(p, &args, true) && shard_parser_region(p, st, args.items, args.len);
  SHARD_VEC_FREE(args);
  if (ok) S_ensure_return(p, st->regions.items[st->regions.len - 1], at);
  return ok;
}

/* stripped-per-value ::= '[' (sharding-body (',' sharding-body)*)? ']' */
static bool S_parse_per_value(shard_parser *p, shard_op_state *st, const char *name) {
  shard_span at = shard_parser_here(p);
  shard_sharding_per_value *pv;
  if (!shard_parse_sdy_sharding_list(p, &pv)) return false;
  shard_attr *a = S_new_attr(p, SHARD_ATTR_SDY_PER_VALUE, at);
  a->u.per_value = pv;
  shard_op_state_add_attr(st, name, a, true);
  return true;
}

/* sharding-body ::= '<' (symbol | 'mesh' mesh-body) ',' '[' dims ']' ... '>' */
static bool S_parse_sharding(shard_parser *p, shard_op_state *st, const char *name) {
  shard_span at = shard_parser_here(p);
  shard_attr *a;
  if (S_at_full_attr(p)) {
    if (!S_parse_full_attr(p, SHARD_ATTR_SDY_SHARDING, &a)) return false;
  } else {
    shard_tensor_sharding *s;
    if (!shard_parse_sdy_sharding_body(p, &s)) return false;
    a = shard_attr_sharding(shard_parser_arena(p), s);
    a->span = at;
  }
  shard_op_state_add_attr(st, name, a, true);
  return true;
}

/* Matches `text` against an enum's keywords; -1 when none. */
static int S_enum_index(const char *const *names, const char *text, size_t len) {
  for (int i = 0; names[i]; i++)
    if (strlen(names[i]) == len && memcmp(names[i], text, len) == 0) return i;
  return -1;
}

/* enum-value ::= bare-id | string
 * MLIR's op-format enum parser: a keyword from the list, or a string holding
 * one. With `optional`, the absence of both is not an error (*out = -1). */
static bool S_parse_enum(shard_parser *p, const char *attr_name, const char *const *names, bool optional, int *out) {
  shard_tok t = shard_parser_peek(p);
  *out = -1;
  if (t.kind == SHARD_TOK_IDENT) {
    int i = S_enum_index(names, t.text, t.len);
    if (i >= 0) {
      shard_parser_next(p);
      *out = i;
      return true;
    }
  } else if (t.kind == SHARD_TOK_STRING) {
    shard_span at = shard_parser_here(p);
    const char *s;
    uint32_t len;
    if (!shard_parser_string(p, &s, &len)) return false;
    *out = S_enum_index(names, s, len);
    if (*out < 0)
      return shard_parser_error_at(p, at, "invalid %s attribute specification: \"%.*s\"", attr_name, (int)len, s);
    return true;
  }
  if (optional) return true;
  shard_buf list;
  shard_buf_init(&list);
  for (int i = 0; names[i]; i++) shard_buf_printf(&list, "%s%s", i ? ", " : "", names[i]);
  shard_parser_error(p,
                     "expected string or keyword containing one of the following enum values "
                     "for attribute '%s' [%s]",
                     attr_name, shard_buf_str(&list));
  shard_buf_free(&list);
  return false;
}

/* Printing helpers. */

static shard_attr *S_attr_of(const shard_op *op, const char *name, shard_attr_kind kind) {
  shard_attr *a = shard_op_attr(op, name);
  return a && a->kind == kind ? a : NULL;
}

static void S_print_null_attr(shard_printer *pr) { shard_printer_puts(pr, "<<NULL ATTRIBUTE>>"); }

/* Prints the stripped <@mesh, [...]> of a sharding attribute. */
static void S_print_sharding(shard_printer *pr, const shard_op *op, const char *name) {
  shard_attr *a = S_attr_of(op, name, SHARD_ATTR_SDY_SHARDING);
  if (a) shard_printer_sharding(pr, a->u.sharding);
  else S_print_null_attr(pr);
}

/* Prints [<...>, <...>] of a per-value sharding attribute. */
static void S_print_per_value(shard_printer *pr, const shard_op *op, const char *name) {
  shard_attr *a = S_attr_of(op, name, SHARD_ATTR_SDY_PER_VALUE);
  if (a) shard_sharding_list_print(shard_printer_buf(pr), a->u.per_value->shardings, a->u.per_value->num);
  else S_print_null_attr(pr);
}

/* Prints an sdy op-parameter attribute (axis lists, manual axes, ...) bare. */
static void S_print_param(shard_printer *pr, const shard_op *op, const char *name, shard_attr_kind kind) {
  shard_attr *a = S_attr_of(op, name, kind);
  if (a) shard_sdy_attr_print(shard_printer_buf(pr), a);
  else S_print_null_attr(pr);
}

/* The one tensor type of a single-tensor op: its result's, else its operand's. */
static void S_print_colon_type(shard_printer *pr, const shard_op *op) {
  const shard_type *t = NULL;
  if (op->num_results > 0) t = op->results[0].type;
  else if (op->num_operands > 0) t = op->operands[0].value->type;
  shard_printer_puts(pr, " : ");
  if (t) shard_printer_type(pr, t);
  else shard_printer_puts(pr, "<<NULL TYPE>>");
}

/* @name, quoted when it is not a bare identifier (MLIR's printSymbolName). */
static void S_print_symbol(shard_printer *pr, const char *name, uint32_t len) {
  bool bare = len > 0 && ((name[0] >= 'a' && name[0] <= 'z') || (name[0] >= 'A' && name[0] <= 'Z') || name[0] == '_');
  for (uint32_t i = 1; bare && i < len; i++) {
    char c = name[i];
    bare =
        (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '$' || c == '.';
  }
  shard_printer_puts(pr, "@");
  if (bare) shard_buf_putn(shard_printer_buf(pr), name, len);
  else shard_buf_put_escaped(shard_printer_buf(pr), name, len);
}

/* (%a: T, ...) {body} of a SingleBlockRegionNoBlockId region. */
static void S_print_body(shard_printer *pr, const shard_op *op) {
  if (op->num_regions == 0 || !op->regions[0].first) {
    shard_printer_puts(pr, " () {\n}");
    return;
  }
  shard_printer_puts(pr, " ");
  shard_printer_arg_decls(pr, op->regions[0].first, true);
  shard_printer_region(pr, &op->regions[0], false, false);
}

static void S_print_operand_list(shard_printer *pr, const shard_op *op) {
  shard_printer_puts(pr, "(");
  shard_printer_operands(pr, op, 0, op->num_operands);
  shard_printer_puts(pr, ")");
}

/* ---- sdy.mesh ---------------------------------------------------------- */

/* mesh-op ::= symbol '=' mesh-body attr-dict */
static bool S_parse_mesh(shard_parser *p, shard_op_state *st) {
  shard_span name_at = shard_parser_here(p);
  const char *name;
  if (!shard_parser_symbol(p, &name) || !shard_parser_expect(p, "=")) return false;
  shard_span mesh_at = shard_parser_here(p);
  shard_attr *m;
  if (S_at_full_attr(p)) {
    if (!S_parse_full_attr(p, SHARD_ATTR_SDY_MESH, &m)) return false;
  } else {
    shard_mesh *mesh;
    if (!shard_parse_sdy_mesh_body(p, &mesh)) return false;
    m = S_new_attr(p, SHARD_ATTR_SDY_MESH, mesh_at);
    m->u.mesh = mesh;
  }
  /* Shardy's MeshAttr builder drops iota device ids, so they never print. */
  shard_mesh_canonicalize(m->u.mesh);
  shard_attr *sym = shard_attr_string(shard_parser_arena(p), name, (uint32_t)strlen(name));
  sym->span = name_at;
  shard_op_state_add_attr(st, "sym_name", sym, true);
  shard_op_state_add_attr(st, "mesh", m, true);
  return shard_parser_attr_dict(p, st);
}

static void S_print_mesh(shard_printer *pr, const shard_op *op) {
  shard_attr *sym = S_attr_of(op, "sym_name", SHARD_ATTR_STRING);
  shard_attr *mesh = S_attr_of(op, "mesh", SHARD_ATTR_SDY_MESH);
  shard_printer_puts(pr, " ");
  if (sym) S_print_symbol(pr, sym->u.str.data, sym->u.str.len);
  else S_print_null_attr(pr);
  shard_printer_puts(pr, " = ");
  if (mesh) shard_mesh_print(shard_printer_buf(pr), mesh->u.mesh);
  else S_print_null_attr(pr);
  shard_printer_attr_dict(pr, op, NULL);
}

/* ---- sdy.sharding_constraint, sdy.reshard ------------------------------ */

/* constraint ::= ssa-use sharding-body attr-dict ':' type */
static bool S_parse_sharded_value(shard_parser *p, shard_op_state *st) {
  return shard_parser_operand(p, st) && S_parse_sharding(p, st, "sharding") && S_parse_attrs_colon_type(p, st, true);
}

static void S_print_sharded_value(shard_printer *pr, const shard_op *op) {
  shard_printer_puts(pr, " ");
  shard_printer_operands(pr, op, 0, op->num_operands);
  shard_printer_puts(pr, " ");
  S_print_sharding(pr, op, "sharding");
  shard_printer_attr_dict(pr, op, NULL);
  S_print_colon_type(pr, op);
}

/* ---- sdy.return -------------------------------------------------------- */

/* return ::= attr-dict (ssa-use (',' ssa-use)* ':' type (',' type)*)? */
static bool S_parse_return(shard_parser *p, shard_op_state *st) {
  if (!shard_parser_attr_dict(p, st) || !shard_parser_operand_list(p, st)) return false;
  if (st->operands.len == 0) return true;
  if (!shard_parser_expect(p, ":")) return false;
  shard_span at = shard_parser_here(p);
  SHARD_VEC(shard_type *) types = {0};
  bool ok = true;
  do {
    shard_type *t;
    if (!(ok = shard_parser_type(p, &t))) break;
    SHARD_VEC_PUSH(types, t);
  } while (shard_parser_accept(p, ","));
  ok = ok && S_assign_operand_types(p, st, at, types.items, types.len);
  SHARD_VEC_FREE(types);
  return ok;
}

/* ---- sdy.manual_computation -------------------------------------------- */

/* manual-computation ::= '(' operands ')' 'in_shardings' '=' stripped-per-value
 *                        'out_shardings' '=' stripped-per-value
 *                        'manual_axes' '=' '{' (string (',' string)*)? '}'
 *                        body attr-dict fn-type */
static bool S_parse_manual_computation(shard_parser *p, shard_op_state *st) {
  if (!S_parse_paren_operands(p, st) || !shard_parser_expect_keyword(p, "in_shardings") ||
      !shard_parser_expect(p, "=") || !S_parse_per_value(p, st, "in_shardings") ||
      !shard_parser_expect_keyword(p, "out_shardings") || !shard_parser_expect(p, "=") ||
      !S_parse_per_value(p, st, "out_shardings") || !shard_parser_expect_keyword(p, "manual_axes") ||
      !shard_parser_expect(p, "="))
    return false;
  shard_attr *axes;
  if (S_at_full_attr(p) ? !S_parse_full_attr(p, SHARD_ATTR_SDY_MANUAL_AXES, &axes)
                        : !shard_parse_sdy_manual_axes(p, &axes))
    return false;
  shard_op_state_add_attr(st, "manual_axes", axes, true);
  return S_parse_body(p, st) && shard_parser_attr_dict(p, st) && S_parse_functional_type(p, st);
}

static void S_print_manual_computation(shard_printer *pr, const shard_op *op) {
  S_print_operand_list(pr, op);
  shard_printer_puts(pr, " in_shardings=");
  S_print_per_value(pr, op, "in_shardings");
  shard_printer_puts(pr, " out_shardings=");
  S_print_per_value(pr, op, "out_shardings");
  shard_printer_puts(pr, " manual_axes=");
  S_print_param(pr, op, "manual_axes", SHARD_ATTR_SDY_MANUAL_AXES);
  S_print_body(pr, op);
  shard_printer_attr_dict(pr, op, NULL);
  shard_printer_puts(pr, " : ");
  shard_printer_functional_type(pr, op);
}

/* ---- sdy.named_computation --------------------------------------------- */

/* named-computation ::= '<' string '>' '(' operands ')'
 *                       ('in_shardings' '=' stripped-per-value)?
 *                       ('out_shardings' '=' stripped-per-value)?
 *                       body attr-dict fn-type */
static bool S_parse_named_computation(shard_parser *p, shard_op_state *st) {
  if (!shard_parser_expect(p, "<")) return false;
  shard_span at = shard_parser_here(p);
  const char *name;
  uint32_t len;
  if (!shard_parser_string(p, &name, &len) || !shard_parser_expect(p, ">")) return false;
  shard_attr *n = shard_attr_string(shard_parser_arena(p), name, len);
  n->span = at;
  shard_op_state_add_attr(st, "name", n, true);
  if (!S_parse_paren_operands(p, st)) return false;
  if (shard_parser_accept_keyword(p, "in_shardings") &&
      !(shard_parser_expect(p, "=") && S_parse_per_value(p, st, "in_shardings")))
    return false;
  if (shard_parser_accept_keyword(p, "out_shardings") &&
      !(shard_parser_expect(p, "=") && S_parse_per_value(p, st, "out_shardings")))
    return false;
  return S_parse_body(p, st) && shard_parser_attr_dict(p, st) && S_parse_functional_type(p, st);
}

static void S_print_named_computation(shard_printer *pr, const shard_op *op) {
  shard_attr *name = S_attr_of(op, "name", SHARD_ATTR_STRING);
  shard_printer_puts(pr, "<");
  if (name) shard_buf_put_escaped(shard_printer_buf(pr), name->u.str.data, name->u.str.len);
  else S_print_null_attr(pr);
  shard_printer_puts(pr, ">");
  S_print_operand_list(pr, op);
  if (S_attr_of(op, "in_shardings", SHARD_ATTR_SDY_PER_VALUE)) {
    shard_printer_puts(pr, " in_shardings=");
    S_print_per_value(pr, op, "in_shardings");
  }
  if (S_attr_of(op, "out_shardings", SHARD_ATTR_SDY_PER_VALUE)) {
    shard_printer_puts(pr, " out_shardings=");
    S_print_per_value(pr, op, "out_shardings");
  }
  S_print_body(pr, op);
  shard_printer_attr_dict(pr, op, NULL);
  shard_printer_puts(pr, " : ");
  shard_printer_functional_type(pr, op);
}

/* ---- collectives ------------------------------------------------------- */

/* What distinguishes the collectives' formats: the name and kind of the
 * parameter before the tensor, and whether a reduction keyword may lead. */
typedef struct collective_format {
  const char *param; /* NULL: none (collective_permute) */
  shard_attr_kind kind;
  bool reduction;
} collective_format;

static const collective_format all_gather_format = {"gathering_axes", SHARD_ATTR_SDY_AXIS_LISTS, false};
static const collective_format all_slice_format = {"slicing_axes", SHARD_ATTR_SDY_AXIS_LISTS, false};
static const collective_format all_to_all_format = {"params", SHARD_ATTR_SDY_ALL_TO_ALL, false};
static const collective_format permute_format = {NULL, SHARD_ATTR_RAW, false};
static const collective_format all_reduce_format = {"reduction_axes", SHARD_ATTR_SDY_AXIS_LIST, true};
static const collective_format reduce_scatter_format = {"reduce_scatter_axes", SHARD_ATTR_SDY_AXIS_LISTS, true};
static const collective_format s2u_format = {"axes", SHARD_ATTR_SDY_AXIS_LISTS, false};
static const collective_format r2u_format = {"axes", SHARD_ATTR_SDY_AXIS_LIST, false};

/* Keyword order follows the enum (SHARD_RED_SUM, SHARD_RED_MAX, SHARD_RED_MIN). */
static const char *const reduction_names[] = {"sum", "max", "min", NULL};

/* collective ::= reduction? param? ssa-use 'out_sharding' '=' sharding-body
 *                attr-dict ':' type
 * reduction  ::= 'sum' | 'max' | 'min'
 * param      ::= axis-list | '[' axis-list* ']' | '[' a2a-param (',' a2a-param)* ']' */
static bool S_parse_collective(shard_parser *p, shard_op_state *st, const collective_format *f) {
  if (f->reduction) {
    shard_span at = shard_parser_here(p);
    int r;
    if (!S_parse_enum(p, "reduction_op", reduction_names, true, &r)) return false;
    if (r >= 0) {
      shard_attr *a = S_new_attr(p, SHARD_ATTR_SDY_REDUCTION, at);
      a->u.reduction = (shard_reduction)r;
      shard_op_state_add_attr(st, "reduction_op", a, true);
    }
  }
  if (f->param) {
    shard_span at = shard_parser_here(p);
    shard_attr *a;
    if (S_at_full_attr(p)) {
      if (!S_parse_full_attr(p, f->kind, &a)) return false;
    } else if (f->kind == SHARD_ATTR_SDY_AXIS_LIST) {
      shard_axis_list axes;
      if (!shard_parse_sdy_axis_list(p, &axes)) return false;
      a = S_new_attr(p, SHARD_ATTR_SDY_AXIS_LIST, at);
      a->u.axis_list = axes;
    } else if (f->kind == SHARD_ATTR_SDY_AXIS_LISTS) {
      if (!shard_parse_sdy_axis_lists(p, &a)) return false;
    } else {
      if (!shard_parse_sdy_all_to_all_params(p, &a)) return false;
    }
    shard_op_state_add_attr(st, f->param, a, true);
  }
  return shard_parser_operand(p, st) && shard_parser_expect_keyword(p, "out_sharding") && shard_parser_expect(p, "=") &&
         S_parse_sharding(p, st, "out_sharding") && S_parse_attrs_colon_type(p, st, true);
}

static void S_print_collective(shard_printer *pr, const shard_op *op, const collective_format *f) {
  if (f->reduction) {
    /* DefaultValuedAttr: `sum` is the default and never printed. */
    shard_attr *r = S_attr_of(op, "reduction_op", SHARD_ATTR_SDY_REDUCTION);
    if (r && r->u.reduction != SHARD_RED_SUM) shard_printer_printf(pr, " %s", shard_reduction_name(r->u.reduction));
  }
  if (f->param) {
    shard_printer_puts(pr, " ");
    S_print_param(pr, op, f->param, f->kind);
  }
  shard_printer_puts(pr, " ");
  shard_printer_operands(pr, op, 0, op->num_operands);
  shard_printer_puts(pr, " out_sharding=");
  S_print_sharding(pr, op, "out_sharding");
  shard_printer_attr_dict(pr, op, NULL);
  S_print_colon_type(pr, op);
}

static bool S_parse_all_gather(shard_parser *p, shard_op_state *st) {
  return S_parse_collective(p, st, &all_gather_format);
}
static void S_print_all_gather(shard_printer *pr, const shard_op *op) {
  S_print_collective(pr, op, &all_gather_format);
}
static bool S_parse_all_slice(shard_parser *p, shard_op_state *st) {
  return S_parse_collective(p, st, &all_slice_format);
}
static void S_print_all_slice(shard_printer *pr, const shard_op *op) { S_print_collective(pr, op, &all_slice_format); }
static bool S_parse_all_to_all(shard_parser *p, shard_op_state *st) {
  return S_parse_collective(p, st, &all_to_all_format);
}
static void S_print_all_to_all(shard_printer *pr, const shard_op *op) {
  S_print_collective(pr, op, &all_to_all_format);
}
static bool S_parse_collective_permute(shard_parser *p, shard_op_state *st) {
  return S_parse_collective(p, st, &permute_format);
}
static void S_print_collective_permute(shard_printer *pr, const shard_op *op) {
  S_print_collective(pr, op, &permute_format);
}
static bool S_parse_all_reduce(shard_parser *p, shard_op_state *st) {
  return S_parse_collective(p, st, &all_reduce_format);
}
static void S_print_all_reduce(shard_printer *pr, const shard_op *op) {
  S_print_collective(pr, op, &all_reduce_format);
}
static bool S_parse_reduce_scatter(shard_parser *p, shard_op_state *st) {
  return S_parse_collective(p, st, &reduce_scatter_format);
}
static void S_print_reduce_scatter(shard_printer *pr, const shard_op *op) {
  S_print_collective(pr, op, &reduce_scatter_format);
}
static bool S_parse_sharded_to_unreduced(shard_parser *p, shard_op_state *st) {
  return S_parse_collective(p, st, &s2u_format);
}
static void S_print_sharded_to_unreduced(shard_printer *pr, const shard_op *op) {
  S_print_collective(pr, op, &s2u_format);
}
static bool S_parse_replicated_to_unreduced(shard_parser *p, shard_op_state *st) {
  return S_parse_collective(p, st, &r2u_format);
}
static void S_print_replicated_to_unreduced(shard_printer *pr, const shard_op *op) {
  S_print_collective(pr, op, &r2u_format);
}

/* ---- sdy.sharding_group ------------------------------------------------ */

/* sharding-group ::= ssa-use 'group_id' '=' integer attr-dict ':' type */
static bool S_parse_sharding_group(shard_parser *p, shard_op_state *st) {
  if (!shard_parser_operand(p, st) || !shard_parser_expect_keyword(p, "group_id") || !shard_parser_expect(p, "="))
    return false;
  shard_span at = shard_parser_here(p);
  int64_t id;
  if (!shard_parser_int(p, &id)) return false;
  shard_arena *a = shard_parser_arena(p);
  shard_attr *g = shard_attr_int(a, id, shard_type_other(a, "i64"));
  g->span = at;
  shard_op_state_add_attr(st, "group_id", g, true);
  return S_parse_attrs_colon_type(p, st, false);
}

static void S_print_sharding_group(shard_printer *pr, const shard_op *op) {
  shard_attr *g = S_attr_of(op, "group_id", SHARD_ATTR_INT);
  shard_printer_puts(pr, " ");
  shard_printer_operands(pr, op, 0, op->num_operands);
  shard_printer_puts(pr, " group_id=");
  if (g) shard_printer_printf(pr, "%" PRId64, g->u.integer.value);
  else S_print_null_attr(pr);
  shard_printer_attr_dict(pr, op, NULL);
  S_print_colon_type(pr, op);
}

/* ---- sdy.propagation_barrier ------------------------------------------- */

/* Keyword order follows shard_direction (SHARD_DIR_BOTH, FORWARD, BACKWARD, NONE). */
static const char *const direction_names[] = {"BOTH", "FORWARD", "BACKWARD", "NONE", NULL};

/* barrier ::= ssa-use 'allowed_direction' '=' ('FORWARD' | 'BACKWARD' | 'NONE' | 'BOTH')
 *             attr-dict ':' type */
static bool S_parse_propagation_barrier(shard_parser *p, shard_op_state *st) {
  if (!shard_parser_operand(p, st) || !shard_parser_expect_keyword(p, "allowed_direction") ||
      !shard_parser_expect(p, "="))
    return false;
  /* MLIR lists the cases in the enum's declaration order. */
  static const char *const mlir_order[] = {"NONE", "FORWARD", "BACKWARD", "BOTH", NULL};
  static const shard_direction mlir_dirs[] = {SHARD_DIR_NONE, SHARD_DIR_FORWARD, SHARD_DIR_BACKWARD, SHARD_DIR_BOTH};
  shard_span at = shard_parser_here(p);
  int d;
  if (!S_parse_enum(p, "allowed_direction", mlir_order, false, &d)) return false;
  shard_attr *a = S_new_attr(p, SHARD_ATTR_SDY_DIRECTION, at);
  a->u.direction = mlir_dirs[d];
  shard_op_state_add_attr(st, "allowed_direction", a, true);
  return S_parse_attrs_colon_type(p, st, true);
}

static void S_print_propagation_barrier(shard_printer *pr, const shard_op *op) {
  shard_attr *d = S_attr_of(op, "allowed_direction", SHARD_ATTR_SDY_DIRECTION);
  shard_printer_puts(pr, " ");
  shard_printer_operands(pr, op, 0, op->num_operands);
  shard_printer_puts(pr, " allowed_direction=");
  if (d && (unsigned)d->u.direction <= SHARD_DIR_NONE) shard_printer_puts(pr, direction_names[d->u.direction]);
  else S_print_null_attr(pr);
  shard_printer_attr_dict(pr, op, NULL);
  S_print_colon_type(pr, op);
}

/* ---- sdy.data_flow_edge, sdy.func_data_flow_edge ----------------------- */

/* data-flow-edge ::= ssa-use ('sharding' '=' sharding-body)? attr-dict ':' type */
static bool S_parse_data_flow_edge(shard_parser *p, shard_op_state *st) {
  if (!shard_parser_operand(p, st)) return false;
  if (shard_parser_accept_keyword(p, "sharding") &&
      !(shard_parser_expect(p, "=") && S_parse_sharding(p, st, "sharding")))
    return false;
  return S_parse_attrs_colon_type(p, st, true);
}

static void S_print_data_flow_edge(shard_printer *pr, const shard_op *op) {
  shard_printer_puts(pr, " ");
  shard_printer_operands(pr, op, 0, op->num_operands);
  if (S_attr_of(op, "sharding", SHARD_ATTR_SDY_SHARDING)) {
    shard_printer_puts(pr, " sharding=");
    S_print_sharding(pr, op, "sharding");
  }
  shard_printer_attr_dict(pr, op, NULL);
  S_print_colon_type(pr, op);
}

/* func-data-flow-edge ::= ssa-use attr-dict ':' type */
static bool S_parse_func_data_flow_edge(shard_parser *p, shard_op_state *st) {
  return shard_parser_operand(p, st) && S_parse_attrs_colon_type(p, st, true);
}

static void S_print_func_data_flow_edge(shard_printer *pr, const shard_op *op) {
  shard_printer_puts(pr, " ");
  shard_printer_operands(pr, op, 0, op->num_operands);
  shard_printer_attr_dict(pr, op, NULL);
  S_print_colon_type(pr, op);
}

/* ---- sdy.constant ------------------------------------------------------ */

/* constant ::= attr-dict elements-attr
 *            | '(' ')' ('<' attr-dict '>')? attr-dict ':' '(' ')' '->' type
 * The same syntax as stablehlo.constant (hlo::parseConstantOp): the second,
 * generic-looking form is what the printer falls back to when the value's
 * type differs from the result type. */
static bool S_parse_constant(shard_parser *p, shard_op_state *st) {
  if (shard_parser_accept(p, "(")) {
    if (!shard_parser_expect(p, ")") || !shard_parser_properties(p, st)) return false;
    shard_type *t;
    if (!shard_parser_attr_dict(p, st) || !shard_parser_expect(p, ":") || !shard_parser_expect(p, "(") ||
        !shard_parser_expect(p, ")") || !shard_parser_expect(p, "->") || !shard_parser_type(p, &t))
      return false;
    SHARD_VEC_PUSH(st->result_types, t);
    return true;
  }
  if (!shard_parser_attr_dict(p, st)) return false;
  shard_span at = shard_parser_here(p);
  shard_attr *value;
  if (!shard_parser_attr(p, &value)) return false;
  if (value->kind != SHARD_ATTR_DENSE || !value->u.dense.type)
    return shard_parser_error_at(p, at, "invalid kind of attribute specified");
  /* MLIR's elements-literal parser rejects these before any use of the result
   * could be checked against the type. */
  const shard_type *t = value->u.dense.type;
  bool dynamic = t->kind == SHARD_TYPE_UNRANKED_TENSOR;
  for (uint32_t i = 0; t->kind == SHARD_TYPE_TENSOR && i < t->rank; i++)
    dynamic = dynamic || t->dims[i] == SHARD_DYNAMIC_DIM;
  if (dynamic) return shard_parser_error_at(p, at, "elements literal type must have static shape");
  shard_op_state_add_attr(st, "value", value, true);
  SHARD_VEC_PUSH(st->result_types, value->u.dense.type);
  return true;
}

static void S_print_constant(shard_printer *pr, const shard_op *op) {
  shard_attr *value = shard_op_attr(op, "value");
  const shard_type *result = op->num_results ? op->results[0].type : NULL;
  if (value && value->kind == SHARD_ATTR_DENSE && result && value->u.dense.type &&
      shard_type_equal(value->u.dense.type, result)) {
    shard_printer_attr_dict(pr, op, NULL);
    shard_printer_puts(pr, " ");
    shard_printer_attr(pr, value);
    return;
  }
  /* printGenericOp without the name: `value` is the only property. */
  shard_printer_puts(pr, "() <{value = ");
  if (value) shard_printer_attr(pr, value);
  else S_print_null_attr(pr);
  shard_printer_puts(pr, "}>");
  shard_printer_attr_dict(pr, op, NULL);
  shard_printer_puts(pr, " : () -> ");
  if (result) shard_printer_type(pr, result);
  else shard_printer_puts(pr, "()");
}

/* ---- the table --------------------------------------------------------- */

static const char *const mesh_inherent[] = {"mesh", "sym_name", NULL};
static const char *const sharding_inherent[] = {"sharding", NULL};
static const char *const computation_inherent[] = {"in_shardings", "manual_axes", "out_shardings", NULL};
static const char *const named_inherent[] = {"in_shardings", "name", "out_shardings", NULL};
static const char *const group_inherent[] = {"group_id", NULL};
static const char *const constant_inherent[] = {"value", NULL};
static const char *const barrier_inherent[] = {"allowed_direction", NULL};
static const char *const all_gather_inherent[] = {"gathering_axes", "out_sharding", NULL};
static const char *const all_slice_inherent[] = {"out_sharding", "slicing_axes", NULL};
static const char *const all_to_all_inherent[] = {"out_sharding", "params", NULL};
static const char *const permute_inherent[] = {"out_sharding", NULL};
static const char *const all_reduce_inherent[] = {"out_sharding", "reduction_axes", "reduction_op", NULL};
static const char *const reduce_scatter_inherent[] = {"out_sharding", "reduce_scatter_axes", "reduction_op", NULL};
static const char *const unreduced_inherent[] = {"axes", "out_sharding", NULL};

#define SDY SHARD_TRAIT_SDY

/* ---- what the verifier demands before a custom form prints (opdef.h) ---- */

static const shard_attr_req S_required_sdy_all_gather[] = {
    {.name = "gathering_axes", .need = SHARD_NEED_SDY, .sdy_kind = SHARD_ATTR_SDY_AXIS_LISTS},
    {0},
};
static const shard_attr_req S_required_sdy_all_reduce[] = {
    {.name = "reduction_axes", .need = SHARD_NEED_SDY, .sdy_kind = SHARD_ATTR_SDY_AXIS_LIST},
    {0},
};
static const shard_attr_req S_required_sdy_all_slice[] = {
    {.name = "slicing_axes", .need = SHARD_NEED_SDY, .sdy_kind = SHARD_ATTR_SDY_AXIS_LISTS},
    {0},
};
static const shard_attr_req S_required_sdy_all_to_all[] = {
    {.name = "params", .need = SHARD_NEED_SDY, .sdy_kind = SHARD_ATTR_SDY_ALL_TO_ALL},
    {0},
};
static const shard_attr_req S_required_sdy_constant[] = {
    {.name = "value", .need = SHARD_NEED_DENSE},
    {0},
};
static const shard_op_signature S_signature_sdy_constant = {0, 1, SHARD_ARITY_ANY, 0};
/* reshard, data_flow_edge and func_data_flow_edge: one operand, one result
 * of its type (SameOperandsAndResultType in Shardy's ops.td). */
static const shard_op_signature S_signature_same_type = {1, 1, 0, SHARD_SIG_SAME_OPERANDS_AND_RESULTS};
static const shard_attr_req S_required_sdy_manual_computation[] = {
    {.name = "in_shardings", .need = SHARD_NEED_SDY, .sdy_kind = SHARD_ATTR_SDY_PER_VALUE},
    {.name = "manual_axes", .need = SHARD_NEED_SDY, .sdy_kind = SHARD_ATTR_SDY_MANUAL_AXES},
    {.name = "out_shardings", .need = SHARD_NEED_SDY, .sdy_kind = SHARD_ATTR_SDY_PER_VALUE},
    {0},
};
static const shard_attr_req S_required_sdy_mesh[] = {
    {.name = "mesh", .need = SHARD_NEED_SDY, .sdy_kind = SHARD_ATTR_SDY_MESH},
    {.name = "sym_name", .need = SHARD_NEED_STRING},
    {0},
};
static const shard_attr_req S_required_sdy_named_computation[] = {
    {.name = "name", .need = SHARD_NEED_STRING},
    {0},
};
static const shard_attr_req S_required_sdy_propagation_barrier[] = {
    {.name = "allowed_direction", .need = SHARD_NEED_SDY, .sdy_kind = SHARD_ATTR_SDY_DIRECTION},
    {0},
};
static const shard_attr_req S_required_sdy_reduce_scatter[] = {
    {.name = "reduce_scatter_axes", .need = SHARD_NEED_SDY, .sdy_kind = SHARD_ATTR_SDY_AXIS_LISTS},
    {0},
};
static const shard_attr_req S_required_sdy_replicated_to_unreduced[] = {
    {.name = "axes", .need = SHARD_NEED_SDY, .sdy_kind = SHARD_ATTR_SDY_AXIS_LIST},
    {0},
};
static const shard_attr_req S_required_sdy_sharded_to_unreduced[] = {
    {.name = "axes", .need = SHARD_NEED_SDY, .sdy_kind = SHARD_ATTR_SDY_AXIS_LISTS},
    {0},
};
static const shard_attr_req S_required_sdy_sharding_group[] = {
    {.name = "group_id", .need = SHARD_NEED_INT},
    {0},
};

/* Sorted by name (strcmp): shard_op_def_lookup searches it by bisection. */
const shard_op_def shard_sdy_ops[] = {
    {.name = "sdy.all_gather",
     .parse = S_parse_all_gather,
     .print = S_print_all_gather,
     .inherent = all_gather_inherent,
     .traits = SDY | SHARD_TRAIT_COLLECTIVE,
     .required = S_required_sdy_all_gather},
    {.name = "sdy.all_reduce",
     .parse = S_parse_all_reduce,
     .print = S_print_all_reduce,
     .inherent = all_reduce_inherent,
     .traits = SDY | SHARD_TRAIT_COLLECTIVE,
     .required = S_required_sdy_all_reduce},
    {.name = "sdy.all_slice",
     .parse = S_parse_all_slice,
     .print = S_print_all_slice,
     .inherent = all_slice_inherent,
     .traits = SDY | SHARD_TRAIT_COLLECTIVE,
     .required = S_required_sdy_all_slice},
    {.name = "sdy.all_to_all",
     .parse = S_parse_all_to_all,
     .print = S_print_all_to_all,
     .inherent = all_to_all_inherent,
     .traits = SDY | SHARD_TRAIT_COLLECTIVE,
     .required = S_required_sdy_all_to_all},
    {.name = "sdy.collective_permute",
     .parse = S_parse_collective_permute,
     .print = S_print_collective_permute,
     .inherent = permute_inherent,
     .traits = SDY | SHARD_TRAIT_COLLECTIVE},
    /* Unlike stablehlo.constant, no "cst"/"c" result name: sdy_opt prints %0. */
    {.name = "sdy.constant",
     .parse = S_parse_constant,
     .print = S_print_constant,
     .inherent = constant_inherent,
     .traits = SDY,
     .required = S_required_sdy_constant,
     .signature = &S_signature_sdy_constant},
    {.name = "sdy.data_flow_edge",
     .parse = S_parse_data_flow_edge,
     .print = S_print_data_flow_edge,
     .inherent = sharding_inherent,
     .traits = SDY,
     .signature = &S_signature_same_type},
    {.name = "sdy.func_data_flow_edge",
     .parse = S_parse_func_data_flow_edge,
     .print = S_print_func_data_flow_edge,
     .inherent = NULL,
     .traits = SDY,
     .signature = &S_signature_same_type},
    {.name = "sdy.manual_computation",
     .parse = S_parse_manual_computation,
     .print = S_print_manual_computation,
     .inherent = computation_inherent,
     .traits = SDY | SHARD_TRAIT_ISOLATED,
     .required = S_required_sdy_manual_computation},
    {.name = "sdy.mesh",
     .parse = S_parse_mesh,
     .print = S_print_mesh,
     .inherent = mesh_inherent,
     .traits = SDY | SHARD_TRAIT_SYMBOL,
     .required = S_required_sdy_mesh},
    /* IsolatedFromAbove in ops.td, like manual_computation. */
    {.name = "sdy.named_computation",
     .parse = S_parse_named_computation,
     .print = S_print_named_computation,
     .inherent = named_inherent,
     .traits = SDY | SHARD_TRAIT_ISOLATED,
     .required = S_required_sdy_named_computation},
    {.name = "sdy.propagation_barrier",
     .parse = S_parse_propagation_barrier,
     .print = S_print_propagation_barrier,
     .inherent = barrier_inherent,
     .traits = SDY,
     .required = S_required_sdy_propagation_barrier},
    {.name = "sdy.reduce_scatter",
     .parse = S_parse_reduce_scatter,
     .print = S_print_reduce_scatter,
     .inherent = reduce_scatter_inherent,
     .traits = SDY | SHARD_TRAIT_COLLECTIVE,
     .required = S_required_sdy_reduce_scatter},
    {.name = "sdy.replicated_to_unreduced",
     .parse = S_parse_replicated_to_unreduced,
     .print = S_print_replicated_to_unreduced,
     .inherent = unreduced_inherent,
     .traits = SDY | SHARD_TRAIT_COLLECTIVE,
     .required = S_required_sdy_replicated_to_unreduced},
    {.name = "sdy.reshard",
     .parse = S_parse_sharded_value,
     .print = S_print_sharded_value,
     .inherent = sharding_inherent,
     .traits = SDY,
     .signature = &S_signature_same_type},
    {.name = "sdy.return",
     .parse = S_parse_return,
     .print = shard_printer_return_form,
     .inherent = NULL,
     .traits = SDY | SHARD_TRAIT_TERMINATOR},
    {.name = "sdy.sharded_to_unreduced",
     .parse = S_parse_sharded_to_unreduced,
     .print = S_print_sharded_to_unreduced,
     .inherent = unreduced_inherent,
     .traits = SDY | SHARD_TRAIT_COLLECTIVE,
     .required = S_required_sdy_sharded_to_unreduced},
    {.name = "sdy.sharding_constraint",
     .parse = S_parse_sharded_value,
     .print = S_print_sharded_value,
     .inherent = sharding_inherent,
     .traits = SDY},
    {.name = "sdy.sharding_group",
     .parse = S_parse_sharding_group,
     .print = S_print_sharding_group,
     .inherent = group_inherent,
     .traits = SDY,
     .required = S_required_sdy_sharding_group},
};

const unsigned shard_num_sdy_ops = sizeof shard_sdy_ops / sizeof shard_sdy_ops[0];
