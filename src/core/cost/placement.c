/* Placement: which devices hold which block of a sharded tensor.
 *
 * The steps:
 *   1. check that the inputs describe something drawable (static ranked
 *      tensor of the sharding's rank, known axes, sub-axes that divide their
 *      axis, a bounded number of devices and blocks);
 *   2. cut every mesh axis at the boundaries of the sub-axes the sharding
 *      names, and give each part its role (shards dim d, replicated,
 *      unreduced, or implicitly replicated);
 *   3. walk the devices in mesh order (row-major over coordinates), map each
 *      to its tile index per dimension and its partial index: a dimension's
 *      axes read as digits of a mixed-radix number, major first; a sub-axis
 *      "x":(p)s is the digit (c / (X / (p*s))) mod s of x's coordinate c;
 *   4. give every tile its index range the way XLA's SPMD partitioner does:
 *      each shard nominally holds c = ceil(d/n) elements, tile t covers
 *      [min(t*c, d), min((t+1)*c, d)), so tail shards may be short or empty.
 * The device id of mesh position i is device_ids[i] when the mesh lists
 * them (a permutation), i otherwise. */
#include <string.h>

#include "cost/placement.h"

const char *shard_axis_role_name(shard_axis_role r) {
  switch (r) {
  case SHARD_ROLE_DIM: return "dim";
  case SHARD_ROLE_REPLICATED: return "replicated";
  case SHARD_ROLE_UNREDUCED: return "unreduced";
  case SHARD_ROLE_IMPLICIT: return "implicitly replicated";
  }
  return "?";
}

/* A resolved axis ref: the mesh axis it belongs to and its part of it. */
typedef struct resolved_ref {
  uint32_t mesh_axis;
  int64_t pre, size, axis_size;
} resolved_ref;

static bool resolve(const shard_axis_ref *r, const shard_mesh *m, resolved_ref *out, shard_diag_engine *de,
                    shard_span where) {
  int i = shard_mesh_axis_index(m, r->name);
  if (i < 0) {
    shard_error(de, where, "unknown axis name \"%s\" in the mesh", r->name);
    return false;
  }
  int64_t full = m->axes[i].size;
  out->mesh_axis = (uint32_t)i;
  out->axis_size = full;
  if (!r->is_sub) {
    out->pre = 1;
    out->size = full;
    return true;
  }
  out->pre = r->pre_size;
  out->size = r->size;
  if (r->pre_size < 1 || r->size < 1 || r->pre_size > full || r->size > full || full % (r->pre_size * r->size) != 0) {
    shard_error(de, where, "sub-axis \"%s\":(%lld)%lld does not divide axis \"%s\" of size %lld", r->name,
                (long long)r->pre_size, (long long)r->size, r->name, (long long)full);
    return false;
  }
  return true;
}

/* The coordinate of a device along a resolved ref. */
static int64_t ref_coord(const resolved_ref *r, const int64_t *coords) {
  int64_t c = coords[r->mesh_axis];
  return (c / (r->axis_size / (r->pre * r->size))) % r->size;
}

typedef struct role_ref {
  resolved_ref ref;
  shard_axis_role role;
  uint32_t dim;
} role_ref;

typedef SHARD_VEC(shard_placement_axis) axis_vec;

/* Step 2: the cut of one mesh axis into parts, each with its role. */
static bool cut_axis(const shard_mesh *m, uint32_t ax, const role_ref *refs, uint32_t nrefs, axis_vec *out,
                     shard_diag_engine *de, shard_span where) {
  shard_axis_cuts cuts;
  shard_axis_cuts_init(&cuts, m->axes[ax].name, m->axes[ax].size);
  for (uint32_t i = 0; i < nrefs; i++)
    if (refs[i].ref.mesh_axis == ax) {
      shard_axis_ref r = shard_axis_sub(m->axes[ax].name, refs[i].ref.pre, refs[i].ref.size);
      shard_axis_cuts_add(&cuts, &r, 1);
    }
  uint32_t n = shard_axis_cuts_finish(&cuts);
  int64_t bad = shard_axis_cuts_misfit(&cuts);
  if (bad >= 0) {
    shard_error(de, where, "the sub-axes of \"%s\" do not fit together (%lld does not divide %lld)", m->axes[ax].name,
                (long long)cuts.at[bad], (long long)cuts.at[bad + 1]);
    shard_axis_cuts_free(&cuts);
    return false;
  }
  for (uint32_t k = 0; k < n; k++) {
    shard_placement_axis part = {0};
    part.ref = shard_axis_cuts_piece(&cuts, k);
    part.mesh_axis = ax;
    part.pre_size = cuts.at[k];
    part.size = cuts.at[k + 1] / cuts.at[k];
    part.role = SHARD_ROLE_IMPLICIT;
    for (uint32_t i = 0; i < nrefs; i++) {
      const resolved_ref *r = &refs[i].ref;
      if (r->mesh_axis == ax && r->pre <= cuts.at[k] && cuts.at[k + 1] <= r->pre * r->size) {
        part.role = refs[i].role;
        part.dim = refs[i].dim;
      }
    }
    SHARD_VEC_PUSH(*out, part);
  }
  shard_axis_cuts_free(&cuts);
  return true;
}

static int64_t ceil_div(int64_t a, int64_t b) { return a / b + (a % b != 0); }

void shard_placement_tile_range(const shard_placement *p, uint32_t d, int64_t t, int64_t *start, int64_t *end) {
  if (p->tile_start && p->tile_end) {
    *start = p->tile_start[d][t];
    *end = p->tile_end[d][t];
    return;
  }
  int64_t c = p->local[d], g = p->dims[d];
  *start = t * c < g ? t * c : g;
  *end = (t + 1) * c < g ? (t + 1) * c : g;
}

uint32_t shard_placement_block_index(const shard_placement *p, const int64_t *tile) {
  int64_t idx = 0;
  for (uint32_t d = 0; d < p->rank; d++) idx = idx * p->shards[d] + tile[d];
  return (uint32_t)idx;
}

shard_placement *shard_placement_compute(shard_arena *a, const shard_type *type, const shard_tensor_sharding *s,
                                         const shard_mesh *m, const char *mesh_name, shard_diag_engine *de,
                                         shard_span where) {
  /* Step 1: is it drawable? */
  if (!type || type->kind != SHARD_TYPE_TENSOR) {
    shard_error(de, where, "placement needs a ranked tensor type, got '%s'", type ? type->text : "nothing");
    return NULL;
  }
  for (uint32_t d = 0; d < type->rank; d++)
    if (type->dims[d] == SHARD_DYNAMIC_DIM || type->dims[d] < 0) {
      shard_error(de, where, "placement needs a static shape; dimension %u of '%s' is dynamic", d, type->text);
      return NULL;
    }
  if (s->rank != type->rank) {
    shard_error(de, where, "sharding has rank %u but the tensor type '%s' has rank %u", s->rank, type->text,
                type->rank);
    return NULL;
  }
  int64_t ndev = shard_mesh_num_devices(m);
  if (ndev < 1 || ndev > SHARD_PLACEMENT_MAX_DEVICES) {
    shard_error(de, where, "the mesh has %lld devices; placement pictures handle 1 to %d", (long long)ndev,
                SHARD_PLACEMENT_MAX_DEVICES);
    return NULL;
  }
  if (m->device_ids && (int64_t)m->num_device_ids != ndev) {
    shard_error(de, where, "the mesh lists %u device ids for %lld devices", m->num_device_ids, (long long)ndev);
    return NULL;
  }

  SHARD_VEC(role_ref) refs = {0};
  bool ok = true;
  for (uint32_t d = 0; d < s->rank && ok; d++)
    for (uint32_t k = 0; k < s->dims[d].num_axes && ok; k++) {
      role_ref r = {.role = SHARD_ROLE_DIM, .dim = d};
      ok = resolve(&s->dims[d].axes[k], m, &r.ref, de, where);
      SHARD_VEC_PUSH(refs, r);
    }
  for (uint32_t k = 0; k < s->num_replicated && ok; k++) {
    role_ref r = {.role = SHARD_ROLE_REPLICATED};
    ok = resolve(&s->replicated[k], m, &r.ref, de, where);
    SHARD_VEC_PUSH(refs, r);
  }
  for (uint32_t k = 0; k < s->num_unreduced && ok; k++) {
    role_ref r = {.role = SHARD_ROLE_UNREDUCED};
    ok = resolve(&s->unreduced[k], m, &r.ref, de, where);
    SHARD_VEC_PUSH(refs, r);
  }

  shard_placement *p = SHARD_NEW(a, shard_placement);
  p->sharding = s;
  p->mesh = m;
  p->mesh_name = mesh_name;
  p->type = type;
  p->rank = type->rank;
  p->dims = type->dims;
  p->shards = SHARD_NEW_ARRAY(a, int64_t, p->rank + 1);
  p->local = SHARD_NEW_ARRAY(a, int64_t, p->rank + 1);
  int64_t nblocks = 1;
  p->num_partials = 1;
  for (uint32_t d = 0; d < p->rank; d++) p->shards[d] = 1;
  for (uint32_t i = 0; i < refs.len && ok; i++) {
    int64_t *target = refs.items[i].role == SHARD_ROLE_DIM         ? &p->shards[refs.items[i].dim]
                      : refs.items[i].role == SHARD_ROLE_UNREDUCED ? &p->num_partials
                                                                   : NULL;
    /* Sizes are at most ndev (<= 4096): stopping once a product passes
     * ndev keeps every product far from overflow. */
    if (target) *target *= refs.items[i].ref.size;
    if (refs.items[i].role == SHARD_ROLE_DIM) nblocks *= refs.items[i].ref.size;
    if (nblocks * p->num_partials > ndev) break;
  }
  if (ok && (nblocks * p->num_partials > ndev || ndev % (nblocks * p->num_partials) != 0)) {
    shard_error(de, where, "the sharding uses more of the mesh than it has (axes named twice?)");
    ok = false;
  }
  if (ok && nblocks > SHARD_PLACEMENT_MAX_BLOCKS) {
    shard_error(de, where, "the sharding cuts the tensor into %lld blocks; pictures handle at most %d",
                (long long)nblocks, SHARD_PLACEMENT_MAX_BLOCKS);
    ok = false;
  }

  /* Step 2. */
  axis_vec parts = {0};
  for (uint32_t ax = 0; ax < m->num_axes && ok; ax++) ok = cut_axis(m, ax, refs.items, refs.len, &parts, de, where);
  if (!ok) {
    SHARD_VEC_FREE(refs);
    SHARD_VEC_FREE(parts);
    return NULL;
  }
  p->num_axes = parts.len;
  SHARD_VEC_FREEZE(a, parts, p->axes);

  /* Step 4 first, for the ranges: blocks in row-major tile order. */
  for (uint32_t d = 0; d < p->rank; d++) p->local[d] = p->dims[d] == 0 ? 0 : ceil_div(p->dims[d], p->shards[d]);
  p->num_blocks = (uint32_t)nblocks;
  p->blocks = SHARD_NEW_ARRAY(a, shard_placement_block, nblocks);
  for (uint32_t b = 0; b < p->num_blocks; b++) {
    shard_placement_block *blk = &p->blocks[b];
    blk->tile = SHARD_NEW_ARRAY(a, int64_t, p->rank + 1);
    blk->start = SHARD_NEW_ARRAY(a, int64_t, p->rank + 1);
    blk->end = SHARD_NEW_ARRAY(a, int64_t, p->rank + 1);
    int64_t rest = b;
    for (uint32_t d = p->rank; d-- > 0;) {
      blk->tile[d] = rest % p->shards[d];
      rest /= p->shards[d];
    }
    for (uint32_t d = 0; d < p->rank; d++) {
      int64_t c = p->local[d], t = blk->tile[d], g = p->dims[d];
      blk->start[d] = t * c < g ? t * c : g;
      blk->end[d] = (t + 1) * c < g ? (t + 1) * c : g;
      int64_t have = blk->end[d] - blk->start[d];
      if (have < c) blk->padded = true;
      if (have == 0) blk->empty = true;
    }
    blk->devices = SHARD_NEW_ARRAY(a, uint32_t, ndev / nblocks);
  }

  /* Step 3. */
  p->num_devices = (uint32_t)ndev;
  p->devices = SHARD_NEW_ARRAY(a, shard_placement_device, ndev);
  int64_t *tile = SHARD_NEW_ARRAY(a, int64_t, p->rank + 1);
  for (uint32_t i = 0; i < p->num_devices; i++) {
    shard_placement_device *dev = &p->devices[i];
    dev->id = m->device_ids ? m->device_ids[i] : (int64_t)i;
    dev->coords = SHARD_NEW_ARRAY(a, int64_t, m->num_axes + 1);
    int64_t rest = i;
    for (uint32_t ax = m->num_axes; ax-- > 0;) {
      dev->coords[ax] = rest % m->axes[ax].size;
      rest /= m->axes[ax].size;
    }
    for (uint32_t d = 0; d < p->rank; d++) tile[d] = 0;
    for (uint32_t k = 0; k < refs.len; k++) {
      const role_ref *r = &refs.items[k];
      int64_t c = ref_coord(&r->ref, dev->coords);
      if (r->role == SHARD_ROLE_DIM) tile[r->dim] = tile[r->dim] * r->ref.size + c;
      else if (r->role == SHARD_ROLE_UNREDUCED) dev->partial = dev->partial * r->ref.size + c;
    }
    dev->block = shard_placement_block_index(p, tile);
    shard_placement_block *blk = &p->blocks[dev->block];
    blk->devices[blk->num_devices++] = i;
  }
  p->copies = ndev / nblocks / p->num_partials;
  SHARD_VEC_FREE(refs);
  return p;
}

void shard_placement_print_ranges(shard_buf *b, const shard_placement *p, uint32_t block) {
  const shard_placement_block *blk = &p->blocks[block];
  shard_buf_putc(b, '[');
  for (uint32_t d = 0; d < p->rank; d++)
    shard_buf_printf(b, "%s%lld:%lld", d ? ", " : "", (long long)blk->start[d], (long long)blk->end[d]);
  shard_buf_putc(b, ']');
}

void shard_placement_print_coords(shard_buf *b, const shard_placement *p, uint32_t device) {
  for (uint32_t ax = 0; ax < p->mesh->num_axes; ax++)
    shard_buf_printf(b, "%s%s=%lld", ax ? ", " : "", p->mesh->axes[ax].name, (long long)p->devices[device].coords[ax]);
}

static const shard_placement_device *find_id(const shard_placement *p, int64_t id) {
  for (uint32_t i = 0; i < p->num_devices; i++)
    if (p->devices[i].id == id) return &p->devices[i];
  return NULL;
}

static void describe(shard_buf *b, const shard_placement *p, const shard_placement_device *dev) {
  shard_placement_print_ranges(b, p, dev->block);
  if (p->num_partials > 1)
    shard_buf_printf(b, " (partial %lld of %lld)", (long long)dev->partial, (long long)p->num_partials);
}

bool shard_placement_same(const shard_placement *a, const shard_placement *b, shard_buf *why) {
  if (a->rank != b->rank || memcmp(a->dims, b->dims, sizeof *a->dims * a->rank) != 0) {
    shard_buf_printf(why, "the tensors differ: %s vs %s", a->type->text, b->type->text);
    return false;
  }
  if (a->num_devices != b->num_devices) {
    shard_buf_printf(why, "the meshes have %u and %u devices", a->num_devices, b->num_devices);
    return false;
  }
  for (uint32_t i = 0; i < a->num_devices; i++) {
    const shard_placement_device *da = &a->devices[i];
    const shard_placement_device *db = find_id(b, da->id);
    if (!db) {
      shard_buf_printf(why, "device %lld is only in the first mesh", (long long)da->id);
      return false;
    }
    const shard_placement_block *ba = &a->blocks[da->block], *bb = &b->blocks[db->block];
    bool same = memcmp(ba->start, bb->start, sizeof *ba->start * a->rank) == 0 &&
                memcmp(ba->end, bb->end, sizeof *ba->end * a->rank) == 0 && a->num_partials == b->num_partials &&
                da->partial == db->partial;
    if (!same) {
      shard_buf_printf(why, "device %lld holds ", (long long)da->id);
      describe(why, a, da);
      shard_buf_puts(why, " in the first and ");
      describe(why, b, db);
      shard_buf_puts(why, " in the second");
      return false;
    }
  }
  return true;
}
