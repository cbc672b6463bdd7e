/* -sdy-import-pipeline: the import passes Shardy runs before propagation, in
 * Shardy's order (import_pipeline.cc): symbol DCE, lift inlined meshes,
 * remove size-one axes, func-to-call shardings, constant splitting, symbol
 * DCE again (the splitter leaves callees it copied unused), manual axes
 * cleanup and data-flow edges; with dedup-functions-fully=true also
 * sharding-constraint application and sharding-group import, which must
 * come after the edges exist. Explicit gather/scatter batching is off in
 * this pipeline, as in Shardy's registered one.
 *
 * Also -symbol-dce, MLIR's pass: private symbols of the module that no live
 * op refers to are erased; public symbols and non-symbol ops are live, and
 * whatever a live op (or an op nested in it) names is live in turn. */
#include <stdlib.h>
#include <string.h>

#include "ir/call_graph.h"
#include "ir/clone.h"
#include "pass/pass.h"
#include "support/ptrmap.h"

/* ---- -symbol-dce ----------------------------------------------------------- */

typedef SHARD_VEC(shard_op *) op_vec;

typedef struct dce_state {
  const shard_module *m;
  shard_ptrmap live;
  op_vec worklist;
  /* the private symbols of the module and how many are live so far: when
   * all are, nothing will be erased and the marking stops */
  uint32_t num_private, live_private;
} dce_state;

static bool S_is_private(const shard_op *op);

static void S_mark_live(dce_state *st, shard_op *op) {
  if (!shard_ptrmap_add(&st->live, op)) return;
  if (shard_symbol_name(op) && S_is_private(op)) st->live_private++;
  SHARD_VEC_PUSH(st->worklist, op);
}

static bool S_all_live(const dce_state *st) { return st->live_private == st->num_private; }

/* Marks the module-level symbols that `a` names (at any depth of arrays and
 * dictionaries) live. */
static void S_mark_refs(dce_state *st, const shard_attr *a) {
  if (!a) return;
  switch (a->kind) {
  case SHARD_ATTR_SYMREF:
    if (a->u.symref.num) {
      shard_op *target = shard_module_lookup_symbol(st->m, a->u.symref.path[0]);
      if (target) S_mark_live(st, target);
    }
    break;
  case SHARD_ATTR_ARRAY:
    for (uint32_t i = 0; i < a->u.array.num; i++) S_mark_refs(st, a->u.array.elems[i]);
    break;
  case SHARD_ATTR_DICT:
    for (uint32_t i = 0; i < a->u.dict.num; i++) S_mark_refs(st, a->u.dict.entries[i].value);
    break;
  case SHARD_ATTR_SDY_SHARDING:
    if (a->u.sharding->mesh_name) {
      shard_op *mesh = shard_module_lookup_symbol(st->m, a->u.sharding->mesh_name);
      if (mesh) S_mark_live(st, mesh);
    }
    break;
  case SHARD_ATTR_SDY_PER_VALUE:
    for (uint32_t i = 0; i < a->u.per_value->num; i++) {
      const char *name = a->u.per_value->shardings[i].mesh_name;
      shard_op *mesh = name ? shard_module_lookup_symbol(st->m, name) : NULL;
      if (mesh) S_mark_live(st, mesh);
    }
    break;
  default: break;
  }
}

static bool S_mark_op_refs(shard_op *op, void *ctx) {
  dce_state *st = ctx;
  for (uint32_t i = 0; i < op->num_attrs; i++) S_mark_refs(st, op->attrs[i].value);
  for (uint32_t r = 0; r < op->num_regions; r++)
    for (shard_block *b = op->regions[r].first; b; b = b->next)
      for (uint32_t k = 0; k < b->num_args; k++)
        for (uint32_t i = 0; i < b->arg_info[k].num_attrs; i++) S_mark_refs(st, b->arg_info[k].attrs[i].value);
  return !S_all_live(st); /* stops the walk once every private symbol is live */
}

static bool S_is_private(const shard_op *op) {
  shard_attr *vis = shard_op_attr(op, "sym_visibility");
  return vis && vis->kind == SHARD_ATTR_STRING && strcmp(vis->u.str.data, "private") == 0;
}

bool shard_pass_symbol_dce(shard_module *m, const char *options, const shard_pass_context *cx) {
  if (!m->top || !m->top->num_regions) return true;
  /* Only private symbols are ever erased: without one, or once each is
   * live, there is nothing left to mark (the marking reads every attribute
   * of every live op). */
  dce_state st = {m, {0}, {0}, 0, 0};
  for (shard_block *b = m->top->regions[0].first; b; b = b->next)
    for (shard_op *op = b->first; op; op = op->next) {
      if (shard_symbol_name(op) && S_is_private(op)) st.num_private++;
      else if (shard_ptrmap_add(&st.live, op)) SHARD_VEC_PUSH(st.worklist, op);
    }
  /* Marking ends when every private symbol is live (a module whose main
   * func calls them all needs only main's walk): nothing is erased then. */
  while (st.worklist.len && !S_all_live(&st)) {
    shard_op *op = st.worklist.items[--st.worklist.len];
    shard_walk(op, S_mark_op_refs, &st);
  }
  for (shard_block *b = m->top->regions[0].first; b && !S_all_live(&st); b = b->next)
    for (shard_op *op = b->first, *next; op; op = next) {
      next = op->next;
      if (!shard_ptrmap_get(&st.live, op)) shard_op_erase(op);
    }
  SHARD_VEC_FREE(st.worklist);
  shard_ptrmap_release(&st.live);
  return true;
}

/* ---- -sdy-import-pipeline ------------------------------------------------------ */

bool shard_pass_import_pipeline(shard_module *m, const char *options, const shard_pass_context *cx) {
  bool dedup = false;
  shard_pass_option_bool(options, "dedup-functions-fully", &dedup);
  static const shard_pass_fn steps[] = {
      shard_pass_symbol_dce,
      shard_pass_lift_inlined_meshes,
      shard_pass_remove_size_one_axes,
      shard_pass_propagate_sharding_from_func_to_call,
      shard_pass_constant_or_scalar_splitter,
      shard_pass_symbol_dce,
      shard_pass_manual_axes_cleanup,
      shard_pass_add_data_flow_edges,
  };
  for (size_t i = 0; i < sizeof steps / sizeof *steps; i++)
    if (!steps[i](m, NULL, cx)) return false;
  if (!dedup) return true;
  return shard_pass_apply_sharding_constraints(m, NULL, cx) && shard_pass_sharding_group_import(m, NULL, cx);
}
