/* Resharding with collectives: the step planner (reshard.c) and the
 * -sdy-reshard-to-collectives pass. Shardy's lit tests pin the documented
 * cases; these check the planner's outcomes, that every step is a legal
 * move (sizes per dim change exactly as the collective says), that random
 * reshards on power-of-two meshes always reach the target, and the pass's
 * options, chains and failure. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/parse.h"
#include "pass/pass.h"
#include "ir/print.h"
#include "export/reshard.h"
#include "sdy_testing.h"
#include "verify/verify.h"

/* ---- planner ---------------------------------------------------------------- */

/* Parses a #sdy.sharding with an inlined mesh; the module stays alive in *keep. */
static shard_tensor_sharding *S_sharding(sdy_parsed *keep, const char *text) {
  sdy_parse_attr(keep, text);
  cr_assert(keep->attr && keep->attr->kind == SHARD_ATTR_SDY_SHARDING, "bad sharding %s: %s", text, keep->diags.text);
  return keep->attr->u.sharding;
}

static void S_print_step(shard_buf *b, const shard_reshard_step *st) {
  shard_buf_puts(b, shard_reshard_kind_name(st->kind));
  if (st->kind == SHARD_RESHARD_ALL_SLICE || st->kind == SHARD_RESHARD_ALL_GATHER) {
    shard_buf_puts(b, " [");
    for (uint32_t d = 0; d < st->rank; d++) {
      if (d) shard_buf_puts(b, ", ");
      shard_axis_list_print(b, st->axes_per_dim[d].axes, st->axes_per_dim[d].num);
    }
    shard_buf_puts(b, "]");
  } else if (st->kind == SHARD_RESHARD_ALL_TO_ALL) {
    shard_buf_puts(b, " ");
    shard_axis_list_print(b, st->all_to_all.axes.axes, st->all_to_all.axes.num);
    shard_buf_printf(b, ": %lld->%lld", (long long)st->all_to_all.src_dim, (long long)st->all_to_all.tgt_dim);
  }
  shard_buf_puts(b, " ");
  shard_sharding_print(b, st->sharding);
  shard_buf_puts(b, "\n");
}

/* Plans in -> out over `shape` and prints the outcome and the steps. */
static char *S_plan(const char *in_text, const char *out_text, const int64_t *shape) {
  sdy_parsed pin, pout;
  shard_tensor_sharding *in = S_sharding(&pin, in_text);
  shard_tensor_sharding *out = S_sharding(&pout, out_text);
  shard_arena *a = shard_arena_new();
  shard_reshard_step *steps;
  uint32_t n;
  shard_reshard_outcome o = shard_reshard_plan(a, in, in->inline_mesh, out, out->inline_mesh, shape, &steps, &n);
  shard_buf b;
  shard_buf_init(&b);
  static const char *const names[] = {"steps", "forward", "maximal", "incompatible", "rank", "incomplete"};
  shard_buf_printf(&b, "%s\n", names[o]);
  for (uint32_t i = 0; i < n; i++) S_print_step(&b, &steps[i]);
  shard_arena_free(a);
  sdy_parsed_free(&pin);
  sdy_parsed_free(&pout);
  return shard_buf_take(&b);
}

#define MESH4 "mesh<[\"x\"=2, \"y\"=2, \"z\"=2, \"w\"=2]>"
static const int64_t shape_16[] = {16, 16, 16};

Test(reshard_plan, same_sharding_needs_no_step) {
  char *got = S_plan("#sdy.sharding<" MESH4 ", [{\"x\"}, {\"y\", \"z\"}]>",
                     "#sdy.sharding<" MESH4 ", [{\"x\"}, {\"y\", \"z\"}]>", shape_16);
  cr_expect_str_eq(got, "steps\n");
  free(got);
}

Test(reshard_plan, both_replicated_forward_the_value) {
  char *got =
      S_plan("#sdy.sharding<" MESH4 ", [{}, {?}]>", "#sdy.sharding<" MESH4 ", [{}, {}], replicated={\"x\"}>", shape_16);
  cr_expect_str_eq(got, "forward\n");
  free(got);
}

Test(reshard_plan, replicated_target_gathers_on_the_input_mesh) {
  char *got = S_plan("#sdy.sharding<" MESH4 ", [{\"x\", \"y\"}, {\"z\"}]>", "#sdy.sharding<mesh<[\"a\"=4]>, [{}, {}]>",
                     shape_16);
  cr_expect_str_eq(got, "steps\nall_gather [{\"x\", \"y\"}, {\"z\"}] <mesh<[\"x\"=2, \"y\"=2, \"z\"=2, "
                        "\"w\"=2]>, [{}, {}]>\n");
  free(got);
}

Test(reshard_plan, single_device_and_foreign_meshes_are_left_alone) {
  char *got = S_plan("#sdy.sharding<mesh<[], device_ids=[0]>, []>", "#sdy.sharding<" MESH4 ", [{}, {}]>", shape_16);
  cr_expect_str_eq(got, "maximal\n");
  free(got);
  got = S_plan("#sdy.sharding<mesh<[\"x\"=4]>, [{\"x\"}, {}]>",
               "#sdy.sharding<mesh<[\"x\"=2, \"y\"=2]>, [{}, {\"x\"}]>", shape_16);
  cr_expect_str_eq(got, "incompatible\n");
  free(got);
  got = S_plan("#sdy.sharding<" MESH4 ", [{\"x\"}, {}]>", "#sdy.sharding<" MESH4 ", [{\"x\"}]>", shape_16);
  cr_expect_str_eq(got, "rank\n");
  free(got);
}

Test(reshard_plan, device_order_alone_is_a_collective_permute) {
  char *got = S_plan("#sdy.sharding<mesh<[\"x\"=2, \"y\"=2]>, [{\"x\"}, {\"y\"}]>",
                     "#sdy.sharding<mesh<[\"x\"=2, \"y\"=2], device_ids=[3, 2, 1, 0]>, "
                     "[{\"x\"}, {\"y\"}]>",
                     shape_16);
  cr_expect_str_eq(got, "steps\ncollective_permute <mesh<[\"x\"=2, \"y\"=2], "
                        "device_ids=[3, 2, 1, 0]>, [{\"x\"}, {\"y\"}]>\n");
  free(got);
}

Test(reshard_plan, kinds_in_order_and_unreduced_axes_kept) {
  /* z is wanted on dim 0 but dim 0 has no spare capacity, so it is sliced
   * on dim 1; a permute then swaps it with x, and y is gathered. Every
   * step keeps the unreduced axes. */
  char *got = S_plan("#sdy.sharding<" MESH4 ", [{\"y\", \"x\"}, {}], unreduced={\"w\"}>",
                     "#sdy.sharding<" MESH4 ", [{\"z\"}, {\"x\"}], unreduced={\"w\"}>", shape_16);
  cr_expect_str_eq(got, "steps\n"
                        "all_slice [{}, {\"z\"}] <" MESH4 ", [{\"y\", \"x\"}, {\"z\"}], "
                        "unreduced={\"w\"}>\n"
                        "collective_permute <" MESH4 ", [{\"z\", \"y\"}, {\"x\"}], "
                        "unreduced={\"w\"}>\n"
                        "all_gather [{\"y\"}, {}] <" MESH4 ", [{\"z\"}, {\"x\"}], "
                        "unreduced={\"w\"}>\n");
  free(got);
}

Test(reshard_plan, sub_axes_are_split_to_match) {
  /* "x":(1)2 of a size-4 axis stays; the rest of x goes to dim 1. */
  char *got = S_plan("#sdy.sharding<mesh<[\"x\"=4]>, [{\"x\"}, {}]>",
                     "#sdy.sharding<mesh<[\"x\"=4]>, [{\"x\":(1)2}, {\"x\":(2)2}]>", shape_16);
  cr_expect_str_eq(got, "steps\nall_to_all {\"x\":(2)2}: 0->1 <mesh<[\"x\"=4]>, "
                        "[{\"x\":(1)2}, {\"x\":(2)2}]>\n");
  free(got);
}

Test(reshard_plan, non_divisible_dim_slices_at_the_target) {
  /* Dim 0 (size 2) can't take y before an all_to_all to dim 1, so y is
   * sliced where it belongs. */
  static const int64_t shape[] = {2, 16};
  char *got = S_plan("#sdy.sharding<mesh<[\"x\"=2, \"y\"=2]>, [{\"x\"}, {}]>",
                     "#sdy.sharding<mesh<[\"x\"=2, \"y\"=2]>, [{}, {\"x\", \"y\"}]>", shape);
  cr_expect(strstr(got, "all_slice [{}, {\"y\"}]") != NULL, "%s", got);
  cr_expect(strstr(got, "all_slice [{\"y\"}, {}]") == NULL, "%s", got);
  free(got);
}

/* ---- random reshards always arrive, through legal steps -------------------- */

static uint32_t S_rand_state = 12345;
static uint32_t S_rand(void) {
  S_rand_state = S_rand_state * 1103515245u + 12345u;
  return (S_rand_state >> 16) & 0x7fff;
}

static int64_t S_dim_size(const shard_axis_ref *axes, uint32_t n, const shard_mesh *m) {
  return shard_axes_product(axes, n, m);
}

/* A random sharding of rank 3: each of the mesh's axes (or its two halves,
 * for size-4 axes) lands in a random dim or nowhere, in random order. */
static shard_tensor_sharding *S_random(shard_arena *a, shard_mesh *m) {
  shard_axis_ref pool[16];
  uint32_t np = 0;
  for (uint32_t i = 0; i < m->num_axes; i++) {
    if (m->axes[i].size == 4 && S_rand() % 2) {
      shard_axis_ref lo = {m->axes[i].name, true, 1, 2}, hi = {m->axes[i].name, true, 2, 2};
      pool[np++] = lo;
      pool[np++] = hi;
    } else {
      shard_axis_ref full = {m->axes[i].name, false, 0, 0};
      pool[np++] = full;
    }
  }
  for (uint32_t i = np; i > 1; i--) {
    uint32_t j = S_rand() % i;
    shard_axis_ref t = pool[i - 1];
    pool[i - 1] = pool[j];
    pool[j] = t;
  }
  shard_tensor_sharding *s = SHARD_NEW(a, shard_tensor_sharding);
  s->inline_mesh = m;
  s->rank = 3;
  s->dims = SHARD_NEW_ARRAY(a, shard_dim_sharding, 3);
  for (uint32_t d = 0; d < 3; d++) {
    s->dims[d].axes = SHARD_NEW_ARRAY(a, shard_axis_ref, np);
    s->dims[d].priority = SHARD_NO_PRIORITY;
  }
  for (uint32_t i = 0; i < np; i++) {
    uint32_t d = S_rand() % 4;
    if (d == 3) continue;
    shard_dim_sharding *dim = &s->dims[d];
    /* Halves that end up adjacent in order are the whole axis (the verifier
     * insists on the merged spelling). */
    if (dim->num_axes && shard_axis_can_merge(&dim->axes[dim->num_axes - 1], &pool[i]))
      dim->axes[dim->num_axes - 1] = shard_axis_merge(&dim->axes[dim->num_axes - 1], &pool[i], m);
    else dim->axes[dim->num_axes++] = pool[i];
  }
  return s;
}

/* Checks that `st` turns `before` into its sharding the way its kind says. */
static void S_check_step(const shard_tensor_sharding *before, const shard_reshard_step *st, const shard_mesh *m) {
  const shard_tensor_sharding *after = st->sharding;
  cr_assert_eq(after->rank, before->rank);
  int64_t moved = 1;
  if (st->kind == SHARD_RESHARD_ALL_TO_ALL) moved = S_dim_size(st->all_to_all.axes.axes, st->all_to_all.axes.num, m);
  for (uint32_t d = 0; d < before->rank; d++) {
    int64_t b = S_dim_size(before->dims[d].axes, before->dims[d].num_axes, m);
    int64_t a = S_dim_size(after->dims[d].axes, after->dims[d].num_axes, m);
    switch (st->kind) {
    case SHARD_RESHARD_ALL_SLICE:
      cr_assert_eq(a, b * S_dim_size(st->axes_per_dim[d].axes, st->axes_per_dim[d].num, m));
      break;
    case SHARD_RESHARD_ALL_GATHER:
      cr_assert_eq(b, a * S_dim_size(st->axes_per_dim[d].axes, st->axes_per_dim[d].num, m));
      break;
    case SHARD_RESHARD_COLLECTIVE_PERMUTE: cr_assert_eq(a, b); break;
    case SHARD_RESHARD_ALL_TO_ALL:
      if (d == st->all_to_all.src_dim) cr_assert_eq(a * moved, b);
      else if (d == st->all_to_all.tgt_dim) cr_assert_eq(a, b * moved);
      else cr_assert_eq(a, b);
      break;
    }
  }
  /* The whole sharding uses each part of the mesh at most once. */
  int64_t total = 1;
  for (uint32_t d = 0; d < after->rank; d++) total *= S_dim_size(after->dims[d].axes, after->dims[d].num_axes, m);
  cr_assert(shard_mesh_num_devices(m) % total == 0);
  for (uint32_t d = 0; d < after->rank; d++)
    for (uint32_t i = 0; i < after->dims[d].num_axes; i++)
      for (uint32_t e = 0; e < after->rank; e++)
        for (uint32_t j = 0; j < after->dims[e].num_axes; j++)
          if (d != e || i != j)
            cr_assert(!shard_axis_overlaps(&after->dims[d].axes[i], &after->dims[e].axes[j], m),
                      "axis used twice after %s", shard_reshard_kind_name(st->kind));
}

static bool S_same_dims(const shard_tensor_sharding *a, const shard_tensor_sharding *b) {
  for (uint32_t d = 0; d < a->rank; d++) {
    if (a->dims[d].num_axes != b->dims[d].num_axes) return false;
    for (uint32_t i = 0; i < a->dims[d].num_axes; i++)
      if (!shard_axis_equal(&a->dims[d].axes[i], &b->dims[d].axes[i])) return false;
  }
  return true;
}

Test(reshard_plan, random_power_of_two_reshards_reach_the_target) {
  sdy_parsed pm;
  sdy_parse_attr(&pm, "#sdy.mesh<[\"x\"=2, \"y\"=4, \"z\"=2, \"w\"=4]>");
  cr_assert(pm.attr && pm.attr->kind == SHARD_ATTR_SDY_MESH, "%s", pm.diags.text);
  shard_mesh *m = pm.attr->u.mesh;
  static const int64_t shape[] = {64, 64, 64};
  shard_arena *a = shard_arena_new();
  unsigned kinds[4] = {0};
  for (int iter = 0; iter < 3000; iter++) {
    shard_tensor_sharding *in = S_random(a, m), *out = S_random(a, m);
    shard_reshard_step *steps;
    uint32_t n;
    bool done = shard_reshard_collectives(a, in, out, m, shape, &steps, &n);
    cr_assert(done, "reshard %d did not reach its target", iter);
    const shard_tensor_sharding *cur = in;
    for (uint32_t i = 0; i < n; i++) {
      S_check_step(cur, &steps[i], m);
      kinds[steps[i].kind]++;
      cur = steps[i].sharding;
    }
    cr_assert(S_same_dims(cur, out), "reshard %d ends elsewhere", iter);
    /* Power-of-two axes: one round of each kind, at most. */
    cr_assert(n <= 3 + 2 * in->rank * in->rank, "reshard %d took %u steps", iter, n);
  }
  for (int k = 0; k < 4; k++)
    cr_expect(kinds[k] > 0, "no %s in 3000 reshards", shard_reshard_kind_name((shard_reshard_kind)k));
  shard_arena_free(a);
  sdy_parsed_free(&pm);
}

/* ---- the pass --------------------------------------------------------------- */

static char S_messages[2048];

static void S_capture(void *ctx, const shard_diag *d) {
  (void)ctx;
  size_t used = strlen(S_messages);
  snprintf(S_messages + used, sizeof S_messages - used, "%s\n", d->message);
}

/* Parses, runs the pass and prints; NULL when the pass failed. */
static char *S_run(const char *in, const char *options) {
  shard_source src = {0};
  src.name = "test.mlir";
  src.text = in;
  src.len = strlen(in);
  S_messages[0] = 0;
  shard_diag_engine de;
  shard_diag_init(&de, S_capture, NULL);
  shard_module *m = shard_parse_module(&src, NULL, &de);
  cr_assert(m && !de.errors, "parse failed: %s", S_messages);
  shard_verify_options vo = {.extra_warnings = false};
  cr_assert(shard_verify_module(m, &vo, &de), "input does not verify: %s", S_messages);
  if (!shard_pass_reshard_to_collectives(m, options, SHARD_PASS_CONTEXT(&de))) {
    shard_module_free(m);
    return NULL;
  }
  cr_assert(shard_verify_module(m, &vo, &de), "output does not verify: %s", S_messages);
  shard_buf b;
  shard_buf_init(&b);
  shard_print_options po = {0};
  shard_print_module(&b, m, &po);
  shard_module_free(m);
  return shard_buf_take(&b);
}

#define MESH_DECL "sdy.mesh @mesh = <[\"x\"=2, \"y\"=2]>\n"

Test(reshard_pass, chained_reshards_start_from_the_previous_collectives) {
  char *got = S_run(MESH_DECL "func.func @f(%arg0: tensor<8x8xf32> {sdy.sharding = #sdy.sharding<@mesh, "
                              "[{\"x\"}, {}]>}) -> tensor<8x8xf32> {\n"
                              "  %0 = sdy.reshard %arg0 <@mesh, [{}, {\"x\"}]> : tensor<8x8xf32>\n"
                              "  %1 = sdy.reshard %0 <@mesh, [{}, {}]> : tensor<8x8xf32>\n"
                              "  return %1 : tensor<8x8xf32>\n"
                              "}\n",
                    NULL);
  cr_assert(got, "%s", S_messages);
  cr_expect(strstr(got, "%0 = sdy.all_to_all [{\"x\"}: 0->1] %arg0 out_sharding=<@mesh, [{}, "
                        "{\"x\"}]> : tensor<8x8xf32>\n"
                        "    %1 = sdy.all_gather [{}, {\"x\"}] %0 out_sharding=<@mesh, [{}, {}]> "
                        ": tensor<8x8xf32>\n"
                        "    return %1") != NULL,
            "%s", got);
  cr_expect(strstr(got, "sdy.reshard") == NULL, "%s", got);
  free(got);
}

Test(reshard_pass, keep_redundant_reshards_option) {
  const char *in = MESH_DECL "func.func @f(%arg0: tensor<8x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{\"x\"}, "
                             "{}]>}) -> tensor<8x8xf32> {\n"
                             "  %0 = sdy.reshard %arg0 <@mesh, [{\"x\"}, {}]> : tensor<8x8xf32>\n"
                             "  return %0 : tensor<8x8xf32>\n"
                             "}\n";
  char *dropped = S_run(in, NULL);
  cr_assert(dropped, "%s", S_messages);
  cr_expect(strstr(dropped, "return %arg0") != NULL, "%s", dropped);
  char *kept = S_run(in, "keep-redundant-reshards=true");
  cr_assert(kept, "%s", S_messages);
  cr_expect(strstr(kept, "sdy.reshard %arg0 <@mesh, [{\"x\"}, {}]>") != NULL, "%s", kept);
  free(dropped);
  free(kept);
}

Test(reshard_pass, input_without_sharding_counts_as_replicated) {
  char *got = S_run(MESH_DECL "func.func @f(%arg0: tensor<8x8xf32>) -> tensor<8x8xf32> {\n"
                              "  %0 = sdy.reshard %arg0 <@mesh, [{\"y\"}, {\"x\"}]> : tensor<8x8xf32>\n"
                              "  return %0 : tensor<8x8xf32>\n"
                              "}\n",
                    NULL);
  cr_assert(got, "%s", S_messages);
  cr_expect(strstr(got, "sdy.all_slice [{\"y\"}, {\"x\"}] %arg0 out_sharding=<@mesh, [{\"y\"}, "
                        "{\"x\"}]>") != NULL,
            "%s", got);
  free(got);
}

Test(reshard_pass, manual_computation_body_sees_its_free_axes_only) {
  /* The body argument's sharding is in_shardings minus the manual "x":
   * [{"y"}, {}], so moving y to dim 1 is a single all_to_all. */
  char *got = S_run(MESH_DECL "func.func @f(%arg0: tensor<8x8xf32>) -> tensor<8x8xf32> {\n"
                              "  %0 = sdy.manual_computation(%arg0) in_shardings=[<@mesh, [{\"x\", \"y\"}, "
                              "{}]>] out_shardings=[<@mesh, [{\"x\"}, {\"y\"}]>] manual_axes={\"x\"} "
                              "(%arg1: tensor<4x8xf32>) {\n"
                              "    %1 = sdy.reshard %arg1 <@mesh, [{}, {\"y\"}]> : tensor<4x8xf32>\n"
                              "    sdy.return %1 : tensor<4x8xf32>\n"
                              "  } : (tensor<8x8xf32>) -> tensor<8x8xf32>\n"
                              "  return %0 : tensor<8x8xf32>\n"
                              "}\n",
                    NULL);
  cr_assert(got, "%s", S_messages);
  cr_expect(strstr(got, "sdy.all_to_all [{\"y\"}: 0->1] %arg1 out_sharding=<@mesh, [{}, "
                        "{\"y\"}]> : tensor<4x8xf32>") != NULL,
            "%s", got);
  cr_expect(strstr(got, "sdy.reshard") == NULL, "%s", got);
  free(got);
}

Test(reshard_plan, unreachable_target_is_reported_not_hidden) {
  /* With a size-3 axis Shardy's two rounds can stop short (it asserts);
   * the planner says so instead of returning a wrong chain. */
  static const int64_t shape[] = {720, 720, 720};
  char *got = S_plan("#sdy.sharding<mesh<[\"x\"=2, \"y\"=3, \"z\"=2, \"w\"=4]>, [{}, {\"w\", "
                     "\"z\"}, {\"y\", \"x\"}]>",
                     "#sdy.sharding<mesh<[\"x\"=2, \"y\"=3, \"z\"=2, \"w\"=4]>, [{\"y\", "
                     "\"w\":(2)2}, {\"x\"}, {\"z\", \"w\":(1)2}]>",
                     shape);
  cr_expect(strncmp(got, "incomplete\n", 11) == 0, "%s", got);
  free(got);
}
