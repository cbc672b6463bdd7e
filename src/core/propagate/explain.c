/* Explaining propagation (see explain.h).
 *
 * While the passes run, every observed step becomes "hops": axis A was
 * added to dim D of tensor T by op O, taken from dim D' of tensor S (the
 * first other tensor of O that had an overlapping part of A before the
 * step). Tensors are values, with data-flow edge results folded into the
 * value they stand for, or func results. A hop carries a sequence number,
 * so tracing an axis backwards only follows hops that happened earlier and
 * always ends: at a tensor that had the axis without a hop (its annotation)
 * or where no source was found.
 *
 * After the passes, each op of the final module is projected through its
 * rule once more: two tensors holding incompatible axes for one factor are
 * a conflict, a tensor that could have taken more of a factor's common
 * axes is a conflict resolved by dropping them, an op without a rule next
 * to a sharded value is a barrier. Explicit mode asks the same projection
 * whether the output sharding was left to a choice. */
#include "propagate/explain.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/opdef.h"
#include "pass/pass_shardings.h"
#include "propagate/projection.h"
#include "support/ptrmap.h"
#include "rules/rule_registry.h"

#define MAX_AXES 64

/* A tensor propagation can shard: a value, or (value NULL) a func result. */
typedef struct target {
  shard_value *value;
  const shard_op *func;
  uint32_t result;
} target;

typedef struct hop {
  uint32_t seq;
  target to;
  uint32_t to_dim;
  shard_axis_ref axis;
  bool has_source;
  target from;
  uint32_t from_dim;
  const shard_op *op;
} hop;

typedef SHARD_VEC(uint32_t) index_vec;

typedef struct target_info {
  target t;
  const shard_tensor_sharding *initial; /* as written; NULL when none */
  index_vec hops; /* hops to this target, in order */
} target_info;

typedef struct finding {
  const shard_op *op;
  char *what;
  char *resolution; /* conflicts only */
} finding;

struct shard_explain {
  shard_module *m;
  SHARD_VEC(target_info) targets;
  shard_ptrmap by_key; /* key pointer -> index into `targets` */
  SHARD_VEC(hop) hops;
  uint32_t seq;
  SHARD_VEC(finding) conflicts;
  SHARD_VEC(finding) barriers;
  shard_arena *scratch; /* final-module projections */
  const shard_rule_provider *extra_rules; /* rules for ops the registry does not know */
};

/* ---- targets ------------------------------------------------------------------------ */

static bool S_is(const shard_op *op, const char *name) { return op && strcmp(op->name, name) == 0; }

/* A func result has no shard_value: its key is an address inside the func
 * op, which no value can have. */
static const void *S_key(target t) {
  return t.value ? (const void *)t.value : (const void *)((const char *)t.func + 1 + t.result);
}

static target_info *S_info(shard_explain *x, target t, bool create) {
  const uint64_t *i = shard_ptrmap_find(&x->by_key, S_key(t));
  if (i) return &x->targets.items[*i];
  if (!create) return NULL;
  target_info ti = {t, NULL, {0}};
  SHARD_VEC_PUSH(x->targets, ti);
  shard_ptrmap_put(&x->by_key, S_key(t), x->targets.len - 1);
  return &x->targets.items[x->targets.len - 1];
}

/* A data-flow edge's result stands for the value it carries the sharding of. */
static shard_value *S_canon(shard_value *v) {
  if (v && v->def && v->def->num_operands == 1 &&
      (S_is(v->def, "sdy.data_flow_edge") || S_is(v->def, "sdy.func_data_flow_edge")))
    return v->def->operands[0].value;
  return v;
}

static target S_value_target(shard_value *v) {
  target t = {S_canon(v), NULL, 0};
  return t;
}

static bool S_record_initial(shard_op *op, void *ctx) {
  shard_explain *x = ctx;
  shard_arena *a = x->m->arena;
  if (S_is(op, "func.func")) {
    shard_block *entry = op->num_regions ? op->regions[0].first : NULL;
    for (uint32_t i = 0; entry && i < entry->num_args; i++)
      S_info(x, S_value_target(&entry->args[i]), true)->initial = shard_func_arg_sharding(op, i);
    uint32_t nres = shard_func_num_results(op);
    for (uint32_t i = 0; i < nres; i++) {
      target t = {NULL, op, i};
      S_info(x, t, true)->initial = shard_func_result_sharding(op, i);
    }
    return true;
  }
  for (uint32_t i = 0; i < op->num_results; i++)
    S_info(x, S_value_target(&op->results[i]), true)->initial = shard_propagation_value_sharding(a, &op->results[i]);
  return true;
}

shard_explain *shard_explain_new(shard_module *m, const shard_rule_provider *extra_rules) {
  shard_explain *x = shard_xcalloc(1, sizeof *x);
  x->m = m;
  x->extra_rules = extra_rules;
  x->scratch = shard_arena_new();
  shard_walk(m->top, S_record_initial, x);
  return x;
}

static void S_findings_free(finding *f, uint32_t n) {
  for (uint32_t i = 0; i < n; i++) {
    free(f[i].what);
    free(f[i].resolution);
  }
}

void shard_explain_free(shard_explain *x) {
  if (!x) return;
  for (uint32_t i = 0; i < x->targets.len; i++) SHARD_VEC_FREE(x->targets.items[i].hops);
  SHARD_VEC_FREE(x->targets);
  shard_ptrmap_release(&x->by_key);
  SHARD_VEC_FREE(x->hops);
  S_findings_free(x->conflicts.items, x->conflicts.len);
  S_findings_free(x->barriers.items, x->barriers.len);
  SHARD_VEC_FREE(x->conflicts);
  SHARD_VEC_FREE(x->barriers);
  shard_arena_free(x->scratch);
  free(x);
}

unsigned shard_explain_num_conflicts(const shard_explain *x) { return x->conflicts.len; }
unsigned shard_explain_num_barriers(const shard_explain *x) { return x->barriers.len; }

/* ---- recording steps -------------------------------------------------------------------- */

static const shard_tensor_mapping *S_mapping(const shard_op_sharding_rule *r, uint32_t t) {
  return t < r->num_operands ? &r->operands[t] : &r->results[t - r->num_operands];
}

/* The dim of a tensor that holds factor f (the tensor must have it). */
static uint32_t S_dim_of(const shard_tensor_mapping *m, int64_t f) {
  for (uint32_t d = 0; d < m->rank; d++)
    for (uint32_t k = 0; k < m->dims[d].num_factors; k++)
      if (m->dims[d].factors[k] == f) return d;
  return 0;
}

static target S_step_target(const shard_propagation_step *st, uint32_t t) {
  if (st->func_result && t == st->num_operands) {
    target r = {NULL, st->op, st->func_result_index};
    return r;
  }
  return S_value_target(st->values[t]);
}

static bool S_same_axis(const shard_axis_ref *a, const shard_axis_ref *b, const shard_mesh *mesh) {
  if (strcmp(a->name, b->name) != 0) return false;
  return !mesh || shard_axis_overlaps(a, b, mesh);
}

static void S_on_step(void *ctx, const shard_propagation_step *st) {
  shard_explain *x = ctx;
  uint32_t n = st->num_operands + st->num_results;
  x->seq++;
  for (uint32_t t = 0; t < n; t++) {
    if (!st->updated[t]) continue;
    const shard_tensor_mapping *map = S_mapping(st->rule, t);
    for (uint32_t f = 0; f < st->rule->num_factors; f++) {
      const shard_factor_sharding *now = &st->after->tensors[t].factors[f];
      const shard_factor_sharding *was = &st->before->tensors[t].factors[f];
      if (!now->mapped || now->axes.n <= was->axes.n) continue;
      for (uint32_t k = was->axes.n; k < now->axes.n; k++) {
        hop h = {0};
        h.seq = x->seq;
        h.to = S_step_target(st, t);
        h.to_dim = S_dim_of(map, f);
        h.axis = now->axes.v[k];
        h.op = st->op;
        for (uint32_t u = 0; u < n && !h.has_source; u++) {
          const shard_factor_sharding *other = &st->before->tensors[u].factors[f];
          if (u == t || !other->mapped) continue;
          for (uint32_t j = 0; j < other->axes.n; j++)
            if (S_same_axis(&other->axes.v[j], &h.axis, st->mesh)) {
              h.has_source = true;
              h.from = S_step_target(st, u);
              h.from_dim = S_dim_of(S_mapping(st->rule, u), f);
              break;
            }
        }
        SHARD_VEC_PUSH(x->hops, h);
        target_info *ti = S_info(x, h.to, true);
        SHARD_VEC_PUSH(ti->hops, x->hops.len - 1);
      }
    }
  }
}

shard_propagation_observer shard_explain_observer(shard_explain *x) {
  shard_propagation_observer o = {S_on_step, x};
  return o;
}

/* The last hop giving `to` an axis named `name` on `dim` before `seq`, or -1. */
static int64_t S_hop_before(shard_explain *x, target to, uint32_t dim, const char *name, uint32_t seq) {
  target_info *ti = S_info(x, to, false);
  if (!ti) return -1;
  for (uint32_t i = ti->hops.len; i-- > 0;) {
    const hop *h = &x->hops.items[ti->hops.items[i]];
    if (h->seq < seq && h->to_dim == dim && strcmp(h->axis.name, name) == 0) return ti->hops.items[i];
  }
  return -1;
}

/* ---- names and places ----------------------------------------------------------------- */

static shard_span S_target_span(target t) {
  if (!t.value) return t.func->span;
  shard_span at = shard_value_span(t.value);
  if (at.src) return at;
  if (t.value->def) return t.value->def->span;
  shard_op *owner = t.value->block && t.value->block->parent ? t.value->block->parent->parent : NULL;
  return owner ? owner->span : shard_no_span;
}

static void S_loc(shard_buf *b, shard_span sp) {
  uint32_t line, col;
  shard_span_linecol(sp, &line, &col);
  if (line) shard_buf_printf(b, "%u:%u", line, col);
  else shard_buf_puts(b, "?");
}

static void S_func_name(shard_buf *b, const shard_op *func) {
  shard_attr *a = shard_op_attr(func, "sym_name");
  if (a && a->kind == SHARD_ATTR_STRING) shard_buf_printf(b, "@%.*s", (int)a->u.str.len, a->u.str.data);
  else shard_buf_puts(b, "@?");
}

static void S_target_name(shard_buf *b, target t) {
  if (!t.value) {
    shard_buf_printf(b, "result %u of ", t.result);
    S_func_name(b, t.func);
    return;
  }
  const shard_value *v = t.value;
  if (v->name) {
    shard_buf_printf(b, "%%%s", v->name);
    if (v->def && v->def->num_results > 1) shard_buf_printf(b, "#%u", v->index);
  } else if (v->def) {
    shard_buf_printf(b, "%s", v->def->name);
    if (v->def->num_results > 1) shard_buf_printf(b, " result %u", v->index);
  } else {
    shard_buf_printf(b, "block argument %u", v->index);
  }
}

/* "%name (L:C)" */
static void S_target_place(shard_buf *b, target t) {
  S_target_name(b, t);
  shard_buf_puts(b, " (");
  S_loc(b, S_target_span(t));
  shard_buf_puts(b, ")");
}

static void S_op_place(shard_buf *b, const shard_op *op) {
  if (S_is(op, "sdy.data_flow_edge") && op->num_operands == 1) {
    /* NULL once the edge is gone (export erases edges; a case's branch
     * results are one) */
    const shard_value *owner = op->operands[0].value;
    const shard_op *df = !owner       ? NULL
                         : owner->def ? owner->def
                                      : (owner->block && owner->block->parent ? owner->block->parent->parent : NULL);
    if (df) {
      shard_buf_printf(b, "%s (", df->name);
      S_loc(b, df->span);
      shard_buf_puts(b, ")");
      return;
    }
  }
  if (S_is(op, "func.func")) {
    shard_buf_puts(b, "return of ");
    S_func_name(b, op);
    shard_buf_puts(b, " (");
    /* the place of the return itself: the terminator of the function's
     * first block that has one (a declaration has none: the function) */
    shard_span at = op->span;
    for (const shard_block *blk = op->num_regions ? op->regions[0].first : NULL; blk; blk = blk->next) {
      const shard_op *term = shard_block_terminator(blk);
      if (term && S_is(term, "func.return")) {
        at = term->span;
        break;
      }
    }
    S_loc(b, at);
    shard_buf_puts(b, ")");
    return;
  } else {
    shard_buf_printf(b, "%s (", op->name);
  }
  S_loc(b, op->span);
  shard_buf_puts(b, ")");
}

static shard_tensor_sharding *S_final_sharding(shard_explain *x, target t) {
  if (!t.value) return shard_func_result_sharding(t.func, t.result);
  return shard_propagation_value_sharding(x->scratch, t.value);
}

/* Is the target still in the module (export passes erase some ops)? */
static bool S_alive(target t) {
  if (!t.value) return t.func->parent != NULL;
  if (t.value->def) return t.value->def->parent != NULL;
  return t.value->block != NULL;
}

static bool S_dim_has(const shard_tensor_sharding *s, uint32_t d, const char *name) {
  if (!s || d >= s->rank) return false;
  for (uint32_t k = 0; k < s->dims[d].num_axes; k++)
    if (strcmp(s->dims[d].axes[k].name, name) == 0) return true;
  return false;
}

/* ---- provenance of one axis ----------------------------------------------------------- */

typedef struct axis_story {
  int64_t chain[256]; /* hops, newest first */
  uint32_t len;
  bool origin_known;
  target origin;
  uint32_t origin_dim;
  bool annotated; /* the origin had the axis as written */
  const shard_op *constraint; /* else: the sharding constraint that put it there */
} axis_story;

/* A sharding_constraint (or reshard) of v whose sharding has `name` on
 * `dim`: the import pipeline moves such shardings onto v itself. */
static const shard_op *S_constraint_of(shard_value *v, uint32_t dim, const char *name) {
  for (shard_operand *u = v ? v->first_use : NULL; u; u = u->next_use) {
    const shard_op *c = u->owner;
    if (!S_is(c, "sdy.sharding_constraint") && !S_is(c, "sdy.reshard")) continue;
    shard_attr *a = shard_op_attr(c, "sharding");
    if (a && a->kind == SHARD_ATTR_SDY_SHARDING && S_dim_has(a->u.sharding, dim, name)) return c;
  }
  return NULL;
}

static void S_trace(shard_explain *x, target t, uint32_t dim, const char *name, axis_story *s) {
  memset(s, 0, sizeof *s);
  s->origin_known = true;
  s->origin = t;
  s->origin_dim = dim;
  int64_t h = S_hop_before(x, t, dim, name, UINT32_MAX);
  while (h >= 0 && s->len < sizeof s->chain / sizeof *s->chain) {
    s->chain[s->len++] = h;
    const hop *hp = &x->hops.items[h];
    if (!hp->has_source) {
      s->origin_known = false;
      return;
    }
    s->origin_known = true;
    s->origin = hp->from;
    s->origin_dim = hp->from_dim;
    h = S_hop_before(x, hp->from, hp->from_dim, name, hp->seq);
  }
  if (s->origin_known) {
    target_info *ti = S_info(x, s->origin, false);
    s->annotated = ti && S_dim_has(ti->initial, s->origin_dim, name);
    if (!s->annotated) s->constraint = S_constraint_of(s->origin.value, s->origin_dim, name);
  }
}

/* The distinct ops of a story, oldest first, "a (L:C) -> b (L:C)". */
static void S_story_path(shard_explain *x, const axis_story *s, shard_buf *b, bool json) {
  const shard_op *last = NULL;
  bool first = true;
  for (uint32_t i = s->len; i-- > 0;) {
    const shard_op *op = x->hops.items[s->chain[i]].op;
    if (op == last) continue;
    last = op;
    if (json) {
      shard_buf_puts(b, first ? "{" : ", {");
      shard_buf tmp;
      shard_buf_init(&tmp);
      S_op_place(&tmp, op);
      shard_buf_puts(b, "\"op\": \"");
      shard_buf_puts(b, op->name);
      shard_buf_puts(b, "\", \"at\": \"");
      S_loc(b, op->span);
      shard_buf_puts(b, "\"}");
      shard_buf_free(&tmp);
    } else {
      if (!first) shard_buf_puts(b, " -> ");
      S_op_place(b, op);
    }
    first = false;
  }
}

/* ---- the final module: conflicts and barriers ------------------------------------------- */

static void S_axes_text(shard_buf *b, const shard_axes *axes) { shard_axis_list_print(b, axes->v, axes->n); }

static char *S_take(shard_buf *b) { return shard_buf_take(b); }

static void S_sharding_text(shard_buf *b, const shard_tensor_sharding *s) {
  if (!s) shard_buf_puts(b, "unsharded");
  else shard_sharding_print(b, s);
}

static bool S_any_axes(const shard_tensor_sharding *s) {
  if (!s) return false;
  if (s->num_unreduced) return true;
  for (uint32_t d = 0; d < s->rank; d++)
    if (s->dims[d].num_axes) return true;
  return false;
}

static bool S_in(const int64_t *list, uint32_t n, int64_t f) {
  for (uint32_t i = 0; i < n; i++)
    if (list[i] == f) return true;
  return false;
}

typedef struct op_view {
  const shard_op *op;
  const shard_op_sharding_rule *rule;
  shard_projection *p;
  target *tensors;
  const shard_tensor_sharding **shardings;
  uint32_t n;
} op_view;

static shard_value *S_tensor_value(const shard_op *op, uint32_t t) {
  return t < op->num_operands ? op->operands[t].value : &op->results[t - op->num_operands];
}

/* Projects the op's final shardings through its rule; false when it has no
 * rule, no sharded tensor, non-static tensors or several meshes. */
static bool S_view(shard_explain *x, const shard_op *op, op_view *v) {
  memset(v, 0, sizeof *v);
  v->op = op;
  v->rule = shard_rule_for_op(x->scratch, op, false, x->extra_rules);
  if (!v->rule) return false;
  uint32_t n = op->num_operands + op->num_results;
  if (v->rule->num_operands != op->num_operands || v->rule->num_results != op->num_results) return false;
  v->n = n;
  v->tensors = SHARD_NEW_ARRAY(x->scratch, target, n ? n : 1);
  v->shardings = SHARD_NEW_ARRAY(x->scratch, const shard_tensor_sharding *, n ? n : 1);
  const shard_tensor_sharding *first = NULL;
  for (uint32_t t = 0; t < n; t++) {
    shard_value *val = S_tensor_value(op, t);
    if (!val->type || !shard_type_is_static_tensor(val->type)) return false;
    v->tensors[t] = S_value_target(val);
    v->shardings[t] = shard_propagation_value_sharding(x->scratch, val);
    if (v->shardings[t] && !first) first = v->shardings[t];
  }
  if (!first) return false;
  const shard_mesh *mesh = shard_module_sharding_mesh(x->m, first);
  if (!mesh) return false;
  for (uint32_t t = 0; t < n; t++) {
    const shard_tensor_sharding *s = v->shardings[t];
    if (!s) continue;
    const shard_mesh *other = shard_module_sharding_mesh(x->m, s);
    if (!other || !shard_mesh_equal(other, mesh)) return false;
  }
  v->p = shard_projection_build(x->scratch, v->rule, v->shardings, mesh, false);
  return v->p != NULL;
}

static void S_tensor_dim(shard_buf *b, const op_view *v, uint32_t t, int64_t f) {
  S_target_name(b, v->tensors[t]);
  shard_buf_printf(b, " dim %u", S_dim_of(S_mapping(v->rule, t), f));
}

static bool S_incompatible(const shard_axes *a, const shard_axes *b) {
  return a->n && b->n && shard_axes_prefix_status(a->v, a->n, b->v, b->n) == SHARD_PREFIX_NOT &&
         shard_axes_prefix_status(b->v, b->n, a->v, a->n) == SHARD_PREFIX_NOT;
}

/* Two tensors holding incompatible axes for factor f: the first pair, or false. */
static bool S_disagreement(const op_view *v, int64_t f, uint32_t limit, uint32_t *a, uint32_t *b) {
  for (uint32_t i = 0; i < limit; i++)
    for (uint32_t j = i + 1; j < limit; j++) {
      const shard_factor_sharding *fi = &v->p->tensors[i].factors[f], *fj = &v->p->tensors[j].factors[f];
      if (fi->mapped && fj->mapped && S_incompatible(&fi->axes, &fj->axes)) {
        *a = i;
        *b = j;
        return true;
      }
    }
  return false;
}

/* Why tensor t did not take `axis` for factor f. */
static void S_drop_reason(shard_buf *b, const op_view *v, uint32_t t, int64_t f, const shard_axis_ref *axis) {
  const shard_tensor_factors *tf = &v->p->tensors[t];
  for (uint32_t g = 0; g < v->p->num_factors; g++) {
    if ((int64_t)g == f || !tf->factors[g].mapped) continue;
    for (uint32_t k = 0; k < tf->factors[g].axes.n; k++)
      if (strcmp(tf->factors[g].axes.v[k].name, axis->name) == 0) {
        shard_buf_printf(b, "it already shards dim %u there", S_dim_of(S_mapping(v->rule, t), g));
        return;
      }
  }
  for (uint32_t k = 0; k < tf->num_replicated; k++)
    if (strcmp(tf->replicated[k].name, axis->name) == 0) {
      shard_buf_puts(b, "it is explicitly replicated there");
      return;
    }
  if (tf->factors[f].is_closed) {
    shard_buf_puts(b, "that dim is closed");
    return;
  }
  shard_buf_puts(b, "the dim's size is not divisible by it");
}

static void S_conflicts_of(shard_explain *x, const op_view *v) {
  const shard_op_sharding_rule *r = v->rule;
  for (uint32_t f = 0; f < r->num_factors; f++) {
    if (S_in(r->need_replication, r->num_need_replication, f) ||
        S_in(r->blocked_propagation, r->num_blocked_propagation, f))
      continue;
    uint32_t a, b;
    shard_buf what, how;
    shard_buf_init(&what);
    shard_buf_init(&how);
    if (S_disagreement(v, f, v->n, &a, &b)) {
      S_tensor_dim(&what, v, a, f);
      shard_buf_puts(&what, " is sharded ");
      S_axes_text(&what, &v->p->tensors[a].factors[f].axes);
      shard_buf_puts(&what, " but ");
      S_tensor_dim(&what, v, b, f);
      shard_buf_puts(&what, " is sharded ");
      S_axes_text(&what, &v->p->tensors[b].factors[f].axes);
      shard_buf_puts(&how, "both kept; only their common prefix propagates here, so the op needs a reshard "
                           "(-sdy-insert-explicit-reshards inserts it)");
    } else {
      shard_axis_ref common[MAX_AXES];
      uint32_t nc = shard_factor_compatible_major_axes(v->p, f, SHARD_DIR_BOTH, common);
      for (uint32_t t = 0; t < v->n && !what.len; t++) {
        const shard_factor_sharding *fs = &v->p->tensors[t].factors[f];
        if (!fs->mapped || shard_axes_prefix_status(fs->axes.v, fs->axes.n, common, nc) != SHARD_PREFIX_STRICT)
          continue;
        /* a strict prefix is shorter, or as long with its last ref a
         * sub-axis of the common one: then that ref is what was not taken */
        const shard_axis_ref *missing = &common[fs->axes.n < nc ? fs->axes.n : nc - 1];
        uint32_t src = 0;
        for (uint32_t u = 0; u < v->n; u++) {
          const shard_factor_sharding *o = &v->p->tensors[u].factors[f];
          if (u != t && o->mapped &&
              shard_axes_prefix_status(fs->axes.v, fs->axes.n, o->axes.v, o->axes.n) == SHARD_PREFIX_STRICT) {
            src = u;
            break;
          }
        }
        S_tensor_dim(&what, v, t, f);
        shard_buf_puts(&what, " did not take ");
        shard_axis_print(&what, missing);
        shard_buf_puts(&what, " from ");
        S_tensor_dim(&what, v, src, f);
        shard_buf_puts(&how, "dropped: ");
        S_drop_reason(&how, v, t, f, missing);
      }
    }
    if (what.len) {
      finding fd = {v->op, S_take(&what), S_take(&how)};
      SHARD_VEC_PUSH(x->conflicts, fd);
    } else {
      shard_buf_free(&what);
      shard_buf_free(&how);
    }
  }
}

/* Ops that have no rule but are not barriers: they hold no tensor math. */
static bool S_structural(const shard_op *op) {
  if (op->def && (op->def->traits & SHARD_TRAIT_TERMINATOR)) return true;
  return S_is(op, "func.func") || S_is(op, "builtin.module") || S_is(op, "func.call") ||
         strncmp(op->name, "sdy.", 4) == 0;
}

static void S_barrier_of(shard_explain *x, const shard_op *op) {
  if (S_structural(op)) return;
  shard_buf unknown;
  shard_buf_init(&unknown);
  bool is_unknown = shard_rule_unknown_message(op, &unknown);
  shard_buf_free(&unknown);
  if (!is_unknown || shard_rule_for_op(x->scratch, op, false, x->extra_rules)) return;
  shard_buf sharded, plain;
  shard_buf_init(&sharded);
  shard_buf_init(&plain);
  for (uint32_t t = 0; t < op->num_operands + op->num_results; t++) {
    shard_value *val = S_tensor_value(op, t);
    const shard_tensor_sharding *s = shard_propagation_value_sharding(x->scratch, val);
    shard_buf *into = S_any_axes(s) ? &sharded : &plain;
    if (into->len) shard_buf_puts(into, ", ");
    S_target_name(into, S_value_target(val));
    if (into == &sharded) {
      shard_buf_puts(into, " ");
      shard_sharding_print(into, s);
    }
  }
  if (sharded.len) {
    shard_buf what;
    shard_buf_init(&what);
    shard_buf_printf(&what, "no sharding rule, so shardings stop here: %s", shard_buf_str(&sharded));
    if (plain.len) shard_buf_printf(&what, " does not reach %s", shard_buf_str(&plain));
    shard_buf_puts(&what, " (declare a rule with --rules FILE or an sdy.sharding_rule attribute)");
    finding fd = {op, S_take(&what), NULL};
    SHARD_VEC_PUSH(x->barriers, fd);
  }
  shard_buf_free(&sharded);
  shard_buf_free(&plain);
}

static bool S_analyse(shard_op *op, void *ctx) {
  shard_explain *x = ctx;
  if (S_structural(op)) return true;
  op_view v;
  if (S_view(x, op, &v)) S_conflicts_of(x, &v);
  else if (!v.rule) S_barrier_of(x, op);
  return true;
}

void shard_explain_finish(shard_explain *x) { shard_walk(x->m->top, S_analyse, x); }

/* ---- rendering ---------------------------------------------------------------------- */

typedef struct changed {
  target_info *ti;
  shard_tensor_sharding *final;
  uint32_t off; /* source order */
} changed;

/* The axes a changed value gained (in its final sharding, not its initial
 * one), dim by dim, each traced to where it came from: what both renderings
 * list under a changed value. */
typedef struct gained_iter {
  const changed *c;
  uint32_t d, k;
} gained_iter;

static bool S_next_gained(shard_explain *x, gained_iter *it, uint32_t *dim, const shard_axis_ref **ax, axis_story *s) {
  const shard_tensor_sharding *f = it->c->final;
  for (; it->d < f->rank; it->d++, it->k = 0)
    while (it->k < f->dims[it->d].num_axes) {
      const shard_axis_ref *a = &f->dims[it->d].axes[it->k++];
      if (S_dim_has(it->c->ti->initial, it->d, a->name)) continue;
      S_trace(x, it->c->ti->t, it->d, a->name, s);
      *dim = it->d;
      *ax = a;
      return true;
    }
  return false;
}

static int S_cmp_changed(const void *pa, const void *pb) {
  const changed *a = pa, *b = pb;
  bool fa = !a->ti->t.value, fb = !b->ti->t.value;
  if (fa != fb) return fa ? 1 : -1;
  if (a->off != b->off) return a->off < b->off ? -1 : 1;
  return a->ti->t.result < b->ti->t.result ? -1 : a->ti->t.result > b->ti->t.result;
}

/* Targets whose sharding propagation changed, in source order. */
static uint32_t S_changed(shard_explain *x, changed **out) {
  SHARD_VEC(changed) list = {0};
  for (uint32_t i = 0; i < x->targets.len; i++) {
    target_info *ti = &x->targets.items[i];
    if (!S_alive(ti->t)) continue;
    shard_tensor_sharding *final = S_final_sharding(x, ti->t);
    if (!final || (ti->initial && shard_sharding_equal(final, ti->initial))) continue;
    bool added = false;
    for (uint32_t d = 0; d < final->rank && !added; d++)
      for (uint32_t k = 0; k < final->dims[d].num_axes; k++)
        if (!S_dim_has(ti->initial, d, final->dims[d].axes[k].name)) added = true;
    if (!added) continue;
    changed c = {ti, final, S_target_span(ti->t).off};
    SHARD_VEC_PUSH(list, c);
  }
  if (list.len) qsort(list.items, list.len, sizeof *list.items, S_cmp_changed);
  *out = list.items;
  return list.len;
}

unsigned shard_explain_num_changed(const shard_explain *x) {
  changed *list;
  uint32_t n = S_changed((shard_explain *)x, &list);
  free(list);
  return n;
}

static void S_origin_text(shard_buf *b, const axis_story *s) {
  if (!s->origin_known) {
    shard_buf_puts(b, "origin unknown");
    return;
  }
  if (s->constraint) {
    shard_buf_puts(b, "sharding_constraint on ");
    S_target_name(b, s->origin);
    shard_buf_puts(b, " (");
    S_loc(b, s->constraint->span);
    shard_buf_puts(b, ")");
    return;
  }
  shard_buf_puts(b, s->annotated ? "annotation on " : "sharding of ");
  S_target_place(b, s->origin);
}

static const char *S_op_of(target t) {
  if (!t.value) return "func.return";
  if (t.value->def) return t.value->def->name;
  return "block argument";
}

void shard_explain_render_text(shard_explain *x, shard_buf *b) {
  changed *list;
  uint32_t n = S_changed(x, &list);
  shard_buf_printf(b, "%u value%s changed, %u conflict%s, %u barrier%s\n", n, n == 1 ? "" : "s", x->conflicts.len,
                   x->conflicts.len == 1 ? "" : "s", x->barriers.len, x->barriers.len == 1 ? "" : "s");
  for (uint32_t i = 0; i < n; i++) {
    const changed *c = &list[i];
    shard_buf_puts(b, "\n");
    S_target_place(b, c->ti->t);
    if (c->ti->t.value && c->ti->t.value->def) shard_buf_printf(b, " %s", S_op_of(c->ti->t));
    shard_buf_puts(b, ": ");
    S_sharding_text(b, c->ti->initial);
    shard_buf_puts(b, " -> ");
    S_sharding_text(b, c->final);
    shard_buf_puts(b, "\n");
    gained_iter it = {c, 0, 0};
    uint32_t d;
    const shard_axis_ref *ax;
    axis_story s;
    while (S_next_gained(x, &it, &d, &ax, &s)) {
      shard_buf_printf(b, "  dim %u ", d);
      shard_axis_print(b, ax);
      shard_buf_puts(b, ": ");
      S_origin_text(b, &s);
      if (s.len) {
        shard_buf_puts(b, " -> ");
        S_story_path(x, &s, b, false);
      }
      shard_buf_puts(b, "\n");
    }
  }
  for (uint32_t i = 0; i < x->conflicts.len; i++) {
    const finding *f = &x->conflicts.items[i];
    shard_buf_puts(b, i == 0 ? "\nconflicts:\n" : "");
    shard_buf_puts(b, "  ");
    S_op_place(b, f->op);
    shard_buf_printf(b, ": %s\n    resolved: %s\n", f->what, f->resolution);
  }
  for (uint32_t i = 0; i < x->barriers.len; i++) {
    const finding *f = &x->barriers.items[i];
    shard_buf_puts(b, i == 0 ? "\nbarriers:\n" : "");
    shard_buf_puts(b, "  ");
    S_op_place(b, f->op);
    shard_buf_printf(b, ": %s\n", f->what);
  }
  free(list);
}

/* Renders into a temporary buffer, then writes it as a JSON string. */
#define JSON_FIELD(b, key, stmt)                                                                                       \
  do {                                                                                                                 \
    shard_buf tmp_;                                                                                                    \
    shard_buf_init(&tmp_);                                                                                             \
    shard_buf *out_ = &tmp_;                                                                                           \
    stmt;                                                                                                              \
    shard_buf_printf((b), "\"%s\": ", (key));                                                                          \
    shard_buf_put_json_string((b), shard_buf_str(&tmp_));                                                              \
    shard_buf_free(&tmp_);                                                                                             \
  } while (0)

static void S_json_findings(shard_buf *b, const char *key, const finding *f, uint32_t n) {
  shard_buf_printf(b, ",\n  \"%s\": [", key);
  for (uint32_t i = 0; i < n; i++) {
    shard_buf_puts(b, i ? ",\n    {" : "\n    {");
    JSON_FIELD(b, "op", shard_buf_puts(out_, f[i].op->name));
    shard_buf_puts(b, ", ");
    JSON_FIELD(b, "at", S_loc(out_, f[i].op->span));
    shard_buf_puts(b, ", ");
    JSON_FIELD(b, "what", shard_buf_puts(out_, f[i].what));
    if (f[i].resolution) {
      shard_buf_puts(b, ", ");
      JSON_FIELD(b, "resolution", shard_buf_puts(out_, f[i].resolution));
    }
    shard_buf_puts(b, "}");
  }
  shard_buf_puts(b, n ? "\n  ]" : "]");
}

void shard_explain_render_json(shard_explain *x, shard_buf *b) {
  changed *list;
  uint32_t n = S_changed(x, &list);
  shard_buf_puts(b, "{\n  \"changed\": [");
  for (uint32_t i = 0; i < n; i++) {
    const changed *c = &list[i];
    shard_buf_puts(b, i ? ",\n    {" : "\n    {");
    JSON_FIELD(b, "value", S_target_name(out_, c->ti->t));
    shard_buf_puts(b, ", ");
    JSON_FIELD(b, "op", shard_buf_puts(out_, S_op_of(c->ti->t)));
    shard_buf_puts(b, ", ");
    JSON_FIELD(b, "at", S_loc(out_, S_target_span(c->ti->t)));
    shard_buf_puts(b, ", ");
    if (c->ti->initial) JSON_FIELD(b, "before", shard_sharding_print(out_, c->ti->initial));
    else shard_buf_puts(b, "\"before\": null");
    shard_buf_puts(b, ", ");
    JSON_FIELD(b, "after", shard_sharding_print(out_, c->final));
    shard_buf_puts(b, ",\n     \"axes\": [");
    bool first = true;
    gained_iter it = {c, 0, 0};
    uint32_t d;
    const shard_axis_ref *ax;
    axis_story s;
    while (S_next_gained(x, &it, &d, &ax, &s)) {
      shard_buf_printf(b, "%s{\"dim\": %u, ", first ? "\n       " : ",\n       ", d);
      first = false;
      JSON_FIELD(b, "axis", shard_buf_puts(out_, ax->name));
      shard_buf_puts(b, ", \"origin\": ");
      if (s.origin_known) {
        shard_buf_puts(b, "{");
        JSON_FIELD(b, "value", S_target_name(out_, s.origin));
        shard_buf_puts(b, ", ");
        JSON_FIELD(b, "at", S_loc(out_, S_target_span(s.origin)));
        shard_buf_printf(b, ", \"dim\": %u, \"kind\": \"%s\"}", s.origin_dim,
                         s.annotated    ? "annotation"
                         : s.constraint ? "sharding_constraint"
                                        : "sharding");
      } else {
        shard_buf_puts(b, "null");
      }
      shard_buf_puts(b, ", \"via\": [");
      S_story_path(x, &s, b, true);
      shard_buf_puts(b, "]}");
    }
    shard_buf_puts(b, first ? "]}" : "\n     ]}");
  }
  shard_buf_puts(b, n ? "\n  ]" : "]");
  S_json_findings(b, "conflicts", x->conflicts.items, x->conflicts.len);
  S_json_findings(b, "barriers", x->barriers.items, x->barriers.len);
  shard_buf_puts(b, "\n}\n");
  free(list);
}

/* ---- explicit mode -------------------------------------------------------------------- */

/* Did the user say how the op's results are sharded (a closed or sharded
 * dim, replicated or unreduced axes)? */
static bool S_specified(shard_explain *x, const shard_op *op) {
  for (uint32_t i = 0; i < op->num_results; i++) {
    target_info *ti = S_info(x, S_value_target(&op->results[i]), false);
    const shard_tensor_sharding *s = ti ? ti->initial : NULL;
    if (!s) continue;
    if (s->num_replicated || s->num_unreduced) return true;
    for (uint32_t d = 0; d < s->rank; d++)
      if (s->dims[d].num_axes || !s->dims[d].is_open) return true;
  }
  return false;
}

/* The result sharding `s` with `axes` added as unreduced (a copy). */
static shard_tensor_sharding *S_with_unreduced(shard_arena *a, const shard_tensor_sharding *s, const shard_axes *axes) {
  shard_tensor_sharding *c = shard_sharding_clone(a, s);
  c->unreduced = SHARD_NEW_ARRAY(a, shard_axis_ref, s->num_unreduced + axes->n + 1);
  if (s->num_unreduced) /* no array when empty; memcpy's arguments must not be NULL */
    memcpy(c->unreduced, s->unreduced, sizeof(shard_axis_ref) * s->num_unreduced);
  c->num_unreduced = s->num_unreduced;
  for (uint32_t i = 0; i < axes->n; i++) c->unreduced[c->num_unreduced++] = axes->v[i];
  return c;
}

static void S_explicit_reduction(shard_explain *x, const op_view *v, int64_t f, shard_diag_engine *de) {
  const shard_op *op = v->op;
  shard_buf msg, holders;
  shard_buf_init(&msg);
  shard_buf_init(&holders);
  const shard_axes *axes = NULL;
  for (uint32_t t = 0; t < v->rule->num_operands; t++) {
    const shard_factor_sharding *fs = &v->p->tensors[t].factors[f];
    if (!fs->mapped || !fs->axes.n) continue;
    if (!axes || fs->axes.n > axes->n) axes = &fs->axes;
    if (holders.len) shard_buf_puts(&holders, " and ");
    S_tensor_dim(&holders, v, t, f);
  }
  target result = v->tensors[v->rule->num_operands];
  shard_buf_puts(&msg, "explicit mode: the sharding of ");
  S_target_name(&msg, result);
  shard_buf_printf(&msg, " is ambiguous: %s reduces over a dimension sharded on ", op->name);
  S_axes_text(&msg, axes);
  shard_buf_printf(&msg, " (%s); say which result you want", shard_buf_str(&holders));
  shard_error(de, op->span, "%s", shard_buf_str(&msg));
  const shard_tensor_sharding *now = v->shardings[v->rule->num_operands];
  shard_buf n1, n2, n3;
  shard_buf_init(&n1);
  shard_buf_init(&n2);
  shard_buf_init(&n3);
  shard_buf_puts(&n1, "choice 1, partial sums (no communication yet): annotate the result with #sdy.sharding");
  if (now) shard_sharding_print(&n1, S_with_unreduced(x->scratch, now, axes));
  else shard_buf_puts(&n1, "<..., unreduced={...}>");
  shard_buf_puts(&n2, "choice 2, all-reduce over ");
  S_axes_text(&n2, axes);
  shard_buf_puts(&n2, ": annotate the result with #sdy.sharding");
  if (now) shard_sharding_print(&n2, now);
  else shard_buf_puts(&n2, "<...>");
  shard_buf_puts(&n3, "choice 3, all-gather the operands first: reshard ");
  shard_buf_puts(&n3, shard_buf_str(&holders));
  shard_buf_puts(&n3, " so that the dimension is not sharded on ");
  S_axes_text(&n3, axes);
  shard_note(de, op->span, "%s", shard_buf_str(&n1));
  shard_note(de, op->span, "%s", shard_buf_str(&n2));
  shard_note(de, op->span, "%s", shard_buf_str(&n3));
  shard_buf_free(&n1);
  shard_buf_free(&n2);
  shard_buf_free(&n3);
  shard_buf_free(&msg);
  shard_buf_free(&holders);
}

static void S_explicit_disagreement(const op_view *v, int64_t f, uint32_t a, uint32_t b, shard_diag_engine *de) {
  const shard_op *op = v->op;
  shard_buf msg, ta, tb, n1, n2;
  shard_buf_init(&msg);
  shard_buf_init(&ta);
  shard_buf_init(&tb);
  shard_buf_init(&n1);
  shard_buf_init(&n2);
  S_tensor_dim(&ta, v, a, f);
  S_tensor_dim(&tb, v, b, f);
  const shard_axes *xa = &v->p->tensors[a].factors[f].axes, *xb = &v->p->tensors[b].factors[f].axes;
  shard_buf_printf(&msg, "explicit mode: the operands of %s disagree: %s is sharded ", op->name, shard_buf_str(&ta));
  S_axes_text(&msg, xa);
  shard_buf_printf(&msg, " but %s is sharded ", shard_buf_str(&tb));
  S_axes_text(&msg, xb);
  shard_buf_puts(&msg, "; the result could follow either");
  shard_error(de, op->span, "%s", shard_buf_str(&msg));
  shard_buf_printf(&n1, "choice 1: reshard %s to ", shard_buf_str(&tb));
  S_axes_text(&n1, xa);
  shard_buf_puts(&n1, " (the result follows the first)");
  shard_buf_printf(&n2, "choice 2: reshard %s to ", shard_buf_str(&ta));
  S_axes_text(&n2, xb);
  shard_buf_puts(&n2, " (the result follows the second)");
  shard_note(de, op->span, "%s", shard_buf_str(&n1));
  shard_note(de, op->span, "%s", shard_buf_str(&n2));
  shard_note(de, op->span,
             "choice 3: annotate the result with the sharding you want; both operands are resharded to fit");
  shard_buf_free(&msg);
  shard_buf_free(&ta);
  shard_buf_free(&tb);
  shard_buf_free(&n1);
  shard_buf_free(&n2);
}

typedef struct explicit_walk {
  shard_explain *x;
  shard_diag_engine *de;
  unsigned count;
} explicit_walk;

static bool S_explicit_op(shard_op *op, void *ctx) {
  explicit_walk *w = ctx;
  if (S_structural(op) || !op->num_results || S_specified(w->x, op)) return true;
  op_view v;
  if (!S_view(w->x, op, &v)) return true;
  const shard_op_sharding_rule *r = v.rule;
  for (uint32_t i = 0; i < r->num_reduction; i++) {
    int64_t f = r->reduction[i];
    for (uint32_t t = 0; t < r->num_operands; t++)
      if (v.p->tensors[t].factors[f].mapped && v.p->tensors[t].factors[f].axes.n) {
        S_explicit_reduction(w->x, &v, f, w->de);
        w->count++;
        return true;
      }
  }
  for (uint32_t f = 0; f < r->num_factors; f++) {
    uint32_t a, b;
    if (S_disagreement(&v, f, r->num_operands, &a, &b)) {
      S_explicit_disagreement(&v, f, a, b, w->de);
      w->count++;
      return true;
    }
  }
  return true;
}

unsigned shard_explain_check_explicit(shard_explain *x, shard_diag_engine *de) {
  explicit_walk w = {x, de, 0};
  shard_walk(x->m->top, S_explicit_op, &w);
  return w.count;
}
