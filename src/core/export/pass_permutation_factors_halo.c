/* Halo exchange for -sdy-resolve-permutation-factors (Shardy's
 * resolve_permutation_factors.cc with enable-halo-exchange=true).
 *
 * Instead of replicating a sharded permutation dim, each device fetches
 * from its neighbours along that dim just the elements it needs, inside an
 * sdy.manual_computation over the axes sharding the dim:
 *
 *  - reverse: a non-divisible reversed dim is padded at its high end, the
 *    data is shifted right (collective permutes by whole shards plus a
 *    fraction) so the padding moves to the low end, the reverse then runs
 *    on a mesh whose device order is reversed along those axes (a new
 *    sdy.mesh @<mesh>_reversed), a reshard brings the result back to the
 *    original mesh and a slice trims the padding. Divisible dims need only
 *    the reversed mesh.
 *  - pad and slice: see the comment above `struct dim_exchange`.
 *  - reshape: see the comment above S_group_out_start; the same buffer,
 *    cut at offsets looked up per device.
 *
 * Local shapes, device pairs and offsets follow Shardy's arithmetic so the
 * emitted IR is the one Shardy prints. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export/pass_permutation_factors.h"
#include "pass/pass_shardings.h"
#include "propagate/propagate.h"

/* Per-dim and per-mesh-axis arrays are sized by the rank or the mesh at
 * hand, in the module arena: no rank limit. */
#define HALO_ARRAY(c, T, n) SHARD_NEW_ARRAY((c)->m->arena, T, (size_t)(n) + 1)

/* Where new ops go: before `before`, or at the end of `block`. */
typedef struct cursor {
  shard_block *block;
  shard_op *before;
} cursor;

static bool S_is(const shard_op *op, const char *name) { return strcmp(op->name, name) == 0; }

static int64_t S_ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }
static int64_t S_floor_div(int64_t a, int64_t b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }
static int64_t S_mod(int64_t a, int64_t b) { return a - S_floor_div(a, b) * b; }

/* ---- op builders ------------------------------------------------------------- */

static shard_op *S_emit(perm_ctx *c, const cursor *at, const char *name, uint32_t nin, shard_value **in,
                        shard_type *type, const shard_op *near) {
  shard_op *op = shard_op_new_named(c->m->arena, name, nin, in, type ? 1 : 0, &type, 0);
  if (near) op->span = near->span;
  if (at->before) shard_op_insert_before(at->before, op);
  else shard_block_append(at->block, op);
  return op;
}

static void S_set_sharding(perm_ctx *c, shard_value *v, shard_tensor_sharding *s) {
  if (s) shard_propagation_set_value_sharding(c->m->arena, v, s);
}

static shard_type *S_tensor(perm_ctx *c, uint32_t rank, const int64_t *dims, const char *elem) {
  return shard_type_tensor(c->m->arena, rank, dims, elem, NULL);
}

static void S_ints(perm_ctx *c, shard_op *op, const char *name, const int64_t *v, uint32_t n) {
  shard_op_set_attr(c->m->arena, op, name, shard_attr_dense_i64(c->m->arena, v, n), true);
}

static const char *S_zero_text(const char *elem) {
  if (strcmp(elem, "i1") == 0) return "false";
  if (strncmp(elem, "complex<", 8) == 0) return "(0.000000e+00,0.000000e+00)";
  if (elem[0] == 'f' || elem[0] == 'b' || strncmp(elem, "tf32", 4) == 0) return "0.000000e+00";
  return "0";
}

static shard_value *S_constant(perm_ctx *c, const cursor *at, shard_type *type, const char *payload,
                               const shard_op *near) {
  shard_op *op = S_emit(c, at, "stablehlo.constant", 0, NULL, type, near);
  shard_attr *v = shard_attr_new(c->m->arena, SHARD_ATTR_DENSE);
  v->u.dense.payload = shard_arena_strdup(c->m->arena, payload);
  v->u.dense.type = type;
  shard_op_set_attr(c->m->arena, op, "value", v, true);
  return &op->results[0];
}

static shard_value *S_zero_scalar(perm_ctx *c, const cursor *at, const char *elem, const shard_op *near) {
  return S_constant(c, at, S_tensor(c, 0, NULL, elem), S_zero_text(elem), near);
}

static shard_value *S_pad(perm_ctx *c, const cursor *at, shard_value *in, shard_value *pad_value, const int64_t *low,
                          const int64_t *high, const int64_t *interior, shard_tensor_sharding *s,
                          const shard_op *near) {
  const shard_type *t = in->type;
  int64_t *dims = HALO_ARRAY(c, int64_t, t->rank);
  for (uint32_t d = 0; d < t->rank; d++) {
    int64_t dilated = t->dims[d] > 0 ? (t->dims[d] - 1) * (interior[d] + 1) + 1 : 0;
    dims[d] = dilated + low[d] + high[d];
  }
  shard_value *ops[2] = {in, pad_value};
  shard_op *op = S_emit(c, at, "stablehlo.pad", 2, ops, S_tensor(c, t->rank, dims, t->elem), near);
  S_ints(c, op, "edge_padding_low", low, t->rank);
  S_ints(c, op, "edge_padding_high", high, t->rank);
  S_ints(c, op, "interior_padding", interior, t->rank);
  S_set_sharding(c, &op->results[0], s);
  return &op->results[0];
}

static shard_value *S_slice(perm_ctx *c, const cursor *at, shard_value *in, const int64_t *start, const int64_t *limit,
                            shard_tensor_sharding *s, const shard_op *near) {
  const shard_type *t = in->type;
  int64_t *dims = HALO_ARRAY(c, int64_t, t->rank), *ones = HALO_ARRAY(c, int64_t, t->rank);
  for (uint32_t d = 0; d < t->rank; d++) dims[d] = limit[d] - start[d], ones[d] = 1;
  shard_op *op = S_emit(c, at, "stablehlo.slice", 1, &in, S_tensor(c, t->rank, dims, t->elem), near);
  S_ints(c, op, "start_indices", start, t->rank);
  S_ints(c, op, "limit_indices", limit, t->rank);
  S_ints(c, op, "strides", ones, t->rank);
  S_set_sharding(c, &op->results[0], s);
  return &op->results[0];
}

static shard_value *S_concat(perm_ctx *c, const cursor *at, shard_value **in, uint32_t n, uint32_t dim,
                             shard_tensor_sharding *s, const shard_op *near) {
  const shard_type *t = in[0]->type;
  int64_t *dims = HALO_ARRAY(c, int64_t, t->rank);
  memcpy(dims, t->dims, sizeof(int64_t) * t->rank);
  dims[dim] = 0;
  for (uint32_t i = 0; i < n; i++) dims[dim] += in[i]->type->dims[dim];
  shard_op *op = S_emit(c, at, "stablehlo.concatenate", n, in, S_tensor(c, t->rank, dims, t->elem), near);
  shard_op_set_attr(c->m->arena, op, "dimension",
                    shard_attr_int(c->m->arena, dim, shard_type_other(c->m->arena, "i64")), true);
  S_set_sharding(c, &op->results[0], s);
  return &op->results[0];
}

/* "stablehlo.collective_permute" with the next channel handle; `pairs`
 * holds npairs (source, target) device ids. */
static shard_value *S_collective_permute(perm_ctx *c, const cursor *at, shard_value *in, const int64_t *pairs,
                                         uint32_t npairs, shard_tensor_sharding *s, const shard_op *near) {
  shard_arena *a = c->m->arena;
  shard_op *op = S_emit(c, at, "stablehlo.collective_permute", 1, &in, in->type, near);
  shard_op_set_attr(a, op, "channel_handle", shard_attr_channel_handle(a, c->next_channel++, 1), true);
  shard_buf b;
  shard_buf_init(&b);
  shard_buf_putc(&b, '[');
  for (uint32_t i = 0; i < npairs; i++)
    shard_buf_printf(&b, "%s[%lld, %lld]", i ? ", " : "", (long long)pairs[2 * i], (long long)pairs[2 * i + 1]);
  shard_buf_putc(&b, ']');
  shard_attr *pv = shard_attr_new(a, SHARD_ATTR_DENSE);
  pv->u.dense.payload = shard_arena_strdup(a, shard_buf_str(&b));
  shard_buf_free(&b);
  int64_t pd[2] = {npairs, 2};
  pv->u.dense.type = S_tensor(c, 2, pd, "i64");
  shard_attr_dense_set_ints(a, pv);
  shard_op_set_attr(a, op, "source_target_pairs", pv, true);
  S_set_sharding(c, &op->results[0], s);
  return &op->results[0];
}

/* ---- mesh arithmetic -------------------------------------------------------- */

/* Names of axes of one mesh: at most its number of axes. */
typedef struct name_set {
  const char **names;
  uint32_t n, cap;
} name_set;

static name_set S_set_new(perm_ctx *c, const shard_mesh *mesh) {
  return (name_set){HALO_ARRAY(c, const char *, mesh->num_axes), 0, mesh->num_axes};
}

static bool S_set_has(const name_set *s, const char *name) {
  for (uint32_t i = 0; i < s->n; i++)
    if (strcmp(s->names[i], name) == 0) return true;
  return false;
}

static void S_set_add(name_set *s, const char *name) {
  if (!S_set_has(s, name) && s->n < s->cap) s->names[s->n++] = name; /* a mesh's axes have distinct names */
}

/* Mesh coordinates of logical index i (major axis first) and back. */
static void S_coords(const shard_mesh *m, int64_t i, int64_t *coords) {
  for (uint32_t j = m->num_axes; j-- > 0;) {
    coords[j] = i % m->axes[j].size;
    i /= m->axes[j].size;
  }
}

static int64_t S_linear(const shard_mesh *m, const int64_t *coords) {
  int64_t idx = 0, mult = 1;
  for (uint32_t j = m->num_axes; j-- > 0;) {
    idx += coords[j] * mult;
    mult *= m->axes[j].size;
  }
  return idx;
}

static int64_t S_device(const shard_mesh *m, int64_t logical) {
  return m->device_ids && m->num_device_ids ? m->device_ids[logical] : logical;
}

/* (source, target) device pairs that move each shard `offset` shards along
 * the dim sharded by `axes` (getDataShiftSourceTargetPairs); devices whose
 * target falls off the dim are left out. Returns the number of pairs. */
static uint32_t S_shift_pairs(const shard_mesh *m, const shard_axis_ref *axes, uint32_t naxes, int64_t offset,
                              int64_t *pairs) {
  int64_t total = shard_mesh_num_devices(m);
  uint32_t n = 0;
  int64_t *coords = shard_xcalloc(2 * (size_t)m->num_axes + 1, sizeof(int64_t)), *next = coords + m->num_axes;
  for (int64_t i = 0; i < total; i++) {
    S_coords(m, i, coords);
    memcpy(next, coords, sizeof(int64_t) * m->num_axes);
    int64_t carry = offset;
    for (uint32_t k = naxes; k-- > 0 && carry != 0;) {
      int idx = shard_mesh_axis_index(m, axes[k].name);
      int64_t full = m->axes[idx].size, size = shard_axis_size(&axes[k], m), pre = shard_axis_pre(&axes[k]);
      int64_t post = full / (pre * size);
      int64_t sub = (coords[idx] / post) % size;
      int64_t moved = sub + carry;
      carry = S_floor_div(moved, size);
      next[idx] += (S_mod(moved, size) - sub) * post;
    }
    if (carry != 0) continue;
    pairs[2 * n] = S_device(m, i);
    pairs[2 * n + 1] = S_device(m, S_linear(m, next));
    n++;
  }
  free(coords);
  return n;
}

/* The mesh with the device order along `axes` reversed (getMeshWithReversedAxes). */
static shard_mesh *S_reversed_mesh(perm_ctx *c, const shard_mesh *m, const shard_axis_ref *axes, uint32_t naxes) {
  shard_arena *a = c->m->arena;
  int64_t total = shard_mesh_num_devices(m);
  shard_mesh *r = SHARD_NEW(a, shard_mesh);
  *r = *m;
  r->device_ids = SHARD_NEW_ARRAY(a, int64_t, total);
  r->num_device_ids = (uint32_t)total;
  int64_t *coords = HALO_ARRAY(c, int64_t, m->num_axes), *flipped = HALO_ARRAY(c, int64_t, m->num_axes);
  for (int64_t i = 0; i < total; i++) {
    S_coords(m, i, coords);
    memcpy(flipped, coords, sizeof(int64_t) * m->num_axes);
    for (uint32_t k = 0; k < naxes; k++) {
      int idx = shard_mesh_axis_index(m, axes[k].name);
      int64_t full = m->axes[idx].size, size = shard_axis_size(&axes[k], m), pre = shard_axis_pre(&axes[k]);
      int64_t post = full / (pre * size);
      int64_t sub = (coords[idx] / post) % size;
      flipped[idx] += (size - 1 - 2 * sub) * post;
    }
    r->device_ids[i] = S_device(m, S_linear(m, flipped));
  }
  shard_mesh_canonicalize(r);
  return r;
}

/* The sdy.mesh holding `mesh`, created at the top of the module as
 * `base` (or base_0, base_1, ... like MLIR's symbol table uniquing) when
 * no mesh op holds an equal mesh yet. Returns its name. */
static const char *S_mesh_symbol(perm_ctx *c, shard_mesh *mesh, const char *base) {
  shard_arena *a = c->m->arena;
  shard_block *top = c->m->top->num_regions ? c->m->top->regions[0].first : NULL;
  if (!top) return NULL;
  for (shard_op *op = top->first; op; op = op->next) {
    if (!S_is(op, "sdy.mesh")) continue;
    shard_attr *ma = shard_op_attr(op, "mesh"), *name = shard_op_attr(op, "sym_name");
    if (ma && ma->kind == SHARD_ATTR_SDY_MESH && name && name->kind == SHARD_ATTR_STRING &&
        shard_mesh_equal(ma->u.mesh, mesh))
      return shard_arena_strndup(a, name->u.str.data, name->u.str.len);
  }
  const char *name = base;
  while (shard_module_lookup_symbol(c->m, name))
    name = shard_arena_printf(a, "%s_%lld", base, (long long)c->symbol_counter++);
  shard_op *op = shard_op_new_named(a, "sdy.mesh", 0, NULL, 0, NULL, 0);
  op->span = c->m->top->span;
  shard_op_set_attr(a, op, "sym_name", shard_attr_string(a, name, (uint32_t)strlen(name)), true);
  shard_attr *ma = shard_attr_new(a, SHARD_ATTR_SDY_MESH);
  ma->u.mesh = mesh;
  shard_op_set_attr(a, op, "mesh", ma, true);
  if (top->first) shard_op_insert_before(top->first, op);
  else shard_block_append(top, op);
  return name;
}

/* The sharding without the axes named in `manual` (removeAxesFromSharding). */
static shard_tensor_sharding *S_without_manual(perm_ctx *c, const shard_tensor_sharding *s, const name_set *manual) {
  shard_arena *a = c->m->arena;
  shard_tensor_sharding *r = shard_sharding_clone(a, s);
  r->dims = SHARD_NEW_ARRAY(a, shard_dim_sharding, s->rank ? s->rank : 1);
  for (uint32_t d = 0; d < s->rank; d++) {
    r->dims[d] = s->dims[d];
    r->dims[d].axes = SHARD_NEW_ARRAY(a, shard_axis_ref, s->dims[d].num_axes ? s->dims[d].num_axes : 1);
    uint32_t n = 0;
    for (uint32_t j = 0; j < s->dims[d].num_axes; j++)
      if (!S_set_has(manual, s->dims[d].axes[j].name)) r->dims[d].axes[n++] = s->dims[d].axes[j];
    r->dims[d].num_axes = n;
  }
  return r;
}

/* Product of the sizes of the manual axes sharding dim d. */
static int64_t S_manual_shards(const shard_tensor_sharding *s, uint32_t d, const shard_mesh *mesh,
                               const name_set *manual) {
  int64_t n = 1;
  for (uint32_t j = 0; j < s->dims[d].num_axes; j++)
    if (S_set_has(manual, s->dims[d].axes[j].name)) n *= shard_axis_size(&s->dims[d].axes[j], mesh);
  return n;
}

/* sdy.manual_computation over `manual` (in mesh axis order) taking `in`
 * with `in_s` and giving one result of `result_type` sharded `out_s`, its
 * body block left empty with one argument per operand of `local_types`. */
static shard_op *S_manual_computation(perm_ctx *c, const cursor *at, shard_value **in, uint32_t nin,
                                      shard_tensor_sharding *const *in_s, shard_type *const *local_types,
                                      shard_type *result_type, shard_tensor_sharding *out_s, const shard_mesh *mesh,
                                      const name_set *manual, const shard_op *near) {
  shard_arena *a = c->m->arena;
  shard_op *mc = shard_op_new_named(a, "sdy.manual_computation", nin, in, 1, &result_type, 1);
  if (near) mc->span = near->span;
  shard_tensor_sharding *ins = SHARD_NEW_ARRAY(a, shard_tensor_sharding, nin);
  for (uint32_t i = 0; i < nin; i++) ins[i] = *in_s[i];
  shard_op_set_attr(a, mc, "in_shardings", shard_attr_per_value(a, ins, nin), true);
  shard_op_set_attr(a, mc, "out_shardings", shard_attr_per_value(a, out_s, 1), true);
  shard_attr *man = shard_attr_new(a, SHARD_ATTR_SDY_MANUAL_AXES);
  man->u.manual_axes.names = SHARD_NEW_ARRAY(a, const char *, mesh->num_axes + 1);
  for (uint32_t i = 0; i < mesh->num_axes; i++)
    if (S_set_has(manual, mesh->axes[i].name)) man->u.manual_axes.names[man->u.manual_axes.num++] = mesh->axes[i].name;
  shard_op_set_attr(a, mc, "manual_axes", man, true);
  shard_block *body = shard_region_add_block(a, &mc->regions[0]);
  for (uint32_t i = 0; i < nin; i++) shard_block_add_arg(a, body, local_types[i]);
  if (at->before) shard_op_insert_before(at->before, mc);
  else shard_block_append(at->block, mc);
  return mc;
}

static void S_return(perm_ctx *c, shard_block *body, shard_value *v, const shard_op *near) {
  cursor end = {body, NULL};
  S_emit(c, &end, "sdy.return", 1, &v, NULL, near);
}

/* ---- stablehlo.reverse ----------------------------------------------------------- */

/* Shifts the local shards right by `shift` elements along dim d, the data
 * crossing shard boundaries coming from the devices `shift / size` and
 * `shift / size + 1` shards to the left (rightShiftData). */
static shard_value *S_right_shift(perm_ctx *c, const cursor *at, shard_value *in, uint32_t d, int64_t shift,
                                  const shard_tensor_sharding *s, const shard_mesh *mesh, const name_set *manual,
                                  const shard_op *near) {
  shard_tensor_sharding *local_s = S_without_manual(c, s, manual);
  shard_axis_ref *axes = HALO_ARRAY(c, shard_axis_ref, s->dims[d].num_axes);
  uint32_t naxes = 0;
  for (uint32_t j = 0; j < s->dims[d].num_axes; j++)
    if (S_set_has(manual, s->dims[d].axes[j].name)) axes[naxes++] = s->dims[d].axes[j];
  const shard_type *t = in->type;
  int64_t size = t->dims[d];
  int64_t hops = shift / size, fraction = shift % size;
  int64_t total = shard_mesh_num_devices(mesh);
  int64_t *pairs = shard_xmalloc(sizeof(int64_t) * 2 * (size_t)(total > 0 ? total : 1));
  shard_value *piece[2];
  for (int k = 0; k < 2; k++) {
    int64_t offset = hops + k;
    if (offset == 0) {
      piece[k] = in;
      continue;
    }
    uint32_t n = S_shift_pairs(mesh, axes, naxes, offset, pairs);
    if (n == 0) {
      shard_value *zero = S_zero_scalar(c, at, t->elem, near);
      shard_op *b = S_emit(c, at, "stablehlo.broadcast_in_dim", 1, &zero, in->type, near);
      S_ints(c, b, "broadcast_dimensions", NULL, 0);
      S_set_sharding(c, &b->results[0], local_s);
      piece[k] = &b->results[0];
      continue;
    }
    piece[k] = S_collective_permute(c, at, in, pairs, n, local_s, near);
  }
  free(pairs);
  int64_t *start = HALO_ARRAY(c, int64_t, t->rank), *limit = HALO_ARRAY(c, int64_t, t->rank);
  memcpy(limit, t->dims, sizeof(int64_t) * t->rank);
  start[d] = size - fraction;
  shard_value *tail = S_slice(c, at, piece[1], start, limit, local_s, near);
  start[d] = 0;
  limit[d] = size - fraction;
  shard_value *head = S_slice(c, at, piece[0], start, limit, local_s, near);
  shard_value *parts[2] = {tail, head};
  return S_concat(c, at, parts, 2, d, local_s, near);
}

static bool S_in_dims(const shard_op *op, uint32_t d) {
  const shard_attr *a = shard_op_attr(op, "dimensions");
  if (!a || a->kind != SHARD_ATTR_DENSE_ARRAY) return false;
  for (uint32_t i = 0; i < a->u.dense_array.num; i++)
    if (a->u.dense_array.vals[i] == (int64_t)d) return true;
  return false;
}

bool shard_perm_halo_reverse(perm_ctx *c, shard_op *op) {
  shard_arena *a = c->m->arena;
  if (op->num_operands != 1 || op->num_results != 1) return false;
  shard_value *operand = op->operands[0].value;
  shard_tensor_sharding *in_s = shard_perm_value_sharding(c, operand);
  shard_tensor_sharding *out_s = shard_perm_value_sharding(c, &op->results[0]);
  const shard_type *t = operand->type;
  if (!in_s || shard_sharding_fully_replicated(in_s)) return true;
  if (!t || t->kind != SHARD_TYPE_TENSOR || !shard_type_is_static_tensor(t) || in_s->rank != t->rank ||
      !in_s->mesh_name)
    return false;
  const shard_mesh *mesh = shard_module_sharding_mesh(c->m, in_s);
  if (!mesh || shard_mesh_is_maximal(mesh)) return true;

  uint32_t maxrev = 0;
  for (uint32_t d = 0; d < t->rank; d++) maxrev += in_s->dims[d].num_axes;
  shard_axis_ref *to_reverse = HALO_ARRAY(c, shard_axis_ref, maxrev);
  uint32_t nrev = 0;
  name_set manual = S_set_new(c, mesh);
  int64_t *padded = HALO_ARRAY(c, int64_t, t->rank);
  memcpy(padded, t->dims, sizeof(int64_t) * t->rank);
  for (uint32_t d = 0; d < t->rank; d++) {
    int64_t n = shard_perm_dim_shards(in_s, d, mesh);
    if (!S_in_dims(op, d) || n <= 1) continue;
    for (uint32_t j = 0; j < in_s->dims[d].num_axes; j++) to_reverse[nrev++] = in_s->dims[d].axes[j];
    if (t->dims[d] % n != 0) {
      for (uint32_t j = 0; j < in_s->dims[d].num_axes; j++) S_set_add(&manual, in_s->dims[d].axes[j].name);
      padded[d] = S_ceil_div(t->dims[d], n) * n;
    }
  }
  if (!nrev) return true;

  cursor before = {op->parent, op};
  shard_value *input = operand;
  if (manual.n) {
    int64_t *low = HALO_ARRAY(c, int64_t, t->rank), *high = HALO_ARRAY(c, int64_t, t->rank),
            *interior = HALO_ARRAY(c, int64_t, t->rank);
    for (uint32_t d = 0; d < t->rank; d++) high[d] = padded[d] - t->dims[d];
    shard_value *zero = S_zero_scalar(c, &before, t->elem, op);
    input = S_pad(c, &before, operand, zero, low, high, interior, in_s, op);
    /* haloRightShiftData: the shifts run per dim inside one manual computation. */
    int64_t *local = HALO_ARRAY(c, int64_t, t->rank);
    for (uint32_t d = 0; d < t->rank; d++) local[d] = padded[d] / S_manual_shards(in_s, d, mesh, &manual);
    shard_type *local_t = S_tensor(c, t->rank, local, t->elem);
    shard_op *mc = S_manual_computation(c, &before, &input, 1, &in_s, &local_t, input->type, in_s, mesh, &manual, op);
    shard_block *body = mc->regions[0].first;
    cursor inside = {body, NULL};
    shard_value *local_v = &body->args[0];
    for (uint32_t d = 0; d < t->rank; d++) {
      int64_t pad = padded[d] - t->dims[d];
      if (S_in_dims(op, d) && pad > 0) local_v = S_right_shift(c, &inside, local_v, d, pad, in_s, mesh, &manual, op);
    }
    S_return(c, body, local_v, op);
    input = &mc->results[0];
  }

  shard_mesh *rev = S_reversed_mesh(c, mesh, to_reverse, nrev);
  const char *rev_name = S_mesh_symbol(c, rev, shard_arena_printf(a, "%s_reversed", in_s->mesh_name));
  shard_tensor_sharding *rev_s = shard_sharding_clone(a, in_s);
  rev_s->mesh_name = rev_name;
  rev_s->inline_mesh = NULL;

  shard_operand_set(&op->operands[0], input);
  if (manual.n) op->results[0].type = input->type;
  shard_propagation_set_value_sharding(a, &op->results[0], rev_s);
  if (!out_s) out_s = shard_sharding_open(a, in_s->mesh_name, NULL, t->rank, false);
  cursor after = {op->parent, op->next};
  shard_value *res = &op->results[0];
  shard_op *rs = S_emit(c, &after, "sdy.reshard", 1, &res, res->type, op);
  shard_op_set_attr(a, rs, "sharding", shard_attr_sharding(a, out_s), true);
  shard_value *result = &rs->results[0];
  if (manual.n) {
    cursor after_rs = {op->parent, rs->next};
    int64_t *start = HALO_ARRAY(c, int64_t, t->rank);
    result = S_slice(c, &after_rs, result, start, t->dims, in_s, op);
  }
  shard_perm_replace_uses_except(res, result, rs);
  return true;
}

/* ---- pad and slice ------------------------------------------------------------- */

/* Pad and slice move data only along their sharded dims. Every sharded
 * dim's axes become manual; in the manual computation each device
 *  1. concatenates the shards of its left neighbours (up to leftHops away,
 *     fetched by collective permutes), its own and its right neighbours',
 *  2. pads that buffer by one output shard on both sides (dilated by the
 *     interior padding of a pad),
 *  3. cuts its output shard at an offset computed from its device id:
 *     max(id_in_dim * (sOut - sIn * dilation) + base, 0),
 * one sharded dim after the other; unsharded dims are padded or sliced
 * locally afterwards. The input is first padded at its high end to a
 * multiple of the shard count and the result sliced back after. */

typedef struct dim_exchange {
  int64_t s_out, s_footprint, left_hops, right_hops;
  bool needs_comm, can_use_halo;
  /* Reshape only (ReshapeDimExchangeInfo): the output dims' axes, which
   * number the devices of the group, and per target shard the offset of
   * its data in the halo buffer; NULL for pad and slice. */
  const shard_dim_sharding *target;
  const int64_t *offsets;
  int64_t num_offsets;
} dim_exchange;

typedef struct exchange_info { /* the arrays have one entry per tensor dim */
  int64_t *divisible;
  name_set manual;
  dim_exchange *dims; /* used for sharded dims only */
  bool *sharded;
} exchange_info;

/* getDimExchangeInfo: which source shards each target shard t reads. */
static dim_exchange S_dim_exchange(int64_t shards, int64_t s_in, int64_t s_out, int64_t pad_low, int64_t dilation,
                                   int64_t input_size) {
  dim_exchange e = {.s_out = s_out, .s_footprint = s_out, .can_use_halo = true};
  for (int64_t t = 0; t < shards; t++) {
    int64_t start = (t * s_out - pad_low) / dilation;
    int64_t limit = start + s_out - 1;
    int64_t lo = start > 0 ? start : 0, hi = limit < input_size - 1 ? limit : input_size - 1;
    int64_t first = -1, last = -1;
    if (lo <= hi) first = lo / s_in, last = hi / s_in;
    if (first != t || last != t) e.needs_comm = true;
    if (first != -1 && first < t && t - first > e.left_hops) e.left_hops = t - first;
    if (last != -1 && last > t && last - t > e.right_hops) e.right_hops = last - t;
  }
  if (e.left_hops + e.right_hops + 1 >= shards && (e.left_hops > 1 || e.right_hops > 1)) e.can_use_halo = false;
  return e;
}

/* Fills info for an op reading `t` sharded by s; returns false when no dim
 * needs communication or halo exchange can't serve it (then *usable says which). */
static void S_exchange_info(perm_ctx *c, const shard_op *op, bool is_pad, const shard_type *t, const shard_type *out,
                            const shard_tensor_sharding *s, const shard_mesh *mesh, exchange_info *info) {
  *info = (exchange_info){HALO_ARRAY(c, int64_t, t->rank), S_set_new(c, mesh), HALO_ARRAY(c, dim_exchange, t->rank),
                          HALO_ARRAY(c, bool, t->rank)};
  memcpy(info->divisible, t->dims, sizeof(int64_t) * t->rank);
  for (uint32_t d = 0; d < t->rank; d++) {
    int64_t n = shard_perm_dim_shards(s, d, mesh);
    if (n <= 1) continue;
    info->sharded[d] = true;
    for (uint32_t j = 0; j < s->dims[d].num_axes; j++) S_set_add(&info->manual, s->dims[d].axes[j].name);
    info->divisible[d] = S_ceil_div(t->dims[d], n) * n;
    int64_t s_in = info->divisible[d] / n, s_out = S_ceil_div(out->dims[d], n);
    int64_t low =
        is_pad ? shard_perm_attr_int(op, "edge_padding_low", d, 0) : -shard_perm_attr_int(op, "start_indices", d, 0);
    int64_t dilation = is_pad ? shard_perm_attr_int(op, "interior_padding", d, 0) + 1 : 1;
    info->dims[d] = S_dim_exchange(n, s_in, s_out, low, dilation, t->dims[d]);
  }
}

static shard_value *S_binary(perm_ctx *c, const cursor *at, const char *name, shard_value *x, shard_value *y,
                             const shard_op *near) {
  shard_value *ops[2] = {x, y};
  return &S_emit(c, at, name, 2, ops, x->type, near)->results[0];
}

static shard_value *S_i64(perm_ctx *c, const cursor *at, int64_t v, const shard_op *near) {
  char text[32];
  snprintf(text, sizeof text, "%lld", (long long)v);
  return S_constant(c, at, S_tensor(c, 0, NULL, "i64"), text, near);
}

/* The device's index along the dim sharded by `axes` (convertPartitionIdToIdInGroup). */
static shard_value *S_id_in_dim(perm_ctx *c, const cursor *at, const shard_mesh *mesh, const shard_dim_sharding *dim,
                                const shard_op *near) {
  shard_arena *a = c->m->arena;
  const char *id_name = c->replicas > 1 ? "stablehlo.replica_id" : "stablehlo.partition_id";
  shard_value *id = &S_emit(c, at, id_name, 0, NULL, S_tensor(c, 0, NULL, "ui32"), near)->results[0];
  id = &S_emit(c, at, "stablehlo.convert", 1, &id, S_tensor(c, 0, NULL, "i64"), near)->results[0];
  int64_t total = shard_mesh_num_devices(mesh);
  if (mesh->device_ids && mesh->num_device_ids) {
    int64_t *coords = HALO_ARRAY(c, int64_t, mesh->num_axes);
    shard_buf b;
    shard_buf_init(&b);
    shard_buf_putc(&b, '[');
    for (int64_t dev = 0; dev < total; dev++) {
      int64_t logical = 0;
      while (logical < total && mesh->device_ids[logical] != dev) logical++;
      int64_t idx = 0;
      S_coords(mesh, logical, coords);
      for (uint32_t j = 0; j < dim->num_axes; j++) {
        const shard_axis_ref *r = &dim->axes[j];
        int ai = shard_mesh_axis_index(mesh, r->name);
        int64_t size = shard_axis_size(r, mesh), post = mesh->axes[ai].size / (shard_axis_pre(r) * size);
        idx = idx * size + (coords[ai] / post) % size;
      }
      shard_buf_printf(&b, "%s%lld", dev ? ", " : "", (long long)idx);
    }
    shard_buf_putc(&b, ']');
    int64_t n = total, one = 1;
    shard_value *table = S_constant(c, at, S_tensor(c, 1, &n, "i64"), shard_buf_str(&b), near);
    shard_buf_free(&b);
    shard_value *ops[2] = {table, id};
    shard_op *ds = S_emit(c, at, "stablehlo.dynamic_slice", 2, ops, S_tensor(c, 1, &one, "i64"), near);
    S_ints(c, ds, "slice_sizes", &one, 1);
    shard_value *v = &ds->results[0];
    (void)a;
    return &S_emit(c, at, "stablehlo.reshape", 1, &v, S_tensor(c, 0, NULL, "i64"), near)->results[0];
  }
  shard_value *in_group = NULL;
  for (uint32_t j = 0; j < dim->num_axes; j++) {
    const shard_axis_ref *r = &dim->axes[j];
    int ai = shard_mesh_axis_index(mesh, r->name);
    int64_t size = shard_axis_size(r, mesh), suffix = 1;
    for (uint32_t k = (uint32_t)ai + 1; k < mesh->num_axes; k++) suffix *= mesh->axes[k].size;
    int64_t divisor = suffix * (mesh->axes[ai].size / (shard_axis_pre(r) * size));
    shard_value *coord = id;
    if (divisor > 1) coord = S_binary(c, at, "stablehlo.divide", coord, S_i64(c, at, divisor, near), near);
    if (size < total) coord = S_binary(c, at, "stablehlo.remainder", coord, S_i64(c, at, size, near), near);
    if (!in_group) in_group = coord;
    else {
      in_group = S_binary(c, at, "stablehlo.multiply", in_group, S_i64(c, at, size, near), near);
      in_group = S_binary(c, at, "stablehlo.add", in_group, coord, near);
    }
  }
  return in_group ? in_group : S_i64(c, at, 0, near);
}

/* exchangeDimWithDynamicOffset for pad and slice (dilated halo buffer). */
static shard_value *S_exchange_dim(perm_ctx *c, const cursor *at, shard_value *in, shard_value *pad_value, uint32_t d,
                                   const dim_exchange *e, const shard_tensor_sharding *s,
                                   shard_tensor_sharding *local_s, const shard_mesh *mesh, const name_set *manual,
                                   int64_t pad_low, int64_t dilation, const shard_op *near) {
  const shard_type *t = in->type;
  const shard_dim_sharding *active = e->target ? e->target : &s->dims[d];
  shard_axis_ref *axes = HALO_ARRAY(c, shard_axis_ref, active->num_axes);
  uint32_t naxes = 0;
  for (uint32_t j = 0; j < active->num_axes; j++)
    if (S_set_has(manual, active->axes[j].name)) axes[naxes++] = active->axes[j];
  int64_t total = shard_mesh_num_devices(mesh);
  int64_t *pairs = shard_xmalloc(sizeof(int64_t) * 2 * (size_t)(total > 0 ? total : 1));
  uint32_t nseg = 0;
  shard_value **segs = shard_xmalloc(sizeof *segs * (size_t)(e->left_hops + e->right_hops + 1));
  /* Shardy leaves the permutes unsharded. When axes outside the manual
   * computation still shard other dims, that would read as replicated
   * along them and convert-global-to-local would give the permute a
   * larger local type than its operand; so they carry the local sharding
   * then (and only then, so the common case prints as Shardy's). */
  bool free_axes = false;
  for (uint32_t k = 0; k < local_s->rank; k++) free_axes |= local_s->dims[k].num_axes != 0;
  shard_tensor_sharding *cp_s = free_axes ? local_s : NULL;
  for (int64_t off = e->left_hops; off >= 1; off--) {
    uint32_t n = S_shift_pairs(mesh, axes, naxes, off, pairs);
    segs[nseg++] = n ? S_collective_permute(c, at, in, pairs, n, cp_s, near) : in;
  }
  segs[nseg++] = in;
  for (int64_t off = -1; off >= -e->right_hops; off--) {
    uint32_t n = S_shift_pairs(mesh, axes, naxes, off, pairs);
    segs[nseg++] = n ? S_collective_permute(c, at, in, pairs, n, cp_s, near) : in;
  }
  free(pairs);
  shard_value *concat = S_concat(c, at, segs, nseg, d, local_s, near);
  free(segs);
  int64_t edge = e->s_footprint * dilation;
  int64_t *low = HALO_ARRAY(c, int64_t, t->rank), *high = HALO_ARRAY(c, int64_t, t->rank),
          *interior = HALO_ARRAY(c, int64_t, t->rank);
  low[d] = high[d] = edge;
  interior[d] = dilation - 1;
  shard_value *buffer = S_pad(c, at, concat, pad_value, low, high, interior, local_s, near);

  int64_t s_in_dilated = t->dims[d] * dilation;
  int64_t s_out = e->s_out == 0 ? e->s_footprint : e->s_out;
  int64_t diff = s_out - s_in_dilated;
  int64_t base = -pad_low + e->left_hops * s_in_dilated + e->s_footprint * dilation;
  shard_value *id = S_id_in_dim(c, at, mesh, active, near);
  shard_value *offset, *zero;
  if (e->offsets) {
    /* a reshape's shards start at irregular places: look the offset up */
    shard_buf b;
    shard_buf_init(&b);
    shard_buf_putc(&b, '[');
    for (int64_t k = 0; k < e->num_offsets; k++)
      shard_buf_printf(&b, "%s%lld", k ? ", " : "", (long long)e->offsets[k]);
    shard_buf_putc(&b, ']');
    int64_t n = e->num_offsets, one = 1;
    shard_value *table = S_constant(c, at, S_tensor(c, 1, &n, "i64"), shard_buf_str(&b), near);
    shard_buf_free(&b);
    shard_value *ops2[2] = {table, id};
    shard_op *ds = S_emit(c, at, "stablehlo.dynamic_slice", 2, ops2, S_tensor(c, 1, &one, "i64"), near);
    S_ints(c, ds, "slice_sizes", &one, 1);
    shard_value *v = &ds->results[0];
    offset = &S_emit(c, at, "stablehlo.reshape", 1, &v, S_tensor(c, 0, NULL, "i64"), near)->results[0];
    zero = S_i64(c, at, 0, near);
  } else {
    shard_value *diff_v = S_i64(c, at, diff, near), *base_v = S_i64(c, at, base, near);
    offset = S_binary(c, at, "stablehlo.multiply", id, diff_v, near);
    offset = S_binary(c, at, "stablehlo.add", offset, base_v, near);
    zero = S_i64(c, at, 0, near);
    offset = S_binary(c, at, "stablehlo.maximum", offset, zero, near);
  }

  uint32_t rank = t->rank;
  shard_value **ops = shard_xmalloc(sizeof *ops * (rank + 1));
  ops[0] = buffer;
  for (uint32_t k = 0; k < rank; k++) ops[k + 1] = k == d ? offset : zero;
  int64_t *sizes = HALO_ARRAY(c, int64_t, rank);
  memcpy(sizes, buffer->type->dims, sizeof(int64_t) * rank);
  sizes[d] = e->s_footprint;
  shard_op *ds = S_emit(c, at, "stablehlo.dynamic_slice", rank + 1, ops, S_tensor(c, rank, sizes, t->elem), near);
  free(ops);
  S_ints(c, ds, "slice_sizes", sizes, rank);
  S_set_sharding(c, &ds->results[0], local_s);
  return &ds->results[0];
}

static bool S_halo_pad_or_slice(perm_ctx *c, shard_op *op, bool is_pad) {
  shard_arena *a = c->m->arena;
  if (op->num_results != 1 || op->num_operands != (is_pad ? 2u : 1u)) return false;
  shard_value *operand = op->operands[0].value;
  shard_tensor_sharding *in_s = shard_perm_value_sharding(c, operand);
  const shard_type *t = operand->type, *out = op->results[0].type;
  if (!in_s || shard_sharding_fully_replicated(in_s)) return true;
  if (!t || t->kind != SHARD_TYPE_TENSOR || !shard_type_is_static_tensor(t) || !shard_type_is_static_tensor(out) ||
      in_s->rank != t->rank || !in_s->mesh_name)
    return false;
  const shard_mesh *mesh = shard_module_sharding_mesh(c->m, in_s);
  if (!mesh || shard_mesh_is_maximal(mesh)) return true;
  if (!is_pad)
    for (uint32_t d = 0; d < t->rank; d++)
      if (shard_perm_attr_int(op, "strides", d, 1) != 1) return false;
  exchange_info info;
  S_exchange_info(c, op, is_pad, t, out, in_s, mesh, &info);
  bool needs_comm = false, usable = true;
  for (uint32_t d = 0; d < t->rank; d++)
    if (info.sharded[d]) needs_comm |= info.dims[d].needs_comm, usable &= info.dims[d].can_use_halo;
  if (!info.manual.n || !needs_comm) return true;
  if (!usable) return false;

  uint32_t rank = t->rank;
  cursor before = {op->parent, op};
  int64_t *low = HALO_ARRAY(c, int64_t, rank), *high = HALO_ARRAY(c, int64_t, rank),
          *interior = HALO_ARRAY(c, int64_t, rank), *zeros = HALO_ARRAY(c, int64_t, rank);
  for (uint32_t d = 0; d < rank; d++) {
    if (is_pad) {
      low[d] = shard_perm_attr_int(op, "edge_padding_low", d, 0);
      high[d] = shard_perm_attr_int(op, "edge_padding_high", d, 0);
      interior[d] = shard_perm_attr_int(op, "interior_padding", d, 0);
    } else {
      low[d] = -shard_perm_attr_int(op, "start_indices", d, 0);
      high[d] = shard_perm_attr_int(op, "limit_indices", d, t->dims[d]) - t->dims[d];
      interior[d] = 0;
    }
  }
  /* padHighSideToShape */
  shard_value *input = operand;
  bool need_high = false;
  int64_t *hi_pad = HALO_ARRAY(c, int64_t, rank);
  for (uint32_t d = 0; d < rank; d++) hi_pad[d] = info.divisible[d] - t->dims[d], need_high |= hi_pad[d] != 0;
  if (need_high) {
    shard_value *pv = is_pad ? op->operands[1].value : S_zero_scalar(c, &before, t->elem, op);
    input = S_pad(c, &before, operand, pv, zeros, hi_pad, zeros, in_s, op);
  }
  shard_value *pad_value = is_pad ? op->operands[1].value : S_zero_scalar(c, &before, t->elem, op);

  /* haloDataExchange */
  int64_t *local = HALO_ARRAY(c, int64_t, rank), *padded_out = HALO_ARRAY(c, int64_t, rank);
  for (uint32_t d = 0; d < rank; d++) {
    local[d] = info.divisible[d] / S_manual_shards(in_s, d, mesh, &info.manual);
    int64_t n = shard_perm_dim_shards(in_s, d, mesh);
    padded_out[d] = S_ceil_div(out->dims[d], n) * n;
  }
  shard_tensor_sharding *scalar_s = shard_sharding_open(a, in_s->mesh_name, NULL, 0, false);
  shard_value *mc_in[2] = {input, pad_value};
  shard_tensor_sharding *mc_s[2] = {in_s, scalar_s};
  shard_type *local_types[2] = {S_tensor(c, rank, local, t->elem), pad_value->type};
  shard_type *result_type = S_tensor(c, rank, padded_out, t->elem);
  shard_op *mc =
      S_manual_computation(c, &before, mc_in, 2, mc_s, local_types, result_type, in_s, mesh, &info.manual, op);
  shard_block *body = mc->regions[0].first;
  cursor inside = {body, NULL};
  shard_tensor_sharding *local_s = S_without_manual(c, in_s, &info.manual);
  shard_value *v = &body->args[0], *local_pad = &body->args[1];
  for (uint32_t d = 0; d < rank; d++) {
    if (!info.sharded[d] || !info.dims[d].needs_comm) continue;
    v = S_exchange_dim(c, &inside, v, local_pad, d, &info.dims[d], in_s, local_s, mesh, &info.manual, low[d],
                       interior[d] + 1, op);
  }
  /* The unsharded dims: handleReplicatedPadDims / handleReplicatedSliceDims. */
  bool local_op = false;
  int64_t *l_low = HALO_ARRAY(c, int64_t, rank), *l_high = HALO_ARRAY(c, int64_t, rank),
          *l_int = HALO_ARRAY(c, int64_t, rank), *start = HALO_ARRAY(c, int64_t, rank),
          *limit = HALO_ARRAY(c, int64_t, rank);
  memcpy(limit, v->type->dims, sizeof(int64_t) * rank);
  for (uint32_t d = 0; d < rank; d++) {
    if (info.sharded[d]) continue;
    if (is_pad) {
      l_low[d] = low[d], l_high[d] = high[d], l_int[d] = interior[d];
      local_op |= low[d] || high[d] || interior[d];
    } else {
      int64_t st = -low[d], lim = high[d] + t->dims[d];
      if (st != 0 || lim != v->type->dims[d]) start[d] = st, limit[d] = lim, local_op = true;
    }
  }
  if (local_op)
    v = is_pad ? S_pad(c, &inside, v, local_pad, l_low, l_high, l_int, local_s, op)
               : S_slice(c, &inside, v, start, limit, local_s, op);
  S_return(c, body, v, op);

  shard_value *result = &mc->results[0];
  if (!shard_type_equal(result->type, out)) {
    int64_t *st0 = HALO_ARRAY(c, int64_t, out->rank);
    result = S_slice(c, &before, result, st0, out->dims, in_s, op);
  }
  shard_value_replace_all_uses(&op->results[0], result);
  shard_op_erase(op);
  return true;
}

bool shard_perm_halo_pad(perm_ctx *c, shard_op *op) { return S_halo_pad_or_slice(c, op, true); }

bool shard_perm_halo_slice(perm_ctx *c, shard_op *op) { return S_halo_pad_or_slice(c, op, false); }

/* ---- reshape ------------------------------------------------------------------ */

/* A reshape that splits one sharded dim into several (8 -> 2x4 with
 * [{"a"}] -> [{"a":(1)2}, {"a":(2)2}]) moves no data when the sizes divide
 * the shard counts. When they don't, every shard is padded at its end, and
 * a device's output shard starts at an element another device holds
 * (6 on 4 devices -> 2x3: device 2 needs elements 3..4, held by devices 1
 * and 2). Like pad and slice, each device then concatenates its left and
 * right neighbours' shards with its own, pads that buffer and cuts its
 * share out of it, here at an offset looked up per device, and reshapes
 * that share locally (handleReshapeHaloExchange). Only split groups whose
 * every source is at most one shard away qualify; anything else is
 * replicated by the caller. */

/* Offsets of the first element of output shard t of a split group in the
 * row-major order of the group (getLinearDataStartOffsetForShardIdx). */
static int64_t S_group_out_start(int64_t t, const perm_reshape_group *g, const shard_type *out,
                                 const shard_tensor_sharding *out_s, const shard_mesh *mesh) {
  int64_t start = 0, stride = 1;
  for (uint32_t d = g->out_end; d-- > g->out_start;) {
    int64_t n = shard_perm_dim_shards(out_s, d, mesh);
    start += (t % n) * S_ceil_div(out->dims[d], n) * stride;
    t /= n;
    stride *= out->dims[d];
  }
  return start;
}

/* getDimExchangeInfoForReshapeGroup for input dim `dim` (sharded `shards`
 * ways, `s_in` elements per device after padding): which device holds the
 * start and the end of each output shard. */
static dim_exchange S_reshape_exchange(perm_ctx *c, const perm_reshape_group *g, uint32_t dim, int64_t shards,
                                       int64_t s_out, int64_t s_in, const shard_type *in, const shard_type *out,
                                       const shard_tensor_sharding *out_s, const shard_mesh *mesh) {
  shard_arena *a = c->m->arena;
  dim_exchange e = {.s_out = s_out, .s_footprint = s_out, .can_use_halo = true};
  shard_dim_sharding *target = SHARD_NEW(a, shard_dim_sharding);
  uint32_t naxes = 0;
  for (uint32_t d = g->out_start; d < g->out_end; d++) naxes += out_s->dims[d].num_axes;
  target->axes = SHARD_NEW_ARRAY(a, shard_axis_ref, naxes ? naxes : 1);
  for (uint32_t d = g->out_start; d < g->out_end; d++)
    for (uint32_t j = 0; j < out_s->dims[d].num_axes; j++) target->axes[target->num_axes++] = out_s->dims[d].axes[j];
  e.target = target;
  int64_t size = in->dims[dim], tile = S_ceil_div(size, shards);
  int64_t *source = shard_xmalloc(sizeof(int64_t) * 2 * (size_t)shards), *local = source + shards;
  for (int64_t t = 0; t < shards; t++) {
    int64_t first = S_group_out_start(t, g, out, out_s, mesh), last = first + s_out - 1;
    int64_t src = -1, last_src = -1, off = 0;
    for (int64_t k = 0; k < shards; k++) {
      int64_t begin = k * tile, count = size - begin < tile ? size - begin : tile;
      if (count <= 0) continue;
      if (first >= begin && first < begin + count) src = k, off = first - begin;
      if (last >= begin && last < begin + count) last_src = k;
    }
    if ((src != -1 && src != t) || (last_src != -1 && last_src != t)) e.needs_comm = true;
    if (src != -1 && src < t && t - src > e.left_hops) e.left_hops = t - src;
    if (last_src != -1 && last_src > t && last_src - t > e.right_hops) e.right_hops = last_src - t;
    source[t] = src;
    local[t] = off;
  }
  /* where shard t's data starts in the buffer [pad | left | own | right | pad];
   * a shard with no data (all padding) reads its own slot */
  int64_t *offsets = SHARD_NEW_ARRAY(a, int64_t, shards);
  for (int64_t t = 0; t < shards; t++) {
    int64_t src = source[t] != -1 ? source[t] : t;
    offsets[t] = e.s_footprint + (e.left_hops + src - t) * s_in + local[t];
  }
  free(source);
  e.offsets = offsets;
  e.num_offsets = shards;
  if (e.left_hops > 1 || e.right_hops > 1) e.can_use_halo = false;
  return e;
}

static bool S_group_padded(const perm_reshape_group *g, const shard_type *in, const int64_t *pin, const shard_type *out,
                           const int64_t *pout) {
  for (uint32_t d = g->in_start; d < g->in_end; d++)
    if (pin[d] != in->dims[d]) return true;
  for (uint32_t d = g->out_start; d < g->out_end; d++)
    if (pout[d] != out->dims[d]) return true;
  return false;
}

static void S_add_dim_axes(name_set *set, const shard_tensor_sharding *s, uint32_t from, uint32_t to) {
  for (uint32_t d = from; d < to; d++)
    for (uint32_t j = 0; j < s->dims[d].num_axes; j++) S_set_add(set, s->dims[d].axes[j].name);
}

bool shard_perm_halo_reshape(perm_ctx *c, shard_op *op, shard_tensor_sharding *in_s, shard_tensor_sharding *out_s,
                             const shard_mesh *mesh, const perm_reshape_group_vec *groups) {
  shard_arena *a = c->m->arena;
  shard_value *operand = op->operands[0].value;
  const shard_type *in = operand->type, *out = op->results[0].type;
  if (!in_s->mesh_name || shard_mesh_is_maximal(mesh)) return false;

  /* ReshapeShardingAnalysis: pad every non-divisible dim to a multiple of
   * its shard count; the axes of groups with such a dim become manual. */
  int64_t *pin = HALO_ARRAY(c, int64_t, in->rank), *pout = HALO_ARRAY(c, int64_t, out->rank);
  memcpy(pin, in->dims, sizeof(int64_t) * in->rank);
  memcpy(pout, out->dims, sizeof(int64_t) * out->rank);
  name_set manual = S_set_new(c, mesh);
  for (uint32_t k = 0; k < groups->len; k++) {
    const perm_reshape_group *g = &groups->items[k];
    bool indivisible = false;
    for (uint32_t d = g->in_start; d < g->in_end; d++) {
      int64_t n = shard_perm_dim_shards(in_s, d, mesh);
      if (n > 1 && in->dims[d] % n != 0) indivisible = true, pin[d] = S_ceil_div(in->dims[d], n) * n;
    }
    for (uint32_t d = g->out_start; d < g->out_end; d++) {
      int64_t n = shard_perm_dim_shards(out_s, d, mesh);
      if (n > 1 && out->dims[d] % n != 0) indivisible = true, pout[d] = S_ceil_div(out->dims[d], n) * n;
    }
    if (indivisible) {
      S_add_dim_axes(&manual, in_s, g->in_start, g->in_end);
      S_add_dim_axes(&manual, out_s, g->out_start, g->out_end);
    }
  }
  if (!manual.n) return false;

  /* getReshapeHaloInfo: the padded groups must all be plain splits of one
   * dim whose padded volumes still match. */
  uint32_t *active = HALO_ARRAY(c, uint32_t, groups->len), nactive = 0;
  for (uint32_t k = 0; k < groups->len; k++) {
    const perm_reshape_group *g = &groups->items[k];
    if (shard_perm_group_passthrough(g) || !S_group_padded(g, in, pin, out, pout)) continue;
    if (g->in_nontrivial > 1 || g->out_nontrivial <= 1) return false; /* not a split */
    if (g->in_nontrivial != g->in_end - g->in_start || g->out_nontrivial != g->out_end - g->out_start)
      return false; /* size-1 dims in the group */
    int64_t in_size = in->dims[g->in_start], out_size = out->dims[g->out_start];
    if (in_size % out_size != 0 && out_size % in_size != 0) return false;
    int64_t vin = 1, vout = 1;
    for (uint32_t d = g->in_start; d < g->in_end; d++) vin *= pin[d];
    for (uint32_t d = g->out_start; d < g->out_end; d++) vout *= pout[d];
    if (vin != vout) return false;
    active[nactive++] = k;
  }
  if (!nactive) return false;

  /* getReshapeDataExchangeInfo: one exchange per sharded input dim */
  dim_exchange *ex = HALO_ARRAY(c, dim_exchange, in->rank);
  bool *sharded = HALO_ARRAY(c, bool, in->rank);
  int64_t *local_in = HALO_ARRAY(c, int64_t, in->rank);
  for (uint32_t d = 0; d < in->rank; d++) local_in[d] = pin[d] / S_manual_shards(in_s, d, mesh, &manual);
  uint32_t next = 0;
  for (uint32_t d = 0; d < in->rank; d++) {
    int64_t n = shard_perm_dim_shards(in_s, d, mesh);
    if (n <= 1) continue;
    sharded[d] = true;
    const perm_reshape_group *g = next < nactive ? &groups->items[active[next]] : NULL;
    if (g && g->in_end - 1 == d) {
      next++;
      ex[d] = S_reshape_exchange(c, g, d, n, pin[d] / n, local_in[d], in, out, out_s, mesh);
      if (!ex[d].can_use_halo) return false;
    } else {
      ex[d] = (dim_exchange){.s_out = pin[d] / n, .s_footprint = pin[d] / n, .can_use_halo = true};
    }
  }

  uint32_t rank = in->rank;
  cursor before = {op->parent, op};
  shard_value *pad_value = S_zero_scalar(c, &before, out->elem, op);
  /* padHighSideToShape, with a zero of its own like Shardy's */
  shard_value *input = operand;
  int64_t *zeros = HALO_ARRAY(c, int64_t, rank), *hi_pad = HALO_ARRAY(c, int64_t, rank);
  bool need_high = false;
  for (uint32_t d = 0; d < rank; d++) hi_pad[d] = pin[d] - in->dims[d], need_high |= hi_pad[d] != 0;
  if (need_high) {
    shard_value *zero = S_zero_scalar(c, &before, in->elem, op);
    input = S_pad(c, &before, operand, zero, zeros, hi_pad, zeros, in_s, op);
  }

  /* haloDataExchange */
  int64_t *padded_result = HALO_ARRAY(c, int64_t, out->rank), *local_out = HALO_ARRAY(c, int64_t, out->rank);
  for (uint32_t d = 0; d < out->rank; d++) {
    int64_t n = shard_perm_dim_shards(out_s, d, mesh);
    padded_result[d] = S_ceil_div(out->dims[d], n) * n;
    local_out[d] = pout[d] / S_manual_shards(out_s, d, mesh, &manual);
  }
  shard_tensor_sharding *scalar_s = shard_sharding_open(a, in_s->mesh_name, NULL, 0, false);
  shard_value *mc_in[2] = {input, pad_value};
  shard_tensor_sharding *mc_s[2] = {in_s, scalar_s};
  shard_type *local_types[2] = {S_tensor(c, rank, local_in, in->elem), pad_value->type};
  shard_type *result_type = S_tensor(c, out->rank, padded_result, out->elem);
  shard_op *mc = S_manual_computation(c, &before, mc_in, 2, mc_s, local_types, result_type, out_s, mesh, &manual, op);
  shard_block *body = mc->regions[0].first;
  cursor inside = {body, NULL};
  shard_tensor_sharding *local_s = S_without_manual(c, in_s, &manual);
  shard_value *v = &body->args[0], *local_pad = &body->args[1];
  for (uint32_t d = 0; d < rank; d++) {
    if (!sharded[d] || !ex[d].needs_comm) continue;
    v = S_exchange_dim(c, &inside, v, local_pad, d, &ex[d], in_s, local_s, mesh, &manual, 0, 1, op);
  }
  shard_op *rs = S_emit(c, &inside, "stablehlo.reshape", 1, &v, S_tensor(c, out->rank, local_out, out->elem), op);
  S_set_sharding(c, &rs->results[0], S_without_manual(c, out_s, &manual));
  S_return(c, body, &rs->results[0], op);

  shard_value *result = &mc->results[0];
  if (!shard_type_equal(result->type, out)) {
    int64_t *st0 = HALO_ARRAY(c, int64_t, out->rank);
    result = S_slice(c, &before, result, st0, out->dims, out_s, op);
  }
  shard_value_replace_all_uses(&op->results[0], result);
  shard_op_erase(op);
  return true;
}
