/* Graphviz pictures, built with libcgraph and written as DOT text.
 *
 * Each placement is a cluster holding HTML-label tables: the tensor grid
 * (one per page for ranks above 2), then the mesh grid, stacked by
 * invisible edges. A block's cell and the cells of the devices holding it
 * share one fill colour (ColorBrewer Set3, cycled), the same numbering the
 * terminal picture colours with. The cluster's label carries the summary
 * lines. Only cgraph is used here (no layout), so the text is deterministic
 * and leak-free; render.c lays it out.
 *
 * Graphviz 2.42 declares its string parameters `char *`; the casts below
 * only drop const from literals it does not modify. */
#include <graphviz/cgraph.h>
#include <stdio.h>
#include <string.h>

#include "dot_internal.h"
#include "viz.h"

static const char *const palette[] = {"#8dd3c7", "#ffffb3", "#bebada", "#fb8072", "#80b1d3", "#fdb462",
                                      "#b3de69", "#fccde5", "#d9d9d9", "#bc80bd", "#ccebc5", "#ffed6f"};
#define PALETTE_SIZE (sizeof palette / sizeof palette[0])

/* Text for an HTML label: <, >, & and quotes escaped. */
static void html(shard_buf *b, const char *s) {
  for (; *s; s++) {
    switch (*s) {
    case '<': shard_buf_puts(b, "&lt;"); break;
    case '>': shard_buf_puts(b, "&gt;"); break;
    case '&': shard_buf_puts(b, "&amp;"); break;
    case '"': shard_buf_puts(b, "&quot;"); break;
    case '\n': shard_buf_puts(b, "<BR ALIGN=\"LEFT\"/>"); break;
    default: shard_buf_putc(b, *s);
    }
  }
}

static void set_html(void *obj, Agraph_t *g, const char *name, const char *text) {
  char *h = agstrdup_html(g, (char *)text);
  agsafeset(obj, (char *)name, h, (char *)"");
  agstrfree(g, h);
}

static Agnode_t *table_node(Agraph_t *g, const char *name, const char *label) {
  Agnode_t *n = agnode(g, (char *)name, 1);
  set_html(n, agroot(g), "label", label);
  return n;
}

/* Closes the HTML table t, makes it the label of node `name`, and frees t
 * and the scratch buffer l the table was built with. */
static Agnode_t *table_close(Agraph_t *g, const char *name, shard_buf *t, shard_buf *l) {
  shard_buf_puts(t, "</TABLE>");
  Agnode_t *n = table_node(g, name, shard_buf_str(t));
  shard_buf_free(t);
  shard_buf_free(l);
  return n;
}

static void invisible_edge(Agraph_t *g, Agnode_t *a, Agnode_t *b) {
  Agedge_t *e = agedge(g, a, b, NULL, 1);
  agsafeset(e, (char *)"style", (char *)"invis", (char *)"");
}

static const char table_open[] = "<TABLE BORDER=\"0\" CELLBORDER=\"1\" CELLSPACING=\"0\" CELLPADDING=\"4\">";

static Agnode_t *tensor_page(Agraph_t *g, const char *name, const shard_viz_grid *grid, const shard_placement *p,
                             uint32_t page) {
  shard_buf t, l;
  shard_buf_init(&t);
  shard_buf_init(&l);
  shard_buf_puts(&t, table_open);
  shard_buf_printf(&t, "<TR><TD BORDER=\"0\" COLSPAN=\"%u\"><I>", grid->num_cols + 1);
  if (grid->num_pages > 1) {
    shard_viz_grid_label(&l, grid, p, 'p', page);
    html(&t, shard_buf_str(&l));
    shard_buf_puts(&t, ": ");
    shard_buf_clear(&l);
  }
  shard_buf_puts(&t, "blocks and the devices holding them</I></TD></TR>");
  if (grid->num_col_dims) {
    shard_buf_puts(&t, "<TR><TD BORDER=\"0\"></TD>");
    for (uint32_t c = 0; c < grid->num_cols; c++) {
      shard_viz_grid_label(&l, grid, p, 'c', c);
      shard_buf_puts(&t, "<TD BORDER=\"0\">");
      html(&t, shard_buf_str(&l));
      shard_buf_puts(&t, "</TD>");
      shard_buf_clear(&l);
    }
    shard_buf_puts(&t, "</TR>");
  }
  for (uint32_t r = 0; r < grid->num_rows; r++) {
    shard_buf_puts(&t, "<TR><TD BORDER=\"0\" ALIGN=\"RIGHT\">");
    if (grid->num_row_dims) {
      shard_viz_grid_label(&l, grid, p, 'r', r);
      html(&t, shard_buf_str(&l));
      shard_buf_clear(&l);
    }
    shard_buf_puts(&t, "</TD>");
    for (uint32_t c = 0; c < grid->num_cols; c++) {
      uint32_t blk = shard_viz_grid_block(grid, p, page, r, c);
      shard_buf_printf(&t, "<TD BGCOLOR=\"%s\"><B>#%u</B><BR/>", palette[blk % PALETTE_SIZE], blk);
      shard_viz_block_devices(&l, p, blk, "\n");
      /* Device lines centred, not left-aligned as in the summary. */
      for (const char *s = shard_buf_str(&l); *s; s++) {
        if (*s == '\n') shard_buf_puts(&t, "<BR/>");
        else shard_buf_putc(&t, *s);
      }
      shard_buf_clear(&l);
      shard_buf_puts(&t, "</TD>");
    }
    shard_buf_puts(&t, "</TR>");
  }
  return table_close(g, name, &t, &l);
}

/* The mesh grid; with a placement, cells are coloured by the block they hold. */
static Agnode_t *mesh_table(Agraph_t *g, const char *name, const shard_mesh *m, const shard_placement *p) {
  uint32_t rows, cols;
  shard_viz_mesh_shape(m, &rows, &cols);
  shard_buf t, l;
  shard_buf_init(&t);
  shard_buf_init(&l);
  shard_buf_puts(&t, table_open);
  if (p) shard_buf_printf(&t, "<TR><TD BORDER=\"0\" COLSPAN=\"%u\"><I>devices on the mesh</I></TD></TR>", cols + 1);
  if (m->num_axes) {
    shard_buf_puts(&t, "<TR><TD BORDER=\"0\"></TD>");
    for (uint32_t c = 0; c < cols; c++) {
      shard_viz_mesh_label(&l, m, 'c', c);
      shard_buf_puts(&t, "<TD BORDER=\"0\">");
      html(&t, shard_buf_str(&l));
      shard_buf_puts(&t, "</TD>");
      shard_buf_clear(&l);
    }
    shard_buf_puts(&t, "</TR>");
  }
  for (uint32_t r = 0; r < rows; r++) {
    shard_buf_puts(&t, "<TR><TD BORDER=\"0\" ALIGN=\"RIGHT\">");
    shard_viz_mesh_label(&l, m, 'r', r);
    html(&t, shard_buf_str(&l));
    shard_buf_clear(&l);
    shard_buf_puts(&t, "</TD>");
    for (uint32_t c = 0; c < cols; c++) {
      uint32_t pos = shard_viz_mesh_position(m, r, c);
      int64_t id = m->device_ids && pos < m->num_device_ids ? m->device_ids[pos] : (int64_t)pos;
      if (p) {
        const shard_placement_device *dev = &p->devices[pos];
        shard_buf_printf(&t, "<TD BGCOLOR=\"%s\">dev %lld<BR/>#%u", palette[dev->block % PALETTE_SIZE], (long long)id,
                         dev->block);
        if (p->num_partials > 1) shard_buf_printf(&t, " p%lld", (long long)dev->partial);
        shard_buf_puts(&t, "</TD>");
      } else {
        shard_buf_printf(&t, "<TD%s>%lld</TD>", id == (int64_t)pos ? "" : " BGCOLOR=\"#fdb462\"", (long long)id);
      }
    }
    shard_buf_puts(&t, "</TR>");
  }
  return table_close(g, name, &t, &l);
}

/* Refusing to map names makes cgraph keep them in its internal map under
 * sequential anonymous ids (agmapnametoid's fallback). */
static long S_id_map(void *state, int objtype, char *str, IDTYPE *id, int createflag) {
  if (str) return 0;
  return AgIdDisc.map(state, objtype, str, id, createflag);
}

Agraph_t *shard_viz_dot_open(const char *name) {
  static Agiddisc_t sequential_ids;
  static Agdisc_t disc;
  if (!sequential_ids.map) {
    sequential_ids = AgIdDisc;
    sequential_ids.map = S_id_map;
    disc.mem = &AgMemDisc;
    disc.id = &sequential_ids;
    disc.io = &AgIoDisc;
  }
  return agopen((char *)name, Agdirected, &disc);
}

static Agraph_t *new_graph(const char *name) {
  Agraph_t *g = shard_viz_dot_open(name);
  agattr(g, AGRAPH, (char *)"fontname", (char *)"Helvetica");
  agattr(g, AGRAPH, (char *)"labeljust", (char *)"l");
  agattr(g, AGNODE, (char *)"shape", (char *)"plain");
  agattr(g, AGNODE, (char *)"fontname", (char *)"Helvetica");
  agattr(g, AGNODE, (char *)"fontsize", (char *)"11");
  return g;
}

void shard_viz_dot_set(void *obj, const char *name, const char *value) {
  agsafeset(obj, (char *)name, (char *)value, (char *)"");
}

void shard_viz_dot_label(shard_buf *b, const char *s) {
  for (; *s; s++) {
    if (*s == '\\') shard_buf_puts(b, "\\\\");
    else if (*s == '\n') shard_buf_puts(b, "\\l");
    else shard_buf_putc(b, *s);
  }
  shard_buf_puts(b, "\\l");
}

void shard_viz_dot_write(shard_buf *out, Agraph_t *g) {
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  if (f) {
    agwrite(g, f);
    fclose(f);
    shard_buf_putn(out, text, len);
    free(text);
  }
  agclose(g);
}

static Agraph_t *cluster(Agraph_t *g, const char *name, const char *label_text) {
  Agraph_t *c = agsubg(g, (char *)name, 1);
  shard_buf l;
  shard_buf_init(&l);
  shard_buf_puts(&l, "<B>");
  /* First line bold, the rest plain. */
  const char *nl = strchr(label_text, '\n');
  char *first = shard_xstrndup(label_text, nl ? (size_t)(nl - label_text) : strlen(label_text));
  html(&l, first);
  free(first);
  shard_buf_puts(&l, "</B><BR ALIGN=\"LEFT\"/>");
  if (nl) html(&l, nl + 1);
  set_html(c, g, "label", shard_buf_str(&l));
  shard_buf_free(&l);
  agsafeset(c, (char *)"style", (char *)"rounded", (char *)"");
  return c;
}

void shard_viz_dot_placements(shard_buf *out, shard_placement *const *ps, uint32_t n, const shard_viz_options *o) {
  Agraph_t *g = new_graph("placement");
  for (uint32_t i = 0; i < n; i++) {
    const shard_placement *p = ps[i];
    shard_viz_grid grid;
    shard_viz_grid_init(&grid, p, o->layout);
    shard_buf s;
    shard_buf_init(&s);
    shard_viz_summary(&s, p);
    shard_viz_grid_describe(&s, &grid, p);
    shard_buf_putc(&s, '\n');
    char name[64];
    snprintf(name, sizeof name, "cluster_%u", i);
    Agraph_t *c = cluster(g, name, shard_buf_str(&s));
    shard_buf_free(&s);
    Agnode_t *prev = NULL;
    for (uint32_t page = 0; page < grid.num_pages; page++) {
      snprintf(name, sizeof name, "p%u_tensor%u", i, page);
      Agnode_t *node = tensor_page(c, name, &grid, p, page);
      if (prev) invisible_edge(c, prev, node);
      prev = node;
    }
    shard_viz_grid_free(&grid);
    snprintf(name, sizeof name, "p%u_mesh", i);
    Agnode_t *mesh = mesh_table(c, name, p->mesh, p);
    invisible_edge(c, prev, mesh);
  }
  shard_viz_dot_write(out, g);
}

void shard_viz_dot_meshes(shard_buf *out, const shard_viz_mesh *meshes, uint32_t n) {
  Agraph_t *g = new_graph("meshes");
  for (uint32_t i = 0; i < n; i++) {
    const shard_mesh *m = meshes[i].mesh;
    int64_t total = shard_mesh_num_devices(m);
    shard_buf s;
    shard_buf_init(&s);
    if (meshes[i].name) shard_buf_printf(&s, "@%s = ", meshes[i].name);
    shard_mesh_print(&s, m);
    shard_buf_printf(&s, "\n%lld device%s%s\n", (long long)total, total == 1 ? "" : "s",
                     m->device_ids && m->num_axes ? ", device_ids permuted (moved ids shaded)" : "");
    for (uint32_t k = 0; k < meshes[i].num_sub_axes; k++) {
      shard_buf_puts(&s, k ? ", " : "sub-axes used: ");
      shard_axis_print(&s, &meshes[i].sub_axes[k]);
      if (k + 1 == meshes[i].num_sub_axes) shard_buf_putc(&s, '\n');
    }
    char name[64];
    snprintf(name, sizeof name, "cluster_%u", i);
    Agraph_t *c = cluster(g, name, shard_buf_str(&s));
    shard_buf_free(&s);
    if (total >= 1 && total <= SHARD_PLACEMENT_MAX_DEVICES) {
      snprintf(name, sizeof name, "mesh%u", i);
      mesh_table(c, name, m, NULL);
    }
  }
  shard_viz_dot_write(out, g);
}
