/* -sdy-export-pipeline: the passes Shardy runs after propagation, in the
 * order of its addExportPipeline:
 *
 *   constant merger, sink data-flow edges (debug sinks as asked);
 *   unless avoid-export-for-partitioning: remove sharding groups, sharding
 *     constraints to reshards;
 *   with update-non-divisible-input-output-shardings (default): make the
 *     boundary shardings divisible, then drop their sub-axes;
 *   close shardings;
 *   unless avoid-export-for-partitioning, the partitioner: verify unreduced
 *     axes, insert explicit reshards (full version with explicit collectives
 *     or per-instruction partitioning), then per-instruction partitioning,
 *     or with explicit collectives the reshard canonicalization and
 *     reshards to collectives; the collective canonicalization; with
 *     explicit collectives and remove-all-gather-reduce-scatter-for-cmv1
 *     the CMv1 cleanup;
 *   the debug-info removal when debug sinks were asked for;
 *   drop sharding rules unless keep-sharding-rules;
 *   inline meshes (inline-meshes, default true) unless
 *     avoid-export-for-partitioning.
 *
 * With enable-per-instruction-partitioning, -sdy-per-instruction-partitioning
 * runs after the explicit reshards with per-instruction-partitioning-filter
 * as its filter and the replica and partition counts. dump-directory is
 * accepted, but shard writes no intermediate modules.
 * The canonicalizer runs with enable-patterns=<label> as Shardy's does, so
 * the reshard patterns stay off in the collective clean-up.
 *
 * shard lower runs two exports back to back: the propagation pipeline's
 * (inline-meshes=false) and then the one with explicit collectives.
 * shard_export_pipeline_run_for_lower (export_pipeline.h) runs them as one
 * sequence in which the second skips the clean-up steps the first has
 * already made no-ops; see S_export's `repeat`. */
#include <stdio.h>
#include <stdlib.h>

#include "export/explicit_reshards.h"
#include "export/export_pipeline.h"
#include "pass/pass.h"

typedef struct export_options {
  long long replica_count, partition_count;
  bool avoid_export, explicit_collectives, remove_ag_rs, per_instruction;
  char *per_instruction_filter;
  bool keep_rules, dump_origins, dump_edges, update_non_divisible, inline_meshes;
  /* 1 or 2: shard lower's first or second export, whose explicit reshards
   * insert the all_reduces of sharded reduction factors once between them
   * (explicit_reshards.h); 0 otherwise */
  int lower_run;
  /* shard lower's exports (lower_run 0 for its one export of the
   * shardings as written): the partitioner runs as
   * shard_explicit_reshards_insert_for_lower */
  bool for_lower;
} export_options;

static export_options S_defaults(void) {
  return (export_options){
      .replica_count = 1, .partition_count = 1, .update_non_divisible = true, .inline_meshes = true};
}

static bool S_parse_options(const char *options, export_options *o, shard_diag_engine *de) {
  *o = S_defaults();
  shard_pass_option_int(options, "replica-count", &o->replica_count);
  shard_pass_option_int(options, "partition-count", &o->partition_count);
  shard_pass_option_bool(options, "avoid-export-for-partitioning", &o->avoid_export);
  shard_pass_option_bool(options, "enable-insert-explicit-collectives", &o->explicit_collectives);
  shard_pass_option_bool(options, "remove-all-gather-reduce-scatter-for-cmv1", &o->remove_ag_rs);
  shard_pass_option_bool(options, "enable-per-instruction-partitioning", &o->per_instruction);
  o->per_instruction_filter = shard_pass_option_string(options, "per-instruction-partitioning-filter");
  shard_pass_option_bool(options, "keep-sharding-rules", &o->keep_rules);
  shard_pass_option_bool(options, "dump-sharding-origins", &o->dump_origins);
  shard_pass_option_bool(options, "dump-propagation-edges", &o->dump_edges);
  shard_pass_option_bool(options, "update-non-divisible-input-output-shardings", &o->update_non_divisible);
  shard_pass_option_bool(options, "inline-meshes", &o->inline_meshes);
  return true;
}

static bool S_partitioner(shard_module *m, const export_options *o, const shard_pass_context *cx) {
  shard_diag_engine *de = cx->de;
  bool any_unreduced;
  if (!shard_export_verify_unreduced_axes(m, &any_unreduced, cx)) return false;
  bool full = o->explicit_collectives || o->per_instruction;
  if (o->for_lower ? !shard_explicit_reshards_insert_for_lower(m, full, o->lower_run, any_unreduced, de)
                   : !shard_explicit_reshards_insert(m, full, any_unreduced, de))
    return false;
  if (o->per_instruction) {
    shard_buf opts;
    shard_buf_init(&opts);
    shard_buf_printf(&opts, "replica-count=%lld partition-count=%lld", o->replica_count, o->partition_count);
    if (o->per_instruction_filter) shard_buf_printf(&opts, " filter='%s'", o->per_instruction_filter);
    bool ok = shard_pass_per_instruction_partitioning(m, shard_buf_str(&opts), cx);
    shard_buf_free(&opts);
    if (!ok) return false;
  } else if (o->explicit_collectives) {
    if (!shard_pass_canonicalize(m, "enable-patterns=sdy-reshard", cx) ||
        !shard_pass_reshard_to_collectives(m, NULL, cx))
      return false;
  }
  if (!shard_pass_canonicalize(m, "enable-patterns=sdy-collective", cx)) return false;
  if (o->explicit_collectives && o->remove_ag_rs && !shard_pass_remove_all_gather_reduce_scatter_for_cmv1(m, NULL, cx))
    return false;
  return true;
}

/* `repeat`: an export with default clean-up options (no debug sinks,
 * partitioning on, divisible boundaries) ran on the module just before, so
 * these steps would find nothing to do and are skipped:
 *   - sink data-flow edges: the first removed every sdy.data_flow_edge and
 *     nothing after it creates one (without debug sinks the pass only
 *     touches ops that have edges);
 *   - remove sharding groups, sharding constraints to reshards: likewise
 *     for sdy.sharding_group and sdy.sharding_constraint;
 *   - update non-divisible boundary shardings and remove their sub-axes:
 *     they read only func argument/result, call result and manual
 *     computation in/out shardings, which the partitioner and the
 *     canonicalizer leave as the first export made them (divisible, and
 *     closed, so sub-axis removal, which cuts open dims only, has none);
 *   - drop sharding rules: the first dropped every rule but custom ones,
 *     which stay, and no step attaches one (the partitioner keeps the
 *     rules it makes to itself; an op the canonicalizer copies has none).
 * Still run: the constant merger (the collective canonicalization dedups
 * equal constants whatever their shardings, which can make two broadcasts
 * of a scalar identical), close shardings (reshards the first partitioner
 * inserted may carry open dims projected from factors), and the
 * partitioner's own check of unreduced axes, now on what the first one
 * inserted. */
static bool S_export(shard_module *m, const export_options *o, bool repeat, const shard_pass_context *cx) {
  char sink[128];
  snprintf(sink, sizeof sink, "sink-debug-sharding-origins=%s sink-debug-propagation-edge-sharding=%s",
           o->dump_origins ? "true" : "false", o->dump_edges ? "true" : "false");
  if (!shard_pass_constant_or_scalar_merger(m, NULL, cx) || (!repeat && !shard_pass_sink_data_flow_edges(m, sink, cx)))
    return false;
  if (!o->avoid_export && !repeat &&
      (!shard_pass_remove_sharding_groups(m, NULL, cx) || !shard_pass_sharding_constraint_to_reshard(m, NULL, cx)))
    return false;
  if (o->update_non_divisible && !repeat &&
      (!shard_pass_update_non_divisible_input_output_shardings(m, NULL, cx) ||
       !shard_pass_remove_sub_axes_in_input_output_shardings(m, NULL, cx)))
    return false;
  if (!shard_pass_close_shardings(m, NULL, cx)) return false;
  if (!o->avoid_export && !S_partitioner(m, o, cx)) return false;
  if ((o->dump_edges || o->dump_origins) && !shard_pass_remove_propagation_debug_info(m, NULL, cx)) return false;
  if (!o->keep_rules && !repeat && !shard_pass_drop_sharding_rules(m, NULL, cx)) return false;
  if (!o->avoid_export && o->inline_meshes && !shard_pass_inline_meshes(m, NULL, cx)) return false;
  return true;
}

bool shard_pass_export_pipeline(shard_module *m, const char *options, const shard_pass_context *cx) {
  shard_diag_engine *de = cx->de;
  export_options o;
  if (!S_parse_options(options, &o, de)) return false;
  bool ok = S_export(m, &o, false, cx);
  free(o.per_instruction_filter);
  return ok;
}

bool shard_export_pipeline_run_for_lower(shard_module *m, const shard_pass_context *cx) {
  /* As -sdy-export-pipeline='inline-meshes=false' then
   * -sdy-export-pipeline='enable-insert-explicit-collectives=true
   * inline-meshes=false'. The sharding rules the first drops stay dropped
   * before the second partitioner: it must re-create them from the registry
   * as it would after a separate run, not read a rule written in the input.
   * One departure: the first leaves the all_reduces of sharded reduction
   * factors to the second, which would otherwise insert them again, and the
   * second counts an sdy.all_reduce the first inserted as summing its axes. */
  export_options first = S_defaults();
  first.inline_meshes = false;
  export_options second = first;
  second.explicit_collectives = true;
  first.lower_run = 1;
  second.lower_run = 2;
  first.for_lower = second.for_lower = true;
  return S_export(m, &first, false, cx) && S_export(m, &second, true, cx);
}

bool shard_export_pipeline_run_as_written_for_lower(shard_module *m, const shard_pass_context *cx) {
  export_options o = S_defaults();
  o.inline_meshes = false;
  o.explicit_collectives = true;
  o.for_lower = true;
  return S_export(m, &o, false, cx);
}
