/* Helpers for the conversion tests: run one conversion through the library
 * with every diagnostic collected, and compare shardings by device map. */
#ifndef SHARD_TEST_CONVERT_TESTING_H
#define SHARD_TEST_CONVERT_TESTING_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "convert/convert.h"

typedef struct cv_diags {
  char text[8192]; /* "warning@COL: message" per line */
  unsigned errors, warnings;
} cv_diags;

static inline void cv_collect(void *ctx, const shard_diag *d) {
  cv_diags *c = ctx;
  size_t used = strlen(c->text);
  uint32_t line = 0, col = 0;
  if (d->span.src) shard_span_linecol(d->span, &line, &col);
  snprintf(c->text + used, sizeof c->text - used, "%s@%u: %s\n", shard_severity_name(d->severity), col, d->message);
  if (d->severity == SHARD_ERROR) c->errors++;
  if (d->severity == SHARD_WARNING) c->warnings++;
}

typedef struct cv_run {
  shard_arena *arena;
  shard_diag_engine de;
  cv_diags diags;
  shard_conv_ctx cx;
  shard_source src, mesh_src;
  int64_t *shape;
  shard_conv *parsed;
  shard_buf out, mesh_out;
  bool ok;
} cv_run;

/* Sets up a context: mesh and shape may be NULL. Returns false (with
 * diagnostics) when they do not parse. */
static inline bool cv_setup(cv_run *r, const char *mesh, const char *shape) {
  memset(r, 0, sizeof *r);
  r->arena = shard_arena_new();
  shard_diag_init(&r->de, cv_collect, &r->diags);
  shard_conv_ctx_init(&r->cx, r->arena, &r->de);
  shard_buf_init(&r->out);
  shard_buf_init(&r->mesh_out);
  if (mesh) {
    r->mesh_src.name = "<mesh>";
    r->mesh_src.text = mesh;
    r->mesh_src.len = strlen(mesh);
    r->cx.mesh = shard_conv_parse_mesh(&r->cx, &r->mesh_src);
    if (!r->cx.mesh) return false;
  }
  if (shape) {
    shard_buf err;
    shard_buf_init(&err);
    int32_t rank = shard_conv_parse_shape(shape, &r->shape, &err);
    shard_buf_free(&err);
    if (rank < 0) return false;
    r->cx.shape = r->shape;
    r->cx.rank = rank;
  }
  return true;
}

/* Parses `input` in `from` and prints it in `to`. */
static inline bool cv_convert(cv_run *r, shard_notation from, shard_notation to, const char *mesh, const char *shape,
                              const char *input) {
  if (!cv_setup(r, mesh, shape)) return false;
  r->src.name = "<sharding>";
  r->src.text = input;
  r->src.len = strlen(input);
  r->parsed = shard_conv_parse(&r->cx, from, &r->src);
  if (!r->parsed) return false;
  r->ok = shard_conv_print(&r->cx, to, r->parsed, &r->out, &r->mesh_out) && r->diags.errors == 0;
  return r->ok;
}

static inline void cv_free(cv_run *r) {
  shard_buf_free(&r->out);
  shard_buf_free(&r->mesh_out);
  free(r->shape);
  shard_arena_free(r->arena);
}

/* Number of lines of `diags` containing `needle`. */
static inline unsigned cv_count(const cv_diags *d, const char *needle) {
  unsigned n = 0;
  for (const char *p = d->text; (p = strstr(p, needle)) != NULL; p += strlen(needle)) n++;
  return n;
}

/* Same device for every element? `why` (may be NULL) says where not. */
static inline bool cv_equivalent(const shard_conv *a, const shard_conv *b, const int64_t *shape, uint32_t rank,
                                 int64_t num_devices, shard_buf *why) {
  shard_device_map ma, mb;
  if (!shard_device_map_build(a, shape, rank, num_devices, &ma, why)) return false;
  if (!shard_device_map_build(b, shape, rank, num_devices, &mb, why)) {
    shard_device_map_free(&ma);
    return false;
  }
  bool eq = shard_device_map_equal(&ma, &mb, why);
  shard_device_map_free(&ma);
  shard_device_map_free(&mb);
  return eq;
}

#endif
