/* -sdy-apply-sharding-constraints: copies the sharding of a constraint onto
 * the constrained value when nothing else competes for it.
 *
 * For each sdy.sharding_constraint (and each operand of an
 * sdy.manual_computation, whose in_shardings act as constraints), in
 * post-order: if the input has no sharding yet, the constraint is fully
 * closed, and no other constraint or manual computation uses the input with
 * a different sharding, the input takes the sharding. When the input is the
 * target of a data-flow edge, the constraint is instead placed right after
 * the input and takes over all its uses (only unreduced axes go onto the
 * edge), so the edge's other targets stay free.
 *
 * Before that, a chain of constraints c1 -> c2 -> ... -> cn whose links have
 * one use each makes later users of c1's input (in the same block, except
 * func.return) use cn instead, as Shardy does for parity with GSPMD. */
#include <string.h>

#include "propagate/debug_origins.h"
#include "pass/pass.h"
#include "pass/pass_shardings.h"

typedef SHARD_VEC(shard_op *) op_vec;

static bool S_is(const shard_op *op, const char *name) { return op && strcmp(op->name, name) == 0; }
/* The op names the walk tests against every op, compared by definition (ir.h). */
static shard_op_name K_sdy_manual_computation = {"sdy.manual_computation", NULL};
static shard_op_name K_sdy_sharding_constraint = {"sdy.sharding_constraint", NULL};

static shard_op *S_block_owner(const shard_value *v) {
  return !v->def && v->block && v->block->parent ? v->block->parent->parent : NULL;
}

/* The edge owner for a data-flow target, or NULL when v is not one. */
static shard_value *S_edge_owner(shard_value *v) {
  if (v->def) {
    shard_op *op = v->def;
    if (S_is(op, "stablehlo.while") || S_is(op, "stablehlo.case") || S_is(op, "stablehlo.optimization_barrier") ||
        S_is(op, "sdy.named_computation") || S_is(op, "sdy.manual_computation"))
      return v;
    return NULL;
  }
  shard_op *owner = S_block_owner(v);
  if (S_is(owner, "stablehlo.while")) return v->index < owner->num_results ? &owner->results[v->index] : NULL;
  if (S_is(owner, "sdy.named_computation") || S_is(owner, "sdy.manual_computation")) return v;
  return NULL;
}

static shard_op *S_edge_lookup(shard_value *v) {
  shard_value *owner = S_edge_owner(v);
  if (!owner) return NULL;
  for (shard_operand *u = owner->first_use; u; u = u->next_use)
    if (S_is(u->owner, "sdy.data_flow_edge")) return u->owner;
  return NULL;
}

static shard_tensor_sharding *S_attr_sharding(const shard_op *op, const char *name) {
  shard_attr *a = shard_op_attr(op, name);
  return a && a->kind == SHARD_ATTR_SDY_SHARDING ? a->u.sharding : NULL;
}

/* Can a sharding be attached to v (directly or through its edge owner)? */
static bool S_shardable(shard_value *v) {
  if (v->def) return true;
  shard_op *owner = S_block_owner(v);
  if (S_is(owner, "func.func")) return v->block == owner->regions[0].first;
  return S_edge_owner(v) != NULL;
}

static shard_tensor_sharding *S_get_sharding(shard_value *v) {
  shard_op *edge = S_edge_lookup(v);
  if (edge) return S_attr_sharding(edge, "sharding");
  if (v->def || S_is(S_block_owner(v), "func.func")) return shard_value_sharding(v);
  shard_value *owner = S_edge_owner(v);
  if (owner && owner != v) return shard_value_sharding(owner);
  shard_op *op = S_block_owner(v);
  if (S_is(op, "sdy.named_computation") || S_is(op, "sdy.manual_computation")) {
    shard_attr *in = shard_op_attr(op, "in_shardings");
    if (in && in->kind == SHARD_ATTR_SDY_PER_VALUE && v->index < in->u.per_value->num)
      return &in->u.per_value->shardings[v->index];
  }
  return NULL;
}

static void S_set_sharding(shard_arena *a, shard_value *v, shard_tensor_sharding *s) {
  shard_op *edge = S_edge_lookup(v);
  if (edge) {
    shard_op_set_attr(a, edge, "sharding", shard_attr_sharding(a, s), true);
    return;
  }
  if (v->def || S_is(S_block_owner(v), "func.func")) {
    shard_value_set_sharding(a, v, s);
    return;
  }
  shard_value *owner = S_edge_owner(v);
  if (owner && owner != v) shard_value_set_sharding(a, owner, s);
}

static bool S_fully_closed(const shard_tensor_sharding *s) {
  for (uint32_t d = 0; d < s->rank; d++)
    if (s->dims[d].is_open) return false;
  return true;
}

static bool S_same(const shard_tensor_sharding *a, const shard_tensor_sharding *b) {
  return a && b && shard_sharding_equal(a, b);
}

static shard_tensor_sharding *S_in_sharding(const shard_op *mc, uint32_t i) {
  shard_attr *in = shard_op_attr(mc, "in_shardings");
  return in && in->kind == SHARD_ATTR_SDY_PER_VALUE && i < in->u.per_value->num ? &in->u.per_value->shardings[i] : NULL;
}

static bool S_used_with_different_sharding(shard_value *v, const shard_tensor_sharding *s) {
  for (shard_operand *u = v->first_use; u; u = u->next_use) {
    if (S_is(u->owner, "sdy.sharding_constraint") && !S_same(S_attr_sharding(u->owner, "sharding"), s)) return true;
    if (S_is(u->owner, "sdy.manual_computation") && !S_same(S_in_sharding(u->owner, shard_operand_index(u)), s))
      return true;
  }
  return false;
}

static bool S_used_by_constraint(shard_value *v, const shard_op *excluded) {
  for (shard_operand *u = v->first_use; u; u = u->next_use)
    if (u->owner != excluded && (S_is(u->owner, "sdy.sharding_constraint") || S_is(u->owner, "sdy.manual_computation")))
      return true;
  return false;
}

static bool S_should_apply(shard_value *v, const shard_tensor_sharding *s) {
  return S_shardable(v) && !S_get_sharding(v) && S_fully_closed(s) && !S_used_with_different_sharding(v, s);
}

/* Replaces every use of `from` except those by `keep` with `to`. */
static void S_replace_uses_except(shard_value *from, shard_value *to, const shard_op *keep) {
  for (shard_operand *u = from->first_use, *next; u; u = next) {
    next = u->next_use;
    if (u->owner != keep) shard_operand_set(u, to);
  }
}

typedef struct set_sharding {
  shard_arena *a;
  shard_value *value;
  shard_tensor_sharding *sharding;
} set_sharding;

static void S_do_set_sharding(void *ctx) {
  set_sharding *c = ctx;
  S_set_sharding(c->a, c->value, c->sharding);
}

/* `constraint` is the op to move (a sharding_constraint), or NULL to create
 * one. With `debug`, a sharding set on the input is recorded as a step of
 * `user` (debug_origins.h). */
static void S_apply(shard_module *m, shard_op *user, shard_value *input, shard_tensor_sharding *s, shard_op *constraint,
                    shard_debug_origins *debug) {
  if (!S_should_apply(input, s)) return;
  if (S_is(input->def, "sdy.data_flow_edge") || S_edge_lookup(input)) {
    if (constraint) {
      shard_op_unlink(constraint);
    } else {
      constraint = shard_op_new_named(m->arena, "sdy.sharding_constraint", 1, &input, 1, &input->type, 0);
      constraint->span = user->span;
      shard_op_set_attr(m->arena, constraint, "sharding", shard_attr_sharding(m->arena, s), true);
    }
    shard_op_insert_after_value(input, constraint);
    S_replace_uses_except(input, &constraint->results[0], constraint);
    if (s->num_unreduced) {
      /* unreduced axes do not propagate, so the input gets them directly */
      shard_tensor_sharding *cur = S_get_sharding(input);
      shard_tensor_sharding *n =
          cur ? shard_sharding_clone(m->arena, cur)
              : shard_sharding_open(m->arena, s->mesh_name, s->inline_mesh,
                                    input->type && input->type->kind == SHARD_TYPE_TENSOR ? input->type->rank : 0,
                                    true);
      n->unreduced = s->unreduced;
      n->num_unreduced = s->num_unreduced;
      n->reduction = s->reduction;
      S_set_sharding(m->arena, input, n);
    }
    return;
  }
  set_sharding c = {m->arena, input, s};
  shard_debug_origins_watch(debug, user, S_do_set_sharding, &c);
}

/* The last constraint of a chain starting at `head`, or NULL (see above). */
static shard_op *S_chain_tail(shard_op *head) {
  shard_value *input = head->operands[0].value;
  if (S_is(input->def, "sdy.sharding_constraint") || S_get_sharding(input) || S_used_by_constraint(input, head))
    return NULL;
  shard_op *tail = head;
  for (;;) {
    shard_operand *u = tail->results[0].first_use;
    if (!u || u->next_use || !S_is(u->owner, "sdy.sharding_constraint")) break;
    tail = u->owner;
  }
  if (tail == head || S_used_by_constraint(&tail->results[0], NULL)) return NULL;
  return tail;
}

static bool S_is_before_in_block(const shard_op *a, const shard_op *b) {
  for (const shard_op *o = a->next; o; o = o->next)
    if (o == b) return true;
  return false;
}

static void S_apply_chain(shard_op *head) {
  shard_op *tail = S_chain_tail(head);
  if (!tail) return;
  shard_value *input = head->operands[0].value;
  for (shard_operand *u = input->first_use, *next; u; u = next) {
    next = u->next_use;
    shard_op *owner = u->owner;
    if (owner != head && !S_is(owner, "func.return") && owner->parent == tail->parent &&
        S_is_before_in_block(tail, owner))
      shard_operand_set(u, &tail->results[0]);
  }
}

/* Post-order: an op after the ops nested in it, as MLIR's default walk. */
static void S_post_order(shard_op *op, op_vec *out) {
  for (uint32_t r = 0; r < op->num_regions; r++)
    for (shard_block *b = op->regions[r].first; b; b = b->next)
      for (shard_op *o = b->first; o; o = o->next) S_post_order(o, out);
  if (shard_op_is(op, &K_sdy_sharding_constraint) || shard_op_is(op, &K_sdy_manual_computation))
    SHARD_VEC_PUSH(*out, op);
}

bool shard_pass_apply_sharding_constraints(shard_module *m, const char *options, const shard_pass_context *cx) {
  bool debug_origins = false, debug_edges = false;
  shard_pass_option_bool(options, "debug-sharding-origins", &debug_origins);
  shard_pass_option_bool(options, "debug-propagation-edge-sharding", &debug_edges);
  shard_debug_origins *debug = shard_debug_origins_begin(m, debug_origins, debug_edges, cx->rules);
  op_vec ops = {0};
  S_post_order(m->top, &ops);
  for (uint32_t i = 0; i < ops.len; i++) {
    shard_op *op = ops.items[i];
    if (shard_op_is(op, &K_sdy_sharding_constraint)) {
      shard_tensor_sharding *s = S_attr_sharding(op, "sharding");
      if (op->num_operands != 1 || op->num_results != 1 || !s) continue;
      S_apply_chain(op);
      S_apply(m, op, op->operands[0].value, s, op, debug);
    } else {
      for (uint32_t k = 0; k < op->num_operands; k++) {
        shard_tensor_sharding *s = S_in_sharding(op, k);
        if (s) S_apply(m, op, op->operands[k].value, s, NULL, debug);
      }
    }
  }
  SHARD_VEC_FREE(ops);
  shard_debug_origins_end(debug);
  return true;
}
