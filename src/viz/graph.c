/* The dataflow graph (flow_graph.h) as text, DOT and JSON.
 *
 * Text lists the nodes in program order, indented by cluster (function,
 * then manual computations inside it), each followed by its incoming edges:
 * the producer's node number, the value, its sharding and local shape.
 * Reshards and collectives are marked `!!` (and coloured on a terminal)
 * with the bytes each device sends and receives.
 *
 * DOT puts each cluster in a subgraph, draws values as edges labelled with
 * sharding and local shape, fills reshards (orange) and collectives (red)
 * and widens the edges around them in proportion to the bytes they move,
 * so the expensive ones stand out in a large picture. */
#include <graphviz/cgraph.h>
#include <stdio.h>
#include <string.h>

#include "dot_internal.h"
#include "viz.h"

static const char *kind_name(shard_flow_kind k) {
  switch (k) {
  case SHARD_FLOW_OP: return "op";
  case SHARD_FLOW_ARG: return "argument";
  case SHARD_FLOW_RETURN: return "return";
  case SHARD_FLOW_RESHARD: return "reshard";
  case SHARD_FLOW_COLLECTIVE: return "collective";
  }
  return "?";
}

static bool moves_data(const shard_flow_node *n) {
  return n->kind == SHARD_FLOW_RESHARD || n->kind == SHARD_FLOW_COLLECTIVE;
}

/* "49152 B sent, 49152 B received per device, 6.00 us" */
static void cost_text(shard_buf *b, const shard_flow_node *n, bool with_time) {
  if (!n->moved) {
    shard_buf_puts(b, "not costed");
    return;
  }
  shard_buf_printf(b, "%.0f B sent, %.0f B received per device", n->bytes_sent, n->bytes_recv);
  if (with_time && n->seconds > 0) {
    shard_buf_puts(b, ", ");
    shard_comm_format_seconds(b, n->seconds);
  }
  if (n->kind == SHARD_FLOW_RESHARD && n->num_steps)
    shard_buf_printf(b, " (%u collective%s)", n->num_steps, n->num_steps == 1 ? "" : "s");
}

static void summary(shard_buf *b, const shard_flow_graph *g) {
  shard_buf_printf(b, "%u node%s, %u edge%s, %u collective%s, %u reshard%s", g->num_nodes, g->num_nodes == 1 ? "" : "s",
                   g->num_edges, g->num_edges == 1 ? "" : "s", g->num_collectives, g->num_collectives == 1 ? "" : "s",
                   g->num_reshards, g->num_reshards == 1 ? "" : "s");
  if (g->num_collectives + g->num_reshards) {
    shard_buf_printf(b, ": %.0f B sent per device", g->total_sent);
    if (g->total_seconds > 0) {
      shard_buf_puts(b, ", ");
      shard_comm_format_seconds(b, g->total_seconds);
    }
  }
}

/* ---- text ------------------------------------------------------------------------------ */

static uint32_t cluster_depth(const shard_flow_graph *g, int32_t c) {
  uint32_t d = 0;
  for (; c >= 0; c = g->clusters[c].parent) d++;
  return d;
}

/* Is cluster `c` inside (or equal to) `outer`? */
static bool within(const shard_flow_graph *g, int32_t c, int32_t outer) {
  for (; c >= 0; c = g->clusters[c].parent)
    if (c == outer) return true;
  return false;
}

static void indent(shard_buf *b, uint32_t n) {
  for (uint32_t i = 0; i < n; i++) shard_buf_puts(b, "  ");
}

/* Headers for the clusters entered when going from cluster `from` to `to`. */
static void enter_clusters(shard_buf *b, const shard_flow_graph *g, int32_t from, int32_t to) {
  int32_t chain[64];
  uint32_t n = 0;
  for (int32_t c = to; c >= 0 && !within(g, from, c) && n < 64; c = g->clusters[c].parent) chain[n++] = c;
  while (n--) {
    indent(b, cluster_depth(g, chain[n]) - 1);
    shard_buf_printf(b, "%s\n", g->clusters[chain[n]].label);
  }
}

void shard_viz_term_graph(shard_buf *out, const shard_flow_graph *g, const char *title, const shard_viz_options *o) {
  shard_buf_printf(out, "%s\n", title);
  summary(out, g);
  shard_buf_puts(out, g->cut ? " (cut down)\n" : "\n");
  int32_t current = -1;
  for (uint32_t i = 0; i < g->num_nodes; i++) {
    const shard_flow_node *n = &g->nodes[i];
    if (n->cluster != current) {
      enter_clusters(out, g, current, n->cluster);
      current = n->cluster;
    }
    uint32_t depth = cluster_depth(g, n->cluster);
    indent(out, depth);
    bool hot = moves_data(n);
    if (hot && o->color) shard_buf_puts(out, n->kind == SHARD_FLOW_COLLECTIVE ? "\x1b[1;31m" : "\x1b[1;33m");
    shard_buf_printf(out, "n%u  %s", i, hot ? "!! " : "");
    if (n->kind == SHARD_FLOW_ARG) shard_buf_printf(out, "%s (argument)", n->name);
    else if (n->results) shard_buf_printf(out, "%s = %s", n->results, n->name);
    else shard_buf_puts(out, n->name);
    if (n->line) shard_buf_printf(out, "  at %u:%u", n->line, n->col);
    if (hot) {
      if (n->detail) shard_buf_printf(out, "\n%*s    %s", (int)(2 * depth), "", n->detail);
      shard_buf_printf(out, "\n%*s    ", (int)(2 * depth), "");
      cost_text(out, n, true);
    }
    if (hot && o->color) shard_buf_puts(out, "\x1b[0m");
    shard_buf_putc(out, '\n');
    for (uint32_t k = 0; k < g->num_edges; k++) {
      const shard_flow_edge *e = &g->edges[k];
      if (e->to != i) continue;
      indent(out, depth);
      shard_buf_printf(out, "    <- n%u %s : %s", e->from, e->value, e->type);
      if (e->sharding) shard_buf_printf(out, " %s", e->sharding);
      else shard_buf_puts(out, " (no sharding)");
      if (e->local_type) shard_buf_printf(out, " local %s", e->local_type);
      shard_buf_putc(out, '\n');
    }
  }
}

/* ---- DOT ------------------------------------------------------------------------------- */

void shard_viz_dot_graph(shard_buf *out, const shard_flow_graph *g, const char *title) {
  Agraph_t *root = shard_viz_dot_open("dataflow");
  agattr(root, AGRAPH, (char *)"fontname", (char *)"Helvetica");
  agattr(root, AGRAPH, (char *)"labeljust", (char *)"l");
  agattr(root, AGRAPH, (char *)"labelloc", (char *)"t");
  agattr(root, AGNODE, (char *)"shape", (char *)"box");
  agattr(root, AGNODE, (char *)"style", (char *)"rounded");
  agattr(root, AGNODE, (char *)"fontname", (char *)"Helvetica");
  agattr(root, AGNODE, (char *)"fontsize", (char *)"11");
  agattr(root, AGEDGE, (char *)"fontname", (char *)"Helvetica");
  agattr(root, AGEDGE, (char *)"fontsize", (char *)"9");
  shard_buf l;
  shard_buf_init(&l);
  shard_viz_dot_label(&l, title);
  shard_buf t;
  shard_buf_init(&t);
  summary(&t, g);
  shard_viz_dot_label(&l, shard_buf_str(&t));
  shard_viz_dot_set(root, "label", shard_buf_str(&l));

  /* Clusters that hold a node (directly or through a nested cluster). */
  Agraph_t **sub = shard_xcalloc(g->num_clusters + 1, sizeof *sub);
  bool *used = shard_xcalloc(g->num_clusters + 1, sizeof *used);
  for (uint32_t i = 0; i < g->num_nodes; i++)
    for (int32_t c = g->nodes[i].cluster; c >= 0; c = g->clusters[c].parent) used[c] = true;
  /* Parents come before their children in the cluster array. */
  for (uint32_t c = 0; c < g->num_clusters; c++) {
    if (!used[c]) continue;
    int32_t p = g->clusters[c].parent;
    Agraph_t *parent = p >= 0 && sub[p] ? sub[p] : root;
    char name[32];
    snprintf(name, sizeof name, "cluster_%u", c);
    sub[c] = agsubg(parent, name, 1);
    shard_viz_dot_set(sub[c], "label", g->clusters[c].label);
    shard_viz_dot_set(sub[c], "style", g->clusters[c].manual ? "dashed,rounded" : "rounded");
  }

  double most = 0;
  for (uint32_t i = 0; i < g->num_nodes; i++)
    if (moves_data(&g->nodes[i]) && g->nodes[i].bytes_sent > most) most = g->nodes[i].bytes_sent;
  Agnode_t **nodes = shard_xcalloc(g->num_nodes + 1, sizeof *nodes);
  for (uint32_t i = 0; i < g->num_nodes; i++) {
    const shard_flow_node *n = &g->nodes[i];
    char name[32];
    snprintf(name, sizeof name, "n%u", i);
    Agraph_t *home = n->cluster >= 0 && sub[n->cluster] ? sub[n->cluster] : root;
    nodes[i] = agnode(home, name, 1);
    shard_buf_clear(&l);
    if (n->results && n->kind != SHARD_FLOW_ARG) shard_buf_printf(&l, "%s = ", n->results);
    shard_buf_puts(&l, n->name);
    if (n->line) shard_buf_printf(&l, "\n%u:%u", n->line, n->col);
    if (moves_data(n)) {
      if (n->detail) shard_buf_printf(&l, "\n%s", n->detail);
      shard_buf_clear(&t);
      cost_text(&t, n, true);
      shard_buf_printf(&l, "\n%s", shard_buf_str(&t));
    }
    shard_buf_clear(&t);
    shard_viz_dot_label(&t, shard_buf_str(&l));
    shard_viz_dot_set(nodes[i], "label", shard_buf_str(&t));
    if (n->kind == SHARD_FLOW_ARG) {
      shard_viz_dot_set(nodes[i], "shape", "ellipse");
      shard_viz_dot_set(nodes[i], "style", "solid");
    } else if (n->kind == SHARD_FLOW_RETURN) {
      shard_viz_dot_set(nodes[i], "shape", "house");
      shard_viz_dot_set(nodes[i], "style", "solid");
    } else if (moves_data(n)) {
      shard_viz_dot_set(nodes[i], "style", "rounded,filled,bold");
      shard_viz_dot_set(nodes[i], "fillcolor", n->kind == SHARD_FLOW_COLLECTIVE ? "#fb8072" : "#fdb462");
    }
  }
  for (uint32_t k = 0; k < g->num_edges; k++) {
    const shard_flow_edge *e = &g->edges[k];
    Agedge_t *edge = agedge(root, nodes[e->from], nodes[e->to], NULL, 1);
    shard_buf_clear(&l);
    shard_buf_puts(&l, e->value);
    shard_buf_printf(&l, "\n%s", e->sharding ? e->sharding : "(no sharding)");
    if (e->local_type) shard_buf_printf(&l, "\nlocal %s", e->local_type);
    shard_buf_clear(&t);
    shard_viz_dot_label(&t, shard_buf_str(&l));
    shard_viz_dot_set(edge, "label", shard_buf_str(&t));
    const shard_flow_node *hot = moves_data(&g->nodes[e->to])     ? &g->nodes[e->to]
                                 : moves_data(&g->nodes[e->from]) ? &g->nodes[e->from]
                                                                  : NULL;
    if (hot) {
      char width[32];
      snprintf(width, sizeof width, "%.1f", most > 0 ? 1.0 + 5.0 * hot->bytes_sent / most : 1.0);
      shard_viz_dot_set(edge, "penwidth", width);
      shard_viz_dot_set(edge, "color", hot->kind == SHARD_FLOW_COLLECTIVE ? "#e31a1c" : "#ff7f00");
    }
  }
  shard_buf_free(&l);
  shard_buf_free(&t);
  free(nodes);
  free(sub);
  free(used);
  shard_viz_dot_write(out, root);
}

/* ---- JSON ------------------------------------------------------------------------------ */

static void json_str_or_null(shard_buf *b, const char *s) {
  if (s) shard_buf_put_json_string(b, s);
  else shard_buf_puts(b, "null");
}

void shard_viz_json_graph(shard_buf *out, const shard_flow_graph *g, const char *title) {
  shard_buf_puts(out, "{\"title\": ");
  shard_buf_put_json_string(out, title);
  shard_buf_printf(out, ",\n \"cut\": %s,\n \"clusters\": [", g->cut ? "true" : "false");
  for (uint32_t c = 0; c < g->num_clusters; c++) {
    shard_buf_printf(out, "%s\n  {\"id\": %u, \"label\": ", c ? "," : "", c);
    shard_buf_put_json_string(out, g->clusters[c].label);
    if (g->clusters[c].parent >= 0) shard_buf_printf(out, ", \"parent\": %d", g->clusters[c].parent);
    else shard_buf_puts(out, ", \"parent\": null");
    shard_buf_printf(out, ", \"manual\": %s}", g->clusters[c].manual ? "true" : "false");
  }
  shard_buf_puts(out, "],\n \"nodes\": [");
  for (uint32_t i = 0; i < g->num_nodes; i++) {
    const shard_flow_node *n = &g->nodes[i];
    shard_buf_printf(out, "%s\n  {\"id\": %u, \"kind\": \"%s\", \"name\": ", i ? "," : "", i, kind_name(n->kind));
    shard_buf_put_json_string(out, n->name);
    shard_buf_puts(out, ", \"results\": ");
    json_str_or_null(out, n->kind == SHARD_FLOW_ARG ? NULL : n->results);
    if (n->line) shard_buf_printf(out, ", \"line\": %u, \"column\": %u", n->line, n->col);
    else shard_buf_puts(out, ", \"line\": null, \"column\": null");
    if (n->cluster >= 0) shard_buf_printf(out, ", \"cluster\": %d", n->cluster);
    else shard_buf_puts(out, ", \"cluster\": null");
    if (moves_data(n)) {
      shard_buf_puts(out, ", \"detail\": ");
      json_str_or_null(out, n->detail);
      if (n->moved)
        shard_buf_printf(out,
                         ", \"bytes_sent_per_device\": %.0f, \"bytes_received_per_device\": %.0f, \"seconds\": %.9g",
                         n->bytes_sent, n->bytes_recv, n->seconds);
      else
        shard_buf_puts(out,
                       ", \"bytes_sent_per_device\": null, \"bytes_received_per_device\": null, \"seconds\": null");
    }
    shard_buf_putc(out, '}');
  }
  shard_buf_puts(out, "],\n \"edges\": [");
  for (uint32_t k = 0; k < g->num_edges; k++) {
    const shard_flow_edge *e = &g->edges[k];
    shard_buf_printf(out, "%s\n  {\"from\": %u, \"to\": %u, \"value\": ", k ? "," : "", e->from, e->to);
    shard_buf_put_json_string(out, e->value);
    shard_buf_puts(out, ", \"type\": ");
    shard_buf_put_json_string(out, e->type);
    shard_buf_puts(out, ", \"sharding\": ");
    json_str_or_null(out, e->sharding);
    shard_buf_puts(out, ", \"local_type\": ");
    json_str_or_null(out, e->local_type);
    shard_buf_putc(out, '}');
  }
  shard_buf_printf(out,
                   "],\n \"collectives\": %u, \"reshards\": %u, \"bytes_sent_per_device\": %.0f, "
                   "\"seconds\": %.9g}\n",
                   g->num_collectives, g->num_reshards, g->total_sent, g->total_seconds);
}
