/* -sdy-constant-or-scalar-splitter: give every non-constant user its own
 * copy of each constant sub-computation, so that propagation can shard each
 * copy the way its user wants (Shardy's ConstantOrScalarSplitterPass).
 *
 * 1. Every stablehlo.constant becomes an sdy.constant (same attributes), so
 *    nothing folds the copies back together.
 * 2. Funcs are visited callees first. In each func, the bodies of its
 *    named computations (innermost first) and then the func body are walked
 *    in pre-order, a named computation's body never as part of the enclosing
 *    walk. An op is a constant expression when it is an sdy.constant or an
 *    iota, or when it is "constant preserving" (pure broadcast, reshape,
 *    slice or elementwise op, or a call / named computation whose callee /
 *    body was found constant) and all its operands are constant expressions.
 *    A non-constant-preserving op (terminators aside) makes its func and
 *    its named computation non-constant, by name.
 * 3. Every operand of a non-constant op that a constant expression (or a
 *    broadcast of a scalar) defines is replaced by a fresh clone of the whole
 *    sub-computation, placed right before each original op; scalars are
 *    shared rather than cloned. Cloned calls call a recursive clone of their
 *    callee (uniquely renamed, with `sdy.original_func_name`), and the
 *    sharding groups of a cloned value get a copy for the clone.
 * 4. The originals left without users (sharding groups aside) are erased,
 *    users before their operands. */
#include <stdlib.h>
#include <string.h>

#include "ir/call_graph.h"
#include "ir/clone.h"
#include "ir/opdef.h"
#include "pass/pass.h"
#include "support/ptrmap.h"
#include "support/strmap.h"

typedef SHARD_VEC(shard_op *) op_vec;
/* A set of names (the one string map; keys live in the module arena). */
typedef shard_strmap name_vec;

typedef struct splitter {
  shard_module *m;
  shard_symbol_table symbols;
  name_vec non_const_named_computations;
  name_vec non_const_funcs;
} splitter;

/* The ops found constant (or scalar expansions) in one region walk, in the
 * order found, with a set for membership. */
typedef struct op_list {
  op_vec ops;
  shard_ptrmap set;
} op_list;

/* The op names this file tests, compared by definition (ir.h). */
static shard_op_name K_func_call = {"func.call", NULL};
static shard_op_name K_func_func = {"func.func", NULL};
static shard_op_name K_sdy_constant = {"sdy.constant", NULL};
static shard_op_name K_sdy_named_computation = {"sdy.named_computation", NULL};
static shard_op_name K_sdy_propagation_barrier = {"sdy.propagation_barrier", NULL};
static shard_op_name K_sdy_reshard = {"sdy.reshard", NULL};
static shard_op_name K_sdy_sharding_group = {"sdy.sharding_group", NULL};
static shard_op_name K_stablehlo_bitcast_convert = {"stablehlo.bitcast_convert", NULL};
static shard_op_name K_stablehlo_broadcast_in_dim = {"stablehlo.broadcast_in_dim", NULL};
static shard_op_name K_stablehlo_clamp = {"stablehlo.clamp", NULL};
static shard_op_name K_stablehlo_constant = {"stablehlo.constant", NULL};
static shard_op_name K_stablehlo_iota = {"stablehlo.iota", NULL};
static shard_op_name K_stablehlo_reshape = {"stablehlo.reshape", NULL};
static shard_op_name K_stablehlo_select = {"stablehlo.select", NULL};
static shard_op_name K_stablehlo_slice = {"stablehlo.slice", NULL};

static bool S_names_contain(const name_vec *v, const char *name) {
  return name && shard_strmap_get_cstr(v, name) != NULL;
}

static void S_names_add(name_vec *v, const char *name) {
  if (name) shard_strmap_put_cstr(v, name, (void *)name);
}

static bool S_list_has(const op_list *l, const shard_op *op) { return shard_ptrmap_get(&l->set, op) != 0; }

static void S_list_add(op_list *l, shard_op *op) {
  if (shard_ptrmap_add(&l->set, op)) SHARD_VEC_PUSH(l->ops, op);
}

static bool S_is_scalar(const shard_value *v) {
  return v->type && v->type->kind == SHARD_TYPE_TENSOR && v->type->rank == 0;
}

static const char *S_named_computation_name(const shard_op *op) {
  shard_attr *a = shard_op_attr(op, "name");
  return a && a->kind == SHARD_ATTR_STRING ? a->u.str.data : "";
}

/* ---- op properties -------------------------------------------------------- */

static bool S_same_shape(const shard_type *a, const shard_type *b) {
  if (!a || !b || a->kind != SHARD_TYPE_TENSOR || b->kind != SHARD_TYPE_TENSOR) return false;
  if (a->rank != b->rank) return false;
  for (uint32_t i = 0; i < a->rank; i++)
    if (a->dims[i] != b->dims[i]) return false;
  return true;
}

/* Shardy's isPure && isElementwise for the ops that can be both. Every
 * StableHLO op with the Elementwise or BroadcastingElementwise trait is
 * pure; of the sdy ops treated as elementwise, sharding_constraint is the
 * one that is not pure. */
static bool S_is_pure_elementwise(const shard_op *op) {
  if (op->def && (op->def->traits & SHARD_TRAIT_ELEMENTWISE)) return true;
  if (shard_op_is(op, &K_stablehlo_clamp) || shard_op_is(op, &K_stablehlo_select)) return true;
  if (shard_op_is(op, &K_stablehlo_bitcast_convert))
    return op->num_operands == 1 && op->num_results == 1 &&
           S_same_shape(op->operands[0].value->type, op->results[0].type);
  return shard_op_is(op, &K_sdy_reshard) || shard_op_is(op, &K_sdy_propagation_barrier);
}

static bool S_is_constant_preserving(const splitter *sp, const shard_op *op) {
  if (shard_op_is(op, &K_func_call)) {
    shard_op *callee = shard_call_callee_func(sp->m, op);
    const char *name = callee ? shard_func_original_name(callee) : NULL;
    return name && !S_names_contain(&sp->non_const_funcs, name);
  }
  if (shard_op_is(op, &K_sdy_named_computation))
    return !S_names_contain(&sp->non_const_named_computations, S_named_computation_name(op));
  if (shard_op_is(op, &K_stablehlo_broadcast_in_dim) || shard_op_is(op, &K_stablehlo_reshape) ||
      shard_op_is(op, &K_stablehlo_slice))
    return true;
  return S_is_pure_elementwise(op);
}

static bool S_is_constant_expression(const splitter *sp, const shard_op *op, const op_list *constants) {
  if (shard_op_is(op, &K_sdy_constant) || shard_op_is(op, &K_stablehlo_iota)) return true;
  if (!S_is_constant_preserving(sp, op)) return false;
  for (uint32_t i = 0; i < op->num_operands; i++) {
    const shard_op *def = op->operands[i].value ? op->operands[i].value->def : NULL;
    if (!def || !S_list_has(constants, def)) return false;
  }
  return true;
}

/* A broadcast of a scalar: split like a constant even when the scalar is not. */
static bool S_is_scalar_expansion(const shard_op *op) {
  return shard_op_is(op, &K_stablehlo_broadcast_in_dim) && op->num_operands == 1 && S_is_scalar(op->operands[0].value);
}

static bool S_is_terminator(const shard_op *op) { return op->def && (op->def->traits & SHARD_TRAIT_TERMINATOR); }

/* ---- cloning sub-computations --------------------------------------------- */

/* Clones the sub-computation rooted at `result` (operands first), each op
 * right before its original, unless it is a scalar or already cloned. */
static void S_clone_sub_computation(splitter *sp, shard_value *result, shard_value_map *map) {
  if (S_is_scalar(result) || shard_value_map_get(map, result)) return;
  shard_op *op = result->def;
  for (uint32_t i = 0; i < op->num_operands; i++) {
    shard_value *operand = op->operands[i].value;
    if (operand && operand->def) S_clone_sub_computation(sp, operand, map);
  }
  shard_op *copy = shard_op_clone(sp->m->arena, op, map);
  shard_op_insert_before(op, copy);
  if (shard_op_is(copy, &K_func_call)) {
    shard_op *callee = shard_call_callee_func(sp->m, copy);
    if (callee) {
      shard_op *callee_copy = shard_func_clone_recursively(&sp->symbols, callee);
      shard_call_set_callee(sp->m->arena, copy, shard_symbol_table_insert(&sp->symbols, callee_copy));
    }
  }
  /* The clone belongs to the same sharding groups as the value it copies. */
  for (shard_operand *u = result->first_use; u; u = u->next_use)
    if (shard_op_is(u->owner, &K_sdy_sharding_group))
      shard_op_insert_before(op, shard_op_clone(sp->m->arena, u->owner, map));
}

static shard_value *S_clone_for_use(splitter *sp, shard_value *result) {
  if (S_is_scalar(result)) return result;
  shard_value_map *map = shard_value_map_new();
  S_clone_sub_computation(sp, result, map);
  shard_value *copy = shard_value_map_get(map, result);
  shard_value_map_free(map);
  return copy ? copy : result;
}

static void S_clone_operands(splitter *sp, shard_op *op, const op_list *constants, const op_list *expansions) {
  for (uint32_t i = 0; i < op->num_operands; i++) {
    shard_value *v = op->operands[i].value;
    if (!v || !v->def) continue;
    if (S_list_has(constants, v->def) || S_list_has(expansions, v->def))
      shard_operand_set(&op->operands[i], S_clone_for_use(sp, v));
  }
}

/* ---- the walk --------------------------------------------------------------- */

typedef struct region_walk {
  splitter *sp;
  shard_op *func;
  op_list constants, expansions;
  /* What S_process_op already marked non-constant in this walk (adding a
   * name again changes nothing; most ops of a func would add it). */
  bool func_marked;
  const shard_op *nc_marked;
} region_walk;

static void S_process_op(region_walk *w, shard_op *op) {
  splitter *sp = w->sp;
  if (shard_op_is(op, &K_func_func) || shard_op_is(op, &K_sdy_sharding_group)) return;
  if (S_is_constant_expression(sp, op, &w->constants)) {
    S_list_add(&w->constants, op);
    return;
  }
  if (!S_is_constant_preserving(sp, op) && !S_is_terminator(op)) {
    shard_op *nc = shard_op_ancestor(op, "sdy.named_computation");
    if (nc && nc != w->nc_marked) {
      S_names_add(&sp->non_const_named_computations, S_named_computation_name(nc));
      w->nc_marked = nc;
    }
    if (!w->func_marked) {
      S_names_add(&sp->non_const_funcs, shard_func_original_name(w->func));
      w->func_marked = true;
    }
  }
  if (S_is_scalar_expansion(op)) {
    S_list_add(&w->expansions, op);
    return;
  }
  S_clone_operands(sp, op, &w->constants, &w->expansions);
}

/* Pre-order over the ops of `r`, not entering named computations. Clones go
 * before ops already visited, so the next op is read after processing. */
static void S_walk_ops(region_walk *w, shard_region *r) {
  for (shard_block *b = r->first; b; b = b->next)
    for (shard_op *op = b->first; op; op = op->next) {
      S_process_op(w, op);
      if (shard_op_is(op, &K_sdy_named_computation)) continue;
      for (uint32_t i = 0; i < op->num_regions; i++) S_walk_ops(w, &op->regions[i]);
    }
}

static bool S_only_sharding_group_users(const shard_op *op) {
  for (uint32_t i = 0; i < op->num_results; i++)
    for (shard_operand *u = op->results[i].first_use; u; u = u->next_use)
      if (!shard_op_is(u->owner, &K_sdy_sharding_group)) return false;
  return true;
}

static void S_erase_if_unused(shard_op *op) {
  if (!S_only_sharding_group_users(op)) return;
  for (uint32_t i = 0; i < op->num_results; i++)
    while (op->results[i].first_use) shard_op_erase(op->results[i].first_use->owner);
  shard_op_erase(op);
}

static void S_split_region(splitter *sp, shard_op *func, shard_region *r) {
  region_walk w = {sp, func, {{0}, {0}}, {{0}, {0}}, false, NULL};
  S_walk_ops(&w, r);
  /* Every use outside the constant set now reads a clone, so the originals
   * go, users before the values they use. Scalars were never cloned and
   * keep their uses. */
  for (uint32_t i = 0; i < w.expansions.ops.len; i++) S_erase_if_unused(w.expansions.ops.items[i]);
  for (uint32_t i = w.constants.ops.len; i-- > 0;) S_erase_if_unused(w.constants.ops.items[i]);
  SHARD_VEC_FREE(w.constants.ops);
  SHARD_VEC_FREE(w.expansions.ops);
  shard_ptrmap_release(&w.constants.set);
  shard_ptrmap_release(&w.expansions.set);
}

/* Named computations in `r`, innermost first (MLIR's post-order walk). */
static void S_collect_named_computations(shard_region *r, op_vec *out) {
  for (shard_block *b = r->first; b; b = b->next)
    for (shard_op *op = b->first; op; op = op->next) {
      for (uint32_t i = 0; i < op->num_regions; i++) S_collect_named_computations(&op->regions[i], out);
      if (shard_op_is(op, &K_sdy_named_computation)) SHARD_VEC_PUSH(*out, op);
    }
}

static void S_split_func(splitter *sp, shard_op *func) {
  if (!func->num_regions) return;
  op_vec ncs = {0};
  S_collect_named_computations(&func->regions[0], &ncs);
  for (uint32_t i = 0; i < ncs.len; i++)
    if (ncs.items[i]->num_regions) S_split_region(sp, func, &ncs.items[i]->regions[0]);
  SHARD_VEC_FREE(ncs);
  S_split_region(sp, func, &func->regions[0]);
}

/* ---- constants --------------------------------------------------------------- */

static bool S_convert_constant(shard_op *op, void *ctx) {
  (void)ctx;
  if (shard_op_is(op, &K_stablehlo_constant)) {
    static const char name[] = "sdy.constant";
    op->name = name;
    op->def = shard_op_def_lookup(name, sizeof name - 1);
  }
  return true;
}

bool shard_pass_constant_or_scalar_splitter(shard_module *m, const char *options, const shard_pass_context *cx) {
  shard_walk(m->top, S_convert_constant, NULL);
  splitter sp = {.m = m};
  shard_symbol_table_init(&sp.symbols, m);
  shard_op **funcs;
  uint32_t n = shard_call_graph_funcs(m, false, &funcs);
  for (uint32_t i = 0; i < n; i++) S_split_func(&sp, funcs[i]);
  free(funcs);
  shard_symbol_table_release(&sp.symbols);
  shard_strmap_release(&sp.non_const_named_computations);
  shard_strmap_release(&sp.non_const_funcs);
  return true;
}
