/* Reading XLA's sdy round-trip form directly: the entry point `shard check`,
 * `propagate`, `lower` and `viz` use (the -xla-sdy-* passes themselves are
 * run by name through pipeline/pass_registry.h). */
#ifndef SHARD_XLA_IMPORT_H
#define SHARD_XLA_IMPORT_H

#include <stdbool.h>

#include "ir/ir.h"
#include "support/diag.h"

/* Is the module in XLA's sdy round-trip form: `xla.sdy.*` frontend
 * attributes (meshes, shardings, sharding rules, manual computations) or the
 * custom calls that stand for sdy ops (xla.sdy.FuncResultSharding,
 * xla.sdy.ShardingGroup, xla.sdy.GlobalToLocalShape, ...)? */
bool shard_xla_is_round_trip_form(const shard_module *m);

/* When the module is in round-trip form, imports it with
 * -xla-sdy-round-trip-import-pipeline and says so in one note; returns false
 * only when the import reported an error. */
bool shard_xla_import_if_round_trip(shard_module *m, shard_diag_engine *de);

#endif
