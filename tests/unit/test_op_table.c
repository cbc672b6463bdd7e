/* Dense op ids (ir/op_table.h): ids in the order added, the op's mark
 * checked against the table so that a stale mark is never an id, and a
 * table made while another owns the marks answering the same from its map. */
#include <criterion/criterion.h>

#include "ir/op_table.h"
#include "support/arena.h"

enum { N = 1000 };

static shard_op *S_ops(shard_arena *a) {
  shard_op *ops = shard_arena_alloc(a, sizeof(shard_op) * N);
  return ops;
}

static void S_check_table(shard_op_table *t, shard_op *ops) {
  for (uint32_t i = 0; i < N; i += 2) cr_assert_eq(shard_op_table_add(t, &ops[i]), i / 2);
  for (uint32_t i = 0; i < N; i++) {
    uint32_t id = 12345;
    bool found = shard_op_table_find(t, &ops[i], &id);
    cr_assert_eq(found, i % 2 == 0, "op %u", i);
    if (found) cr_assert_eq(id, i / 2);
  }
  /* adding again gives the same id */
  cr_assert_eq(shard_op_table_add(t, &ops[4]), 2);
  cr_assert_eq(t->len, N / 2);
}

Test(op_table, ids_are_dense_in_the_order_added) {
  shard_arena *a = shard_arena_new();
  shard_op *ops = S_ops(a);
  shard_op_table t;
  shard_op_table_init(&t);
  cr_expect(t.owns_marks);
  S_check_table(&t, ops);
  shard_op_table_release(&t);
  shard_arena_free(a);
}

Test(op_table, stale_marks_are_not_ids) {
  shard_arena *a = shard_arena_new();
  shard_op *ops = S_ops(a);
  shard_op_table first;
  shard_op_table_init(&first);
  for (uint32_t i = 0; i < N; i++) shard_op_table_add(&first, &ops[N - 1 - i]);
  shard_op_table_release(&first);
  /* every op keeps the mark of the first table; a new one knows none */
  shard_op_table t;
  shard_op_table_init(&t);
  cr_expect(t.owns_marks, "released tables give the marks back");
  /* the first half gets ids 0..N/2-1; the second half's stale marks are
   * those same numbers, ids of other ops now */
  for (uint32_t i = 0; i < N / 2; i++) cr_assert_eq(shard_op_table_add(&t, &ops[i]), i);
  for (uint32_t i = N / 2; i < N; i++) {
    uint32_t id;
    cr_assert_lt(ops[i].mark, t.len);
    cr_assert(!shard_op_table_find(&t, &ops[i], &id), "op %u has a stale mark %u", i, ops[i].mark);
  }
  shard_op_table_release(&t);
  shard_arena_free(a);
}

Test(op_table, a_table_inside_a_table_keeps_its_own_ids) {
  shard_arena *a = shard_arena_new();
  shard_op *ops = S_ops(a);
  shard_op_table outer, inner;
  shard_op_table_init(&outer);
  for (uint32_t i = 0; i < N; i++) shard_op_table_add(&outer, &ops[i]);
  shard_op_table_init(&inner);
  cr_expect(!inner.owns_marks);
  S_check_table(&inner, ops);
  /* the outer table's ids are untouched by the inner one */
  for (uint32_t i = 0; i < N; i++) {
    uint32_t id;
    cr_assert(shard_op_table_find(&outer, &ops[i], &id) && id == i, "op %u", i);
  }
  shard_op_table_release(&inner);
  shard_op_table_release(&outer);
  shard_arena_free(a);
}
