/* -sdy-reshard-to-collectives: every sdy.reshard becomes the chain of sdy
 * collectives that reshard.c computes (all_slice, collective_permute,
 * all_to_all, all_gather), as Shardy's ReshardToCollectivesPass does.
 *
 * Like Shardy's dialect conversion, which reshards must be converted is
 * decided on the input IR first; the rewrite then goes in pre-order, so a
 * reshard fed by an earlier one starts from the collectives that replaced
 * it. Left alone (legal): reshards involving a single-device mesh, reshards
 * between meshes that differ in more than device order (unless the target
 * is fully replicated), and with keep-redundant-reshards=true reshards that
 * don't change the sharding. A reshard whose input sharding has another
 * rank fails the pass as the conversion does. */
#include <string.h>

#include "pass/pass.h"
#include "pass/pass_shardings.h"
#include "export/reshard.h"
#include "support/ptrmap.h"

static bool S_is(const shard_op *op, const char *name) { return strcmp(op->name, name) == 0; }

static shard_tensor_sharding *S_per_value_at(const shard_op *op, const char *name, uint32_t i) {
  shard_attr *pv = shard_op_attr(op, name);
  if (!pv || pv->kind != SHARD_ATTR_SDY_PER_VALUE || i >= pv->u.per_value->num) return NULL;
  return &pv->u.per_value->shardings[i];
}

/* Shardy's getSharding(Value) for the values a reshard can read: results of
 * collectives (out_sharding), edge owners of data-flow ops (stablehlo.while
 * block arguments take the matching result's sharding; manual and named
 * computations their in/out shardings) and what pass_shardings knows. */
static shard_tensor_sharding *S_sharding_of(shard_arena *a, shard_ptrmap *manual_args, const shard_value *v) {
  if (v->def) {
    const shard_op *op = v->def;
    shard_attr *o = shard_op_attr(op, "out_sharding");
    if (o && o->kind == SHARD_ATTR_SDY_SHARDING && strncmp(op->name, "sdy.", 4) == 0) return o->u.sharding;
    if (S_is(op, "sdy.manual_computation") || S_is(op, "sdy.named_computation"))
      return S_per_value_at(op, "out_shardings", v->index);
    return shard_value_sharding(v);
  }
  shard_op *owner = v->block && v->block->parent ? v->block->parent->parent : NULL;
  if (owner && S_is(owner, "stablehlo.while") && v->index < owner->num_results)
    return shard_value_sharding(&owner->results[v->index]);
  if (owner && S_is(owner, "sdy.named_computation")) return S_per_value_at(owner, "in_shardings", v->index);
  if (owner && S_is(owner, "sdy.manual_computation")) {
    /* a copy, made once per argument: the pass changes no in_sharding */
    shard_tensor_sharding *s = shard_ptrmap_get_ptr(manual_args, v);
    if (s) return s;
    s = S_per_value_at(owner, "in_shardings", v->index);
    s = shard_sharding_erase_manual(a, s, shard_op_attr(owner, "manual_axes"));
    if (s) shard_ptrmap_put_ptr(manual_args, v, s);
    return s;
  }
  return shard_value_sharding(v);
}

static shard_value *S_bypass_barriers(shard_value *v) {
  while (v->def && S_is(v->def, "sdy.propagation_barrier") && v->def->num_operands == 1) v = v->def->operands[0].value;
  return v;
}

static uint32_t S_rank(const shard_type *t) { return t && t->kind == SHARD_TYPE_TENSOR ? t->rank : 0; }

/* The reshard's input sharding, bypassing barriers; NULL when the input has none. */
static shard_tensor_sharding *S_input_sharding(shard_arena *a, shard_ptrmap *manual_args, const shard_op *reshard) {
  return S_sharding_of(a, manual_args, S_bypass_barriers(reshard->operands[0].value));
}

static shard_tensor_sharding *S_reshard_sharding(const shard_op *reshard) {
  shard_attr *s = shard_op_attr(reshard, "sharding");
  return s && s->kind == SHARD_ATTR_SDY_SHARDING ? s->u.sharding : NULL;
}

/* The conversion target's verdict: true when the reshard stays. */
static bool S_is_legal(const shard_module *m, shard_ptrmap *manual_args, const shard_op *reshard, bool keep_redundant) {
  shard_tensor_sharding *out = S_reshard_sharding(reshard);
  if (!out || reshard->num_operands != 1 || reshard->num_results != 1) return true;
  shard_tensor_sharding *in = S_input_sharding(m->arena, manual_args, reshard);
  if (keep_redundant && shard_reshard_equivalent(in, out)) return true;
  const shard_mesh *in_mesh = in ? shard_module_sharding_mesh(m, in) : NULL;
  const shard_mesh *out_mesh = shard_module_sharding_mesh(m, out);
  if ((in_mesh && shard_mesh_is_maximal(in_mesh)) || (out_mesh && shard_mesh_is_maximal(out_mesh))) return true;
  if (shard_sharding_fully_replicated(out)) return false;
  if (in && !shard_reshard_same_mesh_ref(in, out)) {
    /* isEquivalentOnMesh: same axes, device order aside. */
    if (!in_mesh || !out_mesh) return true;
    return shard_mesh_is_maximal(in_mesh) != shard_mesh_is_maximal(out_mesh) ||
           !shard_mesh_same_axes(in_mesh, out_mesh);
  }
  return false;
}

/* Builds one collective before `reshard`, exactly as the parser would. */
static shard_value *S_build_step(shard_module *m, shard_op *reshard, shard_value *input, const shard_reshard_step *st) {
  shard_arena *a = m->arena;
  static const char *const names[] = {
      [SHARD_RESHARD_ALL_SLICE] = "sdy.all_slice",
      [SHARD_RESHARD_COLLECTIVE_PERMUTE] = "sdy.collective_permute",
      [SHARD_RESHARD_ALL_TO_ALL] = "sdy.all_to_all",
      [SHARD_RESHARD_ALL_GATHER] = "sdy.all_gather",
  };
  shard_type *type = reshard->results[0].type;
  shard_op *op = shard_op_new_named(a, names[st->kind], 1, &input, 1, &type, 0);
  if (st->kind == SHARD_RESHARD_ALL_SLICE || st->kind == SHARD_RESHARD_ALL_GATHER) {
    shard_attr *axes = shard_attr_new(a, SHARD_ATTR_SDY_AXIS_LISTS);
    axes->u.axis_lists.dims = st->axes_per_dim;
    axes->u.axis_lists.num = st->rank;
    const char *key = st->kind == SHARD_RESHARD_ALL_SLICE ? "slicing_axes" : "gathering_axes";
    shard_op_set_attr(a, op, key, axes, true);
  } else if (st->kind == SHARD_RESHARD_ALL_TO_ALL) {
    shard_attr *params = shard_attr_new(a, SHARD_ATTR_SDY_ALL_TO_ALL);
    params->u.all_to_all.params = SHARD_NEW(a, shard_all_to_all_param);
    *params->u.all_to_all.params = st->all_to_all;
    params->u.all_to_all.num = 1;
    shard_op_set_attr(a, op, "params", params, true);
  }
  shard_op_set_attr(a, op, "out_sharding", shard_attr_sharding(a, st->sharding), true);
  op->loc = reshard->loc;
  op->span = reshard->span;
  shard_op_insert_before(reshard, op);
  return &op->results[0];
}

/* Replaces one illegal reshard. False when the conversion fails. */
static bool S_convert(shard_module *m, shard_ptrmap *manual_args, shard_op *reshard, shard_diag_engine *de) {
  shard_arena *a = m->arena;
  shard_tensor_sharding *out = S_reshard_sharding(reshard);
  shard_value *input = reshard->operands[0].value;
  shard_value *bypassed = S_bypass_barriers(input);
  shard_tensor_sharding *in = S_sharding_of(a, manual_args, bypassed);
  if (!in) in = shard_sharding_open(a, out->mesh_name, out->inline_mesh, S_rank(bypassed->type), true);
  const shard_mesh *in_mesh = shard_module_sharding_mesh(m, in);
  const shard_mesh *out_mesh = shard_module_sharding_mesh(m, out);

  int64_t *shape = SHARD_NEW_ARRAY(a, int64_t, in->rank ? in->rank : 1);
  const shard_type *t = bypassed->type;
  for (uint32_t d = 0; d < in->rank; d++)
    shape[d] = t && t->kind == SHARD_TYPE_TENSOR && d < t->rank ? t->dims[d] : SHARD_DYNAMIC_DIM;

  shard_reshard_step *steps;
  uint32_t n;
  switch (shard_reshard_plan(a, in, in_mesh, out, out_mesh, shape, &steps, &n)) {
  case SHARD_RESHARD_FORWARD:
    shard_value_replace_all_uses(&reshard->results[0], input);
    shard_op_erase(reshard);
    return true;
  case SHARD_RESHARD_STEPS: {
    shard_value *v = bypassed;
    for (uint32_t i = 0; i < n; i++) v = S_build_step(m, reshard, v, &steps[i]);
    shard_value_replace_all_uses(&reshard->results[0], v);
    shard_op_erase(reshard);
    return true;
  }
  case SHARD_RESHARD_INCOMPLETE: {
    /* Shardy would assert here; better an error than a wrong sharding. */
    shard_buf from, to;
    shard_buf_init(&from);
    shard_buf_init(&to);
    shard_sharding_print(&from, in);
    shard_sharding_print(&to, out);
    shard_error(de, reshard->span, "cannot lower the reshard from %s to %s into collectives", shard_buf_str(&from),
                shard_buf_str(&to));
    shard_buf_free(&from);
    shard_buf_free(&to);
    return false;
  }
  case SHARD_RESHARD_MAXIMAL_MESH:
  case SHARD_RESHARD_INCOMPATIBLE_MESHES:
  case SHARD_RESHARD_RANK_MISMATCH: break;
  }
  shard_error(de, reshard->span, "failed to legalize operation 'sdy.reshard' that was explicitly marked illegal");
  return false;
}

static bool S_collect(shard_op *op, void *ctx) {
  SHARD_VEC(shard_op *) *ops = ctx;
  if (S_is(op, "sdy.reshard")) SHARD_VEC_PUSH(*ops, op);
  return true;
}

bool shard_pass_reshard_to_collectives(shard_module *m, const char *options, const shard_pass_context *cx) {
  shard_diag_engine *de = cx->de;
  bool keep = false;
  shard_pass_option_bool(options, "keep-redundant-reshards", &keep);

  SHARD_VEC(shard_op *) ops = {0};
  shard_walk(m->top, S_collect, &ops);
  shard_ptrmap manual_args = {0};
  bool *illegal = shard_xcalloc(ops.len ? ops.len : 1, sizeof(bool));
  for (uint32_t i = 0; i < ops.len; i++) illegal[i] = !S_is_legal(m, &manual_args, ops.items[i], keep);
  bool ok = true;
  for (uint32_t i = 0; i < ops.len && ok; i++)
    if (illegal[i]) ok = S_convert(m, &manual_args, ops.items[i], de);
  free(illegal);
  shard_ptrmap_release(&manual_args);
  SHARD_VEC_FREE(ops);
  return ok;
}
