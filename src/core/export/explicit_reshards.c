/* -sdy-insert-explicit-reshards (see explicit_reshards.h), after Shardy's
 * insert_explicit_reshards.cc and explicit_reshards_util.cc.
 *
 * Ops are visited in post-order (an op after the ops in its regions), each
 * once, as MLIR's walk visits them; ops the pass inserts are never visited.
 * Per op, in order:
 *   - data-flow ops (while, case, optimization_barrier, named and manual
 *     computations) reshard each edge source to its owner's sharding;
 *   - func.call reshards its operands to the callee's argument shardings;
 *   - an sdy.reshard that adds unreduced axes becomes
 *     replicated_to_unreduced / sharded_to_unreduced;
 *   - operands with unreduced axes the result doesn't keep get an all_reduce;
 *   - ops with a single-device (maximal) result sharding move their operands
 *     to that device and their results back to the global mesh;
 *   - any other op with a (non-custom) sharding rule and one mesh: project
 *     the shardings to factors; if they are incompatible pick common axes per
 *     factor (findCommonAxes), reshard the operands and results that change,
 *     and all-reduce results over the axes of sharded reduction factors.
 * Finally each func's returned values are resharded to its result shardings.
 *
 * Axis lists follow Shardy's value semantics: every list is replaced, never
 * edited in place, so projections and shardings can share arrays. */
#include "export/explicit_reshards.h"

#include <string.h>

#include "ir/opdef.h"
#include "pass/pass_shardings.h"
#include "propagate/propagate.h"
#include "export/reshard.h"
#include "rules/rule_registry.h"
#include "support/ptrmap.h"

/* ---- axis algebra (Shardy's AxisRefAttr semantics) -------------------------- */

static bool S_axes_equal(shard_axes a, shard_axes b) { return shard_axes_equal(a.v, a.n, b.v, b.n); }

/* AxisListRef::operator<: shorter first, then element-wise. */
static int S_axes_cmp(shard_axes a, shard_axes b) {
  if (a.n != b.n) return a.n < b.n ? -1 : 1;
  for (uint32_t i = 0; i < a.n; i++) {
    int c = shard_axis_compare(&a.v[i], &b.v[i], NULL); /* AxisRefAttr::operator< */
    if (c) return c;
  }
  return 0;
}

static bool S_axis_strict_prefix(const shard_axis_ref *a, const shard_axis_ref *b) {
  return !shard_axis_equal(a, b) && shard_axis_is_prefix_of(a, b, NULL);
}

/* AxisListRef::strictPrefixOf. */
static bool S_axes_strict_prefix(shard_axes a, shard_axes b) {
  if (a.n == 0) return b.n != 0;
  if (a.n > b.n) return false;
  for (uint32_t i = 0; i + 1 < a.n; i++)
    if (!shard_axis_equal(&a.v[i], &b.v[i])) return false;
  const shard_axis_ref *tail = &a.v[a.n - 1];
  if (a.n == b.n) return S_axis_strict_prefix(tail, &b.v[a.n - 1]);
  return shard_axis_is_prefix_of(tail, &b.v[a.n - 1], NULL);
}

static int64_t S_axes_size(shard_axes a, const shard_mesh *m) { return shard_axes_product(a.v, a.n, m); }

static bool S_lists_overlap(shard_axes a, shard_axes b) {
  for (uint32_t i = 0; i < a.n; i++)
    for (uint32_t j = 0; j < b.n; j++)
      if (shard_axis_overlaps(&a.v[i], &b.v[j], NULL)) return true;
  return false;
}

static shard_axes S_dup(shard_arena *a, const shard_axis_ref *v, uint32_t n) {
  shard_axes r = {NULL, n};
  if (n) r.v = shard_arena_dup(a, v, sizeof *v * n);
  return r;
}

/* A copy with room for `extra` more refs. */
static shard_axes S_dup_room(shard_arena *a, shard_axes x, uint32_t extra) {
  shard_axes r = {SHARD_NEW_ARRAY(a, shard_axis_ref, x.n + extra + 1), x.n};
  if (x.n) memcpy(r.v, x.v, sizeof *x.v * x.n);
  return r;
}

/* Truncates `axes` at the first axis overlapping `others`, keeping the
 * largest non-overlapping prefix of that axis (truncateAxesByRemovingOverlaps,
 * AxisListRef::truncateWithoutOverlap). Returns whether anything changed. */
static bool S_truncate_without_overlap(shard_arena *a, shard_axes *axes, shard_axes others) {
  for (uint32_t i = 0; i < axes->n; i++) {
    shard_axis_ref p;
    bool has = shard_axis_prefix_without_overlap_list(&axes->v[i], others.v, others.n, &p);
    if (has && shard_axis_equal(&p, &axes->v[i])) continue;
    shard_axes r = S_dup(a, axes->v, i + (has ? 1 : 0));
    if (has) r.v[i] = p;
    *axes = r;
    return true;
  }
  return false;
}

/* getAxisSetDiff: the parts of the axes in `a` not covered by `b`. */
static shard_axes S_set_diff(shard_arena *ar, shard_axes a, shard_axes b, const shard_mesh *m) {
  if (a.n == 0 || S_axes_equal(a, b)) return (shard_axes){NULL, 0};
  if (b.n == 0) return a;
  SHARD_VEC(shard_axis_ref) out = {0};
  for (uint32_t i = 0; i < a.n; i++) {
    shard_axis_ref x = a.v[i];
    bool live = true;
    while (live) {
      const shard_axis_ref *hit = NULL;
      for (uint32_t j = 0; j < b.n && !hit; j++)
        if (shard_axis_overlaps(&x, &b.v[j], m)) hit = &b.v[j];
      if (!hit) {
        SHARD_VEC_PUSH(out, x);
        break;
      }
      shard_axis_ref p;
      if (shard_axis_prefix_without_overlap(&x, hit, &p)) SHARD_VEC_PUSH(out, p);
      live = shard_axis_suffix_without_overlap(&x, hit, m, &x);
    }
  }
  shard_axes r = {NULL, out.len};
  SHARD_VEC_FREEZE(ar, out, r.v);
  return r;
}

/* sortAndMergeAxes, into a copy. */
static shard_axes S_sort_and_merge(shard_arena *a, shard_axes x, const shard_mesh *m) {
  if (x.n == 0) return x;
  shard_axes r = S_dup(a, x.v, x.n);
  r.n = shard_axes_sort_and_merge(r.v, r.n, m);
  return r;
}

/* addAxisOrMerge on a list with room for one more ref. */
static void S_add_or_merge(shard_axes *x, const shard_axis_ref *r, const shard_mesh *m) {
  if (x->n && shard_axis_can_merge(&x->v[x->n - 1], r)) x->v[x->n - 1] = shard_axis_merge(&x->v[x->n - 1], r, m);
  else x->v[x->n++] = *r;
}

/* ---- rule queries --------------------------------------------------------------- */

static bool S_in_list(const int64_t *v, uint32_t n, int64_t f) {
  for (uint32_t i = 0; i < n; i++)
    if (v[i] == f) return true;
  return false;
}

typedef enum factor_type { FT_PASS_THROUGH, FT_REDUCTION, FT_NEED_REPLICATION, FT_PERMUTATION } factor_type;

static factor_type S_factor_type(const shard_op_sharding_rule *r, int64_t f) {
  if (S_in_list(r->reduction, r->num_reduction, f)) return FT_REDUCTION;
  if (S_in_list(r->need_replication, r->num_need_replication, f)) return FT_NEED_REPLICATION;
  if (S_in_list(r->permutation, r->num_permutation, f)) return FT_PERMUTATION;
  return FT_PASS_THROUGH;
}

static int S_precedence(factor_type t) {
  switch (t) {
  case FT_PASS_THROUGH: return 3;
  case FT_REDUCTION: return 2;
  case FT_PERMUTATION: return 1;
  case FT_NEED_REPLICATION: return 0;
  }
  return 0;
}

static const shard_tensor_mapping *S_mapping(const shard_op_sharding_rule *r, uint32_t t) {
  return t < r->num_operands ? &r->operands[t] : &r->results[t - r->num_operands];
}

static uint32_t S_num_tensors(const shard_op_sharding_rule *r) { return r->num_operands + r->num_results; }

static bool S_mapping_has_factor(const shard_tensor_mapping *tm, int64_t f) {
  for (uint32_t d = 0; d < tm->rank; d++)
    if (S_in_list(tm->dims[d].factors, tm->dims[d].num_factors, f)) return true;
  return false;
}

static bool S_factor_in_all_non_scalar(const shard_op_sharding_rule *r, int64_t f) {
  for (uint32_t t = 0; t < S_num_tensors(r); t++) {
    const shard_tensor_mapping *tm = S_mapping(r, t);
    if (tm->rank && !S_mapping_has_factor(tm, f)) return false;
  }
  return true;
}

static bool S_is_batching_factor(const shard_op_sharding_rule *r, int64_t f) {
  return S_factor_type(r, f) == FT_PASS_THROUGH && S_factor_in_all_non_scalar(r, f);
}

static bool S_has_multi_factor_dims(const shard_op_sharding_rule *r) {
  for (uint32_t t = 0; t < S_num_tensors(r); t++) {
    const shard_tensor_mapping *tm = S_mapping(r, t);
    for (uint32_t d = 0; d < tm->rank; d++)
      if (tm->dims[d].num_factors > 1) return true;
  }
  return false;
}

/* ---- compatibility ---------------------------------------------------------------- */

static const shard_factor_sharding *S_fs(const shard_projection *p, uint32_t t, int64_t f) {
  const shard_factor_sharding *fs = &p->tensors[t].factors[f];
  return fs->mapped ? fs : NULL;
}

/* getCompatibleFactorSharding: the axes of `f` if every tensor that has it
 * agrees (empty when none has it). */
static bool S_compatible_factor(const shard_projection *p, int64_t f, shard_axes *out) {
  bool seen = false;
  *out = (shard_axes){NULL, 0};
  for (uint32_t t = 0; t < shard_projection_num_tensors(p); t++) {
    const shard_factor_sharding *fs = S_fs(p, t, f);
    if (!fs) continue;
    if (seen && !S_axes_equal(*out, fs->axes)) return false;
    *out = fs->axes;
    seen = true;
  }
  return true;
}

bool shard_explicit_compatible_axes(const shard_projection *p, const shard_op_sharding_rule *rule, shard_axes *out) {
  SHARD_VEC(shard_axis_ref) seen = {0};
  bool ok = true;
  for (uint32_t f = 0; f < rule->num_factors && ok; f++) {
    shard_axes axes;
    out[f] = (shard_axes){NULL, 0};
    if (!S_compatible_factor(p, f, &axes)) {
      ok = false;
    } else if (S_factor_type(rule, f) == FT_NEED_REPLICATION) {
      ok = axes.n == 0;
    } else if (S_lists_overlap(axes, (shard_axes){seen.items, seen.len})) {
      ok = false;
    } else {
      out[f] = axes;
      for (uint32_t i = 0; i < axes.n; i++) SHARD_VEC_PUSH(seen, axes.v[i]);
    }
  }
  SHARD_VEC_FREE(seen);
  /* Shardy signals "incompatible" with an empty vector, which a rule
   * without factors also produces. */
  return ok && rule->num_factors > 0;
}

/* ---- findCommonAxes: unary ops ------------------------------------------------------- */

static bool S_has_sharded_permutation(const shard_projection *p, const shard_op_sharding_rule *r, uint32_t t) {
  for (uint32_t f = 0; f < p->num_factors; f++) {
    const shard_factor_sharding *fs = S_fs(p, t, f);
    if (fs && fs->axes.n && S_factor_type(r, f) == FT_PERMUTATION) return true;
  }
  return false;
}

/* Is tensor a preferred over b (no sharded permutation factor, larger,
 * more sharded; ties prefer a)? */
static bool S_prefer(const shard_projection *p, const shard_op_sharding_rule *r, const int64_t *sizes, uint32_t a,
                     uint32_t b) {
  bool pa = !S_has_sharded_permutation(p, r, a), pb = !S_has_sharded_permutation(p, r, b);
  if (pa != pb) return pa;
  if (sizes[a] != sizes[b]) return sizes[a] > sizes[b];
  return shard_projection_sharding_size(p, a) >= shard_projection_sharding_size(p, b);
}

static void S_common_axes_unary(const shard_projection *p, const shard_op_sharding_rule *r, const int64_t *sizes,
                                uint32_t lhs, uint32_t rhs, shard_axes *out) {
  uint32_t pref = lhs, other = rhs;
  if (!S_prefer(p, r, sizes, lhs, rhs)) {
    pref = rhs;
    other = lhs;
  }
  SHARD_VEC(shard_axis_ref) used = {0};
  for (uint32_t f = 0; f < r->num_factors; f++) {
    const shard_factor_sharding *fs = S_fs(p, pref, f);
    out[f] = (shard_axes){NULL, 0};
    if (!fs) continue;
    out[f] = fs->axes;
    for (uint32_t i = 0; i < fs->axes.n; i++) SHARD_VEC_PUSH(used, fs->axes.v[i]);
  }
  shard_axes used_axes = {used.items, used.len};
  for (uint32_t f = 0; f < r->num_factors; f++) {
    const shard_factor_sharding *fs = S_fs(p, other, f);
    if (!fs || S_fs(p, pref, f)) continue;
    out[f] = fs->axes;
    S_truncate_without_overlap(p->arena, &out[f], used_axes);
  }
  SHARD_VEC_FREE(used);
}

/* ---- findCommonAxes: the greedy heuristic ------------------------------------------ */

typedef struct candidate {
  int64_t factor;
  shard_axes axes;
  int64_t source_size; /* total global size of the tensors it comes from */
  int precedence;
  int64_t sharding_size; /* what it adds over the factor's current axes */
} candidate;

/* Is a worse than b (the comparison tuple of FactorAxesCandidate)? */
static bool S_cand_less(const candidate *a, const candidate *b) {
  if (a->source_size != b->source_size) return a->source_size < b->source_size;
  if (a->precedence != b->precedence) return a->precedence < b->precedence;
  if (a->sharding_size != b->sharding_size) return a->sharding_size < b->sharding_size;
  if (a->factor != b->factor) return a->factor < b->factor;
  return S_axes_cmp(a->axes, b->axes) < 0;
}

typedef SHARD_VEC(candidate) candidate_vec;

static void S_common_axes_heuristic(const shard_projection *p, const shard_op_sharding_rule *r, const int64_t *sizes,
                                    shard_axes *out) {
  shard_arena *a = p->arena;
  const shard_mesh *m = p->mesh;
  uint32_t nf = r->num_factors, nt = shard_projection_num_tensors(p);
  candidate_vec c = {0};
  /* Every factor sharding and each of its prefixes, once. */
  for (uint32_t t = 0; t < nt; t++)
    for (uint32_t f = 0; f < nf; f++) {
      const shard_factor_sharding *fs = S_fs(p, t, f);
      if (!fs) continue;
      for (uint32_t k = fs->axes.n; k > 0; k--) {
        shard_axes pre = {fs->axes.v, k};
        bool dup = false;
        for (uint32_t i = 0; i < c.len && !dup; i++) dup = c.items[i].factor == f && S_axes_equal(c.items[i].axes, pre);
        if (dup) continue;
        candidate cd = {f, pre, 0, S_precedence(S_factor_type(r, f)), S_axes_size(pre, m)};
        SHARD_VEC_PUSH(c, cd);
      }
    }
  for (uint32_t t = 0; t < nt; t++)
    for (uint32_t f = 0; f < nf; f++) {
      const shard_factor_sharding *fs = S_fs(p, t, f);
      if (!fs) continue;
      for (uint32_t i = 0; i < c.len; i++)
        if (c.items[i].factor == f &&
            (S_axes_equal(fs->axes, c.items[i].axes) || S_axes_strict_prefix(c.items[i].axes, fs->axes)))
          c.items[i].source_size += sizes[t];
    }
  /* deps[f * nf + g]: f must wait until g, the factor before it in some
   * dim, is fully sharded (otherwise f would need a strided view). */
  bool *deps = SHARD_NEW_ARRAY(a, bool, (size_t)nf *nf + 1);
  for (uint32_t t = 0; t < nt; t++) {
    const shard_tensor_mapping *tm = S_mapping(r, t);
    for (uint32_t d = 0; d < tm->rank; d++)
      for (uint32_t k = 1; k < tm->dims[d].num_factors; k++) {
        int64_t f = tm->dims[d].factors[k], g = tm->dims[d].factors[k - 1];
        if (f >= 0 && g >= 0 && f < nf && g < nf) deps[f * nf + g] = true;
      }
  }
  for (uint32_t f = 0; f < nf; f++) out[f] = (shard_axes){NULL, 0};

  while (c.len) {
    int best = -1;
    for (uint32_t i = 0; i < c.len; i++) {
      bool valid = true;
      for (uint32_t g = 0; g < nf && valid; g++) valid = !deps[c.items[i].factor * nf + g];
      if (valid && (best < 0 || S_cand_less(&c.items[best], &c.items[i]))) best = (int)i;
    }
    if (best < 0) break;
    candidate b = c.items[best];
    out[b.factor] = b.axes;
    if (S_axes_size(b.axes, m) == p->factor_sizes[b.factor])
      for (uint32_t f = 0; f < nf; f++) deps[f * nf + b.factor] = false;
    uint32_t i = 0;
    while (i < c.len) {
      candidate *cd = &c.items[i];
      if (cd->factor == b.factor) {
        if (!S_axes_strict_prefix(b.axes, cd->axes)) {
          c.items[i] = c.items[--c.len];
          continue;
        }
        cd->sharding_size = S_axes_size(cd->axes, m) / S_axes_size(b.axes, m);
        i++;
        continue;
      }
      if (S_truncate_without_overlap(a, &cd->axes, b.axes)) {
        if (S_axes_equal(cd->axes, out[cd->factor])) {
          c.items[i] = c.items[--c.len];
          continue;
        }
        cd->sharding_size = S_axes_size(cd->axes, m) / S_axes_size(out[cd->factor], m);
        i++;
        continue;
      }
      cd->sharding_size = S_axes_size(cd->axes, m);
      i++;
    }
  }
  SHARD_VEC_FREE(c);
}

/* Moves the axes of need-replication factors onto batching factors that
 * have room for them (distributeAxisRefsToBatchingFactors). */
static void S_distribute_to_batching(const shard_projection *p, const shard_op_sharding_rule *r, shard_axes *out) {
  const shard_mesh *m = p->mesh;
  for (uint32_t k = 0; k < r->num_need_replication; k++) {
    int64_t nr = r->need_replication[k];
    if (nr < 0 || (uint32_t)nr >= r->num_factors) continue;
    shard_axes todo = out[nr];
    out[nr] = (shard_axes){NULL, 0};
    if (!todo.n || !S_factor_in_all_non_scalar(r, nr)) continue;
    for (uint32_t f = 0; f < r->num_factors && todo.n; f++) {
      if (!S_is_batching_factor(r, f)) continue;
      int64_t size = r->factor_sizes[f];
      if (size == 0) continue;
      int64_t sharded = S_axes_size(out[f], m);
      if (size % sharded != 0) continue;
      int64_t capacity = size / sharded;
      shard_axes grown = S_dup_room(p->arena, out[f], todo.n);
      while (todo.n) {
        int64_t s = shard_axis_size(&todo.v[0], m);
        if (capacity % s != 0) break;
        S_add_or_merge(&grown, &todo.v[0], m);
        capacity /= s;
        todo.v++;
        todo.n--;
      }
      out[f] = grown;
    }
  }
}

void shard_explicit_find_common_axes(const shard_projection *p, const shard_op_sharding_rule *rule,
                                     const int64_t *tensor_sizes, shard_axes *out) {
  if (shard_explicit_compatible_axes(p, rule, out)) return;
  uint32_t non_scalar[2], count = 0;
  for (uint32_t t = 0; t < S_num_tensors(rule); t++)
    if (S_mapping(rule, t)->rank) {
      if (count < 2) non_scalar[count] = t;
      count++;
    }
  if (count == 2 && rule->num_need_replication == 0 && !S_has_multi_factor_dims(rule)) {
    S_common_axes_unary(p, rule, tensor_sizes, non_scalar[0], non_scalar[1], out);
    return;
  }
  S_common_axes_heuristic(p, rule, tensor_sizes, out);
  if (rule->num_need_replication) S_distribute_to_batching(p, rule, out);
}

/* ---- the pass: IR helpers ------------------------------------------------------------ */

/* How many shardings S_projected remembers. */
#define XR_RECENT 8

typedef struct xr {
  shard_module *m;
  shard_arena *a;
  bool full;
  shard_diag_engine *de;
  bool failed;
  /* meshes by symbol name: the pass adds no meshes */
  shard_mesh_memo meshes;
  /* rules created for ops without a sdy.sharding_rule (after an export
   * dropped them), shared by equal ops as in a propagation session */
  shard_rule_cache *rules;
  /* shard lower's first run: no all_reduces for sharded reduction factors,
   * the second run inserts them */
  bool defer_reductions;
  /* shard lower's second run: an sdy.all_reduce the first run inserted sums
   * the axes it reduces, and its operand keeps them unreduced */
  bool all_reduce_sums_its_axes;
  /* some sharding may have unreduced axes (false: none has, and the pass
   * makes none, so the steps for them would find nothing) */
  bool unreduced;
  /* shard lower's runs: they depart from Shardy where its output would
   * compute something else per device (mixed meshes and untyped operand
   * factors are errors, results made unreduced by no reduction get a
   * replicated_to_unreduced) */
  bool for_lower;
  /* what one op's visit needs only while it runs (its projection, the
   * shardings and sizes of its tensors, the axes per factor), reset before
   * the next op: kept in the module's arena, projections were a quarter of
   * shard lower's peak memory */
  shard_arena *tmp;
  /* block argument -> its sharding (S_sharding), for the ones that are a
   * copy: a manual computation's argument is its in_sharding without the
   * manual axes, asked for at every use */
  shard_ptrmap arg_shardings;
  /* the last shardings S_projected kept, a ring: a program reshards value
   * after value to the same sharding, and each reshard and result of an
   * equal one shares it (shardings are replaced, never edited) */
  shard_tensor_sharding *recent[XR_RECENT];
  uint32_t next_recent;
} xr;

/* Where new ops go: before `before`, or at the end of `block` when NULL. */
typedef struct cursor {
  shard_block *block;
  shard_op *before;
} cursor;

/* The op names this file tests, compared by definition (ir.h). */
static shard_op_name K_func_call = {"func.call", NULL};
static shard_op_name K_func_func = {"func.func", NULL};
static shard_op_name K_mhlo_ragged_dot = {"mhlo.ragged_dot", NULL};
static shard_op_name K_sdy_all_reduce = {"sdy.all_reduce", NULL};
static shard_op_name K_sdy_manual_computation = {"sdy.manual_computation", NULL};
static shard_op_name K_sdy_mesh = {"sdy.mesh", NULL};
static shard_op_name K_sdy_named_computation = {"sdy.named_computation", NULL};
static shard_op_name K_sdy_propagation_barrier = {"sdy.propagation_barrier", NULL};
static shard_op_name K_sdy_reshard = {"sdy.reshard", NULL};
static shard_op_name K_stablehlo_case = {"stablehlo.case", NULL};
static shard_op_name K_stablehlo_concatenate = {"stablehlo.concatenate", NULL};
static shard_op_name K_stablehlo_dot = {"stablehlo.dot", NULL};
static shard_op_name K_stablehlo_dot_general = {"stablehlo.dot_general", NULL};
static shard_op_name K_stablehlo_optimization_barrier = {"stablehlo.optimization_barrier", NULL};
static shard_op_name K_stablehlo_reshape = {"stablehlo.reshape", NULL};
static shard_op_name K_stablehlo_while = {"stablehlo.while", NULL};

static bool S_is_terminator(const shard_op *op) { return op->def && (op->def->traits & SHARD_TRAIT_TERMINATOR); }

static cursor S_before(shard_op *op) { return (cursor){op->parent, op}; }
static cursor S_after(shard_op *op) { return (cursor){op->parent, op->next}; }
static cursor S_after_value(shard_value *v) {
  if (v->def) return S_after(v->def);
  return (cursor){v->block, v->block->first};
}

static void S_insert(const cursor *c, shard_op *op) {
  if (c->before) shard_op_insert_before(c->before, op);
  else shard_block_append(c->block, op);
}

static uint32_t S_rank(const shard_value *v) {
  return v->type && v->type->kind == SHARD_TYPE_TENSOR ? v->type->rank : 0;
}

/* A manual computation argument's sharding is made once: the pass never
 * changes an in_sharding nor edits a sharding in place, so every use can
 * share it. */
static shard_tensor_sharding *S_sharding(xr *x, const shard_value *v) {
  const shard_op *owner = v->def || !v->block || !v->block->parent ? NULL : v->block->parent->parent;
  if (!owner || !shard_op_is(owner, &K_sdy_manual_computation)) return shard_propagation_value_sharding(x->a, v);
  shard_tensor_sharding *s = shard_ptrmap_get_ptr(&x->arg_shardings, v);
  if (!s && (s = shard_propagation_value_sharding(x->a, v))) shard_ptrmap_put_ptr(&x->arg_shardings, v, s);
  return s;
}

static shard_value *S_bypass_barriers(shard_value *v) {
  while (v->def && shard_op_is(v->def, &K_sdy_propagation_barrier) && v->def->num_operands == 1)
    v = v->def->operands[0].value;
  return v;
}

static const shard_mesh *S_mesh(xr *x, const shard_tensor_sharding *s) {
  return s ? shard_mesh_memo_get(&x->meshes, x->m, s) : NULL;
}

static bool S_single_device(xr *x, const shard_tensor_sharding *s) {
  const shard_mesh *m = S_mesh(x, s);
  return m && shard_mesh_is_maximal(m);
}

static bool S_fully_replicated(const shard_tensor_sharding *s) { return !s || shard_sharding_fully_replicated(s); }

/* The free isEquivalent: a missing sharding matches any sharding without
 * sharded dims (unreduced axes aside); otherwise TensorShardingAttr's. */
static bool S_equivalent(const shard_tensor_sharding *a, const shard_tensor_sharding *b) {
  if (!a) return S_fully_replicated(b);
  return shard_reshard_equivalent(a, b);
}

static shard_tensor_sharding *S_closed_replicated(xr *x, const char *mesh_name, shard_mesh *inline_mesh,
                                                  uint32_t rank) {
  return shard_sharding_open(x->a, mesh_name, inline_mesh, rank, false);
}

static shard_axes S_unreduced(const shard_tensor_sharding *s) {
  return s ? (shard_axes){s->unreduced, s->num_unreduced} : (shard_axes){NULL, 0};
}

static shard_op *S_new_op(xr *x, const char *name, shard_value *in, shard_op *near) {
  shard_type *type = in->type;
  shard_op *op = shard_op_new_named(x->a, name, 1, &in, 1, &type, 0);
  if (near) op->span = near->span;
  return op;
}

static shard_value *S_new_reshard(xr *x, const cursor *c, shard_value *in, shard_tensor_sharding *s, shard_op *near) {
  shard_op *op = S_new_op(x, "sdy.reshard", in, near);
  shard_op_set_attr(x->a, op, "sharding", shard_attr_sharding(x->a, s), true);
  S_insert(c, op);
  return &op->results[0];
}

static shard_attr *S_axis_list_attr(xr *x, shard_axes axes) {
  shard_attr *l = shard_attr_new(x->a, SHARD_ATTR_SDY_AXIS_LIST);
  l->u.axis_list.axes = axes.n ? S_dup(x->a, axes.v, axes.n).v : NULL;
  l->u.axis_list.num = axes.n;
  return l;
}

static shard_value *S_new_all_reduce(xr *x, const cursor *c, shard_value *in, shard_axes axes, shard_reduction red,
                                     shard_tensor_sharding *out, shard_op *near) {
  shard_op *op = S_new_op(x, "sdy.all_reduce", in, near);
  shard_op_set_attr(x->a, op, "reduction_axes", S_axis_list_attr(x, axes), true);
  shard_attr *r = shard_attr_new(x->a, SHARD_ATTR_SDY_REDUCTION);
  r->u.reduction = red;
  shard_op_set_attr(x->a, op, "reduction_op", r, true);
  shard_op_set_attr(x->a, op, "out_sharding", shard_attr_sharding(x->a, out), true);
  S_insert(c, op);
  return &op->results[0];
}

/* Replaces every use of `from` except those by `except` (replaceAllUsesExcept). */
static void S_replace_uses_except(shard_value *from, shard_value *to, const shard_op *except) {
  shard_operand *u = from->first_use;
  while (u) {
    shard_operand *next = u->next_use;
    if (u->owner != except) shard_operand_set(u, to);
    u = next;
  }
}

static shard_tensor_sharding *S_with_unreduced(xr *x, const shard_tensor_sharding *s, shard_axes u) {
  shard_tensor_sharding *c = shard_sharding_clone(x->a, s);
  c->unreduced = u.v;
  c->num_unreduced = u.n;
  return c;
}

/* ---- unreduced axes --------------------------------------------------------------------- */

/* insertAllReduceIfUnreducedToReplicated: all-reduces the axes unreduced in
 * `source` but not in `user` on the use. Returns the sharding the use sees. */
static shard_tensor_sharding *S_all_reduce_unreduced(xr *x, const cursor *c, shard_operand *use,
                                                     shard_tensor_sharding *source, const shard_tensor_sharding *user) {
  if (!source || !source->num_unreduced) return source;
  const shard_mesh *mesh = S_mesh(x, source);
  shard_axes src = S_unreduced(source);
  shard_axes axes = S_set_diff(x->a, src, S_unreduced(user), mesh);
  if (!axes.n) return source;
  shard_tensor_sharding *s = S_with_unreduced(x, source, S_set_diff(x->a, src, axes, mesh));
  shard_value *v = S_new_all_reduce(x, c, use->value, axes, source->reduction, s, use->owner);
  shard_operand_set(use, v);
  return s;
}

/* insertUnreducedCollectives: turns the axes `out` has unreduced but the
 * use's value doesn't into replicated_to_unreduced / sharded_to_unreduced
 * (after a reshard aligning the dims when needed). Returns the sharding of
 * the last op inserted, or NULL when none was. */
static shard_tensor_sharding *S_unreduced_collectives(xr *x, const cursor *c, shard_operand *use,
                                                      const shard_tensor_sharding *out) {
  if (!out || !out->num_unreduced) return NULL; /* before the look-up: mostly so */
  shard_value *input = use->value;
  shard_tensor_sharding *in = S_sharding(x, input);
  if (!in) return NULL;
  const shard_mesh *mesh = S_mesh(x, in);
  shard_axes in_u = S_unreduced(in), out_u = S_unreduced(out);
  shard_axes added = S_set_diff(x->a, out_u, in_u, mesh);
  if (!added.n || in->rank != out->rank) return NULL;

  uint32_t rank = in->rank;
  shard_axis_list *per_dim = SHARD_NEW_ARRAY(x->a, shard_axis_list, rank + 1);
  shard_dim_sharding *tmp = SHARD_NEW_ARRAY(x->a, shard_dim_sharding, rank + 1);
  SHARD_VEC(shard_axis_ref) s2u = {0};
  bool need_reshard = false;
  for (uint32_t d = 0; d < rank; d++) {
    const shard_dim_sharding *id = &in->dims[d], *od = &out->dims[d];
    tmp[d] = *od;
    shard_prefix_status st = shard_axes_prefix_status(od->axes, od->num_axes, id->axes, id->num_axes);
    if (st == SHARD_PREFIX_STRICT) {
      SHARD_VEC(shard_axis_ref) diff = {0};
      uint32_t on = od->num_axes;
      if (on && !shard_axis_equal(&od->axes[on - 1], &id->axes[on - 1])) {
        shard_axis_ref suffix;
        if (shard_axis_suffix_without_overlap(&id->axes[on - 1], &od->axes[on - 1], mesh, &suffix))
          SHARD_VEC_PUSH(diff, suffix);
      }
      for (uint32_t i = on; i < id->num_axes; i++) SHARD_VEC_PUSH(diff, id->axes[i]);
      shard_axes dl = {diff.items, diff.len};
      if (S_set_diff(x->a, dl, added, mesh).n == 0) {
        per_dim[d].axes = S_dup(x->a, dl.v, dl.n).v;
        per_dim[d].num = dl.n;
        for (uint32_t i = 0; i < dl.n; i++) SHARD_VEC_PUSH(s2u, dl.v[i]);
        tmp[d] = *id;
      } else {
        need_reshard = true;
      }
      SHARD_VEC_FREE(diff);
    } else if (st == SHARD_PREFIX_NOT) {
      need_reshard = true;
    }
  }

  shard_value *result = input;
  shard_tensor_sharding *last = in;
  if (need_reshard) {
    shard_tensor_sharding *r = shard_sharding_clone(x->a, in);
    r->dims = tmp;
    result = S_new_reshard(x, c, result, r, use->owner);
    last = r;
  }
  shard_axes s2u_axes = S_dup(x->a, s2u.items, s2u.len);
  SHARD_VEC_FREE(s2u);
  shard_axes r2u = S_set_diff(x->a, added, s2u_axes, mesh);
  if (r2u.n) {
    shard_axes both = S_dup_room(x->a, in_u, r2u.n);
    memcpy(both.v + both.n, r2u.v, sizeof *r2u.v * r2u.n);
    both.n += r2u.n;
    both = S_sort_and_merge(x->a, both, mesh);
    shard_tensor_sharding *s = shard_sharding_clone(x->a, in);
    s->dims = tmp;
    s->replicated = out->replicated;
    s->num_replicated = out->num_replicated;
    s->unreduced = both.v;
    s->num_unreduced = both.n;
    s->reduction = out->reduction;
    shard_op *op = S_new_op(x, "sdy.replicated_to_unreduced", result, use->owner);
    shard_op_set_attr(x->a, op, "axes", S_axis_list_attr(x, r2u), true);
    shard_op_set_attr(x->a, op, "out_sharding", shard_attr_sharding(x->a, s), true);
    S_insert(c, op);
    result = &op->results[0];
    last = s;
  }
  if (s2u_axes.n) {
    shard_op *op = S_new_op(x, "sdy.sharded_to_unreduced", result, use->owner);
    shard_attr *l = shard_attr_new(x->a, SHARD_ATTR_SDY_AXIS_LISTS);
    l->u.axis_lists.dims = per_dim;
    l->u.axis_lists.num = rank;
    shard_op_set_attr(x->a, op, "axes", l, true);
    shard_op_set_attr(x->a, op, "out_sharding", shard_attr_sharding(x->a, (shard_tensor_sharding *)out), true);
    S_insert(c, op);
    result = &op->results[0];
    last = (shard_tensor_sharding *)out;
  }
  if (result == input) return NULL;
  shard_operand_set(use, result);
  return last;
}

/* convertReshardToUnreducedCollectives. */
static bool S_reshard_to_unreduced(xr *x, shard_op *op) {
  if (!shard_op_is(op, &K_sdy_reshard) || op->num_operands != 1 || op->num_results != 1) return false;
  shard_attr *s = shard_op_attr(op, "sharding");
  if (!s || s->kind != SHARD_ATTR_SDY_SHARDING) return false;
  cursor c = S_before(op);
  if (!S_unreduced_collectives(x, &c, &op->operands[0], s->u.sharding)) return false;
  shard_value_replace_all_uses(&op->results[0], op->operands[0].value);
  shard_op_erase(op);
  return true;
}

/* insertAllReduceOnOpIfUnreducedToReplicated. In shard lower's second run
 * an sdy.all_reduce (the first run put it there) sums the axes it reduces
 * itself: its operand keeps them unreduced, so only axes neither it nor its
 * result accounts for get another. Shardy's pass, run once, has no such
 * case and inserts one. */
static void S_all_reduce_operands(xr *x, shard_op *op) {
  if (!op->num_results) return;
  shard_tensor_sharding *first = S_sharding(x, &op->results[0]);
  const shard_attr *ra =
      x->all_reduce_sums_its_axes && shard_op_is(op, &K_sdy_all_reduce) ? shard_op_attr(op, "reduction_axes") : NULL;
  if (first && ra && ra->kind == SHARD_ATTR_SDY_AXIS_LIST && ra->u.axis_list.num) {
    shard_axes u = S_dup_room(x->a, S_unreduced(first), ra->u.axis_list.num);
    for (uint32_t k = 0; k < ra->u.axis_list.num; k++) u.v[u.n++] = ra->u.axis_list.axes[k];
    first = S_with_unreduced(x, first, u);
  }
  cursor c = S_before(op);
  for (uint32_t i = 0; i < op->num_operands; i++) {
    shard_tensor_sharding *in = S_sharding(x, op->operands[i].value);
    if (in) S_all_reduce_unreduced(x, &c, &op->operands[i], in, first);
  }
}

/* insertExplicitReshardsToTargetSharding. */
static void S_reshard_to_target(xr *x, shard_operand *use, shard_tensor_sharding *target, cursor c, bool after_operand,
                                bool full) {
  shard_value *operand = use->value;
  shard_tensor_sharding *cur = S_sharding(x, operand);
  if (after_operand) c = S_after_value(operand);
  if (cur) cur = S_all_reduce_unreduced(x, &c, use, cur, target);
  shard_tensor_sharding *n = S_unreduced_collectives(x, &c, use, target);
  if (n) cur = n;
  if (!full || S_equivalent(cur, target)) return;
  if (!target) target = S_closed_replicated(x, cur->mesh_name, cur->inline_mesh, cur->rank);
  shard_value *v = S_new_reshard(x, &c, use->value, target, use->owner);
  shard_operand_set(use, v);
}

/* ---- data-flow ops, calls, returns ------------------------------------------------------ */

static shard_tensor_sharding *S_per_value_at(const shard_op *op, const char *name, uint32_t i) {
  shard_attr *pv = shard_op_attr(op, name);
  if (!pv || pv->kind != SHARD_ATTR_SDY_PER_VALUE || i >= pv->u.per_value->num) return NULL;
  return &pv->u.per_value->shardings[i];
}

static bool S_is_data_flow_op(const shard_op *op) {
  return shard_op_is(op, &K_stablehlo_while) || shard_op_is(op, &K_stablehlo_case) ||
         shard_op_is(op, &K_stablehlo_optimization_barrier) || shard_op_is(op, &K_sdy_named_computation) ||
         shard_op_is(op, &K_sdy_manual_computation);
}

static shard_operand *S_terminator_operand(shard_region *r, uint32_t i) {
  shard_op *t = r && r->first ? shard_block_terminator(r->first) : NULL;
  return t && i < t->num_operands ? &t->operands[i] : NULL;
}

/* Every edge source of a data-flow op is resharded to its owner's sharding
 * (as the owner sees it before edge propagation). */
static void S_data_flow_op(xr *x, shard_op *op, bool full) {
  bool named = shard_op_is(op, &K_sdy_named_computation), manual = shard_op_is(op, &K_sdy_manual_computation);
  cursor none = S_before(op);
  for (uint32_t i = 0; i < op->num_results; i++) {
    shard_tensor_sharding *owner;
    if (named) owner = S_per_value_at(op, "out_shardings", i);
    else if (manual)
      owner =
          shard_sharding_erase_manual(x->a, S_per_value_at(op, "out_shardings", i), shard_op_attr(op, "manual_axes"));
    else owner = S_per_value_at(op, "sdy.sharding", i);
    shard_operand *sources[64];
    uint32_t n = 0;
    if (shard_op_is(op, &K_stablehlo_while)) {
      if (i < op->num_operands) sources[n++] = &op->operands[i];
      if (op->num_regions > 1 && (sources[n] = S_terminator_operand(&op->regions[1], i))) n++;
    } else if (shard_op_is(op, &K_stablehlo_case)) {
      for (uint32_t r = 0; r < op->num_regions && n < 64; r++)
        if ((sources[n] = S_terminator_operand(&op->regions[r], i))) n++;
    } else if (named || manual) {
      if (op->num_regions && (sources[n] = S_terminator_operand(&op->regions[0], i))) n++;
    } else if (i < op->num_operands) {
      sources[n++] = &op->operands[i];
    }
    for (uint32_t k = 0; k < n; k++) S_reshard_to_target(x, sources[k], owner, none, true, full);
  }
  if (!(named || manual) || !op->num_regions || !op->regions[0].first) return;
  shard_block *body = op->regions[0].first;
  for (uint32_t i = 0; i < body->num_args && i < op->num_operands; i++) {
    /* A manual body argument's owner sharding with the manual axes added
     * back (addFreeAxesToManualComputationSharding) is the in_sharding
     * itself, except that the reduction is reset to the default. */
    shard_tensor_sharding *owner = S_per_value_at(op, "in_shardings", i);
    if (manual && owner) {
      owner = shard_sharding_clone(x->a, owner);
      owner->reduction = SHARD_RED_SUM;
    }
    S_reshard_to_target(x, &op->operands[i], owner, none, true, full);
  }
}

/* getMeshOrRef: the first sharding on a non-maximal mesh. */
static shard_tensor_sharding *S_first_non_maximal(xr *x, shard_tensor_sharding *const *s, uint32_t n) {
  for (uint32_t i = 0; i < n; i++) {
    const shard_mesh *m = S_mesh(x, s[i]);
    if (s[i] && !(m && shard_mesh_is_maximal(m))) return s[i];
  }
  return NULL;
}

static void S_call_op(xr *x, shard_op *call) {
  shard_attr *callee = shard_op_attr(call, "callee");
  if (!callee || callee->kind != SHARD_ATTR_SYMREF || !callee->u.symref.num) return;
  shard_op *func = shard_module_lookup_symbol(x->m, callee->u.symref.path[0]);
  if (!func || !shard_op_is(func, &K_func_func)) return;
  uint32_t n = call->num_operands;
  shard_tensor_sharding **targets = SHARD_NEW_ARRAY(x->a, shard_tensor_sharding *, n + 1);
  shard_block *body = func->num_regions ? func->regions[0].first : NULL;
  uint32_t nargs = body ? body->num_args : 0;
  for (uint32_t i = 0; i < nargs && i < n; i++) targets[i] = shard_func_arg_sharding(func, i);
  shard_tensor_sharding *ref = S_first_non_maximal(x, targets, nargs < n ? nargs : n);
  if (ref) {
    for (uint32_t i = 0; i < n; i++)
      if (!targets[i])
        targets[i] = shard_sharding_open(x->a, ref->mesh_name, ref->inline_mesh, S_rank(call->operands[i].value), true);
  } else {
    for (uint32_t i = 0; i < n; i++) targets[i] = S_sharding(x, call->operands[i].value);
    ref = S_first_non_maximal(x, targets, n);
    if (!ref) return;
    for (uint32_t i = 0; i < n; i++)
      targets[i] = S_closed_replicated(x, ref->mesh_name, ref->inline_mesh, S_rank(call->operands[i].value));
  }
  cursor none = S_before(call);
  for (uint32_t i = 0; i < n; i++) S_reshard_to_target(x, &call->operands[i], targets[i], none, true, true);
}

static void S_func_return(xr *x, shard_op *func) {
  shard_block *body = func->num_regions ? func->regions[0].first : NULL;
  shard_op *ret = body ? shard_block_terminator(body) : NULL;
  if (!ret) return;
  cursor c = S_before(ret);
  for (uint32_t i = 0; i < ret->num_operands; i++)
    S_reshard_to_target(x, &ret->operands[i], shard_func_result_sharding(func, i), c, false, x->full);
}

/* ---- the mesh an op is resharded on ------------------------------------------------------- */

typedef struct mesh_pick {
  const char *name;
  shard_mesh *inline_mesh;
  const shard_mesh *mesh;
} mesh_pick;

static bool S_same_ids(const shard_mesh *a, const shard_mesh *b) {
  if (a->num_device_ids != b->num_device_ids) return false;
  for (uint32_t i = 0; i < a->num_device_ids; i++)
    if (a->device_ids[i] != b->device_ids[i]) return false;
  return true;
}

static bool S_same_mesh_ref(const shard_tensor_sharding *s, const mesh_pick *p) {
  if (s->inline_mesh || p->inline_mesh) return s->inline_mesh == p->inline_mesh;
  return s->mesh_name && p->name && strcmp(s->mesh_name, p->name) == 0;
}

/* getMesh: the common mesh of the op's shardings ignoring device ids (none
 * when they differ, none is sharded, or it is maximal), then among meshes
 * with those axes the one most non-replicated shardings use. Its counts
 * are the visit's scratch (x->tmp), not the module's. */
static bool S_pick_mesh(xr *x, shard_tensor_sharding *const *s, const shard_mesh *const *ms, uint32_t n,
                        mesh_pick *out) {
  const shard_tensor_sharding *ref = NULL;
  const shard_mesh *mesh = NULL;
  for (uint32_t i = 0; i < n; i++) {
    const shard_mesh *om = ms[i];
    if (!om) continue;
    if (!mesh || shard_mesh_is_empty(mesh)) {
      mesh = om;
      ref = s[i];
      continue;
    }
    if (shard_mesh_is_empty(om)) continue;
    if (shard_mesh_is_maximal(om) != shard_mesh_is_maximal(mesh) || !shard_mesh_same_axes(om, mesh)) return false;
    if (om->num_device_ids == 0) {
      mesh = om;
      ref = s[i];
    }
  }
  if (!ref || shard_mesh_is_maximal(mesh)) return false;
  *out = (mesh_pick){ref->mesh_name, ref->inline_mesh, mesh};
  uint32_t best = 0, *counts = SHARD_NEW_ARRAY(x->tmp, uint32_t, n + 1);
  for (uint32_t i = 0; i < n; i++) {
    if (S_fully_replicated(s[i])) continue;
    uint32_t first = i;
    for (uint32_t j = 0; j < i; j++)
      if (!S_fully_replicated(s[j]) && S_same_mesh_ref(s[j], &(mesh_pick){s[i]->mesh_name, s[i]->inline_mesh, NULL})) {
        first = j;
        break;
      }
    uint32_t count = ++counts[first];
    if (count > best) {
      best = count;
      *out = (mesh_pick){s[i]->mesh_name, s[i]->inline_mesh, ms[i]};
    }
  }
  return true;
}

static const char *S_mesh_label(const shard_tensor_sharding *s) {
  return s->mesh_name && !s->inline_mesh ? s->mesh_name : NULL;
}

/* A sharded tensor (*ip) on a mesh with other axes than another's (*jp). */
static bool S_mixed_meshes(shard_tensor_sharding *const *s, const shard_mesh *const *ms, uint32_t n, uint32_t *ip,
                           uint32_t *jp) {
  for (uint32_t i = 0; i < n; i++) {
    const shard_mesh *mi = ms[i];
    if (!mi || shard_mesh_is_maximal(mi) || S_fully_replicated(s[i])) continue;
    for (uint32_t j = 0; j < n; j++) {
      const shard_mesh *mj = ms[j];
      if (!mj || mj == mi || shard_mesh_is_empty(mj) || shard_mesh_is_maximal(mj) || shard_mesh_same_axes(mi, mj))
        continue;
      *ip = i;
      *jp = j;
      return true;
    }
  }
  return false;
}

/* S_pick_mesh found no common mesh. Shardy leaves the op as it is, which is
 * right when every tensor is replicated; when one is sharded and another
 * sits on a mesh with other axes, the per-device program would compute the
 * op from shards laid out for a different mesh, so shard lower stops. */
static void S_refuse_mixed_meshes(xr *x, const shard_op *op, shard_tensor_sharding *const *s,
                                  const shard_mesh *const *ms, uint32_t n) {
  uint32_t i, j;
  if (!S_mixed_meshes(s, ms, n, &i, &j)) return;
  const char *a = S_mesh_label(s[i]), *b = S_mesh_label(s[j]);
  shard_error(x->de, op->span,
              "'%s' op has shardings on meshes with different axes (%s%s and %s%s), which Shardy's "
              "insert-explicit-reshards leaves without reshards: shard lower cannot partition it",
              op->name, a ? "@" : "", a ? a : "an inline mesh", b ? "@" : "", b ? b : "an inline mesh");
  x->failed = true;
}

/* shouldReshardToCommonMesh: sharded on a mesh whose device order differs. */
static bool S_other_device_order(xr *x, const shard_tensor_sharding *s, const mesh_pick *p) {
  if (S_fully_replicated(s)) return false;
  const shard_mesh *m = S_mesh(x, s);
  return m && !S_same_ids(m, p->mesh);
}

/* ---- projections ----------------------------------------------------------------------- */

typedef struct op_view {
  shard_op *op;
  const shard_op_sharding_rule *rule;
  shard_projection *proj;
  shard_tensor_sharding **in, **out; /* bypassing barriers */
  int64_t *sizes;
  mesh_pick mesh;
  bool *update; /* per tensor */
} op_view;

static shard_axis_ref *S_keep_axes(xr *x, const shard_axis_ref *v, uint32_t n) {
  return n ? shard_arena_dup(x->a, v, sizeof *v * n) : NULL;
}

/* A copy of s, made in the visit's scratch, in the module's arena. */
static shard_tensor_sharding *S_keep(xr *x, const shard_tensor_sharding *s) {
  shard_tensor_sharding *k = SHARD_NEW(x->a, shard_tensor_sharding);
  *k = *s;
  k->dims = s->rank ? shard_arena_dup(x->a, s->dims, sizeof *s->dims * s->rank) : NULL;
  for (uint32_t d = 0; d < s->rank; d++) k->dims[d].axes = S_keep_axes(x, s->dims[d].axes, s->dims[d].num_axes);
  k->replicated = S_keep_axes(x, s->replicated, s->num_replicated);
  k->unreduced = S_keep_axes(x, s->unreduced, s->num_unreduced);
  return k;
}

/* Tensor t's sharding from the projection: made in the scratch arena, and
 * one of the recent ones when it equals it (the same mesh reference), else
 * kept in the module's arena. A third of the bytes of the reshards the
 * pass inserts in shard lower went to equal copies. */
static shard_tensor_sharding *S_projected(xr *x, const op_view *v, uint32_t t) {
  shard_tensor_sharding *s =
      shard_projection_to_sharding(x->tmp, v->proj, t, S_mapping(v->rule, t), v->mesh.name, v->mesh.inline_mesh);
  for (uint32_t i = 0; i < XR_RECENT; i++) {
    shard_tensor_sharding *r = x->recent[i];
    if (r && r->mesh_name == s->mesh_name && r->inline_mesh == s->inline_mesh && shard_sharding_equal(r, s)) return r;
  }
  s = S_keep(x, s);
  x->recent[x->next_recent] = s;
  x->next_recent = (x->next_recent + 1) % XR_RECENT;
  return s;
}

/* ShardingProjection::updateSharding: every tensor with the factor gets
 * exactly `axes` and no overflow axes. */
static void S_update_factor(op_view *v, int64_t f, shard_axes axes) {
  for (uint32_t t = 0; t < shard_projection_num_tensors(v->proj); t++) {
    shard_factor_sharding *fs = &v->proj->tensors[t].factors[f];
    if (!fs->mapped || (S_axes_equal(fs->axes, axes) && !fs->overflow.n)) continue;
    fs->axes = axes;
    fs->overflow = (shard_axes){NULL, 0};
    v->update[t] = true;
  }
}

/* insertExplicitReshards: operands and results whose sharding changed (or
 * live on a mesh with another device order) get a reshard. */
static void S_insert_reshards(xr *x, op_view *v, shard_tensor_sharding **in) {
  shard_op *op = v->op;
  cursor c = S_before(op);
  for (uint32_t i = 0; i < op->num_operands && i < v->rule->num_operands; i++) {
    if (!v->update[i] && !S_other_device_order(x, in[i], &v->mesh)) continue;
    shard_value *r = S_new_reshard(x, &c, op->operands[i].value, S_projected(x, v, i), op);
    shard_operand_set(&op->operands[i], r);
  }
  c = S_after(op);
  for (uint32_t i = 0; i < op->num_results && i < v->rule->num_results; i++) {
    uint32_t t = v->rule->num_operands + i;
    if (!v->update[t] && !S_other_device_order(x, v->out[i], &v->mesh)) continue;
    shard_value *res = &op->results[i];
    shard_tensor_sharding *old = S_sharding(x, res);
    if (!old) old = S_closed_replicated(x, v->mesh.name, v->mesh.inline_mesh, S_rank(res));
    shard_value *r = S_new_reshard(x, &c, res, old, op);
    S_replace_uses_except(res, r, r->def);
    shard_propagation_set_value_sharding(x->a, res, S_projected(x, v, t));
  }
}

/* ---- special cases ----------------------------------------------------------------------- */

/* dot / dot_general without the full version: when lhs and rhs agree and
 * the result differs from them in exactly one (non-contracting or batching)
 * factor, sharded like the contracting factors and no larger than the
 * operand it conflicts with, shard the result like the operands and
 * reshard it afterwards: a smaller reshard and a more sharded matmul. */
static void S_process_dot(xr *x, op_view *v) {
  shard_op *op = v->op;
  if (!op->num_results || !v->out[0] || op->num_operands < 2 || v->rule->num_results < 1) return;
  const shard_projection *p = v->proj;
  uint32_t res = v->rule->num_operands;
  int64_t lhs_size = v->sizes[0], rhs_size = v->sizes[1], res_size = v->sizes[res];
  int64_t conflict = -1;
  shard_axes conflict_axes = {NULL, 0};
  SHARD_VEC(shard_axis_ref) red = {0}, seen = {0};
  bool ok = true;
  for (uint32_t f = 0; f < v->rule->num_factors && ok; f++) {
    const shard_factor_sharding *l = S_fs(p, 0, f), *r = S_fs(p, 1, f);
    shard_axes axes;
    int64_t max_size;
    if (l && r) {
      axes = l->axes;
      max_size = lhs_size > rhs_size ? lhs_size : rhs_size;
      if (!S_axes_equal(l->axes, r->axes)) {
        ok = false;
        break;
      }
      if (S_factor_type(v->rule, f) == FT_REDUCTION) {
        for (uint32_t i = 0; i < axes.n; i++) SHARD_VEC_PUSH(red, axes.v[i]);
        continue;
      }
    } else if (l || r) {
      axes = l ? l->axes : r->axes;
      max_size = l ? lhs_size : rhs_size;
      for (uint32_t i = 0; i < axes.n && ok; i++) {
        for (uint32_t j = 0; j < seen.len && ok; j++)
          if (shard_axis_overlaps(&seen.items[j], &axes.v[i], NULL)) ok = false;
        SHARD_VEC_PUSH(seen, axes.v[i]);
      }
      if (!ok) break;
    } else {
      continue;
    }
    const shard_factor_sharding *o = S_fs(p, res, f);
    shard_axes res_axes = o ? o->axes : (shard_axes){NULL, 0};
    if (!S_axes_equal(res_axes, axes)) {
      if (!axes.n || conflict >= 0 || res_size > max_size) ok = false;
      conflict = f;
      conflict_axes = axes;
    }
  }
  shard_axes red_axes = {red.items, red.len};
  shard_factor_sharding *rf = conflict >= 0 ? &v->proj->tensors[res].factors[conflict] : NULL;
  if (ok && rf && rf->axes.n && S_axes_equal(rf->axes, red_axes)) {
    rf->axes = conflict_axes;
    shard_value *result = &op->results[0];
    shard_propagation_set_value_sharding(x->a, result, S_projected(x, v, res));
    cursor c = S_after(op);
    shard_value *r = S_new_reshard(x, &c, result, v->out[0], op);
    S_replace_uses_except(result, r, r->def);
  }
  SHARD_VEC_FREE(red);
  SHARD_VEC_FREE(seen);
}

/* distributeAxesAcrossFactors: hands `all` out to the factors in order,
 * each axis (or the part of it that fits) to the first factor with room,
 * the rest to the last factor's overflow when nothing fits. */
static void S_distribute_axes(shard_arena *a, shard_factor_sharding **fs, const int64_t *sizes, uint32_t n,
                              shard_axes all, const shard_mesh *m) {
  if (!n) return;
  int64_t *rem = SHARD_NEW_ARRAY(a, int64_t, n);
  memcpy(rem, sizes, sizeof *rem * n);
  shard_axes *got = SHARD_NEW_ARRAY(a, shard_axes, n);
  for (uint32_t i = 0; i < n; i++) got[i] = S_dup_room(a, (shard_axes){NULL, 0}, all.n * 64 + 2);
  uint32_t ai = 0;
  bool has_pre = false;
  int64_t pre = 1, size = 0;
  if (ai < all.n) {
    has_pre = all.v[0].is_sub;
    pre = shard_axis_pre(&all.v[0]);
    size = shard_axis_size(&all.v[0], m);
  }
  while (ai < all.n) {
    bool used = false;
    for (uint32_t i = 0; i < n; i++) {
      if (rem[i] <= 1) continue;
      int64_t g = shard_gcd(rem[i], size);
      if (g == 1 && size != 1) continue;
      used = true;
      const char *name = all.v[ai].name;
      if (size > g) {
        shard_axis_ref sub = shard_axis_sub(name, has_pre ? pre : 1, g);
        S_add_or_merge(&got[i], &sub, m);
        pre = (has_pre ? pre : 1) * g;
        has_pre = true;
        size /= g;
        rem[i] /= g;
      } else {
        shard_axis_ref r = has_pre ? shard_axis_sub(name, pre, size) : (shard_axis_ref){name, false, 0, 0};
        S_add_or_merge(&got[i], &r, m);
        rem[i] /= size;
        if (++ai < all.n) {
          has_pre = all.v[ai].is_sub;
          pre = shard_axis_pre(&all.v[ai]);
          size = shard_axis_size(&all.v[ai], m);
        }
        break;
      }
    }
    if (!used) {
      shard_axes over = S_dup_room(a, (shard_axes){NULL, 0}, all.n * 64 + 2);
      while (ai < all.n) {
        shard_axis_ref r =
            has_pre ? shard_axis_sub(all.v[ai].name, pre, size) : (shard_axis_ref){all.v[ai].name, false, 0, 0};
        S_add_or_merge(&over, &r, m);
        if (++ai < all.n) {
          has_pre = all.v[ai].is_sub;
          pre = shard_axis_pre(&all.v[ai]);
          size = shard_axis_size(&all.v[ai], m);
        }
      }
      fs[n - 1]->overflow = over;
      break;
    }
  }
  for (uint32_t i = 0; i < n; i++) fs[i]->axes = got[i];
}

static void S_redistribute(shard_arena *a, shard_projection *p, uint32_t t, const shard_tensor_mapping *tm,
                           shard_axes all) {
  SHARD_VEC(shard_factor_sharding *) fs = {0};
  SHARD_VEC(int64_t) sizes = {0};
  for (uint32_t d = 0; d < tm->rank; d++)
    for (uint32_t k = 0; k < tm->dims[d].num_factors; k++) {
      int64_t f = tm->dims[d].factors[k];
      if (f < 0 || (uint32_t)f >= p->num_factors) continue;
      shard_factor_sharding *s = &p->tensors[t].factors[f];
      if (!s->mapped) continue;
      s->axes = (shard_axes){NULL, 0};
      s->overflow = (shard_axes){NULL, 0};
      SHARD_VEC_PUSH(fs, s);
      SHARD_VEC_PUSH(sizes, p->factor_sizes[f]);
    }
  S_distribute_axes(a, fs.items, sizes.items, fs.len, all, p->mesh);
  SHARD_VEC_FREE(fs);
  SHARD_VEC_FREE(sizes);
}

/* getGreatestCommonPrefix of two axis lists. */
static shard_axes S_common_prefix(shard_arena *a, shard_axes x, shard_axes y) {
  uint32_t n = x.n < y.n ? x.n : y.n, k = 0;
  shard_axes r = S_dup_room(a, (shard_axes){NULL, 0}, n);
  for (; k < n; k++) {
    if (shard_axis_equal(&x.v[k], &y.v[k])) {
      r.v[r.n++] = x.v[k];
      continue;
    }
    shard_axis_ref c;
    if (shard_axis_common_prefix(&x.v[k], &y.v[k], &c)) r.v[r.n++] = c;
    break;
  }
  return r;
}

/* processReshapeWithOverflowAxes: both sides take the axes of the more
 * sharded side, redistributed over their own factors; what the two agree on
 * is kept. */
static void S_process_reshape_overflow(xr *x, op_view *v, shard_axes *common) {
  const shard_op_sharding_rule *r = v->rule;
  shard_projection *p = v->proj;
  uint32_t res = r->num_operands;
  bool prefer_in = shard_projection_sharding_size(p, 0) >= shard_projection_sharding_size(p, res);
  uint32_t best = prefer_in ? 0 : res;
  SHARD_VEC(shard_axis_ref) all = {0};
  for (uint32_t f = 0; f < r->num_factors; f++) {
    const shard_factor_sharding *fs = S_fs(p, best, f);
    if (!fs) continue;
    for (uint32_t i = 0; i < fs->axes.n; i++) SHARD_VEC_PUSH(all, fs->axes.v[i]);
    for (uint32_t i = 0; i < fs->overflow.n; i++) SHARD_VEC_PUSH(all, fs->overflow.v[i]);
  }
  shard_axes all_axes = S_dup(x->a, all.items, all.len);
  SHARD_VEC_FREE(all);
  S_redistribute(x->a, p, 0, &r->operands[0], all_axes);
  S_redistribute(x->a, p, res, &r->results[0], all_axes);
  shard_tensor_sharding *built[2] = {S_projected(x, v, 0), S_projected(x, v, res)};
  shard_projection *legal =
      shard_projection_build(x->a, r, (const shard_tensor_sharding *const *)built, v->mesh.mesh, false);
  for (uint32_t f = 0; f < r->num_factors; f++) {
    bool seen = false;
    common[f] = (shard_axes){NULL, 0};
    for (uint32_t t = 0; t < shard_projection_num_tensors(legal); t++) {
      const shard_factor_sharding *fs = S_fs(legal, t, f);
      if (!fs) continue;
      common[f] = seen ? S_common_prefix(x->a, common[f], fs->axes) : fs->axes;
      seen = true;
    }
  }
  for (uint32_t t = 0; t < shard_projection_num_tensors(p); t++) v->update[t] = false;
  for (uint32_t f = 0; f < r->num_factors; f++) S_update_factor(v, f, common[f]);
  for (uint32_t t = 0; t < shard_projection_num_tensors(p); t++) v->update[t] = false;
  shard_op *op = v->op;
  shard_tensor_sharding **in = SHARD_NEW_ARRAY(x->a, shard_tensor_sharding *, op->num_operands + 1);
  for (uint32_t i = 0; i < op->num_operands; i++) in[i] = S_sharding(x, op->operands[i].value);
  if (!S_equivalent(in[0], S_projected(x, v, 0))) v->update[0] = true;
  if (!S_equivalent(S_projected(x, v, res), v->out[0])) v->update[res] = true;
  S_insert_reshards(x, v, in);
}

/* ---- one op ------------------------------------------------------------------------------ */

static bool S_full_version_for(xr *x, const shard_op *op) {
  if (x->full || shard_op_is(op, &K_mhlo_ragged_dot) || shard_op_is(op, &K_func_call)) return true;
  /* A concatenate is resharded only when some operand's sharding differs
   * from the result's. */
  if (shard_op_is(op, &K_stablehlo_concatenate) && op->num_results) {
    shard_tensor_sharding *r = S_sharding(x, &op->results[0]);
    for (uint32_t i = 0; i < op->num_operands; i++) {
      shard_tensor_sharding *s = S_sharding(x, op->operands[i].value);
      if (!s != !r || (s && !shard_sharding_equal(s, r))) return true;
    }
  }
  return false;
}

static bool S_has_overflow(const shard_projection *p) {
  for (uint32_t t = 0; t < shard_projection_num_tensors(p); t++)
    for (uint32_t f = 0; f < p->num_factors; f++)
      if (p->tensors[t].factors[f].mapped && p->tensors[t].factors[f].overflow.n) return true;
  return false;
}

/* processOp. Returns the axes per factor the op ends up with (NULL when
 * not on the full version). */
static shard_axes *S_process(xr *x, op_view *v, bool full) {
  shard_op *op = v->op;
  if (full) {
    shard_axes *common = SHARD_NEW_ARRAY(x->tmp, shard_axes, v->rule->num_factors + 1);
    if (S_has_overflow(v->proj) && shard_op_is(op, &K_stablehlo_reshape) && v->rule->num_operands == 1 &&
        v->rule->num_results == 1) {
      S_process_reshape_overflow(x, v, common);
      return common;
    }
    shard_explicit_find_common_axes(v->proj, v->rule, v->sizes, common);
    for (uint32_t f = 0; f < v->rule->num_factors; f++) S_update_factor(v, f, common[f]);
    S_insert_reshards(x, v, v->in);
    return common;
  }
  if (shard_op_is(op, &K_stablehlo_dot) || shard_op_is(op, &K_stablehlo_dot_general)) S_process_dot(x, v);
  return NULL;
}

/* The axes the op's reduction factors end up sharded on (common axes per
 * factor, from the full version), in factor order. */
static shard_axes S_common_reduction_axes(xr *x, const shard_op_sharding_rule *r, const shard_axes *common) {
  SHARD_VEC(shard_axis_ref) red = {0};
  for (uint32_t k = 0; k < r->num_reduction; k++) {
    if (r->reduction[k] < 0 || (uint32_t)r->reduction[k] >= r->num_factors) continue;
    shard_axes a = common[r->reduction[k]];
    for (uint32_t i = 0; i < a.n; i++) SHARD_VEC_PUSH(red, a.v[i]);
  }
  shard_axes out = S_dup(x->a, red.items, red.len);
  SHARD_VEC_FREE(red);
  return out;
}

/* insertAllReducesForReductionFactors: results are all-reduced over the axes
 * of sharded reduction factors they don't keep unreduced. */
static void S_all_reduce_results(xr *x, op_view *v, const shard_axes *common, bool full) {
  shard_op *op = v->op;
  const shard_op_sharding_rule *r = v->rule;
  if (!op->num_results) return;
  shard_tensor_sharding *first = S_sharding(x, &op->results[0]);
  SHARD_VEC(shard_axis_ref) red = {0};
  if (full) {
    shard_axes a = S_common_reduction_axes(x, r, common);
    for (uint32_t i = 0; i < a.n; i++) SHARD_VEC_PUSH(red, a.v[i]);
  } else {
    if (!first || !first->num_unreduced) return;
    for (uint32_t k = 0; k < r->num_reduction; k++) {
      if (r->reduction[k] < 0 || (uint32_t)r->reduction[k] >= r->num_factors) continue;
      shard_axes a;
      /* Shardy asserts compatibility here. */
      if (!S_compatible_factor(v->proj, r->reduction[k], &a)) {
        SHARD_VEC_FREE(red);
        return;
      }
      for (uint32_t i = 0; i < a.n; i++) SHARD_VEC_PUSH(red, a.v[i]);
    }
  }
  shard_axes reduction = S_dup(x->a, red.items, red.len);
  SHARD_VEC_FREE(red);
  if (!reduction.n) return;
  const shard_mesh *m = v->mesh.mesh;
  shard_axes axes = S_set_diff(x->a, reduction, S_unreduced(first), m);
  if (!axes.n) return;
  axes = S_sort_and_merge(x->a, axes, m);
  cursor c = S_after(op);
  for (uint32_t i = 0; i < op->num_results; i++) {
    shard_value *res = &op->results[i];
    shard_tensor_sharding *s = S_sharding(x, res);
    if (!s) s = S_closed_replicated(x, v->mesh.name, v->mesh.inline_mesh, S_rank(res));
    shard_value *ar = S_new_all_reduce(x, &c, res, axes, s->reduction, s, op);
    S_replace_uses_except(res, ar, ar->def);
  }
}

/* shard lower: result axes an op declares unreduced although no sharded
 * reduction factor of it produces partial sums over them and no operand
 * brings them in. Every device along those axes computed the whole value,
 * and summing the partial values over them would count it once per
 * device: a replicated_to_unreduced after the op keeps the value on the
 * first device along them and zero on the others. Shardy leaves such an op
 * as it is (it makes values unreduced only where a use asks for it). */
static void S_introduced_unreduced(xr *x, shard_op *op, const shard_op_sharding_rule *r, const shard_axes *common) {
  SHARD_VEC(shard_axis_ref) known = {0};
  shard_axes reduced = r && common ? S_common_reduction_axes(x, r, common) : (shard_axes){NULL, 0};
  for (uint32_t i = 0; i < reduced.n; i++) SHARD_VEC_PUSH(known, reduced.v[i]);
  for (uint32_t i = 0; i < op->num_operands; i++) {
    shard_axes u = S_unreduced(S_sharding(x, op->operands[i].value));
    for (uint32_t j = 0; j < u.n; j++) SHARD_VEC_PUSH(known, u.v[j]);
  }
  shard_axes carried = S_dup(x->a, known.items, known.len);
  SHARD_VEC_FREE(known);
  cursor c = S_after(op);
  for (uint32_t i = 0; i < op->num_results; i++) {
    shard_value *res = &op->results[i];
    shard_tensor_sharding *s = S_sharding(x, res);
    const shard_mesh *m = S_mesh(x, s);
    if (!m || !s->num_unreduced) continue;
    shard_axes added = S_set_diff(x->a, S_unreduced(s), carried, m);
    if (!added.n) continue;
    shard_propagation_set_value_sharding(x->a, res, S_with_unreduced(x, s, S_set_diff(x->a, S_unreduced(s), added, m)));
    shard_op *r2u = S_new_op(x, "sdy.replicated_to_unreduced", res, op);
    shard_op_set_attr(x->a, r2u, "axes", S_axis_list_attr(x, S_sort_and_merge(x->a, added, m)), true);
    shard_op_set_attr(x->a, r2u, "out_sharding", shard_attr_sharding(x->a, s), true);
    S_insert(&c, r2u);
    S_replace_uses_except(res, &r2u->results[0], r2u);
  }
}

/* shard lower, an op with an sdy.sharding_rule of its own: a factor of its
 * operands alone that ends up sharded but is not a reduction (nor needs
 * replication) has each device compute from its part of that factor, and
 * nothing combines the parts (Shardy's registry declares such factors, a
 * dot's contracting dim, as reductions). Without it the per-device
 * program would be wrong, so shard lower stops. */
static void S_refuse_untyped_operand_factors(xr *x, const op_view *v, const shard_axes *common) {
  const shard_op_sharding_rule *r = v->rule;
  for (uint32_t f = 0; f < r->num_factors; f++) {
    if (!common[f].n || S_factor_type(r, f) != FT_PASS_THROUGH) continue;
    bool in_result = false;
    for (uint32_t t = 0; t < r->num_results && !in_result; t++) in_result = S_mapping_has_factor(&r->results[t], f);
    if (in_result) continue;
    shard_buf sym;
    shard_buf_init(&sym);
    shard_rule_factor_symbol(&sym, f);
    shard_error(x->de, v->op->span,
                "'%s' op: factor %s of its sdy.sharding_rule is sharded, appears in no result and is not a "
                "reduction factor, so nothing combines the devices' parts: shard lower cannot partition it",
                v->op->name, shard_buf_str(&sym));
    shard_buf_free(&sym);
    x->failed = true;
    return;
  }
}

static shard_op *S_global_mesh(xr *x) {
  shard_block *b = x->m->top->num_regions ? x->m->top->regions[0].first : NULL;
  for (shard_op *op = b ? b->first : NULL; op; op = op->next) {
    if (!shard_op_is(op, &K_sdy_mesh)) continue;
    shard_attr *mesh = shard_op_attr(op, "mesh");
    if (mesh && mesh->kind == SHARD_ATTR_SDY_MESH && !shard_mesh_is_maximal(mesh->u.mesh) && mesh->u.mesh->num_axes)
      return op;
  }
  return NULL;
}

static const char *S_symbol_name(const shard_op *op) {
  shard_attr *n = shard_op_attr(op, "sym_name");
  if (!n || n->kind != SHARD_ATTR_STRING) return NULL;
  return n->u.str.data;
}

static bool S_is_token(const shard_type *t) {
  return t && t->kind == SHARD_TYPE_OTHER && t->text && strcmp(t->text, "!stablehlo.token") == 0;
}

/* processSingleDeviceOperation: operands go through replicated on the
 * global mesh to the device, results come back the same way. */
static bool S_single_device_op(xr *x, shard_op *op, shard_tensor_sharding **out) {
  const shard_mesh *dev_mesh = NULL;
  const char *dev_name = NULL;
  for (uint32_t i = 0; i < op->num_results; i++) {
    if (!S_single_device(x, out[i])) continue;
    const shard_mesh *m = S_mesh(x, out[i]);
    if (dev_mesh && dev_mesh->device_ids[0] != m->device_ids[0]) {
      shard_error(x->de, op->span, "'%s' op has conflicting single-device result shardings", op->name);
      return false;
    }
    dev_mesh = m;
    dev_name = out[i]->mesh_name;
  }
  shard_op *global = S_global_mesh(x);
  if (!global) return true;
  const char *gname = S_symbol_name(global);
  shard_attr *gmesh_attr = shard_op_attr(global, "mesh");
  const shard_mesh *gmesh = gmesh_attr->u.mesh;
  shard_tensor_sharding *dev = S_closed_replicated(x, dev_name, NULL, 0);

  cursor c = S_before(op);
  for (uint32_t i = 0; i < op->num_operands; i++) {
    shard_value *v = op->operands[i].value;
    if (!v->type || v->type->kind != SHARD_TYPE_TENSOR) continue;
    shard_tensor_sharding *s = S_sharding(x, v);
    if (!s) s = S_closed_replicated(x, gname, NULL, v->type->rank);
    const shard_mesh *sm = S_mesh(x, s);
    if (S_equivalent(s, dev) && sm == dev_mesh) continue;
    shard_value *input = v;
    if (!(S_fully_replicated(s) && sm == gmesh))
      input = S_new_reshard(x, &c, input, S_closed_replicated(x, gname, NULL, v->type->rank), op);
    shard_operand_set(&op->operands[i], S_new_reshard(x, &c, input, dev, op));
  }

  shard_op *last = op;
  for (uint32_t i = 0; i < op->num_results; i++) {
    shard_value *res = &op->results[i];
    if (!res->type || res->type->kind != SHARD_TYPE_TENSOR) continue;
    cursor rc = S_after(last);
    shard_tensor_sharding *repl = S_closed_replicated(x, gname, NULL, res->type->rank);
    shard_tensor_sharding *target = out[i] && !S_single_device(x, out[i]) ? out[i] : repl;
    shard_value *r1 = S_new_reshard(x, &rc, res, repl, op);
    S_replace_uses_except(res, r1, r1->def);
    last = r1->def;
    if (shard_sharding_equal(target, repl)) continue;
    shard_value *r2 = S_new_reshard(x, &rc, r1, target, op);
    S_replace_uses_except(r1, r2, r2->def);
    last = r2->def;
  }

  for (uint32_t i = 0; i < op->num_results; i++) {
    shard_value *res = &op->results[i];
    if (res->type && res->type->kind == SHARD_TYPE_TENSOR) shard_propagation_set_value_sharding(x->a, res, dev);
    else if (S_is_token(res->type))
      shard_propagation_set_value_sharding(x->a, res, S_closed_replicated(x, gname, NULL, 0));
  }
  return true;
}

static int64_t S_num_elements(const shard_type *t) {
  if (!t || t->kind != SHARD_TYPE_TENSOR) return 0;
  int64_t n = shard_type_num_elements(t);
  return n < 0 ? 0 : n;
}

static bool S_visit(xr *x, shard_op *op) {
  if (S_is_terminator(op)) return true;
  bool full = S_full_version_for(x, op);
  if (S_is_data_flow_op(op)) {
    S_data_flow_op(x, op, full);
    return true;
  }
  if (shard_op_is(op, &K_func_call)) {
    S_call_op(x, op);
    return true;
  }
  if (x->unreduced && S_reshard_to_unreduced(x, op)) return true;
  if (x->unreduced) S_all_reduce_operands(x, op);

  op_view v = {.op = op};
  uint32_t nin = op->num_operands, nout = op->num_results;
  shard_arena_reset(x->tmp);
  v.in = SHARD_NEW_ARRAY(x->tmp, shard_tensor_sharding *, nin + nout + 1);
  v.out = v.in + nin;
  for (uint32_t i = 0; i < nin; i++) v.in[i] = S_sharding(x, S_bypass_barriers(op->operands[i].value));
  for (uint32_t i = 0; i < nout; i++) v.out[i] = S_sharding(x, S_bypass_barriers(&op->results[i]));

  /* the mesh of each, looked up once for the checks below */
  const shard_mesh **ms = SHARD_NEW_ARRAY(x->tmp, const shard_mesh *, nin + nout + 1);
  for (uint32_t i = 0; i < nin + nout; i++) ms[i] = S_mesh(x, v.in[i]);

  for (uint32_t i = 0; i < nout; i++)
    if (ms[nin + i] && shard_mesh_is_maximal(ms[nin + i])) return S_single_device_op(x, op, v.out);

  /* Without the full version only a dot is resharded (S_process), and the
   * projection is read again only by the all_reduces of reduction factors,
   * which shard lower's first run defers: it projects no other op (a third
   * of that run's time went to projections nothing read). Such an op can
   * only be refused for tensors on meshes with other axes, and only for
   * such an op is its rule looked up, to tell whether it is (below). */
  bool dot = shard_op_is(op, &K_stablehlo_dot) || shard_op_is(op, &K_stablehlo_dot_general);
  bool project = full || dot || !x->defer_reductions;
  uint32_t mi, mj;
  if (!project && (!x->for_lower || !S_mixed_meshes(v.in, ms, nin + nout, &mi, &mj))) return true;

  const shard_attr *attached = shard_op_attr(op, "sdy.sharding_rule");
  shard_op_sharding_rule *rule = attached && attached->kind == SHARD_ATTR_SDY_RULE
                                     ? attached->u.rule
                                     : shard_rule_create_cached(x->rules, x->a, op, false);
  /* an op of no operands (a constant) made unreduced has no rule to say so */
  if (x->for_lower && full && !x->defer_reductions && x->unreduced && !nin) S_introduced_unreduced(x, op, NULL, NULL);
  if (!rule || rule->is_custom) return true;
  if (rule->num_operands != nin || rule->num_results != nout) return true;
  v.rule = rule;
  if (!S_pick_mesh(x, v.in, ms, nin + nout, &v.mesh)) {
    if (x->for_lower) S_refuse_mixed_meshes(x, op, v.in, ms, nin + nout);
    return true;
  }
  if (!project) return true;

  v.sizes = SHARD_NEW_ARRAY(x->tmp, int64_t, nin + nout + 1);
  for (uint32_t i = 0; i < nin; i++) v.sizes[i] = S_num_elements(op->operands[i].value->type);
  for (uint32_t i = 0; i < nout; i++) v.sizes[nin + i] = S_num_elements(op->results[i].type);
  v.update = SHARD_NEW_ARRAY(x->tmp, bool, nin + nout + 1);
  v.proj = shard_projection_build(x->tmp, rule, (const shard_tensor_sharding *const *)v.in, v.mesh.mesh, true);
  shard_axes *common = S_process(x, &v, full);
  if (!x->defer_reductions) S_all_reduce_results(x, &v, common, full);
  if (x->for_lower && full && attached && attached->kind == SHARD_ATTR_SDY_RULE)
    S_refuse_untyped_operand_factors(x, &v, common);
  if (x->for_lower && full && !x->defer_reductions && x->unreduced) S_introduced_unreduced(x, op, rule, common);
  return true;
}

/* ---- driver ------------------------------------------------------------------------------- */

typedef SHARD_VEC(shard_op *) op_vec;

/* Post-order, as MLIR's default walk. */
static void S_post_order(shard_op *op, op_vec *out) {
  for (uint32_t r = 0; r < op->num_regions; r++)
    for (shard_block *b = op->regions[r].first; b; b = b->next)
      for (shard_op *o = b->first; o; o = o->next) S_post_order(o, out);
  SHARD_VEC_PUSH(*out, op);
}

static bool S_check_io(xr *x, shard_op *func) {
  shard_block *body = func->num_regions ? func->regions[0].first : NULL;
  uint32_t nargs = body ? body->num_args : 0;
  for (uint32_t i = 0; i < nargs; i++)
    if (S_single_device(x, shard_func_arg_sharding(func, i))) {
      shard_error(x->de, func->span,
                  "'func.func' op function argument %u cannot have a single-device (maximal) sharding attribute", i);
      return false;
    }
  uint32_t nres = shard_func_num_results(func);
  for (uint32_t i = 0; i < nres; i++)
    if (S_single_device(x, shard_func_result_sharding(func, i))) {
      shard_error(x->de, func->span,
                  "'func.func' op function result %u cannot have a single-device (maximal) sharding attribute", i);
      return false;
    }
  return true;
}

static bool S_run_func(xr *x, shard_op *func) {
  if (!S_check_io(x, func)) return false;
  op_vec ops = {0};
  for (uint32_t r = 0; r < func->num_regions; r++)
    for (shard_block *b = func->regions[r].first; b; b = b->next)
      for (shard_op *o = b->first; o; o = o->next) S_post_order(o, &ops);
  bool ok = true;
  for (uint32_t i = 0; i < ops.len && ok; i++) ok = S_visit(x, ops.items[i]);
  SHARD_VEC_FREE(ops);
  if (ok) S_func_return(x, func);
  return ok;
}

static bool S_run(shard_module *m, bool full_version, int lower_run, bool for_lower, bool unreduced,
                  shard_diag_engine *de) {
  xr x = {m,
          m->arena,
          full_version,
          de,
          false,
          {{0}, {0}},
          shard_rule_cache_new(NULL),
          lower_run == 1,
          lower_run == 2,
          unreduced,
          for_lower,
          shard_arena_new(),
          {0},
          {0},
          0};
  shard_block *b = m->top->num_regions ? m->top->regions[0].first : NULL;
  op_vec funcs = {0};
  for (shard_op *op = b ? b->first : NULL; op; op = op->next)
    if (shard_op_is(op, &K_func_func) && op->num_regions && op->regions[0].first) SHARD_VEC_PUSH(funcs, op);
  bool ok = true;
  for (uint32_t i = 0; i < funcs.len; i++) ok = S_run_func(&x, funcs.items[i]) && ok;
  SHARD_VEC_FREE(funcs);
  shard_rule_cache_free(x.rules);
  shard_arena_free(x.tmp);
  shard_ptrmap_release(&x.arg_shardings);
  return ok && !x.failed;
}

bool shard_explicit_reshards_insert(shard_module *m, bool full_version, bool unreduced, shard_diag_engine *de) {
  return S_run(m, full_version, 0, false, unreduced, de);
}

bool shard_explicit_reshards_insert_for_lower(shard_module *m, bool full_version, int run, bool unreduced,
                                              shard_diag_engine *de) {
  return S_run(m, full_version, run, true, unreduced, de);
}
