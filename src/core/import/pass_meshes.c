/* Mesh housekeeping passes:
 *
 *  -sdy-lift-inlined-meshes  dedups sdy.mesh symbols, turns every inlined
 *      mesh (mesh<...> inside a sharding, #stablehlo.mesh<...> inside a
 *      collective's replica groups) into a symbol, and tags every mesh with a
 *      `stablehlo.mesh` dictionary for StableHLO consumers;
 *  -sdy-inline-meshes  the reverse: every reference is replaced by the mesh
 *      itself and the sdy.mesh ops disappear;
 *  -sdy-remove-size-one-axes  drops axes of size 1 from every sharding (the
 *      meshes keep them), since they shard nothing.
 *
 * New symbols are named as MLIR's SymbolTable::insert would: the preferred
 * name, else name_0, name_1, ... (first free). */
#include <inttypes.h>
#include <string.h>

#include "ir/attr_stablehlo_mesh.h"
#include "pass/pass.h"
#include "pass/pass_shardings.h"
#include "support/strmap.h"

/* ---- shared helpers --------------------------------------------------------- */

static shard_block *S_module_block(shard_module *m) {
  if (!m->top->num_regions || !m->top->regions[0].first) shard_region_add_block(m->arena, &m->top->regions[0]);
  return m->top->regions[0].first;
}

/* The op names this file tests, compared by definition (ir.h). */
static shard_op_name K_sdy_mesh = {"sdy.mesh", NULL};

static bool S_is_mesh_op(const shard_op *op) { return shard_op_is(op, &K_sdy_mesh); }

static const char *S_mesh_op_name(const shard_op *op) {
  shard_attr *s = shard_op_attr(op, "sym_name");
  return s && s->kind == SHARD_ATTR_STRING ? s->u.str.data : NULL;
}

static shard_mesh *S_mesh_op_mesh(const shard_op *op) {
  shard_attr *a = shard_op_attr(op, "mesh");
  return a && a->kind == SHARD_ATTR_SDY_MESH ? a->u.mesh : NULL;
}

/* The first of `base`, base_0, base_1, ... that names no symbol. */
static const char *S_unique_symbol(shard_module *m, const char *base) {
  if (!shard_module_lookup_symbol(m, base)) return shard_arena_strdup(m->arena, base);
  for (unsigned i = 0;; i++) {
    char *name = shard_arena_printf(m->arena, "%s_%u", base, i);
    if (!shard_module_lookup_symbol(m, name)) return name;
  }
}

static shard_op *S_new_mesh_op(shard_module *m, const char *name, shard_mesh *mesh) {
  shard_op *op = shard_op_new_named(m->arena, "sdy.mesh", 0, NULL, 0, NULL, 0);
  op->span = m->top->span;
  shard_op_set_attr(m->arena, op, "sym_name", shard_attr_string(m->arena, name, (uint32_t)strlen(name)), true);
  shard_attr *ma = shard_attr_new(m->arena, SHARD_ATTR_SDY_MESH);
  ma->u.mesh = mesh;
  shard_op_set_attr(m->arena, op, "mesh", ma, true);
  return op;
}

static shard_tensor_sharding *S_with_mesh(shard_arena *a, const shard_tensor_sharding *s, const char *name,
                                          shard_mesh *inline_mesh) {
  shard_tensor_sharding *c = shard_sharding_clone(a, s);
  c->mesh_name = name;
  c->inline_mesh = inline_mesh;
  return c;
}

/* Replaces an existing attribute's value, keeping its inherent flag. */
static void S_replace_attr(shard_op *op, const char *name, shard_attr *value) {
  for (uint32_t i = 0; i < op->num_attrs; i++)
    if (strcmp(op->attrs[i].name, name) == 0) op->attrs[i].value = value;
}

static const char *const S_collectives[] = {"stablehlo.all_gather",           "stablehlo.all_reduce",
                                            "stablehlo.reduce_scatter",       "stablehlo.all_to_all",
                                            "stablehlo.collective_broadcast", NULL};

/* ---- -sdy-lift-inlined-meshes ----------------------------------------------- */

/* What a mesh or a StableHLO mesh maps to. */
typedef struct lift_entry {
  const shard_mesh *mesh; /* an sdy mesh (inlined or of a kept mesh op) */
  const shard_attr *shlo_mesh; /* a #stablehlo.mesh<...> */
  const char *new_name;
} lift_entry;

typedef struct lift_state {
  shard_module *m;
  SHARD_VEC(lift_entry) map; /* meshes and StableHLO meshes */
  shard_strmap deduped; /* a deduped mesh symbol -> the name it moves to */
  shard_op *insert_after; /* last mesh op; NULL: insert at the module start */
} lift_state;

static const char *S_lift_lookup(lift_state *st, const shard_mesh *mesh, const char *symbol,
                                 const shard_attr *shlo_mesh) {
  /* every sharding naming a mesh asks: a table, not a scan of the map */
  if (symbol) return shard_strmap_get_cstr(&st->deduped, symbol);
  for (uint32_t i = 0; i < st->map.len; i++) {
    lift_entry *e = &st->map.items[i];
    if (mesh && e->mesh && shard_mesh_equal(mesh, e->mesh)) return e->new_name;
    if (shlo_mesh && e->shlo_mesh && shard_attr_equal(shlo_mesh, e->shlo_mesh)) return e->new_name;
  }
  return NULL;
}

static const char *S_lift_insert(lift_state *st, const char *base, shard_mesh *mesh) {
  const char *name = S_unique_symbol(st->m, base);
  shard_op *op = S_new_mesh_op(st->m, name, mesh);
  shard_block *b = S_module_block(st->m);
  if (st->insert_after) shard_op_insert_after(st->insert_after, op);
  else if (b->first) shard_op_insert_before(b->first, op);
  else shard_block_append(b, op);
  st->insert_after = op;
  return name;
}

/* Written into *out (shard_rewrite_shardings): a sharding of a per-value
 * list moving to its deduped mesh is made once, in the new list. */
static bool S_lift_sharding(const shard_tensor_sharding *s, shard_tensor_sharding *out, void *ctx) {
  lift_state *st = ctx;
  const char *to = NULL;
  if (s->mesh_name) {
    to = S_lift_lookup(st, NULL, s->mesh_name, NULL);
    if (!to) return false;
    *out = *s;
    out->mesh_name = to;
    out->inline_mesh = NULL;
    return true;
  }
  if (!s->inline_mesh) return false;
  to = S_lift_lookup(st, s->inline_mesh, NULL, NULL);
  if (!to) {
    const shard_mesh *mesh = s->inline_mesh;
    const char *base = "mesh";
    if (shard_mesh_is_maximal(mesh))
      base = shard_arena_printf(st->m->arena, "maximal_mesh_%" PRId64, mesh->device_ids[0]);
    else if (shard_mesh_is_empty(mesh)) base = "empty_mesh";
    to = S_lift_insert(st, base, s->inline_mesh);
    SHARD_VEC_PUSH(st->map, ((lift_entry){.mesh = mesh, .new_name = to}));
  }
  *out = *s;
  out->mesh_name = to;
  out->inline_mesh = NULL;
  return true;
}

/* The sdy mesh of a #stablehlo.mesh: its axes (device ids are ignored, as
 * Shardy does). */
static shard_mesh *S_sdy_mesh_of(shard_arena *a, const shard_shlo_mesh *m) {
  shard_mesh *mesh = SHARD_NEW(a, shard_mesh);
  mesh->num_axes = m->num_axes;
  mesh->axes = m->num_axes ? shard_arena_dup(a, m->axes, sizeof *m->axes * m->num_axes) : NULL;
  return mesh;
}

/* A collective's #stablehlo.replica_group_mesh_axes with its mesh replaced. */
static void S_set_group_mesh(shard_arena *a, shard_op *op, const shard_attr *rg, shard_attr *mesh) {
  const shard_shlo_mesh_axes *g = shard_attr_mesh_axes(rg);
  shard_attr *n = shard_attr_mesh_axes_new(a, mesh, g->axes, g->num_axes);
  n->span = rg->span;
  S_replace_attr(op, "replica_groups", n);
}

static void S_lift_replica_groups(lift_state *st, shard_op *op) {
  shard_attr *rg = shard_op_attr(op, "replica_groups");
  const shard_shlo_mesh_axes *g = shard_attr_mesh_axes(rg);
  if (!g) return;
  const char *sym = shard_shlo_mesh_axes_symbol(g);
  const shard_shlo_mesh *inline_mesh = shard_attr_shlo_mesh(g->mesh);
  const char *to = NULL;
  if (sym) {
    to = S_lift_lookup(st, NULL, sym, NULL);
  } else if (inline_mesh) {
    to = S_lift_lookup(st, NULL, NULL, g->mesh);
    if (!to) {
      to = S_lift_insert(st, "mesh", S_sdy_mesh_of(st->m->arena, inline_mesh));
      SHARD_VEC_PUSH(st->map, ((lift_entry){.shlo_mesh = g->mesh, .new_name = to}));
    }
  }
  if (to) S_set_group_mesh(st->m->arena, op, rg, shard_attr_symbol_ref(st->m->arena, to));
}

enum { NUM_COLLECTIVES = sizeof S_collectives / sizeof *S_collectives - 1 };

/* The collectives of the module by kind (S_collectives order), each in
 * pre-order: one walk instead of one per kind. */
typedef struct lift_walk {
  SHARD_VEC(shard_op *) ops[NUM_COLLECTIVES];
} lift_walk;

/* S_collectives by definition (ir.h), tested against every op. */
static shard_op_name K_collectives[NUM_COLLECTIVES] = {{"stablehlo.all_gather", NULL},
                                                       {"stablehlo.all_reduce", NULL},
                                                       {"stablehlo.reduce_scatter", NULL},
                                                       {"stablehlo.all_to_all", NULL},
                                                       {"stablehlo.collective_broadcast", NULL}};

static bool S_lift_walk_op(shard_op *op, void *ctx) {
  lift_walk *w = ctx;
  for (int k = 0; k < NUM_COLLECTIVES; k++)
    if (shard_op_is(op, &K_collectives[k])) {
      SHARD_VEC_PUSH(w->ops[k], op);
      break;
    }
  return true;
}

/* dense<[...]> : tensor<Nxi64> of a mesh's explicit device ids. */
static shard_attr *S_device_ids_attr(shard_arena *a, const shard_mesh *mesh) {
  shard_buf b = {0};
  shard_buf_putc(&b, '[');
  for (uint32_t i = 0; i < mesh->num_device_ids; i++)
    shard_buf_printf(&b, "%s%" PRId64, i ? ", " : "", mesh->device_ids[i]);
  shard_buf_putc(&b, ']');
  shard_attr *ids = shard_attr_new(a, SHARD_ATTR_DENSE);
  ids->u.dense.payload = shard_arena_strndup(a, b.data, b.len);
  int64_t n = mesh->num_device_ids;
  ids->u.dense.type = shard_type_tensor(a, 1, &n, "i64", NULL);
  shard_attr_dense_set_ints(a, ids);
  shard_buf_free(&b);
  return ids;
}

/* {axes = [{name = "x", size = 2 : i64}, ...], device_ids = dense<...> : tensor<Nxi64>} */
static shard_attr *S_shlo_mesh_dict(shard_arena *a, const shard_mesh *mesh) {
  shard_type *i64 = shard_type_other(a, "i64");
  shard_attr *axes = shard_attr_new(a, SHARD_ATTR_ARRAY);
  axes->u.array.num = mesh->num_axes;
  axes->u.array.elems = SHARD_NEW_ARRAY(a, shard_attr *, mesh->num_axes);
  for (uint32_t i = 0; i < mesh->num_axes; i++) {
    shard_attr *d = NULL;
    d = shard_dict_with(a, d, "name", shard_attr_string(a, mesh->axes[i].name, (uint32_t)strlen(mesh->axes[i].name)));
    d = shard_dict_with(a, d, "size", shard_attr_int(a, mesh->axes[i].size, i64));
    axes->u.array.elems[i] = d;
  }
  shard_attr *dict = shard_dict_with(a, NULL, "axes", axes);
  if (mesh->num_device_ids) dict = shard_dict_with(a, dict, "device_ids", S_device_ids_attr(a, mesh));
  return dict;
}

bool shard_pass_lift_inlined_meshes(shard_module *m, const char *options, const shard_pass_context *cx) {
  lift_state st = {.m = m};
  shard_block *b = S_module_block(m);
  for (shard_op *op = b->first, *next; op; op = next) {
    next = op->next;
    if (!S_is_mesh_op(op)) continue;
    const shard_mesh *mesh = S_mesh_op_mesh(op);
    const char *name = S_mesh_op_name(op);
    if (!mesh || !name) continue;
    const char *same = S_lift_lookup(&st, mesh, NULL, NULL);
    if (same) {
      /* a duplicate: references to it move to the first identical mesh */
      shard_strmap_put_cstr(&st.deduped, name, (void *)same);
      shard_op_erase(op);
    } else {
      SHARD_VEC_PUSH(st.map, ((lift_entry){.mesh = mesh, .new_name = name}));
      st.insert_after = op;
    }
  }
  shard_rewrite_shardings(m, S_lift_sharding, &st);
  /* Kind by kind, as Shardy walks once per collective kind: the order
   * decides the names of the lifted meshes. */
  lift_walk w = {0};
  shard_walk(m->top, S_lift_walk_op, &w);
  for (int k = 0; k < NUM_COLLECTIVES; k++) {
    for (uint32_t i = 0; i < w.ops[k].len; i++) S_lift_replica_groups(&st, w.ops[k].items[i]);
    SHARD_VEC_FREE(w.ops[k]);
  }
  for (shard_op *op = b->first; op; op = op->next) {
    if (!S_is_mesh_op(op) || shard_op_attr(op, "stablehlo.mesh")) continue;
    const shard_mesh *mesh = S_mesh_op_mesh(op);
    if (mesh) shard_op_set_attr(m->arena, op, "stablehlo.mesh", S_shlo_mesh_dict(m->arena, mesh), false);
  }
  SHARD_VEC_FREE(st.map);
  shard_strmap_release(&st.deduped);
  return true;
}

/* ---- -sdy-inline-meshes --------------------------------------------------------- */

static shard_tensor_sharding *S_inline_sharding(shard_tensor_sharding *s, void *ctx) {
  shard_module *m = ctx;
  if (!s->mesh_name) return s;
  shard_op *op = shard_module_lookup_symbol(m, s->mesh_name);
  shard_mesh *mesh = op && S_is_mesh_op(op) ? S_mesh_op_mesh(op) : NULL;
  return mesh ? S_with_mesh(m->arena, s, NULL, mesh) : s;
}

/* The #stablehlo.mesh of an sdy mesh (with its explicit device ids). */
static shard_attr *S_shlo_mesh_of(shard_arena *a, const shard_mesh *mesh) {
  return shard_attr_shlo_mesh_new(a, mesh->axes, mesh->num_axes,
                                  mesh->num_device_ids ? S_device_ids_attr(a, mesh) : NULL);
}

static bool S_inline_replica_groups(shard_op *op, void *ctx) {
  shard_module *m = ctx;
  shard_attr *rg = shard_op_attr(op, "replica_groups");
  const char *sym = shard_shlo_mesh_axes_symbol(shard_attr_mesh_axes(rg));
  if (!sym) return true;
  shard_op *mop = shard_module_lookup_symbol(m, sym);
  shard_mesh *mesh = mop && S_is_mesh_op(mop) ? S_mesh_op_mesh(mop) : NULL;
  if (mesh) S_set_group_mesh(m->arena, op, rg, S_shlo_mesh_of(m->arena, mesh));
  return true;
}

bool shard_pass_inline_meshes(shard_module *m, const char *options, const shard_pass_context *cx) {
  shard_map_shardings(m, S_inline_sharding, m);
  shard_walk(m->top, S_inline_replica_groups, m);
  shard_block *b = S_module_block(m);
  for (shard_op *op = b->first, *next; op; op = next) {
    next = op->next;
    if (S_is_mesh_op(op)) shard_op_erase(op);
  }
  return true;
}

/* ---- -sdy-remove-size-one-axes ----------------------------------------------- */

/* Copies the refs of `axes` whose size is not 1; returns the new count. */
static uint32_t S_drop_size_one(shard_arena *a, const shard_mesh *mesh, const shard_axis_ref *axes, uint32_t n,
                                shard_axis_ref **out) {
  shard_axis_ref *kept = n ? SHARD_NEW_ARRAY(a, shard_axis_ref, n) : NULL;
  uint32_t k = 0;
  for (uint32_t i = 0; i < n; i++)
    if (shard_axis_size(&axes[i], mesh) != 1) kept[k++] = axes[i];
  *out = kept;
  return k;
}

static shard_tensor_sharding *S_remove_size_one(shard_tensor_sharding *s, void *ctx) {
  shard_module *m = ctx;
  const shard_mesh *mesh = shard_module_sharding_mesh(m, s);
  if (!mesh) return s;
  shard_arena *a = m->arena;
  shard_tensor_sharding *c = shard_sharding_clone(a, s);
  bool changed = false;
  c->dims = s->rank ? SHARD_NEW_ARRAY(a, shard_dim_sharding, s->rank) : NULL;
  for (uint32_t d = 0; d < s->rank; d++) {
    c->dims[d] = s->dims[d];
    c->dims[d].num_axes = S_drop_size_one(a, mesh, s->dims[d].axes, s->dims[d].num_axes, &c->dims[d].axes);
    if (c->dims[d].num_axes != s->dims[d].num_axes) {
      changed = true;
      /* a closed empty dim cannot carry a priority (the verifier rejects it) */
      if (!c->dims[d].num_axes && !c->dims[d].is_open) c->dims[d].priority = SHARD_NO_PRIORITY;
    }
  }
  c->num_replicated = S_drop_size_one(a, mesh, s->replicated, s->num_replicated, &c->replicated);
  c->num_unreduced = S_drop_size_one(a, mesh, s->unreduced, s->num_unreduced, &c->unreduced);
  if (c->num_replicated != s->num_replicated || c->num_unreduced != s->num_unreduced) changed = true;
  return changed ? c : s;
}

bool shard_pass_remove_size_one_axes(shard_module *m, const char *options, const shard_pass_context *cx) {
  bool any = false;
  for (shard_op *op = S_module_block(m)->first; op; op = op->next) {
    shard_mesh *mesh = S_is_mesh_op(op) ? S_mesh_op_mesh(op) : NULL;
    for (uint32_t i = 0; mesh && i < mesh->num_axes; i++)
      if (mesh->axes[i].size == 1) any = true;
  }
  if (any) shard_map_shardings(m, S_remove_size_one, m);
  return true;
}
