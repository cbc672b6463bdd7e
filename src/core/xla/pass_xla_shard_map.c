/* -xla-stablehlo-round-trip-shard-map-import: JAX's shard_map as it reaches
 * XLA (round_trip_common/shard_map_import.cc). Every call of a func whose name
 * holds `shmap_body`, written as
 *
 *   %a = custom_call @Sharding(%x) {sdy.sharding = ...}
 *   %b = custom_call @SPMDFullToShardShape(%a)
 *   %r = call @shmap_body(%b, ...)
 *   %c = custom_call @Sharding(%r)
 *   %d = custom_call @SPMDShardToFullShape(%c) {sdy.sharding = ...}
 *
 * becomes an sdy.manual_computation over the global values with the callee's
 * body. The manual axes are the axes its in/out shardings use, in mesh
 * order (XLA of 2025-03; later XLA also lists the manual axes a sharding
 * does not use as replicated). Unused call
 * results are dropped; a second call of the same func clones the body. */
#include <string.h>

#include "ir/call_graph.h"
#include "ir/clone.h"
#include "pass/pass.h"
#include "pass/pass_shardings.h"
#include "xla/xla.h"

typedef struct pair {
  shard_op *sharding, *transform; /* NULL, NULL for an unused result */
} pair;

typedef struct shmap {
  shard_op *call, *mc;
  pair *args, *results;
  const char *callee;
} shmap;

static bool S_is_pattern_call(const shard_op *op, const char *target) {
  return shard_xla_is_custom_call(op, target) && op->num_results == 1 && op->results[0].first_use &&
         op->num_operands == 1;
}

/* The pattern around `call`, or NULL after reporting what does not match. */
static bool S_match(shard_arena *a, shard_op *call, shmap *sm, shard_diag_engine *de) {
  sm->args = call->num_operands ? SHARD_NEW_ARRAY(a, pair, call->num_operands) : NULL;
  sm->results = call->num_results ? SHARD_NEW_ARRAY(a, pair, call->num_results) : NULL;
  const char *why = NULL;
  for (uint32_t i = 0; i < call->num_operands && !why; i++) {
    shard_op *f2s = call->operands[i].value->def, *sh = NULL;
    if (!f2s || strcmp(f2s->name, "stablehlo.custom_call") != 0) why = "expecting CustomCallOp as operand";
    else if (!S_is_pattern_call(f2s, SHARD_XLA_SPMD_FULL_TO_SHARD))
      why = "expecting SPMDFullToShardShape custom call as operand";
    else if (!(sh = f2s->operands[0].value->def) || strcmp(sh->name, "stablehlo.custom_call") != 0)
      why = "expecting CustomCallOp as operand of SPMDFullToShardShape";
    else if (!S_is_pattern_call(sh, SHARD_XLA_SHARDING_CUSTOM_CALL))
      why = "expecting Sharding CustomCallOp as operand of SPMDFullToShardShape";
    else sm->args[i] = (pair){sh, f2s};
  }
  for (uint32_t i = 0; i < call->num_results && !why; i++) {
    shard_value *r = &call->results[i];
    if (!r->first_use) {
      sm->results[i] = (pair){NULL, NULL};
      continue;
    }
    if (r->first_use->next_use) {
      why = "expecting each result of shmap_body to have one or no uses";
      break;
    }
    shard_op *sh = r->first_use->owner;
    if (strcmp(sh->name, "stablehlo.custom_call") != 0) {
      why = "expecting CustomCallOp as the use of the result of the CallOp";
      break;
    }
    if (!S_is_pattern_call(sh, SHARD_XLA_SHARDING_CUSTOM_CALL)) {
      why = "expecting Sharding CustomCallOp as the use of the result of the CallOp";
      break;
    }
    if (sh->results[0].first_use->next_use) {
      why = "expecting Sharding CustomCallOp user of the result to have one use";
      break;
    }
    shard_op *s2f = sh->results[0].first_use->owner;
    if (strcmp(s2f->name, "stablehlo.custom_call") != 0)
      why = "expecting CustomCallOp as the use of Sharding CustomCallOp";
    else if (!S_is_pattern_call(s2f, SHARD_XLA_SPMD_SHARD_TO_FULL))
      why = "expecting SPMDShardToFullShape CustomCallOp as the use of Sharding CustomCallOp";
    else sm->results[i] = (pair){sh, s2f};
  }
  if (why) shard_error(de, call->span, "%s", why);
  return why == NULL;
}

static shard_tensor_sharding *S_first_sharding(const shard_op *op) {
  shard_attr *s = shard_op_attr(op, "sdy.sharding");
  return s && s->kind == SHARD_ATTR_SDY_PER_VALUE && s->u.per_value->num ? &s->u.per_value->shardings[0] : NULL;
}

static bool S_name_in(const char *n, const char **names, uint32_t k) {
  for (uint32_t i = 0; i < k; i++)
    if (strcmp(names[i], n) == 0) return true;
  return false;
}

static void S_add_axes(const shard_axis_ref *r, uint32_t n, const char **names, uint32_t *k) {
  for (uint32_t i = 0; i < n; i++)
    if (!S_name_in(r[i].name, names, *k)) names[(*k)++] = r[i].name;
}

static bool S_collect_calls(shard_op *op, void *ctx) {
  SHARD_VEC(shard_op *) *v = ctx;
  if (strcmp(op->name, "func.call") == 0) {
    const char *callee = shard_call_callee(op);
    if (callee && strstr(callee, "shmap_body")) SHARD_VEC_PUSH(*v, op);
  }
  return true;
}

typedef struct moved {
  const char *callee;
  shard_region *region;
  shard_op *func;
} moved;

static void S_erase_if_unused(shard_op *op) {
  if (!op || !op->parent) return;
  for (uint32_t i = 0; i < op->num_results; i++)
    if (op->results[i].first_use) return;
  shard_op_erase(op);
}

bool shard_pass_xla_stablehlo_round_trip_shard_map_import(shard_module *m, const char *options,
                                                          const shard_pass_context *cx) {
  shard_diag_engine *de = cx->de;
  (void)options;
  shard_arena *a = m->arena;
  SHARD_VEC(shard_op *) calls = {0};
  shard_walk(m->top, S_collect_calls, &calls);
  SHARD_VEC(shmap) done = {0};
  SHARD_VEC(moved) bodies = {0};
  bool ok = true;
  for (uint32_t c = 0; c < calls.len && ok; c++) {
    shard_op *call = calls.items[c];
    shmap sm = {.call = call, .callee = shard_call_callee(call)};
    if (!S_match(a, call, &sm, de)) {
      ok = false;
      break;
    }
    uint32_t nin = call->num_operands, nout = 0;
    shard_value **ins = nin ? SHARD_NEW_ARRAY(a, shard_value *, nin) : NULL;
    shard_tensor_sharding *in_s = SHARD_NEW_ARRAY(a, shard_tensor_sharding, nin + 1);
    shard_tensor_sharding *out_s = SHARD_NEW_ARRAY(a, shard_tensor_sharding, call->num_results + 1);
    shard_type **types = SHARD_NEW_ARRAY(a, shard_type *, call->num_results + 1);
    const char *mesh_name = NULL;
    bool same_mesh = true, all_sharded = true;
    for (uint32_t i = 0; i < nin; i++) {
      ins[i] = sm.args[i].sharding->operands[0].value;
      shard_tensor_sharding *s = S_first_sharding(sm.args[i].sharding);
      if (!s) {
        all_sharded = false;
        continue;
      }
      in_s[i] = *s;
    }
    for (uint32_t i = 0; i < call->num_results; i++) {
      if (!sm.results[i].transform) continue;
      types[nout] = sm.results[i].transform->results[0].type;
      shard_tensor_sharding *s = S_first_sharding(sm.results[i].transform);
      if (!s) {
        all_sharded = false;
        continue;
      }
      out_s[nout++] = *s;
    }
    if (!all_sharded) {
      shard_error(de, call->span, "expecting the shard map custom calls to carry an sdy.sharding");
      ok = false;
      break;
    }
    /* manual axes: the union of the axes of the in/out shardings */
    const char **manual = SHARD_NEW_ARRAY(a, const char *, 256);
    uint32_t nmanual = 0;
    for (uint32_t i = 0; i < nin + nout; i++) {
      const shard_tensor_sharding *s = i < nin ? &in_s[i] : &out_s[i - nin];
      if (!mesh_name) mesh_name = s->mesh_name;
      else if (!s->mesh_name || strcmp(s->mesh_name, mesh_name) != 0) same_mesh = false;
      for (uint32_t d = 0; d < s->rank && nmanual < 200; d++)
        S_add_axes(s->dims[d].axes, s->dims[d].num_axes, manual, &nmanual);
      if (nmanual < 200) S_add_axes(s->replicated, s->num_replicated, manual, &nmanual);
    }
    if (!same_mesh) {
      shard_error(de, call->span, "Multiple meshes in a single manual computation.");
      ok = false;
      break;
    }
    const shard_mesh *mesh = nin + nout ? shard_module_sharding_mesh(m, nin ? &in_s[0] : &out_s[0]) : NULL;
    if (mesh) {
      /* mesh order */
      const char **sorted = SHARD_NEW_ARRAY(a, const char *, nmanual + 1);
      uint32_t k = 0;
      for (uint32_t x = 0; x < mesh->num_axes; x++)
        if (S_name_in(mesh->axes[x].name, manual, nmanual)) sorted[k++] = mesh->axes[x].name;
      manual = sorted;
      nmanual = k;
    }
    shard_op *mc = shard_op_new_named(a, "sdy.manual_computation", nin, ins, nout, types, 1);
    mc->span = call->span;
    mc->loc = call->loc;
    shard_op_set_attr(a, mc, "in_shardings", shard_attr_per_value(a, in_s, nin), true);
    shard_op_set_attr(a, mc, "out_shardings", shard_attr_per_value(a, out_s, nout), true);
    shard_attr *ma = shard_attr_new(a, SHARD_ATTR_SDY_MANUAL_AXES);
    ma->u.manual_axes.names = manual;
    ma->u.manual_axes.num = nmanual;
    shard_op_set_attr(a, mc, "manual_axes", ma, true);
    shard_op_insert_before(call, mc);
    moved *mv = NULL;
    for (uint32_t k = 0; k < bodies.len; k++)
      if (strcmp(bodies.items[k].callee, sm.callee) == 0) mv = &bodies.items[k];
    if (mv) {
      shard_region_clone_into(a, mv->region, &mc->regions[0], NULL);
    } else {
      shard_op *func = shard_call_callee_func(m, call);
      if (!func || !func->num_regions || !func->regions[0].first) {
        shard_error(de, call->span, "'func.call' op callee @%s has no body", sm.callee);
        ok = false;
        break;
      }
      shard_region *to = &mc->regions[0];
      shard_pass_move_body(a, &func->regions[0], to, "func.return", "sdy.return", true);
      moved mvn = {sm.callee, to, func};
      SHARD_VEC_PUSH(bodies, mvn);
    }
    uint32_t k = 0;
    for (uint32_t i = 0; i < call->num_results; i++)
      if (sm.results[i].transform)
        shard_value_replace_all_uses(&sm.results[i].transform->results[0], &mc->results[k++]);
    sm.mc = mc;
    SHARD_VEC_PUSH(done, sm);
  }
  /* drop the return values of unused results, then the dead ops */
  for (uint32_t d = 0; ok && d < done.len; d++) {
    shmap *sm = &done.items[d];
    shard_block *body = sm->mc->regions[0].first;
    shard_op *ret = body ? body->last : NULL;
    if (ret && strcmp(ret->name, "sdy.return") == 0) {
      uint32_t n = 0;
      shard_value **vals = SHARD_NEW_ARRAY(a, shard_value *, ret->num_operands + 1);
      for (uint32_t i = 0; i < ret->num_operands && i < sm->call->num_results; i++)
        if (sm->results[i].transform) vals[n++] = ret->operands[i].value;
      if (n != ret->num_operands) {
        shard_op *nr = shard_op_new_named(a, "sdy.return", n, vals, 0, NULL, 0);
        nr->span = ret->span;
        nr->loc = ret->loc;
        shard_op_insert_before(ret, nr);
        shard_op_erase(ret);
      }
    }
    for (uint32_t i = 0; i < sm->call->num_results; i++) {
      if (!sm->results[i].transform) continue;
      S_erase_if_unused(sm->results[i].transform);
      S_erase_if_unused(sm->results[i].sharding);
    }
    S_erase_if_unused(sm->call);
    for (uint32_t i = 0; i < sm->call->num_operands; i++) {
      S_erase_if_unused(sm->args[i].transform);
      S_erase_if_unused(sm->args[i].sharding);
    }
  }
  for (uint32_t k = 0; ok && k < bodies.len; k++) shard_op_erase(bodies.items[k].func);
  SHARD_VEC_FREE(calls);
  SHARD_VEC_FREE(done);
  SHARD_VEC_FREE(bodies);
  return ok;
}
