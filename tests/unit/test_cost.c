/* Collective costs (cost.c) on the built-in topologies (topology.c).
 *
 * The worked examples of /work/shared/reference/collective_costs.md section
 * 6 must come out within 2% of the published numbers:
 *   E1  scaling-book sharding.md Pop Quiz 2 (TPU v5e, AllGather over Y=4 of
 *       bf16[2048, 8192]): 377 us with a wraparound ring, 560 us without;
 *       a v5e 8x4 slice has no wraparound (tpus.md), so 560 is its answer.
 *   E3  sharding.md Q2 (TPU v4p 4x4x4, AllGather_X of bf16[B_X, D_Y],
 *       B=1024, D=4096): 23 us (23.30).
 *   E9  scaling-book gpus.md Pop Quiz 1 (8xH100, AllGather of
 *       bf16[B_X, F], B=1024, F=16384): 65 us precise, 75 us as N -> inf.
 * The ICI constants are those of the Feb-2025 tpus.md table (v4p/v5e
 * 9e10 B/s bidirectional), as the reference file advises. */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "cost/cost.h"
#include "cost/topology.h"

static shard_mesh_axis axes_buf[8];

/* A mesh with implicit device ids from "x" sizes; names are "x","y","z". */
static shard_mesh mesh3(int64_t x, int64_t y, int64_t z) {
  static const char *names[] = {"x", "y", "z"};
  int64_t sizes[] = {x, y, z};
  shard_mesh m = {0};
  m.axes = axes_buf;
  for (uint32_t i = 0; i < 3 && sizes[i] > 0; i++) {
    axes_buf[i].name = names[i];
    axes_buf[i].size = sizes[i];
    m.num_axes++;
  }
  return m;
}

static shard_topology topo(const char *spec, int64_t devices) {
  shard_topology t;
  shard_buf err;
  shard_buf_init(&err);
  bool ok = shard_topology_builtin(spec, devices, &t, &err);
  cr_assert(ok, "topology %s: %s", spec, shard_buf_str(&err));
  shard_buf_free(&err);
  return t;
}

static void assert_within(double got, double want, double rel, const char *what) {
  cr_assert(fabs(got - want) <= rel * want, "%s: got %.6g, expected %.6g (within %.0f%%)", what, got, want, rel * 100);
}

static shard_axis_ref axis(const char *name) {
  shard_axis_ref r = {name, false, 0, 0};
  return r;
}

Test(cost_examples, e1_v5e_all_gather_no_wraparound) {
  shard_mesh m = mesh3(8, 4, 0);
  shard_topology t = topo("tpu-v5e:8x4", 32);
  cr_assert(!t.wrap[0] && !t.wrap[1], "a v5e 8x4 slice has no wraparound links");
  shard_axis_ref y = axis("y");
  /* [E_Y, F] -> [E, F]: local out is the whole bf16[2048, 8192] (X unused). */
  int64_t out_shape[] = {2048, 8192}, in_shape[] = {512, 8192};
  double out = shard_tensor_bytes(out_shape, 2, "bf16"), in = shard_tensor_bytes(in_shape, 2, "bf16");
  cr_assert_eq(out, 33554432.0);
  shard_collective_cost c;
  shard_collective_cost_compute(&t, &m, SHARD_COLL_ALL_GATHER, &y, 1, in, out, &c);
  cr_assert_eq(c.group_size, 4);
  cr_assert_eq(c.num_groups, 8);
  cr_assert_eq(c.placement.num_parts, 1);
  assert_within(c.seconds * 1e6, 560, 0.02, "E1 without wraparound");
  /* Bytes: V(N-1)/N. */
  assert_within(c.bytes_sent, 33554432.0 * 3 / 4, 1e-9, "E1 bytes sent");
  cr_assert_eq(c.bytes_sent, c.bytes_recv);
}

Test(cost_examples, e1_v5e_all_gather_with_wraparound) {
  shard_mesh m = mesh3(8, 4, 0);
  shard_topology t = topo("tpu-v5e:8x4,wrap", 32);
  shard_axis_ref y = axis("y");
  shard_collective_cost c;
  shard_collective_cost_compute(&t, &m, SHARD_COLL_ALL_GATHER, &y, 1, 8388608.0, 33554432.0, &c);
  cr_assert(c.placement.part_wrap[0]);
  assert_within(c.seconds * 1e6, 377, 0.02, "E1 with wraparound");
  assert_within(c.seconds * 1e6, 372.8, 0.001, "E1 exact V/W_ici");
}

Test(cost_examples, e3_v4p_all_gather_x) {
  shard_mesh m = mesh3(4, 4, 4);
  shard_topology t = topo("tpu-v4p:4x4x4", 64);
  cr_assert(t.wrap[0] && t.wrap[1] && t.wrap[2], "4x4x4 is a full torus");
  shard_axis_ref x = axis("x");
  /* AllGather_X([B_X, D_Y]) -> [B, D_Y]: local out bf16[1024, 1024]. */
  int64_t out_shape[] = {1024, 4096 / 4}, in_shape[] = {1024 / 4, 4096 / 4};
  shard_collective_cost c;
  shard_collective_cost_compute(&t, &m, SHARD_COLL_ALL_GATHER, &x, 1, shard_tensor_bytes(in_shape, 2, "bf16"),
                                shard_tensor_bytes(out_shape, 2, "bf16"), &c);
  cr_assert_eq(c.group_size, 4);
  cr_assert_eq(c.num_groups, 16);
  assert_within(c.seconds * 1e6, 23.30, 0.02, "E3");
  assert_within(c.seconds * 1e6, 23, 0.02, "E3 (book rounding)");
}

Test(cost_examples, e9_h100_all_gather) {
  shard_mesh m = mesh3(8, 0, 0);
  shard_topology t = topo("h100", 8);
  shard_axis_ref x = axis("x");
  int64_t out_shape[] = {1024, 16384};
  double out = shard_tensor_bytes(out_shape, 2, "bf16");
  shard_collective_cost c;
  shard_collective_cost_compute(&t, &m, SHARD_COLL_ALL_GATHER, &x, 1, out / 8, out, &c);
  cr_assert_eq(c.placement.nodes, 1);
  cr_assert_eq(c.placement.per_node, 8);
  assert_within(c.seconds * 1e6, 65.24, 0.02, "E9 precise");
  /* The N -> infinity form B/W_gpu of the book is 74.57 us. */
  assert_within(out / 450e9 * 1e6, 74.57, 0.001, "E9 approximate form");
}

/* ---- the formulas beyond the worked examples ------------------------------ */

Test(cost_bytes, ring_counts) {
  double v, s, r;
  shard_collective_bytes(SHARD_COLL_ALL_GATHER, 4, 100, 400, &v, &s, &r);
  cr_assert(v == 400 && s == 300 && r == 300);
  shard_collective_bytes(SHARD_COLL_REDUCE_SCATTER, 4, 400, 100, &v, &s, &r);
  cr_assert(v == 400 && s == 300);
  shard_collective_bytes(SHARD_COLL_ALL_REDUCE, 4, 400, 400, &v, &s, &r);
  cr_assert(v == 400 && s == 600);
  /* AllToAll: local 400, keeps a quarter, sends the rest. */
  shard_collective_bytes(SHARD_COLL_ALL_TO_ALL, 4, 400, 400, &v, &s, &r);
  cr_assert(v == 1600 && s == 300, "v=%g s=%g", v, s);
  shard_collective_bytes(SHARD_COLL_ALL_SLICE, 4, 400, 100, &v, &s, &r);
  cr_assert(s == 0 && r == 0);
  shard_collective_bytes(SHARD_COLL_COLLECTIVE_PERMUTE, 8, 400, 400, &v, &s, &r);
  cr_assert(s == 400);
}

Test(cost_time, all_reduce_is_twice_all_gather_and_all_to_all_a_quarter) {
  shard_mesh m = mesh3(4, 4, 4);
  shard_topology t = topo("tpu-v5p:4x4x4", 64);
  shard_axis_ref x = axis("x");
  shard_collective_cost ag, ar, a2a;
  shard_collective_cost_compute(&t, &m, SHARD_COLL_ALL_GATHER, &x, 1, 1e8 / 4, 1e8, &ag);
  shard_collective_cost_compute(&t, &m, SHARD_COLL_ALL_REDUCE, &x, 1, 1e8, 1e8, &ar);
  /* AllToAll of a local 1e8/4 shard: V = 1e8 on the group. */
  shard_collective_cost_compute(&t, &m, SHARD_COLL_ALL_TO_ALL, &x, 1, 1e8 / 4, 1e8 / 4, &a2a);
  assert_within(ag.seconds, 1e8 / 1.8e11, 1e-9, "AG = V/W_ici");
  assert_within(ar.seconds, 2 * ag.seconds, 1e-9, "AR = 2 AG");
  assert_within(a2a.seconds, ag.seconds / 4, 1e-9, "A2A = AG/4 on a ring");
}

Test(cost_time, multi_axis_gather_uses_every_axis) {
  shard_mesh m = mesh3(4, 4, 4);
  shard_topology t = topo("tpu-v4p:4x4x4", 64);
  shard_axis_ref xy[] = {axis("x"), axis("y")};
  shard_collective_cost c;
  shard_collective_cost_compute(&t, &m, SHARD_COLL_ALL_GATHER, xy, 2, 1e6, 16e6, &c);
  cr_assert_eq(c.group_size, 16);
  cr_assert_eq(c.placement.num_parts, 2);
  /* V / (W_ici * N_axes) */
  assert_within(c.seconds, 16e6 / (9e10 * 2), 1e-9, "2-axis gather");
}

Test(cost_time, small_arrays_are_latency_bound) {
  shard_mesh m = mesh3(16, 0, 0);
  shard_topology t = topo("tpu-v5e:16x1", 16);
  cr_assert(t.wrap[0], "a full 16 axis of a v5e has wraparound");
  shard_axis_ref x = axis("x");
  shard_collective_cost c;
  /* 16 kB: below the 45 kB threshold of sharding.md. T = T_min * X/2. */
  shard_collective_cost_compute(&t, &m, SHARD_COLL_ALL_GATHER, &x, 1, 1024, 16384, &c);
  cr_assert(c.latency_bound);
  assert_within(c.seconds, 8e-6, 1e-9, "latency bound");
}

Test(cost_time, sub_axes_and_gpu_nodes) {
  /* Mesh x=2,y=8 on 16 H100s: y inside a node, x across two nodes. */
  shard_mesh m = mesh3(2, 8, 0);
  shard_topology t = topo("h100:16", 16);
  shard_axis_ref x = axis("x"), y = axis("y");
  shard_collective_cost cx, cy;
  shard_collective_cost_compute(&t, &m, SHARD_COLL_ALL_GATHER, &y, 1, 1e6, 8e6, &cy);
  cr_assert_eq(cy.placement.nodes, 1);
  assert_within(cy.seconds, 8e6 * 7 / 8 / 450e9, 1e-9, "in-node gather");
  shard_collective_cost_compute(&t, &m, SHARD_COLL_ALL_GATHER, &x, 1, 1e6, 2e6, &cx);
  cr_assert_eq(cx.placement.nodes, 2);
  cr_assert_eq(cx.placement.per_node, 1);
  /* 8 groups share a node's 400 GB/s: 50 GB/s each (one NIC per GPU). */
  assert_within(cx.seconds, 2e6 / 2 / 50e9, 1e-9, "cross-node gather");
  /* A sub-axis "y":(2)4 is the minor 4 of y: still inside one node. */
  shard_axis_ref ysub = {"y", true, 2, 4};
  shard_collective_cost cs;
  shard_collective_cost_compute(&t, &m, SHARD_COLL_ALL_REDUCE, &ysub, 1, 1e6, 1e6, &cs);
  cr_assert_eq(cs.group_size, 4);
  cr_assert_eq(cs.num_groups, 4);
  assert_within(cs.bytes_sent, 2 * 1e6 * 3 / 4, 1e-9, "all_reduce bytes");
}

Test(cost_device_ids, iota_ids_place_like_implicit_ones) {
  shard_mesh m = mesh3(8, 4, 0);
  shard_topology t = topo("tpu-v5e:8x4", 32);
  int64_t ids[32];
  for (int i = 0; i < 32; i++) ids[i] = i;
  shard_axis_ref y = axis("y"), x = axis("x");
  shard_collective_cost implicit_y, implicit_x, explicit_y, explicit_x;
  shard_collective_cost_compute(&t, &m, SHARD_COLL_ALL_GATHER, &y, 1, 1e6, 4e6, &implicit_y);
  shard_collective_cost_compute(&t, &m, SHARD_COLL_ALL_GATHER, &x, 1, 1e6, 8e6, &implicit_x);
  m.device_ids = ids;
  m.num_device_ids = 32;
  shard_collective_cost_compute(&t, &m, SHARD_COLL_ALL_GATHER, &y, 1, 1e6, 4e6, &explicit_y);
  shard_collective_cost_compute(&t, &m, SHARD_COLL_ALL_GATHER, &x, 1, 1e6, 8e6, &explicit_x);
  cr_assert_eq(explicit_y.placement.num_parts, implicit_y.placement.num_parts);
  cr_assert_eq(explicit_y.placement.part_size[0], implicit_y.placement.part_size[0]);
  cr_assert_eq(explicit_x.placement.part_size[0], 8);
  assert_within(explicit_y.seconds, implicit_y.seconds, 1e-12, "y with iota ids");
  assert_within(explicit_x.seconds, implicit_x.seconds, 1e-12, "x with iota ids");
}

Test(cost_device_ids, scattered_groups_span_more_of_the_torus) {
  /* v5e 4x4 (no wraparound), mesh x=4,y=4. Implicit ids put each "y" group
   * on one row: a ring of 4 along the minor dim. With ids that send mesh
   * index (i, j) to physical row j/2 + 2*(i/2), column 2*(i%2) + j%2, each
   * "y" group is a 2x2 square: 2 along each physical dim. */
  shard_mesh m = mesh3(4, 4, 0);
  shard_topology t = topo("tpu-v5e:4x4", 16);
  shard_axis_ref y = axis("y");
  shard_collective_cost row, square;
  shard_collective_cost_compute(&t, &m, SHARD_COLL_ALL_GATHER, &y, 1, 1e6, 4e6, &row);
  cr_assert_eq(row.placement.num_parts, 1);
  cr_assert_eq(row.placement.part_size[0], 4);
  int64_t ids[16];
  for (int i = 0; i < 4; i++)
    for (int j = 0; j < 4; j++) ids[i * 4 + j] = (j / 2 + 2 * (i / 2)) * 4 + 2 * (i % 2) + j % 2;
  m.device_ids = ids;
  m.num_device_ids = 16;
  shard_collective_cost_compute(&t, &m, SHARD_COLL_ALL_GATHER, &y, 1, 1e6, 4e6, &square);
  cr_assert_eq(square.placement.num_parts, 2, "a 2x2 square spans both dims");
  cr_assert_eq(square.placement.part_size[0], 2);
  cr_assert_eq(square.placement.part_size[1], 2);
  cr_assert_eq(square.group_size, 4);
  /* two dims carry the gather: more bandwidth than one 4-ring */
  cr_assert_lt(square.seconds, row.seconds);
}

Test(cost_device_ids, interleaved_ids_cross_gpu_nodes) {
  /* 16 H100s, mesh x=2,y=8. Implicit ids keep each "y" group in one node;
   * ids that alternate nodes (mesh index d -> node d%2) split it 4 + 4. */
  shard_mesh m = mesh3(2, 8, 0);
  shard_topology t = topo("h100:16", 16);
  shard_axis_ref y = axis("y");
  shard_collective_cost inside, split;
  shard_collective_cost_compute(&t, &m, SHARD_COLL_ALL_GATHER, &y, 1, 1e6, 8e6, &inside);
  int64_t ids[16];
  for (int d = 0; d < 16; d++) ids[d] = (d % 2) * 8 + d / 2;
  m.device_ids = ids;
  m.num_device_ids = 16;
  shard_collective_cost_compute(&t, &m, SHARD_COLL_ALL_GATHER, &y, 1, 1e6, 8e6, &split);
  cr_assert_eq(inside.placement.nodes, 1);
  cr_assert_eq(split.placement.nodes, 2);
  cr_assert_eq(split.placement.per_node, 4);
  cr_assert_gt(split.seconds, inside.seconds, "crossing nodes is slower: %g vs %g", split.seconds, inside.seconds);
}

Test(topology, builtins_and_errors) {
  shard_topology t = topo("tpu-v5p", 64);
  cr_assert_eq(t.num_dims, 3);
  cr_assert(t.dims[0] == 4 && t.dims[1] == 4 && t.dims[2] == 4);
  cr_assert(t.wrap[0]);
  t = topo("tpu-v4p:2x2x4", 16);
  cr_assert(!t.wrap[2], "a 2x2x4 has no wraparound");
  t = topo("tpu-v6e", 256);
  cr_assert(t.dims[0] == 16 && t.dims[1] == 16 && t.wrap[0] && t.wrap[1]);
  shard_buf err;
  shard_buf_init(&err);
  cr_assert(!shard_topology_builtin("tpu-v9", 8, &t, &err));
  cr_assert(strstr(shard_buf_str(&err), "unknown topology 'tpu-v9'"));
  shard_buf_clear(&err);
  cr_assert(!shard_topology_builtin("tpu-v5e:4x4x4", 8, &t, &err));
  cr_assert(strstr(shard_buf_str(&err), "2D torus"));
  shard_buf_clear(&err);
  t = topo("tpu-v5e:2x4", 8);
  cr_assert(!shard_topology_validate(&t, 16, &err));
  cr_assert(strstr(shard_buf_str(&err), "has only 8"), "%s", shard_buf_str(&err));
  shard_buf_free(&err);
}
