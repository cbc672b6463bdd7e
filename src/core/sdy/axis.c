/* Axis references and the sub-axis algebra.
 *
 * An axis ref is either a full mesh axis "x" or a sub-axis "x":(m)k: the
 * axis of size n is viewed as the reshape [m, k, n/(m*k)] and the ref names
 * the middle factor. Every question here (overlap, containment, merging,
 * order) reduces to comparing the half-open ranges [pre, pre*size) of two
 * refs of the same axis, where a full axis is the range [1, n). Functions
 * take the values as parsed: they never validate sizes (the verifier does),
 * and they never touch the mesh when the answer doesn't depend on it. */
#include <string.h>

#include "sdy/sharding.h"

/* Pointer first: refs copied from one another share their name string. */
static bool same_name(const shard_axis_ref *a, const shard_axis_ref *b) {
  return a->name == b->name || strcmp(a->name, b->name) == 0;
}

/* Pre-size of a ref: 1 for the full axis. */
static int64_t pre_size(const shard_axis_ref *r) { return r->is_sub ? r->pre_size : 1; }

/* End of a sub-axis range, pre*size, saturated: parsed values are not yet
 * verified, and an overflow must not turn into undefined behaviour. */
static int64_t range_end(const shard_axis_ref *r) {
  int64_t end;
  if (__builtin_mul_overflow(r->pre_size, r->size, &end)) return INT64_MAX;
  return end;
}

int64_t shard_axis_size(const shard_axis_ref *r, const shard_mesh *m) {
  if (r->is_sub) return r->size;
  return m ? shard_mesh_axis_size(m, r->name) : -1;
}

void shard_axis_range(const shard_axis_ref *r, const shard_mesh *m, int64_t *pre, int64_t *size) {
  *pre = pre_size(r);
  *size = shard_axis_size(r, m);
}

bool shard_axis_equal(const shard_axis_ref *a, const shard_axis_ref *b) {
  if (!same_name(a, b) || a->is_sub != b->is_sub) return false;
  return !a->is_sub || (a->pre_size == b->pre_size && a->size == b->size);
}

bool shard_axis_overlaps(const shard_axis_ref *a, const shard_axis_ref *b, const shard_mesh *m) {
  (void)m;
  if (!same_name(a, b)) return false;
  if (!a->is_sub || !b->is_sub) return true; /* a full axis overlaps every part of itself */
  return a->pre_size < range_end(b) && b->pre_size < range_end(a);
}

bool shard_axis_contains(const shard_axis_ref *a, const shard_axis_ref *b, const shard_mesh *m) {
  (void)m;
  if (!same_name(a, b)) return false;
  if (!a->is_sub) return true;
  if (!b->is_sub) return false;
  return a->pre_size <= b->pre_size && range_end(a) >= range_end(b);
}

bool shard_axis_can_merge(const shard_axis_ref *a, const shard_axis_ref *b) {
  if (!same_name(a, b) || !a->is_sub || !b->is_sub) return false;
  return range_end(a) == b->pre_size;
}

shard_axis_ref shard_axis_merge(const shard_axis_ref *a, const shard_axis_ref *b, const shard_mesh *m) {
  shard_axis_ref r = *a;
  if (__builtin_mul_overflow(a->size, b->size, &r.size)) r.size = INT64_MAX;
  /* Shardy never keeps a sub-axis that spans its whole axis. */
  if (m && r.pre_size == 1 && shard_mesh_axis_size(m, a->name) == r.size) {
    r.is_sub = false;
    r.pre_size = 0;
    r.size = 0;
  }
  return r;
}

bool shard_axis_is_prefix_of(const shard_axis_ref *a, const shard_axis_ref *b, const shard_mesh *m) {
  return shard_axis_contains(b, a, m) && pre_size(a) == pre_size(b);
}

/* AxisRefAttr::operator< for two refs of the same axis: sub-axes by
 * (pre-size, size); the full axis sits after the sub-axes that start at 1 and
 * before those that start later. */
static bool same_axis_less(const shard_axis_ref *a, const shard_axis_ref *b) {
  if (!a->is_sub) return b->is_sub && b->pre_size > 1;
  if (!b->is_sub) return a->pre_size == 1;
  if (a->pre_size != b->pre_size) return a->pre_size < b->pre_size;
  return a->size < b->size;
}

int shard_axis_compare(const shard_axis_ref *a, const shard_axis_ref *b, const shard_mesh *m) {
  if (!same_name(a, b)) {
    int ia = m ? shard_mesh_axis_index(m, a->name) : -1;
    int ib = m ? shard_mesh_axis_index(m, b->name) : -1;
    /* Mesh order first; names the mesh lacks go last (as in Shardy's mesh
     * comparator), ordered among themselves by name so sorting stays total. */
    if (ia >= 0 && ib >= 0) return ia < ib ? -1 : 1;
    if (ia >= 0) return -1;
    if (ib >= 0) return 1;
    return strcmp(a->name, b->name) < 0 ? -1 : 1;
  }
  if (same_axis_less(a, b)) return -1;
  if (same_axis_less(b, a)) return 1;
  return 0;
}

void shard_axis_print(shard_buf *b, const shard_axis_ref *r) {
  shard_buf_put_escaped(b, r->name, strlen(r->name));
  if (r->is_sub)
    shard_buf_printf(b, ":(%lld)%lld", (long long)r->pre_size, (long long)r->size);
}

void shard_axis_list_print(shard_buf *b, const shard_axis_ref *axes, uint32_t n) {
  shard_buf_putc(b, '{');
  for (uint32_t i = 0; i < n; i++) {
    if (i) shard_buf_puts(b, ", ");
    shard_axis_print(b, &axes[i]);
  }
  shard_buf_putc(b, '}');
}

int64_t shard_axes_product(const shard_axis_ref *axes, uint32_t n, const shard_mesh *m) {
  int64_t prod = 1;
  for (uint32_t i = 0; i < n; i++) {
    int64_t s = shard_axis_size(&axes[i], m);
    if (s < 0) return -1;
    if (s != 0 && prod > INT64_MAX / s) return -1;
    prod *= s;
  }
  return prod;
}
