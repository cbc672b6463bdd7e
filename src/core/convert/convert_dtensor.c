/* PyTorch DTensor placements: one placement per mesh dimension,
 * [Shard(0), Replicate(), Partial()], read over a mesh given apart and
 * written back.
 *
 * DTensor is mesh-dim-major where Shardy is tensor-dim-major. Shard(d) on
 * mesh dim m puts m on tensor dim d; several Shard(d) apply left to right,
 * each splitting what the previous ones left, so the earlier mesh dim is
 * the major one. _StridedShard(d, split_factor=sf) on m says that later
 * mesh dims whose sizes multiply to sf are major to m. Reading right to
 * left builds the order: a Shard(d) goes in front of the later dims, a
 * _StridedShard goes after the prefix of them whose product is sf.
 * Writing inverts that: an axis gets _StridedShard with sf = the product of
 * the later (higher mesh index) axes major to it in its dim, else Shard.
 *
 * Partial(op) is an unreduced axis; sum, max and min are Shardy's
 * reductions, avg and product have no equivalent elsewhere and are kept on
 * the hub only for writing DTensor again. */
#include <stdlib.h>
#include <string.h>

#include "convert/convert.h"

/* The highest rank read off Shard(d) when no --shape is given. */
#define DTENSOR_MAX_GUESSED_RANK 64

typedef enum { PL_REPLICATE, PL_SHARD, PL_STRIDED, PL_PARTIAL } placement_kind;

typedef struct placement {
  placement_kind kind;
  int64_t dim;
  int64_t split_factor;
  const char *reduce_op; /* Partial: sum (default), avg, product, max, min */
  shard_pytok tok;
} placement;

static bool is_word(shard_pylex *lx, const shard_pytok *t, const char *a, const char *b) {
  return t->kind == SHARD_PYTOK_IDENT && (shard_pylex_is(lx, t, a) || (b && shard_pylex_is(lx, t, b)));
}

/* Optional `name=` before an argument. */
static void skip_keyword(shard_pylex *lx, const char *name) {
  shard_pytok t = shard_pylex_peek(lx);
  if (t.kind == SHARD_PYTOK_IDENT && shard_pylex_is(lx, &t, name)) {
    shard_pylex_next(lx);
    shard_pylex_accept(lx, "=");
  }
}

static bool parse_int_arg(shard_pylex *lx, int64_t *out) {
  shard_pytok t = shard_pylex_next(lx);
  if (t.kind != SHARD_PYTOK_INT || t.overflow) return shard_pylex_error(lx, &t, "expected an integer");
  *out = t.value;
  return true;
}

/* placement ::= ('Shard' | 'S') '(' ('dim' '=')? INT ')'
 *             | ('_StridedShard' | '_S') '(' ('dim' '=')? INT ',' ('split_factor' '=')? INT ')'
 *             | ('Replicate' | 'R') ('(' ')')?
 *             | ('Partial' | 'P') ('(' (('reduce_op' '=')? (STRING | IDENT))? ')')? */
static bool parse_placement(shard_pylex *lx, placement *pl) {
  memset(pl, 0, sizeof *pl);
  shard_pytok t = shard_pylex_next(lx);
  pl->tok = t;
  if (is_word(lx, &t, "Shard", "S") || is_word(lx, &t, "torch.distributed.tensor.Shard", NULL)) {
    pl->kind = PL_SHARD;
    if (!shard_pylex_expect(lx, "(")) return false;
    skip_keyword(lx, "dim");
    return parse_int_arg(lx, &pl->dim) && shard_pylex_expect(lx, ")");
  }
  if (is_word(lx, &t, "_StridedShard", "_S")) {
    pl->kind = PL_STRIDED;
    if (!shard_pylex_expect(lx, "(")) return false;
    skip_keyword(lx, "dim");
    if (!parse_int_arg(lx, &pl->dim) || !shard_pylex_expect(lx, ",")) return false;
    skip_keyword(lx, "split_factor");
    if (!parse_int_arg(lx, &pl->split_factor) || !shard_pylex_expect(lx, ")")) return false;
    if (pl->split_factor < 1) return shard_pylex_error(lx, &t, "split_factor must be at least 1");
    if (pl->split_factor == 1) pl->kind = PL_SHARD;
    return true;
  }
  if (is_word(lx, &t, "Replicate", "R")) {
    pl->kind = PL_REPLICATE;
    if (shard_pylex_accept(lx, "(")) return shard_pylex_expect(lx, ")");
    return true;
  }
  if (is_word(lx, &t, "Partial", "P") || is_word(lx, &t, "_Partial", NULL)) {
    pl->kind = PL_PARTIAL;
    pl->reduce_op = "sum";
    if (!shard_pylex_accept(lx, "(")) return true;
    if (shard_pylex_accept(lx, ")")) return true;
    skip_keyword(lx, "reduce_op");
    shard_pytok op = shard_pylex_next(lx);
    if (op.kind != SHARD_PYTOK_STRING && op.kind != SHARD_PYTOK_IDENT)
      return shard_pylex_error(lx, &op, "expected a reduce op ('sum', 'avg', 'product', 'max', 'min')");
    const char *name = shard_pylex_text(lx, &op);
    pl->reduce_op = shard_mesh_dim_op(name);
    if (!pl->reduce_op) return shard_pylex_error(lx, &op, "unknown reduce op '%s' (sum, avg, product, max, min)", name);
    return shard_pylex_expect(lx, ")");
  }
  return shard_pylex_error(
      lx, &t, "expected a placement: Shard(d), Replicate(), Partial() or _StridedShard(d, split_factor=n)");
}

typedef SHARD_VEC(placement) placement_vec;

static bool push_placement(shard_pylex *lx, void *ctx) {
  placement pl;
  if (!parse_placement(lx, &pl)) return false;
  SHARD_VEC_PUSH(*(placement_vec *)ctx, pl);
  return true;
}

/* placements ::= ('[' | '(') (placement (',' placement)*)? ','? (']' | ')') */
shard_conv *shard_dtensor_parse(shard_conv_ctx *cx, const shard_source *src) {
  shard_pylex lx;
  shard_pylex_init(&lx, cx, src);
  shard_pytok open = shard_pylex_next(&lx);
  const char *close = shard_pylex_is(&lx, &open, "[") ? "]" : shard_pylex_is(&lx, &open, "(") ? ")" : NULL;
  if (!close) {
    shard_pylex_error(&lx, &open, "expected a list of placements: [Shard(0), Replicate()]");
    return NULL;
  }
  const shard_mesh *m = cx->mesh;
  if (!m) {
    shard_pylex_error(&lx, &open, "DTensor placements follow the mesh dimensions: pass the mesh with --mesh");
    return NULL;
  }
  placement_vec pls = {0};
  bool ok = shard_pylex_list(&lx, close, push_placement, &pls) && shard_pylex_end(&lx, "the placements");
  if (ok && pls.len != m->num_axes)
    ok = shard_pylex_error(&lx, &open, "%u placements for a mesh with %u dimensions", pls.len, m->num_axes);
  /* The rank: the shape's, else one past the highest sharded dim. */
  int64_t rank = cx->rank;
  if (ok && rank < 0) {
    rank = 0;
    for (uint32_t i = 0; i < pls.len; i++)
      if ((pls.items[i].kind == PL_SHARD || pls.items[i].kind == PL_STRIDED) &&
          pls.items[i].dim < DTENSOR_MAX_GUESSED_RANK && pls.items[i].dim + 1 > rank)
        rank = pls.items[i].dim + 1;
  }
  for (uint32_t i = 0; ok && i < pls.len; i++) {
    placement *pl = &pls.items[i];
    if (pl->kind != PL_SHARD && pl->kind != PL_STRIDED) continue;
    /* Without a shape the rank is guessed from the dims: Shard(2000000000)
     * must not make a sharding of two billion dims. */
    if (cx->rank < 0 && pl->dim >= DTENSOR_MAX_GUESSED_RANK) {
      ok = shard_pylex_error(&lx, &pl->tok, "Shard dimension %lld needs the tensor's shape: pass --shape",
                             (long long)pl->dim);
      break;
    }
    if (pl->dim < 0 && cx->rank >= 0) pl->dim += cx->rank;
    if (pl->dim < 0 || pl->dim >= rank)
      ok = shard_pylex_error(&lx, &pl->tok, "Shard dimension %lld is out of range for rank %lld", (long long)pl->dim,
                             (long long)rank);
  }
  if (!ok) {
    SHARD_VEC_FREE(pls);
    return NULL;
  }
  shard_span sp = {src, open.off, (uint32_t)src->len - open.off};
  shard_conv *c = shard_conv_new_named(cx, (shard_mesh *)m, (uint32_t)rank, sp);
  c->split = SHARD_SPLIT_CHUNKED;
  uint32_t *order = shard_xmalloc(sizeof(uint32_t) * (pls.len + 1));
  for (int64_t d = 0; d < rank && ok; d++) {
    /* Right to left: order[] holds the later mesh dims of this tensor dim, major first. */
    uint32_t n = 0;
    for (uint32_t i = pls.len; i-- > 0 && ok;) {
      placement *pl = &pls.items[i];
      if ((pl->kind != PL_SHARD && pl->kind != PL_STRIDED) || pl->dim != d) continue;
      uint32_t at = 0;
      if (pl->kind == PL_STRIDED) {
        int64_t prod = 1;
        while (at < n && prod < pl->split_factor) prod *= m->axes[order[at++]].size;
        if (prod != pl->split_factor)
          ok = shard_pylex_error(&lx, &pl->tok,
                                 "split_factor %lld is not the size of the mesh dims sharding "
                                 "dimension %lld after this one",
                                 (long long)pl->split_factor, (long long)d);
      }
      memmove(order + at + 1, order + at, sizeof(uint32_t) * (n - at));
      order[at] = i;
      n++;
    }
    shard_dim_sharding *ds = &c->sharding->dims[d];
    ds->num_axes = n;
    ds->axes = n ? SHARD_NEW_ARRAY(cx->arena, shard_axis_ref, n) : NULL;
    for (uint32_t k = 0; k < n; k++) ds->axes[k].name = m->axes[order[k]].name;
  }
  free(order);
  /* Partial placements: unreduced axes, in mesh order. */
  SHARD_VEC(shard_axis_ref) unreduced = {0};
  const char *op = NULL;
  for (uint32_t i = 0; ok && i < pls.len; i++) {
    placement *pl = &pls.items[i];
    if (pl->kind != PL_PARTIAL) continue;
    if (op && strcmp(op, pl->reduce_op) != 0) {
      shard_span at = {src, pl->tok.off, pl->tok.len};
      shard_warning(cx->de, at,
                    "partial values with different reduce ops (%s, %s) have no equivalent: all "
                    "written with '%s'",
                    op, pl->reduce_op, op);
    }
    if (!op) op = pl->reduce_op;
    shard_axis_ref r = {m->axes[i].name, false, 0, 0};
    SHARD_VEC_PUSH(unreduced, r);
  }
  c->sharding->num_unreduced = unreduced.len;
  SHARD_VEC_FREEZE(cx->arena, unreduced, c->sharding->unreduced);
  if (op) {
    if (strcmp(op, "max") == 0) c->sharding->reduction = SHARD_RED_MAX;
    else if (strcmp(op, "min") == 0) c->sharding->reduction = SHARD_RED_MIN;
    else if (strcmp(op, "sum") != 0) c->partial_op = op;
  }
  SHARD_VEC_FREE(pls);
  if (!ok || !shard_conv_validate(cx, c)) return NULL;
  return c;
}

static void print_partial(shard_buf *b, const char *op) {
  if (!op || strcmp(op, "sum") == 0) shard_buf_puts(b, "Partial()");
  else shard_buf_printf(b, "Partial('%s')", op);
}

static bool print_one(shard_conv_ctx *cx, const shard_conv *c, shard_buf *out, shard_buf *mesh_out) {
  const shard_mesh *m = shard_conv_mesh_of(cx, c);
  if (c->kind == SHARD_CONV_MAXIMAL || (c->kind == SHARD_CONV_NAMED && m && shard_mesh_is_maximal(m))) {
    shard_error(cx->de, c->span, "DTensor has no single-device placement");
    return false;
  }
  if (c->kind != SHARD_CONV_NAMED) {
    if (!m) {
      shard_error(cx->de, c->span, "DTensor placements follow the mesh dimensions: pass --mesh");
      return false;
    }
    if (c->kind == SHARD_CONV_UNKNOWN)
      shard_warning(cx->de, c->span, "DTensor has no unconstrained placement: {unknown} written as Replicate()");
    if (c->kind == SHARD_CONV_MANUAL)
      shard_warning(cx->de, c->span,
                    "DTensor placements cannot say 'manual' (per-device local tensors): written as Replicate()");
    shard_buf_putc(out, '[');
    for (uint32_t a = 0; a < m->num_axes; a++) {
      if (a) shard_buf_puts(out, ", ");
      if (c->kind == SHARD_CONV_UNREDUCED) print_partial(out, "sum");
      else shard_buf_puts(out, "Replicate()");
    }
    shard_buf_putc(out, ']');
    /* the placements count the sharding's mesh dims: name that mesh unless it is the user's */
    if ((!cx->mesh || !shard_mesh_equal(m, cx->mesh)) && mesh_out->len == 0) shard_pspec_print_mesh(mesh_out, m);
    return true;
  }
  bool split;
  const shard_conv *s = shard_conv_split_sub_axes(cx, c, &split);
  m = s->mesh;
  if (split) {
    shard_buf names;
    shard_buf_init(&names);
    shard_pspec_print_mesh(&names, m);
    shard_warning(cx->de, c->span,
                  "DTensor placements cannot use part of a mesh dimension: mesh dimensions split, mesh %s",
                  shard_buf_str(&names));
    shard_buf_free(&names);
  }
  shard_conv_warn_shardy_only(cx, c, "DTensor", false);
  if (c->num_manual) shard_warning(cx->de, c->span, "DTensor placements have no manual axes: written as Replicate()");
  const shard_tensor_sharding *t = s->sharding;
  char **text = shard_xcalloc(m->num_axes + 1, sizeof(char *));
  for (uint32_t d = 0; d < t->rank; d++) {
    const shard_dim_sharding *ds = &t->dims[d];
    for (uint32_t k = 0; k < ds->num_axes; k++) {
      int a = shard_mesh_axis_index(m, ds->axes[k].name);
      int64_t sf = 1;
      for (uint32_t j = 0; j < k; j++)
        if (shard_mesh_axis_index(m, ds->axes[j].name) > a) sf *= shard_mesh_axis_size(m, ds->axes[j].name);
      shard_buf b;
      shard_buf_init(&b);
      if (sf == 1) shard_buf_printf(&b, "Shard(%u)", d);
      else shard_buf_printf(&b, "_StridedShard(%u, split_factor=%lld)", d, (long long)sf);
      text[a] = shard_buf_take(&b);
    }
  }
  const char *op = c->partial_op;
  if (!op) op = shard_reduction_name(t->reduction);
  for (uint32_t k = 0; k < t->num_unreduced; k++) {
    int a = shard_mesh_axis_index(m, t->unreduced[k].name);
    shard_buf b;
    shard_buf_init(&b);
    print_partial(&b, op);
    text[a] = shard_buf_take(&b);
  }
  shard_buf_putc(out, '[');
  for (uint32_t a = 0; a < m->num_axes; a++) {
    if (a) shard_buf_puts(out, ", ");
    shard_buf_puts(out, text[a] ? text[a] : "Replicate()");
    free(text[a]);
  }
  shard_buf_putc(out, ']');
  free(text);
  if ((split || s->names_invented || !cx->mesh || !shard_mesh_equal(m, cx->mesh)) && mesh_out->len == 0)
    shard_pspec_print_mesh(mesh_out, m);
  return true;
}

bool shard_dtensor_print(shard_conv_ctx *cx, const shard_conv *c, shard_buf *out, shard_buf *mesh_out) {
  return shard_conv_print_python(cx, c, out, mesh_out, print_one);
}
