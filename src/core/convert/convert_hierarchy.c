/* What Paddle and OneFlow have in common: a device hierarchy (Paddle's
 * ProcessMesh, OneFlow's placement) and one placement per hierarchy
 * dimension (Paddle's Replicate/Shard/Partial, OneFlow's B/S/P).
 *
 * Hierarchies are read in the forms those frameworks print and construct
 * them, plus a bare shape:
 *
 *   2x2                                         d0=2, d1=2, devices 0..3
 *   [[2, 3], [6, 7]]                            the nesting is the shape
 *   ProcessMesh([[2, 3], [6, 7]], dim_names=['dp', 'mp'])
 *   {shape: [2,2], process_ids: [2,3,6,7], dim_names: [d0,d1]}   (C++ to_string)
 *   mesh_shape:[2,2],process_ids:[2,3,6,7]                       (PIR attribute)
 *   oneflow.placement(type="cuda", ranks=[[0, 1], [2, 3]])
 *
 * Dimensions are named d0, d1, ... unless dim_names says otherwise (Paddle's
 * default names). Process ids / ranks become the mesh's device ids; ids
 * that are not a permutation of 0..N-1 (a sub-mesh such as [2, 3, 6, 7])
 * are numbered by their order (2->0, 3->1, 6->2, 7->3) with a warning, as
 * a Shardy mesh numbers its own devices.
 *
 * Mesh-dim placements map to the hub as DTensor placements do: Shard(d) on
 * mesh dim m puts m on tensor dim d; several mesh dims on one tensor dim
 * split it in mesh order, the earlier the major one; Partial is an
 * unreduced axis. */
#include <stdlib.h>
#include <string.h>

#include "convert/convert.h"

static bool is_digit(char c) { return c >= '0' && c <= '9'; }

static int cmp_i64(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}

static const char *last_component(const char *s, size_t len, size_t *out_len) {
  const char *p = s;
  for (size_t i = 0; i < len; i++)
    if (s[i] == '.') p = s + i + 1;
  *out_len = len - (size_t)(p - s);
  return p;
}

/* ---- hierarchies ------------------------------------------------------------------------ */

typedef struct nested_ids {
  SHARD_VEC(int64_t) ids;
  int64_t shape[SHARD_HIERARCHY_MAX_RANK];
  uint32_t rank; /* 0 until the first innermost list */
} nested_ids;

/* list ::= '[' (INT (',' INT)* | list (',' list)*) ','? ']' */
static bool read_nested(shard_pylex *lx, nested_ids *n, uint32_t depth) {
  shard_pytok open = shard_pylex_peek(lx);
  if (!shard_pylex_is(lx, &open, "[")) return shard_pylex_error(lx, &open, "expected '[' (a list of process ids)");
  shard_pylex_next(lx);
  if (depth >= SHARD_HIERARCHY_MAX_RANK)
    return shard_pylex_error(lx, &open, "the device hierarchy has more than %d dimensions", SHARD_HIERARCHY_MAX_RANK);
  shard_pytok first = shard_pylex_peek(lx);
  bool leaf = first.kind == SHARD_PYTOK_INT;
  int64_t count = 0;
  while (!shard_pylex_accept(lx, "]")) {
    if (leaf) {
      shard_pytok t = shard_pylex_next(lx);
      if (t.kind != SHARD_PYTOK_INT || t.overflow || t.value < 0)
        return shard_pylex_error(lx, &t, "expected a process id (a non-negative integer)");
      SHARD_VEC_PUSH(n->ids, t.value);
    } else if (!read_nested(lx, n, depth + 1)) {
      return false;
    }
    count++;
    if (!shard_pylex_accept(lx, ",")) {
      if (!shard_pylex_expect(lx, "]")) return false;
      break;
    }
  }
  if (count == 0) return shard_pylex_error(lx, &open, "a device hierarchy dimension must not be empty");
  if (leaf) {
    if (n->rank == 0) n->rank = depth + 1;
    else if (n->rank != depth + 1)
      return shard_pylex_error(lx, &open, "the lists of process ids are not nested evenly");
  }
  if (n->shape[depth] == 0) n->shape[depth] = count;
  else if (n->shape[depth] != count)
    return shard_pylex_error(lx, &open, "the lists of process ids are not all of length %lld",
                             (long long)n->shape[depth]);
  return true;
}

/* A flat list of integers ([2,2] or [2, 3, 6, 7]) appended to `out`. */
static bool read_ints(shard_pylex *lx, nested_ids *out, uint32_t *count) {
  *count = 0;
  if (!shard_pylex_expect(lx, "[")) return false;
  while (!shard_pylex_accept(lx, "]")) {
    shard_pytok t = shard_pylex_next(lx);
    if (t.kind != SHARD_PYTOK_INT || t.overflow || t.value < 0)
      return shard_pylex_error(lx, &t, "expected a non-negative integer");
    SHARD_VEC_PUSH(out->ids, t.value);
    (*count)++;
    if (!shard_pylex_accept(lx, ",")) return shard_pylex_expect(lx, "]");
  }
  return true;
}

/* [d0,d1] (C++ prints names bare) or ['dp', 'mp']. */
static bool read_names(shard_pylex *lx, const char ***names, uint32_t *count) {
  SHARD_VEC(const char *) v = {0};
  *count = 0;
  bool ok = shard_pylex_expect(lx, "[");
  while (ok && !shard_pylex_accept(lx, "]")) {
    shard_pytok t = shard_pylex_next(lx);
    if (t.kind != SHARD_PYTOK_IDENT && t.kind != SHARD_PYTOK_STRING) {
      ok = shard_pylex_error(lx, &t, "expected a dimension name");
      break;
    }
    SHARD_VEC_PUSH(v, shard_pylex_text(lx, &t));
    if (!shard_pylex_accept(lx, ",")) {
      ok = shard_pylex_expect(lx, "]");
      break;
    }
  }
  *count = v.len;
  SHARD_VEC_FREEZE(lx->cx->arena, v, *names);
  return ok;
}

bool shard_hierarchy_mesh_detect(const char *s) {
  while (*s == ' ' || *s == '\t' || *s == '\n') s++;
  if (is_digit(*s) || *s == '[') return true;
  if (strncmp(s, "mesh_shape", 10) == 0) return true;
  if (*s == '{') {
    const char *q = s + 1;
    while (*q == ' ') q++;
    return strncmp(q, "shape", 5) == 0 || strncmp(q, "process_ids", 11) == 0;
  }
  size_t n = 0;
  while ((s[n] >= 'a' && s[n] <= 'z') || (s[n] >= 'A' && s[n] <= 'Z') || is_digit(s[n]) || s[n] == '_' || s[n] == '.')
    n++;
  if (s[n] != '(') return false;
  size_t k;
  const char *w = last_component(s, n, &k);
  return (k == 11 && strncmp(w, "ProcessMesh", 11) == 0) || (k == 9 && strncmp(w, "placement", 9) == 0);
}

/* 2x2x4 */
static bool read_shape_text(shard_pylex *lx, nested_ids *n, uint32_t i) {
  const char *t = lx->src->text;
  uint32_t len = (uint32_t)lx->src->len;
  while (i < len && (t[i] == ' ' || t[i] == '\t')) i++;
  shard_pytok at = {SHARD_PYTOK_INT, i, 1, 0, false};
  for (;;) {
    if (i >= len || !is_digit(t[i])) {
      at.off = i;
      return shard_pylex_error(lx, &at, "expected a dimension size");
    }
    int64_t v = 0;
    uint32_t s = i;
    while (i < len && is_digit(t[i])) {
      if (v > SHARD_CONV_MAX_DEVICES) {
        at.off = s;
        return shard_pylex_error(lx, &at, "device hierarchy dimension too large");
      }
      v = v * 10 + (t[i++] - '0');
    }
    if (n->rank >= SHARD_HIERARCHY_MAX_RANK) {
      at.off = s;
      return shard_pylex_error(lx, &at, "the device hierarchy has more than %d dimensions", SHARD_HIERARCHY_MAX_RANK);
    }
    n->shape[n->rank++] = v;
    if (i < len && (t[i] == 'x' || t[i] == 'X')) {
      i++;
      continue;
    }
    break;
  }
  lx->pos = i;
  lx->has_tok = false;
  return true;
}

/* Fields of the printed forms: `key: value` / `key=value` / `key value`. */
static bool read_field(shard_pylex *lx, const shard_pytok *key, nested_ids *n, bool *have_ids, const char ***names,
                       uint32_t *num_names, int64_t *shape_ids_from) {
  if (!shard_pylex_accept(lx, ":")) (void)shard_pylex_accept(lx, "=");
  if (shard_pylex_is(lx, key, "shape") || shard_pylex_is(lx, key, "mesh_shape")) {
    uint32_t k;
    size_t before = n->ids.len;
    if (!read_ints(lx, n, &k)) return false;
    if (k > SHARD_HIERARCHY_MAX_RANK)
      return shard_pylex_error(lx, key, "the device hierarchy has more than %d dimensions", SHARD_HIERARCHY_MAX_RANK);
    for (uint32_t j = 0; j < k; j++) n->shape[j] = n->ids.items[before + j];
    n->rank = k;
    n->ids.len = (uint32_t)before;
    return true;
  }
  if (shard_pylex_is(lx, key, "process_ids") || shard_pylex_is(lx, key, "ranks") || shard_pylex_is(lx, key, "mesh")) {
    *have_ids = true;
    *shape_ids_from = n->ids.len;
    if (shard_pylex_is(lx, key, "process_ids")) {
      uint32_t k;
      return read_ints(lx, n, &k);
    }
    nested_ids sub = {0};
    bool ok = read_nested(lx, &sub, 0);
    if (ok) {
      for (uint32_t j = 0; j < sub.ids.len; j++) SHARD_VEC_PUSH(n->ids, sub.ids.items[j]);
      memcpy(n->shape, sub.shape, sizeof n->shape);
      n->rank = sub.rank;
    }
    SHARD_VEC_FREE(sub.ids);
    return ok;
  }
  if (shard_pylex_is(lx, key, "dim_names")) return read_names(lx, names, num_names);
  if (shard_pylex_is(lx, key, "type")) {
    shard_pytok t = shard_pylex_next(lx);
    if (t.kind != SHARD_PYTOK_STRING && t.kind != SHARD_PYTOK_IDENT)
      return shard_pylex_error(lx, &t, "expected a device type such as \"cuda\"");
    return true;
  }
  return shard_pylex_error(lx, key, "unknown field '%s' (shape, process_ids, dim_names, ranks, type)",
                           shard_pylex_text(lx, key));
}

shard_mesh *shard_hierarchy_mesh_parse(shard_conv_ctx *cx, const shard_source *src, uint32_t off) {
  shard_pylex lx;
  shard_pylex_init(&lx, cx, src);
  lx.pos = off;
  nested_ids n = {0};
  bool have_ids = false, ok = true;
  const char **names = NULL;
  uint32_t num_names = 0;
  int64_t ids_from = 0;
  shard_pytok first = shard_pylex_peek(&lx);
  if (first.kind == SHARD_PYTOK_INT) {
    ok = read_shape_text(&lx, &n, first.off);
  } else if (shard_pylex_is(&lx, &first, "[")) {
    ok = read_nested(&lx, &n, 0);
    have_ids = true;
  } else {
    /* NAME(args) | '{' fields '}' | fields */
    const char *close = NULL;
    bool call = false;
    if (first.kind == SHARD_PYTOK_IDENT) {
      shard_pylex_next(&lx);
      if (shard_pylex_accept(&lx, "(")) {
        close = ")";
        call = true;
      } else {
        lx.pos = first.off; /* a field name: read it again below */
        lx.has_tok = false;
      }
    } else if (shard_pylex_accept(&lx, "{")) {
      close = "}";
    }
    while (ok) {
      shard_pytok t = shard_pylex_peek(&lx);
      if (close && shard_pylex_accept(&lx, close)) break;
      if (!close && t.kind == SHARD_PYTOK_EOF) break;
      if (call && (t.kind == SHARD_PYTOK_STRING || shard_pylex_is(&lx, &t, "["))) {
        /* positional: ProcessMesh(mesh, dim_names=...), placement(type, ranks) */
        if (t.kind == SHARD_PYTOK_STRING) shard_pylex_next(&lx);
        else {
          have_ids = true;
          ok = read_nested(&lx, &n, 0);
        }
      } else if (t.kind == SHARD_PYTOK_IDENT) {
        shard_pylex_next(&lx);
        ok = read_field(&lx, &t, &n, &have_ids, &names, &num_names, &ids_from);
      } else {
        ok = shard_pylex_error(&lx, &t, "expected a field of the device hierarchy");
        break;
      }
      if (ok && !shard_pylex_accept(&lx, ",")) {
        if (close) ok = shard_pylex_expect(&lx, close);
        break;
      }
    }
  }
  ok = ok && shard_pylex_end(&lx, "the device hierarchy");
  shard_span sp = {src, first.off, (uint32_t)src->len - first.off};
  shard_mesh *m = NULL;
  if (ok) {
    if (have_ids)
      m = shard_hierarchy_mesh_build(cx, n.shape, n.rank, n.ids.items + ids_from, (int64_t)n.ids.len - ids_from, names,
                                     num_names, sp);
    else m = shard_hierarchy_mesh_build(cx, n.shape, n.rank, NULL, -1, names, num_names, sp);
  }
  SHARD_VEC_FREE(n.ids);
  return m;
}

shard_mesh *shard_hierarchy_mesh_build(shard_conv_ctx *cx, const int64_t *shape, uint32_t rank, const int64_t *ids,
                                       int64_t num_ids, const char *const *names, uint32_t num_names, shard_span sp) {
  bool ok = true;
  int64_t total = 1;
  for (uint32_t i = 0; ok && i < rank; i++) {
    if (shape[i] < 1) {
      shard_error(cx->de, sp, "device hierarchy dimension %u has size %lld; sizes must be at least 1", i,
                  (long long)shape[i]);
      ok = false;
    } else if (__builtin_mul_overflow(total, shape[i], &total) || total > SHARD_CONV_MAX_DEVICES) {
      shard_error(cx->de, sp, "device hierarchy is too large (more than %d devices)", SHARD_CONV_MAX_DEVICES);
      ok = false;
    }
  }
  if (ok && rank == 0) {
    shard_error(cx->de, sp, "the device hierarchy has no shape");
    ok = false;
  }
  if (ok && ids && num_ids != total) {
    shard_error(cx->de, sp, "the device hierarchy has %lld devices but %lld process ids", (long long)total,
                (long long)num_ids);
    ok = false;
  }
  if (ok && num_names && num_names != rank) {
    shard_error(cx->de, sp, "%u dim_names for a device hierarchy with %u dimensions", num_names, rank);
    ok = false;
  }
  int64_t *renum = NULL;
  if (ok && ids) {
    /* Ids are the devices; a sub-mesh's ids are numbered by their order. */
    bool perm = true, dup = false;
    bool *seen = shard_xcalloc((size_t)total, 1);
    for (int64_t i = 0; i < total; i++) {
      if (ids[i] < 0 || ids[i] >= total) perm = false;
      else if (seen[ids[i]]) dup = true;
      else seen[ids[i]] = true;
    }
    free(seen);
    if (!perm && !dup) {
      /* sort a copy to find repeats and ranks */
      renum = shard_xmalloc(sizeof(int64_t) * (size_t)total);
      int64_t *sorted = shard_xmalloc(sizeof(int64_t) * (size_t)total);
      memcpy(sorted, ids, sizeof(int64_t) * (size_t)total);
      qsort(sorted, (size_t)total, sizeof(int64_t), cmp_i64);
      for (int64_t i = 1; i < total; i++)
        if (sorted[i] == sorted[i - 1]) dup = true;
      for (int64_t i = 0; !dup && i < total; i++) {
        int64_t *at = bsearch(&ids[i], sorted, (size_t)total, sizeof(int64_t), cmp_i64);
        renum[i] = at - sorted;
      }
      if (!dup) {
        shard_buf map;
        shard_buf_init(&map);
        for (int64_t i = 0; i < total && i < 8; i++)
          shard_buf_printf(&map, "%s%lld->%lld", i ? ", " : "", (long long)sorted[i], (long long)i);
        if (total > 8) shard_buf_puts(&map, ", ...");
        shard_warning(cx->de, sp,
                      "process ids are not 0..%lld: devices numbered in process id order (%s); the ids themselves "
                      "are not kept",
                      (long long)total - 1, shard_buf_str(&map));
        shard_buf_free(&map);
        ids = renum;
      }
      free(sorted);
    }
    if (dup) {
      shard_error(cx->de, sp, "a process id appears twice in the device hierarchy");
      ok = false;
    }
  }
  shard_mesh *m = NULL;
  if (ok) {
    const char *dflt[SHARD_HIERARCHY_MAX_RANK];
    for (uint32_t i = 0; i < rank; i++) dflt[i] = num_names ? names[i] : shard_arena_printf(cx->arena, "d%u", i);
    m = shard_conv_mesh_new(cx, rank, dflt, shape, ids);
    m->span = sp;
  }
  free(renum);
  return m;
}

void shard_hierarchy_print_ids(shard_buf *b, const shard_mesh *m, bool nested) {
  int64_t total = shard_mesh_num_devices(m);
  if (!nested || m->num_axes == 0) {
    shard_buf_putc(b, '[');
    for (int64_t i = 0; i < total; i++)
      shard_buf_printf(b, "%s%lld", i ? "," : "", (long long)(m->device_ids ? m->device_ids[i] : i));
    shard_buf_putc(b, ']');
    return;
  }
  /* Python's nested list repr: [[0, 1], [2, 3]] */
  for (uint32_t a = 0; a < m->num_axes; a++) shard_buf_putc(b, '[');
  for (int64_t i = 0; i < total; i++) {
    if (i) {
      /* close and reopen every dim whose index wrapped */
      uint32_t wrapped = 0;
      int64_t stride = 1;
      for (uint32_t a = m->num_axes; a-- > 1;) {
        stride *= m->axes[a].size;
        if (i % stride == 0) wrapped++;
        else break;
      }
      for (uint32_t k = 0; k < wrapped; k++) shard_buf_putc(b, ']');
      shard_buf_puts(b, ", ");
      for (uint32_t k = 0; k < wrapped; k++) shard_buf_putc(b, '[');
    }
    shard_buf_printf(b, "%lld", (long long)(m->device_ids ? m->device_ids[i] : i));
  }
  for (uint32_t a = 0; a < m->num_axes; a++) shard_buf_putc(b, ']');
}

/* ---- mesh-dim placements ------------------------------------------------------------------------ */

static const char *const partial_ops[] = {"sum", "max", "min", "avg", "product"};

shard_conv *shard_conv_from_mesh_dims(shard_conv_ctx *cx, const shard_mesh *m, shard_mesh_dim_placement *pls,
                                      uint32_t n, shard_span whole, const char *notation) {
  if (n != m->num_axes) {
    shard_error(cx->de, whole, "%u %s placements for a mesh with %u dimensions", n, notation, m->num_axes);
    return NULL;
  }
  int64_t rank = cx->rank;
  if (rank < 0) {
    rank = 0;
    for (uint32_t i = 0; i < n; i++)
      if (pls[i].kind == SHARD_MESH_DIM_SHARD) {
        if (pls[i].dim >= SHARD_HIERARCHY_MAX_GUESSED_RANK) {
          shard_error(cx->de, pls[i].at, "split dimension %lld needs the tensor's shape: pass --shape",
                      (long long)pls[i].dim);
          return NULL;
        }
        if (pls[i].dim + 1 > rank) rank = pls[i].dim + 1;
      }
  }
  for (uint32_t i = 0; i < n; i++) {
    if (pls[i].kind != SHARD_MESH_DIM_SHARD) continue;
    if (pls[i].dim < 0 && cx->rank >= 0) pls[i].dim += cx->rank;
    if (pls[i].dim < 0 || pls[i].dim >= rank) {
      shard_error(cx->de, pls[i].at, "split dimension %lld is out of range for rank %lld", (long long)pls[i].dim,
                  (long long)rank);
      return NULL;
    }
  }
  shard_conv *c = shard_conv_new_named(cx, (shard_mesh *)m, (uint32_t)rank, whole);
  for (int64_t d = 0; d < rank; d++) {
    uint32_t k = 0;
    for (uint32_t i = 0; i < n; i++) k += pls[i].kind == SHARD_MESH_DIM_SHARD && pls[i].dim == d;
    shard_dim_sharding *ds = &c->sharding->dims[d];
    ds->num_axes = k;
    ds->axes = k ? SHARD_NEW_ARRAY(cx->arena, shard_axis_ref, k) : NULL;
    k = 0;
    for (uint32_t i = 0; i < n; i++)
      if (pls[i].kind == SHARD_MESH_DIM_SHARD && pls[i].dim == d) {
        memset(&ds->axes[k], 0, sizeof ds->axes[k]);
        ds->axes[k++].name = m->axes[i].name;
      }
  }
  uint32_t np = 0;
  for (uint32_t i = 0; i < n; i++) np += pls[i].kind == SHARD_MESH_DIM_PARTIAL;
  c->sharding->num_unreduced = np;
  c->sharding->unreduced = np ? SHARD_NEW_ARRAY(cx->arena, shard_axis_ref, np) : NULL;
  const char *op = NULL;
  np = 0;
  for (uint32_t i = 0; i < n; i++) {
    if (pls[i].kind != SHARD_MESH_DIM_PARTIAL) continue;
    memset(&c->sharding->unreduced[np], 0, sizeof c->sharding->unreduced[np]);
    c->sharding->unreduced[np++].name = m->axes[i].name;
    if (op && strcmp(op, pls[i].op) != 0)
      shard_warning(cx->de, pls[i].at,
                    "partial values with different reduce ops (%s, %s) have no equivalent: all written with '%s'", op,
                    pls[i].op, op);
    if (!op) op = pls[i].op;
  }
  if (op) {
    if (strcmp(op, "max") == 0) c->sharding->reduction = SHARD_RED_MAX;
    else if (strcmp(op, "min") == 0) c->sharding->reduction = SHARD_RED_MIN;
    else if (strcmp(op, "sum") != 0) c->partial_op = op;
  }
  if (!shard_conv_validate(cx, c)) return NULL;
  return c;
}

const char *shard_mesh_dim_op(const char *name) {
  for (size_t i = 0; i < sizeof partial_ops / sizeof partial_ops[0]; i++)
    if (strcmp(name, partial_ops[i]) == 0) return partial_ops[i];
  return NULL;
}

const shard_mesh *shard_conv_to_mesh_dims(shard_conv_ctx *cx, const shard_conv *c, const char *notation,
                                          shard_mesh_dim_placement **out, int32_t *rank, bool *mesh_changed) {
  *out = NULL;
  *mesh_changed = false;
  const shard_mesh *m = shard_conv_mesh_of(cx, c);
  if (c->kind == SHARD_CONV_TUPLE) {
    shard_error(cx->de, c->span, "%s describes one tensor: convert the elements of a tuple one at a time", notation);
    return NULL;
  }
  if (c->kind == SHARD_CONV_MAXIMAL || (c->kind == SHARD_CONV_NAMED && m && shard_mesh_is_maximal(m))) {
    shard_error(cx->de, c->span, "%s has no single-device placement", notation);
    return NULL;
  }
  if (!m || (c->kind != SHARD_CONV_NAMED && m->num_axes == 0)) {
    shard_error(cx->de, c->span, "%s placements follow the device hierarchy: pass it with --mesh", notation);
    return NULL;
  }
  if (c->kind != SHARD_CONV_NAMED) {
    if (c->kind == SHARD_CONV_UNKNOWN)
      shard_warning(cx->de, c->span, "%s has no unconstrained placement: {unknown} written as replicated", notation);
    if (c->kind == SHARD_CONV_MANUAL)
      shard_warning(cx->de, c->span, "%s cannot say 'manual' (per-device local tensors): written as replicated",
                    notation);
    shard_mesh_dim_placement *p = SHARD_NEW_ARRAY(cx->arena, shard_mesh_dim_placement, m->num_axes + 1);
    for (uint32_t a = 0; a < m->num_axes; a++) {
      memset(&p[a], 0, sizeof p[a]);
      p[a].kind = c->kind == SHARD_CONV_UNREDUCED ? SHARD_MESH_DIM_PARTIAL : SHARD_MESH_DIM_REPLICATE;
      p[a].op = "sum";
    }
    *out = p;
    *rank = cx->rank;
    *mesh_changed = !cx->mesh || !shard_mesh_equal(m, cx->mesh);
    return m;
  }
  bool split;
  const shard_conv *s = shard_conv_split_sub_axes(cx, c, &split);
  m = shard_conv_mesh_of(cx, s);
  if (split) {
    shard_buf names;
    shard_buf_init(&names);
    shard_mesh_print(&names, m);
    shard_warning(cx->de, c->span, "%s cannot use part of a mesh dimension: mesh dimensions split, mesh %s", notation,
                  shard_buf_str(&names));
    shard_buf_free(&names);
  }
  shard_conv_warn_shardy_only(cx, c, notation, false);
  if (c->num_manual) shard_warning(cx->de, c->span, "%s has no manual axes: written as replicated", notation);
  const shard_tensor_sharding *t = s->sharding;
  shard_mesh_dim_placement *p = SHARD_NEW_ARRAY(cx->arena, shard_mesh_dim_placement, m->num_axes + 1);
  memset(p, 0, sizeof *p * (m->num_axes + 1));
  for (uint32_t d = 0; d < t->rank; d++) {
    const shard_dim_sharding *ds = &t->dims[d];
    int prev = -1;
    for (uint32_t k = 0; k < ds->num_axes; k++) {
      int a = shard_mesh_axis_index(m, ds->axes[k].name);
      if (a < 0) {
        shard_error(cx->de, c->span, "unknown mesh axis \"%s\"", ds->axes[k].name);
        return NULL;
      }
      if (a < prev) {
        shard_error(cx->de, c->span,
                    "%s splits a tensor dimension over several mesh dimensions in mesh order only: dimension %u "
                    "has \"%s\" major to \"%s\"",
                    notation, d, ds->axes[k - 1].name, ds->axes[k].name);
        return NULL;
      }
      prev = a;
      p[a].kind = SHARD_MESH_DIM_SHARD;
      p[a].dim = d;
    }
  }
  const char *op = c->partial_op ? c->partial_op : shard_reduction_name(t->reduction);
  for (uint32_t k = 0; k < t->num_unreduced; k++) {
    int a = shard_mesh_axis_index(m, t->unreduced[k].name);
    if (a < 0) continue;
    p[a].kind = SHARD_MESH_DIM_PARTIAL;
    p[a].op = op;
  }
  *out = p;
  *rank = (int32_t)t->rank;
  *mesh_changed = split || s->names_invented || !cx->mesh || !shard_mesh_equal(m, cx->mesh);
  return m;
}
