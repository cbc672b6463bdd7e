/* Sharding access for passes: where a module keeps its shardings and how to
 * replace them without disturbing anything else.
 *
 * Attributes may be shared (an alias used twice parses to one object), so
 * rewrites never mutate a sharding or a dictionary in place: they build a new
 * attribute and store it where the old one was. */
#include "pass/pass_shardings.h"

#include <string.h>

#include "ir/opdef.h"
#include "support/ptrmap.h"

/* ---- dictionaries --------------------------------------------------------- */

shard_attr *shard_dict_get(const shard_attr *dict, const char *name) {
  if (!dict || dict->kind != SHARD_ATTR_DICT) return NULL;
  for (uint32_t i = 0; i < dict->u.dict.num; i++)
    if (strcmp(dict->u.dict.entries[i].name, name) == 0) return dict->u.dict.entries[i].value;
  return NULL;
}

shard_attr *shard_dict_with(shard_arena *a, const shard_attr *dict, const char *name, shard_attr *value) {
  uint32_t n = dict && dict->kind == SHARD_ATTR_DICT ? dict->u.dict.num : 0;
  shard_attr *out = shard_attr_new(a, SHARD_ATTR_DICT);
  out->u.dict.entries = SHARD_NEW_ARRAY(a, shard_named_attr, n + 1);
  uint32_t k = 0;
  bool placed = value == NULL;
  for (uint32_t i = 0; i < n; i++) {
    const shard_named_attr *e = &dict->u.dict.entries[i];
    int c = strcmp(e->name, name);
    if (c == 0) continue;
    if (c > 0 && !placed) {
      out->u.dict.entries[k++] = (shard_named_attr){shard_arena_strdup(a, name), value, false};
      placed = true;
    }
    out->u.dict.entries[k++] = *e;
  }
  if (!placed) out->u.dict.entries[k++] = (shard_named_attr){shard_arena_strdup(a, name), value, false};
  out->u.dict.num = k;
  return out;
}

/* ---- shardings -------------------------------------------------------------- */

shard_tensor_sharding *shard_sharding_clone(shard_arena *a, const shard_tensor_sharding *s) {
  shard_tensor_sharding *c = SHARD_NEW(a, shard_tensor_sharding);
  *c = *s;
  return c;
}

static uint32_t S_manual_prefix(const shard_dim_sharding *d, const shard_attr *manual) {
  if (!manual || manual->kind != SHARD_ATTR_SDY_MANUAL_AXES) return 0;
  return shard_dim_manual_prefix(d, manual->u.manual_axes.names, manual->u.manual_axes.num);
}

shard_tensor_sharding *shard_sharding_erase_manual(shard_arena *a, const shard_tensor_sharding *s,
                                                   const shard_attr *manual) {
  if (!manual || manual->kind != SHARD_ATTR_SDY_MANUAL_AXES) return (shard_tensor_sharding *)s;
  return shard_sharding_drop_manual(a, s, manual->u.manual_axes.names, manual->u.manual_axes.num);
}

shard_tensor_sharding *shard_sharding_add_free(shard_arena *a, const shard_tensor_sharding *outer,
                                               const shard_tensor_sharding *inner, const shard_attr *manual) {
  if (!outer) return (shard_tensor_sharding *)inner;
  shard_tensor_sharding *c = shard_sharding_clone(a, inner);
  c->rank = outer->rank;
  c->dims = outer->rank ? SHARD_NEW_ARRAY(a, shard_dim_sharding, outer->rank) : NULL;
  for (uint32_t d = 0; d < outer->rank; d++) {
    uint32_t k = S_manual_prefix(&outer->dims[d], manual);
    const shard_dim_sharding *in = d < inner->rank ? &inner->dims[d] : NULL;
    uint32_t n = k + (in ? in->num_axes : 0);
    c->dims[d] = in ? *in : outer->dims[d];
    c->dims[d].num_axes = n;
    c->dims[d].axes = n ? SHARD_NEW_ARRAY(a, shard_axis_ref, n) : NULL;
    if (k) memcpy(c->dims[d].axes, outer->dims[d].axes, sizeof(shard_axis_ref) * k);
    if (in && in->num_axes) memcpy(c->dims[d].axes + k, in->axes, sizeof(shard_axis_ref) * in->num_axes);
  }
  c->replicated = outer->replicated;
  c->num_replicated = outer->num_replicated;
  c->unreduced = outer->unreduced;
  c->num_unreduced = outer->num_unreduced;
  c->reduction = SHARD_RED_SUM;
  return c;
}

const shard_mesh *shard_sharding_mesh(const shard_module *m, const shard_tensor_sharding *s) {
  return shard_module_sharding_mesh(m, s);
}

shard_tensor_sharding *shard_sharding_open(shard_arena *a, const char *mesh_name, const shard_mesh *inline_mesh,
                                           uint32_t rank, bool open) {
  shard_tensor_sharding *s = SHARD_NEW(a, shard_tensor_sharding);
  s->mesh_name = mesh_name;
  s->inline_mesh = (shard_mesh *)inline_mesh;
  s->rank = rank;
  s->dims = rank ? SHARD_NEW_ARRAY(a, shard_dim_sharding, rank) : NULL;
  for (uint32_t d = 0; d < rank; d++) {
    s->dims[d].is_open = open;
    s->dims[d].priority = SHARD_NO_PRIORITY;
  }
  return s;
}

/* ---- functions ----------------------------------------------------------- */

static shard_tensor_sharding *S_dict_sharding(const shard_attr *dict) {
  shard_attr *s = shard_dict_get(dict, "sdy.sharding");
  return s && s->kind == SHARD_ATTR_SDY_SHARDING ? s->u.sharding : NULL;
}

static shard_attr *S_sharding_attr(shard_arena *a, shard_tensor_sharding *s) {
  return s ? shard_attr_sharding(a, s) : NULL;
}

uint32_t shard_func_num_results(const shard_op *func) {
  shard_attr *ft = shard_op_attr(func, "function_type");
  if (!ft || ft->kind != SHARD_ATTR_TYPE || ft->u.type->kind != SHARD_TYPE_FUNCTION) return 0;
  return ft->u.type->num_results;
}

static uint32_t S_func_num_args(const shard_op *func) {
  shard_attr *ft = shard_op_attr(func, "function_type");
  if (!ft || ft->kind != SHARD_ATTR_TYPE || ft->u.type->kind != SHARD_TYPE_FUNCTION) return 0;
  return ft->u.type->num_inputs;
}

static shard_block *S_func_entry(const shard_op *func) { return func->num_regions ? func->regions[0].first : NULL; }

/* Element i of the array attribute `name` of func (a dictionary), or NULL. */
static shard_attr *S_func_attr_dict(const shard_op *func, const char *name, uint32_t i) {
  shard_attr *arr = shard_op_attr(func, name);
  if (!arr || arr->kind != SHARD_ATTR_ARRAY || i >= arr->u.array.num) return NULL;
  return arr->u.array.elems[i];
}

/* Replaces element i of the per-argument/result array `name`, creating the
 * array of empty dictionaries when absent and dropping it when all are empty. */
static void S_func_set_attr_dict(shard_arena *a, shard_op *func, const char *name, uint32_t n, uint32_t i,
                                 shard_attr *dict) {
  shard_attr *old = shard_op_attr(func, name);
  shard_attr *arr = shard_attr_new(a, SHARD_ATTR_ARRAY);
  arr->u.array.num = n;
  arr->u.array.elems = SHARD_NEW_ARRAY(a, shard_attr *, n);
  bool any = false;
  for (uint32_t k = 0; k < n; k++) {
    shard_attr *e = k == i                                                           ? dict
                    : (old && old->kind == SHARD_ATTR_ARRAY && k < old->u.array.num) ? old->u.array.elems[k]
                                                                                     : NULL;
    if (!e) e = shard_attr_new(a, SHARD_ATTR_DICT);
    if (e->kind != SHARD_ATTR_DICT || e->u.dict.num) any = true;
    arr->u.array.elems[k] = e;
  }
  if (any) shard_op_set_attr(a, func, name, arr, true);
  else shard_op_remove_attr(func, name);
}

shard_tensor_sharding *shard_func_arg_sharding(const shard_op *func, uint32_t i) {
  shard_block *entry = S_func_entry(func);
  if (entry) {
    if (i >= entry->num_args) return NULL;
    shard_attr *s = shard_value_attr(&entry->args[i], "sdy.sharding");
    return s && s->kind == SHARD_ATTR_SDY_SHARDING ? s->u.sharding : NULL;
  }
  return S_dict_sharding(S_func_attr_dict(func, "arg_attrs", i));
}

void shard_func_set_arg_sharding(shard_arena *a, shard_op *func, uint32_t i, shard_tensor_sharding *s) {
  shard_block *entry = S_func_entry(func);
  if (entry) {
    if (i >= entry->num_args) return;
    if (s) shard_value_set_attr(a, &entry->args[i], "sdy.sharding", shard_attr_sharding(a, s));
    else shard_value_remove_attr(&entry->args[i], "sdy.sharding");
    return;
  }
  shard_attr *dict = shard_dict_with(a, S_func_attr_dict(func, "arg_attrs", i), "sdy.sharding", S_sharding_attr(a, s));
  S_func_set_attr_dict(a, func, "arg_attrs", S_func_num_args(func), i, dict);
}

shard_tensor_sharding *shard_func_result_sharding(const shard_op *func, uint32_t i) {
  return S_dict_sharding(S_func_attr_dict(func, "res_attrs", i));
}

/* Would setting s as the sharding in element i of the n-element list `name`
 * leave the list as it is? Then rebuilding the list (n pointers, so setting
 * every result of a func with many results was quadratic) can be skipped. */
static bool S_func_dict_holds(const shard_op *func, const char *name, uint32_t n, uint32_t i,
                              const shard_tensor_sharding *s) {
  shard_attr *arr = shard_op_attr(func, name);
  if (!s || !arr || arr->kind != SHARD_ATTR_ARRAY || arr->u.array.num != n || i >= n) return false;
  const shard_tensor_sharding *cur = S_dict_sharding(arr->u.array.elems[i]);
  return cur && (cur == s || shard_sharding_equal(cur, s));
}

void shard_func_set_result_sharding(shard_arena *a, shard_op *func, uint32_t i, shard_tensor_sharding *s) {
  uint32_t n = shard_func_num_results(func);
  if (S_func_dict_holds(func, "res_attrs", n, i, s)) return;
  shard_attr *dict = shard_dict_with(a, S_func_attr_dict(func, "res_attrs", i), "sdy.sharding", S_sharding_attr(a, s));
  S_func_set_attr_dict(a, func, "res_attrs", n, i, dict);
}

void shard_func_set_result_shardings(shard_arena *a, shard_op *func, shard_tensor_sharding *const *s) {
  uint32_t n = shard_func_num_results(func);
  shard_attr *old = shard_op_attr(func, "res_attrs");
  bool have = old && old->kind == SHARD_ATTR_ARRAY;
  shard_attr *arr = NULL;
  bool any = false;
  for (uint32_t i = 0; i < n; i++) {
    if (!s[i] || S_func_dict_holds(func, "res_attrs", n, i, s[i])) continue;
    if (!arr) {
      /* The list as S_func_set_attr_dict rebuilds it, once for all results. */
      arr = shard_attr_new(a, SHARD_ATTR_ARRAY);
      arr->u.array.num = n;
      arr->u.array.elems = SHARD_NEW_ARRAY(a, shard_attr *, n ? n : 1);
      for (uint32_t k = 0; k < n; k++) {
        shard_attr *e = have && k < old->u.array.num ? old->u.array.elems[k] : NULL;
        arr->u.array.elems[k] = e ? e : shard_attr_new(a, SHARD_ATTR_DICT);
      }
    }
    arr->u.array.elems[i] = shard_dict_with(a, arr->u.array.elems[i], "sdy.sharding", S_sharding_attr(a, s[i]));
  }
  if (!arr) return;
  for (uint32_t k = 0; k < n && !any; k++) {
    const shard_attr *e = arr->u.array.elems[k];
    any = e->kind != SHARD_ATTR_DICT || e->u.dict.num;
  }
  if (any) shard_op_set_attr(a, func, "res_attrs", arr, true);
  else shard_op_remove_attr(func, "res_attrs");
}

shard_attr *shard_func_result_attr(const shard_op *func, uint32_t i, const char *name) {
  return shard_dict_get(S_func_attr_dict(func, "res_attrs", i), name);
}

void shard_func_set_result_attr(shard_arena *a, shard_op *func, uint32_t i, const char *name, shard_attr *value) {
  shard_attr *old = S_func_attr_dict(func, "res_attrs", i);
  if (!value && !shard_dict_get(old, name)) return;
  shard_attr *dict = shard_dict_with(a, old, name, value);
  S_func_set_attr_dict(a, func, "res_attrs", shard_func_num_results(func), i, dict);
}

void shard_func_remove_arg_result_attr(shard_arena *a, shard_op *func, const char *name) {
  shard_block *entry = S_func_entry(func);
  for (uint32_t i = 0; entry && i < entry->num_args; i++) shard_value_remove_attr(&entry->args[i], name);
  static const char *const lists[] = {"arg_attrs", "res_attrs"};
  for (int l = 0; l < 2; l++) {
    shard_attr *arr = shard_op_attr(func, lists[l]);
    if (!arr || arr->kind != SHARD_ATTR_ARRAY) continue;
    uint32_t n = arr->u.array.num;
    for (uint32_t i = 0; i < n; i++) {
      shard_attr *dict = S_func_attr_dict(func, lists[l], i);
      if (shard_dict_get(dict, name))
        S_func_set_attr_dict(a, func, lists[l], n, i, shard_dict_with(a, dict, name, NULL));
    }
  }
}

/* ---- values ----------------------------------------------------------------- */

/* The op names this file tests, compared by definition (ir.h). */
static shard_op_name K_func_func = {"func.func", NULL};
static shard_op_name K_sdy_data_flow_edge = {"sdy.data_flow_edge", NULL};
static shard_op_name K_sdy_reshard = {"sdy.reshard", NULL};
static shard_op_name K_sdy_sharding_constraint = {"sdy.sharding_constraint", NULL};

static bool S_single_sharding_op(const shard_op *op) {
  return shard_op_is(op, &K_sdy_sharding_constraint) || shard_op_is(op, &K_sdy_reshard) ||
         shard_op_is(op, &K_sdy_data_flow_edge);
}

shard_tensor_sharding *shard_value_sharding(const shard_value *v) {
  if (!v->def) {
    shard_op *owner = v->block && v->block->parent ? v->block->parent->parent : NULL;
    if (owner && shard_op_is(owner, &K_func_func) && v->block == owner->regions[0].first) {
      shard_attr *s = shard_value_attr(v, "sdy.sharding");
      return s && s->kind == SHARD_ATTR_SDY_SHARDING ? s->u.sharding : NULL;
    }
    return NULL;
  }
  const shard_op *op = v->def;
  if (S_single_sharding_op(op)) {
    shard_attr *s = shard_op_attr(op, "sharding");
    return s && s->kind == SHARD_ATTR_SDY_SHARDING ? s->u.sharding : NULL;
  }
  shard_attr *pv = shard_op_attr(op, "sdy.sharding");
  if (!pv || pv->kind != SHARD_ATTR_SDY_PER_VALUE || v->index >= pv->u.per_value->num) return NULL;
  return &pv->u.per_value->shardings[v->index];
}

shard_tensor_sharding *shard_value_sharding_or_out(const shard_value *v) {
  const shard_op *op = v->def;
  if (op && strncmp(op->name, "sdy.", 4) == 0) {
    const shard_attr *out = shard_op_attr(op, "out_sharding");
    if (out && out->kind == SHARD_ATTR_SDY_SHARDING) return out->u.sharding;
  }
  return shard_value_sharding(v);
}

void shard_value_set_sharding(shard_arena *a, shard_value *v, shard_tensor_sharding *s) {
  if (!v->def) {
    shard_value_set_attr(a, v, "sdy.sharding", shard_attr_sharding(a, s));
    return;
  }
  shard_op *op = v->def;
  if (S_single_sharding_op(op)) {
    shard_op_set_attr(a, op, "sharding", shard_attr_sharding(a, s), true);
    return;
  }
  shard_attr *old = shard_op_attr(op, "sdy.sharding");
  bool have = old && old->kind == SHARD_ATTR_SDY_PER_VALUE && old->u.per_value->num == op->num_results;
  shard_tensor_sharding *list = SHARD_NEW_ARRAY(a, shard_tensor_sharding, op->num_results);
  for (uint32_t i = 0; i < op->num_results; i++) {
    if (i == v->index) list[i] = *s;
    else if (have) list[i] = old->u.per_value->shardings[i];
    else {
      shard_type *t = op->results[i].type;
      uint32_t rank = t && t->kind == SHARD_TYPE_TENSOR ? t->rank : 0;
      list[i] = *shard_sharding_open(a, s->mesh_name, s->inline_mesh, rank, true);
    }
  }
  shard_op_set_attr(a, op, "sdy.sharding", shard_attr_per_value(a, list, op->num_results), false);
}

/* ---- ops -------------------------------------------------------------------- */

shard_op *shard_op_new_named(shard_arena *a, const char *name, uint32_t num_operands, shard_value *const *operands,
                             uint32_t num_results, shard_type *const *result_types, uint32_t num_regions) {
  shard_op *op = shard_op_create(a, name, num_operands, operands, num_results, result_types, num_regions);
  op->def = shard_op_def_lookup(name, strlen(name));
  return op;
}

shard_op *shard_pass_op_like(shard_arena *a, const char *name, const shard_op *like, uint32_t num_regions) {
  shard_value **operands = like->num_operands ? SHARD_NEW_ARRAY(a, shard_value *, like->num_operands) : NULL;
  for (uint32_t i = 0; i < like->num_operands; i++) operands[i] = like->operands[i].value;
  shard_type **types = like->num_results ? SHARD_NEW_ARRAY(a, shard_type *, like->num_results) : NULL;
  for (uint32_t i = 0; i < like->num_results; i++) types[i] = like->results[i].type;
  shard_op *op = shard_op_new_named(a, name, like->num_operands, operands, like->num_results, types, num_regions);
  op->loc = like->loc;
  op->span = like->span;
  return op;
}

void shard_pass_move_body(shard_arena *a, shard_region *from, shard_region *to, const char *old_term,
                          const char *new_term, bool drop_arg_attrs) {
  to->first = from->first;
  to->last = from->last;
  from->first = from->last = NULL;
  for (shard_block *b = to->first; b; b = b->next) {
    b->parent = to;
    if (drop_arg_attrs)
      for (uint32_t i = 0; i < b->num_args; i++) {
        b->arg_info[i].attrs = NULL;
        b->arg_info[i].num_attrs = 0;
      }
    shard_op *term = b->last;
    if (!term || strcmp(term->name, old_term) != 0) continue;
    shard_value **vals = term->num_operands ? SHARD_NEW_ARRAY(a, shard_value *, term->num_operands) : NULL;
    for (uint32_t i = 0; i < term->num_operands; i++) vals[i] = term->operands[i].value;
    shard_op *ret = shard_op_new_named(a, new_term, term->num_operands, vals, 0, NULL, 0);
    ret->loc = term->loc;
    ret->span = term->span;
    shard_op_insert_before(term, ret);
    shard_op_erase(term);
  }
}

/* ---- the module walk ------------------------------------------------------ */

/* How many rewritten attributes a rewrite remembers (a power of two). */
#define SHARD_REWRITE_MEMO_SLOTS 1024

typedef struct map_state {
  shard_module *m;
  shard_sharding_map_fn fn; /* one of fn and rewrite */
  shard_sharding_rewrite_fn rewrite;
  void *ctx;
  /* rewrite only: source attribute -> its rewritten attribute, by the
   * attribute's pointer hash, the newest in each slot. Attributes are
   * shared (by aliasing, or one object set on several ops), so an attribute
   * seen again maps to the same rewrite instead of a new copy (a rewrite fn
   * is a function of the sharding alone). The uses of one attribute come
   * close together in the walk, so a fixed table finds nearly all of them
   * again (every one, on the benchmark modules) where a map of every
   * rewritten attribute grew to megabytes that were written once and never
   * read; an attribute whose slot was taken meanwhile is only copied again.
   * Kept attributes are not stored: re-checking one is cheaper than the
   * memory to remember it. shard_map_shardings callbacks may count, so they
   * see every occurrence. */
  struct {
    const shard_attr *from;
    shard_attr *to;
  } memo[SHARD_REWRITE_MEMO_SLOTS];
} map_state;

/* What replaces `s`: `s` itself, or a sharding fn made, or *tmp. */
static shard_tensor_sharding *S_apply(map_state *st, shard_tensor_sharding *s, shard_tensor_sharding *tmp) {
  if (st->fn) return st->fn(s, st->ctx);
  return st->rewrite(s, tmp, st->ctx) ? tmp : s;
}

/* A new sharding attribute when fn changed `s`, else NULL. */
static shard_attr *S_map_one(map_state *st, shard_tensor_sharding *s) {
  shard_tensor_sharding tmp;
  shard_tensor_sharding *n = S_apply(st, s, &tmp);
  if (n == s) return NULL;
  return shard_attr_sharding(st->m->arena, n == &tmp ? shard_sharding_clone(st->m->arena, &tmp) : n);
}

/* The rewritten attribute (a sharding or sharding list), or NULL if unchanged. */
static shard_attr *S_map_attr_new(map_state *st, shard_attr *at) {
  if (at->kind == SHARD_ATTR_SDY_SHARDING) {
    shard_attr *n = S_map_one(st, at->u.sharding);
    if (n) n->span = at->span;
    return n;
  }
  if (at->kind != SHARD_ATTR_SDY_PER_VALUE) return NULL;
  const shard_sharding_per_value *pv = at->u.per_value;
  shard_tensor_sharding *list = NULL;
  for (uint32_t i = 0; i < pv->num; i++) {
    shard_tensor_sharding tmp;
    shard_tensor_sharding *n = S_apply(st, &pv->shardings[i], &tmp);
    if (n == &pv->shardings[i]) continue;
    if (!list) {
      list = SHARD_NEW_ARRAY(st->m->arena, shard_tensor_sharding, pv->num);
      memcpy(list, pv->shardings, sizeof(*list) * pv->num);
    }
    list[i] = *n;
  }
  if (!list) return NULL;
  shard_attr *out = shard_attr_per_value(st->m->arena, list, pv->num);
  out->span = at->span;
  return out;
}

static shard_attr *S_map_attr(map_state *st, shard_attr *at) {
  if (!st->rewrite) return S_map_attr_new(st, at);
  if (at->kind != SHARD_ATTR_SDY_SHARDING && at->kind != SHARD_ATTR_SDY_PER_VALUE) return NULL;
  uint32_t slot = shard_ptrmap_hash(at) & (SHARD_REWRITE_MEMO_SLOTS - 1);
  if (st->memo[slot].from == at) return st->memo[slot].to;
  shard_attr *n = S_map_attr_new(st, at);
  if (n) {
    st->memo[slot].from = at;
    st->memo[slot].to = n;
  }
  return n;
}

static void S_map_func_dicts(map_state *st, shard_op *func, const char *name) {
  shard_attr *arr = shard_op_attr(func, name);
  if (!arr || arr->kind != SHARD_ATTR_ARRAY) return;
  shard_attr *copy = NULL;
  for (uint32_t i = 0; i < arr->u.array.num; i++) {
    shard_attr *dict = arr->u.array.elems[i];
    shard_attr *s = shard_dict_get(dict, "sdy.sharding");
    shard_attr *n = s ? S_map_attr(st, s) : NULL;
    if (!n) continue;
    if (!copy) {
      copy = shard_attr_new(st->m->arena, SHARD_ATTR_ARRAY);
      copy->u.array.num = arr->u.array.num;
      copy->u.array.elems = shard_arena_dup(st->m->arena, arr->u.array.elems, sizeof(shard_attr *) * arr->u.array.num);
    }
    copy->u.array.elems[i] = shard_dict_with(st->m->arena, dict, "sdy.sharding", n);
  }
  if (copy) shard_op_set_attr(st->m->arena, func, name, copy, true);
}

static bool S_map_op(shard_op *op, void *ctx) {
  map_state *st = ctx;
  if (shard_op_is(op, &K_func_func)) {
    shard_block *entry = S_func_entry(op);
    for (uint32_t i = 0; entry && i < entry->num_args; i++) {
      shard_attr *s = shard_value_attr(&entry->args[i], "sdy.sharding");
      shard_attr *n = s ? S_map_attr(st, s) : NULL;
      if (n) shard_value_set_attr(st->m->arena, &entry->args[i], "sdy.sharding", n);
    }
    S_map_func_dicts(st, op, "arg_attrs");
    S_map_func_dicts(st, op, "res_attrs");
    return true;
  }
  for (uint32_t i = 0; i < op->num_attrs; i++) {
    shard_attr *n = S_map_attr(st, op->attrs[i].value);
    if (n) op->attrs[i].value = n;
  }
  return true;
}

void shard_map_shardings(shard_module *m, shard_sharding_map_fn fn, void *ctx) {
  map_state st = {.m = m, .fn = fn, .ctx = ctx};
  shard_walk(m->top, S_map_op, &st);
}

void shard_rewrite_shardings(shard_module *m, shard_sharding_rewrite_fn fn, void *ctx) {
  map_state st = {.m = m, .rewrite = fn, .ctx = ctx};
  shard_walk(m->top, S_map_op, &st);
}
