/* ir/type.c: quantized element types (!quant.uniform<...>) are read,
 * checked against StableHLO's constraints and printed in MLIR's form. */
#include <criterion/criterion.h>
#include <string.h>

#include "ir/type.h"

static shard_arena *A;
static void S_setup(void) { A = shard_arena_new(); }
static void S_teardown(void) { shard_arena_free(A); }
TestSuite(type, .init = S_setup, .fini = S_teardown);

/* Parses text; returns the canonical print ("" on error, *err set). */
static const char *S_roundtrip(const char *text, shard_quant *q, const char **err, size_t *off) {
  *err = NULL;
  if (!shard_quant_parse(A, text, strlen(text), q, err, off)) return "";
  shard_buf b;
  shard_buf_init(&b);
  shard_quant_print(&b, q);
  const char *s = shard_arena_strndup(A, shard_buf_str(&b), b.len);
  shard_buf_free(&b);
  return s;
}

Test(type, per_tensor_fields_and_print) {
  shard_quant q;
  const char *err;
  size_t off;
  cr_assert_str_eq(S_roundtrip("!quant.uniform<i8:f32, 0.1:-30>", &q, &err, &off),
                   "!quant.uniform<i8:f32, 1.000000e-01:-30>");
  cr_assert(q.is_signed);
  cr_assert_eq(q.storage_bits, 8);
  cr_assert_eq(q.storage_min, -128);
  cr_assert_eq(q.storage_max, 127);
  cr_assert_str_eq(q.expressed, "f32");
  cr_assert_eq(q.axis, -1);
  cr_assert_eq(q.num_scales, 1);
  cr_assert_eq(q.zero_points[0], -30);
  /* a zero point of 0 is not printed; blanks are allowed between tokens */
  cr_assert_str_eq(S_roundtrip("!quant.uniform< u8 : bf16 , 2.0e+2 >", &q, &err, &off),
                   "!quant.uniform<u8:bf16, 2.000000e+02>");
  cr_assert(!q.is_signed);
  cr_assert_eq(q.storage_max, 255);
  /* ui8 is u8; si8 is i8; a default range is not printed, another one is */
  cr_assert_str_eq(S_roundtrip("!quant.uniform<ui8<0:255>:f16, 0.5:3>", &q, &err, &off),
                   "!quant.uniform<u8:f16, 5.000000e-01:3>");
  cr_assert_str_eq(S_roundtrip("!quant.uniform<si8<-127:127>:f64, 0.5>", &q, &err, &off),
                   "!quant.uniform<i8<-127:127>:f64, 5.000000e-01>");
  cr_assert_eq(q.storage_min, -127);
}

Test(type, per_axis_and_shape_check) {
  shard_quant q;
  const char *err;
  size_t off;
  cr_assert_str_eq(S_roundtrip("!quant.uniform<i8:f32:1, {0.1:-30, 0.5:-20, 2.0}>", &q, &err, &off),
                   "!quant.uniform<i8:f32:1, {1.000000e-01:-30,5.000000e-01:-20,2.000000e+00}>");
  cr_assert_eq(q.axis, 1);
  cr_assert_eq(q.num_scales, 3);
  cr_assert_eq(q.zero_points[2], 0);
  int64_t ok_dims[] = {4, 3}, bad_dims[] = {4, 2};
  cr_assert_null(shard_quant_check_shape(A, &q, 2, ok_dims));
  cr_assert_not_null(shard_quant_check_shape(A, &q, 2, bad_dims));
  cr_assert_not_null(shard_quant_check_shape(A, &q, 1, ok_dims));
  cr_assert_str_eq(shard_quant_text_with_axis(A, &q, 0),
                   "!quant.uniform<i8:f32:0, {1.000000e-01:-30,5.000000e-01:-20,2.000000e+00}>");
}

Test(type, constraint_violations_are_located) {
  static const struct {
    const char *text, *msg;
    size_t off;
  } cases[] = {
      {"!quant.uniform<f32:f32, 0.1>", "illegal quantized storage type alias", 15},
      {"!quant.uniform<i33:f32, 0.1>", "illegal storage type size: 33", 15},
      {"!quant.uniform<i8<-129:0>:f32, 0.1>", "illegal storage type minimum: -129", 18},
      {"!quant.uniform<u8<0:256>:f32, 0.1>", "illegal storage type maximum: 256", 20},
      {"!quant.uniform<i8<5:5>:f32, 0.1>", "illegal storage min and storage max: (5:5)", 18},
      {"!quant.uniform<i8:i32, 0.1>", "the expressed type of a quantized type must be f16, bf16, f32 or f64", 18},
      {"!quant.uniform<i8:f32, -0.1>", "scale -1.000000e-01 out of expressed type range [1.401298e-45, 3.402823e+38]",
       23},
      {"!quant.uniform<i8:f32, 0.1:128>", "zero point 128 is outside the storage range [-128, 127]", 27},
      {"!quant.uniform<i8<-10:10>:f32:0, {0.1:3, 0.2:11}>", "zero point 11 is outside the storage range [-10, 10]", 45},
      {"!quant.uniform<i8:f32:{0:2}, {0.1}>", "sub-channel quantized types are not supported", 22},
      {"!quant.uniform<i8:f32, 0.1", "expected '>'", 26},
      {"!quant.uniform<i8:f32, 0x3F80>", "expected floating point literal", 23},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    shard_quant q;
    const char *err;
    size_t off;
    cr_assert_str_eq(S_roundtrip(cases[i].text, &q, &err, &off), "", "%s", cases[i].text);
    cr_assert_str_eq(err, cases[i].msg, "%s", cases[i].text);
    cr_assert_eq(off, cases[i].off, "%s: offset %zu", cases[i].text, off);
  }
}

Test(type, tensor_types_know_their_quantized_element_type) {
  int64_t dims[] = {2, 3};
  shard_type *t =
      shard_type_tensor(A, 2, dims, "!quant.uniform<i8:f32:1, {1.000000e-01,2.000000e-01,3.000000e-01}>", NULL);
  cr_assert_not_null(t->quant);
  cr_assert_eq(t->quant->num_scales, 3);
  cr_assert_eq(shard_elem_bits(t->elem), 8);
  cr_assert_eq(shard_elem_bits("!quant.uniform<u16:f32, 1.000000e-01>"), 16);
  cr_assert_null(shard_type_tensor(A, 2, dims, "f32", NULL)->quant);
}
