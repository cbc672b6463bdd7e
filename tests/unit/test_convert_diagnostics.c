/* Every lossy direction warns once per thing the target cannot express, and
 * every parser reports located errors (column in the input) without
 * crashing on malformed input. */
#include <criterion/criterion.h>

#include "convert_testing.h"

#define HLO SHARD_NOTATION_HLO
#define V3 SHARD_NOTATION_HLO_V3
#define SDY SHARD_NOTATION_SHARDY
#define PSPEC SHARD_NOTATION_PSPEC
#define DT SHARD_NOTATION_DTENSOR
#define TF SHARD_NOTATION_TF

/* Converts and checks that exactly one warning contains `needle` and the
 * output is `want` (NULL: not checked). */
static void expect_warning(shard_notation from, shard_notation to, const char *mesh, const char *shape,
                           const char *input, const char *needle, const char *want) {
  cv_run r;
  bool ok = cv_convert(&r, from, to, mesh, shape, input);
  cr_assert(ok, "%s failed:\n%s", input, r.diags.text);
  cr_assert_eq(cv_count(&r.diags, needle), 1, "%s: want one warning with '%s', got:\n%s", input, needle, r.diags.text);
  if (want) cr_assert_str_eq(shard_buf_str(&r.out), want);
  cv_free(&r);
}

static void expect_clean(shard_notation from, shard_notation to, const char *mesh, const char *shape,
                         const char *input) {
  cv_run r;
  cr_assert(cv_convert(&r, from, to, mesh, shape, input), "%s:\n%s", input, r.diags.text);
  cr_assert_eq(r.diags.warnings, 0, "%s:\n%s", input, r.diags.text);
  cv_free(&r);
}

/* Converts and expects an error at `col` containing `needle`. */
static void expect_error(shard_notation from, shard_notation to, const char *mesh, const char *shape, const char *input,
                         unsigned col, const char *needle) {
  cv_run r;
  bool ok = cv_convert(&r, from, to, mesh, shape, input);
  cr_assert(!ok, "%s: expected an error", input);
  char want[512];
  snprintf(want, sizeof want, "error@%u: ", col);
  cr_assert(strstr(r.diags.text, want) && strstr(r.diags.text, needle), "%s: want %s...%s, got:\n%s", input, want,
            needle, r.diags.text);
  cv_free(&r);
}

static const char *M = "{'x': 2, 'y': 2}";

Test(warnings, shardy_to_hlo) {
  expect_warning(SDY, HLO, M, NULL, "<@m, [{\"x\"}p0, {\"y\"}p1]>", "no sharding priorities", "{devices=[2,2]<=[4]}");
  expect_warning(SDY, HLO, M, NULL, "<@m, [{\"x\", ?}, {?}]>", "no open dimensions",
                 "{devices=[2,1,2]<=[4] last_tile_dim_replicate}");
  expect_warning(SDY, HLO, M, NULL, "<@m, [{\"x\"}, {}], replicated={\"y\"}>", "no explicit replication", NULL);
  /* the reduction goes in the metadata XLA's Shardy export writes */
  expect_clean(SDY, HLO, M, NULL, "<@m, [{\"x\"}, {}], unreduced=max{\"y\"}>");
  expect_clean(SDY, HLO, M, NULL, "<@m, [{\"x\"}, {\"y\"}]>");
  expect_clean(SDY, V3, M, NULL, "<@m, [{\"x\"}, {}], replicated={\"y\"}>");
}

Test(warnings, to_pspec) {
  expect_warning(SDY, PSPEC, "x=4", NULL, "<@m, [{\"x\":(1)2}, {\"x\":(2)2}]>", "cannot name sub-axes",
                 "P('x_0', 'x_1')");
  expect_warning(SDY, PSPEC, M, NULL, "<@m, [{\"x\", ?}, {}]>", "no open dimensions", "P('x',)");
  expect_warning(SDY, PSPEC, M, NULL, "<@m, [{\"x\"}p1, {}]>", "no sharding priorities", "P('x',)");
  expect_warning(V3, PSPEC, NULL, NULL, "{mesh[x=2,y=2], [{y}, {}], manual={x}}", "no manual axes", "P('y',)");
  expect_warning(HLO, PSPEC, M, NULL, "{devices=[1,2,2]<=[2,2]T(1,0) last_tile_dims={manual}}", "no manual axes",
                 "P(None, 'y')");
  /* JAX's PartitionSpec carries it: unreduced_kind=min */
  expect_clean(SDY, PSPEC, M, NULL, "<@m, [{}, {}], unreduced=min{\"x\"}>");
  expect_clean(SDY, PSPEC, M, NULL, "<@m, [{?}, {\"y\"}]>");
}

Test(warnings, to_dtensor) {
  expect_warning(SDY, DT, "x=4", NULL, "<@m, [{\"x\":(1)2}, {\"x\":(2)2}]>", "cannot use part of a mesh dimension",
                 "[Shard(0), Shard(1)]");
  expect_warning(SDY, DT, M, NULL, "<@m, [{\"x\", ?}, {}]>", "no open dimensions", "[Shard(0), Replicate()]");
  expect_warning(HLO, DT, M, "4x4", "{unknown}", "no unconstrained placement", "[Replicate(), Replicate()]");
  expect_warning(HLO, DT, M, "4x4", "{manual}", "cannot say 'manual'", NULL);
  expect_error(HLO, DT, M, "4x4", "{maximal device=1}", 1, "no single-device placement");
  expect_clean(SDY, DT, M, NULL, "<@m, [{\"x\"}, {}], unreduced=max{\"y\"}>");
}

/* DTensor's avg/product partials exist nowhere else. */
Test(warnings, dtensor_partials) {
  expect_warning(DT, SDY, M, "4x4", "[Shard(0), Partial('avg')]", "Partial(\"avg\")",
                 "#sdy.sharding<@mesh, [{\"x\"}, {}], unreduced={\"y\"}>");
  expect_warning(
      DT, HLO, M, "4x4", "[Shard(0), Partial('product')]", "no product reduction",
      "{devices=[2,1,2]<=[4] last_tile_dims={unreduced} metadata={op_type=\"sdy::reduction_op\" op_name=\"SUM\"}}");
  expect_warning(DT, PSPEC, M, "4x4", "[Shard(0), Partial('avg')]", "no avg reduction",
                 "P('x', unreduced={'y'}, unreduced_kind=sum)");
  /* and back to DTensor it is kept */
  cv_run r;
  cr_assert(cv_convert(&r, DT, DT, M, "4x4", "[Shard(0), Partial('avg')]"));
  cr_assert_str_eq(shard_buf_str(&r.out), "[Shard(0), Partial('avg')]");
  cv_free(&r);
  expect_warning(DT, SDY, M, "4x4", "[Partial('max'), Partial('sum')]", "different reduce ops", NULL);
  expect_clean(DT, SDY, M, "4x4", "[Shard(0), Partial('max')]");
}

Test(warnings, to_tf) {
  expect_warning(
      SDY, TF, M, NULL, "<@m, [{\"x\", \"y\"}, {}]>", "mesh rebuilt",
      "sharding_specs:x_y,unsharded, mesh:|x_y=4|0,1,2,3|0,1,2,3|/job:localhost/replica:0/task:0/device:CPU:0,"
      "/job:localhost/replica:0/task:0/device:CPU:1,/job:localhost/replica:0/task:0/device:CPU:2,"
      "/job:localhost/replica:0/task:0/device:CPU:3");
  expect_warning(SDY, TF, M, NULL, "<@m, [{\"x\"}, {}], unreduced={\"y\"}>", "no partial values", NULL);
  expect_warning(SDY, TF, "x=4", NULL, "<@m, [{\"x\":(1)2}, {}]>", "mesh rebuilt", NULL);
  expect_warning(SDY, TF, M, NULL, "<@m, [{\"x\"}p0, {}]>", "no sharding priorities", NULL);
  expect_clean(SDY, TF, M, NULL, "<@m, [{\"y\"}, {\"x\"}]>");
}

Test(warnings, hlo_to_shardy) {
  expect_warning(HLO, SDY, M, NULL, "{devices=[1,2,2]<=[2,2]T(1,0) last_tile_dims={manual}}",
                 "manual axes on the enclosing sdy.manual_computation", "#sdy.sharding<@mesh, [{}, {\"y\"}]>");
  expect_warning(HLO, SDY, M, "4x4", "{manual}", "no fully manual sharding", NULL);
  /* not on the given mesh: falls back to invented names, once */
  expect_warning(HLO, SDY, "{'x': 2, 'y': 3}", NULL, "{devices=[2,3]<=[2,3]T(1,0)}",
                 "cannot be written on the given mesh", NULL);
  expect_clean(HLO, SDY, M, NULL, "{devices=[2,2]<=[4]}");
  cv_run r;
  cr_assert(cv_convert(&r, HLO, SDY, NULL, NULL, "{devices=[2,2]<=[4]}"));
  cr_assert(r.parsed->names_invented);
  cv_free(&r);
}

Test(errors, hlo_parser) {
  expect_error(HLO, SDY, NULL, NULL, "{devices=[2,2]0,1,2}", 10, "hold 4 devices but 3 are listed");
  expect_error(HLO, SDY, NULL, NULL, "{replicated device=1}", 1, "replicated shardings should not have any devices");
  expect_error(HLO, SDY, NULL, NULL, "{maximal}", 1, "maximal shardings should have exactly one device");
  expect_error(HLO, SDY, NULL, NULL, "{devices=[2,2]<=[2,2]}", 22, "expected 'T(' to start sharding devices");
  expect_error(HLO, SDY, NULL, NULL, "{devices=[4]<=[2,2]T(0,2)}", 21, "Out of range iota minor_to_major value 2");
  expect_error(HLO, SDY, NULL, NULL, "{devices=[4]<=[2,2]T(0)}", 21, "iota_transpose_perm should have the same rank");
  expect_error(HLO, SDY, NULL, NULL, "{foo=1}", 2, "unknown attribute in sharding");
  expect_error(HLO, SDY, NULL, NULL, "{devices=[2]0,1", 16, "expected '}'");
  expect_error(HLO, SDY, NULL, NULL, "{devices=[2]0,1} x", 18, "unexpected text after the sharding");
  expect_error(HLO, SDY, NULL, NULL, "{@}", 2, "unexpected token");
  expect_warning(HLO, HLO, NULL, NULL, "{devices=[1]0}", "more than one device", "{replicated}");
  expect_error(HLO, SDY, NULL, NULL, "{devices=[99999999999]<=[99999999999]}", 10, "at most");
  /* zero-sized tile or iota dimensions would divide by zero when the iota is cut into axes */
  expect_error(HLO, SDY, NULL, NULL, "{devices=[0,8,4]<=[0,4,4]T(0,2,1) last_tile_dim_replicate}", 10, "positive");
  expect_error(HLO, SDY, NULL, NULL, "{devices=[2,2]<=[4,0]}", 17, "iota reshape dimensions must be positive");
  /* a device id is bounded like a device count: device maps hold an entry per device */
  expect_error(HLO, SDY, NULL, NULL, "{maximal device=5222222222}", 17, "device id must be between 0 and 16777215");
  expect_error(HLO, SDY, NULL, NULL, "{maximal device=-1}", 17, "device id must be between 0");
  expect_error(V3, SDY, NULL, NULL, "{maximal_mesh[device_id=16777216]}", 25, "device id must be between 0");
}

Test(errors, hlo_shape_checks) {
  expect_error(HLO, SDY, NULL, "8", "{devices=[2,2]<=[4]}", 1, "Number of tile assignment dimensions");
  expect_error(HLO, SDY, NULL, "8x8", "{devices=[2,2]0,1,1,3}", 1, "device 1 is not unique");
  expect_error(HLO, SDY, NULL, "8x8", "{devices=[2,2]0,1,2,7}", 1, "device 7 >= num_devices (4)");
  /* XLA's parser rejects one device; JAX's OpSharding reads it as replicated */
  expect_warning(HLO, HLO, NULL, "8x8", "{devices=[1,1]0}", "more than one device", "{replicated}");
}

Test(errors, hlo_v3_parser) {
  expect_error(V3, SDY, NULL, NULL, "{mesh[x=2], [{y}]}", 15, "unknown mesh axis 'y'");
  expect_error(V3, SDY, NULL, NULL, "{mesh[x=2,x=2], [{x}]}", 11, "duplicate axis names");
  expect_error(V3, SDY, NULL, NULL, "{mesh[x=2], [{x, ?, x}]}", 19, "expected '}'");
  /* {mesh[], [...]} is what XLA's Shardy export writes for an empty mesh */
  expect_error(V3, SDY, NULL, NULL, "{mesh[], [{x}]}", 12, "unknown mesh axis 'x'");
  expect_error(V3, SDY, NULL, NULL, "{mesh[x=4], [{x:(1)2}, {x}]}", 2, "used twice");
}

Test(errors, other_parsers) {
  expect_error(PSPEC, SDY, M, NULL, "P('x', 'z')", 8, "unknown mesh axis 'z'");
  expect_error(PSPEC, SDY, NULL, NULL, "P('x')", 1, "pass the mesh with --mesh");
  expect_error(PSPEC, SDY, M, NULL, "P('x' 'y')", 7, "expected ')'");
  expect_error(PSPEC, SDY, M, "8", "P('x', 'y')", 1, "has 2 entries but the shape has rank 1");
  expect_error(PSPEC, SDY, M, NULL, "P('x', 'x')", 1, "used twice");
  expect_error(DT, SDY, M, NULL, "[Shard(0)]", 1, "1 placements for a mesh with 2 dimensions");
  expect_error(DT, SDY, M, NULL, "[Shard(0), Shardd(1)]", 12, "expected a placement");
  expect_error(DT, SDY, M, NULL, "[Shard(0), Partial('mean')]", 20, "unknown reduce op 'mean'");
  expect_error(DT, SDY, M, NULL, "[_StridedShard(0, split_factor=4), Shard(0)]", 2, "split_factor 4");
  expect_error(DT, SDY, M, "4", "[Shard(1), Replicate()]", 2, "out of range for rank 1");
  expect_error(TF, SDY, NULL, NULL, "sharding_specs:z,unsharded, mesh:|x=2,y=2|0,1,2,3|0,1,2,3|a", 16,
               "'z' is not a mesh dimension");
  expect_error(TF, SDY, NULL, NULL, "sharding_specs:x,unsharded, mesh:|x=2,y=2|0,1,2|0,1,2|a", 43,
               "differs from the mesh size");
  expect_error(TF, SDY, NULL, NULL, "sharding_specs:x,x, mesh:|x=2,y=2|*CPU", 18, "only one tensor dimension");
  expect_error(SDY, HLO, NULL, NULL, "<@nomesh, [{\"x\"}]>", 1, "unknown mesh @nomesh");
  expect_error(SDY, HLO, NULL, NULL, "sdy.mesh @m = <[\"x\"=2]>; <@m, [{\"x\"}, {\"x\"}]>", 26, "used twice");
  /* V3 and Python strings have no escapes: a name with both quote marks has no spelling there */
  expect_error(SDY, V3, NULL, NULL, "sdy.mesh @m = <[\"a'b\\\"c\"=2]>; <@m, [{}]>", 31, "no HloSharding V3 spelling");
  expect_error(SDY, PSPEC, NULL, NULL, "sdy.mesh @m = <[\"a'b\\\"c\"=2]>; <@m, [{}]>", 31, "no Python string spelling");
  expect_error(SDY, DT, NULL, NULL, "sdy.mesh @m = <[\"a'b\\\"c\"=2]>; <@m, [{}]>", 31, "no Python string spelling");
  expect_error(SDY, HLO, NULL, NULL, "sdy.mesh @m = <[\"x\"=2]>; <@m, [{\"x\"}, {\"y\"}]>", 26, "unknown axis name");
}

Test(errors, meshes_and_shapes) {
  cv_run r;
  cr_assert(!cv_setup(&r, "{'x': 2, 'x': 2}", NULL));
  cr_assert(strstr(r.diags.text, "error@11: duplicate mesh axis name"), "%s", r.diags.text);
  cv_free(&r);
  cr_assert(!cv_setup(&r, "x=2,y", NULL));
  cr_assert(strstr(r.diags.text, "error@6: expected '=' after the axis name"), "%s", r.diags.text);
  cv_free(&r);
  cr_assert(!cv_setup(&r, "x=2, device_ids=[0,0]", NULL));
  cr_assert(strstr(r.diags.text, "permutation"), "%s", r.diags.text);
  cv_free(&r);
  /* a maximal mesh names one device; a huge id once asked for a 5 GB device map */
  cr_assert(!cv_setup(&r, "device_ids=[5222222222]", NULL));
  cr_assert(strstr(r.diags.text, "device id must be between 0 and 16777215"), "%s", r.diags.text);
  cv_free(&r);
  cr_assert(cv_setup(&r, "device_ids=[16777215]", NULL));
  cv_free(&r);
  /* '' is an axis name (Shardy's <[""=4]> prints so as a Python dict); a
   * missing name is not */
  cr_assert(cv_setup(&r, "{'': 4, 'x': 2}", NULL), "%s", r.diags.text);
  cr_assert_eq(r.cx.mesh->num_axes, 2);
  cr_assert_str_eq(r.cx.mesh->axes[0].name, "");
  cv_free(&r);
  cr_assert(!cv_setup(&r, "{: 4}", NULL));
  cr_assert(strstr(r.diags.text, "error@2: expected a mesh axis name"), "%s", r.diags.text);
  cv_free(&r);
  cr_assert(cv_setup(&r, "<[\"x\"=2, \"y\"=2], device_ids=[0, 2, 1, 3]>", "tensor<8x16xf32>"));
  cr_assert_eq(r.cx.rank, 2);
  cr_assert_eq(r.cx.shape[1], 16);
  cr_assert_eq(r.cx.mesh->num_device_ids, 4);
  cv_free(&r);
  cr_assert(cv_setup(&r, "sdy.mesh @m = <[\"a\"=4]>", "f32[3,5]{1,0}"));
  cr_assert_eq(r.cx.rank, 2);
  cr_assert_eq(r.cx.shape[0], 3);
  cv_free(&r);
  cr_assert(!cv_setup(&r, NULL, "8y16"));
  cv_free(&r);
}

/* Mutations of valid inputs: parsers must fail cleanly or succeed, never crash. */
Test(errors, mutations_never_crash) {
  static const struct {
    shard_notation from;
    const char *mesh;
    const char *text;
  } seeds[] = {
      {HLO, NULL, "{devices=[4,1,2]<=[2,2,2]T(2,0,1) last_tile_dims={manual, replicated} shard_as 1}"},
      {HLO, NULL, "{{devices=[2]0,1}, {maximal device=1}, {replicated metadata={op_name=\"a\"}}}"},
      {V3, NULL, "{mesh['x'=2,y=4], device_ids=([2,4]T(1,0)), [{x, ?}, {y:(1)2}], unreduced={y:(2)2}}"},
      {SDY, NULL, "sdy.mesh @m = <[\"x\"=2, \"y\"=2]>; #sdy.sharding<@m, [{\"x\", ?}p1, {}], replicated={\"y\"}>"},
      {PSPEC, "{'x': 2, 'y': 2}", "P(('x', 'y'), None, P.UNCONSTRAINED, unreduced={'y'}, unreduced_kind=sum)"},
      {DT, "{'x': 2, 'y': 2}", "[_StridedShard(dim=0, split_factor=2), Partial(reduce_op='max')]"},
      {TF, NULL, "sharding_specs:x,unsharded, mesh:cpu|x=2,y=2|0,1,2,3|0,1,2,3|/job:a/device:CPU:0"},
  };
  static const char repl[] = "{}[]()<>,=:?'\"0 9-xT";
  unsigned runs = 0;
  for (size_t s = 0; s < sizeof seeds / sizeof seeds[0]; s++) {
    size_t n = strlen(seeds[s].text);
    char *buf = malloc(n + 2);
    for (size_t i = 0; i <= n; i++) {
      for (size_t k = 0; k < sizeof repl; k++) {
        memcpy(buf, seeds[s].text, n + 1);
        if (k == sizeof repl - 1) buf[i] = '\0'; /* truncation */
        else if (i < n) buf[i] = repl[k];
        else continue;
        for (int to = 0; to < 6; to++) {
          cv_run r;
          cv_convert(&r, seeds[s].from, (shard_notation)to, seeds[s].mesh, NULL, buf);
          /* a failure must say why */
          if (!r.ok) cr_assert(r.diags.errors > 0 || r.parsed, "%s -> no diagnostic", buf);
          cv_free(&r);
          runs++;
        }
      }
    }
    free(buf);
  }
  cr_assert(runs > 1000);
}
