/* Sharding projections (see projection.h), after Shardy's
 * sharding_projection.cc.
 *
 * Dims -> factors: each dim's axes are handed out to its factors major to
 * minor. A non-minor-most factor keeps taking axes while they share a
 * divisor with what is left of the factor, splitting an axis into a sub-axis
 * of gcd size when only part of it fits; if the factor is not used up and the
 * next axis is coprime with the rest, all remaining axes become the factor's
 * overflow axes and later factors of the dim are closed. The minor-most
 * factor takes everything left, even when that doesn't divide it (padding).
 *
 * Factors -> dims is the reverse concatenation, merging sub-axes that meet
 * at a factor boundary, and stopping where a further factor would need a
 * strided view. */
#include "propagate/projection.h"

#include <string.h>

/* ---- axis helpers ------------------------------------------------------------ */

/* Axis names are short: a loop in place beats a call to strcmp. */
static bool S_same_name(const char *a, const char *b) {
  if (a == b) return true;
  while (*a && *a == *b) a++, b++;
  return *a == *b;
}

/* shard_axis_size for the hot loops of projecting and propagating: the same
 * first match, with names compared in place instead of by a call to strcmp
 * for every axis of the mesh. */
int64_t shard_projection_axis_size(const shard_axis_ref *r, const shard_mesh *m) {
  if (r->is_sub || !m) return shard_axis_size(r, m);
  for (uint32_t i = 0; i < m->num_axes; i++)
    if (S_same_name(m->axes[i].name, r->name)) return m->axes[i].size;
  return -1;
}

shard_prefix_status shard_axes_prefix_status(const shard_axis_ref *first, uint32_t nfirst, const shard_axis_ref *second,
                                             uint32_t nsecond) {
  if (nfirst == 0) return nsecond == 0 ? SHARD_PREFIX_EQUAL : SHARD_PREFIX_STRICT;
  if (nfirst > nsecond) return SHARD_PREFIX_NOT;
  for (uint32_t i = 0; i + 1 < nfirst; i++)
    if (!shard_axis_equal(&first[i], &second[i])) return SHARD_PREFIX_NOT;
  const shard_axis_ref *last = &first[nfirst - 1], *other = &second[nfirst - 1];
  if (nfirst == nsecond && shard_axis_equal(last, other)) return SHARD_PREFIX_EQUAL;
  /* Containment and equal pre-size need no axis sizes. */
  if (shard_axis_is_prefix_of(last, other, NULL)) return SHARD_PREFIX_STRICT;
  return SHARD_PREFIX_NOT;
}

/* ---- building ------------------------------------------------------------------ */

/* A growable axis list in the projection arena while it is being built. */
enum { BUILDER_CAP = 64 };

typedef struct axis_builder {
  shard_axis_ref items[BUILDER_CAP];
  uint32_t len;
} axis_builder;

static void S_push(axis_builder *b, shard_axis_ref r) {
  if (b->len < sizeof b->items / sizeof *b->items) b->items[b->len++] = r;
}

/* Appends r, merging it into the last ref when they are consecutive sub-axes. */
static void S_push_or_merge(axis_builder *b, shard_axis_ref r, const shard_mesh *m) {
  if (b->len && shard_axis_can_merge(&b->items[b->len - 1], &r))
    b->items[b->len - 1] = shard_axis_merge(&b->items[b->len - 1], &r, m);
  else S_push(b, r);
}

static shard_axes S_freeze(shard_arena *a, const axis_builder *b) {
  shard_axes r = {NULL, b->len};
  if (b->len) r.v = shard_arena_dup(a, b->items, sizeof(shard_axis_ref) * b->len);
  return r;
}

/* What is left of the axis being handed out: its size and, when a part has
 * already been split off (or it was a sub-axis to begin with), its pre-size. */
typedef struct axis_rest {
  bool valid;
  const char *name;
  int64_t size;
  bool has_pre;
  int64_t pre;
} axis_rest;

static axis_rest S_rest_at(const shard_dim_sharding *d, uint32_t i, const shard_mesh *m) {
  axis_rest r = {false, NULL, 0, false, 0};
  if (!d || i >= d->num_axes) return r;
  const shard_axis_ref *ax = &d->axes[i];
  r.valid = true;
  r.name = ax->name;
  r.size = shard_projection_axis_size(ax, m);
  r.has_pre = ax->is_sub;
  r.pre = shard_axis_pre(ax);
  return r;
}

static shard_axis_ref S_rest_ref(const axis_rest *r) {
  if (r->has_pre) return shard_axis_sub(r->name, r->pre, r->size);
  shard_axis_ref full = {r->name, false, 0, 0};
  return full;
}

/* Adds the rest of the current axis and every later axis of the dim. */
static void S_add_remaining(axis_builder *b, axis_rest rest, const shard_dim_sharding *d, uint32_t i,
                            const shard_mesh *m) {
  while (rest.valid) {
    S_push_or_merge(b, S_rest_ref(&rest), m);
    rest = S_rest_at(d, ++i, m);
  }
}

/* Would S_add_remaining copy axes ai.. of the dim unchanged? Yes when there
 * is at least one, no more than a builder holds, none merges with the next
 * and each is a plain sub-axis or full axis as S_rest_ref builds it (a full
 * axis carries no sizes). */
static bool S_shareable_tail(const shard_dim_sharding *d, uint32_t ai) {
  if (!d || ai >= d->num_axes || d->num_axes - ai > BUILDER_CAP) return false;
  for (uint32_t i = ai; i < d->num_axes; i++) {
    const shard_axis_ref *r = &d->axes[i];
    if (!r->is_sub && (r->pre_size || r->size)) return false;
    /* Only two sub-axes merge: full axes (the most) need no call. */
    if (r->is_sub && i + 1 < d->num_axes && d->axes[i + 1].is_sub && shard_axis_can_merge(r, &d->axes[i + 1]))
      return false;
  }
  return true;
}

static void S_build_tensor(shard_projection *p, shard_tensor_factors *t, const shard_tensor_mapping *mapping,
                           const shard_tensor_sharding *s, bool closed_if_missing) {
  const shard_mesh *m = p->mesh;
  if (s && s->rank != mapping->rank) s = NULL;
  for (uint32_t d = 0; d < mapping->rank; d++) {
    const shard_dim_mapping *dm = &mapping->dims[d];
    const shard_dim_sharding *ds = s ? &s->dims[d] : NULL;
    bool dim_closed = ds ? !ds->is_open : closed_if_missing;
    if (dm->num_factors == 1) {
      /* A dim of one factor (every dim of an elementwise op) hands it all
       * of its axes: the loop below without reading the first axis's size
       * from the mesh, which only a split needs. */
      int64_t f = dm->factors[0];
      if (f < 0 || (uint32_t)f >= p->num_factors) continue;
      shard_factor_sharding *fs = &t->factors[f];
      fs->mapped = true;
      fs->is_minor_most = true;
      fs->is_closed = dim_closed;
      if (!ds || !ds->num_axes) continue; /* no axes: the zeroed list */
      if (S_shareable_tail(ds, 0)) {
        fs->axes.v = ds->axes;
        fs->axes.n = ds->num_axes;
        continue;
      }
      axis_builder b;
      b.len = 0;
      S_add_remaining(&b, S_rest_at(ds, 0, m), ds, 0, m);
      fs->axes = S_freeze(p->arena, &b);
      continue;
    }
    uint32_t ai = 0;
    axis_rest rest = S_rest_at(ds, ai, m);
    bool rest_whole = true; /* rest is axis ai of the dim, not what a split left */
    bool has_overflow = false;
    for (uint32_t k = 0; k < dm->num_factors; k++) {
      int64_t f = dm->factors[k];
      if (f < 0 || (uint32_t)f >= p->num_factors) continue;
      shard_factor_sharding *fs = &t->factors[f];
      fs->mapped = true;
      fs->is_minor_most = k + 1 == dm->num_factors;
      if (has_overflow) {
        /* Nothing may shard a factor after overflow axes. */
        fs->is_closed = true;
        break;
      }
      fs->is_closed = dim_closed;
      int64_t remaining = p->factor_sizes[f];
      axis_builder b; /* only len needs a value: zeroing 64 refs per factor was a hot spot */
      b.len = 0;
      if (fs->is_minor_most) {
        if (rest_whole && S_shareable_tail(ds, ai)) {
          /* The rest of the dim, as written: its own list (never edited). */
          fs->axes.v = ds->axes + ai;
          fs->axes.n = ds->num_axes - ai;
          break;
        }
        S_add_remaining(&b, rest, ds, ai, m);
        fs->axes = S_freeze(p->arena, &b);
        break;
      }
      int64_t g = 1;
      while (rest.valid && (rest.size == 1 || (g = shard_gcd(remaining, rest.size)) > 1)) {
        const char *name = rest.name;
        shard_axis_ref piece;
        if (rest.size > g) {
          /* Only part of the axis fits: split off a sub-axis of size g. */
          piece = shard_axis_sub(name, rest.has_pre ? rest.pre : 1, g);
          rest.pre = piece.pre_size * g;
          rest.has_pre = true;
          rest_whole = false;
          rest.size /= g;
          remaining /= g;
        } else {
          piece = S_rest_ref(&rest);
          remaining /= rest.size;
          rest = S_rest_at(ds, ++ai, m);
          rest_whole = true;
        }
        S_push(&b, piece);
      }
      fs->axes = S_freeze(p->arena, &b);
      if (remaining > 1 && rest.valid) {
        has_overflow = true;
        axis_builder ob = {.len = 0};
        S_add_remaining(&ob, rest, ds, ai, m);
        fs->overflow = S_freeze(p->arena, &ob);
      }
    }
  }
  if (s) {
    t->replicated = s->replicated;
    t->num_replicated = s->num_replicated;
    t->unreduced = s->unreduced;
    t->num_unreduced = s->num_unreduced;
    t->reduction = s->reduction;
  }
}

/* Tensor t's dim d axes as projecting sees them: none without a sharding
 * of the mapping's rank. */
static const shard_dim_sharding *S_dim_in(const shard_tensor_sharding *s, uint32_t rank, uint32_t d) {
  return s && s->rank == rank ? &s->dims[d] : NULL;
}

static bool S_same_dim_axes(const shard_dim_sharding *x, const shard_dim_sharding *y) {
  uint32_t nx = x ? x->num_axes : 0, ny = y ? y->num_axes : 0;
  if (nx != ny) return false;
  return !nx || x->axes == y->axes || shard_axes_equal(x->axes, nx, y->axes, ny);
}

bool shard_projection_settled(const shard_op_sharding_rule *rule, const shard_tensor_sharding *const *shardings) {
  uint32_t n = rule->num_operands + rule->num_results;
  if (n < 2) return true;
  const shard_tensor_mapping *m0 = &rule->operands[0];
  if (!rule->num_operands) m0 = &rule->results[0];
  const shard_tensor_sharding *s0 = shardings ? shardings[0] : NULL;
  for (uint32_t i = 1; i < n; i++) {
    const shard_tensor_mapping *mi =
        i < rule->num_operands ? &rule->operands[i] : &rule->results[i - rule->num_operands];
    const shard_tensor_sharding *si = shardings ? shardings[i] : NULL;
    if (mi->rank != m0->rank) return false;
    /* Axes first: they differ far more often than mappings do. */
    if (si != s0)
      for (uint32_t d = 0; d < mi->rank; d++)
        if (!S_same_dim_axes(S_dim_in(s0, m0->rank, d), S_dim_in(si, mi->rank, d))) return false;
    for (uint32_t d = 0; d < mi->rank; d++) {
      const shard_dim_mapping *x = &m0->dims[d], *y = &mi->dims[d];
      if (x->num_factors != y->num_factors) return false;
      if (x->factors == y->factors) continue;
      for (uint32_t k = 0; k < x->num_factors; k++)
        if (x->factors[k] != y->factors[k]) return false;
    }
  }
  return true;
}

shard_projection *shard_projection_build(shard_arena *a, const shard_op_sharding_rule *rule,
                                         const shard_tensor_sharding *const *shardings, const shard_mesh *mesh,
                                         bool closed_if_missing) {
  shard_projection *p = SHARD_NEW(a, shard_projection);
  p->arena = a;
  p->mesh = mesh;
  p->factor_sizes = rule->factor_sizes;
  p->num_factors = rule->num_factors;
  p->num_operands = rule->num_operands;
  p->num_results = rule->num_results;
  uint32_t n = rule->num_operands + rule->num_results;
  p->tensors = SHARD_NEW_ARRAY(a, shard_tensor_factors, n ? n : 1);
  /* One zeroed block for every tensor's factors: an array per tensor was
   * an allocation past the arena's small fast path each. */
  uint32_t nf = p->num_factors ? p->num_factors : 1;
  shard_factor_sharding *factors = SHARD_NEW_ARRAY(a, shard_factor_sharding, (size_t)nf * (n ? n : 1));
  for (uint32_t i = 0; i < n; i++) {
    p->tensors[i].factors = factors + (size_t)nf * i;
    const shard_tensor_mapping *mapping =
        i < rule->num_operands ? &rule->operands[i] : &rule->results[i - rule->num_operands];
    S_build_tensor(p, &p->tensors[i], mapping, shardings ? shardings[i] : NULL, closed_if_missing);
  }
  return p;
}

/* ---- updating ------------------------------------------------------------------- */

bool shard_projection_expand(shard_projection *p, uint32_t t, int64_t factor, const shard_axis_ref *axes, uint32_t n) {
  if (factor < 0 || (uint32_t)factor >= p->num_factors) return false;
  shard_factor_sharding *fs = &p->tensors[t].factors[factor];
  if (!fs->mapped) return false;
  if (shard_axes_prefix_status(fs->axes.v, fs->axes.n, axes, n) != SHARD_PREFIX_STRICT) return false;
  fs->axes.n = n;
  fs->axes.v = n ? shard_arena_dup(p->arena, axes, sizeof(shard_axis_ref) * n) : NULL;
  return true;
}

int64_t shard_projection_sharding_size(const shard_projection *p, uint32_t t) {
  int64_t size = 1;
  for (uint32_t f = 0; f < p->num_factors; f++) {
    const shard_factor_sharding *fs = &p->tensors[t].factors[f];
    if (!fs->mapped) continue;
    for (uint32_t i = 0; i < fs->axes.n; i++) size *= shard_projection_axis_size(&fs->axes.v[i], p->mesh);
    for (uint32_t i = 0; i < fs->overflow.n; i++) size *= shard_projection_axis_size(&fs->overflow.v[i], p->mesh);
  }
  return size;
}

/* Adds a factor's axes to a dim, merging at the boundary; returns their product. */
static int64_t S_add_factor_axes(axis_builder *b, shard_axes axes, const shard_mesh *m) {
  int64_t total = 1;
  for (uint32_t i = 0; i < axes.n; i++) {
    total *= shard_projection_axis_size(&axes.v[i], m);
    if (i == 0) S_push_or_merge(b, axes.v[i], m);
    else S_push(b, axes.v[i]);
  }
  return total;
}

shard_tensor_sharding *shard_projection_to_sharding(shard_arena *out, const shard_projection *p, uint32_t t,
                                                    const shard_tensor_mapping *mapping, const char *mesh_name,
                                                    shard_mesh *inline_mesh) {
  const shard_tensor_factors *tf = &p->tensors[t];
  shard_tensor_sharding *s = SHARD_NEW(out, shard_tensor_sharding);
  s->mesh_name = mesh_name;
  s->inline_mesh = inline_mesh;
  s->rank = mapping->rank;
  s->dims = mapping->rank ? SHARD_NEW_ARRAY(out, shard_dim_sharding, mapping->rank) : NULL;
  for (uint32_t d = 0; d < mapping->rank; d++) {
    const shard_dim_mapping *dm = &mapping->dims[d];
    bool closed = false;
    axis_builder b;
    b.len = 0;
    for (uint32_t k = 0; k < dm->num_factors; k++) {
      int64_t f = dm->factors[k];
      if (f < 0 || (uint32_t)f >= p->num_factors) continue;
      const shard_factor_sharding *fs = &tf->factors[f];
      closed |= fs->is_closed;
      int64_t sharded = S_add_factor_axes(&b, fs->axes, p->mesh);
      if (fs->overflow.n) {
        S_add_factor_axes(&b, fs->overflow, p->mesh);
        break;
      }
      /* A later factor would need a strided view. */
      if (sharded < p->factor_sizes[f]) break;
    }
    s->dims[d].is_open = !closed;
    s->dims[d].priority = SHARD_NO_PRIORITY;
    s->dims[d].num_axes = b.len;
    s->dims[d].axes = b.len ? shard_arena_dup(out, b.items, sizeof(shard_axis_ref) * b.len) : NULL;
  }
  if (tf->num_replicated) {
    s->replicated = shard_arena_dup(out, tf->replicated, sizeof(shard_axis_ref) * tf->num_replicated);
    s->num_replicated = tf->num_replicated;
  }
  if (tf->num_unreduced) {
    s->unreduced = shard_arena_dup(out, tf->unreduced, sizeof(shard_axis_ref) * tf->num_unreduced);
    s->num_unreduced = tf->num_unreduced;
  }
  s->reduction = tf->reduction;
  return s;
}
