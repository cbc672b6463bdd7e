/* Op definitions of the chlo dialect ("client HLO", StableHLO's ChloOps.td):
 * the ops JAX and XLA emit for functions StableHLO lacks (erf, lgamma,
 * top_k, acosh, ...) and the implicitly broadcasting binary ops. Only their
 * syntax lives here; the interpreter runs them (interp/interp_chlo.c), the
 * verifier checks them (verify/verify_chlo.c) and rules/rule_registry_chlo.c
 * gives them sharding rules.
 *
 *   %r = chlo.lgamma %x : tensor<4xf32> -> tensor<4xf32>
 *   %r = chlo.broadcast_add %a, %b {broadcast_dimensions = array<i64: 1>} :
 *            (tensor<4x3xf32>, tensor<3xf32>) -> tensor<4x3xf32>
 *   %r = chlo.next_after %a, %b : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
 *   %v, %i = chlo.top_k(%x, k = 2) : tensor<5x3xf32> -> (tensor<5x2xf32>, tensor<5x2xi32>)
 *   %c = chlo.constant dense<1.0> : tensor<f32>
 *   %y, %c = chlo.scan(%x) inits(%i) dimension=0 attributes {is_reverse = true} {
 *   ^bb0(%e: tensor<i32>, %acc: tensor<i32>): ... stablehlo.return %o, %n : ...
 *   } : (tensor<4xi32>, tensor<i32>) -> (tensor<4xi32>, tensor<i32>)
 *
 * The assembly formats are ChloOps.td's. Ops without one (constant_like,
 * ragged_dot, mulhi) are read and printed in generic form. Every
 * attribute of a chlo op is a property (inherent), as in MLIR. */
#include <stdlib.h>
#include <string.h>

#include "ir/opdef.h"
#include "ir/ops_chlo.h"

/* ---- parsing -------------------------------------------------------------- */

// typed-n ::= operand (',' operand){n-1} attr-dict ':' type (',' type){n-1} '->' type
// (unary: n = 1; pair: n = 2)
static bool S_parse_typed(shard_parser *p, shard_op_state *st, uint32_t n) {
  for (uint32_t i = 0; i < n; i++)
    if ((i && !shard_parser_expect(p, ",")) || !shard_parser_operand(p, st)) return false;
  if (!shard_parser_attr_dict(p, st) || !shard_parser_expect(p, ":")) return false;
  for (uint32_t i = 0; i < n; i++) {
    shard_type *t;
    if ((i && !shard_parser_expect(p, ",")) || !shard_parser_type(p, &t)) return false;
    SHARD_VEC_PUSH(st->operand_types, t);
  }
  shard_type *r;
  if (!shard_parser_expect(p, "->") || !shard_parser_type(p, &r)) return false;
  SHARD_VEC_PUSH(st->result_types, r);
  return true;
}

// unary ::= operand attr-dict ':' type '->' type
static bool S_parse_unary(shard_parser *p, shard_op_state *st) { return S_parse_typed(p, st, 1); }

// broadcast-binary ::= operand ',' operand attr-dict ':' '(' type ',' type ')' '->' type
// broadcast-select ::= operand ',' operand ',' operand attr-dict ':' '(' type ',' type ',' type ')' '->' type
static bool S_parse_broadcast(shard_parser *p, shard_op_state *st) {
  if (!shard_parser_operand_list(p, st) || !shard_parser_attr_dict(p, st) || !shard_parser_expect(p, ":")) return false;
  shard_span at = shard_parser_here(p);
  uint32_t before = st->operand_types.len;
  if (!shard_parser_functional_type(p, st)) return false;
  if (st->operand_types.len - before != st->operands.len)
    return shard_parser_error_at(p, at, "%u operands present, but expected %u", st->operands.len,
                                 st->operand_types.len - before);
  return true;
}

// pair ::= operand ',' operand attr-dict ':' type ',' type '->' type   (next_after, polygamma, zeta)
static bool S_parse_pair(shard_parser *p, shard_op_state *st) { return S_parse_typed(p, st, 2); }

// top-k ::= '(' operand ',' 'k' '=' int ')' attr-dict ':' type '->' '(' type ',' type ')'
static bool S_parse_top_k(shard_parser *p, shard_op_state *st) {
  int64_t k;
  shard_type *a, *v, *i;
  if (!shard_parser_expect(p, "(") || !shard_parser_operand(p, st) || !shard_parser_expect(p, ",") ||
      !shard_parser_expect_keyword(p, "k") || !shard_parser_expect(p, "="))
    return false;
  shard_span at = shard_parser_here(p);
  if (!shard_parser_int(p, &k) || !shard_parser_expect(p, ")")) return false;
  shard_arena *ar = shard_parser_arena(p);
  shard_attr *ka = shard_attr_int(ar, k, shard_type_other(ar, "i64"));
  ka->span = at;
  shard_op_state_add_attr(st, "k", ka, true);
  if (!shard_parser_attr_dict(p, st) || !shard_parser_expect(p, ":") || !shard_parser_type(p, &a) ||
      !shard_parser_expect(p, "->") || !shard_parser_expect(p, "(") || !shard_parser_type(p, &v) ||
      !shard_parser_expect(p, ",") || !shard_parser_type(p, &i) || !shard_parser_expect(p, ")"))
    return false;
  SHARD_VEC_PUSH(st->operand_types, a);
  SHARD_VEC_PUSH(st->result_types, v);
  SHARD_VEC_PUSH(st->result_types, i);
  return true;
}

// constant ::= attr-dict elements-attr
static bool S_parse_constant(shard_parser *p, shard_op_state *st) {
  if (!shard_parser_attr_dict(p, st)) return false;
  shard_span at = shard_parser_here(p);
  shard_attr *v;
  if (!shard_parser_attr(p, &v)) return false;
  if (v->kind != SHARD_ATTR_DENSE || !v->u.dense.type)
    return shard_parser_error_at(p, at, "expected elements attribute with a type");
  v->span = at;
  shard_op_state_add_attr(st, "value", v, true);
  SHARD_VEC_PUSH(st->result_types, v->u.dense.type);
  return true;
}

// scan ::= '(' operands ')' 'inits' '(' operands ')' 'dimension' '=' int
//          ('attributes' attr-dict)? region ':' function-type
// The inputs and the inits are the operands in that order; their numbers
// are the inherent operandSegmentSizes = array<i32: inputs, inits>, as for
// MLIR's AttrSizedOperandSegments.
static bool S_parse_scan(shard_parser *p, shard_op_state *st) {
  if (!shard_parser_expect(p, "(")) return false;
  if (!shard_parser_accept(p, ")") && (!shard_parser_operand_list(p, st) || !shard_parser_expect(p, ")"))) return false;
  int64_t seg[2];
  seg[0] = st->operands.len;
  if (!shard_parser_expect_keyword(p, "inits") || !shard_parser_expect(p, "(")) return false;
  if (!shard_parser_accept(p, ")") && (!shard_parser_operand_list(p, st) || !shard_parser_expect(p, ")"))) return false;
  seg[1] = st->operands.len - seg[0];
  if (!shard_parser_expect_keyword(p, "dimension") || !shard_parser_expect(p, "=")) return false;
  shard_span at = shard_parser_here(p);
  int64_t dim;
  if (!shard_parser_int(p, &dim)) return false;
  shard_arena *ar = shard_parser_arena(p);
  shard_attr *da = shard_attr_int(ar, dim, shard_type_other(ar, "i64"));
  da->span = at;
  shard_op_state_add_attr(st, "dimension", da, true);
  shard_attr *sa = shard_attr_dense_i64(ar, seg, 2);
  sa->u.dense_array.elem = "i32";
  shard_op_state_add_attr(st, "operandSegmentSizes", sa, true);
  if (shard_parser_accept_keyword(p, "attributes") && !shard_parser_attr_dict(p, st)) return false;
  if (!shard_parser_region(p, st, NULL, 0) || !shard_parser_expect(p, ":")) return false;
  at = shard_parser_here(p);
  if (!shard_parser_functional_type(p, st)) return false;
  if (st->operand_types.len != st->operands.len)
    return shard_parser_error_at(p, at, "%u operands present, but expected %u", st->operands.len,
                                 st->operand_types.len);
  return true;
}

/* ---- printing ------------------------------------------------------------- */

static void S_print_operand_type(shard_printer *pr, const shard_op *op, uint32_t i) {
  shard_printer_type(pr, i < op->num_operands && op->operands[i].value ? op->operands[i].value->type : NULL);
}

/* typed-n (S_parse_typed): the types of the first n operands, then the result's. */
static void S_print_typed(shard_printer *pr, const shard_op *op, uint32_t n) {
  shard_printer_puts(pr, " ");
  shard_printer_operands(pr, op, 0, op->num_operands);
  shard_printer_attr_dict_all(pr, op, NULL);
  shard_printer_puts(pr, " : ");
  for (uint32_t i = 0; i < n; i++) {
    if (i) shard_printer_puts(pr, ", ");
    S_print_operand_type(pr, op, i);
  }
  shard_printer_puts(pr, " -> ");
  shard_printer_type(pr, op->num_results ? op->results[0].type : NULL);
}

static void S_print_unary(shard_printer *pr, const shard_op *op) { S_print_typed(pr, op, 1); }

static void S_print_broadcast(shard_printer *pr, const shard_op *op) {
  shard_printer_puts(pr, " ");
  shard_printer_operands(pr, op, 0, op->num_operands);
  shard_printer_attr_dict_all(pr, op, NULL);
  shard_printer_puts(pr, " : ");
  shard_printer_functional_type(pr, op);
}

static void S_print_pair(shard_printer *pr, const shard_op *op) { S_print_typed(pr, op, 2); }

static void S_print_top_k(shard_printer *pr, const shard_op *op) {
  const shard_attr *k = shard_op_attr(op, "k");
  shard_printer_puts(pr, "(");
  shard_printer_operands(pr, op, 0, op->num_operands);
  if (k && k->kind == SHARD_ATTR_INT) shard_printer_printf(pr, ", k = %lld)", (long long)k->u.integer.value);
  else shard_printer_puts(pr, ", k = <<NULL ATTRIBUTE>>)");
  const char *el[] = {"k", NULL};
  shard_printer_attr_dict_all(pr, op, el);
  shard_printer_puts(pr, " : ");
  S_print_operand_type(pr, op, 0);
  shard_printer_puts(pr, " -> (");
  shard_printer_type(pr, op->num_results > 0 ? op->results[0].type : NULL);
  shard_printer_puts(pr, ", ");
  shard_printer_type(pr, op->num_results > 1 ? op->results[1].type : NULL);
  shard_printer_puts(pr, ")");
}

static void S_print_scan(shard_printer *pr, const shard_op *op) {
  uint32_t ninputs = shard_chlo_scan_num_inputs(op);
  shard_printer_puts(pr, "(");
  shard_printer_operands(pr, op, 0, ninputs);
  shard_printer_puts(pr, ") inits(");
  shard_printer_operands(pr, op, ninputs, op->num_operands);
  shard_printer_puts(pr, ") dimension=");
  const shard_attr *d = shard_op_attr(op, "dimension");
  if (d && d->kind == SHARD_ATTR_INT) shard_printer_printf(pr, "%lld", (long long)d->u.integer.value);
  else shard_printer_puts(pr, "<<NULL ATTRIBUTE>>");
  const char *el[] = {"dimension", "operandSegmentSizes", NULL};
  bool more = false;
  for (uint32_t i = 0; i < op->num_attrs && !more; i++)
    more = strcmp(op->attrs[i].name, "dimension") != 0 && strcmp(op->attrs[i].name, "operandSegmentSizes") != 0;
  if (more) {
    shard_printer_puts(pr, " attributes");
    shard_printer_attr_dict_all(pr, op, el);
  }
  if (op->num_regions) shard_printer_region(pr, &op->regions[0], true, false);
  shard_printer_puts(pr, " : ");
  shard_printer_functional_type(pr, op);
}

static void S_print_constant(shard_printer *pr, const shard_op *op) {
  const char *el[] = {"value", NULL};
  shard_printer_attr_dict_all(pr, op, el);
  shard_printer_puts(pr, " ");
  shard_printer_attr(pr, shard_op_attr(op, "value"));
}

/* ---- attributes ----------------------------------------------------------- */

shard_attr *shard_chlo_enum_decode(shard_arena *a, const char *text) {
  if (strncmp(text, "#chlo<", 6) != 0) return NULL;
  shard_attr *e = shard_attr_shlo_decode(a, shard_arena_printf(a, "#stablehlo%s", text + 5));
  if (!e || e->kind != SHARD_ATTR_SHLO_ENUM ||
      !(e->u.shlo_enum.kind == SHARD_SHLO_COMPARISON_DIRECTION || e->u.shlo_enum.kind == SHARD_SHLO_COMPARISON_TYPE ||
        e->u.shlo_enum.kind == SHARD_SHLO_PRECISION))
    return NULL;
  e->chlo = true;
  return e;
}

/* ---- the table ------------------------------------------------------------ */

static const char *const S_inh_broadcast[] = {"broadcast_dimensions", NULL};
static const char *const S_inh_compare[] = {"broadcast_dimensions", "comparison_direction", "compare_type", NULL};
static const char *const S_inh_top_k[] = {"k", NULL};
static const char *const S_inh_value[] = {"value", NULL};
static const char *const S_inh_scan[] = {"dimension", "is_reverse", "operandSegmentSizes", NULL};
static const char *const S_inh_ragged_dot[] = {"ragged_dot_dimension_numbers", "precision_config", NULL};

static const shard_op_signature S_sig_unary = {1, 1, 0, 0};
static const shard_op_signature S_sig_same_unary = {1, 1, 0, SHARD_SIG_SAME_OPERANDS_AND_RESULTS};
static const shard_op_signature S_sig_binary = {2, 1, 0, 0};
static const shard_op_signature S_sig_same_binary = {2, 1, 0, SHARD_SIG_SAME_OPERANDS_AND_RESULTS};
static const shard_op_signature S_sig_select = {3, 1, 0, 0};
static const shard_op_signature S_sig_top_k = {1, 2, 0, 0};
static const shard_op_signature S_sig_constant = {0, 1, 0, 0};
static const shard_op_signature S_sig_ragged_dot = {3, 1, 0, 0};
static const shard_op_signature S_sig_scan = {SHARD_ARITY_ANY, SHARD_ARITY_ANY, 1, 0};
static const shard_attr_req S_req_scan[] = {
    {.name = "dimension", .need = SHARD_NEED_INT}, {.name = "operandSegmentSizes", .need = SHARD_NEED_PRESENT}, {0}};
static const shard_attr_req S_req_top_k[] = {{.name = "k", .need = SHARD_NEED_INT}, {0}};
static const shard_attr_req S_req_value[] = {{.name = "value", .need = SHARD_NEED_DENSE}, {0}};
static const shard_attr_req S_req_constant_like[] = {{.name = "value", .need = SHARD_NEED_PRESENT}, {0}};
static const shard_attr_req S_req_broadcast[] = {
    {.name = "broadcast_dimensions", .need = SHARD_NEED_DIMS, .optional = true}, {0}};
static const shard_attr_req S_req_ragged_dot[] = {{.name = "ragged_dot_dimension_numbers", .need = SHARD_NEED_PRESENT},
                                                  {0}};

#define S_UNARY(n)                                                                                                     \
  {                                                                                                                    \
    .name = "chlo." n, .parse = S_parse_unary, .print = S_print_unary, .traits = SHARD_TRAIT_ELEMENTWISE,              \
    .signature = &S_sig_same_unary                                                                                     \
  }
#define S_PRED(n)                                                                                                      \
  {                                                                                                                    \
    .name = "chlo." n, .parse = S_parse_unary, .print = S_print_unary, .traits = SHARD_TRAIT_ELEMENTWISE,              \
    .signature = &S_sig_unary                                                                                          \
  }
#define S_BCAST(n)                                                                                                     \
  {                                                                                                                    \
    .name = "chlo." n, .parse = S_parse_broadcast, .print = S_print_broadcast, .inherent = S_inh_broadcast,            \
    .required = S_req_broadcast, .signature = &S_sig_binary                                                            \
  }
#define S_PAIR(n)                                                                                                      \
  {                                                                                                                    \
    .name = "chlo." n, .parse = S_parse_pair, .print = S_print_pair, .traits = SHARD_TRAIT_ELEMENTWISE,                \
    .signature = &S_sig_same_binary                                                                                    \
  }

/* Sorted by name (strcmp order). */
const shard_op_def shard_chlo_ops[] = {
    S_UNARY("acos"),
    S_UNARY("acosh"),
    S_UNARY("asin"),
    S_UNARY("asinh"),
    S_UNARY("atan"),
    S_UNARY("atanh"),
    S_UNARY("bessel_i1e"),
    S_BCAST("broadcast_add"),
    S_BCAST("broadcast_and"),
    S_BCAST("broadcast_atan2"),
    {.name = "chlo.broadcast_compare",
     .parse = S_parse_broadcast,
     .print = S_print_broadcast,
     .inherent = S_inh_compare,
     .required = S_req_broadcast,
     .signature = &S_sig_binary},
    S_BCAST("broadcast_complex"),
    S_BCAST("broadcast_divide"),
    S_BCAST("broadcast_maximum"),
    S_BCAST("broadcast_minimum"),
    S_BCAST("broadcast_multiply"),
    S_BCAST("broadcast_next_after"),
    S_BCAST("broadcast_or"),
    S_BCAST("broadcast_polygamma"),
    S_BCAST("broadcast_power"),
    S_BCAST("broadcast_remainder"),
    {.name = "chlo.broadcast_select",
     .parse = S_parse_broadcast,
     .print = S_print_broadcast,
     .signature = &S_sig_select},
    S_BCAST("broadcast_shift_left"),
    S_BCAST("broadcast_shift_right_arithmetic"),
    S_BCAST("broadcast_shift_right_logical"),
    S_BCAST("broadcast_subtract"),
    S_BCAST("broadcast_xor"),
    S_BCAST("broadcast_zeta"),
    S_UNARY("conj"),
    {.name = "chlo.constant",
     .parse = S_parse_constant,
     .print = S_print_constant,
     .inherent = S_inh_value,
     .required = S_req_value,
     .signature = &S_sig_constant},
    {.name = "chlo.constant_like", .inherent = S_inh_value, .required = S_req_constant_like, .signature = &S_sig_unary},
    S_UNARY("cosh"),
    S_UNARY("digamma"),
    S_UNARY("erf"),
    S_UNARY("erf_inv"),
    S_UNARY("erfc"),
    S_PRED("is_inf"),
    S_PRED("is_neg_inf"),
    S_PRED("is_pos_inf"),
    S_UNARY("lgamma"),
    {.name = "chlo.mulhi", .traits = SHARD_TRAIT_ELEMENTWISE, .signature = &S_sig_same_binary},
    S_PAIR("next_after"),
    S_PAIR("polygamma"),
    {.name = "chlo.ragged_dot",
     .inherent = S_inh_ragged_dot,
     .required = S_req_ragged_dot,
     .signature = &S_sig_ragged_dot},
    {.name = "chlo.scan",
     .parse = S_parse_scan,
     .print = S_print_scan,
     .inherent = S_inh_scan,
     .required = S_req_scan,
     .signature = &S_sig_scan},
    S_UNARY("sinh"),
    S_UNARY("square"),
    S_UNARY("tan"),
    {.name = "chlo.top_k",
     .parse = S_parse_top_k,
     .print = S_print_top_k,
     .inherent = S_inh_top_k,
     .required = S_req_top_k,
     .signature = &S_sig_top_k},
    S_PAIR("zeta"),
};
const unsigned shard_num_chlo_ops = sizeof shard_chlo_ops / sizeof shard_chlo_ops[0];

/* ---- attribute readers (ops_chlo.h) ----------------------------------------- */

/* `key = [ints]` inside the text of an attribute; an absent key is an empty
 * list. False when the list is malformed or longer than max. */
static bool S_key_list(const char *text, const char *key, int64_t *out, uint32_t *n, uint32_t max) {
  size_t klen = strlen(key);
  *n = 0;
  for (const char *s = strstr(text, key); s; s = strstr(s + 1, key)) {
    if (s > text && (s[-1] == '_' || (s[-1] >= 'a' && s[-1] <= 'z'))) continue;
    const char *q = s + klen;
    while (*q == ' ' || *q == '\n' || *q == '\t' || *q == '\r') q++;
    if (*q != '=') continue;
    q++;
    while (*q == ' ' || *q == '\n' || *q == '\t' || *q == '\r') q++;
    if (*q++ != '[') return false;
    for (;;) {
      while (*q == ' ' || *q == ',' || *q == '\n' || *q == '\t' || *q == '\r') q++;
      if (*q == ']') return true;
      char *end;
      long long v = strtoll(q, &end, 10);
      if (end == q || *n >= max) return false;
      out[(*n)++] = v;
      q = end;
    }
  }
  return true;
}

bool shard_chlo_ragged_dot_dims(const shard_op *op, shard_chlo_ragged_dims *out) {
  const shard_attr *a = shard_op_attr(op, "ragged_dot_dimension_numbers");
  memset(out, 0, sizeof *out);
  if (!a || a->kind != SHARD_ATTR_RAW || !a->u.raw ||
      (!strstr(a->u.raw, "#chlo.ragged_dot<") && !strstr(a->u.raw, "#mhlo.ragged_dot<")))
    return false;
  const char *t = a->u.raw;
  enum { M = SHARD_CHLO_RAGGED_MAX_DIMS };
  return S_key_list(t, "lhs_batching_dimensions", out->lhs_batch, &out->num_lhs_batch, M) &&
         S_key_list(t, "rhs_batching_dimensions", out->rhs_batch, &out->num_rhs_batch, M) &&
         S_key_list(t, "lhs_contracting_dimensions", out->lhs_contract, &out->num_lhs_contract, M) &&
         S_key_list(t, "rhs_contracting_dimensions", out->rhs_contract, &out->num_rhs_contract, M) &&
         S_key_list(t, "lhs_ragged_dimensions", out->lhs_ragged, &out->num_lhs_ragged, M) &&
         S_key_list(t, "rhs_group_dimensions", out->rhs_group, &out->num_rhs_group, M);
}

uint32_t shard_chlo_scan_num_inputs(const shard_op *op) {
  const shard_attr *a = shard_op_attr(op, "operandSegmentSizes");
  if (a && a->kind == SHARD_ATTR_DENSE_ARRAY && a->u.dense_array.num == 2 && a->u.dense_array.vals[0] >= 0 &&
      a->u.dense_array.vals[0] <= (int64_t)op->num_operands)
    return (uint32_t)a->u.dense_array.vals[0];
  return op->num_operands; /* no segment sizes: the verifier rejects the op */
}
