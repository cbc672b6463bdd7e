/* StableHLO ops beyond the core set of interp_ops.c: tokens and tuples
 * (after_all, create_token, outfeed, tuple, get_tuple_element), bitcast_convert,
 * reduce_precision, composite (runs its decomposition), custom_call (a
 * located error naming the target), the dynamic_* family (run as their
 * static twins, the shape operands read as the attributes those take), and
 * the linear algebra of triangular_solve and cholesky, the batch_norm ops,
 * and rng_bit_generator with XLA's THREE_FRY and PHILOX.
 *
 * Semantics follow the StableHLO spec and its reference interpreter
 * (stablehlo/reference/Ops.cpp): bitcast_convert lays the operand's
 * elements end to end as one bit string, least significant bit first, and
 * reads the result's elements from it, reduce_precision rounds the significand to
 * nearest even and then clamps the exponent (overflow to infinity, underflow
 * to a signed zero; a NaN stays a NaN unless no mantissa bit is left, then it
 * is an infinity of its sign), and
 * the solvers compute in double and round each result element once. */
#include <complex.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "interp/interp_internal.h"
#include "ir/opdef.h"

/* ---- tokens and tuples ------------------------------------------------------------ */

/* A value of a non-tensor type (token, tuple): no elements of its own. */
static shard_tensor *S_opaque(interp_proc *p, shard_type *type) {
  shard_tensor *t = SHARD_NEW(p->arena, shard_tensor);
  memset(t, 0, sizeof *t);
  t->type = type;
  t->kind = SHARD_ELEM_BOOL;
  return t;
}

static bool S_is_token(const shard_type *t) {
  return t && t->kind == SHARD_TYPE_OTHER && !strcmp(t->text, "!stablehlo.token");
}

static bool S_token(interp_proc *p, interp_frame *f, shard_op *op) {
  for (uint32_t i = 0; i < op->num_operands; i++)
    if (!shard_interp_operand(p, f, op, i)) return false;
  if (op->num_results != 1 || !S_is_token(op->results[0].type))
    return shard_interp_error(p, op, "'%s' must give one !stablehlo.token", op->name);
  shard_interp_bind(f, &op->results[0], S_opaque(p, op->results[0].type));
  return true;
}

static bool S_tuple(interp_proc *p, interp_frame *f, shard_op *op) {
  if (op->num_results != 1 || op->results[0].type->kind != SHARD_TYPE_TUPLE)
    return shard_interp_error(p, op, "'stablehlo.tuple' must give one tuple");
  shard_tensor *t = S_opaque(p, op->results[0].type);
  t->elems = SHARD_NEW_ARRAY(p->arena, shard_tensor *, op->num_operands + 1);
  for (uint32_t i = 0; i < op->num_operands; i++)
    if (!(t->elems[i] = shard_interp_operand(p, f, op, i))) return false;
  t->num_elems = op->num_operands;
  shard_interp_bind(f, &op->results[0], t);
  return true;
}

static bool S_get_tuple_element(interp_proc *p, interp_frame *f, shard_op *op) {
  shard_tensor *t = shard_interp_operand(p, f, op, 0);
  int64_t index;
  if (!t || !shard_interp_attr_int(p, op, "index", &index)) return false;
  if (!t->elems || index < 0 || index >= (int64_t)t->num_elems)
    return shard_interp_error(p, op, "index %lld is out of range for a tuple of %u elements", (long long)index,
                              t->num_elems);
  shard_interp_bind(f, &op->results[0], t->elems[index]);
  return true;
}

/* ---- element bits ----------------------------------------------------------------- */

/* The IEEE binary formats S_encode/S_decode handle with their NaN payloads. */
static bool S_ieee_format(shard_float_fmt fmt, unsigned *man, unsigned *exp) {
  switch (fmt) {
  case SHARD_FLOAT_F64: *man = 52, *exp = 11; return true;
  case SHARD_FLOAT_F32: *man = 23, *exp = 8; return true;
  case SHARD_FLOAT_F16: *man = 10, *exp = 5; return true;
  case SHARD_FLOAT_BF16: *man = 7, *exp = 8; return true;
  default: return false;
  }
}

/* The bits of a value of an IEEE binary format (man, exp) that the value is
 * exactly representable in. NaNs keep their payload where the double holds
 * it (f64, f32, and the top of a 16-bit one). */
static uint64_t S_encode(double x, unsigned man, unsigned exp) {
  uint64_t d;
  memcpy(&d, &x, 8);
  if (man == 52) return d;
  uint64_t sign = d >> 63;
  unsigned width = 1 + exp + man;
  uint64_t emax = (UINT64_C(1) << exp) - 1;
  int bias = (int)(emax >> 1);
  if (isnan(x)) {
    uint64_t payload = (d & ((UINT64_C(1) << 52) - 1)) >> (52 - man);
    if (!payload) payload = UINT64_C(1) << (man - 1);
    return (sign << (width - 1)) | (emax << man) | payload;
  }
  if (isinf(x)) return (sign << (width - 1)) | (emax << man);
  double a = fabs(x);
  if (a == 0) return sign << (width - 1);
  int e;
  double m = frexp(a, &e); /* a = m 2^e, m in [0.5, 1) */
  int be = e - 1 + bias; /* biased exponent of 1.xxx 2^(e-1) */
  uint64_t bits;
  if (be <= 0) /* subnormal: a = frac 2^(1 - bias - man) */
    bits = (uint64_t)ldexp(a, (int)man + bias - 1);
  else bits = ((uint64_t)be << man) | ((uint64_t)ldexp(m * 2 - 1, (int)man));
  return (sign << (width - 1)) | bits;
}

static double S_decode(uint64_t bits, unsigned man, unsigned exp) {
  if (man == 52) {
    double d;
    memcpy(&d, &bits, 8);
    return d;
  }
  unsigned width = 1 + exp + man;
  uint64_t emax = (UINT64_C(1) << exp) - 1, frac = bits & ((UINT64_C(1) << man) - 1);
  uint64_t be = (bits >> man) & emax;
  int bias = (int)(emax >> 1);
  bool neg = (bits >> (width - 1)) & 1;
  double v;
  if (be == emax) {
    if (!frac) return neg ? -INFINITY : INFINITY;
    uint64_t d = (UINT64_C(0x7FF) << 52) | (frac << (52 - man)) | (neg ? UINT64_C(1) << 63 : 0);
    memcpy(&v, &d, 8);
    return v;
  }
  if (be == 0) v = ldexp((double)frac, 1 - bias - (int)man);
  else v = ldexp((double)(frac | (UINT64_C(1) << man)), (int)be - bias - (int)man);
  return neg ? -v : v;
}

/* Part k of t as its bits (width t->bits): an element, or for complex
 * numbers the real (k even) or imaginary (k odd) part of element k / 2. */
static bool S_to_bits(const shard_tensor *t, int64_t k, uint64_t *out) {
  unsigned man, exp;
  if (t->kind == SHARD_ELEM_FLOAT || t->kind == SHARD_ELEM_COMPLEX) {
    if (S_ieee_format(t->fmt, &man, &exp)) *out = S_encode(t->floats[k], man, exp);
    else if (t->fmt != SHARD_FLOAT_NONE) *out = shard_float_encode(t->floats[k], t->fmt);
    else return false;
    return true;
  }
  uint64_t mask = t->bits >= 64 ? ~UINT64_C(0) : (UINT64_C(1) << t->bits) - 1;
  *out = (uint64_t)t->ints[k] & mask;
  return true;
}

static bool S_from_bits(shard_tensor *t, int64_t k, uint64_t bits) {
  unsigned man, exp;
  if (t->kind == SHARD_ELEM_FLOAT || t->kind == SHARD_ELEM_COMPLEX) {
    if (S_ieee_format(t->fmt, &man, &exp)) t->floats[k] = S_decode(bits, man, exp);
    else if (t->fmt != SHARD_FLOAT_NONE) t->floats[k] = shard_float_decode(bits, t->fmt);
    else return false;
    return true;
  }
  if (t->kind == SHARD_ELEM_BOOL) t->ints[k] = (int64_t)(bits & 1);
  else t->ints[k] = shard_elem_wrap_int((int64_t)bits, t->kind, t->bits);
  return true;
}

/* n <= 64 bits at bit position pos of a zeroed little-endian bit string. */
static void S_put_bits(uint64_t *w, uint64_t pos, uint64_t v, unsigned n) {
  if (n < 64) v &= (UINT64_C(1) << n) - 1;
  uint64_t lo = pos / 64;
  unsigned off = (unsigned)(pos % 64);
  w[lo] |= v << off;
  if (off && off + n > 64) w[lo + 1] |= v >> (64 - off);
}

static uint64_t S_get_bits(const uint64_t *w, uint64_t pos, unsigned n) {
  uint64_t lo = pos / 64;
  unsigned off = (unsigned)(pos % 64);
  uint64_t v = w[lo] >> off;
  if (off && off + n > 64) v |= w[lo + 1] << (64 - off);
  return n < 64 ? v & ((UINT64_C(1) << n) - 1) : v;
}

/* The spec's bits semantics: the operand's elements laid end to end as one
 * bit string, each element least significant bit first (a complex number
 * its real part, then its imaginary part), read back as the result's
 * elements in the same order. So i1 elements become the bits of an i64
 * from its least significant bit up, and a complex<f64> splits into two
 * complex<f32> whose first is the real part's low and high halves. */
static bool S_bitcast_convert(interp_proc *p, interp_frame *f, shard_op *op) {
  shard_tensor *x = shard_interp_operand(p, f, op, 0), *r = x ? shard_interp_result(p, op, 0) : NULL;
  if (!r) return false;
  if (!strcmp(x->type->elem, r->type->elem) && x->num == r->num) { /* same element type: the same values */
    for (int64_t i = 0; i < r->num; i++) interp_copy_elem(r, i, x, i);
    shard_interp_bind(f, &op->results[0], r);
    return true;
  }
  int64_t xparts = x->kind == SHARD_ELEM_COMPLEX ? 2 * x->num : x->num;
  int64_t rparts = r->kind == SHARD_ELEM_COMPLEX ? 2 * r->num : r->num;
  if (x->bits == 0 || x->bits > 64 || r->bits == 0 || r->bits > 64 ||
      (uint64_t)xparts * x->bits != (uint64_t)rparts * r->bits)
    return shard_interp_error(p, op, "bitcast_convert from %s to %s changes the number of bits", x->type->text,
                              r->type->text);
  uint64_t total = (uint64_t)xparts * x->bits;
  uint64_t *w = shard_xcalloc((size_t)(total / 64 + 2), sizeof *w);
  bool ok = true;
  for (int64_t k = 0; k < xparts && ok; k++) {
    uint64_t b;
    if ((ok = S_to_bits(x, k, &b))) S_put_bits(w, (uint64_t)k * x->bits, b, x->bits);
  }
  for (int64_t k = 0; k < rparts && ok; k++) ok = S_from_bits(r, k, S_get_bits(w, (uint64_t)k * r->bits, r->bits));
  free(w);
  if (!ok)
    return shard_interp_error(p, op, "the interpreter does not support 'stablehlo.bitcast_convert' from %s to %s",
                              x->type->elem, r->type->elem);
  shard_interp_bind(f, &op->results[0], r);
  return true;
}

/* XLA's and the reference interpreter's reduce_precision, on the bits of
 * the operand's own format. */
static bool S_reduce_precision(interp_proc *p, interp_frame *f, shard_op *op) {
  shard_tensor *x = shard_interp_operand(p, f, op, 0), *r = x ? shard_interp_result(p, op, 0) : NULL;
  int64_t eb, mb;
  if (!r || !shard_interp_attr_int(p, op, "exponent_bits", &eb) || !shard_interp_attr_int(p, op, "mantissa_bits", &mb))
    return false;
  unsigned man, exp;
  if (x->kind != SHARD_ELEM_FLOAT || !S_ieee_format(x->fmt, &man, &exp))
    return shard_interp_error(p, op, "the interpreter does not support 'stablehlo.reduce_precision' on %s",
                              x->type->elem);
  if (eb < 1 || mb < 0)
    return shard_interp_error(p, op, "reduce_precision needs exponent_bits >= 1 and mantissa_bits >= 0");
  unsigned width = 1 + exp + man;
  for (int64_t i = 0; i < x->num; i++) {
    double v = x->floats[i];
    uint64_t bits = S_encode(v, man, exp);
    if (mb < (int64_t)man) {
      unsigned shift = man - (unsigned)mb;
      uint64_t last = UINT64_C(1) << shift;
      uint64_t bias = (last >> 1) - 1 + ((bits & last) >> shift);
      bits = (bits + bias) & ~(last - 1);
    }
    if (eb < (int64_t)exp) {
      uint64_t sign_mask = UINT64_C(1) << (width - 1);
      uint64_t exp_mask = ((UINT64_C(1) << exp) - 1) << man;
      uint64_t ebias = (UINT64_C(1) << (exp - 1)) - 1, rbias = (UINT64_C(1) << (eb - 1)) - 1;
      uint64_t e = bits & exp_mask;
      if (e > ((ebias + rbias) << man)) bits = (bits & sign_mask) | exp_mask;
      else if (e <= ((ebias - rbias) << man)) bits &= sign_mask;
    }
    double res = S_decode(bits, man, exp);
    /* the bit arithmetic may carry a NaN's significand into the sign or
     * exponent: a NaN stays a NaN, or becomes an infinity of its sign when no
     * mantissa bit is left */
    if (isnan(v)) res = mb > 0 ? v : copysign(INFINITY, v);
    r->floats[i] = res;
  }
  shard_interp_bind(f, &op->results[0], r);
  return true;
}

/* ---- composite and custom_call ----------------------------------------------------- */

static bool S_composite(interp_proc *p, interp_frame *f, shard_op *op) {
  const shard_attr *d = shard_op_attr(op, "decomposition");
  if (!d || d->kind != SHARD_ATTR_SYMREF)
    return shard_interp_error(p, op, "'stablehlo.composite' needs a decomposition function");
  if (d->u.symref.num != 1)
    return shard_interp_error(p, op, "the decomposition of 'stablehlo.composite' must be a flat symbol");
  const char *sym = d->u.symref.path[0];
  shard_op *fn = shard_module_lookup_symbol(p->world->module, sym);
  if (!fn || strcmp(fn->name, "func.func") != 0 || fn->num_regions < 1 || !fn->regions[0].first)
    return shard_interp_error(p, op, "the decomposition @%s of 'stablehlo.composite' is not a function with a body",
                              sym);
  shard_tensor **args = SHARD_NEW_ARRAY(p->arena, shard_tensor *, op->num_operands + 1);
  shard_tensor **res = SHARD_NEW_ARRAY(p->arena, shard_tensor *, op->num_results + 1);
  for (uint32_t i = 0; i < op->num_operands; i++)
    if (!(args[i] = shard_interp_operand(p, f, op, i))) return false;
  if (!shard_interp_run_region(p, NULL, &fn->regions[0], args, op->num_operands, res, op->num_results)) return false;
  for (uint32_t i = 0; i < op->num_results; i++) shard_interp_bind(f, &op->results[i], res[i]);
  return true;
}

/* ---- the dynamic_* ops, as their static twins ------------------------------------------ */

/* The integers of a 1-D (or N x 2) shape operand. */
static bool S_shape_operand(interp_proc *p, interp_frame *f, const shard_op *op, uint32_t i, int64_t **vals,
                            uint32_t *n) {
  shard_tensor *t = shard_interp_operand(p, f, op, i);
  if (!t) return false;
  if (t->kind == SHARD_ELEM_FLOAT || t->kind == SHARD_ELEM_COMPLEX)
    return shard_interp_error(p, op, "operand #%u of '%s' must hold integers", i, op->name);
  *vals = t->ints;
  *n = (uint32_t)t->num;
  return true;
}

/* A copy of op named `name` with operands [0, nops) and attribute copies the
 * caller adds to: the static twin of a dynamic op. Its results are op's. */
static shard_op *S_twin(interp_proc *p, const shard_op *op, const char *name, uint32_t nops) {
  shard_op *t = SHARD_NEW(p->arena, shard_op);
  *t = *op;
  t->name = name;
  t->def = shard_op_def_lookup(name, strlen(name));
  t->num_operands = nops < op->num_operands ? nops : op->num_operands;
  t->attrs = SHARD_NEW_ARRAY(p->arena, shard_named_attr, op->num_attrs + 1);
  if (op->num_attrs) memcpy(t->attrs, op->attrs, sizeof *t->attrs * op->num_attrs);
  return t;
}

static bool S_run_twin(interp_proc *p, interp_frame *f, shard_op *twin, const shard_op *op) {
  bool handled = false;
  bool ok = shard_interp_exec_complex_op(p, f, twin, &handled);
  if (ok && !handled) ok = shard_interp_exec_op(p, f, twin, &handled);
  if (ok && !handled) ok = shard_interp_exec_window_op(p, f, twin, &handled);
  if (ok && !handled) return shard_interp_error(p, op, "the interpreter does not support '%s'", op->name);
  return ok;
}

static bool S_dynamic(interp_proc *p, interp_frame *f, shard_op *op, const char *n) {
  shard_op *t;
  if (!strcmp(n, "dynamic_iota")) {
    t = S_twin(p, op, "stablehlo.iota", 0);
  } else if (!strcmp(n, "dynamic_broadcast_in_dim")) {
    t = S_twin(p, op, "stablehlo.broadcast_in_dim", 1);
  } else if (!strcmp(n, "dynamic_reshape")) {
    t = S_twin(p, op, "stablehlo.reshape", 1);
  } else if (!strcmp(n, "dynamic_pad")) {
    static const char *const names[] = {"edge_padding_low", "edge_padding_high", "interior_padding"};
    t = S_twin(p, op, "stablehlo.pad", 2);
    for (uint32_t k = 0; k < 3; k++) {
      int64_t *v;
      uint32_t m;
      if (!S_shape_operand(p, f, op, 2 + k, &v, &m)) return false;
      shard_op_set_attr(p->arena, t, names[k], shard_attr_dense_i64(p->arena, v, m), true);
    }
  } else if (!strcmp(n, "dynamic_gather")) {
    int64_t *v;
    uint32_t m;
    t = S_twin(p, op, "stablehlo.gather", 2);
    if (!S_shape_operand(p, f, op, 2, &v, &m)) return false;
    shard_op_set_attr(p->arena, t, "slice_sizes", shard_attr_dense_i64(p->arena, v, m), true);
  } else if (!strcmp(n, "dynamic_conv")) {
    int64_t *v;
    uint32_t m;
    t = S_twin(p, op, "stablehlo.convolution", 2);
    if (!S_shape_operand(p, f, op, 2, &v, &m)) return false;
    shard_op_set_attr(p->arena, t, "padding", shard_attr_dense_i64(p->arena, v, m), true);
  } else {
    return shard_interp_error(p, op, "the interpreter does not support '%s'", op->name);
  }
  /* the shape operands must agree with the static result type they stand for */
  if (!strcmp(n, "dynamic_iota") || !strcmp(n, "dynamic_broadcast_in_dim") || !strcmp(n, "dynamic_reshape")) {
    int64_t *v;
    uint32_t m;
    if (!S_shape_operand(p, f, op, op->num_operands - 1, &v, &m)) return false;
    const shard_type *rt = op->results[0].type;
    bool same = rt->kind == SHARD_TYPE_TENSOR && m == rt->rank;
    for (uint32_t d = 0; same && d < m; d++) same = v[d] == rt->dims[d];
    if (!same) return shard_interp_error(p, op, "the output shape operand does not match the result type %s", rt->text);
  }
  return S_run_twin(p, f, t, op);
}

/* ---- linear algebra ------------------------------------------------------------------- */

static bool S_bool_attr(const shard_op *op, const char *name, bool dflt) {
  const shard_attr *a = shard_op_attr(op, name);
  return a && a->kind == SHARD_ATTR_BOOL ? a->u.boolean : dflt;
}

static double complex S_get_c(const shard_tensor *t, int64_t i) {
  return t->kind == SHARD_ELEM_COMPLEX ? CMPLX(t->floats[2 * i], t->floats[2 * i + 1]) : CMPLX(t->floats[i], 0);
}

static void S_set_c(shard_tensor *t, int64_t i, double complex z) {
  if (t->kind == SHARD_ELEM_COMPLEX) {
    t->floats[2 * i] = shard_elem_round_float(creal(z), t->bits, false);
    t->floats[2 * i + 1] = shard_elem_round_float(cimag(z), t->bits, false);
  } else {
    shard_interp_set_f(t, i, creal(z));
  }
}

/* op(a) x = b (left side) or x op(a) = b, for each batch; a's unused
 * triangle is ignored, a unit diagonal is assumed when asked. */
static bool S_triangular_solve(interp_proc *p, interp_frame *f, shard_op *op) {
  shard_tensor *a = shard_interp_operand(p, f, op, 0), *b = a ? shard_interp_operand(p, f, op, 1) : NULL,
               *r = b ? shard_interp_result(p, op, 0) : NULL;
  if (!r) return false;
  if ((a->kind != SHARD_ELEM_FLOAT && a->kind != SHARD_ELEM_COMPLEX) || a->kind != b->kind || r->num != b->num)
    return shard_interp_error(p, op, "'stablehlo.triangular_solve' needs float or complex operands of one type");
  bool left = S_bool_attr(op, "left_side", false), lower = S_bool_attr(op, "lower", false);
  bool unit = S_bool_attr(op, "unit_diagonal", false);
  int tr = shard_op_enum(op, "transpose_a", SHARD_SHLO_TRANSPOSE);
  if (tr < 0) return shard_interp_error(p, op, "'stablehlo.triangular_solve' needs transpose_a");
  /* StableHLO's order: TRANSPOSE_INVALID, NO_TRANSPOSE, TRANSPOSE, ADJOINT */
  const char *trn = shard_shlo_enum_name(SHARD_SHLO_TRANSPOSE, (uint32_t)tr);
  bool transpose = trn && strcmp(trn, "NO_TRANSPOSE") != 0, adjoint = trn && !strcmp(trn, "ADJOINT");
  uint32_t ra = a->type->rank, rb = b->type->rank;
  if (ra < 2 || rb != ra)
    return shard_interp_error(p, op, "'stablehlo.triangular_solve' needs operands of one rank >= 2");
  int64_t n = a->type->dims[ra - 1], rows = b->type->dims[rb - 2], cols = b->type->dims[rb - 1];
  if (a->type->dims[ra - 2] != n || (left ? rows : cols) != n)
    return shard_interp_error(p, op, "the shapes of 'stablehlo.triangular_solve' do not fit");
  int64_t batches = n ? a->num / (n * n) : 0, m = left ? cols : rows;
  if (batches * rows * cols != b->num)
    return shard_interp_error(p, op, "the batch dims of 'stablehlo.triangular_solve' operands differ");
  double complex *mat = shard_xmalloc(sizeof(double complex) * (size_t)(n * n + n * m) + 1), *x = mat + n * n;
  for (int64_t bt = 0; bt < batches; bt++) {
    const int64_t abase = bt * n * n, bbase = bt * rows * cols;
    /* mat = op(tri(a)), then transposed once more for a right-side solve:
     * x op(a) = b  <=>  op(a)^T x^T = b^T */
    for (int64_t i = 0; i < n; i++)
      for (int64_t j = 0; j < n; j++) {
        bool in = lower ? j <= i : j >= i;
        double complex v = i == j && unit ? 1 : in ? S_get_c(a, abase + i * n + j) : 0;
        if (adjoint) v = conj(v);
        int64_t ti = transpose ? j : i, tj = transpose ? i : j;
        if (!left) {
          int64_t s = ti;
          ti = tj;
          tj = s;
        }
        mat[ti * n + tj] = v;
      }
    bool eff_lower = lower != transpose;
    if (!left) eff_lower = !eff_lower;
    /* x[k][c]: column c of the right-hand side (b, or b^T on the right) */
    for (int64_t k = 0; k < n; k++)
      for (int64_t c = 0; c < m; c++) x[k * m + c] = S_get_c(b, bbase + (left ? k * cols + c : c * cols + k));
    for (int64_t c = 0; c < m; c++) {
      for (int64_t s = 0; s < n; s++) {
        int64_t k = eff_lower ? s : n - 1 - s;
        double complex acc = x[k * m + c];
        for (int64_t j = 0; j < n; j++)
          if (eff_lower ? j < k : j > k) acc -= mat[k * n + j] * x[j * m + c];
        x[k * m + c] = acc / mat[k * n + k];
      }
    }
    for (int64_t k = 0; k < n; k++)
      for (int64_t c = 0; c < m; c++) S_set_c(r, bbase + (left ? k * cols + c : c * cols + k), x[k * m + c]);
  }
  free(mat);
  shard_interp_bind(f, &op->results[0], r);
  return true;
}

/* a = l l^H (lower) or u^H u (upper), per batch; the other triangle is zero.
 * A matrix that is not positive definite gives NaNs from the first failing
 * pivot on, as XLA's does. */
static bool S_cholesky(interp_proc *p, interp_frame *f, shard_op *op) {
  shard_tensor *a = shard_interp_operand(p, f, op, 0), *r = a ? shard_interp_result(p, op, 0) : NULL;
  if (!r) return false;
  if ((a->kind != SHARD_ELEM_FLOAT && a->kind != SHARD_ELEM_COMPLEX) || a->type->rank < 2 || r->num != a->num)
    return shard_interp_error(p, op, "'stablehlo.cholesky' needs a float or complex operand of rank >= 2");
  bool lower = S_bool_attr(op, "lower", false);
  uint32_t rank = a->type->rank;
  int64_t n = a->type->dims[rank - 1];
  if (a->type->dims[rank - 2] != n) return shard_interp_error(p, op, "'stablehlo.cholesky' needs square matrices");
  int64_t batches = n ? a->num / (n * n) : 0;
  double complex *l = shard_xmalloc(sizeof(double complex) * (size_t)(n * n) + 1);
  for (int64_t bt = 0; bt < batches; bt++) {
    int64_t base = bt * n * n;
    /* work on the lower factor of the hermitian matrix read from the chosen triangle */
    for (int64_t i = 0; i < n * n; i++) l[i] = 0;
    for (int64_t j = 0; j < n; j++) {
      for (int64_t i = j; i < n; i++) {
        double complex aij = lower ? S_get_c(a, base + i * n + j) : conj(S_get_c(a, base + j * n + i));
        double complex s = aij;
        for (int64_t k = 0; k < j; k++) s -= l[i * n + k] * conj(l[j * n + k]);
        if (i == j) {
          double d = creal(s);
          l[j * n + j] = d > 0 ? sqrt(d) : NAN;
        } else {
          l[i * n + j] = s / l[j * n + j];
        }
      }
    }
    for (int64_t i = 0; i < n; i++)
      for (int64_t j = 0; j < n; j++) {
        double complex v = lower ? (j <= i ? l[i * n + j] : 0) : (j >= i ? conj(l[j * n + i]) : 0);
        S_set_c(r, base + i * n + j, v);
      }
  }
  free(l);
  shard_interp_bind(f, &op->results[0], r);
  return true;
}

/* ---- batch norm ----------------------------------------------------------------------- */

/* epsilon and feature_index, and the element count per feature. */
static bool S_bn_attrs(interp_proc *p, const shard_op *op, const shard_tensor *x, double *eps, int64_t *fi,
                       int64_t *per_feature) {
  const shard_attr *e = shard_op_attr(op, "epsilon");
  if (!e || e->kind != SHARD_ATTR_FLOAT || !e->u.flt.text)
    return shard_interp_error(p, op, "'%s' needs a float epsilon", op->name);
  *eps = strtod(e->u.flt.text, NULL);
  if (!shard_interp_attr_int(p, op, "feature_index", fi)) return false;
  if (*fi < 0 || *fi >= (int64_t)x->type->rank || x->kind != SHARD_ELEM_FLOAT)
    return shard_interp_error(p, op, "'%s' needs a float operand with feature_index in range", op->name);
  int64_t nf = x->type->dims[*fi];
  *per_feature = nf ? x->num / nf : 0;
  return true;
}

/* The feature (index along feature_index) of element i. */
static int64_t S_feature(const shard_tensor *x, int64_t fi, int64_t i) {
  int64_t inner = 1;
  for (uint32_t d = (uint32_t)fi + 1; d < x->type->rank; d++) inner *= x->type->dims[d];
  return (i / inner) % x->type->dims[fi];
}

/* Per-feature operands must hold one value per feature. */
static bool S_bn_vectors(interp_proc *p, const shard_op *op, shard_tensor *const *v, uint32_t n, int64_t nf) {
  for (uint32_t i = 0; i < n; i++)
    if (!v[i] || v[i]->num != nf || v[i]->kind != SHARD_ELEM_FLOAT)
      return v[i] ? shard_interp_error(p, op, "a value of type %s of '%s' must hold one float per feature",
                                       v[i]->type->text, op->name)
                  : false;
  return true;
}

static bool S_batch_norm(interp_proc *p, interp_frame *f, shard_op *op, const char *n) {
  shard_tensor *x = shard_interp_operand(p, f, op, 0);
  double eps = 0;
  int64_t fi = 0, per = 0;
  if (!x || !S_bn_attrs(p, op, x, &eps, &fi, &per)) return false;
  int64_t nf = x->type->dims[fi];
  double *mean = shard_xcalloc((size_t)nf * 4 + 1, sizeof(double)), *var = mean + nf, *s1 = var + nf, *s2 = s1 + nf;
  bool ok = false;
  if (!strcmp(n, "batch_norm_inference")) {
    shard_tensor *v[4] = {shard_interp_operand(p, f, op, 1), shard_interp_operand(p, f, op, 2),
                          shard_interp_operand(p, f, op, 3), shard_interp_operand(p, f, op, 4)};
    shard_tensor *r = shard_interp_result(p, op, 0);
    if (r && S_bn_vectors(p, op, v, 4, nf)) {
      for (int64_t i = 0; i < x->num; i++) {
        int64_t c = S_feature(x, fi, i);
        double y = (x->floats[i] - v[2]->floats[c]) / sqrt(v[3]->floats[c] + eps) * v[0]->floats[c] + v[1]->floats[c];
        shard_interp_set_f(r, i, y);
      }
      shard_interp_bind(f, &op->results[0], r);
      ok = true;
    }
  } else if (!strcmp(n, "batch_norm_training")) {
    shard_tensor *v[2] = {shard_interp_operand(p, f, op, 1), shard_interp_operand(p, f, op, 2)};
    shard_tensor *r = shard_interp_result(p, op, 0), *bm = r ? shard_interp_result(p, op, 1) : NULL,
                 *bv = bm ? shard_interp_result(p, op, 2) : NULL;
    shard_tensor *outs[2] = {bm, bv};
    if (bv && S_bn_vectors(p, op, v, 2, nf) && S_bn_vectors(p, op, outs, 2, nf)) {
      for (int64_t i = 0; i < x->num; i++) mean[S_feature(x, fi, i)] += x->floats[i];
      for (int64_t c = 0; c < nf; c++) mean[c] = per ? mean[c] / (double)per : NAN;
      for (int64_t i = 0; i < x->num; i++) {
        double d = x->floats[i] - mean[S_feature(x, fi, i)];
        var[S_feature(x, fi, i)] += d * d;
      }
      for (int64_t c = 0; c < nf; c++) {
        var[c] = per ? var[c] / (double)per : NAN;
        shard_interp_set_f(bm, c, mean[c]);
        shard_interp_set_f(bv, c, var[c]);
      }
      for (int64_t i = 0; i < x->num; i++) {
        int64_t c = S_feature(x, fi, i);
        shard_interp_set_f(r, i, (x->floats[i] - mean[c]) / sqrt(var[c] + eps) * v[0]->floats[c] + v[1]->floats[c]);
      }
      shard_interp_bind(f, &op->results[0], r);
      shard_interp_bind(f, &op->results[1], bm);
      shard_interp_bind(f, &op->results[2], bv);
      ok = true;
    }
  } else { /* batch_norm_grad(operand, scale, mean, variance, grad_output) */
    shard_tensor *v[3] = {shard_interp_operand(p, f, op, 1), shard_interp_operand(p, f, op, 2),
                          shard_interp_operand(p, f, op, 3)};
    shard_tensor *g = shard_interp_operand(p, f, op, 4);
    shard_tensor *gx = shard_interp_result(p, op, 0), *gs = gx ? shard_interp_result(p, op, 1) : NULL,
                 *go = gs ? shard_interp_result(p, op, 2) : NULL;
    shard_tensor *outs[2] = {gs, go};
    if (go && g && g->num != x->num) {
      shard_interp_error(p, op, "grad_output of 'stablehlo.batch_norm_grad' must have the operand's shape");
    } else if (go && g && S_bn_vectors(p, op, v, 3, nf) && S_bn_vectors(p, op, outs, 2, nf)) {
      /* s1: sum of grad_output, s2: sum of grad_output * centered operand */
      for (int64_t i = 0; i < x->num; i++) {
        int64_t c = S_feature(x, fi, i);
        s1[c] += g->floats[i];
        s2[c] += g->floats[i] * (x->floats[i] - v[1]->floats[c]);
      }
      for (int64_t i = 0; i < x->num; i++) {
        int64_t c = S_feature(x, fi, i);
        double ve = v[2]->floats[c] + eps, centered = x->floats[i] - v[1]->floats[c];
        double i6 = g->floats[i] * (double)per - s1[c] - s2[c] * centered / ve;
        shard_interp_set_f(gx, i, v[0]->floats[c] / sqrt(ve) / (double)per * i6);
      }
      for (int64_t c = 0; c < nf; c++) {
        shard_interp_set_f(gs, c, s2[c] / sqrt(v[2]->floats[c] + eps));
        shard_interp_set_f(go, c, s1[c]);
      }
      shard_interp_bind(f, &op->results[0], gx);
      shard_interp_bind(f, &op->results[1], gs);
      shard_interp_bind(f, &op->results[2], go);
      ok = true;
    }
  }
  free(mean);
  return ok;
}

/* ---- rng_bit_generator ------------------------------------------------------------------ */

static uint32_t S_rotl(uint32_t x, unsigned r) { return (x << r) | (x >> (32 - r)); }

/* Threefry-2x32 with 20 rounds (Random123's, as XLA's prng.cc). */
static void S_threefry(uint32_t k0, uint32_t k1, uint32_t *x0, uint32_t *x1) {
  static const unsigned rot[2][4] = {{13, 15, 26, 6}, {17, 29, 16, 24}};
  uint32_t ks[3] = {k0, k1, k0 ^ k1 ^ UINT32_C(0x1BD11BDA)};
  uint32_t a = *x0 + ks[0], b = *x1 + ks[1];
  for (unsigned blk = 0; blk < 5; blk++) {
    for (unsigned r = 0; r < 4; r++) {
      a += b;
      b = S_rotl(b, rot[blk % 2][r]);
      b ^= a;
    }
    a += ks[(blk + 1) % 3];
    b += ks[(blk + 2) % 3] + blk + 1;
  }
  *x0 = a;
  *x1 = b;
}

/* Philox-4x32 with 10 rounds (Random123's, as XLA's prng.cc). */
static void S_philox(uint32_t k0, uint32_t k1, uint32_t x[4]) {
  for (unsigned round = 0; round < 10; round++) {
    uint64_t p0 = (uint64_t)x[0] * UINT32_C(0xD2511F53), p1 = (uint64_t)x[2] * UINT32_C(0xCD9E8D57);
    uint32_t y0 = (uint32_t)(p1 >> 32) ^ x[1] ^ k0, y2 = (uint32_t)(p0 >> 32) ^ x[3] ^ k1;
    x[0] = y0;
    x[1] = (uint32_t)p1;
    x[2] = y2;
    x[3] = (uint32_t)p0;
    k0 += UINT32_C(0x9E3779B9);
    k1 += UINT32_C(0xBB67AE85);
  }
}

/* XLA's RngBitGenerator (rng_bit_generator_expander.cc and prng.cc), which
 * stablehlo-translate does not run at all ("can be decomposed"); the spec
 * leaves the bits to the implementation, so XLA's are the ones to match.
 * key = state[0].
 * THREE_FRY: counter = state[1]; element i of a 64-bit output is
 *   threefry(counter + i) joined low word first; a 32-bit output is made of
 *   the two words of blocks over a half shape (see below); the counter
 *   advances by the number of blocks.
 * PHILOX: a 128-bit counter (state[1] low, state[2] high; of a u64[2] state
 *   state[1] low and the key high, and only its low half is kept); block j
 *   is philox(counter + j) as four words, given out round-robin: a 32-bit
 *   output's element 4j + w is word w, a 64-bit output's element 2j + w is
 *   words 2w and 2w + 1 joined low first; the counter advances by the number
 *   of blocks.
 * Narrower integers are the low bits of a 32-bit output of their shape. */
static bool S_rng_bit_generator(interp_proc *p, interp_frame *f, shard_op *op) {
  shard_tensor *st = shard_interp_operand(p, f, op, 0);
  shard_tensor *ns = st ? shard_interp_result(p, op, 0) : NULL, *out = ns ? shard_interp_result(p, op, 1) : NULL;
  if (!out) return false;
  int alg = shard_op_enum(op, "rng_algorithm", SHARD_SHLO_RNG_ALGORITHM);
  const char *an = alg >= 0 ? shard_shlo_enum_name(SHARD_SHLO_RNG_ALGORITHM, (uint32_t)alg) : NULL;
  bool philox = an && !strcmp(an, "PHILOX");
  if (an && !strcmp(an, "DEFAULT"))
    return shard_interp_error(p, op,
                              "'stablehlo.rng_bit_generator' with DEFAULT: the spec leaves that algorithm to the "
                              "implementation (XLA's CPU and GPU backends use PHILOX); write THREE_FRY or PHILOX");
  if (!an || (!philox && strcmp(an, "THREE_FRY") != 0))
    return shard_interp_error(
        p, op, "the interpreter supports 'stablehlo.rng_bit_generator' with THREE_FRY and PHILOX, not %s",
        an ? an : "an unknown algorithm");
  if (st->kind != SHARD_ELEM_UINT || st->bits != 64 || ns->num != st->num || st->num < 2 || (philox && st->num > 3) ||
      (!philox && st->num != 2))
    return shard_interp_error(p, op, "%s needs a state of %s ui64, not %s", an, philox ? "two or three" : "two",
                              st->type->text);
  if ((out->kind != SHARD_ELEM_UINT && out->kind != SHARD_ELEM_SINT) || out->bits < 8 || out->bits > 64 ||
      (out->bits & (out->bits - 1)))
    return shard_interp_error(p, op, "the interpreter supports %s outputs of 8- to 64-bit integers, not %s", an,
                              out->type->elem);
  uint64_t key = (uint64_t)st->ints[0];
  uint32_t k0 = (uint32_t)key, k1 = (uint32_t)(key >> 32);
  for (int64_t i = 0; i < st->num; i++) ns->ints[i] = st->ints[i];
  if (!philox && out->bits == 64) {
    uint64_t counter = (uint64_t)st->ints[1];
    for (int64_t i = 0; i < out->num; i++) {
      uint64_t in = counter + (uint64_t)i;
      uint32_t x0 = (uint32_t)in, x1 = (uint32_t)(in >> 32);
      S_threefry(k0, k1, &x0, &x1);
      shard_interp_set_i(out, i, (int64_t)(((uint64_t)x1 << 32) | x0));
    }
    ns->ints[1] = (int64_t)(counter + (uint64_t)out->num);
  } else if (!philox) {
    /* XLA's SplitShapeIntoHalves: the first even dimension (else the first
     * largest one) is halved, rounding up; block h of that half shape
     * (row-major) gives the elements 2a and 2a + 1 along the split
     * dimension, a being h's coordinate there */
    const shard_type *ty = out->type;
    uint32_t rank = ty->rank;
    int64_t split = -1;
    for (uint32_t d = 0; d < rank && split < 0; d++)
      if (ty->dims[d] % 2 == 0) split = d;
    bool any_even = split >= 0;
    for (uint32_t d = 0; d < rank && !any_even; d++)
      if (split < 0 || ty->dims[d] > ty->dims[split]) split = d;
    int64_t *half = INTERP_ARRAY(p, int64_t, rank), *idx = INTERP_ARRAY(p, int64_t, rank);
    int64_t *strides = INTERP_ARRAY(p, int64_t, rank);
    shard_interp_strides(rank, ty->dims, strides);
    int64_t blocks = 1;
    for (uint32_t d = 0; d < rank; d++) {
      half[d] = (int64_t)d == split ? (ty->dims[d] + 1) / 2 : ty->dims[d];
      blocks *= half[d];
    }
    uint64_t counter = (uint64_t)st->ints[1];
    for (int64_t h = 0; h < blocks; h++) {
      if (h) shard_interp_next_index(rank, half, idx);
      uint64_t in = counter + (uint64_t)h;
      uint32_t x[2] = {(uint32_t)in, (uint32_t)(in >> 32)};
      S_threefry(k0, k1, &x[0], &x[1]);
      int64_t base = 0;
      for (uint32_t d = 0; d < rank; d++)
        if ((int64_t)d != split) base += idx[d] * strides[d];
      for (int64_t b = 0; b < 2; b++) {
        if (rank == 0) {
          if (b == 0) shard_interp_set_i(out, 0, (int64_t)x[0]);
          continue;
        }
        int64_t c = 2 * idx[split] + b;
        if (c < ty->dims[split]) shard_interp_set_i(out, base + c * strides[split], (int64_t)x[b]);
      }
    }
    ns->ints[1] = (int64_t)(counter + (uint64_t)blocks);
  } else {
    uint64_t lo = (uint64_t)st->ints[1], hi = st->num >= 3 ? (uint64_t)st->ints[2] : key;
    int64_t per = out->bits == 64 ? 2 : 4; /* elements per block */
    int64_t blocks = (out->num + per - 1) / per;
    for (int64_t j = 0; j < blocks; j++) {
      uint64_t clo = lo + (uint64_t)j, chi = hi + (clo < lo ? 1 : 0);
      uint32_t x[4] = {(uint32_t)clo, (uint32_t)(clo >> 32), (uint32_t)chi, (uint32_t)(chi >> 32)};
      S_philox(k0, k1, x);
      for (int64_t w = 0; w < per && j * per + w < out->num; w++) {
        uint64_t v = per == 2 ? ((uint64_t)x[2 * w + 1] << 32) | x[2 * w] : x[w];
        shard_interp_set_i(out, j * per + w, (int64_t)v);
      }
    }
    uint64_t nlo = lo + (uint64_t)blocks, nhi = hi + (nlo < lo ? 1 : 0);
    ns->ints[1] = (int64_t)nlo;
    if (st->num >= 3) ns->ints[2] = (int64_t)nhi;
  }
  shard_interp_bind(f, &op->results[0], ns);
  shard_interp_bind(f, &op->results[1], out);
  return true;
}

/* The reference interpreter's message for the ops it leaves to a
 * decomposition (stablehlo/reference/Ops.cpp, failOnDecomposableOp). */
static bool S_decomposable(interp_proc *p, const shard_op *op) {
  return shard_interp_error(p, op,
                            "Operation %s is unsupported at the moment. However, this operation can be decomposed into "
                            "supported operations, so it is possible to transform it into supported form as a "
                            "workaround. Visit https://github.com/openxla/stablehlo/issues/1571 to learn more about "
                            "the workaround and the roadmap for supporting this operation.",
                            op->name);
}

/* ---- dispatch ---------------------------------------------------------------------------- */

bool shard_interp_exec_more_op(interp_proc *p, interp_frame *f, shard_op *op, bool *handled) {
  if (strncmp(op->name, "stablehlo.", 10) != 0) return true;
  const char *n = op->name + 10;
  *handled = true;
  /* outfeed: the values leave the program (the reference interpreter keeps
   * them in a queue nothing reads); what remains is the token */
  if (!strcmp(n, "after_all") || !strcmp(n, "create_token") || !strcmp(n, "outfeed")) return S_token(p, f, op);
  if (!strcmp(n, "tuple")) return S_tuple(p, f, op);
  if (!strcmp(n, "get_tuple_element")) return S_get_tuple_element(p, f, op);
  if (!strcmp(n, "bitcast_convert")) return S_bitcast_convert(p, f, op);
  if (!strcmp(n, "reduce_precision")) return S_reduce_precision(p, f, op);
  if (!strcmp(n, "composite")) return S_composite(p, f, op);
  if (!strcmp(n, "triangular_solve")) return S_triangular_solve(p, f, op);
  if (!strcmp(n, "cholesky")) return S_cholesky(p, f, op);
  if (!strcmp(n, "rng_bit_generator")) return S_rng_bit_generator(p, f, op);
  /* stablehlo.rng (UNIFORM, NORMAL): its values are the implementation's,
   * and the reference interpreter rejects it */
  if (!strcmp(n, "rng")) return S_decomposable(p, op);
  if (!strncmp(n, "batch_norm_", 11)) return S_batch_norm(p, f, op, n);
  if (!strncmp(n, "dynamic_", 8) && strcmp(n, "dynamic_slice") != 0 && strcmp(n, "dynamic_update_slice") != 0)
    return S_dynamic(p, f, op, n);
  if (!strcmp(n, "custom_call")) {
    const shard_attr *t = shard_op_attr(op, "call_target_name");
    if (t && t->kind == SHARD_ATTR_STRING && t->u.str.len > 6 && !memcmp(t->u.str.data, "check.", 6)) {
      *handled = false; /* the check conventions are interp.c's */
      return true;
    }
    if (t && t->kind == SHARD_ATTR_STRING)
      return shard_interp_error(p, op, "the interpreter does not support custom_call @%.*s", (int)t->u.str.len,
                                t->u.str.data);
    return shard_interp_error(p, op, "'stablehlo.custom_call' needs a call_target_name");
  }
  *handled = false;
  return true;
}
