/* StableHLO pretty syntax: each op line parses and prints back as StableHLO
 * prints it, the generic form carries every attribute in <{...}> with
 * StableHLO's attribute spelling, and generic input prints pretty again. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "ir/opdef.h"
#include "ir/parse.h"
#include "ir/print.h"

typedef struct captured {
  char text[1024];
  unsigned count;
} captured;

static void S_capture(void *ctx, const shard_diag *d) {
  captured *c = ctx;
  if (c->count++ == 0) snprintf(c->text, sizeof c->text, "%s", d->message);
}

/* Parses `in` and prints it; NULL (first diagnostic in *diag) on error. */
static char *S_print(const char *in, bool generic, captured *diag) {
  shard_source src = {"test.mlir", in, strlen(in), 0};
  shard_diag_engine de;
  captured local = {0};
  shard_diag_init(&de, S_capture, diag ? diag : &local);
  shard_module *m = shard_parse_module(&src, NULL, &de);
  if (!m) return NULL;
  shard_buf b;
  shard_buf_init(&b);
  shard_print_options o = {0};
  o.generic = generic;
  o.properties_syntax = generic; /* these tests check the <{...}> spelling */
  shard_print_module(&b, m, &o);
  shard_module_free(m);
  return shard_buf_take(&b);
}

/* A function with arguments of the types the op lines below use. */
static char *S_wrap(const char *body) {
  const char *head =
      "func.func @f(%arg0: tensor<8x8xf32>, %arg1: tensor<8x8xf32>, %arg2: tensor<i32>, %arg3: tensor<f32>,"
      " %arg4: tensor<4x64x8xf32>, %arg5: tensor<8x8xi1>, %arg6: tensor<2xui64>) {\n";
  size_t n = strlen(head) + strlen(body) + 32;
  char *s = malloc(n);
  snprintf(s, n, "%s%s\n  return\n}\n", head, body);
  return s;
}

/* `line` (one op, as StableHLO prints it, with SSA names as shard numbers
 * them) must print back verbatim, and survive a trip through generic form. */
static void S_expect_roundtrip(const char *line, const char *generic_piece) {
  char *in = S_wrap(line);
  captured diag = {0};
  char *out = S_print(in, false, &diag);
  cr_assert_not_null(out, "parse failed: %s\n%s", diag.text, line);
  cr_expect_not_null(strstr(out, line), "expected\n%s\nin\n%s", line, out);
  char *gen = S_print(out, true, &diag);
  cr_assert_not_null(gen, "reparse failed: %s", diag.text);
  if (generic_piece) cr_expect_not_null(strstr(gen, generic_piece), "expected\n%s\nin\n%s", generic_piece, gen);
  char *back = S_print(gen, false, &diag);
  cr_assert_not_null(back, "generic reparse failed: %s\n%s", diag.text, gen);
  cr_expect_str_eq(back, out);
  free(in);
  free(out);
  free(gen);
  free(back);
}

Test(ops_stablehlo, table_is_sorted_and_found) {
  for (unsigned i = 0; i < shard_num_stablehlo_ops; i++) {
    const char *name = shard_stablehlo_ops[i].name;
    if (i) cr_expect_lt(strcmp(shard_stablehlo_ops[i - 1].name, name), 0, "%s out of order", name);
    cr_expect_eq(shard_op_def_lookup(name, strlen(name)), &shard_stablehlo_ops[i], "%s", name);
  }
  const shard_op_def *d = shard_op_def_lookup("stablehlo.dot_general", strlen("stablehlo.dot_general"));
  cr_assert_not_null(d);
  cr_expect(shard_op_def_is_inherent(d, "dot_dimension_numbers"));
  cr_expect(shard_op_def_is_inherent(d, "precision_config"));
  cr_expect(!shard_op_def_is_inherent(d, "sdy.sharding"));
}

Test(ops_stablehlo, elementwise) {
  S_expect_roundtrip("    %0 = stablehlo.add %arg0, %arg1 : tensor<8x8xf32>", "\"stablehlo.add\"(%arg0, %arg1) :");
  S_expect_roundtrip("    %0 = stablehlo.tanh %arg0 {sdy.sharding = #sdy.sharding_per_value<[<@m, [{}, {}]>]>} : "
                     "tensor<8x8xf32>",
                     NULL);
  S_expect_roundtrip("    %0 = stablehlo.convert %arg0 : (tensor<8x8xf32>) -> tensor<8x8xi32>", NULL);
  S_expect_roundtrip("    %0 = stablehlo.select %arg5, %arg0, %arg1 : tensor<8x8xi1>, tensor<8x8xf32>", NULL);
  S_expect_roundtrip("    %0 = stablehlo.clamp %arg3, %arg0, %arg3 : (tensor<f32>, tensor<8x8xf32>, tensor<f32>) -> "
                     "tensor<8x8xf32>",
                     NULL);
  S_expect_roundtrip("    %0 = stablehlo.bitcast_convert %arg0 : (tensor<8x8xf32>) -> tensor<8x8xi32>", NULL);
}

Test(ops_stablehlo, compare_prints_enums_with_two_spaces) {
  S_expect_roundtrip("    %0 = stablehlo.compare  LT, %arg2, %arg2 : (tensor<i32>, tensor<i32>) -> tensor<i1>",
                     "<{comparison_direction = #stablehlo<comparison_direction LT>}>");
  S_expect_roundtrip("    %0 = stablehlo.compare  GE, %arg3, %arg3,  FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>",
                     "<{compare_type = #stablehlo<comparison_type FLOAT>, comparison_direction = "
                     "#stablehlo<comparison_direction GE>}>");
  captured diag = {0};
  char *in = S_wrap("  %0 = stablehlo.compare XX, %arg2, %arg2 : (tensor<i32>, tensor<i32>) -> tensor<i1>");
  cr_expect_null(S_print(in, false, &diag));
  cr_expect_not_null(strstr(diag.text, "comparison_direction"), "%s", diag.text);
  free(in);
}

Test(ops_stablehlo, constants_and_iota) {
  S_expect_roundtrip("    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>",
                     "\"stablehlo.constant\"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>");
  S_expect_roundtrip("    %c = stablehlo.constant dense<1> : tensor<i32>", NULL);
  S_expect_roundtrip("    %c = stablehlo.constant dense<true> : tensor<i1>", NULL);
  S_expect_roundtrip("    %0 = stablehlo.iota dim = 1 : tensor<8x8xi32>", "<{iota_dimension = 1 : i64}>");
}

Test(ops_stablehlo, shape_ops) {
  S_expect_roundtrip("    %0 = stablehlo.broadcast_in_dim %arg3, dims = [] : (tensor<f32>) -> tensor<8x8xf32>",
                     "<{broadcast_dimensions = array<i64>}>");
  S_expect_roundtrip("    %0 = stablehlo.transpose %arg0, dims = [1, 0] : (tensor<8x8xf32>) -> tensor<8x8xf32>",
                     "<{permutation = array<i64: 1, 0>}>");
  S_expect_roundtrip("    %0 = stablehlo.reshape %arg0 : (tensor<8x8xf32>) -> tensor<64xf32>", NULL);
  S_expect_roundtrip("    %0 = stablehlo.concatenate %arg0, %arg1, dim = 0 : (tensor<8x8xf32>, tensor<8x8xf32>) -> "
                     "tensor<16x8xf32>",
                     "<{dimension = 0 : i64}>");
  S_expect_roundtrip("    %0 = stablehlo.slice %arg0 [0:4, 1:8:2] : (tensor<8x8xf32>) -> tensor<4x4xf32>",
                     "<{limit_indices = array<i64: 4, 8>, start_indices = array<i64: 0, 1>, strides = array<i64: 1, "
                     "2>}>");
  S_expect_roundtrip("    %0 = stablehlo.pad %arg0, %arg3, low = [1, -1], high = [1, -1], interior = [0, 0] : "
                     "(tensor<8x8xf32>, tensor<f32>) -> tensor<10x6xf32>",
                     "edge_padding_low = array<i64: 1, -1>");
  S_expect_roundtrip("    %0 = stablehlo.reverse %arg0, dims = [0] : tensor<8x8xf32>", NULL);
  S_expect_roundtrip("    %0 = stablehlo.dynamic_slice %arg0, %arg2, %arg2, sizes = [2, 2] : (tensor<8x8xf32>, "
                     "tensor<i32>, tensor<i32>) -> tensor<2x2xf32>",
                     "<{slice_sizes = array<i64: 2, 2>}>");
}

Test(ops_stablehlo, dot_and_dot_general) {
  S_expect_roundtrip("    %0 = stablehlo.dot %arg0, %arg1, precision = [DEFAULT, HIGHEST] : (tensor<8x8xf32>, "
                     "tensor<8x8xf32>) -> tensor<8x8xf32>",
                     "<{precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision HIGHEST>]}>");
  S_expect_roundtrip("    %0 = stablehlo.dot_general %arg0, %arg1, batching_dims = [0] x [0], contracting_dims = [1] "
                     "x [1], precision = [DEFAULT, DEFAULT] : (tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8xf32>",
                     "dot_dimension_numbers = #stablehlo.dot<lhs_batching_dimensions = [0], rhs_batching_dimensions "
                     "= [0], lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1]>");
  S_expect_roundtrip("    %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0] : (tensor<8x8xf32>, "
                     "tensor<8x8xf32>) -> tensor<8x8xf32>",
                     "#stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>");
}

Test(ops_stablehlo, generic_dot_general_with_line_breaks_prints_pretty) {
  char *in = S_wrap("  %0 = \"stablehlo.dot_general\"(%arg0, %arg1) {\n"
                    "    dot_dimension_numbers = #stablehlo.dot<\n"
                    "      lhs_contracting_dimensions = [1],\n"
                    "      rhs_contracting_dimensions = [0]\n"
                    "    >\n"
                    "  } : (tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x8xf32>");
  char *out = S_print(in, false, NULL);
  cr_assert_not_null(out);
  cr_expect_not_null(strstr(out, "stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0] : "), "%s", out);
  free(in);
  free(out);
}

Test(ops_stablehlo, custom_call_elides_default_properties) {
  S_expect_roundtrip("    %0 = stablehlo.custom_call @Sharding(%arg0) {backend_config = \"\", mhlo.sharding = "
                     "\"{replicated}\"} : (tensor<8x8xf32>) -> tensor<8x8xf32>",
                     "<{backend_config = \"\", call_target_name = \"Sharding\"}> {mhlo.sharding = \"{replicated}\"}");
  S_expect_roundtrip("    %0 = stablehlo.custom_call @\"foo-bar\"(%arg0) {api_version = 2 : i32} : (tensor<8x8xf32>) "
                     "-> tensor<8x8xf32>",
                     "<{api_version = 2 : i32, call_target_name = \"foo-bar\"}>");
  char *in = S_wrap("  %0 = stablehlo.custom_call @x(%arg0) {has_side_effect = false, api_version = 1 : i32} : "
                    "(tensor<8x8xf32>) -> tensor<8x8xf32>");
  char *out = S_print(in, false, NULL);
  cr_assert_not_null(out);
  cr_expect_not_null(strstr(out, "%0 = stablehlo.custom_call @x(%arg0) : (tensor<8x8xf32>) -> tensor<8x8xf32>"), "%s",
                     out);
  free(in);
  free(out);
}

Test(ops_stablehlo, reduce_compact_and_reducer_forms) {
  S_expect_roundtrip("    %0 = stablehlo.reduce(%arg4 init: %arg3) applies stablehlo.add across dimensions = [1] : "
                     "(tensor<4x64x8xf32>, tensor<f32>) -> tensor<4x8xf32>",
                     "<{dimensions = array<i64: 1>}> ({\n    ^bb0(%arg7: tensor<f32>, %arg8: tensor<f32>):\n"
                     "      %1 = \"stablehlo.add\"(%arg7, %arg8)");
  char *in = S_wrap("  %0:2 = stablehlo.reduce(%arg4 init: %arg3), (%arg4 init: %arg3) across dimensions = [1] :\n"
                    "    (tensor<4x64x8xf32>, tensor<4x64x8xf32>, tensor<f32>, tensor<f32>) -> (tensor<4x8xf32>, "
                    "tensor<4x8xf32>)\n"
                    "    reducer(%a: tensor<f32>, %b: tensor<f32>) (%c: tensor<f32>, %d: tensor<f32>)  {\n"
                    "      %1 = stablehlo.add %a, %b : tensor<f32>\n"
                    "      %2 = stablehlo.maximum %c, %d : tensor<f32>\n"
                    "      stablehlo.return %1, %2 : tensor<f32>, tensor<f32>\n"
                    "    }");
  char *out = S_print(in, false, NULL);
  cr_assert_not_null(out);
  cr_expect_not_null(strstr(out, "across dimensions = [1] : (tensor<4x64x8xf32>, tensor<4x64x8xf32>, tensor<f32>, "
                                 "tensor<f32>) -> (tensor<4x8xf32>, tensor<4x8xf32>)\n"),
                     "%s", out);
  /* block arguments are (elem0, elem1, acc0, acc1): the pairs interleave */
  cr_expect_not_null(strstr(out, "reducer(%arg7: tensor<f32>, %arg9: tensor<f32>) (%arg8: tensor<f32>, %arg10: "
                                 "tensor<f32>)  {\n"),
                     "%s", out);
  cr_expect_not_null(strstr(out, "%1 = stablehlo.add %arg7, %arg9 : tensor<f32>"), "%s", out);
  char *again = S_print(out, false, NULL);
  cr_expect_str_eq(again, out);
  free(in);
  free(out);
  free(again);
}

Test(ops_stablehlo, while_names_block_arguments_iterArg) {
  char *in = S_wrap("  %0:2 = stablehlo.while(%i = %arg0, %j = %arg2) : tensor<8x8xf32>, tensor<i32>\n"
                    "    cond {\n"
                    "    %1 = stablehlo.compare  LT, %j, %j : (tensor<i32>, tensor<i32>) -> tensor<i1>\n"
                    "    stablehlo.return %1 : tensor<i1>\n"
                    "  } do {\n"
                    "    %1 = stablehlo.add %j, %j : tensor<i32>\n"
                    "    stablehlo.return %i, %1 : tensor<8x8xf32>, tensor<i32>\n"
                    "  }");
  char *out = S_print(in, false, NULL);
  cr_assert_not_null(out);
  cr_expect_not_null(strstr(out, "%0:2 = stablehlo.while(%iterArg = %arg0, %iterArg_0 = %arg2) : tensor<8x8xf32>, "
                                 "tensor<i32>\n"),
                     "%s", out);
  cr_expect_not_null(strstr(out, "cond {\n"), "%s", out);
  cr_expect_not_null(strstr(out, "} do {\n"), "%s", out);
  cr_expect_not_null(strstr(out, "stablehlo.compare  LT, %iterArg_0, %iterArg_0"), "%s", out);
  char *gen = S_print(out, true, NULL);
  cr_assert_not_null(gen);
  char *back = S_print(gen, false, NULL);
  cr_expect_str_eq(back, out);
  free(in);
  free(out);
  free(gen);
  free(back);
}

Test(ops_stablehlo, convolution) {
  S_expect_roundtrip("    %0 = stablehlo.convolution(%arg4, %arg4) dim_numbers = [b, 0, f]x[0, i, o]->[b, 0, f], "
                     "window = {stride = [2], pad = [[0, 1]], rhs_dilate = [1]} {batch_group_count = 1 : i64, "
                     "feature_group_count = 1 : i64} : (tensor<4x64x8xf32>, tensor<4x64x8xf32>) -> tensor<4x32x8xf32>",
                     "dimension_numbers = #stablehlo.conv<[b, 0, f]x[0, i, o]->[b, 0, f]>, feature_group_count = 1 : "
                     "i64, padding = dense<[[0, 1]]> : tensor<1x2xi64>, rhs_dilation = array<i64: 1>, window_strides "
                     "= array<i64: 2>}>");
  captured diag = {0};
  char *in = S_wrap("  %0 = stablehlo.convolution(%arg4, %arg4) dim_numbers = [b, 0, 0]x[0, i, o]->[b, 0, f], "
                    "window = {} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : "
                    "(tensor<4x64x8xf32>, tensor<4x64x8xf32>) -> tensor<4x32x8xf32>");
  cr_expect_null(S_print(in, false, &diag));
  cr_expect_not_null(strstr(diag.text, "Duplicate entries for spatial dimension 0"), "%s", diag.text);
  free(in);
}

Test(ops_stablehlo, misc_formats) {
  S_expect_roundtrip("    %0 = stablehlo.cholesky %arg0, lower = true : tensor<8x8xf32>", "<{lower = true}>");
  S_expect_roundtrip("    %0 = stablehlo.fft %arg0, type =  FFT, length = [8] : (tensor<8x8xf32>) -> "
                     "tensor<8x8xcomplex<f32>>",
                     "<{fft_length = array<i64: 8>, fft_type = #stablehlo<fft_type FFT>}>");
  S_expect_roundtrip(
      "    %output_state, %output = stablehlo.rng_bit_generator %arg6, algorithm =  DEFAULT : (tensor<2xui64>) -> "
      "(tensor<2xui64>, tensor<4xui32>)",
      "<{rng_algorithm = #stablehlo<rng_algorithm DEFAULT>}>");
  S_expect_roundtrip("    %0:2 = stablehlo.optimization_barrier {foo} %arg0, %arg2 : tensor<8x8xf32>, tensor<i32>",
                     NULL);
  S_expect_roundtrip("    %0 = stablehlo.partition_id : tensor<ui32>", NULL);
  S_expect_roundtrip("    %0 = stablehlo.create_token : !stablehlo.token", NULL);
  S_expect_roundtrip("    %0 = stablehlo.reduce_precision %arg0, format = e5m10 : tensor<8x8xf32>",
                     "<{exponent_bits = 5 : i32, mantissa_bits = 10 : i32}>");
}

Test(ops_stablehlo, convolution_window_reversal_prints_booleans) {
  captured diag = {0};
  char *out =
      S_print("func.func @f(%a: tensor<1x4x4x1xf32>, %w: tensor<2x2x1x1xf32>) -> tensor<1x3x3x1xf32> {\n"
              "  %0 = stablehlo.convolution(%a, %w) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], "
              "window = {stride = [1, 1], reverse = [0, 1]} {batch_group_count = 1 : i64, "
              "feature_group_count = 1 : i64} : (tensor<1x4x4x1xf32>, tensor<2x2x1x1xf32>) -> tensor<1x3x3x1xf32>\n"
              "  return %0 : tensor<1x3x3x1xf32>\n}\n",
              false, &diag);
  cr_assert_not_null(out, "%s", diag.text);
  cr_expect(strstr(out, "reverse = [false, true]") != NULL, "%s", out);
  char *gen = S_print(out, true, &diag);
  cr_assert_not_null(gen, "%s", diag.text);
  cr_expect(strstr(gen, "window_reversal = array<i1: false, true>") != NULL, "%s", gen);
  free(out);
  free(gen);
}
