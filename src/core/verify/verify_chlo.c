/* Verification of chlo ops (ir/ops_chlo.c) beyond the counts and type
 * equalities of their signatures (verify_arity.c): the shapes ChloOps.cpp's
 * type inference demands, with its messages where it has one. */
#include <string.h>

#include "ir/opdef.h"
#include "verify/verify_internal.h"

static const shard_type *S_ty(const shard_value *v) { return v ? v->type : NULL; }

static bool S_tensor(const shard_type *t) { return t && t->kind == SHARD_TYPE_TENSOR; }

static bool S_same_shape(const shard_type *a, const shard_type *b) {
  if (!S_tensor(a) || !S_tensor(b)) return true; /* unranked or not a tensor: nothing to compare */
  if (a->rank != b->rank) return false;
  for (uint32_t d = 0; d < a->rank; d++)
    if (a->dims[d] >= 0 && b->dims[d] >= 0 && a->dims[d] != b->dims[d]) return false;
  return true;
}

/* The result shape of a broadcasting binary op: each operand dim (mapped by
 * broadcast_dimensions onto the higher-rank shape, or aligned to the
 * trailing dims) equals the result dim or is 1. */
static bool S_broadcast(vf_ctx *cx, const shard_op *op, vf_emit *e) {
  const shard_type *r = op->num_results ? op->results[0].type : NULL;
  if (!S_tensor(r)) return true;
  const shard_attr *bd = shard_op_attr(op, "broadcast_dimensions");
  shard_i64s bdims = {0};
  if (bd && !shard_attr_i64_list(bd, &bdims)) return shard_verify_fail(e, "broadcast_dimensions must be a list of integers");
  uint32_t max_rank = 0;
  for (uint32_t i = 0; i < op->num_operands; i++) {
    const shard_type *t = S_ty(op->operands[i].value);
    if (S_tensor(t) && t->rank > max_rank) max_rank = t->rank;
  }
  if (r->rank != max_rank)
    return shard_verify_fail(e, "result of rank %u does not have the operands' broadcast rank %u", r->rank, max_rank);
  for (uint32_t i = 0; i < op->num_operands; i++) {
    const shard_type *t = S_ty(op->operands[i].value);
    if (!S_tensor(t)) continue;
    bool use_b = bd && t->rank != max_rank;
    if (use_b && bdims.n != t->rank)
      return shard_verify_fail(e, "broadcast_dimensions size (%u) does not match operand rank (%u)", bdims.n, t->rank);
    for (uint32_t d = 0; d < t->rank; d++) {
      int64_t od = use_b ? bdims.v[d] : (int64_t)(max_rank - t->rank + d);
      if (od < 0 || od >= (int64_t)max_rank)
        return shard_verify_fail(e, "broadcast_dimensions contains invalid value %lld for result with rank %u",
                                 (long long)od, max_rank);
      int64_t s = t->dims[d], rs = r->dims[od];
      if (s >= 0 && rs >= 0 && s != rs && s != 1)
        return shard_verify_fail(e, "operand #%u of type %s does not broadcast to the result type %s", i,
                                 shard_verify_type_str(t), shard_verify_type_str(r));
    }
  }
  (void)cx;
  return true;
}

static bool S_top_k(const shard_op *op, vf_emit *e) {
  const shard_type *t = op->num_operands ? S_ty(op->operands[0].value) : NULL;
  const shard_attr *ka = shard_op_attr(op, "k");
  if (!S_tensor(t) || !ka || ka->kind != SHARD_ATTR_INT || op->num_results != 2) return true;
  int64_t k = ka->u.integer.value;
  if (t->rank < 1) return shard_verify_fail(e, "operand's rank must be at least 1");
  int64_t last = t->dims[t->rank - 1];
  if (k < 0) return shard_verify_fail(e, "k must be non-negative");
  if (last >= 0 && last < k) return shard_verify_fail(e, "operand's last dimension must be at least %lld", (long long)k);
  for (uint32_t i = 0; i < 2; i++) {
    const shard_type *r = op->results[i].type;
    if (!S_tensor(r)) continue;
    bool ok = r->rank == t->rank;
    for (uint32_t d = 0; ok && d < t->rank; d++) {
      int64_t want = d + 1 == t->rank ? k : t->dims[d];
      ok = r->dims[d] < 0 || want < 0 || r->dims[d] == want;
    }
    if (!ok)
      return shard_verify_fail(e, "result #%u of type %s must have the operand's shape with last dimension %lld", i,
                               shard_verify_type_str(r), (long long)k);
  }
  const shard_type *vt = op->results[0].type, *it = op->results[1].type;
  if (S_tensor(vt) && vt->elem && t->elem && strcmp(vt->elem, t->elem) != 0)
    return shard_verify_fail(e, "values must have the operand's element type %s", t->elem);
  if (S_tensor(it) && it->elem && it->elem[0] != 'i' && strncmp(it->elem, "ui", 2) != 0)
    return shard_verify_fail(e, "indices must have an integer element type, got %s", it->elem);
  return true;
}

bool shard_verify_check_chlo(vf_ctx *cx, const shard_op *op) {
  if (strncmp(op->name, "chlo.", 5) != 0 || !op->def) return true;
  vf_emit e = shard_verify_emit_op(cx, op, NULL);
  const char *n = op->name + 5;
  if (!strcmp(n, "top_k")) return S_top_k(op, &e);
  if (!strncmp(n, "broadcast_", 10) && op->num_results == 1) return S_broadcast(cx, op, &e);
  if (op->def->traits & SHARD_TRAIT_ELEMENTWISE) {
    const shard_type *first = op->num_operands ? S_ty(op->operands[0].value) : NULL;
    for (uint32_t i = 0; i < op->num_operands + op->num_results; i++) {
      const shard_type *t = i < op->num_operands ? S_ty(op->operands[i].value) : op->results[i - op->num_operands].type;
      if (!S_same_shape(first, t)) return shard_verify_fail(&e, "requires the same shape for all operands and results");
    }
    if (!strncmp(n, "is_", 3) && op->num_results == 1 && S_tensor(op->results[0].type) &&
        strcmp(op->results[0].type->elem, "i1") != 0)
      return shard_verify_fail(&e, "result must be a tensor of i1, got %s", shard_verify_type_str(op->results[0].type));
  }
  return true;
}
