/* Collectives of the interpreter and the rendezvous between device threads,
 * and the point-to-point ops send, recv and infeed (at the end).
 *
 * Every collective is two barriers over the whole world: each process
 * deposits its operands in its slot, waits for everyone, computes its own
 * result from the deposits of the processes in its group, and waits again so
 * that no slot is overwritten while someone still reads it. That is correct
 * for SPMD programs, where every device reaches the same collectives in the
 * same order; a device that returns while others wait aborts the run with an
 * error instead of hanging.
 *
 * Process groups follow the StableHLO spec: cross_replica (no channel),
 * cross_replica_and_partition (channel, no use_global_device_ids),
 * flattened_ids (channel and use_global_device_ids) for all_gather,
 * all_reduce, collective_reduce and reduce_scatter; cross_replica /
 * cross_partition by channel for all_to_all, collective_permute and
 * collective_broadcast. cross_replica_and_partition groups are
 * partition-major: a group's replicas on partition 0, then on partition 1. Replica groups are dense id
 * tensors or #stablehlo.replica_group_mesh_axes, flattened to ids the way
 * StableHLO's flattenReplicaGroupMeshAxes does. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ir/attr_stablehlo_mesh.h"
#include "interp/interp_internal.h"

void shard_interp_world_init(interp_world *w, shard_module *m, shard_diag_engine *de, pthread_mutex_t *diag_mu,
                             int64_t replicas, int64_t partitions) {
  memset(w, 0, sizeof *w);
  w->module = m;
  w->de = de;
  w->diag_mu = diag_mu;
  w->num_replicas = replicas;
  w->num_partitions = partitions;
  w->num_procs = replicas * partitions;
  pthread_mutex_init(&w->mu, NULL);
  pthread_cond_init(&w->cv, NULL);
  w->slots = shard_xcalloc((size_t)w->num_procs, sizeof *w->slots);
  w->slot_counts = shard_xcalloc((size_t)w->num_procs, sizeof *w->slot_counts);
  w->max_steps = SHARD_INTERP_DEFAULT_MAX_STEPS;
  w->p2p_wait = shard_xcalloc((size_t)w->num_procs, sizeof *w->p2p_wait);
  w->p2p_wait_ch = shard_xcalloc((size_t)w->num_procs, sizeof *w->p2p_wait_ch);
}

void shard_interp_world_inherit(interp_world *w, const interp_world *parent) {
  w->max_steps = parent->max_steps;
  w->track_rounding = parent->track_rounding;
  w->probe_dir = parent->probe_dir;
  w->probe_count = parent->probe_count;
}

void shard_interp_world_destroy(interp_world *w) {
  pthread_mutex_destroy(&w->mu);
  pthread_cond_destroy(&w->cv);
  free(w->slots);
  free(w->slot_counts);
  free(w->channels);
  free(w->p2p_wait);
  free(w->p2p_wait_ch);
  if (w->mail) shard_arena_free(w->mail);
}

void shard_interp_proc_finish(interp_proc *p) {
  interp_world *w = p->world;
  pthread_mutex_lock(&w->mu);
  if (p->failed) w->aborted = true;
  else w->unreached = true;
  w->finished++;
  pthread_cond_broadcast(&w->cv);
  pthread_mutex_unlock(&w->mu);
}

static bool interp_barrier(interp_proc *p, const shard_op *op) {
  interp_world *w = p->world;
  if (w->num_procs == 1) return true;
  bool mismatch = false;
  pthread_mutex_lock(&w->mu);
  uint64_t gen = w->generation;
  w->arrived++;
  if (w->arrived == w->num_procs) {
    w->arrived = 0;
    w->generation++;
    pthread_cond_broadcast(&w->cv);
  }
  /* A process that returned normally can never arrive: every process
   * waiting here (or arriving later) reports that, not just the first to
   * notice. A failed one ends the run; its error is the one to read. */
  while (gen == w->generation) {
    if (w->unreached) {
      mismatch = true;
      break;
    }
    if (w->aborted) break;
    pthread_cond_wait(&w->cv, &w->mu);
  }
  bool ok = gen != w->generation;
  pthread_mutex_unlock(&w->mu);
  if (mismatch) return shard_interp_error(p, op, "'%s' is not reached by every device", op->name);
  if (!ok) p->failed = true;
  return ok;
}

/* ---- process groups ---------------------------------------------------------- */

typedef enum {
  GROUPS_CROSS_REPLICA,
  GROUPS_CROSS_PARTITION,
  GROUPS_REPLICA_AND_PARTITION,
  GROUPS_FLATTENED
} group_mode;

static int64_t S_channel(const shard_op *op) {
  const shard_attr *a = shard_op_attr(op, "channel_handle");
  if (!a) a = shard_op_attr(op, "channel_id");
  if (!a) return 0;
  if (a->kind == SHARD_ATTR_INT) return a->u.integer.value;
  int64_t handle;
  return shard_attr_channel(a, &handle, NULL) ? handle : 0;
}

static group_mode S_mode(const shard_op *op, bool permute_like) {
  int64_t ch = S_channel(op);
  if (permute_like) return ch > 0 ? GROUPS_CROSS_PARTITION : GROUPS_CROSS_REPLICA;
  bool global = shard_op_attr(op, "use_global_device_ids") != NULL;
  if (ch <= 0) return GROUPS_CROSS_REPLICA;
  return global ? GROUPS_FLATTENED : GROUPS_REPLICA_AND_PARTITION;
}

/* ---- mesh-axes replica groups ---------------------------------------------------- */

/* The mesh's axes, any number of them (process arena). */
typedef struct mesh_axes {
  const char **names;
  int64_t *sizes;
  uint32_t num;
  const int64_t *device_ids; /* NULL: iota */
  int64_t num_device_ids;
} mesh_axes;

/* Room for n axes (names and sizes filled by the caller), no device ids. */
static void S_mesh_axes_init(interp_proc *p, mesh_axes *m, uint32_t n) {
  m->num = n;
  m->names = SHARD_NEW_ARRAY(p->arena, const char *, n + 1);
  m->sizes = SHARD_NEW_ARRAY(p->arena, int64_t, n + 1);
  m->device_ids = NULL;
  m->num_device_ids = 0;
}

/* The axes and device ids of a #stablehlo.mesh. */
static bool S_from_shlo_mesh(interp_proc *p, const shard_op *op, const shard_shlo_mesh *sm, mesh_axes *m) {
  S_mesh_axes_init(p, m, sm->num_axes);
  for (uint32_t i = 0; i < sm->num_axes; i++) m->names[i] = sm->axes[i].name, m->sizes[i] = sm->axes[i].size;
  if (sm->device_ids) {
    shard_i64s ids;
    if (!shard_attr_i64_list(sm->device_ids, &ids))
      return shard_interp_error(p, op, "replica_group_mesh_axes: the mesh's device ids are not a list of integers");
    m->device_ids = ids.v;
    m->num_device_ids = ids.n;
  }
  return true;
}

/* The mesh a replica_group_mesh_axes names: inline #stablehlo.mesh<...>, or
 * a symbol whose `mesh` (or `stablehlo.mesh`) attribute is one, or an
 * sdy.mesh. */
static bool S_find_mesh(interp_proc *p, const shard_op *op, const shard_shlo_mesh_axes *rg, mesh_axes *m) {
  const shard_shlo_mesh *inline_mesh = shard_attr_shlo_mesh(rg->mesh);
  if (inline_mesh) return S_from_shlo_mesh(p, op, inline_mesh, m);
  const char *name = shard_shlo_mesh_axes_symbol(rg);
  if (!name) return shard_interp_error(p, op, "replica_group_mesh_axes needs a mesh");
  shard_op *sym = shard_module_lookup_symbol(p->world->module, name);
  if (!sym) return shard_interp_error(p, op, "replica_group_mesh_axes: no mesh symbol @%s in the module", name);
  const shard_attr *ma = shard_op_attr(sym, "mesh");
  if (!ma) ma = shard_op_attr(sym, "stablehlo.mesh");
  if (ma && ma->kind == SHARD_ATTR_SDY_MESH && ma->u.mesh) {
    const shard_mesh *sm = ma->u.mesh;
    S_mesh_axes_init(p, m, sm->num_axes);
    for (uint32_t i = 0; i < sm->num_axes; i++) m->names[i] = sm->axes[i].name, m->sizes[i] = sm->axes[i].size;
    m->device_ids = sm->device_ids;
    m->num_device_ids = sm->device_ids ? sm->num_device_ids : 0;
    return true;
  }
  if (shard_attr_shlo_mesh(ma)) return S_from_shlo_mesh(p, op, shard_attr_shlo_mesh(ma), m);
  return shard_interp_error(p, op, "replica_group_mesh_axes: @%s has no mesh attribute", name);
}

/* Flattens #stablehlo.replica_group_mesh_axes<mesh = ..., axes = [...]> into
 * a groups x size tensor of device ids: groups run over the axes not named
 * (in mesh order), members over the named axes in the order given, the
 * first named axis major. */
static bool S_mesh_axes_groups(interp_proc *p, const shard_op *op, const shard_shlo_mesh_axes *rg, shard_tensor **out) {
  mesh_axes m;
  if (!S_find_mesh(p, op, rg, &m)) return false;
  int *order = INTERP_ARRAY(p, int, m.num); /* transposed position -> mesh axis */
  bool *named = INTERP_ARRAY(p, bool, m.num);
  uint32_t nnamed = 0;
  int *named_order = INTERP_ARRAY(p, int, m.num);
  for (uint32_t a = 0; a < rg->num_axes; a++) {
    const char *nm = rg->axes[a].name;
    if (rg->axes[a].is_sub) return shard_interp_error(p, op, "replica_group_mesh_axes: sub-axes are not supported");
    int found = -1;
    for (uint32_t i = 0; i < m.num; i++)
      if (!strcmp(m.names[i], nm)) found = (int)i;
    if (found < 0 || named[found])
      return shard_interp_error(p, op, "replica_group_mesh_axes: axis \"%s\" is not a distinct axis of the mesh", nm);
    named[found] = true;
    named_order[nnamed++] = found;
  }
  uint32_t k = 0;
  for (uint32_t i = 0; i < m.num; i++)
    if (!named[i]) order[k++] = (int)i;
  for (uint32_t i = 0; i < nnamed; i++) order[k++] = named_order[i];
  int64_t total = 1, gsize = 1;
  int64_t *orig_strides = INTERP_ARRAY(p, int64_t, m.num), *tsizes = INTERP_ARRAY(p, int64_t, m.num),
          *tstrides = INTERP_ARRAY(p, int64_t, m.num);
  for (uint32_t i = 0; i < m.num; i++) total *= m.sizes[i];
  for (uint32_t i = 0; i < nnamed; i++) gsize *= m.sizes[named_order[i]];
  if (m.device_ids && m.num_device_ids != total)
    return shard_interp_error(p, op, "replica_group_mesh_axes: the mesh has %lld device ids for %lld devices",
                              (long long)m.num_device_ids, (long long)total);
  for (uint32_t i = 0; i < m.num; i++) tsizes[i] = m.sizes[order[i]];
  shard_interp_strides(m.num, m.sizes, orig_strides);
  shard_interp_strides(m.num, tsizes, tstrides);
  int64_t dims[2] = {total / gsize, gsize};
  shard_tensor *g = shard_tensor_new(p->arena, shard_type_tensor(p->arena, 2, dims, "i64", NULL));
  for (int64_t lin = 0; lin < total; lin++) {
    int64_t orig = 0;
    for (uint32_t i = 0; i < m.num; i++) orig += (lin / tstrides[i]) % tsizes[i] * orig_strides[order[i]];
    g->ints[lin] = m.device_ids ? m.device_ids[orig] : orig;
  }
  *out = g;
  return true;
}

/* The members (process indices, in group order) of p's group and p's
 * position in it. Empty replica_groups mean one group of everything. A
 * device in no group is an error, or (allow_none) a group of *count 0. */
static bool S_group_of(interp_proc *p, const shard_op *op, bool permute_like, bool allow_none, int64_t **members,
                       int64_t *count, int64_t *pos) {
  interp_world *w = p->world;
  group_mode mode = S_mode(op, permute_like);
  const shard_attr *rg = shard_op_attr(op, "replica_groups");
  shard_tensor *groups = NULL;
  const char *err = NULL;
  if (rg && rg->kind == SHARD_ATTR_DENSE && rg->u.dense.type) {
    if (!shard_tensor_from_dense(p->arena, rg->u.dense.payload, rg->u.dense.type, &groups, &err))
      return shard_interp_error(p, op, "replica_groups: %s", err);
  } else if (shard_attr_mesh_axes(rg)) {
    if (!S_mesh_axes_groups(p, op, shard_attr_mesh_axes(rg), &groups)) return false;
  } else if (rg) {
    return shard_interp_error(p, op, "the interpreter only supports dense and mesh-axes replica_groups");
  }
  int64_t ngroups = 1, gsize;
  int64_t axis_size = mode == GROUPS_CROSS_PARTITION ? w->num_partitions
                      : mode == GROUPS_FLATTENED     ? w->num_procs
                                                     : w->num_replicas;
  if (groups && groups->type->rank == 2 && groups->num > 0) {
    ngroups = groups->type->dims[0];
    gsize = groups->type->dims[1];
  } else {
    gsize = axis_size;
    groups = NULL;
  }
  /* my id along the grouping axis */
  int64_t mine = mode == GROUPS_CROSS_PARTITION ? p->partition_id : mode == GROUPS_FLATTENED ? p->index : p->replica_id;
  int64_t *out = SHARD_NEW_ARRAY(p->arena, int64_t, (size_t)(gsize * w->num_partitions) + 1);
  for (int64_t g = 0; g < ngroups; g++) {
    int64_t n = 0, at = -1;
    for (int64_t k = 0; k < gsize; k++) {
      int64_t id = groups ? groups->ints[g * gsize + k] : k;
      if (id < 0) continue; /* padding of ragged groups */
      if (id >= axis_size) return shard_interp_error(p, op, "replica group id %lld is out of range", (long long)id);
      if (id == mine) at = n;
      out[n++] = id;
    }
    if (at < 0) continue;
    /* ids -> process indices; cross_replica_and_partition takes the
     * group's replicas on every partition, partition-major (the spec's
     * "for partition_id in partition_ids: for replica_id in group") */
    if (mode == GROUPS_REPLICA_AND_PARTITION) {
      int64_t *full = SHARD_NEW_ARRAY(p->arena, int64_t, (size_t)(n * w->num_partitions) + 1);
      int64_t m = 0;
      for (int64_t q = 0; q < w->num_partitions; q++)
        for (int64_t k = 0; k < n; k++) {
          if (out[k] == p->replica_id && q == p->partition_id) *pos = m;
          full[m++] = out[k] * w->num_partitions + q;
        }
      *members = full;
      *count = m;
      return true;
    }
    for (int64_t k = 0; k < n; k++) {
      if (mode == GROUPS_CROSS_REPLICA) out[k] = out[k] * w->num_partitions + p->partition_id;
      else if (mode == GROUPS_CROSS_PARTITION) out[k] = p->replica_id * w->num_partitions + out[k];
    }
    *members = out;
    *count = n;
    *pos = at;
    return true;
  }
  if (allow_none) {
    *members = out, *count = 0, *pos = -1;
    return true;
  }
  return shard_interp_error(p, op, "this device is in none of the replica groups");
}

static bool S_group(interp_proc *p, const shard_op *op, bool permute_like, int64_t **members, int64_t *count,
                    int64_t *pos) {
  return S_group_of(p, op, permute_like, false, members, count, pos);
}

/* ---- the collectives ---------------------------------------------------------- */

static bool S_deposit(interp_proc *p, interp_frame *f, const shard_op *op, shard_tensor ***ops) {
  shard_tensor **in = SHARD_NEW_ARRAY(p->arena, shard_tensor *, op->num_operands + 1);
  for (uint32_t i = 0; i < op->num_operands; i++) {
    in[i] = shard_interp_lookup(f, op->operands[i].value);
    if (!in[i]) return shard_interp_error(p, op, "operand #%u has no value", i);
  }
  p->world->slots[p->index] = in;
  p->world->slot_counts[p->index] = op->num_operands;
  *ops = in;
  return interp_barrier(p, op);
}

static shard_tensor *S_peer(interp_proc *p, int64_t member, uint32_t i) { return p->world->slots[member][i]; }

/* ---- rounding bookkeeping (interp_rounding.c) ------------------------------------ */

static bool S_reducer_is_add(const shard_op *op) {
  shard_block *b = op->num_regions ? op->regions[0].first : NULL;
  shard_op *first = b ? b->first : NULL;
  return first && !strcmp(first->name, "stablehlo.add") && first->next && first->next == b->last &&
         first->operands[0].value == &b->args[0] && first->operands[1].value == &b->args[1];
}

static double S_max_abs(const shard_tensor *t) {
  double m = 0;
  for (int64_t i = 0; i < t->num; i++)
    if (fabs(t->floats[i]) > m) m = fabs(t->floats[i]);
  return m;
}

/* Result `out` (operand `i` of every member) of a collective that only moves
 * elements: the worst bound and terms of the members. */
static void S_track_moved(interp_proc *p, const int64_t *members, int64_t count, uint32_t i, shard_tensor *out) {
  if (!p->world->track_rounding || out->kind != SHARD_ELEM_FLOAT) return;
  bool sums = true;
  out->sum_int = true;
  for (int64_t k = 0; k < count; k++) {
    const shard_tensor *t = p->world->slots[members[k]][i];
    if (t->bound > out->bound) out->bound = t->bound;
    sums &= t->sum_terms > 0;
    if (t->sum_terms > out->sum_terms) out->sum_terms = t->sum_terms;
    if (t->sum_mag > out->sum_mag) out->sum_mag = t->sum_mag;
    out->sum_int &= t->sum_int;
  }
  if (!sums) out->sum_terms = 0, out->sum_mag = 0, out->sum_int = false;
}

/* Result `out` of a sum across the members of operand i: the terms of all
 * members, and the bound of adding them in another order than one device
 * would (2 gamma(N-1) sum|x|, 0 when every partial sum is an exact
 * integer). Reductions by max/min are exact in any order. */
static void S_track_sum(interp_proc *p, const shard_op *op, const int64_t *members, int64_t count, uint32_t i,
                        shard_tensor *out) {
  if (!p->world->track_rounding || out->kind != SHARD_ELEM_FLOAT) return;
  double in_bound = 0, mag = 0;
  int64_t terms = 0;
  bool ints = true;
  for (int64_t k = 0; k < count; k++) {
    const shard_tensor *t = p->world->slots[members[k]][i];
    in_bound += t->bound;
    if (t->sum_terms > 0) {
      terms += t->sum_terms, mag += t->sum_mag, ints &= t->sum_int;
    } else {
      terms += 1, mag += S_max_abs(t);
      for (int64_t e = 0; e < t->num && ints; e++) ints = t->floats[e] == floor(t->floats[e]);
    }
  }
  if (!S_reducer_is_add(op)) {
    out->bound = in_bound > 0 ? INFINITY : 0;
    return;
  }
  out->sum_terms = terms, out->sum_mag = mag, out->sum_int = ints;
  double u = shard_interp_unit_roundoff(out);
  int p_bits = (int)-log2(u); /* integers up to 2^p are exact */
  if (mag > shard_float_max_finite(out->fmt)) {
    out->bound = INFINITY; /* a partial sum may overflow or saturate: no bound */
  } else if (ints && mag <= ldexp(1.0, p_bits)) {
    out->bound = in_bound; /* every partial sum exact */
  } else {
    double k = (double)(terms - 1) * u;
    out->bound = in_bound + 2 * k / (1 - k) * mag;
  }
}

static bool S_all_gather(interp_proc *p, interp_frame *f, shard_op *op, shard_tensor **res) {
  int64_t dim, *members, count, pos;
  if (!shard_interp_attr_int(p, op, "all_gather_dim", &dim)) return false;
  if (!S_group(p, op, false, &members, &count, &pos)) return false;
  for (uint32_t i = 0; i < op->num_results; i++) {
    res[i] = shard_interp_tensor_like(p, op->results[i].type, op);
    if (!res[i]) return false;
    int64_t *off = INTERP_RANK_ARRAY(p, op, int64_t);
    for (int64_t k = 0; k < count; k++) {
      const shard_tensor *part = S_peer(p, members[k], i);
      if (dim < 0 || (uint32_t)dim >= part->type->rank || part->type->rank != res[i]->type->rank ||
          part->type->dims[dim] * count != res[i]->type->dims[dim])
        return shard_interp_error(p, op, "all_gather result shape does not match %lld gathered operands",
                                  (long long)count);
      shard_interp_insert(res[i], off, part);
      off[dim] += part->type->dims[dim];
    }
    S_track_moved(p, members, count, i, res[i]);
  }
  return true;
}

static bool S_all_reduce(interp_proc *p, interp_frame *f, shard_op *op, shard_tensor **res) {
  int64_t *members, count, pos;
  if (!S_group(p, op, false, &members, &count, &pos)) return false;
  if (op->num_regions != 1) return shard_interp_error(p, op, "all_reduce needs a computation region");
  for (uint32_t i = 0; i < op->num_results; i++) {
    res[i] = shard_interp_tensor_copy(p->arena, S_peer(p, members[0], i));
    for (int64_t k = 1; k < count; k++) {
      const shard_tensor *other = S_peer(p, members[k], i);
      for (int64_t e = 0; e < res[i]->num; e++)
        if (!shard_interp_reduce_elems(p, f, &op->regions[0], res[i], e, other, e, res[i], e)) return false;
    }
    res[i]->bound = 0, res[i]->sum_terms = 0; /* the copy took member 0's books */
    S_track_sum(p, op, members, count, i, res[i]);
  }
  return true;
}

/* collective_reduce: all_reduce's sum, kept by the group's first member
 * (its root); the other members get zeros. */
static bool S_collective_reduce(interp_proc *p, interp_frame *f, shard_op *op, shard_tensor **res) {
  int64_t *members, count, pos;
  if (!S_group(p, op, false, &members, &count, &pos)) return false;
  if (op->num_regions != 1) return shard_interp_error(p, op, "collective_reduce needs a computation region");
  if (pos != 0) {
    for (uint32_t i = 0; i < op->num_results; i++)
      if (!(res[i] = shard_interp_tensor_like(p, op->results[i].type, op))) return false;
    return true;
  }
  return S_all_reduce(p, f, op, res);
}

/* collective_broadcast: every member of a group gets the operand of the
 * group's first member (with has_dynamic_root, of the member the last
 * operand names, one root per result); a device in no group gets zeros.
 * Groups as for collective_permute (cross_replica, or cross_partition with
 * a channel). */
static bool S_collective_broadcast(interp_proc *p, interp_frame *f, shard_op *op, shard_tensor **res) {
  (void)f;
  int64_t *members, count, pos;
  if (!S_group_of(p, op, true, true, &members, &count, &pos)) return false;
  const shard_tensor *roots = NULL;
  if (shard_op_attr(op, "has_dynamic_root")) {
    roots = S_peer(p, p->index, op->num_operands - 1);
    if (op->num_operands != op->num_results + 1 || roots->kind == SHARD_ELEM_FLOAT ||
        roots->kind == SHARD_ELEM_COMPLEX || roots->num != op->num_results)
      return shard_interp_error(p, op, "collective_broadcast with has_dynamic_root takes one integer root per result");
  }
  for (uint32_t i = 0; i < op->num_results; i++) {
    if (count == 0) {
      if (!(res[i] = shard_interp_tensor_like(p, op->results[i].type, op))) return false;
      continue;
    }
    int64_t root = roots ? roots->ints[i] : 0;
    if (root < 0 || root >= count)
      return shard_interp_error(p, op, "collective_broadcast root %lld is not a position in a group of %lld",
                                (long long)root, (long long)count);
    const shard_tensor *src = S_peer(p, members[root], i);
    if (src->num != shard_type_num_elements(op->results[i].type))
      return shard_interp_error(p, op, "collective_broadcast source has another shape");
    res[i] = shard_interp_tensor_copy(p->arena, src); /* with the source's books */
  }
  return true;
}

static bool S_reduce_scatter(interp_proc *p, interp_frame *f, shard_op *op, shard_tensor **res) {
  int64_t dim, *members, count, pos;
  if (!shard_interp_attr_int(p, op, "scatter_dimension", &dim)) return false;
  if (!S_group(p, op, false, &members, &count, &pos)) return false;
  shard_tensor *sum = shard_interp_tensor_copy(p->arena, S_peer(p, members[0], 0));
  for (int64_t k = 1; k < count; k++) {
    const shard_tensor *other = S_peer(p, members[k], 0);
    for (int64_t e = 0; e < sum->num; e++)
      if (!shard_interp_reduce_elems(p, f, &op->regions[0], sum, e, other, e, sum, e)) return false;
  }
  uint32_t rank = sum->type->rank;
  if (dim < 0 || (uint32_t)dim >= rank || sum->type->dims[dim] % count)
    return shard_interp_error(p, op, "reduce_scatter dimension is not divisible by the group size");
  int64_t *start = INTERP_ARRAY(p, int64_t, rank), *sizes = INTERP_ARRAY(p, int64_t, rank);
  memcpy(sizes, sum->type->dims, sizeof(int64_t) * rank);
  sizes[dim] /= count;
  start[dim] = sizes[dim] * pos;
  res[0] = shard_interp_extract(p, sum, start, sizes);
  if (res[0]) S_track_sum(p, op, members, count, 0, res[0]);
  return res[0] != NULL;
}

static bool S_all_to_all(interp_proc *p, interp_frame *f, shard_op *op, shard_tensor **res) {
  int64_t split_dim, concat_dim, split_count, *members, count, pos;
  if (!shard_interp_attr_int(p, op, "split_dimension", &split_dim) ||
      !shard_interp_attr_int(p, op, "concat_dimension", &concat_dim) ||
      !shard_interp_attr_int(p, op, "split_count", &split_count))
    return false;
  if (!S_group(p, op, true, &members, &count, &pos)) return false;
  if (count != split_count)
    return shard_interp_error(p, op, "split_count %lld differs from the group size %lld", (long long)split_count,
                              (long long)count);
  for (uint32_t i = 0; i < op->num_results; i++) {
    res[i] = shard_interp_tensor_like(p, op->results[i].type, op);
    if (!res[i]) return false;
    int64_t *off = INTERP_RANK_ARRAY(p, op, int64_t);
    for (int64_t k = 0; k < count; k++) {
      const shard_tensor *src = S_peer(p, members[k], i);
      uint32_t rank = src->type->rank;
      if (split_dim < 0 || (uint32_t)split_dim >= rank || concat_dim < 0 || (uint32_t)concat_dim >= rank ||
          src->type->dims[split_dim] % count)
        return shard_interp_error(p, op, "all_to_all dimensions do not fit the operand");
      int64_t *start = INTERP_ARRAY(p, int64_t, rank), *sizes = INTERP_ARRAY(p, int64_t, rank);
      memcpy(sizes, src->type->dims, sizeof(int64_t) * rank);
      sizes[split_dim] /= count;
      start[split_dim] = sizes[split_dim] * pos;
      shard_tensor *piece = shard_interp_extract(p, src, start, sizes);
      if (!piece) return false;
      shard_interp_insert(res[i], off, piece);
      off[concat_dim] += piece->type->dims[concat_dim];
    }
    S_track_moved(p, members, count, i, res[i]);
  }
  return true;
}

static bool S_collective_permute(interp_proc *p, interp_frame *f, shard_op *op, shard_tensor **res) {
  interp_world *w = p->world;
  group_mode mode = S_mode(op, true);
  const shard_attr *pairs_attr = shard_op_attr(op, "source_target_pairs");
  shard_tensor *pairs;
  const char *err;
  if (!pairs_attr || pairs_attr->kind != SHARD_ATTR_DENSE ||
      !shard_tensor_from_dense(p->arena, pairs_attr->u.dense.payload, pairs_attr->u.dense.type, &pairs, &err))
    return shard_interp_error(p, op, "collective_permute needs dense source_target_pairs");
  int64_t mine = mode == GROUPS_CROSS_PARTITION ? p->partition_id : p->replica_id;
  res[0] = shard_interp_tensor_like(p, op->results[0].type, op);
  if (!res[0]) return false;
  for (int64_t k = 0; k + 1 < pairs->num; k += 2) {
    if (pairs->ints[k + 1] != mine) continue;
    int64_t src = pairs->ints[k];
    int64_t member = mode == GROUPS_CROSS_PARTITION ? p->replica_id * w->num_partitions + src
                                                    : src * w->num_partitions + p->partition_id;
    if (src < 0 || member >= w->num_procs)
      return shard_interp_error(p, op, "source %lld is out of range", (long long)src);
    const shard_tensor *from = S_peer(p, member, 0);
    if (from->num != res[0]->num) return shard_interp_error(p, op, "collective_permute source has another shape");
    res[0] = shard_interp_tensor_copy(p->arena, from); /* with the source's books */
    break;
  }
  return true;
}

bool shard_interp_exec_collective(interp_proc *p, interp_frame *f, shard_op *op, bool *handled) {
  typedef bool (*collective_fn)(interp_proc *, interp_frame *, shard_op *, shard_tensor **);
  static const struct {
    const char *name;
    collective_fn fn;
  } table[] = {
      {"stablehlo.all_gather", S_all_gather},
      {"stablehlo.all_reduce", S_all_reduce},
      {"stablehlo.all_to_all", S_all_to_all},
      {"stablehlo.collective_broadcast", S_collective_broadcast},
      {"stablehlo.collective_permute", S_collective_permute},
      {"stablehlo.reduce_scatter", S_reduce_scatter},
      {"stablehlo.collective_reduce", S_collective_reduce},
  };
  collective_fn fn = NULL;
  for (size_t i = 0; i < sizeof table / sizeof *table; i++)
    if (strcmp(op->name, table[i].name) == 0) fn = table[i].fn;
  *handled = fn != NULL;
  if (!fn) return true;
  shard_tensor **ops;
  if (!S_deposit(p, f, op, &ops)) return false;
  shard_tensor **res = SHARD_NEW_ARRAY(p->arena, shard_tensor *, op->num_results + 1);
  bool ok = fn(p, f, op, res);
  /* the second barrier: peers may still read our slot */
  if (!interp_barrier(p, op)) return false;
  if (!ok) return false;
  for (uint32_t i = 0; i < op->num_results; i++) {
    if (!shard_type_equal(res[i]->type, op->results[i].type) &&
        res[i]->num != shard_type_num_elements(op->results[i].type))
      return shard_interp_error(p, op, "result #%u has %lld elements where %s is declared", i, (long long)res[i]->num,
                                op->results[i].type->text);
    if (!shard_type_equal(res[i]->type, op->results[i].type)) res[i]->type = op->results[i].type;
    shard_interp_bind(f, &op->results[i], res[i]);
  }
  return true;
}

/* ---- send, recv, infeed -------------------------------------------------------------- */

/* StableHLO's reference interpreter (ProcessGrid::send/recv) pairs a send
 * and a recv of one channel as a rendezvous: recv announces that it is
 * ready and waits for a message; send waits for a ready receiver, hands it
 * its values and goes on. A channel holds one message at a time. Where the
 * reference gives up after 3 seconds ("send timed out", "recv timed out"),
 * shard says at once when no process can go on any more (every process that
 * has not finished waits in a send or recv that nothing will satisfy), and
 * keeps the time limit for waits on processes stuck elsewhere. */
#define INTERP_P2P_TIMEOUT_SECONDS 3
enum { INTERP_WAIT_SEND = 1, INTERP_WAIT_RECV = 2 };

typedef struct interp_channel {
  int64_t id;
  int64_t ready; /* receivers waiting for a message */
  bool full; /* msg holds a message no receiver has taken */
  shard_tensor **msg; /* in the world's mail arena */
  uint32_t num_msg;
} interp_channel;

static interp_channel *S_chan(interp_world *w, int64_t id) {
  for (uint32_t i = 0; i < w->num_channels; i++)
    if (w->channels[i].id == id) return &w->channels[i];
  if (w->num_channels == w->cap_channels) {
    w->cap_channels = w->cap_channels ? 2 * w->cap_channels : 4;
    w->channels = shard_xrealloc(w->channels, w->cap_channels * sizeof *w->channels);
  }
  interp_channel *c = &w->channels[w->num_channels++];
  memset(c, 0, sizeof *c);
  c->id = id;
  return c;
}

static bool S_can_send(interp_world *w, int64_t ch) {
  interp_channel *c = S_chan(w, ch);
  return c->ready > 0 && !c->full;
}

static bool S_can_recv(interp_world *w, int64_t ch) { return S_chan(w, ch)->full; }

/* Under w->mu: no process can go on (see above). */
static bool S_p2p_stuck(interp_world *w) {
  int64_t waiting = 0;
  for (int64_t k = 0; k < w->num_procs; k++) {
    if (!w->p2p_wait[k]) continue;
    waiting++;
    if (w->p2p_wait[k] == INTERP_WAIT_SEND ? S_can_send(w, w->p2p_wait_ch[k]) : S_can_recv(w, w->p2p_wait_ch[k]))
      return false;
  }
  return waiting + w->finished >= w->num_procs;
}

/* Under w->mu: waits until `cond` holds for this process. 1: it holds, 0:
 * the run was aborted elsewhere, -1: it never will (stuck or timed out). */
static int S_p2p_wait(interp_proc *p, int kind, int64_t ch) {
  interp_world *w = p->world;
  struct timespec deadline;
  clock_gettime(CLOCK_REALTIME, &deadline);
  deadline.tv_sec += INTERP_P2P_TIMEOUT_SECONDS;
  w->p2p_wait[p->index] = kind;
  w->p2p_wait_ch[p->index] = ch;
  int rc = 1;
  for (;;) {
    if (kind == INTERP_WAIT_SEND ? S_can_send(w, ch) : S_can_recv(w, ch)) break;
    /* every process stuck says so (in device order), not only the one that
     * noticed first */
    if (w->p2p_deadlock) {
      rc = -1;
      break;
    }
    if (w->aborted) {
      rc = 0;
      break;
    }
    if (S_p2p_stuck(w)) {
      w->p2p_deadlock = true;
      rc = -1;
      break;
    }
    if (pthread_cond_timedwait(&w->cv, &w->mu, &deadline) != 0) {
      /* the deadline passed: one last look */
      if (!(kind == INTERP_WAIT_SEND ? S_can_send(w, ch) : S_can_recv(w, ch))) rc = w->aborted ? 0 : -1;
      break;
    }
  }
  w->p2p_wait[p->index] = 0;
  pthread_cond_broadcast(&w->cv); /* the others re-judge whether all are stuck */
  return rc;
}

static bool S_p2p_channel(interp_proc *p, const shard_op *op, int64_t *ch) {
  const shard_attr *a = shard_op_attr(op, "channel_handle");
  if (!a) return shard_interp_error(p, op, "'%s' needs a channel_handle", op->name);
  *ch = S_channel(op);
  return true;
}

static bool S_is_token_type(const shard_type *t) {
  return t && t->kind == SHARD_TYPE_OTHER && !strcmp(t->text, "!stablehlo.token");
}

/* A token result: no elements of its own. */
static void S_bind_token(interp_proc *p, interp_frame *f, const shard_op *op, uint32_t i) {
  shard_tensor *t = SHARD_NEW(p->arena, shard_tensor);
  memset(t, 0, sizeof *t);
  t->type = op->results[i].type;
  t->kind = SHARD_ELEM_BOOL;
  shard_interp_bind(f, &op->results[i], t);
}

// stablehlo.send(inputs..., token) {channel_handle} -> token
static bool S_send(interp_proc *p, interp_frame *f, shard_op *op) {
  int64_t ch = 0;
  if (!S_p2p_channel(p, op, &ch)) return false;
  if (op->num_operands < 1 || op->num_results != 1 || !S_is_token_type(op->results[0].type))
    return shard_interp_error(p, op, "'stablehlo.send' takes values and a token and gives a token");
  uint32_t n = op->num_operands - 1;
  shard_tensor **in = SHARD_NEW_ARRAY(p->arena, shard_tensor *, n + 1);
  for (uint32_t i = 0; i <= n; i++) {
    shard_tensor *t = shard_interp_operand(p, f, op, i);
    if (!t) return false;
    if (i < n) in[i] = t;
  }
  interp_world *w = p->world;
  pthread_mutex_lock(&w->mu);
  int rc = S_p2p_wait(p, INTERP_WAIT_SEND, ch);
  if (rc == 1) {
    interp_channel *c = S_chan(w, ch);
    if (!w->mail) w->mail = shard_arena_new();
    c->msg = SHARD_NEW_ARRAY(w->mail, shard_tensor *, n + 1);
    for (uint32_t i = 0; i < n; i++) {
      c->msg[i] = shard_interp_tensor_copy(w->mail, in[i]);
      c->msg[i]->type = op->operands[i].value->type; /* the module's, not a scratch arena's */
    }
    c->num_msg = n;
    c->full = true;
    c->ready--;
    pthread_cond_broadcast(&w->cv);
  }
  pthread_mutex_unlock(&w->mu);
  if (rc == 0) {
    p->failed = true;
    return false;
  }
  if (rc < 0) return shard_interp_error(p, op, "send timed out: no process receives on channel %lld", (long long)ch);
  S_bind_token(p, f, op, 0);
  return true;
}

// stablehlo.recv(token) {channel_handle} -> (results..., token)
static bool S_recv(interp_proc *p, interp_frame *f, shard_op *op) {
  int64_t ch = 0;
  if (!S_p2p_channel(p, op, &ch)) return false;
  if (op->num_operands != 1 || op->num_results < 1 || !S_is_token_type(op->results[op->num_results - 1].type))
    return shard_interp_error(p, op, "'stablehlo.recv' takes a token and gives values and a token");
  if (!shard_interp_operand(p, f, op, 0)) return false;
  uint32_t n = op->num_results - 1;
  interp_world *w = p->world;
  shard_tensor **got = SHARD_NEW_ARRAY(p->arena, shard_tensor *, n + 1);
  uint32_t num_msg = 0;
  pthread_mutex_lock(&w->mu);
  S_chan(w, ch)->ready++;
  pthread_cond_broadcast(&w->cv);
  int rc = S_p2p_wait(p, INTERP_WAIT_RECV, ch);
  interp_channel *c = S_chan(w, ch);
  if (rc == 1) {
    num_msg = c->num_msg;
    for (uint32_t i = 0; i < n && i < num_msg; i++) got[i] = shard_interp_tensor_copy(p->arena, c->msg[i]);
    c->full = false;
    pthread_cond_broadcast(&w->cv);
  } else {
    c->ready--; /* no longer waiting */
  }
  pthread_mutex_unlock(&w->mu);
  if (rc == 0) {
    p->failed = true;
    return false;
  }
  if (rc < 0) return shard_interp_error(p, op, "recv timed out: no process sends on channel %lld", (long long)ch);
  if (num_msg != n)
    return shard_interp_error(p, op, "recv on channel %lld expects %u values but the send gave %u", (long long)ch, n,
                              num_msg);
  for (uint32_t i = 0; i < n; i++) {
    if (!shard_type_equal(got[i]->type, op->results[i].type))
      return shard_interp_error(p, op, "recv on channel %lld got a %s where result #%u is a %s", (long long)ch,
                                got[i]->type->text, i, op->results[i].type->text);
    got[i]->type = op->results[i].type;
    shard_interp_bind(f, &op->results[i], got[i]);
  }
  S_bind_token(p, f, op, n);
  return true;
}

// stablehlo.infeed(token) -> (results..., token): the reference interpreter
// calls the next function of run_parallel's `infeed` list (one queue for the
// whole run, taken in order by whichever process asks first) and returns
// its results.
static bool S_infeed(interp_proc *p, interp_frame *f, shard_op *op) {
  interp_world *w = p->world;
  if (op->num_operands != 1 || op->num_results < 1 || !S_is_token_type(op->results[op->num_results - 1].type))
    return shard_interp_error(p, op, "'stablehlo.infeed' takes a token and gives values and a token");
  if (!shard_interp_operand(p, f, op, 0)) return false;
  if (!w->infeed) return shard_interp_error(p, op, "infeed is only supported when run via interpreter.run_parallel");
  const shard_attr *ref = NULL;
  uint32_t pos;
  pthread_mutex_lock(&w->mu);
  pos = w->infeed_next;
  if (pos < w->infeed->u.array.num) ref = w->infeed->u.array.elems[w->infeed_next++];
  pthread_mutex_unlock(&w->mu);
  if (!ref)
    return shard_interp_error(p, op, "the infeed queue is empty: run_parallel's 'infeed' lists %u functions",
                              w->infeed->u.array.num);
  shard_op *fn = ref->kind == SHARD_ATTR_SYMREF && ref->u.symref.num == 1
                     ? shard_module_lookup_symbol(w->module, ref->u.symref.path[0])
                     : NULL;
  if (!fn || strcmp(fn->name, "func.func") != 0 || !fn->num_regions || !fn->regions[0].first)
    return shard_interp_error(p, op, "infeed entry #%u is not a function of this module with a body", pos);
  if (fn->regions[0].first->num_args != 0) return shard_interp_error(p, op, "infeed function #%u takes arguments", pos);
  uint32_t n = op->num_results - 1;
  shard_tensor **res = SHARD_NEW_ARRAY(p->arena, shard_tensor *, n + 1);
  if (!shard_interp_run_region(p, NULL, &fn->regions[0], NULL, 0, res, n)) return false;
  for (uint32_t i = 0; i < n; i++) {
    if (!shard_type_equal(res[i]->type, op->results[i].type))
      return shard_interp_error(p, op, "infeed function #%u gives a %s where result #%u is a %s", pos,
                                res[i]->type->text, i, op->results[i].type->text);
    shard_interp_bind(f, &op->results[i], res[i]);
  }
  S_bind_token(p, f, op, n);
  return true;
}

bool shard_interp_exec_p2p(interp_proc *p, interp_frame *f, shard_op *op, bool *handled) {
  *handled = true;
  if (!strcmp(op->name, "stablehlo.send")) return S_send(p, f, op);
  if (!strcmp(op->name, "stablehlo.recv")) return S_recv(p, f, op);
  if (!strcmp(op->name, "stablehlo.infeed")) return S_infeed(p, f, op);
  *handled = false;
  return true;
}
