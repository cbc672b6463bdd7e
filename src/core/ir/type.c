/* Type builders and printing. Every type carries its canonical text, so
 * equality is a string comparison and printing is a copy. */
#include "ir/type.h"

#include <inttypes.h>
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

shard_type *shard_type_tensor(shard_arena *a, uint32_t rank, const int64_t *dims,
                              const char *elem, const char *encoding) {
  shard_type *t = SHARD_NEW(a, shard_type);
  t->kind = SHARD_TYPE_TENSOR;
  t->rank = rank;
  t->dims = rank ? shard_arena_dup(a, dims, sizeof(int64_t) * rank) : NULL;
  t->elem = elem;
  t->encoding = encoding;
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

shard_type *shard_type_function(shard_arena *a, shard_type **in, uint32_t nin,
                                shard_type **out, uint32_t nout) {
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
