/* The data ops of the interpreter: constants, elementwise arithmetic,
 * compare/select, conversions, shape ops (reshape, transpose,
 * broadcast_in_dim, slice, dynamic slices, concatenate, pad, reverse, iota),
 * reductions, dot_general, sort, map, get_dimension_size and the device
 * ids.
 *
 * Semantics follow the StableHLO spec and its reference interpreter:
 * results are rounded to the result element type after every arithmetic
 * step (a dot product rounds each product and each partial sum), integer
 * arithmetic wraps, integer division by zero gives -1 (all ones) and
 * remainder by zero gives the dividend, float min/max propagate NaN. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "interp/interp_internal.h"

/* ---- helpers --------------------------------------------------------------------- */

void shard_interp_insert(shard_tensor *dst, const int64_t *offsets, const shard_tensor *src) {
  uint32_t rank = src->type->rank;
  if (src->num == 0) return;
  int64_t *dstr = shard_xcalloc(2 * (size_t)rank + 1, sizeof(int64_t)), *idx = dstr + rank;
  shard_interp_strides(rank, dst->type->dims, dstr);
  for (int64_t i = 0; i < src->num; i++) {
    int64_t di = 0;
    for (uint32_t d = 0; d < rank; d++) di += (idx[d] + offsets[d]) * dstr[d];
    interp_copy_elem(dst, di, src, i);
    shard_interp_next_index(rank, src->type->dims, idx);
  }
  free(dstr);
}

shard_tensor *shard_interp_extract(interp_proc *p, const shard_tensor *src, const int64_t *start,
                                   const int64_t *sizes) {
  uint32_t rank = src->type->rank;
  shard_tensor *out = shard_interp_tensor_shape(p, src, rank, sizes);
  int64_t *sstr = INTERP_ARRAY(p, int64_t, rank), *idx = INTERP_ARRAY(p, int64_t, rank);
  shard_interp_strides(rank, src->type->dims, sstr);
  for (int64_t i = 0; i < out->num; i++) {
    int64_t si = 0;
    for (uint32_t d = 0; d < rank; d++) si += (idx[d] + start[d]) * sstr[d];
    interp_copy_elem(out, i, src, si);
    shard_interp_next_index(rank, sizes, idx);
  }
  return out;
}

static const char *S_short(const char *name) { return strncmp(name, "stablehlo.", 10) == 0 ? name + 10 : name; }

static int64_t S_sdiv(int64_t a, int64_t b) {
  if (b == 0) return -1;
  if (a == INT64_MIN && b == -1) return a;
  return a / b;
}
static int64_t S_srem(int64_t a, int64_t b) {
  if (b == 0) return a;
  if (a == INT64_MIN && b == -1) return 0;
  return a % b;
}

enum {
  BIN_NONE,
  BIN_ADD,
  BIN_SUB,
  BIN_MUL,
  BIN_DIV,
  BIN_REM,
  BIN_MAX,
  BIN_MIN,
  BIN_POW,
  BIN_ATAN2,
  BIN_AND,
  BIN_OR,
  BIN_XOR,
  BIN_SHL,
  BIN_SHRL,
  BIN_SHRA
};

int shard_interp_binop(const char *name) {
  static const char *const names[] = {NULL,
                                      "add",
                                      "subtract",
                                      "multiply",
                                      "divide",
                                      "remainder",
                                      "maximum",
                                      "minimum",
                                      "power",
                                      "atan2",
                                      "and",
                                      "or",
                                      "xor",
                                      "shift_left",
                                      "shift_right_logical",
                                      "shift_right_arithmetic"};
  const char *n = S_short(name);
  for (int k = 1; k < (int)(sizeof names / sizeof *names); k++)
    if (!strcmp(n, names[k])) return k;
  return BIN_NONE;
}

bool shard_interp_apply_binop(int k, const shard_tensor *t, double a, double b, int64_t ia, int64_t ib, double *fr,
                              int64_t *ir) {
  if (t->kind == SHARD_ELEM_FLOAT) {
    double r;
    switch (k) {
    case BIN_ADD: r = a + b; break;
    case BIN_SUB: r = a - b; break;
    case BIN_MUL: r = a * b; break;
    case BIN_DIV: r = a / b; break;
    case BIN_REM: r = fmod(a, b); break;
    case BIN_MAX: r = isnan(a) || isnan(b) ? NAN : (a > b || (a == b && !signbit(a))) ? a : b; break;
    case BIN_MIN: r = isnan(a) || isnan(b) ? NAN : (a < b || (a == b && signbit(a))) ? a : b; break;
    case BIN_POW: r = pow(a, b); break;
    case BIN_ATAN2: r = atan2(a, b); break;
    default: return false;
    }
    *fr = shard_float_round(r, t->fmt);
    return true;
  }
  bool u = t->kind != SHARD_ELEM_SINT;
  uint64_t ua = (uint64_t)ia, ub = (uint64_t)ib;
  int64_t r;
  unsigned w = t->bits;
  switch (k) {
  case BIN_ADD: r = (int64_t)(ua + ub); break;
  case BIN_SUB: r = (int64_t)(ua - ub); break;
  case BIN_MUL: r = (int64_t)(ua * ub); break;
  case BIN_DIV: r = u ? (ub ? (int64_t)(ua / ub) : -1) : S_sdiv(ia, ib); break;
  case BIN_REM: r = u ? (ub ? (int64_t)(ua % ub) : ia) : S_srem(ia, ib); break;
  case BIN_MAX: r = u ? (ua > ub ? ia : ib) : (ia > ib ? ia : ib); break;
  case BIN_MIN: r = u ? (ua < ub ? ia : ib) : (ia < ib ? ia : ib); break;
  case BIN_AND: r = ia & ib; break;
  case BIN_OR: r = ia | ib; break;
  case BIN_XOR: r = ia ^ ib; break;
  case BIN_SHL: r = ub >= w ? 0 : (int64_t)(ua << ub); break;
  case BIN_SHRL: {
    uint64_t mask = w >= 64 ? ~UINT64_C(0) : (UINT64_C(1) << w) - 1;
    r = ub >= w ? 0 : (int64_t)((ua & mask) >> ub);
    break;
  }
  case BIN_SHRA: r = ub >= w ? (ia < 0 ? -1 : 0) : ia >> ub; break;
  case BIN_POW:
    if (!u && ib < 0) {
      r = ia == 1 ? 1 : ia == -1 ? (ib & 1 ? -1 : 1) : 0;
    } else {
      uint64_t acc = 1, base = ua, e = ub;
      while (e) {
        if (e & 1) acc *= base;
        base *= base;
        e >>= 1;
      }
      r = (int64_t)acc;
    }
    break;
  default: return false;
  }
  *ir = shard_elem_wrap_int(r, t->kind, t->bits);
  return true;
}

bool shard_interp_scalar_binary(const char *name, const shard_tensor *t, double a, double b, int64_t ia, int64_t ib,
                                double *fr, int64_t *ir) {
  return shard_interp_apply_binop(shard_interp_binop(name), t, a, b, ia, ib, fr, ir);
}

/* A reducer region that is one binary op of its two arguments, or NULL. */
static const char *S_simple_reducer(shard_region *r) {
  shard_block *b = r->first;
  if (!b || b->num_args != 2 || !b->first || !b->first->next) return NULL;
  shard_op *op = b->first, *ret = op->next;
  if (op->num_operands != 2 || op->num_results != 1 || ret->num_operands != 1 ||
      ret->operands[0].value != &op->results[0])
    return NULL;
  shard_value *x = op->operands[0].value, *y = op->operands[1].value;
  if (!((x == &b->args[0] && y == &b->args[1]) || (x == &b->args[1] && y == &b->args[0]))) return NULL;
  return op->name;
}

bool shard_interp_reduce_elems(interp_proc *p, interp_frame *f, shard_region *r, const shard_tensor *a, int64_t ai,
                               const shard_tensor *b, int64_t bi, shard_tensor *out, int64_t oi) {
  if (p->reducer != r) {
    const char *simple = S_simple_reducer(r);
    p->reducer = r;
    p->reducer_op = simple ? shard_interp_binop(simple) : BIN_NONE;
  }
  if (p->reducer_op != BIN_NONE && out->kind != SHARD_ELEM_COMPLEX) {
    double fr = 0;
    int64_t ir = 0;
    bool fl = out->kind == SHARD_ELEM_FLOAT;
    if (shard_interp_apply_binop(p->reducer_op, out, fl ? a->floats[ai] : 0, fl ? b->floats[bi] : 0,
                                 fl ? 0 : a->ints[ai], fl ? 0 : b->ints[bi], &fr, &ir)) {
      if (fl) out->floats[oi] = fr;
      else out->ints[oi] = ir;
      return true;
    }
  }
  shard_type *st = shard_type_tensor(p->arena, 0, NULL, out->type->elem, NULL);
  shard_tensor *args[2] = {shard_tensor_new(p->arena, st), shard_tensor_new(p->arena, st)};
  interp_copy_elem(args[0], 0, a, ai);
  interp_copy_elem(args[1], 0, b, bi);
  shard_tensor *res;
  if (!shard_interp_run_region(p, f, r, args, 2, &res, 1)) return false;
  interp_copy_elem(out, oi, res, 0);
  return true;
}

static shard_tensor *S_result(interp_proc *p, const shard_op *op, uint32_t i) {
  return shard_interp_tensor_like(p, op->results[i].type, op);
}

/* ---- elementwise ------------------------------------------------------------------ */

/* The elementwise unary ops, decoded once per op. */
static const char *const S_unary_names[] = {"exponential",
                                            "exponential_minus_one",
                                            "log",
                                            "log_plus_one",
                                            "sqrt",
                                            "rsqrt",
                                            "cbrt",
                                            "tanh",
                                            "tan",
                                            "sine",
                                            "cosine",
                                            "logistic",
                                            "floor",
                                            "ceil",
                                            "round_nearest_even",
                                            "round_nearest_afz",
                                            "abs",
                                            "negate",
                                            "sign",
                                            "not",
                                            "popcnt",
                                            "count_leading_zeros",
                                            "is_finite"};
enum {
  UN_EXP,
  UN_EXPM1,
  UN_LOG,
  UN_LOG1P,
  UN_SQRT,
  UN_RSQRT,
  UN_CBRT,
  UN_TANH,
  UN_TAN,
  UN_SIN,
  UN_COS,
  UN_LOGISTIC,
  UN_FLOOR,
  UN_CEIL,
  UN_ROUND_EVEN,
  UN_ROUND_AFZ,
  UN_ABS,
  UN_NEG,
  UN_SIGN,
  UN_NOT,
  UN_POPCNT,
  UN_CLZ,
  UN_IS_FINITE,
  UN_NONE
};

static int S_unary_op(const char *n) {
  for (int k = 0; k < UN_NONE; k++)
    if (!strcmp(n, S_unary_names[k])) return k;
  return UN_NONE;
}

static bool S_unary_float(int k, double x, double *r) {
  switch (k) {
  case UN_EXP: *r = exp(x); break;
  case UN_EXPM1: *r = expm1(x); break;
  case UN_LOG: *r = log(x); break;
  case UN_LOG1P: *r = log1p(x); break;
  case UN_SQRT: *r = sqrt(x); break;
  case UN_RSQRT: *r = 1.0 / sqrt(x); break;
  case UN_CBRT: *r = cbrt(x); break;
  case UN_TANH: *r = tanh(x); break;
  case UN_TAN: *r = tan(x); break;
  case UN_SIN: *r = sin(x); break;
  case UN_COS: *r = cos(x); break;
  case UN_LOGISTIC: *r = 1.0 / (1.0 + exp(-x)); break;
  case UN_FLOOR: *r = floor(x); break;
  case UN_CEIL: *r = ceil(x); break;
  case UN_ROUND_EVEN: *r = nearbyint(x); break;
  case UN_ROUND_AFZ: *r = round(x); break;
  case UN_ABS: *r = fabs(x); break;
  case UN_NEG: *r = -x; break;
  case UN_SIGN: *r = isnan(x) ? x : x > 0 ? 1.0 : x < 0 ? -1.0 : x; break;
  default: return false;
  }
  return true;
}

static bool S_unary(interp_proc *p, interp_frame *f, shard_op *op, const char *n) {
  shard_tensor *x = shard_interp_operand(p, f, op, 0), *r = x ? S_result(p, op, 0) : NULL;
  if (!r) return false;
  int k = S_unary_op(n);
  if (x->num != r->num) return shard_interp_error(p, op, "operand shapes differ from the result shape");
  if (k == UN_IS_FINITE) {
    if (x->kind != SHARD_ELEM_FLOAT) return shard_interp_error(p, op, "is_finite takes floats");
    for (int64_t i = 0; i < x->num; i++) r->ints[i] = isfinite(x->floats[i]) ? 1 : 0;
    return shard_interp_bind(f, &op->results[0], r), true;
  }
  for (int64_t i = 0; i < x->num; i++) {
    if (x->kind == SHARD_ELEM_FLOAT) {
      double v;
      if (!S_unary_float(k, x->floats[i], &v))
        return shard_interp_error(p, op, "the interpreter does not support '%s'", op->name);
      shard_interp_set_f(r, i, v);
      continue;
    }
    int64_t v = x->ints[i];
    if (k == UN_NEG) v = (int64_t)(0 - (uint64_t)v);
    else if (k == UN_ABS) v = v < 0 ? (int64_t)(0 - (uint64_t)v) : v;
    else if (k == UN_NOT) v = x->kind == SHARD_ELEM_BOOL ? !v : ~v;
    else if (k == UN_SIGN) v = v > 0 ? 1 : v < 0 ? -1 : 0;
    else if (k == UN_POPCNT) {
      uint64_t u = (uint64_t)v & (x->bits >= 64 ? ~UINT64_C(0) : (UINT64_C(1) << x->bits) - 1);
      v = __builtin_popcountll(u);
    } else if (k == UN_CLZ) {
      uint64_t u = (uint64_t)v & (x->bits >= 64 ? ~UINT64_C(0) : (UINT64_C(1) << x->bits) - 1);
      v = u ? __builtin_clzll(u) - (64 - (int)x->bits) : (int64_t)x->bits;
    } else return shard_interp_error(p, op, "the interpreter does not support '%s' on integers", op->name);
    shard_interp_set_i(r, i, v);
  }
  shard_interp_bind(f, &op->results[0], r);
  return true;
}

static bool S_binary(interp_proc *p, interp_frame *f, shard_op *op) {
  shard_tensor *a = shard_interp_operand(p, f, op, 0), *b = a ? shard_interp_operand(p, f, op, 1) : NULL,
               *r = b ? S_result(p, op, 0) : NULL;
  if (!r) return false;
  if (a->num != r->num || b->num != r->num)
    return shard_interp_error(p, op, "operand shapes differ from the result shape");
  bool fl = r->kind == SHARD_ELEM_FLOAT;
  int k = shard_interp_binop(op->name);
  for (int64_t i = 0; i < r->num; i++) {
    double fr = 0;
    int64_t ir = 0;
    if (!shard_interp_apply_binop(k, r, fl ? a->floats[i] : 0, fl ? b->floats[i] : 0, fl ? 0 : a->ints[i],
                                  fl ? 0 : b->ints[i], &fr, &ir))
      return shard_interp_error(p, op, "the interpreter does not support '%s' on %s", op->name, r->type->elem);
    if (fl) r->floats[i] = fr;
    else r->ints[i] = ir;
  }
  shard_interp_bind(f, &op->results[0], r);
  return true;
}

static bool S_compare(interp_proc *p, interp_frame *f, shard_op *op) {
  shard_tensor *a = shard_interp_operand(p, f, op, 0), *b = a ? shard_interp_operand(p, f, op, 1) : NULL,
               *r = b ? S_result(p, op, 0) : NULL;
  if (!r) return false;
  int d = shard_op_enum(op, "comparison_direction", SHARD_SHLO_COMPARISON_DIRECTION);
  if (d < 0) return shard_interp_error(p, op, "compare needs a comparison_direction");
  bool total = shard_op_enum(op, "compare_type", SHARD_SHLO_COMPARISON_TYPE) == SHARD_CMP_TOTALORDER;
  for (int64_t i = 0; i < r->num; i++) {
    int c; /* -1, 0, 1, or 2 for unordered */
    if (a->kind == SHARD_ELEM_FLOAT) {
      double x = a->floats[i], y = b->floats[i];
      if (total) {
        uint64_t ux = 0, uy = 0;
        memcpy(&ux, &x, 8);
        memcpy(&uy, &y, 8);
        int64_t sx = (int64_t)ux < 0 ? (int64_t)(~ux | (UINT64_C(1) << 63)) : (int64_t)ux;
        int64_t sy = (int64_t)uy < 0 ? (int64_t)(~uy | (UINT64_C(1) << 63)) : (int64_t)uy;
        c = sx < sy ? -1 : sx > sy ? 1 : 0;
      } else {
        c = isnan(x) || isnan(y) ? 2 : x < y ? -1 : x > y ? 1 : 0;
      }
    } else if (a->kind == SHARD_ELEM_UINT) {
      uint64_t x = (uint64_t)a->ints[i], y = (uint64_t)b->ints[i];
      c = x < y ? -1 : x > y ? 1 : 0;
    } else {
      c = a->ints[i] < b->ints[i] ? -1 : a->ints[i] > b->ints[i] ? 1 : 0;
    }
    bool v;
    switch (d) {
    case 0: v = c == 0; break;
    case 1: v = c != 0; break;
    case 2: v = c == 0 || c == 1; break;
    case 3: v = c == 1; break;
    case 4: v = c == 0 || c == -1; break;
    default: v = c == -1; break;
    }
    r->ints[i] = v;
  }
  shard_interp_bind(f, &op->results[0], r);
  return true;
}

static bool S_select(interp_proc *p, interp_frame *f, shard_op *op) {
  shard_tensor *c = shard_interp_operand(p, f, op, 0), *a = c ? shard_interp_operand(p, f, op, 1) : NULL,
               *b = a ? shard_interp_operand(p, f, op, 2) : NULL, *r = b ? S_result(p, op, 0) : NULL;
  if (!r) return false;
  for (int64_t i = 0; i < r->num; i++) interp_copy_elem(r, i, c->ints[c->num == 1 ? 0 : i] ? a : b, i);
  shard_interp_bind(f, &op->results[0], r);
  return true;
}

static bool S_clamp(interp_proc *p, interp_frame *f, shard_op *op) {
  shard_tensor *lo = shard_interp_operand(p, f, op, 0), *x = lo ? shard_interp_operand(p, f, op, 1) : NULL,
               *hi = x ? shard_interp_operand(p, f, op, 2) : NULL, *r = hi ? S_result(p, op, 0) : NULL;
  if (!r) return false;
  for (int64_t i = 0; i < r->num; i++) {
    int64_t li = lo->num == 1 ? 0 : i, hii = hi->num == 1 ? 0 : i;
    double fr;
    int64_t ir;
    bool fl = r->kind == SHARD_ELEM_FLOAT;
    shard_interp_apply_binop(BIN_MAX, r, fl ? x->floats[i] : 0, fl ? lo->floats[li] : 0, fl ? 0 : x->ints[i],
                             fl ? 0 : lo->ints[li], &fr, &ir);
    shard_interp_apply_binop(BIN_MIN, r, fr, fl ? hi->floats[hii] : 0, ir, fl ? 0 : hi->ints[hii], &fr, &ir);
    if (fl) r->floats[i] = fr;
    else r->ints[i] = ir;
  }
  shard_interp_bind(f, &op->results[0], r);
  return true;
}

static bool S_convert(interp_proc *p, interp_frame *f, shard_op *op) {
  shard_tensor *x = shard_interp_operand(p, f, op, 0), *r = x ? S_result(p, op, 0) : NULL;
  if (!r) return false;
  for (int64_t i = 0; i < r->num; i++) {
    if (r->kind == SHARD_ELEM_BOOL) r->ints[i] = x->kind == SHARD_ELEM_FLOAT ? x->floats[i] != 0 : x->ints[i] != 0;
    else if (x->kind == SHARD_ELEM_FLOAT) shard_interp_set_f(r, i, x->floats[i]);
    else if (r->kind == SHARD_ELEM_FLOAT) shard_interp_set_f(r, i, interp_get_f(x, i));
    else shard_interp_set_i(r, i, x->ints[i]);
  }
  shard_interp_bind(f, &op->results[0], r);
  return true;
}

/* ---- shape ops ---------------------------------------------------------------------- */

static bool S_reshape(interp_proc *p, interp_frame *f, shard_op *op) {
  shard_tensor *x = shard_interp_operand(p, f, op, 0);
  if (!x) return false;
  if (shard_type_num_elements(op->results[0].type) != x->num)
    return shard_interp_error(p, op, "reshape changes the number of elements");
  shard_tensor *r = SHARD_NEW(p->arena, shard_tensor);
  *r = *x;
  r->type = op->results[0].type;
  shard_interp_bind(f, &op->results[0], r);
  return true;
}

/* Fills r with elements of x moved along an affine map of r's index:
 * r[idx] = x[base + sum over d of idx[d] * step[d]] (step in x's flat
 * positions, one per dim of r). transpose, broadcast_in_dim, slice and
 * reverse are each such a map. idx is zeroed scratch of r's rank. */
static void S_copy_affine(shard_tensor *r, const shard_tensor *x, int64_t base, const int64_t *step, int64_t *idx) {
  uint32_t rank = r->type->rank;
  for (int64_t i = 0; i < r->num; i++) {
    int64_t si = base;
    for (uint32_t d = 0; d < rank; d++) si += idx[d] * step[d];
    interp_copy_elem(r, i, x, si);
    shard_interp_next_index(rank, r->type->dims, idx);
  }
}

static bool S_transpose(interp_proc *p, interp_frame *f, shard_op *op) {
  shard_tensor *x = shard_interp_operand(p, f, op, 0), *r = x ? S_result(p, op, 0) : NULL;
  int64_t *perm = INTERP_RANK_ARRAY(p, op, int64_t);
  uint32_t n;
  if (!r || !shard_interp_attr_i64s(p, op, "permutation", perm, &n, shard_interp_op_rank(op))) return false;
  uint32_t rank = r->type->rank;
  if (n != rank) return shard_interp_error(p, op, "permutation has the wrong length");
  int64_t *xs = INTERP_RANK_ARRAY(p, op, int64_t), *idx = INTERP_RANK_ARRAY(p, op, int64_t),
          *step = INTERP_RANK_ARRAY(p, op, int64_t);
  shard_interp_strides(rank, x->type->dims, xs);
  for (uint32_t d = 0; d < rank; d++) step[d] = xs[perm[d]];
  S_copy_affine(r, x, 0, step, idx);
  shard_interp_bind(f, &op->results[0], r);
  return true;
}

static bool S_broadcast_in_dim(interp_proc *p, interp_frame *f, shard_op *op) {
  shard_tensor *x = shard_interp_operand(p, f, op, 0), *r = x ? S_result(p, op, 0) : NULL;
  int64_t *bd = INTERP_RANK_ARRAY(p, op, int64_t);
  uint32_t n;
  if (!r || !shard_interp_attr_i64s(p, op, "broadcast_dimensions", bd, &n, shard_interp_op_rank(op))) return false;
  if (n != x->type->rank) return shard_interp_error(p, op, "broadcast_dimensions has the wrong length");
  int64_t *xs = INTERP_RANK_ARRAY(p, op, int64_t), *idx = INTERP_RANK_ARRAY(p, op, int64_t),
          *step = INTERP_RANK_ARRAY(p, op, int64_t);
  shard_interp_strides(n, x->type->dims, xs);
  /* a dim of size 1 is broadcast: its index stays 0 */
  for (uint32_t d = 0; d < n; d++)
    if (x->type->dims[d] != 1 && bd[d] >= 0 && bd[d] < r->type->rank) step[bd[d]] += xs[d];
  S_copy_affine(r, x, 0, step, idx);
  shard_interp_bind(f, &op->results[0], r);
  return true;
}

static bool S_slice(interp_proc *p, interp_frame *f, shard_op *op) {
  shard_tensor *x = shard_interp_operand(p, f, op, 0), *r = x ? S_result(p, op, 0) : NULL;
  int64_t *start = INTERP_RANK_ARRAY(p, op, int64_t), *stride = INTERP_RANK_ARRAY(p, op, int64_t),
          *lim = INTERP_RANK_ARRAY(p, op, int64_t);
  uint32_t n1, n2, n3;
  if (!r || !shard_interp_attr_i64s(p, op, "start_indices", start, &n1, shard_interp_op_rank(op)) ||
      !shard_interp_attr_i64s(p, op, "strides", stride, &n2, shard_interp_op_rank(op)) ||
      !shard_interp_attr_i64s(p, op, "limit_indices", lim, &n3, shard_interp_op_rank(op)))
    return false;
  uint32_t rank = x->type->rank;
  if (n1 != rank || n2 != rank) return shard_interp_error(p, op, "slice attributes have the wrong length");
  int64_t *xs = INTERP_RANK_ARRAY(p, op, int64_t), *idx = INTERP_RANK_ARRAY(p, op, int64_t),
          *step = INTERP_RANK_ARRAY(p, op, int64_t), base = 0;
  shard_interp_strides(rank, x->type->dims, xs);
  for (uint32_t d = 0; d < rank; d++) {
    base += start[d] * xs[d];
    step[d] = stride[d] * xs[d];
  }
  S_copy_affine(r, x, base, step, idx);
  shard_interp_bind(f, &op->results[0], r);
  return true;
}

/* Start indices of dynamic_slice / dynamic_update_slice, clamped so the
 * block fits (the spec's clamp(0, start, dim - size)). */
static bool S_dynamic_starts(interp_proc *p, interp_frame *f, shard_op *op, uint32_t first, const shard_tensor *x,
                             const int64_t *sizes, int64_t *start) {
  uint32_t rank = x->type->rank;
  if (op->num_operands - first != rank) return shard_interp_error(p, op, "expected %u start indices", rank);
  for (uint32_t d = 0; d < rank; d++) {
    shard_tensor *s = shard_interp_operand(p, f, op, first + d);
    if (!s) return false;
    int64_t v = s->kind == SHARD_ELEM_FLOAT ? (int64_t)s->floats[0] : s->ints[0];
    int64_t hi = x->type->dims[d] - sizes[d];
    start[d] = v < 0 ? 0 : v > hi ? hi : v;
  }
  return true;
}

static bool S_dynamic_slice(interp_proc *p, interp_frame *f, shard_op *op) {
  shard_tensor *x = shard_interp_operand(p, f, op, 0);
  int64_t *sizes = INTERP_RANK_ARRAY(p, op, int64_t), *start = INTERP_RANK_ARRAY(p, op, int64_t);
  uint32_t n;
  if (!x || !shard_interp_attr_i64s(p, op, "slice_sizes", sizes, &n, shard_interp_op_rank(op))) return false;
  if (n != x->type->rank) return shard_interp_error(p, op, "slice_sizes has the wrong length");
  if (!S_dynamic_starts(p, f, op, 1, x, sizes, start)) return false;
  shard_tensor *r = shard_interp_extract(p, x, start, sizes);
  r->type = op->results[0].type;
  shard_interp_bind(f, &op->results[0], r);
  return true;
}

static bool S_dynamic_update_slice(interp_proc *p, interp_frame *f, shard_op *op) {
  shard_tensor *x = shard_interp_operand(p, f, op, 0), *u = x ? shard_interp_operand(p, f, op, 1) : NULL;
  int64_t *start = INTERP_RANK_ARRAY(p, op, int64_t);
  if (!u || !S_dynamic_starts(p, f, op, 2, x, u->type->dims, start)) return false;
  shard_tensor *r = shard_interp_tensor_copy(p->arena, x);
  shard_interp_insert(r, start, u);
  shard_interp_bind(f, &op->results[0], r);
  return true;
}

static bool S_concatenate(interp_proc *p, interp_frame *f, shard_op *op) {
  int64_t dim;
  shard_tensor *r = S_result(p, op, 0);
  if (!r || !shard_interp_attr_int(p, op, "dimension", &dim)) return false;
  int64_t *off = INTERP_RANK_ARRAY(p, op, int64_t);
  for (uint32_t i = 0; i < op->num_operands; i++) {
    shard_tensor *x = shard_interp_operand(p, f, op, i);
    if (!x) return false;
    shard_interp_insert(r, off, x);
    off[dim] += x->type->dims[dim];
  }
  shard_interp_bind(f, &op->results[0], r);
  return true;
}

static bool S_pad(interp_proc *p, interp_frame *f, shard_op *op) {
  shard_tensor *x = shard_interp_operand(p, f, op, 0), *v = x ? shard_interp_operand(p, f, op, 1) : NULL,
               *r = v ? S_result(p, op, 0) : NULL;
  int64_t *lo = INTERP_RANK_ARRAY(p, op, int64_t), *hi = INTERP_RANK_ARRAY(p, op, int64_t),
          *in = INTERP_RANK_ARRAY(p, op, int64_t);
  uint32_t n1, n2, n3;
  if (!r || !shard_interp_attr_i64s(p, op, "edge_padding_low", lo, &n1, shard_interp_op_rank(op)) ||
      !shard_interp_attr_i64s(p, op, "edge_padding_high", hi, &n2, shard_interp_op_rank(op)) ||
      !shard_interp_attr_i64s(p, op, "interior_padding", in, &n3, shard_interp_op_rank(op)))
    return false;
  uint32_t rank = x->type->rank;
  for (int64_t i = 0; i < r->num; i++) interp_copy_elem(r, i, v, 0);
  int64_t *rs = INTERP_RANK_ARRAY(p, op, int64_t), *idx = INTERP_RANK_ARRAY(p, op, int64_t);
  shard_interp_strides(rank, r->type->dims, rs);
  for (int64_t i = 0; i < x->num; i++) {
    int64_t ri = 0;
    bool inside = true;
    for (uint32_t d = 0; d < rank; d++) {
      int64_t o = lo[d] + idx[d] * (in[d] + 1);
      if (o < 0 || o >= r->type->dims[d]) inside = false;
      ri += o * rs[d];
    }
    if (inside) interp_copy_elem(r, ri, x, i);
    shard_interp_next_index(rank, x->type->dims, idx);
  }
  shard_interp_bind(f, &op->results[0], r);
  return true;
}

static bool S_reverse(interp_proc *p, interp_frame *f, shard_op *op) {
  shard_tensor *x = shard_interp_operand(p, f, op, 0), *r = x ? S_result(p, op, 0) : NULL;
  int64_t *dims = INTERP_RANK_ARRAY(p, op, int64_t);
  uint32_t n;
  if (!r || !shard_interp_attr_i64s(p, op, "dimensions", dims, &n, shard_interp_op_rank(op))) return false;
  uint32_t rank = x->type->rank;
  bool *rev = INTERP_RANK_ARRAY(p, op, bool);
  for (uint32_t k = 0; k < n; k++)
    if (dims[k] < 0 || dims[k] >= (int64_t)rank)
      return shard_interp_error(p, op, "reverse dimension %lld is out of range", (long long)dims[k]);
    else rev[dims[k]] = true;
  int64_t *xs = INTERP_RANK_ARRAY(p, op, int64_t), *idx = INTERP_RANK_ARRAY(p, op, int64_t),
          *step = INTERP_RANK_ARRAY(p, op, int64_t), base = 0;
  shard_interp_strides(rank, x->type->dims, xs);
  for (uint32_t d = 0; d < rank; d++) {
    if (rev[d]) base += (x->type->dims[d] - 1) * xs[d];
    step[d] = rev[d] ? -xs[d] : xs[d];
  }
  S_copy_affine(r, x, base, step, idx);
  shard_interp_bind(f, &op->results[0], r);
  return true;
}

static bool S_iota(interp_proc *p, interp_frame *f, shard_op *op) {
  shard_tensor *r = S_result(p, op, 0);
  int64_t dim;
  if (!r || !shard_interp_attr_int(p, op, "iota_dimension", &dim)) return false;
  int64_t *idx = INTERP_RANK_ARRAY(p, op, int64_t);
  for (int64_t i = 0; i < r->num; i++) {
    shard_interp_set_i(r, i, idx[dim]);
    shard_interp_next_index(r->type->rank, r->type->dims, idx);
  }
  shard_interp_bind(f, &op->results[0], r);
  return true;
}

static bool S_constant(interp_proc *p, interp_frame *f, shard_op *op) {
  const shard_attr *v = shard_op_attr(op, "value");
  shard_tensor *t;
  const char *err;
  if (!v || v->kind != SHARD_ATTR_DENSE) return shard_interp_error(p, op, "constant needs a dense 'value'");
  if (!shard_tensor_from_dense(p->arena, v->u.dense.payload, op->results[0].type, &t, &err))
    return shard_interp_error(p, op, "constant: %s", err);
  shard_interp_bind(f, &op->results[0], t);
  return true;
}

static bool S_device_id(interp_proc *p, interp_frame *f, shard_op *op, int64_t id) {
  shard_tensor *r = S_result(p, op, 0);
  if (!r) return false;
  shard_interp_set_i(r, 0, id);
  shard_interp_bind(f, &op->results[0], r);
  return true;
}

/* ---- reductions and contractions ------------------------------------------------------- */

// stablehlo.reduce(inputs..., inits...) across `dimensions`, body of 2N scalars.
static bool S_reduce(interp_proc *p, interp_frame *f, shard_op *op) {
  uint32_t n = op->num_operands / 2;
  int64_t *dims = INTERP_RANK_ARRAY(p, op, int64_t);
  uint32_t nd;
  if (!shard_interp_attr_i64s(p, op, "dimensions", dims, &nd, shard_interp_op_rank(op))) return false;
  shard_tensor **in = SHARD_NEW_ARRAY(p->arena, shard_tensor *, 2 * n + 1);
  shard_tensor **res = SHARD_NEW_ARRAY(p->arena, shard_tensor *, n + 1);
  for (uint32_t i = 0; i < 2 * n; i++)
    if (!(in[i] = shard_interp_operand(p, f, op, i))) return false;
  for (uint32_t i = 0; i < n; i++) {
    if (!(res[i] = S_result(p, op, i))) return false;
    for (int64_t e = 0; e < res[i]->num; e++) interp_copy_elem(res[i], e, in[n + i], 0);
  }
  uint32_t rank = in[0]->type->rank;
  bool *reduced = INTERP_RANK_ARRAY(p, op, bool);
  for (uint32_t k = 0; k < nd; k++)
    if (dims[k] < 0 || dims[k] >= (int64_t)rank)
      return shard_interp_error(p, op, "reduce dimension %lld is out of range", (long long)dims[k]);
    else reduced[dims[k]] = true;
  int64_t *rdims = INTERP_RANK_ARRAY(p, op, int64_t), *rs = INTERP_RANK_ARRAY(p, op, int64_t),
          *idx = INTERP_RANK_ARRAY(p, op, int64_t);
  uint32_t rr = 0;
  for (uint32_t d = 0; d < rank; d++)
    if (!reduced[d]) rdims[rr++] = in[0]->type->dims[d];
  shard_interp_strides(rr, rdims, rs);
  shard_type **st = SHARD_NEW_ARRAY(p->arena, shard_type *, n + 1);
  for (uint32_t i = 0; i < n; i++) st[i] = shard_type_tensor(p->arena, 0, NULL, res[i]->type->elem, NULL);
  /* a float sum: its terms for the rounding bookkeeping (interp_rounding.c) */
  const char *reducer = S_simple_reducer(&op->regions[0]);
  bool track = n == 1 && p->world->track_rounding && res[0]->kind == SHARD_ELEM_FLOAT && reducer &&
               !strcmp(S_short(reducer), "add");
  double *mag = track ? SHARD_NEW_ARRAY(p->arena, double, (size_t)res[0]->num + 1) : NULL;
  bool all_int = true;
  if (track) {
    for (int64_t e = 0; e < res[0]->num; e++) mag[e] = fabs(res[0]->floats[e]);
    all_int = in[1]->floats[0] == floor(in[1]->floats[0]);
  }
  for (int64_t e = 0; e < in[0]->num; e++) {
    int64_t ri = 0;
    for (uint32_t d = 0, k = 0; d < rank; d++)
      if (!reduced[d]) ri += idx[d] * rs[k++];
    if (n == 1) {
      if (!shard_interp_reduce_elems(p, f, &op->regions[0], res[0], ri, in[0], e, res[0], ri)) return false;
      if (track) {
        mag[ri] += fabs(in[0]->floats[e]);
        all_int &= in[0]->floats[e] == floor(in[0]->floats[e]);
      }
    } else {
      shard_tensor **args = SHARD_NEW_ARRAY(p->arena, shard_tensor *, 2 * n);
      shard_tensor **out = SHARD_NEW_ARRAY(p->arena, shard_tensor *, n);
      for (uint32_t i = 0; i < n; i++) {
        args[i] = shard_tensor_new(p->arena, st[i]);
        args[n + i] = shard_tensor_new(p->arena, st[i]);
        interp_copy_elem(args[i], 0, res[i], ri);
        interp_copy_elem(args[n + i], 0, in[i], e);
      }
      if (!shard_interp_run_region(p, f, &op->regions[0], args, 2 * n, out, n)) return false;
      for (uint32_t i = 0; i < n; i++) interp_copy_elem(res[i], ri, out[i], 0);
    }
    shard_interp_next_index(rank, in[0]->type->dims, idx);
  }
  if (track) {
    double max_mag = 0;
    for (int64_t e = 0; e < res[0]->num; e++)
      if (mag[e] > max_mag) max_mag = mag[e];
    res[0]->sum_terms = res[0]->num ? in[0]->num / res[0]->num + 1 : 1; /* the init value is a term */
    res[0]->sum_mag = max_mag;
    res[0]->sum_int = all_int;
  }
  for (uint32_t i = 0; i < n; i++) shard_interp_bind(f, &op->results[i], res[i]);
  return true;
}

/* Offsets into a tensor of strides `st` of every multi-index over the dims
 * `which` (of `dims`), in row-major order of those dims. */
static int64_t *S_offsets(interp_proc *p, const int64_t *which, uint32_t n, const int64_t *dims, const int64_t *st,
                          int64_t *count) {
  int64_t c = 1;
  for (uint32_t k = 0; k < n; k++) c *= dims[which[k]];
  int64_t *out = INTERP_ARRAY(p, int64_t, c), *idx = INTERP_ARRAY(p, int64_t, n), *sub = INTERP_ARRAY(p, int64_t, n);
  for (uint32_t k = 0; k < n; k++) sub[k] = dims[which[k]];
  for (int64_t i = 0; i < c; i++) {
    int64_t o = 0;
    for (uint32_t k = 0; k < n; k++) o += idx[k] * st[which[k]];
    out[i] = o;
    shard_interp_next_index(n, sub, idx);
  }
  *count = c;
  return out;
}

static bool S_all_integers(const shard_tensor *t) {
  for (int64_t i = 0; i < t->num; i++)
    if (t->floats[i] != floor(t->floats[i])) return false;
  return true;
}

/* acc[n] += x * b[n] over a row, the float ops of the result format four
 * (two) lanes at a time (IEEE per lane, like the scalar ops); mag[n] +=
 * |x * b[n]| when mag is not NULL (a sum of positive terms: the caller
 * inflates it to an upper bound of the exact sum). */
typedef float S_v4f __attribute__((vector_size(16)));
typedef int32_t S_v4i __attribute__((vector_size(16)));
typedef double S_v2d __attribute__((vector_size(16)));
typedef int64_t S_v2i __attribute__((vector_size(16)));

/* One body for both formats: T the element, VT a vector of it, VI the
 * integers of its width, NOSIGN the mask that clears a sign bit, FABS the
 * scalar |.|. A scalar operand of a vector operation stands for every lane. */
#define S_ROW_KERNEL(NAME, T, VT, VI, NOSIGN, FABS)                                                                    \
  static void NAME(T *restrict acc, T *restrict mag, T x, const T *restrict b, int64_t n) {                            \
    const int64_t lanes = (int64_t)(sizeof(VT) / sizeof(T));                                                           \
    int64_t i = 0;                                                                                                     \
    for (; i + lanes <= n; i += lanes) {                                                                               \
      VT bv, av;                                                                                                       \
      memcpy(&bv, b + i, sizeof bv);                                                                                   \
      memcpy(&av, acc + i, sizeof av);                                                                                 \
      VT prod = x * bv;                                                                                                \
      av = av + prod;                                                                                                  \
      memcpy(acc + i, &av, sizeof av);                                                                                 \
      if (mag) {                                                                                                       \
        VT mv;                                                                                                         \
        memcpy(&mv, mag + i, sizeof mv);                                                                               \
        mv = mv + (VT)((VI)prod & (NOSIGN));                                                                           \
        memcpy(mag + i, &mv, sizeof mv);                                                                               \
      }                                                                                                                \
    }                                                                                                                  \
    for (; i < n; i++) {                                                                                               \
      T prod = x * b[i];                                                                                               \
      acc[i] = acc[i] + prod;                                                                                          \
      if (mag) mag[i] += FABS(prod);                                                                                   \
    }                                                                                                                  \
  }

S_ROW_KERNEL(S_row_f32, float, S_v4f, S_v4i, 0x7fffffff, fabsf)
S_ROW_KERNEL(S_row_f64, double, S_v2d, S_v2i, INT64_MAX, fabs)

/* stablehlo.dot_general / dot. The result is [batch, lhs free, rhs free]
 * row-major; every element is the sum over the contracting dims (row-major
 * order) of lhs * rhs, each product and each partial sum rounded to the
 * result type. f32 and f64 results run as packed row-by-row loops in the
 * hardware format (the float product of two values of at most 24 bits is
 * the rounded exact product, so this is the same arithmetic); other types
 * round each step with shard_float_round or wrap. */
static bool S_dot_general(interp_proc *p, interp_frame *f, shard_op *op) {
  shard_tensor *a = shard_interp_operand(p, f, op, 0), *b = a ? shard_interp_operand(p, f, op, 1) : NULL,
               *r = b ? S_result(p, op, 0) : NULL;
  if (!r) return false;
  int64_t *lb = INTERP_RANK_ARRAY(p, op, int64_t), *rb = INTERP_RANK_ARRAY(p, op, int64_t),
          *lc = INTERP_RANK_ARRAY(p, op, int64_t), *rc = INTERP_RANK_ARRAY(p, op, int64_t);
  uint32_t nlb = 0, nrb = 0, nlc = 0, nrc = 0;
  uint32_t ra = a->type->rank, rbk = b->type->rank;
  if (strcmp(op->name, "stablehlo.dot") == 0) {
    if (ra == 0 || ra > 2 || rbk == 0 || rbk > 2) return shard_interp_error(p, op, "dot takes operands of rank 1 or 2");
    nlc = nrc = 1;
    lc[0] = ra - 1;
    rc[0] = 0;
  } else {
    const shard_dot_dims *dn = shard_op_dot_dims(op);
    uint32_t max = shard_interp_op_rank(op);
    if (!dn || !shard_interp_list(&dn->lhs_batch, lb, &nlb, max) || !shard_interp_list(&dn->rhs_batch, rb, &nrb, max) ||
        !shard_interp_list(&dn->lhs_contract, lc, &nlc, max) || !shard_interp_list(&dn->rhs_contract, rc, &nrc, max))
      return shard_interp_error(p, op, "dot_general needs dot_dimension_numbers");
  }
  if (nlb != nrb || nlc != nrc)
    return shard_interp_error(p, op, "dot_general: lhs and rhs dimension lists differ in length");
  for (uint32_t k = 0; k < nlb; k++)
    if (lb[k] < 0 || lb[k] >= ra || rb[k] < 0 || rb[k] >= rbk || a->type->dims[lb[k]] != b->type->dims[rb[k]])
      return shard_interp_error(p, op, "dot_general: batching dimensions do not match");
  for (uint32_t k = 0; k < nlc; k++)
    if (lc[k] < 0 || lc[k] >= ra || rc[k] < 0 || rc[k] >= rbk || a->type->dims[lc[k]] != b->type->dims[rc[k]])
      return shard_interp_error(p, op, "dot_general: contracting dimensions do not match");
  /* the free dims of each side, in order */
  int64_t *lfree = INTERP_RANK_ARRAY(p, op, int64_t), *rfree = INTERP_RANK_ARRAY(p, op, int64_t);
  uint32_t nlf = 0, nrf = 0;
  for (uint32_t d = 0; d < ra; d++) {
    bool used = false;
    for (uint32_t k = 0; k < nlb; k++) used |= lb[k] == d;
    for (uint32_t k = 0; k < nlc; k++) used |= lc[k] == d;
    if (!used) lfree[nlf++] = d;
  }
  for (uint32_t d = 0; d < rbk; d++) {
    bool used = false;
    for (uint32_t k = 0; k < nrb; k++) used |= rb[k] == d;
    for (uint32_t k = 0; k < nrc; k++) used |= rc[k] == d;
    if (!used) rfree[nrf++] = d;
  }
  if (nlb + nlf + nrf != r->type->rank) return shard_interp_error(p, op, "dot_general result rank does not match");
  bool cplx = r->kind == SHARD_ELEM_COMPLEX;
  if ((a->kind == SHARD_ELEM_COMPLEX || b->kind == SHARD_ELEM_COMPLEX) && !cplx)
    return shard_interp_error(p, op, "dot_general of complex operands must have a complex result");
  int64_t *as = INTERP_RANK_ARRAY(p, op, int64_t), *bs = INTERP_RANK_ARRAY(p, op, int64_t);
  shard_interp_strides(ra, a->type->dims, as);
  shard_interp_strides(rbk, b->type->dims, bs);
  int64_t nb, nm, nn, nk, nb2, nk2;
  /* the products, checked before the offset tables are made */
  int64_t terms = 1;
  for (uint32_t k = 0; k < nlc; k++) terms *= a->type->dims[lc[k]];
  if (terms > 0 && r->num > SHARD_INTERP_MAX_PRODUCTS / terms)
    return shard_interp_error(p, op, "this %s takes %lld x %lld multiply-adds, more than the interpreter's %lld",
                              op->name, (long long)r->num, (long long)terms, (long long)SHARD_INTERP_MAX_PRODUCTS);
  const int64_t *boa = S_offsets(p, lb, nlb, a->type->dims, as, &nb),
                *bob = S_offsets(p, rb, nrb, b->type->dims, bs, &nb2);
  const int64_t *mo = S_offsets(p, lfree, nlf, a->type->dims, as, &nm),
                *no = S_offsets(p, rfree, nrf, b->type->dims, bs, &nn);
  const int64_t *koa = S_offsets(p, lc, nlc, a->type->dims, as, &nk),
                *kob = S_offsets(p, rc, nrc, b->type->dims, bs, &nk2);
  if (nb * nm * nn != r->num) return shard_interp_error(p, op, "dot_general result shape does not match");
  bool track = r->kind == SHARD_ELEM_FLOAT && p->world->track_rounding;
  double max_mag = 0;
  bool all_int = true;
  if (track)
    all_int =
        a->kind == SHARD_ELEM_FLOAT && b->kind == SHARD_ELEM_FLOAT ? S_all_integers(a) && S_all_integers(b) : true;
  bool fl = r->kind == SHARD_ELEM_FLOAT;
  bool in_float = a->kind == SHARD_ELEM_FLOAT && b->kind == SHARD_ELEM_FLOAT;
  if (fl && in_float && (r->fmt == SHARD_FLOAT_F32 || r->fmt == SHARD_FLOAT_F64) &&
      shard_float_width(a->fmt) <= (r->fmt == SHARD_FLOAT_F32 ? 32u : 64u) &&
      shard_float_width(b->fmt) <= (r->fmt == SHARD_FLOAT_F32 ? 32u : 64u) && a->fmt != SHARD_FLOAT_F8E8M0FNU &&
      b->fmt != SHARD_FLOAT_F8E8M0FNU) {
    /* packed: A as [m][k], B as [k][n] per batch; each output row is
     * accumulated over k in order, all n at once */
    bool f32 = r->fmt == SHARD_FLOAT_F32;
    size_t esz = f32 ? sizeof(float) : sizeof(double);
    void *pa = shard_xmalloc(esz * (size_t)(nm * nk + 1)), *pb = shard_xmalloc(esz * (size_t)(nk * nn + 1));
    void *row = shard_xmalloc(esz * (size_t)(nn + 1)), *mag = track ? shard_xmalloc(esz * (size_t)(nn + 1)) : NULL;
    /* the sums of |products| are rounded sums of positive terms: within
     * (1 + 2 nk u) of the exact sums while nk u < 1/2 */
    double u = f32 ? ldexp(1.0, -24) : ldexp(1.0, -53);
    double inflate = (double)nk * u < 0.25 ? 1 + 2 * (double)nk * u : INFINITY;
    for (int64_t bi = 0; bi < nb; bi++) {
      for (int64_t m = 0; m < nm; m++)
        for (int64_t k = 0; k < nk; k++) {
          double v = a->floats[boa[bi] + mo[m] + koa[k]];
          if (f32) ((float *)pa)[m * nk + k] = (float)v;
          else ((double *)pa)[m * nk + k] = v;
        }
      for (int64_t k = 0; k < nk; k++)
        for (int64_t n = 0; n < nn; n++) {
          double v = b->floats[bob[bi] + kob[k] + no[n]];
          if (f32) ((float *)pb)[k * nn + n] = (float)v;
          else ((double *)pb)[k * nn + n] = v;
        }
      for (int64_t m = 0; m < nm; m++) {
        double *out = r->floats + (bi * nm + m) * nn;
        memset(row, 0, esz * (size_t)nn);
        if (mag) memset(mag, 0, esz * (size_t)nn);
        for (int64_t k = 0; k < nk; k++) {
          if (f32) S_row_f32(row, mag, ((const float *)pa)[m * nk + k], (const float *)pb + k * nn, nn);
          else S_row_f64(row, mag, ((const double *)pa)[m * nk + k], (const double *)pb + k * nn, nn);
        }
        for (int64_t n = 0; n < nn; n++) {
          out[n] = f32 ? ((const float *)row)[n] : ((const double *)row)[n];
          if (mag) {
            double mg = (f32 ? ((const float *)mag)[n] : ((const double *)mag)[n]) * inflate;
            if (mg > max_mag) max_mag = mg;
          }
        }
      }
    }
    free(pa), free(pb), free(row), free(mag);
  } else {
    shard_float_fmt rf = r->fmt;
    shard_elem_kind rk = r->kind;
    unsigned rbits = r->bits;
    for (int64_t bi = 0, i = 0; bi < nb; bi++)
      for (int64_t m = 0; m < nm; m++)
        for (int64_t n = 0; n < nn; n++, i++) {
          int64_t abase = boa[bi] + mo[m], bbase = bob[bi] + no[n];
          if (cplx) {
            double re = 0, im = 0;
            for (int64_t k = 0; k < nk; k++) {
              int64_t ai = abase + koa[k], bj = bbase + kob[k];
              double xr = interp_get_f(a, ai), yr = interp_get_f(b, bj);
              double xi = a->kind == SHARD_ELEM_COMPLEX ? a->floats[2 * ai + 1] : 0;
              double yi = b->kind == SHARD_ELEM_COMPLEX ? b->floats[2 * bj + 1] : 0;
              double pr = shard_float_round(xr * yr - xi * yi, rf), pi = shard_float_round(xr * yi + xi * yr, rf);
              re = shard_float_round(re + pr, rf);
              im = shard_float_round(im + pi, rf);
            }
            r->floats[2 * i] = re, r->floats[2 * i + 1] = im;
          } else if (fl) {
            double acc = 0, mag = 0;
            for (int64_t k = 0; k < nk; k++) {
              double prod = shard_float_round(interp_get_f(a, abase + koa[k]) * interp_get_f(b, bbase + kob[k]), rf);
              acc = shard_float_round(acc + prod, rf);
              mag += fabs(prod);
            }
            r->floats[i] = acc;
            if (mag > max_mag) max_mag = mag;
          } else if (rk == SHARD_ELEM_BOOL) {
            int64_t acc = 0;
            for (int64_t k = 0; k < nk && !acc; k++) acc = a->ints[abase + koa[k]] && b->ints[bbase + kob[k]];
            r->ints[i] = acc;
          } else {
            uint64_t acc = 0;
            for (int64_t k = 0; k < nk; k++) {
              int64_t x = a->ints[abase + koa[k]], y = b->ints[bbase + kob[k]];
              acc += (uint64_t)x * (uint64_t)y; /* wraps like the result type once masked */
            }
            r->ints[i] = shard_elem_wrap_int((int64_t)acc, rk, rbits);
          }
        }
  }
  if (track) r->sum_terms = terms, r->sum_mag = max_mag, r->sum_int = all_int;
  shard_interp_bind(f, &op->results[0], r);
  return true;
}

/* stablehlo.sort: stable merge sort of slices along `dimension`, ordered by
 * the comparator region over 2N scalars. */
typedef struct sort_ctx {
  interp_proc *p;
  interp_frame *f;
  shard_op *op;
  shard_tensor **in;
  uint32_t n;
  int64_t base, stride;
  shard_tensor **args;
  bool failed;
} sort_ctx;

static bool S_sort_less(sort_ctx *c, int64_t x, int64_t y) {
  for (uint32_t i = 0; i < c->n; i++) {
    interp_copy_elem(c->args[2 * i], 0, c->in[i], c->base + x * c->stride);
    interp_copy_elem(c->args[2 * i + 1], 0, c->in[i], c->base + y * c->stride);
  }
  shard_tensor *res;
  if (!shard_interp_run_region(c->p, c->f, &c->op->regions[0], c->args, 2 * c->n, &res, 1)) {
    c->failed = true;
    return false;
  }
  return res->ints[0] != 0;
}

static void S_merge_sort(sort_ctx *c, int64_t *perm, int64_t *tmp, int64_t n) {
  if (n < 2 || c->failed) return;
  int64_t h = n / 2;
  S_merge_sort(c, perm, tmp, h);
  S_merge_sort(c, perm + h, tmp, n - h);
  int64_t i = 0, j = h, k = 0;
  while (i < h && j < n) tmp[k++] = S_sort_less(c, perm[j], perm[i]) ? perm[j++] : perm[i++];
  while (i < h) tmp[k++] = perm[i++];
  while (j < n) tmp[k++] = perm[j++];
  memcpy(perm, tmp, sizeof(int64_t) * (size_t)n);
}

static bool S_sort(interp_proc *p, interp_frame *f, shard_op *op) {
  int64_t dim;
  if (!shard_interp_attr_int(p, op, "dimension", &dim)) return false;
  uint32_t n = op->num_operands;
  shard_tensor **in = SHARD_NEW_ARRAY(p->arena, shard_tensor *, n + 1);
  shard_tensor **res = SHARD_NEW_ARRAY(p->arena, shard_tensor *, n + 1);
  shard_tensor **args = SHARD_NEW_ARRAY(p->arena, shard_tensor *, 2 * n + 1);
  for (uint32_t i = 0; i < n; i++) {
    if (!(in[i] = shard_interp_operand(p, f, op, i)) || !(res[i] = S_result(p, op, i))) return false;
    shard_type *st = shard_type_tensor(p->arena, 0, NULL, in[i]->type->elem, NULL);
    args[2 * i] = shard_tensor_new(p->arena, st);
    args[2 * i + 1] = shard_tensor_new(p->arena, st);
  }
  uint32_t rank = in[0]->type->rank;
  if (dim < 0) dim += rank;
  int64_t *strides = INTERP_RANK_ARRAY(p, op, int64_t), *outer = INTERP_RANK_ARRAY(p, op, int64_t),
          *idx = INTERP_RANK_ARRAY(p, op, int64_t);
  shard_interp_strides(rank, in[0]->type->dims, strides);
  memcpy(outer, in[0]->type->dims, sizeof(int64_t) * rank);
  int64_t len = outer[dim];
  outer[dim] = 1;
  int64_t *perm = shard_xmalloc(sizeof(int64_t) * (size_t)(len + 1)),
          *tmp = shard_xmalloc(sizeof(int64_t) * (size_t)(len + 1));
  sort_ctx c = {p, f, op, in, n, 0, strides[dim], args, false};
  bool more = in[0]->num > 0;
  while (more && !c.failed) {
    c.base = 0;
    for (uint32_t d = 0; d < rank; d++) c.base += idx[d] * strides[d];
    for (int64_t k = 0; k < len; k++) perm[k] = k;
    S_merge_sort(&c, perm, tmp, len);
    for (uint32_t i = 0; i < n; i++)
      for (int64_t k = 0; k < len; k++)
        interp_copy_elem(res[i], c.base + k * c.stride, in[i], c.base + perm[k] * c.stride);
    more = shard_interp_next_index(rank, outer, idx);
  }
  free(perm);
  free(tmp);
  if (c.failed) return false;
  for (uint32_t i = 0; i < n; i++) shard_interp_bind(f, &op->results[i], res[i]);
  return true;
}

// stablehlo.map(inputs...) applies its region to the N scalars at each index
// (`dimensions` must name every dimension, which the verifier enforces).
static bool S_map(interp_proc *p, interp_frame *f, shard_op *op) {
  uint32_t n = op->num_operands;
  shard_tensor *r = S_result(p, op, 0);
  if (!r) return false;
  if (op->num_regions != 1) return shard_interp_error(p, op, "map needs a computation region");
  shard_tensor **in = SHARD_NEW_ARRAY(p->arena, shard_tensor *, n + 1);
  shard_tensor **args = SHARD_NEW_ARRAY(p->arena, shard_tensor *, n + 1);
  for (uint32_t k = 0; k < n; k++) {
    if (!(in[k] = shard_interp_operand(p, f, op, k))) return false;
    if (in[k]->num != r->num) return shard_interp_error(p, op, "map operands differ in shape from the result");
    args[k] = shard_tensor_new(p->arena, shard_type_tensor(p->arena, 0, NULL, in[k]->type->elem, NULL));
  }
  for (int64_t i = 0; i < r->num; i++) {
    for (uint32_t k = 0; k < n; k++) interp_copy_elem(args[k], 0, in[k], i);
    shard_tensor *v;
    if (!shard_interp_run_region(p, f, &op->regions[0], args, n, &v, 1)) return false;
    if (v->kind != r->kind || v->bits != r->bits)
      return shard_interp_error(p, op, "map region returns %s", v->type->text);
    interp_copy_elem(r, i, v, 0);
  }
  shard_interp_bind(f, &op->results[0], r);
  return true;
}

static bool S_get_dimension_size(interp_proc *p, interp_frame *f, shard_op *op) {
  shard_tensor *x = shard_interp_operand(p, f, op, 0), *r = x ? S_result(p, op, 0) : NULL;
  int64_t dim;
  if (!r || !shard_interp_attr_int(p, op, "dimension", &dim)) return false;
  if (dim < 0 || (uint32_t)dim >= x->type->rank)
    return shard_interp_error(p, op, "dimension %lld is out of range", (long long)dim);
  shard_interp_set_i(r, 0, x->type->dims[dim]);
  shard_interp_bind(f, &op->results[0], r);
  return true;
}

/* ---- dispatch ----------------------------------------------------------------------------- */

bool shard_interp_exec_op(interp_proc *p, interp_frame *f, shard_op *op, bool *handled) {
  *handled = true;
  const char *n = op->name;
  if (!strcmp(n, "sdy.constant")) return S_constant(p, f, op);
  if (strncmp(n, "stablehlo.", 10) != 0) return *handled = false, true;
  n += 10;
  if (S_unary_op(n) != UN_NONE) return S_unary(p, f, op, n);
  if (shard_interp_binop(n) != BIN_NONE) return S_binary(p, f, op);
  if (!strcmp(n, "constant")) return S_constant(p, f, op);
  if (!strcmp(n, "compare")) return S_compare(p, f, op);
  if (!strcmp(n, "select")) return S_select(p, f, op);
  if (!strcmp(n, "clamp")) return S_clamp(p, f, op);
  if (!strcmp(n, "convert")) return S_convert(p, f, op);
  if (!strcmp(n, "reshape")) return S_reshape(p, f, op);
  if (!strcmp(n, "transpose")) return S_transpose(p, f, op);
  if (!strcmp(n, "broadcast_in_dim")) return S_broadcast_in_dim(p, f, op);
  if (!strcmp(n, "slice")) return S_slice(p, f, op);
  if (!strcmp(n, "dynamic_slice")) return S_dynamic_slice(p, f, op);
  if (!strcmp(n, "dynamic_update_slice")) return S_dynamic_update_slice(p, f, op);
  if (!strcmp(n, "concatenate")) return S_concatenate(p, f, op);
  if (!strcmp(n, "pad")) return S_pad(p, f, op);
  if (!strcmp(n, "reverse")) return S_reverse(p, f, op);
  if (!strcmp(n, "iota")) return S_iota(p, f, op);
  if (!strcmp(n, "reduce")) return S_reduce(p, f, op);
  if (!strcmp(n, "dot_general") || !strcmp(n, "dot")) return S_dot_general(p, f, op);
  if (!strcmp(n, "sort")) return S_sort(p, f, op);
  if (!strcmp(n, "map")) return S_map(p, f, op);
  if (!strcmp(n, "get_dimension_size")) return S_get_dimension_size(p, f, op);
  if (!strcmp(n, "partition_id")) return S_device_id(p, f, op, p->partition_id);
  if (!strcmp(n, "replica_id")) return S_device_id(p, f, op, p->replica_id);
  if (!strcmp(n, "optimization_barrier")) {
    for (uint32_t i = 0; i < op->num_operands; i++) {
      shard_tensor *x = shard_interp_operand(p, f, op, i);
      if (!x) return false;
      shard_interp_bind(f, &op->results[i], x);
    }
    return true;
  }
  *handled = false;
  return true;
}
