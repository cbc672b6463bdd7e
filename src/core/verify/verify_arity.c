/* Operand and result counts, and the type equalities, that ops' traits
 * demand (NOperands, OneResult, ZeroResults, AllTypesMatch, ...).
 *
 * Every op with a custom syntax prints fewer types than its generic form:
 * `check.expect_eq %a, %b : T` states one type for both operands, `stablehlo.
 * create_token : T` no operand at all. An op built in generic form that breaks
 * such a rule must therefore fail verification (as ODS-generated verifiers
 * make it fail in MLIR) rather than print a custom form that does not parse,
 * or means something else, when read back. Each op's definition (ops_*.c)
 * holds its signature; messages are the traits'. */
#include <string.h>

#include "ir/opdef.h"
#include "verify/verify_internal.h"

static const shard_type *S_operand_type(const shard_op *op, uint32_t i) {
  return op->operands[i].value ? op->operands[i].value->type : NULL;
}

static bool S_same(const shard_type *a, const shard_type *b) { return a && b && shard_type_equal(a, b); }

static bool S_check_counts(const vf_emit *e, const shard_op *op, const shard_op_signature *s) {
  if (s->operands == 0 && op->num_operands) return shard_verify_fail(e, "requires zero operands");
  if (s->operands > 0 && op->num_operands != (uint32_t)s->operands)
    return shard_verify_fail(e, "expected %d operands, but found %u", s->operands, op->num_operands);
  if (s->results == 0 && op->num_results) return shard_verify_fail(e, "requires zero results");
  if (s->results == 1 && op->num_results != 1) return shard_verify_fail(e, "requires one result");
  /* the texts of MLIR's ZeroRegions, OneRegion and NRegions traits */
  if (s->regions == 0 && op->num_regions) return shard_verify_fail(e, "requires zero regions");
  if (s->regions == 1 && op->num_regions != 1) return shard_verify_fail(e, "requires one region");
  if (s->regions > 1 && op->num_regions != (uint32_t)s->regions)
    return shard_verify_fail(e, "expected %d regions", s->regions);
  return true;
}

bool shard_verify_check_arity(vf_ctx *cx, const shard_op *op) {
  const shard_op_signature *s = op->def ? op->def->signature : NULL;
  if (!s) return true;
  vf_emit e = shard_verify_emit_op(cx, op, NULL);
  if (!S_check_counts(&e, op, s)) return false;
  if (s->flags & SHARD_SIG_SAME_OPERANDS)
    for (uint32_t i = 1; i < op->num_operands; i++)
      if (!S_same(S_operand_type(op, 0), S_operand_type(op, i)))
        return shard_verify_fail(&e, "requires all operands to have the same type");
  if (s->flags & SHARD_SIG_SAME_OPERANDS_AND_RESULTS) {
    const shard_type *first = op->num_operands ? S_operand_type(op, 0) : op->num_results ? op->results[0].type : NULL;
    for (uint32_t i = 0; i < op->num_operands + op->num_results; i++) {
      const shard_type *t = i < op->num_operands ? S_operand_type(op, i) : op->results[i - op->num_operands].type;
      if (!S_same(first, t)) return shard_verify_fail(&e, "requires the same type for all operands and results");
    }
  }
  if (s->flags & SHARD_SIG_OPERANDS_ARE_RESULTS) {
    if (op->num_operands != op->num_results)
      return shard_verify_fail(&e, "requires the same number of operands and results (%u vs %u)", op->num_operands,
                               op->num_results);
    for (uint32_t i = 0; i < op->num_operands; i++)
      if (!S_same(S_operand_type(op, i), op->results[i].type))
        return shard_verify_fail(&e, "requires operand %u and result %u to have the same type", i, i);
  }
  if (s->flags & SHARD_SIG_BLOCKS_TAKE_OPERANDS)
    for (uint32_t r = 0; r < op->num_regions; r++) {
      const shard_block *b = op->regions[r].first;
      if (!b || b->next)
        return shard_verify_fail(&e,
                                 "region #%u ('%s') failed to verify "
                                 "constraint: region with 1 blocks",
                                 r, r ? "body" : "cond");
      bool ok = b->num_args == op->num_operands;
      for (uint32_t i = 0; ok && i < b->num_args; i++) ok = S_same(b->args[i].type, S_operand_type(op, i));
      if (!ok)
        return shard_verify_fail(&e, "expect operands to be compatible with %s block arguments",
                                 r ? "body" : "condition");
    }
  if (s->flags & SHARD_SIG_TUPLE_OF_OPERANDS) {
    const shard_type *t = op->results[0].type;
    bool ok = t && t->kind == SHARD_TYPE_TUPLE && t->num_inputs == op->num_operands;
    for (uint32_t i = 0; ok && i < op->num_operands; i++) ok = S_same(S_operand_type(op, i), t->inputs[i]);
    if (!ok) return shard_verify_fail(&e, "result type does not match the tuple of the operand types");
  }
  return true;
}
