/* Pictures of shardings: one backend per file over the placement model of
 * src/core/placement.h.
 *
 *   layout.c  how a tensor of any rank is laid out as 2-D grids (shared)
 *   term.c    terminal pictures (Unicode box drawing, optional ANSI colour)
 *   json.c    the same data as JSON, for other tools
 *   dot.c     Graphviz DOT text, built with libcgraph
 *   render.c  DOT text to svg/png/pdf with libgvc
 *
 * The dataflow graph (flow_graph.h) and the communication plan's device
 * groups (comm_groups.h) are drawn by graph.c and plan.c, and the memory
 * over program order (memory.h) by memory.c, each holding its
 * text, DOT and JSON forms: those pictures share nothing with placements
 * but the helpers below, and keeping each in one file keeps its three
 * forms in step.
 *
 * Every function appends to a shard_buf the caller owns; nothing here
 * writes to files or decides about colour. */
#ifndef SHARD_VIZ_H
#define SHARD_VIZ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "support/buf.h"
#include "cost/comm_groups.h"
#include "cost/flow_graph.h"
#include "cost/memory.h"
#include "cost/placement.h"
#include "sdy/sharding.h"

/* How ranks above 2 become 2-D pictures. */
typedef enum shard_viz_layout {
  SHARD_VIZ_SLICES, /* a grid of 2-D pictures of the last two dims, one per shard of the others */
  SHARD_VIZ_FOLD /* one picture: all dims but the last folded into rows */
} shard_viz_layout;

typedef struct shard_viz_options {
  bool color; /* ANSI colours in terminal pictures */
  shard_viz_layout layout;
} shard_viz_options;

/* A mesh to draw, with the sub-axes its users cut it into (may be none). */
typedef struct shard_viz_mesh {
  const char *name; /* without '@'; NULL for an inlined mesh */
  const shard_mesh *mesh;
  const shard_axis_ref *sub_axes;
  uint32_t num_sub_axes;
} shard_viz_mesh;

/* ---- layout.c ------------------------------------------------------------ */

/* Tensor dims split into page, row and column dims. Tiles along a group of
 * dims are numbered row-major. The lists (and `tile`, scratch of one entry
 * per dim) are sized by the rank: shard_viz_grid_free releases them. */
typedef struct shard_viz_grid {
  uint32_t *page_dims, *row_dims, *col_dims;
  uint32_t num_page_dims, num_row_dims, num_col_dims;
  uint32_t num_pages, num_rows, num_cols;
  int64_t *tile;
} shard_viz_grid;

void shard_viz_grid_init(shard_viz_grid *g, const shard_placement *p, shard_viz_layout layout);
void shard_viz_grid_free(shard_viz_grid *g);
/* The block drawn at (page, row, col). */
uint32_t shard_viz_grid_block(const shard_viz_grid *g, const shard_placement *p, uint32_t page, uint32_t row,
                              uint32_t col);
/* Labels: "0:4" (one dim) or "d0 0:2, d1 4:8" (several), with "+N pad" or
 * "empty" for short or empty tail shards. `which` is 'p', 'r' or 'c'. */
void shard_viz_grid_label(shard_buf *b, const shard_viz_grid *g, const shard_placement *p, char which, uint32_t index);
/* One sentence saying how the tensor was laid out ("rows: dim 0, columns: dim 1"). */
void shard_viz_grid_describe(shard_buf *b, const shard_viz_grid *g, const shard_placement *p);
/* Mesh grid: rows are all axes but the last folded row-major, columns the last axis. */
void shard_viz_mesh_shape(const shard_mesh *m, uint32_t *rows, uint32_t *cols);
/* The mesh position (row-major device index) at (row, col). */
uint32_t shard_viz_mesh_position(const shard_mesh *m, uint32_t row, uint32_t col);
/* Row or column label of the mesh grid: "x=1" or "x=0, y=1". */
void shard_viz_mesh_label(shard_buf *b, const shard_mesh *m, char which, uint32_t index);
/* Summary lines shared by the text and DOT pictures: dims, replication, unreduced. */
void shard_viz_summary(shard_buf *b, const shard_placement *p);
/* "#3" and the device ids of a block, grouped by partial value when unreduced. */
void shard_viz_block_devices(shard_buf *b, const shard_placement *p, uint32_t block, const char *group_sep);

/* ---- term.c ---------------------------------------------------------------- */

void shard_viz_term_placement(shard_buf *out, const shard_placement *p, const shard_viz_options *o);
/* Just the list of blocks: ranges, padding, devices with coordinates. */
void shard_viz_term_blocks(shard_buf *out, const shard_placement *p);
void shard_viz_term_meshes(shard_buf *out, const shard_viz_mesh *meshes, uint32_t n, const shard_viz_options *o);

/* ---- json.c ---------------------------------------------------------------- */

void shard_viz_json_placements(shard_buf *out, shard_placement *const *p, uint32_t n);
void shard_viz_json_meshes(shard_buf *out, const shard_viz_mesh *meshes, uint32_t n);

/* ---- dot.c ----------------------------------------------------------------- */

void shard_viz_dot_placements(shard_buf *out, shard_placement *const *p, uint32_t n, const shard_viz_options *o);
void shard_viz_dot_meshes(shard_buf *out, const shard_viz_mesh *meshes, uint32_t n);

/* A grid of multi-line cells with optional row and column labels, drawn with
 * box characters; colours index term.c's palette (-1: none). Cells and
 * labels are heap strings that shard_viz_table_free frees. */
typedef struct shard_viz_table {
  uint32_t rows, cols;
  char **row_labels, **col_labels;
  char **cells; /* rows*cols, row-major */
  int *colors;
} shard_viz_table;
void shard_viz_table_init(shard_viz_table *t, uint32_t rows, uint32_t cols);
/* A table of mesh m's grid (shard_viz_mesh_shape) with its rows and columns
 * labelled by mesh coordinates (shard_viz_mesh_label); the caller fills the
 * cells. */
void shard_viz_mesh_table_init(shard_viz_table *t, const shard_mesh *m);
void shard_viz_table_free(shard_viz_table *t);
void shard_viz_table_draw(shard_buf *out, const shard_viz_table *t, bool color);

/* ---- graph.c --------------------------------------------------------------- */

/* `title` is the first line (the input and what was run on it). */
void shard_viz_term_graph(shard_buf *out, const shard_flow_graph *g, const char *title, const shard_viz_options *o);
void shard_viz_dot_graph(shard_buf *out, const shard_flow_graph *g, const char *title);
void shard_viz_json_graph(shard_buf *out, const shard_flow_graph *g, const char *title);

/* ---- plan.c ---------------------------------------------------------------- */

/* The collectives of a plan, each with its groups (NULL where they could not
 * be drawn), in plan order. */
typedef struct shard_viz_plan {
  const char *title;
  const shard_comm_plan *plan;
  shard_comm_groups *const *groups; /* plan->num_rows entries */
} shard_viz_plan;

void shard_viz_term_plan(shard_buf *out, const shard_viz_plan *p, const shard_viz_options *o);
void shard_viz_dot_plan(shard_buf *out, const shard_viz_plan *p);
void shard_viz_json_plan(shard_buf *out, const shard_viz_plan *p);

/* ---- memory.c --------------------------------------------------------------- */

/* Live bytes over program order of one function on one class of its
 * devices (memory.h), the peak marked. */
typedef struct shard_viz_memory {
  const char *title;
  const shard_memory_report *report;
  const shard_memory_function *function;
  uint32_t cls; /* index into function->classes */
} shard_viz_memory;

void shard_viz_term_memory(shard_buf *out, const shard_viz_memory *m, const shard_viz_options *o);
void shard_viz_dot_memory(shard_buf *out, const shard_viz_memory *m);
void shard_viz_json_memory(shard_buf *out, const shard_viz_memory *m);

/* ---- render.c -------------------------------------------------------------- */

/* Lays out DOT text with Graphviz's dot engine and renders it as `format`
 * (svg, png or pdf). On success (*data, *len) hold the bytes (free with free());
 * on failure err says why. */
bool shard_viz_render(const char *dot_text, const char *format, char **data, size_t *len, shard_buf *err);

#endif
