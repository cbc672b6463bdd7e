/* sdy.manual_computation in a global program: what a JAX shard_map means
 * when the whole program runs on one device.
 *
 * The body is written per device: its block arguments have the local shapes
 * of the operands split over the manual axes, and the collectives in it
 * (stablehlo.all_reduce as a psum, ...) exchange between the devices. So the
 * interpreter cuts every operand into pieces by its in_sharding over the
 * manual axes, runs the body once per device of the mesh (partition id =
 * device id, in a world of its own, with the collectives of interp_collectives.c)
 * and puts the devices' results back together by the out_shardings. Axes that
 * are not manual stay global inside the body: devices that differ only in
 * such axes get the same pieces and must give the same results, which is
 * checked. */
#include <stdio.h>
#include <string.h>

#include "interp/interp_internal.h"

int64_t shard_interp_piece_index(int64_t device, const shard_mesh *mesh, const shard_axis_ref *axes,
                                 uint32_t num_axes) {
  return shard_mesh_shard_index(mesh, device, axes, num_axes);
}

/* Where device k's piece of a value starts, per dim, counting only the
 * manual axes of each dim (they come first in a dim's axes). */
static void S_origin(int64_t k, const shard_mesh *mesh, const shard_tensor_sharding *s, const shard_attr *manual,
                     const shard_type *local, int64_t *origin) {
  for (uint32_t d = 0; d < local->rank; d++) {
    origin[d] = 0;
    if (!s || d >= s->rank) continue;
    uint32_t n = shard_dim_manual_prefix(&s->dims[d], manual->u.manual_axes.names, manual->u.manual_axes.num);
    if (n) origin[d] = shard_interp_piece_index(k, mesh, s->dims[d].axes, n) * local->dims[d];
  }
}

static const shard_sharding_per_value *S_per_value(const shard_op *op, const char *name) {
  const shard_attr *a = shard_op_attr(op, name);
  return a && a->kind == SHARD_ATTR_SDY_PER_VALUE ? a->u.per_value : NULL;
}

bool shard_interp_exec_manual(interp_proc *p, interp_frame *f, shard_op *op) {
  const shard_sharding_per_value *in = S_per_value(op, "in_shardings"), *out = S_per_value(op, "out_shardings");
  const shard_attr *manual = shard_op_attr(op, "manual_axes");
  shard_block *body = op->num_regions ? op->regions[0].first : NULL;
  if (!in || !out || !manual || manual->kind != SHARD_ATTR_SDY_MANUAL_AXES || !body)
    return shard_interp_error(p, op,
                              "sdy.manual_computation needs in_shardings, out_shardings, manual_axes and a body");
  if (in->num != op->num_operands || out->num != op->num_results || body->num_args != op->num_operands)
    return shard_interp_error(p, op,
                              "sdy.manual_computation: shardings, operands, results and body arguments do not match");
  if (p->world->num_procs > 1)
    return shard_interp_error(p, op,
                              "the interpreter runs sdy.manual_computation only in a global (one-device) program");
  const shard_tensor_sharding *first = in->num ? &in->shardings[0] : out->num ? &out->shardings[0] : NULL;
  const shard_mesh *mesh = first ? shard_module_sharding_mesh(p->world->module, first) : NULL;
  if (!mesh) return shard_interp_error(p, op, "sdy.manual_computation: the mesh of its shardings is unknown");
  int64_t n = shard_mesh_num_devices(mesh);
  if (n < 1 || n > 4096)
    return shard_interp_error(p, op, "sdy.manual_computation: a mesh of %lld devices", (long long)n);

  /* every device's pieces of the operands */
  shard_tensor ***args = SHARD_NEW_ARRAY(p->arena, shard_tensor **, (size_t)n);
  shard_tensor ***res = SHARD_NEW_ARRAY(p->arena, shard_tensor **, (size_t)n);
  shard_type **res_types = SHARD_NEW_ARRAY(p->arena, shard_type *, op->num_results + 1);
  for (uint32_t r = 0; r < op->num_results; r++) {
    shard_op *ret = body->last;
    if (!ret || ret->num_operands != op->num_results)
      return shard_interp_error(p, op, "sdy.manual_computation: the body does not return %u values", op->num_results);
    res_types[r] = ret->operands[r].value->type;
  }
  for (int64_t k = 0; k < n; k++) {
    args[k] = SHARD_NEW_ARRAY(p->arena, shard_tensor *, op->num_operands + 1);
    res[k] = SHARD_NEW_ARRAY(p->arena, shard_tensor *, op->num_results + 1);
  }
  for (uint32_t i = 0; i < op->num_operands; i++) {
    shard_tensor *g = shard_interp_lookup(f, op->operands[i].value);
    if (!g) return shard_interp_error(p, op, "operand #%u has no value", i);
    shard_type *local = body->args[i].type;
    if (!local || local->kind != SHARD_TYPE_TENSOR || local->rank != g->type->rank)
      return shard_interp_error(p, op, "body argument #%u is not a piece of operand #%u", i, i);
    for (int64_t k = 0; k < n; k++) {
      int64_t *origin = INTERP_ARRAY(p, int64_t, local->rank);
      S_origin(k, mesh, &in->shardings[i], manual, local, origin);
      for (uint32_t d = 0; d < local->rank; d++)
        if (origin[d] + local->dims[d] > g->type->dims[d])
          return shard_interp_error(p, op, "operand #%u: device %lld's piece runs past dim %u", i, (long long)k, d);
      shard_tensor *piece = shard_interp_extract(p, g, origin, local->dims);
      if (!piece) return false;
      piece->type = local;
      piece->bound = g->bound;
      args[k][i] = piece;
    }
  }
  if (!shard_interp_run_devices(p, op, n, &op->regions[0], args, op->num_operands, res, op->num_results, res_types))
    return false;

  /* the devices' results back into global values */
  for (uint32_t r = 0; r < op->num_results; r++) {
    shard_tensor *g = shard_interp_tensor_like(p, op->results[r].type, op);
    if (!g) return false;
    bool *written = SHARD_NEW_ARRAY(p->arena, bool, (size_t)g->num + 1);
    int64_t *gs = INTERP_RANK_ARRAY(p, op, int64_t);
    shard_interp_strides(g->type->rank, g->type->dims, gs);
    for (int64_t k = 0; k < n; k++) {
      const shard_tensor *l = res[k][r];
      int64_t *origin = INTERP_ARRAY(p, int64_t, l->type->rank), *idx = INTERP_ARRAY(p, int64_t, l->type->rank);
      S_origin(k, mesh, &out->shardings[r], manual, l->type, origin);
      if (l->type->rank != g->type->rank)
        return shard_interp_error(p, op, "result #%u of the body has rank %u, the op's %u", r, l->type->rank,
                                  g->type->rank);
      if (l->bound > g->bound) g->bound = l->bound;
      for (int64_t e = 0; e < l->num; e++, shard_interp_next_index(l->type->rank, l->type->dims, idx)) {
        int64_t gi = 0;
        bool inside = true;
        for (uint32_t d = 0; d < l->type->rank; d++) {
          inside &= idx[d] + origin[d] < g->type->dims[d];
          gi += (idx[d] + origin[d]) * gs[d];
        }
        if (!inside)
          return shard_interp_error(p, op, "result #%u: device %lld's piece runs past the result", r, (long long)k);
        if (written[gi]) {
          bool same =
              g->kind == SHARD_ELEM_COMPLEX
                  ? g->floats[2 * gi] == l->floats[2 * e] && g->floats[2 * gi + 1] == l->floats[2 * e + 1]
              : g->kind == SHARD_ELEM_FLOAT
                  ? g->floats[gi] == l->floats[e] || (g->floats[gi] != g->floats[gi] && l->floats[e] != l->floats[e])
                  : g->ints[gi] == l->ints[e];
          if (!same)
            return shard_interp_error(p, op,
                                      "result #%u: device %lld disagrees with another device holding the same piece "
                                      "(element %lld of its result)",
                                      r, (long long)k, (long long)e);
          continue;
        }
        written[gi] = true;
        interp_copy_elem(g, gi, l, e);
      }
    }
    for (int64_t gi = 0; gi < g->num; gi++)
      if (!written[gi])
        return shard_interp_error(p, op, "result #%u: element %lld is in no device's piece", r, (long long)gi);
    shard_interp_bind(f, &op->results[r], g);
  }
  return true;
}
