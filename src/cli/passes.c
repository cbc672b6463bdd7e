/* The pass table of `shard opt`: flag name -> function.
 *
 * Each entry wires an sdy_opt flag to a pass implemented in src/core. A flag
 * naming no entry is a usage error (exit 2), so a test that needs a pass we
 * lack fails loudly instead of printing its input unchanged. Add passes
 * here as they land; keep the table sorted by name. */
#include <string.h>

#include "pass/pass.h"
#include "passes.h"

const cli_pass cli_passes[] = {
    /* Sentinel: keeps the array non-empty even with no passes (C forbids
     * zero-length arrays); cli_num_passes excludes it. */
    {"canonicalize", "MLIR's canonicalizer with the sdy ops' patterns", shard_pass_canonicalize},
    {"sdy-add-data-flow-edges", "insert sdy.data_flow_edge ops on the edge owners of data-flow ops", shard_pass_add_data_flow_edges},
    {"sdy-add-func-data-flow-edges", "insert sdy.func_data_flow_edge on non-main func arguments and call results", shard_pass_add_func_data_flow_edges},
    {"sdy-aggressive-propagate", "sharding propagation with the aggressive (or chosen) factor strategy", shard_pass_aggressive_propagate},
    {"sdy-apply-sharding-constraints", "copy fully closed constraint shardings onto unsharded inputs", shard_pass_apply_sharding_constraints},
    {"sdy-basic-propagate", "sharding propagation with the basic factor strategy", shard_pass_basic_propagate},
    {"sdy-close-shardings", "close all dimension shardings and drop replicated axes", shard_pass_close_shardings},
    {"sdy-constant-or-scalar-merger", "merge identical constants and scalar broadcasts within a region", shard_pass_constant_or_scalar_merger},
    {"sdy-constant-or-scalar-splitter", "split constant sub-computations and scalar broadcasts per user", shard_pass_constant_or_scalar_splitter},
    {"sdy-convert-global-to-local", "rewrite global shapes into per-device local shapes with StableHLO collectives", shard_pass_convert_global_to_local},
    {"sdy-drop-sharding-and-mesh", "drop every sdy.sharding attribute and every sdy.mesh", shard_pass_drop_sharding_and_mesh},
    {"sdy-drop-sharding-rules", "remove every non-custom sdy.sharding_rule", shard_pass_drop_sharding_rules},
    {"sdy-explicit-gather-scatter-batching", "make iota-indexed batch dims of gather/scatter explicit batching dims", shard_pass_explicit_gather_scatter_batching},
    {"sdy-export-named-computations", "turn sdy.named_computation ops back into private funcs and calls", shard_pass_export_named_computations},
    {"sdy-export-pipeline", "the export passes Shardy runs after propagation", shard_pass_export_pipeline},
    {"sdy-flatten-call-graph", "give every call but the first of a func its own recursive copy", shard_pass_flatten_call_graph},
    {"sdy-import-func-calls", "turn func.call ops into sdy.named_computation ops holding the callee body", shard_pass_import_func_calls},
    {"sdy-import-pipeline", "the import passes Shardy runs before propagation", shard_pass_import_pipeline},
    {"sdy-inline-meshes", "replace mesh symbol references by the meshes and drop the sdy.mesh ops", shard_pass_inline_meshes},
    {"sdy-insert-explicit-reshards", "reshard operands and results so every op's shardings agree with its sharding rule", shard_pass_insert_explicit_reshards},
    {"sdy-insert-func-call-reshards", "give calls their callee's result shardings, resharding back for users", shard_pass_insert_func_call_reshards},
    {"sdy-lift-inlined-meshes", "dedup meshes and lift inlined meshes into sdy.mesh symbols", shard_pass_lift_inlined_meshes},
    {"sdy-manual-axes-cleanup", "sort manual axes and add unused manual axes to replicated axes", shard_pass_manual_axes_cleanup},
    {"sdy-op-priority-propagate", "aggressive propagation in five op-priority steps", shard_pass_op_priority_propagate},
    {"sdy-pad-for-divisibility", "pad values whose sharding does not divide their shape (func IO must be divisible)", shard_pass_pad_for_divisibility},
    {"sdy-per-instruction-partitioning", "partition chosen ops one by one into manual computations (filter=...)", shard_pass_per_instruction_partitioning},
    {"sdy-populate-op-sharding-rules", "attach the registry's sdy.sharding_rule to every op that has none", shard_pass_populate_op_sharding_rules},
    {"sdy-pre-order-funcs", "reorder funcs in call graph pre-order", shard_pass_pre_order_funcs},
    {"sdy-propagate-sharding-from-func-to-call", "give unsharded calls their callee's result shardings", shard_pass_propagate_sharding_from_func_to_call},
    {"sdy-propagate-to-func-results", "copy returned values' shardings onto non-main func results", shard_pass_propagate_to_func_results},
    {"sdy-propagation-pipeline", "import passes, user-priority propagation and export passes", shard_pass_propagation_pipeline},
    {"sdy-remove-all-gather-reduce-scatter-for-cmv1", "drop all_gathers feeding dots and reduce_scatters of dot results", shard_pass_remove_all_gather_reduce_scatter_for_cmv1},
    {"sdy-remove-propagation-debug-info", "drop propagation debug attributes (edges, origins)", shard_pass_remove_propagation_debug_info},
    {"sdy-remove-sharding-groups", "erase every sdy.sharding_group", shard_pass_remove_sharding_groups},
    {"sdy-remove-size-one-axes", "remove mesh axes of size one from all shardings", shard_pass_remove_size_one_axes},
    {"sdy-remove-sub-axes-in-input-output-shardings", "cut open dims of main func shardings at their first sub-axis", shard_pass_remove_sub_axes_in_input_output_shardings},
    {"sdy-reshard-to-collectives", "rewrite every sdy.reshard into sdy collectives (all_slice, collective_permute, all_to_all, all_gather)", shard_pass_reshard_to_collectives},
    {"sdy-resolve-permutation-factors", "replicate (or halo-exchange) sharded permutation factors and non-divisible reshapes", shard_pass_resolve_permutation_factors},
    {"sdy-resolve-single-device-sharding", "run single-device ops under a device guard and all-reduce their results", shard_pass_resolve_single_device_sharding},
    {"sdy-sharding-constraint-to-reshard", "turn sdy.sharding_constraint into sdy.reshard", shard_pass_sharding_constraint_to_reshard},
    {"sdy-sharding-group-import", "validate sharding groups, unify groups sharing a value and renumber them", shard_pass_sharding_group_import},
    {"sdy-sink-data-flow-edges", "move data_flow_edge shardings onto their data-flow ops and remove the edges", shard_pass_sink_data_flow_edges},
    {"sdy-sink-func-data-flow-edges", "move sdy.func_data_flow_edge shardings onto func arguments and call results", shard_pass_sink_func_data_flow_edges},
    {"sdy-unflatten-call-graph", "point calls at one func per original name and shardings", shard_pass_unflatten_call_graph},
    {"sdy-update-non-divisible-input-output-shardings", "shrink boundary shardings to prefixes that divide their dimensions", shard_pass_update_non_divisible_input_output_shardings},
    {"sdy-user-priority-propagate", "op-priority propagation once per user priority (p0, p1, ...)", shard_pass_user_priority_propagate},
    {"sdy-verify-unreduced-axes", "check that unreduced axes are only dropped by blessed ops", shard_pass_verify_unreduced_axes},
    {"symbol-dce", "erase private symbols nothing refers to", shard_pass_symbol_dce},
    {NULL, NULL, NULL},
};
const unsigned cli_num_passes = sizeof cli_passes / sizeof cli_passes[0] - 1;

const cli_pass *cli_pass_lookup(const char *name, size_t len) {
  for (unsigned i = 0; i < cli_num_passes; i++)
    if (strlen(cli_passes[i].name) == len && memcmp(cli_passes[i].name, name, len) == 0)
      return &cli_passes[i];
  return NULL;
}
