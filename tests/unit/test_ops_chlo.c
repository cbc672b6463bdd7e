/* The chlo op table: sorted for lookup, every op found by name, and the
 * #chlo.ragged_dot<...> reader. */
#include <criterion/criterion.h>
#include <string.h>

#include "ir/opdef.h"
#include "ir/ops_chlo.h"
#include "ir/parse.h"

Test(ops_chlo, table_sorted_and_found) {
  for (unsigned i = 0; i < shard_num_chlo_ops; i++) {
    const shard_op_def *d = shard_op_def_lookup(shard_chlo_ops[i].name, strlen(shard_chlo_ops[i].name));
    cr_assert_eq(d, &shard_chlo_ops[i], "%s", shard_chlo_ops[i].name);
    if (i) cr_assert_lt(strcmp(shard_chlo_ops[i - 1].name, shard_chlo_ops[i].name), 0, "%s", shard_chlo_ops[i].name);
  }
  cr_assert_null(shard_op_def_lookup("chlo.no_such_op", 15));
}

static shard_module *S_parse(const char *in, shard_diag_engine *de) {
  static shard_source src;
  src = (shard_source){"test.mlir", in, strlen(in), 0};
  shard_diag_init(de, NULL, NULL);
  return shard_parse_module(&src, NULL, de);
}

Test(ops_chlo, ragged_dot_dims) {
  const char *in =
      "func.func @f(%l: tensor<2x16x8xf32>, %r: tensor<2x8x6xf32>, %g: tensor<4xi64>) -> tensor<4x2x16x6xf32> {\n"
      "  %0 = \"chlo.ragged_dot\"(%l, %r, %g) {ragged_dot_dimension_numbers = #chlo.ragged_dot<\n"
      "    lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [2],\n"
      "    rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [2], rhs_group_dimensions = []>} :\n"
      "    (tensor<2x16x8xf32>, tensor<2x8x6xf32>, tensor<4xi64>) -> tensor<4x2x16x6xf32>\n"
      "  return %0 : tensor<4x2x16x6xf32>\n"
      "}\n";
  shard_diag_engine de;
  shard_module *m = S_parse(in, &de);
  cr_assert_not_null(m);
  const shard_op *fn = shard_module_lookup_symbol(m, "f"), *op = fn->regions[0].first->first;
  cr_assert_str_eq(op->name, "chlo.ragged_dot");
  shard_chlo_ragged_dims d;
  cr_assert(shard_chlo_ragged_dot_dims(op, &d));
  cr_assert_eq(d.num_lhs_batch, 1);
  cr_assert_eq(d.lhs_batch[0], 0);
  cr_assert_eq(d.num_lhs_contract, 1);
  cr_assert_eq(d.lhs_contract[0], 2);
  cr_assert_eq(d.rhs_contract[0], 1);
  cr_assert_eq(d.num_lhs_ragged, 1);
  cr_assert_eq(d.lhs_ragged[0], 2);
  cr_assert_eq(d.num_rhs_group, 0);
  shard_module_free(m);
}

/* chlo's own enums are decoded by the parser (read like StableHLO's) and
 * print back with their #chlo spelling; another #chlo<...> stays verbatim. */
Test(ops_chlo, enums_are_typed_and_print_as_chlo) {
  const char *in = "func.func @f(%a: tensor<3xf32>, %b: tensor<3xf32>) -> tensor<3xi1> {\n"
                   "  %0 = chlo.broadcast_compare %a, %b {comparison_direction = #chlo<comparison_direction GE>,"
                   " compare_type = #chlo<comparison_type TOTALORDER>, other = #chlo<something else>} :"
                   " (tensor<3xf32>, tensor<3xf32>) -> tensor<3xi1>\n"
                   "  return %0 : tensor<3xi1>\n"
                   "}\n";
  shard_diag_engine de;
  shard_module *m = S_parse(in, &de);
  cr_assert_not_null(m);
  const shard_op *fn = shard_module_lookup_symbol(m, "f"), *op = fn->regions[0].first->first;
  cr_assert_eq(shard_op_enum(op, "comparison_direction", SHARD_SHLO_COMPARISON_DIRECTION), SHARD_CMP_GE);
  cr_assert_eq(shard_op_enum(op, "compare_type", SHARD_SHLO_COMPARISON_TYPE), SHARD_CMP_TOTALORDER);
  cr_assert_eq(shard_op_attr(op, "other")->kind, SHARD_ATTR_RAW);
  shard_buf b;
  shard_buf_init(&b);
  shard_attr_print(&b, shard_op_attr(op, "comparison_direction"));
  shard_buf_putc(&b, ' ');
  shard_attr_print(&b, shard_op_attr(op, "compare_type"));
  cr_assert_str_eq(shard_buf_str(&b), "#chlo<comparison_direction GE> #chlo<comparison_type TOTALORDER>");
  shard_buf_free(&b);
  shard_module_free(m);
}
