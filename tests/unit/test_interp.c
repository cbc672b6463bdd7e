/* The reference interpreter: element formats, dense payloads, data ops,
 * collectives across run_parallel devices and failing checks. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "interp/interp.h"
#include "ir/parse.h"

static unsigned errors;
static char last_error[2048];
static void capture(void *ctx, const shard_diag *d) {
  (void)ctx;
  if (d->severity == SHARD_ERROR) {
    errors++;
    snprintf(last_error, sizeof last_error, "%s", d->message);
  }
}

static shard_source src;

static shard_module *parse(const char *text, shard_diag_engine *de) {
  src = (shard_source){"t.mlir", text, strlen(text), 0};
  shard_parse_options o = {.allow_unregistered = true, .max_depth = 0};
  shard_module *m = shard_parse_module(&src, &o, de);
  cr_assert(m, "parse failed: %s", last_error);
  return m;
}

/* Runs @main; returns whether it passed. */
static bool run(const char *text) {
  shard_diag_engine de;
  errors = 0;
  last_error[0] = 0;
  shard_diag_init(&de, capture, NULL);
  shard_module *m = parse(text, &de);
  bool ok = shard_interp_run_main(m, NULL, &de, NULL);
  shard_module_free(m);
  return ok;
}

Test(interp, rounding_of_narrow_floats) {
  cr_assert_eq(shard_elem_round_float(1.0 + 1.0 / 4096, 16, false), 1.0); /* f16 has 10 fraction bits */
  cr_assert_eq(shard_elem_round_float(1.0 + 3.0 / 2048, 16, false), 1.0 + 2.0 / 1024);
  cr_assert_eq(shard_elem_round_float(1.0 + 1.0 / 256, 16, true), 1.0); /* bf16: 7 bits, tie to even */
  cr_assert(isinf(shard_elem_round_float(70000.0, 16, false)));
  cr_assert_eq(shard_elem_round_float(0.1, 32, false), (double)0.1f);
  cr_assert_eq(shard_elem_wrap_int(300, SHARD_ELEM_SINT, 8), 44);
  cr_assert_eq(shard_elem_wrap_int(-1, SHARD_ELEM_UINT, 8), 255);
  cr_assert_eq(shard_elem_wrap_int(128, SHARD_ELEM_SINT, 8), -128);
}

Test(interp, dense_payloads) {
  shard_arena *a = shard_arena_new();
  int64_t dims[2] = {2, 2};
  shard_type *t = shard_type_tensor(a, 2, dims, "f32", NULL);
  shard_tensor *x;
  const char *err = NULL;
  cr_assert(shard_tensor_from_dense(a, "[[1.5, 2.0], [0x7FC00000, -3.0e+00]]", t, &x, &err));
  cr_assert_eq(x->floats[0], 1.5);
  cr_assert(isnan(x->floats[2]));
  cr_assert_eq(x->floats[3], -3.0);
  cr_assert(shard_tensor_from_dense(a, "7.0", t, &x, &err));
  cr_assert_eq(x->floats[3], 7.0);
  cr_assert_not(shard_tensor_from_dense(a, "[1.0, 2.0, 3.0]", t, &x, &err));
  shard_type *b = shard_type_tensor(a, 2, dims, "i1", NULL);
  cr_assert(shard_tensor_from_dense(a, "[[true, false], [false, true]]", b, &x, &err));
  cr_assert_eq(x->ints[0] + x->ints[1] + x->ints[2] + x->ints[3], 2);
  shard_buf out;
  shard_buf_init(&out);
  shard_type *i = shard_type_tensor(a, 2, dims, "i32", NULL);
  cr_assert(shard_tensor_from_dense(a, "\"0x01000000FFFFFFFF0300000004000000\"", i, &x, &err));
  shard_tensor_print(&out, x);
  cr_assert_str_eq(shard_buf_str(&out), "[[1, -1], [3, 4]]");
  shard_buf_free(&out);
  shard_arena_free(a);
}

Test(interp, call_computes_data_ops) {
  const char *text =
      "func.func @f(%a: tensor<2x3xf32>, %b: tensor<3x2xf32>) -> (tensor<2x2xf32>, tensor<3xf32>, tensor<3x2xf32>) {\n"
      "  %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<2x3xf32>, tensor<3x2xf32>) -> "
      "tensor<2x2xf32>\n"
      "  %c = stablehlo.constant dense<0.0> : tensor<f32>\n"
      "  %1 = stablehlo.reduce(%a init: %c) applies stablehlo.add across dimensions = [0] : (tensor<2x3xf32>, "
      "tensor<f32>) -> tensor<3xf32>\n"
      "  %2 = stablehlo.transpose %a, dims = [1, 0] : (tensor<2x3xf32>) -> tensor<3x2xf32>\n"
      "  return %0, %1, %2 : tensor<2x2xf32>, tensor<3xf32>, tensor<3x2xf32>\n"
      "}\n";
  shard_diag_engine de;
  shard_diag_init(&de, capture, NULL);
  shard_module *m = parse(text, &de);
  shard_arena *a = shard_arena_new();
  int64_t d23[2] = {2, 3}, d32[2] = {3, 2};
  shard_tensor *args[2];
  const char *err;
  cr_assert(
      shard_tensor_from_dense(a, "[[1, 2, 3], [4, 5, 6]]", shard_type_tensor(a, 2, d23, "f32", NULL), &args[0], &err));
  cr_assert(shard_tensor_from_dense(a, "[[1, 0], [0, 1], [1, 1]]", shard_type_tensor(a, 2, d32, "f32", NULL), &args[1],
                                    &err));
  shard_tensor **res;
  uint32_t n;
  cr_assert(shard_interp_call(m, "f", args, 2, NULL, a, &res, &n, &de), "%s", last_error);
  cr_assert_eq(n, 3);
  double dot[4] = {4, 5, 10, 11}, sum[3] = {5, 7, 9}, tr[6] = {1, 4, 2, 5, 3, 6};
  for (int i = 0; i < 4; i++) cr_assert_eq(res[0]->floats[i], dot[i]);
  for (int i = 0; i < 3; i++) cr_assert_eq(res[1]->floats[i], sum[i]);
  for (int i = 0; i < 6; i++) cr_assert_eq(res[2]->floats[i], tr[i]);
  shard_arena_free(a);
  shard_module_free(m);
}

Test(interp, collectives_across_devices) {
  /* four devices: all_gather of halves over pairs, all_reduce over all,
   * collective_permute in a ring */
  const char *text =
      "func.func @f(%a: tensor<1xi32>) -> (tensor<2xi32>, tensor<1xi32>, tensor<1xi32>) {\n"
      "  %0 = \"stablehlo.all_gather\"(%a) {all_gather_dim = 0 : i64, channel_handle = "
      "#stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1], [2, 3]]> : tensor<2x2xi64>, "
      "use_global_device_ids} : (tensor<1xi32>) -> tensor<2xi32>\n"
      "  %1 = \"stablehlo.all_reduce\"(%a) ({\n"
      "  ^bb0(%x: tensor<i32>, %y: tensor<i32>):\n"
      "    %s = stablehlo.add %x, %y : tensor<i32>\n"
      "    stablehlo.return %s : tensor<i32>\n"
      "  }) {channel_handle = #stablehlo.channel_handle<handle = 2, type = 1>, replica_groups = dense<[[0, 1, 2, 3]]> "
      ": tensor<1x4xi64>, use_global_device_ids} : (tensor<1xi32>) -> tensor<1xi32>\n"
      "  %2 = \"stablehlo.collective_permute\"(%a) {channel_handle = #stablehlo.channel_handle<handle = 3, type = 1>, "
      "source_target_pairs = dense<[[0, 1], [1, 2], [2, 3], [3, 0]]> : tensor<4x2xi64>} : (tensor<1xi32>) -> "
      "tensor<1xi32>\n"
      "  return %0, %1, %2 : tensor<2xi32>, tensor<1xi32>, tensor<1xi32>\n"
      "}\n"
      "func.func @main() {\n"
      "  %a = stablehlo.constant dense<[1]> : tensor<1xi32>\n"
      "  %b = stablehlo.constant dense<[2]> : tensor<1xi32>\n"
      "  %c = stablehlo.constant dense<[3]> : tensor<1xi32>\n"
      "  %d = stablehlo.constant dense<[4]> : tensor<1xi32>\n"
      "  %r:12 = \"interpreter.run_parallel\"(%a, %b, %c, %d) {programs = [[@f, @f, @f, @f]]} : (tensor<1xi32>, "
      "tensor<1xi32>, tensor<1xi32>, tensor<1xi32>) -> (tensor<2xi32>, tensor<1xi32>, tensor<1xi32>, tensor<2xi32>, "
      "tensor<1xi32>, tensor<1xi32>, tensor<2xi32>, tensor<1xi32>, tensor<1xi32>, tensor<2xi32>, tensor<1xi32>, "
      "tensor<1xi32>)\n"
      "  check.expect_eq_const %r#0, dense<[1, 2]> : tensor<2xi32>\n"
      "  check.expect_eq_const %r#6, dense<[3, 4]> : tensor<2xi32>\n"
      "  check.expect_eq_const %r#4, dense<10> : tensor<1xi32>\n"
      "  check.expect_eq_const %r#2, dense<4> : tensor<1xi32>\n"
      "  check.expect_eq_const %r#5, dense<1> : tensor<1xi32>\n"
      "  return\n"
      "}\n";
  cr_assert(run(text), "%s", last_error);
  cr_assert_eq(errors, 0);
}

Test(interp, failed_check_is_located) {
  const char *text = "func.func @main() {\n"
                     "  %a = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf32>\n"
                     "  %b = stablehlo.constant dense<[1.0, 2.5]> : tensor<2xf32>\n"
                     "  check.expect_almost_eq %a, %b, tolerance = 1.0 : tensor<2xf32>\n"
                     "  check.expect_eq %a, %b : tensor<2xf32>\n"
                     "  return\n"
                     "}\n";
  cr_assert_not(run(text));
  cr_assert_eq(errors, 1);
  cr_assert(strstr(last_error, "check.expect_eq failed: element [1] is 2, expected 2.5"), "%s", last_error);
}

Test(interp, unsupported_op_is_an_error) {
  const char *text = "func.func @main() {\n"
                     "  %a = stablehlo.constant dense<1.0> : tensor<2xf32>\n"
                     "  %b = \"my.kernel\"(%a) : (tensor<2xf32>) -> tensor<2xf32>\n"
                     "  return\n"
                     "}\n";
  cr_assert_not(run(text));
  cr_assert(strstr(last_error, "does not support 'my.kernel'"), "%s", last_error);
}

/* ---- indexed and windowed ops (expected values from the StableHLO spec's
 * examples, and hand-computed group convolutions) ---- */

Test(interp, gather_with_batching_dims_and_clamped_starts) {
  const char *text =
      "func.func @main() {\n"
      "  %i = stablehlo.iota dim = 0 : tensor<48xi32>\n"
      "  %one = stablehlo.constant dense<1> : tensor<48xi32>\n"
      "  %i1 = stablehlo.add %i, %one : tensor<48xi32>\n"
      "  %x = stablehlo.reshape %i1 : (tensor<48xi32>) -> tensor<2x3x4x2xi32>\n"
      "  %s = stablehlo.constant dense<[[[[0, 0], [1, 0], [2, 1]], [[0, 1], [1, 1], [0, 9]]],"
      " [[[0, 0], [2, 1], [2, 2]], [[1, 2], [0, 1], [1, 0]]]]> : tensor<2x2x3x2xi64>\n"
      "  %r = \"stablehlo.gather\"(%x, %s) {dimension_numbers = #stablehlo.gather<offset_dims = [3, 4],"
      " collapsed_slice_dims = [1], operand_batching_dims = [0], start_indices_batching_dims = [1],"
      " start_index_map = [2, 1], index_vector_dim = 3>, slice_sizes = array<i64: 1, 1, 2, 2>,"
      " indices_are_sorted = false} : (tensor<2x3x4x2xi32>, tensor<2x2x3x2xi64>) -> tensor<2x2x3x2x2xi32>\n"
      "  check.expect_eq_const %r, dense<[[[[[1, 2], [3, 4]], [[3, 4], [5, 6]], [[13, 14], [15, 16]]],"
      " [[[33, 34], [35, 36]], [[35, 36], [37, 38]], [[41, 42], [43, 44]]]],"
      " [[[[1, 2], [3, 4]], [[13, 14], [15, 16]], [[21, 22], [23, 24]]],"
      " [[[43, 44], [45, 46]], [[33, 34], [35, 36]], [[27, 28], [29, 30]]]]]> : tensor<2x2x3x2x2xi32>\n"
      "  return\n"
      "}\n";
  cr_assert(run(text), "%s", last_error);
}

Test(interp, scatter_skips_out_of_bounds_updates) {
  const char *text =
      "func.func @main() {\n"
      "  %i = stablehlo.iota dim = 0 : tensor<48xi64>\n"
      "  %one = stablehlo.constant dense<1> : tensor<48xi64>\n"
      "  %i1 = stablehlo.add %i, %one : tensor<48xi64>\n"
      "  %x = stablehlo.reshape %i1 : (tensor<48xi64>) -> tensor<2x3x4x2xi64>\n"
      "  %s = stablehlo.constant dense<[[[[0, 0], [1, 0], [2, 1]], [[0, 1], [1, 1], [0, 9]]],"
      " [[[0, 0], [2, 1], [2, 2]], [[1, 2], [0, 1], [1, 0]]]]> : tensor<2x2x3x2xi64>\n"
      "  %u = stablehlo.constant dense<1> : tensor<2x2x3x2x2xi64>\n"
      "  %r = \"stablehlo.scatter\"(%x, %s, %u) ({\n"
      "  ^bb0(%a: tensor<i64>, %b: tensor<i64>):\n"
      "    %0 = stablehlo.add %a, %b : tensor<i64>\n"
      "    stablehlo.return %0 : tensor<i64>\n"
      "  }) {scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [3, 4], inserted_window_dims = [1],"
      " input_batching_dims = [0], scatter_indices_batching_dims = [1], scatter_dims_to_operand_dims = [2, 1],"
      " index_vector_dim = 3>} : (tensor<2x3x4x2xi64>, tensor<2x2x3x2xi64>, tensor<2x2x3x2x2xi64>) -> "
      "tensor<2x3x4x2xi64>\n"
      "  check.expect_eq_const %r, dense<[[[[3, 4], [6, 7], [6, 7], [7, 8]], [[9, 10], [11, 12], [15, 16], [17, 18]],"
      " [[17, 18], [19, 20], [22, 23], [24, 25]]], [[[25, 26], [28, 29], [30, 31], [31, 32]],"
      " [[35, 36], [38, 39], [38, 39], [39, 40]], [[41, 42], [44, 45], [46, 47], [47, 48]]]]> : tensor<2x3x4x2xi64>\n"
      "  return\n"
      "}\n";
  cr_assert(run(text), "%s", last_error);
}

Test(interp, reduce_window_with_dilations_and_padding) {
  const char *text =
      "func.func @main() {\n"
      "  %x = stablehlo.constant dense<[[1, 2], [3, 4], [5, 6]]> : tensor<3x2xi64>\n"
      "  %z = stablehlo.constant dense<0> : tensor<i64>\n"
      "  %r = \"stablehlo.reduce_window\"(%x, %z) ({\n"
      "  ^bb0(%a: tensor<i64>, %b: tensor<i64>):\n"
      "    %0 = stablehlo.add %a, %b : tensor<i64>\n"
      "    stablehlo.return %0 : tensor<i64>\n"
      "  }) {window_dimensions = array<i64: 2, 1>, window_strides = array<i64: 4, 1>,"
      " base_dilations = array<i64: 2, 1>, window_dilations = array<i64: 3, 1>,"
      " padding = dense<[[2, 1], [0, 0]]> : tensor<2x2xi64>} : (tensor<3x2xi64>, tensor<i64>) -> tensor<2x2xi64>\n"
      "  check.expect_eq_const %r, dense<[[0, 0], [3, 4]]> : tensor<2x2xi64>\n"
      /* max over 1x2 windows with stride 2 */
      "  %f = stablehlo.constant dense<[[1.0, -2.0, 3.5, 0.5]]> : tensor<1x4xf32>\n"
      "  %m = stablehlo.constant dense<0xFF800000> : tensor<f32>\n"
      "  %w = \"stablehlo.reduce_window\"(%f, %m) <{window_dimensions = array<i64: 1, 2>, window_strides = array<i64: "
      "1, 2>}> ({\n"
      "  ^bb0(%a: tensor<f32>, %b: tensor<f32>):\n"
      "    %0 = stablehlo.maximum %a, %b : tensor<f32>\n"
      "    stablehlo.return %0 : tensor<f32>\n"
      "  }) : (tensor<1x4xf32>, tensor<f32>) -> tensor<1x2xf32>\n"
      "  check.expect_eq_const %w, dense<[[1.0, 3.5]]> : tensor<1x2xf32>\n"
      "  return\n"
      "}\n";
  cr_assert(run(text), "%s", last_error);
}

Test(interp, select_and_scatter_folds_into_selected_elements) {
  const char *text = "func.func @main() {\n"
                     "  %x = stablehlo.constant dense<[[1, 5], [2, 5], [3, 6], [4, 4]]> : tensor<4x2xi64>\n"
                     "  %s = stablehlo.constant dense<[[5, 6], [7, 8]]> : tensor<2x2xi64>\n"
                     "  %z = stablehlo.constant dense<0> : tensor<i64>\n"
                     "  %r = \"stablehlo.select_and_scatter\"(%x, %s, %z) ({\n"
                     "  ^bb0(%a: tensor<i64>, %b: tensor<i64>):\n"
                     "    %0 = stablehlo.compare GE, %a, %b : (tensor<i64>, tensor<i64>) -> tensor<i1>\n"
                     "    stablehlo.return %0 : tensor<i1>\n"
                     "  }, {\n"
                     "  ^bb0(%a: tensor<i64>, %b: tensor<i64>):\n"
                     "    %0 = stablehlo.add %a, %b : tensor<i64>\n"
                     "    stablehlo.return %0 : tensor<i64>\n"
                     "  }) {window_dimensions = array<i64: 3, 1>, window_strides = array<i64: 2, 1>,"
                     " padding = dense<[[0, 1], [0, 0]]> : tensor<2x2xi64>} : (tensor<4x2xi64>, tensor<2x2xi64>, "
                     "tensor<i64>) -> tensor<4x2xi64>\n"
                     "  check.expect_eq_const %r, dense<[[0, 0], [0, 0], [5, 14], [7, 0]]> : tensor<4x2xi64>\n"
                     "  return\n"
                     "}\n";
  cr_assert(run(text), "%s", last_error);
}

Test(interp, convolution_with_lhs_dilation_and_groups) {
  const char *text =
      "func.func @main() {\n"
      "  %l = stablehlo.constant dense<[[[[1], [2], [5], [6]], [[3], [4], [7], [8]], [[10], [11], [14], [15]],"
      " [[12], [13], [16], [17]]]]> : tensor<1x4x4x1xi64>\n"
      "  %k = stablehlo.constant dense<1> : tensor<3x3x1x1xi64>\n"
      "  %r = stablehlo.convolution(%l, %k) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f],"
      " window = {stride = [4, 4], pad = [[0, 0], [0, 0]], lhs_dilate = [2, 2], rhs_dilate = [1, 1]}"
      " {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x4x4x1xi64>, tensor<3x3x1x1xi64>) -> "
      "tensor<1x2x2x1xi64>\n"
      "  check.expect_eq_const %r, dense<[[[[10], [26]], [[46], [62]]]]> : tensor<1x2x2x1xi64>\n"
      /* two feature groups: output feature g sees only input feature g */
      "  %a = stablehlo.constant dense<[[[1, 2]]]> : tensor<1x1x2xi32>\n"
      "  %w = stablehlo.constant dense<[[[10, 20]]]> : tensor<1x1x2xi32>\n"
      "  %fg = stablehlo.convolution(%a, %w) dim_numbers = [b, 0, f]x[0, i, o]->[b, 0, f], window = {}"
      " {batch_group_count = 1 : i64, feature_group_count = 2 : i64} : (tensor<1x1x2xi32>, tensor<1x1x2xi32>) -> "
      "tensor<1x1x2xi32>\n"
      "  check.expect_eq_const %fg, dense<[[[10, 40]]]> : tensor<1x1x2xi32>\n"
      /* two batch groups: output feature g sees only batch g */
      "  %b = stablehlo.constant dense<[[[1]], [[2]]]> : tensor<2x1x1xi32>\n"
      "  %bg = stablehlo.convolution(%b, %w) dim_numbers = [b, 0, f]x[0, i, o]->[b, 0, f], window = {}"
      " {batch_group_count = 2 : i64, feature_group_count = 1 : i64} : (tensor<2x1x1xi32>, tensor<1x1x2xi32>) -> "
      "tensor<1x1x2xi32>\n"
      "  check.expect_eq_const %bg, dense<[[[10, 40]]]> : tensor<1x1x2xi32>\n"
      "  return\n"
      "}\n";
  cr_assert(run(text), "%s", last_error);
}

Test(interp, convolution_group_count_must_fit) {
  const char *text = "func.func @main() {\n"
                     "  %a = stablehlo.constant dense<1> : tensor<1x1x1xi32>\n"
                     "  %w = stablehlo.constant dense<1> : tensor<1x1x2xi32>\n"
                     "  %fg = stablehlo.convolution(%a, %w) dim_numbers = [b, 0, f]x[0, i, o]->[b, 0, f], window = {}"
                     " {batch_group_count = 1 : i64, feature_group_count = 2 : i64} : (tensor<1x1x1xi32>, "
                     "tensor<1x1x2xi32>) -> tensor<1x1x2xi32>\n"
                     "  return\n"
                     "}\n";
  cr_assert_not(run(text));
  cr_assert(strstr(last_error, "group counts do not fit"), "%s", last_error);
}

/* ---- complex numbers ---- */

Test(interp, complex_payloads_and_arithmetic) {
  shard_arena *a = shard_arena_new();
  int64_t dims[1] = {2};
  shard_tensor *x;
  const char *err = NULL;
  cr_assert(shard_tensor_from_dense(a, "[(1.5, -2.0), (0.0, 3.0)]", shard_type_tensor(a, 1, dims, "complex<f32>", NULL),
                                    &x, &err),
            "%s", err);
  cr_assert_eq(x->kind, SHARD_ELEM_COMPLEX);
  cr_assert_eq(x->floats[0], 1.5);
  cr_assert_eq(x->floats[1], -2.0);
  cr_assert_eq(x->floats[3], 3.0);
  cr_assert_not(
      shard_tensor_from_dense(a, "[1.0, 2.0]", shard_type_tensor(a, 1, dims, "complex<f32>", NULL), &x, &err));
  shard_arena_free(a);
  const char *text = "func.func @main() {\n"
                     "  %a = stablehlo.constant dense<[(1.0, 2.0), (0.5, -1.0)]> : tensor<2xcomplex<f64>>\n"
                     "  %b = stablehlo.constant dense<[(3.0, 4.0), (2.0, 0.0)]> : tensor<2xcomplex<f64>>\n"
                     "  %m = stablehlo.multiply %a, %b : tensor<2xcomplex<f64>>\n"
                     "  check.expect_eq_const %m, dense<[(-5.0, 10.0), (1.0, -2.0)]> : tensor<2xcomplex<f64>>\n"
                     "  %s = stablehlo.add %a, %b : tensor<2xcomplex<f64>>\n"
                     "  %re = stablehlo.real %s : (tensor<2xcomplex<f64>>) -> tensor<2xf64>\n"
                     "  %im = stablehlo.imag %s : (tensor<2xcomplex<f64>>) -> tensor<2xf64>\n"
                     "  check.expect_eq_const %re, dense<[4.0, 2.5]> : tensor<2xf64>\n"
                     "  check.expect_eq_const %im, dense<[6.0, -1.0]> : tensor<2xf64>\n"
                     "  %c = stablehlo.complex %re, %im : tensor<2xcomplex<f64>>\n"
                     "  check.expect_eq %c, %s : tensor<2xcomplex<f64>>\n"
                     "  %abs = stablehlo.abs %b : (tensor<2xcomplex<f64>>) -> tensor<2xf64>\n"
                     "  check.expect_eq_const %abs, dense<[5.0, 2.0]> : tensor<2xf64>\n"
                     "  check.expect_eq %a, %b : tensor<2xcomplex<f64>>\n"
                     "  return\n"
                     "}\n";
  cr_assert_not(run(text));
  cr_assert_eq(errors, 1);
  cr_assert(strstr(last_error, "element [0] is (1, 2), expected (3, 4)"), "%s", last_error);
}

Test(interp, fft_kinds) {
  const char *text =
      "func.func @main() {\n"
      "  %d = stablehlo.constant dense<[(1.0, 0.0), (0.0, 0.0), (0.0, 0.0), (0.0, 0.0)]> : tensor<4xcomplex<f32>>\n"
      "  %fd = stablehlo.fft %d, type = FFT, length = [4] : (tensor<4xcomplex<f32>>) -> tensor<4xcomplex<f32>>\n"
      "  check.expect_eq_const %fd, dense<[(1.0, 0.0), (1.0, 0.0), (1.0, 0.0), (1.0, 0.0)]> : tensor<4xcomplex<f32>>\n"
      "  %x = stablehlo.constant dense<[(1.0, 0.0), (2.0, 0.0), (3.0, 0.0), (4.0, 0.0)]> : tensor<4xcomplex<f64>>\n"
      "  %f = stablehlo.fft %x, type = FFT, length = [4] : (tensor<4xcomplex<f64>>) -> tensor<4xcomplex<f64>>\n"
      "  %fr = stablehlo.real %f : (tensor<4xcomplex<f64>>) -> tensor<4xf64>\n"
      "  %fi = stablehlo.imag %f : (tensor<4xcomplex<f64>>) -> tensor<4xf64>\n"
      "  check.expect_almost_eq_const %fr, dense<[10.0, -2.0, -2.0, -2.0]> : tensor<4xf64>\n"
      "  check.expect_almost_eq_const %fi, dense<[0.0, 2.0, 0.0, -2.0]> : tensor<4xf64>\n"
      "  %b = stablehlo.fft %f, type = IFFT, length = [4] : (tensor<4xcomplex<f64>>) -> tensor<4xcomplex<f64>>\n"
      "  %br = stablehlo.real %b : (tensor<4xcomplex<f64>>) -> tensor<4xf64>\n"
      "  check.expect_almost_eq_const %br, dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf64>\n"
      "  %r = stablehlo.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf64>\n"
      "  %rf = stablehlo.fft %r, type = RFFT, length = [4] : (tensor<4xf64>) -> tensor<3xcomplex<f64>>\n"
      "  %rfi = stablehlo.imag %rf : (tensor<3xcomplex<f64>>) -> tensor<3xf64>\n"
      "  check.expect_almost_eq_const %rfi, dense<[0.0, 2.0, 0.0]> : tensor<3xf64>\n"
      "  %ir = stablehlo.fft %rf, type = IRFFT, length = [4] : (tensor<3xcomplex<f64>>) -> tensor<4xf64>\n"
      "  check.expect_almost_eq_const %ir, dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf64>\n"
      "  return\n"
      "}\n";
  cr_assert(run(text), "%s", last_error);
}

/* ---- mesh-axes replica groups ---- */

Test(interp, mesh_axes_replica_groups) {
  /* 2x2 mesh: gathering over "y" pairs devices {0,1} and {2,3}; over
   * ["y", "x"] of a mesh with device ids [3, 2, 1, 0] the one group is
   * (y0x0, y0x1, y1x0, y1x1) = devices 3, 1, 2, 0 */
  const char *text =
      "sdy.mesh @m = <[\"x\"=2, \"y\"=2]>\n"
      "func.func @gy(%a: tensor<1xi32>) -> tensor<2xi32> {\n"
      "  %0 = \"stablehlo.all_gather\"(%a) <{all_gather_dim = 0 : i64, channel_handle = "
      "#stablehlo.channel_handle<handle = 1, type = 1>,"
      " replica_groups = #stablehlo.replica_group_mesh_axes<mesh = @m, axes = [#stablehlo.axis_ref<name = \"y\">]>,"
      " use_global_device_ids}> : (tensor<1xi32>) -> tensor<2xi32>\n"
      "  return %0 : tensor<2xi32>\n"
      "}\n"
      "func.func @gyx(%a: tensor<1xi32>) -> tensor<4xi32> {\n"
      "  %0 = \"stablehlo.all_gather\"(%a) <{all_gather_dim = 0 : i64, channel_handle = "
      "#stablehlo.channel_handle<handle = 1, type = 1>,"
      " replica_groups = #stablehlo.replica_group_mesh_axes<mesh = #stablehlo.mesh<axes = [#stablehlo.mesh_axis<name = "
      "\"x\", size = 2>,"
      " #stablehlo.mesh_axis<name = \"y\", size = 2>], device_ids = dense<[3, 2, 1, 0]> : tensor<4xi64>>,"
      " axes = [#stablehlo.axis_ref<name = \"y\">, #stablehlo.axis_ref<name = \"x\">]>,"
      " use_global_device_ids}> : (tensor<1xi32>) -> tensor<4xi32>\n"
      "  return %0 : tensor<4xi32>\n"
      "}\n"
      "func.func @main() {\n"
      "  %c0 = stablehlo.constant dense<[10]> : tensor<1xi32>\n"
      "  %c1 = stablehlo.constant dense<[11]> : tensor<1xi32>\n"
      "  %c2 = stablehlo.constant dense<[12]> : tensor<1xi32>\n"
      "  %c3 = stablehlo.constant dense<[13]> : tensor<1xi32>\n"
      "  %r:4 = \"interpreter.run_parallel\"(%c0, %c1, %c2, %c3) {programs = [[@gy, @gy, @gy, @gy]]}"
      " : (tensor<1xi32>, tensor<1xi32>, tensor<1xi32>, tensor<1xi32>) -> (tensor<2xi32>, tensor<2xi32>, "
      "tensor<2xi32>, tensor<2xi32>)\n"
      "  check.expect_eq_const %r#0, dense<[10, 11]> : tensor<2xi32>\n"
      "  check.expect_eq_const %r#3, dense<[12, 13]> : tensor<2xi32>\n"
      "  %s:4 = \"interpreter.run_parallel\"(%c0, %c1, %c2, %c3) {programs = [[@gyx, @gyx, @gyx, @gyx]]}"
      " : (tensor<1xi32>, tensor<1xi32>, tensor<1xi32>, tensor<1xi32>) -> (tensor<4xi32>, tensor<4xi32>, "
      "tensor<4xi32>, tensor<4xi32>)\n"
      "  check.expect_eq_const %s#2, dense<[13, 11, 12, 10]> : tensor<4xi32>\n"
      "  return\n"
      "}\n";
  cr_assert(run(text), "%s", last_error);
}

Test(interp, mesh_axes_unknown_axis_is_an_error) {
  const char *text =
      "sdy.mesh @m = <[\"x\"=2]>\n"
      "func.func @g(%a: tensor<1xi32>) -> tensor<2xi32> {\n"
      "  %0 = \"stablehlo.all_gather\"(%a) <{all_gather_dim = 0 : i64, channel_handle = "
      "#stablehlo.channel_handle<handle = 1, type = 1>,"
      " replica_groups = #stablehlo.replica_group_mesh_axes<mesh = @m, axes = [#stablehlo.axis_ref<name = \"z\">]>,"
      " use_global_device_ids}> : (tensor<1xi32>) -> tensor<2xi32>\n"
      "  return %0 : tensor<2xi32>\n"
      "}\n"
      "func.func @main() {\n"
      "  %c = stablehlo.constant dense<[1]> : tensor<1xi32>\n"
      "  %r:2 = \"interpreter.run_parallel\"(%c, %c) {programs = [[@g, @g]]} : (tensor<1xi32>, tensor<1xi32>) -> "
      "(tensor<2xi32>, tensor<2xi32>)\n"
      "  return\n"
      "}\n";
  cr_assert_not(run(text));
  cr_assert(strstr(last_error, "axis \"z\" is not a distinct axis of the mesh"), "%s", last_error);
}

Test(interp, map_count_leading_zeros_and_dimension_size) {
  const char *text = "func.func @main() {\n"
                     "  %a = stablehlo.constant dense<[1, 2, 3]> : tensor<3xi32>\n"
                     "  %b = stablehlo.constant dense<[10, 20, 30]> : tensor<3xi32>\n"
                     "  %m = \"stablehlo.map\"(%a, %b) ({\n"
                     "  ^bb0(%x: tensor<i32>, %y: tensor<i32>):\n"
                     "    %p = stablehlo.multiply %x, %y : tensor<i32>\n"
                     "    %q = stablehlo.subtract %p, %x : tensor<i32>\n"
                     "    stablehlo.return %q : tensor<i32>\n"
                     "  }) {dimensions = array<i64: 0>} : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi32>\n"
                     "  check.expect_eq_const %m, dense<[9, 38, 87]> : tensor<3xi32>\n"
                     "  %c = stablehlo.constant dense<[0, 1, -1, 16]> : tensor<4xi8>\n"
                     "  %z = stablehlo.count_leading_zeros %c : tensor<4xi8>\n"
                     "  check.expect_eq_const %z, dense<[8, 7, 0, 3]> : tensor<4xi8>\n"
                     "  %t = stablehlo.constant dense<0.0> : tensor<2x5xf32>\n"
                     "  %d = stablehlo.get_dimension_size %t, dim = 1 : (tensor<2x5xf32>) -> tensor<i32>\n"
                     "  check.expect_eq_const %d, dense<5> : tensor<i32>\n"
                     "  return\n"
                     "}\n";
  cr_assert(run(text), "%s", last_error);
}

Test(interp, convolution_window_reversal) {
  /* out[o] = sum_k lhs[o + 1 - k] * rhs[k] with the window reversed */
  const char *text = "func.func @main() {\n"
                     "  %l = stablehlo.constant dense<[[[1], [2], [3]]]> : tensor<1x3x1xi32>\n"
                     "  %k = stablehlo.constant dense<[[[1]], [[10]]]> : tensor<2x1x1xi32>\n"
                     "  %r = stablehlo.convolution(%l, %k) dim_numbers = [b, 0, f]x[0, i, o]->[b, 0, f], window = {}"
                     " {batch_group_count = 1 : i64, feature_group_count = 1 : i64, window_reversal = array<i1: true>}"
                     " : (tensor<1x3x1xi32>, tensor<2x1x1xi32>) -> tensor<1x2x1xi32>\n"
                     "  check.expect_eq_const %r, dense<[[[12], [23]]]> : tensor<1x2x1xi32>\n"
                     "  %n = stablehlo.convolution(%l, %k) dim_numbers = [b, 0, f]x[0, i, o]->[b, 0, f], window = {}"
                     " {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x3x1xi32>, "
                     "tensor<2x1x1xi32>) -> tensor<1x2x1xi32>\n"
                     "  check.expect_eq_const %n, dense<[[[21], [32]]]> : tensor<1x2x1xi32>\n"
                     "  return\n"
                     "}\n";
  cr_assert(run(text), "%s", last_error);
}

/* ---- sdy.manual_computation, the step budget and the rounding books ---- */

static bool run_opts(const char *text, const shard_interp_options *opts) {
  shard_diag_engine de;
  errors = 0;
  last_error[0] = 0;
  shard_diag_init(&de, capture, NULL);
  shard_module *m = parse(text, &de);
  bool ok = shard_interp_run_main(m, opts, &de, NULL);
  shard_module_free(m);
  return ok;
}

/* A shard_map whose body sums its rows over all four devices with an
 * all_reduce (a psum), and also returns its own row doubled: the global
 * program sees the sum replicated and the doubled rows reassembled. */
Test(interp, manual_computation_runs_its_body_per_device) {
  const char *text =
      "sdy.mesh @mesh = <[\"x\"=4]>\n"
      "func.func @main() {\n"
      "  %a = stablehlo.constant dense<[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0], [7.0, 8.0]]> : tensor<4x2xf32>\n"
      "  %r:2 = sdy.manual_computation(%a) in_shardings=[<@mesh, [{\"x\"}, {}]>] out_shardings=[<@mesh, [{}, {}]>, "
      "<@mesh, [{\"x\"}, {}]>] manual_axes={\"x\"} (%l: tensor<1x2xf32>) {\n"
      "    %s = \"stablehlo.all_reduce\"(%l) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, "
      "replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>, use_global_device_ids}> ({\n"
      "    ^bb0(%x: tensor<f32>, %y: tensor<f32>):\n"
      "      %z = stablehlo.add %x, %y : tensor<f32>\n"
      "      stablehlo.return %z : tensor<f32>\n"
      "    }) : (tensor<1x2xf32>) -> tensor<1x2xf32>\n"
      "    %d = stablehlo.add %l, %l : tensor<1x2xf32>\n"
      "    sdy.return %s, %d : tensor<1x2xf32>, tensor<1x2xf32>\n"
      "  } : (tensor<4x2xf32>) -> (tensor<1x2xf32>, tensor<4x2xf32>)\n"
      "  check.expect_eq_const %r#0, dense<[[16.0, 20.0]]> : tensor<1x2xf32>\n"
      "  check.expect_eq_const %r#1, dense<[[2.0, 4.0], [6.0, 8.0], [10.0, 12.0], [14.0, 16.0]]> : tensor<4x2xf32>\n"
      "  return\n"
      "}\n";
  cr_assert(run_opts(text, NULL), "%s", last_error);
}

/* Partly manual: only "x" is manual, "y" stays global in the body. Device
 * id = 2x + y, so the psum over "x" groups {0, 2} and {1, 3}; devices 0 and
 * 1 hold the same piece and must agree. */
Test(interp, manual_computation_with_free_axes) {
  const char *text =
      "sdy.mesh @mesh = <[\"x\"=2, \"y\"=2]>\n"
      "func.func @main() {\n"
      "  %a = stablehlo.constant dense<[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0], [7.0, 8.0]]> : tensor<4x2xf32>\n"
      "  %r = sdy.manual_computation(%a) in_shardings=[<@mesh, [{\"x\"}, {}]>] out_shardings=[<@mesh, [{}, {}]>] "
      "manual_axes={\"x\"} (%l: tensor<2x2xf32>) {\n"
      "    %s = \"stablehlo.all_reduce\"(%l) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, "
      "replica_groups = dense<[[0, 2], [1, 3]]> : tensor<2x2xi64>, use_global_device_ids}> ({\n"
      "    ^bb0(%x: tensor<f32>, %y: tensor<f32>):\n"
      "      %z = stablehlo.add %x, %y : tensor<f32>\n"
      "      stablehlo.return %z : tensor<f32>\n"
      "    }) : (tensor<2x2xf32>) -> tensor<2x2xf32>\n"
      "    sdy.return %s : tensor<2x2xf32>\n"
      "  } : (tensor<4x2xf32>) -> tensor<2x2xf32>\n"
      "  check.expect_eq_const %r, dense<[[6.0, 8.0], [10.0, 12.0]]> : tensor<2x2xf32>\n"
      "  return\n"
      "}\n";
  cr_assert(run_opts(text, NULL), "%s", last_error);
}

/* Devices that differ only in a free axis get the same piece; a body that
 * gives them different results is an error, not a silent pick. */
Test(interp, manual_computation_free_axis_disagreement_is_an_error) {
  const char *text =
      "sdy.mesh @mesh = <[\"x\"=2, \"y\"=2]>\n"
      "func.func @main() {\n"
      "  %a = stablehlo.constant dense<1> : tensor<2xui32>\n"
      "  %r = sdy.manual_computation(%a) in_shardings=[<@mesh, [{\"x\"}]>] out_shardings=[<@mesh, [{\"x\"}]>] "
      "manual_axes={\"x\"} (%l: tensor<1xui32>) {\n"
      "    %id = stablehlo.partition_id : tensor<ui32>\n"
      "    %b = stablehlo.broadcast_in_dim %id, dims = [] : (tensor<ui32>) -> tensor<1xui32>\n"
      "    sdy.return %b : tensor<1xui32>\n"
      "  } : (tensor<2xui32>) -> tensor<2xui32>\n"
      "  return\n"
      "}\n";
  cr_assert_not(run_opts(text, NULL));
  cr_assert(strstr(last_error, "disagrees with another device holding the same piece"), "%s", last_error);
}

/* The loop text with LIMIT and TOTAL replaced. */
static void loop_text(char *out, size_t cap, const char *limit, const char *total);
static const char *const S_loop =
    "func.func @main() {\n"
    "  %zero = stablehlo.constant dense<0> : tensor<i64>\n"
    "  %one = stablehlo.constant dense<1> : tensor<i64>\n"
    "  %limit = stablehlo.constant dense<LIMIT> : tensor<i64>\n"
    "  %r:2 = stablehlo.while(%i = %zero, %s = %zero) : tensor<i64>, tensor<i64>\n"
    "   cond {\n"
    "    %c = stablehlo.compare NE, %i, %limit : (tensor<i64>, tensor<i64>) -> tensor<i1>\n"
    "    stablehlo.return %c : tensor<i1>\n"
    "  } do {\n"
    "    %n = stablehlo.add %i, %one : tensor<i64>\n"
    "    %t = stablehlo.add %s, %n : tensor<i64>\n"
    "    stablehlo.return %n, %t : tensor<i64>, tensor<i64>\n"
    "  }\n"
    "  check.expect_eq_const %r#1, dense<TOTAL> : tensor<i64>\n"
    "  return\n"
    "}\n";

static void loop_text(char *out, size_t cap, const char *limit, const char *total) {
  size_t n = 0;
  for (const char *p = S_loop; *p && n + 16 < cap;) {
    const char *word = !strncmp(p, "LIMIT", 5) ? limit : !strncmp(p, "TOTAL", 5) ? total : NULL;
    if (word) {
      n += (size_t)snprintf(out + n, cap - n, "%s", word);
      p += 5;
    } else {
      out[n++] = *p++;
    }
  }
  out[n] = 0;
}

/* 1000 iterations of a loop run within the budget (and in the memory of one
 * iteration); a loop that never reaches its limit stops at the budget with
 * an error at the loop. */
Test(interp, step_budget_stops_a_loop_that_never_ends) {
  char text[2048];
  loop_text(text, sizeof text, "1000", "500500");
  shard_interp_options small = {.max_steps = 10000};
  cr_assert(run_opts(text, &small), "%s", last_error);
  loop_text(text, sizeof text, "-1", "0");
  cr_assert_not(run_opts(text, &small));
  cr_assert_eq(errors, 1);
  cr_assert(
      strstr(last_error, "the interpreter stopped after 10000 steps (--max-steps 10000): this loop may never end"),
      "%s", last_error);
}

/* The rounding books of a cross-device sum: integer terms add up exactly in
 * any order (bound 0); terms that are not integers get the reordering
 * bound 2 gamma(N-1) sum|x| = 2 * (3u / (1 - 3u)) * sum|x| for four terms. */
Test(interp, cross_device_sum_bounds) {
  const char *text =
      "func.func @f(%x: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) {\n"
      "  %s = \"stablehlo.all_reduce\"(%x) ({\n"
      "  ^bb0(%a: tensor<f32>, %b: tensor<f32>):\n"
      "    %z = stablehlo.add %a, %b : tensor<f32>\n"
      "    stablehlo.return %z : tensor<f32>\n"
      "  }) {replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>} : (tensor<2xf32>) -> tensor<2xf32>\n"
      "  %m = stablehlo.maximum %s, %s : tensor<2xf32>\n"
      "  %e = stablehlo.exponential %s : tensor<2xf32>\n"
      "  %c = stablehlo.cbrt %s : tensor<2xf32>\n"
      "  return %s, %m, %e, %c : tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>\n"
      "}\n"
      "func.func @main(%a: tensor<2xf32>, %b: tensor<2xf32>, %c: tensor<2xf32>, %d: tensor<2xf32>) -> "
      "(tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) {\n"
      "  %r:16 = \"interpreter.run_parallel\"(%a, %b, %c, %d) {programs = [[@f], [@f], [@f], [@f]]} : "
      "(tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>, "
      "tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, "
      "tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>)\n"
      "  return %r#0, %r#1, %r#2, %r#3 : tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>\n"
      "}\n";
  shard_diag_engine de;
  errors = 0;
  shard_diag_init(&de, capture, NULL);
  shard_module *m = parse(text, &de);
  shard_arena *a = shard_arena_new();
  int64_t two[1] = {2};
  shard_interp_options opts = {.track_rounding = true};
  const char *ints[4] = {"[1, -2]", "[3, 4]", "[-4, 0]", "[2, 2]"};
  const char *fracs[4] = {"[0.1, -2]", "[3, 4]", "[-4, 0]", "[2, 2.5]"};
  for (int round = 0; round < 2; round++) {
    shard_tensor *args[4];
    const char *err;
    for (int k = 0; k < 4; k++)
      cr_assert(shard_tensor_from_dense(a, round ? fracs[k] : ints[k], shard_type_tensor(a, 1, two, "f32", NULL),
                                        &args[k], &err));
    shard_tensor **res;
    uint32_t n;
    cr_assert(shard_interp_call(m, "main", args, 4, &opts, a, &res, &n, &de), "%s", last_error);
    if (round == 0) {
      cr_assert_eq(res[0]->floats[0], 2.0);
      cr_assert_eq(res[0]->bound, 0.0);
      cr_assert_eq(res[1]->bound, 0.0);
      cr_assert_eq(res[2]->bound, 0.0);
      cr_assert_eq(res[3]->bound, 0.0);
    } else {
      double u = ldexp(1.0, -24), gamma3 = 3 * u / (1 - 3 * u);
      double mag = 2.0 + 4 + 4 + 2.5; /* per device the largest |x|, summed */
      cr_assert_eq(res[0]->sum_terms, 4);
      cr_assert_float_eq(res[0]->bound, 2 * gamma3 * mag, 1e-18);
      cr_assert_eq(res[1]->bound, res[0]->bound, "maximum keeps the bound");
      /* exp moves a value by at most exp(max x + b) b, plus its rounding
       * on both sides (2u |exp| each) */
      double b = res[0]->bound, hi = fmax(res[0]->floats[0], res[0]->floats[1]);
      double moved = exp(hi + b) * b, emax = fmax(fabs(res[2]->floats[0]), fabs(res[2]->floats[1]));
      cr_assert_float_eq(res[2]->bound, moved + 2 * u * (2 * emax + moved), 1e-12);
      cr_assert(isinf(res[3]->bound), "cbrt has no bound rule");
    }
  }
  shard_arena_free(a);
  shard_module_free(m);
}

/* ---- errors of device threads ---------------------------------------------------- */

static char all_errors[8192];
static void capture_all(void *ctx, const shard_diag *d) {
  (void)ctx;
  size_t used = strlen(all_errors);
  if (d->severity == SHARD_ERROR) snprintf(all_errors + used, sizeof all_errors - used, "%s\n", d->message);
}

/* Runs @main and returns every error, in the order reported. */
static const char *run_errors(const char *text) {
  shard_diag_engine de;
  all_errors[0] = 0;
  shard_diag_init(&de, capture_all, NULL);
  shard_module *m = parse(text, &de);
  cr_assert_not(shard_interp_run_main(m, NULL, &de, NULL));
  shard_module_free(m);
  return all_errors;
}

Test(interp, device_errors_come_in_device_order_on_every_run) {
  /* every device fails its own check; the threads finish in any order */
  const char *text = "func.func @f(%a: tensor<1xi32>) {\n"
                     "  check.expect_eq_const %a, dense<[99]> : tensor<1xi32>\n"
                     "  return\n"
                     "}\n"
                     "func.func @main() {\n"
                     "  %a = stablehlo.constant dense<[1]> : tensor<1xi32>\n"
                     "  %b = stablehlo.constant dense<[2]> : tensor<1xi32>\n"
                     "  %c = stablehlo.constant dense<[3]> : tensor<1xi32>\n"
                     "  %d = stablehlo.constant dense<[4]> : tensor<1xi32>\n"
                     "  \"interpreter.run_parallel\"(%a, %b, %c, %d) {programs = [[@f, @f], [@f, @f]]} : "
                     "(tensor<1xi32>, tensor<1xi32>, tensor<1xi32>, tensor<1xi32>) -> ()\n"
                     "  return\n"
                     "}\n";
  char first[sizeof all_errors];
  snprintf(first, sizeof first, "%s", run_errors(text));
  const char *r0p0 = strstr(first, "(on replica 0, partition 0)"), *r0p1 = strstr(first, "(on replica 0, partition 1)");
  const char *r1p0 = strstr(first, "(on replica 1, partition 0)"), *r1p1 = strstr(first, "(on replica 1, partition 1)");
  cr_assert(r0p0 && r0p1 && r1p0 && r1p1, "%s", first);
  cr_expect(r0p0 < r0p1 && r0p1 < r1p0 && r1p0 < r1p1, "not in device order:\n%s", first);
  for (int i = 0; i < 20; i++) cr_assert_str_eq(run_errors(text), first, "run %d differs", i);
}

Test(interp, every_device_left_waiting_reports_the_unreached_collective) {
  /* device 0 returns at once; devices 1 and 2 wait in an all_reduce that
   * can never complete, and both say so (not just the first to notice) */
  const char *text = "func.func @quit(%a: tensor<1xi32>) {\n"
                     "  return\n"
                     "}\n"
                     "func.func @sum(%a: tensor<1xi32>) {\n"
                     "  %0 = \"stablehlo.all_reduce\"(%a) ({\n"
                     "  ^bb0(%x: tensor<i32>, %y: tensor<i32>):\n"
                     "    %s = stablehlo.add %x, %y : tensor<i32>\n"
                     "    stablehlo.return %s : tensor<i32>\n"
                     "  }) {channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = "
                     "dense<[[0, 1, 2]]> : tensor<1x3xi64>, use_global_device_ids} : (tensor<1xi32>) -> tensor<1xi32>\n"
                     "  return\n"
                     "}\n"
                     "func.func @main() {\n"
                     "  %a = stablehlo.constant dense<[1]> : tensor<1xi32>\n"
                     "  \"interpreter.run_parallel\"(%a, %a, %a) {programs = [[@quit, @sum, @sum]]} : (tensor<1xi32>, "
                     "tensor<1xi32>, tensor<1xi32>) -> ()\n"
                     "  return\n"
                     "}\n";
  for (int i = 0; i < 10; i++) {
    const char *errs = run_errors(text);
    cr_assert_str_eq(errs,
                     "'stablehlo.all_reduce' is not reached by every device (on replica 0, partition 1)\n"
                     "'stablehlo.all_reduce' is not reached by every device (on replica 0, partition 2)\n",
                     "run %d", i);
  }
}
