/* -xla-sdy-import-shardings: `mhlo.sharding` (HloSharding text) on func
 * arguments, results and ops becomes `sdy.sharding` on one mesh named @mesh,
 * with XLA's axis names axis_0, axis_1, ... (stablehlo_round_trip/
 * stablehlo_import.cc):
 *
 *  - each tiled sharding's iota tile assignment <=[R]T(P) is cut into the
 *    pieces both its reshape dims and its tile dims need (XLA's
 *    AnalyzeTileAssignment: the "local mesh", in device order);
 *  - the mesh axes are the common refinement of all local meshes (XLA's
 *    ExtractCommonFactorSequence);
 *  - a tile dim is sharded along the axes of its pieces, major to minor;
 *    replicated subgroups leave their axes out; {replicated} and {manual}
 *    are closed and empty, {unknown} open and empty;
 *  - {maximal device=N} is on @maximal_mesh_N = <[], device_ids=[N]>, those
 *    meshes sorted by id after @mesh.
 *
 * A tile assignment written as a device list must be an iota (0, 1, ...);
 * XLA refuses the others too. The HloSharding text is read by convert's
 * parser. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "convert/convert.h"
#include "pass/pass.h"
#include "pass/pass_shardings.h"
#include "pipeline/pass_registry.h"
#include "xla/xla.h"

/* The most axes a mesh or local mesh may have here. */
#define XLA_IMPORT_MAX_AXES 64

/* One piece of a tiled sharding's local mesh. */
typedef struct piece {
  int64_t size;
  uint32_t tile_dim; /* the tile assignment dim it shards */
  uint32_t order; /* its position in the transposed (tile) order */
} piece;

typedef struct local_mesh {
  piece p[XLA_IMPORT_MAX_AXES];
  uint32_t n; /* in device (reshape) order */
} local_mesh;

typedef struct import_state {
  shard_module *m;
  shard_diag_engine *de;
  int64_t axes[XLA_IMPORT_MAX_AXES];
  uint32_t num_axes;
  bool have_axes;
  bool need_mesh;
  int64_t maximal[XLA_IMPORT_MAX_AXES * 4];
  uint32_t num_maximal;
} import_state;

static shard_hlo_sharding *S_parse(import_state *st, const shard_attr *a) {
  shard_conv_ctx cx;
  shard_conv_ctx_init(&cx, st->m->arena, st->de);
  shard_source *src = SHARD_NEW(st->m->arena, shard_source);
  *src = (shard_source){.name = SHARD_XLA_MHLO_SHARDING, .text = a->u.str.data, .len = a->u.str.len};
  shard_hlo_sharding *h = shard_hlo_parse(&cx, src, 0, a->u.str.len);
  if (!h) shard_error(st->de, a->span, "cannot parse mhlo.sharding \"%s\"", a->u.str.data);
  return h;
}

/* AnalyzeTileAssignment: the pieces of the iota that the reshape dims and
 * the tile dims both need. False when the tile assignment is no iota. */
static bool S_local_mesh(const shard_hlo_sharding *h, local_mesh *lm) {
  int64_t reshape[XLA_IMPORT_MAX_AXES];
  uint32_t perm[XLA_IMPORT_MAX_AXES], nr;
  int64_t total = shard_hlo_num_devices(h);
  if (h->devices) {
    for (int64_t i = 0; i < total; i++)
      if (h->devices[i] != i) return false;
    nr = 1;
    reshape[0] = total;
    perm[0] = 0;
  } else if (h->reshape) {
    nr = h->num_reshape;
    if (nr > XLA_IMPORT_MAX_AXES) return false;
    for (uint32_t i = 0; i < nr; i++) {
      reshape[i] = h->reshape[i];
      perm[i] = h->perm ? (uint32_t)h->perm[i] : i;
    }
  } else {
    nr = 1;
    reshape[0] = total;
    perm[0] = 0;
  }
  /* walk the transposed reshape dims and the tile dims together */
  typedef struct tpiece {
    int64_t size;
    uint32_t rdim, tdim;
  } tpiece;
  tpiece tp[XLA_IMPORT_MAX_AXES];
  uint32_t ntp = 0, j = 0, d = 0;
  int64_t r_left = nr ? reshape[perm[0]] : 1, t_left = h->num_dims ? h->dims[0] : 1;
  while (j < nr && d < h->num_dims) {
    if (r_left == 1) {
      if (++j < nr) r_left = reshape[perm[j]];
      continue;
    }
    if (t_left == 1) {
      if (++d < h->num_dims) t_left = h->dims[d];
      continue;
    }
    int64_t take = r_left < t_left ? r_left : t_left;
    if ((r_left % take) || (t_left % take)) return false;
    if (ntp == XLA_IMPORT_MAX_AXES) return false;
    tp[ntp++] = (tpiece){take, perm[j], d};
    r_left /= take;
    t_left /= take;
  }
  /* back to device order: the pieces of reshape dim 0, then 1, ... */
  lm->n = 0;
  for (uint32_t r = 0; r < nr; r++)
    for (uint32_t k = 0; k < ntp; k++)
      if (tp[k].rdim == r) lm->p[lm->n++] = (piece){tp[k].size, tp[k].tdim, k};
  return true;
}

/* The common refinement of two factor sequences of the same product: the
 * union of their prefix products. False when they do not nest. */
static bool S_refine(int64_t *a, uint32_t *na, const int64_t *b, uint32_t nb) {
  int64_t cuts[2 * XLA_IMPORT_MAX_AXES];
  uint32_t nc = 0;
  int64_t pa = 1, pb = 1;
  uint32_t i = 0, k = 0;
  while (i < *na || k < nb) {
    int64_t na_next = i < *na ? pa * a[i] : INT64_MAX, nb_next = k < nb ? pb * b[k] : INT64_MAX;
    int64_t next = na_next < nb_next ? na_next : nb_next;
    if (na_next == next) pa = na_next, i++;
    if (nb_next == next) pb = nb_next, k++;
    if (nc == 2 * XLA_IMPORT_MAX_AXES) return false;
    cuts[nc++] = next;
  }
  if (pa != pb || nc > XLA_IMPORT_MAX_AXES) return false;
  int64_t prev = 1;
  for (uint32_t c = 0; c < nc; c++) {
    if (cuts[c] % prev) return false;
    a[c] = cuts[c] / prev;
    prev = cuts[c];
  }
  *na = nc;
  return true;
}

static bool S_collect_one(import_state *st, const shard_hlo_sharding *h, shard_span at) {
  switch (h->kind) {
  case SHARD_HLO_MAXIMAL: {
    for (uint32_t i = 0; i < st->num_maximal; i++)
      if (st->maximal[i] == h->device) return true;
    if (st->num_maximal < sizeof st->maximal / sizeof *st->maximal) st->maximal[st->num_maximal++] = h->device;
    return true;
  }
  case SHARD_HLO_TUPLE:
    for (uint32_t i = 0; i < h->num_elems; i++)
      if (!S_collect_one(st, &h->elems[i], at)) return false;
    return true;
  case SHARD_HLO_TILED: {
    local_mesh lm;
    if (!S_local_mesh(h, &lm)) {
      shard_error(st->de, at, "cannot import mhlo.sharding with a tile assignment that is no iota");
      return false;
    }
    int64_t sizes[XLA_IMPORT_MAX_AXES];
    for (uint32_t i = 0; i < lm.n; i++) sizes[i] = lm.p[i].size;
    st->need_mesh = true;
    if (!st->have_axes) {
      memcpy(st->axes, sizes, sizeof *sizes * lm.n);
      st->num_axes = lm.n;
      st->have_axes = true;
    } else if (!S_refine(st->axes, &st->num_axes, sizes, lm.n)) {
      shard_error(st->de, at, "the tile assignments of the module have no common mesh");
      return false;
    }
    return true;
  }
  case SHARD_HLO_NAMED:
    shard_error(st->de, at, "cannot import an HloSharding V3 (named) mhlo.sharding yet");
    return false;
  default: st->need_mesh = true; return true;
  }
}

/* The sdy sharding of one (non-tuple) HloSharding for a value of `rank`. */
static shard_tensor_sharding *S_convert(import_state *st, const shard_hlo_sharding *h, uint32_t rank) {
  shard_arena *a = st->m->arena;
  shard_tensor_sharding *s = SHARD_NEW(a, shard_tensor_sharding);
  memset(s, 0, sizeof *s);
  s->reduction = SHARD_RED_SUM;
  if (h->kind == SHARD_HLO_MAXIMAL) {
    s->mesh_name = shard_arena_printf(a, "maximal_mesh_%" PRId64, h->device);
    return s;
  }
  s->mesh_name = "mesh";
  s->rank = rank;
  s->dims = rank ? SHARD_NEW_ARRAY(a, shard_dim_sharding, rank) : NULL;
  for (uint32_t d = 0; d < rank; d++)
    s->dims[d] = (shard_dim_sharding){NULL, 0, h->kind == SHARD_HLO_UNKNOWN, SHARD_NO_PRIORITY};
  if (h->kind != SHARD_HLO_TILED) return s;
  local_mesh lm;
  S_local_mesh(h, &lm);
  /* each local piece is a run of global axes */
  uint32_t first[XLA_IMPORT_MAX_AXES], count[XLA_IMPORT_MAX_AXES], g = 0;
  for (uint32_t i = 0; i < lm.n; i++) {
    int64_t left = lm.p[i].size;
    first[i] = g;
    while (left > 1 && g < st->num_axes) left /= st->axes[g++];
    count[i] = g - first[i];
  }
  uint32_t tile_rank = h->num_dims - h->num_types;
  for (uint32_t d = 0; d < rank && d < tile_rank; d++) {
    shard_dim_sharding *ds = &s->dims[d];
    ds->axes = SHARD_NEW_ARRAY(a, shard_axis_ref, st->num_axes + 1);
    /* pieces of this tile dim in tile (transposed) order */
    for (uint32_t ord = 0; ord < XLA_IMPORT_MAX_AXES; ord++)
      for (uint32_t i = 0; i < lm.n; i++) {
        if (lm.p[i].order != ord || lm.p[i].tile_dim != d) continue;
        for (uint32_t k = 0; k < count[i]; k++)
          ds->axes[ds->num_axes++] = (shard_axis_ref){.name = shard_arena_printf(a, "axis_%u", first[i] + k)};
      }
  }
  return s;
}

static uint32_t S_rank(const shard_type *t) { return t && t->kind == SHARD_TYPE_TENSOR ? t->rank : 0; }

typedef struct walk_ctx {
  import_state *st;
  bool collect, ok;
} walk_ctx;

static bool S_op(shard_op *op, void *ctx) {
  walk_ctx *w = ctx;
  shard_attr *a = shard_op_attr(op, SHARD_XLA_MHLO_SHARDING);
  if (!a || a->kind != SHARD_ATTR_STRING) return true;
  shard_hlo_sharding *h = S_parse(w->st, a);
  if (!h) return w->ok = false;
  if (w->collect) return w->ok = S_collect_one(w->st, h, a->span);
  shard_arena *ar = w->st->m->arena;
  uint32_t n = h->kind == SHARD_HLO_TUPLE ? h->num_elems : 1;
  if (n != op->num_results) {
    if (op->num_results == 0 || h->kind == SHARD_HLO_TUPLE) {
      shard_op_remove_attr(op, SHARD_XLA_MHLO_SHARDING);
      return true;
    }
  }
  shard_tensor_sharding *list = SHARD_NEW_ARRAY(ar, shard_tensor_sharding, op->num_results);
  for (uint32_t i = 0; i < op->num_results; i++)
    list[i] = *S_convert(w->st, h->kind == SHARD_HLO_TUPLE ? &h->elems[i] : h, S_rank(op->results[i].type));
  shard_op_set_attr(ar, op, "sdy.sharding", shard_attr_per_value(ar, list, op->num_results), false);
  shard_op_remove_attr(op, SHARD_XLA_MHLO_SHARDING);
  return true;
}

static bool S_funcs(import_state *st, bool collect) {
  shard_module *m = st->m;
  shard_block *b = m->top->num_regions ? m->top->regions[0].first : NULL;
  walk_ctx w = {st, collect, true};
  for (shard_op *f = b ? b->first : NULL; f && w.ok; f = f->next) {
    if (strcmp(f->name, "func.func") != 0) continue;
    shard_block *entry = f->num_regions ? f->regions[0].first : NULL;
    for (uint32_t i = 0; entry && i < entry->num_args && w.ok; i++) {
      shard_value *arg = &entry->args[i];
      shard_attr *a = shard_value_attr(arg, SHARD_XLA_MHLO_SHARDING);
      if (!a || a->kind != SHARD_ATTR_STRING) continue;
      shard_hlo_sharding *h = S_parse(st, a);
      if (!h) return false;
      if (collect) w.ok = S_collect_one(st, h, a->span);
      else {
        if (h->kind != SHARD_HLO_TUPLE)
          shard_value_set_attr(m->arena, arg, "sdy.sharding",
                               shard_attr_sharding(m->arena, S_convert(st, h, S_rank(arg->type))));
        shard_value_remove_attr(arg, SHARD_XLA_MHLO_SHARDING);
      }
    }
    shard_attr *ft = shard_op_attr(f, "function_type");
    for (uint32_t i = 0; i < shard_func_num_results(f) && w.ok; i++) {
      shard_attr *a = shard_func_result_attr(f, i, SHARD_XLA_MHLO_SHARDING);
      if (!a || a->kind != SHARD_ATTR_STRING) continue;
      shard_hlo_sharding *h = S_parse(st, a);
      if (!h) return false;
      if (collect) w.ok = S_collect_one(st, h, a->span);
      else {
        shard_type *t =
            ft && ft->kind == SHARD_ATTR_TYPE && i < ft->u.type->num_results ? ft->u.type->results[i] : NULL;
        if (h->kind != SHARD_HLO_TUPLE) shard_func_set_result_sharding(m->arena, f, i, S_convert(st, h, S_rank(t)));
        shard_func_set_result_attr(m->arena, f, i, SHARD_XLA_MHLO_SHARDING, NULL);
      }
    }
    for (shard_op *op = entry ? entry->first : NULL; op && w.ok; op = op->next) shard_walk(op, S_op, &w);
  }
  return w.ok;
}

static int S_cmp_i64(const void *x, const void *y) {
  int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
  return (a > b) - (a < b);
}

bool shard_pass_xla_import_shardings(shard_module *m, const char *options, const shard_pass_context *cx) {
  shard_diag_engine *de = cx->de;
  (void)options;
  import_state st = {.m = m, .de = de};
  if (!S_funcs(&st, true)) return false;
  shard_arena *a = m->arena;
  shard_block *b = m->top->regions[0].first;
  if (!b) return true;
  shard_op *after = NULL;
  qsort(st.maximal, st.num_maximal, sizeof *st.maximal, S_cmp_i64);
  for (uint32_t k = 0; k <= st.num_maximal; k++) {
    if (k == 0 && !st.need_mesh) continue;
    shard_mesh *mesh = SHARD_NEW(a, shard_mesh);
    memset(mesh, 0, sizeof *mesh);
    const char *name;
    if (k == 0) {
      name = "mesh";
      mesh->num_axes = st.num_axes;
      mesh->axes = st.num_axes ? SHARD_NEW_ARRAY(a, shard_mesh_axis, st.num_axes) : NULL;
      for (uint32_t i = 0; i < st.num_axes; i++)
        mesh->axes[i] = (shard_mesh_axis){shard_arena_printf(a, "axis_%u", i), st.axes[i]};
    } else {
      name = shard_arena_printf(a, "maximal_mesh_%" PRId64, st.maximal[k - 1]);
      mesh->device_ids = SHARD_NEW_ARRAY(a, int64_t, 1);
      mesh->device_ids[0] = st.maximal[k - 1];
      mesh->num_device_ids = 1;
    }
    shard_op *op = shard_op_new_named(a, "sdy.mesh", 0, NULL, 0, NULL, 0);
    op->span = m->top->span;
    shard_op_set_attr(a, op, "sym_name", shard_attr_string(a, name, (uint32_t)strlen(name)), true);
    shard_attr *ma = shard_attr_new(a, SHARD_ATTR_SDY_MESH);
    ma->u.mesh = mesh;
    shard_op_set_attr(a, op, "mesh", ma, true);
    if (after) shard_op_insert_after(after, op);
    else if (b->first) shard_op_insert_before(b->first, op);
    else shard_block_append(b, op);
    after = op;
  }
  return S_funcs(&st, false);
}

/* ---- tuple flattening --------------------------------------------------------- */

/* StableHLO-ext's flatten-tuple pass on custom calls, with the folds that
 * follow it: a tuple operand built by stablehlo.tuple becomes that tuple's
 * elements, a tuple result becomes one result per element and each
 * get_tuple_element of it the element's result. A call whose tuples are
 * nested, or whose tuple results have other uses, is left as it is. */
typedef struct tuple_calls {
  SHARD_VEC(shard_op *) ops;
} tuple_calls;

static bool S_is_tuple(const shard_type *t) { return t && t->kind == SHARD_TYPE_TUPLE; }

static bool S_flat_tuple(const shard_type *t) {
  for (uint32_t i = 0; i < t->num_inputs; i++)
    if (S_is_tuple(t->inputs[i])) return false;
  return true;
}

static bool S_collect_tuple_call(shard_op *op, void *ctx) {
  if (strcmp(op->name, "stablehlo.custom_call") != 0) return true;
  bool any = false, ok = true;
  for (uint32_t i = 0; i < op->num_operands && ok; i++) {
    shard_value *v = op->operands[i].value;
    if (!S_is_tuple(v->type)) continue;
    any = true;
    shard_op *def = v->def;
    ok = def && strcmp(def->name, "stablehlo.tuple") == 0 && S_flat_tuple(v->type);
  }
  for (uint32_t i = 0; i < op->num_results && ok; i++) {
    if (!S_is_tuple(op->results[i].type)) continue;
    any = true;
    ok = S_flat_tuple(op->results[i].type);
    for (shard_operand *u = op->results[i].first_use; u && ok; u = u->next_use) {
      const shard_attr *ix = shard_op_attr(u->owner, "index");
      ok = strcmp(u->owner->name, "stablehlo.get_tuple_element") == 0 && ix && ix->kind == SHARD_ATTR_INT &&
           ix->u.integer.value >= 0 && (uint64_t)ix->u.integer.value < op->results[i].type->num_inputs;
    }
  }
  if (any && ok && op->num_regions == 0) SHARD_VEC_PUSH(((tuple_calls *)ctx)->ops, op);
  return true;
}

static void S_flatten_tuples(shard_module *m) {
  shard_arena *a = m->arena;
  tuple_calls c = {{0}};
  shard_walk(m->top, S_collect_tuple_call, &c);
  for (uint32_t k = 0; k < c.ops.len; k++) {
    shard_op *op = c.ops.items[k];
    SHARD_VEC(shard_value *) operands = {0};
    SHARD_VEC(shard_op *) tuples = {0};
    SHARD_VEC(shard_type *) types = {0};
    for (uint32_t i = 0; i < op->num_operands; i++) {
      shard_value *v = op->operands[i].value;
      if (!S_is_tuple(v->type)) {
        SHARD_VEC_PUSH(operands, v);
        continue;
      }
      SHARD_VEC_PUSH(tuples, v->def);
      for (uint32_t e = 0; e < v->def->num_operands; e++) SHARD_VEC_PUSH(operands, v->def->operands[e].value);
    }
    for (uint32_t i = 0; i < op->num_results; i++) {
      const shard_type *t = op->results[i].type;
      if (!S_is_tuple(t)) SHARD_VEC_PUSH(types, op->results[i].type);
      else
        for (uint32_t e = 0; e < t->num_inputs; e++) SHARD_VEC_PUSH(types, t->inputs[e]);
    }
    shard_op *n = shard_op_new_named(a, op->name, operands.len, operands.items, types.len, types.items, 0);
    n->span = op->span;
    n->loc = op->loc;
    for (uint32_t i = 0; i < op->num_attrs; i++)
      shard_op_set_attr(a, n, op->attrs[i].name, op->attrs[i].value, op->attrs[i].inherent);
    shard_op_insert_before(op, n);
    uint32_t at = 0;
    for (uint32_t i = 0; i < op->num_results; i++) {
      shard_value *r = &op->results[i];
      if (!S_is_tuple(r->type)) {
        shard_value_replace_all_uses(r, &n->results[at++]);
        continue;
      }
      while (r->first_use) {
        shard_op *gte = r->first_use->owner;
        int64_t ix = shard_op_attr(gte, "index")->u.integer.value;
        shard_value_replace_all_uses(&gte->results[0], &n->results[at + (uint32_t)ix]);
        shard_op_erase(gte);
      }
      at += r->type->num_inputs;
    }
    shard_op_erase(op);
    for (uint32_t i = 0; i < tuples.len; i++) {
      bool dup = false;
      for (uint32_t j = 0; j < i && !dup; j++) dup = tuples.items[j] == tuples.items[i];
      if (!dup && shard_value_num_uses(&tuples.items[i]->results[0]) == 0) shard_op_erase(tuples.items[i]);
    }
    SHARD_VEC_FREE(operands);
    SHARD_VEC_FREE(tuples);
    SHARD_VEC_FREE(types);
  }
  SHARD_VEC_FREE(c.ops);
}

/* -xla-sdy-stablehlo-import-pipeline: a StableHLO module with GSPMD's
 * mhlo.sharding into sdy (XLA's addStablehloImportPipeline, less its
 * StableHLO clean-ups but with the tuple flattening of custom calls). */
bool shard_pass_xla_stablehlo_import_pipeline(shard_module *m, const char *options, const shard_pass_context *cx) {
  shard_diag_engine *de = cx->de;
  (void)options;
  static const char *const passes[] = {"symbol-dce",
                                       "xla-sdy-import-constants",
                                       "xla-sdy-import-shardings",
                                       "xla-stablehlo-round-trip-shard-map-import",
                                       "xla-sdy-import-sdy-custom-calls",
                                       "xla-sdy-open-while-free-vars-sharding",
                                       NULL};
  unsigned before = de->errors;
  S_flatten_tuples(m);
  for (const char *const *p = passes; *p; p++)
    if (!shard_pass_run(*p, m, NULL, cx) || de->errors != before) return false;
  return true;
}
