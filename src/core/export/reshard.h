/* Resharding a tensor: the sequence of sdy collectives (all_slice,
 * collective_permute, all_to_all, all_gather) that turns one sharding into
 * another, computed the way Shardy's -sdy-reshard-to-collectives computes it.
 *
 * Pure model code: no IR is read or written, so `shard plan` and the cost
 * models can ask "what does this reshard cost" without building ops. Steps
 * are allocated in the arena the caller passes. */
#ifndef SHARD_RESHARD_H
#define SHARD_RESHARD_H

#include <stdbool.h>
#include <stdint.h>

#include "support/arena.h"
#include "ir/attr.h"
#include "sdy/sharding.h"

typedef enum shard_reshard_kind {
  SHARD_RESHARD_ALL_SLICE, /* shrinks the local shape: axes_per_dim are slicing axes */
  SHARD_RESHARD_COLLECTIVE_PERMUTE, /* same local shape, devices swap shards */
  SHARD_RESHARD_ALL_TO_ALL, /* moves axes from one dim to another */
  SHARD_RESHARD_ALL_GATHER /* grows the local shape: axes_per_dim are gathering axes */
} shard_reshard_kind;

/* "all_slice", "collective_permute", "all_to_all", "all_gather". */
const char *shard_reshard_kind_name(shard_reshard_kind k);

typedef struct shard_reshard_step {
  shard_reshard_kind kind;
  /* ALL_SLICE, ALL_GATHER: `rank` lists (empty lists for untouched dims). */
  shard_axis_list *axes_per_dim;
  uint32_t rank;
  /* ALL_TO_ALL: the axes moved from src_dim to tgt_dim. */
  shard_all_to_all_param all_to_all;
  /* The sharding after the step: closed dims, no replicated axes, the
   * target's unreduced axes, on the mesh the values live on after the step
   * (the input mesh until a collective_permute reorders devices). */
  shard_tensor_sharding *sharding;
} shard_reshard_step;

/* Shardy's CollectiveInserter. `in` and `out` must have the same rank, the
 * same unreduced axes, and meshes that differ at most in device order; `mesh`
 * is the input sharding's mesh and `shape` the global shape (rank entries,
 * SHARD_DYNAMIC_DIM allowed). Writes the steps (none when the shardings
 * already match) to *steps / *num_steps, allocated in `a`. Returns false
 * when the algorithm stopped short of `out` (Shardy asserts this never
 * happens); the steps found so far are still returned. */
bool shard_reshard_collectives(shard_arena *a, const shard_tensor_sharding *in, const shard_tensor_sharding *out,
                               const shard_mesh *mesh, const int64_t *shape, shard_reshard_step **steps,
                               uint32_t *num_steps);

/* What a reshard from `in` to `out` becomes, with the decisions Shardy's
 * reshard pattern makes before running the inserter. */
typedef enum shard_reshard_outcome {
  SHARD_RESHARD_STEPS, /* *steps / *num_steps (none: already matching) */
  SHARD_RESHARD_FORWARD, /* both fully replicated: the value is used as is */
  SHARD_RESHARD_MAXIMAL_MESH, /* a single-device mesh is involved: left alone */
  SHARD_RESHARD_INCOMPATIBLE_MESHES, /* meshes differ in more than device order */
  SHARD_RESHARD_RANK_MISMATCH,
  SHARD_RESHARD_INCOMPLETE /* the steps stop short of `out` (Shardy asserts
                                    * instead; seen only with axes that aren't
                                    * powers of two) or an axis size is unknown */
} shard_reshard_outcome;

/* `in_mesh` / `out_mesh` are the meshes of the shardings (NULL if unknown).
 * A fully replicated `out` gathers everything on `in`'s mesh. */
shard_reshard_outcome shard_reshard_plan(shard_arena *a, const shard_tensor_sharding *in, const shard_mesh *in_mesh,
                                         const shard_tensor_sharding *out, const shard_mesh *out_mesh,
                                         const int64_t *shape, shard_reshard_step **steps, uint32_t *num_steps);

/* Helpers shared with the pass. Do the shardings name the same mesh (same symbol, or equal inlined meshes)? */
bool shard_reshard_same_mesh_ref(const shard_tensor_sharding *a, const shard_tensor_sharding *b);
/* Shardy's TensorShardingAttr::isEquivalent (NULL counts as fully replicated). */
bool shard_reshard_equivalent(const shard_tensor_sharding *a, const shard_tensor_sharding *b);

#endif
