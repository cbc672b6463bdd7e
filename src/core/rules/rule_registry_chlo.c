/* Sharding rules of the chlo ops (ir/ops_chlo.c). Shardy's registry covers
 * StableHLO only; these follow what the ops compute and, where XLA registers
 * a rule for the ops' mhlo twins (xla/service/spmd/shardy/extensions), XLA's
 * rule:
 *   - the elementwise ops (erf, lgamma, acosh, next_after, zeta, mulhi, ...):
 *     pointwise;
 *   - the broadcasting binary ops: one pass-through factor per result dim,
 *     shared by each operand dim mapped onto it (broadcast_dimensions, or
 *     numpy-style trailing alignment) unless that operand dim is a broadcast
 *     size-1 dim;
 *   - top_k: XLA's mhlo.topk rule, pointwise except the sorted last dim,
 *     a blocked need-replication factor;
 *   - ragged_dot: XLA's mhlo.ragged_dot rule (three modes by where the lhs
 *     ragged dim is);
 *   - constant: no rule, like stablehlo.constant; constant_like: pointwise.
 * The mhlo ops without a StableHLO twin that XLA registers rules for
 * (mhlo_extensions) share them: mhlo.copy is pointwise, mhlo.ragged_dot
 * (dimension numbers spelled #mhlo.ragged_dot<...#mhlo.dot<...>>) is the
 * ragged_dot rule. */
#include <string.h>

#include "ir/opdef.h"
#include "ir/ops_chlo.h"
#include "rules/rule_registry_internal.h"

static bool S_ranked(const shard_op *op) {
  for (uint32_t i = 0; i < op->num_operands; i++)
    if (!shard_rr_is_ranked(op->operands[i].value)) return false;
  for (uint32_t i = 0; i < op->num_results; i++)
    if (!shard_rr_is_ranked(&op->results[i])) return false;
  return true;
}

static shard_op_sharding_rule *S_broadcast(shard_arena *a, const shard_op *op) {
  if (op->num_results != 1 || op->num_operands == 0 || op->num_operands > 3 || !S_ranked(op)) return NULL;
  const shard_value *res = &op->results[0];
  uint32_t rrank = shard_rr_rank(res);
  if (rrank > RR_MAX_INTS) return NULL;
  rr_ints bdims = {0};
  bool has_b = shard_rr_attr_has(op, "broadcast_dimensions");
  if (has_b && !shard_rr_attr_ints(op, "broadcast_dimensions", &bdims)) return NULL;
  /* per operand: result dim -> operand dim (NUL when none) */
  int64_t map[3][RR_MAX_INTS];
  for (uint32_t i = 0; i < op->num_operands; i++) {
    const shard_value *v = op->operands[i].value;
    uint32_t rank = shard_rr_rank(v);
    if (rank > rrank) return NULL;
    for (uint32_t d = 0; d < rrank; d++) map[i][d] = NUL;
    bool use_b = has_b && rank != rrank;
    if (use_b && bdims.n != rank) return NULL;
    for (uint32_t d = 0; d < rank; d++) {
      int64_t od = use_b ? bdims.v[d] : (int64_t)(rrank - rank + d);
      if (od < 0 || od >= (int64_t)rrank) return NULL;
      int64_t size = shard_rr_shape(v)[d], rsize = shard_rr_shape(res)[od];
      if (size != rsize && size != 1) return NULL;
      if (size == rsize) map[i][od] = d; /* a broadcast size-1 dim keeps a factor of its own */
    }
  }
  shard_rule_builder *b = shard_rule_builder_for_op(op);
  for (uint32_t od = 0; od < rrank; od++) {
    int64_t operand_dims[3] = {NUL, NUL, NUL}, result_dims[1] = {od};
    for (uint32_t i = 0; i < op->num_operands; i++) operand_dims[i] = map[i][od];
    shard_rule_builder_add(b, operand_dims, result_dims, shard_rr_shape(res)[od], PASS, false);
  }
  return shard_rr_finish(b, a);
}

static bool S_contains(const int64_t *l, uint32_t n, int64_t x) {
  for (uint32_t i = 0; i < n; i++)
    if (l[i] == x) return true;
  return false;
}

/* XLA's RaggedDotShardingRuleOpInterface: lhs [b,m,k], rhs [g,b,k,n] or
 * [b,k,n], group_sizes [b,g] or [g]. */
static shard_op_sharding_rule *S_ragged_dot(shard_arena *a, const shard_op *op) {
  shard_chlo_ragged_dims d;
  if (op->num_operands != 3 || op->num_results != 1 || !S_ranked(op) || !shard_chlo_ragged_dot_dims(op, &d) ||
      d.num_lhs_ragged != 1 || d.num_lhs_batch != d.num_rhs_batch || d.num_lhs_contract != d.num_rhs_contract)
    return NULL;
  enum { NON_CONTRACTING, CONTRACTING, BATCH } mode;
  int64_t ragged = d.lhs_ragged[0];
  if (S_contains(d.lhs_contract, d.num_lhs_contract, ragged)) mode = CONTRACTING;
  else if (S_contains(d.lhs_batch, d.num_lhs_batch, ragged)) mode = BATCH;
  else mode = NON_CONTRACTING;
  if ((mode == NON_CONTRACTING) != (d.num_rhs_group == 1) || d.num_rhs_group > 1) return NULL;
  const shard_value *lhs = op->operands[0].value, *rhs = op->operands[1].value, *gs = op->operands[2].value;
  uint32_t lrank = shard_rr_rank(lhs), rrank = shard_rr_rank(rhs), grank = shard_rr_rank(gs);
  const int64_t *ls = shard_rr_shape(lhs), *rs = shard_rr_shape(rhs), *gshape = shard_rr_shape(gs);
  /* dims out of range: no rule (the verifier or the interpreter says why) */
  for (uint32_t i = 0; i < d.num_lhs_batch; i++)
    if (d.lhs_batch[i] < 0 || d.lhs_batch[i] >= (int64_t)lrank || d.rhs_batch[i] < 0 ||
        d.rhs_batch[i] >= (int64_t)rrank)
      return NULL;
  for (uint32_t i = 0; i < d.num_lhs_contract; i++)
    if (d.lhs_contract[i] < 0 || d.lhs_contract[i] >= (int64_t)lrank || d.rhs_contract[i] < 0 ||
        d.rhs_contract[i] >= (int64_t)rrank)
      return NULL;
  if (ragged < 0 || ragged >= (int64_t)lrank ||
      (d.num_rhs_group && (d.rhs_group[0] < 0 || d.rhs_group[0] >= (int64_t)rrank)) || grank == 0)
    return NULL;
  int64_t gdim = 0, out = mode == CONTRACTING ? 1 : 0;
  int64_t rdim0[1];
  shard_rule_builder *b = shard_rule_builder_for_op(op);
  for (uint32_t i = 0; i < d.num_lhs_batch; i++) {
    int64_t od[3] = {d.lhs_batch[i], d.rhs_batch[i], mode != BATCH ? gdim++ : NUL};
    rdim0[0] = out++;
    shard_rule_builder_add(b, od, rdim0, ls[d.lhs_batch[i]], PASS, false);
  }
  bool in_groups = mode == NON_CONTRACTING;
  for (uint32_t i = 0; i < lrank; i++) {
    if (S_contains(d.lhs_contract, d.num_lhs_contract, i) || S_contains(d.lhs_batch, d.num_lhs_batch, i)) continue;
    shard_factor_type t = PASS;
    if ((int64_t)i == ragged) {
      in_groups = false;
      t = NEED;
    }
    int64_t od[3] = {i, NUL, in_groups ? gdim++ : NUL};
    rdim0[0] = out++;
    shard_rule_builder_add(b, od, rdim0, ls[i], t, false);
  }
  for (uint32_t i = 0; i < rrank; i++) {
    if (S_contains(d.rhs_contract, d.num_rhs_contract, i) || S_contains(d.rhs_batch, d.num_rhs_batch, i) ||
        S_contains(d.rhs_group, d.num_rhs_group, i))
      continue;
    int64_t od[3] = {NUL, i, NUL};
    rdim0[0] = out++;
    shard_rule_builder_add(b, od, rdim0, rs[i], PASS, false);
  }
  bool contract_in_groups = mode == CONTRACTING;
  for (uint32_t i = 0; i < d.num_lhs_contract; i++) {
    shard_factor_type t = REDUCTION;
    if (d.lhs_contract[i] == ragged) {
      contract_in_groups = false;
      t = NEED;
    }
    int64_t od[3] = {d.lhs_contract[i], d.rhs_contract[i], contract_in_groups ? gdim++ : NUL};
    rdim0[0] = NUL;
    shard_rule_builder_add(b, od, rdim0, ls[d.lhs_contract[i]], t, false);
  }
  if (mode != BATCH) {
    if (gdim != (int64_t)grank - 1) {
      shard_rule_builder_free(b);
      return NULL;
    }
    if (mode == NON_CONTRACTING) {
      int64_t od[3] = {NUL, d.rhs_group[0], gdim};
      rdim0[0] = NUL;
      shard_rule_builder_add(b, od, rdim0, rs[d.rhs_group[0]], NEED, false);
    } else {
      int64_t od[3] = {NUL, NUL, gdim};
      rdim0[0] = 0;
      shard_rule_builder_add(b, od, rdim0, gshape[gdim], NEED, false);
    }
  }
  return shard_rr_finish(b, a);
}

shard_op_sharding_rule *shard_rr_chlo(shard_arena *a, const shard_op *op, bool conservative, bool *known) {
  const char *n = op->name + 5;
  if (known) *known = true;
  if (!strcmp(n, "constant")) return NULL;
  if (!strcmp(n, "top_k")) {
    if (op->num_operands != 1 || op->num_results != 2) return NULL;
    return shard_rr_pointwise_with_mismatch(a, op, op->operands[0].value, &op->results[0], NEED, true);
  }
  if (!strcmp(n, "ragged_dot")) return S_ragged_dot(a, op);
  if (!strncmp(n, "broadcast_", 10)) return S_broadcast(a, op);
  if (op->def && (op->def->traits & SHARD_TRAIT_ELEMENTWISE)) return shard_rr_pointwise(a, op, conservative);
  if (!strcmp(n, "constant_like")) return shard_rr_pointwise(a, op, conservative);
  if (known) *known = false;
  return NULL;
}

shard_op_sharding_rule *shard_rr_mhlo(shard_arena *a, const shard_op *op, bool conservative, bool *known) {
  const char *n = op->name + 5;
  if (known) *known = true;
  if (!strcmp(n, "copy")) return shard_rr_pointwise(a, op, conservative);
  if (!strcmp(n, "ragged_dot")) return S_ragged_dot(a, op);
  if (known) *known = false;
  return NULL;
}
