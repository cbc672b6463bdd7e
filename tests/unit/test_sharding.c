/* Tensor shardings (sharding.c), the sdy attribute printer (sdy_print.c) and
 * parser (sdy_parse.c) for meshes, shardings, per-value lists, propagation
 * edges and the op-parameter kinds. */
#include <criterion/criterion.h>
#include <stdlib.h>

#include "ir/attr.h"
#include "sdy_testing.h"
#include "sdy/sharding.h"
#include "ir/type.h"

static shard_mesh_axis axes_abcd[] = {{"a", 2}, {"c", 2}, {"b", 4}, {"d", 2}};
static shard_mesh mesh_foo = {axes_abcd, 4, NULL, 0, {0}};

static shard_axis_ref full(const char *name) {
  shard_axis_ref r = {name, false, 0, 0};
  return r;
}

static shard_axis_ref sub(const char *name, int64_t pre, int64_t size) {
  shard_axis_ref r = {name, true, pre, size};
  return r;
}

static shard_dim_sharding dim(shard_axis_ref *axes, uint32_t n, bool open, int64_t priority) {
  shard_dim_sharding d = {axes, n, open, priority};
  return d;
}

static char *sharding_str(const shard_tensor_sharding *s) {
  shard_buf b;
  shard_buf_init(&b);
  shard_sharding_print(&b, s);
  return shard_buf_take(&b);
}

#define EXPECT_PRINTS(s, want)                                                                                         \
  do {                                                                                                                 \
    char *got_ = sharding_str(s);                                                                                      \
    cr_expect_str_eq(got_, want);                                                                                      \
    free(got_);                                                                                                        \
  } while (0)

Test(sharding, print_dims_open_closed_priority) {
  shard_axis_ref ab[] = {full("a"), full("b")};
  shard_dim_sharding dims[] = {dim(ab, 2, true, SHARD_NO_PRIORITY), dim(NULL, 0, false, SHARD_NO_PRIORITY)};
  shard_tensor_sharding s = {.mesh_name = "foo", .dims = dims, .rank = 2};
  EXPECT_PRINTS(&s, "<@foo, [{\"a\", \"b\", ?}, {}]>");

  shard_dim_sharding dims2[] = {dim(ab, 1, false, 0), dim(NULL, 0, true, SHARD_NO_PRIORITY), dim(ab + 1, 1, false, 12)};
  shard_tensor_sharding s2 = {.mesh_name = "foo", .dims = dims2, .rank = 3};
  EXPECT_PRINTS(&s2, "<@foo, [{\"a\"}p0, {?}, {\"b\"}p12]>");

  shard_tensor_sharding scalar = {.mesh_name = "maximal_mesh"};
  EXPECT_PRINTS(&scalar, "<@maximal_mesh, []>");
}

Test(sharding, print_replicated_then_unreduced) {
  shard_axis_ref a = full("a"), b = full("b");
  shard_dim_sharding dims[] = {dim(NULL, 0, false, SHARD_NO_PRIORITY), dim(NULL, 0, false, SHARD_NO_PRIORITY)};
  shard_tensor_sharding s = {.mesh_name = "foo",
                             .dims = dims,
                             .rank = 2,
                             .replicated = &a,
                             .num_replicated = 1,
                             .unreduced = &b,
                             .num_unreduced = 1,
                             .reduction = SHARD_RED_MAX};
  EXPECT_PRINTS(&s, "<@foo, [{}, {}], replicated={\"a\"}, unreduced=max{\"b\"}>");
  s.reduction = SHARD_RED_SUM;
  EXPECT_PRINTS(&s, "<@foo, [{}, {}], replicated={\"a\"}, unreduced={\"b\"}>");
  s.num_replicated = 0;
  s.reduction = SHARD_RED_MIN;
  EXPECT_PRINTS(&s, "<@foo, [{}, {}], unreduced=min{\"b\"}>");
  /* The reduction of an empty unreduced list is not printed. */
  s.num_unreduced = 0;
  EXPECT_PRINTS(&s, "<@foo, [{}, {}]>");
}

Test(sharding, print_sub_axes_inline_mesh_and_quoted_symbol) {
  shard_axis_ref axes[] = {sub("a", 1, 2), full("b"), sub("a", 2, 2)};
  shard_dim_sharding dims[] = {dim(axes, 3, false, SHARD_NO_PRIORITY), dim(NULL, 0, false, SHARD_NO_PRIORITY)};
  shard_tensor_sharding s = {.mesh_name = "bar", .dims = dims, .rank = 2};
  EXPECT_PRINTS(&s, "<@bar, [{\"a\":(1)2, \"b\", \"a\":(2)2}, {}]>");

  shard_mesh_axis x2[] = {{"x", 2}};
  int64_t ids[] = {1, 0};
  shard_mesh m = {x2, 1, ids, 2, {0}};
  shard_axis_ref x = full("x");
  shard_dim_sharding d2[] = {dim(&x, 1, false, SHARD_NO_PRIORITY), dim(NULL, 0, false, SHARD_NO_PRIORITY)};
  shard_tensor_sharding inl = {.inline_mesh = &m, .dims = d2, .rank = 2};
  EXPECT_PRINTS(&inl, "<mesh<[\"x\"=2], device_ids=[1, 0]>, [{\"x\"}, {}]>");

  shard_tensor_sharding q = {.mesh_name = "my mesh"};
  EXPECT_PRINTS(&q, "<@\"my mesh\", []>");
}

Test(sharding, list_print) {
  shard_tensor_sharding s[2] = {{.mesh_name = "m"}, {.mesh_name = "n"}};
  shard_buf b;
  shard_buf_init(&b);
  shard_sharding_list_print(&b, s, 2);
  cr_expect_str_eq(shard_buf_str(&b), "[<@m, []>, <@n, []>]");
  shard_buf_clear(&b);
  shard_sharding_list_print(&b, s, 0);
  cr_expect_str_eq(shard_buf_str(&b), "[]");
  shard_buf_free(&b);
}

Test(sharding, equality_and_replication) {
  shard_axis_ref a1 = full("a"), a2 = full("a"), b = full("b");
  shard_dim_sharding d1[] = {dim(&a1, 1, false, SHARD_NO_PRIORITY), dim(NULL, 0, true, SHARD_NO_PRIORITY)};
  shard_dim_sharding d2[] = {dim(&a2, 1, false, SHARD_NO_PRIORITY), dim(NULL, 0, true, SHARD_NO_PRIORITY)};
  shard_tensor_sharding s1 = {.mesh_name = "foo", .dims = d1, .rank = 2};
  shard_tensor_sharding s2 = {.mesh_name = "foo", .dims = d2, .rank = 2};
  cr_expect(shard_sharding_equal(&s1, &s2));
  s2.mesh_name = "bar";
  cr_expect_not(shard_sharding_equal(&s1, &s2), "different mesh");
  s2.mesh_name = "foo";
  d2[1].is_open = false;
  cr_expect_not(shard_sharding_equal(&s1, &s2), "open vs closed");
  d2[1].is_open = true;
  d2[0].priority = 1;
  cr_expect_not(shard_sharding_equal(&s1, &s2), "priority differs");
  d2[0].priority = SHARD_NO_PRIORITY;
  s2.replicated = &b;
  s2.num_replicated = 1;
  cr_expect_not(shard_sharding_equal(&s1, &s2), "replicated differs");
  s2.num_replicated = 0;
  cr_expect(shard_sharding_equal(&s1, &s2));

  cr_expect_not(shard_sharding_fully_replicated(&s1));
  shard_dim_sharding open_empty[] = {dim(NULL, 0, true, SHARD_NO_PRIORITY), dim(NULL, 0, false, 0)};
  shard_tensor_sharding r = {.mesh_name = "foo", .dims = open_empty, .rank = 2, .replicated = &b, .num_replicated = 1};
  cr_expect(shard_sharding_fully_replicated(&r), "open and replicated axes don't shard any dim");
}

Test(sharding, dim_size_and_local_shape) {
  shard_axis_ref d0[] = {full("a"), full("b")}, d1[] = {sub("b", 2, 2)};
  shard_dim_sharding dims[] = {dim(d0, 2, false, SHARD_NO_PRIORITY), dim(d1, 1, true, SHARD_NO_PRIORITY),
                               dim(NULL, 0, false, SHARD_NO_PRIORITY)};
  shard_tensor_sharding s = {.mesh_name = "foo", .dims = dims, .rank = 3};
  cr_expect_eq(shard_sharding_dim_size(&s, 0, &mesh_foo), 8);
  cr_expect_eq(shard_sharding_dim_size(&s, 1, &mesh_foo), 2);
  cr_expect_eq(shard_sharding_dim_size(&s, 2, &mesh_foo), 1);

  int64_t global[] = {16, 6, 5}, local[3];
  shard_sharding_local_shape(&s, &mesh_foo, global, local);
  cr_expect(local[0] == 2 && local[1] == 3 && local[2] == 5);

  /* Non-divisible dims are legal: ceil(d / n). */
  int64_t odd[] = {10, 7, 1};
  shard_sharding_local_shape(&s, &mesh_foo, odd, local);
  cr_expect_eq(local[0], 2, "ceil(10/8)");
  cr_expect_eq(local[1], 4, "ceil(7/2)");
  cr_expect_eq(local[2], 1);

  int64_t dyn[] = {SHARD_DYNAMIC_DIM, 0, 3};
  shard_sharding_local_shape(&s, &mesh_foo, dyn, local);
  cr_expect_eq(local[0], SHARD_DYNAMIC_DIM, "dynamic dims stay dynamic");
  cr_expect_eq(local[1], 0);
  cr_expect_eq(local[2], 3);
}

/* ---- the attribute printer on hand-built attributes ------------------- */

static char *attr_str(const shard_attr *a) {
  shard_buf b;
  shard_buf_init(&b);
  shard_sdy_attr_print(&b, a);
  return shard_buf_take(&b);
}

#define EXPECT_ATTR(a, want)                                                                                           \
  do {                                                                                                                 \
    char *got_ = attr_str(a);                                                                                          \
    cr_expect_str_eq(got_, want);                                                                                      \
    free(got_);                                                                                                        \
  } while (0)

Test(sdy_print, op_parameter_kinds) {
  shard_attr a = {0};
  shard_axis_ref xy[] = {full("x"), sub("y", 1, 2)};
  a.kind = SHARD_ATTR_SDY_AXIS_LIST;
  a.u.axis_list.axes = xy;
  a.u.axis_list.num = 2;
  EXPECT_ATTR(&a, "{\"x\", \"y\":(1)2}");

  shard_axis_list lists[] = {{NULL, 0}, {xy, 1}};
  a.kind = SHARD_ATTR_SDY_AXIS_LISTS;
  a.u.axis_lists.dims = lists;
  a.u.axis_lists.num = 2;
  EXPECT_ATTR(&a, "[{}, {\"x\"}]");

  shard_axis_ref y = full("y");
  shard_all_to_all_param params[] = {{{xy, 1}, 0, 2}, {{&y, 1}, 1, 3}};
  a.kind = SHARD_ATTR_SDY_ALL_TO_ALL;
  a.u.all_to_all.params = params;
  a.u.all_to_all.num = 2;
  EXPECT_ATTR(&a, "[{\"x\"}: 0->2, {\"y\"}: 1->3]");

  const char *names[] = {"a", "b"};
  a.kind = SHARD_ATTR_SDY_MANUAL_AXES;
  a.u.manual_axes.names = names;
  a.u.manual_axes.num = 2;
  EXPECT_ATTR(&a, "{\"a\", \"b\"}");
  a.u.manual_axes.num = 0;
  EXPECT_ATTR(&a, "{}");

  a.kind = SHARD_ATTR_SDY_REDUCTION;
  a.u.reduction = SHARD_RED_SUM;
  EXPECT_ATTR(&a, "sum");
  a.u.reduction = SHARD_RED_MAX;
  EXPECT_ATTR(&a, "max");
  a.u.reduction = SHARD_RED_MIN;
  EXPECT_ATTR(&a, "min");

  a.kind = SHARD_ATTR_SDY_DIRECTION;
  const struct {
    shard_direction d;
    const char *text;
  } dirs[] = {{SHARD_DIR_FORWARD, "FORWARD"},
              {SHARD_DIR_BACKWARD, "BACKWARD"},
              {SHARD_DIR_NONE, "NONE"},
              {SHARD_DIR_BOTH, "BOTH"}};
  for (size_t i = 0; i < 4; i++) {
    a.u.direction = dirs[i].d;
    EXPECT_ATTR(&a, dirs[i].text);
  }
}

Test(sdy_print, prefixed_kinds) {
  shard_attr a = {0};
  shard_mesh empty = {0};
  a.kind = SHARD_ATTR_SDY_MESH;
  a.u.mesh = &empty;
  EXPECT_ATTR(&a, "#sdy.mesh<[]>");

  shard_tensor_sharding s = {.mesh_name = "m"};
  a.kind = SHARD_ATTR_SDY_SHARDING;
  a.u.sharding = &s;
  EXPECT_ATTR(&a, "#sdy.sharding<@m, []>");

  shard_sharding_per_value pv = {&s, 1, {0}};
  a.kind = SHARD_ATTR_SDY_PER_VALUE;
  a.u.per_value = &pv;
  EXPECT_ATTR(&a, "#sdy.sharding_per_value<[<@m, []>]>");

  shard_value_ref targets[] = {{false, 0}, {true, 0}};
  shard_axis_edge e1 = {full("y"), {false, 1}, targets, 2};
  shard_axis_edge e2 = {full("x"), {true, 0}, targets, 1};
  shard_edge_step steps[] = {{2, &e1, 1}, {12345, &e2, 1}};
  a.kind = SHARD_ATTR_SDY_EDGES;
  a.u.edges.steps = steps;
  a.u.edges.num = 2;
  EXPECT_ATTR(&a, "#sdy.propagation_edges<[{step-2 = [{\"y\" = operand-1 -> [operand-0, result-0]}]}, "
                  "{step-12345 = [{\"x\" = result-0 -> [operand-0]}]}]>");
}

/* ---- parser round trips ------------------------------------------------------ */

#define EXPECT_ROUNDTRIP(in, want)                                                                                     \
  do {                                                                                                                 \
    char *got_ = sdy_roundtrip(in);                                                                                    \
    cr_expect_str_eq(got_, want);                                                                                      \
    free(got_);                                                                                                        \
  } while (0)

Test(sdy_parse, meshes) {
  EXPECT_ROUNDTRIP("#sdy.mesh<[]>", "#sdy.mesh<[]>");
  EXPECT_ROUNDTRIP("#sdy.mesh<[], device_ids=[3]>", "#sdy.mesh<[], device_ids=[3]>");
  EXPECT_ROUNDTRIP("#sdy.mesh<[], device_ids=[0]>", "#sdy.mesh<[], device_ids=[0]>");
  EXPECT_ROUNDTRIP("#sdy.mesh<[\"a\"=2,\"b\"=1], device_ids=[1, 0]>",
                   "#sdy.mesh<[\"a\"=2, \"b\"=1], device_ids=[1, 0]>");
  EXPECT_ROUNDTRIP("#sdy.mesh<[\"a\"=2, \"b\"=2], device_ids=[0, 1, 2, 3]>", "#sdy.mesh<[\"a\"=2, \"b\"=2]>");
  EXPECT_ROUNDTRIP("#sdy.mesh<[\"a\"=1], device_ids=[0]>", "#sdy.mesh<[\"a\"=1]>");
  /* Older dumps: no brackets, no comma before device_ids, device_id=N. */
  EXPECT_ROUNDTRIP("#sdy.mesh<\"a\"=8, \"b\"=8>", "#sdy.mesh<[\"a\"=8, \"b\"=8]>");
  EXPECT_ROUNDTRIP("#sdy.mesh<[\"a\"=2] device_ids=[1, 0]>", "#sdy.mesh<[\"a\"=2], device_ids=[1, 0]>");
  EXPECT_ROUNDTRIP("#sdy.mesh<device_id=3>", "#sdy.mesh<[], device_ids=[3]>");
  /* Sizes are not checked by the parser. */
  EXPECT_ROUNDTRIP("#sdy.mesh<[\"a\"=0], device_ids=[-1]>", "#sdy.mesh<[\"a\"=0], device_ids=[-1]>");
}

Test(sdy_parse, shardings) {
  EXPECT_ROUNDTRIP("#sdy.sharding<@foo, [{\"a\", \"b\", ?}, {}], replicated={\"a\"}, unreduced=max{\"b\"}>",
                   "#sdy.sharding<@foo, [{\"a\", \"b\", ?}, {}], replicated={\"a\"}, unreduced=max{\"b\"}>");
  EXPECT_ROUNDTRIP("#sdy.sharding<@foo, [{}, {}], unreduced={\"b\"}, replicated={\"a\"}>",
                   "#sdy.sharding<@foo, [{}, {}], replicated={\"a\"}, unreduced={\"b\"}>");
  EXPECT_ROUNDTRIP("#sdy.sharding<@foo, [{}], unreduced=sum{\"b\"}>", "#sdy.sharding<@foo, [{}], unreduced={\"b\"}>");
  EXPECT_ROUNDTRIP("#sdy.sharding<@foo, [{}], unreduced=min{\"b\"}>",
                   "#sdy.sharding<@foo, [{}], unreduced=min{\"b\"}>");
  EXPECT_ROUNDTRIP("#sdy.sharding<@foo, [{\"a\"}p0, {?}p3, {\"b\"}]>",
                   "#sdy.sharding<@foo, [{\"a\"}p0, {?}p3, {\"b\"}]>");
  EXPECT_ROUNDTRIP("#sdy.sharding<@mesh7, [{\"y\"}, {\"x\": (2)4}]>", "#sdy.sharding<@mesh7, [{\"y\"}, {\"x\":(2)4}]>");
  EXPECT_ROUNDTRIP("#sdy.sharding<@m, [{\"a\":(-1)2}]>", "#sdy.sharding<@m, [{\"a\":(-1)2}]>");
  EXPECT_ROUNDTRIP("#sdy.sharding<mesh<[\"x\"=2], device_ids=[1, 0]>, [{\"x\"}, {}]>",
                   "#sdy.sharding<mesh<[\"x\"=2], device_ids=[1, 0]>, [{\"x\"}, {}]>");
  EXPECT_ROUNDTRIP("#sdy.sharding<@maximal_mesh, []>", "#sdy.sharding<@maximal_mesh, []>");
}

Test(sdy_parse, sharding_model) {
  sdy_parsed r;
  sdy_parse_attr(&r, "#sdy.sharding<@foo, [{\"a\":(1)2, \"b\", ?}p1, {}]>");
  cr_assert_not_null(r.attr, "%s", r.diags.text);
  cr_assert_eq(r.attr->kind, SHARD_ATTR_SDY_SHARDING);
  const shard_tensor_sharding *s = r.attr->u.sharding;
  cr_expect_str_eq(s->mesh_name, "foo");
  cr_assert_eq(s->rank, 2);
  cr_expect_eq(s->dims[0].num_axes, 2);
  cr_expect(s->dims[0].axes[0].is_sub && s->dims[0].axes[0].pre_size == 1 && s->dims[0].axes[0].size == 2);
  cr_expect_str_eq(s->dims[0].axes[1].name, "b");
  cr_expect(s->dims[0].is_open);
  cr_expect_eq(s->dims[0].priority, 1);
  cr_expect_not(s->dims[1].is_open);
  cr_expect_eq(s->dims[1].priority, SHARD_NO_PRIORITY);
  cr_expect_eq(s->reduction, SHARD_RED_SUM);
  /* The span covers the attribute text exactly. */
  cr_expect_eq(r.attr->span.len, strlen("#sdy.sharding<@foo, [{\"a\":(1)2, \"b\", ?}p1, {}]>"));
  sdy_parsed_free(&r);
}

Test(sdy_parse, per_value_edges_and_bare_forms) {
  EXPECT_ROUNDTRIP("#sdy.sharding_per_value<[<mesh<[\"a\"=2, \"b\"=4]>, [{\"a\"}, {}]>, <@foo, [{\"a\"}, {}]>]>",
                   "#sdy.sharding_per_value<[<mesh<[\"a\"=2, \"b\"=4]>, [{\"a\"}, {}]>, <@foo, [{\"a\"}, {}]>]>");
  EXPECT_ROUNDTRIP("#sdy.sharding_per_value<[]>", "#sdy.sharding_per_value<[]>");
  const char *edges = "#sdy.propagation_edges<[{step-2 = [{\"y\" = operand-1 -> [operand-0, result-0]}]}, "
                      "{step-12345 = [{\"x\" = result-0 -> [operand-0]}]}]>";
  EXPECT_ROUNDTRIP(edges, edges);
  EXPECT_ROUNDTRIP("#sdy<manual_axes{\"a\", \"b\"}>", "{\"a\", \"b\"}");
  EXPECT_ROUNDTRIP("#sdy<manual_axes{}>", "{}");
  EXPECT_ROUNDTRIP("#sdy<axis_ref_list{\"x\", \"y\":(1)2}>", "{\"x\", \"y\":(1)2}");
  EXPECT_ROUNDTRIP("#sdy<list_of_axis_ref_lists[{}, {\"x\"}]>", "[{}, {\"x\"}]");
  EXPECT_ROUNDTRIP("#sdy<all_to_all_param_list[{\"x\"}: 0->2, {\"y\"}: 1->3]>", "[{\"x\"}: 0->2, {\"y\"}: 1->3]");
  EXPECT_ROUNDTRIP("#sdy<reduction_op max>", "max");
  EXPECT_ROUNDTRIP("#sdy<propagation_direction BACKWARD>", "BACKWARD");
}

Test(sdy_parse, bare_form_kinds) {
  sdy_parsed r;
  sdy_parse_attr(&r, "#sdy<manual_axes{\"a\", \"b\"}>");
  cr_assert_not_null(r.attr, "%s", r.diags.text);
  cr_expect_eq(r.attr->kind, SHARD_ATTR_SDY_MANUAL_AXES);
  cr_expect_eq(r.attr->u.manual_axes.num, 2);
  sdy_parsed_free(&r);
  sdy_parse_attr(&r, "#sdy<propagation_direction NONE>");
  cr_assert_not_null(r.attr, "%s", r.diags.text);
  cr_expect_eq(r.attr->kind, SHARD_ATTR_SDY_DIRECTION);
  cr_expect_eq(r.attr->u.direction, SHARD_DIR_NONE);
  sdy_parsed_free(&r);

  char *e = sdy_errors("#sdy<bogus{}>");
  cr_expect_str_eq(e, "unknown attribute `bogus` in dialect `sdy`\n");
  free(e);
  e = sdy_errors("#sdy.bogus<>");
  cr_expect_str_eq(e, "unknown attribute `bogus` in dialect `sdy`\n");
  free(e);
  e = sdy_errors("#sdy.propagation_edges<[{step-2 = [{\"y\" = input-1 -> [operand-0]}]}]>");
  cr_expect_str_eq(e, "expected ::mlir::sdy::EdgeNodeType to be one of: operand, result\n");
  free(e);
}

Test(sdy_parse, sharding_errors) {
  char *e = sdy_errors("#sdy.sharding_per_value<[<@foo, [{\"a\"}, {\"b\"}phigh]>]>");
  cr_expect_str_eq(e, "expecting priority in format 'p<number>', got: phigh\n"
                      "failed to parse Sdy_TensorSharding parameter 'dim_shardings' which is to be a "
                      "`::llvm::ArrayRef<DimensionShardingAttr>`\n"
                      "failed to parse Sdy_TensorShardingPerValue parameter 'shardings' which is to be a "
                      "`::llvm::ArrayRef<TensorShardingAttr>`\n");
  free(e);

  e = sdy_errors("#sdy.sharding<@foo, [{\"a\"}p01, {\"b\"}]>");
  cr_expect_str_eq(e, "priorities with leading zeros are not allowed, got: p01\n"
                      "failed to parse Sdy_TensorSharding parameter 'dim_shardings' which is to be a "
                      "`::llvm::ArrayRef<DimensionShardingAttr>`\n");
  free(e);

  e = sdy_errors("#sdy.sharding<@foo, [{}, {}], replicated={\"a\", b}>");
  cr_expect_str_eq(e, "expected string\n"
                      "failed to parse Sdy_AxisRef parameter 'name' which is to be a `::llvm::StringRef`\n"
                      "failed to parse axis list which is expected to be an `ArrayRef<AxisRefAttr>`\n"
                      "failed to parse Sdy_TensorSharding parameter 'replicated_axes'\n");
  free(e);

  e = sdy_errors("#sdy.sharding<@foo, [{}, {}], replicated unreduced={\"a\"}>");
  cr_expect_str_eq(e, "expected '='\nfailed to parse Sdy_TensorSharding parameter 'replicated_axes'\n");
  free(e);

  e = sdy_errors("#sdy.sharding<@foo, [{}, {}], unreduced={\"a\", \"b\"[]}>");
  cr_expect_str_eq(e, "expected '}'\nfailed to parse Sdy_TensorSharding parameter 'unreduced_axes'\n");
  free(e);

  const char *after_comma[] = {
      "#sdy.sharding<@foo, [{}, {}],>",
      "#sdy.sharding<@foo, [{}, {}], unknown={\"a\"}>",
      "#sdy.sharding<@foo, [{}, {}], replicated={\"a\"}, >",
      "#sdy.sharding<@foo, [{}, {}], replicated={\"a\"}, replicated={\"b\"}>",
      "#sdy.sharding<@foo, [{}, {}], unreduced={\"a\"}, unreduced={\"b\"}>",
  };
  for (size_t i = 0; i < sizeof after_comma / sizeof *after_comma; i++) {
    e = sdy_errors(after_comma[i]);
    cr_expect_str_eq(e, "failed to parse Sdy_TensorSharding, expected valid named axis list after comma\n", "for %s",
                     after_comma[i]);
    free(e);
  }

  e = sdy_errors("#sdy.sharding<@foo, [{\"a\" ?}]>");
  cr_expect(strncmp(e, "expected ','\n", 13) == 0, "got %s", e);
  free(e);
  e = sdy_errors("#sdy.sharding<@foo, [{?, \"a\"}]>");
  cr_expect(strncmp(e, "expected '}'\n", 13) == 0, "'?' must be last, got %s", e);
  free(e);
}
