/* A dense numbering of ops, for a pass's own per-op arrays: the ops it adds
 * get ids 0, 1, 2, ... in the order added, and finding an op's id is an
 * array read instead of a hash probe.
 *
 * The id is kept in the op itself (shard_op.mark) as a hint, checked
 * against the table (ops[mark] == op), so that a stale mark from an earlier
 * table is never taken for an id. Only one table of a thread owns the marks
 * at a time: a table made while another is alive (a pass inside a pass)
 * keeps its ids in a shard_ptrmap instead, the same answers at hash-probe
 * speed. A module is worked on by one thread at a time. */
#ifndef SHARD_OP_TABLE_H
#define SHARD_OP_TABLE_H

#include <stdbool.h>
#include <stdint.h>

#include "ir/ir.h"
#include "support/ptrmap.h"

typedef struct shard_op_table {
  shard_op **ops; /* ops[id] */
  uint32_t len, cap;
  bool owns_marks; /* ids in the ops' marks; otherwise in `map` */
  shard_ptrmap map; /* op -> id when not owns_marks */
} shard_op_table;

void shard_op_table_init(shard_op_table *t);
void shard_op_table_release(shard_op_table *t);
/* Room for n ops in all. */
void shard_op_table_reserve(shard_op_table *t, uint32_t n);
/* op's id when it was added. */
static inline bool shard_op_table_find(const shard_op_table *t, const shard_op *op, uint32_t *id);
bool shard_op_table_find_mapped(const shard_op_table *t, const shard_op *op, uint32_t *id);
/* op's id, added with the next id when absent. The table writes the op's
 * mark, a cache of the table's: a const op is written there too. */
uint32_t shard_op_table_add(shard_op_table *t, const shard_op *op);

static inline bool shard_op_table_find(const shard_op_table *t, const shard_op *op, uint32_t *id) {
  if (!t->owns_marks) return shard_op_table_find_mapped(t, op, id);
  uint32_t m = op->mark;
  if (m >= t->len || t->ops[m] != op) return false;
  *id = m;
  return true;
}

#endif
