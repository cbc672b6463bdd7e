/* Parser and printer: round trips of the generic form, func syntax, SSA
 * renumbering, forward references and located parse errors. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "ir/ir.h"
#include "ir/parse.h"
#include "ir/print.h"

typedef struct captured {
  char text[1024];
  unsigned line, col, count;
} captured;

static void S_capture(void *ctx, const shard_diag *d) {
  captured *c = ctx;
  if (c->count++ == 0) {
    snprintf(c->text, sizeof c->text, "%s", d->message);
    shard_span_linecol(d->span, &c->line, &c->col);
  }
}

/* Parses `in` and prints it; returns a heap string, or NULL with the first
 * diagnostic in *diag. */
static char *S_roundtrip_opts(const char *in, bool generic, bool props, captured *diag) {
  static shard_source src;
  src.name = "test.mlir";
  src.text = in;
  src.len = strlen(in);
  src.line_base = 0;
  shard_diag_engine de;
  captured local = {0};
  shard_diag_init(&de, S_capture, diag ? diag : &local);
  shard_module *m = shard_parse_module(&src, NULL, &de);
  if (!m) return NULL;
  shard_buf b;
  shard_buf_init(&b);
  shard_print_options o = {0};
  o.generic = generic;
  o.properties_syntax = props;
  shard_print_module(&b, m, &o);
  shard_module_free(m);
  return shard_buf_take(&b);
}

static char *S_roundtrip(const char *in, bool generic, captured *diag) {
  return S_roundtrip_opts(in, generic, false, diag);
}

Test(parse, generic_ops_roundtrip_and_renumber) {
  const char *in = "func.func @f(%x: tensor<8xf32>) -> tensor<8xf32> {\n"
                   "  %a = \"foo.bar\"(%x) {b = 2 : i32, a = \"s\"} : (tensor<8xf32>) -> tensor<8xf32>\n"
                   "  %t:2 = \"foo.two\"(%a) : (tensor<8xf32>) -> (tensor<8xf32>, tensor<i1>)\n"
                   "  return %t#0 : tensor<8xf32>\n"
                   "}\n";
  char *out = S_roundtrip(in, false, NULL);
  cr_assert_not_null(out);
  cr_expect_str_eq(out, "module {\n"
                        "  func.func @f(%arg0: tensor<8xf32>) -> tensor<8xf32> {\n"
                        "    %0 = \"foo.bar\"(%arg0) {a = \"s\", b = 2 : i32} : (tensor<8xf32>) -> tensor<8xf32>\n"
                        "    %1:2 = \"foo.two\"(%0) : (tensor<8xf32>) -> (tensor<8xf32>, tensor<i1>)\n"
                        "    return %1#0 : tensor<8xf32>\n"
                        "  }\n"
                        "}\n");
  /* printing is a fixed point */
  char *again = S_roundtrip(out, false, NULL);
  cr_expect_str_eq(again, out);
  free(out);
  free(again);
}

Test(parse, nested_regions_continue_numbering) {
  const char *in = "func.func @f(%x: tensor<f32>) -> tensor<f32> {\n"
                   "  %0 = \"a.op\"(%x) ({\n"
                   "  ^bb0(%y: tensor<f32>):\n"
                   "    %1 = \"a.inner\"(%y, %x) : (tensor<f32>, tensor<f32>) -> tensor<f32>\n"
                   "    \"a.yield\"(%1) : (tensor<f32>) -> ()\n"
                   "  }) : (tensor<f32>) -> tensor<f32>\n"
                   "  %2 = \"a.after\"(%0) : (tensor<f32>) -> tensor<f32>\n"
                   "  return %2 : tensor<f32>\n"
                   "}\n";
  char *out = S_roundtrip(in, false, NULL);
  cr_assert_not_null(out);
  /* the region numbers after the whole parent region: %0, %1 outside, so %2 inside */
  cr_expect(strstr(out, "^bb0(%arg1: tensor<f32>):") != NULL, "%s", out);
  cr_expect(strstr(out, "%2 = \"a.inner\"(%arg1, %arg0)") != NULL, "%s", out);
  cr_expect(strstr(out, "%1 = \"a.after\"(%0)") != NULL, "%s", out);
  free(out);
}

Test(parse, forward_reference_in_graph_use) {
  const char *in = "\"test.graph\"() ({\n"
                   "  %0 = \"a.use\"(%1) : (i32) -> i32\n"
                   "  %1 = \"a.def\"() : () -> i32\n"
                   "}) : () -> ()\n";
  char *out = S_roundtrip(in, false, NULL);
  cr_assert_not_null(out);
  cr_expect(strstr(out, "%0 = \"a.use\"(%1) : (i32) -> i32") != NULL, "%s", out);
  free(out);
}

Test(parse, generic_print_has_properties_and_entry_block) {
  const char *in = "module @m attributes {x.y = 1 : i64} {\n"
                   "  func.func private @g(%a: tensor<2xi32> {my.attr}) -> (tensor<2xi32> {r.a = \"q\"}) {\n"
                   "    return %a : tensor<2xi32>\n"
                   "  }\n"
                   "}\n";
  char *out = S_roundtrip_opts(in, true, true, NULL);
  cr_assert_not_null(out);
  cr_expect(strstr(out, "\"builtin.module\"() <{sym_name = \"m\"}> ({") != NULL, "%s", out);
  cr_expect(strstr(out, "arg_attrs = [{my.attr}]") != NULL, "%s", out);
  cr_expect(strstr(out, "res_attrs = [{r.a = \"q\"}]") != NULL, "%s", out);
  cr_expect(strstr(out, "^bb0(%arg0: tensor<2xi32>):") != NULL, "%s", out);
  cr_expect(strstr(out, "\"func.return\"(%arg0) : (tensor<2xi32>) -> ()") != NULL, "%s", out);
  free(out);
}

Test(parse, generic_print_for_mlir16_keeps_inherent_attrs_in_the_dict) {
  const char *in = "module @m attributes {x.y = 1 : i64} {\n"
                   "  func.func @g(%a: tensor<2xi32>) -> tensor<2xi32> {\n    return %a : tensor<2xi32>\n  }\n}\n";
  char *out = S_roundtrip(in, true, NULL);
  cr_assert_not_null(out);
  cr_expect(strstr(out, "<{") == NULL, "%s", out);
  cr_expect(strstr(out, "}) {sym_name = \"m\", x.y = 1 : i64} : () -> ()") != NULL, "%s", out);
  cr_expect(strstr(out, "}) {function_type = (tensor<2xi32>) -> tensor<2xi32>, sym_name = \"g\"} : () -> ()") != NULL,
            "%s", out);
  /* and shard reads its own generic print back to the same pretty print */
  char *pretty = S_roundtrip(out, false, NULL);
  char *direct = S_roundtrip(in, false, NULL);
  cr_expect_str_eq(pretty, direct);
  free(out);
  free(pretty);
  free(direct);
}

Test(parse, canonical_attributes) {
  const char *in = "\"a.b\"() {d = dense<[1.0, 1.0]> : tensor<2xf32>, e = dense<[1.5, 2.0]> : tensor<2xf32>,"
                   " f = [1, 2], g = array<i64: 3, 4>, h = 2.5 : f32} : () -> ()\n";
  char *out = S_roundtrip(in, false, NULL);
  cr_assert_not_null(out);
  cr_expect(strstr(out, "d = dense<1.000000e+00> : tensor<2xf32>") != NULL, "%s", out);
  cr_expect(strstr(out, "e = dense<[1.500000e+00, 2.000000e+00]> : tensor<2xf32>") != NULL, "%s", out);
  cr_expect(strstr(out, "f = [1, 2]") != NULL, "%s", out);
  cr_expect(strstr(out, "g = array<i64: 3, 4>") != NULL, "%s", out);
  cr_expect(strstr(out, "h = 2.500000e+00 : f32") != NULL, "%s", out);
  free(out);
}

Test(parse, errors_are_located) {
  captured d = {0};
  cr_expect_null(S_roundtrip("func.func @f() {\n  %0 = \"a.b\"(%nope) : (i32) -> i32\n  return\n}\n", false, &d));
  cr_expect_str_eq(d.text, "use of undeclared SSA value name");
  cr_expect_eq(d.line, 2);
  cr_expect_eq(d.col, 14);

  captured e = {0};
  cr_expect_null(S_roundtrip("func.func @f() {\n  %0 = foo.bar\n}\n", false, &e));
  cr_expect_str_eq(e.text, "custom op 'foo.bar' is unknown");
  cr_expect_eq(e.line, 2);

  captured t = {0};
  cr_expect_null(S_roundtrip("\"a.b\"() : () -> tensor<8y>\n", false, &t));
  cr_expect_eq(t.count, 1);

  captured r = {0};
  cr_expect_null(S_roundtrip("%0 = \"a.b\"() : () -> i32\n%0 = \"a.c\"() : () -> i32\n", false, &r));
  cr_expect_str_eq(r.text, "redefinition of SSA value '%0'");
}

Test(parse, deep_nesting_is_an_error_not_a_crash) {
  size_t depth = 100000;
  char *in = malloc(depth * 2 + 64);
  char *p = in;
  p += sprintf(p, "\"a.b\"() {x = ");
  for (size_t i = 0; i < depth; i++) *p++ = '[';
  for (size_t i = 0; i < depth; i++) *p++ = ']';
  sprintf(p, "} : () -> ()\n");
  captured d = {0};
  cr_expect_null(S_roundtrip(in, false, &d));
  cr_expect(strstr(d.text, "nesting") != NULL, "%s", d.text);
  free(in);
}

Test(parse, multi_line_verbatim_attributes_print_on_one_line) {
  const char *in = "\"a.b\"() {d = #x.y<\n      a = [1, 2],\n      b = \"s  t\"\n    >} : () -> ()\n";
  char *out = S_roundtrip(in, false, NULL);
  cr_assert_not_null(out);
  cr_expect(strstr(out, "d = #x.y<a = [1, 2], b = \"s  t\">") != NULL, "%s", out);
  free(out);
}

Test(parse, branch_to_an_undefined_block_is_an_error) {
  captured d = {0};
  cr_expect_null(S_roundtrip("\"a.f\"() ({\n  \"cf.br\"() [^bb7] : () -> ()\n}) : () -> ()\n", false, &d));
  cr_expect_str_eq(d.text, "reference to an undefined block");
  cr_expect_eq(d.line, 2);
  char *ok = S_roundtrip(
      "\"a.f\"() ({\n  \"cf.br\"() [^bb1] : () -> ()\n^bb1:\n  \"a.ret\"() : () -> ()\n}) : () -> ()\n", false, NULL);
  cr_assert_not_null(ok);
  cr_expect(strstr(ok, "\"cf.br\"()[^bb1] : () -> ()") != NULL, "%s", ok);
  free(ok);
}

Test(parse, too_many_successors_is_an_error) {
  /* an op's successor count is 16 bits (ir.h): one more is refused where it is written */
  size_t n = (size_t)SHARD_OP_MAX_SUCCESSORS + 1;
  char *in = malloc(n * 6 + 128);
  char *p = in + sprintf(in, "\"a.f\"() ({\n  \"cf.br\"() [");
  for (size_t i = 0; i < n; i++) p += sprintf(p, i ? ", ^bb1" : "^bb1");
  sprintf(p, "] : () -> ()\n^bb1:\n  \"a.ret\"() : () -> ()\n}) : () -> ()\n");
  captured d = {0};
  cr_expect_null(S_roundtrip(in, false, &d));
  cr_expect_str_eq(d.text, "more than 65535 successors");
  cr_expect_eq(d.line, 2);
  free(in);
}

Test(parse, decimal_integer_for_a_float_is_an_error_hex_is_a_bit_pattern) {
  captured d = {0};
  cr_expect_null(S_roundtrip("\"a.b\"() {x = 5 : f32} : () -> ()\n", false, &d));
  cr_expect_str_eq(d.text, "unexpected decimal integer literal for a floating point value");
  cr_expect_eq(d.col, 14);
  char *out = S_roundtrip("\"a.b\"() {x = 0x7FC00000 : f32} : () -> ()\n", false, NULL);
  cr_assert_not_null(out);
  cr_expect(strstr(out, "x = 0x7FC00000 : f32") != NULL, "%s", out);
  free(out);
}

Test(parse, comments_inside_verbatim_attributes_are_dropped) {
  const char *in = "\"a.b\"() {d = #x.y<\n  a = [1], // the first\n  b = 2  // the last\n>} : () -> ()\n";
  char *out = S_roundtrip(in, false, NULL);
  cr_assert_not_null(out);
  cr_expect(strstr(out, "d = #x.y<a = [1], b = 2>") != NULL, "%s", out);
  free(out);
}

/* check.* and interpreter.* print as the tool that reads them back would:
 * generic by default (sdy_opt and mlir-opt do not register them), their
 * custom syntax with test_dialects (stablehlo-opt registers them). */
Test(parse, test_dialects_print_generic_unless_registered) {
  const char *in = "func.func @f(%a: tensor<2xf32>) {\n"
                   "  check.expect_eq %a, %a : tensor<2xf32>\n"
                   "  \"interpreter.print\"(%a) : (tensor<2xf32>) -> ()\n"
                   "  return\n"
                   "}\n";
  shard_source src = {"test.mlir", in, strlen(in), 0};
  shard_diag_engine de;
  captured diag = {0};
  shard_diag_init(&de, S_capture, &diag);
  shard_module *m = shard_parse_module(&src, NULL, &de);
  cr_assert_not_null(m, "%s", diag.text);
  for (int registered = 0; registered < 2; registered++) {
    shard_buf b;
    shard_buf_init(&b);
    shard_print_options o = {0};
    o.test_dialects = registered;
    shard_print_module(&b, m, &o);
    char *out = shard_buf_take(&b);
    if (registered) {
      cr_expect(strstr(out, "    check.expect_eq %arg0, %arg0 : tensor<2xf32>\n"), "%s", out);
      cr_expect(strstr(out, "    interpreter.print %arg0 : tensor<2xf32>\n"), "%s", out);
    } else {
      cr_expect(strstr(out, "    \"check.expect_eq\"(%arg0, %arg0) : (tensor<2xf32>, tensor<2xf32>) -> ()\n"), "%s",
                out);
      cr_expect(strstr(out, "    \"interpreter.print\"(%arg0) : (tensor<2xf32>) -> ()\n"), "%s", out);
    }
    free(out);
  }
  shard_module_free(m);
}
