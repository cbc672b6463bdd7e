/* The pipeline of `shard lower` (lower_pipeline.h), shared by the commands
 * that show a lowered module (lower, viz).
 *
 * The input is verified by the caller; after that the module is checked
 * only where a step can break an invariant of valid input. With
 * propagation no step can (the propagation pipeline and the exports keep
 * valid IR valid), so nothing is checked: a check of the result was a
 * tenth of `shard lower` at 100k ops and never fired. Without it, a call
 * whose shardings differ from its callee's gets reshards around it (as the
 * propagation pipeline's last step does) and the shardings as written are
 * closed; closing an open dimension with a priority (`{?}p1` becomes
 * `{}p1`) makes IR the verifier must reject, so that step is checked.
 * `verify_each` (lower --verify-each, the fuzzers) checks after every step
 * as mlir-opt does, to catch a step that breaks the claim above. */
#include "pipeline/lower_pipeline.h"

#include <string.h>

#include "export/export_pipeline.h"
#include "pipeline/pass_registry.h"
#include "rules/rule_registry.h"
#include "verify/verify.h"

typedef struct composites {
  shard_arena *arena;
  SHARD_VEC(shard_op *) ops;
} composites;

/* compared by definition (ir.h): asked of every op */
static shard_op_name K_stablehlo_composite = {"stablehlo.composite", NULL};

static bool S_collect_ruleless_composites(shard_op *op, void *ctx) {
  composites *c = ctx;
  if (shard_op_is(op, &K_stablehlo_composite) && !shard_rule_for_op(c->arena, op, false, NULL))
    SHARD_VEC_PUSH(c->ops, op);
  return true;
}

/* A stablehlo.composite whose op has no sharding rule (none of its own in
 * sdy.sharding_rule) is what XLA makes of it: a call of its decomposition
 * (an HLO call marked as a composite, inlined before Shardy runs unless a
 * backend keeps it). It becomes a func.call, with the composite's
 * sdy.sharding, so that propagation, the exports and the per-device
 * conversion treat the decomposition as any callee instead of leaving it
 * global behind an op without a rule. */
static bool S_composites_to_calls(shard_module *m, shard_diag_engine *de) {
  if (!m->top) return true;
  composites c = {.arena = m->arena};
  shard_walk(m->top, S_collect_ruleless_composites, &c);
  bool ok = true;
  for (uint32_t k = 0; k < c.ops.len && ok; k++) ok = shard_composite_to_call(m, c.ops.items[k], true, de) != NULL;
  SHARD_VEC_FREE(c.ops);
  return ok;
}

static bool S_constraints_to_reshards(shard_module *m, const shard_pass_context *cx) {
  return shard_pass_sharding_constraint_to_reshard(m, NULL, cx);
}

static bool S_call_reshards(shard_module *m, const shard_pass_context *cx) {
  return shard_pass_insert_func_call_reshards(m, NULL, cx);
}

static bool S_close(shard_module *m, const shard_pass_context *cx) { return shard_pass_close_shardings(m, NULL, cx); }

static bool S_until_export(shard_module *m, const shard_pass_context *cx) {
  return shard_propagation_pipeline_run_until_export(m, NULL, cx);
}

typedef struct lower_step {
  bool (*run)(shard_module *m, const shard_pass_context *cx);
  bool can_break; /* can leave invalid IR on valid input: always checked */
} lower_step;

bool shard_lower_pipeline_run(shard_module *m, bool propagate, bool verify_each, shard_diag_engine *de) {
  const shard_pass_context *cx = SHARD_PASS_CONTEXT(de);
  shard_verify_options vopts = {.extra_warnings = false};
  unsigned before = de->errors;
  if (!S_composites_to_calls(m, de)) return false;
  static const lower_step propagated[] = {{S_until_export, false}, {shard_export_pipeline_run_for_lower, false}};
  static const lower_step as_written[] = {{S_constraints_to_reshards, false},
                                          {S_call_reshards, false},
                                          {S_close, true},
                                          {shard_export_pipeline_run_as_written_for_lower, false}};
  const lower_step *steps = propagate ? propagated : as_written;
  size_t n = propagate ? sizeof propagated / sizeof *propagated : sizeof as_written / sizeof *as_written;
  for (size_t i = 0; i < n; i++) {
    if (!steps[i].run(m, cx) || de->errors != before) return false;
    if ((verify_each || steps[i].can_break) && (!shard_verify_module(m, &vopts, de) || de->errors != before))
      return false;
  }
  return true;
}

bool shard_lower_to_local(shard_module *m, shard_diag_engine *de) {
  const shard_pass_context *cx = SHARD_PASS_CONTEXT(de);
  static const shard_pipeline_step steps[] = {
      {"sdy-resolve-permutation-factors", NULL},          {"sdy-reshard-to-collectives", NULL},
      {"canonicalize", "enable-patterns=sdy-collective"}, {"sdy-pad-for-divisibility", NULL},
      {"sdy-resolve-single-device-sharding", NULL},       {"sdy-convert-global-to-local", NULL},
  };
  shard_verify_options vopts = {.extra_warnings = false};
  unsigned before = de->errors;
  return shard_pipeline_run(m, steps, sizeof steps / sizeof *steps, false, cx) && shard_verify_module(m, &vopts, de) &&
         de->errors == before;
}

bool shard_lower_pipeline_run_to(shard_module *m, shard_lower_stage stage, bool propagate, shard_diag_engine *de) {
  if (stage == SHARD_STAGE_LOWERED) return shard_lower_pipeline_run(m, propagate, true, de);
  const shard_pass_context *cx = SHARD_PASS_CONTEXT(de);
  static const shard_pipeline_step propagated[] = {{"sdy-propagation-pipeline", NULL}};
  static const shard_pipeline_step as_written[] = {{"sdy-sharding-constraint-to-reshard", NULL},
                                                   {"sdy-close-shardings", NULL}};
  static const shard_pipeline_step reshards[] = {{"sdy-insert-explicit-reshards", NULL}};
  if (!S_composites_to_calls(m, de)) return false;
  bool ok = propagate ? shard_pipeline_run(m, propagated, 1, true, cx) : shard_pipeline_run(m, as_written, 2, true, cx);
  return ok && (stage != SHARD_STAGE_RESHARDS || shard_pipeline_run(m, reshards, 1, true, cx));
}

bool shard_lower_to_local_device_limit(const shard_module *m, shard_diag_engine *de) {
  return shard_global_to_local_device_limit(m, de);
}
