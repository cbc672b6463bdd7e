/* Small export-side passes that strip or rewrite sharding annotations:
 *
 *  -sdy-remove-sharding-groups         erases every sdy.sharding_group;
 *  -sdy-remove-propagation-debug-info  drops the debug attributes that
 *      propagation's debug options leave (sdy.propagation_edges,
 *      sdy.sharding_origins and their block_arg_/result_ variants);
 *  -sdy-drop-sharding-and-mesh         drops every `sdy.sharding` attribute
 *      (ops, function arguments and results) and every sdy.mesh;
 *  -sdy-sharding-constraint-to-reshard turns each sdy.sharding_constraint
 *      into an sdy.reshard with the same sharding and attributes;
 *  -sdy-close-shardings                closes every dimension of every
 *      sharding and drops replicated axes (priorities stay). */
#include <string.h>

#include "ir/opdef.h"
#include "pass/pass.h"
#include "pass/pass_shardings.h"
#include "support/ptrmap.h"

typedef SHARD_VEC(shard_op *) op_vec;

/* The op names this file tests, compared by definition (ir.h). */
static shard_op_name K_func_func = {"func.func", NULL};
static shard_op_name K_sdy_mesh = {"sdy.mesh", NULL};
static shard_op_name K_sdy_sharding_constraint = {"sdy.sharding_constraint", NULL};
static shard_op_name K_sdy_sharding_group = {"sdy.sharding_group", NULL};

typedef struct collect {
  shard_op_name *name;
  op_vec ops;
} collect;

static bool S_collect(shard_op *op, void *ctx) {
  collect *c = ctx;
  if (shard_op_is(op, c->name)) SHARD_VEC_PUSH(c->ops, op);
  return true;
}

/* All ops named `name`, in pre-order. The caller frees with SHARD_VEC_FREE. */
static collect S_ops_named(shard_module *m, shard_op_name *name) {
  collect c = {name, {0}};
  shard_walk(m->top, S_collect, &c);
  return c;
}

/* ---- -sdy-remove-sharding-groups ----------------------------------------------- */

bool shard_pass_remove_sharding_groups(shard_module *m, const char *options, const shard_pass_context *cx) {
  collect c = S_ops_named(m, &K_sdy_sharding_group);
  for (uint32_t i = 0; i < c.ops.len; i++) shard_op_erase(c.ops.items[i]);
  SHARD_VEC_FREE(c.ops);
  return true;
}

/* ---- -sdy-remove-propagation-debug-info --------------------------------------- */

static const char *const S_debug_attrs[] = {"sdy.propagation_edges",
                                            "sdy.block_arg_propagation_edges",
                                            "sdy.result_propagation_edges",
                                            "sdy.sharding_origins",
                                            "sdy.block_arg_sharding_origins",
                                            "sdy.result_sharding_origins",
                                            NULL};

static bool S_remove_debug(shard_op *op, void *ctx) {
  shard_module *m = ctx;
  if (shard_op_is(op, &K_func_func)) {
    for (const char *const *a = S_debug_attrs; *a; a++) shard_func_remove_arg_result_attr(m->arena, op, *a);
    return true;
  }
  for (const char *const *a = S_debug_attrs; *a; a++) shard_op_remove_attr(op, *a);
  return true;
}

bool shard_pass_remove_propagation_debug_info(shard_module *m, const char *options, const shard_pass_context *cx) {
  shard_walk(m->top, S_remove_debug, m);
  return true;
}

/* ---- -sdy-drop-sharding-and-mesh ---------------------------------------------- */

static bool S_drop_sharding(shard_op *op, void *ctx) {
  shard_module *m = ctx;
  shard_op_remove_attr(op, "sdy.sharding");
  if (shard_op_is(op, &K_func_func)) shard_func_remove_arg_result_attr(m->arena, op, "sdy.sharding");
  return true;
}

bool shard_pass_drop_sharding_and_mesh(shard_module *m, const char *options, const shard_pass_context *cx) {
  shard_walk(m->top, S_drop_sharding, m);
  collect c = S_ops_named(m, &K_sdy_mesh);
  for (uint32_t i = 0; i < c.ops.len; i++) shard_op_erase(c.ops.items[i]);
  SHARD_VEC_FREE(c.ops);
  return true;
}

/* ---- -sdy-sharding-constraint-to-reshard ----------------------------------------- */

bool shard_pass_sharding_constraint_to_reshard(shard_module *m, const char *options, const shard_pass_context *cx) {
  collect c = S_ops_named(m, &K_sdy_sharding_constraint);
  /* Same operand, result, inherent `sharding` and discardable attributes:
   * only the op's name and definition change (looked up once, not by
   * building an sdy.reshard per constraint to copy them from). */
  static const char reshard[] = "sdy.reshard";
  const shard_op_def *def = shard_op_def_lookup(reshard, sizeof reshard - 1);
  for (uint32_t i = 0; i < c.ops.len; i++) {
    c.ops.items[i]->name = def ? def->name : reshard;
    c.ops.items[i]->def = def;
  }
  SHARD_VEC_FREE(c.ops);
  return true;
}

/* ---- -sdy-close-shardings --------------------------------------------------------- */

/* Propagation shares one dims array among the shardings along a chain of
 * ops (shardings are replaced, never edited), so their closed copies share
 * one too: by the dims array closed, its closed copy. */
typedef struct closed_dims {
  shard_dim_sharding *dims;
  uint32_t rank;
} closed_dims;

typedef struct close_state {
  shard_arena *a;
  shard_arena *tmp; /* the closed_dims entries */
  shard_ptrmap closed; /* dims array -> closed_dims */
} close_state;

static shard_dim_sharding *S_closed_dims(close_state *st, const shard_dim_sharding *dims, uint32_t rank) {
  uint64_t *slot = shard_ptrmap_slot(&st->closed, dims);
  closed_dims *c = (closed_dims *)(uintptr_t)*slot;
  if (c && c->rank == rank) return c->dims;
  if (!c) {
    c = SHARD_NEW(st->tmp, closed_dims);
    *slot = (uint64_t)(uintptr_t)c;
  }
  c->rank = rank;
  c->dims = SHARD_NEW_ARRAY(st->a, shard_dim_sharding, rank);
  for (uint32_t d = 0; d < rank; d++) {
    c->dims[d] = dims[d];
    c->dims[d].is_open = false;
  }
  return c->dims;
}

/* The closed sharding into *c; false when `s` is closed already (every
 * sharding is, after the first export of shard lower): kept, not copied. */
static bool S_close(const shard_tensor_sharding *s, shard_tensor_sharding *c, void *ctx) {
  close_state *st = ctx;
  bool open = s->num_replicated > 0;
  for (uint32_t d = 0; d < s->rank && !open; d++) open = s->dims[d].is_open;
  if (!open) return false;
  *c = *s;
  c->dims = s->rank ? S_closed_dims(st, s->dims, s->rank) : NULL;
  c->replicated = NULL;
  c->num_replicated = 0;
  return true;
}

bool shard_pass_close_shardings(shard_module *m, const char *options, const shard_pass_context *cx) {
  close_state st = {m->arena, shard_arena_new(), {0}};
  shard_rewrite_shardings(m, S_close, &st);
  shard_ptrmap_release(&st.closed);
  shard_arena_free(st.tmp);
  return true;
}
