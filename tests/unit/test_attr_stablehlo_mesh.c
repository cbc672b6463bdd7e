/* StableHLO's mesh-axes replica groups and meshes: decoded once by the
 * parser into structs (attr_stablehlo_mesh.h), printed back as StableHLO
 * prints them in both forms, and malformed text is a located parse error. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "ir/attr_stablehlo_mesh.h"
#include "ir/ir.h"
#include "ir/parse.h"
#include "ir/print.h"

typedef struct captured {
  char text[512];
  uint32_t line, col;
  unsigned count;
} captured;

static void S_capture(void *ctx, const shard_diag *d) {
  captured *c = ctx;
  if (c->count++) return;
  snprintf(c->text, sizeof c->text, "%s", d->message);
  shard_span_linecol(d->span, &c->line, &c->col);
}

/* What a test allocated, released after it (LeakSanitizer runs in `make
 * asan`): sources, their text, module texts and parsed modules. */
enum { S_MAX_OWNED = 64 };
static void *S_owned[S_MAX_OWNED];
static shard_module *S_modules[S_MAX_OWNED];
static unsigned S_num_owned, S_num_modules;

static void *S_own(void *p) {
  cr_assert_lt(S_num_owned, S_MAX_OWNED, "raise S_MAX_OWNED");
  return S_owned[S_num_owned++] = p;
}

static void S_release(void) {
  for (unsigned i = 0; i < S_num_modules; i++) shard_module_free(S_modules[i]);
  for (unsigned i = 0; i < S_num_owned; i++) free(S_owned[i]);
  S_num_modules = S_num_owned = 0;
}

TestSuite(attr_stablehlo_mesh, .fini = S_release);

static shard_module *S_parse(const char *in, captured *diag) {
  static shard_diag_engine de;
  shard_source *src = S_own(malloc(sizeof *src));
  *src = (shard_source){"test.mlir", S_own(strdup(in)), strlen(in), 0};
  shard_diag_init(&de, S_capture, diag);
  shard_module *m = shard_parse_module(src, NULL, &de);
  cr_assert_lt(S_num_modules, S_MAX_OWNED, "raise S_MAX_OWNED");
  if (m) S_modules[S_num_modules++] = m;
  return m;
}

static char *S_print(shard_module *m, bool generic) {
  shard_buf b;
  shard_buf_init(&b);
  shard_print_options o = {0};
  o.generic = generic;
  o.properties_syntax = generic;
  shard_print_module(&b, m, &o);
  return shard_buf_take(&b);
}

/* The first op named `name` in the module. */
static shard_op *S_find(shard_op *op, const char *name) {
  if (!strcmp(op->name, name)) return op;
  for (uint32_t r = 0; r < op->num_regions; r++)
    for (shard_block *b = op->regions[r].first; b; b = b->next)
      for (shard_op *o = b->first; o; o = o->next) {
        shard_op *f = S_find(o, name);
        if (f) return f;
      }
  return NULL;
}

static const char S_symbol_group[] =
    "#stablehlo.replica_group_mesh_axes<mesh = @m, axes = [#stablehlo.axis_ref<name = \"y\">, "
    "#stablehlo.axis_ref<name = \"x\", sub_axis_info = (1)2>]>";
static const char S_inline_group[] =
    "#stablehlo.replica_group_mesh_axes<mesh = #stablehlo.mesh<axes=[<name = \"x\", size = 2>, "
    "<name = \"y\", size = 4>], device_ids=dense<[7, 6, 5, 4, 3, 2, 1, 0]> : tensor<8xi64>>, axes = []>";

static char *S_module(const char *group) {
  char *s = S_own(malloc(4096));
  snprintf(s, 4096,
           "module {\n"
           "  sdy.mesh @m = <[\"x\"=4, \"y\"=2]>\n"
           "  func.func @f(%%arg0: tensor<4xf32>) -> tensor<8xf32> {\n"
           "    %%0 = \"stablehlo.all_gather\"(%%arg0) <{all_gather_dim = 0 : i64, replica_groups = %s}> : "
           "(tensor<4xf32>) -> tensor<8xf32>\n"
           "    return %%0 : tensor<8xf32>\n"
           "  }\n"
           "}\n",
           group);
  return s;
}

/* `group` prints back byte for byte in the pretty and the generic form. */
static void S_expect_roundtrip(const char *group) {
  char *in = S_module(group);
  captured diag = {0};
  shard_module *m = S_parse(in, &diag);
  cr_assert_not_null(m, "%s", diag.text);
  const shard_attr *rg = shard_op_attr(S_find(m->top, "stablehlo.all_gather"), "replica_groups");
  cr_assert_eq(rg->kind, SHARD_ATTR_SHLO_MESH_AXES);
  for (int generic = 0; generic < 2; generic++) {
    char *out = S_print(m, generic);
    cr_expect_not_null(strstr(out, group), "expected\n%s\nin\n%s", group, out);
    shard_module *again = S_parse(out, &diag);
    cr_assert_not_null(again, "%s", diag.text);
    const shard_attr *rg2 = shard_op_attr(S_find(again->top, "stablehlo.all_gather"), "replica_groups");
    cr_expect(shard_attr_equal(rg, rg2));
    free(out);
  }
}

Test(attr_stablehlo_mesh, symbol_mesh_round_trips) { S_expect_roundtrip(S_symbol_group); }

Test(attr_stablehlo_mesh, inline_mesh_round_trips) { S_expect_roundtrip(S_inline_group); }

Test(attr_stablehlo_mesh, decodes_symbol_and_axis_refs) {
  captured diag = {0};
  shard_module *m = S_parse(S_module(S_symbol_group), &diag);
  cr_assert_not_null(m, "%s", diag.text);
  const shard_shlo_mesh_axes *g =
      shard_attr_mesh_axes(shard_op_attr(S_find(m->top, "stablehlo.all_gather"), "replica_groups"));
  cr_assert_not_null(g);
  cr_expect_str_eq(shard_shlo_mesh_axes_symbol(g), "m");
  cr_expect_null(shard_attr_shlo_mesh(g->mesh));
  cr_assert_eq(g->num_axes, 2);
  cr_expect_str_eq(g->axes[0].name, "y");
  cr_expect(!g->axes[0].is_sub);
  cr_expect_str_eq(g->axes[1].name, "x");
  cr_expect(g->axes[1].is_sub);
  cr_expect_eq(g->axes[1].pre_size, 1);
  cr_expect_eq(g->axes[1].size, 2);
}

/* Either spelling of a mesh axis is read, spaces and line breaks anywhere,
 * and the struct's fields in any order; the print is StableHLO's. */
Test(attr_stablehlo_mesh, decodes_inline_mesh_in_any_spelling) {
  captured diag = {0};
  shard_module *m =
      S_parse(S_module("#stablehlo.replica_group_mesh_axes<\n"
                       "      axes = [#stablehlo.axis_ref<name = \"y\">],\n"
                       "      mesh = #stablehlo.mesh<axes = [#stablehlo.mesh_axis<size = 2, name = \"x\">,\n"
                       "        <name = \"y\", size = 4>], device_ids = dense<[7, 6, 5, 4, 3, 2, 1, 0]> "
                       ": tensor<8xi64>>\n    >"),
              &diag);
  cr_assert_not_null(m, "%s", diag.text);
  const shard_shlo_mesh_axes *g =
      shard_attr_mesh_axes(shard_op_attr(S_find(m->top, "stablehlo.all_gather"), "replica_groups"));
  cr_assert_not_null(g);
  cr_expect_null(shard_shlo_mesh_axes_symbol(g));
  const shard_shlo_mesh *mesh = shard_attr_shlo_mesh(g->mesh);
  cr_assert_not_null(mesh);
  cr_assert_eq(mesh->num_axes, 2);
  cr_expect_str_eq(mesh->axes[0].name, "x");
  cr_expect_eq(mesh->axes[0].size, 2);
  cr_expect_str_eq(mesh->axes[1].name, "y");
  cr_expect_eq(mesh->axes[1].size, 4);
  shard_i64s ids;
  cr_assert(shard_attr_i64_list(mesh->device_ids, &ids));
  cr_assert_eq(ids.n, 8);
  cr_expect_eq(ids.v[0], 7);
  cr_expect_eq(ids.v[7], 0);
  char *out = S_print(m, false);
  cr_expect_not_null(strstr(out,
                            "replica_groups = #stablehlo.replica_group_mesh_axes<mesh = #stablehlo.mesh<axes=[<name "
                            "= \"x\", size = 2>, <name = \"y\", size = 4>], device_ids=dense<[7, 6, 5, 4, 3, 2, "
                            "1, 0]> : tensor<8xi64>>, axes = [#stablehlo.axis_ref<name = \"y\">]>"),
                     "%s", out);
  free(out);
}

/* A mesh symbol's own #stablehlo.mesh attribute is typed too. */
Test(attr_stablehlo_mesh, mesh_attribute_of_a_symbol) {
  captured diag = {0};
  shard_module *m = S_parse("\"test.mesh\"() {sym_name = \"m\", mesh = #stablehlo.mesh<axes=[]>} : () -> ()\n", &diag);
  cr_assert_not_null(m, "%s", diag.text);
  const shard_shlo_mesh *mesh = shard_attr_shlo_mesh(shard_op_attr(S_find(m->top, "test.mesh"), "mesh"));
  cr_assert_not_null(mesh);
  cr_expect_eq(mesh->num_axes, 0);
  cr_expect_null(mesh->device_ids);
  char *out = S_print(m, false);
  cr_expect_not_null(strstr(out, "mesh = #stablehlo.mesh<axes=[]>"), "%s", out);
  free(out);
}

/* The mesh of a group may be an alias of a #stablehlo.mesh, as anywhere
 * MLIR parses an attribute; it prints inline. */
Test(attr_stablehlo_mesh, mesh_through_an_alias) {
  captured diag = {0};
  char *mod = S_module("#stablehlo.replica_group_mesh_axes<mesh = #shlo_mesh, axes = []>");
  char in[4200];
  snprintf(in, sizeof in, "#shlo_mesh = #stablehlo.mesh<axes=[<name = \"x\", size = 2>]>\n%s", mod);
  shard_module *m = S_parse(in, &diag);
  cr_assert_not_null(m, "%s", diag.text);
  const shard_shlo_mesh_axes *g =
      shard_attr_mesh_axes(shard_op_attr(S_find(m->top, "stablehlo.all_gather"), "replica_groups"));
  cr_assert_not_null(g);
  cr_assert_not_null(shard_attr_shlo_mesh(g->mesh));
  cr_expect_str_eq(shard_attr_shlo_mesh(g->mesh)->axes[0].name, "x");
  char *out = S_print(m, false);
  cr_expect_not_null(strstr(out, "mesh = #stablehlo.mesh<axes=[<name = \"x\", size = 2>]>, axes = []>"), "%s", out);
  free(out);
}

/* Builders print what the parser reads. */
Test(attr_stablehlo_mesh, built_group_prints_as_parsed) {
  shard_arena *a = shard_arena_new();
  shard_axis_ref axes[2] = {{.name = "y"}, {.name = "x", .is_sub = true, .pre_size = 1, .size = 2}};
  shard_attr *g = shard_attr_mesh_axes_new(a, shard_attr_symbol_ref(a, "m"), axes, 2);
  shard_buf b;
  shard_buf_init(&b);
  shard_attr_print(&b, g);
  cr_expect_str_eq(shard_buf_str(&b), S_symbol_group);
  shard_buf_free(&b);
  shard_arena_free(a);
}

static void S_expect_error(const char *group, uint32_t col, const char *msg) {
  captured diag = {0};
  cr_expect_null(S_parse(S_module(group), &diag), "%s parsed", group);
  cr_expect_str_eq(diag.text, msg);
  cr_expect_eq(diag.line, 4);
  /* the op line's text before the attribute is 84 characters; col is 1-based in `group` */
  cr_expect_eq(diag.col, 84 + col, "column %u for %s", diag.col, msg);
}

Test(attr_stablehlo_mesh, malformed_is_a_located_error) {
  S_expect_error("#stablehlo.replica_group_mesh_axes<mesh = @m, axes = [#stablehlo.axis_ref<name = 3>]>", 82,
                 "expected string");
  S_expect_error("#stablehlo.replica_group_mesh_axes<mesh = @m, axis = []>", 47,
                 "duplicate or unknown struct parameter name: axis");
  S_expect_error("#stablehlo.replica_group_mesh_axes<mesh = @m>", 45, "struct is missing required parameter: axes");
  S_expect_error("#stablehlo.replica_group_mesh_axes<mesh = @m, axes = [#stablehlo.foo<x>]>", 55,
                 "expected '#stablehlo.axis_ref'");
  S_expect_error("#stablehlo.replica_group_mesh_axes<mesh = #stablehlo.mesh<axes = [<name = \"x\">]>, axes = []>", 78,
                 "struct is missing required parameter: size");
}
