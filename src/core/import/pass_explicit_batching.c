/* -sdy-explicit-gather-scatter-batching: turns the implicit batch dimension
 * of a gather or scatter into an explicit batching dimension, so that
 * propagation sees it (Shardy's ExplicitGatherScatterBatchingPass).
 *
 * A gather (scatter) qualifies when it has no batching dims yet, dimension 0
 * of its operand (first input) and of its indices have the same size, the
 * index vector has more than one component, the component mapped to operand
 * dim 0 comes from a dim-0 iota (possibly through a concatenate along the
 * index vector dim, reshapes, broadcasts, clamps and selects), and dim 0 is
 * a collapsed slice dim (inserted window dim). The iota component is then
 * dropped from the indices (by re-concatenating the other concatenate
 * inputs, or by slicing), from start_index_map (scatter_dims_to_operand_dims)
 * and from collapsed_slice_dims (inserted_window_dims), and dim 0 becomes a
 * batching dim of both operand and indices. Like MLIR's greedy driver, the
 * index computation left without users is erased. */
#include <stdlib.h>
#include <string.h>

#include "support/buf.h"
#include "pass/pass.h"
#include "pass/pass_shardings.h"

static bool S_is(const shard_op *op, const char *name) { return op && strcmp(op->name, name) == 0; }

static const shard_type *S_tensor(const shard_value *v) {
  return v && v->type && v->type->kind == SHARD_TYPE_TENSOR ? v->type : NULL;
}

static int S_find(const shard_i64s *l, int64_t x) {
  for (uint32_t i = 0; i < l->n; i++)
    if (l->v[i] == x) return (int)i;
  return -1;
}

/* A copy of `l` without its element i (arena memory). */
static shard_i64s S_without(shard_arena *a, shard_i64s l, int i) {
  int64_t *v = l.n > 1 ? SHARD_NEW_ARRAY(a, int64_t, l.n - 1) : NULL;
  uint32_t n = 0;
  for (uint32_t k = 0; k < l.n; k++)
    if ((int)k != i) v[n++] = l.v[k];
  return (shard_i64s){v, n};
}

/* ---- where the batch index comes from -------------------------------------- */

/* Follows reshapes, broadcasts, clamps and selects back to their source. */
static shard_value *S_unwrap(shard_value *v) {
  for (;;) {
    shard_op *op = v->def;
    if (S_is(op, "stablehlo.reshape") || S_is(op, "stablehlo.broadcast_in_dim")) v = op->operands[0].value;
    else if (S_is(op, "stablehlo.clamp") && op->num_operands == 3) v = op->operands[1].value;
    else if (S_is(op, "stablehlo.select") && op->num_operands == 3)
      v = S_is(op->operands[2].value->def, "stablehlo.iota") ? op->operands[2].value : op->operands[1].value;
    else return v;
  }
}

static int64_t S_concat_dim(const shard_op *op) {
  shard_attr *d = shard_op_attr(op, "dimension");
  return d && d->kind == SHARD_ATTR_INT ? d->u.integer.value : -1;
}

static bool S_index_from_iota(shard_value *indices, int64_t ivd, int idx) {
  shard_value *v = indices;
  shard_op *concat = v->def;
  if (S_is(concat, "stablehlo.concatenate")) {
    if (S_concat_dim(concat) != ivd || (uint32_t)idx >= concat->num_operands) return false;
    v = concat->operands[idx].value;
  }
  shard_op *iota = S_unwrap(v)->def;
  shard_attr *dim = iota && S_is(iota, "stablehlo.iota") ? shard_op_attr(iota, "iota_dimension") : NULL;
  return dim && dim->kind == SHARD_ATTR_INT && dim->u.integer.value == 0;
}

/* ---- new indices ---------------------------------------------------------------- */

static shard_type *S_i64(shard_arena *a) { return shard_type_other(a, "i64"); }

static shard_op *S_new_op(shard_arena *a, const char *name, uint32_t n, shard_value **operands, shard_type *type,
                          const shard_op *at) {
  shard_op *op = shard_op_new_named(a, name, n, operands, 1, &type, 0);
  op->loc = at->loc;
  op->span = at->span;
  shard_op_insert_before((shard_op *)at, op);
  return op;
}

static shard_value *S_concat(shard_arena *a, shard_value **inputs, uint32_t n, const shard_type *t, int64_t ivd,
                             const shard_op *at) {
  int64_t *dims = SHARD_NEW_ARRAY(a, int64_t, t->rank);
  memcpy(dims, t->dims, sizeof *dims * t->rank);
  dims[ivd] -= 1;
  shard_op *op = S_new_op(a, "stablehlo.concatenate", n, inputs, shard_type_with_dims(a, t, dims), at);
  shard_op_set_attr(a, op, "dimension", shard_attr_int(a, ivd, S_i64(a)), true);
  return &op->results[0];
}

static shard_value *S_slice(shard_arena *a, shard_value *indices, const shard_type *t, int64_t ivd, int64_t from,
                            int64_t to, const shard_op *at) {
  int64_t *start = SHARD_NEW_ARRAY(a, int64_t, t->rank);
  int64_t *limit = SHARD_NEW_ARRAY(a, int64_t, t->rank);
  int64_t *strides = SHARD_NEW_ARRAY(a, int64_t, t->rank);
  int64_t *dims = SHARD_NEW_ARRAY(a, int64_t, t->rank);
  for (uint32_t d = 0; d < t->rank; d++) {
    start[d] = 0;
    limit[d] = dims[d] = t->dims[d];
    strides[d] = 1;
  }
  start[ivd] = from;
  limit[ivd] = to;
  dims[ivd] = to - from;
  shard_op *op = S_new_op(a, "stablehlo.slice", 1, &indices, shard_type_with_dims(a, t, dims), at);
  shard_op_set_attr(a, op, "start_indices", shard_attr_dense_i64(a, start, t->rank), true);
  shard_op_set_attr(a, op, "limit_indices", shard_attr_dense_i64(a, limit, t->rank), true);
  shard_op_set_attr(a, op, "strides", shard_attr_dense_i64(a, strides, t->rank), true);
  return &op->results[0];
}

/* The indices without component `idx` of the index vector dim. */
static shard_value *S_drop_component(shard_arena *a, shard_value *indices, int64_t ivd, int idx, const shard_op *at) {
  const shard_type *t = S_tensor(indices);
  int64_t total = t->dims[ivd];
  shard_op *concat = indices->def;
  if (S_is(concat, "stablehlo.concatenate") && S_concat_dim(concat) == ivd && (int64_t)concat->num_operands == total) {
    shard_value **kept = SHARD_NEW_ARRAY(a, shard_value *, concat->num_operands);
    uint32_t n = 0;
    for (uint32_t i = 0; i < concat->num_operands; i++)
      if ((int)i != idx) kept[n++] = concat->operands[i].value;
    return n == 1 ? kept[0] : S_concat(a, kept, n, t, ivd, at);
  }
  shard_value *parts[2];
  uint32_t n = 0;
  if (idx > 0) parts[n++] = S_slice(a, indices, t, ivd, 0, idx, at);
  if (idx + 1 < total) parts[n++] = S_slice(a, indices, t, ivd, idx + 1, total, at);
  return n == 1 ? parts[0] : S_concat(a, parts, n, t, ivd, at);
}

/* Erases `v`'s defining op when nothing uses it any more, and then its
 * operands' ops in turn, for the side-effect-free ops this pass can orphan. */
static void S_erase_dead(shard_value *v) {
  shard_op *op = v ? v->def : NULL;
  if (!op || !op->parent) return;
  if (!(S_is(op, "stablehlo.concatenate") || S_is(op, "stablehlo.iota") || S_is(op, "stablehlo.reshape") ||
        S_is(op, "stablehlo.broadcast_in_dim") || S_is(op, "stablehlo.clamp") || S_is(op, "stablehlo.select") ||
        S_is(op, "stablehlo.slice") || S_is(op, "stablehlo.constant")))
    return;
  for (uint32_t i = 0; i < op->num_results; i++)
    if (op->results[i].first_use) return;
  uint32_t n = op->num_operands;
  shard_value *operands[16];
  if (n > 16) n = 16;
  for (uint32_t i = 0; i < n; i++) operands[i] = op->operands[i].value;
  shard_op_erase(op);
  for (uint32_t i = 0; i < n; i++) S_erase_dead(operands[i]);
}

/* ---- dimension numbers ---------------------------------------------------------- */

typedef struct dims_format {
  shard_attr_kind kind;
  const char *attr;
} dims_format;

static const dims_format gather_format = {SHARD_ATTR_SHLO_GATHER, "dimension_numbers"};
static const dims_format scatter_format = {SHARD_ATTR_SHLO_SCATTER, "scatter_dimension_numbers"};

/* Rewrites one gather (operand 0, indices 1) or scatter (first input 0,
 * indices after the inputs). */
static void S_make_batching_explicit(shard_arena *a, shard_op *op, const dims_format *f, uint32_t indices_at) {
  const shard_attr *dna = shard_op_attr(op, f->attr);
  const shard_gather_dims *dn = dna && dna->kind == f->kind ? dna->u.gather : NULL;
  if (!dn || indices_at >= op->num_operands) return;
  int64_t ivd = dn->index_vector_dim;
  if (dn->operand_batching.n) return; /* already explicit */
  shard_value *indices = op->operands[indices_at].value;
  const shard_type *operand_t = S_tensor(op->operands[0].value), *indices_t = S_tensor(indices);
  if (!operand_t || !indices_t || !operand_t->rank || !indices_t->rank) return;
  if (ivd < 0 || ivd >= (int64_t)indices_t->rank || indices_t->dims[ivd] <= 1) return;
  if (indices_t->dims[0] != operand_t->dims[0]) return;
  int idx = S_find(&dn->index_map, 0);
  if (idx < 0 || !S_index_from_iota(indices, ivd, idx)) return;
  int collapsed = S_find(&dn->collapsed, 0);
  if (collapsed < 0) return;
  static const int64_t zero = 0;
  shard_gather_dims nd = *dn;
  nd.index_map = S_without(a, dn->index_map, idx);
  nd.collapsed = S_without(a, dn->collapsed, collapsed);
  nd.operand_batching = nd.indices_batching = (shard_i64s){&zero, 1};
  shard_value *new_indices = S_drop_component(a, indices, ivd, idx, op);
  shard_op_set_attr(a, op, f->attr, shard_attr_gather_dims_new(a, f->kind, &nd), true);
  shard_operand_set(&op->operands[indices_at], new_indices);
  S_erase_dead(indices);
}

typedef SHARD_VEC(shard_op *) op_vec;

static bool S_collect(shard_op *op, void *ctx) {
  if (S_is(op, "stablehlo.gather") || S_is(op, "stablehlo.scatter")) SHARD_VEC_PUSH(*(op_vec *)ctx, op);
  return true;
}

bool shard_pass_explicit_gather_scatter_batching(shard_module *m, const char *options, const shard_pass_context *cx) {
  op_vec ops = {0};
  shard_walk(m->top, S_collect, &ops);
  for (uint32_t i = 0; i < ops.len; i++) {
    shard_op *op = ops.items[i];
    if (S_is(op, "stablehlo.gather")) S_make_batching_explicit(m->arena, op, &gather_format, 1);
    else S_make_batching_explicit(m->arena, op, &scatter_format, op->num_results);
  }
  SHARD_VEC_FREE(ops);
  return true;
}
