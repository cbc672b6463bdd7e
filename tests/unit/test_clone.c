/* IR cloning (clone.h) and the call-graph helpers (call_graph.h): deep
 * copies with regions, block arguments and successors, operand remapping
 * through the value map, independence of copy and original, the pointer
 * map under growth, call graph order, symbol uniquing and recursive func
 * cloning. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/call_graph.h"
#include "ir/clone.h"
#include "ir/parse.h"
#include "shard/shard.h"
#include "verify/verify.h"

static char S_messages[2048];

static void S_capture(void *ctx, const shard_diag *d) {
  (void)ctx;
  size_t used = strlen(S_messages);
  snprintf(S_messages + used, sizeof S_messages - used, "%s\n", d->message);
}

static shard_source S_src;

static shard_module *S_parse(const char *text) {
  S_src.name = "test.mlir";
  S_src.text = text;
  S_src.len = strlen(text);
  S_messages[0] = 0;
  shard_diag_engine de;
  shard_diag_init(&de, S_capture, NULL);
  shard_module *m = shard_parse_module(&S_src, NULL, &de);
  cr_assert(m && !de.errors, "parse failed: %s", S_messages);
  return m;
}

static bool S_verifies(shard_module *m) {
  shard_diag_engine de;
  shard_diag_init(&de, S_capture, NULL);
  S_messages[0] = 0;
  shard_verify_options vo = {.extra_warnings = false};
  return shard_verify_module(m, &vo, &de) && !de.errors;
}

static shard_op *S_func(shard_module *m, const char *name) {
  shard_op *f = shard_module_lookup_symbol(m, name);
  cr_assert(f, "no func @%s", name);
  return f;
}

static void S_rename(shard_module *m, shard_op *op, const char *name) {
  shard_op_set_attr(m->arena, op, "sym_name", shard_attr_string(m->arena, name, (uint32_t)strlen(name)), true);
}

static const char *const nested =
    "func.func @f(%arg0: tensor<8xf32> {sdy.sharding = #sdy.sharding<@m, [{}]>}) -> tensor<8xf32> {\n"
    "  %0 = stablehlo.abs %arg0 : tensor<8xf32>\n"
    "  %1 = sdy.named_computation<\"nc\">(%0) (%arg1: tensor<8xf32>) {\n"
    "    %2 = stablehlo.add %arg1, %arg1 : tensor<8xf32>\n"
    "    sdy.return %2 : tensor<8xf32>\n"
    "  } : (tensor<8xf32>) -> tensor<8xf32>\n"
    "  return %1 : tensor<8xf32>\n"
    "}\n"
    "sdy.mesh @m = <[\"a\"=2]>\n";

Test(clone, func_with_nested_region_prints_like_the_original) {
  shard_module *m = S_parse(nested);
  shard_op *f = S_func(m, "f");
  char *before = shard_module_print(m, 0);
  shard_op *copy = shard_op_clone(m->arena, f, NULL);
  S_rename(m, copy, "g");
  shard_block_append(f->parent, copy);
  cr_assert(S_verifies(m), "clone does not verify: %s", S_messages);
  char *after = shard_module_print(m, 0);
  /* The module now holds @f and its copy @g with the same body and
   * argument attributes. */
  char *g_text = strstr(after, "func.func @g");
  cr_assert(g_text, "%s", after);
  cr_expect(strstr(g_text, "{sdy.sharding = #sdy.sharding<@m, [{}]>}") != NULL, "%s", after);
  cr_expect(strstr(g_text, "sdy.named_computation<\"nc\">") != NULL, "%s", after);
  cr_expect(strncmp(before, after, strlen(before) - 2) == 0, "original changed:\n%s", after);
  free(before);
  free(after);
  shard_module_free(m);
}

Test(clone, copy_uses_only_its_own_values) {
  shard_module *m = S_parse(nested);
  shard_op *f = S_func(m, "f");
  shard_block *entry = f->regions[0].first;
  shard_op *abs_op = entry->first;
  uint32_t arg_uses = shard_value_num_uses(&entry->args[0]);
  uint32_t abs_uses = shard_value_num_uses(&abs_op->results[0]);
  shard_value_map *map = shard_value_map_new();
  shard_op *copy = shard_op_clone(m->arena, f, map);
  /* The original's use lists did not grow. */
  cr_expect_eq(shard_value_num_uses(&entry->args[0]), arg_uses);
  cr_expect_eq(shard_value_num_uses(&abs_op->results[0]), abs_uses);
  shard_block *centry = copy->regions[0].first;
  cr_assert_neq(centry, entry);
  cr_expect_eq(shard_value_map_get(map, &entry->args[0]), &centry->args[0]);
  shard_op *cabs = centry->first;
  cr_expect_eq(cabs->operands[0].value, &centry->args[0]);
  cr_expect_eq(shard_value_map_get(map, &abs_op->results[0]), &cabs->results[0]);
  /* Inside the nested region too: the add reads the copy's block argument. */
  shard_op *cnc = cabs->next;
  shard_block *cbody = cnc->regions[0].first;
  cr_expect_eq(cbody->parent, &cnc->regions[0]);
  cr_expect_eq(cbody->first->operands[0].value, &cbody->args[0]);
  cr_expect_eq(cnc->operands[0].value, &cabs->results[0]);
  /* Attribute lists are separate: setting one on the copy leaves f alone. */
  shard_op_set_attr(m->arena, cabs, "mark", shard_attr_string(m->arena, "x", 1), false);
  cr_expect_null(shard_op_attr(abs_op, "mark"));
  shard_value_map_free(map);
  shard_module_free(m);
}

Test(clone, unmapped_operands_keep_their_values_and_mapped_ones_are_redirected) {
  shard_module *m = S_parse("func.func @f(%arg0: tensor<8xf32>, %arg1: tensor<8xf32>) -> tensor<8xf32> {\n"
                            "  %0 = stablehlo.add %arg0, %arg1 : tensor<8xf32>\n"
                            "  return %0 : tensor<8xf32>\n"
                            "}\n");
  shard_op *f = S_func(m, "f");
  shard_block *entry = f->regions[0].first;
  shard_op *add = entry->first;
  shard_value_map *map = shard_value_map_new();
  shard_value_map_set(map, &entry->args[1], &entry->args[0]);
  shard_op *copy = shard_op_clone(m->arena, add, map);
  shard_op_insert_before(add, copy);
  cr_expect_eq(copy->operands[0].value, &entry->args[0]);
  cr_expect_eq(copy->operands[1].value, &entry->args[0], "mapped operand not redirected");
  cr_expect_eq(shard_value_num_uses(&entry->args[0]), 3);
  cr_expect_eq(shard_value_num_uses(&entry->args[1]), 1);
  cr_expect_eq(shard_value_map_get(map, &add->results[0]), &copy->results[0]);
  cr_expect_eq(shard_value_num_uses(&copy->results[0]), 0);
  cr_expect_eq(shard_value_map_size(map), 2);
  shard_value_map_free(map);
  cr_assert(S_verifies(m), "%s", S_messages);
  shard_module_free(m);
}

Test(clone, successors_and_forward_references_point_into_the_copy) {
  shard_module *m = S_parse("\"t.graph\"() ({\n"
                            "^bb0(%a: i32):\n"
                            "  \"t.br\"(%a)[^bb1] : (i32) -> ()\n"
                            "^bb1(%b: i32):\n"
                            "  \"t.use\"(%b) : (i32) -> ()\n"
                            "}) : () -> ()\n");
  shard_op *graph = m->top->regions[0].first->first;
  shard_op *copy = shard_op_clone(m->arena, graph, NULL);
  shard_block *b0 = copy->regions[0].first;
  shard_block *b1 = b0->next;
  cr_assert(b1);
  cr_expect_eq(b0->first->num_successors, 1);
  cr_expect_eq(b0->first->successors[0], b1, "successor still names the original block");
  cr_expect_eq(b0->first->operands[0].value, &b0->args[0]);
  cr_expect_eq(b1->first->operands[0].value, &b1->args[0]);
  cr_expect_eq(b1->parent, &copy->regions[0]);
  shard_module_free(m);
}

static const char *const call_tree = "func.func @main(%arg0: tensor<8xi32>) -> tensor<8xi32> {\n"
                                     "  %0 = call @foo(%arg0) : (tensor<8xi32>) -> tensor<8xi32>\n"
                                     "  %1 = call @bar(%0) : (tensor<8xi32>) -> tensor<8xi32>\n"
                                     "  return %1 : tensor<8xi32>\n"
                                     "}\n"
                                     "func.func private @bar(%arg0: tensor<8xi32>) -> tensor<8xi32> {\n"
                                     "  return %arg0 : tensor<8xi32>\n"
                                     "}\n"
                                     "func.func private @foo(%arg0: tensor<8xi32>) -> tensor<8xi32> {\n"
                                     "  %0 = call @bar(%arg0) : (tensor<8xi32>) -> tensor<8xi32>\n"
                                     "  return %0 : tensor<8xi32>\n"
                                     "}\n";

Test(call_graph, post_order_puts_callees_first_and_pre_order_reverses_it) {
  shard_module *m = S_parse(call_tree);
  shard_op **funcs;
  uint32_t n = shard_call_graph_funcs(m, false, &funcs);
  cr_assert_eq(n, 3);
  cr_expect_str_eq(shard_symbol_name(funcs[0]), "bar");
  cr_expect_str_eq(shard_symbol_name(funcs[1]), "foo");
  cr_expect_str_eq(shard_symbol_name(funcs[2]), "main");
  free(funcs);
  n = shard_call_graph_funcs(m, true, &funcs);
  cr_assert_eq(n, 3);
  cr_expect_str_eq(shard_symbol_name(funcs[0]), "main");
  cr_expect_str_eq(shard_symbol_name(funcs[2]), "bar");
  free(funcs);
  shard_module_free(m);
}

Test(call_graph, build_keeps_each_funcs_calls_in_the_graph_order) {
  shard_module *m = S_parse(call_tree);
  for (int pre = 0; pre < 2; pre++) {
    shard_call_graph g;
    shard_call_graph_build(m, pre, &g);
    shard_op **funcs;
    uint32_t n = shard_call_graph_funcs(m, pre, &funcs);
    cr_assert_eq(g.num_funcs, n);
    cr_expect(!g.recursive);
    for (uint32_t i = 0; i < n; i++) {
      cr_expect_eq(g.funcs[i], funcs[i]);
      shard_op **calls;
      uint32_t nc = shard_func_calls(funcs[i], &calls);
      cr_assert_eq(g.num_calls[i], nc);
      for (uint32_t k = 0; k < nc; k++) cr_expect_eq(g.calls[i][k], calls[k]);
      free(calls);
    }
    free(funcs);
    shard_call_graph_release(&g);
  }
  shard_module_free(m);
  m = S_parse("func.func @main(%arg0: tensor<8xi32>) -> tensor<8xi32> {\n"
              "  %0 = call @main(%arg0) : (tensor<8xi32>) -> tensor<8xi32>\n"
              "  return %0 : tensor<8xi32>\n"
              "}\n");
  shard_call_graph g;
  shard_call_graph_build(m, false, &g);
  cr_expect_eq(g.num_funcs, 1);
  cr_expect(g.recursive);
  shard_call_graph_release(&g);
  shard_module_free(m);
}

Test(call_graph, recursive_clone_uniques_names_with_one_counter) {
  shard_module *m = S_parse(call_tree);
  shard_symbol_table t;
  shard_symbol_table_init(&t, m);
  shard_op *copy = shard_func_clone_recursively(&t, S_func(m, "foo"));
  const char *name = shard_symbol_table_insert(&t, copy);
  /* bar's copy took bar_0, so foo's copy is foo_1. */
  cr_expect_str_eq(name, "foo_1");
  shard_op **calls;
  uint32_t n = shard_func_calls(copy, &calls);
  cr_assert_eq(n, 1);
  cr_expect_str_eq(shard_call_callee(calls[0]), "bar_0");
  free(calls);
  cr_expect_str_eq(shard_func_original_name(copy), "foo");
  shard_op *bar0 = S_func(m, "bar_0");
  cr_expect_str_eq(shard_func_original_name(bar0), "bar");
  /* A copy of a copy keeps the first original name. */
  shard_op *again = shard_func_clone_recursively(&t, bar0);
  cr_expect_str_eq(shard_symbol_table_insert(&t, again), "bar_0_2");
  cr_expect_str_eq(shard_func_original_name(again), "bar");
  cr_assert(S_verifies(m), "%s", S_messages);
  shard_symbol_table_release(&t);
  shard_module_free(m);
}
