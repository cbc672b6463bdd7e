/* Interned names: the parser keeps one copy of each identifier, attribute
 * name and SSA name of a module, and names shard looks up are the literals
 * of attr.c's list, so attribute lookups compare pointers first. They must
 * still find any name by its text (built at run time, unseeded). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "ir/attr.h"
#include "ir/parse.h"
#include "ir_testing.h"

static shard_source S_src;

static shard_module *S_parse(const char *text) { return ir_testing_parse(&S_src, text); }

/* The n-th op of the body of the n-th top-level function. */
static shard_op *S_op(shard_module *m, uint32_t fn, uint32_t n) {
  shard_op *f = m->top->regions[0].first->first;
  while (f && fn--) f = f->next;
  cr_assert(f && f->num_regions == 1);
  shard_op *op = f->regions[0].first->first;
  while (op && n--) op = op->next;
  cr_assert_not_null(op);
  return op;
}

static const char *S_name_of(const shard_op *op, const char *name) {
  for (uint32_t i = 0; i < op->num_attrs; i++)
    if (strcmp(op->attrs[i].name, name) == 0) return op->attrs[i].name;
  cr_assert_fail("no attribute %s", name);
  return NULL;
}

static const char *S_module_text =
    "sdy.mesh @mesh = <[\"x\"=2]>\n"
    "func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {\n"
    "  %0 = stablehlo.negate %a {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{\"x\"}]>]>, my.tag = 1 : i32} "
    ": tensor<4xf32>\n"
    "  %1 = \"stablehlo.abs\"(%0) {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{}]>]>, my.tag = 2 : i32} "
    ": (tensor<4xf32>) -> tensor<4xf32>\n"
    "  return %1 : tensor<4xf32>\n"
    "}\n"
    "func.func @g(%b: tensor<4xf32>) -> tensor<4xf32> {\n"
    "  %0 = stablehlo.negate %b {my.tag = 3 : i32} : tensor<4xf32>\n"
    "  return %0 : tensor<4xf32>\n"
    "}\n";

Test(intern, equal_names_of_two_ops_are_one_pointer) {
  shard_module *m = S_parse(S_module_text);
  shard_op *a = S_op(m, 1, 0), *b = S_op(m, 1, 1), *c = S_op(m, 2, 0);
  /* a seeded name, in custom and generic form */
  cr_expect_eq(S_name_of(a, "sdy.sharding"), S_name_of(b, "sdy.sharding"));
  cr_expect_eq(S_name_of(a, "sdy.sharding"), shard_attr_known_name("sdy.sharding"));
  /* a name no list knows, across functions too */
  cr_expect_eq(S_name_of(a, "my.tag"), S_name_of(b, "my.tag"));
  cr_expect_eq(S_name_of(a, "my.tag"), S_name_of(c, "my.tag"));
  /* SSA names: %0 of @f and of @g, one copy; %0 and %1 two */
  cr_expect_str_eq(a->results[0].name, "0");
  cr_expect_eq(a->results[0].name, c->results[0].name);
  cr_expect_neq(a->results[0].name, b->results[0].name);
  shard_module_free(m);
}

Test(intern, lookups_find_names_built_at_run_time) {
  shard_module *m = S_parse(S_module_text);
  shard_op *a = S_op(m, 1, 0);
  char buf[32];
  snprintf(buf, sizeof buf, "sdy.%s", "sharding");
  cr_expect_eq(shard_op_attr(a, buf), shard_op_attr(a, "sdy.sharding"));
  cr_expect_not_null(shard_op_attr(a, buf));
  snprintf(buf, sizeof buf, "my.%s", "tag");
  shard_attr *tag = shard_op_attr(a, buf);
  cr_assert_not_null(tag);
  cr_expect_eq(tag->kind, SHARD_ATTR_INT);
  snprintf(buf, sizeof buf, "my.%s", "tah");
  cr_expect_null(shard_op_attr(a, buf));
  cr_expect_null(shard_op_attr(a, "sdy.sharding_rule"));
  shard_module_free(m);
}

Test(intern, set_attr_keeps_known_names_as_literals_and_copies_others) {
  shard_module *m = S_parse(S_module_text);
  shard_op *c = S_op(m, 2, 0);
  shard_attr *unit = shard_attr_new(m->arena, SHARD_ATTR_UNIT);
  char buf[32];
  snprintf(buf, sizeof buf, "sdy.%s", "sharding_rule");
  shard_op_set_attr(m->arena, c, buf, unit, false);
  snprintf(buf, sizeof buf, "zz.%s", "mine");
  shard_op_set_attr(m->arena, c, buf, unit, false);
  memset(buf, 'q', sizeof buf - 1); /* the caller's buffer is not kept */
  cr_expect_eq(S_name_of(c, "sdy.sharding_rule"), shard_attr_known_name("sdy.sharding_rule"));
  cr_expect_neq(S_name_of(c, "zz.mine"), buf);
  cr_expect_eq(shard_op_attr(c, "sdy.sharding_rule"), unit);
  cr_expect_eq(shard_op_attr(c, "zz.mine"), unit);
  cr_expect_eq(c->num_attrs, 3);
  /* still sorted: the text search agrees with the pointer one */
  for (uint32_t i = 1; i < c->num_attrs; i++) cr_expect_lt(strcmp(c->attrs[i - 1].name, c->attrs[i].name), 0);
  cr_expect(shard_op_remove_attr(c, "zz.mine"));
  cr_expect_null(shard_op_attr(c, "zz.mine"));
  shard_module_free(m);
}

Test(intern, find_by_pointer_or_text_and_insertion_point) {
  static char b[] = "b", b2[] = "b", d[] = "d";
  shard_named_attr list[] = {{"a", NULL, false}, {b, NULL, false}, {"c", NULL, false}, {d, NULL, false}};
  bool found;
  cr_expect_eq(shard_named_attr_find(list, 4, b, &found), 1);
  cr_expect(found);
  cr_expect_eq(shard_named_attr_find(list, 4, b2, &found), 1); /* another pointer, same text */
  cr_expect(found);
  cr_expect_eq(shard_named_attr_find(list, 4, "bb", &found), 2);
  cr_expect_not(found);
  cr_expect_eq(shard_named_attr_find(list, 4, "e", &found), 4);
  cr_expect_not(found);
  cr_expect_eq(shard_named_attr_find(list, 0, "a", &found), 0);
  cr_expect_not(found);
}

Test(intern, known_names_are_sorted_and_unique) {
  uint32_t n;
  const char *const *known = shard_attr_known_names(&n);
  cr_assert_gt(n, 10);
  for (uint32_t i = 1; i < n; i++)
    cr_expect_lt(strcmp(known[i - 1], known[i]), 0, "%s before %s", known[i - 1], known[i]);
  for (uint32_t i = 0; i < n; i++) {
    char buf[64];
    snprintf(buf, sizeof buf, "%s", known[i]);
    cr_expect_eq(shard_attr_known_name(buf), known[i], "%s", buf);
  }
  cr_expect_null(shard_attr_known_name("sdy.shardin"));
  cr_expect_null(shard_attr_known_name(""));
}
