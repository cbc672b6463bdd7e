/* -sdy-propagation-pipeline: Shardy's import pipeline, call-graph handling,
 * user-priority propagation and the export pipeline, as one pass; and the
 * same without its export for `shard lower` (lower_pipeline.h). */
#include <stddef.h>

#include "pipeline/lower_pipeline.h"
#include "pass/pass.h"

/* ---- -sdy-propagation-pipeline ------------------------------------------------------------ */

/* Runs passes in order; stops at the first that fails. */
static bool S_run_steps(shard_module *m, const shard_pass_fn *steps, size_t n, const shard_pass_context *cx) {
  for (size_t i = 0; i < n; i++)
    if (!steps[i](m, NULL, cx)) return false;
  return true;
}

/* Shardy's propagation pipeline: the import pipeline, call-graph handling
 * (flattened and imported as named computations, or func data-flow edges
 * with dedup-functions-fully), user-priority propagation keeping the
 * created rules, the call graph back (named computations exported or func
 * data-flow edges sunk, shardings onto func results, unflattened), the
 * func-call reshards and the export pipeline without inlining meshes. */
static bool S_propagation_pipeline(shard_module *m, const char *options, bool with_export,
                                   const shard_pass_context *cx) {
  bool dedup = false;
  shard_pass_option_bool(options, "dedup-functions-fully", &dedup);
  if (!shard_pass_import_pipeline(m, dedup ? "dedup-functions-fully=true" : NULL, cx)) return false;
  static const shard_pass_fn dedup_calls[] = {shard_pass_add_func_data_flow_edges};
  static const shard_pass_fn flatten_calls[] = {
      shard_pass_flatten_call_graph,         shard_pass_symbol_dce,
      shard_pass_import_func_calls,          shard_pass_symbol_dce,
      shard_pass_apply_sharding_constraints, shard_pass_sharding_group_import,
  };
  bool ok = dedup ? S_run_steps(m, dedup_calls, 1, cx)
                  : S_run_steps(m, flatten_calls, sizeof flatten_calls / sizeof *flatten_calls, cx);
  if (!ok || !shard_pass_pre_order_funcs(m, NULL, cx) ||
      !shard_pass_user_priority_propagate(m, "keep-sharding-rules=true", cx))
    return false;
  if (dedup ? !shard_pass_propagate_to_func_results(m, NULL, cx) || !shard_pass_sink_func_data_flow_edges(m, NULL, cx)
            : !shard_pass_export_named_computations(m, NULL, cx) || !shard_pass_propagate_to_func_results(m, NULL, cx))
    return false;
  return shard_pass_unflatten_call_graph(m, NULL, cx) && shard_pass_symbol_dce(m, NULL, cx) &&
         shard_pass_insert_func_call_reshards(m, NULL, cx) &&
         (!with_export || shard_pass_export_pipeline(m, "inline-meshes=false", cx));
}

bool shard_pass_propagation_pipeline(shard_module *m, const char *options, const shard_pass_context *cx) {
  return S_propagation_pipeline(m, options, true, cx);
}

/* shard lower follows with shard_export_pipeline_run_for_lower, which runs
 * this export itself together with its own. */
bool shard_propagation_pipeline_run_until_export(shard_module *m, const char *options, const shard_pass_context *cx) {
  return S_propagation_pipeline(m, options, false, cx);
}
