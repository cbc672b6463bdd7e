/* Passes over funcs and calls: -sdy-propagate-sharding-from-func-to-call,
 * -sdy-import-func-calls, -sdy-flatten-call-graph,
 * -sdy-add-func-data-flow-edges and -sdy-pre-order-funcs. Call graph order,
 * symbol uniquing and recursive func cloning live in call_graph.c.
 *
 * -sdy-propagate-sharding-from-func-to-call: a func.call without an
 * `sdy.sharding` takes its callee's result shardings (results without one
 * become fully open on the mesh of the first result that has one). A call
 * that already has shardings keeps them. */
#include <stdlib.h>
#include <string.h>

#include "ir/call_graph.h"
#include "ir/clone.h"
#include "pass/pass.h"
#include "pass/pass_shardings.h"
#include "sdy/sharding.h"
#include "support/ptrmap.h"
#include "support/strmap.h"

/* The op names this file tests, compared by definition (ir.h). */
static shard_op_name K_func_call = {"func.call", NULL};
static shard_op_name K_func_func = {"func.func", NULL};
static shard_op_name K_sdy_func_data_flow_edge = {"sdy.func_data_flow_edge", NULL};
static shard_op_name K_sdy_named_computation = {"sdy.named_computation", NULL};

typedef struct call_state {
  shard_module *m;
} call_state;

static bool S_propagate_to_call(shard_op *op, void *ctx) {
  call_state *st = ctx;
  if (!shard_op_is(op, &K_func_call) || shard_op_attr(op, "sdy.sharding")) return true;
  shard_attr *callee = shard_op_attr(op, "callee");
  if (!callee || callee->kind != SHARD_ATTR_SYMREF || callee->u.symref.num != 1) return true;
  shard_op *func = shard_module_lookup_symbol(st->m, callee->u.symref.path[0]);
  if (!func || !shard_op_is(func, &K_func_func)) return true;
  uint32_t n = shard_func_num_results(func);
  const shard_tensor_sharding *first = NULL;
  for (uint32_t i = 0; i < n && !first; i++) first = shard_func_result_sharding(func, i);
  if (!first) return true;
  shard_attr *ft = shard_op_attr(func, "function_type");
  shard_tensor_sharding *list = SHARD_NEW_ARRAY(st->m->arena, shard_tensor_sharding, n);
  for (uint32_t i = 0; i < n; i++) {
    shard_tensor_sharding *s = shard_func_result_sharding(func, i);
    if (s) {
      list[i] = *s;
      continue;
    }
    const shard_type *t = ft->u.type->results[i];
    uint32_t rank = t->kind == SHARD_TYPE_TENSOR ? t->rank : 0;
    list[i] = *shard_sharding_open(st->m->arena, first->mesh_name, first->inline_mesh, rank, true);
  }
  shard_op_set_attr(st->m->arena, op, "sdy.sharding", shard_attr_per_value(st->m->arena, list, n), false);
  return true;
}

bool shard_pass_propagate_sharding_from_func_to_call(shard_module *m, const char *options,
                                                     const shard_pass_context *cx) {
  call_state st = {m};
  shard_walk(m->top, S_propagate_to_call, &st);
  return true;
}

/* ---- -sdy-import-func-calls ------------------------------------------------
 *
 * Every func.call becomes an sdy.named_computation named after the callee's
 * original name, holding the callee's body (func.return turned sdy.return).
 * Calls are visited callees first, so a callee's own calls are already
 * named computations when its body moves. The first call of a callee takes
 * the body; later calls get a copy of it (with a warning, once), and callees
 * whose body moved are erased. The computation's in_shardings come from the
 * callee's argument shardings, its out_shardings from the call's
 * `sdy.sharding`, its other attributes from the call's discardable ones. By
 * default every named computation then gets its data-flow edges, for
 * pipelines that ran -sdy-add-data-flow-edges before this pass. */

typedef struct import_state {
  shard_module *m;
  shard_diag_engine *de;
  SHARD_VEC(const char *) moved; /* callees whose body moved, in call order */
  shard_strmap moved_to; /* callee -> the region its body moved into */
} import_state;

static shard_region *S_moved_body(const import_state *st, const char *callee) {
  return shard_strmap_get_cstr(&st->moved_to, callee);
}

/* Shardy's getFuncArgShardings: NULL unless some argument is sharded on a
 * non-maximal mesh; otherwise every argument, unsharded ones fully open on
 * that mesh. */
static shard_attr *S_func_arg_shardings(shard_module *m, shard_op *func) {
  shard_block *entry = func->num_regions ? func->regions[0].first : NULL;
  uint32_t n = entry ? entry->num_args : 0;
  const shard_tensor_sharding *first = NULL;
  for (uint32_t i = 0; i < n && !first; i++) {
    const shard_tensor_sharding *s = shard_func_arg_sharding(func, i);
    const shard_mesh *mesh = s ? shard_sharding_mesh(m, s) : NULL;
    if (s && !(mesh && shard_mesh_is_maximal(mesh))) first = s;
  }
  if (!first) return NULL;
  shard_tensor_sharding *list = SHARD_NEW_ARRAY(m->arena, shard_tensor_sharding, n);
  for (uint32_t i = 0; i < n; i++) {
    shard_tensor_sharding *s = shard_func_arg_sharding(func, i);
    if (s) {
      list[i] = *s;
      continue;
    }
    const shard_type *t = entry->args[i].type;
    uint32_t rank = t && t->kind == SHARD_TYPE_TENSOR ? t->rank : 0;
    list[i] = *shard_sharding_open(m->arena, first->mesh_name, first->inline_mesh, rank, true);
  }
  return shard_attr_per_value(m->arena, list, n);
}

/* Moves the blocks of `from` into the empty region `to`; the entry block's
 * arguments lose their func argument attributes, and func.return becomes
 * sdy.return. */
static void S_move_body(shard_arena *a, shard_region *from, shard_region *to) {
  shard_pass_move_body(a, from, to, "func.return", "sdy.return", false);
  /* The func keeps an empty entry block with the argument attributes: later
   * calls still read their in_shardings from it until it is erased. Only an
   * entry block's arguments carry attributes (func arguments'). */
  if (to->first) {
    shard_block *stub = shard_region_add_block(a, from);
    for (uint32_t i = 0; i < to->first->num_args; i++) {
      shard_block_arg_info *src = &to->first->arg_info[i];
      shard_value *arg = shard_block_add_arg(a, stub, to->first->args[i].type);
      stub->arg_info[arg->index].attrs = src->attrs;
      stub->arg_info[arg->index].num_attrs = src->num_attrs;
      src->attrs = NULL;
      src->num_attrs = 0;
    }
  }
}

static void S_import_call(import_state *st, shard_op *call) {
  shard_module *m = st->m;
  shard_arena *a = m->arena;
  const char *callee = shard_call_callee(call);
  shard_op *func = shard_call_callee_func(m, call);
  if (!func || !func->num_regions) return;
  shard_op *nc = shard_pass_op_like(a, "sdy.named_computation", call, 1);
  const char *name = shard_func_original_name(func);
  shard_op_set_attr(a, nc, "name", shard_attr_string(a, name, (uint32_t)strlen(name)), true);
  shard_attr *in = S_func_arg_shardings(m, func);
  if (in) shard_op_set_attr(a, nc, "in_shardings", in, true);
  shard_attr *out = shard_op_attr(call, "sdy.sharding");
  if (out && out->kind == SHARD_ATTR_SDY_PER_VALUE) shard_op_set_attr(a, nc, "out_shardings", out, true);
  for (uint32_t i = 0; i < call->num_attrs; i++)
    if (!call->attrs[i].inherent && strcmp(call->attrs[i].name, "sdy.sharding") != 0)
      shard_op_set_attr(a, nc, call->attrs[i].name, call->attrs[i].value, false);
  shard_attr *thread = shard_op_attr(func, "execution_thread");
  if (thread) shard_op_set_attr(a, nc, "execution_thread", thread, false);

  shard_region *moved = S_moved_body(st, callee);
  if (moved) {
    /* Like Shardy (a function-local once_flag), warn once per process. */
    static bool warned;
    if (!warned) {
      warned = true;
      shard_warning(st->de, call->span,
                    "function @%s has multiple call ops, we need to clone the function "
                    "body for each call",
                    callee);
    }
    shard_region_clone_into(a, moved, &nc->regions[0], NULL);
  } else {
    S_move_body(a, &func->regions[0], &nc->regions[0]);
    SHARD_VEC_PUSH(st->moved, callee);
    shard_strmap_put_cstr(&st->moved_to, callee, &nc->regions[0]);
  }
  shard_op_insert_before(call, nc);
  for (uint32_t i = 0; i < call->num_results; i++) shard_value_replace_all_uses(&call->results[i], &nc->results[i]);
  shard_op_erase(call);
}

static shard_tensor_sharding *S_per_value_entry(const shard_attr *pv, uint32_t i) {
  if (!pv || pv->kind != SHARD_ATTR_SDY_PER_VALUE || i >= pv->u.per_value->num) return NULL;
  return &pv->u.per_value->shardings[i];
}

/* Puts `edge` (already built on `owner`) where its owner's uses were. */
static void S_route_through(shard_value *owner, shard_op *edge) {
  shard_value_replace_all_uses(owner, &edge->results[0]);
  shard_operand_set(&edge->operands[0], owner);
}

/* An sdy.data_flow_edge for each static-shaped block argument and result of
 * a named computation, holding its in/out sharding, in owner order. */
static void S_add_named_computation_edges(shard_arena *a, shard_op *nc) {
  shard_block *body = nc->num_regions ? nc->regions[0].first : NULL;
  shard_attr *in = shard_op_attr(nc, "in_shardings");
  shard_attr *out = shard_op_attr(nc, "out_shardings");
  for (uint32_t k = body ? body->num_args : 0; k-- > 0;) {
    shard_value *arg = &body->args[k];
    if (!shard_type_is_static_tensor(arg->type)) continue;
    shard_op *edge = shard_op_new_named(a, "sdy.data_flow_edge", 1, NULL, 1, &arg->type, 0);
    edge->span = nc->span;
    shard_tensor_sharding *s = S_per_value_entry(in, k);
    if (s) shard_op_set_attr(a, edge, "sharding", shard_attr_sharding(a, s), true);
    if (body->first) shard_op_insert_before(body->first, edge);
    else shard_block_append(body, edge);
    S_route_through(arg, edge);
  }
  for (uint32_t k = nc->num_results; k-- > 0;) {
    shard_value *res = &nc->results[k];
    if (!shard_type_is_static_tensor(res->type)) continue;
    shard_op *edge = shard_op_new_named(a, "sdy.data_flow_edge", 1, NULL, 1, &res->type, 0);
    edge->span = nc->span;
    shard_tensor_sharding *s = S_per_value_entry(out, k);
    if (s) shard_op_set_attr(a, edge, "sharding", shard_attr_sharding(a, s), true);
    shard_op_insert_after(nc, edge);
    S_route_through(res, edge);
  }
}

typedef SHARD_VEC(shard_op *) op_vec;

/* The calls of g->funcs[f] as they are now, for a pass that changes funcs
 * in call-graph order: those listed with the graph, since without recursion
 * a func changes only when it is visited (its callees come first); with
 * recursion listed again (the caller frees them when they are not
 * g->calls[f]). */
static uint32_t S_calls_now(const shard_call_graph *g, uint32_t f, shard_op ***calls) {
  if (g->recursive) return shard_func_calls(g->funcs[f], calls);
  *calls = g->calls[f];
  return g->num_calls[f];
}

static bool S_collect_call_op(shard_op *op, void *ctx) {
  if (shard_op_is(op, &K_func_call)) SHARD_VEC_PUSH(*(op_vec *)ctx, op);
  return true;
}

static bool S_collect_named_computation(shard_op *op, void *ctx) {
  if (shard_op_is(op, &K_sdy_named_computation)) SHARD_VEC_PUSH(*(op_vec *)ctx, op);
  return true;
}

bool shard_pass_import_func_calls(shard_module *m, const char *options, const shard_pass_context *cx) {
  shard_diag_engine *de = cx->de;
  bool add_edges = true;
  shard_pass_option_bool(options, "add-data-flow-edges-on-named-computations", &add_edges);
  import_state st = {.m = m, .de = de};
  shard_call_graph g;
  shard_call_graph_build(m, false, &g);
  for (uint32_t f = 0; f < g.num_funcs; f++) {
    shard_op **calls;
    uint32_t nc = S_calls_now(&g, f, &calls);
    for (uint32_t i = 0; i < nc; i++) S_import_call(&st, calls[i]);
    if (calls != g.calls[f]) free(calls);
  }
  shard_call_graph_release(&g);
  for (uint32_t i = 0; i < st.moved.len; i++) {
    shard_op *func = shard_module_lookup_symbol(m, st.moved.items[i]);
    if (func) shard_op_erase(func);
  }
  SHARD_VEC_FREE(st.moved);
  shard_strmap_release(&st.moved_to);
  if (add_edges) {
    op_vec ncs = {0};
    shard_walk(m->top, S_collect_named_computation, &ncs);
    for (uint32_t i = 0; i < ncs.len; i++) S_add_named_computation_edges(m->arena, ncs.items[i]);
    SHARD_VEC_FREE(ncs);
  }
  return true;
}

/* ---- -sdy-flatten-call-graph ----------------------------------------------
 *
 * Makes every func called at most once: callees first, the first call of a
 * func keeps it and every later call gets a recursive copy (uniquely named,
 * with `sdy.original_func_name`). A copy's own callees are copied too, so
 * the result is a tree. */

bool shard_pass_flatten_call_graph(shard_module *m, const char *options, const shard_pass_context *cx) {
  shard_symbol_table symbols;
  shard_symbol_table_init(&symbols, m);
  shard_ptrmap called = {0}; /* callees whose first call keeps them */
  shard_call_graph g;
  shard_call_graph_build(m, false, &g);
  for (uint32_t f = 0; f < g.num_funcs; f++) {
    shard_op **calls;
    uint32_t nc = S_calls_now(&g, f, &calls);
    for (uint32_t i = 0; i < nc; i++) {
      shard_op *callee = shard_call_callee_func(m, calls[i]);
      if (!callee) continue;
      if (shard_ptrmap_add(&called, callee)) continue;
      shard_op *copy = shard_func_clone_recursively(&symbols, callee);
      shard_call_set_callee(m->arena, calls[i], shard_symbol_table_insert(&symbols, copy));
    }
    if (calls != g.calls[f]) free(calls);
  }
  shard_call_graph_release(&g);
  shard_ptrmap_release(&called);
  shard_symbol_table_release(&symbols);
  return true;
}

/* ---- -sdy-add-func-data-flow-edges -----------------------------------------
 *
 * An sdy.func_data_flow_edge on each static-shaped argument of every func
 * but the main one (the only func, or @main) and after each static-shaped
 * call result, carrying the value's sharding, so propagation has one value
 * per edge between a call site and its callee. */

static bool S_is_func(const shard_op *op) { return shard_op_is(op, &K_func_func); }

static shard_op *S_func_edge(shard_arena *a, shard_value *input, const shard_tensor_sharding *s, shard_span span) {
  shard_op *edge = shard_op_new_named(a, "sdy.func_data_flow_edge", 1, NULL, 1, &input->type, 0);
  edge->span = span;
  if (s) {
    shard_tensor_sharding *copy = shard_sharding_clone(a, s);
    shard_op_set_attr(a, edge, "sdy.sharding", shard_attr_per_value(a, copy, 1), false);
  }
  return edge;
}

bool shard_pass_add_func_data_flow_edges(shard_module *m, const char *options, const shard_pass_context *cx) {
  shard_arena *a = m->arena;
  shard_op *main_func = shard_module_main_func(m);
  for (shard_block *b = m->top->regions[0].first; b; b = b->next)
    for (shard_op *func = b->first; func; func = func->next) {
      if (!S_is_func(func) || func == main_func || !func->num_regions) continue;
      shard_block *entry = func->regions[0].first;
      if (!entry) continue;
      shard_op *first = entry->first;
      for (uint32_t i = 0; i < entry->num_args; i++) {
        shard_value *arg = &entry->args[i];
        if (!shard_type_is_static_tensor(arg->type)) continue;
        shard_op *edge = S_func_edge(a, arg, shard_func_arg_sharding(func, i), func->span);
        if (first) shard_op_insert_before(first, edge);
        else shard_block_append(entry, edge);
        S_route_through(arg, edge);
      }
    }
  op_vec calls = {0};
  shard_walk(m->top, S_collect_call_op, &calls);
  for (uint32_t c = 0; c < calls.len; c++) {
    shard_op *call = calls.items[c];
    shard_attr *shardings = shard_op_attr(call, "sdy.sharding");
    shard_op *after = call;
    for (uint32_t i = 0; i < call->num_results; i++) {
      shard_value *res = &call->results[i];
      if (!shard_type_is_static_tensor(res->type)) continue;
      shard_op *edge = S_func_edge(a, res, S_per_value_entry(shardings, i), call->span);
      shard_op_insert_after(after, edge);
      after = edge;
      S_route_through(res, edge);
    }
  }
  SHARD_VEC_FREE(calls);
  return true;
}

/* ---- -sdy-pre-order-funcs ----------------------------------------------------
 *
 * Moves the funcs to the end of the module in call-graph pre-order (callers
 * before callees), the order propagation wants to visit them in. */

bool shard_pass_pre_order_funcs(shard_module *m, const char *options, const shard_pass_context *cx) {
  shard_op **funcs;
  uint32_t n = shard_call_graph_funcs(m, true, &funcs);
  for (uint32_t i = 0; i < n; i++) {
    /* Unlinked by hand: shard_op_erase would also drop the body's uses. */
    shard_op *f = funcs[i];
    shard_block *body = f->parent;
    if (f->prev) f->prev->next = f->next;
    else body->first = f->next;
    if (f->next) f->next->prev = f->prev;
    else body->last = f->prev;
    shard_block_append(body, f);
  }
  free(funcs);
  return true;
}

/* ---- -sdy-sink-func-data-flow-edges ----------------------------------------
 *
 * The export counterpart of the above: each sdy.func_data_flow_edge gives
 * its sharding back to its input (a func argument or a call result) and is
 * replaced by it. An edge without a sharding leaves a sharded input fully
 * open on its mesh, since the edge is where propagation kept the answer. */

static bool S_collect_func_edge(shard_op *op, void *ctx) {
  if (shard_op_is(op, &K_sdy_func_data_flow_edge)) SHARD_VEC_PUSH(*(op_vec *)ctx, op);
  return true;
}

bool shard_pass_sink_func_data_flow_edges(shard_module *m, const char *options, const shard_pass_context *cx) {
  op_vec edges = {0};
  shard_walk(m->top, S_collect_func_edge, &edges);
  for (uint32_t i = 0; i < edges.len; i++) {
    shard_op *edge = edges.items[i];
    if (edge->num_operands != 1 || edge->num_results != 1) continue;
    shard_value *input = edge->operands[0].value;
    shard_tensor_sharding *own = shard_value_sharding(&edge->results[0]);
    shard_tensor_sharding *before = shard_value_sharding(input);
    if (own) {
      shard_value_set_sharding(m->arena, input, shard_sharding_clone(m->arena, own));
    } else if (before) {
      shard_value_set_sharding(
          m->arena, input, shard_sharding_open(m->arena, before->mesh_name, before->inline_mesh, before->rank, true));
    }
    shard_value_replace_all_uses(&edge->results[0], input);
    shard_op_erase(edge);
  }
  SHARD_VEC_FREE(edges);
  return true;
}
