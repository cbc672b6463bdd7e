/* Explicit reshards: make every op's operand and result shardings agree
 * with its sharding rule by inserting sdy.reshard (and sdy.all_reduce for
 * sharded reduction factors), the way Shardy's -sdy-insert-explicit-reshards
 * does (insert_explicit_reshards.cc, explicit_reshards_util.cc).
 *
 * The factor-level decisions are exposed for tests: whether a projection is
 * already compatible, and which axes each factor ends up with when it is
 * not (findCommonAxes). Axis lists are allocated in the projection's arena. */
#ifndef SHARD_EXPLICIT_RESHARDS_H
#define SHARD_EXPLICIT_RESHARDS_H

#include <stdbool.h>
#include <stdint.h>

#include "support/diag.h"
#include "ir/ir.h"
#include "propagate/projection.h"

/* Compatible: each factor sharded the same way by every tensor that has it,
 * need-replication factors unsharded and no axis used by two factors. Then
 * writes each factor's axes to out[0..num_factors) and returns true. */
bool shard_explicit_compatible_axes(const shard_projection *p, const shard_op_sharding_rule *rule, shard_axes *out);

/* Shardy's findCommonAxes: the axes every factor should have so that the op
 * becomes compatible, from the projection of its current shardings and the
 * global sizes (element counts, operands then results) of its tensors.
 * Writes out[0..num_factors). */
void shard_explicit_find_common_axes(const shard_projection *p, const shard_op_sharding_rule *rule,
                                     const int64_t *tensor_sizes, shard_axes *out);

/* Runs the pass over every func.func of the module. `full_version` is
 * Shardy's enable-full-version; without it only func calls, concatenates
 * whose operand shardings differ from the result's, mhlo.ragged_dot and the
 * dot/dot_general special case are resharded (plus unreduced handling).
 * Returns false after reporting an error (single-device shardings on func
 * inputs/outputs, conflicting single-device results). `unreduced`: a
 * sharding of the module may have unreduced axes; without any none
 * appears, and the steps for them are skipped. */
bool shard_explicit_reshards_insert(shard_module *m, bool full_version, bool unreduced, shard_diag_engine *de);

/* The pass as shard lower runs it: `run` is 1 or 2 for its two exports
 * after propagation, 0 for its one export of the shardings as written. The
 * op's result shardings do not record the axes an all_reduce of a sharded
 * reduction factor sums over, so run 2 would insert the same all_reduce
 * again and sum the partial results twice: run 1 leaves those all_reduces
 * to run 2, and run 2 counts the axes an sdy.all_reduce of run 1 reduces
 * as summed. In every run an op Shardy leaves alone because a sharded
 * tensor of it sits on a mesh with other axes than another's is an error:
 * its per-device program would be wrong. `unreduced` as above. */
bool shard_explicit_reshards_insert_for_lower(shard_module *m, bool full_version, int run, bool unreduced,
                                              shard_diag_engine *de);

#endif
