/* Terminal pictures: grids drawn with Unicode box characters.
 *
 * A placement prints its summary, the tensor grid (one cell per block:
 * block number, then the ids of the devices holding it), the mesh grid (one
 * cell per device: its id and the block it holds) and a list of every block
 * with its index ranges and devices with their mesh coordinates. With
 * colour on, a block and its devices share one ANSI colour in both grids,
 * so the eye can match them; without colour the block numbers do the same
 * job. All cell text is ASCII, so a cell's width is its byte length. */
#include <string.h>

#include "viz.h"

/* Foreground colours cycled by block number: the six normal colours, then
 * their bright forms. */
static const int palette[] = {31, 32, 33, 34, 35, 36, 91, 92, 93, 94, 95, 96};
#define PALETTE_SIZE (sizeof palette / sizeof palette[0])

/* Display width of UTF-8 text: one column per code point. */
static size_t width(const char *s, size_t n) {
  size_t w = 0;
  for (size_t i = 0; i < n; i++)
    if (((unsigned char)s[i] & 0xC0) != 0x80) w++;
  return w;
}

static void spaces(shard_buf *b, size_t n) {
  while (n--) shard_buf_putc(b, ' ');
}

static void repeat(shard_buf *b, const char *s, size_t n) {
  while (n--) shard_buf_puts(b, s);
}

/* Line `k` of a multi-line cell text (empty past the end). */
static const char *line_of(const char *text, uint32_t k, size_t *len) {
  const char *p = text;
  for (uint32_t i = 0; i < k; i++) {
    p = strchr(p, '\n');
    if (!p) {
      *len = 0;
      return "";
    }
    p++;
  }
  const char *e = strchr(p, '\n');
  *len = e ? (size_t)(e - p) : strlen(p);
  return p;
}

static uint32_t line_count(const char *text) {
  uint32_t n = 1;
  for (const char *p = text; *p; p++) n += *p == '\n';
  return n;
}

static size_t max_line_width(const char *text) {
  size_t best = 0;
  for (uint32_t k = 0, n = line_count(text); k < n; k++) {
    size_t len;
    const char *l = line_of(text, k, &len);
    size_t w = width(l, len);
    if (w > best) best = w;
  }
  return best;
}

/* A grid: optional row and column labels, cells of one or more lines, and a
 * colour per cell (-1 for none). Shared with plan.c through viz.h. */
typedef shard_viz_table table;

static void table_init(table *t, uint32_t rows, uint32_t cols) {
  t->rows = rows;
  t->cols = cols;
  t->row_labels = shard_xcalloc(rows, sizeof(char *));
  t->col_labels = shard_xcalloc(cols, sizeof(char *));
  t->cells = shard_xcalloc((size_t)rows * cols, sizeof(char *));
  t->colors = shard_xcalloc((size_t)rows * cols, sizeof(int));
}

static void table_free(table *t) {
  for (uint32_t r = 0; r < t->rows; r++) free(t->row_labels[r]);
  for (uint32_t c = 0; c < t->cols; c++) free(t->col_labels[c]);
  for (size_t i = 0; i < (size_t)t->rows * t->cols; i++) free(t->cells[i]);
  free(t->row_labels);
  free(t->col_labels);
  free(t->cells);
  free(t->colors);
}

/* One horizontal rule: left, fill, joint and right pieces. */
static void rule(shard_buf *out, size_t indent, const size_t *w, uint32_t cols, const char *l, const char *j,
                 const char *r) {
  spaces(out, indent);
  shard_buf_puts(out, l);
  for (uint32_t c = 0; c < cols; c++) {
    repeat(out, "─", w[c]);
    shard_buf_puts(out, c + 1 < cols ? j : r);
  }
  shard_buf_putc(out, '\n');
}

static void table_draw(shard_buf *out, const table *t, bool color) {
  size_t label_w = 0;
  for (uint32_t r = 0; r < t->rows; r++) {
    size_t w = t->row_labels[r] ? width(t->row_labels[r], strlen(t->row_labels[r])) : 0;
    if (w > label_w) label_w = w;
  }
  size_t indent = label_w ? label_w + 1 : 0;
  size_t *w = shard_xcalloc(t->cols, sizeof *w);
  bool any_col_label = false;
  for (uint32_t c = 0; c < t->cols; c++) {
    if (t->col_labels[c] && t->col_labels[c][0]) {
      any_col_label = true;
      w[c] = width(t->col_labels[c], strlen(t->col_labels[c]));
    }
    for (uint32_t r = 0; r < t->rows; r++) {
      size_t cw = max_line_width(t->cells[(size_t)r * t->cols + c]);
      if (cw > w[c]) w[c] = cw;
    }
    w[c] += 2;
  }
  if (any_col_label) {
    spaces(out, indent);
    for (uint32_t c = 0; c < t->cols; c++) {
      const char *l = t->col_labels[c] ? t->col_labels[c] : "";
      shard_buf_puts(out, "  ");
      shard_buf_puts(out, l);
      /* The last column needs no trailing padding. */
      if (c + 1 < t->cols) spaces(out, w[c] - 1 - width(l, strlen(l)));
    }
    shard_buf_putc(out, '\n');
  }
  rule(out, indent, w, t->cols, "┌", "┬", "┐");
  for (uint32_t r = 0; r < t->rows; r++) {
    uint32_t h = 1;
    for (uint32_t c = 0; c < t->cols; c++) {
      uint32_t n = line_count(t->cells[(size_t)r * t->cols + c]);
      if (n > h) h = n;
    }
    for (uint32_t k = 0; k < h; k++) {
      const char *rl = k == 0 && t->row_labels[r] ? t->row_labels[r] : "";
      shard_buf_puts(out, rl);
      if (indent) spaces(out, indent - width(rl, strlen(rl)));
      shard_buf_puts(out, "│");
      for (uint32_t c = 0; c < t->cols; c++) {
        size_t len;
        const char *l = line_of(t->cells[(size_t)r * t->cols + c], k, &len);
        int col = t->colors[(size_t)r * t->cols + c];
        shard_buf_putc(out, ' ');
        if (color && col >= 0 && len) shard_buf_printf(out, "\x1b[%dm", palette[(size_t)col % PALETTE_SIZE]);
        shard_buf_putn(out, l, len);
        if (color && col >= 0 && len) shard_buf_puts(out, "\x1b[0m");
        spaces(out, w[c] - 1 - width(l, len));
        shard_buf_puts(out, "│");
      }
      shard_buf_putc(out, '\n');
    }
    if (r + 1 < t->rows) rule(out, indent, w, t->cols, "├", "┼", "┤");
  }
  rule(out, indent, w, t->cols, "└", "┴", "┘");
  free(w);
}

static char *take(shard_buf *b) {
  char *s = shard_buf_take(b);
  return s ? s : shard_xstrdup("");
}

static void heading(shard_buf *out, const char *text, bool color) {
  if (color) shard_buf_printf(out, "\x1b[1m%s\x1b[0m\n", text);
  else shard_buf_printf(out, "%s\n", text);
}

static void tensor_grids(shard_buf *out, const shard_placement *p, const shard_viz_options *o) {
  shard_viz_grid g;
  shard_viz_grid_init(&g, p, o->layout);
  shard_buf b;
  shard_buf_init(&b);
  shard_viz_grid_describe(&b, &g, p);
  shard_buf_puts(&b, " (cells: block #, then the ids of the devices holding it)");
  shard_buf_printf(out, "%s\n", shard_buf_str(&b));
  shard_buf_clear(&b);
  for (uint32_t page = 0; page < g.num_pages; page++) {
    if (g.num_pages > 1) {
      shard_viz_grid_label(&b, &g, p, 'p', page);
      shard_buf_printf(out, "%s:\n", shard_buf_str(&b));
      shard_buf_clear(&b);
    }
    table t;
    table_init(&t, g.num_rows, g.num_cols);
    for (uint32_t r = 0; r < g.num_rows; r++) {
      if (g.num_row_dims) {
        shard_viz_grid_label(&b, &g, p, 'r', r);
        t.row_labels[r] = take(&b);
      }
    }
    for (uint32_t c = 0; c < g.num_cols; c++) {
      if (g.num_col_dims) {
        shard_viz_grid_label(&b, &g, p, 'c', c);
        t.col_labels[c] = take(&b);
      }
    }
    for (uint32_t r = 0; r < g.num_rows; r++)
      for (uint32_t c = 0; c < g.num_cols; c++) {
        uint32_t blk = shard_viz_grid_block(&g, p, page, r, c);
        shard_buf_printf(&b, "#%u\n", blk);
        shard_viz_block_devices(&b, p, blk, "\n");
        t.cells[(size_t)r * g.num_cols + c] = take(&b);
        t.colors[(size_t)r * g.num_cols + c] = (int)blk;
      }
    table_draw(out, &t, o->color);
    table_free(&t);
  }
  shard_buf_free(&b);
  shard_viz_grid_free(&g);
}

void shard_viz_mesh_table_init(table *t, const shard_mesh *m) {
  uint32_t rows, cols;
  shard_viz_mesh_shape(m, &rows, &cols);
  table_init(t, rows, cols);
  shard_buf b;
  shard_buf_init(&b);
  for (uint32_t r = 0; r < rows; r++) {
    shard_viz_mesh_label(&b, m, 'r', r);
    t->row_labels[r] = take(&b);
  }
  for (uint32_t c = 0; c < cols; c++) {
    shard_viz_mesh_label(&b, m, 'c', c);
    t->col_labels[c] = take(&b);
  }
  shard_buf_free(&b);
}

/* Mesh grid of a placement: each device with the block it holds. */
static void device_grid(shard_buf *out, const shard_placement *p, const shard_viz_options *o) {
  table t;
  shard_viz_mesh_table_init(&t, p->mesh);
  uint32_t rows = t.rows, cols = t.cols;
  shard_buf b;
  shard_buf_init(&b);
  for (uint32_t r = 0; r < rows; r++)
    for (uint32_t c = 0; c < cols; c++) {
      const shard_placement_device *dev = &p->devices[shard_viz_mesh_position(p->mesh, r, c)];
      shard_buf_printf(&b, "dev %lld\n#%u", (long long)dev->id, dev->block);
      if (p->num_partials > 1) shard_buf_printf(&b, " p%lld", (long long)dev->partial);
      t.cells[(size_t)r * cols + c] = take(&b);
      t.colors[(size_t)r * cols + c] = (int)dev->block;
    }
  shard_buf_puts(out, "devices on the mesh (cells: device id, then the block it holds");
  if (p->num_partials > 1) shard_buf_puts(out, " and which partial value");
  shard_buf_puts(out, ")");
  if (p->mesh->num_axes > 2) {
    shard_buf_puts(out, "; rows ");
    for (uint32_t ax = 0; ax + 1 < p->mesh->num_axes; ax++)
      shard_buf_printf(out, "%s\"%s\"", ax ? " x " : "", p->mesh->axes[ax].name);
    shard_buf_puts(out, " folded row-major");
  }
  shard_buf_putc(out, '\n');
  table_draw(out, &t, o->color);
  table_free(&t);
  shard_buf_free(&b);
}

void shard_viz_term_blocks(shard_buf *out, const shard_placement *p) {
  shard_buf_puts(out, "blocks:\n");
  for (uint32_t i = 0; i < p->num_blocks; i++) {
    const shard_placement_block *blk = &p->blocks[i];
    shard_buf_printf(out, "  #%u ", i);
    shard_placement_print_ranges(out, p, i);
    if (blk->empty) shard_buf_puts(out, " empty (padding only)");
    else if (blk->padded) shard_buf_puts(out, " padded");
    shard_buf_puts(out, " on");
    for (uint32_t k = 0; k < blk->num_devices; k++) {
      const shard_placement_device *dev = &p->devices[blk->devices[k]];
      shard_buf_printf(out, "%s %lld (", k ? "," : "", (long long)dev->id);
      shard_placement_print_coords(out, p, blk->devices[k]);
      if (p->num_partials > 1) shard_buf_printf(out, "; partial %lld", (long long)dev->partial);
      shard_buf_putc(out, ')');
    }
    shard_buf_putc(out, '\n');
  }
}

void shard_viz_term_placement(shard_buf *out, const shard_placement *p, const shard_viz_options *o) {
  shard_buf s;
  shard_buf_init(&s);
  shard_viz_summary(&s, p);
  /* The first summary line is the title. */
  const char *text = shard_buf_str(&s);
  const char *nl = strchr(text, '\n');
  char *title = shard_xstrndup(text, (size_t)(nl - text));
  heading(out, title, o->color);
  free(title);
  shard_buf_puts(out, nl + 1);
  shard_buf_free(&s);
  tensor_grids(out, p, o);
  device_grid(out, p, o);
  shard_viz_term_blocks(out, p);
}

/* ---- meshes ---------------------------------------------------------------- */

static void one_mesh(shard_buf *out, const shard_viz_mesh *vm, const shard_viz_options *o) {
  const shard_mesh *m = vm->mesh;
  shard_buf b;
  shard_buf_init(&b);
  if (vm->name) shard_buf_printf(&b, "@%s = ", vm->name);
  shard_mesh_print(&b, m);
  int64_t n = shard_mesh_num_devices(m);
  shard_buf_printf(&b, ": %lld device%s", (long long)n, n == 1 ? "" : "s");
  if (m->num_axes == 0 && m->num_device_ids == 1)
    shard_buf_printf(&b, " (maximal mesh: everything on device %lld)", (long long)m->device_ids[0]);
  else if (m->device_ids) shard_buf_puts(&b, ", device_ids permuted");
  heading(out, shard_buf_str(&b), o->color);
  shard_buf_clear(&b);
  for (uint32_t ax = 0; ax < m->num_axes; ax++) {
    /* the pieces the users' sub-axes cut the axis into */
    shard_axis_cuts cuts;
    shard_axis_cuts_init(&cuts, m->axes[ax].name, m->axes[ax].size);
    shard_axis_cuts_add(&cuts, vm->sub_axes, vm->num_sub_axes);
    uint32_t pieces = shard_axis_cuts_finish(&cuts);
    if (pieces > 1) {
      shard_buf_printf(out, "  \"%s\" is used as", m->axes[ax].name);
      for (uint32_t i = 0; i < pieces; i++) {
        shard_axis_ref r = shard_axis_cuts_piece(&cuts, i);
        shard_buf_puts(out, i ? " x " : " ");
        shard_axis_print(out, &r);
      }
      shard_buf_puts(out, " (major to minor)\n");
    }
    shard_axis_cuts_free(&cuts);
  }
  if (n < 1 || n > SHARD_PLACEMENT_MAX_DEVICES) {
    shard_buf_free(&b);
    return;
  }
  table t;
  shard_viz_mesh_table_init(&t, m);
  uint32_t rows = t.rows, cols = t.cols;
  for (uint32_t r = 0; r < rows; r++)
    for (uint32_t c = 0; c < cols; c++) {
      uint32_t pos = shard_viz_mesh_position(m, r, c);
      int64_t id = m->device_ids && pos < m->num_device_ids ? m->device_ids[pos] : (int64_t)pos;
      shard_buf_printf(&b, "%lld", (long long)id);
      t.cells[(size_t)r * cols + c] = take(&b);
      /* Devices out of place in a permuted mesh stand out. */
      t.colors[(size_t)r * cols + c] = id == (int64_t)pos ? -1 : 0;
    }
  if (m->num_axes > 2) {
    shard_buf_puts(out, "  rows: ");
    for (uint32_t ax = 0; ax + 1 < m->num_axes; ax++)
      shard_buf_printf(out, "%s\"%s\"", ax ? " x " : "", m->axes[ax].name);
    shard_buf_printf(out, " folded row-major; columns: \"%s\"\n", m->axes[m->num_axes - 1].name);
  }
  table_draw(out, &t, o->color);
  table_free(&t);
  shard_buf_free(&b);
}

void shard_viz_term_meshes(shard_buf *out, const shard_viz_mesh *meshes, uint32_t n, const shard_viz_options *o) {
  for (uint32_t i = 0; i < n; i++) {
    if (i) shard_buf_putc(out, '\n');
    one_mesh(out, &meshes[i], o);
  }
  /* Meshes with the same axes but another device order: say where. */
  bool first = true;
  for (uint32_t i = 0; i < n; i++)
    for (uint32_t j = i + 1; j < n; j++) {
      const shard_mesh *a = meshes[i].mesh, *b = meshes[j].mesh;
      if (!shard_mesh_same_axes(a, b) || shard_mesh_equal(a, b)) continue;
      int64_t total = shard_mesh_num_devices(a);
      for (int64_t pos = 0; pos < total; pos++) {
        int64_t ia = a->device_ids && pos < a->num_device_ids ? a->device_ids[pos] : pos;
        int64_t ib = b->device_ids && pos < b->num_device_ids ? b->device_ids[pos] : pos;
        if (ia == ib) continue;
        int64_t differ = 0;
        for (int64_t q = pos; q < total; q++) {
          int64_t qa = a->device_ids && q < a->num_device_ids ? a->device_ids[q] : q;
          int64_t qb = b->device_ids && q < b->num_device_ids ? b->device_ids[q] : q;
          differ += qa != qb;
        }
        if (first) shard_buf_putc(out, '\n');
        first = false;
        shard_buf_printf(out,
                         "@%s and @%s have the same axes but a different device order "
                         "(%lld of %lld positions differ): "
                         "position %lld holds device %lld in @%s and %lld in @%s\n",
                         meshes[i].name ? meshes[i].name : "?", meshes[j].name ? meshes[j].name : "?",
                         (long long)differ, (long long)total, (long long)pos, (long long)ia,
                         meshes[i].name ? meshes[i].name : "?", (long long)ib, meshes[j].name ? meshes[j].name : "?");
        break;
      }
    }
}

/* ---- the grid for other pictures (plan.c) ------------------------------------- */

void shard_viz_table_init(shard_viz_table *t, uint32_t rows, uint32_t cols) { table_init(t, rows, cols); }
void shard_viz_table_free(shard_viz_table *t) { table_free(t); }
void shard_viz_table_draw(shard_buf *out, const shard_viz_table *t, bool color) { table_draw(out, t, color); }
