/* Op sharding rules: factor symbols, printing (rule.c) and parsing with
 * Shardy's error messages (sdy_parse.c). */
#include <criterion/criterion.h>
#include <stdlib.h>

#include "sdy_testing.h"
#include "sdy/sharding.h"

static char *symbol_str(int64_t f) {
  shard_buf b;
  shard_buf_init(&b);
  shard_rule_factor_symbol(&b, f);
  return shard_buf_take(&b);
}

Test(rule, factor_symbols) {
  const struct {
    int64_t f;
    const char *text;
  } cases[] = {{0, "i"}, {1, "j"}, {2, "k"}, {16, "y"}, {17, "z"}, {18, "z_1"}, {19, "z_2"}, {27, "z_10"}};
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    char *t = symbol_str(cases[i].f);
    cr_expect_str_eq(t, cases[i].text, "factor %lld", (long long)cases[i].f);
    free(t);
  }
}

static char *rule_str(const shard_op_sharding_rule *r) {
  shard_buf b;
  shard_buf_init(&b);
  shard_rule_print(&b, r);
  return shard_buf_take(&b);
}

Test(rule, print_dot_rule) {
  int64_t fi[] = {0}, fj[] = {1}, fk[] = {2};
  shard_dim_mapping ik[] = {{fi, 1}, {fk, 1}}, kj[] = {{fk, 1}, {fj, 1}}, ij[] = {{fi, 1}, {fj, 1}};
  shard_tensor_mapping operands[] = {{ik, 2}, {kj, 2}}, results[] = {{ij, 2}};
  int64_t sizes[] = {8, 16, 32}, reduction[] = {2};
  shard_op_sharding_rule r = {.operands = operands,
                              .num_operands = 2,
                              .results = results,
                              .num_results = 1,
                              .factor_sizes = sizes,
                              .num_factors = 3,
                              .reduction = reduction,
                              .num_reduction = 1};
  char *t = rule_str(&r);
  cr_expect_str_eq(t, "<([i, k], [k, j])->([i, j]) {i=8, j=16, k=32} reduction={k}>");
  free(t);
}

Test(rule, print_all_clauses_and_custom) {
  int64_t f0[] = {0}, f1[] = {1}, f2[] = {2}, f3[] = {3};
  shard_dim_mapping in[] = {{f0, 1}, {f1, 1}, {f2, 1}, {f3, 1}}, out[] = {{f0, 1}, {f2, 1}, {f3, 1}};
  shard_tensor_mapping operands[] = {{in, 4}}, results[] = {{out, 3}};
  int64_t sizes[] = {2, 3, 5, 7}, red[] = {1}, need[] = {0, 3}, perm[] = {2}, blocked[] = {3};
  shard_op_sharding_rule r = {.operands = operands,
                              .num_operands = 1,
                              .results = results,
                              .num_results = 1,
                              .factor_sizes = sizes,
                              .num_factors = 4,
                              .reduction = red,
                              .num_reduction = 1,
                              .need_replication = need,
                              .num_need_replication = 2,
                              .permutation = perm,
                              .num_permutation = 1,
                              .blocked_propagation = blocked,
                              .num_blocked_propagation = 1,
                              .is_custom = true};
  char *t = rule_str(&r);
  cr_expect_str_eq(t, "<([i, j, k, l])->([i, k, l]) {i=2, j=3, k=5, l=7} reduction={j} "
                      "need_replication={i, l} permutation={k} blocked_propagation={l}, custom>");
  free(t);
}

Test(rule, print_empty_and_compound) {
  shard_tensor_mapping empties[] = {{NULL, 0}, {NULL, 0}};
  shard_op_sharding_rule e = {.operands = empties, .num_operands = 2, .results = empties, .num_results = 1};
  char *t = rule_str(&e);
  cr_expect_str_eq(t, "<([], [])->([])>");
  free(t);

  int64_t i[] = {0}, j[] = {1}, ij_f[] = {0, 1}, zz[] = {17, 18};
  shard_dim_mapping in[] = {{i, 1}, {j, 1}}, out[] = {{ij_f, 2}}, big[] = {{zz, 2}};
  shard_tensor_mapping operands[] = {{in, 2}}, results[] = {{out, 1}, {big, 1}};
  int64_t sizes[] = {2, 4};
  shard_op_sharding_rule r = {.operands = operands,
                              .num_operands = 1,
                              .results = results,
                              .num_results = 2,
                              .factor_sizes = sizes,
                              .num_factors = 2};
  t = rule_str(&r);
  cr_expect_str_eq(t, "<([i, j])->([ij], [zz_1]) {i=2, j=4}>");
  free(t);
}

#define EXPECT_ROUNDTRIP(in, want)                                                                                     \
  do {                                                                                                                 \
    char *got_ = sdy_roundtrip(in);                                                                                    \
    cr_expect_str_eq(got_, want);                                                                                      \
    free(got_);                                                                                                        \
  } while (0)

Test(rule_parse, roundtrips) {
  EXPECT_ROUNDTRIP("#sdy.op_sharding_rule<([], [])->([])>", "#sdy.op_sharding_rule<([], [])->([])>");
  EXPECT_ROUNDTRIP("#sdy.op_sharding_rule<([i, j],[j, k])->([i, k]) {i=8, j=4, k=16} reduction={j}>",
                   "#sdy.op_sharding_rule<([i, j], [j, k])->([i, k]) {i=8, j=4, k=16} reduction={j}>");
  EXPECT_ROUNDTRIP("#sdy.op_sharding_rule<([i, j])->([ij]) {i=2, j=4}>",
                   "#sdy.op_sharding_rule<([i, j])->([ij]) {i=2, j=4}>");
  EXPECT_ROUNDTRIP("#sdy.op_sharding_rule<([i, j])->([i, j]) {i=16, j=32}, custom>",
                   "#sdy.op_sharding_rule<([i, j])->([i, j]) {i=16, j=32}, custom>");
  const char *all = "#sdy.op_sharding_rule<([i, j, k, l])->([i, k, l]) {i=2, j=3, k=5, l=7} reduction={j} "
                    "need_replication={i, l} permutation={k} blocked_propagation={l}>";
  EXPECT_ROUNDTRIP(all, all);
  EXPECT_ROUNDTRIP("#sdy.op_sharding_rule<([z_1z_2, z])->([zz_1z_2]) {i=1, j=1, k=1, l=1, m=1, n=1, o=1, "
                   "p=1, q=1, r=1, s=1, t=1, u=1, v=1, w=1, x=1, y=1, z=1, z_1=2, z_2=3}>",
                   "#sdy.op_sharding_rule<([z_1z_2, z])->([zz_1z_2]) {i=1, j=1, k=1, l=1, m=1, n=1, o=1, "
                   "p=1, q=1, r=1, s=1, t=1, u=1, v=1, w=1, x=1, y=1, z=1, z_1=2, z_2=3}>");
}

Test(rule_parse, model) {
  sdy_parsed r;
  sdy_parse_attr(&r, "#sdy.op_sharding_rule<([i, jz_2])->([ij]) {i=2, j=4} reduction={j}, custom>");
  cr_assert_not_null(r.attr, "%s", r.diags.text);
  cr_assert_eq(r.attr->kind, SHARD_ATTR_SDY_RULE);
  const shard_op_sharding_rule *rule = r.attr->u.rule;
  cr_assert_eq(rule->num_operands, 1);
  cr_assert_eq(rule->operands[0].rank, 2);
  cr_assert_eq(rule->operands[0].dims[1].num_factors, 2);
  cr_expect_eq(rule->operands[0].dims[1].factors[0], 1);
  cr_expect_eq(rule->operands[0].dims[1].factors[1], 19, "z_2 is factor 17 + 2");
  cr_expect_eq(rule->num_factors, 2);
  cr_expect_eq(rule->factor_sizes[1], 4);
  cr_expect_eq(rule->num_reduction, 1);
  cr_expect(rule->is_custom);
  sdy_parsed_free(&r);
}

static void expect_errors(const char *rule, const char *want) {
  char *e = sdy_errors(rule);
  cr_expect_str_eq(e, want, "for %s", rule);
  free(e);
}

#define TM_FAIL                                                                                                        \
  "failed to parse Sdy_TensorMapping parameter 'dim_mappings' which is to be a `::llvm::ArrayRef<DimMappingAttr>`\n"
#define OPS_FAIL                                                                                                       \
  "failed to parse Sdy_OpShardingRule parameter 'operand_mappings' which is to be a "                                  \
  "`::llvm::ArrayRef<TensorMappingAttr>`\n"
#define RES_FAIL                                                                                                       \
  "failed to parse Sdy_OpShardingRule parameter 'result_mappings' which is to be a "                                   \
  "`::llvm::ArrayRef<TensorMappingAttr>`\n"
#define IOTA "expecting factor indices to be ordered like an iota ([0,1,2,...], e.g. {i=#, j=#, ...}). "

Test(rule_parse, shardy_errors) {
  expect_errors("#sdy.op_sharding_rule<([i, j])->([i, j]) {i=16, j=32},>", "expected 'custom'\n");
  expect_errors("#sdy.op_sharding_rule<([i, j])->([i, j]) {i=16, j=32}, custom_rule>", "expected 'custom'\n");
  expect_errors("#sdy.op_sharding_rule<([i, j])->([ij]) {j=4, i=2}>",
                IOTA "Expecting factor index symbol 'i', received: 'j'\n");
  expect_errors("#sdy.op_sharding_rule<([i, k])->([ik]) {i=2, k=4}>",
                IOTA "Expecting factor index symbol 'j', received: 'k'\n");
  expect_errors("#sdy.op_sharding_rule<([i_1, j])->([i]) {i_1=2, j=4}>",
                "expecting symbol from 'i' to 'z'. Received: '_'\n" TM_FAIL OPS_FAIL);
  expect_errors("#sdy.op_sharding_rule<([z_z_1, j])->([i]) {z_1=2, j=4}>",
                "expecting integer after 'z_'. Received: 'z_z_1'\n" TM_FAIL OPS_FAIL);
  expect_errors("#sdy.op_sharding_rule<([z_0z_, j])->([i]) {z_0=2, j=4}>",
                "expecting positive integer without leading zeros. Received: '0'\n" TM_FAIL OPS_FAIL);
  expect_errors("#sdy.op_sharding_rule<([z_ 1, j])->([i]) {i=2, j=4}>",
                "expecting integer after 'z_'. Received: 'z_'\n" TM_FAIL OPS_FAIL);
  expect_errors("#sdy.op_sharding_rule<([i])->([i j]) {i=2, j=4}>", "expected ']'\n" RES_FAIL);
  expect_errors("#sdy.op_sharding_rule<()->([i, j]) {i=2, j=8}, custom>", "expected '['\n" OPS_FAIL);
  expect_errors("#sdy.op_sharding_rule<([i, j])->() {i=2, j=8}, custom>", "expected '['\n" RES_FAIL);
  expect_errors("#sdy.op_sharding_rule<([i, j])->([i]) {i=2, j=3} reduce={j}>", "expected '>'\n");
  expect_errors("#sdy.op_sharding_rule<([i, j])->([i]) {i=2, j=3} need_replication={i} reduction={j}>",
                "expected '>'\n");
  expect_errors("#sdy.op_sharding_rule<([i, j])->([i]) {i=2, j=3} reduction:{j}>", "expected '='\n");
  expect_errors("#sdy.op_sharding_rule<([i, j])->([ij]) {i=2, jk=4}>", "expecting single factor symbol: k\n");
}

/* An index past int64 is reported without failing, and parsing goes on to
 * the iota error, as in Shardy's int_overflow test. */
Test(rule_parse, symbol_index_overflow_keeps_going) {
  char *e = sdy_errors("#sdy.op_sharding_rule<([j, z_9223372036854775808])->([j]) {i=4, j=2}>");
  cr_expect(strstr(e, "expecting symbol index <=2^63-1. Received: '9223372036854775808'\n") == e, "%s", e);
  free(e);
  e = sdy_errors("#sdy.op_sharding_rule<([j, z_9223372036854775808])->([j]) {i=4, z_1=2}>");
  cr_expect_not_null(strstr(e, IOTA "Expecting factor index symbol 'j', received: 'z_1'"), "%s", e);
  free(e);
}
