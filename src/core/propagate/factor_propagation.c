/* Basic and aggressive factor propagation (see factor_propagation.h), after
 * Shardy's basic_factor_propagation.cc and aggressive_factor_propagation.cc.
 *
 * Both start from the compatible major axes of each factor. Basic then
 * truncates them at the first axis that some tensor can't take and expands
 * every tensor of the factor to the result. Aggressive keeps the candidates
 * per factor, orders factors by the size of their source tensor, and for each
 * tensor separately takes what that tensor can take, checking conflicts with
 * the factors it has already been given. Results are done before operands;
 * for elementwise ops an operand gets no more than a result already has, so
 * shardings don't travel sideways between operands through a replicated
 * result. */
#include "propagate/factor_propagation.h"

#include <stdlib.h>
#include <string.h>

#define MAX_AXES 64

/* Rank of a direction in Shardy's enum order NONE < FORWARD < BACKWARD < BOTH. */
static int S_rank(shard_direction d) {
  switch (d) {
  case SHARD_DIR_NONE: return 0;
  case SHARD_DIR_FORWARD: return 1;
  case SHARD_DIR_BACKWARD: return 2;
  case SHARD_DIR_BOTH: return 3;
  }
  return 0;
}

static bool S_forward_and_backward(shard_direction a, shard_direction b) {
  return (a == SHARD_DIR_FORWARD && b == SHARD_DIR_BACKWARD) || (a == SHARD_DIR_BACKWARD && b == SHARD_DIR_FORWARD);
}

shard_direction shard_direction_union(shard_direction a, shard_direction b) {
  if (S_forward_and_backward(a, b)) return SHARD_DIR_BOTH;
  return S_rank(a) >= S_rank(b) ? a : b;
}

shard_direction shard_direction_intersect(shard_direction a, shard_direction b) {
  if (S_forward_and_backward(a, b)) return SHARD_DIR_NONE;
  return S_rank(a) <= S_rank(b) ? a : b;
}

/* ---- compatible major axes ------------------------------------------------------ */

/* A candidate: a prefix of one tensor's axis list (lists are replaced,
 * never edited, so it stays valid while tensors are expanded). */
typedef struct candidate {
  const shard_axis_ref *axes;
  uint32_t n;
} candidate;

/* Merges `incoming` into the running candidate `cur`. Returns whether the
 * candidate may still grow. With can_expand false the result is at most
 * `cur`. The result is always a prefix of `cur` or of `incoming` (elements
 * where they agree are equal, and past the first difference only one side
 * is kept), so it is kept as such a prefix instead of copied. */
static bool S_merge_compatible(candidate *cur, const shard_axis_ref *incoming, uint32_t nin, bool can_expand) {
  /* Most merges meet an empty side (an unsharded factor, or the first
   * tensor) or the very list the candidate already is. */
  if (!nin) return can_expand;
  if (!cur->n) {
    if (!can_expand) return false;
    cur->axes = incoming;
    cur->n = nin < MAX_AXES ? nin : MAX_AXES;
    return true;
  }
  if (cur->axes == incoming && cur->n == nin) return can_expand;
  const shard_axis_ref *c = cur->axes, *src = c;
  uint32_t ncur = cur->n, n = 0, i = 0, j = 0;
  bool more = can_expand;
  while (i < ncur && j < nin) {
    const shard_axis_ref *old = &c[i++], *neu = &incoming[j++];
    if (old->name != neu->name && strcmp(old->name, neu->name) != 0) goto stop;
    bool same_info =
        old->is_sub == neu->is_sub && (!old->is_sub || (old->pre_size == neu->pre_size && old->size == neu->size));
    if (same_info) {
      n++;
      continue;
    }
    if (shard_axis_is_prefix_of(neu, old, NULL)) {
      /* A further new axis would conflict (it can't be the next sub-axis,
       * those would have been merged), so stop after the shorter one. */
      n++;
      if (j < nin) {
        src = incoming;
        goto stop;
      }
      src = c;
    } else if (shard_axis_is_prefix_of(old, neu, NULL)) {
      n++;
      if (!can_expand || i < ncur) {
        src = c;
        goto stop;
      }
      src = incoming;
    } else {
      goto stop;
    }
  }
  /* n == i == j here: the rest of cur, or (cur used up) of incoming. */
  if (i < ncur) {
    src = c;
    n = ncur < MAX_AXES ? ncur : MAX_AXES;
  } else if (can_expand && j < nin) {
    src = incoming;
    n = nin < MAX_AXES ? nin : MAX_AXES;
  }
  goto done;
stop:
  more = false;
done:
  cur->axes = src;
  cur->n = n;
  return more;
}

static void S_merge_tensors(const shard_projection *p, uint32_t begin, uint32_t end, int64_t factor, candidate *cur,
                            bool *can_expand) {
  for (uint32_t t = begin; t < end; t++) {
    const shard_factor_sharding *fs = &p->tensors[t].factors[factor];
    if (!fs->mapped) continue;
    *can_expand = S_merge_compatible(cur, fs->axes.v, fs->axes.n, *can_expand);
  }
}

static candidate S_compatible(const shard_projection *p, int64_t factor, shard_direction dir) {
  candidate c = {NULL, 0};
  if (dir == SHARD_DIR_NONE) return c;
  bool can_expand = true;
  uint32_t ops_end = p->num_operands, all_end = p->num_operands + p->num_results;
  /* The first group may extend the candidate; the second only conflicts. */
  bool backward = dir == SHARD_DIR_BACKWARD;
  S_merge_tensors(p, backward ? ops_end : 0, backward ? all_end : ops_end, factor, &c, &can_expand);
  if (dir != SHARD_DIR_BOTH) can_expand = false;
  S_merge_tensors(p, backward ? 0 : ops_end, backward ? ops_end : all_end, factor, &c, &can_expand);
  return c;
}

uint32_t shard_factor_compatible_major_axes(const shard_projection *p, int64_t factor, shard_direction dir,
                                            shard_axis_ref *out) {
  candidate c = S_compatible(p, factor, dir);
  if (c.n) memcpy(out, c.axes, sizeof(shard_axis_ref) * c.n);
  return c.n;
}

/* Whether every tensor that has `factor` holds the same axes for it. Then
 * the candidate is those axes (or nothing, when the factor is blocked), no
 * tensor's axes are a strict prefix of it, and propagating the factor changes
 * nothing: neither strategy needs its direction or candidate. Most factors
 * of most visits are settled, often sharing one list. */
static bool S_settled(const shard_projection *p, uint32_t factor) {
  uint32_t nt = shard_projection_num_tensors(p);
  const shard_axes *first = NULL;
  for (uint32_t t = 0; t < nt; t++) {
    const shard_factor_sharding *fs = &p->tensors[t].factors[factor];
    if (!fs->mapped) continue;
    if (!first) {
      first = &fs->axes;
      continue;
    }
    if (fs->axes.n != first->n) return false;
    if (fs->axes.v != first->v && !shard_axes_equal(fs->axes.v, fs->axes.n, first->v, first->n)) return false;
  }
  return true;
}

/* ---- conflicts -------------------------------------------------------------------- */

/* The largest prefix of `axis` not overlapping the axes or overflow axes of
 * any other factor of tensor t. */
static bool S_no_conflicts_across(const shard_projection *p, uint32_t t, int64_t factor, shard_axis_ref axis,
                                  shard_axis_ref *out) {
  const shard_tensor_factors *tf = &p->tensors[t];
  for (uint32_t g = 0; g < p->num_factors; g++) {
    if ((int64_t)g == factor || !tf->factors[g].mapped) continue;
    const shard_factor_sharding *fs = &tf->factors[g];
    /* Most lists are empty (overflow nearly always): no call for them. */
    if (fs->overflow.n && !shard_axis_prefix_without_overlap_list(&axis, fs->overflow.v, fs->overflow.n, &axis))
      return false;
    if (fs->axes.n && !shard_axis_prefix_without_overlap_list(&axis, fs->axes.v, fs->axes.n, &axis)) return false;
  }
  *out = axis;
  return true;
}

/* The largest prefix of `axis` that factor `factor` of tensor t can take:
 * not replicated or unreduced, and either already there or addable (open,
 * no overflow, minor-most or dividing what's left of the factor). */
static bool S_no_conflicts_within(const shard_projection *p, uint32_t t, int64_t factor, shard_axis_ref axis,
                                  int64_t prev_sharded, shard_axis_ref *out) {
  const shard_tensor_factors *tf = &p->tensors[t];
  const shard_factor_sharding *fs = &tf->factors[factor];
  shard_axis_ref r = axis;
  if (tf->num_replicated && !shard_axis_prefix_without_overlap_list(&r, tf->replicated, tf->num_replicated, &r))
    return false;
  if (tf->num_unreduced && !shard_axis_prefix_without_overlap_list(&r, tf->unreduced, tf->num_unreduced, &r))
    return false;
  for (uint32_t i = 0; i < fs->axes.n; i++)
    if (shard_axis_contains(&fs->axes.v[i], &r, p->mesh)) {
      *out = r;
      return true;
    }
  if (!fs->is_closed && fs->overflow.n == 0) {
    if (fs->is_minor_most) {
      *out = r;
      return true;
    }
    int64_t factor_size = p->factor_sizes[factor];
    if (prev_sharded > 0 && factor_size % prev_sharded == 0) {
      int64_t axis_size = shard_projection_axis_size(&r, p->mesh);
      int64_t g = shard_gcd(factor_size / prev_sharded, axis_size);
      if (g == axis_size) {
        *out = r;
        return true;
      }
      if (g != 1) {
        *out = shard_axis_sub(r.name, shard_axis_pre(&r), g);
        return true;
      }
    }
  }
  /* The factor can still keep its own last axis if that is a prefix of r. */
  if (fs->axes.n && shard_axis_is_prefix_of(&fs->axes.v[fs->axes.n - 1], &r, p->mesh)) {
    *out = fs->axes.v[fs->axes.n - 1];
    return true;
  }
  return false;
}

typedef enum conflict_kind { CONFLICT_ALL_TENSORS, CONFLICT_WITHIN, CONFLICT_ACROSS } conflict_kind;

typedef struct conflict_check {
  conflict_kind kind;
  uint32_t tensor; /* for WITHIN / ACROSS */
} conflict_check;

static bool S_compatible_prefix(const shard_projection *p, const conflict_check *c, int64_t factor, shard_axis_ref axis,
                                int64_t prev, shard_axis_ref *out) {
  switch (c->kind) {
  case CONFLICT_WITHIN: return S_no_conflicts_within(p, c->tensor, factor, axis, prev, out);
  case CONFLICT_ACROSS: return S_no_conflicts_across(p, c->tensor, factor, axis, out);
  case CONFLICT_ALL_TENSORS: break;
  }
  uint32_t n = shard_projection_num_tensors(p);
  for (uint32_t t = 0; t < n; t++) {
    if (!S_no_conflicts_across(p, t, factor, axis, &axis)) return false;
    if (p->tensors[t].factors[factor].mapped && !S_no_conflicts_within(p, t, factor, axis, prev, &axis)) return false;
  }
  *out = axis;
  return true;
}

/* Cuts `axes` at the first axis that must be dropped or shrunk. */
static void S_truncate(const shard_projection *p, const conflict_check *c, int64_t factor, shard_axis_ref *axes,
                       uint32_t *n, bool conservative) {
  /* What the earlier axes shard is read only by S_no_conflicts_within for
   * a factor that is not minor-most: across-checks and minor-most factors
   * (all of an elementwise op's) need no axis sizes. */
  bool need_prev = c->kind == CONFLICT_ALL_TENSORS ||
                   (c->kind == CONFLICT_WITHIN && !p->tensors[c->tensor].factors[factor].is_minor_most);
  int64_t prev = 1;
  for (uint32_t i = 0; i < *n; i++) {
    shard_axis_ref r;
    if (!S_compatible_prefix(p, c, factor, axes[i], prev, &r) || (conservative && r.is_sub)) {
      *n = i;
      return;
    }
    /* r is mostly axes[i] itself, name pointer and all. */
    bool same = r.name == axes[i].name && r.is_sub == axes[i].is_sub &&
                (!r.is_sub || (r.pre_size == axes[i].pre_size && r.size == axes[i].size));
    if (!same && !shard_axis_equal(&axes[i], &r)) {
      axes[i] = r;
      *n = i + 1;
      return;
    }
    if (need_prev) prev *= shard_projection_axis_size(&r, p->mesh);
  }
}

/* ---- basic ------------------------------------------------------------------------- */

static void S_basic(shard_projection *p, const shard_factor_propagation *fp, bool *updated) {
  uint32_t nt = shard_projection_num_tensors(p);
  conflict_check all = {CONFLICT_ALL_TENSORS, 0};
  for (uint32_t f = 0; f < p->num_factors; f++) {
    /* A settled factor's axes are not a strict prefix of any truncation of
     * its candidate: no tensor would be expanded. */
    if (S_settled(p, f)) continue;
    shard_axis_ref axes[MAX_AXES];
    uint32_t n = shard_factor_compatible_major_axes(p, f, fp->direction(fp->direction_ctx, f), axes);
    S_truncate(p, &all, f, axes, &n, fp->conservative);
    for (uint32_t t = 0; t < nt; t++)
      if (shard_projection_expand(p, t, f, axes, n)) updated[t] = true;
  }
}

/* ---- aggressive ---------------------------------------------------------------------- */

typedef struct factor_order {
  int64_t factor;
  int64_t source_size; /* product of the source tensor's factor sizes, -1 if none */
  int64_t source_index; /* -1 if none */
  int64_t sharding_size; /* elementwise ops only, else 0 */
} factor_order;

static int S_cmp_order(const void *pa, const void *pb) {
  const factor_order *a = pa, *b = pb;
  if (a->source_size != b->source_size) return a->source_size > b->source_size ? -1 : 1;
  if (a->sharding_size != b->sharding_size) return a->sharding_size > b->sharding_size ? -1 : 1;
  if (a->source_index != b->source_index) return a->source_index < b->source_index ? -1 : 1;
  return a->factor < b->factor ? -1 : (a->factor > b->factor);
}

/* The axes factor f of tensor t gets: the candidate cut by conflicts within
 * the factor, only if it extends what t has, then cut by conflicts with
 * t's (already updated) other factors. */
static uint32_t S_axes_for_tensor(const shard_projection *p, const shard_factor_propagation *fp, uint32_t t, int64_t f,
                                  const candidate *c, shard_axis_ref *out) {
  const shard_factor_sharding *fs = &p->tensors[t].factors[f];
  if (!fs->mapped) return 0;
  /* Truncating only shortens the candidate or cuts its last axis to a
   * prefix, and "is a prefix of" is transitive: axes that don't strictly
   * extend to the candidate don't extend to any truncation of it either, so
   * the tensor gets nothing (most tensors of a visit, which already hold the
   * candidate). */
  if (shard_axes_prefix_status(fs->axes.v, fs->axes.n, c->axes, c->n) != SHARD_PREFIX_STRICT) return 0;
  uint32_t n = c->n;
  memcpy(out, c->axes, sizeof(shard_axis_ref) * n);
  conflict_check within = {CONFLICT_WITHIN, t};
  S_truncate(p, &within, f, out, &n, fp->conservative);
  if (shard_axes_prefix_status(fs->axes.v, fs->axes.n, out, n) != SHARD_PREFIX_STRICT) return 0;
  conflict_check across = {CONFLICT_ACROSS, t};
  S_truncate(p, &across, f, out, &n, fp->conservative);
  return n;
}

static void S_aggressive(shard_projection *p, const shard_factor_propagation *fp, bool *updated) {
  uint32_t nf = p->num_factors, nt = shard_projection_num_tensors(p);
  if (!nf) return;
  /* Most ops have a few factors: their candidates and order fit on the
   * stack, sparing a malloc/free pair per visit. */
  enum { ON_STACK = 8 };
  candidate cands_on_stack[ON_STACK];
  factor_order order_on_stack[ON_STACK];
  /* Indexed by factor; only the active factors' candidates are set. */
  candidate *cands = nf <= ON_STACK ? cands_on_stack : shard_xmalloc(sizeof *cands * nf);
  factor_order *order = nf <= ON_STACK ? order_on_stack : shard_xmalloc(sizeof *order * nf);
  /* order[0..nact) are the active factors: not settled, with a candidate.
   * The others offer no tensor anything (S_axes_for_tensor wants a strict
   * extension of what the tensor has), and S_cmp_order is a total order, so
   * leaving them out of the sort keeps the active ones' order. */
  uint32_t nact = 0;
  for (uint32_t f = 0; f < nf; f++) {
    if (S_settled(p, f)) continue;
    cands[f] = S_compatible(p, f, fp->direction(fp->direction_ctx, f));
    if (!cands[f].n) continue;
    order[nact].factor = f;
    order[nact].source_size = -1;
    order[nact].source_index = -1;
    order[nact].sharding_size = 0; /* set below, once sorting is needed */
    nact++;
  }
  /* Which factors of each tensor have axes that are a strict prefix of their
   * candidate: only those can be given anything, and a tensor's factor
   * changes only when it is itself expanded, so the passes below visit just
   * these pairs. A bit per factor, for up to 64. */
  enum { MASK_TENSORS = 16 };
  uint64_t grow_on_stack[MASK_TENSORS];
  uint64_t *grow = NULL;
  if (nact && nf <= 64) grow = nt <= MASK_TENSORS ? grow_on_stack : shard_xmalloc(sizeof *grow * nt);
  /* The source of a factor: the largest tensor whose axes for it extend to
   * the candidate (the first such tensor on ties). */
  bool may_grow = false;
  for (uint32_t t = 0; t < nt && nact; t++) {
    if (grow) grow[t] = 0;
    int64_t tensor_size = -1; /* computed once a factor needs it */
    for (uint32_t k = 0; k < nact; k++) {
      factor_order *o = &order[k];
      const candidate *c = &cands[o->factor];
      const shard_factor_sharding *fs = &p->tensors[t].factors[o->factor];
      if (!fs->mapped) continue;
      shard_prefix_status st = shard_axes_prefix_status(c->axes, c->n, fs->axes.v, fs->axes.n);
      if (st == SHARD_PREFIX_NOT) {
        /* The tensor's axes may be a strict prefix of the candidate. */
        if (shard_axes_prefix_status(fs->axes.v, fs->axes.n, c->axes, c->n) == SHARD_PREFIX_STRICT) {
          may_grow = true;
          if (grow) grow[t] |= (uint64_t)1 << o->factor;
        }
        continue;
      }
      if (tensor_size < 0) {
        tensor_size = 1;
        for (uint32_t g = 0; g < nf; g++)
          if (p->tensors[t].factors[g].mapped) tensor_size *= p->factor_sizes[g];
      }
      if (tensor_size > o->source_size) {
        o->source_size = tensor_size;
        o->source_index = t;
      }
    }
  }
  /* A tensor only takes axes that strictly extend its own, and what it is
   * offered is the candidate cut short, never more: when no tensor's axes are
   * a strict prefix of their factor's candidate, nothing can change (the
   * common case of a visit that finds its op already consistent). */
  if (!may_grow) goto done;
  if (fp->elementwise)
    for (uint32_t k = 0; k < nact; k++)
      order[k].sharding_size = shard_axes_product(cands[order[k].factor].axes, cands[order[k].factor].n, p->mesh);
  /* S_cmp_order is a total order (factors differ), so any sort agrees. */
  if (nact <= ON_STACK) {
    for (uint32_t i = 1; i < nact; i++)
      for (uint32_t j = i; j > 0 && S_cmp_order(&order[j - 1], &order[j]) > 0; j--) {
        factor_order tmp = order[j];
        order[j] = order[j - 1];
        order[j - 1] = tmp;
      }
  } else {
    qsort(order, nact, sizeof *order, S_cmp_order);
  }

  /* Results first, then operands. */
  for (int pass = 0; pass < 2; pass++) {
    uint32_t begin = pass == 0 ? p->num_operands : 0;
    uint32_t end = pass == 0 ? nt : p->num_operands;
    for (uint32_t t = begin; t < end; t++) {
      bool tensor_updated = false;
      for (uint32_t k = 0; k < nact; k++) {
        int64_t f = order[k].factor;
        if (grow && !(grow[t] >> f & 1)) continue;
        shard_axis_ref axes[MAX_AXES];
        uint32_t n = S_axes_for_tensor(p, fp, t, f, &cands[f], axes);
        if (!n) continue;
        if (pass == 1 && fp->elementwise) {
          /* Sideways through an elementwise op: no further than a result. */
          for (uint32_t r = p->num_operands; r < nt; r++) {
            const shard_factor_sharding *rs = &p->tensors[r].factors[f];
            if (rs->mapped && shard_axes_prefix_status(rs->axes.v, rs->axes.n, axes, n) == SHARD_PREFIX_STRICT) {
              n = rs->axes.n;
              /* An empty result list has no array: memcpy's arguments must not be NULL. */
              if (n) memcpy(axes, rs->axes.v, sizeof(shard_axis_ref) * n);
            }
          }
        }
        if (shard_projection_expand(p, t, f, axes, n)) tensor_updated = true;
      }
      updated[t] = tensor_updated;
    }
  }
done:
  if (grow && grow != grow_on_stack) free(grow);
  if (order != order_on_stack) free(order);
  if (cands != cands_on_stack) free(cands);
}

void shard_factor_propagate(shard_projection *p, const shard_factor_propagation *fp, bool *updated) {
  if (fp->strategy == SHARD_FACTOR_AGGRESSIVE) S_aggressive(p, fp, updated);
  else S_basic(p, fp, updated);
}
