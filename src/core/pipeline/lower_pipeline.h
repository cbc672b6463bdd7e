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
bool shard_propagation_pipeline_run_until_export(shard_module *m, const char *options, shard_diag_engine *de);

/* All of `shard lower` before the per-device conversion: the propagation
 * pipeline (or, without `propagate`, the shardings as written, closed) and
 * the exports with explicit collectives, the result verified. False after
 * reporting through de. */
bool shard_lower_pipeline_run(shard_module *m, bool propagate, shard_diag_engine *de);

#endif
