/* Rounding bookkeeping for `shard lower --verify`: how far a per-device
 * program's float value may lie from the same value computed on one device,
 * when both are correct.
 *
 * The per-device program computes the same operations on the same numbers as
 * the global one, so its values have the same bits, except where it adds up
 * floats across devices (all_reduce, reduce_scatter): there the terms of a
 * sum are added in another order, and float addition is not associative.
 * For a sum of N terms x_i added in any order, with rounding after every
 * addition (unit roundoff u: 2^-24 for f32), the result is within
 * gamma(N-1) * sum |x_i| of the exact sum, gamma(k) = k*u / (1 - k*u)
 * (Higham, Accuracy and Stability of Numerical Algorithms, 2nd ed., 4.2).
 * Two orders are thus at most 2 * gamma(N-1) * sum |x_i| apart, and equal
 * when every term is an integer and sum |x_i| <= 2^p (p significand bits):
 * then every partial sum is an integer the format holds exactly.
 *
 * So tensors carry, per tensor (the worst element): sum_terms (N), sum_mag
 * (sum |x_i|), sum_int (all terms integers), set by the ops that add terms:
 * dot_general and reduce with an add body (interp_ops.c) and the
 * cross-device sums (interp_collectives.c, which see every device's
 * operand), and `bound`, set by the cross-device sums and carried here:
 *   - ops that only move elements (reshape, transpose, slice, ...) keep it;
 *   - maximum, minimum, negate, abs, select keep the largest operand bound
 *     (they are exact and move a value by no more than their operands move);
 *   - add, subtract and multiply by an exact operand add the operands'
 *     bounds (scaled) plus the rounding of the op itself on both sides;
 *   - add and subtract of sums add their terms and magnitudes;
 *   - the smooth elementwise functions (exp, expm1, log, log1p, sqrt, rsqrt,
 *     tanh, logistic, sine, cosine), convert between float formats and
 *     divide by an exact operand move a value by at most L * b, L the
 *     largest |f'| on [x - b, x + b] over the operand's elements, plus the
 *     rounding of the op on both sides (2u |f| each: libm's f64 results
 *     are within an ulp);
 *   - every other op turns a nonzero bound into INFINITY: no rule, and a
 *     difference there is reported as a mismatch.
 * Integer arithmetic wraps and is associative: integer values have bound 0. */
#include <math.h>
#include <string.h>

#include "interp/interp_internal.h"

double shard_interp_unit_roundoff(const shard_tensor *t) { return shard_float_unit_roundoff(t->fmt); }

static bool S_float(const shard_tensor *t) { return t && t->kind == SHARD_ELEM_FLOAT; }

static double S_max_abs(const shard_tensor *t) {
  double m = 0;
  for (int64_t i = 0; i < t->num; i++)
    if (fabs(t->floats[i]) > m) m = fabs(t->floats[i]);
  return m;
}

static bool S_all_int(const shard_tensor *t) {
  for (int64_t i = 0; i < t->num; i++)
    if (t->floats[i] != floor(t->floats[i])) return false;
  return true;
}

/* An operand's terms: a plain value is one term. */
static void S_terms(const shard_tensor *t, int64_t *n, double *mag, bool *ints) {
  if (t->sum_terms > 0) {
    *n = t->sum_terms, *mag = t->sum_mag, *ints = t->sum_int;
  } else {
    *n = 1, *mag = S_max_abs(t), *ints = S_all_int(t);
  }
}

static bool S_in(const char *name, const char *const *list) {
  for (; *list; list++)
    if (!strcmp(name, *list)) return true;
  return false;
}

/* Ops whose result elements are operand elements (or constants). */
static const char *const S_moves[] = {"stablehlo.reshape",
                                      "stablehlo.transpose",
                                      "stablehlo.broadcast_in_dim",
                                      "stablehlo.broadcast",
                                      "stablehlo.slice",
                                      "stablehlo.dynamic_slice",
                                      "stablehlo.concatenate",
                                      "stablehlo.reverse",
                                      "stablehlo.pad",
                                      "stablehlo.copy",
                                      "stablehlo.optimization_barrier",
                                      "stablehlo.dynamic_update_slice",
                                      "stablehlo.get_tuple_element",
                                      "stablehlo.tuple",
                                      NULL};
/* Exact ops that move a value by at most what their operands move. */
static const char *const S_lipschitz[] = {"stablehlo.maximum",
                                          "stablehlo.minimum",
                                          "stablehlo.negate",
                                          "stablehlo.abs",
                                          "stablehlo.select",
                                          "stablehlo.clamp",
                                          NULL};

/* Smooth elementwise functions: the largest |f'| on [lo - b, hi + b] for
 * an operand whose elements lie in [lo, hi] (min |x| in amin); INFINITY
 * when the interval leaves the function's domain or the slope is
 * unbounded there. */
static double S_slope(const char *n, double lo, double hi, double amin, double b) {
  if (!strcmp(n, "exponential") || !strcmp(n, "exponential_minus_one")) return exp(hi + b);
  if (!strcmp(n, "tanh") || !strcmp(n, "sine") || !strcmp(n, "cosine")) return 1;
  if (!strcmp(n, "logistic")) return 0.25;
  if (!strcmp(n, "log")) return lo - b > 0 ? 1 / (lo - b) : INFINITY;
  if (!strcmp(n, "log_plus_one")) return lo + 1 - b > 0 ? 1 / (lo + 1 - b) : INFINITY;
  if (!strcmp(n, "sqrt")) return lo - b > 0 ? 0.5 / sqrt(lo - b) : INFINITY;
  if (!strcmp(n, "rsqrt")) return lo - b > 0 ? 0.5 / ((lo - b) * sqrt(lo - b)) : INFINITY;
  if (!strcmp(n, "convert")) return 1;
  (void)amin;
  return -1; /* not a smooth function */
}

static const char *const S_collectives[] = {"all_reduce", "reduce_scatter",     "all_gather",
                                            "all_to_all", "collective_permute", NULL};

void shard_interp_track_op(const interp_proc *p, const shard_op *op, shard_tensor *const *operands, uint32_t nops,
                           shard_tensor *const *results, uint32_t nres) {
  (void)p;
  /* the collectives keep their own books: they see every device's operand */
  if (!strncmp(op->name, "stablehlo.", 10) && S_in(op->name + 10, S_collectives)) return;
  double in_bound = 0;
  for (uint32_t i = 0; i < nops; i++)
    if (S_float(operands[i]) && operands[i]->bound > in_bound) in_bound = operands[i]->bound;
  const char *name = op->name;
  bool moves = S_in(name, S_moves), lipschitz = S_in(name, S_lipschitz);
  bool add = !strcmp(name, "stablehlo.add") || !strcmp(name, "stablehlo.subtract");
  bool mul = !strcmp(name, "stablehlo.multiply");
  for (uint32_t r = 0; r < nres; r++) {
    shard_tensor *t = results[r];
    if (!S_float(t)) continue;
    bool aliased = false;
    for (uint32_t i = 0; i < nops; i++) aliased |= operands[i] == t;
    if (aliased) {
      if (in_bound > t->bound) t->bound = in_bound;
      continue;
    }
    if (moves) {
      /* keep the terms of a single moved operand (pad and concatenate may
       * mix in others: then only the bound) */
      const shard_tensor *src = nops >= 1 && S_float(operands[0]) ? operands[0] : NULL;
      if (src && src->sum_terms > 0 && (nops == 1 || !strcmp(name, "stablehlo.dynamic_slice"))) {
        t->sum_terms = src->sum_terms, t->sum_mag = src->sum_mag, t->sum_int = src->sum_int;
      }
      t->bound = in_bound;
    } else if (lipschitz) {
      t->bound = in_bound;
    } else if (add && nops == 2 && S_float(operands[0]) && S_float(operands[1])) {
      int64_t na, nb;
      double ma, mb;
      bool ia, ib;
      S_terms(operands[0], &na, &ma, &ia);
      S_terms(operands[1], &nb, &mb, &ib);
      t->sum_terms = na + nb, t->sum_mag = ma + mb, t->sum_int = ia && ib;
      /* |fl(a'+b') - fl(a+b)| <= |a'-a| + |b'-b| + u (|a'+b'| + |a+b|) */
      double b = operands[0]->bound + operands[1]->bound;
      double u = shard_interp_unit_roundoff(t);
      t->bound = b > 0 ? b + u * (2 * S_max_abs(t) * (1 + 2 * u) + b) : 0;
    } else if (mul && nops == 2 && S_float(operands[0]) && S_float(operands[1]) &&
               (operands[0]->bound == 0 || operands[1]->bound == 0)) {
      /* one side c is exact: |fl(a'c) - fl(ac)| <= |c| |a'-a| + u (|a'c| + |ac|) */
      const shard_tensor *c = operands[0]->bound == 0 ? operands[0] : operands[1];
      double b = in_bound * S_max_abs(c);
      double u = shard_interp_unit_roundoff(t);
      t->bound = in_bound > 0 ? b + u * (2 * S_max_abs(t) * (1 + 2 * u) + b) : 0;
    } else if (in_bound > 0 && nops == 1 && S_float(operands[0]) && !strncmp(name, "stablehlo.", 10) &&
               S_slope(name + 10, 0, 0, 0, 0) >= 0) {
      const shard_tensor *x = operands[0];
      double lo = INFINITY, hi = -INFINITY, amin = INFINITY;
      for (int64_t i = 0; i < x->num; i++) {
        double v = x->floats[i];
        if (v < lo) lo = v;
        if (v > hi) hi = v;
        if (fabs(v) < amin) amin = fabs(v);
      }
      double slope = x->num ? S_slope(name + 10, lo, hi, amin, in_bound) : 0;
      double moved = slope * in_bound, u = shard_interp_unit_roundoff(t);
      double b = moved + 2 * u * (2 * S_max_abs(t) + moved);
      t->bound = isfinite(b) ? b : INFINITY;
    } else if (in_bound > 0 && !strcmp(name, "stablehlo.divide") && nops == 2 && S_float(operands[0]) &&
               S_float(operands[1]) && operands[1]->bound == 0) {
      /* a / c with c exact: |a' - a| / |c| plus the rounding on both sides */
      const shard_tensor *c = operands[1];
      double cmin = INFINITY;
      for (int64_t i = 0; i < c->num; i++)
        if (fabs(c->floats[i]) < cmin) cmin = fabs(c->floats[i]);
      double moved = cmin > 0 ? operands[0]->bound / cmin : INFINITY, u = shard_interp_unit_roundoff(t);
      double b = moved + u * (2 * S_max_abs(t) * (1 + 2 * u) + moved);
      t->bound = isfinite(b) ? b : INFINITY;
    } else if (in_bound > 0) {
      t->bound = INFINITY;
    }
  }
}
