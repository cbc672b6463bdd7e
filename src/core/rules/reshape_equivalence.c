/* Sharding equivalence across reshapes (reshape_equivalence.h).
 *
 * A reshape keeps the row-major order of elements, so two shardings of the
 * tensors on either side place the same data on every device when each mesh
 * axis splits the same linear run of that order. Every axis is turned into
 * its position in the order (its stride, or with non-divisible dims the
 * element prefix it splits), the axes are sorted by position, and
 * consecutive sub-axes of one axis that line up are merged back, since
 * "x":(1)2 then "x":(2)2 across two dims is "x" across their product. */
#include "rules/reshape_equivalence.h"

#include <string.h>

typedef struct axis_position {
  shard_axis_ref axis;
  double stride; /* elements between consecutive shards along the axis */
  int64_t prefix; /* elements before the dim times the shards of earlier axes in it */
  int64_t dim; /* size of the dim the axis shards */
} axis_position;

typedef SHARD_VEC(axis_position) axis_position_vec;

static bool S_near(double a, double b) { return (a > b ? a - b : b - a) < 1e-6; }

/* The axes of s on t by position (ascending, stable), sub-axes merged;
 * false when an axis has no size in `mesh`. */
static bool S_positions(const shard_tensor_sharding *s, const shard_type *t, const shard_mesh *mesh, bool non_divisible,
                        axis_position_vec *out) {
  double cumulative = 1.0;
  for (uint32_t i = t->rank; i-- > 0;) {
    const shard_dim_sharding *d = &s->dims[i];
    int64_t total = 1;
    for (uint32_t j = 0; j < d->num_axes; j++) {
      int64_t size = shard_axis_size(&d->axes[j], mesh);
      if (size <= 0) return false;
      total *= size;
    }
    int64_t dim = t->dims[i];
    double stride = cumulative * (non_divisible ? (double)dim / (double)total : (double)((dim + total - 1) / total));
    int64_t base_prefix = 1;
    for (uint32_t k = 0; k < i; k++) base_prefix *= t->dims[k];
    int64_t preceding = total;
    for (uint32_t j = d->num_axes; j-- > 0;) {
      int64_t size = shard_axis_size(&d->axes[j], mesh);
      preceding /= size;
      axis_position e = {d->axes[j], stride, base_prefix * preceding, dim};
      SHARD_VEC_PUSH(*out, e);
      stride *= (double)size;
    }
    cumulative *= (double)dim;
  }
  for (uint32_t i = 1; i < out->len; i++) /* stable insertion sort by stride */
    for (uint32_t j = i; j > 0 && out->items[j - 1].stride > out->items[j].stride; j--) {
      axis_position tmp = out->items[j];
      out->items[j] = out->items[j - 1];
      out->items[j - 1] = tmp;
    }
  uint32_t n = 0;
  for (uint32_t i = 0; i < out->len; i++) {
    axis_position e = out->items[i];
    if (n) {
      axis_position *back = &out->items[n - 1];
      const shard_axis_ref *prev = &back->axis, *cur = &e.axis;
      int64_t psize = shard_axis_size(prev, mesh), csize = shard_axis_size(cur, mesh);
      bool adjacent = strcmp(prev->name, cur->name) == 0 && shard_axis_pre(cur) * csize == shard_axis_pre(prev);
      bool lined_up = non_divisible ? back->prefix == e.prefix || (back->prefix == e.prefix * e.dim && csize == e.dim)
                                    : S_near(e.stride, back->stride * (double)psize);
      if (adjacent && lined_up) {
        int64_t min_pre = shard_axis_pre(prev) < shard_axis_pre(cur) ? shard_axis_pre(prev) : shard_axis_pre(cur);
        int64_t size = psize * csize;
        shard_axis_ref combined = {prev->name, true, min_pre, size};
        if (min_pre == 1 && size == shard_mesh_axis_size(mesh, prev->name))
          combined = (shard_axis_ref){prev->name, false, 0, 0};
        back->axis = combined;
        if (e.prefix < back->prefix) back->prefix = e.prefix;
        continue;
      }
    }
    out->items[n++] = e;
  }
  out->len = n;
  return true;
}

static bool S_same_axes(const shard_axis_ref *a, uint32_t na, const shard_axis_ref *b, uint32_t nb) {
  if (na != nb) return false;
  for (uint32_t i = 0; i < na; i++)
    if (!shard_axis_equal(&a[i], &b[i])) return false;
  return true;
}

bool shard_sharding_equivalent_across_reshape(const shard_tensor_sharding *s1, const shard_type *t1,
                                              const shard_tensor_sharding *s2, const shard_type *t2,
                                              const shard_mesh *mesh, bool non_divisible) {
  if (!s1 || !s2) return false;
  if (shard_sharding_equal(s1, s2) && shard_type_equal(t1, t2)) return true;
  if (strcmp(s1->mesh_name ? s1->mesh_name : "", s2->mesh_name ? s2->mesh_name : "") != 0) return false;
  if (!S_same_axes(s1->replicated, s1->num_replicated, s2->replicated, s2->num_replicated)) return false;
  if (t1->encoding || t2->encoding || s1->rank != t1->rank || s2->rank != t2->rank) return false;
  axis_position_vec a = {0}, b = {0};
  bool same =
      S_positions(s1, t1, mesh, non_divisible, &a) && S_positions(s2, t2, mesh, non_divisible, &b) && a.len == b.len;
  for (uint32_t i = 0; same && i < a.len; i++)
    same = shard_axis_equal(&a.items[i].axis, &b.items[i].axis) &&
           (non_divisible ? a.items[i].prefix == b.items[i].prefix : S_near(a.items[i].stride, b.items[i].stride));
  SHARD_VEC_FREE(a);
  SHARD_VEC_FREE(b);
  return same;
}
