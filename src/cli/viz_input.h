/* What `shard viz` and `shard repl` draw from: a design-doc snippet or a
 * module file, parsed and verified, and the lookups they share (a value's
 * sharding, a function's arguments and results, every mesh with the
 * sub-axes used on it). Private to src/cli. */
#ifndef SHARD_CLI_VIZ_INPUT_H
#define SHARD_CLI_VIZ_INPUT_H

#include <stdbool.h>

#include "cli.h"
#include "ir/ir.h"
#include "xla/xla_import.h"
#include "cost/placement.h"

#ifdef SHARD_HAVE_VIZ
#include "viz.h"
#endif

typedef struct viz_input {
  bool is_snippet;
  cli_snippet snippet; /* when is_snippet */
  char *text; /* file contents otherwise */
  shard_source src;
  shard_module *module; /* NULL until loaded */
  shard_xla_input xla; /* the StableHLO an HLO text dump became */
} viz_input;

/* A mesh of the input and the sub-axes its shardings cut it into. */
typedef struct viz_mesh_use {
  const char *name;
  const shard_mesh *mesh;
  shard_axis_ref *sub_axes; /* heap; freed by viz_mesh_uses_free */
  uint32_t num_sub_axes;
} viz_mesh_use;

/* Forwards diagnostics on a snippet's generated module to `de`, pointed at
 * the snippet the user typed (as `shard check -e` shows them). */
typedef struct viz_relay {
  const cli_snippet *snippet;
  shard_diag_engine *de;
} viz_relay;
void viz_relay_diag(void *relay, const shard_diag *d);

/* Parse and verify. Diagnostics go to de; false when there were errors (the
 * input must still be freed). The snippet text and `name` must outlive in.
 * extra_warnings adds `shard check`'s own warnings (a dimension its sharding
 * does not divide): the REPL shows them, the pictures show uneven shards
 * themselves. */
bool viz_input_snippet(viz_input *in, const char *text, bool extra_warnings, shard_diag_engine *de);
bool viz_input_file(viz_input *in, const char *path, shard_diag_engine *de);
void viz_input_free(viz_input *in);

/* One placement per sharding of a snippet, in order; NULL entries where a
 * placement failed (reported through de). Returns the count; *out is heap. */
uint32_t viz_snippet_placements(viz_input *in, shard_arena *a, shard_placement ***out, shard_diag_engine *de);

/* The func.func named `func` (NULL: "main", else the first function). */
shard_op *viz_find_func(const shard_module *m, const char *func);
/* A value by its SSA name ("%3", "%arg0", "%0#1", with or without '%'),
 * searched in `func` (or everywhere when NULL). */
shard_value *viz_find_value(const shard_module *m, shard_op *func, const char *name);

/* The placement of a value, function argument or result; `what` names it
 * in messages ("value %3", "argument 0 of @main"). */
shard_placement *viz_value_placement(viz_input *in, shard_arena *a, const shard_value *v, const char *what,
                                     shard_diag_engine *de);
shard_placement *viz_result_placement(viz_input *in, shard_arena *a, shard_op *func, uint32_t i, shard_diag_engine *de);

/* How far `shard viz graph|plan` and the REPL take a module before drawing:
 * propagation only, then explicit reshards (sdy.reshard where an operand
 * disagrees with its op, sdy.all_reduce after sharded reductions), then
 * reshards lowered to sdy collectives as `shard lower` does. */
typedef enum viz_stage { VIZ_STAGE_PROPAGATED, VIZ_STAGE_RESHARDS, VIZ_STAGE_LOWERED } viz_stage;
extern const char *const viz_stage_names[]; /* "propagated", "reshards", "lowered" */

/* Runs the passes up to `stage` on m (without propagation when !propagate:
 * sharding constraints become reshards and shardings are closed), verifying
 * after each. False after an error through de. */
bool viz_lower_module(shard_module *m, viz_stage stage, bool propagate, shard_diag_engine *de);

/* Every sdy.mesh of the input in order. *out is heap; free with viz_mesh_uses_free. */
uint32_t viz_mesh_uses(const viz_input *in, viz_mesh_use **out);
void viz_mesh_uses_free(viz_mesh_use *uses, uint32_t n);

#endif
