/* Unit tests for the placement model (src/core/placement.c): block ranges
 * with padding, device coordinates, sub-axes, replication, unreduced
 * partials, device_ids order, comparison, and the errors it reports. */
#include <criterion/criterion.h>
#include <string.h>

#include "cost/placement.h"

static shard_arena *arena;
static shard_diag_engine de;

static void setup(void) {
  arena = shard_arena_new();
  shard_diag_init(&de, NULL, NULL);
}
static void teardown(void) { shard_arena_free(arena); }

TestSuite(placement, .init = setup, .fini = teardown);

static shard_mesh *mesh(uint32_t n, const char *const *names, const int64_t *sizes, const int64_t *ids) {
  shard_mesh *m = SHARD_NEW(arena, shard_mesh);
  m->axes = SHARD_NEW_ARRAY(arena, shard_mesh_axis, n + 1);
  for (uint32_t i = 0; i < n; i++) {
    m->axes[i].name = names[i];
    m->axes[i].size = sizes[i];
  }
  m->num_axes = n;
  if (ids) {
    int64_t total = shard_mesh_num_devices(m);
    m->device_ids = shard_arena_dup(arena, ids, sizeof *ids * (size_t)total);
    m->num_device_ids = (uint32_t)total;
  }
  return m;
}

static shard_axis_ref full(const char *name) {
  shard_axis_ref r = {name, false, 0, 0};
  return r;
}

static shard_axis_ref sub(const char *name, int64_t pre, int64_t size) {
  shard_axis_ref r = {name, true, pre, size};
  return r;
}

/* A sharding with at most one axis per dim (NULL name: unsharded). */
static shard_tensor_sharding *sharding(uint32_t rank, const shard_axis_ref *dims) {
  shard_tensor_sharding *s = SHARD_NEW(arena, shard_tensor_sharding);
  s->mesh_name = "m";
  s->rank = rank;
  s->dims = SHARD_NEW_ARRAY(arena, shard_dim_sharding, rank + 1);
  for (uint32_t d = 0; d < rank; d++)
    if (dims[d].name) {
      s->dims[d].axes = shard_arena_dup(arena, &dims[d], sizeof dims[d]);
      s->dims[d].num_axes = 1;
    }
  return s;
}

static shard_type *tensor(uint32_t rank, const int64_t *dims) {
  return shard_type_tensor(arena, rank, dims, "f32", NULL);
}

Test(placement, rows_and_columns) {
  const char *names[] = {"x", "y"};
  int64_t sizes[] = {2, 4}, shape[] = {8, 16};
  shard_axis_ref dims[] = {full("x"), full("y")};
  shard_placement *p = shard_placement_compute(arena, tensor(2, shape), sharding(2, dims), mesh(2, names, sizes, NULL),
                                               "m", &de, shard_no_span);
  cr_assert_not_null(p);
  cr_assert_eq(p->num_blocks, 8);
  cr_assert_eq(p->copies, 1);
  const shard_placement_block *b = &p->blocks[6];
  cr_assert_eq(b->tile[0], 1);
  cr_assert_eq(b->tile[1], 2);
  cr_assert_eq(b->start[0], 4);
  cr_assert_eq(b->end[1], 12);
  cr_assert_eq(b->num_devices, 1);
  cr_assert_eq(p->devices[b->devices[0]].id, 6);
  cr_assert_eq(p->devices[6].coords[0], 1);
  cr_assert_eq(p->devices[6].coords[1], 2);
}

Test(placement, uneven_tail_is_padded_or_empty) {
  const char *names[] = {"x"};
  int64_t sizes[] = {4}, shape[] = {5};
  shard_axis_ref dims[] = {full("x")};
  shard_placement *p = shard_placement_compute(arena, tensor(1, shape), sharding(1, dims), mesh(1, names, sizes, NULL),
                                               "m", &de, shard_no_span);
  cr_assert_not_null(p);
  cr_assert_eq(p->local[0], 2);
  cr_assert(!p->blocks[1].padded);
  cr_assert(p->blocks[2].padded && !p->blocks[2].empty);
  cr_assert_eq(p->blocks[2].end[0] - p->blocks[2].start[0], 1);
  cr_assert(p->blocks[3].empty);
  cr_assert_eq(p->blocks[3].start[0], 5);
}

Test(placement, sub_axes_unreduced_and_device_ids) {
  const char *names[] = {"x", "y", "z"};
  int64_t sizes[] = {4, 2, 2}, shape[] = {7, 3};
  int64_t ids[16];
  for (int i = 0; i < 16; i++) ids[i] = 15 - i;
  shard_axis_ref dims[] = {sub("x", 1, 2), full("y")};
  shard_tensor_sharding *s = sharding(2, dims);
  shard_axis_ref rep = sub("x", 2, 2), unred = full("z");
  s->replicated = &rep;
  s->num_replicated = 1;
  s->unreduced = &unred;
  s->num_unreduced = 1;
  shard_placement *p =
      shard_placement_compute(arena, tensor(2, shape), s, mesh(3, names, sizes, ids), "m", &de, shard_no_span);
  cr_assert_not_null(p);
  cr_assert_eq(p->num_blocks, 4);
  cr_assert_eq(p->num_partials, 2);
  cr_assert_eq(p->copies, 2);
  /* Mesh position 4 is x=1, y=0, z=0: the minor half of x, so block 0. */
  cr_assert_eq(p->devices[4].id, 11);
  cr_assert_eq(p->devices[4].block, 0);
  cr_assert_eq(p->devices[4].partial, 0);
  /* Position 9 is x=2, y=0, z=1: major half of x, block 2, partial 1. */
  cr_assert_eq(p->devices[9].block, 2);
  cr_assert_eq(p->devices[9].partial, 1);
  cr_assert_eq(p->blocks[2].num_devices, 4);
  /* "x" is cut into "x":(1)2 (dim 0) and "x":(2)2 (replicated). */
  cr_assert_eq(p->num_axes, 4);
  cr_assert_eq(p->axes[0].role, SHARD_ROLE_DIM);
  cr_assert_eq(p->axes[1].role, SHARD_ROLE_REPLICATED);
  cr_assert_eq(p->axes[1].pre_size, 2);
  cr_assert_eq(p->axes[3].role, SHARD_ROLE_UNREDUCED);
}

Test(placement, same_data_on_permuted_meshes) {
  const char *names[] = {"data", "model"};
  int64_t sizes[] = {2, 2}, shape[] = {8, 4}, ids[] = {0, 2, 1, 3};
  shard_axis_ref on_data[] = {full("data"), {0}}, on_model[] = {full("model"), {0}};
  shard_placement *a = shard_placement_compute(arena, tensor(2, shape), sharding(2, on_data),
                                               mesh(2, names, sizes, ids), "t", &de, shard_no_span);
  shard_placement *b = shard_placement_compute(arena, tensor(2, shape), sharding(2, on_model),
                                               mesh(2, names, sizes, NULL), "m", &de, shard_no_span);
  shard_placement *c = shard_placement_compute(arena, tensor(2, shape), sharding(2, on_data),
                                               mesh(2, names, sizes, NULL), "m", &de, shard_no_span);
  cr_assert(a && b && c);
  shard_buf why;
  shard_buf_init(&why);
  cr_assert(shard_placement_same(a, b, &why));
  cr_assert_not(shard_placement_same(a, c, &why));
  cr_assert(strstr(shard_buf_str(&why), "device 2 holds") != NULL, "%s", shard_buf_str(&why));
  shard_buf_free(&why);
}

Test(placement, errors_are_reported) {
  const char *names[] = {"x"};
  int64_t sizes[] = {4}, shape[] = {8, 8}, dyn[] = {SHARD_DYNAMIC_DIM};
  shard_axis_ref dims[] = {full("x"), {0}}, bad[] = {full("q"), {0}}, odd[] = {sub("x", 3, 2), {0}};
  shard_mesh *m = mesh(1, names, sizes, NULL);
  cr_assert_null(shard_placement_compute(arena, tensor(2, shape), sharding(1, dims), m, "m", &de, shard_no_span));
  cr_assert_null(shard_placement_compute(arena, tensor(2, shape), sharding(2, bad), m, "m", &de, shard_no_span));
  cr_assert_null(shard_placement_compute(arena, tensor(2, shape), sharding(2, odd), m, "m", &de, shard_no_span));
  cr_assert_null(shard_placement_compute(arena, tensor(1, dyn), sharding(1, dims), m, "m", &de, shard_no_span));
  cr_assert_eq(de.errors, 4);
}
