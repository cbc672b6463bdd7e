/* Canonicalization patterns of the sdy collectives (Shardy's
 * canonicalization.td and canonicalization.cc). Per op, in the order MLIR
 * tries them (higher benefit first, then registration order):
 *
 *  all_gather          no-op when no dim gathers anything
 *  all_slice           all_slice of an all_gather with the same axes -> its input;
 *                      no-op when no dim slices anything;
 *                      all_reduce + all_slice -> reduce_scatter (+ all_slice of
 *                      the slicing axes the reduction did not cover)
 *  all_reduce          all_reduce of a replicated_to_unreduced over the same
 *                      axes -> its input; no-op without reduction axes;
 *                      all_reduce of a sharded_to_unreduced over the same
 *                      (sorted, merged) axes -> all_gather
 *  all_to_all          two all_to_alls over disjoint dims, the inner one used
 *                      once -> one all_to_all; an unused all_to_all goes
 *                      (it is not Pure, so plain DCE would keep it)
 *  collective_permute  no-op when the input sharding is equivalent to out_sharding
 *  reduce_scatter      no-op when no dim scatters anything
 *
 * The collectives are not Pure: apart from the all_to_all case, a
 * collective left without uses stays, as in Shardy. */
#include <stdlib.h>
#include <string.h>

#include "export/canonicalize_internal.h"

static bool S_is(const shard_op *op, const char *name) { return op && strcmp(op->name, name) == 0; }

static const shard_tensor_sharding *S_out_sharding(const shard_op *op) {
  shard_attr *a = shard_canon_attr(op, "out_sharding", SHARD_ATTR_SDY_SHARDING);
  return a ? a->u.sharding : NULL;
}

static bool S_lists_equal(const shard_attr *a, const shard_attr *b) {
  if (!a || !b || a->u.axis_lists.num != b->u.axis_lists.num) return false;
  for (uint32_t i = 0; i < a->u.axis_lists.num; i++) {
    const shard_axis_list *x = &a->u.axis_lists.dims[i], *y = &b->u.axis_lists.dims[i];
    if (!shard_canon_axes_equal(x->axes, x->num, y->axes, y->num)) return false;
  }
  return true;
}

/* Sdy_EmptyAxesPerDim: every per-dim list is empty. */
static bool S_all_empty(const shard_attr *lists) {
  if (!lists) return false;
  for (uint32_t i = 0; i < lists->u.axis_lists.num; i++)
    if (lists->u.axis_lists.dims[i].num) return false;
  return true;
}

static shard_attr *S_axis_lists_attr(canon_rewriter *rw, shard_axis_list *dims, uint32_t num) {
  shard_attr *a = shard_attr_new(rw->arena, SHARD_ATTR_SDY_AXIS_LISTS);
  a->u.axis_lists.dims = dims;
  a->u.axis_lists.num = num;
  return a;
}

/* Replaces op by its input tensor. */
static bool S_forward_input(canon_rewriter *rw, shard_op *op) {
  shard_value *input = op->operands[0].value;
  shard_canon_replace_op(rw, op, &input);
  return true;
}

static bool S_unary(const shard_op *op) { return op->num_operands == 1 && op->num_results == 1; }

/* ---- all_gather / reduce_scatter --------------------------------------- */

bool shard_canon_all_gather(canon_rewriter *rw, shard_op *op) {
  if (!S_unary(op)) return false;
  if (S_all_empty(shard_canon_attr(op, "gathering_axes", SHARD_ATTR_SDY_AXIS_LISTS))) return S_forward_input(rw, op);
  return false;
}

bool shard_canon_reduce_scatter(canon_rewriter *rw, shard_op *op) {
  if (!S_unary(op)) return false;
  if (S_all_empty(shard_canon_attr(op, "reduce_scatter_axes", SHARD_ATTR_SDY_AXIS_LISTS)))
    return S_forward_input(rw, op);
  return false;
}

/* ---- all_slice ----------------------------------------------------------- */

/* all_reduce + all_slice -> reduce_scatter: each dim's slicing axes are
 * split into the longest prefix of (not yet used) reduction axes, which the
 * reduce_scatter takes, and the rest, left to a residual all_slice. Every
 * reduction axis must be taken. All users of the all_reduce must be
 * all_slices with the same axes, and `op` the first of them. */
static bool S_reduce_scatter_fusion(canon_rewriter *rw, shard_op *op) {
  shard_op *all_reduce = op->operands[0].value->def;
  if (!S_is(all_reduce, "sdy.all_reduce") || !S_unary(all_reduce)) return false;
  shard_attr *slicing = shard_canon_attr(op, "slicing_axes", SHARD_ATTR_SDY_AXIS_LISTS);
  shard_attr *reduction = shard_canon_attr(all_reduce, "reduction_axes", SHARD_ATTR_SDY_AXIS_LIST);
  const shard_tensor_sharding *reduce_out = S_out_sharding(all_reduce);
  const shard_tensor_sharding *slice_out = S_out_sharding(op);
  if (!slicing || !reduction || !reduce_out || !slice_out) return false;
  for (shard_operand *u = all_reduce->results[0].first_use; u; u = u->next_use) {
    shard_op *user = u->owner;
    if (!S_is(user, "sdy.all_slice") ||
        !S_lists_equal(shard_canon_attr(user, "slicing_axes", SHARD_ATTR_SDY_AXIS_LISTS), slicing))
      return false;
    if (user != op && (user->parent != op->parent || shard_canon_is_before_in_block(rw, user, op))) return false;
  }
  const shard_mesh *mesh = shard_canon_sharding_mesh(rw, reduce_out);
  if (!mesh) return false;

  uint32_t rank = slicing->u.axis_lists.num;
  const shard_axis_list *reduce_axes = &reduction->u.axis_list;
  bool *used = shard_xcalloc(reduce_axes->num + 1, sizeof *used);
  shard_axis_list *scatter = SHARD_NEW_ARRAY(rw->arena, shard_axis_list, rank ? rank : 1);
  shard_axis_list *residual = SHARD_NEW_ARRAY(rw->arena, shard_axis_list, rank ? rank : 1);
  bool has_residual = false;
  for (uint32_t d = 0; d < rank; d++) {
    const shard_axis_list *dim = &slicing->u.axis_lists.dims[d];
    uint32_t k = 0;
    for (; k < dim->num; k++) {
      uint32_t j = 0;
      while (j < reduce_axes->num && (used[j] || !shard_axis_equal(&reduce_axes->axes[j], &dim->axes[k]))) j++;
      if (j == reduce_axes->num) break;
      /* A set in Shardy: equal refs are consumed together. */
      for (uint32_t t = j; t < reduce_axes->num; t++)
        if (shard_axis_equal(&reduce_axes->axes[t], &dim->axes[k])) used[t] = true;
    }
    scatter[d].axes = dim->axes;
    scatter[d].num = k;
    residual[d].axes = k < dim->num ? dim->axes + k : NULL; /* NULL + 0 is undefined */
    residual[d].num = dim->num - k;
    if (residual[d].num) has_residual = true;
  }
  bool all_used = true;
  for (uint32_t j = 0; j < reduce_axes->num; j++) all_used &= used[j];
  free(used);
  if (!all_used) return false;

  /* The reduce_scatter's out sharding: the all_reduce input's dims (fully
   * replicated if it has none) with the scattered axes appended, closed. */
  shard_value *tensor = all_reduce->operands[0].value;
  const shard_tensor_sharding *in = shard_canon_value_sharding(tensor);
  if (in && in->rank != rank) return false;
  shard_tensor_sharding *out = SHARD_NEW(rw->arena, shard_tensor_sharding);
  out->mesh_name = reduce_out->mesh_name;
  out->inline_mesh = reduce_out->inline_mesh;
  out->rank = rank;
  out->dims = SHARD_NEW_ARRAY(rw->arena, shard_dim_sharding, rank ? rank : 1);
  for (uint32_t d = 0; d < rank; d++) {
    uint32_t base = in ? in->dims[d].num_axes : 0;
    shard_axis_ref *axes = SHARD_NEW_ARRAY(rw->arena, shard_axis_ref, base + scatter[d].num + 1);
    uint32_t n = 0;
    for (uint32_t k = 0; k < base; k++) axes[n++] = in->dims[d].axes[k];
    for (uint32_t k = 0; k < scatter[d].num; k++) {
      const shard_axis_ref *a = &scatter[d].axes[k];
      if (n && shard_axis_can_merge(&axes[n - 1], a)) axes[n - 1] = shard_axis_merge(&axes[n - 1], a, mesh);
      else axes[n++] = *a;
    }
    out->dims[d].axes = axes;
    out->dims[d].num_axes = n;
    out->dims[d].is_open = false;
    out->dims[d].priority = SHARD_NO_PRIORITY;
  }
  out->replicated = slice_out->replicated;
  out->num_replicated = slice_out->num_replicated;
  out->unreduced = slice_out->unreduced;
  out->num_unreduced = slice_out->num_unreduced;
  out->reduction = slice_out->reduction;

  shard_op *rs = shard_canon_op_new(rw, "sdy.reduce_scatter", 1, &tensor, all_reduce->results[0].type, all_reduce);
  shard_op_set_attr(rw->arena, rs, "reduce_scatter_axes", S_axis_lists_attr(rw, scatter, rank), true);
  shard_op_set_attr(rw->arena, rs, "out_sharding", shard_attr_sharding(rw->arena, out), true);
  shard_attr *reduction_op = shard_canon_attr(all_reduce, "reduction_op", SHARD_ATTR_SDY_REDUCTION);
  if (reduction_op) shard_op_set_attr(rw->arena, rs, "reduction_op", reduction_op, true);
  shard_canon_insert_before(rw, op, rs);
  shard_value *result = &rs->results[0];
  if (has_residual) {
    shard_op *slice = shard_canon_op_new(rw, "sdy.all_slice", 1, &result, op->results[0].type, op);
    shard_op_set_attr(rw->arena, slice, "slicing_axes", S_axis_lists_attr(rw, residual, rank), true);
    shard_op_set_attr(rw->arena, slice, "out_sharding", shard_op_attr(op, "out_sharding"), true);
    shard_canon_insert_before(rw, op, slice);
    result = &slice->results[0];
  }
  while (all_reduce->results[0].first_use) shard_canon_replace_op(rw, all_reduce->results[0].first_use->owner, &result);
  shard_canon_erase_op(rw, all_reduce);
  return true;
}

bool shard_canon_all_slice(canon_rewriter *rw, shard_op *op) {
  if (!S_unary(op)) return false;
  shard_attr *slicing = shard_canon_attr(op, "slicing_axes", SHARD_ATTR_SDY_AXIS_LISTS);
  shard_op *gather = op->operands[0].value->def;
  if (S_is(gather, "sdy.all_gather") && S_unary(gather) &&
      S_lists_equal(shard_canon_attr(gather, "gathering_axes", SHARD_ATTR_SDY_AXIS_LISTS), slicing)) {
    shard_value *input = gather->operands[0].value;
    shard_canon_replace_op(rw, op, &input);
    return true;
  }
  if (S_all_empty(slicing)) return S_forward_input(rw, op);
  return S_reduce_scatter_fusion(rw, op);
}

/* ---- all_reduce -------------------------------------------------------- */

static int S_cmp_axis_in_mesh(const shard_axis_ref *a, const shard_axis_ref *b, const shard_mesh *m) {
  return shard_axis_compare(a, b, m);
}

/* all_reduce of a sharded_to_unreduced over exactly its axes -> all_gather
 * of the sharded_to_unreduced's input. */
static bool S_all_reduce_of_s2u(canon_rewriter *rw, shard_op *op, const shard_axis_list *reduction) {
  shard_op *s2u = op->operands[0].value->def;
  if (!S_is(s2u, "sdy.sharded_to_unreduced") || !S_unary(s2u)) return false;
  shard_attr *axes = shard_canon_attr(s2u, "axes", SHARD_ATTR_SDY_AXIS_LISTS);
  const shard_mesh *mesh = shard_canon_sharding_mesh(rw, S_out_sharding(s2u));
  if (!axes || !mesh) return false;
  SHARD_VEC(shard_axis_ref) flat = {0};
  for (uint32_t d = 0; d < axes->u.axis_lists.num; d++)
    for (uint32_t k = 0; k < axes->u.axis_lists.dims[d].num; k++)
      SHARD_VEC_PUSH(flat, axes->u.axis_lists.dims[d].axes[k]);
  /* sortAndMergeAxes: insertion sort by mesh order, then merge neighbours. */
  for (uint32_t i = 1; i < flat.len; i++)
    for (uint32_t j = i; j > 0 && S_cmp_axis_in_mesh(&flat.items[j - 1], &flat.items[j], mesh) > 0; j--) {
      shard_axis_ref tmp = flat.items[j];
      flat.items[j] = flat.items[j - 1];
      flat.items[j - 1] = tmp;
    }
  uint32_t n = 0;
  for (uint32_t i = 0; i < flat.len; i++) {
    if (n && shard_axis_can_merge(&flat.items[n - 1], &flat.items[i]))
      flat.items[n - 1] = shard_axis_merge(&flat.items[n - 1], &flat.items[i], mesh);
    else flat.items[n++] = flat.items[i];
  }
  bool same = shard_canon_axes_equal(flat.items, n, reduction->axes, reduction->num);
  SHARD_VEC_FREE(flat);
  if (!same) return false;
  shard_value *input = s2u->operands[0].value;
  shard_op *gather = shard_canon_op_new(rw, "sdy.all_gather", 1, &input, op->results[0].type, op);
  shard_op_set_attr(rw->arena, gather, "gathering_axes", axes, true);
  shard_op_set_attr(rw->arena, gather, "out_sharding", shard_op_attr(op, "out_sharding"), true);
  shard_canon_insert_before(rw, op, gather);
  shard_value *result = &gather->results[0];
  shard_canon_replace_op(rw, op, &result);
  return true;
}

bool shard_canon_all_reduce(canon_rewriter *rw, shard_op *op) {
  if (!S_unary(op)) return false;
  shard_attr *reduction = shard_canon_attr(op, "reduction_axes", SHARD_ATTR_SDY_AXIS_LIST);
  if (!reduction) return false;
  const shard_axis_list *axes = &reduction->u.axis_list;
  shard_op *r2u = op->operands[0].value->def;
  if (S_is(r2u, "sdy.replicated_to_unreduced") && S_unary(r2u)) {
    shard_attr *r2u_axes = shard_canon_attr(r2u, "axes", SHARD_ATTR_SDY_AXIS_LIST);
    if (r2u_axes &&
        shard_canon_axes_equal(r2u_axes->u.axis_list.axes, r2u_axes->u.axis_list.num, axes->axes, axes->num)) {
      shard_value *input = r2u->operands[0].value;
      shard_canon_replace_op(rw, op, &input);
      return true;
    }
  }
  if (axes->num == 0) return S_forward_input(rw, op);
  return S_all_reduce_of_s2u(rw, op, axes);
}

/* ---- all_to_all ---------------------------------------------------------- */

/* AllToAllParamListAttr::overlaps: some dim is a source or target twice. */
static bool S_params_overlap(const shard_attr *a, const shard_attr *b) {
  SHARD_VEC(int64_t) dims = {0};
  bool overlap = false;
  const shard_attr *lists[2] = {a, b};
  for (int l = 0; l < 2 && !overlap; l++)
    for (uint32_t i = 0; i < lists[l]->u.all_to_all.num && !overlap; i++) {
      const shard_all_to_all_param *p = &lists[l]->u.all_to_all.params[i];
      int64_t ds[2] = {p->src_dim, p->tgt_dim};
      for (int k = 0; k < 2 && !overlap; k++) {
        for (uint32_t j = 0; j < dims.len; j++)
          if (dims.items[j] == ds[k]) overlap = true;
        SHARD_VEC_PUSH(dims, ds[k]);
      }
    }
  SHARD_VEC_FREE(dims);
  return overlap;
}

static bool S_all_to_all_fusion(canon_rewriter *rw, shard_op *op) {
  shard_value *input = op->operands[0].value;
  shard_op *inner = input->def;
  if (!S_is(inner, "sdy.all_to_all") || !S_unary(inner) || shard_value_num_uses(input) != 1) return false;
  shard_attr *inner_params = shard_canon_attr(inner, "params", SHARD_ATTR_SDY_ALL_TO_ALL);
  shard_attr *outer_params = shard_canon_attr(op, "params", SHARD_ATTR_SDY_ALL_TO_ALL);
  if (!inner_params || !outer_params || S_params_overlap(inner_params, outer_params)) return false;
  /* combineAndSort: by source dim (unique, since the params don't overlap). */
  uint32_t n = inner_params->u.all_to_all.num + outer_params->u.all_to_all.num;
  shard_all_to_all_param *params = SHARD_NEW_ARRAY(rw->arena, shard_all_to_all_param, n ? n : 1);
  uint32_t k = 0;
  for (uint32_t i = 0; i < inner_params->u.all_to_all.num; i++) params[k++] = inner_params->u.all_to_all.params[i];
  for (uint32_t i = 0; i < outer_params->u.all_to_all.num; i++) params[k++] = outer_params->u.all_to_all.params[i];
  for (uint32_t i = 1; i < n; i++)
    for (uint32_t j = i; j > 0 && params[j - 1].src_dim > params[j].src_dim; j--) {
      shard_all_to_all_param tmp = params[j];
      params[j] = params[j - 1];
      params[j - 1] = tmp;
    }
  shard_attr *combined = shard_attr_new(rw->arena, SHARD_ATTR_SDY_ALL_TO_ALL);
  combined->u.all_to_all.params = params;
  combined->u.all_to_all.num = n;
  shard_value *tensor = inner->operands[0].value;
  shard_op *fused = shard_canon_op_new(rw, "sdy.all_to_all", 1, &tensor, op->results[0].type, op);
  shard_op_set_attr(rw->arena, fused, "params", combined, true);
  shard_op_set_attr(rw->arena, fused, "out_sharding", shard_op_attr(op, "out_sharding"), true);
  shard_canon_insert_before(rw, op, fused);
  shard_value *result = &fused->results[0];
  shard_canon_replace_op(rw, op, &result);
  return true;
}

bool shard_canon_all_to_all(canon_rewriter *rw, shard_op *op) {
  if (!S_unary(op)) return false;
  if (S_all_to_all_fusion(rw, op)) return true;
  if (!op->results[0].first_use) {
    shard_canon_erase_op(rw, op);
    return true;
  }
  return false;
}

/* ---- collective_permute --------------------------------------------------- */

/* TensorShardingAttr::isEquivalent's notion of replicated: no sharding, or no
 * sharded dim and no unreduced axes. */
static bool S_replicated(const shard_tensor_sharding *s) {
  return !s || (s->num_unreduced == 0 && shard_sharding_fully_replicated(s));
}

/* TensorShardingAttr::isEquivalent: same mesh, same unreduced axes and the
 * same axes per dim; open/closed, priorities and replicated axes don't count. */
static bool S_equivalent(const shard_tensor_sharding *a, const shard_tensor_sharding *b) {
  if (S_replicated(a)) return S_replicated(b);
  if (!b || !shard_canon_same_mesh_ref(a, b)) return false;
  if (!shard_canon_axes_equal(a->unreduced, a->num_unreduced, b->unreduced, b->num_unreduced)) return false;
  if (a->rank != b->rank) return false;
  for (uint32_t d = 0; d < a->rank; d++)
    if (!shard_canon_axes_equal(a->dims[d].axes, a->dims[d].num_axes, b->dims[d].axes, b->dims[d].num_axes))
      return false;
  return true;
}

bool shard_canon_collective_permute(canon_rewriter *rw, shard_op *op) {
  if (!S_unary(op)) return false;
  const shard_tensor_sharding *out = S_out_sharding(op);
  if (out && S_equivalent(shard_canon_value_sharding(op->operands[0].value), out)) return S_forward_input(rw, op);
  return false;
}
