/* XLA interop: what XLA's Shardy integration writes into a StableHLO module
 * (xla/service/spmd/shardy): frontend attributes that carry sdy attributes
 * as escaped text (`mhlo.frontend_attributes = {xla.sdy.sharding = "..."}`),
 * the custom calls that stand for sdy ops while a module travels through
 * HLO, and the names XLA gives them (its constants.h). The passes themselves
 * are declared in pass/pass.h and registered in pipeline/pass_registry.c. */
#ifndef SHARD_XLA_H
#define SHARD_XLA_H

#include <stdbool.h>

#include "ir/ir.h"
#include "support/diag.h"

/* Attribute names (XLA's constants.h). */
#define SHARD_XLA_FRONTEND_ATTRS "mhlo.frontend_attributes"
#define SHARD_XLA_MHLO_SHARDING "mhlo.sharding"
#define SHARD_XLA_SHARDING "xla.sdy.sharding" /* #sdy.sharding(_per_value)<...> */
#define SHARD_XLA_MESHES "xla.sdy.meshes" /* {name = #sdy.mesh<...>, ...} on the module */
#define SHARD_XLA_SHARDING_RULE "xla.sdy.sharding_rule" /* #sdy.op_sharding_rule<...> */
#define SHARD_XLA_IN_SHARDINGS "xla.sdy.in_shardings" /* manual computations */
#define SHARD_XLA_OUT_SHARDINGS "xla.sdy.out_shardings"
#define SHARD_XLA_MANUAL_AXES "xla.sdy.manual_axes"
#define SHARD_XLA_GROUP_ID "xla.sdy.sharding_group_id"

/* Custom call targets. */
#define SHARD_XLA_FUNC_RESULT_SHARDING "xla.sdy.FuncResultSharding"
#define SHARD_XLA_SHARDING_GROUP "xla.sdy.ShardingGroup"
#define SHARD_XLA_GLOBAL_TO_LOCAL "xla.sdy.GlobalToLocalShape"
#define SHARD_XLA_LOCAL_TO_GLOBAL "xla.sdy.LocalToGlobalShape"
#define SHARD_XLA_MANUAL_BODY "xla.sdy.manual_computation_body"
#define SHARD_XLA_SHARDING_CUSTOM_CALL "Sharding"
#define SHARD_XLA_SPMD_FULL_TO_SHARD "SPMDFullToShardShape"
#define SHARD_XLA_SPMD_SHARD_TO_FULL "SPMDShardToFullShape"

/* ---- frontend attributes (xla_frontend.c) ------------------------------- */

/* The string value of `key` in a frontend attribute dictionary (NULL when
 * the dictionary or the key is absent, or the value is not a string). */
const char *shard_xla_frontend_get(const shard_attr *dict, const char *key);
/* A copy of `dict` (NULL: none) with `key` set to the string `value`, or
 * removed when value is NULL; NULL when nothing is left. */
shard_attr *shard_xla_frontend_with(shard_arena *a, const shard_attr *dict, const char *key, const char *value);
/* The same on an op's, a block argument's (func arguments) and a func
 * result's frontend attributes. */
const char *shard_xla_op_frontend(const shard_op *op, const char *key);
void shard_xla_op_set_frontend(shard_arena *a, shard_op *op, const char *key, const char *value);
const char *shard_xla_arg_frontend(const shard_value *arg, const char *key);
void shard_xla_arg_set_frontend(shard_arena *a, shard_value *arg, const char *key, const char *value);

/* absl::CUnescape and absl::CEscape, the escaping XLA applies to attribute
 * text in frontend attributes. Unescape returns NULL on a bad escape. */
char *shard_xla_unescape(shard_arena *a, const char *text);
char *shard_xla_escape(shard_arena *a, const char *text);

/* Parses the escaped text of frontend attribute `key` as an attribute of
 * `kind`. NULL after an error at `at` naming the key and what is wrong. */
shard_attr *shard_xla_parse(shard_module *m, const char *escaped, const char *key, shard_attr_kind kind, shard_span at,
                            shard_diag_engine *de);

/* The text of an sdy attribute as MLIR prints it (#sdy.sharding<...>,
 * #sdy.sharding_per_value<[...]>, #sdy.mesh<...>, #sdy.op_sharding_rule<...>),
 * in the arena. */
char *shard_xla_attr_text(shard_arena *a, const shard_attr *attr);

/* A stablehlo.custom_call to `target` (call_target_name), not inserted. */
shard_op *shard_xla_custom_call(shard_arena *a, const char *target, uint32_t num_operands, shard_value *const *operands,
                                uint32_t num_results, shard_type *const *result_types);
/* The stablehlo.constant an sdy.constant `op` becomes when exported to XLA:
 * op's attributes and span, inserted before op and given op's uses. op is
 * left for the caller to erase. */
shard_op *shard_xla_constant_from_sdy(shard_arena *a, shard_op *op);
/* Is op a stablehlo.custom_call to `target`? */
bool shard_xla_is_custom_call(const shard_op *op, const char *target);

#endif
