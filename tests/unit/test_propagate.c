/* Sharding propagation: projections (projection.c), factor propagation
 * (factor_propagation.c) and the driver with its passes (propagate.c,
 * pass_propagate.c), the latter through parsed modules. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "propagate/factor_propagation.h"
#include "ir/parse.h"
#include "pass/pass.h"
#include "ir/print.h"
#include "propagate/projection.h"
#include "propagate/propagate.h"
#include "rules/rule_builder.h"

/* ---- helpers ------------------------------------------------------------------ */

static shard_axis_ref full(const char *name) {
  shard_axis_ref r = {name, false, 0, 0};
  return r;
}

static char *axes_str(const shard_axis_ref *axes, uint32_t n) {
  shard_buf b;
  shard_buf_init(&b);
  shard_axis_list_print(&b, axes, n);
  return shard_buf_take(&b);
}

static char *sharding_str(const shard_tensor_sharding *s) {
  shard_buf b;
  shard_buf_init(&b);
  shard_sharding_print(&b, s);
  return shard_buf_take(&b);
}

static void expect_axes(const shard_axis_ref *axes, uint32_t n, const char *want) {
  char *got = axes_str(axes, n);
  cr_expect_str_eq(got, want);
  free(got);
}

typedef struct diags {
  char text[4096];
  unsigned errors, warnings;
} diags;

static void collect(void *ctx, const shard_diag *d) {
  diags *c = ctx;
  size_t used = strlen(c->text);
  snprintf(c->text + used, sizeof c->text - used, "%s\n", d->message);
  if (d->severity == SHARD_ERROR) c->errors++;
  if (d->severity == SHARD_WARNING) c->warnings++;
}

/* Parses `text`, runs `pass` with `options` and returns the printed module
 * (heap), or the diagnostics when parsing or the pass failed. */
static char *run_pass(const char *text, shard_pass_fn pass, const char *options, diags *d) {
  shard_source src = {.name = "test.mlir", .text = text, .len = strlen(text)};
  shard_diag_engine de;
  memset(d, 0, sizeof *d);
  shard_diag_init(&de, collect, d);
  shard_module *m = shard_parse_module(&src, NULL, &de);
  if (!m) return strdup(d->text);
  bool ok = pass(m, options, SHARD_PASS_CONTEXT(&de));
  shard_buf b;
  shard_buf_init(&b);
  shard_print_module(&b, m, NULL);
  shard_module_free(m);
  char *out = shard_buf_take(&b);
  if (!ok) {
    free(out);
    return strdup(d->text);
  }
  return out;
}

static void expect_contains(const char *haystack, const char *needle) {
  cr_expect(strstr(haystack, needle) != NULL, "expected to find\n  %s\nin\n%s", needle, haystack);
}

/* ---- axis helpers --------------------------------------------------------------- */

Test(projection, prefix_status) {
  shard_axis_ref ab[] = {full("a"), full("b")}, a[] = {full("a")}, ac[] = {full("a"), full("c")};
  cr_expect_eq(shard_axes_prefix_status(NULL, 0, NULL, 0), SHARD_PREFIX_EQUAL);
  cr_expect_eq(shard_axes_prefix_status(NULL, 0, a, 1), SHARD_PREFIX_STRICT);
  cr_expect_eq(shard_axes_prefix_status(a, 1, ab, 2), SHARD_PREFIX_STRICT);
  cr_expect_eq(shard_axes_prefix_status(ab, 2, ab, 2), SHARD_PREFIX_EQUAL);
  cr_expect_eq(shard_axes_prefix_status(ab, 2, ac, 2), SHARD_PREFIX_NOT);
  cr_expect_eq(shard_axes_prefix_status(ab, 2, a, 1), SHARD_PREFIX_NOT);
  shard_axis_ref sub2[] = {shard_axis_sub("a", 1, 2)}, sub4[] = {shard_axis_sub("a", 1, 4)};
  cr_expect_eq(shard_axes_prefix_status(sub2, 1, sub4, 1), SHARD_PREFIX_STRICT);
  cr_expect_eq(shard_axes_prefix_status(sub4, 1, sub2, 1), SHARD_PREFIX_NOT);
}

Test(projection, prefix_without_overlap) {
  shard_axis_ref out;
  shard_axis_ref x = full("x"), x24 = shard_axis_sub("x", 2, 4), x14 = shard_axis_sub("x", 1, 4);
  /* "x" minus "x":(2)4 keeps "x":(1)2. */
  cr_assert(shard_axis_prefix_without_overlap(&x, &x24, &out));
  expect_axes(&out, 1, "{\"x\":(1)2}");
  /* Nothing of "x":(2)4 comes before "x". */
  cr_expect_not(shard_axis_prefix_without_overlap(&x24, &x, &out));
  /* Disjoint axes are kept whole. */
  shard_axis_ref y = full("y");
  cr_assert(shard_axis_prefix_without_overlap(&x14, &y, &out));
  cr_expect(shard_axis_equal(&out, &x14));
  /* "x":(1)2 and "x":(3)2 can't come from one split of "x". */
  shard_axis_ref x12 = shard_axis_sub("x", 1, 2), x32 = shard_axis_sub("x", 3, 2);
  cr_expect_not(shard_axis_can_coexist(&x12, &x32));
  cr_expect(shard_axis_can_coexist(&x14, &x24));
}

/* ---- projection ------------------------------------------------------------------ */

/* The example of sharding_projection.h: ([ij])->([i, j]) {i=2, j=4} with
 * mesh <"x"=4, "y"=2> and operand [{"x", "y"}]. */
Test(projection, split_and_merge_sub_axes) {
  shard_arena *a = shard_arena_new();
  shard_mesh_axis mesh_axes[] = {{"x", 4}, {"y", 2}};
  shard_mesh mesh = {.axes = mesh_axes, .num_axes = 2};
  int64_t f_ij[] = {0, 1}, f_i[] = {0}, f_j[] = {1};
  shard_dim_mapping op_dims[] = {{f_ij, 2}}, res_dims[] = {{f_i, 1}, {f_j, 1}};
  shard_tensor_mapping operand = {op_dims, 1}, result = {res_dims, 2};
  int64_t sizes[] = {2, 4};
  shard_op_sharding_rule rule = {.operands = &operand,
                                 .num_operands = 1,
                                 .results = &result,
                                 .num_results = 1,
                                 .factor_sizes = sizes,
                                 .num_factors = 2};
  shard_axis_ref xy[] = {full("x"), full("y")};
  shard_dim_sharding dim = {xy, 2, false, SHARD_NO_PRIORITY};
  shard_tensor_sharding in = {.mesh_name = "mesh", .dims = &dim, .rank = 1};
  const shard_tensor_sharding *shardings[] = {&in, NULL};
  shard_projection *p = shard_projection_build(a, &rule, shardings, &mesh, false);

  const shard_factor_sharding *i0 = &p->tensors[0].factors[0], *j0 = &p->tensors[0].factors[1];
  expect_axes(i0->axes.v, i0->axes.n, "{\"x\":(1)2}");
  expect_axes(j0->axes.v, j0->axes.n, "{\"x\":(2)2, \"y\"}");
  cr_expect(j0->is_minor_most);
  cr_expect_not(i0->is_minor_most);
  cr_expect_eq(p->tensors[1].factors[0].axes.n, 0);
  cr_expect_not(p->tensors[1].factors[0].is_closed, "a missing sharding projects open");

  cr_assert(shard_projection_expand(p, 1, 0, i0->axes.v, i0->axes.n));
  cr_assert(shard_projection_expand(p, 1, 1, j0->axes.v, j0->axes.n));
  cr_expect_not(shard_projection_expand(p, 1, 1, j0->axes.v, j0->axes.n), "equal axes are no expansion");

  char *r = sharding_str(shard_projection_to_sharding(a, p, 1, &result, "mesh", NULL));
  cr_expect_str_eq(r, "<@mesh, [{\"x\":(1)2, ?}, {\"x\":(2)2, \"y\", ?}]>");
  free(r);
  char *o = sharding_str(shard_projection_to_sharding(a, p, 0, &operand, "mesh", NULL));
  cr_expect_str_eq(o, "<@mesh, [{\"x\", \"y\"}]>", "sub-axes merge back at the factor boundary");
  free(o);
  shard_arena_free(a);
}

/* A non-minor-most factor whose rest is coprime with the next axis gets
 * overflow axes, and the later factor of the dim is closed. */
Test(projection, overflow_axes) {
  shard_arena *a = shard_arena_new();
  shard_mesh_axis mesh_axes[] = {{"x", 3}, {"y", 2}};
  shard_mesh mesh = {.axes = mesh_axes, .num_axes = 2};
  int64_t f_ij[] = {0, 1};
  shard_dim_mapping dims[] = {{f_ij, 2}};
  shard_tensor_mapping t = {dims, 1};
  int64_t sizes[] = {4, 6};
  shard_op_sharding_rule rule = {
      .operands = &t, .num_operands = 1, .results = NULL, .num_results = 0, .factor_sizes = sizes, .num_factors = 2};
  shard_axis_ref xy[] = {full("x"), full("y")};
  shard_dim_sharding dim = {xy, 2, true, SHARD_NO_PRIORITY};
  shard_tensor_sharding in = {.mesh_name = "mesh", .dims = &dim, .rank = 1};
  const shard_tensor_sharding *shardings[] = {&in};
  shard_projection *p = shard_projection_build(a, &rule, shardings, &mesh, false);
  const shard_factor_sharding *i = &p->tensors[0].factors[0], *j = &p->tensors[0].factors[1];
  cr_expect_eq(i->axes.n, 0);
  expect_axes(i->overflow.v, i->overflow.n, "{\"x\", \"y\"}");
  cr_expect(j->is_closed);
  char *s = sharding_str(shard_projection_to_sharding(a, p, 0, &t, "mesh", NULL));
  cr_expect_str_eq(s, "<@mesh, [{\"x\", \"y\", ?}]>");
  free(s);
  shard_arena_free(a);
}

/* ---- factor propagation --------------------------------------------------------------- */

typedef struct one_factor_case {
  shard_axes tensors[4];
  uint32_t n;
} one_factor_case;

/* A projection of n tensors (all operands) sharing one factor of size 64. */
static shard_projection *one_factor(shard_arena *a, const shard_mesh *mesh, const shard_axes *axes, uint32_t n) {
  static int64_t size = 64;
  shard_projection *p = SHARD_NEW(a, shard_projection);
  p->arena = a;
  p->mesh = mesh;
  p->factor_sizes = &size;
  p->num_factors = 1;
  p->num_operands = n;
  p->tensors = SHARD_NEW_ARRAY(a, shard_tensor_factors, n);
  for (uint32_t t = 0; t < n; t++) {
    p->tensors[t].factors = SHARD_NEW(a, shard_factor_sharding);
    p->tensors[t].factors[0].mapped = true;
    p->tensors[t].factors[0].is_minor_most = true;
    p->tensors[t].factors[0].axes = axes[t];
  }
  return p;
}

Test(factor_propagation, compatible_major_axes) {
  shard_arena *a = shard_arena_new();
  shard_mesh_axis mesh_axes[] = {{"a", 4}, {"b", 2}, {"c", 2}, {"d", 2}};
  shard_mesh mesh = {.axes = mesh_axes, .num_axes = 4};
  shard_axis_ref ab[] = {full("a"), full("b")}, ac[] = {full("a"), full("c")}, a1[] = {full("a")};
  shard_axis_ref abc[] = {full("a"), full("b"), full("c")}, abd[] = {full("a"), full("b"), full("d")};
  shard_axis_ref out[64];

  shard_axes c1[] = {{ab, 2}, {ac, 2}};
  uint32_t n = shard_factor_compatible_major_axes(one_factor(a, &mesh, c1, 2), 0, SHARD_DIR_BOTH, out);
  expect_axes(out, n, "{\"a\"}");

  shard_axes c2[] = {{a1, 1}, {NULL, 0}, {abc, 3}, {abd, 3}};
  n = shard_factor_compatible_major_axes(one_factor(a, &mesh, c2, 4), 0, SHARD_DIR_BOTH, out);
  expect_axes(out, n, "{\"a\", \"b\"}");

  shard_axis_ref s2[] = {shard_axis_sub("a", 1, 2)}, s4[] = {shard_axis_sub("a", 1, 4)};
  shard_axes c3[] = {{s2, 1}, {s4, 1}};
  n = shard_factor_compatible_major_axes(one_factor(a, &mesh, c3, 2), 0, SHARD_DIR_BOTH, out);
  expect_axes(out, n, "{\"a\":(1)4}");

  n = shard_factor_compatible_major_axes(one_factor(a, &mesh, c3, 2), 0, SHARD_DIR_NONE, out);
  cr_expect_eq(n, 0);
  shard_arena_free(a);
}

static shard_direction both(void *ctx, int64_t f) {
  (void)ctx;
  (void)f;
  return SHARD_DIR_BOTH;
}

/* docs/propagation.md: T0 = {F0: a, F2: f}, T1 = {F0: a b, F1: c d, F2: g},
 * T2 = {F1: c e}; basic propagation gives [a, b] along F0, [c] along F1 and
 * nothing along F2. */
Test(factor_propagation, basic_docs_example) {
  shard_arena *a = shard_arena_new();
  shard_mesh_axis mesh_axes[] = {{"a", 2}, {"b", 2}, {"c", 2}, {"d", 2}, {"e", 2}, {"f", 2}, {"g", 2}};
  shard_mesh mesh = {.axes = mesh_axes, .num_axes = 7};
  int64_t sizes[] = {64, 64, 64};
  shard_projection p = {
      .arena = a, .mesh = &mesh, .factor_sizes = sizes, .num_factors = 3, .num_operands = 2, .num_results = 1};
  p.tensors = SHARD_NEW_ARRAY(a, shard_tensor_factors, 3);
  shard_axis_ref t0f0[] = {full("a")}, t0f2[] = {full("f")};
  shard_axis_ref t1f0[] = {full("a"), full("b")}, t1f1[] = {full("c"), full("d")}, t1f2[] = {full("g")};
  shard_axis_ref t2f1[] = {full("c"), full("e")};
  for (int t = 0; t < 3; t++) {
    p.tensors[t].factors = SHARD_NEW_ARRAY(a, shard_factor_sharding, 3);
    for (int f = 0; f < 3; f++) {
      p.tensors[t].factors[f].mapped = true;
      p.tensors[t].factors[f].is_minor_most = true;
    }
  }
  p.tensors[0].factors[0].axes = (shard_axes){t0f0, 1};
  p.tensors[0].factors[2].axes = (shard_axes){t0f2, 1};
  p.tensors[1].factors[0].axes = (shard_axes){t1f0, 2};
  p.tensors[1].factors[1].axes = (shard_axes){t1f1, 2};
  p.tensors[1].factors[2].axes = (shard_axes){t1f2, 1};
  p.tensors[2].factors[1].axes = (shard_axes){t2f1, 2};
  shard_factor_propagation fp = {SHARD_FACTOR_BASIC, both, NULL, false, false};
  bool updated[3] = {false, false, false};
  shard_factor_propagate(&p, &fp, updated);
  const shard_factor_sharding *t0 = p.tensors[0].factors, *t2 = p.tensors[2].factors;
  expect_axes(t0[0].axes.v, t0[0].axes.n, "{\"a\", \"b\"}");
  expect_axes(t2[0].axes.v, t2[0].axes.n, "{\"a\", \"b\"}");
  expect_axes(t0[1].axes.v, t0[1].axes.n, "{\"c\"}");
  expect_axes(t2[1].axes.v, t2[1].axes.n, "{\"c\", \"e\"}");
  expect_axes(t2[2].axes.v, t2[2].axes.n, "{}");
  cr_expect(updated[0]);
  cr_expect_not(updated[1]);
  cr_expect(updated[2]);
  shard_arena_free(a);
}

Test(factor_propagation, direction_algebra) {
  cr_expect_eq(shard_direction_union(SHARD_DIR_FORWARD, SHARD_DIR_BACKWARD), SHARD_DIR_BOTH);
  cr_expect_eq(shard_direction_union(SHARD_DIR_NONE, SHARD_DIR_FORWARD), SHARD_DIR_FORWARD);
  cr_expect_eq(shard_direction_intersect(SHARD_DIR_FORWARD, SHARD_DIR_BACKWARD), SHARD_DIR_NONE);
  cr_expect_eq(shard_direction_intersect(SHARD_DIR_BOTH, SHARD_DIR_BACKWARD), SHARD_DIR_BACKWARD);
}

/* ---- passes ------------------------------------------------------------------------------ */

static const char simple_module[] =
    "sdy.mesh @mesh = <[\"a\"=2, \"b\"=2]>\n"
    "func.func @main(%arg0: tensor<8x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{\"a\"}, {\"b\"}]>},\n"
    "                %arg1: tensor<8x8xf32>, %arg2: tensor<8x16xf32>) -> tensor<8x16xf32> {\n"
    "  %0 = stablehlo.add %arg0, %arg1 : tensor<8x8xf32>\n"
    "  %1 = stablehlo.dot_general %0, %arg2, contracting_dims = [1] x [0] :\n"
    "    (tensor<8x8xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>\n"
    "  return %1 : tensor<8x16xf32>\n"
    "}\n";

Test(passes, basic_propagate_through_add_and_dot) {
  diags d;
  char *out = run_pass(simple_module, shard_pass_basic_propagate, NULL, &d);
  cr_expect_eq(d.errors, 0, "%s", d.text);
  expect_contains(out, "%arg1: tensor<8x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{\"a\", ?}, {\"b\", ?}]>}");
  expect_contains(out, "%arg2: tensor<8x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{\"b\", ?}, {?}]>}");
  expect_contains(out, "-> (tensor<8x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{\"a\", ?}, {?}]>})");
  expect_contains(
      out, "stablehlo.add %arg0, %arg1 {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{\"a\", ?}, {\"b\", ?}]>]>}");
  cr_expect(strstr(out, "sdy.sharding_rule") == NULL, "created rules are dropped");
  free(out);
}

Test(passes, keep_sharding_rules) {
  diags d;
  char *out = run_pass(simple_module, shard_pass_basic_propagate, "keep-sharding-rules=true", &d);
  expect_contains(out, "sdy.sharding_rule = #sdy.op_sharding_rule<([i, j], [i, j])->([i, j]) {i=8, j=8}>");
  free(out);
}

/* A closed dim stops the basic strategy along its factor for every tensor. */
Test(passes, closed_dim_blocks_factor) {
  static const char text[] =
      "sdy.mesh @mesh = <[\"a\"=2, \"b\"=2]>\n"
      "func.func @main(%arg0: tensor<8x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{\"a\"}, {}]>},\n"
      "                %arg1: tensor<8x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {\"b\"}]>}) -> tensor<8x8xf32> "
      "{\n"
      "  %0 = stablehlo.add %arg0, %arg1 : tensor<8x8xf32>\n"
      "  return %0 : tensor<8x8xf32>\n"
      "}\n";
  diags d;
  char *out = run_pass(text, shard_pass_basic_propagate, NULL, &d);
  expect_contains(out, "stablehlo.add %arg0, %arg1 : tensor<8x8xf32>");
  free(out);
  /* Aggressive resolves per tensor: the open result takes both. */
  out = run_pass(text, shard_pass_aggressive_propagate, NULL, &d);
  expect_contains(out, "sharding_per_value<[<@mesh, [{\"a\", ?}, {\"b\", ?}]>]>");
  free(out);
}

Test(passes, barrier_blocks_backward) {
  static const char text[] = "sdy.mesh @mesh = <[\"a\"=2, \"b\"=2]>\n"
                             "func.func @main(%arg0: tensor<8x8xf32>) -> (tensor<8x8xf32> {sdy.sharding = "
                             "#sdy.sharding<@mesh, [{\"a\", ?}, {?}]>}) {\n"
                             "  %0 = sdy.propagation_barrier %arg0 allowed_direction=FORWARD : tensor<8x8xf32>\n"
                             "  return %0 : tensor<8x8xf32>\n"
                             "}\n";
  diags d;
  char *out = run_pass(text, shard_pass_basic_propagate, NULL, &d);
  expect_contains(out, "func.func @main(%arg0: tensor<8x8xf32>)");
  expect_contains(out,
                  "allowed_direction=FORWARD {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{\"a\", ?}, {?}]>]>}");
  free(out);
}

Test(passes, user_priorities_go_in_order) {
  /* p0 on the first operand wins the result's dim 0 before p1 may use "a". */
  static const char text[] =
      "sdy.mesh @mesh = <[\"a\"=2, \"b\"=2]>\n"
      "func.func @main(%arg0: tensor<8x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{\"b\"}p0, {?}]>},\n"
      "                %arg1: tensor<8x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{\"a\"}p1, {?}]>}) -> "
      "tensor<8x8xf32> {\n"
      "  %0 = stablehlo.add %arg0, %arg1 : tensor<8x8xf32>\n"
      "  return %0 : tensor<8x8xf32>\n"
      "}\n";
  diags d;
  char *out = run_pass(text, shard_pass_user_priority_propagate, NULL, &d);
  cr_expect_eq(d.errors, 0, "%s", d.text);
  expect_contains(out,
                  "stablehlo.add %arg0, %arg1 {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{\"b\", ?}, {?}]>]>}");
  expect_contains(out, "%arg1: tensor<8x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{\"a\"}, {?}]>}");
  free(out);
}

Test(passes, rejects_dynamic_shapes) {
  static const char text[] = "func.func @main(%arg0: tensor<?xf32>) -> tensor<?xf32> {\n"
                             "  %0 = stablehlo.abs %arg0 : tensor<?xf32>\n"
                             "  return %0 : tensor<?xf32>\n"
                             "}\n";
  diags d;
  char *out = run_pass(text, shard_pass_basic_propagate, NULL, &d);
  cr_expect_eq(d.errors, 1);
  expect_contains(out, "Shardy propagation only supports ranked tensors with a static shape. type: tensor<?xf32>");
  free(out);
}

Test(passes, unknown_option) {
  diags d;
  char *out = run_pass(simple_module, shard_pass_aggressive_propagate, "propagation-strategy=fancy", &d);
  cr_expect_eq(d.errors, 1);
  free(out);
}

/* A chain of 20000 adds: one visit per op plus one per change, so this is fast. */
Test(passes, long_chain_is_linear, .timeout = 20) {
  enum { N = 20000 };
  size_t cap = (size_t)N * 80 + 1024;
  char *text = malloc(cap);
  size_t len = (size_t)snprintf(
      text, cap,
      "sdy.mesh @mesh = <[\"a\"=2]>\n"
      "func.func @main(%%arg0: tensor<8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{\"a\"}]>}) -> tensor<8xf32> {\n"
      "  %%v0 = stablehlo.negate %%arg0 : tensor<8xf32>\n");
  for (int i = 1; i < N; i++)
    len += (size_t)snprintf(text + len, cap - len, "  %%v%d = stablehlo.negate %%v%d : tensor<8xf32>\n", i, i - 1);
  snprintf(text + len, cap - len, "  return %%v%d : tensor<8xf32>\n}\n", N - 1);
  diags d;
  char *out = run_pass(text, shard_pass_basic_propagate, NULL, &d);
  expect_contains(out, "-> (tensor<8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{\"a\", ?}]>})");
  free(out);
  free(text);
}

/* ---- the pass context ------------------------------------------------------------ */

/* Rules and observers travel in the context a caller gives the pass, not in
 * process-wide state: a module run with rules for `my.gelu` propagates
 * through it and tells its observer, while a module run between with a bare
 * context stays a barrier and tells nobody. */
static void count_step(void *ctx, const shard_propagation_step *step) {
  (void)step;
  (*(unsigned *)ctx)++;
}

/* The rules a caller declares: `my.gelu` is elementwise. */
static shard_op_sharding_rule *gelu_rule(void *ctx, shard_arena *a, const shard_op *op) {
  (void)ctx;
  if (strcmp(op->name, "my.gelu") != 0) return NULL;
  shard_rule_builder *b = shard_rule_builder_for_op(op);
  shard_rule_builder_add_dim(b, 0, 8, SHARD_FACTOR_PASS_THROUGH, false);
  shard_op_sharding_rule *r = shard_rule_builder_build(b, a);
  shard_rule_builder_free(b);
  return r;
}

static shard_module *parse_text(const char *text, shard_source *src, shard_diag_engine *de) {
  *src = (shard_source){.name = "test.mlir", .text = text, .len = strlen(text)};
  shard_parse_options popts = {.allow_unregistered = true};
  return shard_parse_module(src, &popts, de);
}

Test(pass_context, rules_and_observer_are_per_call) {
  static const char *module =
      "sdy.mesh @mesh = <[\"x\"=2]>\n"
      "func.func @main(%arg0: tensor<8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{\"x\"}]>}) -> tensor<8xf32> {\n"
      "  %0 = \"my.gelu\"(%arg0) : (tensor<8xf32>) -> tensor<8xf32>\n"
      "  return %0 : tensor<8xf32>\n"
      "}\n";
  diags d = {0};
  shard_diag_engine de;
  shard_diag_init(&de, collect, &d);
  shard_rule_provider rules = {gelu_rule, NULL};
  unsigned steps = 0;
  shard_propagation_observer observer = {count_step, &steps};
  shard_pass_context with = {.de = &de, .observer = &observer, .rules = &rules};

  shard_source s1, s2;
  shard_module *m1 = parse_text(module, &s1, &de), *m2 = parse_text(module, &s2, &de);
  cr_assert(m1 && m2, "%s", d.text);
  cr_assert(shard_pass_aggressive_propagate(m1, NULL, &with), "%s", d.text);
  unsigned after_first = steps;
  cr_assert(shard_pass_aggressive_propagate(m2, NULL, SHARD_PASS_CONTEXT(&de)), "%s", d.text);
  cr_expect_gt(after_first, 0u, "the observer given in the context saw no step");
  cr_expect_eq(steps, after_first, "a run without an observer in its context was observed");

  shard_buf b1, b2;
  shard_buf_init(&b1);
  shard_buf_init(&b2);
  shard_print_module(&b1, m1, NULL);
  shard_print_module(&b2, m2, NULL);
  expect_contains(shard_buf_str(&b1),
                  "\"my.gelu\"(%arg0) {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{\"x\", ?}]>]>}");
  cr_expect(strstr(shard_buf_str(&b2), "#sdy.sharding_per_value") == NULL, "no rules in the context, yet:\n%s",
            shard_buf_str(&b2));
  shard_buf_free(&b1);
  shard_buf_free(&b2);
  shard_module_free(m1);
  shard_module_free(m2);
}
