/* Collective costs: ring byte counts and the scaling-book time model.
 *
 * Bytes per device (nccl-tests' ring counts), V as in cost.h:
 *   all_gather, reduce_scatter  V(N-1)/N      all_reduce  2V(N-1)/N
 *   all_to_all                  V(N-1)/N^2    collective_permute  local shard
 *   all_slice                   0 (each device drops part of its shard)
 *
 * Time on a torus (scaling-book sharding.md). A group spans some physical dims, N_j devices
 * on dim j; with wraparound a dim carries W_ici (bidirectional) and a
 * gather takes V/W_ici whatever N_j is; without wraparound the ring is a
 * line and "(N-1) * shard_bytes / W_uni" (Pop Quiz 2) makes the dim's
 * effective bandwidth W_ici*N_j/(2(N_j-1)). Dims add their bandwidths
 * ("increases the available bandwidth by a factor of N_axes"), so
 *   all_gather, reduce_scatter  max(T_min * sum hops_j, V / sum W_eff_j)
 *   all_reduce                  twice that
 *   all_to_all                  V * max_j N_j / (4 N W_ici), doubled without
 *                               wraparound (bisection argument)
 *   collective_permute          local shard over one link, one direction
 * with hops_j = N_j/2 on a ring and N_j-1 on a line.
 *
 * Time on NVLink nodes joined by InfiniBand (scaling-book gpus.md):
 *   inside one node   all_gather/reduce_scatter V(N-1)/(N W_gpu),
 *                     all_to_all V(N-1)/(N^2 W_gpu)
 *   across nodes      V(N-1)/N * max(1/W_gpu, s/W_node), all_to_all
 *                     V(M-1)/(M^2) * s/W_node over M nodes, where s is the
 *                     number of groups sharing one node's network links
 *   all_reduce        twice all_gather (no in-network reduction)
 * and latency (N-1) steps of alpha. The parts no source states
 * (no-wraparound dims combined, s) are ours; hand-worked examples are
 * reproduced by tests/unit/test_cost.c. */
#include "cost/cost.h"

#include <stdlib.h>
#include <string.h>

#include "support/arena.h"
#include "ir/type.h"

static const char *const kind_names[] = {"all_gather",         "all_slice",  "all_to_all",
                                         "collective_permute", "all_reduce", "reduce_scatter"};

const char *shard_collective_kind_name(shard_collective_kind k) {
  return (unsigned)k < sizeof kind_names / sizeof kind_names[0] ? kind_names[k] : "?";
}

bool shard_collective_kind_from_op(const char *op_name, shard_collective_kind *out) {
  if (strncmp(op_name, "sdy.", 4) != 0) return false;
  for (unsigned i = 0; i < sizeof kind_names / sizeof kind_names[0]; i++)
    if (strcmp(op_name + 4, kind_names[i]) == 0) {
      *out = (shard_collective_kind)i;
      return true;
    }
  return false;
}

/* ---- placing a group ------------------------------------------------------ */

/* The stride range [lo, hi) an axis ref covers in the row-major device
 * index of the mesh. False for an axis the mesh lacks. */
static bool axis_stride_range(const shard_mesh *mesh, const shard_axis_ref *r, int64_t *lo, int64_t *hi) {
  int idx = shard_mesh_axis_index(mesh, r->name);
  if (idx < 0) return false;
  int64_t stride = 1;
  for (uint32_t i = (uint32_t)idx + 1; i < mesh->num_axes; i++) stride *= mesh->axes[i].size;
  int64_t full = mesh->axes[idx].size;
  int64_t pre = 1, size = full;
  if (r->is_sub) {
    pre = r->pre_size;
    size = r->size;
  }
  if (pre <= 0 || size <= 0 || full % (pre * size) != 0) return false;
  *lo = stride * (full / (pre * size));
  *hi = *lo * size;
  return true;
}

/* Measuring groups costs O(devices); beyond this many the row-major model
 * stands in. */
#define SHARD_PLACE_MAX_MEASURED 65536

/* Explicit ids that are a permutation-sized list of devices the topology has. */
static bool S_has_usable_ids(const shard_topology *t, const shard_mesh *mesh, int64_t total) {
  if (!mesh->device_ids || total <= 1 || total > SHARD_PLACE_MAX_MEASURED || mesh->num_device_ids != (uint64_t)total)
    return false;
  int64_t have = shard_topology_num_devices(t);
  for (int64_t d = 0; d < total; d++)
    if (mesh->device_ids[d] < 0 || mesh->device_ids[d] >= have) return false;
  return true;
}

/* How many of the devices in [lo, hi) a range of [dlo, dhi) strides holds. */
static int64_t overlap_factor(int64_t lo, int64_t hi, int64_t dlo, int64_t dhi) {
  int64_t a = lo > dlo ? lo : dlo, b = hi < dhi ? hi : dhi;
  return b > a ? b / a : 1;
}

/* The mesh digit of device index d within the stride range [lo, hi). */
static int64_t range_digit(int64_t d, int64_t lo, int64_t hi) { return (d / lo) % (hi / lo); }

/* Explicit device ids scatter a group over the topology as the ids say, not
 * as the mesh's row-major order does: measure every group. Each group is
 * the set of mesh indices that agree outside the ranges [lo[k], hi[k]); its
 * extent on a torus dim is the number of distinct coordinates its devices
 * take there, and the placement keeps the largest extent of any group (the
 * slowest group finishes last). On switched nodes: the most nodes any group
 * spans, and the most members any group has in one node. */
static void place_by_ids(const shard_topology *t, const shard_mesh *mesh, const int64_t *lo, const int64_t *hi,
                         uint32_t n, int64_t total, shard_group_placement *out) {
  int64_t *group = shard_xmalloc(sizeof *group * (size_t)total);
  int64_t num_groups = 0;
  int64_t *key_group = shard_xmalloc(sizeof *key_group * (size_t)total);
  for (int64_t d = 0; d < total; d++) key_group[d] = -1;
  for (int64_t d = 0; d < total; d++) {
    int64_t key = d;
    for (uint32_t k = 0; k < n; k++) key -= range_digit(d, lo[k], hi[k]) * lo[k];
    if (key_group[key] < 0) key_group[key] = num_groups++;
    group[d] = key_group[key];
  }
  free(key_group);
  if (t->kind == SHARD_TOPO_TORUS) {
    int64_t stride = 1;
    for (uint32_t j = t->num_dims; j-- > 0;) {
      int64_t dim = t->dims[j];
      bool *seen = shard_xcalloc((size_t)(num_groups * dim), 1);
      int64_t *count = shard_xcalloc((size_t)num_groups, sizeof *count);
      int64_t widest = 1;
      for (int64_t d = 0; d < total; d++) {
        int64_t c = (mesh->device_ids[d] / stride) % dim;
        bool *slot = &seen[group[d] * dim + c];
        if (!*slot && ++count[group[d]] > widest) widest = count[group[d]];
        *slot = true;
      }
      if (widest > 1) {
        out->part_size[out->num_parts] = widest;
        out->part_wrap[out->num_parts] = t->wrap[j] && widest == dim;
        out->num_parts++;
      }
      stride *= dim;
      free(seen);
      free(count);
    }
    /* parts were collected minor to major; the formulas do not care, but
     * keep the major-to-minor order shard_group_place documents */
    for (uint32_t i = 0; i < out->num_parts / 2; i++) {
      uint32_t k = out->num_parts - 1 - i;
      int64_t ps = out->part_size[i];
      bool pw = out->part_wrap[i];
      out->part_size[i] = out->part_size[k];
      out->part_wrap[i] = out->part_wrap[k];
      out->part_size[k] = ps;
      out->part_wrap[k] = pw;
    }
  } else {
    int64_t per = t->devices_per_node, nodes = (t->num_devices + per - 1) / per;
    int64_t *in_node = shard_xcalloc((size_t)(num_groups * nodes), sizeof *in_node);
    int64_t *spans = shard_xcalloc((size_t)num_groups, sizeof *spans);
    for (int64_t d = 0; d < total; d++) {
      int64_t *slot = &in_node[group[d] * nodes + mesh->device_ids[d] / per];
      if ((*slot)++ == 0) spans[group[d]]++;
      if (*slot > out->per_node) out->per_node = *slot;
    }
    for (int64_t g = 0; g < num_groups; g++)
      if (spans[g] > out->nodes) out->nodes = spans[g];
    free(in_node);
    free(spans);
  }
  free(group);
}

void shard_group_place(const shard_topology *t, const shard_mesh *mesh, const shard_axis_ref *axes, uint32_t num_axes,
                       shard_group_placement *out) {
  memset(out, 0, sizeof *out);
  out->size = 1;
  out->per_node = 1;
  out->nodes = 1;
  out->sharing = 1;
  int64_t dim_factor[SHARD_TOPO_MAX_DIMS];
  for (uint32_t j = 0; j < SHARD_TOPO_MAX_DIMS; j++) dim_factor[j] = 1;
  for (uint32_t k = 0; k < num_axes; k++) {
    int64_t lo, hi;
    if (!axis_stride_range(mesh, &axes[k], &lo, &hi)) continue;
    out->size *= hi / lo;
    if (!t) continue;
    if (t->kind == SHARD_TOPO_TORUS) {
      int64_t stride = 1;
      for (uint32_t j = t->num_dims; j-- > 0;) {
        dim_factor[j] *= overlap_factor(lo, hi, stride, stride * t->dims[j]);
        stride *= t->dims[j];
      }
      /* Mesh devices beyond the topology: the caller validated the count,
       * so this only happens for a bigger-than-topology mesh; ignore. */
    } else {
      out->per_node *= overlap_factor(lo, hi, 1, t->devices_per_node);
      out->nodes *= overlap_factor(lo, hi, t->devices_per_node, INT64_MAX);
    }
  }
  if (!t) return;
  int64_t total = shard_mesh_num_devices(mesh);
  if (S_has_usable_ids(t, mesh, total)) {
    int64_t *lo = shard_xcalloc(2 * (size_t)num_axes + 1, sizeof(int64_t)), *hi = lo + num_axes;
    uint32_t n = 0;
    for (uint32_t k = 0; k < num_axes; k++)
      if (axis_stride_range(mesh, &axes[k], &lo[n], &hi[n])) n++;
    out->per_node = 1;
    out->nodes = 1;
    place_by_ids(t, mesh, lo, hi, n, total, out);
    free(lo);
  } else if (t->kind == SHARD_TOPO_TORUS) {
    for (uint32_t j = 0; j < t->num_dims; j++)
      if (dim_factor[j] > 1) {
        out->part_size[out->num_parts] = dim_factor[j];
        out->part_wrap[out->num_parts] = t->wrap[j] && dim_factor[j] == t->dims[j];
        out->num_parts++;
      }
  }
  if (t->kind != SHARD_TOPO_TORUS) {
    int64_t in_node = t->devices_per_node;
    if (in_node > t->num_devices) in_node = t->num_devices;
    out->sharing = out->nodes > 1 && in_node >= out->per_node ? in_node / out->per_node : 1;
  }
}

/* ---- time ------------------------------------------------------------------ */

static double torus_gather_seconds(const shard_topology *t, const shard_group_placement *g, double volume,
                                   bool *latency_bound) {
  double bw = 0, hops = 0;
  for (uint32_t j = 0; j < g->num_parts; j++) {
    double n = (double)g->part_size[j];
    if (g->part_wrap[j]) {
      bw += t->link_bw;
      hops += (double)(g->part_size[j] / 2);
    } else {
      bw += t->link_bw * n / (2.0 * (n - 1.0));
      hops += n - 1.0;
    }
  }
  double lat = t->hop_latency * hops, thr = volume / bw;
  *latency_bound = lat > thr;
  return lat > thr ? lat : thr;
}

static double torus_seconds(const shard_topology *t, shard_collective_kind kind, const shard_group_placement *g,
                            double volume, bool *latency_bound) {
  switch (kind) {
  case SHARD_COLL_ALL_GATHER:
  case SHARD_COLL_REDUCE_SCATTER: return torus_gather_seconds(t, g, volume, latency_bound);
  case SHARD_COLL_ALL_REDUCE: return 2.0 * torus_gather_seconds(t, g, volume, latency_bound);
  case SHARD_COLL_ALL_TO_ALL: {
    int64_t longest = 1;
    bool all_wrap = true;
    double hops = 0;
    for (uint32_t j = 0; j < g->num_parts; j++) {
      if (g->part_size[j] > longest) longest = g->part_size[j];
      all_wrap &= g->part_wrap[j];
      hops += g->part_wrap[j] ? (double)(g->part_size[j] / 2) : (double)(g->part_size[j] - 1);
    }
    double thr = volume * (double)longest / (4.0 * (double)g->size * t->link_bw);
    if (!all_wrap) thr *= 2.0;
    double lat = t->hop_latency * hops;
    *latency_bound = lat > thr;
    return lat > thr ? lat : thr;
  }
  case SHARD_COLL_COLLECTIVE_PERMUTE: {
    double thr = volume / (t->link_bw / 2.0), lat = t->hop_latency;
    *latency_bound = lat > thr;
    return lat > thr ? lat : thr;
  }
  case SHARD_COLL_ALL_SLICE: break;
  }
  return 0;
}

static double switched_seconds(const shard_topology *t, shard_collective_kind kind, const shard_group_placement *g,
                               double volume, bool *latency_bound) {
  double n = (double)g->size, m = (double)g->nodes, s = (double)g->sharing;
  bool cross = g->nodes > 1;
  double lat = t->intra_latency * (double)(g->per_node - 1) + t->inter_latency * (double)(g->nodes - 1);
  double thr = 0;
  switch (kind) {
  case SHARD_COLL_ALL_GATHER:
  case SHARD_COLL_REDUCE_SCATTER:
  case SHARD_COLL_ALL_REDUCE: {
    double per_byte = 1.0 / t->gpu_bw;
    if (cross && s / t->node_bw > per_byte) per_byte = s / t->node_bw;
    thr = volume * (n - 1.0) / n * per_byte;
    if (kind == SHARD_COLL_ALL_REDUCE) {
      thr *= 2.0;
      lat *= 2.0;
    }
    break;
  }
  case SHARD_COLL_ALL_TO_ALL:
    thr = volume * (n - 1.0) / (n * n * t->gpu_bw);
    if (cross) {
      double across = volume * (m - 1.0) / (m * m) * s / t->node_bw;
      if (across > thr) thr = across;
    }
    break;
  case SHARD_COLL_COLLECTIVE_PERMUTE:
    thr = volume / (cross ? t->node_bw / s : t->gpu_bw);
    lat = cross ? t->inter_latency : t->intra_latency;
    break;
  case SHARD_COLL_ALL_SLICE: return 0;
  }
  *latency_bound = lat > thr;
  return lat > thr ? lat : thr;
}

double shard_collective_seconds(const shard_topology *t, shard_collective_kind kind, const shard_group_placement *g,
                                double volume, bool *latency_bound) {
  bool ignored;
  if (!latency_bound) latency_bound = &ignored;
  *latency_bound = false;
  if (!t || kind == SHARD_COLL_ALL_SLICE || volume <= 0) return 0;
  if (g->size <= 1 && kind != SHARD_COLL_COLLECTIVE_PERMUTE) return 0;
  if (t->kind == SHARD_TOPO_TORUS) {
    if (g->num_parts == 0 && kind != SHARD_COLL_COLLECTIVE_PERMUTE) return 0;
    return torus_seconds(t, kind, g, volume, latency_bound);
  }
  return switched_seconds(t, kind, g, volume, latency_bound);
}

/* ---- bytes ------------------------------------------------------------------- */

void shard_collective_bytes(shard_collective_kind kind, int64_t n, double local_in_bytes, double local_out_bytes,
                            double *volume, double *sent, double *recv) {
  double dn = n > 0 ? (double)n : 1.0, v = local_in_bytes, moved = 0;
  switch (kind) {
  case SHARD_COLL_ALL_GATHER:
    v = local_out_bytes;
    moved = v * (dn - 1.0) / dn;
    break;
  case SHARD_COLL_REDUCE_SCATTER: moved = v * (dn - 1.0) / dn; break;
  case SHARD_COLL_ALL_REDUCE: moved = 2.0 * v * (dn - 1.0) / dn; break;
  case SHARD_COLL_ALL_TO_ALL:
    v = local_in_bytes * dn;
    moved = v * (dn - 1.0) / (dn * dn);
    break;
  case SHARD_COLL_COLLECTIVE_PERMUTE: moved = v; break;
  case SHARD_COLL_ALL_SLICE: break;
  }
  *volume = v;
  *sent = moved;
  *recv = moved;
}

void shard_collective_cost_compute(const shard_topology *t, const shard_mesh *mesh, shard_collective_kind kind,
                                   const shard_axis_ref *axes, uint32_t num_axes, double local_in_bytes,
                                   double local_out_bytes, shard_collective_cost *out) {
  memset(out, 0, sizeof *out);
  shard_group_place(t, mesh, axes, num_axes, &out->placement);
  out->group_size = out->placement.size;
  int64_t total = shard_mesh_num_devices(mesh);
  out->num_groups = out->group_size > 0 && total > 0 ? total / out->group_size : 1;
  shard_collective_bytes(kind, out->group_size, local_in_bytes, local_out_bytes, &out->volume, &out->bytes_sent,
                         &out->bytes_recv);
  /* A group of one device (axes of size 1) moves nothing. */
  if (out->group_size <= 1) out->bytes_sent = out->bytes_recv = 0;
  if (out->bytes_sent > 0)
    out->seconds = shard_collective_seconds(t, kind, &out->placement, out->volume, &out->latency_bound);
}

double shard_tensor_bytes(const int64_t *shape, uint32_t rank, const char *elem) {
  unsigned bits = shard_elem_bits(elem);
  if (bits == 0) return -1;
  double n = 1;
  for (uint32_t i = 0; i < rank; i++) {
    if (shape[i] == SHARD_DYNAMIC_DIM || shape[i] < 0) return -1;
    n *= (double)shape[i];
  }
  double bytes = n * bits / 8.0;
  double whole = (double)(int64_t)bytes;
  return whole < bytes ? whole + 1 : whole;
}
