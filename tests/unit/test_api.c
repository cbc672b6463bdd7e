/* The public API (include/shard/shard.h, src/core/api.c): diagnostics as the
 * embedding tool sees them, ownership of the source text, verify flags,
 * printing, and design-doc snippets with positions mapped into the snippet. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shard/shard.h"

/* Every diagnostic as "FILE:LINE:COL: LEVEL: MESSAGE [source line]\n". */
typedef struct capture {
  char text[8192];
  size_t len;
  unsigned errors, warnings;
} capture;

static void on_diag(void *ctx, const shard_diagnostic *d) {
  capture *c = ctx;
  if (d->level == SHARD_DIAGNOSTIC_ERROR) c->errors++;
  if (d->level == SHARD_DIAGNOSTIC_WARNING) c->warnings++;
  c->len += (size_t)snprintf(c->text + c->len, sizeof c->text - c->len, "%s:%u:%u: %s: %s [%.*s]\n",
                             d->file ? d->file : "-", d->line, d->column, shard_diagnostic_level_name(d->level),
                             d->message, (int)d->source_line_len, d->source_line ? d->source_line : "");
}

static const char *const k_valid =
    "sdy.mesh @mesh = <[\"x\"=2, \"y\"=4]>\n"
    "func.func @f(%arg0: tensor<8x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{\"x\"}, {}]>}) "
    "-> tensor<8x8xf32> {\n"
    "  return %arg0 : tensor<8x8xf32>\n"
    "}\n";

Test(api, version_is_the_projects) { cr_assert_str_eq(shard_version(), SHARD_VERSION); }

Test(api, parse_verify_print_round_trip) {
  capture c = {0};
  shard_module *m = shard_module_parse("ok.mlir", k_valid, strlen(k_valid), on_diag, &c);
  cr_assert_not_null(m, "%s", c.text);
  cr_assert_eq(shard_module_verify(m, SHARD_VERIFY_EXTRA_WARNINGS, on_diag, &c), 0, "%s", c.text);
  char *pretty = shard_module_print(m, 0);
  char *generic = shard_module_print(m, SHARD_PRINT_GENERIC);
  cr_assert(strstr(pretty, "sdy.mesh @mesh = <[\"x\"=2, \"y\"=4]>"), "%s", pretty);
  cr_assert(strstr(generic, "\"func.func\"()"), "%s", generic);
  shard_module_free(m);

  /* The printed text is a module again, and the same one. */
  shard_module *again = shard_module_parse("again", pretty, strlen(pretty), on_diag, &c);
  cr_assert_not_null(again, "%s", c.text);
  char *pretty2 = shard_module_print(again, 0);
  cr_assert_str_eq(pretty2, pretty);
  shard_module_free(again);
  free(pretty);
  free(pretty2);
  free(generic);
  cr_assert_eq(c.len, 0, "%s", c.text);
}

Test(api, the_module_owns_its_text) {
  /* The caller's buffer is gone before verification reports on it. */
  char *text = strdup("sdy.mesh @mesh = <[\"x\"=2]>\n"
                      "func.func @f(%arg0: tensor<8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{\"z\"}]>}) {\n"
                      "  return\n"
                      "}\n");
  char *name = strdup("gone.mlir");
  capture c = {0};
  shard_module *m = shard_module_parse(name, text, strlen(text), on_diag, &c);
  cr_assert_not_null(m);
  memset(text, 'X', strlen(text));
  free(text);
  strcpy(name, "XXXX");
  free(name);
  cr_assert_eq(shard_module_verify(m, 0, on_diag, &c), 1);
  cr_assert_str_eq(c.text, "gone.mlir:2:1: error: 'func.func' op arg 0 - unknown axis name: \"z\" "
                           "[func.func @f(%arg0: tensor<8xf32> {sdy.sharding = #sdy.sharding<@mesh, "
                           "[{\"z\"}]>}) {]\n");
  shard_module_free(m);
}

Test(api, parse_errors_return_null_with_a_located_diagnostic) {
  const char *text = "func.func @f(%a: tensor<4xf32>) {\n  %0 = stablehlo.add %a, %b : tensor<4xf32>\n}\n";
  capture c = {0};
  cr_assert_null(shard_module_parse("bad.mlir", text, strlen(text), on_diag, &c));
  cr_assert_geq(c.errors, 1);
  cr_assert(strncmp(c.text, "bad.mlir:2:", 11) == 0, "%s", c.text);
}

Test(api, unreadable_file_is_an_unlocated_error) {
  capture c = {0};
  cr_assert_null(shard_module_parse_file("/nonexistent/x.mlir", on_diag, &c));
  cr_assert_str_eq(c.text, "/nonexistent/x.mlir:0:0: error: cannot read: No such file or directory []\n");
}

Test(api, verify_flags_extra_warnings_and_werror) {
  const char *text = "sdy.mesh @mesh = <[\"x\"=3]>\n"
                     "func.func @f(%arg0: tensor<8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{\"x\"}]>}) {\n"
                     "  return\n"
                     "}\n";
  capture c = {0};
  shard_module *m = shard_module_parse("w.mlir", text, strlen(text), on_diag, &c);
  cr_assert_not_null(m);
  cr_assert_eq(shard_module_verify(m, 0, on_diag, &c), 0);
  cr_assert_eq(c.warnings, 0, "Shardy's verifier alone has no divisibility warning");
  cr_assert_eq(shard_module_verify(m, SHARD_VERIFY_EXTRA_WARNINGS, on_diag, &c), 0);
  cr_assert_eq(c.warnings, 1, "%s", c.text);
  cr_assert_eq(shard_module_verify(m, SHARD_VERIFY_EXTRA_WARNINGS | SHARD_VERIFY_WERROR, on_diag, &c), 1);
  shard_module_free(m);
}

Test(api, snippet_local_shapes) {
  capture c = {0};
  shard_sharding *s = shard_sharding_parse(
      "@mesh = <[\"x\"=2, \"y\"=4]>; sharding<@mesh, [{\"y\"}, {}, {\"x\"}]> : tensor<16x?x5xf32>", on_diag, &c);
  cr_assert_not_null(s, "%s", c.text);
  cr_assert_eq(shard_sharding_rank(s), 3);
  cr_assert_eq(shard_sharding_num_devices(s), 8);
  int64_t g[3], l[3];
  shard_sharding_global_dims(s, g);
  shard_sharding_local_dims(s, l);
  cr_assert(g[0] == 16 && g[1] == SHARD_DIM_DYNAMIC && g[2] == 5);
  cr_assert(l[0] == 4 && l[1] == SHARD_DIM_DYNAMIC && l[2] == 3, "%lld %lld %lld", (long long)l[0], (long long)l[1],
            (long long)l[2]);
  /* 5 over 2 devices pads: shard's own warning, not an error. */
  cr_assert_eq(c.warnings, 1, "%s", c.text);
  shard_sharding_free(s);
}

Test(api, snippet_errors_point_into_the_snippet) {
  capture c = {0};
  /* An unknown axis: the verifier's error, at the sharding line. */
  cr_assert_null(shard_sharding_parse("@m = <[\"x\"=2]>\nsharding<@m, [{\"q\"}]> : tensor<4xf32>", on_diag, &c));
  cr_assert_str_eq(c.text, "<snippet>:2:1: error: 'func.func' op arg 0 - unknown axis name: \"q\" "
                           "[sharding<@m, [{\"q\"}]> : tensor<4xf32>]\n");

  /* A parse error in copied text keeps its column: "expected '>'" points
   * just past 'tensor<4xf32', the end of the snippet. */
  capture p = {0};
  cr_assert_null(shard_sharding_parse("@m = <[\"x\"=2]>; sharding<@m, [{\"x\"}]> : tensor<4xf32", on_diag, &p));
  cr_assert(strncmp(p.text, "<snippet>:1:", 12) == 0, "%s", p.text);
  unsigned col = 0;
  sscanf(p.text + 12, "%u", &col);
  cr_assert_eq(col, 53, "%s", p.text);

  capture n = {0};
  cr_assert_null(shard_sharding_parse("@m = <[\"x\"=2]>", on_diag, &n));
  cr_assert(strstr(n.text, "expected a sharding line"), "%s", n.text);
}
