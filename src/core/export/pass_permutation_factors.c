/* -sdy-resolve-permutation-factors: after explicit reshards every op agrees
 * with its sharding rule, but a permutation factor (a padded, sliced,
 * reversed or windowed dim) that stays sharded still moves data between
 * devices. This pass makes that movement explicit, as Shardy's
 * resolve_permutation_factors.cc does:
 *
 *  - by replication (always available, and the only way with
 *    enable-halo-exchange=false): every sharded permutation factor of the op
 *    is unsharded, the operands are resharded to the projected shardings,
 *    the op computes replicated along those dims and its results are
 *    resharded back to what its users expect. Pad and slice dims whose
 *    shards stay on their devices (communication-free) are left alone;
 *  - for stablehlo.reshape, which has no permutation factor but moves data
 *    when a group of dims is sharded non-divisibly, the axes of each such
 *    group are replicated around the reshape;
 *  - with halo exchange, pad, slice, reverse and a reshape splitting a
 *    non-divisible dim may instead exchange just the neighbouring shards
 *    inside a manual computation
 *    (pass_permutation_factors_halo.c); when that is impossible the op falls
 *    back to replication.
 *
 * Ops are visited in post-order (nested ops first), collected before any
 * rewrite so that ops the pass creates are not visited again. */
#include <stdlib.h>
#include <string.h>

#include "ir/opdef.h"
#include "pass/pass.h"
#include "export/pass_permutation_factors.h"
#include "pass/pass_shardings.h"
#include "rules/reshape_equivalence.h"
#include "propagate/projection.h"
#include "propagate/propagate.h"
#include "export/reshard.h"
#include "rules/rule_registry.h"
#include "sdy/sharding.h"

typedef SHARD_VEC(shard_op *) op_vec;

static bool S_is(const shard_op *op, const char *name) { return strcmp(op->name, name) == 0; }

static bool S_is_terminator(const shard_op *op) { return op->def && (op->def->traits & SHARD_TRAIT_TERMINATOR); }

static void S_post_order(shard_op *op, op_vec *out) {
  for (uint32_t r = 0; r < op->num_regions; r++)
    for (shard_block *b = op->regions[r].first; b; b = b->next)
      for (shard_op *o = b->first; o; o = o->next) S_post_order(o, out);
  SHARD_VEC_PUSH(*out, op);
}

static int64_t S_ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

/* ---- shared helpers (also used by the halo exchange) -------------------------- */

shard_tensor_sharding *shard_perm_value_sharding(perm_ctx *c, const shard_value *v) {
  return shard_propagation_value_sharding(c->m->arena, v);
}

int64_t shard_perm_dim_shards(const shard_tensor_sharding *s, uint32_t d, const shard_mesh *mesh) {
  if (!s || d >= s->rank) return 1;
  return shard_sharding_dim_size(s, d, mesh);
}

shard_value *shard_perm_new_reshard(perm_ctx *c, shard_op *before, shard_value *in, shard_tensor_sharding *s,
                                    const shard_op *near) {
  shard_type *type = in->type;
  shard_op *op = shard_op_new_named(c->m->arena, "sdy.reshard", 1, &in, 1, &type, 0);
  if (near) op->span = near->span;
  shard_op_set_attr(c->m->arena, op, "sharding", shard_attr_sharding(c->m->arena, s), true);
  shard_op_insert_before(before, op);
  return &op->results[0];
}

void shard_perm_replace_uses_except(shard_value *from, shard_value *to, const shard_op *except) {
  shard_operand *u = from->first_use;
  while (u) {
    shard_operand *next = u->next_use;
    if (u->owner != except) shard_operand_set(u, to);
    u = next;
  }
}

/* Inserts `op` right after `pos` (at the end of the block when pos is last). */
static void S_insert_after(shard_op *pos, shard_op *op) { shard_op_insert_after(pos, op); }

shard_value *shard_perm_reshard_result(perm_ctx *c, shard_op *op, uint32_t i, shard_tensor_sharding *old,
                                       shard_tensor_sharding *now) {
  shard_arena *a = c->m->arena;
  shard_value *res = &op->results[i];
  shard_type *type = res->type;
  shard_op *rs = shard_op_new_named(a, "sdy.reshard", 1, &res, 1, &type, 0);
  rs->span = op->span;
  shard_op_set_attr(a, rs, "sharding", shard_attr_sharding(a, old), true);
  S_insert_after(op, rs);
  shard_perm_replace_uses_except(res, &rs->results[0], rs);
  shard_propagation_set_value_sharding(a, res, now);
  return &rs->results[0];
}

/* ---- replication of permutation factors -------------------------------------- */

static bool S_factor_is_permutation(const shard_op_sharding_rule *r, int64_t f) {
  for (uint32_t i = 0; i < r->num_permutation; i++)
    if (r->permutation[i] == f) return true;
  return false;
}

static const shard_attr *S_ints(const shard_op *op, const char *name) {
  const shard_attr *a = shard_op_attr(op, name);
  return a && a->kind == SHARD_ATTR_DENSE_ARRAY ? a : NULL;
}

int64_t shard_perm_attr_int(const shard_op *op, const char *name, uint32_t d, int64_t dflt) {
  const shard_attr *a = S_ints(op, name);
  return a && d < a->u.dense_array.num ? a->u.dense_array.vals[d] : dflt;
}

static bool S_static_tensor(const shard_value *v) {
  return v->type && v->type->kind == SHARD_TYPE_TENSOR && shard_type_is_static_tensor(v->type);
}

/* isCommunicationFreeSliceDim: a slice keeping the start of a dim and the
 * same shard size leaves every element on its device. */
static bool S_slice_dim_comm_free(const shard_op *op, uint32_t d, const shard_tensor_sharding *s,
                                  const shard_mesh *mesh) {
  int64_t n = shard_perm_dim_shards(s, d, mesh);
  if (n <= 1) return true;
  if (shard_perm_attr_int(op, "start_indices", d, 0) != 0 || shard_perm_attr_int(op, "strides", d, 1) != 1)
    return false;
  const shard_value *in = op->operands[0].value, *out = &op->results[0];
  if (!S_static_tensor(in) || !S_static_tensor(out)) return false;
  return S_ceil_div(in->type->dims[d], n) == S_ceil_div(out->type->dims[d], n);
}

/* isCommunicationFreePadDim: without interior padding, every output shard
 * reads its valid input elements from the same shard index. */
static bool S_pad_dim_comm_free(const shard_op *op, uint32_t d, const shard_tensor_sharding *s,
                                const shard_mesh *mesh) {
  int64_t n = shard_perm_dim_shards(s, d, mesh);
  if (n <= 1) return true;
  if (shard_perm_attr_int(op, "interior_padding", d, 0) != 0) return false;
  const shard_value *in = op->operands[0].value, *out = &op->results[0];
  if (!S_static_tensor(in) || !S_static_tensor(out)) return false;
  int64_t size = in->type->dims[d];
  int64_t s_in = S_ceil_div(size, n), s_out = S_ceil_div(out->type->dims[d], n);
  int64_t low = shard_perm_attr_int(op, "edge_padding_low", d, 0);
  for (int64_t t = 0; t < n; t++) {
    int64_t start = t * s_out - low, limit = start + s_out - 1;
    int64_t lo = start > 0 ? start : 0, hi = limit < size - 1 ? limit : size - 1;
    if (lo <= hi && (lo / s_in != t || hi / s_in != t)) return false;
  }
  return true;
}

/* getCommonMeshName ignoring maximal meshes: the mesh symbol every sharded
 * tensor of the op uses, or NULL when they disagree or there is none. */
static const char *S_common_mesh(perm_ctx *c, shard_tensor_sharding *const *s, uint32_t n) {
  const char *name = NULL;
  for (uint32_t i = 0; i < n; i++) {
    if (!s[i]) continue;
    const shard_mesh *mesh = shard_module_sharding_mesh(c->m, s[i]);
    if (mesh && shard_mesh_is_maximal(mesh)) continue;
    if (!s[i]->mesh_name) return NULL;
    if (name && strcmp(name, s[i]->mesh_name) != 0) return NULL;
    name = s[i]->mesh_name;
  }
  return name;
}

void shard_perm_resolve_by_replication(perm_ctx *c, shard_op *op, const shard_op_sharding_rule *rule) {
  shard_arena *a = c->m->arena;
  uint32_t nin = rule->num_operands, nout = rule->num_results;
  if (nin != op->num_operands || nout != op->num_results) return;
  uint32_t n = nin + nout;
  shard_tensor_sharding **s = shard_xmalloc(sizeof *s * (n ? n : 1));
  for (uint32_t i = 0; i < nin; i++) s[i] = shard_perm_value_sharding(c, op->operands[i].value);
  for (uint32_t i = 0; i < nout; i++) s[nin + i] = shard_perm_value_sharding(c, &op->results[i]);
  const char *mesh_name = S_common_mesh(c, s, n);
  shard_op *mesh_op = mesh_name ? shard_module_lookup_symbol(c->m, mesh_name) : NULL;
  const shard_mesh *mesh = NULL;
  if (mesh_op) {
    shard_attr *ma = shard_op_attr(mesh_op, "mesh");
    if (ma && ma->kind == SHARD_ATTR_SDY_MESH) mesh = ma->u.mesh;
  }
  if (!mesh || shard_mesh_is_maximal(mesh)) {
    free(s);
    return;
  }
  shard_projection *p = shard_projection_build(a, rule, (const shard_tensor_sharding *const *)s, mesh, true);
  bool *update = shard_xmalloc(n ? n : 1);
  memset(update, 0, n ? n : 1);
  bool any = false;
  for (uint32_t f = 0; f < rule->num_factors; f++) {
    if (!S_factor_is_permutation(rule, f)) continue;
    /* Pad and slice rules map factor d to dim d of the operand. */
    if (S_is(op, "stablehlo.slice") && S_slice_dim_comm_free(op, f, s[0], mesh)) continue;
    if (S_is(op, "stablehlo.pad") && S_pad_dim_comm_free(op, f, s[0], mesh)) continue;
    for (uint32_t t = 0; t < n; t++) {
      shard_factor_sharding *fs = &p->tensors[t].factors[f];
      if (!fs->mapped || (!fs->axes.n && !fs->overflow.n)) continue;
      fs->axes = (shard_axes){NULL, 0};
      fs->overflow = (shard_axes){NULL, 0};
      update[t] = any = true;
    }
  }
  if (any) {
    for (uint32_t i = 0; i < nin; i++) {
      if (!update[i]) continue;
      shard_tensor_sharding *ns = shard_projection_to_sharding(a, p, i, &rule->operands[i], mesh_name, NULL);
      shard_operand_set(&op->operands[i], shard_perm_new_reshard(c, op, op->operands[i].value, ns, op));
    }
    for (uint32_t i = 0; i < nout; i++) {
      if (!update[nin + i]) continue;
      shard_tensor_sharding *old = s[nin + i];
      if (!old) old = shard_sharding_open(a, mesh_name, NULL, op->results[i].type->rank, false);
      shard_tensor_sharding *ns = shard_projection_to_sharding(a, p, nin + i, &rule->results[i], mesh_name, NULL);
      shard_perm_reshard_result(c, op, i, old, ns);
    }
  }
  free(update);
  free(s);
}

/* ---- stablehlo.reshape --------------------------------------------------------- */

/* Groups of consecutive input and output dims whose products match
 * (buildReshapeGroupInfos): 6x4 -> 2x3x4 gives (6)->(2,3) and (4)->(4). */
void shard_perm_reshape_groups(const shard_type *in, const shard_type *out, perm_reshape_group_vec *groups) {
  uint32_t i = 0, o = 0;
  while (i < in->rank || o < out->rank) {
    perm_reshape_group g = {.in_start = i, .out_start = o};
    int64_t ip = i < in->rank ? in->dims[i++] : 1;
    int64_t op = o < out->rank ? out->dims[o++] : 1;
    while (ip != op && (i < in->rank || o < out->rank)) {
      if (ip < op && i < in->rank) ip *= in->dims[i++];
      else if (op < ip && o < out->rank) op *= out->dims[o++];
      else break;
    }
    g.in_end = i;
    g.out_end = o;
    for (uint32_t d = g.in_start; d < g.in_end; d++) g.in_nontrivial += in->dims[d] != 1;
    for (uint32_t d = g.out_start; d < g.out_end; d++) g.out_nontrivial += out->dims[d] != 1;
    SHARD_VEC_PUSH(*groups, g);
  }
}

bool shard_perm_group_passthrough(const perm_reshape_group *g) {
  return g->in_nontrivial <= 1 && g->out_nontrivial <= 1;
}

static bool S_dims_indivisible(const shard_tensor_sharding *s, const shard_type *t, uint32_t from, uint32_t to,
                               const shard_mesh *mesh) {
  for (uint32_t d = from; d < to; d++) {
    int64_t n = shard_perm_dim_shards(s, d, mesh);
    if (n > 1 && t->dims[d] % n != 0) return true;
  }
  return false;
}

bool shard_perm_group_indivisible(const perm_reshape_group *g, const shard_tensor_sharding *in_s, const shard_type *in,
                                  const shard_tensor_sharding *out_s, const shard_type *out, const shard_mesh *mesh) {
  return S_dims_indivisible(in_s, in, g->in_start, g->in_end, mesh) ||
         S_dims_indivisible(out_s, out, g->out_start, g->out_end, mesh);
}

/* Drops from every dim the axes that overlap one of `removed` (the removed
 * lists hold whole groups' axes, so a partial overlap means the same data
 * split differently and goes too). */
static shard_tensor_sharding *S_without_axes(shard_arena *a, const shard_tensor_sharding *s,
                                             const shard_axis_ref *removed, uint32_t nremoved, const shard_mesh *mesh) {
  shard_tensor_sharding *r = shard_sharding_clone(a, s);
  r->dims = SHARD_NEW_ARRAY(a, shard_dim_sharding, s->rank);
  for (uint32_t d = 0; d < s->rank; d++) {
    r->dims[d] = s->dims[d];
    r->dims[d].axes = SHARD_NEW_ARRAY(a, shard_axis_ref, s->dims[d].num_axes ? s->dims[d].num_axes : 1);
    uint32_t n = 0;
    for (uint32_t j = 0; j < s->dims[d].num_axes; j++) {
      bool drop = false;
      for (uint32_t k = 0; k < nremoved && !drop; k++)
        drop = shard_axis_overlaps(&s->dims[d].axes[j], &removed[k], mesh);
      if (!drop) r->dims[d].axes[n++] = s->dims[d].axes[j];
    }
    r->dims[d].num_axes = n;
  }
  return r;
}

/* handleReshapeOpReplicate: the axes of every non-passthrough group with a
 * non-divisible dim are replicated around the reshape. */
static void S_reshape_replicate(perm_ctx *c, shard_op *op, shard_tensor_sharding *in_s, shard_tensor_sharding *out_s,
                                const shard_mesh *mesh, const perm_reshape_group_vec *groups) {
  shard_arena *a = c->m->arena;
  const shard_type *in = op->operands[0].value->type, *out = op->results[0].type;
  SHARD_VEC(shard_axis_ref) removed = {0};
  for (uint32_t g = 0; g < groups->len; g++) {
    const perm_reshape_group *gr = &groups->items[g];
    if (shard_perm_group_passthrough(gr) || !shard_perm_group_indivisible(gr, in_s, in, out_s, out, mesh)) continue;
    for (uint32_t d = gr->in_start; d < gr->in_end; d++)
      for (uint32_t j = 0; j < in_s->dims[d].num_axes; j++) SHARD_VEC_PUSH(removed, in_s->dims[d].axes[j]);
    for (uint32_t d = gr->out_start; d < gr->out_end; d++)
      for (uint32_t j = 0; j < out_s->dims[d].num_axes; j++) SHARD_VEC_PUSH(removed, out_s->dims[d].axes[j]);
  }
  shard_tensor_sharding *new_in = S_without_axes(a, in_s, removed.items, removed.len, mesh);
  shard_tensor_sharding *new_out = S_without_axes(a, out_s, removed.items, removed.len, mesh);
  SHARD_VEC_FREE(removed);
  shard_operand_set(&op->operands[0], shard_perm_new_reshard(c, op, op->operands[0].value, new_in, op));
  shard_perm_reshard_result(c, op, 0, out_s, new_out);
}

static void S_reshape(perm_ctx *c, shard_op *op) {
  if (op->num_operands != 1 || op->num_results != 1) return;
  shard_tensor_sharding *in_s = shard_perm_value_sharding(c, op->operands[0].value);
  shard_tensor_sharding *out_s = shard_perm_value_sharding(c, &op->results[0]);
  if (!in_s || !out_s) return;
  if (!S_static_tensor(op->operands[0].value) || !S_static_tensor(&op->results[0])) return;
  const shard_mesh *mesh = shard_module_sharding_mesh(c->m, in_s);
  if (!mesh) return;
  const shard_type *in = op->operands[0].value->type, *out = op->results[0].type;
  if (in_s->rank != in->rank || out_s->rank != out->rank) return;
  perm_reshape_group_vec groups = {0};
  shard_perm_reshape_groups(in, out, &groups);
  bool equivalent = shard_sharding_equivalent_across_reshape(in_s, in, out_s, out, mesh, true);
  if (equivalent) {
    bool comm_free = shard_sharding_equivalent_across_reshape(in_s, in, out_s, out, mesh, false);
    if (!comm_free) {
      comm_free = true;
      for (uint32_t g = 0; g < groups.len; g++) comm_free &= shard_perm_group_passthrough(&groups.items[g]);
    }
    if (comm_free) {
      SHARD_VEC_FREE(groups);
      return;
    }
    if (c->halo && shard_perm_halo_reshape(c, op, in_s, out_s, mesh, &groups)) {
      SHARD_VEC_FREE(groups);
      return;
    }
  }
  S_reshape_replicate(c, op, in_s, out_s, mesh, &groups);
  SHARD_VEC_FREE(groups);
}

/* ---- the pass ------------------------------------------------------------------ */

static bool S_has_permutation(const shard_op_sharding_rule *r) { return r->num_permutation > 0; }

static void S_visit(perm_ctx *c, shard_op *op) {
  if (S_is_terminator(op) || strncmp(op->name, "stablehlo.", 10) != 0) return;
  if (S_is(op, "stablehlo.reshape")) {
    S_reshape(c, op);
    return;
  }
  const shard_op_sharding_rule *rule = shard_rule_for_op(c->m->arena, op, false, NULL);
  if (!rule || rule->is_custom || !S_has_permutation(rule)) return;
  if (c->halo) {
    bool resolved = false;
    if (S_is(op, "stablehlo.pad")) resolved = shard_perm_halo_pad(c, op);
    else if (S_is(op, "stablehlo.slice")) resolved = shard_perm_halo_slice(c, op);
    else if (S_is(op, "stablehlo.reverse")) resolved = shard_perm_halo_reverse(c, op);
    if (resolved) return;
  }
  shard_perm_resolve_by_replication(c, op, rule);
}

/* The largest channel handle in the module plus one (getNextChannelId). */
static int64_t S_next_channel(shard_module *m) {
  op_vec ops = {0};
  S_post_order(m->top, &ops);
  int64_t max = 0;
  for (uint32_t i = 0; i < ops.len; i++) {
    int64_t v;
    if (shard_attr_channel(shard_op_attr(ops.items[i], "channel_handle"), &v, NULL) && v > max) max = v;
  }
  SHARD_VEC_FREE(ops);
  return max + 1;
}

bool shard_pass_resolve_permutation_factors(shard_module *m, const char *options, const shard_pass_context *cx) {
  shard_diag_engine *de = cx->de;
  perm_ctx c = {.m = m, .de = de, .replicas = 1, .partitions = 1};
  long long v;
  if (options) {
    shard_pass_option_bool(options, "enable-halo-exchange", &c.halo);
    if (shard_pass_option_int(options, "replica-count", &v)) c.replicas = v;
    if (shard_pass_option_int(options, "partition-count", &v)) c.partitions = v;
  }
  c.next_channel = S_next_channel(m);
  op_vec ops = {0};
  S_post_order(m->top, &ops);
  for (uint32_t i = 0; i < ops.len; i++) S_visit(&c, ops.items[i]);
  SHARD_VEC_FREE(ops);
  return true;
}
