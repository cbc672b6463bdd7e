/* What stablehlo-translate --interpret prints and reads at its edges: the
 * returned values (Tensor::print, or a dense<...> attribute with
 * --interpreter-print-dense), with elements printed as MLIR prints
 * attributes, and the --args array of dense attributes.
 *
 * MLIR prints a float as APFloat::toString(6 digits, scientific, zeros
 * kept) when that reads back to the same value, else as toString's natural
 * form (2 + precision * 59 / 196 digits, plain up to three zeros of
 * padding), else in hex. toString is reproduced here digit for digit: the
 * exact significand times 5^-e as a big integer, truncated to the digits
 * the precision needs, then rounded half up. */
#include "interp/interp_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/parse.h"
#include "support/buf.h"

/* ---- a big unsigned integer, just enough for toString --------------------------- */

/* Limbs of 32 bits: a double's significand times 5^1074 (or shifted left
 * by 971) needs at most 2600 bits. */
#define BIG_LIMBS 96

typedef struct big {
  uint32_t v[BIG_LIMBS];
  int n; /* limbs in use; v[n-1] != 0 unless n == 0 */
} big;

static void S_big_set(big *b, uint64_t x) {
  memset(b, 0, sizeof *b);
  b->v[0] = (uint32_t)x;
  b->v[1] = (uint32_t)(x >> 32);
  b->n = b->v[1] ? 2 : b->v[0] ? 1 : 0;
}

static void S_big_mul(big *b, uint32_t m) {
  uint64_t carry = 0;
  for (int i = 0; i < b->n; i++) {
    uint64_t t = (uint64_t)b->v[i] * m + carry;
    b->v[i] = (uint32_t)t;
    carry = t >> 32;
  }
  if (carry && b->n < BIG_LIMBS) b->v[b->n++] = (uint32_t)carry;
}

static void S_big_shl(big *b, int bits) {
  for (; bits >= 32; bits -= 32) {
    memmove(b->v + 1, b->v, sizeof(uint32_t) * (BIG_LIMBS - 1));
    b->v[0] = 0;
    if (b->n && b->n < BIG_LIMBS) b->n++;
  }
  if (bits) {
    uint32_t carry = 0;
    for (int i = 0; i < b->n; i++) {
      uint32_t nv = (b->v[i] << bits) | carry;
      carry = b->v[i] >> (32 - bits);
      b->v[i] = nv;
    }
    if (carry && b->n < BIG_LIMBS) b->v[b->n++] = carry;
  }
}

/* b /= d; returns the remainder. */
static uint32_t S_big_div(big *b, uint32_t d) {
  uint64_t rem = 0;
  for (int i = b->n; i-- > 0;) {
    uint64_t cur = (rem << 32) | b->v[i];
    b->v[i] = (uint32_t)(cur / d);
    rem = cur % d;
  }
  while (b->n && !b->v[b->n - 1]) b->n--;
  return (uint32_t)rem;
}

static unsigned S_big_bits(const big *b) {
  if (!b->n) return 0;
  unsigned top = 0;
  for (uint32_t x = b->v[b->n - 1]; x; x >>= 1) top++;
  return (unsigned)(b->n - 1) * 32 + top;
}

/* ---- APFloat::toString ------------------------------------------------------------ */

/* Digits of x != 0 (finite) most significant first in digits[], their count
 * returned, with *exp such that |x| ~ digits * 10^exp, as toStringImpl
 * leaves them after both AdjustToPrecision steps. */
static int S_digits(double x, unsigned precision, char *digits, int *exp) {
  int e2;
  double f = frexp(fabs(x), &e2);
  uint64_t n = (uint64_t)ldexp(f, 53);
  int e = e2 - 53;
  while (!(n & 1)) n >>= 1, e++;
  big m;
  S_big_set(&m, n);
  int dexp = 0;
  if (e > 0) {
    S_big_shl(&m, e);
  } else if (e < 0) {
    for (int k = 0; k < -e; k++) S_big_mul(&m, 5);
    dexp = e;
  }
  /* AdjustToPrecision on the integer: drop (truncate) decimal digits
   * beyond what the precision needs */
  unsigned bits = S_big_bits(&m), required = (precision * 196 + 58) / 59;
  if (bits > required) {
    unsigned removable = (bits - required) * 59 / 196;
    dexp += (int)removable;
    for (; removable >= 9; removable -= 9) S_big_div(&m, 1000000000u);
    for (; removable > 0; removable--) S_big_div(&m, 10);
  }
  /* digits, least significant first, trailing zeros dropped */
  char rev[900];
  int nd = 0;
  bool trail = true;
  while (m.n && nd < (int)sizeof rev) {
    uint32_t d = S_big_div(&m, 10);
    if (trail && !d) {
      dexp++;
    } else {
      rev[nd++] = (char)('0' + d);
      trail = false;
    }
  }
  /* AdjustToPrecision on the digits: round half up */
  if (nd > (int)precision) {
    int first = nd - (int)precision;
    if (rev[first - 1] < '5') {
      while (first < nd && rev[first] == '0') first++;
    } else {
      int i = first;
      for (; i != nd; i++) {
        if (rev[i] == '9') {
          first++;
        } else {
          rev[i]++;
          break;
        }
      }
      if (first == nd) {
        dexp += first;
        rev[0] = '1';
        nd = 1;
        first = 0;
      }
    }
    if (first) {
      dexp += first;
      memmove(rev, rev + first, (size_t)(nd - first));
      nd -= first;
    }
  }
  for (int i = 0; i < nd; i++) digits[i] = rev[nd - 1 - i];
  digits[nd] = 0;
  *exp = dexp;
  return nd;
}

/* APFloat::toString(Str, precision, max_padding, truncate_zero) of a finite
 * value of a format with `prec` significand bits. */
static void S_to_string(shard_buf *b, double x, int prec, unsigned precision, unsigned max_padding,
                        bool truncate_zero) {
  if (signbit(x)) shard_buf_putc(b, '-');
  if (precision == 0) precision = 2 + (unsigned)prec * 59 / 196;
  if (x == 0) {
    if (!max_padding) {
      if (truncate_zero) {
        shard_buf_puts(b, "0.0E+0");
      } else {
        shard_buf_puts(b, "0.0");
        for (unsigned k = 1; k < precision; k++) shard_buf_putc(b, '0');
        shard_buf_puts(b, "e+00");
      }
    } else {
      shard_buf_putc(b, '0');
    }
    return;
  }
  char d[900];
  int exp;
  int nd = S_digits(x, precision, d, &exp);
  bool scientific;
  if (!max_padding) {
    scientific = true;
  } else if (exp >= 0) {
    scientific = (unsigned)exp > max_padding || (unsigned)(nd + exp) > precision;
  } else {
    int msd = exp + nd - 1;
    scientific = msd < 0 && (unsigned)-msd > max_padding;
  }
  if (scientific) {
    exp += nd - 1;
    shard_buf_putc(b, d[0]);
    shard_buf_putc(b, '.');
    if (nd == 1 && truncate_zero) shard_buf_putc(b, '0');
    else shard_buf_putn(b, d + 1, (size_t)(nd - 1));
    if (!truncate_zero && precision > (unsigned)(nd - 1))
      for (unsigned k = 0; k < precision - (unsigned)nd + 1; k++) shard_buf_putc(b, '0');
    shard_buf_putc(b, truncate_zero ? 'E' : 'e');
    shard_buf_putc(b, exp >= 0 ? '+' : '-');
    int ae = exp < 0 ? -exp : exp;
    if (!truncate_zero && ae < 10) shard_buf_putc(b, '0');
    shard_buf_printf(b, "%d", ae);
    return;
  }
  if (exp >= 0) {
    shard_buf_putn(b, d, (size_t)nd);
    for (int k = 0; k < exp; k++) shard_buf_putc(b, '0');
    return;
  }
  int whole = exp + nd;
  int i = 0;
  if (whole > 0) {
    shard_buf_putn(b, d, (size_t)whole);
    shard_buf_putc(b, '.');
    i = whole;
  } else {
    shard_buf_puts(b, "0.");
    for (int z = 0; z < -whole; z++) shard_buf_putc(b, '0');
  }
  shard_buf_putn(b, d + i, (size_t)(nd - i));
}

void shard_float_print(shard_buf *b, double x, shard_float_fmt fmt) {
  int prec = 53, emin = -1022;
  shard_float_params(fmt, &prec, &emin);
  if (isfinite(x)) {
    shard_buf s;
    shard_buf_init(&s);
    S_to_string(&s, x, prec, 6, 0, false);
    double back = fmt == SHARD_FLOAT_F32 ? (double)strtof(shard_buf_str(&s), NULL)
                                         : shard_float_round(strtod(shard_buf_str(&s), NULL), fmt);
    bool same = back == x && signbit(back) == signbit(x);
    if (!same) {
      shard_buf_clear(&s);
      S_to_string(&s, x, prec, 0, 3, true);
      same = strchr(shard_buf_str(&s), '.') != NULL;
    }
    if (same) {
      shard_buf_puts(b, shard_buf_str(&s));
      shard_buf_free(&s);
      return;
    }
    shard_buf_free(&s);
  }
  /* the encoding, as many hex digits as the format's bits need */
  int digits = ((int)shard_float_width(fmt) + 3) / 4;
  shard_buf_printf(b, "0x%0*llX", digits, (unsigned long long)shard_float_encode(x, fmt));
}

static void S_print_float(shard_buf *b, double x, const char *elem) {
  shard_float_print(b, x, shard_float_format(elem));
}

/* One element as MLIR prints it inside an attribute; complex numbers as
 * Element::print does ([re, im]) or, in a dense attribute, as (re,im). */
static void S_print_elem(shard_buf *b, const shard_tensor *t, int64_t i, bool dense) {
  if (t->kind == SHARD_ELEM_BOOL) {
    shard_buf_puts(b, t->ints[i] ? "true" : "false");
  } else if (t->kind == SHARD_ELEM_UINT) {
    shard_buf_printf(b, "%llu", (unsigned long long)t->ints[i] & (t->bits >= 64 ? ~0ull : (1ull << t->bits) - 1));
  } else if (t->kind == SHARD_ELEM_SINT) {
    shard_buf_put_i64(b, t->ints[i]);
  } else if (t->kind == SHARD_ELEM_COMPLEX) {
    const char *part = t->bits == 64 ? "f64" : "f32";
    shard_buf_putc(b, dense ? '(' : '[');
    S_print_float(b, t->floats[2 * i], part);
    shard_buf_puts(b, dense ? "," : ", ");
    S_print_float(b, t->floats[2 * i + 1], part);
    shard_buf_putc(b, dense ? ')' : ']');
  } else {
    S_print_float(b, t->floats[i], t->type->elem);
  }
}

static void S_newline_indent(shard_buf *b, int64_t n) {
  shard_buf_putc(b, '\n');
  for (int64_t k = 0; k < n; k++) shard_buf_puts(b, "  ");
}

/* Tensor::print's printHelper: one bracketed row per dimension. */
static void S_print_rows(shard_buf *b, const shard_tensor *t, uint32_t dim, int64_t *flat, int64_t indent, bool last) {
  uint32_t rank = t->type->rank;
  if (dim == rank) {
    S_print_elem(b, t, (*flat)++, false);
    if (!last) shard_buf_puts(b, ", ");
    return;
  }
  S_newline_indent(b, indent);
  shard_buf_putc(b, '[');
  int64_t n = t->type->dims[dim];
  for (int64_t k = 0; k < n; k++) S_print_rows(b, t, dim + 1, flat, indent + 1, k == n - 1);
  shard_buf_putc(b, ']');
  if (!last) shard_buf_putc(b, ',');
  else S_newline_indent(b, indent - 1);
}

static bool S_same_elem(const shard_tensor *t, int64_t i, int64_t j) {
  if (t->kind == SHARD_ELEM_COMPLEX) return !memcmp(&t->floats[2 * i], &t->floats[2 * j], 2 * sizeof(double));
  if (t->kind == SHARD_ELEM_FLOAT) return !memcmp(&t->floats[i], &t->floats[j], sizeof(double));
  return t->ints[i] == t->ints[j];
}

void shard_interp_print_value(shard_buf *b, const shard_tensor *t, bool dense) {
  if (!dense) {
    shard_buf_puts(b, t->type->text);
    shard_buf_puts(b, " {");
    int64_t flat = 0;
    S_print_rows(b, t, 0, &flat, 1, true);
    shard_buf_putc(b, '}');
    return;
  }
  shard_buf_puts(b, "dense<");
  bool splat = t->num > 0;
  for (int64_t i = 1; splat && i < t->num; i++) splat = S_same_elem(t, 0, i);
  if (splat || t->type->rank == 0) {
    if (t->num) S_print_elem(b, t, 0, true);
  } else if (t->num > 0) {
    uint32_t rank = t->type->rank;
    int64_t *idx = shard_xcalloc(rank + 1, sizeof *idx);
    for (int64_t i = 0; i < t->num; i++) {
      uint32_t open = 0, close = 0;
      for (uint32_t d = rank; d-- > 0 && idx[d] == 0;) open++;
      if (i) shard_buf_puts(b, ", ");
      for (uint32_t k = 0; k < open; k++) shard_buf_putc(b, '[');
      S_print_elem(b, t, i, true);
      for (uint32_t d = rank; d-- > 0 && idx[d] == t->type->dims[d] - 1;) close++;
      for (uint32_t k = 0; k < close; k++) shard_buf_putc(b, ']');
      shard_interp_next_index(rank, t->type->dims, idx);
    }
    free(idx);
  }
  shard_buf_puts(b, "> : ");
  shard_buf_puts(b, t->type->text);
}

/* ---- --args ------------------------------------------------------------------------ */

#define ARGS_NOT_ARRAY "expectected array attribute string for args, i.e. --args=[dense<1> : tensor<2xi32>, ...]"
#define ARGS_NOT_DENSE                                                                                                 \
  "expected dense elements attribute for args elements, i.e. --args=[dense<1> : tensor<2xi32>, ...]"

static void S_ignore_diag(void *ctx, const shard_diag *d) {
  (void)ctx;
  (void)d;
}

bool shard_interp_parse_args(shard_arena *a, const char *text, shard_tensor ***args, uint32_t *nargs, shard_buf *err) {
  /* the attribute parser reads attributes of ops: hand it one */
  char *wrapped = shard_arena_printf(a, "module attributes {args = %s} {}", text);
  shard_source src = {"--args", wrapped, strlen(wrapped), 0};
  shard_diag_engine de;
  shard_diag_init(&de, S_ignore_diag, NULL);
  shard_parse_options popts = {.allow_unregistered = false, .max_depth = 0};
  shard_module *m = shard_parse_module(&src, &popts, &de);
  const shard_attr *arr = m && !de.errors ? shard_op_attr(m->top, "args") : NULL;
  bool ok = arr && arr->kind == SHARD_ATTR_ARRAY;
  if (!ok) shard_buf_puts(err, ARGS_NOT_ARRAY);
  *nargs = ok ? arr->u.array.num : 0;
  *args = SHARD_NEW_ARRAY(a, shard_tensor *, *nargs + 1);
  for (uint32_t i = 0; ok && i < *nargs; i++) {
    const shard_attr *e = arr->u.array.elems[i];
    if (e->kind != SHARD_ATTR_DENSE || !e->u.dense.type || e->u.dense.type->kind != SHARD_TYPE_TENSOR) {
      shard_buf_puts(err, ARGS_NOT_DENSE);
      ok = false;
      break;
    }
    const shard_type *ty = e->u.dense.type;
    shard_type *own = shard_type_tensor(a, ty->rank, ty->dims, shard_arena_strdup(a, ty->elem), NULL);
    const char *why = NULL;
    if (!shard_tensor_from_dense(a, e->u.dense.payload, own, &(*args)[i], &why)) {
      shard_buf_printf(err, "--args element #%u (%s): %s", i, ty->text, why);
      ok = false;
    }
  }
  if (m) shard_module_free(m);
  return ok;
}
