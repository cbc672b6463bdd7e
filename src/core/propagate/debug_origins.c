/* Propagation debug information (see debug_origins.h), after Shardy's
 * debugging/source_sharding.cc.
 *
 * Begin: constraints are named constraint_0, constraint_1, ... and manual
 * computations mc_0, ... in post-order (nested ones first, as MLIR's walk
 * goes); the axes of every user sharding are recorded as coming from it:
 * constraint shardings on the constraint result (and on its operand when
 * that has a sharding), manual computation in/out shardings on their
 * data-flow edges (and on the operand feeding a block argument), then func
 * arguments and returned values of the top-level funcs. The first origin
 * recorded for an axis of a value wins, here and later.
 *
 * Each step (an op propagated through, whose factor shardings changed)
 * compares the projections before and after: for each tensor and factor that
 * changed, the axes new to the tensor came from the first operand (else
 * result) whose old factor axes already held the new ones. That gives one
 * edge per new axis (source, target, step number) and the target value takes
 * the source value's origin for the axis. Shardy looks only at the last old
 * axis (it may have grown from a sub-axis) and the axes past the old count,
 * and so do we, so the printed edges agree with sdy_opt's.
 *
 * End: origins become dictionaries on the values' owners (a returned value
 * also gives its dictionary to the func result), then an origin naming the
 * holder itself turns into "self"; edges are grouped by step (each
 * axis/source/target keeping its earliest step), axes sorted, targets
 * sorted, into #sdy.propagation_edges. */
#include "propagate/debug_origins.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pass/pass_shardings.h"
#include "support/ptrmap.h"
#include "rules/rule_registry.h"

typedef enum origin_kind {
  ORIGIN_INPUT,
  ORIGIN_CONSTRAINT,
  ORIGIN_OUTPUT,
  ORIGIN_MC_INPUT,
  ORIGIN_MC_OUTPUT
} origin_kind;

typedef struct origin {
  origin_kind kind;
  int64_t index; /* input/output/mc operand or result number */
  int64_t source_id; /* N of constraint_N or mc_N */
} origin;

typedef struct axis_origin {
  shard_axis_ref axis;
  origin origin;
} axis_origin;

typedef struct value_origins {
  shard_value *value;
  SHARD_VEC(axis_origin) axes;
} value_origins;

typedef struct edge_rec {
  shard_axis_ref axis;
  shard_value_ref source, target;
  int64_t step;
} edge_rec;

typedef SHARD_VEC(edge_rec) edge_vec;

typedef struct op_edges {
  shard_op *op; /* the op, or the func for edges of its results */
  bool func_results;
  edge_vec edges;
} op_edges;

typedef SHARD_VEC(shard_op *) op_vec;

/* ---- the recorder -------------------------------------------------------------------- */

struct shard_debug_origins {
  const shard_rule_provider *extra_rules; /* rules for ops the registry does not know */
  shard_module *m;
  bool origins, edges;
  int64_t step; /* number of the next step */
  SHARD_VEC(value_origins) values;
  shard_ptrmap value_index;
  SHARD_VEC(op_edges) ops;
  shard_ptrmap op_index, func_index;
};

static bool S_is(const shard_op *op, const char *name) { return op && strcmp(op->name, name) == 0; }

static shard_op *S_owning_op(const shard_value *v) {
  if (v->def) return v->def;
  return v->block && v->block->parent ? v->block->parent->parent : NULL;
}

static shard_value *S_shardable(shard_value *v) {
  shard_value *s = shard_propagation_shardable_value(v);
  return s ? s : v;
}

static value_origins *S_value_origins(shard_debug_origins *d, shard_value *v, bool create) {
  const uint64_t *i = shard_ptrmap_find(&d->value_index, v);
  if (i) return &d->values.items[*i];
  if (!create) return NULL;
  value_origins fresh = {v, {0}};
  SHARD_VEC_PUSH(d->values, fresh);
  shard_ptrmap_put(&d->value_index, v, d->values.len - 1);
  return &d->values.items[d->values.len - 1];
}

static const axis_origin *S_find_axis(const value_origins *vo, const shard_axis_ref *axis) {
  for (uint32_t i = 0; vo && i < vo->axes.len; i++)
    if (shard_axis_equal(&vo->axes.items[i].axis, axis)) return &vo->axes.items[i];
  return NULL;
}

/* Records `o` for `axis` on v unless v already has an origin for it. */
static void S_add_origin(shard_debug_origins *d, shard_value *v, const shard_axis_ref *axis, origin o) {
  value_origins *vo = S_value_origins(d, v, true);
  if (S_find_axis(vo, axis)) return;
  axis_origin ao = {*axis, o};
  SHARD_VEC_PUSH(vo->axes, ao);
}

/* Every dimension axis of `s` comes from `o` (replicated axes don't count). */
static void S_add_sharding_origins(shard_debug_origins *d, shard_value *v, const shard_tensor_sharding *s, origin o) {
  if (!s) return;
  v = S_shardable(v);
  for (uint32_t dim = 0; dim < s->rank; dim++)
    for (uint32_t k = 0; k < s->dims[dim].num_axes; k++) S_add_origin(d, v, &s->dims[dim].axes[k], o);
}

static op_edges *S_op_edges(shard_debug_origins *d, shard_op *op, bool func_results) {
  shard_ptrmap *index = func_results ? &d->func_index : &d->op_index;
  const uint64_t *i = shard_ptrmap_find(index, op);
  if (i) return &d->ops.items[*i];
  op_edges fresh = {op, func_results, {0}};
  SHARD_VEC_PUSH(d->ops, fresh);
  shard_ptrmap_put(index, op, d->ops.len - 1);
  return &d->ops.items[d->ops.len - 1];
}

/* ---- names ----------------------------------------------------------------------------- */

static const char *S_origin_text(shard_arena *a, const origin *o) {
  char buf[96];
  switch (o->kind) {
  case ORIGIN_INPUT: snprintf(buf, sizeof buf, "input: %lld", (long long)o->index); break;
  case ORIGIN_OUTPUT: snprintf(buf, sizeof buf, "output: %lld", (long long)o->index); break;
  case ORIGIN_CONSTRAINT: snprintf(buf, sizeof buf, "constraint_%lld", (long long)o->source_id); break;
  case ORIGIN_MC_INPUT:
    snprintf(buf, sizeof buf, "mc_%lld_input: %lld", (long long)o->source_id, (long long)o->index);
    break;
  case ORIGIN_MC_OUTPUT:
    snprintf(buf, sizeof buf, "mc_%lld_output: %lld", (long long)o->source_id, (long long)o->index);
    break;
  }
  return shard_arena_strdup(a, buf);
}

const char *shard_debug_origins_axis_key(shard_arena *a, const shard_axis_ref *axis) {
  char buf[160];
  if (axis->is_sub)
    snprintf(buf, sizeof buf, "%s:(%lld)%lld", axis->name, (long long)axis->pre_size, (long long)axis->size);
  else snprintf(buf, sizeof buf, "%s", axis->name);
  return shard_arena_strdup(a, buf);
}

static shard_attr *S_string(shard_arena *a, const char *s) { return shard_attr_string(a, s, (uint32_t)strlen(s)); }

/* ---- data-flow edges -------------------------------------------------------------------- */

/* The sdy.data_flow_edge whose input is `owner`, or NULL. */
static shard_op *S_edge_of(const shard_value *owner) {
  for (shard_operand *u = owner->first_use; u; u = u->next_use)
    if (S_is(u->owner, "sdy.data_flow_edge") && shard_operand_index(u) == 0) return u->owner;
  return NULL;
}

static shard_tensor_sharding *S_per_value_at(const shard_op *op, const char *name, uint32_t i) {
  shard_attr *pv = shard_op_attr(op, name);
  if (!pv || pv->kind != SHARD_ATTR_SDY_PER_VALUE || i >= pv->u.per_value->num) return NULL;
  return &pv->u.per_value->shardings[i];
}

static shard_block *S_body(const shard_op *op) { return op->num_regions ? op->regions[0].first : NULL; }

/* ---- begin ----------------------------------------------------------------------------- */

static void S_collect_post_order(shard_op *op, op_vec *constraints, op_vec *manuals) {
  for (uint32_t r = 0; r < op->num_regions; r++)
    for (shard_block *b = op->regions[r].first; b; b = b->next)
      for (shard_op *o = b->first; o; o = o->next) S_collect_post_order(o, constraints, manuals);
  if (S_is(op, "sdy.sharding_constraint")) SHARD_VEC_PUSH(*constraints, op);
  else if (S_is(op, "sdy.manual_computation")) SHARD_VEC_PUSH(*manuals, op);
}

static void S_seed_constraint(shard_debug_origins *d, shard_op *op, int64_t id) {
  shard_arena *a = d->m->arena;
  origin o = {ORIGIN_CONSTRAINT, 0, id};
  shard_attr *s = shard_op_attr(op, "sharding");
  if (op->num_results == 1 && s && s->kind == SHARD_ATTR_SDY_SHARDING)
    S_add_sharding_origins(d, &op->results[0], s->u.sharding, o);
  shard_op_set_attr(a, op, "sdy.sharding_origin_name", S_string(a, S_origin_text(a, &o)), false);
  if (op->num_operands == 1) {
    shard_value *in = op->operands[0].value;
    S_add_sharding_origins(d, in, shard_propagation_value_sharding(a, in), o);
  }
}

static void S_seed_manual(shard_debug_origins *d, shard_op *op, int64_t id) {
  shard_arena *a = d->m->arena;
  shard_block *body = S_body(op);
  for (uint32_t i = 0; body && i < body->num_args; i++) {
    shard_tensor_sharding *s = S_per_value_at(op, "in_shardings", i);
    shard_op *edge = S_edge_of(&body->args[i]);
    origin o = {ORIGIN_MC_INPUT, i, id};
    if (!edge || !s) continue; /* Shardy requires the edges; without them there is nothing to name */
    S_add_sharding_origins(d, &edge->results[0], s, o);
    if (i < op->num_operands) {
      shard_value *src = op->operands[i].value;
      S_add_sharding_origins(d, src, shard_propagation_value_sharding(a, src), o);
    }
  }
  for (uint32_t i = 0; i < op->num_results; i++) {
    shard_tensor_sharding *s = S_per_value_at(op, "out_shardings", i);
    shard_op *edge = S_edge_of(&op->results[i]);
    origin o = {ORIGIN_MC_OUTPUT, i, id};
    if (edge && s) S_add_sharding_origins(d, &edge->results[0], s, o);
  }
  char name[48];
  snprintf(name, sizeof name, "mc_%lld", (long long)id);
  shard_op_set_attr(a, op, "sdy.sharding_origin_name", S_string(a, name), false);
}

static shard_op *S_return_of(const shard_op *func) {
  shard_block *entry = S_body(func);
  shard_op *term = entry ? shard_block_terminator(entry) : NULL;
  return S_is(term, "func.return") ? term : NULL;
}

static void S_seed_func(shard_debug_origins *d, shard_op *func) {
  shard_block *entry = S_body(func);
  for (uint32_t i = 0; entry && i < entry->num_args; i++) {
    origin o = {ORIGIN_INPUT, i, 0};
    S_add_sharding_origins(d, &entry->args[i], shard_func_arg_sharding(func, i), o);
  }
  shard_op *ret = S_return_of(func);
  for (uint32_t i = 0; ret && i < ret->num_operands; i++) {
    origin o = {ORIGIN_OUTPUT, i, 0};
    S_add_sharding_origins(d, ret->operands[i].value, shard_func_result_sharding(func, i), o);
  }
}

static shard_block *S_top_block(const shard_module *m) { return m->top->num_regions ? m->top->regions[0].first : NULL; }

static bool S_max_step(shard_op *op, void *ctx) {
  int64_t *max = ctx;
  shard_attr *e = shard_op_attr(op, "sdy.propagation_edges");
  if (e && e->kind == SHARD_ATTR_SDY_EDGES)
    for (uint32_t i = 0; i < e->u.edges.num; i++)
      if (e->u.edges.steps[i].step > *max) *max = e->u.edges.steps[i].step;
  return true;
}

shard_debug_origins *shard_debug_origins_begin(shard_module *m, bool origins, bool edges,
                                               const shard_rule_provider *extra_rules) {
  if (!origins && !edges) return NULL;
  shard_debug_origins *d = shard_xcalloc(1, sizeof *d);
  d->m = m;
  d->origins = origins;
  d->edges = edges;
  d->extra_rules = extra_rules;
  int64_t max = -1;
  shard_walk(m->top, S_max_step, &max);
  d->step = max + 1;
  if (!origins) return d;
  op_vec constraints = {0}, manuals = {0};
  S_collect_post_order(m->top, &constraints, &manuals);
  for (uint32_t i = 0; i < constraints.len; i++) S_seed_constraint(d, constraints.items[i], i);
  for (uint32_t i = 0; i < manuals.len; i++) S_seed_manual(d, manuals.items[i], i);
  SHARD_VEC_FREE(constraints);
  SHARD_VEC_FREE(manuals);
  /* After the constraints and manual computations, which may already have
   * named the origin of a func argument's axes. */
  shard_block *top = S_top_block(m);
  for (shard_op *op = top ? top->first : NULL; op; op = op->next)
    if (S_is(op, "func.func")) S_seed_func(d, op);
  return d;
}

/* ---- one step ------------------------------------------------------------------------- */

/* An axis that reached one tensor during a step, and from where. */
typedef struct new_axis {
  shard_axis_ref axis;
  shard_value_ref source, target;
} new_axis;

typedef SHARD_VEC(new_axis) new_axis_vec;

static bool S_axes_equal(const shard_axes *a, const shard_axes *b) {
  if (a->n != b->n) return false;
  for (uint32_t i = 0; i < a->n; i++)
    if (!shard_axis_equal(&a->v[i], &b->v[i])) return false;
  return true;
}

/* Adds axis unless the tensor already got it this step (the first wins). */
static void S_note_axis(new_axis_vec *out, const shard_axis_ref *axis, shard_value_ref source, shard_value_ref target) {
  for (uint32_t i = 0; i < out->len; i++)
    if (shard_axis_equal(&out->items[i].axis, axis)) return;
  new_axis n = {*axis, source, target};
  SHARD_VEC_PUSH(*out, n);
}

/* Shardy's saveEdges: of the new axes, only the one at the position of the
 * last old axis (when it differs from it: a grown sub-axis) and those past
 * the old count are kept. */
static void S_save_edges(new_axis_vec *out, const shard_axis_ref *fresh, uint32_t nfresh, const shard_axes *old,
                         shard_value_ref source, shard_value_ref target) {
  if (old->n && old->n - 1 < nfresh && !shard_axis_equal(&old->v[old->n - 1], &fresh[old->n - 1]))
    S_note_axis(out, &fresh[old->n - 1], source, target);
  for (uint32_t i = old->n; i < nfresh; i++) S_note_axis(out, &fresh[i], source, target);
}

/* The first tensor in [from, to) whose old axes for factor f hold `axes`. */
static bool S_find_source(const shard_projection *before, uint32_t from, uint32_t to, uint32_t f,
                          const shard_axes *axes, uint32_t *found) {
  for (uint32_t t = from; t < to; t++) {
    const shard_factor_sharding *fs = &before->tensors[t].factors[f];
    if (fs->mapped && shard_axes_prefix_status(axes->v, axes->n, fs->axes.v, fs->axes.n) != SHARD_PREFIX_NOT) {
      *found = t - from;
      return true;
    }
  }
  return false;
}

/* The axes new to tensor t in this step, each with its source. */
static void S_new_axes(shard_arena *scratch, const shard_op_sharding_rule *rule, const shard_projection *before,
                       const shard_projection *after, uint32_t t, new_axis_vec *out) {
  uint32_t nops = before->num_operands, n = shard_projection_num_tensors(before);
  const shard_tensor_factors *old_t = &before->tensors[t], *new_t = &after->tensors[t];
  shard_value_ref target = {t >= nops, t >= nops ? t - nops : t};
  SHARD_VEC(shard_axis_ref) old_axes = {0};
  for (uint32_t f = 0; f < before->num_factors; f++)
    if (old_t->factors[f].mapped)
      for (uint32_t k = 0; k < old_t->factors[f].axes.n; k++) SHARD_VEC_PUSH(old_axes, old_t->factors[f].axes.v[k]);
  shard_tensor_sharding *sharding = NULL;
  SHARD_VEC(shard_axis_ref) fresh = {0};
  for (uint32_t f = 0; f < before->num_factors; f++) {
    const shard_factor_sharding *of = &old_t->factors[f], *nf = &new_t->factors[f];
    if (!of->mapped || S_axes_equal(&of->axes, &nf->axes)) continue;
    if (!sharding) {
      const shard_tensor_mapping *mapping = t < nops ? &rule->operands[t] : &rule->results[t - nops];
      sharding = shard_projection_to_sharding(scratch, after, t, mapping, "", NULL);
    }
    /* The tensor's axes that are new and extend this factor's axes (a
     * reshape may have merged sub-axes of several factors into one). */
    fresh.len = 0;
    for (uint32_t dim = 0; dim < sharding->rank; dim++)
      for (uint32_t k = 0; k < sharding->dims[dim].num_axes; k++) {
        const shard_axis_ref *ax = &sharding->dims[dim].axes[k];
        bool old = false;
        for (uint32_t i = 0; i < old_axes.len && !old; i++) old = shard_axis_equal(&old_axes.items[i], ax);
        if (old) continue;
        for (uint32_t i = 0; i < nf->axes.n; i++)
          if (shard_axis_is_prefix_of(&nf->axes.v[i], ax, after->mesh)) {
            SHARD_VEC_PUSH(fresh, *ax);
            break;
          }
      }
    uint32_t src;
    if (S_find_source(before, 0, nops, f, &nf->axes, &src)) {
      shard_value_ref source = {false, src};
      S_save_edges(out, fresh.items, fresh.len, &of->axes, source, target);
    } else if (S_find_source(before, nops, n, f, &nf->axes, &src)) {
      shard_value_ref source = {true, src};
      S_save_edges(out, fresh.items, fresh.len, &of->axes, source, target);
    }
  }
  SHARD_VEC_FREE(fresh);
  SHARD_VEC_FREE(old_axes);
}

/* The origin of `axis` on v: its own, or else the first of v's axes that
 * contains it or that it contains (the axis was split or merged on the way). */
static bool S_lookup_origin(shard_debug_origins *d, shard_value *v, const shard_axis_ref *axis, const shard_mesh *mesh,
                            origin *out) {
  const value_origins *vo = S_value_origins(d, v, false);
  if (!vo) return false;
  const axis_origin *own = S_find_axis(vo, axis);
  if (own) {
    *out = own->origin;
    return true;
  }
  for (uint32_t i = 0; i < vo->axes.len; i++) {
    const shard_axis_ref *other = &vo->axes.items[i].axis;
    if (shard_axis_contains(other, axis, mesh) || shard_axis_contains(axis, other, mesh)) {
      *out = vo->axes.items[i].origin;
      return true;
    }
  }
  return false;
}

static void S_record(shard_debug_origins *d, shard_op *op, bool func_results, const shard_op_sharding_rule *rule,
                     shard_value *const *values, const shard_projection *before, const shard_projection *after) {
  int64_t step = d->step++;
  uint32_t nops = before->num_operands, n = shard_projection_num_tensors(before);
  shard_arena *scratch = shard_arena_new();
  for (uint32_t t = 0; t < n; t++) {
    new_axis_vec axes = {0};
    S_new_axes(scratch, rule, before, after, t, &axes);
    for (uint32_t i = 0; i < axes.len; i++) {
      const new_axis *na = &axes.items[i];
      if (d->edges) {
        edge_rec e = {na->axis, na->source, na->target, step};
        SHARD_VEC_PUSH(S_op_edges(d, op, func_results)->edges, e);
      }
      if (d->origins) {
        shard_value *target = S_shardable(values[t]);
        value_origins *vo = S_value_origins(d, target, false);
        if (S_find_axis(vo, &na->axis)) continue;
        shard_value *source = values[na->source.is_result ? nops + na->source.index : na->source.index];
        origin o;
        if (S_lookup_origin(d, S_shardable(source), &na->axis, after->mesh, &o)) S_add_origin(d, target, &na->axis, o);
      }
    }
    SHARD_VEC_FREE(axes);
  }
  shard_arena_free(scratch);
}

static void S_on_step(void *ctx, const shard_propagation_step *step) {
  S_record(ctx, step->op, step->func_result, step->rule, step->values, step->before, step->after);
}

shard_propagation_observer shard_debug_origins_observer(shard_debug_origins *d) {
  shard_propagation_observer o = {S_on_step, d};
  return o;
}

/* ---- a change outside propagation ------------------------------------------------------- */

static bool S_projections_differ(const shard_projection *a, const shard_projection *b) {
  uint32_t n = shard_projection_num_tensors(a);
  for (uint32_t t = 0; t < n; t++)
    for (uint32_t f = 0; f < a->num_factors; f++) {
      const shard_factor_sharding *x = &a->tensors[t].factors[f], *y = &b->tensors[t].factors[f];
      if (x->mapped != y->mapped || x->is_closed != y->is_closed || !S_axes_equal(&x->axes, &y->axes) ||
          !S_axes_equal(&x->overflow, &y->overflow))
        return true;
    }
  return false;
}

static shard_projection *S_project(shard_debug_origins *d, shard_arena *scratch, const shard_op_sharding_rule *rule,
                                   shard_value *const *values, uint32_t n, const shard_mesh *mesh) {
  const shard_tensor_sharding **shardings = SHARD_NEW_ARRAY(scratch, const shard_tensor_sharding *, n ? n : 1);
  for (uint32_t i = 0; i < n; i++) shardings[i] = shard_propagation_value_sharding(d->m->arena, values[i]);
  return shard_projection_build(scratch, rule, shardings, mesh, false);
}

void shard_debug_origins_watch(shard_debug_origins *d, shard_op *op, void (*change)(void *ctx), void *ctx) {
  if (!d) {
    change(ctx);
    return;
  }
  shard_arena *scratch = shard_arena_new();
  const shard_op_sharding_rule *rule = shard_rule_for_op(scratch, op, false, d->extra_rules);
  uint32_t n = op->num_operands + op->num_results;
  shard_value **values = SHARD_NEW_ARRAY(scratch, shard_value *, n ? n : 1);
  for (uint32_t i = 0; i < op->num_operands; i++) values[i] = S_shardable(op->operands[i].value);
  for (uint32_t i = 0; i < op->num_results; i++) values[op->num_operands + i] = S_shardable(&op->results[i]);
  const shard_mesh *mesh = NULL;
  for (uint32_t i = 0; i < n && !mesh; i++) {
    const shard_tensor_sharding *s = shard_propagation_value_sharding(d->m->arena, values[i]);
    if (s) mesh = shard_module_sharding_mesh(d->m, s);
  }
  if (!rule || !mesh || rule->num_operands != op->num_operands || rule->num_results != op->num_results) {
    change(ctx);
    shard_arena_free(scratch);
    return;
  }
  shard_projection *before = S_project(d, scratch, rule, values, n, mesh);
  change(ctx);
  shard_projection *after = S_project(d, scratch, rule, values, n, mesh);
  if (S_projections_differ(before, after)) S_record(d, op, false, rule, values, before, after);
  shard_arena_free(scratch);
}

/* ---- end: origins ----------------------------------------------------------------------- */

static int S_cmp_entry(const void *pa, const void *pb) {
  const shard_named_attr *a = pa, *b = pb;
  return strcmp(a->name, b->name);
}

/* The dictionary {axis = "origin", ...}, sorted by key as MLIR keeps it. */
static shard_attr *S_origins_dict(shard_arena *a, const value_origins *vo) {
  shard_attr *dict = shard_attr_new(a, SHARD_ATTR_DICT);
  dict->u.dict.num = vo->axes.len;
  dict->u.dict.entries = SHARD_NEW_ARRAY(a, shard_named_attr, vo->axes.len ? vo->axes.len : 1);
  for (uint32_t i = 0; i < vo->axes.len; i++) {
    shard_named_attr *e = &dict->u.dict.entries[i];
    e->name = shard_debug_origins_axis_key(a, &vo->axes.items[i].axis);
    e->value = S_string(a, S_origin_text(a, &vo->axes.items[i].origin));
    e->inherent = false;
  }
  if (vo->axes.len > 1) qsort(dict->u.dict.entries, vo->axes.len, sizeof(shard_named_attr), S_cmp_entry);
  return dict;
}

static shard_attr *S_result_dict(const shard_op *func, uint32_t i) {
  shard_attr *arr = shard_op_attr(func, "res_attrs");
  if (!arr || arr->kind != SHARD_ATTR_ARRAY || i >= arr->u.array.num) return NULL;
  return arr->u.array.elems[i];
}

/* Sets `name` in the attribute dictionary of func result i. */
static void S_set_result_attr(shard_arena *a, shard_op *func, uint32_t i, const char *name, shard_attr *value) {
  uint32_t n = shard_func_num_results(func);
  if (i >= n) return;
  shard_attr *old = shard_op_attr(func, "res_attrs");
  shard_attr *arr = shard_attr_new(a, SHARD_ATTR_ARRAY);
  arr->u.array.num = n;
  arr->u.array.elems = SHARD_NEW_ARRAY(a, shard_attr *, n);
  for (uint32_t k = 0; k < n; k++) {
    shard_attr *e = old && old->kind == SHARD_ATTR_ARRAY && k < old->u.array.num ? old->u.array.elems[k] : NULL;
    if (!e) e = shard_attr_new(a, SHARD_ATTR_DICT);
    arr->u.array.elems[k] = k == i ? shard_dict_with(a, e, name, value) : e;
  }
  shard_op_set_attr(a, func, "res_attrs", arr, true);
}

static bool S_is_func_arg(const shard_value *v, const shard_op *owner) {
  return S_is(owner, "func.func") && !v->def && v->block == S_body(owner);
}

static void S_save_value_origins(shard_debug_origins *d, const value_origins *vo) {
  shard_arena *a = d->m->arena;
  shard_value *v = vo->value;
  shard_op *owner = S_owning_op(v);
  if (!owner) return;
  shard_op *func = S_is(owner, "func.func") ? owner : shard_op_ancestor(owner, "func.func");
  shard_attr *dict = S_origins_dict(a, vo);
  shard_op *ret = func ? S_return_of(func) : NULL;
  for (shard_operand *u = v->first_use; ret && u; u = u->next_use)
    if (u->owner == ret) {
      S_set_result_attr(a, func, shard_operand_index(u), "sdy.sharding_origins", dict);
      break;
    }
  if (S_is_func_arg(v, owner)) {
    shard_value_set_attr(a, v, "sdy.sharding_origins", dict);
  } else if (S_is(owner, "sdy.sharding_constraint") || S_is(owner, "sdy.data_flow_edge")) {
    shard_op_set_attr(a, owner, "sdy.sharding_origins", dict, false);
  } else if (v->def) {
    /* One dictionary per result; the others stay as they were (or empty). */
    shard_attr *old = shard_op_attr(owner, "sdy.sharding_origins");
    bool have = old && old->kind == SHARD_ATTR_ARRAY && old->u.array.num == owner->num_results;
    shard_attr *arr = shard_attr_new(a, SHARD_ATTR_ARRAY);
    arr->u.array.num = owner->num_results;
    arr->u.array.elems = SHARD_NEW_ARRAY(a, shard_attr *, owner->num_results ? owner->num_results : 1);
    for (uint32_t k = 0; k < owner->num_results; k++)
      arr->u.array.elems[k] = k == v->index ? dict : have ? old->u.array.elems[k] : shard_attr_new(a, SHARD_ATTR_DICT);
    shard_op_set_attr(a, owner, "sdy.sharding_origins", arr, false);
  }
}

static bool S_string_is(const shard_attr *s, const char *text) {
  return s && s->kind == SHARD_ATTR_STRING && s->u.str.len == strlen(text) &&
         memcmp(s->u.str.data, text, s->u.str.len) == 0;
}

/* A copy of `dict` where every origin equal to `name` reads "self"; NULL
 * when dict is not a dictionary. */
static shard_attr *S_to_self(shard_arena *a, const shard_attr *dict, const char *name) {
  if (!dict || dict->kind != SHARD_ATTR_DICT) return NULL;
  shard_attr *c = shard_attr_new(a, SHARD_ATTR_DICT);
  c->u.dict.num = dict->u.dict.num;
  c->u.dict.entries = SHARD_NEW_ARRAY(a, shard_named_attr, dict->u.dict.num ? dict->u.dict.num : 1);
  for (uint32_t i = 0; i < dict->u.dict.num; i++) {
    c->u.dict.entries[i] = dict->u.dict.entries[i];
    if (S_string_is(dict->u.dict.entries[i].value, name)) c->u.dict.entries[i].value = S_string(a, "self");
  }
  return c;
}

static void S_op_to_self(shard_arena *a, shard_op *op, const char *name) {
  shard_attr *c = op ? S_to_self(a, shard_op_attr(op, "sdy.sharding_origins"), name) : NULL;
  if (c) shard_op_set_attr(a, op, "sdy.sharding_origins", c, false);
}

static bool S_constraint_to_self(shard_op *op, void *ctx) {
  shard_arena *a = ctx;
  if (!S_is(op, "sdy.sharding_constraint")) return true;
  shard_attr *name = shard_op_attr(op, "sdy.sharding_origin_name");
  if (!name || name->kind != SHARD_ATTR_STRING) return true;
  S_op_to_self(a, op, shard_arena_strndup(a, name->u.str.data, name->u.str.len));
  return true;
}

static bool S_manual_to_self(shard_op *op, void *ctx) {
  shard_arena *a = ctx;
  if (!S_is(op, "sdy.manual_computation")) return true;
  shard_attr *name = shard_op_attr(op, "sdy.sharding_origin_name");
  if (!name || name->kind != SHARD_ATTR_STRING) return true;
  const char *mc = shard_arena_strndup(a, name->u.str.data, name->u.str.len);
  char buf[128];
  shard_block *body = S_body(op);
  for (uint32_t i = 0; body && i < body->num_args; i++) {
    snprintf(buf, sizeof buf, "%s_input: %u", mc, i);
    S_op_to_self(a, S_edge_of(&body->args[i]), buf);
  }
  for (uint32_t i = 0; i < op->num_results; i++) {
    snprintf(buf, sizeof buf, "%s_output: %u", mc, i);
    S_op_to_self(a, S_edge_of(&op->results[i]), buf);
  }
  return true;
}

static void S_func_to_self(shard_arena *a, shard_op *func) {
  char buf[48];
  shard_block *entry = S_body(func);
  for (uint32_t i = 0; entry && i < entry->num_args; i++) {
    snprintf(buf, sizeof buf, "input: %u", i);
    shard_attr *c = S_to_self(a, shard_value_attr(&entry->args[i], "sdy.sharding_origins"), buf);
    if (c) shard_value_set_attr(a, &entry->args[i], "sdy.sharding_origins", c);
  }
  uint32_t n = shard_func_num_results(func);
  for (uint32_t i = 0; i < n; i++) {
    snprintf(buf, sizeof buf, "output: %u", i);
    shard_attr *c = S_to_self(a, shard_dict_get(S_result_dict(func, i), "sdy.sharding_origins"), buf);
    if (c) S_set_result_attr(a, func, i, "sdy.sharding_origins", c);
  }
}

static void S_save_origins(shard_debug_origins *d) {
  shard_arena *a = d->m->arena;
  for (uint32_t i = 0; i < d->values.len; i++)
    if (d->values.items[i].axes.len) S_save_value_origins(d, &d->values.items[i]);
  /* A holder's own sharding reads "self" rather than its own name. */
  shard_walk(d->m->top, S_constraint_to_self, a);
  shard_block *top = S_top_block(d->m);
  for (shard_op *op = top ? top->first : NULL; op; op = op->next)
    if (S_is(op, "func.func")) S_func_to_self(a, op);
  shard_walk(d->m->top, S_manual_to_self, a);
}

/* ---- end: edges ------------------------------------------------------------------------- */

/* Shardy's AxisRefAttr order: by name, then a full axis sorts like the
 * sub-axis (1)inf, sub-axes by (pre-size, size). */
static int S_cmp_axis(const shard_axis_ref *a, const shard_axis_ref *b) { return shard_axis_compare(a, b, NULL); }

static int S_cmp_ref(const shard_value_ref *a, const shard_value_ref *b) {
  if (a->is_result != b->is_result) return a->is_result ? 1 : -1;
  return a->index < b->index ? -1 : a->index > b->index;
}

static int S_cmp_edge(const void *pa, const void *pb) {
  const edge_rec *a = pa, *b = pb;
  if (a->step != b->step) return a->step < b->step ? -1 : 1;
  int c = S_cmp_axis(&a->axis, &b->axis);
  if (c) return c;
  c = S_cmp_ref(&a->source, &b->source);
  if (c) return c;
  return S_cmp_ref(&a->target, &b->target);
}

/* #sdy.propagation_edges of an op: each axis/source/target once, at its
 * earliest step, grouped by step then by axis and source. NULL when empty. */
static shard_attr *S_edges_attr(shard_arena *a, const edge_vec *all) {
  edge_vec uniq = {0};
  for (uint32_t i = 0; i < all->len; i++) {
    const edge_rec *e = &all->items[i];
    bool seen = false;
    for (uint32_t k = 0; k < uniq.len && !seen; k++) {
      edge_rec *u = &uniq.items[k];
      if (shard_axis_equal(&u->axis, &e->axis) && !S_cmp_ref(&u->source, &e->source) &&
          !S_cmp_ref(&u->target, &e->target)) {
        seen = true;
        if (e->step < u->step) u->step = e->step;
      }
    }
    if (!seen) SHARD_VEC_PUSH(uniq, *e);
  }
  if (!uniq.len) return NULL;
  qsort(uniq.items, uniq.len, sizeof *uniq.items, S_cmp_edge);
  SHARD_VEC(shard_edge_step) steps = {0};
  for (uint32_t i = 0; i < uniq.len;) {
    uint32_t j = i;
    while (j < uniq.len && uniq.items[j].step == uniq.items[i].step) j++;
    SHARD_VEC(shard_axis_edge) entries = {0};
    for (uint32_t k = i; k < j;) {
      uint32_t l = k;
      while (l < j && shard_axis_equal(&uniq.items[l].axis, &uniq.items[k].axis) &&
             !S_cmp_ref(&uniq.items[l].source, &uniq.items[k].source))
        l++;
      shard_axis_edge entry = {uniq.items[k].axis, uniq.items[k].source, NULL, l - k};
      entry.targets = SHARD_NEW_ARRAY(a, shard_value_ref, l - k);
      for (uint32_t t = k; t < l; t++) entry.targets[t - k] = uniq.items[t].target;
      SHARD_VEC_PUSH(entries, entry);
      k = l;
    }
    shard_edge_step st = {uniq.items[i].step, NULL, entries.len};
    SHARD_VEC_FREEZE(a, entries, st.edges);
    SHARD_VEC_PUSH(steps, st);
    i = j;
  }
  SHARD_VEC_FREE(uniq);
  shard_attr *attr = shard_attr_new(a, SHARD_ATTR_SDY_EDGES);
  attr->u.edges.num = steps.len;
  SHARD_VEC_FREEZE(a, steps, attr->u.edges.steps);
  return attr;
}

static void S_save_edges_on_module(shard_debug_origins *d) {
  shard_arena *a = d->m->arena;
  for (uint32_t i = 0; i < d->ops.len; i++) {
    op_edges *oe = &d->ops.items[i];
    shard_attr *attr = S_edges_attr(a, &oe->edges);
    if (!attr) continue;
    /* Shardy keeps one list per func for what moved between returned
     * values and results, and saves it on the first result. */
    if (oe->func_results) S_set_result_attr(a, oe->op, 0, "sdy.propagation_edges", attr);
    else if (!S_is(oe->op, "func.func")) shard_op_set_attr(a, oe->op, "sdy.propagation_edges", attr, false);
  }
}

void shard_debug_origins_end(shard_debug_origins *d) {
  if (!d) return;
  if (d->origins) S_save_origins(d);
  if (d->edges) S_save_edges_on_module(d);
  for (uint32_t i = 0; i < d->values.len; i++) SHARD_VEC_FREE(d->values.items[i].axes);
  SHARD_VEC_FREE(d->values);
  for (uint32_t i = 0; i < d->ops.len; i++) SHARD_VEC_FREE(d->ops.items[i].edges);
  SHARD_VEC_FREE(d->ops);
  shard_ptrmap_release(&d->value_index);
  shard_ptrmap_release(&d->op_index);
  shard_ptrmap_release(&d->func_index);
  free(d);
}
