/* JSON pictures: the placement model as data, for other tools.
 *
 * Written by hand rather than through cJSON so that src/viz needs nothing
 * but Graphviz, and so that key order and layout are fixed (golden tests
 * compare the text). One placement:
 *
 *   {"type": "tensor<8x16xf32>", "shape": [8, 16],
 *    "sharding": "<@m, [{\"x\"}, {}]>", "mesh": {...},
 *    "dims": [{"size": 8, "shards": 2, "local": 4, "axes": ["x"]}, ...],
 *    "axes": [{"axis": "x", "ref": "\"x\"", "pre_size": 1, "size": 2, "role": "dim", "dim": 0}, ...],
 *    "copies": 4, "partials": 1, "reduction": null,
 *    "blocks": [{"index": 0, "tile": [0, 0], "start": [0, 0], "end": [4, 16],
 *                "padding": [0, 0], "empty": false,
 *                "devices": [{"id": 0, "coords": {"x": 0, "y": 0}, "partial": 0}, ...]}, ...],
 *    "devices": [{"id": 0, "coords": {...}, "block": 0, "partial": 0}, ...]} */
#include <string.h>

#include "viz.h"

#define str shard_buf_put_json_string

static void ints(shard_buf *b, const int64_t *v, uint32_t n) {
  shard_buf_putc(b, '[');
  for (uint32_t i = 0; i < n; i++) shard_buf_printf(b, "%s%lld", i ? ", " : "", (long long)v[i]);
  shard_buf_putc(b, ']');
}

/* The mesh object without its closing brace, so callers can add members. */
static void mesh_obj(shard_buf *b, const char *name, const shard_mesh *m) {
  shard_buf_puts(b, "{\"name\": ");
  if (name) str(b, name);
  else shard_buf_puts(b, "null");
  shard_buf_puts(b, ", \"axes\": [");
  for (uint32_t i = 0; i < m->num_axes; i++) {
    shard_buf_puts(b, i ? ", {\"name\": " : "{\"name\": ");
    str(b, m->axes[i].name);
    shard_buf_printf(b, ", \"size\": %lld}", (long long)m->axes[i].size);
  }
  int64_t n = shard_mesh_num_devices(m);
  shard_buf_printf(b, "], \"num_devices\": %lld, \"device_ids\": [", (long long)n);
  for (int64_t i = 0; i < n && i < SHARD_PLACEMENT_MAX_DEVICES; i++) {
    int64_t id = m->device_ids && i < m->num_device_ids ? m->device_ids[i] : i;
    shard_buf_printf(b, "%s%lld", i ? ", " : "", (long long)id);
  }
  shard_buf_printf(b, "], \"permuted\": %s", m->device_ids ? "true" : "false");
}

static void coords(shard_buf *b, const shard_placement *p, const shard_placement_device *dev) {
  shard_buf_putc(b, '{');
  for (uint32_t ax = 0; ax < p->mesh->num_axes; ax++) {
    if (ax) shard_buf_puts(b, ", ");
    str(b, p->mesh->axes[ax].name);
    shard_buf_printf(b, ": %lld", (long long)dev->coords[ax]);
  }
  shard_buf_putc(b, '}');
}

static void placement(shard_buf *b, const shard_placement *p) {
  shard_buf t;
  shard_buf_init(&t);
  shard_buf_puts(b, "    {\n      \"type\": ");
  str(b, p->type->text);
  shard_buf_puts(b, ",\n      \"shape\": ");
  ints(b, p->dims, p->rank);
  shard_buf_puts(b, ",\n      \"sharding\": ");
  shard_sharding_print(&t, p->sharding);
  str(b, shard_buf_str(&t));
  shard_buf_clear(&t);
  shard_buf_puts(b, ",\n      \"mesh\": ");
  mesh_obj(b, p->mesh_name, p->mesh);
  shard_buf_putc(b, '}');
  shard_buf_puts(b, ",\n      \"dims\": [");
  for (uint32_t d = 0; d < p->rank; d++) {
    shard_buf_printf(b, "%s\n        {\"size\": %lld, \"shards\": %lld, \"local\": %lld, \"axes\": [", d ? "," : "",
                     (long long)p->dims[d], (long long)p->shards[d], (long long)p->local[d]);
    const shard_dim_sharding *ds = &p->sharding->dims[d];
    for (uint32_t k = 0; k < ds->num_axes; k++) {
      if (k) shard_buf_puts(b, ", ");
      shard_axis_print(&t, &ds->axes[k]);
      str(b, shard_buf_str(&t));
      shard_buf_clear(&t);
    }
    shard_buf_printf(b, "], \"open\": %s}", ds->is_open ? "true" : "false");
  }
  shard_buf_puts(b, p->rank ? "\n      ],\n      \"axes\": [" : "],\n      \"axes\": [");
  for (uint32_t i = 0; i < p->num_axes; i++) {
    const shard_placement_axis *ax = &p->axes[i];
    shard_buf_puts(b, i ? ",\n        {\"axis\": " : "\n        {\"axis\": ");
    str(b, ax->ref.name);
    shard_buf_puts(b, ", \"ref\": ");
    shard_axis_print(&t, &ax->ref);
    str(b, shard_buf_str(&t));
    shard_buf_clear(&t);
    shard_buf_printf(b, ", \"pre_size\": %lld, \"size\": %lld, \"role\": ", (long long)ax->pre_size,
                     (long long)ax->size);
    str(b, ax->role == SHARD_ROLE_IMPLICIT ? "implicit" : shard_axis_role_name(ax->role));
    if (ax->role == SHARD_ROLE_DIM) shard_buf_printf(b, ", \"dim\": %u", ax->dim);
    shard_buf_putc(b, '}');
  }
  shard_buf_puts(b, p->num_axes ? "\n      ],\n" : "],\n");
  shard_buf_printf(b, "      \"copies\": %lld,\n      \"partials\": %lld,\n      \"reduction\": ", (long long)p->copies,
                   (long long)p->num_partials);
  if (p->sharding->num_unreduced) str(b, shard_reduction_name(p->sharding->reduction));
  else shard_buf_puts(b, "null");
  shard_buf_puts(b, ",\n      \"blocks\": [");
  for (uint32_t i = 0; i < p->num_blocks; i++) {
    const shard_placement_block *blk = &p->blocks[i];
    shard_buf_printf(b, "%s\n        {\"index\": %u, \"tile\": ", i ? "," : "", i);
    ints(b, blk->tile, p->rank);
    shard_buf_puts(b, ", \"start\": ");
    ints(b, blk->start, p->rank);
    shard_buf_puts(b, ", \"end\": ");
    ints(b, blk->end, p->rank);
    shard_buf_puts(b, ", \"padding\": [");
    for (uint32_t d = 0; d < p->rank; d++)
      shard_buf_printf(b, "%s%lld", d ? ", " : "", (long long)(p->local[d] - (blk->end[d] - blk->start[d])));
    shard_buf_printf(b, "], \"empty\": %s,\n         \"devices\": [", blk->empty ? "true" : "false");
    for (uint32_t k = 0; k < blk->num_devices; k++) {
      const shard_placement_device *dev = &p->devices[blk->devices[k]];
      shard_buf_printf(b, "%s{\"id\": %lld, \"coords\": ", k ? ", " : "", (long long)dev->id);
      coords(b, p, dev);
      shard_buf_printf(b, ", \"partial\": %lld}", (long long)dev->partial);
    }
    shard_buf_puts(b, "]}");
  }
  shard_buf_puts(b, "\n      ],\n      \"devices\": [");
  for (uint32_t i = 0; i < p->num_devices; i++) {
    const shard_placement_device *dev = &p->devices[i];
    shard_buf_printf(b, "%s\n        {\"position\": %u, \"id\": %lld, \"coords\": ", i ? "," : "", i,
                     (long long)dev->id);
    coords(b, p, dev);
    shard_buf_printf(b, ", \"block\": %u, \"partial\": %lld}", dev->block, (long long)dev->partial);
  }
  shard_buf_puts(b, "\n      ]\n    }");
  shard_buf_free(&t);
}

void shard_viz_json_placements(shard_buf *out, shard_placement *const *p, uint32_t n) {
  shard_buf_puts(out, "{\n  \"placements\": [");
  for (uint32_t i = 0; i < n; i++) {
    shard_buf_puts(out, i ? ",\n" : "\n");
    placement(out, p[i]);
  }
  shard_buf_puts(out, n ? "\n  ]\n}\n" : "]\n}\n");
}

void shard_viz_json_meshes(shard_buf *out, const shard_viz_mesh *meshes, uint32_t n) {
  shard_buf_puts(out, "{\n  \"meshes\": [");
  shard_buf t;
  shard_buf_init(&t);
  for (uint32_t i = 0; i < n; i++) {
    shard_buf_puts(out, i ? ",\n    " : "\n    ");
    mesh_obj(out, meshes[i].name, meshes[i].mesh);
    shard_buf_puts(out, ", \"sub_axes\": [");
    for (uint32_t k = 0; k < meshes[i].num_sub_axes; k++) {
      if (k) shard_buf_puts(out, ", ");
      shard_axis_print(&t, &meshes[i].sub_axes[k]);
      str(out, shard_buf_str(&t));
      shard_buf_clear(&t);
    }
    shard_buf_puts(out, "]}");
  }
  shard_buf_free(&t);
  shard_buf_puts(out, n ? "\n  ]\n}\n" : "]\n}\n");
}
