/* PaddlePaddle's auto-parallel notations.
 *
 * The dist attr, as Paddle's PIR dist dialect prints a TensorDistAttribute:
 *
 *   mesh_shape:[2,2],process_ids:[2,3,6,7],dims_mappings:[-1,1], partial(0,SUM)
 *
 * dims_mapping[i] is the mesh dimension tensor dim i is split over (-1:
 * not split); partial(m,OP) says mesh dim m holds partial values to be
 * reduced with OP (SUM, MAX, MIN, PRODUCT, AVG, ANY, ALL). The C++
 * TensorDistAttr::to_string form is read too:
 *
 *   {process_mesh: {shape: [2,2], process_ids: [2,3,6,7], dim_names: [d0,d1]},
 *    dims_mappings: [-1,1], batch_dim: 0, ..., partial: [Partial(dims:0, SUM), ].}
 *
 * The placements, one per mesh dimension, over a ProcessMesh given with
 * --mesh, as Paddle's C++ placements print:
 *
 *   [Partial(reduce_type=SUM), Shard(dim=1)]      (Replicate(), Shard(1) also read)
 *
 * A dims_mapping gives each tensor dimension at most one mesh dimension, and
 * Paddle's to_dim_map refuses a tensor dimension sharded twice, so neither
 * form is written for a dimension split over several mesh dimensions (that
 * is an error, not a warning: the devices would differ). Shard's
 * split_factor and shard_order (co-sharding) are not read. */
#include <stdlib.h>
#include <string.h>

#include "convert/convert.h"

#define PADDLE "Paddle"

static bool word_is(shard_pylex *lx, const shard_pytok *t, const char *w) {
  if (t->kind != SHARD_PYTOK_IDENT) return false;
  size_t n = strlen(w);
  const char *s = lx->src->text + t->off;
  /* the last dotted component: dist.Shard, paddle.distributed.Shard */
  size_t k = t->len;
  while (k > 0 && s[k - 1] != '.') k--;
  return t->len - k == n && memcmp(s + k, w, n) == 0;
}

/* SUM, kRedSum, ReduceType.kRedSum, 'sum' -> sum, max, min, product, avg. */
static const char *read_reduce_type(shard_pylex *lx, const shard_pytok *t) {
  if (t->kind != SHARD_PYTOK_IDENT && t->kind != SHARD_PYTOK_STRING) return NULL;
  static const struct {
    const char *paddle, *kred, *op;
  } ops[] = {{"SUM", "kRedSum", "sum"},          {"MAX", "kRedMax", "max"}, {"MIN", "kRedMin", "min"},
             {"PRODUCT", "kRedProd", "product"}, {"AVG", "kRedAvg", "avg"}, {"ANY", "kRedAny", "max"},
             {"ALL", "kRedAll", "min"}};
  const char *text = shard_pylex_text(lx, t);
  const char *w = strrchr(text, '.');
  w = w ? w + 1 : text;
  for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
    if (strcmp(w, ops[i].paddle) == 0 || strcmp(w, ops[i].kred) == 0 || strcmp(w, ops[i].op) == 0) {
      if (strcmp(ops[i].paddle, "ANY") == 0 || strcmp(ops[i].paddle, "ALL") == 0) {
        shard_span at = {lx->src, t->off, t->len};
        shard_warning(lx->cx->de, at, "%s (a boolean reduction) read as %s, which is the same on booleans",
                      ops[i].paddle, ops[i].op);
      }
      return ops[i].op;
    }
  return NULL;
}

static const char *paddle_reduce_name(const char *op) {
  if (!op || strcmp(op, "sum") == 0) return "SUM";
  if (strcmp(op, "max") == 0) return "MAX";
  if (strcmp(op, "min") == 0) return "MIN";
  if (strcmp(op, "product") == 0) return "PRODUCT";
  if (strcmp(op, "avg") == 0) return "AVG";
  return NULL;
}

static shard_span tok_span(shard_pylex *lx, const shard_pytok *t) {
  shard_span s = {lx->src, t->off, t->len ? t->len : 1};
  return s;
}

/* ---- placements ---------------------------------------------------------------------------- */

/* placement ::= Shard '(' ('dim' '=')? INT ')' | (Replicate | Replicated) '(' ')'
 *             | Partial ('(' (('reduce_type' '=')? REDUCE)? ')')? */
static bool parse_placement(shard_pylex *lx, shard_mesh_dim_placement *pl) {
  memset(pl, 0, sizeof *pl);
  shard_pytok t = shard_pylex_next(lx);
  pl->at = tok_span(lx, &t);
  if (word_is(lx, &t, "Shard")) {
    pl->kind = SHARD_MESH_DIM_SHARD;
    if (!shard_pylex_expect(lx, "(")) return false;
    shard_pytok k = shard_pylex_peek(lx);
    if (k.kind == SHARD_PYTOK_IDENT && shard_pylex_is(lx, &k, "dim")) {
      shard_pylex_next(lx);
      if (!shard_pylex_expect(lx, "=")) return false;
    }
    shard_pytok d = shard_pylex_next(lx);
    if (d.kind != SHARD_PYTOK_INT || d.overflow) return shard_pylex_error(lx, &d, "expected a tensor dimension");
    pl->dim = d.value;
    if (shard_pylex_accept(lx, ",")) {
      shard_pytok x = shard_pylex_peek(lx);
      return shard_pylex_error(lx, &x,
                               "Shard's split_factor and shard_order (co-sharding) are not read: write one Shard "
                               "per mesh dimension");
    }
    return shard_pylex_expect(lx, ")");
  }
  if (word_is(lx, &t, "Replicate") || word_is(lx, &t, "Replicated")) {
    pl->kind = SHARD_MESH_DIM_REPLICATE;
    if (shard_pylex_accept(lx, "(")) return shard_pylex_expect(lx, ")");
    return true;
  }
  if (word_is(lx, &t, "Partial")) {
    pl->kind = SHARD_MESH_DIM_PARTIAL;
    pl->op = "sum";
    if (!shard_pylex_accept(lx, "(") || shard_pylex_accept(lx, ")")) return true;
    shard_pytok k = shard_pylex_peek(lx);
    if (k.kind == SHARD_PYTOK_IDENT && shard_pylex_is(lx, &k, "reduce_type")) {
      shard_pylex_next(lx);
      if (!shard_pylex_expect(lx, "=")) return false;
    }
    shard_pytok op = shard_pylex_next(lx);
    pl->op = read_reduce_type(lx, &op);
    if (!pl->op) return shard_pylex_error(lx, &op, "expected a reduce type (SUM, MAX, MIN, PRODUCT, AVG, ANY, ALL)");
    return shard_pylex_expect(lx, ")");
  }
  return shard_pylex_error(lx, &t, "expected a Paddle placement: Shard(dim=d), Replicate() or Partial(reduce_type=OP)");
}

static bool push_placement(shard_pylex *lx, void *ctx) {
  shard_mesh_dim_placement pl;
  if (!parse_placement(lx, &pl)) return false;
  SHARD_VEC_PUSH(*(shard_mesh_dim_placements *)ctx, pl);
  return true;
}

static shard_conv *parse_placements(shard_conv_ctx *cx, shard_pylex *lx, const shard_source *src) {
  shard_pytok open = shard_pylex_next(lx);
  const char *close = shard_pylex_is(lx, &open, "[") ? "]" : ")";
  if (!cx->mesh) {
    shard_pylex_error(lx, &open, "Paddle placements follow the ProcessMesh's dimensions: pass it with --mesh");
    return NULL;
  }
  shard_mesh_dim_placements pls = {0};
  bool ok = shard_pylex_list(lx, close, push_placement, &pls) && shard_pylex_end(lx, "the placements");
  /* Paddle's to_dim_map: a tensor dim is sharded by one mesh dim. */
  for (uint32_t i = 0; ok && i < pls.len; i++)
    for (uint32_t j = 0; ok && j < i; j++)
      if (pls.items[i].kind == SHARD_MESH_DIM_SHARD && pls.items[j].kind == SHARD_MESH_DIM_SHARD &&
          pls.items[i].dim == pls.items[j].dim) {
        shard_error(cx->de, pls.items[i].at, "tensor dimension %lld is already sharded on mesh dimension %u",
                    (long long)pls.items[i].dim, j);
        ok = false;
      }
  shard_conv *c = NULL;
  if (ok) {
    shard_span whole = {src, open.off, (uint32_t)src->len - open.off};
    c = shard_conv_from_mesh_dims(cx, cx->mesh, pls.items, pls.len, whole, "Paddle");
  }
  SHARD_VEC_FREE(pls);
  return c;
}

/* ---- dist attr ------------------------------------------------------------------------------ */

typedef struct dist_attr {
  SHARD_VEC(int64_t) shape, ids, mapping;
  SHARD_VEC(const char *) names;
  SHARD_VEC(shard_mesh_dim_placement) partial; /* dim = mesh dim */
  bool have_shape, have_ids, have_mapping;
  shard_pytok mapping_tok;
} dist_attr;

static bool read_int_list(shard_pylex *lx, void *vec_ptr, bool allow_negative) {
  SHARD_VEC(int64_t) *v = vec_ptr;
  if (!shard_pylex_expect(lx, "[")) return false;
  while (!shard_pylex_accept(lx, "]")) {
    shard_pytok t = shard_pylex_next(lx);
    if (t.kind != SHARD_PYTOK_INT || t.overflow || (!allow_negative && t.value < 0))
      return shard_pylex_error(lx, &t, allow_negative ? "expected an integer" : "expected a non-negative integer");
    SHARD_VEC_PUSH(*v, t.value);
    if (!shard_pylex_accept(lx, ",")) return shard_pylex_expect(lx, "]");
  }
  return true;
}

/* Skips a value whose meaning does not matter here (batch_dim: 0, annotated: [...]). */
static bool skip_value(shard_pylex *lx) {
  int depth = 0;
  do {
    shard_pytok t = shard_pylex_peek(lx);
    if (t.kind == SHARD_PYTOK_EOF) return depth == 0 || shard_pylex_error(lx, &t, "unbalanced brackets");
    if (depth == 0 && (shard_pylex_is(lx, &t, ",") || shard_pylex_is(lx, &t, "}"))) return true;
    shard_pylex_next(lx);
    if (shard_pylex_is(lx, &t, "[") || shard_pylex_is(lx, &t, "{") || shard_pylex_is(lx, &t, "(")) depth++;
    else if (shard_pylex_is(lx, &t, "]") || shard_pylex_is(lx, &t, "}") || shard_pylex_is(lx, &t, ")")) depth--;
    if (t.kind == SHARD_PYTOK_ERROR && lx->src->text[t.off] != '.')
      return shard_pylex_error(lx, &t, "unexpected character");
  } while (depth > 0);
  return true;
}

/* partial(0,SUM) (PIR) or Partial(dims:0, SUM) (C++), the name already read. */
static bool read_partial(shard_pylex *lx, const shard_pytok *name, dist_attr *a) {
  shard_mesh_dim_placement p;
  memset(&p, 0, sizeof p);
  p.kind = SHARD_MESH_DIM_PARTIAL;
  p.at = tok_span(lx, name);
  if (!shard_pylex_expect(lx, "(")) return false;
  shard_pytok k = shard_pylex_peek(lx);
  if (k.kind == SHARD_PYTOK_IDENT && shard_pylex_is(lx, &k, "dims")) {
    shard_pylex_next(lx);
    if (!shard_pylex_expect(lx, ":")) return false;
  }
  shard_pytok d = shard_pylex_next(lx);
  if (d.kind != SHARD_PYTOK_INT || d.overflow) return shard_pylex_error(lx, &d, "expected a mesh dimension");
  p.dim = d.value;
  if (!shard_pylex_expect(lx, ",")) return false;
  shard_pytok op = shard_pylex_next(lx);
  p.op = read_reduce_type(lx, &op);
  if (!p.op) return shard_pylex_error(lx, &op, "expected a reduce type (SUM, MAX, MIN, PRODUCT, AVG, ANY, ALL)");
  SHARD_VEC_PUSH(a->partial, p);
  return shard_pylex_expect(lx, ")");
}

static bool read_fields(shard_pylex *lx, dist_attr *a, const char *close);

static bool read_field(shard_pylex *lx, dist_attr *a) {
  shard_pytok key = shard_pylex_next(lx);
  if (key.kind != SHARD_PYTOK_IDENT) return shard_pylex_error(lx, &key, "expected a field of the dist attr");
  if (shard_pylex_is(lx, &key, "partial")) {
    shard_pytok next = shard_pylex_peek(lx);
    if (shard_pylex_is(lx, &next, "(")) return read_partial(lx, &key, a); /* partial(0,SUM) */
  }
  if (!shard_pylex_expect(lx, ":")) return false;
  if (shard_pylex_is(lx, &key, "process_mesh")) {
    if (!shard_pylex_expect(lx, "{")) return false;
    return read_fields(lx, a, "}");
  }
  if (shard_pylex_is(lx, &key, "mesh_shape") || shard_pylex_is(lx, &key, "shape")) {
    a->have_shape = true;
    return read_int_list(lx, &a->shape, false);
  }
  if (shard_pylex_is(lx, &key, "process_ids")) {
    a->have_ids = true;
    return read_int_list(lx, &a->ids, false);
  }
  if (shard_pylex_is(lx, &key, "dims_mappings") || shard_pylex_is(lx, &key, "dims_mapping")) {
    a->have_mapping = true;
    a->mapping_tok = shard_pylex_peek(lx);
    return read_int_list(lx, &a->mapping, true);
  }
  if (shard_pylex_is(lx, &key, "dim_names")) {
    if (!shard_pylex_expect(lx, "[")) return false;
    while (!shard_pylex_accept(lx, "]")) {
      shard_pytok t = shard_pylex_next(lx);
      if (t.kind != SHARD_PYTOK_IDENT && t.kind != SHARD_PYTOK_STRING)
        return shard_pylex_error(lx, &t, "expected a dimension name");
      SHARD_VEC_PUSH(a->names, shard_pylex_text(lx, &t));
      if (!shard_pylex_accept(lx, ",")) return shard_pylex_expect(lx, "]");
    }
    return true;
  }
  if (shard_pylex_is(lx, &key, "partial")) {
    /* partial: [Partial(dims:0, SUM), ] */
    if (!shard_pylex_expect(lx, "[")) return false;
    while (!shard_pylex_accept(lx, "]")) {
      shard_pytok p = shard_pylex_next(lx);
      if (!word_is(lx, &p, "Partial")) return shard_pylex_error(lx, &p, "expected Partial(dims:M, OP)");
      if (!read_partial(lx, &p, a)) return false;
      if (!shard_pylex_accept(lx, ",")) return shard_pylex_expect(lx, "]");
    }
    return true;
  }
  if (shard_pylex_is(lx, &key, "tensor_name") || shard_pylex_is(lx, &key, "batch_dim") ||
      shard_pylex_is(lx, &key, "chunk_id") || shard_pylex_is(lx, &key, "skip_check_mesh") ||
      shard_pylex_is(lx, &key, "dynamic_dims") || shard_pylex_is(lx, &key, "annotated") ||
      shard_pylex_is(lx, &key, "placements"))
    return skip_value(lx);
  return shard_pylex_error(lx, &key,
                           "unknown dist attr field '%s' (mesh_shape, process_ids, dims_mappings, partial, ...)",
                           shard_pylex_text(lx, &key));
}

/* fields ::= field (',' field)* ('.')? close */
static bool read_fields(shard_pylex *lx, dist_attr *a, const char *close) {
  for (;;) {
    shard_pytok t = shard_pylex_peek(lx);
    if (t.kind == SHARD_PYTOK_ERROR && lx->src->text[t.off] == '.') { /* "partial: [].}" */
      shard_pylex_next(lx);
      t = shard_pylex_peek(lx);
    }
    if (close ? shard_pylex_accept(lx, close) : t.kind == SHARD_PYTOK_EOF) return true;
    if (!read_field(lx, a)) return false;
    if (!shard_pylex_accept(lx, ",")) {
      t = shard_pylex_peek(lx);
      if (t.kind == SHARD_PYTOK_ERROR && lx->src->text[t.off] == '.') shard_pylex_next(lx);
      if (close) return shard_pylex_expect(lx, close);
      t = shard_pylex_peek(lx);
      return t.kind == SHARD_PYTOK_EOF || shard_pylex_error(lx, &t, "expected ',' between dist attr fields");
    }
  }
}

static shard_conv *parse_dist_attr(shard_conv_ctx *cx, shard_pylex *lx, const shard_source *src) {
  dist_attr a;
  memset(&a, 0, sizeof a);
  shard_pytok first = shard_pylex_peek(lx);
  bool ok;
  if (shard_pylex_accept(lx, "{")) {
    ok = read_fields(lx, &a, "}");
    ok = ok && shard_pylex_end(lx, "the dist attr");
  } else {
    ok = read_fields(lx, &a, NULL);
  }
  shard_span whole = {src, first.off, (uint32_t)src->len - first.off};
  if (ok && !a.have_mapping) {
    shard_error(cx->de, whole, "the dist attr has no dims_mappings");
    ok = false;
  }
  if (ok && a.have_ids && !a.have_shape) {
    /* process_ids alone: a 1-D mesh */
    SHARD_VEC_PUSH(a.shape, (int64_t)a.ids.len);
    a.have_shape = true;
  }
  shard_mesh *m = NULL;
  if (ok && a.have_shape) {
    if (a.shape.len > SHARD_HIERARCHY_MAX_RANK) {
      shard_error(cx->de, whole, "the device hierarchy has more than %d dimensions", SHARD_HIERARCHY_MAX_RANK);
      ok = false;
    } else {
      m = shard_hierarchy_mesh_build(cx, a.shape.items, a.shape.len, a.have_ids ? a.ids.items : NULL,
                                     a.have_ids ? (int64_t)a.ids.len : -1, a.names.len ? a.names.items : NULL,
                                     a.names.len, whole);
      ok = m != NULL;
    }
    /* The user's mesh names the dimensions when it has the same shape and devices. */
    if (ok && cx->mesh && !a.names.len) {
      bool same = cx->mesh->num_axes == m->num_axes;
      for (uint32_t i = 0; same && i < m->num_axes; i++) same = cx->mesh->axes[i].size == m->axes[i].size;
      if (same) {
        shard_mesh *u = SHARD_NEW(cx->arena, shard_mesh);
        *u = *m;
        u->axes = cx->mesh->axes;
        m = u;
      } else {
        shard_error(cx->de, whole, "the dist attr's mesh_shape does not match --mesh");
        ok = false;
      }
    }
  } else if (ok) {
    m = (shard_mesh *)cx->mesh;
    if (!m) {
      shard_error(cx->de, whole, "the dist attr has no mesh_shape: pass the ProcessMesh with --mesh");
      ok = false;
    }
  }
  if (ok && cx->rank >= 0 && (int64_t)a.mapping.len != cx->rank) {
    shard_span at = tok_span(lx, &a.mapping_tok);
    shard_error(cx->de, at, "dims_mappings has %u entries for a tensor of rank %d", a.mapping.len, cx->rank);
    ok = false;
  }
  shard_conv *c = NULL;
  if (ok) {
    uint32_t n = m->num_axes;
    shard_mesh_dim_placement *pls = shard_xcalloc(n + 1, sizeof *pls);
    shard_span at = tok_span(lx, &a.mapping_tok);
    for (uint32_t i = 0; ok && i < a.mapping.len; i++) {
      int64_t md = a.mapping.items[i];
      if (md == -1) continue;
      if (md < -1 || md >= (int64_t)n) {
        shard_error(cx->de, at, "dims_mappings[%u] = %lld is not a mesh dimension (-1 or 0..%u)", i, (long long)md,
                    n - 1);
        ok = false;
      } else if (pls[md].kind == SHARD_MESH_DIM_SHARD) {
        shard_error(cx->de, at, "mesh dimension %lld shards both tensor dimensions %lld and %u", (long long)md,
                    (long long)pls[md].dim, i);
        ok = false;
      } else {
        pls[md].kind = SHARD_MESH_DIM_SHARD;
        pls[md].dim = i;
        pls[md].at = at;
      }
    }
    for (uint32_t i = 0; ok && i < a.partial.len; i++) {
      shard_mesh_dim_placement *p = &a.partial.items[i];
      if (p->dim < 0 || p->dim >= (int64_t)n) {
        shard_error(cx->de, p->at, "partial mesh dimension %lld is out of range (0..%u)", (long long)p->dim, n - 1);
        ok = false;
      } else if (pls[p->dim].kind != SHARD_MESH_DIM_REPLICATE) {
        shard_error(cx->de, p->at, "mesh dimension %lld can not be both shard and partial", (long long)p->dim);
        ok = false;
      } else {
        pls[p->dim] = *p;
      }
    }
    if (ok) {
      int32_t saved = cx->rank;
      cx->rank = (int32_t)a.mapping.len; /* the dims_mapping is the rank */
      c = shard_conv_from_mesh_dims(cx, m, pls, n, whole, "Paddle");
      cx->rank = saved;
    }
    free(pls);
  }
  SHARD_VEC_FREE(a.shape);
  SHARD_VEC_FREE(a.ids);
  SHARD_VEC_FREE(a.mapping);
  SHARD_VEC_FREE(a.names);
  SHARD_VEC_FREE(a.partial);
  return c;
}

shard_conv *shard_paddle_parse(shard_conv_ctx *cx, const shard_source *src) {
  shard_pylex lx;
  shard_pylex_init(&lx, cx, src);
  shard_pytok t = shard_pylex_peek(&lx);
  if (shard_pylex_is(&lx, &t, "[") || shard_pylex_is(&lx, &t, "(")) return parse_placements(cx, &lx, src);
  return parse_dist_attr(cx, &lx, src);
}

/* ---- printing ----------------------------------------------------------------------------- */

/* The placements of c, refusing a tensor dim over several mesh dims. */
static const shard_mesh *paddle_mesh_dims(shard_conv_ctx *cx, const shard_conv *c, shard_mesh_dim_placement **pls,
                                          int32_t *rank, bool *changed) {
  const shard_mesh *m = shard_conv_to_mesh_dims(cx, c, PADDLE, pls, rank, changed);
  if (!m) return NULL;
  for (uint32_t a = 0; a < m->num_axes; a++)
    for (uint32_t b = 0; b < a; b++)
      if ((*pls)[a].kind == SHARD_MESH_DIM_SHARD && (*pls)[b].kind == SHARD_MESH_DIM_SHARD &&
          (*pls)[a].dim == (*pls)[b].dim) {
        shard_error(cx->de, c->span,
                    "Paddle shards a tensor dimension on one mesh dimension: dimension %lld is split over \"%s\" "
                    "and \"%s\"",
                    (long long)(*pls)[a].dim, m->axes[b].name, m->axes[a].name);
        return NULL;
      }
  for (uint32_t a = 0; a < m->num_axes; a++)
    if ((*pls)[a].kind == SHARD_MESH_DIM_PARTIAL && !paddle_reduce_name((*pls)[a].op)) {
      shard_warning(cx->de, c->span, "Paddle has no '%s' reduce type: written as SUM", (*pls)[a].op);
      break;
    }
  return m;
}

bool shard_paddle_print_dist_attr(shard_conv_ctx *cx, const shard_conv *c, shard_buf *out) {
  shard_mesh_dim_placement *pls;
  int32_t rank;
  bool changed;
  const shard_mesh *m = paddle_mesh_dims(cx, c, &pls, &rank, &changed);
  if (!m) return false;
  if (rank < 0) {
    shard_error(cx->de, c->span, "a Paddle dims_mapping has one entry per tensor dimension: pass --shape");
    return false;
  }
  shard_buf_puts(out, "mesh_shape:[");
  for (uint32_t a = 0; a < m->num_axes; a++) shard_buf_printf(out, "%s%lld", a ? "," : "", (long long)m->axes[a].size);
  shard_buf_puts(out, "],process_ids:");
  shard_hierarchy_print_ids(out, m, false);
  shard_buf_puts(out, ",dims_mappings:[");
  for (int32_t d = 0; d < rank; d++) {
    int64_t md = -1;
    for (uint32_t a = 0; a < m->num_axes; a++)
      if (pls[a].kind == SHARD_MESH_DIM_SHARD && pls[a].dim == d) md = a;
    shard_buf_printf(out, "%s%lld", d ? "," : "", (long long)md);
  }
  shard_buf_putc(out, ']');
  bool first = true;
  for (uint32_t a = 0; a < m->num_axes; a++) {
    if (pls[a].kind != SHARD_MESH_DIM_PARTIAL) continue;
    const char *name = paddle_reduce_name(pls[a].op);
    shard_buf_printf(out, "%spartial(%u,%s)", first ? ", " : ",", a, name ? name : "SUM");
    first = false;
  }
  return true;
}

static void print_process_mesh(shard_buf *b, const shard_mesh *m) {
  shard_buf_puts(b, "ProcessMesh(");
  shard_hierarchy_print_ids(b, m, true);
  shard_buf_puts(b, ", dim_names=[");
  for (uint32_t a = 0; a < m->num_axes; a++) shard_buf_printf(b, "%s'%s'", a ? ", " : "", m->axes[a].name);
  shard_buf_puts(b, "])");
}

static bool names_ok(const char *name) { return !strchr(name, '\''); }

bool shard_paddle_print_placements(shard_conv_ctx *cx, const shard_conv *c, shard_buf *out, shard_buf *mesh_out) {
  shard_mesh_dim_placement *pls;
  int32_t rank;
  bool changed;
  const shard_mesh *m = paddle_mesh_dims(cx, c, &pls, &rank, &changed);
  if (!m) return false;
  if (!shard_conv_mesh_names_ok(cx, c, m, names_ok, "ProcessMesh dim_names", "the name holds a quote")) return false;
  shard_buf_putc(out, '[');
  for (uint32_t a = 0; a < m->num_axes; a++) {
    if (a) shard_buf_puts(out, ", ");
    if (pls[a].kind == SHARD_MESH_DIM_SHARD) shard_buf_printf(out, "Shard(dim=%lld)", (long long)pls[a].dim);
    else if (pls[a].kind == SHARD_MESH_DIM_PARTIAL) {
      const char *name = paddle_reduce_name(pls[a].op);
      shard_buf_printf(out, "Partial(reduce_type=%s)", name ? name : "SUM");
    } else shard_buf_puts(out, "Replicate()");
  }
  shard_buf_putc(out, ']');
  if (changed && mesh_out->len == 0) print_process_mesh(mesh_out, m);
  return true;
}
