/* XLA's sdy round-trip export (xla/service/spmd/shardy/sdy_round_trip): a
 * module about to go through HLO keeps its Shardy attributes as frontend
 * attributes, escaped as XLA escapes them, next to the `mhlo.sharding`
 * (HloSharding text) XLA itself reads.
 *
 *  -xla-sdy-round-trip-export-ops  sdy.constant becomes stablehlo.constant,
 *      sdy.sharding_constraint and sdy.reshard a `Sharding` custom call with
 *      the sharding, sdy.sharding_group an `xla.sdy.ShardingGroup` custom
 *      call with the group id.
 *  -xla-sdy-round-trip-shard-map-export  each sdy.manual_computation becomes
 *      GlobalToLocalShape, a call of a new private func
 *      `xla.sdy.manual_computation_body` (the body; in/out shardings and
 *      manual axes as frontend attributes of the call) and LocalToGlobalShape.
 *  -xla-sdy-round-trip-export-shardy-attrs  the meshes go into `xla.sdy.meshes`
 *      on the module; func argument and op shardings into `xla.sdy.sharding`
 *      (plus `mhlo.sharding`); a func result sharding into an
 *      `xla.sdy.FuncResultSharding` custom call on the returned value (plus
 *      `mhlo.sharding` on the result); sharding rules into
 *      `xla.sdy.sharding_rule`.
 *  -xla-sdy-round-trip-export-pipeline  the three above.
 *  -xla-sdy-round-trip-testing-pipeline  export then import (XLA converts to
 *      HLO and back in between: the text it keeps is what both sides read,
 *      and constants that control flow reads from outside are sunk into its
 *      regions, as HLO computations capture nothing; funcs the entry does
 *      not reach are dropped, as HLO keeps only the entry's computations).
 *  -xla-sdy-export-named-computations  Shardy's export of named computations,
 *      with the out shardings on the new funcs' results and no
 *      sdy.original_func_name (XLA's variant). */
#include <stdlib.h>
#include <string.h>

#include "convert/convert.h"
#include "ir/call_graph.h"
#include "ir/clone.h"
#include "pass/pass.h"
#include "pass/pass_shardings.h"
#include "pipeline/pass_registry.h"
#include "xla/xla.h"

static bool S_is(const shard_op *op, const char *name) { return strcmp(op->name, name) == 0; }

typedef struct collect {
  const char *const *names;
  SHARD_VEC(shard_op *) ops;
} collect;

static bool S_collect(shard_op *op, void *ctx) {
  collect *c = ctx;
  for (const char *const *n = c->names; *n; n++)
    if (S_is(op, *n)) SHARD_VEC_PUSH(c->ops, op);
  return true;
}

/* ---- HloSharding text ----------------------------------------------------------- */

/* The `mhlo.sharding` text of an sdy sharding (XLA's convertToHloSharding):
 * NULL when its mesh is unknown or the conversion fails. */
static char *S_hlo_text(shard_module *m, const shard_tensor_sharding *s, shard_diag_engine *de) {
  const shard_mesh *mesh = shard_module_sharding_mesh(m, s);
  if (!mesh) return NULL;
  shard_conv_ctx cx;
  shard_conv_ctx_init(&cx, m->arena, de);
  shard_conv c = {
      .kind = SHARD_CONV_NAMED, .mesh = (shard_mesh *)mesh, .sharding = (shard_tensor_sharding *)s, .span = s->span};
  bool replicated = shard_mesh_is_empty(mesh) || !mesh->num_axes;
  shard_hlo_sharding *h = NULL;
  if (shard_mesh_is_maximal(mesh)) {
    c.kind = SHARD_CONV_MAXIMAL;
    c.device = mesh->device_ids[0];
  } else if (replicated) {
    c.kind = SHARD_CONV_REPLICATED;
  }
  h = shard_hlo_from_conv(&cx, &c, false);
  if (!h) return NULL;
  shard_buf b = {0};
  shard_hlo_print(&b, h);
  char *out = shard_arena_strndup(m->arena, b.data ? b.data : "", b.len);
  shard_buf_free(&b);
  return out;
}

/* The tuple text {{a}, {b}} of several shardings, or the one sharding's. */
static char *S_hlo_text_list(shard_module *m, const shard_sharding_per_value *pv, shard_diag_engine *de) {
  if (pv->num == 1) return S_hlo_text(m, &pv->shardings[0], de);
  shard_buf b = {0};
  shard_buf_putc(&b, '{');
  bool ok = true;
  for (uint32_t i = 0; i < pv->num && ok; i++) {
    char *t = S_hlo_text(m, &pv->shardings[i], de);
    if (!t) ok = false;
    else shard_buf_printf(&b, "%s%s", i ? ", " : "", t);
  }
  shard_buf_putc(&b, '}');
  char *out = ok ? shard_arena_strndup(m->arena, b.data, b.len) : NULL;
  shard_buf_free(&b);
  return out;
}

static char *S_escaped_text(shard_arena *a, const shard_attr *attr) {
  return shard_xla_escape(a, shard_xla_attr_text(a, attr));
}

/* ---- export ops ------------------------------------------------------------------ */

static shard_op *S_replace_by_custom_call(shard_module *m, shard_op *op, const char *target) {
  shard_arena *a = m->arena;
  shard_value **ins = op->num_operands ? SHARD_NEW_ARRAY(a, shard_value *, op->num_operands) : NULL;
  for (uint32_t i = 0; i < op->num_operands; i++) ins[i] = op->operands[i].value;
  shard_type **types = op->num_results ? SHARD_NEW_ARRAY(a, shard_type *, op->num_results) : NULL;
  for (uint32_t i = 0; i < op->num_results; i++) types[i] = op->results[i].type;
  shard_op *cc = shard_xla_custom_call(a, target, op->num_operands, ins, op->num_results, types);
  cc->span = op->span;
  cc->loc = op->loc;
  shard_op_insert_before(op, cc);
  for (uint32_t i = 0; i < op->num_results; i++) shard_value_replace_all_uses(&op->results[i], &cc->results[i]);
  shard_op_erase(op);
  return cc;
}

bool shard_pass_xla_round_trip_export_ops(shard_module *m, const char *options, const shard_pass_context *cx) {
  (void)options;
  shard_arena *a = m->arena;
  static const char *const names[] = {"sdy.constant", "sdy.sharding_constraint", "sdy.reshard", "sdy.sharding_group",
                                      NULL};
  collect c = {names, {0}};
  shard_walk(m->top, S_collect, &c);
  for (uint32_t i = 0; i < c.ops.len; i++) {
    shard_op *op = c.ops.items[i];
    if (S_is(op, "sdy.constant")) {
      shard_xla_constant_from_sdy(a, op)->loc = op->loc;
      shard_op_erase(op);
    } else if (S_is(op, "sdy.sharding_group")) {
      shard_attr *g = shard_op_attr(op, "group_id");
      shard_op *cc = S_replace_by_custom_call(m, op, SHARD_XLA_SHARDING_GROUP);
      shard_op_set_attr(a, cc, "has_side_effect", shard_attr_new(a, SHARD_ATTR_BOOL), true);
      shard_op_attr(cc, "has_side_effect")->u.boolean = true;
      if (g && g->kind == SHARD_ATTR_INT)
        shard_xla_op_set_frontend(a, cc, SHARD_XLA_GROUP_ID,
                                  shard_arena_printf(a, "%lld : i64", (long long)g->u.integer.value));
    } else {
      shard_attr *s = shard_op_attr(op, "sharding");
      shard_op *cc = S_replace_by_custom_call(m, op, SHARD_XLA_SHARDING_CUSTOM_CALL);
      if (s && s->kind == SHARD_ATTR_SDY_SHARDING)
        shard_op_set_attr(a, cc, "sdy.sharding", shard_attr_per_value(a, s->u.sharding, 1), false);
    }
  }
  SHARD_VEC_FREE(c.ops);
  return true;
}

/* ---- shard map export ------------------------------------------------------------ */

static shard_attr *S_true(shard_arena *a) {
  shard_attr *t = shard_attr_new(a, SHARD_ATTR_BOOL);
  t->u.boolean = true;
  return t;
}

static bool S_collect_manual(shard_op *op, void *ctx) {
  if (S_is(op, "sdy.manual_computation")) SHARD_VEC_PUSH(((collect *)ctx)->ops, op);
  return true;
}

bool shard_pass_xla_round_trip_shard_map_export(shard_module *m, const char *options, const shard_pass_context *cx) {
  (void)options;
  shard_arena *a = m->arena;
  collect c = {NULL, {0}};
  shard_walk_post(m->top, S_collect_manual, &c);
  shard_symbol_table st;
  shard_symbol_table_init(&st, m);
  /* in MLIR's walk order (post-order): an inner manual computation goes
   * before the outer one, whose body then moves with its call */
  for (uint32_t i = 0; i < c.ops.len; i++) {
    shard_op *mc = c.ops.items[i];
    shard_block *body = mc->num_regions ? mc->regions[0].first : NULL;
    if (!body) continue;
    /* GlobalToLocalShape: global operands in, the body's local types out */
    shard_op *g2l = NULL;
    if (mc->num_operands) {
      shard_value **ins = SHARD_NEW_ARRAY(a, shard_value *, mc->num_operands);
      shard_type **types = SHARD_NEW_ARRAY(a, shard_type *, mc->num_operands);
      for (uint32_t k = 0; k < mc->num_operands; k++) {
        ins[k] = mc->operands[k].value;
        types[k] = k < body->num_args ? body->args[k].type : ins[k]->type;
      }
      g2l = shard_xla_custom_call(a, SHARD_XLA_GLOBAL_TO_LOCAL, mc->num_operands, ins, mc->num_operands, types);
      g2l->span = mc->span;
      shard_op_set_attr(a, g2l, "has_side_effect", S_true(a), true);
      shard_op_insert_before(mc, g2l);
    }
    /* the body func */
    shard_op *term = body->last;
    uint32_t nres = term ? term->num_operands : 0;
    shard_type **in_types = body->num_args ? SHARD_NEW_ARRAY(a, shard_type *, body->num_args) : NULL;
    for (uint32_t k = 0; k < body->num_args; k++) in_types[k] = body->args[k].type;
    shard_type **out_types = nres ? SHARD_NEW_ARRAY(a, shard_type *, nres) : NULL;
    for (uint32_t k = 0; k < nres; k++) out_types[k] = term->operands[k].value->type;
    shard_op *func = shard_op_new_named(a, "func.func", 0, NULL, 0, NULL, 1);
    func->span = mc->span;
    shard_type *ft = shard_type_function(a, in_types, body->num_args, out_types, nres);
    shard_attr *fta = shard_attr_new(a, SHARD_ATTR_TYPE);
    fta->u.type = ft;
    shard_op_set_attr(a, func, "function_type", fta, true);
    shard_op_set_attr(a, func, "sym_name",
                      shard_attr_string(a, SHARD_XLA_MANUAL_BODY, (uint32_t)strlen(SHARD_XLA_MANUAL_BODY)), true);
    shard_op_set_attr(a, func, "sym_visibility", shard_attr_string(a, "private", 7), true);
    shard_pass_move_body(a, &mc->regions[0], &func->regions[0], "sdy.return", "func.return", false);
    const char *name = shard_symbol_table_insert(&st, func);
    /* the call */
    shard_value **args = mc->num_operands ? SHARD_NEW_ARRAY(a, shard_value *, mc->num_operands) : NULL;
    for (uint32_t k = 0; k < mc->num_operands; k++) args[k] = &g2l->results[k];
    shard_op *call = shard_op_new_named(a, "func.call", mc->num_operands, args, nres, out_types, 0);
    call->span = mc->span;
    call->loc = mc->loc;
    shard_call_set_callee(a, call, name);
    static const char *const keys[] = {"in_shardings", "out_shardings", "manual_axes"};
    static const char *const fkeys[] = {SHARD_XLA_IN_SHARDINGS, SHARD_XLA_OUT_SHARDINGS, SHARD_XLA_MANUAL_AXES};
    for (int k = 0; k < 3; k++) {
      shard_attr *v = shard_op_attr(mc, keys[k]);
      if (!v) continue;
      const char *text;
      if (v->kind == SHARD_ATTR_SDY_MANUAL_AXES) {
        shard_buf b = {0};
        shard_buf_puts(&b, "#sdy<manual_axes");
        shard_sdy_attr_print(&b, v);
        shard_buf_putc(&b, '>');
        text = shard_xla_escape(a, shard_arena_strndup(a, b.data, b.len));
        shard_buf_free(&b);
      } else {
        text = S_escaped_text(a, v);
      }
      shard_xla_op_set_frontend(a, call, fkeys[k], text);
    }
    shard_op_insert_before(mc, call);
    /* LocalToGlobalShape: back to the global types */
    if (mc->num_results) {
      shard_value **outs = SHARD_NEW_ARRAY(a, shard_value *, mc->num_results);
      shard_type **gtypes = SHARD_NEW_ARRAY(a, shard_type *, mc->num_results);
      for (uint32_t k = 0; k < mc->num_results; k++) {
        outs[k] = &call->results[k];
        gtypes[k] = mc->results[k].type;
      }
      shard_op *l2g =
          shard_xla_custom_call(a, SHARD_XLA_LOCAL_TO_GLOBAL, mc->num_results, outs, mc->num_results, gtypes);
      l2g->span = mc->span;
      shard_op_set_attr(a, l2g, "has_side_effect", S_true(a), true);
      shard_op_insert_before(mc, l2g);
      for (uint32_t k = 0; k < mc->num_results; k++) shard_value_replace_all_uses(&mc->results[k], &l2g->results[k]);
    }
    shard_op_erase(mc);
  }
  shard_symbol_table_release(&st);
  SHARD_VEC_FREE(c.ops);
  return true;
}

/* ---- shardy attributes ---------------------------------------------------------- */

typedef struct export_ctx {
  shard_module *m;
  shard_diag_engine *de;
  bool ok;
} export_ctx;

static bool S_export_op(shard_op *op, void *ctx) {
  export_ctx *cx = ctx;
  shard_arena *a = cx->m->arena;
  shard_attr *rule = shard_op_attr(op, "sdy.sharding_rule");
  if (rule && rule->kind == SHARD_ATTR_SDY_RULE) {
    shard_xla_op_set_frontend(a, op, SHARD_XLA_SHARDING_RULE, S_escaped_text(a, rule));
    shard_op_remove_attr(op, "sdy.sharding_rule");
  }
  shard_attr *s = shard_op_attr(op, "sdy.sharding");
  if (!s || s->kind != SHARD_ATTR_SDY_PER_VALUE) return true;
  shard_xla_op_set_frontend(a, op, SHARD_XLA_SHARDING, S_escaped_text(a, s));
  char *hlo = S_hlo_text_list(cx->m, s->u.per_value, cx->de);
  if (hlo) shard_op_set_attr(a, op, SHARD_XLA_MHLO_SHARDING, shard_attr_string(a, hlo, (uint32_t)strlen(hlo)), false);
  shard_op_remove_attr(op, "sdy.sharding");
  return true;
}

static void S_export_func(export_ctx *cx, shard_op *func) {
  shard_module *m = cx->m;
  shard_arena *a = m->arena;
  shard_block *entry = func->num_regions ? func->regions[0].first : NULL;
  for (uint32_t i = 0; entry && i < entry->num_args; i++) {
    shard_value *arg = &entry->args[i];
    shard_attr *s = shard_value_attr(arg, "sdy.sharding");
    if (!s || s->kind != SHARD_ATTR_SDY_SHARDING) continue;
    shard_xla_arg_set_frontend(a, arg, SHARD_XLA_SHARDING, S_escaped_text(a, s));
    char *hlo = S_hlo_text(m, s->u.sharding, cx->de);
    if (hlo) shard_value_set_attr(a, arg, SHARD_XLA_MHLO_SHARDING, shard_attr_string(a, hlo, (uint32_t)strlen(hlo)));
    shard_value_remove_attr(arg, "sdy.sharding");
  }
  shard_op *ret = entry ? shard_block_terminator(entry) : NULL;
  for (uint32_t i = 0; i < shard_func_num_results(func); i++) {
    shard_tensor_sharding *s = shard_func_result_sharding(func, i);
    if (!s) continue;
    char *hlo = S_hlo_text(m, s, cx->de);
    shard_func_set_result_attr(a, func, i, "sdy.sharding", NULL);
    if (hlo)
      shard_func_set_result_attr(a, func, i, SHARD_XLA_MHLO_SHARDING, shard_attr_string(a, hlo, (uint32_t)strlen(hlo)));
    if (!ret || !S_is(ret, "func.return") || i >= ret->num_operands) continue;
    shard_value *v = ret->operands[i].value;
    shard_op *cc = shard_xla_custom_call(a, SHARD_XLA_FUNC_RESULT_SHARDING, 1, &v, 1, &v->type);
    cc->span = ret->span;
    shard_op_set_attr(a, cc, "has_side_effect", S_true(a), true);
    shard_xla_op_set_frontend(a, cc, SHARD_XLA_SHARDING, S_escaped_text(a, shard_attr_per_value(a, s, 1)));
    shard_op_insert_before(ret, cc);
    shard_operand_set(&ret->operands[i], &cc->results[0]);
  }
  if (entry)
    for (shard_op *op = entry->first; op; op = op->next) shard_walk(op, S_export_op, cx);
}

bool shard_pass_xla_round_trip_export_shardy_attrs(shard_module *m, const char *options, const shard_pass_context *cx) {
  shard_diag_engine *de = cx->de;
  (void)options;
  shard_arena *a = m->arena;
  export_ctx ec = {m, de, true};
  shard_block *b = m->top->num_regions ? m->top->regions[0].first : NULL;
  for (shard_op *op = b ? b->first : NULL; op; op = op->next)
    if (S_is(op, "func.func")) S_export_func(&ec, op);
  /* the meshes, last: the shardings above were converted on them */
  shard_buf text = {0};
  uint32_t n = 0;
  for (shard_op *op = b ? b->first : NULL, *next; op; op = next) {
    next = op->next;
    if (!S_is(op, "sdy.mesh")) continue;
    shard_attr *name = shard_op_attr(op, "sym_name"), *mesh = shard_op_attr(op, "mesh");
    if (!name || !mesh) continue;
    shard_buf_printf(&text, "%s%s = %s", n++ ? ", " : "{", name->u.str.data, shard_xla_attr_text(a, mesh));
    shard_op_erase(op);
  }
  if (n) {
    shard_buf_putc(&text, '}');
    shard_xla_op_set_frontend(a, m->top, SHARD_XLA_MESHES,
                              shard_xla_escape(a, shard_arena_strndup(a, text.data, text.len)));
  }
  shard_buf_free(&text);
  return ec.ok;
}

/* ---- pipelines ------------------------------------------------------------------- */

static bool S_run(shard_module *m, const char *const *passes, const shard_pass_context *cx) {
  shard_diag_engine *de = cx->de;
  unsigned before = de->errors;
  for (const char *const *p = passes; *p; p++)
    if (!shard_pass_run(*p, m, NULL, cx) || de->errors != before) return false;
  return true;
}

bool shard_pass_xla_round_trip_export_pipeline(shard_module *m, const char *options, const shard_pass_context *cx) {
  (void)options;
  static const char *const passes[] = {"xla-sdy-round-trip-export-ops", "xla-sdy-round-trip-shard-map-export",
                                       "xla-sdy-round-trip-export-shardy-attrs", NULL};
  return S_run(m, passes, cx);
}

static bool S_inside(const shard_op *op, const shard_op *anc) {
  for (const shard_op *p = op; p; p = shard_op_parent_op(p))
    if (p == anc) return true;
  return false;
}

typedef struct sink_ctx {
  shard_module *m;
  shard_op *flow; /* the control-flow op */
  shard_region *region;
  shard_op *last; /* the last clone put at the region's start */
} sink_ctx;

static bool S_sink_uses(shard_op *op, void *ctx) {
  sink_ctx *sc = ctx;
  for (uint32_t i = 0; i < op->num_operands; i++) {
    shard_value *v = op->operands[i].value;
    shard_op *d = v->def;
    if (!d || !S_is(d, "stablehlo.constant") || S_inside(d, sc->flow)) continue;
    shard_op *c = shard_op_clone(sc->m->arena, d, NULL);
    shard_block *entry = sc->region->first;
    if (sc->last) shard_op_insert_after(sc->last, c);
    else if (entry->first) shard_op_insert_before(entry->first, c);
    else shard_block_append(entry, c);
    sc->last = c;
    /* every use of the constant in this region reads the clone */
    for (shard_operand *u = v->first_use, *next; u; u = next) {
      next = u->next_use;
      const shard_op *o = u->owner;
      while (o && o->parent && o->parent->parent != sc->region) o = shard_op_parent_op(o);
      if (o && o != c && o->parent) shard_operand_set(u, &c->results[0]);
    }
    if (!v->first_use) shard_op_erase(d);
  }
  return true;
}

static bool S_collect_flow(shard_op *op, void *ctx) {
  collect *c = ctx;
  if (S_is(op, "stablehlo.while") || S_is(op, "stablehlo.if") || S_is(op, "stablehlo.case")) SHARD_VEC_PUSH(c->ops, op);
  return true;
}

/* What converting to HLO does to constants a control-flow op's regions read
 * from outside (HLO computations capture nothing): each region gets its own
 * copy (MHLO's sink-constants-to-control-flow). */
static void S_sink_constants(shard_module *m) {
  collect c = {NULL, {0}};
  shard_walk(m->top, S_collect_flow, &c);
  for (uint32_t i = 0; i < c.ops.len; i++) {
    shard_op *flow = c.ops.items[i];
    for (uint32_t r = 0; r < flow->num_regions; r++) {
      if (!flow->regions[r].first) continue;
      sink_ctx sc = {m, flow, &flow->regions[r], NULL};
      for (shard_block *b = flow->regions[r].first; b; b = b->next)
        for (shard_op *op = b->first; op; op = op->next) shard_walk(op, S_sink_uses, &sc);
    }
  }
  SHARD_VEC_FREE(c.ops);
}

/* HLO holds the computations its entry reaches: of a module converted to
 * HLO and back, the funcs that @main (or the only func) does not call,
 * directly or through others, are gone. */
static void S_drop_unreachable_funcs(shard_module *m) {
  shard_op *main_func = shard_module_main_func(m);
  shard_block *b = m->top->num_regions ? m->top->regions[0].first : NULL;
  if (!main_func || !b) return;
  SHARD_VEC(shard_op *) reached = {0};
  SHARD_VEC_PUSH(reached, main_func);
  for (uint32_t i = 0; i < reached.len; i++) {
    shard_op **calls = NULL;
    uint32_t n = shard_func_calls(reached.items[i], &calls);
    for (uint32_t k = 0; k < n; k++) {
      shard_op *callee = shard_call_callee_func(m, calls[k]);
      bool seen = !callee;
      for (uint32_t j = 0; j < reached.len && !seen; j++) seen = reached.items[j] == callee;
      if (!seen) SHARD_VEC_PUSH(reached, callee);
    }
    free(calls);
  }
  for (shard_op *op = b->first, *next; op; op = next) {
    next = op->next;
    if (strcmp(op->name, "func.func") != 0) continue;
    bool seen = false;
    for (uint32_t j = 0; j < reached.len && !seen; j++) seen = reached.items[j] == op;
    if (!seen) shard_op_erase(op);
  }
  SHARD_VEC_FREE(reached);
}

bool shard_pass_xla_round_trip_testing_pipeline(shard_module *m, const char *options, const shard_pass_context *cx) {
  (void)options;
  static const char *const exp[] = {"xla-sdy-round-trip-export-pipeline", NULL};
  static const char *const imp[] = {"xla-sdy-round-trip-import-pipeline", NULL};
  if (!S_run(m, exp, cx)) return false;
  /* XLA converts the module to HLO and back here; of that trip, what the
   * module shows afterwards is the constants sunk into control flow and the
   * funcs the entry does not reach dropped */
  S_sink_constants(m);
  S_drop_unreachable_funcs(m);
  return S_run(m, imp, cx);
}

/* ---- named computations ------------------------------------------------------------ */

bool shard_pass_xla_export_named_computations(shard_module *m, const char *options, const shard_pass_context *cx) {
  shard_block *b = m->top->num_regions ? m->top->regions[0].first : NULL;
  SHARD_VEC(shard_op *) before = {0};
  for (shard_op *op = b ? b->first : NULL; op; op = op->next) SHARD_VEC_PUSH(before, op);
  bool ok = shard_pass_export_named_computations(m, options, cx);
  static const char *const names[] = {"func.call", NULL};
  collect c = {names, {0}};
  if (ok) shard_walk(m->top, S_collect, &c);
  for (uint32_t i = 0; i < c.ops.len; i++) {
    shard_op *call = c.ops.items[i];
    shard_op *func = shard_call_callee_func(m, call);
    bool old = false;
    for (uint32_t k = 0; k < before.len && !old; k++) old = before.items[k] == func;
    if (!func || old) continue;
    shard_attr *s = shard_op_attr(call, "sdy.sharding");
    for (uint32_t r = 0; s && s->kind == SHARD_ATTR_SDY_PER_VALUE && r < s->u.per_value->num; r++)
      if (!shard_func_result_sharding(func, r))
        shard_func_set_result_sharding(m->arena, func, r, &s->u.per_value->shardings[r]);
    shard_op_remove_attr(func, "sdy.original_func_name");
  }
  SHARD_VEC_FREE(c.ops);
  SHARD_VEC_FREE(before);
  return ok;
}
