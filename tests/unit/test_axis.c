/* Axis refs and the sub-axis algebra (axis.c), and meshes (mesh.c). */
#include <criterion/criterion.h>
#include <stdlib.h>

#include "sdy/sharding.h"

static shard_mesh_axis axes_xyz[] = {{"x", 8}, {"y", 4}, {"z", 2}};
static shard_mesh mesh_xyz = {axes_xyz, 3, NULL, 0, {0}};

static shard_axis_ref full(const char *name) {
  shard_axis_ref r = {name, false, 0, 0};
  return r;
}

static shard_axis_ref sub(const char *name, int64_t pre, int64_t size) {
  shard_axis_ref r = {name, true, pre, size};
  return r;
}

/* Prints with `print` into a static buffer's worth of text the test frees. */
static char *axis_str(const shard_axis_ref *r) {
  shard_buf b;
  shard_buf_init(&b);
  shard_axis_print(&b, r);
  return shard_buf_take(&b);
}

Test(axis, sizes_and_ranges) {
  shard_axis_ref x = full("x"), x12 = sub("x", 1, 2), w = full("w");
  int64_t pre, size;
  cr_expect_eq(shard_axis_size(&x, &mesh_xyz), 8);
  cr_expect_eq(shard_axis_size(&x12, &mesh_xyz), 2);
  cr_expect_eq(shard_axis_size(&w, &mesh_xyz), -1, "unknown axis has no size");
  shard_axis_range(&x, &mesh_xyz, &pre, &size);
  cr_expect(pre == 1 && size == 8);
  shard_axis_range(&x12, &mesh_xyz, &pre, &size);
  cr_expect(pre == 1 && size == 2);
}

Test(axis, equality) {
  shard_axis_ref a = sub("x", 2, 2), b = sub("x", 2, 2), c = sub("x", 2, 4), d = full("x");
  cr_expect(shard_axis_equal(&a, &b));
  cr_expect_not(shard_axis_equal(&a, &c));
  cr_expect_not(shard_axis_equal(&a, &d));
  shard_axis_ref y = full("y");
  cr_expect_not(shard_axis_equal(&d, &y));
}

Test(axis, overlap) {
  shard_axis_ref x = full("x"), y = full("y");
  shard_axis_ref x12 = sub("x", 1, 2), x22 = sub("x", 2, 2), x14 = sub("x", 1, 4), x24 = sub("x", 2, 4),
                 x42 = sub("x", 4, 2);
  cr_expect(shard_axis_overlaps(&x, &x12, &mesh_xyz), "full axis overlaps its sub-axes");
  cr_expect(shard_axis_overlaps(&x22, &x, &mesh_xyz));
  cr_expect(shard_axis_overlaps(&x, &x, &mesh_xyz));
  cr_expect_not(shard_axis_overlaps(&x, &y, &mesh_xyz));
  cr_expect_not(shard_axis_overlaps(&x12, &x22, &mesh_xyz), "adjacent ranges [1,2) and [2,4)");
  cr_expect(shard_axis_overlaps(&x14, &x24, &mesh_xyz), "[1,4) and [2,8) share [2,4)");
  cr_expect(shard_axis_overlaps(&x24, &x14, &mesh_xyz));
  cr_expect_not(shard_axis_overlaps(&x14, &x42, &mesh_xyz));
  shard_axis_ref y12 = sub("y", 1, 2);
  cr_expect_not(shard_axis_overlaps(&x12, &y12, &mesh_xyz), "different axes never overlap");
}

Test(axis, containment) {
  shard_axis_ref x = full("x"), x12 = sub("x", 1, 2), x14 = sub("x", 1, 4), x22 = sub("x", 2, 2),
                 x24 = sub("x", 2, 4), y = full("y");
  cr_expect(shard_axis_contains(&x, &x24, &mesh_xyz));
  cr_expect(shard_axis_contains(&x, &x, &mesh_xyz));
  cr_expect_not(shard_axis_contains(&x24, &x, &mesh_xyz), "a sub-axis never contains its full axis");
  cr_expect(shard_axis_contains(&x14, &x12, &mesh_xyz));
  cr_expect(shard_axis_contains(&x14, &x22, &mesh_xyz));
  cr_expect(shard_axis_contains(&x24, &x22, &mesh_xyz));
  cr_expect_not(shard_axis_contains(&x14, &x24, &mesh_xyz), "[2,8) sticks out of [1,4)");
  cr_expect_not(shard_axis_contains(&x12, &x14, &mesh_xyz));
  cr_expect_not(shard_axis_contains(&y, &x12, &mesh_xyz));
}

Test(axis, prefix) {
  shard_axis_ref x = full("x"), x12 = sub("x", 1, 2), x14 = sub("x", 1, 4), x22 = sub("x", 2, 2);
  cr_expect(shard_axis_is_prefix_of(&x12, &x14, &mesh_xyz));
  cr_expect(shard_axis_is_prefix_of(&x14, &x, &mesh_xyz), "\"x\":(1)4 is the major part of \"x\"");
  cr_expect(shard_axis_is_prefix_of(&x12, &x12, &mesh_xyz));
  cr_expect_not(shard_axis_is_prefix_of(&x22, &x14, &mesh_xyz), "contained but not at the start");
  cr_expect_not(shard_axis_is_prefix_of(&x14, &x12, &mesh_xyz));
  cr_expect_not(shard_axis_is_prefix_of(&x, &x14, &mesh_xyz));
}

Test(axis, merge) {
  shard_axis_ref x12 = sub("x", 1, 2), x22 = sub("x", 2, 2), x42 = sub("x", 4, 2), x14 = sub("x", 1, 4),
                 x = full("x"), y12 = sub("y", 1, 2);
  cr_expect(shard_axis_can_merge(&x12, &x22));
  cr_expect_not(shard_axis_can_merge(&x22, &x12), "order matters: b must follow a");
  cr_expect_not(shard_axis_can_merge(&x12, &x42), "gap between [1,2) and [4,8)");
  cr_expect_not(shard_axis_can_merge(&x12, &y12));
  cr_expect_not(shard_axis_can_merge(&x, &x22), "full axes don't merge");

  shard_axis_ref m = shard_axis_merge(&x12, &x22, &mesh_xyz);
  cr_expect(m.is_sub && m.pre_size == 1 && m.size == 4);
  m = shard_axis_merge(&x22, &x42, &mesh_xyz);
  cr_expect(m.is_sub && m.pre_size == 2 && m.size == 4);
  m = shard_axis_merge(&x14, &x42, &mesh_xyz);
  cr_expect_not(m.is_sub, "covering the whole axis gives the full axis");
  cr_expect_str_eq(m.name, "x");
}

/* Shardy's AxisRefAttr::operator<: "x":(1)2 < "x":(1)4 < "x" < "x":(2)2 < "x":(2)4 < "x":(4)2 */
Test(axis, compare_same_axis) {
  shard_axis_ref order[] = {sub("x", 1, 2), sub("x", 1, 4), full("x"), sub("x", 2, 2), sub("x", 2, 4),
                            sub("x", 4, 2)};
  size_t n = sizeof order / sizeof order[0];
  for (size_t i = 0; i < n; i++)
    for (size_t j = 0; j < n; j++) {
      int c = shard_axis_compare(&order[i], &order[j], &mesh_xyz);
      int want = i < j ? -1 : i > j ? 1 : 0;
      cr_expect_eq(c < 0 ? -1 : c > 0 ? 1 : 0, want, "compare(%zu, %zu) = %d", i, j, c);
    }
}

Test(axis, compare_follows_mesh_order) {
  shard_axis_ref z = full("z"), x = full("x"), y22 = sub("y", 2, 2), w = full("w");
  cr_expect_lt(shard_axis_compare(&x, &z, &mesh_xyz), 0);
  cr_expect_gt(shard_axis_compare(&z, &y22, &mesh_xyz), 0, "mesh order, not name order");
  cr_expect_lt(shard_axis_compare(&y22, &z, &mesh_xyz), 0);
  cr_expect_gt(shard_axis_compare(&w, &z, &mesh_xyz), 0, "unknown axes sort last");
  /* Without a mesh, names decide. */
  cr_expect_lt(shard_axis_compare(&w, &x, NULL), 0);
}

Test(axis, print) {
  shard_axis_ref x = full("x"), s = sub("x", 2, 4), q = full("a\"b");
  char *t = axis_str(&x);
  cr_expect_str_eq(t, "\"x\"");
  free(t);
  t = axis_str(&s);
  cr_expect_str_eq(t, "\"x\":(2)4");
  free(t);
  t = axis_str(&q);
  cr_expect_str_eq(t, "\"a\\22b\"", "quotes are escaped as MLIR does");
  free(t);

  shard_axis_ref list[] = {full("x"), sub("y", 1, 2)};
  shard_buf b;
  shard_buf_init(&b);
  shard_axis_list_print(&b, list, 2);
  cr_expect_str_eq(shard_buf_str(&b), "{\"x\", \"y\":(1)2}");
  shard_buf_clear(&b);
  shard_axis_list_print(&b, NULL, 0);
  cr_expect_str_eq(shard_buf_str(&b), "{}");
  shard_buf_free(&b);
}

Test(axis, products) {
  shard_axis_ref list[] = {full("x"), full("y"), sub("z", 1, 2)};
  cr_expect_eq(shard_axes_product(list, 3, &mesh_xyz), 64);
  cr_expect_eq(shard_axes_product(NULL, 0, &mesh_xyz), 1);
  shard_axis_ref unknown[] = {full("x"), full("w")};
  cr_expect_eq(shard_axes_product(unknown, 2, &mesh_xyz), -1);
  shard_axis_ref huge[] = {sub("x", 1, INT64_MAX / 2), sub("y", 1, 3)};
  cr_expect_eq(shard_axes_product(huge, 2, &mesh_xyz), -1, "overflow is reported, not wrapped");
}

Test(mesh, lookups_and_sizes) {
  cr_expect_eq(shard_mesh_axis_index(&mesh_xyz, "y"), 1);
  cr_expect_eq(shard_mesh_axis_index(&mesh_xyz, "w"), -1);
  cr_expect_eq(shard_mesh_axis_size(&mesh_xyz, "z"), 2);
  cr_expect_eq(shard_mesh_axis_size(&mesh_xyz, "w"), -1);
  cr_expect_eq(shard_mesh_num_devices(&mesh_xyz), 64);
  shard_mesh empty = {0};
  cr_expect_eq(shard_mesh_num_devices(&empty), 1);
  cr_expect(shard_mesh_is_empty(&empty));
  cr_expect_not(shard_mesh_is_maximal(&empty));
  int64_t id3[] = {3};
  shard_mesh maximal = {NULL, 0, id3, 1, {0}};
  cr_expect(shard_mesh_is_maximal(&maximal));
  cr_expect_not(shard_mesh_is_empty(&maximal));
  shard_mesh_axis big[] = {{"a", INT64_MAX / 2}, {"b", 4}};
  shard_mesh overflow = {big, 2, NULL, 0, {0}};
  cr_expect_eq(shard_mesh_num_devices(&overflow), -1);
}

static char *mesh_str(const shard_mesh *m) {
  shard_buf b;
  shard_buf_init(&b);
  shard_mesh_print(&b, m);
  return shard_buf_take(&b);
}

Test(mesh, print_forms) {
  shard_mesh empty = {0};
  char *t = mesh_str(&empty);
  cr_expect_str_eq(t, "<[]>");
  free(t);
  int64_t id3[] = {3};
  shard_mesh maximal = {NULL, 0, id3, 1, {0}};
  t = mesh_str(&maximal);
  cr_expect_str_eq(t, "<[], device_ids=[3]>");
  free(t);
  shard_mesh_axis ab[] = {{"a", 2}, {"b", 1}};
  int64_t ids[] = {1, 0};
  shard_mesh explicit_ids = {ab, 2, ids, 2, {0}};
  t = mesh_str(&explicit_ids);
  cr_expect_str_eq(t, "<[\"a\"=2, \"b\"=1], device_ids=[1, 0]>");
  free(t);
}

Test(mesh, canonicalize_drops_iota_only) {
  shard_mesh_axis ab[] = {{"a", 2}, {"b", 2}};
  int64_t iota[] = {0, 1, 2, 3};
  shard_mesh m = {ab, 2, iota, 4, {0}};
  shard_mesh implicit = {ab, 2, NULL, 0, {0}};
  cr_expect(shard_mesh_equal(&m, &implicit), "explicit iota equals implicit ids");
  shard_mesh_canonicalize(&m);
  cr_expect_null(m.device_ids);
  cr_expect_eq(m.num_device_ids, 0);
  char *t = mesh_str(&m);
  cr_expect_str_eq(t, "<[\"a\"=2, \"b\"=2]>");
  free(t);

  int64_t perm[] = {0, 2, 1, 3};
  shard_mesh p = {ab, 2, perm, 4, {0}};
  shard_mesh_canonicalize(&p);
  cr_expect_eq(p.num_device_ids, 4, "a real permutation is kept");
  cr_expect_not(shard_mesh_equal(&p, &implicit));
  cr_expect(shard_mesh_same_axes(&p, &implicit));

  /* <[], device_ids=[0]> is the maximal mesh of device 0, not the empty mesh. */
  int64_t zero[] = {0};
  shard_mesh max0 = {NULL, 0, zero, 1, {0}};
  shard_mesh_canonicalize(&max0);
  cr_expect_eq(max0.num_device_ids, 1);
  shard_mesh empty = {0};
  cr_expect_not(shard_mesh_equal(&max0, &empty));

  /* <["a"=1], device_ids=[0]> prints as <["a"=1]>. */
  shard_mesh_axis a1[] = {{"a", 1}};
  shard_mesh one = {a1, 1, zero, 1, {0}};
  shard_mesh_canonicalize(&one);
  cr_expect_eq(one.num_device_ids, 0);
}

Test(mesh, equality) {
  shard_mesh_axis ab[] = {{"a", 2}, {"b", 2}}, ba[] = {{"b", 2}, {"a", 2}}, ab4[] = {{"a", 2}, {"b", 4}};
  shard_mesh m1 = {ab, 2, NULL, 0, {0}}, m2 = {ba, 2, NULL, 0, {0}}, m3 = {ab4, 2, NULL, 0, {0}};
  cr_expect(shard_mesh_equal(&m1, &m1));
  cr_expect_not(shard_mesh_equal(&m1, &m2), "axis order matters");
  cr_expect_not(shard_mesh_same_axes(&m1, &m3));
  int64_t r1[] = {3, 2, 1, 0}, r2[] = {3, 2, 1, 0};
  shard_mesh d1 = {ab, 2, r1, 4, {0}}, d2 = {ab, 2, r2, 4, {0}};
  cr_expect(shard_mesh_equal(&d1, &d2));
}
