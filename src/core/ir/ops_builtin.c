/* The builtin, func and arith ops shard needs: builtin.module, func.func,
 * func.return, func.call and arith.constant. Function argument attributes live on the entry block arguments
 * (or in `arg_attrs` for a declaration without body); result attributes in
 * the inherent `res_attrs` array. */
#include <string.h>

#include "ir/opdef.h"

typedef SHARD_VEC(shard_type *) type_vec;
typedef SHARD_VEC(shard_arg_decl) arg_vec;

/* ---- builtin.module ------------------------------------------------------ */

// module ::= 'module' symbol? ('attributes' attr-dict)? region
static bool S_module_parse(shard_parser *p, shard_op_state *st) {
  shard_arena *a = shard_parser_arena(p);
  if (shard_parser_peek(p).kind == SHARD_TOK_AT) {
    const char *name;
    if (!shard_parser_symbol(p, &name)) return false;
    shard_op_state_add_attr(st, "sym_name", shard_attr_string(a, name, (uint32_t)strlen(name)), true);
  }
  if (shard_parser_accept_keyword(p, "attributes") && !shard_parser_attr_dict(p, st)) return false;
  return shard_parser_region(p, st, NULL, 0);
}

static void S_module_print(shard_printer *pr, const shard_op *op) {
  shard_attr *name = shard_op_attr(op, "sym_name");
  if (name) {
    shard_printer_puts(pr, " ");
    shard_printer_attr(pr,
                       &(shard_attr){.kind = SHARD_ATTR_SYMREF, .u.symref = {(const char *[]){name->u.str.data}, 1}});
  }
  bool any = false;
  for (uint32_t i = 0; i < op->num_attrs; i++)
    if (strcmp(op->attrs[i].name, "sym_name") != 0) any = true;
  if (any) {
    shard_printer_puts(pr, " attributes");
    static const char *const elide[] = {"sym_name", NULL};
    shard_printer_attr_dict_all(pr, op, elide);
  }
  shard_printer_region(pr, &op->regions[0], false, false);
}

/* ---- func.func ------------------------------------------------------------- */

// func ::= 'func.func' visibility? symbol '(' args ')' ('->' results)?
//          ('attributes' attr-dict)? region?
static bool S_func_parse(shard_parser *p, shard_op_state *st) {
  shard_arena *a = shard_parser_arena(p);
  shard_tok t = shard_parser_peek(p);
  if (t.kind == SHARD_TOK_IDENT &&
      (shard_tok_is(&t, "public") || shard_tok_is(&t, "private") || shard_tok_is(&t, "nested"))) {
    shard_parser_next(p);
    shard_op_state_add_attr(st, "sym_visibility", shard_attr_string(a, t.text, t.len), true);
  }
  const char *name;
  if (!shard_parser_symbol(p, &name)) return false;
  shard_op_state_add_attr(st, "sym_name", shard_attr_string(a, name, (uint32_t)strlen(name)), true);

  /* arguments: named (%a: T {attrs}) for definitions, bare types for declarations */
  arg_vec args = {0};
  type_vec arg_types = {0};
  SHARD_VEC(shard_attr *) arg_attr_dicts = {0};
  bool ok = shard_parser_expect(p, "(");
  bool named = shard_parser_peek(p).kind == SHARD_TOK_PERCENT;
  if (ok && !shard_parser_accept(p, ")")) {
    do {
      shard_arg_decl d = {0};
      if (named) {
        if (!(ok = shard_parser_value_name(p, &d.ref) && shard_parser_expect(p, ":"))) break;
      }
      if (!(ok = shard_parser_type(p, &d.type))) break;
      shard_attr *dict = shard_attr_new(a, SHARD_ATTR_DICT);
      t = shard_parser_peek(p);
      if (t.kind == SHARD_TOK_PUNCT && shard_tok_is(&t, "{")) {
        if (!(ok = shard_parser_attr_dict_into(p, &d.attrs, &d.num_attrs))) break;
        dict->u.dict.entries = d.attrs;
        dict->u.dict.num = d.num_attrs;
      }
      if (!(ok = shard_parser_optional_loc(p, &d.loc))) break;
      SHARD_VEC_PUSH(args, d);
      SHARD_VEC_PUSH(arg_types, d.type);
      SHARD_VEC_PUSH(arg_attr_dicts, dict);
    } while (shard_parser_accept(p, ","));
    if (ok) ok = shard_parser_expect(p, ")");
  }
  /* results: T | '(' (T attr-dict?) (',' ...)* ')' */
  type_vec res_types = {0};
  SHARD_VEC(shard_attr *) res_attr_dicts = {0};
  bool any_res_attrs = false;
  if (ok && shard_parser_accept(p, "->")) {
    bool paren = shard_parser_accept(p, "(");
    if (!(paren && shard_parser_accept(p, ")"))) {
      do {
        shard_type *ty;
        if (!(ok = shard_parser_type(p, &ty))) break;
        shard_attr *dict = shard_attr_new(a, SHARD_ATTR_DICT);
        t = shard_parser_peek(p);
        if (paren && t.kind == SHARD_TOK_PUNCT && shard_tok_is(&t, "{")) {
          if (!(ok = shard_parser_attr_dict_into(p, &dict->u.dict.entries, &dict->u.dict.num))) break;
          if (dict->u.dict.num) any_res_attrs = true;
        }
        SHARD_VEC_PUSH(res_types, ty);
        SHARD_VEC_PUSH(res_attr_dicts, dict);
      } while (paren && shard_parser_accept(p, ","));
      if (ok && paren) ok = shard_parser_expect(p, ")");
    }
  }
  if (ok && shard_parser_accept_keyword(p, "attributes")) ok = shard_parser_attr_dict(p, st);
  if (ok) {
    shard_attr *ft = shard_attr_new(a, SHARD_ATTR_TYPE);
    ft->u.type = shard_type_function(a, arg_types.items, arg_types.len, res_types.items, res_types.len);
    shard_op_state_add_attr(st, "function_type", ft, true);
    if (any_res_attrs) {
      shard_op_state_add_attr(st, "res_attrs", shard_attr_array(a, res_attr_dicts.items, res_attr_dicts.len), true);
    }
    t = shard_parser_peek(p);
    if (t.kind == SHARD_TOK_PUNCT && shard_tok_is(&t, "{")) {
      if (!named && args.len) ok = shard_parser_error(p, "expected named arguments for a function with a body");
      else ok = shard_parser_region(p, st, args.items, args.len);
    } else {
      bool any_arg_attrs = false;
      for (uint32_t i = 0; i < arg_attr_dicts.len; i++)
        if (arg_attr_dicts.items[i]->u.dict.num) any_arg_attrs = true;
      if (any_arg_attrs) {
        shard_op_state_add_attr(st, "arg_attrs", shard_attr_array(a, arg_attr_dicts.items, arg_attr_dicts.len), true);
      }
    }
  }
  SHARD_VEC_FREE(args);
  SHARD_VEC_FREE(arg_types);
  SHARD_VEC_FREE(arg_attr_dicts);
  SHARD_VEC_FREE(res_types);
  SHARD_VEC_FREE(res_attr_dicts);
  return ok;
}

static void S_print_dict_entries(shard_printer *pr, const shard_named_attr *e, uint32_t n) {
  shard_attr dict = {.kind = SHARD_ATTR_DICT, .u.dict = {(shard_named_attr *)e, n}};
  shard_printer_puts(pr, " ");
  shard_printer_attr(pr, &dict);
}

static void S_func_print(shard_printer *pr, const shard_op *op) {
  shard_attr *vis = shard_op_attr(op, "sym_visibility");
  shard_attr *name = shard_op_attr(op, "sym_name");
  shard_attr *ft = shard_op_attr(op, "function_type");
  shard_attr *res_attrs = shard_op_attr(op, "res_attrs");
  shard_attr *arg_attrs = shard_op_attr(op, "arg_attrs");
  if (vis && vis->kind == SHARD_ATTR_STRING) {
    shard_printer_puts(pr, " ");
    shard_printer_puts(pr, vis->u.str.data);
  }
  shard_printer_puts(pr, " ");
  if (name) {
    shard_attr sym = {.kind = SHARD_ATTR_SYMREF, .u.symref = {(const char *[]){name->u.str.data}, 1}};
    shard_printer_attr(pr, &sym);
  }
  const shard_type *fty = ft && ft->kind == SHARD_ATTR_TYPE ? ft->u.type : NULL;
  const shard_block *entry = op->num_regions && op->regions[0].first ? op->regions[0].first : NULL;
  /* `{}` (and the generic `({\n})`) reads as one empty block; in MLIR it is
   * an empty region: a declaration, printed without a body */
  if (entry && !entry->first && !entry->num_args && !entry->next) entry = NULL;
  shard_printer_puts(pr, "(");
  if (entry) {
    for (uint32_t i = 0; i < entry->num_args; i++) {
      if (i) shard_printer_puts(pr, ", ");
      shard_printer_value(pr, &entry->args[i]);
      shard_printer_puts(pr, ": ");
      shard_printer_type(pr, entry->args[i].type);
      if (entry->arg_info[i].num_attrs)
        S_print_dict_entries(pr, entry->arg_info[i].attrs, entry->arg_info[i].num_attrs);
    }
  } else if (fty) {
    for (uint32_t i = 0; i < fty->num_inputs; i++) {
      if (i) shard_printer_puts(pr, ", ");
      shard_printer_type(pr, fty->inputs[i]);
      if (arg_attrs && arg_attrs->kind == SHARD_ATTR_ARRAY && i < arg_attrs->u.array.num) {
        shard_attr *d = arg_attrs->u.array.elems[i];
        if (d->kind == SHARD_ATTR_DICT && d->u.dict.num) S_print_dict_entries(pr, d->u.dict.entries, d->u.dict.num);
      }
    }
  }
  shard_printer_puts(pr, ")");
  if (fty && fty->num_results) {
    bool attrs = res_attrs && res_attrs->kind == SHARD_ATTR_ARRAY;
    /* as MLIR's printFunctionResultList: an empty first dictionary (a
     * generic `res_attrs = [{}]`) needs no parentheses */
    bool first_attrs = attrs && res_attrs->u.array.num && res_attrs->u.array.elems[0]->kind == SHARD_ATTR_DICT &&
                       res_attrs->u.array.elems[0]->u.dict.num;
    bool paren = first_attrs || fty->num_results != 1 || fty->results[0]->kind == SHARD_TYPE_FUNCTION;
    shard_printer_puts(pr, paren ? " -> (" : " -> ");
    for (uint32_t i = 0; i < fty->num_results; i++) {
      if (i) shard_printer_puts(pr, ", ");
      shard_printer_type(pr, fty->results[i]);
      if (attrs && i < res_attrs->u.array.num) {
        shard_attr *d = res_attrs->u.array.elems[i];
        if (d->kind == SHARD_ATTR_DICT && d->u.dict.num) S_print_dict_entries(pr, d->u.dict.entries, d->u.dict.num);
      }
    }
    if (paren) shard_printer_puts(pr, ")");
  }
  static const char *const elide[] = {"sym_visibility", "sym_name", "function_type", "res_attrs", "arg_attrs", NULL};
  bool extra = false;
  for (uint32_t i = 0; i < op->num_attrs; i++) {
    bool elided = false;
    for (const char *const *e = elide; *e; e++)
      if (strcmp(*e, op->attrs[i].name) == 0) elided = true;
    if (!elided) extra = true;
  }
  if (extra) {
    shard_printer_puts(pr, " attributes");
    shard_printer_attr_dict_all(pr, op, elide);
  }
  if (entry) shard_printer_region(pr, &op->regions[0], false, true);
}

/* ---- func.return ------------------------------------------------------------ */

// return ::= 'return' attr-dict? (operands ':' types)?
static bool S_return_parse(shard_parser *p, shard_op_state *st) {
  if (!shard_parser_attr_dict(p, st)) return false;
  if (shard_parser_peek(p).kind != SHARD_TOK_PERCENT) return true;
  if (!shard_parser_operand_list(p, st) || !shard_parser_expect(p, ":")) return false;
  do {
    shard_type *t;
    if (!shard_parser_type(p, &t)) return false;
    SHARD_VEC_PUSH(st->operand_types, t);
  } while (shard_parser_accept(p, ","));
  return true;
}

/* ---- func.call ------------------------------------------------------------------ */

// call ::= 'call' symbol '(' operands ')' attr-dict ':' function-type
static bool S_call_parse(shard_parser *p, shard_op_state *st) {
  shard_arena *a = shard_parser_arena(p);
  shard_attr *callee = shard_attr_new(a, SHARD_ATTR_SYMREF);
  const char *name;
  if (!shard_parser_symbol(p, &name)) return false;
  callee->u.symref.path = shard_arena_dup(a, &name, sizeof name);
  callee->u.symref.num = 1;
  shard_op_state_add_attr(st, "callee", callee, true);
  if (!shard_parser_expect(p, "(")) return false;
  if (!shard_parser_accept(p, ")")) {
    if (!shard_parser_operand_list(p, st) || !shard_parser_expect(p, ")")) return false;
  }
  if (!shard_parser_attr_dict(p, st) || !shard_parser_expect(p, ":")) return false;
  return shard_parser_functional_type(p, st);
}

static void S_call_print(shard_printer *pr, const shard_op *op) {
  shard_printer_puts(pr, " ");
  shard_attr *callee = shard_op_attr(op, "callee");
  if (callee) shard_printer_attr(pr, callee);
  shard_printer_puts(pr, "(");
  shard_printer_operands(pr, op, 0, op->num_operands);
  shard_printer_puts(pr, ")");
  static const char *const elide[] = {"callee", NULL};
  shard_printer_attr_dict(pr, op, elide);
  shard_printer_puts(pr, " : ");
  shard_printer_functional_type(pr, op);
}

/* ---- arith.constant ------------------------------------------------------ */

// constant ::= 'arith.constant' attr-dict? attr   (typed attribute: dense<..> : T, 1 : i32)
static bool S_arith_constant_parse(shard_parser *p, shard_op_state *st) {
  if (!shard_parser_attr_dict(p, st)) return false;
  shard_span at = shard_parser_here(p);
  shard_attr *value;
  if (!shard_parser_attr(p, &value)) return false;
  shard_type *type = value->kind == SHARD_ATTR_DENSE   ? value->u.dense.type
                     : value->kind == SHARD_ATTR_INT   ? value->u.integer.type
                     : value->kind == SHARD_ATTR_FLOAT ? value->u.flt.type
                                                       : NULL;
  if (!type) {
    if (value->kind == SHARD_ATTR_BOOL) type = shard_type_other(shard_parser_arena(p), "i1");
    else return shard_parser_error_at(p, at, "expected a typed constant value");
  }
  if (value->kind == SHARD_ATTR_INT && !value->u.integer.type) value->u.integer.type = type;
  shard_op_state_add_attr(st, "value", value, true);
  SHARD_VEC_PUSH(st->result_types, type);
  return true;
}

static void S_arith_constant_print(shard_printer *pr, const shard_op *op) {
  static const char *const elide[] = {"value", NULL};
  shard_printer_attr_dict(pr, op, elide);
  shard_attr *value = shard_op_attr(op, "value");
  shard_printer_puts(pr, " ");
  if (value) shard_printer_attr(pr, value);
}

/* MLIR names arith.constant results %cst, except integer scalars, which it
 * names after their value (%c0_i32): shard says %c for those. */
static const char *S_arith_constant_name(const shard_op *op) {
  shard_attr *value = shard_op_attr(op, "value");
  if (!value) return NULL;
  if (value->kind == SHARD_ATTR_BOOL) return value->u.boolean ? "true" : "false";
  return value->kind == SHARD_ATTR_INT ? "c" : "cst";
}

static const char *const module_inherent[] = {"sym_name", "sym_visibility", NULL};
static const char *const func_inherent[] = {"arg_attrs", "function_type",  "res_attrs",
                                            "sym_name",  "sym_visibility", NULL};
static const char *const call_inherent[] = {"arg_attrs", "callee", "no_inline", "res_attrs", NULL};
static const char *const constant_inherent[] = {"value", NULL};

/* ---- what the verifier demands before a custom form prints (opdef.h) ---- */

static const shard_attr_req S_required_arith_constant[] = {
    {.name = "value", .need = SHARD_NEED_PRESENT},
    {0},
};
static const shard_op_signature S_signature_arith_constant = {0, 1, SHARD_ARITY_ANY, 0};
/* A module is one region and nothing else; a function takes no operands
 * and gives no results (its own are its type's), its body being optional.
 * Their custom syntax has no place for anything more. */
static const shard_op_signature S_signature_builtin_module = {0, 0, 1, 0};
static const shard_op_signature S_signature_func_func = {0, 0, SHARD_ARITY_ANY, 0};
static const shard_attr_req S_required_func_call[] = {
    {.name = "callee", .need = SHARD_NEED_SYMREF},
    {0},
};
static const shard_attr_req S_required_func_func[] = {
    {.name = "function_type", .need = SHARD_NEED_FUNCTION_TYPE},
    {.name = "sym_name", .need = SHARD_NEED_STRING},
    {0},
};

const shard_op_def shard_builtin_ops[] = {
    {.name = "arith.constant",
     .parse = S_arith_constant_parse,
     .print = S_arith_constant_print,
     .inherent = constant_inherent,
     .result_name = S_arith_constant_name,
     .required = S_required_arith_constant,
     .signature = &S_signature_arith_constant},
    {.name = "builtin.module",
     .parse = S_module_parse,
     .print = S_module_print,
     .inherent = module_inherent,
     .traits = SHARD_TRAIT_ISOLATED | SHARD_TRAIT_NO_TERMINATOR | SHARD_TRAIT_SYMBOL,
     .signature = &S_signature_builtin_module},
    {.name = "func.call",
     .parse = S_call_parse,
     .print = S_call_print,
     .inherent = call_inherent,
     .required = S_required_func_call},
    {.name = "func.func",
     .parse = S_func_parse,
     .print = S_func_print,
     .inherent = func_inherent,
     .traits = SHARD_TRAIT_ISOLATED | SHARD_TRAIT_SYMBOL,
     .required = S_required_func_func,
     .signature = &S_signature_func_func},
    {.name = "func.return",
     .parse = S_return_parse,
     .print = shard_printer_return_form,
     .traits = SHARD_TRAIT_TERMINATOR},
};
const unsigned shard_num_builtin_ops = sizeof shard_builtin_ops / sizeof shard_builtin_ops[0];
