/* The chlo ops in the interpreter: the special functions JAX lowers to chlo
 * (erf, erfc, erf_inv, lgamma, digamma, polygamma, zeta, bessel_i1e), the
 * inverse and hyperbolic trigonometric functions, top_k, ragged_dot, next_after, mulhi,
 * the is_inf predicates, conj, square, constant/constant_like and the
 * implicitly broadcasting binary ops (broadcast_add, ..., broadcast_select).
 *
 * Every function is evaluated in double and rounded once to the result's
 * element type, so f16/bf16/f32 results are correctly rounded up to the last
 * bit of double accuracy: within an ULP of the exact value, which is
 * "libm-grade". Semantics at the edges follow XLA's implementations, the ones
 * chlo-legalize-to-stablehlo expands to: lgamma is +inf at the poles,
 * digamma is NaN at non-positive integers, erf_inv(+-1) = +-inf, polygamma
 * of a non-integer order is NaN, and top_k orders by descending total order
 * (NaN first, -0.0 after +0.0), ties by ascending index (a stable sort). */
#ifndef _DEFAULT_SOURCE
#define _DEFAULT_SOURCE /* lgamma_r: lgamma's sign global is shared by the device threads */
#endif
#include <complex.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "interp/interp_internal.h"
#include "ir/ops_chlo.h"

/* ---- special functions (double) ------------------------------------------- */

static const double S_PI = 3.14159265358979323846264338327950288;

static double S_lgamma(double x) {
  int sign;
  return lgamma_r(x, &sign);
}

/* psi(x): reflection below 1/2, recurrence up to 10, then the asymptotic
 * series in 1/x^2 (Bernoulli numbers). */
static double S_digamma(double x) {
  if (isnan(x)) return x;
  if (x == INFINITY) return x;
  if (x <= 0 && x == floor(x)) return NAN;
  double acc = 0;
  if (x < 0.5) {
    /* psi(1 - x) - psi(x) = pi cot(pi x); sinpi-style reduction keeps
     * tan(pi x) accurate for large |x| */
    double r = x - 2 * floor(x / 2); /* in [0, 2) */
    double t = tan(S_PI * r);
    acc -= S_PI / t;
    x = 1 - x;
  }
  while (x < 10) {
    acc -= 1 / x;
    x += 1;
  }
  double z = 1 / (x * x);
  /* B2k / (2k): 1/12, -1/120, 1/252, -1/240, 1/132, -691/32760, 1/12 */
  double series =
      z *
      (1.0 / 12 - z * (1.0 / 120 - z * (1.0 / 252 - z * (1.0 / 240 - z * (1.0 / 132 - z * (691.0 / 32760 - z / 12))))));
  return acc + log(x) - 0.5 / x - series;
}

/* Hurwitz zeta(x, q) = sum_{n>=0} (q + n)^-x, by Euler-Maclaurin summation
 * (Cephes' method): a direct sum of the first terms and a tail of Bernoulli
 * corrections. */
static double S_zeta(double x, double q) {
  static const double A[] = {12.0,
                             -720.0,
                             30240.0,
                             -1209600.0,
                             47900160.0,
                             -1.8924375803183791606e9,
                             7.47242496e10,
                             -2.950130727918164224e12,
                             1.1646782814350067249e14,
                             -4.5979787224074726105e15,
                             1.8152105401943546773e17,
                             -7.1661652561756670113e18};
  if (isnan(x) || isnan(q)) return NAN;
  if (x == 1) return INFINITY;
  if (x < 1) return NAN;
  if (q <= 0) {
    if (q == floor(q)) return INFINITY;
    if (x != floor(x)) return NAN; /* q^-x would be complex */
  }
  double s = pow(q, -x), a = q, b = 0;
  int i = 0;
  while (i < 9 || a <= 9) {
    i++;
    a += 1;
    b = pow(a, -x);
    s += b;
    if (fabs(b / s) < 1.1102230246251565e-16) return s;
  }
  double w = a;
  s += b * w / (x - 1);
  s -= 0.5 * b;
  double k = 0;
  a = 1;
  for (i = 0; i < 12; i++) {
    a *= x + k;
    b /= w;
    double t = a * b / A[i];
    s += t;
    if (fabs(t / s) < 1.1102230246251565e-16) break;
    k += 1;
    a *= x + k;
    b /= w;
    k += 1;
  }
  return s;
}

/* polygamma(n, x) = (-1)^(n+1) n! zeta(n + 1, x) for integer n >= 1. */
static double S_polygamma(double n, double x) {
  if (isnan(n) || isnan(x)) return NAN;
  if (n != floor(n) || n < 0) return NAN;
  if (n == 0) return S_digamma(x);
  double fact = exp(S_lgamma(n + 1));
  double sign = fmod(n, 2) == 0 ? -1.0 : 1.0; /* (-1)^(n+1) */
  return sign * fact * S_zeta(n + 1, x);
}

/* erf^-1(y): Giles' single-precision approximation refined by Newton steps
 * on erf (or on erfc near +-1, where 1 - |y| carries the information). */
static double S_erf_inv(double y) {
  if (isnan(y) || y < -1 || y > 1) return NAN;
  if (y == 1) return INFINITY;
  if (y == -1) return -INFINITY;
  if (y == 0) return y;
  double ay = fabs(y), w = -log((1 - ay) * (1 + ay)), x;
  if (w < 5) {
    w -= 2.5;
    double p = 2.81022636e-08;
    p = 3.43273939e-07 + p * w;
    p = -3.5233877e-06 + p * w;
    p = -4.39150654e-06 + p * w;
    p = 0.00021858087 + p * w;
    p = -0.00125372503 + p * w;
    p = -0.00417768164 + p * w;
    p = 0.246640727 + p * w;
    p = 1.50140941 + p * w;
    x = p * ay;
  } else {
    w = sqrt(w) - 3;
    double p = -0.000200214257;
    p = 0.000100950558 + p * w;
    p = 0.00134934322 + p * w;
    p = -0.00367342844 + p * w;
    p = 0.00573950773 + p * w;
    p = -0.0076224613 + p * w;
    p = 0.00943887047 + p * w;
    p = 1.00167406 + p * w;
    p = 2.83297682 + p * w;
    x = p * ay;
  }
  const double two_over_sqrt_pi = 1.12837916709551257390;
  for (int it = 0; it < 4; it++) {
    double d = two_over_sqrt_pi * exp(-x * x);
    if (d == 0) break;
    double r = ay > 0.5 ? -(erfc(x) - (1 - ay)) : erf(x) - ay;
    double step = r / d;
    /* Halley's correction: erf'' = -2x erf' */
    x -= step / (1 + x * step);
  }
  return y < 0 ? -x : x;
}

/* exp(-|x|) I1(x): the power series below 30 (all terms positive), the
 * asymptotic expansion above. */
static double S_bessel_i1e(double x) {
  if (isnan(x)) return x;
  double ax = fabs(x), r;
  if (ax == 0) return x;
  if (isinf(x)) return 0;
  if (ax < 30) {
    double h = ax / 2, term = h, sum = term, hh = h * h;
    for (int k = 1; k < 500; k++) {
      term *= hh / ((double)k * (double)(k + 1));
      sum += term;
      if (term < sum * 1e-17) break;
    }
    r = sum * exp(-ax);
  } else {
    /* I1(x) ~ e^x / sqrt(2 pi x) * sum_k (-1)^k prod_{j<=k} (4 - (2j-1)^2) / (k! (8x)^k) */
    double term = 1, sum = 1;
    for (int k = 1; k < 60; k++) {
      double m = (double)(2 * k - 1);
      term *= -(4 - m * m) / ((double)k * 8 * ax);
      double prev = sum;
      sum += term;
      if (fabs(term) < 1e-17 * fabs(sum) || sum == prev) break;
    }
    r = sum / sqrt(2 * S_PI * ax);
  }
  return x < 0 ? -r : r;
}

/* ---- element formats (next_after) ------------------------------------------ */

typedef struct S_format {
  int prec, emin;
  double maxval;
} S_format;

static bool S_format_of(const char *elem, S_format *f) {
  if (!strcmp(elem, "f64")) *f = (S_format){53, -1022, 1.7976931348623157e308};
  else if (!strcmp(elem, "f32")) *f = (S_format){24, -126, 3.4028234663852886e38};
  else if (!strcmp(elem, "f16")) *f = (S_format){11, -14, 65504.0};
  else if (!strcmp(elem, "bf16")) *f = (S_format){8, -126, 3.3895313892515355e38};
  else return false;
  return true;
}

/* std::nextafter in format f: the neighbour of x toward y. */
static double S_next_after(double x, double y, const S_format *f) {
  if (isnan(x) || isnan(y)) return NAN;
  if (x == y) return y;
  double tiny = ldexp(1.0, f->emin - (f->prec - 1));
  if (x == 0) return y > 0 ? tiny : -tiny;
  if (isinf(x)) return x > 0 ? f->maxval : -f->maxval;
  bool away = (y > x) == (x > 0); /* magnitude grows */
  double ax = fabs(x);
  int e;
  double m = frexp(ax, &e);
  int lead = e - 1 < f->emin ? f->emin : e - 1;
  double ulp = ldexp(1.0, lead - (f->prec - 1));
  double r;
  if (away) {
    r = ax + ulp;
    if (r > f->maxval) r = INFINITY;
  } else {
    r = ax - (m == 0.5 && e - 1 > f->emin ? ulp / 2 : ulp);
  }
  return x < 0 ? -r : r;
}

/* ---- values ----------------------------------------------------------------- */

static bool S_unsupported_type(interp_proc *p, const shard_op *op, const shard_tensor *t) {
  return shard_interp_error(p, op, "the interpreter does not support '%s' on %s", op->name, t->type->elem);
}

static void S_set_complex(shard_tensor *t, int64_t i, double complex z) {
  t->floats[2 * i] = shard_elem_round_float(creal(z), t->bits, false);
  t->floats[2 * i + 1] = shard_elem_round_float(cimag(z), t->bits, false);
}

/* ---- unary ops -------------------------------------------------------------- */

static bool S_unary_real(const char *n, double x, double *r) {
  if (!strcmp(n, "acos")) *r = acos(x);
  else if (!strcmp(n, "acosh")) *r = acosh(x);
  else if (!strcmp(n, "asin")) *r = asin(x);
  else if (!strcmp(n, "asinh")) *r = asinh(x);
  else if (!strcmp(n, "atan")) *r = atan(x);
  else if (!strcmp(n, "atanh")) *r = atanh(x);
  else if (!strcmp(n, "cosh")) *r = cosh(x);
  else if (!strcmp(n, "sinh")) *r = sinh(x);
  else if (!strcmp(n, "tan")) *r = tan(x);
  else if (!strcmp(n, "erf")) *r = erf(x);
  else if (!strcmp(n, "erfc")) *r = erfc(x);
  else if (!strcmp(n, "erf_inv")) *r = S_erf_inv(x);
  else if (!strcmp(n, "lgamma")) *r = S_lgamma(x);
  else if (!strcmp(n, "digamma")) *r = S_digamma(x);
  else if (!strcmp(n, "bessel_i1e")) *r = S_bessel_i1e(x);
  else if (!strcmp(n, "conj")) *r = x;
  else if (!strcmp(n, "square")) *r = x * x;
  else return false;
  return true;
}

static bool S_unary_complex(const char *n, double complex z, double complex *r) {
  if (!strcmp(n, "acos")) *r = cacos(z);
  else if (!strcmp(n, "acosh")) *r = cacosh(z);
  else if (!strcmp(n, "asin")) *r = casin(z);
  else if (!strcmp(n, "asinh")) *r = casinh(z);
  else if (!strcmp(n, "atan")) *r = catan(z);
  else if (!strcmp(n, "atanh")) *r = catanh(z);
  else if (!strcmp(n, "cosh")) *r = ccosh(z);
  else if (!strcmp(n, "sinh")) *r = csinh(z);
  else if (!strcmp(n, "tan")) *r = ctan(z);
  else if (!strcmp(n, "conj")) *r = conj(z);
  else if (!strcmp(n, "square")) {
    double a = creal(z), b = cimag(z);
    *r = CMPLX((a - b) * (a + b), 2 * a * b);
  } else return false;
  return true;
}

static bool S_unary(interp_proc *p, interp_frame *f, shard_op *op, const char *n) {
  shard_tensor *x = shard_interp_operand(p, f, op, 0), *r = x ? shard_interp_result(p, op, 0) : NULL;
  if (!r) return false;
  if (x->num != r->num)
    return shard_interp_error(p, op, "the operand and the result of '%s' differ in shape", op->name);
  if (!strncmp(n, "is_", 3)) {
    if (x->kind != SHARD_ELEM_FLOAT || r->kind != SHARD_ELEM_BOOL) return S_unsupported_type(p, op, x);
    for (int64_t i = 0; i < x->num; i++) {
      double v = x->floats[i];
      r->ints[i] = !strcmp(n, "is_inf") ? isinf(v) != 0 : !strcmp(n, "is_pos_inf") ? v == INFINITY : v == -INFINITY;
    }
  } else if (x->kind == SHARD_ELEM_COMPLEX && r->kind == SHARD_ELEM_COMPLEX) {
    for (int64_t i = 0; i < x->num; i++) {
      double complex v;
      if (!S_unary_complex(n, CMPLX(x->floats[2 * i], x->floats[2 * i + 1]), &v)) return S_unsupported_type(p, op, x);
      S_set_complex(r, i, v);
    }
  } else if (x->kind == SHARD_ELEM_FLOAT && r->kind == SHARD_ELEM_FLOAT) {
    for (int64_t i = 0; i < x->num; i++) {
      double v;
      if (!S_unary_real(n, x->floats[i], &v)) return S_unsupported_type(p, op, x);
      shard_interp_set_f(r, i, v);
    }
  } else if (!strcmp(n, "square") && x->kind == r->kind && x->kind != SHARD_ELEM_COMPLEX) {
    for (int64_t i = 0; i < x->num; i++)
      shard_interp_set_i(r, i, (int64_t)((uint64_t)x->ints[i] * (uint64_t)x->ints[i]));
  } else {
    return S_unsupported_type(p, op, x);
  }
  shard_interp_bind(f, &op->results[0], r);
  return true;
}

/* ---- binary ops --------------------------------------------------------------- */

/* Comparison of element i of a with element j of b in the given order:
 * -1, 0, 1, or 2 when unordered. `total` orders floats by their bits. */
static int S_cmp(const shard_tensor *a, int64_t i, const shard_tensor *b, int64_t j, bool total) {
  if (a->kind == SHARD_ELEM_FLOAT) {
    double x = a->floats[i], y = b->floats[j];
    if (total) {
      uint64_t ux, uy;
      memcpy(&ux, &x, 8);
      memcpy(&uy, &y, 8);
      int64_t sx = (int64_t)ux < 0 ? (int64_t)(~ux | (UINT64_C(1) << 63)) : (int64_t)ux;
      int64_t sy = (int64_t)uy < 0 ? (int64_t)(~uy | (UINT64_C(1) << 63)) : (int64_t)uy;
      return sx < sy ? -1 : sx > sy;
    }
    return isnan(x) || isnan(y) ? 2 : x < y ? -1 : x > y;
  }
  if (a->kind == SHARD_ELEM_UINT) {
    uint64_t x = (uint64_t)a->ints[i], y = (uint64_t)b->ints[j];
    return x < y ? -1 : x > y;
  }
  return a->ints[i] < b->ints[j] ? -1 : a->ints[i] > b->ints[j];
}

/* The high half of the double-width product (chlo.mulhi). */
static int64_t S_mulhi(int64_t a, int64_t b, shard_elem_kind kind, unsigned w) {
  if (kind == SHARD_ELEM_UINT) {
    uint64_t mask = w >= 64 ? ~UINT64_C(0) : (UINT64_C(1) << w) - 1;
    unsigned __int128 pr = (unsigned __int128)((uint64_t)a & mask) * ((uint64_t)b & mask);
    return (int64_t)(uint64_t)(pr >> w);
  }
  __int128 pr = (__int128)a * b;
  return (int64_t)(pr >> w);
}

/* One element of a broadcasting binary op: x = a[i], y = b[j], into r[k]. */
static bool S_binary_elem(const char *n, const shard_op *op, const shard_tensor *a, int64_t i, const shard_tensor *b,
                          int64_t j, shard_tensor *r, int64_t k, const S_format *fmt) {
  if (!strcmp(n, "complex")) {
    if (r->kind != SHARD_ELEM_COMPLEX) return false;
    S_set_complex(r, k, CMPLX(a->floats[i], b->floats[j]));
    return true;
  }
  if (!strcmp(n, "compare")) {
    /* StableHLO's enums or chlo's, decoded alike by the parser */
    int d = shard_op_enum(op, "comparison_direction", SHARD_SHLO_COMPARISON_DIRECTION);
    bool total = shard_op_enum(op, "compare_type", SHARD_SHLO_COMPARISON_TYPE) == SHARD_CMP_TOTALORDER;
    if (d < 0 || a->kind == SHARD_ELEM_COMPLEX) return false;
    int c = S_cmp(a, i, b, j, total);
    bool v = d == 0   ? c == 0
             : d == 1 ? c != 0
             : d == 2 ? (c == 0 || c == 1)
             : d == 3 ? c == 1
             : d == 4 ? (c == 0 || c == -1)
                      : c == -1;
    r->ints[k] = v;
    return true;
  }
  if (r->kind == SHARD_ELEM_COMPLEX || a->kind != r->kind) return false;
  if (r->kind == SHARD_ELEM_FLOAT) {
    double x = a->floats[i], y = b->floats[j], v;
    if (!strcmp(n, "next_after")) {
      if (!fmt) return false;
      r->floats[k] = S_next_after(x, y, fmt);
      return true;
    }
    if (!strcmp(n, "polygamma")) v = S_polygamma(x, y);
    else if (!strcmp(n, "zeta")) v = S_zeta(x, y);
    else {
      double fr;
      int64_t ir;
      if (!shard_interp_scalar_binary(n, r, x, y, 0, 0, &fr, &ir)) return false;
      r->floats[k] = fr;
      return true;
    }
    shard_interp_set_f(r, k, v);
    return true;
  }
  if (!strcmp(n, "mulhi")) {
    r->ints[k] = shard_elem_wrap_int(S_mulhi(a->ints[i], b->ints[j], r->kind, r->bits), r->kind, r->bits);
    return true;
  }
  double fr;
  int64_t ir;
  if (!shard_interp_scalar_binary(n, r, 0, 0, a->ints[i], b->ints[j], &fr, &ir)) return false;
  r->ints[k] = ir;
  return true;
}

/* Element index of operand `t` feeding result index `idx`: numpy-style
 * (trailing dims aligned) or through broadcast_dimensions; size-1 dims
 * broadcast. False when a dim does not fit. */
static bool S_source_map(const shard_tensor *t, const shard_tensor *r, const int64_t *bdims, uint32_t nb,
                         int64_t *map /* per operand dim: result dim */) {
  uint32_t rank = t->type->rank, rrank = r->type->rank;
  if (bdims) {
    if (nb != rank) return false;
    for (uint32_t d = 0; d < rank; d++) {
      if (bdims[d] < 0 || bdims[d] >= (int64_t)rrank) return false;
      map[d] = bdims[d];
    }
  } else {
    if (rank > rrank) return false;
    for (uint32_t d = 0; d < rank; d++) map[d] = (int64_t)(rrank - rank + d);
  }
  for (uint32_t d = 0; d < rank; d++) {
    int64_t od = t->type->dims[d], rd = r->type->dims[map[d]];
    if (od != rd && od != 1) return false;
  }
  return true;
}

static int64_t S_source_index(const shard_tensor *t, const int64_t *map, const int64_t *ridx) {
  int64_t k = 0;
  for (uint32_t d = 0; d < t->type->rank; d++) {
    int64_t od = t->type->dims[d];
    k = k * od + (od == 1 ? 0 : ridx[map[d]]);
  }
  return k;
}

static bool S_binary(interp_proc *p, interp_frame *f, shard_op *op, const char *n, bool broadcast) {
  uint32_t nin = !strcmp(n, "select") ? 3 : 2;
  shard_tensor *in[3] = {NULL, NULL, NULL};
  for (uint32_t i = 0; i < nin; i++)
    if (!(in[i] = shard_interp_operand(p, f, op, i))) return false;
  shard_tensor *r = shard_interp_result(p, op, 0);
  if (!r) return false;
  uint32_t nb = 0, maxb = shard_interp_op_rank(op) + 1;
  int64_t *bdims = INTERP_ARRAY(p, int64_t, maxb);
  bool has_b = broadcast && shard_op_attr(op, "broadcast_dimensions") != NULL;
  if (has_b && !shard_interp_attr_i64s(p, op, "broadcast_dimensions", bdims, &nb, maxb)) return false;
  uint32_t rrank = r->type->rank;
  int64_t *maps[3], *ridx = INTERP_ARRAY(p, int64_t, rrank);
  for (uint32_t i = 0; i < nin; i++) {
    maps[i] = INTERP_ARRAY(p, int64_t, in[i]->type->rank);
    /* broadcast_dimensions maps the lower-rank operand; the other is the
     * result's own shape (or broadcasts numpy-style) */
    bool use_b = has_b && in[i]->type->rank != rrank;
    if (!S_source_map(in[i], r, use_b ? bdims : NULL, nb, maps[i]))
      return shard_interp_error(p, op, "operand #%u of type %s does not broadcast to the result type %s", i,
                                in[i]->type->text, r->type->text);
  }
  S_format fmt;
  bool has_fmt = S_format_of(r->type->elem, &fmt);
  for (int64_t k = 0; k < r->num; k++) {
    int64_t src[3];
    for (uint32_t i = 0; i < nin; i++) src[i] = S_source_index(in[i], maps[i], ridx);
    if (nin == 3) {
      if (in[0]->kind != SHARD_ELEM_BOOL) return S_unsupported_type(p, op, in[0]);
      interp_copy_elem(r, k, in[0]->ints[src[0]] ? in[1] : in[2], in[0]->ints[src[0]] ? src[1] : src[2]);
    } else if (!S_binary_elem(n, op, in[0], src[0], in[1], src[1], r, k, has_fmt ? &fmt : NULL)) {
      return S_unsupported_type(p, op, in[0]);
    }
    shard_interp_next_index(rrank, r->type->dims, ridx);
  }
  shard_interp_bind(f, &op->results[0], r);
  return true;
}

/* ---- top_k ---------------------------------------------------------------------- */

typedef struct S_topk_ctx {
  const shard_tensor *x;
  int64_t base;
} S_topk_ctx;

/* Insertion into a small sorted prefix would do, but rows can be long:
 * a merge sort of indices keeps it O(n log n) and stable. */
static bool S_topk_before(const S_topk_ctx *c, int64_t i, int64_t j) {
  int r = S_cmp(c->x, c->base + i, c->x, c->base + j, true);
  return r > 0 || (r == 0 && i < j);
}

static void S_topk_sort(const S_topk_ctx *c, int64_t *v, int64_t *tmp, int64_t n) {
  if (n < 2) return;
  int64_t h = n / 2;
  S_topk_sort(c, v, tmp, h);
  S_topk_sort(c, v + h, tmp, n - h);
  int64_t a = 0, b = h, o = 0;
  while (a < h && b < n) tmp[o++] = S_topk_before(c, v[b], v[a]) ? v[b++] : v[a++];
  while (a < h) tmp[o++] = v[a++];
  while (b < n) tmp[o++] = v[b++];
  memcpy(v, tmp, (size_t)n * sizeof *v);
}

static bool S_top_k(interp_proc *p, interp_frame *f, shard_op *op) {
  shard_tensor *x = shard_interp_operand(p, f, op, 0);
  shard_tensor *vals = x ? shard_interp_result(p, op, 0) : NULL, *idxs = vals ? shard_interp_result(p, op, 1) : NULL;
  if (!idxs) return false;
  int64_t k;
  if (!shard_interp_attr_int(p, op, "k", &k)) return false;
  uint32_t rank = x->type->rank;
  if (rank == 0) return shard_interp_error(p, op, "operand's rank must be at least 1");
  int64_t n = x->type->dims[rank - 1];
  if (k < 0 || k > n) return shard_interp_error(p, op, "operand's last dimension must be at least %lld", (long long)k);
  if (x->kind == SHARD_ELEM_COMPLEX) return S_unsupported_type(p, op, x);
  if (idxs->kind == SHARD_ELEM_FLOAT || idxs->kind == SHARD_ELEM_COMPLEX) return S_unsupported_type(p, op, idxs);
  int64_t rows = n ? x->num / n : 0;
  if (vals->num != rows * k || idxs->num != rows * k || vals->kind != x->kind)
    return shard_interp_error(p, op, "the results of 'chlo.top_k' must have the operand's shape with last dim %lld",
                              (long long)k);
  int64_t *order = shard_xmalloc(2 * (size_t)n * sizeof(int64_t) + 1), *tmp = order + n;
  for (int64_t row = 0; row < rows; row++) {
    S_topk_ctx c = {x, row * n};
    for (int64_t i = 0; i < n; i++) order[i] = i;
    S_topk_sort(&c, order, tmp, n);
    for (int64_t j = 0; j < k; j++) {
      interp_copy_elem(vals, row * k + j, x, row * n + order[j]);
      shard_interp_set_i(idxs, row * k + j, order[j]);
    }
  }
  free(order);
  shard_interp_bind(f, &op->results[0], vals);
  shard_interp_bind(f, &op->results[1], idxs);
  return true;
}

/* ---- constants -------------------------------------------------------------------- */

static bool S_constant(interp_proc *p, interp_frame *f, shard_op *op, bool like) {
  const shard_attr *v = shard_op_attr(op, "value");
  shard_tensor *r = shard_interp_result(p, op, 0);
  if (!r) return false;
  if (like) {
    shard_tensor *x = shard_interp_operand(p, f, op, 0);
    if (!x) return false;
    if (x->num != r->num)
      return shard_interp_error(p, op, "the result of 'chlo.constant_like' differs from its operand in shape");
  }
  if (!v) return shard_interp_error(p, op, "'%s' needs a value", op->name);
  shard_tensor *c = NULL;
  const char *err = NULL;
  if (v->kind == SHARD_ATTR_DENSE && v->u.dense.type) {
    if (!shard_tensor_from_dense(p->arena, v->u.dense.payload, v->u.dense.type, &c, &err))
      return shard_interp_error(p, op, "bad value: %s", err ? err : "unreadable");
  } else if (v->kind == SHARD_ATTR_FLOAT || v->kind == SHARD_ATTR_INT) {
    shard_type *st = shard_type_tensor(p->arena, 0, NULL, r->type->elem, NULL);
    char *text = v->kind == SHARD_ATTR_FLOAT ? shard_arena_printf(p->arena, "%s", v->u.flt.text)
                                             : shard_arena_printf(p->arena, "%lld", (long long)v->u.integer.value);
    if (!shard_tensor_from_dense(p->arena, text, st, &c, &err))
      return shard_interp_error(p, op, "bad value: %s", err ? err : "unreadable");
  } else {
    return shard_interp_error(p, op, "the value of '%s' must be a number or an elements attribute", op->name);
  }
  if (c->kind != r->kind || c->bits != r->bits)
    return shard_interp_error(p, op, "the value of type %s does not match the result type %s", c->type->text,
                              r->type->text);
  if (c->num == r->num) {
    for (int64_t i = 0; i < r->num; i++) interp_copy_elem(r, i, c, i);
  } else if (c->num == 1) {
    for (int64_t i = 0; i < r->num; i++) interp_copy_elem(r, i, c, 0);
  } else {
    return shard_interp_error(p, op, "the value of type %s does not fill the result type %s", c->type->text,
                              r->type->text);
  }
  shard_interp_bind(f, &op->results[0], r);
  return true;
}

/* ---- ragged_dot ------------------------------------------------------------------------ */

static bool S_in(const int64_t *l, uint32_t n, int64_t x) {
  for (uint32_t i = 0; i < n; i++)
    if (l[i] == x) return true;
  return false;
}

/* chlo.ragged_dot (ChloOps.td): a dot_general whose lhs ragged dim is cut
 * into consecutive groups of group_sizes rows.
 *   - ragged non-contracting dim m: row r of group j meets rhs[j] (the rhs
 *     group dim); rows past the last group give zeros;
 *   - ragged contracting dim k: result [g, ...]: group j contracts only over
 *     its own range of k;
 *   - ragged batch dim: batches past the last group give zeros.
 * group_sizes is [g], or carries leading dims (the batch dims, then the lhs
 * free dims before the ragged one) indexed like the result's. Products and
 * partial sums round to the element type, as the dot_general the op
 * decomposes into does. */
static bool S_ragged_dot(interp_proc *p, interp_frame *f, shard_op *op) {
  shard_tensor *lhs = shard_interp_operand(p, f, op, 0), *rhs = lhs ? shard_interp_operand(p, f, op, 1) : NULL;
  shard_tensor *gs = rhs ? shard_interp_operand(p, f, op, 2) : NULL, *r = gs ? shard_interp_result(p, op, 0) : NULL;
  if (!r) return false;
  shard_chlo_ragged_dims d;
  if (!shard_chlo_ragged_dot_dims(op, &d) || d.num_lhs_ragged != 1 || d.num_lhs_batch != d.num_rhs_batch ||
      d.num_lhs_contract != d.num_rhs_contract || d.num_rhs_group > 1)
    return shard_interp_error(
        p, op, "'chlo.ragged_dot' needs #chlo.ragged_dot<...> dimension numbers with one lhs ragged dim");
  if (lhs->kind != rhs->kind || lhs->kind != r->kind || lhs->kind == SHARD_ELEM_COMPLEX ||
      gs->kind == SHARD_ELEM_FLOAT || gs->kind == SHARD_ELEM_COMPLEX)
    return S_unsupported_type(p, op, lhs);
  int64_t ragged = d.lhs_ragged[0];
  int mode = S_in(d.lhs_contract, d.num_lhs_contract, ragged) ? 1 : S_in(d.lhs_batch, d.num_lhs_batch, ragged) ? 2 : 0;
  if ((mode == 0) != (d.num_rhs_group == 1))
    return shard_interp_error(
        p, op, "'chlo.ragged_dot': rhs_group_dimensions must name one dim exactly in the ragged non-contracting mode");
  uint32_t lr = lhs->type->rank, rr = rhs->type->rank, gr = gs->type->rank;
  if (gr < 1) return shard_interp_error(p, op, "'chlo.ragged_dot': group_sizes must have rank >= 1");
  int64_t ng = gs->type->dims[gr - 1];
  /* the result's dims: [g if mode 1] batch..., lhs free..., rhs free... */
  int64_t *lfree = INTERP_ARRAY(p, int64_t, lr), *rfree = INTERP_ARRAY(p, int64_t, rr);
  uint32_t nlf = 0, nrf = 0;
  for (uint32_t i = 0; i < lr; i++)
    if (!S_in(d.lhs_contract, d.num_lhs_contract, i) && !S_in(d.lhs_batch, d.num_lhs_batch, i)) lfree[nlf++] = i;
  for (uint32_t i = 0; i < rr; i++)
    if (!S_in(d.rhs_contract, d.num_rhs_contract, i) && !S_in(d.rhs_batch, d.num_rhs_batch, i) &&
        !S_in(d.rhs_group, d.num_rhs_group, i))
      rfree[nrf++] = i;
  uint32_t lead = mode == 1 ? 1 : 0;
  /* every dim named in range, paired dims of one size, the result's dims
   * those of the dims it keeps: the loops below index by them */
  bool fits = r->type->rank == lead + d.num_lhs_batch + nlf + nrf && ragged >= 0 && ragged < (int64_t)lr;
  for (uint32_t b = 0; fits && b < d.num_lhs_batch; b++)
    fits = d.lhs_batch[b] >= 0 && d.lhs_batch[b] < (int64_t)lr && d.rhs_batch[b] >= 0 && d.rhs_batch[b] < (int64_t)rr &&
           lhs->type->dims[d.lhs_batch[b]] == rhs->type->dims[d.rhs_batch[b]] &&
           lhs->type->dims[d.lhs_batch[b]] == r->type->dims[lead + b];
  for (uint32_t c = 0; fits && c < d.num_lhs_contract; c++)
    fits = d.lhs_contract[c] >= 0 && d.lhs_contract[c] < (int64_t)lr && d.rhs_contract[c] >= 0 &&
           d.rhs_contract[c] < (int64_t)rr && lhs->type->dims[d.lhs_contract[c]] == rhs->type->dims[d.rhs_contract[c]];
  for (uint32_t i = 0; fits && i < nlf; i++)
    fits = lhs->type->dims[lfree[i]] == r->type->dims[lead + d.num_lhs_batch + i];
  for (uint32_t i = 0; fits && i < nrf; i++)
    fits = rhs->type->dims[rfree[i]] == r->type->dims[lead + d.num_lhs_batch + nlf + i];
  if (fits && mode == 0)
    fits = d.rhs_group[0] >= 0 && d.rhs_group[0] < (int64_t)rr && rhs->type->dims[d.rhs_group[0]] == ng;
  if (fits && mode == 1) fits = r->type->dims[0] == ng;
  fits = fits && gr - 1 <= r->type->rank - lead;
  for (uint32_t g = 0; fits && g + 1 < gr; g++) fits = gs->type->dims[g] == r->type->dims[lead + g];
  if (!fits)
    return shard_interp_error(p, op,
                              "the operand and result types of 'chlo.ragged_dot' do not fit its dimension numbers");
  int64_t *ridx = INTERP_ARRAY(p, int64_t, r->type->rank), *li = INTERP_ARRAY(p, int64_t, lr),
          *ri = INTERP_ARRAY(p, int64_t, rr), *cdims = INTERP_ARRAY(p, int64_t, d.num_lhs_contract),
          *cidx = INTERP_ARRAY(p, int64_t, d.num_lhs_contract), *lstr = INTERP_ARRAY(p, int64_t, lr),
          *rstr = INTERP_ARRAY(p, int64_t, rr), *gstr = INTERP_ARRAY(p, int64_t, gr);
  shard_interp_strides(lr, lhs->type->dims, lstr);
  shard_interp_strides(rr, rhs->type->dims, rstr);
  shard_interp_strides(gr, gs->type->dims, gstr);
  for (uint32_t c = 0; c < d.num_lhs_contract; c++) cdims[c] = lhs->type->dims[d.lhs_contract[c]];
  bool fl = r->kind == SHARD_ELEM_FLOAT, bf16 = !strcmp(r->type->elem, "bf16");
  for (int64_t k = 0; k < r->num; k++) {
    uint32_t at = 0;
    int64_t group = mode == 1 ? ridx[at++] : -1;
    for (uint32_t b = 0; b < d.num_lhs_batch; b++, at++) {
      li[d.lhs_batch[b]] = ridx[at];
      ri[d.rhs_batch[b]] = ridx[at];
    }
    for (uint32_t i = 0; i < nlf; i++) li[lfree[i]] = ridx[at++];
    for (uint32_t i = 0; i < nrf; i++) ri[rfree[i]] = ridx[at++];
    /* the group_sizes row: its leading dims follow the result's after the group dim */
    int64_t goff = 0;
    for (uint32_t g = 0; g + 1 < gr; g++) goff += ridx[lead + g] * gstr[g];
    /* where the ragged dim's index falls */
    int64_t lo = 0, hi = 0, idx_in_ragged = mode == 0 || mode == 2 ? li[ragged] : -1, found = -1;
    for (int64_t j = 0; j < ng; j++) {
      int64_t size = gs->ints[goff + j * gstr[gr - 1]];
      hi = lo + (size > 0 ? size : 0);
      if (mode == 1 ? j == group : (idx_in_ragged >= lo && idx_in_ragged < hi)) {
        found = j;
        break;
      }
      lo = hi;
    }
    double acc = 0;
    int64_t iacc = 0;
    if (found >= 0) {
      if (mode == 0) ri[d.rhs_group[0]] = found;
      for (uint32_t c = 0; c < d.num_lhs_contract; c++) cidx[c] = 0;
      bool more = true;
      for (uint32_t c = 0; c < d.num_lhs_contract; c++)
        if (cdims[c] == 0) more = false;
      while (more) {
        for (uint32_t c = 0; c < d.num_lhs_contract; c++) {
          li[d.lhs_contract[c]] = cidx[c];
          ri[d.rhs_contract[c]] = cidx[c];
        }
        bool take = mode != 1 || (li[ragged] >= lo && li[ragged] < hi);
        if (take) {
          int64_t la = 0, ra = 0;
          for (uint32_t i = 0; i < lr; i++) la += li[i] * lstr[i];
          for (uint32_t i = 0; i < rr; i++) ra += ri[i] * rstr[i];
          if (fl) {
            double prod = shard_elem_round_float(lhs->floats[la] * rhs->floats[ra], r->bits, bf16);
            acc = shard_elem_round_float(acc + prod, r->bits, bf16);
          } else {
            iacc = shard_elem_wrap_int((int64_t)((uint64_t)iacc + (uint64_t)lhs->ints[la] * (uint64_t)rhs->ints[ra]),
                                       r->kind, r->bits);
          }
        }
        more = shard_interp_next_index(d.num_lhs_contract, cdims, cidx);
      }
    }
    if (fl) r->floats[k] = acc;
    else shard_interp_set_i(r, k, iacc);
    shard_interp_next_index(r->type->rank, r->type->dims, ridx);
  }
  shard_interp_bind(f, &op->results[0], r);
  return true;
}

/* ---- dispatch ------------------------------------------------------------------------ */

/* ---- scan --------------------------------------------------------------------------- */

/* Flat position of element k of a slice (the tensor with dimension `dim`
 * removed) in the tensor of `len` slices along `dim`, at slice index i. */
static int64_t S_scan_pos(int64_t k, int64_t inner, int64_t len, int64_t i) {
  return (k / inner) * len * inner + i * inner + k % inner;
}

/* chlo.scan(inputs) inits(inits) dimension=d {body}: for each index i along
 * d (last to first when is_reverse), the body takes the inputs' slices at i
 * (d removed) and the carries (the inits at first) and returns the outputs'
 * slices at i and the next carries. The results are the outputs, then the
 * final carries: ChloOps.td's semantics, which its decomposition into a
 * stablehlo.while computes. */
static bool S_scan(interp_proc *p, interp_frame *f, shard_op *op) {
  uint32_t nin = shard_chlo_scan_num_inputs(op), ninit = op->num_operands - nin;
  int64_t dim;
  if (!shard_interp_attr_int(p, op, "dimension", &dim)) return false;
  if (op->num_regions != 1 || !op->regions[0].first || op->num_results < ninit)
    return shard_interp_error(p, op, "'chlo.scan' needs a body and a result for each init");
  uint32_t nout = op->num_results - ninit;
  shard_block *b = op->regions[0].first;
  if (b->num_args != nin + ninit)
    return shard_interp_error(p, op,
                              "the body of 'chlo.scan' takes %u arguments where %u inputs and %u inits are given",
                              b->num_args, nin, ninit);
  const shard_attr *rev = shard_op_attr(op, "is_reverse");
  bool reverse = rev && rev->kind == SHARD_ATTR_BOOL && rev->u.boolean;
  /* the scanned length: every input's and output's size along dim */
  int64_t len = -1;
  for (uint32_t i = 0; i < nin + nout; i++) {
    const shard_type *t = i < nin ? op->operands[i].value->type : op->results[i - nin].type;
    if (t->kind != SHARD_TYPE_TENSOR || dim < 0 || dim >= (int64_t)t->rank)
      return shard_interp_error(p, op, "dimension %lld is out of range for %s", (long long)dim, t->text);
    if (len >= 0 && t->dims[dim] != len)
      return shard_interp_error(p, op, "the inputs and outputs of 'chlo.scan' differ in size along dimension %lld",
                                (long long)dim);
    len = t->dims[dim];
  }
  if (len < 0) len = 0;
  shard_tensor **args = SHARD_NEW_ARRAY(p->arena, shard_tensor *, nin + ninit + 1);
  shard_tensor **outs = SHARD_NEW_ARRAY(p->arena, shard_tensor *, nout + 1);
  shard_tensor **res = SHARD_NEW_ARRAY(p->arena, shard_tensor *, nout + ninit + 1);
  shard_tensor **in = SHARD_NEW_ARRAY(p->arena, shard_tensor *, nin + 1);
  int64_t *in_inner = SHARD_NEW_ARRAY(p->arena, int64_t, nin + nout + 1);
  for (uint32_t i = 0; i < nin + ninit; i++) {
    shard_tensor *t = shard_interp_operand(p, f, op, i);
    if (!t) return false;
    if (i < nin) in[i] = t;
    else args[i] = t;
  }
  for (uint32_t i = 0; i < nin + nout; i++) {
    const shard_type *t = i < nin ? op->operands[i].value->type : op->results[i - nin].type;
    int64_t inner = 1;
    for (uint32_t d = (uint32_t)dim + 1; d < t->rank; d++) inner *= t->dims[d];
    in_inner[i] = inner;
  }
  for (uint32_t j = 0; j < nout; j++)
    if (!(outs[j] = shard_interp_result(p, op, j))) return false;
  for (int64_t s = 0; s < len; s++) {
    int64_t at = reverse ? len - 1 - s : s;
    for (uint32_t i = 0; i < nin; i++) {
      shard_tensor *sl = shard_interp_tensor_like(p, b->args[i].type, op);
      if (!sl) return false;
      if (sl->num * len != in[i]->num || sl->kind != in[i]->kind)
        return shard_interp_error(p, op, "body argument #%u of type %s is no slice of input #%u of type %s", i,
                                  b->args[i].type->text, i, in[i]->type->text);
      for (int64_t k = 0; k < sl->num; k++) interp_copy_elem(sl, k, in[i], S_scan_pos(k, in_inner[i], len, at));
      args[i] = sl;
    }
    if (!shard_interp_run_region(p, f, &op->regions[0], args, nin + ninit, res, nout + ninit)) return false;
    for (uint32_t j = 0; j < nout; j++) {
      if (res[j]->num * len != outs[j]->num || res[j]->kind != outs[j]->kind)
        return shard_interp_error(p, op, "the body returns a %s, no slice of result #%u of type %s", res[j]->type->text,
                                  j, outs[j]->type->text);
      for (int64_t k = 0; k < res[j]->num; k++)
        interp_copy_elem(outs[j], S_scan_pos(k, in_inner[nin + j], len, at), res[j], k);
    }
    for (uint32_t c = 0; c < ninit; c++) {
      if (!shard_type_equal(res[nout + c]->type, b->args[nin + c].type))
        return shard_interp_error(p, op, "the body returns a %s for carry #%u of type %s", res[nout + c]->type->text, c,
                                  b->args[nin + c].type->text);
      args[nin + c] = res[nout + c];
    }
  }
  for (uint32_t j = 0; j < nout; j++) shard_interp_bind(f, &op->results[j], outs[j]);
  for (uint32_t c = 0; c < ninit; c++) {
    shard_tensor *t = shard_interp_tensor_copy(p->arena, args[nin + c]);
    if (!shard_type_equal(t->type, op->results[nout + c].type))
      return shard_interp_error(p, op, "carry #%u of type %s does not match result #%u of type %s", c, t->type->text,
                                nout + c, op->results[nout + c].type->text);
    t->type = op->results[nout + c].type;
    shard_interp_bind(f, &op->results[nout + c], t);
  }
  return true;
}

bool shard_interp_exec_chlo_op(interp_proc *p, interp_frame *f, shard_op *op, bool *handled) {
  if (strncmp(op->name, "chlo.", 5) != 0) return true;
  const char *n = op->name + 5;
  *handled = true;
  static const char *const unary[] = {"acos",       "acosh", "asin",   "asinh",  "atan",       "atanh",     "cosh",
                                      "sinh",       "tan",   "erf",    "erfc",   "erf_inv",    "lgamma",    "digamma",
                                      "bessel_i1e", "conj",  "square", "is_inf", "is_neg_inf", "is_pos_inf"};
  for (size_t i = 0; i < sizeof unary / sizeof unary[0]; i++)
    if (!strcmp(n, unary[i])) return S_unary(p, f, op, n);
  if (!strcmp(n, "top_k")) return S_top_k(p, f, op);
  if (!strcmp(n, "scan")) return S_scan(p, f, op);
  if (!strcmp(n, "ragged_dot")) return S_ragged_dot(p, f, op);
  if (!strcmp(n, "constant")) return S_constant(p, f, op, false);
  if (!strcmp(n, "constant_like")) return S_constant(p, f, op, true);
  if (!strcmp(n, "next_after") || !strcmp(n, "polygamma") || !strcmp(n, "zeta") || !strcmp(n, "mulhi"))
    return S_binary(p, f, op, n, false);
  if (!strncmp(n, "broadcast_", 10)) return S_binary(p, f, op, n + 10, true);
  return shard_interp_error(p, op, "the interpreter does not support '%s'", op->name);
}
