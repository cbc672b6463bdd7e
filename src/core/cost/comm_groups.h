/* Who talks to whom in a collective: the device groups of each collective
 * of a lowered module laid out on its mesh, the order data travels in each
 * group, and for a collective_permute which device sends its shard to
 * which. This is the model behind `shard viz plan`; the pictures (src/viz)
 * only lay it out. Everything is allocated in the arena passed in. */
#ifndef SHARD_COMM_GROUPS_H
#define SHARD_COMM_GROUPS_H

#include <stdbool.h>
#include <stdint.h>

#include "support/arena.h"
#include "cost/comm_plan.h"
#include "ir/ir.h"

/* How data moves inside a group. */
typedef enum shard_comm_direction {
  SHARD_COMM_RING, /* all_gather, all_reduce, reduce_scatter: member k sends to k+1 */
  SHARD_COMM_ALL_TO_ALL, /* every member sends a piece to every other member */
  SHARD_COMM_PERMUTE, /* point to point: `transfers` lists every send */
  SHARD_COMM_LOCAL /* all_slice: every device keeps a piece of what it has */
} shard_comm_direction;

/* "ring", "all-to-all", "permute", "local". */
const char *shard_comm_direction_name(shard_comm_direction d);

typedef struct shard_comm_transfer {
  uint32_t from, to; /* mesh positions (row-major over the mesh axes) */
} shard_comm_transfer;

typedef struct shard_comm_groups {
  const shard_comm_row *row; /* the plan row (bytes, time, reason) */
  const shard_op *op; /* the collective op in the module */
  const shard_mesh *mesh; /* the mesh its groups are drawn on */
  const char *mesh_name; /* NULL for an inlined mesh */
  shard_comm_direction direction;
  uint32_t num_devices; /* mesh positions */
  int64_t *device_ids; /* per position */
  uint32_t *group; /* per position: its group, numbered by first position */
  uint32_t *member; /* per position: its place in the group's order */
  uint32_t num_groups, group_size;
  /* Every send: for a ring, member k to k+1 of each group (none for groups
   * of one); for a permute, each device whose shard moves; none for
   * all-to-all and local. */
  shard_comm_transfer *transfers;
  uint32_t num_transfers;
} shard_comm_groups;

/* The collective ops of `m` in the order shard_comm_plan_module gave `p`
 * its rows (ops it could not cost are skipped the same way). Writes
 * p->num_rows entries to *ops (arena). False when the module does not
 * match the plan (it was changed since). */
bool shard_comm_plan_row_ops(shard_arena *a, const shard_comm_plan *p, const shard_module *m, const shard_op ***ops);

/* The groups of the collective `op` (row `row` of a plan of m). NULL when
 * its mesh is too big to draw (SHARD_PLACEMENT_MAX_DEVICES) or unknown. */
shard_comm_groups *shard_comm_groups_compute(shard_arena *a, const shard_module *m, const shard_op *op,
                                             const shard_comm_row *row);

#endif
