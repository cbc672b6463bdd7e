/* The op sharding rule registry: the factor-based #sdy.op_sharding_rule of
 * every op shard knows, built the way Shardy's registry builds them. */
#ifndef SHARD_RULE_REGISTRY_H
#define SHARD_RULE_REGISTRY_H

#include <stdbool.h>

#include "support/buf.h"
#include "ir/ir.h"
#include "sdy/sharding.h"

/* Rules declared from outside (`shard propagate --rules FILE`) for ops the
 * registry does not know: `fn` returns the op's rule, or NULL when it has
 * none either. Callers pass one down (pass/pass.h's shard_pass_context);
 * NULL everywhere means none. */
typedef shard_op_sharding_rule *(*shard_rule_provider_fn)(void *ctx, shard_arena *a, const shard_op *op);
typedef struct shard_rule_provider {
  shard_rule_provider_fn fn;
  void *ctx;
} shard_rule_provider;

/* The op's rule: its `sdy.sharding_rule` attribute if it has one (a user or
 * custom rule wins), else a rule created for the op's kind, else one from
 * `extra` (NULL: none), else NULL (the op has no rule: propagation treats it
 * as a barrier). `conservative` is Shardy's conservative-propagation variant
 * (e.g. no propagation through non-divisible reshape dims). Allocated in
 * `a`. */
shard_op_sharding_rule *shard_rule_for_op(shard_arena *a, const shard_op *op, bool conservative,
                                          const shard_rule_provider *extra);
/* Created rule only (ignores an existing attribute). */
shard_op_sharding_rule *shard_rule_create(shard_arena *a, const shard_op *op, bool conservative,
                                          const shard_rule_provider *extra);

/* A cache of created rules for one propagation session: ops of the same
 * name, operand and result types and attributes (shardings and sdy.* aside),
 * whose constructor reads nothing else, share the rule created for the first
 * of them. A module of repeated layers builds each rule once instead of once
 * per op. Rules are never edited after creation, so sharing them is safe. */
typedef struct shard_rule_cache shard_rule_cache;
/* `extra` (NULL: none) is asked for ops the registry does not know. */
shard_rule_cache *shard_rule_cache_new(const shard_rule_provider *extra);
void shard_rule_cache_free(shard_rule_cache *c);
/* shard_rule_create through the cache (a NULL cache creates every time). */
shard_op_sharding_rule *shard_rule_create_cached(shard_rule_cache *c, shard_arena *a, const shard_op *op,
                                                 bool conservative);

/* Added by rule_registry.c: when Shardy's registry does not know the op,
 * writes the warning Shardy emits for it to b ("op 'x' is unknown to SDY
 * sharding rule registry", "custom call @t is unknown to SDY sharding rule
 * registry") and returns true; also for a known op that gets no rule because
 * a tensor has more dims than rules handle (RR_MAX_INTS, 256). False for
 * other known ops, with or without a rule (terminators, constants and
 * data-flow ops are known). */
bool shard_rule_unknown_message(const shard_op *op, shard_buf *b);

#endif
