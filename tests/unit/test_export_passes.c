/* The export passes (pass_export_*.c) beyond Shardy's lit tests: divisible
 * boundary shardings for every dimension size on a mesh with axes that are
 * not powers of two, named computations surviving an import/export round
 * trip, unflattening after flattening, and the unreduced-axes verifier
 * counting one error per offending func. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/call_graph.h"
#include "ir/parse.h"
#include "pass/pass.h"
#include "pass/pass_shardings.h"
#include "ir/print.h"
#include "verify/verify.h"

static char S_messages[4096];
static unsigned S_errors;

static void S_capture(void *ctx, const shard_diag *d) {
  (void)ctx;
  size_t used = strlen(S_messages);
  snprintf(S_messages + used, sizeof S_messages - used, "%s\n", d->message);
  if (d->severity == SHARD_ERROR) S_errors++;
}

static shard_source S_src;
static shard_diag_engine S_de;

static shard_module *S_parse(const char *text) {
  S_src.name = "test.mlir";
  S_src.text = text;
  S_src.len = strlen(text);
  S_messages[0] = 0;
  S_errors = 0;
  shard_diag_init(&S_de, S_capture, NULL);
  shard_module *m = shard_parse_module(&S_src, NULL, &S_de);
  cr_assert(m && !S_de.errors, "parse failed: %s", S_messages);
  return m;
}

static bool S_verifies(shard_module *m) {
  shard_diag_engine de;
  shard_diag_init(&de, S_capture, NULL);
  shard_verify_options vo = {.extra_warnings = false};
  return shard_verify_module(m, &vo, &de) && !de.errors;
}

/* ---- update-non-divisible-input-output-shardings -------------------------- */

/* For every size 1..72 and both axis orders on <"x"=4, "y"=6>, the new
 * sharding divides the dimension, keeps a prefix of the old axes (the last
 * one possibly cut to its major part) and is the largest such prefix. */
Test(update_non_divisible, largest_dividing_prefix_for_every_size) {
  static const char *const orders[] = {"\"x\", \"y\"", "\"y\", \"x\""};
  const shard_mesh_axis axes[] = {{"x", 4}, {"y", 6}};
  for (int o = 0; o < 2; o++)
    for (int64_t dim = 1; dim <= 72; dim++) {
      char text[512];
      snprintf(text, sizeof text,
               "sdy.mesh @mesh = <[\"x\"=4, \"y\"=6]>\n"
               "func.func @main(%%arg0: tensor<%lldxf32> {sdy.sharding = #sdy.sharding<@mesh, [{%s}]>})"
               " -> tensor<%lldxf32> {\n  return %%arg0 : tensor<%lldxf32>\n}\n",
               (long long)dim, orders[o], (long long)dim, (long long)dim);
      shard_module *m = S_parse(text);
      cr_assert(shard_pass_update_non_divisible_input_output_shardings(m, NULL, SHARD_PASS_CONTEXT(&S_de)));
      cr_assert(S_verifies(m), "dim %lld: %s", (long long)dim, S_messages);
      shard_op *f = shard_module_lookup_symbol(m, "main");
      const shard_tensor_sharding *s = shard_func_arg_sharding(f, 0);
      cr_assert(s && s->rank == 1);
      const shard_dim_sharding *d = &s->dims[0];
      int64_t size = 1;
      for (uint32_t i = 0; i < d->num_axes; i++) {
        const char *want = axes[o == 0 ? i : 1 - i].name;
        cr_assert_str_eq(d->axes[i].name, want, "dim %lld: axis %u", (long long)dim, i);
        int64_t full = strcmp(want, "x") == 0 ? 4 : 6;
        int64_t k = d->axes[i].is_sub ? d->axes[i].size : full;
        if (d->axes[i].is_sub) {
          cr_assert_eq(i + 1, d->num_axes, "a cut axis is last");
          cr_assert_eq(d->axes[i].pre_size, 1);
        }
        size *= k;
      }
      cr_assert_eq(dim % size, 0, "dim %lld sharded %lld ways", (long long)dim, (long long)size);
      /* Largest: the next piece (more of the cut or next axis) can't divide. */
      int64_t major = axes[o].size, minor = axes[1 - o].size;
      int64_t best = 1;
      for (int64_t k = 1; k <= major; k++)
        if (major % k == 0 && dim % k == 0) best = k;
      if (best == major)
        for (int64_t k = 1; k <= minor; k++)
          if (minor % k == 0 && dim % (major * k) == 0) best = major * k;
      cr_assert_eq(size, best, "dim %lld: %lld ways, expected %lld", (long long)dim, (long long)size, (long long)best);
      shard_module_free(m);
    }
}

/* ---- named computations: import then export ---------------------------------- */

Test(export_named_computations, import_export_round_trip_keeps_shardings_and_callee) {
  shard_module *m = S_parse(
      "sdy.mesh @mesh = <[\"x\"=2]>\n"
      "func.func @main(%arg0: tensor<8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{\"x\"}]>}) -> tensor<8xf32> {\n"
      "  %0 = call @foo(%arg0) {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{\"x\"}]>]>} : (tensor<8xf32>) -> "
      "tensor<8xf32>\n"
      "  return %0 : tensor<8xf32>\n}\n"
      "func.func private @foo(%arg0: tensor<8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{\"x\"}]>}) -> tensor<8xf32> "
      "{\n"
      "  %0 = stablehlo.abs %arg0 : tensor<8xf32>\n  return %0 : tensor<8xf32>\n}\n");
  cr_assert(shard_pass_import_func_calls(m, NULL, SHARD_PASS_CONTEXT(&S_de)));
  cr_assert(shard_pass_symbol_dce(m, NULL, SHARD_PASS_CONTEXT(&S_de)));
  cr_assert_null(shard_module_lookup_symbol(m, "foo"), "the callee moved into the computation");
  cr_assert(shard_pass_export_named_computations(m, NULL, SHARD_PASS_CONTEXT(&S_de)));
  cr_assert(S_verifies(m), "%s", S_messages);
  shard_op *foo = shard_module_lookup_symbol(m, "foo");
  cr_assert(foo, "the computation became @foo again");
  const shard_tensor_sharding *arg = shard_func_arg_sharding(foo, 0);
  cr_assert(arg && arg->dims[0].num_axes == 1 && strcmp(arg->dims[0].axes[0].name, "x") == 0);
  shard_op *main_func = shard_module_lookup_symbol(m, "main");
  shard_op **calls;
  uint32_t n = shard_func_calls(main_func, &calls);
  cr_assert_eq(n, 1);
  cr_assert_str_eq(shard_call_callee(calls[0]), "foo");
  cr_assert(shard_op_attr(calls[0], "sdy.sharding"), "out_shardings back on the call");
  free(calls);
  shard_module_free(m);
}

/* ---- flatten then unflatten ------------------------------------------------------ */

Test(unflatten_call_graph, undoes_flattening_when_shardings_agree) {
  shard_module *m = S_parse("sdy.mesh @mesh = <[\"x\"=2]>\n"
                            "func.func @main(%arg0: tensor<8xf32>) -> tensor<8xf32> {\n"
                            "  %0 = call @foo(%arg0) : (tensor<8xf32>) -> tensor<8xf32>\n"
                            "  %1 = call @foo(%0) : (tensor<8xf32>) -> tensor<8xf32>\n"
                            "  %2 = call @foo(%1) : (tensor<8xf32>) -> tensor<8xf32>\n"
                            "  return %2 : tensor<8xf32>\n}\n"
                            "func.func private @foo(%arg0: tensor<8xf32>) -> tensor<8xf32> {\n"
                            "  %0 = stablehlo.abs %arg0 : tensor<8xf32>\n  return %0 : tensor<8xf32>\n}\n");
  cr_assert(shard_pass_flatten_call_graph(m, NULL, SHARD_PASS_CONTEXT(&S_de)));
  shard_op *main_func = shard_module_lookup_symbol(m, "main");
  shard_op **calls;
  uint32_t n = shard_func_calls(main_func, &calls);
  cr_assert_eq(n, 3);
  cr_assert_str_neq(shard_call_callee(calls[1]), shard_call_callee(calls[2]), "flattening gave copies");
  free(calls);
  cr_assert(shard_pass_unflatten_call_graph(m, NULL, SHARD_PASS_CONTEXT(&S_de)));
  cr_assert(shard_pass_symbol_dce(m, NULL, SHARD_PASS_CONTEXT(&S_de)));
  n = shard_func_calls(main_func, &calls);
  for (uint32_t i = 0; i < n; i++) cr_assert_str_eq(shard_call_callee(calls[i]), "foo");
  free(calls);
  cr_assert_null(shard_module_lookup_symbol(m, "foo_0"), "the copies are gone");
  shard_op *foo = shard_module_lookup_symbol(m, "foo");
  cr_assert_null(shard_op_attr(foo, "sdy.original_func_name"));
  cr_assert(S_verifies(m), "%s", S_messages);
  shard_module_free(m);
}

/* ---- symbol-dce ------------------------------------------------------------------ */

Test(symbol_dce, erases_private_symbols_only_dead_ones_name_and_stops_when_all_are_live) {
  static const char *const text = "func.func @main(%arg0: tensor<8xf32>) -> tensor<8xf32> {\n"
                                  "  %0 = call @a(%arg0) : (tensor<8xf32>) -> tensor<8xf32>\n"
                                  "  return %0 : tensor<8xf32>\n}\n"
                                  "func.func private @a(%arg0: tensor<8xf32>) -> tensor<8xf32> {\n"
                                  "  %0 = call @b(%arg0) : (tensor<8xf32>) -> tensor<8xf32>\n"
                                  "  return %0 : tensor<8xf32>\n}\n"
                                  "func.func private @b(%arg0: tensor<8xf32>) -> tensor<8xf32> {\n"
                                  "  return %arg0 : tensor<8xf32>\n}\n"
                                  "func.func private @dead(%arg0: tensor<8xf32>) -> tensor<8xf32> {\n"
                                  "  %0 = call @dead2(%arg0) : (tensor<8xf32>) -> tensor<8xf32>\n"
                                  "  return %0 : tensor<8xf32>\n}\n"
                                  "func.func private @dead2(%arg0: tensor<8xf32>) -> tensor<8xf32> {\n"
                                  "  return %arg0 : tensor<8xf32>\n}\n";
  shard_module *m = S_parse(text);
  cr_assert(shard_pass_symbol_dce(m, NULL, SHARD_PASS_CONTEXT(&S_de)));
  cr_expect(shard_module_lookup_symbol(m, "a") && shard_module_lookup_symbol(m, "b"), "reached from main");
  cr_expect_null(shard_module_lookup_symbol(m, "dead"));
  cr_expect_null(shard_module_lookup_symbol(m, "dead2"), "named only by a dead func");
  /* Now every private symbol is live: a second run keeps them all. */
  cr_assert(shard_pass_symbol_dce(m, NULL, SHARD_PASS_CONTEXT(&S_de)));
  cr_expect(shard_module_lookup_symbol(m, "a") && shard_module_lookup_symbol(m, "b"));
  cr_assert(S_verifies(m), "%s", S_messages);
  shard_module_free(m);
}

/* ---- verify-unreduced-axes ------------------------------------------------------ */

Test(verify_unreduced_axes, one_error_per_offending_func_and_none_for_blessed_drops) {
  shard_module *m = S_parse(
      "sdy.mesh @mesh = <[\"x\"=2, \"y\"=2]>\n"
      "func.func @bad1(%arg0: tensor<8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{\"x\"}], unreduced={\"y\"}>}) -> "
      "tensor<8xf32> {\n"
      "  %0 = stablehlo.negate %arg0 {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{\"x\"}]>]>} : tensor<8xf32>\n"
      "  %1 = stablehlo.abs %0 {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{\"x\"}]>]>} : tensor<8xf32>\n"
      "  return %1 : tensor<8xf32>\n}\n"
      "func.func @good(%arg0: tensor<8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{\"x\"}], unreduced={\"y\"}>}) -> "
      "tensor<8xf32> {\n"
      "  %0 = sdy.reshard %arg0 <@mesh, [{\"x\"}]> : tensor<8xf32>\n"
      "  %1 = stablehlo.negate %0 {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{\"x\"}]>]>} : tensor<8xf32>\n"
      "  return %1 : tensor<8xf32>\n}\n"
      "func.func @bad2(%arg0: tensor<8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{\"x\"}]>}) -> tensor<8xf32> {\n"
      "  %0 = stablehlo.negate %arg0 {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{\"x\"}], "
      "unreduced=max{\"y\"}>]>} : tensor<8xf32>\n"
      "  return %0 : tensor<8xf32>\n}\n");
  cr_assert_not(shard_pass_verify_unreduced_axes(m, NULL, SHARD_PASS_CONTEXT(&S_de)));
  cr_assert_eq(S_errors, 2, "%s", S_messages);
  cr_assert(strstr(S_messages, "'stablehlo.negate' op dropped unreduced axis 'y'"), "%s", S_messages);
  cr_assert(strstr(S_messages, "cannot introduce 'max' unreduced axes. Expected 'sum'."), "%s", S_messages);
  shard_module_free(m);
}
