/* Rules for the ops whose dims do not line up one to one: reshape (compound
 * factors), convolution (spatial dims split into windows and window
 * positions) and gather/scatter (batch, offset, collapsed and index dims).
 *
 * Reshape is the subtle one. Walking the input and output dims together,
 * it keeps the product of the factors given to each side so far; while the
 * two products agree, the gcd of what remains of the current input and
 * output dims becomes one factor shared by both (so 6x4 -> 4x6 gives
 * [ij, mn] -> [ik, ln] with i shared); once they diverge, the side that is
 * behind gets the factor that brings the products back together if it
 * divides what is left, else one that keeps the next gcd reachable. Size-1
 * dims get their own factor. A factor a dim shares with the other side is
 * what lets propagation move a sharding (or a sub-axis of it) across. */
#include <string.h>

#include "rules/rule_registry_internal.h"

#define MAX_OPERANDS 64

/* The factor for the side whose product `smaller` lags behind `larger`. */
static int64_t diverged_factor(int64_t next, int64_t smaller, int64_t larger, int64_t next_gcd) {
  if (larger % smaller == 0 && next % (larger / smaller) == 0) return larger / smaller;
  if (next > next_gcd) return next / next_gcd;
  return next;
}

shard_op_sharding_rule *shard_rr_reshape(shard_arena *a, const shard_op *op, bool conservative) {
  (void)conservative;
  if (op->num_operands < 1 || op->num_results < 1) return NULL;
  const shard_value *inv = OPERAND(op, 0), *outv = RESULT(op, 0);
  if (!shard_rr_is_ranked(inv) || !shard_rr_is_ranked(outv)) return NULL;
  /* Zero elements: nothing to propagate, and the walk below would divide by
   * zero. Dynamic shapes cannot be factored either. */
  int64_t n = shard_type_num_elements(inv->type);
  if (n <= 0 || shard_type_num_elements(outv->type) != n) return NULL;
  const int64_t *in = shard_rr_shape(inv), *out = shard_rr_shape(outv);
  int64_t ir = shard_rr_rank(inv), orank = shard_rr_rank(outv);
  int64_t id = 0, od = 0, dims_in = 1, dims_out = 1, fac_in = 1, fac_out = 1;
  shard_rule_builder *b = shard_rule_builder_for_op(op);
  while (id < ir || od < orank) {
    if (id < ir && in[id] == 1) {
      shard_rule_builder_add_io(b, id++, NUL, 1, PASS, false);
      continue;
    }
    if (od < orank && out[od] == 1) {
      shard_rule_builder_add_io(b, NUL, od++, 1, PASS, false);
      continue;
    }
    if (id < ir && dims_in == fac_in) dims_in *= in[id];
    if (od < orank && dims_out == fac_out) dims_out *= out[od];
    int64_t next_in = dims_in / fac_in, next_out = dims_out / fac_out;
    int64_t g = shard_gcd(next_in, next_out);
    if (fac_in == fac_out) {
      if (g > 1) {
        shard_rule_builder_add_io(b, id, od, g, PASS, false);
        fac_in *= g;
        fac_out *= g;
      } else {
        /* Cannot happen for equal element counts; bail out rather than loop. */
        if (next_in <= 1 || next_out <= 1) goto fail;
        shard_rule_builder_add_io(b, id, NUL, next_in, PASS, false);
        fac_in *= next_in;
        shard_rule_builder_add_io(b, NUL, od, next_out, PASS, false);
        fac_out *= next_out;
      }
    } else if (fac_in < fac_out) {
      int64_t f = diverged_factor(next_in, fac_in, fac_out, g);
      if (f <= 1) goto fail;
      shard_rule_builder_add_io(b, id, NUL, f, PASS, false);
      fac_in *= f;
    } else {
      int64_t f = diverged_factor(next_out, fac_out, fac_in, g);
      if (f <= 1) goto fail;
      shard_rule_builder_add_io(b, NUL, od, f, PASS, false);
      fac_out *= f;
    }
    if (id < ir && dims_in == fac_in) id++;
    if (od < orank && dims_out == fac_out) od++;
  }
  return shard_rr_finish(b, a);
fail:
  shard_rule_builder_free(b);
  return NULL;
}

/* ---- convolution ----------------------------------------------------------- */

typedef struct conv_ctx {
  shard_rule_builder *b;
  int64_t remaining; /* of the input spatial dim not yet given to a factor */
  int64_t lhs_dim, rhs_dim, out_dim;
} conv_ctx;

/* An input spatial dim splits into the number of windows (shared with the
 * output dim, a permutation: halos move) and the window size (shared with
 * the kernel dim, a reduction). Each factor is capped by what is left. */
static void conv_spatial_factor(conv_ctx *c, int64_t size, bool contracting) {
  if (size > c->remaining) size = c->remaining;
  if (size <= 1) return;
  shard_rule_builder_add(c->b, (int64_t[]){c->lhs_dim, contracting ? c->rhs_dim : NUL},
                         (int64_t[]){contracting ? NUL : c->out_dim}, size, contracting ? REDUCTION : PERM, false);
  c->remaining /= size;
}

static bool dim_ok(int64_t d, const shard_value *v) { return d >= 0 && d < (int64_t)shard_rr_rank(v); }

shard_op_sharding_rule *shard_rr_convolution(shard_arena *a, const shard_op *op, bool conservative) {
  const shard_conv_dims *dnp = shard_op_conv_dims(op);
  int64_t bgc = 1, fgc = 1;
  if (op->num_operands != 2 || op->num_results < 1 || !shard_rr_is_ranked(OPERAND(op, 0)) ||
      !shard_rr_is_ranked(OPERAND(op, 1)) || !shard_rr_is_ranked(RESULT(op, 0)) || !dnp ||
      dnp->in_spatial.n != dnp->k_spatial.n || dnp->in_spatial.n != dnp->out_spatial.n)
    return NULL;
  shard_conv_dims dn = *dnp;
  shard_rr_attr_int(op, "batch_group_count", &bgc);
  shard_rr_attr_int(op, "feature_group_count", &fgc);
  const shard_value *lhs = OPERAND(op, 0), *rhs = OPERAND(op, 1), *out = RESULT(op, 0);
  if (!dim_ok(dn.in_batch, lhs) || !dim_ok(dn.in_feature, lhs) || !dim_ok(dn.k_in_feature, rhs) ||
      !dim_ok(dn.k_out_feature, rhs) || !dim_ok(dn.out_batch, out) || !dim_ok(dn.out_feature, out) || bgc < 1 ||
      fgc < 1)
    return NULL;
  for (uint32_t i = 0; i < dn.in_spatial.n; i++)
    if (!dim_ok(dn.in_spatial.v[i], lhs) || !dim_ok(dn.k_spatial.v[i], rhs) || !dim_ok(dn.out_spatial.v[i], out))
      return NULL;
  const int64_t *ls = shard_rr_shape(lhs), *ks = shard_rr_shape(rhs), *os = shard_rr_shape(out);
  shard_rule_builder *b = shard_rule_builder_for_op(op);
  if (bgc > 1)
    shard_rule_builder_add(b, (int64_t[]){dn.in_batch, dn.k_out_feature}, (int64_t[]){dn.out_feature}, bgc, PASS,
                           false);
  /* The per-group batch size. */
  shard_rule_builder_add(b, (int64_t[]){dn.in_batch, NUL}, (int64_t[]){dn.out_batch}, os[dn.out_batch], PASS, false);
  /* Conservatively, spatial dims get no factors at all. */
  for (uint32_t i = 0; !conservative && i < dn.in_spatial.n; i++) {
    conv_ctx c = {b, ls[dn.in_spatial.v[i]], dn.in_spatial.v[i], dn.k_spatial.v[i], dn.out_spatial.v[i]};
    int64_t num_windows = os[c.out_dim], window_size = ks[c.rhs_dim];
    /* The larger factor is the major one. */
    if (num_windows >= window_size) {
      conv_spatial_factor(&c, num_windows, false);
      conv_spatial_factor(&c, window_size, true);
    } else {
      conv_spatial_factor(&c, window_size, true);
      conv_spatial_factor(&c, num_windows, false);
    }
  }
  if (fgc > 1)
    shard_rule_builder_add(b, (int64_t[]){dn.in_feature, dn.k_out_feature}, (int64_t[]){dn.out_feature}, fgc, PASS,
                           false);
  /* The per-group input feature size is contracted. */
  shard_rule_builder_add(b, (int64_t[]){dn.in_feature, dn.k_in_feature}, (int64_t[]){NUL}, ks[dn.k_in_feature],
                         REDUCTION, false);
  int64_t out_features = os[dn.out_feature] / (bgc * fgc);
  if (out_features > 1)
    shard_rule_builder_add(b, (int64_t[]){NUL, dn.k_out_feature}, (int64_t[]){dn.out_feature}, out_features, PASS,
                           false);
  return shard_rr_finish(b, a);
}

/* ---- gather and scatter ------------------------------------------------------ */

/* What differs between the two: how (input, indices, slices) dims become
 * operand and result dims, and the kinds of a few factors. For scatter the
 * "slices" are the updates and there may be several inputs and updates. */
typedef struct gs_ctx {
  shard_rule_builder *b;
  bool scatter;
  uint32_t num_inputs; /* scatter: inputs, then indices, then as many updates */
  bool scatter_has_reduction; /* scatter: the update computation is a known reduction */
} gs_ctx;

static void gs_add(gs_ctx *c, int64_t input_dim, int64_t indices_dim, int64_t slices_dim, int64_t size,
                   shard_factor_type type, bool blocked) {
  if (!c->scatter) {
    shard_rule_builder_add(c->b, (int64_t[]){input_dim, indices_dim}, (int64_t[]){slices_dim}, size, type, blocked);
    return;
  }
  int64_t ops[2 * MAX_OPERANDS + 1], res[MAX_OPERANDS];
  uint32_t n = c->num_inputs;
  for (uint32_t i = 0; i < n; i++) {
    ops[i] = input_dim;
    ops[n + 1 + i] = slices_dim;
    res[i] = input_dim;
  }
  ops[n] = indices_dim;
  shard_rule_builder_add(c->b, ops, res, size, type, blocked);
}

static bool gs_factors(gs_ctx *c, const shard_value *input, const shard_value *indices, const shard_value *slices,
                       const shard_gather_dims *dn) {
  const int64_t *is = shard_rr_shape(input), *xs = shard_rr_shape(indices), *ss = shard_rr_shape(slices);
  int64_t input_rank = shard_rr_rank(input), indices_rank = shard_rr_rank(indices);
  int64_t input_dim = 0, batch_pos = 0;
  for (uint32_t sd = 0; sd < shard_rr_rank(slices); sd++) {
    int64_t slice_size = ss[sd];
    if (shard_rr_ints_contains(&dn->offset, sd)) {
      /* An offset dim: the next input dim that is neither collapsed nor batching. */
      while (shard_rr_ints_contains(&dn->collapsed, input_dim) ||
             shard_rr_ints_contains(&dn->operand_batching, input_dim))
        input_dim++;
      if (input_dim >= input_rank) return false;
      int64_t input_size = is[input_dim];
      if (input_size == slice_size) {
        gs_add(c, input_dim, NUL, sd, input_size, PASS, false);
      } else if (c->scatter) {
        gs_add(c, input_dim, NUL, NUL, input_size, NEED, false);
        gs_add(c, NUL, NUL, sd, slice_size, NEED, false);
      } else if (slice_size == 1) {
        /* Sharding the input dim means an all-reduce of the result. */
        gs_add(c, input_dim, NUL, NUL, input_size, REDUCTION, false);
        gs_add(c, NUL, NUL, sd, slice_size, NEED, false);
      } else {
        gs_add(c, input_dim, NUL, sd, input_size, NEED, true);
      }
      input_dim++;
    } else {
      /* A batch dim of the slices: find it in the indices (skipping the
       * index vector dim), and in the input when it is an explicit batching dim. */
      int64_t indices_dim = batch_pos < dn->index_vector_dim ? batch_pos : batch_pos + 1;
      if (indices_dim >= indices_rank) return false;
      int at = shard_rr_ints_find(&dn->indices_batching, indices_dim);
      int64_t input_batch_dim = at >= 0 && (uint32_t)at < dn->operand_batching.n ? dn->operand_batching.v[at] : NUL;
      shard_factor_type type = PASS;
      /* Only in the indices and updates: scattered values meet in the result. */
      if (c->scatter && at < 0) type = c->scatter_has_reduction ? REDUCTION : NEED;
      gs_add(c, input_batch_dim, indices_dim, sd, slice_size, type, false);
      batch_pos++;
    }
  }
  for (uint32_t i = 0; i < dn->collapsed.n; i++) {
    int64_t d = dn->collapsed.v[i];
    if (d < 0 || d >= input_rank) return false;
    /* For gather a collapsed dim can be sharded at the price of an
     * all-reduce, unless it has size 1 (nothing to shard). */
    shard_factor_type type = c->scatter ? PASS : is[d] == 1 ? NEED : REDUCTION;
    gs_add(c, d, NUL, NUL, is[d], type, false);
  }
  if (dn->index_vector_dim >= 0 && dn->index_vector_dim < indices_rank)
    gs_add(c, NUL, dn->index_vector_dim, NUL, xs[dn->index_vector_dim], NEED, false);
  return true;
}

static shard_op_sharding_rule *gs_finish(gs_ctx *c, shard_arena *a, bool ok) {
  if (!ok) {
    shard_rule_builder_free(c->b);
    return NULL;
  }
  return shard_rr_finish(c->b, a);
}

shard_op_sharding_rule *shard_rr_gather(shard_arena *a, const shard_op *op, bool conservative) {
  (void)conservative;
  const shard_gather_dims *dn = shard_op_gather_dims(op);
  if (op->num_operands != 2 || op->num_results != 1 || !shard_rr_is_ranked(OPERAND(op, 0)) ||
      !shard_rr_is_ranked(OPERAND(op, 1)) || !shard_rr_is_ranked(RESULT(op, 0)) || !dn)
    return NULL;
  gs_ctx c = {shard_rule_builder_for_op(op), false, 1, false};
  return gs_finish(&c, a, gs_factors(&c, OPERAND(op, 0), OPERAND(op, 1), RESULT(op, 0), dn));
}

static bool is_block_arg(const shard_value *v, const shard_block *blk, uint32_t index) {
  return v && !v->def && v->block == blk && v->index == index;
}

/* Shardy's getCommonSupportedReductionOp: every result of the update
 * computation is the same associative, commutative op (add, multiply,
 * maximum, minimum; and/or on i1) of the matching input and update block
 * arguments. */
static bool scatter_has_reduction(const shard_op *op, uint32_t num_inputs) {
  if (op->num_regions < 1 || !op->regions[0].first) return false;
  const shard_block *blk = op->regions[0].first;
  if (blk->num_args != 2 * num_inputs) return false;
  const shard_op *ret = shard_block_terminator(blk);
  if (!ret || strcmp(ret->name, "stablehlo.return") != 0 || ret->num_operands != num_inputs) return false;
  const char *kind = NULL;
  for (uint32_t i = 0; i < num_inputs; i++) {
    const shard_value *v = ret->operands[i].value;
    const shard_op *def = v ? v->def : NULL;
    if (!def || def->num_operands != 2 || !shard_rr_is_ranked(v)) return false;
    bool logical = strcmp(v->type->elem, "i1") == 0 &&
                   (strcmp(def->name, "stablehlo.and") == 0 || strcmp(def->name, "stablehlo.or") == 0);
    bool arith = strcmp(def->name, "stablehlo.add") == 0 || strcmp(def->name, "stablehlo.multiply") == 0 ||
                 strcmp(def->name, "stablehlo.maximum") == 0 || strcmp(def->name, "stablehlo.minimum") == 0;
    if (!logical && !arith) return false;
    if (kind && strcmp(kind, def->name) != 0) return false;
    kind = def->name;
    const shard_value *l = def->operands[0].value, *r = def->operands[1].value;
    if (!((is_block_arg(l, blk, i) && is_block_arg(r, blk, i + num_inputs)) ||
          (is_block_arg(l, blk, i + num_inputs) && is_block_arg(r, blk, i))))
      return false;
  }
  return true;
}

shard_op_sharding_rule *shard_rr_scatter(shard_arena *a, const shard_op *op, bool conservative) {
  (void)conservative;
  const shard_gather_dims *dn = shard_op_scatter_dims(op);
  uint32_t n = op->num_results;
  if (n == 0 || n > MAX_OPERANDS || op->num_operands != 2 * n + 1 || !dn) return NULL;
  for (uint32_t i = 0; i < op->num_operands; i++)
    if (!shard_rr_is_ranked(OPERAND(op, i))) return NULL;
  gs_ctx c = {shard_rule_builder_for_op(op), true, n, scatter_has_reduction(op, n)};
  return gs_finish(&c, a, gs_factors(&c, OPERAND(op, 0), OPERAND(op, n), OPERAND(op, n + 1), dn));
}
