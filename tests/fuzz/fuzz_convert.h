/* Shared body of the harnesses for the sharding notations of
 * `shard convert` (convert_*.c): HloSharding, PartitionSpec, DTensor
 * placements, TF layouts, Paddle and OneFlow.
 *
 * Input: three parts separated by the first two newlines,
 *
 *   MESH      (as --mesh takes it; empty: no mesh)
 *   SHAPE     (as --shape takes it; empty: no shape)
 *   SHARDING  (the rest, in the harness's notation)
 *
 * Each part gets its own NUL-terminated copy, so reading past a part is an
 * ASan report. A harness aborts (a finding) when:
 *   - anything crashes or trips a sanitizer;
 *   - a parse fails without an error, or an error of the parse is not
 *     located inside the text being parsed (the API promises located
 *     errors; a span may reach one past the end, where the NUL is);
 *   - a sharding that parsed prints in its own notation (the round trip)
 *     or in any other notation as text that does not parse again;
 *   - a print that warned about nothing changes which device holds which
 *     element (compared on device maps when a shape is given, the mesh
 *     has at most FUZZ_MAX_DEVICES devices and the map at most
 *     FUZZ_MAX_MAP_ENTRIES devices x dimensions: a map costs that much per
 *     build, and the 1% of the dtensor corpus with hundreds of devices and
 *     hundreds of dimensions took 45% of a replay of the 6,223-input corpus,
 *     1.27 s against 0.69 s with the bound; fuzz_dtensor ran at 600 exec/s).
 * Shardings on more than FUZZ_MAX_PRINTED_DEVICES devices are parsed and
 * validated only: their prints are as long as their device lists (at 65536
 * a unit took 0.3 s under ASan, and more than 10 s on a loaded machine). */
#ifndef SHARD_FUZZ_CONVERT_H
#define SHARD_FUZZ_CONVERT_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support/arena.h"
#include "support/buf.h"
#include "convert/convert.h"
#include "support/diag.h"

#define FUZZ_MAX_DEVICES 1024
#define FUZZ_MAX_MAP_ENTRIES 16384
#define FUZZ_MAX_PRINTED_DEVICES 4096
#define FUZZ_DTENSOR_MAX_GUESSED_RANK 64 /* DTENSOR_MAX_GUESSED_RANK of convert_dtensor.c */

static inline void fuzz_convert_fail(const char *what, const char *detail) {
  fprintf(stderr, "fuzz invariant violated: %s\n%s\n", what, detail ? detail : "");
  abort();
}

/* Which texts diagnostics may point into, and whether an unlocated error
 * is tolerated (printers may report against a sharding built elsewhere). */
typedef struct fuzz_conv_sink {
  const shard_source *allowed[4];
  int num_allowed;
  bool must_locate;
} fuzz_conv_sink;

static inline void fuzz_conv_diag(void *ctx, const shard_diag *d) {
  fuzz_conv_sink *sink = ctx;
  const shard_span *s = &d->span;
  (void)strlen(d->message);
  if (!s->src) {
    if (sink->must_locate && d->severity == SHARD_ERROR)
      fuzz_convert_fail("parse error without a location", d->message);
    return;
  }
  bool known = false;
  for (int i = 0; i < sink->num_allowed; i++) known |= sink->allowed[i] == s->src;
  if (!known && sink->must_locate) fuzz_convert_fail("diagnostic in a text that is not the input", d->message);
  if ((size_t)s->off > s->src->len || (size_t)s->off + s->len > s->src->len + 1)
    fuzz_convert_fail("diagnostic span outside its source", d->message);
  uint32_t line, col;
  size_t len;
  shard_span_linecol(*s, &line, &col);
  (void)shard_span_line_text(*s, &len);
}

/* A heap copy of data[start, end) with a NUL after it. */
static char *fuzz_conv_part(const uint8_t *data, size_t start, size_t end) {
  char *t = shard_xmalloc(end - start + 1);
  memcpy(t, data + start, end - start);
  t[end - start] = '\0';
  return t;
}

/* Device count for the maps: the sharding's mesh, else the user's, else 8
 * (mesh-less kinds such as {maximal device=3}); 0 when too many. */
static inline int64_t fuzz_conv_devices(const shard_conv_ctx *cx, const shard_conv *c) {
  const shard_mesh *m = shard_conv_mesh_of(cx, c);
  int64_t n = m ? shard_mesh_num_devices(m) : 8;
  if (c->kind == SHARD_CONV_MAXIMAL && c->device >= n) n = c->device + 1;
  return n > 0 && n <= FUZZ_MAX_DEVICES ? n : 0;
}

/* Compares a and b on the shape; no verdict (true) when a has no map. */
static inline bool fuzz_conv_same_devices(const shard_conv_ctx *cx, const shard_conv *a, const shard_conv *b,
                                          shard_buf *why) {
  if (cx->rank < 0 || a->kind == SHARD_CONV_TUPLE) return true;
  int64_t n = fuzz_conv_devices(cx, a);
  if (n == 0 || fuzz_conv_devices(cx, b) != n || n * cx->rank > FUZZ_MAX_MAP_ENTRIES) return true;
  shard_device_map ma, mb;
  shard_buf ignored;
  shard_buf_init(&ignored);
  bool have_a = shard_device_map_build(a, cx->shape, (uint32_t)cx->rank, n, &ma, &ignored);
  shard_buf_free(&ignored);
  if (!have_a) return true;
  bool same = shard_device_map_build(b, cx->shape, (uint32_t)cx->rank, n, &mb, why);
  if (same) {
    same = shard_device_map_equal(&ma, &mb, why);
    shard_device_map_free(&mb);
  }
  shard_device_map_free(&ma);
  return same;
}

/* Prints `c` in `to`, parses the print back and checks it. */
static inline void fuzz_conv_reprint(shard_conv_ctx *cx, const shard_conv *c, shard_notation to) {
  fuzz_conv_sink sink = {{0}, 0, false};
  shard_diag_engine de;
  shard_diag_init(&de, fuzz_conv_diag, &sink);
  shard_conv_ctx pcx = *cx;
  pcx.de = &de;
  shard_buf out, mesh_out;
  shard_buf_init(&out);
  shard_buf_init(&mesh_out);
  bool printed = shard_conv_print(&pcx, to, c, &out, &mesh_out);
  if (!printed && de.errors == 0) fuzz_convert_fail("print failed without an error", shard_notation_name(to));
  /* PartitionSpec, DTensor and TF print a tuple as a Python tuple of
   * their shardings, which their parsers (one sharding each) do not read. */
  bool readable = c->kind != SHARD_CONV_TUPLE || to == SHARD_NOTATION_HLO || to == SHARD_NOTATION_HLO_V3 ||
                  to == SHARD_NOTATION_SHARDY;
  /* DTensor text has no rank: without a shape, the parser guesses it from
   * Shard(d) only up to d < 64 (convert_dtensor.c) and asks for --shape
   * beyond, as a user converting a 70-dim TF layout back would be asked. */
  if (to == SHARD_NOTATION_DTENSOR && cx->rank < 0 && c->kind == SHARD_CONV_NAMED && c->sharding &&
      c->sharding->rank > FUZZ_DTENSOR_MAX_GUESSED_RANK)
    readable = false;
  if (printed && de.errors == 0 && readable) {
    /* Shardy keeps its mesh definitions in front of the sharding. */
    shard_buf text;
    shard_buf_init(&text);
    if (to == SHARD_NOTATION_SHARDY && mesh_out.len) shard_buf_printf(&text, "%s\n", shard_buf_str(&mesh_out));
    shard_buf_printf(&text, "%s", shard_buf_str(&out));
    shard_source src = {"<reprint>", shard_buf_str(&text), text.len, 0};
    shard_source msrc = {"<reprint mesh>", shard_buf_str(&mesh_out), mesh_out.len, 0};
    fuzz_conv_sink rsink = {{&src, &msrc}, 2, true};
    shard_diag_engine rde;
    shard_diag_init(&rde, fuzz_conv_diag, &rsink);
    shard_conv_ctx rcx = *cx;
    rcx.de = &rde;
    if (to != SHARD_NOTATION_SHARDY && mesh_out.len) rcx.mesh = shard_conv_parse_mesh(&rcx, &msrc);
    /* A sharding without a mesh (P(P.UNCONSTRAINED) from {unknown}) prints
     * no mesh; its notation still wants one to read it back. */
    if (!rcx.mesh && !mesh_out.len && (to == SHARD_NOTATION_PSPEC || to == SHARD_NOTATION_DTENSOR))
      rcx.mesh = shard_conv_mesh_new(&rcx, 0, NULL, NULL, NULL);
    shard_buf detail;
    shard_buf_init(&detail);
    shard_buf_printf(&detail, "%s: %s\nmesh: %s", shard_notation_name(to), shard_buf_str(&text),
                     shard_buf_str(&mesh_out));
    if (!rcx.mesh && to != SHARD_NOTATION_SHARDY && mesh_out.len)
      fuzz_convert_fail("printed mesh does not parse again", shard_buf_str(&detail));
    shard_conv *back = shard_conv_parse(&rcx, to, &src);
    if (!back) fuzz_convert_fail("print does not parse again", shard_buf_str(&detail));
    shard_buf why;
    shard_buf_init(&why);
    if (de.warnings == 0 && !fuzz_conv_same_devices(cx, c, back, &why)) {
      shard_buf_printf(&detail, "\n%s", shard_buf_str(&why));
      fuzz_convert_fail("lossless print changes the devices", shard_buf_str(&detail));
    }
    shard_buf_free(&why);
    shard_buf_free(&detail);
    shard_buf_free(&text);
  }
  shard_buf_free(&out);
  shard_buf_free(&mesh_out);
}

/* Parses mesh, shape and sharding (in `from`), validates, then prints in
 * every notation, `from` first. `extra` (may be NULL) runs on the parsed
 * sharding text with the context, for notation-specific checks. */
static inline void fuzz_convert(const uint8_t *data, size_t size, shard_notation from,
                                void (*extra)(shard_conv_ctx *cx, const shard_source *src)) {
  size_t nl1 = 0, nl2;
  while (nl1 < size && data[nl1] != '\n') nl1++;
  nl2 = nl1 < size ? nl1 + 1 : size;
  while (nl2 < size && data[nl2] != '\n') nl2++;
  char *mesh_text = fuzz_conv_part(data, 0, nl1);
  char *shape_text = fuzz_conv_part(data, nl1 < size ? nl1 + 1 : size, nl2);
  char *sharding_text = fuzz_conv_part(data, nl2 < size ? nl2 + 1 : size, size);
  shard_source msrc = {"<mesh>", mesh_text, strlen(mesh_text), 0};
  shard_source src = {"<sharding>", sharding_text, size - (nl2 < size ? nl2 + 1 : size), 0};

  shard_arena *arena = shard_arena_new();
  fuzz_conv_sink sink = {{&msrc, &src}, 2, true};
  shard_diag_engine de;
  shard_diag_init(&de, fuzz_conv_diag, &sink);
  shard_conv_ctx cx;
  shard_conv_ctx_init(&cx, arena, &de);
  int64_t *shape = NULL;
  bool ok = true;
  if (msrc.len) {
    cx.mesh = shard_conv_parse_mesh(&cx, &msrc);
    if (!cx.mesh && de.errors == 0) fuzz_convert_fail("mesh rejected without an error", mesh_text);
    ok = cx.mesh != NULL;
  }
  if (ok && shape_text[0]) {
    shard_buf err;
    shard_buf_init(&err);
    int32_t rank = shard_conv_parse_shape(shape_text, &shape, &err);
    if (rank < 0 && err.len == 0) fuzz_convert_fail("shape rejected without a message", shape_text);
    shard_buf_free(&err);
    cx.shape = shape;
    cx.rank = rank;
    ok = rank >= 0;
  }
  if (ok) {
    if (extra) extra(&cx, &src);
    shard_conv *c = shard_conv_parse(&cx, from, &src);
    if (!c && de.errors == 0) fuzz_convert_fail("parse failed without an error", sharding_text);
    if (c) {
      if (c->kind == SHARD_CONV_NAMED && !shard_conv_validate(&cx, c) && de.errors == 0)
        fuzz_convert_fail("validation failed without an error", sharding_text);
      /* The Paddle and OneFlow prints are checked by fuzz_paddle_oneflow,
       * the harness of their parsers; the others print only the first six. */
      static const shard_notation all[] = {SHARD_NOTATION_HLO,     SHARD_NOTATION_HLO_V3,
                                           SHARD_NOTATION_SHARDY,  SHARD_NOTATION_PSPEC,
                                           SHARD_NOTATION_DTENSOR, SHARD_NOTATION_TF,
                                           SHARD_NOTATION_PADDLE,  SHARD_NOTATION_PADDLE_PLACEMENTS,
                                           SHARD_NOTATION_ONEFLOW, SHARD_NOTATION_ONEFLOW_PYTHON};
      bool paddle_oneflow = from == SHARD_NOTATION_PADDLE || from == SHARD_NOTATION_PADDLE_PLACEMENTS ||
                            from == SHARD_NOTATION_ONEFLOW || from == SHARD_NOTATION_ONEFLOW_PYTHON;
      size_t num_to = paddle_oneflow ? sizeof all / sizeof all[0] : 6;
      /* Device lists (TF layouts, V2 explicit tile assignments) grow with
       * the device count: a 4-character mesh of 10^6 devices prints
       * megabytes, which is right but no fuzzing. */
      bool huge = false;
      for (uint32_t i = 0; i < (c->kind == SHARD_CONV_TUPLE ? c->num_elems : 1); i++) {
        const shard_conv *e = c->kind == SHARD_CONV_TUPLE ? &c->elems[i] : c;
        const shard_mesh *m = shard_conv_mesh_of(&cx, e);
        huge |= (m && shard_mesh_num_devices(m) > FUZZ_MAX_PRINTED_DEVICES) ||
                (e->kind == SHARD_CONV_MAXIMAL && e->device > FUZZ_MAX_PRINTED_DEVICES);
      }
      if (!huge) {
        fuzz_conv_reprint(&cx, c, from);
        for (size_t i = 0; i < num_to; i++)
          if (all[i] != from) fuzz_conv_reprint(&cx, c, all[i]);
      }
    }
  }
  free(shape);
  shard_arena_free(arena);
  free(mesh_text);
  free(shape_text);
  free(sharding_text);
}

#endif
