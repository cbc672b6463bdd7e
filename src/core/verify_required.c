/* Required attributes: the attributes an op cannot exist without.
 *
 * ODS-generated verifiers (func, sdy, stablehlo) reject an op whose required
 * attribute is missing or of the wrong kind before anything prints it; MLIR
 * would print such an op only in generic form. shard's custom printers assume
 * these attributes, so the verifier checks them first, with ODS's messages
 * ("requires attribute 'X'", "attribute 'X' failed to satisfy constraint:
 * ..."), plus the per-dimension lengths of stablehlo.slice and stablehlo.pad
 * that StableHLO's shape inference checks. Ops with a dedicated check of an
 * attribute (sdy collectives' out_sharding, ...) run that check afterwards. */
#include <string.h>

#include "ops_stablehlo.h"
#include "verify_internal.h"

typedef enum {
  S_DIMS,
  S_INT,
  S_ENUM,
  S_STRING,
  S_SYMREF,
  S_FUNCTION_TYPE,
  S_DENSE,
  S_SDY, /* an sdy attribute of the kind in sdy_kind */
  S_PRESENT
} S_kind;

typedef struct {
  shard_op_name op; /* resolved to its definition on first use */
  const char *attr;
  S_kind kind;
  const char *enum_kind; /* S_ENUM: the kind shard_shlo_enum_decode knows */
  shard_attr_kind sdy_kind;
  bool optional; /* checked only when present */
} S_required;

static S_required S_table[] = {
    {{"arith.constant", NULL}, "value", S_PRESENT, NULL, 0, false},
    {{"check.expect_almost_eq_const", NULL}, "value", S_DENSE, NULL, 0, false},
    {{"check.expect_close", NULL}, "max_ulp_difference", S_INT, NULL, 0, false},
    {{"check.expect_eq_const", NULL}, "value", S_DENSE, NULL, 0, false},
    {{"func.call", NULL}, "callee", S_SYMREF, NULL, 0, false},
    {{"func.func", NULL}, "function_type", S_FUNCTION_TYPE, NULL, 0, false},
    {{"func.func", NULL}, "sym_name", S_STRING, NULL, 0, false},
    {{"sdy.all_gather", NULL}, "gathering_axes", S_SDY, NULL, SHARD_ATTR_SDY_AXIS_LISTS, false},
    {{"sdy.all_reduce", NULL}, "reduction_axes", S_SDY, NULL, SHARD_ATTR_SDY_AXIS_LIST, false},
    {{"sdy.all_slice", NULL}, "slicing_axes", S_SDY, NULL, SHARD_ATTR_SDY_AXIS_LISTS, false},
    {{"sdy.all_to_all", NULL}, "params", S_SDY, NULL, SHARD_ATTR_SDY_ALL_TO_ALL, false},
    {{"sdy.constant", NULL}, "value", S_DENSE, NULL, 0, false},
    {{"sdy.manual_computation", NULL}, "in_shardings", S_SDY, NULL, SHARD_ATTR_SDY_PER_VALUE, false},
    {{"sdy.manual_computation", NULL}, "manual_axes", S_SDY, NULL, SHARD_ATTR_SDY_MANUAL_AXES, false},
    {{"sdy.manual_computation", NULL}, "out_shardings", S_SDY, NULL, SHARD_ATTR_SDY_PER_VALUE, false},
    {{"sdy.mesh", NULL}, "mesh", S_SDY, NULL, SHARD_ATTR_SDY_MESH, false},
    {{"sdy.mesh", NULL}, "sym_name", S_STRING, NULL, 0, false},
    {{"sdy.named_computation", NULL}, "name", S_STRING, NULL, 0, false},
    {{"sdy.propagation_barrier", NULL}, "allowed_direction", S_SDY, NULL, SHARD_ATTR_SDY_DIRECTION, false},
    {{"sdy.reduce_scatter", NULL}, "reduce_scatter_axes", S_SDY, NULL, SHARD_ATTR_SDY_AXIS_LISTS, false},
    {{"sdy.replicated_to_unreduced", NULL}, "axes", S_SDY, NULL, SHARD_ATTR_SDY_AXIS_LIST, false},
    {{"sdy.sharded_to_unreduced", NULL}, "axes", S_SDY, NULL, SHARD_ATTR_SDY_AXIS_LISTS, false},
    {{"sdy.sharding_group", NULL}, "group_id", S_INT, NULL, 0, false},
    {{"stablehlo.broadcast", NULL}, "broadcast_sizes", S_DIMS, NULL, 0, false},
    {{"stablehlo.broadcast_in_dim", NULL}, "broadcast_dimensions", S_DIMS, NULL, 0, false},
    {{"stablehlo.compare", NULL}, "compare_type", S_ENUM, "comparison_type", 0, true},
    {{"stablehlo.compare", NULL}, "comparison_direction", S_ENUM, "comparison_direction", 0, false},
    {{"stablehlo.concatenate", NULL}, "dimension", S_INT, NULL, 0, false},
    {{"stablehlo.constant", NULL}, "value", S_PRESENT, NULL, 0, false},
    {{"stablehlo.convolution", NULL}, "dimension_numbers", S_PRESENT, NULL, 0, false},
    {{"stablehlo.custom_call", NULL}, "call_target_name", S_STRING, NULL, 0, false},
    {{"stablehlo.dot_general", NULL}, "dot_dimension_numbers", S_PRESENT, NULL, 0, false},
    {{"stablehlo.dynamic_broadcast_in_dim", NULL}, "broadcast_dimensions", S_DIMS, NULL, 0, false},
    {{"stablehlo.dynamic_iota", NULL}, "iota_dimension", S_INT, NULL, 0, false},
    {{"stablehlo.dynamic_slice", NULL}, "slice_sizes", S_DIMS, NULL, 0, false},
    {{"stablehlo.einsum", NULL}, "einsum_config", S_STRING, NULL, 0, false},
    {{"stablehlo.fft", NULL}, "fft_length", S_DIMS, NULL, 0, false},
    {{"stablehlo.fft", NULL}, "fft_type", S_ENUM, "fft_type", 0, false},
    {{"stablehlo.get_dimension_size", NULL}, "dimension", S_INT, NULL, 0, false},
    {{"stablehlo.get_tuple_element", NULL}, "index", S_INT, NULL, 0, false},
    {{"stablehlo.iota", NULL}, "iota_dimension", S_INT, NULL, 0, false},
    {{"stablehlo.pad", NULL}, "edge_padding_high", S_DIMS, NULL, 0, false},
    {{"stablehlo.pad", NULL}, "edge_padding_low", S_DIMS, NULL, 0, false},
    {{"stablehlo.pad", NULL}, "interior_padding", S_DIMS, NULL, 0, false},
    {{"stablehlo.reduce", NULL}, "dimensions", S_DIMS, NULL, 0, false},
    {{"stablehlo.reduce_precision", NULL}, "exponent_bits", S_INT, NULL, 0, false},
    {{"stablehlo.reduce_precision", NULL}, "mantissa_bits", S_INT, NULL, 0, false},
    {{"stablehlo.reverse", NULL}, "dimensions", S_DIMS, NULL, 0, false},
    {{"stablehlo.rng", NULL}, "rng_distribution", S_ENUM, "rng_distribution", 0, false},
    {{"stablehlo.rng_bit_generator", NULL}, "rng_algorithm", S_ENUM, "rng_algorithm", 0, false},
    {{"stablehlo.set_dimension_size", NULL}, "dimension", S_INT, NULL, 0, false},
    {{"stablehlo.slice", NULL}, "limit_indices", S_DIMS, NULL, 0, false},
    {{"stablehlo.slice", NULL}, "start_indices", S_DIMS, NULL, 0, false},
    {{"stablehlo.slice", NULL}, "strides", S_DIMS, NULL, 0, false},
    {{"stablehlo.transpose", NULL}, "permutation", S_DIMS, NULL, 0, false},
    {{"stablehlo.unary_einsum", NULL}, "einsum_config", S_STRING, NULL, 0, false},
};

static const char *S_constraint(S_kind k) {
  switch (k) {
  case S_DIMS: return "i64 dense array attribute";
  case S_INT: return "64-bit signless integer attribute";
  case S_STRING: return "string attribute";
  case S_SYMREF: return "flat symbol reference attribute";
  case S_FUNCTION_TYPE: return "type attribute of function type";
  case S_DENSE: return "constant vector/tensor attribute";
  case S_SDY: return "an attribute of the sdy dialect of the kind this op takes";
  case S_ENUM: return "enum attribute";
  case S_PRESENT: break;
  }
  return "attribute";
}

static bool S_kind_ok(const shard_attr *a, const S_required *r) {
  char v[64];
  switch (r->kind) {
  case S_DIMS: return a->kind == SHARD_ATTR_DENSE_ARRAY;
  case S_INT: return a->kind == SHARD_ATTR_INT;
  case S_STRING: return a->kind == SHARD_ATTR_STRING;
  case S_SYMREF: return a->kind == SHARD_ATTR_SYMREF;
  case S_FUNCTION_TYPE: return a->kind == SHARD_ATTR_TYPE && a->u.type && a->u.type->kind == SHARD_TYPE_FUNCTION;
  case S_DENSE: return a->kind == SHARD_ATTR_DENSE;
  case S_SDY: return a->kind == r->sdy_kind;
  case S_ENUM: return shard_shlo_enum_decode(a, r->enum_kind, v, sizeof v) && shard_shlo_enum_valid(r->enum_kind, v);
  case S_PRESENT: return true;
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
  if (!op->def) return true; /* every listed op has a definition */
  vf_emit e = shard_verify_emit_op(cx, op, NULL);
  bool listed = false;
  for (size_t i = 0; i < sizeof S_table / sizeof S_table[0]; i++) {
    const S_required *r = &S_table[i];
    if (!shard_op_is(op, &S_table[i].op)) continue;
    listed = true;
    const shard_attr *a = shard_verify_attr(op, r->attr);
    if (!a && r->optional) continue;
    if (!a) return shard_verify_fail(&e, "requires attribute '%s'", r->attr);
    if (!S_kind_ok(a, r))
      return shard_verify_fail(&e, "attribute '%s' failed to satisfy constraint: %s", r->attr, S_constraint(r->kind));
  }
  if (!listed) return true;
  if (strcmp(op->name, "stablehlo.slice") == 0) {
    static const char *const names[] = {"start_indices", "limit_indices", "strides"};
    return S_check_per_dim(&e, op, names, 3);
  }
  if (strcmp(op->name, "stablehlo.pad") == 0) {
    static const char *const names[] = {"edge_padding_low", "edge_padding_high", "interior_padding"};
    return S_check_per_dim(&e, op, names, 3);
  }
  return true;
}
