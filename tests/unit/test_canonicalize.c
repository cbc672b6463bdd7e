/* -canonicalize: the sdy patterns, the greedy driver's dead-code removal
 * (pure ops only), fixpoint iteration, idempotence and option handling.
 * Shardy's own lit tests cover the documented cases; these pin down the
 * cases around them (chains, nesting, what must stay). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/parse.h"
#include "pass/pass.h"
#include "ir/print.h"
#include "verify/verify.h"

static char S_messages[2048];

static void S_capture(void *ctx, const shard_diag *d) {
  (void)ctx;
  size_t used = strlen(S_messages);
  snprintf(S_messages + used, sizeof S_messages - used, "%s\n", d->message);
}

/* Parses, verifies, canonicalizes (with `options`) and prints `in`. Returns
 * the printed module, or NULL when the pass failed (messages in S_messages). */
static char *S_canonicalize(const char *in, const char *options) {
  shard_source src = {0};
  src.name = "test.mlir";
  src.text = in;
  src.len = strlen(in);
  S_messages[0] = 0;
  shard_diag_engine de;
  shard_diag_init(&de, S_capture, NULL);
  shard_module *m = shard_parse_module(&src, NULL, &de);
  cr_assert(m && !de.errors, "parse failed: %s", S_messages);
  shard_verify_options vo = {.extra_warnings = false};
  cr_assert(shard_verify_module(m, &vo, &de), "input does not verify: %s", S_messages);
  if (!shard_pass_canonicalize(m, options, SHARD_PASS_CONTEXT(&de)) || de.errors) {
    shard_module_free(m);
    return NULL;
  }
  cr_assert(shard_verify_module(m, &vo, &de), "output does not verify: %s", S_messages);
  shard_buf b;
  shard_buf_init(&b);
  shard_print_options po = {0};
  shard_print_module(&b, m, &po);
  shard_module_free(m);
  return shard_buf_take(&b);
}

/* Canonicalizes `in` and expects exactly `want` (a whole printed module). */
static void S_expect(const char *in, const char *want) {
  char *got = S_canonicalize(in, NULL);
  cr_assert(got, "pass failed: %s", S_messages);
  cr_expect_str_eq(got, want);
  /* A second run changes nothing. */
  char *again = S_canonicalize(got, NULL);
  cr_assert(again, "second run failed: %s", S_messages);
  cr_expect_str_eq(again, got, "not idempotent");
  free(again);
  free(got);
}

#define MESH "sdy.mesh @mesh = <[\"a\"=2, \"b\"=1]>\n"
#define MESH_OUT "module {\n  sdy.mesh @mesh = <[\"a\"=2, \"b\"=1]>\n"

Test(canonicalize, dead_pure_chains_go_effects_and_collectives_stay) {
  S_expect(MESH "func.func @f(%arg0: tensor<8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}) -> tensor<8xf32> {\n"
                "  %0 = stablehlo.add %arg0, %arg0 : tensor<8xf32>\n"
                "  %1 = stablehlo.multiply %0, %0 : tensor<8xf32>\n"
                "  %2 = sdy.reshard %1 <@mesh, [{\"a\"}]> : tensor<8xf32>\n"
                "  %3 = stablehlo.custom_call @foo(%arg0) {has_side_effect = true} : (tensor<8xf32>) -> tensor<8xf32>\n"
                "  %4 = stablehlo.custom_call @bar(%arg0) : (tensor<8xf32>) -> tensor<8xf32>\n"
                "  %5 = sdy.all_slice [{\"a\"}] %arg0 out_sharding=<@mesh, [{\"a\"}]> : tensor<8xf32>\n"
                "  return %arg0 : tensor<8xf32>\n"
                "}\n",
           MESH_OUT
           "  func.func @f(%arg0: tensor<8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}) -> tensor<8xf32> {\n"
           "    %0 = stablehlo.custom_call @foo(%arg0) {has_side_effect = true} : (tensor<8xf32>) -> tensor<8xf32>\n"
           "    %1 = sdy.all_slice [{\"a\"}] %arg0 out_sharding=<@mesh, [{\"a\"}]> : tensor<8xf32>\n"
           "    return %arg0 : tensor<8xf32>\n"
           "  }\n"
           "}\n");
}

Test(canonicalize, unused_manual_computation_with_pure_body_is_dead) {
  S_expect(MESH "func.func @f(%arg0: tensor<8xf32>) -> tensor<8xf32> {\n"
                "  %0 = sdy.manual_computation(%arg0) in_shardings=[<@mesh, [{\"a\"}]>] out_shardings=[<@mesh, "
                "[{\"a\"}]>] manual_axes={\"a\"} (%arg1: tensor<4xf32>) {\n"
                "    %1 = stablehlo.add %arg1, %arg1 : tensor<4xf32>\n"
                "    sdy.return %1 : tensor<4xf32>\n"
                "  } : (tensor<8xf32>) -> tensor<8xf32>\n"
                "  return %arg0 : tensor<8xf32>\n"
                "}\n",
           MESH_OUT "  func.func @f(%arg0: tensor<8xf32>) -> tensor<8xf32> {\n"
                    "    return %arg0 : tensor<8xf32>\n"
                    "  }\n"
                    "}\n");
}

Test(canonicalize, nested_manual_computations_inline_and_drop_inputs) {
  /* The outer computation is manual over a size-1 axis: inlined, which
   * leaves its second (unused) input behind; the inner one stays. */
  S_expect(MESH
           "func.func @f(%arg0: tensor<8xf32>) -> tensor<8xf32> {\n"
           "  %0 = sdy.manual_computation(%arg0, %arg0) in_shardings=[<@mesh, [{\"b\"}]>, <@mesh, [{}]>] "
           "out_shardings=[<@mesh, [{\"b\"}]>] manual_axes={\"b\"} (%arg1: tensor<8xf32>, %arg2: tensor<8xf32>) {\n"
           "    %1 = sdy.manual_computation(%arg1, %arg2) in_shardings=[<@mesh, [{\"a\"}]>, <@mesh, [{\"a\"}]>] "
           "out_shardings=[<@mesh, [{\"a\"}]>] manual_axes={\"a\"} (%arg3: tensor<4xf32>, %arg4: tensor<4xf32>) {\n"
           "      %2 = stablehlo.custom_call @foo(%arg3) {has_side_effect = true} : (tensor<4xf32>) -> tensor<4xf32>\n"
           "      sdy.return %2 : tensor<4xf32>\n"
           "    } : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>\n"
           "    sdy.return %1 : tensor<8xf32>\n"
           "  } : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>\n"
           "  return %0 : tensor<8xf32>\n"
           "}\n",
           MESH_OUT
           "  func.func @f(%arg0: tensor<8xf32>) -> tensor<8xf32> {\n"
           "    %0 = sdy.manual_computation(%arg0) in_shardings=[<@mesh, [{\"a\"}]>] out_shardings=[<@mesh, "
           "[{\"a\"}]>] manual_axes={\"a\"} (%arg1: tensor<4xf32>) {\n"
           "      %1 = stablehlo.custom_call @foo(%arg1) {has_side_effect = true} : (tensor<4xf32>) -> tensor<4xf32>\n"
           "      sdy.return %1 : tensor<4xf32>\n"
           "    } : (tensor<8xf32>) -> tensor<8xf32>\n"
           "    return %0 : tensor<8xf32>\n"
           "  }\n"
           "}\n");
}

#define MESH2 "sdy.mesh @mesh2 = <[\"x\"=2, \"y\"=2, \"z\"=2, \"p\"=2, \"q\"=8, \"r\"=8]>\n"
#define MESH2_OUT "module {\n  sdy.mesh @mesh2 = <[\"x\"=2, \"y\"=2, \"z\"=2, \"p\"=2, \"q\"=8, \"r\"=8]>\n"

Test(canonicalize, reduce_scatter_fusion_merges_sub_axes) {
  S_expect(MESH2 "func.func @f(%arg0: tensor<16x16xf32> {sdy.sharding = #sdy.sharding<@mesh2, [{\"r\":(1)2}, "
                 "{\"q\":(1)4}]>}) -> tensor<16x16xf32> {\n"
                 "  %0 = sdy.all_reduce {\"y\", \"q\":(4)2, \"r\":(2)2} %arg0 out_sharding=<@mesh2, [{\"r\":(1)2}, "
                 "{\"q\":(1)4}]> : tensor<16x16xf32>\n"
                 "  %1 = sdy.all_slice [{\"r\":(2)2, \"y\", \"z\"}, {\"q\":(4)2, \"x\"}] %0 out_sharding=<@mesh2, "
                 "[{\"r\":(1)4, \"y\", \"z\"}, {\"q\", \"x\"}]> : tensor<16x16xf32>\n"
                 "  return %1 : tensor<16x16xf32>\n"
                 "}\n",
           MESH2_OUT "  func.func @f(%arg0: tensor<16x16xf32> {sdy.sharding = #sdy.sharding<@mesh2, [{\"r\":(1)2}, "
                     "{\"q\":(1)4}]>}) -> tensor<16x16xf32> {\n"
                     "    %0 = sdy.reduce_scatter [{\"r\":(2)2, \"y\"}, {\"q\":(4)2}] %arg0 out_sharding=<@mesh2, "
                     "[{\"r\":(1)4, \"y\"}, {\"q\"}]> : tensor<16x16xf32>\n"
                     "    %1 = sdy.all_slice [{\"z\"}, {\"x\"}] %0 out_sharding=<@mesh2, [{\"r\":(1)4, \"y\", \"z\"}, "
                     "{\"q\", \"x\"}]> : tensor<16x16xf32>\n"
                     "    return %1 : tensor<16x16xf32>\n"
                     "  }\n"
                     "}\n");
}

Test(canonicalize, reduce_scatter_fusion_needs_every_reduction_axis) {
  /* "x" is reduced but not a prefix of any dim's slicing axes: no fusion. */
  const char *in = MESH2
      "func.func @f(%arg0: tensor<16x16xf32> {sdy.sharding = #sdy.sharding<@mesh2, [{}, {}]>}) -> tensor<16x16xf32> {\n"
      "  %0 = sdy.all_reduce {\"x\", \"y\"} %arg0 out_sharding=<@mesh2, [{}, {}]> : tensor<16x16xf32>\n"
      "  %1 = sdy.all_slice [{\"z\", \"x\"}, {\"y\"}] %0 out_sharding=<@mesh2, [{\"z\", \"x\"}, {\"y\"}]> : "
      "tensor<16x16xf32>\n"
      "  return %1 : tensor<16x16xf32>\n"
      "}\n";
  char *got = S_canonicalize(in, NULL);
  cr_assert(got);
  cr_expect(strstr(got, "sdy.all_reduce {\"x\", \"y\"} %arg0"), "%s", got);
  cr_expect(!strstr(got, "reduce_scatter"), "%s", got);
  free(got);
}

Test(canonicalize, chains_of_all_to_all_fuse_to_one) {
  S_expect(MESH2 "func.func @f(%arg0: tensor<64x16x8x8x8x8xf32> {sdy.sharding = #sdy.sharding<@mesh2, [{\"x\"}, "
                 "{\"y\"}, {\"z\"}, {}, {}, {}]>}) -> tensor<64x16x8x8x8x8xf32> {\n"
                 "  %0 = sdy.all_to_all [{\"x\"}: 0->3] %arg0 out_sharding=<@mesh2, [{}, {\"y\"}, {\"z\"}, {\"x\"}, "
                 "{}, {}]> : tensor<64x16x8x8x8x8xf32>\n"
                 "  %1 = sdy.all_to_all [{\"z\"}: 2->5] %0 out_sharding=<@mesh2, [{}, {\"y\"}, {}, {\"x\"}, {}, "
                 "{\"z\"}]> : tensor<64x16x8x8x8x8xf32>\n"
                 "  %2 = sdy.all_to_all [{\"y\"}: 1->4] %1 out_sharding=<@mesh2, [{}, {}, {}, {\"x\"}, {\"y\"}, "
                 "{\"z\"}]> : tensor<64x16x8x8x8x8xf32>\n"
                 "  return %2 : tensor<64x16x8x8x8x8xf32>\n"
                 "}\n",
           MESH2_OUT "  func.func @f(%arg0: tensor<64x16x8x8x8x8xf32> {sdy.sharding = #sdy.sharding<@mesh2, [{\"x\"}, "
                     "{\"y\"}, {\"z\"}, {}, {}, {}]>}) -> tensor<64x16x8x8x8x8xf32> {\n"
                     "    %0 = sdy.all_to_all [{\"x\"}: 0->3, {\"y\"}: 1->4, {\"z\"}: 2->5] %arg0 "
                     "out_sharding=<@mesh2, [{}, {}, {}, {\"x\"}, {\"y\"}, {\"z\"}]> : tensor<64x16x8x8x8x8xf32>\n"
                     "    return %0 : tensor<64x16x8x8x8x8xf32>\n"
                     "  }\n"
                     "}\n");
}

#define MESH4 "sdy.mesh @mesh = <[\"a\"=2, \"b\"=2]>\n"
#define MESH4_OUT "module {\n  sdy.mesh @mesh = <[\"a\"=2, \"b\"=2]>\n"

Test(canonicalize, reshard_chains_fold_then_deduplicate) {
  S_expect(MESH4 "func.func @f(%arg0: tensor<8x8xf32>) -> (tensor<8x8xf32>, tensor<8x8xf32>) {\n"
                 "  %0 = sdy.reshard %arg0 <@mesh, [{\"a\"}, {}]> : tensor<8x8xf32>\n"
                 "  %1 = sdy.reshard %arg0 <@mesh, [{}, {\"b\"}]> : tensor<8x8xf32>\n"
                 "  %2 = sdy.reshard %0 <@mesh, [{\"b\"}, {\"a\"}]> : tensor<8x8xf32>\n"
                 "  %3 = sdy.reshard %1 <@mesh, [{\"b\"}, {\"a\"}]> : tensor<8x8xf32>\n"
                 "  return %2, %3 : tensor<8x8xf32>, tensor<8x8xf32>\n"
                 "}\n",
           MESH4_OUT "  func.func @f(%arg0: tensor<8x8xf32>) -> (tensor<8x8xf32>, tensor<8x8xf32>) {\n"
                     "    %0 = sdy.reshard %arg0 <@mesh, [{\"b\"}, {\"a\"}]> : tensor<8x8xf32>\n"
                     "    return %0, %0 : tensor<8x8xf32>, tensor<8x8xf32>\n"
                     "  }\n"
                     "}\n");
}

Test(canonicalize, reshard_reused_across_a_reshape_only_if_strides_match) {
  /* [{"a"}, {}] on 8x4 and [{"a"}] on 32 put "a" on the same stride (16):
   * the second reshard becomes a reshape of the first. [{}, {"a"}] on 4x8
   * puts it on stride 4: no reuse. */
  S_expect(MESH4 "func.func @f(%arg0: tensor<8x4xf32>) -> (tensor<8x4xf32>, tensor<32xf32>, tensor<4x8xf32>) {\n"
                 "  %0 = sdy.reshard %arg0 <@mesh, [{\"a\"}, {}]> : tensor<8x4xf32>\n"
                 "  %1 = stablehlo.reshape %arg0 : (tensor<8x4xf32>) -> tensor<32xf32>\n"
                 "  %2 = sdy.reshard %1 <@mesh, [{\"a\"}]> : tensor<32xf32>\n"
                 "  %3 = stablehlo.reshape %arg0 : (tensor<8x4xf32>) -> tensor<4x8xf32>\n"
                 "  %4 = sdy.reshard %3 <@mesh, [{}, {\"a\"}]> : tensor<4x8xf32>\n"
                 "  return %0, %2, %4 : tensor<8x4xf32>, tensor<32xf32>, tensor<4x8xf32>\n"
                 "}\n",
           MESH4_OUT "  func.func @f(%arg0: tensor<8x4xf32>) -> (tensor<8x4xf32>, tensor<32xf32>, tensor<4x8xf32>) {\n"
                     "    %0 = sdy.reshard %arg0 <@mesh, [{\"a\"}, {}]> : tensor<8x4xf32>\n"
                     "    %1 = stablehlo.reshape %0 : (tensor<8x4xf32>) -> tensor<32xf32>\n"
                     "    %2 = stablehlo.reshape %arg0 : (tensor<8x4xf32>) -> tensor<4x8xf32>\n"
                     "    %3 = sdy.reshard %2 <@mesh, [{}, {\"a\"}]> : tensor<4x8xf32>\n"
                     "    return %0, %1, %3 : tensor<8x4xf32>, tensor<32xf32>, tensor<4x8xf32>\n"
                     "  }\n"
                     "}\n");
}

Test(canonicalize, reshards_in_other_blocks_are_not_reused) {
  /* Same sharding, but the candidate sits in another block (a named
   * computation's body): blocks don't share reshards. */
  const char *in = MESH4 "func.func @f(%arg0: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {\n"
                         "  %0 = sdy.reshard %arg0 <@mesh, [{\"a\"}]> : tensor<8xf32>\n"
                         "  %1 = sdy.named_computation<\"c\">(%arg0) (%arg1: tensor<8xf32>) {\n"
                         "    %2 = sdy.reshard %arg1 <@mesh, [{\"a\"}]> : tensor<8xf32>\n"
                         "    sdy.return %2 : tensor<8xf32>\n"
                         "  } : (tensor<8xf32>) -> tensor<8xf32>\n"
                         "  return %0, %1 : tensor<8xf32>, tensor<8xf32>\n"
                         "}\n";
  char *got = S_canonicalize(in, NULL);
  cr_assert(got, "%s", S_messages);
  cr_expect(strstr(got, "sdy.reshard %arg1 <@mesh, [{\"a\"}]>"), "%s", got);
  free(got);
}

Test(canonicalize, collective_permute_to_a_different_mesh_stays) {
  const char *in = MESH4 "sdy.mesh @other = <[\"a\"=2, \"b\"=2], device_ids=[3, 2, 1, 0]>\n"
                         "func.func @f(%arg0: tensor<8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{\"a\"}]>}) -> "
                         "(tensor<8xf32>, tensor<8xf32>) {\n"
                         "  %0 = sdy.collective_permute %arg0 out_sharding=<@other, [{\"a\"}]> : tensor<8xf32>\n"
                         "  %1 = sdy.collective_permute %arg0 out_sharding=<@mesh, [{\"a\", ?}]> : tensor<8xf32>\n"
                         "  return %0, %1 : tensor<8xf32>, tensor<8xf32>\n"
                         "}\n";
  char *got = S_canonicalize(in, NULL);
  cr_assert(got, "%s", S_messages);
  cr_expect(strstr(got, "%0 = sdy.collective_permute %arg0 out_sharding=<@other, [{\"a\"}]>"), "%s", got);
  cr_expect(strstr(got, "return %0, %arg0"), "%s", got);
  free(got);
}

Test(canonicalize, options) {
  const char *in = MESH4 "func.func @f(%arg0: tensor<8xf32>) -> tensor<8xf32> {\n"
                         "  %0 = stablehlo.add %arg0, %arg0 : tensor<8xf32>\n"
                         "  return %arg0 : tensor<8xf32>\n"
                         "}\n";
  /* No iteration at all leaves the dead add in place. */
  char *got = S_canonicalize(in, "max-iterations=0");
  cr_assert(got, "%s", S_messages);
  cr_expect(strstr(got, "stablehlo.add"), "%s", got);
  free(got);
  got = S_canonicalize(in, "region-simplify=disabled top-down=false");
  cr_assert(got, "%s", S_messages);
  cr_expect(!strstr(got, "stablehlo.add"), "the worklist alone erases dead ops: %s", got);
  free(got);
}

Test(canonicalize, constants_are_deduplicated_and_hoisted_per_isolated_region) {
  /* As MLIR's OperationFolder: each first constant of a value moves to the
   * front of the function (so scattered constants end up in reverse order),
   * repeats reuse it, an isolated manual_computation body keeps its own. */
  S_expect("sdy.mesh @mesh = <[\"a\"=2]>\n"
           "func.func @f(%arg0: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {\n"
           "  %0 = stablehlo.add %arg0, %arg0 : tensor<4xf32>\n"
           "  %c1 = stablehlo.constant dense<1.0> : tensor<4xf32>\n"
           "  %1 = stablehlo.add %0, %c1 : tensor<4xf32>\n"
           "  %c2 = stablehlo.constant dense<2.0> : tensor<4xf32>\n"
           "  %2 = stablehlo.add %1, %c2 : tensor<4xf32>\n"
           "  %c3 = stablehlo.constant dense<1.000000e+00> : tensor<4xf32>\n"
           "  %3 = stablehlo.add %2, %c3 : tensor<4xf32>\n"
           "  %4 = sdy.manual_computation(%3) in_shardings=[<@mesh, [{\"a\"}]>] out_shardings=[<@mesh, [{\"a\"}]>] "
           "manual_axes={\"a\"} (%arg1: tensor<2xf32>) {\n"
           "    %5 = stablehlo.add %arg1, %arg1 : tensor<2xf32>\n"
           "    %c5 = stablehlo.constant dense<1.0> : tensor<2xf32>\n"
           "    %6 = stablehlo.add %5, %c5 : tensor<2xf32>\n"
           "    sdy.return %6 : tensor<2xf32>\n"
           "  } : (tensor<4xf32>) -> tensor<4xf32>\n"
           "  return %3, %4 : tensor<4xf32>, tensor<4xf32>\n"
           "}\n",
           "module {\n"
           "  sdy.mesh @mesh = <[\"a\"=2]>\n"
           "  func.func @f(%arg0: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {\n"
           "    %cst = stablehlo.constant dense<2.000000e+00> : tensor<4xf32>\n"
           "    %cst_0 = stablehlo.constant dense<1.000000e+00> : tensor<4xf32>\n"
           "    %0 = stablehlo.add %arg0, %arg0 : tensor<4xf32>\n"
           "    %1 = stablehlo.add %0, %cst_0 : tensor<4xf32>\n"
           "    %2 = stablehlo.add %1, %cst : tensor<4xf32>\n"
           "    %3 = stablehlo.add %2, %cst_0 : tensor<4xf32>\n"
           "    %4 = sdy.manual_computation(%3) in_shardings=[<@mesh, [{\"a\"}]>] out_shardings=[<@mesh, [{\"a\"}]>] "
           "manual_axes={\"a\"} (%arg1: tensor<2xf32>) {\n"
           "      %cst_1 = stablehlo.constant dense<1.000000e+00> : tensor<2xf32>\n"
           "      %5 = stablehlo.add %arg1, %arg1 : tensor<2xf32>\n"
           "      %6 = stablehlo.add %5, %cst_1 : tensor<2xf32>\n"
           "      sdy.return %6 : tensor<2xf32>\n"
           "    } : (tensor<4xf32>) -> tensor<4xf32>\n"
           "    return %3, %4 : tensor<4xf32>, tensor<4xf32>\n"
           "  }\n"
           "}\n");
}

Test(canonicalize, enable_and_disable_patterns_filter_by_label) {
  /* %1 folds into %0's input only under sdy-reshard (reshard of reshard);
   * %3 duplicates %2 and goes only with the unlabelled CSE pattern. */
  const char *in = MESH4 "func.func @f(%arg0: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) {\n"
                         "  %0 = sdy.reshard %arg0 <@mesh, [{\"a\"}]> : tensor<8xf32>\n"
                         "  %1 = sdy.reshard %0 <@mesh, [{\"b\"}]> : tensor<8xf32>\n"
                         "  %2 = sdy.reshard %arg0 <@mesh, [{\"a\", \"b\"}]> : tensor<8xf32>\n"
                         "  %3 = sdy.reshard %arg0 <@mesh, [{\"a\", \"b\"}]> : tensor<8xf32>\n"
                         "  return %1, %2, %3 : tensor<8xf32>, tensor<8xf32>, tensor<8xf32>\n"
                         "}\n";
  /* Only the collective patterns: both reshard patterns stay off. */
  char *got = S_canonicalize(in, "enable-patterns=sdy-collective");
  cr_assert(got, "%s", S_messages);
  cr_expect(strstr(got, "sdy.reshard %0 <@mesh, [{\"b\"}]>"), "%s", got);
  cr_expect(strstr(got, "return %1, %2, %3"), "%s", got);
  free(got);
  got = S_canonicalize(in, "enable-patterns=sdy-reshard");
  cr_assert(got, "%s", S_messages);
  cr_expect(strstr(got, "%0 = sdy.reshard %arg0 <@mesh, [{\"b\"}]>"), "%s", got);
  cr_expect(strstr(got, "return %0, %1, %2"), "CSE is not labelled sdy-reshard: %s", got);
  free(got);
  got = S_canonicalize(in, "disable-patterns=sdy-reshard");
  cr_assert(got, "%s", S_messages);
  cr_expect(strstr(got, "sdy.reshard %0 <@mesh, [{\"b\"}]>"), "%s", got);
  cr_expect(strstr(got, "return %1, %2, %2"), "%s", got);
  free(got);
  got = S_canonicalize(in, "enable-patterns=ReshardCommonSubexpressionEliminationPattern");
  cr_assert(got, "%s", S_messages);
  cr_expect(strstr(got, "return %1, %2, %2"), "%s", got);
  free(got);
}
