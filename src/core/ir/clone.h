/* Deep IR cloning with a value map, like MLIR's Operation::clone(IRMapping).
 *
 * A value map records, for values of the original IR, the value that stands
 * for them in a copy. Cloning an op looks its operands up in the map (an
 * operand with no entry keeps pointing at the original value, so a clone
 * placed next to the original reads the same inputs), clones its regions with
 * their blocks, block arguments and successors, and records every result and
 * block argument it creates in the map. The map is a heap object: the caller
 * frees it with shard_value_map_free. Clones live in the given arena. */
#ifndef SHARD_CLONE_H
#define SHARD_CLONE_H

#include "ir/ir.h"

typedef struct shard_value_map shard_value_map;

shard_value_map *shard_value_map_new(void);
void shard_value_map_free(shard_value_map *map);
/* Records that `to` stands for `from` (replacing an earlier entry). */
void shard_value_map_set(shard_value_map *map, const shard_value *from, shard_value *to);
/* The value recorded for `from`, or NULL when there is none. */
shard_value *shard_value_map_get(const shard_value_map *map, const shard_value *from);
/* The value recorded for `from`, or `from` itself. */
shard_value *shard_value_map_lookup(const shard_value_map *map, shard_value *from);
/* Number of entries. */
uint32_t shard_value_map_size(const shard_value_map *map);

/* Returns a copy of `op` (name, definition, attributes, location, flags,
 * results, regions; operands remapped through `map`) that is in no block.
 * The op's results map to the clone's results in `map`. `map` may be NULL
 * for a self-contained clone (operands outside `op` keep their values). */
shard_op *shard_op_clone(shard_arena *a, const shard_op *op, shard_value_map *map);

/* Appends copies of the blocks of `from` to `to` (which may already have
 * blocks), remapping through `map` as shard_op_clone does. */
void shard_region_clone_into(shard_arena *a, const shard_region *from, shard_region *to, shard_value_map *map);

#endif
