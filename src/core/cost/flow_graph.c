/* The dataflow graph of a sharded module (flow_graph.h).
 *
 * Built in two passes over each function: the first makes the nodes (block
 * arguments, then ops in program order, entering manual computations in
 * place as clusters) and records which node produces each value; the second
 * makes one edge per (producer, consumer, value), looking through ops
 * nested in the regions of a node (a reduction body uses values of its
 * enclosing function too). Reshards are costed with Shardy's reshard
 * algorithm (reshard.h); collectives with the communication plan of the
 * module (comm_plan.h), matched to their ops by comm_groups.h. */
#include <string.h>

#include "cost/comm_groups.h"
#include "cost/flow_graph.h"
#include "pass/pass_shardings.h"
#include "propagate/propagate.h"
#include "support/ptrmap.h"

/* ---- a pointer -> node index map ------------------------------------------------- */

/* ---- building ---------------------------------------------------------------------------- */

typedef struct builder {
  shard_arena *a;
  const shard_module *m;
  shard_ptrmap map; /* values and ops -> the node that produces / stands for them */
  SHARD_VEC(shard_flow_node) nodes;
  SHARD_VEC(shard_flow_edge) edges;
  SHARD_VEC(shard_flow_cluster) clusters;
  SHARD_VEC(const shard_op *) manuals;
} builder;

static bool is_named(const shard_op *op, const char *name) { return strcmp(op->name, name) == 0; }

/* "%3", "%0#1" (results sharing a name), "%arg0"; NULL for an unnamed value. */
static const char *value_name(shard_arena *a, const shard_value *v) {
  if (!v->name) return NULL;
  if (v->def) {
    const shard_op *op = v->def;
    uint32_t first = v->index, last = v->index;
    while (first > 0 && op->results[first - 1].name == v->name) first--;
    while (last + 1 < op->num_results && op->results[last + 1].name == v->name) last++;
    if (first != last) return shard_arena_printf(a, "%%%s#%u", v->name, v->index - first);
  }
  return shard_arena_printf(a, "%%%s", v->name);
}

static void set_location(shard_flow_node *n, shard_span sp) {
  if (sp.src) shard_span_linecol(sp, &n->line, &n->col);
}

static uint32_t add_node(builder *b, shard_flow_node n) {
  SHARD_VEC_PUSH(b->nodes, n);
  return b->nodes.len - 1;
}

static const shard_tensor_sharding *out_sharding(const shard_op *op) {
  const shard_attr *a = shard_op_attr(op, "out_sharding");
  return a && a->kind == SHARD_ATTR_SDY_SHARDING ? a->u.sharding : NULL;
}

/* The sharding a value carries: a collective's out_sharding, else what
 * propagation sees (which also reads manual computations' in and out
 * shardings, and gives body arguments their local view). */
static const shard_tensor_sharding *carried_sharding(shard_arena *a, const shard_value *v) {
  if (v->def) {
    const shard_tensor_sharding *s = out_sharding(v->def);
    if (s) return s;
  }
  const shard_tensor_sharding *s = shard_value_sharding(v);
  return s ? s : shard_propagation_value_sharding(a, v);
}

static const char *manual_label(builder *b, const shard_op *op) {
  shard_buf l;
  shard_buf_init(&l);
  shard_buf_puts(&l, "manual_computation");
  const shard_attr *axes = shard_op_attr(op, "manual_axes");
  if (axes && axes->kind == SHARD_ATTR_SDY_MANUAL_AXES) {
    shard_buf_puts(&l, " manual on {");
    for (uint32_t i = 0; i < axes->u.manual_axes.num; i++)
      shard_buf_printf(&l, "%s\"%s\"", i ? ", " : "", axes->u.manual_axes.names[i]);
    shard_buf_puts(&l, "}");
  }
  if (op->span.src) {
    uint32_t line, col;
    shard_span_linecol(op->span, &line, &col);
    shard_buf_printf(&l, " (%u:%u)", line, col);
  }
  const char *s = shard_arena_strdup(b->a, shard_buf_str(&l));
  shard_buf_free(&l);
  return s;
}

static const char *collective_detail(builder *b, const shard_op *op) {
  shard_buf d;
  shard_buf_init(&d);
  shard_buf_puts(&d, op->name + 4);
  const shard_attr *out = shard_op_attr(op, "out_sharding");
  static const char *const axis_attrs[] = {"gathering_axes", "slicing_axes", "reduction_axes", "reduce_scatter_axes"};
  for (size_t i = 0; i < sizeof axis_attrs / sizeof *axis_attrs; i++) {
    const shard_attr *x = shard_op_attr(op, axis_attrs[i]);
    if (x && x->kind == SHARD_ATTR_SDY_AXIS_LIST) {
      shard_buf_putc(&d, ' ');
      shard_axis_list_print(&d, x->u.axis_list.axes, x->u.axis_list.num);
    } else if (x && x->kind == SHARD_ATTR_SDY_AXIS_LISTS) {
      shard_buf_puts(&d, " [");
      for (uint32_t k = 0; k < x->u.axis_lists.num; k++) {
        if (k) shard_buf_puts(&d, ", ");
        shard_axis_list_print(&d, x->u.axis_lists.dims[k].axes, x->u.axis_lists.dims[k].num);
      }
      shard_buf_putc(&d, ']');
    }
  }
  if (out && out->kind == SHARD_ATTR_SDY_SHARDING) {
    shard_buf_puts(&d, " to ");
    shard_sharding_print(&d, out->u.sharding);
  }
  const char *s = shard_arena_strdup(b->a, shard_buf_str(&d));
  shard_buf_free(&d);
  return s;
}

static void add_body(builder *b, const shard_block *body, int32_t cluster);

static void add_op(builder *b, const shard_op *op, int32_t cluster) {
  if (is_named(op, "sdy.manual_computation")) {
    shard_flow_cluster c = {manual_label(b, op), cluster, true};
    SHARD_VEC_PUSH(b->clusters, c);
    int32_t inner = (int32_t)b->clusters.len - 1;
    SHARD_VEC_PUSH(b->manuals, op);
    const shard_block *body = op->num_regions ? op->regions[0].first : NULL;
    if (body) add_body(b, body, inner);
    const shard_op *ret = body ? shard_block_terminator(body) : NULL;
    uint32_t node;
    if (ret && shard_ptrmap_get_index(&b->map, ret, &node))
      for (uint32_t i = 0; i < op->num_results; i++) shard_ptrmap_put(&b->map, &op->results[i], node);
    return;
  }
  shard_flow_node n = {0};
  n.kind = SHARD_FLOW_OP;
  shard_collective_kind ck;
  if (is_named(op, "func.return") || is_named(op, "sdy.return")) n.kind = SHARD_FLOW_RETURN;
  else if (is_named(op, "sdy.reshard")) n.kind = SHARD_FLOW_RESHARD;
  else if (shard_collective_kind_from_op(op->name, &ck)) n.kind = SHARD_FLOW_COLLECTIVE;
  n.name = op->name;
  n.op = op;
  n.cluster = cluster;
  set_location(&n, op->span);
  if (op->num_results) {
    shard_buf r;
    shard_buf_init(&r);
    for (uint32_t i = 0; i < op->num_results; i++) {
      const char *vn = value_name(b->a, &op->results[i]);
      if (vn) shard_buf_printf(&r, "%s%s", r.len ? ", " : "", vn);
    }
    if (r.len) n.results = shard_arena_strdup(b->a, shard_buf_str(&r));
    shard_buf_free(&r);
  }
  if (n.kind == SHARD_FLOW_COLLECTIVE) n.detail = collective_detail(b, op);
  if (n.kind == SHARD_FLOW_RESHARD) {
    const shard_tensor_sharding *s = shard_value_sharding(&op->results[0]);
    if (s) {
      shard_buf d;
      shard_buf_init(&d);
      shard_buf_puts(&d, "reshard to ");
      shard_sharding_print(&d, s);
      n.detail = shard_arena_strdup(b->a, shard_buf_str(&d));
      shard_buf_free(&d);
    }
  }
  uint32_t id = add_node(b, n);
  shard_ptrmap_put(&b->map, op, id);
  for (uint32_t i = 0; i < op->num_results; i++) shard_ptrmap_put(&b->map, &op->results[i], id);
}

static void add_body(builder *b, const shard_block *body, int32_t cluster) {
  for (uint32_t i = 0; i < body->num_args; i++) {
    shard_flow_node n = {0};
    n.kind = SHARD_FLOW_ARG;
    const char *vn = value_name(b->a, &body->args[i]);
    n.name = vn ? vn : shard_arena_printf(b->a, "argument %u", i);
    n.value = &body->args[i];
    n.cluster = cluster;
    set_location(&n, body->arg_info[i].span);
    shard_ptrmap_put(&b->map, &body->args[i], add_node(b, n));
  }
  for (const shard_op *op = body->first; op; op = op->next) add_op(b, op, cluster);
}

static void add_edge(builder *b, uint32_t from, uint32_t to, const shard_value *v) {
  for (uint32_t i = 0; i < b->edges.len; i++)
    if (b->edges.items[i].from == from && b->edges.items[i].to == to && b->edges.items[i].v == v) return;
  shard_flow_edge e = {0};
  e.from = from;
  e.to = to;
  e.v = v;
  e.value = value_name(b->a, v);
  if (!e.value)
    e.value = v->def && v->def->num_results == 1 ? shard_arena_printf(b->a, "result of %s", v->def->name)
              : v->def                           ? shard_arena_printf(b->a, "result %u of %s", v->index, v->def->name)
                                                 : shard_arena_printf(b->a, "argument %u", v->index);
  e.type = v->type ? v->type->text : "?";
  const shard_tensor_sharding *s = carried_sharding(b->a, v);
  if (s) {
    shard_buf t;
    shard_buf_init(&t);
    shard_sharding_print(&t, s);
    e.sharding = shard_arena_strdup(b->a, shard_buf_str(&t));
    const shard_mesh *mesh = shard_module_sharding_mesh(b->m, s);
    const shard_type *ty = v->type;
    if (mesh && ty && ty->kind == SHARD_TYPE_TENSOR && shard_type_is_static_tensor(ty) && s->rank == ty->rank) {
      int64_t *local = SHARD_NEW_ARRAY(b->a, int64_t, ty->rank + 1);
      shard_sharding_local_shape(s, mesh, ty->dims, local);
      shard_buf_clear(&t);
      shard_buf_puts(&t, "tensor<");
      for (uint32_t d = 0; d < ty->rank; d++) shard_buf_printf(&t, "%lldx", (long long)local[d]);
      shard_buf_printf(&t, "%s>", ty->elem ? ty->elem : "?");
      e.local_type = shard_arena_strdup(b->a, shard_buf_str(&t));
    }
    shard_buf_free(&t);
  }
  SHARD_VEC_PUSH(b->edges, e);
}

/* Edges into `to` from every operand of op and of the ops nested in its regions. */
static void add_operand_edges(builder *b, const shard_op *op, uint32_t to) {
  for (uint32_t i = 0; i < op->num_operands; i++) {
    uint32_t from;
    const shard_value *v = op->operands[i].value;
    if (shard_ptrmap_get_index(&b->map, v, &from) && from != to) add_edge(b, from, to, v);
  }
  for (uint32_t r = 0; r < op->num_regions; r++)
    for (const shard_block *blk = op->regions[r].first; blk; blk = blk->next)
      for (const shard_op *inner = blk->first; inner; inner = inner->next) add_operand_edges(b, inner, to);
}

/* ---- costs ---------------------------------------------------------------------------- */

static void cost_reshard(const shard_module *m, shard_comm_plan *plan, shard_flow_node *n) {
  const shard_op *op = n->op;
  if (op->num_operands < 1 || op->num_results < 1) return;
  const shard_value *in_v = op->operands[0].value;
  const shard_type *ty = in_v->type;
  const shard_tensor_sharding *in = carried_sharding(plan->arena, in_v);
  const shard_tensor_sharding *out = shard_value_sharding(&op->results[0]);
  if (!ty || ty->kind != SHARD_TYPE_TENSOR || !shard_type_is_static_tensor(ty) || !out || !shard_elem_bits(ty->elem))
    return;
  const shard_mesh *out_mesh = shard_module_sharding_mesh(m, out);
  const shard_mesh *in_mesh = in ? shard_module_sharding_mesh(m, in) : out_mesh;
  if (!in_mesh || !out_mesh) return;
  if (!in) {
    /* An unannotated operand is replicated on the target's mesh. */
    shard_tensor_sharding *r = SHARD_NEW(plan->arena, shard_tensor_sharding);
    memset(r, 0, sizeof *r);
    r->mesh_name = out->mesh_name;
    r->inline_mesh = out->inline_mesh;
    r->rank = ty->rank;
    r->dims = SHARD_NEW_ARRAY(plan->arena, shard_dim_sharding, ty->rank + 1);
    memset(r->dims, 0, sizeof(shard_dim_sharding) * (ty->rank + 1));
    for (uint32_t d = 0; d < ty->rank; d++) r->dims[d].priority = SHARD_NO_PRIORITY;
    in = r;
  }
  if (in->num_unreduced != out->num_unreduced) return;
  shard_reshard_step *steps = NULL;
  uint32_t num_steps = 0;
  shard_reshard_outcome o = shard_reshard_plan(plan->arena, in, in_mesh, out, out_mesh, ty->dims, &steps, &num_steps);
  if (o == SHARD_RESHARD_FORWARD || (o == SHARD_RESHARD_STEPS && num_steps == 0)) {
    n->moved = true;
    return;
  }
  if (o != SHARD_RESHARD_STEPS) return;
  uint32_t first = plan->num_rows;
  shard_comm_plan_add_reshard(plan, in, in_mesh, ty->dims, ty->rank, ty->elem, steps, num_steps, op->span, "reshard");
  n->moved = true;
  n->num_steps = num_steps;
  for (uint32_t i = first; i < plan->num_rows; i++) {
    n->bytes_sent += plan->rows[i].cost.bytes_sent;
    n->bytes_recv += plan->rows[i].cost.bytes_recv;
    n->seconds += plan->rows[i].cost.seconds;
  }
}

static void add_costs(shard_arena *a, const shard_module *m, const shard_topology *t, shard_flow_graph *g,
                      const shard_ptrmap *map) {
  shard_diag_engine quiet;
  shard_diag_init(&quiet, NULL, NULL);
  shard_comm_plan plan;
  shard_comm_plan_init(&plan, a, t);
  shard_comm_plan_module(&plan, m, &quiet);
  const shard_op **ops = NULL;
  if (shard_comm_plan_row_ops(a, &plan, m, &ops))
    for (uint32_t i = 0; i < plan.num_rows; i++) {
      uint32_t id;
      if (!shard_ptrmap_get_index(map, ops[i], &id)) continue;
      shard_flow_node *n = &g->nodes[id];
      n->moved = true;
      n->bytes_sent = plan.rows[i].cost.bytes_sent;
      n->bytes_recv = plan.rows[i].cost.bytes_recv;
      n->seconds = plan.rows[i].cost.seconds;
    }
  for (uint32_t i = 0; i < g->num_nodes; i++)
    if (g->nodes[i].kind == SHARD_FLOW_RESHARD) cost_reshard(m, &plan, &g->nodes[i]);
  shard_comm_plan_free(&plan);
}

static void count(shard_flow_graph *g) {
  g->num_collectives = g->num_reshards = 0;
  g->total_sent = g->total_seconds = 0;
  for (uint32_t i = 0; i < g->num_nodes; i++) {
    const shard_flow_node *n = &g->nodes[i];
    if (n->kind == SHARD_FLOW_COLLECTIVE) g->num_collectives++;
    else if (n->kind == SHARD_FLOW_RESHARD) g->num_reshards++;
    else continue;
    g->total_sent += n->bytes_sent;
    g->total_seconds += n->seconds;
  }
}

shard_flow_graph *shard_flow_graph_build(shard_arena *a, const shard_module *m, const shard_topology *t) {
  builder b = {0};
  b.a = a;
  b.m = m;
  const shard_block *top = m->top->num_regions ? m->top->regions[0].first : NULL;
  for (const shard_op *op = top ? top->first : NULL; op; op = op->next) {
    if (!is_named(op, "func.func") || !op->num_regions || !op->regions[0].first) continue;
    const shard_attr *name = shard_op_attr(op, "sym_name");
    shard_flow_cluster c = {0};
    c.label = name && name->kind == SHARD_ATTR_STRING
                  ? shard_arena_printf(a, "func @%.*s", (int)name->u.str.len, name->u.str.data)
                  : "func @?";
    c.parent = -1;
    SHARD_VEC_PUSH(b.clusters, c);
    add_body(&b, op->regions[0].first, (int32_t)b.clusters.len - 1);
  }
  uint32_t num_nodes = b.nodes.len;
  for (uint32_t i = 0; i < num_nodes; i++)
    if (b.nodes.items[i].op) add_operand_edges(&b, b.nodes.items[i].op, i);
  for (uint32_t k = 0; k < b.manuals.len; k++) {
    const shard_op *mc = b.manuals.items[k];
    const shard_block *body = mc->num_regions ? mc->regions[0].first : NULL;
    for (uint32_t i = 0; body && i < mc->num_operands && i < body->num_args; i++) {
      uint32_t from, to;
      if (shard_ptrmap_get_index(&b.map, mc->operands[i].value, &from) &&
          shard_ptrmap_get_index(&b.map, &body->args[i], &to))
        add_edge(&b, from, to, mc->operands[i].value);
    }
  }
  SHARD_VEC_FREE(b.manuals);
  shard_flow_graph *g = SHARD_NEW(a, shard_flow_graph);
  memset(g, 0, sizeof *g);
  g->num_nodes = b.nodes.len;
  g->num_edges = b.edges.len;
  g->num_clusters = b.clusters.len;
  SHARD_VEC_FREEZE(a, b.nodes, g->nodes);
  SHARD_VEC_FREEZE(a, b.edges, g->edges);
  SHARD_VEC_FREEZE(a, b.clusters, g->clusters);
  add_costs(a, m, t, g, &b.map);
  shard_ptrmap_release(&b.map);
  count(g);
  return g;
}

/* ---- queries ---------------------------------------------------------------------------- */

static bool in_func(const shard_flow_graph *g, int32_t cluster, const char *func) {
  if (!func) return true;
  while (cluster >= 0 && g->clusters[cluster].parent >= 0) cluster = g->clusters[cluster].parent;
  if (cluster < 0) return false;
  const char *label = g->clusters[cluster].label; /* "func @NAME" */
  if (func[0] == '@') func++;
  return strncmp(label, "func @", 6) == 0 && strcmp(label + 6, func) == 0;
}

/* Compares "%3" with "3" or "%3". */
static bool same_name(const char *shown, const char *asked) {
  if (!shown) return false;
  if (asked[0] == '%') asked++;
  return shown[0] == '%' && strcmp(shown + 1, asked) == 0;
}

int32_t shard_flow_graph_find_value(const shard_flow_graph *g, const char *name, const char *func) {
  shard_arena *a = shard_arena_new();
  int32_t found = -1;
  for (uint32_t i = 0; i < g->num_nodes && found < 0; i++) {
    const shard_flow_node *n = &g->nodes[i];
    if (!in_func(g, n->cluster, func)) continue;
    if (n->kind == SHARD_FLOW_ARG) {
      if (same_name(n->name, name)) found = (int32_t)i;
      continue;
    }
    for (uint32_t r = 0; n->op && r < n->op->num_results && found < 0; r++)
      if (same_name(value_name(a, &n->op->results[r]), name)) found = (int32_t)i;
  }
  shard_arena_free(a);
  return found;
}

shard_flow_graph *shard_flow_graph_focus(shard_arena *a, const shard_flow_graph *g, uint32_t center, uint32_t depth) {
  uint32_t *dist = shard_xmalloc(sizeof(uint32_t) * (g->num_nodes + 1));
  for (uint32_t i = 0; i < g->num_nodes; i++) dist[i] = UINT32_MAX;
  if (center < g->num_nodes) dist[center] = 0;
  /* Breadth-first by rounds: each round relaxes every edge once. */
  for (uint32_t round = 0; round < depth; round++) {
    bool changed = false;
    for (uint32_t k = 0; k < g->num_edges; k++) {
      uint32_t x = g->edges[k].from, y = g->edges[k].to;
      if (dist[x] == round && dist[y] == UINT32_MAX) {
        dist[y] = round + 1;
        changed = true;
      }
      if (dist[y] == round && dist[x] == UINT32_MAX) {
        dist[x] = round + 1;
        changed = true;
      }
    }
    if (!changed) break;
  }
  uint32_t *index = shard_xmalloc(sizeof(uint32_t) * (g->num_nodes + 1));
  shard_flow_graph *f = SHARD_NEW(a, shard_flow_graph);
  memset(f, 0, sizeof *f);
  f->nodes = SHARD_NEW_ARRAY(a, shard_flow_node, g->num_nodes + 1);
  f->edges = SHARD_NEW_ARRAY(a, shard_flow_edge, g->num_edges + 1);
  for (uint32_t i = 0; i < g->num_nodes; i++)
    if (dist[i] != UINT32_MAX) {
      index[i] = f->num_nodes;
      f->nodes[f->num_nodes++] = g->nodes[i];
    }
  for (uint32_t k = 0; k < g->num_edges; k++) {
    const shard_flow_edge *e = &g->edges[k];
    if (dist[e->from] == UINT32_MAX || dist[e->to] == UINT32_MAX) continue;
    shard_flow_edge c = *e;
    c.from = index[e->from];
    c.to = index[e->to];
    f->edges[f->num_edges++] = c;
  }
  f->clusters = g->clusters;
  f->num_clusters = g->num_clusters;
  f->cut = true;
  count(f);
  free(dist);
  free(index);
  return f;
}
