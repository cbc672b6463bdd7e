/* Sharding rules declared in a JSON file (`shard propagate --rules FILE`),
 * for ops the rule registry does not know: any dialect's op can then
 * propagate like a registered one.
 *
 *   {"rules": {
 *     "mydialect.fused_gelu": "([i, j])->([i, j])",
 *     "mydialect.matmul": {"rule": "([i, k], [k, j])->([i, j])", "reduction": ["k"]},
 *     "mydialect.pointwise": {"elementwise": true}
 *   }}
 *
 * A rule is Shardy's op_sharding_rule notation without the factor sizes,
 * which are read off the op's tensor types: a dim written `ij` holds two
 * factors, every factor's size must follow from some dim. "reduction",
 * "need_replication", "permutation" and "blocked" list factor names.
 * "elementwise" maps dim d of every operand and result to one factor. */
#ifndef SHARD_RULES_JSON_H
#define SHARD_RULES_JSON_H

#include "support/diag.h"
#include "rules/rule_registry.h"

typedef struct shard_rules_file shard_rules_file;

/* Reads the rules in `src` (which must outlive the result). Reports each
 * problem through de and returns NULL when there was any. The caller frees
 * the result with shard_rules_json_free. */
shard_rules_file *shard_rules_json_parse(const shard_source *src, shard_diag_engine *de);

/* The provider of `rf`'s rules, for the registry to consult on ops it does
 * not know (shard_rule_create's `extra`, a pass context's `rules`); valid
 * while rf lives. An op a rule does not fit (operand count, rank, sizes)
 * gets an error through `de` and stays without a rule. */
shard_rule_provider shard_rules_json_provider(shard_rules_file *rf, shard_diag_engine *de);

void shard_rules_json_free(shard_rules_file *rf);

#endif
