/* The device groups of a collective, on its mesh.
 *
 * A collective over axes A runs once per group of devices that differ only
 * in their coordinates along A (cost.h). Positions are row-major over the
 * mesh axes; a sub-axis "x":(pre)size contributes the coordinate
 * (x / pre) % size. Groups are numbered by their first position, and the
 * members of a group are ordered by their coordinates along A, major axis
 * first, which is the ring order the cost model assumes.
 *
 * A collective_permute moves whole shards between devices: the device that
 * holds a block after the permute receives it from a device that held it
 * before (itself when it already did). Both placements come from
 * placement.c, matched by device id, since the two shardings may sit on
 * meshes with different device orders. */
#include <string.h>

#include "cost/comm_groups.h"
#include "pass/pass_shardings.h"
#include "cost/placement.h"

const char *shard_comm_direction_name(shard_comm_direction d) {
  switch (d) {
  case SHARD_COMM_RING: return "ring";
  case SHARD_COMM_ALL_TO_ALL: return "all-to-all";
  case SHARD_COMM_PERMUTE: return "permute";
  case SHARD_COMM_LOCAL: return "local";
  }
  return "?";
}

static const shard_tensor_sharding *out_sharding(const shard_op *op) {
  const shard_attr *a = shard_op_attr(op, "out_sharding");
  return a && a->kind == SHARD_ATTR_SDY_SHARDING ? a->u.sharding : NULL;
}

/* The same test shard_comm_plan_module applies before it adds a row. */
static bool costable(const shard_module *m, const shard_op *op) {
  shard_collective_kind kind;
  if (!shard_collective_kind_from_op(op->name, &kind) || op->num_operands < 1 || op->num_results < 1) return false;
  const shard_type *type = op->operands[0].value->type;
  const shard_tensor_sharding *out = out_sharding(op);
  const shard_mesh *mesh = out ? shard_module_sharding_mesh(m, out) : NULL;
  return type && type->kind == SHARD_TYPE_TENSOR && shard_type_is_static_tensor(type) && mesh &&
         shard_elem_bits(type->elem);
}

typedef struct row_walk {
  const shard_module *m;
  SHARD_VEC(const shard_op *) ops;
} row_walk;

static bool collect(shard_op *op, void *ctx) {
  row_walk *w = ctx;
  if (costable(w->m, op)) SHARD_VEC_PUSH(w->ops, op);
  return true;
}

bool shard_comm_plan_row_ops(shard_arena *a, const shard_comm_plan *p, const shard_module *m, const shard_op ***ops) {
  row_walk w = {m, {0}};
  shard_walk(m->top, collect, &w);
  bool ok = w.ops.len == p->num_rows;
  for (uint32_t i = 0; ok && i < w.ops.len; i++) {
    shard_collective_kind k;
    ok = shard_collective_kind_from_op(w.ops.items[i]->name, &k) && k == p->rows[i].kind;
  }
  if (!ok) {
    SHARD_VEC_FREE(w.ops);
    *ops = NULL;
    return false;
  }
  SHARD_VEC_FREEZE(a, w.ops, *ops);
  return true;
}

/* Row-major coordinates of `pos` on the mesh. */
static void coords_of(const shard_mesh *mesh, uint32_t pos, int64_t *coords) {
  for (uint32_t i = mesh->num_axes; i-- > 0;) {
    coords[i] = pos % mesh->axes[i].size;
    pos /= (uint32_t)mesh->axes[i].size;
  }
}

static void ring_groups(shard_arena *a, shard_comm_groups *g, const shard_axis_ref *axes, uint32_t num_axes) {
  const shard_mesh *mesh = g->mesh;
  uint32_t n = g->num_devices;
  int64_t *coords = SHARD_NEW_ARRAY(a, int64_t, mesh->num_axes + 1);
  uint32_t *base_group = SHARD_NEW_ARRAY(a, uint32_t, n);
  for (uint32_t p = 0; p < n; p++) base_group[p] = UINT32_MAX;
  g->num_groups = 0;
  g->group_size = 1;
  for (uint32_t p = 0; p < n; p++) {
    coords_of(mesh, p, coords);
    uint32_t member = 0;
    uint32_t size = 1;
    /* Zero the coordinates along the collective's axes: what is left names the group. */
    for (uint32_t k = 0; k < num_axes; k++) {
      int i = shard_mesh_axis_index(mesh, axes[k].name);
      if (i < 0) continue;
      int64_t pre, sz;
      shard_axis_range(&axes[k], mesh, &pre, &sz);
      if (pre < 1 || sz < 1) continue;
      int64_t sub = (coords[i] / pre) % sz;
      coords[i] -= sub * pre;
      member = member * (uint32_t)sz + (uint32_t)sub;
      size *= (uint32_t)sz;
    }
    uint32_t base = 0;
    for (uint32_t i = 0; i < mesh->num_axes; i++) base = base * (uint32_t)mesh->axes[i].size + (uint32_t)coords[i];
    if (base_group[base] == UINT32_MAX) base_group[base] = g->num_groups++;
    g->group[p] = base_group[base];
    g->member[p] = member;
    g->group_size = size;
  }
  if (g->direction != SHARD_COMM_RING || g->group_size < 2) return;
  /* member -> position per group, then k -> k+1 around each ring. */
  uint32_t *at = SHARD_NEW_ARRAY(a, uint32_t, (size_t)g->num_groups * g->group_size);
  for (uint32_t p = 0; p < n; p++) at[(size_t)g->group[p] * g->group_size + g->member[p]] = p;
  g->num_transfers = g->num_groups * g->group_size;
  g->transfers = SHARD_NEW_ARRAY(a, shard_comm_transfer, g->num_transfers);
  for (uint32_t k = 0; k < g->num_groups; k++)
    for (uint32_t j = 0; j < g->group_size; j++) {
      shard_comm_transfer t = {at[(size_t)k * g->group_size + j],
                               at[(size_t)k * g->group_size + (j + 1) % g->group_size]};
      g->transfers[(size_t)k * g->group_size + j] = t;
    }
}

static const shard_tensor_sharding *operand_sharding(const shard_value *v) {
  if (v->def) {
    const shard_tensor_sharding *s = out_sharding(v->def);
    if (s) return s;
  }
  return shard_value_sharding(v);
}

/* Which device each block comes from. Quietly gives no transfers when a
 * placement cannot be computed (the verifier has already checked the op). */
static void permute_transfers(shard_arena *a, shard_comm_groups *g, const shard_module *m, const shard_op *op) {
  shard_diag_engine quiet;
  shard_diag_init(&quiet, NULL, NULL);
  const shard_value *in_v = op->operands[0].value;
  const shard_tensor_sharding *in = operand_sharding(in_v);
  const shard_tensor_sharding *out = out_sharding(op);
  const shard_mesh *in_mesh = in ? shard_module_sharding_mesh(m, in) : g->mesh;
  if (!in_mesh) return;
  shard_placement *before =
      in ? shard_placement_compute(a, in_v->type, in, in_mesh, in->mesh_name, &quiet, op->span) : NULL;
  shard_placement *after = shard_placement_compute(a, in_v->type, out, g->mesh, out->mesh_name, &quiet, op->span);
  if (!before || !after || before->num_devices != after->num_devices) return;
  uint32_t n = after->num_devices;
  g->transfers = SHARD_NEW_ARRAY(a, shard_comm_transfer, n);
  for (uint32_t p = 0; p < n; p++) {
    const shard_placement_device *d = &after->devices[p];
    const shard_placement_block *want = &after->blocks[d->block];
    int64_t from_id = -1;
    for (uint32_t q = 0; q < before->num_devices; q++) {
      const shard_placement_device *e = &before->devices[q];
      const shard_placement_block *have = &before->blocks[e->block];
      bool same = e->partial == d->partial;
      for (uint32_t k = 0; same && k < after->rank; k++)
        same = have->start[k] == want->start[k] && have->end[k] == want->end[k];
      if (!same) continue;
      if (e->id == d->id) {
        from_id = -1; /* already there */
        break;
      }
      if (from_id < 0) from_id = e->id;
    }
    if (from_id < 0) continue;
    /* Positions on the drawn (output) mesh. */
    uint32_t from = UINT32_MAX;
    for (uint32_t q = 0; q < n; q++)
      if (g->device_ids[q] == from_id) from = q;
    if (from != UINT32_MAX) {
      shard_comm_transfer t = {from, p};
      g->transfers[g->num_transfers++] = t;
    }
  }
}

shard_comm_groups *shard_comm_groups_compute(shard_arena *a, const shard_module *m, const shard_op *op,
                                             const shard_comm_row *row) {
  const shard_tensor_sharding *out = out_sharding(op);
  const shard_mesh *mesh = out ? shard_module_sharding_mesh(m, out) : NULL;
  if (!mesh) return NULL;
  int64_t total = shard_mesh_num_devices(mesh);
  if (total < 1 || total > SHARD_PLACEMENT_MAX_DEVICES) return NULL;
  shard_comm_groups *g = SHARD_NEW(a, shard_comm_groups);
  memset(g, 0, sizeof *g);
  g->row = row;
  g->op = op;
  g->mesh = mesh;
  g->mesh_name = out->mesh_name;
  g->num_devices = (uint32_t)total;
  g->device_ids = SHARD_NEW_ARRAY(a, int64_t, total);
  g->group = SHARD_NEW_ARRAY(a, uint32_t, total);
  g->member = SHARD_NEW_ARRAY(a, uint32_t, total);
  for (uint32_t p = 0; p < g->num_devices; p++)
    g->device_ids[p] = mesh->device_ids && p < mesh->num_device_ids ? mesh->device_ids[p] : p;
  switch (row->kind) {
  case SHARD_COLL_ALL_TO_ALL: g->direction = SHARD_COMM_ALL_TO_ALL; break;
  case SHARD_COLL_ALL_SLICE: g->direction = SHARD_COMM_LOCAL; break;
  case SHARD_COLL_COLLECTIVE_PERMUTE: g->direction = SHARD_COMM_PERMUTE; break;
  default: g->direction = SHARD_COMM_RING;
  }
  ring_groups(a, g, row->axes, row->num_axes);
  if (g->direction == SHARD_COMM_PERMUTE) permute_transfers(a, g, m, op);
  return g;
}
