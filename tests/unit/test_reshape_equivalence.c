/* Sharding equivalence across reshapes (reshape_equivalence.c): two
 * shardings of the tensors on either side of a reshape place the same data
 * on every device exactly when each axis splits the same run of the
 * row-major element order. */
#include <criterion/criterion.h>
#include <stdio.h>

#include "rules/reshape_equivalence.h"
#include "sdy_testing.h"

typedef struct pair {
  sdy_parsed parsed;
  const shard_mesh *mesh;
  const shard_tensor_sharding *s1, *s2;
  const shard_type *t1, *t2;
} pair;

/* Parses the mesh and two shardings on an op whose two results have the
 * types t1 and t2. */
static void S_pair(pair *p, const char *mesh, const char *s1, const char *t1, const char *s2, const char *t2) {
  char text[1024];
  snprintf(text, sizeof text,
           "%s, b = #sdy.sharding<@mesh, %s>, c = #sdy.sharding<@mesh, %s>} : () -> (%s, %s)\n"
           "// the attribute helper wraps this in an op",
           mesh, s1, s2, t1, t2);
  memset(p, 0, sizeof *p);
  size_t n = strlen(text) + 64;
  p->parsed.text = malloc(n);
  snprintf(p->parsed.text, n, "\"t.op\"() {a = #sdy.mesh<%s\n", text);
  p->parsed.src.name = "test.mlir";
  p->parsed.src.text = p->parsed.text;
  p->parsed.src.len = strlen(p->parsed.text);
  shard_diag_engine de;
  shard_diag_init(&de, sdy_collect, &p->parsed.diags);
  p->parsed.module = shard_parse_module(&p->parsed.src, NULL, &de);
  cr_assert(p->parsed.module, "%s\n%s", p->parsed.text, p->parsed.diags.text);
  shard_op *op = p->parsed.module->top->regions[0].first->first;
  p->mesh = shard_op_attr(op, "a")->u.mesh;
  p->s1 = shard_op_attr(op, "b")->u.sharding;
  p->s2 = shard_op_attr(op, "c")->u.sharding;
  p->t1 = op->results[0].type;
  p->t2 = op->results[1].type;
}

static bool S_equivalent(const char *mesh, const char *s1, const char *t1, const char *s2, const char *t2,
                         bool non_divisible) {
  pair p;
  S_pair(&p, mesh, s1, t1, s2, t2);
  bool same = shard_sharding_equivalent_across_reshape(p.s1, p.t1, p.s2, p.t2, p.mesh, non_divisible);
  sdy_parsed_free(&p.parsed);
  return same;
}

static const char *XY = "[\"x\"=4, \"y\"=2]>";

Test(reshape_equivalence, the_major_dim_of_a_merge_keeps_its_axis) {
  cr_expect(S_equivalent(XY, "[{\"x\"}, {}]", "tensor<8x4xf32>", "[{\"x\"}]", "tensor<32xf32>", false));
  cr_expect(S_equivalent(XY, "[{\"x\"}, {}]", "tensor<8x4xf32>", "[{\"x\"}]", "tensor<32xf32>", true));
}

Test(reshape_equivalence, the_minor_dim_of_a_merge_does_not) {
  cr_expect_not(S_equivalent(XY, "[{}, {\"x\"}]", "tensor<8x4xf32>", "[{\"x\"}]", "tensor<32xf32>", false));
}

Test(reshape_equivalence, axes_keep_their_major_to_minor_order) {
  cr_expect(S_equivalent(XY, "[{\"x\", \"y\"}, {}]", "tensor<8x4xf32>", "[{\"x\", \"y\"}]", "tensor<32xf32>", false));
  cr_expect_not(
      S_equivalent(XY, "[{\"y\", \"x\"}, {}]", "tensor<8x4xf32>", "[{\"x\", \"y\"}]", "tensor<32xf32>", false));
  /* whole rows and whole columns: every shard is one element on both sides */
  cr_expect(S_equivalent(XY, "[{\"x\"}, {\"y\"}]", "tensor<4x2xf32>", "[{\"x\", \"y\"}]", "tensor<8xf32>", false));
  /* blocks of 2x2 are not runs of the flat order */
  cr_expect_not(S_equivalent(XY, "[{\"x\"}, {\"y\"}]", "tensor<8x4xf32>", "[{\"x\", \"y\"}]", "tensor<32xf32>", false));
}

Test(reshape_equivalence, sub_axes_that_line_up_merge_back) {
  /* "x":(1)2 is the major half of "x" and "x":(2)2 the minor one: on the
   * major and the minor dim they are "x" on the flat order; swapped, not. */
  cr_expect(S_equivalent(XY, "[{\"x\":(1)2}, {\"x\":(2)2}]", "tensor<2x16xf32>", "[{\"x\"}]", "tensor<32xf32>", false));
  cr_expect_not(
      S_equivalent(XY, "[{\"x\":(2)2}, {\"x\":(1)2}]", "tensor<2x16xf32>", "[{\"x\"}]", "tensor<32xf32>", false));
}

Test(reshape_equivalence, replicated_axes_and_types_must_agree) {
  cr_expect(S_equivalent(XY, "[{\"x\"}, {}]", "tensor<8x4xf32>", "[{\"x\"}, {}]", "tensor<8x4xf32>", false));
  cr_expect_not(
      S_equivalent(XY, "[{\"x\"}, {}], replicated={\"y\"}", "tensor<8x4xf32>", "[{\"x\"}]", "tensor<32xf32>", false));
}

Test(reshape_equivalence, non_divisible_dims_compare_prefixes) {
  /* 6 rows over 4 shards: padded strides differ (2 rows of 4 = 8 elements
   * against 6 elements of 24), the element prefixes do not. */
  cr_expect(S_equivalent(XY, "[{\"x\"}, {}]", "tensor<6x4xf32>", "[{\"x\"}]", "tensor<24xf32>", true));
  cr_expect_not(S_equivalent(XY, "[{\"x\"}, {}]", "tensor<6x4xf32>", "[{\"x\"}]", "tensor<24xf32>", false));
}
