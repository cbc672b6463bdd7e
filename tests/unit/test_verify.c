/* The verifier: Shardy's messages with MLIR's prefixes and locations, notes
 * after their errors, keep-going across ops, the parse-time phase, and
 * shard's own warnings under extra_warnings. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/parse.h"
#include "verify/verify.h"

#define MAX_DIAGS 16

typedef struct captured {
  unsigned count;
  shard_severity sev[MAX_DIAGS];
  unsigned line[MAX_DIAGS];
  char text[MAX_DIAGS][512];
} captured;

static void S_capture(void *ctx, const shard_diag *d) {
  captured *c = ctx;
  if (c->count < MAX_DIAGS) {
    unsigned col;
    c->sev[c->count] = d->severity;
    shard_span_linecol(d->span, &c->line[c->count], &col);
    snprintf(c->text[c->count], sizeof c->text[0], "%s", d->message);
  }
  c->count++;
}

/* Parses and verifies `in`; returns the verifier's verdict. Parse errors
 * fail the test. */
static bool S_verify(const char *in, bool extra, captured *c) {
  static shard_source src;
  src.name = "test.mlir";
  src.text = in;
  src.len = strlen(in);
  src.line_base = 0;
  shard_diag_engine de;
  memset(c, 0, sizeof *c);
  shard_diag_init(&de, S_capture, c);
  shard_module *m = shard_parse_module(&src, NULL, &de);
  cr_assert(m, "parse failed: %s", c->count ? c->text[0] : "?");
  shard_verify_options o = {.extra_warnings = extra};
  bool ok = shard_verify_module(m, &o, &de);
  shard_module_free(m);
  return ok;
}

static void S_expect_one_error(const char *in, const char *msg, unsigned line) {
  captured c;
  bool ok = S_verify(in, false, &c);
  cr_expect(!ok, "verifier accepted: %s", in);
  cr_assert_eq(c.count, 1, "expected 1 diagnostic, got %u (first: %s)", c.count, c.count ? c.text[0] : "");
  cr_expect_eq(c.sev[0], SHARD_ERROR);
  cr_expect_str_eq(c.text[0], msg);
  cr_expect_eq(c.line[0], line, "line %u, expected %u", c.line[0], line);
}

static void S_expect_clean(const char *in) {
  captured c;
  bool ok = S_verify(in, false, &c);
  cr_expect(ok, "verifier rejected: %s", c.count ? c.text[0] : "");
  cr_expect_eq(c.count, 0, "unexpected: %s", c.count ? c.text[0] : "");
}

Test(verify, valid_module_is_clean) {
  S_expect_clean(
      "sdy.mesh @mesh = <[\"a\"=2, \"b\"=4]>\n"
      "func.func @f(%arg0: tensor<8x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{\"a\"}, {\"b\":(1)2, ?}]>})\n"
      "    -> (tensor<8x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {\"b\"}], replicated={\"a\"}>}) {\n"
      "  %0 = stablehlo.add %arg0, %arg0 {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{\"a\"}, {}]>]>} : "
      "tensor<8x8xf32>\n"
      "  %1 = sdy.sharding_constraint %0 <@mesh, [{}, {\"b\"}]> : tensor<8x8xf32>\n"
      "  return %1 : tensor<8x8xf32>\n"
      "}\n");
}

Test(verify, func_arg_prefix_and_location) {
  S_expect_one_error("sdy.mesh @mesh = <[\"a\"=2]>\n"
                     "func.func @f(%arg0: tensor<8xf32>, %arg1: tensor<8xf32> {sdy.sharding = #sdy.sharding<@other, "
                     "[{}]>}) -> tensor<8xf32> {\n"
                     "  return %arg0 : tensor<8xf32>\n"
                     "}\n",
                     "'func.func' op arg 1 - unknown mesh: @other", 2);
}

Test(verify, func_result_prefix) {
  S_expect_one_error("sdy.mesh @mesh = <[\"a\"=2]>\n"
                     "func.func @f(%arg0: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32> {sdy.sharding = "
                     "#sdy.sharding<@mesh, [{\"c\"}]>}) {\n"
                     "  return %arg0, %arg0 : tensor<8xf32>, tensor<8xf32>\n"
                     "}\n",
                     "'func.func' op result 1 - unknown axis name: \"c\"", 2);
}

Test(verify, single_and_multi_result_prefixes) {
  S_expect_one_error("sdy.mesh @mesh = <[\"a\"=2]>\n"
                     "func.func @f(%arg0: tensor<8x8xf32>) -> tensor<8x8xf32> {\n"
                     "  %0 = stablehlo.add %arg0, %arg0 {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{\"a\"}]>]>} "
                     ": tensor<8x8xf32>\n"
                     "  return %0 : tensor<8x8xf32>\n"
                     "}\n",
                     "'stablehlo.add' op result - sharding doesn't match tensor rank: 1 != 2", 3);
  S_expect_one_error("sdy.mesh @mesh = <[\"a\"=2]>\n"
                     "func.func @f(%arg0: tensor<8xf32>) -> tensor<8xf32> {\n"
                     "  %0:2 = \"foo.two\"(%arg0) {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{}]>, <@mesh, "
                     "[{\"a\", \"a\"}]>]>} : (tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>)\n"
                     "  return %0#0 : tensor<8xf32>\n"
                     "}\n",
                     "'foo.two' op result 1 - duplicate axis ref: \"a\"", 3);
}

Test(verify, count_mismatch_and_wrong_kind) {
  S_expect_one_error("sdy.mesh @mesh = <[\"a\"=2]>\n"
                     "func.func @f(%arg0: tensor<8xf32>) -> tensor<8xf32> {\n"
                     "  %0 = stablehlo.add %arg0, %arg0 {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{}]>, "
                     "<@mesh, [{}]>]>} : tensor<8xf32>\n"
                     "  return %0 : tensor<8xf32>\n"
                     "}\n",
                     "'stablehlo.add' op result shardings don't match number of values: 2 shardings vs 1 values", 3);
  S_expect_one_error("sdy.mesh @mesh = <[\"a\"=2]>\n"
                     "func.func @f(%arg0: tensor<8xf32>) -> tensor<8xf32> {\n"
                     "  %0 = stablehlo.add %arg0, %arg0 {sdy.sharding = #sdy.sharding<@mesh, [{}]>} : tensor<8xf32>\n"
                     "  return %0 : tensor<8xf32>\n"
                     "}\n",
                     "'stablehlo.add' op should have a sharding attribute of type TensorShardingPerValueAttr", 3);
}

Test(verify, sub_axis_checks_in_shardy_order) {
  S_expect_one_error("sdy.mesh @mesh = <[\"a\"=8]>\n"
                     "func.func @f(%arg0: tensor<8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{\"a\":(2)2, "
                     "\"a\":(4)2}]>}) -> tensor<8xf32> {\n"
                     "  return %arg0 : tensor<8xf32>\n"
                     "}\n",
                     "'func.func' op arg 0 - two consecutive sub-axes can be merged: \"a\":(2)2, \"a\":(4)2", 2);
  S_expect_one_error("sdy.mesh @mesh = <[\"a\"=8]>\n"
                     "func.func @f(%arg0: tensor<8x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{\"a\":(1)4}, "
                     "{\"a\":(2)4}]>}) -> tensor<8x8xf32> {\n"
                     "  return %arg0 : tensor<8x8xf32>\n"
                     "}\n",
                     "'func.func' op arg 0 - overlapping sub-axes: \"a\":(1)4, \"a\":(2)4", 2);
  S_expect_one_error(
      "sdy.mesh @mesh = <[\"a\"=8]>\n"
      "func.func @f(%arg0: tensor<6xf32> {sdy.sharding = #sdy.sharding<@mesh, [{\"a\":(3)2}]>}) -> tensor<6xf32> {\n"
      "  return %arg0 : tensor<6xf32>\n"
      "}\n",
      "'func.func' op arg 0 - sub-axis next pre-size 6 doesn't divide the size of the full axis 8: \"a\":(3)2", 2);
}

Test(verify, manual_axis_bound_by_parent_has_note) {
  captured c;
  bool ok = S_verify("sdy.mesh @mesh = <[\"a\"=2]>\n"
                     "func.func @f(%arg0: tensor<16x32xf32>) -> tensor<16x32xf32> {\n"
                     "  %0 = sdy.manual_computation(%arg0) in_shardings=[<@mesh, [{\"a\"}, {}]>] "
                     "out_shardings=[<@mesh, [{\"a\"}, {}]>] manual_axes={\"a\"} (%arg1: tensor<8x32xf32>) {\n"
                     "    %1 = sdy.reshard %arg1 <@mesh, [{\"a\"}, {}]> : tensor<8x32xf32>\n"
                     "    sdy.return %1 : tensor<8x32xf32>\n"
                     "  } : (tensor<16x32xf32>) -> tensor<16x32xf32>\n"
                     "  return %0 : tensor<16x32xf32>\n"
                     "}\n",
                     false, &c);
  cr_expect(!ok);
  cr_assert_eq(c.count, 2, "got %u: %s", c.count, c.text[0]);
  cr_expect_str_eq(c.text[0], "'sdy.reshard' op operates on axis \"a\" which is already bound by a parent "
                              "sdy.manual_computation op");
  cr_expect_eq(c.line[0], 4);
  cr_expect_eq(c.sev[1], SHARD_NOTE);
  cr_expect_str_eq(c.text[1], "parent bounding this axis as manual");
  cr_expect_eq(c.line[1], 3);
}

Test(verify, manual_computation_local_shape) {
  S_expect_one_error("sdy.mesh @mesh = <[\"a\"=2]>\n"
                     "func.func @f(%arg0: tensor<16x32xf32>) -> tensor<16x32xf32> {\n"
                     "  %0 = sdy.manual_computation(%arg0) in_shardings=[<@mesh, [{\"a\"}, {}]>] "
                     "out_shardings=[<@mesh, [{}, {}]>] manual_axes={\"a\"} (%arg1: tensor<16x32xf32>) {\n"
                     "    sdy.return %arg1 : tensor<16x32xf32>\n"
                     "  } : (tensor<16x32xf32>) -> tensor<16x32xf32>\n"
                     "  return %0 : tensor<16x32xf32>\n"
                     "}\n",
                     "'sdy.manual_computation' op operand shape, corresponding sharding, and region operand shape at "
                     "index 0 must match. Expected local shape 'tensor<8x32xf32>', actual local shape "
                     "'tensor<16x32xf32>'",
                     3);
}

Test(verify, region_isolation) {
  captured c;
  bool ok = S_verify("sdy.mesh @mesh = <[\"a\"=2]>\n"
                     "func.func @f(%arg0: tensor<16x32xf32>) -> tensor<16x32xf32> {\n"
                     "  %0 = sdy.manual_computation(%arg0) in_shardings=[<@mesh, [{}, {}]>] out_shardings=[<@mesh, "
                     "[{}, {}]>] manual_axes={} (%arg1: tensor<16x32xf32>) {\n"
                     "    %1 = stablehlo.add %arg0, %arg1 : tensor<16x32xf32>\n"
                     "    sdy.return %1 : tensor<16x32xf32>\n"
                     "  } : (tensor<16x32xf32>) -> tensor<16x32xf32>\n"
                     "  return %0 : tensor<16x32xf32>\n"
                     "}\n",
                     false, &c);
  cr_expect(!ok);
  cr_assert_eq(c.count, 2, "got %u: %s", c.count, c.text[0]);
  cr_expect_str_eq(c.text[0], "'stablehlo.add' op using value defined outside the region");
  cr_expect_eq(c.line[0], 4);
  cr_expect_str_eq(c.text[1], "required by region isolation constraints");
  cr_expect_eq(c.line[1], 3);
}

Test(verify, collective_mesh_mismatch_note) {
  captured c;
  bool ok = S_verify(
      "sdy.mesh @mesh1 = <[\"x\"=2, \"y\"=2]>\n"
      "sdy.mesh @mesh2 = <[\"a\"=2, \"b\"=2]>\n"
      "func.func @f(%arg0 : tensor<16x8xf32> {sdy.sharding=#sdy.sharding<@mesh2, [{\"a\"}, {\"b\"}]>}) -> "
      "tensor<16x8xf32> {\n"
      "  %0 = sdy.all_gather [{}, {\"b\"}] %arg0 out_sharding=<@mesh1, [{\"y\"}, {\"x\"}]> : tensor<16x8xf32>\n"
      "  return %0 : tensor<16x8xf32>\n"
      "}\n",
      false, &c);
  cr_expect(!ok);
  cr_assert_eq(c.count, 2, "got %u: %s", c.count, c.text[0]);
  cr_expect_str_eq(c.text[0], "'sdy.all_gather' op result mesh does not match operand mesh");
  cr_expect_str_eq(c.text[1], "operand mesh: #sdy.mesh<[\"a\"=2, \"b\"=2]>");
  cr_expect_eq(c.line[1], 3);
}

Test(verify, collective_expected_sharding) {
  S_expect_one_error(
      "sdy.mesh @mesh = <[\"x\"=8, \"y\"=2]>\n"
      "func.func @f(%arg0 : tensor<16x8xf32> {sdy.sharding=#sdy.sharding<@mesh, [{\"y\"}, {\"x\":(1)2}]>}) -> "
      "tensor<16x8xf32> {\n"
      "  %0 = sdy.all_slice [{}, {\"x\":(4)2}] %arg0 out_sharding=<@mesh, [{\"y\"}, {\"x\":(1)4}]> : tensor<16x8xf32>\n"
      "  return %0 : tensor<16x8xf32>\n"
      "}\n",
      "'sdy.all_slice' op result sharding doesn't match expected sharding [\"x\":(1)2, \"x\":(4)2] on "
      "dimension 1",
      3);
  S_expect_clean("sdy.mesh @mesh = <[\"x\"=8, \"y\"=2]>\n"
                 "func.func @f(%arg0 : tensor<16x8xf32> {sdy.sharding=#sdy.sharding<@mesh, [{\"y\"}, {\"x\"}]>}) -> "
                 "tensor<16x8xf32> {\n"
                 "  %0 = sdy.all_gather [{}, {\"x\":(2)4}] %arg0 out_sharding=<@mesh, [{\"y\"}, {\"x\":(1)2}]> : "
                 "tensor<16x8xf32>\n"
                 "  return %0 : tensor<16x8xf32>\n"
                 "}\n");
}

Test(verify, unreduced_transitions) {
  S_expect_one_error("sdy.mesh @mesh = <[\"x\"=2, \"y\"=2]>\n"
                     "func.func @f(%arg0: tensor<8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}], "
                     "unreduced=max{\"x\"}>}) -> tensor<8xf32> {\n"
                     "  %0 = sdy.sharding_constraint %arg0 <@mesh, [{}], unreduced={\"x\"}> : tensor<8xf32>\n"
                     "  return %0 : tensor<8xf32>\n"
                     "}\n",
                     "'sdy.sharding_constraint' op cannot change the reduction operator of kept unreduced axes from "
                     "max to sum.",
                     3);
  S_expect_clean("sdy.mesh @mesh = <[\"x\"=2, \"y\"=2, \"z\"=2]>\n"
                 "func.func @f(%arg0: tensor<8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}], unreduced={\"x\", "
                 "\"y\"}>}) -> tensor<8xf32> {\n"
                 "  %0 = sdy.reshard %arg0 <@mesh, [{}], unreduced={\"x\", \"z\"}> : tensor<8xf32>\n"
                 "  return %0 : tensor<8xf32>\n"
                 "}\n");
}

Test(verify, sharding_rule) {
  S_expect_one_error("func.func @f(%arg0: tensor<2x8xf32>) -> tensor<2x8xf32> {\n"
                     "  %0 = stablehlo.add %arg0, %arg0 {sdy.sharding_rule = #sdy.op_sharding_rule<([i, j], [i, "
                     "j])->([i, j]) {i=2, j=8, k=2}>} : tensor<2x8xf32>\n"
                     "  return %0 : tensor<2x8xf32>\n"
                     "}\n",
                     "'stablehlo.add' op has factor k=2 that isn't used in operand and result mappings", 2);
}

Test(verify, keeps_going_across_ops_but_stops_within_one) {
  captured c;
  bool ok =
      S_verify("sdy.mesh @mesh = <[\"a\"=2]>\n"
               "func.func @f(%arg0: tensor<8xf32>) -> tensor<8xf32> {\n"
               "  %0 = stablehlo.add %arg0, %arg0 {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{\"b\", "
               "\"c\"}]>]>} : tensor<8xf32>\n"
               "  %1 = stablehlo.add %0, %0 {sdy.sharding = #sdy.sharding_per_value<[<@nope, [{}]>]>} : tensor<8xf32>\n"
               "  return %1 : tensor<8xf32>\n"
               "}\n",
               false, &c);
  cr_expect(!ok);
  cr_assert_eq(c.count, 2, "got %u", c.count);
  cr_expect_str_eq(c.text[0], "'stablehlo.add' op result - unknown axis name: \"b\"");
  cr_expect_str_eq(c.text[1], "'stablehlo.add' op result - unknown mesh: @nope");
  cr_expect_eq(c.line[1], 4);
}

Test(verify, mesh_attr_checks) {
  S_expect_one_error("sdy.mesh @mesh = <[\"a\"=2], device_ids=[2, 1]>\n",
                     "custom op 'sdy.mesh' sorted device ids must be iota(product(axes)), got: 1, 2", 1);
  S_expect_one_error("sdy.mesh @mesh = <[\"a\"=2, \"b\"=2, \"a\"=4]>\n",
                     "custom op 'sdy.mesh' duplicate axis name: \"a\"", 1);
}

Test(verify, propagation_barrier_both) {
  S_expect_one_error("func.func @f(%arg0 : tensor<8xf32>) -> tensor<8xf32> {\n"
                     "  %0 = sdy.propagation_barrier %arg0 allowed_direction=BOTH : tensor<8xf32>\n"
                     "  return %0 : tensor<8xf32>\n"
                     "}\n",
                     "'sdy.propagation_barrier' op cannot specify `BOTH` as the direction. Not blocking propagation "
                     "direction makes the op redundant.",
                     2);
}

Test(verify, extra_warnings_only_when_asked) {
  const char *in = "sdy.mesh @a = <[\"x\"=4, \"one\"=1]>\n"
                   "sdy.mesh @b = <[\"y\"=8]>\n"
                   "func.func @f(%arg0: tensor<6x8xf32> {sdy.sharding = #sdy.sharding<@a, [{\"x\"}, {\"one\"}]>}) -> "
                   "tensor<6x8xf32> {\n"
                   "  return %arg0 : tensor<6x8xf32>\n"
                   "}\n";
  captured c;
  cr_expect(S_verify(in, false, &c));
  cr_expect_eq(c.count, 0);
  cr_expect(S_verify(in, true, &c));
  bool devices = false, pad = false, size1 = false;
  for (unsigned i = 0; i < c.count && i < MAX_DIAGS; i++) {
    if (c.sev[i] != SHARD_WARNING) continue;
    if (strstr(c.text[i], "mesh @b has 8 devices but mesh @a has 4")) devices = true;
    if (strstr(c.text[i], "arg 0 - dim 0 of size 6 is not divisible by its sharded size 4; local shape pads to "
                          "'tensor<2x8xf32>'"))
      pad = true;
    if (strstr(c.text[i], "mesh axis \"one\" of size 1")) size1 = true;
  }
  cr_expect(devices, "no device-count warning");
  cr_expect(pad, "no divisibility warning");
  cr_expect(size1, "no size-1 axis warning");
}

Test(verify, mesh_symbols) {
  captured c;
  bool ok = S_verify("sdy.mesh @m = <[\"a\"=2]>\nsdy.mesh @m = <[\"a\"=4]>\n", false, &c);
  cr_expect(!ok);
  cr_assert_eq(c.count, 2);
  cr_expect_str_eq(c.text[0], "redefinition of symbol named 'm'");
  cr_expect_eq(c.line[0], 2);
  cr_expect_eq(c.sev[1], SHARD_NOTE);
  cr_expect_eq(c.line[1], 1);
  S_expect_one_error("func.func @f() {\n  sdy.mesh @m = <[\"a\"=2]>\n  return\n}\n",
                     "'sdy.mesh' op expects parent op 'builtin.module'", 2);
}

Test(verify, named_computation_checks) {
  S_expect_one_error("sdy.mesh @mesh = <[\"a\"=2, \"b\"=2]>\n"
                     "func.func @f(%arg0: tensor<8x2xi32>) -> tensor<8x2xi32> {\n"
                     "  %0 = sdy.named_computation<\"foo\">(%arg0) in_shardings=[<@mesh, [{\"b\"}, {}, {}]>] (%arg1: "
                     "tensor<8x2xi32>) {\n"
                     "    sdy.return %arg1 : tensor<8x2xi32>\n"
                     "  } : (tensor<8x2xi32>) -> tensor<8x2xi32>\n"
                     "  return %0 : tensor<8x2xi32>\n"
                     "}\n",
                     "'sdy.named_computation' op in_shardings - sharding doesn't match tensor rank: 3 != 2", 3);
  captured c;
  bool ok = S_verify("func.func @f(%arg0: tensor<8x2xi32>) -> tensor<8x2xi32> {\n"
                     "  %0 = sdy.named_computation<\"bar\">(%arg0) (%arg1: tensor<8x2xi32>) {\n"
                     "    sdy.return %arg1, %arg1 : tensor<8x2xi32>, tensor<8x2xi32>\n"
                     "  } : (tensor<8x2xi32>) -> tensor<8x2xi32>\n"
                     "  return %0 : tensor<8x2xi32>\n"
                     "}\n",
                     false, &c);
  cr_expect(!ok);
  cr_assert_eq(c.count, 2);
  cr_expect_str_eq(c.text[0], "'sdy.named_computation' op inferred type(s) 'tensor<8x2xi32>', 'tensor<8x2xi32>' "
                              "are incompatible with return type(s) of operation 'tensor<8x2xi32>'");
  cr_expect_str_eq(c.text[1], "'sdy.named_computation' op failed to infer returned types");
}

Test(verify, data_flow_edge_defined_by_sdy_op) {
  captured c;
  bool ok = S_verify("sdy.mesh @mesh = <[\"a\"=2]>\n"
                     "func.func @f(%arg0: tensor<32x96xf32>) -> tensor<32x96xf32> {\n"
                     "  %0 = sdy.sharding_constraint %arg0 <@mesh, [{}, {}]> : tensor<32x96xf32>\n"
                     "  %1 = sdy.data_flow_edge %0 : tensor<32x96xf32>\n"
                     "  return %1 : tensor<32x96xf32>\n"
                     "}\n",
                     false, &c);
  cr_expect(!ok);
  cr_assert_eq(c.count, 2);
  cr_expect_eq(c.line[0], 4);
  cr_expect(strstr(c.text[0], "expected input of sdy.data_flow_edge to not be defined by an SdyDialect op"));
  cr_expect_str_eq(c.text[1], "sdy op defining the input of the sdy.data_flow_edge");
  cr_expect_eq(c.line[1], 3);
}

/* func.call's symbol uses, with MLIR's messages */
static const char *const S_callee = "func.func private @f(%a: tensor<4xf32>) -> tensor<4xf32>\n";

Test(verify, call_to_a_defined_function_of_matching_type) {
  char in[1024];
  snprintf(in, sizeof in,
           "%sfunc.func @main(%%x: tensor<4xf32>) -> tensor<4xf32> {\n"
           "  %%0 = func.call @f(%%x) : (tensor<4xf32>) -> tensor<4xf32>\n"
           "  %%1 = func.call @f(%%0) : (tensor<4xf32>) -> tensor<4xf32>\n"
           "  return %%1 : tensor<4xf32>\n"
           "}\n",
           S_callee);
  S_expect_clean(in);
}

/* shard's limit: no pass follows a cycle of calls. */
Test(verify, a_function_calling_itself_is_rejected_at_the_call) {
  S_expect_one_error("func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {\n"
                     "  %0 = func.call @f(%x) : (tensor<4xf32>) -> tensor<4xf32>\n"
                     "  return %0 : tensor<4xf32>\n"
                     "}\n",
                     "recursive call graph is not supported: @f calls itself", 2);
}

Test(verify, a_cycle_through_other_functions_names_them) {
  S_expect_one_error("func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {\n"
                     "  %0 = func.call @g(%x) : (tensor<4xf32>) -> tensor<4xf32>\n"
                     "  return %0 : tensor<4xf32>\n"
                     "}\n"
                     "func.func @g(%x: tensor<4xf32>) -> tensor<4xf32> {\n"
                     "  %0 = func.call @h(%x) : (tensor<4xf32>) -> tensor<4xf32>\n"
                     "  return %0 : tensor<4xf32>\n"
                     "}\n"
                     "func.func @h(%x: tensor<4xf32>) -> tensor<4xf32> {\n"
                     "  %0 = func.call @f(%x) : (tensor<4xf32>) -> tensor<4xf32>\n"
                     "  return %0 : tensor<4xf32>\n"
                     "}\n",
                     "recursive call graph is not supported: @f calls itself through @g, @h", 2);
}

Test(verify, a_diamond_of_calls_is_not_a_cycle) {
  S_expect_clean("func.func @leaf(%x: tensor<4xf32>) -> tensor<4xf32> {\n"
                 "  return %x : tensor<4xf32>\n"
                 "}\n"
                 "func.func @a(%x: tensor<4xf32>) -> tensor<4xf32> {\n"
                 "  %0 = func.call @leaf(%x) : (tensor<4xf32>) -> tensor<4xf32>\n"
                 "  return %0 : tensor<4xf32>\n"
                 "}\n"
                 "func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {\n"
                 "  %0 = func.call @a(%x) : (tensor<4xf32>) -> tensor<4xf32>\n"
                 "  %1 = func.call @leaf(%0) : (tensor<4xf32>) -> tensor<4xf32>\n"
                 "  return %1 : tensor<4xf32>\n"
                 "}\n");
}

/* A very long chain of calls is walked without recursion. */
Test(verify, a_long_call_chain_is_checked_iteratively) {
  enum { N = 20000 };
  shard_buf b;
  shard_buf_init(&b);
  for (int i = 0; i < N; i++) {
    shard_buf_printf(&b, "func.func @f%d(%%x: tensor<4xf32>) -> tensor<4xf32> {\n", i);
    if (i + 1 < N) {
      shard_buf_printf(&b, "  %%0 = func.call @f%d(%%x) : (tensor<4xf32>) -> tensor<4xf32>\n", i + 1);
      shard_buf_puts(&b, "  return %0 : tensor<4xf32>\n}\n");
    } else {
      shard_buf_printf(&b, "  %%0 = func.call @f0(%%x) : (tensor<4xf32>) -> tensor<4xf32>\n");
      shard_buf_puts(&b, "  return %0 : tensor<4xf32>\n}\n");
    }
  }
  captured c;
  bool ok = S_verify(shard_buf_str(&b), false, &c);
  shard_buf_free(&b);
  cr_expect(!ok);
  cr_assert_geq(c.count, 1);
  cr_expect(strncmp(c.text[0], "recursive call graph is not supported: @f0 calls itself through @f1, @f2,", 72) == 0,
            "%s", c.text[0]);
}

static void S_expect_call_error(const char *call, const char *msg) {
  char in[1024];
  snprintf(in, sizeof in, "%sfunc.func @main(%%x: tensor<4xf32>, %%y: tensor<2xf32>) {\n  %s\n  return\n}\n", S_callee,
           call);
  S_expect_one_error(in, msg, 3);
}

Test(verify, call_symbol_uses) {
  S_expect_call_error("func.call @nope() : () -> ()", "'func.call' op 'nope' does not reference a valid function");
  S_expect_call_error("%0 = func.call @f(%y) : (tensor<2xf32>) -> tensor<4xf32>",
                      "'func.call' op operand type mismatch: expected operand type 'tensor<4xf32>', but provided "
                      "'tensor<2xf32>' for operand number 0");
  S_expect_call_error("%0 = func.call @f(%x, %x) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>",
                      "'func.call' op incorrect number of operands for callee");
  S_expect_call_error("%0:2 = func.call @f(%x) : (tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)",
                      "'func.call' op incorrect number of results for callee");
  S_expect_call_error("%0 = func.call @f(%x) : (tensor<4xf32>) -> tensor<2xf32>",
                      "'func.call' op result type mismatch at index 0");
}

Test(verify, a_call_to_a_mesh_is_no_call) {
  S_expect_one_error("sdy.mesh @m = <[\"a\"=2]>\n"
                     "func.func @main() {\n"
                     "  func.call @m() : () -> ()\n"
                     "  return\n"
                     "}\n",
                     "'func.call' op 'm' does not reference a valid function", 3);
}

/* StableHLO's constraints accept well-formed ops: each op below is valid, and
 * its inferred type is the declared one. */
Test(verify, stablehlo_ops_that_satisfy_their_constraints_are_clean) {
  S_expect_clean(
      "func.func @main(%a: tensor<2x3xf32>, %i: tensor<2x1xi32>, %u: tensor<2x3xf32>, %g: tensor<4x2x3xf32>,\n"
      "                %gi: tensor<4x1xi32>) -> tensor<3x2xf32> {\n"
      "  %t = stablehlo.transpose %a, dims = [1, 0] : (tensor<2x3xf32>) -> tensor<3x2xf32>\n"
      "  %c = stablehlo.concatenate %a, %a, dim = 0 : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<4x3xf32>\n"
      "  %z = stablehlo.constant dense<0.0> : tensor<f32>\n"
      "  %r = stablehlo.reduce(%a init: %z) applies stablehlo.add across dimensions = [1] : (tensor<2x3xf32>, "
      "tensor<f32>) -> tensor<2xf32>\n"
      "  %b = stablehlo.broadcast_in_dim %r, dims = [0] : (tensor<2xf32>) -> tensor<2x5xf32>\n"
      "  %s = stablehlo.slice %a [0:2, 1:3:2] : (tensor<2x3xf32>) -> tensor<2x1xf32>\n"
      "  %d = stablehlo.dot_general %a, %t, contracting_dims = [1] x [0] : (tensor<2x3xf32>, tensor<3x2xf32>) -> "
      "tensor<2x2xf32>\n"
      "  %io = stablehlo.iota dim = 1 : tensor<2x3xi32>\n"
      "  %rv = stablehlo.reverse %a, dims = [0, 1] : tensor<2x3xf32>\n"
      "  %p = stablehlo.pad %a, %z, low = [0, 1], high = [1, 0], interior = [1, 0] : (tensor<2x3xf32>, tensor<f32>) -> "
      "tensor<4x4xf32>\n"
      "  %ga = \"stablehlo.gather\"(%a, %i) <{dimension_numbers = #stablehlo.gather<offset_dims = [1], "
      "collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, slice_sizes = array<i64: 1, 3>}> : "
      "(tensor<2x3xf32>, tensor<2x1xi32>) -> tensor<2x3xf32>\n"
      "  %gb = \"stablehlo.gather\"(%g, %gi) <{dimension_numbers = #stablehlo.gather<offset_dims = [1], "
      "collapsed_slice_dims = [1], operand_batching_dims = [0], start_indices_batching_dims = [0], start_index_map = "
      "[1], index_vector_dim = 1>, slice_sizes = array<i64: 1, 1, 3>}> : (tensor<4x2x3xf32>, tensor<4x1xi32>) -> "
      "tensor<4x3xf32>\n"
      "  %sc = \"stablehlo.scatter\"(%a, %i, %u) <{scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = "
      "[1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>}> ({\n"
      "  ^bb0(%x: tensor<f32>, %y: tensor<f32>):\n"
      "    stablehlo.return %y : tensor<f32>\n"
      "  }) : (tensor<2x3xf32>, tensor<2x1xi32>, tensor<2x3xf32>) -> tensor<2x3xf32>\n"
      "  %rw = \"stablehlo.reduce_window\"(%a, %z) <{window_dimensions = array<i64: 2, 1>, window_strides = array<i64: "
      "1, 1>, padding = dense<[[1, 0], [0, 0]]> : tensor<2x2xi64>}> ({\n"
      "  ^bb0(%x: tensor<f32>, %y: tensor<f32>):\n"
      "    %m = stablehlo.maximum %x, %y : tensor<f32>\n"
      "    stablehlo.return %m : tensor<f32>\n"
      "  }) : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>\n"
      "  %so = \"stablehlo.sort\"(%a) <{dimension = -1 : i64, is_stable = true}> ({\n"
      "  ^bb0(%x: tensor<f32>, %y: tensor<f32>):\n"
      "    %lt = stablehlo.compare LT, %x, %y : (tensor<f32>, tensor<f32>) -> tensor<i1>\n"
      "    stablehlo.return %lt : tensor<i1>\n"
      "  }) : (tensor<2x3xf32>) -> tensor<2x3xf32>\n"
      "  return %t : tensor<3x2xf32>\n"
      "}\n");
}

/* Shape-function errors read as MLIR prints them: the message at the op
 * without a prefix, then InferTypeOpInterface's own. */
Test(verify, a_failed_shape_function_is_followed_by_failed_to_infer) {
  captured c;
  bool ok =
      S_verify("func.func @main(%a: tensor<2x3xf32>) -> tensor<4x3xf32> {\n"
               "  %0 = stablehlo.concatenate %a, %a, dim = 2 : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<4x3xf32>\n"
               "  return %0 : tensor<4x3xf32>\n"
               "}\n",
               false, &c);
  cr_expect(!ok);
  cr_assert_eq(c.count, 2);
  cr_expect_str_eq(c.text[0], "dimension 2 is out-of-bounds for input rank 2");
  cr_expect_str_eq(c.text[1], "'stablehlo.concatenate' op failed to infer returned types");
}

Test(verify, a_declared_type_other_than_the_inferred_one_is_reported) {
  S_expect_one_error("func.func @main(%a: tensor<2x3xf32>) -> tensor<2x8xf32> {\n"
                     "  %0 = stablehlo.broadcast_in_dim %a, dims = [0, 1] : (tensor<2x3xf32>) -> tensor<2x8xf32>\n"
                     "  return %0 : tensor<2x8xf32>\n"
                     "}\n",
                     "size of operand dimension 1 (3) is not equal to 1 or size of result dimension 1 (8)", 2);
}
