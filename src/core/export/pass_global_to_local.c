/* -sdy-convert-global-to-local: rewrites a sharded program with global
 * shapes into the program one device runs, with local shapes and StableHLO
 * collectives, as Shardy's ConvertGlobalToLocalPass does.
 *
 * Order: every op is visited in pre-order (as MLIR's partial conversion
 * visits them), so channel handles are numbered in program order starting
 * after the largest one already in the module. Local types come from the
 * sharding each value carries before the rewrite: function arguments and
 * results from their `sdy.sharding`, op results from `sdy.sharding` or the
 * out_sharding of sdy collectives, manual computation bodies from their
 * in_shardings without the manual axes (the body is inlined).
 *
 *   sdy.all_gather      -> stablehlo.all_gather per dimension (minor dims
 *                          first), or one all_gather over a new leading dim
 *                          plus reshape/transpose/reshape when several dims
 *                          gather (unless per-dim-all-gather=true)
 *   sdy.all_reduce      -> stablehlo.all_reduce with a sum/max/min body
 *   sdy.all_slice       -> dynamic_slice at offsets looked up by device id
 *   sdy.all_to_all      -> stablehlo.all_to_all (several params: one
 *                          all_to_all over a combined leading dim)
 *   sdy.collective_permute -> stablehlo.collective_permute, source/target
 *                          pairs from the shard index of every device
 *   sdy.reduce_scatter  -> stablehlo.reduce_scatter (one dim), else
 *                          all_reduce + dynamic_slice (or one combined
 *                          reduce_scatter with combine-multi-dimension-
 *                          reduce-scatter=true)
 *   sdy.replicated_to_unreduced -> a select keeping the value on the
 *                          devices first along the axes, zero elsewhere
 *   sdy.constant        -> stablehlo.constant (sliced per device when
 *                          sharded and not a splat)
 *   stablehlo.gather    -> local slice_sizes; sharded collapsed dims:
 *                          clamped shard-local indices and a select that
 *                          zeroes results held by other shards
 *   stablehlo.scatter   -> indices shifted by the shard offsets; non-leader
 *                          devices start from 0 when the updates are split
 *   stablehlo.convolution -> local group counts, no sdy.sharding
 *   stablehlo.dynamic_slice -> local slice_sizes on dims taken whole
 *   stablehlo.dynamic_update_slice -> on a dim the operand is sharded
 *                          along and the update does not span, each device
 *                          writes its part of the update (a window of the
 *                          padded update, masked by position)
 *   sdy.propagation_barrier -> its operand (it only steered propagation,
 *                          and the reshards before it were placed
 *                          looking through it)
 *   other stablehlo ops -> the same op with local result types
 *
 * Ops are rewritten in place of the original, so a value that replaces a
 * result remembers that result's global type and sharding, and manual
 * computations are inlined only once the whole function is converted: later
 * users still see the sharding the original op had (as in MLIR's conversion).
 *
 * Replica groups are dense device-id groups; with enable-rgv3=true and no
 * sub-axes they are #stablehlo.replica_group_mesh_axes of the mesh symbol.
 * The device id is partition_id (replica_id when replica-count > 1). */
#include <stdio.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "support/buf.h"
#include "ir/ir.h"
#include "ir/attr_stablehlo_mesh.h"
#include "pass/pass.h"
#include "pass/pass_shardings.h"
#include "support/ptrmap.h"

/* A value as it was before the rewrite: its global type and, for values
 * that replace an op's result, the replaced result's sharding (MLIR's
 * conversion keeps the original op, so users still see it). */
typedef struct global_value {
  shard_type *type;
  shard_tensor_sharding *sharding;
  bool sharded;
} global_value;

typedef struct g2l {
  shard_module *m;
  shard_arena *a;
  shard_diag_engine *de;
  bool per_dim, combine_rs, rgv3;
  long long replicas, partitions;
  int64_t next_channel;
  bool failed;
  /* what every value was before the rewrite: value -> index into globals */
  shard_ptrmap global_index;
  SHARD_VEC(global_value) globals;
  /* manual computations whose bodies are converted but not yet inlined:
   * until the function is done their results keep out_shardings as their
   * sharding for the ops that use them */
  SHARD_VEC(shard_op *) manual;
} g2l;

/* Per-dim and per-axis scratch arrays are sized by the tensor's rank or the
 * number of axes at hand (in the module arena): no rank limit. */
#define G2L_ARRAY(c, T, n) SHARD_NEW_ARRAY((c)->a, T, (size_t)(n) + 1)

/* ---- types and shardings ------------------------------------------------------- */

static shard_type *S_i64_scalar(g2l *c) { return shard_type_tensor(c->a, 0, NULL, "i64", NULL); }

static shard_type *S_tensor(g2l *c, uint32_t rank, const int64_t *dims, const char *elem) {
  return shard_type_tensor(c->a, rank, dims, elem, NULL);
}

static bool S_is_manual(const char *name, const char *const *manual, uint32_t nmanual) {
  for (uint32_t i = 0; i < nmanual; i++)
    if (strcmp(manual[i], name) == 0) return true;
  return false;
}

/* The local type of `t` under sharding s, ignoring manual axes. */
static shard_type *S_local_type(g2l *c, shard_type *t, const shard_tensor_sharding *s, const char *const *manual,
                                uint32_t nmanual) {
  if (!s || !t || t->kind != SHARD_TYPE_TENSOR || s->rank != t->rank) return t;
  const shard_mesh *mesh = shard_sharding_mesh(c->m, s);
  if (!mesh) return t;
  int64_t *local = G2L_ARRAY(c, int64_t, t->rank);
  for (uint32_t d = 0; d < t->rank; d++) {
    int64_t size = 1;
    for (uint32_t k = 0; k < s->dims[d].num_axes; k++) {
      const shard_axis_ref *ax = &s->dims[d].axes[k];
      if (S_is_manual(ax->name, manual, nmanual)) continue;
      size *= shard_axis_size(ax, mesh);
    }
    local[d] = t->dims[d] == SHARD_DYNAMIC_DIM || size <= 0 ? t->dims[d] : t->dims[d] / size + (t->dims[d] % size != 0);
  }
  return shard_type_with_dims(c->a, t, local);
}

static shard_tensor_sharding *S_attr_sharding(const shard_op *op, const char *name) {
  const shard_attr *a = shard_op_attr(op, name);
  return a && a->kind == SHARD_ATTR_SDY_SHARDING ? a->u.sharding : NULL;
}

/* The sharding of an op result, as the conversion sees it. */
static shard_tensor_sharding *S_result_sharding(const shard_value *v) {
  const shard_op *op = v->def;
  if (op && strncmp(op->name, "sdy.", 4) == 0) {
    shard_tensor_sharding *s = S_attr_sharding(op, "out_sharding");
    if (s) return s;
  }
  return shard_value_sharding(v);
}

/* ---- global types ---------------------------------------------------------------------------- */

static void S_record(g2l *c, const shard_value *v) {
  uint64_t *slot = shard_ptrmap_slot(&c->global_index, v);
  if (*slot) {
    c->globals.items[*slot - 1].type = v->type;
    return;
  }
  global_value g = {v->type, NULL, false};
  SHARD_VEC_PUSH(c->globals, g);
  *slot = c->globals.len;
}

/* Makes the new value v stand for the replaced result old: it answers with
 * old's global type and sharding. Values that existed before the rewrite
 * keep their own. */
static void S_remember(g2l *c, const shard_value *v, shard_type *gtype, shard_tensor_sharding *sharding) {
  uint64_t *slot = shard_ptrmap_slot(&c->global_index, v);
  if (*slot) return;
  global_value g = {gtype, sharding, true};
  SHARD_VEC_PUSH(c->globals, g);
  *slot = c->globals.len;
}

/* What v was before the conversion, or NULL for a value it created. */
static const global_value *S_global(const g2l *c, const shard_value *v) {
  uint64_t i = shard_ptrmap_get(&c->global_index, v);
  return i ? &c->globals.items[i - 1] : NULL;
}

/* The type a value had before the conversion (its current one if unknown). */
static shard_type *S_global_type(g2l *c, const shard_value *v) {
  const global_value *g = S_global(c, v);
  return g ? g->type : v->type;
}

static bool S_count_values(shard_op *op, void *ctx) {
  size_t *n = ctx;
  *n += op->num_results;
  for (uint32_t r = 0; r < op->num_regions; r++)
    for (shard_block *b = op->regions[r].first; b; b = b->next) *n += b->num_args;
  return true;
}

static bool S_record_op(shard_op *op, void *ctx) {
  g2l *c = ctx;
  for (uint32_t i = 0; i < op->num_results; i++) S_record(c, &op->results[i]);
  for (uint32_t r = 0; r < op->num_regions; r++)
    for (shard_block *b = op->regions[r].first; b; b = b->next)
      for (uint32_t i = 0; i < b->num_args; i++) S_record(c, &b->args[i]);
  return true;
}

/* ---- device ids, shard indices and replica groups ------------------------------- */

/* Which shard along `axes` (major to minor) device `dev` holds. */
static int64_t S_shard_index(int64_t dev, const shard_mesh *mesh, const shard_axis_ref *axes, uint32_t n) {
  return shard_mesh_shard_index(mesh, dev, axes, n);
}

/* The mesh's axes cut at every sub-axis boundary that `axes` use, in mesh
 * order (major to minor inside an axis). */
static uint32_t S_atomic_axes(g2l *c, const shard_mesh *mesh, const shard_axis_ref *axes, uint32_t n,
                              shard_axis_ref *out, uint32_t max) {
  uint32_t count = 0;
  for (uint32_t i = 0; i < mesh->num_axes; i++) {
    shard_axis_cuts cuts;
    shard_axis_cuts_init(&cuts, mesh->axes[i].name, mesh->axes[i].size);
    shard_axis_cuts_add(&cuts, axes, n);
    uint32_t pieces = shard_axis_cuts_finish(&cuts);
    for (uint32_t k = 0; k < pieces && count < max; k++) out[count++] = shard_axis_cuts_piece(&cuts, k);
    shard_axis_cuts_free(&cuts);
  }
  return count;
}

/* How many atomic axes S_atomic_axes can give for n axes: each sub-axis
 * cuts its mesh axis at most twice. */
static uint32_t S_atomic_max(const shard_mesh *mesh, uint32_t n) { return mesh->num_axes + 2 * n; }

static bool S_has_sub_axis(const shard_axis_ref *axes, uint32_t n) {
  for (uint32_t i = 0; i < n; i++)
    if (axes[i].is_sub) return true;
  return false;
}

/* Replica groups of `axes` (dense, or V3 mesh axes when asked and possible);
 * *group_size gets the number of devices per group. */
static shard_attr *S_replica_groups(g2l *c, const shard_tensor_sharding *s, const shard_mesh *mesh,
                                    const shard_axis_ref *axes, uint32_t n, int64_t *group_size) {
  int64_t gsize = 1;
  for (uint32_t i = 0; i < n; i++) gsize *= shard_axis_size(&axes[i], mesh);
  *group_size = gsize;
  if (c->rgv3 && !S_has_sub_axis(axes, n) && s && s->mesh_name) {
    return shard_attr_mesh_axes_new(c->a, shard_attr_symbol_ref(c->a, s->mesh_name), axes, n);
  }
  uint32_t max = S_atomic_max(mesh, n);
  shard_axis_ref *atoms = G2L_ARRAY(c, shard_axis_ref, max);
  uint32_t na = S_atomic_axes(c, mesh, axes, n, atoms, max);
  int64_t *dims = G2L_ARRAY(c, int64_t, na), *perm = G2L_ARRAY(c, int64_t, na + n);
  uint32_t np = 0;
  for (uint32_t i = 0; i < na; i++) {
    dims[i] = shard_axis_size(&atoms[i], mesh);
    bool red = false;
    for (uint32_t k = 0; k < n; k++)
      red |= shard_axis_equal(&atoms[i], &axes[k]) ||
             (!axes[k].is_sub && !atoms[i].is_sub && !strcmp(axes[k].name, atoms[i].name));
    if (!red) perm[np++] = i;
  }
  for (uint32_t k = 0; k < n; k++)
    for (uint32_t i = 0; i < na; i++)
      if (shard_axis_equal(&atoms[i], &axes[k]) ||
          (!axes[k].is_sub && !atoms[i].is_sub && !strcmp(axes[k].name, atoms[i].name)))
        perm[np++] = i;
  int64_t total = shard_mesh_num_devices(mesh);
  int64_t *strides = G2L_ARRAY(c, int64_t, na), *idx = G2L_ARRAY(c, int64_t, na), *tdims = G2L_ARRAY(c, int64_t, na);
  int64_t st = 1;
  for (uint32_t i = na; i-- > 0;) strides[i] = st, st *= dims[i];
  for (uint32_t i = 0; i < na; i++) tdims[i] = dims[perm[i]];
  shard_buf b;
  shard_buf_init(&b);
  shard_buf_putc(&b, '[');
  for (int64_t e = 0; e < total; e++) {
    int64_t src = 0;
    for (uint32_t i = 0; i < na; i++) src += idx[i] * strides[perm[i]];
    int64_t id = mesh->device_ids && src < mesh->num_device_ids ? mesh->device_ids[src] : src;
    if (e % gsize == 0) shard_buf_puts(&b, e ? "], [" : "[");
    else shard_buf_puts(&b, ", ");
    shard_buf_printf(&b, "%lld", (long long)id);
    for (uint32_t i = na; i-- > 0;) {
      if (++idx[i] < tdims[i]) break;
      idx[i] = 0;
    }
  }
  shard_buf_puts(&b, "]]");
  shard_attr *r = shard_attr_new(c->a, SHARD_ATTR_DENSE);
  r->u.dense.payload = shard_arena_strdup(c->a, shard_buf_str(&b));
  int64_t gdims[2] = {total / gsize, gsize};
  r->u.dense.type = S_tensor(c, 2, gdims, "i64");
  shard_attr_dense_set_ints(c->a, r);
  shard_buf_free(&b);
  return r;
}

/* ---- builders ------------------------------------------------------------------------- */

static shard_op *S_new(g2l *c, shard_op *before, const char *name, uint32_t nops, shard_value *const *ops,
                       shard_type *result, uint32_t nregions) {
  shard_op *op = shard_op_new_named(c->a, name, nops, ops, result ? 1 : 0, result ? &result : NULL, nregions);
  shard_op_insert_before(before, op);
  return op;
}

static shard_value *S_reshape(g2l *c, shard_op *before, shard_value *v, uint32_t rank, const int64_t *dims) {
  return &S_new(c, before, "stablehlo.reshape", 1, &v, S_tensor(c, rank, dims, v->type->elem), 0)->results[0];
}

static shard_value *S_transpose(g2l *c, shard_op *before, shard_value *v, const int64_t *perm) {
  uint32_t rank = v->type->rank;
  int64_t *dims = G2L_ARRAY(c, int64_t, rank);
  for (uint32_t i = 0; i < rank; i++) dims[i] = v->type->dims[perm[i]];
  shard_op *op = S_new(c, before, "stablehlo.transpose", 1, &v, S_tensor(c, rank, dims, v->type->elem), 0);
  shard_op_set_attr(c->a, op, "permutation", shard_attr_dense_i64(c->a, perm, rank), true);
  return &op->results[0];
}

/* A constant of dense literal `payload` (a splat or a nested list) with type t. */
static shard_value *S_splat(g2l *c, shard_op *before, shard_type *t, const char *payload) {
  shard_op *op = S_new(c, before, "stablehlo.constant", 0, NULL, t, 0);
  shard_attr *v = shard_attr_new(c->a, SHARD_ATTR_DENSE);
  v->u.dense.payload = shard_arena_strdup(c->a, payload);
  v->u.dense.type = t;
  shard_op_set_attr(c->a, op, "value", v, true);
  return &op->results[0];
}

static shard_value *S_constant_i64(g2l *c, shard_op *before, const char *payload, uint32_t rank, const int64_t *dims) {
  return S_splat(c, before, S_tensor(c, rank, dims, "i64"), payload);
}

static void S_channel(g2l *c, shard_op *op) {
  shard_op_set_attr(c->a, op, "channel_handle", shard_attr_channel_handle(c->a, c->next_channel++, 1), true);
}

static void S_int_attr(g2l *c, shard_op *op, const char *name, int64_t v) {
  shard_op_set_attr(c->a, op, name, shard_attr_int(c->a, v, shard_type_other(c->a, "i64")), true);
}

/* The sum/max/min body of all_reduce / reduce_scatter over scalars of elem. */
static void S_reduction_body(g2l *c, shard_op *op, shard_reduction red, const char *elem) {
  shard_type *st = S_tensor(c, 0, NULL, elem);
  shard_block *b = shard_region_add_block(c->a, &op->regions[0]);
  shard_block_add_arg(c->a, b, st);
  shard_block_add_arg(c->a, b, st); /* may move the argument array: take addresses after */
  shard_value *xy[2] = {&b->args[0], &b->args[1]};
  const char *name = red == SHARD_RED_MAX   ? "stablehlo.maximum"
                     : red == SHARD_RED_MIN ? "stablehlo.minimum"
                                            : "stablehlo.add";
  shard_op *combine = shard_op_new_named(c->a, name, 2, xy, 1, &st, 0);
  shard_block_append(b, combine);
  shard_value *r = &combine->results[0];
  shard_block_append(b, shard_op_new_named(c->a, "stablehlo.return", 1, &r, 0, NULL, 0));
}

static shard_value *S_device_id(g2l *c, shard_op *before) {
  shard_type *u32 = S_tensor(c, 0, NULL, "ui32");
  shard_op *id = S_new(c, before, c->replicas > 1 ? "stablehlo.replica_id" : "stablehlo.partition_id", 0, NULL, u32, 0);
  shard_value *v = &id->results[0];
  return &S_new(c, before, "stablehlo.convert", 1, &v, S_i64_scalar(c), 0)->results[0];
}

/* The offset of this device's shard along `axes` for shards of `shard_size`. */
static shard_value *S_dimension_offset(g2l *c, shard_op *before, const shard_mesh *mesh, const shard_axis_ref *axes,
                                       uint32_t n, int64_t shard_size) {
  shard_value *dev = S_device_id(c, before);
  int64_t total = shard_mesh_num_devices(mesh);
  shard_buf b;
  shard_buf_init(&b);
  shard_buf_putc(&b, '[');
  for (int64_t d = 0; d < total; d++)
    shard_buf_printf(&b, "%s%lld", d ? ", " : "", (long long)(S_shard_index(d, mesh, axes, n) * shard_size));
  shard_buf_putc(&b, ']');
  shard_value *table = S_constant_i64(c, before, shard_buf_str(&b), 1, &total);
  shard_buf_free(&b);
  shard_value *ops[2] = {table, dev};
  int64_t one = 1;
  shard_op *ds = S_new(c, before, "stablehlo.dynamic_slice", 2, ops, S_tensor(c, 1, &one, "i64"), 0);
  shard_op_set_attr(c->a, ds, "slice_sizes", shard_attr_dense_i64(c->a, &one, 1), true);
  return S_reshape(c, before, &ds->results[0], 0, NULL);
}

static shard_value *S_dynamic_slice_for_axes(g2l *c, shard_op *before, shard_value *global, const shard_mesh *mesh,
                                             const shard_axis_list *per_dim, shard_type *local) {
  uint32_t rank = local->rank;
  shard_value **ops = SHARD_NEW_ARRAY(c->a, shard_value *, rank + 1);
  ops[0] = global;
  for (uint32_t d = 0; d < rank; d++) {
    if (!per_dim[d].num) {
      ops[d + 1] = S_constant_i64(c, before, "0", 0, NULL);
      continue;
    }
    ops[d + 1] = S_dimension_offset(c, before, mesh, per_dim[d].axes, per_dim[d].num, local->dims[d]);
  }
  shard_op *ds = S_new(c, before, "stablehlo.dynamic_slice", rank + 1, ops, local, 0);
  shard_op_set_attr(c->a, ds, "slice_sizes", shard_attr_dense_i64(c->a, local->dims, rank), true);
  return &ds->results[0];
}

/* ---- the sdy collectives ------------------------------------------------------------------ */

static const shard_mesh *S_op_mesh(g2l *c, shard_op *op, shard_tensor_sharding **s) {
  *s = S_attr_sharding(op, "out_sharding");
  const shard_mesh *mesh = *s ? shard_sharding_mesh(c->m, *s) : NULL;
  if (!mesh) {
    shard_error(c->de, op->span, "'%s' op failed to resolve mesh", op->name);
    c->failed = true;
  }
  return mesh;
}

static shard_tensor_sharding *S_value_sharding(g2l *c, const shard_value *v);

/* The per-dim axis lists attribute `name` of a collective whose
 * out_sharding (*s) is on *mesh, or NULL when either is missing. */
static const shard_attr *S_op_axis_lists(g2l *c, shard_op *op, const char *name, const shard_mesh **mesh,
                                         shard_tensor_sharding **s) {
  *mesh = S_op_mesh(c, op, s);
  const shard_attr *a = shard_op_attr(op, name);
  return *mesh && a && a->kind == SHARD_ATTR_SDY_AXIS_LISTS ? a : NULL;
}

/* Replaces op's one result by v; v keeps answering with the result's global
 * type and sharding for the users still to be converted. */
static void S_replace(g2l *c, shard_op *op, shard_value *v) {
  S_remember(c, v, S_global_type(c, &op->results[0]), S_value_sharding(c, &op->results[0]));
  shard_value_replace_all_uses(&op->results[0], v);
  shard_op_erase(op);
}

static void S_all_gather(g2l *c, shard_op *op, const shard_mesh *mesh, shard_tensor_sharding *s, const shard_attr *g) {
  shard_value *cur = op->operands[0].value;
  uint32_t rank = cur->type->rank, ndims = 0;
  for (uint32_t d = 0; d < g->u.axis_lists.num; d++) ndims += g->u.axis_lists.dims[d].num > 0;
  if (ndims == 0) {
    S_replace(c, op, cur);
    return;
  }
  if (c->per_dim || ndims == 1) {
    for (uint32_t d = g->u.axis_lists.num; d-- > 0;) {
      const shard_axis_list *l = &g->u.axis_lists.dims[d];
      if (!l->num) continue;
      int64_t gsize;
      shard_attr *rg = S_replica_groups(c, s, mesh, l->axes, l->num, &gsize);
      int64_t *dims = G2L_ARRAY(c, int64_t, rank);
      memcpy(dims, cur->type->dims, sizeof(int64_t) * rank);
      dims[d] *= gsize;
      shard_op *ag = S_new(c, op, "stablehlo.all_gather", 1, &cur, S_tensor(c, rank, dims, cur->type->elem), 0);
      S_int_attr(c, ag, "all_gather_dim", d);
      S_channel(c, ag);
      shard_op_set_attr(c->a, ag, "replica_groups", rg, true);
      shard_op_set_attr(c->a, ag, "use_global_device_ids", shard_attr_new(c->a, SHARD_ATTR_UNIT), true);
      cur = &ag->results[0];
    }
    S_replace(c, op, cur);
    return;
  }
  /* one all_gather over a new leading dim, then factors back into place */
  uint32_t maxall = 0;
  for (uint32_t d = 0; d < g->u.axis_lists.num; d++) maxall += g->u.axis_lists.dims[d].num;
  shard_axis_ref *all = G2L_ARRAY(c, shard_axis_ref, maxall);
  uint32_t nall = 0;
  int64_t *gdims = G2L_ARRAY(c, int64_t, g->u.axis_lists.num), *factors = G2L_ARRAY(c, int64_t, g->u.axis_lists.num);
  uint32_t ng = 0;
  for (uint32_t d = 0; d < g->u.axis_lists.num; d++) {
    const shard_axis_list *l = &g->u.axis_lists.dims[d];
    if (!l->num) continue;
    int64_t f = 1;
    for (uint32_t k = 0; k < l->num; k++) f *= shard_axis_size(&l->axes[k], mesh), all[nall++] = l->axes[k];
    gdims[ng] = d;
    factors[ng++] = f;
  }
  const int64_t *local = cur->type->dims;
  int64_t *tmp = G2L_ARRAY(c, int64_t, rank + 1);
  tmp[0] = 1;
  memcpy(tmp + 1, local, sizeof(int64_t) * rank);
  cur = S_reshape(c, op, cur, rank + 1, tmp);
  int64_t gsize;
  shard_attr *rg = S_replica_groups(c, s, mesh, all, nall, &gsize);
  tmp[0] = gsize;
  shard_op *ag = S_new(c, op, "stablehlo.all_gather", 1, &cur, S_tensor(c, rank + 1, tmp, cur->type->elem), 0);
  S_int_attr(c, ag, "all_gather_dim", 0);
  S_channel(c, ag);
  shard_op_set_attr(c->a, ag, "replica_groups", rg, true);
  shard_op_set_attr(c->a, ag, "use_global_device_ids", shard_attr_new(c->a, SHARD_ATTR_UNIT), true);
  cur = &ag->results[0];
  int64_t *split = G2L_ARRAY(c, int64_t, ng + rank);
  memcpy(split, factors, sizeof(int64_t) * ng);
  memcpy(split + ng, local, sizeof(int64_t) * rank);
  cur = S_reshape(c, op, cur, ng + rank, split);
  int64_t *perm = G2L_ARRAY(c, int64_t, ng + rank);
  uint32_t np = 0, next = 0;
  for (uint32_t i = 0; i < rank; i++) {
    bool gathered = false;
    for (uint32_t k = 0; k < ng; k++) gathered |= gdims[k] == i;
    if (gathered) perm[np++] = next++;
    perm[np++] = i + ng;
  }
  cur = S_transpose(c, op, cur, perm);
  int64_t *fin = G2L_ARRAY(c, int64_t, rank);
  memcpy(fin, local, sizeof(int64_t) * rank);
  for (uint32_t k = 0; k < ng; k++) fin[gdims[k]] *= factors[k];
  cur = S_reshape(c, op, cur, rank, fin);
  S_replace(c, op, cur);
}

static shard_op *S_new_all_reduce(g2l *c, shard_op *before, shard_value *v, shard_type *type, shard_attr *rg,
                                  shard_reduction red) {
  shard_op *ar = S_new(c, before, "stablehlo.all_reduce", 1, &v, type, 1);
  S_channel(c, ar);
  shard_op_set_attr(c->a, ar, "replica_groups", rg, true);
  shard_op_set_attr(c->a, ar, "use_global_device_ids", shard_attr_new(c->a, SHARD_ATTR_UNIT), true);
  S_reduction_body(c, ar, red, type->elem);
  return ar;
}

static shard_reduction S_reduction(const shard_op *op) {
  const shard_attr *r = shard_op_attr(op, "reduction_op");
  return r && r->kind == SHARD_ATTR_SDY_REDUCTION ? r->u.reduction : SHARD_RED_SUM;
}

static void S_all_reduce(g2l *c, shard_op *op) {
  shard_tensor_sharding *s;
  const shard_mesh *mesh = S_op_mesh(c, op, &s);
  const shard_attr *axes = shard_op_attr(op, "reduction_axes");
  if (!mesh) return;
  const shard_axis_list empty = {NULL, 0};
  const shard_axis_list *l = axes && axes->kind == SHARD_ATTR_SDY_AXIS_LIST ? &axes->u.axis_list : &empty;
  int64_t gsize;
  shard_attr *rg = S_replica_groups(c, s, mesh, l->axes, l->num, &gsize);
  shard_type *t = S_local_type(c, op->results[0].type, s, NULL, 0);
  shard_op *ar = S_new_all_reduce(c, op, op->operands[0].value, t, rg, S_reduction(op));
  S_replace(c, op, &ar->results[0]);
}

static void S_all_slice(g2l *c, shard_op *op, const shard_mesh *mesh, shard_tensor_sharding *s,
                        const shard_attr *axes) {
  shard_type *local = S_local_type(c, op->results[0].type, s, NULL, 0);
  S_replace(c, op, S_dynamic_slice_for_axes(c, op, op->operands[0].value, mesh, axes->u.axis_lists.dims, local));
}

static void S_all_to_all(g2l *c, shard_op *op) {
  shard_tensor_sharding *s;
  const shard_mesh *mesh = S_op_mesh(c, op, &s);
  const shard_attr *pa = shard_op_attr(op, "params");
  if (!mesh || !pa || pa->kind != SHARD_ATTR_SDY_ALL_TO_ALL || !pa->u.all_to_all.num) return;
  shard_value *in = op->operands[0].value;
  uint32_t rank = in->type->rank, np = pa->u.all_to_all.num;
  const shard_all_to_all_param *params = pa->u.all_to_all.params;
  if (np == 1) {
    int64_t gsize;
    shard_attr *rg = S_replica_groups(c, s, mesh, params[0].axes.axes, params[0].axes.num, &gsize);
    int64_t *dims = G2L_ARRAY(c, int64_t, rank);
    memcpy(dims, in->type->dims, sizeof(int64_t) * rank);
    dims[params[0].src_dim] *= gsize;
    dims[params[0].tgt_dim] /= gsize;
    shard_op *a2a = S_new(c, op, "stablehlo.all_to_all", 1, &in, S_tensor(c, rank, dims, in->type->elem), 0);
    S_int_attr(c, a2a, "split_dimension", params[0].tgt_dim);
    S_int_attr(c, a2a, "concat_dimension", params[0].src_dim);
    S_int_attr(c, a2a, "split_count", gsize);
    shard_op_set_attr(c->a, a2a, "replica_groups", rg, true);
    S_channel(c, a2a);
    S_replace(c, op, &a2a->results[0]);
    return;
  }
  /* sort params by target dim */
  uint32_t *order = G2L_ARRAY(c, uint32_t, np);
  for (uint32_t i = 0; i < np; i++) order[i] = i;
  for (uint32_t i = 1; i < np; i++)
    for (uint32_t j = i; j > 0 && params[order[j - 1]].tgt_dim > params[order[j]].tgt_dim; j--) {
      uint32_t t = order[j];
      order[j] = order[j - 1];
      order[j - 1] = t;
    }
  int64_t *per = G2L_ARRAY(c, int64_t, np);
  uint32_t maxall = 0;
  for (uint32_t i = 0; i < np; i++) maxall += params[i].axes.num;
  shard_axis_ref *all = G2L_ARRAY(c, shard_axis_ref, maxall);
  uint32_t nall = 0;
  for (uint32_t i = 0; i < np; i++) {
    const shard_all_to_all_param *q = &params[order[i]];
    per[i] = shard_axes_product(q->axes.axes, q->axes.num, mesh);
    for (uint32_t k = 0; k < q->axes.num; k++) all[nall++] = q->axes.axes[k];
  }
  int64_t *shape0 = G2L_ARRAY(c, int64_t, rank + np), *perm0 = G2L_ARRAY(c, int64_t, rank + np);
  uint32_t n0 = 0, npm = 0;
  for (uint32_t d = 0; d < rank; d++) {
    int at = -1;
    for (uint32_t i = 0; i < np; i++)
      if (params[order[i]].tgt_dim == d) at = (int)i;
    if (at < 0) {
      shape0[n0++] = in->type->dims[d];
      continue;
    }
    perm0[npm++] = n0;
    shape0[n0++] = per[at];
    shape0[n0++] = in->type->dims[d] / per[at];
  }
  for (uint32_t i = 0; i < n0; i++) {
    bool used = false;
    for (uint32_t k = 0; k < npm; k++) used |= perm0[k] == i;
    if (!used) perm0[npm++] = i;
  }
  shard_value *r0 = S_reshape(c, op, in, n0, shape0);
  shard_value *t0 = S_transpose(c, op, r0, perm0);
  int64_t gsize;
  shard_attr *rg = S_replica_groups(c, s, mesh, all, nall, &gsize);
  int64_t *shape1 = G2L_ARRAY(c, int64_t, rank + np);
  shape1[0] = gsize;
  memcpy(shape1 + 1, t0->type->dims + np, sizeof(int64_t) * (n0 - np));
  shard_value *r1 = S_reshape(c, op, t0, n0 - np + 1, shape1);
  shard_op *a2a = S_new(c, op, "stablehlo.all_to_all", 1, &r1, r1->type, 0);
  S_int_attr(c, a2a, "split_dimension", 0);
  S_int_attr(c, a2a, "concat_dimension", 0);
  S_int_attr(c, a2a, "split_count", gsize);
  shard_op_set_attr(c->a, a2a, "replica_groups", rg, true);
  S_channel(c, a2a);
  shard_value *r2 = S_reshape(c, op, &a2a->results[0], t0->type->rank, t0->type->dims);
  int64_t *perm1 = G2L_ARRAY(c, int64_t, rank + np);
  uint32_t n1 = 0;
  for (uint32_t d = 0; d < rank; d++) perm1[n1++] = d + np;
  for (uint32_t i = 0; i < np; i++) {
    int64_t want = params[order[i]].src_dim + np;
    uint32_t at = 0;
    while (at < n1 && perm1[at] != want) at++;
    memmove(perm1 + at + 1, perm1 + at, sizeof(int64_t) * (n1 - at));
    perm1[at] = i;
    n1++;
  }
  shard_value *t1 = S_transpose(c, op, r2, perm1);
  int64_t *fin = G2L_ARRAY(c, int64_t, rank + np);
  uint32_t nf = 0;
  for (uint32_t i = 0; i < n1; i++) {
    if (perm1[i] < np) {
      fin[nf++] = t1->type->dims[i] * t1->type->dims[i + 1];
      i++;
    } else {
      fin[nf++] = t1->type->dims[i];
    }
  }
  S_replace(c, op, S_reshape(c, op, t1, nf, fin));
}

/* Axes of a sharding ordered for collective_permute: the dims' axes (cut at
 * the atomic boundaries) first, then every other atomic axis. */
static uint32_t S_permute_axes(const shard_tensor_sharding *s, const shard_mesh *mesh, const shard_axis_ref *atoms,
                               uint32_t na, shard_axis_ref *out) {
  uint32_t n = 0;
  bool *used = shard_xcalloc((size_t)na + 1, sizeof(bool));
  for (uint32_t d = 0; d < s->rank; d++)
    for (uint32_t k = 0; k < s->dims[d].num_axes; k++)
      for (uint32_t i = 0; i < na; i++)
        if (!used[i] && !strcmp(atoms[i].name, s->dims[d].axes[k].name) &&
            shard_axis_contains(&s->dims[d].axes[k], &atoms[i], mesh))
          used[i] = true, out[n++] = atoms[i];
  for (uint32_t i = 0; i < na; i++)
    if (!used[i]) out[n++] = atoms[i];
  free(used);
  return n;
}

/* How many axes S_collect_axes writes for s. */
static uint32_t S_num_axes(const shard_tensor_sharding *s) {
  uint32_t n = 0;
  for (uint32_t d = 0; s && d < s->rank; d++) n += s->dims[d].num_axes;
  return s ? n + s->num_replicated + s->num_unreduced : 0;
}

static void S_collect_axes(const shard_tensor_sharding *s, shard_axis_ref *out, uint32_t *n, uint32_t max) {
  if (!s) return;
  for (uint32_t d = 0; d < s->rank; d++)
    for (uint32_t k = 0; k < s->dims[d].num_axes && *n < max; k++) out[(*n)++] = s->dims[d].axes[k];
  for (uint32_t k = 0; k < s->num_replicated && *n < max; k++) out[(*n)++] = s->replicated[k];
  for (uint32_t k = 0; k < s->num_unreduced && *n < max; k++) out[(*n)++] = s->unreduced[k];
}

static void S_collective_permute(g2l *c, shard_op *op) {
  shard_tensor_sharding *out;
  const shard_mesh *out_mesh = S_op_mesh(c, op, &out);
  shard_tensor_sharding *in = S_value_sharding(c, op->operands[0].value);
  const shard_mesh *in_mesh = in ? shard_sharding_mesh(c->m, in) : NULL;
  if (!out_mesh) return;
  if (!in_mesh) in_mesh = out_mesh;
  uint32_t maxall = S_num_axes(in) + S_num_axes(out), max = S_atomic_max(out_mesh, maxall);
  shard_axis_ref *all = G2L_ARRAY(c, shard_axis_ref, maxall), *atoms = G2L_ARRAY(c, shard_axis_ref, max),
                 *oax = G2L_ARRAY(c, shard_axis_ref, max), *iax = G2L_ARRAY(c, shard_axis_ref, max);
  uint32_t nall = 0;
  S_collect_axes(in, all, &nall, maxall);
  S_collect_axes(out, all, &nall, maxall);
  uint32_t na = S_atomic_axes(c, out_mesh, all, nall, atoms, max);
  uint32_t no = S_permute_axes(out, out_mesh, atoms, na, oax);
  static const shard_tensor_sharding none = {0};
  uint32_t ni = S_permute_axes(in ? in : &none, in_mesh, atoms, na, iax);
  int64_t total = shard_mesh_num_devices(out_mesh);
  int64_t *by_logical = shard_xcalloc((size_t)total + 1, sizeof(int64_t));
  for (int64_t j = 0; j < total; j++) {
    int64_t dev = out_mesh->device_ids && j < out_mesh->num_device_ids ? out_mesh->device_ids[j] : j;
    int64_t li = S_shard_index(dev, out_mesh, oax, no);
    if (li >= 0 && li < total) by_logical[li] = dev;
  }
  shard_buf b;
  shard_buf_init(&b);
  shard_buf_putc(&b, '[');
  for (int64_t i = 0; i < total; i++) {
    int64_t dev = in_mesh->device_ids && i < in_mesh->num_device_ids ? in_mesh->device_ids[i] : i;
    (void)dev;
    int64_t li = S_shard_index(i, in_mesh, iax, ni);
    shard_buf_printf(&b, "%s[%lld, %lld]", i ? ", " : "", (long long)i, (long long)by_logical[li]);
  }
  shard_buf_putc(&b, ']');
  free(by_logical);
  shard_attr *pairs = shard_attr_new(c->a, SHARD_ATTR_DENSE);
  pairs->u.dense.payload = shard_arena_strdup(c->a, shard_buf_str(&b));
  int64_t pd[2] = {total, 2};
  pairs->u.dense.type = S_tensor(c, 2, pd, "i64");
  shard_attr_dense_set_ints(c->a, pairs);
  shard_buf_free(&b);
  shard_value *v = op->operands[0].value;
  shard_op *cp = S_new(c, op, "stablehlo.collective_permute", 1, &v, v->type, 0);
  S_channel(c, cp);
  shard_op_set_attr(c->a, cp, "source_target_pairs", pairs, true);
  S_replace(c, op, &cp->results[0]);
}

static void S_reduce_scatter(g2l *c, shard_op *op, const shard_mesh *mesh, shard_tensor_sharding *s,
                             const shard_attr *rs) {
  shard_tensor_sharding *ins = S_value_sharding(c, op->operands[0].value);
  shard_value *in = op->operands[0].value;
  shard_type *local = S_local_type(c, op->results[0].type, s, NULL, 0);
  uint32_t maxall = 0;
  for (uint32_t d = 0; d < rs->u.axis_lists.num; d++) maxall += rs->u.axis_lists.dims[d].num;
  shard_axis_ref *all = G2L_ARRAY(c, shard_axis_ref, maxall);
  uint32_t nall = 0, ndims = 0, last = 0;
  for (uint32_t d = 0; d < rs->u.axis_lists.num; d++) {
    const shard_axis_list *l = &rs->u.axis_lists.dims[d];
    if (!l->num) continue;
    ndims++;
    last = d;
    for (uint32_t k = 0; k < l->num; k++) all[nall++] = l->axes[k];
  }
  if (!ndims) {
    S_replace(c, op, in);
    return;
  }
  const shard_tensor_sharding *gs = ins ? ins : s;
  int64_t gsize;
  shard_attr *rg = S_replica_groups(c, gs, mesh, ndims == 1 ? rs->u.axis_lists.dims[last].axes : all,
                                    ndims == 1 ? rs->u.axis_lists.dims[last].num : nall, &gsize);
  if (ndims == 1) {
    shard_op *r = S_new(c, op, "stablehlo.reduce_scatter", 1, &in, local, 1);
    S_int_attr(c, r, "scatter_dimension", last);
    S_channel(c, r);
    shard_op_set_attr(c->a, r, "replica_groups", rg, true);
    shard_op_set_attr(c->a, r, "use_global_device_ids", shard_attr_new(c->a, SHARD_ATTR_UNIT), true);
    S_reduction_body(c, r, S_reduction(op), in->type->elem);
    S_replace(c, op, &r->results[0]);
    return;
  }
  uint32_t rank = in->type->rank;
  if (c->combine_rs) {
    int64_t *split = G2L_ARRAY(c, int64_t, 2 * rank), *fidx = G2L_ARRAY(c, int64_t, rank), total = 1;
    uint32_t ns = 0, nf = 0;
    for (uint32_t d = 0; d < rank; d++) {
      const shard_axis_list *l = &rs->u.axis_lists.dims[d];
      if (!l->num) {
        split[ns++] = in->type->dims[d];
        continue;
      }
      int64_t f = shard_axes_product(l->axes, l->num, mesh);
      total *= f;
      fidx[nf++] = ns;
      split[ns++] = f;
      split[ns++] = in->type->dims[d] / f;
    }
    shard_value *cur = S_reshape(c, op, in, ns, split);
    int64_t *perm = G2L_ARRAY(c, int64_t, 2 * rank);
    uint32_t np = 0;
    for (uint32_t k = 0; k < nf; k++) perm[np++] = fidx[k];
    for (uint32_t i = 0; i < ns; i++) {
      bool f = false;
      for (uint32_t k = 0; k < nf; k++) f |= fidx[k] == i;
      if (!f) perm[np++] = i;
    }
    cur = S_transpose(c, op, cur, perm);
    int64_t *comb = G2L_ARRAY(c, int64_t, rank + 1);
    comb[0] = total;
    memcpy(comb + 1, local->dims, sizeof(int64_t) * rank);
    cur = S_reshape(c, op, cur, rank + 1, comb);
    comb[0] = 1;
    shard_op *r = S_new(c, op, "stablehlo.reduce_scatter", 1, &cur, S_tensor(c, rank + 1, comb, in->type->elem), 1);
    S_int_attr(c, r, "scatter_dimension", 0);
    S_channel(c, r);
    shard_op_set_attr(c->a, r, "replica_groups", rg, true);
    shard_op_set_attr(c->a, r, "use_global_device_ids", shard_attr_new(c->a, SHARD_ATTR_UNIT), true);
    S_reduction_body(c, r, S_reduction(op), in->type->elem);
    S_replace(c, op, S_reshape(c, op, &r->results[0], rank, local->dims));
    return;
  }
  shard_op *ar = S_new_all_reduce(c, op, in, in->type, rg, S_reduction(op));
  S_replace(c, op, S_dynamic_slice_for_axes(c, op, &ar->results[0], mesh, rs->u.axis_lists.dims, local));
}

static void S_constant(g2l *c, shard_op *op) {
  shard_tensor_sharding *s = shard_value_sharding(&op->results[0]);
  shard_type *global = op->results[0].type, *local = S_local_type(c, global, s, NULL, 0);
  shard_attr *value = shard_op_attr(op, "value");
  if (!value || value->kind != SHARD_ATTR_DENSE) return;
  const char *p = value->u.dense.payload;
  while (*p == ' ') p++;
  bool splat = *p != '[' && *p != '"';
  shard_op *cst = S_new(c, op, "stablehlo.constant", 0, NULL, splat ? local : global, 0);
  shard_attr *nv = shard_attr_new(c->a, SHARD_ATTR_DENSE);
  nv->u.dense.payload = value->u.dense.payload;
  nv->u.dense.type = splat ? local : global;
  shard_op_set_attr(c->a, cst, "value", nv, true);
  shard_value *v = &cst->results[0];
  if (!splat && !shard_type_equal(local, global)) {
    const shard_mesh *mesh = shard_sharding_mesh(c->m, s);
    shard_axis_list *per = G2L_ARRAY(c, shard_axis_list, s->rank);
    for (uint32_t d = 0; d < s->rank; d++) per[d] = (shard_axis_list){s->dims[d].axes, s->dims[d].num_axes};
    v = S_dynamic_slice_for_axes(c, op, v, mesh, per, local);
  }
  S_replace(c, op, v);
}

/* ---- the walk -------------------------------------------------------------------------------- */

static void S_convert_block(g2l *c, shard_block *b);

static void S_localize_results(g2l *c, shard_op *op) {
  for (uint32_t i = 0; i < op->num_results; i++)
    op->results[i].type = S_local_type(c, op->results[i].type, S_result_sharding(&op->results[i]), NULL, 0);
}

/* Moves op (with its uses intact) in front of pos. */
static void S_move_before(shard_op *op, shard_op *pos) {
  shard_op_unlink(op);
  shard_op_insert_before(pos, op);
}

/* ---- StableHLO ops whose local form is not the global op on local types -------------------- */

/* The sharding of any value as the conversion sees it: named_computation
 * results and body arguments take the op's out/in shardings. */
static shard_tensor_sharding *S_value_sharding(g2l *c, const shard_value *v) {
  const global_value *g = S_global(c, v);
  if (g && g->sharded) return g->sharding;
  const shard_op *owner = v->def ? v->def : v->block && v->block->parent ? v->block->parent->parent : NULL;
  if (owner && !strcmp(owner->name, "sdy.named_computation")) {
    const shard_attr *a = shard_op_attr(owner, v->def ? "out_shardings" : "in_shardings");
    uint32_t i = v->def ? (uint32_t)(v - owner->results) : (uint32_t)(v - v->block->args);
    if (a && a->kind == SHARD_ATTR_SDY_PER_VALUE && i < a->u.per_value->num) return &a->u.per_value->shardings[i];
    return NULL;
  }
  /* a manual computation's results carry its out_shardings (Shardy's getSharding) */
  if (v->def && !strcmp(v->def->name, "sdy.manual_computation")) {
    const shard_attr *a = shard_op_attr(v->def, "out_shardings");
    uint32_t i = (uint32_t)(v - v->def->results);
    if (a && a->kind == SHARD_ATTR_SDY_PER_VALUE && i < a->u.per_value->num) return &a->u.per_value->shardings[i];
    return NULL;
  }
  return S_result_sharding(v);
}

/* The integer list `name` copied into out[max]; 0 when absent or longer. */
static int64_t S_int(const shard_op *op, const char *name, int64_t dflt) {
  const shard_attr *a = shard_op_attr(op, name);
  return a && a->kind == SHARD_ATTR_INT ? a->u.integer.value : dflt;
}

static const shard_dim_sharding *S_dim(const shard_tensor_sharding *s, uint32_t d) {
  static const shard_dim_sharding none = {0};
  return s && d < s->rank ? &s->dims[d] : &none;
}

static bool S_same_axes(const shard_dim_sharding *x, const shard_dim_sharding *y) {
  if (x->num_axes != y->num_axes) return false;
  for (uint32_t k = 0; k < x->num_axes; k++)
    if (!shard_axis_equal(&x->axes[k], &y->axes[k])) return false;
  return true;
}

static void S_print_axes(shard_buf *b, const shard_dim_sharding *d) {
  shard_buf_putc(b, '[');
  for (uint32_t k = 0; k < d->num_axes; k++) {
    const shard_axis_ref *r = &d->axes[k];
    shard_buf_printf(b, "%s\"%s\"", k ? ", " : "", r->name);
    if (r->is_sub) shard_buf_printf(b, ":(%lld)%lld", (long long)r->pre_size, (long long)r->size);
  }
  shard_buf_putc(b, ']');
}

/* Reports an op the conversion cannot legalize, as MLIR's partial
 * conversion does after the pattern failed. */
static void S_fail(g2l *c, shard_op *op, const char *why) {
  shard_error(c->de, op->span, "'%s' op %s", op->name, why);
  shard_error(c->de, op->span, "failed to legalize operation '%s' that was explicitly marked illegal", op->name);
  c->failed = true;
}

static void S_mismatch(g2l *c, shard_op *op, uint32_t d, const shard_dim_sharding *x, const shard_dim_sharding *y) {
  shard_buf b;
  shard_buf_init(&b);
  shard_buf_printf(&b, "dimension %u has mismatched sharding axes (", d);
  S_print_axes(&b, x);
  shard_buf_puts(&b, " vs ");
  S_print_axes(&b, y);
  shard_buf_puts(&b, "). This requires a reshard which should have been handled by previous passes.");
  S_fail(c, op, shard_buf_str(&b));
  shard_buf_free(&b);
}

/* The concatenation dimension must be replicated everywhere and the other
 * dims sharded alike: then each device concatenates its own pieces. */
static bool S_concatenate(g2l *c, shard_op *op) {
  const shard_tensor_sharding *out = S_value_sharding(c, &op->results[0]);
  uint32_t cd = (uint32_t)S_int(op, "dimension", 0);
  char msg[160];
  if (S_dim(out, cd)->num_axes) {
    snprintf(msg, sizeof msg, "dimension %u is sharded but the concatenation is on this dimension.", cd);
    S_fail(c, op, msg);
    return false;
  }
  for (uint32_t i = 0; i < op->num_operands; i++) {
    const shard_tensor_sharding *in = S_value_sharding(c, op->operands[i].value);
    if (!in || shard_sharding_fully_replicated(in)) continue;
    if (S_dim(in, cd)->num_axes) {
      snprintf(msg, sizeof msg, "operand %u is sharded on concatenation dimension %u. This is not supported.", i, cd);
      S_fail(c, op, msg);
      return false;
    }
    for (uint32_t d = 0; d < in->rank; d++)
      if (d != cd && !S_same_axes(S_dim(in, d), S_dim(out, d))) {
        S_mismatch(c, op, d, S_dim(in, d), S_dim(out, d));
        return false;
      }
  }
  return true;
}

/* A local iota plus this device's offset along the iota dimension. */
static void S_iota(g2l *c, shard_op *op) {
  shard_tensor_sharding *s = S_value_sharding(c, &op->results[0]);
  if (!s || shard_sharding_fully_replicated(s)) return;
  const shard_mesh *mesh = shard_sharding_mesh(c->m, s);
  if (!mesh) {
    shard_error(c->de, op->span, "'%s' op failed to resolve mesh", op->name);
    c->failed = true;
    return;
  }
  shard_type *local = S_local_type(c, op->results[0].type, s, NULL, 0);
  int64_t dim = S_int(op, "iota_dimension", 0);
  shard_op *iota = S_new(c, op, "stablehlo.iota", 0, NULL, local, 0);
  S_int_attr(c, iota, "iota_dimension", dim);
  const shard_dim_sharding *ds = S_dim(s, (uint32_t)dim);
  if (!ds->num_axes) {
    S_replace(c, op, &iota->results[0]);
    return;
  }
  shard_value *off = S_dimension_offset(c, op, mesh, ds->axes, ds->num_axes, local->dims[dim]);
  off = &S_new(c, op, "stablehlo.convert", 1, &off, S_tensor(c, 0, NULL, local->elem), 0)->results[0];
  shard_op *bc = S_new(c, op, "stablehlo.broadcast_in_dim", 1, &off, local, 0);
  shard_op_set_attr(c->a, bc, "broadcast_dimensions", shard_attr_dense_i64(c->a, NULL, 0), true);
  shard_value *xy[2] = {&iota->results[0], &bc->results[0]};
  S_replace(c, op, &S_new(c, op, "stablehlo.add", 2, xy, local, 0)->results[0]);
}

static int64_t S_floor_div(int64_t a, int64_t b) { return a / b - (a % b != 0 && (a < 0) != (b < 0)); }

/* Whether shard k of a padded dim (s_out of n shards) holds only elements
 * of input shard k (s_in each) and padding: the real rows its window
 * [k * s_out, (k + 1) * s_out) takes, at row * (interior + 1) + low, must be
 * the rows the device has. Otherwise the data sits on other devices. */
static bool S_pad_shard_is_local(int64_t k, int64_t s_in, int64_t s_out, int64_t n, int64_t low, int64_t interior) {
  int64_t step = interior + 1, total = s_in * n;
  int64_t first = -S_floor_div(low - k * s_out, step); /* ceil((k * s_out - low) / step) */
  int64_t last = S_floor_div((k + 1) * s_out - 1 - low, step);
  if (first < 0) first = 0;
  if (last > total - 1) last = total - 1;
  return first > last || (first >= k * s_in && last < (k + 1) * s_in);
}

/* A pad whose padding is the same on every device stays a pad with local
 * edges; otherwise the local input is padded enough for every device and
 * each device slices its piece at an offset looked up by device id. */
static void S_pad(g2l *c, shard_op *op) {
  shard_value *x = op->operands[0].value, *pv = op->operands[1].value;
  const shard_tensor_sharding *in = S_value_sharding(c, x), *out = S_value_sharding(c, &op->results[0]);
  if (!in || shard_sharding_fully_replicated(in)) {
    S_localize_results(c, op);
    return;
  }
  const shard_mesh *mesh = shard_sharding_mesh(c->m, in);
  if (!mesh) {
    shard_error(c->de, op->span, "'%s' op failed to resolve mesh", op->name);
    c->failed = true;
    return;
  }
  shard_type *gin = op->operands[0].value->type, *gout = op->results[0].type;
  uint32_t rank = gout->rank;
  int64_t *low = G2L_ARRAY(c, int64_t, rank), *interior = G2L_ARRAY(c, int64_t, rank);
  shard_op_i64_list_copy(op, "edge_padding_low", low, rank);
  shard_op_i64_list_copy(op, "interior_padding", interior, rank);
  int64_t ndev = shard_mesh_num_devices(mesh);
  int64_t *offsets = shard_xcalloc((size_t)(rank * ndev) + 1, sizeof(int64_t));
  bool *uniform = G2L_ARRAY(c, bool, rank), all_uniform = true;
  /* the operand was converted already: its global shape is gone, so derive it */
  for (uint32_t d = 0; d < rank; d++) {
    const shard_dim_sharding *ia = S_dim(in, d), *oa = S_dim(out, d);
    if (!S_same_axes(ia, oa)) {
      free(offsets);
      S_mismatch(c, op, d, ia, oa);
      return;
    }
    int64_t n = ia->num_axes ? shard_axes_product(ia->axes, ia->num_axes, mesh) : 1;
    int64_t s_in = x->type->dims[d], s_out = gout->dims[d] / n;
    uniform[d] = true;
    for (int64_t dev = 0; dev < ndev; dev++) {
      int64_t k = S_shard_index(dev, mesh, ia->axes, ia->num_axes);
      if (!S_pad_shard_is_local(k, s_in, s_out, n, low[d], interior[d])) {
        free(offsets);
        char msg[160];
        snprintf(msg, sizeof msg,
                 "dimension %u is sharded and the padding moves elements to other shards, which requires device "
                 "communication.",
                 d);
        S_fail(c, op, msg);
        return;
      }
      offsets[d * ndev + dev] = k * s_in * (interior[d] + 1) + low[d] - k * s_out;
      if (offsets[d * ndev + dev] != offsets[d * ndev]) uniform[d] = all_uniform = false;
    }
  }
  (void)gin;
  shard_type *local = S_local_type(c, gout, out, NULL, 0);
  int64_t *klow = G2L_ARRAY(c, int64_t, rank), *khigh = G2L_ARRAY(c, int64_t, rank),
          *shape = G2L_ARRAY(c, int64_t, rank);
  for (uint32_t d = 0; d < rank; d++) {
    int64_t lo = offsets[d * ndev], hi = lo;
    for (int64_t dev = 0; dev < ndev; dev++) {
      if (offsets[d * ndev + dev] > hi) hi = offsets[d * ndev + dev];
      if (offsets[d * ndev + dev] < lo) lo = offsets[d * ndev + dev];
    }
    int64_t expanded = (x->type->dims[d] - 1) * (interior[d] + 1) + 1;
    if (all_uniform) {
      klow[d] = lo;
      khigh[d] = local->dims[d] - (expanded + lo);
    } else {
      klow[d] = hi > 0 ? hi : 0;
      khigh[d] = local->dims[d] - lo - expanded > 0 ? local->dims[d] - lo - expanded : 0;
    }
    shape[d] = klow[d] + expanded + khigh[d];
  }
  shard_value *ops[2] = {x, pv};
  shard_op *pad = S_new(c, op, "stablehlo.pad", 2, ops, all_uniform ? local : S_tensor(c, rank, shape, local->elem), 0);
  shard_op_set_attr(c->a, pad, "edge_padding_high", shard_attr_dense_i64(c->a, khigh, rank), true);
  shard_op_set_attr(c->a, pad, "edge_padding_low", shard_attr_dense_i64(c->a, klow, rank), true);
  shard_op_set_attr(c->a, pad, "interior_padding", shard_attr_dense_i64(c->a, interior, rank), true);
  if (all_uniform) {
    free(offsets);
    S_replace(c, op, &pad->results[0]);
    return;
  }
  shard_value *dev = S_device_id(c, op);
  shard_value **sops = SHARD_NEW_ARRAY(c->a, shard_value *, rank + 1);
  sops[0] = &pad->results[0];
  for (uint32_t d = 0; d < rank; d++) {
    shard_buf b;
    shard_buf_init(&b);
    if (uniform[d]) {
      shard_buf_printf(&b, "%lld", (long long)(klow[d] - offsets[d * ndev]));
      sops[d + 1] = S_constant_i64(c, op, shard_buf_str(&b), 0, NULL);
    } else {
      shard_buf_putc(&b, '[');
      for (int64_t i = 0; i < ndev; i++)
        shard_buf_printf(&b, "%s%lld", i ? ", " : "", (long long)(klow[d] - offsets[d * ndev + i]));
      shard_buf_putc(&b, ']');
      shard_value *table = S_constant_i64(c, op, shard_buf_str(&b), 1, &ndev);
      shard_value *tv[2] = {table, dev};
      int64_t one = 1;
      shard_op *ds = S_new(c, op, "stablehlo.dynamic_slice", 2, tv, S_tensor(c, 1, &one, "i64"), 0);
      shard_op_set_attr(c->a, ds, "slice_sizes", shard_attr_dense_i64(c->a, &one, 1), true);
      sops[d + 1] = S_reshape(c, op, &ds->results[0], 0, NULL);
    }
    shard_buf_free(&b);
  }
  free(offsets);
  shard_op *res = S_new(c, op, "stablehlo.dynamic_slice", rank + 1, sops, local, 0);
  shard_op_set_attr(c->a, res, "slice_sizes", shard_attr_dense_i64(c->a, local->dims, rank), true);
  S_replace(c, op, &res->results[0]);
}

/* The slice of a sharded dim needs no communication when it keeps every
 * shard's extent: one shard, or a prefix that leaves the shard size as is. */
static bool S_slice_dim_local(int64_t shards, int64_t start, int64_t stride, int64_t in, int64_t out) {
  if (shards <= 1) return true;
  if (start != 0 || stride != 1) return false;
  return in / shards + (in % shards != 0) == out / shards + (out % shards != 0); /* ceil, without overflow */
}

/* Sharded dims of a slice must be kept whole (or communication-free): the
 * local slice then takes the local extent; replicated dims keep theirs. */
/* Shardy converts stablehlo.dynamic_slice like any op, keeping the global
 * slice_sizes next to a local result type, which does not verify once a
 * result dim is sharded (the halo exchange of reshape, pad and slice cuts
 * its buffer with a dynamic_slice whose other dims stay sharded by axes
 * outside the manual computation). A dim taken whole from an operand
 * sharded the same way is local on every device: its size shrinks to the
 * local one. Any other sharded dim needs communication. */
static void S_dynamic_slice(g2l *c, shard_op *op) {
  shard_value *x = op->operands[0].value;
  const shard_tensor_sharding *in = S_value_sharding(c, x), *out = S_value_sharding(c, &op->results[0]);
  shard_type *gin = S_global_type(c, x), *gout = op->results[0].type;
  S_localize_results(c, op);
  shard_type *local = op->results[0].type;
  if (!gin || !local || local == gout || local->rank != gout->rank || gin->rank != gout->rank) return;
  int64_t *sizes = G2L_ARRAY(c, int64_t, gout->rank);
  uint32_t n = shard_op_i64_list_copy(op, "slice_sizes", sizes, gout->rank);
  if (n != gout->rank) return;
  bool changed = false;
  for (uint32_t d = 0; d < n; d++) {
    if (local->dims[d] == gout->dims[d]) continue;
    if (sizes[d] != gin->dims[d] || !S_same_axes(S_dim(in, d), S_dim(out, d))) {
      char msg[128];
      snprintf(msg, sizeof msg,
               "dimension %u is sharded but the dynamic slice is not a full slice and requires device communication.",
               d);
      S_fail(c, op, msg);
      return;
    }
    sizes[d] = local->dims[d];
    changed = true;
  }
  if (changed) shard_op_set_attr(c->a, op, "slice_sizes", shard_attr_dense_i64(c->a, sizes, n), true);
}

static void S_slice(g2l *c, shard_op *op) {
  shard_value *x = op->operands[0].value;
  const shard_tensor_sharding *in = S_value_sharding(c, x), *out = S_value_sharding(c, &op->results[0]);
  bool in_rep = !in || shard_sharding_fully_replicated(in), out_rep = !out || shard_sharding_fully_replicated(out);
  if (in_rep && out_rep) {
    S_localize_results(c, op);
    return;
  }
  shard_type *gin = S_global_type(c, x), *gout = op->results[0].type;
  shard_type *local = S_local_type(c, gout, out, NULL, 0);
  uint32_t rank = gout->rank;
  int64_t *start = G2L_ARRAY(c, int64_t, rank), *limit = G2L_ARRAY(c, int64_t, rank),
          *strides = G2L_ARRAY(c, int64_t, rank);
  for (uint32_t d = 0; d < rank; d++) strides[d] = 1;
  shard_op_i64_list_copy(op, "start_indices", start, rank);
  shard_op_i64_list_copy(op, "limit_indices", limit, rank);
  shard_op_i64_list_copy(op, "strides", strides, rank);
  const shard_mesh *mesh = shard_sharding_mesh(c->m, in_rep ? out : in);
  for (uint32_t d = 0; d < rank; d++) {
    const shard_dim_sharding *ia = S_dim(in, d), *oa = S_dim(out, d);
    if (!S_same_axes(ia, oa)) {
      S_mismatch(c, op, d, ia, oa);
      return;
    }
    if (!ia->num_axes) continue;
    int64_t shards = mesh ? shard_axes_product(ia->axes, ia->num_axes, mesh) : 1;
    if (start[d] != 0 ||
        (limit[d] != gin->dims[d] && !S_slice_dim_local(shards, start[d], strides[d], gin->dims[d], gout->dims[d]))) {
      char msg[128];
      snprintf(msg, sizeof msg,
               "dimension %u is sharded but the slice is not a full slice and requires device communication.", d);
      S_fail(c, op, msg);
      return;
    }
    limit[d] = limit[d] == gin->dims[d] ? x->type->dims[d] : local->dims[d];
  }
  shard_op *s = S_new(c, op, "stablehlo.slice", 1, &x, local, 0);
  shard_op_set_attr(c->a, s, "limit_indices", shard_attr_dense_i64(c->a, limit, rank), true);
  shard_op_set_attr(c->a, s, "start_indices", shard_attr_dense_i64(c->a, start, rank), true);
  shard_op_set_attr(c->a, s, "strides", shard_attr_dense_i64(c->a, strides, rank), true);
  S_replace(c, op, &s->results[0]);
}

/* How many shards dimension d of operand x has: its global extent over
 * its local one (1 when unknown). */
static int64_t S_operand_shards(g2l *c, const shard_value *x, int64_t d) {
  const shard_type *g = S_global_type(c, x), *l = x->type;
  if (d < 0 || !g || !l || (uint32_t)d >= g->rank || (uint32_t)d >= l->rank || l->dims[d] <= 0) return 1;
  return g->dims[d] % l->dims[d] ? 1 : g->dims[d] / l->dims[d];
}

/* A group count whose groups are split across n shards of the grouped
 * dimension runs n times fewer groups per device (a sharded feature or
 * batch group); a count the shards do not divide (e.g. 1, when the
 * sharded dim is a reduction) stays. */
static void S_local_group_count(g2l *c, shard_op *op, const char *name, int64_t shards) {
  const shard_attr *a = shard_op_attr(op, name);
  if (!a || a->kind != SHARD_ATTR_INT || shards <= 1) return;
  int64_t g = a->u.integer.value;
  if (g <= 1 || g % shards) return;
  shard_attr *na = shard_attr_int(c->a, g / shards, a->u.integer.type);
  for (uint32_t i = 0; i < op->num_attrs; i++)
    if (!strcmp(op->attrs[i].name, name)) op->attrs[i].value = na;
}

/* The convolution is rebuilt on local types without its sdy.sharding (as
 * Shardy's convolution pattern creates a fresh op), feature_group_count and
 * batch_group_count divided by the shards of the lhs feature and batch
 * dims. */
static void S_convolution(g2l *c, shard_op *op) {
  S_localize_results(c, op);
  const shard_conv_dims *dn = shard_op_conv_dims(op);
  if (op->num_operands == 2 && dn) {
    S_local_group_count(c, op, "feature_group_count", S_operand_shards(c, op->operands[0].value, dn->in_feature));
    S_local_group_count(c, op, "batch_group_count", S_operand_shards(c, op->operands[0].value, dn->in_batch));
  }
  shard_op_remove_attr(op, "sdy.sharding");
}

/* The literal of zero (false for i1) of an element type. */
static const char *S_zero_literal(const char *elem) {
  const char *e = elem ? elem : "";
  return e[0] == 'f' || !strncmp(e, "bf", 2) ? "0.000000e+00" : !strcmp(e, "i1") ? "false" : "0";
}

static shard_value *S_binary(g2l *c, shard_op *before, const char *name, shard_value *x, shard_value *y,
                             shard_type *t) {
  shard_value *xy[2] = {x, y};
  return &S_new(c, before, name, 2, xy, t, 0)->results[0];
}

static shard_value *S_compare(g2l *c, shard_op *before, const char *dir, shard_value *x, shard_value *y) {
  shard_value *r = S_binary(c, before, "stablehlo.compare", x, y, S_tensor(c, x->type->rank, x->type->dims, "i1"));
  int d = shard_shlo_enum_case_named(SHARD_SHLO_COMPARISON_DIRECTION, dir);
  shard_op_set_attr(c->a, r->def, "comparison_direction",
                    shard_attr_shlo_enum(c->a, SHARD_SHLO_COMPARISON_DIRECTION, (uint32_t)d), true);
  return r;
}

static shard_value *S_broadcast(g2l *c, shard_op *before, shard_value *v, shard_type *t, const int64_t *dims,
                                uint32_t n) {
  shard_op *b = S_new(c, before, "stablehlo.broadcast_in_dim", 1, &v, t, 0);
  shard_op_set_attr(c->a, b, "broadcast_dimensions", shard_attr_dense_i64(c->a, dims, n), true);
  return &b->results[0];
}

/* Whether this device comes first along `axes` (its shard index there is
 * 0), as a tensor<1xi1> read from a table by device id. */
static shard_value *S_first_along(g2l *c, shard_op *before, const shard_mesh *mesh, const shard_axis_ref *axes,
                                  uint32_t n) {
  int64_t total = shard_mesh_num_devices(mesh), one = 1;
  shard_buf b;
  shard_buf_init(&b);
  shard_buf_putc(&b, '[');
  for (int64_t d = 0; d < total; d++)
    shard_buf_printf(&b, "%s%s", d ? ", " : "", S_shard_index(d, mesh, axes, n) == 0 ? "true" : "false");
  shard_buf_putc(&b, ']');
  shard_value *dev = S_device_id(c, before);
  shard_value *table = S_splat(c, before, S_tensor(c, 1, &total, "i1"), shard_buf_str(&b));
  shard_buf_free(&b);
  shard_value *ops[2] = {table, dev};
  shard_op *ds = S_new(c, before, "stablehlo.dynamic_slice", 2, ops, S_tensor(c, 1, &one, "i1"), 0);
  shard_op_set_attr(c->a, ds, "slice_sizes", shard_attr_dense_i64(c->a, &one, 1), true);
  return &ds->results[0];
}

/* A scalar zero of an element type. */
static shard_value *S_zero(g2l *c, shard_op *before, const char *elem) {
  return S_splat(c, before, S_tensor(c, 0, NULL, elem), S_zero_literal(elem));
}

/* v on the devices `first` (S_first_along) holds for, `zero` (a scalar)
 * on the others. */
static shard_value *S_only_on_first(g2l *c, shard_op *before, shard_value *v, shard_value *first, shard_value *zero) {
  int64_t zero_dim = 0;
  shard_type *t = v->type;
  shard_value *mask = S_broadcast(c, before, first, S_tensor(c, t->rank, t->dims, "i1"), &zero_dim, t->rank ? 1 : 0);
  shard_value *zeros = S_broadcast(c, before, zero, t, NULL, 0);
  shard_value *sel_ops[3] = {mask, v, zeros};
  return &S_new(c, before, "stablehlo.select", 3, sel_ops, t, 0)->results[0];
}

/* sdy.replicated_to_unreduced: the value stays whole on the devices first
 * along the axes and becomes zero on the others, so that summing over the
 * axes gives it back once. */
static void S_replicated_to_unreduced(g2l *c, shard_op *op) {
  const shard_attr *axes = shard_op_attr(op, "axes");
  shard_tensor_sharding *s;
  const shard_mesh *mesh = S_op_mesh(c, op, &s);
  if (!mesh || op->num_operands != 1 || op->num_results != 1) return;
  shard_value *x = op->operands[0].value;
  if (!axes || axes->kind != SHARD_ATTR_SDY_AXIS_LIST || !axes->u.axis_list.num || !x->type ||
      x->type->kind != SHARD_TYPE_TENSOR) {
    S_replace(c, op, x);
    return;
  }
  shard_value *zero = S_zero(c, op, x->type->elem);
  shard_value *first = S_first_along(c, op, mesh, axes->u.axis_list.axes, axes->u.axis_list.num);
  S_replace(c, op, S_only_on_first(c, op, x, first, zero));
}

/* Shardy's form of a dynamic_update_slice whose update is 1 long along
 * every sharded dim it does not span (split[d]): the update falls in one
 * shard there. Per such dim, the start clamped as StableHLO does ([0,
 * size - 1]) owns the update when it lies in this device's shard, and the
 * op writes at the local start (0 when not owned); the op's result is kept
 * where every such dim owns the update, the operand elsewhere. */
static void S_dynamic_update_slice_one(g2l *c, shard_op *op, const bool *split, const shard_tensor_sharding *out,
                                       const shard_mesh *mesh, const shard_type *gout) {
  uint32_t rank = gout->rank;
  shard_type *local = op->results[0].type;
  shard_value *x = op->operands[0].value, *owner = NULL;
  shard_value **owners = G2L_ARRAY(c, shard_value *, rank);
  uint32_t nowners = 0;
  char num[32];
  for (uint32_t d = 0; d < rank; d++) {
    if (!split[d]) continue;
    shard_value *start = op->operands[d + 2].value;
    shard_type *t = start->type;
    shard_value *zero = S_splat(c, op, t, "0");
    snprintf(num, sizeof num, "%lld", (long long)(gout->dims[d] - 1));
    shard_value *clamp_ops[3] = {zero, start, S_splat(c, op, t, num)};
    shard_value *clamped = &S_new(c, op, "stablehlo.clamp", 3, clamp_ops, t, 0)->results[0];
    const shard_dim_sharding *ds = S_dim(out, d);
    shard_value *off = S_dimension_offset(c, op, mesh, ds->axes, ds->num_axes, local->dims[d]);
    off = &S_new(c, op, "stablehlo.convert", 1, &off, t, 0)->results[0];
    shard_value *end = S_binary(c, op, "stablehlo.add", clamped, S_splat(c, op, t, "1"), t);
    snprintf(num, sizeof num, "%lld", (long long)local->dims[d]);
    shard_value *shard_end = S_binary(c, op, "stablehlo.add", off, S_splat(c, op, t, num), t);
    shard_value *ge = S_compare(c, op, "GE", clamped, off), *le = S_compare(c, op, "LE", end, shard_end);
    shard_value *own = S_binary(c, op, "stablehlo.and", ge, le, ge->type);
    shard_value *sel_ops[3] = {own, S_binary(c, op, "stablehlo.subtract", clamped, off, t), zero};
    shard_operand_set(&op->operands[d + 2], &S_new(c, op, "stablehlo.select", 3, sel_ops, t, 0)->results[0]);
    owners[nowners++] = own;
  }
  /* the op is rebuilt without its sdy.sharding, as Shardy rebuilds it */
  shard_tensor_sharding *sharding = S_value_sharding(c, &op->results[0]);
  shard_type *gtype = S_global_type(c, &op->results[0]);
  shard_op_remove_attr(op, "sdy.sharding");
  shard_op *after = op->next;
  for (uint32_t k = 0; k < nowners; k++)
    owner = owner ? S_binary(c, after, "stablehlo.and", owner, owners[k], owner->type) : owners[k];
  shard_value *mask = S_broadcast(c, after, owner, S_tensor(c, rank, local->dims, "i1"), NULL, 0);
  shard_value *sel_ops[3] = {mask, x, x};
  shard_op *sel = S_new(c, after, "stablehlo.select", 3, sel_ops, local, 0);
  shard_value_replace_all_uses(&op->results[0], &sel->results[0]);
  shard_operand_set(&sel->operands[1], &op->results[0]);
  S_remember(c, &sel->results[0], gtype, sharding);
}

/* A dynamic_update_slice whose operand is sharded along a dim the update
 * does not span (Shardy's rule keeps that dim sharded and the update
 * replicated there) writes on each device the part of the update that
 * falls in its shard: in Shardy's form when the update is 1 long along
 * every such dim (S_dynamic_update_slice_one), else (Shardy refuses those)
 * as follows. Per such dim, with the start clamped as StableHLO
 * does (into [0, size - update]) and made local (minus the shard's offset),
 * the update padded by the local size L on both sides is cut to a window of
 * L at L - local start, which stays in range whenever shard and update
 * overlap; local positions inside [local start, local start + update) of
 * every such dim take the window, the others keep the operand. Dims the
 * update spans, or that are not sharded, are left to the window's plain
 * cut (start 0) or, when none is sharded, to the op itself. */
static void S_dynamic_update_slice(g2l *c, shard_op *op) {
  uint32_t rank = op->results[0].type && op->results[0].type->kind == SHARD_TYPE_TENSOR ? op->results[0].type->rank : 0;
  shard_value *x = op->operands[0].value, *u = op->num_operands > 1 ? op->operands[1].value : NULL;
  shard_type *gout = op->results[0].type, *gupd = u ? S_global_type(c, u) : NULL;
  const shard_tensor_sharding *in = S_value_sharding(c, x), *out = S_value_sharding(c, &op->results[0]);
  const shard_mesh *mesh = out ? shard_sharding_mesh(c->m, out) : NULL;
  S_localize_results(c, op);
  shard_type *local = op->results[0].type;
  if (!rank || op->num_operands != rank + 2 || !gupd || gupd->rank != rank || !mesh || local == gout || !x->type ||
      !u->type || u->type->rank != rank)
    return;
  bool *split = G2L_ARRAY(c, bool, rank), any = false;
  for (uint32_t d = 0; d < rank; d++) {
    if (local->dims[d] == gout->dims[d] || gupd->dims[d] == gout->dims[d]) continue;
    if (!S_same_axes(S_dim(in, d), S_dim(out, d)) || u->type->dims[d] != gupd->dims[d]) {
      char msg[160];
      snprintf(msg, sizeof msg,
               "dimension %u is sharded but the update is not a full update and is not replicated along it", d);
      S_fail(c, op, msg);
      return;
    }
    split[d] = any = true;
  }
  if (!any) return;
  bool unit = true;
  for (uint32_t d = 0; d < rank; d++) unit = unit && (!split[d] || gupd->dims[d] == 1);
  if (unit) {
    S_dynamic_update_slice_one(c, op, split, out, mesh, gout);
    return;
  }
  shard_type *i64 = S_i64_scalar(c);
  int64_t *low = G2L_ARRAY(c, int64_t, rank), *high = G2L_ARRAY(c, int64_t, rank),
          *interior = G2L_ARRAY(c, int64_t, rank), *padded = G2L_ARRAY(c, int64_t, rank);
  shard_value **starts = SHARD_NEW_ARRAY(c->a, shard_value *, rank + 2);
  shard_value **rel = G2L_ARRAY(c, shard_value *, rank);
  starts[0] = NULL;
  for (uint32_t d = 0; d < rank; d++) {
    interior[d] = 0;
    low[d] = high[d] = split[d] ? local->dims[d] : 0;
    padded[d] = u->type->dims[d] + low[d] + high[d];
    if (!split[d]) {
      starts[d + 1] = S_constant_i64(c, op, "0", 0, NULL);
      continue;
    }
    shard_value *start = op->operands[d + 2].value;
    if (!start->type || !start->type->elem || strcmp(start->type->elem, "i64"))
      start = &S_new(c, op, "stablehlo.convert", 1, &start, i64, 0)->results[0];
    char num[32];
    snprintf(num, sizeof num, "%lld", (long long)(gout->dims[d] - gupd->dims[d]));
    shard_value *clamp_ops[3] = {S_constant_i64(c, op, "0", 0, NULL), start, S_constant_i64(c, op, num, 0, NULL)};
    start = &S_new(c, op, "stablehlo.clamp", 3, clamp_ops, i64, 0)->results[0];
    const shard_dim_sharding *ds = S_dim(out, d);
    shard_value *off = S_dimension_offset(c, op, mesh, ds->axes, ds->num_axes, local->dims[d]);
    rel[d] = S_binary(c, op, "stablehlo.subtract", start, off, i64);
    snprintf(num, sizeof num, "%lld", (long long)local->dims[d]);
    starts[d + 1] = S_binary(c, op, "stablehlo.subtract", S_constant_i64(c, op, num, 0, NULL), rel[d], i64);
  }
  shard_value *pad_ops[2] = {u, S_zero(c, op, local->elem)};
  shard_op *pad = S_new(c, op, "stablehlo.pad", 2, pad_ops, S_tensor(c, rank, padded, local->elem), 0);
  shard_op_set_attr(c->a, pad, "edge_padding_low", shard_attr_dense_i64(c->a, low, rank), true);
  shard_op_set_attr(c->a, pad, "edge_padding_high", shard_attr_dense_i64(c->a, high, rank), true);
  shard_op_set_attr(c->a, pad, "interior_padding", shard_attr_dense_i64(c->a, interior, rank), true);
  starts[0] = &pad->results[0];
  int64_t *window = G2L_ARRAY(c, int64_t, rank);
  for (uint32_t d = 0; d < rank; d++) window[d] = split[d] ? local->dims[d] : u->type->dims[d];
  shard_op *cut = S_new(c, op, "stablehlo.dynamic_slice", rank + 1, starts, S_tensor(c, rank, window, local->elem), 0);
  shard_op_set_attr(c->a, cut, "slice_sizes", shard_attr_dense_i64(c->a, window, rank), true);
  /* the window covers the split dims whole: the op now updates the local
   * operand with it at start 0 there and at the given starts elsewhere */
  shard_value *upd = &cut->results[0];
  shard_value *mask = NULL;
  shard_type *idx_t = S_tensor(c, rank, window, "i64");
  for (uint32_t d = 0; d < rank; d++) {
    if (!split[d]) continue;
    shard_op *iota = S_new(c, op, "stablehlo.iota", 0, NULL, idx_t, 0);
    S_int_attr(c, iota, "iota_dimension", d);
    char num[32];
    snprintf(num, sizeof num, "%lld", (long long)gupd->dims[d]);
    shard_value *lo = S_broadcast(c, op, rel[d], idx_t, NULL, 0);
    shard_value *hi = S_broadcast(
        c, op, S_binary(c, op, "stablehlo.add", rel[d], S_constant_i64(c, op, num, 0, NULL), i64), idx_t, NULL, 0);
    shard_value *inside = S_binary(c, op, "stablehlo.and", S_compare(c, op, "GE", &iota->results[0], lo),
                                   S_compare(c, op, "LT", &iota->results[0], hi), S_tensor(c, rank, window, "i1"));
    mask = mask ? S_binary(c, op, "stablehlo.and", mask, inside, inside->type) : inside;
  }
  /* the operand's values where the update does not reach: the same window
   * of the local operand, at the starts the op will write it to (start
   * indices share one type, that of the op's own) */
  shard_type *start_t = op->operands[2].value->type;
  shard_value *zero = S_splat(c, op, start_t, "0");
  shard_value **xstarts = SHARD_NEW_ARRAY(c->a, shard_value *, rank + 2);
  xstarts[0] = x;
  for (uint32_t d = 0; d < rank; d++) xstarts[d + 1] = split[d] ? zero : op->operands[d + 2].value;
  shard_op *keep = S_new(c, op, "stablehlo.dynamic_slice", rank + 1, xstarts, upd->type, 0);
  shard_op_set_attr(c->a, keep, "slice_sizes", shard_attr_dense_i64(c->a, window, rank), true);
  shard_value *sel_ops[3] = {mask, upd, &keep->results[0]};
  shard_operand_set(&op->operands[1], &S_new(c, op, "stablehlo.select", 3, sel_ops, upd->type, 0)->results[0]);
  for (uint32_t d = 0; d < rank; d++)
    if (split[d]) shard_operand_set(&op->operands[d + 2], zero);
}

/* One tensor of the indices' type `it` from a scalar per index component
 * (v[K], K = the index vector's length): the scalar broadcast when K is 1,
 * else the scalars reshaped to tensor<1xT>, concatenated and broadcast
 * along the index vector dim, as Shardy builds gather and scatter index
 * offsets. */
static shard_value *S_index_vector(g2l *c, shard_op *before, shard_value **v, int64_t K, shard_type *it, int64_t ivd) {
  if (K == 1) return S_broadcast(c, before, v[0], it, NULL, 0);
  int64_t one = 1;
  shard_value **parts = G2L_ARRAY(c, shard_value *, K);
  for (int64_t k = 0; k < K; k++) parts[k] = S_reshape(c, before, v[k], 1, &one);
  shard_op *cat = S_new(c, before, "stablehlo.concatenate", (uint32_t)K, parts, S_tensor(c, 1, &K, it->elem), 0);
  S_int_attr(c, cat, "dimension", 0);
  return S_broadcast(c, before, &cat->results[0], it, &ivd, 1);
}

/* A gather whose operand is sharded along a passed-through dim takes
 * local slices there: slice_sizes shrink by that dim's shards. A sharded
 * dim the gather collapses (slice size 1) holds each index on one shard
 * only: indices are clamped to the global range (dim - 1, as Shardy) and
 * made local (minus the shard's offset in their component: the offsets
 * and last indices per component, S_index_vector), and results whose
 * index falls outside this shard are zeroed (the all_reduce that follows
 * sums them); a collapsed sharded dim the indices never address reads
 * index 0, so only the shard at offset 0 keeps its result. Operand
 * batching dims are sharded like the indices' batch dims and need
 * nothing. */
static void S_gather(g2l *c, shard_op *op) {
  S_localize_results(c, op);
  const shard_attr *sizes_attr = shard_op_attr(op, "slice_sizes");
  uint32_t max = sizes_attr && sizes_attr->kind == SHARD_ATTR_DENSE_ARRAY ? sizes_attr->u.dense_array.num : 0;
  int64_t *sizes = G2L_ARRAY(c, int64_t, max);
  uint32_t n = shard_op_i64_list_copy(op, "slice_sizes", sizes, max);
  if (op->num_operands != 2 || !n) return;
  shard_value *x = op->operands[0].value, *idx = op->operands[1].value;
  const shard_type *gx = S_global_type(c, x);
  const shard_tensor_sharding *xs = S_value_sharding(c, x);
  const shard_gather_dims *dn = shard_op_gather_dims(op);
  if (!dn) return;
  shard_i64s sim = dn->index_map, offs = dn->offset, obatch = dn->operand_batching;
  int64_t ivd = dn->index_vector_dim;
  bool changed = false;
  int64_t *comp_of = G2L_ARRAY(c, int64_t, n); /* index component addressing operand dim d, or -1 */
  bool *indexed = G2L_ARRAY(c, bool, n), *unindexed = G2L_ARRAY(c, bool, n);
  uint32_t nindexed = 0, nunindexed = 0;
  for (uint32_t d = 0; d < n; d++) {
    comp_of[d] = -1;
    for (uint32_t k = 0; k < sim.n; k++)
      if (sim.v[k] == (int64_t)d) comp_of[d] = k;
    int64_t shards = S_operand_shards(c, x, d);
    if (shards <= 1 || shard_i64s_find(&obatch, d) >= 0) continue;
    if (sizes[d] % shards == 0 && sizes[d] >= shards) {
      sizes[d] /= shards;
      changed = true;
    } else if (comp_of[d] >= 0) {
      indexed[d] = true;
      nindexed++;
    } else {
      unindexed[d] = true;
      nunindexed++;
    }
  }
  if (changed) shard_op_set_attr(c->a, op, "slice_sizes", shard_attr_dense_i64(c->a, sizes, n), true);
  if (!nindexed && !nunindexed) return;
  const shard_mesh *mesh = xs ? shard_sharding_mesh(c->m, xs) : NULL;
  shard_type *it = idx->type, *out = op->results[0].type;
  if (!mesh) return;
  bool implicit = ivd >= (int64_t)it->rank;
  if (!implicit && it->dims[ivd] != (int64_t)sim.n) return;
  shard_type *i64 = S_i64_scalar(c), *mask_t = S_tensor(c, it->rank, it->dims, "i1");
  shard_value *mask = NULL, *local_idx = idx;
  char num[32];
  if (nindexed) {
    /* indices clamped into the global operand first, as the gather would */
    shard_value *lo = S_splat(c, op, it, "0"), *hi;
    int64_t K = sim.n;
    shard_type *elem_t = S_tensor(c, 0, NULL, it->elem);
    if (K == 1) {
      snprintf(num, sizeof num, "%lld", (long long)(gx->dims[sim.v[0]] - 1));
      hi = S_splat(c, op, it, num);
    } else {
      shard_buf b;
      shard_buf_init(&b);
      shard_buf_putc(&b, '[');
      for (uint32_t k = 0; k < sim.n; k++)
        shard_buf_printf(&b, "%s%lld", k ? ", " : "", (long long)(gx->dims[sim.v[k]] - 1));
      shard_buf_putc(&b, ']');
      hi = S_broadcast(c, op, S_splat(c, op, S_tensor(c, 1, &K, it->elem), shard_buf_str(&b)), it, &ivd, 1);
      shard_buf_free(&b);
    }
    shard_value *ops3[3] = {lo, idx, hi};
    shard_value *clamped = &S_new(c, op, "stablehlo.clamp", 3, ops3, it, 0)->results[0];
    /* per index component (Shardy's order): a sharded collapsed dim spans
     * [its shard's offset, offset + local size - 1], any other [0, its
     * global size - 1] */
    shard_value **lov = G2L_ARRAY(c, shard_value *, K), **hiv = G2L_ARRAY(c, shard_value *, K);
    for (uint32_t k = 0; k < sim.n; k++) {
      uint32_t d = (uint32_t)sim.v[k];
      if (!indexed[d]) {
        lov[k] = S_splat(c, op, elem_t, "0");
        snprintf(num, sizeof num, "%lld", (long long)(gx->dims[d] - 1));
        hiv[k] = S_splat(c, op, elem_t, num);
        continue;
      }
      const shard_dim_sharding *ds = S_dim(xs, d);
      shard_value *off = S_dimension_offset(c, op, mesh, ds->axes, ds->num_axes, x->type->dims[d]);
      lov[k] = &S_new(c, op, "stablehlo.convert", 1, &off, elem_t, 0)->results[0];
      snprintf(num, sizeof num, "%lld", (long long)(x->type->dims[d] - 1));
      hiv[k] = S_binary(c, op, "stablehlo.add", lov[k], S_splat(c, op, elem_t, num), elem_t);
    }
    shard_value *boff = S_index_vector(c, op, lov, K, it, ivd), *blim = S_index_vector(c, op, hiv, K, it, ivd);
    local_idx = S_binary(c, op, "stablehlo.subtract", clamped, boff, it);
    shard_value *ge = S_compare(c, op, "GE", clamped, boff), *le = S_compare(c, op, "LE", clamped, blim);
    mask = S_binary(c, op, "stablehlo.and", ge, le, mask_t);
  }
  /* a sharded collapsed dim the indices never address reads index 0: only
   * the shard at offset 0 keeps its result (one scalar for all such dims) */
  shard_value *first = NULL;
  for (uint32_t d = 0; d < n; d++) {
    if (!unindexed[d]) continue;
    const shard_dim_sharding *ds = S_dim(xs, d);
    shard_value *off = S_dimension_offset(c, op, mesh, ds->axes, ds->num_axes, x->type->dims[d]);
    shard_value *eq = S_compare(c, op, "EQ", off, S_splat(c, op, i64, "0"));
    first = first ? S_binary(c, op, "stablehlo.and", first, eq, eq->type) : eq;
  }
  if (first)
    mask = mask ? S_binary(c, op, "stablehlo.and", mask, S_broadcast(c, op, first, mask_t, NULL, 0), mask_t) : first;
  shard_value *ops2[2] = {x, local_idx};
  shard_op *g = S_new(c, op, "stablehlo.gather", 2, ops2, out, 0);
  for (uint32_t i = 0; i < op->num_attrs; i++)
    shard_op_set_attr(c->a, g, op->attrs[i].name, op->attrs[i].value, op->attrs[i].inherent);
  /* the batch dims of the result are the index dims without the index vector dim */
  int64_t *bdims = G2L_ARRAY(c, int64_t, out->rank);
  uint32_t nb = 0;
  for (uint32_t d = 0; d < out->rank; d++)
    if (shard_i64s_find(&offs, d) < 0) bdims[nb++] = d;
  if (mask->type->rank && !implicit) {
    int64_t *rdims = G2L_ARRAY(c, int64_t, it->rank);
    uint32_t nr = 0;
    for (uint32_t d = 0; d < it->rank; d++)
      if ((int64_t)d != ivd) rdims[nr++] = it->dims[d];
    shard_type *bool_scalar = S_tensor(c, 0, NULL, "i1");
    shard_value *ops[2] = {mask, S_splat(c, op, bool_scalar, "true")};
    shard_op *red = S_new(c, op, "stablehlo.reduce", 2, ops, S_tensor(c, nr, rdims, "i1"), 1);
    shard_op_set_attr(c->a, red, "dimensions", shard_attr_dense_i64(c->a, &ivd, 1), true);
    shard_block *b = shard_region_add_block(c->a, &red->regions[0]);
    shard_block_add_arg(c->a, b, bool_scalar);
    shard_block_add_arg(c->a, b, bool_scalar);
    shard_value *xy[2] = {&b->args[0], &b->args[1]};
    shard_op *and = shard_op_new_named(c->a, "stablehlo.and", 2, xy, 1, &bool_scalar, 0);
    shard_block_append(b, and);
    shard_value *r = &and->results[0];
    shard_block_append(b, shard_op_new_named(c->a, "stablehlo.return", 1, &r, 0, NULL, 0));
    mask = &red->results[0];
  }
  bool scalar_mask = mask->type->rank == 0;
  shard_value *bmask = S_broadcast(c, op, mask, S_tensor(c, out->rank, out->dims, "i1"), scalar_mask ? NULL : bdims,
                                   scalar_mask ? 0 : nb);
  shard_value *ops3[3] = {bmask, &g->results[0], S_splat(c, op, out, S_zero_literal(out->elem))};
  S_replace(c, op, &S_new(c, op, "stablehlo.select", 3, ops3, out, 0)->results[0]);
}

/* The identity of the scatter's update computation as a literal of elem,
 * as Shardy picks it (getScatterReductionIdentity): the body must apply one
 * kind of add, and, or, multiply, maximum or minimum (and return); and and
 * multiply take 1, maximum the lowest and minimum the largest value. NULL
 * for any other body or element type. */
static const char *S_scatter_identity(const shard_op *op, const char *elem) {
  shard_block *b = op->num_regions ? op->regions[0].first : NULL;
  const char *kind = NULL;
  for (shard_op *x = b ? b->first : NULL; x; x = x->next) {
    if (!strcmp(x->name, "stablehlo.return")) continue;
    if (kind && strcmp(kind, x->name)) return NULL;
    kind = x->name;
  }
  if (!kind || !elem) return NULL;
  static const struct {
    const char *elem, *lowest, *largest;
  } floats[] = {{"f64", "-1.7976931348623157E+308", "1.7976931348623157E+308"},
                {"f32", "-3.40282347E+38", "3.40282347E+38"},
                {"bf16", "-3.38953139E+38", "3.38953139E+38"},
                {"f16", "-6.550400e+04", "6.550400e+04"}},
    ints[] = {{"i64", "-9223372036854775808", "9223372036854775807"},
              {"i32", "-2147483648", "2147483647"},
              {"i16", "-32768", "32767"},
              {"i8", "-128", "127"},
              {"i1", "true", "false"}};
  int f = -1, i = -1;
  for (int k = 0; k < (int)(sizeof floats / sizeof *floats); k++)
    if (!strcmp(elem, floats[k].elem)) f = k;
  for (int k = 0; k < (int)(sizeof ints / sizeof *ints); k++)
    if (!strcmp(elem, ints[k].elem)) i = k;
  if (f < 0 && i < 0) return NULL;
  bool i1 = !strcmp(elem, "i1");
  if (!strcmp(kind, "stablehlo.add") || !strcmp(kind, "stablehlo.or")) return S_zero_literal(elem);
  if (!strcmp(kind, "stablehlo.and") || !strcmp(kind, "stablehlo.multiply"))
    return i1 ? "true" : f >= 0 ? "1.000000e+00" : "1";
  if (!strcmp(kind, "stablehlo.maximum")) return f >= 0 ? floats[f].lowest : ints[i].lowest;
  if (!strcmp(kind, "stablehlo.minimum")) return f >= 0 ? floats[f].largest : ints[i].largest;
  return NULL;
}

/* A scatter runs on local types with two fixes, in Shardy's order. Updates
 * sharded along their batch dims on axes the operand is not sharded on:
 * only the first device along them keeps the operand (below). Operand dims
 * addressed by the indices and sharded: the indices shift by this shard's
 * offset (built per index component as for the gather). */
static void S_scatter(g2l *c, shard_op *op) {
  if (op->num_operands < 3 || !(op->num_operands & 1)) return S_localize_results(c, op);
  uint32_t nin = (op->num_operands - 1) / 2;
  shard_value *idx = op->operands[nin].value, *upd = op->operands[nin + 1].value;
  const shard_gather_dims *dn = shard_op_scatter_dims(op);
  if (!dn) return S_localize_results(c, op);
  shard_i64s sdo = dn->index_map, ibatch = dn->operand_batching, window = dn->offset;
  int64_t ivd = dn->index_vector_dim;
  shard_value *x = op->operands[0].value;
  const shard_tensor_sharding *xs = S_value_sharding(c, x), *us = S_value_sharding(c, upd);
  const shard_mesh *mesh = xs ? shard_sharding_mesh(c->m, xs) : us ? shard_sharding_mesh(c->m, us) : NULL;
  /* axes sharding the updates' batch dims (not update_window_dims) that
   * shard no operand dim: every device along them scatters its part into
   * the whole operand and the all_reduce that follows sums them, so only
   * the device at index 0 along those axes keeps the operand, the others
   * start from the identity of the reduction */
  uint32_t maxu = S_num_axes(us), nl = 0;
  shard_axis_ref *lead = G2L_ARRAY(c, shard_axis_ref, maxu);
  for (uint32_t d = 0; us && d < us->rank; d++) {
    if (shard_i64s_find(&window, d) >= 0) continue;
    for (uint32_t i = 0; i < us->dims[d].num_axes; i++) {
      bool shared = false;
      for (uint32_t e = 0; xs && e < xs->rank && !shared; e++)
        for (uint32_t j = 0; j < xs->dims[e].num_axes && !shared; j++)
          shared = shard_axis_equal(&xs->dims[e].axes[j], &us->dims[d].axes[i]);
      if (!shared) lead[nl++] = us->dims[d].axes[i];
    }
  }
  if (nl && mesh) {
    const char *identity = S_scatter_identity(op, x->type->elem);
    if (!identity) {
      shard_error(c->de, op->span, "failed to get scatter reduction identity.");
      shard_error(c->de, op->span, "failed to legalize operation '%s' that was explicitly marked illegal", op->name);
      c->failed = true;
      return;
    }
    shard_value *id = S_splat(c, op, S_tensor(c, 0, NULL, x->type->elem), identity);
    shard_value *first = S_first_along(c, op, mesh, lead, nl);
    for (uint32_t i = 0; i < nin; i++)
      shard_operand_set(&op->operands[i], S_only_on_first(c, op, op->operands[i].value, first, id));
  }
  /* operand dims addressed by the indices and sharded: the indices shift
   * by this shard's offset in their component (0 in the others), and
   * updates landing outside the shard are dropped by the scatter itself */
  shard_type *it = idx->type;
  bool implicit = ivd >= (int64_t)it->rank, any = false;
  for (uint32_t k = 0; k < sdo.n; k++)
    if (S_operand_shards(c, x, sdo.v[k]) > 1 && shard_i64s_find(&ibatch, sdo.v[k]) < 0) any = true;
  if (any && mesh && (implicit ? sdo.n == 1 : it->dims[ivd] == (int64_t)sdo.n)) {
    shard_type *elem_t = S_tensor(c, 0, NULL, it->elem);
    shard_value **comp = G2L_ARRAY(c, shard_value *, sdo.n);
    for (uint32_t k = 0; k < sdo.n; k++) {
      if (S_operand_shards(c, x, sdo.v[k]) <= 1 || shard_i64s_find(&ibatch, sdo.v[k]) >= 0) {
        comp[k] = S_splat(c, op, elem_t, "0");
        continue;
      }
      const shard_dim_sharding *ds = S_dim(xs, (uint32_t)sdo.v[k]);
      shard_value *off = S_dimension_offset(c, op, mesh, ds->axes, ds->num_axes, x->type->dims[sdo.v[k]]);
      comp[k] = &S_new(c, op, "stablehlo.convert", 1, &off, elem_t, 0)->results[0];
    }
    shard_value *offv = S_index_vector(c, op, comp, sdo.n, it, ivd);
    shard_operand_set(&op->operands[nin], S_binary(c, op, "stablehlo.subtract", idx, offv, it));
  }
  S_localize_results(c, op);
  for (uint32_t r = 0; r < op->num_regions; r++)
    for (shard_block *b = op->regions[r].first; b; b = b->next) S_convert_block(c, b);
}

/* The body keeps its op; its arguments and results take the local types of
 * the in/out shardings. */
static void S_named_computation(g2l *c, shard_op *op) {
  shard_block *body = op->regions[0].first;
  for (uint32_t i = 0; body && i < body->num_args; i++)
    body->args[i].type = S_local_type(c, body->args[i].type, S_value_sharding(c, &body->args[i]), NULL, 0);
  for (uint32_t i = 0; i < op->num_results; i++)
    op->results[i].type = S_local_type(c, op->results[i].type, S_value_sharding(c, &op->results[i]), NULL, 0);
  for (shard_block *b = body; b; b = b->next) S_convert_block(c, b);
}

/* The body is converted now with local argument types (in_shardings
 * without the manual axes) and the results take the local types of the
 * out_shardings; inlining waits until the whole function is converted (as
 * MLIR's conversion sees the original op when its users ask for a sharding),
 * so a user such as a slice still reads the out_shardings, not the
 * replicated sharding of the value the body returns. */
static void S_manual_computation(g2l *c, shard_op *op) {
  const shard_attr *ins = shard_op_attr(op, "in_shardings");
  const shard_attr *man = shard_op_attr(op, "manual_axes");
  const char *const *manual = man && man->kind == SHARD_ATTR_SDY_MANUAL_AXES ? man->u.manual_axes.names : NULL;
  uint32_t nmanual = manual ? man->u.manual_axes.num : 0;
  shard_block *body = op->regions[0].first;
  if (!body) return;
  for (uint32_t i = 0; i < body->num_args; i++) {
    const shard_tensor_sharding *s = ins && ins->kind == SHARD_ATTR_SDY_PER_VALUE && i < ins->u.per_value->num
                                         ? &ins->u.per_value->shardings[i]
                                         : NULL;
    body->args[i].type = S_local_type(c, body->args[i].type, s, manual, nmanual);
  }
  for (uint32_t i = 0; i < op->num_results; i++)
    op->results[i].type = S_local_type(c, op->results[i].type, S_value_sharding(c, &op->results[i]), NULL, 0);
  S_convert_block(c, body);
  SHARD_VEC_PUSH(c->manual, op);
}

/* inline: arguments become the operands, the sdy.return's values the results */
static void S_inline_manual(shard_op *op) {
  shard_block *body = op->regions[0].first;
  for (uint32_t i = 0; i < body->num_args && i < op->num_operands; i++)
    shard_value_replace_all_uses(&body->args[i], op->operands[i].value);
  shard_op *ret = shard_block_terminator(body);
  for (shard_op *x = body->first; x && x != ret;) {
    shard_op *next = x->next;
    S_move_before(x, op);
    x = next;
  }
  for (uint32_t i = 0; ret && i < op->num_results && i < ret->num_operands; i++)
    shard_value_replace_all_uses(&op->results[i], ret->operands[i].value);
  shard_op_erase(op);
}

/* The barrier's result keeps the global type it was given; its users take
 * the operand, whose sharding the explicit reshards already read through
 * the barrier. */
static void S_propagation_barrier(shard_op *op) {
  if (op->num_operands != 1 || op->num_results != 1) return;
  shard_value_replace_all_uses(&op->results[0], op->operands[0].value);
  shard_op_erase(op);
}

/* The collectives whose axes are listed per dimension (an axis-lists
 * attribute): each is converted knowing its mesh, its sharding and the
 * lists, and left alone when it lacks one of them. */
typedef void (*axis_lists_fn)(g2l *c, shard_op *op, const shard_mesh *mesh, shard_tensor_sharding *s,
                              const shard_attr *axes);
static bool S_axis_lists_collective(g2l *c, shard_op *op) {
  static const struct {
    const char *op, *axes;
    axis_lists_fn fn;
  } K[] = {
      {"sdy.all_gather", "gathering_axes", S_all_gather},
      {"sdy.all_slice", "slicing_axes", S_all_slice},
      {"sdy.reduce_scatter", "reduce_scatter_axes", S_reduce_scatter},
  };
  for (size_t i = 0; i < sizeof K / sizeof K[0]; i++) {
    if (strcmp(op->name, K[i].op) != 0) continue;
    shard_tensor_sharding *s;
    const shard_mesh *mesh;
    const shard_attr *axes = S_op_axis_lists(c, op, K[i].axes, &mesh, &s);
    if (axes) K[i].fn(c, op, mesh, s, axes);
    return true;
  }
  return false;
}

static void S_convert_op(g2l *c, shard_op *op) {
  const char *n = op->name;
  if (!strcmp(n, "sdy.propagation_barrier")) return S_propagation_barrier(op);
  if (S_axis_lists_collective(c, op)) return;
  if (!strcmp(n, "sdy.all_reduce")) return S_all_reduce(c, op);
  if (!strcmp(n, "sdy.all_to_all")) return S_all_to_all(c, op);
  if (!strcmp(n, "sdy.collective_permute")) return S_collective_permute(c, op);
  if (!strcmp(n, "sdy.constant")) return S_constant(c, op);
  if (!strcmp(n, "sdy.replicated_to_unreduced")) return S_replicated_to_unreduced(c, op);
  if (!strcmp(n, "sdy.manual_computation")) return S_manual_computation(c, op);
  if (!strcmp(n, "sdy.named_computation")) return S_named_computation(c, op);
  if (!strcmp(n, "stablehlo.iota")) return S_iota(c, op);
  if (!strcmp(n, "stablehlo.pad")) return S_pad(c, op);
  if (!strcmp(n, "stablehlo.slice")) return S_slice(c, op);
  if (!strcmp(n, "stablehlo.dynamic_slice")) return S_dynamic_slice(c, op);
  if (!strcmp(n, "stablehlo.dynamic_update_slice")) return S_dynamic_update_slice(c, op);
  if (!strcmp(n, "stablehlo.convolution")) return S_convolution(c, op);
  if (!strcmp(n, "stablehlo.gather")) return S_gather(c, op);
  if (!strcmp(n, "stablehlo.scatter")) return S_scatter(c, op);
  if (!strcmp(n, "stablehlo.concatenate") && !S_concatenate(c, op)) return;
  if (!strncmp(n, "stablehlo.", 10) || !strncmp(n, "chlo.", 5) || !strcmp(n, "func.call")) {
    S_localize_results(c, op);
    /* a while loop's block arguments are its results on every iteration:
     * they take the same local types (the verifier checks they match) */
    if (!strcmp(n, "stablehlo.while"))
      for (uint32_t r = 0; r < op->num_regions; r++)
        for (shard_block *b = op->regions[r].first; b; b = b->next)
          for (uint32_t i = 0; i < b->num_args && i < op->num_results; i++) b->args[i].type = op->results[i].type;
    for (uint32_t r = 0; r < op->num_regions; r++)
      for (shard_block *b = op->regions[r].first; b; b = b->next) S_convert_block(c, b);
  }
}

static void S_convert_block(g2l *c, shard_block *b) {
  for (shard_op *op = b->first; op && !c->failed;) {
    shard_op *next = op->next;
    S_convert_op(c, op);
    op = next;
  }
}

static void S_convert_func(g2l *c, shard_op *fn) {
  shard_block *body = fn->num_regions ? fn->regions[0].first : NULL; /* none: a declaration */
  const shard_attr *ft = shard_op_attr(fn, "function_type");
  if (!ft || ft->kind != SHARD_ATTR_TYPE || ft->u.type->kind != SHARD_TYPE_FUNCTION) return;
  shard_type *type = ft->u.type;
  shard_type **in = SHARD_NEW_ARRAY(c->a, shard_type *, type->num_inputs + 1);
  shard_type **out = SHARD_NEW_ARRAY(c->a, shard_type *, type->num_results + 1);
  for (uint32_t i = 0; i < type->num_inputs; i++) {
    in[i] = S_local_type(c, type->inputs[i], shard_func_arg_sharding(fn, i), NULL, 0);
    if (body && i < body->num_args) body->args[i].type = in[i];
  }
  for (uint32_t i = 0; i < type->num_results; i++)
    out[i] = S_local_type(c, type->results[i], shard_func_result_sharding(fn, i), NULL, 0);
  shard_attr *nt = shard_attr_new(c->a, SHARD_ATTR_TYPE);
  nt->u.type = shard_type_function(c->a, in, type->num_inputs, out, type->num_results);
  shard_op_set_attr(c->a, fn, "function_type", nt, true);
  for (shard_block *b = body; b; b = b->next) S_convert_block(c, b);
  for (uint32_t i = 0; i < c->manual.len; i++) S_inline_manual(c->manual.items[i]);
  c->manual.len = 0;
}

static bool S_max_channel(shard_op *op, void *ctx) {
  int64_t *max = ctx;
  int64_t v;
  if (shard_attr_channel(shard_op_attr(op, "channel_handle"), &v, NULL) && v > *max) *max = v;
  return true;
}

bool shard_global_to_local_device_limit(const shard_module *m, shard_diag_engine *de) {
  shard_block *top = m->top && m->top->num_regions ? m->top->regions[0].first : NULL;
  for (shard_op *op = top ? top->first : NULL; op; op = op->next) {
    const shard_attr *a = strcmp(op->name, "sdy.mesh") == 0 ? shard_op_attr(op, "mesh") : NULL;
    if (!a || a->kind != SHARD_ATTR_SDY_MESH) continue;
    int64_t n = shard_mesh_num_devices(a->u.mesh);
    if (n < 0 || n > SHARD_MAX_MESH_DEVICES) {
      const shard_attr *name = shard_op_attr(op, "sym_name");
      shard_error(de, op->span,
                  "mesh @%s has %s%" PRId64 " devices; -sdy-convert-global-to-local lists every device "
                  "in its collectives and supports at most %" PRId64,
                  name && name->kind == SHARD_ATTR_STRING ? name->u.str.data : "?", n < 0 ? "more than " : "",
                  n < 0 ? (int64_t)INT64_MAX : n, SHARD_MAX_MESH_DEVICES);
      return false;
    }
  }
  return true;
}

static bool S_check_device_limit(g2l *c) {
  if (!shard_global_to_local_device_limit(c->m, c->de)) return false;
  int64_t total;
  if (c->replicas < 1 || c->partitions < 1 || __builtin_mul_overflow(c->replicas, c->partitions, &total) ||
      total > SHARD_MAX_MESH_DEVICES) {
    shard_error(c->de, c->m->top->span,
                "replica-count %" PRId64 " and partition-count %" PRId64 " must be positive and "
                "their product at most %" PRId64,
                (int64_t)c->replicas, (int64_t)c->partitions, SHARD_MAX_MESH_DEVICES);
    return false;
  }
  return true;
}

bool shard_pass_convert_global_to_local(shard_module *m, const char *options, const shard_pass_context *cx) {
  shard_diag_engine *de = cx->de;
  g2l c = {.m = m, .a = m->arena, .de = de, .replicas = 1, .partitions = 1};
  if (options) {
    shard_pass_option_bool(options, "per-dim-all-gather", &c.per_dim);
    shard_pass_option_bool(options, "combine-multi-dimension-reduce-scatter", &c.combine_rs);
    shard_pass_option_bool(options, "enable-rgv3", &c.rgv3);
    shard_pass_option_int(options, "replica-count", &c.replicas);
    shard_pass_option_int(options, "partition-count", &c.partitions);
  }
  if (!S_check_device_limit(&c)) return false;
  size_t nvalues = 0;
  shard_walk(m->top, S_count_values, &nvalues);
  shard_ptrmap_reserve(&c.global_index, (uint32_t)nvalues);
  shard_walk(m->top, S_record_op, &c);
  int64_t max = 0;
  shard_walk(m->top, S_max_channel, &max);
  c.next_channel = max + 1;
  shard_block *top = m->top->regions[0].first;
  for (shard_op *op = top ? top->first : NULL; op && !c.failed; op = op->next)
    if (!strcmp(op->name, "func.func")) S_convert_func(&c, op);
  shard_ptrmap_release(&c.global_index);
  SHARD_VEC_FREE(c.globals);
  SHARD_VEC_FREE(c.manual);
  return !c.failed;
}
