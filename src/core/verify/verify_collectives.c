/* Verification of the sdy collectives: the checks every collective shares
 * (verifyCollectiveOp: operand sharding present, out_sharding valid, same
 * mesh, same rank) and each op's own rule for how its axes turn the operand
 * sharding into out_sharding (all_gather pops them off a dim, all_slice and
 * reduce_scatter append them, all_to_all moves them between dims, ...). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "ir/opdef.h"
#include "verify/verify_internal.h"

static bool S_allows_missing_input(const shard_op *op) {
  return shard_verify_op_is(op, "sdy.all_slice") || shard_verify_op_is(op, "sdy.all_reduce") ||
         shard_verify_op_is(op, "sdy.reduce_scatter");
}

static const shard_tensor_sharding *S_out(const shard_op *op) {
  const shard_attr *a = shard_verify_attr(op, "out_sharding");
  return a && a->kind == SHARD_ATTR_SDY_SHARDING ? a->u.sharding : NULL;
}

static const shard_value *S_operand(const shard_op *op) { return op->num_operands ? op->operands[0].value : NULL; }

static shard_reduction S_reduction_op(const shard_op *op) {
  const shard_attr *a = shard_verify_attr(op, "reduction_op");
  return a && a->kind == SHARD_ATTR_SDY_REDUCTION ? a->u.reduction : SHARD_RED_SUM;
}

/* The operand's sharding, or a fully replicated one on out's mesh
 * (getOrCreateSharding). */
static const shard_tensor_sharding *S_operand_or_replicated(vf_ctx *cx, const shard_op *op,
                                                            const shard_tensor_sharding *out) {
  const shard_value *v = S_operand(op);
  const shard_tensor_sharding *s = shard_verify_value_sharding(cx, v);
  return s ? s : shard_verify_replicated_like(cx, out, v ? shard_verify_type_rank(v->type) : 0);
}

static shard_span S_value_span(const shard_value *v, shard_span fallback) {
  shard_span at = v ? shard_value_span(v) : shard_no_span;
  if (at.src) return at;
  if (v && v->def) return v->def->span;
  if (v && v->block && v->block->parent && v->block->parent->parent) return v->block->parent->parent->span;
  return fallback;
}

bool shard_verify_check_collective_entry(vf_ctx *cx, const shard_op *op, const vf_manual *manual) {
  vf_emit e = shard_verify_emit_op(cx, op, NULL);
  const shard_value *operand = S_operand(op);
  const shard_tensor_sharding *in = shard_verify_value_sharding(cx, operand);
  if (!S_allows_missing_input(op) && !in) return shard_verify_fail(&e, "collective on operand without sharding");
  const shard_tensor_sharding *out = S_out(op);
  if (!out) return shard_verify_fail(&e, "requires attribute 'out_sharding'");
  const shard_mesh *out_mesh = shard_verify_sharding_mesh(cx, out);
  if (!shard_verify_check_sharding(&e, out, op->num_results ? op->results[0].type : NULL, out_mesh, manual))
    return false;
  if (!shard_verify_op_is(op, "sdy.collective_permute") && in) {
    const shard_mesh *in_mesh = shard_verify_sharding_mesh(cx, in);
    if (in_mesh && !shard_mesh_equal(in_mesh, out_mesh)) {
      shard_verify_fail(&e, "result mesh does not match operand mesh");
      shard_verify_note(cx, S_value_span(operand, op->span), "operand mesh: %s", shard_verify_mesh_str(cx, in_mesh));
      return false;
    }
  }
  if (in && in->rank != out->rank)
    return shard_verify_fail(&e, "result sharding has rank %u but operand sharding has rank %u", out->rank, in->rank);
  return true;
}

/* ---- per-dim collectives ------------------------------------------------ */

/* gatherAxesAlongDim: removes `axes` from the end of `dim`, writing the
 * remaining axes to `out` (capacity dim->num_axes). */
static bool S_gather(const vf_emit *e, const shard_dim_sharding *dim, const shard_axis_ref *axes, uint32_t n,
                     uint32_t d, const shard_mesh *m, const char *what, shard_axis_ref *out, uint32_t *nout) {
  vf_ctx *cx = e->cx;
  uint32_t len = dim->num_axes;
  if (len) memcpy(out, dim->axes, sizeof *out * len);
  for (uint32_t i = n; i-- > 0;) {
    if (!len || !shard_verify_ax_suffix_of(cx, &axes[i], &out[len - 1], m))
      return shard_verify_fail(e, "can't apply %s axis %s to operand sharding on dimension %u", what,
                               shard_verify_axis_str(cx, &axes[i]), d);
    shard_axis_ref last = out[--len], prefix;
    if (shard_verify_ax_prefix_without_overlap(cx, &last, &axes[i], m, &prefix)) out[len++] = prefix;
  }
  *nout = len;
  return true;
}

/* sliceAxesAlongDim: appends `axes` to `dim`, merging sub-axes. `out` has
 * room for dim->num_axes + n refs. */
static uint32_t S_slice(vf_ctx *cx, const shard_dim_sharding *dim, const shard_axis_ref *axes, uint32_t n,
                        const shard_mesh *m, shard_axis_ref *out) {
  uint32_t len = dim->num_axes;
  if (len) memcpy(out, dim->axes, sizeof *out * len);
  for (uint32_t i = 0; i < n; i++) {
    if (len && shard_verify_ax_can_merge(&out[len - 1], &axes[i]))
      out[len - 1] = shard_verify_ax_merge(cx, &out[len - 1], &axes[i], m);
    else out[len++] = axes[i];
  }
  return len;
}

static bool S_expect_dim(const vf_emit *e, const shard_axis_ref *expected, uint32_t n, const shard_dim_sharding *actual,
                         uint32_t d) {
  if (shard_verify_axes_equal(expected, n, actual->axes, actual->num_axes)) return true;
  return shard_verify_fail(e, "result sharding doesn't match expected sharding %s on dimension %u",
                           shard_verify_axes_str(e->cx, expected, n), d);
}

typedef enum { S_GATHER, S_SLICE } S_dim_rule;

/* verifyCollectiveWithAxesPerDim. */
static bool S_check_per_dim(vf_ctx *cx, const shard_op *op, const char *attr, S_dim_rule rule, const char *what) {
  vf_emit e = shard_verify_emit_op(cx, op, NULL);
  const shard_tensor_sharding *out = S_out(op);
  const shard_tensor_sharding *in = S_operand_or_replicated(cx, op, out);
  const shard_mesh *m = shard_verify_sharding_mesh(cx, out);
  const shard_attr *a = shard_verify_attr(op, attr);
  static const shard_axis_list no_list = {0};
  const shard_axis_list *lists = a && a->kind == SHARD_ATTR_SDY_AXIS_LISTS ? a->u.axis_lists.dims : &no_list;
  uint32_t nlists = a && a->kind == SHARD_ATTR_SDY_AXIS_LISTS ? a->u.axis_lists.num : 0;
  shard_verify_axis_set_reset(&cx->seen);
  for (uint32_t d = 0; d < nlists; d++)
    if (!shard_verify_check_axis_list(&e, lists[d].axes, lists[d].num, m)) return false;
  if (out->rank != nlists)
    return shard_verify_fail(&e, "result sharding has rank %u but collective axes has rank %u", out->rank, nlists);
  for (uint32_t d = 0; d < nlists && d < in->rank; d++) {
    shard_axis_ref *exp = SHARD_NEW_ARRAY(cx->scratch, shard_axis_ref, in->dims[d].num_axes + lists[d].num + 1);
    uint32_t n;
    if (rule == S_GATHER) {
      if (!S_gather(&e, &in->dims[d], lists[d].axes, lists[d].num, d, m, what, exp, &n)) return false;
    } else {
      n = S_slice(cx, &in->dims[d], lists[d].axes, lists[d].num, m, exp);
    }
    if (!S_expect_dim(&e, exp, n, &out->dims[d], d)) return false;
  }
  return true;
}

static bool S_check_sharded_to_unreduced(vf_ctx *cx, const shard_op *op) {
  vf_emit e = shard_verify_emit_op(cx, op, NULL);
  const shard_tensor_sharding *out = S_out(op);
  if (out->reduction != SHARD_RED_SUM) return shard_verify_fail(&e, "out_sharding reduction_op must be SUM");
  if (!S_check_per_dim(cx, op, "axes", S_GATHER, "shard-to-unreduce")) return false;
  const shard_tensor_sharding *in = shard_verify_value_sharding(cx, S_operand(op));
  const shard_mesh *m = shard_verify_sharding_mesh(cx, out);
  const shard_attr *a = shard_verify_attr(op, "axes");
  uint32_t n = in ? in->num_unreduced : 0;
  for (uint32_t d = 0; a && a->kind == SHARD_ATTR_SDY_AXIS_LISTS && d < a->u.axis_lists.num; d++)
    n += a->u.axis_lists.dims[d].num;
  shard_axis_ref *exp = SHARD_NEW_ARRAY(cx->scratch, shard_axis_ref, n + 1);
  uint32_t len = 0;
  for (uint32_t i = 0; in && i < in->num_unreduced; i++) exp[len++] = in->unreduced[i];
  for (uint32_t d = 0; a && a->kind == SHARD_ATTR_SDY_AXIS_LISTS && d < a->u.axis_lists.num; d++)
    for (uint32_t i = 0; i < a->u.axis_lists.dims[d].num; i++) exp[len++] = a->u.axis_lists.dims[d].axes[i];
  len = shard_verify_sort_and_merge(cx, exp, len, m);
  if (!shard_verify_axes_equal(exp, len, out->unreduced, out->num_unreduced))
    return shard_verify_fail(&e, "out_unreduced_axes should be in_unreduced_axes + sharded_to_unreduced_axes");
  return true;
}

static bool S_dims_equal(const shard_tensor_sharding *a, const shard_tensor_sharding *b) {
  if (a->rank != b->rank) return false;
  for (uint32_t d = 0; d < a->rank; d++)
    if (a->dims[d].is_open != b->dims[d].is_open || a->dims[d].priority != b->dims[d].priority ||
        !shard_verify_axes_equal(a->dims[d].axes, a->dims[d].num_axes, b->dims[d].axes, b->dims[d].num_axes))
      return false;
  return true;
}

static bool S_any_overlap(const shard_axis_ref *axes, uint32_t n, const shard_axis_ref *r) {
  for (uint32_t i = 0; i < n; i++)
    if (shard_verify_ax_overlaps(&axes[i], r)) return true;
  return false;
}

static bool S_dims_overlap(const shard_tensor_sharding *s, const shard_axis_ref *r) {
  for (uint32_t d = 0; d < s->rank; d++)
    if (S_any_overlap(s->dims[d].axes, s->dims[d].num_axes, r)) return true;
  return false;
}

static const shard_axis_list *S_axis_list(const shard_op *op, const char *name) {
  static const shard_axis_list none = {0};
  const shard_attr *a = shard_verify_attr(op, name);
  return a && a->kind == SHARD_ATTR_SDY_AXIS_LIST ? &a->u.axis_list : &none;
}

static bool S_check_replicated_to_unreduced(vf_ctx *cx, const shard_op *op) {
  vf_emit e = shard_verify_emit_op(cx, op, NULL);
  const shard_tensor_sharding *in = shard_verify_value_sharding(cx, S_operand(op)), *out = S_out(op);
  if (out->reduction != SHARD_RED_SUM) return shard_verify_fail(&e, "out_sharding reduction_op must be SUM");
  const shard_mesh *m = shard_verify_sharding_mesh(cx, out);
  if (!S_dims_equal(in, out)) return shard_verify_fail(&e, "input and output must share the same dimension shardings");
  const shard_axis_list *axes = S_axis_list(op, "axes");
  if (!axes->num) return shard_verify_fail(&e, "r2u axes must not be empty");
  shard_verify_axis_set_reset(&cx->seen);
  if (!shard_verify_check_sorted_axis_list(&e, axes->axes, axes->num, m, "r2u")) return false;
  for (uint32_t i = 0; i < axes->num; i++) {
    if (S_dims_overlap(in, &axes->axes[i]))
      return shard_verify_fail(&e, "r2u axis %s overlaps with operand dimension sharding",
                               shard_verify_axis_str(cx, &axes->axes[i]));
    if (S_any_overlap(in->unreduced, in->num_unreduced, &axes->axes[i]))
      return shard_verify_fail(&e, "r2u axis %s overlaps with operand unreduced axes",
                               shard_verify_axis_str(cx, &axes->axes[i]));
  }
  shard_axis_ref *exp = SHARD_NEW_ARRAY(cx->scratch, shard_axis_ref, in->num_unreduced + axes->num + 1);
  uint32_t len = 0;
  for (uint32_t i = 0; i < in->num_unreduced; i++) exp[len++] = in->unreduced[i];
  for (uint32_t i = 0; i < axes->num; i++) exp[len++] = axes->axes[i];
  len = shard_verify_sort_and_merge(cx, exp, len, m);
  if (!shard_verify_axes_equal(exp, len, out->unreduced, out->num_unreduced))
    return shard_verify_fail(&e, "out_unreduced_axes should be in_unreduced_axes + r2u_axes");
  return true;
}

static bool S_check_all_to_all(vf_ctx *cx, const shard_op *op) {
  vf_emit e = shard_verify_emit_op(cx, op, NULL);
  const shard_tensor_sharding *in = shard_verify_value_sharding(cx, S_operand(op)), *out = S_out(op);
  const shard_mesh *m = shard_verify_sharding_mesh(cx, out);
  const shard_attr *a = shard_verify_attr(op, "params");
  uint32_t np = a && a->kind == SHARD_ATTR_SDY_ALL_TO_ALL ? a->u.all_to_all.num : 0;
  if (!np) return shard_verify_fail(&e, "parameter list is empty");
  const shard_all_to_all_param *params = a->u.all_to_all.params;
  uint32_t rank = op->num_results ? shard_verify_type_rank(op->results[0].type) : 0;
  uint8_t *seen_dims = SHARD_NEW_ARRAY(cx->scratch, uint8_t, rank + 1);
  int64_t prev_src = -1;
  shard_verify_axis_set_reset(&cx->seen);
  for (uint32_t p = 0; p < np; p++) {
    const shard_all_to_all_param *pa = &params[p];
    if (!shard_verify_check_axis_list(&e, pa->axes.axes, pa->axes.num, m)) return false;
    if (pa->src_dim < 0 || pa->src_dim >= (int64_t)rank)
      return shard_verify_fail(&e, "source dimension %" PRId64 " is out of range [0, %u)", pa->src_dim, rank);
    if (pa->tgt_dim < 0 || pa->tgt_dim >= (int64_t)rank)
      return shard_verify_fail(&e, "target dimension %" PRId64 " is out of range [0, %u)", pa->tgt_dim, rank);
    int64_t dims[2] = {pa->src_dim, pa->tgt_dim};
    for (int k = 0; k < 2; k++) {
      if (seen_dims[dims[k]])
        return shard_verify_fail(&e, "overlapping source/target dimensions in all-to-all params: %" PRId64, dims[k]);
      seen_dims[dims[k]] = 1;
    }
    if (prev_src >= pa->src_dim)
      return shard_verify_fail(
          &e, "source dimensions are not sorted in ascending order: %" PRId64 " appears after %" PRId64, pa->src_dim,
          prev_src);
    prev_src = pa->src_dim;
  }
  if (in->rank < rank || out->rank < rank) return true; /* reported by the rank checks */
  for (uint32_t p = 0; p < np; p++) {
    const shard_all_to_all_param *pa = &params[p];
    const shard_dim_sharding *src = &in->dims[pa->src_dim], *tgt = &in->dims[pa->tgt_dim];
    shard_axis_ref *exp =
        SHARD_NEW_ARRAY(cx->scratch, shard_axis_ref, src->num_axes + tgt->num_axes + pa->axes.num + 1);
    uint32_t n;
    if (!S_gather(&e, src, pa->axes.axes, pa->axes.num, (uint32_t)pa->src_dim, m, "all-to-all", exp, &n)) return false;
    if (!S_expect_dim(&e, exp, n, &out->dims[pa->src_dim], (uint32_t)pa->src_dim)) return false;
    n = S_slice(cx, tgt, pa->axes.axes, pa->axes.num, m, exp);
    if (!S_expect_dim(&e, exp, n, &out->dims[pa->tgt_dim], (uint32_t)pa->tgt_dim)) return false;
  }
  for (uint32_t d = 0; d < rank; d++)
    if (!seen_dims[d] && !S_expect_dim(&e, in->dims[d].axes, in->dims[d].num_axes, &out->dims[d], d)) return false;
  return true;
}

static bool S_device_ids_equal(const shard_mesh *a, const shard_mesh *b) {
  if (a->num_device_ids != b->num_device_ids) return false;
  for (uint32_t i = 0; i < a->num_device_ids; i++)
    if (a->device_ids[i] != b->device_ids[i]) return false;
  return true;
}

static bool S_check_collective_permute(vf_ctx *cx, const shard_op *op) {
  vf_emit e = shard_verify_emit_op(cx, op, NULL);
  const shard_value *operand = S_operand(op);
  const shard_tensor_sharding *in = shard_verify_value_sharding(cx, operand), *out = S_out(op);
  const shard_mesh *m = shard_verify_sharding_mesh(cx, out), *in_mesh = shard_verify_sharding_mesh(cx, in);
  if (!in_mesh) return true; /* Shardy would dereference a null mesh here */
  if (!shard_mesh_same_axes(m, in_mesh)) {
    shard_verify_fail(&e, "result mesh has different axes than operand mesh");
    shard_verify_note(cx, S_value_span(operand, op->span), "operand mesh: %s", shard_verify_mesh_str(cx, in_mesh));
    return false;
  }
  if (!shard_verify_same_mesh_ref(in, out) && S_device_ids_equal(m, in_mesh)) {
    shard_verify_fail(&e, "result mesh name is different but same device ids as operand");
    shard_verify_note(cx, S_value_span(operand, op->span), "operand mesh: %s", shard_verify_mesh_str(cx, in_mesh));
    return false;
  }
  for (uint32_t d = 0; d < in->rank && d < out->rank; d++) {
    const shard_dim_sharding *a = &in->dims[d], *b = &out->dims[d];
    if (shard_verify_axes_equal(a->axes, a->num_axes, b->axes, b->num_axes)) continue;
    int64_t in_size = shard_verify_axes_size(cx, a->axes, a->num_axes, m),
            out_size = shard_verify_axes_size(cx, b->axes, b->num_axes, m);
    if (in_size != out_size)
      return shard_verify_fail(&e,
                               "sharded size of result doesn't match operand on dimension %u: %" PRId64 " != %" PRId64,
                               d, out_size, in_size);
  }
  return true;
}

/* TensorShardingAttr::isEquivalent(other, ignoreUnreducedAxes=true). */
static bool S_equivalent_ignoring_unreduced(const shard_tensor_sharding *a, const shard_tensor_sharding *b) {
  bool a_repl = true, b_repl = true;
  for (uint32_t d = 0; d < a->rank; d++) a_repl &= !a->dims[d].num_axes;
  for (uint32_t d = 0; d < b->rank; d++) b_repl &= !b->dims[d].num_axes;
  if (a_repl) return b_repl;
  if (!shard_verify_same_mesh_ref(a, b) || a->rank != b->rank) return false;
  for (uint32_t d = 0; d < a->rank; d++)
    if (!shard_verify_axes_equal(a->dims[d].axes, a->dims[d].num_axes, b->dims[d].axes, b->dims[d].num_axes))
      return false;
  return true;
}

static bool S_check_all_reduce(vf_ctx *cx, const shard_op *op) {
  vf_emit e = shard_verify_emit_op(cx, op, NULL);
  const shard_tensor_sharding *out = S_out(op), *in = S_operand_or_replicated(cx, op, out);
  const shard_mesh *m = shard_verify_sharding_mesh(cx, out);
  if (!S_equivalent_ignoring_unreduced(in, out))
    return shard_verify_fail(&e, "operand and result shardings are not equivalent");
  const shard_axis_list *axes = S_axis_list(op, "reduction_axes");
  shard_verify_axis_set_reset(&cx->seen);
  if (!shard_verify_check_sorted_axis_list(&e, axes->axes, axes->num, m, "reduction")) return false;
  for (uint32_t i = 0; i < axes->num; i++) {
    const shard_axis_ref *r = &axes->axes[i];
    if (S_dims_overlap(in, r) || S_any_overlap(in->replicated, in->num_replicated, r))
      return shard_verify_fail(&e, "reduction axis %s overlaps with operand dimension sharding or replicated axes",
                               shard_verify_axis_str(cx, r));
    if (S_any_overlap(out->unreduced, out->num_unreduced, r))
      return shard_verify_fail(&e, "reduction axis %s overlaps with result unreduced axes",
                               shard_verify_axis_str(cx, r));
  }
  return shard_verify_check_unreduced_transition(&e, in, out, false, SHARD_RED_SUM, true, S_reduction_op(op));
}

static bool S_check_reduce_scatter(vf_ctx *cx, const shard_op *op) {
  vf_emit e = shard_verify_emit_op(cx, op, NULL);
  const shard_tensor_sharding *out = S_out(op), *in = S_operand_or_replicated(cx, op, out);
  if (!shard_verify_check_unreduced_transition(&e, in, out, false, SHARD_RED_SUM, true, S_reduction_op(op)))
    return false;
  return S_check_per_dim(cx, op, "reduce_scatter_axes", S_SLICE, NULL);
}

bool shard_verify_check_collective_symbol_uses(vf_ctx *cx, const shard_op *op) {
  if (!S_out(op)) return true;
  if (shard_verify_op_is(op, "sdy.all_gather")) return S_check_per_dim(cx, op, "gathering_axes", S_GATHER, "gathering");
  if (shard_verify_op_is(op, "sdy.all_slice")) return S_check_per_dim(cx, op, "slicing_axes", S_SLICE, NULL);
  if (shard_verify_op_is(op, "sdy.all_to_all")) return S_check_all_to_all(cx, op);
  if (shard_verify_op_is(op, "sdy.collective_permute")) return S_check_collective_permute(cx, op);
  if (shard_verify_op_is(op, "sdy.all_reduce")) return S_check_all_reduce(cx, op);
  if (shard_verify_op_is(op, "sdy.reduce_scatter")) return S_check_reduce_scatter(cx, op);
  if (shard_verify_op_is(op, "sdy.sharded_to_unreduced")) return S_check_sharded_to_unreduced(cx, op);
  if (shard_verify_op_is(op, "sdy.replicated_to_unreduced")) return S_check_replicated_to_unreduced(cx, op);
  return true;
}
