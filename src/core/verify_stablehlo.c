/* StableHLO attribute checks: the attributes an op cannot exist without.
 *
 * StableHLO's ODS verifier rejects an op whose required attribute is missing
 * or of the wrong kind before anything prints it; MLIR then prints such an op
 * only in generic form. shard's custom printers assume these attributes, so
 * the verifier checks them with ODS's messages ("requires attribute 'X'",
 * "attribute 'X' failed to satisfy constraint: ..."), plus the per-dimension
 * lengths of slice and pad that StableHLO's shape inference checks. */
#include <string.h>

#include "ops_stablehlo.h"
#include "verify_internal.h"

typedef enum { S_DIMS, S_INT, S_ENUM, S_STRING, S_PRESENT } S_kind;

typedef struct {
  const char *op;
  const char *attr;
  S_kind kind;
  const char *enum_kind; /* S_ENUM: the kind shard_shlo_enum_decode knows */
} S_required;

static const S_required S_table[] = {
    {"stablehlo.broadcast", "broadcast_sizes", S_DIMS, NULL},
    {"stablehlo.broadcast_in_dim", "broadcast_dimensions", S_DIMS, NULL},
    {"stablehlo.compare", "comparison_direction", S_ENUM, "comparison_direction"},
    {"stablehlo.concatenate", "dimension", S_INT, NULL},
    {"stablehlo.constant", "value", S_PRESENT, NULL},
    {"stablehlo.custom_call", "call_target_name", S_STRING, NULL},
    {"stablehlo.dot_general", "dot_dimension_numbers", S_PRESENT, NULL},
    {"stablehlo.dynamic_broadcast_in_dim", "broadcast_dimensions", S_DIMS, NULL},
    {"stablehlo.dynamic_iota", "iota_dimension", S_INT, NULL},
    {"stablehlo.dynamic_slice", "slice_sizes", S_DIMS, NULL},
    {"stablehlo.einsum", "einsum_config", S_STRING, NULL},
    {"stablehlo.fft", "fft_length", S_DIMS, NULL},
    {"stablehlo.fft", "fft_type", S_ENUM, "fft_type"},
    {"stablehlo.get_dimension_size", "dimension", S_INT, NULL},
    {"stablehlo.get_tuple_element", "index", S_INT, NULL},
    {"stablehlo.iota", "iota_dimension", S_INT, NULL},
    {"stablehlo.pad", "edge_padding_high", S_DIMS, NULL},
    {"stablehlo.pad", "edge_padding_low", S_DIMS, NULL},
    {"stablehlo.pad", "interior_padding", S_DIMS, NULL},
    {"stablehlo.reduce", "dimensions", S_DIMS, NULL},
    {"stablehlo.reduce_precision", "exponent_bits", S_INT, NULL},
    {"stablehlo.reduce_precision", "mantissa_bits", S_INT, NULL},
    {"stablehlo.reverse", "dimensions", S_DIMS, NULL},
    {"stablehlo.rng", "rng_distribution", S_ENUM, "rng_distribution"},
    {"stablehlo.rng_bit_generator", "rng_algorithm", S_ENUM, "rng_algorithm"},
    {"stablehlo.set_dimension_size", "dimension", S_INT, NULL},
    {"stablehlo.slice", "limit_indices", S_DIMS, NULL},
    {"stablehlo.slice", "start_indices", S_DIMS, NULL},
    {"stablehlo.slice", "strides", S_DIMS, NULL},
    {"stablehlo.transpose", "permutation", S_DIMS, NULL},
    {"stablehlo.unary_einsum", "einsum_config", S_STRING, NULL},
};

static const char *S_constraint(S_kind k) {
  switch (k) {
  case S_DIMS: return "i64 dense array attribute";
  case S_INT: return "64-bit signless integer attribute";
  case S_STRING: return "string attribute";
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
  case S_ENUM: return shard_shlo_enum_decode(a, r->enum_kind, v, sizeof v);
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

bool shard_verify_check_stablehlo_op(vf_ctx *cx, const shard_op *op) {
  if (strncmp(op->name, "stablehlo.", 10) != 0) return true;
  vf_emit e = shard_verify_emit_op(cx, op, NULL);
  bool listed = false;
  for (size_t i = 0; i < sizeof S_table / sizeof S_table[0]; i++) {
    const S_required *r = &S_table[i];
    if (strcmp(r->op, op->name) != 0) continue;
    listed = true;
    const shard_attr *a = shard_verify_attr(op, r->attr);
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
