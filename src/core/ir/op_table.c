/* Dense op ids (op_table.h). */
#include "ir/op_table.h"

#include <stdlib.h>
#include <string.h>

#include "support/arena.h"

/* Whether a live table of this thread owns the ops' marks. */
static _Thread_local bool S_marks_taken;

void shard_op_table_init(shard_op_table *t) {
  memset(t, 0, sizeof *t);
  if (!S_marks_taken) {
    S_marks_taken = true;
    t->owns_marks = true;
  }
}

void shard_op_table_release(shard_op_table *t) {
  if (t->owns_marks) S_marks_taken = false;
  free(t->ops);
  shard_ptrmap_release(&t->map);
  memset(t, 0, sizeof *t);
}

void shard_op_table_reserve(shard_op_table *t, uint32_t n) {
  if (n > t->cap) {
    t->cap = n;
    t->ops = shard_xrealloc(t->ops, sizeof *t->ops * t->cap);
  }
  if (!t->owns_marks) shard_ptrmap_reserve(&t->map, n);
}

bool shard_op_table_find_mapped(const shard_op_table *t, const shard_op *op, uint32_t *id) {
  return shard_ptrmap_get_index(&t->map, op, id);
}

uint32_t shard_op_table_add(shard_op_table *t, const shard_op *op) {
  uint32_t id;
  if (shard_op_table_find(t, op, &id)) return id;
  if (t->len == t->cap) {
    t->cap = t->cap ? t->cap * 2 : 256;
    t->ops = shard_xrealloc(t->ops, sizeof *t->ops * t->cap);
  }
  id = t->len++;
  /* The mark is the table's cache, not part of the op's meaning: a pass
   * that only reads the module numbers its ops too. */
  shard_op *w = (shard_op *)(uintptr_t)op;
  t->ops[id] = w;
  if (t->owns_marks) w->mark = id;
  else shard_ptrmap_put(&t->map, op, id);
  return id;
}
