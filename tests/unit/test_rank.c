/* No fixed rank limit: at ranks 17, 20 and 64 (past the 16 dims that the
 * export passes, the interpreter and --verify once had, and up to the 64 of
 * placement) global-to-local gives every dim its local size, the
 * divisibility padding pads the last dim, the interpreter computes data
 * ops over all dims, and the placement model numbers every block. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "cost/placement.h"
#include "interp/interp.h"
#include "ir/parse.h"
#include "pass/pass.h"
#include "pass/pass_shardings.h"
#include "ir/print.h"
#include "support/buf.h"

static const uint32_t RANKS[] = {17, 20, 64};

static char S_last[2048];
static void S_capture(void *ctx, const shard_diag *d) {
  (void)ctx;
  if (d->severity == SHARD_ERROR) snprintf(S_last, sizeof S_last, "%s", d->message);
}

static shard_source S_src;

static shard_module *S_parse(const char *text, shard_diag_engine *de) {
  S_src = (shard_source){"rank.mlir", text, strlen(text), 0};
  shard_parse_options o = {.allow_unregistered = true, .max_depth = 0};
  S_last[0] = 0;
  shard_module *m = shard_parse_module(&S_src, &o, de);
  cr_assert(m && !de->errors, "parse failed: %s", S_last);
  return m;
}

/* tensor<FIRSTx1x...x1xLASTxf32> of `rank` dims (rank >= 2). */
static void S_type(shard_buf *b, uint32_t rank, int64_t first, int64_t last) {
  shard_buf_printf(b, "tensor<%lld", (long long)first);
  for (uint32_t d = 1; d + 1 < rank; d++) shard_buf_puts(b, "x1");
  shard_buf_printf(b, "x%lldxf32>", (long long)last);
}

/* [{"x"}, {}, ..., {LAST}] of `rank` dims. */
static void S_dims(shard_buf *b, uint32_t rank, const char *first, const char *last) {
  shard_buf_printf(b, "[{%s}", first);
  for (uint32_t d = 1; d + 1 < rank; d++) shard_buf_puts(b, ", {}");
  shard_buf_printf(b, ", {%s}]", last);
}

/* ---- export passes ------------------------------------------------------------ */

Test(rank, global_to_local_gives_every_dim_its_local_size) {
  for (size_t k = 0; k < sizeof RANKS / sizeof *RANKS; k++) {
    uint32_t r = RANKS[k];
    shard_buf t, s, rep, text;
    shard_buf_init(&t), shard_buf_init(&s), shard_buf_init(&rep), shard_buf_init(&text);
    S_type(&t, r, 8, 1);
    S_dims(&s, r, "\"x\"", "");
    S_dims(&rep, r, "", "");
    const char *T = shard_buf_str(&t), *S = shard_buf_str(&s), *REP = shard_buf_str(&rep);
    shard_buf_printf(&text,
                     "sdy.mesh @mesh = <[\"x\"=8]>\n"
                     "func.func @main(%%arg0: %s {sdy.sharding = #sdy.sharding<@mesh, %s>}) -> %s {\n"
                     "  %%0 = stablehlo.negate %%arg0 {sdy.sharding = #sdy.sharding_per_value<[<@mesh, %s>]>} : %s\n"
                     "  %%1 = sdy.all_gather [{\"x\"}] %%0 out_sharding=<@mesh, %s> : %s\n"
                     "  return %%1 : %s\n}\n",
                     T, S, T, S, T, REP, T, T);
    shard_diag_engine de;
    shard_diag_init(&de, S_capture, NULL);
    shard_module *m = S_parse(shard_buf_str(&text), &de);
    cr_assert(shard_pass_convert_global_to_local(m, NULL, SHARD_PASS_CONTEXT(&de)), "rank %u: %s", r, S_last);
    shard_op *main_fn = shard_module_lookup_symbol(m, "main");
    cr_assert_not_null(main_fn);
    shard_block *body = main_fn->regions[0].first;
    shard_type *arg = body->args[0].type;
    cr_assert_eq(arg->rank, r);
    for (uint32_t d = 0; d < r; d++)
      cr_assert_eq(arg->dims[d], 1, "rank %u: local dim %u is %lld", r, d, (long long)arg->dims[d]);
    /* negate keeps the local type; the all_gather gives the global one back */
    shard_op *neg = body->first;
    cr_assert_str_eq(neg->name, "stablehlo.negate");
    cr_assert(shard_type_equal(neg->results[0].type, arg));
    shard_op *ag = neg->next;
    cr_assert_str_eq(ag->name, "stablehlo.all_gather");
    cr_assert_eq(ag->results[0].type->rank, r);
    cr_assert_eq(ag->results[0].type->dims[0], 8);
    for (uint32_t d = 1; d < r; d++) cr_assert_eq(ag->results[0].type->dims[d], 1);
    shard_module_free(m);
    shard_buf_free(&t), shard_buf_free(&s), shard_buf_free(&rep), shard_buf_free(&text);
  }
}

Test(rank, per_instruction_partitioning_pads_the_last_dim) {
  /* dim 0 (8) on x, the last dim (3) on y=2: the add gets a manual
   * computation over the padded tensor<8x...x4xf32>, sliced back after */
  for (size_t k = 0; k < sizeof RANKS / sizeof *RANKS; k++) {
    uint32_t r = RANKS[k];
    shard_buf t, s, text;
    shard_buf_init(&t), shard_buf_init(&s), shard_buf_init(&text);
    S_type(&t, r, 8, 3);
    S_dims(&s, r, "\"x\"", "\"y\"");
    const char *T = shard_buf_str(&t), *S = shard_buf_str(&s);
    shard_buf_printf(
        &text,
        "sdy.mesh @mesh = <[\"x\"=4, \"y\"=2]>\n"
        "func.func @main(%%arg0: %s {sdy.sharding = #sdy.sharding<@mesh, %s>}) -> %s {\n"
        "  %%0 = stablehlo.add %%arg0, %%arg0 {sdy.sharding = #sdy.sharding_per_value<[<@mesh, %s>]>} : %s\n"
        "  return %%0 : %s\n}\n",
        T, S, T, S, T, T);
    shard_diag_engine de;
    shard_diag_init(&de, S_capture, NULL);
    shard_module *m = S_parse(shard_buf_str(&text), &de);
    cr_assert(shard_pass_per_instruction_partitioning(m, NULL, SHARD_PASS_CONTEXT(&de)), "rank %u: %s", r, S_last);
    shard_buf out;
    shard_buf_init(&out);
    shard_print_module(&out, m, NULL);
    shard_buf padded;
    shard_buf_init(&padded);
    S_type(&padded, r, 8, 4);
    cr_assert(strstr(shard_buf_str(&out), shard_buf_str(&padded)), "rank %u: no %s in\n%s", r, shard_buf_str(&padded),
              shard_buf_str(&out));
    shard_buf_free(&padded), shard_buf_free(&out);
    shard_module_free(m);
    shard_buf_free(&t), shard_buf_free(&s), shard_buf_free(&text);
  }
}

/* ---- the interpreter ---------------------------------------------------------- */

Test(rank, interpreter_data_ops_cover_every_dim) {
  for (size_t k = 0; k < sizeof RANKS / sizeof *RANKS; k++) {
    uint32_t r = RANKS[k];
    shard_buf t, tt, red, sl, pd, cat, perm, zeros, hi, start, lim, ones, sdims, text;
    shard_buf *all[] = {&t, &tt, &red, &sl, &pd, &cat, &perm, &zeros, &hi, &start, &lim, &ones, &sdims, &text};
    for (size_t i = 0; i < sizeof all / sizeof *all; i++) shard_buf_init(all[i]);
    S_type(&t, r, 2, 3); /* x: values 0..5, x[i, 0.., j] = 3i + j */
    S_type(&tt, r, 3, 2); /* its transpose */
    S_type(&sl, r, 1, 2); /* x[1:2, .., 1:3] */
    S_type(&pd, r, 3, 3); /* x padded by one row of 7 */
    S_type(&cat, r, 4, 3); /* x ++ x along dim 0 */
    shard_buf_puts(&red, "tensor<2");
    for (uint32_t d = 1; d + 1 < r; d++) shard_buf_puts(&red, "x1");
    shard_buf_puts(&red, "xf32>");
    for (uint32_t d = 0; d < r; d++) {
      const char *sep = d ? ", " : "";
      shard_buf_printf(&perm, "%s%u", sep, r - 1 - d);
      shard_buf_printf(&zeros, "%s0", sep);
      shard_buf_printf(&hi, "%s%d", sep, d == 0);
      shard_buf_printf(&start, "%s%d", sep, d == 0 || d + 1 == r);
      shard_buf_printf(&lim, "%s%d", sep, d == 0 ? 2 : d + 1 == r ? 3 : 1);
      shard_buf_printf(&ones, "%s1", sep);
      if (d + 1 < r) shard_buf_printf(&sdims, "%s%u", sep, d);
    }
    const char *T = shard_buf_str(&t);
    shard_buf_printf(
        &text,
        "func.func @f(%%x: %s, %%v: tensor<3xf32>) -> (%s, %s, %s, %s, %s, %s, %s, %s) {\n"
        "  %%0 = stablehlo.transpose %%x, dims = [%s] : (%s) -> %s\n"
        "  %%c = stablehlo.constant dense<0.0> : tensor<f32>\n"
        "  %%1 = stablehlo.reduce(%%x init: %%c) applies stablehlo.add across dimensions = [%u] : (%s, tensor<f32>) -> "
        "%s\n"
        "  %%2 = stablehlo.reverse %%x, dims = [0, %u] : %s\n"
        "  %%3 = \"stablehlo.slice\"(%%x) <{start_indices = array<i64: %s>, limit_indices = array<i64: %s>, strides = "
        "array<i64: %s>}> : (%s) -> %s\n"
        "  %%s = stablehlo.constant dense<7.0> : tensor<f32>\n"
        "  %%4 = stablehlo.pad %%x, %%s, low = [%s], high = [%s], interior = [%s] : (%s, tensor<f32>) -> %s\n"
        "  %%5 = stablehlo.broadcast_in_dim %%v, dims = [%u] : (tensor<3xf32>) -> %s\n"
        "  %%6 = stablehlo.concatenate %%x, %%x, dim = 0 : (%s, %s) -> %s\n"
        "  %%7 = stablehlo.dot_general %%x, %%x, batching_dims = [%s] x [%s], contracting_dims = [%u] x [%u] : (%s, "
        "%s) -> %s\n"
        "  return %%0, %%1, %%2, %%3, %%4, %%5, %%6, %%7 : %s, %s, %s, %s, %s, %s, %s, %s\n}\n",
        T, shard_buf_str(&tt), shard_buf_str(&red), T, shard_buf_str(&sl), shard_buf_str(&pd), T, shard_buf_str(&cat),
        shard_buf_str(&red),
        /* %0 */ shard_buf_str(&perm), T, shard_buf_str(&tt),
        /* %1 */ r - 1, T, shard_buf_str(&red),
        /* %2 */ r - 1, T,
        /* %3 */ shard_buf_str(&start), shard_buf_str(&lim), shard_buf_str(&ones), T, shard_buf_str(&sl),
        /* %4 */ shard_buf_str(&zeros), shard_buf_str(&hi), shard_buf_str(&zeros), T, shard_buf_str(&pd),
        /* %5 */ r - 1, T,
        /* %6 */ T, T, shard_buf_str(&cat),
        /* %7 */ shard_buf_str(&sdims), shard_buf_str(&sdims), r - 1, r - 1, T, T, shard_buf_str(&red),
        /* return */ shard_buf_str(&tt), shard_buf_str(&red), T, shard_buf_str(&sl), shard_buf_str(&pd), T,
        shard_buf_str(&cat), shard_buf_str(&red));
    shard_diag_engine de;
    shard_diag_init(&de, S_capture, NULL);
    shard_module *m = S_parse(shard_buf_str(&text), &de);
    shard_arena *a = shard_arena_new();
    int64_t *xd = SHARD_NEW_ARRAY(a, int64_t, r), three = 3;
    for (uint32_t d = 0; d < r; d++) xd[d] = d == 0 ? 2 : d + 1 == r ? 3 : 1;
    shard_tensor *args[2];
    const char *err;
    cr_assert(shard_tensor_from_dense(a, "[0, 1, 2, 3, 4, 5]", shard_type_tensor(a, 1, (int64_t[]){6}, "f32", NULL),
                                      &args[0], &err));
    args[0]->type = shard_type_tensor(a, r, xd, "f32", NULL); /* same elements, rank r */
    cr_assert(shard_tensor_from_dense(a, "[10, 20, 30]", shard_type_tensor(a, 1, &three, "f32", NULL), &args[1], &err));
    shard_tensor **res;
    uint32_t n;
    cr_assert(shard_interp_call(m, "f", args, 2, NULL, a, &res, &n, &de), "rank %u: %s", r, S_last);
    cr_assert_eq(n, 8);
    for (int64_t e = 0; e < 6; e++) {
      int64_t i = e / 3, j = e % 3;
      cr_assert_eq(res[0]->floats[j * 2 + i], (double)e, "rank %u: transpose", r);
      cr_assert_eq(res[2]->floats[e], (double)(5 - e), "rank %u: reverse", r);
      cr_assert_eq(res[4]->floats[e], (double)e, "rank %u: pad keeps x", r);
      cr_assert_eq(res[5]->floats[e], 10.0 * (double)(j + 1), "rank %u: broadcast_in_dim", r);
      cr_assert_eq(res[6]->floats[e], (double)e, "rank %u: concatenate", r);
      cr_assert_eq(res[6]->floats[6 + e], (double)e, "rank %u: concatenate", r);
    }
    cr_assert_eq(res[1]->floats[0], 3.0, "rank %u: reduce", r);
    cr_assert_eq(res[1]->floats[1], 12.0, "rank %u: reduce", r);
    cr_assert_eq(res[3]->floats[0], 4.0, "rank %u: slice", r);
    cr_assert_eq(res[3]->floats[1], 5.0, "rank %u: slice", r);
    for (int e = 6; e < 9; e++) cr_assert_eq(res[4]->floats[e], 7.0, "rank %u: pad value", r);
    cr_assert_eq(res[7]->floats[0], 5.0, "rank %u: dot_general", r);
    cr_assert_eq(res[7]->floats[1], 50.0, "rank %u: dot_general", r);
    shard_arena_free(a);
    shard_module_free(m);
    for (size_t i = 0; i < sizeof all / sizeof *all; i++) shard_buf_free(all[i]);
  }
}

/* ---- placement ------------------------------------------------------------------ */

Test(rank, placement_numbers_every_block) {
  static const uint32_t ranks[] = {17, 20, 64, 65};
  for (size_t k = 0; k < sizeof ranks / sizeof *ranks; k++) {
    uint32_t r = ranks[k];
    shard_arena *a = shard_arena_new();
    shard_diag_engine de;
    shard_diag_init(&de, S_capture, NULL);
    shard_mesh *m = SHARD_NEW(a, shard_mesh);
    m->axes = SHARD_NEW_ARRAY(a, shard_mesh_axis, 2);
    m->axes[0] = (shard_mesh_axis){.name = "x", .size = 8};
    m->axes[1] = (shard_mesh_axis){.name = "y", .size = 2};
    m->num_axes = 2;
    int64_t *dims = SHARD_NEW_ARRAY(a, int64_t, r);
    for (uint32_t d = 0; d < r; d++) dims[d] = d == 0 ? 8 : d + 1 == r ? 3 : 1;
    shard_tensor_sharding *s = SHARD_NEW(a, shard_tensor_sharding);
    s->mesh_name = "m";
    s->rank = r;
    s->dims = SHARD_NEW_ARRAY(a, shard_dim_sharding, r);
    s->dims[0].axes = SHARD_NEW_ARRAY(a, shard_axis_ref, 1);
    s->dims[0].axes[0] = (shard_axis_ref){"x", false, 0, 0};
    s->dims[0].num_axes = 1;
    s->dims[r - 1].axes = SHARD_NEW_ARRAY(a, shard_axis_ref, 1);
    s->dims[r - 1].axes[0] = (shard_axis_ref){"y", false, 0, 0};
    s->dims[r - 1].num_axes = 1;
    shard_placement *p =
        shard_placement_compute(a, shard_type_tensor(a, r, dims, "f32", NULL), s, m, "m", &de, shard_no_span);
    cr_assert_not_null(p, "rank %u: %s", r, S_last);
    cr_assert_eq(p->rank, r);
    cr_assert_eq(p->num_blocks, 16);
    cr_assert_eq(p->local[r - 1], 2);
    /* block 13: row 6 of dim 0, the short second half of the last dim */
    const shard_placement_block *b = &p->blocks[13];
    cr_assert_eq(b->tile[0], 6);
    cr_assert_eq(b->tile[r - 1], 1);
    cr_assert_eq(b->start[0], 6);
    cr_assert_eq(b->end[0], 7);
    cr_assert_eq(b->start[r - 1], 2);
    cr_assert_eq(b->end[r - 1], 3);
    cr_assert(b->padded);
    for (uint32_t d = 1; d + 1 < r; d++) cr_assert(b->start[d] == 0 && b->end[d] == 1, "rank %u dim %u", r, d);
    cr_assert_eq(p->devices[b->devices[0]].id, 13);
    shard_arena_free(a);
  }
}

/* ---- mesh axes of collectives ------------------------------------------------------ */

static bool S_run_main(const char *text) {
  shard_diag_engine de;
  shard_diag_init(&de, S_capture, NULL);
  shard_module *m = S_parse(text, &de);
  bool ok = shard_interp_run_main(m, NULL, &de, NULL);
  shard_module_free(m);
  return ok;
}

Test(rank, mesh_axes_replica_groups_on_a_mesh_of_18_axes) {
  /* "x"=2, sixteen axes of size 1, then an axis of size 2 whose name shares
   * its first 70 characters with the first axis': gathering over it pairs
   * devices {0, 1} and {2, 3} */
  char a[72], b[72];
  memset(a, 'a', 70);
  memcpy(b, a, 70);
  a[70] = 'x', b[70] = 'y';
  a[71] = b[71] = 0;
  shard_buf text;
  shard_buf_init(&text);
  shard_buf_printf(&text, "sdy.mesh @m = <[\"%s\"=2", a);
  for (int i = 0; i < 16; i++) shard_buf_printf(&text, ", \"one%d\"=1", i);
  shard_buf_printf(&text,
                   ", \"%s\"=2]>\n"
                   "func.func @g(%%a: tensor<1xi32>) -> tensor<2xi32> {\n"
                   "  %%0 = \"stablehlo.all_gather\"(%%a) <{all_gather_dim = 0 : i64, channel_handle = "
                   "#stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = "
                   "#stablehlo.replica_group_mesh_axes<mesh = @m, axes = [#stablehlo.axis_ref<name = \"%s\">]>,"
                   " use_global_device_ids}> : (tensor<1xi32>) -> tensor<2xi32>\n"
                   "  return %%0 : tensor<2xi32>\n}\n"
                   "func.func @main() {\n"
                   "  %%c0 = stablehlo.constant dense<[10]> : tensor<1xi32>\n"
                   "  %%c1 = stablehlo.constant dense<[11]> : tensor<1xi32>\n"
                   "  %%c2 = stablehlo.constant dense<[12]> : tensor<1xi32>\n"
                   "  %%c3 = stablehlo.constant dense<[13]> : tensor<1xi32>\n"
                   "  %%r:4 = \"interpreter.run_parallel\"(%%c0, %%c1, %%c2, %%c3) {programs = [[@g, @g, @g, @g]]}"
                   " : (tensor<1xi32>, tensor<1xi32>, tensor<1xi32>, tensor<1xi32>) -> (tensor<2xi32>, tensor<2xi32>, "
                   "tensor<2xi32>, tensor<2xi32>)\n"
                   "  check.expect_eq_const %%r#0, dense<[10, 11]> : tensor<2xi32>\n"
                   "  check.expect_eq_const %%r#3, dense<[12, 13]> : tensor<2xi32>\n"
                   "  return\n}\n",
                   b, b);
  cr_assert(S_run_main(shard_buf_str(&text)), "%s", S_last);
  shard_buf_free(&text);
}
