/* The check conventions of StableHLO's interpreter tests, as
 * stablehlo-translate --interpret runs them:
 *
 *   check.expect_eq, expect_eq_const          exact (IEEE == for floats)
 *   check.expect_almost_eq, *_const           |a - e| <= tolerance (0.0001)
 *   check.expect_close                        min..max ULPs (0..3)
 *   check.expect_serialized_eq                equal to what interpreter.probe
 *                                             wrote for probe_id (iter-th line)
 *   stablehlo.custom_call @check.expect_eq    (testdata exported from JAX)
 *                       @check.expect_almost_eq  tolerance 0.001
 *                       @check.expect_close      0..3 ULPs
 *   interpreter.probe                         writes probe<N>.npy + index.csv
 *
 * ULPs are counted in the element type's own format: two f16 values one f16
 * step apart are 1 ULP apart, not 8192 f32 ULPs. A mismatch is a located
 * error at the check naming the first differing element. */
#include "interp/interp_internal.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support/buf.h"

/* StableHLO's ULPDifference of two values of one format. */
/* StableHLO's ULPDifference of two values of one format: an infinity is
 * infinitely far from anything but itself; finite values are as many steps
 * of the format apart as interp_float.c counts. */
static uint64_t S_ulp_diff(double a, double e, shard_float_fmt fmt) {
  if (isnan(a) && isnan(e)) return 0;
  if (a == e && signbit(a) == signbit(e)) return 0;
  if (!isfinite(a) || !isfinite(e)) return UINT64_MAX;
  return shard_float_ulp_distance(a, e, fmt);
}

/* StableHLO's areApproximatelyEqual for one pair of floats: equal, both
 * NaN, or both finite and at most `tolerance` apart. StableHLO also wants
 * equal signs, which fails -1e-16 against 0 (an FFT's imaginary part summed
 * in another order); shard lets the tolerance decide there. */
static bool S_almost_equal(double f, double g, double tolerance) {
  if (f == g) return true;
  if (isnan(f) || isnan(g)) return isnan(f) && isnan(g);
  if (!isfinite(f) || !isfinite(g)) return false;
  return fabs(f - g) <= tolerance;
}

/* ---- comparing -------------------------------------------------------------- */

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

typedef struct check_spec {
  check_mode mode;
  double tolerance; /* CHECK_ALMOST */
  uint64_t min_ulps, max_ulps; /* CHECK_CLOSE */
} check_spec;

static bool S_compare(interp_proc *p, const shard_op *op, const char *what, const shard_tensor *actual,
                      const shard_tensor *expected, const check_spec *spec) {
  if (!shard_type_equal(actual->type, expected->type) &&
      (actual->num != expected->num || strcmp(actual->type->elem, expected->type->elem) != 0))
    return shard_interp_error(p, op, "%s: the values have different types: %s vs %s", what, actual->type->text,
                              expected->type->text);
  bool is_float = actual->kind == SHARD_ELEM_FLOAT || actual->kind == SHARD_ELEM_COMPLEX;
  if (spec->mode != CHECK_EQ && !is_float)
    return shard_interp_error(p, op, "%s: unsupported element type: %s", what, actual->type->elem);
  if (spec->mode == CHECK_CLOSE && actual->fmt == SHARD_FLOAT_NONE)
    return shard_interp_error(p, op, "%s: unsupported element type: %s", what, actual->type->elem);
  int parts = actual->kind == SHARD_ELEM_COMPLEX ? 2 : 1;
  int64_t failures = 0, first = -1;
  uint64_t first_ulps = 0, counts[5] = {0};
  for (int64_t i = 0; i < actual->num; i++) {
    bool ok = true;
    uint64_t ulps = 0;
    if (!is_float) {
      ok = actual->ints[i] == expected->ints[i];
    } else {
      for (int k = 0; k < parts; k++) {
        double a = actual->floats[parts * i + k], e = expected->floats[parts * i + k];
        if (spec->mode == CHECK_EQ) {
          ok &= a == e;
        } else if (spec->mode == CHECK_ALMOST) {
          ok &= S_almost_equal(a, e, spec->tolerance);
        } else {
          uint64_t d = S_ulp_diff(a, e, actual->fmt);
          if (d > ulps) ulps = d;
        }
      }
      if (spec->mode == CHECK_CLOSE) {
        ok = ulps >= spec->min_ulps && ulps <= spec->max_ulps;
        counts[ulps < 4 ? ulps : 4]++;
      }
    }
    if (!ok && failures++ == 0) {
      first = i;
      first_ulps = ulps;
      if (spec->mode != CHECK_CLOSE) break;
    }
  }
  if (!failures) return true;
  shard_buf b;
  shard_buf_init(&b);
  shard_buf_printf(&b, "%s failed: element ", what);
  S_index_text(&b, actual, first);
  shard_buf_puts(&b, " is ");
  shard_interp_print_elem(&b, actual, first);
  shard_buf_puts(&b, ", expected ");
  shard_interp_print_elem(&b, expected, first);
  if (spec->mode == CHECK_ALMOST) shard_buf_printf(&b, " (tolerance %g)", spec->tolerance);
  if (spec->mode == CHECK_CLOSE) {
    if (first_ulps == UINT64_MAX) shard_buf_puts(&b, " (ULP difference: not finite");
    else shard_buf_printf(&b, " (ULP difference %llu", (unsigned long long)first_ulps);
    shard_buf_printf(&b,
                     " in %s, allowed %llu..%llu); %lld of %lld elements differ; ULP difference == 0: %llu, 1: %llu, "
                     "2: %llu, 3: %llu, >= 4: %llu",
                     actual->type->elem, (unsigned long long)spec->min_ulps, (unsigned long long)spec->max_ulps,
                     (long long)failures, (long long)actual->num, (unsigned long long)counts[0],
                     (unsigned long long)counts[1], (unsigned long long)counts[2], (unsigned long long)counts[3],
                     (unsigned long long)counts[4]);
  }
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

/* ---- probes (numpy files as StableHLO's NumPy.cpp writes them) ----------------- */

#define PROBE_INDEX_FILE "index.csv"
/* The longest probe file name or index line shard writes or reads. */
#define PROBE_MAX_PATH 4096

static uint16_t S_half_of(double x, bool bf16) {
  if (bf16) {
    float f = (float)shard_elem_round_float(x, 16, true);
    uint32_t w;
    memcpy(&w, &f, 4);
    if (isnan(x)) return (uint16_t)((w >> 16) | 0x40);
    return (uint16_t)(w >> 16);
  }
  uint16_t sign = signbit(x) ? 0x8000 : 0;
  double a = fabs(x);
  if (isnan(x)) return sign | 0x7e00;
  a = shard_elem_round_float(a, 16, false);
  if (isinf(a)) return sign | 0x7c00;
  if (a == 0) return sign;
  if (a < ldexp(1.0, -14)) return sign | (uint16_t)(a / ldexp(1.0, -24));
  int e;
  double f = frexp(a, &e); /* a = f * 2^e */
  uint16_t mant = (uint16_t)(ldexp(f, 11) - 1024);
  return sign | (uint16_t)((e - 1 + 15) << 10) | mant;
}

/* The numpy descr and element bytes of t, as NumPy.cpp's dispatchType
 * picks them (its i64/ui64 descrs are swapped there, and kept so). False for
 * element types it has none for. */
static bool S_npy_layout(const shard_tensor *t, char *descr, size_t *width) {
  const char *e = t->type->elem;
  if (t->kind == SHARD_ELEM_BOOL) return strcpy(descr, "<i1"), *width = 1, true;
  if (t->kind == SHARD_ELEM_SINT || t->kind == SHARD_ELEM_UINT) {
    if (t->bits < 8) return false;
    bool u = t->kind == SHARD_ELEM_UINT;
    if (t->bits == 64) u = !u;
    descr[0] = '<';
    descr[1] = u ? 'u' : 'i';
    descr[2] = (char)('0' + t->bits / 8);
    descr[3] = 0;
    *width = t->bits / 8;
    return true;
  }
  if (!strcmp(e, "f16") || !strcmp(e, "bf16")) return strcpy(descr, "<u2"), *width = 2, true;
  if (!strcmp(e, "f32")) return strcpy(descr, "<f4"), *width = 4, true;
  if (!strcmp(e, "f64")) return strcpy(descr, "<f8"), *width = 8, true;
  if (!strcmp(e, "complex<f32>")) return strcpy(descr, "<f8"), *width = 8, true;
  if (!strcmp(e, "complex<f64>")) return strcpy(descr, "<i16"), *width = 16, true;
  return false;
}

/* Element i of t as its little-endian storage bytes. */
static void S_elem_bytes(const shard_tensor *t, int64_t i, unsigned char *out, size_t width) {
  uint64_t v = 0;
  if (t->kind == SHARD_ELEM_COMPLEX) {
    size_t half = width / 2;
    for (int k = 0; k < 2; k++) {
      double x = t->floats[2 * i + k];
      if (half == 4) {
        float f = (float)x;
        memcpy(out + k * half, &f, 4);
      } else {
        memcpy(out + k * half, &x, 8);
      }
    }
    return;
  }
  if (t->kind == SHARD_ELEM_FLOAT) {
    double x = t->floats[i];
    if (width == 8) {
      memcpy(&v, &x, 8);
    } else if (width == 4) {
      float f = (float)x;
      uint32_t w;
      memcpy(&w, &f, 4);
      v = w;
    } else {
      v = S_half_of(x, strcmp(t->type->elem, "bf16") == 0);
    }
  } else {
    v = (uint64_t)t->ints[i];
  }
  for (size_t k = 0; k < width; k++) out[k] = (unsigned char)(v >> (8 * k));
}

/* The numpy header NumPy.cpp writes: magic, version 1.0, the dict's length
 * and the dict padded with spaces and a newline. */
static void S_npy_header(shard_buf *b, const shard_tensor *t, const char *descr) {
  shard_buf dict;
  shard_buf_init(&dict);
  shard_buf_printf(&dict, "{'descr': '%s', 'fortran_order': False, 'shape' : (", descr);
  for (uint32_t d = 0; d < t->type->rank; d++) shard_buf_printf(&dict, "%lld,", (long long)t->type->dims[d]);
  shard_buf_puts(&dict, "), }");
  int padding = 16 - (8 + 1) % 16; /* NumPy.cpp pads as if the dict started at byte 8 */
  for (int k = 0; k < padding - 1; k++) shard_buf_putc(&dict, ' ');
  shard_buf_putc(&dict, '\n');
  size_t len = dict.len;
  shard_buf_putn(b, "\x93NUMPY\x01\x00", 8);
  shard_buf_putc(b, (char)(len & 0xff));
  shard_buf_putc(b, (char)((len >> 8) & 0xff));
  shard_buf_putn(b, shard_buf_str(&dict), len);
  shard_buf_free(&dict);
}

static bool S_exec_probe(interp_proc *p, interp_frame *f, shard_op *op) {
  shard_tensor *t = op->num_operands == 1 ? shard_interp_lookup(f, op->operands[0].value) : NULL;
  if (!t) return shard_interp_error(p, op, "interpreter.probe takes one operand with a value");
  const shard_attr *id = shard_op_attr(op, "probe_id");
  if (!id || id->kind != SHARD_ATTR_STRING)
    return shard_interp_error(p, op, "interpreter.probe needs a string 'probe_id'");
  interp_world *w = p->world;
  if (!w->probe_dir || !*w->probe_dir)
    return shard_interp_error(p, op,
                              "Probe serialization directory cannot be empty. (give one with --probe-output-dir=DIR)");
  char descr[8];
  size_t width;
  if (!S_npy_layout(t, descr, &width))
    return shard_interp_error(p, op, "interpreter.probe: unsupported element type: %s", t->type->elem);
  pthread_mutex_lock(w->diag_mu);
  int64_t n = ++*w->probe_count;
  pthread_mutex_unlock(w->diag_mu);
  char path[PROBE_MAX_PATH], index[PROBE_MAX_PATH];
  if (snprintf(path, sizeof path, "%s/probe%lld.npy", w->probe_dir, (long long)n) >= (int)sizeof path ||
      snprintf(index, sizeof index, "%s/%s", w->probe_dir, PROBE_INDEX_FILE) >= (int)sizeof index)
    return shard_interp_error(p, op, "interpreter.probe: the probe directory's name is longer than %d bytes",
                              PROBE_MAX_PATH - 32);
  shard_buf b;
  shard_buf_init(&b);
  S_npy_header(&b, t, descr);
  unsigned char bytes[16];
  for (int64_t i = 0; i < t->num; i++) {
    S_elem_bytes(t, i, bytes, width);
    shard_buf_putn(&b, (const char *)bytes, width);
  }
  FILE *fp = fopen(path, "wb");
  bool ok = fp && fwrite(shard_buf_str(&b), 1, b.len, fp) == b.len;
  if (fp && fclose(fp) != 0) ok = false;
  shard_buf_free(&b);
  if (!ok) return shard_interp_error(p, op, "Failed to open NumPy file %s: %s", path, strerror(errno));
  pthread_mutex_lock(w->diag_mu);
  fp = fopen(index, "a");
  if (fp) {
    fprintf(fp, "%.*s,%s,%s\n", (int)id->u.str.len, id->u.str.data, t->type->text, path);
    ok = fclose(fp) == 0;
  } else {
    ok = false;
  }
  pthread_mutex_unlock(w->diag_mu);
  if (!ok) return shard_interp_error(p, op, "Failed to open instrumentation metadata file %s", index);
  shard_interp_bind(f, &op->results[0], t);
  return true;
}

/* check.expect_serialized_eq: the iteration-th line of index.csv (lines
 * counted from 0 whatever their probe, as StableHLO reads them) must name
 * probe_id; its file must hold the operand's type and elements. */
static bool S_exec_serialized_eq(interp_proc *p, interp_frame *f, shard_op *op) {
  shard_tensor *t = op->num_operands == 1 ? shard_interp_lookup(f, op->operands[0].value) : NULL;
  if (!t) return shard_interp_error(p, op, "check.expect_serialized_eq takes one operand with a value");
  const shard_attr *id = shard_op_attr(op, "probe_id");
  const shard_attr *it = shard_op_attr(op, "iteration");
  if (!id || id->kind != SHARD_ATTR_STRING)
    return shard_interp_error(p, op, "check.expect_serialized_eq needs a string 'probe_id'");
  int64_t iteration = it && it->kind == SHARD_ATTR_INT ? it->u.integer.value : 0;
  char *pid = shard_xstrndup(id->u.str.data, id->u.str.len);
  interp_world *w = p->world;
  char index[PROBE_MAX_PATH], line[PROBE_MAX_PATH];
  FILE *fp = NULL;
  if (w->probe_dir && *w->probe_dir &&
      snprintf(index, sizeof index, "%s/%s", w->probe_dir, PROBE_INDEX_FILE) < (int)sizeof index)
    fp = fopen(index, "r");
  bool found = false;
  for (int64_t k = 0; fp && k <= iteration && fscanf(fp, "%4095s", line) == 1; k++)
    if (k == iteration && strstr(line, pid)) found = true;
  if (fp) fclose(fp);
  if (!found) {
    shard_interp_error(p, op, "Failed to find serialized data for probe %s.", pid);
    free(pid);
    return false;
  }
  /* probe_id,type,path: the type has no commas only when it is a plain tensor type */
  char *type = strchr(line, ','), *path = type ? strrchr(type + 1, ',') : NULL;
  bool ok = type && path;
  if (ok) {
    *path++ = 0;
    type++;
    if (strcmp(type, t->type->text) != 0)
      ok = shard_interp_error(p, op, "Serialized types don't match: %s (actual) vs %s (expected) for probe %s.",
                              t->type->text, type, pid);
  } else {
    shard_interp_error(p, op, "Failed to verify serialized tensor %s.", pid);
  }
  char descr[8];
  size_t width = 0;
  unsigned char *data = NULL;
  size_t len = 0;
  if (ok && !S_npy_layout(t, descr, &width))
    ok = shard_interp_error(p, op, "check.expect_serialized_eq: unsupported element type: %s", t->type->elem);
  if (ok) {
    FILE *np = fopen(path, "rb");
    unsigned char head[10];
    ok = np && fread(head, 1, 10, np) == 10 && memcmp(head, "\x93NUMPY\x01\x00", 8) == 0;
    size_t hlen = ok ? (size_t)head[8] | (size_t)head[9] << 8 : 0;
    char *hdr = ok ? shard_xcalloc(hlen + 1, 1) : NULL;
    ok = ok && fread(hdr, 1, hlen, np) == hlen && strstr(hdr, descr);
    free(hdr);
    len = (size_t)t->num * width;
    data = shard_xcalloc(len + 1, 1);
    ok = ok && fread(data, 1, len, np) == len;
    if (np) fclose(np);
    if (!ok) shard_interp_error(p, op, "Failed to verify serialized tensor %s.", pid);
  }
  for (int64_t i = 0; ok && i < t->num; i++) {
    unsigned char bytes[16];
    S_elem_bytes(t, i, bytes, width);
    if (memcmp(bytes, data + (size_t)i * width, width) != 0) {
      shard_buf b;
      shard_buf_init(&b);
      shard_buf_puts(&b, "check.expect_serialized_eq failed: element ");
      S_index_text(&b, t, i);
      shard_buf_printf(&b, " differs from what probe %s wrote to %s", pid, path);
      ok = shard_interp_error(p, op, "%s", shard_buf_str(&b));
      shard_buf_free(&b);
    }
  }
  free(data);
  free(pid);
  if (ok) {
    pthread_mutex_lock(&w->mu);
    w->checks++;
    pthread_mutex_unlock(&w->mu);
  }
  return ok;
}

/* ---- the ops ------------------------------------------------------------------ */

/* The call target of a custom_call, or NULL. */
static const shard_attr *S_call_target(const shard_op *op) {
  const shard_attr *t = shard_op_attr(op, "call_target_name");
  return t && t->kind == SHARD_ATTR_STRING ? t : NULL;
}

bool shard_interp_is_check_op(const shard_op *op) {
  if (strncmp(op->name, "check.", 6) == 0 || strcmp(op->name, "interpreter.probe") == 0) return true;
  if (strcmp(op->name, "stablehlo.custom_call") != 0) return false;
  const shard_attr *t = S_call_target(op);
  return t && t->u.str.len > 6 && memcmp(t->u.str.data, "check.", 6) == 0;
}

static double S_float_attr(const shard_op *op, const char *name, double dflt) {
  const shard_attr *a = shard_op_attr(op, name);
  if (a && a->kind == SHARD_ATTR_FLOAT) return strtod(a->u.flt.text, NULL);
  if (a && a->kind == SHARD_ATTR_INT) return (double)a->u.integer.value;
  return dflt;
}

static uint64_t S_uint_attr(const shard_op *op, const char *name, uint64_t dflt) {
  const shard_attr *a = shard_op_attr(op, name);
  if (a && a->kind == SHARD_ATTR_INT) return (uint64_t)a->u.integer.value;
  return dflt;
}

bool shard_interp_exec_check(interp_proc *p, interp_frame *f, shard_op *op) {
  if (strcmp(op->name, "interpreter.probe") == 0) return S_exec_probe(p, f, op);
  if (strcmp(op->name, "check.expect_serialized_eq") == 0) return S_exec_serialized_eq(p, f, op);
  const char *what = op->name;
  const char *kind;
  char target[64];
  bool custom = strcmp(op->name, "stablehlo.custom_call") == 0;
  if (custom) {
    const shard_attr *t = S_call_target(op);
    snprintf(target, sizeof target, "%.*s", (int)t->u.str.len, t->u.str.data);
    what = target;
    kind = target + 6;
    if (op->num_operands != 2 || op->num_results != 0 ||
        (strcmp(kind, "expect_eq") && strcmp(kind, "expect_almost_eq") && strcmp(kind, "expect_close")))
      return shard_interp_error(p, op, "Unsupported custom call: @%s with %u operands and %u results", target,
                                op->num_operands, op->num_results);
  } else {
    kind = op->name + 6; /* after "check." */
  }
  shard_tensor *ops[2] = {NULL, NULL};
  if (op->num_operands < 1 || op->num_operands > 2)
    return shard_interp_error(p, op, "%s takes one or two operands", what);
  for (uint32_t i = 0; i < op->num_operands; i++) {
    ops[i] = shard_interp_lookup(f, op->operands[i].value);
    if (!ops[i]) return shard_interp_error(p, op, "operand #%u has no value (unsupported producer?)", i);
  }
  shard_tensor *expected = ops[1];
  if (op->num_operands == 1) {
    const shard_attr *v = shard_op_attr(op, "value");
    const char *err;
    if (!v || v->kind != SHARD_ATTR_DENSE) return shard_interp_error(p, op, "%s needs a dense 'value' attribute", what);
    if (!shard_tensor_from_dense(p->arena, v->u.dense.payload, v->u.dense.type, &expected, &err))
      return shard_interp_error(p, op, "%s: %s", what, err);
  }
  check_spec spec = {CHECK_EQ, 0, 0, 0};
  if (strncmp(kind, "expect_almost_eq", 16) == 0) {
    spec.mode = CHECK_ALMOST;
    /* the check op's default; the custom call of the testdata allows 0.001 */
    spec.tolerance = custom ? 0.001 : S_float_attr(op, "tolerance", 0.0001);
  } else if (strcmp(kind, "expect_close") == 0) {
    spec.mode = CHECK_CLOSE;
    spec.min_ulps = custom ? 0 : S_uint_attr(op, "min_ulp_difference", 0);
    spec.max_ulps = custom ? 3 : S_uint_attr(op, "max_ulp_difference", 3);
  } else if (strncmp(kind, "expect_eq", 9) != 0) {
    return shard_interp_error(p, op, "the interpreter does not support '%s'", what);
  }
  pthread_mutex_lock(&p->world->mu);
  p->world->checks++;
  pthread_mutex_unlock(&p->world->mu);
  return S_compare(p, op, what, ops[0], expected, &spec);
}
