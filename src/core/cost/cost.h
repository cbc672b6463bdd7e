/* What one collective costs: bytes each device sends and receives, and an
 * estimate of the time it takes on a topology (topology.h).
 *
 * Bytes are the ring algorithm's (the optimal counts of NVIDIA's
 * nccl-tests doc/PERFORMANCE.md); times are jax-ml/scaling-book's
 * throughput/latency model for TPU tori (sharding.md) and NVLink/InfiniBand
 * nodes (gpus.md), the larger of the latency and the bandwidth term.
 *
 * A collective runs over mesh axes; the devices that differ only in those
 * axes form one group and all groups run at once. Mesh devices are taken to
 * be topology devices in order (implicit device ids); mesh axes and
 * physical dims are both row-major over that order, which says which
 * physical dims (torus) or how many nodes (switched) a group spans. */
#ifndef SHARD_COST_H
#define SHARD_COST_H

#include <stdbool.h>
#include <stdint.h>

#include "sdy/sharding.h"
#include "cost/topology.h"

typedef enum shard_collective_kind {
  SHARD_COLL_ALL_GATHER,
  SHARD_COLL_ALL_SLICE,
  SHARD_COLL_ALL_TO_ALL,
  SHARD_COLL_COLLECTIVE_PERMUTE,
  SHARD_COLL_ALL_REDUCE,
  SHARD_COLL_REDUCE_SCATTER
} shard_collective_kind;

/* "all_gather", "all_slice", ... (the sdy op name without "sdy."). */
const char *shard_collective_kind_name(shard_collective_kind k);
/* "sdy.all_gather" -> SHARD_COLL_ALL_GATHER; false for other ops. */
bool shard_collective_kind_from_op(const char *op_name, shard_collective_kind *out);

/* Where one group of a collective sits on the topology. */
typedef struct shard_group_placement {
  int64_t size; /* N: devices in one group */
  /* torus: the physical dims the group spans (N = product of part_size) */
  uint32_t num_parts;
  int64_t part_size[SHARD_TOPO_MAX_DIMS];
  bool part_wrap[SHARD_TOPO_MAX_DIMS]; /* the group is a full dim with wraparound */
  /* switched */
  int64_t per_node; /* group members inside one node */
  int64_t nodes; /* nodes the group spans */
  int64_t sharing; /* groups sharing one node's network links */
} shard_group_placement;

/* Places the group of devices that differ only in `axes` (mesh axis refs,
 * sub-axes allowed) on the topology. Axes unknown to the mesh count as 1. */
void shard_group_place(const shard_topology *t, const shard_mesh *mesh, const shard_axis_ref *axes, uint32_t num_axes,
                       shard_group_placement *out);

/* Time in seconds of a collective whose formula volume is V bytes (see
 * shard_collective_cost.volume) on a placed group. 0 for a group of one
 * device and for all_slice. *latency_bound (may be NULL) tells which term won. */
double shard_collective_seconds(const shard_topology *t, shard_collective_kind kind, const shard_group_placement *g,
                                double volume, bool *latency_bound);

typedef struct shard_collective_cost {
  int64_t group_size, num_groups;
  /* V of the formulas: all_gather the gathered array (output), reduce_scatter
   * and all_reduce the reduced array (input), all_to_all the group's whole
   * array (input x N), collective_permute and all_slice the local input. */
  double volume;
  double bytes_sent, bytes_recv; /* per device */
  double seconds; /* estimated time; 0 when no topology */
  bool latency_bound;
  shard_group_placement placement;
} shard_collective_cost;

/* Bytes per device only: ring counts for a group of n devices. */
void shard_collective_bytes(shard_collective_kind kind, int64_t n, double local_in_bytes, double local_out_bytes,
                            double *volume, double *sent, double *recv);

/* The cost of one collective over `axes` of `mesh` whose per-device operand
 * and result hold local_in_bytes and local_out_bytes. A collective_permute
 * passes every mesh axis. `t` may be NULL: bytes only. */
void shard_collective_cost_compute(const shard_topology *t, const shard_mesh *mesh, shard_collective_kind kind,
                                   const shard_axis_ref *axes, uint32_t num_axes, double local_in_bytes,
                                   double local_out_bytes, shard_collective_cost *out);

/* Bytes of a tensor with this shape (rank entries, static) and element
 * type ("f32", "bf16", ...); -1 when the element type is unknown or a dim
 * is dynamic. Sub-byte types round the total up to whole bytes. */
double shard_tensor_bytes(const int64_t *shape, uint32_t rank, const char *elem);

#endif
