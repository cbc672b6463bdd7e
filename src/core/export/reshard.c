/* From one sharding to another with sdy collectives: a port of the algorithm
 * behind Shardy's -sdy-reshard-to-collectives (CollectiveInserter).
 *
 * The state is three lists of axes per dim: `in` (the current sharding minus
 * the prefix it shares with the target), `out` (the target minus that same
 * prefix) and `cur` (the whole current sharding). We are done when `in` and
 * `out` are empty and the values live on the target mesh. Before starting,
 * sub-axes of in and out are decomposed until any two that overlap are
 * equal, so axes can be compared for equality like whole axes.
 *
 * Then, at most twice: all_slice (slice axes the target has and we don't,
 * within each dim's capacity), collective_permute (swap misplaced axes for
 * wanted ones, or reorder device ids), all_to_all (first only moves that land
 * in order at the target dim, then any), all_gather (drop what is left).
 * Every step records the sharding after it.
 *
 * Shardy keeps a few bookkeeping structures that are updated lazily (the
 * map from target axis to dim/index is rebuilt only after slicing and
 * permuting) and iterates std::lists in two places past their ends; the
 * emitted collectives depend on both, so the port reproduces them and says
 * so where it happens. */
#include "export/reshard.h"

#include <string.h>

/* ---- axis algebra on the aligned lists ------------------------------------ */

static int64_t ax_size(const shard_axis_ref *r, const shard_mesh *m) {
  return r->is_sub ? r->size : shard_mesh_axis_size(m, r->name);
}
/* Pre-size of the next sub-axis, or the full axis size. */
static int64_t ax_next(const shard_axis_ref *r, const shard_mesh *m) {
  return r->is_sub ? r->pre_size * r->size : shard_mesh_axis_size(m, r->name);
}
static shard_axis_ref ax_sub(const char *name, int64_t pre, int64_t size) {
  shard_axis_ref r = {name, true, pre, size};
  return r;
}
static bool ax_same_name(const shard_axis_ref *a, const shard_axis_ref *b) { return strcmp(a->name, b->name) == 0; }

/* AxisRefAttr::operator<: by name (not mesh order), then the full axis sits
 * right after the sub-axes of pre-size 1. */
static bool ax_less(const shard_axis_ref *a, const shard_axis_ref *b) {
  int c = strcmp(a->name, b->name);
  if (c != 0) return c < 0;
  if (!a->is_sub) return shard_axis_pre(b) > 1;
  if (!b->is_sub) return a->pre_size == 1;
  if (a->pre_size != b->pre_size) return a->pre_size < b->pre_size;
  return a->size < b->size;
}

static bool ax_contains(const shard_axis_ref *a, const shard_axis_ref *b) {
  if (!ax_same_name(a, b)) return false;
  if (!a->is_sub) return true;
  if (!b->is_sub) return false;
  return a->pre_size <= b->pre_size && a->pre_size * a->size >= b->pre_size * b->size;
}

static bool ax_overlaps(const shard_axis_ref *a, const shard_axis_ref *b) {
  if (!ax_same_name(a, b)) return false;
  if (!a->is_sub || !b->is_sub) return true;
  return a->pre_size < b->pre_size * b->size && b->pre_size < a->pre_size * a->size;
}

static bool ranges_coexist(int64_t min_pre, int64_t max_pre, int64_t min_next, int64_t max_next) {
  if (min_next > max_pre) return min_next % max_pre == 0 && max_pre % min_pre == 0 && max_next % min_next == 0;
  return max_pre % min_next == 0;
}

static void minmax(int64_t x, int64_t y, int64_t *lo, int64_t *hi) {
  *lo = x < y ? x : y;
  *hi = x < y ? y : x;
}

static bool ax_can_coexist(const shard_axis_ref *a, const shard_axis_ref *b) {
  if (!ax_same_name(a, b) || !a->is_sub || !b->is_sub) return true;
  int64_t min_pre, max_pre, min_next, max_next;
  minmax(a->pre_size, b->pre_size, &min_pre, &max_pre);
  minmax(a->pre_size * a->size, b->pre_size * b->size, &min_next, &max_next);
  return ranges_coexist(min_pre, max_pre, min_next, max_next);
}

/* The common part of two refs of one axis. */
static bool ax_overlap(const shard_axis_ref *a, const shard_axis_ref *b, shard_axis_ref *out) {
  if (!ax_same_name(a, b)) return false;
  if (!a->is_sub) return *out = *b, true;
  if (!b->is_sub) return *out = *a, true;
  int64_t min_pre, max_pre, min_next, max_next;
  minmax(a->pre_size, b->pre_size, &min_pre, &max_pre);
  minmax(a->pre_size * a->size, b->pre_size * b->size, &min_next, &max_next);
  if (min_next <= max_pre || !ranges_coexist(min_pre, max_pre, min_next, max_next)) return false;
  *out = ax_sub(a->name, max_pre, min_next / max_pre);
  return true;
}

/* The part of a before b starts (a itself when they don't overlap). */
static bool ax_prefix_without_overlap(const shard_axis_ref *a, const shard_axis_ref *b, shard_axis_ref *out) {
  if (!ax_can_coexist(a, b)) return false;
  if (!ax_overlaps(a, b)) return *out = *a, true;
  if (shard_axis_pre(a) >= shard_axis_pre(b)) return false;
  *out = ax_sub(a->name, shard_axis_pre(a), shard_axis_pre(b) / shard_axis_pre(a));
  return true;
}

/* The part of a after b ends (a itself when they don't overlap). */
static bool ax_suffix_without_overlap(const shard_axis_ref *a, const shard_axis_ref *b, const shard_mesh *m,
                                      shard_axis_ref *out) {
  if (!ax_can_coexist(a, b)) return false;
  if (!ax_overlaps(a, b)) return *out = *a, true;
  int64_t an = ax_next(a, m), bn = ax_next(b, m);
  if (an <= bn) return false;
  *out = ax_sub(a->name, bn, an / bn);
  return true;
}

static bool ax_can_merge(const shard_axis_ref *a, const shard_axis_ref *b) {
  return ax_same_name(a, b) && a->is_sub && b->is_sub && a->pre_size * a->size == b->pre_size;
}

static shard_axis_ref ax_merge(const shard_axis_ref *a, const shard_axis_ref *b, const shard_mesh *m) {
  int64_t size = a->size * b->size;
  if (shard_mesh_axis_size(m, a->name) == size) {
    shard_axis_ref full = {a->name, false, 0, 0};
    return full;
  }
  return ax_sub(a->name, a->pre_size, size);
}

static bool divisible_either_way(int64_t a, int64_t b) { return a % b == 0 || b % a == 0; }

/* ---- axis lists ----------------------------------------------------------- */

typedef SHARD_VEC(shard_axis_ref) axis_vec;

static void av_insert(axis_vec *v, uint32_t at, shard_axis_ref r) {
  SHARD_VEC_PUSH(*v, r);
  memmove(&v->items[at + 1], &v->items[at], sizeof(r) * (v->len - 1 - at));
  v->items[at] = r;
}
static void av_erase(axis_vec *v, uint32_t at) {
  memmove(&v->items[at], &v->items[at + 1], sizeof(v->items[0]) * (v->len - at - 1));
  v->len--;
}
static int av_find(const axis_vec *v, const shard_axis_ref *r) {
  for (uint32_t i = 0; i < v->len; i++)
    if (shard_axis_equal(&v->items[i], r)) return (int)i;
  return -1;
}
static void av_append_all(axis_vec *dst, const axis_vec *src) {
  for (uint32_t i = 0; i < src->len; i++) SHARD_VEC_PUSH(*dst, src->items[i]);
}
static int64_t av_product(const axis_vec *v, const shard_mesh *m) {
  int64_t p = 1;
  for (uint32_t i = 0; i < v->len; i++) p *= ax_size(&v->items[i], m);
  return p;
}

/* addAxisOrMerge: appends r, or grows the last axis when r continues it. */
static void av_add_or_merge(axis_vec *v, const shard_axis_ref *r, const shard_mesh *m) {
  if (v->len && ax_can_merge(&v->items[v->len - 1], r)) v->items[v->len - 1] = ax_merge(&v->items[v->len - 1], r, m);
  else SHARD_VEC_PUSH(*v, *r);
}

/* The set of axes in `in`, kept apart from the lists as Shardy keeps it. */
static bool set_has(const axis_vec *s, const shard_axis_ref *r) { return av_find(s, r) >= 0; }
static void set_add(axis_vec *s, const shard_axis_ref *r) {
  if (!set_has(s, r)) SHARD_VEC_PUSH(*s, *r);
}
static void set_remove(axis_vec *s, const shard_axis_ref *r) {
  int i = av_find(s, r);
  if (i >= 0) av_erase(s, (uint32_t)i);
}

static void av_sort(axis_vec *v) {
  for (uint32_t i = 1; i < v->len; i++) {
    shard_axis_ref x = v->items[i];
    uint32_t j = i;
    for (; j > 0 && ax_less(&x, &v->items[j - 1]); j--) v->items[j] = v->items[j - 1];
    v->items[j] = x;
  }
}

/* ---- sub-axis alignment --------------------------------------------------- */

/* First axis of the sorted `others` overlapping r, or -1. Sorted axes of
 * one list don't overlap each other, so only the neighbours of r's
 * insertion point can. */
static int first_overlapping(const shard_axis_ref *r, const axis_vec *others) {
  uint32_t lo = 0, hi = others->len;
  while (lo < hi) {
    uint32_t mid = (lo + hi) / 2;
    if (ax_less(&others->items[mid], r)) lo = mid + 1;
    else hi = mid;
  }
  if (lo > 0 && ax_overlaps(r, &others->items[lo - 1])) return (int)lo - 1;
  if (lo < others->len && ax_overlaps(r, &others->items[lo])) return (int)lo;
  return -1;
}

/* Splits each axis of `axes` that partly overlaps an axis of `others`
 * into the prefix before it, the overlap and the suffix after it, the
 * suffix being checked against the next axis of `others` in turn. */
static void align_list(axis_vec *axes, const axis_vec *others, const shard_mesh *m) {
  uint32_t i = 0;
  while (i < axes->len) {
    shard_axis_ref axis = axes->items[i];
    int ov = first_overlapping(&axis, others);
    bool done_with_axis = false;
    while (ov >= 0 && (uint32_t)ov < others->len) {
      const shard_axis_ref *o = &others->items[ov];
      if (!ax_can_coexist(o, &axis) || ax_contains(o, &axis) || !ax_overlaps(o, &axis)) break;
      av_erase(axes, i);
      shard_axis_ref part;
      if (ax_prefix_without_overlap(&axis, o, &part)) av_insert(axes, i++, part);
      ax_overlap(&axis, o, &part);
      av_insert(axes, i++, part);
      if (ax_suffix_without_overlap(&axis, o, m, &part)) {
        av_insert(axes, i, part);
        axis = part;
        ov++;
        done_with_axis = false;
      } else {
        done_with_axis = true;
        break;
      }
    }
    if (!done_with_axis) i++;
  }
}

static void align_dims(axis_vec *dims, uint32_t rank, const axis_vec *others, const shard_mesh *m) {
  if (others->len == 0) return;
  for (uint32_t d = 0; d < rank; d++) align_list(&dims[d], others, m);
}

static axis_vec sorted_axes(const axis_vec *dims, uint32_t rank) {
  axis_vec all = {0};
  for (uint32_t d = 0; d < rank; d++) av_append_all(&all, &dims[d]);
  av_sort(&all);
  return all;
}

/* ---- the inserter --------------------------------------------------------- */

/* Where an axis sits in the target: dim and index in out[dim]. */
typedef struct out_place {
  shard_axis_ref axis;
  uint32_t dim, index;
} out_place;

typedef struct inserter {
  shard_arena *a;
  const shard_mesh *mesh;
  const int64_t *shape;
  uint32_t rank;
  /* Mesh references (symbol or inlined mesh) of the current and target shardings. */
  const char *cur_mesh_name, *out_mesh_name;
  shard_mesh *cur_inline, *out_inline;
  const shard_tensor_sharding *target;
  axis_vec *in, *out, *cur;
  int64_t *capacity;
  axis_vec in_set;
  SHARD_VEC(out_place) out_map;
  SHARD_VEC(shard_reshard_step) steps;
} inserter;

static void rebuild_out_map(inserter *s) {
  s->out_map.len = 0;
  for (uint32_t d = 0; d < s->rank; d++)
    for (uint32_t i = 0; i < s->out[d].len; i++) {
      bool seen = false;
      for (uint32_t k = 0; k < s->out_map.len && !seen; k++)
        seen = shard_axis_equal(&s->out_map.items[k].axis, &s->out[d].items[i]);
      if (!seen) {
        out_place p = {s->out[d].items[i], d, i};
        SHARD_VEC_PUSH(s->out_map, p);
      }
    }
}

static const out_place *out_lookup(const inserter *s, const shard_axis_ref *r) {
  for (uint32_t k = 0; k < s->out_map.len; k++)
    if (shard_axis_equal(&s->out_map.items[k].axis, r)) return &s->out_map.items[k];
  return NULL;
}

static bool same_mesh(const char *an, const shard_mesh *am, const char *bn, const shard_mesh *bm) {
  if (an || bn) return an && bn && strcmp(an, bn) == 0;
  return am && bm && shard_mesh_equal(am, bm);
}

static bool is_done(const inserter *s) {
  if (!same_mesh(s->cur_mesh_name, s->cur_inline, s->out_mesh_name, s->out_inline)) return false;
  for (uint32_t d = 0; d < s->rank; d++)
    if (s->in[d].len || s->out[d].len) return false;
  return true;
}

static shard_axis_ref *dup_axes(shard_arena *a, const shard_axis_ref *axes, uint32_t n) {
  return n ? shard_arena_dup(a, axes, sizeof(*axes) * n) : NULL;
}

/* The current sharding, as getCurrentSharding builds it: closed dims, the
 * target's unreduced axes, nothing replicated. */
static shard_tensor_sharding *current_sharding(const inserter *s) {
  shard_tensor_sharding *t = SHARD_NEW(s->a, shard_tensor_sharding);
  t->mesh_name = s->cur_mesh_name;
  t->inline_mesh = s->cur_inline;
  t->rank = s->rank;
  t->dims = s->rank ? SHARD_NEW_ARRAY(s->a, shard_dim_sharding, s->rank) : NULL;
  for (uint32_t d = 0; d < s->rank; d++) {
    t->dims[d].axes = dup_axes(s->a, s->cur[d].items, s->cur[d].len);
    t->dims[d].num_axes = s->cur[d].len;
    t->dims[d].is_open = false;
    t->dims[d].priority = SHARD_NO_PRIORITY;
  }
  t->unreduced = dup_axes(s->a, s->target->unreduced, s->target->num_unreduced);
  t->num_unreduced = s->target->num_unreduced;
  t->reduction = SHARD_RED_SUM;
  t->span = shard_no_span;
  return t;
}

static void emit(inserter *s, shard_reshard_kind kind, const axis_vec *per_dim, const shard_axis_ref *a2a_axes,
                 uint32_t a2a_num, uint32_t src, uint32_t tgt) {
  shard_reshard_step st;
  memset(&st, 0, sizeof st);
  st.kind = kind;
  st.rank = s->rank;
  if (per_dim) {
    st.axes_per_dim = SHARD_NEW_ARRAY(s->a, shard_axis_list, s->rank ? s->rank : 1);
    for (uint32_t d = 0; d < s->rank; d++) {
      st.axes_per_dim[d].axes = dup_axes(s->a, per_dim[d].items, per_dim[d].len);
      st.axes_per_dim[d].num = per_dim[d].len;
    }
  }
  if (kind == SHARD_RESHARD_ALL_TO_ALL) {
    st.all_to_all.axes.axes = dup_axes(s->a, a2a_axes, a2a_num);
    st.all_to_all.axes.num = a2a_num;
    st.all_to_all.src_dim = src;
    st.all_to_all.tgt_dim = tgt;
  }
  st.sharding = current_sharding(s);
  SHARD_VEC_PUSH(s->steps, st);
}

/* Removes the axes to_pop[start..] (possibly finer sub-axes of what cur
 * holds) from the back of cur. */
static void pop_back_from_current(axis_vec *cur, const axis_vec *to_pop, uint32_t start) {
  for (uint32_t i = to_pop->len; i > start; i--) {
    shard_axis_ref prefix;
    if (cur->len == 0) return;
    if (ax_prefix_without_overlap(&cur->items[cur->len - 1], &to_pop->items[i - 1], &prefix))
      cur->items[cur->len - 1] = prefix;
    else cur->len--;
  }
}

/* getAxisWithinCapacity: the part of r that fits in *capacity (all of it, a
 * major sub-axis of it, or nothing when neither size divides the other), and
 * the remainder; *capacity shrinks by what fits. */
static bool within_capacity(const inserter *s, const shard_axis_ref *r, int64_t *capacity, shard_axis_ref *within,
                            shard_axis_ref *rest, bool *has_rest) {
  int64_t size = ax_size(r, s->mesh);
  *has_rest = false;
  if (*capacity <= 1 || !divisible_either_way(size, *capacity)) return false;
  if (*capacity >= size) {
    *capacity /= size;
    *within = *r;
    return true;
  }
  *within = ax_sub(r->name, shard_axis_pre(r), *capacity);
  *rest = ax_sub(r->name, shard_axis_pre(r) * *capacity, size / *capacity);
  *has_rest = true;
  *capacity = 1;
  return true;
}

/* ---- all_gather ----------------------------------------------------------- */

/* The axes to gather at `dim`, popped from in[dim] and cur[dim]. Shardy
 * walks in[dim] backwards with a reverse iterator that it decrements instead
 * of incrementing; on a std::list that stops after one step at the front.
 * So: when the last axis is wanted by the target nothing is gathered,
 * otherwise the whole dim is (and only that last axis leaves in_set). */
static void gathering_axes(inserter *s, uint32_t dim, axis_vec *gather) {
  axis_vec *in = &s->in[dim];
  gather->len = 0;
  if (in->len == 0) return;
  uint32_t start = in->len;
  if (!out_lookup(s, &in->items[in->len - 1])) {
    set_remove(&s->in_set, &in->items[in->len - 1]);
    start = 0;
  }
  pop_back_from_current(&s->cur[dim], in, start);
  for (uint32_t i = start; i < in->len; i++) av_add_or_merge(gather, &in->items[i], s->mesh);
  in->len = start;
}

static void try_all_gather(inserter *s) {
  axis_vec *per_dim = shard_xcalloc(s->rank ? s->rank : 1, sizeof(axis_vec));
  bool any = false;
  for (uint32_t d = 0; d < s->rank; d++) {
    gathering_axes(s, d, &per_dim[d]);
    any |= per_dim[d].len > 0;
  }
  if (any) emit(s, SHARD_RESHARD_ALL_GATHER, per_dim, NULL, 0, 0, 0);
  for (uint32_t d = 0; d < s->rank; d++) SHARD_VEC_FREE(per_dim[d]);
  free(per_dim);
}

/* ---- distributing axes by capacity ---------------------------------------- */

typedef void (*consume_fn)(inserter *s, const shard_axis_ref *r, uint32_t dim, void *ctx);

/* For each dim with capacity left, moves axes from its available list
 * (available[dim], or available[0] for all dims when `shared`) into in[dim]
 * (at the front, keeping their order, or at the back), splitting an axis
 * that is bigger than the capacity and putting the rest at the front of the
 * available list. */
static void distribute(inserter *s, bool to_front, axis_vec *available, bool shared, consume_fn consume, void *ctx) {
  axis_vec split_added = {0};
  for (uint32_t d = 0; d < s->rank; d++) {
    axis_vec *in = &s->in[d];
    axis_vec *avail = shared ? &available[0] : &available[d];
    uint32_t at = to_front ? 0 : in->len;
    uint32_t j = 0;
    while (j < avail->len && s->capacity[d] > 1) {
      shard_axis_ref within, rest;
      bool has_rest;
      if (!within_capacity(s, &avail->items[j], &s->capacity[d], &within, &rest, &has_rest)) {
        j++;
        continue;
      }
      av_erase(avail, j);
      if (to_front) av_insert(in, at++, within);
      else SHARD_VEC_PUSH(*in, within);
      set_add(&s->in_set, &within);
      if (consume) consume(s, &within, d, ctx);
      if (has_rest) {
        SHARD_VEC_PUSH(split_added, within);
        av_insert(avail, 0, rest);
        j++;
      }
    }
  }
  av_sort(&split_added);
  align_dims(s->out, s->rank, &split_added, s->mesh);
  SHARD_VEC_FREE(split_added);
}

/* ---- all_slice ------------------------------------------------------------ */

/* When an all_to_all from src_dim to the dim that wants in[src_dim]'s last
 * axis will follow, slicing the target's next free axes at src_dim now
 * (rather than at the target dim) saves a collective_permute later. Returns
 * the range [*begin, *end) of out[*tgt] to slice at src_dim, and borrows
 * the target dim's capacity for it. */
static bool slice_for_all_to_all(inserter *s, uint32_t src, uint32_t *tgt_dim, uint32_t *begin, uint32_t *end) {
  axis_vec *src_in = &s->in[src];
  if (src_in->len == 0 || s->out[src].len) return false;
  const shard_axis_ref *last = &src_in->items[src_in->len - 1];
  const out_place *p = out_lookup(s, last);
  if (!p) return false;
  uint32_t tgt = p->dim;
  if (s->in[tgt].len) return false;
  axis_vec *tgt_out = &s->out[tgt];
  /* The map may be stale; Shardy then increments the list's end iterator,
   * which wraps around to the front. */
  int found = av_find(tgt_out, last);
  uint32_t start = found >= 0 ? (uint32_t)found + 1 : 0;
  if (start == tgt_out->len || set_has(&s->in_set, &tgt_out->items[start])) return false;

  int64_t common = 1;
  int i = (int)src_in->len - 1, o = (int)start - 1;
  while (i >= 0 && o >= 0 && shard_axis_equal(&src_in->items[i], &tgt_out->items[o])) {
    common *= ax_size(&src_in->items[i], s->mesh);
    i--;
    o--;
  }
  for (; i >= 0; i--) {
    const out_place *q = out_lookup(s, &src_in->items[i]);
    if (q && q->dim == tgt) return false;
  }
  uint32_t stop = start;
  int64_t added = 1;
  while (stop < tgt_out->len && !set_has(&s->in_set, &tgt_out->items[stop]))
    added *= ax_size(&tgt_out->items[stop++], s->mesh);
  int64_t new_size = av_product(&s->cur[src], s->mesh) * added;
  if (s->shape[src] % new_size != 0) return false;
  s->capacity[tgt] /= common * added;
  *tgt_dim = tgt;
  *begin = start;
  *end = stop;
  return true;
}

typedef struct slice_ctx {
  axis_vec *slicing;
  bool any;
} slice_ctx;

static void consume_slice(inserter *s, const shard_axis_ref *r, uint32_t dim, void *ctx) {
  slice_ctx *c = ctx;
  c->any = true;
  av_add_or_merge(&c->slicing[dim], r, s->mesh);
  av_add_or_merge(&s->cur[dim], r, s->mesh);
}

static void try_all_slice(inserter *s) {
  slice_ctx c = {shard_xcalloc(s->rank ? s->rank : 1, sizeof(axis_vec)), false};
  for (uint32_t d = 0; d < s->rank; d++) {
    int64_t in_size = av_product(&s->in[d], s->mesh), out_size = av_product(&s->out[d], s->mesh);
    s->capacity[d] = out_size / shard_gcd(in_size, out_size);
  }

  /* 1. Slices for later all_to_alls. */
  for (uint32_t src = 0; src < s->rank; src++) {
    uint32_t tgt, begin, end;
    if (!slice_for_all_to_all(s, src, &tgt, &begin, &end)) continue;
    c.any = true;
    for (uint32_t k = begin; k < end; k++) {
      shard_axis_ref r = s->out[tgt].items[k];
      SHARD_VEC_PUSH(s->in[src], r);
      set_add(&s->in_set, &r);
      av_add_or_merge(&c.slicing[src], &r, s->mesh);
      av_add_or_merge(&s->cur[src], &r, s->mesh);
    }
  }

  /* 2. Free target axes in their own dim, while its capacity lasts. */
  axis_vec available = {0};
  for (uint32_t d = 0; d < s->rank; d++) {
    axis_vec *in = &s->in[d], *out = &s->out[d];
    uint32_t j = 0;
    while (j < out->len) {
      shard_axis_ref axis = out->items[j];
      if (set_has(&s->in_set, &axis)) {
        j++;
        continue;
      }
      shard_axis_ref within, rest;
      bool has_rest;
      if (!within_capacity(s, &axis, &s->capacity[d], &within, &rest, &has_rest)) {
        SHARD_VEC_PUSH(available, axis);
        j++;
        continue;
      }
      c.any = true;
      av_add_or_merge(&c.slicing[d], &within, s->mesh);
      av_add_or_merge(&s->cur[d], &within, s->mesh);
      if (in->len == 0 && j == 0) {
        av_erase(out, 0); /* already where the target wants it */
      } else {
        set_add(&s->in_set, &within);
        SHARD_VEC_PUSH(*in, within);
        out->items[j++] = within;
      }
      if (has_rest) {
        av_insert(out, j++, rest);
        SHARD_VEC_PUSH(available, rest);
      }
    }
  }

  /* 3. What is left, in the first dim with capacity. */
  distribute(s, false, &available, true, consume_slice, &c);
  rebuild_out_map(s);
  SHARD_VEC_FREE(available);

  if (c.any) emit(s, SHARD_RESHARD_ALL_SLICE, c.slicing, NULL, 0, 0, 0);
  for (uint32_t d = 0; d < s->rank; d++) SHARD_VEC_FREE(c.slicing[d]);
  free(c.slicing);
}

/* ---- collective_permute --------------------------------------------------- */

/* Is a collective_permute worth it: a dim whose leading current and target
 * axes can replace each other, axes bound for one dim that are out of order
 * or not contiguous, an axis to gather sitting behind one to move away, or
 * some axis to gather that a wanted axis could replace. */
static bool should_permute(const inserter *s) {
  const shard_axis_ref *avail_in = NULL, *avail_out = NULL;
  bool *seen = shard_xcalloc(s->rank ? s->rank : 1, sizeof(bool));
  bool yes = false;
  for (uint32_t d = 0; d < s->rank && !yes; d++) {
    const axis_vec *in = &s->in[d], *out = &s->out[d];
    if (in->len && out->len &&
        divisible_either_way(ax_size(&in->items[0], s->mesh), ax_size(&out->items[0], s->mesh))) {
      yes = true;
      break;
    }
    for (uint32_t k = 0; k < out->len; k++)
      if (!set_has(&s->in_set, &out->items[k])) avail_out = &out->items[k];
    memset(seen, 0, sizeof(bool) * s->rank);
    bool have_last = false;
    uint32_t last_dim = 0, last_index = 0;
    for (uint32_t k = 0; k < in->len; k++) {
      const out_place *p = out_lookup(s, &in->items[k]);
      if (p) {
        if ((p->dim == d || seen[p->dim]) && (!have_last || last_dim != p->dim || p->index != last_index + 1)) {
          yes = true;
          break;
        }
        seen[p->dim] = true;
        last_index = p->index;
      } else if (have_last && out->len == 0) {
        yes = true;
        break;
      } else {
        avail_in = &in->items[k];
      }
      have_last = p != NULL;
      if (p) last_dim = p->dim;
    }
  }
  free(seen);
  if (yes) return true;
  return avail_out && avail_in && divisible_either_way(ax_size(avail_out, s->mesh), ax_size(avail_in, s->mesh));
}

/* Re-picks the axes of every dim, keeping each dim's sharded size: first
 * the target's leading axes, then the other wanted axes wherever capacity
 * is left (at the back), then the axes to gather, back in their own dim if
 * possible (at the front, so they are gathered after the others moved). */
static void perform_permute(inserter *s) {
  axis_vec available_out = {0};
  axis_vec *available_in = shard_xcalloc(s->rank ? s->rank : 1, sizeof(axis_vec));
  s->in_set.len = 0;
  for (uint32_t d = 0; d < s->rank; d++) {
    axis_vec *in = &s->in[d], *out = &s->out[d], *cur = &s->cur[d];
    s->capacity[d] = av_product(in, s->mesh);
    int64_t used = s->capacity[d];
    pop_back_from_current(cur, in, 0);
    while (s->capacity[d] > 1 && out->len) {
      shard_axis_ref within, rest;
      bool has_rest;
      if (!within_capacity(s, &out->items[0], &s->capacity[d], &within, &rest, &has_rest)) break;
      av_erase(out, 0);
      av_add_or_merge(cur, &within, s->mesh);
      if (has_rest) av_insert(out, 0, rest);
    }
    av_append_all(&available_out, out);

    used /= s->capacity[d];
    /* Axes the target doesn't want; those beyond the replaced size go
     * first, to land where they were. */
    uint32_t keep = 0;
    for (uint32_t k = 0; k < in->len; k++)
      if (!out_lookup(s, &in->items[k])) in->items[keep++] = in->items[k];
    in->len = keep;
    while (used > 1 && in->len) {
      shard_axis_ref within, rest;
      bool has_rest;
      if (!within_capacity(s, &in->items[0], &used, &within, &rest, &has_rest)) break;
      av_erase(in, 0);
      SHARD_VEC_PUSH(available_in[d], within);
      if (has_rest) av_insert(in, 0, rest);
    }
    for (uint32_t k = in->len; k > 0; k--) av_insert(&available_in[d], 0, in->items[k - 1]);
    in->len = 0;
  }

  distribute(s, false, &available_out, true, NULL, NULL);
  distribute(s, true, available_in, false, NULL, NULL);
  axis_vec all_in = {0};
  for (uint32_t d = 0; d < s->rank; d++) av_append_all(&all_in, &available_in[d]);
  distribute(s, true, &all_in, true, NULL, NULL);
  rebuild_out_map(s);

  for (uint32_t d = 0; d < s->rank; d++)
    for (uint32_t k = 0; k < s->in[d].len; k++) av_add_or_merge(&s->cur[d], &s->in[d].items[k], s->mesh);

  SHARD_VEC_FREE(all_in);
  SHARD_VEC_FREE(available_out);
  for (uint32_t d = 0; d < s->rank; d++) SHARD_VEC_FREE(available_in[d]);
  free(available_in);
}

static void try_permute(inserter *s) {
  bool same = same_mesh(s->cur_mesh_name, s->cur_inline, s->out_mesh_name, s->out_inline);
  if (should_permute(s)) perform_permute(s);
  else if (same) return;
  /* Also reorders devices onto the target mesh when only that differs. */
  s->cur_mesh_name = s->out_mesh_name;
  s->cur_inline = s->out_inline;
  emit(s, SHARD_RESHARD_COLLECTIVE_PERMUTE, NULL, NULL, 0, 0, 0);
}

/* ---- all_to_all ----------------------------------------------------------- */

/* The longest suffix of in[src] bound for one other dim moves there; with
 * !out_of_order only when it lands at the front of what that dim still needs. */
static bool all_to_all_once(inserter *s, uint32_t src, bool out_of_order, axis_vec *axes, uint32_t *tgt_dim) {
  axis_vec *src_in = &s->in[src];
  int i = (int)src_in->len - 1;
  bool have_tgt = false;
  uint32_t tgt = 0;
  for (; i >= 0; i--) {
    const out_place *p = out_lookup(s, &src_in->items[i]);
    if (!p || p->dim == src || (have_tgt && p->dim != tgt)) break;
    tgt = p->dim;
    have_tgt = true;
  }
  if (!have_tgt) return false;
  uint32_t start = (uint32_t)(i + 1);
  axis_vec *tgt_out = &s->out[tgt];
  if (!out_of_order) {
    /* std::equal past the end of a shorter target list compares against
     * the list's sentinel, which never matches. */
    if (src_in->len - start > tgt_out->len) return false;
    for (uint32_t k = start; k < src_in->len; k++)
      if (!shard_axis_equal(&src_in->items[k], &tgt_out->items[k - start])) return false;
  }

  axes->len = 0;
  pop_back_from_current(&s->cur[src], src_in, start);
  axis_vec *tgt_in = &s->in[tgt];
  while (start < src_in->len) {
    shard_axis_ref axis = src_in->items[start];
    av_add_or_merge(axes, &axis, s->mesh);
    av_add_or_merge(&s->cur[tgt], &axis, s->mesh);
    av_erase(src_in, start);
    set_remove(&s->in_set, &axis);
    if (tgt_in->len == 0 && tgt_out->len && shard_axis_equal(&tgt_out->items[0], &axis)) {
      av_erase(tgt_out, 0);
    } else {
      SHARD_VEC_PUSH(*tgt_in, axis);
      set_add(&s->in_set, &axis);
    }
  }
  *tgt_dim = tgt;
  return true;
}

static void try_all_to_alls(inserter *s, bool out_of_order) {
  axis_vec axes = {0};
  uint32_t tgt;
  for (uint32_t src = 0; src < s->rank; src++)
    while (all_to_all_once(s, src, out_of_order, &axes, &tgt))
      emit(s, SHARD_RESHARD_ALL_TO_ALL, NULL, axes.items, axes.len, src, tgt);
  SHARD_VEC_FREE(axes);
}

/* ---- entry points --------------------------------------------------------- */

static void load_dims(const shard_tensor_sharding *t, axis_vec *dims) {
  for (uint32_t d = 0; d < t->rank; d++)
    for (uint32_t k = 0; k < t->dims[d].num_axes; k++) SHARD_VEC_PUSH(dims[d], t->dims[d].axes[k]);
}

static bool sizes_known(const shard_tensor_sharding *t, const shard_mesh *m) {
  for (uint32_t d = 0; d < t->rank; d++)
    for (uint32_t k = 0; k < t->dims[d].num_axes; k++) {
      const shard_axis_ref *r = &t->dims[d].axes[k];
      if (ax_size(r, m) <= 0 || shard_axis_pre(r) <= 0 || ax_next(r, m) <= 0) return false;
    }
  return true;
}

/* Whether every sub-axis of the current sharding can coexist with every
 * sub-axis of the same axis in the target (Shardy's canCoexist). Two that
 * cannot split the axis incompatibly ("a"=6 as "a":(1)2 and "a":(3)2):
 * they have no common refinement, which the steps below need. */
static bool lists_coexist(const axis_vec *in, const axis_vec *out, uint32_t rank) {
  for (uint32_t d = 0; d < rank; d++)
    for (uint32_t i = 0; i < in[d].len; i++)
      for (uint32_t e = 0; e < rank; e++)
        for (uint32_t j = 0; j < out[e].len; j++)
          if (!ax_can_coexist(&in[d].items[i], &out[e].items[j])) return false;
  return true;
}

/* The reshard for shardings whose axes cannot coexist (Shardy assumes they
 * can, and its steps would slice into a sharding that names both): gather
 * every sharded dim, then slice the target's axes. Correct, if not the
 * cheapest way. */
static void gather_then_slice(inserter *s) {
  bool any = false;
  for (uint32_t d = 0; d < s->rank; d++) any |= s->cur[d].len > 0;
  if (any) {
    axis_vec *gather = shard_xcalloc(s->rank, sizeof(axis_vec));
    for (uint32_t d = 0; d < s->rank; d++) {
      av_append_all(&gather[d], &s->cur[d]);
      s->cur[d].len = 0;
    }
    emit(s, SHARD_RESHARD_ALL_GATHER, gather, NULL, 0, 0, 0);
    for (uint32_t d = 0; d < s->rank; d++) SHARD_VEC_FREE(gather[d]);
    free(gather);
  }
  any = false;
  for (uint32_t d = 0; d < s->rank; d++) {
    any |= s->out[d].len > 0;
    av_append_all(&s->cur[d], &s->out[d]);
  }
  if (any) emit(s, SHARD_RESHARD_ALL_SLICE, s->out, NULL, 0, 0, 0);
  for (uint32_t d = 0; d < s->rank; d++) s->in[d].len = s->out[d].len = 0;
}

bool shard_reshard_collectives(shard_arena *a, const shard_tensor_sharding *in, const shard_tensor_sharding *out,
                               const shard_mesh *mesh, const int64_t *shape, shard_reshard_step **steps,
                               uint32_t *num_steps) {
  *steps = NULL;
  *num_steps = 0;
  if (!mesh || in->rank != out->rank || !sizes_known(in, mesh) || !sizes_known(out, mesh)) return false;
  inserter s;
  memset(&s, 0, sizeof s);
  s.a = a;
  s.mesh = mesh;
  s.shape = shape;
  s.rank = in->rank;
  s.cur_mesh_name = in->mesh_name;
  s.cur_inline = in->inline_mesh;
  s.out_mesh_name = out->mesh_name;
  s.out_inline = out->inline_mesh;
  s.target = out;
  uint32_t n = s.rank ? s.rank : 1;
  s.in = shard_xcalloc(n, sizeof(axis_vec));
  s.out = shard_xcalloc(n, sizeof(axis_vec));
  s.cur = shard_xcalloc(n, sizeof(axis_vec));
  s.capacity = shard_xcalloc(n, sizeof(int64_t));
  load_dims(in, s.in);
  load_dims(out, s.out);
  load_dims(in, s.cur);
  for (uint32_t d = 0; d < s.rank; d++) s.capacity[d] = 1;

  if (!lists_coexist(s.in, s.out, s.rank)) {
    gather_then_slice(&s);
    goto finish;
  }

  /* Align sub-axes both ways (each against the other's original axes), so
   * overlapping axes are equal; then drop the common prefix per dim. */
  axis_vec in_sorted = sorted_axes(s.in, s.rank), out_sorted = sorted_axes(s.out, s.rank);
  align_dims(s.in, s.rank, &out_sorted, mesh);
  align_dims(s.out, s.rank, &in_sorted, mesh);
  SHARD_VEC_FREE(in_sorted);
  SHARD_VEC_FREE(out_sorted);
  for (uint32_t d = 0; d < s.rank; d++) {
    uint32_t k = 0;
    while (k < s.in[d].len && k < s.out[d].len && shard_axis_equal(&s.in[d].items[k], &s.out[d].items[k])) k++;
    for (uint32_t j = 0; j < k; j++) {
      av_erase(&s.in[d], 0);
      av_erase(&s.out[d], 0);
    }
  }
  for (uint32_t d = 0; d < s.rank; d++)
    for (uint32_t k = 0; k < s.in[d].len; k++) set_add(&s.in_set, &s.in[d].items[k]);
  rebuild_out_map(&s);

  /* With power-of-two axes one round always suffices; otherwise two do. */
  for (int round = 0; round < 2 && !is_done(&s); round++) {
    try_all_slice(&s);
    try_permute(&s);
    try_all_to_alls(&s, false);
    try_all_to_alls(&s, true);
    try_all_gather(&s);
  }
finish:;
  bool done = is_done(&s);

  *num_steps = s.steps.len;
  SHARD_VEC_FREEZE(a, s.steps, *steps);
  for (uint32_t d = 0; d < s.rank; d++) {
    SHARD_VEC_FREE(s.in[d]);
    SHARD_VEC_FREE(s.out[d]);
    SHARD_VEC_FREE(s.cur[d]);
  }
  free(s.in);
  free(s.out);
  free(s.cur);
  free(s.capacity);
  SHARD_VEC_FREE(s.in_set);
  SHARD_VEC_FREE(s.out_map);
  return done;
}

const char *shard_reshard_kind_name(shard_reshard_kind k) {
  switch (k) {
  case SHARD_RESHARD_ALL_SLICE: return "all_slice";
  case SHARD_RESHARD_COLLECTIVE_PERMUTE: return "collective_permute";
  case SHARD_RESHARD_ALL_TO_ALL: return "all_to_all";
  case SHARD_RESHARD_ALL_GATHER: return "all_gather";
  }
  return "?";
}

bool shard_reshard_same_mesh_ref(const shard_tensor_sharding *a, const shard_tensor_sharding *b) {
  return same_mesh(a->mesh_name, a->inline_mesh, b->mesh_name, b->inline_mesh);
}

static bool axes_equal(const shard_axis_ref *a, uint32_t na, const shard_axis_ref *b, uint32_t nb) {
  if (na != nb) return false;
  for (uint32_t i = 0; i < na; i++)
    if (!shard_axis_equal(&a[i], &b[i])) return false;
  return true;
}

/* Replicated for isEquivalent: no dim axes and no unreduced axes. */
static bool equivalence_replicated(const shard_tensor_sharding *s) {
  return !s || (s->num_unreduced == 0 && shard_sharding_fully_replicated(s));
}

bool shard_reshard_equivalent(const shard_tensor_sharding *a, const shard_tensor_sharding *b) {
  if (equivalence_replicated(a)) return equivalence_replicated(b);
  if (!b || !shard_reshard_same_mesh_ref(a, b)) return false;
  if (!axes_equal(a->unreduced, a->num_unreduced, b->unreduced, b->num_unreduced)) return false;
  if (a->rank != b->rank) return false;
  for (uint32_t d = 0; d < a->rank; d++)
    if (!axes_equal(a->dims[d].axes, a->dims[d].num_axes, b->dims[d].axes, b->dims[d].num_axes)) return false;
  return true;
}

/* Same axes, device order aside (MeshAttr::equals with ignoreDeviceIds). */
static bool equivalent_on_mesh(const shard_tensor_sharding *in, const shard_mesh *in_mesh,
                               const shard_tensor_sharding *out, const shard_mesh *out_mesh) {
  if (shard_reshard_same_mesh_ref(in, out)) return true;
  if (!in_mesh || !out_mesh) return false;
  return shard_mesh_is_maximal(in_mesh) == shard_mesh_is_maximal(out_mesh) && shard_mesh_same_axes(in_mesh, out_mesh);
}

shard_reshard_outcome shard_reshard_plan(shard_arena *a, const shard_tensor_sharding *in, const shard_mesh *in_mesh,
                                         const shard_tensor_sharding *out, const shard_mesh *out_mesh,
                                         const int64_t *shape, shard_reshard_step **steps, uint32_t *num_steps) {
  *steps = NULL;
  *num_steps = 0;
  if ((in_mesh && shard_mesh_is_maximal(in_mesh)) || (out_mesh && shard_mesh_is_maximal(out_mesh)))
    return SHARD_RESHARD_MAXIMAL_MESH;
  if (in->rank != out->rank) return SHARD_RESHARD_RANK_MISMATCH;
  if (shard_sharding_fully_replicated(out)) {
    if (shard_sharding_fully_replicated(in)) return SHARD_RESHARD_FORWARD;
    /* Gather everything, staying on the input's mesh (getFullyClosedLike:
     * no unreduced axes either). */
    shard_tensor_sharding *closed = SHARD_NEW(a, shard_tensor_sharding);
    closed->mesh_name = in->mesh_name;
    closed->inline_mesh = in->inline_mesh;
    closed->rank = in->rank;
    closed->dims = in->rank ? SHARD_NEW_ARRAY(a, shard_dim_sharding, in->rank) : NULL;
    for (uint32_t d = 0; d < in->rank; d++) closed->dims[d].priority = SHARD_NO_PRIORITY;
    closed->span = out->span;
    out = closed;
    out_mesh = in_mesh;
  }
  if (!equivalent_on_mesh(in, in_mesh, out, out_mesh)) return SHARD_RESHARD_INCOMPATIBLE_MESHES;
  if (!shard_reshard_collectives(a, in, out, in_mesh, shape, steps, num_steps)) return SHARD_RESHARD_INCOMPLETE;
  return SHARD_RESHARD_STEPS;
}
