/* IR helpers of ir.h that passes lean on for speed: shard_op_is (op names
 * compared through their definitions) and the symbol index behind
 * shard_module_lookup_symbol, which must give the answer of a scan of the
 * top module after ops are added, erased and renamed behind its back. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/opdef.h"
#include "ir/parse.h"
#include "ir_testing.h"
#include "pass/pass_shardings.h"

static shard_source S_src;

static shard_module *S_parse(const char *text) { return ir_testing_parse(&S_src, text); }

static shard_op *S_first(shard_module *m, uint32_t skip) {
  shard_op *op = m->top->regions[0].first->first;
  while (op && skip--) op = op->next;
  cr_assert_not_null(op);
  return op;
}

static shard_op_name K_add = {"stablehlo.add", NULL};
static shard_op_name K_mul = {"stablehlo.multiply", NULL};
static shard_op_name K_custom = {"my.custom_op", NULL};

Test(ir, op_is_compares_known_and_unknown_names) {
  shard_module *m = S_parse("func.func @f(%a: tensor<2xf32>) -> tensor<2xf32> {\n"
                            "  %0 = stablehlo.add %a, %a : tensor<2xf32>\n"
                            "  %1 = \"my.custom_op\"(%0) : (tensor<2xf32>) -> tensor<2xf32>\n"
                            "  %2 = \"stablehlo.add\"(%1, %1) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>\n"
                            "  return %2 : tensor<2xf32>\n}\n");
  shard_op *func = S_first(m, 0);
  shard_op *add = func->regions[0].first->first, *custom = add->next, *generic_add = custom->next;
  cr_assert_not_null(add->def);
  cr_assert_null(custom->def, "an unknown op has no definition");
  for (int round = 0; round < 2; round++) { /* before and after the names are resolved */
    cr_expect(shard_op_is(add, &K_add));
    cr_expect(shard_op_is(generic_add, &K_add), "the generic form has the definition too");
    cr_expect_not(shard_op_is(add, &K_mul));
    cr_expect_not(shard_op_is(custom, &K_add));
    cr_expect(shard_op_is(custom, &K_custom), "without a definition the names are compared");
    cr_expect_not(shard_op_is(add, &K_custom), "a name no table knows matches no known op");
  }
  /* An op built by a pass with a known name finds its definition too. */
  shard_value *a = &func->regions[0].first->args[0];
  shard_op *made = shard_op_new_named(m->arena, "stablehlo.multiply", 2, (shard_value *[]){a, a}, 1, &a->type, 0);
  cr_expect(shard_op_is(made, &K_mul));
  cr_expect_not(shard_op_is(made, &K_add));
  shard_module_free(m);
}

Test(ir, symbol_lookup_follows_additions_erasures_and_renames) {
  shard_module *m = S_parse("sdy.mesh @mesh = <[\"x\"=2]>\n"
                            "func.func private @g(%a: tensor<2xf32>) -> tensor<2xf32> {\n"
                            "  return %a : tensor<2xf32>\n}\n"
                            "func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {\n"
                            "  return %a : tensor<2xf32>\n}\n");
  shard_op *mesh = S_first(m, 0), *g = S_first(m, 1), *main_fn = S_first(m, 2);
  cr_expect_eq(shard_module_lookup_symbol(m, "mesh"), mesh);
  cr_expect_eq(shard_module_lookup_symbol(m, "g"), g);
  cr_expect_eq(shard_module_lookup_symbol(m, "main"), main_fn);
  cr_expect_null(shard_module_lookup_symbol(m, "h"));
  cr_expect_not_null(m->symbols, "the first lookup builds the index");

  /* Renamed behind the index's back: the old name is gone, the new one found. */
  shard_op_set_attr(m->arena, g, "sym_name", shard_attr_string(m->arena, "h", 1), true);
  cr_expect_null(shard_module_lookup_symbol(m, "g"));
  cr_expect_eq(shard_module_lookup_symbol(m, "h"), g);

  /* Erased: not found any more, even though the index still holds it. */
  shard_op_erase(g);
  cr_expect_null(shard_module_lookup_symbol(m, "h"));

  /* Many new symbols (the index grows), each found, the old ones too. */
  char name[32];
  shard_op *added[200];
  for (int i = 0; i < 200; i++) {
    snprintf(name, sizeof name, "mesh_%d", i);
    added[i] = shard_op_new_named(m->arena, "sdy.mesh", 0, NULL, 0, NULL, 0);
    shard_op_set_attr(m->arena, added[i], "sym_name", shard_attr_string(m->arena, name, (uint32_t)strlen(name)), true);
    shard_block_append(m->top->regions[0].first, added[i]);
    if (i % 7 == 0) cr_expect_eq(shard_module_lookup_symbol(m, name), added[i]);
  }
  for (int i = 0; i < 200; i++) {
    snprintf(name, sizeof name, "mesh_%d", i);
    cr_expect_eq(shard_module_lookup_symbol(m, name), added[i], "%s", name);
  }
  cr_expect_eq(shard_module_lookup_symbol(m, "mesh"), mesh);
  cr_expect_eq(shard_module_lookup_symbol(m, "main"), main_fn);

  /* The name of an erased symbol given to a new op finds the new op. */
  shard_op_erase(mesh);
  shard_op *again = shard_op_new_named(m->arena, "sdy.mesh", 0, NULL, 0, NULL, 0);
  shard_op_set_attr(m->arena, again, "sym_name", shard_attr_string(m->arena, "mesh", 4), true);
  shard_op_insert_before(main_fn, again);
  cr_expect_eq(shard_module_lookup_symbol(m, "mesh"), again);
  /* An op moved into a function body is no symbol of the module. */
  shard_op_erase(again);
  shard_block_append(main_fn->regions[0].first, again);
  cr_expect_null(shard_module_lookup_symbol(m, "mesh"));
  shard_module_free(m);
}

/* Element widths: the narrow float family is told by the E after its one
 * digit, so f64 and f16 are not read as 6 and 1 bits (f64 was, which made
 * bitcast_convert f64 -> i64 look like a width change). */
Test(ir, element_widths) {
  cr_assert_eq(shard_elem_bits("f64"), 64);
  cr_assert_eq(shard_elem_bits("f16"), 16);
  cr_assert_eq(shard_elem_bits("f32"), 32);
  cr_assert_eq(shard_elem_bits("bf16"), 16);
  cr_assert_eq(shard_elem_bits("f8E4M3FN"), 8);
  cr_assert_eq(shard_elem_bits("f6E2M3FN"), 6);
  cr_assert_eq(shard_elem_bits("f4E2M1FN"), 4);
  cr_assert_eq(shard_elem_bits("i1"), 1);
  cr_assert_eq(shard_elem_bits("ui64"), 64);
  cr_assert_eq(shard_elem_bits("complex<f64>"), 128);
}
