/* The pass registry: every pass `shard opt` can run, by its sdy_opt flag
 * name, with a one-line summary and the schema of its options (name, kind,
 * default, accepted values). `shard opt` validates a user's options against
 * it before a pass runs, and `shard opt --help` and the shell completion
 * read it; nothing else keeps a list of passes. Keep the table sorted by
 * name.
 *
 * It lives in the pipeline layer because it names passes of every layer
 * below (import, propagation, export and the pipelines). */
#include "pipeline/pass_registry.h"

#include <string.h>

#include "verify/verify.h"

/* Option groups several passes share. */
#define END                                                                                                            \
  { NULL, 0, NULL, NULL, NULL }
#define DEBUG_OPTIONS                                                                                                  \
  {"debug-sharding-origins", SHARD_PASS_OPTION_BOOL, "false", NULL, "record where each axis came from"}, {             \
    "debug-propagation-edge-sharding", SHARD_PASS_OPTION_BOOL, "false", NULL, "record the edges each axis travelled"   \
  }
#define PROPAGATION_OPTIONS                                                                                            \
  {"keep-sharding-rules", SHARD_PASS_OPTION_BOOL, "false", NULL, "keep the sdy.sharding_rule attributes created"},     \
      {"module-dump-directory", SHARD_PASS_OPTION_STRING, "", NULL, "accepted, ignored"},                              \
      {"conservative-propagation", SHARD_PASS_OPTION_BOOL, "false", NULL,                                              \
       "do not propagate through ops that would need communication for split axes"},                                   \
      DEBUG_OPTIONS
#define STRATEGY_OPTION                                                                                                \
  {                                                                                                                    \
    "propagation-strategy", SHARD_PASS_OPTION_ENUM, "aggressive", "basic|aggressive|basic-then-aggressive",            \
        "the factor propagation strategy"                                                                              \
  }
#define COUNT_OPTIONS                                                                                                  \
  {"replica-count", SHARD_PASS_OPTION_INT, "1", NULL, "number of replicas"}, {                                         \
    "partition-count", SHARD_PASS_OPTION_INT, "1", NULL, "number of partitions"                                        \
  }

static const shard_pass_option_def O_canonicalize[] = {
    {"max-iterations", SHARD_PASS_OPTION_INT, "10", NULL, "rounds of the greedy driver"},
    {"region-simplify", SHARD_PASS_OPTION_ENUM, "normal", "disabled|normal|aggressive|true|false",
     "simplify regions (dead code, unreachable blocks)"},
    {"top-down", SHARD_PASS_OPTION_BOOL, "true", NULL, "visit ops top-down"},
    {"max-num-rewrites", SHARD_PASS_OPTION_INT, "-1", NULL, "accepted, ignored"},
    {"test-convergence", SHARD_PASS_OPTION_BOOL, "false", NULL, "accepted, ignored"},
    {"disable-patterns", SHARD_PASS_OPTION_STRING, "", NULL, "comma-separated pattern names or labels never to run"},
    {"enable-patterns", SHARD_PASS_OPTION_STRING, "", NULL,
     "comma-separated pattern names or labels to run, and only those"},
    END,
};
static const shard_pass_option_def O_basic[] = {
    PROPAGATION_OPTIONS,
    END,
};
static const shard_pass_option_def O_aggressive[] = {
    PROPAGATION_OPTIONS,
    STRATEGY_OPTION,
    END,
};
static const shard_pass_option_def O_priority[] = {
    PROPAGATION_OPTIONS,
    STRATEGY_OPTION,
    {"run-op-priority-propagation", SHARD_PASS_OPTION_BOOL, "true", NULL, "run the op-priority steps"},
    END,
};
static const shard_pass_option_def O_dedup[] = {
    {"dedup-functions-fully", SHARD_PASS_OPTION_BOOL, "false", NULL,
     "one func per call-graph node instead of flattening calls"},
    END,
};
static const shard_pass_option_def O_counts[] = {
    COUNT_OPTIONS,
    END,
};
static const shard_pass_option_def O_per_instruction[] = {
    {"enable-halo-exchange", SHARD_PASS_OPTION_BOOL, "true", NULL,
     "exchange halos instead of replicating permutation factors"},
    COUNT_OPTIONS,
    {"filter", SHARD_PASS_OPTION_STRING, "", NULL,
     "which ops to partition: op names, ids or selectLow=N/selectHigh=N ranges"},
    END,
};
static const shard_pass_option_def O_permutation[] = {
    {"enable-halo-exchange", SHARD_PASS_OPTION_BOOL, "false", NULL,
     "exchange halos instead of replicating permutation factors"},
    COUNT_OPTIONS,
    END,
};
static const shard_pass_option_def O_global_to_local[] = {
    {"per-dim-all-gather", SHARD_PASS_OPTION_BOOL, "false", NULL, "one all_gather per dimension"},
    {"combine-multi-dimension-reduce-scatter", SHARD_PASS_OPTION_BOOL, "false", NULL,
     "one reduce_scatter for several dimensions"},
    {"enable-rgv3", SHARD_PASS_OPTION_BOOL, "false", NULL, "replica groups in iota (V3) form"},
    COUNT_OPTIONS,
    END,
};
static const shard_pass_option_def O_reshard[] = {
    {"keep-redundant-reshards", SHARD_PASS_OPTION_BOOL, "false", NULL, "keep reshards between equal shardings"},
    END,
};
static const shard_pass_option_def O_explicit[] = {
    {"enable-full-version", SHARD_PASS_OPTION_BOOL, "false", NULL,
     "insert reshards for every op, collectives included"},
    END,
};
static const shard_pass_option_def O_export[] = {
    COUNT_OPTIONS,
    {"dump-directory", SHARD_PASS_OPTION_STRING, "", NULL, "accepted, ignored"},
    {"avoid-export-for-partitioning", SHARD_PASS_OPTION_BOOL, "false", NULL, "stop before the partitioner steps"},
    {"enable-insert-explicit-collectives", SHARD_PASS_OPTION_BOOL, "false", NULL,
     "insert explicit reshards and collectives"},
    {"remove-all-gather-reduce-scatter-for-cmv1", SHARD_PASS_OPTION_BOOL, "false", NULL,
     "drop all_gathers feeding dots and reduce_scatters of dot results"},
    {"enable-per-instruction-partitioning", SHARD_PASS_OPTION_BOOL, "false", NULL, "partition chosen ops one by one"},
    {"per-instruction-partitioning-filter", SHARD_PASS_OPTION_STRING, "", NULL,
     "the ops per-instruction partitioning takes"},
    {"keep-sharding-rules", SHARD_PASS_OPTION_BOOL, "false", NULL, "keep sdy.sharding_rule attributes"},
    {"dump-sharding-origins", SHARD_PASS_OPTION_BOOL, "false", NULL, "keep sharding origins"},
    {"dump-propagation-edges", SHARD_PASS_OPTION_BOOL, "false", NULL, "keep propagation edges"},
    {"avoid-reshards-on-calls", SHARD_PASS_OPTION_BOOL, "false", NULL, "accepted, ignored"},
    {"update-non-divisible-input-output-shardings", SHARD_PASS_OPTION_BOOL, "true", NULL,
     "shrink boundary shardings to prefixes that divide"},
    {"inline-meshes", SHARD_PASS_OPTION_BOOL, "true", NULL, "inline meshes into shardings"},
    END,
};
static const shard_pass_option_def O_populate[] = {
    {"conservative-propagation", SHARD_PASS_OPTION_BOOL, "false", NULL, "rules for conservative propagation"},
    END,
};
static const shard_pass_option_def O_sink[] = {
    {"sink-debug-sharding-origins", SHARD_PASS_OPTION_BOOL, "false", NULL,
     "move sharding origins onto the data-flow ops"},
    {"sink-debug-propagation-edge-sharding", SHARD_PASS_OPTION_BOOL, "false", NULL,
     "move propagation edges onto the data-flow ops"},
    END,
};
static const shard_pass_option_def O_debug[] = {
    DEBUG_OPTIONS,
    END,
};
static const shard_pass_option_def O_import_calls[] = {
    {"add-data-flow-edges-on-named-computations", SHARD_PASS_OPTION_BOOL, "true", NULL,
     "add data-flow edges on the named computations"},
    END,
};

static const shard_pass_option_def O_xla_import[] = {
    {"enable-constant-import", SHARD_PASS_OPTION_BOOL, "true", NULL, "turn stablehlo.constant into sdy.constant"},
    {"lift-and-dedup-meshes", SHARD_PASS_OPTION_BOOL, "false", NULL, "accepted, ignored"},
    {"enable-hlo-sharding-v3", SHARD_PASS_OPTION_BOOL, "false", NULL, "accepted, ignored"},
    END,
};

static const shard_pass_option_def O_xla_import_old[] = {
    {"enable-constant-import", SHARD_PASS_OPTION_BOOL, "false", NULL, "turn stablehlo.constant into sdy.constant"},
    END,
};
static const shard_pass_option_def O_xla_export[] = {
    {"keep-meshes-inlined", SHARD_PASS_OPTION_BOOL, "false", NULL, "accepted, ignored"},
    {"enable-hlo-sharding-v3", SHARD_PASS_OPTION_BOOL, "false", NULL, "accepted, ignored"},
    END,
};

static const shard_pass_def S_passes[] = {
    {"canonicalize", "MLIR's canonicalizer with the sdy ops' patterns", O_canonicalize, shard_pass_canonicalize},
    {"chlo-legalize-to-stablehlo", "accepted: chlo ops are kept, the interpreter runs them as they are", NULL,
     shard_pass_keep_chlo},
    {"chlo-pre-serialization-pipeline", "accepted: chlo ops are kept, the interpreter runs them as they are", NULL,
     shard_pass_keep_chlo},
    {"inline", "MLIR's inliner: replace calls by the callee's body, erase dead private funcs", NULL, shard_pass_inline},
    {"sdy-add-data-flow-edges", "insert sdy.data_flow_edge ops on the edge owners of data-flow ops", NULL,
     shard_pass_add_data_flow_edges},
    {"sdy-add-func-data-flow-edges", "insert sdy.func_data_flow_edge on non-main func arguments and call results", NULL,
     shard_pass_add_func_data_flow_edges},
    {"sdy-aggressive-propagate", "sharding propagation with the aggressive (or chosen) factor strategy", O_aggressive,
     shard_pass_aggressive_propagate},
    {"sdy-apply-sharding-constraints", "copy fully closed constraint shardings onto unsharded inputs", O_debug,
     shard_pass_apply_sharding_constraints},
    {"sdy-basic-propagate", "sharding propagation with the basic factor strategy", O_basic, shard_pass_basic_propagate},
    {"sdy-close-shardings", "close all dimension shardings and drop replicated axes", NULL, shard_pass_close_shardings},
    {"sdy-constant-or-scalar-merger", "merge identical constants and scalar broadcasts within a region", NULL,
     shard_pass_constant_or_scalar_merger},
    {"sdy-constant-or-scalar-splitter", "split constant sub-computations and scalar broadcasts per user", NULL,
     shard_pass_constant_or_scalar_splitter},
    {"sdy-convert-global-to-local", "rewrite global shapes into per-device local shapes with StableHLO collectives",
     O_global_to_local, shard_pass_convert_global_to_local},
    {"sdy-drop-sharding-and-mesh", "drop every sdy.sharding attribute and every sdy.mesh", NULL,
     shard_pass_drop_sharding_and_mesh},
    {"sdy-drop-sharding-rules", "remove every non-custom sdy.sharding_rule", NULL, shard_pass_drop_sharding_rules},
    {"sdy-explicit-gather-scatter-batching", "make iota-indexed batch dims of gather/scatter explicit batching dims",
     NULL, shard_pass_explicit_gather_scatter_batching},
    {"sdy-export-named-computations", "turn sdy.named_computation ops back into private funcs and calls", NULL,
     shard_pass_export_named_computations},
    {"sdy-export-pipeline", "the export passes Shardy runs after propagation", O_export, shard_pass_export_pipeline},
    {"sdy-flatten-call-graph", "give every call but the first of a func its own recursive copy", NULL,
     shard_pass_flatten_call_graph},
    {"sdy-import-func-calls", "turn func.call ops into sdy.named_computation ops holding the callee body",
     O_import_calls, shard_pass_import_func_calls},
    {"sdy-import-pipeline", "the import passes Shardy runs before propagation", O_dedup, shard_pass_import_pipeline},
    {"sdy-inline-meshes", "replace mesh symbol references by the meshes and drop the sdy.mesh ops", NULL,
     shard_pass_inline_meshes},
    {"sdy-insert-explicit-reshards",
     "reshard operands and results so every op's shardings agree with its sharding rule", O_explicit,
     shard_pass_insert_explicit_reshards},
    {"sdy-insert-func-call-reshards", "give calls their callee's result shardings, resharding back for users", NULL,
     shard_pass_insert_func_call_reshards},
    {"sdy-lift-inlined-meshes", "dedup meshes and lift inlined meshes into sdy.mesh symbols", NULL,
     shard_pass_lift_inlined_meshes},
    {"sdy-manual-axes-cleanup", "sort manual axes and add unused manual axes to replicated axes", NULL,
     shard_pass_manual_axes_cleanup},
    {"sdy-op-priority-propagate", "aggressive propagation in five op-priority steps", O_priority,
     shard_pass_op_priority_propagate},
    {"sdy-pad-for-divisibility", "pad values whose sharding does not divide their shape (func IO must be divisible)",
     NULL, shard_pass_pad_for_divisibility},
    {"sdy-per-instruction-partitioning", "partition chosen ops one by one into manual computations (filter=...)",
     O_per_instruction, shard_pass_per_instruction_partitioning},
    {"sdy-populate-op-sharding-rules", "attach the registry's sdy.sharding_rule to every op that has none", O_populate,
     shard_pass_populate_op_sharding_rules},
    {"sdy-pre-order-funcs", "reorder funcs in call graph pre-order", NULL, shard_pass_pre_order_funcs},
    {"sdy-propagate-sharding-from-func-to-call", "give unsharded calls their callee's result shardings", NULL,
     shard_pass_propagate_sharding_from_func_to_call},
    {"sdy-propagate-to-func-results", "copy returned values' shardings onto non-main func results", NULL,
     shard_pass_propagate_to_func_results},
    {"sdy-propagation-pipeline", "import passes, user-priority propagation and export passes", O_dedup,
     shard_pass_propagation_pipeline},
    {"sdy-remove-all-gather-reduce-scatter-for-cmv1",
     "drop all_gathers feeding dots and reduce_scatters of dot results", NULL,
     shard_pass_remove_all_gather_reduce_scatter_for_cmv1},
    {"sdy-remove-propagation-debug-info", "drop propagation debug attributes (edges, origins)", NULL,
     shard_pass_remove_propagation_debug_info},
    {"sdy-remove-sharding-groups", "erase every sdy.sharding_group", NULL, shard_pass_remove_sharding_groups},
    {"sdy-remove-size-one-axes", "remove mesh axes of size one from all shardings", NULL,
     shard_pass_remove_size_one_axes},
    {"sdy-remove-sub-axes-in-input-output-shardings", "cut open dims of main func shardings at their first sub-axis",
     NULL, shard_pass_remove_sub_axes_in_input_output_shardings},
    {"sdy-reshard-to-collectives",
     "rewrite every sdy.reshard into sdy collectives (all_slice, collective_permute, all_to_all, all_gather)",
     O_reshard, shard_pass_reshard_to_collectives},
    {"sdy-resolve-permutation-factors",
     "replicate (or halo-exchange) sharded permutation factors and non-divisible reshapes", O_permutation,
     shard_pass_resolve_permutation_factors},
    {"sdy-resolve-single-device-sharding", "run single-device ops under a device guard and all-reduce their results",
     O_counts, shard_pass_resolve_single_device_sharding},
    {"sdy-round-trip-import-pipeline",
     "XLA: the sdy round-trip import pipeline under its former name (no constant import)", O_xla_import_old,
     shard_pass_sdy_round_trip_import_pipeline},
    {"sdy-sharding-constraint-to-reshard", "turn sdy.sharding_constraint into sdy.reshard", NULL,
     shard_pass_sharding_constraint_to_reshard},
    {"sdy-sharding-group-import", "validate sharding groups, unify groups sharing a value and renumber them", NULL,
     shard_pass_sharding_group_import},
    {"sdy-sink-data-flow-edges", "move data_flow_edge shardings onto their data-flow ops and remove the edges", O_sink,
     shard_pass_sink_data_flow_edges},
    {"sdy-sink-func-data-flow-edges", "move sdy.func_data_flow_edge shardings onto func arguments and call results",
     NULL, shard_pass_sink_func_data_flow_edges},
    {"sdy-unflatten-call-graph", "point calls at one func per original name and shardings", O_dedup,
     shard_pass_unflatten_call_graph},
    {"sdy-update-non-divisible-input-output-shardings",
     "shrink boundary shardings to prefixes that divide their dimensions", NULL,
     shard_pass_update_non_divisible_input_output_shardings},
    {"sdy-user-priority-propagate", "op-priority propagation once per user priority (p0, p1, ...)", O_priority,
     shard_pass_user_priority_propagate},
    {"sdy-verify-unreduced-axes", "check that unreduced axes are only dropped by blessed ops", NULL,
     shard_pass_verify_unreduced_axes},
    {"stablehlo-legalize-composite-to-call", "replace stablehlo.composite by a func.call of its decomposition", NULL,
     shard_pass_legalize_composite_to_call},
    {"symbol-dce", "erase private symbols nothing refers to", NULL, shard_pass_symbol_dce},
    {"xla-sdy-export-named-computations", "XLA: turn sdy.named_computation ops back into private funcs and calls", NULL,
     shard_pass_xla_export_named_computations},
    {"xla-sdy-import-constants", "XLA: turn stablehlo.constant into sdy.constant", NULL,
     shard_pass_xla_import_constants},
    {"xla-sdy-import-sdy-custom-calls", "XLA: Sharding and xla.sdy.ShardingGroup custom calls become sdy ops", NULL,
     shard_pass_xla_import_sdy_custom_calls},
    {"xla-sdy-import-shardings", "XLA: mhlo.sharding to sdy.sharding on one mesh with XLA's axis names (axis_0, ...)",
     NULL, shard_pass_xla_import_shardings},
    {"xla-sdy-import-uninlineable-func-calls",
     "XLA: calls XLA must not inline (backend_config, inlineable=false) become sdy.named_computation", NULL,
     shard_pass_xla_import_uninlineable_func_calls},
    {"xla-sdy-open-while-free-vars-sharding",
     "XLA: sharded values a stablehlo.while uses from outside go through an open constraint", NULL,
     shard_pass_xla_open_while_free_vars_sharding},
    {"xla-sdy-prepare-callbacks", "XLA: Python callbacks without results get one of their first operand's type", NULL,
     shard_pass_xla_prepare_callbacks},
    {"xla-sdy-round-trip-dedup-meshes", "XLA: meshes over the same devices become one, shardings renamed onto it", NULL,
     shard_pass_xla_round_trip_dedup_meshes},
    {"xla-sdy-round-trip-export-ops",
     "XLA: sdy.constant, sharding constraints and groups to their StableHLO/custom call forms", NULL,
     shard_pass_xla_round_trip_export_ops},
    {"xla-sdy-round-trip-export-pipeline",
     "XLA: export a module with its Shardy attributes kept as frontend attributes", O_xla_export,
     shard_pass_xla_round_trip_export_pipeline},
    {"xla-sdy-round-trip-export-shardy-attrs",
     "XLA: meshes, shardings and sharding rules into frontend attributes (and mhlo.sharding)", NULL,
     shard_pass_xla_round_trip_export_shardy_attrs},
    {"xla-sdy-round-trip-import-pipeline", "XLA: import a module carrying Shardy attributes as frontend attributes",
     O_xla_import, shard_pass_xla_round_trip_import_pipeline},
    {"xla-sdy-round-trip-import-shardy-attrs",
     "XLA: frontend attributes (xla.sdy.meshes, xla.sdy.sharding, ...) back to sdy", NULL,
     shard_pass_xla_round_trip_import_shardy_attrs},
    {"xla-sdy-round-trip-remove-size-one-axes", "XLA: remove mesh axes of size one from all shardings", NULL,
     shard_pass_xla_round_trip_remove_size_one_axes},
    {"xla-sdy-round-trip-shard-map-export",
     "XLA: sdy.manual_computation to GlobalToLocalShape, a body func call and LocalToGlobalShape", NULL,
     shard_pass_xla_round_trip_shard_map_export},
    {"xla-sdy-round-trip-shard-map-import",
     "XLA: GlobalToLocalShape, manual computation body call, LocalToGlobalShape to sdy.manual_computation", NULL,
     shard_pass_xla_round_trip_shard_map_import},
    {"xla-sdy-round-trip-testing-pipeline", "XLA: the round-trip export pipeline, then its import pipeline", NULL,
     shard_pass_xla_round_trip_testing_pipeline},
    {"xla-sdy-stablehlo-export-pipeline",
     "XLA: sdy back to mhlo.sharding, manual computations to SPMDFullToShardShape/SPMDShardToFullShape", NULL,
     shard_pass_xla_stablehlo_export_pipeline},
    {"xla-sdy-stablehlo-import-pipeline", "XLA: import a StableHLO module with mhlo.sharding (GSPMD) into sdy", NULL,
     shard_pass_xla_stablehlo_import_pipeline},
    {"xla-sdy-stablehlo-round-trip-shard-map-export",
     "XLA: sdy.manual_computation to mhlo.copy, SPMDFullToShardShape, the body, SPMDShardToFullShape", NULL,
     shard_pass_xla_stablehlo_shard_map_export},
    {"xla-stablehlo-round-trip-shard-map-import",
     "XLA: JAX's shard_map (Sharding, SPMDFullToShardShape, call @shmap_body, ...) to sdy.manual_computation", NULL,
     shard_pass_xla_stablehlo_round_trip_shard_map_import},
};

const shard_pass_def *shard_pass_registry(unsigned *n) {
  *n = sizeof S_passes / sizeof *S_passes;
  return S_passes;
}

const shard_pass_def *shard_pass_find(const char *name, size_t len) {
  for (size_t i = 0; i < sizeof S_passes / sizeof *S_passes; i++)
    if (strlen(S_passes[i].name) == len && memcmp(S_passes[i].name, name, len) == 0) return &S_passes[i];
  return NULL;
}

bool shard_pass_run(const char *name, shard_module *m, const char *options, const shard_pass_context *cx) {
  shard_diag_engine *de = cx->de;
  const shard_pass_def *p = shard_pass_find(name, strlen(name));
  if (!p) {
    shard_error(de, shard_no_span, "internal error: no pass named '%s'", name);
    return false;
  }
  return p->run(m, options, cx);
}

bool shard_pipeline_run(shard_module *m, const shard_pipeline_step *steps, size_t n, bool verify,
                        const shard_pass_context *cx) {
  shard_diag_engine *de = cx->de;
  shard_verify_options vopts = {.extra_warnings = false};
  unsigned before = de->errors;
  for (size_t i = 0; i < n; i++) {
    if (!shard_pass_run(steps[i].pass, m, steps[i].options, cx) || de->errors != before) return false;
    if (verify && (!shard_verify_module(m, &vopts, de) || de->errors != before)) return false;
  }
  return true;
}
