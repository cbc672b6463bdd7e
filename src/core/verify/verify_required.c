/* Required attributes: the attributes an op cannot exist without.
 *
 * ODS-generated verifiers (func, sdy, stablehlo) reject an op whose required
 * attribute is missing or of the wrong kind before anything prints it; MLIR
 * would print such an op only in generic form. shard's custom printers assume
 * these attributes, so the verifier checks them first, with ODS's messages
 * ("requires attribute 'X'", "attribute 'X' failed to satisfy constraint:
 * ..."), from the `required` list of each op's definition (ops_*.c), plus the per-dimension lengths of stablehlo.slice and stablehlo.pad
 * that StableHLO's shape inference checks. Ops with a dedicated check of an
 * attribute (sdy collectives' out_sharding, ...) run that check afterwards. */
#include <string.h>

#include "ir/opdef.h"
#include "ir/ops_stablehlo.h"
#include "verify/verify_internal.h"

/* The ops whose dense arrays have one entry per operand dimension. */
static shard_op_name K_slice = {"stablehlo.slice", NULL};
static shard_op_name K_pad = {"stablehlo.pad", NULL};

static const char *S_constraint(const shard_attr_req *r) {
  switch (r->need) {
  case SHARD_NEED_DIMS: return "i64 dense array attribute";
  case SHARD_NEED_INT: return "64-bit signless integer attribute";
  case SHARD_NEED_STRING: return "string attribute";
  case SHARD_NEED_SYMREF: return "flat symbol reference attribute";
  case SHARD_NEED_FUNCTION_TYPE: return "type attribute of function type";
  case SHARD_NEED_DENSE: return "constant vector/tensor attribute";
  case SHARD_NEED_SDY: return "an attribute of the sdy dialect of the kind this op takes";
  case SHARD_NEED_ENUM: return "enum attribute";
  case SHARD_NEED_SHLO: /* StableHLO's ODS descriptions */
    return r->sdy_kind == SHARD_ATTR_SHLO_CONV ? "Structure of dimension information for conv op"
                                               : "Attribute that models the dimension information for dot.";
  case SHARD_NEED_PRESENT: break;
  }
  return "attribute";
}

static bool S_kind_ok(const shard_attr *a, const shard_attr_req *r) {
  char v[64];
  switch (r->need) {
  case SHARD_NEED_DIMS: return a->kind == SHARD_ATTR_DENSE_ARRAY;
  case SHARD_NEED_INT: return a->kind == SHARD_ATTR_INT;
  case SHARD_NEED_STRING: return a->kind == SHARD_ATTR_STRING;
  case SHARD_NEED_SYMREF: return a->kind == SHARD_ATTR_SYMREF;
  case SHARD_NEED_FUNCTION_TYPE:
    return a->kind == SHARD_ATTR_TYPE && a->u.type && a->u.type->kind == SHARD_TYPE_FUNCTION;
  case SHARD_NEED_DENSE: return a->kind == SHARD_ATTR_DENSE;
  case SHARD_NEED_SDY:
  case SHARD_NEED_SHLO: return a->kind == r->sdy_kind;
  case SHARD_NEED_ENUM:
    return shard_shlo_enum_decode(a, r->enum_kind, v, sizeof v) && shard_shlo_enum_valid(r->enum_kind, v);
  case SHARD_NEED_PRESENT: return true;
  }
  return true;
}

/* The lengths of N dense arrays that must each have one entry per operand
 * dimension (slice, pad). */
static bool S_check_per_dim(const vf_emit *e, const shard_op *op, const char *const *names, unsigned n) {
  const shard_attr *first = shard_verify_attr(op, names[0]);
  uint32_t len = first->u.dense_array.num;
  const shard_type *t = op->num_operands && op->operands[0].value ? op->operands[0].value->type : NULL;
  if (t && t->kind == SHARD_TYPE_TENSOR && len != t->rank)
    return shard_verify_fail(e, "the number of elements in %s (%u) does not match the rank of the operand (%u)",
                             names[0], len, t->rank);
  for (unsigned i = 1; i < n; i++) {
    const shard_attr *a = shard_verify_attr(op, names[i]);
    if (a->u.dense_array.num != len)
      return shard_verify_fail(e, "the number of elements in %s (%u) does not match the number of elements in %s (%u)",
                               names[i], a->u.dense_array.num, names[0], len);
  }
  return true;
}

bool shard_verify_check_required_attrs(vf_ctx *cx, const shard_op *op) {
  const shard_attr_req *required = op->def ? op->def->required : NULL;
  if (!required) return true;
  vf_emit e = shard_verify_emit_op(cx, op, NULL);
  for (const shard_attr_req *r = required; r->name; r++) {
    const shard_attr *a = shard_verify_attr(op, r->name);
    if (!a && r->optional) continue;
    if (!a) return shard_verify_fail(&e, "requires attribute '%s'", r->name);
    if (!S_kind_ok(a, r))
      return shard_verify_fail(&e, "attribute '%s' failed to satisfy constraint: %s", r->name, S_constraint(r));
  }
  if (shard_op_is(op, &K_slice)) {
    static const char *const names[] = {"start_indices", "limit_indices", "strides"};
    return S_check_per_dim(&e, op, names, 3);
  }
  if (shard_op_is(op, &K_pad)) {
    static const char *const names[] = {"edge_padding_low", "edge_padding_high", "interior_padding"};
    return S_check_per_dim(&e, op, names, 3);
  }
  return true;
}
