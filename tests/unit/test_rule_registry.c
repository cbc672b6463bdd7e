/* The op sharding rule registry (rule_registry*.c), its builder
 * (rule_builder.c) and -sdy-populate-op-sharding-rules: rules are checked by
 * their printed form, which is exactly what sdy_opt prints. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "pass/pass.h"
#include "rules/rule_builder.h"
#include "rules/rule_registry.h"
#include "rules/rule_registry_internal.h"
#include "sdy_testing.h"

static char *rule_str(const shard_op_sharding_rule *r) {
  shard_buf b;
  shard_buf_init(&b);
  if (r) shard_rule_print(&b, r);
  else shard_buf_puts(&b, "<none>");
  return shard_buf_take(&b);
}

/* ---- builder --------------------------------------------------------------- */

Test(rule_builder, empty_dims_get_fresh_size_one_factors) {
  uint32_t in_ranks[] = {2, 0}, out_ranks[] = {3};
  shard_rule_builder *b = shard_rule_builder_new(2, in_ranks, 1, out_ranks);
  shard_rule_builder_add(b, (int64_t[]){0, SHARD_NULL_DIM}, (int64_t[]){2}, 8, SHARD_FACTOR_PASS_THROUGH, false);
  shard_arena *a = shard_arena_new();
  char *t = rule_str(shard_rule_builder_build(b, a));
  /* Operand dim 1, then result dims 0 and 1, get j, k, l of size 1. */
  cr_expect_str_eq(t, "<([i, j], [])->([k, l, i]) {i=8, j=1, k=1, l=1}>");
  free(t);
  /* Building again gives the same rule: the builder itself is unchanged. */
  t = rule_str(shard_rule_builder_build(b, a));
  cr_expect_str_eq(t, "<([i, j], [])->([k, l, i]) {i=8, j=1, k=1, l=1}>");
  free(t);
  shard_rule_builder_free(b);
  shard_arena_free(a);
}

Test(rule_builder, kinds_compound_dims_and_size_one_skip) {
  uint32_t ranks[] = {1};
  shard_rule_builder *b = shard_rule_builder_new(1, ranks, 1, ranks);
  shard_rule_builder_add_io(b, 0, 0, 4, SHARD_FACTOR_REDUCTION, false);
  shard_rule_builder_add_io(b, 0, SHARD_NULL_DIM, 2, SHARD_FACTOR_NEED_REPLICATION, true);
  /* A size-1 factor is not appended to a dim that already has factors. */
  shard_rule_builder_add_io(b, 0, 0, 1, SHARD_FACTOR_PERMUTATION, false);
  shard_arena *a = shard_arena_new();
  char *t = rule_str(shard_rule_builder_build(b, a));
  cr_expect_str_eq(t, "<([ij])->([i]) {i=4, j=2, k=1} reduction={i} need_replication={j} permutation={k} "
                      "blocked_propagation={j}>");
  free(t);
  shard_rule_builder_free(b);
  shard_arena_free(a);
}

Test(rule_builder, add_dim_skips_scalars) {
  uint32_t in_ranks[] = {2, 0, 2}, out_ranks[] = {2};
  shard_rule_builder *b = shard_rule_builder_new(3, in_ranks, 1, out_ranks);
  shard_rule_builder_add_dim(b, 0, 3, SHARD_FACTOR_PASS_THROUGH, false);
  shard_rule_builder_add_dim(b, 1, 5, SHARD_FACTOR_PASS_THROUGH, false);
  shard_arena *a = shard_arena_new();
  char *t = rule_str(shard_rule_builder_build(b, a));
  cr_expect_str_eq(t, "<([i, j], [], [i, j])->([i, j]) {i=3, j=5}>");
  free(t);
  shard_rule_builder_free(b);
  shard_arena_free(a);
}

/* ---- registry, over parsed modules ------------------------------------------- */

typedef struct parsed {
  shard_source src;
  shard_module *module;
  sdy_diags diags;
} parsed;

static void parse(parsed *p, const char *text) {
  memset(p, 0, sizeof *p);
  p->src.name = "test.mlir";
  p->src.text = text;
  p->src.len = strlen(text);
  shard_diag_engine de;
  shard_diag_init(&de, sdy_collect, &p->diags);
  p->module = shard_parse_module(&p->src, NULL, &de);
  cr_assert_not_null(p->module, "parse failed:\n%s", p->diags.text);
}

typedef struct find_ctx {
  const char *name;
  shard_op *found;
} find_ctx;

static bool find_fn(shard_op *op, void *ctx) {
  find_ctx *c = ctx;
  if (strcmp(op->name, c->name) != 0) return true;
  c->found = op;
  return false;
}

static shard_op *find_op(parsed *p, const char *name) {
  find_ctx c = {name, NULL};
  shard_walk(p->module->top, find_fn, &c);
  cr_assert_not_null(c.found, "no %s", name);
  return c.found;
}

/* The rule created for the first op named `name` in the function `body`. */
static char *rule_of(const char *func, const char *name, bool conservative) {
  parsed p;
  parse(&p, func);
  char *t = rule_str(shard_rule_create(p.module->arena, find_op(&p, name), conservative, NULL));
  shard_module_free(p.module);
  return t;
}

Test(rule_registry, dot_general_batching_and_contracting) {
  char *t = rule_of("func.func @f(%a: tensor<4x8x32xf32>, %b: tensor<4x32x16xf32>) -> tensor<4x8x16xf32> {\n"
                    "  %0 = stablehlo.dot_general %a, %b, batching_dims = [0] x [0], contracting_dims = [2] x [1]"
                    " : (tensor<4x8x32xf32>, tensor<4x32x16xf32>) -> tensor<4x8x16xf32>\n"
                    "  return %0 : tensor<4x8x16xf32>\n}\n",
                    "stablehlo.dot_general", false);
  cr_expect_str_eq(t, "<([i, j, l], [i, l, k])->([i, j, k]) {i=4, j=8, k=16, l=32} reduction={l}>");
  free(t);
}

Test(rule_registry, dot_general_generic_form_without_batching) {
  char *t = rule_of("func.func @f(%a: tensor<8x32xf32>, %b: tensor<16x32xf32>) -> tensor<8x16xf32> {\n"
                    "  %0 = \"stablehlo.dot_general\"(%a, %b) {dot_dimension_numbers = #stablehlo.dot<"
                    "lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1]>}"
                    " : (tensor<8x32xf32>, tensor<16x32xf32>) -> tensor<8x16xf32>\n"
                    "  return %0 : tensor<8x16xf32>\n}\n",
                    "stablehlo.dot_general", false);
  cr_expect_str_eq(t, "<([i, k], [j, k])->([i, j]) {i=8, j=16, k=32} reduction={k}>");
  free(t);
}

static char *reshape_rule(const char *in, const char *out) {
  char text[512];
  snprintf(text, sizeof text,
           "func.func @f(%%a: tensor<%s>) -> tensor<%s> {\n"
           "  %%0 = stablehlo.reshape %%a : (tensor<%s>) -> tensor<%s>\n"
           "  return %%0 : tensor<%s>\n}\n",
           in, out, in, out, out);
  return rule_of(text, "stablehlo.reshape", false);
}

Test(rule_registry, reshape_compound_factors) {
  const struct {
    const char *in, *out, *rule;
  } cases[] = {
      {"2x4xf32", "8xf32", "<([i, j])->([ij]) {i=2, j=4}>"},
      {"8x4x5xf32", "2x16x5xf32", "<([ij, k, l])->([i, jk, l]) {i=2, j=4, k=4, l=5}>"},
      /* A common divisor splits both swapped dims: i (2) is shared, so a
       * sharding of the input's major dim on a sub-axis of size 2 moves over. */
      {"6x4xf32", "4x6xf32", "<([ij, mn])->([ik, ln]) {i=2, j=3, k=2, l=3, m=2, n=2}>"},
      {"3x2xf32", "2x3xf32", "<([i, l])->([j, k]) {i=3, j=2, k=3, l=2}>"},
      {"32xf32", "8x1x4xf32", "<([ik])->([i, j, k]) {i=8, j=1, k=4}>"},
      {"1x1xf32", "f32", "<([i, j])->([]) {i=1, j=1}>"},
      /* Zero elements: no rule at all. */
      {"4x0xf32", "0x8xf32", "<none>"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    char *t = reshape_rule(cases[i].in, cases[i].out);
    cr_expect_str_eq(t, cases[i].rule, "%s -> %s", cases[i].in, cases[i].out);
    free(t);
  }
}

static const char *const S_concat =
    "func.func @f(%a: tensor<4x3x256xf32>, %b: tensor<4x5x256xf32>) -> tensor<4x8x256xf32> {\n"
    "  %0 = stablehlo.concatenate %a, %b, dim = 1 : (tensor<4x3x256xf32>, tensor<4x5x256xf32>) -> tensor<4x8x256xf32>\n"
    "  return %0 : tensor<4x8x256xf32>\n}\n";

Test(rule_registry, concatenate_conservative_drops_concat_dim) {
  char *t = rule_of(S_concat, "stablehlo.concatenate", false);
  cr_expect_str_eq(t, "<([i, j, k], [i, j, k])->([i, j, k]) {i=4, j=8, k=256} need_replication={j}>");
  free(t);
  t = rule_of(S_concat, "stablehlo.concatenate", true);
  cr_expect_str_eq(t, "<([i, k, j], [i, l, j])->([i, m, j]) {i=4, j=256, k=1, l=1, m=1}>");
  free(t);
}

Test(rule_registry, gather_and_conv_raw_dimension_numbers) {
  char *t =
      rule_of("func.func @f(%a: tensor<3x4x2x5xf32>, %i: tensor<2x3x3xi64>) -> tensor<2x3x2x2x1xf32> {\n"
              "  %0 = \"stablehlo.gather\"(%a, %i) {dimension_numbers = #stablehlo.gather<offset_dims = [2, 3, 4],"
              " collapsed_slice_dims = [0], start_index_map = [1, 0, 3], index_vector_dim = 2>,"
              " slice_sizes = array<i64: 1, 2, 2, 1>, indices_are_sorted = false}"
              " : (tensor<3x4x2x5xf32>, tensor<2x3x3xi64>) -> tensor<2x3x2x2x1xf32>\n"
              "  return %0 : tensor<2x3x2x2x1xf32>\n}\n",
              "stablehlo.gather", false);
  cr_expect_str_eq(t, "<([o, k, l, m], [i, j, p])->([i, j, k, l, n]) {i=2, j=3, k=4, l=2, m=5, n=1, o=3, p=3} "
                      "reduction={m, o} need_replication={k, n, p} blocked_propagation={k}>");
  free(t);
  t = rule_of("func.func @f(%a: tensor<2x224x224x192xf32>, %k: tensor<3x3x192x64xf32>) -> tensor<2x112x112x64xf32> {\n"
              "  %0 = stablehlo.convolution(%a, %k) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f],"
              " window = {stride = [2, 2], pad = [[0, 1], [0, 1]]} {batch_group_count = 1 : i64,"
              " feature_group_count = 1 : i64} : (tensor<2x224x224x192xf32>, tensor<3x3x192x64xf32>)"
              " -> tensor<2x112x112x64xf32>\n"
              "  return %0 : tensor<2x112x112x64xf32>\n}\n",
              "stablehlo.convolution", false);
  cr_expect_str_eq(t, "<([i, jk, lm, n], [k, m, n, o])->([i, j, l, o]) {i=2, j=112, k=2, l=112, m=2, n=192, o=64} "
                      "reduction={k, m, n} permutation={j, l}>");
  free(t);
}

Test(rule_registry, scalar_pointwise_and_ops_without_rules) {
  static const char *const text = "func.func @f(%a: tensor<f32>) -> tensor<4xi32> {\n"
                                  "  %0 = stablehlo.add %a, %a : tensor<f32>\n"
                                  "  %1 = stablehlo.iota dim = 0 : tensor<4xi32>\n"
                                  "  return %1 : tensor<4xi32>\n}\n";
  char *t = rule_of(text, "stablehlo.add", false);
  cr_expect_str_eq(t, "<([], [])->([])>");
  free(t);
  t = rule_of(text, "stablehlo.iota", false);
  cr_expect_str_eq(t, "<none>");
  free(t);
}

Test(rule_registry, existing_rule_wins_and_unknown_messages) {
  parsed p;
  parse(&p, "func.func @f(%a: tensor<4x2xf32>) -> tensor<2x4xf32> {\n"
            "  %0 = stablehlo.custom_call @foo(%a) {sdy.sharding_rule = #sdy.op_sharding_rule<([i, j])->([j, i])"
            " {i=4, j=2}, custom>} : (tensor<4x2xf32>) -> tensor<2x4xf32>\n"
            "  %1 = stablehlo.custom_call @bar(%0) : (tensor<2x4xf32>) -> tensor<2x4xf32>\n"
            "  return %1 : tensor<2x4xf32>\n}\n");
  shard_op *foo = find_op(&p, "stablehlo.custom_call");
  shard_op *bar = foo->next, *ret = bar->next;
  char *t = rule_str(shard_rule_for_op(p.module->arena, foo, false, NULL));
  cr_expect_str_eq(t, "<([i, j])->([j, i]) {i=4, j=2}, custom>");
  free(t);
  cr_expect_null(shard_rule_create(p.module->arena, foo, false, NULL));
  cr_expect_null(shard_rule_for_op(p.module->arena, bar, false, NULL));
  shard_buf b;
  shard_buf_init(&b);
  cr_expect(shard_rule_unknown_message(bar, &b));
  cr_expect_str_eq(shard_buf_str(&b), "custom call @bar is unknown to SDY sharding rule registry");
  shard_buf_free(&b);
  shard_buf_init(&b);
  cr_expect_not(shard_rule_unknown_message(ret, &b), "terminators are known");
  cr_expect_not(shard_rule_unknown_message(p.module->top, &b), "so is the module");
  shard_buf_free(&b);
  shard_module_free(p.module);
}

/* The registry is binary searched: every entry must be found, whatever its
 * place in the table (a name out of order would hide its neighbours). */
Test(rule_registry, every_registered_name_is_found) {
  static const char *const names[] = {"builtin.module",
                                      "func.call",
                                      "func.func",
                                      "sdy.constant",
                                      "sdy.data_flow_edge",
                                      "sdy.func_data_flow_edge",
                                      "sdy.manual_computation",
                                      "sdy.mesh",
                                      "sdy.named_computation",
                                      "sdy.propagation_barrier",
                                      "sdy.reshard",
                                      "sdy.sharding_constraint",
                                      "sdy.sharding_group",
                                      "stablehlo.abs",
                                      "stablehlo.add",
                                      "stablehlo.after_all",
                                      "stablehlo.all_gather",
                                      "stablehlo.all_reduce",
                                      "stablehlo.all_to_all",
                                      "stablehlo.and",
                                      "stablehlo.atan2",
                                      "stablehlo.batch_norm_inference",
                                      "stablehlo.bitcast_convert",
                                      "stablehlo.broadcast_in_dim",
                                      "stablehlo.case",
                                      "stablehlo.cbrt",
                                      "stablehlo.ceil",
                                      "stablehlo.cholesky",
                                      "stablehlo.clamp",
                                      "stablehlo.collective_broadcast",
                                      "stablehlo.collective_permute",
                                      "stablehlo.compare",
                                      "stablehlo.complex",
                                      "stablehlo.concatenate",
                                      "stablehlo.constant",
                                      "stablehlo.convert",
                                      "stablehlo.convolution",
                                      "stablehlo.cosine",
                                      "stablehlo.count_leading_zeros",
                                      "stablehlo.create_token",
                                      "stablehlo.cross-replica-sum",
                                      "stablehlo.divide",
                                      "stablehlo.dot",
                                      "stablehlo.dot_general",
                                      "stablehlo.dynamic_slice",
                                      "stablehlo.dynamic_update_slice",
                                      "stablehlo.exponential",
                                      "stablehlo.exponential_minus_one",
                                      "stablehlo.fft",
                                      "stablehlo.floor",
                                      "stablehlo.gather",
                                      "stablehlo.get_tuple_element",
                                      "stablehlo.imag",
                                      "stablehlo.infeed",
                                      "stablehlo.iota",
                                      "stablehlo.is_finite",
                                      "stablehlo.log",
                                      "stablehlo.log_plus_one",
                                      "stablehlo.logistic",
                                      "stablehlo.maximum",
                                      "stablehlo.minimum",
                                      "stablehlo.multiply",
                                      "stablehlo.negate",
                                      "stablehlo.not",
                                      "stablehlo.optimization_barrier",
                                      "stablehlo.or",
                                      "stablehlo.outfeed",
                                      "stablehlo.pad",
                                      "stablehlo.partition_id",
                                      "stablehlo.popcnt",
                                      "stablehlo.power",
                                      "stablehlo.real",
                                      "stablehlo.recv",
                                      "stablehlo.reduce",
                                      "stablehlo.reduce_precision",
                                      "stablehlo.reduce_scatter",
                                      "stablehlo.reduce_window",
                                      "stablehlo.remainder",
                                      "stablehlo.reshape",
                                      "stablehlo.reverse",
                                      "stablehlo.rng_bit_generator",
                                      "stablehlo.round_nearest_afz",
                                      "stablehlo.round_nearest_even",
                                      "stablehlo.rsqrt",
                                      "stablehlo.scatter",
                                      "stablehlo.select",
                                      "stablehlo.select_and_scatter",
                                      "stablehlo.send",
                                      "stablehlo.shift_left",
                                      "stablehlo.shift_right_arithmetic",
                                      "stablehlo.shift_right_logical",
                                      "stablehlo.sign",
                                      "stablehlo.sine",
                                      "stablehlo.slice",
                                      "stablehlo.sort",
                                      "stablehlo.sqrt",
                                      "stablehlo.subtract",
                                      "stablehlo.tan",
                                      "stablehlo.tanh",
                                      "stablehlo.transpose",
                                      "stablehlo.triangular_solve",
                                      "stablehlo.while",
                                      "stablehlo.xor"};
  shard_arena *a = shard_arena_new();
  shard_buf b;
  shard_buf_init(&b);
  for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
    shard_op *op = shard_op_create(a, names[i], 0, NULL, 0, NULL, 0);
    cr_expect_not(shard_rule_unknown_message(op, &b), "%s not found", names[i]);
  }
  shard_op *unknown = shard_op_create(a, "stablehlo.not_an_op", 0, NULL, 0, NULL, 0);
  cr_expect(shard_rule_unknown_message(unknown, &b));
  shard_buf_free(&b);
  shard_arena_free(a);
}

Test(rule_registry, populate_pass_sets_rules_and_warns_once) {
  parsed p;
  parse(&p, "func.func @f(%a: tensor<8xf32>) -> tensor<8xf32> {\n"
            "  %0 = stablehlo.negate %a : tensor<8xf32>\n"
            "  %1 = stablehlo.broadcast %0, sizes = [2] : (tensor<8xf32>) -> tensor<2x8xf32>\n"
            "  %2 = stablehlo.broadcast %0, sizes = [3] : (tensor<8xf32>) -> tensor<3x8xf32>\n"
            "  return %0 : tensor<8xf32>\n}\n");
  sdy_diags diags = {0};
  shard_diag_engine de;
  shard_diag_init(&de, sdy_collect, &diags);
  cr_assert(shard_pass_populate_op_sharding_rules(p.module, "conservative-propagation=true", SHARD_PASS_CONTEXT(&de)));
  const shard_attr *r = shard_op_attr(find_op(&p, "stablehlo.negate"), "sdy.sharding_rule");
  cr_assert(r && r->kind == SHARD_ATTR_SDY_RULE);
  char *t = rule_str(r->u.rule);
  cr_expect_str_eq(t, "<([i])->([i]) {i=8}>");
  free(t);
  cr_expect_null(shard_op_attr(find_op(&p, "stablehlo.broadcast"), "sdy.sharding_rule"));
  cr_expect_eq(diags.count, 1, "%s", diags.text);
  cr_expect_str_eq(diags.text, "op 'stablehlo.broadcast' is unknown to SDY sharding rule registry\n");
  shard_module_free(p.module);
}

/* ---- typed attribute readers ------------------------------------------------------ */

Test(rule_registry_attr, gather_fields_decoded_once) {
  shard_arena *a = shard_arena_new();
  shard_attr *at =
      shard_attr_shlo_decode(a, "#stablehlo.gather<offset_dims = [3], start_indices_batching_dims = [1, 0],\n"
                                "  start_index_map = [1, 3], index_vector_dim = 3>");
  const shard_gather_dims *g = shard_attr_gather_dims(at);
  cr_assert_not_null(g);
  cr_expect(g->index_map.n == 2 && g->index_map.v[0] == 1 && g->index_map.v[1] == 3);
  cr_expect(g->indices_batching.n == 2 && g->indices_batching.v[0] == 1 && g->indices_batching.v[1] == 0);
  cr_expect_eq(g->collapsed.n, 0);
  cr_expect_eq(g->index_vector_dim, 3);
  cr_expect_null(shard_attr_scatter_dims(at));
  cr_expect_null(shard_attr_shlo_decode(a, "#stablehlo.gather<offset_dims = [3, x]>"));
  cr_expect_null(shard_attr_shlo_decode(a, "#stablehlo.gather<dims = [3]>"), "unknown field");
  shard_arena_free(a);
}

Test(rule_registry_attr, conv_dims_compact_and_long_forms) {
  shard_arena *a = shard_arena_new();
  const shard_conv_dims *c =
      shard_attr_conv_dims(shard_attr_shlo_decode(a, "#stablehlo.conv<[f, 1, b, 0]x[o, 0, 1, i]->[0, b, f, 1]>"));
  cr_assert_not_null(c);
  cr_expect(c->in_batch == 2 && c->in_feature == 0 && c->in_spatial.n == 2 && c->in_spatial.v[0] == 3 &&
            c->in_spatial.v[1] == 1);
  cr_expect(c->k_in_feature == 3 && c->k_out_feature == 0 && c->k_spatial.v[0] == 1 && c->k_spatial.v[1] == 2);
  cr_expect(c->out_batch == 1 && c->out_feature == 2 && c->out_spatial.v[0] == 0 && c->out_spatial.v[1] == 3);
  shard_attr *la = shard_attr_shlo_decode(
      a,
      "#stablehlo.conv<raw input_batch_dimension = 2, input_feature_dimension = 0, input_spatial_dimensions = [3, 1], "
      "kernel_input_feature_dimension = 3, kernel_output_feature_dimension = 0, kernel_spatial_dimensions = [1, 2], "
      "output_batch_dimension = 1, output_feature_dimension = 2, output_spatial_dimensions = [0, 3]>");
  const shard_conv_dims *l = shard_attr_conv_dims(la);
  cr_assert_not_null(l);
  cr_expect(l->in_batch == c->in_batch && l->k_out_feature == c->k_out_feature && l->out_spatial.v[1] == 3);
  /* the long form prints in StableHLO's compact spelling */
  shard_buf b;
  shard_buf_init(&b);
  shard_attr_print(&b, la);
  cr_expect_str_eq(shard_buf_str(&b), "#stablehlo.conv<[f, 1, b, 0]x[o, 0, 1, i]->[0, b, f, 1]>");
  shard_buf_free(&b);
  cr_expect_null(shard_attr_shlo_decode(a, "#stablehlo.conv<[b, 0, 0, f]x[0, 1, i, o]->[b, 0, 1, f]>"),
                 "spatial dim 0 twice");
  shard_arena_free(a);
}

/* ---- the rule cache of a propagation session ----------------------------------- */

/* The ops named `name` in order of appearance, up to 8. */
typedef struct all_ctx {
  const char *name;
  shard_op *ops[8];
  uint32_t n;
} all_ctx;

static bool all_fn(shard_op *op, void *ctx) {
  all_ctx *c = ctx;
  if (strcmp(op->name, c->name) == 0 && c->n < 8) c->ops[c->n++] = op;
  return true;
}

static all_ctx find_all(parsed *p, const char *name) {
  all_ctx c = {name, {0}, 0};
  shard_walk(p->module->top, all_fn, &c);
  return c;
}

Test(rule_cache, equal_ops_share_a_rule_and_others_do_not) {
  parsed p;
  parse(
      &p,
      "sdy.mesh @mesh = <[\"x\"=2]>\n"
      "func.func @f(%a: tensor<4x8xf32>, %b: tensor<8x4xf32>, %c: tensor<4x8xf32>) -> tensor<8x4xf32> {\n"
      "  %0 = stablehlo.transpose %a, dims = [1, 0] : (tensor<4x8xf32>) -> tensor<8x4xf32>\n"
      "  %1 = stablehlo.transpose %c, dims = [1, 0] {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{\"x\"}, {}]>]>}"
      " : (tensor<4x8xf32>) -> tensor<8x4xf32>\n"
      "  %2 = stablehlo.add %0, %1 : tensor<8x4xf32>\n"
      "  %3 = stablehlo.add %2, %b : tensor<8x4xf32>\n"
      "  %4 = stablehlo.add %a, %c : tensor<4x8xf32>\n"
      "  %5 = stablehlo.transpose %4, dims = [1, 0] : (tensor<4x8xf32>) -> tensor<8x4xf32>\n"
      "  %6 = stablehlo.reshape %5 : (tensor<8x4xf32>) -> tensor<32xf32>\n"
      "  %7 = stablehlo.reshape %6 : (tensor<32xf32>) -> tensor<8x4xf32>\n"
      "  return %7 : tensor<8x4xf32>\n}\n");
  shard_arena *a = p.module->arena;
  shard_rule_cache *c = shard_rule_cache_new(NULL);
  all_ctx tr = find_all(&p, "stablehlo.transpose"), add = find_all(&p, "stablehlo.add");
  all_ctx rs = find_all(&p, "stablehlo.reshape");
  cr_assert_eq(tr.n, 3);
  cr_assert_eq(add.n, 3);
  cr_assert_eq(rs.n, 2);
  /* Same types and permutation: one rule, whatever the sharding says. */
  const shard_op_sharding_rule *t0 = shard_rule_create_cached(c, a, tr.ops[0], false);
  cr_assert_not_null(t0);
  cr_expect_eq(shard_rule_create_cached(c, a, tr.ops[1], false), t0);
  cr_expect_eq(shard_rule_create_cached(c, a, tr.ops[2], false), t0);
  /* Equal types share; other types (the 4x8 add) get their own rule. */
  const shard_op_sharding_rule *a0 = shard_rule_create_cached(c, a, add.ops[0], false);
  cr_expect_eq(shard_rule_create_cached(c, a, add.ops[1], false), a0);
  const shard_op_sharding_rule *a2 = shard_rule_create_cached(c, a, add.ops[2], false);
  cr_expect_neq(a2, a0);
  char *t = rule_str(a2), *u = rule_str(shard_rule_create(a, add.ops[2], false, NULL));
  cr_expect_str_eq(t, u);
  free(t);
  free(u);
  /* Reshapes the other way round are different keys and different rules. */
  const shard_op_sharding_rule *r0 = shard_rule_create_cached(c, a, rs.ops[0], false);
  const shard_op_sharding_rule *r1 = shard_rule_create_cached(c, a, rs.ops[1], false);
  cr_expect_neq(r0, r1);
  t = rule_str(r1);
  u = rule_str(shard_rule_create(a, rs.ops[1], false, NULL));
  cr_expect_str_eq(t, u);
  free(t);
  free(u);
  shard_rule_cache_free(c);
  shard_module_free(p.module);
}

Test(rule_cache, a_different_attribute_or_an_edited_op_misses) {
  parsed p;
  parse(&p, "func.func @f(%a: tensor<4x4xf32>) -> tensor<4x4xf32> {\n"
            "  %0 = stablehlo.transpose %a, dims = [1, 0] : (tensor<4x4xf32>) -> tensor<4x4xf32>\n"
            "  %1 = stablehlo.transpose %0, dims = [0, 1] : (tensor<4x4xf32>) -> tensor<4x4xf32>\n"
            "  %2 = stablehlo.transpose %1, dims = [1, 0] : (tensor<4x4xf32>) -> tensor<4x4xf32>\n"
            "  return %2 : tensor<4x4xf32>\n}\n");
  shard_arena *a = p.module->arena;
  shard_rule_cache *c = shard_rule_cache_new(NULL);
  all_ctx tr = find_all(&p, "stablehlo.transpose");
  cr_assert_eq(tr.n, 3);
  const shard_op_sharding_rule *r0 = shard_rule_create_cached(c, a, tr.ops[0], false);
  const shard_op_sharding_rule *r1 = shard_rule_create_cached(c, a, tr.ops[1], false);
  cr_expect_neq(r0, r1, "permutation [0, 1] must not reuse the rule of [1, 0]");
  char *t = rule_str(r0), *u = rule_str(r1);
  cr_expect_str_neq(t, u);
  free(t);
  free(u);
  /* The cache keeps its own copy of the key: editing the first op's
   * permutation afterwards leaves the third op (still [1, 0]) on r0, and the
   * edited op finds the rule of [0, 1]. */
  int64_t perm[] = {0, 1};
  shard_op_set_attr(a, tr.ops[0], "permutation", shard_attr_dense_i64(a, perm, 2), true);
  cr_expect_eq(shard_rule_create_cached(c, a, tr.ops[2], false), r0);
  cr_expect_eq(shard_rule_create_cached(c, a, tr.ops[0], false), r1);
  shard_rule_cache_free(c);
  shard_module_free(p.module);
}

Test(rule_cache, rules_that_read_defining_ops_are_not_shared) {
  parsed p;
  parse(&p, "func.func @f(%a: tensor<8xf32>, %u: tensor<2xf32>, %i: tensor<i32>) -> tensor<8xf32> {\n"
            "  %c = stablehlo.constant dense<0> : tensor<i32>\n"
            "  %0 = stablehlo.dynamic_update_slice %a, %u, %c : (tensor<8xf32>, tensor<2xf32>, tensor<i32>) -> "
            "tensor<8xf32>\n"
            "  %1 = stablehlo.dynamic_update_slice %0, %u, %i : (tensor<8xf32>, tensor<2xf32>, tensor<i32>) -> "
            "tensor<8xf32>\n"
            "  return %1 : tensor<8xf32>\n}\n");
  shard_arena *a = p.module->arena;
  shard_rule_cache *c = shard_rule_cache_new(NULL);
  all_ctx d = find_all(&p, "stablehlo.dynamic_update_slice");
  cr_assert_eq(d.n, 2);
  /* Same types, but a constant index and an argument index make different
   * rules: the cache must not hand the first one out again. */
  char *t0 = rule_str(shard_rule_create_cached(c, a, d.ops[0], false));
  char *t1 = rule_str(shard_rule_create_cached(c, a, d.ops[1], false));
  char *u1 = rule_str(shard_rule_create(a, d.ops[1], false, NULL));
  cr_expect_str_eq(t1, u1);
  cr_expect_str_neq(t0, t1);
  free(t0);
  free(t1);
  free(u1);
  shard_rule_cache_free(c);
  shard_module_free(p.module);
}
