/* Layout shared by the picture backends: how a tensor of any rank becomes
 * 2-D grids, how a mesh of any number of axes becomes one grid, and the
 * summary text every picture prints next to the grid.
 *
 * Rank 0 is one cell, rank 1 one row of shards, rank 2 rows by columns. For
 * higher ranks the caller picks: SLICES draws the last two dims as a grid,
 * one grid per shard of the leading dims (a "page"); FOLD folds every dim
 * but the last into the rows. A mesh folds every axis but the last into its
 * rows, so "x"=2, "y"=4 draws as 2 rows of 4. */
#include <stdlib.h>
#include <string.h>

#include "viz.h"

void shard_viz_grid_init(shard_viz_grid *g, const shard_placement *p, shard_viz_layout layout) {
  memset(g, 0, sizeof *g);
  uint32_t r = p->rank;
  /* the three lists partition the dims: each gets room for all of them */
  g->page_dims = shard_xcalloc(3 * (size_t)r + 1, sizeof(uint32_t));
  g->row_dims = g->page_dims + r;
  g->col_dims = g->row_dims + r;
  g->tile = shard_xcalloc((size_t)r + 1, sizeof(int64_t));
  /* Columns: the last sharded dim; rows: the sharded dim before it. Falling
   * back to the last dims keeps rank-2 pictures as rows x columns and puts
   * unsharded dims, which add nothing, out of the way. */
  int col = -1, row = -1;
  for (uint32_t d = r; d-- > 0;)
    if (p->shards[d] > 1) {
      if (col < 0) col = (int)d;
      else if (row < 0) row = (int)d;
    }
  if (col < 0 && r > 0) col = (int)r - 1;
  if (row < 0 && r > 1) row = col == (int)r - 1 ? (int)r - 2 : (int)r - 1;
  if (row > col) {
    int t = row;
    row = col;
    col = t;
  }
  for (uint32_t d = 0; d < r; d++) {
    if ((int)d == col) g->col_dims[g->num_col_dims++] = d;
    else if ((int)d == row || layout == SHARD_VIZ_FOLD) g->row_dims[g->num_row_dims++] = d;
    else g->page_dims[g->num_page_dims++] = d;
  }
  g->num_pages = g->num_rows = g->num_cols = 1;
  for (uint32_t i = 0; i < g->num_page_dims; i++) g->num_pages *= (uint32_t)p->shards[g->page_dims[i]];
  for (uint32_t i = 0; i < g->num_row_dims; i++) g->num_rows *= (uint32_t)p->shards[g->row_dims[i]];
  for (uint32_t i = 0; i < g->num_col_dims; i++) g->num_cols *= (uint32_t)p->shards[g->col_dims[i]];
}

void shard_viz_grid_free(shard_viz_grid *g) {
  free(g->page_dims);
  free(g->tile);
  memset(g, 0, sizeof *g);
}

/* Writes the tile indices of the dims in `dims` for the row-major index `idx`. */
static void split_index(const shard_placement *p, const uint32_t *dims, uint32_t n, uint32_t idx, int64_t *tile) {
  for (uint32_t i = n; i-- > 0;) {
    tile[dims[i]] = idx % p->shards[dims[i]];
    idx /= (uint32_t)p->shards[dims[i]];
  }
}

uint32_t shard_viz_grid_block(const shard_viz_grid *g, const shard_placement *p, uint32_t page, uint32_t row,
                              uint32_t col) {
  int64_t *tile = g->tile;
  memset(tile, 0, sizeof(int64_t) * p->rank);
  split_index(p, g->page_dims, g->num_page_dims, page, tile);
  split_index(p, g->row_dims, g->num_row_dims, row, tile);
  split_index(p, g->col_dims, g->num_col_dims, col, tile);
  return shard_placement_block_index(p, tile);
}

/* "4:7 +1 pad" for tile t of dim d. */
static void dim_range(shard_buf *b, const shard_placement *p, uint32_t d, int64_t t) {
  int64_t c = p->local[d], start, end;
  shard_placement_tile_range(p, d, t, &start, &end);
  shard_buf_printf(b, "%lld:%lld", (long long)start, (long long)end);
  if (end == start && c > 0) shard_buf_puts(b, " empty");
  else if (end - start < c) shard_buf_printf(b, " +%lld pad", (long long)(c - (end - start)));
}

void shard_viz_grid_label(shard_buf *b, const shard_viz_grid *g, const shard_placement *p, char which, uint32_t index) {
  const uint32_t *dims = which == 'p' ? g->page_dims : which == 'r' ? g->row_dims : g->col_dims;
  uint32_t n = which == 'p' ? g->num_page_dims : which == 'r' ? g->num_row_dims : g->num_col_dims;
  int64_t *tile = g->tile;
  memset(tile, 0, sizeof(int64_t) * p->rank);
  split_index(p, dims, n, index, tile);
  bool first = true;
  for (uint32_t i = 0; i < n; i++) {
    /* Pages differ only in their sharded dims. */
    if (which == 'p' && p->shards[dims[i]] == 1) continue;
    if (!first) shard_buf_puts(b, ", ");
    first = false;
    if (n > 1 || which == 'p') shard_buf_printf(b, "d%u ", dims[i]);
    dim_range(b, p, dims[i], tile[dims[i]]);
  }
}

static void dim_list(shard_buf *b, const uint32_t *dims, uint32_t n) {
  shard_buf_puts(b, n > 1 ? "dims " : "dim ");
  for (uint32_t i = 0; i < n; i++) shard_buf_printf(b, "%s%u", i ? (i + 1 == n ? " and " : ", ") : "", dims[i]);
}

void shard_viz_grid_describe(shard_buf *b, const shard_viz_grid *g, const shard_placement *p) {
  if (p->rank == 0) {
    shard_buf_puts(b, "layout: a scalar, one block");
    return;
  }
  if (p->rank == 1) {
    shard_buf_puts(b, "layout: dim 0 across");
    return;
  }
  shard_buf_puts(b, "layout: rows ");
  dim_list(b, g->row_dims, g->num_row_dims);
  if (g->num_row_dims > 1) shard_buf_puts(b, " (folded, row-major)");
  shard_buf_puts(b, ", columns ");
  dim_list(b, g->col_dims, g->num_col_dims);
  uint32_t *sharded = shard_xcalloc((size_t)g->num_page_dims + 1, sizeof(uint32_t)), n = 0;
  for (uint32_t i = 0; i < g->num_page_dims; i++)
    if (p->shards[g->page_dims[i]] > 1) sharded[n++] = g->page_dims[i];
  if (n) {
    shard_buf_puts(b, "; one picture per shard of ");
    dim_list(b, sharded, n);
  }
  free(sharded);
  if (n < g->num_page_dims) shard_buf_puts(b, "; unsharded dims not shown are whole in every block");
}

void shard_viz_mesh_shape(const shard_mesh *m, uint32_t *rows, uint32_t *cols) {
  int64_t n = shard_mesh_num_devices(m);
  *cols = m->num_axes ? (uint32_t)m->axes[m->num_axes - 1].size : 1;
  *rows = *cols ? (uint32_t)(n / *cols) : 0;
}

uint32_t shard_viz_mesh_position(const shard_mesh *m, uint32_t row, uint32_t col) {
  uint32_t rows, cols;
  shard_viz_mesh_shape(m, &rows, &cols);
  return row * cols + col;
}

void shard_viz_mesh_label(shard_buf *b, const shard_mesh *m, char which, uint32_t index) {
  if (m->num_axes == 0) return;
  if (which == 'c') {
    shard_buf_printf(b, "%s=%u", m->axes[m->num_axes - 1].name, index);
    return;
  }
  /* Rows: every axis but the last, row-major. */
  uint32_t n = m->num_axes - 1;
  for (uint32_t i = 0; i < n; i++) {
    int64_t below = 1; /* rows per step of axis i */
    for (uint32_t j = i + 1; j < n; j++) below *= m->axes[j].size;
    shard_buf_printf(b, "%s%s=%lld", i ? ", " : "", m->axes[i].name, (long long)(index / below % m->axes[i].size));
  }
}

/* The parts of the mesh with a role, as {"x", "y":(1)2}. */
static bool parts_with(shard_buf *b, const shard_placement *p, shard_axis_role role) {
  bool any = false;
  for (uint32_t i = 0; i < p->num_axes; i++) {
    if (p->axes[i].role != role) continue;
    shard_buf_puts(b, any ? ", " : "{");
    shard_axis_print(b, &p->axes[i].ref);
    any = true;
  }
  if (any) shard_buf_putc(b, '}');
  return any;
}

void shard_viz_summary(shard_buf *b, const shard_placement *p) {
  shard_buf_printf(b, "%s on ", p->type->text);
  if (p->mesh_name) shard_buf_printf(b, "@%s ", p->mesh_name);
  shard_mesh_print(b, p->mesh);
  shard_buf_printf(b, " (%u device%s)\n", p->num_devices, p->num_devices == 1 ? "" : "s");
  shard_buf_puts(b, "sharding");
  shard_sharding_print(b, p->sharding);
  shard_buf_putc(b, '\n');
  for (uint32_t d = 0; d < p->rank; d++) {
    shard_buf_printf(b, "dim %u: %lld", d, (long long)p->dims[d]);
    if (p->shards[d] == 1) {
      shard_buf_puts(b, ", not sharded\n");
      continue;
    }
    shard_buf_printf(b, " in %lld shards by ", (long long)p->shards[d]);
    const shard_dim_sharding *ds = &p->sharding->dims[d];
    shard_axis_list_print(b, ds->axes, ds->num_axes);
    shard_buf_printf(b, ", %lld per device", (long long)p->local[d]);
    for (int64_t t = 0; t < p->shards[d]; t++) {
      int64_t c = p->local[d], start, end;
      shard_placement_tile_range(p, d, t, &start, &end);
      if (end - start == c) continue;
      if (end == start) shard_buf_printf(b, "; shard %lld empty", (long long)t);
      else
        shard_buf_printf(b, "; shard %lld has %lld (+%lld pad)", (long long)t, (long long)(end - start),
                         (long long)(c - (end - start)));
    }
    shard_buf_putc(b, '\n');
  }
  shard_buf_printf(b, "each block on %lld device%s", (long long)(p->copies * p->num_partials),
                   p->copies * p->num_partials == 1 ? "" : "s");
  if (p->copies > 1) {
    shard_buf_printf(b, "; replicated %lldx along ", (long long)p->copies);
    bool e = parts_with(b, p, SHARD_ROLE_REPLICATED);
    if (e) shard_buf_puts(b, " (explicit)");
    shard_buf tmp;
    shard_buf_init(&tmp);
    if (parts_with(&tmp, p, SHARD_ROLE_IMPLICIT)) {
      shard_buf_puts(b, e ? " and " : "");
      shard_buf_puts(b, shard_buf_str(&tmp));
      shard_buf_puts(b, " (implicit)");
    }
    shard_buf_free(&tmp);
  }
  shard_buf_putc(b, '\n');
  if (p->sharding->num_unreduced) {
    shard_buf_puts(b, "unreduced ");
    parts_with(b, p, SHARD_ROLE_UNREDUCED);
    shard_buf_printf(b, ": %lld partial %s values per block, reduced later\n", (long long)p->num_partials,
                     shard_reduction_name(p->sharding->reduction));
  }
}

void shard_viz_block_devices(shard_buf *b, const shard_placement *p, uint32_t block, const char *group_sep) {
  const shard_placement_block *blk = &p->blocks[block];
  /* Long replica lists would swamp the picture; the JSON has them all. */
  enum { SHOWN = 8 };
  for (int64_t part = 0; part < p->num_partials; part++) {
    if (part) shard_buf_puts(b, group_sep);
    if (p->num_partials > 1) shard_buf_printf(b, "p%lld: ", (long long)part);
    uint32_t shown = 0, hidden = 0;
    for (uint32_t i = 0; i < blk->num_devices; i++) {
      const shard_placement_device *dev = &p->devices[blk->devices[i]];
      if (dev->partial != part) continue;
      if (shown == SHOWN) {
        hidden++;
        continue;
      }
      shard_buf_printf(b, "%s%lld", shown ? " " : "", (long long)dev->id);
      shown++;
    }
    if (hidden) shard_buf_printf(b, " +%u more", hidden);
  }
}
