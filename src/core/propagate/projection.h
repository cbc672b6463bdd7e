/* Sharding projections: the view of a tensor's dimension shardings through an
 * op sharding rule, one sharding per factor instead of per dimension.
 *
 * Projecting may split an axis into sub-axes (a dim of factors [i, j] sized
 * {i=2, j=4} sharded by "x"=4 gives i: "x":(1)2, j: "x":(2)2); projecting
 * back merges them again. Propagation (factor_propagation.h) only ever
 * extends factor shardings, then the driver projects each tensor back.
 *
 * Factor axis lists live in the projection's arena (a scratch arena per op
 * visit); shardings projected back are allocated where the caller says. */
#ifndef SHARD_PROJECTION_H
#define SHARD_PROJECTION_H

#include <stdbool.h>
#include <stdint.h>

#include "support/arena.h"
#include "sdy/sharding.h"

/* An immutable list of axis refs; replaced, never edited in place. */
typedef struct shard_axes {
  shard_axis_ref *v;
  uint32_t n;
} shard_axes;

typedef struct shard_factor_sharding {
  shard_axes axes;
  /* Axes of the dim left over after a non-minor-most factor whose remaining
   * size is coprime with the next axis: kept to rebuild the dim, and they
   * close every later factor of that dim. */
  shard_axes overflow;
  bool mapped; /* the tensor has this factor at all */
  bool is_closed;
  bool is_minor_most;
} shard_factor_sharding;

typedef struct shard_tensor_factors {
  shard_factor_sharding *factors; /* indexed by factor */
  const shard_axis_ref *replicated;
  uint32_t num_replicated;
  const shard_axis_ref *unreduced;
  uint32_t num_unreduced;
  shard_reduction reduction;
} shard_tensor_factors;

typedef struct shard_projection {
  shard_arena *arena;
  const shard_mesh *mesh;
  const int64_t *factor_sizes;
  uint32_t num_factors;
  uint32_t num_operands, num_results;
  shard_tensor_factors *tensors; /* operands first, then results */
} shard_projection;

/* How one axis list relates to another as a prefix. */
typedef enum shard_prefix_status { SHARD_PREFIX_EQUAL, SHARD_PREFIX_STRICT, SHARD_PREFIX_NOT } shard_prefix_status;

shard_prefix_status shard_axes_prefix_status(const shard_axis_ref *first, uint32_t nfirst, const shard_axis_ref *second,
                                             uint32_t nsecond);
/* shard_axis_size, faster for the hot loops of projecting and propagating. */
int64_t shard_projection_axis_size(const shard_axis_ref *r, const shard_mesh *m);

/* Projects the shardings of an op's tensors (operands then results; NULL for
 * a tensor without sharding) through `rule`. Missing shardings project to
 * open factors, or closed ones with `closed_if_missing`. */
shard_projection *shard_projection_build(shard_arena *a, const shard_op_sharding_rule *rule,
                                         const shard_tensor_sharding *const *shardings, const shard_mesh *mesh,
                                         bool closed_if_missing);

/* Whether the tensors project alike without projecting them: all map their
 * dims to the same factors and hold the same axes in every dim (or none).
 * Then every factor has the same axes in every tensor that has it, and
 * propagating through the op changes nothing (see factor_propagation.h).
 * False when they may differ. */
bool shard_projection_settled(const shard_op_sharding_rule *rule, const shard_tensor_sharding *const *shardings);

static inline shard_tensor_factors *shard_projection_tensor(const shard_projection *p, uint32_t t) {
  return &p->tensors[t];
}
static inline uint32_t shard_projection_num_tensors(const shard_projection *p) {
  return p->num_operands + p->num_results;
}

/* Replaces the axes of `factor` in tensor t by `axes` when the tensor has the
 * factor and its current axes are a strict prefix of `axes`. */
bool shard_projection_expand(shard_projection *p, uint32_t t, int64_t factor, const shard_axis_ref *axes, uint32_t n);

/* Product of the sizes of every axis (and overflow axis) of tensor t. */
int64_t shard_projection_sharding_size(const shard_projection *p, uint32_t t);

/* Projects tensor t back to dimension shardings following `mapping`: factor
 * axes are concatenated major to minor (merging adjacent sub-axes), stopping
 * after a factor that is not fully sharded or has overflow axes. A dim is
 * closed when any of its used factors is. Priorities are not kept. */
shard_tensor_sharding *shard_projection_to_sharding(shard_arena *out, const shard_projection *p, uint32_t t,
                                                    const shard_tensor_mapping *mapping, const char *mesh_name,
                                                    shard_mesh *inline_mesh);

#endif
