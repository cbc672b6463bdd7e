/* The sdy ops' custom syntax (ops_sdy.c): each op parses from the form
 * sdy_opt prints and prints back the same way, inherent attributes stay out
 * of the printed attr-dict, and malformed ops report MLIR's messages. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "ir/opdef.h"
#include "ir/parse.h"
#include "ir/print.h"

static shard_buf errors;

static void collect(void *ctx, const shard_diag *d) {
  (void)ctx;
  shard_buf_puts(&errors, d->message);
  shard_buf_putc(&errors, '\n');
}

/* Parses `text` and prints it back; NULL (with `errors` filled) on failure.
 * The caller frees the result. */
static char *roundtrip(const char *text) {
  shard_source src = {"test.mlir", text, strlen(text), 0};
  shard_diag_engine de;
  shard_buf_init(&errors);
  shard_diag_init(&de, collect, NULL);
  shard_module *m = shard_parse_module(&src, NULL, &de);
  if (!m) return NULL;
  shard_buf out;
  shard_buf_init(&out);
  shard_print_options opts = {0};
  shard_print_module(&out, m, &opts);
  shard_module_free(m);
  return shard_buf_take(&out);
}

/* Asserts that `text` round-trips and its printout contains `expected`. */
static void expect_prints(const char *text, const char *expected) {
  char *out = roundtrip(text);
  cr_assert(out, "parse failed: %s\n--- input:\n%s", shard_buf_str(&errors), text);
  cr_expect(strstr(out, expected), "expected\n  %s\nin\n%s", expected, out);
  free(out);
  shard_buf_free(&errors);
}

static void expect_error(const char *text, const char *message) {
  char *out = roundtrip(text);
  cr_expect_null(out, "parsed unexpectedly:\n%s", out ? out : "");
  cr_expect(strstr(shard_buf_str(&errors), message), "expected error\n  %s\ngot\n  %s", message,
            shard_buf_str(&errors));
  free(out);
  shard_buf_free(&errors);
}

Test(ops_sdy, table_sorted_and_traits) {
  for (unsigned i = 1; i < shard_num_sdy_ops; i++)
    cr_expect(strcmp(shard_sdy_ops[i - 1].name, shard_sdy_ops[i].name) < 0, "%s before %s", shard_sdy_ops[i - 1].name,
              shard_sdy_ops[i].name);
  for (unsigned i = 0; i < shard_num_sdy_ops; i++) {
    cr_expect(shard_sdy_ops[i].traits & SHARD_TRAIT_SDY, "%s", shard_sdy_ops[i].name);
    cr_expect(shard_sdy_ops[i].parse && shard_sdy_ops[i].print, "%s", shard_sdy_ops[i].name);
  }
  const shard_op_def *ret = shard_op_def_lookup("sdy.return", 10);
  cr_assert(ret);
  cr_expect(ret->traits & SHARD_TRAIT_TERMINATOR);
  const shard_op_def *mc = shard_op_def_lookup("sdy.manual_computation", 22);
  cr_assert(mc);
  cr_expect(mc->traits & SHARD_TRAIT_ISOLATED);
  cr_expect(shard_op_def_is_inherent(mc, "manual_axes"));
  const shard_op_def *mesh = shard_op_def_lookup("sdy.mesh", 8);
  cr_assert(mesh);
  cr_expect(mesh->traits & SHARD_TRAIT_SYMBOL);
  cr_expect(shard_op_def_is_inherent(mesh, "sym_name"));
  cr_expect(!shard_op_def_is_inherent(mesh, "sdy.sharding"));
}

Test(ops_sdy, mesh) {
  expect_prints("sdy.mesh @empty_mesh = <[]>", "sdy.mesh @empty_mesh = <[]>\n");
  expect_prints("sdy.mesh @m = <[], device_ids=[0]>", "sdy.mesh @m = <[], device_ids=[0]>\n");
  /* iota device ids are dropped */
  expect_prints("sdy.mesh @m = <[\"a\"=2, \"b\"=2], device_ids=[0, 1, 2, 3]>", "sdy.mesh @m = <[\"a\"=2, \"b\"=2]>\n");
  expect_prints("sdy.mesh @m = <[\"a\"=2, \"b\"=1], device_ids=[1, 0]>",
                "sdy.mesh @m = <[\"a\"=2, \"b\"=1], device_ids=[1, 0]>\n");
  expect_prints("sdy.mesh @\"my mesh\" = <[\"a\"=2]>", "sdy.mesh @\"my mesh\" = <[\"a\"=2]>\n");
  expect_prints("sdy.mesh @m = <[\"a\"=2]> {foo = 1 : i64}", "sdy.mesh @m = <[\"a\"=2]> {foo = 1 : i64}\n");
}

#define MESH "sdy.mesh @mesh = <[\"a\"=2, \"b\"=2]>\n"

Test(ops_sdy, sharding_constraint_and_reshard) {
  expect_prints(MESH "func.func @f(%arg0: tensor<8x8xf32>) -> tensor<8x8xf32> {\n"
                     "  %0 = sdy.sharding_constraint %arg0 <@mesh, [{\"a\"}, {?}]> : tensor<8x8xf32>\n"
                     "  %1 = sdy.reshard %0 <@mesh, [{}, {\"b\"}], unreduced=max{\"a\"}> {x} : tensor<8x8xf32>\n"
                     "  return %1 : tensor<8x8xf32>\n}\n",
                "%0 = sdy.sharding_constraint %arg0 <@mesh, [{\"a\"}, {?}]> : tensor<8x8xf32>\n"
                "    %1 = sdy.reshard %0 <@mesh, [{}, {\"b\"}], unreduced=max{\"a\"}> {x} : "
                "tensor<8x8xf32>\n");
}

Test(ops_sdy, manual_computation) {
  expect_prints(MESH "func.func @f(%arg0: tensor<16x32xf32>) -> tensor<16x32xf32> {\n"
                     "  %0 = sdy.manual_computation(%arg0) in_shardings=[<@mesh, [{\"a\", ?}, {?}]>] "
                     "out_shardings=[<@mesh, [{\"a\", ?}, {?}]>] manual_axes={\"a\"} (%arg1: tensor<8x32xf32>) {\n"
                     "    %1 = \"test.op\"(%arg1) : (tensor<8x32xf32>) -> tensor<8x32xf32>\n"
                     "    sdy.return %1 : tensor<8x32xf32>\n"
                     "  } {z = 1 : i64} : (tensor<16x32xf32>) -> tensor<16x32xf32>\n"
                     "  return %0 : tensor<16x32xf32>\n}\n",
                "%0 = sdy.manual_computation(%arg0) in_shardings=[<@mesh, [{\"a\", ?}, {?}]>] "
                "out_shardings=[<@mesh, [{\"a\", ?}, {?}]>] manual_axes={\"a\"} (%arg1: tensor<8x32xf32>) {\n"
                "      %1 = \"test.op\"(%arg1) : (tensor<8x32xf32>) -> tensor<8x32xf32>\n"
                "      sdy.return %1 : tensor<8x32xf32>\n"
                "    } {z = 1 : i64} : (tensor<16x32xf32>) -> tensor<16x32xf32>\n");
}

Test(ops_sdy, manual_computation_empty_and_implicit_return) {
  const char *expected = "sdy.manual_computation() in_shardings=[] out_shardings=[] manual_axes={} () {\n"
                         "      sdy.return\n"
                         "    } : () -> ()\n";
  expect_prints("func.func @f() {\n"
                "  sdy.manual_computation() in_shardings=[] out_shardings=[] manual_axes={} () {\n"
                "    sdy.return\n"
                "  } : () -> ()\n"
                "  return\n}\n",
                expected);
  /* SingleBlockImplicitTerminator: the empty return is added */
  expect_prints("func.func @f() {\n"
                "  sdy.manual_computation() in_shardings=[] out_shardings=[] manual_axes={} () {\n"
                "  } : () -> ()\n"
                "  return\n}\n",
                expected);
}

Test(ops_sdy, named_computation) {
  expect_prints("func.func @f(%arg0: tensor<8x2xi32>) -> tensor<8x2xi32> {\n"
                "  %0 = sdy.named_computation<\"foo\">(%arg0) (%arg1: tensor<8x2xi32>) {\n"
                "    sdy.return %arg1 : tensor<8x2xi32>\n"
                "  } : (tensor<8x2xi32>) -> tensor<8x2xi32>\n"
                "  return %0 : tensor<8x2xi32>\n}\n",
                "%0 = sdy.named_computation<\"foo\">(%arg0) (%arg1: tensor<8x2xi32>) {\n"
                "      sdy.return %arg1 : tensor<8x2xi32>\n"
                "    } : (tensor<8x2xi32>) -> tensor<8x2xi32>\n");
  expect_prints(
      MESH "func.func @f(%arg0: tensor<8x2xi32>, %arg1: !stablehlo.token) -> (tensor<8x2xi32>, !stablehlo.token) {\n"
           "  %0:2 = sdy.named_computation<\"foo\">(%arg0, %arg1) in_shardings=[<@mesh, [{\"b\"}, {}]>, <@mesh, []>] "
           "out_shardings=[<@mesh, [{\"a\"}, {}]>, <@mesh, []>] (%arg2: tensor<8x2xi32>, %arg3: !stablehlo.token) {\n"
           "    sdy.return %arg2, %arg3 : tensor<8x2xi32>, !stablehlo.token\n"
           "  } : (tensor<8x2xi32>, !stablehlo.token) -> (tensor<8x2xi32>, !stablehlo.token)\n"
           "  return %0#0, %0#1 : tensor<8x2xi32>, !stablehlo.token\n}\n",
      "%0:2 = sdy.named_computation<\"foo\">(%arg0, %arg1) in_shardings=[<@mesh, [{\"b\"}, {}]>, <@mesh, []>] "
      "out_shardings=[<@mesh, [{\"a\"}, {}]>, <@mesh, []>] (%arg2: tensor<8x2xi32>, %arg3: !stablehlo.token) {\n"
      "      sdy.return %arg2, %arg3 : tensor<8x2xi32>, !stablehlo.token\n"
      "    } : (tensor<8x2xi32>, !stablehlo.token) -> (tensor<8x2xi32>, !stablehlo.token)\n");
  /* only out_shardings */
  expect_prints(
      MESH
      "func.func @f(%arg0: tensor<8xf32>) -> tensor<8xf32> {\n"
      "  %0 = sdy.named_computation<\"b\\22r\">(%arg0) out_shardings=[<@mesh, [{\"a\"}]>] (%arg1: tensor<8xf32>) {\n"
      "    sdy.return %arg1 : tensor<8xf32>\n"
      "  } : (tensor<8xf32>) -> tensor<8xf32>\n"
      "  return %0 : tensor<8xf32>\n}\n",
      "sdy.named_computation<\"b\\22r\">(%arg0) out_shardings=[<@mesh, [{\"a\"}]>] (%arg1");
}

#define COLLECTIVE_HEAD                                                                                                \
  "sdy.mesh @mesh1 = <[\"x\"=2, \"y\"=2]>\n"                                                                           \
  "func.func @f(%arg0: tensor<16x8xf32>) -> tensor<16x8xf32> {\n"                                                      \
  "  %0 = "
#define COLLECTIVE_TAIL " : tensor<16x8xf32>\n  return %0 : tensor<16x8xf32>\n}\n"
#define COLLECTIVE(op) COLLECTIVE_HEAD op COLLECTIVE_TAIL

/* `op` alone on its line round-trips unchanged. */
static void expect_collective(const char *op) {
  shard_buf text, expected;
  shard_buf_init(&text);
  shard_buf_init(&expected);
  shard_buf_puts(&text, COLLECTIVE_HEAD);
  shard_buf_puts(&text, op);
  shard_buf_puts(&text, COLLECTIVE_TAIL);
  shard_buf_puts(&expected, "%0 = ");
  shard_buf_puts(&expected, op);
  shard_buf_puts(&expected, " : tensor<16x8xf32>\n");
  expect_prints(shard_buf_str(&text), shard_buf_str(&expected));
  shard_buf_free(&text);
  shard_buf_free(&expected);
}

Test(ops_sdy, collectives) {
  expect_collective("sdy.all_gather [{}, {\"x\"}] %arg0 out_sharding=<@mesh1, [{\"y\"}, {}]>");
  expect_collective("sdy.all_slice [{}, {\"x\"}] %arg0 out_sharding=<@mesh1, [{\"y\"}, {\"x\"}]>");
  expect_collective("sdy.all_to_all [{\"x\"}: 0->1] %arg0 out_sharding=<@mesh1, [{}, {\"x\"}]>");
  expect_collective("sdy.all_to_all [{\"x\"}: 0->1, {\"y\"}: 1->0] %arg0 out_sharding=<@mesh1, [{\"y\"}, {\"x\"}]>");
  expect_collective("sdy.collective_permute %arg0 out_sharding=<@mesh1, [{\"y\"}, {\"x\"}]>");
  expect_collective("sdy.all_reduce {\"y\"} %arg0 out_sharding=<@mesh1, [{}, {\"x\"}]>");
  expect_collective("sdy.all_reduce max {\"y\"} %arg0 out_sharding=<@mesh1, [{}, {\"x\"}]>");
  expect_collective("sdy.reduce_scatter min [{\"y\"}, {}] %arg0 out_sharding=<@mesh1, [{\"x\", \"y\"}, {}]>");
  expect_collective("sdy.sharded_to_unreduced [{\"x\"}, {}] %arg0 out_sharding=<@mesh1, [{}, {}], unreduced={\"x\"}>");
  expect_collective("sdy.replicated_to_unreduced {\"x\"} %arg0 out_sharding=<@mesh1, [{}, {}], unreduced={\"x\"}>");
  expect_collective("sdy.collective_permute %arg0 out_sharding=<@mesh1, [{\"y\"}, {\"x\"}]> {a = 1 : i64}");
  /* an explicit `sum` is the default and not printed */
  expect_prints(COLLECTIVE("sdy.all_reduce sum {\"y\"} %arg0 out_sharding=<@mesh1, [{}, {\"x\"}]>"),
                "%0 = sdy.all_reduce {\"y\"} %arg0 out_sharding=<@mesh1, [{}, {\"x\"}]> : tensor<16x8xf32>\n");
}

Test(ops_sdy, small_ops) {
  expect_prints(MESH "func.func @f(%arg0: tensor<8xf32>) -> tensor<8xf32> {\n"
                     "  sdy.sharding_group %arg0 group_id = 21 : tensor<8xf32>\n"
                     "  %0 = sdy.propagation_barrier %arg0 allowed_direction=BACKWARD "
                     "{sdy.sharding=#sdy.sharding_per_value<[<@mesh, [{\"a\",?}]>]>} : tensor<8xf32>\n"
                     "  %1 = sdy.data_flow_edge %0 sharding=<@mesh, [{\"a\"}]> : tensor<8xf32>\n"
                     "  %2 = sdy.data_flow_edge %1 : tensor<8xf32>\n"
                     "  %3 = sdy.func_data_flow_edge %2 {x} : tensor<8xf32>\n"
                     "  %4 = sdy.propagation_barrier %3 allowed_direction=\"NONE\" : tensor<8xf32>\n"
                     "  return %4 : tensor<8xf32>\n}\n",
                "    sdy.sharding_group %arg0 group_id=21 : tensor<8xf32>\n"
                "    %0 = sdy.propagation_barrier %arg0 allowed_direction=BACKWARD {sdy.sharding = "
                "#sdy.sharding_per_value<[<@mesh, [{\"a\", ?}]>]>} : tensor<8xf32>\n"
                "    %1 = sdy.data_flow_edge %0 sharding=<@mesh, [{\"a\"}]> : tensor<8xf32>\n"
                "    %2 = sdy.data_flow_edge %1 : tensor<8xf32>\n"
                "    %3 = sdy.func_data_flow_edge %2 {x} : tensor<8xf32>\n"
                "    %4 = sdy.propagation_barrier %3 allowed_direction=NONE : tensor<8xf32>\n");
}

Test(ops_sdy, constant) {
  expect_prints("func.func @f() -> tensor<8x16xf32> {\n"
                "  %0 = sdy.constant dense<1.000000e+00> : tensor<8x16xf32>\n"
                "  %1 = sdy.constant {x = 1 : i64} dense<[1, 2]> : tensor<2xi32>\n"
                "  return %0 : tensor<8x16xf32>\n}\n",
                "    %0 = sdy.constant dense<1.000000e+00> : tensor<8x16xf32>\n"
                "    %1 = sdy.constant {x = 1 : i64} dense<[1, 2]> : tensor<2xi32>\n");
  /* the generic-looking form with a differing result type is kept as is */
  expect_prints("func.func @f() {\n"
                "  %0 = sdy.constant() <{value = dense<1> : tensor<3xi32>}> : () -> tensor<3xi64>\n"
                "  return\n}\n",
                "%0 = sdy.constant() <{value = dense<1> : tensor<3xi32>}> : () -> tensor<3xi64>\n");
}

Test(ops_sdy, errors) {
  expect_error("func.func @f(%arg0: tensor<8xf32>) -> tensor<8xf32> {\n"
               "  %0 = sdy.propagation_barrier %arg0 allowed_direction=SIDEWAYS : tensor<8xf32>\n"
               "  return %0 : tensor<8xf32>\n}\n",
               "expected string or keyword containing one of the following enum values for "
               "attribute 'allowed_direction' [NONE, FORWARD, BACKWARD, BOTH]");
  expect_error("func.func @f(%arg0: tensor<8xf32>) -> tensor<8xf32> {\n"
               "  %0 = sdy.propagation_barrier %arg0 allowed_direction=\"UP\" : tensor<8xf32>\n"
               "  return %0 : tensor<8xf32>\n}\n",
               "invalid allowed_direction attribute specification: \"UP\"");
  expect_error("func.func @f(%arg0: tensor<8xf32>) {\n"
               "  sdy.manual_computation(%arg0) in_shardings=[] out_shardings=[] manual_axes={} () {\n"
               "    sdy.return\n"
               "  } : () -> ()\n"
               "  return\n}\n",
               "1 operands present, but expected 0");
  expect_error(
      "func.func @f(%arg0: tensor<8xf32>) {\n"
      "  sdy.manual_computation(%arg0) in_shardings=[] out_shardings=[] manual_axes={} (%arg1: tensor<8xf32>) {\n"
      "    sdy.return %arg1, %arg1 : tensor<8xf32>\n"
      "  } : (tensor<8xf32>) -> tensor<8xf32>\n"
      "  return\n}\n",
      "2 operands present, but expected 1");
  expect_error("func.func @f(%arg0: tensor<8xf32>) {\n"
               "  sdy.sharding_group %arg0 group : tensor<8xf32>\n"
               "  return\n}\n",
               "expected 'group_id'");
  expect_error("func.func @f() {\n"
               "  %0 = sdy.constant [1, 2]\n"
               "  return\n}\n",
               "invalid kind of attribute specified");
}

/* parseCustomAttributeWithFallback: full #sdy attributes and aliases are
 * accepted where the stripped form is printed. */
Test(ops_sdy, full_attribute_forms) {
  expect_prints("sdy.mesh @mesh = #sdy.mesh<[\"x\"=2, \"y\"=2], device_ids=[0, 1, 2, 3]>",
                "sdy.mesh @mesh = <[\"x\"=2, \"y\"=2]>\n");
  expect_prints("#s = #sdy.sharding<@mesh, [{\"a\"}]>\n" MESH "func.func @f(%arg0: tensor<8xf32>) -> tensor<8xf32> {\n"
                "  %0 = sdy.sharding_constraint %arg0 #sdy.sharding<@mesh, [{\"b\"}]> : tensor<8xf32>\n"
                "  %1 = sdy.all_slice [{\"a\"}] %0 out_sharding=#s : tensor<8xf32>\n"
                "  return %1 : tensor<8xf32>\n}\n",
                "%0 = sdy.sharding_constraint %arg0 <@mesh, [{\"b\"}]> : tensor<8xf32>\n"
                "    %1 = sdy.all_slice [{\"a\"}] %0 out_sharding=<@mesh, [{\"a\"}]> : tensor<8xf32>\n");
  expect_error("sdy.mesh @m = #sdy.sharding<@m, []>", "invalid kind of attribute specified");
}

Test(ops_sdy, constant_needs_static_shape) {
  expect_error("func.func @f() -> tensor<8x?xf32> {\n"
               "  %0 = sdy.constant dense<1.000000e+00> : tensor<*xf32>\n"
               "  func.return %0 : tensor<8x?xf32>\n}\n",
               "elements literal type must have static shape");
}

static bool find_op(shard_op *op, void *ctx) {
  shard_op **found = ctx;
  if (strcmp(op->name, "sdy.all_reduce") == 0) {
    *found = op;
    return false;
  }
  return true;
}

/* An op that lost a required attribute (a pass bug, or generic input that
 * skipped the verifier) prints MLIR's placeholder instead of crashing. */
Test(ops_sdy, missing_attribute_prints_placeholder) {
  const char *text = COLLECTIVE("sdy.all_reduce max {\"y\"} %arg0 out_sharding=<@mesh1, [{}, {\"x\"}]>");
  shard_source src = {"test.mlir", text, strlen(text), 0};
  shard_diag_engine de;
  shard_buf_init(&errors);
  shard_diag_init(&de, collect, NULL);
  shard_module *m = shard_parse_module(&src, NULL, &de);
  cr_assert(m, "%s", shard_buf_str(&errors));
  shard_op *op = NULL;
  shard_walk(m->top, find_op, &op);
  cr_assert(op);
  cr_assert(shard_op_remove_attr(op, "out_sharding"));
  cr_assert(shard_op_remove_attr(op, "reduction_axes"));
  shard_buf out;
  shard_buf_init(&out);
  shard_print_options opts = {0};
  shard_print_module(&out, m, &opts);
  cr_expect(strstr(shard_buf_str(&out), "sdy.all_reduce max <<NULL ATTRIBUTE>> %arg0 "
                                        "out_sharding=<<NULL ATTRIBUTE>> : tensor<16x8xf32>"),
            "%s", shard_buf_str(&out));
  shard_buf_free(&out);
  shard_buf_free(&errors);
  shard_module_free(m);
}
