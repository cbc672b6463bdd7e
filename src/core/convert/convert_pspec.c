/* JAX PartitionSpec: P('x', ('y', 'z'), None, P.UNCONSTRAINED, unreduced={'w'})
 * read over a mesh given apart ({'x': 2, 'y': 4}), and written back.
 *
 * The mapping is JAX's named_sharding_to_sdy_sharding: None is a closed
 * empty dim, P.UNCONSTRAINED an open one, a name or a tuple of names the
 * dim's axes major to minor, dims past the spec's end closed and empty,
 * unreduced= the unreduced axes. Going the other way, what a spec cannot
 * say is warned about once each: sub-axes (the mesh axis is split into
 * axes instead, which keeps the devices), axes on an open dim, priorities,
 * explicit replication, manual axes, max/min reductions. */
#include <stdlib.h>
#include <string.h>

#include "convert/convert.h"

static bool is_unconstrained(shard_pylex *lx, const shard_pytok *t) {
  return t->kind == SHARD_PYTOK_IDENT &&
         (shard_pylex_is(lx, t, "P.UNCONSTRAINED") || shard_pylex_is(lx, t, "PartitionSpec.UNCONSTRAINED") ||
          shard_pylex_is(lx, t, "UNCONSTRAINED"));
}

/* Looks an axis name up in the mesh; reports unknown names at the token. */
static bool axis_from_tok(shard_pylex *lx, const shard_mesh *m, const shard_pytok *t, shard_axis_ref *r) {
  memset(r, 0, sizeof *r);
  const char *name = shard_pylex_text(lx, t);
  int a = shard_mesh_axis_index(m, name);
  if (a < 0) return shard_pylex_error(lx, t, "unknown mesh axis '%s'", name);
  r->name = m->axes[a].name;
  return true;
}

/* names ::= (STRING (',' STRING)*)? ','? CLOSE, after the opening bracket;
 * the axes go into the arena in the order written. `what` names a non-string
 * item in the error. */
static bool parse_axis_names(shard_pylex *lx, const shard_mesh *m, const char *close, const char *what,
                             shard_axis_ref **out, uint32_t *n) {
  SHARD_VEC(shard_axis_ref) v = {0};
  while (!shard_pylex_accept(lx, close)) {
    shard_pytok a = shard_pylex_next(lx);
    shard_axis_ref r;
    if (a.kind != SHARD_PYTOK_STRING) {
      SHARD_VEC_FREE(v);
      return shard_pylex_error(lx, &a, "%s", what);
    }
    if (!axis_from_tok(lx, m, &a, &r)) {
      SHARD_VEC_FREE(v);
      return false;
    }
    SHARD_VEC_PUSH(v, r);
    if (!shard_pylex_accept(lx, ",")) {
      if (!shard_pylex_expect(lx, close)) {
        SHARD_VEC_FREE(v);
        return false;
      }
      break;
    }
  }
  *n = v.len;
  SHARD_VEC_FREEZE(lx->cx->arena, v, *out);
  return true;
}

/* axis-set ::= '{' (STRING (',' STRING)*)? ','? '}' | '(' ... ')' | '[' ... ']'
 *            | ('frozenset' | 'set') '(' axis-set ')' */
static bool parse_axis_set(shard_pylex *lx, const shard_mesh *m, shard_axis_ref **out, uint32_t *n) {
  shard_pytok t = shard_pylex_peek(lx);
  bool wrapped = false;
  if (t.kind == SHARD_PYTOK_IDENT && (shard_pylex_is(lx, &t, "frozenset") || shard_pylex_is(lx, &t, "set"))) {
    shard_pylex_next(lx);
    if (!shard_pylex_expect(lx, "(")) return false;
    wrapped = true;
    t = shard_pylex_peek(lx);
  }
  const char *close = shard_pylex_is(lx, &t, "{")   ? "}"
                      : shard_pylex_is(lx, &t, "(") ? ")"
                      : shard_pylex_is(lx, &t, "[") ? "]"
                                                    : NULL;
  if (!close) return shard_pylex_error(lx, &t, "expected a set of axis names like {'x'}");
  shard_pylex_next(lx);
  shard_axis_ref *v;
  uint32_t len;
  if (!parse_axis_names(lx, m, close, "expected a quoted axis name", &v, &len)) return false;
  if (wrapped && !shard_pylex_expect(lx, ")")) return false;
  /* Shardy keeps unreduced axes in mesh order. */
  for (uint32_t i = 1; i < len; i++)
    for (uint32_t j = i; j > 0 && shard_mesh_axis_index(m, v[j - 1].name) > shard_mesh_axis_index(m, v[j].name); j--) {
      shard_axis_ref tmp = v[j];
      v[j] = v[j - 1];
      v[j - 1] = tmp;
    }
  *out = v;
  *n = len;
  return true;
}

/* entry ::= 'None' | 'P.UNCONSTRAINED' | STRING | '(' (STRING (',' STRING)*)? ','? ')'
 *         | '[' ... ']' */
static bool parse_entry(shard_pylex *lx, const shard_mesh *m, shard_dim_sharding *d) {
  memset(d, 0, sizeof *d);
  d->priority = SHARD_NO_PRIORITY;
  shard_pytok t = shard_pylex_next(lx);
  if (t.kind == SHARD_PYTOK_IDENT && shard_pylex_is(lx, &t, "None")) return true;
  if (is_unconstrained(lx, &t)) {
    d->is_open = true;
    return true;
  }
  if (t.kind == SHARD_PYTOK_STRING) {
    d->axes = SHARD_NEW(lx->cx->arena, shard_axis_ref);
    d->num_axes = 1;
    return axis_from_tok(lx, m, &t, d->axes);
  }
  if (shard_pylex_is(lx, &t, "(") || shard_pylex_is(lx, &t, "[")) {
    const char *close = shard_pylex_is(lx, &t, "(") ? ")" : "]";
    return parse_axis_names(lx, m, close, "expected a quoted axis name in the tuple", &d->axes, &d->num_axes);
  }
  return shard_pylex_error(lx, &t, "expected an axis name ('x'), a tuple of names, None or P.UNCONSTRAINED");
}

/* pspec ::= ('P' | 'PartitionSpec' | 'jax.sharding.PartitionSpec') '('
 *           (entry (',' entry)*)? (',' 'unreduced' '=' axis-set)? ','? ')' */
shard_conv *shard_pspec_parse(shard_conv_ctx *cx, const shard_source *src) {
  shard_pylex lx;
  shard_pylex_init(&lx, cx, src);
  shard_pytok head = shard_pylex_next(&lx);
  if (!(head.kind == SHARD_PYTOK_IDENT &&
        (shard_pylex_is(&lx, &head, "P") || shard_pylex_is(&lx, &head, "PartitionSpec") ||
         shard_pylex_is(&lx, &head, "jax.sharding.PartitionSpec") || shard_pylex_is(&lx, &head, "PS")))) {
    shard_pylex_error(&lx, &head, "expected a PartitionSpec: P(...)");
    return NULL;
  }
  const shard_mesh *m = cx->mesh;
  if (!m) {
    shard_pylex_error(&lx, &head, "a PartitionSpec names mesh axes: pass the mesh with --mesh");
    return NULL;
  }
  if (!shard_pylex_expect(&lx, "(")) return NULL;
  SHARD_VEC(shard_dim_sharding) dims = {0};
  shard_axis_ref *unreduced = NULL;
  uint32_t num_unreduced = 0;
  shard_reduction reduction = SHARD_RED_SUM;
  bool ok = true;
  while (ok && !shard_pylex_accept(&lx, ")")) {
    shard_pytok t = shard_pylex_peek(&lx);
    if (t.kind == SHARD_PYTOK_IDENT && (shard_pylex_is(&lx, &t, "unreduced") || shard_pylex_is(&lx, &t, "reduced"))) {
      shard_pylex_next(&lx);
      if (shard_pylex_is(&lx, &t, "reduced")) {
        ok = shard_pylex_error(&lx, &t, "reduced= (JAX's reduced axes) has no Shardy equivalent");
        break;
      }
      ok = shard_pylex_expect(&lx, "=") && parse_axis_set(&lx, m, &unreduced, &num_unreduced);
    } else if (t.kind == SHARD_PYTOK_IDENT && shard_pylex_is(&lx, &t, "unreduced_kind")) {
      /* JAX's repr: unreduced_kind=sum (UnreducedKind.sum, 'sum' also read) */
      shard_pylex_next(&lx);
      ok = shard_pylex_expect(&lx, "=");
      shard_pytok k = shard_pylex_next(&lx);
      const char *name =
          ok && (k.kind == SHARD_PYTOK_IDENT || k.kind == SHARD_PYTOK_STRING) ? shard_pylex_text(&lx, &k) : "";
      if (strncmp(name, "UnreducedKind.", 14) == 0) name += 14;
      else if (strncmp(name, "jax.sharding.UnreducedKind.", 27) == 0) name += 27;
      if (ok && strcmp(name, "sum") == 0) reduction = SHARD_RED_SUM;
      else if (ok && strcmp(name, "max") == 0) reduction = SHARD_RED_MAX;
      else if (ok && strcmp(name, "min") == 0) reduction = SHARD_RED_MIN;
      else if (ok) ok = shard_pylex_error(&lx, &k, "expected an unreduced kind: sum, max or min");
    } else {
      shard_dim_sharding d;
      ok = parse_entry(&lx, m, &d);
      if (ok) SHARD_VEC_PUSH(dims, d);
    }
    if (ok && !shard_pylex_accept(&lx, ",")) {
      ok = shard_pylex_expect(&lx, ")");
      break;
    }
  }
  ok = ok && shard_pylex_end(&lx, "the PartitionSpec");
  uint32_t rank = dims.len;
  if (ok && cx->rank >= 0) {
    if ((uint32_t)cx->rank < rank) {
      shard_pytok t = {SHARD_PYTOK_IDENT, head.off, head.len, 0, false};
      ok = shard_pylex_error(&lx, &t, "the PartitionSpec has %u entries but the shape has rank %d", rank, cx->rank);
    } else {
      rank = (uint32_t)cx->rank;
    }
  }
  if (!ok) {
    SHARD_VEC_FREE(dims);
    return NULL;
  }
  shard_span sp = {src, head.off, (uint32_t)src->len - head.off};
  shard_conv *c = shard_conv_new_named(cx, (shard_mesh *)m, rank, sp);
  for (uint32_t i = 0; i < dims.len; i++) c->sharding->dims[i] = dims.items[i];
  c->sharding->unreduced = unreduced;
  c->sharding->num_unreduced = num_unreduced;
  c->sharding->reduction = reduction;
  c->spec_entries = dims.len;
  SHARD_VEC_FREE(dims);
  if (!shard_conv_validate(cx, c)) return NULL;
  return c;
}

/* The notation's strings have no escapes: quote with the mark the name lacks. */
static void print_name(shard_buf *b, const char *name) {
  char quote = strchr(name, '\'') ? '"' : '\'';
  shard_buf_putc(b, quote);
  shard_buf_puts(b, name);
  shard_buf_putc(b, quote);
}

void shard_pspec_print_mesh(shard_buf *b, const shard_mesh *m) {
  shard_buf_putc(b, '{');
  for (uint32_t i = 0; i < m->num_axes; i++) {
    if (i) shard_buf_puts(b, ", ");
    print_name(b, m->axes[i].name);
    shard_buf_printf(b, ": %lld", (long long)m->axes[i].size);
  }
  shard_buf_putc(b, '}');
  if (m->device_ids) {
    shard_buf_puts(b, ", device_ids=[");
    for (uint32_t i = 0; i < m->num_device_ids; i++)
      shard_buf_printf(b, "%s%lld", i ? ", " : "", (long long)m->device_ids[i]);
    shard_buf_putc(b, ']');
  }
}

/* Whether a sharding on mesh m must say which mesh it is on: its names are
 * made up, or the reader's --mesh is not m. */
static bool S_own_mesh_differs(const shard_conv_ctx *cx, const shard_conv *c, const shard_mesh *m) {
  return c->names_invented || !cx->mesh || !shard_mesh_equal(m, cx->mesh);
}

static bool print_one(shard_conv_ctx *cx, const shard_conv *c, shard_buf *out, shard_buf *mesh_out) {
  const shard_mesh *m = shard_conv_mesh_of(cx, c);
  switch (c->kind) {
  case SHARD_CONV_REPLICATED:
    shard_buf_puts(out, "P()");
    /* P() is replicated over whatever mesh the reader has: a mesh of its
     * own is printed, as for named shardings, so the devices read back */
    if (m && S_own_mesh_differs(cx, c, m) && mesh_out->len == 0) shard_pspec_print_mesh(mesh_out, m);
    return true;
  case SHARD_CONV_UNKNOWN:
    if (cx->rank < 0) {
      shard_warning(cx->de, c->span,
                    "{unknown} is P.UNCONSTRAINED in every dimension: pass --shape to list them; "
                    "written as P()");
      shard_buf_puts(out, "P()");
      return true;
    }
    shard_buf_puts(out, "P(");
    for (int32_t d = 0; d < cx->rank; d++) shard_buf_printf(out, "%sP.UNCONSTRAINED", d ? ", " : "");
    shard_buf_putc(out, ')');
    return true;
  case SHARD_CONV_MANUAL:
    shard_warning(cx->de, c->span,
                  "a PartitionSpec cannot say 'manual': in JAX a manual value is inside shard_map; "
                  "written as P()");
    shard_buf_puts(out, "P()");
    return true;
  case SHARD_CONV_UNREDUCED:
    if (!m || m->num_axes == 0) {
      shard_error(cx->de, c->span, "{unreduced} needs a mesh to name the unreduced axes: pass --mesh");
      return false;
    }
    shard_buf_puts(out, "P(unreduced={");
    for (uint32_t a = 0; a < m->num_axes; a++) {
      if (a) shard_buf_puts(out, ", ");
      print_name(out, m->axes[a].name);
    }
    shard_buf_puts(out, "}, unreduced_kind=sum)");
    /* the names are its own mesh's: say which, as for any named sharding */
    if (S_own_mesh_differs(cx, c, m) && mesh_out->len == 0) shard_pspec_print_mesh(mesh_out, m);
    return true;
  case SHARD_CONV_MAXIMAL:
    shard_error(cx->de, c->span,
                "a single-device sharding has no PartitionSpec (JAX uses SingleDeviceSharding for "
                "device %lld)",
                (long long)c->device);
    return false;
  case SHARD_CONV_TUPLE:
  case SHARD_CONV_NAMED: break;
  }
  if (m && shard_mesh_is_maximal(m)) {
    shard_error(cx->de, c->span, "a single-device sharding has no PartitionSpec (JAX uses SingleDeviceSharding)");
    return false;
  }
  bool split;
  const shard_conv *s = shard_conv_split_sub_axes(cx, c, &split);
  if (split) {
    shard_buf names;
    shard_buf_init(&names);
    shard_pspec_print_mesh(&names, s->mesh);
    shard_warning(cx->de, c->span, "a PartitionSpec cannot name sub-axes: mesh axes split into separate axes, mesh %s",
                  shard_buf_str(&names));
    shard_buf_free(&names);
  }
  shard_conv_warn_shardy_only(cx, c, "a PartitionSpec", true);
  const shard_tensor_sharding *t = s->sharding;
  if (c->num_manual)
    shard_warning(cx->de, c->span,
                  "a PartitionSpec has no manual axes (JAX puts them in shard_map's axis_names): dropped");
  if (c->partial_op)
    shard_warning(cx->de, c->span, "JAX has no %s reduction: Partial('%s') written as unreduced", c->partial_op,
                  c->partial_op);
  /* Trailing closed empty dims are implied: JAX drops them from the specs
   * it makes of a sharding, and prints a spec it was given as written. */
  uint32_t last = t->rank;
  while (last > c->spec_entries && !t->dims[last - 1].is_open && t->dims[last - 1].num_axes == 0) last--;
  shard_buf_puts(out, "P(");
  for (uint32_t d = 0; d < last; d++) {
    const shard_dim_sharding *ds = &t->dims[d];
    if (d) shard_buf_puts(out, ", ");
    if (ds->num_axes == 0) shard_buf_puts(out, ds->is_open ? "P.UNCONSTRAINED" : "None");
    else if (ds->num_axes == 1) print_name(out, ds->axes[0].name);
    else {
      shard_buf_putc(out, '(');
      for (uint32_t k = 0; k < ds->num_axes; k++) {
        if (k) shard_buf_puts(out, ", ");
        print_name(out, ds->axes[k].name);
      }
      shard_buf_putc(out, ')');
    }
  }
  /* JAX's repr prints the partitions tuple: one entry keeps its comma */
  if (last == 1 && !t->num_unreduced) shard_buf_putc(out, ',');
  if (t->num_unreduced) {
    shard_buf_puts(out, last ? ", unreduced={" : "unreduced={");
    for (uint32_t k = 0; k < t->num_unreduced; k++) {
      if (k) shard_buf_puts(out, ", ");
      print_name(out, t->unreduced[k].name);
    }
    shard_buf_printf(out, "}, unreduced_kind=%s", shard_reduction_name(t->reduction));
  }
  shard_buf_putc(out, ')');
  if (s->mesh && (split || s->names_invented || !cx->mesh || !shard_mesh_equal(s->mesh, cx->mesh)) &&
      mesh_out->len == 0)
    shard_pspec_print_mesh(mesh_out, s->mesh);
  return true;
}

bool shard_pspec_print(shard_conv_ctx *cx, const shard_conv *c, shard_buf *out, shard_buf *mesh_out) {
  return shard_conv_print_python(cx, c, out, mesh_out, print_one);
}
