/* Export passes that make the shardings at a program's boundary usable by
 * partitioners that can't pad:
 *
 *  -sdy-update-non-divisible-input-output-shardings  shrinks every func
 *      argument/result sharding, call result sharding and the in/out
 *      shardings of manual computations, dimension by dimension, to the
 *      largest prefix of its axes (possibly ending in a sub-axis) whose size
 *      divides the dimension;
 *  -sdy-remove-sub-axes-in-input-output-shardings  cuts each open
 *      dimension of the main func's argument and result shardings at its
 *      first sub-axis (closed dimensions are left alone);
 *  -sdy-pad-for-divisibility  pads every value whose sharding does not
 *      divide its shape (function inputs and outputs must be divisible),
 *      see the overview above its section. */
#include <stdio.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "ir/call_graph.h"
#include "ir/clone.h"
#include "ir/opdef.h"
#include "pass/pass.h"
#include "pass/pass_shardings.h"
#include "support/ptrmap.h"
#include "sdy/sharding.h"

static bool S_is(const shard_op *op, const char *name) { return strcmp(op->name, name) == 0; }
/* The op names the walks test against every op, compared by definition (ir.h). */
static shard_op_name K_func_call = {"func.call", NULL};
static shard_op_name K_sdy_manual_computation = {"sdy.manual_computation", NULL};

/* ---- -sdy-update-non-divisible-input-output-shardings ------------------------- */

/* Keeps axes[0..keep) (manual axes of a manual computation) and replaces the
 * rest by its largest prefix whose size divides `dim` (Shardy's
 * getEvenlySharded, on one dimension). */
static bool S_dim_is_even(const shard_dim_sharding *d, uint32_t keep, int64_t dim, const shard_mesh *mesh) {
  /* (no pointer arithmetic on a dimension without axes: NULL + 0 is undefined) */
  const shard_axis_ref *rest = d->num_axes > keep ? d->axes + keep : NULL;
  int64_t sharded = shard_axes_product(rest, d->num_axes - keep, mesh);
  return sharded <= 0 || dim % sharded == 0;
}

static void S_even_dim(shard_arena *a, shard_dim_sharding *d, uint32_t keep, int64_t dim, const shard_mesh *mesh) {
  if (S_dim_is_even(d, keep, dim, mesh)) return;
  shard_axis_ref *axes = SHARD_NEW_ARRAY(a, shard_axis_ref, d->num_axes + 1);
  if (keep) memcpy(axes, d->axes, sizeof(shard_axis_ref) * keep);
  uint32_t n = keep;
  int64_t remaining = dim;
  for (uint32_t i = keep; i < d->num_axes; i++) {
    const shard_axis_ref *cur = &d->axes[i];
    int64_t size = shard_axis_size(cur, mesh);
    int64_t g = shard_gcd(size, remaining);
    if (g == 1) break;
    if (g == size) {
      axes[n++] = *cur;
      remaining /= g;
      continue;
    }
    /* Only part of this axis fits: take its major part and stop. */
    shard_axis_ref part = shard_axis_sub(cur->name, shard_axis_pre(cur), g);
    axes[n++] = part;
    break;
  }
  d->axes = axes;
  d->num_axes = n;
}

/* `s` made evenly sharded for `type`: `s` itself when it is already (or
 * the type is dynamic or not a tensor), else a copy; nearly every boundary
 * sharding is even, and copying each was a few MB of a wide module's
 * export. `mc` is the manual computation whose manual axes each dimension
 * keeps in front, or NULL. */
static shard_tensor_sharding *S_evenly_sharded(shard_module *m, const shard_tensor_sharding *s, const shard_type *type,
                                               const shard_op *mc) {
  if (!s || !shard_type_is_static_tensor(type) || type->rank != s->rank) return (shard_tensor_sharding *)s;
  const shard_mesh *mesh = shard_sharding_mesh(m, s);
  if (!mesh) return (shard_tensor_sharding *)s;
  shard_attr *manual = mc ? shard_op_attr(mc, "manual_axes") : NULL;
  shard_tensor_sharding *t = NULL;
  for (uint32_t d = 0; d < s->rank; d++) {
    uint32_t keep = manual && manual->kind == SHARD_ATTR_SDY_MANUAL_AXES
                        ? shard_dim_manual_prefix(&s->dims[d], manual->u.manual_axes.names, manual->u.manual_axes.num)
                        : 0;
    if (S_dim_is_even(&s->dims[d], keep, type->dims[d], mesh)) continue;
    if (!t) {
      t = shard_sharding_clone(m->arena, s);
      t->dims = SHARD_NEW_ARRAY(m->arena, shard_dim_sharding, s->rank + 1);
      memcpy(t->dims, s->dims, sizeof(shard_dim_sharding) * s->rank);
    }
    S_even_dim(m->arena, &t->dims[d], keep, type->dims[d], mesh);
  }
  return t ? t : (shard_tensor_sharding *)s;
}

/* Rewrites the per-value attribute `name` of `op` entry by entry, the type
 * of entry i given by type_of. */
static void S_update_per_value(shard_module *m, shard_op *op, const char *name,
                               const shard_type *(*type_of)(const shard_op *, uint32_t), const shard_op *mc) {
  shard_attr *pv = shard_op_attr(op, name);
  if (!pv || pv->kind != SHARD_ATTR_SDY_PER_VALUE || !pv->u.per_value->num) return;
  uint32_t n = pv->u.per_value->num;
  shard_tensor_sharding *list = NULL;
  for (uint32_t i = 0; i < n; i++) {
    shard_tensor_sharding *old = &pv->u.per_value->shardings[i];
    shard_tensor_sharding *even = S_evenly_sharded(m, old, type_of(op, i), mc);
    if (even == old) continue;
    if (!list) {
      list = SHARD_NEW_ARRAY(m->arena, shard_tensor_sharding, n);
      memcpy(list, pv->u.per_value->shardings, sizeof(shard_tensor_sharding) * n);
    }
    list[i] = *even;
  }
  if (!list) return; /* all even: the attribute stays */
  bool inherent = false;
  for (uint32_t i = 0; i < op->num_attrs; i++)
    if (strcmp(op->attrs[i].name, name) == 0) inherent = op->attrs[i].inherent;
  shard_op_set_attr(m->arena, op, name, shard_attr_per_value(m->arena, list, n), inherent);
}

static const shard_type *S_result_type(const shard_op *op, uint32_t i) {
  return i < op->num_results ? op->results[i].type : NULL;
}

static const shard_type *S_body_arg_type(const shard_op *op, uint32_t i) {
  shard_block *b = op->num_regions ? op->regions[0].first : NULL;
  return b && i < b->num_args ? b->args[i].type : NULL;
}

typedef SHARD_VEC(shard_op *) op_vec;

static bool S_collect_boundary_ops(shard_op *op, void *ctx) {
  if (shard_op_is(op, &K_func_call) || shard_op_is(op, &K_sdy_manual_computation)) SHARD_VEC_PUSH(*(op_vec *)ctx, op);
  return true;
}

static shard_type **S_func_types(const shard_op *func, bool results, uint32_t *n) {
  shard_attr *ft = shard_op_attr(func, "function_type");
  if (!ft || ft->kind != SHARD_ATTR_TYPE || ft->u.type->kind != SHARD_TYPE_FUNCTION) {
    *n = 0;
    return NULL;
  }
  *n = results ? ft->u.type->num_results : ft->u.type->num_inputs;
  return results ? ft->u.type->results : ft->u.type->inputs;
}

/* Sets func argument or result i's sharding to `s` unless it already has
 * an equal one. Setting a result's rewrites the whole res_attrs array
 * (pass_shardings.h), so setting each of a func's n results was quadratic;
 * an unchanged sharding is left as it is, which prints the same when the
 * array already has an entry per result (otherwise the set would fill it). */
static void S_set_boundary_sharding(shard_arena *a, shard_op *func, bool result, uint32_t i, uint32_t n,
                                    const shard_tensor_sharding *old, shard_tensor_sharding *s) {
  shard_attr *arr = shard_op_attr(func, result ? "res_attrs" : "arg_attrs");
  bool complete = (!result && func->num_regions && func->regions[0].first) ||
                  (arr && arr->kind == SHARD_ATTR_ARRAY && arr->u.array.num == n);
  if (complete && (s == old || shard_sharding_equal(old, s))) return;
  if (result) shard_func_set_result_sharding(a, func, i, s);
  else shard_func_set_arg_sharding(a, func, i, s);
}

bool shard_pass_update_non_divisible_input_output_shardings(shard_module *m, const char *options,
                                                            const shard_pass_context *cx) {
  shard_arena *a = m->arena;
  shard_block *body = m->top->num_regions ? m->top->regions[0].first : NULL;
  for (shard_op *func = body ? body->first : NULL; func; func = func->next) {
    if (!S_is(func, "func.func")) continue;
    uint32_t n;
    shard_type **types = S_func_types(func, false, &n);
    for (uint32_t i = 0; i < n; i++) {
      shard_tensor_sharding *s = shard_func_arg_sharding(func, i);
      if (s) S_set_boundary_sharding(a, func, false, i, n, s, S_evenly_sharded(m, s, types[i], NULL));
    }
    types = S_func_types(func, true, &n);
    for (uint32_t i = 0; i < n; i++) {
      shard_tensor_sharding *s = shard_func_result_sharding(func, i);
      if (s) S_set_boundary_sharding(a, func, true, i, n, s, S_evenly_sharded(m, s, types[i], NULL));
    }
  }
  op_vec ops = {0};
  shard_walk(m->top, S_collect_boundary_ops, &ops);
  for (uint32_t i = 0; i < ops.len; i++) {
    shard_op *op = ops.items[i];
    if (shard_op_is(op, &K_func_call)) {
      S_update_per_value(m, op, "sdy.sharding", S_result_type, NULL);
    } else {
      S_update_per_value(m, op, "in_shardings", S_body_arg_type, op);
      S_update_per_value(m, op, "out_shardings", S_result_type, NULL);
    }
  }
  SHARD_VEC_FREE(ops);
  return true;
}

/* ---- -sdy-remove-sub-axes-in-input-output-shardings ----------------------------- */

static shard_tensor_sharding *S_without_sub_axes(shard_arena *a, const shard_tensor_sharding *s) {
  shard_tensor_sharding *t = shard_sharding_clone(a, s);
  t->dims = SHARD_NEW_ARRAY(a, shard_dim_sharding, s->rank + 1);
  for (uint32_t d = 0; d < s->rank; d++) {
    t->dims[d] = s->dims[d];
    if (!s->dims[d].is_open) continue;
    uint32_t n = 0;
    while (n < s->dims[d].num_axes && !s->dims[d].axes[n].is_sub) n++;
    t->dims[d].num_axes = n;
  }
  return t;
}

bool shard_pass_remove_sub_axes_in_input_output_shardings(shard_module *m, const char *options,
                                                          const shard_pass_context *cx) {
  shard_op *func = shard_module_main_func(m);
  if (!func) return true;
  uint32_t n;
  S_func_types(func, false, &n);
  for (uint32_t i = 0; i < n; i++) {
    shard_tensor_sharding *s = shard_func_arg_sharding(func, i);
    if (s) S_set_boundary_sharding(m->arena, func, false, i, n, s, S_without_sub_axes(m->arena, s));
  }
  S_func_types(func, true, &n);
  for (uint32_t i = 0; i < n; i++) {
    shard_tensor_sharding *s = shard_func_result_sharding(func, i);
    if (s) S_set_boundary_sharding(m->arena, func, true, i, n, s, S_without_sub_axes(m->arena, s));
  }
  return true;
}

/* ---- -sdy-pad-for-divisibility -------------------------------------------------- */

/* Every value whose sharding does not divide its shape is padded at the end
 * of each such dimension up to the next multiple of the shard count, as
 * Shardy's PadForDivisibilityPass (a partial dialect conversion) does:
 *
 *  - function inputs and outputs must already be divisible (error otherwise);
 *  - stablehlo ops that touch a non-divisible value take the padded operands
 *    and get padded result types (grown further to what the padded operands
 *    imply, for ops whose result type follows from the operands);
 *  - stablehlo.slice widens its limits, stablehlo.pad shrinks its high
 *    padding (masking the input's padding with the pad value when the
 *    trailing padding no longer covers it), dot_general masks the padding of
 *    contracting dims with zeros, convolution masks the padding of its
 *    feature and spatial input dims with zeros, takes the result shape the
 *    padded operands imply and trims its output spatial dims back to the
 *    padded result type;
 *  - sdy.all_slice / reduce_scatter / all_to_all pad their input to the out
 *    sharding, all_gather and all_to_all slice gathered dims back.
 *
 * Values the pass knows to be padded with zeros (or ones) are remembered so
 * that no mask is added for them. Ops are rewritten in place: the op keeps
 * its identity and attributes, only operands, result types and a few
 * inherent attributes change; new ops go right before it (pads, masks) or
 * right after it (trimming slices). */

/* Per-dim arrays are sized by the ranks at hand, in the module arena: no
 * rank limit. */
#define PAD_ARRAY(a, T, n) SHARD_NEW_ARRAY((a), T, (size_t)(n) + 1)

typedef enum pad_kind { PAD_UNKNOWN = 0, PAD_ZERO = 1, PAD_ONE = 2 } pad_kind;

typedef struct pad_ctx {
  shard_module *m;
  shard_arena *a;
  shard_ptrmap orig; /* value -> its type before the pass changed it */
  shard_ptrmap kind; /* value -> (void *)pad_kind */
  shard_diag_engine *de;
  bool failed; /* an op could not be legalized */
} pad_ctx;

static shard_type *S_orig_type(const pad_ctx *c, const shard_value *v) {
  shard_type *t = shard_ptrmap_get_ptr(&c->orig, v);
  return t ? t : v->type;
}

static void S_set_type(pad_ctx *c, shard_value *v, shard_type *t) {
  if (!shard_ptrmap_get_ptr(&c->orig, v)) shard_ptrmap_put_ptr(&c->orig, v, v->type);
  v->type = t;
}

static pad_kind S_kind(const pad_ctx *c, const shard_value *v) {
  return (pad_kind)(uintptr_t)shard_ptrmap_get_ptr(&c->kind, v);
}

static void S_set_kind(pad_ctx *c, const shard_value *v, pad_kind k) {
  shard_ptrmap_put_ptr(&c->kind, v, (void *)(uintptr_t)k);
}

/* Shardy's getDivisiblePaddedType: `type` with every dimension that its
 * sharding does not divide rounded up; `type` itself when nothing changes. */
static shard_type *S_padded_type(const pad_ctx *c, shard_type *type, const shard_tensor_sharding *s) {
  if (!s || !type || type->kind != SHARD_TYPE_TENSOR || type->rank != s->rank) return type;
  const shard_mesh *mesh = shard_sharding_mesh(c->m, s);
  if (!mesh) return type;
  int64_t *dims = PAD_ARRAY(c->a, int64_t, type->rank);
  bool changed = false;
  for (uint32_t d = 0; d < type->rank; d++) {
    dims[d] = type->dims[d];
    if (dims[d] == SHARD_DYNAMIC_DIM) continue;
    int64_t count = shard_sharding_dim_size(s, d, mesh);
    if (count > 1 && dims[d] % count != 0) {
      dims[d] = (dims[d] / count + 1) * count; /* fits: S_check_padded_sizes */
      changed = true;
    }
  }
  return changed ? shard_type_with_dims(c->a, type, dims) : type;
}

static bool S_needs_padding(const pad_ctx *c, shard_type *type, const shard_tensor_sharding *s) {
  return S_padded_type(c, type, s) != type;
}

/* Legal in Shardy's sense: the value's original type is divisible. */
static bool S_legal_value(const pad_ctx *c, const shard_value *v) {
  return !S_needs_padding(c, S_orig_type(c, v), shard_value_sharding_or_out(v));
}

static const shard_tensor_sharding *S_out_sharding(const shard_op *op) {
  const shard_attr *a = shard_op_attr(op, "out_sharding");
  return a && a->kind == SHARD_ATTR_SDY_SHARDING ? a->u.sharding : NULL;
}

static bool S_operands_legal(const pad_ctx *c, const shard_op *op) {
  for (uint32_t i = 0; i < op->num_operands; i++)
    if (!S_legal_value(c, op->operands[i].value)) return false;
  return true;
}

static bool S_results_legal(const pad_ctx *c, const shard_op *op) {
  for (uint32_t i = 0; i < op->num_results; i++)
    if (!S_legal_value(c, &op->results[i])) return false;
  return true;
}

/* The conversion target: which ops must be rewritten. */
static bool S_op_illegal(const pad_ctx *c, const shard_op *op) {
  if (strncmp(op->name, "stablehlo.", 10) == 0) return !S_operands_legal(c, op) || !S_results_legal(c, op);
  if ((S_is(op, "sdy.all_slice") || S_is(op, "sdy.reduce_scatter")) && op->num_operands)
    return S_needs_padding(c, S_orig_type(c, op->operands[0].value), S_out_sharding(op));
  if (S_is(op, "sdy.all_gather")) return !S_operands_legal(c, op);
  if (S_is(op, "sdy.all_to_all") || S_is(op, "sdy.all_reduce") || S_is(op, "sdy.sharded_to_unreduced") ||
      S_is(op, "sdy.replicated_to_unreduced"))
    return !S_operands_legal(c, op) || !S_results_legal(c, op);
  return false;
}

/* ---- builders ---- */

static shard_op *S_new_before(pad_ctx *c, shard_op *pos, const char *name, uint32_t n, shard_value *const *ops,
                              shard_type *type) {
  shard_op *op = shard_op_new_named(c->a, name, n, ops, type ? 1 : 0, type ? &type : NULL, 0);
  op->span = pos->span; /* diagnostics about it point at the op it serves */
  shard_op_insert_before(pos, op);
  return op;
}

static bool S_is_float(const char *elem) {
  return elem[0] == 'f' || strncmp(elem, "bf", 2) == 0 || strncmp(elem, "tf32", 4) == 0;
}

/* A scalar stablehlo.constant of `elem` holding `payload`. */
static shard_value *S_scalar(pad_ctx *c, shard_op *pos, const char *elem, const char *payload) {
  shard_type *t = shard_type_tensor(c->a, 0, NULL, elem, NULL);
  shard_op *op = S_new_before(c, pos, "stablehlo.constant", 0, NULL, t);
  shard_attr *v = shard_attr_new(c->a, SHARD_ATTR_DENSE);
  v->u.dense.payload = shard_arena_strdup(c->a, payload);
  v->u.dense.type = t;
  shard_op_set_attr(c->a, op, "value", v, true);
  return &op->results[0];
}

static shard_value *S_kind_constant(pad_ctx *c, shard_op *pos, const char *elem, pad_kind k) {
  bool one = k == PAD_ONE;
  if (strcmp(elem, "i1") == 0) return S_scalar(c, pos, elem, one ? "true" : "false");
  if (S_is_float(elem)) return S_scalar(c, pos, elem, one ? "1.0" : "0.0");
  return S_scalar(c, pos, elem, one ? "1" : "0");
}

static void S_copy_sharding(pad_ctx *c, shard_value *to, const shard_value *from) {
  shard_tensor_sharding *s = shard_value_sharding_or_out(from);
  if (s) shard_value_set_sharding(c->a, to, s);
}

/* stablehlo.pad of `v` by `pad` with the given high padding (low and
 * interior zero) to `type`. */
static shard_value *S_pad_high(pad_ctx *c, shard_op *pos, shard_value *v, shard_value *pad, shard_type *type) {
  shard_value *ops[2] = {v, pad};
  shard_op *op = S_new_before(c, pos, "stablehlo.pad", 2, ops, type);
  int64_t *zero = PAD_ARRAY(c->a, int64_t, type->rank), *high = PAD_ARRAY(c->a, int64_t, type->rank);
  for (uint32_t d = 0; d < type->rank; d++) high[d] = type->dims[d] - v->type->dims[d];
  shard_op_set_attr(c->a, op, "edge_padding_low", shard_attr_dense_i64(c->a, zero, type->rank), true);
  shard_op_set_attr(c->a, op, "edge_padding_high", shard_attr_dense_i64(c->a, high, type->rank), true);
  shard_op_set_attr(c->a, op, "interior_padding", shard_attr_dense_i64(c->a, zero, type->rank), true);
  return &op->results[0];
}

/* Shardy's createPaddedValue: pads `v` at the end to `type` with a constant
 * of kind k; the pad carries v's sharding. */
static shard_value *S_padded_value(pad_ctx *c, shard_op *pos, shard_value *v, shard_type *type, pad_kind k,
                                   pad_kind registered) {
  shard_value *cst = S_kind_constant(c, pos, type->elem, k);
  shard_value *r = S_pad_high(c, pos, v, cst, type);
  S_copy_sharding(c, r, v);
  if (registered != PAD_UNKNOWN) S_set_kind(c, r, registered);
  return r;
}

static bool S_contains(const int64_t *dims, uint32_t n, int64_t d) {
  for (uint32_t i = 0; i < n; i++)
    if (dims[i] == d) return true;
  return false;
}

/* Shardy's ensurePaddingWithValue: selects `pad` wherever an index along a
 * padded dimension (restricted to `dims` unless NULL) is past the original
 * size. Returns `v` when nothing is padded. */
static shard_value *S_mask_padding(pad_ctx *c, shard_op *pos, shard_value *v, const shard_type *orig, shard_value *pad,
                                   const int64_t *dims, uint32_t ndims) {
  shard_type *t = v->type;
  if (shard_type_equal(t, orig) || t->rank != orig->rank) return v;
  shard_tensor_sharding *s = shard_value_sharding_or_out(v);
  shard_type *i32 = shard_type_tensor(c->a, t->rank, t->dims, "i32", NULL);
  shard_type *i1 = shard_type_tensor(c->a, t->rank, t->dims, "i1", NULL);
  shard_value *mask = NULL;
  for (uint32_t d = 0; d < t->rank; d++) {
    if (orig->dims[d] == t->dims[d] || (dims && !S_contains(dims, ndims, d))) continue;
    shard_op *iota = S_new_before(c, pos, "stablehlo.iota", 0, NULL, i32);
    shard_op_set_attr(c->a, iota, "iota_dimension", shard_attr_int(c->a, d, shard_type_other(c->a, "i64")), true);
    if (s) shard_value_set_sharding(c->a, &iota->results[0], s);
    char text[32];
    snprintf(text, sizeof text, "%lld", (long long)orig->dims[d]);
    shard_value *limit = S_scalar(c, pos, "i32", text);
    shard_op *bcast = S_new_before(c, pos, "stablehlo.broadcast_in_dim", 1, &limit, i32);
    shard_op_set_attr(c->a, bcast, "broadcast_dimensions", shard_attr_dense_i64(c->a, NULL, 0), true);
    if (s) shard_value_set_sharding(c->a, &bcast->results[0], s);
    shard_value *cmp_ops[2] = {&iota->results[0], &bcast->results[0]};
    shard_op *cmp = S_new_before(c, pos, "stablehlo.compare", 2, cmp_ops, i1);
    shard_op_set_attr(c->a, cmp, "comparison_direction",
                      shard_attr_shlo_enum(c->a, SHARD_SHLO_COMPARISON_DIRECTION, SHARD_CMP_LT), true);
    if (s) shard_value_set_sharding(c->a, &cmp->results[0], s);
    if (mask) {
      shard_value *and_ops[2] = {mask, &cmp->results[0]};
      shard_op *both = S_new_before(c, pos, "stablehlo.and", 2, and_ops, i1);
      if (s) shard_value_set_sharding(c->a, &both->results[0], s);
      mask = &both->results[0];
    } else {
      mask = &cmp->results[0];
    }
  }
  if (!mask) return v;
  shard_op *bpad = S_new_before(c, pos, "stablehlo.broadcast_in_dim", 1, &pad, t);
  shard_op_set_attr(c->a, bpad, "broadcast_dimensions", shard_attr_dense_i64(c->a, NULL, 0), true);
  if (s) shard_value_set_sharding(c->a, &bpad->results[0], s);
  shard_value *sel_ops[3] = {mask, v, &bpad->results[0]};
  shard_op *sel = S_new_before(c, pos, "stablehlo.select", 3, sel_ops, t);
  if (s) shard_value_set_sharding(c->a, &sel->results[0], s);
  return &sel->results[0];
}

/* Shardy's ensurePaddingWithKind: like S_mask_padding with a constant of
 * kind k, skipped when v is already known to be padded that way. */
static shard_value *S_ensure_kind(pad_ctx *c, shard_op *pos, shard_value *v, const shard_type *orig, pad_kind k,
                                  const int64_t *dims, uint32_t ndims) {
  if (shard_type_equal(v->type, orig) || S_kind(c, v) == k) return v;
  shard_value *cst = S_kind_constant(c, pos, v->type->elem, k);
  shard_value *r = S_mask_padding(c, pos, v, orig, cst, dims, ndims);
  if (r != v && !dims) S_set_kind(c, r, k);
  return r;
}

/* Slices `res` (just produced by `op`) back to the sizes of `orig` on the
 * dims in trim[] that grew, replacing its other uses; returns the value
 * that stands for res now. */
static shard_value *S_trim(pad_ctx *c, shard_op **after, shard_value *res, const shard_type *orig, const bool *trim,
                           const shard_tensor_sharding *s, pad_kind k) {
  shard_type *t = res->type;
  if (t->kind != SHARD_TYPE_TENSOR || t->rank != orig->rank) return res;
  int64_t *limit = PAD_ARRAY(c->a, int64_t, t->rank), *zero = PAD_ARRAY(c->a, int64_t, t->rank),
          *one = PAD_ARRAY(c->a, int64_t, t->rank);
  bool needed = false;
  for (uint32_t d = 0; d < t->rank; d++) {
    one[d] = 1;
    limit[d] = t->dims[d];
    if (trim[d] && t->dims[d] > orig->dims[d]) {
      limit[d] = orig->dims[d];
      needed = true;
    }
  }
  if (!needed) return res;
  shard_type *st = shard_type_with_dims(c->a, t, limit);
  shard_op *slice = shard_op_new_named(c->a, "stablehlo.slice", 1, &res, 1, &st, 0);
  shard_op_set_attr(c->a, slice, "start_indices", shard_attr_dense_i64(c->a, zero, t->rank), true);
  shard_op_set_attr(c->a, slice, "limit_indices", shard_attr_dense_i64(c->a, limit, t->rank), true);
  shard_op_set_attr(c->a, slice, "strides", shard_attr_dense_i64(c->a, one, t->rank), true);
  shard_op_insert_after(*after, slice);
  *after = slice;
  shard_value *r = &slice->results[0];
  if (s) shard_value_set_sharding(c->a, r, (shard_tensor_sharding *)s);
  if (k != PAD_UNKNOWN) S_set_kind(c, r, k);
  shard_value_replace_all_uses(res, r);
  shard_operand_set(&slice->operands[0], res);
  /* users judge legality by the value the trim replaces */
  shard_ptrmap_put_ptr(&c->orig, r, S_orig_type(c, res));
  return r;
}

/* ---- shape inference for the rewritten ops ---- */

/* The integer list `name` copied into out[max]; 0 when absent or longer. */
/* The result shape an op implies for its (padded) operands, when shard
 * knows it (Shardy asks the op's InferTypeOpInterface). */
static bool S_infer(shard_arena *a, const shard_op *op, uint32_t r, int64_t *dims) {
  const shard_type *rt = op->results[r].type;
  if (rt->kind != SHARD_TYPE_TENSOR) return false;
  uint32_t rank = rt->rank;
  if (S_is(op, "stablehlo.slice") && op->num_operands == 1) {
    int64_t *start = PAD_ARRAY(a, int64_t, rank), *limit = PAD_ARRAY(a, int64_t, rank),
            *stride = PAD_ARRAY(a, int64_t, rank);
    if (shard_op_i64_list_copy(op, "start_indices", start, rank + 1) != rank ||
        shard_op_i64_list_copy(op, "limit_indices", limit, rank + 1) != rank ||
        shard_op_i64_list_copy(op, "strides", stride, rank + 1) != rank)
      return false;
    for (uint32_t d = 0; d < rt->rank; d++)
      dims[d] = stride[d] > 0 ? (limit[d] - start[d] + stride[d] - 1) / stride[d] : 0;
    return true;
  }
  if (S_is(op, "stablehlo.dot_general") && op->num_operands == 2) {
    const shard_dot_dims *dd = shard_op_dot_dims(op);
    if (!dd) return false;
    shard_i64s lb = dd->lhs_batch, rb = dd->rhs_batch, lc = dd->lhs_contract, rc = dd->rhs_contract;
    const shard_type *l = op->operands[0].value->type, *rr = op->operands[1].value->type;
    if (l->kind != SHARD_TYPE_TENSOR || rr->kind != SHARD_TYPE_TENSOR) return false;
    uint32_t n = 0;
    for (uint32_t i = 0; i < lb.n; i++) {
      if (lb.v[i] < 0 || lb.v[i] >= (int64_t)l->rank || n >= rank) return false;
      dims[n++] = l->dims[lb.v[i]];
    }
    for (uint32_t d = 0; d < l->rank; d++) {
      if (S_contains(lb.v, lb.n, d) || S_contains(lc.v, lc.n, d)) continue;
      if (n >= rank) return false;
      dims[n++] = l->dims[d];
    }
    for (uint32_t d = 0; d < rr->rank; d++) {
      if (S_contains(rb.v, rb.n, d) || S_contains(rc.v, rc.n, d)) continue;
      if (n >= rank) return false;
      dims[n++] = rr->dims[d];
    }
    return n == rank;
  }
  if (S_is(op, "stablehlo.transpose") && op->num_operands == 1) {
    int64_t *perm = PAD_ARRAY(a, int64_t, rank);
    if (shard_op_i64_list_copy(op, "permutation", perm, rank + 1) != rank) return false;
    for (uint32_t d = 0; d < rt->rank; d++) dims[d] = op->operands[0].value->type->dims[perm[d]];
    return true;
  }
  bool same_shape = (op->def && (op->def->traits & SHARD_TRAIT_ELEMENTWISE)) || S_is(op, "stablehlo.select") ||
                    S_is(op, "sdy.all_reduce") || S_is(op, "sdy.sharded_to_unreduced") ||
                    S_is(op, "sdy.replicated_to_unreduced");
  if (!same_shape) return false;
  bool found = false;
  for (uint32_t i = 0; i < op->num_operands; i++) {
    const shard_type *t = op->operands[i].value->type;
    if (t->kind != SHARD_TYPE_TENSOR || t->rank != rt->rank) continue;
    for (uint32_t d = 0; d < rt->rank; d++) dims[d] = found && dims[d] > t->dims[d] ? dims[d] : t->dims[d];
    found = true;
  }
  return found;
}

/* Shardy's padGenericOp on an op whose operands are already the padded
 * values: result types become the padded types, grown to what the operands
 * imply. */
static void S_pad_generic(pad_ctx *c, shard_op *op) {
  for (uint32_t r = 0; r < op->num_results; r++) {
    shard_value *v = &op->results[r];
    shard_type *orig = S_orig_type(c, v);
    shard_type *padded = S_padded_type(c, orig, shard_value_sharding_or_out(v));
    int64_t *dims = PAD_ARRAY(c->a, int64_t, padded->kind == SHARD_TYPE_TENSOR ? padded->rank : 0);
    if (padded->kind == SHARD_TYPE_TENSOR && op->results[r].type->kind == SHARD_TYPE_TENSOR &&
        op->results[r].type->rank == padded->rank && S_infer(c->a, op, r, dims)) {
      bool grow = false;
      for (uint32_t d = 0; d < padded->rank; d++) {
        if (padded->dims[d] > dims[d]) dims[d] = padded->dims[d];
        if (dims[d] != padded->dims[d]) grow = true;
      }
      if (grow) padded = shard_type_with_dims(c->a, padded, dims);
    }
    if (!shard_type_equal(padded, v->type)) S_set_type(c, v, padded);
  }
}

/* ---- op patterns ---- */

static void S_pad_slice(pad_ctx *c, shard_op *op) {
  shard_value *v = &op->results[0];
  shard_type *orig = S_orig_type(c, v);
  shard_type *padded = S_padded_type(c, orig, shard_value_sharding_or_out(v));
  if (padded == orig) return S_pad_generic(c, op);
  int64_t *start = PAD_ARRAY(c->a, int64_t, padded->rank), *limit = PAD_ARRAY(c->a, int64_t, padded->rank);
  uint32_t n = shard_op_i64_list_copy(op, "start_indices", start, padded->rank + 1);
  if (n != padded->rank) return S_pad_generic(c, op);
  for (uint32_t d = 0; d < n; d++) limit[d] = start[d] + padded->dims[d];
  shard_op_set_attr(c->a, op, "limit_indices", shard_attr_dense_i64(c->a, limit, n), true);
  S_set_type(c, v, padded);
}

static void S_pad_pad(pad_ctx *c, shard_op *op) {
  if (op->num_operands != 2) return S_pad_generic(c, op);
  shard_value *in = op->operands[0].value, *v = &op->results[0];
  shard_type *padded = S_padded_type(c, S_orig_type(c, v), shard_value_sharding_or_out(v));
  uint32_t rank = in->type->rank;
  int64_t *low = PAD_ARRAY(c->a, int64_t, rank), *high = PAD_ARRAY(c->a, int64_t, rank),
          *interior = PAD_ARRAY(c->a, int64_t, rank), *nh = PAD_ARRAY(c->a, int64_t, rank);
  if (padded->kind != SHARD_TYPE_TENSOR || padded->rank != rank ||
      shard_op_i64_list_copy(op, "edge_padding_low", low, rank + 1) != rank ||
      shard_op_i64_list_copy(op, "edge_padding_high", high, rank + 1) != rank ||
      shard_op_i64_list_copy(op, "interior_padding", interior, rank + 1) != rank)
    return S_pad_generic(c, op);
  bool reduced = false;
  for (uint32_t d = 0; d < rank; d++) {
    int64_t size = in->type->dims[d];
    nh[d] = padded->dims[d] - size - low[d] - (size > 1 ? size - 1 : 0) * interior[d];
    if (nh[d] < high[d]) reduced = true;
  }
  /* The input's own padding now sits where trailing padding was: it must
   * hold the pad value. */
  if (reduced) {
    shard_value *masked = S_mask_padding(c, op, in, S_orig_type(c, in), op->operands[1].value, NULL, 0);
    if (masked != in) shard_operand_set(&op->operands[0], masked);
  }
  shard_op_set_attr(c->a, op, "edge_padding_high", shard_attr_dense_i64(c->a, nh, rank), true);
  if (!shard_type_equal(padded, v->type)) S_set_type(c, v, padded);
}

static void S_pad_dot_general(pad_ctx *c, shard_op *op) {
  const shard_dot_dims *dd = shard_op_dot_dims(op);
  if (op->num_operands == 2 && dd) {
    const int64_t *lc = dd->lhs_contract.v, *rc = dd->rhs_contract.v;
    uint32_t nlc = dd->lhs_contract.n, nrc = dd->rhs_contract.n;
    shard_value *lhs = op->operands[0].value, *rhs = op->operands[1].value;
    shard_value *pl = S_ensure_kind(c, op, lhs, S_orig_type(c, lhs), PAD_ZERO, lc, nlc);
    shard_value *pr = S_ensure_kind(c, op, rhs, S_orig_type(c, rhs), PAD_ZERO, rc, nrc);
    if (pl != lhs) shard_operand_set(&op->operands[0], pl);
    if (pr != rhs) shard_operand_set(&op->operands[1], pr);
  }
  S_pad_generic(c, op);
}

/* The result dims of a convolution of `lhs` by `rhs` (StableHLO's shape
 * inference: each output spatial dim counts the windows of the dilated
 * kernel over the dilated, padded input). */
static bool S_conv_result_dims(const shard_op *op, const shard_conv_dims *dn, const shard_type *lhs,
                               const shard_type *rhs, int64_t *dims) {
  const shard_type *rt = op->results[0].type;
  uint32_t ns = dn->in_spatial.n;
  shard_i64s strides, ldil, rdil, pad;
  bool has_strides = shard_op_i64_list(op, "window_strides", &strides);
  bool has_ldil = shard_op_i64_list(op, "lhs_dilation", &ldil);
  bool has_rdil = shard_op_i64_list(op, "rhs_dilation", &rdil);
  bool has_pad = shard_op_i64_list(op, "padding", &pad); /* a splat is expanded when parsed */
  if ((has_strides && strides.n != ns) || (has_ldil && ldil.n != ns) || (has_rdil && rdil.n != ns) ||
      (has_pad && pad.n != 2 * ns))
    return false;
  int64_t bgc = 1;
  const shard_attr *bgca = shard_op_attr(op, "batch_group_count");
  if (bgca && bgca->kind == SHARD_ATTR_INT) bgc = bgca->u.integer.value;
  if (bgc < 1 || rt->rank != lhs->rank || rt->rank != rhs->rank) return false;
  int64_t r = rt->rank;
  if (dn->out_batch < 0 || dn->out_batch >= r || dn->out_feature < 0 || dn->out_feature >= r || dn->in_batch < 0 ||
      dn->in_batch >= r || dn->k_out_feature < 0 || dn->k_out_feature >= r || dn->out_spatial.n != ns ||
      dn->k_spatial.n != ns)
    return false;
  for (uint32_t i = 0; i < ns; i++)
    if (dn->in_spatial.v[i] < 0 || dn->in_spatial.v[i] >= r || dn->k_spatial.v[i] < 0 || dn->k_spatial.v[i] >= r ||
        dn->out_spatial.v[i] < 0 || dn->out_spatial.v[i] >= r)
      return false;
  for (uint32_t d = 0; d < rt->rank; d++) dims[d] = rt->dims[d];
  dims[dn->out_batch] = lhs->dims[dn->in_batch] / bgc;
  dims[dn->out_feature] = rhs->dims[dn->k_out_feature];
  for (uint32_t i = 0; i < ns; i++) {
    int64_t n = lhs->dims[dn->in_spatial.v[i]], k = rhs->dims[dn->k_spatial.v[i]];
    int64_t stride = has_strides ? strides.v[i] : 1, ld = has_ldil ? ldil.v[i] : 1, rd = has_rdil ? rdil.v[i] : 1;
    if (n == SHARD_DYNAMIC_DIM || k == SHARD_DYNAMIC_DIM || stride < 1) return false;
    int64_t base = (n > 0 ? (n - 1) * ld + 1 : 0) + (has_pad ? pad.v[2 * i] + pad.v[2 * i + 1] : 0);
    int64_t window = k > 0 ? (k - 1) * rd + 1 : 0;
    dims[dn->out_spatial.v[i]] = base < window || window == 0 ? 0 : (base - window) / stride + 1;
  }
  return true;
}

/* Shardy's convolution pattern: zeros in the padding of every dim the
 * kernel reads across (input feature and spatial dims of both operands),
 * the result shape the padded operands give, and the output spatial dims
 * cut back to the padded result type. A padded result spatial dim the
 * padded operands cannot produce is left to resolve-permutation-factors
 * upstream: the op can't be legalized. */
static void S_pad_convolution(pad_ctx *c, shard_op *op) {
  const shard_conv_dims *dnp = shard_op_conv_dims(op);
  shard_value *v = op->num_results == 1 ? &op->results[0] : NULL;
  if (op->num_operands != 2 || !v || !dnp || dnp->k_spatial.n != dnp->in_spatial.n ||
      dnp->out_spatial.n != dnp->in_spatial.n || v->type->kind != SHARD_TYPE_TENSOR)
    return S_pad_generic(c, op);
  shard_conv_dims dn = *dnp;
  shard_value *lhs = op->operands[0].value, *rhs = op->operands[1].value;
  int64_t *ldims = PAD_ARRAY(c->a, int64_t, dn.in_spatial.n + 1),
          *rdims = PAD_ARRAY(c->a, int64_t, dn.in_spatial.n + 1);
  uint32_t nl = 0, nr = 0;
  ldims[nl++] = dn.in_feature;
  rdims[nr++] = dn.k_in_feature;
  for (uint32_t i = 0; i < dn.in_spatial.n; i++) {
    ldims[nl++] = dn.in_spatial.v[i];
    rdims[nr++] = dn.k_spatial.v[i];
  }
  shard_value *pl = S_ensure_kind(c, op, lhs, S_orig_type(c, lhs), PAD_ZERO, ldims, nl);
  shard_value *pr = S_ensure_kind(c, op, rhs, S_orig_type(c, rhs), PAD_ZERO, rdims, nr);
  if (pl != lhs) shard_operand_set(&op->operands[0], pl);
  if (pr != rhs) shard_operand_set(&op->operands[1], pr);
  int64_t *dims = PAD_ARRAY(c->a, int64_t, v->type->rank);
  if (!S_conv_result_dims(op, &dn, pl->type, pr->type, dims)) return S_pad_generic(c, op);
  const shard_tensor_sharding *s = shard_value_sharding_or_out(v);
  shard_type *target = S_padded_type(c, S_orig_type(c, v), s);
  for (uint32_t i = 0; i < dn.out_spatial.n; i++) {
    int64_t d = dn.out_spatial.v[i];
    if (dims[d] < target->dims[d]) {
      shard_error(c->de, op->span,
                  "failed to legalize operation 'stablehlo.convolution' that was explicitly marked illegal");
      c->failed = true;
      return;
    }
  }
  shard_type *inferred = shard_type_with_dims(c->a, v->type, dims);
  if (!shard_type_equal(inferred, v->type)) S_set_type(c, v, inferred);
  bool *trim = PAD_ARRAY(c->a, bool, v->type->rank);
  for (uint32_t i = 0; i < dn.out_spatial.n; i++) trim[dn.out_spatial.v[i]] = true;
  shard_op *after = op;
  S_trim(c, &after, v, target, trim, s, PAD_ZERO);
}

/* Shardy's padCollectiveOp for all_slice / reduce_scatter / all_to_all: the
 * input padded to the out sharding, the result of the input's type. Returns
 * the padding kind of the result. */
static pad_kind S_pad_collective(pad_ctx *c, shard_op *op) {
  shard_value *in = op->operands[0].value;
  shard_type *target = S_padded_type(c, in->type, S_out_sharding(op));
  pad_kind k = S_kind(c, in);
  bool padded_before = !shard_type_equal(in->type, S_orig_type(c, in));
  if (target != in->type) {
    pad_kind constant = padded_before && k != PAD_UNKNOWN ? k : PAD_ZERO;
    pad_kind registered = !padded_before ? PAD_ZERO : k;
    shard_value *p = S_padded_value(c, op, in, target, constant, registered);
    shard_operand_set(&op->operands[0], p);
    k = registered;
  }
  shard_value *v = &op->results[0];
  if (!shard_type_equal(target, v->type)) S_set_type(c, v, target);
  if (k != PAD_UNKNOWN) S_set_kind(c, v, k);
  return k;
}

static void S_pad_all_to_all(pad_ctx *c, shard_op *op) {
  shard_type *in_orig = S_orig_type(c, op->operands[0].value);
  pad_kind k = S_kind(c, op->operands[0].value);
  S_pad_collective(c, op);
  const shard_attr *params = shard_op_attr(op, "params");
  uint32_t rank = in_orig->kind == SHARD_TYPE_TENSOR ? in_orig->rank : 0;
  bool *trim = PAD_ARRAY(c->a, bool, rank);
  if (params && params->kind == SHARD_ATTR_SDY_ALL_TO_ALL)
    for (uint32_t i = 0; i < params->u.all_to_all.num; i++) {
      int64_t d = params->u.all_to_all.params[i].src_dim;
      if (d >= 0 && d < (int64_t)rank) trim[d] = true;
    }
  shard_op *after = op;
  S_trim(c, &after, &op->results[0], in_orig, trim, S_out_sharding(op), k);
}

static void S_pad_all_gather(pad_ctx *c, shard_op *op) {
  shard_value *in = op->operands[0].value, *v = &op->results[0];
  shard_type *orig = S_orig_type(c, v);
  shard_type *t = S_padded_type(c, orig, S_out_sharding(op));
  if (t->kind == SHARD_TYPE_TENSOR && in->type->kind == SHARD_TYPE_TENSOR && in->type->rank == t->rank) {
    int64_t *dims = PAD_ARRAY(c->a, int64_t, t->rank);
    for (uint32_t d = 0; d < t->rank; d++) dims[d] = in->type->dims[d] > t->dims[d] ? in->type->dims[d] : t->dims[d];
    t = shard_type_with_dims(c->a, t, dims);
  }
  if (!shard_type_equal(t, v->type)) S_set_type(c, v, t);
  pad_kind k = S_kind(c, in);
  if (k != PAD_UNKNOWN) S_set_kind(c, v, k);
  const shard_attr *g = shard_op_attr(op, "gathering_axes");
  uint32_t rank = orig->kind == SHARD_TYPE_TENSOR ? orig->rank : 0;
  bool *trim = PAD_ARRAY(c->a, bool, rank);
  if (g && g->kind == SHARD_ATTR_SDY_AXIS_LISTS)
    for (uint32_t d = 0; d < g->u.axis_lists.num && d < rank; d++) trim[d] = g->u.axis_lists.dims[d].num > 0;
  shard_op *after = op;
  S_trim(c, &after, v, orig, trim, S_out_sharding(op), k);
}

/* A legal op reading a padded value gets it back at its original type
 * through a cast, as MLIR's conversion materializes it. */
static void S_materialize(pad_ctx *c, shard_op *op) {
  for (uint32_t i = 0; i < op->num_operands; i++) {
    shard_value *v = op->operands[i].value;
    shard_type *orig = S_orig_type(c, v);
    if (shard_type_equal(orig, v->type)) continue;
    shard_op *cast = S_new_before(c, op, "builtin.unrealized_conversion_cast", 1, &v, orig);
    shard_operand_set(&op->operands[i], &cast->results[0]);
  }
}

static void S_pad_op(pad_ctx *c, shard_op *op) {
  if (!S_op_illegal(c, op)) return S_materialize(c, op);
  if (S_is(op, "stablehlo.slice")) return S_pad_slice(c, op);
  if (S_is(op, "stablehlo.pad")) return S_pad_pad(c, op);
  if (S_is(op, "stablehlo.dot_general")) return S_pad_dot_general(c, op);
  if (S_is(op, "stablehlo.convolution")) return S_pad_convolution(c, op);
  if ((S_is(op, "sdy.all_slice") || S_is(op, "sdy.reduce_scatter")) && op->num_operands == 1) {
    S_pad_collective(c, op);
    return;
  }
  if (S_is(op, "sdy.all_to_all") && op->num_operands == 1) return S_pad_all_to_all(c, op);
  if (S_is(op, "sdy.all_gather") && op->num_operands == 1) return S_pad_all_gather(c, op);
  S_pad_generic(c, op);
}

static bool S_collect_ops(shard_op *op, void *ctx) {
  SHARD_VEC_PUSH(*(op_vec *)ctx, op);
  return true;
}

/* A dimension near INT64_MAX that its sharding does not divide has no
 * padded size: reported at the op before anything is rewritten ((d + n - 1)
 * / n overflowed into a negative dimension). */
static bool S_check_padded_sizes(pad_ctx *c, const shard_op *op) {
  for (uint32_t i = 0; i < op->num_results; i++) {
    const shard_value *v = &op->results[i];
    const shard_type *t = v->type;
    const shard_tensor_sharding *s = shard_value_sharding_or_out(v);
    const shard_mesh *mesh = s ? shard_sharding_mesh(c->m, s) : NULL;
    if (!mesh || !t || t->kind != SHARD_TYPE_TENSOR || t->rank != s->rank) continue;
    for (uint32_t d = 0; d < t->rank; d++) {
      int64_t size = t->dims[d], count = shard_sharding_dim_size(s, d, mesh), padded;
      if (size == SHARD_DYNAMIC_DIM || count <= 1 || size % count == 0) continue;
      if (__builtin_mul_overflow(size / count + 1, count, &padded)) {
        shard_error(c->de, op->span,
                    "'%s' op result %u dimension %u of size %" PRId64 " cannot be padded to a multiple "
                    "of %" PRId64 ": the padded size does not fit in 64 bits",
                    op->name, i, d, size, count);
        c->failed = true;
        return false;
      }
    }
  }
  return true;
}

/* Function inputs and outputs must be divisible: padded values never leave
 * a function. */
static bool S_check_func_io(const pad_ctx *c, shard_op *func, shard_diag_engine *de) {
  uint32_t n;
  shard_type **types = S_func_types(func, false, &n);
  for (uint32_t i = 0; i < n; i++)
    if (S_needs_padding(c, types[i], shard_func_arg_sharding(func, i))) {
      shard_error(de, func->span,
                  "'func.func' op argument #%u has a non-divisible sharding. Shardy expects "
                  "function IO to be divisible.",
                  i);
      shard_error(de, func->span, "failed to legalize operation 'func.func'");
      return false;
    }
  types = S_func_types(func, true, &n);
  for (uint32_t i = 0; i < n; i++)
    if (S_needs_padding(c, types[i], shard_func_result_sharding(func, i))) {
      shard_error(de, func->span,
                  "'func.func' op result #%u has a non-divisible sharding. Shardy expects "
                  "function IO to be divisible.",
                  i);
      shard_error(de, func->span, "failed to legalize operation 'func.func'");
      return false;
    }
  return true;
}

bool shard_pass_pad_for_divisibility(shard_module *m, const char *options, const shard_pass_context *cx) {
  shard_diag_engine *de = cx->de;
  pad_ctx c = {m, m->arena, {0}, {0}, de, false};
  bool ok = true;
  shard_block *body = m->top->num_regions ? m->top->regions[0].first : NULL;
  for (shard_op *func = body ? body->first : NULL; func && ok; func = func->next) {
    if (!S_is(func, "func.func")) continue;
    if (!S_check_func_io(&c, func, de)) {
      ok = false;
      break;
    }
    /* Ops are listed first so that the ops the rewrite adds are not visited. */
    op_vec ops = {0};
    for (uint32_t r = 0; r < func->num_regions; r++)
      for (shard_block *b = func->regions[r].first; b; b = b->next)
        for (shard_op *op = b->first; op; op = op->next) shard_walk(op, S_collect_ops, &ops);
    for (uint32_t i = 0; i < ops.len && !c.failed; i++) S_check_padded_sizes(&c, ops.items[i]);
    for (uint32_t i = 0; i < ops.len && !c.failed; i++) S_pad_op(&c, ops.items[i]);
    SHARD_VEC_FREE(ops);
    if (c.failed) ok = false;
  }
  shard_ptrmap_release(&c.orig);
  shard_ptrmap_release(&c.kind);
  return ok;
}
