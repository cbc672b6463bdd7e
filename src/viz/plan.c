/* The communication plan as pictures: each collective drawn on its mesh,
 * devices grouped (one letter and colour per group), the direction data
 * travels in each group, and a bar sized by the bytes each device sends.
 *
 * Text draws the mesh as term.c's grid: a cell per device with its id, its
 * group and place in the group, and the device it sends to; then one line
 * per group (the ring, or the point-to-point sends of a permute). DOT
 * draws the same grid as nodes, one row per rank, with the sends as edges
 * whose width follows the collective's bytes relative to the largest. */
#include <graphviz/cgraph.h>
#include <stdio.h>
#include <string.h>

#include "dot_internal.h"
#include "viz.h"

static const char *const fills[] = {"#8dd3c7", "#ffffb3", "#bebada", "#fb8072", "#80b1d3", "#fdb462",
                                    "#b3de69", "#fccde5", "#d9d9d9", "#bc80bd", "#ccebc5", "#ffed6f"};
#define NUM_FILLS (sizeof fills / sizeof fills[0])

/* "A".."Z", then "G27", "G28", ... */
static void group_name(shard_buf *b, uint32_t g) {
  if (g < 26) shard_buf_putc(b, (char)('A' + g));
  else shard_buf_printf(b, "G%u", g + 1);
}

static double largest_sent(const shard_comm_plan *p) {
  double most = 0;
  for (uint32_t i = 0; i < p->num_rows; i++)
    if (p->rows[i].cost.bytes_sent > most) most = p->rows[i].cost.bytes_sent;
  return most;
}

static void where_text(shard_buf *b, const shard_comm_row *r) {
  if (!r->where.src) {
    shard_buf_puts(b, "unknown location");
    return;
  }
  uint32_t line, col;
  shard_span_linecol(r->where, &line, &col);
  shard_buf_printf(b, "%s:%u:%u", r->where.src->name, line, col);
}

/* First line of a collective: "#1 all_reduce {"model"} on @mesh <[...]>". */
static void row_heading(shard_buf *b, const shard_comm_row *r, uint32_t i, const shard_comm_groups *g) {
  shard_buf_printf(b, "#%u %s ", i + 1, shard_collective_kind_name(r->kind));
  shard_axis_list_print(b, r->axes, r->num_axes);
  if (g) {
    shard_buf_puts(b, " on ");
    if (g->mesh_name) shard_buf_printf(b, "@%s ", g->mesh_name);
    shard_mesh_print(b, g->mesh);
  }
}

static void row_costs(shard_buf *b, const shard_comm_row *r, const shard_comm_groups *g) {
  shard_buf_printf(b, "%lld group%s of %lld device%s", (long long)r->cost.num_groups,
                   r->cost.num_groups == 1 ? "" : "s", (long long)r->cost.group_size,
                   r->cost.group_size == 1 ? "" : "s");
  if (g) shard_buf_printf(b, ", %s", shard_comm_direction_name(g->direction));
  shard_buf_printf(b, "; %s -> %s; %.0f B sent, %.0f B received per device", r->local_in ? r->local_in : "?",
                   r->local_out ? r->local_out : "?", r->cost.bytes_sent, r->cost.bytes_recv);
  if (r->cost.seconds > 0) {
    shard_buf_puts(b, "; ");
    shard_comm_format_seconds(b, r->cost.seconds);
  }
}

static void totals(shard_buf *b, const shard_comm_plan *p) {
  shard_buf_printf(b, "%u collective%s, %.0f B sent and %.0f B received per device", p->num_rows,
                   p->num_rows == 1 ? "" : "s", p->total_sent, p->total_recv);
  if (p->total_seconds > 0) {
    shard_buf_puts(b, ", ");
    shard_comm_format_seconds(b, p->total_seconds);
  }
  if (p->num_unplanned) shard_buf_printf(b, " (%u not costed)", p->num_unplanned);
}

/* The position a device sends to, or UINT32_MAX. */
static uint32_t sends_to(const shard_comm_groups *g, uint32_t pos) {
  for (uint32_t k = 0; k < g->num_transfers; k++)
    if (g->transfers[k].from == pos) return g->transfers[k].to;
  return UINT32_MAX;
}

/* ---- text ------------------------------------------------------------------------------ */

static void term_groups(shard_buf *out, const shard_comm_groups *g, const shard_viz_options *o) {
  shard_viz_table t;
  shard_viz_mesh_table_init(&t, g->mesh);
  uint32_t rows = t.rows, cols = t.cols;
  shard_buf c;
  shard_buf_init(&c);
  for (uint32_t r = 0; r < rows; r++)
    for (uint32_t col = 0; col < cols; col++) {
      uint32_t pos = shard_viz_mesh_position(g->mesh, r, col);
      shard_buf_clear(&c);
      shard_buf_printf(&c, "dev %lld\n", (long long)g->device_ids[pos]);
      group_name(&c, g->group[pos]);
      if (g->group_size > 1 && g->direction != SHARD_COMM_PERMUTE) shard_buf_printf(&c, ".%u", g->member[pos]);
      uint32_t to = sends_to(g, pos);
      if (to != UINT32_MAX) shard_buf_printf(&c, " -> %lld", (long long)g->device_ids[to]);
      if (g->direction == SHARD_COMM_PERMUTE) {
        uint32_t from = UINT32_MAX;
        for (uint32_t k = 0; k < g->num_transfers; k++)
          if (g->transfers[k].to == pos) from = g->transfers[k].from;
        if (from != UINT32_MAX) shard_buf_printf(&c, " <- %lld", (long long)g->device_ids[from]);
        else if (to == UINT32_MAX) shard_buf_puts(&c, " keeps");
      }
      t.cells[(size_t)r * cols + col] = shard_xstrdup(shard_buf_str(&c));
      t.colors[(size_t)r * cols + col] = g->direction == SHARD_COMM_PERMUTE ? -1 : (int)g->group[pos];
    }
  shard_buf_free(&c);
  shard_viz_table_draw(out, &t, o->color);
  shard_viz_table_free(&t);
}

/* One line per group: the ring in device ids, or the sends of a permute. */
static void term_directions(shard_buf *out, const shard_comm_groups *g) {
  const uint32_t shown = 8;
  if (g->direction == SHARD_COMM_PERMUTE) {
    if (g->num_transfers == 0) {
      shard_buf_puts(out, "   every device keeps its shard\n");
      return;
    }
    shard_buf_puts(out, "   sends:");
    for (uint32_t k = 0; k < g->num_transfers && k < 4 * shown; k++)
      shard_buf_printf(out, "%s %lld -> %lld", k ? "," : "", (long long)g->device_ids[g->transfers[k].from],
                       (long long)g->device_ids[g->transfers[k].to]);
    if (g->num_transfers > 4 * shown) shard_buf_printf(out, ", and %u more", g->num_transfers - 4 * shown);
    shard_buf_putc(out, '\n');
    return;
  }
  uint32_t *first = shard_xcalloc(g->num_groups + 1, sizeof *first);
  uint32_t *at = shard_xcalloc((size_t)g->num_groups * g->group_size + 1, sizeof *at);
  for (uint32_t p = 0; p < g->num_devices; p++) at[(size_t)g->group[p] * g->group_size + g->member[p]] = p;
  for (uint32_t k = 0; k < g->num_groups && k < shown; k++) {
    shard_buf_puts(out, "   ");
    group_name(out, k);
    shard_buf_puts(out, ": ");
    for (uint32_t j = 0; j < g->group_size; j++) {
      const char *sep = g->direction == SHARD_COMM_RING ? " -> " : ", ";
      shard_buf_printf(out, "%s%lld", j ? sep : "", (long long)g->device_ids[at[(size_t)k * g->group_size + j]]);
    }
    if (g->direction == SHARD_COMM_RING && g->group_size > 1)
      shard_buf_printf(out, " -> %lld", (long long)g->device_ids[at[(size_t)k * g->group_size]]);
    if (g->direction == SHARD_COMM_ALL_TO_ALL) shard_buf_puts(out, " (each sends a piece to each)");
    if (g->direction == SHARD_COMM_LOCAL) shard_buf_puts(out, " (each keeps its own slice, nothing sent)");
    shard_buf_putc(out, '\n');
  }
  if (g->num_groups > shown) shard_buf_printf(out, "   and %u more groups\n", g->num_groups - shown);
  free(first);
  free(at);
}

void shard_viz_term_plan(shard_buf *out, const shard_viz_plan *vp, const shard_viz_options *o) {
  const shard_comm_plan *p = vp->plan;
  shard_buf_printf(out, "%s\n", vp->title);
  if (p->topology) {
    shard_buf_puts(out, "topology: ");
    shard_topology_describe(out, p->topology);
    shard_buf_putc(out, '\n');
  }
  totals(out, p);
  shard_buf_putc(out, '\n');
  double most = largest_sent(p);
  for (uint32_t i = 0; i < p->num_rows; i++) {
    const shard_comm_row *r = &p->rows[i];
    const shard_comm_groups *g = vp->groups ? vp->groups[i] : NULL;
    shard_buf_putc(out, '\n');
    if (o->color) shard_buf_puts(out, "\x1b[1m");
    row_heading(out, r, i, g);
    if (o->color) shard_buf_puts(out, "\x1b[0m");
    shard_buf_puts(out, "\n   ");
    row_costs(out, r, g);
    shard_buf_puts(out, "\n   at ");
    where_text(out, r);
    if (r->reason) shard_buf_printf(out, ": %s", r->reason);
    /* 40 columns for the largest sender, at least one for any that sends. */
    uint32_t bar = most > 0 ? (uint32_t)(40.0 * r->cost.bytes_sent / most + 0.5) : 0;
    if (bar == 0 && r->cost.bytes_sent > 0) bar = 1;
    shard_buf_puts(out, "\n   bytes ");
    for (uint32_t k = 0; k < bar; k++) shard_buf_puts(out, "█");
    shard_buf_printf(out, "%s%.0f%s\n", bar ? " " : "", r->cost.bytes_sent, most > 0 ? "" : " (nothing sent)");
    if (!g) {
      shard_buf_puts(out, "   (mesh too large or unknown: no picture)\n");
      continue;
    }
    term_groups(out, g, o);
    term_directions(out, g);
  }
}

/* ---- DOT ------------------------------------------------------------------------------- */

void shard_viz_dot_plan(shard_buf *out, const shard_viz_plan *vp) {
  const shard_comm_plan *p = vp->plan;
  Agraph_t *root = shard_viz_dot_open("plan");
  agattr(root, AGRAPH, (char *)"fontname", (char *)"Helvetica");
  agattr(root, AGRAPH, (char *)"labeljust", (char *)"l");
  agattr(root, AGRAPH, (char *)"labelloc", (char *)"t");
  agattr(root, AGRAPH, (char *)"nodesep", (char *)"0.3");
  agattr(root, AGNODE, (char *)"shape", (char *)"box");
  agattr(root, AGNODE, (char *)"style", (char *)"filled");
  agattr(root, AGNODE, (char *)"fontname", (char *)"Helvetica");
  agattr(root, AGNODE, (char *)"fontsize", (char *)"10");
  shard_buf l, t;
  shard_buf_init(&l);
  shard_buf_init(&t);
  shard_buf_printf(&t, "%s\n", vp->title);
  if (p->topology) {
    shard_buf_puts(&t, "topology: ");
    shard_topology_describe(&t, p->topology);
    shard_buf_putc(&t, '\n');
  }
  totals(&t, p);
  shard_viz_dot_label(&l, shard_buf_str(&t));
  shard_viz_dot_set(root, "label", shard_buf_str(&l));
  double most = largest_sent(p);
  Agnode_t *prev_last = NULL;
  for (uint32_t i = 0; i < p->num_rows; i++) {
    const shard_comm_row *r = &p->rows[i];
    const shard_comm_groups *g = vp->groups ? vp->groups[i] : NULL;
    char name[64];
    snprintf(name, sizeof name, "cluster_%u", i);
    Agraph_t *c = agsubg(root, name, 1);
    shard_buf_clear(&t);
    row_heading(&t, r, i, g);
    shard_buf_putc(&t, '\n');
    row_costs(&t, r, g);
    shard_buf_puts(&t, "\nat ");
    where_text(&t, r);
    if (r->reason) shard_buf_printf(&t, "\n%s", r->reason);
    shard_buf_clear(&l);
    shard_viz_dot_label(&l, shard_buf_str(&t));
    shard_viz_dot_set(c, "label", shard_buf_str(&l));
    shard_viz_dot_set(c, "style", "rounded");
    char width[32];
    snprintf(width, sizeof width, "%.1f", most > 0 ? 1.0 + 5.0 * r->cost.bytes_sent / most : 1.0);
    if (!g) {
      snprintf(name, sizeof name, "c%u_none", i);
      Agnode_t *n = agnode(c, name, 1);
      shard_viz_dot_set(n, "label", "(mesh too large or unknown)");
      shard_viz_dot_set(n, "style", "dashed");
      if (prev_last) {
        Agedge_t *e = agedge(root, prev_last, n, NULL, 1);
        shard_viz_dot_set(e, "style", "invis");
      }
      prev_last = n;
      continue;
    }
    uint32_t rows, cols;
    shard_viz_mesh_shape(g->mesh, &rows, &cols);
    Agnode_t **dev = shard_xcalloc(g->num_devices + 1, sizeof *dev);
    Agnode_t *row_first = NULL;
    for (uint32_t row = 0; row < rows; row++) {
      snprintf(name, sizeof name, "c%u_row%u", i, row);
      Agraph_t *rank = agsubg(c, name, 1);
      shard_viz_dot_set(rank, "rank", "same");
      for (uint32_t col = 0; col < cols; col++) {
        uint32_t pos = shard_viz_mesh_position(g->mesh, row, col);
        snprintf(name, sizeof name, "c%u_d%u", i, pos);
        dev[pos] = agnode(rank, name, 1);
        shard_buf_clear(&t);
        shard_buf_printf(&t, "dev %lld\\n", (long long)g->device_ids[pos]);
        group_name(&t, g->group[pos]);
        if (g->group_size > 1 && g->direction != SHARD_COMM_PERMUTE) shard_buf_printf(&t, ".%u", g->member[pos]);
        shard_viz_dot_set(dev[pos], "label", shard_buf_str(&t));
        shard_viz_dot_set(dev[pos], "fillcolor",
                          g->direction == SHARD_COMM_PERMUTE ? "#eeeeee" : fills[g->group[pos] % NUM_FILLS]);
        if (col > 0) {
          /* Keeps the columns in mesh order whatever the sends do. */
          uint32_t left = shard_viz_mesh_position(g->mesh, row, col - 1);
          Agedge_t *e = agedge(rank, dev[left], dev[pos], NULL, 1);
          shard_viz_dot_set(e, "style", "invis");
          shard_viz_dot_set(e, "weight", "100");
        }
        if (col == 0) {
          Agnode_t *above = row_first ? row_first : prev_last;
          if (above) {
            Agedge_t *e = agedge(root, above, dev[pos], NULL, 1);
            shard_viz_dot_set(e, "style", "invis");
          }
          row_first = dev[pos];
        }
      }
    }
    for (uint32_t k = 0; k < g->num_transfers; k++) {
      Agedge_t *e = agedge(c, dev[g->transfers[k].from], dev[g->transfers[k].to], NULL, 1);
      shard_viz_dot_set(e, "constraint", "false");
      shard_viz_dot_set(e, "penwidth", width);
      shard_viz_dot_set(e, "color", "#e31a1c");
    }
    prev_last = row_first;
    free(dev);
  }
  shard_buf_free(&l);
  shard_buf_free(&t);
  shard_viz_dot_write(out, root);
}

/* ---- JSON ------------------------------------------------------------------------------ */

void shard_viz_json_plan(shard_buf *out, const shard_viz_plan *vp) {
  const shard_comm_plan *p = vp->plan;
  shard_buf t;
  shard_buf_init(&t);
  shard_buf_puts(out, "{\"title\": ");
  shard_buf_put_json_string(out, vp->title);
  shard_buf_puts(out, ",\n \"topology\": ");
  if (p->topology) {
    shard_topology_describe(&t, p->topology);
    shard_buf_put_json_string(out, shard_buf_str(&t));
  } else {
    shard_buf_puts(out, "null");
  }
  shard_buf_puts(out, ",\n \"collectives\": [");
  for (uint32_t i = 0; i < p->num_rows; i++) {
    const shard_comm_row *r = &p->rows[i];
    const shard_comm_groups *g = vp->groups ? vp->groups[i] : NULL;
    shard_buf_printf(out, "%s\n  {\"index\": %u, \"kind\": \"%s\", \"axes\": [", i ? "," : "", i + 1,
                     shard_collective_kind_name(r->kind));
    for (uint32_t k = 0; k < r->num_axes; k++) {
      shard_buf_clear(&t);
      shard_axis_print(&t, &r->axes[k]);
      if (k) shard_buf_puts(out, ", ");
      shard_buf_put_json_string(out, shard_buf_str(&t));
    }
    shard_buf_puts(out, "], \"location\": ");
    if (r->where.src) {
      uint32_t line, col;
      shard_span_linecol(r->where, &line, &col);
      shard_buf_puts(out, "{\"file\": ");
      shard_buf_put_json_string(out, r->where.src->name);
      shard_buf_printf(out, ", \"line\": %u, \"column\": %u}", line, col);
    } else {
      shard_buf_puts(out, "null");
    }
    shard_buf_puts(out, ", \"reason\": ");
    if (r->reason) shard_buf_put_json_string(out, r->reason);
    else shard_buf_puts(out, "null");
    shard_buf_printf(out,
                     ",\n   \"group_size\": %lld, \"num_groups\": %lld, \"bytes_sent_per_device\": "
                     "%.0f, \"bytes_received_per_device\": %.0f, \"seconds\": %.9g",
                     (long long)r->cost.group_size, (long long)r->cost.num_groups, r->cost.bytes_sent,
                     r->cost.bytes_recv, r->cost.seconds);
    if (!g) {
      shard_buf_puts(out, ", \"mesh\": null, \"direction\": null, \"groups\": null, \"transfers\": null}");
      continue;
    }
    shard_buf_puts(out, ",\n   \"mesh\": ");
    shard_buf_clear(&t);
    if (g->mesh_name) shard_buf_printf(&t, "@%s = ", g->mesh_name);
    shard_mesh_print(&t, g->mesh);
    shard_buf_put_json_string(out, shard_buf_str(&t));
    shard_buf_printf(out, ", \"direction\": \"%s\",\n   \"groups\": [", shard_comm_direction_name(g->direction));
    uint32_t *at = shard_xcalloc((size_t)g->num_groups * g->group_size + 1, sizeof *at);
    for (uint32_t q = 0; q < g->num_devices; q++) at[(size_t)g->group[q] * g->group_size + g->member[q]] = q;
    for (uint32_t k = 0; k < g->num_groups; k++) {
      shard_buf_puts(out, k ? ", [" : "[");
      for (uint32_t j = 0; j < g->group_size; j++)
        shard_buf_printf(out, "%s%lld", j ? ", " : "", (long long)g->device_ids[at[(size_t)k * g->group_size + j]]);
      shard_buf_putc(out, ']');
    }
    free(at);
    shard_buf_puts(out, "],\n   \"transfers\": [");
    for (uint32_t k = 0; k < g->num_transfers; k++)
      shard_buf_printf(out, "%s[%lld, %lld]", k ? ", " : "", (long long)g->device_ids[g->transfers[k].from],
                       (long long)g->device_ids[g->transfers[k].to]);
    shard_buf_puts(out, "]}");
  }
  shard_buf_printf(out,
                   "],\n \"total\": {\"collectives\": %u, \"bytes_sent_per_device\": %.0f, "
                   "\"bytes_received_per_device\": %.0f, \"seconds\": %.9g, \"not_costed\": %u}}\n",
                   p->num_rows, p->total_sent, p->total_recv, p->total_seconds, p->num_unplanned);
  shard_buf_free(&t);
}
