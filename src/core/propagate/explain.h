/* Why propagation sharded what it did: the provenance of every axis it
 * added, the conflicts it met and the ops it could not go through
 * (`shard propagate --explain`), and the choices an explicit-sharding user
 * must make (`--mode explicit`).
 *
 * Provenance comes from the driver's observer (propagate.h): each step that
 * adds an axis to a tensor records which tensor of the same op already had
 * it. Following those records backwards from a value gives the chain of ops
 * from the annotation the axis was written in. Conflicts, barriers and
 * ambiguities are read off the final module, op by op, through each op's
 * sharding rule, so they describe what is left, not every intermediate
 * state. */
#ifndef SHARD_EXPLAIN_H
#define SHARD_EXPLAIN_H

#include "support/buf.h"
#include "support/diag.h"
#include "ir/ir.h"
#include "propagate/propagate.h"

typedef struct shard_explain shard_explain;

/* Starts explaining propagation of `m`: records the shardings as written.
 * Call before any pass runs. `extra_rules` (NULL: none) are the rules the
 * propagation is given for ops the registry does not know. Free with
 * shard_explain_free. */
shard_explain *shard_explain_new(shard_module *m, const shard_rule_provider *extra_rules);
void shard_explain_free(shard_explain *x);

/* The observer to give the propagation passes (shard_pass_context's
 * `observer`). */
shard_propagation_observer shard_explain_observer(shard_explain *x);

/* After propagation: looks at the final module for conflicts and barriers. */
void shard_explain_finish(shard_explain *x);

/* The explanation, compact text (locations as LINE:COL in the input) or
 * one JSON object. Call after shard_explain_finish. */
void shard_explain_render_text(shard_explain *x, shard_buf *b);
void shard_explain_render_json(shard_explain *x, shard_buf *b);

/* Explicit mode, after shard_explain_finish: every op whose output sharding
 * the user left open but that has more than one reasonable answer (a
 * sharded contracting/reduction dimension, operands that disagree) is an
 * error through `de`, followed by one note per choice. Returns the number
 * of such ops. */
unsigned shard_explain_check_explicit(shard_explain *x, shard_diag_engine *de);

/* Counts, for summaries and tests. */
unsigned shard_explain_num_changed(const shard_explain *x);
unsigned shard_explain_num_conflicts(const shard_explain *x);
unsigned shard_explain_num_barriers(const shard_explain *x);

#endif
