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
  shard_axis_ref x = full("x"), x12 = sub("x", 1, 2), x14 = sub("x", 1, 4), x22 = sub("x", 2, 2), x24 = sub("x", 2, 4),
                 y = full("y");
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
  shard_axis_ref x12 = sub("x", 1, 2), x22 = sub("x", 2, 2), x42 = sub("x", 4, 2), x14 = sub("x", 1, 4), x = full("x"),
                 y12 = sub("y", 1, 2);
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
  shard_axis_ref order[] = {sub("x", 1, 2), sub("x", 1, 4), full("x"), sub("x", 2, 2), sub("x", 2, 4), sub("x", 4, 2)};
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

Test(axis, pre_and_end) {
  shard_axis_ref x = full("x"), x24 = sub("x", 2, 4), w = full("w"), big = sub("x", INT64_MAX / 2, 3);
  cr_expect_eq(shard_axis_pre(&x), 1);
  cr_expect_eq(shard_axis_pre(&x24), 2);
  cr_expect_eq(shard_axis_end(&x, &mesh_xyz), 8, "the full axis ends at its size");
  cr_expect_eq(shard_axis_end(&x24, &mesh_xyz), 8);
  cr_expect_eq(shard_axis_end(&w, &mesh_xyz), -1, "unknown axis");
  cr_expect_eq(shard_axis_end(&big, NULL), INT64_MAX, "an overflowing end saturates");
}

Test(axis, gcd) {
  cr_expect_eq(shard_gcd(12, 18), 6);
  cr_expect_eq(shard_gcd(18, 12), 6);
  cr_expect_eq(shard_gcd(7, 0), 7);
  cr_expect_eq(shard_gcd(0, 0), 0);
  cr_expect_eq(shard_gcd(-4, 6), 2, "the sign of the inputs does not reach the result");
  cr_expect_eq(shard_gcd(INT64_MIN, 0), INT64_MAX, "|INT64_MIN| saturates instead of overflowing");
  cr_expect_eq(shard_gcd(INT64_MIN, 6), 2);
}

Test(axis, suffix) {
  shard_axis_ref x = full("x"), x42 = sub("x", 4, 2), x24 = sub("x", 2, 4), x12 = sub("x", 1, 2);
  cr_expect(shard_axis_is_suffix_of(&x42, &x, &mesh_xyz), "\"x\":(4)2 ends where \"x\" (size 8) ends");
  cr_expect(shard_axis_is_suffix_of(&x42, &x24, &mesh_xyz));
  cr_expect_not(shard_axis_is_suffix_of(&x12, &x24, &mesh_xyz));
  cr_expect_not(shard_axis_is_suffix_of(&x12, &x, &mesh_xyz), "a prefix is not a suffix");
}

Test(axis, coexist) {
  shard_axis_ref x12 = sub("x", 1, 2), x24 = sub("x", 2, 4), x14 = sub("x", 1, 4), x32 = sub("x", 3, 2),
                 x02 = sub("x", 0, 2), y = full("y");
  cr_expect(shard_axis_can_coexist(&x12, &x24));
  cr_expect(shard_axis_can_coexist(&x14, &x24), "[1,4) and [2,8) cut the axis at 1, 2, 4, 8");
  cr_expect_not(shard_axis_can_coexist(&x14, &x32), "3 does not divide 4");
  cr_expect_not(shard_axis_can_coexist(&x12, &x02), "a zero pre-size is never valid (and never divides)");
  cr_expect(shard_axis_can_coexist(&x12, &y));
}

Test(axis, without_overlap) {
  shard_axis_ref x = full("x"), x14 = sub("x", 1, 4), x24 = sub("x", 2, 4), x22 = sub("x", 2, 2), y = full("y"), out;
  cr_assert(shard_axis_prefix_without_overlap(&x14, &x24, &out));
  cr_expect(shard_axis_equal(&out, &(shard_axis_ref){"x", true, 1, 2}), "[1,4) minus [2,8) keeps [1,2)");
  cr_expect_not(shard_axis_prefix_without_overlap(&x24, &x14, &out), "[2,8) starts inside [1,4)");
  cr_assert(shard_axis_prefix_without_overlap(&x14, &y, &out));
  cr_expect(shard_axis_equal(&out, &x14), "no overlap: the whole ref");
  cr_assert(shard_axis_suffix_without_overlap(&x, &x14, &mesh_xyz, &out));
  cr_expect(shard_axis_equal(&out, &(shard_axis_ref){"x", true, 4, 2}), "\"x\" minus [1,4) keeps [4,8)");
  cr_expect_not(shard_axis_suffix_without_overlap(&x22, &x, &mesh_xyz, &out));
  shard_axis_ref others[] = {x22, y};
  cr_assert(shard_axis_prefix_without_overlap_list(&x, others, 2, &out));
  cr_expect(shard_axis_equal(&out, &(shard_axis_ref){"x", true, 1, 2}));
  cr_assert(shard_axis_common_prefix(&x14, &(shard_axis_ref){"x", true, 1, 2}, &out));
  cr_expect(shard_axis_equal(&out, &(shard_axis_ref){"x", true, 1, 2}), "the shorter of the two");
  cr_expect_not(shard_axis_common_prefix(&x14, &x24, &out));
}

Test(axis, sort_and_merge) {
  /* mesh order x, y, z; "x":(1)2 and "x":(2)4 merge into "x"; unknown "w" goes last */
  shard_axis_ref v[] = {full("w"), full("z"), sub("x", 2, 4), sub("y", 2, 2), sub("x", 1, 2)};
  uint32_t n = shard_axes_sort_and_merge(v, 5, &mesh_xyz);
  cr_assert_eq(n, 4);
  cr_expect(shard_axis_equal(&v[0], &(shard_axis_ref){"x", false, 0, 0}), "merged sub-axes that cover the axis");
  cr_expect(shard_axis_equal(&v[1], &(shard_axis_ref){"y", true, 2, 2}));
  cr_expect(shard_axis_equal(&v[2], &(shard_axis_ref){"z", false, 0, 0}));
  cr_expect_str_eq(v[3].name, "w");
  shard_axis_ref a[] = {full("x"), sub("y", 1, 2)}, b[] = {full("x"), sub("y", 1, 2)}, c[] = {full("x")};
  cr_expect(shard_axes_equal(a, 2, b, 2));
  cr_expect_not(shard_axes_equal(a, 2, c, 1));
}

/* The cut points of `name` (size `size`) for `refs`, as text "1 2 4 8". */
static char *cuts_str(const char *name, int64_t size, const shard_axis_ref *refs, uint32_t n, uint32_t *pieces) {
  shard_axis_cuts c;
  shard_axis_cuts_init(&c, name, size);
  shard_axis_cuts_add(&c, refs, n);
  *pieces = shard_axis_cuts_finish(&c);
  shard_buf b;
  shard_buf_init(&b);
  for (uint32_t i = 0; i < c.n; i++) shard_buf_printf(&b, "%s%lld", i ? " " : "", (long long)c.at[i]);
  shard_axis_cuts_free(&c);
  return shard_buf_take(&b);
}

Test(axis_cuts, boundaries_sorted_and_unique) {
  shard_axis_ref refs[] = {sub("x", 2, 2), full("x"), sub("y", 1, 2), sub("x", 1, 2), sub("x", 2, 4)};
  uint32_t pieces;
  char *t = cuts_str("x", 8, refs, 5, &pieces);
  cr_expect_str_eq(t, "1 2 4 8", "other axes and the full axis add nothing");
  cr_expect_eq(pieces, 3);
  free(t);
  t = cuts_str("z", 2, refs, 5, &pieces);
  cr_expect_str_eq(t, "1 2");
  cr_expect_eq(pieces, 1);
  free(t);
}

Test(axis_cuts, invalid_sub_axes_add_nothing) {
  shard_axis_ref refs[] = {sub("x", 0, 2), sub("x", 2, -1), sub("x", INT64_MAX / 2, 4), sub("x", 4, 2)};
  uint32_t pieces;
  char *t = cuts_str("x", 8, refs, 4, &pieces);
  cr_expect_str_eq(t, "1 4 8", "zero, negative and overflowing refs are the verifier's to report");
  cr_expect_eq(pieces, 2);
  free(t);
}

Test(axis_cuts, pieces) {
  shard_axis_cuts c;
  shard_axis_ref refs[] = {sub("x", 2, 2)};
  shard_axis_cuts_init(&c, "x", 8);
  shard_axis_cuts_add(&c, refs, 1);
  cr_assert_eq(shard_axis_cuts_finish(&c), 3);
  shard_axis_ref p0 = shard_axis_cuts_piece(&c, 0), p2 = shard_axis_cuts_piece(&c, 2);
  cr_expect(shard_axis_equal(&p0, &(shard_axis_ref){"x", true, 1, 2}));
  cr_expect(shard_axis_equal(&p2, &(shard_axis_ref){"x", true, 4, 2}));
  shard_axis_ref x = full("x"), x14 = sub("x", 1, 4), y = full("y");
  cr_expect(shard_axis_cuts_piece_in(&c, 2, &x), "the full axis covers every piece");
  cr_expect(shard_axis_cuts_piece_in(&c, 1, &x14));
  cr_expect_not(shard_axis_cuts_piece_in(&c, 2, &x14));
  cr_expect_not(shard_axis_cuts_piece_in(&c, 0, &y));
  cr_expect_eq(shard_axis_cuts_misfit(&c), -1);
  shard_axis_cuts_free(&c);

  shard_axis_cuts_init(&c, "z", 2);
  cr_assert_eq(shard_axis_cuts_finish(&c), 1);
  shard_axis_ref whole = shard_axis_cuts_piece(&c, 0);
  cr_expect(shard_axis_equal(&whole, &(shard_axis_ref){"z", false, 0, 0}), "one piece is the full axis");
  shard_axis_cuts_free(&c);
}

Test(axis_cuts, misfit) {
  /* "x":(1)2 and "x":(1)3 on an axis of 6 cut it at 1, 2, 3, 6: 2 does not divide 3 */
  shard_axis_cuts c;
  shard_axis_ref refs[] = {sub("x", 1, 2), sub("x", 1, 3)};
  shard_axis_cuts_init(&c, "x", 6);
  shard_axis_cuts_add(&c, refs, 2);
  shard_axis_cuts_finish(&c);
  cr_expect_eq(shard_axis_cuts_misfit(&c), 1);
  shard_axis_cuts_free(&c);
}

Test(axis_cuts, of_a_sharding) {
  shard_axis_ref d0[] = {sub("x", 1, 2)}, rep[] = {sub("x", 4, 2)}, unr[] = {sub("y", 2, 2)};
  shard_dim_sharding dims[] = {{d0, 1, false, SHARD_NO_PRIORITY}};
  shard_tensor_sharding s = {"mesh", NULL, dims, 1, rep, 1, unr, 1, SHARD_RED_SUM, {0}};
  shard_axis_cuts c;
  shard_axis_cuts_init(&c, "x", 8);
  shard_sharding_add_cuts(&c, &s);
  cr_expect_eq(shard_axis_cuts_finish(&c), 3, "dims and replicated axes cut \"x\" at 2 and 4");
  shard_axis_cuts_free(&c);
  shard_axis_cuts_init(&c, "y", 4);
  shard_sharding_add_cuts(&c, &s);
  cr_expect_eq(shard_axis_cuts_finish(&c), 2, "unreduced axes cut too");
  shard_axis_cuts_free(&c);
}

/* eraseManualAxes: Shardy's utils.cc drops the manual prefix of every dim and
 * the manual replicated and unreduced axes. (pass_export_misc.c's private copy
 * dropped only the unreduced ones while saying it mirrored eraseManualAxes.) */
Test(sharding, drop_manual) {
  shard_arena *a = shard_arena_new();
  shard_axis_ref d0[] = {full("x"), full("y")}, d1[] = {full("z")}, rep[] = {full("x"), sub("z", 1, 1)},
                 unr[] = {full("y"), full("x")};
  shard_dim_sharding dims[] = {
      {d0, 2, false, SHARD_NO_PRIORITY}, {d1, 1, true, 3}, {NULL, 0, false, SHARD_NO_PRIORITY}};
  shard_tensor_sharding s = {"mesh", NULL, dims, 3, rep, 2, unr, 2, SHARD_RED_MAX, {0}};
  const char *manual[] = {"x"};
  shard_tensor_sharding *r = shard_sharding_drop_manual(a, &s, manual, 1);
  cr_assert(r && r != &s);
  cr_expect_eq(r->dims[0].num_axes, 1);
  cr_expect_str_eq(r->dims[0].axes[0].name, "y", "the leading manual axis goes");
  cr_expect_eq(r->dims[1].num_axes, 1);
  cr_expect(r->dims[1].is_open && r->dims[1].priority == 3, "open/closed and priority stay");
  cr_expect_eq(r->dims[2].num_axes, 0);
  cr_expect_eq(r->num_replicated, 1);
  cr_expect_str_eq(r->replicated[0].name, "z", "manual replicated axes go");
  cr_expect_eq(r->num_unreduced, 1);
  cr_expect_str_eq(r->unreduced[0].name, "y", "manual unreduced axes go");
  cr_expect_eq(r->reduction, SHARD_RED_MAX);
  cr_expect_eq(s.dims[0].num_axes, 2, "the input is not touched");
  cr_expect_eq(s.num_replicated, 2);

  /* Only a leading run is manual: "x" after a free axis stays (the verifier
   * rejects that order; the body view keeps what follows the prefix). */
  const char *manual_y[] = {"y"};
  r = shard_sharding_drop_manual(a, &s, manual_y, 1);
  cr_expect_eq(r->dims[0].num_axes, 2);
  cr_expect_eq(shard_sharding_drop_manual(a, &s, manual, 0), &s, "no manual axes: the sharding itself");
  cr_expect_null(shard_sharding_drop_manual(a, NULL, manual, 1));
  const char *manual_xy[] = {"y", "x"};
  cr_expect_eq(shard_dim_manual_prefix(&dims[0], manual_xy, 2), 2);
  cr_expect_eq(shard_dim_manual_prefix(&dims[0], manual_y, 1), 0, "only a leading run counts");
  cr_expect_eq(shard_dim_manual_prefix(&dims[2], manual_xy, 2), 0);
  cr_expect(shard_axis_name_in("x", manual, 1));
  cr_expect_not(shard_axis_name_in("y", manual, 1));
  shard_arena_free(a);
}

Test(mesh, shard_index) {
  /* [x=2, y=4]: device 5 sits at x=1, y=1 */
  shard_mesh_axis xy[] = {{"x", 2}, {"y", 4}};
  shard_mesh m = {xy, 2, NULL, 0, {0}};
  shard_axis_ref x = full("x"), y = full("y"), y_lo = sub("y", 2, 2), y_hi = sub("y", 1, 2);
  cr_expect_eq(shard_mesh_shard_index(&m, 5, &x, 1), 1);
  cr_expect_eq(shard_mesh_shard_index(&m, 5, &y, 1), 1);
  cr_expect_eq(shard_mesh_shard_index(&m, 5, &y_lo, 1), 1, "the minor half of y=1");
  cr_expect_eq(shard_mesh_shard_index(&m, 5, &y_hi, 1), 0, "the major half of y=1");
  shard_axis_ref yx[] = {full("y"), full("x")};
  cr_expect_eq(shard_mesh_shard_index(&m, 5, yx, 2), 3, "major to minor: y*2 + x");
  cr_expect_eq(shard_mesh_shard_index(&m, 5, NULL, 0), 0);
  /* explicit ids: device 5 is the mesh's third device, x=0, y=2 */
  int64_t ids[] = {7, 6, 5, 4, 3, 2, 1, 0};
  shard_mesh p = {xy, 2, ids, 8, {0}};
  cr_expect_eq(shard_mesh_shard_index(&p, 5, &y, 1), 2);
  cr_expect_eq(shard_mesh_shard_index(&p, 5, &y_hi, 1), 1);
  shard_axis_ref xy_refs[] = {full("x"), full("y")};
  cr_expect_eq(shard_mesh_shard_index(&p, 5, xy_refs, 2), 2);
  shard_axis_ref bad = sub("y", 3, 2), zero = sub("y", 0, 2);
  cr_expect_eq(shard_mesh_shard_index(&m, 5, &bad, 1), 0, "a sub-axis that does not divide its axis");
  cr_expect_eq(shard_mesh_shard_index(&m, 5, &zero, 1), 0, "and one of pre-size 0 (no division by zero)");
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
