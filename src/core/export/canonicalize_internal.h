/* Private to -canonicalize (canonicalize*.c): the rewriter the sdy patterns
 * use. It mirrors the parts of MLIR's PatternRewriter and greedy driver the
 * patterns rely on: every mutation goes through it so that the ops a rewrite
 * touches (new ops, users of replaced values, producers of erased operands)
 * go back on the worklist. */
#ifndef SHARD_CANONICALIZE_INTERNAL_H
#define SHARD_CANONICALIZE_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "ir/ir.h"
#include "ir/op_table.h"
#include "support/ptrmap.h"
#include "support/strmap.h"

typedef struct canon_mesh_entry {
  const char *name;
  const shard_mesh *mesh;
} canon_mesh_entry;

typedef struct canon_rewriter {
  shard_module *m;
  shard_arena *arena;
  /* The worklist is a stack: the op pushed last is processed next. Slots of
   * ops removed from it are NULL; `slot[id]` is the index + 1 of the op of
   * that id in `ids` (0: not in the worklist), with room for num_slot ids. */
  shard_op **items;
  uint32_t len, cap;
  shard_op_table ids;
  uint32_t *slot, num_slot;
  /* Positions of ops in their blocks for shard_canon_is_before_in_block, as MLIR
   * keeps them: op -> order (0: unknown), block -> 1 once numbered. */
  shard_ptrmap order;
  /* MLIR's OperationFolder for one iteration: uniqued constants by
   * (insertion region, value, type), and the set of ops it owns. */
  shard_strmap constants; /* region bytes + "value : type" -> op */
  SHARD_VEC(char *) constant_keys; /* the keys, owned */
  shard_ptrmap owned_constants;
  /* The indices of the entries of canonicalize.c's pattern table that run
   * (MLIR's enable-patterns/disable-patterns filter), in table order. */
  const uint8_t *active_patterns;
  uint32_t num_active_patterns;
  /* Per entry of that table: its op's definition (NULL when shard has
   * none), compared instead of the op's name. */
  const shard_op_def *const *pattern_defs;
  /* stablehlo.constant's definition (NULL when shard has none) */
  const shard_op_def *constant_def;
  /* sdy.mesh symbols of the top module */
  canon_mesh_entry *meshes;
  uint32_t num_meshes;
} canon_rewriter;

/* ---- worklist and mutations (canonicalize.c) --------------------------- */

/* Puts op (and its ancestors below the module, as MLIR's driver does) on the worklist. */
void shard_canon_push(canon_rewriter *rw, shard_op *op);
/* Inserts a new (or unlinked) op before `pos` and queues it. */
void shard_canon_insert_before(canon_rewriter *rw, shard_op *pos, shard_op *op);
/* Inserts a new op right after the definition of v (at the start of its
 * block for a block argument) and queues it. */
void shard_canon_insert_after_value(canon_rewriter *rw, shard_value *v, shard_op *op);
/* Replaces every use of `from` with `to`, queueing the users. */
void shard_canon_replace_uses(canon_rewriter *rw, shard_value *from, shard_value *to);
/* Replaces op's results with `values` (one per result) and erases op. */
void shard_canon_replace_op(canon_rewriter *rw, shard_op *op, shard_value *const *values);
/* Erases op (and what it nests); queues the producers of its operands. */
void shard_canon_erase_op(canon_rewriter *rw, shard_op *op);

/* A new op of a known dialect with the given operands and one result of
 * `type` (or none when type is NULL), located where `loc_of` is. Not inserted. */
shard_op *shard_canon_op_new(canon_rewriter *rw, const char *name, uint32_t num_operands, shard_value *const *operands,
                             shard_type *type, const shard_op *loc_of);
/* A copy of a region-free op with the same attributes and result types, operands unset. */
shard_op *shard_canon_op_clone(canon_rewriter *rw, const shard_op *op);

/* ---- queries (canonicalize.c) ------------------------------------------ */

/* Is a before b? Both must be in the same block. Amortized O(1). */
bool shard_canon_is_before_in_block(canon_rewriter *rw, const shard_op *a, const shard_op *b);
/* The mesh of a sharding (inlined or by symbol), or NULL. */
const shard_mesh *shard_canon_sharding_mesh(const canon_rewriter *rw, const shard_tensor_sharding *s);
/* Shardy's getSharding(value): the sharding attached to a value, or NULL. */
const shard_tensor_sharding *shard_canon_value_sharding(const shard_value *v);
/* The inherent attribute `name` of op if it has the given kind, else NULL. */
shard_attr *shard_canon_attr(const shard_op *op, const char *name, shard_attr_kind kind);
bool shard_canon_axes_equal(const shard_axis_ref *a, uint32_t na, const shard_axis_ref *b, uint32_t nb);
/* Same mesh (symbol name or inlined mesh) in both shardings? */
bool shard_canon_same_mesh_ref(const shard_tensor_sharding *a, const shard_tensor_sharding *b);

/* ---- patterns: each returns true when it rewrote the IR ----------------- */

bool shard_canon_reshard_of_reshard(canon_rewriter *rw, shard_op *op); /* canonicalize_reshard.c */
bool shard_canon_reshard_cse(canon_rewriter *rw, shard_op *op);
bool shard_canon_all_gather(canon_rewriter *rw, shard_op *op); /* canonicalize_collectives.c */
bool shard_canon_all_slice(canon_rewriter *rw, shard_op *op);
bool shard_canon_all_reduce(canon_rewriter *rw, shard_op *op);
bool shard_canon_all_to_all(canon_rewriter *rw, shard_op *op);
bool shard_canon_collective_permute(canon_rewriter *rw, shard_op *op);
bool shard_canon_reduce_scatter(canon_rewriter *rw, shard_op *op);
bool shard_canon_manual_computation(canon_rewriter *rw, shard_op *op); /* canonicalize_manual.c */

#endif
