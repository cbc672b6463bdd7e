/* Propagation debug information (debug_origins.c): sharding origins and
 * propagation edges recorded from the propagation observer
 * (propagate.h), checked on the attributes left on parsed modules. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "propagate/debug_origins.h"
#include "ir/parse.h"
#include "pass/pass.h"
#include "pass/pass_shardings.h"
#include "ir/print.h"

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

typedef struct step {
  shard_pass_fn pass;
  const char *options;
} step;

/* A parsed module after running `steps`; the test frees it. */
typedef struct run {
  shard_module *m;
  diags d;
  shard_diag_engine de;
  shard_source src;
} run;

static void run_steps(run *r, const char *text, const step *steps, size_t n) {
  memset(r, 0, sizeof *r);
  r->src.name = "test.mlir";
  r->src.text = text;
  r->src.len = strlen(text);
  shard_diag_init(&r->de, collect, &r->d);
  r->m = shard_parse_module(&r->src, NULL, &r->de);
  cr_assert(r->m, "parse failed: %s", r->d.text);
  for (size_t i = 0; i < n; i++)
    cr_assert(steps[i].pass(r->m, steps[i].options, SHARD_PASS_CONTEXT(&r->de)), "pass failed: %s", r->d.text);
}

static char *print_module(const shard_module *m) {
  shard_buf b;
  shard_buf_init(&b);
  shard_print_module(&b, m, NULL);
  return shard_buf_take(&b);
}

static char *attr_str(const shard_attr *a) {
  shard_buf b;
  shard_buf_init(&b);
  shard_attr_print(&b, a);
  return shard_buf_take(&b);
}

static void expect_attr(const shard_attr *a, const char *want) {
  cr_assert(a, "missing attribute, wanted %s", want);
  char *got = attr_str(a);
  cr_expect_str_eq(got, want);
  free(got);
}

static shard_op *func_named(shard_module *m, const char *name) {
  shard_op *f = shard_module_lookup_symbol(m, name);
  cr_assert(f, "no func @%s", name);
  return f;
}

/* The n-th op named `name` in the body of `func` (top level only). */
static shard_op *nth_op(shard_op *func, const char *name, int n) {
  for (shard_op *op = func->regions[0].first->first; op; op = op->next)
    if (strcmp(op->name, name) == 0 && n-- == 0) return op;
  cr_assert_fail("no op %s", name);
  return NULL;
}

static shard_attr *result_attr(shard_op *func, uint32_t i, const char *name) {
  shard_attr *arr = shard_op_attr(func, "res_attrs");
  if (!arr || arr->kind != SHARD_ATTR_ARRAY || i >= arr->u.array.num) return NULL;
  return shard_dict_get(arr->u.array.elems[i], name);
}

static shard_attr *arg_attr(shard_op *func, uint32_t i, const char *name) {
  return shard_value_attr(&func->regions[0].first->args[i], name);
}

static const char *const add_module =
    "sdy.mesh @mesh = <[\"a\"=2, \"b\"=2, \"c\"=8]>\n"
    "func.func @f(%arg0: tensor<8x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{\"a\", ?}, {?}]>},\n"
    "             %arg1: tensor<8x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{?}, {\"c\", ?}]>})\n"
    "    -> (tensor<8x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{?}, {?}]>}) {\n"
    "  %0 = stablehlo.add %arg0, %arg1 : tensor<8x8xf32>\n"
    "  return %0 : tensor<8x8xf32>\n"
    "}\n";

/* ---- names -------------------------------------------------------------------- */

Test(debug_origins, axis_keys_have_no_quotes) {
  shard_arena *a = shard_arena_new();
  shard_axis_ref full = {"a", false, 0, 0};
  shard_axis_ref sub = {"c", true, 4, 2};
  cr_expect_str_eq(shard_debug_origins_axis_key(a, &full), "a");
  cr_expect_str_eq(shard_debug_origins_axis_key(a, &sub), "c:(4)2");
  shard_arena_free(a);
}

/* ---- recorder life cycle -------------------------------------------------------- */

static void set_flag(void *ctx) { *(bool *)ctx = true; }

Test(debug_origins, off_means_no_recorder_and_no_attributes) {
  run r;
  run_steps(&r, add_module, NULL, 0);
  cr_expect_null(shard_debug_origins_begin(r.m, false, false, NULL));
  bool ran = false;
  shard_debug_origins_watch(NULL, nth_op(func_named(r.m, "f"), "stablehlo.add", 0), set_flag, &ran);
  cr_expect(ran, "the change must run without a recorder");
  shard_debug_origins_end(NULL);
  step steps[] = {{shard_pass_aggressive_propagate, NULL}};
  steps[0].pass(r.m, steps[0].options, SHARD_PASS_CONTEXT(&r.de));
  char *out = print_module(r.m);
  cr_expect_null(strstr(out, "sdy.sharding_origins"));
  cr_expect_null(strstr(out, "sdy.propagation_edges"));
  free(out);
  shard_module_free(r.m);
}

/* ---- sharding origins ------------------------------------------------------------ */

Test(debug_origins, axes_take_the_origin_of_their_source) {
  run r;
  step steps[] = {{shard_pass_add_data_flow_edges, NULL},
                  {shard_pass_aggressive_propagate, "debug-sharding-origins=true"}};
  run_steps(&r, add_module, steps, 2);
  shard_op *f = func_named(r.m, "f");
  /* Each argument's own axis reads "self", the other one names the argument it came from. */
  expect_attr(arg_attr(f, 0, "sdy.sharding_origins"), "{a = \"self\", c = \"input: 1\"}");
  expect_attr(arg_attr(f, 1, "sdy.sharding_origins"), "{a = \"input: 0\", c = \"self\"}");
  /* The add holds one dictionary per result; the returned value's goes to the func result. */
  expect_attr(shard_op_attr(nth_op(f, "stablehlo.add", 0), "sdy.sharding_origins"),
              "[{a = \"input: 0\", c = \"input: 1\"}]");
  expect_attr(result_attr(f, 0, "sdy.sharding_origins"), "{a = \"input: 0\", c = \"input: 1\"}");
  shard_module_free(r.m);
}

Test(debug_origins, constraints_are_named_and_their_axes_read_self) {
  static const char *const text = "sdy.mesh @mesh = <[\"a\"=2, \"b\"=2]>\n"
                                  "func.func @f(%arg0: tensor<8x8xf32>) -> tensor<8x8xf32> {\n"
                                  "  %0 = sdy.sharding_constraint %arg0 <@mesh, [{\"a\"}, {?}]> : tensor<8x8xf32>\n"
                                  "  %1 = stablehlo.add %0, %0 : tensor<8x8xf32>\n"
                                  "  %2 = sdy.sharding_constraint %1 <@mesh, [{}, {}]> : tensor<8x8xf32>\n"
                                  "  return %2 : tensor<8x8xf32>\n"
                                  "}\n";
  run r;
  step steps[] = {{shard_pass_add_data_flow_edges, NULL},
                  {shard_pass_apply_sharding_constraints, "debug-sharding-origins=true"},
                  {shard_pass_aggressive_propagate, "debug-sharding-origins=true"}};
  run_steps(&r, text, steps, 3);
  shard_op *f = func_named(r.m, "f");
  shard_op *c0 = nth_op(f, "sdy.sharding_constraint", 0), *c1 = nth_op(f, "sdy.sharding_constraint", 1);
  expect_attr(shard_op_attr(c0, "sdy.sharding_origin_name"), "\"constraint_0\"");
  expect_attr(shard_op_attr(c1, "sdy.sharding_origin_name"), "\"constraint_1\"");
  expect_attr(shard_op_attr(c0, "sdy.sharding_origins"), "{a = \"self\"}");
  /* A constraint without axes has nothing to explain. */
  cr_expect_null(shard_op_attr(c1, "sdy.sharding_origins"));
  /* The closed empty constraint was applied to the add, so "a" stops there
   * and the add has no axis to explain either. */
  cr_expect_null(shard_op_attr(nth_op(f, "stablehlo.add", 0), "sdy.sharding_origins"));
  expect_attr(arg_attr(f, 0, "sdy.sharding_origins"), "{a = \"constraint_0\"}");
  shard_module_free(r.m);
}

Test(debug_origins, a_grown_sub_axis_keeps_both_origins) {
  static const char *const text =
      "sdy.mesh @mesh = <[\"c\"=8]>\n"
      "func.func @f(%arg0: tensor<8x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{?}, {\"c\":(1)4, ?}]>})\n"
      "    -> (tensor<8x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{?}, {\"c\":(1)2, ?}]>}) {\n"
      "  %0 = stablehlo.add %arg0, %arg0 : tensor<8x8xf32>\n"
      "  return %0 : tensor<8x8xf32>\n"
      "}\n";
  run r;
  step steps[] = {{shard_pass_aggressive_propagate, "debug-sharding-origins=true"}};
  run_steps(&r, text, steps, 1);
  shard_op *f = func_named(r.m, "f");
  /* Keys that are not bare identifiers print quoted, sorted as MLIR sorts them. */
  expect_attr(shard_op_attr(nth_op(f, "stablehlo.add", 0), "sdy.sharding_origins"),
              "[{\"c:(1)2\" = \"output: 0\", \"c:(1)4\" = \"input: 0\"}]");
  expect_attr(result_attr(f, 0, "sdy.sharding_origins"), "{\"c:(1)2\" = \"self\", \"c:(1)4\" = \"input: 0\"}");
  shard_module_free(r.m);
}

/* ---- propagation edges ------------------------------------------------------------ */

Test(debug_origins, edges_are_numbered_per_step_and_grouped) {
  static const char *const text =
      "sdy.mesh @mesh = <[\"a\"=2, \"b\"=2, \"c\"=8]>\n"
      "func.func @f(%arg0: tensor<8x8x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{\"a\", ?}, {?}, {?}]>},\n"
      "             %arg1: tensor<8x8x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{?}, {?}, {\"c\", ?}]>})\n"
      "    -> (tensor<8x8x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{?}, {\"b\", ?}, {?}]>}) {\n"
      "  %0 = stablehlo.add %arg0, %arg1 : tensor<8x8x8xf32>\n"
      "  return %0 : tensor<8x8x8xf32>\n"
      "}\n";
  run r;
  step steps[] = {{shard_pass_add_data_flow_edges, NULL},
                  {shard_pass_aggressive_propagate, "debug-propagation-edge-sharding=true"}};
  run_steps(&r, text, steps, 2);
  shard_op *f = func_named(r.m, "f");
  /* Step 0 pushes "b" from the func result to the returned value, step 1
   * spreads everything over the add, step 2 brings "a" and "c" back to the result. */
  expect_attr(shard_op_attr(nth_op(f, "stablehlo.add", 0), "sdy.propagation_edges"),
              "#sdy.propagation_edges<[{step-1 = [{\"a\" = operand-0 -> [operand-1, result-0]}, "
              "{\"b\" = result-0 -> [operand-0, operand-1]}, {\"c\" = operand-1 -> [operand-0, result-0]}]}]>");
  expect_attr(result_attr(f, 0, "sdy.propagation_edges"),
              "#sdy.propagation_edges<[{step-0 = [{\"b\" = result-0 -> [operand-0]}]}, "
              "{step-2 = [{\"a\" = operand-0 -> [result-0]}, {\"c\" = operand-0 -> [result-0]}]}]>");
  /* Func arguments only show up as the sources of their users' edges. */
  cr_expect_null(arg_attr(f, 0, "sdy.propagation_edges"));
  shard_module_free(r.m);
}

Test(debug_origins, steps_continue_after_those_already_saved) {
  static const char *const text =
      "sdy.mesh @mesh = <[\"a\"=2]>\n"
      "func.func @f(%arg0: tensor<8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{\"a\", ?}]>}) -> tensor<8xf32> {\n"
      "  %0 = stablehlo.negate %arg0 : tensor<8xf32>\n"
      "  %1 = stablehlo.abs %arg0 {sdy.propagation_edges = #sdy.propagation_edges<[{step-6 = [{\"a\" = "
      "operand-0 -> [result-0]}]}]>} : tensor<8xf32>\n"
      "  return %0 : tensor<8xf32>\n"
      "}\n";
  run r;
  step steps[] = {{shard_pass_basic_propagate, "debug-propagation-edge-sharding=true"}};
  run_steps(&r, text, steps, 1);
  shard_op *f = func_named(r.m, "f");
  /* Numbering resumes after step 6: the negate (7), the abs (8, replacing
   * what the abs had), then the returned value reaches the func result (9). */
  expect_attr(shard_op_attr(nth_op(f, "stablehlo.negate", 0), "sdy.propagation_edges"),
              "#sdy.propagation_edges<[{step-7 = [{\"a\" = operand-0 -> [result-0]}]}]>");
  expect_attr(shard_op_attr(nth_op(f, "stablehlo.abs", 0), "sdy.propagation_edges"),
              "#sdy.propagation_edges<[{step-8 = [{\"a\" = operand-0 -> [result-0]}]}]>");
  expect_attr(result_attr(f, 0, "sdy.propagation_edges"),
              "#sdy.propagation_edges<[{step-9 = [{\"a\" = operand-0 -> [result-0]}]}]>");
  shard_module_free(r.m);
}

Test(debug_origins, the_same_edge_keeps_its_earliest_step) {
  static const char *const text =
      "sdy.mesh @mesh = <[\"a\"=2]>\n"
      "func.func @f(%arg0: tensor<8xf32>, %arg1: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {\n"
      "  %0 = sdy.sharding_constraint %arg0 <@mesh, [{\"a\"}]> : tensor<8xf32>\n"
      "  %1 = sdy.sharding_constraint %arg1 <@mesh, [{\"a\"}]> : tensor<8xf32>\n"
      "  return %0, %1 : tensor<8xf32>, tensor<8xf32>\n"
      "}\n";
  run r;
  step steps[] = {{shard_pass_add_data_flow_edges, NULL},
                  {shard_pass_apply_sharding_constraints, "debug-propagation-edge-sharding=true"},
                  {shard_pass_aggressive_propagate, "debug-propagation-edge-sharding=true"}};
  run_steps(&r, text, steps, 3);
  shard_op *f = func_named(r.m, "f");
  /* Applying each constraint to its input is a step of its own. */
  expect_attr(shard_op_attr(nth_op(f, "sdy.sharding_constraint", 0), "sdy.propagation_edges"),
              "#sdy.propagation_edges<[{step-0 = [{\"a\" = result-0 -> [operand-0]}]}]>");
  expect_attr(shard_op_attr(nth_op(f, "sdy.sharding_constraint", 1), "sdy.propagation_edges"),
              "#sdy.propagation_edges<[{step-1 = [{\"a\" = result-0 -> [operand-0]}]}]>");
  /* Both returned values reach their results (steps 2 and 3); Shardy files
   * both under the first result, where the same edge counts once. */
  expect_attr(result_attr(f, 0, "sdy.propagation_edges"),
              "#sdy.propagation_edges<[{step-2 = [{\"a\" = operand-0 -> [result-0]}]}]>");
  cr_expect_null(result_attr(f, 1, "sdy.propagation_edges"));
  shard_module_free(r.m);
}

/* ---- data-flow edges and removal ------------------------------------------------------ */

Test(debug_origins, sunk_onto_data_flow_ops_then_removed) {
  static const char *const text =
      "sdy.mesh @mesh = <[\"a\"=2, \"b\"=2]>\n"
      "func.func @f(%arg0: tensor<32x32xf32>) -> tensor<32x32xf32> {\n"
      "  %0 = sdy.manual_computation(%arg0) in_shardings=[<@mesh, [{\"a\", ?}, {?}]>] "
      "out_shardings=[<@mesh, [{\"a\", ?}, {?}]>] manual_axes={\"a\"} (%arg1: tensor<16x32xf32>) {\n"
      "    %1 = stablehlo.add %arg1, %arg1 : tensor<16x32xf32>\n"
      "    sdy.return %1 : tensor<16x32xf32>\n"
      "  } : (tensor<32x32xf32>) -> tensor<32x32xf32>\n"
      "  return %0 : tensor<32x32xf32>\n"
      "}\n";
  run r;
  step steps[] = {
      {shard_pass_add_data_flow_edges, NULL},
      {shard_pass_aggressive_propagate, "debug-sharding-origins=true debug-propagation-edge-sharding=true"},
      {shard_pass_sink_data_flow_edges, "sink-debug-sharding-origins=true sink-debug-propagation-edge-sharding=true"}};
  run_steps(&r, text, steps, 3);
  shard_op *f = func_named(r.m, "f");
  shard_op *mc = nth_op(f, "sdy.manual_computation", 0);
  expect_attr(shard_op_attr(mc, "sdy.sharding_origin_name"), "\"mc_0\"");
  expect_attr(shard_op_attr(mc, "sdy.block_arg_sharding_origins"), "[{a = \"self\"}]");
  expect_attr(shard_op_attr(mc, "sdy.result_sharding_origins"), "[{a = \"self\"}]");
  expect_attr(arg_attr(f, 0, "sdy.sharding_origins"), "{a = \"mc_0_input: 0\"}");
  expect_attr(result_attr(f, 0, "sdy.sharding_origins"), "{a = \"mc_0_output: 0\"}");
  /* The argument got "a" from the block argument's edge (its target). */
  char *edges = attr_str(shard_op_attr(mc, "sdy.block_arg_propagation_edges"));
  cr_expect(strstr(edges, "{\"a\" = result-0 -> [operand-0]}") != NULL, "%s", edges);
  free(edges);
  cr_assert(shard_pass_remove_propagation_debug_info(r.m, NULL, SHARD_PASS_CONTEXT(&r.de)));
  char *out = print_module(r.m);
  cr_expect_null(strstr(out, "sharding_origins"), "%s", out);
  cr_expect_null(strstr(out, "propagation_edges"), "%s", out);
  cr_expect(strstr(out, "sdy.sharding_origin_name = \"mc_0\"") != NULL, "the name stays: %s", out);
  free(out);
  shard_module_free(r.m);
}

/* ---- the observer ------------------------------------------------------------------------ */

typedef struct counting {
  int steps;
  int func_results;
  bool projections_differ;
} counting;

static void count_step(void *ctx, const shard_propagation_step *s) {
  counting *c = ctx;
  c->steps++;
  if (s->func_result) c->func_results++;
  uint32_t n = s->num_operands + s->num_results;
  for (uint32_t t = 0; t < n; t++) {
    cr_expect(s->values[t] != NULL);
    for (uint32_t f = 0; f < s->before->num_factors; f++)
      if (s->before->tensors[t].factors[f].axes.n != s->after->tensors[t].factors[f].axes.n)
        c->projections_differ = true;
  }
}

Test(debug_origins, observer_sees_only_steps_that_changed_something) {
  run r;
  run_steps(&r, add_module, NULL, 0);
  shard_propagation *s = shard_propagation_begin(r.m, false, NULL, &r.de);
  cr_assert(s);
  counting c = {0};
  shard_propagation_observer o = {count_step, &c};
  shard_propagation_set_observer(s, &o);
  shard_propagation_run(s, SHARD_FACTOR_AGGRESSIVE, NULL, NULL);
  /* The add takes both arguments' axes; then the func result takes them. */
  cr_expect_eq(c.steps, 2);
  cr_expect_eq(c.func_results, 1);
  cr_expect(c.projections_differ);
  /* A second run changes nothing, so reports nothing. */
  shard_propagation_run(s, SHARD_FACTOR_AGGRESSIVE, NULL, NULL);
  cr_expect_eq(c.steps, 2);
  shard_propagation_set_observer(s, NULL);
  shard_propagation_end(s, false);
  shard_module_free(r.m);
}

/* The driver follows shardings through returns to call results and through
 * call operands to callee arguments; f(f(x)) leads back to the same values,
 * which once recursed until the stack ran out. */
Test(debug_origins, chained_calls_of_one_func_terminate) {
  static const char *const text =
      "sdy.mesh @mesh = <[\"a\"=2]>\n"
      "func.func @main(%arg0: tensor<8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{\"a\", ?}]>}) -> tensor<8xf32> {\n"
      "  %0 = stablehlo.negate %arg0 : tensor<8xf32>\n"
      "  %1 = call @foo(%0) : (tensor<8xf32>) -> tensor<8xf32>\n"
      "  %2 = call @foo(%1) : (tensor<8xf32>) -> tensor<8xf32>\n"
      "  return %2 : tensor<8xf32>\n"
      "}\n"
      "func.func private @foo(%arg0: tensor<8xf32>) -> tensor<8xf32> {\n"
      "  %0 = stablehlo.abs %arg0 : tensor<8xf32>\n"
      "  return %arg0 : tensor<8xf32>\n"
      "}\n";
  run r;
  step steps[] = {{shard_pass_basic_propagate, "debug-propagation-edge-sharding=true"}};
  run_steps(&r, text, steps, 1);
  /* The negate's new sharding notifies @foo's users through both calls;
   * calls have no rule, so without func data-flow edges nothing reaches @foo. */
  expect_attr(shard_op_attr(nth_op(func_named(r.m, "main"), "stablehlo.negate", 0), "sdy.propagation_edges"),
              "#sdy.propagation_edges<[{step-0 = [{\"a\" = operand-0 -> [result-0]}]}]>");
  cr_expect_null(shard_op_attr(nth_op(func_named(r.m, "foo"), "stablehlo.abs", 0), "sdy.sharding"));
  shard_module_free(r.m);
}
