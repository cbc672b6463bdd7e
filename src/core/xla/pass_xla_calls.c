/* -xla-sdy-import-uninlineable-func-calls (round_trip_common/
 * import_uninlineable_func_calls.cc): a func.call that XLA must not inline
 * (its frontend attributes hold a `backend_config`, or `inlineable =
 * "false"`) becomes an sdy.named_computation named after the callee, holding
 * the callee's body, with the call's sharding as out_shardings (the callee's
 * own argument and result shardings are ignored) and the call's other
 * attributes. A second call of the same func clones the body, with XLA's
 * warning. Callees whose every call was imported are erased. */
#include <string.h>

#include "ir/call_graph.h"
#include "ir/clone.h"
#include "pass/pass.h"
#include "pass/pass_shardings.h"
#include "xla/xla.h"

static bool S_uninlineable(const shard_op *call) {
  shard_attr *fa = shard_op_attr(call, SHARD_XLA_FRONTEND_ATTRS);
  if (!fa || fa->kind != SHARD_ATTR_DICT) return false;
  if (shard_dict_get(fa, "backend_config")) return true;
  const char *inl = shard_xla_frontend_get(fa, "inlineable");
  return inl && strcmp(inl, "false") == 0;
}

static bool S_collect(shard_op *op, void *ctx) {
  SHARD_VEC(shard_op *) *v = ctx;
  if (strcmp(op->name, "func.call") == 0 && S_uninlineable(op)) SHARD_VEC_PUSH(*v, op);
  return true;
}

typedef struct moved_body {
  shard_op *func;
  shard_region *region;
} moved_body;

static bool S_count_calls(shard_op *op, void *ctx) {
  const void **c = ctx;
  const char *name = c[0];
  if (strcmp(op->name, "func.call") == 0 && strcmp(shard_call_callee(op), name) == 0) (*(uint32_t *)c[1])++;
  return true;
}

bool shard_pass_xla_import_uninlineable_func_calls(shard_module *m, const char *options, const shard_pass_context *cx) {
  shard_diag_engine *de = cx->de;
  (void)options;
  shard_arena *a = m->arena;
  SHARD_VEC(shard_op *) calls = {0};
  shard_walk(m->top, S_collect, &calls);
  SHARD_VEC(moved_body) moved = {0};
  for (uint32_t i = 0; i < calls.len; i++) {
    shard_op *call = calls.items[i];
    shard_op *func = shard_call_callee_func(m, call);
    if (!func || !func->num_regions) continue;
    const char *callee = shard_call_callee(call);
    shard_op *nc = shard_pass_op_like(a, "sdy.named_computation", call, 1);
    shard_op_set_attr(a, nc, "name", shard_attr_string(a, callee, (uint32_t)strlen(callee)), true);
    shard_attr *out = shard_op_attr(call, "sdy.sharding");
    if (out && out->kind == SHARD_ATTR_SDY_PER_VALUE) shard_op_set_attr(a, nc, "out_shardings", out, true);
    for (uint32_t k = 0; k < call->num_attrs; k++)
      if (!call->attrs[k].inherent && strcmp(call->attrs[k].name, "sdy.sharding") != 0)
        shard_op_set_attr(a, nc, call->attrs[k].name, call->attrs[k].value, false);
    moved_body *mb = NULL;
    for (uint32_t k = 0; k < moved.len; k++)
      if (moved.items[k].func == func) mb = &moved.items[k];
    if (mb) {
      shard_warning(de, call->span,
                    "uninlineable function @%s has multiple call ops, we need to clone the function body for each call",
                    callee);
      shard_region_clone_into(a, mb->region, &nc->regions[0], NULL);
    } else {
      shard_region *to = &nc->regions[0];
      shard_pass_move_body(a, &func->regions[0], to, "func.return", "sdy.return", true);
      moved_body nb = {func, to};
      SHARD_VEC_PUSH(moved, nb);
    }
    shard_op_insert_before(call, nc);
    for (uint32_t k = 0; k < call->num_results; k++) shard_value_replace_all_uses(&call->results[k], &nc->results[k]);
    shard_op_erase(call);
  }
  /* a callee with calls left (inlineable ones) gets its body back */
  for (uint32_t k = 0; k < moved.len; k++) {
    shard_op *func = moved.items[k].func;
    uint32_t n = 0;
    const void *ctx[2] = {shard_symbol_name(func), &n};
    shard_walk(m->top, S_count_calls, (void *)ctx);
    if (n) shard_region_clone_into(a, moved.items[k].region, &func->regions[0], NULL);
    else shard_op_erase(func);
  }
  SHARD_VEC_FREE(calls);
  SHARD_VEC_FREE(moved);
  return true;
}
