/* Verification of sharding attributes: tensor shardings against a type and
 * a mesh (verifyTensorShardingAttr, in Shardy's exact check order), sharding
 * lists per value, op sharding rules, propagation edges, and the sdy.*
 * discardable attributes of an op that tie them together.
 *
 * Inside one sharding the first failure wins, as in Shardy. When the caller
 * asked for shard's extra warnings, a sharding that verified also gets
 * warnings for dims not divisible by their sharded size and for mesh axes of
 * size 1. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "verify/verify_internal.h"

/* ---- axis lists --------------------------------------------------------- */

/* verifyAxisRefList: known names, no ref seen before in the same sharding
 * (cx->seen), no two neighbouring sub-axes that could be merged. */
bool shard_verify_check_axis_list(const vf_emit *e, const shard_axis_ref *axes, uint32_t n, const shard_mesh *m) {
  vf_ctx *cx = e->cx;
  const shard_axis_ref *prev = NULL;
  for (uint32_t i = 0; i < n; i++) {
    const shard_axis_ref *r = &axes[i];
    if (shard_verify_axis_index(cx, m, r->name) < 0) return shard_verify_fail(e, "unknown axis name: \"%s\"", r->name);
    if (!shard_verify_axis_set_insert(&cx->seen, r))
      return shard_verify_fail(e, "duplicate axis ref: %s", shard_verify_axis_str(cx, r));
    if (r->is_sub && prev && shard_verify_ax_can_merge(prev, r))
      return shard_verify_fail(e, "two consecutive sub-axes can be merged: %s, %s", shard_verify_axis_str(cx, prev),
                               shard_verify_axis_str(cx, r));
    prev = r;
  }
  return true;
}

bool shard_verify_check_sorted_axis_list(const vf_emit *e, const shard_axis_ref *axes, uint32_t n, const shard_mesh *m,
                                         const char *what) {
  for (uint32_t i = 1; i < n; i++)
    if (shard_verify_ax_compare(e->cx, &axes[i], &axes[i - 1], m) < 0)
      return shard_verify_fail(e, "%s axes are not ordered w.r.t. mesh", what);
  return shard_verify_check_axis_list(e, axes, n, m);
}

/* ---- sub-axes ----------------------------------------------------------- */

typedef struct S_sub {
  int index; /* mesh axis index: groups sub-axes of one axis */
  const shard_axis_ref *ref;
} S_sub;

static int S_sub_cmp(const void *a, const void *b) {
  const S_sub *x = a, *y = b;
  if (x->index != y->index) return x->index < y->index ? -1 : 1;
  if (x->ref->pre_size != y->ref->pre_size) return x->ref->pre_size < y->ref->pre_size ? -1 : 1;
  if (x->ref->size != y->ref->size) return x->ref->size < y->ref->size ? -1 : 1;
  return 0;
}

static void S_collect_subs(vf_ctx *cx, const shard_mesh *m, const shard_axis_ref *axes, uint32_t n, S_sub *out,
                           uint32_t *len) {
  for (uint32_t i = 0; i < n; i++)
    if (axes[i].is_sub) out[(*len)++] = (S_sub){shard_verify_axis_index(cx, m, axes[i].name), &axes[i]};
}

static uint32_t S_count_subs(const shard_axis_ref *axes, uint32_t n) {
  uint32_t k = 0;
  for (uint32_t i = 0; i < n; i++) k += axes[i].is_sub;
  return k;
}

/* verifySubAxes for every axis that has sub-axes in the sharding. */
static bool S_check_sub_axes(const vf_emit *e, const shard_tensor_sharding *s, const shard_mesh *m) {
  vf_ctx *cx = e->cx;
  uint32_t total = S_count_subs(s->replicated, s->num_replicated) + S_count_subs(s->unreduced, s->num_unreduced),
           len = 0;
  for (uint32_t d = 0; d < s->rank; d++) total += S_count_subs(s->dims[d].axes, s->dims[d].num_axes);
  if (!total) return true; /* nearly every sharding: no buffer, no sort */
  S_sub *subs = shard_xmalloc(sizeof *subs * total);
  for (uint32_t d = 0; d < s->rank; d++) S_collect_subs(cx, m, s->dims[d].axes, s->dims[d].num_axes, subs, &len);
  S_collect_subs(cx, m, s->replicated, s->num_replicated, subs, &len);
  S_collect_subs(cx, m, s->unreduced, s->num_unreduced, subs, &len);
  qsort(subs, len, sizeof *subs, S_sub_cmp);
  bool ok = true;
  for (uint32_t i = 0; i < len && ok;) {
    uint32_t j = i;
    const char *name = subs[i].ref->name;
    int64_t full = m->axes[subs[i].index].size;
    shard_axis_ref whole = {name, false, 0, 0};
    if (shard_verify_axis_set_contains(&cx->seen, &whole)) {
      ok = shard_verify_fail(e, "both sub-axis and full-axis are used for axis name: \"%s\"", name);
      break;
    }
    const shard_axis_ref *prev = NULL;
    for (; j < len && subs[j].index == subs[i].index && ok; j++) {
      const shard_axis_ref *r = subs[j].ref;
      const char *str = shard_verify_axis_str(cx, r);
      if (r->pre_size < 1) ok = shard_verify_fail(e, "sub-axis pre-size must be at least 1: %s", str);
      else if (r->size <= 1) ok = shard_verify_fail(e, "sub-axis sizes must be greater than 1: %s", str);
      else if (full % (r->pre_size * r->size) != 0)
        ok = shard_verify_fail(
            e, "sub-axis next pre-size %" PRId64 " doesn't divide the size of the full axis %" PRId64 ": %s",
            r->pre_size * r->size, full, str);
      else if (r->size == full) ok = shard_verify_fail(e, "sub-axis size is equal to the full axis size: %s", str);
      else if (prev && prev->pre_size * prev->size > r->pre_size)
        ok = shard_verify_fail(e, "overlapping sub-axes: %s, %s", shard_verify_axis_str(cx, prev), str);
      prev = r;
    }
    i = j;
  }
  free(subs);
  return ok;
}

/* ---- tensor shardings --------------------------------------------------- */

static bool S_fully_replicated(const shard_tensor_sharding *s) {
  for (uint32_t d = 0; d < s->rank; d++)
    if (s->dims[d].num_axes) return false;
  return true;
}

static bool S_bound_by_parent(const vf_emit *e, const shard_axis_ref *axes, uint32_t n, const vf_manual *manual) {
  for (uint32_t i = 0; i < n; i++) {
    const vf_manual *owner = NULL;
    for (const vf_manual *p = manual; p; p = p->parent) {
      const shard_attr *ma = p->axes;
      if (!ma || ma->kind != SHARD_ATTR_SDY_MANUAL_AXES) continue;
      for (uint32_t k = 0; k < ma->u.manual_axes.num; k++)
        if (strcmp(ma->u.manual_axes.names[k], axes[i].name) == 0) owner = p; /* outermost wins */
    }
    if (owner) {
      shard_verify_fail(e, "operates on axis \"%s\" which is already bound by a parent sdy.manual_computation op",
                        axes[i].name);
      shard_verify_note(e->cx, owner->op->span, "parent bounding this axis as manual");
      return true;
    }
  }
  return false;
}

static void S_extra_warnings(const vf_emit *e, const shard_tensor_sharding *s, const shard_type *t,
                             const shard_mesh *m) {
  vf_ctx *cx = e->cx;
  /* one warning per dim, however many size-1 axes it names (one per axis
   * made a mesh of 10^5 such axes print 10^5 located warnings) */
  enum { NAMED = 3 };
  bool typed = t && t->kind == SHARD_TYPE_TENSOR && t->rank == s->rank;
  /* each dim's sharded size (shard_verify_axes_size's), from the same
   * lookups as the size-1 axes: one lookup per axis */
  int64_t *sharded = SHARD_NEW_ARRAY(cx->scratch, int64_t, s->rank ? s->rank : 1);
  for (uint32_t d = 0; d < s->rank; d++) {
    uint32_t count = 0;
    const shard_axis_ref *named[NAMED];
    int64_t product = 1;
    for (uint32_t k = 0; k < s->dims[d].num_axes; k++) {
      const shard_axis_ref *r = &s->dims[d].axes[k];
      int64_t size = r->is_sub ? r->size : shard_verify_axis_full_size(cx, m, r->name);
      if (!r->is_sub && size == 1) {
        if (count < NAMED) named[count] = r;
        count++;
      }
      if (product > 0) product = size <= 0 || product > INT64_MAX / size ? -1 : product * size;
    }
    sharded[d] = product;
    if (count == 1)
      shard_verify_warn(e, "dim %u is sharded along mesh axis \"%s\" of size 1, which has no effect", d,
                        named[0]->name);
    else if (count > 1)
      shard_verify_warn(e,
                        "dim %u is sharded along %u mesh axes of size 1 (\"%s\", \"%s\"%s%s%s%s), which have no "
                        "effect",
                        d, count, named[0]->name, named[1]->name, count > 2 ? ", \"" : "",
                        count > 2 ? named[2]->name : "", count > 2 ? "\"" : "", count > NAMED ? ", ..." : "");
  }
  if (!typed) return;
  bool pads = false;
  int64_t *local = SHARD_NEW_ARRAY(cx->scratch, int64_t, t->rank ? t->rank : 1);
  for (uint32_t d = 0; d < t->rank; d++) {
    int64_t size = t->dims[d];
    local[d] = size;
    if (size == SHARD_DYNAMIC_DIM || sharded[d] <= 1) continue;
    local[d] = size / sharded[d] + (size % sharded[d] != 0); /* ceil, without size + sharded overflowing */
    if (size % sharded[d]) pads = true;
  }
  if (!pads) return;
  const char *local_type = shard_verify_type_str(shard_type_with_dims(cx->scratch, t, local));
  for (uint32_t d = 0; d < t->rank; d++) {
    int64_t size = t->dims[d];
    if (size == SHARD_DYNAMIC_DIM || sharded[d] <= 1 || size % sharded[d] == 0) continue;
    shard_verify_warn(e,
                      "dim %u of size %" PRId64 " is not divisible by its sharded size %" PRId64
                      "; local shape pads to '%s', adding %" PRId64 " padding elements along dim %u",
                      d, size, sharded[d], local_type, sharded[d] - size % sharded[d], d);
  }
}

bool shard_verify_check_sharding(const vf_emit *e, const shard_tensor_sharding *s, const shard_type *type,
                                 const shard_mesh *mesh, const vf_manual *manual) {
  vf_ctx *cx = e->cx;
  if (!mesh) return shard_verify_fail(e, "unknown mesh: @%s", s->mesh_name ? s->mesh_name : "");
  bool no_rank = s->rank != 0 || s->num_replicated || s->num_unreduced;
  if (shard_mesh_is_maximal(mesh) || (!type && S_fully_replicated(s))) {
    if (no_rank)
      return shard_verify_fail(e, "a maximal sharding can only have a sharding with rank 0 and no replicated or "
                                  "unreduced axes.");
    return true;
  }
  const shard_type *t = type;
  if (t && t->kind == SHARD_TYPE_TUPLE) {
    if (t->num_inputs != 1)
      return shard_verify_fail(e, "ops can only have a sharding for a tuple of size 1: '%s'", shard_verify_type_str(t));
    t = t->inputs[0];
  }
  bool shaped = t && (t->kind == SHARD_TYPE_TENSOR || t->kind == SHARD_TYPE_UNRANKED_TENSOR);
  if (!shaped) {
    if (no_rank)
      return shard_verify_fail(e,
                               "non-shaped tensors can only have a sharding with rank 0 and no replicated or "
                               "unreduced axes. type: '%s', sharding: %s",
                               shard_verify_type_str(type), shard_verify_sharding_str(cx, s));
    return true;
  }
  if (t->kind == SHARD_TYPE_UNRANKED_TENSOR)
    return shard_verify_fail(e, "only ranked tensors can have a sharding. type: '%s'", shard_verify_type_str(type));
  if (s->rank != t->rank) return shard_verify_fail(e, "sharding doesn't match tensor rank: %u != %u", s->rank, t->rank);

  shard_verify_axis_set_reset(&cx->seen);
  for (uint32_t d = 0; d < s->rank; d++) {
    const shard_dim_sharding *dim = &s->dims[d];
    if (dim->priority != SHARD_NO_PRIORITY) {
      if (dim->priority < 0) return shard_verify_fail(e, "dim %u has a negative priority", d);
      if (!dim->is_open && !dim->num_axes)
        return shard_verify_fail(e, "dim %u is empty and closed but has a priority", d);
    }
    if (!shard_verify_check_axis_list(e, dim->axes, dim->num_axes, mesh)) return false;
  }
  if (!shard_verify_check_sorted_axis_list(e, s->replicated, s->num_replicated, mesh, "replicated")) return false;
  if (!shard_verify_check_sorted_axis_list(e, s->unreduced, s->num_unreduced, mesh, "unreduced")) return false;
  if (!S_check_sub_axes(e, s, mesh)) return false;
  if (manual) {
    for (uint32_t d = 0; d < s->rank; d++)
      if (S_bound_by_parent(e, s->dims[d].axes, s->dims[d].num_axes, manual)) return false;
    if (S_bound_by_parent(e, s->replicated, s->num_replicated, manual)) return false;
    if (S_bound_by_parent(e, s->unreduced, s->num_unreduced, manual)) return false;
  }
  if (cx->opts->extra_warnings) S_extra_warnings(e, s, t, mesh);
  return true;
}

/* A module repeats a few thousand shardings on a hundred thousand values
 * (the same ones in every function): a sharding that verified without a
 * diagnostic is remembered by everything the check reads, and the same
 * check again is one lookup. The key: the mesh's address (a mesh symbol's,
 * kept for the whole verification, streamed or not; shardings with an
 * inline mesh are not remembered), the type's text, the manual axes bound
 * around the value, and the sharding's contents (shard_sharding_key). The
 * memo is emptied when it holds S_CLEAN_MAX keys: a module's shardings
 * come in runs (the functions on one mesh, one after the other), and
 * memory touched costs time too. */
enum { S_CLEAN_MAX = 512 };

/* Writes the key into b (emptied first); false when the check is not one
 * to remember. */
static bool S_clean_key(shard_buf *b, const shard_tensor_sharding *s, const shard_type *type, const shard_mesh *mesh,
                        const vf_manual *manual) {
  if (!mesh || s->inline_mesh || (type && !type->text)) return false;
  shard_buf_clear(b);
  shard_buf_putn(b, (const char *)&mesh, sizeof mesh);
  shard_buf_putc(b, type ? (char)(1 + type->kind) : 0);
  if (type) shard_buf_putn(b, type->text, strlen(type->text) + 1);
  for (const vf_manual *p = manual; p; p = p->parent) {
    const shard_attr *ma = p->axes;
    if (!ma || ma->kind != SHARD_ATTR_SDY_MANUAL_AXES) continue;
    for (uint32_t i = 0; i < ma->u.manual_axes.num; i++) {
      shard_buf_putc(b, 'm');
      shard_buf_putn(b, ma->u.manual_axes.names[i], strlen(ma->u.manual_axes.names[i]) + 1);
    }
  }
  shard_buf_putc(b, 's');
  shard_sharding_key(b, s);
  return true;
}

bool shard_verify_check_sharding_lookup(const vf_emit *e, const shard_tensor_sharding *s, const shard_type *type,
                                        const vf_manual *manual) {
  vf_ctx *cx = e->cx;
  const shard_mesh *mesh = shard_verify_sharding_mesh(cx, s);
  shard_buf *k = &cx->clean_key;
  bool keyed = S_clean_key(k, s, type, mesh, manual);
  if (keyed && shard_strmap_get(&cx->clean_shardings, k->data, k->len)) return true;
  unsigned said = cx->de->errors + cx->de->warnings;
  bool ok = shard_verify_check_sharding(e, s, type, mesh, manual);
  if (ok && keyed && cx->de->errors + cx->de->warnings == said) {
    if (!cx->clean_keys) cx->clean_keys = shard_arena_new();
    if (cx->clean_shardings.len >= S_CLEAN_MAX) {
      shard_strmap_clear(&cx->clean_shardings);
      shard_arena_reset(cx->clean_keys);
    }
    shard_strmap_put(&cx->clean_shardings, shard_arena_dup(cx->clean_keys, k->data, k->len), k->len, cx);
  }
  return ok;
}

bool shard_verify_check_per_value(const vf_emit *e, const shard_sharding_per_value *pv, shard_type *const *types,
                                  uint32_t ntypes, const vf_manual *manual) {
  vf_ctx *cx = e->cx;
  if (ntypes == 0 && pv->num == 1) {
    const shard_tensor_sharding *first = &pv->shardings[0];
    const shard_mesh *m = shard_verify_sharding_mesh(cx, first);
    if ((m && shard_mesh_is_maximal(m)) || S_fully_replicated(first)) {
      vf_emit ve = shard_verify_emit_value(e, 0, 0);
      return shard_verify_check_sharding(&ve, first, NULL, m, manual);
    }
  }
  if (pv->num != ntypes)
    return shard_verify_fail(e, "shardings don't match number of values: %u shardings vs %u values", pv->num, ntypes);
  for (uint32_t i = 0; i < ntypes; i++) {
    vf_emit ve = shard_verify_emit_value(e, ntypes, i);
    if (!shard_verify_check_sharding_lookup(&ve, &pv->shardings[i], types[i], manual)) return false;
  }
  return true;
}

/* ---- op sharding rules -------------------------------------------------- */

/* verifyShardingRuleMapping for the operands or results of `op`. `seen`
 * marks factors used by any value; `stamp` (one slot per factor) detects a
 * factor reused within one value without clearing between values. */
static bool S_check_mappings(vf_ctx *cx, const shard_op *op, const shard_op_sharding_rule *r, bool results,
                             uint8_t *seen, uint32_t *stamp, uint32_t *stamp_gen) {
  const char *kind = results ? "result" : "operand";
  const shard_tensor_mapping *maps = results ? r->results : r->operands;
  uint32_t nmaps = results ? r->num_results : r->num_operands;
  uint32_t nvals = results ? op->num_results : op->num_operands;
  vf_emit e = shard_verify_emit_op(cx, op, NULL);
  if (nvals != nmaps)
    return shard_verify_fail(&e, "number of %ss and mappings must match: %u != %u", kind, nvals, nmaps);
  if (!nmaps)
    return shard_verify_fail(&e,
                             "number of %ss mappings cannot be 0. Op sharding rules can only be defined on "
                             "operations with at least one operand and result.",
                             kind);
  vf_emit base = shard_verify_emit_op(cx, op, results ? "result " : "operand ");
  for (uint32_t v = 0; v < nvals; v++) {
    const shard_type *t = results ? op->results[v].type : (op->operands[v].value ? op->operands[v].value->type : NULL);
    vf_emit ve = shard_verify_emit_value(&base, nvals, v);
    uint32_t gen = ++*stamp_gen;
    if (!shard_verify_type_static(t))
      return shard_verify_fail(&ve, "expected a ranked tensor with a static shape. type: '%s'",
                               shard_verify_type_str(t));
    if (maps[v].rank != t->rank)
      return shard_verify_fail(&ve, "mapping rank must match: %u != %u", maps[v].rank, t->rank);
    for (uint32_t d = 0; d < maps[v].rank; d++) {
      const shard_dim_mapping *dm = &maps[v].dims[d];
      if (!dm->num_factors) return shard_verify_fail(&ve, "dim mapping must have at least one factor");
      for (uint32_t k = 0; k < dm->num_factors; k++) {
        int64_t f = dm->factors[k];
        if (f < 0 || f >= (int64_t)r->num_factors)
          return shard_verify_fail(
              &ve, "expecting factor indices to be within 0<=...<num_factors; received: %" PRId64 ", num_factors: %u",
              f, r->num_factors);
        if (stamp[f] == gen) return shard_verify_fail(&ve, "cannot reuse factors for the same tensor value");
        if (r->factor_sizes[f] == 1 && dm->num_factors > 1)
          return shard_verify_fail(&ve, "dim mapping can't have a factor of size 1 if there are multiple factors");
        stamp[f] = gen;
        seen[f] = 1;
      }
    }
  }
  return true;
}

static bool S_check_special(vf_ctx *cx, const shard_op *op, uint32_t num_factors, const int64_t *idx, uint32_t n) {
  vf_emit e = shard_verify_emit_op(cx, op, NULL);
  if (!n) return true;
  for (uint32_t i = 1; i < n; i++)
    if (idx[i] < idx[i - 1]) return shard_verify_fail(&e, "indices of special factors must be sorted");
  for (uint32_t i = 1; i < n; i++)
    if (idx[i] == idx[i - 1]) return shard_verify_fail(&e, "indices of special factors must be unique");
  if (idx[0] < 0) return shard_verify_fail(&e, "index must be non-negative");
  if (idx[n - 1] >= (int64_t)num_factors)
    return shard_verify_fail(&e, "index must be less than %u, got: %" PRId64, num_factors, idx[n - 1]);
  return true;
}

static bool vf_check_rule(vf_ctx *cx, const shard_op *op, const shard_op_sharding_rule *r) {
  uint32_t nf = r->num_factors;
  uint8_t *in_operands = shard_xcalloc(nf + 1, 1), *in_results = shard_xcalloc(nf + 1, 1);
  uint32_t *stamp = shard_xcalloc(nf + 1, sizeof *stamp), gen = 0;
  bool ok = S_check_mappings(cx, op, r, false, in_operands, stamp, &gen) &&
            S_check_mappings(cx, op, r, true, in_results, stamp, &gen);
  vf_emit e = shard_verify_emit_op(cx, op, NULL);
  for (uint32_t f = 0; f < nf && ok; f++)
    if (!in_operands[f] && !in_results[f]) {
      shard_buf b;
      shard_buf_init(&b);
      shard_rule_factor_symbol(&b, f);
      ok = shard_verify_fail(&e, "has factor %s=%" PRId64 " that isn't used in operand and result mappings",
                             shard_buf_str(&b), r->factor_sizes[f]);
      shard_buf_free(&b);
    }
  ok = ok && S_check_special(cx, op, nf, r->reduction, r->num_reduction) &&
       S_check_special(cx, op, nf, r->need_replication, r->num_need_replication) &&
       S_check_special(cx, op, nf, r->permutation, r->num_permutation);
  if (ok) {
    /* All three lists are now in range, sorted and unique: count overlaps
     * with one stamp per factor. */
    uint32_t g = ++gen;
    const int64_t *lists[3] = {r->reduction, r->need_replication, r->permutation};
    uint32_t lens[3] = {r->num_reduction, r->num_need_replication, r->num_permutation};
    for (int l = 0; l < 3 && ok; l++)
      for (uint32_t i = 0; i < lens[l] && ok; i++) {
        if (stamp[lists[l][i]] == g)
          ok = shard_verify_fail(&e, "a factor can only be in one of the reduction, need replication, or permutation "
                                     "factor sets");
        stamp[lists[l][i]] = g;
      }
  }
  ok = ok && S_check_special(cx, op, nf, r->blocked_propagation, r->num_blocked_propagation);
  for (uint32_t i = 0; i < r->num_reduction && ok; i++)
    if (in_results[r->reduction[i]]) ok = shard_verify_fail(&e, "reduction factor cannot be in result mappings");
  free(in_operands);
  free(in_results);
  free(stamp);
  return ok;
}

/* ---- propagation edges -------------------------------------------------- */

static bool S_ref_equal(const shard_value_ref *a, const shard_value_ref *b) {
  return a->is_result == b->is_result && a->index == b->index;
}

/* PropagationEdgesAttr::verify. Step indices are checked for duplicates
 * through a hash set of their values (as pointers, offset to avoid NULL). */
bool shard_verify_check_edges_syntax(vf_ctx *cx, const shard_attr *edges, shard_span span) {
  vf_emit e = shard_verify_emit_op(cx, NULL, NULL);
  e.span = span;
  shard_ptrmap steps = {0};
  bool ok = true;
  for (uint32_t s = 0; s < edges->u.edges.num && ok; s++) {
    const shard_edge_step *st = &edges->u.edges.steps[s];
    if (st->step < 0) {
      ok = shard_verify_fail(&e, "propagation edges have negative step index: %" PRId64, st->step);
      break;
    }
    const void *key = (const void *)(uintptr_t)(st->step + 1);
    if (!shard_ptrmap_add(&steps, key)) {
      ok = shard_verify_fail(&e, "propagation edges have duplicate step index: %" PRId64, st->step);
      break;
    }
    for (uint32_t a = 0; a < st->num_edges && ok; a++) {
      const shard_axis_edge *ae = &st->edges[a];
      shard_ptrmap targets = {0};
      for (uint32_t t = 0; t < ae->num_targets && ok; t++) {
        const shard_value_ref *tr = &ae->targets[t];
        if (S_ref_equal(&ae->source, tr)) {
          ok = shard_verify_fail(&e, "propagation edges have a source that is the same as a target");
          break;
        }
        const void *tkey = (const void *)(uintptr_t)(((uint64_t)tr->index << 1 | tr->is_result) + 1);
        if (!shard_ptrmap_add(&targets, tkey)) {
          ok =
              shard_verify_fail(&e, "propagation edges have duplicate targets for step index: %" PRId64 " and axis: %s",
                                st->step, ae->axis.name);
          break;
        }
      }
      shard_ptrmap_release(&targets);
    }
  }
  shard_ptrmap_release(&steps);
  return ok;
}

static const shard_value *S_edge_value(const shard_op *op, const shard_value_ref *r) {
  if (r->index < 0) return NULL;
  if (r->is_result) return r->index < (int64_t)op->num_results ? &op->results[r->index] : NULL;
  return r->index < (int64_t)op->num_operands ? op->operands[r->index].value : NULL;
}

static bool S_check_edge_ref(vf_ctx *cx, const shard_op *op, const shard_value_ref *r) {
  if (shard_verify_op_is(op, "sdy.func_data_flow_edge")) return true;
  vf_emit e = shard_verify_emit_op(cx, op, NULL);
  uint32_t n = r->is_result ? op->num_results : op->num_operands;
  if (r->index < 0 || r->index >= (int64_t)n)
    return shard_verify_fail(&e, "expected a value ref to have %s index in range [0, %u), got: %" PRId64,
                             r->is_result ? "a result" : "an operand", n, r->index);
  return true;
}

/* verifyPropagationEdgesShardingAttr. */
static bool vf_check_edges_attr(vf_ctx *cx, const shard_op *op, const shard_attr *edges) {
  vf_emit e = shard_verify_emit_op(cx, op, NULL);
  const shard_mesh *mesh = NULL;
  bool any = false, common = true;
  for (uint32_t s = 0; s < edges->u.edges.num; s++) {
    const shard_edge_step *st = &edges->u.edges.steps[s];
    for (uint32_t a = 0; a < st->num_edges; a++) {
      const shard_axis_edge *ae = &st->edges[a];
      for (uint32_t t = 0; t <= ae->num_targets; t++) {
        const shard_value_ref *r = t == ae->num_targets ? &ae->source : &ae->targets[t];
        const shard_tensor_sharding *sh = shard_verify_value_sharding(cx, S_edge_value(op, r));
        if (!sh) continue;
        const shard_mesh *other = shard_verify_sharding_mesh(cx, sh);
        if (!any || !mesh || shard_mesh_is_empty(mesh)) {
          any = true;
          mesh = other;
          continue;
        }
        if (!other) common = false;
        else if (!shard_mesh_is_empty(other) && !shard_mesh_equal(other, mesh)) common = false;
      }
    }
  }
  if (!any) return shard_verify_fail(&e, "expected propagation edges attr to reference a sharding.");
  if (!common || !mesh) return shard_verify_fail(&e, "expected a common mesh for propagation edges attr.");
  for (uint32_t s = 0; s < edges->u.edges.num; s++) {
    const shard_edge_step *st = &edges->u.edges.steps[s];
    for (uint32_t a = 0; a < st->num_edges; a++) {
      const shard_axis_edge *ae = &st->edges[a];
      if (shard_verify_axis_index(cx, mesh, ae->axis.name) < 0)
        return shard_verify_fail(&e, "expected axis ref to be in one of the meshes");
      if (!S_check_edge_ref(cx, op, &ae->source)) return false;
      for (uint32_t t = 0; t < ae->num_targets; t++)
        if (!S_check_edge_ref(cx, op, &ae->targets[t])) return false;
    }
  }
  return true;
}

/* ---- the sdy.* attributes of an op ---------------------------------------- */

bool shard_verify_check_op_attrs(vf_ctx *cx, const shard_op *op, const vf_manual *manual) {
  /* Attributes are sorted by name, which is the order MLIR visits them in. */
  for (uint32_t i = 0; i < op->num_attrs; i++) {
    const char *name = op->attrs[i].name;
    const shard_attr *a = op->attrs[i].value;
    if (op->attrs[i].inherent || strncmp(name, "sdy.", 4) != 0 || !a) continue;
    vf_emit e = shard_verify_emit_op(cx, op, NULL);
    if (strcmp(name, "sdy.sharding") == 0) {
      if (a->kind != SHARD_ATTR_SDY_PER_VALUE)
        return shard_verify_fail(&e, "should have a sharding attribute of type TensorShardingPerValueAttr");
      shard_type **types = shard_xmalloc(sizeof *types * (op->num_results + 1));
      for (uint32_t r = 0; r < op->num_results; r++) types[r] = op->results[r].type;
      vf_emit re = shard_verify_emit_op(cx, op, "result ");
      bool ok = shard_verify_check_per_value(&re, a->u.per_value, types, op->num_results, manual);
      free(types);
      if (!ok) return false;
    } else if (strcmp(name, "sdy.sharding_rule") == 0) {
      if (a->kind != SHARD_ATTR_SDY_RULE)
        return shard_verify_fail(&e, "should have a sharding rule attribute of type OpShardingRuleAttr for attr named "
                                     "'sdy.sharding_rule'");
      if (!vf_check_rule(cx, op, a->u.rule)) return false;
    } else if (strcmp(name, "sdy.propagation_edges") == 0) {
      if (a->kind != SHARD_ATTR_SDY_EDGES)
        return shard_verify_fail(&e, "should have a propagation edges attribute of type PropagationEdgesAttr for attr "
                                     "named 'sdy.propagation_edges'");
      if (!vf_check_edges_attr(cx, op, a)) return false;
    } else if (strcmp(name, "sdy.result_propagation_edges") == 0 ||
               strcmp(name, "sdy.block_arg_propagation_edges") == 0) {
      bool bad = a->kind != SHARD_ATTR_ARRAY;
      for (uint32_t k = 0; !bad && k < a->u.array.num; k++)
        bad = !a->u.array.elems[k] || a->u.array.elems[k]->kind != SHARD_ATTR_SDY_EDGES;
      if (bad)
        return shard_verify_fail(&e,
                                 "should have a propagation edges attribute of type ArrayAttr<PropagationEdgesAttr> "
                                 "for attr named 'sdy.result_propagation_edges' or 'sdy.block_arg_propagation_edges'");
    }
  }
  return true;
}
