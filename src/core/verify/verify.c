/* The verifier driver: Shardy's dialect verifier plus the generic MLIR checks
 * its lit tests rely on, with MLIR's message texts and prefixes.
 *
 * It runs in two phases, mirroring where MLIR reports things:
 *
 *  1. Attribute checks MLIR makes while *parsing* (MeshAttr/MeshAxisAttr and
 *     PropagationEdgesAttr verification), over every sdy.mesh op and every
 *     attribute of the module. If any fails, MLIR would not have produced a
 *     module at all, so phase 2 is skipped.
 *  2. One pre-order walk over the ops. Per op, in MLIR's order: the sdy.*
 *     discardable attributes (verifyOperationAttribute), the op's own
 *     verifier and traits (func arg/result shardings, manual_computation,
 *     named_computation, propagation_barrier, collectives' interface), region
 *     isolation of its operands, then the checks MLIR runs from the symbol
 *     table (verifySymbolUses). Within one op the first failure wins, like
 *     MLIR; across ops we keep going and report everything, like jq.
 *
 * Everything is linear in the size of the module: meshes and axis names are
 * looked up through hash tables, the enclosing manual computations and
 * isolation scopes are carried down the walk instead of searched upwards.
 *
 * verify_sharding.c holds tensor shardings, rules and edges; verify_ops.c the
 * sdy ops and func attributes; verify_collectives.c the collectives. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/call_graph.h"
#include "ir/opdef.h"
#include "support/strmap.h"
#include "verify/verify_internal.h"

/* ---- hash tables -------------------------------------------------------- */

/* The string hash of the one string map (support/strmap.h). */
static uint32_t S_hash_str(const char *s) { return shard_str_hash(s, strlen(s)); }

static uint32_t S_hash_axis(const shard_axis_ref *r) {
  uint32_t h = S_hash_str(r->name);
  /* unsigned: sizes are any int64 the input wrote, and must not overflow */
  if (r->is_sub)
    h ^= shard_ptrmap_hash((const void *)(uintptr_t)((uint64_t)r->pre_size * 1000003u + (uint64_t)r->size));
  return h;
}

void shard_verify_axis_set_reset(vf_axis_set *s) {
  s->cur++;
  s->len = 0;
}

static int64_t S_find_axis_slot(const vf_axis_set *s, const shard_axis_ref *r) {
  if (!s->cap) return -1;
  for (uint32_t i = S_hash_axis(r) & (s->cap - 1);; i = (i + 1) & (s->cap - 1)) {
    if (s->stamp[i] != s->cur) return -1 - (int64_t)i;
    if (shard_axis_equal(s->keys[i], r)) return i;
  }
}

static bool S_small_contains(const vf_axis_set *s, const shard_axis_ref *r) {
  for (uint32_t i = 0; i < s->len; i++)
    if (shard_axis_equal(s->small[i], r)) return true;
  return false;
}

bool shard_verify_axis_set_contains(const vf_axis_set *s, const shard_axis_ref *r) {
  if (s->len <= VF_AXIS_SET_SMALL) return S_small_contains(s, r);
  return S_find_axis_slot(s, r) >= 0;
}

/* Into the hash table (its mode: len counts its entries). */
static bool S_hash_insert(vf_axis_set *s, const shard_axis_ref *r) {
  if ((s->len + 1) * 2 > s->cap) {
    vf_axis_set old = *s;
    s->cap = old.cap ? old.cap * 2 : 64;
    s->keys = shard_xcalloc(s->cap, sizeof *s->keys);
    s->stamp = shard_xcalloc(s->cap, sizeof *s->stamp);
    s->cur = 1;
    s->len = 0;
    for (uint32_t i = 0; i < old.cap; i++)
      if (old.stamp[i] == old.cur) S_hash_insert(s, old.keys[i]);
    free(old.keys);
    free(old.stamp);
  }
  int64_t slot = S_find_axis_slot(s, r);
  if (slot >= 0) return false;
  uint32_t i = (uint32_t)(-1 - slot);
  s->keys[i] = r;
  s->stamp[i] = s->cur;
  s->len++;
  return true;
}

bool shard_verify_axis_set_insert(vf_axis_set *s, const shard_axis_ref *r) {
  if (s->len > VF_AXIS_SET_SMALL) return S_hash_insert(s, r);
  if (S_small_contains(s, r)) return false;
  if (s->len < VF_AXIS_SET_SMALL) {
    s->small[s->len++] = r;
    return true;
  }
  /* one more than the list holds: all of them move to the hash table
   * (entries of an earlier use are gone with a new stamp) */
  s->cur++;
  s->len = 0;
  for (uint32_t i = 0; i < VF_AXIS_SET_SMALL; i++) S_hash_insert(s, s->small[i]);
  return S_hash_insert(s, r);
}

static void vf_axis_set_free(vf_axis_set *s) {
  free(s->keys);
  free(s->stamp);
  memset(s, 0, sizeof *s);
}

/* ---- diagnostics -------------------------------------------------------- */

vf_emit shard_verify_emit_op(vf_ctx *cx, const shard_op *op, const char *prefix) {
  vf_emit e = {cx, op, op ? op->span : shard_no_span, prefix ? prefix : ""};
  return e;
}

static void S_emit(const vf_emit *e, shard_severity sev, const char *fmt, va_list ap) {
  shard_buf b;
  shard_buf_init(&b);
  shard_buf_vprintf(&b, fmt, ap);
  if (e->op)
    shard_diag_emit(e->cx->de, sev, e->span, "'%s%s' op %s%s", shard_op_written_prefix(e->op),
                    shard_op_written_rest(e->op), e->prefix, shard_buf_str(&b));
  else shard_diag_emit(e->cx->de, sev, e->span, "%s%s", e->prefix, shard_buf_str(&b));
  shard_buf_free(&b);
}

bool shard_verify_fail(const vf_emit *e, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  S_emit(e, SHARD_ERROR, fmt, ap);
  va_end(ap);
  e->cx->ok = false;
  return false;
}

void shard_verify_warn(const vf_emit *e, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  S_emit(e, SHARD_WARNING, fmt, ap);
  va_end(ap);
}

void shard_verify_note(vf_ctx *cx, shard_span span, const char *fmt, ...) {
  shard_buf b;
  shard_buf_init(&b);
  va_list ap;
  va_start(ap, fmt);
  shard_buf_vprintf(&b, fmt, ap);
  va_end(ap);
  shard_diag_emit(cx->de, SHARD_NOTE, span, "%s", shard_buf_str(&b));
  shard_buf_free(&b);
}

const char *shard_verify_prefix(vf_ctx *cx, const char *head, const char *mid, uint32_t index, const char *tail) {
  char digits[10];
  size_t nd = 0, nh = strlen(head), nm = strlen(mid), nt = strlen(tail);
  if (index != UINT32_MAX) do
      digits[nd++] = (char)('0' + index % 10);
    while (index /= 10);
  char *out = shard_arena_alloc(cx->scratch, nh + nm + nd + nt + 1), *o = out;
  memcpy(o, head, nh);
  o += nh;
  memcpy(o, mid, nm);
  o += nm;
  while (nd) *o++ = digits[--nd];
  memcpy(o, tail, nt + 1);
  return out;
}

vf_emit shard_verify_emit_value(const vf_emit *e, uint32_t num_values, uint32_t index) {
  vf_emit v = *e;
  v.prefix =
      shard_verify_prefix(e->cx, e->prefix, "", num_values == 1 ? UINT32_MAX : index, num_values == 1 ? "- " : " - ");
  return v;
}

static const char *S_take(vf_ctx *cx, shard_buf *b) {
  const char *s = shard_arena_strdup(cx->scratch, shard_buf_str(b));
  shard_buf_free(b);
  return s;
}

const char *shard_verify_axis_str(vf_ctx *cx, const shard_axis_ref *r) {
  shard_buf b;
  shard_buf_init(&b);
  shard_axis_print(&b, r);
  return S_take(cx, &b);
}

const char *shard_verify_axes_str(vf_ctx *cx, const shard_axis_ref *axes, uint32_t n) {
  shard_buf b;
  shard_buf_init(&b);
  shard_buf_putc(&b, '[');
  for (uint32_t i = 0; i < n; i++) {
    if (i) shard_buf_puts(&b, ", ");
    shard_axis_print(&b, &axes[i]);
  }
  shard_buf_putc(&b, ']');
  return S_take(cx, &b);
}

const char *shard_verify_mesh_str(vf_ctx *cx, const shard_mesh *m) {
  shard_buf b;
  shard_buf_init(&b);
  shard_buf_puts(&b, "#sdy.mesh");
  shard_mesh_print(&b, m);
  return S_take(cx, &b);
}

const char *shard_verify_sharding_str(vf_ctx *cx, const shard_tensor_sharding *s) {
  shard_buf b;
  shard_buf_init(&b);
  shard_buf_puts(&b, "#sdy.sharding");
  shard_sharding_print(&b, s);
  return S_take(cx, &b);
}

const char *shard_verify_type_str(const shard_type *t) { return t && t->text ? t->text : "<<NULL TYPE>>"; }

const char *shard_verify_types_str(vf_ctx *cx, shard_type *const *ts, uint32_t n) {
  shard_buf b;
  shard_buf_init(&b);
  for (uint32_t i = 0; i < n; i++) shard_buf_printf(&b, "%s'%s'", i ? ", " : "", shard_verify_type_str(ts[i]));
  return S_take(cx, &b);
}

const char *shard_verify_attr_str(vf_ctx *cx, const shard_attr *a) {
  shard_buf b;
  shard_buf_init(&b);
  shard_attr_print(&b, a);
  return S_take(cx, &b);
}

/* ---- small IR helpers --------------------------------------------------- */

const shard_attr *shard_verify_attr(const shard_op *op, const char *name) {
  for (uint32_t i = 0; i < op->num_attrs; i++)
    /* the parser interns names as the literals shard looks up (attr.c):
     * usually the very pointer, no strcmp call */
    if (op->attrs[i].name == name || (op->attrs[i].name[0] == name[0] && strcmp(op->attrs[i].name, name) == 0))
      return op->attrs[i].value;
  return NULL;
}

uint32_t shard_verify_type_rank(const shard_type *t) { return t && t->kind == SHARD_TYPE_TENSOR ? t->rank : 0; }

bool shard_verify_type_static(const shard_type *t) {
  if (!t || t->kind != SHARD_TYPE_TENSOR) return false;
  for (uint32_t i = 0; i < t->rank; i++)
    if (t->dims[i] == SHARD_DYNAMIC_DIM) return false;
  return true;
}

/* ---- symbols and meshes ------------------------------------------------- */

static const char *S_sym_name(const shard_op *op) {
  const shard_attr *a = shard_verify_attr(op, "sym_name");
  return a && a->kind == SHARD_ATTR_STRING ? a->u.str.data : NULL;
}

static const shard_mesh *S_mesh_of_op(const shard_op *op) {
  const shard_attr *a = shard_verify_attr(op, "mesh");
  return a && a->kind == SHARD_ATTR_SDY_MESH ? a->u.mesh : NULL;
}

/* Indexes the sdy.mesh ops directly inside the top module (where MLIR's
 * symbol table looks) and reports redefined symbols like MLIR does. */
static void S_build_symbols(vf_ctx *cx) {
  const shard_op *top = cx->m->top;
  if (!top || !top->num_regions) return;
  for (const shard_block *b = top->regions[0].first; b; b = b->next)
    for (const shard_op *op = b->first; op; op = op->next) {
      const char *name = S_sym_name(op);
      if (!name) continue;
      void **slot = shard_strmap_slot(&cx->symbols, name, strlen(name));
      if (*slot) {
        vf_emit e = shard_verify_emit_op(cx, NULL, NULL);
        e.span = op->span;
        shard_verify_fail(&e, "redefinition of symbol named '%s'", name);
        shard_verify_note(cx, ((const shard_op *)*slot)->span, "see existing symbol definition here");
        continue;
      }
      *slot = (void *)op;
    }
}

const shard_op *shard_verify_lookup_symbol(vf_ctx *cx, const char *name) {
  const shard_op *op = name ? shard_strmap_get_cstr(&cx->symbols, name) : NULL;
  if (!op && cx->streaming) cx->stream_missed = true;
  return op;
}

/* A symbol once found is the same op for the whole verification (a
 * redefinition never replaces it, and the parser keeps a mesh op while
 * streaming), so the last mesh found answers the same name again. */
static const shard_mesh *vf_lookup_mesh(vf_ctx *cx, const char *name) {
  if (cx->mesh_seen && name && strcmp(cx->mesh_seen_name, name) == 0) return cx->mesh_seen;
  const shard_op *op = shard_verify_lookup_symbol(cx, name);
  const shard_mesh *m = shard_verify_op_is(op, "sdy.mesh") ? S_mesh_of_op(op) : NULL;
  size_t n = m ? strlen(name) : 0;
  if (m && n < VF_MESH_NAME_MAX) {
    memcpy(cx->mesh_seen_name, name, n + 1);
    cx->mesh_seen = m;
  }
  return m;
}

const shard_mesh *shard_verify_sharding_mesh(vf_ctx *cx, const shard_tensor_sharding *s) {
  if (!s) return NULL;
  if (s->inline_mesh) return s->inline_mesh;
  return vf_lookup_mesh(cx, s->mesh_name);
}

/* Meshes with few axes are scanned; bigger ones get a name index once. */
typedef struct S_axis_index {
  uint32_t cap;
  int32_t *slots; /* axis index + 1, 0 = empty */
} S_axis_index;

int shard_verify_axis_index(vf_ctx *cx, const shard_mesh *m, const char *name) {
  if (!m || !name) return -1;
  if (m->num_axes <= 8) {
    for (uint32_t i = 0; i < m->num_axes; i++)
      if (m->axes[i].name == name || (m->axes[i].name[0] == name[0] && strcmp(m->axes[i].name, name) == 0))
        return (int)i; /* the parser interns both: usually the same pointer */
    return -1;
  }
  S_axis_index *ix = shard_ptrmap_get_ptr(&cx->axis_index, m);
  if (!ix) {
    ix = SHARD_NEW(cx->keep, S_axis_index);
    ix->cap = 16;
    while (ix->cap < m->num_axes * 2) ix->cap *= 2;
    ix->slots = SHARD_NEW_ARRAY(cx->keep, int32_t, ix->cap);
    for (uint32_t a = 0; a < m->num_axes; a++) {
      uint32_t i = S_hash_str(m->axes[a].name) & (ix->cap - 1);
      while (ix->slots[i] && strcmp(m->axes[ix->slots[i] - 1].name, m->axes[a].name) != 0) i = (i + 1) & (ix->cap - 1);
      if (!ix->slots[i]) ix->slots[i] = (int32_t)a + 1; /* first of duplicates wins */
    }
    shard_ptrmap_put_ptr(&cx->axis_index, m, ix);
  }
  for (uint32_t i = S_hash_str(name) & (ix->cap - 1); ix->slots[i]; i = (i + 1) & (ix->cap - 1))
    if (strcmp(m->axes[ix->slots[i] - 1].name, name) == 0) return ix->slots[i] - 1;
  return -1;
}

int64_t shard_verify_axis_full_size(vf_ctx *cx, const shard_mesh *m, const char *name) {
  int i = shard_verify_axis_index(cx, m, name);
  return i < 0 ? -1 : m->axes[i].size;
}

bool shard_verify_same_mesh_ref(const shard_tensor_sharding *a, const shard_tensor_sharding *b) {
  if (a->inline_mesh || b->inline_mesh)
    return a->inline_mesh && b->inline_mesh && shard_mesh_equal(a->inline_mesh, b->inline_mesh);
  return a->mesh_name && b->mesh_name && strcmp(a->mesh_name, b->mesh_name) == 0;
}

shard_tensor_sharding *shard_verify_replicated_like(vf_ctx *cx, const shard_tensor_sharding *like, uint32_t rank) {
  shard_tensor_sharding *s = SHARD_NEW(cx->scratch, shard_tensor_sharding);
  s->mesh_name = like->mesh_name;
  s->inline_mesh = like->inline_mesh;
  s->rank = rank;
  s->dims = SHARD_NEW_ARRAY(cx->scratch, shard_dim_sharding, rank ? rank : 1);
  for (uint32_t d = 0; d < rank; d++) s->dims[d].priority = SHARD_NO_PRIORITY;
  s->reduction = SHARD_RED_SUM;
  s->span = like->span;
  return s;
}

/* ---- value shardings (Shardy's getSharding) ----------------------------- */

static const shard_tensor_sharding *S_per_value_at(const shard_attr *a, uint32_t i) {
  if (!a || a->kind != SHARD_ATTR_SDY_PER_VALUE || i >= a->u.per_value->num) return NULL;
  return &a->u.per_value->shardings[i];
}

static const shard_tensor_sharding *S_single_sharding(const shard_attr *a) {
  return a && a->kind == SHARD_ATTR_SDY_SHARDING ? a->u.sharding : NULL;
}

static const shard_tensor_sharding *S_func_arg_sharding(const shard_op *func, const shard_value *v) {
  (void)func;
  return S_single_sharding(shard_value_attr(v, "sdy.sharding"));
}

static const shard_tensor_sharding *const *S_kept_shardings(const vf_ctx *cx, const shard_op *def, uint32_t *n);

const shard_tensor_sharding *shard_verify_value_sharding(vf_ctx *cx, const shard_value *v) {
  if (!v) return NULL;
  /* a value of an op let go in a streamed function body: as it was */
  uint32_t nkept;
  const shard_tensor_sharding *const *kept = cx->streaming && v->def ? S_kept_shardings(cx, v->def, &nkept) : NULL;
  if (kept) return v->index < nkept ? kept[v->index] : NULL;
  /* A value owned by a data-flow op that has a data_flow_edge as its single
   * user takes the edge's sharding (DataFlowEdgeOp::lookup). */
  const shard_op *owner = v->def ? v->def : (v->block && v->block->parent ? v->block->parent->parent : NULL);
  if (owner && owner->num_regions && !shard_verify_op_is(owner, "func.func") && v->first_use &&
      !v->first_use->next_use && shard_verify_op_is(v->first_use->owner, "sdy.data_flow_edge"))
    return S_single_sharding(shard_verify_attr(v->first_use->owner, "sharding"));
  if (!owner) return NULL;
  if (!v->def) {
    if (shard_verify_op_is(owner, "func.func")) return S_func_arg_sharding(owner, v);
    if (shard_verify_op_is(owner, "sdy.manual_computation")) {
      const shard_tensor_sharding *s = S_per_value_at(shard_verify_attr(owner, "in_shardings"), v->index);
      const shard_attr *manual = shard_verify_attr(owner, "manual_axes");
      if (!manual || manual->kind != SHARD_ATTR_SDY_MANUAL_AXES) return s;
      /* eraseManualAxes */
      return shard_sharding_drop_manual(cx->scratch, s, manual->u.manual_axes.names, manual->u.manual_axes.num);
    }
    if (shard_verify_op_is(owner, "sdy.named_computation"))
      return S_per_value_at(shard_verify_attr(owner, "in_shardings"), v->index);
    /* a while block argument has the sharding of the matching while result,
     * as in Shardy's getSharding */
    if (shard_verify_op_is(owner, "stablehlo.while"))
      return S_per_value_at(shard_verify_attr(owner, "sdy.sharding"), v->index);
    return NULL;
  }
  if (shard_verify_op_is(owner, "sdy.data_flow_edge") || shard_verify_op_is(owner, "sdy.sharding_constraint") ||
      shard_verify_op_is(owner, "sdy.reshard"))
    return S_single_sharding(shard_verify_attr(owner, "sharding"));
  /* the prefix first: a value's owner is seldom an sdy op */
  if (shard_verify_is_sdy_op(owner) && shard_op_is_sdy_collective(owner))
    return S_single_sharding(shard_verify_attr(owner, "out_sharding"));
  if (shard_verify_op_is(owner, "sdy.manual_computation") || shard_verify_op_is(owner, "sdy.named_computation"))
    return S_per_value_at(shard_verify_attr(owner, "out_shardings"), v->index);
  return S_per_value_at(shard_verify_attr(owner, "sdy.sharding"), v->index);
}

const shard_tensor_sharding *shard_verify_value_sharding_bypassing_barriers(vf_ctx *cx, const shard_value *v) {
  while (v && v->def && shard_verify_op_is(v->def, "sdy.propagation_barrier") && v->def->num_operands)
    v = v->def->operands[0].value;
  return shard_verify_value_sharding(cx, v);
}

/* ---- axis refs: the algebra is sdy/axis.c's; these name it for the checks -- */

int64_t shard_verify_ax_pre(const shard_axis_ref *r) { return shard_axis_pre(r); }

int64_t shard_verify_ax_next(vf_ctx *cx, const shard_axis_ref *r, const shard_mesh *m) {
  return r->is_sub ? shard_axis_end(r, m) : shard_verify_axis_full_size(cx, m, r->name);
}

bool shard_verify_ax_overlaps(const shard_axis_ref *a, const shard_axis_ref *b) {
  return shard_axis_overlaps(a, b, NULL);
}

bool shard_verify_ax_can_merge(const shard_axis_ref *a, const shard_axis_ref *b) { return shard_axis_can_merge(a, b); }

shard_axis_ref shard_verify_ax_merge(vf_ctx *cx, const shard_axis_ref *a, const shard_axis_ref *b,
                                     const shard_mesh *m) {
  (void)cx;
  return shard_axis_merge(a, b, m);
}

bool shard_verify_ax_suffix_of(vf_ctx *cx, const shard_axis_ref *a, const shard_axis_ref *of, const shard_mesh *m) {
  (void)cx;
  return shard_axis_is_suffix_of(a, of, m);
}

bool shard_verify_ax_prefix_without_overlap(vf_ctx *cx, const shard_axis_ref *a, const shard_axis_ref *b,
                                            const shard_mesh *m, shard_axis_ref *out) {
  (void)cx;
  (void)m;
  return shard_axis_prefix_without_overlap(a, b, out);
}

int shard_verify_ax_compare(vf_ctx *cx, const shard_axis_ref *a, const shard_axis_ref *b, const shard_mesh *m) {
  (void)cx;
  return shard_axis_compare(a, b, m);
}

bool shard_verify_axes_equal(const shard_axis_ref *a, uint32_t na, const shard_axis_ref *b, uint32_t nb) {
  return shard_axes_equal(a, na, b, nb);
}

uint32_t shard_verify_sort_and_merge(vf_ctx *cx, shard_axis_ref *axes, uint32_t n, const shard_mesh *m) {
  (void)cx;
  return shard_axes_sort_and_merge(axes, n, m);
}

int64_t shard_verify_axes_size(vf_ctx *cx, const shard_axis_ref *axes, uint32_t n, const shard_mesh *m) {
  int64_t p = 1;
  for (uint32_t i = 0; i < n; i++) {
    int64_t s = axes[i].is_sub ? axes[i].size : shard_verify_axis_full_size(cx, m, axes[i].name);
    if (s <= 0) return -1;
    if (p > INT64_MAX / s) return -1;
    p *= s;
  }
  return p;
}

/* ---- phase 1: attribute checks made at parse time ------------------------ */

static int S_cmp_i64(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return x < y ? -1 : x > y;
}

/* MeshAxisAttr::verify and MeshAttr::verify. `e` carries the prefix MLIR's
 * custom-op parser adds ("custom op 'sdy.mesh' "). */
static bool S_check_mesh(vf_ctx *cx, const vf_emit *e, const shard_mesh *m, bool mesh_op) {
  for (uint32_t i = 0; i < m->num_axes; i++)
    if (m->axes[i].size <= 0) {
      shard_verify_fail(e, "axis size must be at least 1, got: %" PRId64, m->axes[i].size);
      if (mesh_op) /* the custom parser's follow-up error */
        return shard_verify_fail(e, "failed to parse Sdy_Mesh parameter 'axes' which is to be a "
                                    "`::llvm::ArrayRef<MeshAxisAttr>`");
      return false;
    }
  for (uint32_t i = 0; i < m->num_device_ids; i++)
    if (m->device_ids[i] < 0)
      return shard_verify_fail(e, "device id must be non-negative, got: %" PRId64, m->device_ids[i]);
  if (!m->num_axes) {
    if (m->num_device_ids > 1) return shard_verify_fail(e, "axes is empty and device_ids has more than one element");
    return true;
  }
  shard_verify_axis_set_reset(&cx->seen);
  shard_axis_ref *refs = SHARD_NEW_ARRAY(cx->scratch, shard_axis_ref, m->num_axes);
  for (uint32_t i = 0; i < m->num_axes; i++) {
    refs[i].name = m->axes[i].name;
    if (!shard_verify_axis_set_insert(&cx->seen, &refs[i]))
      return shard_verify_fail(e, "duplicate axis name: \"%s\"", m->axes[i].name);
  }
  if (!m->num_device_ids) return true;
  int64_t product = 1;
  for (uint32_t i = 0; i < m->num_axes; i++) product *= m->axes[i].size; /* wraps like Shardy's */
  if (product != (int64_t)m->num_device_ids)
    return shard_verify_fail(
        e, "total product of axis sizes must match total number of device ids, got: %" PRId64 " != %u", product,
        m->num_device_ids);
  int64_t *sorted = shard_xmalloc(sizeof *sorted * m->num_device_ids);
  memcpy(sorted, m->device_ids, sizeof *sorted * m->num_device_ids);
  qsort(sorted, m->num_device_ids, sizeof *sorted, S_cmp_i64);
  bool iota = true, ordered = true;
  for (uint32_t i = 0; i < m->num_device_ids; i++) {
    if (sorted[i] != (int64_t)i) iota = false;
    if (i && m->device_ids[i - 1] > m->device_ids[i]) ordered = false;
  }
  if (!iota) {
    shard_buf b;
    shard_buf_init(&b);
    for (uint32_t i = 0; i < m->num_device_ids; i++) shard_buf_printf(&b, "%s%" PRId64, i ? ", " : "", sorted[i]);
    free(sorted);
    shard_verify_fail(e, "sorted device ids must be iota(product(axes)), got: %s", shard_buf_str(&b));
    shard_buf_free(&b);
    return false;
  }
  free(sorted);
  /* Shardy's MeshAttr builder drops iota ids before verifying, so from text
   * an explicit iota is accepted (A7 never fires). */
  (void)ordered;
  return true;
}

static shard_span S_span_or(shard_span s, shard_span fallback) { return s.src ? s : fallback; }

static bool S_check_inline_mesh(vf_ctx *cx, const shard_mesh *m, shard_span at) {
  vf_emit e = shard_verify_emit_op(cx, NULL, NULL);
  e.span = S_span_or(m->span, at);
  return S_check_mesh(cx, &e, m, false);
}

/* Visits every attribute nested in `a` for the parse-time checks. */
static bool S_check_attr_syntax(vf_ctx *cx, const shard_attr *a, shard_span at) {
  if (!a) return true;
  at = S_span_or(a->span, at);
  switch (a->kind) {
  case SHARD_ATTR_SDY_MESH: return S_check_inline_mesh(cx, a->u.mesh, at);
  case SHARD_ATTR_SDY_SHARDING:
    return !a->u.sharding->inline_mesh || S_check_inline_mesh(cx, a->u.sharding->inline_mesh, at);
  case SHARD_ATTR_SDY_PER_VALUE: {
    bool ok = true;
    for (uint32_t i = 0; i < a->u.per_value->num && ok; i++)
      if (a->u.per_value->shardings[i].inline_mesh)
        ok = S_check_inline_mesh(cx, a->u.per_value->shardings[i].inline_mesh, at);
    return ok;
  }
  case SHARD_ATTR_SDY_EDGES: return shard_verify_check_edges_syntax(cx, a, at);
  case SHARD_ATTR_DENSE: return shard_verify_check_dense(cx, a, at);
  case SHARD_ATTR_ARRAY: {
    bool ok = true;
    for (uint32_t i = 0; i < a->u.array.num && ok; i++) ok = S_check_attr_syntax(cx, a->u.array.elems[i], at);
    return ok;
  }
  case SHARD_ATTR_DICT: {
    bool ok = true;
    for (uint32_t i = 0; i < a->u.dict.num && ok; i++) ok = S_check_attr_syntax(cx, a->u.dict.entries[i].value, at);
    return ok;
  }
  default: return true;
  }
}

static bool S_check_named_syntax(vf_ctx *cx, const shard_named_attr *list, uint32_t n, shard_span at) {
  bool ok = true;
  for (uint32_t i = 0; i < n; i++) ok &= S_check_attr_syntax(cx, list[i].value, at);
  return ok;
}

static bool S_phase1_op(shard_op *op, void *ctxp) {
  vf_ctx *cx = ctxp;
  cx->num_ops++;
  if (shard_verify_op_is(op, "sdy.mesh")) {
    const shard_mesh *m = S_mesh_of_op(op);
    vf_emit e = shard_verify_emit_op(cx, NULL, "custom op 'sdy.mesh' ");
    e.span = op->span;
    if (m) S_check_mesh(cx, &e, m, true);
    for (uint32_t i = 0; i < op->num_attrs; i++)
      if (strcmp(op->attrs[i].name, "mesh") != 0) S_check_attr_syntax(cx, op->attrs[i].value, op->span);
  } else {
    S_check_named_syntax(cx, op->attrs, op->num_attrs, op->span);
  }
  for (uint32_t r = 0; r < op->num_regions; r++)
    for (const shard_block *b = op->regions[r].first; b; b = b->next)
      for (uint32_t i = 0; i < b->num_args; i++)
        S_check_named_syntax(cx, b->arg_info[i].attrs, b->arg_info[i].num_attrs, op->span);
  return true;
}

/* ---- shard's own warnings ------------------------------------------------ */

static void S_warn_device_counts(vf_ctx *cx) {
  const shard_op *top = cx->m->top, *first = NULL;
  int64_t first_count = 0;
  if (!top || !top->num_regions) return;
  for (const shard_block *b = top->regions[0].first; b; b = b->next)
    for (const shard_op *op = b->first; op; op = op->next) {
      const shard_mesh *m = shard_verify_op_is(op, "sdy.mesh") ? S_mesh_of_op(op) : NULL;
      if (!m || !m->num_axes) continue; /* empty and maximal meshes are exempt */
      int64_t n = shard_mesh_num_devices(m);
      if (!first) {
        first = op, first_count = n;
        continue;
      }
      if (n != first_count) {
        vf_emit e = shard_verify_emit_op(cx, op, NULL);
        shard_verify_warn(&e,
                          "mesh @%s has %" PRId64 " devices but mesh @%s has %" PRId64
                          "; all meshes of a module should have the same number of devices",
                          S_sym_name(op), n, S_sym_name(first), first_count);
        shard_verify_note(cx, first->span, "mesh @%s defined here", S_sym_name(first));
      }
    }
}

/* ---- phase 2: the walk -------------------------------------------------- */

static bool S_is_isolated(const shard_op *op) {
  if (op->def && (op->def->traits & SHARD_TRAIT_ISOLATED)) return true;
  return shard_verify_op_is(op, "func.func") || shard_verify_op_is(op, "sdy.manual_computation") ||
         shard_verify_op_is(op, "sdy.named_computation") || shard_verify_op_is(op, "builtin.module");
}

/* The chain of IsolatedFromAbove ops enclosing the op being visited. */
typedef struct S_scope {
  const shard_op *op;
  bool reported; /* MLIR stops an isolated op's check at its first offender */
  struct S_scope *parent;
} S_scope;

static bool S_scope_is_ancestor(const S_scope *s, const shard_op *op) {
  for (; s; s = s->parent)
    if (s->op == op) return true;
  return false;
}

/* verifyIsIsolatedFromAbove: operands must be defined inside the nearest
 * isolated ancestor. Values of enclosing isolated scopes are reported. */
static void S_check_isolation(vf_ctx *cx, const shard_op *op, S_scope *scope) {
  if (!scope || scope->reported) return;
  for (uint32_t i = 0; i < op->num_operands; i++) {
    const shard_value *v = op->operands[i].value;
    if (!v) continue;
    const shard_block *b = v->def ? v->def->parent : v->block;
    /* the op's own block has the op's scope (S_walk records it so) */
    if (b == op->parent) continue;
    const shard_op *owner_scope = b ? shard_ptrmap_get_ptr(&cx->block_scope, b) : NULL;
    if (!owner_scope || owner_scope == scope->op) continue;
    if (!S_scope_is_ancestor(scope->parent, owner_scope)) continue;
    vf_emit e = shard_verify_emit_op(cx, op, NULL);
    shard_verify_fail(&e, "using value defined outside the region");
    shard_verify_note(cx, scope->op->span, "required by region isolation constraints");
    scope->reported = true;
    return;
  }
}

/* The op or ancestor of op that sits directly in block b, or NULL. */
static const shard_op *S_ancestor_in(const shard_op *op, const shard_block *b) {
  for (; op; op = op->parent && op->parent->parent ? op->parent->parent->parent : NULL)
    if (op->parent == b) return op;
  return NULL;
}

/* A region whose ops may use values defined after them (MLIR's graph
 * regions): the module body. */
static bool S_graph_block(const shard_block *b) {
  const shard_op *owner = b && b->parent ? b->parent->parent : NULL;
  return owner && owner->name[0] == 'b' && strcmp(owner->name, "builtin.module") == 0;
}

/* Whether def is one of the few ops right before op in its block (then its
 * walk has finished): most operands are defined a line or two above. */
static bool S_just_before(const shard_op *def, const shard_op *op) {
  const shard_op *p = op->prev;
  for (int i = 0; i < 4 && p; i++, p = p->prev)
    if (p == def) return true;
  return false;
}

static bool S_walked(const vf_ctx *cx, const shard_op *op) {
  uint32_t id;
  return shard_op_table_find(&cx->walked, op, &id);
}

/* Dominance in MLIR's SSACFG regions: an operand is a value defined earlier
 * in the block of the use or of an enclosing op, or an argument of such a
 * block (values of other blocks of those regions are accepted: their
 * control-flow dominance is not checked). A value of a sibling region, or an
 * op's own result used inside its regions, does not dominate the use. */
static void S_check_dominance(vf_ctx *cx, const shard_op *op) {
  for (uint32_t i = 0; i < op->num_operands; i++) {
    const shard_value *v = op->operands[i].value;
    if (!v) continue;
    const shard_block *b = v->def ? v->def->parent : v->block;
    if (!b) continue;
    const shard_op *at = S_ancestor_in(op, b);
    bool ok;
    if (!at) {
      /* another block of a region enclosing the use: CFG, not checked */
      ok = false;
      for (const shard_op *a = op; a && !ok; a = a->parent && a->parent->parent ? a->parent->parent->parent : NULL)
        ok = a->parent && a->parent->parent && a->parent->parent == b->parent;
    } else {
      /* an op let go in a streamed function body was before anything
       * read after it in that block */
      ok = !v->def || S_graph_block(b) || S_just_before(v->def, at) || S_walked(cx, v->def) ||
           (cx->streaming && S_kept_shardings(cx, v->def, &(uint32_t){0}));
    }
    if (!ok) {
      vf_emit e = shard_verify_emit_op(cx, op, NULL);
      shard_verify_fail(&e, "operand #%u does not dominate this use", i);
      return;
    }
  }
}

/* MLIR's block check: each block of a known op's regions ends with a
 * terminator unless the op has NoTerminator (a module); an unknown op might
 * need none, and an unknown last op might be one. A function body without
 * its return printed, and did not read back (fuzz_mlir). */
static bool S_check_terminators(vf_ctx *cx, const shard_op *op) {
  if (!op->def || (op->def->traits & SHARD_TRAIT_NO_TERMINATOR)) return true;
  for (uint32_t r = 0; r < op->num_regions; r++)
    for (const shard_block *b = op->regions[r].first; b; b = b->next) {
      /* `{}` reads as one empty block; in MLIR it is a region without
       * blocks (a function declaration), which needs no terminator */
      if (!b->first && b == op->regions[r].first && !b->next && !b->num_args) continue;
      if (!b->first) {
        vf_emit plain = shard_verify_emit_op(cx, NULL, NULL);
        plain.span = op->span;
        return shard_verify_fail(&plain, "empty block: expect at least a terminator");
      }
      if (b->last->def && !(b->last->def->traits & SHARD_TRAIT_TERMINATOR)) {
        vf_emit plain = shard_verify_emit_op(cx, NULL, NULL);
        plain.span = b->last->span;
        return shard_verify_fail(&plain, "block with no terminator, has '%s' op", b->last->name);
      }
    }
  return true;
}

static bool S_stream_uses_gone(const vf_ctx *cx);

static void S_walk(vf_ctx *cx, const shard_op *op, S_scope *scope, const vf_manual *manual) {
  /* Nothing of an op's checks outlives them: the scratch memory of the ops
   * before is let go every so often, not kept for the whole module. */
  if (++cx->walk_tick % VF_SCRATCH_CHECK_EVERY == 0 && shard_arena_used(cx->scratch) > (1u << 18))
    shard_arena_reset(cx->scratch);
  /* data-flow edges count the uses of their operand, some of which went
   * with the ops let go in a streamed function body */
  if (cx->streaming && S_stream_uses_gone(cx) &&
      (shard_verify_op_is(op, "sdy.data_flow_edge") || shard_verify_op_is(op, "sdy.func_data_flow_edge")))
    cx->stream_missed = true;
  S_check_isolation(cx, op, scope);
  S_check_dominance(cx, op);
  bool ok = true;
  if (op->next && op->def && (op->def->traits & SHARD_TRAIT_TERMINATOR)) {
    vf_emit e = shard_verify_emit_op(cx, op, NULL);
    ok = shard_verify_fail(&e, "must be the last operation in the parent block");
  }
  for (uint32_t i = 0; ok && i < op->num_successors; i++) {
    const shard_block *succ = op->successors[i];
    const shard_region *r = succ ? succ->parent : NULL;
    if (r && r->first == succ) {
      /* MLIR reports it on the op that owns the region, without the op prefix */
      vf_emit plain = shard_verify_emit_op(cx, NULL, NULL);
      plain.span = r->parent ? r->parent->span : op->span;
      ok = shard_verify_fail(&plain, "entry block of region may not have predecessors");
    }
  }
  if (ok) ok = S_check_terminators(cx, op);
  if (ok) ok = shard_verify_check_op_attrs(cx, op, manual);
  if (ok) ok = shard_verify_check_arity(cx, op);
  if (ok) ok = shard_verify_check_required_attrs(cx, op);
  if (ok) ok = shard_verify_check_stablehlo(cx, op);
  if (ok) ok = shard_verify_check_chlo(cx, op);
  if (ok) ok = shard_verify_check_op_entry(cx, op, manual);

  if (op->num_regions) {
    S_scope inner = {op, false, scope};
    S_scope *child_scope = S_is_isolated(op) ? &inner : scope;
    vf_manual mc = {op, shard_verify_attr(op, "manual_axes"), manual};
    const vf_manual *child_manual = shard_verify_op_is(op, "sdy.manual_computation") ? &mc : manual;
    for (uint32_t r = 0; r < op->num_regions; r++)
      for (const shard_block *b = op->regions[r].first; b; b = b->next) {
        shard_ptrmap_put_ptr(&cx->block_scope, b, child_scope ? child_scope->op : NULL);
        for (const shard_op *child = b->first; child; child = child->next) S_walk(cx, child, child_scope, child_manual);
      }
  }

  if (ok) shard_verify_check_op_symbol_uses(cx, op, manual);
  if (op->num_results) shard_op_table_add(&cx->walked, op); /* only a value's op is asked about */
}

/* Gives back what a verification context holds (whole-module or streamed). */
static void S_ctx_release(vf_ctx *cx) {
  shard_strmap_release(&cx->symbols);
  shard_ptrmap_release(&cx->axis_index);
  shard_ptrmap_release(&cx->block_scope);
  shard_op_table_release(&cx->walked);
  vf_axis_set_free(&cx->seen);
  shard_arena_free(cx->scratch);
  shard_arena_free(cx->keep);
  shard_strmap_release(&cx->clean_shardings);
  if (cx->clean_keys) shard_arena_free(cx->clean_keys);
  shard_buf_free(&cx->clean_key);
}

bool shard_verify_module(const shard_module *m, const shard_verify_options *opts, shard_diag_engine *de) {
  shard_verify_options defaults = {0};
  vf_ctx cx;
  memset(&cx, 0, sizeof cx);
  cx.m = m;
  cx.opts = opts ? opts : &defaults;
  cx.de = de;
  cx.scratch = shard_arena_new();
  cx.keep = shard_arena_new();
  shard_op_table_init(&cx.walked);
  cx.ok = true;
  if (m && m->top) {
    S_build_symbols(&cx);
    shard_walk(m->top, S_phase1_op, &cx);
    if (cx.ok) {
      if (cx.opts->extra_warnings) S_warn_device_counts(&cx);
      shard_op_table_reserve(&cx.walked, cx.num_ops); /* no growth per doubling */
      S_walk(&cx, m->top, NULL, NULL);
      if (cx.ok) shard_verify_check_recursion(&cx);
    }
  }
  S_ctx_release(&cx);
  return cx.ok;
}

/* ---- streamed verification ------------------------------------------------ */

/* A function as later ops and the recursion check need it. */
typedef struct S_stream_func {
  bool has_body;
  uint32_t first_callee, num_callees; /* in callees */
} S_stream_func;

/* What the values of an op let go in a streamed function body keep of it
 * (shard_verify_stream_body_ops): a stand-in for their def, shared by the
 * ops alike, with what later checks read of a def: its name and
 * definition, its block (dominance, isolation), the values' shardings
 * (shard_verify_value_sharding) and a shape constant's `value`
 * (verify_stablehlo.c's S_constant_shape). */
typedef struct S_kept_def {
  shard_op op;
  uint32_t num_shardings;
  const shard_tensor_sharding **shardings; /* by result number */
} S_kept_def;

/* A constant kept as a stand-in's `value`: a shape (a few integers). */
#define S_KEPT_CONSTANT_MAX 64

struct shard_verify_stream {
  vf_ctx cx; /* first: a streaming vf_ctx is its stream */
  shard_verify_options opts;
  shard_diag_engine de; /* only notes that something would be said */
  bool said;
  shard_arena *arena; /* what outlives the streamed ops: symbols' names, function stubs */
  shard_op *top; /* stands for the module op, made only after its body */
  shard_module module; /* cx.m while the body streams */
  bool have_mesh_count;
  int64_t mesh_count; /* devices of the first mesh with axes */
  SHARD_VEC(S_stream_func) funcs;
  SHARD_VEC(const char *) callees;
  shard_strmap func_index; /* function name -> index in funcs + 1 */
  shard_strmap types; /* the stubs' types by text: one per distinct type (most functions share a few) */
  /* streaming inside a function body: full types and shardings of the
   * values kept, by their text (a few distinct ones) */
  shard_strmap full_types, shardings;
  /* the function op of a body being read, not made yet, in a stand-in
   * module body (func.call looks for its symbol table up from the call) */
  shard_op *fn_standin;
  uint32_t body_callees; /* the last of callees: calls let go of the body being read */
  /* the current function's kept defs: by what they hold, and as a set
   * (values: S_kept_def*), in `body`, reset once the function is verified */
  shard_strmap kept_by_key;
  shard_ptrmap kept_defs;
  shard_ptrmap plain_defs; /* op definition -> its kept def without shardings or value */
  /* the piece's types and shardings -> their kept copies (the parser
   * shares one object between the piece's ops) */
  shard_ptrmap piece_kept;
  const shard_type *last_type; /* the piece's last type asked, and its copy */
  shard_type *last_kept_type;
  shard_arena *body;
};

static void S_stream_diag(void *ctx, const shard_diag *d) {
  (void)d;
  ((shard_verify_stream *)ctx)->said = true;
}

shard_verify_stream *shard_verify_stream_new(const shard_verify_options *opts) {
  shard_verify_stream *vs = shard_xcalloc(1, sizeof *vs);
  if (opts) vs->opts = *opts;
  shard_diag_init(&vs->de, S_stream_diag, vs);
  vs->arena = shard_arena_new();
  vs->top = shard_op_create(vs->arena, "builtin.module", 0, NULL, 0, NULL, 0);
  vs->top->def = shard_op_def_lookup("builtin.module", 14);
  vs->module.top = vs->top;
  vf_ctx *cx = &vs->cx;
  cx->m = &vs->module;
  cx->opts = &vs->opts;
  cx->de = &vs->de;
  cx->scratch = shard_arena_new();
  cx->keep = shard_arena_new();
  shard_op_table_init(&cx->walked);
  cx->ok = true;
  cx->streaming = true;
  vs->body = shard_arena_new();
  vs->fn_standin = shard_op_create(vs->arena, "func.func", 0, NULL, 0, NULL, 0);
  vs->fn_standin->def = shard_op_def_lookup("func.func", 9);
  shard_region *module_body = SHARD_NEW(vs->arena, shard_region);
  module_body->parent = vs->top;
  vs->fn_standin->parent = shard_region_add_block(vs->arena, module_body);
  return vs;
}

void shard_verify_stream_free(shard_verify_stream *vs) {
  if (!vs) return;
  S_ctx_release(&vs->cx);
  SHARD_VEC_FREE(vs->funcs);
  SHARD_VEC_FREE(vs->callees);
  shard_strmap_release(&vs->func_index);
  shard_strmap_release(&vs->types);
  shard_strmap_release(&vs->full_types);
  shard_strmap_release(&vs->shardings);
  shard_strmap_release(&vs->kept_by_key);
  shard_ptrmap_release(&vs->kept_defs);
  shard_ptrmap_release(&vs->plain_defs);
  shard_ptrmap_release(&vs->piece_kept);
  shard_arena_free(vs->body);
  shard_arena_free(vs->arena);
  free(vs);
}

static bool S_stream_clean(const shard_verify_stream *vs) { return !vs->said && vs->cx.ok && !vs->cx.stream_missed; }

/* Forgets whatever is keyed by the address of an op, block, mesh or name
 * of the op before, whose memory the next one reuses. */
static void S_stream_forget(vf_ctx *cx) {
  shard_op_table_release(&cx->walked);
  shard_op_table_init(&cx->walked);
  shard_ptrmap_clear(&cx->block_scope);
  shard_ptrmap_clear(&cx->axis_index);
  shard_arena_reset(cx->keep);
  shard_arena_reset(cx->scratch);
}

/* A type by its text, which is all a call compares (shard_type_equal). */
static shard_type *S_type_by_text(shard_verify_stream *vs, const shard_type *t) {
  shard_type *c = shard_strmap_get_cstr(&vs->types, t->text);
  if (c) return c;
  c = SHARD_NEW(vs->arena, shard_type);
  c->kind = SHARD_TYPE_OTHER;
  c->text = shard_arena_strdup(vs->arena, t->text);
  shard_strmap_put_cstr(&vs->types, c->text, c); /* keyed by the kept copy */
  return c;
}

/* What a call of the function reads of it (S_check_call): its name and
 * function_type, kept when its body goes. */
static shard_op *S_func_stub(shard_verify_stream *vs, const shard_op *fn, const char *name) {
  shard_arena *a = vs->arena;
  shard_op *stub = shard_op_create(a, "func.func", 0, NULL, 0, NULL, 0);
  stub->def = fn->def;
  shard_attr *sym = shard_attr_string(a, name, (uint32_t)strlen(name));
  shard_op_set_attr(a, stub, "sym_name", sym, true);
  const shard_attr *ft = shard_verify_attr(fn, "function_type");
  const shard_type *t = ft && ft->kind == SHARD_ATTR_TYPE ? ft->u.type : NULL;
  if (t && t->kind == SHARD_TYPE_FUNCTION) {
    shard_type *c = shard_strmap_get_cstr(&vs->types, t->text);
    if (!c || c->kind != SHARD_TYPE_FUNCTION) {
      c = SHARD_NEW(a, shard_type);
      c->kind = SHARD_TYPE_FUNCTION;
      c->text = shard_arena_strdup(a, t->text);
      c->num_inputs = t->num_inputs;
      c->num_results = t->num_results;
      c->inputs = t->num_inputs ? SHARD_NEW_ARRAY(a, shard_type *, t->num_inputs) : NULL;
      c->results = t->num_results ? SHARD_NEW_ARRAY(a, shard_type *, t->num_results) : NULL;
      for (uint32_t i = 0; i < t->num_inputs; i++) c->inputs[i] = S_type_by_text(vs, t->inputs[i]);
      for (uint32_t i = 0; i < t->num_results; i++) c->results[i] = S_type_by_text(vs, t->results[i]);
      shard_strmap_put_cstr(&vs->types, c->text, c); /* a new key, or a new value for the kept one */
    }
    shard_attr *kept = shard_attr_new(a, SHARD_ATTR_TYPE);
    kept->u.type = c;
    shard_op_set_attr(a, stub, "function_type", kept, true);
  } else if (ft) {
    return NULL; /* a malformed signature: left to the whole check */
  }
  return stub;
}

bool shard_verify_stream_op(shard_verify_stream *vs, shard_op *op) {
  vf_ctx *cx = &vs->cx;
  bool mesh = shard_verify_op_is(op, "sdy.mesh");
  if (!S_stream_clean(vs) || op->num_operands || op->num_results || (!mesh && !shard_verify_op_is(op, "func.func")) ||
      !op->parent || !op->parent->parent || op->prev || op->next)
    return false;
  const char *name = S_sym_name(op);
  if (!name || shard_strmap_get_cstr(&cx->symbols, name)) return false; /* a redefinition is reported */
  name = shard_arena_strdup(vs->arena, name);
  if (mesh) {
    /* S_warn_device_counts, as the meshes come */
    const shard_mesh *m = S_mesh_of_op(op);
    if (vs->opts.extra_warnings && m && m->num_axes) {
      int64_t n = shard_mesh_num_devices(m);
      if (vs->have_mesh_count && n != vs->mesh_count) return false;
      vs->have_mesh_count = true;
      vs->mesh_count = n;
    }
    shard_strmap_put_cstr(&cx->symbols, name, op); /* the parser keeps a mesh */
  } else {
    shard_op *stub = S_func_stub(vs, op, name);
    if (!stub) return false;
    shard_strmap_put_cstr(&cx->symbols, name, stub);
    /* its calls let go with pieces of its body first */
    S_stream_func f = {op->num_regions && op->regions[0].first, vs->callees.len - vs->body_callees, 0};
    vs->body_callees = 0;
    if (f.has_body) {
      shard_op **calls;
      uint32_t n = shard_func_calls(op, &calls);
      for (uint32_t i = 0; i < n; i++) {
        const char *callee = shard_call_callee(calls[i]);
        if (callee) SHARD_VEC_PUSH(vs->callees, shard_arena_strdup(vs->arena, callee));
      }
      free(calls);
      f.num_callees = vs->callees.len - f.first_callee;
    }
    SHARD_VEC_PUSH(vs->funcs, f);
    shard_strmap_put_cstr(&vs->func_index, name, (void *)(uintptr_t)vs->funcs.len);
  }
  /* the two phases of shard_verify_module, for this op: with nothing to
   * report, their order does not matter */
  cx->num_ops = 0;
  shard_walk(op, S_phase1_op, cx);
  if (!S_stream_clean(vs)) return false;
  S_stream_forget(cx);
  shard_op_table_reserve(&cx->walked, cx->num_ops); /* no growth per doubling */
  op->parent->parent->parent = vs->top;
  shard_ptrmap_put_ptr(&cx->block_scope, op->parent, vs->top);
  S_scope scope = {vs->top, false, NULL};
  S_walk(cx, op, &scope, NULL);
  /* the values let go of its body are not named again */
  shard_strmap_forget(&vs->kept_by_key);
  shard_ptrmap_clear(&vs->kept_defs);
  shard_ptrmap_clear(&vs->plain_defs);
  shard_arena_reset(vs->body);
  return S_stream_clean(vs);
}

/* ---- streaming inside a function body ------------------------------------ */

static const shard_tensor_sharding *const *S_kept_shardings(const vf_ctx *cx, const shard_op *def, uint32_t *n) {
  const shard_verify_stream *vs = (const shard_verify_stream *)cx; /* cx->streaming: its first member */
  const S_kept_def *k = vs->kept_defs.len ? shard_ptrmap_get_ptr(&vs->kept_defs, def) : NULL;
  if (!k) return NULL;
  *n = k->num_shardings;
  static const shard_tensor_sharding *const none[1] = {NULL};
  return k->num_shardings ? k->shardings : none;
}

static bool S_stream_uses_gone(const vf_ctx *cx) { return ((const shard_verify_stream *)cx)->kept_defs.len != 0; }

/* A value's type, whole (the checks read rank, dims and element type), in
 * the stream's memory: one per distinct text. NULL for a kind not copied. */
static shard_type *S_keep_type(shard_verify_stream *vs, const shard_type *t) {
  if (!t || !t->text) return NULL;
  if (t == vs->last_type) return vs->last_kept_type; /* most ops have their operands' type */
  shard_type *c = shard_ptrmap_get_ptr(&vs->piece_kept, t);
  if (c) {
    vs->last_type = t;
    vs->last_kept_type = c;
    return c;
  }
  c = shard_strmap_get_cstr(&vs->full_types, t->text);
  if (c) {
    shard_ptrmap_put_ptr(&vs->piece_kept, t, c);
    return c;
  }
  if (t->quant ||
      (t->kind != SHARD_TYPE_TENSOR && t->kind != SHARD_TYPE_UNRANKED_TENSOR && t->kind != SHARD_TYPE_OTHER))
    return NULL;
  shard_arena *a = vs->arena;
  c = SHARD_NEW(a, shard_type);
  c->kind = t->kind;
  c->text = shard_arena_strdup(a, t->text);
  c->rank = t->kind == SHARD_TYPE_TENSOR ? t->rank : 0;
  c->dims = c->rank ? shard_arena_dup(a, t->dims, sizeof *t->dims * t->rank) : NULL;
  c->elem = t->elem ? shard_arena_strdup(a, t->elem) : NULL;
  c->encoding = t->encoding ? shard_arena_strdup(a, t->encoding) : NULL;
  shard_strmap_put_cstr(&vs->full_types, c->text, c);
  shard_ptrmap_put_ptr(&vs->piece_kept, t, c);
  return c;
}

static shard_axis_ref *S_keep_axes(shard_arena *a, const shard_axis_ref *axes, uint32_t n) {
  if (!n) return NULL;
  shard_axis_ref *c = shard_arena_dup(a, axes, sizeof *axes * n);
  for (uint32_t i = 0; i < n; i++) c[i].name = c[i].name ? shard_arena_strdup(a, c[i].name) : NULL;
  return c;
}

/* A sharding, whole, in the stream's memory: one per distinct text. False
 * for one with an inline mesh (not copied). */
static bool S_keep_sharding(shard_verify_stream *vs, const shard_tensor_sharding *s,
                            const shard_tensor_sharding **out) {
  *out = NULL;
  if (!s) return true;
  if (s->inline_mesh) return false;
  if ((*out = shard_ptrmap_get_ptr(&vs->piece_kept, s))) return true;
  shard_buf b;
  shard_buf_init(&b);
  shard_sharding_print(&b, s);
  shard_tensor_sharding *c = shard_strmap_get(&vs->shardings, shard_buf_str(&b), b.len);
  if (!c) {
    shard_arena *a = vs->arena;
    c = shard_arena_dup(a, s, sizeof *s);
    c->mesh_name = s->mesh_name ? shard_arena_strdup(a, s->mesh_name) : NULL;
    c->dims = s->rank ? shard_arena_dup(a, s->dims, sizeof *s->dims * s->rank) : NULL;
    for (uint32_t d = 0; d < s->rank; d++) c->dims[d].axes = S_keep_axes(a, s->dims[d].axes, s->dims[d].num_axes);
    c->replicated = S_keep_axes(a, s->replicated, s->num_replicated);
    c->unreduced = S_keep_axes(a, s->unreduced, s->num_unreduced);
    shard_strmap_put(&vs->shardings, shard_arena_strndup(a, shard_buf_str(&b), b.len), b.len, c);
  }
  shard_buf_free(&b);
  shard_ptrmap_put_ptr(&vs->piece_kept, s, c);
  *out = c;
  return true;
}

/* Whether an op of a function body may be let go once verified: what the
 * checks of later ops read of it is kept (S_kept_def). Not: an op with
 * regions or successors (uses of its values inside, blocks), a terminator
 * ("must be the last operation" needs the op after it), an op whose checks
 * read its parent (func.return, func.call, sdy.mesh), a propagation
 * barrier (read through), data-flow edges (their operand's uses), an op
 * shard does not know. */
/* Ops whose checks read more than a stand-in keeps: func.return and
 * sdy.mesh read their parent op, data-flow edges their operand's uses (by
 * ops not read yet); a propagation barrier is read through by later ops
 * (at the top of the body only), an unknown op could be anything. Nested
 * terminators are let go with their op (their blocks are whole). */
static shard_op_name K_kept_whole[] = {{"func.return", NULL},
                                       {"func.func", NULL},
                                       {"sdy.mesh", NULL},
                                       {"builtin.module", NULL},
                                       {"sdy.data_flow_edge", NULL},
                                       {"sdy.func_data_flow_edge", NULL},
                                       {"sdy.propagation_barrier", NULL}};
enum { S_KEPT_WHOLE_NESTED = 6 }; /* the first ones: anywhere in the op */

static bool S_nested_releasable(shard_op *op, void *ctx) {
  bool *ok = ctx;
  for (size_t i = 0; i < S_KEPT_WHOLE_NESTED && *ok; i++) *ok = !shard_op_is(op, &K_kept_whole[i]);
  *ok = *ok && op->def;
  return *ok;
}

/* Whether an op of a function body may be let go once verified: what the
 * checks of later ops read of it is kept (S_kept_def). Not: an op with
 * successors (block labels) or a terminator ("must be the last operation"
 * needs the op after it), or one holding an op of K_kept_whole. */
static bool S_body_op_releasable(shard_op *op) {
  if (!op->def || op->num_successors || (op->def->traits & SHARD_TRAIT_TERMINATOR)) return false;
  for (size_t i = 0; i < sizeof K_kept_whole / sizeof *K_kept_whole; i++)
    if (shard_op_is(op, &K_kept_whole[i])) return false;
  bool ok = true;
  for (uint32_t r = 0; r < op->num_regions && ok; r++)
    for (shard_block *b = op->regions[r].first; b && ok; b = b->next)
      for (shard_op *child = b->first; child && ok; child = child->next) shard_walk(child, S_nested_releasable, &ok);
  return ok;
}

/* The callees of the calls let go (shard_func_calls' walk, a piece at a
 * time): the function's calls, once it is verified. */
static bool S_collect_callee(shard_op *op, void *ctx) {
  shard_verify_stream *vs = ctx;
  static shard_op_name K_call = {"func.call", NULL};
  const char *callee = shard_op_is(op, &K_call) ? shard_call_callee(op) : NULL;
  if (callee) {
    SHARD_VEC_PUSH(vs->callees, shard_arena_strdup(vs->arena, callee));
    vs->body_callees++;
  }
  return true;
}

/* The stand-in def of op's values (S_kept_def): NULL when something of op
 * is not kept (an inline mesh, a long constant). */
static S_kept_def *S_keep_def(shard_verify_stream *vs, const shard_op *op, shard_block *b) {
  vf_ctx *cx = &vs->cx;
  SHARD_SVEC(const shard_tensor_sharding *, 8) sh = {0};
  SHARD_SVEC_INIT(sh);
  bool ok = true;
  uint32_t nsh = 0;
  for (uint32_t i = 0; i < op->num_results && ok; i++) {
    const shard_tensor_sharding *s;
    ok = S_keep_sharding(vs, shard_verify_value_sharding(cx, &op->results[i]), &s);
    SHARD_SVEC_PUSH(sh, s);
    if (s) nsh = i + 1;
  }
  shard_i64s value = {NULL, 0};
  /* by definition: every body op is asked, and most are stablehlo.* ops,
   * which a name compare tells apart only with a strcmp call */
  static shard_op_name K_constant = {"stablehlo.constant", NULL};
  const shard_attr *va = ok && shard_op_is(op, &K_constant) ? shard_verify_attr(op, "value") : NULL;
  bool constant = va && shard_attr_i64_list(va, &value);
  if (constant && value.n > S_KEPT_CONSTANT_MAX) ok = false;
  S_kept_def *k = NULL;
  shard_buf key; /* definition, shardings, constant value: what the stand-in holds */
  shard_buf_init(&key);
  bool plain = !nsh && !constant; /* most ops: one stand-in per definition */
  if (ok && plain) {
    k = shard_ptrmap_get_ptr(&vs->plain_defs, op->def);
  } else if (ok) {
    shard_buf_putn(&key, (const char *)&op->def, sizeof op->def);
    shard_buf_putn(&key, (const char *)sh.items, sizeof *sh.items * nsh);
    if (constant) shard_buf_putn(&key, (const char *)value.v, sizeof *value.v * value.n);
    k = shard_strmap_get(&vs->kept_by_key, shard_buf_str(&key), key.len);
  }
  if (ok && !k) {
    shard_arena *a = vs->body;
    k = SHARD_NEW(a, S_kept_def);
    k->op.name = shard_arena_strdup(a, op->name);
    k->op.def = op->def;
    k->op.parent = b;
    k->num_shardings = nsh;
    k->shardings = nsh ? shard_arena_dup(a, sh.items, sizeof *sh.items * nsh) : NULL;
    if (constant) shard_op_set_attr(a, &k->op, "value", shard_attr_dense_i64(a, value.v, value.n), true);
    if (plain) shard_ptrmap_put_ptr(&vs->plain_defs, op->def, k);
    else shard_strmap_put(&vs->kept_by_key, shard_arena_dup(a, shard_buf_str(&key), key.len), key.len, k);
    shard_ptrmap_put_ptr(&vs->kept_defs, &k->op, k);
  }
  shard_buf_free(&key);
  SHARD_SVEC_FREE(sh);
  return k;
}

bool shard_verify_stream_body_ops(shard_verify_stream *vs, shard_block *b) {
  vf_ctx *cx = &vs->cx;
  shard_region *r = b->parent;
  if (!S_stream_clean(vs) || !r || (r->parent && r->parent != vs->fn_standin)) return false;
  shard_ptrmap_clear(&vs->piece_kept); /* the last piece's objects are gone */
  vs->last_type = NULL;
  for (shard_op *op = b->first; op; op = op->next) {
    if (!S_body_op_releasable(op)) return false;
    for (uint32_t i = 0; i < op->num_results; i++)
      if (!S_keep_type(vs, op->results[i].type)) return false;
  }
  /* stands for the function op until it is made (which overwrites it) */
  r->parent = vs->fn_standin;
  /* the two phases of shard_verify_module, for these ops */
  cx->num_ops = 0;
  for (shard_op *op = b->first; op; op = op->next) shard_walk(op, S_phase1_op, cx);
  if (!S_stream_clean(vs)) return false;
  S_stream_forget(cx);
  shard_op_table_reserve(&cx->walked, cx->num_ops);
  shard_ptrmap_put_ptr(&cx->block_scope, b, vs->fn_standin);
  S_scope scope = {vs->fn_standin, false, NULL};
  for (const shard_op *op = b->first; op; op = op->next) S_walk(cx, op, &scope, NULL);
  if (!S_stream_clean(vs)) return false;
  /* the stand-ins first, so that nothing is changed when one is missing */
  SHARD_VEC(S_kept_def *) defs = {0};
  bool ok = true;
  for (const shard_op *op = b->first; op && ok; op = op->next)
    if (op->num_results) {
      S_kept_def *k = S_keep_def(vs, op, b);
      ok = k != NULL;
      SHARD_VEC_PUSH(defs, k);
    }
  uint32_t i = 0;
  for (shard_op *op = b->first; op && ok; op = op->next) {
    if (!op->num_results) continue;
    shard_value *kept = shard_arena_dup(vs->body, op->results, sizeof *op->results * op->num_results);
    for (uint32_t v = 0; v < op->num_results; v++) {
      kept[v].type = S_keep_type(vs, kept[v].type);
      kept[v].def = &defs.items[i]->op;
      kept[v].block = NULL;
      kept[v].first_use = NULL;
    }
    op->results = kept;
    i++;
  }
  SHARD_VEC_FREE(defs);
  for (shard_op *op = b->first; op && ok; op = op->next) shard_walk(op, S_collect_callee, vs);
  return ok;
}

/* shard_call_graph_find_recursion's question on the kept calls: does a
 * function with a body reach itself through calls of functions with bodies? */
static bool S_stream_recursive(shard_verify_stream *vs) {
  uint32_t n = vs->funcs.len;
  unsigned char *state = shard_xcalloc(n ? n : 1, 1); /* 1 on the stack, 2 done */
  SHARD_VEC(uint32_t) stack = {0}; /* function index; its next callee in next[] */
  uint32_t *next = shard_xcalloc(n ? n : 1, sizeof *next);
  bool found = false;
  for (uint32_t root = 0; root < n && !found; root++) {
    if (state[root] || !vs->funcs.items[root].has_body) continue;
    state[root] = 1;
    SHARD_VEC_PUSH(stack, root);
    while (stack.len && !found) {
      uint32_t f = stack.items[stack.len - 1];
      const S_stream_func *fn = &vs->funcs.items[f];
      if (next[f] == fn->num_callees) {
        state[f] = 2;
        stack.len--;
        continue;
      }
      const char *callee = vs->callees.items[fn->first_callee + next[f]++];
      uintptr_t k = (uintptr_t)shard_strmap_get_cstr(&vs->func_index, callee);
      if (!k || !vs->funcs.items[k - 1].has_body || state[k - 1] == 2) continue;
      if (state[k - 1] == 1) {
        found = true;
        break;
      }
      state[k - 1] = 1;
      SHARD_VEC_PUSH(stack, (uint32_t)(k - 1));
    }
  }
  SHARD_VEC_FREE(stack);
  free(next);
  free(state);
  return found;
}

bool shard_verify_stream_finish(shard_verify_stream *vs, const shard_module *m) {
  vf_ctx *cx = &vs->cx;
  if (!S_stream_clean(vs) || !m || !m->top || m->implicit_top || !shard_verify_op_is(m->top, "builtin.module") ||
      m->top->num_regions != 1)
    return false;
  for (const shard_block *b = m->top->regions[0].first; b; b = b->next)
    if (b->first || b != m->top->regions[0].first) return false;
  /* the module op's own checks; its body went by already */
  cx->m = m;
  S_stream_forget(cx);
  shard_walk(m->top, S_phase1_op, cx);
  if (!S_stream_clean(vs)) return false;
  S_walk(cx, m->top, NULL, NULL);
  return S_stream_clean(vs) && !S_stream_recursive(vs);
}
