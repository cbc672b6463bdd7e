/* Readers of chlo attributes shard keeps as text (ops_chlo.c). */
#ifndef SHARD_OPS_CHLO_H
#define SHARD_OPS_CHLO_H

#include <stdbool.h>
#include <stdint.h>

#include "ir/ir.h"

/* The most dims one list of a #chlo.ragged_dot<...> may name. */
#define SHARD_CHLO_RAGGED_MAX_DIMS 16

/* #chlo.ragged_dot<lhs_batching_dimensions = [..], ..., rhs_group_dimensions = [..]>
 * of chlo.ragged_dot's `ragged_dot_dimension_numbers`. */
typedef struct shard_chlo_ragged_dims {
  int64_t lhs_batch[SHARD_CHLO_RAGGED_MAX_DIMS], rhs_batch[SHARD_CHLO_RAGGED_MAX_DIMS];
  int64_t lhs_contract[SHARD_CHLO_RAGGED_MAX_DIMS], rhs_contract[SHARD_CHLO_RAGGED_MAX_DIMS];
  int64_t lhs_ragged[SHARD_CHLO_RAGGED_MAX_DIMS], rhs_group[SHARD_CHLO_RAGGED_MAX_DIMS];
  uint32_t num_lhs_batch, num_rhs_batch, num_lhs_contract, num_rhs_contract, num_lhs_ragged, num_rhs_group;
} shard_chlo_ragged_dims;

/* False when the attribute is missing, not of that form, or a list is longer
 * than SHARD_CHLO_RAGGED_MAX_DIMS. */
bool shard_chlo_ragged_dot_dims(const shard_op *op, shard_chlo_ragged_dims *out);

/* chlo's enums, #chlo<comparison_direction LT>, #chlo<comparison_type
 * TOTALORDER> and #chlo<precision HIGH>, from the attribute's text: the same
 * cases as StableHLO's, so a SHARD_ATTR_SHLO_ENUM marked `chlo` (read with
 * shard_attr_enum, printed with its #chlo spelling). NULL for any other text. */
shard_attr *shard_chlo_enum_decode(shard_arena *a, const char *text);

/* chlo.scan's operands are its inputs, then its inits: how many inputs
 * (operandSegmentSizes[0]; all operands when that is missing). */
uint32_t shard_chlo_scan_num_inputs(const shard_op *op);

#endif
