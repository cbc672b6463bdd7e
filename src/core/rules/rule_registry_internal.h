/* Private to rule_registry*.c: the per-op rule constructors and the small
 * readers for the op attributes they need (StableHLO attributes that shard
 * keeps as raw text, such as #stablehlo.gather<...>, are decoded here). */
#ifndef SHARD_RULE_REGISTRY_INTERNAL_H
#define SHARD_RULE_REGISTRY_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ir/ir.h"
#include "rules/rule_builder.h"
#include "sdy/sharding.h"

/* A rule constructor: NULL when the op has no rule (or its attributes or
 * types are not what the op requires; the verifier reports those). */
typedef shard_op_sharding_rule *(*rr_create_fn)(shard_arena *a, const shard_op *op, bool conservative);

/* Shorthands of the rule constructors: operand i's value, result i, the
 * factor types and the null dim. */
#define OPERAND(op, i) ((op)->operands[i].value)
#define RESULT(op, i) (&(op)->results[i])
#define PASS SHARD_FACTOR_PASS_THROUGH
#define REDUCTION SHARD_FACTOR_REDUCTION
#define NEED SHARD_FACTOR_NEED_REPLICATION
#define PERM SHARD_FACTOR_PERMUTATION
#define NUL SHARD_NULL_DIM

/* ---- attribute readers (rule_registry_attr.c) ---------------------------- */

/* The largest rank the rule constructors that keep per-dim arrays on the
 * stack accept. */
#define RR_MAX_INTS 256

/* An integer list of an attribute (read through ir/attr.h's accessors). */
typedef shard_i64s rr_ints;

bool shard_rr_ints_contains(const rr_ints *l, int64_t x);
/* Index of x in l, or -1. */
int shard_rr_ints_find(const rr_ints *l, int64_t x);

bool shard_rr_attr_int(const shard_op *op, const char *name, int64_t *out);
bool shard_rr_attr_bool(const shard_op *op, const char *name, bool *out);
/* array<i64: ...>, dense<...> of integers, or [1, 2] of integers. */
bool shard_rr_attr_ints(const shard_op *op, const char *name, rr_ints *out);
/* Is the attribute present? */
bool shard_rr_attr_has(const shard_op *op, const char *name);
/* Does the string attribute `name` equal s? */
bool shard_rr_attr_str_eq(const shard_op *op, const char *name, const char *s);

/* ---- helpers shared by the constructors (rule_registry.c) ---------------- */

/* Shape of a value: rank and dims (NULL and 0 for non-tensors). */
uint32_t shard_rr_rank(const shard_value *v);
const int64_t *shard_rr_shape(const shard_value *v);
bool shard_rr_is_ranked(const shard_value *v);
/* Every op gets the builder, builds and frees it. */
shard_op_sharding_rule *shard_rr_finish(shard_rule_builder *b, shard_arena *a);
/* Shardy's buildPointwise: the first result's dims, one factor each, mapped
 * onto the same dim of every operand and result. */
shard_op_sharding_rule *shard_rr_pointwise(shard_arena *a, const shard_op *op, bool conservative);

/* Shardy's addPointwiseWithDiffTypeForMismatch: dims of equal size in `in`
 * and `out` pass through, the others get one `mismatch` factor (blocked when
 * asked). */
shard_op_sharding_rule *shard_rr_pointwise_with_mismatch(shard_arena *a, const shard_op *op, const shard_value *in,
                                                         const shard_value *out, shard_factor_type mismatch,
                                                         bool blocked);

/* ---- constructors by family ---------------------------------------------- */

/* rule_registry_shape.c */
shard_op_sharding_rule *shard_rr_reshape(shard_arena *a, const shard_op *op, bool conservative);
shard_op_sharding_rule *shard_rr_convolution(shard_arena *a, const shard_op *op, bool conservative);
shard_op_sharding_rule *shard_rr_gather(shard_arena *a, const shard_op *op, bool conservative);
shard_op_sharding_rule *shard_rr_scatter(shard_arena *a, const shard_op *op, bool conservative);

/* rule_registry_custom.c: NULL with *unknown set when the target is not in
 * Shardy's registry. */
shard_op_sharding_rule *shard_rr_custom_call(shard_arena *a, const shard_op *op, bool conservative, bool *unknown);

/* rule_registry_chlo.c: the chlo ops. *known (when not NULL) says whether
 * the op is one the chlo rules know (some known ops have no rule). */
shard_op_sharding_rule *shard_rr_chlo(shard_arena *a, const shard_op *op, bool conservative, bool *known);
/* rule_registry_chlo.c too: the mhlo ops without a StableHLO twin that XLA
 * gives rules (mhlo.copy, mhlo.ragged_dot); *known as above. */
shard_op_sharding_rule *shard_rr_mhlo(shard_arena *a, const shard_op *op, bool conservative, bool *known);

/* rule_registry.c: is the op's constructor one whose rule depends only on
 * the op's name, operand and result types and attributes (not on defining
 * ops, regions or uses), so that equal ops may share one rule? */
bool shard_rr_shared_by_equal_ops(const shard_op *op);

#endif
