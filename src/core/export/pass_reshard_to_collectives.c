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

#include "ir/opdef.h"
#include "pass/pass.h"
#include "pass/pass_shardings.h"
#include "export/reshard.h"
#include "support/ptrmap.h"
#include "support/strmap.h"

static bool S_is(const shard_op *op, const char *name) { return strcmp(op->name, name) == 0; }

static shard_tensor_sharding *S_per_value_at(const shard_op *op, const char *name, uint32_t i) {
  shard_attr *pv = shard_op_attr(op, name);
  if (!pv || pv->kind != SHARD_ATTR_SDY_PER_VALUE || i >= pv->u.per_value->num) return NULL;
  return &pv->u.per_value->shardings[i];
}

/* What one run of the pass keeps. A plan depends only on the two shardings
 * (their meshes are the module's, by name) and the global shape, and the
 * pass edits no sharding in place, so a plan is made once per distinct
 * (input, target, shape), and the collectives of equal reshards share their
 * axis lists, shardings and attributes (a program repeats the same
 * reshards: at 100k ops the plans and the copies of their results were
 * more than half of the pass's time and two thirds of its memory). */
/* How many plans S_plan remembers by pointer. */
#define R2C_RECENT 4

typedef struct r2c {
  shard_module *m;
  shard_diag_engine *de;
  /* manual computation argument -> its sharding without the manual axes */
  shard_ptrmap manual_args;
  /* meshes by symbol name: the pass adds none (a look-up of the symbol was
   * a sixth of the pass) */
  shard_mesh_memo meshes;
  /* the key of (input, target, shape) (S_plan_by_key) -> its plan */
  shard_strmap plans;
  shard_arena *keys; /* the keys and the plan entries: freed with the pass */
  shard_buf key;
  /* the last plans looked up, by the pointers of their input, target and
   * type: equal reshards mostly share them (explicit reshards shares equal
   * targets), and a hit skips building the key */
  struct {
    const shard_tensor_sharding *in, *out;
    const shard_type *type;
    struct plan_entry *plan;
  } recent[R2C_RECENT];
  uint32_t next_recent;
  /* the definition of each step's op (S_step_names) and the name of
   * out_sharding as the lookups expect it: asked once, not per collective */
  const shard_op_def *step_defs[SHARD_RESHARD_ALL_GATHER + 1];
  const char *out_sharding_name;
} r2c;

typedef struct plan_entry plan_entry;
struct plan_entry {
  shard_reshard_outcome outcome;
  shard_reshard_step *steps;
  uint32_t num_steps;
  /* per step, made by the first reshard that builds it */
  shard_attr **axes, **out;
  const char **axes_name; /* the name of axes[k] (NULL: none), as shard_attr_known_name has it */
};

/* Shardy's getSharding(Value) for the values a reshard can read: results of
 * collectives (out_sharding), edge owners of data-flow ops (stablehlo.while
 * block arguments take the matching result's sharding; manual and named
 * computations their in/out shardings) and what pass_shardings knows. */
static shard_tensor_sharding *S_sharding_of(shard_arena *a, shard_ptrmap *manual_args, const shard_value *v) {
  if (v->def) {
    const shard_op *op = v->def;
    /* only an sdy op's out_sharding counts: the name first, most
     * producers are not sdy ops */
    if (strncmp(op->name, "sdy.", 4) != 0) return shard_value_sharding(v);
    shard_attr *o = shard_op_attr(op, "out_sharding");
    if (o && o->kind == SHARD_ATTR_SDY_SHARDING) return o->u.sharding;
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
static bool S_is_legal(r2c *c, const shard_op *reshard, bool keep_redundant) {
  shard_tensor_sharding *out = S_reshard_sharding(reshard);
  if (!out || reshard->num_operands != 1 || reshard->num_results != 1) return true;
  shard_tensor_sharding *in = S_input_sharding(c->m->arena, &c->manual_args, reshard);
  if (keep_redundant && shard_reshard_equivalent(in, out)) return true;
  const shard_mesh *in_mesh = in ? shard_mesh_memo_get(&c->meshes, c->m, in) : NULL;
  const shard_mesh *out_mesh = shard_mesh_memo_get(&c->meshes, c->m, out);
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

static const char *const S_step_names[] = {
    [SHARD_RESHARD_ALL_SLICE] = "sdy.all_slice",
    [SHARD_RESHARD_COLLECTIVE_PERMUTE] = "sdy.collective_permute",
    [SHARD_RESHARD_ALL_TO_ALL] = "sdy.all_to_all",
    [SHARD_RESHARD_ALL_GATHER] = "sdy.all_gather",
};

/* Reverses v's use list: what moving its uses one by one to a fresh value
 * (shard_value_replace_all_uses) leaves there. */
static void S_reverse_uses(shard_value *v) {
  shard_operand *rest = v->first_use, *done = NULL;
  while (rest) {
    shard_operand *next = rest->next_use;
    rest->next_use = done;
    done = rest;
    rest = next;
  }
  v->first_use = done;
  for (shard_operand **link = &v->first_use; *link; link = &(*link)->next_use) (*link)->prev_use_link = link;
}

/* The last collective of a reshard is the reshard op itself, renamed: the
 * same IR as a new op put before it with the reshard's uses moved to it and
 * the reshard erased (the same place, operand, type, location and span, the
 * uses in the order the move leaves them, no attributes of the reshard's),
 * without a second op per reshard (a seventh of shard lower's memory at
 * 100k ops). */
static shard_op *S_reuse_reshard(shard_op *reshard, shard_value *input, const char *name, const shard_op_def *def) {
  shard_operand_set(&reshard->operands[0], input);
  S_reverse_uses(&reshard->results[0]);
  reshard->results[0].name = NULL;
  reshard->name = name;
  reshard->def = def;
  reshard->attrs = NULL;
  reshard->num_attrs = 0;
  reshard->flags = 0;
  return reshard;
}

/* Builds one collective before `reshard`, exactly as the parser would,
 * with the attributes of step k of `e`; the last step (`last`) reuses the
 * reshard op (S_reuse_reshard). */
static shard_value *S_build_step(const r2c *c, shard_op *reshard, shard_value *input, plan_entry *e, uint32_t k,
                                 bool last) {
  shard_arena *a = c->m->arena;
  const shard_reshard_step *st = &e->steps[k];
  shard_type *type = reshard->results[0].type;
  shard_op *op = last ? S_reuse_reshard(reshard, input, S_step_names[st->kind], c->step_defs[st->kind])
                      : shard_op_new_named(a, S_step_names[st->kind], 1, &input, 1, &type, 0);
  if (!e->out[k]) {
    if (st->kind == SHARD_RESHARD_ALL_SLICE || st->kind == SHARD_RESHARD_ALL_GATHER)
      e->axes_name[k] = st->kind == SHARD_RESHARD_ALL_SLICE ? "slicing_axes" : "gathering_axes";
    else if (st->kind == SHARD_RESHARD_ALL_TO_ALL) e->axes_name[k] = "params";
    if (e->axes_name[k]) e->axes_name[k] = shard_attr_known_name(e->axes_name[k]);
    if (st->kind == SHARD_RESHARD_ALL_SLICE || st->kind == SHARD_RESHARD_ALL_GATHER) {
      e->axes[k] = shard_attr_new(a, SHARD_ATTR_SDY_AXIS_LISTS);
      e->axes[k]->u.axis_lists.dims = st->axes_per_dim;
      e->axes[k]->u.axis_lists.num = st->rank;
    } else if (st->kind == SHARD_RESHARD_ALL_TO_ALL) {
      e->axes[k] = shard_attr_new(a, SHARD_ATTR_SDY_ALL_TO_ALL);
      e->axes[k]->u.all_to_all.params = SHARD_NEW(a, shard_all_to_all_param);
      *e->axes[k]->u.all_to_all.params = st->all_to_all;
      e->axes[k]->u.all_to_all.num = 1;
    }
    e->out[k] = shard_attr_sharding(a, st->sharding);
  }
  /* The op has no attributes yet: its list is made at once, sorted, with
   * the names the lookups expect (what shard_op_set_attr makes, without a
   * list per attribute). */
  const char *out_name = c->out_sharding_name;
  const char *axes_name = e->axes_name[k];
  if (axes_name && out_name) {
    shard_named_attr *l = SHARD_NEW_ARRAY(a, shard_named_attr, 2);
    bool axes_first = strcmp(axes_name, out_name) < 0;
    l[axes_first ? 0 : 1] = (shard_named_attr){axes_name, e->axes[k], true};
    l[axes_first ? 1 : 0] = (shard_named_attr){out_name, e->out[k], true};
    op->attrs = l;
    op->num_attrs = 2;
  } else {
    if (e->axes[k])
      shard_op_set_attr(a, op,
                        st->kind == SHARD_RESHARD_ALL_SLICE    ? "slicing_axes"
                        : st->kind == SHARD_RESHARD_ALL_GATHER ? "gathering_axes"
                                                               : "params",
                        e->axes[k], true);
    shard_op_set_attr(a, op, "out_sharding", e->out[k], true);
  }
  if (last) return &op->results[0];
  op->loc = reshard->loc;
  op->span = reshard->span;
  shard_op_insert_before(reshard, op);
  return &op->results[0];
}

/* The plan from `in` to `out` for a value of type `t`, made once per
 * distinct key. */
static plan_entry *S_plan_by_key(r2c *c, const shard_tensor_sharding *in, const shard_tensor_sharding *out,
                                 const shard_type *t);

/* S_plan_by_key, first among the recent plans: shardings are never edited
 * in place, so the same pointers mean the same key. */
static plan_entry *S_plan(r2c *c, const shard_tensor_sharding *in, const shard_tensor_sharding *out,
                          const shard_type *t) {
  for (uint32_t i = 0; i < R2C_RECENT; i++)
    if (c->recent[i].plan && c->recent[i].in == in && c->recent[i].out == out && c->recent[i].type == t)
      return c->recent[i].plan;
  plan_entry *e = S_plan_by_key(c, in, out, t);
  c->recent[c->next_recent].in = in;
  c->recent[c->next_recent].out = out;
  c->recent[c->next_recent].type = t;
  c->recent[c->next_recent].plan = e;
  c->next_recent = (c->next_recent + 1) % R2C_RECENT;
  return e;
}

static void S_key_i64(shard_buf *b, int64_t v) { shard_buf_putn(b, (const char *)&v, sizeof v); }

static plan_entry *S_plan_by_key(r2c *c, const shard_tensor_sharding *in, const shard_tensor_sharding *out,
                                 const shard_type *t) {
  shard_buf_clear(&c->key);
  shard_sharding_key(&c->key, in);
  shard_sharding_key(&c->key, out);
  for (uint32_t d = 0; d < in->rank; d++)
    S_key_i64(&c->key, t && t->kind == SHARD_TYPE_TENSOR && d < t->rank ? t->dims[d] : SHARD_DYNAMIC_DIM);
  /* a lookup, not a slot: a slot would keep the scratch key's pointer */
  plan_entry *e = shard_strmap_get(&c->plans, c->key.data, c->key.len);
  if (e) return e;
  e = SHARD_NEW(c->keys, plan_entry);
  /* the key must outlive the map: a copy in the pass's arena */
  const char *key = shard_arena_strndup(c->keys, c->key.data, c->key.len);
  int64_t *shape = SHARD_NEW_ARRAY(c->keys, int64_t, in->rank ? in->rank : 1);
  for (uint32_t d = 0; d < in->rank; d++)
    shape[d] = t && t->kind == SHARD_TYPE_TENSOR && d < t->rank ? t->dims[d] : SHARD_DYNAMIC_DIM;
  shard_module *m = c->m;
  e->outcome = shard_reshard_plan(m->arena, in, shard_mesh_memo_get(&c->meshes, m, in), out,
                                  shard_mesh_memo_get(&c->meshes, m, out), shape, &e->steps, &e->num_steps);
  e->axes = SHARD_NEW_ARRAY(c->keys, shard_attr *, e->num_steps + 1);
  e->out = SHARD_NEW_ARRAY(c->keys, shard_attr *, e->num_steps + 1);
  e->axes_name = SHARD_NEW_ARRAY(c->keys, const char *, e->num_steps + 1);
  shard_strmap_put(&c->plans, key, c->key.len, e);
  return e;
}

/* Replaces one illegal reshard. False when the conversion fails. */
static bool S_convert(r2c *c, shard_op *reshard) {
  shard_module *m = c->m;
  shard_arena *a = m->arena;
  shard_tensor_sharding *out = S_reshard_sharding(reshard);
  shard_value *input = reshard->operands[0].value;
  shard_value *bypassed = S_bypass_barriers(input);
  shard_tensor_sharding *in = S_sharding_of(a, &c->manual_args, bypassed);
  if (!in) in = shard_sharding_open(a, out->mesh_name, out->inline_mesh, S_rank(bypassed->type), true);
  plan_entry *e = S_plan(c, in, out, bypassed->type);
  switch (e->outcome) {
  case SHARD_RESHARD_FORWARD:
    shard_value_replace_all_uses(&reshard->results[0], input);
    shard_op_erase(reshard);
    return true;
  case SHARD_RESHARD_STEPS: {
    shard_value *v = bypassed;
    for (uint32_t i = 0; i < e->num_steps; i++) v = S_build_step(c, reshard, v, e, i, i + 1 == e->num_steps);
    if (!e->num_steps) {
      shard_value_replace_all_uses(&reshard->results[0], v);
      shard_op_erase(reshard);
    }
    return true;
  }
  case SHARD_RESHARD_INCOMPLETE: {
    /* Shardy would assert here; better an error than a wrong sharding. */
    shard_buf from, to;
    shard_buf_init(&from);
    shard_buf_init(&to);
    shard_sharding_print(&from, in);
    shard_sharding_print(&to, out);
    shard_error(c->de, reshard->span, "cannot lower the reshard from %s to %s into collectives", shard_buf_str(&from),
                shard_buf_str(&to));
    shard_buf_free(&from);
    shard_buf_free(&to);
    return false;
  }
  case SHARD_RESHARD_MAXIMAL_MESH:
  case SHARD_RESHARD_INCOMPATIBLE_MESHES:
  case SHARD_RESHARD_RANK_MISMATCH: break;
  }
  shard_error(c->de, reshard->span, "failed to legalize operation 'sdy.reshard' that was explicitly marked illegal");
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
  r2c c = {.m = m, .de = de, .keys = shard_arena_new(), .out_sharding_name = shard_attr_known_name("out_sharding")};
  for (uint32_t k = 0; k <= SHARD_RESHARD_ALL_GATHER; k++)
    c.step_defs[k] = shard_op_def_lookup(S_step_names[k], strlen(S_step_names[k]));
  shard_buf_init(&c.key);
  bool *illegal = shard_xcalloc(ops.len ? ops.len : 1, sizeof(bool));
  for (uint32_t i = 0; i < ops.len; i++) illegal[i] = !S_is_legal(&c, ops.items[i], keep);
  bool ok = true;
  for (uint32_t i = 0; i < ops.len && ok; i++)
    if (illegal[i]) ok = S_convert(&c, ops.items[i]);
  free(illegal);
  shard_ptrmap_release(&c.manual_args);
  shard_strmap_release(&c.plans);
  shard_arena_free(c.keys);
  shard_buf_free(&c.key);
  SHARD_VEC_FREE(ops);
  return ok;
}
