/* The stablehlo-opt steps that StableHLO's interpreter tests run before
 * interpreting (`stablehlo-opt -inline %s | stablehlo-translate --interpret`):
 *
 *   -inline                                MLIR's inliner: every func.call of a
 *                                          function with a body is replaced by
 *                                          a copy of that body, then private
 *                                          functions nothing refers to are erased
 *   -stablehlo-legalize-composite-to-call  stablehlo.composite -> func.call of
 *                                          its decomposition
 *   -chlo-pre-serialization-pipeline       keeps chlo ops: shard's interpreter
 *   -chlo-legalize-to-stablehlo            runs them as they are (their
 *                                          decompositions are numerically the
 *                                          same functions)
 *
 * The inliner does not run the canonicalizer afterwards as MLIR's does:
 * folding would only compute at compile time what the interpreter computes
 * at run time. A recursive call is left in place. */
#include <string.h>

#include "ir/call_graph.h"
#include "ir/clone.h"
#include "pass/pass.h"
#include "pass/pass_shardings.h"
#include "pipeline/lower_pipeline.h"

/* The most calls -inline replaces in one module: a bound for call chains
 * that only end after very many copies. */
#define INLINE_MAX_CALLS 100000

typedef SHARD_VEC(shard_op *) op_vec;

static bool S_is_call(const shard_op *op) { return !strcmp(op->name, "func.call") || !strcmp(op->name, "call"); }

static bool S_collect_calls(shard_op *op, void *ctx) {
  if (S_is_call(op)) SHARD_VEC_PUSH(*(op_vec *)ctx, op);
  return true;
}

/* Replaces `call` by a copy of the body of `fn` (one block ending in
 * func.return). */
static void S_inline_call(shard_arena *a, shard_op *call, const shard_op *fn) {
  shard_block *body = fn->regions[0].first;
  shard_value_map *map = shard_value_map_new();
  for (uint32_t i = 0; i < body->num_args && i < call->num_operands; i++)
    shard_value_map_set(map, &body->args[i], call->operands[i].value);
  for (shard_op *op = body->first; op; op = op->next) {
    if (!op->next) { /* the terminator */
      for (uint32_t i = 0; i < op->num_operands && i < call->num_results; i++)
        shard_value_replace_all_uses(&call->results[i], shard_value_map_lookup(map, op->operands[i].value));
      break;
    }
    shard_op_insert_before(call, shard_op_clone(a, op, map));
  }
  shard_value_map_free(map);
  shard_op_erase(call);
}

bool shard_pass_inline(shard_module *m, const char *options, const shard_pass_context *cx) {
  shard_diag_engine *de = cx->de;
  (void)options;
  if (!m->top) return true;
  long inlined = 0;
  for (bool changed = true; changed;) {
    changed = false;
    op_vec calls = {0};
    shard_walk(m->top, S_collect_calls, &calls);
    for (uint32_t i = 0; i < calls.len; i++) {
      shard_op *call = calls.items[i];
      shard_op *fn = shard_call_callee_func(m, call);
      if (!fn || strcmp(fn->name, "func.func") != 0 || !fn->num_regions || !fn->regions[0].first ||
          fn->regions[0].first->next || shard_op_ancestor(call, "func.func") == fn)
        continue; /* external, multi-block or directly recursive: kept */
      shard_block *body = fn->regions[0].first;
      if (body->num_args != call->num_operands || !body->last || !body->last->name ||
          strcmp(body->last->name, "func.return") != 0 || body->last->num_operands != call->num_results)
        continue;
      if (++inlined > INLINE_MAX_CALLS) {
        SHARD_VEC_FREE(calls);
        shard_error(de, call->span, "-inline: more than %d calls to inline (a recursive call chain?)",
                    INLINE_MAX_CALLS);
        return false;
      }
      S_inline_call(m->arena, call, fn);
      changed = true;
    }
    SHARD_VEC_FREE(calls);
  }
  return shard_pass_symbol_dce(m, NULL, cx);
}

static bool S_collect_composites(shard_op *op, void *ctx) {
  if (!strcmp(op->name, "stablehlo.composite")) SHARD_VEC_PUSH(*(op_vec *)ctx, op);
  return true;
}

shard_op *shard_composite_to_call(shard_module *m, shard_op *c, bool keep_sharding, shard_diag_engine *de) {
  const shard_attr *d = shard_op_attr(c, "decomposition");
  if (!d || d->kind != SHARD_ATTR_SYMREF || d->u.symref.num != 1) {
    shard_error(de, c->span, "'stablehlo.composite' op requires attribute 'decomposition'");
    return NULL;
  }
  shard_arena *a = m->arena;
  shard_op *call = shard_pass_op_like(a, "func.call", c, 0);
  shard_call_set_callee(a, call, d->u.symref.path[0]);
  shard_attr *s = keep_sharding ? shard_op_attr(c, "sdy.sharding") : NULL;
  if (s) shard_op_set_attr(a, call, "sdy.sharding", s, false);
  shard_op_insert_before(c, call);
  for (uint32_t i = 0; i < c->num_results; i++) shard_value_replace_all_uses(&c->results[i], &call->results[i]);
  shard_op_erase(c);
  return call;
}

bool shard_pass_legalize_composite_to_call(shard_module *m, const char *options, const shard_pass_context *cx) {
  shard_diag_engine *de = cx->de;
  (void)options;
  if (!m->top) return true;
  op_vec ops = {0};
  shard_walk(m->top, S_collect_composites, &ops);
  bool ok = true;
  for (uint32_t k = 0; k < ops.len && ok; k++) ok = shard_composite_to_call(m, ops.items[k], false, de) != NULL;
  SHARD_VEC_FREE(ops);
  return ok;
}

bool shard_pass_keep_chlo(shard_module *m, const char *options, const shard_pass_context *cx) {
  (void)m;
  (void)options;
  (void)cx;
  return true;
}
