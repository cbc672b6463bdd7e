/* Whether two shardings of one tensor seen through a reshape place the same
 * data on every device: Shardy's isShardingEquivalentAcrossReshapes, which
 * the reshard canonicalization (canonicalize_reshard.c) and
 * -sdy-resolve-permutation-factors (pass_permutation_factors.c) both ask. */
#ifndef SHARD_RESHAPE_EQUIVALENCE_H
#define SHARD_RESHAPE_EQUIVALENCE_H

#include <stdbool.h>

#include "ir/ir.h"
#include "sdy/sharding.h"

/* s1 on type t1 against s2 on t2, axes sized by `mesh` (the mesh of s1):
 * each axis must cover the same linear position of the row-major element
 * order in both. With `non_divisible` the position is compared by the
 * element prefix the axis splits (exact for non-divisible dims), else by
 * its linear stride over padded shards. False when an axis has no size. */
bool shard_sharding_equivalent_across_reshape(const shard_tensor_sharding *s1, const shard_type *t1,
                                              const shard_tensor_sharding *s2, const shard_type *t2,
                                              const shard_mesh *mesh, bool non_divisible);

#endif
