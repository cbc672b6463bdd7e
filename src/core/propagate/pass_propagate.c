/* The propagation passes, nested the way Shardy nests them (each level runs
 * the one below it several times):
 *
 *   -sdy-user-priority-propagate: once with every dim of priority > 0 closed
 *     and its axes replicated, then once per priority p ascending with the
 *     dims of priority p restored;
 *   -sdy-op-priority-propagate: five runs, each allowing more ops/factors to
 *     propagate (pass-through ops with single-use operands first, ...);
 *   -sdy-aggressive-propagate: the worklist driver with the aggressive
 *     factor strategy (or basic, or basic then aggressive);
 *   -sdy-basic-propagate: the worklist driver with the basic strategy.
 *
 * Options follow sdy_opt: keep-sharding-rules, conservative-propagation,
 * propagation-strategy, run-op-priority-propagation, and the debug options
 * debug-sharding-origins / debug-propagation-edge-sharding, which record
 * where each axis came from (debug_origins.h). */
#include <stdlib.h>
#include <string.h>

#include "propagate/debug_origins.h"
#include "pass/pass.h"
#include "pass/pass_shardings.h"
#include "propagate/propagate.h"

typedef enum prop_level { LEVEL_BASIC, LEVEL_AGGRESSIVE, LEVEL_OP_PRIORITY, LEVEL_USER_PRIORITY } prop_level;

typedef enum strategy_choice { CHOICE_BASIC, CHOICE_AGGRESSIVE, CHOICE_BASIC_THEN_AGGRESSIVE } strategy_choice;

typedef struct prop_options {
  bool keep_rules;
  bool conservative;
  strategy_choice strategy;
  bool run_op_priority;
  bool debug_origins, debug_edges;
} prop_options;

/* ---- op priorities ---------------------------------------------------------------- */

/* The op names this file tests, compared by definition (ir.h). */
static shard_op_name K_func_func = {"func.func", NULL};
static shard_op_name K_sdy_data_flow_edge = {"sdy.data_flow_edge", NULL};
static shard_op_name K_sdy_func_data_flow_edge = {"sdy.func_data_flow_edge", NULL};
static shard_op_name K_sdy_propagation_barrier = {"sdy.propagation_barrier", NULL};
static shard_op_name K_stablehlo_broadcast_in_dim = {"stablehlo.broadcast_in_dim", NULL};
static shard_op_name K_stablehlo_custom_call = {"stablehlo.custom_call", NULL};
static shard_op_name K_stablehlo_dynamic_slice = {"stablehlo.dynamic_slice", NULL};
static shard_op_name K_stablehlo_dynamic_update_slice = {"stablehlo.dynamic_update_slice", NULL};
static shard_op_name K_stablehlo_reshape = {"stablehlo.reshape", NULL};
static shard_op_name K_stablehlo_transpose = {"stablehlo.transpose", NULL};

static bool S_is_scalar(const shard_value *v) {
  return v->type && v->type->kind == SHARD_TYPE_TENSOR && v->type->rank == 0;
}

/* NONE when some non-scalar operand has several uses (propagating forward
 * would conflict at each use, backward with the other uses). */
static shard_direction S_by_uses(const shard_op *op, bool allow_multi_use) {
  if (allow_multi_use) return SHARD_DIR_BOTH;
  for (uint32_t i = 0; i < op->num_operands; i++) {
    const shard_value *v = op->operands[i].value;
    /* one use, tested without counting them: a weight may have thousands */
    bool single_use = v->first_use && !v->first_use->next_use;
    if (!single_use && !S_is_scalar(v)) return SHARD_DIR_NONE;
  }
  return SHARD_DIR_BOTH;
}

static bool S_is_offload(const shard_op *op) {
  if (!shard_op_is(op, &K_stablehlo_custom_call)) return false;
  shard_attr *t = shard_op_attr(op, "call_target_name");
  if (!t || t->kind != SHARD_ATTR_STRING) return false;
  return (t->u.str.len == 12 && memcmp(t->u.str.data, "MoveToDevice", 12) == 0) ||
         (t->u.str.len == 10 && memcmp(t->u.str.data, "MoveToHost", 10) == 0);
}

static shard_direction S_pass_through(const shard_op *op, bool allow_multi_use) {
  if (shard_propagation_op_is_elementwise(op) || S_is_offload(op) || shard_op_is(op, &K_stablehlo_reshape) ||
      shard_op_is(op, &K_stablehlo_transpose) || shard_op_is(op, &K_sdy_data_flow_edge) ||
      shard_op_is(op, &K_sdy_func_data_flow_edge))
    return S_by_uses(op, allow_multi_use);
  if (shard_op_is(op, &K_stablehlo_dynamic_slice) || shard_op_is(op, &K_stablehlo_dynamic_update_slice))
    return shard_direction_intersect(S_by_uses(op, allow_multi_use), SHARD_DIR_FORWARD);
  return SHARD_DIR_NONE;
}

static bool S_in(const int64_t *list, uint32_t n, int64_t f) {
  for (uint32_t i = 0; i < n; i++)
    if (list[i] == f) return true;
  return false;
}

/* The rule step 2 reads for op: none for the ops propagating with identity
 * rules (Shardy reads the rule attached to the op here and never asks the
 * registry about those). */
static const shard_op_sharding_rule *S_pass_through_rule(shard_propagation *s, const shard_op *op) {
  bool identity = shard_op_is(op, &K_sdy_propagation_barrier) || shard_op_is(op, &K_sdy_data_flow_edge) ||
                  shard_op_is(op, &K_sdy_func_data_flow_edge);
  return identity ? NULL : shard_propagation_rule(s, op);
}

/* Ops without a rule (data-flow edges) count as identity: all pass-through. */
static shard_direction S_pass_through_factors(const shard_op_sharding_rule *r, bool broadcast, int64_t f) {
  if (r && (S_in(r->reduction, r->num_reduction, f) || S_in(r->need_replication, r->num_need_replication, f) ||
            S_in(r->permutation, r->num_permutation, f)))
    return SHARD_DIR_NONE;
  if (broadcast) return SHARD_DIR_BACKWARD;
  return SHARD_DIR_BOTH;
}

/* Steps other than 2, which depends on the factor (S_pass_through_factors). */
static shard_direction S_schedule_step(int step, const shard_op *op) {
  switch (step) {
  case 0: return S_pass_through(op, false);
  case 1: return S_pass_through(op, true);
  case 3: return shard_op_is(op, &K_stablehlo_broadcast_in_dim) ? SHARD_DIR_BACKWARD : SHARD_DIR_BOTH;
  default: return SHARD_DIR_BOTH;
  }
}

#define NUM_OP_PRIORITY_STEPS 5

typedef struct op_priority_ctx {
  int step;
  /* The factor-independent steps (all but 2) of the last op asked about: the
   * factor strategies ask once per factor of the same op, and what an op's
   * kind and use counts allow does not change while propagating. */
  const shard_op *cached_op;
  shard_direction cached;
  /* Step 2's per-op inputs for cached_op (read once, not per factor). */
  const shard_op_sharding_rule *cached_rule;
  bool cached_broadcast;
} op_priority_ctx;

static shard_direction S_op_priority_direction(void *ctx, shard_propagation *s, const shard_op *op, int64_t factor) {
  op_priority_ctx *c = ctx;
  /* Direction union is set union of {forward, backward}, so the steps may be
   * combined in any order and BOTH ends the search. */
  if (c->step >= NUM_OP_PRIORITY_STEPS - 1) return SHARD_DIR_BOTH;
  if (c->cached_op != op) {
    /* Latest step first, as BOTH ends the search (step 3 allows nearly every
     * op); step 1 allows all that step 0 does (it only drops the single-use
     * condition), so step 0 counts only alone. */
    shard_direction d = SHARD_DIR_NONE;
    for (int i = c->step; i >= (c->step >= 1 ? 1 : 0) && d != SHARD_DIR_BOTH; i--)
      if (i != 2) d = shard_direction_union(d, S_schedule_step(i, op));
    c->cached_op = op;
    c->cached = d;
    if (c->step >= 2 && d != SHARD_DIR_BOTH) {
      c->cached_rule = S_pass_through_rule(s, op);
      c->cached_broadcast = shard_op_is(op, &K_stablehlo_broadcast_in_dim);
    }
  }
  if (c->step < 2 || c->cached == SHARD_DIR_BOTH) return c->cached;
  return shard_direction_union(c->cached, S_pass_through_factors(c->cached_rule, c->cached_broadcast, factor));
}

/* ---- levels ------------------------------------------------------------------------ */

static void S_run_aggressive(shard_propagation *s, const prop_options *o, shard_op_direction_fn dir, void *ctx) {
  if (o->strategy != CHOICE_AGGRESSIVE) shard_propagation_run(s, SHARD_FACTOR_BASIC, dir, ctx);
  if (o->strategy != CHOICE_BASIC) shard_propagation_run(s, SHARD_FACTOR_AGGRESSIVE, dir, ctx);
}

static void S_run_op_priority(shard_propagation *s, const prop_options *o) {
  if (!o->run_op_priority) {
    S_run_aggressive(s, o, NULL, NULL);
    return;
  }
  for (int step = 0; step < NUM_OP_PRIORITY_STEPS; step++) {
    op_priority_ctx c = {step, NULL, SHARD_DIR_NONE, NULL, false};
    S_run_aggressive(s, o, S_op_priority_direction, &c);
  }
}

/* ---- user priorities ------------------------------------------------------------------- */

/* A sharding that user priorities touch: where it lives and what it was. */
typedef struct priority_ref {
  shard_value *value; /* NULL for a func result */
  shard_op *func;
  uint32_t result;
  shard_tensor_sharding *original;
} priority_ref;

typedef SHARD_VEC(priority_ref) priority_ref_vec;

static bool S_has_priority(const shard_tensor_sharding *t) {
  for (uint32_t d = 0; d < t->rank; d++)
    if (t->dims[d].priority > 0) return true;
  return false;
}

static int S_cmp_axis_mesh(const void *pa, const void *pb, const shard_mesh *m) {
  return shard_axis_compare(pa, pb, m);
}

/* Dims with priority > 0 become empty and closed, their axes replicated;
 * explicit priority 0 is dropped. */
static shard_tensor_sharding *S_initial_sharding(shard_module *m, const shard_tensor_sharding *t) {
  shard_arena *a = m->arena;
  shard_tensor_sharding *c = shard_sharding_clone(a, t);
  c->dims = t->rank ? SHARD_NEW_ARRAY(a, shard_dim_sharding, t->rank) : NULL;
  uint32_t extra = 0;
  for (uint32_t d = 0; d < t->rank; d++)
    if (t->dims[d].priority > 0) extra += t->dims[d].num_axes;
  uint32_t nrep = t->num_replicated + extra;
  shard_axis_ref *rep = nrep ? SHARD_NEW_ARRAY(a, shard_axis_ref, nrep) : NULL;
  if (t->num_replicated) memcpy(rep, t->replicated, sizeof(shard_axis_ref) * t->num_replicated);
  uint32_t k = t->num_replicated;
  for (uint32_t d = 0; d < t->rank; d++) {
    c->dims[d] = t->dims[d];
    if (t->dims[d].priority > 0) {
      /* An empty prioritized dim may leave rep NULL: no memcpy on NULL. */
      if (t->dims[d].num_axes) memcpy(rep + k, t->dims[d].axes, sizeof(shard_axis_ref) * t->dims[d].num_axes);
      k += t->dims[d].num_axes;
      c->dims[d].axes = NULL;
      c->dims[d].num_axes = 0;
      c->dims[d].is_open = false;
    }
    c->dims[d].priority = SHARD_NO_PRIORITY;
  }
  const shard_mesh *mesh = shard_module_sharding_mesh(m, t);
  /* Insertion sort by the mesh order: lists are short. */
  for (uint32_t i = 1; i < nrep; i++)
    for (uint32_t j = i; j > 0 && S_cmp_axis_mesh(&rep[j - 1], &rep[j], mesh) > 0; j--) {
      shard_axis_ref tmp = rep[j];
      rep[j] = rep[j - 1];
      rep[j - 1] = tmp;
    }
  c->replicated = rep;
  c->num_replicated = nrep;
  return c;
}

/* Restores the dims whose original priority is p and un-replicates their axes. */
static shard_tensor_sharding *S_restore_priority(shard_arena *a, const shard_tensor_sharding *cur,
                                                 const shard_tensor_sharding *orig, int64_t p) {
  shard_tensor_sharding *c = shard_sharding_clone(a, cur);
  c->dims = cur->rank ? SHARD_NEW_ARRAY(a, shard_dim_sharding, cur->rank) : NULL;
  for (uint32_t d = 0; d < cur->rank; d++) {
    c->dims[d] = cur->dims[d];
    if (d < orig->rank && orig->dims[d].priority == p) {
      c->dims[d] = orig->dims[d];
      c->dims[d].priority = SHARD_NO_PRIORITY;
    }
  }
  shard_axis_ref *rep = cur->num_replicated ? SHARD_NEW_ARRAY(a, shard_axis_ref, cur->num_replicated) : NULL;
  uint32_t n = 0;
  for (uint32_t i = 0; i < cur->num_replicated; i++) {
    bool restored = false;
    for (uint32_t d = 0; d < orig->rank && !restored; d++) {
      if (orig->dims[d].priority != p) continue;
      for (uint32_t k = 0; k < orig->dims[d].num_axes; k++)
        if (shard_axis_equal(&orig->dims[d].axes[k], &cur->replicated[i])) restored = true;
    }
    if (!restored) rep[n++] = cur->replicated[i];
  }
  c->replicated = rep;
  c->num_replicated = n;
  return c;
}

typedef struct init_walk {
  shard_module *m;
  priority_ref_vec refs;
} init_walk;

/* t is the current sharding of v, or of result `result` of func (v NULL). */
static void S_init_one(init_walk *w, shard_value *v, shard_op *func, uint32_t result, shard_tensor_sharding *t) {
  shard_arena *a = w->m->arena;
  if (!t) return;
  if (S_has_priority(t)) {
    priority_ref r = {v, func, result, t};
    SHARD_VEC_PUSH(w->refs, r);
  }
  /* Without any priority and with at most one replicated axis (nothing to
   * sort) the initial sharding is t itself: no copy to build and drop. */
  bool any_priority = false;
  for (uint32_t d = 0; d < t->rank; d++) any_priority |= t->dims[d].priority != SHARD_NO_PRIORITY;
  if (!any_priority && t->num_replicated <= 1) return;
  shard_tensor_sharding *init = S_initial_sharding(w->m, t);
  if (shard_sharding_equal(init, t)) return;
  if (v) shard_propagation_set_value_sharding(a, v, init);
  else shard_func_set_result_sharding(a, func, result, init);
}

static bool S_init_op(shard_op *op, void *ctx) {
  init_walk *w = ctx;
  if (shard_op_is(op, &K_func_func)) {
    shard_block *entry = op->num_regions ? op->regions[0].first : NULL;
    for (uint32_t i = 0; entry && i < entry->num_args; i++)
      S_init_one(w, &entry->args[i], NULL, 0, shard_propagation_value_sharding(w->m->arena, &entry->args[i]));
    uint32_t nres = shard_func_num_results(op);
    for (uint32_t i = 0; i < nres; i++) S_init_one(w, NULL, op, i, shard_func_result_sharding(op, i));
    return true;
  }
  /* A result's sharding lives in an attribute of its op (or on a data-flow
   * edge, seen there): an op without attributes (most) has none. */
  if (!op->num_attrs) return true;
  for (uint32_t i = 0; i < op->num_results; i++) {
    shard_value *v = &op->results[i];
    /* Results whose sharding lives on a data-flow edge are seen at the edge. */
    if (shard_propagation_value_has_edge(v) || !v->def) continue;
    S_init_one(w, v, NULL, 0, shard_propagation_value_sharding(w->m->arena, v));
  }
  return true;
}

static int S_cmp_int64(const void *pa, const void *pb) {
  int64_t a = *(const int64_t *)pa, b = *(const int64_t *)pb;
  return a < b ? -1 : a > b;
}

static void S_run_user_priority(shard_propagation *s, const prop_options *o) {
  shard_module *m = shard_propagation_module(s);
  init_walk w = {m, {0}};
  shard_walk(m->top, S_init_op, &w);
  S_run_op_priority(s, o);
  /* Distinct priorities > 0, ascending. */
  SHARD_VEC(int64_t) prios = {0};
  for (uint32_t i = 0; i < w.refs.len; i++) {
    const shard_tensor_sharding *t = w.refs.items[i].original;
    for (uint32_t d = 0; d < t->rank; d++) {
      int64_t p = t->dims[d].priority;
      if (p <= 0) continue;
      bool seen = false;
      for (uint32_t k = 0; k < prios.len; k++) seen |= prios.items[k] == p;
      if (!seen) SHARD_VEC_PUSH(prios, p);
    }
  }
  if (prios.len) qsort(prios.items, prios.len, sizeof *prios.items, S_cmp_int64);
  for (uint32_t k = 0; k < prios.len; k++) {
    int64_t p = prios.items[k];
    for (uint32_t i = 0; i < w.refs.len; i++) {
      priority_ref *r = &w.refs.items[i];
      bool has = false;
      for (uint32_t d = 0; d < r->original->rank; d++) has |= r->original->dims[d].priority == p;
      if (!has) continue;
      shard_tensor_sharding *cur = r->value ? shard_propagation_value_sharding(m->arena, r->value)
                                            : shard_func_result_sharding(r->func, r->result);
      if (!cur) continue;
      shard_tensor_sharding *next = S_restore_priority(m->arena, cur, r->original, p);
      if (r->value) shard_propagation_set_value_sharding(m->arena, r->value, next);
      else shard_func_set_result_sharding(m->arena, r->func, r->result, next);
    }
    shard_propagation_note_changes(s);
    S_run_op_priority(s, o);
  }
  SHARD_VEC_FREE(prios);
  SHARD_VEC_FREE(w.refs);
}

/* ---- passes -------------------------------------------------------------------------- */

static bool S_parse_options(const char *pass, const char *options, prop_level level, prop_options *o,
                            shard_diag_engine *de) {
  o->keep_rules = false;
  o->conservative = false;
  o->strategy = level == LEVEL_BASIC ? CHOICE_BASIC : CHOICE_AGGRESSIVE;
  o->run_op_priority = true;
  o->debug_origins = o->debug_edges = false;
  shard_pass_option_bool(options, "debug-sharding-origins", &o->debug_origins);
  shard_pass_option_bool(options, "debug-propagation-edge-sharding", &o->debug_edges);
  shard_pass_option_bool(options, "keep-sharding-rules", &o->keep_rules);
  shard_pass_option_bool(options, "conservative-propagation", &o->conservative);
  shard_pass_option_bool(options, "run-op-priority-propagation", &o->run_op_priority);
  char *strategy = level == LEVEL_BASIC ? NULL : shard_pass_option_string(options, "propagation-strategy");
  if (strategy) {
    if (strcmp(strategy, "basic") == 0) o->strategy = CHOICE_BASIC;
    else if (strcmp(strategy, "aggressive") == 0) o->strategy = CHOICE_AGGRESSIVE;
    else if (strcmp(strategy, "basic-then-aggressive") == 0) o->strategy = CHOICE_BASIC_THEN_AGGRESSIVE;
    else {
      shard_error(de, shard_no_span, "invalid value '%s' for option 'propagation-strategy' of pass '%s'", strategy,
                  pass);
      free(strategy);
      return false;
    }
    free(strategy);
  }
  return true;
}

static bool S_propagate(shard_module *m, const char *pass, const char *options, prop_level level,
                        const shard_pass_context *cx) {
  shard_diag_engine *de = cx->de;
  prop_options o;
  if (!S_parse_options(pass, options, level, &o, de)) return false;
  /* Origins are those of the shardings as written, before groups align. */
  shard_debug_origins *debug = shard_debug_origins_begin(m, o.debug_origins, o.debug_edges, cx->rules);
  shard_propagation *s = shard_propagation_begin(m, o.conservative, cx->rules, de);
  if (!s) {
    shard_debug_origins_end(debug);
    return false;
  }
  /* Debug origins observe the session themselves (they record edges); the
   * caller's observer sees it otherwise. */
  if (debug) {
    shard_propagation_observer observer = shard_debug_origins_observer(debug);
    shard_propagation_set_observer(s, &observer);
  } else {
    shard_propagation_set_observer(s, cx->observer);
  }
  switch (level) {
  case LEVEL_BASIC:
  case LEVEL_AGGRESSIVE: S_run_aggressive(s, &o, NULL, NULL); break;
  case LEVEL_OP_PRIORITY: S_run_op_priority(s, &o); break;
  case LEVEL_USER_PRIORITY: S_run_user_priority(s, &o); break;
  }
  shard_propagation_end(s, o.keep_rules);
  shard_debug_origins_end(debug);
  return true;
}

bool shard_pass_basic_propagate(shard_module *m, const char *options, const shard_pass_context *cx) {
  return S_propagate(m, "sdy-basic-propagate", options, LEVEL_BASIC, cx);
}

bool shard_pass_aggressive_propagate(shard_module *m, const char *options, const shard_pass_context *cx) {
  return S_propagate(m, "sdy-aggressive-propagate", options, LEVEL_AGGRESSIVE, cx);
}

bool shard_pass_op_priority_propagate(shard_module *m, const char *options, const shard_pass_context *cx) {
  return S_propagate(m, "sdy-op-priority-propagate", options, LEVEL_OP_PRIORITY, cx);
}

bool shard_pass_user_priority_propagate(shard_module *m, const char *options, const shard_pass_context *cx) {
  return S_propagate(m, "sdy-user-priority-propagate", options, LEVEL_USER_PRIORITY, cx);
}
