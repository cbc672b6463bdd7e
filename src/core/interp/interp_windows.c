/* The interpreter's indexed and windowed ops: gather, scatter, reduce_window,
 * select_and_scatter and convolution.
 *
 * Each follows the StableHLO spec's index arithmetic element by element and
 * evaluates in the order the reference interpreter does, so that results
 * rounded after every step (floats) agree bit for bit:
 *  - gather clamps each start index so the slice fits; scatter does not clamp
 *    and skips updates whose target falls outside the operand;
 *  - reduce_window folds each window of the padded, base-dilated input in
 *    row-major order starting from the init value (padding contributes the
 *    init value, as the spec's pad does);
 *  - select_and_scatter picks per window the element the select region
 *    keeps against every later one, then folds init, the source value and
 *    the current result with the scatter region;
 *  - convolution splits feature and batch groups, then computes every output
 *    element as a dot product over (spatial..., input feature), innermost
 *    feature, padded positions contributing zeros. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "interp/interp_internal.h"

/* ---- helpers ------------------------------------------------------------------ */

/* A field of the gather or scatter dimension numbers `attr`, by its name in
 * StableHLO's syntax (index_vector_dim as a one-element list). */
static bool S_raw_dims(interp_proc *p, const shard_op *op, const char *attr, const char *key, int64_t *out,
                       uint32_t *n) {
  static const char *const keys[2][5] = {{"offset_dims", "collapsed_slice_dims", "operand_batching_dims",
                                          "start_indices_batching_dims", "start_index_map"},
                                         {"update_window_dims", "inserted_window_dims", "input_batching_dims",
                                          "scatter_indices_batching_dims", "scatter_dims_to_operand_dims"}};
  const shard_attr *a = shard_op_attr(op, attr);
  const shard_gather_dims *g = shard_attr_gather_dims(a);
  const shard_gather_dims *sc = shard_attr_scatter_dims(a);
  if (!g && !sc) return shard_interp_error(p, op, "'%s' needs a '%s' attribute", op->name, attr);
  const shard_gather_dims *d = g ? g : sc;
  if (!strcmp(key, "index_vector_dim")) {
    out[0] = d->index_vector_dim;
    *n = 1;
    return true;
  }
  const shard_i64s *fields[5] = {&d->offset, &d->collapsed, &d->operand_batching, &d->indices_batching, &d->index_map};
  for (int i = 0; i < 5; i++)
    if (!strcmp(keys[g ? 0 : 1][i], key)) {
      if (!shard_interp_list(fields[i], out, n, shard_interp_op_rank(op)))
        return shard_interp_error(p, op, "'%s': '%s' in '%s' is too long", op->name, key, attr);
      return true;
    }
  return shard_interp_error(p, op, "'%s': no '%s' in '%s'", op->name, key, attr);
}

/* Optional integer array attribute: `dflt` for every one of `rank` entries
 * when absent. */
static bool S_opt_i64s(interp_proc *p, const shard_op *op, const char *name, int64_t dflt, uint32_t rank,
                       int64_t *out) {
  if (!shard_op_attr(op, name)) {
    for (uint32_t d = 0; d < rank; d++) out[d] = dflt;
    return true;
  }
  uint32_t n;
  if (!shard_interp_attr_i64s(p, op, name, out, &n, shard_interp_op_rank(op))) return false;
  if (n != rank) return shard_interp_error(p, op, "'%s' has %u entries where %u are expected", name, n, rank);
  return true;
}

/* `padding` as N x 2 (low, high) pairs; zeros when absent. */
static bool S_padding(interp_proc *p, const shard_op *op, uint32_t rank, int64_t *lo, int64_t *hi) {
  uint32_t n = 0, max = 2 * shard_interp_op_rank(op);
  int64_t *pairs = INTERP_ARRAY(p, int64_t, max);
  if (shard_op_attr(op, "padding") && !shard_interp_attr_i64s(p, op, "padding", pairs, &n, max)) return false;
  if (n && n != 2 * rank) return shard_interp_error(p, op, "'padding' needs %u (low, high) pairs", rank);
  for (uint32_t d = 0; d < rank; d++) {
    lo[d] = n ? pairs[2 * d] : 0;
    hi[d] = n ? pairs[2 * d + 1] : 0;
  }
  return true;
}

static bool S_contains(const int64_t *v, uint32_t n, int64_t x) {
  for (uint32_t i = 0; i < n; i++)
    if (v[i] == x) return true;
  return false;
}

static int64_t S_flat(uint32_t rank, const int64_t *strides, const int64_t *idx) {
  int64_t o = 0;
  for (uint32_t d = 0; d < rank; d++) o += idx[d] * strides[d];
  return o;
}

static bool S_in_bounds(uint32_t rank, const int64_t *dims, const int64_t *idx) {
  for (uint32_t d = 0; d < rank; d++)
    if (idx[d] < 0 || idx[d] >= dims[d]) return false;
  return true;
}

/* Applies an n-value fold body: out[k][oi] = body(acc[k][ai]..., val[k][vi]...)
 * for k < n. With one value the two-argument fast path is used. */
typedef struct fold {
  interp_proc *p;
  interp_frame *f;
  shard_region *body;
  uint32_t n;
  shard_tensor **args, **outs; /* 2n scalars, n results */
} fold;

static void S_fold_init(fold *fo, interp_proc *p, interp_frame *f, shard_region *body, shard_tensor *const *like,
                        uint32_t n) {
  fo->p = p;
  fo->f = f;
  fo->body = body;
  fo->n = n;
  fo->args = SHARD_NEW_ARRAY(p->arena, shard_tensor *, 2 * n + 1);
  fo->outs = SHARD_NEW_ARRAY(p->arena, shard_tensor *, n + 1);
  for (uint32_t k = 0; k < n; k++) {
    shard_type *st = shard_type_tensor(p->arena, 0, NULL, like[k]->type->elem, NULL);
    fo->args[k] = shard_tensor_new(p->arena, st);
    fo->args[n + k] = shard_tensor_new(p->arena, st);
  }
}

static bool S_fold(fold *fo, shard_tensor *const *acc, int64_t ai, shard_tensor *const *val, int64_t vi,
                   shard_tensor *const *out, int64_t oi) {
  if (fo->n == 1) return shard_interp_reduce_elems(fo->p, fo->f, fo->body, acc[0], ai, val[0], vi, out[0], oi);
  for (uint32_t k = 0; k < fo->n; k++) {
    interp_copy_elem(fo->args[k], 0, acc[k], ai);
    interp_copy_elem(fo->args[fo->n + k], 0, val[k], vi);
  }
  if (!shard_interp_run_region(fo->p, fo->f, fo->body, fo->args, 2 * fo->n, fo->outs, fo->n)) return false;
  for (uint32_t k = 0; k < fo->n; k++) interp_copy_elem(out[k], oi, fo->outs[k], 0);
  return true;
}

/* Splits a gather result (scatter update) index idx of rank r: its dims
 * listed in window_dims give the offset (update window) index, the others
 * the batch index the start indices are read at. Returns the window's size. */
static uint32_t S_split_index(const int64_t *idx, uint32_t r, const int64_t *window_dims, uint32_t n_win,
                              int64_t *window, int64_t *batch) {
  uint32_t nb = 0, nw = 0;
  for (uint32_t d = 0; d < r; d++) {
    if (S_contains(window_dims, n_win, d)) window[nw++] = idx[d];
    else batch[nb++] = idx[d];
  }
  return nw;
}

/* The index vector of start_indices (row-major strides `strides`) at batch
 * position `batch` (the dims other than index_vector_dim, in order) into
 * `vec`; *len entries, at most max. Also
 * fills `full`, the start_indices index with the vector dim at 0. */
static void S_index_vector(const shard_tensor *si, const int64_t *strides, int64_t ivd, const int64_t *batch,
                           int64_t *full, int64_t *vec, uint32_t max, uint32_t *len) {
  uint32_t rank = si->type->rank;
  for (uint32_t d = 0, b = 0; d < rank; d++) full[d] = (int64_t)d == ivd ? 0 : batch[b++];
  if (ivd >= (int64_t)rank) {
    *len = 1;
    vec[0] = si->ints[S_flat(rank, strides, full)];
    return;
  }
  /* only the first `max` components address the operand (start_index_map) */
  *len = si->type->dims[ivd] < (int64_t)max ? (uint32_t)si->type->dims[ivd] : max;
  for (uint32_t k = 0; k < *len; k++) {
    full[ivd] = k;
    vec[k] = si->ints[S_flat(rank, strides, full)];
  }
  full[ivd] = 0;
}

/* ---- gather ----------------------------------------------------------------- */

static bool S_gather(interp_proc *p, interp_frame *f, shard_op *op) {
  shard_tensor *x = shard_interp_operand(p, f, op, 0), *si = x ? shard_interp_operand(p, f, op, 1) : NULL;
  shard_tensor *r = si ? shard_interp_tensor_like(p, op->results[0].type, op) : NULL;
  if (!r) return false;
  static const char *const dn = "dimension_numbers";
  int64_t ivd_v[1];
  int64_t *offset_dims = INTERP_RANK_ARRAY(p, op, int64_t), *collapsed = INTERP_RANK_ARRAY(p, op, int64_t),
          *obatch = INTERP_RANK_ARRAY(p, op, int64_t), *sbatch = INTERP_RANK_ARRAY(p, op, int64_t),
          *start_map = INTERP_RANK_ARRAY(p, op, int64_t), *sizes = INTERP_RANK_ARRAY(p, op, int64_t);
  uint32_t n_off, n_col, n_ob, n_sb, n_map, n_ivd, n_sizes;
  if (!S_raw_dims(p, op, dn, "offset_dims", offset_dims, &n_off) ||
      !S_raw_dims(p, op, dn, "collapsed_slice_dims", collapsed, &n_col) ||
      !S_raw_dims(p, op, dn, "operand_batching_dims", obatch, &n_ob) ||
      !S_raw_dims(p, op, dn, "start_indices_batching_dims", sbatch, &n_sb) ||
      !S_raw_dims(p, op, dn, "start_index_map", start_map, &n_map) ||
      !S_raw_dims(p, op, dn, "index_vector_dim", ivd_v, &n_ivd) ||
      !shard_interp_attr_i64s(p, op, "slice_sizes", sizes, &n_sizes, shard_interp_op_rank(op)))
    return false;
  if (si->kind == SHARD_ELEM_FLOAT || si->kind == SHARD_ELEM_COMPLEX)
    return shard_interp_error(p, op, "gather start indices must be integers");
  uint32_t xr = x->type->rank, rr = r->type->rank;
  int64_t ivd = n_ivd ? ivd_v[0] : 0; /* printers omit index_vector_dim = 0 */
  if (n_sizes != xr || n_sb != n_ob)
    return shard_interp_error(p, op, "gather dimension numbers do not fit the operand");
  int64_t *xs = INTERP_RANK_ARRAY(p, op, int64_t), *idx = INTERP_RANK_ARRAY(p, op, int64_t);
  int64_t *ss = INTERP_RANK_ARRAY(p, op, int64_t), *xi = INTERP_RANK_ARRAY(p, op, int64_t);
  int64_t *batch = INTERP_RANK_ARRAY(p, op, int64_t), *offset = INTERP_RANK_ARRAY(p, op, int64_t),
          *full = INTERP_ARRAY(p, int64_t, shard_interp_op_rank(op) + 1), *vec = INTERP_RANK_ARRAY(p, op, int64_t);
  shard_interp_strides(xr, x->type->dims, xs);
  shard_interp_strides(si->type->rank, si->type->dims, ss);
  for (int64_t i = 0; i < r->num; i++) {
    uint32_t len, no = S_split_index(idx, rr, offset_dims, n_off, offset, batch);
    S_index_vector(si, ss, ivd, batch, full, vec, shard_interp_op_rank(op), &len);
    memset(xi, 0, sizeof(int64_t) * xr);
    for (uint32_t k = 0; k < n_map && k < len; k++) {
      int64_t d = start_map[k], hi = x->type->dims[d] - sizes[d], s = vec[k];
      xi[d] += s < 0 ? 0 : s > hi ? hi : s;
    }
    for (uint32_t k = 0; k < n_ob; k++) xi[obatch[k]] += full[sbatch[k]];
    for (uint32_t d = 0, o = 0; d < xr; d++) {
      if (S_contains(collapsed, n_col, d) || S_contains(obatch, n_ob, d)) continue;
      if (o < no) xi[d] += offset[o++];
    }
    if (!S_in_bounds(xr, x->type->dims, xi)) return shard_interp_error(p, op, "gather reads outside the operand");
    interp_copy_elem(r, i, x, S_flat(xr, xs, xi));
    shard_interp_next_index(rr, r->type->dims, idx);
  }
  shard_interp_bind(f, &op->results[0], r);
  return true;
}

/* ---- scatter ---------------------------------------------------------------- */

// stablehlo.scatter(inputs..., scatter_indices, updates...) with an
// update_computation over 2N scalars.
static bool S_scatter(interp_proc *p, interp_frame *f, shard_op *op) {
  if (op->num_operands < 3 || (op->num_operands - 1) % 2)
    return shard_interp_error(p, op, "scatter needs 2N+1 operands");
  uint32_t n = (op->num_operands - 1) / 2;
  shard_tensor **in = SHARD_NEW_ARRAY(p->arena, shard_tensor *, n + 1);
  shard_tensor **up = SHARD_NEW_ARRAY(p->arena, shard_tensor *, n + 1);
  shard_tensor **res = SHARD_NEW_ARRAY(p->arena, shard_tensor *, n + 1);
  shard_tensor *si = shard_interp_operand(p, f, op, n);
  if (!si) return false;
  for (uint32_t k = 0; k < n; k++) {
    if (!(in[k] = shard_interp_operand(p, f, op, k)) || !(up[k] = shard_interp_operand(p, f, op, n + 1 + k)))
      return false;
    res[k] = shard_interp_tensor_copy(p->arena, in[k]);
    res[k]->type = op->results[k].type;
  }
  static const char *const dn = "scatter_dimension_numbers";
  int64_t ivd_v[1];
  int64_t *window_dims = INTERP_RANK_ARRAY(p, op, int64_t), *inserted = INTERP_RANK_ARRAY(p, op, int64_t),
          *ibatch = INTERP_RANK_ARRAY(p, op, int64_t), *sbatch = INTERP_RANK_ARRAY(p, op, int64_t),
          *to_operand = INTERP_RANK_ARRAY(p, op, int64_t);
  uint32_t n_win, n_ins, n_ib, n_sb, n_map, n_ivd;
  if (!S_raw_dims(p, op, dn, "update_window_dims", window_dims, &n_win) ||
      !S_raw_dims(p, op, dn, "inserted_window_dims", inserted, &n_ins) ||
      !S_raw_dims(p, op, dn, "input_batching_dims", ibatch, &n_ib) ||
      !S_raw_dims(p, op, dn, "scatter_indices_batching_dims", sbatch, &n_sb) ||
      !S_raw_dims(p, op, dn, "scatter_dims_to_operand_dims", to_operand, &n_map) ||
      !S_raw_dims(p, op, dn, "index_vector_dim", ivd_v, &n_ivd))
    return false;
  if (si->kind == SHARD_ELEM_FLOAT || si->kind == SHARD_ELEM_COMPLEX)
    return shard_interp_error(p, op, "scatter indices must be integers");
  if (n_ib != n_sb) return shard_interp_error(p, op, "scatter batching dimensions differ in number");
  if (op->num_regions != 1) return shard_interp_error(p, op, "scatter needs an update_computation region");
  int64_t ivd = n_ivd ? ivd_v[0] : 0; /* printers omit index_vector_dim = 0 */
  uint32_t xr = in[0]->type->rank, ur = up[0]->type->rank;
  int64_t *xs = INTERP_RANK_ARRAY(p, op, int64_t), *idx = INTERP_RANK_ARRAY(p, op, int64_t);
  int64_t *ss = INTERP_RANK_ARRAY(p, op, int64_t), *xi = INTERP_RANK_ARRAY(p, op, int64_t);
  int64_t *batch = INTERP_RANK_ARRAY(p, op, int64_t), *window = INTERP_RANK_ARRAY(p, op, int64_t),
          *full = INTERP_ARRAY(p, int64_t, shard_interp_op_rank(op) + 1), *vec = INTERP_RANK_ARRAY(p, op, int64_t);
  shard_interp_strides(xr, in[0]->type->dims, xs);
  shard_interp_strides(si->type->rank, si->type->dims, ss);
  fold fo;
  S_fold_init(&fo, p, f, &op->regions[0], res, n);
  for (int64_t u = 0; u < up[0]->num; u++) {
    uint32_t len, nw = S_split_index(idx, ur, window_dims, n_win, window, batch);
    S_index_vector(si, ss, ivd, batch, full, vec, shard_interp_op_rank(op), &len);
    memset(xi, 0, sizeof(int64_t) * xr);
    for (uint32_t k = 0; k < n_map && k < len; k++) xi[to_operand[k]] += vec[k];
    for (uint32_t k = 0; k < n_ib; k++) xi[ibatch[k]] += full[sbatch[k]];
    for (uint32_t d = 0, w = 0; d < xr; d++) {
      if (S_contains(inserted, n_ins, d) || S_contains(ibatch, n_ib, d)) continue;
      if (w < nw) xi[d] += window[w++];
    }
    if (S_in_bounds(xr, in[0]->type->dims, xi)) {
      int64_t t = S_flat(xr, xs, xi);
      if (!S_fold(&fo, res, t, up, u, res, t)) return false;
    }
    shard_interp_next_index(ur, up[0]->type->dims, idx);
  }
  for (uint32_t k = 0; k < n; k++) shard_interp_bind(f, &op->results[k], res[k]);
  return true;
}

/* ---- reduce_window -------------------------------------------------------------- */

/* Element of input `x` at position q of its padded, base-dilated form, or -1
 * when q is padding. */
static int64_t S_dilated_source(const shard_tensor *x, const int64_t *xs, const int64_t *q, const int64_t *lo,
                                const int64_t *bdil) {
  uint32_t rank = x->type->rank;
  int64_t flat = 0;
  for (uint32_t d = 0; d < rank; d++) {
    int64_t pos = q[d] - lo[d];
    if (pos < 0 || pos % bdil[d]) return -1;
    pos /= bdil[d];
    if (pos >= x->type->dims[d]) return -1;
    flat += pos * xs[d];
  }
  return flat;
}

static bool S_reduce_window(interp_proc *p, interp_frame *f, shard_op *op) {
  if (op->num_operands < 2 || op->num_operands % 2) return shard_interp_error(p, op, "reduce_window needs 2N operands");
  uint32_t n = op->num_operands / 2;
  shard_tensor **in = SHARD_NEW_ARRAY(p->arena, shard_tensor *, 2 * n + 1);
  shard_tensor **res = SHARD_NEW_ARRAY(p->arena, shard_tensor *, n + 1);
  for (uint32_t k = 0; k < 2 * n; k++)
    if (!(in[k] = shard_interp_operand(p, f, op, k))) return false;
  for (uint32_t k = 0; k < n; k++)
    if (!(res[k] = shard_interp_tensor_like(p, op->results[k].type, op))) return false;
  uint32_t rank = in[0]->type->rank;
  int64_t *wdims = INTERP_RANK_ARRAY(p, op, int64_t), *strides = INTERP_RANK_ARRAY(p, op, int64_t),
          *bdil = INTERP_RANK_ARRAY(p, op, int64_t), *wdil = INTERP_RANK_ARRAY(p, op, int64_t),
          *lo = INTERP_RANK_ARRAY(p, op, int64_t), *hi = INTERP_RANK_ARRAY(p, op, int64_t);
  uint32_t nw;
  if (!shard_interp_attr_i64s(p, op, "window_dimensions", wdims, &nw, shard_interp_op_rank(op))) return false;
  if (nw != rank) return shard_interp_error(p, op, "window_dimensions has %u entries for rank %u", nw, rank);
  if (!S_opt_i64s(p, op, "window_strides", 1, rank, strides) || !S_opt_i64s(p, op, "base_dilations", 1, rank, bdil) ||
      !S_opt_i64s(p, op, "window_dilations", 1, rank, wdil) || !S_padding(p, op, rank, lo, hi))
    return false;
  if (op->num_regions != 1) return shard_interp_error(p, op, "reduce_window needs a body");
  int64_t *xs = INTERP_RANK_ARRAY(p, op, int64_t), *ridx = INTERP_RANK_ARRAY(p, op, int64_t);
  int64_t *w = INTERP_RANK_ARRAY(p, op, int64_t), *q = INTERP_RANK_ARRAY(p, op, int64_t);
  shard_interp_strides(rank, in[0]->type->dims, xs);
  fold fo;
  S_fold_init(&fo, p, f, &op->regions[0], res, n);
  for (int64_t i = 0; i < res[0]->num; i++) {
    for (uint32_t k = 0; k < n; k++) interp_copy_elem(res[k], i, in[n + k], 0);
    memset(w, 0, sizeof(int64_t) * rank);
    bool more = true;
    for (uint32_t d = 0; d < rank; d++) more &= wdims[d] > 0;
    while (more) {
      for (uint32_t d = 0; d < rank; d++) q[d] = ridx[d] * strides[d] + w[d] * wdil[d];
      int64_t src = S_dilated_source(in[0], xs, q, lo, bdil);
      bool ok = src >= 0 ? S_fold(&fo, res, i, in, src, res, i) : S_fold(&fo, res, i, in + n, 0, res, i);
      if (!ok) return false;
      more = shard_interp_next_index(rank, wdims, w);
    }
    shard_interp_next_index(rank, res[0]->type->dims, ridx);
  }
  for (uint32_t k = 0; k < n; k++) shard_interp_bind(f, &op->results[k], res[k]);
  return true;
}

/* ---- select_and_scatter ------------------------------------------------------------ */

static bool S_select_and_scatter(interp_proc *p, interp_frame *f, shard_op *op) {
  shard_tensor *x = shard_interp_operand(p, f, op, 0), *src = x ? shard_interp_operand(p, f, op, 1) : NULL,
               *init = src ? shard_interp_operand(p, f, op, 2) : NULL;
  shard_tensor *r = init ? shard_interp_tensor_like(p, op->results[0].type, op) : NULL;
  if (!r) return false;
  if (op->num_regions != 2) return shard_interp_error(p, op, "select_and_scatter needs select and scatter regions");
  uint32_t rank = x->type->rank;
  int64_t *wdims = INTERP_RANK_ARRAY(p, op, int64_t), *strides = INTERP_RANK_ARRAY(p, op, int64_t),
          *lo = INTERP_RANK_ARRAY(p, op, int64_t), *hi = INTERP_RANK_ARRAY(p, op, int64_t);
  uint32_t nw;
  if (!shard_interp_attr_i64s(p, op, "window_dimensions", wdims, &nw, shard_interp_op_rank(op))) return false;
  if (nw != rank) return shard_interp_error(p, op, "window_dimensions has %u entries for rank %u", nw, rank);
  if (!S_opt_i64s(p, op, "window_strides", 1, rank, strides) || !S_padding(p, op, rank, lo, hi)) return false;
  for (int64_t i = 0; i < r->num; i++) interp_copy_elem(r, i, init, 0);
  shard_type *st = shard_type_tensor(p->arena, 0, NULL, x->type->elem, NULL);
  shard_tensor *args[2] = {shard_tensor_new(p->arena, st), shard_tensor_new(p->arena, st)};
  shard_tensor *acc = shard_tensor_new(p->arena, st);
  int64_t *xs = INTERP_RANK_ARRAY(p, op, int64_t), *sidx = INTERP_RANK_ARRAY(p, op, int64_t);
  int64_t *w = INTERP_RANK_ARRAY(p, op, int64_t), *xi = INTERP_RANK_ARRAY(p, op, int64_t);
  shard_interp_strides(rank, x->type->dims, xs);
  for (int64_t s = 0; s < src->num; s++) {
    int64_t chosen = -1;
    memset(w, 0, sizeof(int64_t) * rank);
    bool more = true;
    for (uint32_t d = 0; d < rank; d++) more &= wdims[d] > 0;
    for (; more; more = shard_interp_next_index(rank, wdims, w)) {
      for (uint32_t d = 0; d < rank; d++) xi[d] = sidx[d] * strides[d] + w[d] - lo[d];
      if (!S_in_bounds(rank, x->type->dims, xi)) continue;
      int64_t cur = S_flat(rank, xs, xi);
      if (chosen < 0) {
        chosen = cur;
        continue;
      }
      interp_copy_elem(args[0], 0, x, chosen);
      interp_copy_elem(args[1], 0, x, cur);
      shard_tensor *keep;
      if (!shard_interp_run_region(p, f, &op->regions[0], args, 2, &keep, 1)) return false;
      if (keep->kind != SHARD_ELEM_BOOL) return shard_interp_error(p, op, "the select region must return tensor<i1>");
      if (!keep->ints[0]) chosen = cur;
    }
    if (chosen >= 0) {
      /* reduce([source, result], init): init, then the source value, then
       * what the result holds so far */
      interp_copy_elem(acc, 0, init, 0);
      if (!shard_interp_reduce_elems(p, f, &op->regions[1], acc, 0, src, s, acc, 0) ||
          !shard_interp_reduce_elems(p, f, &op->regions[1], acc, 0, r, chosen, acc, 0))
        return false;
      interp_copy_elem(r, chosen, acc, 0);
    }
    shard_interp_next_index(rank, src->type->dims, sidx);
  }
  shard_interp_bind(f, &op->results[0], r);
  return true;
}

/* ---- convolution ------------------------------------------------------------------- */

typedef struct conv_dims {
  int64_t in_batch, in_feature, *in_spatial; /* the spatial lists have `max` entries */
  int64_t k_in, k_out, *k_spatial;
  int64_t out_batch, out_feature, *out_spatial;
  uint32_t nspatial, max;
} conv_dims;

/* The typed dimension numbers copied into the interpreter's arrays. */
static bool S_conv_dims(const shard_conv_dims *d, conv_dims *c) {
  uint32_t n1, n2, n3;
  if (!d || !shard_interp_list(&d->in_spatial, c->in_spatial, &n1, c->max) ||
      !shard_interp_list(&d->k_spatial, c->k_spatial, &n2, c->max) ||
      !shard_interp_list(&d->out_spatial, c->out_spatial, &n3, c->max) || n1 != n2 || n2 != n3)
    return false;
  c->in_batch = d->in_batch;
  c->in_feature = d->in_feature;
  c->k_in = d->k_in_feature;
  c->k_out = d->k_out_feature;
  c->out_batch = d->out_batch;
  c->out_feature = d->out_feature;
  c->nspatial = n1;
  return true;
}

static bool S_convolution(interp_proc *p, interp_frame *f, shard_op *op) {
  shard_tensor *lhs = shard_interp_operand(p, f, op, 0), *rhs = lhs ? shard_interp_operand(p, f, op, 1) : NULL;
  shard_tensor *r = rhs ? shard_interp_tensor_like(p, op->results[0].type, op) : NULL;
  if (!r) return false;
  uint32_t maxr = shard_interp_op_rank(op);
  conv_dims c = {.in_spatial = INTERP_ARRAY(p, int64_t, maxr),
                 .k_spatial = INTERP_ARRAY(p, int64_t, maxr),
                 .out_spatial = INTERP_ARRAY(p, int64_t, maxr),
                 .max = maxr};
  if (!S_conv_dims(shard_op_conv_dims(op), &c))
    return shard_interp_error(p, op, "convolution needs readable dimension_numbers");
  uint32_t ns = c.nspatial, rank = lhs->type->rank;
  if (rank != ns + 2 || rhs->type->rank != rank || r->type->rank != rank)
    return shard_interp_error(p, op, "convolution operands do not have rank %u", ns + 2);
  int64_t *strides = INTERP_RANK_ARRAY(p, op, int64_t), *lo = INTERP_RANK_ARRAY(p, op, int64_t),
          *hi = INTERP_RANK_ARRAY(p, op, int64_t), *ldil = INTERP_RANK_ARRAY(p, op, int64_t),
          *rdil = INTERP_RANK_ARRAY(p, op, int64_t), *rev = INTERP_RANK_ARRAY(p, op, int64_t);
  int64_t fgc = 1, bgc = 1;
  if (!S_opt_i64s(p, op, "window_strides", 1, ns, strides) || !S_opt_i64s(p, op, "lhs_dilation", 1, ns, ldil) ||
      !S_opt_i64s(p, op, "rhs_dilation", 1, ns, rdil) || !S_opt_i64s(p, op, "window_reversal", 0, ns, rev) ||
      !S_padding(p, op, ns, lo, hi))
    return false;
  if (shard_op_attr(op, "feature_group_count") && !shard_interp_attr_int(p, op, "feature_group_count", &fgc))
    return false;
  if (shard_op_attr(op, "batch_group_count") && !shard_interp_attr_int(p, op, "batch_group_count", &bgc)) return false;
  const int64_t *ld = lhs->type->dims, *kd = rhs->type->dims, *od = r->type->dims;
  int64_t out_features = od[c.out_feature], kin = kd[c.k_in];
  if (fgc < 1 || bgc < 1 || out_features % fgc || out_features % bgc || ld[c.in_feature] != kin * fgc ||
      ld[c.in_batch] % bgc || od[c.out_batch] * bgc != ld[c.in_batch])
    return shard_interp_error(p, op, "convolution group counts do not fit the shapes");
  int64_t *ls = INTERP_RANK_ARRAY(p, op, int64_t), *ks = INTERP_RANK_ARRAY(p, op, int64_t),
          *oidx = INTERP_RANK_ARRAY(p, op, int64_t), *kspatial = INTERP_RANK_ARRAY(p, op, int64_t),
          *k = INTERP_RANK_ARRAY(p, op, int64_t);
  shard_interp_strides(rank, ld, ls);
  shard_interp_strides(rank, kd, ks);
  int64_t terms = kin;
  for (uint32_t s = 0; s < ns; s++) {
    kspatial[s] = kd[c.k_spatial[s]];
    terms = kspatial[s] > 0 && terms > INT64_MAX / kspatial[s] ? INT64_MAX : terms * kspatial[s];
  }
  if (terms > 0 && r->num > SHARD_INTERP_MAX_PRODUCTS / terms)
    return shard_interp_error(p, op,
                              "this convolution takes %lld x %lld multiply-adds, more than the interpreter's %lld",
                              (long long)r->num, (long long)terms, (long long)SHARD_INTERP_MAX_PRODUCTS);
  bool fl = r->kind == SHARD_ELEM_FLOAT;
  shard_float_fmt rfmt = r->fmt;
  int mul_op = shard_interp_binop("multiply"), add_op = shard_interp_binop("add");
  if (r->kind == SHARD_ELEM_COMPLEX)
    return shard_interp_error(p, op, "the interpreter does not support complex convolutions");
  for (int64_t i = 0; i < r->num; i++) {
    int64_t of = oidx[c.out_feature];
    int64_t fgroup = of / (out_features / fgc), bgroup = of / (out_features / bgc);
    int64_t batch = bgroup * od[c.out_batch] + oidx[c.out_batch];
    double facc = 0;
    int64_t iacc = 0;
    memset(k, 0, sizeof(int64_t) * ns);
    bool more = true;
    for (uint32_t s = 0; s < ns; s++) more &= kspatial[s] > 0;
    for (; more; more = shard_interp_next_index(ns, kspatial, k)) {
      /* lhs position of window element k; -1 when it is padding */
      int64_t lbase = batch * ls[c.in_batch], kbase = of * ks[c.k_out];
      bool pad = false;
      /* k walks the kernel; with window_reversal the lhs window is read
       * backwards (the reference reverses the window, so sums run in kernel
       * order either way) */
      for (uint32_t s = 0; s < ns; s++) {
        int64_t w = rev[s] ? kspatial[s] - 1 - k[s] : k[s];
        int64_t q = oidx[c.out_spatial[s]] * strides[s] + w * rdil[s] - lo[s];
        if (q < 0 || q % ldil[s]) pad = true;
        q /= ldil[s];
        if (q >= ld[c.in_spatial[s]]) pad = true;
        lbase += q * ls[c.in_spatial[s]];
        kbase += k[s] * ks[c.k_spatial[s]];
      }
      for (int64_t fi = 0; fi < kin; fi++) {
        int64_t li = lbase + (fgroup * kin + fi) * ls[c.in_feature], ki = kbase + fi * ks[c.k_in];
        if (fl) {
          /* shard_interp_scalar_binary's multiply and add, inline (it
           * finds the op by name, per product) */
          double prod = shard_float_round((pad ? 0.0 : interp_get_f(lhs, li)) * interp_get_f(rhs, ki), rfmt);
          facc = shard_float_round(facc + prod, rfmt);
        } else if (r->kind == SHARD_ELEM_BOOL) {
          iacc = iacc || (!pad && lhs->ints[li] && rhs->ints[ki]);
        } else {
          double du;
          int64_t prod;
          shard_interp_apply_binop(mul_op, r, 0, 0, pad ? 0 : lhs->ints[li], rhs->ints[ki], &du, &prod);
          shard_interp_apply_binop(add_op, r, 0, 0, iacc, prod, &du, &iacc);
        }
      }
    }
    if (fl) r->floats[i] = facc;
    else r->ints[i] = iacc;
    shard_interp_next_index(rank, od, oidx);
  }
  shard_interp_bind(f, &op->results[0], r);
  return true;
}

/* ---- dispatch ---------------------------------------------------------------------- */

bool shard_interp_exec_window_op(interp_proc *p, interp_frame *f, shard_op *op, bool *handled) {
  *handled = true;
  const char *n = op->name;
  if (!strcmp(n, "stablehlo.gather")) return S_gather(p, f, op);
  if (!strcmp(n, "stablehlo.scatter")) return S_scatter(p, f, op);
  if (!strcmp(n, "stablehlo.reduce_window")) return S_reduce_window(p, f, op);
  if (!strcmp(n, "stablehlo.select_and_scatter")) return S_select_and_scatter(p, f, op);
  if (!strcmp(n, "stablehlo.convolution")) return S_convolution(p, f, op);
  *handled = false;
  return true;
}
