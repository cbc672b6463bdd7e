/* Hardware topologies for the collective cost model (cost.h): how devices
 * are wired and how fast the wires are.
 *
 * Two kinds cover the machines shard knows about:
 *   torus     TPU ICI: devices on a 2D/3D grid of physical dims, each link
 *             axis with a bidirectional bandwidth, wraparound per dim
 *             (v4p/v5p 3D, v5e/v6e 2D).
 *   switched  GPU nodes: devices_per_node GPUs on an NVLink switch, nodes
 *             joined by InfiniBand (H100, B200).
 * Devices are numbered row-major over the physical dims (torus) or node by
 * node (switched); mesh device i (with implicit device ids) is device i.
 *
 * Constants and their sources: the "How to Scale Your Model" book
 * (jax-ml/scaling-book, tpus.md for ICI and gpus.md for NVLink/InfiniBand). A JSON file can describe any
 * other machine; the CLI reads it (src/cli/topology_file.c) so that the
 * library stays free of a JSON dependency. */
#ifndef SHARD_TOPOLOGY_H
#define SHARD_TOPOLOGY_H

#include <stdbool.h>
#include <stdint.h>

#include "support/buf.h"

#define SHARD_TOPO_MAX_DIMS 8

typedef enum shard_topology_kind { SHARD_TOPO_TORUS, SHARD_TOPO_SWITCHED } shard_topology_kind;

typedef struct shard_topology {
  char name[64]; /* "tpu-v5e", "h100", or the JSON file's "name" */
  shard_topology_kind kind;
  /* TORUS */
  uint32_t num_dims;
  int64_t dims[SHARD_TOPO_MAX_DIMS]; /* physical dims, major to minor */
  bool wrap[SHARD_TOPO_MAX_DIMS]; /* wraparound link on that dim */
  double link_bw; /* W_ici: bidirectional bytes/s per link axis */
  double hop_latency; /* T_min: seconds per hop */
  /* SWITCHED */
  int64_t num_devices;
  int64_t devices_per_node;
  double gpu_bw; /* per-GPU egress inside a node, bytes/s */
  double node_bw; /* per-node egress to other nodes, bytes/s */
  double intra_latency; /* seconds per ring step inside a node */
  double inter_latency; /* seconds per ring step across nodes */
  /* Both: memory of one device (HBM) in bytes; 0 when unknown. */
  double memory_bytes;
} shard_topology;

/* Number of devices the topology has. */
int64_t shard_topology_num_devices(const shard_topology *t);

/* A built-in model from a spec NAME[:DIMS][,wrap|,nowrap]:
 *   tpu-v4p, tpu-v5p  3D torus; wraparound when every dim is a multiple of 4
 *   tpu-v5e, tpu-v6e  2D torus; wraparound on dims of 16 (a full axis)
 *   h100, h200, b200  8 GPUs per NVLink node, 400 GB/s InfiniBand per node
 * DIMS is AxBxC for a torus, the GPU count for a switched topology. Without
 * DIMS the topology is sized for `num_devices` (the mesh's device count):
 * the most even power-of-two split for a torus, that many GPUs otherwise.
 * ",wrap" / ",nowrap" override the wraparound rule (for what-if questions).
 * False with a message in err for an unknown name or malformed dims. */
bool shard_topology_builtin(const char *spec, int64_t num_devices, shard_topology *out, shard_buf *err);

/* The built-in names, NULL-terminated. */
extern const char *const shard_topology_builtin_names[];

/* Checks a topology (dims positive, bandwidths positive) and that it has at
 * least `num_devices` devices. False with a message in err. */
bool shard_topology_validate(const shard_topology *t, int64_t num_devices, shard_buf *err);

/* One line: "tpu-v5e 8x4 2D torus, no wraparound, 9e+10 B/s per link axis, 1 us/hop". */
void shard_topology_describe(shard_buf *b, const shard_topology *t);

#endif
