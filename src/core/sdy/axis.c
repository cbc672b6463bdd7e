/* Axis references and the sub-axis algebra.
 *
 * An axis ref is either a full mesh axis "x" or a sub-axis "x":(m)k: the
 * axis of size n is viewed as the reshape [m, k, n/(m*k)] and the ref names
 * the middle factor. Every question here (overlap, containment, merging,
 * order) reduces to comparing the half-open ranges [pre, pre*size) of two
 * refs of the same axis, where a full axis is the range [1, n). Functions
 * take the values as parsed: they never validate sizes (the verifier does),
 * and they never touch the mesh when the answer doesn't depend on it. */
#include <stdlib.h>
#include <string.h>

#include "sdy/sharding.h"

/* Pointer first: refs copied from one another share their name string.
 * Then the first byte, which tells most different (short) axis names apart
 * without a call. */
static bool same_name(const shard_axis_ref *a, const shard_axis_ref *b) {
  if (a->name == b->name) return true;
  return a->name[0] == b->name[0] && strcmp(a->name, b->name) == 0;
}

/* End of a sub-axis range, pre*size, saturated: parsed values are not yet
 * verified, and an overflow must not turn into undefined behaviour. */
static int64_t range_end(const shard_axis_ref *r) {
  int64_t end;
  if (__builtin_mul_overflow(r->pre_size, r->size, &end)) return INT64_MAX;
  return end;
}

int64_t shard_axis_end(const shard_axis_ref *r, const shard_mesh *m) {
  return r->is_sub ? range_end(r) : shard_axis_size(r, m);
}

shard_axis_ref shard_axis_sub(const char *name, int64_t pre, int64_t size) {
  shard_axis_ref r = {name, true, pre, size};
  return r;
}

int64_t shard_axis_size(const shard_axis_ref *r, const shard_mesh *m) {
  if (r->is_sub) return r->size;
  return m ? shard_mesh_axis_size(m, r->name) : -1;
}

void shard_axis_range(const shard_axis_ref *r, const shard_mesh *m, int64_t *pre, int64_t *size) {
  *pre = shard_axis_pre(r);
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
  return shard_axis_contains(b, a, m) && shard_axis_pre(a) == shard_axis_pre(b);
}

bool shard_axis_is_suffix_of(const shard_axis_ref *a, const shard_axis_ref *b, const shard_mesh *m) {
  return shard_axis_contains(b, a, m) && shard_axis_end(a, m) == shard_axis_end(b, m);
}

bool shard_axis_can_coexist(const shard_axis_ref *a, const shard_axis_ref *b) {
  if (!same_name(a, b) || !a->is_sub || !b->is_sub) return true;
  int64_t a_end = range_end(a), b_end = range_end(b);
  int64_t min_pre = a->pre_size < b->pre_size ? a->pre_size : b->pre_size;
  int64_t max_pre = a->pre_size < b->pre_size ? b->pre_size : a->pre_size;
  int64_t min_end = a_end < b_end ? a_end : b_end, max_end = a_end < b_end ? b_end : a_end;
  if (min_pre <= 0 || min_end <= 0) return false;
  if (min_end > max_pre) return min_end % max_pre == 0 && max_pre % min_pre == 0 && max_end % min_end == 0;
  return max_pre % min_end == 0;
}

bool shard_axis_prefix_without_overlap(const shard_axis_ref *a, const shard_axis_ref *b, shard_axis_ref *out) {
  /* Refs of different axes always coexist and never overlap: one name
   * comparison instead of one in each check below. */
  if (!same_name(a, b)) {
    *out = *a;
    return true;
  }
  if (!shard_axis_can_coexist(a, b)) return false;
  if (!shard_axis_overlaps(a, b, NULL)) {
    *out = *a;
    return true;
  }
  int64_t a_pre = shard_axis_pre(a), b_pre = shard_axis_pre(b);
  if (a_pre >= b_pre) return false;
  *out = shard_axis_sub(a->name, a_pre, b_pre / a_pre);
  return true;
}

bool shard_axis_prefix_without_overlap_list(const shard_axis_ref *a, const shard_axis_ref *others, uint32_t n,
                                            shard_axis_ref *out) {
  shard_axis_ref r = *a;
  for (uint32_t i = 0; i < n; i++)
    if (!shard_axis_prefix_without_overlap(&r, &others[i], &r)) return false;
  *out = r;
  return true;
}

bool shard_axis_suffix_without_overlap(const shard_axis_ref *a, const shard_axis_ref *b, const shard_mesh *m,
                                       shard_axis_ref *out) {
  if (!shard_axis_can_coexist(a, b)) return false;
  if (!shard_axis_overlaps(a, b, m)) {
    *out = *a;
    return true;
  }
  int64_t a_end = shard_axis_end(a, m), b_end = shard_axis_end(b, m);
  if (a_end <= b_end || b_end <= 0) return false;
  *out = shard_axis_sub(a->name, b_end, a_end / b_end);
  return true;
}

bool shard_axis_common_prefix(const shard_axis_ref *a, const shard_axis_ref *b, shard_axis_ref *out) {
  if (!shard_axis_can_coexist(a, b)) return false;
  if (shard_axis_is_prefix_of(a, b, NULL)) *out = *a;
  else if (shard_axis_is_prefix_of(b, a, NULL)) *out = *b;
  else return false;
  return true;
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
  if (r->is_sub) {
    shard_buf_puts(b, ":(");
    shard_buf_put_i64(b, r->pre_size);
    shard_buf_putc(b, ')');
    shard_buf_put_i64(b, r->size);
  }
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

bool shard_axes_equal(const shard_axis_ref *a, uint32_t na, const shard_axis_ref *b, uint32_t nb) {
  if (na != nb) return false;
  for (uint32_t i = 0; i < na; i++)
    if (!shard_axis_equal(&a[i], &b[i])) return false;
  return true;
}

/* shard_axis_compare as a key, so that sorting is one qsort without the mesh:
 * mesh axis index (names the mesh lacks last, by name), then (pre, size) with
 * the full axis as (1, +inf). */
typedef struct keyed_ref {
  int64_t index, pre, size;
  shard_axis_ref ref;
} keyed_ref;

static int keyed_cmp(const void *pa, const void *pb) {
  const keyed_ref *a = pa, *b = pb;
  if (a->index != b->index) return a->index < b->index ? -1 : 1;
  if (a->index == INT64_MAX) {
    int c = strcmp(a->ref.name, b->ref.name);
    if (c) return c;
  }
  if (a->pre != b->pre) return a->pre < b->pre ? -1 : 1;
  if (a->size != b->size) return a->size < b->size ? -1 : 1;
  return 0;
}

uint32_t shard_axes_sort_and_merge(shard_axis_ref *axes, uint32_t n, const shard_mesh *m) {
  if (n < 2) return n;
  keyed_ref *k = shard_xmalloc(sizeof *k * n);
  for (uint32_t i = 0; i < n; i++) {
    int index = m ? shard_mesh_axis_index(m, axes[i].name) : -1;
    k[i].index = index < 0 ? INT64_MAX : index;
    k[i].pre = shard_axis_pre(&axes[i]);
    k[i].size = axes[i].is_sub ? axes[i].size : INT64_MAX;
    k[i].ref = axes[i];
  }
  qsort(k, n, sizeof *k, keyed_cmp);
  uint32_t out = 0;
  axes[0] = k[0].ref;
  for (uint32_t i = 1; i < n; i++) {
    if (shard_axis_can_merge(&axes[out], &k[i].ref)) axes[out] = shard_axis_merge(&axes[out], &k[i].ref, m);
    else axes[++out] = k[i].ref;
  }
  free(k);
  return out + 1;
}

int64_t shard_gcd(int64_t a, int64_t b) {
  /* In uint64_t: |INT64_MIN| does not fit in an int64_t. */
  uint64_t x = a < 0 ? 0 - (uint64_t)a : (uint64_t)a, y = b < 0 ? 0 - (uint64_t)b : (uint64_t)b;
  while (y) {
    uint64_t t = x % y;
    x = y;
    y = t;
  }
  return x > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)x;
}

/* ---- cuts ------------------------------------------------------------------ */

static void cuts_push(shard_axis_cuts *c, int64_t x) {
  if (c->n == c->cap) {
    c->cap = c->cap ? c->cap * 2 : 8;
    c->at = shard_xrealloc(c->at, sizeof *c->at * c->cap);
  }
  c->at[c->n++] = x;
}

void shard_axis_cuts_init(shard_axis_cuts *c, const char *name, int64_t size) {
  memset(c, 0, sizeof *c);
  c->name = name;
  c->size = size;
  cuts_push(c, 1);
  cuts_push(c, size);
}

void shard_axis_cuts_add(shard_axis_cuts *c, const shard_axis_ref *refs, uint32_t n) {
  for (uint32_t i = 0; i < n; i++) {
    const shard_axis_ref *r = &refs[i];
    int64_t end;
    if (!r->is_sub || strcmp(r->name, c->name) != 0 || r->pre_size < 1 || r->size < 1 ||
        __builtin_mul_overflow(r->pre_size, r->size, &end))
      continue;
    cuts_push(c, r->pre_size);
    cuts_push(c, end);
  }
}

static int cmp_i64(const void *pa, const void *pb) {
  int64_t a = *(const int64_t *)pa, b = *(const int64_t *)pb;
  return a < b ? -1 : a > b;
}

uint32_t shard_axis_cuts_finish(shard_axis_cuts *c) {
  qsort(c->at, c->n, sizeof *c->at, cmp_i64);
  uint32_t k = 0;
  for (uint32_t i = 0; i < c->n; i++)
    if (k == 0 || c->at[k - 1] != c->at[i]) c->at[k++] = c->at[i];
  c->n = k;
  return k ? k - 1 : 0;
}

shard_axis_ref shard_axis_cuts_piece(const shard_axis_cuts *c, uint32_t k) {
  if (c->n <= 2) return (shard_axis_ref){c->name, false, 0, 0};
  return shard_axis_sub(c->name, c->at[k], c->at[k] ? c->at[k + 1] / c->at[k] : 0);
}

bool shard_axis_cuts_piece_in(const shard_axis_cuts *c, uint32_t k, const shard_axis_ref *r) {
  if (strcmp(r->name, c->name) != 0) return false;
  int64_t lo = shard_axis_pre(r), hi = r->is_sub ? range_end(r) : c->size;
  return c->at[k] >= lo && c->at[k + 1] <= hi;
}

int64_t shard_axis_cuts_misfit(const shard_axis_cuts *c) {
  for (uint32_t k = 0; k + 1 < c->n; k++)
    if (c->at[k] <= 0 || c->at[k + 1] % c->at[k] != 0) return k;
  return -1;
}

void shard_axis_cuts_free(shard_axis_cuts *c) {
  free(c->at);
  c->at = NULL;
  c->n = c->cap = 0;
}
