/* Canonicalization patterns of sdy.reshard (Shardy's canonicalization.td and
 * canonicalization.cc), in the order MLIR applies them (higher benefit first):
 *
 *  1. reshard of reshard: reshard(reshard(x, s1), s2) -> reshard(x, s2) when
 *     the inner reshard has no other use.
 *  2. reshard CSE: a reshard whose input is x seen through reshapes and
 *     transposes reuses an earlier reshard, in the same block, of x (or of a
 *     reshape-only chain from x) that distributes the data the same way. The
 *     reshapes and transposes between x and the reshard are then replayed on
 *     the reused result.
 *
 * "The same way" is Shardy's isShardingEquivalentAcrossReshapes: every mesh
 * axis sharding the tensor must land on the same linear stride of the
 * row-major element order in both shardings. */
#include <stdlib.h>
#include <string.h>

#include "export/canonicalize_internal.h"
#include "rules/reshape_equivalence.h"

static bool S_is(const shard_op *op, const char *name) { return op && strcmp(op->name, name) == 0; }

/* Reshapes and transposes only move data around in memory order; a
 * reshard's communication result can be reused across them. */
static bool S_is_metadata_op(const shard_op *op) {
  return S_is(op, "stablehlo.reshape") || S_is(op, "stablehlo.transpose");
}

static const shard_tensor_sharding *S_reshard_sharding(const shard_op *op) {
  shard_attr *a = shard_canon_attr(op, "sharding", SHARD_ATTR_SDY_SHARDING);
  return a ? a->u.sharding : NULL;
}

/* ---- reshard of reshard ----------------------------------------------------- */

static bool S_reshard_of_reshard(canon_rewriter *rw, shard_op *op) {
  shard_value *input = op->operands[0].value;
  shard_op *inner = input->def;
  if (!S_is(inner, "sdy.reshard") || shard_value_num_uses(input) != 1) return false;
  shard_attr *sharding = shard_op_attr(op, "sharding");
  if (!sharding) return false;
  shard_value *tensor = inner->operands[0].value;
  shard_op *fused = shard_canon_op_new(rw, "sdy.reshard", 1, &tensor, op->results[0].type, op);
  shard_op_set_attr(rw->arena, fused, "sharding", sharding, true);
  shard_canon_insert_before(rw, op, fused);
  shard_value *result = &fused->results[0];
  shard_canon_replace_op(rw, op, &result);
  return true;
}

/* ---- sharding equivalence across reshapes -------------------------------- */

static bool S_static_tensor(const shard_type *t) {
  return t && t->kind == SHARD_TYPE_TENSOR && !t->encoding && shard_type_is_static_tensor(t);
}

/* isShardingEquivalentAcrossReshapes(s1, t1, s2, t2) with the mesh of s1,
 * for static tensors only. */
static bool S_equivalent_across_reshapes(const canon_rewriter *rw, const shard_tensor_sharding *s1,
                                         const shard_type *t1, const shard_tensor_sharding *s2, const shard_type *t2) {
  if (!s1 || !s2) return false;
  if (shard_sharding_equal(s1, s2) && shard_type_equal(t1, t2)) return true;
  if (!S_static_tensor(t1) || !S_static_tensor(t2)) return false;
  const shard_mesh *mesh = shard_canon_sharding_mesh(rw, s1);
  return mesh && shard_sharding_equivalent_across_reshape(s1, t1, s2, t2, mesh, false);
}

/* ---- reshard CSE ------------------------------------------------------------ */

/* The sharding the reshard would have on the value above the transposes
 * (and same-rank reshapes) that feed it: Shardy's getTargetSharding. */
static const shard_tensor_sharding *S_target_sharding(canon_rewriter *rw, const shard_tensor_sharding *s,
                                                      const shard_value *v) {
  for (const shard_op *op; (op = v->def);) {
    if (S_is(op, "stablehlo.transpose")) {
      shard_attr *perm = shard_canon_attr(op, "permutation", SHARD_ATTR_DENSE_ARRAY);
      if (!perm || perm->u.dense_array.num != s->rank) break;
      shard_tensor_sharding *t = SHARD_NEW(rw->arena, shard_tensor_sharding);
      *t = *s;
      t->dims = SHARD_NEW_ARRAY(rw->arena, shard_dim_sharding, s->rank);
      bool ok = true;
      for (uint32_t r = 0; r < s->rank; r++) {
        int64_t d = perm->u.dense_array.vals[r];
        if (d < 0 || d >= (int64_t)s->rank) ok = false;
        else t->dims[d] = s->dims[r];
      }
      if (!ok) break;
      s = t;
      v = op->operands[0].value;
      continue;
    }
    if (S_is(op, "stablehlo.reshape")) {
      const shard_type *in = op->operands[0].value->type, *out = op->results[0].type;
      if (!in || !out || in->rank != out->rank) break;
      v = op->operands[0].value;
      continue;
    }
    break;
  }
  return s;
}

typedef SHARD_VEC(shard_value *) value_vec;

static bool S_contains(const value_vec *vs, const shard_value *v) {
  for (uint32_t i = 0; i < vs->len; i++)
    if (vs->items[i] == v) return true;
  return false;
}

/* An earlier reshard in `current`'s block, reachable from root through
 * reshapes only, equivalent to the target: Shardy's findCompatibleReshard. */
static shard_value *S_find_compatible(canon_rewriter *rw, shard_value *root, const shard_tensor_sharding *target,
                                      const shard_type *target_type, shard_op *current) {
  value_vec worklist = {0}, visited = {0};
  shard_value *found = NULL;
  SHARD_VEC_PUSH(worklist, root);
  while (worklist.len && !found) {
    shard_value *v = worklist.items[--worklist.len];
    if (S_contains(&visited, v)) continue;
    SHARD_VEC_PUSH(visited, v);
    for (shard_operand *u = v->first_use; u && !found; u = u->next_use) {
      shard_op *user = u->owner;
      if (user == current) continue;
      if (S_is(user, "sdy.reshard")) {
        if (user->parent == current->parent && shard_canon_is_before_in_block(rw, user, current) &&
            S_equivalent_across_reshapes(rw, S_reshard_sharding(user), user->results[0].type, target, target_type))
          found = &user->results[0];
      } else if (S_is(user, "stablehlo.reshape") && user->num_results == 1) {
        SHARD_VEC_PUSH(worklist, &user->results[0]);
      }
    }
  }
  SHARD_VEC_FREE(worklist);
  SHARD_VEC_FREE(visited);
  return found;
}

/* Replays the reshapes and transposes from root down to target on `cached`,
 * each copy right after its input. */
static shard_value *S_clone_path(canon_rewriter *rw, shard_value *root, shard_value *target, shard_value *cached) {
  SHARD_VEC(shard_op *) chain = {0};
  for (shard_value *v = target; v != root; v = v->def->operands[0].value) SHARD_VEC_PUSH(chain, v->def);
  shard_value *input = cached;
  for (uint32_t i = chain.len; i-- > 0;) {
    shard_op *copy = shard_canon_op_clone(rw, chain.items[i]);
    shard_operand_set(&copy->operands[0], input);
    shard_canon_insert_after_value(rw, input, copy);
    input = &copy->results[0];
  }
  SHARD_VEC_FREE(chain);
  return input;
}

static bool S_reshard_cse(canon_rewriter *rw, shard_op *op) {
  const shard_tensor_sharding *sharding = S_reshard_sharding(op);
  if (!sharding) return false;
  shard_value *input = op->operands[0].value;
  shard_value *root = input;
  while (root->def && S_is_metadata_op(root->def) && root->def->num_operands >= 1) root = root->def->operands[0].value;
  const shard_tensor_sharding *target = S_target_sharding(rw, sharding, input);
  shard_value *cached = S_find_compatible(rw, root, target, op->results[0].type, op);
  if (!cached) return false;
  if (!shard_type_equal(cached->type, root->type)) {
    shard_op *reshape = shard_canon_op_new(rw, "stablehlo.reshape", 1, &cached, root->type, op);
    shard_canon_insert_after_value(rw, cached, reshape);
    cached = &reshape->results[0];
  }
  shard_value *result = S_clone_path(rw, root, input, cached);
  shard_canon_replace_op(rw, op, &result);
  return true;
}

bool shard_canon_reshard_of_reshard(canon_rewriter *rw, shard_op *op) {
  return op->num_operands == 1 && op->num_results == 1 && S_reshard_of_reshard(rw, op);
}

bool shard_canon_reshard_cse(canon_rewriter *rw, shard_op *op) {
  return op->num_operands == 1 && op->num_results == 1 && S_reshard_cse(rw, op);
}
