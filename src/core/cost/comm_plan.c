/* The communication plan of a sharded program.
 *
 * A row per collective: its kind and mesh axes, the group it runs in (how
 * many devices, how many such groups at once), bytes each device sends and
 * receives and the estimated time on the chosen topology (cost.c), plus
 * where it comes from and why. In a lowered module the collectives stand
 * where -sdy-reshard-to-collectives and -sdy-insert-explicit-reshards put
 * them, so the "why" is recovered from the data flow: a chain of data
 * movements (gather, slice, all-to-all, permute) ends at the operand of an
 * op that wants a different sharding than its producer gave; a reduction
 * (all_reduce, reduce_scatter) follows the op whose partial sums it adds.
 * The location is that op's, since that is what a user can change.
 *
 * Totals add the rows as if they ran one after another (no overlap), which
 * is what XLA does for collectives on the critical path. */
#include "cost/comm_plan.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pass/pass_shardings.h"
#include "ir/print.h"
#include "ir/type.h"

void shard_comm_plan_init(shard_comm_plan *p, shard_arena *a, const shard_topology *t) {
  memset(p, 0, sizeof *p);
  p->arena = a;
  p->topology = t;
}

void shard_comm_plan_free(shard_comm_plan *p) {
  free(p->rows);
  p->rows = NULL;
  p->num_rows = p->cap_rows = 0;
  shard_strmap_release(&p->texts);
  shard_buf_free(&p->scratch);
}

/* `s` (len bytes) in the plan's arena, once per distinct text (the key is
 * the arena copy: `s` may be the scratch buffer). */
static const char *intern(shard_comm_plan *p, const char *s, size_t len) {
  const char *known = shard_strmap_get(&p->texts, s, len);
  if (known) return known;
  char *copy = shard_arena_strndup(p->arena, s, len);
  shard_strmap_put(&p->texts, copy, len, copy);
  return copy;
}

static const char *type_text(shard_comm_plan *p, const int64_t *shape, uint32_t rank, const char *elem) {
  shard_buf *b = &p->scratch;
  shard_buf_clear(b);
  shard_buf_puts(b, "tensor<");
  for (uint32_t i = 0; i < rank; i++) {
    if (shape[i] == SHARD_DYNAMIC_DIM) {
      shard_buf_puts(b, "?x");
    } else {
      shard_buf_put_i64(b, shape[i]);
      shard_buf_putc(b, 'x');
    }
  }
  shard_buf_puts(b, elem);
  shard_buf_putc(b, '>');
  return intern(p, b->data, b->len);
}

shard_comm_row *shard_comm_plan_add(shard_comm_plan *p, shard_collective_kind kind, const shard_mesh *mesh,
                                    const shard_axis_ref *axes, uint32_t num_axes, const int64_t *local_in,
                                    const int64_t *local_out, uint32_t rank, const char *elem, shard_span where,
                                    const char *op_name, const char *reason) {
  if (p->num_rows == p->cap_rows) {
    p->cap_rows = p->cap_rows ? p->cap_rows * 2 : 16;
    p->rows = shard_xrealloc(p->rows, sizeof *p->rows * p->cap_rows);
  }
  shard_comm_row *r = &p->rows[p->num_rows++];
  memset(r, 0, sizeof *r);
  r->where = where;
  r->op_name = op_name ? intern(p, op_name, strlen(op_name)) : NULL;
  r->reason = reason ? shard_arena_strdup(p->arena, reason) : NULL;
  r->kind = kind;
  r->num_axes = num_axes;
  r->axes = num_axes ? shard_arena_dup(p->arena, axes, sizeof *axes * num_axes) : NULL;
  r->local_in = type_text(p, local_in, rank, elem);
  r->local_out = type_text(p, local_out, rank, elem);
  double in = shard_tensor_bytes(local_in, rank, elem), out = shard_tensor_bytes(local_out, rank, elem);
  shard_collective_cost cost;
  shard_collective_cost_compute(p->topology, mesh, kind, axes, num_axes, in < 0 ? 0 : in, out < 0 ? 0 : out, &cost);
  r->cost = (shard_comm_row_cost){cost.group_size, cost.num_groups, cost.volume,       cost.bytes_sent,
                                  cost.bytes_recv, cost.seconds,    cost.latency_bound};
  p->total_sent += r->cost.bytes_sent;
  p->total_recv += r->cost.bytes_recv;
  p->total_seconds += r->cost.seconds;
  return r;
}

/* ---- reshard plans ----------------------------------------------------------- */

static shard_collective_kind kind_of_step(shard_reshard_kind k) {
  switch (k) {
  case SHARD_RESHARD_ALL_SLICE: return SHARD_COLL_ALL_SLICE;
  case SHARD_RESHARD_COLLECTIVE_PERMUTE: return SHARD_COLL_COLLECTIVE_PERMUTE;
  case SHARD_RESHARD_ALL_TO_ALL: return SHARD_COLL_ALL_TO_ALL;
  case SHARD_RESHARD_ALL_GATHER: break;
  }
  return SHARD_COLL_ALL_GATHER;
}

typedef SHARD_VEC(shard_axis_ref) axis_vec;

/* Every axis of the mesh: the group of a collective_permute. */
static uint32_t all_mesh_axes(const shard_mesh *mesh, axis_vec *axes) {
  for (uint32_t i = 0; i < mesh->num_axes; i++) {
    shard_axis_ref r = {mesh->axes[i].name, false, 0, 0};
    SHARD_VEC_PUSH(*axes, r);
  }
  return mesh->num_axes;
}

static void push_lists(axis_vec *axes, const shard_axis_list *lists, uint32_t n) {
  for (uint32_t d = 0; d < n; d++)
    for (uint32_t k = 0; k < lists[d].num; k++) SHARD_VEC_PUSH(*axes, lists[d].axes[k]);
}

void shard_comm_plan_add_reshard(shard_comm_plan *p, const shard_tensor_sharding *in, const shard_mesh *mesh,
                                 const int64_t *shape, uint32_t rank, const char *elem, const shard_reshard_step *steps,
                                 uint32_t num_steps, shard_span where, const char *why) {
  int64_t *before = shard_xmalloc(sizeof(int64_t) * (rank ? rank : 1));
  int64_t *after = shard_xmalloc(sizeof(int64_t) * (rank ? rank : 1));
  const shard_tensor_sharding *cur = in;
  for (uint32_t i = 0; i < num_steps; i++) {
    const shard_reshard_step *st = &steps[i];
    if (cur) shard_sharding_local_shape(cur, mesh, shape, before);
    else memcpy(before, shape, sizeof(int64_t) * rank);
    shard_sharding_local_shape(st->sharding, mesh, shape, after);
    axis_vec axes = {0};
    if (st->kind == SHARD_RESHARD_ALL_TO_ALL) push_lists(&axes, &st->all_to_all.axes, 1);
    else if (st->kind == SHARD_RESHARD_COLLECTIVE_PERMUTE) all_mesh_axes(mesh, &axes);
    else push_lists(&axes, st->axes_per_dim, st->rank);
    shard_buf reason;
    shard_buf_init(&reason);
    if (why && *why) shard_buf_printf(&reason, "%s; ", why);
    shard_buf_printf(&reason, "step %u of %u: ", i + 1, num_steps);
    if (cur) shard_sharding_print(&reason, cur);
    else shard_buf_puts(&reason, "replicated");
    shard_buf_puts(&reason, " -> ");
    shard_sharding_print(&reason, st->sharding);
    shard_comm_plan_add(p, kind_of_step(st->kind), mesh, axes.items, axes.len, before, after, rank, elem, where, NULL,
                        shard_buf_str(&reason));
    shard_buf_free(&reason);
    SHARD_VEC_FREE(axes);
    cur = st->sharding;
  }
  free(before);
  free(after);
}

/* ---- lowered modules ------------------------------------------------------------ */

static bool is_collective(const shard_op *op) {
  shard_collective_kind k;
  return op && shard_collective_kind_from_op(op->name, &k);
}

static const shard_tensor_sharding *value_sharding(const shard_value *v) {
  if (v->def) {
    shard_attr *out = shard_op_attr(v->def, "out_sharding");
    if (out && out->kind == SHARD_ATTR_SDY_SHARDING) return out->u.sharding;
  }
  return shard_value_sharding(v);
}

/* The value a chain of collectives starts from: what `op` moves or reduces. */
static const shard_value *chain_source(const shard_op *op) {
  const shard_value *src = op->operands[0].value;
  while (src->def && is_collective(src->def) && src->def->num_operands > 0) src = src->def->operands[0].value;
  return src;
}

/* "argument 2", "result of stablehlo.dot_general at 12:8". */
static void describe_value(shard_buf *b, const shard_value *v) {
  if (!v->def) {
    shard_buf_puts(b, "argument ");
    shard_buf_put_i64(b, v->index);
    return;
  }
  shard_buf_puts(b, v->def->name);
  if (v->def->span.src) {
    uint32_t line, col;
    shard_span_linecol(v->def->span, &line, &col);
    shard_buf_puts(b, " at ");
    shard_buf_put_i64(b, line);
    shard_buf_putc(b, ':');
    shard_buf_put_i64(b, col);
  }
}

static void print_sharding_or_replicated(shard_buf *b, const shard_tensor_sharding *s) {
  if (s) shard_sharding_print(b, s);
  else shard_buf_puts(b, "no sharding (replicated)");
}

/* Why a data-movement collective is there: follow the chain forward to the
 * op that consumes it and backward to the value that fed it. Returns that
 * op; writes the reason to `why` unless it is NULL. */
static shard_op *explain_movement(const shard_op *op, shard_buf *why) {
  const shard_value *src = chain_source(op);
  const shard_op *last = op;
  for (;;) {
    const shard_operand *u = last->results[0].first_use;
    if (!u || u->next_use || !is_collective(u->owner)) break;
    last = u->owner;
  }
  const shard_operand *use = NULL;
  for (const shard_operand *u = last->results[0].first_use; u; u = u->next_use)
    if (!is_collective(u->owner)) {
      use = u;
      break;
    }
  if (!why) return use ? use->owner : NULL;
  const shard_tensor_sharding *want = value_sharding(&last->results[0]);
  /* puts, not printf: a big plan explains tens of thousands of rows */
  if (use && strcmp(use->owner->name, "func.return") == 0) {
    shard_buf_puts(why, "function result ");
    shard_buf_put_i64(why, shard_operand_index(use));
    shard_buf_puts(why, " needs ");
  } else if (use) {
    shard_buf_puts(why, "operand ");
    shard_buf_put_i64(why, shard_operand_index(use));
    shard_buf_puts(why, " of ");
    shard_buf_puts(why, use->owner->name);
    shard_buf_puts(why, " needs ");
  } else {
    shard_buf_puts(why, "(unused) resharded to ");
  }
  print_sharding_or_replicated(why, want);
  shard_buf_puts(why, " but ");
  describe_value(why, src);
  shard_buf_puts(why, " has ");
  print_sharding_or_replicated(why, value_sharding(src));
  return use ? use->owner : NULL;
}

/* Why a reduction is there: the op whose partial sums it adds, returned;
 * the reason goes to `why` unless it is NULL. */
static shard_op *explain_reduction(const shard_op *op, shard_collective_kind kind, const shard_axis_ref *axes,
                                   uint32_t num_axes, shard_buf *why) {
  const shard_value *src = chain_source(op);
  if (!why) return src->def;
  const shard_tensor_sharding *in = value_sharding(src);
  bool unreduced = false;
  for (uint32_t i = 0; in && i < in->num_unreduced && !unreduced; i++)
    for (uint32_t k = 0; k < num_axes; k++)
      if (shard_axis_overlaps(&in->unreduced[i], &axes[k], NULL)) unreduced = true;
  shard_buf_puts(why, unreduced ? "unreduced over " : "partial sums over ");
  shard_axis_list_print(why, axes, num_axes);
  shard_buf_puts(why, unreduced ? ": " : " from ");
  describe_value(why, src);
  if (!unreduced && src->def) shard_buf_puts(why, ", whose reduction dimension is sharded on them");
  if (kind == SHARD_COLL_REDUCE_SCATTER) {
    shard_buf_puts(why, ", scattered to ");
    print_sharding_or_replicated(why, value_sharding(&op->results[0]));
  }
  return src->def;
}

typedef struct module_walk {
  shard_comm_plan *plan;
  const shard_module *m;
  shard_diag_engine *de;
  shard_mesh_memo meshes; /* the module's meshes by name, looked up once */
} module_walk;

static const shard_attr *attr_of(const shard_op *op, const char *name, shard_attr_kind kind) {
  const shard_attr *a = shard_op_attr(op, name);
  return a && a->kind == kind ? a : NULL;
}

static void visit(module_walk *w, shard_op *op) {
  shard_collective_kind kind;
  if (!shard_collective_kind_from_op(op->name, &kind) || op->num_operands < 1 || op->num_results < 1) return;
  const shard_type *type = op->operands[0].value->type;
  const shard_attr *out_attr = attr_of(op, "out_sharding", SHARD_ATTR_SDY_SHARDING);
  const shard_tensor_sharding *out = out_attr ? out_attr->u.sharding : NULL;
  const shard_mesh *mesh = out ? shard_mesh_memo_get(&w->meshes, w->m, out) : NULL;
  if (!type || type->kind != SHARD_TYPE_TENSOR || !shard_type_is_static_tensor(type) || !mesh ||
      !shard_elem_bits(type->elem)) {
    w->plan->num_unplanned++;
    shard_warning(w->de, op->span, "cannot cost this %s: %s", op->name,
                  !mesh ? "its mesh is unknown" : "its shape or element type is not static");
    return;
  }
  axis_vec axes = {0};
  const shard_attr *a;
  switch (kind) {
  case SHARD_COLL_ALL_GATHER:
    if ((a = attr_of(op, "gathering_axes", SHARD_ATTR_SDY_AXIS_LISTS)))
      push_lists(&axes, a->u.axis_lists.dims, a->u.axis_lists.num);
    break;
  case SHARD_COLL_ALL_SLICE:
    if ((a = attr_of(op, "slicing_axes", SHARD_ATTR_SDY_AXIS_LISTS)))
      push_lists(&axes, a->u.axis_lists.dims, a->u.axis_lists.num);
    break;
  case SHARD_COLL_REDUCE_SCATTER:
    if ((a = attr_of(op, "reduce_scatter_axes", SHARD_ATTR_SDY_AXIS_LISTS)))
      push_lists(&axes, a->u.axis_lists.dims, a->u.axis_lists.num);
    break;
  case SHARD_COLL_ALL_REDUCE:
    if ((a = attr_of(op, "reduction_axes", SHARD_ATTR_SDY_AXIS_LIST))) push_lists(&axes, &a->u.axis_list, 1);
    break;
  case SHARD_COLL_ALL_TO_ALL:
    if ((a = attr_of(op, "params", SHARD_ATTR_SDY_ALL_TO_ALL)))
      for (uint32_t i = 0; i < a->u.all_to_all.num; i++) push_lists(&axes, &a->u.all_to_all.params[i].axes, 1);
    break;
  case SHARD_COLL_COLLECTIVE_PERMUTE: all_mesh_axes(mesh, &axes); break;
  }
  uint32_t rank = type->rank;
  int64_t *in_local = shard_xmalloc(sizeof(int64_t) * (rank ? rank : 1));
  int64_t *out_local = shard_xmalloc(sizeof(int64_t) * (rank ? rank : 1));
  const shard_tensor_sharding *in = value_sharding(op->operands[0].value);
  if (in) {
    const shard_mesh *in_mesh = shard_mesh_memo_get(&w->meshes, w->m, in);
    shard_sharding_local_shape(in, in_mesh ? in_mesh : mesh, type->dims, in_local);
  } else if (rank) { /* a scalar's dims may be NULL, and memcpy's source must not be */
    memcpy(in_local, type->dims, sizeof(int64_t) * rank);
  }
  shard_sharding_local_shape(out, mesh, type->dims, out_local);
  shard_buf why;
  shard_buf_init(&why);
  bool lazy = w->plan->lazy_reasons;
  const shard_op *needs = kind == SHARD_COLL_ALL_REDUCE || kind == SHARD_COLL_REDUCE_SCATTER
                              ? explain_reduction(op, kind, axes.items, axes.len, lazy ? NULL : &why)
                              : explain_movement(op, lazy ? NULL : &why);
  shard_span where = needs && needs->span.src ? needs->span : op->span;
  shard_comm_row *row =
      shard_comm_plan_add(w->plan, kind, mesh, axes.items, axes.len, in_local, out_local, rank, type->elem, where,
                          needs ? needs->name : NULL, lazy ? NULL : shard_buf_str(&why));
  if (lazy) row->explained = op;
  shard_buf_free(&why);
  free(in_local);
  free(out_local);
  SHARD_VEC_FREE(axes);
}

typedef SHARD_VEC(shard_op *) op_vec;

static bool collect_collective(shard_op *op, void *ctx) {
  if (is_collective(op) && op->num_operands > 0 && op->num_results > 0) SHARD_VEC_PUSH(*(op_vec *)ctx, op);
  return true;
}

void shard_comm_plan_module(shard_comm_plan *p, const shard_module *m, shard_diag_engine *de) {
  module_walk w = {p, m, de, {{0}, {0}}};
  op_vec ops = {0};
  shard_walk(m->top, collect_collective, &ops);
  if (p->cap_rows < p->num_rows + ops.len) { /* a row per collective at most: no doubling */
    p->cap_rows = p->num_rows + ops.len;
    p->rows = shard_xrealloc(p->rows, sizeof *p->rows * p->cap_rows);
  }
  for (uint32_t i = 0; i < ops.len; i++) visit(&w, ops.items[i]);
  SHARD_VEC_FREE(ops);
}

/* ---- output ------------------------------------------------------------------------ */

/* Appends the reason of `r`: its text, or for a lazy row (lazy_reasons) the
 * explanation of its collective, the same text. */
static void put_reason(shard_buf *b, const shard_comm_row *r) {
  if (r->reason) shard_buf_puts(b, r->reason);
  else if (r->explained && (r->kind == SHARD_COLL_ALL_REDUCE || r->kind == SHARD_COLL_REDUCE_SCATTER))
    explain_reduction(r->explained, r->kind, r->axes, r->num_axes, b);
  else if (r->explained) explain_movement(r->explained, b);
}

static const shard_comm_plan *sort_plan;

static int by_cost(const void *a, const void *b) {
  const shard_comm_row *x = &sort_plan->rows[*(const uint32_t *)a];
  const shard_comm_row *y = &sort_plan->rows[*(const uint32_t *)b];
  if (x->cost.seconds != y->cost.seconds) return x->cost.seconds < y->cost.seconds ? 1 : -1;
  if (x->cost.bytes_sent != y->cost.bytes_sent) return x->cost.bytes_sent < y->cost.bytes_sent ? 1 : -1;
  return *(const uint32_t *)a < *(const uint32_t *)b ? -1 : 1;
}

uint32_t shard_comm_plan_top(const shard_comm_plan *p, uint32_t k, uint32_t *out) {
  uint32_t *idx = shard_xmalloc(sizeof(uint32_t) * (p->num_rows ? p->num_rows : 1));
  uint32_t n = 0;
  for (uint32_t i = 0; i < p->num_rows; i++)
    if (p->rows[i].cost.seconds > 0 || p->rows[i].cost.bytes_sent > 0) idx[n++] = i;
  sort_plan = p;
  qsort(idx, n, sizeof *idx, by_cost);
  sort_plan = NULL;
  if (n > k) n = k;
  memcpy(out, idx, sizeof(uint32_t) * n);
  free(idx);
  return n;
}

void shard_comm_format_seconds(shard_buf *b, double s) {
  if (s <= 0) shard_buf_puts(b, "0 s");
  else if (s < 1e-3) shard_buf_printf(b, "%.2f us", s * 1e6);
  else if (s < 1) shard_buf_printf(b, "%.3f ms", s * 1e3);
  else shard_buf_printf(b, "%.3f s", s);
}

static long long whole_bytes(double v) { return (long long)llround(v); }

/* The cells of one row, for width computation and printing. */
enum { COL_NUM, COL_KIND, COL_AXES, COL_GROUP, COL_SENT, COL_RECV, COL_TIME, COL_WHERE, NUM_COLS };

/* Appends the cells of row i to `text`, ends[c] the length of `text` after
 * cell c. */
static void row_cells(const shard_comm_plan *p, uint32_t i, shard_buf *text, size_t ends[NUM_COLS]) {
  const shard_comm_row *r = &p->rows[i];
  shard_buf_put_i64(text, (int64_t)i + 1);
  ends[COL_NUM] = text->len;
  shard_buf_puts(text, shard_collective_kind_name(r->kind));
  ends[COL_KIND] = text->len;
  shard_axis_list_print(text, r->axes, r->num_axes);
  ends[COL_AXES] = text->len;
  shard_buf_put_i64(text, r->cost.group_size);
  shard_buf_putc(text, 'x');
  shard_buf_put_i64(text, r->cost.num_groups);
  ends[COL_GROUP] = text->len;
  shard_buf_put_i64(text, whole_bytes(r->cost.bytes_sent));
  ends[COL_SENT] = text->len;
  shard_buf_put_i64(text, whole_bytes(r->cost.bytes_recv));
  ends[COL_RECV] = text->len;
  if (p->topology) shard_comm_format_seconds(text, r->cost.seconds);
  else shard_buf_puts(text, "-");
  ends[COL_TIME] = text->len;
  shard_span_print_location(text, r->where);
  ends[COL_WHERE] = text->len;
}

/* `sep`, then `s` (n bytes) padded with spaces to `width`, on the left when
 * `right` (printf's %*s and %-*s). */
static void put_padded(shard_buf *b, const char *sep, const char *s, size_t n, size_t width, bool right) {
  shard_buf_puts(b, sep);
  if (right)
    for (size_t k = n; k < width; k++) shard_buf_putc(b, ' ');
  shard_buf_putn(b, s, n);
  if (!right)
    for (size_t k = n; k < width; k++) shard_buf_putc(b, ' ');
}

void shard_comm_plan_print_text(shard_buf *b, const shard_comm_plan *p, uint32_t top) {
  static const char *const headers[NUM_COLS] = {"#",          "kind",       "axes", "group x n",
                                                "sent B/dev", "recv B/dev", "time", "location"};
  static const bool right[NUM_COLS] = {true, false, false, true, true, true, true, false};
  if (p->topology) {
    shard_buf_puts(b, "topology: ");
    shard_topology_describe(b, p->topology);
    shard_buf_putc(b, '\n');
  } else {
    shard_buf_puts(b, "topology: none (bytes only)\n");
  }
  if (p->num_rows == 0) {
    shard_buf_puts(b, "no collectives\n");
  } else {
    /* The cells of a row are written into `text` twice, for the widths and
     * for the table: kept for every row they were a tenth of a big plan's
     * memory. ends[c] is where cell c ends. */
    shard_buf text;
    shard_buf_init(&text);
    size_t ends[NUM_COLS];
    size_t width[NUM_COLS];
    for (int c = 0; c < NUM_COLS; c++) width[c] = strlen(headers[c]);
    for (uint32_t i = 0; i < p->num_rows; i++) {
      shard_buf_clear(&text);
      row_cells(p, i, &text, ends);
      for (int c = 0; c < NUM_COLS; c++) {
        size_t len = ends[c] - (c ? ends[c - 1] : 0);
        if (len > width[c]) width[c] = len;
      }
    }
    for (int c = 0; c < NUM_COLS; c++) put_padded(b, c ? "  " : "", headers[c], strlen(headers[c]), width[c], right[c]);
    shard_buf_puts(b, "  why\n");
    for (uint32_t i = 0; i < p->num_rows; i++) {
      shard_buf_clear(&text);
      row_cells(p, i, &text, ends);
      for (int c = 0; c < NUM_COLS; c++) {
        size_t start = c ? ends[c - 1] : 0;
        put_padded(b, c ? "  " : "", text.data + start, ends[c] - start, width[c], right[c]);
      }
      shard_buf_puts(b, "  ");
      put_reason(b, &p->rows[i]);
      shard_buf_putc(b, '\n');
      shard_buf_drain(b);
    }
    shard_buf_free(&text);
  }
  shard_buf_printf(b, "total: %u collective%s, %lld bytes sent and %lld received per device", p->num_rows,
                   p->num_rows == 1 ? "" : "s", whole_bytes(p->total_sent), whole_bytes(p->total_recv));
  if (p->topology) {
    shard_buf_puts(b, ", ");
    shard_comm_format_seconds(b, p->total_seconds);
  }
  shard_buf_putc(b, '\n');
  if (p->num_unplanned)
    shard_buf_printf(b, "not costed: %u collective%s (see warnings)\n", p->num_unplanned,
                     p->num_unplanned == 1 ? "" : "s");
  uint32_t *idx = shard_xmalloc(sizeof(uint32_t) * (top ? top : 1));
  uint32_t n = top ? shard_comm_plan_top(p, top, idx) : 0;
  if (n) {
    shard_buf_puts(b, "top offenders:\n");
    for (uint32_t k = 0; k < n; k++) {
      const shard_comm_row *r = &p->rows[idx[k]];
      shard_buf_printf(b, "  %u. #%u %s ", k + 1, idx[k] + 1, shard_collective_kind_name(r->kind));
      shard_axis_list_print(b, r->axes, r->num_axes);
      if (r->where.src) {
        shard_buf_puts(b, " at ");
        shard_span_print_location(b, r->where);
      }
      shard_buf_printf(b, ": %lld bytes sent per device", whole_bytes(r->cost.bytes_sent));
      if (p->topology) {
        shard_buf_puts(b, ", ");
        shard_comm_format_seconds(b, r->cost.seconds);
        if (p->total_seconds > 0)
          shard_buf_printf(b, " (%.0f%% of the time)", 100.0 * r->cost.seconds / p->total_seconds);
      }
      shard_buf_putc(b, '\n');
    }
  }
  free(idx);
}

static void json_number(shard_buf *b, double v) {
  if (!isfinite(v)) shard_buf_puts(b, "null");
  else if (v == (double)(long long)v && fabs(v) < 1e15) shard_buf_printf(b, "%lld", (long long)v);
  else shard_buf_printf(b, "%.6g", v);
}

static void json_topology(shard_buf *b, const shard_topology *t) {
  if (!t) {
    shard_buf_puts(b, "null");
    return;
  }
  shard_buf_puts(b, "{\"name\": ");
  shard_buf_put_json_string(b, t->name);
  shard_buf b2;
  shard_buf_init(&b2);
  shard_topology_describe(&b2, t);
  shard_buf_puts(b, ", \"description\": ");
  shard_buf_put_json_string(b, shard_buf_str(&b2));
  shard_buf_free(&b2);
  shard_buf_printf(b, ", \"kind\": \"%s\", \"devices\": %lld}", t->kind == SHARD_TOPO_TORUS ? "torus" : "switched",
                   (long long)shard_topology_num_devices(t));
}

void shard_comm_plan_print_json(shard_buf *b, const shard_comm_plan *p, uint32_t top) {
  shard_buf_puts(b, "{\n  \"topology\": ");
  json_topology(b, p->topology);
  shard_buf_puts(b, ",\n  \"collectives\": [");
  shard_buf reason; /* a lazy row's */
  shard_buf_init(&reason);
  for (uint32_t i = 0; i < p->num_rows; i++) {
    const shard_comm_row *r = &p->rows[i];
    shard_buf_printf(b, "%s\n    {\"index\": %u, \"kind\": \"%s\", \"axes\": [", i ? "," : "", i + 1,
                     shard_collective_kind_name(r->kind));
    for (uint32_t k = 0; k < r->num_axes; k++) {
      shard_buf ax;
      shard_buf_init(&ax);
      shard_axis_print(&ax, &r->axes[k]);
      /* axis refs print quoted ("x"); JSON wants the bare text */
      const char *s = shard_buf_str(&ax);
      shard_buf name;
      shard_buf_init(&name);
      for (; *s; s++)
        if (*s != '"') shard_buf_putc(&name, *s);
      shard_buf_puts(b, k ? ", " : "");
      shard_buf_put_json_string(b, shard_buf_str(&name));
      shard_buf_free(&name);
      shard_buf_free(&ax);
    }
    shard_buf_puts(b, "], \"location\": ");
    if (r->where.src) {
      uint32_t line, col;
      shard_span_linecol(r->where, &line, &col);
      shard_buf_puts(b, "{\"file\": ");
      shard_buf_put_json_string(b, r->where.src->name);
      shard_buf_printf(b, ", \"line\": %u, \"column\": %u}", line, col);
    } else {
      shard_buf_puts(b, "null");
    }
    shard_buf_puts(b, ", \"op\": ");
    if (r->op_name) shard_buf_put_json_string(b, r->op_name);
    else shard_buf_puts(b, "null");
    shard_buf_puts(b, ", \"reason\": ");
    if (!r->reason && r->explained) {
      shard_buf_clear(&reason);
      put_reason(&reason, r);
      shard_buf_put_json_string(b, shard_buf_str(&reason));
    } else {
      shard_buf_put_json_string(b, r->reason);
    }
    shard_buf_puts(b, ", \"local_input\": ");
    shard_buf_put_json_string(b, r->local_in);
    shard_buf_puts(b, ", \"local_output\": ");
    shard_buf_put_json_string(b, r->local_out);
    shard_buf_printf(b,
                     ", \"group_size\": %lld, \"num_groups\": %lld, \"volume_bytes\": ", (long long)r->cost.group_size,
                     (long long)r->cost.num_groups);
    json_number(b, r->cost.volume);
    shard_buf_puts(b, ", \"bytes_sent_per_device\": ");
    json_number(b, (double)whole_bytes(r->cost.bytes_sent));
    shard_buf_puts(b, ", \"bytes_received_per_device\": ");
    json_number(b, (double)whole_bytes(r->cost.bytes_recv));
    shard_buf_puts(b, ", \"seconds\": ");
    if (p->topology) json_number(b, r->cost.seconds);
    else shard_buf_puts(b, "null");
    shard_buf_printf(b, ", \"latency_bound\": %s}", r->cost.latency_bound ? "true" : "false");
    shard_buf_drain(b);
  }
  shard_buf_free(&reason);
  shard_buf_printf(b,
                   "%s],\n  \"totals\": {\"collectives\": %u, \"bytes_sent_per_device\": ", p->num_rows ? "\n  " : "",
                   p->num_rows);
  json_number(b, (double)whole_bytes(p->total_sent));
  shard_buf_puts(b, ", \"bytes_received_per_device\": ");
  json_number(b, (double)whole_bytes(p->total_recv));
  shard_buf_puts(b, ", \"seconds\": ");
  if (p->topology) json_number(b, p->total_seconds);
  else shard_buf_puts(b, "null");
  shard_buf_printf(b, ", \"not_costed\": %u},\n  \"top\": [", p->num_unplanned);
  uint32_t *idx = shard_xmalloc(sizeof(uint32_t) * (top ? top : 1));
  uint32_t n = top ? shard_comm_plan_top(p, top, idx) : 0;
  for (uint32_t k = 0; k < n; k++) shard_buf_printf(b, "%s%u", k ? ", " : "", idx[k] + 1);
  free(idx);
  shard_buf_puts(b, "]\n}\n");
}
