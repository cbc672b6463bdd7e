/* The pipeline of `shard lower` (lower_pipeline.h), shared by the commands
 * that show a lowered module (lower, viz).
 *
 * With propagation the module is checked once, after the two exports: the
 * steps between never leave invalid IR on valid input. Without it, a call
 * whose shardings differ from its callee's gets reshards around it (as the
 * propagation pipeline's last step does) and the shardings as written are
 * closed; closing an open dimension with a priority (`{?}p1` becomes
 * `{}p1`) makes IR the verifier must reject, so every step is checked. */
#include "pipeline/lower_pipeline.h"

#include "export/export_pipeline.h"
#include "verify/verify.h"

static bool S_constraints_to_reshards(shard_module *m, shard_diag_engine *de) {
  return shard_pass_sharding_constraint_to_reshard(m, NULL, de);
}

static bool S_call_reshards(shard_module *m, shard_diag_engine *de) {
  return shard_pass_insert_func_call_reshards(m, NULL, de);
}

static bool S_close(shard_module *m, shard_diag_engine *de) { return shard_pass_close_shardings(m, NULL, de); }

bool shard_lower_pipeline_run(shard_module *m, bool propagate, shard_diag_engine *de) {
  shard_verify_options vopts = {.extra_warnings = false};
  unsigned before = de->errors;
  if (propagate)
    return shard_propagation_pipeline_run_until_export(m, NULL, de) && de->errors == before &&
           shard_export_pipeline_run_for_lower(m, de) && de->errors == before &&
           shard_verify_module(m, &vopts, de) && de->errors == before;
  typedef bool (*step)(shard_module *m, shard_diag_engine *de);
  static const step as_written[] = {S_constraints_to_reshards, S_call_reshards, S_close,
                                     shard_export_pipeline_run_as_written_for_lower};
  for (size_t i = 0; i < sizeof as_written / sizeof *as_written; i++)
    if (!as_written[i](m, de) || de->errors != before || !shard_verify_module(m, &vopts, de) || de->errors != before)
      return false;
  return true;
}
