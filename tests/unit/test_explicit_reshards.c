/* Explicit reshards (explicit_reshards.c): the factor-level decisions
 * (compatibility, findCommonAxes) on projections of parsed ops, and the
 * -sdy-insert-explicit-reshards pass on small modules. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "export/explicit_reshards.h"
#include "ir/parse.h"
#include "pass/pass.h"
#include "ir/print.h"
#include "propagate/propagate.h"
#include "rules/rule_registry.h"

/* ---- helpers ------------------------------------------------------------------ */

typedef struct diags {
  char text[4096];
  unsigned errors;
} diags;

static void collect(void *ctx, const shard_diag *d) {
  diags *c = ctx;
  size_t used = strlen(c->text);
  snprintf(c->text + used, sizeof c->text - used, "%s\n", d->message);
  if (d->severity == SHARD_ERROR) c->errors++;
}

static shard_module *parse(const char *text, shard_source *src, diags *d) {
  src->name = "test.mlir";
  src->text = text;
  src->len = strlen(text);
  shard_diag_engine de;
  memset(d, 0, sizeof *d);
  shard_diag_init(&de, collect, d);
  shard_module *m = shard_parse_module(src, NULL, &de);
  cr_assert(m, "parse failed:\n%s", d->text);
  return m;
}

typedef struct find_ctx {
  const char *name;
  shard_op *found;
} find_ctx;

static bool find_op(shard_op *op, void *ctx) {
  find_ctx *f = ctx;
  if (strcmp(op->name, f->name) == 0) {
    f->found = op;
    return false;
  }
  return true;
}

/* The projection of the first op named `name`, with its rule and tensor sizes. */
typedef struct projected {
  shard_projection *p;
  shard_op_sharding_rule *rule;
  int64_t sizes[8];
} projected;

static projected project(shard_module *m, const char *name) {
  find_ctx f = {name, NULL};
  shard_walk(m->top, find_op, &f);
  cr_assert(f.found, "no op %s", name);
  shard_op *op = f.found;
  projected r = {0};
  r.rule = shard_rule_for_op(m->arena, op, false, NULL);
  cr_assert(r.rule, "no rule for %s", name);
  const shard_tensor_sharding *s[8] = {0};
  const shard_mesh *mesh = NULL;
  uint32_t n = 0;
  for (uint32_t i = 0; i < op->num_operands; i++, n++) {
    s[n] = shard_propagation_value_sharding(m->arena, op->operands[i].value);
    r.sizes[n] = shard_type_num_elements(op->operands[i].value->type);
  }
  for (uint32_t i = 0; i < op->num_results; i++, n++) {
    s[n] = shard_propagation_value_sharding(m->arena, &op->results[i]);
    r.sizes[n] = shard_type_num_elements(op->results[i].type);
  }
  for (uint32_t i = 0; i < n && !mesh; i++)
    if (s[i]) mesh = shard_module_sharding_mesh(m, s[i]);
  cr_assert(mesh);
  r.p = shard_projection_build(m->arena, r.rule, s, mesh, true);
  return r;
}

static void expect_axes(shard_axes a, const char *want) {
  shard_buf b;
  shard_buf_init(&b);
  shard_axis_list_print(&b, a.v, a.n);
  char *got = shard_buf_take(&b);
  cr_expect_str_eq(got, want);
  free(got);
}

/* Parses, runs the pass and returns the printed module or the diagnostics. */
static char *run(const char *text, const char *options, diags *d, bool *ok) {
  shard_source src;
  shard_module *m = parse(text, &src, d);
  shard_diag_engine de;
  shard_diag_init(&de, collect, d);
  *ok = shard_pass_insert_explicit_reshards(m, options, SHARD_PASS_CONTEXT(&de));
  shard_buf b;
  shard_buf_init(&b);
  shard_print_module(&b, m, NULL);
  shard_module_free(m);
  return shard_buf_take(&b);
}

static void expect_contains(const char *haystack, const char *needle) {
  cr_expect(strstr(haystack, needle) != NULL, "expected to find\n  %s\nin\n%s", needle, haystack);
}

#define MESH "sdy.mesh @mesh = <[\"x\"=4, \"y\"=2]>\n"

/* ---- compatibility ---------------------------------------------------------------- */

Test(explicit_reshards, compatible_when_all_tensors_agree) {
  const char *text =
      MESH "func.func @f(%a: tensor<8x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{\"x\"}, {\"y\"}]>},"
           " %b: tensor<8x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{\"x\"}, {\"y\"}]>}) -> tensor<8x8xf32> {\n"
           "  %0 = stablehlo.add %a, %b {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{\"x\"}, {\"y\"}]>]>} : "
           "tensor<8x8xf32>\n"
           "  return %0 : tensor<8x8xf32>\n}\n";
  shard_source src;
  diags d;
  shard_module *m = parse(text, &src, &d);
  projected pr = project(m, "stablehlo.add");
  shard_axes out[2];
  cr_assert(shard_explicit_compatible_axes(pr.p, pr.rule, out));
  expect_axes(out[0], "{\"x\"}");
  expect_axes(out[1], "{\"y\"}");
  shard_module_free(m);
}

Test(explicit_reshards, incompatible_when_a_tensor_differs) {
  const char *text = MESH "func.func @f(%a: tensor<8x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{\"x\"}, {}]>},"
                          " %b: tensor<8x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}) -> tensor<8x8xf32> {\n"
                          "  %0 = stablehlo.add %a, %b {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{\"x\"}, "
                          "{}]>]>} : tensor<8x8xf32>\n"
                          "  return %0 : tensor<8x8xf32>\n}\n";
  shard_source src;
  diags d;
  shard_module *m = parse(text, &src, &d);
  projected pr = project(m, "stablehlo.add");
  shard_axes out[2];
  cr_expect_not(shard_explicit_compatible_axes(pr.p, pr.rule, out));
  /* Two of three tensors (the bigger share) have "x": the heuristic keeps it. */
  shard_explicit_find_common_axes(pr.p, pr.rule, pr.sizes, out);
  expect_axes(out[0], "{\"x\"}");
  expect_axes(out[1], "{}");
  shard_module_free(m);
}

Test(explicit_reshards, incompatible_when_an_axis_shards_two_factors) {
  /* The same axis on both dims of the result: the projection agrees per
   * factor, yet "x" may only shard one of them. */
  const char *text = MESH "func.func @f(%a: tensor<8x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{\"x\":(1)2}, "
                          "{\"x\":(1)2}]>}) -> tensor<8x8xf32> {\n"
                          "  %0 = stablehlo.negate %a {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{\"x\":(1)2}, "
                          "{\"x\":(1)2}]>]>} : tensor<8x8xf32>\n"
                          "  return %0 : tensor<8x8xf32>\n}\n";
  shard_source src;
  diags d;
  shard_module *m = parse(text, &src, &d);
  projected pr = project(m, "stablehlo.negate");
  shard_axes out[2];
  cr_expect_not(shard_explicit_compatible_axes(pr.p, pr.rule, out));
  shard_module_free(m);
}

/* ---- findCommonAxes ------------------------------------------------------------------- */

Test(explicit_reshards, unary_op_prefers_the_more_sharded_tensor) {
  const char *text = MESH
      "func.func @f(%a: tensor<8x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{\"y\"}, {}]>}) -> tensor<8x8xf32> {\n"
      "  %0 = stablehlo.negate %a {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{}, {\"x\"}]>]>} : "
      "tensor<8x8xf32>\n"
      "  return %0 : tensor<8x8xf32>\n}\n";
  shard_source src;
  diags d;
  shard_module *m = parse(text, &src, &d);
  projected pr = project(m, "stablehlo.negate");
  shard_axes out[2];
  shard_explicit_find_common_axes(pr.p, pr.rule, pr.sizes, out);
  /* Same sizes, the result is sharded 4 ways against 2: it wins whole. */
  expect_axes(out[0], "{}");
  expect_axes(out[1], "{\"x\"}");
  shard_module_free(m);
}

Test(explicit_reshards, heuristic_combines_axes_of_different_tensors) {
  const char *text =
      MESH "func.func @f(%a: tensor<8x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{\"x\"}, {}]>},"
           " %b: tensor<8x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{\"x\"}, {}]>}) -> tensor<8x8xf32> {\n"
           "  %0 = stablehlo.add %a, %b {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{}, {\"y\"}]>]>} : "
           "tensor<8x8xf32>\n"
           "  return %0 : tensor<8x8xf32>\n}\n";
  shard_source src;
  diags d;
  shard_module *m = parse(text, &src, &d);
  projected pr = project(m, "stablehlo.add");
  shard_axes out[2];
  shard_explicit_find_common_axes(pr.p, pr.rule, pr.sizes, out);
  expect_axes(out[0], "{\"x\"}");
  expect_axes(out[1], "{\"y\"}");
  shard_module_free(m);
}

Test(explicit_reshards, overlapping_candidates_are_truncated) {
  /* "x" shards dim 0 of both operands and dim 1 of the result: dim 0 wins
   * (two tensors), so the result's factor can't keep "x". */
  const char *text =
      MESH "func.func @f(%a: tensor<8x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{\"x\"}, {}]>},"
           " %b: tensor<8x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{\"x\"}, {}]>}) -> tensor<8x8xf32> {\n"
           "  %0 = stablehlo.add %a, %b {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{}, {\"x\", \"y\"}]>]>} : "
           "tensor<8x8xf32>\n"
           "  return %0 : tensor<8x8xf32>\n}\n";
  shard_source src;
  diags d;
  shard_module *m = parse(text, &src, &d);
  projected pr = project(m, "stablehlo.add");
  shard_axes out[2];
  shard_explicit_find_common_axes(pr.p, pr.rule, pr.sizes, out);
  expect_axes(out[0], "{\"x\"}");
  expect_axes(out[1], "{}");
  shard_module_free(m);
}

Test(explicit_reshards, need_replication_axes_move_to_batching_factors) {
  const char *text =
      "sdy.mesh @mesh = <[\"x\"=2]>\n"
      "func.func @f(%a: tensor<8x4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {\"x\"}]>}) -> tensor<8x4xf32> {\n"
      "  %0 = \"foo.bar\"(%a) {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{}, {\"x\"}]>]>,"
      " sdy.sharding_rule = #sdy.op_sharding_rule<([i, j])->([i, j]) {i=8, j=4} need_replication={j}>}"
      " : (tensor<8x4xf32>) -> tensor<8x4xf32>\n"
      "  return %0 : tensor<8x4xf32>\n}\n";
  shard_source src;
  diags d;
  shard_module *m = parse(text, &src, &d);
  projected pr = project(m, "foo.bar");
  shard_axes out[2];
  cr_expect_not(shard_explicit_compatible_axes(pr.p, pr.rule, out));
  shard_explicit_find_common_axes(pr.p, pr.rule, pr.sizes, out);
  expect_axes(out[0], "{\"x\"}");
  expect_axes(out[1], "{}");
  shard_module_free(m);
}

/* ---- the pass ------------------------------------------------------------------------- */

Test(explicit_reshards_pass, reshards_the_smaller_side) {
  const char *text = MESH
      "func.func @f(%a: tensor<4x32xf32> {sdy.sharding = #sdy.sharding<@mesh, [{\"y\"}, {}]>}) -> tensor<4x32xf32> {\n"
      "  %0 = stablehlo.negate %a {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{\"x\"}, {}]>]>} : "
      "tensor<4x32xf32>\n"
      "  return %0 : tensor<4x32xf32>\n}\n";
  diags d;
  bool ok;
  char *out = run(text, "enable-full-version=true", &d, &ok);
  cr_expect(ok);
  expect_contains(out, "%0 = sdy.reshard %arg0 <@mesh, [{\"x\"}, {}]> : tensor<4x32xf32>\n"
                       "    %1 = stablehlo.negate %0");
  free(out);
  /* Without the full version nothing is inserted for an elementwise op. */
  out = run(text, "enable-full-version=false", &d, &ok);
  cr_expect(ok);
  cr_expect(strstr(out, "sdy.reshard") == NULL, "%s", out);
  free(out);
}

Test(explicit_reshards_pass, sharded_contracting_dim_is_all_reduced) {
  const char *text =
      MESH "func.func @f(%a: tensor<8x32xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {\"x\"}]>},"
           " %b: tensor<32x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{\"x\"}, {}]>}) -> tensor<8x16xf32> {\n"
           "  %0 = stablehlo.dot %a, %b {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{}, {}]>]>}"
           " : (tensor<8x32xf32>, tensor<32x16xf32>) -> tensor<8x16xf32>\n"
           "  return %0 : tensor<8x16xf32>\n}\n";
  diags d;
  bool ok;
  char *out = run(text, "enable-full-version=true", &d, &ok);
  cr_expect(ok);
  expect_contains(out, "%1 = sdy.all_reduce {\"x\"} %0 out_sharding=<@mesh, [{}, {}]> : tensor<8x16xf32>\n"
                       "    return %1");
  free(out);
}

Test(explicit_reshards_pass, returned_values_follow_result_shardings) {
  const char *text = MESH "func.func @f(%a: tensor<8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{\"x\"}]>})"
                          " -> (tensor<8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{\"y\"}]>}) {\n"
                          "  return %a : tensor<8xf32>\n}\n";
  diags d;
  bool ok;
  char *out = run(text, "enable-full-version=true", &d, &ok);
  cr_expect(ok);
  expect_contains(out, "%0 = sdy.reshard %arg0 <@mesh, [{\"y\"}]> : tensor<8xf32>\n    return %0");
  free(out);
}

Test(explicit_reshards_pass, single_device_argument_is_an_error) {
  const char *text = "sdy.mesh @dev = <[], device_ids=[0]>\n"
                     "func.func @f(%a: tensor<8xf32> {sdy.sharding = #sdy.sharding<@dev, []>}) -> tensor<8xf32> {\n"
                     "  return %a : tensor<8xf32>\n}\n";
  diags d;
  bool ok;
  char *out = run(text, "enable-full-version=true", &d, &ok);
  cr_expect_not(ok);
  expect_contains(d.text, "function argument 0 cannot have a single-device (maximal) sharding attribute");
  free(out);
}

Test(explicit_reshards_pass, single_device_op_goes_through_the_global_mesh) {
  const char *text = MESH "sdy.mesh @dev = <[], device_ids=[0]>\n"
                          "func.func @f(%a: tensor<8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{\"x\"}]>})"
                          " -> (tensor<8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{\"x\"}]>}) {\n"
                          "  %0 = stablehlo.custom_call @foo(%a) {sdy.sharding = #sdy.sharding_per_value<[<@dev, []>]>}"
                          " : (tensor<8xf32>) -> tensor<8xf32>\n"
                          "  return %0 : tensor<8xf32>\n}\n";
  diags d;
  bool ok;
  char *out = run(text, "enable-full-version=true", &d, &ok);
  cr_expect(ok);
  expect_contains(out, "%0 = sdy.reshard %arg0 <@mesh, [{}]>");
  expect_contains(out, "%1 = sdy.reshard %0 <@dev, []>");
  expect_contains(out, "%3 = sdy.reshard %2 <@mesh, [{}]>");
  expect_contains(out, "%4 = sdy.reshard %3 <@mesh, [{\"x\"}]>");
  free(out);
}

Test(explicit_reshards_pass, dot_result_takes_the_operand_sharding_without_full_version) {
  /* The result conflicts with lhs only on its non-contracting dim and is
   * sharded like the contracting dim: shard it like lhs and reshard after. */
  const char *text =
      "sdy.mesh @mesh = <[\"x\"=2, \"y\"=2]>\n"
      "func.func @f(%a: tensor<4x32xf32> {sdy.sharding = #sdy.sharding<@mesh, [{\"y\"}, {\"x\"}]>},"
      " %b: tensor<32x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{\"x\"}, {}]>}) -> tensor<4x8xf32> {\n"
      "  %0 = stablehlo.dot %a, %b {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{\"x\"}, {}]>]>}"
      " : (tensor<4x32xf32>, tensor<32x8xf32>) -> tensor<4x8xf32>\n"
      "  return %0 : tensor<4x8xf32>\n}\n";
  diags d;
  bool ok;
  char *out = run(text, NULL, &d, &ok);
  cr_expect(ok);
  expect_contains(out, "{sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{\"y\"}, {}]>]>}");
  expect_contains(out, "%1 = sdy.reshard %0 <@mesh, [{\"x\"}, {}]> : tensor<4x8xf32>\n    return %1");
  /* No all-reduce without the full version. */
  cr_expect(strstr(out, "all_reduce") == NULL, "%s", out);
  free(out);
}

Test(explicit_reshards_pass, reshard_to_more_unreduced_axes_becomes_unreduced_collectives) {
  const char *text =
      "sdy.mesh @mesh = <[\"x\"=2, \"y\"=2, \"z\"=4]>\n"
      "func.func @f(%a: tensor<16x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{\"x\"}, {}], unreduced={\"y\"}>})"
      " -> (tensor<16x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}], unreduced={\"x\", \"y\", \"z\"}>}) {\n"
      "  %0 = sdy.reshard %a <@mesh, [{}, {}], unreduced={\"x\", \"y\", \"z\"}> : tensor<16x8xf32>\n"
      "  return %0 : tensor<16x8xf32>\n}\n";
  diags d;
  bool ok;
  char *out = run(text, "enable-full-version=true", &d, &ok);
  cr_expect(ok);
  expect_contains(out, "%0 = sdy.replicated_to_unreduced {\"z\"} %arg0 out_sharding=<@mesh, [{\"x\"}, {}], "
                       "unreduced={\"y\", \"z\"}> : tensor<16x8xf32>\n"
                       "    %1 = sdy.sharded_to_unreduced [{\"x\"}, {}] %0 out_sharding=<@mesh, [{}, {}], "
                       "unreduced={\"x\", \"y\", \"z\"}> : tensor<16x8xf32>\n"
                       "    return %1");
  cr_expect(strstr(out, "sdy.reshard") == NULL, "%s", out);
  free(out);
}
