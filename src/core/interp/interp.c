/* The interpreter's driver: tensors and their element formats, reading
 * dense<...> payloads, frames of SSA values, the block walker with the
 * control ops (func.call, stablehlo.while/if/case) and
 * interpreter.run_parallel. The data ops are in interp_ops.c, the check
 * dialect in interp_check.c, collectives and the device rendezvous in
 * interp_collectives.c.
 *
 * Execution order is program order inside a block; a terminator ends it. A
 * run_parallel starts one thread per program over a fresh world; its
 * results are copied into the caller's arena once every thread has joined. */
#include "interp/interp_internal.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support/buf.h"

static pthread_mutex_t S_diag_mu = PTHREAD_MUTEX_INITIALIZER;

/* ---- element formats ------------------------------------------------------ */

bool shard_elem_classify(const char *elem, shard_elem_kind *kind, unsigned *bits) {
  if (!elem) return false;
  if (strncmp(elem, "!quant.uniform<", 15) == 0) { /* held as its storage integers (interp_quant.c) */
    const char *s = elem + 15;
    *kind = s[0] == 'u' ? SHARD_ELEM_UINT : SHARD_ELEM_SINT;
    *bits = shard_elem_bits(elem);
    return *bits > 0;
  }
  if (strcmp(elem, "i1") == 0) return *kind = SHARD_ELEM_BOOL, *bits = 1, true;
  shard_float_fmt fmt = shard_float_format(elem);
  if (fmt != SHARD_FLOAT_NONE) return *kind = SHARD_ELEM_FLOAT, *bits = shard_float_width(fmt), true;
  if (strcmp(elem, "complex<f32>") == 0) return *kind = SHARD_ELEM_COMPLEX, *bits = 32, true;
  if (strcmp(elem, "complex<f64>") == 0) return *kind = SHARD_ELEM_COMPLEX, *bits = 64, true;
  const char *digits = NULL;
  if (elem[0] == 'i' || elem[0] == 's') digits = elem + (elem[0] == 's' ? 2 : 1), *kind = SHARD_ELEM_SINT;
  if (elem[0] == 'u' && elem[1] == 'i') digits = elem + 2, *kind = SHARD_ELEM_UINT;
  if (elem[0] == 's' && elem[1] != 'i') return false;
  if (!digits || !*digits) return false;
  char *end;
  long w = strtol(digits, &end, 10);
  if (*end || (w != 8 && w != 16 && w != 32 && w != 64 && w != 4 && w != 2)) return false;
  *bits = (unsigned)w;
  return true;
}

/* The format of a tensor's elements (of a complex number's parts). */
static shard_float_fmt S_fmt_of(const char *elem, shard_elem_kind kind, unsigned bits) {
  if (kind == SHARD_ELEM_COMPLEX) return bits == 64 ? SHARD_FLOAT_F64 : SHARD_FLOAT_F32;
  if (kind == SHARD_ELEM_FLOAT) return shard_float_format(elem);
  return SHARD_FLOAT_NONE;
}

double shard_elem_round_float(double x, unsigned bits, bool is_bf16) {
  if (bits == 64) return x;
  if (bits == 32) return (double)(float)x;
  return shard_float_round(x, is_bf16 ? SHARD_FLOAT_BF16 : SHARD_FLOAT_F16);
}

int64_t shard_elem_wrap_int(int64_t x, shard_elem_kind kind, unsigned bits) {
  if (kind == SHARD_ELEM_BOOL) return x != 0;
  if (bits >= 64) return x;
  uint64_t mask = (UINT64_C(1) << bits) - 1;
  uint64_t u = (uint64_t)x & mask;
  if (kind == SHARD_ELEM_SINT && (u >> (bits - 1)) & 1) u |= ~mask;
  return (int64_t)u;
}

void shard_interp_set_f(shard_tensor *t, int64_t i, double x) {
  if (t->kind == SHARD_ELEM_COMPLEX) {
    t->floats[2 * i] = shard_float_round(x, t->fmt);
    t->floats[2 * i + 1] = 0;
    return;
  }
  if (t->kind == SHARD_ELEM_FLOAT) {
    t->floats[i] = shard_float_round(x, t->fmt);
    return;
  }
  /* float -> integer conversion truncates toward zero */
  int64_t v;
  if (isnan(x)) v = 0;
  else if (t->kind == SHARD_ELEM_UINT && t->bits == 64 && x >= 9.2233720368547758e18)
    v = x >= 18446744073709551616.0 ? -1 : (int64_t)(uint64_t)x; /* ui64 above INT64_MAX */
  else if (x >= 9.2233720368547758e18) v = INT64_MAX;
  else if (x <= -9.2233720368547758e18) v = INT64_MIN;
  else v = (int64_t)x;
  t->ints[i] = shard_elem_wrap_int(v, t->kind, t->bits);
}

void shard_interp_set_i(shard_tensor *t, int64_t i, int64_t x) {
  if (t->kind == SHARD_ELEM_COMPLEX) shard_interp_set_f(t, i, (double)x);
  else if (t->kind == SHARD_ELEM_FLOAT) t->floats[i] = shard_float_round((double)x, t->fmt);
  else t->ints[i] = shard_elem_wrap_int(x, t->kind, t->bits);
}

shard_tensor *shard_tensor_new(shard_arena *a, shard_type *type) {
  shard_elem_kind kind;
  unsigned bits;
  if (!type || !shard_type_is_static_tensor(type) || !shard_elem_classify(type->elem, &kind, &bits) ||
      shard_type_num_elements(type) > SHARD_INTERP_MAX_ELEMENTS)
    return NULL;
  shard_tensor *t = SHARD_NEW(a, shard_tensor);
  t->type = type;
  t->kind = kind;
  t->bits = bits;
  t->fmt = S_fmt_of(type->elem, kind, bits);
  t->num = shard_type_num_elements(type);
  if (kind == SHARD_ELEM_COMPLEX) t->floats = SHARD_NEW_ARRAY(a, double, t->num ? 2 * t->num : 2);
  else if (kind == SHARD_ELEM_FLOAT) t->floats = SHARD_NEW_ARRAY(a, double, t->num ? t->num : 1);
  else t->ints = SHARD_NEW_ARRAY(a, int64_t, t->num ? t->num : 1);
  return t;
}

shard_tensor *shard_interp_tensor_copy(shard_arena *a, const shard_tensor *t) {
  if (t->type && t->type->kind != SHARD_TYPE_TENSOR) { /* a token or a tuple (interp_ops_more.c) */
    shard_tensor *c = SHARD_NEW(a, shard_tensor);
    *c = *t;
    if (t->elems) {
      c->elems = SHARD_NEW_ARRAY(a, shard_tensor *, t->num_elems + 1);
      for (uint32_t i = 0; i < t->num_elems; i++) c->elems[i] = shard_interp_tensor_copy(a, t->elems[i]);
    }
    return c;
  }
  shard_tensor *c = shard_tensor_new(a, t->type);
  c->sum_mag = t->sum_mag;
  c->sum_terms = t->sum_terms;
  c->sum_int = t->sum_int;
  c->bound = t->bound;
  if (t->kind == SHARD_ELEM_COMPLEX) memcpy(c->floats, t->floats, 2 * sizeof(double) * (size_t)t->num);
  else if (t->kind == SHARD_ELEM_FLOAT) memcpy(c->floats, t->floats, sizeof(double) * (size_t)t->num);
  else memcpy(c->ints, t->ints, sizeof(int64_t) * (size_t)t->num);
  return c;
}

/* ---- dense payloads ------------------------------------------------------- */

/* An element's encoding (a hex literal) as its value. */
static double S_float_bits(uint64_t bits, const shard_tensor *t) { return shard_float_decode(bits, t->fmt); }

/* One scalar of a payload into element i; advances *s. */
static bool S_read_scalar(const char **s, shard_tensor *t, int64_t i, const char **err) {
  const char *p = *s;
  char *end;
  if (strncmp(p, "true", 4) == 0) {
    shard_interp_set_i(t, i, 1);
    *s = p + 4;
    return true;
  }
  if (strncmp(p, "false", 5) == 0) {
    shard_interp_set_i(t, i, 0);
    *s = p + 5;
    return true;
  }
  if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
    errno = 0;
    uint64_t bits = strtoull(p, &end, 16);
    if (end == p + 2 || errno) return *err = "malformed hexadecimal element", false;
    if (t->kind == SHARD_ELEM_FLOAT) t->floats[i] = S_float_bits(bits, t);
    else shard_interp_set_i(t, i, (int64_t)bits);
    *s = end;
    return true;
  }
  if (t->kind == SHARD_ELEM_FLOAT) {
    /* f32 straight from the decimal text: through a double it could round twice */
    double d = t->fmt == SHARD_FLOAT_F32 ? (double)strtof(p, &end) : strtod(p, &end);
    if (end == p) return *err = "expected a number in the dense payload", false;
    shard_interp_set_f(t, i, d);
  } else {
    errno = 0;
    int64_t v;
    if (t->kind == SHARD_ELEM_UINT && p[0] != '-') v = (int64_t)strtoull(p, &end, 10);
    else v = strtoll(p, &end, 10);
    if (end == p) return *err = "expected an integer in the dense payload", false;
    if (*end == '.' || *end == 'e' || *end == 'E') return *err = "expected an integer in the dense payload", false;
    shard_interp_set_i(t, i, v);
  }
  *s = end;
  return true;
}

/* One complex element "(re, im)" into element i; advances *s. The parts
 * are read as real numbers of the part's format. */
static bool S_read_complex(const char **s, shard_tensor *t, int64_t i, const char **err) {
  const char *p = *s;
  if (*p != '(') return *err = "expected a complex element (re, im)", false;
  p++;
  shard_type part_type = *t->type;
  part_type.elem = t->bits == 64 ? "f64" : "f32";
  shard_tensor part = {.type = &part_type, .kind = SHARD_ELEM_FLOAT, .bits = t->bits, .fmt = t->fmt, .num = 1};
  double vals[2];
  for (int k = 0; k < 2; k++) {
    while (isspace((unsigned char)*p)) p++;
    part.floats = &vals[k];
    if (!S_read_scalar(&p, &part, 0, err)) return false;
    while (isspace((unsigned char)*p)) p++;
    if (*p != (k ? ')' : ',')) return *err = "expected a complex element (re, im)", false;
    p++;
  }
  t->floats[2 * i] = vals[0];
  t->floats[2 * i + 1] = vals[1];
  *s = p;
  return true;
}

/* The value of hex digit c (which isxdigit accepted). */
static unsigned S_hex_digit(char c) {
  return isdigit((unsigned char)c) ? (unsigned)(c - '0') : (unsigned)(tolower((unsigned char)c) - 'a' + 10);
}

/* Whole-buffer hex "0x0100000002000000", as MLIR stores dense elements:
 * little-endian elements of the storage width (the width rounded up to
 * whole bytes; complex numbers real part first), one element for a splat.
 * i1 is packed eight to a byte, first element in the lowest bit (MLIR's
 * layout; a buffer of one byte per element is read too). */
static bool S_read_hex_buffer(const char *p, shard_tensor *t, const char **err) {
  p += 3; /* "0x */
  size_t hexlen = 0;
  while (isxdigit((unsigned char)p[hexlen])) hexlen++;
  if (p[hexlen] != '"' || hexlen % 2) return *err = "malformed hexadecimal payload", false;
  size_t bytes = hexlen / 2;
#define HEX_BYTE(k) ((S_hex_digit(p[2 * (k)]) << 4) | S_hex_digit(p[2 * (k) + 1]))
  if (t->kind == SHARD_ELEM_BOOL) {
    size_t packed = ((size_t)t->num + 7) / 8;
    bool splat = bytes == 1 && (HEX_BYTE(0) == 0 || HEX_BYTE(0) == 0xff);
    if (splat) {
      for (int64_t i = 0; i < t->num; i++) t->ints[i] = HEX_BYTE(0) != 0;
    } else if (bytes == packed) {
      for (int64_t i = 0; i < t->num; i++) t->ints[i] = (HEX_BYTE((size_t)i / 8) >> (i % 8)) & 1;
    } else if (bytes == (size_t)t->num) {
      for (int64_t i = 0; i < t->num; i++) t->ints[i] = HEX_BYTE((size_t)i) != 0;
    } else {
      return *err = "hexadecimal payload has the wrong size", false;
    }
    return true;
  }
  size_t width = (t->bits + 7) / 8;
  size_t parts = t->kind == SHARD_ELEM_COMPLEX ? 2 : 1; /* real then imaginary */
  bool splat = bytes == width * parts;
  if (!splat && bytes != width * parts * (size_t)t->num) return *err = "hexadecimal payload has the wrong size", false;
  for (int64_t i = 0; i < t->num; i++) {
    for (size_t part = 0; part < parts; part++) {
      uint64_t v = 0;
      size_t base = (splat ? 0 : (size_t)i * width * parts) + part * width;
      for (size_t k = 0; k < width; k++) v |= (uint64_t)HEX_BYTE(base + k) << (8 * k);
      if (t->kind == SHARD_ELEM_COMPLEX) t->floats[2 * i + (int64_t)part] = S_float_bits(v, t);
      else if (t->kind == SHARD_ELEM_FLOAT) t->floats[i] = S_float_bits(v, t);
      else shard_interp_set_i(t, i, (int64_t)v);
    }
  }
#undef HEX_BYTE
  return true;
}

bool shard_tensor_from_dense(shard_arena *a, const char *payload, shard_type *type, shard_tensor **out,
                             const char **err) {
  shard_tensor *t = shard_tensor_new(a, type);
  if (!t) return *err = "unsupported element type, non-static shape or more elements than the interpreter holds", false;
  const char *p = payload;
  while (isspace((unsigned char)*p)) p++;
  if (p[0] == '"' && p[1] == '0' && p[2] == 'x') {
    if (!S_read_hex_buffer(p, t, err)) return false;
    *out = t;
    return true;
  }
  int64_t n = 0;
  while (*p) {
    if (*p == '[' || *p == ']' || *p == ',' || isspace((unsigned char)*p)) {
      p++;
      continue;
    }
    if (n >= t->num && t->num != 0) return *err = "too many elements in the dense payload", false;
    if (t->num == 0 && n > 0) return *err = "elements given for an empty tensor", false;
    if (t->num == 0) {
      /* a splat of a tensor without elements: read into a scratch element */
      shard_tensor one = *t;
      double fs[2];
      int64_t is[1];
      one.num = 1, one.floats = fs, one.ints = is;
      if (t->kind == SHARD_ELEM_COMPLEX ? !S_read_complex(&p, &one, 0, err) : !S_read_scalar(&p, &one, 0, err))
        return false;
    } else if (t->kind == SHARD_ELEM_COMPLEX) {
      if (!S_read_complex(&p, t, n, err)) return false;
    } else if (*p == '(') {
      return *err = "a complex element in a tensor of real numbers", false;
    } else if (!S_read_scalar(&p, t, n, err)) {
      return false;
    }
    n++;
  }
  if (n == 1 && t->num > 1) {
    for (int64_t i = 1; i < t->num; i++) interp_copy_elem(t, i, t, 0);
  } else if (n != t->num && !(n == 1 && t->num == 0)) {
    return *err = "the dense payload has the wrong number of elements", false;
  }
  *out = t;
  return true;
}

void shard_interp_print_elem(shard_buf *b, const shard_tensor *t, int64_t i) {
  if (t->kind == SHARD_ELEM_BOOL) shard_buf_puts(b, t->ints[i] ? "true" : "false");
  else if (t->kind == SHARD_ELEM_UINT) shard_buf_printf(b, "%llu", (unsigned long long)t->ints[i]);
  else if (t->kind == SHARD_ELEM_SINT) shard_buf_printf(b, "%lld", (long long)t->ints[i]);
  else if (t->kind == SHARD_ELEM_COMPLEX) shard_buf_printf(b, "(%.17g, %.17g)", t->floats[2 * i], t->floats[2 * i + 1]);
  else shard_buf_printf(b, "%.9g", t->floats[i]);
}

void shard_tensor_print(shard_buf *b, const shard_tensor *t) {
  uint32_t rank = t->type->rank;
  if (rank == 0) {
    shard_interp_print_elem(b, t, 0);
    return;
  }
  const int64_t *dims = t->type->dims;
  if (t->num == 0) {
    shard_buf_puts(b, "[]");
    return;
  }
  int64_t *idx = shard_xcalloc(rank, sizeof *idx);
  for (int64_t i = 0; i < t->num; i++) {
    /* open brackets for every trailing zero index */
    uint32_t open = 0;
    for (uint32_t d = rank; d-- > 0 && idx[d] == 0;) open++;
    if (i) shard_buf_puts(b, ", ");
    for (uint32_t k = 0; k < open; k++) shard_buf_putc(b, '[');
    shard_interp_print_elem(b, t, i);
    uint32_t close = 0;
    for (uint32_t d = rank; d-- > 0 && idx[d] == dims[d] - 1;) close++;
    for (uint32_t k = 0; k < close; k++) shard_buf_putc(b, ']');
    shard_interp_next_index(rank, dims, idx);
  }
  free(idx);
}

/* ---- index helpers and attributes ---------------------------------------- */

uint32_t shard_interp_op_rank(const shard_op *op) {
  uint32_t r = 0;
  for (uint32_t i = 0; i < op->num_operands; i++) {
    const shard_type *t = op->operands[i].value ? op->operands[i].value->type : NULL;
    if (t && t->kind == SHARD_TYPE_TENSOR && t->rank > r) r = t->rank;
  }
  for (uint32_t i = 0; i < op->num_results; i++) {
    const shard_type *t = op->results[i].type;
    if (t && t->kind == SHARD_TYPE_TENSOR && t->rank > r) r = t->rank;
  }
  return r;
}

int64_t shard_interp_strides(uint32_t rank, const int64_t *dims, int64_t *strides) {
  int64_t n = 1;
  for (uint32_t d = rank; d-- > 0;) {
    strides[d] = n;
    n *= dims[d];
  }
  return n;
}

bool shard_interp_next_index(uint32_t rank, const int64_t *dims, int64_t *idx) {
  for (uint32_t d = rank; d-- > 0;) {
    if (++idx[d] < dims[d]) return true;
    idx[d] = 0;
  }
  return false;
}

/* Reports `message` for p: held back in a multi-device world, else emitted. */
static void S_report(interp_proc *p, shard_span span, const char *message) {
  if (p->world->num_procs > 1) {
    interp_pending_error e = {span, shard_xstrndup(message, strlen(message))};
    SHARD_VEC_PUSH(p->pending, e);
    return;
  }
  pthread_mutex_lock(p->world->diag_mu);
  shard_error(p->world->de, span, "%s", message);
  pthread_mutex_unlock(p->world->diag_mu);
}

void shard_interp_report_pending(interp_proc *into, interp_proc *const *procs, int64_t n) {
  for (int64_t k = 0; k < n; k++) {
    interp_proc *q = procs[k];
    for (uint32_t i = 0; i < q->pending.len; i++) {
      S_report(into, q->pending.items[i].span, q->pending.items[i].message);
      free(q->pending.items[i].message);
    }
    SHARD_VEC_FREE(q->pending);
  }
}

bool shard_interp_error(interp_proc *p, const shard_op *op, const char *fmt, ...) {
  char msg[1024], located[1100];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  if (p->world->num_procs > 1)
    snprintf(located, sizeof located, "%s (on replica %lld, partition %lld)", msg, (long long)p->replica_id,
             (long long)p->partition_id);
  S_report(p, op ? op->span : shard_no_span, p->world->num_procs > 1 ? located : msg);
  p->failed = true;
  return false;
}

bool shard_interp_attr_int(interp_proc *p, const shard_op *op, const char *name, int64_t *out) {
  const shard_attr *a = shard_op_attr(op, name);
  if (!a || a->kind != SHARD_ATTR_INT)
    return shard_interp_error(p, op, "'%s' needs an integer attribute '%s'", op->name, name);
  *out = a->u.integer.value;
  return true;
}

bool shard_interp_attr_i64s(interp_proc *p, const shard_op *op, const char *name, int64_t *out, uint32_t *n,
                            uint32_t max) {
  const shard_attr *a = shard_op_attr(op, name);
  shard_i64s l;
  if (shard_attr_i64_list(a, &l) && shard_interp_list(&l, out, n, max)) return true;
  if (a && a->kind == SHARD_ATTR_DENSE && a->u.dense.type) {
    shard_arena *tmp = shard_arena_new();
    shard_tensor *t;
    const char *err;
    bool ok = shard_tensor_from_dense(tmp, a->u.dense.payload, a->u.dense.type, &t, &err) &&
              t->kind != SHARD_ELEM_FLOAT && t->num <= max;
    if (ok) {
      *n = (uint32_t)t->num;
      memcpy(out, t->ints, sizeof(int64_t) * *n);
    }
    shard_arena_free(tmp);
    if (ok) return true;
  }
  return shard_interp_error(p, op, "'%s' needs an integer array attribute '%s'", op->name, name);
}

bool shard_interp_list(const shard_i64s *l, int64_t *out, uint32_t *n, uint32_t max) {
  if (l->n > max) return false;
  if (l->n) memcpy(out, l->v, sizeof(int64_t) * l->n);
  *n = l->n;
  return true;
}

/* ---- frames ---------------------------------------------------------------- */

shard_tensor *shard_interp_lookup(interp_frame *f, const shard_value *v) {
  for (; f; f = f->parent) {
    shard_tensor *t = shard_ptrmap_get_ptr(&f->values, v);
    if (t) return t;
  }
  return NULL;
}

shard_tensor *shard_interp_operand(interp_proc *p, interp_frame *f, const shard_op *op, uint32_t i) {
  if (i >= op->num_operands) {
    shard_interp_error(p, op, "'%s' expects %u operands, has %u", op->name, i + 1, op->num_operands);
    return NULL;
  }
  shard_tensor *t = shard_interp_lookup(f, op->operands[i].value);
  if (!t) shard_interp_error(p, op, "operand #%u has no value", i);
  return t;
}

shard_tensor *shard_interp_result(interp_proc *p, const shard_op *op, uint32_t i) {
  if (i >= op->num_results) {
    shard_interp_error(p, op, "'%s' expects %u results, has %u", op->name, i + 1, op->num_results);
    return NULL;
  }
  return shard_interp_tensor_like(p, op->results[i].type, op);
}

void shard_interp_bind(interp_frame *f, const shard_value *v, shard_tensor *t) {
  shard_ptrmap_put_ptr(&f->values, v, t);
}

shard_tensor *shard_interp_tensor_like(interp_proc *p, shard_type *type, const shard_op *op) {
  shard_tensor *t = shard_tensor_new(p->arena, type);
  if (!t && type && shard_type_is_static_tensor(type) && shard_type_num_elements(type) > SHARD_INTERP_MAX_ELEMENTS)
    shard_interp_error(p, op, "a value of type %s has %lld elements, more than the interpreter holds (%lld)",
                       type->text, (long long)shard_type_num_elements(type), (long long)SHARD_INTERP_MAX_ELEMENTS);
  else if (!t) shard_interp_error(p, op, "the interpreter does not support values of type %s", type ? type->text : "?");
  return t;
}

shard_tensor *shard_interp_tensor_shape(interp_proc *p, const shard_tensor *elem_of, uint32_t rank,
                                        const int64_t *dims) {
  return shard_tensor_new(p->arena, shard_type_tensor(p->arena, rank, dims, elem_of->type->elem, NULL));
}

/* ---- the walker -------------------------------------------------------------- */

static bool S_exec(interp_proc *p, interp_frame *f, shard_op *op);

static bool S_is_terminator(const shard_op *op) {
  return strcmp(op->name, "func.return") == 0 || strcmp(op->name, "stablehlo.return") == 0 ||
         strcmp(op->name, "sdy.return") == 0 || strcmp(op->name, "return") == 0;
}

static bool S_run_block(interp_proc *p, interp_frame *f, shard_block *b, shard_tensor **results, uint32_t nresults) {
  for (shard_op *op = b->first; op; op = op->next) {
    if (S_is_terminator(op)) {
      if (op->num_operands != nresults)
        return shard_interp_error(p, op, "terminator returns %u values where %u are expected", op->num_operands,
                                  nresults);
      for (uint32_t i = 0; i < nresults; i++) {
        results[i] = shard_interp_lookup(f, op->operands[i].value);
        if (!results[i]) return shard_interp_error(p, op, "operand #%u has no value", i);
      }
      return true;
    }
    if (!S_exec(p, f, op)) return false;
  }
  if (nresults) return shard_interp_error(p, NULL, "block ended without a terminator");
  return true;
}

bool shard_interp_run_region(interp_proc *p, interp_frame *parent, shard_region *r, shard_tensor *const *args,
                             uint32_t nargs, shard_tensor **results, uint32_t nresults) {
  shard_block *b = r->first;
  if (!b) return shard_interp_error(p, r->parent, "empty region");
  if (b->num_args != nargs)
    return shard_interp_error(p, r->parent, "region takes %u arguments, %u given", b->num_args, nargs);
  /* A value whose shape is not the one the region declares would be indexed
   * out of bounds by the region's ops (a callee left global in a per-device
   * program, say): a located error instead. */
  for (uint32_t i = 0; i < nargs; i++) {
    const shard_type *want = b->args[i].type, *got = args[i] ? args[i]->type : NULL;
    if (!got || got == want || !want || want->kind != SHARD_TYPE_TENSOR || got->kind != SHARD_TYPE_TENSOR) continue;
    bool fits = got->rank == want->rank;
    for (uint32_t d = 0; fits && d < want->rank; d++)
      fits = want->dims[d] == SHARD_DYNAMIC_DIM || want->dims[d] == got->dims[d];
    if (!fits)
      return shard_interp_error(p, r->parent, "argument %u is a %s where the region takes a %s", i, got->text,
                                want->text);
  }
  interp_frame fr = {parent, {0}};
  for (uint32_t i = 0; i < nargs; i++) shard_interp_bind(&fr, &b->args[i], args[i]);
  bool ok = S_run_block(p, &fr, b, results, nresults);
  shard_ptrmap_release(&fr.values);
  return ok;
}

static bool interp_call_func(interp_proc *p, shard_op *func, shard_tensor *const *args, uint32_t nargs,
                             shard_tensor **results, uint32_t nresults, const shard_op *at) {
  if (!func->num_regions || !func->regions[0].first)
    return shard_interp_error(p, at, "cannot call a function without a body");
  shard_block *b = func->regions[0].first;
  for (uint32_t i = 0; i < nargs && i < b->num_args; i++)
    if (!shard_type_equal(b->args[i].type, args[i]->type))
      return shard_interp_error(p, at, "argument #%u has type %s where the callee expects %s", i, args[i]->type->text,
                                b->args[i].type->text);
  return shard_interp_run_region(p, NULL, &func->regions[0], args, nargs, results, nresults);
}

static shard_op *S_lookup_func(interp_proc *p, const shard_attr *ref) {
  if (!ref || ref->kind != SHARD_ATTR_SYMREF || ref->u.symref.num != 1) return NULL;
  shard_op *fn = shard_module_lookup_symbol(p->world->module, ref->u.symref.path[0]);
  return fn && strcmp(fn->name, "func.func") == 0 ? fn : NULL;
}

static uint32_t S_func_num_results(const shard_op *fn) {
  const shard_attr *ft = shard_op_attr(fn, "function_type");
  if (ft && ft->kind == SHARD_ATTR_TYPE && ft->u.type->kind == SHARD_TYPE_FUNCTION) return ft->u.type->num_results;
  return 0;
}

static bool S_operands(interp_proc *p, interp_frame *f, const shard_op *op, shard_tensor **out) {
  for (uint32_t i = 0; i < op->num_operands; i++) {
    out[i] = shard_interp_lookup(f, op->operands[i].value);
    if (!out[i]) return shard_interp_error(p, op, "operand #%u has no value (unsupported producer?)", i);
  }
  return true;
}

static bool S_bind_results(interp_proc *p, interp_frame *f, const shard_op *op, shard_tensor **res) {
  for (uint32_t i = 0; i < op->num_results; i++) {
    if (!shard_type_equal(res[i]->type, op->results[i].type))
      return shard_interp_error(p, op, "result #%u has type %s where the op declares %s", i, res[i]->type->text,
                                op->results[i].type->text);
    shard_interp_bind(f, &op->results[i], res[i]);
  }
  return true;
}

static bool S_exec_call(interp_proc *p, interp_frame *f, shard_op *op) {
  shard_op *fn = S_lookup_func(p, shard_op_attr(op, "callee"));
  if (!fn) return shard_interp_error(p, op, "callee is not a function of this module");
  shard_tensor **args = SHARD_NEW_ARRAY(p->arena, shard_tensor *, op->num_operands + 1);
  shard_tensor **res = SHARD_NEW_ARRAY(p->arena, shard_tensor *, op->num_results + 1);
  if (!S_operands(p, f, op, args)) return false;
  if (!interp_call_func(p, fn, args, op->num_operands, res, op->num_results, op)) return false;
  return S_bind_results(p, f, op, res);
}

/* The step budget is spent: an error at the innermost running loop (or at
 * the op, outside loops). */
static bool S_budget_spent(interp_proc *p, const shard_op *op) {
  return shard_interp_error(p, p->loop ? p->loop : op, "the interpreter stopped after %lld steps (--max-steps %lld)%s",
                            (long long)p->steps - 1, (long long)p->world->max_steps,
                            p->loop ? ": this loop may never end on these inputs" : "");
}

static bool S_scalar_true(const shard_tensor *t) {
  return t->kind == SHARD_ELEM_FLOAT ? t->floats[0] != 0 : t->ints[0] != 0;
}

/* stablehlo.while: cond region -> tensor<i1>, body region -> the carried
 * values. Each iteration allocates in a scratch arena and only the carried
 * values are copied on into the next one, so a long loop runs in the memory
 * of one iteration; the last values are copied into the process's arena.
 * Every iteration counts against the step budget, which reports the
 * innermost running loop. */
static bool S_exec_while(interp_proc *p, interp_frame *f, shard_op *op) {
  uint32_t n = op->num_operands;
  shard_tensor **cur = SHARD_NEW_ARRAY(p->arena, shard_tensor *, n + 1);
  if (!S_operands(p, f, op, cur)) return false;
  for (uint32_t i = 0; i < n; i++)
    if (!shard_type_equal(cur[i]->type, op->results[i].type))
      return shard_interp_error(p, op, "operand #%u has type %s where the op declares %s", i, cur[i]->type->text,
                                op->results[i].type->text);
  shard_arena *home = p->arena, *held = NULL; /* held: the arena of `cur` */
  const shard_op *outer_loop = p->loop;
  p->loop = op;
  bool ok = true;
  for (;;) {
    if (++p->steps > p->world->max_steps) {
      ok = S_budget_spent(p, op);
      break;
    }
    shard_arena *scratch = shard_arena_new();
    p->arena = scratch;
    shard_tensor *c;
    shard_tensor **next = SHARD_NEW_ARRAY(scratch, shard_tensor *, n + 1);
    ok = shard_interp_run_region(p, f, &op->regions[0], cur, n, &c, 1);
    bool more = ok && S_scalar_true(c);
    if (more) ok = shard_interp_run_region(p, f, &op->regions[1], cur, n, next, n);
    p->arena = home;
    if (!ok || !more) {
      shard_arena_free(scratch);
      break;
    }
    /* the carried values into an arena of their own; types from the op,
     * since a value's type may live in the scratch arena */
    shard_arena *keep = shard_arena_new();
    shard_tensor **kept = SHARD_NEW_ARRAY(keep, shard_tensor *, n + 1);
    for (uint32_t i = 0; i < n; i++) {
      if (!shard_type_equal(next[i]->type, op->results[i].type)) {
        ok = shard_interp_error(p, op, "the body returns %s for carried value #%u of type %s", next[i]->type->text, i,
                                op->results[i].type->text);
        break;
      }
      kept[i] = shard_interp_tensor_copy(keep, next[i]);
      kept[i]->type = op->results[i].type;
    }
    shard_arena_free(scratch);
    if (held) shard_arena_free(held);
    held = keep;
    cur = kept;
    if (!ok) break;
  }
  p->loop = outer_loop;
  if (ok) {
    shard_tensor **res = SHARD_NEW_ARRAY(home, shard_tensor *, n + 1);
    for (uint32_t i = 0; i < n; i++) {
      res[i] = shard_interp_tensor_copy(home, cur[i]);
      res[i]->type = op->results[i].type;
    }
    ok = S_bind_results(p, f, op, res);
  }
  if (held) shard_arena_free(held);
  return ok;
}

/* stablehlo.if (pred; true branch, false branch) and stablehlo.case (index;
 * branches, the last one taken for out-of-range indices). */
static bool S_exec_branch(interp_proc *p, interp_frame *f, shard_op *op) {
  shard_tensor *sel = shard_interp_lookup(f, op->operands[0].value);
  if (!sel) return shard_interp_error(p, op, "operand #0 has no value");
  uint32_t k;
  if (strcmp(op->name, "stablehlo.if") == 0) {
    k = S_scalar_true(sel) ? 0 : 1;
  } else {
    int64_t i = sel->ints[0];
    k = i < 0 || i >= (int64_t)op->num_regions ? op->num_regions - 1 : (uint32_t)i;
  }
  shard_tensor **res = SHARD_NEW_ARRAY(p->arena, shard_tensor *, op->num_results + 1);
  if (!shard_interp_run_region(p, f, &op->regions[k], NULL, 0, res, op->num_results)) return false;
  return S_bind_results(p, f, op, res);
}

/* ---- run_parallel -------------------------------------------------------------- */

typedef struct par_job {
  interp_proc proc;
  shard_op *func, *at;
  shard_tensor **args, **results;
  uint32_t nargs, nresults;
  pthread_t thread;
} par_job;

static void *S_par_main(void *arg) {
  par_job *j = arg;
  if (!interp_call_func(&j->proc, j->func, j->args, j->nargs, j->results, j->nresults, j->at)) j->proc.failed = true;
  shard_interp_proc_finish(&j->proc);
  return NULL;
}

// interpreter.run_parallel(inputs...) {programs = [[@f, ...], ...]}: one
// program per (replica, partition), inputs and results in that order.
static bool S_exec_run_parallel(interp_proc *p, interp_frame *f, shard_op *op) {
  const shard_attr *progs = shard_op_attr(op, "programs");
  if (!progs || progs->kind != SHARD_ATTR_ARRAY || progs->u.array.num == 0)
    return shard_interp_error(p, op, "run_parallel needs a 'programs' array of arrays of functions");
  int64_t replicas = progs->u.array.num, partitions = -1;
  for (uint32_t r = 0; r < progs->u.array.num; r++) {
    const shard_attr *row = progs->u.array.elems[r];
    if (row->kind != SHARD_ATTR_ARRAY) return shard_interp_error(p, op, "'programs' must be an array of arrays");
    if (partitions >= 0 && partitions != row->u.array.num)
      return shard_interp_error(p, op, "'programs' rows differ in length");
    partitions = row->u.array.num;
  }
  if (partitions <= 0) return shard_interp_error(p, op, "'programs' has no programs");
  if (replicas * partitions > SHARD_INTERP_MAX_DEVICES)
    return shard_interp_error(p, op, "run_parallel on %lld devices: the interpreter runs at most %d",
                              (long long)(replicas * partitions), SHARD_INTERP_MAX_DEVICES);
  shard_tensor **inputs = SHARD_NEW_ARRAY(p->arena, shard_tensor *, op->num_operands + 1);
  if (!S_operands(p, f, op, inputs)) return false;

  interp_world w;
  shard_interp_world_init(&w, p->world->module, p->world->de, p->world->diag_mu, replicas, partitions);
  shard_interp_world_inherit(&w, p->world);
  const shard_attr *infeed = shard_op_attr(op, "infeed");
  if (infeed && infeed->kind != SHARD_ATTR_ARRAY) {
    shard_interp_world_destroy(&w);
    return shard_interp_error(p, op, "run_parallel's 'infeed' must be an array of functions");
  }
  w.infeed = infeed;
  int64_t n = replicas * partitions;
  par_job *jobs = shard_xcalloc((size_t)n, sizeof *jobs);
  uint32_t in_pos = 0, out_pos = 0;
  bool ok = true;
  for (int64_t k = 0; k < n && ok; k++) {
    par_job *j = &jobs[k];
    const shard_attr *ref = progs->u.array.elems[k / partitions]->u.array.elems[k % partitions];
    j->func = S_lookup_func(p, ref);
    if (!j->func) {
      ok = shard_interp_error(p, op, "program #%lld is not a function of this module", (long long)k);
      break;
    }
    j->at = op;
    j->nargs = j->func->regions[0].first ? j->func->regions[0].first->num_args : 0;
    j->nresults = S_func_num_results(j->func);
    if (in_pos + j->nargs > op->num_operands || out_pos + j->nresults > op->num_results) {
      ok = shard_interp_error(p, op, "run_parallel operands/results do not match the programs' signatures");
      break;
    }
    j->args = inputs + in_pos;
    in_pos += j->nargs;
    out_pos += j->nresults;
    j->results = shard_xcalloc(j->nresults + 1, sizeof(shard_tensor *));
    j->proc = (interp_proc){&w, k / partitions, k % partitions, k, shard_arena_new(), false, 0, NULL, {0}, NULL, 0};
  }
  if (ok && (in_pos != op->num_operands || out_pos != op->num_results))
    ok = shard_interp_error(p, op, "run_parallel has %u operands and %u results but its programs take %u and return %u",
                            op->num_operands, op->num_results, in_pos, out_pos);
  if (ok) {
    for (int64_t k = 0; k < n; k++) pthread_create(&jobs[k].thread, NULL, S_par_main, &jobs[k]);
    for (int64_t k = 0; k < n; k++) pthread_join(jobs[k].thread, NULL);
    interp_proc **procs = shard_xmalloc(sizeof *procs * (size_t)n);
    for (int64_t k = 0; k < n; k++) procs[k] = &jobs[k].proc;
    shard_interp_report_pending(p, procs, n);
    free(procs);
    for (int64_t k = 0; k < n; k++)
      if (jobs[k].proc.failed) ok = false;
    p->world->checks += w.checks;
    /* results into the caller's arena, in program order */
    uint32_t r = 0;
    for (int64_t k = 0; k < n && ok; k++)
      for (uint32_t i = 0; i < jobs[k].nresults; i++, r++) {
        shard_tensor *c = shard_interp_tensor_copy(p->arena, jobs[k].results[i]);
        if (!shard_type_equal(c->type, op->results[r].type))
          ok = shard_interp_error(p, op, "result #%u of run_parallel has type %s where the op declares %s", r,
                                  c->type->text, op->results[r].type->text);
        /* the device's type may live in its arena, freed below: use the op's */
        c->type = op->results[r].type;
        shard_interp_bind(f, &op->results[r], c);
      }
    if (!ok) p->failed = true;
  }
  for (int64_t k = 0; k < n; k++) {
    if (jobs[k].proc.arena) shard_arena_free(jobs[k].proc.arena);
    free(jobs[k].results);
  }
  free(jobs);
  shard_interp_world_destroy(&w);
  return ok;
}

/* Executes a data op and keeps the rounding bookkeeping of its values. */
static bool S_exec_data(interp_proc *p, interp_frame *f, shard_op *op);

/* ---- one region on every device ---------------------------------------------------- */

typedef struct region_job {
  interp_proc proc;
  const shard_op *at;
  shard_region *region;
  shard_tensor **args, **results;
  uint32_t nargs, nresults;
  pthread_t thread;
} region_job;

static void *S_region_main(void *arg) {
  region_job *j = arg;
  if (!shard_interp_run_region(&j->proc, NULL, j->region, j->args, j->nargs, j->results, j->nresults))
    j->proc.failed = true;
  shard_interp_proc_finish(&j->proc);
  return NULL;
}

bool shard_interp_run_devices(interp_proc *p, const shard_op *at, int64_t n, shard_region *region, shard_tensor ***args,
                              uint32_t nargs, shard_tensor ***results, uint32_t nresults,
                              shard_type *const *result_types) {
  if (n > SHARD_INTERP_MAX_DEVICES)
    return shard_interp_error(p, at, "'%s' on %lld devices: the interpreter runs at most %d",
                              at ? at->name : "a region", (long long)n, SHARD_INTERP_MAX_DEVICES);
  interp_world w;
  shard_interp_world_init(&w, p->world->module, p->world->de, p->world->diag_mu, 1, n);
  shard_interp_world_inherit(&w, p->world);
  region_job *jobs = shard_xcalloc((size_t)n, sizeof *jobs);
  for (int64_t k = 0; k < n; k++) {
    region_job *j = &jobs[k];
    j->proc = (interp_proc){&w, 0, k, k, shard_arena_new(), false, 0, NULL, {0}, NULL, 0};
    j->at = at;
    j->region = region;
    j->args = args[k];
    j->nargs = nargs;
    j->nresults = nresults;
    j->results = shard_xcalloc(nresults + 1, sizeof(shard_tensor *));
  }
  for (int64_t k = 0; k < n; k++) pthread_create(&jobs[k].thread, NULL, S_region_main, &jobs[k]);
  for (int64_t k = 0; k < n; k++) pthread_join(jobs[k].thread, NULL);
  interp_proc **procs = shard_xmalloc(sizeof *procs * (size_t)n);
  for (int64_t k = 0; k < n; k++) procs[k] = &jobs[k].proc;
  shard_interp_report_pending(p, procs, n);
  free(procs);
  bool ok = true;
  for (int64_t k = 0; k < n; k++) {
    if (jobs[k].proc.failed) ok = false;
    p->steps += jobs[k].proc.steps;
  }
  p->world->checks += w.checks;
  for (int64_t k = 0; k < n && ok; k++)
    for (uint32_t i = 0; i < nresults; i++) {
      shard_tensor *c = shard_interp_tensor_copy(p->arena, jobs[k].results[i]);
      if (!shard_type_equal(c->type, result_types[i]))
        ok = shard_interp_error(p, at, "result #%u of the body on device %lld has type %s where %s is declared", i,
                                (long long)k, c->type->text, result_types[i]->text);
      c->type = result_types[i]; /* the device's type may live in its arena, freed below */
      results[k][i] = c;
    }
  if (!ok) p->failed = true;
  for (int64_t k = 0; k < n; k++) {
    shard_arena_free(jobs[k].proc.arena);
    free(jobs[k].results);
  }
  free(jobs);
  shard_interp_world_destroy(&w);
  return ok;
}

static bool S_exec(interp_proc *p, interp_frame *f, shard_op *op) {
  const char *name = op->name;
  if (++p->steps > p->world->max_steps) return S_budget_spent(p, op);
  if (strcmp(name, "func.call") == 0 || strcmp(name, "call") == 0) return S_exec_call(p, f, op);
  if (strcmp(name, "sdy.manual_computation") == 0) return shard_interp_exec_manual(p, f, op);
  if (strcmp(name, "stablehlo.while") == 0) return S_exec_while(p, f, op);
  if (strcmp(name, "stablehlo.if") == 0 || strcmp(name, "stablehlo.case") == 0) return S_exec_branch(p, f, op);
  if (shard_interp_is_check_op(op)) return shard_interp_exec_check(p, f, op);
  if (strcmp(name, "interpreter.run_parallel") == 0) return S_exec_run_parallel(p, f, op);
  if (!p->world->track_rounding) return S_exec_data(p, f, op);
  /* operands are looked up before the op runs: a result may rebind nothing
   * they name, but lookups are cheap and this keeps the order obvious */
  shard_tensor **ops = SHARD_NEW_ARRAY(p->arena, shard_tensor *, op->num_operands + 1);
  shard_tensor **res = SHARD_NEW_ARRAY(p->arena, shard_tensor *, op->num_results + 1);
  for (uint32_t i = 0; i < op->num_operands; i++) ops[i] = shard_interp_lookup(f, op->operands[i].value);
  if (!S_exec_data(p, f, op)) return false;
  for (uint32_t i = 0; i < op->num_results; i++) res[i] = shard_interp_lookup(f, &op->results[i]);
  shard_interp_track_op(p, op, ops, op->num_operands, res, op->num_results);
  return true;
}

static bool S_exec_data(interp_proc *p, interp_frame *f, shard_op *op) {
  bool handled = false;
  if (!shard_interp_exec_quant_op(p, f, op, &handled)) return false;
  if (handled) return true;
  return shard_interp_exec_plain_op(p, f, op);
}

bool shard_interp_exec_plain_op(interp_proc *p, interp_frame *f, shard_op *op) {
  const char *name = op->name;
  bool handled = false;
  if (!shard_interp_exec_more_op(p, f, op, &handled)) return false;
  if (handled) return true;
  if (!shard_interp_exec_complex_op(p, f, op, &handled)) return false;
  if (handled) return true;
  if (!shard_interp_exec_op(p, f, op, &handled)) return false;
  if (handled) return true;
  if (!shard_interp_exec_window_op(p, f, op, &handled)) return false;
  if (handled) return true;
  if (!shard_interp_exec_collective(p, f, op, &handled)) return false;
  if (handled) return true;
  if (!shard_interp_exec_p2p(p, f, op, &handled)) return false;
  if (handled) return true;
  if (!shard_interp_exec_chlo_op(p, f, op, &handled)) return false;
  if (handled) return true;
  return shard_interp_error(p, op, "the interpreter does not support '%s'", name);
}

/* ---- entry points --------------------------------------------------------------- */

static void S_apply_options(interp_world *w, const shard_interp_options *opts) {
  if (!opts) return;
  if (opts->max_steps > 0) w->max_steps = opts->max_steps;
  w->track_rounding = opts->track_rounding;
  w->probe_dir = opts->probe_dir;
}

bool shard_interp_call(shard_module *m, const char *func, shard_tensor *const *args, uint32_t nargs,
                       const shard_interp_options *opts, shard_arena *a, shard_tensor ***results, uint32_t *nresults,
                       shard_diag_engine *de) {
  interp_world w;
  shard_interp_world_init(&w, m, de, &S_diag_mu, 1, 1);
  S_apply_options(&w, opts);
  interp_proc p = {&w, 0, 0, 0, a, false, 0, NULL, {0}, NULL, 0};
  shard_op *fn = shard_module_lookup_symbol(m, func);
  bool ok;
  if (!fn || strcmp(fn->name, "func.func") != 0) {
    ok = shard_interp_error(&p, NULL, "no function @%s in the module", func);
  } else {
    *nresults = S_func_num_results(fn);
    *results = SHARD_NEW_ARRAY(a, shard_tensor *, *nresults + 1);
    ok = interp_call_func(&p, fn, args, nargs, *results, *nresults, fn);
  }
  shard_interp_world_destroy(&w);
  return ok;
}

bool shard_interp_run_main(shard_module *m, const shard_interp_options *opts, shard_diag_engine *de,
                           unsigned *num_checks) {
  interp_world w;
  shard_interp_world_init(&w, m, de, &S_diag_mu, 1, 1);
  S_apply_options(&w, opts);
  shard_arena *a = shard_arena_new();
  interp_proc p = {&w, 0, 0, 0, a, false, 0, NULL, {0}, NULL, 0};
  shard_op *fn = shard_module_lookup_symbol(m, "main");
  bool ok;
  if (!fn || strcmp(fn->name, "func.func") != 0) {
    ok = shard_interp_error(&p, NULL, "the module has no func.func @main to run");
  } else {
    uint32_t nres = S_func_num_results(fn);
    shard_tensor **res = SHARD_NEW_ARRAY(a, shard_tensor *, nres + 1);
    ok = interp_call_func(&p, fn, NULL, 0, res, nres, fn);
  }
  if (num_checks) *num_checks = w.checks;
  shard_arena_free(a);
  shard_interp_world_destroy(&w);
  return ok;
}

/* StableHLO's getMainFunction: @main, else the only function. */
static shard_op *S_entry_func(shard_module *m, uint32_t *num_funcs) {
  shard_op *only = NULL, *main_fn = NULL;
  *num_funcs = 0;
  shard_block *body = m->top && m->top->num_regions ? m->top->regions[0].first : NULL;
  for (shard_op *op = body ? body->first : NULL; op; op = op->next) {
    if (strcmp(op->name, "func.func") != 0) continue;
    ++*num_funcs;
    only = op;
    const shard_attr *n = shard_op_attr(op, "sym_name");
    if (n && n->kind == SHARD_ATTR_STRING && n->u.str.len == 4 && memcmp(n->u.str.data, "main", 4) == 0) main_fn = op;
  }
  return main_fn ? main_fn : *num_funcs == 1 ? only : NULL;
}

bool shard_interp_run_entry(shard_module *m, shard_tensor *const *args, uint32_t nargs,
                            const shard_interp_options *opts, shard_arena *a, shard_tensor ***results,
                            uint32_t *nresults, shard_diag_engine *de, unsigned *num_checks) {
  interp_world w;
  shard_interp_world_init(&w, m, de, &S_diag_mu, 1, 1);
  S_apply_options(&w, opts);
  int64_t probes = 0;
  w.probe_count = &probes;
  interp_proc p = {&w, 0, 0, 0, a, false, 0, NULL, {0}, NULL, 0};
  uint32_t num_funcs;
  shard_op *fn = S_entry_func(m, &num_funcs);
  bool ok = true;
  *nresults = 0;
  *results = NULL;
  if (!fn && num_funcs == 0) {
    /* an empty module: nothing to run */
  } else if (!fn) {
    ok = shard_interp_error(&p, NULL, "module must have entry func with name main");
  } else {
    if (w.probe_dir && *w.probe_dir) {
      /* each run starts a fresh probe index, as StableHLO's evalModule does */
      char path[4096];
      if (snprintf(path, sizeof path, "%s/index.csv", w.probe_dir) < (int)sizeof path) remove(path);
    }
    shard_block *b = fn->num_regions ? fn->regions[0].first : NULL;
    uint32_t want = b ? b->num_args : 0;
    if (want != nargs) {
      ok = shard_interp_error(
          &p, fn, "incorrect number of arguments specified, provided %u inputs but function expected %u%s", nargs, want,
          nargs == 0 ? " (give them with --args=\"[dense<...> : tensor<...>, ...]\")" : "");
    }
    for (uint32_t i = 0; ok && i < nargs; i++)
      if (!shard_type_equal(b->args[i].type, args[i]->type))
        ok = shard_interp_error(
            &p, fn, "invalid input argument type at index %u, input type was %s but entry function expected %s", i,
            args[i]->type->text, b->args[i].type->text);
    if (ok) {
      *nresults = S_func_num_results(fn);
      *results = SHARD_NEW_ARRAY(a, shard_tensor *, *nresults + 1);
      ok = interp_call_func(&p, fn, args, nargs, *results, *nresults, fn);
    }
  }
  if (num_checks) *num_checks = w.checks;
  shard_interp_world_destroy(&w);
  return ok;
}
