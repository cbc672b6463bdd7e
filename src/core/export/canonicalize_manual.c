/* Canonicalization patterns of sdy.manual_computation (Shardy's
 * canonicalization.cc), tried in this order:
 *
 *  1. Unused inputs: a body argument without uses is dropped together with
 *     its operand and its in_sharding.
 *  2. Redundant computation: with no inputs, no outputs and nothing but the
 *     terminator in the body, the op is erased; otherwise, when the manual
 *     axes multiply to 1 (none at all, or all of size 1), the body is inlined
 *     in place of the op (arguments become the operands, results become what
 *     sdy.return returns). */
#include <string.h>

#include "export/canonicalize_internal.h"

static const shard_sharding_per_value *S_per_value(const shard_op *op, const char *name) {
  shard_attr *a = shard_canon_attr(op, name, SHARD_ATTR_SDY_PER_VALUE);
  return a ? a->u.per_value : NULL;
}

static shard_block *S_body(const shard_op *op) { return op->num_regions == 1 ? op->regions[0].first : NULL; }

/* Drops the operands, block arguments and in_shardings of unused arguments.
 * Values move inside the argument array, so their uses are re-pointed. */
static bool S_erase_unused_inputs(canon_rewriter *rw, shard_op *op) {
  shard_block *body = S_body(op);
  const shard_sharding_per_value *in = S_per_value(op, "in_shardings");
  if (!body || !in || body->num_args != op->num_operands || in->num != op->num_operands) return false;
  uint32_t kept = 0;
  for (uint32_t i = 0; i < body->num_args; i++)
    if (body->args[i].first_use) kept++;
  if (kept == body->num_args) return false;

  shard_sharding_per_value *new_in = SHARD_NEW(rw->arena, shard_sharding_per_value);
  *new_in = *in;
  new_in->shardings = SHARD_NEW_ARRAY(rw->arena, shard_tensor_sharding, kept ? kept : 1);
  new_in->num = kept;
  shard_operand *operands = kept ? SHARD_NEW_ARRAY(rw->arena, shard_operand, kept) : NULL;
  uint32_t j = 0;
  for (uint32_t i = 0; i < body->num_args; i++) {
    shard_value *input = op->operands[i].value;
    shard_operand_set(&op->operands[i], NULL);
    if (!body->args[i].first_use) {
      /* The operand's producer may now be dead or foldable. */
      if (input && input->def) shard_canon_push(rw, input->def);
      continue;
    }
    new_in->shardings[j] = in->shardings[i];
    operands[j].owner = op;
    shard_operand_set(&operands[j], input);
    if (i != j) {
      shard_value *to = &body->args[j];
      *to = body->args[i];
      body->arg_info[j] = body->arg_info[i];
      to->index = j;
      if (to->first_use) to->first_use->prev_use_link = &to->first_use;
      for (shard_operand *u = to->first_use; u; u = u->next_use) u->value = to;
    }
    j++;
  }
  body->num_args = kept;
  op->operands = operands;
  op->num_operands = kept;
  shard_attr *attr = shard_attr_new(rw->arena, SHARD_ATTR_SDY_PER_VALUE);
  attr->u.per_value = new_in;
  shard_op_set_attr(rw->arena, op, "in_shardings", attr, true);
  shard_canon_push(rw, op);
  return true;
}

/* Product of the manual axes' sizes in the mesh of the in/out shardings
 * (1 when there are no shardings), or -1 when unknown. */
static int64_t S_manual_axes_product(const canon_rewriter *rw, const shard_op *op, const shard_sharding_per_value *in,
                                     const shard_sharding_per_value *out) {
  const shard_tensor_sharding *first = in && in->num ? &in->shardings[0] : out && out->num ? &out->shardings[0] : NULL;
  if (!first) return 1;
  const shard_mesh *mesh = shard_canon_sharding_mesh(rw, first);
  shard_attr *axes = shard_canon_attr(op, "manual_axes", SHARD_ATTR_SDY_MANUAL_AXES);
  if (!mesh || !axes) return -1;
  int64_t product = 1;
  for (uint32_t i = 0; i < axes->u.manual_axes.num; i++) {
    int64_t size = shard_mesh_axis_size(mesh, axes->u.manual_axes.names[i]);
    if (size < 1) return -1;
    product *= size;
  }
  return product;
}

static bool S_inline_redundant(canon_rewriter *rw, shard_op *op) {
  shard_block *body = S_body(op);
  if (!body || !body->first) return false;
  const shard_sharding_per_value *in = S_per_value(op, "in_shardings");
  const shard_sharding_per_value *out = S_per_value(op, "out_shardings");
  shard_op *ret = body->last;
  if ((!in || !in->num) && (!out || !out->num) && body->first == ret && strcmp(ret->name, "sdy.return") == 0) {
    shard_canon_erase_op(rw, op);
    return true;
  }
  if (S_manual_axes_product(rw, op, in, out) != 1) return false;
  if (strcmp(ret->name, "sdy.return") != 0 || ret->num_operands != op->num_results ||
      body->num_args != op->num_operands)
    return false;
  for (uint32_t i = 0; i < body->num_args; i++) shard_canon_replace_uses(rw, &body->args[i], op->operands[i].value);
  for (uint32_t i = 0; i < op->num_results; i++) shard_canon_replace_uses(rw, &op->results[i], ret->operands[i].value);
  while (body->first != ret) {
    shard_op *moved = body->first;
    shard_op_unlink(moved);
    shard_canon_insert_before(rw, op, moved);
  }
  shard_canon_erase_op(rw, op);
  return true;
}

bool shard_canon_manual_computation(canon_rewriter *rw, shard_op *op) {
  return S_erase_unused_inputs(rw, op) || S_inline_redundant(rw, op);
}
