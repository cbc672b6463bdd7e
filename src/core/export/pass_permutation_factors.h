/* Internal to -sdy-resolve-permutation-factors: the state shared by the
 * replication path (pass_permutation_factors.c) and the halo exchange
 * (pass_permutation_factors_halo.c). */
#ifndef SHARD_PASS_PERMUTATION_FACTORS_H
#define SHARD_PASS_PERMUTATION_FACTORS_H

#include <stdbool.h>
#include <stdint.h>

#include "support/diag.h"
#include "ir/ir.h"
#include "sdy/sharding.h"

typedef struct perm_ctx {
  shard_module *m;
  shard_diag_engine *de;
  bool halo; /* enable-halo-exchange */
  int64_t replicas; /* replica-count: >1 means devices are replica ids */
  int64_t partitions; /* partition-count */
  int64_t next_channel; /* next free channel handle for collective_permute */
  int64_t symbol_counter; /* suffix of the next uniqued mesh name (MLIR's symbol table) */
} perm_ctx;

/* Dims [in_start, in_end) of the operand reshape to [out_start, out_end) of
 * the result; *_nontrivial count the dims that are not 1. */
typedef struct perm_reshape_group {
  uint32_t in_start, in_end, out_start, out_end;
  uint32_t in_nontrivial, out_nontrivial;
} perm_reshape_group;
typedef SHARD_VEC(perm_reshape_group) perm_reshape_group_vec;

void shard_perm_reshape_groups(const shard_type *in, const shard_type *out, perm_reshape_group_vec *groups);
bool shard_perm_group_passthrough(const perm_reshape_group *g);
bool shard_perm_group_indivisible(const perm_reshape_group *g, const shard_tensor_sharding *in_s, const shard_type *in,
                                  const shard_tensor_sharding *out_s, const shard_type *out, const shard_mesh *mesh);

/* The sharding of a value as Shardy's getSharding sees it (NULL when none). */
shard_tensor_sharding *shard_perm_value_sharding(perm_ctx *c, const shard_value *v);
/* Number of shards of dim d (1 when unsharded or s is NULL). */
int64_t shard_perm_dim_shards(const shard_tensor_sharding *s, uint32_t d, const shard_mesh *mesh);
/* Entry d of an array<i64> attribute of op, or dflt. */
int64_t shard_perm_attr_int(const shard_op *op, const char *name, uint32_t d, int64_t dflt);
/* A new sdy.reshard of `in` to s, inserted before `before`. */
shard_value *shard_perm_new_reshard(perm_ctx *c, shard_op *before, shard_value *in, shard_tensor_sharding *s,
                                    const shard_op *near);
void shard_perm_replace_uses_except(shard_value *from, shard_value *to, const shard_op *except);
/* Gives result i of op the sharding `now` and reshards it back to `old`
 * for every existing user. Returns the reshard's result. */
shard_value *shard_perm_reshard_result(perm_ctx *c, shard_op *op, uint32_t i, shard_tensor_sharding *old,
                                       shard_tensor_sharding *now);
/* Replicates every sharded permutation factor of op (the generic path). */
void shard_perm_resolve_by_replication(perm_ctx *c, shard_op *op, const shard_op_sharding_rule *rule);

/* Halo exchange. Each returns true when the op needed nothing or was
 * rewritten, false when the op must be resolved by replication. */
bool shard_perm_halo_pad(perm_ctx *c, shard_op *op);
bool shard_perm_halo_slice(perm_ctx *c, shard_op *op);
bool shard_perm_halo_reverse(perm_ctx *c, shard_op *op);
bool shard_perm_halo_reshape(perm_ctx *c, shard_op *op, shard_tensor_sharding *in_s, shard_tensor_sharding *out_s,
                             const shard_mesh *mesh, const perm_reshape_group_vec *groups);

#endif
