/* Building factor-based op sharding rules the way Shardy's
 * OpShardingRuleBuilder does: reserve a factor (size, kind, blocked or not),
 * then map it onto operand and result dimensions. A dimension may collect
 * several factors (major to minor), which is how reshape and convolution
 * express compound dimensions. build() gives every dimension left without a
 * factor a fresh factor of size 1, as Shardy does.
 *
 * Private to rule_registry*.c and their unit tests. The builder lives on the
 * heap (shard_rule_builder_free); the rule it builds lives in an arena. */
#ifndef SHARD_RULE_BUILDER_H
#define SHARD_RULE_BUILDER_H

#include <stdbool.h>
#include <stdint.h>

#include "ir/ir.h"
#include "sdy/sharding.h"

/* kNullDim: "this tensor has no dimension for the factor". */
#define SHARD_NULL_DIM (-1)

typedef enum shard_factor_type {
  SHARD_FACTOR_PASS_THROUGH,
  SHARD_FACTOR_REDUCTION,
  SHARD_FACTOR_NEED_REPLICATION,
  SHARD_FACTOR_PERMUTATION
} shard_factor_type;

typedef struct shard_rule_builder shard_rule_builder;

/* A builder for tensors of the given ranks (non-tensor values have rank 0). */
shard_rule_builder *shard_rule_builder_new(uint32_t num_operands, const uint32_t *operand_ranks, uint32_t num_results,
                                           const uint32_t *result_ranks);
/* A builder for the op's operand and result types. */
shard_rule_builder *shard_rule_builder_for_op(const shard_op *op);
void shard_rule_builder_free(shard_rule_builder *b);

/* Reserves a factor and returns its index; it maps onto nothing yet. */
int64_t shard_rule_builder_factor(shard_rule_builder *b, int64_t size, shard_factor_type type, bool blocked);
/* Appends factor f to dim `dim` of operand (or result) `index`. SHARD_NULL_DIM
 * maps nothing. A factor of size 1 is not appended to a dim that already has
 * factors (it would add nothing). Out-of-range indices are ignored. */
void shard_rule_builder_map_operand(shard_rule_builder *b, int64_t f, uint32_t index, int64_t dim);
void shard_rule_builder_map_result(shard_rule_builder *b, int64_t f, uint32_t index, int64_t dim);

/* Shardy's addFactor(operandDims, resultDims, ...): one dim per operand and
 * per result (arrays of num_operands and num_results entries; NULL maps none). */
int64_t shard_rule_builder_add(shard_rule_builder *b, const int64_t *operand_dims, const int64_t *result_dims,
                               int64_t size, shard_factor_type type, bool blocked);
/* Shardy's addFactor(dim, ...): `dim` of every operand and result that has
 * dimensions (scalars and tokens are skipped). */
int64_t shard_rule_builder_add_dim(shard_rule_builder *b, int64_t dim, int64_t size, shard_factor_type type,
                                   bool blocked);
/* `dim` of every operand (every result) that has dimensions. */
int64_t shard_rule_builder_add_all_operands(shard_rule_builder *b, int64_t dim, int64_t size, shard_factor_type type,
                                            bool blocked);
int64_t shard_rule_builder_add_all_results(shard_rule_builder *b, int64_t dim, int64_t size, shard_factor_type type,
                                           bool blocked);
/* The common one-operand/one-result case: operand 0 dim -> result 0 dim. */
int64_t shard_rule_builder_add_io(shard_rule_builder *b, int64_t operand_dim, int64_t result_dim, int64_t size,
                                  shard_factor_type type, bool blocked);

/* The rule so far, in `a`. The builder is left unchanged (the size-1 factors
 * of empty dims are added to the rule only). */
shard_op_sharding_rule *shard_rule_builder_build(const shard_rule_builder *b, shard_arena *a);

#endif
