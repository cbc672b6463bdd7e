/* The worked examples of /work/shared/reference/notations.md (§4 table and
 * §6) as tests: each expected string is the one upstream prints. */
#include <criterion/criterion.h>

#include "convert_testing.h"

#define HLO SHARD_NOTATION_HLO
#define SDY SHARD_NOTATION_SHARDY
#define PSPEC SHARD_NOTATION_PSPEC
#define DT SHARD_NOTATION_DTENSOR
#define TF SHARD_NOTATION_TF

static void expect_conv(shard_notation from, shard_notation to, const char *mesh, const char *shape, const char *input,
                        const char *want_mesh, const char *want) {
  cv_run r;
  bool ok = cv_convert(&r, from, to, mesh, shape, input);
  cr_assert(ok, "%s -> failed:\n%s", input, r.diags.text);
  cr_assert_str_eq(shard_buf_str(&r.out), want, "%s", input);
  if (want_mesh) cr_assert_str_eq(shard_buf_str(&r.mesh_out), want_mesh, "%s", input);
  cv_free(&r);
}

/* Ex. 1: P('x','y') on mesh (2,2) ('x','y'). */
Test(examples, ex1_full_tiling) {
  expect_conv(PSPEC, SDY, "{'x': 2, 'y': 2}", "8x8", "P('x', 'y')", NULL, "#sdy.sharding<@mesh, [{\"x\"}, {\"y\"}]>");
  expect_conv(PSPEC, HLO, "{'x': 2, 'y': 2}", "8x8", "P('x', 'y')", NULL, "{devices=[2,2]<=[4]}");
  expect_conv(SDY, HLO, NULL, NULL, "sdy.mesh @mesh = <[\"x\"=2, \"y\"=2]>\n#sdy.sharding<@mesh, [{\"x\"}, {\"y\"}]>",
              NULL, "{devices=[2,2]<=[4]}");
}

/* Ex. 2: P('x') on a rank-1 array. */
Test(examples, ex2_partial_replication) {
  expect_conv(PSPEC, SDY, "{'x': 2, 'y': 2}", "8", "P('x',)", NULL, "#sdy.sharding<@mesh, [{\"x\"}]>");
  expect_conv(PSPEC, HLO, "{'x': 2, 'y': 2}", "8", "P('x',)", NULL, "{devices=[2,2]<=[4] last_tile_dim_replicate}");
}

/* Ex. 3: partially manual (shard_map): manual axes in V3 -> V2 subgroups. */
Test(examples, ex3_manual_subgroups) {
  shard_notation v3 = SHARD_NOTATION_HLO_V3;
  expect_conv(v3, HLO, NULL, NULL, "{mesh[i=2,j=2], [{}, {j}], manual={i}}", NULL,
              "{devices=[1,2,2]<=[2,2]T(1,0) last_tile_dims={manual}}");
  expect_conv(v3, HLO, NULL, NULL, "{mesh[i=2,j=2], [{}, {}], manual={i}}", NULL,
              "{devices=[1,1,2,2]<=[4] last_tile_dims={manual, replicated}}");
  expect_conv(v3, HLO, NULL, NULL, "{mesh[i=2,j=2,k=2], [{}, {}], manual={j, k}}", NULL,
              "{devices=[1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}");
  /* and back: the V2 manual subgroup maps onto the mesh's i axis */
  expect_conv(HLO, v3, "i=2,j=2", "4x4", "{devices=[1,2,2]<=[2,2]T(1,0) last_tile_dims={manual}}", NULL,
              "{mesh[i=2,j=2], [{}, {j}], manual={i}}");
}

/* Ex. 4: V2 -> Shardy with an invented mesh (XLA's import_shardings.mlir). */
Test(examples, ex4_invented_mesh) {
  expect_conv(HLO, SDY, NULL, NULL, "{devices=[6,35]<=[7,10,3]T(2,1,0)}",
              "sdy.mesh @mesh = <[\"_axis_0\"=7, \"_axis_1\"=2, \"_axis_2\"=5, \"_axis_3\"=3]>",
              "#sdy.sharding<@mesh, [{\"_axis_3\", \"_axis_1\"}, {\"_axis_2\", \"_axis_0\"}]>");
  /* with XLA's common mesh [2,4,4] given */
  const char *common = "<[\"_axis_0\"=2, \"_axis_1\"=4, \"_axis_2\"=4]>";
  expect_conv(HLO, SDY, common, NULL, "{devices=[4,8]<=[8,4]T(1,0)}", NULL,
              "#sdy.sharding<@mesh, [{\"_axis_2\"}, {\"_axis_0\", \"_axis_1\"}]>");
  expect_conv(HLO, SDY, common, NULL, "{devices=[1,2,16]<=[32] last_tile_dim_replicate}", NULL,
              "#sdy.sharding<@mesh, [{}, {\"_axis_0\"}]>");
  cv_run r;
  cr_assert(cv_convert(&r, HLO, SDY, NULL, NULL, "{devices=[6,35]<=[7,10,3]T(2,1,0)}"));
  cr_assert(r.parsed->names_invented);
  cv_free(&r);
}

/* Ex. 5: explicit replication and unreduced -> V2. */
Test(examples, ex5_v3_to_v2) {
  expect_conv(SDY, HLO, "<[\"a\"=2, \"b\"=4, \"c\"=4]>", NULL, "<@mesh, [{}, {\"a\", \"c\"}], replicated={\"b\"}>",
              NULL, "{devices=[1,8,4]<=[2,4,4]T(0,2,1) last_tile_dim_replicate}");
  expect_conv(
      SDY, HLO, "a=2,b=2", NULL, "<@mesh, [{\"a\"}, {}], unreduced={\"b\"}>", NULL,
      "{devices=[2,1,2]<=[4] last_tile_dims={unreduced} metadata={op_type=\"sdy::reduction_op\" op_name=\"SUM\"}}");
  expect_conv(SDY, DT, "a=2,b=2", NULL, "<@mesh, [{\"a\"}, {}], unreduced={\"b\"}>", "", "[Shard(0), Partial()]");
  expect_conv(SDY, PSPEC, "a=2,b=2", NULL, "<@mesh, [{\"a\"}, {}], unreduced={\"b\"}>", "",
              "P('a', unreduced={'b'}, unreduced_kind=sum)");
}

/* Ex. 6: _StridedShard <-> tuple order <-> iota transpose. */
Test(examples, ex6_strided_shard) {
  const char *mesh = "{'dp': 2, 'tp': 2}";
  expect_conv(DT, PSPEC, mesh, "8x8", "[_StridedShard(0, split_factor=2), Shard(0)]", "", "P(('tp', 'dp'),)");
  expect_conv(DT, HLO, mesh, "8x8", "[_StridedShard(0, split_factor=2), Shard(0)]", NULL,
              "{devices=[4,1]<=[2,2]T(1,0)}");
  expect_conv(DT, HLO, mesh, "8x8", "[Shard(0), Shard(0)]", NULL, "{devices=[4,1]<=[4]}");
  expect_conv(HLO, DT, mesh, "8x8", "{devices=[4,1]<=[2,2]T(1,0)}", "", "[_StridedShard(0, split_factor=2), Shard(0)]");
  /* The docstring's table: row blocks 0..3 live on devices 0, 2, 1, 3. */
  cv_run r;
  cr_assert(cv_convert(&r, DT, HLO, mesh, "8x8", "[_StridedShard(0, split_factor=2), Shard(0)]"));
  shard_device_map m;
  shard_buf why;
  shard_buf_init(&why);
  cr_assert(shard_device_map_build(r.parsed, r.shape, 2, 4, &m, &why), "%s", shard_buf_str(&why));
  int64_t rows_of_device[4] = {0, 4, 2, 6};
  for (int d = 0; d < 4; d++) cr_assert_eq(m.offset[d * 2], rows_of_device[d], "device %d", d);
  shard_device_map_free(&m);
  shard_buf_free(&why);
  cv_free(&r);
}

/* Ex. 7: uneven dims: 7 and 5 rows over 4 shards. */
Test(examples, ex7_uneven) {
  cv_run r;
  cr_assert(cv_convert(&r, HLO, SDY, NULL, "7", "{devices=[4]<=[4]}"));
  shard_device_map m;
  shard_buf why;
  shard_buf_init(&why);
  int64_t shape7[1] = {7}, shape5[1] = {5};
  cr_assert(shard_device_map_build(r.parsed, shape7, 1, 4, &m, &why));
  int64_t off7[4] = {0, 2, 4, 6}, lim7[4] = {2, 4, 6, 7};
  for (int d = 0; d < 4; d++) cr_assert(m.offset[d] == off7[d] && m.limit[d] == lim7[d]);
  shard_device_map_free(&m);
  cr_assert(shard_device_map_build(r.parsed, shape5, 1, 4, &m, &why));
  int64_t off5[4] = {0, 2, 4, 5}, lim5[4] = {2, 4, 5, 5};
  for (int d = 0; d < 4; d++) cr_assert(m.offset[d] == off5[d] && m.limit[d] == lim5[d]);
  shard_device_map_free(&m);
  shard_buf_free(&why);
  cv_free(&r);
}

/* §4: the summary table, every row in every notation. */
typedef struct table_row {
  const char *shardy, *pspec, *hlo, *dtensor;
} table_row;

Test(examples, summary_table) {
  static const table_row rows[] = {
      {"[{}, {}]", "P()", "{replicated}", "[Replicate(), Replicate()]"},
      {"[{\"x\"}, {\"y\"}]", "P('x', 'y')", "{devices=[2,2]<=[4]}", "[Shard(0), Shard(1)]"},
      {"[{\"x\"}, {}]", "P('x',)", "{devices=[2,1,2]<=[4] last_tile_dim_replicate}", "[Shard(0), Replicate()]"},
      {"[{\"x\", \"y\"}, {}]", "P(('x', 'y'),)", "{devices=[4,1]<=[4]}", "[Shard(0), Shard(0)]"},
      {"[{\"y\", \"x\"}, {}]", "P(('y', 'x'),)", "{devices=[4,1]<=[2,2]T(1,0)}",
       "[_StridedShard(0, split_factor=2), Shard(0)]"},
      {"[{\"x\"}, {}], unreduced={\"y\"}", "P('x', unreduced={'y'}, unreduced_kind=sum)",
       "{devices=[2,1,2]<=[4] last_tile_dims={unreduced} metadata={op_type=\"sdy::reduction_op\" op_name=\"SUM\"}}",
       "[Shard(0), Partial()]"},
  };
  const char *mesh = "{'x': 2, 'y': 2}";
  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
    char sdy[256];
    snprintf(sdy, sizeof sdy, "#sdy.sharding<@mesh, %s>", rows[i].shardy);
    expect_conv(SDY, HLO, mesh, "8x8", sdy, NULL, rows[i].hlo);
    expect_conv(SDY, PSPEC, mesh, "8x8", sdy, NULL, rows[i].pspec);
    expect_conv(SDY, DT, mesh, "8x8", sdy, NULL, rows[i].dtensor);
    expect_conv(PSPEC, SDY, mesh, "8x8", rows[i].pspec, NULL, sdy);
    expect_conv(DT, SDY, mesh, "8x8", rows[i].dtensor, NULL, sdy);
    if (i > 0) expect_conv(HLO, SDY, mesh, "8x8", rows[i].hlo, NULL, sdy);
    expect_conv(HLO, PSPEC, mesh, "8x8", rows[i].hlo, NULL, rows[i].pspec);
  }
}

/* The issue's own example. */
Test(examples, issue_example) {
  expect_conv(HLO, SDY, NULL, "8x16", "{devices=[4,1,2]<=[8] last_tile_dim_replicate}",
              "sdy.mesh @mesh = <[\"_axis_0\"=4, \"_axis_1\"=2]>", "#sdy.sharding<@mesh, [{\"_axis_0\"}, {}]>");
  expect_conv(HLO, SDY, "{'x': 4, 'y': 2}", "8x16", "{devices=[4,1,2]<=[8] last_tile_dim_replicate}", NULL,
              "#sdy.sharding<@mesh, [{\"x\"}, {}]>");
  expect_conv(TF, SDY, NULL, "4x4",
              "sharding_specs:x,unsharded, mesh:|x=2,y=2|0,1,2,3|0,1,2,3|/job:localhost/replica:0/task:0/device:CPU:0,"
              "/job:localhost/replica:0/task:0/device:CPU:1,/job:localhost/replica:0/task:0/device:CPU:2,"
              "/job:localhost/replica:0/task:0/device:CPU:3",
              "sdy.mesh @mesh = <[\"x\"=2, \"y\"=2]>", "#sdy.sharding<@mesh, [{\"x\"}, {}]>");
  expect_conv(PSPEC, SDY, "{'x': 2, 'y': 4, 'z': 2, 'w': 2}", "8x8x8",
              "P('x', ('y', 'z'), None, unreduced={'w'}, unreduced_kind=sum)", NULL,
              "#sdy.sharding<@mesh, [{\"x\"}, {\"y\", \"z\"}, {}], unreduced={\"w\"}>");
  expect_conv(PSPEC, SDY, "{'x': 2, 'y': 2}", "8x8", "P(P.UNCONSTRAINED, 'y')", NULL,
              "#sdy.sharding<@mesh, [{?}, {\"y\"}]>");
}
