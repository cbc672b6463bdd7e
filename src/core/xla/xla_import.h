/* Reading XLA's sdy round-trip form directly: the entry point `shard check`,
 * `propagate`, `lower` and `viz` use (the -xla-sdy-* passes themselves are
 * run by name through pipeline/pass_registry.h). */
#ifndef SHARD_XLA_IMPORT_H
#define SHARD_XLA_IMPORT_H

#include <stdbool.h>
#include <stddef.h>

#include "ir/ir.h"
#include "ir/parse.h"
#include "support/diag.h"

/* Is the module in XLA's sdy round-trip form: `xla.sdy.*` frontend
 * attributes (meshes, shardings, sharding rules, manual computations) or the
 * custom calls that stand for sdy ops (xla.sdy.FuncResultSharding,
 * xla.sdy.ShardingGroup, xla.sdy.GlobalToLocalShape, ...)? */
bool shard_xla_is_round_trip_form(const shard_module *m);
/* Does shard_xla_read_input read the text as MLIR (not an HLO text dump)? */
bool shard_xla_input_is_mlir(const char *text, size_t len);
/* The same question of one op and the ops inside it (a streamed check asks
 * it of each op of a module body before letting the op go). */
bool shard_xla_op_in_round_trip_form(const shard_op *root);

/* When the module is in round-trip form, imports it with
 * -xla-sdy-round-trip-import-pipeline and says so in one note; returns false
 * only when the import reported an error. */
bool shard_xla_import_if_round_trip(shard_module *m, shard_diag_engine *de);

/* Reads an input module: MLIR, or an HLO text dump (leading `HloModule`,
 * what XLA writes with --xla_dump_hlo_as_text) read into StableHLO as XLA's
 * importer does (xla/hlo_text.h), said in one note. Either way a module in
 * XLA's sdy round-trip form is then imported as by
 * shard_xla_import_if_round_trip (one note in all). NULL after an error.
 * `keep` holds the StableHLO text an HLO dump became, which the module
 * points into: release it with shard_xla_input_release after freeing the
 * module (it is zeroed here, and stays empty for MLIR). */
/* Is the text an HLO text dump (leading `HloModule`) that names XLA's sdy
 * attributes or custom calls (`xla.sdy.`)? `shard check` reads those as
 * modules and lists the HloShardings of the others. */
bool shard_xla_is_hlo_round_trip_text(const char *text, size_t len);

typedef struct shard_xla_input {
  shard_source gen;
} shard_xla_input;

shard_module *shard_xla_read_input(shard_source *src, const shard_parse_options *popts, shard_xla_input *keep,
                                   shard_diag_engine *de);
void shard_xla_input_release(shard_xla_input *keep);

#endif
