/* The op sharding rule registry: for each op kind Shardy knows, the
 * factor-based rule its createOpShardingRule builds (Shardy's
 * op_sharding_rule_registry.cc), reproduced factor for factor so that the
 * rules print exactly as sdy_opt prints them.
 *
 * A table maps op names to constructors. A name whose entry has no
 * constructor is known to have no rule (constants, data-flow ops such as
 * while and case, symbols); a name that is not in the table at all is
 * unknown, and Shardy warns about those (shard_rule_unknown_message).
 * Shape-changing families (reshape, convolution, gather, scatter) live in
 * rule_registry_shape.c and custom calls in rule_registry_custom.c; the rest
 * is here, in alphabetical order of op name as in Shardy.
 *
 * Every constructor checks the operand counts, ranks and attributes it
 * reads, and returns NULL rather than read out of bounds: an ill-formed op is
 * the verifier's to report, and without a rule it is simply a barrier. */
#include "rules/rule_registry.h"

#include <string.h>

#include "ir/opdef.h"
#include "rules/rule_registry_internal.h"

/* Ops take at most this many operands where a constructor needs a per-operand
 * dim array on the stack; more operands mean no rule. */
#define MAX_DIM_ARRAY 64

bool shard_rr_is_ranked(const shard_value *v) { return v && v->type && v->type->kind == SHARD_TYPE_TENSOR; }
uint32_t shard_rr_rank(const shard_value *v) { return shard_rr_is_ranked(v) ? v->type->rank : 0; }
const int64_t *shard_rr_shape(const shard_value *v) { return shard_rr_is_ranked(v) ? v->type->dims : NULL; }

shard_op_sharding_rule *shard_rr_finish(shard_rule_builder *b, shard_arena *a) {
  shard_op_sharding_rule *r = shard_rule_builder_build(b, a);
  shard_rule_builder_free(b);
  return r;
}

shard_op_sharding_rule *shard_rr_pointwise(shard_arena *a, const shard_op *op, bool conservative) {
  (void)conservative;
  if (op->num_results == 0 || !shard_rr_is_ranked(RESULT(op, 0))) return NULL;
  const shard_value *res = RESULT(op, 0);
  shard_rule_builder *b = shard_rule_builder_for_op(op);
  for (uint32_t d = 0; d < res->type->rank; d++) shard_rule_builder_add_dim(b, d, res->type->dims[d], PASS, false);
  return shard_rr_finish(b, a);
}

/* Do all operands and results have ranked tensor types (tokens aside)? The
 * constructors below that index shapes call this first. */
static bool all_ranked(const shard_op *op, uint32_t min_operands, uint32_t min_results) {
  if (op->num_operands < min_operands || op->num_results < min_results) return false;
  for (uint32_t i = 0; i < min_operands; i++)
    if (!shard_rr_is_ranked(OPERAND(op, i))) return false;
  for (uint32_t i = 0; i < min_results; i++)
    if (!shard_rr_is_ranked(RESULT(op, i))) return false;
  return true;
}

/* Pointwise over `rank` dims of `shape` with one kind for every dim. */
static void add_pointwise(shard_rule_builder *b, const int64_t *shape, uint32_t rank, shard_factor_type type) {
  for (uint32_t d = 0; d < rank; d++) shard_rule_builder_add_dim(b, d, shape[d], type, false);
}

/* Shardy's addPointwiseWithDiffTypeForMismatch: equal dims pass through,
 * others get `mismatch` (blocked when asked). */
shard_op_sharding_rule *shard_rr_pointwise_with_mismatch(shard_arena *a, const shard_op *op, const shard_value *in,
                                                         const shard_value *out, shard_factor_type mismatch,
                                                         bool blocked) {
  if (!shard_rr_is_ranked(in) || !shard_rr_is_ranked(out) || shard_rr_rank(in) != shard_rr_rank(out)) return NULL;
  const int64_t *is = shard_rr_shape(in), *os = shard_rr_shape(out);
  shard_rule_builder *b = shard_rule_builder_for_op(op);
  for (uint32_t d = 0; d < shard_rr_rank(in); d++) {
    if (is[d] == os[d]) shard_rule_builder_add_dim(b, d, is[d], PASS, false);
    else shard_rule_builder_add_dim(b, d, is[d], mismatch, blocked);
  }
  return shard_rr_finish(b, a);
}

/* Normalises a possibly negative dim index; false when out of range. */
static bool dim_index(int64_t *d, uint32_t rank) {
  if (*d < 0) *d += rank;
  return *d >= 0 && *d < (int64_t)rank;
}

/* The collectives that move one dim (all_gather, reduce_scatter): every
 * other dim passes through; the moved dim is a need-replication factor in
 * the operands and another one in the results. */
static shard_op_sharding_rule *collective_dim(shard_arena *a, const shard_op *op, const char *attr) {
  int64_t gd;
  if (!all_ranked(op, 1, 1) || !shard_rr_attr_int(op, attr, &gd)) return NULL;
  const shard_value *in = OPERAND(op, 0), *out = RESULT(op, 0);
  if (!dim_index(&gd, shard_rr_rank(in)) || shard_rr_rank(out) != shard_rr_rank(in)) return NULL;
  shard_rule_builder *b = shard_rule_builder_for_op(op);
  for (uint32_t d = 0; d < shard_rr_rank(in); d++)
    if ((int64_t)d != gd) shard_rule_builder_add_dim(b, d, shard_rr_shape(in)[d], PASS, false);
  shard_rule_builder_add_all_operands(b, gd, shard_rr_shape(in)[gd], NEED, false);
  shard_rule_builder_add_all_results(b, gd, shard_rr_shape(out)[gd], NEED, false);
  return shard_rr_finish(b, a);
}

static shard_op_sharding_rule *rule_all_gather(shard_arena *a, const shard_op *op, bool conservative) {
  (void)conservative;
  return collective_dim(a, op, "all_gather_dim");
}

static shard_op_sharding_rule *rule_reduce_scatter(shard_arena *a, const shard_op *op, bool conservative) {
  (void)conservative;
  return collective_dim(a, op, "scatter_dimension");
}

static shard_op_sharding_rule *rule_all_to_all(shard_arena *a, const shard_op *op, bool conservative) {
  (void)conservative;
  int64_t split, concat;
  if (!all_ranked(op, 1, 1) || !shard_rr_attr_int(op, "split_dimension", &split) ||
      !shard_rr_attr_int(op, "concat_dimension", &concat))
    return NULL;
  const shard_value *in = OPERAND(op, 0), *out = RESULT(op, 0);
  uint32_t rank = shard_rr_rank(in);
  if (!dim_index(&split, rank) || !dim_index(&concat, rank) || shard_rr_rank(out) != rank) return NULL;
  shard_rule_builder *b = shard_rule_builder_for_op(op);
  for (uint32_t d = 0; d < rank; d++)
    if ((int64_t)d != split && (int64_t)d != concat)
      shard_rule_builder_add_dim(b, d, shard_rr_shape(in)[d], PASS, false);
  shard_rule_builder_add_all_operands(b, split, shard_rr_shape(in)[split], NEED, false);
  shard_rule_builder_add_all_results(b, split, shard_rr_shape(out)[split], NEED, false);
  if (split != concat) {
    shard_rule_builder_add_all_operands(b, concat, shard_rr_shape(in)[concat], NEED, false);
    shard_rule_builder_add_all_results(b, concat, shard_rr_shape(out)[concat], NEED, false);
  }
  return shard_rr_finish(b, a);
}

/* The shape with the smaller element width has one more, innermost dim;
 * that dim cannot be sharded. */
static shard_op_sharding_rule *rule_bitcast_convert(shard_arena *a, const shard_op *op, bool conservative) {
  (void)conservative;
  if (!all_ranked(op, 1, 1)) return NULL;
  const shard_value *in = OPERAND(op, 0), *out = RESULT(op, 0);
  uint32_t ir = shard_rr_rank(in), orank = shard_rr_rank(out);
  const shard_value *smaller = ir < orank ? in : out;
  shard_rule_builder *b = shard_rule_builder_for_op(op);
  add_pointwise(b, shard_rr_shape(smaller), shard_rr_rank(smaller), PASS);
  if (ir < orank) shard_rule_builder_add_io(b, NUL, orank - 1, shard_rr_shape(out)[orank - 1], NEED, false);
  else if (ir > orank) shard_rule_builder_add_io(b, ir - 1, NUL, shard_rr_shape(in)[ir - 1], NEED, false);
  return shard_rr_finish(b, a);
}

/* The 1-D scale, offset, mean and variance follow the feature dim. */
static shard_op_sharding_rule *rule_batch_norm_inference(shard_arena *a, const shard_op *op, bool conservative) {
  (void)conservative;
  int64_t feature;
  if (!all_ranked(op, 1, 1) || op->num_operands > MAX_DIM_ARRAY || !shard_rr_attr_int(op, "feature_index", &feature))
    return NULL;
  const shard_value *in = OPERAND(op, 0);
  shard_rule_builder *b = shard_rule_builder_for_op(op);
  int64_t dims[MAX_DIM_ARRAY];
  for (uint32_t d = 0; d < shard_rr_rank(in); d++) {
    for (uint32_t i = 0; i < op->num_operands; i++) dims[i] = (int64_t)d == feature ? 0 : NUL;
    dims[0] = d;
    int64_t res[1] = {d};
    shard_rule_builder_add(b, dims, res, shard_rr_shape(in)[d], PASS, false);
  }
  return shard_rr_finish(b, a);
}

static shard_op_sharding_rule *rule_broadcast_in_dim(shard_arena *a, const shard_op *op, bool conservative) {
  (void)conservative;
  rr_ints bdims;
  if (!all_ranked(op, 1, 1) || !shard_rr_attr_ints(op, "broadcast_dimensions", &bdims)) return NULL;
  const shard_value *in = OPERAND(op, 0), *out = RESULT(op, 0);
  uint32_t orank = shard_rr_rank(out);
  if (bdims.n != shard_rr_rank(in) || orank > RR_MAX_INTS) return NULL;
  int64_t out_to_in[RR_MAX_INTS];
  for (uint32_t d = 0; d < orank; d++) out_to_in[d] = NUL;
  for (uint32_t i = 0; i < bdims.n; i++) {
    if (bdims.v[i] < 0 || bdims.v[i] >= (int64_t)orank) return NULL;
    out_to_in[bdims.v[i]] = i;
  }
  shard_rule_builder *b = shard_rule_builder_for_op(op);
  for (uint32_t od = 0; od < orank; od++) {
    int64_t id = out_to_in[od], osize = shard_rr_shape(out)[od];
    if (id != NUL && shard_rr_shape(in)[id] == 1 && osize != 1) {
      /* The size-1 input dim is expanded in place: it gets its own factor. */
      shard_rule_builder_add_io(b, id, NUL, 1, PASS, false);
      id = NUL;
    }
    shard_rule_builder_add_io(b, id, od, osize, PASS, false);
  }
  return shard_rr_finish(b, a);
}

/* Batch dims pass through; the two matrix dims need replication. */
static shard_op_sharding_rule *rule_cholesky(shard_arena *a, const shard_op *op, bool conservative) {
  (void)conservative;
  if (!all_ranked(op, 1, 1) || shard_rr_rank(OPERAND(op, 0)) < 2) return NULL;
  const shard_value *in = OPERAND(op, 0);
  uint32_t rank = shard_rr_rank(in);
  shard_rule_builder *b = shard_rule_builder_for_op(op);
  for (uint32_t d = 0; d < rank; d++)
    shard_rule_builder_add_dim(b, d, shard_rr_shape(in)[d], d + 2 < rank ? PASS : NEED, false);
  return shard_rr_finish(b, a);
}

/* min and max may be scalars; the shape is the operand's (the middle one). */
static shard_op_sharding_rule *rule_clamp(shard_arena *a, const shard_op *op, bool conservative) {
  (void)conservative;
  if (!all_ranked(op, 2, 1)) return NULL;
  shard_rule_builder *b = shard_rule_builder_for_op(op);
  add_pointwise(b, shard_rr_shape(OPERAND(op, 1)), shard_rr_rank(OPERAND(op, 1)), PASS);
  return shard_rr_finish(b, a);
}

static bool defined_by(const shard_value *v, const char *name) {
  return v && v->def && strcmp(v->def->name, name) == 0;
}

/* The value a stablehlo.slice slices, or v itself. */
static const shard_value *before_slice(const shard_value *v) {
  return defined_by(v, "stablehlo.slice") && v->def->num_operands ? v->def->operands[0].value : v;
}

/* The concat dim is a permutation when the operands are pieces of the same
 * data (all slices, or slices of one tensor and the tensor itself), and needs
 * replication otherwise. */
static shard_factor_type concat_dim_type(const shard_op *op) {
  bool all_slices = true, any_slice = false, same = true;
  const shard_value *first = before_slice(OPERAND(op, 0));
  for (uint32_t i = 0; i < op->num_operands; i++) {
    bool is_slice = defined_by(OPERAND(op, i), "stablehlo.slice");
    all_slices &= is_slice;
    any_slice |= is_slice;
    same &= before_slice(OPERAND(op, i)) == first;
  }
  return all_slices || (same && any_slice) ? PERM : NEED;
}

static shard_op_sharding_rule *rule_concatenate(shard_arena *a, const shard_op *op, bool conservative) {
  int64_t cd;
  if (!all_ranked(op, 1, 1) || !shard_rr_attr_int(op, "dimension", &cd)) return NULL;
  const shard_value *out = RESULT(op, 0);
  shard_rule_builder *b = shard_rule_builder_for_op(op);
  for (uint32_t d = 0; d < shard_rr_rank(out); d++) {
    /* Conservatively the concat dim gets no factor at all. */
    if ((int64_t)d == cd && conservative) continue;
    shard_rule_builder_add_dim(b, d, shard_rr_shape(out)[d], (int64_t)d == cd ? concat_dim_type(op) : PASS, false);
  }
  return shard_rr_finish(b, a);
}

/* stablehlo.dot: vector or matrix operands, contracting lhs's last dim with rhs's first. */
static shard_op_sharding_rule *rule_dot(shard_arena *a, const shard_op *op, bool conservative) {
  (void)conservative;
  if (!all_ranked(op, 2, 1)) return NULL;
  const shard_value *lhs = OPERAND(op, 0), *rhs = OPERAND(op, 1);
  uint32_t lr = shard_rr_rank(lhs), rrk = shard_rr_rank(rhs);
  if (lr < 1 || lr > 2 || rrk < 1 || rrk > 2) return NULL;
  bool lhs_matrix = lr == 2, rhs_matrix = rrk == 2;
  shard_rule_builder *b = shard_rule_builder_for_op(op);
  if (lhs_matrix) shard_rule_builder_add(b, (int64_t[]){0, NUL}, (int64_t[]){0}, shard_rr_shape(lhs)[0], PASS, false);
  if (rhs_matrix)
    shard_rule_builder_add(b, (int64_t[]){NUL, 1}, (int64_t[]){lhs_matrix ? 1 : 0}, shard_rr_shape(rhs)[1], PASS,
                           false);
  shard_rule_builder_add(b, (int64_t[]){lhs_matrix ? 1 : 0, 0}, (int64_t[]){NUL}, shard_rr_shape(rhs)[0], REDUCTION,
                         false);
  return shard_rr_finish(b, a);
}

static bool dims_in_range(const rr_ints *l, uint32_t rank) {
  for (uint32_t i = 0; i < l->n; i++)
    if (l->v[i] < 0 || l->v[i] >= (int64_t)rank) return false;
  return true;
}

/* Result dims: batching, then lhs free dims, then rhs free dims; the
 * contracting dims are reduction factors. */
static shard_op_sharding_rule *rule_dot_general(shard_arena *a, const shard_op *op, bool conservative) {
  (void)conservative;
  const shard_dot_dims *dd = shard_op_dot_dims(op);
  if (!all_ranked(op, 2, 1) || !dd || dd->lhs_batch.n != dd->rhs_batch.n || dd->lhs_contract.n != dd->rhs_contract.n)
    return NULL;
  rr_ints lb = dd->lhs_batch, rb = dd->rhs_batch, lc = dd->lhs_contract, rc = dd->rhs_contract;
  const shard_value *lhs = OPERAND(op, 0), *rhs = OPERAND(op, 1);
  uint32_t lr = shard_rr_rank(lhs), rrk = shard_rr_rank(rhs);
  if (!dims_in_range(&lb, lr) || !dims_in_range(&lc, lr) || !dims_in_range(&rb, rrk) || !dims_in_range(&rc, rrk))
    return NULL;
  shard_rule_builder *b = shard_rule_builder_for_op(op);
  int64_t out = 0;
  for (uint32_t i = 0; i < lb.n; i++, out++)
    shard_rule_builder_add(b, (int64_t[]){lb.v[i], rb.v[i]}, (int64_t[]){out}, shard_rr_shape(lhs)[lb.v[i]], PASS,
                           false);
  for (uint32_t d = 0; d < lr; d++)
    if (!shard_rr_ints_contains(&lc, d) && !shard_rr_ints_contains(&lb, d))
      shard_rule_builder_add(b, (int64_t[]){d, NUL}, (int64_t[]){out++}, shard_rr_shape(lhs)[d], PASS, false);
  for (uint32_t d = 0; d < rrk; d++)
    if (!shard_rr_ints_contains(&rc, d) && !shard_rr_ints_contains(&rb, d))
      shard_rule_builder_add(b, (int64_t[]){NUL, d}, (int64_t[]){out++}, shard_rr_shape(rhs)[d], PASS, false);
  for (uint32_t i = 0; i < lc.n; i++)
    shard_rule_builder_add(b, (int64_t[]){lc.v[i], rc.v[i]}, (int64_t[]){NUL}, shard_rr_shape(lhs)[lc.v[i]], REDUCTION,
                           false);
  return shard_rr_finish(b, a);
}

/* Sliced dims are never propagated through (the start is dynamic). */
static shard_op_sharding_rule *rule_dynamic_slice(shard_arena *a, const shard_op *op, bool conservative) {
  (void)conservative;
  if (!all_ranked(op, 1, 1)) return NULL;
  return shard_rr_pointwise_with_mismatch(a, op, OPERAND(op, 0), RESULT(op, 0), NEED, true);
}

static bool is_constant(const shard_value *v) {
  return defined_by(v, "stablehlo.constant") || defined_by(v, "sdy.constant") || defined_by(v, "arith.constant");
}

/* Operand and result share every dim; where the update is smaller it is
 * replicated (unless the indices are constants) and the operand stays sharded. */
static shard_op_sharding_rule *rule_dynamic_update_slice(shard_arena *a, const shard_op *op, bool conservative) {
  (void)conservative;
  if (!all_ranked(op, 2, 1) || op->num_operands > MAX_DIM_ARRAY) return NULL;
  const shard_value *in = OPERAND(op, 0), *upd = OPERAND(op, 1);
  if (shard_rr_rank(in) != shard_rr_rank(upd)) return NULL;
  bool all_const = true;
  for (uint32_t i = 2; i < op->num_operands; i++) all_const &= is_constant(OPERAND(op, i));
  int64_t dims[MAX_DIM_ARRAY];
  for (uint32_t i = 0; i < op->num_operands; i++) dims[i] = NUL;
  shard_rule_builder *b = shard_rule_builder_for_op(op);
  for (uint32_t d = 0; d < shard_rr_rank(in); d++) {
    int64_t is = shard_rr_shape(in)[d], us = shard_rr_shape(upd)[d];
    if (is == us) {
      shard_rule_builder_add_dim(b, d, is, PASS, false);
      continue;
    }
    dims[0] = d;
    dims[1] = NUL;
    shard_rule_builder_add(b, dims, (int64_t[]){d}, is, PASS, false);
    dims[0] = NUL;
    dims[1] = d;
    shard_rule_builder_add(b, dims, (int64_t[]){NUL}, us, all_const ? PASS : NEED, false);
  }
  return shard_rr_finish(b, a);
}

/* The transformed (innermost fft_length) dims need replication; the last one
 * is blocked when the real transforms truncate or expand it. */
static shard_op_sharding_rule *rule_fft(shard_arena *a, const shard_op *op, bool conservative) {
  (void)conservative;
  rr_ints len;
  if (!all_ranked(op, 1, 1) || !shard_rr_attr_ints(op, "fft_length", &len)) return NULL;
  const shard_value *in = OPERAND(op, 0), *out = RESULT(op, 0);
  uint32_t rank = shard_rr_rank(in);
  if (rank == 0 || shard_rr_rank(out) != rank || len.n > rank) return NULL;
  shard_rule_builder *b = shard_rule_builder_for_op(op);
  for (uint32_t d = 0; d < rank; d++) {
    int64_t size = shard_rr_shape(in)[d];
    if (d < rank - len.n) shard_rule_builder_add_dim(b, d, size, PASS, false);
    else if (d + 1 < rank) shard_rule_builder_add_dim(b, d, size, NEED, false);
    else shard_rule_builder_add_dim(b, d, size, NEED, shard_rr_shape(in)[d] != shard_rr_shape(out)[d]);
  }
  return shard_rr_finish(b, a);
}

/* Padded dims are permutations (propagated unless conservative). */
static shard_op_sharding_rule *rule_pad(shard_arena *a, const shard_op *op, bool conservative) {
  if (!all_ranked(op, 1, 1)) return NULL;
  return shard_rr_pointwise_with_mismatch(a, op, OPERAND(op, 0), RESULT(op, 0), PERM, conservative);
}

/* Inputs then init values; reduced dims are reduction factors of the inputs. */
static shard_op_sharding_rule *rule_reduce(shard_arena *a, const shard_op *op, bool conservative) {
  (void)conservative;
  rr_ints dims;
  uint32_t num_inputs = op->num_operands / 2;
  if (num_inputs == 0 || op->num_operands > MAX_DIM_ARRAY || op->num_results < num_inputs || !all_ranked(op, 1, 1) ||
      !shard_rr_attr_ints(op, "dimensions", &dims))
    return NULL;
  const shard_value *in = OPERAND(op, 0);
  int64_t op_dims[MAX_DIM_ARRAY], res_dims[MAX_DIM_ARRAY];
  for (uint32_t i = 0; i < op->num_operands; i++) op_dims[i] = NUL;
  shard_rule_builder *b = shard_rule_builder_for_op(op);
  int64_t out = 0;
  for (uint32_t d = 0; d < shard_rr_rank(in); d++) {
    for (uint32_t i = 0; i < num_inputs; i++) op_dims[i] = d;
    bool reduced = shard_rr_ints_contains(&dims, d);
    for (uint32_t i = 0; i < op->num_results; i++) res_dims[i] = i < num_inputs && !reduced ? out : NUL;
    shard_rule_builder_add(b, op_dims, res_dims, shard_rr_shape(in)[d], reduced ? REDUCTION : PASS, false);
    if (!reduced) out++;
  }
  return shard_rr_finish(b, a);
}

/* A window dim maps one to one when its window and stride are 1 and it has
 * no padding. */
static bool window_passthrough(const shard_op *op, const char *window_attr, uint32_t dim, uint32_t rank) {
  rr_ints pad, window, strides;
  if (shard_rr_attr_ints(op, "padding", &pad) && pad.n) {
    int64_t lo, hi;
    if (pad.n == 1) lo = hi = pad.v[0]; /* a splat */
    else if (pad.n == 2 * rank) lo = pad.v[2 * dim], hi = pad.v[2 * dim + 1];
    else return false;
    if (lo != 0 || hi != 0) return false;
  }
  if (shard_rr_attr_ints(op, "window_strides", &strides) && strides.n > dim && strides.v[dim] != 1) return false;
  if (shard_rr_attr_ints(op, window_attr, &window) && window.n > dim && window.v[dim] != 1) return false;
  return true;
}

/* Each result dim counts windows; the input dim can be sharded along them. */
static shard_op_sharding_rule *rule_reduce_window(shard_arena *a, const shard_op *op, bool conservative) {
  if (!all_ranked(op, 1, 1)) return NULL;
  const shard_value *out = RESULT(op, 0);
  uint32_t rank = shard_rr_rank(out);
  shard_rule_builder *b = shard_rule_builder_for_op(op);
  for (uint32_t d = 0; d < rank; d++) {
    bool pass = window_passthrough(op, "window_dimensions", d, rank);
    shard_rule_builder_add_dim(b, d, shard_rr_shape(out)[d], pass ? PASS : PERM, conservative && !pass);
  }
  return shard_rr_finish(b, a);
}

static shard_op_sharding_rule *rule_reverse(shard_arena *a, const shard_op *op, bool conservative) {
  (void)conservative;
  rr_ints dims;
  if (!all_ranked(op, 1, 1) || !shard_rr_attr_ints(op, "dimensions", &dims)) return NULL;
  const shard_value *out = RESULT(op, 0);
  shard_rule_builder *b = shard_rule_builder_for_op(op);
  for (uint32_t d = 0; d < shard_rr_rank(out); d++)
    shard_rule_builder_add_dim(b, d, shard_rr_shape(out)[d], shard_rr_ints_contains(&dims, d) ? PERM : PASS, false);
  return shard_rr_finish(b, a);
}

/* The initial and output states must stay replicated and apart from the
 * generated bits. */
static shard_op_sharding_rule *rule_rng_bit_generator(shard_arena *a, const shard_op *op, bool conservative) {
  (void)conservative;
  if (!all_ranked(op, 1, 2)) return NULL;
  const shard_value *state = OPERAND(op, 0), *bits = RESULT(op, 1);
  shard_rule_builder *b = shard_rule_builder_for_op(op);
  for (uint32_t d = 0; d < shard_rr_rank(state); d++)
    shard_rule_builder_add(b, (int64_t[]){d}, (int64_t[]){d, NUL}, shard_rr_shape(state)[d], NEED, true);
  for (uint32_t d = 0; d < shard_rr_rank(bits); d++)
    shard_rule_builder_add(b, NULL, (int64_t[]){NUL, d}, shard_rr_shape(bits)[d], PASS, false);
  return shard_rr_finish(b, a);
}

/* The predicate may be a scalar; the shape is the result's. */
static shard_op_sharding_rule *rule_select(shard_arena *a, const shard_op *op, bool conservative) {
  (void)conservative;
  if (!all_ranked(op, 0, 1)) return NULL;
  shard_rule_builder *b = shard_rule_builder_for_op(op);
  add_pointwise(b, shard_rr_shape(RESULT(op, 0)), shard_rr_rank(RESULT(op, 0)), PASS);
  return shard_rr_finish(b, a);
}

/* Operands (operand, source, init): a windowed dim is a permutation from
 * operand to result and a need-replication factor of the source. */
static shard_op_sharding_rule *rule_select_and_scatter(shard_arena *a, const shard_op *op, bool conservative) {
  if (!all_ranked(op, 2, 1) || op->num_operands != 3) return NULL;
  const shard_value *src = OPERAND(op, 1), *out = RESULT(op, 0);
  uint32_t rank = shard_rr_rank(out);
  if (shard_rr_rank(src) != rank) return NULL;
  shard_rule_builder *b = shard_rule_builder_for_op(op);
  for (uint32_t d = 0; d < rank; d++) {
    if (window_passthrough(op, "window_dimensions", d, rank)) {
      shard_rule_builder_add_dim(b, d, shard_rr_shape(out)[d], PASS, false);
      continue;
    }
    shard_rule_builder_add(b, (int64_t[]){NUL, d, NUL}, (int64_t[]){NUL}, shard_rr_shape(src)[d], NEED, conservative);
    shard_rule_builder_add(b, (int64_t[]){d, NUL, NUL}, (int64_t[]){d}, shard_rr_shape(out)[d], PERM, conservative);
  }
  return shard_rr_finish(b, a);
}

/* Unlike dynamic_slice the start is static, so sliced dims can stay sharded
 * by shifting data: a permutation, propagated unless conservative. */
static shard_op_sharding_rule *rule_slice(shard_arena *a, const shard_op *op, bool conservative) {
  if (!all_ranked(op, 1, 1)) return NULL;
  return shard_rr_pointwise_with_mismatch(a, op, OPERAND(op, 0), RESULT(op, 0), PERM, conservative);
}

/* The sort dim needs replication; it is blocked when it is the only dim of
 * size greater than 1 (nothing else could be sharded instead). */
static shard_op_sharding_rule *rule_sort(shard_arena *a, const shard_op *op, bool conservative) {
  (void)conservative;
  int64_t sd;
  if (!all_ranked(op, 1, 0) || !shard_rr_attr_int(op, "dimension", &sd)) return NULL;
  const shard_value *in = OPERAND(op, 0);
  uint32_t rank = shard_rr_rank(in);
  if (!dim_index(&sd, rank)) return NULL;
  bool blocked = true;
  for (uint32_t d = 0; d < rank; d++) blocked &= (int64_t)d == sd || shard_rr_shape(in)[d] == 1;
  shard_rule_builder *b = shard_rule_builder_for_op(op);
  for (uint32_t d = 0; d < rank; d++) {
    if ((int64_t)d == sd) shard_rule_builder_add_dim(b, d, shard_rr_shape(in)[d], NEED, blocked);
    else shard_rule_builder_add_dim(b, d, shard_rr_shape(in)[d], PASS, false);
  }
  return shard_rr_finish(b, a);
}

static shard_op_sharding_rule *rule_transpose(shard_arena *a, const shard_op *op, bool conservative) {
  (void)conservative;
  rr_ints perm;
  if (!all_ranked(op, 1, 1) || !shard_rr_attr_ints(op, "permutation", &perm)) return NULL;
  const shard_value *in = OPERAND(op, 0);
  if (perm.n != shard_rr_rank(in) || !dims_in_range(&perm, shard_rr_rank(in))) return NULL;
  shard_rule_builder *b = shard_rule_builder_for_op(op);
  for (uint32_t od = 0; od < perm.n; od++)
    shard_rule_builder_add_io(b, perm.v[od], od, shard_rr_shape(in)[perm.v[od]], PASS, false);
  return shard_rr_finish(b, a);
}

/* op(a) @ x = b (left side) or x @ op(a) = b: batch dims pass through, the
 * matrix dims all need replication. */
static shard_op_sharding_rule *rule_triangular_solve(shard_arena *a, const shard_op *op, bool conservative) {
  (void)conservative;
  bool left = false;
  if (!all_ranked(op, 2, 1)) return NULL;
  shard_rr_attr_bool(op, "left_side", &left);
  int transpose = shard_attr_enum(shard_op_attr(op, "transpose_a"), SHARD_SHLO_TRANSPOSE);
  const shard_value *av = OPERAND(op, 0), *bv = OPERAND(op, 1);
  uint32_t rank = shard_rr_rank(av);
  if (rank < 2 || shard_rr_rank(bv) != rank) return NULL;
  const int64_t *as = shard_rr_shape(av), *bs = shard_rr_shape(bv);
  bool transposed = transpose == SHARD_TRANSPOSE_TRANSPOSE || transpose == SHARD_TRANSPOSE_ADJOINT;
  int64_t d1 = rank - 2, d2 = rank - 1;
  shard_rule_builder *b = shard_rule_builder_for_op(op);
  add_pointwise(b, as, rank - 2, PASS);
  if (left) {
    int64_t a_free = transposed ? d2 : d1, a_contract = transposed ? d1 : d2;
    shard_rule_builder_add(b, (int64_t[]){a_free, d1}, (int64_t[]){NUL}, as[a_free], NEED, false);
    shard_rule_builder_add(b, (int64_t[]){NUL, d2}, (int64_t[]){d2}, bs[d2], NEED, false);
    shard_rule_builder_add(b, (int64_t[]){a_contract, NUL}, (int64_t[]){d1}, as[a_contract], NEED, false);
  } else {
    int64_t a_free = transposed ? d1 : d2, a_contract = transposed ? d2 : d1;
    shard_rule_builder_add(b, (int64_t[]){NUL, d1}, (int64_t[]){d1}, bs[d1], NEED, false);
    shard_rule_builder_add(b, (int64_t[]){a_free, d2}, (int64_t[]){NUL}, as[a_free], NEED, false);
    shard_rule_builder_add(b, (int64_t[]){a_contract, NUL}, (int64_t[]){d2}, as[a_contract], NEED, false);
  }
  return shard_rr_finish(b, a);
}

/* Op name -> constructor; a NULL constructor means "known, no rule". */
typedef struct rr_entry {
  const char *name;
  rr_create_fn create;
} rr_entry;

/* Sorted by name (strcmp order) for binary search. A NULL constructor: a
 * known op without a rule (symbols and structure, constants, and data-flow
 * ops that propagation handles through their edges); shard_rr_pointwise: Shardy's
 * pointwise ops. */
static const rr_entry S_registry[] = {
    {"builtin.module", NULL},
    {"func.call", NULL},
    {"func.func", NULL},
    {"sdy.constant", NULL},
    {"sdy.data_flow_edge", NULL},
    {"sdy.func_data_flow_edge", NULL},
    {"sdy.manual_computation", NULL},
    {"sdy.mesh", NULL},
    {"sdy.named_computation", NULL},
    {"sdy.propagation_barrier", NULL},
    {"sdy.reshard", NULL},
    {"sdy.sharding_constraint", shard_rr_pointwise},
    {"sdy.sharding_group", NULL},
    {"stablehlo.abs", shard_rr_pointwise},
    {"stablehlo.add", shard_rr_pointwise},
    {"stablehlo.after_all", NULL},
    {"stablehlo.all_gather", rule_all_gather},
    {"stablehlo.all_reduce", shard_rr_pointwise},
    {"stablehlo.all_to_all", rule_all_to_all},
    {"stablehlo.and", shard_rr_pointwise},
    {"stablehlo.atan2", shard_rr_pointwise},
    {"stablehlo.batch_norm_inference", rule_batch_norm_inference},
    {"stablehlo.bitcast_convert", rule_bitcast_convert},
    {"stablehlo.broadcast_in_dim", rule_broadcast_in_dim},
    {"stablehlo.case", NULL},
    {"stablehlo.cbrt", shard_rr_pointwise},
    {"stablehlo.ceil", shard_rr_pointwise},
    {"stablehlo.cholesky", rule_cholesky},
    {"stablehlo.clamp", rule_clamp},
    {"stablehlo.collective_broadcast", shard_rr_pointwise},
    {"stablehlo.collective_permute", shard_rr_pointwise},
    {"stablehlo.compare", shard_rr_pointwise},
    {"stablehlo.complex", shard_rr_pointwise},
    {"stablehlo.concatenate", rule_concatenate},
    {"stablehlo.constant", NULL},
    {"stablehlo.convert", shard_rr_pointwise},
    {"stablehlo.convolution", shard_rr_convolution},
    {"stablehlo.cosine", shard_rr_pointwise},
    {"stablehlo.count_leading_zeros", shard_rr_pointwise},
    {"stablehlo.create_token", NULL},
    {"stablehlo.cross-replica-sum", shard_rr_pointwise},
    {"stablehlo.divide", shard_rr_pointwise},
    {"stablehlo.dot", rule_dot},
    {"stablehlo.dot_general", rule_dot_general},
    {"stablehlo.dynamic_slice", rule_dynamic_slice},
    {"stablehlo.dynamic_update_slice", rule_dynamic_update_slice},
    {"stablehlo.exponential", shard_rr_pointwise},
    {"stablehlo.exponential_minus_one", shard_rr_pointwise},
    {"stablehlo.fft", rule_fft},
    {"stablehlo.floor", shard_rr_pointwise},
    {"stablehlo.gather", shard_rr_gather},
    {"stablehlo.get_tuple_element", NULL},
    {"stablehlo.imag", shard_rr_pointwise},
    {"stablehlo.infeed", NULL},
    {"stablehlo.iota", NULL},
    {"stablehlo.is_finite", shard_rr_pointwise},
    {"stablehlo.log", shard_rr_pointwise},
    {"stablehlo.log_plus_one", shard_rr_pointwise},
    {"stablehlo.logistic", shard_rr_pointwise},
    {"stablehlo.maximum", shard_rr_pointwise},
    {"stablehlo.minimum", shard_rr_pointwise},
    {"stablehlo.multiply", shard_rr_pointwise},
    {"stablehlo.negate", shard_rr_pointwise},
    {"stablehlo.not", shard_rr_pointwise},
    {"stablehlo.optimization_barrier", NULL},
    {"stablehlo.or", shard_rr_pointwise},
    {"stablehlo.outfeed", NULL},
    {"stablehlo.pad", rule_pad},
    {"stablehlo.partition_id", NULL},
    {"stablehlo.popcnt", shard_rr_pointwise},
    {"stablehlo.power", shard_rr_pointwise},
    {"stablehlo.real", shard_rr_pointwise},
    {"stablehlo.recv", NULL},
    {"stablehlo.reduce", rule_reduce},
    {"stablehlo.reduce_precision", shard_rr_pointwise},
    {"stablehlo.reduce_scatter", rule_reduce_scatter},
    {"stablehlo.reduce_window", rule_reduce_window},
    {"stablehlo.remainder", shard_rr_pointwise},
    {"stablehlo.reshape", shard_rr_reshape},
    {"stablehlo.reverse", rule_reverse},
    {"stablehlo.rng_bit_generator", rule_rng_bit_generator},
    {"stablehlo.round_nearest_afz", shard_rr_pointwise},
    {"stablehlo.round_nearest_even", shard_rr_pointwise},
    {"stablehlo.rsqrt", shard_rr_pointwise},
    {"stablehlo.scatter", shard_rr_scatter},
    {"stablehlo.select", rule_select},
    {"stablehlo.select_and_scatter", rule_select_and_scatter},
    {"stablehlo.send", NULL},
    {"stablehlo.shift_left", shard_rr_pointwise},
    {"stablehlo.shift_right_arithmetic", shard_rr_pointwise},
    {"stablehlo.shift_right_logical", shard_rr_pointwise},
    {"stablehlo.sign", shard_rr_pointwise},
    {"stablehlo.sine", shard_rr_pointwise},
    {"stablehlo.slice", rule_slice},
    {"stablehlo.sort", rule_sort},
    {"stablehlo.sqrt", shard_rr_pointwise},
    {"stablehlo.subtract", shard_rr_pointwise},
    {"stablehlo.tan", shard_rr_pointwise},
    {"stablehlo.tanh", shard_rr_pointwise},
    {"stablehlo.transpose", rule_transpose},
    {"stablehlo.triangular_solve", rule_triangular_solve},
    {"stablehlo.while", NULL},
    {"stablehlo.xor", shard_rr_pointwise},
};

static const rr_entry *lookup(const char *name) {
  size_t lo = 0, hi = sizeof S_registry / sizeof S_registry[0];
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    int c = strcmp(name, S_registry[mid].name);
    if (c == 0) return &S_registry[mid];
    if (c < 0) hi = mid;
    else lo = mid + 1;
  }
  return NULL;
}

shard_op_sharding_rule *shard_rule_create(shard_arena *a, const shard_op *op, bool conservative,
                                          const shard_rule_provider *extra) {
  if (!op || !op->name) return NULL;
  const rr_entry *e = lookup(op->name);
  if (e) return e->create ? e->create(a, op, conservative) : NULL;
  if (extra && extra->fn) {
    shard_op_sharding_rule *r = extra->fn(extra->ctx, a, op);
    if (r) return r;
  }
  if (strcmp(op->name, "stablehlo.custom_call") == 0) {
    bool unknown = false;
    return shard_rr_custom_call(a, op, conservative, &unknown);
  }
  if (strncmp(op->name, "chlo.", 5) == 0) return shard_rr_chlo(a, op, conservative, NULL);
  if (strncmp(op->name, "mhlo.", 5) == 0) return shard_rr_mhlo(a, op, conservative, NULL);
  return NULL;
}

shard_op_sharding_rule *shard_rule_for_op(shard_arena *a, const shard_op *op, bool conservative,
                                          const shard_rule_provider *extra) {
  const shard_attr *r = shard_op_attr(op, "sdy.sharding_rule");
  if (r && r->kind == SHARD_ATTR_SDY_RULE) return r->u.rule;
  return shard_rule_create(a, op, conservative, extra);
}

bool shard_rr_shared_by_equal_ops(const shard_op *op) {
  const rr_entry *e = op && op->name ? lookup(op->name) : NULL;
  if (!e || !e->create) return false;
  rr_create_fn f = e->create;
  return f == shard_rr_pointwise || f == rule_broadcast_in_dim || f == rule_dot || f == rule_dot_general ||
         f == shard_rr_reshape || f == rule_transpose;
}

/* A known op whose rule can't be built because a tensor has more dims than
 * the rule constructors' index lists hold (RR_MAX_INTS): said, not silent. */
static bool S_rank_beyond_rules(const shard_op *op, shard_buf *b) {
  uint32_t rank = 0;
  for (uint32_t i = 0; i < op->num_operands + op->num_results; i++) {
    const shard_type *t = i < op->num_operands ? (op->operands[i].value ? op->operands[i].value->type : NULL)
                                               : op->results[i - op->num_operands].type;
    if (t && t->kind == SHARD_TYPE_TENSOR && t->rank > rank) rank = t->rank;
  }
  if (rank <= RR_MAX_INTS) return false;
  shard_arena *tmp = shard_arena_new();
  bool built = shard_rule_create(tmp, op, false, NULL) != NULL;
  shard_arena_free(tmp);
  if (built) return false;
  shard_buf_printf(b, "op '%s' has a tensor of rank %u: SDY sharding rules handle at most %d dims, so the op has none",
                   op->name, rank, RR_MAX_INTS);
  return true;
}

bool shard_rule_unknown_message(const shard_op *op, shard_buf *b) {
  if (!op || !op->name) return false;
  if (lookup(op->name)) return S_rank_beyond_rules(op, b);
  if (strcmp(op->name, "stablehlo.custom_call") == 0) {
    bool unknown = false;
    shard_arena *tmp = shard_arena_new();
    shard_rr_custom_call(tmp, op, false, &unknown);
    shard_arena_free(tmp);
    if (!unknown) return false;
    const shard_attr *t = shard_op_attr(op, "call_target_name");
    if (t && t->kind == SHARD_ATTR_STRING)
      shard_buf_printf(b, "custom call @%.*s is unknown to SDY sharding rule registry", (int)t->u.str.len,
                       t->u.str.data);
    else shard_buf_puts(b, "custom call @ is unknown to SDY sharding rule registry");
    return true;
  }
  if (op->def && (op->def->traits & SHARD_TRAIT_TERMINATOR)) return false;
  if (strncmp(op->name, "chlo.", 5) == 0) {
    bool known = false;
    shard_arena *tmp = shard_arena_new();
    shard_rr_chlo(tmp, op, false, &known);
    shard_arena_free(tmp);
    if (known) return false;
  }
  if (strncmp(op->name, "mhlo.", 5) == 0) {
    bool known = false;
    shard_arena *tmp = shard_arena_new();
    shard_rr_mhlo(tmp, op, false, &known);
    shard_arena_free(tmp);
    if (known) return false;
  }
  shard_buf_printf(b, "op '%s' is unknown to SDY sharding rule registry", op->name);
  return true;
}
