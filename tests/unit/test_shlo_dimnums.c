/* #stablehlo.gather<...> / #stablehlo.scatter<...> print as MLIR prints them:
 * StableHLO's printer writes the fields in a fixed order, leaves out empty
 * lists and index_vector_dim = 0. shard decodes these attributes into a
 * struct when it parses them and prints the struct, so whatever spelling came
 * in (reordered, spaced, explicit empties) must come out canonical, and that
 * output must parse and print unchanged. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "ir/parse.h"
#include "ir/print.h"

/* Parses `in` and prints it (generic form, as Shardy's tests show gather and
 * scatter); NULL when it does not parse. */
static char *S_print(const char *in) {
  shard_source src = {"test.mlir", in, strlen(in), 0};
  shard_diag_engine de;
  shard_diag_init(&de, NULL, NULL);
  shard_module *m = shard_parse_module(&src, NULL, &de);
  if (!m) return NULL;
  shard_buf b;
  shard_buf_init(&b);
  shard_print_options o = {0};
  o.generic = true;
  o.properties_syntax = true;
  shard_print_module(&b, m, &o);
  shard_module_free(m);
  return shard_buf_take(&b);
}

/* A gather of tensor<8x4xf32> by tensor<`idx`xi32> with `dn` as written. */
static char *S_gather(const char *dn, const char *idx, const char *out) {
  static char buf[2048];
  snprintf(buf, sizeof buf,
           "func.func @f(%%arg0: tensor<8x4xf32>, %%arg1: tensor<%sxi32>) -> tensor<%sxf32> {\n"
           "  %%0 = \"stablehlo.gather\"(%%arg0, %%arg1) <{dimension_numbers = %s, slice_sizes = array<i64: 1, "
           "4>}> : (tensor<8x4xf32>, tensor<%sxi32>) -> tensor<%sxf32>\n"
           "  return %%0 : tensor<%sxf32>\n}\n",
           idx, out, dn, idx, out, out);
  return buf;
}

/* The attribute `dn` written in a gather prints as `want`, and printing the
 * printed module again changes nothing. */
static void S_expect_gather(const char *dn, const char *idx, const char *out, const char *want) {
  char *p1 = S_print(S_gather(dn, idx, out));
  cr_assert_not_null(p1, "did not parse: %s", dn);
  cr_expect_not_null(strstr(p1, want), "expected\n%s\nin\n%s", want, p1);
  char *p2 = S_print(p1);
  cr_assert_not_null(p2, "printed form did not parse:\n%s", p1);
  cr_expect_str_eq(p2, p1);
  free(p1);
  free(p2);
}

Test(shlo_dimnums, gather_default_index_vector_dim_and_empty_lists_dropped) {
  S_expect_gather("#stablehlo.gather<offset_dims = [], collapsed_slice_dims = [0], operand_batching_dims = [], "
                  "start_indices_batching_dims = [], start_index_map = [0], index_vector_dim = 0>",
                  "1x3", "3x4",
                  "dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [0], start_index_map = [0]>,");
}

Test(shlo_dimnums, gather_fields_reordered_into_printer_order) {
  S_expect_gather("#stablehlo.gather< index_vector_dim=1,start_index_map=[0] , collapsed_slice_dims = [ 0 ],"
                  "\n offset_dims = [1]>",
                  "3x1", "3x4",
                  "#stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], "
                  "index_vector_dim = 1>");
}

Test(shlo_dimnums, gather_nonzero_index_vector_dim_kept_even_alone) {
  /* every list empty: only index_vector_dim is left */
  S_expect_gather("#stablehlo.gather<offset_dims = [], index_vector_dim = 2>", "3x1", "3x4",
                  "#stablehlo.gather<index_vector_dim = 2>");
  /* nothing left at all */
  S_expect_gather("#stablehlo.gather<index_vector_dim = 0>", "3x1", "3x4", "#stablehlo.gather<>");
}

Test(shlo_dimnums, gather_malformed_text_prints_as_written) {
  /* MLIR rejects a repeated field; shard leaves such text alone for the
   * verifier rather than picking one of the two values */
  S_expect_gather("#stablehlo.gather<offset_dims = [1], offset_dims = [1], index_vector_dim = 0>", "3x1", "3x4",
                  "#stablehlo.gather<offset_dims = [1], offset_dims = [1], index_vector_dim = 0>");
  S_expect_gather("#stablehlo.gather<offset_dims = [1], bogus_dims = [1]>", "3x1", "3x4",
                  "#stablehlo.gather<offset_dims = [1], bogus_dims = [1]>");
  /* 2^63 does not fit int64: printing a saturated value would change it */
  S_expect_gather("#stablehlo.gather<offset_dims = [9223372036854775808]>", "3x1", "3x4",
                  "#stablehlo.gather<offset_dims = [9223372036854775808]>");
}

Test(shlo_dimnums, scatter_in_printer_order) {
  const char *in =
      "func.func @f(%arg0: tensor<8xf32>, %arg1: tensor<2xi32>, %arg2: tensor<2xf32>) -> tensor<8xf32> {\n"
      "  %0 = \"stablehlo.scatter\"(%arg0, %arg1, %arg2) <{scatter_dimension_numbers = #stablehlo.scatter<"
      "index_vector_dim = 1, scatter_dims_to_operand_dims = [0], input_batching_dims = [], update_window_dims = [],"
      " inserted_window_dims = [0]>}> ({\n"
      "  ^bb0(%a: tensor<f32>, %b: tensor<f32>):\n"
      "    %s = \"stablehlo.add\"(%a, %b) : (tensor<f32>, tensor<f32>) -> tensor<f32>\n"
      "    \"stablehlo.return\"(%s) : (tensor<f32>) -> ()\n"
      "  }) : (tensor<8xf32>, tensor<2xi32>, tensor<2xf32>) -> tensor<8xf32>\n"
      "  return %0 : tensor<8xf32>\n}\n";
  char *p1 = S_print(in);
  cr_assert_not_null(p1);
  const char *want = "#stablehlo.scatter<inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], "
                     "index_vector_dim = 1>";
  cr_expect_not_null(strstr(p1, want), "expected\n%s\nin\n%s", want, p1);
  char *p2 = S_print(p1);
  cr_assert_not_null(p2);
  cr_expect_str_eq(p2, p1);
  free(p1);
  free(p2);
}

Test(shlo_dimnums, other_stablehlo_attributes_untouched) {
  /* a lookalike name is not a gather attribute */
  S_expect_gather("#stablehlo.gatherx<offset_dims = []>", "3x1", "3x4", "#stablehlo.gatherx<offset_dims = []>");
}
