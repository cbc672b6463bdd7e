/* Static per-device memory of a sharded program (memory.h).
 *
 * A function is numbered into program points: its entry, then every op in
 * pre-order, and after an op with regions one more point for the end of
 * those regions, where the op's results are defined. Each value gets
 * [def, end]: def where it is defined, end its last use, pushed to the end
 * of a while loop's regions when the use is inside the loop (the loop
 * reads it every iteration). Values that share a buffer (a loop's state,
 * the operands of a manual/named computation and its body's arguments, a
 * donated argument and its result) are joined with union-find; a buffer's
 * range is the union of theirs. A device class's live bytes at point p are
 * the bytes of the buffers it holds whose range contains p, summed with a
 * difference array; the peak is the first maximum. */
#include "cost/memory.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cost/cost.h"
#include "ir/call_graph.h"
#include "propagate/propagate.h"
#include "support/ptrmap.h"

/* ---- device sets ------------------------------------------------------------------- */

typedef struct device_set {
  int64_t *ids; /* sorted; NULL for set 0 (every device) */
  int64_t num;
} device_set;

/* What the device classes of a function need besides its buffers. */
typedef struct sig_value {
  int64_t bytes;
  uint32_t set;
  bool argument; /* else a result */
  bool aliased; /* a result sharing an argument's buffer */
} sig_value;

typedef struct fn_data {
  sig_value *sig;
  uint32_t num_sig;
  const shard_memory_function **callees; /* per buffer: a call's callee, or NULL */
  int64_t *class_peak, *class_own; /* per global class: peak, peak above args+results */
} fn_data;

typedef struct analysis {
  shard_memory_report *r;
  const shard_module *m;
  const shard_memory_options *opts;
  shard_diag_engine *de;
  SHARD_VEC(device_set) sets;
  int64_t num_devices;
  bool failed;
  fn_data *fns; /* parallel to r->functions */
  /* global device classes */
  uint64_t *class_masks;
  int64_t **class_devices;
  int64_t *class_sizes;
  uint32_t num_classes;
} analysis;

static int cmp_i64(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return x < y ? -1 : x > y;
}

/* The index of the device set of `mesh` (0: every device). */
static uint32_t device_set_of(analysis *an, const shard_mesh *mesh, shard_span where) {
  if (!mesh || shard_mesh_is_empty(mesh)) return 0;
  int64_t n = mesh->device_ids ? (int64_t)mesh->num_device_ids : shard_mesh_num_devices(mesh);
  if (n < 0 || n > SHARD_MAX_MESH_DEVICES) {
    if (!an->failed)
      shard_error(an->de, mesh->span.src ? mesh->span : where,
                  "the memory model handles meshes of at most %lld devices", (long long)SHARD_MAX_MESH_DEVICES);
    an->failed = true;
    return 0;
  }
  int64_t *ids = shard_xmalloc(sizeof(int64_t) * (size_t)(n ? n : 1));
  for (int64_t i = 0; i < n; i++) ids[i] = mesh->device_ids ? mesh->device_ids[i] : i;
  qsort(ids, (size_t)n, sizeof *ids, cmp_i64);
  for (uint32_t s = 1; s < an->sets.len; s++)
    if (an->sets.items[s].num == n && memcmp(an->sets.items[s].ids, ids, sizeof(int64_t) * (size_t)n) == 0) {
      free(ids);
      return s;
    }
  if (n && (ids[0] < 0 || ids[n - 1] >= SHARD_MAX_MESH_DEVICES)) {
    if (!an->failed)
      shard_error(an->de, mesh->span.src ? mesh->span : where, "the memory model handles device ids from 0 to %lld",
                  (long long)SHARD_MAX_MESH_DEVICES - 1);
    an->failed = true;
    free(ids);
    return 0;
  }
  if (an->sets.len == SHARD_MEMORY_MAX_DEVICE_SETS) {
    if (!an->failed)
      shard_error(an->de, mesh->span.src ? mesh->span : where,
                  "the memory model handles at most %d distinct device sets (meshes)",
                  SHARD_MEMORY_MAX_DEVICE_SETS - 1);
    an->failed = true;
    free(ids);
    return 0;
  }
  if (n && ids[n - 1] + 1 > an->num_devices) an->num_devices = ids[n - 1] + 1;
  device_set s = {ids, n};
  SHARD_VEC_PUSH(an->sets, s);
  return an->sets.len - 1;
}

/* ---- values ------------------------------------------------------------------------ */

typedef struct vinfo {
  const shard_value *v;
  uint32_t def, end;
  int64_t bytes, padding;
  uint32_t set;
  const char *shape;
  bool argument, result, sized;
  uint32_t parent; /* union-find */
  const shard_memory_function *callee; /* a call's callee peak (no value) */
  const char *label; /* name of a buffer without value */
  uint32_t point; /* of a buffer without value */
} vinfo;

typedef struct op_points {
  uint32_t start, end;
} op_points;

typedef struct fn_builder {
  analysis *an;
  shard_memory_function *f;
  SHARD_VEC(vinfo) vals;
  SHARD_VEC(shard_memory_point) points;
  shard_ptrmap value_index; /* value -> index + 1 */
  shard_ptrmap op_index; /* op -> index into ops + 1 */
  SHARD_VEC(op_points) ops;
  SHARD_VEC(const shard_operand *) uses;
} fn_builder;

static void shape_text(shard_buf *b, const int64_t *dims, uint32_t rank, const char *elem) {
  for (uint32_t i = 0; i < rank; i++) shard_buf_printf(b, "%lldx", (long long)dims[i]);
  shard_buf_puts(b, elem);
}

/* Bytes on one device of a value of type t with sharding s. */
static void value_size(fn_builder *fb, const shard_value *v, vinfo *vi) {
  const shard_type *t = v->type;
  vi->sized = true;
  if (!t || t->kind == SHARD_TYPE_OTHER || t->kind == SHARD_TYPE_FUNCTION) {
    vi->shape = t ? t->text : "?";
    return;
  }
  if (t->kind == SHARD_TYPE_TUPLE) {
    double total = 0;
    for (uint32_t i = 0; i < t->num_inputs; i++) {
      const shard_type *e = t->inputs[i];
      double b = e && e->kind == SHARD_TYPE_TENSOR ? shard_tensor_bytes(e->dims, e->rank, e->elem) : 0;
      if (b < 0) {
        vi->sized = false;
        b = 0;
      }
      total += b;
    }
    vi->bytes = (int64_t)total;
    vi->shape = t->text;
    return;
  }
  if (t->kind != SHARD_TYPE_TENSOR || !shard_type_is_static_tensor(t) || !shard_elem_bits(t->elem)) {
    vi->sized = false;
    vi->shape = t->text;
    return;
  }
  analysis *an = fb->an;
  int64_t *local = shard_xmalloc(sizeof(int64_t) * (t->rank ? t->rank : 1));
  if (t->rank) memcpy(local, t->dims, sizeof(int64_t) * t->rank);
  const shard_tensor_sharding *s = shard_propagation_value_sharding(an->r->arena, v);
  const shard_mesh *mesh = s ? shard_module_sharding_mesh(an->m, s) : NULL;
  double shards = 1;
  if (s && mesh) {
    vi->set = device_set_of(an, mesh, v->def ? v->def->span : shard_value_span(v));
    if (!an->opts->types_are_local && s->rank == t->rank) {
      shard_sharding_local_shape(s, mesh, t->dims, local);
      for (uint32_t d = 0; d < s->rank; d++) {
        int64_t k = shard_sharding_dim_size(s, d, mesh);
        shards *= k > 0 ? (double)k : 1;
      }
    }
  }
  double bytes = shard_tensor_bytes(local, t->rank, t->elem);
  double global = shard_tensor_bytes(t->dims, t->rank, t->elem);
  vi->bytes = bytes > 0 ? (int64_t)bytes : 0;
  double exact = global > 0 ? global / shards : 0;
  vi->padding = bytes > exact + 0.5 && !an->opts->types_are_local ? (int64_t)(bytes - ceil(exact)) : 0;
  if (vi->padding < 0) vi->padding = 0;
  shard_buf b;
  shard_buf_init(&b);
  shape_text(&b, local, t->rank, t->elem);
  vi->shape = shard_arena_strdup(an->r->arena, shard_buf_str(&b));
  shard_buf_free(&b);
  free(local);
}

static uint32_t push_point(fn_builder *fb, const shard_op *op, bool end) {
  shard_memory_point p = {op, end};
  SHARD_VEC_PUSH(fb->points, p);
  return fb->points.len - 1;
}

static uint32_t add_value(fn_builder *fb, const shard_value *v, uint32_t def) {
  vinfo vi;
  memset(&vi, 0, sizeof vi);
  vi.v = v;
  vi.def = vi.end = def;
  vi.parent = fb->vals.len;
  value_size(fb, v, &vi);
  SHARD_VEC_PUSH(fb->vals, vi);
  shard_ptrmap_put(&fb->value_index, v, fb->vals.len);
  return fb->vals.len - 1;
}

/* A buffer without value, live at one point only. */
static void add_scratch(fn_builder *fb, uint32_t point, const char *label, int64_t bytes, uint32_t set,
                        const shard_memory_function *callee) {
  vinfo vi;
  memset(&vi, 0, sizeof vi);
  vi.def = vi.end = vi.point = point;
  vi.parent = fb->vals.len;
  vi.bytes = bytes;
  vi.set = set;
  vi.sized = true;
  vi.label = label;
  vi.callee = callee;
  vi.shape = "";
  SHARD_VEC_PUSH(fb->vals, vi);
}

static bool value_index(const fn_builder *fb, const shard_value *v, uint32_t *out) {
  uint64_t k = shard_ptrmap_get(&fb->value_index, v);
  if (!k) return false;
  *out = (uint32_t)(k - 1);
  return true;
}

static const op_points *points_of(const fn_builder *fb, const shard_op *op) {
  uint64_t k = shard_ptrmap_get(&fb->op_index, op);
  return k ? &fb->ops.items[k - 1] : NULL;
}

static shard_memory_function *function_of(shard_memory_report *r, const shard_op *func) {
  for (uint32_t i = 0; i < r->num_functions; i++)
    if (r->functions[i].func == func) return &r->functions[i];
  return NULL;
}

/* Padding a collective needs beyond its operand and result: an all_gather
 * gathers every member's padded piece, a reduce_scatter scatters a padded
 * operand. */
static void collective_scratch(fn_builder *fb, const shard_op *op, uint32_t point) {
  shard_collective_kind kind;
  if (fb->an->opts->types_are_local || !shard_collective_kind_from_op(op->name, &kind) ||
      (kind != SHARD_COLL_ALL_GATHER && kind != SHARD_COLL_REDUCE_SCATTER) || op->num_operands < 1 ||
      op->num_results < 1)
    return;
  const char *attr = kind == SHARD_COLL_ALL_GATHER ? "gathering_axes" : "reduce_scatter_axes";
  const shard_attr *a = shard_op_attr(op, attr);
  const shard_attr *out = shard_op_attr(op, "out_sharding");
  if (!a || a->kind != SHARD_ATTR_SDY_AXIS_LISTS || !out || out->kind != SHARD_ATTR_SDY_SHARDING) return;
  const shard_mesh *mesh = shard_module_sharding_mesh(fb->an->m, out->u.sharding);
  if (!mesh) return;
  double group = 1;
  for (uint32_t d = 0; d < a->u.axis_lists.num; d++) {
    int64_t k = shard_axes_product(a->u.axis_lists.dims[d].axes, a->u.axis_lists.dims[d].num, mesh);
    group *= k > 0 ? (double)k : 1;
  }
  uint32_t in, res;
  if (!value_index(fb, op->operands[0].value, &in) || !value_index(fb, &op->results[0], &res)) return;
  const vinfo *vin = &fb->vals.items[in], *vout = &fb->vals.items[res];
  double full = kind == SHARD_COLL_ALL_GATHER ? (double)vin->bytes * group : (double)vout->bytes * group;
  double have = kind == SHARD_COLL_ALL_GATHER ? (double)vout->bytes : (double)vin->bytes;
  if (full > have)
    add_scratch(fb, point, kind == SHARD_COLL_ALL_GATHER ? "padded gather buffer" : "padded scatter buffer",
                (int64_t)(full - have), vout->set, NULL);
}

static void walk_block(fn_builder *fb, const shard_block *blk, uint32_t def);

static void walk_op(fn_builder *fb, const shard_op *op) {
  uint32_t start = push_point(fb, op, false);
  op_points opp = {start, start};
  SHARD_VEC_PUSH(fb->ops, opp);
  uint32_t oi = fb->ops.len - 1;
  shard_ptrmap_put(&fb->op_index, op, fb->ops.len);
  for (uint32_t i = 0; i < op->num_operands; i++) SHARD_VEC_PUSH(fb->uses, &op->operands[i]);
  for (uint32_t r = 0; r < op->num_regions; r++)
    for (const shard_block *blk = op->regions[r].first; blk; blk = blk->next) walk_block(fb, blk, start);
  uint32_t res_def = start;
  if (op->num_regions) {
    res_def = push_point(fb, op, true);
    fb->ops.items[oi].end = res_def;
  }
  for (uint32_t i = 0; i < op->num_results; i++) add_value(fb, &op->results[i], res_def);
  collective_scratch(fb, op, start);
  if (strcmp(op->name, "func.call") == 0) {
    const shard_op *callee = shard_call_callee_func(fb->an->m, op);
    shard_memory_function *cf = callee ? function_of(fb->an->r, callee) : NULL;
    if (cf && cf != fb->f)
      add_scratch(fb, start, shard_arena_printf(fb->an->r->arena, "temporaries of @%s", cf->name), 0, 0, cf);
  }
}

static void walk_block(fn_builder *fb, const shard_block *blk, uint32_t def) {
  for (uint32_t i = 0; i < blk->num_args; i++) add_value(fb, &blk->args[i], def);
  for (const shard_op *op = blk->first; op; op = op->next) walk_op(fb, op);
}

/* The point of a use, pushed to the end of every while loop between the
 * use and the value's definition. */
static uint32_t use_point(const fn_builder *fb, const shard_operand *u) {
  const op_points *pp = points_of(fb, u->owner);
  uint32_t at = pp ? pp->start : 0;
  const shard_value *v = u->value;
  const shard_block *home = v->def ? v->def->parent : v->block;
  for (const shard_op *op = u->owner; op && op->parent != home;) {
    const shard_op *parent = shard_op_parent_op(op);
    if (!parent) break;
    if (strcmp(parent->name, "stablehlo.while") == 0) {
      const op_points *wp = points_of(fb, parent);
      if (wp && wp->end > 0 && wp->end - 1 > at) at = wp->end - 1;
    }
    op = parent;
  }
  return at;
}

static uint32_t find(fn_builder *fb, uint32_t i) {
  while (fb->vals.items[i].parent != i) {
    fb->vals.items[i].parent = fb->vals.items[fb->vals.items[i].parent].parent;
    i = fb->vals.items[i].parent;
  }
  return i;
}

static void join(fn_builder *fb, const shard_value *a, const shard_value *b) {
  uint32_t x, y;
  if (!value_index(fb, a, &x) || !value_index(fb, b, &y)) return;
  x = find(fb, x);
  y = find(fb, y);
  if (x == y) return;
  if (y < x) {
    uint32_t t = x;
    x = y;
    y = t;
  }
  fb->vals.items[y].parent = x;
}

static const shard_block *region_block(const shard_op *op, uint32_t r) {
  return r < op->num_regions ? op->regions[r].first : NULL;
}

/* Buffers shared by several values. */
static void alias_regions(fn_builder *fb, const shard_op *op) {
  bool is_while = strcmp(op->name, "stablehlo.while") == 0;
  bool is_computation =
      strcmp(op->name, "sdy.manual_computation") == 0 || strcmp(op->name, "sdy.named_computation") == 0;
  if (is_while) {
    const op_points *wp = points_of(fb, op);
    const shard_block *cond = region_block(op, 0), *body = region_block(op, 1);
    for (uint32_t i = 0; i < op->num_results; i++) {
      const shard_block *blks[2] = {cond, body};
      for (int k = 0; k < 2; k++) {
        if (!blks[k] || i >= blks[k]->num_args) continue;
        uint32_t s;
        if (value_index(fb, &blks[k]->args[i], &s) && wp && wp->end > 0 && fb->vals.items[s].end < wp->end - 1)
          fb->vals.items[s].end = wp->end - 1;
        join(fb, &blks[k]->args[i], &op->results[i]);
      }
      if (i < op->num_operands) {
        uint32_t o;
        const shard_value *init = op->operands[i].value;
        if (value_index(fb, init, &o) && wp && fb->vals.items[o].end == wp->start && !fb->vals.items[o].argument)
          join(fb, init, &op->results[i]);
      }
    }
  } else if (is_computation) {
    const shard_block *body = region_block(op, 0);
    for (uint32_t i = 0; body && i < op->num_operands && i < body->num_args; i++)
      join(fb, op->operands[i].value, &body->args[i]);
    const shard_op *ret = body ? body->last : NULL;
    for (uint32_t i = 0; ret && i < op->num_results && i < ret->num_operands; i++)
      join(fb, ret->operands[i].value, &op->results[i]);
  }
  for (uint32_t r = 0; r < op->num_regions; r++)
    for (const shard_block *blk = op->regions[r].first; blk; blk = blk->next)
      for (const shard_op *o = blk->first; o; o = o->next) alias_regions(fb, o);
}

static int64_t attr_int(const shard_attr *a, bool *ok) {
  *ok = a && a->kind == SHARD_ATTR_INT;
  return *ok ? a->u.integer.value : 0;
}

static bool attr_true(const shard_attr *a) {
  return a && (a->kind == SHARD_ATTR_UNIT || (a->kind == SHARD_ATTR_BOOL && a->u.boolean));
}

/* Donated arguments share their result's buffer. */
static void alias_donations(fn_builder *fb, const shard_block *entry, const shard_op *ret) {
  if (!ret) return;
  bool *taken = shard_xcalloc(ret->num_operands ? ret->num_operands : 1, sizeof *taken);
  for (uint32_t i = 0; i < entry->num_args; i++) {
    const shard_value *arg = &entry->args[i];
    bool ok;
    int64_t k = attr_int(shard_value_attr(arg, "tf.aliasing_output"), &ok);
    if (!ok) k = attr_int(shard_value_attr(arg, "mhlo.aliasing_output"), &ok);
    uint32_t ai, ri;
    if (!value_index(fb, arg, &ai)) continue;
    if (!ok && (attr_true(shard_value_attr(arg, "jax.buffer_donor")) ||
                attr_true(shard_value_attr(arg, "mhlo.buffer_donor")))) {
      for (uint32_t r = 0; r < ret->num_operands && !ok; r++)
        if (!taken[r] && value_index(fb, ret->operands[r].value, &ri) &&
            fb->vals.items[ri].bytes == fb->vals.items[ai].bytes && !fb->vals.items[find(fb, ri)].argument) {
          k = r;
          ok = true;
        }
    }
    if (!ok || k < 0 || k >= (int64_t)ret->num_operands || taken[k]) continue;
    const shard_value *res = ret->operands[k].value;
    if (!value_index(fb, res, &ri) || fb->vals.items[find(fb, ri)].argument)
      continue; /* returns an argument as it is: nothing to reuse */
    taken[k] = true;
    join(fb, arg, res);
  }
  free(taken);
}

/* ---- one function -------------------------------------------------------------------- */

static const char *value_name(shard_arena *a, const vinfo *vi) {
  if (vi->label) return vi->label;
  const shard_value *v = vi->v;
  if (v->name) return shard_arena_printf(a, "%%%s", v->name);
  if (v->def)
    return v->def->num_results > 1 ? shard_arena_printf(a, "%s result %u", v->def->name, v->index) : v->def->name;
  return shard_arena_printf(a, "block argument %u", v->index);
}

static void build_function(analysis *an, shard_memory_function *f) {
  fn_builder fb;
  memset(&fb, 0, sizeof fb);
  fb.an = an;
  fb.f = f;
  const shard_block *entry = f->func->regions[0].first;
  push_point(&fb, f->func, false);
  for (uint32_t i = 0; i < entry->num_args; i++) {
    uint32_t k = add_value(&fb, &entry->args[i], 0);
    fb.vals.items[k].argument = true;
  }
  for (const shard_op *op = entry->first; op; op = op->next) walk_op(&fb, op);
  uint32_t last = fb.points.len - 1;
  for (uint32_t i = 0; i < fb.vals.len; i++)
    if (fb.vals.items[i].argument) fb.vals.items[i].end = last;
  for (uint32_t i = 0; i < fb.uses.len; i++) {
    uint32_t k;
    if (!value_index(&fb, fb.uses.items[i]->value, &k)) continue;
    uint32_t at = use_point(&fb, fb.uses.items[i]);
    if (at > fb.vals.items[k].end) fb.vals.items[k].end = at;
  }
  const shard_op *ret = entry->last && strcmp(entry->last->name, "func.return") == 0 ? entry->last : NULL;
  for (uint32_t i = 0; ret && i < ret->num_operands; i++) {
    uint32_t k;
    if (value_index(&fb, ret->operands[i].value, &k)) {
      fb.vals.items[k].end = last;
      fb.vals.items[k].result = true;
    }
  }
  for (const shard_op *op = entry->first; op; op = op->next) alias_regions(&fb, op);
  alias_donations(&fb, entry, ret);

  /* buffers: one per union-find root */
  uint32_t *buffer_of = shard_xmalloc(sizeof(uint32_t) * (fb.vals.len ? fb.vals.len : 1));
  SHARD_VEC(shard_memory_buffer) bufs = {0};
  SHARD_VEC(const shard_memory_function *) callees = {0};
  for (uint32_t i = 0; i < fb.vals.len; i++) {
    uint32_t root = find(&fb, i);
    const vinfo *vi = &fb.vals.items[i];
    if (!vi->sized) f->num_unsized++;
    if (root == i) {
      shard_memory_buffer b;
      memset(&b, 0, sizeof b);
      b.value = vi->v;
      b.name = value_name(an->r->arena, vi);
      b.at = vi->v ? (vi->v->def ? vi->v->def->span : shard_value_span(vi->v)) : shard_no_span;
      b.shape = vi->shape;
      b.bytes = vi->bytes;
      b.padding = vi->padding;
      b.device_set = vi->set;
      b.def = vi->def;
      b.end = vi->end;
      b.argument = vi->argument;
      b.result = vi->result;
      buffer_of[i] = bufs.len;
      SHARD_VEC_PUSH(bufs, b);
      SHARD_VEC_PUSH(callees, vi->callee);
    } else {
      shard_memory_buffer *b = &bufs.items[buffer_of[root]];
      buffer_of[i] = buffer_of[root];
      if (vi->def < b->def) b->def = vi->def;
      if (vi->end > b->end) b->end = vi->end;
      if (vi->bytes > b->bytes) {
        b->bytes = vi->bytes;
        b->padding = vi->padding;
      }
      b->argument |= vi->argument;
      b->result |= vi->result;
    }
  }
  f->num_buffers = bufs.len;
  SHARD_VEC_FREEZE(an->r->arena, bufs, f->buffers);
  f->num_points = fb.points.len;
  SHARD_VEC_FREEZE(an->r->arena, fb.points, f->points);

  /* arguments and results by value (a buffer may hold several), and the
   * callee behind each scratch buffer of a call */
  fn_data *fd = &an->fns[f - an->r->functions];
  SHARD_VEC(sig_value) sig = {0};
  for (uint32_t i = 0; i < entry->num_args; i++) {
    uint32_t k;
    if (value_index(&fb, &entry->args[i], &k)) {
      sig_value sv = {fb.vals.items[k].bytes, fb.vals.items[k].set, true, false};
      SHARD_VEC_PUSH(sig, sv);
    }
  }
  for (uint32_t i = 0; ret && i < ret->num_operands; i++) {
    uint32_t k;
    if (value_index(&fb, ret->operands[i].value, &k)) {
      sig_value sv = {fb.vals.items[k].bytes, fb.vals.items[k].set, false, f->buffers[buffer_of[k]].argument};
      SHARD_VEC_PUSH(sig, sv);
    }
  }
  fd->num_sig = sig.len;
  SHARD_VEC_FREEZE(an->r->arena, sig, fd->sig);
  SHARD_VEC_FREEZE(an->r->arena, callees, fd->callees);
  free(buffer_of);
  shard_ptrmap_release(&fb.value_index);
  shard_ptrmap_release(&fb.op_index);
  SHARD_VEC_FREE(fb.ops);
  SHARD_VEC_FREE(fb.uses);
  SHARD_VEC_FREE(fb.vals);
}

/* ---- device classes ------------------------------------------------------------------ */

typedef struct dev_mask {
  uint64_t mask;
  int64_t id;
} dev_mask;

static int cmp_dev_mask(const void *a, const void *b) {
  const dev_mask *x = a, *y = b;
  if (x->mask != y->mask) return x->mask < y->mask ? -1 : 1;
  return x->id < y->id ? -1 : x->id > y->id;
}

/* Devices grouped by the device sets they belong to. */
static void build_classes(analysis *an) {
  int64_t n = an->num_devices > 0 ? an->num_devices : 1;
  dev_mask *dm = shard_xmalloc(sizeof *dm * (size_t)n);
  for (int64_t d = 0; d < n; d++) dm[d] = (dev_mask){1, d};
  for (uint32_t s = 1; s < an->sets.len; s++)
    for (int64_t k = 0; k < an->sets.items[s].num; k++) dm[an->sets.items[s].ids[k]].mask |= UINT64_C(1) << s;
  qsort(dm, (size_t)n, sizeof *dm, cmp_dev_mask);
  uint32_t num = 0;
  for (int64_t d = 0; d < n; d++)
    if (d == 0 || dm[d].mask != dm[d - 1].mask) num++;
  an->num_classes = num;
  an->class_masks = SHARD_NEW_ARRAY(an->r->arena, uint64_t, num);
  an->class_devices = SHARD_NEW_ARRAY(an->r->arena, int64_t *, num);
  an->class_sizes = SHARD_NEW_ARRAY(an->r->arena, int64_t, num);
  uint32_t c = 0;
  int64_t start = 0;
  for (int64_t d = 1; d <= n; d++) {
    if (d < n && dm[d].mask == dm[start].mask) continue;
    an->class_masks[c] = dm[start].mask;
    an->class_sizes[c] = d - start;
    an->class_devices[c] = SHARD_NEW_ARRAY(an->r->arena, int64_t, d - start);
    for (int64_t k = start; k < d; k++) an->class_devices[c][k - start] = dm[k].id;
    c++;
    start = d;
  }
  free(dm);
}

static bool holds(uint64_t mask, uint32_t set) { return (mask >> set) & 1; }

static int64_t buffer_bytes(const analysis *an, const fn_data *fd, const shard_memory_function *f, uint32_t b,
                            uint32_t c) {
  const shard_memory_buffer *buf = &f->buffers[b];
  if (!holds(an->class_masks[c], buf->device_set)) return 0;
  const shard_memory_function *callee = fd->callees ? fd->callees[b] : NULL;
  if (callee) {
    const fn_data *cd = &an->fns[callee - an->r->functions];
    return cd->class_own ? cd->class_own[c] : 0;
  }
  return buf->bytes;
}

typedef struct class_stats {
  int64_t args, results, aliased, peak;
  uint32_t point;
} class_stats;

static void compute_function(analysis *an, shard_memory_function *f, class_stats *stats) {
  fn_data *fd = &an->fns[f - an->r->functions];
  int64_t *diff = shard_xmalloc(sizeof(int64_t) * (f->num_points + 1));
  fd->class_peak = SHARD_NEW_ARRAY(an->r->arena, int64_t, an->num_classes);
  fd->class_own = SHARD_NEW_ARRAY(an->r->arena, int64_t, an->num_classes);
  for (uint32_t c = 0; c < an->num_classes; c++) {
    memset(diff, 0, sizeof(int64_t) * (f->num_points + 1));
    for (uint32_t b = 0; b < f->num_buffers; b++) {
      int64_t bytes = buffer_bytes(an, fd, f, b, c);
      diff[f->buffers[b].def] += bytes;
      diff[f->buffers[b].end + 1] -= bytes;
    }
    class_stats st = {0, 0, 0, -1, 0};
    int64_t live = 0;
    for (uint32_t p = 0; p < f->num_points; p++) {
      live += diff[p];
      if (live > st.peak) {
        st.peak = live;
        st.point = p;
      }
    }
    for (uint32_t i = 0; i < fd->num_sig; i++) {
      const sig_value *sv = &fd->sig[i];
      int64_t bytes = holds(an->class_masks[c], sv->set) ? sv->bytes : 0;
      if (sv->argument) st.args += bytes;
      else if (sv->aliased) st.aliased += bytes;
      else st.results += bytes;
    }
    stats[c] = st;
    fd->class_peak[c] = st.peak;
    int64_t own = st.peak - st.args - st.results;
    fd->class_own[c] = own > 0 ? own : 0;
  }
  free(diff);
}

typedef struct live_entry {
  uint32_t buffer;
  int64_t bytes;
} live_entry;

static int by_bytes(const void *a, const void *b) {
  const live_entry *x = a, *y = b;
  if (x->bytes != y->bytes) return x->bytes < y->bytes ? 1 : -1;
  return x->buffer < y->buffer ? -1 : x->buffer > y->buffer;
}

/* Merges the global classes that give this function the same totals. */
static void finish_function(analysis *an, shard_memory_function *f, const class_stats *stats) {
  fn_data *fd = &an->fns[f - an->r->functions];
  uint32_t *group = shard_xmalloc(sizeof(uint32_t) * an->num_classes);
  uint32_t num = 0;
  for (uint32_t c = 0; c < an->num_classes; c++) {
    group[c] = num;
    for (uint32_t k = 0; k < c; k++)
      if (stats[k].args == stats[c].args && stats[k].results == stats[c].results &&
          stats[k].aliased == stats[c].aliased && stats[k].peak == stats[c].peak && stats[k].point == stats[c].point) {
        group[c] = group[k];
        break;
      }
    if (group[c] == num) num++;
  }
  f->num_classes = num;
  f->classes = SHARD_NEW_ARRAY(an->r->arena, shard_memory_class, num);
  memset(f->classes, 0, sizeof(shard_memory_class) * num);
  for (uint32_t g = 0; g < num; g++) {
    shard_memory_class *mc = &f->classes[g];
    uint32_t first = 0;
    int64_t total = 0;
    for (uint32_t c = an->num_classes; c-- > 0;)
      if (group[c] == g) {
        first = c;
        total += an->class_sizes[c];
      }
    mc->mask = an->class_masks[first];
    mc->num_devices = total;
    mc->devices = SHARD_NEW_ARRAY(an->r->arena, int64_t, total);
    int64_t at = 0;
    for (uint32_t c = 0; c < an->num_classes; c++)
      if (group[c] == g) {
        memcpy(mc->devices + at, an->class_devices[c], sizeof(int64_t) * (size_t)an->class_sizes[c]);
        at += an->class_sizes[c];
      }
    qsort(mc->devices, (size_t)total, sizeof(int64_t), cmp_i64);
    const class_stats *st = &stats[first];
    mc->argument_bytes = st->args;
    mc->result_bytes = st->results;
    mc->aliased_bytes = st->aliased;
    mc->peak_bytes = st->peak;
    mc->peak_point = st->point;
    live_entry *le = shard_xmalloc(sizeof *le * (f->num_buffers ? f->num_buffers : 1));
    uint32_t n = 0;
    for (uint32_t b = 0; b < f->num_buffers; b++) {
      const shard_memory_buffer *buf = &f->buffers[b];
      if (buf->def > st->point || buf->end < st->point) continue;
      int64_t bytes = buffer_bytes(an, fd, f, b, first);
      if (bytes <= 0) continue;
      le[n++] = (live_entry){b, bytes};
      if (holds(mc->mask, buf->device_set)) mc->peak_padding += buf->padding;
    }
    qsort(le, n, sizeof *le, by_bytes);
    mc->num_live = n;
    mc->live = SHARD_NEW_ARRAY(an->r->arena, uint32_t, n ? n : 1);
    mc->live_bytes = SHARD_NEW_ARRAY(an->r->arena, int64_t, n ? n : 1);
    for (uint32_t k = 0; k < n; k++) {
      mc->live[k] = le[k].buffer;
      mc->live_bytes[k] = le[k].bytes;
    }
    free(le);
    mc->curve = SHARD_NEW_ARRAY(an->r->arena, int64_t, f->num_points + 1);
    memset(mc->curve, 0, sizeof(int64_t) * (f->num_points + 1));
    for (uint32_t b = 0; b < f->num_buffers; b++) {
      int64_t bytes = buffer_bytes(an, fd, f, b, first);
      mc->curve[f->buffers[b].def] += bytes;
      mc->curve[f->buffers[b].end + 1] -= bytes;
    }
    for (uint32_t p = 1; p < f->num_points; p++) mc->curve[p] += mc->curve[p - 1];
    if (mc->peak_bytes > f->classes[f->worst].peak_bytes) f->worst = g;
  }
  free(group);
}

static const char *func_name(shard_arena *a, const shard_op *func) {
  const char *n = shard_symbol_name(func);
  return n ? shard_arena_strdup(a, n) : "?";
}

bool shard_memory_analyze(shard_memory_report *r, shard_arena *a, const shard_module *m,
                          const shard_memory_options *opts, shard_diag_engine *de) {
  static const shard_memory_options defaults = {false};
  memset(r, 0, sizeof *r);
  r->arena = a;
  analysis an;
  memset(&an, 0, sizeof an);
  an.r = r;
  an.m = m;
  an.opts = opts ? opts : &defaults;
  an.de = de;
  an.num_devices = 1;
  device_set all = {NULL, 0};
  SHARD_VEC_PUSH(an.sets, all);
  const shard_block *top = m->top->num_regions ? m->top->regions[0].first : NULL;
  uint32_t nf = 0;
  for (const shard_op *op = top ? top->first : NULL; op; op = op->next) {
    if (strcmp(op->name, "func.func") == 0 && op->num_regions && op->regions[0].first) nf++;
    const shard_attr *mesh = strcmp(op->name, "sdy.mesh") == 0 ? shard_op_attr(op, "mesh") : NULL;
    if (mesh && mesh->kind == SHARD_ATTR_SDY_MESH) device_set_of(&an, mesh->u.mesh, op->span);
  }
  r->functions = SHARD_NEW_ARRAY(a, shard_memory_function, nf ? nf : 1);
  memset(r->functions, 0, sizeof(shard_memory_function) * (nf ? nf : 1));
  an.fns = shard_xcalloc(nf ? nf : 1, sizeof *an.fns);
  for (const shard_op *op = top ? top->first : NULL; op; op = op->next)
    if (strcmp(op->name, "func.func") == 0 && op->num_regions && op->regions[0].first) {
      shard_memory_function *f = &r->functions[r->num_functions++];
      f->func = op;
      f->name = func_name(a, op);
    }
  for (uint32_t i = 0; i < r->num_functions && !an.failed; i++) build_function(&an, &r->functions[i]);
  bool ok = !an.failed;
  if (ok) {
    build_classes(&an);
    r->num_devices = an.num_devices;
    r->num_device_sets = an.sets.len;
    class_stats *stats = shard_xmalloc(sizeof *stats * an.num_classes);
    shard_op **order = NULL;
    uint32_t n = shard_call_graph_funcs(m, false, &order);
    for (uint32_t i = 0; i < n; i++) {
      shard_memory_function *f = function_of(r, order[i]);
      if (f) {
        compute_function(&an, f, stats);
        finish_function(&an, f, stats);
      }
    }
    free(order);
    free(stats);
    for (uint32_t i = 0; i < r->num_functions; i++) {
      const shard_memory_function *f = &r->functions[i];
      if (f->num_classes && f->classes[f->worst].peak_bytes > r->peak_bytes) {
        r->peak_bytes = f->classes[f->worst].peak_bytes;
        r->worst_function = i;
      }
    }
  }
  for (uint32_t s = 0; s < an.sets.len; s++) free(an.sets.items[s].ids);
  SHARD_VEC_FREE(an.sets);
  free(an.fns);
  return ok;
}

shard_span shard_memory_point_span(const shard_memory_function *f, uint32_t point) {
  for (uint32_t p = point; p < f->num_points; p++)
    if (f->points[p].op->span.src) return f->points[p].op->span;
  for (uint32_t p = point; p-- > 0;)
    if (f->points[p].op->span.src) return f->points[p].op->span;
  return f->func->span;
}

/* ---- output ------------------------------------------------------------------------------ */

void shard_memory_print_devices(shard_buf *b, const int64_t *devices, int64_t n) {
  for (int64_t i = 0; i < n;) {
    int64_t j = i;
    while (j + 1 < n && devices[j + 1] == devices[j] + 1) j++;
    shard_buf_printf(b, "%s%lld", i ? "," : "", (long long)devices[i]);
    if (j > i) shard_buf_printf(b, "-%lld", (long long)devices[j]);
    i = j + 1;
  }
}

bool shard_memory_parse_bytes(const char *s, int64_t *out) {
  static const struct {
    const char *name;
    double scale;
  } units[] = {{"", 1},      {"B", 1},        {"KB", 1e3},        {"MB", 1e6},           {"GB", 1e9},
               {"TB", 1e12}, {"KiB", 1024.0}, {"MiB", 1048576.0}, {"GiB", 1073741824.0}, {"TiB", 1099511627776.0}};
  if (!s || !(*s >= '0' && *s <= '9')) return false;
  double v = 0;
  const char *p = s;
  while (*p >= '0' && *p <= '9') v = v * 10 + (*p++ - '0');
  if (*p == '.') {
    p++;
    if (!(*p >= '0' && *p <= '9')) return false;
    for (double scale = 0.1; *p >= '0' && *p <= '9'; scale /= 10) v += (*p++ - '0') * scale;
  }
  if (*p == ' ') p++;
  for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
    if (strcmp(p, units[i].name) == 0) {
      double bytes = floor(v * units[i].scale + 0.5);
      if (!(bytes >= 1) || bytes > 4611686018427387904.0) return false;
      *out = (int64_t)bytes;
      return true;
    }
  return false;
}

void shard_memory_format_bytes(shard_buf *b, int64_t bytes) {
  static const char *const units[] = {"KiB", "MiB", "GiB", "TiB", "PiB"};
  shard_buf_printf(b, "%lld B", (long long)bytes);
  if (bytes < 1024) return;
  double v = (double)bytes;
  int u = -1;
  while (v >= 1024 && u < 4) {
    v /= 1024;
    u++;
  }
  shard_buf_printf(b, " (%.2f %s)", v, units[u]);
}

static void print_class_devices(shard_buf *b, const shard_memory_report *r, const shard_memory_class *c) {
  if (c->num_devices == r->num_devices) {
    shard_buf_printf(b, "%s %lld device%s", c->num_devices == 1 ? "its" : "each of the", (long long)c->num_devices,
                     c->num_devices == 1 ? "" : "s");
    return;
  }
  shard_buf_puts(b, c->num_devices == 1 ? "device " : "devices ");
  shard_memory_print_devices(b, c->devices, c->num_devices);
}

enum { COL_BYTES, COL_SHAPE, COL_VALUE, COL_AT, NUM_COLS };

static void print_live_table(shard_buf *b, const shard_memory_function *f, const shard_memory_class *c, uint32_t top) {
  static const char *const headers[NUM_COLS] = {"bytes", "shape", "value", "defined at"};
  static const bool right[NUM_COLS] = {true, false, false, false};
  uint32_t n = c->num_live < top ? c->num_live : top;
  shard_buf *cells = shard_xcalloc((size_t)(n ? n : 1) * NUM_COLS, sizeof *cells);
  size_t width[NUM_COLS];
  for (int k = 0; k < NUM_COLS; k++) width[k] = strlen(headers[k]);
  for (uint32_t i = 0; i < n; i++) {
    const shard_memory_buffer *buf = &f->buffers[c->live[i]];
    shard_buf *row = &cells[(size_t)i * NUM_COLS];
    shard_buf_printf(&row[COL_BYTES], "%lld", (long long)c->live_bytes[i]);
    shard_buf_puts(&row[COL_SHAPE], buf->shape && *buf->shape ? buf->shape : "-");
    shard_buf_puts(&row[COL_VALUE], buf->name);
    if (buf->argument) shard_buf_puts(&row[COL_VALUE], " (argument)");
    else if (buf->result) shard_buf_puts(&row[COL_VALUE], " (result)");
    shard_span_print_location(&row[COL_AT], buf->value ? buf->at : shard_memory_point_span(f, buf->def));
    for (int k = 0; k < NUM_COLS; k++)
      if (row[k].len > width[k]) width[k] = row[k].len;
  }
  shard_buf_puts(b, "  ");
  for (int k = 0; k < NUM_COLS; k++)
    shard_buf_printf(b, "  %*s", k == NUM_COLS - 1 ? 0 : right[k] ? (int)width[k] : -(int)width[k], headers[k]);
  shard_buf_putc(b, '\n');
  for (uint32_t i = 0; i < n; i++) {
    shard_buf_puts(b, "  ");
    for (int k = 0; k < NUM_COLS; k++) {
      shard_buf *cell = &cells[(size_t)i * NUM_COLS + k];
      shard_buf_printf(b, "  %*s",
                       k == NUM_COLS - 1 ? 0
                       : right[k]        ? (int)width[k]
                                         : -(int)width[k],
                       shard_buf_str(cell));
      shard_buf_free(cell);
    }
    shard_buf_putc(b, '\n');
  }
  free(cells);
  if (c->num_live > n) {
    int64_t rest = 0;
    for (uint32_t i = n; i < c->num_live; i++) rest += c->live_bytes[i];
    shard_buf_printf(b, "    and %u more value%s: %lld bytes\n", c->num_live - n, c->num_live - n == 1 ? "" : "s",
                     (long long)rest);
  }
}

void shard_memory_print_text(shard_buf *b, const shard_memory_report *r, uint32_t top, int64_t device_memory,
                             const char *memory_source) {
  shard_buf_puts(b, "memory per device (the program as written: no fusion, no rematerialization, "
                    "no allocator fragmentation)\n");
  for (uint32_t i = 0; i < r->num_functions; i++) {
    const shard_memory_function *f = &r->functions[i];
    for (uint32_t k = 0; k < f->num_classes; k++) {
      const shard_memory_class *c = &f->classes[k];
      shard_buf_printf(b, "@%s on ", f->name);
      print_class_devices(b, r, c);
      shard_buf_printf(b, "%s:\n", f->num_classes > 1 && k == f->worst ? " (the worst)" : "");
      shard_buf_printf(b, "  arguments %lld B, results %lld B", (long long)c->argument_bytes,
                       (long long)c->result_bytes);
      if (c->aliased_bytes)
        shard_buf_printf(b, " (and %lld B of results in donated arguments)", (long long)c->aliased_bytes);
      shard_buf_puts(b, "\n  peak ");
      shard_memory_format_bytes(b, c->peak_bytes);
      const shard_memory_point *pt = &f->points[c->peak_point];
      shard_buf_puts(b, " at ");
      shard_span_print_location(b, shard_memory_point_span(f, c->peak_point));
      shard_buf_printf(b, " (%s%s)\n", pt->end ? "end of " : "", pt->op->name);
      if (top && c->num_live) {
        shard_buf_puts(b, "  live at the peak:\n");
        print_live_table(b, f, c, top);
      }
      if (c->peak_padding)
        shard_buf_printf(b, "  of which padding of non-divisible dims: %lld B\n", (long long)c->peak_padding);
    }
    if (f->num_unsized)
      shard_buf_printf(b, "@%s: %u value%s of dynamic shape or unknown element type not counted\n", f->name,
                       f->num_unsized, f->num_unsized == 1 ? "" : "s");
  }
  if (!r->num_functions) {
    shard_buf_puts(b, "no functions\n");
    return;
  }
  const shard_memory_function *wf = &r->functions[r->worst_function];
  shard_buf_puts(b, "peak: ");
  shard_memory_format_bytes(b, r->peak_bytes);
  if (wf->num_classes) {
    shard_buf_printf(b, " per device in @%s on ", wf->name);
    print_class_devices(b, r, &wf->classes[wf->worst]);
  }
  shard_buf_putc(b, '\n');
  if (device_memory > 0) {
    shard_buf_puts(b, "device memory: ");
    shard_memory_format_bytes(b, device_memory);
    if (memory_source) shard_buf_printf(b, " (%s)", memory_source);
    shard_buf_printf(b, ": %s, %.1f%% used\n", r->peak_bytes <= device_memory ? "fits" : "does NOT fit",
                     100.0 * (double)r->peak_bytes / (double)device_memory);
  } else {
    shard_buf_printf(b, "device memory: unknown%s%s%s\n", memory_source ? " (" : "", memory_source ? memory_source : "",
                     memory_source ? ")" : "");
  }
}

static void json_location(shard_buf *b, shard_span where) {
  if (!where.src) {
    shard_buf_puts(b, "null");
    return;
  }
  shard_buf loc;
  shard_buf_init(&loc);
  shard_span_print_location(&loc, where);
  shard_buf_put_json_string(b, shard_buf_str(&loc));
  shard_buf_free(&loc);
}

static void json_class(shard_buf *b, const shard_memory_function *f, const shard_memory_class *c, uint32_t top,
                       const char *indent) {
  shard_buf devs;
  shard_buf_init(&devs);
  shard_memory_print_devices(&devs, c->devices, c->num_devices);
  shard_buf_puts(b, "\"devices\": ");
  shard_buf_put_json_string(b, shard_buf_str(&devs));
  shard_buf_free(&devs);
  shard_buf_printf(b,
                   ", \"num_devices\": %lld, \"argument_bytes\": %lld, \"result_bytes\": %lld, "
                   "\"aliased_result_bytes\": %lld, \"peak_bytes\": %lld, \"peak_at\": ",
                   (long long)c->num_devices, (long long)c->argument_bytes, (long long)c->result_bytes,
                   (long long)c->aliased_bytes, (long long)c->peak_bytes);
  json_location(b, shard_memory_point_span(f, c->peak_point));
  shard_buf_puts(b, ", \"peak_op\": ");
  shard_buf_put_json_string(b, f->points[c->peak_point].op->name);
  shard_buf_printf(b, ", \"padding_at_peak\": %lld,\n%s\"live_at_peak\": [", (long long)c->peak_padding, indent);
  uint32_t n = c->num_live < top ? c->num_live : top;
  for (uint32_t i = 0; i < n; i++) {
    const shard_memory_buffer *buf = &f->buffers[c->live[i]];
    shard_buf_printf(b, "%s\n%s  {\"value\": ", i ? "," : "", indent);
    shard_buf_put_json_string(b, buf->name);
    shard_buf_puts(b, ", \"at\": ");
    json_location(b, buf->value ? buf->at : shard_memory_point_span(f, buf->def));
    shard_buf_puts(b, ", \"shape\": ");
    shard_buf_put_json_string(b, buf->shape);
    shard_buf_printf(b, ", \"bytes\": %lld, \"kind\": \"%s\"}", (long long)c->live_bytes[i],
                     buf->argument ? "argument"
                     : buf->result ? "result"
                     : buf->value  ? "value"
                                   : "scratch");
  }
  shard_buf_printf(b, "%s]", n ? "\n" : "");
  if (n) shard_buf_puts(b, indent);
}

void shard_memory_print_json(shard_buf *b, const shard_memory_report *r, uint32_t top, int64_t device_memory,
                             const char *memory_source) {
  shard_buf_puts(b, "{\n  \"functions\": [");
  for (uint32_t i = 0; i < r->num_functions; i++) {
    const shard_memory_function *f = &r->functions[i];
    shard_buf_printf(b, "%s\n    {\"name\": ", i ? "," : "");
    shard_buf_put_json_string(b, f->name);
    shard_buf_printf(b, ", \"unsized_values\": %u", f->num_unsized);
    if (f->num_classes) {
      shard_buf_puts(b, ", ");
      json_class(b, f, &f->classes[f->worst], top, "     ");
    }
    shard_buf_puts(b, ",\n     \"device_classes\": [");
    for (uint32_t k = 0; k < f->num_classes; k++) {
      shard_buf_printf(b, "%s\n       {", k ? "," : "");
      json_class(b, f, &f->classes[k], top, "        ");
      shard_buf_putc(b, '}');
    }
    shard_buf_printf(b, "%s]}", f->num_classes ? "\n     " : "");
  }
  shard_buf_printf(b, "%s],\n  \"num_devices\": %lld,\n  \"peak_bytes\": %lld,\n  \"peak_function\": ",
                   r->num_functions ? "\n  " : "", (long long)r->num_devices, (long long)r->peak_bytes);
  if (r->num_functions) shard_buf_put_json_string(b, r->functions[r->worst_function].name);
  else shard_buf_puts(b, "null");
  shard_buf_puts(b, ",\n  \"device_memory\": ");
  if (device_memory > 0) shard_buf_printf(b, "%lld", (long long)device_memory);
  else shard_buf_puts(b, "null");
  shard_buf_puts(b, ",\n  \"device_memory_source\": ");
  if (memory_source) shard_buf_put_json_string(b, memory_source);
  else shard_buf_puts(b, "null");
  shard_buf_puts(b, ",\n  \"fits\": ");
  if (device_memory > 0) shard_buf_puts(b, r->peak_bytes <= device_memory ? "true" : "false");
  else shard_buf_puts(b, "null");
  shard_buf_puts(b, "\n}\n");
}
