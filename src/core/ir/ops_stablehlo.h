/* Private to the ir layer: the pieces of StableHLO attributes the pretty op
 * syntax of ops_stablehlo.c shows (`LT`, `contracting_dims = [1] x [0]`,
 * `[b, 0, 1, f]x...`), and the enum tables by name (the typed attributes
 * themselves and their accessors are in attr.h). */
#ifndef SHARD_OPS_STABLEHLO_H
#define SHARD_OPS_STABLEHLO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "support/arena.h"
#include "ir/attr.h"
#include "support/buf.h"

/* An integer list read out of attribute text; `vals` is heap memory owned by
 * the caller (shard_shlo_dims_free), or `inl` when the op parser read a
 * short list (such a shlo_dims is not copied by value). */
typedef struct shlo_dims {
  int64_t *vals;
  uint32_t num;
  int64_t inl[6];
} shlo_dims;

void shard_shlo_dims_free(shlo_dims *d);

/* The case of a typed enum attribute of the kind named `kind`, copied into
 * out[cap]. False when `a` is not an enum of that kind. */
bool shard_shlo_enum_decode(const shard_attr *a, const char *kind, char *out, size_t cap);
/* A typed enum attribute (verbatim text when `kind` is not modelled). */
shard_attr *shard_shlo_enum_encode(shard_arena *arena, const char *kind, const char *value);
/* Is `value` a case of the enum `kind`? Unknown kinds accept anything. */
bool shard_shlo_enum_valid(const char *kind, const char *value);
/* The cases of `kind`, comma separated, for error messages. */
const char *shard_shlo_enum_cases(const char *kind);

/* `[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]`, the body StableHLO prints; false,
 * writing nothing, when the positions do not each name one dimension. */
bool shard_conv_dims_print_body(shard_buf *b, const shard_conv_dims *d);
/* The index of case value[0..len) of `kind`, or -1. */
int shard_shlo_enum_case(shard_shlo_enum_kind kind, const char *value, size_t len);

/* dense<[[a, b], ...]> : tensor<Nx2xi64> (splat when all equal, as MLIR does). */
shard_attr *shard_shlo_dense_pairs(shard_arena *arena, const int64_t *vals, uint32_t num_pairs);

#endif
