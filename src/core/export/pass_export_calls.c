/* Export-side passes over funcs and calls:
 *
 *  -sdy-export-named-computations  turns every sdy.named_computation back
 *      into a private func.func (named after the computation, uniqued the
 *      way MLIR's SymbolTable does, with `sdy.original_func_name`) and a
 *      func.call. Shardings still on data-flow edges become the
 *      computation's in/out shardings first; in_shardings go to the func
 *      arguments, out_shardings to the call's `sdy.sharding`. Nested
 *      computations are exported innermost first.
 *  -sdy-unflatten-call-graph       points every call at one representative
 *      func per (original name, manual axes, argument shardings, result
 *      shardings). With dedup-functions-fully the shardings are left out of
 *      the key and the representative is the variant with the most calls.
 *      Afterwards no func keeps `sdy.original_func_name` or
 *      `sdy.func_manual_axes`.
 *  -sdy-propagate-to-func-results  copies the sharding of each returned
 *      value to the func result (removing it when the value has none), for
 *      every func but the main one.
 *  -sdy-insert-func-call-reshards  makes each call's result shardings those
 *      of its callee's results, resharding back to what the call had for
 *      its users. */
#include <stdlib.h>
#include <string.h>

#include "ir/call_graph.h"
#include "pass/pass.h"
#include "support/strmap.h"
#include "pass/pass_shardings.h"
#include "propagate/propagate.h"
#include "export/reshard.h"
#include "sdy/sharding.h"

typedef SHARD_VEC(shard_op *) op_vec;

static bool S_is(const shard_op *op, const char *name) { return strcmp(op->name, name) == 0; }
/* The op names the walks test against every op, compared by definition (ir.h). */
static shard_op_name K_func_call = {"func.call", NULL};
static shard_op_name K_func_func = {"func.func", NULL};
static shard_op_name K_sdy_named_computation = {"sdy.named_computation", NULL};

static uint32_t S_rank(const shard_type *t) { return t && t->kind == SHARD_TYPE_TENSOR ? t->rank : 0; }

/* Appends the ops named `name` under `op` in post-order (nested ones first). */
static void S_collect_post(shard_op *op, shard_op_name *name, op_vec *out) {
  for (uint32_t r = 0; r < op->num_regions; r++)
    for (shard_block *b = op->regions[r].first; b; b = b->next)
      for (shard_op *o = b->first; o; o = o->next) S_collect_post(o, name, out);
  if (shard_op_is(op, name)) SHARD_VEC_PUSH(*out, op);
}

/* ---- -sdy-export-named-computations ------------------------------------- */

/* The data-flow edge fed by `v` (its only user), or NULL. */
static shard_op *S_edge_user(const shard_value *v) {
  shard_operand *u = v->first_use;
  return u && S_is(u->owner, "sdy.data_flow_edge") ? u->owner : NULL;
}

/* Replaces the data-flow edge that `v` feeds, if any, by `v` itself. */
static void S_remove_edge(shard_value *v) {
  shard_op *edge = S_edge_user(v);
  if (!edge) return;
  shard_value_replace_all_uses(&edge->results[0], v);
  shard_op_erase(edge);
}

/* Shardy's getShardingsFromDataFlowEdges: when some owner's edge has a
 * sharding, a per-value attribute with every owner's edge sharding (fully
 * open on that mesh where an edge has none); NULL otherwise. */
static shard_attr *S_edge_shardings(shard_arena *a, shard_value *owners, uint32_t n) {
  const shard_tensor_sharding *first = NULL;
  for (uint32_t i = 0; i < n && !first; i++) {
    shard_op *edge = S_edge_user(&owners[i]);
    shard_attr *s = edge ? shard_op_attr(edge, "sharding") : NULL;
    if (s && s->kind == SHARD_ATTR_SDY_SHARDING) first = s->u.sharding;
  }
  if (!first) return NULL;
  shard_tensor_sharding *list = SHARD_NEW_ARRAY(a, shard_tensor_sharding, n);
  for (uint32_t i = 0; i < n; i++) {
    shard_op *edge = S_edge_user(&owners[i]);
    shard_attr *s = edge ? shard_op_attr(edge, "sharding") : NULL;
    if (s && s->kind == SHARD_ATTR_SDY_SHARDING) list[i] = *s->u.sharding;
    else list[i] = *shard_sharding_open(a, first->mesh_name, first->inline_mesh, S_rank(owners[i].type), true);
  }
  return shard_attr_per_value(a, list, n);
}

/* Builds the private func holding the computation's body (moved, with
 * sdy.return turned into func.return) and inserts it into the module. */
static const char *S_export_func(shard_symbol_table *t, shard_op *nc, const shard_attr *in) {
  shard_arena *a = t->m->arena;
  shard_region *body = &nc->regions[0];
  shard_block *entry = body->first;
  uint32_t nargs = entry ? entry->num_args : 0;
  shard_type **ins = nargs ? SHARD_NEW_ARRAY(a, shard_type *, nargs) : NULL;
  for (uint32_t i = 0; i < nargs; i++) ins[i] = entry->args[i].type;
  shard_type **outs = nc->num_results ? SHARD_NEW_ARRAY(a, shard_type *, nc->num_results) : NULL;
  for (uint32_t i = 0; i < nc->num_results; i++) outs[i] = nc->results[i].type;

  shard_op *func = shard_op_new_named(a, "func.func", 0, NULL, 0, NULL, 1);
  func->loc = nc->loc;
  func->span = nc->span;
  shard_attr *name = shard_op_attr(nc, "name");
  shard_op_set_attr(a, func, "sym_name", name, true);
  shard_attr *ft = shard_attr_new(a, SHARD_ATTR_TYPE);
  ft->u.type = shard_type_function(a, ins, nargs, outs, nc->num_results);
  shard_op_set_attr(a, func, "function_type", ft, true);
  shard_op_set_attr(a, func, "sym_visibility", shard_attr_string(a, "private", 7), true);
  shard_op_set_attr(a, func, "sdy.original_func_name", name, false);
  shard_attr *thread = shard_op_attr(nc, "execution_thread");
  if (thread) shard_op_set_attr(a, func, "execution_thread", thread, false);

  /* Move the blocks over. */
  shard_pass_move_body(a, body, &func->regions[0], "sdy.return", "func.return", false);
  for (uint32_t i = 0; i < nargs; i++) S_remove_edge(&entry->args[i]);
  if (in && in->kind == SHARD_ATTR_SDY_PER_VALUE)
    for (uint32_t i = 0; i < nargs && i < in->u.per_value->num; i++)
      shard_func_set_arg_sharding(a, func, i, &in->u.per_value->shardings[i]);
  return shard_symbol_table_insert(t, func);
}

static void S_export_named_computation(shard_symbol_table *t, shard_op *nc, op_vec *calls) {
  shard_arena *a = t->m->arena;
  shard_block *entry = nc->regions[0].first;
  shard_attr *in = entry ? S_edge_shardings(a, entry->args, entry->num_args) : NULL;
  if (in) shard_op_set_attr(a, nc, "in_shardings", in, true);
  in = shard_op_attr(nc, "in_shardings");
  shard_attr *out = S_edge_shardings(a, nc->results, nc->num_results);
  if (out) shard_op_set_attr(a, nc, "out_shardings", out, true);
  out = shard_op_attr(nc, "out_shardings");

  const char *callee = S_export_func(t, nc, in);

  shard_op *call = shard_pass_op_like(a, "func.call", nc, 0);
  shard_call_set_callee(a, call, callee);
  for (uint32_t i = 0; i < nc->num_attrs; i++)
    if (!nc->attrs[i].inherent && strcmp(nc->attrs[i].name, "execution_thread") != 0)
      shard_op_set_attr(a, call, nc->attrs[i].name, nc->attrs[i].value, false);
  if (out && out->kind == SHARD_ATTR_SDY_PER_VALUE) shard_op_set_attr(a, call, "sdy.sharding", out, false);
  shard_op_insert_before(nc, call);
  for (uint32_t i = 0; i < nc->num_results; i++) shard_value_replace_all_uses(&nc->results[i], &call->results[i]);
  shard_op_erase(nc);
  SHARD_VEC_PUSH(*calls, call);
}

bool shard_pass_export_named_computations(shard_module *m, const char *options, const shard_pass_context *cx) {
  op_vec ncs = {0}, calls = {0};
  S_collect_post(m->top, &K_sdy_named_computation, &ncs);
  shard_symbol_table t;
  shard_symbol_table_init(&t, m);
  for (uint32_t i = 0; i < ncs.len; i++) S_export_named_computation(&t, ncs.items[i], &calls);
  shard_symbol_table_release(&t);
  for (uint32_t i = 0; i < calls.len; i++)
    for (uint32_t r = 0; r < calls.items[i]->num_results; r++) S_remove_edge(&calls.items[i]->results[r]);
  SHARD_VEC_FREE(ncs);
  SHARD_VEC_FREE(calls);
  return true;
}

/* ---- func shardings as Shardy's getFuncArgShardings/getFuncResultShardings */

/* The shardings of a func's arguments (results with `results`): NULL unless
 * one is on a non-maximal mesh; otherwise one per argument, missing ones
 * fully open on that mesh. *n receives the count. */
static shard_tensor_sharding *S_func_shardings(const shard_module *m, const shard_op *func, bool results, uint32_t *n) {
  shard_attr *ft = shard_op_attr(func, "function_type");
  const shard_type *fty = ft && ft->kind == SHARD_ATTR_TYPE ? ft->u.type : NULL;
  if (!fty || fty->kind != SHARD_TYPE_FUNCTION) {
    *n = 0;
    return NULL;
  }
  *n = results ? fty->num_results : fty->num_inputs;
  shard_type **types = results ? fty->results : fty->inputs;
  const shard_tensor_sharding *first = NULL;
  for (uint32_t i = 0; i < *n && !first; i++) {
    const shard_tensor_sharding *s = results ? shard_func_result_sharding(func, i) : shard_func_arg_sharding(func, i);
    const shard_mesh *mesh = s ? shard_sharding_mesh(m, s) : NULL;
    if (s && !(mesh && shard_mesh_is_maximal(mesh))) first = s;
  }
  if (!first) return NULL;
  shard_tensor_sharding *list = SHARD_NEW_ARRAY(m->arena, shard_tensor_sharding, *n);
  for (uint32_t i = 0; i < *n; i++) {
    shard_tensor_sharding *s = results ? shard_func_result_sharding(func, i) : shard_func_arg_sharding(func, i);
    list[i] = s ? *s : *shard_sharding_open(m->arena, first->mesh_name, first->inline_mesh, S_rank(types[i]), true);
  }
  return list;
}

/* ---- -sdy-unflatten-call-graph -------------------------------------------- */

/* What makes two funcs interchangeable: Shardy's ComputationKey. */
typedef struct computation_key {
  const char *name;
  const shard_attr *manual_axes;
  bool with_shardings;
  shard_tensor_sharding *in, *out; /* NULL when the func has none */
  uint32_t num_in, num_out;
} computation_key;

static computation_key S_key(const shard_module *m, const shard_op *func, bool with_shardings) {
  computation_key k = {0};
  k.name = shard_func_original_name(func);
  k.manual_axes = shard_op_attr(func, "sdy.func_manual_axes");
  k.with_shardings = with_shardings;
  if (with_shardings) {
    k.in = S_func_shardings(m, func, false, &k.num_in);
    k.out = S_func_shardings(m, func, true, &k.num_out);
  }
  return k;
}

static bool S_shardings_equal(const shard_tensor_sharding *a, uint32_t na, const shard_tensor_sharding *b,
                              uint32_t nb) {
  if (!a || !b) return !a && !b;
  if (na != nb) return false;
  for (uint32_t i = 0; i < na; i++)
    if (!shard_sharding_equal(&a[i], &b[i])) return false;
  return true;
}

static bool S_key_equal(const computation_key *a, const computation_key *b) {
  if (strcmp(a->name ? a->name : "", b->name ? b->name : "") != 0) return false;
  if (!a->manual_axes != !b->manual_axes) return false;
  if (a->manual_axes && !shard_attr_equal(a->manual_axes, b->manual_axes)) return false;
  if (a->with_shardings != b->with_shardings) return false;
  return S_shardings_equal(a->in, a->num_in, b->in, b->num_in) &&
         S_shardings_equal(a->out, a->num_out, b->out, b->num_out);
}

typedef struct cache_entry {
  computation_key key;
  shard_op *func; /* func cache: the representative */
  int64_t count; /* call counts */
  uint32_t next; /* 1 + the index of the next entry of the same name, 0 for none */
} cache_entry;

/* The entries in insertion order; by name, 1 + the index of the first entry
 * of each name (only entries of one name can have equal keys). */
typedef struct cache {
  SHARD_VEC(cache_entry) entries;
  shard_strmap by_name;
} cache;

static const char *S_key_name(const computation_key *k) { return k->name ? k->name : ""; }

static cache_entry *S_cache_find(cache *c, const computation_key *k) {
  uintptr_t i = (uintptr_t)shard_strmap_get_cstr(&c->by_name, S_key_name(k));
  for (; i; i = c->entries.items[i - 1].next)
    if (S_key_equal(&c->entries.items[i - 1].key, k)) return &c->entries.items[i - 1];
  return NULL;
}

/* The entry for `k`, added (with a NULL func and zero count) when absent. */
static cache_entry *S_cache_get(cache *c, const computation_key *k) {
  cache_entry *e = S_cache_find(c, k);
  if (e) return e;
  cache_entry fresh = {*k, NULL, 0, 0};
  SHARD_VEC_PUSH(c->entries, fresh);
  uint32_t idx = c->entries.len; /* 1 + its index */
  void **slot = shard_strmap_slot(&c->by_name, S_key_name(k), strlen(S_key_name(k)));
  if (!*slot) {
    *slot = (void *)(uintptr_t)idx;
  } else {
    uintptr_t i = (uintptr_t)*slot;
    while (c->entries.items[i - 1].next) i = c->entries.items[i - 1].next;
    c->entries.items[i - 1].next = idx;
  }
  return &c->entries.items[idx - 1];
}

static void S_cache_release(cache *c) {
  SHARD_VEC_FREE(c->entries);
  shard_strmap_release(&c->by_name);
}

static bool S_collect_call(shard_op *op, void *ctx) {
  if (shard_op_is(op, &K_func_call)) SHARD_VEC_PUSH(*(op_vec *)ctx, op);
  return true;
}

bool shard_pass_unflatten_call_graph(shard_module *m, const char *options, const shard_pass_context *cx) {
  bool fully = false;
  shard_pass_option_bool(options, "dedup-functions-fully", &fully);

  op_vec calls = {0};
  shard_walk(m->top, S_collect_call, &calls);
  cache funcs = {0}, counts = {0};
  for (uint32_t i = 0; i < calls.len; i++) {
    shard_op *func = shard_call_callee_func(m, calls.items[i]);
    if (!func) continue;
    computation_key k = S_key(m, func, !fully);
    cache_entry *e = S_cache_get(&funcs, &k);
    if (!e->func) e->func = func;
  }
  if (fully) {
    /* The representative of each origin is the sharding variant called most
     * often (the first one seen on ties). */
    for (uint32_t i = 0; i < calls.len; i++) {
      shard_op *func = shard_call_callee_func(m, calls.items[i]);
      if (!func) continue;
      computation_key k = S_key(m, func, false);
      computation_key full = S_key(m, func, true);
      int64_t count = ++S_cache_get(&counts, &full)->count;
      cache_entry *e = S_cache_find(&funcs, &k);
      computation_key cached_full = S_key(m, e->func, true);
      if (count > S_cache_get(&counts, &cached_full)->count) e->func = func;
    }
  }
  for (uint32_t i = 0; i < calls.len; i++) {
    shard_op *func = shard_call_callee_func(m, calls.items[i]);
    if (!func) continue;
    computation_key k = S_key(m, func, !fully);
    cache_entry *e = S_cache_find(&funcs, &k);
    shard_call_set_callee(m->arena, calls.items[i], shard_symbol_name(e->func));
  }
  op_vec all = {0};
  S_collect_post(m->top, &K_func_func, &all);
  for (uint32_t i = 0; i < all.len; i++) {
    shard_op_remove_attr(all.items[i], "sdy.original_func_name");
    shard_op_remove_attr(all.items[i], "sdy.func_manual_axes");
  }
  SHARD_VEC_FREE(all);
  SHARD_VEC_FREE(calls);
  S_cache_release(&funcs);
  S_cache_release(&counts);
  return true;
}

/* ---- -sdy-propagate-to-func-results ---------------------------------------- */

bool shard_pass_propagate_to_func_results(shard_module *m, const char *options, const shard_pass_context *cx) {
  shard_op *main_func = shard_module_main_func(m);
  shard_block *body = m->top->num_regions ? m->top->regions[0].first : NULL;
  for (shard_op *func = body ? body->first : NULL; func; func = func->next) {
    if (!S_is(func, "func.func") || func == main_func || !func->num_regions) continue;
    shard_block *entry = func->regions[0].first;
    shard_op *ret = entry ? entry->last : NULL;
    if (!ret || !S_is(ret, "func.return")) continue;
    for (uint32_t i = 0; i < ret->num_operands; i++)
      shard_func_set_result_sharding(m->arena, func, i,
                                     shard_propagation_value_sharding(m->arena, ret->operands[i].value));
  }
  return true;
}

/* ---- -sdy-insert-func-call-reshards ---------------------------------------- */

static shard_tensor_sharding *S_closed_like(shard_arena *a, const shard_tensor_sharding *s) {
  return shard_sharding_open(a, s->mesh_name, s->inline_mesh, s->rank, false);
}

static void S_insert_call_reshards(shard_module *m, shard_op *call) {
  shard_arena *a = m->arena;
  shard_op *func = shard_call_callee_func(m, call);
  if (!func) return;
  uint32_t n;
  shard_tensor_sharding *want = S_func_shardings(m, func, true, &n);
  shard_attr *have = shard_op_attr(call, "sdy.sharding");
  const shard_sharding_per_value *pv = have && have->kind == SHARD_ATTR_SDY_PER_VALUE ? have->u.per_value : NULL;
  if (!want) {
    if (!pv) return;
    n = pv->num;
    want = SHARD_NEW_ARRAY(a, shard_tensor_sharding, n);
    for (uint32_t i = 0; i < n; i++) want[i] = *S_closed_like(a, &pv->shardings[i]);
  }
  for (uint32_t i = 0; i < call->num_results && i < n; i++) {
    shard_tensor_sharding *cur = pv && i < pv->num ? &pv->shardings[i] : NULL;
    if (shard_reshard_equivalent(&want[i], cur)) continue;
    shard_value *result = &call->results[i];
    shard_op *reshard = shard_op_new_named(a, "sdy.reshard", 1, &result, 1, &result->type, 0);
    reshard->loc = call->loc;
    reshard->span = call->span;
    shard_op_set_attr(a, reshard, "sharding", shard_attr_sharding(a, cur ? cur : S_closed_like(a, &want[i])), true);
    /* Every use but the reshard's own reads the resharded value. */
    shard_value_replace_all_uses(result, &reshard->results[0]);
    shard_operand_set(&reshard->operands[0], result);
    shard_op_insert_after(call, reshard);
  }
  shard_op_set_attr(a, call, "sdy.sharding", shard_attr_per_value(a, want, n), false);
}

bool shard_pass_insert_func_call_reshards(shard_module *m, const char *options, const shard_pass_context *cx) {
  op_vec calls = {0};
  shard_walk(m->top, S_collect_call, &calls);
  for (uint32_t i = 0; i < calls.len; i++) S_insert_call_reshards(m, calls.items[i]);
  SHARD_VEC_FREE(calls);
  return true;
}
