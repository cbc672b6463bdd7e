/* Complex numbers in the interpreter: stablehlo.complex / real / imag, fft,
 * and the elementwise ops on complex tensors (add, subtract, multiply,
 * divide, power, atan2, maximum/minimum (lexicographic, the spec's order),
 * negate, abs, sign, exponential(_minus_one), log(_plus_one), sqrt, rsqrt,
 * sine, cosine, tan, tanh, logistic, convert (to a real type: the real
 * part), compare). dot_general and iota of complex numbers are in
 * interp_ops.c.
 *
 * A complex element is a (real, imaginary) pair of doubles, each part
 * rounded to the part's format (f32 or f64) after every operation, the way
 * the reference interpreter computes with a complex of two APFloats.
 * Ops that only move elements (slice, concatenate, reshape, transpose, ...)
 * need nothing here: interp_copy_elem moves both parts. Any other op that
 * sees a complex operand or result is refused here with an error, rather
 * than having interp_ops.c read the pairs as reals.
 *
 * fft follows the reference: FFT applies a 1-D DFT per transformed
 * dimension, last dimension first, each output X[k] = sum_n x[n] * (cos t +
 * i sin t) with t = -2 pi n k / N (computed in long double and rounded once,
 * see S_dft); IFFT conjugates,
 * transforms, conjugates and divides by N dimension by dimension; RFFT
 * transforms the real input as complex and keeps the first N/2+1 entries of
 * the last dimension; IRFFT rebuilds the conjugate-symmetric half and keeps
 * the real part. */
#include <complex.h>
#include <math.h>
#include <string.h>

#include "interp/interp_internal.h"

typedef struct cplx {
  double re, im;
} cplx;

static cplx S_round(cplx z, unsigned bits) {
  return (cplx){shard_elem_round_float(z.re, bits, false), shard_elem_round_float(z.im, bits, false)};
}

static cplx S_get(const shard_tensor *t, int64_t i) {
  if (t->kind == SHARD_ELEM_COMPLEX) return (cplx){t->floats[2 * i], t->floats[2 * i + 1]};
  return (cplx){interp_get_f(t, i), 0};
}

static void S_set(shard_tensor *t, int64_t i, cplx z) {
  z = S_round(z, t->bits);
  t->floats[2 * i] = z.re;
  t->floats[2 * i + 1] = z.im;
}

static cplx S_add(cplx a, cplx b) { return (cplx){a.re + b.re, a.im + b.im}; }
static cplx S_sub(cplx a, cplx b) { return (cplx){a.re - b.re, a.im - b.im}; }
/* Each part rounded once: the products are exact in double for f32 parts;
 * for f64 parts the C99 formula of std::complex's operator* is used. */
static cplx S_mul(cplx a, cplx b) { return (cplx){a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re}; }
static cplx S_div(cplx a, cplx b) {
  double complex q = CMPLX(a.re, a.im) / CMPLX(b.re, b.im);
  return (cplx){creal(q), cimag(q)};
}
static double complex S_c99(cplx a) { return CMPLX(a.re, a.im); }
static cplx S_from_c99(double complex z) { return (cplx){creal(z), cimag(z)}; }

/* The spec's order of complex numbers: by real part, then imaginary part. */
static bool S_lex_less(cplx a, cplx b) { return a.re < b.re || (a.re == b.re && a.im < b.im); }

/* sign: z / |z|, 0 for 0, NaN in both parts when either part is NaN. */
static cplx S_sign(cplx a) {
  if (isnan(a.re) || isnan(a.im)) return (cplx){NAN, NAN};
  if (a.re == 0 && a.im == 0) return a;
  double m = hypot(a.re, a.im);
  return (cplx){a.re / m, a.im / m};
}

/* exp(z) - 1 without the cancellation near 0: re = expm1(x) cos y -
 * 2 sin^2(y/2), im = exp(x) sin y. */
static cplx S_expm1(cplx a) {
  double h = sin(a.im / 2);
  return (cplx){expm1(a.re) * cos(a.im) - 2 * h * h, exp(a.re) * sin(a.im)};
}

/* log(1 + z): log|1 + z| from log1p of x^2 + 2x + y^2 over 2. */
static cplx S_log1p(cplx a) {
  double t = a.re * (a.re + 2) + a.im * a.im;
  double re = fabs(t) < 0.5 ? log1p(t) / 2 : log(hypot(1 + a.re, a.im));
  return (cplx){re, atan2(a.im, 1 + a.re)};
}

/* atan2(y, x) = -i log((x + i y) / sqrt(x^2 + y^2)). */
static cplx S_atan2(cplx y, cplx x) {
  double complex cy = S_c99(y), cx = S_c99(x);
  double complex w = clog((cx + I * cy) / csqrt(cx * cx + cy * cy));
  return (cplx){cimag(w), -creal(w)};
}

static bool S_is_complex_type(const shard_type *t) {
  return t && t->kind == SHARD_TYPE_TENSOR && t->elem && strncmp(t->elem, "complex<", 8) == 0;
}

/* ---- complex / real / imag ---------------------------------------------------------- */

static bool S_make_complex(interp_proc *p, interp_frame *f, shard_op *op) {
  shard_tensor *a = shard_interp_operand(p, f, op, 0), *b = a ? shard_interp_operand(p, f, op, 1) : NULL;
  shard_tensor *r = b ? shard_interp_tensor_like(p, op->results[0].type, op) : NULL;
  if (!r) return false;
  if (a->num != r->num || b->num != r->num)
    return shard_interp_error(p, op, "operand shapes differ from the result shape");
  for (int64_t i = 0; i < r->num; i++) S_set(r, i, (cplx){interp_get_f(a, i), interp_get_f(b, i)});
  shard_interp_bind(f, &op->results[0], r);
  return true;
}

static bool S_part(interp_proc *p, interp_frame *f, shard_op *op, bool imag) {
  shard_tensor *x = shard_interp_operand(p, f, op, 0),
               *r = x ? shard_interp_tensor_like(p, op->results[0].type, op) : NULL;
  if (!r) return false;
  for (int64_t i = 0; i < r->num; i++) {
    cplx z = S_get(x, i);
    shard_interp_set_f(r, i, imag ? z.im : z.re);
  }
  shard_interp_bind(f, &op->results[0], r);
  return true;
}

/* ---- elementwise ------------------------------------------------------------------- */

static bool S_elementwise(interp_proc *p, interp_frame *f, shard_op *op, const char *n) {
  if (op->num_results != 1 || op->num_operands == 0)
    return shard_interp_error(p, op, "the interpreter has no '%s' on complex numbers", op->name);
  shard_tensor *r = shard_interp_tensor_like(p, op->results[0].type, op);
  if (!r) return false;
  shard_tensor *x[2] = {NULL, NULL};
  for (uint32_t k = 0; k < op->num_operands && k < 2; k++)
    if (!(x[k] = shard_interp_operand(p, f, op, k))) return false;
  for (uint32_t k = 0; k < op->num_operands && k < 2; k++)
    if (x[k]->num != r->num) return shard_interp_error(p, op, "operand shapes differ from the result shape");
  bool binary = !strcmp(n, "add") || !strcmp(n, "subtract") || !strcmp(n, "multiply") || !strcmp(n, "divide") ||
                !strcmp(n, "power") || !strcmp(n, "atan2") || !strcmp(n, "maximum") || !strcmp(n, "minimum");
  if (binary && op->num_operands != 2) return shard_interp_error(p, op, "'%s' takes two operands", op->name);
  for (int64_t i = 0; i < r->num; i++) {
    cplx a = S_get(x[0], i), b = binary ? S_get(x[1], i) : (cplx){0, 0}, z;
    if (!strcmp(n, "add")) z = S_add(a, b);
    else if (!strcmp(n, "subtract")) z = S_sub(a, b);
    else if (!strcmp(n, "multiply")) z = S_mul(a, b);
    else if (!strcmp(n, "divide")) z = S_div(a, b);
    else if (!strcmp(n, "maximum")) z = S_lex_less(a, b) ? b : a;
    else if (!strcmp(n, "minimum")) z = S_lex_less(b, a) ? b : a;
    else if (!strcmp(n, "power")) z = S_from_c99(cpow(S_c99(a), S_c99(b)));
    else if (!strcmp(n, "atan2")) z = S_atan2(a, b);
    else if (!strcmp(n, "negate")) z = (cplx){-a.re, -a.im};
    else if (!strcmp(n, "exponential")) z = S_from_c99(cexp(S_c99(a)));
    else if (!strcmp(n, "exponential_minus_one")) z = S_expm1(a);
    else if (!strcmp(n, "log")) z = S_from_c99(clog(S_c99(a)));
    else if (!strcmp(n, "log_plus_one")) z = S_log1p(a);
    else if (!strcmp(n, "sqrt")) z = S_from_c99(csqrt(S_c99(a)));
    else if (!strcmp(n, "rsqrt")) z = S_div((cplx){1, 0}, S_from_c99(csqrt(S_c99(a))));
    else if (!strcmp(n, "sine")) z = S_from_c99(csin(S_c99(a)));
    else if (!strcmp(n, "cosine")) z = S_from_c99(ccos(S_c99(a)));
    else if (!strcmp(n, "tan")) z = S_from_c99(ctan(S_c99(a)));
    else if (!strcmp(n, "tanh")) z = S_from_c99(ctanh(S_c99(a)));
    else if (!strcmp(n, "logistic")) z = S_div((cplx){1, 0}, S_add((cplx){1, 0}, S_from_c99(cexp(-S_c99(a)))));
    else if (!strcmp(n, "sign")) z = S_sign(a);
    else if (!strcmp(n, "abs")) {
      if (r->kind != SHARD_ELEM_FLOAT) return shard_interp_error(p, op, "abs of complex numbers must be a float");
      shard_interp_set_f(r, i, hypot(a.re, a.im));
      continue;
    } else if (!strcmp(n, "convert")) {
      /* to a real type: the real part (i1: whether it is nonzero) */
      if (r->kind == SHARD_ELEM_BOOL) {
        r->ints[i] = a.re != 0;
        continue;
      }
      if (r->kind != SHARD_ELEM_COMPLEX) {
        shard_interp_set_f(r, i, a.re);
        continue;
      }
      z = a;
    } else {
      return shard_interp_error(p, op, "the interpreter does not support '%s' on complex numbers", op->name);
    }
    if (r->kind != SHARD_ELEM_COMPLEX)
      return shard_interp_error(p, op, "'%s' of complex numbers must be complex", op->name);
    S_set(r, i, z);
  }
  shard_interp_bind(f, &op->results[0], r);
  return true;
}

/* compare: EQ and NE part by part; the ordering directions compare
 * lexicographically (real part, then imaginary part), unordered with NaN. */
static bool S_compare(interp_proc *p, interp_frame *f, shard_op *op) {
  shard_tensor *a = shard_interp_operand(p, f, op, 0), *b = a ? shard_interp_operand(p, f, op, 1) : NULL;
  shard_tensor *r = b ? shard_interp_tensor_like(p, op->results[0].type, op) : NULL;
  if (!r) return false;
  if (a->num != r->num || b->num != r->num)
    return shard_interp_error(p, op, "operand shapes differ from the result shape");
  int dir = shard_op_enum(op, "comparison_direction", SHARD_SHLO_COMPARISON_DIRECTION);
  if (dir < 0) return shard_interp_error(p, op, "compare needs a comparison_direction");
  for (int64_t i = 0; i < r->num; i++) {
    cplx x = S_get(a, i), y = S_get(b, i);
    bool nan = isnan(x.re) || isnan(x.im) || isnan(y.re) || isnan(y.im);
    bool eq = x.re == y.re && x.im == y.im, lt = !nan && S_lex_less(x, y), gt = !nan && S_lex_less(y, x);
    bool v;
    switch (dir) {
    case SHARD_CMP_EQ: v = eq; break;
    case SHARD_CMP_NE: v = !eq; break;
    case SHARD_CMP_GE: v = eq || gt; break;
    case SHARD_CMP_GT: v = gt; break;
    case SHARD_CMP_LE: v = eq || lt; break;
    default: v = lt; break;
    }
    r->ints[i] = v;
  }
  shard_interp_bind(f, &op->results[0], r);
  return true;
}

/* ---- fft --------------------------------------------------------------------------- */

/* One DFT along `dim` of the complex tensor x into a new tensor of `x`'s
 * shape with `n_out` entries along dim (inputs beyond x's extent are absent,
 * a truncation keeps the first n_out). Each output is computed directly,
 * X[k] = sum_n x[n] w^(nk mod N), in long double: the twiddle's angle is
 * reduced exactly (an integer nk mod N) before it is scaled by 2 pi / N,
 * and the sum is rounded to the part's format once, so an f64 transform
 * stays within a few ULPs of the exact DFT (the rounded twiddles and sums of
 * the part's format, step by step, drifted by a hundred and more). */
static shard_tensor *S_dft(interp_proc *p, const shard_tensor *x, uint32_t dim, int64_t n_out) {
  static const long double half_pi = 1.570796326794896619231321691639751442L;
  uint32_t rank = x->type->rank;
  int64_t *dims = INTERP_ARRAY(p, int64_t, rank), *xs = INTERP_ARRAY(p, int64_t, rank),
          *idx = INTERP_ARRAY(p, int64_t, rank);
  memcpy(dims, x->type->dims, sizeof(int64_t) * rank);
  int64_t n_in = dims[dim];
  dims[dim] = n_out;
  shard_interp_strides(rank, x->type->dims, xs);
  shard_tensor *r = shard_interp_tensor_shape(p, x, rank, dims);
  /* the N twiddles, w^j = cos(2 pi j / N) - i sin(2 pi j / N), from an
   * angle in [0, pi/4] and the quadrant symmetries: exact at the quarter
   * turns, so the parts that are exactly 0 (the imaginary parts of X[0]
   * and X[N/2] of a real input) come out 0 */
  long double *tw = shard_xmalloc(sizeof(long double) * 2 * (size_t)(n_in + 1));
  for (int64_t j = 0; j < n_in; j++) {
    int64_t quadrant = 4 * j / n_in, rem = 4 * j - quadrant * n_in; /* angle = pi/2 (quadrant + rem / N) */
    long double c, sn;
    if (2 * rem > n_in) {
      long double t = half_pi * (long double)(n_in - rem) / (long double)n_in;
      c = sinl(t), sn = cosl(t);
    } else {
      long double t = half_pi * (long double)rem / (long double)n_in;
      c = cosl(t), sn = sinl(t);
    }
    long double cr = quadrant == 0 ? c : quadrant == 1 ? -sn : quadrant == 2 ? -c : sn;
    long double sr = quadrant == 0 ? sn : quadrant == 1 ? c : quadrant == 2 ? -sn : -c;
    tw[2 * j] = cr;
    tw[2 * j + 1] = -sr;
  }
  for (int64_t i = 0; i < r->num; i++) {
    int64_t k = idx[dim], base = 0;
    for (uint32_t d = 0; d < rank; d++)
      if (d != dim) base += idx[d] * xs[d];
    long double re = 0, im = 0;
    int64_t j = 0; /* n k mod N, advanced by k each step */
    int64_t step = n_in ? k % n_in : 0;
    for (int64_t n = 0; n < n_in; n++) {
      cplx v = S_get(x, base + n * xs[dim]);
      long double wr = tw[2 * j], wi = tw[2 * j + 1];
      re += (long double)v.re * wr - (long double)v.im * wi;
      im += (long double)v.re * wi + (long double)v.im * wr;
      j += step;
      if (j >= n_in) j -= n_in;
    }
    S_set(r, i, (cplx){(double)re, (double)im});
    shard_interp_next_index(rank, dims, idx);
  }
  free(tw);
  return r;
}

static void S_conjugate(shard_tensor *t) {
  for (int64_t i = 0; i < t->num; i++) t->floats[2 * i + 1] = -t->floats[2 * i + 1];
}

static bool S_fft(interp_proc *p, interp_frame *f, shard_op *op) {
  shard_tensor *x = shard_interp_operand(p, f, op, 0),
               *r = x ? shard_interp_tensor_like(p, op->results[0].type, op) : NULL;
  if (!r) return false;
  const shard_attr *ty = shard_op_attr(op, "fft_type");
  int k = shard_attr_enum(ty, SHARD_SHLO_FFT_TYPE);
  if (k < 0 && ty && ty->kind == SHARD_ATTR_STRING) /* fft_type = "RFFT" */
    k = shard_shlo_enum_case_named(SHARD_SHLO_FFT_TYPE, ty->u.str.data);
  const char *kind = k < 0 ? NULL : shard_shlo_enum_name(SHARD_SHLO_FFT_TYPE, (uint32_t)k);
  int64_t *len = INTERP_RANK_ARRAY(p, op, int64_t);
  uint32_t nlen;
  if (!kind) return shard_interp_error(p, op, "fft needs an fft_type");
  if (!shard_interp_attr_i64s(p, op, "fft_length", len, &nlen, shard_interp_op_rank(op))) return false;
  uint32_t rank = r->type->rank;
  if (nlen == 0 || nlen > rank) return shard_interp_error(p, op, "fft_length does not fit the result rank");
  uint32_t first = rank - nlen;
  /* the direct DFTs take (elements x length) multiply-adds per dimension */
  int64_t most = x->num > r->num ? x->num : r->num, work = 0;
  for (uint32_t d = 0; d < nlen; d++) {
    if (len[d] < 0 || (most && len[d] > SHARD_INTERP_MAX_PRODUCTS / most)) work = SHARD_INTERP_MAX_PRODUCTS + 1;
    else work += most * len[d];
  }
  if (work > SHARD_INTERP_MAX_PRODUCTS)
    return shard_interp_error(p, op, "this fft takes more than the interpreter's %lld multiply-adds",
                              (long long)SHARD_INTERP_MAX_PRODUCTS);
  /* compute in a complex tensor of the part width of the result */
  shard_type *ct = shard_type_tensor(p->arena, x->type->rank, x->type->dims,
                                     (x->bits == 64 || r->bits == 64) ? "complex<f64>" : "complex<f32>", NULL);
  shard_tensor *cur = shard_tensor_new(p->arena, ct);
  for (int64_t i = 0; i < x->num; i++) S_set(cur, i, S_get(x, i));
  if (!strcmp(kind, "FFT")) {
    for (uint32_t d = rank; d-- > first;) cur = S_dft(p, cur, d, cur->type->dims[d]);
  } else if (!strcmp(kind, "IFFT")) {
    for (uint32_t d = first; d < rank; d++) {
      S_conjugate(cur);
      cur = S_dft(p, cur, d, cur->type->dims[d]);
      S_conjugate(cur);
      for (int64_t i = 0; i < cur->num; i++) S_set(cur, i, S_div(S_get(cur, i), (cplx){(double)cur->type->dims[d], 0}));
    }
  } else if (!strcmp(kind, "RFFT")) {
    cur = S_dft(p, cur, rank - 1, len[nlen - 1] / 2 + 1);
    for (uint32_t d = rank - 1; d-- > first;) cur = S_dft(p, cur, d, cur->type->dims[d]);
  } else {
    int64_t renorm = 1;
    for (uint32_t d = first; d < rank; d++) renorm *= r->type->dims[d];
    for (uint32_t d = first; d + 1 < rank; d++) {
      S_conjugate(cur);
      cur = S_dft(p, cur, d, cur->type->dims[d]);
      S_conjugate(cur);
    }
    /* complete the last dimension to the result's length L with the
     * conjugate mirror (entry j >= n/2+1 is conj(entry L - j)), then keep
     * the real part of the conjugated transform */
    uint32_t last = rank - 1;
    int64_t half = cur->type->dims[last];
    int64_t *dims = INTERP_RANK_ARRAY(p, op, int64_t), *idx = INTERP_RANK_ARRAY(p, op, int64_t),
            *cs = INTERP_RANK_ARRAY(p, op, int64_t);
    memcpy(dims, cur->type->dims, sizeof(int64_t) * rank);
    dims[last] = r->type->dims[last];
    shard_interp_strides(rank, cur->type->dims, cs);
    shard_tensor *full = shard_interp_tensor_shape(p, cur, rank, dims);
    for (int64_t i = 0; i < full->num; i++) {
      int64_t j = idx[last], src = 0;
      for (uint32_t d = 0; d < last; d++) src += idx[d] * cs[d];
      cplx z = j < half ? S_get(cur, src + j) : S_get(cur, src + (dims[last] - j));
      if (j >= half) z.im = -z.im;
      S_set(full, i, z);
      shard_interp_next_index(rank, dims, idx);
    }
    S_conjugate(full);
    cur = S_dft(p, full, last, full->type->dims[last]);
    int64_t *ridx = INTERP_RANK_ARRAY(p, op, int64_t), *fs = INTERP_RANK_ARRAY(p, op, int64_t);
    shard_interp_strides(rank, cur->type->dims, fs);
    for (int64_t i = 0; i < r->num; i++) {
      int64_t src = 0;
      for (uint32_t d = 0; d < rank; d++) src += ridx[d] * fs[d];
      double re = shard_elem_round_float(S_get(cur, src).re, r->bits, false);
      shard_interp_set_f(r, i, re / (double)renorm);
      shard_interp_next_index(rank, r->type->dims, ridx);
    }
    shard_interp_bind(f, &op->results[0], r);
    return true;
  }
  if (cur->num != r->num) return shard_interp_error(p, op, "fft result shape does not match %s", r->type->text);
  for (int64_t i = 0; i < r->num; i++) S_set(r, i, S_get(cur, i));
  shard_interp_bind(f, &op->results[0], r);
  return true;
}

/* ---- dispatch ---------------------------------------------------------------------- */

bool shard_interp_exec_complex_op(interp_proc *p, interp_frame *f, shard_op *op, bool *handled) {
  *handled = true;
  const char *n = op->name;
  if (!strcmp(n, "stablehlo.complex")) return S_make_complex(p, f, op);
  if (!strcmp(n, "stablehlo.real")) return S_part(p, f, op, false);
  if (!strcmp(n, "stablehlo.imag")) return S_part(p, f, op, true);
  if (!strcmp(n, "stablehlo.fft")) return S_fft(p, f, op);
  bool has_complex = false;
  for (uint32_t i = 0; i < op->num_operands; i++) has_complex |= S_is_complex_type(op->operands[i].value->type);
  for (uint32_t i = 0; i < op->num_results; i++) has_complex |= S_is_complex_type(op->results[i].type);
  if (!has_complex || strncmp(n, "stablehlo.", 10) != 0) return *handled = false, true;
  n += 10;
  /* ops that only move whole elements work on pairs as they are */
  static const char *const movers[] = {"constant",
                                       "reshape",
                                       "transpose",
                                       "broadcast_in_dim",
                                       "slice",
                                       "dynamic_slice",
                                       "dynamic_update_slice",
                                       "concatenate",
                                       "pad",
                                       "reverse",
                                       "select",
                                       "optimization_barrier",
                                       "reduce",
                                       "gather",
                                       "scatter",
                                       "sort",
                                       "map",
                                       "reduce_window",
                                       "all_gather",
                                       "all_reduce",
                                       "all_to_all",
                                       "collective_permute",
                                       "reduce_scatter",
                                       "while",
                                       "if",
                                       "case",
                                       "return",
                                       "get_tuple_element",
                                       "tuple",
                                       "custom_call",
                                       "dot_general",
                                       "dot",
                                       "iota"};
  for (size_t i = 0; i < sizeof movers / sizeof *movers; i++)
    if (!strcmp(n, movers[i])) return *handled = false, true;
  if (!strcmp(n, "compare")) return S_compare(p, f, op);
  static const char *const ours[] = {"add",
                                     "subtract",
                                     "multiply",
                                     "divide",
                                     "power",
                                     "atan2",
                                     "maximum",
                                     "minimum",
                                     "negate",
                                     "exponential",
                                     "exponential_minus_one",
                                     "log",
                                     "log_plus_one",
                                     "sqrt",
                                     "rsqrt",
                                     "sine",
                                     "cosine",
                                     "tan",
                                     "tanh",
                                     "logistic",
                                     "sign",
                                     "abs",
                                     "convert"};
  for (size_t i = 0; i < sizeof ours / sizeof *ours; i++)
    if (!strcmp(n, ours[i])) return S_elementwise(p, f, op, n);
  /* the real-only ops of interp_ops.c and interp_windows.c would read the
   * pairs as reals: refused here; any other op (of the files that come
   * after this one) handles complex numbers itself or says it does not */
  static const char *const real_only[] = {"clamp",
                                          "is_finite",
                                          "floor",
                                          "ceil",
                                          "cbrt",
                                          "round_nearest_even",
                                          "round_nearest_afz",
                                          "remainder",
                                          "popcnt",
                                          "count_leading_zeros",
                                          "not",
                                          "and",
                                          "or",
                                          "xor",
                                          "shift_left",
                                          "shift_right_logical",
                                          "shift_right_arithmetic",
                                          "convolution",
                                          "select_and_scatter"};
  for (size_t i = 0; i < sizeof real_only / sizeof *real_only; i++)
    if (!strcmp(n, real_only[i]))
      return shard_interp_error(p, op, "the interpreter does not support '%s' on complex numbers", op->name);
  return *handled = false, true;
}
