/* The communication plan: every collective a sharded program runs, with
 * where it comes from, why it is needed, what it moves and how long it
 * takes (cost.h), then totals and the most expensive ones.
 *
 * Rows come from a lowered module (every sdy collective op:
 * shard_comm_plan_module), from a reshard plan between two shardings
 * (shard_comm_plan_add_reshard, for `shard plan`), or one by one
 * (shard_comm_plan_add). Text is allocated in the plan's arena; the row
 * array and the index of texts are on the heap: free them with
 * shard_comm_plan_free. */
#ifndef SHARD_COMM_PLAN_H
#define SHARD_COMM_PLAN_H

#include <stdbool.h>
#include <stdint.h>

#include "support/arena.h"
#include "support/buf.h"
#include "support/strmap.h"
#include "cost/cost.h"
#include "support/diag.h"
#include "ir/ir.h"
#include "export/reshard.h"
#include "cost/topology.h"

/* What a row keeps of its shard_collective_cost: the numbers, not the
 * placement (a hundred bytes a row, of rows by the tens of thousands). */
typedef struct shard_comm_row_cost {
  int64_t group_size, num_groups;
  double volume, bytes_sent, bytes_recv, seconds;
  bool latency_bound;
} shard_comm_row_cost;

typedef struct shard_comm_row {
  shard_span where; /* the op that needs the collective (no span: unknown) */
  const char *op_name; /* that op's name ("stablehlo.dot_general"), or NULL */
  const char *reason; /* why: the sharding mismatch or the reduction */
  const shard_op *explained; /* lazy_reasons: the collective whose reason the printers write */
  shard_collective_kind kind;
  shard_axis_ref *axes; /* the collective's mesh axes */
  uint32_t num_axes;
  const char *local_in, *local_out; /* per-device types: tensor<16x512xf32> */
  shard_comm_row_cost cost;
} shard_comm_row;

typedef struct shard_comm_plan {
  shard_arena *arena;
  const shard_topology *topology; /* NULL: bytes only */
  shard_comm_row *rows;
  uint32_t num_rows, cap_rows;
  double total_sent, total_recv, total_seconds; /* per device, summed over rows */
  uint32_t num_unplanned; /* collectives that could not be costed (dynamic shapes, unknown meshes) */
  /* set before shard_comm_plan_module: its rows keep their collective
   * instead of a copy of the reason, which the printers write from the
   * module (alive and unchanged until then). A big module's reasons are
   * tens of bytes per collective, a sixth of `lower --plan`'s extra memory */
  bool lazy_reasons;
  /* the op names and per-device types of the rows, each text once in the
   * arena: a big program's rows repeat a few of them */
  shard_strmap texts;
  shard_buf scratch;
} shard_comm_plan;

void shard_comm_plan_init(shard_comm_plan *p, shard_arena *a, const shard_topology *t);
void shard_comm_plan_free(shard_comm_plan *p);

/* Adds one collective over `axes` of `mesh` taking a per-device operand of
 * shape local_in to local_out (rank entries each) with element type elem.
 * Strings are copied into the plan's arena. Returns the row. */
shard_comm_row *shard_comm_plan_add(shard_comm_plan *p, shard_collective_kind kind, const shard_mesh *mesh,
                                    const shard_axis_ref *axes, uint32_t num_axes, const int64_t *local_in,
                                    const int64_t *local_out, uint32_t rank, const char *elem, shard_span where,
                                    const char *op_name, const char *reason);

/* Adds the steps of a reshard plan (reshard.h) of a tensor with global
 * `shape` starting from sharding `in` on `mesh`. Each row's reason is
 * `why` followed by the step's before and after shardings. */
void shard_comm_plan_add_reshard(shard_comm_plan *p, const shard_tensor_sharding *in, const shard_mesh *mesh,
                                 const int64_t *shape, uint32_t rank, const char *elem, const shard_reshard_step *steps,
                                 uint32_t num_steps, shard_span where, const char *why);

/* Adds a row for every sdy collective in the module (all_gather, all_slice,
 * all_to_all, collective_permute, all_reduce, reduce_scatter), in program
 * order. The reason follows a chain of collectives to the op that consumes
 * its result (a sharding mismatch on that operand) or, for reductions, to
 * the op that produced the partial sums. Collectives on dynamic shapes or
 * unknown meshes are counted in num_unplanned and reported as warnings. */
void shard_comm_plan_module(shard_comm_plan *p, const shard_module *m, shard_diag_engine *de);

/* Indices of the `k` most expensive rows (by time, then bytes), most
 * expensive first; returns how many were written (at most k, rows with
 * nothing to move are left out). */
uint32_t shard_comm_plan_top(const shard_comm_plan *p, uint32_t k, uint32_t *out);

/* A text table with a header line, one line per row, totals and the `top`
 * most expensive rows. Both printers drain `b` (buf.h) after each row. */
void shard_comm_plan_print_text(shard_buf *b, const shard_comm_plan *p, uint32_t top);
/* The same as one JSON object: topology, collectives, totals, top. */
void shard_comm_plan_print_json(shard_buf *b, const shard_comm_plan *p, uint32_t top);

/* "49152 B", "1.5 KiB"-free exact counts are in the table; this formats a
 * time for people: "372.8 us", "1.25 ms", "0 s". */
void shard_comm_format_seconds(shard_buf *b, double seconds);

#endif
