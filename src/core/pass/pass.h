/* Module passes. Each pass is one function over a whole module, named after
 * its sdy_opt flag: -sdy-foo-bar is shard_pass_foo_bar. `options` is the text
 * after '=' in -sdy-foo='a=1 b=true' (NULL when none). A pass returns false
 * after reporting an error through `de`.
 *
 * Declarations are grouped by the file that implements them; add yours to
 * your group (append only). The registry (pipeline/pass_registry.c) names
 * each pass, its summary and its options for `shard opt`, its help and the
 * shell completion. */
#ifndef SHARD_PASS_H
#define SHARD_PASS_H

#include <stdbool.h>

#include <stddef.h>

#include "support/buf.h"
#include "support/diag.h"
#include "ir/ir.h"

/* What a pass receives besides the module and its options: where its
 * diagnostics go, and the caller's hooks for the passes that run
 * propagation (each NULL when the caller has none). Nothing of this lives in
 * process-wide state: two modules can be processed side by side with their
 * own observers and rules. */
struct shard_propagation_observer; /* propagate/propagate.h */
struct shard_rule_provider; /* rules/rule_registry.h */
typedef struct shard_pass_context {
  shard_diag_engine *de;
  /* Told every step of each propagation the pass runs (explain, REPL). */
  const struct shard_propagation_observer *observer;
  /* Rules for ops the registry does not know (`propagate --rules FILE`). */
  const struct shard_rule_provider *rules;
} shard_pass_context;

/* A context that only reports to `de` (a compound literal: valid in the
 * enclosing block). */
#define SHARD_PASS_CONTEXT(de_) (&(shard_pass_context){.de = (de_)})

typedef bool (*shard_pass_fn)(shard_module *m, const char *options, const shard_pass_context *cx);

/* ---- options ------------------------------------------------------------
 *
 * Pass options are MLIR's: `key=value` words separated by white space, a
 * value quoted with '...' or "..." or braced {...} when it holds spaces; a
 * boolean option given without a value is true. Every pass declares its
 * options (pipeline/pass_registry.c), and shard_pass_options_validate checks
 * a user's text against that schema before the pass runs, so a pass reads
 * only well-formed values of options it knows. */

typedef enum shard_pass_option_kind {
  SHARD_PASS_OPTION_BOOL, /* true, false, 1, 0 */
  SHARD_PASS_OPTION_INT, /* a decimal integer */
  SHARD_PASS_OPTION_ENUM, /* one of `choices` ("a|b|c") */
  SHARD_PASS_OPTION_STRING, /* any text (lists, filters, paths) */
} shard_pass_option_kind;

typedef struct shard_pass_option_def {
  const char *name;
  shard_pass_option_kind kind;
  const char *fallback; /* the value when the option is not given, as text */
  const char *choices; /* SHARD_PASS_OPTION_ENUM: "a|b|c" */
  const char *help;
} shard_pass_option_def;

/* One pass of `shard opt`: its flag name without the dash, what it does, its
 * options (terminated by an entry with a NULL name) and its function. */
typedef struct shard_pass_def {
  const char *name;
  const char *summary;
  const shard_pass_option_def *options;
  shard_pass_fn run;
} shard_pass_def;

/* The accepted values of an option in words: "true or false", "an
 * integer", "one of a, b, c" or "any text". */
const char *shard_pass_option_accepts(const shard_pass_option_def *o, char *buf, size_t cap);

/* Checks `options` (NULL: none) against the pass's schema: every key one of
 * its options, every value of its kind. On failure writes what is wrong to
 * err, naming the option and the accepted values, and returns false. */
bool shard_pass_options_validate(const shard_pass_def *p, const char *options, shard_buf *err);

/* Reading one option of validated text. Each returns true and sets *out when
 * `key` is present and well-formed, and leaves *out untouched otherwise. */
bool shard_pass_option_bool(const char *options, const char *key, bool *out);
bool shard_pass_option_int(const char *options, const char *key, long long *out);
/* Returns a heap copy of the value, unquoted (caller frees), or NULL when
 * absent. */
char *shard_pass_option_string(const char *options, const char *key);

/* canonicalize.c (and canonicalize_*.c): -canonicalize for sdy ops */
bool shard_pass_canonicalize(shard_module *m, const char *options, const shard_pass_context *cx);

/* pass_meshes.c: mesh housekeeping (lift, inline, size-one axes) */
bool shard_pass_lift_inlined_meshes(shard_module *m, const char *options, const shard_pass_context *cx);
bool shard_pass_inline_meshes(shard_module *m, const char *options, const shard_pass_context *cx);
bool shard_pass_remove_size_one_axes(shard_module *m, const char *options, const shard_pass_context *cx);

/* pass_data_flow_edges.c: sdy.data_flow_edge on the edge owners of data-flow ops */
bool shard_pass_add_data_flow_edges(shard_module *m, const char *options, const shard_pass_context *cx);
bool shard_pass_sink_data_flow_edges(shard_module *m, const char *options, const shard_pass_context *cx);

/* pass_export_cleanup.c: strip or rewrite sharding annotations */
bool shard_pass_remove_sharding_groups(shard_module *m, const char *options, const shard_pass_context *cx);
bool shard_pass_remove_propagation_debug_info(shard_module *m, const char *options, const shard_pass_context *cx);
bool shard_pass_drop_sharding_and_mesh(shard_module *m, const char *options, const shard_pass_context *cx);
bool shard_pass_sharding_constraint_to_reshard(shard_module *m, const char *options, const shard_pass_context *cx);
bool shard_pass_close_shardings(shard_module *m, const char *options, const shard_pass_context *cx);

/* pass_manual_axes.c: -sdy-manual-axes-cleanup */
bool shard_pass_manual_axes_cleanup(shard_module *m, const char *options, const shard_pass_context *cx);

/* pass_populate_rules.c: -sdy-populate-op-sharding-rules */
bool shard_pass_populate_op_sharding_rules(shard_module *m, const char *options, const shard_pass_context *cx);

/* pass_sharding_groups.c: -sdy-sharding-group-import */
bool shard_pass_sharding_group_import(shard_module *m, const char *options, const shard_pass_context *cx);

/* pass_apply_constraints.c: -sdy-apply-sharding-constraints */
bool shard_pass_apply_sharding_constraints(shard_module *m, const char *options, const shard_pass_context *cx);

/* pass_func_calls.c: -sdy-propagate-sharding-from-func-to-call */
bool shard_pass_propagate_sharding_from_func_to_call(shard_module *m, const char *options,
                                                     const shard_pass_context *cx);

/* pass_propagate.c: sharding propagation (basic, aggressive, op and user priorities) */
bool shard_pass_basic_propagate(shard_module *m, const char *options, const shard_pass_context *cx);
bool shard_pass_aggressive_propagate(shard_module *m, const char *options, const shard_pass_context *cx);
bool shard_pass_op_priority_propagate(shard_module *m, const char *options, const shard_pass_context *cx);
bool shard_pass_user_priority_propagate(shard_module *m, const char *options, const shard_pass_context *cx);
bool shard_pass_propagation_pipeline(shard_module *m, const char *options, const shard_pass_context *cx);

/* pass_reshard_to_collectives.c: -sdy-reshard-to-collectives (algorithm in reshard.c) */
bool shard_pass_reshard_to_collectives(shard_module *m, const char *options, const shard_pass_context *cx);

/* pass_constant_splitter.c: -sdy-constant-or-scalar-splitter */
bool shard_pass_constant_or_scalar_splitter(shard_module *m, const char *options, const shard_pass_context *cx);

/* pass_func_calls.c: call graph passes (import as named computations,
 * flattening, func data-flow edges, pre-order) */
bool shard_pass_import_func_calls(shard_module *m, const char *options, const shard_pass_context *cx);
bool shard_pass_flatten_call_graph(shard_module *m, const char *options, const shard_pass_context *cx);
bool shard_pass_add_func_data_flow_edges(shard_module *m, const char *options, const shard_pass_context *cx);
bool shard_pass_pre_order_funcs(shard_module *m, const char *options, const shard_pass_context *cx);

/* pipeline/pass_stablehlo.c: the stablehlo-opt steps of StableHLO's
 * interpreter tests: MLIR's -inline, -stablehlo-legalize-composite-to-call,
 * and the chlo pipelines, which keep chlo ops for the interpreter */
bool shard_pass_inline(shard_module *m, const char *options, const shard_pass_context *cx);
bool shard_pass_legalize_composite_to_call(shard_module *m, const char *options, const shard_pass_context *cx);
bool shard_pass_keep_chlo(shard_module *m, const char *options, const shard_pass_context *cx);

/* pass_import_pipeline.c: -sdy-import-pipeline and MLIR's -symbol-dce */
bool shard_pass_import_pipeline(shard_module *m, const char *options, const shard_pass_context *cx);
bool shard_pass_symbol_dce(shard_module *m, const char *options, const shard_pass_context *cx);

/* pass_func_calls.c: -sdy-sink-func-data-flow-edges (export) */
bool shard_pass_sink_func_data_flow_edges(shard_module *m, const char *options, const shard_pass_context *cx);

/* pass_explicit_batching.c: -sdy-explicit-gather-scatter-batching */
bool shard_pass_explicit_gather_scatter_batching(shard_module *m, const char *options, const shard_pass_context *cx);

/* pass_export_calls.c: export-side func/call passes (named computations back
 * to funcs, unflattening, func result shardings, call result reshards) */
bool shard_pass_export_named_computations(shard_module *m, const char *options, const shard_pass_context *cx);
bool shard_pass_unflatten_call_graph(shard_module *m, const char *options, const shard_pass_context *cx);
bool shard_pass_propagate_to_func_results(shard_module *m, const char *options, const shard_pass_context *cx);
bool shard_pass_insert_func_call_reshards(shard_module *m, const char *options, const shard_pass_context *cx);

/* pass_export_misc.c: small export passes (sharding rules, constant merger,
 * all-gather/reduce-scatter removal for CMv1, unreduced-axes verifier) */
bool shard_pass_drop_sharding_rules(shard_module *m, const char *options, const shard_pass_context *cx);
bool shard_pass_constant_or_scalar_merger(shard_module *m, const char *options, const shard_pass_context *cx);
bool shard_pass_remove_all_gather_reduce_scatter_for_cmv1(shard_module *m, const char *options,
                                                          const shard_pass_context *cx);
bool shard_pass_verify_unreduced_axes(shard_module *m, const char *options, const shard_pass_context *cx);

/* pass_export_divisibility.c: boundary shardings for partitioners that can't pad */
bool shard_pass_update_non_divisible_input_output_shardings(shard_module *m, const char *options,
                                                            const shard_pass_context *cx);
bool shard_pass_remove_sub_axes_in_input_output_shardings(shard_module *m, const char *options,
                                                          const shard_pass_context *cx);

/* pass_insert_explicit_reshards.c: -sdy-insert-explicit-reshards (algorithm in explicit_reshards.c) */
bool shard_pass_insert_explicit_reshards(shard_module *m, const char *options, const shard_pass_context *cx);

/* pass_export_pipeline.c: -sdy-export-pipeline (Shardy's export order) */
bool shard_pass_export_pipeline(shard_module *m, const char *options, const shard_pass_context *cx);

/* pass_global_to_local.c: -sdy-convert-global-to-local (local shapes, StableHLO collectives) */
/* A mesh of more than SHARD_MAX_MESH_DEVICES (support/limits.h) devices is
 * refused, at the mesh, before any op is rewritten: this check, which
 * `shard lower --local/--verify` also runs on its input first. */
bool shard_global_to_local_device_limit(const shard_module *m, shard_diag_engine *de);
bool shard_pass_convert_global_to_local(shard_module *m, const char *options, const shard_pass_context *cx);

/* pass_export_divisibility.c: -sdy-pad-for-divisibility (partial: function IO
 * checks; modules that need padding are refused) */
bool shard_pass_pad_for_divisibility(shard_module *m, const char *options, const shard_pass_context *cx);

/* pass_export_misc.c: -sdy-resolve-single-device-sharding */
bool shard_pass_resolve_single_device_sharding(shard_module *m, const char *options, const shard_pass_context *cx);

/* pass_per_instruction.c: -sdy-per-instruction-partitioning (chosen ops
 * partitioned one by one into manual computations) */
bool shard_pass_per_instruction_partitioning(shard_module *m, const char *options, const shard_pass_context *cx);

/* pass_permutation_factors.c (+ _halo.c): -sdy-resolve-permutation-factors
 * (replicate or halo-exchange sharded permutation factors and non-divisible
 * reshape groups) */
bool shard_pass_resolve_permutation_factors(shard_module *m, const char *options, const shard_pass_context *cx);

/* xla/pass_xla_*.c: XLA's Shardy round trip (frontend attributes, custom
 * calls, manual computations) and its mesh passes */
bool shard_pass_xla_round_trip_dedup_meshes(shard_module *m, const char *options, const shard_pass_context *cx);
bool shard_pass_xla_round_trip_remove_size_one_axes(shard_module *m, const char *options, const shard_pass_context *cx);
bool shard_pass_xla_round_trip_import_shardy_attrs(shard_module *m, const char *options, const shard_pass_context *cx);
bool shard_pass_xla_import_sdy_custom_calls(shard_module *m, const char *options, const shard_pass_context *cx);
bool shard_pass_xla_import_constants(shard_module *m, const char *options, const shard_pass_context *cx);
bool shard_pass_xla_open_while_free_vars_sharding(shard_module *m, const char *options, const shard_pass_context *cx);
bool shard_pass_xla_round_trip_shard_map_import(shard_module *m, const char *options, const shard_pass_context *cx);
bool shard_pass_xla_round_trip_import_pipeline(shard_module *m, const char *options, const shard_pass_context *cx);
bool shard_pass_xla_round_trip_export_ops(shard_module *m, const char *options, const shard_pass_context *cx);
bool shard_pass_xla_round_trip_shard_map_export(shard_module *m, const char *options, const shard_pass_context *cx);
bool shard_pass_xla_round_trip_export_shardy_attrs(shard_module *m, const char *options, const shard_pass_context *cx);
bool shard_pass_xla_round_trip_export_pipeline(shard_module *m, const char *options, const shard_pass_context *cx);
bool shard_pass_xla_round_trip_testing_pipeline(shard_module *m, const char *options, const shard_pass_context *cx);
bool shard_pass_xla_stablehlo_round_trip_shard_map_import(shard_module *m, const char *options,
                                                          const shard_pass_context *cx);
bool shard_pass_xla_stablehlo_import_pipeline(shard_module *m, const char *options, const shard_pass_context *cx);
bool shard_pass_sdy_round_trip_import_pipeline(shard_module *m, const char *options, const shard_pass_context *cx);
bool shard_pass_xla_prepare_callbacks(shard_module *m, const char *options, const shard_pass_context *cx);
bool shard_pass_xla_stablehlo_export_pipeline(shard_module *m, const char *options, const shard_pass_context *cx);
bool shard_pass_xla_stablehlo_shard_map_export(shard_module *m, const char *options, const shard_pass_context *cx);
bool shard_pass_xla_import_uninlineable_func_calls(shard_module *m, const char *options, const shard_pass_context *cx);
bool shard_pass_xla_import_shardings(shard_module *m, const char *options, const shard_pass_context *cx);
bool shard_pass_xla_export_named_computations(shard_module *m, const char *options, const shard_pass_context *cx);

#endif
