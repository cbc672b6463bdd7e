/* The sharding propagation driver: pushes shardings through a module along
 * op sharding rules until nothing changes, the way Shardy's
 * BasicPropagationPassImpl::propagate does.
 *
 * A session (shard_propagation) holds what survives between the runs of one
 * pass (op-priority and user-priority propagation run the driver many
 * times): an index of the module's ops, each op's sharding rule (created at
 * most once) and the sharding groups. Each run works off a worklist: every
 * op once in pre-order, then only the users and producers of values whose
 * sharding changed, so the cost stays proportional to the changes. */
#ifndef SHARD_PROPAGATE_H
#define SHARD_PROPAGATE_H

#include <stdbool.h>

#include "support/diag.h"
#include "propagate/factor_propagation.h"
#include "ir/ir.h"
#include "propagate/projection.h"
#include "rules/rule_registry.h"

typedef struct shard_propagation shard_propagation;

/* Direction in which `op` may propagate along `factor`; NULL means BOTH. */
typedef shard_direction (*shard_op_direction_fn)(void *ctx, shard_propagation *s, const shard_op *op, int64_t factor);

/* Starts a session: checks that every op result is a static tensor (or not
 * a shaped type) and no tuples appear, reporting Shardy's error otherwise,
 * and aligns the shardings of sharding-group members (warning when they
 * conflict). Returns NULL after an error. `conservative` disallows sub-axes
 * and non-divisible sharding; `extra_rules` (NULL: none) gives rules for ops
 * the registry does not know and must outlive the session. */
shard_propagation *shard_propagation_begin(shard_module *m, bool conservative, const shard_rule_provider *extra_rules,
                                           shard_diag_engine *de);

/* One run of the worklist driver with one factor strategy: func results are
 * pushed to the returned values, every op is propagated until a fixed point,
 * and the returned values' shardings go back to the func results. */
void shard_propagation_run(shard_propagation *s, shard_factor_strategy strategy, shard_op_direction_fn direction,
                           void *ctx);

/* Ends the session: created rules are attached to their ops as
 * `sdy.sharding_rule` when `keep_rules`, otherwise every non-custom
 * `sdy.sharding_rule` is removed. Frees the session. */
void shard_propagation_end(shard_propagation *s, bool keep_rules);

/* The rule propagation uses for `op` (created once per session), or NULL. */
const shard_op_sharding_rule *shard_propagation_rule(shard_propagation *s, const shard_op *op);

shard_module *shard_propagation_module(const shard_propagation *s);

/* Tells the session that shardings changed between its runs (written
 * without it, as user priorities restore theirs): a visit of the next run
 * must not take an op's last visit for one that would see the same. */
void shard_propagation_note_changes(shard_propagation *s);

/* ---- observing propagation ----------------------------------------------------
 * An observer sees each propagation step that changed some factor sharding
 * (Shardy's SourceShardingAction with anyUpdated): the op propagated
 * through, the tensors as the rule numbers them and their projections before
 * and after. It runs after the new shardings were written back. Without an
 * observer the driver does no extra work. Used by the debug-sharding-origins
 * / debug-propagation-edge-sharding options and `shard propagate --explain`. */
typedef struct shard_propagation_step {
  /* A registered op, sdy.propagation_barrier, sdy.(func_)data_flow_edge, or
   * the func whose result `func_result_index` is synced with its returned
   * value (then `func_result` is set). */
  shard_op *op;
  bool func_result;
  uint32_t func_result_index;
  const shard_op_sharding_rule *rule;
  const shard_mesh *mesh;
  uint32_t num_operands, num_results;
  /* Operands then results: the values holding each tensor's sharding (a
   * data-flow edge's result for edge targets; the returned value on both
   * sides for a func result). */
  shard_value *const *values;
  const shard_projection *before, *after;
  const bool *updated; /* per tensor: its factor shardings changed */
} shard_propagation_step;

typedef struct shard_propagation_observer {
  void (*on_step)(void *ctx, const shard_propagation_step *step);
  void *ctx;
} shard_propagation_observer;

/* Installs (or with NULL removes) the observer of the session's runs. */
void shard_propagation_set_observer(shard_propagation *s, const shard_propagation_observer *o);

/* The value that carries v's sharding (Shardy's getShardableValue): a
 * data-flow edge target resolves to its edge's result; NULL when v can't
 * hold a sharding. */
shard_value *shard_propagation_shardable_value(shard_value *v);

/* Is `op` elementwise for propagation purposes (Shardy's isElementwise)? */
bool shard_propagation_op_is_elementwise(const shard_op *op);

/* The sharding of a value as Shardy's getSharding sees it: block arguments
 * and results of data-flow ops resolve to their sdy.data_flow_edge, func
 * arguments to the argument attribute, sdy ops to their sharding attribute,
 * other results to the op's `sdy.sharding`. NULL when it has none. A
 * manual_computation body argument's view is built in `a`. */
shard_tensor_sharding *shard_propagation_value_sharding(shard_arena *a, const shard_value *v);
/* Sets it (Shardy's setSharding); values that can't hold one are ignored. */
void shard_propagation_set_value_sharding(shard_arena *a, shard_value *v, shard_tensor_sharding *s);
/* Does the value's sharding live on an sdy.data_flow_edge? */
bool shard_propagation_value_has_edge(const shard_value *v);

#endif
