/* Factor propagation: given the projection of one op's tensors, extend the
 * factor shardings of tensors that are less sharded than their peers.
 *
 * Basic: per factor, the longest compatible major axes over all tensors
 * that have the factor, truncated at the first axis that conflicts anywhere
 * (with other factors' axes, replicated/unreduced axes, closed factors or
 * divisibility); every tensor whose axes are a strict prefix gets them.
 *
 * Aggressive: the same compatible axes, but conflicts are resolved per
 * tensor, factors ordered by the size of the tensor they come from, so one
 * tensor's conflict doesn't stop the others. */
#ifndef SHARD_FACTOR_PROPAGATION_H
#define SHARD_FACTOR_PROPAGATION_H

#include <stdbool.h>
#include <stdint.h>

#include "ir/attr.h"
#include "propagate/projection.h"

/* In which direction a factor may propagate (NONE for blocked factors). */
typedef shard_direction (*shard_factor_direction_fn)(void *ctx, int64_t factor);

/* BOTH when one is FORWARD and the other BACKWARD, else the wider one. */
shard_direction shard_direction_union(shard_direction a, shard_direction b);
/* NONE when one is FORWARD and the other BACKWARD, else the narrower one. */
shard_direction shard_direction_intersect(shard_direction a, shard_direction b);

typedef enum shard_factor_strategy { SHARD_FACTOR_BASIC, SHARD_FACTOR_AGGRESSIVE } shard_factor_strategy;

typedef struct shard_factor_propagation {
  shard_factor_strategy strategy;
  shard_factor_direction_fn direction;
  void *direction_ctx;
  bool conservative; /* no sub-axes */
  bool elementwise; /* the op is elementwise (aggressive tie-breaks and sideways rule) */
} shard_factor_propagation;

/* The longest prefix of axes sharding `factor` on which all tensors that
 * have it agree, ignoring conflicts. FORWARD lets only operands extend it,
 * BACKWARD only results; NONE gives nothing. Writes at most 64 refs to out
 * and returns the count. */
uint32_t shard_factor_compatible_major_axes(const shard_projection *p, int64_t factor, shard_direction dir,
                                            shard_axis_ref *out);

/* Propagates every factor of `p`. Sets updated[t] for each tensor whose
 * factor shardings changed (operands then results). */
void shard_factor_propagate(shard_projection *p, const shard_factor_propagation *fp, bool *updated);

#endif
