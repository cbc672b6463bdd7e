/* The float formats of the StableHLO spec: their names, encodings, rounding
 * and the distance in units in the last place that check ops count
 * tolerances in.
 *
 * A format is a sign bit (all but f8E8M0FNU), E exponent bits with a bias,
 * and M fraction bits; exponent 0 is subnormal (when M > 0). Formats differ
 * in what their special encodings mean, as MLIR's APFloat defines them:
 *   - IEEE (f64, f32, tf32, f16, bf16, f8E5M2, f8E4M3, f8E3M4): the top
 *     exponent holds infinities and NaNs;
 *   - NaN-only, all-ones NaN (f8E4M3FN, f8E8M0FNU): no infinity, the
 *     all-ones exponent and fraction is NaN, every other encoding finite;
 *   - NaN-only, negative-zero NaN (the FNUZ formats): 0x80 is the one NaN,
 *     there is no -0 and no infinity;
 *   - finite-only (f6E2M3FN, f6E3M2FN, f4E2M1FN): no NaN, no infinity.
 * Rounding is to nearest, ties to even, with an unbounded exponent first;
 * a result past the largest finite value overflows to infinity, NaN or the
 * largest finite value by those kinds. Rounding a double (53 bits) result of
 * one +, -, *, / or sqrt to a format of at most 24 bits gives the result of
 * the operation in that format (more than 2p+2 bits), so computing in double
 * and rounding is exact for the narrow formats. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "interp/interp.h"
#include "support/buf.h"

typedef enum { NF_IEEE, NF_NAN_ALL_ONES, NF_NAN_NEG_ZERO, NF_FINITE } nonfinite_kind;

typedef struct float_info {
  const char *name;
  unsigned width, exp_bits, frac_bits;
  int bias;
  nonfinite_kind nonfinite;
  bool has_sign;
  double max_finite; /* filled from the encoding on first use */
} float_info;

static const float_info S_info[SHARD_FLOAT_NUM_FORMATS] = {
    [SHARD_FLOAT_F64] = {"f64", 64, 11, 52, 1023, NF_IEEE, true, 0},
    [SHARD_FLOAT_F32] = {"f32", 32, 8, 23, 127, NF_IEEE, true, 0},
    [SHARD_FLOAT_TF32] = {"tf32", 19, 8, 10, 127, NF_IEEE, true, 0},
    [SHARD_FLOAT_F16] = {"f16", 16, 5, 10, 15, NF_IEEE, true, 0},
    [SHARD_FLOAT_BF16] = {"bf16", 16, 8, 7, 127, NF_IEEE, true, 0},
    [SHARD_FLOAT_F8E5M2] = {"f8E5M2", 8, 5, 2, 15, NF_IEEE, true, 0},
    [SHARD_FLOAT_F8E4M3] = {"f8E4M3", 8, 4, 3, 7, NF_IEEE, true, 0},
    [SHARD_FLOAT_F8E3M4] = {"f8E3M4", 8, 3, 4, 3, NF_IEEE, true, 0},
    [SHARD_FLOAT_F8E4M3FN] = {"f8E4M3FN", 8, 4, 3, 7, NF_NAN_ALL_ONES, true, 0},
    [SHARD_FLOAT_F8E5M2FNUZ] = {"f8E5M2FNUZ", 8, 5, 2, 16, NF_NAN_NEG_ZERO, true, 0},
    [SHARD_FLOAT_F8E4M3FNUZ] = {"f8E4M3FNUZ", 8, 4, 3, 8, NF_NAN_NEG_ZERO, true, 0},
    [SHARD_FLOAT_F8E4M3B11FNUZ] = {"f8E4M3B11FNUZ", 8, 4, 3, 11, NF_NAN_NEG_ZERO, true, 0},
    [SHARD_FLOAT_F8E8M0FNU] = {"f8E8M0FNU", 8, 8, 0, 127, NF_NAN_ALL_ONES, false, 0},
    [SHARD_FLOAT_F6E2M3FN] = {"f6E2M3FN", 6, 2, 3, 1, NF_FINITE, true, 0},
    [SHARD_FLOAT_F6E3M2FN] = {"f6E3M2FN", 6, 3, 2, 3, NF_FINITE, true, 0},
    [SHARD_FLOAT_F4E2M1FN] = {"f4E2M1FN", 4, 2, 1, 1, NF_FINITE, true, 0},
};

shard_float_fmt shard_float_format(const char *elem) {
  if (!elem) return SHARD_FLOAT_NONE;
  for (int f = 1; f < SHARD_FLOAT_NUM_FORMATS; f++)
    if (strcmp(elem, S_info[f].name) == 0) return (shard_float_fmt)f;
  return SHARD_FLOAT_NONE;
}

unsigned shard_float_width(shard_float_fmt fmt) {
  return fmt > SHARD_FLOAT_NONE && fmt < SHARD_FLOAT_NUM_FORMATS ? S_info[fmt].width : 0;
}

/* The largest finite encoding's exponent and fraction fields. */
static void S_max_fields(const float_info *fi, uint64_t *e, uint64_t *m) {
  uint64_t emask = (UINT64_C(1) << fi->exp_bits) - 1, mmask = (UINT64_C(1) << fi->frac_bits) - 1;
  switch (fi->nonfinite) {
  case NF_IEEE: *e = emask - 1, *m = mmask; break;
  case NF_NAN_ALL_ONES:
    if (fi->frac_bits == 0) *e = emask - 1, *m = 0;
    else *e = emask, *m = mmask - 1;
    break;
  default: *e = emask, *m = mmask; break;
  }
}

/* |value| of exponent and fraction fields (no special encodings). */
static double S_field_value(const float_info *fi, uint64_t e, uint64_t m) {
  if (e == 0 && fi->frac_bits > 0) return ldexp((double)m, 1 - fi->bias - (int)fi->frac_bits);
  return ldexp((double)(m + (UINT64_C(1) << fi->frac_bits)), (int)e - fi->bias - (int)fi->frac_bits);
}

static double S_max_finite(const float_info *fi) {
  uint64_t e, m;
  S_max_fields(fi, &e, &m);
  return S_field_value(fi, e, m);
}

double shard_float_decode(uint64_t bits, shard_float_fmt fmt) {
  if (fmt == SHARD_FLOAT_F64) {
    double d;
    memcpy(&d, &bits, 8);
    return d;
  }
  if (fmt == SHARD_FLOAT_F32) {
    uint32_t w = (uint32_t)bits;
    float f;
    memcpy(&f, &w, 4);
    return f;
  }
  if (fmt <= SHARD_FLOAT_NONE || fmt >= SHARD_FLOAT_NUM_FORMATS) return NAN;
  const float_info *fi = &S_info[fmt];
  uint64_t body = fi->has_sign ? fi->width - 1 : fi->width;
  bits &= fi->width >= 64 ? ~UINT64_C(0) : (UINT64_C(1) << fi->width) - 1;
  bool neg = fi->has_sign && (bits >> body) & 1;
  uint64_t emask = (UINT64_C(1) << fi->exp_bits) - 1, mmask = (UINT64_C(1) << fi->frac_bits) - 1;
  uint64_t e = (bits >> fi->frac_bits) & emask, m = bits & mmask;
  switch (fi->nonfinite) {
  case NF_IEEE:
    if (e == emask) return m ? NAN : neg ? -INFINITY : INFINITY;
    break;
  case NF_NAN_ALL_ONES:
    if (e == emask && m == mmask) return NAN;
    break;
  case NF_NAN_NEG_ZERO:
    if (neg && e == 0 && m == 0) return NAN;
    break;
  case NF_FINITE: break;
  }
  double v = S_field_value(fi, e, m);
  return neg ? -v : v;
}

/* Rounds x (finite, nonzero) to `prec` significand bits with the smallest
 * normal exponent emin (below it the quantum stays 2^(emin - prec + 1)),
 * ties to even. x / q and the product are exact powers-of-two scalings. */
static double S_round_bits(double x, int prec, int emin) {
  int e;
  frexp(x, &e);
  int lead = e - 1;
  if (lead < emin) lead = emin;
  double q = ldexp(1.0, lead - (prec - 1));
  return nearbyint(x / q) * q;
}

double shard_float_round(double x, shard_float_fmt fmt) {
  if (fmt == SHARD_FLOAT_F64 || fmt <= SHARD_FLOAT_NONE || fmt >= SHARD_FLOAT_NUM_FORMATS) return x;
  if (fmt == SHARD_FLOAT_F32) return (double)(float)x;
  const float_info *fi = &S_info[fmt];
  double maxval = S_max_finite(fi);
  if (isnan(x)) return fi->nonfinite == NF_FINITE ? 0.0 : NAN; /* finite-only formats hold no NaN */
  if (!fi->has_sign && (x < 0 || (x == 0 && signbit(x)))) return x == 0 ? S_field_value(fi, 0, 0) : NAN;
  if (isinf(x)) {
    if (fi->nonfinite == NF_IEEE) return x;
    if (fi->nonfinite == NF_FINITE) return copysign(maxval, x);
    return NAN;
  }
  if (x == 0) {
    if (!fi->has_sign) return S_field_value(fi, 0, 0); /* no zero: the smallest value */
    return fi->nonfinite == NF_NAN_NEG_ZERO ? 0.0 : x;
  }
  int emin = fi->frac_bits > 0 ? 1 - fi->bias : -fi->bias;
  double r = S_round_bits(x, (int)fi->frac_bits + 1, emin);
  if (fabs(r) > maxval) {
    if (fi->nonfinite == NF_IEEE) return copysign(INFINITY, x);
    if (fi->nonfinite == NF_FINITE) return copysign(maxval, x);
    return NAN;
  }
  if (r == 0) {
    if (!fi->has_sign) return S_field_value(fi, 0, 0);
    return fi->nonfinite == NF_NAN_NEG_ZERO ? 0.0 : copysign(0.0, x);
  }
  return r;
}

uint64_t shard_float_encode(double x, shard_float_fmt fmt) {
  if (fmt == SHARD_FLOAT_F64) {
    uint64_t u;
    memcpy(&u, &x, 8);
    return u;
  }
  if (fmt == SHARD_FLOAT_F32) {
    float f = (float)x;
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
  }
  if (fmt <= SHARD_FLOAT_NONE || fmt >= SHARD_FLOAT_NUM_FORMATS) return 0;
  const float_info *fi = &S_info[fmt];
  unsigned body = fi->has_sign ? fi->width - 1 : fi->width;
  uint64_t emask = (UINT64_C(1) << fi->exp_bits) - 1, mmask = (UINT64_C(1) << fi->frac_bits) - 1;
  uint64_t sign = fi->has_sign && signbit(x) ? UINT64_C(1) << body : 0;
  x = shard_float_round(x, fmt);
  if (isnan(x)) {
    switch (fi->nonfinite) {
    case NF_IEEE: return (emask << fi->frac_bits) | (UINT64_C(1) << (fi->frac_bits - 1));
    case NF_NAN_ALL_ONES: return (emask << fi->frac_bits) | mmask;
    default: return UINT64_C(1) << body;
    }
  }
  if (isinf(x)) return sign | (emask << fi->frac_bits);
  double a = fabs(x);
  if (a == 0) return fi->nonfinite == NF_NAN_NEG_ZERO ? 0 : sign;
  int e2;
  frexp(a, &e2);
  int biased = e2 - 1 + fi->bias;
  uint64_t e, m;
  if (biased <= 0 && fi->frac_bits > 0) {
    e = 0;
    m = (uint64_t)ldexp(a, fi->bias - 1 + (int)fi->frac_bits);
  } else {
    e = (uint64_t)biased;
    m = (uint64_t)ldexp(a, (int)fi->frac_bits - (e2 - 1)) - (UINT64_C(1) << fi->frac_bits);
  }
  return (fi->nonfinite == NF_NAN_NEG_ZERO && !e && !m ? 0 : sign) | (e << fi->frac_bits) | m;
}

/* Encodings in value order: the magnitude's encoding, negated for negative
 * values (so +0 and -0 meet at 0). */
static int64_t S_ordinal(double x, shard_float_fmt fmt) {
  uint64_t u = shard_float_encode(fabs(x), fmt);
  return signbit(x) ? -(int64_t)u : (int64_t)u;
}

uint64_t shard_float_ulp_distance(double a, double b, shard_float_fmt fmt) {
  if (isnan(a) || isnan(b)) return isnan(a) && isnan(b) ? 0 : UINT64_MAX;
  if (fmt == SHARD_FLOAT_F64) {
    /* 64-bit ordinals may differ by more than INT64_MAX: go through unsigned */
    uint64_t ua, ub;
    memcpy(&ua, &a, 8), memcpy(&ub, &b, 8);
    ua = ua >> 63 ? (UINT64_C(1) << 63) - (ua & ~(UINT64_C(1) << 63)) : ua + (UINT64_C(1) << 63);
    ub = ub >> 63 ? (UINT64_C(1) << 63) - (ub & ~(UINT64_C(1) << 63)) : ub + (UINT64_C(1) << 63);
    return ua > ub ? ua - ub : ub - ua;
  }
  int64_t oa = S_ordinal(a, fmt), ob = S_ordinal(b, fmt);
  return oa > ob ? (uint64_t)(oa - ob) : (uint64_t)(ob - oa);
}

double shard_float_unit_roundoff(shard_float_fmt fmt) {
  if (fmt <= SHARD_FLOAT_NONE || fmt >= SHARD_FLOAT_NUM_FORMATS) return 0;
  return ldexp(1.0, -(int)S_info[fmt].frac_bits - 1);
}

double shard_float_max_finite(shard_float_fmt fmt) {
  if (fmt == SHARD_FLOAT_F64) return 1.7976931348623157e308;
  if (fmt <= SHARD_FLOAT_NONE || fmt >= SHARD_FLOAT_NUM_FORMATS) return 0;
  return S_max_finite(&S_info[fmt]);
}

double shard_float_round_bits(double x, int exp_bits, int mant_bits) {
  if (exp_bits < 1 || mant_bits < 0) return NAN;
  if (isnan(x) || isinf(x) || x == 0 || (exp_bits >= 11 && mant_bits >= 52)) return x;
  int bias = exp_bits >= 11 ? 1023 : (1 << (exp_bits - 1)) - 1;
  int emin = exp_bits >= 11 ? -1022 : 1 - bias;
  double r = S_round_bits(x, (mant_bits > 52 ? 52 : mant_bits) + 1, emin);
  /* the largest finite value: (2 - 2^-m) 2^bias */
  double maxval = exp_bits >= 11 ? 1.7976931348623157e308 : ldexp(2.0 - ldexp(1.0, -mant_bits), bias);
  if (fabs(r) > maxval) return copysign(INFINITY, x);
  return r == 0 ? copysign(0.0, x) : r;
}

bool shard_float_params(shard_float_fmt fmt, int *prec, int *emin) {
  if (fmt <= SHARD_FLOAT_NONE || fmt >= SHARD_FLOAT_NUM_FORMATS) return false;
  const float_info *fi = &S_info[fmt];
  *prec = (int)fi->frac_bits + 1;
  *emin = fi->frac_bits > 0 ? 1 - fi->bias : -fi->bias;
  return true;
}
