/* -xla-sdy-stablehlo-export-pipeline: sdy back to what GSPMD reads
 * (stablehlo_round_trip/stablehlo_export.cc, export_shardings.cc,
 * shard_map_export.cc): every sharding becomes `mhlo.sharding` (HloSharding
 * text, by convert's V3-to-V2 rules), the meshes go.
 *
 *  - in XLA's order: the ops below, then the manual computations, then
 *    the named computations (funcs and calls, XLA's variant), callbacks,
 *    and last the shardings left;
 *  - sdy.constant becomes stablehlo.constant; sdy.reshard and the sdy
 *    collectives that change a sharding (all_gather, all_slice, all_to_all,
 *    collective_permute) become `mhlo.copy` with the new sharding;
 *    sdy.all_reduce and sdy.propagation_barrier leave their operand;
 *    sdy.sharding_constraint becomes a `Sharding` custom call;
 *    sdy.sharding_group goes;
 *  - a manual computation is inlined: each operand goes through mhlo.copy
 *    (its in sharding) and SPMDFullToShardShape (the body's view, manual
 *    axes as a manual subgroup; a nested one also the enclosing ones'
 *    axes), each result through mhlo.copy and
 *    SPMDShardToFullShape (its out sharding); every op of the body gets the
 *    manual subgroup, an op without sharding the free axes replicated;
 *  - a stablehlo.while without sharding gets {replicated};
 *  - a Python callback whose result is unused returns nothing, one whose
 *    single result is used returns a tuple read by get_tuple_element.
 *
 * `mhlo.copy` is printed in MLIR's generic form until shard knows mhlo ops. */
#include <string.h>

#include "convert/convert.h"
#include "ir/call_graph.h"
#include "pass/pass.h"
#include "pass/pass_shardings.h"
#include "pipeline/pass_registry.h"
#include "xla/xla.h"

static bool S_is(const shard_op *op, const char *name) { return strcmp(op->name, name) == 0; }

typedef struct manual_ctx {
  const shard_axis_ref *axes; /* manual axes, full axes of the mesh */
  uint32_t n;
} manual_ctx;

/* The HloSharding text of `s` (NULL: replicated over the free axes on
 * `mesh`) with `manual` as a manual subgroup. */
static char *S_hlo(shard_module *m, const shard_tensor_sharding *s, const shard_mesh *mesh, uint32_t rank,
                   const manual_ctx *manual, shard_diag_engine *de) {
  shard_arena *a = m->arena;
  if (s) mesh = shard_module_sharding_mesh(m, s);
  if (!mesh) return NULL;
  shard_conv_ctx cx;
  shard_conv_ctx_init(&cx, a, de);
  shard_conv c = {.kind = SHARD_CONV_NAMED, .mesh = (shard_mesh *)mesh, .span = s ? s->span : shard_no_span};
  if (!s) {
    shard_tensor_sharding *e = SHARD_NEW(a, shard_tensor_sharding);
    memset(e, 0, sizeof *e);
    e->rank = rank;
    e->dims = rank ? SHARD_NEW_ARRAY(a, shard_dim_sharding, rank) : NULL;
    for (uint32_t d = 0; d < rank; d++) e->dims[d] = (shard_dim_sharding){NULL, 0, false, SHARD_NO_PRIORITY};
    s = e;
  }
  c.sharding = (shard_tensor_sharding *)s;
  if (manual && manual->n) {
    c.manual = (shard_axis_ref *)manual->axes;
    c.num_manual = manual->n;
    if (manual->n == mesh->num_axes && shard_sharding_fully_replicated(s) && !s->num_unreduced)
      c.kind = SHARD_CONV_MANUAL;
  } else if (shard_mesh_is_maximal(mesh)) {
    c.kind = SHARD_CONV_MAXIMAL;
    c.device = mesh->device_ids[0];
  } else if (!mesh->num_axes) {
    c.kind = SHARD_CONV_REPLICATED;
  }
  shard_hlo_sharding *h = shard_hlo_from_conv(&cx, &c, false);
  if (!h) return NULL;
  shard_buf b = {0};
  shard_hlo_print(&b, h);
  char *out = shard_arena_strndup(a, b.data ? b.data : "", b.len);
  shard_buf_free(&b);
  return out;
}

static void S_set_hlo(shard_arena *a, shard_op *op, const char *text) {
  if (text)
    shard_op_set_attr(a, op, SHARD_XLA_MHLO_SHARDING, shard_attr_string(a, text, (uint32_t)strlen(text)), false);
}

static uint32_t S_rank(const shard_type *t) { return t && t->kind == SHARD_TYPE_TENSOR ? t->rank : 0; }

/* mhlo.sharding of an op from its sdy.sharding (or, with a default mesh,
 * the free axes replicated); tuples for several results. */
static void S_export_op_sharding(shard_module *m, shard_op *op, const shard_mesh *dflt, const manual_ctx *manual,
                                 shard_diag_engine *de) {
  shard_arena *a = m->arena;
  shard_attr *s = shard_op_attr(op, "sdy.sharding");
  shard_sharding_per_value *pv = s && s->kind == SHARD_ATTR_SDY_PER_VALUE ? s->u.per_value : NULL;
  if (!pv && !dflt) return;
  uint32_t n = pv ? pv->num : op->num_results;
  if (!n) return;
  shard_buf b = {0};
  bool ok = true, all_manual = true;
  for (uint32_t i = 0; i < n && ok; i++) {
    uint32_t rank = i < op->num_results ? S_rank(op->results[i].type) : 0;
    char *t = S_hlo(m, pv ? &pv->shardings[i] : NULL, dflt, rank, manual, de);
    if (!t) ok = false;
    else shard_buf_printf(&b, "%s%s", i ? ", " : "", t);
    all_manual = all_manual && t && strcmp(t, "{manual}") == 0;
  }
  /* an op that is manual on every result is `{manual}` as a whole, as XLA
   * prints it (a while inside a fully manual computation) */
  if (ok && n > 1 && all_manual) S_set_hlo(a, op, "{manual}");
  else if (ok)
    S_set_hlo(a, op,
              n == 1 ? shard_arena_strndup(a, b.data, b.len) : shard_arena_printf(a, "{%.*s}", (int)b.len, b.data));
  shard_buf_free(&b);
  shard_op_remove_attr(op, "sdy.sharding");
}

/* ---- ops ---------------------------------------------------------------------- */

typedef struct collect {
  SHARD_VEC(shard_op *) ops;
} collect;

static bool S_collect_sdy(shard_op *op, void *ctx) {
  collect *c = ctx;
  if (strncmp(op->name, "sdy.", 4) == 0 && !S_is(op, "sdy.mesh") && !S_is(op, "sdy.return") &&
      !S_is(op, "sdy.manual_computation") && !S_is(op, "sdy.named_computation"))
    SHARD_VEC_PUSH(c->ops, op);
  return true;
}

static shard_op *S_copy(shard_arena *a, shard_value *v, shard_op *before) {
  shard_op *cp = shard_op_new_named(a, "mhlo.copy", 1, &v, 1, &v->type, 0);
  cp->span = before->span;
  shard_op_insert_before(before, cp);
  return cp;
}

static void S_export_ops(shard_module *m) {
  shard_arena *a = m->arena;
  collect c = {{0}};
  shard_walk(m->top, S_collect_sdy, &c);
  for (uint32_t i = 0; i < c.ops.len; i++) {
    shard_op *op = c.ops.items[i];
    if (S_is(op, "sdy.constant")) {
      shard_xla_constant_from_sdy(a, op);
    } else if (S_is(op, "sdy.reshard") || S_is(op, "sdy.all_gather") || S_is(op, "sdy.all_slice") ||
               S_is(op, "sdy.all_to_all") || S_is(op, "sdy.collective_permute") || S_is(op, "sdy.reduce_scatter")) {
      shard_attr *s = shard_op_attr(op, "sharding");
      if (!s) s = shard_op_attr(op, "out_sharding");
      shard_op *cp = S_copy(a, op->operands[0].value, op);
      if (s && s->kind == SHARD_ATTR_SDY_SHARDING)
        shard_op_set_attr(a, cp, "sdy.sharding", shard_attr_per_value(a, s->u.sharding, 1), false);
      shard_value_replace_all_uses(&op->results[0], &cp->results[0]);
    } else if (S_is(op, "sdy.sharding_constraint")) {
      shard_attr *s = shard_op_attr(op, "sharding");
      shard_op *cc = shard_xla_custom_call(a, SHARD_XLA_SHARDING_CUSTOM_CALL, 1,
                                           (shard_value *[]){op->operands[0].value}, 1, &op->results[0].type);
      cc->span = op->span;
      if (s && s->kind == SHARD_ATTR_SDY_SHARDING)
        shard_op_set_attr(a, cc, "sdy.sharding", shard_attr_per_value(a, s->u.sharding, 1), false);
      shard_op_insert_before(op, cc);
      shard_value_replace_all_uses(&op->results[0], &cc->results[0]);
    } else if (op->num_operands && op->num_results == op->num_operands) {
      /* all_reduce, propagation_barrier, data-flow edges: their operands */
      for (uint32_t k = 0; k < op->num_results; k++)
        shard_value_replace_all_uses(&op->results[k], op->operands[k].value);
    } else if (op->num_results) {
      continue; /* nothing XLA knows to do: kept */
    }
    shard_op_erase(op);
  }
  SHARD_VEC_FREE(c.ops);
}

/* ---- Python callbacks --------------------------------------------------------------- */

static bool S_is_callback(const shard_op *op) {
  return shard_xla_is_custom_call(op, "xla_python_cpu_callback") ||
         shard_xla_is_custom_call(op, "xla_python_gpu_callback") ||
         shard_xla_is_custom_call(op, "xla_ffi_python_cpu_callback") ||
         shard_xla_is_custom_call(op, "xla_ffi_python_gpu_callback");
}

static bool S_collect_callbacks(shard_op *op, void *ctx) {
  collect *c = ctx;
  if (S_is_callback(op)) SHARD_VEC_PUSH(c->ops, op);
  return true;
}

static shard_op *S_rebuild(shard_arena *a, shard_op *cc, uint32_t nres, shard_type **types) {
  shard_value **ins = cc->num_operands ? SHARD_NEW_ARRAY(a, shard_value *, cc->num_operands) : NULL;
  for (uint32_t k = 0; k < cc->num_operands; k++) ins[k] = cc->operands[k].value;
  shard_op *n = shard_op_new_named(a, "stablehlo.custom_call", cc->num_operands, ins, nres, types, 0);
  n->span = cc->span;
  n->loc = cc->loc;
  for (uint32_t k = 0; k < cc->num_attrs; k++)
    shard_op_set_attr(a, n, cc->attrs[k].name, cc->attrs[k].value, cc->attrs[k].inherent);
  shard_op_insert_before(cc, n);
  return n;
}

/* What XLA's export does to Python callbacks: one whose result is unused
 * (or an empty tuple) returns nothing; one whose single result is used
 * returns it in a tuple, read back by get_tuple_element (which keeps the
 * sharding). */
static void S_export_callbacks(shard_module *m) {
  shard_arena *a = m->arena;
  collect c = {{0}};
  shard_walk(m->top, S_collect_callbacks, &c);
  for (uint32_t i = 0; i < c.ops.len; i++) {
    shard_op *cc = c.ops.items[i];
    if (cc->num_results != 1) continue;
    shard_type *t = cc->results[0].type;
    bool empty_tuple = t->kind == SHARD_TYPE_TUPLE && t->num_inputs == 0;
    if (!cc->results[0].first_use || empty_tuple) {
      if (cc->results[0].first_use) continue;
      shard_op *n = S_rebuild(a, cc, 0, NULL);
      shard_attr *rl = shard_attr_new(a, SHARD_ATTR_ARRAY);
      shard_op_set_attr(a, n, "result_layouts", rl, true);
      shard_op_erase(cc);
    } else if (t->kind != SHARD_TYPE_TUPLE) {
      shard_type *tt = shard_type_tuple(a, &t, 1);
      shard_op *n = S_rebuild(a, cc, 1, &tt);
      shard_op *gte =
          shard_op_new_named(a, "stablehlo.get_tuple_element", 1, (shard_value *[]){&n->results[0]}, 1, &t, 0);
      gte->span = cc->span;
      shard_op_set_attr(a, gte, "index", shard_attr_int(a, 0, shard_type_other(a, "i32")), true);
      shard_attr *s = shard_op_attr(cc, "sdy.sharding");
      if (s) shard_op_set_attr(a, gte, "sdy.sharding", s, false);
      shard_op_insert_after(n, gte);
      shard_value_replace_all_uses(&cc->results[0], &gte->results[0]);
      shard_op_erase(cc);
    }
  }
  SHARD_VEC_FREE(c.ops);
}

/* ---- manual computations --------------------------------------------------------- */

typedef struct body_walk {
  shard_module *m;
  const shard_mesh *mesh;
  const manual_ctx *manual;
  shard_diag_engine *de;
} body_walk;

static bool S_body_op(shard_op *op, void *ctx) {
  body_walk *w = ctx;
  /* a named computation is exported after the manual computations (as in
   * XLA): its body's ops get the manual subgroup here, the call that
   * replaces it its out shardings, seen from outside any manual axes */
  if (S_is(op, "sdy.return") || S_is(op, "sdy.named_computation") || !op->num_results) return true;
  /* an op of a nested manual computation, exported already (post order)
   * with the manual axes of both */
  if (!shard_op_attr(op, "sdy.sharding") && shard_op_attr(op, SHARD_XLA_MHLO_SHARDING)) return true;
  S_export_op_sharding(w->m, op, w->mesh, w->manual, w->de);
  return true;
}

static bool S_collect_manual(shard_op *op, void *ctx) {
  if (S_is(op, "sdy.manual_computation")) SHARD_VEC_PUSH(((collect *)ctx)->ops, op);
  return true;
}

static void S_export_manual(shard_module *m, shard_diag_engine *de) {
  shard_arena *a = m->arena;
  collect c = {{0}};
  shard_walk_post(m->top, S_collect_manual, &c);
  for (uint32_t i = 0; i < c.ops.len; i++) {
    shard_op *mc = c.ops.items[i];
    shard_block *body = mc->num_regions ? mc->regions[0].first : NULL;
    shard_attr *in = shard_op_attr(mc, "in_shardings"), *out = shard_op_attr(mc, "out_shardings");
    shard_attr *axes = shard_op_attr(mc, "manual_axes");
    if (!body || !in || !out || !axes || in->kind != SHARD_ATTR_SDY_PER_VALUE ||
        out->kind != SHARD_ATTR_SDY_PER_VALUE || axes->kind != SHARD_ATTR_SDY_MANUAL_AXES)
      continue;
    const shard_mesh *mesh = NULL;
    for (uint32_t k = 0; k < in->u.per_value->num && !mesh; k++)
      mesh = shard_module_sharding_mesh(m, &in->u.per_value->shardings[k]);
    for (uint32_t k = 0; k < out->u.per_value->num && !mesh; k++)
      mesh = shard_module_sharding_mesh(m, &out->u.per_value->shardings[k]);
    if (!mesh) continue;
    /* A nested manual computation's body is manual on its own axes and on
     * those of the enclosing ones (outer): its operands and results, seen
     * from outside, are manual on the outer axes only. */
    uint32_t num_outer = 0;
    for (shard_op *p = shard_op_parent_op(mc); p; p = shard_op_parent_op(p)) {
      shard_attr *pa = S_is(p, "sdy.manual_computation") ? shard_op_attr(p, "manual_axes") : NULL;
      if (pa && pa->kind == SHARD_ATTR_SDY_MANUAL_AXES) num_outer += pa->u.manual_axes.num;
    }
    uint32_t num_inner = axes->u.manual_axes.num;
    shard_axis_ref *all = SHARD_NEW_ARRAY(a, shard_axis_ref, num_inner + num_outer + 1);
    for (uint32_t k = 0; k < num_inner; k++) all[k] = (shard_axis_ref){.name = axes->u.manual_axes.names[k]};
    uint32_t n_all = num_inner;
    for (shard_op *p = shard_op_parent_op(mc); p; p = shard_op_parent_op(p)) {
      shard_attr *pa = S_is(p, "sdy.manual_computation") ? shard_op_attr(p, "manual_axes") : NULL;
      if (!pa || pa->kind != SHARD_ATTR_SDY_MANUAL_AXES) continue;
      for (uint32_t k = 0; k < pa->u.manual_axes.num; k++)
        all[n_all++] = (shard_axis_ref){.name = pa->u.manual_axes.names[k]};
    }
    manual_ctx manual = {all, n_all};
    manual_ctx outer = {all + num_inner, num_outer};
    /* the body's ops, with the manual subgroup */
    body_walk w = {m, mesh, &manual, de};
    for (shard_op *op = body->first; op; op = op->next) shard_walk(op, S_body_op, &w);
    /* operands: copy (global) and full-to-shard (manual) */
    for (uint32_t k = 0; k < mc->num_operands && k < body->num_args; k++) {
      const shard_tensor_sharding *s = k < in->u.per_value->num ? &in->u.per_value->shardings[k] : NULL;
      shard_op *cp = S_copy(a, mc->operands[k].value, mc);
      S_set_hlo(a, cp, S_hlo(m, s, mesh, S_rank(cp->results[0].type), &outer, de));
      shard_op *f2s = shard_xla_custom_call(a, SHARD_XLA_SPMD_FULL_TO_SHARD, 1, (shard_value *[]){&cp->results[0]}, 1,
                                            &body->args[k].type);
      f2s->span = mc->span;
      shard_tensor_sharding *local = s ? shard_sharding_erase_manual(a, s, axes) : NULL;
      S_set_hlo(a, f2s, S_hlo(m, local, mesh, S_rank(body->args[k].type), &manual, de));
      shard_op_insert_before(mc, f2s);
      shard_value_replace_all_uses(&body->args[k], &f2s->results[0]);
    }
    /* the body's ops move before the manual computation */
    shard_op *ret = body->last;
    for (shard_op *op = body->first, *next; op && op != ret; op = next) {
      next = op->next;
      shard_op_unlink(op);
      shard_op_insert_before(mc, op);
    }
    /* results: copy (manual) and shard-to-full (global) */
    for (uint32_t k = 0; ret && k < mc->num_results && k < ret->num_operands; k++) {
      const shard_tensor_sharding *s = k < out->u.per_value->num ? &out->u.per_value->shardings[k] : NULL;
      shard_op *cp = S_copy(a, ret->operands[k].value, mc);
      shard_tensor_sharding *local = s ? shard_sharding_erase_manual(a, s, axes) : NULL;
      S_set_hlo(a, cp, S_hlo(m, local, mesh, S_rank(cp->results[0].type), &manual, de));
      shard_op *s2f = shard_xla_custom_call(a, SHARD_XLA_SPMD_SHARD_TO_FULL, 1, (shard_value *[]){&cp->results[0]}, 1,
                                            &mc->results[k].type);
      s2f->span = mc->span;
      S_set_hlo(a, s2f, S_hlo(m, s, mesh, S_rank(mc->results[k].type), &outer, de));
      shard_op_insert_before(mc, s2f);
      shard_value_replace_all_uses(&mc->results[k], &s2f->results[0]);
    }
    shard_op_erase(mc);
  }
  SHARD_VEC_FREE(c.ops);
}

/* ---- the rest ---------------------------------------------------------------------- */

typedef struct rest_walk {
  shard_module *m;
  shard_diag_engine *de;
} rest_walk;

static bool S_rest_op(shard_op *op, void *ctx) {
  rest_walk *w = ctx;
  if (shard_op_attr(op, "sdy.sharding")) {
    S_export_op_sharding(w->m, op, NULL, NULL, w->de);
  } else if (S_is(op, "stablehlo.while") && !shard_op_attr(op, SHARD_XLA_MHLO_SHARDING)) {
    S_set_hlo(w->m->arena, op, "{replicated}");
  }
  return true;
}

bool shard_pass_xla_stablehlo_export_pipeline(shard_module *m, const char *options, const shard_pass_context *cx) {
  shard_diag_engine *de = cx->de;
  (void)options;
  shard_arena *a = m->arena;
  unsigned before = de->errors;
  /* XLA's order: ops, manual computations, named computations, callbacks,
   * then the remaining shardings */
  S_export_ops(m);
  S_export_manual(m, de);
  if (!shard_pass_run("xla-sdy-export-named-computations", m, NULL, cx) || de->errors != before) return false;
  S_export_callbacks(m);
  rest_walk w = {m, de};
  shard_block *b = m->top->num_regions ? m->top->regions[0].first : NULL;
  for (shard_op *f = b ? b->first : NULL; f; f = f->next) {
    if (!S_is(f, "func.func")) continue;
    shard_block *entry = f->num_regions ? f->regions[0].first : NULL;
    for (uint32_t i = 0; entry && i < entry->num_args; i++) {
      shard_attr *s = shard_value_attr(&entry->args[i], "sdy.sharding");
      if (!s || s->kind != SHARD_ATTR_SDY_SHARDING) continue;
      char *t = S_hlo(m, s->u.sharding, NULL, 0, NULL, de);
      if (t)
        shard_value_set_attr(a, &entry->args[i], SHARD_XLA_MHLO_SHARDING, shard_attr_string(a, t, (uint32_t)strlen(t)));
      shard_value_remove_attr(&entry->args[i], "sdy.sharding");
    }
    for (uint32_t i = 0; i < shard_func_num_results(f); i++) {
      shard_tensor_sharding *s = shard_func_result_sharding(f, i);
      if (!s) continue;
      char *t = S_hlo(m, s, NULL, 0, NULL, de);
      shard_func_set_result_attr(a, f, i, "sdy.sharding", NULL);
      if (t) shard_func_set_result_attr(a, f, i, SHARD_XLA_MHLO_SHARDING, shard_attr_string(a, t, (uint32_t)strlen(t)));
    }
    for (shard_op *op = entry ? entry->first : NULL; op; op = op->next) shard_walk(op, S_rest_op, &w);
  }
  for (shard_op *op = b ? b->first : NULL, *next; op; op = next) {
    next = op->next;
    if (S_is(op, "sdy.mesh")) shard_op_erase(op);
  }
  return de->errors == before;
}

/* -xla-sdy-stablehlo-round-trip-shard-map-export: the manual computation
 * step of the export pipeline alone. */
bool shard_pass_xla_stablehlo_shard_map_export(shard_module *m, const char *options, const shard_pass_context *cx) {
  shard_diag_engine *de = cx->de;
  (void)options;
  unsigned before = de->errors;
  S_export_manual(m, de);
  return de->errors == before;
}
