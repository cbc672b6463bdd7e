/* Verification of chlo ops (ir/ops_chlo.c) beyond the counts and type
 * equalities of their signatures (verify_arity.c): the shapes ChloOps.cpp's
 * type inference demands, with its messages where it has one. */
#include <string.h>

#include "ir/opdef.h"
#include "ir/ops_chlo.h"
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
  if (bd && !shard_attr_i64_list(bd, &bdims))
    return shard_verify_fail(e, "broadcast_dimensions must be a list of integers");
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
  if (last >= 0 && last < k)
    return shard_verify_fail(e, "operand's last dimension must be at least %lld", (long long)k);
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

/* A type is `full` with dimension dim removed (both static ranked tensors
 * of one element type). */
static bool S_is_slice(const shard_type *slice, const shard_type *full, int64_t dim) {
  if (!S_tensor(slice) || !S_tensor(full)) return true;
  if (slice->rank + 1 != full->rank || (slice->elem && full->elem && strcmp(slice->elem, full->elem) != 0))
    return false;
  for (uint32_t d = 0, s = 0; d < full->rank; d++) {
    if ((int64_t)d == dim) continue;
    if (slice->dims[s] >= 0 && full->dims[d] >= 0 && slice->dims[s] != full->dims[d]) return false;
    s++;
  }
  return true;
}

/* chlo.scan: operandSegmentSizes splits the operands into inputs and inits;
 * the body takes a slice of each input (dimension removed) and each carry
 * (the inits' types) and returns a slice of each output and the next
 * carries; the results are the outputs (sized along dimension like the
 * inputs) and the final carries. */
static bool S_scan(const shard_op *op, vf_emit *e) {
  const shard_attr *seg = shard_op_attr(op, "operandSegmentSizes");
  const shard_attr *da = shard_op_attr(op, "dimension");
  if (!seg || seg->kind != SHARD_ATTR_DENSE_ARRAY || seg->u.dense_array.num != 2 || seg->u.dense_array.vals[0] < 0 ||
      seg->u.dense_array.vals[1] < 0 ||
      seg->u.dense_array.vals[0] + seg->u.dense_array.vals[1] != (int64_t)op->num_operands)
    return shard_verify_fail(e, "operandSegmentSizes must give the numbers of inputs and inits, %u operands in all",
                             op->num_operands);
  if (!da || da->kind != SHARD_ATTR_INT) return true;
  uint32_t nin = shard_chlo_scan_num_inputs(op), ninit = op->num_operands - nin;
  int64_t dim = da->u.integer.value;
  if (op->num_results < ninit)
    return shard_verify_fail(e, "has %u results but %u inits: each init needs a final carry", op->num_results, ninit);
  uint32_t nout = op->num_results - ninit;
  int64_t len = -1;
  for (uint32_t i = 0; i < nin + nout; i++) {
    const shard_type *t = i < nin ? S_ty(op->operands[i].value) : op->results[i - nin].type;
    if (!S_tensor(t)) continue;
    if (dim < 0 || dim >= (int64_t)t->rank)
      return shard_verify_fail(e, "dimension %lld is out of range for %s %u of rank %u", (long long)dim,
                               i < nin ? "input" : "output", i < nin ? i : i - nin, t->rank);
    if (t->dims[dim] >= 0 && len >= 0 && t->dims[dim] != len)
      return shard_verify_fail(e, "inputs and outputs must have one size along dimension %lld", (long long)dim);
    if (t->dims[dim] >= 0) len = t->dims[dim];
  }
  for (uint32_t c = 0; c < ninit; c++)
    if (S_tensor(op->results[nout + c].type) && S_tensor(S_ty(op->operands[nin + c].value)) &&
        !shard_type_equal(op->results[nout + c].type, S_ty(op->operands[nin + c].value)))
      return shard_verify_fail(e, "result #%u (the final carry #%u) must have the type of init #%u", nout + c, c, c);
  const shard_block *b = op->num_regions == 1 ? op->regions[0].first : NULL;
  if (!b) return shard_verify_fail(e, "requires a body region");
  if (b->num_args != nin + ninit)
    return shard_verify_fail(e, "body takes %u arguments, expected %u (one per input and init)", b->num_args,
                             nin + ninit);
  for (uint32_t i = 0; i < nin; i++)
    if (!S_is_slice(b->args[i].type, S_ty(op->operands[i].value), dim))
      return shard_verify_fail(e, "body argument #%u must be a slice of input #%u without dimension %lld", i, i,
                               (long long)dim);
  for (uint32_t c = 0; c < ninit; c++)
    if (S_tensor(b->args[nin + c].type) && S_tensor(S_ty(op->operands[nin + c].value)) &&
        !shard_type_equal(b->args[nin + c].type, S_ty(op->operands[nin + c].value)))
      return shard_verify_fail(e, "body argument #%u must have the type of init #%u", nin + c, c);
  const shard_op *term = b->last;
  if (term && (!strcmp(term->name, "stablehlo.return") || !strcmp(term->name, "chlo.return"))) {
    if (term->num_operands != nout + ninit)
      return shard_verify_fail(e, "body returns %u values, expected %u (one per output and carry)", term->num_operands,
                               nout + ninit);
    for (uint32_t j = 0; j < nout; j++)
      if (!S_is_slice(S_ty(term->operands[j].value), op->results[j].type, dim))
        return shard_verify_fail(e, "body value #%u must be a slice of result #%u without dimension %lld", j, j,
                                 (long long)dim);
    for (uint32_t c = 0; c < ninit; c++)
      if (S_tensor(S_ty(term->operands[nout + c].value)) && S_tensor(b->args[nin + c].type) &&
          !shard_type_equal(S_ty(term->operands[nout + c].value), b->args[nin + c].type))
        return shard_verify_fail(e, "body value #%u (carry #%u) must have the carry's type", nout + c, c);
  }
  return true;
}

bool shard_verify_check_chlo(vf_ctx *cx, const shard_op *op) {
  if (op->name[0] != 'c' || strncmp(op->name, "chlo.", 5) != 0 || !op->def) return true;
  vf_emit e = shard_verify_emit_op(cx, op, NULL);
  const char *n = op->name + 5;
  if (!strcmp(n, "top_k")) return S_top_k(op, &e);
  if (!strcmp(n, "scan")) return S_scan(op, &e);
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
