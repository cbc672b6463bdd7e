/* The printer's own bookkeeping: SSA names found by dense op id whether or
 * not another op table holds the marks, functions numbered as they are
 * printed, and integers formatted without printf. */
#include <criterion/criterion.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/op_table.h"
#include "ir/parse.h"
#include "ir/print.h"
#include "ir_testing.h"
#include "shard/shard.h"

/* Two functions, constants uniqued across a nested region, a reducer whose
 * arguments continue the function's %argN. */
static const char *S_in = "func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {\n"
                          "  %c = stablehlo.constant dense<1.0> : tensor<4xf32>\n"
                          "  %c2 = stablehlo.constant dense<2.0> : tensor<4xf32>\n"
                          "  %c0 = stablehlo.constant dense<0.0> : tensor<f32>\n"
                          "  %r = stablehlo.reduce(%x init: %c0) across dimensions = [0] : (tensor<4xf32>, "
                          "tensor<f32>) -> tensor<f32>\n"
                          "    reducer(%a: tensor<f32>, %b: tensor<f32>) {\n"
                          "      %c3 = stablehlo.constant dense<3.0> : tensor<f32>\n"
                          "      %s = stablehlo.add %a, %c3 : tensor<f32>\n"
                          "      stablehlo.return %s : tensor<f32>\n"
                          "    }\n"
                          "  %y = stablehlo.add %x, %c2 : tensor<4xf32>\n"
                          "  return %y : tensor<4xf32>\n"
                          "}\n"
                          "func.func @g(%x: tensor<4xf32>) -> tensor<4xf32> {\n"
                          "  %c = stablehlo.constant dense<1.0> : tensor<4xf32>\n"
                          "  %y = stablehlo.add %x, %c : tensor<4xf32>\n"
                          "  return %y : tensor<4xf32>\n"
                          "}\n";

static const char *S_want = "module {\n"
                            "  func.func @f(%arg0: tensor<4xf32>) -> tensor<4xf32> {\n"
                            "    %cst = stablehlo.constant dense<1.000000e+00> : tensor<4xf32>\n"
                            "    %cst_0 = stablehlo.constant dense<2.000000e+00> : tensor<4xf32>\n"
                            "    %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f32>\n"
                            "    %0 = stablehlo.reduce(%arg0 init: %cst_1) across dimensions = [0] : "
                            "(tensor<4xf32>, tensor<f32>) -> tensor<f32>\n"
                            "       reducer(%arg1: tensor<f32>, %arg2: tensor<f32>)  {\n"
                            "      %cst_2 = stablehlo.constant dense<3.000000e+00> : tensor<f32>\n"
                            "      %2 = stablehlo.add %arg1, %cst_2 : tensor<f32>\n"
                            "      stablehlo.return %2 : tensor<f32>\n"
                            "    }\n"
                            "    %1 = stablehlo.add %arg0, %cst_0 : tensor<4xf32>\n"
                            "    return %1 : tensor<4xf32>\n"
                            "  }\n"
                            "  func.func @g(%arg0: tensor<4xf32>) -> tensor<4xf32> {\n"
                            "    %cst = stablehlo.constant dense<1.000000e+00> : tensor<4xf32>\n"
                            "    %0 = stablehlo.add %arg0, %cst : tensor<4xf32>\n"
                            "    return %0 : tensor<4xf32>\n"
                            "  }\n"
                            "}\n";

static shard_module *S_parse(shard_source *src) { return ir_testing_parse(src, S_in); }

Test(print, names_scopes_and_functions) {
  shard_source src;
  shard_module *m = S_parse(&src);
  cr_assert_not_null(m);
  char *out = shard_module_print(m, 0);
  cr_expect_str_eq(out, S_want);
  free(out);
  shard_module_free(m);
}

/* A pass that prints while its own op table owns the marks (a debug dump):
 * the printer's table keeps its ids in a map, and the names are the same. */
Test(print, inside_a_live_op_table) {
  shard_source src;
  shard_module *m = S_parse(&src);
  cr_assert_not_null(m);
  shard_op_table outer;
  shard_op_table_init(&outer);
  cr_assert(outer.owns_marks);
  const shard_block *body = m->top->regions[0].first->first->regions[0].first;
  for (const shard_op *op = body->first; op; op = op->next) shard_op_table_add(&outer, op);
  char *out = shard_module_print(m, 0);
  cr_expect_str_eq(out, S_want);
  free(out);
  /* the outer table's ids survived the print */
  uint32_t id = 0, want = 0;
  for (const shard_op *op = body->first; op; op = op->next, want++) {
    cr_expect(shard_op_table_find(&outer, op, &id));
    cr_expect_eq(id, want);
  }
  shard_op_table_release(&outer);
  shard_module_free(m);
}

Test(print, integers_without_printf) {
  const int64_t vals[] = {0,    7,         9,  10,  42,  99,   100,       101,      999,
                          1000, 123456789, -1, -10, -99, -100, INT64_MAX, INT64_MIN};
  shard_buf b;
  shard_buf_init(&b);
  for (size_t i = 0; i < sizeof vals / sizeof *vals; i++) {
    shard_buf_clear(&b);
    shard_buf_put_i64(&b, vals[i]);
    char want[32];
    snprintf(want, sizeof want, "%" PRId64, vals[i]);
    cr_expect_str_eq(shard_buf_str(&b), want);
  }
  char digits[24];
  size_t n = shard_fmt_u64(digits, UINT64_MAX);
  digits[n] = '\0';
  cr_expect_str_eq(digits, "18446744073709551615");
  shard_buf_free(&b);
}
