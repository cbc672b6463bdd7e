/* Operand and result counts, and the type equalities, that ops' traits
 * demand (NOperands, OneResult, ZeroResults, AllTypesMatch, ...).
 *
 * Every op with a custom syntax prints fewer types than its generic form:
 * `check.expect_eq %a, %b : T` states one type for both operands, `stablehlo.
 * create_token : T` no operand at all. An op built in generic form that breaks
 * such a rule must therefore fail verification (as ODS-generated verifiers
 * make it fail in MLIR) rather than print a custom form that does not parse,
 * or means something else, when read back. Messages are the traits'. */
#include <string.h>

#include "verify_internal.h"

enum {
  S_ANY = -1,
  S_SAME_OPERANDS = 1u << 0, /* every operand has the first operand's type */
  S_OPERANDS_ARE_RESULTS = 1u << 1, /* operand i and result i have one type */
  S_TUPLE_OF_OPERANDS = 1u << 2,    /* the result is tuple<operand types> */
  S_BLOCKS_TAKE_OPERANDS = 1u << 3, /* each region is one block whose arguments
                                       have the operand types */
};

typedef struct {
  shard_op_name op; /* resolved to its definition on first use */
  int operands; /* S_ANY: any number */
  int results;
  int regions; /* S_ANY: any number */
  unsigned flags;
} S_signature;

static S_signature S_table[] = {
    {{"arith.constant", NULL}, 0, 1, S_ANY, 0},
    {{"check.expect_almost_eq", NULL}, 2, 0, S_ANY, S_SAME_OPERANDS},
    {{"check.expect_almost_eq_const", NULL}, 1, 0, S_ANY, 0},
    {{"check.expect_close", NULL}, 2, 0, S_ANY, 0},
    {{"check.expect_eq", NULL}, 2, 0, S_ANY, S_SAME_OPERANDS},
    {{"check.expect_eq_const", NULL}, 1, 0, S_ANY, 0},
    {{"interpreter.print", NULL}, 1, 0, S_ANY, 0},
    {{"sdy.constant", NULL}, 0, 1, S_ANY, 0},
    {{"stablehlo.cholesky", NULL}, 1, 1, S_ANY, 0},
    {{"stablehlo.complex", NULL}, 2, 1, S_ANY, 0},
    {{"stablehlo.constant", NULL}, 0, 1, S_ANY, 0},
    {{"stablehlo.convolution", NULL}, 2, 1, S_ANY, 0},
    {{"stablehlo.create_token", NULL}, 0, 1, S_ANY, 0},
    {{"stablehlo.dot", NULL}, 2, 1, S_ANY, 0},
    {{"stablehlo.dot_general", NULL}, 2, 1, S_ANY, 0},
    {{"stablehlo.iota", NULL}, 0, 1, S_ANY, 0},
    {{"stablehlo.optimization_barrier", NULL}, S_ANY, S_ANY, S_ANY,
     S_OPERANDS_ARE_RESULTS},
    {{"stablehlo.partition_id", NULL}, 0, 1, S_ANY, 0},
    {{"stablehlo.replica_id", NULL}, 0, 1, S_ANY, 0},
    {{"stablehlo.select", NULL}, 3, 1, S_ANY, 0},
    {{"stablehlo.tuple", NULL}, S_ANY, 1, S_ANY, S_TUPLE_OF_OPERANDS},
    {{"stablehlo.while", NULL}, S_ANY, S_ANY, 2,
     S_OPERANDS_ARE_RESULTS | S_BLOCKS_TAKE_OPERANDS},
};

static const shard_type *S_operand_type(const shard_op *op, uint32_t i) {
  return op->operands[i].value ? op->operands[i].value->type : NULL;
}

static bool S_same(const shard_type *a, const shard_type *b) {
  return a && b && shard_type_equal(a, b);
}

static bool S_check_counts(const vf_emit *e, const shard_op *op,
                           const S_signature *s) {
  if (s->operands == 0 && op->num_operands)
    return shard_verify_fail(e, "requires zero operands");
  if (s->operands > 0 && op->num_operands != (uint32_t)s->operands)
    return shard_verify_fail(e, "expected %d operands, but found %u",
                             s->operands, op->num_operands);
  if (s->results == 0 && op->num_results)
    return shard_verify_fail(e, "requires zero results");
  if (s->results == 1 && op->num_results != 1)
    return shard_verify_fail(e, "requires one result");
  if (s->regions >= 0 && op->num_regions != (uint32_t)s->regions)
    return shard_verify_fail(e, "requires %d regions", s->regions);
  return true;
}

bool shard_verify_check_arity(vf_ctx *cx, const shard_op *op) {
  const S_signature *s = NULL;
  if (!op->def)
    return true; /* every listed op has a definition */
  for (size_t i = 0; i < sizeof S_table / sizeof S_table[0] && !s; i++)
    if (shard_op_is(op, &S_table[i].op))
      s = &S_table[i];
  if (!s)
    return true;
  vf_emit e = shard_verify_emit_op(cx, op, NULL);
  if (!S_check_counts(&e, op, s))
    return false;
  if (s->flags & S_SAME_OPERANDS)
    for (uint32_t i = 1; i < op->num_operands; i++)
      if (!S_same(S_operand_type(op, 0), S_operand_type(op, i)))
        return shard_verify_fail(&e,
                                 "requires all operands to have the same type");
  if (s->flags & S_OPERANDS_ARE_RESULTS) {
    if (op->num_operands != op->num_results)
      return shard_verify_fail(
          &e, "requires the same number of operands and results (%u vs %u)",
          op->num_operands, op->num_results);
    for (uint32_t i = 0; i < op->num_operands; i++)
      if (!S_same(S_operand_type(op, i), op->results[i].type))
        return shard_verify_fail(
            &e, "requires operand %u and result %u to have the same type", i,
            i);
  }
  if (s->flags & S_BLOCKS_TAKE_OPERANDS)
    for (uint32_t r = 0; r < op->num_regions; r++) {
      const shard_block *b = op->regions[r].first;
      if (!b || b->next)
        return shard_verify_fail(&e,
                                 "region #%u ('%s') failed to verify "
                                 "constraint: region with 1 blocks",
                                 r, r ? "body" : "cond");
      bool ok = b->num_args == op->num_operands;
      for (uint32_t i = 0; ok && i < b->num_args; i++)
        ok = S_same(b->args[i].type, S_operand_type(op, i));
      if (!ok)
        return shard_verify_fail(
            &e, "expect operands to be compatible with %s block arguments",
            r ? "body" : "condition");
    }
  if (s->flags & S_TUPLE_OF_OPERANDS) {
    const shard_type *t = op->results[0].type;
    bool ok =
        t && t->kind == SHARD_TYPE_TUPLE && t->num_inputs == op->num_operands;
    for (uint32_t i = 0; ok && i < op->num_operands; i++)
      ok = S_same(S_operand_type(op, i), t->inputs[i]);
    if (!ok)
      return shard_verify_fail(
          &e, "result type does not match the tuple of the operand types");
  }
  return true;
}
