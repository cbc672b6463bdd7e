/* Propagation debug information, after Shardy's debugging/source_sharding:
 *
 * - sharding origins (debug-sharding-origins): for every axis on a value's
 *   sharding, the user sharding it came from: a func input or output
 *   ("input: 0", "output: 1"), a sharding constraint ("constraint_2") or a
 *   manual computation's in/out sharding ("mc_0_input: 1"). Saved as
 *   `sdy.sharding_origins` dictionaries (axis -> origin) on func arguments
 *   and results, on constraints and data-flow edges, and as an array of them
 *   (one per result) on other ops; the origin of a value's own sharding
 *   reads "self". Constraints and manual computations get their name in
 *   `sdy.sharding_origin_name`.
 * - propagation edges (debug-propagation-edge-sharding): for every op, which
 *   operand/result gave which axis to which others, at which numbered step,
 *   saved as `#sdy.propagation_edges<...>` in `sdy.propagation_edges` (on
 *   the first func result for what moved between returned values and func
 *   results, as Shardy does).
 *
 * A recorder lives for one pass: begin it before the pass changes anything,
 * feed it steps (shard_debug_origins_observer for a propagation session,
 * shard_debug_origins_watch for a single change made by another pass), and
 * end it to write the attributes. -sdy-sink-data-flow-edges moves what sits
 * on data-flow edges onto their ops (sdy.block_arg_* / sdy.result_*), and
 * -sdy-remove-propagation-debug-info drops all of it. */
#ifndef SHARD_DEBUG_ORIGINS_H
#define SHARD_DEBUG_ORIGINS_H

#include <stdbool.h>

#include "ir/ir.h"
#include "propagate/propagate.h"

typedef struct shard_debug_origins shard_debug_origins;

/* Starts recording on `m`: with `origins`, names constraints and manual
 * computations and records the origins of the shardings already present
 * (this needs the data-flow edges of manual computations in place); with
 * `edges`, numbers steps after the highest step already saved on the
 * module. Returns NULL when both are off. */
shard_debug_origins *shard_debug_origins_begin(shard_module *m, bool origins, bool edges,
                                               const shard_rule_provider *extra_rules);

/* An observer for a propagation session that records into `d`. */
shard_propagation_observer shard_debug_origins_observer(shard_debug_origins *d);

/* Runs `change` (which updates shardings around `op`) and records what it
 * moved along op's sharding rule as one step, as Shardy does for a
 * constraint applied to its input. Without `d`, or when op has no rule,
 * just runs `change`. */
void shard_debug_origins_watch(shard_debug_origins *d, shard_op *op, void (*change)(void *ctx), void *ctx);

/* Writes the attributes onto the module and frees the recorder (NULL is
 * allowed). */
void shard_debug_origins_end(shard_debug_origins *d);

/* The sdy.sharding_origins key of an axis: its text without quotes
 * ("a", "c:(1)4"). Allocated in `a`. */
const char *shard_debug_origins_axis_key(shard_arena *a, const shard_axis_ref *axis);

#endif
