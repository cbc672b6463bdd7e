/* OneFlow's nd-SBP: one SBP per dimension of the placement's hierarchy,
 * given with --mesh (2x2, [[0, 1], [2, 3]] or
 * oneflow.placement(type="cuda", ranks=[[0, 1], [2, 3]])).
 *
 *   (S(1), B)        NdSbpToString, as OneFlow's C++ logs print it
 *   (oneflow.sbp.split(dim=1), oneflow.sbp.broadcast)   tensor.sbp in Python
 *
 * split(axis=1) (older OneFlow), flow.sbp.split(1), broadcast(),
 * partial_sum() and a single SBP without parentheses are read too. S(d) on
 * hierarchy dim m splits tensor dim d over m; several S(d) split it again
 * in hierarchy order (the earlier the major), as OneFlow slices nd-SBP.
 * P is a partial sum: OneFlow's SBP has no other reduction, so a partial
 * max/min/avg/product is written as P with a warning. */
#include <stdlib.h>
#include <string.h>

#include "convert/convert.h"

#define ONEFLOW "OneFlow"

static bool last_word(shard_pylex *lx, const shard_pytok *t, const char *w) {
  if (t->kind != SHARD_PYTOK_IDENT) return false;
  const char *s = lx->src->text + t->off;
  size_t k = t->len, n = strlen(w);
  while (k > 0 && s[k - 1] != '.') k--;
  return t->len - k == n && memcmp(s + k, w, n) == 0;
}

/* sbp ::= 'S' '(' INT ')' | 'B' | 'P'
 *       | split '(' (('dim' | 'axis') '=')? INT ')' | broadcast ('(' ')')? | partial_sum ('(' ')')? */
static bool parse_sbp(shard_pylex *lx, shard_mesh_dim_placement *pl) {
  memset(pl, 0, sizeof *pl);
  shard_pytok t = shard_pylex_next(lx);
  shard_span at = {lx->src, t.off, t.len ? t.len : 1};
  pl->at = at;
  if (last_word(lx, &t, "S") || last_word(lx, &t, "split")) {
    pl->kind = SHARD_MESH_DIM_SHARD;
    if (!shard_pylex_expect(lx, "(")) return false;
    shard_pytok k = shard_pylex_peek(lx);
    if (k.kind == SHARD_PYTOK_IDENT && (shard_pylex_is(lx, &k, "dim") || shard_pylex_is(lx, &k, "axis"))) {
      shard_pylex_next(lx);
      if (!shard_pylex_expect(lx, "=")) return false;
    }
    shard_pytok d = shard_pylex_next(lx);
    if (d.kind != SHARD_PYTOK_INT || d.overflow) return shard_pylex_error(lx, &d, "expected a split dimension");
    pl->dim = d.value;
    return shard_pylex_expect(lx, ")");
  }
  if (last_word(lx, &t, "B") || last_word(lx, &t, "broadcast")) {
    pl->kind = SHARD_MESH_DIM_REPLICATE;
  } else if (last_word(lx, &t, "P") || last_word(lx, &t, "partial_sum")) {
    pl->kind = SHARD_MESH_DIM_PARTIAL;
    pl->op = "sum";
  } else {
    return shard_pylex_error(lx, &t,
                             "expected an SBP: S(d), B, P or oneflow.sbp.split(dim=d), "
                             "oneflow.sbp.broadcast, oneflow.sbp.partial_sum");
  }
  if (shard_pylex_accept(lx, "(")) return shard_pylex_expect(lx, ")");
  return true;
}

static bool push_sbp(shard_pylex *lx, void *ctx) {
  shard_mesh_dim_placement pl;
  if (!parse_sbp(lx, &pl)) return false;
  SHARD_VEC_PUSH(*(shard_mesh_dim_placements *)ctx, pl);
  return true;
}

shard_conv *shard_oneflow_parse(shard_conv_ctx *cx, const shard_source *src) {
  shard_pylex lx;
  shard_pylex_init(&lx, cx, src);
  shard_pytok open = shard_pylex_peek(&lx);
  const char *close = shard_pylex_is(&lx, &open, "(") ? ")" : shard_pylex_is(&lx, &open, "[") ? "]" : NULL;
  if (close) shard_pylex_next(&lx);
  if (!cx->mesh) {
    shard_pylex_error(&lx, &open,
                      "an nd-SBP follows the placement's hierarchy: pass it with --mesh (2x2, "
                      "[[0, 1], [2, 3]] or oneflow.placement(...))");
    return NULL;
  }
  shard_mesh_dim_placements pls = {0};
  bool ok = close ? shard_pylex_list(&lx, close, push_sbp, &pls) : push_sbp(&lx, &pls);
  ok = ok && shard_pylex_end(&lx, "the nd-SBP");
  shard_conv *c = NULL;
  if (ok) {
    shard_span whole = {src, open.off, (uint32_t)src->len - open.off};
    c = shard_conv_from_mesh_dims(cx, cx->mesh, pls.items, pls.len, whole, "nd-SBP");
    if (c) c->split = SHARD_SPLIT_BALANCED;
  }
  SHARD_VEC_FREE(pls);
  return c;
}

/* Same hierarchy (sizes and device order); OneFlow's dims have no names. */
static bool same_hierarchy(const shard_mesh *a, const shard_mesh *b) {
  if (!a || !b || a->num_axes != b->num_axes) return false;
  for (uint32_t i = 0; i < a->num_axes; i++)
    if (a->axes[i].size != b->axes[i].size) return false;
  int64_t n = shard_mesh_num_devices(a);
  for (int64_t i = 0; i < n; i++)
    if ((a->device_ids ? a->device_ids[i] : i) != (b->device_ids ? b->device_ids[i] : i)) return false;
  return true;
}

bool shard_oneflow_print(shard_conv_ctx *cx, const shard_conv *c, shard_buf *out, shard_buf *mesh_out, bool python) {
  shard_mesh_dim_placement *pls;
  int32_t rank;
  bool changed;
  const shard_mesh *m = shard_conv_to_mesh_dims(cx, c, ONEFLOW, &pls, &rank, &changed);
  if (!m) return false;
  for (uint32_t a = 0; a < m->num_axes; a++)
    if (pls[a].kind == SHARD_MESH_DIM_PARTIAL && strcmp(pls[a].op, "sum") != 0) {
      shard_warning(cx->de, c->span, "OneFlow's SBP has only partial_sum: partial '%s' values written as %s", pls[a].op,
                    python ? "oneflow.sbp.partial_sum" : "P");
      break;
    }
  shard_buf_putc(out, '(');
  for (uint32_t a = 0; a < m->num_axes; a++) {
    if (a) shard_buf_puts(out, ", ");
    switch (pls[a].kind) {
    case SHARD_MESH_DIM_SHARD:
      shard_buf_printf(out, python ? "oneflow.sbp.split(dim=%lld)" : "S(%lld)", (long long)pls[a].dim);
      break;
    case SHARD_MESH_DIM_PARTIAL: shard_buf_puts(out, python ? "oneflow.sbp.partial_sum" : "P"); break;
    case SHARD_MESH_DIM_REPLICATE: shard_buf_puts(out, python ? "oneflow.sbp.broadcast" : "B"); break;
    }
  }
  if (python && m->num_axes == 1) shard_buf_putc(out, ',');
  shard_buf_putc(out, ')');
  if ((!cx->mesh || !same_hierarchy(m, cx->mesh)) && mesh_out->len == 0) {
    shard_buf_puts(mesh_out, "oneflow.placement(type=\"cuda\", ranks=");
    shard_hierarchy_print_ids(mesh_out, m, true);
    shard_buf_putc(mesh_out, ')');
  }
  (void)changed;
  (void)rank;
  return true;
}
