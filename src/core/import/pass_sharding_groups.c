/* -sdy-sharding-group-import: validates and canonicalizes sharding groups.
 *
 * Every sdy.sharding_group of one group must sit under the same
 * sdy.manual_computation (or under none) and constrain tensors of the same
 * shape; the first violation is an error. Groups that share a value are then
 * unified: each class of groups takes one id, classes numbered 0, 1, ... in
 * the order their smallest id was first seen (as LLVM's EquivalenceClasses
 * iterates), and a value constrained twice by the same group keeps only its
 * first sdy.sharding_group. */
#include <inttypes.h>
#include <string.h>

#include "pass/pass.h"
#include "pass/pass_shardings.h"

typedef SHARD_VEC(shard_op *) op_vec;

/* The op names this file tests, compared by definition (ir.h). */
static shard_op_name K_sdy_sharding_group = {"sdy.sharding_group", NULL};

static bool S_collect_groups(shard_op *op, void *ctx) {
  if (shard_op_is(op, &K_sdy_sharding_group) && op->num_operands == 1) SHARD_VEC_PUSH(*(op_vec *)ctx, op);
  return true;
}

static shard_attr *S_group_attr(const shard_op *op) {
  shard_attr *g = shard_op_attr(op, "group_id");
  return g && g->kind == SHARD_ATTR_INT ? g : NULL;
}

/* Group ids in first-seen order, with a union-find whose roots are minima. */
typedef struct id_classes {
  SHARD_VEC(int64_t) ids;
  SHARD_VEC(uint32_t) parent;
} id_classes;

static uint32_t S_id_index(id_classes *c, int64_t id) {
  for (uint32_t i = 0; i < c->ids.len; i++)
    if (c->ids.items[i] == id) return i;
  SHARD_VEC_PUSH(c->ids, id);
  SHARD_VEC_PUSH(c->parent, c->ids.len - 1);
  return c->ids.len - 1;
}

static uint32_t S_find(id_classes *c, uint32_t i) {
  while (c->parent.items[i] != i) i = c->parent.items[i] = c->parent.items[c->parent.items[i]];
  return i;
}

static void S_union(id_classes *c, uint32_t a, uint32_t b) {
  a = S_find(c, a);
  b = S_find(c, b);
  if (a == b) return;
  if (c->ids.items[b] < c->ids.items[a]) c->parent.items[a] = b;
  else c->parent.items[b] = a;
}

static bool S_same_shape(const shard_type *a, const shard_type *b) {
  if (!a || !b) return a == b;
  if (a->kind != SHARD_TYPE_TENSOR || b->kind != SHARD_TYPE_TENSOR) return a->kind == b->kind;
  if (a->rank != b->rank) return false;
  return a->rank == 0 || memcmp(a->dims, b->dims, sizeof(int64_t) * a->rank) == 0;
}

/* Shardy stops at the first bad op. */
static bool S_validate(const op_vec *ops, shard_diag_engine *de) {
  for (uint32_t i = 0; i < ops->len; i++) {
    shard_op *op = ops->items[i];
    shard_attr *g = S_group_attr(op);
    if (!g) continue;
    for (uint32_t j = 0; j < i; j++) {
      shard_op *prev = ops->items[j];
      shard_attr *pg = S_group_attr(prev);
      if (!pg || pg->u.integer.value != g->u.integer.value) continue;
      if (shard_op_ancestor(prev, "sdy.manual_computation") != shard_op_ancestor(op, "sdy.manual_computation")) {
        shard_error(de, op->span,
                    "ShardingGroupOps values cannot cross ManualComputationOp boundaries for "
                    "groupId: %" PRId64,
                    g->u.integer.value);
        return false;
      }
      if (!S_same_shape(prev->operands[0].value->type, op->operands[0].value->type)) {
        shard_error(de, op->span, "ShardingGroupOps values must have the same shape for groupId: %" PRId64,
                    g->u.integer.value);
        return false;
      }
      break; /* the first op of the group decides, as Shardy's maps do */
    }
  }
  return true;
}

bool shard_pass_sharding_group_import(shard_module *m, const char *options, const shard_pass_context *cx) {
  shard_diag_engine *de = cx->de;
  op_vec ops = {0};
  shard_walk(m->top, S_collect_groups, &ops);
  if (!S_validate(&ops, de)) {
    SHARD_VEC_FREE(ops);
    return false;
  }
  /* values in first-seen order; each op's value index */
  SHARD_VEC(shard_value *) values = {0};
  uint32_t *value_of = shard_xcalloc(ops.len ? ops.len : 1, sizeof(uint32_t));
  for (uint32_t i = 0; i < ops.len; i++) {
    shard_value *v = ops.items[i]->operands[0].value;
    uint32_t k = 0;
    while (k < values.len && values.items[k] != v) k++;
    if (k == values.len) SHARD_VEC_PUSH(values, v);
    value_of[i] = k;
  }
  /* union the groups of each value, visiting values in order */
  id_classes cls = {{0}, {0}};
  for (uint32_t v = 0; v < values.len; v++) {
    int64_t canonical = 0;
    bool first = true;
    for (uint32_t i = 0; i < ops.len; i++) {
      shard_attr *g = S_group_attr(ops.items[i]);
      if (value_of[i] != v || !g) continue;
      if (first) canonical = g->u.integer.value;
      first = false;
      S_union(&cls, S_id_index(&cls, canonical), S_id_index(&cls, g->u.integer.value));
    }
  }
  int64_t *reindex = shard_xcalloc(cls.ids.len ? cls.ids.len : 1, sizeof(int64_t));
  int64_t next = 0;
  for (uint32_t i = 0; i < cls.ids.len; i++)
    if (S_find(&cls, i) == i) reindex[i] = next++;
  /* rewrite ids, value by value, dropping repeated (value, group) pairs */
  SHARD_VEC(int64_t) seen_pairs = {0}; /* value index, new id */
  for (uint32_t v = 0; v < values.len; v++)
    for (uint32_t i = 0; i < ops.len; i++) {
      shard_op *op = ops.items[i];
      shard_attr *g = S_group_attr(op);
      if (value_of[i] != v || !g) continue;
      int64_t id = reindex[S_find(&cls, S_id_index(&cls, g->u.integer.value))];
      bool dup = false;
      for (uint32_t k = 0; k + 1 < seen_pairs.len; k += 2)
        if (seen_pairs.items[k] == v && seen_pairs.items[k + 1] == id) dup = true;
      if (dup) {
        shard_op_erase(op);
        continue;
      }
      SHARD_VEC_PUSH(seen_pairs, (int64_t)v);
      SHARD_VEC_PUSH(seen_pairs, id);
      shard_attr *n = shard_attr_int(m->arena, id, g->u.integer.type);
      n->span = g->span;
      shard_op_set_attr(m->arena, op, "group_id", n, true);
    }
  SHARD_VEC_FREE(seen_pairs);
  free(reindex);
  free(value_of);
  SHARD_VEC_FREE(cls.ids);
  SHARD_VEC_FREE(cls.parent);
  SHARD_VEC_FREE(values);
  SHARD_VEC_FREE(ops);
  return true;
}
