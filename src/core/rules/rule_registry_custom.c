/* Rules for stablehlo.custom_call, by call target, as Shardy's registry has
 * them: a few targets are known to have no rule (callbacks, backend
 * kernels), many are pointwise, and the linear-algebra and top-k targets
 * have their own shapes. Any other target is unknown (*unknown is set) and
 * gets no rule; the populate pass warns about it. */
#include <string.h>

#include "rules/rule_registry_internal.h"

static bool in_list(const shard_op *op, const char *const *targets) {
  for (; *targets; targets++)
    if (shard_rr_attr_str_eq(op, "call_target_name", *targets)) return true;
  return false;
}

static const char *const S_no_rule[] = {"sdy_testonly",
                                        "tpu_custom_call",
                                        "xla_python_cpu_callback",
                                        "xla_python_gpu_callback",
                                        "xla_ffi_python_cpu_callback",
                                        "xla_ffi_python_gpu_callback",
                                        "xla.debug.Log",
                                        NULL};

/* Including the SPMD partitioner's internal collective permutes, whose
 * results all keep the input's sharding. */
static const char *const S_pointwise[] = {"annotate_device_placement",
                                          "Cholesky",
                                          "CompactWyHelper",
                                          "InspectSharding",
                                          "InvertDiagBlocksLowerTriangular",
                                          "InvertDiagBlocksUpperTriangular",
                                          "LayoutConstraint",
                                          "mhlo.erf",
                                          "MoveToDevice",
                                          "MoveToHost",
                                          "X64SplitHigh",
                                          "X64SplitLow",
                                          "xla.megascale.provide_metadata",
                                          "_SPMDInternalOp_MultiPad",
                                          "_SPMDInternalOp_RotateRight",
                                          "_SPMDInternalOp_MultiRotate",
                                          "_SPMDInternalOp_MultiSlice",
                                          "_SPMDInternalOp_Wrap",
                                          NULL};

static bool shapes_ok(const shard_op *op, uint32_t num_operands, uint32_t num_results) {
  if (op->num_operands != num_operands || op->num_results != num_results) return false;
  for (uint32_t i = 0; i < num_operands; i++)
    if (!shard_rr_is_ranked(OPERAND(op, i))) return false;
  for (uint32_t i = 0; i < num_results; i++)
    if (!shard_rr_is_ranked(RESULT(op, i))) return false;
  return true;
}

static void add_batch_dims(shard_rule_builder *b, const int64_t *shape, uint32_t n) {
  for (uint32_t d = 0; d < n; d++) shard_rule_builder_add_dim(b, d, shape[d], PASS, false);
}

/* jax.lax.linalg.eigh: (a) -> (eigenvectors, eigenvalues). The matrix dims
 * correspond between input and eigenvectors; the eigenvalues' one dim is
 * the input's last. */
static shard_op_sharding_rule *rule_eigh(shard_arena *a, const shard_op *op) {
  if (!shapes_ok(op, 1, 2) || shard_rr_rank(OPERAND(op, 0)) < 2) return NULL;
  const int64_t *in = shard_rr_shape(OPERAND(op, 0));
  int64_t n1 = shard_rr_rank(OPERAND(op, 0)) - 2, n2 = n1 + 1;
  shard_rule_builder *b = shard_rule_builder_for_op(op);
  add_batch_dims(b, in, (uint32_t)n1);
  shard_rule_builder_add(b, (int64_t[]){n1}, (int64_t[]){n1, NUL}, in[n1], PASS, false);
  shard_rule_builder_add(b, (int64_t[]){n2}, (int64_t[]){n2, n1}, in[n2], PASS, false);
  return shard_rr_finish(b, a);
}

/* jax.lax.linalg.qr: (a) -> (q-ish, taus); every non-batch dim is replicated. */
static shard_op_sharding_rule *rule_qr(shard_arena *a, const shard_op *op) {
  if (!shapes_ok(op, 1, 2) || shard_rr_rank(OPERAND(op, 0)) < 2 ||
      shard_rr_rank(RESULT(op, 1)) + 1 != shard_rr_rank(OPERAND(op, 0)))
    return NULL;
  const int64_t *in = shard_rr_shape(OPERAND(op, 0)), *taus = shard_rr_shape(RESULT(op, 1));
  int64_t n1 = shard_rr_rank(OPERAND(op, 0)) - 2, n2 = n1 + 1;
  shard_rule_builder *b = shard_rule_builder_for_op(op);
  add_batch_dims(b, in, (uint32_t)n1);
  shard_rule_builder_add(b, (int64_t[]){n1}, (int64_t[]){n1, NUL}, in[n1], NEED, false);
  shard_rule_builder_add(b, (int64_t[]){n2}, (int64_t[]){n2, NUL}, in[n2], NEED, false);
  shard_rule_builder_add(b, (int64_t[]){NUL}, (int64_t[]){NUL, n1}, taus[n1], NEED, false);
  return shard_rr_finish(b, a);
}

/* jax.lax.linalg.householder_product: (a, taus) -> q. */
static shard_op_sharding_rule *rule_householder_product(shard_arena *a, const shard_op *op) {
  if (!shapes_ok(op, 2, 1) || shard_rr_rank(OPERAND(op, 0)) < 2 ||
      shard_rr_rank(OPERAND(op, 1)) + 1 != shard_rr_rank(OPERAND(op, 0)))
    return NULL;
  const int64_t *lhs = shard_rr_shape(OPERAND(op, 0)), *taus = shard_rr_shape(OPERAND(op, 1));
  int64_t n1 = shard_rr_rank(OPERAND(op, 0)) - 2, n2 = n1 + 1;
  shard_rule_builder *b = shard_rule_builder_for_op(op);
  add_batch_dims(b, lhs, (uint32_t)n1);
  shard_rule_builder_add(b, (int64_t[]){n1, NUL}, (int64_t[]){n1}, lhs[n1], NEED, false);
  shard_rule_builder_add(b, (int64_t[]){n2, NUL}, (int64_t[]){n2}, lhs[n2], NEED, false);
  shard_rule_builder_add(b, (int64_t[]){NUL, n1}, (int64_t[]){NUL}, taus[n1], NEED, false);
  return shard_rr_finish(b, a);
}

/* jax.lax.top_k: (operand) -> (values, indices); the top-k dim is replicated
 * and blocked. */
static shard_op_sharding_rule *rule_topk(shard_arena *a, const shard_op *op) {
  if (!shapes_ok(op, 1, 2) || shard_rr_rank(OPERAND(op, 0)) != shard_rr_rank(RESULT(op, 0))) return NULL;
  const int64_t *in = shard_rr_shape(OPERAND(op, 0)), *out = shard_rr_shape(RESULT(op, 0));
  shard_rule_builder *b = shard_rule_builder_for_op(op);
  for (uint32_t d = 0; d < shard_rr_rank(OPERAND(op, 0)); d++) {
    if (in[d] == out[d]) shard_rule_builder_add_dim(b, d, in[d], PASS, false);
    else shard_rule_builder_add_dim(b, d, in[d], NEED, true);
  }
  return shard_rr_finish(b, a);
}

/* jax.lax.approx_max_k: (operand, iota, init value, init index) -> (values,
 * indices). The reduced dim of the two inputs and that of the results are
 * different factors; the results' one is replicated and blocked. */
static shard_op_sharding_rule *rule_approx_topk(shard_arena *a, const shard_op *op) {
  if (op->num_operands != 4 || !shapes_ok(op, 4, 2) || shard_rr_rank(OPERAND(op, 0)) != shard_rr_rank(RESULT(op, 0)))
    return NULL;
  const int64_t *in = shard_rr_shape(OPERAND(op, 0)), *out = shard_rr_shape(RESULT(op, 0));
  shard_rule_builder *b = shard_rule_builder_for_op(op);
  for (uint32_t d = 0; d < shard_rr_rank(OPERAND(op, 0)); d++) {
    if (in[d] == out[d]) {
      shard_rule_builder_add_dim(b, d, in[d], PASS, false);
      continue;
    }
    shard_rule_builder_add(b, (int64_t[]){d, d, NUL, NUL}, (int64_t[]){NUL, NUL}, in[d], PASS, false);
    shard_rule_builder_add(b, NULL, (int64_t[]){d, d}, out[d], NEED, true);
  }
  return shard_rr_finish(b, a);
}

static bool used_by(const shard_op *op, const char *user) {
  for (uint32_t i = 0; i < op->num_results; i++)
    for (const shard_operand *u = op->results[i].first_use; u; u = u->next_use)
      if (u->owner && strcmp(u->owner->name, user) == 0) return true;
  return false;
}

/* Feeding an rng_bit_generator, the combined 64-bit state must stay
 * replicated (the generator needs it whole, and a ui64 tensor cannot be
 * resharded), so nothing propagates through it. */
static shard_op_sharding_rule *rule_x64_combine(shard_arena *a, const shard_op *op) {
  if (!used_by(op, "stablehlo.rng_bit_generator")) return shard_rr_pointwise(a, op, false);
  if (op->num_results != 1 || shard_rr_rank(RESULT(op, 0)) != 1) return NULL;
  shard_rule_builder *b = shard_rule_builder_for_op(op);
  shard_rule_builder_add_dim(b, 0, shard_rr_shape(RESULT(op, 0))[0], NEED, true);
  return shard_rr_finish(b, a);
}

shard_op_sharding_rule *shard_rr_custom_call(shard_arena *a, const shard_op *op, bool conservative, bool *unknown) {
  (void)conservative;
  *unknown = false;
  if (in_list(op, S_no_rule)) return NULL;
  if (in_list(op, S_pointwise)) return shard_rr_pointwise(a, op, false);
  if (shard_rr_attr_str_eq(op, "call_target_name", "Eigh")) return rule_eigh(a, op);
  if (shard_rr_attr_str_eq(op, "call_target_name", "Qr") ||
      shard_rr_attr_str_eq(op, "call_target_name", "QrDecompositionBlock"))
    return rule_qr(a, op);
  if (shard_rr_attr_str_eq(op, "call_target_name", "ProductOfElementaryHouseholderReflectors"))
    return rule_householder_product(a, op);
  if (shard_rr_attr_str_eq(op, "call_target_name", "mhlo.topk")) return rule_topk(a, op);
  if (shard_rr_attr_str_eq(op, "call_target_name", "ApproxTopK") ||
      shard_rr_attr_str_eq(op, "call_target_name", "PartialReduce"))
    return rule_approx_topk(a, op);
  if (shard_rr_attr_str_eq(op, "call_target_name", "X64Combine")) return rule_x64_combine(a, op);
  *unknown = true;
  return NULL;
}
