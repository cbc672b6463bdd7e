/* XLA's mesh passes of the sdy round trip:
 *
 *  -xla-sdy-round-trip-dedup-meshes  meshes with the same devices (the same
 *      device count and device ids; the empty mesh apart) are one mesh under
 *      different axis names. The main mesh of each such class is the first,
 *      or a later one with more axes of size > 1 (a mesh whose first axis
 *      name starts with '_' is a made-up one and loses to a real one). Every
 *      other mesh whose axes map onto (sub-)axes of the main mesh (major to
 *      minor, skipping size-one axes) is erased, and the shardings and
 *      manual axes that name it are rewritten onto the main mesh. Inlined
 *      meshes are left alone (XLA's DedupMeshes).
 *  -xla-sdy-round-trip-remove-size-one-axes  size-one axes leave every
 *      sharding (Shardy's remove-size-one-axes) and the manual axes of
 *      manual computations; the meshes keep them. */
#include <string.h>

#include "pass/pass.h"
#include "pass/pass_shardings.h"
#include "xla/xla.h"

typedef struct mesh_op_info {
  shard_op *op;
  const char *name;
  shard_mesh *mesh;
} mesh_op_info;

/* The most main-mesh (sub-)axes one axis of a duplicate mesh maps onto. */
#define XLA_DEDUP_MAX_REFS 8

/* One target axis mapped to (sub-)axes of the main mesh. */
typedef struct axis_map_entry {
  const char *target;
  shard_axis_ref refs[XLA_DEDUP_MAX_REFS];
  uint32_t num;
} axis_map_entry;

typedef struct dup_mesh {
  const char *name; /* the mesh that goes */
  const char *main_name; /* the mesh that stays */
  const shard_mesh *main;
  axis_map_entry *axes;
  uint32_t num_axes;
} dup_mesh;

typedef struct dedup_state {
  shard_module *m;
  SHARD_VEC(dup_mesh) dups;
} dedup_state;

static bool S_same_devices(const shard_mesh *a, const shard_mesh *b) {
  int64_t ta = a->num_axes ? shard_mesh_num_devices(a) : -1;
  int64_t tb = b->num_axes ? shard_mesh_num_devices(b) : -1;
  if (ta != tb || a->num_device_ids != b->num_device_ids) return false;
  for (uint32_t i = 0; i < a->num_device_ids; i++)
    if (a->device_ids[i] != b->device_ids[i]) return false;
  return true;
}

static bool S_has_fake_axis(const shard_mesh *m) { return m->num_axes && m->axes[0].name[0] == '_'; }

static uint32_t S_non_size_one(const shard_mesh *m) {
  uint32_t n = 0;
  for (uint32_t i = 0; i < m->num_axes; i++) n += m->axes[i].size > 1;
  return n;
}

static uint32_t S_next_axis(const shard_mesh *m, uint32_t i) {
  while (i < m->num_axes && m->axes[i].size == 1) i++;
  return i;
}

/* mapTargetAxesToMainAxes: false when some axis does not split evenly. */
static bool S_map_axes(shard_arena *a, const shard_mesh *target, const shard_mesh *main, dup_mesh *d) {
  d->axes = target->num_axes ? SHARD_NEW_ARRAY(a, axis_map_entry, target->num_axes) : NULL;
  d->num_axes = 0;
  uint32_t mi = S_next_axis(main, 0), ti = S_next_axis(target, 0);
  int64_t m_pre = 1, m_left = mi < main->num_axes ? main->axes[mi].size : 1;
  int64_t t_left = ti < target->num_axes ? target->axes[ti].size : 1;
  while (mi < main->num_axes && ti < target->num_axes) {
    int64_t take = m_left < t_left ? m_left : t_left, big = m_left < t_left ? t_left : m_left;
    if (big % take) return false;
    const char *tname = target->axes[ti].name;
    axis_map_entry *e = NULL;
    for (uint32_t k = 0; k < d->num_axes; k++)
      if (strcmp(d->axes[k].target, tname) == 0) e = &d->axes[k];
    if (!e) {
      e = &d->axes[d->num_axes++];
      e->target = tname;
      e->num = 0;
    }
    if (e->num == XLA_DEDUP_MAX_REFS) return false;
    e->refs[e->num++] = main->axes[mi].size == take ? (shard_axis_ref){.name = main->axes[mi].name}
                                                    : shard_axis_sub(main->axes[mi].name, m_pre, take);
    m_left /= take;
    if (m_left == 1) {
      mi = S_next_axis(main, mi + 1);
      m_pre = 1;
      if (mi < main->num_axes) m_left = main->axes[mi].size;
    } else {
      m_pre *= take;
    }
    t_left /= take;
    if (t_left == 1) {
      ti = S_next_axis(target, ti + 1);
      if (ti < target->num_axes) t_left = target->axes[ti].size;
    }
  }
  return mi >= main->num_axes && ti >= target->num_axes;
}

/* addAxisOrMerge: appends r, merging it into the last ref when it follows it. */
static void S_add_or_merge(shard_axis_ref *out, uint32_t *n, shard_axis_ref r, const shard_mesh *mesh) {
  if (*n && shard_axis_can_merge(&out[*n - 1], &r)) {
    out[*n - 1] = shard_axis_merge(&out[*n - 1], &r, mesh);
    return;
  }
  out[(*n)++] = r;
}

static const axis_map_entry *S_lookup(const dup_mesh *d, const char *axis) {
  for (uint32_t k = 0; k < d->num_axes; k++)
    if (strcmp(d->axes[k].target, axis) == 0) return &d->axes[k];
  return NULL;
}

/* The main-mesh refs of one old ref, appended to out (room for
 * XLA_DEDUP_MAX_REFS more). Size-one axes map to nothing. */
static void S_map_ref(const dup_mesh *d, const shard_axis_ref *old, shard_axis_ref *out, uint32_t *n) {
  const axis_map_entry *e = S_lookup(d, old->name);
  if (!e) return;
  if (!old->is_sub) {
    for (uint32_t i = 0; i < e->num; i++) S_add_or_merge(out, n, e->refs[i], d->main);
    return;
  }
  int64_t pre = old->pre_size, size = old->size;
  for (uint32_t i = 0; i < e->num; i++) {
    int64_t msize = shard_axis_size(&e->refs[i], d->main);
    if (msize <= 0) return;
    if (pre >= msize) {
      pre /= msize;
      continue;
    }
    int64_t avail = msize / pre, used = size < avail ? size : avail;
    shard_axis_ref r =
        used == msize ? e->refs[i] : shard_axis_sub(e->refs[i].name, pre * shard_axis_pre(&e->refs[i]), used);
    S_add_or_merge(out, n, r, d->main);
    pre = 1;
    size /= used;
    if (size <= 1) break;
  }
}

static uint32_t S_map_list(shard_arena *a, const dup_mesh *d, const shard_axis_ref *old, uint32_t n,
                           shard_axis_ref **out) {
  shard_axis_ref *refs = SHARD_NEW_ARRAY(a, shard_axis_ref, (size_t)n * XLA_DEDUP_MAX_REFS + 1);
  uint32_t k = 0;
  for (uint32_t i = 0; i < n; i++) S_map_ref(d, &old[i], refs, &k);
  *out = refs;
  return k;
}

static const dup_mesh *S_dup_of(const dedup_state *st, const char *name) {
  for (uint32_t i = 0; name && i < st->dups.len; i++)
    if (strcmp(st->dups.items[i].name, name) == 0) return &st->dups.items[i];
  return NULL;
}

static shard_tensor_sharding *S_dedup_sharding(shard_tensor_sharding *s, void *ctx) {
  dedup_state *st = ctx;
  if (!s->mesh_name) return s; /* inlined meshes stay */
  const dup_mesh *d = S_dup_of(st, s->mesh_name);
  if (!d) return s;
  shard_arena *a = st->m->arena;
  shard_tensor_sharding *c = shard_sharding_clone(a, s);
  c->mesh_name = d->main_name;
  c->dims = s->rank ? SHARD_NEW_ARRAY(a, shard_dim_sharding, s->rank) : NULL;
  for (uint32_t k = 0; k < s->rank; k++) {
    c->dims[k] = s->dims[k];
    c->dims[k].num_axes = S_map_list(a, d, s->dims[k].axes, s->dims[k].num_axes, &c->dims[k].axes);
  }
  c->num_replicated = S_map_list(a, d, s->replicated, s->num_replicated, &c->replicated);
  c->num_unreduced = S_map_list(a, d, s->unreduced, s->num_unreduced, &c->unreduced);
  return c;
}

/* The mesh symbol the shardings of a manual computation name, or NULL. */
static const char *S_manual_mesh(const shard_op *op) {
  static const char *const lists[] = {"in_shardings", "out_shardings"};
  for (int l = 0; l < 2; l++) {
    shard_attr *a = shard_op_attr(op, lists[l]);
    if (a && a->kind == SHARD_ATTR_SDY_PER_VALUE)
      for (uint32_t i = 0; i < a->u.per_value->num; i++)
        if (a->u.per_value->shardings[i].mesh_name) return a->u.per_value->shardings[i].mesh_name;
  }
  return NULL;
}

typedef struct manual_walk {
  dedup_state *st;
  bool ok;
  shard_diag_engine *de;
} manual_walk;

static bool S_dedup_manual_axes(shard_op *op, void *ctx) {
  manual_walk *w = ctx;
  if (strcmp(op->name, "sdy.manual_computation") != 0) return true;
  const dup_mesh *d = S_dup_of(w->st, S_manual_mesh(op));
  shard_attr *axes = shard_op_attr(op, "manual_axes");
  if (!d || !axes || axes->kind != SHARD_ATTR_SDY_MANUAL_AXES) return true;
  shard_arena *a = w->st->m->arena;
  uint32_t n = axes->u.manual_axes.num;
  shard_axis_ref *refs = SHARD_NEW_ARRAY(a, shard_axis_ref, (size_t)n * XLA_DEDUP_MAX_REFS + 1);
  uint32_t k = 0;
  for (uint32_t i = 0; i < n; i++) {
    shard_axis_ref old = {.name = axes->u.manual_axes.names[i]};
    S_map_ref(d, &old, refs, &k);
  }
  shard_attr *na = shard_attr_new(a, SHARD_ATTR_SDY_MANUAL_AXES);
  na->span = axes->span;
  na->u.manual_axes.names = k ? SHARD_NEW_ARRAY(a, const char *, k) : NULL;
  for (uint32_t i = 0; i < k; i++) {
    if (refs[i].is_sub) {
      shard_error(w->de, op->span,
                  "manual sub-axis isn't supported: manual axis '%s' of mesh '%s' "
                  "maps onto a sub-axis of mesh '%s'",
                  axes->u.manual_axes.names[0], d->name, d->main_name);
      w->ok = false;
      return false;
    }
    na->u.manual_axes.names[i] = refs[i].name;
  }
  na->u.manual_axes.num = k;
  shard_op_set_attr(a, op, "manual_axes", na, true);
  return true;
}

bool shard_pass_xla_round_trip_dedup_meshes(shard_module *m, const char *options, const shard_pass_context *cx) {
  shard_diag_engine *de = cx->de;
  (void)options;
  if (!m->top->num_regions || !m->top->regions[0].first) return true;
  shard_block *b = m->top->regions[0].first;
  SHARD_VEC(mesh_op_info) meshes = {0}, mains = {0};
  for (shard_op *op = b->first; op; op = op->next) {
    if (strcmp(op->name, "sdy.mesh") != 0) continue;
    shard_attr *name = shard_op_attr(op, "sym_name"), *mesh = shard_op_attr(op, "mesh");
    if (!name || name->kind != SHARD_ATTR_STRING || !mesh || mesh->kind != SHARD_ATTR_SDY_MESH) continue;
    mesh_op_info info = {op, name->u.str.data, mesh->u.mesh};
    SHARD_VEC_PUSH(meshes, info);
    bool found = false;
    for (uint32_t i = 0; i < mains.len && !found; i++) {
      mesh_op_info *main = &mains.items[i];
      if (!S_same_devices(main->mesh, info.mesh)) continue;
      found = true;
      bool fake = S_has_fake_axis(info.mesh), main_fake = S_has_fake_axis(main->mesh);
      if (fake && !main_fake) continue;
      if (fake == main_fake && S_non_size_one(info.mesh) <= S_non_size_one(main->mesh)) continue;
      *main = info;
    }
    if (!found) SHARD_VEC_PUSH(mains, info);
  }
  dedup_state st = {.m = m};
  for (uint32_t i = 0; i < meshes.len; i++) {
    mesh_op_info *t = &meshes.items[i];
    for (uint32_t j = 0; j < mains.len; j++) {
      mesh_op_info *main = &mains.items[j];
      if (main->op == t->op || !S_same_devices(main->mesh, t->mesh)) continue;
      dup_mesh d = {.name = t->name, .main_name = main->name, .main = main->mesh};
      if (S_map_axes(m->arena, t->mesh, main->mesh, &d)) SHARD_VEC_PUSH(st.dups, d);
      break;
    }
  }
  bool ok = true;
  if (st.dups.len) {
    /* manual axes first: they find their mesh through the shardings */
    manual_walk w = {&st, true, de};
    shard_walk(m->top, S_dedup_manual_axes, &w);
    ok = w.ok;
    shard_map_shardings(m, S_dedup_sharding, &st);
    for (uint32_t i = 0; i < meshes.len; i++)
      if (S_dup_of(&st, meshes.items[i].name)) shard_op_erase(meshes.items[i].op);
  }
  SHARD_VEC_FREE(meshes);
  SHARD_VEC_FREE(mains);
  SHARD_VEC_FREE(st.dups);
  return ok;
}

/* The mesh the in/out shardings of a manual computation are on, or NULL. */
static const shard_mesh *S_manual_mesh_of(const shard_module *m, const shard_op *op) {
  static const char *const lists[] = {"in_shardings", "out_shardings"};
  for (int l = 0; l < 2; l++) {
    shard_attr *a = shard_op_attr(op, lists[l]);
    if (a && a->kind == SHARD_ATTR_SDY_PER_VALUE)
      for (uint32_t i = 0; i < a->u.per_value->num; i++) {
        const shard_mesh *mesh = shard_module_sharding_mesh(m, &a->u.per_value->shardings[i]);
        if (mesh) return mesh;
      }
  }
  return NULL;
}

static bool S_drop_size_one_manual(shard_op *op, void *ctx) {
  shard_module *m = ctx;
  if (strcmp(op->name, "sdy.manual_computation") != 0) return true;
  shard_attr *axes = shard_op_attr(op, "manual_axes");
  const shard_mesh *mesh = S_manual_mesh_of(m, op);
  if (!axes || axes->kind != SHARD_ATTR_SDY_MANUAL_AXES || !mesh) return true;
  uint32_t n = axes->u.manual_axes.num, k = 0;
  const char **kept = n ? SHARD_NEW_ARRAY(m->arena, const char *, n) : NULL;
  for (uint32_t i = 0; i < n; i++)
    if (shard_mesh_axis_size(mesh, axes->u.manual_axes.names[i]) != 1) kept[k++] = axes->u.manual_axes.names[i];
  if (k == n) return true;
  shard_attr *na = shard_attr_new(m->arena, SHARD_ATTR_SDY_MANUAL_AXES);
  na->span = axes->span;
  na->u.manual_axes.names = kept;
  na->u.manual_axes.num = k;
  shard_op_set_attr(m->arena, op, "manual_axes", na, true);
  return true;
}

bool shard_pass_xla_round_trip_remove_size_one_axes(shard_module *m, const char *options,
                                                    const shard_pass_context *cx) {
  if (!shard_pass_remove_size_one_axes(m, options, cx)) return false;
  shard_walk(m->top, S_drop_size_one_manual, m);
  return true;
}
