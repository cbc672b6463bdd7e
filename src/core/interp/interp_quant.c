/* Quantized element types in the interpreter (StableHLO spec, "Quantized
 * element types"): a value of type tensor<...x!quant.uniform<...>> is held as
 * its storage integers (a SINT/UINT tensor of the storage width, so
 * constants, bitcast_convert and check.expect_eq see the storage values).
 *
 *   uniform_quantize    float -> quant: quantize(x, type(result));
 *                       quant -> quant: quantize(dequantize(x), type(result))
 *   uniform_dequantize  quant -> float: dequantize(x)
 *   any other op        the spec's dequantize_op_quantize: quantized
 *                       operands are dequantized to their expressed type, the
 *                       op runs on the floats, quantized results are
 *                       quantized to their type.
 *
 * quantize and dequantize compute in the expressed type the way the spec
 * writes them: scaled = round(x / scale), rounded half to even, plus the zero
 * point, clamped to the storage range; (q - zero_point) * scale. Scales are
 * rounded to the expressed type first (they are values of that type). */
#include "interp/interp_internal.h"

#include <math.h>
#include <string.h>

/* Ops whose executors handle storage integers as they are (they move or
 * reinterpret bits, they do not compute on the values). */
static bool S_storage_op(const char *name) {
  static const char *const names[] = {"stablehlo.constant", "stablehlo.bitcast_convert", "stablehlo.tuple",
                                      "stablehlo.get_tuple_element", "stablehlo.optimization_barrier"};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
    if (strcmp(name, names[i]) == 0) return true;
  return false;
}

static const shard_quant *S_quant(const shard_type *t) { return t && t->kind == SHARD_TYPE_TENSOR ? t->quant : NULL; }

/* Index along the quantization dimension of element i (0 per tensor). */
static int64_t S_axis_index(const shard_quant *q, const shard_type *t, int64_t i) {
  if (q->axis < 0) return 0;
  int64_t stride = 1;
  for (uint32_t d = t->rank; d-- > (uint32_t)q->axis + 1;) stride *= t->dims[d];
  return (i / stride) % t->dims[q->axis];
}

/* The float tensor type a quantized tensor type dequantizes to. */
static shard_type *S_expressed_type(interp_proc *p, const shard_type *t) {
  return shard_type_tensor(p->arena, t->rank, t->dims, t->quant->expressed, t->encoding);
}

/* A tensor the interpreter made itself (a device's piece of a value) may
 * have a shape its per-axis type does not fit: a located error. */
static bool S_fits(interp_proc *p, const shard_op *op, const shard_type *t) {
  const char *bad = shard_quant_check_shape(p->arena, t->quant, t->rank, t->dims);
  if (bad) return shard_interp_error(p, op, "the interpreter cannot run '%s' on %s: %s", op->name, t->text, bad);
  return true;
}

/* dequantize(x): a new tensor of the expressed type. */
static shard_tensor *S_dequantize(interp_proc *p, const shard_op *op, const shard_tensor *x, shard_type *rtype) {
  const shard_quant *q = S_quant(x->type);
  if (!S_fits(p, op, x->type)) return NULL;
  shard_tensor *r = shard_interp_tensor_like(p, rtype ? rtype : S_expressed_type(p, x->type), op);
  if (!r) return NULL;
  if (r->kind != SHARD_ELEM_FLOAT) {
    shard_interp_error(p, op, "dequantizing %s gives %s, not a float type", x->type->text, r->type->text);
    return NULL;
  }
  shard_float_fmt fmt = shard_float_format(q->expressed);
  for (int64_t i = 0; i < x->num; i++) {
    int64_t k = S_axis_index(q, x->type, i);
    double scale = shard_float_round(q->scales[k], fmt);
    /* storage - zero point is exact (storage of at most 32 bits), then
     * converted to the expressed type and scaled in it */
    double v = shard_float_round((double)(x->ints[i] - q->zero_points[k]), fmt);
    shard_interp_set_f(r, i, shard_float_round(v * scale, fmt));
  }
  return r;
}

/* quantize(x, type(r)) into r (storage integers); x holds floats (or
 * integers) of r's shape. */
static bool S_quantize_into(interp_proc *p, const shard_op *op, shard_tensor *r, const shard_tensor *x) {
  const shard_quant *q = S_quant(r->type);
  if (!S_fits(p, op, r->type)) return false;
  if (x->num != r->num)
    return shard_interp_error(p, op, "quantizing %s into %s: the shapes differ", x->type->text, r->type->text);
  shard_float_fmt fmt = shard_float_format(q->expressed);
  double lo = shard_float_round((double)q->storage_min, fmt), hi = shard_float_round((double)q->storage_max, fmt);
  for (int64_t i = 0; i < r->num; i++) {
    int64_t k = S_axis_index(q, r->type, i);
    double scale = shard_float_round(q->scales[k], fmt);
    double zp = shard_float_round((double)q->zero_points[k], fmt);
    double v = shard_float_round(interp_get_f(x, i), fmt);
    v = shard_float_round(v / scale, fmt);
    v = nearbyint(v); /* the default rounding mode: to nearest, ties to even */
    v = shard_float_round(v + zp, fmt);
    if (isnan(v)) v = zp; /* NaN has no storage value; the spec leaves it open */
    v = v < lo ? lo : v > hi ? hi : v;
    /* the range rounded to a narrow expressed type may lie outside it (u32
     * in f16 rounds to infinity): clamp again before converting */
    double smin = (double)q->storage_min, smax = (double)q->storage_max;
    v = v < smin ? smin : v > smax ? smax : v;
    r->ints[i] = (int64_t)v;
  }
  return true;
}

static bool S_uniform_quantize(interp_proc *p, interp_frame *f, shard_op *op) {
  shard_tensor *x = shard_interp_operand(p, f, op, 0);
  shard_tensor *r = x ? shard_interp_result(p, op, 0) : NULL;
  if (!r) return false;
  if (!S_quant(r->type))
    return shard_interp_error(p, op, "'stablehlo.uniform_quantize' result must be a quantized tensor, not %s",
                              r->type->text);
  if (x->num != r->num)
    return shard_interp_error(p, op, "'stablehlo.uniform_quantize' operand %s and result %s differ in shape",
                              x->type->text, r->type->text);
  if (S_quant(x->type)) {
    shard_tensor *d = S_dequantize(p, op, x, NULL);
    if (!d) return false;
    x = d;
  } else if (x->kind != SHARD_ELEM_FLOAT) {
    return shard_interp_error(p, op, "'stablehlo.uniform_quantize' operand must be a float or quantized tensor, not %s",
                              x->type->text);
  }
  if (!S_quantize_into(p, op, r, x)) return false;
  shard_interp_bind(f, &op->results[0], r);
  return true;
}

static bool S_uniform_dequantize(interp_proc *p, interp_frame *f, shard_op *op) {
  shard_tensor *x = shard_interp_operand(p, f, op, 0);
  if (!x) return false;
  if (!S_quant(x->type))
    return shard_interp_error(p, op, "'stablehlo.uniform_dequantize' operand must be a quantized tensor, not %s",
                              x->type->text);
  if (op->num_results != 1) return shard_interp_error(p, op, "'stablehlo.uniform_dequantize' has one result");
  shard_type *rt = op->results[0].type;
  if (!shard_type_is_static_tensor(rt) || shard_type_num_elements(rt) != x->num)
    return shard_interp_error(p, op, "'stablehlo.uniform_dequantize' operand %s and result %s differ in shape",
                              x->type->text, rt->text);
  shard_tensor *r = S_dequantize(p, op, x, rt);
  if (!r) return false;
  shard_interp_bind(f, &op->results[0], r);
  return true;
}

/* dequantize_op_quantize: the op runs on the dequantized operands with
 * float result types (a copy of the op whose results have the expressed
 * types, bound in a frame of its own), and its quantized results are
 * quantized back. */
static bool S_dequantize_op_quantize(interp_proc *p, interp_frame *f, shard_op *op) {
  if (op->num_regions)
    return shard_interp_error(p, op, "the interpreter does not support '%s' on quantized values", op->name);
  interp_frame fr = {f, {0}};
  bool ok = false;
  for (uint32_t i = 0; i < op->num_operands; i++) {
    shard_tensor *x = shard_interp_operand(p, f, op, i);
    if (!x) goto done;
    if (!S_quant(x->type)) continue;
    shard_tensor *d = S_dequantize(p, op, x, NULL);
    if (!d) goto done;
    shard_interp_bind(&fr, op->operands[i].value, d);
  }
  shard_op tmp = *op;
  tmp.results = SHARD_NEW_ARRAY(p->arena, shard_value, op->num_results + 1);
  for (uint32_t i = 0; i < op->num_results; i++) {
    tmp.results[i] = op->results[i];
    if (S_quant(op->results[i].type)) tmp.results[i].type = S_expressed_type(p, op->results[i].type);
  }
  ok = shard_interp_exec_plain_op(p, &fr, &tmp);
  if (!ok) goto done;
  for (uint32_t i = 0; i < op->num_results; i++) {
    shard_tensor *t = shard_interp_lookup(&fr, &tmp.results[i]);
    if (!t) {
      ok = shard_interp_error(p, op, "'%s' gave no result #%u", op->name, i);
      goto done;
    }
    if (S_quant(op->results[i].type)) {
      shard_tensor *r = shard_interp_result(p, op, i);
      if (!r || (t->kind != SHARD_ELEM_FLOAT && t->kind != SHARD_ELEM_SINT && t->kind != SHARD_ELEM_UINT)) {
        ok = r ? shard_interp_error(p, op, "the interpreter does not support '%s' giving %s", op->name,
                                    op->results[i].type->text)
               : false;
        goto done;
      }
      if (!S_quantize_into(p, op, r, t)) {
        ok = false;
        goto done;
      }
      t = r;
    }
    shard_interp_bind(f, &op->results[i], t);
  }
done:
  shard_ptrmap_release(&fr.values);
  return ok;
}

bool shard_interp_exec_quant_op(interp_proc *p, interp_frame *f, shard_op *op, bool *handled) {
  const char *n = op->name;
  if (strcmp(n, "stablehlo.uniform_quantize") == 0) return *handled = true, S_uniform_quantize(p, f, op);
  if (strcmp(n, "stablehlo.uniform_dequantize") == 0) return *handled = true, S_uniform_dequantize(p, f, op);
  bool quantized = false;
  for (uint32_t i = 0; i < op->num_results && !quantized; i++) quantized = S_quant(op->results[i].type) != NULL;
  for (uint32_t i = 0; i < op->num_operands && !quantized; i++)
    quantized = S_quant(op->operands[i].value->type) != NULL;
  if (!quantized || S_storage_op(n)) return *handled = false, true;
  *handled = true;
  return S_dequantize_op_quantize(p, f, op);
}
