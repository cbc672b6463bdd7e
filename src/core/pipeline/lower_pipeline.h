/* The pipeline of `shard lower` in two pieces: Shardy's propagation
 * pipeline stopped before its closing export, and the two exports lower
 * runs after it (the propagation pipeline's own, inline-meshes=false, then
 * the one with explicit collectives) as one sequence in which the steps the
 * first already made no-ops run once. The result is the module that
 * -sdy-propagation-pipeline followed by
 * -sdy-export-pipeline='enable-insert-explicit-collectives=true
 * inline-meshes=false' gives. */
#ifndef SHARD_LOWER_PIPELINE_H
#define SHARD_LOWER_PIPELINE_H

#include "pass/pass.h"

/* -sdy-propagation-pipeline (same options) without its export pipeline
 * (propagation_pipeline.c). */
bool shard_propagation_pipeline_run_until_export(shard_module *m, const char *options, const shard_pass_context *cx);

/* All of `shard lower` before the per-device conversion, on a verified
 * module: the propagation pipeline (or, without `propagate`, the shardings
 * as written, closed) and the exports with explicit collectives. The module
 * is verified after the steps that can make valid IR invalid, and with
 * `verify_each` after every step. False after reporting through de. */
bool shard_lower_pipeline_run(shard_module *m, bool propagate, bool verify_each, shard_diag_engine *de);

/* The per-device conversion of `shard lower --local/--verify`, on a module
 * shard_lower_pipeline_run made: Shardy's partitioner stages (sharded
 * permutation factors and reshapes that move data between shards get
 * reshards, lowered to collectives; values whose sharding does not divide
 * their shape are padded; ops pinned to one device run under
 * `partition_id == d` and are all-reduced back), then global-to-local. The
 * result is verified. False after reporting through de. */
bool shard_lower_to_local(shard_module *m, shard_diag_engine *de);

/* Replaces a stablehlo.composite by a func.call of its decomposition, as
 * -stablehlo-legalize-composite-to-call does; with keep_sharding the call
 * keeps the composite's sdy.sharding. The call, or NULL after reporting a
 * composite without its decomposition (pass_stablehlo.c). */
shard_op *shard_composite_to_call(shard_module *m, shard_op *composite, bool keep_sharding, shard_diag_engine *de);

/* The device limit of the per-device conversion (SHARD_MAX_MESH_DEVICES),
 * checked on a module before any work, so that the error points at the
 * input's mesh. */
bool shard_lower_to_local_device_limit(const shard_module *m, shard_diag_engine *de);

/* How far `shard viz graph|plan --stage` takes a module: propagated (or the
 * shardings as written, closed), with explicit reshards, or lowered. */
typedef enum shard_lower_stage { SHARD_STAGE_PROPAGATED, SHARD_STAGE_RESHARDS, SHARD_STAGE_LOWERED } shard_lower_stage;
bool shard_lower_pipeline_run_to(shard_module *m, shard_lower_stage stage, bool propagate, shard_diag_engine *de);

#endif
