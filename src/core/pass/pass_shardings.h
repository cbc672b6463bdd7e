/* Model queries the passes share (pass_*.c, propagation, export, lowering):
 * finding and rewriting every sharding of a module (shard_map_shardings), the
 * sharding of one value (shard_value_*) or function argument and result
 * (shard_func_*), sharding builders (shard_sharding_*), dictionary attributes
 * (shard_dict_*). They are queries of the sdy model, not passes, so they do
 * not carry the shard_pass_ prefix. Everything is allocated in the module
 * arena. */
#ifndef SHARD_PASS_SHARDINGS_H
#define SHARD_PASS_SHARDINGS_H

#include <stdbool.h>
#include <stdint.h>

#include "ir/ir.h"

/* Returns the sharding that replaces `s` (or `s` itself to keep it). */
typedef shard_tensor_sharding *(*shard_sharding_map_fn)(shard_tensor_sharding *s, void *ctx);

/* Applies fn, in pre-order, to every sharding in the module: function
 * argument and result attributes, `sdy.sharding` of any op, and the sharding
 * attributes of sdy ops (sharding, in_shardings, out_shardings, out_sharding),
 * replacing each by what fn returns, like Shardy's transformShardings. */
void shard_map_shardings(shard_module *m, shard_sharding_map_fn fn, void *ctx);

/* shard_map_shardings with fn writing the sharding that replaces `s` into
 * *out (true), or keeping `s` (false): a sharding of a per-value list is
 * then made once, in the new list, not first as a sharding of its own. */
typedef bool (*shard_sharding_rewrite_fn)(const shard_tensor_sharding *s, shard_tensor_sharding *out, void *ctx);
void shard_rewrite_shardings(shard_module *m, shard_sharding_rewrite_fn fn, void *ctx);

/* A shallow copy whose arrays may be replaced without touching `s`. */
shard_tensor_sharding *shard_sharding_clone(shard_arena *a, const shard_tensor_sharding *s);
/* Manual computations: shardings put a dim's manual axes first. The body's
 * view of an outer sharding drops the manual axes (NULL stays NULL); the
 * outer view of a body sharding keeps the outer's manual prefix in front of
 * the body's axes, the rest (open/closed, priorities) from the body; with no
 * outer sharding it is the body's. `manual` is the op's manual_axes; the
 * dropping itself is shard_sharding_drop_manual's (sdy). */
shard_tensor_sharding *shard_sharding_erase_manual(shard_arena *a, const shard_tensor_sharding *s,
                                                   const shard_attr *manual);
shard_tensor_sharding *shard_sharding_add_free(shard_arena *a, const shard_tensor_sharding *outer,
                                               const shard_tensor_sharding *inner, const shard_attr *manual);
/* The mesh of a sharding (inlined or by symbol), NULL when unknown. */
const shard_mesh *shard_sharding_mesh(const shard_module *m, const shard_tensor_sharding *s);
/* A sharding on `mesh_name` of the given rank with every dim open (or
 * closed) and nothing sharded: <@mesh, [{?}, {?}]>. */
shard_tensor_sharding *shard_sharding_open(shard_arena *a, const char *mesh_name, const shard_mesh *inline_mesh,
                                           uint32_t rank, bool open);

/* Function argument/result shardings (attribute `sdy.sharding`). NULL when
 * absent. Setting NULL removes the attribute. */
shard_tensor_sharding *shard_func_arg_sharding(const shard_op *func, uint32_t i);
void shard_func_set_arg_sharding(shard_arena *a, shard_op *func, uint32_t i, shard_tensor_sharding *s);
shard_tensor_sharding *shard_func_result_sharding(const shard_op *func, uint32_t i);
void shard_func_set_result_sharding(shard_arena *a, shard_op *func, uint32_t i, shard_tensor_sharding *s);
/* Sets the sharding of every result i with s[i] != NULL (s has one entry per
 * result) at once: one new result attribute list instead of one per result. */
void shard_func_set_result_shardings(shard_arena *a, shard_op *func, shard_tensor_sharding *const *s);
/* Any attribute of func result i (NULL when absent); setting NULL removes it. */
shard_attr *shard_func_result_attr(const shard_op *func, uint32_t i, const char *name);
void shard_func_set_result_attr(shard_arena *a, shard_op *func, uint32_t i, const char *name, shard_attr *value);
/* Removes attribute `name` from every argument and result of func. */
void shard_func_remove_arg_result_attr(shard_arena *a, shard_op *func, const char *name);
/* Number of results of a func.func, from its function type. */
uint32_t shard_func_num_results(const shard_op *func);

/* The sharding of an op result as Shardy's getSharding(Value) sees it for a
 * plain op: the `sdy.sharding` per-value entry, or the `sharding` of
 * sharding_constraint / reshard / data_flow_edge. Block arguments of a
 * func.func give the argument's sharding. NULL when none. */
shard_tensor_sharding *shard_value_sharding(const shard_value *v);
/* The same, but the out_sharding of an sdy collective wins over its
 * sdy.sharding: the sharding Shardy's getSharding(Value) returns for any op. */
shard_tensor_sharding *shard_value_sharding_or_out(const shard_value *v);
/* Sets the `sdy.sharding` of an op result (other results get open shardings
 * on the same mesh when the op had none), or a func argument's sharding. */
void shard_value_set_sharding(shard_arena *a, shard_value *v, shard_tensor_sharding *s);

/* Builds an op with a definition looked up by name, as the parser would. */
shard_op *shard_op_new_named(shard_arena *a, const char *name, uint32_t num_operands, shard_value *const *operands,
                             uint32_t num_results, shard_type *const *result_types, uint32_t num_regions);
/* An op `name` with the operands, result types, location and span of `like`
 * (and `num_regions` empty regions): a call becoming a named computation,
 * a composite a call, and back. */
shard_op *shard_pass_op_like(shard_arena *a, const char *name, const shard_op *like, uint32_t num_regions);
/* Moves the blocks of `from` into the empty region `to` (`from` is left
 * empty) and turns every block's terminator named `old_term` into a
 * `new_term` with its operands, location and span: a func body becoming a
 * named computation's or the other way (func.return <-> sdy.return). With
 * `drop_arg_attrs`, the blocks' arguments lose their attributes. */
void shard_pass_move_body(shard_arena *a, shard_region *from, shard_region *to, const char *old_term,
                          const char *new_term, bool drop_arg_attrs);

/* Looks an entry up in a dictionary attribute (any order). */
shard_attr *shard_dict_get(const shard_attr *dict, const char *name);
/* Returns a copy of `dict` with `name` set to `value` (removed when NULL),
 * entries kept sorted as MLIR's DictionaryAttr keeps them. */
shard_attr *shard_dict_with(shard_arena *a, const shard_attr *dict, const char *name, shard_attr *value);

#endif
