/* Op definitions of StableHLO's test dialects: `check` (expectations the
 * interpreter verifies) and `interpreter` (run_parallel, print). Only their
 * syntax lives here; what they do is in interp.c.
 *
 *   check.expect_eq %a, %b : tensor<2xf32>
 *   check.expect_eq_const %a, dense<[1, 2]> : tensor<2xi32>
 *   check.expect_almost_eq %a, %b, tolerance = 1.0e-3 : tensor<2xf32>
 *   check.expect_almost_eq_const %a, dense<...> : tensor<2xf32>, tolerance = 1.0e-3
 *   check.expect_close %a, %b, max_ulp_difference = 3 : tensor<2xf32>, tensor<2xf32>
 *   interpreter.print %a : tensor<2xf32>
 *   %p = interpreter.probe %a, probe_id = "p" : tensor<2xf32>
 *   check.expect_serialized_eq %a, probe_id = "p", iter = 1 : tensor<2xf32>
 *
 * interpreter.run_parallel has no custom syntax (generic form only). */
#include <stdlib.h>
#include <string.h>

#include "ir/opdef.h"

// operand ::= ssa-use ; appends its type later from `type`
static bool S_operand_pair(shard_parser *p, shard_op_state *st) {
  return shard_parser_operand(p, st) && shard_parser_expect(p, ",") && shard_parser_operand(p, st);
}

// keyword-attr ::= kw '=' ('-'? number | attribute)
// A bare number is read as such: the general attribute parser would take
// the ':' that follows it as the start of a type suffix.
static bool S_attr_keyword(shard_parser *p, shard_op_state *st, const char *kw) {
  shard_attr *a;
  if (!shard_parser_expect_keyword(p, kw) || !shard_parser_expect(p, "=")) return false;
  uint32_t save = shard_parser_save(p);
  bool neg = shard_parser_accept(p, "-");
  shard_tok t = shard_parser_peek(p);
  if (t.kind == SHARD_TOK_FLOAT || t.kind == SHARD_TOK_INT) {
    shard_parser_next(p);
    shard_arena *ar = shard_parser_arena(p);
    char *text = shard_arena_printf(ar, "%s%.*s", neg ? "-" : "", (int)t.len, t.text);
    if (t.kind == SHARD_TOK_FLOAT) {
      a = shard_attr_new(ar, SHARD_ATTR_FLOAT);
      a->u.flt.text = text;
      a->u.flt.type = shard_type_other(ar, "f64");
    } else {
      a = shard_attr_int(ar, strtoll(text, NULL, 0), shard_type_other(ar, "i64"));
    }
  } else {
    shard_parser_restore(p, save);
    if (!shard_parser_attr(p, &a)) return false;
  }
  shard_op_state_add_attr(st, kw, a, true);
  return true;
}

// expect-eq ::= ssa-use ',' ssa-use attr-dict ':' type
static bool S_parse_expect_eq(shard_parser *p, shard_op_state *st) {
  shard_type *t;
  if (!S_operand_pair(p, st) || !shard_parser_attr_dict(p, st) || !shard_parser_expect(p, ":") ||
      !shard_parser_type(p, &t))
    return false;
  SHARD_VEC_PUSH(st->operand_types, t);
  SHARD_VEC_PUSH(st->operand_types, t);
  return true;
}

// expect-almost-eq ::= ssa-use ',' ssa-use (',' 'tolerance' '=' float)? attr-dict ':' type
static bool S_parse_expect_almost_eq(shard_parser *p, shard_op_state *st) {
  shard_type *t;
  if (!S_operand_pair(p, st)) return false;
  if (shard_parser_accept(p, ",") && !S_attr_keyword(p, st, "tolerance")) return false;
  if (!shard_parser_attr_dict(p, st) || !shard_parser_expect(p, ":") || !shard_parser_type(p, &t)) return false;
  SHARD_VEC_PUSH(st->operand_types, t);
  SHARD_VEC_PUSH(st->operand_types, t);
  return true;
}

// expect-const ::= ssa-use ',' elements-attr (',' 'tolerance' '=' float)? attr-dict
static bool S_parse_expect_const(shard_parser *p, shard_op_state *st) {
  shard_attr *v;
  shard_span at;
  if (!shard_parser_operand(p, st) || !shard_parser_expect(p, ",")) return false;
  at = shard_parser_here(p);
  if (!shard_parser_attr(p, &v)) return false;
  if (v->kind != SHARD_ATTR_DENSE || !v->u.dense.type)
    return shard_parser_error_at(p, at, "expected elements attribute with a type");
  shard_op_state_add_attr(st, "value", v, true);
  if (shard_parser_accept(p, ",") && !S_attr_keyword(p, st, "tolerance")) return false;
  if (!shard_parser_attr_dict(p, st)) return false;
  SHARD_VEC_PUSH(st->operand_types, v->u.dense.type);
  return true;
}

// expect-close ::= ssa-use ',' ssa-use ',' 'max_ulp_difference' '=' int
//                  (',' 'min_ulp_difference' '=' int)? ':' attr-dict type ',' type
static bool S_parse_expect_close(shard_parser *p, shard_op_state *st) {
  shard_type *a, *b;
  if (!S_operand_pair(p, st) || !shard_parser_expect(p, ",") || !S_attr_keyword(p, st, "max_ulp_difference"))
    return false;
  if (shard_parser_accept(p, ",") && !S_attr_keyword(p, st, "min_ulp_difference")) return false;
  if (!shard_parser_expect(p, ":") || !shard_parser_attr_dict(p, st) || !shard_parser_type(p, &a) ||
      !shard_parser_expect(p, ",") || !shard_parser_type(p, &b))
    return false;
  SHARD_VEC_PUSH(st->operand_types, a);
  SHARD_VEC_PUSH(st->operand_types, b);
  return true;
}

// print ::= ssa-use attr-dict ':' type
static bool S_parse_print(shard_parser *p, shard_op_state *st) {
  shard_type *t;
  if (!shard_parser_operand(p, st) || !shard_parser_attr_dict(p, st) || !shard_parser_expect(p, ":") ||
      !shard_parser_type(p, &t))
    return false;
  SHARD_VEC_PUSH(st->operand_types, t);
  return true;
}

// 'probe_id' '=' string: read as a bare string (the general attribute
// parser would take the ':' after it for a type suffix)
static bool S_probe_id(shard_parser *p, shard_op_state *st) {
  const char *text;
  uint32_t len;
  if (!shard_parser_expect_keyword(p, "probe_id") || !shard_parser_expect(p, "=") ||
      !shard_parser_string(p, &text, &len))
    return false;
  shard_op_state_add_attr(st, "probe_id", shard_attr_string(shard_parser_arena(p), text, len), true);
  return true;
}

// probe ::= ssa-use ',' 'probe_id' '=' string attr-dict ':' type
// (interpreter.probe: its one result has the operand's type)
static bool S_parse_probe(shard_parser *p, shard_op_state *st) {
  shard_type *t;
  if (!shard_parser_operand(p, st) || !shard_parser_expect(p, ",") || !S_probe_id(p, st) ||
      !shard_parser_attr_dict(p, st) || !shard_parser_expect(p, ":") || !shard_parser_type(p, &t))
    return false;
  SHARD_VEC_PUSH(st->operand_types, t);
  SHARD_VEC_PUSH(st->result_types, t);
  return true;
}

// serialized-eq ::= ssa-use ',' 'probe_id' '=' string (',' 'iter' '=' int)? attr-dict ':' type
// (the attribute behind `iter` is named `iteration`)
static bool S_parse_serialized_eq(shard_parser *p, shard_op_state *st) {
  shard_type *t;
  if (!shard_parser_operand(p, st) || !shard_parser_expect(p, ",") || !S_probe_id(p, st)) return false;
  if (shard_parser_accept(p, ",")) {
    if (!S_attr_keyword(p, st, "iter")) return false;
    st->attrs.items[st->attrs.len - 1].name = "iteration";
  }
  if (!shard_parser_attr_dict(p, st) || !shard_parser_expect(p, ":") || !shard_parser_type(p, &t)) return false;
  SHARD_VEC_PUSH(st->operand_types, t);
  return true;
}

static void S_print_operands(shard_printer *pr, const shard_op *op) {
  shard_printer_puts(pr, " ");
  shard_printer_operands(pr, op, 0, op->num_operands);
}

static void S_print_keyword(shard_printer *pr, const shard_op *op, const char *kw) {
  const shard_attr *a = shard_op_attr(op, kw);
  if (!a) return;
  shard_printer_printf(pr, ", %s = ", kw);
  /* numbers bare, as the assembly format prints an F64Attr / UI64Attr */
  if (a->kind == SHARD_ATTR_FLOAT) shard_printer_puts(pr, a->u.flt.text);
  else if (a->kind == SHARD_ATTR_INT) shard_printer_printf(pr, "%lld", (long long)a->u.integer.value);
  else shard_printer_attr(pr, a);
}

static void S_print_expect_eq(shard_printer *pr, const shard_op *op) {
  S_print_operands(pr, op);
  S_print_keyword(pr, op, "tolerance");
  shard_printer_attr_dict(pr, op, NULL);
  shard_printer_puts(pr, " : ");
  shard_printer_type(pr, op->operands[0].value->type);
}

static void S_print_probe(shard_printer *pr, const shard_op *op) {
  S_print_operands(pr, op);
  S_print_keyword(pr, op, "probe_id");
  const shard_attr *it = shard_op_attr(op, "iteration");
  if (it && it->kind == SHARD_ATTR_INT) shard_printer_printf(pr, ", iter = %lld", (long long)it->u.integer.value);
  shard_printer_attr_dict(pr, op, NULL);
  shard_printer_puts(pr, " : ");
  shard_printer_type(pr, op->operands[0].value->type);
}

static void S_print_expect_const(shard_printer *pr, const shard_op *op) {
  S_print_operands(pr, op);
  shard_printer_puts(pr, ", ");
  shard_printer_attr(pr, shard_op_attr(op, "value"));
  S_print_keyword(pr, op, "tolerance");
  shard_printer_attr_dict(pr, op, NULL);
}

static void S_print_expect_close(shard_printer *pr, const shard_op *op) {
  S_print_operands(pr, op);
  S_print_keyword(pr, op, "max_ulp_difference");
  S_print_keyword(pr, op, "min_ulp_difference");
  shard_printer_puts(pr, " :");
  shard_printer_attr_dict(pr, op, NULL);
  shard_printer_puts(pr, " ");
  shard_printer_type(pr, op->operands[0].value->type);
  shard_printer_puts(pr, ", ");
  shard_printer_type(pr, op->operands[1].value->type);
}

static const char *const S_inh_tolerance[] = {"tolerance", NULL};
static const char *const S_inh_const[] = {"tolerance", "value", NULL};
static const char *const S_inh_close[] = {"max_ulp_difference", "min_ulp_difference", NULL};
static const char *const S_inh_serialized[] = {"iteration", "probe_id", NULL};
static const char *const S_inh_run_parallel[] = {"infeed", "programs", NULL};
static const char *const S_inh_probe[] = {"probe_id", NULL};

/* ---- what the verifier demands before a custom form prints (opdef.h) ---- */

static const shard_op_signature S_signature_check_expect_almost_eq = {2, 0, SHARD_ARITY_ANY, SHARD_SIG_SAME_OPERANDS};
static const shard_attr_req S_required_check_expect_almost_eq_const[] = {
    {.name = "value", .need = SHARD_NEED_DENSE},
    {0},
};
static const shard_op_signature S_signature_check_expect_almost_eq_const = {1, 0, SHARD_ARITY_ANY, 0};
static const shard_attr_req S_required_check_expect_close[] = {
    {.name = "max_ulp_difference", .need = SHARD_NEED_INT},
    {0},
};
static const shard_op_signature S_signature_check_expect_close = {2, 0, SHARD_ARITY_ANY, 0};
static const shard_op_signature S_signature_check_expect_eq = {2, 0, SHARD_ARITY_ANY, SHARD_SIG_SAME_OPERANDS};
static const shard_attr_req S_required_check_expect_eq_const[] = {
    {.name = "value", .need = SHARD_NEED_DENSE},
    {0},
};
static const shard_op_signature S_signature_check_expect_eq_const = {1, 0, SHARD_ARITY_ANY, 0};
static const shard_op_signature S_signature_interpreter_print = {1, 0, SHARD_ARITY_ANY, 0};
static const shard_op_signature S_signature_interpreter_probe = {1, 1, SHARD_ARITY_ANY, 0};

/* Sorted by name: every check.* name sorts before interpreter.*. */
const shard_op_def shard_check_ops[] = {
    {.name = "check.expect_almost_eq",
     .parse = S_parse_expect_almost_eq,
     .print = S_print_expect_eq,
     .inherent = S_inh_tolerance,
     .signature = &S_signature_check_expect_almost_eq},
    {.name = "check.expect_almost_eq_const",
     .parse = S_parse_expect_const,
     .print = S_print_expect_const,
     .inherent = S_inh_const,
     .required = S_required_check_expect_almost_eq_const,
     .signature = &S_signature_check_expect_almost_eq_const},
    {.name = "check.expect_close",
     .parse = S_parse_expect_close,
     .print = S_print_expect_close,
     .inherent = S_inh_close,
     .required = S_required_check_expect_close,
     .signature = &S_signature_check_expect_close},
    {.name = "check.expect_eq",
     .parse = S_parse_expect_eq,
     .print = S_print_expect_eq,
     .signature = &S_signature_check_expect_eq},
    {.name = "check.expect_eq_const",
     .parse = S_parse_expect_const,
     .print = S_print_expect_const,
     .inherent = S_inh_const,
     .required = S_required_check_expect_eq_const,
     .signature = &S_signature_check_expect_eq_const},
    {.name = "check.expect_serialized_eq",
     .parse = S_parse_serialized_eq,
     .print = S_print_probe,
     .inherent = S_inh_serialized,
     .signature = &S_signature_interpreter_print},
    {.name = "interpreter.print",
     .parse = S_parse_print,
     .print = S_print_expect_eq,
     .signature = &S_signature_interpreter_print},
    {.name = "interpreter.probe",
     .parse = S_parse_probe,
     .print = S_print_probe,
     .inherent = S_inh_probe,
     .signature = &S_signature_interpreter_probe},
    {.name = "interpreter.run_parallel", .inherent = S_inh_run_parallel},
};
const unsigned shard_num_check_ops = sizeof shard_check_ops / sizeof shard_check_ops[0];
