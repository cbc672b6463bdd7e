/* XLA's sdy round-trip import (xla/service/spmd/shardy/sdy_round_trip and
 * round_trip_common): a module that went through HLO with its Shardy
 * attributes kept as frontend attributes gets them back.
 *
 *  -xla-sdy-round-trip-import-shardy-attrs  `xla.sdy.meshes` on the module
 *      become sdy.mesh ops; `xla.sdy.sharding` of func arguments, of the
 *      `Sharding` and Python-callback custom calls and of send/recv/after_all
 *      become sdy.sharding (on other ops it is dropped: XLA copies frontend
 *      attributes onto ops it creates, so their shapes may not match);
 *      `xla.sdy.sharding_rule` becomes sdy.sharding_rule; the
 *      `xla.sdy.FuncResultSharding` custom calls give their sharding to the
 *      func results they reach and disappear; `mhlo.sharding` goes.
 *  -xla-sdy-import-sdy-custom-calls  `Sharding` custom calls become
 *      sdy.sharding_constraint, `xla.sdy.ShardingGroup` ones sdy.sharding_group.
 *  -xla-sdy-round-trip-shard-map-import  GlobalToLocalShape, a call of a
 *      `*xla.sdy.manual_computation_body*` func and LocalToGlobalShape become
 *      one sdy.manual_computation holding the func's body.
 *  -xla-sdy-import-constants  stablehlo.constant becomes sdy.constant.
 *  -xla-sdy-open-while-free-vars-sharding  a sharded value defined outside a
 *      stablehlo.while and used inside is used through a fully open
 *      sdy.sharding_constraint on the same mesh, put before the loop.
 *  -xla-sdy-round-trip-import-pipeline  the passes above in XLA's order. */
#include <stdlib.h>
#include <string.h>

#include "ir/call_graph.h"
#include "pass/pass.h"
#include "pass/pass_shardings.h"
#include "pipeline/pass_registry.h"
#include "xla/xla.h"

static bool S_is(const shard_op *op, const char *name) { return strcmp(op->name, name) == 0; }

static shard_block *S_module_block(shard_module *m) {
  if (!m->top->num_regions) return NULL;
  if (!m->top->regions[0].first) shard_region_add_block(m->arena, &m->top->regions[0]);
  return m->top->regions[0].first;
}

/* ---- meshes ------------------------------------------------------------------ */

static bool S_import_meshes(shard_module *m, shard_diag_engine *de) {
  const char *text = shard_xla_op_frontend(m->top, SHARD_XLA_MESHES);
  if (!text) return true;
  shard_attr *fa = shard_op_attr(m->top, SHARD_XLA_FRONTEND_ATTRS);
  shard_attr *dict = shard_xla_parse(m, text, SHARD_XLA_MESHES, SHARD_ATTR_DICT, fa->span, de);
  if (!dict) return false;
  shard_block *b = S_module_block(m);
  shard_op *after = NULL;
  for (uint32_t i = 0; i < dict->u.dict.num; i++) {
    shard_named_attr *e = &dict->u.dict.entries[i];
    if (!e->value || e->value->kind != SHARD_ATTR_SDY_MESH) {
      shard_error(de, fa->span, "%s: '%s' is not a #sdy.mesh", SHARD_XLA_MESHES, e->name);
      return false;
    }
    shard_op *op = shard_op_new_named(m->arena, "sdy.mesh", 0, NULL, 0, NULL, 0);
    op->span = m->top->span;
    shard_op_set_attr(m->arena, op, "sym_name", shard_attr_string(m->arena, e->name, (uint32_t)strlen(e->name)), true);
    shard_op_set_attr(m->arena, op, "mesh", e->value, true);
    if (after) shard_op_insert_after(after, op);
    else if (b->first) shard_op_insert_before(b->first, op);
    else shard_block_append(b, op);
    after = op;
  }
  shard_xla_op_set_frontend(m->arena, m->top, SHARD_XLA_MESHES, NULL);
  return true;
}

/* ---- shardings ------------------------------------------------------------- */

static bool S_is_python_callback(const shard_op *op) {
  static const char *const targets[] = {"xla_python_cpu_callback", "xla_python_gpu_callback",
                                        "xla_ffi_python_cpu_callback", "xla_ffi_python_gpu_callback", NULL};
  for (const char *const *t = targets; *t; t++)
    if (shard_xla_is_custom_call(op, *t)) return true;
  return false;
}

typedef struct import_ctx {
  shard_module *m;
  shard_op *func;
  shard_diag_engine *de;
  bool ok;
  SHARD_VEC(shard_op *) result_shardings; /* FuncResultSharding calls, handled after the walk */
} import_ctx;

/* The sharding goes to the func results the custom call reaches; other users
 * (inlined funcs that had result shardings) just see its operand. */
static void S_func_result_sharding(import_ctx *cx, shard_op *cc, shard_tensor_sharding *s) {
  shard_arena *a = cx->m->arena;
  for (shard_operand *u = cc->results[0].first_use; u; u = u->next_use)
    if (S_is(u->owner, "func.return") && u->owner->parent && u->owner->parent->parent == &cx->func->regions[0])
      shard_func_set_result_sharding(a, cx->func, shard_operand_index(u), s);
  shard_value_replace_all_uses(&cc->results[0], cc->operands[0].value);
  shard_op_erase(cc);
}

static bool S_import_op(shard_op *op, void *ctx) {
  import_ctx *cx = ctx;
  shard_arena *a = cx->m->arena;
  if (!S_is(op, "stablehlo.infeed") && !S_is(op, "stablehlo.outfeed"))
    shard_op_remove_attr(op, SHARD_XLA_MHLO_SHARDING);
  shard_attr *fa = shard_op_attr(op, SHARD_XLA_FRONTEND_ATTRS);
  if (!fa || fa->kind != SHARD_ATTR_DICT) return true;
  const char *rule = shard_xla_frontend_get(fa, SHARD_XLA_SHARDING_RULE);
  if (rule) {
    shard_attr *r = shard_xla_parse(cx->m, rule, SHARD_XLA_SHARDING_RULE, SHARD_ATTR_SDY_RULE, fa->span, cx->de);
    if (!r) return cx->ok = false;
    shard_op_set_attr(a, op, "sdy.sharding_rule", r, false);
    shard_xla_op_set_frontend(a, op, SHARD_XLA_SHARDING_RULE, NULL);
  }
  const char *text = shard_xla_frontend_get(fa, SHARD_XLA_SHARDING);
  if (!text) return true;
  bool keep = S_is(op, "stablehlo.send") || S_is(op, "stablehlo.recv") || S_is(op, "stablehlo.after_all") ||
              shard_xla_is_custom_call(op, SHARD_XLA_SHARDING_CUSTOM_CALL) || S_is_python_callback(op);
  bool result = shard_xla_is_custom_call(op, SHARD_XLA_FUNC_RESULT_SHARDING);
  if (keep || result) {
    shard_attr *pv = shard_xla_parse(cx->m, text, SHARD_XLA_SHARDING, SHARD_ATTR_SDY_PER_VALUE, fa->span, cx->de);
    if (!pv) return cx->ok = false;
    if (result) {
      if (op->num_operands != 1 || op->num_results != 1 || pv->u.per_value->num != 1) {
        shard_error(cx->de, op->span, "%s must have one operand, one result and one sharding",
                    SHARD_XLA_FUNC_RESULT_SHARDING);
        return cx->ok = false;
      }
      shard_op_set_attr(a, op, "sdy.sharding", pv, false);
      SHARD_VEC_PUSH(cx->result_shardings, op);
    } else {
      shard_op_set_attr(a, op, "sdy.sharding", pv, false);
    }
  }
  shard_xla_op_set_frontend(a, op, SHARD_XLA_SHARDING, NULL);
  return true;
}

static bool S_import_func(shard_module *m, shard_op *func, shard_diag_engine *de) {
  shard_arena *a = m->arena;
  shard_block *entry = func->num_regions ? func->regions[0].first : NULL;
  for (uint32_t i = 0; entry && i < entry->num_args; i++) {
    shard_value *arg = &entry->args[i];
    const char *text = shard_xla_arg_frontend(arg, SHARD_XLA_SHARDING);
    if (text) {
      shard_attr *fa = shard_value_attr(arg, SHARD_XLA_FRONTEND_ATTRS);
      shard_attr *s = shard_xla_parse(m, text, SHARD_XLA_SHARDING, SHARD_ATTR_SDY_SHARDING,
                                      fa->span.src ? fa->span : shard_value_span(arg), de);
      if (!s) return false;
      shard_value_set_attr(a, arg, "sdy.sharding", s);
      shard_xla_arg_set_frontend(a, arg, SHARD_XLA_SHARDING, NULL);
    }
    shard_value_remove_attr(arg, SHARD_XLA_MHLO_SHARDING);
  }
  for (uint32_t i = 0; i < shard_func_num_results(func); i++)
    shard_func_set_result_attr(a, func, i, SHARD_XLA_MHLO_SHARDING, NULL);
  if (!entry) return true;
  import_ctx cx = {.m = m, .func = func, .de = de, .ok = true};
  for (shard_op *op = entry->first; op && cx.ok; op = op->next) shard_walk(op, S_import_op, &cx);
  for (uint32_t i = 0; cx.ok && i < cx.result_shardings.len; i++) {
    shard_op *cc = cx.result_shardings.items[i];
    shard_attr *pv = shard_op_attr(cc, "sdy.sharding");
    S_func_result_sharding(&cx, cc, &pv->u.per_value->shardings[0]);
  }
  SHARD_VEC_FREE(cx.result_shardings);
  return cx.ok;
}

bool shard_pass_xla_round_trip_import_shardy_attrs(shard_module *m, const char *options, const shard_pass_context *cx) {
  shard_diag_engine *de = cx->de;
  (void)options;
  if (!S_import_meshes(m, de)) return false;
  shard_block *b = S_module_block(m);
  for (shard_op *op = b ? b->first : NULL; op; op = op->next)
    if (S_is(op, "func.func") && !S_import_func(m, op, de)) return false;
  return true;
}

/* ---- custom calls ------------------------------------------------------------ */

typedef struct op_list {
  SHARD_VEC(shard_op *) ops;
} op_list;

static bool S_collect_custom_calls(shard_op *op, void *ctx) {
  op_list *l = ctx;
  if (S_is(op, "stablehlo.custom_call")) SHARD_VEC_PUSH(l->ops, op);
  return true;
}

/* JAX marks the dims a sharding constraint leaves to propagation in the
 * Sharding custom call's backend_config: "unspecified_dims=[1,2]". Those
 * dims become open. */
static shard_tensor_sharding *S_open_unspecified(shard_arena *a, const shard_op *cc, shard_tensor_sharding *s) {
  shard_attr *bc = shard_op_attr(cc, "backend_config");
  const char *text = bc && bc->kind == SHARD_ATTR_STRING ? strstr(bc->u.str.data, "unspecified_dims=[") : NULL;
  if (!text) return s;
  shard_tensor_sharding *c = shard_sharding_clone(a, s);
  c->dims = s->rank ? SHARD_NEW_ARRAY(a, shard_dim_sharding, s->rank) : NULL;
  if (s->rank) memcpy(c->dims, s->dims, sizeof *s->dims * s->rank);
  for (const char *p = text + strlen("unspecified_dims=["); *p && *p != ']';) {
    char *end;
    long d = strtol(p, &end, 10);
    if (end == p) break;
    if (d >= 0 && (uint32_t)d < c->rank) c->dims[d].is_open = true;
    p = *end == ',' ? end + 1 : end;
    while (*p == ' ') p++;
  }
  return c;
}

bool shard_pass_xla_import_sdy_custom_calls(shard_module *m, const char *options, const shard_pass_context *cx) {
  shard_diag_engine *de = cx->de;
  (void)options;
  shard_arena *a = m->arena;
  op_list l = {{0}};
  shard_walk(m->top, S_collect_custom_calls, &l);
  bool ok = true;
  for (uint32_t i = 0; i < l.ops.len; i++) {
    shard_op *cc = l.ops.items[i];
    if (shard_xla_is_custom_call(cc, SHARD_XLA_SHARDING_CUSTOM_CALL)) {
      shard_attr *s = shard_op_attr(cc, "sdy.sharding");
      if (!s || s->kind != SHARD_ATTR_SDY_PER_VALUE || cc->num_operands != 1 || cc->num_results != 1 ||
          s->u.per_value->num != 1)
        continue; /* a GSPMD Sharding custom call: not XLA's round trip */
      shard_op *sc = shard_op_new_named(a, "sdy.sharding_constraint", 1, (shard_value *[]){cc->operands[0].value}, 1,
                                        &cc->results[0].type, 0);
      sc->span = cc->span;
      sc->loc = cc->loc;
      shard_op_set_attr(a, sc, "sharding",
                        shard_attr_sharding(a, S_open_unspecified(a, cc, &s->u.per_value->shardings[0])), true);
      shard_op_insert_before(cc, sc);
      shard_value_replace_all_uses(&cc->results[0], &sc->results[0]);
      shard_op_erase(cc);
    } else if (shard_xla_is_custom_call(cc, SHARD_XLA_SHARDING_GROUP)) {
      if (cc->num_results && shard_value_num_uses(&cc->results[0])) {
        shard_error(de, cc->span,
                    "failed to legalize operation 'stablehlo.custom_call' that was explicitly marked illegal");
        shard_error(de, cc->span, "%s CustomCallOp should have no uses.", SHARD_XLA_SHARDING_GROUP);
        ok = false;
        continue;
      }
      const char *id = shard_xla_op_frontend(cc, SHARD_XLA_GROUP_ID);
      shard_attr *fa = shard_op_attr(cc, SHARD_XLA_FRONTEND_ATTRS);
      shard_attr *g = id ? shard_xla_parse(m, id, SHARD_XLA_GROUP_ID, SHARD_ATTR_INT, fa->span, de) : NULL;
      if (!g || cc->num_operands != 1) {
        if (!id) shard_error(de, cc->span, "%s CustomCallOp has no %s", SHARD_XLA_SHARDING_GROUP, SHARD_XLA_GROUP_ID);
        ok = false;
        continue;
      }
      shard_op *sg =
          shard_op_new_named(a, "sdy.sharding_group", 1, (shard_value *[]){cc->operands[0].value}, 0, NULL, 0);
      sg->span = cc->span;
      sg->loc = cc->loc;
      shard_op_set_attr(a, sg, "group_id", shard_attr_int(a, g->u.integer.value, shard_type_other(a, "i64")), true);
      shard_op_insert_before(cc, sg);
      shard_op_erase(cc);
    }
  }
  SHARD_VEC_FREE(l.ops);
  return ok;
}

/* ---- constants ---------------------------------------------------------------- */

static bool S_collect_constants(shard_op *op, void *ctx) {
  op_list *l = ctx;
  if (S_is(op, "stablehlo.constant")) SHARD_VEC_PUSH(l->ops, op);
  return true;
}

bool shard_pass_xla_import_constants(shard_module *m, const char *options, const shard_pass_context *cx) {
  (void)options;
  op_list l = {{0}};
  shard_walk(m->top, S_collect_constants, &l);
  for (uint32_t i = 0; i < l.ops.len; i++) {
    shard_op *c = l.ops.items[i];
    if (c->num_results != 1) continue;
    shard_op *n = shard_op_new_named(m->arena, "sdy.constant", 0, NULL, 1, &c->results[0].type, 0);
    n->span = c->span;
    n->loc = c->loc;
    for (uint32_t k = 0; k < c->num_attrs; k++)
      shard_op_set_attr(m->arena, n, c->attrs[k].name, c->attrs[k].value, c->attrs[k].inherent);
    n->results[0].name = c->results[0].name;
    shard_op_insert_before(c, n);
    shard_value_replace_all_uses(&c->results[0], &n->results[0]);
    shard_op_erase(c);
  }
  SHARD_VEC_FREE(l.ops);
  return true;
}

/* ---- while free variables ------------------------------------------------- */

typedef struct free_vars {
  shard_op *loop;
  SHARD_VEC(shard_value *) vals;
} free_vars;

static bool S_inside(const shard_op *op, const shard_op *anc) {
  for (const shard_op *p = op; p; p = shard_op_parent_op(p))
    if (p == anc) return true;
  return false;
}

static bool S_defined_outside(const shard_value *v, const shard_op *loop) {
  if (v->def) return !S_inside(v->def, loop);
  const shard_op *owner = v->block && v->block->parent ? v->block->parent->parent : NULL;
  return !owner || !S_inside(owner, loop);
}

static bool S_collect_free(shard_op *op, void *ctx) {
  free_vars *fv = ctx;
  if (op == fv->loop) return true;
  for (uint32_t i = 0; i < op->num_operands; i++) {
    shard_value *v = op->operands[i].value;
    if (!S_defined_outside(v, fv->loop)) continue;
    bool seen = false;
    for (uint32_t k = 0; k < fv->vals.len && !seen; k++) seen = fv->vals.items[k] == v;
    if (!seen) SHARD_VEC_PUSH(fv->vals, v);
  }
  return true;
}

static bool S_collect_whiles(shard_op *op, void *ctx) {
  op_list *l = ctx;
  if (S_is(op, "stablehlo.while")) SHARD_VEC_PUSH(l->ops, op);
  return true;
}

bool shard_pass_xla_open_while_free_vars_sharding(shard_module *m, const char *options, const shard_pass_context *cx) {
  (void)options;
  shard_arena *a = m->arena;
  op_list l = {{0}};
  shard_walk(m->top, S_collect_whiles, &l);
  for (uint32_t w = 0; w < l.ops.len; w++) {
    shard_op *loop = l.ops.items[w];
    free_vars fv = {.loop = loop};
    for (uint32_t r = 0; r < loop->num_regions; r++)
      for (shard_block *b = loop->regions[r].first; b; b = b->next)
        for (shard_op *op = b->first; op; op = op->next) shard_walk(op, S_collect_free, &fv);
    for (uint32_t k = 0; k < fv.vals.len; k++) {
      shard_value *v = fv.vals.items[k];
      if (v->def && (S_is(v->def, "stablehlo.constant") || S_is(v->def, "sdy.constant"))) continue;
      shard_tensor_sharding *s = shard_value_sharding(v);
      if (!s || !shard_type_is_static_tensor(v->type)) continue;
      shard_tensor_sharding *open = shard_sharding_open(a, s->mesh_name, s->inline_mesh, v->type->rank, true);
      shard_op *sc = shard_op_new_named(a, "sdy.sharding_constraint", 1, &v, 1, &v->type, 0);
      sc->span = loop->span;
      sc->loc = loop->loc;
      shard_op_set_attr(a, sc, "sharding", shard_attr_sharding(a, open), true);
      shard_op_insert_before(loop, sc);
      for (shard_operand *u = v->first_use, *next; u; u = next) {
        next = u->next_use;
        if (u->owner != sc && u->owner != loop && S_inside(u->owner, loop)) shard_operand_set(u, &sc->results[0]);
      }
    }
    SHARD_VEC_FREE(fv.vals);
  }
  SHARD_VEC_FREE(l.ops);
  return true;
}

/* ---- manual computations (shard maps) ---------------------------------------- */

static bool S_is_body_call(const shard_op *op) {
  if (!S_is(op, "func.call")) return false;
  const char *callee = shard_call_callee(op);
  return callee && strstr(callee, SHARD_XLA_MANUAL_BODY) != NULL;
}

static bool S_collect_body_calls(shard_op *op, void *ctx) {
  op_list *l = ctx;
  if (S_is_body_call(op)) SHARD_VEC_PUSH(l->ops, op);
  return true;
}

/* Moves the blocks of func's body into `to`; func.return becomes sdy.return. */
static void S_move_body(shard_arena *a, shard_op *func, shard_region *to) {
  shard_pass_move_body(a, &func->regions[0], to, "func.return", "sdy.return", true);
}

/* The attribute of frontend entry `key` of a body call, parsed; absent
 * shardings are an empty list. */
static shard_attr *S_call_attr(shard_module *m, shard_op *call, const char *key, shard_attr_kind kind,
                               shard_diag_engine *de, bool *ok) {
  const char *text = shard_xla_op_frontend(call, key);
  if (!text) {
    if (kind == SHARD_ATTR_SDY_PER_VALUE) return shard_attr_per_value(m->arena, NULL, 0);
    shard_attr *e = shard_attr_new(m->arena, SHARD_ATTR_SDY_MANUAL_AXES);
    return e;
  }
  shard_attr *fa = shard_op_attr(call, SHARD_XLA_FRONTEND_ATTRS);
  shard_attr *a = shard_xla_parse(m, text, key, kind, fa->span, de);
  if (!a) *ok = false;
  return a;
}

bool shard_pass_xla_round_trip_shard_map_import(shard_module *m, const char *options, const shard_pass_context *cx) {
  shard_diag_engine *de = cx->de;
  (void)options;
  shard_arena *a = m->arena;
  op_list l = {{0}};
  shard_walk(m->top, S_collect_body_calls, &l);
  bool ok = true;
  SHARD_VEC(shard_op *) bodies = {0};
  for (uint32_t i = 0; i < l.ops.len; i++) {
    shard_op *call = l.ops.items[i];
    shard_op *func = shard_call_callee_func(m, call);
    bool again = false;
    for (uint32_t k = 0; k < bodies.len && !again; k++) again = bodies.items[k] == func;
    if (!func || !func->num_regions || !func->regions[0].first || again) {
      shard_error(de, call->span, "'func.call' op expected a unique FuncOp per @%s call", SHARD_XLA_MANUAL_BODY);
      shard_error(de, call->span, "failed to legalize operation 'func.call'");
      ok = false;
      continue;
    }
    SHARD_VEC_PUSH(bodies, func);
    bool parsed = true;
    shard_attr *in = S_call_attr(m, call, SHARD_XLA_IN_SHARDINGS, SHARD_ATTR_SDY_PER_VALUE, de, &parsed);
    shard_attr *out = S_call_attr(m, call, SHARD_XLA_OUT_SHARDINGS, SHARD_ATTR_SDY_PER_VALUE, de, &parsed);
    shard_attr *axes = S_call_attr(m, call, SHARD_XLA_MANUAL_AXES, SHARD_ATTR_SDY_MANUAL_AXES, de, &parsed);
    if (!parsed) {
      ok = false;
      continue;
    }
    /* Operands: through the GlobalToLocalShape custom call. A zero-sized
     * operand may have been replaced by a constant: it is the custom call's
     * operand at the same position. */
    uint32_t nin = call->num_operands;
    shard_value **ins = nin ? SHARD_NEW_ARRAY(a, shard_value *, nin) : NULL;
    shard_op *g2l = NULL;
    for (uint32_t k = 0; k < nin && !g2l; k++) {
      shard_op *d = call->operands[k].value->def;
      if (d && shard_xla_is_custom_call(d, SHARD_XLA_GLOBAL_TO_LOCAL)) g2l = d;
    }
    for (uint32_t k = 0; k < nin; k++) {
      shard_value *v = call->operands[k].value;
      if (g2l && v->def == g2l && v->index < g2l->num_operands) ins[k] = g2l->operands[v->index].value;
      else if (g2l && g2l->num_operands == nin) ins[k] = g2l->operands[k].value;
      else ins[k] = v;
    }
    /* Results: through the LocalToGlobalShape custom call when there is one. */
    shard_op *l2g = NULL;
    if (call->num_results && call->results[0].first_use &&
        shard_xla_is_custom_call(call->results[0].first_use->owner, SHARD_XLA_LOCAL_TO_GLOBAL))
      l2g = call->results[0].first_use->owner;
    uint32_t nout = call->num_results;
    shard_type **types = nout ? SHARD_NEW_ARRAY(a, shard_type *, nout) : NULL;
    for (uint32_t k = 0; k < nout; k++) {
      types[k] = call->results[k].type;
      if (l2g)
        for (shard_operand *u = call->results[k].first_use; u; u = u->next_use)
          if (u->owner == l2g && shard_operand_index(u) < l2g->num_results)
            types[k] = l2g->results[shard_operand_index(u)].type;
    }
    shard_op *mc = shard_op_new_named(a, "sdy.manual_computation", nin, ins, nout, types, 1);
    mc->span = call->span;
    mc->loc = call->loc;
    shard_op_set_attr(a, mc, "in_shardings", in, true);
    shard_op_set_attr(a, mc, "out_shardings", out, true);
    shard_op_set_attr(a, mc, "manual_axes", axes, true);
    S_move_body(a, func, &mc->regions[0]);
    shard_op_insert_before(call, mc);
    for (uint32_t k = 0; k < nout; k++) {
      if (l2g)
        for (shard_operand *u = call->results[k].first_use; u; u = u->next_use)
          if (u->owner == l2g && shard_operand_index(u) < l2g->num_results)
            shard_value_replace_all_uses(&l2g->results[shard_operand_index(u)], &mc->results[k]);
      shard_value_replace_all_uses(&call->results[k], &mc->results[k]);
    }
    if (l2g) shard_op_erase(l2g);
    shard_op_erase(call);
    if (g2l) {
      bool used = false;
      for (uint32_t r = 0; r < g2l->num_results && !used; r++) used = shard_value_num_uses(&g2l->results[r]) > 0;
      if (!used) shard_op_erase(g2l);
    }
  }
  for (uint32_t k = 0; k < bodies.len; k++)
    if (!bodies.items[k]->regions[0].first) shard_op_erase(bodies.items[k]);
  SHARD_VEC_FREE(bodies);
  SHARD_VEC_FREE(l.ops);
  return ok;
}

/* ---- the import pipeline --------------------------------------------------------- */

static bool S_import_pipeline(shard_module *m, bool constants, const shard_pass_context *cx) {
  shard_diag_engine *de = cx->de;
  const shard_pipeline_step steps[] = {
      {"symbol-dce", NULL},
      {"xla-sdy-prepare-callbacks", NULL},
      {constants ? "xla-sdy-import-constants" : NULL, NULL},
      {"xla-sdy-round-trip-import-shardy-attrs", NULL},
      {"xla-sdy-round-trip-shard-map-import", NULL},
      {"xla-sdy-round-trip-remove-size-one-axes", NULL},
      {"xla-sdy-import-sdy-custom-calls", NULL},
      {"xla-sdy-open-while-free-vars-sharding", NULL},
      {"xla-sdy-import-uninlineable-func-calls", NULL},
  };
  unsigned before = de->errors;
  for (size_t i = 0; i < sizeof steps / sizeof *steps; i++) {
    if (!steps[i].pass) continue;
    if (!shard_pass_run(steps[i].pass, m, steps[i].options, cx) || de->errors != before) return false;
  }
  return true;
}

bool shard_pass_xla_round_trip_import_pipeline(shard_module *m, const char *options, const shard_pass_context *cx) {
  bool constants = true;
  shard_pass_option_bool(options, "enable-constant-import", &constants);
  return S_import_pipeline(m, constants, cx);
}

/* The pipeline's name before XLA gave it the xla- prefix, which did not
 * import constants. */
bool shard_pass_sdy_round_trip_import_pipeline(shard_module *m, const char *options, const shard_pass_context *cx) {
  bool constants = false;
  shard_pass_option_bool(options, "enable-constant-import", &constants);
  return S_import_pipeline(m, constants, cx);
}

/* ---- Python callbacks ---------------------------------------------------------- */

static bool S_collect_callbacks(shard_op *op, void *ctx) {
  op_list *l = ctx;
  if (S_is_python_callback(op)) SHARD_VEC_PUSH(l->ops, op);
  return true;
}

/* -xla-sdy-prepare-callbacks: what StableHLO's prepare-for-HLO-export does to
 * Python callbacks without results (no results, or an unused empty tuple):
 * they get one result of their first operand's type and layout, so that XLA
 * keeps them and their sharding. */
bool shard_pass_xla_prepare_callbacks(shard_module *m, const char *options, const shard_pass_context *cx) {
  (void)options;
  shard_arena *a = m->arena;
  op_list l = {{0}};
  shard_walk(m->top, S_collect_callbacks, &l);
  for (uint32_t i = 0; i < l.ops.len; i++) {
    shard_op *cc = l.ops.items[i];
    if (!cc->num_operands) continue;
    bool empty =
        cc->num_results == 0 || (cc->num_results == 1 && !cc->results[0].first_use &&
                                 cc->results[0].type->kind == SHARD_TYPE_TUPLE && cc->results[0].type->num_inputs == 0);
    if (!empty) continue;
    shard_value **ins = SHARD_NEW_ARRAY(a, shard_value *, cc->num_operands);
    for (uint32_t k = 0; k < cc->num_operands; k++) ins[k] = cc->operands[k].value;
    shard_op *n = shard_op_new_named(a, "stablehlo.custom_call", cc->num_operands, ins, 1, &ins[0]->type, 0);
    n->span = cc->span;
    n->loc = cc->loc;
    for (uint32_t k = 0; k < cc->num_attrs; k++)
      shard_op_set_attr(a, n, cc->attrs[k].name, cc->attrs[k].value, cc->attrs[k].inherent);
    shard_attr *ol = shard_op_attr(cc, "operand_layouts");
    if (ol && ol->kind == SHARD_ATTR_ARRAY && ol->u.array.num) {
      shard_attr *rl = shard_attr_new(a, SHARD_ATTR_ARRAY);
      rl->u.array.elems = SHARD_NEW_ARRAY(a, shard_attr *, 1);
      rl->u.array.elems[0] = ol->u.array.elems[0];
      rl->u.array.num = 1;
      shard_op_set_attr(a, n, "result_layouts", rl, true);
    }
    shard_op_insert_before(cc, n);
    shard_op_erase(cc);
  }
  SHARD_VEC_FREE(l.ops);
  return true;
}
