/* The export pipeline's entry points for `shard lower` (the pass itself,
 * -sdy-export-pipeline, is declared in pass.h). */
#ifndef SHARD_EXPORT_PIPELINE_H
#define SHARD_EXPORT_PIPELINE_H

#include "pass/pass.h"

/* The propagation pipeline's export, then the export with explicit
 * collectives (pass_export_pipeline.c). */
bool shard_export_pipeline_run_for_lower(shard_module *m, const shard_pass_context *cx);

/* -sdy-export-pipeline='enable-insert-explicit-collectives=true
 * inline-meshes=false' with the partitioner as shard lower runs it
 * (explicit_reshards.h), for shardings as written. */
bool shard_export_pipeline_run_as_written_for_lower(shard_module *m, const shard_pass_context *cx);

/* -sdy-verify-unreduced-axes (pass_export_misc.c), telling in
 * *any_unreduced whether a sharding of the module has unreduced axes: the
 * walk that finds out is the pass's, and the partitioner that follows it
 * has nothing to do for unreduced axes in a module without any. */
bool shard_export_verify_unreduced_axes(shard_module *m, bool *any_unreduced, const shard_pass_context *cx);

#endif
