/* Type builders and printing. Every type carries its canonical text, so
 * equality is a string comparison and printing is a copy. */
#include "ir/type.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool shard_type_equal(const shard_type *a, const shard_type *b) {
  if (a == b) return true;
  if (!a || !b) return false;
  return strcmp(a->text, b->text) == 0;
}

bool shard_type_is_static_tensor(const shard_type *t) {
  if (!t || t->kind != SHARD_TYPE_TENSOR) return false;
  for (uint32_t i = 0; i < t->rank; i++)
    if (t->dims[i] == SHARD_DYNAMIC_DIM) return false;
  return true;
}

int64_t shard_type_num_elements(const shard_type *t) {
  if (!shard_type_is_static_tensor(t)) return -1;
  int64_t n = 1;
  for (uint32_t i = 0; i < t->rank; i++) {
    if (t->dims[i] < 0) return -1;
    if (t->dims[i] && n > INT64_MAX / t->dims[i]) return -1;
    n *= t->dims[i];
  }
  return n;
}

unsigned shard_elem_bits(const char *elem) {
  if (!elem) return 0;
  if (strncmp(elem, "!quant.uniform<", 15) == 0) { /* the storage width: i8, si8, ui8, u8 */
    const char *p = elem + 15;
    while (*p == ' ') p++;
    if (*p == 'u' && isdigit((unsigned char)p[1])) return (unsigned)strtoul(p + 1, NULL, 10);
    return *p == 'i' || *p == 's' || *p == 'u' ? shard_elem_bits(p) : 0;
  }
  if (strncmp(elem, "complex<", 8) == 0) return 2 * shard_elem_bits(elem + 8);
  const char *p = elem;
  if (strncmp(p, "ui", 2) == 0) p += 2;
  else if (strncmp(p, "si", 2) == 0) p += 2;
  else if (*p == 'i' || *p == 'f') p += 1;
  else if (strncmp(p, "bf16", 4) == 0) return 16;
  else if (strncmp(p, "tf32", 4) == 0) return 32;
  else if (strncmp(p, "index", 5) == 0) return 64;
  else return 0;
  /* f8E4M3FN, f6E2M3FN, f4E2M1FN: the width is the one digit before the E
   * (f64 and f16 are not of this family) */
  if ((elem[1] == '8' || elem[1] == '6' || elem[1] == '4') && elem[0] == 'f' && elem[2] == 'E')
    return (unsigned)(elem[1] - '0');
  char *end;
  unsigned long bits = strtoul(p, &end, 10);
  if (end == p) return 0;
  return (unsigned)bits;
}

static void S_print_dims(shard_buf *b, uint32_t rank, const int64_t *dims) {
  for (uint32_t i = 0; i < rank; i++) {
    if (dims[i] == SHARD_DYNAMIC_DIM) {
      shard_buf_putc(b, '?');
    } else {
      shard_buf_put_i64(b, dims[i]);
    }
    shard_buf_putc(b, 'x');
  }
}

static const char *S_finish(shard_arena *a, shard_buf *b) {
  const char *s = shard_arena_strndup(a, shard_buf_str(b), b->len);
  shard_buf_free(b);
  return s;
}

static const shard_quant *S_quant_of(shard_arena *a, const char *elem);

shard_type *shard_type_tensor(shard_arena *a, uint32_t rank, const int64_t *dims, const char *elem,
                              const char *encoding) {
  shard_type *t = SHARD_NEW(a, shard_type);
  t->kind = SHARD_TYPE_TENSOR;
  t->rank = rank;
  t->dims = rank ? shard_arena_dup(a, dims, sizeof(int64_t) * rank) : NULL;
  t->elem = elem;
  t->encoding = encoding;
  t->quant = S_quant_of(a, elem);
  shard_buf b;
  shard_buf_init(&b);
  shard_buf_puts(&b, "tensor<");
  S_print_dims(&b, rank, dims);
  shard_buf_puts(&b, elem);
  if (encoding) {
    shard_buf_puts(&b, ", ");
    shard_buf_puts(&b, encoding);
  }
  shard_buf_putc(&b, '>');
  t->text = S_finish(a, &b);
  return t;
}

shard_type *shard_type_other(shard_arena *a, const char *text) {
  shard_type *t = SHARD_NEW(a, shard_type);
  t->kind = SHARD_TYPE_OTHER;
  t->text = text;
  if (strncmp(text, "tensor<*x", 9) == 0) {
    t->kind = SHARD_TYPE_UNRANKED_TENSOR;
    size_t n = strlen(text);
    t->elem = shard_arena_strndup(a, text + 9, n - 10);
  }
  return t;
}

shard_type *shard_type_tuple(shard_arena *a, shard_type **elems, uint32_t n) {
  shard_type *t = SHARD_NEW(a, shard_type);
  t->kind = SHARD_TYPE_TUPLE;
  t->inputs = n ? shard_arena_dup(a, elems, sizeof(*elems) * n) : NULL;
  t->num_inputs = n;
  shard_buf b;
  shard_buf_init(&b);
  shard_buf_puts(&b, "tuple<");
  for (uint32_t i = 0; i < n; i++) {
    if (i) shard_buf_puts(&b, ", ");
    shard_buf_puts(&b, elems[i]->text);
  }
  shard_buf_putc(&b, '>');
  t->text = S_finish(a, &b);
  return t;
}

shard_type *shard_type_function(shard_arena *a, shard_type **in, uint32_t nin, shard_type **out, uint32_t nout) {
  shard_type *t = SHARD_NEW(a, shard_type);
  t->kind = SHARD_TYPE_FUNCTION;
  t->inputs = nin ? shard_arena_dup(a, in, sizeof(*in) * nin) : NULL;
  t->num_inputs = nin;
  t->results = nout ? shard_arena_dup(a, out, sizeof(*out) * nout) : NULL;
  t->num_results = nout;
  shard_buf b;
  shard_buf_init(&b);
  shard_buf_putc(&b, '(');
  for (uint32_t i = 0; i < nin; i++) {
    if (i) shard_buf_puts(&b, ", ");
    shard_buf_puts(&b, in[i]->text);
  }
  shard_buf_puts(&b, ") -> ");
  bool paren = nout != 1 || out[0]->kind == SHARD_TYPE_FUNCTION;
  if (paren) shard_buf_putc(&b, '(');
  for (uint32_t i = 0; i < nout; i++) {
    if (i) shard_buf_puts(&b, ", ");
    shard_buf_puts(&b, out[i]->text);
  }
  if (paren) shard_buf_putc(&b, ')');
  t->text = S_finish(a, &b);
  return t;
}

shard_type *shard_type_with_dims(shard_arena *a, const shard_type *t, const int64_t *dims) {
  return shard_type_tensor(a, t->rank, dims, t->elem, t->encoding);
}

void shard_type_print(shard_buf *b, const shard_type *t) { shard_buf_puts(b, t->text); }

/* ---- quantized element types ------------------------------------------------ */

void shard_quant_storage_range(bool is_signed, unsigned bits, int64_t *min, int64_t *max) {
  if (is_signed) {
    *min = bits >= 64 ? INT64_MIN : -(INT64_C(1) << (bits - 1));
    *max = bits >= 64 ? INT64_MAX : (INT64_C(1) << (bits - 1)) - 1;
  } else {
    *min = 0;
    *max = bits >= 63 ? INT64_MAX : (INT64_C(1) << bits) - 1;
  }
}

typedef struct quant_cursor {
  const char *s;
  size_t n, i;
  const char *err;
  size_t err_off;
} quant_cursor;

static void S_q_ws(quant_cursor *c) {
  while (c->i < c->n && isspace((unsigned char)c->s[c->i])) c->i++;
}

static bool S_q_fail(quant_cursor *c, size_t at, const char *msg) {
  c->err = msg;
  c->err_off = at;
  return false;
}

/* Consumes `ch` after blanks. */
static bool S_q_accept(quant_cursor *c, char ch) {
  S_q_ws(c);
  if (c->i < c->n && c->s[c->i] == ch) return c->i++, true;
  return false;
}

static bool S_q_expect(quant_cursor *c, char ch, const char *msg) {
  if (S_q_accept(c, ch)) return true;
  return S_q_fail(c, c->i, msg);
}

/* A bare identifier [A-Za-z0-9_]+ at the cursor: its start and length. */
static size_t S_q_ident(quant_cursor *c, size_t *start) {
  S_q_ws(c);
  *start = c->i;
  while (c->i < c->n && (isalnum((unsigned char)c->s[c->i]) || c->s[c->i] == '_')) c->i++;
  return c->i - *start;
}

static bool S_q_int(quant_cursor *c, int64_t *out) {
  S_q_ws(c);
  size_t at = c->i;
  char buf[32];
  size_t k = 0;
  if (c->i < c->n && (c->s[c->i] == '-' || c->s[c->i] == '+')) buf[k++] = c->s[c->i++];
  while (c->i < c->n && isdigit((unsigned char)c->s[c->i]) && k < sizeof buf - 1) buf[k++] = c->s[c->i++];
  buf[k] = 0;
  if (k == 0 || !isdigit((unsigned char)buf[k - 1])) return S_q_fail(c, at, "expected integer value");
  if (c->i < c->n && isdigit((unsigned char)c->s[c->i])) return S_q_fail(c, at, "integer value too large");
  errno = 0;
  long long v = strtoll(buf, NULL, 10);
  if (errno) return S_q_fail(c, at, "integer value too large");
  *out = v;
  return true;
}

static bool S_q_float(quant_cursor *c, double *out, size_t *at) {
  S_q_ws(c);
  *at = c->i;
  char buf[64];
  size_t k = 0;
  while (c->i < c->n && k < sizeof buf - 1 &&
         (isalnum((unsigned char)c->s[c->i]) || c->s[c->i] == '.' || c->s[c->i] == '-' || c->s[c->i] == '+')) {
    /* a sign only starts the number or follows an exponent mark */
    char ch = c->s[c->i];
    if ((ch == '-' || ch == '+') && k && buf[k - 1] != 'e' && buf[k - 1] != 'E') break;
    buf[k++] = ch;
    c->i++;
  }
  buf[k] = 0;
  char *end;
  double v = k ? strtod(buf, &end) : 0;
  if (!k || *end || strpbrk(buf, "xX") ||
      !(isdigit((unsigned char)buf[0]) || ((buf[0] == '-' || buf[0] == '+') && isdigit((unsigned char)buf[1]))))
    return S_q_fail(c, *at, "expected floating point literal");
  *out = v;
  return true;
}

/* The smallest positive and largest finite value of the expressed types
 * shard's quantized types allow (MLIR's isScaleInExpressedTypeRange). */
static bool S_q_expressed_range(const char *name, size_t len, double *min, double *max) {
  static const struct {
    const char *name;
    double min, max;
  } types[] = {{"f16", 5.9604644775390625e-08, 65504.0},
               {"bf16", 9.183549615799121e-41, 3.3895313892515355e+38},
               {"f32", 1.401298464324817e-45, 3.4028234663852886e+38},
               {"f64", 4.9406564584124654e-324, 1.7976931348623157e+308}};
  for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
    if (strlen(types[i].name) == len && memcmp(types[i].name, name, len) == 0) {
      *min = types[i].min;
      *max = types[i].max;
      return true;
    }
  return false;
}

/* scale[:zero_point] */
static bool S_q_param(shard_arena *a, quant_cursor *c, const shard_quant *q, double smin, double smax, double *scale,
                      int64_t *zp) {
  size_t at;
  if (!S_q_float(c, scale, &at)) return false;
  if (!(*scale >= smin && *scale <= smax))
    return S_q_fail(c, at, shard_arena_printf(a, "scale %e out of expressed type range [%e, %e]", *scale, smin, smax));
  *zp = 0;
  S_q_ws(c);
  size_t zat = c->i;
  if (S_q_accept(c, ':')) {
    S_q_ws(c);
    zat = c->i;
    if (!S_q_int(c, zp)) return false;
  }
  if (*zp < q->storage_min || *zp > q->storage_max)
    return S_q_fail(c, zat,
                    shard_arena_printf(a,
                                       "zero point %" PRId64 " is outside the storage range [%" PRId64 ", %" PRId64 "]",
                                       *zp, q->storage_min, q->storage_max));
  return true;
}

bool shard_quant_parse(shard_arena *a, const char *text, size_t len, shard_quant *out, const char **err,
                       size_t *err_off) {
  quant_cursor c = {.s = text, .n = len};
  shard_quant q = {.axis = -1};
  double *scales = NULL;
  int64_t *zps = NULL;
  bool ok = false;
  if (len < 15 || memcmp(text, "!quant.uniform<", 15) != 0) {
    S_q_fail(&c, 0, "expected '!quant.uniform<'");
    goto done;
  }
  c.i = 15;
  /* storage type: i8, si8, ui8 (builtin integer types) or u8 */
  size_t st;
  size_t sl = S_q_ident(&c, &st);
  const char *sp = text + st, *digits = NULL;
  if (sl >= 2 && sp[0] == 'i') digits = sp + 1, q.is_signed = true;
  else if (sl >= 3 && sp[0] == 's' && sp[1] == 'i') digits = sp + 2, q.is_signed = true;
  else if (sl >= 3 && sp[0] == 'u' && sp[1] == 'i') digits = sp + 2;
  else if (sl >= 2 && sp[0] == 'u') digits = sp + 1;
  for (const char *d = digits; d && d < sp + sl; d++)
    if (!isdigit((unsigned char)*d)) digits = NULL;
  if (!digits) {
    S_q_fail(&c, st, "illegal quantized storage type alias");
    goto done;
  }
  unsigned long width = strtoul(digits, NULL, 10);
  if (sp + sl - digits > 3 || width == 0 || width > SHARD_QUANT_MAX_STORAGE_BITS) {
    S_q_fail(&c, st, shard_arena_printf(a, "illegal storage type size: %.*s", (int)(sp + sl - digits), digits));
    goto done;
  }
  q.storage_bits = (unsigned)width;
  int64_t dmin, dmax;
  shard_quant_storage_range(q.is_signed, q.storage_bits, &dmin, &dmax);
  q.storage_min = dmin;
  q.storage_max = dmax;
  if (S_q_accept(&c, '<')) {
    S_q_ws(&c);
    size_t min_at = c.i;
    if (!S_q_int(&c, &q.storage_min) || !S_q_expect(&c, ':', "expected ':'")) goto done;
    S_q_ws(&c);
    size_t max_at = c.i;
    if (!S_q_int(&c, &q.storage_max) || !S_q_expect(&c, '>', "expected '>'")) goto done;
    if (q.storage_min < dmin) {
      S_q_fail(&c, min_at, shard_arena_printf(a, "illegal storage type minimum: %" PRId64, q.storage_min));
      goto done;
    }
    if (q.storage_max > dmax) {
      S_q_fail(&c, max_at, shard_arena_printf(a, "illegal storage type maximum: %" PRId64, q.storage_max));
      goto done;
    }
    if (q.storage_min >= q.storage_max) {
      S_q_fail(&c, min_at,
               shard_arena_printf(a, "illegal storage min and storage max: (%" PRId64 ":%" PRId64 ")", q.storage_min,
                                  q.storage_max));
      goto done;
    }
  }
  /* expressed type */
  if (!S_q_expect(&c, ':', "expected ':'")) goto done;
  size_t et;
  size_t el = S_q_ident(&c, &et);
  double smin, smax;
  if (!S_q_expressed_range(text + et, el, &smin, &smax)) {
    S_q_fail(&c, et, "the expressed type of a quantized type must be f16, bf16, f32 or f64");
    goto done;
  }
  q.expressed = shard_arena_strndup(a, text + et, el);
  /* quantization dimension */
  bool per_axis = false;
  if (S_q_accept(&c, ':')) {
    S_q_ws(&c);
    size_t ax_at = c.i;
    if (c.i < c.n && c.s[c.i] == '{') {
      S_q_fail(&c, ax_at, "sub-channel quantized types are not supported");
      goto done;
    }
    if (!S_q_int(&c, &q.axis)) goto done;
    if (q.axis < 0 || q.axis > INT32_MAX) {
      S_q_fail(&c, ax_at, shard_arena_printf(a, "illegal quantized dimension: %" PRId64, q.axis));
      goto done;
    }
    per_axis = true;
  }
  if (!S_q_expect(&c, ',', "expected ','")) goto done;
  if (!per_axis) {
    scales = SHARD_NEW_ARRAY(a, double, 1);
    zps = SHARD_NEW_ARRAY(a, int64_t, 1);
    if (!S_q_param(a, &c, &q, smin, smax, &scales[0], &zps[0])) goto done;
    q.num_scales = 1;
  } else {
    if (!S_q_expect(&c, '{', "expected '{'")) goto done;
    uint32_t cap = 0;
    do {
      S_q_ws(&c);
      if (c.i < c.n && c.s[c.i] == '{') {
        S_q_fail(&c, c.i, "sub-channel quantized types are not supported");
        goto done;
      }
      if (q.num_scales == SHARD_QUANT_MAX_SCALES) {
        S_q_fail(&c, c.i,
                 shard_arena_printf(a, "a per-axis quantized type has more than %u scales", SHARD_QUANT_MAX_SCALES));
        goto done;
      }
      if (q.num_scales == cap) {
        uint32_t ncap = cap ? 2 * cap : 8;
        double *ns = SHARD_NEW_ARRAY(a, double, ncap);
        int64_t *nz = SHARD_NEW_ARRAY(a, int64_t, ncap);
        if (cap) {
          memcpy(ns, scales, sizeof(double) * cap);
          memcpy(nz, zps, sizeof(int64_t) * cap);
        }
        scales = ns, zps = nz, cap = ncap;
      }
      if (!S_q_param(a, &c, &q, smin, smax, &scales[q.num_scales], &zps[q.num_scales])) goto done;
      q.num_scales++;
    } while (S_q_accept(&c, ','));
    if (!S_q_expect(&c, '}', "expected '}'")) goto done;
  }
  if (!S_q_expect(&c, '>', "expected '>'")) goto done;
  S_q_ws(&c);
  if (c.i != c.n) {
    S_q_fail(&c, c.i, "unexpected text after the quantized type");
    goto done;
  }
  q.scales = scales;
  q.zero_points = zps;
  *out = q;
  ok = true;
done:
  if (!ok) {
    *err = c.err;
    *err_off = c.err_off;
  }
  return ok;
}

static void S_q_print_param(shard_buf *b, double scale, int64_t zp) {
  shard_buf_printf(b, "%e", scale);
  if (zp) shard_buf_printf(b, ":%" PRId64, zp);
}

void shard_quant_print(shard_buf *b, const shard_quant *q) {
  shard_buf_printf(b, "!quant.uniform<%s%u", q->is_signed ? "i" : "u", q->storage_bits);
  int64_t dmin, dmax;
  shard_quant_storage_range(q->is_signed, q->storage_bits, &dmin, &dmax);
  if (q->storage_min != dmin || q->storage_max != dmax)
    shard_buf_printf(b, "<%" PRId64 ":%" PRId64 ">", q->storage_min, q->storage_max);
  shard_buf_printf(b, ":%s", q->expressed);
  if (q->axis >= 0) {
    shard_buf_printf(b, ":%" PRId64 ", {", q->axis);
    for (uint32_t i = 0; i < q->num_scales; i++) {
      if (i) shard_buf_putc(b, ',');
      S_q_print_param(b, q->scales[i], q->zero_points[i]);
    }
    shard_buf_puts(b, "}>");
  } else {
    shard_buf_puts(b, ", ");
    S_q_print_param(b, q->scales[0], q->zero_points[0]);
    shard_buf_putc(b, '>');
  }
}

const char *shard_quant_check_shape(shard_arena *a, const shard_quant *q, uint32_t rank, const int64_t *dims) {
  if (q->axis < 0) return NULL;
  if (q->axis >= (int64_t)rank)
    return shard_arena_printf(
        a, "quantization dimension %" PRId64 " of a quantized element type is not less than the rank %u", q->axis,
        rank);
  int64_t d = dims[q->axis];
  if (d != SHARD_DYNAMIC_DIM && d != (int64_t)q->num_scales)
    return shard_arena_printf(a,
                              "dimension %" PRId64 " has size %" PRId64 " but the quantized element type has %u scales",
                              q->axis, d, q->num_scales);
  return NULL;
}

/* The quantized element type of a tensor built from its text: the parser
 * has reported malformed ones, so a failure here leaves the type opaque. */
static const shard_quant *S_quant_of(shard_arena *a, const char *elem) {
  if (!elem || strncmp(elem, "!quant.uniform<", 15) != 0) return NULL;
  shard_quant *q = SHARD_NEW(a, shard_quant);
  const char *err;
  size_t off;
  return shard_quant_parse(a, elem, strlen(elem), q, &err, &off) ? q : NULL;
}

const char *shard_quant_text_with_axis(shard_arena *a, const shard_quant *q, int64_t axis) {
  shard_quant c = *q;
  c.axis = axis;
  shard_buf b;
  shard_buf_init(&b);
  shard_quant_print(&b, &c);
  return S_finish(a, &b);
}
