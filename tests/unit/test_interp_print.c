/* What stablehlo-translate prints and reads at its edges (interp_print.c):
 * values in MLIR's float format, Tensor::print's nesting, dense printing
 * and --args; and the entry rule and ULP counting of the checks. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "interp/interp.h"
#include "ir/parse.h"
#include "ir/type.h"

/* One element of type `elem` given as payload text, printed as a result. */
static char *printed(const char *elem, const char *payload, bool dense) {
  static char out[512];
  shard_arena *a = shard_arena_new();
  shard_type *t = shard_type_tensor(a, 0, NULL, elem, NULL);
  shard_tensor *v;
  const char *err = NULL;
  cr_assert(shard_tensor_from_dense(a, payload, t, &v, &err), "%s: %s", payload, err);
  shard_buf b;
  shard_buf_init(&b);
  shard_interp_print_value(&b, v, dense);
  snprintf(out, sizeof out, "%s", shard_buf_str(&b));
  shard_buf_free(&b);
  shard_arena_free(a);
  return out;
}

Test(interp_print, mlir_float_format) {
  /* six digits when they read back to the value, zeros kept */
  cr_assert_str_eq(printed("f32", "1.0", false), "tensor<f32> {1.000000e+00}");
  cr_assert_str_eq(printed("f32", "-1.62724", false), "tensor<f32> {-1.627240e+00}");
  cr_assert_str_eq(printed("f16", "-2.333984375", false), "tensor<f16> {-2.333980e+00}");
  cr_assert_str_eq(printed("f32", "0.0", false), "tensor<f32> {0.000000e+00}");
  cr_assert_str_eq(printed("f32", "-0.0", false), "tensor<f32> {-0.000000e+00}");
  /* else the natural precision: 9 digits for f32, 17 for f64, plain up to
   * three zeros of padding, scientific with E beyond */
  cr_assert_str_eq(printed("f32", "2.16367912", false), "tensor<f32> {2.16367912}");
  cr_assert_str_eq(printed("f32", "0.00179659645", false), "tensor<f32> {0.00179659645}");
  cr_assert_str_eq(printed("f32", "-5.69104915E-4", false), "tensor<f32> {-5.69104915E-4}");
  cr_assert_str_eq(printed("f64", "1.9388880159015931", false), "tensor<f64> {1.9388880159015931}");
  /* no '.' in the natural form, infinities and NaN: hex */
  cr_assert_str_eq(printed("f32", "1234567.0", false), "tensor<f32> {0x4996B438}");
  cr_assert_str_eq(printed("f32", "0x7F800000", false), "tensor<f32> {0x7F800000}");
  cr_assert_str_eq(printed("f16", "0xFC00", false), "tensor<f16> {0xFC00}");
  /* integers and booleans as IntegerAttr prints them */
  cr_assert_str_eq(printed("ui8", "255", false), "tensor<ui8> {255}");
  cr_assert_str_eq(printed("i8", "-3", false), "tensor<i8> {-3}");
  cr_assert_str_eq(printed("i1", "true", true), "dense<true> : tensor<i1>");
  cr_assert_str_eq(printed("complex<f32>", "(1.5, -2.0)", false),
                   "tensor<complex<f32>> {[1.500000e+00, -2.000000e+00]}");
  cr_assert_str_eq(printed("complex<f32>", "(1.5, -2.0)", true),
                   "dense<(1.500000e+00,-2.000000e+00)> : tensor<complex<f32>>");
}

static shard_tensor *tensor(shard_arena *a, const char *payload, uint32_t rank, const int64_t *dims, const char *elem) {
  shard_tensor *v;
  const char *err = NULL;
  cr_assert(shard_tensor_from_dense(a, payload, shard_type_tensor(a, rank, dims, elem, NULL), &v, &err), "%s", err);
  return v;
}

Test(interp_print, nesting_and_dense) {
  shard_arena *a = shard_arena_new();
  shard_buf b;
  shard_buf_init(&b);
  int64_t d22[] = {2, 2}, d20[] = {2, 0}, d3[] = {3};
  shard_interp_print_value(&b, tensor(a, "[[1, 2], [3, 4]]", 2, d22, "i8"), false);
  cr_assert_str_eq(shard_buf_str(&b), "tensor<2x2xi8> {\n  [\n    [1, 2],\n    [3, 4]\n  ]\n}");
  shard_buf_clear(&b);
  shard_interp_print_value(&b, tensor(a, "", 2, d20, "i8"), false);
  cr_assert_str_eq(shard_buf_str(&b), "tensor<2x0xi8> {\n  [\n    [],\n    []\n  ]\n}");
  shard_buf_clear(&b);
  shard_interp_print_value(&b, tensor(a, "[[1, 2], [3, 4]]", 2, d22, "i8"), true);
  cr_assert_str_eq(shard_buf_str(&b), "dense<[[1, 2], [3, 4]]> : tensor<2x2xi8>");
  shard_buf_clear(&b);
  shard_interp_print_value(&b, tensor(a, "[7, 7, 7]", 1, d3, "i32"), true);
  cr_assert_str_eq(shard_buf_str(&b), "dense<7> : tensor<3xi32>");
  shard_buf_free(&b);
  shard_arena_free(a);
}

Test(interp_print, args) {
  shard_arena *a = shard_arena_new();
  shard_buf err;
  shard_buf_init(&err);
  shard_tensor **args;
  uint32_t n;
  cr_assert(
      shard_interp_parse_args(a, "[dense<1> : tensor<2xi32>, dense<[2.5, 3.0]> : tensor<2xf32>]", &args, &n, &err));
  cr_assert_eq(n, 2);
  cr_assert_str_eq(args[0]->type->text, "tensor<2xi32>");
  cr_assert_eq(args[0]->ints[1], 1);
  cr_assert_eq(args[1]->floats[0], 2.5);
  cr_assert_not(shard_interp_parse_args(a, "not_array", &args, &n, &err));
  cr_assert(strstr(shard_buf_str(&err), "expectected array attribute string for args"), "%s", shard_buf_str(&err));
  shard_buf_clear(&err);
  cr_assert_not(shard_interp_parse_args(a, "[4.0 : f32]", &args, &n, &err));
  cr_assert(strstr(shard_buf_str(&err), "expected dense elements attribute for args elements"), "%s",
            shard_buf_str(&err));
  shard_buf_free(&err);
  shard_arena_free(a);
}

static unsigned errors;
static char last_error[2048];
static void capture(void *ctx, const shard_diag *d) {
  (void)ctx;
  if (d->severity == SHARD_ERROR) {
    errors++;
    snprintf(last_error, sizeof last_error, "%s", d->message);
  }
}

/* Runs the entry of `text`; returns whether it passed, *nres its results. */
static bool run_entry(const char *text, uint32_t *nres) {
  static shard_source src;
  src = (shard_source){"t.mlir", text, strlen(text), 0};
  shard_diag_engine de;
  shard_diag_init(&de, capture, NULL);
  errors = 0;
  last_error[0] = 0;
  shard_parse_options o = {.allow_unregistered = true, .max_depth = 0};
  shard_module *m = shard_parse_module(&src, &o, &de);
  cr_assert(m, "parse failed: %s", last_error);
  shard_arena *a = shard_arena_new();
  shard_tensor **res;
  bool ok = shard_interp_run_entry(m, NULL, 0, NULL, a, &res, nres, &de, NULL);
  shard_arena_free(a);
  shard_module_free(m);
  return ok;
}

Test(interp_print, entry_rule) {
  uint32_t n;
  cr_assert(run_entry(
      "func.func @f() -> tensor<i32> { %c = stablehlo.constant dense<1> : tensor<i32> func.return %c : tensor<i32> }",
      &n));
  cr_assert_eq(n, 1, "the only function runs");
  cr_assert(run_entry("module {}", &n));
  cr_assert_eq(n, 0, "an empty module runs nothing");
  cr_assert_not(run_entry("func.func @f() { func.return } func.func @g() { func.return }", &n));
  cr_assert(strstr(last_error, "module must have entry func with name main"), "%s", last_error);
  cr_assert_not(run_entry("func.func @main(%x: tensor<i32>) { func.return }", &n));
  cr_assert(strstr(last_error, "provided 0 inputs but function expected 1"), "%s", last_error);
}

Test(interp_print, ulps_in_the_element_type) {
  uint32_t n;
  /* 3 bf16 steps apart at 1.0 (3 * 2^-7): within expect_close's 3 ULPs of
   * bf16 although 3 * 65536 ULPs of f32 */
  cr_assert(run_entry("func.func @main() {"
                      " %a = stablehlo.constant dense<[1.0, -0.0]> : tensor<2xbf16>"
                      " %b = stablehlo.constant dense<[1.0234375, 0.0]> : tensor<2xbf16>"
                      " stablehlo.custom_call @check.expect_close(%a, %b) {has_side_effect = true} : (tensor<2xbf16>, "
                      "tensor<2xbf16>) -> ()"
                      " func.return }",
                      &n),
            "%s", last_error);
  cr_assert_not(run_entry(
      "func.func @main() {"
      " %a = stablehlo.constant dense<1.0> : tensor<bf16>"
      " %b = stablehlo.constant dense<1.03125> : tensor<bf16>"
      " stablehlo.custom_call @check.expect_close(%a, %b) {has_side_effect = true} : (tensor<bf16>, tensor<bf16>) -> ()"
      " func.return }",
      &n));
  cr_assert(strstr(last_error, "ULP difference 4 in bf16"), "%s", last_error);
  /* expect_eq compares floats with IEEE ==: NaN never matches */
  cr_assert_not(run_entry("func.func @main() {"
                          " %a = stablehlo.constant dense<0x7FC00000> : tensor<f32>"
                          " check.expect_eq %a, %a : tensor<f32>"
                          " func.return }",
                          &n));
}
