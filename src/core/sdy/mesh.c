/* Meshes: named axes with sizes, and an optional device order.
 *
 * A mesh with no explicit device ids orders its devices as iota(product of
 * axis sizes). Shardy's MeshAttr builder drops explicit ids that equal iota
 * (only when there are axes: <[], device_ids=[0]> is the maximal mesh of
 * device 0, not the empty mesh), so shard_mesh_canonicalize does the same and
 * the parser applies it to every mesh it builds. */
#include <string.h>

#include "sdy/sharding.h"

int shard_mesh_axis_index(const shard_mesh *m, const char *name) {
  /* Names parsed from one module are one copy each (the parser interns
   * them): the same pointer first, the text only then. A mesh's axis names
   * are distinct, so both passes find the same axis. */
  for (uint32_t i = 0; i < m->num_axes; i++)
    if (m->axes[i].name == name) return (int)i;
  for (uint32_t i = 0; i < m->num_axes; i++)
    if (strcmp(m->axes[i].name, name) == 0) return (int)i;
  return -1;
}

int64_t shard_mesh_axis_size(const shard_mesh *m, const char *name) {
  int i = shard_mesh_axis_index(m, name);
  return i < 0 ? -1 : m->axes[i].size;
}

int64_t shard_mesh_shard_index(const shard_mesh *m, int64_t device, const shard_axis_ref *axes, uint32_t n) {
  int64_t logical = device; /* the device's position in the mesh */
  for (uint32_t i = 0; m->device_ids && i < m->num_device_ids; i++)
    if (m->device_ids[i] == device) logical = i;
  int64_t index = 0;
  for (uint32_t k = 0; k < n; k++) {
    /* the device's coordinate along the axis, then the part of it the
     * (sub-)axis covers: the axis is the reshape [pre, size, stride] */
    int a = shard_mesh_axis_index(m, axes[k].name);
    if (a < 0) return 0;
    int64_t minor = 1, full = m->axes[a].size;
    for (uint32_t i = (uint32_t)a + 1; i < m->num_axes; i++) minor *= m->axes[i].size;
    int64_t size = shard_axis_size(&axes[k], m), span;
    if (size < 1 || full < 1 || minor < 1 || __builtin_mul_overflow(shard_axis_pre(&axes[k]), size, &span) ||
        span < 1 || full % span != 0)
      return 0; /* a ref the verifier rejects */
    int64_t coord = (logical / minor) % full;
    index = index * size + (coord / (full / span)) % size;
  }
  return index;
}

int64_t shard_mesh_num_devices(const shard_mesh *m) {
  int64_t prod = 1;
  for (uint32_t i = 0; i < m->num_axes; i++) {
    if (m->axes[i].size < 0 || __builtin_mul_overflow(prod, m->axes[i].size, &prod)) return -1;
  }
  return prod;
}

bool shard_mesh_is_maximal(const shard_mesh *m) { return m->num_axes == 0 && m->num_device_ids == 1; }

bool shard_mesh_is_empty(const shard_mesh *m) { return m->num_axes == 0 && m->num_device_ids == 0; }

static bool ids_are_iota(const int64_t *ids, uint32_t n, int64_t total) {
  if ((int64_t)n != total) return false;
  for (uint32_t i = 0; i < n; i++)
    if (ids[i] != (int64_t)i) return false;
  return true;
}

void shard_mesh_canonicalize(shard_mesh *m) {
  if (m->num_axes == 0 || !m->device_ids) return;
  if (ids_are_iota(m->device_ids, m->num_device_ids, shard_mesh_num_devices(m))) {
    m->device_ids = NULL;
    m->num_device_ids = 0;
  }
}

bool shard_mesh_same_axes(const shard_mesh *a, const shard_mesh *b) {
  if (a->num_axes != b->num_axes) return false;
  for (uint32_t i = 0; i < a->num_axes; i++) {
    if (strcmp(a->axes[i].name, b->axes[i].name) != 0 || a->axes[i].size != b->axes[i].size) return false;
  }
  return true;
}

/* Explicit iota ids and implicit ids mean the same order, so a mesh built in
 * code without canonicalising still compares equal to the parsed one. */
static bool has_implicit_order(const shard_mesh *m) {
  return m->num_device_ids == 0 ||
         (m->num_axes > 0 && ids_are_iota(m->device_ids, m->num_device_ids, shard_mesh_num_devices(m)));
}

bool shard_mesh_equal(const shard_mesh *a, const shard_mesh *b) {
  if (!shard_mesh_same_axes(a, b)) return false;
  bool ia = has_implicit_order(a), ib = has_implicit_order(b);
  if (ia || ib) return ia == ib;
  if (a->num_device_ids != b->num_device_ids) return false;
  for (uint32_t i = 0; i < a->num_device_ids; i++)
    if (a->device_ids[i] != b->device_ids[i]) return false;
  return true;
}

void shard_mesh_print(shard_buf *b, const shard_mesh *m) {
  shard_buf_puts(b, "<[");
  for (uint32_t i = 0; i < m->num_axes; i++) {
    if (i) shard_buf_puts(b, ", ");
    shard_buf_put_escaped(b, m->axes[i].name, strlen(m->axes[i].name));
    shard_buf_putc(b, '=');
    shard_buf_put_i64(b, m->axes[i].size);
  }
  shard_buf_putc(b, ']');
  if (m->num_device_ids) {
    shard_buf_puts(b, ", device_ids=[");
    for (uint32_t i = 0; i < m->num_device_ids; i++) {
      if (i) shard_buf_puts(b, ", ");
      shard_buf_put_i64(b, m->device_ids[i]);
    }
    shard_buf_putc(b, ']');
  }
  shard_buf_putc(b, '>');
}
