/* The check dialect of StableHLO's interpreter tests: check.expect_eq,
 * expect_almost_eq, expect_close and their *_const forms compare a value
 * with an expected one and report the first mismatch as a located error.
 * The walker in interp.c hands every `check.*` op to
 * shard_interp_exec_check. */
#include "interp/interp_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "support/buf.h"

/* ---- checks ------------------------------------------------------------------ */

static uint64_t S_ordered_bits(double x, unsigned bits) {
  /* maps floats to integers whose distance counts ulps (f32 and f64) */
  if (bits == 32) {
    float fl = (float)x;
    uint32_t u;
    memcpy(&u, &fl, 4);
    return (u & 0x80000000u) ? (uint64_t)(0x80000000u - (u & 0x7fffffffu)) : (uint64_t)u + 0x80000000u;
  }
  uint64_t u;
  memcpy(&u, &x, 8);
  return (u >> 63) ? (UINT64_C(1) << 63) - (u & ~(UINT64_C(1) << 63)) : u + (UINT64_C(1) << 63);
}

static void S_index_text(shard_buf *b, const shard_tensor *t, int64_t flat) {
  uint32_t rank = t->type->rank;
  int64_t *strides = shard_xcalloc(rank + 1, sizeof *strides);
  shard_interp_strides(rank, t->type->dims, strides);
  shard_buf_putc(b, '[');
  for (uint32_t d = 0; d < rank; d++) {
    shard_buf_printf(b, "%s%lld", d ? ", " : "", (long long)(flat / strides[d]));
    flat %= strides[d];
  }
  shard_buf_putc(b, ']');
  free(strides);
}

typedef enum { CHECK_EQ, CHECK_ALMOST, CHECK_CLOSE } check_mode;

static bool S_compare(interp_proc *p, const shard_op *op, const shard_tensor *actual, const shard_tensor *expected,
                      check_mode mode, double tolerance, int64_t max_ulps) {
  if (!shard_type_equal(actual->type, expected->type) &&
      (actual->num != expected->num || strcmp(actual->type->elem, expected->type->elem) != 0))
    return shard_interp_error(p, op, "%s: the values have different types: %s vs %s", op->name, actual->type->text,
                              expected->type->text);
  for (int64_t i = 0; i < actual->num; i++) {
    bool ok = true;
    if (actual->kind != SHARD_ELEM_FLOAT && actual->kind != SHARD_ELEM_COMPLEX) {
      ok = actual->ints[i] == expected->ints[i];
    } else {
      /* complex numbers compare part by part */
      int parts = actual->kind == SHARD_ELEM_COMPLEX ? 2 : 1;
      for (int k = 0; k < parts; k++) {
        double a = actual->floats[parts * i + k], e = expected->floats[parts * i + k];
        if (isnan(a) || isnan(e)) ok &= isnan(a) && isnan(e);
        else if (mode == CHECK_EQ) ok &= a == e;
        else if (mode == CHECK_ALMOST) ok &= a == e || fabs(a - e) <= tolerance;
        else {
          unsigned w = actual->bits == 64 ? 64 : 32;
          uint64_t ua = S_ordered_bits(a, w), ue = S_ordered_bits(e, w);
          uint64_t d = ua > ue ? ua - ue : ue - ua;
          ok &= d <= (uint64_t)max_ulps;
        }
      }
    }
    if (!ok) {
      shard_buf b;
      shard_buf_init(&b);
      shard_buf_printf(&b, "%s failed: element ", op->name);
      S_index_text(&b, actual, i);
      shard_buf_puts(&b, " is ");
      shard_interp_print_elem(&b, actual, i);
      shard_buf_puts(&b, ", expected ");
      shard_interp_print_elem(&b, expected, i);
      if (actual->num <= 64) {
        shard_buf_puts(&b, "\n  actual:   ");
        shard_tensor_print(&b, actual);
        shard_buf_puts(&b, "\n  expected: ");
        shard_tensor_print(&b, expected);
      }
      shard_interp_error(p, op, "%s", shard_buf_str(&b));
      shard_buf_free(&b);
      return false;
    }
  }
  return true;
}

bool shard_interp_exec_check(interp_proc *p, interp_frame *f, shard_op *op) {
  const char *kind = op->name + 6; /* after "check." */
  shard_tensor *ops[2] = {NULL, NULL};
  if (op->num_operands < 1 || op->num_operands > 2) return shard_interp_error(p, op, "%s takes one or two operands", op->name);
  for (uint32_t i = 0; i < op->num_operands; i++) {
    ops[i] = shard_interp_lookup(f, op->operands[i].value);
    if (!ops[i]) return shard_interp_error(p, op, "operand #%u has no value (unsupported producer?)", i);
  }
  shard_tensor *expected = ops[1];
  if (op->num_operands == 1) {
    const shard_attr *v = shard_op_attr(op, "value");
    const char *err;
    if (!v || v->kind != SHARD_ATTR_DENSE) return shard_interp_error(p, op, "%s needs a dense 'value' attribute", op->name);
    if (!shard_tensor_from_dense(p->arena, v->u.dense.payload, v->u.dense.type, &expected, &err))
      return shard_interp_error(p, op, "%s: %s", op->name, err);
  }
  check_mode mode = CHECK_EQ;
  double tol = 0.0001;
  int64_t ulps = 3;
  if (strncmp(kind, "expect_almost_eq", 16) == 0) {
    mode = CHECK_ALMOST;
    const shard_attr *t = shard_op_attr(op, "tolerance");
    if (t && t->kind == SHARD_ATTR_FLOAT) tol = strtod(t->u.flt.text, NULL);
  } else if (strcmp(kind, "expect_close") == 0) {
    mode = CHECK_CLOSE;
    const shard_attr *mx = shard_op_attr(op, "max_ulp_difference");
    if (mx && mx->kind == SHARD_ATTR_INT) ulps = mx->u.integer.value;
  } else if (strncmp(kind, "expect_eq", 9) != 0) {
    return shard_interp_error(p, op, "the interpreter does not support '%s'", op->name);
  }
  pthread_mutex_lock(&p->world->mu);
  p->world->checks++;
  pthread_mutex_unlock(&p->world->mu);
  return S_compare(p, op, ops[0], expected, mode, tol, ulps);
}

