/* Data-flow edges: -sdy-add-data-flow-edges and -sdy-sink-data-flow-edges.
 *
 * Ops whose values flow through regions (stablehlo.while, stablehlo.case,
 * stablehlo.optimization_barrier, sdy.named_computation and
 * sdy.manual_computation) have "edge owners": the values that carry the
 * sharding of one data-flow edge. For the StableHLO ops these are the
 * results; for the two sdy ops also the body's block arguments.
 *
 * Adding edges puts an `sdy.data_flow_edge` right after every owner of a
 * static shape, holding the owner's sharding, and routes the owner's uses
 * through it, so propagation sees one value per edge. Sinking does the
 * reverse: the edges' shardings go back onto the op (missing ones become
 * fully open on the same mesh) and every edge is replaced by its input. */
#include <string.h>

#include "pass/pass.h"
#include "pass/pass_shardings.h"

typedef enum owner_kind { OWNERS_BLOCK_ARGS, OWNERS_RESULTS } owner_kind;

/* The op names this file tests, compared by definition (ir.h). */
static shard_op_name K_sdy_data_flow_edge = {"sdy.data_flow_edge", NULL};
static shard_op_name K_sdy_manual_computation = {"sdy.manual_computation", NULL};
static shard_op_name K_sdy_named_computation = {"sdy.named_computation", NULL};
static shard_op_name K_stablehlo_case = {"stablehlo.case", NULL};
static shard_op_name K_stablehlo_optimization_barrier = {"stablehlo.optimization_barrier", NULL};
static shard_op_name K_stablehlo_while = {"stablehlo.while", NULL};

static bool S_is_data_flow_op(const shard_op *op) {
  return shard_op_is(op, &K_stablehlo_while) || shard_op_is(op, &K_stablehlo_case) ||
         shard_op_is(op, &K_stablehlo_optimization_barrier) || shard_op_is(op, &K_sdy_named_computation) ||
         shard_op_is(op, &K_sdy_manual_computation);
}

static bool S_has_body_owners(const shard_op *op) {
  return shard_op_is(op, &K_sdy_named_computation) || shard_op_is(op, &K_sdy_manual_computation);
}

/* The owners of one kind: a pointer to the first value and the count. */
static shard_value *S_owners(shard_op *op, owner_kind kind, uint32_t *n) {
  if (kind == OWNERS_RESULTS) {
    *n = op->num_results;
    return op->results;
  }
  shard_block *body = S_has_body_owners(op) && op->num_regions ? op->regions[0].first : NULL;
  *n = body ? body->num_args : 0;
  return body ? body->args : NULL;
}

/* ---- owner shardings ------------------------------------------------------------ */

static shard_tensor_sharding *S_per_value_at(const shard_attr *pv, uint32_t i) {
  if (!pv || pv->kind != SHARD_ATTR_SDY_PER_VALUE || i >= pv->u.per_value->num) return NULL;
  return &pv->u.per_value->shardings[i];
}

/* The sharding an owner has on its op (NULL when none), as the op sees it. */
static shard_tensor_sharding *S_owner_sharding(shard_arena *a, shard_op *op, owner_kind kind, uint32_t i) {
  if (shard_op_is(op, &K_sdy_named_computation))
    return S_per_value_at(shard_op_attr(op, kind == OWNERS_RESULTS ? "out_shardings" : "in_shardings"), i);
  if (shard_op_is(op, &K_sdy_manual_computation)) {
    if (kind == OWNERS_RESULTS) return S_per_value_at(shard_op_attr(op, "out_shardings"), i);
    shard_tensor_sharding *s = S_per_value_at(shard_op_attr(op, "in_shardings"), i);
    return s ? shard_sharding_erase_manual(a, s, shard_op_attr(op, "manual_axes")) : NULL;
  }
  if (kind != OWNERS_RESULTS) return NULL;
  return S_per_value_at(shard_op_attr(op, "sdy.sharding"), i);
}

/* Sets the shardings of all owners of one kind (n entries). */
static void S_set_owner_shardings(shard_arena *a, shard_op *op, owner_kind kind, shard_tensor_sharding *list,
                                  uint32_t n) {
  if (shard_op_is(op, &K_sdy_manual_computation) && kind == OWNERS_BLOCK_ARGS) {
    const shard_attr *manual = shard_op_attr(op, "manual_axes");
    shard_attr *in = shard_op_attr(op, "in_shardings");
    for (uint32_t i = 0; i < n; i++) {
      shard_tensor_sharding *outer = S_per_value_at(in, i);
      if (outer) list[i] = *shard_sharding_add_free(a, outer, &list[i], manual);
    }
  }
  const char *name = "sdy.sharding";
  bool inherent = false;
  if (shard_op_is(op, &K_sdy_named_computation) || shard_op_is(op, &K_sdy_manual_computation)) {
    name = kind == OWNERS_RESULTS ? "out_shardings" : "in_shardings";
    inherent = true;
  }
  shard_op_set_attr(a, op, name, shard_attr_per_value(a, list, n), inherent);
}

/* ---- -sdy-add-data-flow-edges ------------------------------------------------ */

static shard_op *S_new_edge(shard_arena *a, shard_value *input, shard_tensor_sharding *s, shard_span span) {
  shard_op *edge = shard_op_new_named(a, "sdy.data_flow_edge", 1, NULL, 1, &input->type, 0);
  edge->span = span;
  if (s) shard_op_set_attr(a, edge, "sharding", shard_attr_sharding(a, s), true);
  return edge;
}

/* Inserts an edge after each static-shaped owner, last owner first so the
 * edges end up in owner order. */
static void S_add_edges(shard_arena *a, shard_op *op, owner_kind kind) {
  uint32_t n;
  shard_value *owners = S_owners(op, kind, &n);
  for (uint32_t k = n; k-- > 0;) {
    shard_value *owner = &owners[k];
    if (!shard_type_is_static_tensor(owner->type)) continue;
    shard_op *edge = S_new_edge(a, owner, S_owner_sharding(a, op, kind, k), op->span);
    if (kind == OWNERS_RESULTS) shard_op_insert_after(op, edge);
    else if (owner->block->first) shard_op_insert_before(owner->block->first, edge);
    else shard_block_append(owner->block, edge);
    shard_value_replace_all_uses(owner, &edge->results[0]);
    shard_operand_set(&edge->operands[0], owner);
  }
}

typedef SHARD_VEC(shard_op *) op_vec;

static bool S_collect_data_flow_ops(shard_op *op, void *ctx) {
  if (S_is_data_flow_op(op)) SHARD_VEC_PUSH(*(op_vec *)ctx, op);
  return true;
}

bool shard_pass_add_data_flow_edges(shard_module *m, const char *options, const shard_pass_context *cx) {
  op_vec ops = {0};
  shard_walk(m->top, S_collect_data_flow_ops, &ops);
  for (uint32_t i = 0; i < ops.len; i++) {
    S_add_edges(m->arena, ops.items[i], OWNERS_BLOCK_ARGS);
    S_add_edges(m->arena, ops.items[i], OWNERS_RESULTS);
  }
  SHARD_VEC_FREE(ops);
  return true;
}

/* ---- -sdy-sink-data-flow-edges ---------------------------------------------- */

/* The data_flow_edge whose input is `owner`, or NULL. */
static shard_op *S_edge_of(const shard_value *owner) {
  for (shard_operand *u = owner->first_use; u; u = u->next_use)
    if (shard_op_is(u->owner, &K_sdy_data_flow_edge) && shard_operand_index(u) == 0) return u->owner;
  return NULL;
}

static shard_tensor_sharding *S_edge_sharding(const shard_op *edge) {
  shard_attr *s = edge ? shard_op_attr(edge, "sharding") : NULL;
  return s && s->kind == SHARD_ATTR_SDY_SHARDING ? s->u.sharding : NULL;
}

typedef struct sink_options {
  bool origins, edges;
} sink_options;

/* sdy.block_arg_* / sdy.result_* debug arrays gathered from the edges. */
static void S_sink_debug(shard_arena *a, shard_op *op, owner_kind kind, const sink_options *o) {
  if (!o->origins && !o->edges) return;
  uint32_t n;
  shard_value *owners = S_owners(op, kind, &n);
  SHARD_VEC(shard_attr *) origins = {0};
  SHARD_VEC(shard_attr *) edges = {0};
  for (uint32_t i = 0; i < n; i++) {
    shard_op *edge = S_edge_of(&owners[i]);
    if (!edge) continue;
    shard_attr *d = shard_op_attr(edge, "sdy.sharding_origins");
    if (o->origins && d && d->kind == SHARD_ATTR_DICT) SHARD_VEC_PUSH(origins, d);
    shard_attr *e = shard_op_attr(edge, "sdy.propagation_edges");
    if (o->edges && e && e->kind == SHARD_ATTR_SDY_EDGES && e->u.edges.num) SHARD_VEC_PUSH(edges, e);
  }
  bool res = kind == OWNERS_RESULTS;
  if (o->origins) {
    shard_op_set_attr(a, op, res ? "sdy.result_sharding_origins" : "sdy.block_arg_sharding_origins",
                      shard_attr_array(a, origins.items, origins.len), false);
  }
  if (o->edges) {
    shard_op_set_attr(a, op, res ? "sdy.result_propagation_edges" : "sdy.block_arg_propagation_edges",
                      shard_attr_array(a, edges.items, edges.len), false);
  }
  SHARD_VEC_FREE(origins);
  SHARD_VEC_FREE(edges);
}

/* Moves the edges' shardings onto the op when at least one edge has one. */
static void S_sink_shardings(shard_arena *a, shard_op *op, owner_kind kind) {
  uint32_t n;
  shard_value *owners = S_owners(op, kind, &n);
  const shard_tensor_sharding *first = NULL;
  for (uint32_t i = 0; i < n && !first; i++) first = S_edge_sharding(S_edge_of(&owners[i]));
  if (!first) return;
  shard_tensor_sharding *list = SHARD_NEW_ARRAY(a, shard_tensor_sharding, n);
  for (uint32_t i = 0; i < n; i++) {
    shard_tensor_sharding *s = S_edge_sharding(S_edge_of(&owners[i]));
    if (s) {
      list[i] = *s;
      continue;
    }
    shard_type *t = owners[i].type;
    uint32_t rank = t && t->kind == SHARD_TYPE_TENSOR ? t->rank : 0;
    list[i] = *shard_sharding_open(a, first->mesh_name, first->inline_mesh, rank, true);
  }
  S_set_owner_shardings(a, op, kind, list, n);
}

/* The data-flow ops and the edges, each in pre-order, from one walk: sinking
 * the shardings only sets attributes, so the edges are the same ops after. */
typedef struct sink_walk {
  op_vec ops, edges;
} sink_walk;

static bool S_collect_sink(shard_op *op, void *ctx) {
  sink_walk *w = ctx;
  if (shard_op_is(op, &K_sdy_data_flow_edge)) SHARD_VEC_PUSH(w->edges, op);
  else if (S_is_data_flow_op(op)) SHARD_VEC_PUSH(w->ops, op);
  return true;
}

bool shard_pass_sink_data_flow_edges(shard_module *m, const char *options, const shard_pass_context *cx) {
  sink_options o = {false, false};
  shard_pass_option_bool(options, "sink-debug-sharding-origins", &o.origins);
  shard_pass_option_bool(options, "sink-debug-propagation-edge-sharding", &o.edges);
  sink_walk w = {{0}, {0}};
  shard_walk(m->top, S_collect_sink, &w);
  for (uint32_t i = 0; i < w.ops.len; i++) {
    shard_op *op = w.ops.items[i];
    S_sink_shardings(m->arena, op, OWNERS_BLOCK_ARGS);
    S_sink_debug(m->arena, op, OWNERS_BLOCK_ARGS, &o);
    S_sink_shardings(m->arena, op, OWNERS_RESULTS);
    S_sink_debug(m->arena, op, OWNERS_RESULTS, &o);
  }
  SHARD_VEC_FREE(w.ops);
  op_vec edges = w.edges;
  for (uint32_t i = 0; i < edges.len; i++) {
    shard_op *edge = edges.items[i];
    if (edge->num_operands == 1 && edge->num_results == 1)
      shard_value_replace_all_uses(&edge->results[0], edge->operands[0].value);
    shard_op_erase(edge);
  }
  SHARD_VEC_FREE(edges);
  return true;
}
