/* The sharding propagation driver (see propagate.h), after Shardy's
 * basic_propagation.cc.
 *
 * A run mirrors MLIR's greedy rewrite driver in top-down mode, since the
 * order of visits decides conflicts: the worklist starts with every op in
 * pre-order and is popped from the back; an op already queued is not moved.
 * Visiting an op projects the shardings of its operands and results onto
 * the factors of its rule, propagates along factors (factor_propagation.h)
 * and projects back. Each value whose sharding changed re-queues its
 * defining op (or the op owning the block argument), its users and, through
 * terminators, data-flow edges and calls, whoever reads it next; queuing an
 * op also queues its ancestors up to the function, as MLIR does.
 *
 * Beside ops with rules, three kinds of "ops" propagate with an identity
 * rule: sdy.propagation_barrier (only in its allowed direction),
 * sdy.data_flow_edge (between all sources of a data-flow edge and its
 * targets) and the main function's results (between the returned values and
 * the result attributes, before and after the worklist). Ops whose shardings
 * use different meshes, or a maximal mesh, don't propagate. */
#include "propagate/propagate.h"

#include <stdlib.h>
#include <string.h>

#include "ir/opdef.h"
#include "pass/pass_shardings.h"
#include "propagate/projection.h"
#include "ir/op_table.h"
#include "support/ptrmap.h"
#include "rules/rule_registry.h"

/* ---- session ------------------------------------------------------------------- */

/* The last visit of an op that changed nothing: the shardings it saw, the
 * direction of each factor and the strategy. Shardings are replaced, never
 * edited, and nothing is freed during a session, so seeing the same
 * pointers and directions again means the visit would change nothing again
 * (the op-priority steps re-run the whole module five times). Made at the
 * first visit that reads shardings (in the session's memo arena): most ops
 * of the first op-priority steps never do. */
typedef struct visit_memo {
  const shard_tensor_sharding **seen;
  shard_direction *seen_dirs;
  shard_factor_strategy seen_strategy;
  bool seen_valid;
  /* shard_propagation.changes when the memo was last found valid: while it
   * is the same, no sharding in the module changed since, so the visit
   * would see what it saw then without reading a sharding */
  uint64_t seen_changes;
} visit_memo;

/* What a session keeps for every op, by its dense id (the op itself is
 * s->index.ops[id]): kept small, since a module has as many as it has ops
 * and every run visits them all. */
typedef struct op_info {
  shard_op_sharding_rule *rule;
  visit_memo *memo; /* NULL until needed */
  bool rule_done; /* rule looked up (it may be NULL) */
  bool rule_created; /* created by the registry, not read from the op */
  bool queued;
} op_info;

typedef struct group_member {
  shard_value *value;
  int64_t group;
} group_member;

typedef SHARD_VEC(shard_op *) op_vec;

/* The calls of one func.func: shard_propagation.calls[first, first + num). */
typedef struct call_range {
  uint32_t first, num;
} call_range;

/* What the last unchanged sync of a returned value with its func result saw. */
typedef struct result_memo {
  const shard_tensor_sharding *value, *result;
  shard_factor_strategy strategy;
  bool valid;
} result_memo;

struct shard_propagation {
  shard_module *m;
  shard_arena *a;
  shard_diag_engine *de;
  bool conservative;
  shard_op_table index; /* op -> its dense id, built once per session */
  op_info *ops; /* by id */
  shard_op **calls; /* func.call ops grouped by callee */
  call_range *call_ranges; /* each callee's calls */
  shard_ptrmap callers; /* func.func -> 1 + its index in call_ranges */
  shard_arena *memo; /* visit memos */
  shard_rule_cache *rules; /* rules created for this session, shared by equal ops */
  const shard_rule_provider *extra_rules; /* for ops the registry does not know; NULL: none */
  shard_arena *scratch; /* a visit's projection, reset after each; NULL while in use */
  shard_arena *rule_scratch; /* an identity rule's visit, reset after each; NULL while in use */
  /* While S_propagate_func_results runs without an observer: the new
   * sharding of each func result (NULL: unchanged), set all at once after
   * (setting them one by one rebuilds the result list each time). */
  shard_tensor_sharding **pending_results;
  uint32_t num_pending_results;
  /* Per returned value of the main func: what its last unchanged sync with
   * the func result saw (the visit memo of op_info, for func results). */
  result_memo *result_memo;
  const shard_op *result_memo_func;
  uint32_t num_result_memo;
  /* meshes by symbol: propagation adds no meshes */
  shard_mesh_memo meshes;
  /* sharding groups: members sorted by value pointer for lookup */
  group_member *members;
  group_member *by_group; /* the same, sorted by group then value */
  uint32_t num_members;
  /* Bumped by every sharding the session writes (and by
   * shard_propagation_note_changes for those written outside a run): visit
   * memos compare it before reading any sharding (visit_memo). */
  uint64_t changes;
  /* The per-value attribute last made for a list of one sharding, and that
   * sharding (S_set_per_value_at). */
  const shard_tensor_sharding *one_list_sharding;
  shard_attr *one_list_attr;
  /* the current run */
  SHARD_VEC(uint32_t) worklist; /* op ids */
  shard_op *current;
  shard_factor_strategy strategy;
  shard_op_direction_fn direction;
  void *direction_ctx;
  bool notify; /* off while propagating func results outside the worklist */
  shard_propagation_observer observer; /* on_step NULL when none */
  /* Values one notification already went through: returns lead to call
   * results and call operands to callee arguments, which can lead back to
   * the same value (f(f(x)) without func data-flow edges). */
  SHARD_VEC(shard_value *) notified;
};

/* The op names this file tests, compared by definition (ir.h). */
static shard_op_name K_func_call = {"func.call", NULL};
static shard_op_name K_func_func = {"func.func", NULL};
static shard_op_name K_func_return = {"func.return", NULL};
static shard_op_name K_sdy_data_flow_edge = {"sdy.data_flow_edge", NULL};
static shard_op_name K_sdy_func_data_flow_edge = {"sdy.func_data_flow_edge", NULL};
static shard_op_name K_sdy_manual_computation = {"sdy.manual_computation", NULL};
static shard_op_name K_sdy_named_computation = {"sdy.named_computation", NULL};
static shard_op_name K_sdy_propagation_barrier = {"sdy.propagation_barrier", NULL};
static shard_op_name K_sdy_reshard = {"sdy.reshard", NULL};
static shard_op_name K_sdy_sharding_constraint = {"sdy.sharding_constraint", NULL};
static shard_op_name K_sdy_sharding_group = {"sdy.sharding_group", NULL};
static shard_op_name K_stablehlo_bitcast_convert = {"stablehlo.bitcast_convert", NULL};
static shard_op_name K_stablehlo_case = {"stablehlo.case", NULL};
static shard_op_name K_stablehlo_custom_call = {"stablehlo.custom_call", NULL};
static shard_op_name K_stablehlo_optimization_barrier = {"stablehlo.optimization_barrier", NULL};
static shard_op_name K_stablehlo_while = {"stablehlo.while", NULL};

/* Every op of a known name carries its definition, so an op without the SDY
 * trait is none of the sdy ops: testing it first spares the stablehlo ops
 * that make up most modules the name comparisons in the hot paths. */
static bool S_is_sdy(const shard_op *op) { return op->def && (op->def->traits & SHARD_TRAIT_SDY); }

static bool S_is_terminator(const shard_op *op) { return op->def && (op->def->traits & SHARD_TRAIT_TERMINATOR); }

shard_module *shard_propagation_module(const shard_propagation *s) { return s->m; }

void shard_propagation_note_changes(shard_propagation *s) { s->changes++; }

void shard_propagation_set_observer(shard_propagation *s, const shard_propagation_observer *o) {
  if (o) s->observer = *o;
  else memset(&s->observer, 0, sizeof s->observer);
}

static op_info *S_info(shard_propagation *s, const shard_op *op) {
  uint32_t id;
  return shard_op_table_find(&s->index, op, &id) ? &s->ops[id] : NULL;
}

/* ---- data-flow ops ------------------------------------------------------------------ */

typedef enum df_kind { DF_NONE, DF_WHILE, DF_CASE, DF_OPT_BARRIER, DF_NAMED, DF_MANUAL } df_kind;

static df_kind S_df_kind(const shard_op *op) {
  if (!op) return DF_NONE;
  /* hot: every op asks; only optimization_barrier has no region */
  if (!op->num_regions) return shard_op_is(op, &K_stablehlo_optimization_barrier) ? DF_OPT_BARRIER : DF_NONE;
  if (shard_op_is(op, &K_stablehlo_while)) return DF_WHILE;
  if (shard_op_is(op, &K_stablehlo_case)) return DF_CASE;
  if (shard_op_is(op, &K_stablehlo_optimization_barrier)) return DF_OPT_BARRIER;
  if (!S_is_sdy(op)) return DF_NONE;
  if (shard_op_is(op, &K_sdy_named_computation)) return DF_NAMED;
  if (shard_op_is(op, &K_sdy_manual_computation)) return DF_MANUAL;
  return DF_NONE;
}

static shard_op *S_owning_op(const shard_value *v) {
  if (v->def) return v->def;
  return v->block && v->block->parent ? v->block->parent->parent : NULL;
}

static shard_block *S_body(const shard_op *op, uint32_t region) {
  return region < op->num_regions ? op->regions[region].first : NULL;
}

static shard_value *S_result(shard_op *op, uint64_t i) { return i < op->num_results ? &op->results[i] : NULL; }

/* The edge owner holding the sharding of `target` (a result or block arg of op). */
static shard_value *S_owner_from_target(shard_op *op, shard_value *v) {
  switch (S_df_kind(op)) {
  case DF_WHILE: return v->def == op ? v : S_result(op, v->index);
  case DF_CASE:
  case DF_OPT_BARRIER: return v->def == op ? v : NULL;
  case DF_NAMED:
  case DF_MANUAL: return v;
  case DF_NONE: break;
  }
  return NULL;
}

/* The edge owner fed by `use` (an operand of op or of one of its terminators). */
static shard_value *S_owner_from_source(shard_op *op, const shard_operand *use) {
  switch (S_df_kind(op)) {
  case DF_WHILE:
  case DF_CASE:
  case DF_OPT_BARRIER: return S_result(op, shard_operand_index(use));
  case DF_NAMED:
  case DF_MANUAL: {
    if (use->owner != op) return S_result(op, shard_operand_index(use));
    shard_block *body = S_body(op, 0);
    return body && shard_operand_index(use) < body->num_args ? &body->args[shard_operand_index(use)] : NULL;
  }
  case DF_NONE: break;
  }
  return NULL;
}

/* The sdy.data_flow_edge that is the single user of `owner`, if any. */
static shard_op *S_edge_user(const shard_value *owner) {
  if (!owner || !owner->first_use || owner->first_use->next_use) return NULL;
  shard_op *user = owner->first_use->owner;
  return shard_op_is(user, &K_sdy_data_flow_edge) ? user : NULL;
}

static shard_op *S_edge_of_target(shard_value *v) {
  shard_op *op = S_owning_op(v);
  if (S_df_kind(op) == DF_NONE) return NULL;
  return S_edge_user(S_owner_from_target(op, v));
}

static shard_op *S_edge_of_source(const shard_operand *use) {
  shard_op *op = use->owner;
  if (S_is_terminator(op)) op = shard_op_parent_op(op);
  if (S_df_kind(op) == DF_NONE) return NULL;
  return S_edge_user(S_owner_from_source(op, use));
}

bool shard_propagation_value_has_edge(const shard_value *v) { return S_edge_of_target((shard_value *)v) != NULL; }

static bool S_is_func_entry_arg(const shard_value *v, shard_op *owner) {
  return owner && shard_op_is(owner, &K_func_func) && !v->def && v->block == S_body(owner, 0);
}

/* Shardy's getShardableValue: the value that carries v's sharding, or NULL. */
static shard_value *S_shardable(shard_value *v) {
  shard_op *edge = S_edge_of_target(v);
  if (edge) return &edge->results[0];
  if (v->def) return v;
  shard_op *owner = S_owning_op(v);
  if (S_is_func_entry_arg(v, owner)) return v;
  if (S_df_kind(owner) != DF_NONE) return S_owner_from_target(owner, v);
  return NULL;
}

shard_value *shard_propagation_shardable_value(shard_value *v) { return S_shardable(v); }

/* ---- value shardings -------------------------------------------------------------- */

/* shard_op_attr for the hot lookups of a visit: an op has a handful of
 * attributes with distinct names, so a scan that compares first bytes before
 * calling strcmp finds the same one as the binary search, with one strcmp
 * instead of two or three. */
static shard_attr *S_attr(const shard_op *op, const char *name) { return shard_op_attr(op, name); }

static shard_tensor_sharding *S_sharding_attr(const shard_op *op, const char *name) {
  shard_attr *s = S_attr(op, name);
  return s && s->kind == SHARD_ATTR_SDY_SHARDING ? s->u.sharding : NULL;
}

static shard_tensor_sharding *S_per_value_at(const shard_op *op, const char *name, uint32_t i) {
  shard_attr *pv = S_attr(op, name);
  if (!pv || pv->kind != SHARD_ATTR_SDY_PER_VALUE || i >= pv->u.per_value->num) return NULL;
  return &pv->u.per_value->shardings[i];
}

/* Replaces entry i of a per-value attribute of n entries; missing entries
 * become fully open on s's mesh. With a session `share`, s is a sharding
 * propagation kept in the module and never touches again. */
static void S_set_per_value_at(shard_arena *a, shard_op *op, const char *name, bool inherent, uint32_t i, uint32_t n,
                               const shard_value *values, shard_tensor_sharding *s, shard_propagation *share) {
  if (share && n == 1 && i == 0) {
    /* s itself is the list of one (shardings are replaced, never edited):
     * most ops have one result, and each change would copy its sharding.
     * Attributes are never edited in place either: the next op of a chain,
     * given the same sharding, takes the same attribute. */
    if (share->one_list_sharding != s) {
      share->one_list_sharding = s;
      share->one_list_attr = shard_attr_per_value(a, s, 1);
    }
    shard_op_set_attr(a, op, name, share->one_list_attr, inherent);
    return;
  }
  shard_attr *old = shard_op_attr(op, name);
  bool have = old && old->kind == SHARD_ATTR_SDY_PER_VALUE && old->u.per_value->num == n;
  shard_tensor_sharding *list = SHARD_NEW_ARRAY(a, shard_tensor_sharding, n ? n : 1);
  for (uint32_t k = 0; k < n; k++) {
    if (k == i) list[k] = *s;
    else if (have) list[k] = old->u.per_value->shardings[k];
    else {
      const shard_type *t = values[k].type;
      uint32_t rank = t && t->kind == SHARD_TYPE_TENSOR ? t->rank : 0;
      list[k] = *shard_sharding_open(a, s->mesh_name, s->inline_mesh, rank, true);
    }
  }
  shard_op_set_attr(a, op, name, shard_attr_per_value(a, list, n), inherent);
}

static bool S_has_out_sharding(const shard_op *op) {
  return op->def && (op->def->traits & SHARD_TRAIT_SDY) && shard_op_def_is_inherent(op->def, "out_sharding");
}

static bool S_single_sharding_op(const shard_op *op) {
  return S_is_sdy(op) && (shard_op_is(op, &K_sdy_data_flow_edge) || shard_op_is(op, &K_sdy_sharding_constraint) ||
                          shard_op_is(op, &K_sdy_reshard));
}

/* The sharding carried by v, a value S_shardable returned (or NULL). */
static shard_tensor_sharding *S_shardable_sharding(shard_arena *a, shard_value *v) {
  if (!v) return NULL;
  shard_op *op = S_owning_op(v);
  if (!op) return NULL;
  if (S_is_func_entry_arg(v, op)) return shard_func_arg_sharding(op, v->index);
  if (S_single_sharding_op(op)) return S_sharding_attr(op, "sharding");
  if (S_has_out_sharding(op)) return S_sharding_attr(op, "out_sharding");
  switch (S_df_kind(op)) {
  case DF_NAMED: return S_per_value_at(op, v->def ? "out_shardings" : "in_shardings", v->index);
  case DF_MANUAL:
    if (v->def) return S_per_value_at(op, "out_shardings", v->index);
    return shard_sharding_erase_manual(a, S_per_value_at(op, "in_shardings", v->index),
                                       shard_op_attr(op, "manual_axes"));
  default: break;
  }
  return v->def ? S_per_value_at(op, "sdy.sharding", v->index) : NULL;
}

shard_tensor_sharding *shard_propagation_value_sharding(shard_arena *a, const shard_value *cv) {
  return S_shardable_sharding(a, S_shardable((shard_value *)cv));
}

/* shard_propagation_set_value_sharding; `share` as for S_set_per_value_at. */
static void S_set_value_sharding(shard_arena *a, shard_value *v, shard_tensor_sharding *s, shard_propagation *share) {
  v = S_shardable(v);
  if (!v || !s) return;
  shard_op *op = S_owning_op(v);
  if (!op) return;
  if (S_is_func_entry_arg(v, op)) {
    shard_func_set_arg_sharding(a, op, v->index, s);
    return;
  }
  if (S_single_sharding_op(op)) {
    shard_op_set_attr(a, op, "sharding", shard_attr_sharding(a, s), true);
    return;
  }
  if (S_has_out_sharding(op)) {
    shard_op_set_attr(a, op, "out_sharding", shard_attr_sharding(a, s), true);
    return;
  }
  df_kind k = S_df_kind(op);
  if (k == DF_NAMED || k == DF_MANUAL) {
    if (v->def) {
      S_set_per_value_at(a, op, "out_shardings", true, v->index, op->num_results, op->results, s, share);
    } else {
      shard_block *body = S_body(op, 0);
      if (k == DF_MANUAL)
        s = shard_sharding_add_free(a, S_per_value_at(op, "in_shardings", v->index), s,
                                    shard_op_attr(op, "manual_axes"));
      S_set_per_value_at(a, op, "in_shardings", true, v->index, body->num_args, body->args, s, share);
    }
    return;
  }
  if (v->def) S_set_per_value_at(a, op, "sdy.sharding", false, v->index, op->num_results, op->results, s, share);
}

void shard_propagation_set_value_sharding(shard_arena *a, shard_value *v, shard_tensor_sharding *s) {
  S_set_value_sharding(a, v, s, NULL);
}

/* ---- rules ------------------------------------------------------------------------ */

static const shard_op_sharding_rule *S_rule(shard_propagation *s, const shard_op *op, op_info *info);

const shard_op_sharding_rule *shard_propagation_rule(shard_propagation *s, const shard_op *op) {
  op_info *info = S_info(s, op);
  if (!info) return shard_rule_for_op(s->a, op, s->conservative, s->extra_rules);
  return S_rule(s, op, info);
}

/* The rule of `op`, whose state is `info`. */
static const shard_op_sharding_rule *S_rule(shard_propagation *s, const shard_op *op, op_info *info) {
  if (info->rule_done) return info->rule;
  info->rule_done = true;
  shard_attr *r = S_attr(op, "sdy.sharding_rule");
  if (r && r->kind == SHARD_ATTR_SDY_RULE) {
    info->rule = r->u.rule;
    return info->rule;
  }
  info->rule = shard_rule_create_cached(s->rules, s->a, op, s->conservative);
  info->rule_created = info->rule != NULL;
  if (!info->rule) {
    /* Shardy warns once per process for ops and once for custom calls. */
    static bool warned_op, warned_custom_call;
    bool custom = shard_op_is(op, &K_stablehlo_custom_call);
    bool *flag = custom ? &warned_custom_call : &warned_op;
    if (!*flag) {
      shard_buf b;
      shard_buf_init(&b);
      if (shard_rule_unknown_message(op, &b)) {
        *flag = true;
        char *msg = shard_buf_take(&b);
        shard_warning(s->de, op->span, "%s", msg);
        free(msg);
      } else {
        shard_buf_free(&b); /* no message: nothing allocated */
      }
    }
  }
  return info->rule;
}

/* A rule mapping dim d of every tensor to factor d. */
static shard_op_sharding_rule *S_identity_rule(shard_arena *a, const shard_type *t, uint32_t num_operands) {
  shard_op_sharding_rule *r = SHARD_NEW(a, shard_op_sharding_rule);
  uint32_t rank = t->rank;
  r->num_factors = rank;
  r->factor_sizes = SHARD_NEW_ARRAY(a, int64_t, rank ? rank : 1);
  shard_tensor_mapping *m = SHARD_NEW(a, shard_tensor_mapping);
  m->rank = rank;
  m->dims = SHARD_NEW_ARRAY(a, shard_dim_mapping, rank ? rank : 1);
  for (uint32_t d = 0; d < rank; d++) {
    r->factor_sizes[d] = t->dims[d];
    m->dims[d].factors = &r->factor_sizes[0]; /* replaced below */
    m->dims[d].num_factors = 1;
  }
  int64_t *idx = SHARD_NEW_ARRAY(a, int64_t, rank ? rank : 1);
  for (uint32_t d = 0; d < rank; d++) {
    idx[d] = d;
    m->dims[d].factors = &idx[d];
  }
  r->num_operands = num_operands;
  r->operands = SHARD_NEW_ARRAY(a, shard_tensor_mapping, num_operands ? num_operands : 1);
  for (uint32_t i = 0; i < num_operands; i++) r->operands[i] = *m;
  r->num_results = 1;
  r->results = m;
  return r;
}

/* What the factor directions of an identity rule over t (S_identity_rule)
 * read of it, without building it: the number of factors, none blocked. */
static shard_op_sharding_rule S_identity_shape(const shard_type *t) {
  shard_op_sharding_rule r;
  memset(&r, 0, sizeof r);
  r.num_factors = t->rank;
  return r;
}

static bool S_is_blocked(const shard_op_sharding_rule *r, int64_t f) {
  for (uint32_t i = 0; i < r->num_blocked_propagation; i++)
    if (r->blocked_propagation[i] == f) return true;
  return false;
}

bool shard_propagation_op_is_elementwise(const shard_op *op) {
  if (op->def && (op->def->traits & SHARD_TRAIT_ELEMENTWISE)) return true;
  if (shard_op_is(op, &K_stablehlo_bitcast_convert) && op->num_operands == 1 && op->num_results == 1) {
    const shard_type *a = op->operands[0].value->type, *b = op->results[0].type;
    if (a->kind != SHARD_TYPE_TENSOR || b->kind != SHARD_TYPE_TENSOR || a->rank != b->rank) return false;
    for (uint32_t d = 0; d < a->rank; d++)
      if (a->dims[d] != b->dims[d]) return false;
    return true;
  }
  return S_is_sdy(op) && (shard_op_is(op, &K_sdy_propagation_barrier) || shard_op_is(op, &K_sdy_sharding_constraint) ||
                          shard_op_is(op, &K_sdy_reshard));
}

/* ---- worklist ------------------------------------------------------------------------ */

static void S_push_one(shard_propagation *s, shard_op *op) {
  uint32_t id;
  if (!shard_op_table_find(&s->index, op, &id) || s->ops[id].queued) return;
  s->ops[id].queued = true;
  SHARD_VEC_PUSH(s->worklist, id);
}

/* Queues op and its ancestors below the module, innermost first (MLIR's
 * GreedyPatternRewriteDriver::addToWorklist). The op being visited is not
 * queued again: visiting it once more would change nothing. */
static void S_notify_op(shard_propagation *s, shard_op *op) {
  if (!op || op == s->current) return;
  for (shard_op *o = op; o && o != s->m->top; o = shard_op_parent_op(o)) S_push_one(s, o);
}

static void S_notify_users(shard_propagation *s, shard_value *v);

static shard_op *S_func_of(shard_op *op) {
  return shard_op_is(op, &K_func_func) ? op : shard_op_ancestor(op, "func.func");
}

static shard_op *S_callee(const shard_module *m, const shard_op *call) {
  shard_attr *callee = shard_op_attr(call, "callee");
  if (!callee || callee->kind != SHARD_ATTR_SYMREF || callee->u.symref.num != 1) return NULL;
  shard_op *func = shard_module_lookup_symbol(m, callee->u.symref.path[0]);
  return func && shard_op_is(func, &K_func_func) ? func : NULL;
}

/* Calls to `func` in the module (Shardy's SymbolUserMap), indexed once. */
static void S_callers(shard_propagation *s, const shard_op *func, op_vec *out) {
  uint64_t id = shard_ptrmap_get(&s->callers, func);
  if (!id) return;
  const call_range *r = &s->call_ranges[id - 1];
  for (uint32_t i = 0; i < r->num; i++) SHARD_VEC_PUSH(*out, s->calls[r->first + i]);
}

static void S_notify_terminator_use(shard_propagation *s, shard_op *user, const shard_operand *use) {
  if (!shard_op_is(user, &K_func_return)) {
    S_notify_op(s, shard_op_parent_op(user));
    return;
  }
  shard_op *func = S_func_of(user);
  op_vec calls = {0};
  if (func) S_callers(s, func, &calls);
  if (!calls.len) S_notify_op(s, shard_op_parent_op(user));
  for (uint32_t i = 0; i < calls.len; i++) {
    shard_value *r = S_result(calls.items[i], shard_operand_index(use));
    if (r) S_notify_users(s, r);
  }
  SHARD_VEC_FREE(calls);
}

static void S_notify_users(shard_propagation *s, shard_value *v) {
  for (uint32_t i = 0; i < s->notified.len; i++)
    if (s->notified.items[i] == v) return;
  SHARD_VEC_PUSH(s->notified, v);
  for (shard_operand *u = v->first_use; u; u = u->next_use) {
    shard_op *user = u->owner;
    shard_op *edge = S_edge_of_source(u);
    if (edge) {
      S_notify_op(s, edge);
      continue;
    }
    if (S_is_terminator(user)) {
      S_notify_terminator_use(s, user, u);
      continue;
    }
    if (shard_op_is(user, &K_func_call)) {
      shard_op *func = S_callee(s->m, user);
      shard_block *entry = func ? S_body(func, 0) : NULL;
      if (entry && shard_operand_index(u) < entry->num_args) S_notify_users(s, &entry->args[shard_operand_index(u)]);
      continue;
    }
    S_notify_op(s, user);
  }
}

static void S_notify_sharding_modified(shard_propagation *s, shard_value *v) {
  s->notified.len = 0;
  if (v->def && shard_op_is(v->def, &K_sdy_data_flow_edge) && v->def->num_operands == 1) {
    /* The edge's other targets (while body and cond arguments) read it too. */
    shard_value *owner = v->def->operands[0].value;
    shard_op *op = S_owning_op(owner);
    if (S_df_kind(op) == DF_WHILE && owner->def == op) {
      for (uint32_t r = 0; r < 2; r++) {
        shard_block *b = S_body(op, r);
        if (b && owner->index < b->num_args) S_notify_users(s, &b->args[owner->index]);
      }
    }
  }
  S_notify_op(s, S_owning_op(v));
  S_notify_users(s, v);
}

/* ---- sharding groups ------------------------------------------------------------------ */

static int S_cmp_member(const void *pa, const void *pb) {
  const group_member *a = pa, *b = pb;
  if (a->value != b->value) return (uintptr_t)a->value < (uintptr_t)b->value ? -1 : 1;
  return 0;
}

static int S_cmp_group_then_value(const void *pa, const void *pb) {
  const group_member *a = pa, *b = pb;
  if (a->group != b->group) return a->group < b->group ? -1 : 1;
  return S_cmp_member(pa, pb);
}

/* The first of the members of `group` in s->by_group. */
static uint32_t S_group_start(const shard_propagation *s, int64_t group) {
  uint32_t lo = 0, hi = s->num_members;
  while (lo < hi) {
    uint32_t mid = (lo + hi) / 2;
    if (s->by_group[mid].group < group) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

static int64_t S_group_of(const shard_propagation *s, const shard_value *v) {
  uint32_t lo = 0, hi = s->num_members;
  while (lo < hi) {
    uint32_t mid = (lo + hi) / 2;
    if (s->members[mid].value == v) return s->members[mid].group;
    if ((uintptr_t)s->members[mid].value < (uintptr_t)v) lo = mid + 1;
    else hi = mid;
  }
  return -1;
}

/* ---- one op --------------------------------------------------------------------------- */

typedef enum tensor_kind { TENSOR_VALUE, TENSOR_EDGE, TENSOR_FUNC_RESULT } tensor_kind;

typedef struct tensor_ref {
  tensor_kind kind;
  shard_value *value; /* VALUE, EDGE (the edge result) */
  shard_op *owner; /* EDGE: the edge op; FUNC_RESULT: the func */
  uint32_t index; /* FUNC_RESULT */
  shard_tensor_sharding *sharding; /* current, as propagation sees it */
  bool transient; /* sharding lives for this visit only (not in the module) */
} tensor_ref;

typedef struct direction_ctx {
  shard_propagation *s;
  const shard_op *op;
  const shard_op_sharding_rule *rule;
  shard_direction fixed; /* used when use_fixed */
  bool use_fixed;
  /* The direction of every factor, when the visit has asked already (the
   * direction functions are pure: asking again gives the same answers). */
  const shard_direction *known;
} direction_ctx;

static shard_direction S_factor_direction(void *ctx, int64_t factor) {
  direction_ctx *d = ctx;
  if (d->known) return d->known[factor];
  if (S_is_blocked(d->rule, factor)) return SHARD_DIR_NONE;
  if (d->use_fixed) return d->fixed;
  if (!d->s->direction) return SHARD_DIR_BOTH;
  return d->s->direction(d->s->direction_ctx, d->s, d->op, factor);
}

static bool S_empty_axes(const shard_tensor_sharding *t) {
  if (t->num_replicated || t->num_unreduced) return false;
  for (uint32_t d = 0; d < t->rank; d++)
    if (t->dims[d].num_axes) return false;
  return true;
}

static const shard_mesh *S_mesh_of(shard_propagation *s, const shard_tensor_sharding *t) {
  return shard_mesh_memo_get(&s->meshes, s->m, t);
}

/* The mesh shared by all present shardings (empty meshes don't count); false
 * when there is none or two differ. */
static bool S_common_mesh(shard_propagation *s, const tensor_ref *t, uint32_t n, const shard_tensor_sharding **source,
                          const shard_mesh **mesh) {
  *source = NULL;
  *mesh = NULL;
  for (uint32_t i = 0; i < n; i++) {
    const shard_tensor_sharding *sh = t[i].sharding;
    if (!sh) continue;
    const shard_mesh *other = S_mesh_of(s, sh);
    if (!other) continue;
    if (!*mesh || shard_mesh_is_empty(*mesh)) {
      *mesh = other;
      *source = sh;
      continue;
    }
    if (other == *mesh || shard_mesh_is_empty(other)) continue;
    if (!shard_mesh_equal(other, *mesh)) return false;
  }
  return *mesh != NULL;
}

static void S_set_tensor(shard_propagation *s, const tensor_ref *t, shard_tensor_sharding *sh) {
  s->changes++;
  switch (t->kind) {
  case TENSOR_VALUE: S_set_value_sharding(s->a, t->value, sh, s); break;
  case TENSOR_EDGE: {
    shard_op *edge = t->owner;
    shard_value *owner = edge->operands[0].value;
    shard_op *op = S_owning_op(owner);
    if (S_df_kind(op) == DF_MANUAL) {
      const shard_attr *manual = shard_op_attr(op, "manual_axes");
      if (owner->def) sh = shard_sharding_add_free(s->a, S_per_value_at(op, "out_shardings", owner->index), sh, manual);
      else sh = shard_sharding_erase_manual(s->a, sh, manual);
    }
    shard_op_set_attr(s->a, edge, "sharding", shard_attr_sharding(s->a, sh), true);
    break;
  }
  case TENSOR_FUNC_RESULT:
    if (s->pending_results && t->index < s->num_pending_results) s->pending_results[t->index] = sh;
    else shard_func_set_result_sharding(s->a, t->owner, t->index, sh);
    break;
  }
}

/* A copy of the projection an observer compares against: axis lists are
 * replaced, never edited, so copying the factor arrays is enough. */
static shard_projection *S_projection_copy(shard_arena *a, const shard_projection *p) {
  shard_projection *c = SHARD_NEW(a, shard_projection);
  *c = *p;
  uint32_t n = shard_projection_num_tensors(p);
  c->tensors = SHARD_NEW_ARRAY(a, shard_tensor_factors, n ? n : 1);
  for (uint32_t i = 0; i < n; i++) {
    c->tensors[i] = p->tensors[i];
    c->tensors[i].factors = SHARD_NEW_ARRAY(a, shard_factor_sharding, p->num_factors ? p->num_factors : 1);
    if (p->num_factors)
      memcpy(c->tensors[i].factors, p->tensors[i].factors, sizeof(shard_factor_sharding) * p->num_factors);
  }
  return c;
}

static void S_observe(shard_propagation *s, const direction_ctx *dctx, const shard_op_sharding_rule *rule,
                      const tensor_ref *t, uint32_t num_operands, uint32_t num_results, const shard_mesh *mesh,
                      const shard_projection *before, const shard_projection *after, const bool *updated,
                      shard_arena *scratch) {
  uint32_t n = num_operands + num_results;
  shard_value **values = SHARD_NEW_ARRAY(scratch, shard_value *, n ? n : 1);
  shard_propagation_step step = {0};
  for (uint32_t i = 0; i < n; i++) {
    values[i] = t[i].value;
    if (t[i].kind == TENSOR_FUNC_RESULT) {
      values[i] = t[0].value; /* the returned value stands for the result, as in Shardy */
      step.func_result = true;
      step.func_result_index = t[i].index;
    }
  }
  step.op = (shard_op *)dctx->op;
  step.rule = rule;
  step.mesh = mesh;
  step.num_operands = num_operands;
  step.num_results = num_results;
  step.values = values;
  step.before = before;
  step.after = after;
  step.updated = updated;
  s->observer.on_step(s->observer.ctx, &step);
}

/* The same axis, field by field (what sharing a list may not change). */
static bool S_same_axes(const shard_axis_ref *a, const shard_axis_ref *b, uint32_t n) {
  for (uint32_t i = 0; i < n; i++)
    if ((a[i].name != b[i].name && strcmp(a[i].name, b[i].name) != 0) || a[i].is_sub != b[i].is_sub ||
        a[i].pre_size != b[i].pre_size || a[i].size != b[i].size)
      return false;
  return true;
}

static bool S_same_dims(const shard_dim_sharding *a, const shard_dim_sharding *b, uint32_t rank) {
  for (uint32_t d = 0; d < rank; d++)
    if (a[d].num_axes != b[d].num_axes || a[d].is_open != b[d].is_open || a[d].priority != b[d].priority ||
        !S_same_axes(a[d].axes, b[d].axes, a[d].num_axes))
      return false;
  return true;
}

/* Is `cand` a sharding propagation made that equals `fresh` field by field? */
static bool S_same_sharding(const shard_tensor_sharding *cand, const shard_tensor_sharding *fresh) {
  if (cand->span.src || cand->inline_mesh != fresh->inline_mesh || cand->rank != fresh->rank ||
      cand->num_replicated != fresh->num_replicated || cand->num_unreduced != fresh->num_unreduced ||
      cand->reduction != fresh->reduction)
    return false;
  if (cand->mesh_name != fresh->mesh_name &&
      (!cand->mesh_name || !fresh->mesh_name || strcmp(cand->mesh_name, fresh->mesh_name) != 0))
    return false;
  return S_same_dims(cand->dims, fresh->dims, fresh->rank) &&
         S_same_axes(cand->replicated, fresh->replicated, fresh->num_replicated) &&
         S_same_axes(cand->unreduced, fresh->unreduced, fresh->num_unreduced);
}

/* The visit's shardings that live in the module: the tensors' current ones
 * and those kept by this visit so far. */
static const shard_tensor_sharding *S_candidate(const tensor_ref *t, const shard_tensor_sharding *const *kept,
                                                uint32_t done, uint32_t k) {
  if (k < done && kept[k]) return kept[k];
  return t[k].transient ? NULL : t[k].sharding;
}

/* An axis list equal to `axes` among the candidates' dims, or NULL. */
static shard_axis_ref *S_shared_axes(const shard_axis_ref *axes, uint32_t num, const tensor_ref *t, uint32_t n,
                                     const shard_tensor_sharding *const *kept, uint32_t done) {
  for (uint32_t k = 0; k < n; k++) {
    const shard_tensor_sharding *c = S_candidate(t, kept, done, k);
    for (uint32_t d = 0; c && d < c->rank; d++)
      if (c->dims[d].num_axes == num && S_same_axes(c->dims[d].axes, axes, num)) return c->dims[d].axes;
  }
  return NULL;
}

/* Copies `fresh` (projected into the visit's scratch) into the module,
 * sharing every dims array and axis list equal to one of the visit's
 * shardings in the module instead of copying it (shardings are replaced,
 * never edited): a sharding propagated along a chain of ops is mostly the
 * neighbour's, so most of what a change adds to the module is its header.
 * kept[0..done) are the shardings this visit kept so far (NULL: none). */
static shard_tensor_sharding *S_keep(shard_propagation *s, const shard_tensor_sharding *fresh, const tensor_ref *t,
                                     uint32_t n, const shard_tensor_sharding *const *kept, uint32_t done) {
  /* A sharding equal to one of them in every field is that one: along a
   * chain of elementwise ops most changes give a tensor its neighbour's
   * sharding. Only one propagation made (no source span, which a parsed
   * one carries for diagnostics), so sharing changes nothing printed. */
  for (uint32_t c = 0; c < n; c++) {
    const shard_tensor_sharding *cand = S_candidate(t, kept, done, c);
    if (cand && S_same_sharding(cand, fresh)) return (shard_tensor_sharding *)cand;
  }
  shard_tensor_sharding *k = SHARD_NEW(s->a, shard_tensor_sharding);
  *k = *fresh;
  k->dims = NULL;
  for (uint32_t c = 0; c < n && !k->dims && fresh->rank; c++) {
    const shard_tensor_sharding *cand = S_candidate(t, kept, done, c);
    if (cand && cand->rank == fresh->rank && S_same_dims(cand->dims, fresh->dims, fresh->rank)) k->dims = cand->dims;
  }
  if (!k->dims && fresh->rank) {
    k->dims = SHARD_NEW_ARRAY(s->a, shard_dim_sharding, fresh->rank);
    for (uint32_t d = 0; d < fresh->rank; d++) {
      const shard_dim_sharding *fd = &fresh->dims[d];
      k->dims[d] = *fd;
      if (!fd->num_axes) continue;
      k->dims[d].axes = S_shared_axes(fd->axes, fd->num_axes, t, n, kept, done);
      if (!k->dims[d].axes) k->dims[d].axes = shard_arena_dup(s->a, fd->axes, sizeof(shard_axis_ref) * fd->num_axes);
    }
  }
  if (fresh->num_replicated)
    k->replicated = shard_arena_dup(s->a, fresh->replicated, sizeof(shard_axis_ref) * fresh->num_replicated);
  if (fresh->num_unreduced)
    k->unreduced = shard_arena_dup(s->a, fresh->unreduced, sizeof(shard_axis_ref) * fresh->num_unreduced);
  return k;
}

/* Propagates between tensors t[0..num_operands) and the rest along `rule`.
 * Returns whether any sharding changed. */
static bool S_propagate_tensors(shard_propagation *s, const shard_op *op, const shard_op_sharding_rule *rule,
                                tensor_ref *t, uint32_t num_operands, uint32_t num_results, direction_ctx *dctx,
                                bool conservative) {
  uint32_t n = num_operands + num_results;
  if (rule->num_operands != num_operands || rule->num_results != num_results) return false;
  const shard_tensor_sharding *source;
  const shard_mesh *mesh;
  if (!S_common_mesh(s, t, n, &source, &mesh)) return false;
  /* Shardy does not propagate maximal shardings. */
  if (shard_mesh_is_maximal(mesh)) return false;

  /* Taken from the session (an observer could start another visit). */
  shard_arena *scratch = s->scratch ? s->scratch : shard_arena_new();
  s->scratch = NULL;
  const shard_tensor_sharding **shardings = SHARD_NEW_ARRAY(scratch, const shard_tensor_sharding *, n ? n : 1);
  for (uint32_t i = 0; i < n; i++) shardings[i] = t[i].sharding;
  /* Nothing to project or propagate when every tensor projects alike. */
  bool settled = shard_projection_settled(rule, shardings);
  shard_projection *p = settled ? NULL : shard_projection_build(scratch, rule, shardings, mesh, false);
  shard_factor_propagation fp = {s->strategy, S_factor_direction, dctx, conservative,
                                 op && shard_propagation_op_is_elementwise(op)};
  bool *updated = SHARD_NEW_ARRAY(scratch, bool, n ? n : 1);
  const shard_tensor_sharding **kept = SHARD_NEW_ARRAY(scratch, const shard_tensor_sharding *, n ? n : 1);
  const shard_projection *before = p && s->observer.on_step ? S_projection_copy(scratch, p) : NULL;
  if (p) shard_factor_propagate(p, &fp, updated); /* else nothing is updated */

  bool any = false;
  for (uint32_t i = 0; i < n; i++) {
    if (!updated[i]) continue;
    const shard_tensor_mapping *mapping = i < num_operands ? &rule->operands[i] : &rule->results[i - num_operands];
    /* Into scratch, then kept in the module sharing what it can: an
     * updated projection nearly always gives a new sharding, but one made
     * mostly of arrays the module holds already. */
    shard_tensor_sharding *fresh =
        shard_projection_to_sharding(scratch, p, i, mapping, source->mesh_name, source->inline_mesh);
    const shard_tensor_sharding *old = t[i].sharding;
    if ((!old && S_empty_axes(fresh)) || (old && shard_sharding_equal(fresh, old))) continue;
    fresh = S_keep(s, fresh, t, n, kept, i);
    kept[i] = fresh;
    any = true;
    S_set_tensor(s, &t[i], fresh);
    if (t[i].kind == TENSOR_FUNC_RESULT) continue;
    shard_value *modified = t[i].value;
    if (s->notify) S_notify_sharding_modified(s, modified);
    int64_t group = S_group_of(s, modified);
    if (group < 0) continue;
    for (uint32_t k = S_group_start(s, group); k < s->num_members && s->by_group[k].group == group; k++) {
      shard_value *member = s->by_group[k].value;
      if (member == modified) continue;
      s->changes++;
      S_set_value_sharding(s->a, member, fresh, s);
      if (s->notify) S_notify_sharding_modified(s, member);
    }
  }
  if (before) {
    bool changed = false;
    for (uint32_t i = 0; i < n; i++) changed |= updated[i];
    if (changed) S_observe(s, dctx, rule, t, num_operands, num_results, mesh, before, p, updated, scratch);
  }
  if (s->scratch) {
    shard_arena_free(scratch);
  } else {
    shard_arena_reset(scratch);
    s->scratch = scratch;
  }
  return any;
}

static bool S_static_tensor(const shard_type *t) { return t && shard_type_is_static_tensor(t); }

static void S_value_ref(shard_propagation *s, tensor_ref *r, shard_value *v) {
  r->kind = TENSOR_VALUE;
  r->owner = NULL;
  r->index = 0;
  r->transient = false;
  shard_op *def = v->def;
  if (def && !def->num_regions && !S_is_sdy(def) && S_df_kind(def) == DF_NONE) {
    /* Most values: the result of an op that is neither a data-flow op nor
     * an sdy op carries its own sharding in the op's sdy.sharding (what
     * S_shardable and S_shardable_sharding find, without their tests). */
    r->value = v;
    r->sharding = S_per_value_at(def, "sdy.sharding", v->index);
    return;
  }
  shard_value *shardable = S_shardable(v);
  r->value = shardable ? shardable : v;
  r->sharding = S_shardable_sharding(s->a, shardable);
}

/* The direction of every factor of the visit into dirs; false when no
 * factor may propagate in any direction, so the visit can change nothing. */
static bool S_factor_directions(direction_ctx *d, uint32_t num_factors, shard_direction *dirs) {
  bool any = false;
  for (uint32_t f = 0; f < num_factors; f++) {
    dirs[f] = S_factor_direction(d, f);
    any = any || dirs[f] != SHARD_DIR_NONE;
  }
  return any;
}

static visit_memo *S_memo(shard_propagation *s, op_info *info) {
  if (!info->memo) info->memo = SHARD_NEW(s->memo, visit_memo);
  return info->memo;
}

/* Forgets the last unchanged visit: a visit changed something, or saw
 * nothing it could change. */
static void S_memo_invalidate(op_info *info) {
  if (info->memo) info->memo->seen_valid = false;
}

/* Would this visit see what the last visit that changed nothing saw, known
 * without reading a sharding: no sharding changed since (and the same
 * directions and strategy)? Nearly every visit of the last op-priority
 * steps, which change nothing at all. */
static bool S_unchanged_since(const shard_propagation *s, const op_info *info, const shard_op_sharding_rule *rule,
                              const shard_direction *dirs) {
  const visit_memo *memo = info->memo;
  if (!memo || !memo->seen_valid || memo->seen_changes != s->changes || memo->seen_strategy != s->strategy)
    return false;
  for (uint32_t f = 0; f < rule->num_factors; f++)
    if (memo->seen_dirs[f] != dirs[f]) return false;
  return true;
}

/* Would this visit see exactly what the last visit that changed nothing saw:
 * the shardings of t[0..n), the keys[0..num_keys) standing for what the
 * rest of the visit reads, the directions and the strategy? Records what it
 * sees in info either way (valid only if nothing changes). An op passes the
 * same n and num_keys at every visit. */
static bool S_seen_before(shard_propagation *s, op_info *info, const shard_op_sharding_rule *rule, const tensor_ref *t,
                          uint32_t n, const shard_tensor_sharding *const *keys, uint32_t num_keys,
                          const shard_direction *dirs) {
  visit_memo *memo = S_memo(s, info);
  if (!memo->seen) {
    memo->seen = SHARD_NEW_ARRAY(s->memo, const shard_tensor_sharding *, n + num_keys ? n + num_keys : 1);
    memo->seen_dirs = SHARD_NEW_ARRAY(s->memo, shard_direction, rule->num_factors ? rule->num_factors : 1);
    memo->seen_valid = false;
  }
  bool same = memo->seen_valid && memo->seen_strategy == s->strategy;
  for (uint32_t i = 0; i < n; i++) {
    same = same && memo->seen[i] == t[i].sharding;
    memo->seen[i] = t[i].sharding;
  }
  for (uint32_t k = 0; k < num_keys; k++) {
    same = same && memo->seen[n + k] == keys[k];
    memo->seen[n + k] = keys[k];
  }
  for (uint32_t f = 0; f < rule->num_factors; f++) {
    same = same && memo->seen_dirs[f] == dirs[f];
    memo->seen_dirs[f] = dirs[f];
  }
  memo->seen_strategy = s->strategy;
  return same;
}

/* After a visit of op that changed shardings: records in its memo the
 * shardings it left (read again into t), as what an unchanged visit saw.
 * Visiting an op again right after it changed something, with the same
 * directions and strategy, changes nothing (which is also why S_notify_op
 * does not queue the op being visited): the next run's first visit of an
 * op no neighbour changed since is then skipped instead of confirming it. */
static void S_memo_after_change(shard_propagation *s, shard_op *op, visit_memo *memo, tensor_ref *t) {
  for (uint32_t i = 0; i < op->num_operands; i++) S_value_ref(s, &t[i], op->operands[i].value);
  for (uint32_t i = 0; i < op->num_results; i++) S_value_ref(s, &t[op->num_operands + i], &op->results[i]);
  for (uint32_t i = 0; i < op->num_operands + op->num_results; i++) memo->seen[i] = t[i].sharding;
  memo->seen_valid = true;
}

static void S_visit_registered(shard_propagation *s, shard_op *op, op_info *op_state) {
  const shard_op_sharding_rule *rule = S_rule(s, op, op_state);
  if (!rule) return;
  direction_ctx d = {s, op, rule, SHARD_DIR_BOTH, false, NULL};
  /* An observer sees every visit that updates a projection, even to an
   * equal sharding, so with one nothing is skipped. */
  op_info *info = s->observer.on_step ? NULL : op_state;
  enum { ON_STACK = 8 };
  shard_direction dirs_on_stack[ON_STACK];
  shard_direction *dirs = NULL;
  if (info) {
    /* A visit where no factor may propagate (most ops in the first
     * op-priority steps) changes nothing: it is skipped before reading any
     * sharding. It leaves no memo, since only another frozen visit, skipped
     * here as well, could match it. */
    uint32_t nf = rule->num_factors;
    dirs = nf <= ON_STACK ? dirs_on_stack : shard_xmalloc(sizeof *dirs * nf);
    if (!S_factor_directions(&d, nf, dirs)) {
      S_memo_invalidate(info);
      if (dirs != dirs_on_stack) free(dirs);
      return;
    }
  }
  if (info && S_unchanged_since(s, info, rule, dirs)) {
    if (dirs != dirs_on_stack) free(dirs);
    return;
  }
  uint32_t n = op->num_operands + op->num_results;
  tensor_ref t_on_stack[ON_STACK];
  tensor_ref *t = n <= ON_STACK ? t_on_stack : shard_xmalloc(sizeof *t * n);
  for (uint32_t i = 0; i < op->num_operands; i++) S_value_ref(s, &t[i], op->operands[i].value);
  for (uint32_t i = 0; i < op->num_results; i++) S_value_ref(s, &t[op->num_operands + i], &op->results[i]);
  d.known = dirs;
  if (!info || !S_seen_before(s, info, rule, t, n, NULL, 0, dirs)) {
    bool changed = S_propagate_tensors(s, op, rule, t, op->num_operands, op->num_results, &d, s->conservative);
    if (info && changed) S_memo_after_change(s, op, info->memo, t);
    else if (info) info->memo->seen_valid = true;
  }
  /* a visit that changed nothing wrote nothing: the count is as it was */
  if (info && info->memo->seen_valid) info->memo->seen_changes = s->changes;
  if (t != t_on_stack) free(t);
  if (dirs && dirs != dirs_on_stack) free(dirs);
}

/* The arena of an identity rule's visit, taken from the session (a visit
 * may start another through an observer) and handed back reset. */
static shard_arena *S_rule_scratch_take(shard_propagation *s) {
  shard_arena *a = s->rule_scratch ? s->rule_scratch : shard_arena_new();
  s->rule_scratch = NULL;
  return a;
}

static void S_rule_scratch_give(shard_propagation *s, shard_arena *a) {
  if (s->rule_scratch) {
    shard_arena_free(a);
    return;
  }
  shard_arena_reset(a);
  s->rule_scratch = a;
}

static void S_visit_barrier(shard_propagation *s, shard_op *op) {
  if (op->num_operands != 1 || op->num_results != 1 || !S_static_tensor(op->results[0].type)) return;
  shard_attr *dir = shard_op_attr(op, "allowed_direction");
  shard_direction allowed = dir && dir->kind == SHARD_ATTR_SDY_DIRECTION ? dir->u.direction : SHARD_DIR_NONE;
  shard_arena *scratch = S_rule_scratch_take(s);
  shard_op_sharding_rule *rule = S_identity_rule(scratch, op->results[0].type, 1);
  tensor_ref t[2];
  S_value_ref(s, &t[0], op->operands[0].value);
  S_value_ref(s, &t[1], &op->results[0]);
  direction_ctx d = {s, op, rule, allowed, true, NULL};
  S_propagate_tensors(s, op, rule, t, 1, 1, &d, false);
  S_rule_scratch_give(s, scratch);
}

/* The values feeding a data-flow edge whose owner is `owner`. */
static uint32_t S_edge_sources(shard_value *owner, shard_value **out, uint32_t cap) {
  shard_op *op = S_owning_op(owner);
  uint32_t n = 0;
  uint32_t i = owner->index;
  switch (S_df_kind(op)) {
  case DF_WHILE: {
    if (!owner->def) break;
    if (i < op->num_operands && n < cap) out[n++] = op->operands[i].value;
    shard_block *body = S_body(op, 1);
    shard_op *term = body ? shard_block_terminator(body) : NULL;
    if (term && i < term->num_operands && n < cap) out[n++] = term->operands[i].value;
    break;
  }
  case DF_CASE:
    for (uint32_t r = 0; r < op->num_regions; r++) {
      shard_block *b = S_body(op, r);
      shard_op *term = b ? shard_block_terminator(b) : NULL;
      if (term && i < term->num_operands && n < cap) out[n++] = term->operands[i].value;
    }
    break;
  case DF_OPT_BARRIER:
    if (i < op->num_operands && n < cap) out[n++] = op->operands[i].value;
    break;
  case DF_NAMED:
  case DF_MANUAL:
    if (owner->def) {
      shard_block *body = S_body(op, 0);
      shard_op *term = body ? shard_block_terminator(body) : NULL;
      if (term && i < term->num_operands && n < cap) out[n++] = term->operands[i].value;
    } else if (i < op->num_operands && n < cap) {
      out[n++] = op->operands[i].value;
    }
    break;
  case DF_NONE: break;
  }
  return n;
}

/* What an edge's visit records beside its sources' shardings (the memo's
 * keys, S_propagate_edge): the edge's sharding, and for the body's view of
 * a manual computation's block argument, the in_shardings entry the view is
 * made from. */
static void S_edge_keys(shard_propagation *s, shard_op *edge, const shard_tensor_sharding **keys) {
  keys[1] = NULL;
  if (!shard_op_is(edge, &K_sdy_data_flow_edge)) {
    tensor_ref r;
    S_value_ref(s, &r, &edge->results[0]);
    keys[0] = r.sharding;
    return;
  }
  keys[0] = S_sharding_attr(edge, "sharding");
  shard_value *owner = edge->operands[0].value;
  shard_op *df = S_owning_op(owner);
  if (keys[0] && !owner->def && S_df_kind(df) == DF_MANUAL) keys[1] = S_per_value_at(df, "in_shardings", owner->index);
}

/* Propagates between an edge's ns sources t[0..ns) (the shardable values
 * of sources[0..ns)) and its result t[ns] in both directions through an
 * identity rule, then hands the visit's arena (taken with
 * S_rule_scratch_take) back. view[0..2) are what the result's sharding is
 * made from when it is a per-visit view (t[ns].transient): a manual
 * computation's edge seen from the other side of its manual axes. */
static void S_propagate_edge(shard_propagation *s, shard_arena *scratch, shard_op *edge, op_info *edge_state,
                             shard_value *const *sources, tensor_ref *t, uint32_t ns,
                             const shard_tensor_sharding *const *view) {
  /* Like a registered op's visit (S_visit_registered), an edge visit that
   * would see what its last unchanged visit saw is skipped; the sources and
   * the target of an edge never change within a session, and neither does
   * its identity rule. A view is new at every visit: the memo records the
   * module's shardings it is made from instead (the same ones give the same
   * view). Without an observer. */
  op_info *info = !s->observer.on_step ? edge_state : NULL;
  /* The directions and the memo read only the number of factors: the rule
   * itself is built when the visit propagates. */
  shard_op_sharding_rule shape = S_identity_shape(edge->results[0].type);
  direction_ctx d = {s, edge, &shape, SHARD_DIR_BOTH, false, NULL};
  enum { ON_STACK = 8 };
  shard_direction dirs_on_stack[ON_STACK];
  shard_direction *dirs = NULL;
  bool skip = false;
  if (info) {
    uint32_t nf = shape.num_factors;
    dirs = nf <= ON_STACK ? dirs_on_stack : shard_xmalloc(sizeof *dirs * nf);
    if (!S_factor_directions(&d, nf, dirs)) {
      S_memo_invalidate(info);
      skip = true;
    } else {
      d.known = dirs;
      /* Always two keys: an edge's result may become a view in a later visit. */
      const shard_tensor_sharding *keys[2] = {t[ns].sharding, NULL};
      if (t[ns].transient) keys[0] = view[0], keys[1] = view[1];
      skip = S_seen_before(s, info, &shape, t, ns, keys, 2, dirs);
    }
  }
  if (!skip) {
    /* Built in the visit's scratch each time rather than kept: a few words
     * from a warm arena cost less than session memory for every edge. */
    shard_op_sharding_rule *rule = S_identity_rule(scratch, edge->results[0].type, ns);
    d.rule = rule;
    bool changed = S_propagate_tensors(s, edge, rule, t, ns, 1, &d, false);
    if (info && changed) {
      /* As for a registered op (S_memo_after_change): what the visit left
       * is what the next visit would see and leave unchanged. */
      visit_memo *memo = info->memo;
      for (uint32_t i = 0; i < ns; i++) {
        S_value_ref(s, &t[i], sources[i]);
        memo->seen[i] = t[i].sharding;
      }
      S_edge_keys(s, edge, &memo->seen[ns]);
      memo->seen_valid = true;
    } else if (info) {
      info->memo->seen_valid = true;
    }
  }
  if (info && info->memo && info->memo->seen_valid) info->memo->seen_changes = s->changes;
  if (dirs && dirs != dirs_on_stack) free(dirs);
  S_rule_scratch_give(s, scratch);
}

/* S_unchanged_since for an edge, before its visit reads any sharding (or
 * builds a manual computation's view). */
static bool S_edge_unchanged(shard_propagation *s, shard_op *edge, const op_info *info) {
  if (s->observer.on_step || !info->memo || !info->memo->seen_valid || info->memo->seen_changes != s->changes)
    return false;
  shard_op_sharding_rule shape = S_identity_shape(edge->results[0].type);
  direction_ctx d = {s, edge, &shape, SHARD_DIR_BOTH, false, NULL};
  enum { ON_STACK = 8 };
  shard_direction dirs_on_stack[ON_STACK];
  uint32_t nf = shape.num_factors;
  shard_direction *dirs = nf <= ON_STACK ? dirs_on_stack : shard_xmalloc(sizeof *dirs * nf);
  bool same = S_factor_directions(&d, nf, dirs) && S_unchanged_since(s, info, &shape, dirs);
  if (dirs != dirs_on_stack) free(dirs);
  return same;
}

/* An edge has a few sources (a while's operand and yield, a case's
 * branches): its visit's arrays are on the stack unless there are more. */
enum { EDGE_ON_STACK = 8 };

static void S_visit_edge(shard_propagation *s, shard_op *edge, op_info *info) {
  if (edge->num_operands != 1 || edge->num_results != 1 || !S_static_tensor(edge->results[0].type)) return;
  shard_value *owner = edge->operands[0].value;
  shard_op *df = S_owning_op(owner);
  uint32_t cap = df ? df->num_regions + 2 : 2;
  shard_value *sources_on_stack[EDGE_ON_STACK];
  tensor_ref t_on_stack[EDGE_ON_STACK + 1];
  shard_value **sources = cap <= EDGE_ON_STACK ? sources_on_stack : shard_xmalloc(cap * sizeof *sources);
  uint32_t ns = S_edge_sources(owner, sources, cap);
  if (S_edge_unchanged(s, edge, info)) {
    if (sources != sources_on_stack) free(sources);
    return;
  }
  tensor_ref *t = ns <= EDGE_ON_STACK ? t_on_stack : shard_xmalloc((ns + 1) * sizeof *t);
  for (uint32_t i = 0; i < ns; i++) S_value_ref(s, &t[i], sources[i]);
  shard_tensor_sharding *target = S_sharding_attr(edge, "sharding");
  /* The body's view of a manual computation's edge lives for this visit
   * only; the memo records what it is made from (view). */
  shard_arena *scratch = S_rule_scratch_take(s);
  bool manual_view = target && S_df_kind(df) == DF_MANUAL;
  const shard_tensor_sharding *view[2] = {target, NULL};
  if (manual_view) {
    const shard_attr *manual = shard_op_attr(df, "manual_axes");
    if (owner->def) {
      target = shard_sharding_erase_manual(scratch, target, manual);
    } else {
      view[1] = S_per_value_at(df, "in_shardings", owner->index);
      target = shard_sharding_add_free(scratch, view[1], target, manual);
    }
  }
  t[ns].kind = TENSOR_EDGE;
  t[ns].value = &edge->results[0];
  t[ns].owner = edge;
  t[ns].index = 0;
  t[ns].sharding = target;
  t[ns].transient = manual_view;
  S_propagate_edge(s, scratch, edge, info, sources, t, ns, view);
  if (t != t_on_stack) free(t);
  if (sources != sources_on_stack) free(sources);
}

/* sdy.func_data_flow_edge on a func argument joins the operands of every
 * call; on a call result, the callee's returned value. */
static void S_visit_func_edge(shard_propagation *s, shard_op *edge, op_info *info) {
  if (edge->num_operands != 1 || edge->num_results != 1 || !S_static_tensor(edge->results[0].type)) return;
  shard_value *in = edge->operands[0].value;
  SHARD_VEC(shard_value *) sources = {0};
  if (!in->def) {
    shard_op *func = S_owning_op(in);
    if (!func || !shard_op_is(func, &K_func_func)) return;
    op_vec calls = {0};
    S_callers(s, func, &calls);
    for (uint32_t i = 0; i < calls.len; i++)
      if (in->index < calls.items[i]->num_operands) SHARD_VEC_PUSH(sources, calls.items[i]->operands[in->index].value);
    SHARD_VEC_FREE(calls);
  } else if (shard_op_is(in->def, &K_func_call)) {
    shard_op *func = S_callee(s->m, in->def);
    shard_block *body = func ? S_body(func, 0) : NULL;
    shard_op *ret = body ? shard_block_terminator(body) : NULL;
    if (ret && shard_op_is(ret, &K_func_return) && in->index < ret->num_operands)
      SHARD_VEC_PUSH(sources, ret->operands[in->index].value);
  }
  if (!sources.len) {
    SHARD_VEC_FREE(sources);
    return;
  }
  uint32_t ns = sources.len;
  tensor_ref *t = shard_xmalloc((ns + 1) * sizeof *t);
  for (uint32_t i = 0; i < ns; i++) S_value_ref(s, &t[i], sources.items[i]);
  S_value_ref(s, &t[ns], &edge->results[0]);
  S_propagate_edge(s, S_rule_scratch_take(s), edge, info, sources.items, t, ns, NULL);
  free(t);
  SHARD_VEC_FREE(sources);
}

/* Visits op, whose state is info (the worklist holds ids: no lookup). */
static void S_visit(shard_propagation *s, shard_op *op, op_info *info) {
  s->current = op;
  if (!S_is_sdy(op)) S_visit_registered(s, op, info);
  else if (shard_op_is(op, &K_sdy_propagation_barrier)) S_visit_barrier(s, op);
  else if (shard_op_is(op, &K_sdy_data_flow_edge)) S_visit_edge(s, op, info);
  else if (shard_op_is(op, &K_sdy_func_data_flow_edge)) S_visit_func_edge(s, op, info);
  else S_visit_registered(s, op, info);
  s->current = NULL;
}

/* ---- func results ------------------------------------------------------------------------ */

static shard_op *S_main_func(const shard_module *m) {
  shard_block *body = m->top->num_regions ? m->top->regions[0].first : NULL;
  shard_op *only = NULL;
  uint32_t count = 0;
  for (shard_op *op = body ? body->first : NULL; op; op = op->next)
    if (shard_op_is(op, &K_func_func)) {
      only = op;
      count++;
    }
  if (count == 1) return only;
  shard_op *main_fn = shard_module_lookup_symbol(m, "main");
  return main_fn && shard_op_is(main_fn, &K_func_func) ? main_fn : NULL;
}

/* Identity propagation between each returned value and the func result attr. */
static void S_propagate_func_results(shard_propagation *s) {
  shard_op *func = S_main_func(s->m);
  shard_block *entry = func ? S_body(func, 0) : NULL;
  shard_op *ret = entry ? shard_block_terminator(entry) : NULL;
  if (!ret) return;
  s->notify = false;
  /* An observer may read the func results after each step: then they are
   * set one at a time. */
  uint32_t nres = shard_func_num_results(func);
  shard_tensor_sharding **pending = NULL;
  if (!s->observer.on_step && nres) {
    pending = shard_xcalloc(nres, sizeof *pending);
    s->pending_results = pending;
    s->num_pending_results = nres;
  }
  result_memo *memo = NULL;
  if (!s->observer.on_step) {
    if (s->result_memo_func != func || s->num_result_memo != ret->num_operands) {
      free(s->result_memo);
      s->result_memo = shard_xcalloc(ret->num_operands ? ret->num_operands : 1, sizeof *s->result_memo);
      s->result_memo_func = func;
      s->num_result_memo = ret->num_operands;
    }
    memo = s->result_memo;
  }
  for (uint32_t i = 0; i < ret->num_operands; i++) {
    shard_value *v = ret->operands[i].value;
    if (!S_static_tensor(v->type)) continue;
    tensor_ref t[2];
    S_value_ref(s, &t[0], v);
    t[1].kind = TENSOR_FUNC_RESULT;
    t[1].value = NULL;
    t[1].owner = func;
    t[1].index = i;
    t[1].sharding = pending && i < nres && pending[i] ? pending[i] : shard_func_result_sharding(func, i);
    t[1].transient = false;
    /* Shardings are replaced, never edited, and nothing is freed in a
     * session: the same two pointers again would change nothing again. */
    if (memo && memo[i].valid && memo[i].value == t[0].sharding && memo[i].result == t[1].sharding &&
        memo[i].strategy == s->strategy)
      continue;
    shard_arena *scratch = S_rule_scratch_take(s);
    shard_op_sharding_rule *rule = S_identity_rule(scratch, v->type, 1);
    direction_ctx d = {s, func, rule, SHARD_DIR_BOTH, true, NULL};
    bool changed = S_propagate_tensors(s, NULL, rule, t, 1, 1, &d, false);
    S_rule_scratch_give(s, scratch);
    if (memo && changed) {
      /* What the sync left, read back right away (a later result may
       * return the same value): syncing again would change nothing, as
       * for an op's visit (S_memo_after_change). */
      S_value_ref(s, &t[0], v);
      t[1].sharding = pending && i < nres && pending[i] ? pending[i] : shard_func_result_sharding(func, i);
    }
    if (memo) memo[i] = (result_memo){t[0].sharding, t[1].sharding, s->strategy, true};
  }
  if (pending) {
    s->pending_results = NULL;
    s->num_pending_results = 0;
    shard_func_set_result_shardings(s->a, func, pending);
    free(pending);
  }
  s->notify = true;
}

/* ---- session --------------------------------------------------------------------------- */

static bool S_add_op(shard_op *op, void *ctx) {
  shard_op_table_add(ctx, op);
  return true;
}

/* What the one walk of a session's start gathers: every op (the index), the
 * sharding groups, and whether every result type can propagate. */
typedef struct begin_walk {
  shard_op_table *index;
  op_vec groups;
  shard_diag_engine *de;
  bool ok;
} begin_walk;

static bool S_check_shapes(shard_op *op, begin_walk *c) {
  for (uint32_t i = 0; i < op->num_results; i++) {
    const shard_type *t = op->results[i].type;
    if (!t) continue;
    if ((t->kind == SHARD_TYPE_TENSOR && !shard_type_is_static_tensor(t)) || t->kind == SHARD_TYPE_UNRANKED_TENSOR) {
      shard_error(c->de, op->span, "Shardy propagation only supports ranked tensors with a static shape. type: %s",
                  t->text);
      c->ok = false;
      return false;
    }
    if (t->kind == SHARD_TYPE_TUPLE) {
      shard_error(c->de, op->span, "Shardy propagation doesn't support tuples: %s", t->text);
      c->ok = false;
      return false;
    }
  }
  return true;
}

static bool S_fully_open_replicated(const shard_tensor_sharding *t) {
  for (uint32_t d = 0; d < t->rank; d++)
    if (t->dims[d].num_axes || !t->dims[d].is_open) return false;
  return true;
}

/* A sharding_group op: its group and its place among the group ops. */
typedef struct group_op {
  int64_t group;
  uint32_t index;
} group_op;

static int S_cmp_group_op(const void *pa, const void *pb) {
  const group_op *a = pa, *b = pb;
  if (a->group != b->group) return a->group < b->group ? -1 : 1;
  return a->index < b->index ? -1 : a->index > b->index;
}

/* Gives every member of a group the group's sharding; when members disagree,
 * warns and routes each member through an open sharding constraint instead.
 * Returns whether it added ops. */
static bool S_sync_groups(shard_propagation *s, op_vec *group_ops) {
  bool added = false;
  /* The group ops by group id, each group in walk order: one pass per group
   * instead of a scan of every group op for every id up to the largest. */
  SHARD_VEC(group_op) order = {0};
  for (uint32_t i = 0; i < group_ops->len; i++) {
    shard_op *op = group_ops->items[i];
    shard_attr *g = shard_op_attr(op, "group_id");
    if (!g || g->kind != SHARD_ATTR_INT || g->u.integer.value < 0 || op->num_operands != 1) continue;
    group_op go = {g->u.integer.value, i};
    SHARD_VEC_PUSH(order, go);
  }
  if (order.len) qsort(order.items, order.len, sizeof *order.items, S_cmp_group_op);
  SHARD_VEC(group_member) members = {0};
  for (uint32_t first = 0, last; first < order.len; first = last) {
    int64_t gid = order.items[first].group;
    for (last = first; last < order.len && order.items[last].group == gid; last++) {
    }
    SHARD_VEC(shard_value *) vals = {0};
    for (uint32_t j = first; j < last; j++) {
      shard_op *op = group_ops->items[order.items[j].index];
      shard_value *v = op->operands[0].value;
      bool dup = false;
      for (uint32_t k = 0; k < vals.len; k++) dup |= vals.items[k] == v;
      if (!dup) SHARD_VEC_PUSH(vals, v);
    }
    if (!vals.len) {
      SHARD_VEC_FREE(vals);
      continue;
    }
    shard_tensor_sharding *common = NULL;
    bool conflict = false;
    if (vals.len == 1) {
      common = shard_propagation_value_sharding(s->a, vals.items[0]);
    } else {
      for (uint32_t k = 0; k < vals.len && !conflict; k++) {
        shard_tensor_sharding *c = shard_propagation_value_sharding(s->a, vals.items[k]);
        if (!c || S_fully_open_replicated(c)) continue;
        if (!common) common = c;
        else if (!shard_sharding_equal(c, common)) conflict = true;
      }
    }
    if (common && !conflict) {
      for (uint32_t k = 0; k < vals.len; k++) shard_propagation_set_value_sharding(s->a, vals.items[k], common);
    } else if (common) {
      shard_warning(s->de, S_owning_op(vals.items[0])->span,
                    "The initial operand shardings on the sharding groups of groupID: %lld do not "
                    "match. Inserting an open sharding constraint to all constrained values. This "
                    "can be caused when shardings from different values are grouped (e.g. from "
                    "jax.shard_alike) but have separate inconsistent sharding constraints on them.",
                    (long long)gid);
      for (uint32_t k = 0; k < vals.len; k++) {
        shard_value *v = vals.items[k];
        shard_tensor_sharding *open =
            shard_sharding_open(s->a, common->mesh_name, common->inline_mesh, common->rank, true);
        shard_op *c = shard_op_new_named(s->a, "sdy.sharding_constraint", 1, &v, 1, &v->type, 0);
        added = true;
        shard_op_set_attr(s->a, c, "sharding", shard_attr_sharding(s->a, open), true);
        if (v->def) shard_op_insert_after(v->def, c);
        else if (v->block->first) shard_op_insert_before(v->block->first, c);
        else shard_block_append(v->block, c);
        c->span = S_owning_op(v)->span;
        shard_value_replace_all_uses(v, &c->results[0]);
        shard_operand_set(&c->operands[0], v);
        vals.items[k] = &c->results[0];
      }
    }
    for (uint32_t k = 0; k < vals.len; k++) {
      group_member gm = {vals.items[k], gid};
      SHARD_VEC_PUSH(members, gm);
    }
    SHARD_VEC_FREE(vals);
  }
  SHARD_VEC_FREE(order);
  s->num_members = members.len;
  s->members = members.items; /* heap, freed with the session */
  if (s->num_members) qsort(s->members, s->num_members, sizeof *s->members, S_cmp_member);
  /* The same members by group, each group in the order of members (value
   * pointers), for the members of one group. */
  s->by_group = shard_xmalloc((s->num_members ? s->num_members : 1) * sizeof *s->by_group);
  if (s->num_members) memcpy(s->by_group, s->members, s->num_members * sizeof *s->by_group);
  if (s->num_members) qsort(s->by_group, s->num_members, sizeof *s->by_group, S_cmp_group_then_value);
  return added;
}

static bool S_begin_op(shard_op *op, void *ctx) {
  begin_walk *w = ctx;
  if (!S_check_shapes(op, w)) return false;
  shard_op_table_add(w->index, op);
  if (shard_op_is(op, &K_sdy_sharding_group)) SHARD_VEC_PUSH(w->groups, op);
  return true;
}

/* The per-op state for the ops of s->index, and the calls grouped by callee. */
static void S_build_ops(shard_propagation *s) {
  uint32_t num_ops = s->index.len;
  shard_op **all = s->index.ops;
  s->ops = shard_xcalloc(num_ops ? num_ops : 1, sizeof *s->ops);
  /* Count the calls of each callee, then place them. */
  SHARD_VEC(call_range) ranges = {0};
  uint32_t num_calls = 0;
  for (uint32_t i = 0; i < num_ops; i++) {
    if (!shard_op_is(all[i], &K_func_call)) continue;
    shard_op *callee = S_callee(s->m, all[i]);
    if (!callee) continue;
    uint64_t *id = shard_ptrmap_slot(&s->callers, callee);
    if (!*id) {
      call_range r = {0, 0};
      SHARD_VEC_PUSH(ranges, r);
      *id = ranges.len; /* id + 1 */
    }
    ranges.items[*id - 1].num++;
    num_calls++;
  }
  s->calls = shard_xcalloc(num_calls ? num_calls : 1, sizeof *s->calls);
  uint32_t next = 0;
  for (uint32_t k = 0; k < ranges.len; k++) {
    ranges.items[k].first = next;
    next += ranges.items[k].num;
    ranges.items[k].num = 0;
  }
  for (uint32_t i = 0; i < num_ops; i++) {
    if (!shard_op_is(all[i], &K_func_call)) continue;
    uint64_t id = shard_ptrmap_get(&s->callers, S_callee(s->m, all[i]));
    if (!id) continue;
    call_range *r = &ranges.items[id - 1];
    s->calls[r->first + r->num++] = all[i];
  }
  s->call_ranges = ranges.items; /* heap, freed with the session */
}

shard_propagation *shard_propagation_begin(shard_module *m, bool conservative, const shard_rule_provider *extra_rules,
                                           shard_diag_engine *de) {
  shard_propagation *s = shard_xcalloc(1, sizeof *s);
  shard_op_table_init(&s->index);
  begin_walk w = {&s->index, {0}, de, true};
  shard_walk(m->top, S_begin_op, &w);
  if (!w.ok) {
    SHARD_VEC_FREE(w.groups);
    shard_op_table_release(&s->index);
    free(s);
    return NULL;
  }
  s->m = m;
  s->a = m->arena;
  s->de = de;
  s->conservative = conservative;
  s->notify = true;
  s->memo = shard_arena_new();
  s->scratch = shard_arena_new();
  s->extra_rules = extra_rules;
  s->rules = shard_rule_cache_new(extra_rules);
  if (S_sync_groups(s, &w.groups)) {
    /* Conflicting groups added sharding constraints: number the ops again. */
    shard_op_table_release(&s->index);
    shard_op_table_init(&s->index);
    shard_walk(m->top, S_add_op, &s->index);
  }
  SHARD_VEC_FREE(w.groups);
  S_build_ops(s);
  return s;
}

void shard_propagation_run(shard_propagation *s, shard_factor_strategy strategy, shard_op_direction_fn direction,
                           void *ctx) {
  s->strategy = strategy;
  s->direction = direction;
  s->direction_ctx = ctx;
  S_propagate_func_results(s);
  /* Pre-order, reversed so popping from the back visits in pre-order. */
  s->worklist.len = 0;
  for (uint32_t i = s->index.len; i-- > 0;) {
    shard_op *op = s->index.ops[i];
    if (op == s->m->top) continue;
    s->ops[i].queued = true;
    SHARD_VEC_PUSH(s->worklist, i);
  }
  while (s->worklist.len) {
    uint32_t id = s->worklist.items[--s->worklist.len];
    op_info *info = &s->ops[id];
    info->queued = false;
    S_visit(s, s->index.ops[id], info);
  }
  S_propagate_func_results(s);
}

void shard_propagation_end(shard_propagation *s, bool keep_rules) {
  /* Equal ops share a created rule, and then one attribute (attributes are
   * never edited in place): one per rule instead of one per op. */
  shard_ptrmap rule_attrs = {0};
  for (uint32_t i = 0; i < s->index.len; i++) {
    op_info *info = &s->ops[i];
    shard_op *op = s->index.ops[i];
    if (keep_rules) {
      if (info->rule_created) {
        shard_attr *r = shard_ptrmap_get_ptr(&rule_attrs, info->rule);
        if (!r) {
          r = shard_attr_new(s->a, SHARD_ATTR_SDY_RULE);
          r->u.rule = info->rule;
          shard_ptrmap_put_ptr(&rule_attrs, info->rule, r);
        }
        shard_op_set_attr(s->a, op, "sdy.sharding_rule", r, false);
      }
      continue;
    }
    shard_attr *r = shard_op_attr(op, "sdy.sharding_rule");
    if (r && r->kind == SHARD_ATTR_SDY_RULE && !r->u.rule->is_custom) shard_op_remove_attr(op, "sdy.sharding_rule");
  }
  shard_ptrmap_release(&rule_attrs);
  SHARD_VEC_FREE(s->worklist);
  SHARD_VEC_FREE(s->notified);
  free(s->ops);
  shard_op_table_release(&s->index);
  free(s->members);
  free(s->by_group);
  free(s->calls);
  shard_ptrmap_release(&s->callers);
  free(s->call_ranges);
  shard_arena_free(s->memo);
  shard_rule_cache_free(s->rules);
  shard_arena_free(s->scratch);
  shard_arena_free(s->rule_scratch);
  free(s->result_memo);
  free(s);
}
