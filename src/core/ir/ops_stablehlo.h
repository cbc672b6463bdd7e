/* Private to ops_stablehlo*.c: StableHLO attributes that shard keeps as raw
 * text (#stablehlo<comparison_direction LT>, #stablehlo.dot<...>,
 * #stablehlo.conv<...>) and the conversions between that generic text and
 * the pieces the pretty syntax shows. */
#ifndef SHARD_OPS_STABLEHLO_H
#define SHARD_OPS_STABLEHLO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "support/arena.h"
#include "ir/attr.h"
#include "support/buf.h"

/* An integer list read out of attribute text; `vals` is heap memory owned by
 * the caller (shard_shlo_dims_free). */
typedef struct shlo_dims {
  int64_t *vals;
  uint32_t num;
} shlo_dims;

void shard_shlo_dims_free(shlo_dims *d);
void shard_shlo_dims_print(shard_buf *b, const shlo_dims *d); /* [1, 2] */

/* #stablehlo.dot<lhs_batching_dimensions = [..], ...>: absent fields are empty. */
typedef struct shlo_dot_dims {
  shlo_dims lhs_batch, rhs_batch, lhs_contract, rhs_contract;
} shlo_dot_dims;

bool shard_shlo_dot_dims_decode(const shard_attr *a, shlo_dot_dims *out);
shard_attr *shard_shlo_dot_dims_encode(shard_arena *arena, const shlo_dot_dims *d);
void shard_shlo_dot_dims_free(shlo_dot_dims *d);

/* Writes a #stablehlo.gather<...> / #stablehlo.scatter<...> attribute's raw
 * text the way MLIR prints it (fixed field order, empty lists and
 * index_vector_dim = 0 left out); false, writing nothing, for other or
 * malformed text. Used by shard_attr_print for every raw attribute. */
bool shard_shlo_dimnums_print(shard_buf *b, const char *raw);

/* The fields of a #stablehlo.gather<...> / #stablehlo.scatter<...> raw
 * attribute, in StableHLO's printing order: gather's offset_dims,
 * collapsed_slice_dims, operand_batching_dims, start_indices_batching_dims,
 * start_index_map; scatter's update_window_dims, inserted_window_dims,
 * input_batching_dims, scatter_indices_batching_dims,
 * scatter_dims_to_operand_dims. Absent lists are empty. */
typedef struct shlo_dimnums {
  bool is_gather;
  shlo_dims lists[5];
  int64_t index_vector_dim;
} shlo_dimnums;
bool shard_shlo_dimnums_decode(const char *raw, shlo_dimnums *out);
void shard_shlo_dimnums_free(shlo_dimnums *d);

/* The value of an enum attribute #stablehlo<kind VALUE> (also accepts the
 * #stablehlo.kind<VALUE> spelling), copied into out[cap]. False when `a` is
 * not an enum of that kind. */
bool shard_shlo_enum_decode(const shard_attr *a, const char *kind, char *out, size_t cap);
shard_attr *shard_shlo_enum_encode(shard_arena *arena, const char *kind, const char *value);
/* Is `value` a case of the enum `kind`? Unknown kinds accept anything. */
bool shard_shlo_enum_valid(const char *kind, const char *value);
/* The cases of `kind`, comma separated, for error messages. */
const char *shard_shlo_enum_cases(const char *kind);

/* #stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>: the body between
 * the angle brackets, re-spaced the way StableHLO prints it (heap string,
 * caller frees), or NULL if the text is not the compact form. */
char *shard_shlo_conv_dims_body(const shard_attr *a);

/* Integers of a dense<...> payload in row-major order; a splat is repeated
 * `expect` times (the element count of its type; UINT32_MAX when unknown).
 * False when the payload is not all integers. */
bool shard_shlo_dense_ints(const char *payload, uint32_t expect, shlo_dims *out);
/* dense<[[a, b], ...]> : tensor<Nx2xi64> (splat when all equal, as MLIR does). */
shard_attr *shard_shlo_dense_pairs(shard_arena *arena, const int64_t *vals, uint32_t num_pairs);

#endif
