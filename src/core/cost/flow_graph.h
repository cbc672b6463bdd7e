/* The dataflow graph of a sharded module, for `shard viz graph`: ops as
 * nodes with their source locations, one edge per value from its producer
 * to each op that uses it, labelled with the value's sharding and local
 * (per-device) shape, reshards and collectives marked with the bytes they
 * move, and clusters for functions and manual computations.
 *
 * Nodes are the ops directly inside a function body or a manual
 * computation body, plus one node per block argument of those bodies; ops
 * nested in other regions (a reduction's body) belong to the op that holds
 * them. A manual computation is not a node: its operands flow into its
 * body's arguments and its results come out of its sdy.return.
 *
 * Everything is allocated in the arena passed to shard_flow_graph_build. */
#ifndef SHARD_FLOW_GRAPH_H
#define SHARD_FLOW_GRAPH_H

#include <stdbool.h>
#include <stdint.h>

#include "support/arena.h"
#include "cost/comm_plan.h"
#include "ir/ir.h"

typedef enum shard_flow_kind {
  SHARD_FLOW_OP,
  SHARD_FLOW_ARG, /* a block argument of a function or manual computation body */
  SHARD_FLOW_RETURN, /* func.return or the body's sdy.return */
  SHARD_FLOW_RESHARD, /* sdy.reshard (not lowered to collectives) */
  SHARD_FLOW_COLLECTIVE /* sdy.all_gather, all_reduce, ... */
} shard_flow_kind;

typedef struct shard_flow_node {
  shard_flow_kind kind;
  const char *name; /* op name, "%arg0" for arguments */
  const char *results; /* "%3" or "%0, %1" (NULL when the op has none) */
  const char *detail; /* collectives: 'all_reduce {"model"}'; reshards: the target sharding */
  uint32_t line, col; /* 0 when unknown */
  int32_t cluster; /* index into clusters, -1 for none */
  const shard_op *op; /* NULL for arguments */
  const shard_value *value; /* the argument, for ARG nodes */
  /* Reshards and collectives: bytes per device and estimated time (from the
   * communication plan; moved false when it could not be costed). */
  bool moved;
  double bytes_sent, bytes_recv, seconds;
  uint32_t num_steps; /* reshards: collectives the reshard lowers to */
} shard_flow_node;

typedef struct shard_flow_edge {
  uint32_t from, to;
  const char *value; /* "%3", "%arg0", or "result 0 of OP" for unnamed values */
  const char *type; /* global type text */
  const char *sharding; /* <@mesh, [{"x"}, {}]>, or NULL when the value has none */
  const char *local_type; /* per-device type, or NULL when unknown */
  const shard_value *v;
} shard_flow_edge;

typedef struct shard_flow_cluster {
  const char *label; /* "func @main", "manual_computation over {\"x\"} (12:8)" */
  int32_t parent; /* enclosing cluster, -1 for none */
  bool manual;
} shard_flow_cluster;

typedef struct shard_flow_graph {
  shard_flow_node *nodes;
  uint32_t num_nodes;
  shard_flow_edge *edges;
  uint32_t num_edges;
  shard_flow_cluster *clusters;
  uint32_t num_clusters;
  uint32_t num_collectives, num_reshards;
  double total_sent, total_seconds; /* per device over costed reshards and collectives */
  bool cut; /* made by shard_flow_graph_focus */
} shard_flow_graph;

/* Builds the graph of every function of m. Collectives and reshards get
 * their bytes and time on topology `t` (NULL: bytes only); costs that
 * cannot be computed are left out (moved false). Never fails. */
shard_flow_graph *shard_flow_graph_build(shard_arena *a, const shard_module *m, const shard_topology *t);

/* The node that produces the value named `name` ("%3", "%arg0", "3", "%0#1"),
 * or -1. With several functions, `func` (without '@', or NULL for any)
 * picks the one to search. */
int32_t shard_flow_graph_find_value(const shard_flow_graph *g, const char *name, const char *func);

/* A new graph with the nodes at most `depth` edges away from node `center`
 * (in either direction), the edges between them and the clusters they use. */
shard_flow_graph *shard_flow_graph_focus(shard_arena *a, const shard_flow_graph *g, uint32_t center, uint32_t depth);

#endif
