/* `shard lower --verify`: checks a per-device program against its global
 * program by running both with the reference interpreter (interp.h).
 *
 * For each function:
 *   1. global inputs: deterministic pseudo-random integers in [-4, 4]
 *      (stored in the float types too), seeded by the function name and
 *      argument number: products and sums of them are exact, so the order in
 *      which devices add them does not matter;
 *   2. the reference: the input program, with the sdy ops that only
 *      annotate (sharding_constraint, reshard, propagation_barrier,
 *      sharding_group) dropped, run on one device; a manual computation
 *      (shard_map) runs its body on every device of its mesh
 *      (interp_manual.c);
 *   3. the per-device program: a driver function appended to it hands every
 *      device its slice of each input (by the argument's sharding; padding
 *      past the end of a dim is zero) through interpreter.run_parallel, one
 *      partition per device, as the conversion's partition_id expects;
 *   4. each device's result must equal its piece of the global result (by
 *      the result's sharding): together the devices reassemble the global
 *      result, and replicas of a piece must agree with it. The first
 *      difference is reported with its function, result, device and index.
 *
 * Equal means the same bits (NaN equals NaN), with one exception that is
 * derived, not guessed: a float value that the per-device program summed
 * across devices (all_reduce, reduce_scatter) from terms that are not all
 * small integers was added in another order than on one device, and may
 * differ by the rounding of that reordering, at most 2 gamma(N-1) sum|x_i|
 * for N terms x_i (gamma(k) = k u / (1 - k u), u the unit roundoff of the
 * element type), carried through the ops after the sum by the rules of
 * interp_rounding.c. Such values must lie within that bound; every other
 * value must be bit-equal. Each result's line in the notes says which rule
 * applied and the largest difference seen.
 *
 * Unreduced axes hold partial values whose sum over the axes is the value:
 * an argument unreduced over U gives its whole slice to the devices at
 * coordinate 0 of U and zeros to the others (a valid split, and exact), and
 * a result unreduced over U is summed over each group of devices that
 * differ only in U before it is compared. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "interp/interp.h"
#include "lower_verify.h"
#include "progress.h"
#include "ir/parse.h"
#include "pass/pass_shardings.h"
#include "ir/print.h"

/* ---- the reference program ---------------------------------------------------------- */

typedef SHARD_VEC(shard_op *) op_vec;

static bool collect_op(shard_op *op, void *ctx) {
  op_vec *v = ctx;
  SHARD_VEC_PUSH(*v, op);
  return true;
}

/* Drops what only annotates: the values flow through unchanged. */
static void strip_annotations(shard_module *ref) {
  op_vec ops = {0};
  shard_walk(ref->top, collect_op, &ops);
  for (uint32_t i = 0; i < ops.len; i++) {
    shard_op *op = ops.items[i];
    if (!strcmp(op->name, "sdy.sharding_constraint") || !strcmp(op->name, "sdy.reshard") ||
        !strcmp(op->name, "sdy.propagation_barrier")) {
      shard_value_replace_all_uses(&op->results[0], op->operands[0].value);
      shard_op_erase(op);
    } else if (!strcmp(op->name, "sdy.sharding_group")) {
      shard_op_erase(op);
    }
  }
  SHARD_VEC_FREE(ops);
}

/* The first op under fn the reference cannot give a global meaning to. */
static bool find_sdy_op(shard_op *op, void *ctx) {
  const char **found = ctx;
  if (!*found && !strncmp(op->name, "sdy.", 4) && strcmp(op->name, "sdy.constant") && strcmp(op->name, "sdy.return") &&
      strcmp(op->name, "sdy.manual_computation"))
    *found = op->name;
  return true;
}

/* ---- inputs and devices ------------------------------------------------------------- */

static uint64_t splitmix(uint64_t *s) {
  uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

static uint64_t seed_of(const char *func, uint32_t arg) {
  uint64_t h = 1469598103934665603ull;
  for (const char *p = func; *p; p++) h = (h ^ (unsigned char)*p) * 1099511628211ull;
  return h ^ ((uint64_t)arg << 32);
}

/* Small integers: sums and products of a few thousand of them stay exact in
 * f32, so reordered reductions give the same bits. Every float format holds
 * -4 .. 4 but f8E8M0FNU, which holds powers of two: 2^-4 .. 2^4 there. */
static void fill_random(shard_tensor *t, uint64_t seed) {
  for (int64_t i = 0; i < t->num; i++) {
    int64_t r = (int64_t)(splitmix(&seed) % 9) - 4;
    if (t->kind == SHARD_ELEM_COMPLEX) {
      t->floats[2 * i] = (double)r;
      t->floats[2 * i + 1] = (double)((int64_t)(splitmix(&seed) % 9) - 4);
    } else if (t->kind == SHARD_ELEM_FLOAT)
      t->floats[i] = shard_float_round(t->fmt == SHARD_FLOAT_F8E8M0FNU ? ldexp(1.0, (int)r) : (double)r, t->fmt);
    else if (t->kind == SHARD_ELEM_BOOL) t->ints[i] = r & 1;
    else t->ints[i] = shard_elem_wrap_int(t->kind == SHARD_ELEM_UINT ? r + 4 : r, t->kind, t->bits);
  }
}

static void zero_tensor(shard_tensor *t) {
  int64_t n = t->kind == SHARD_ELEM_COMPLEX ? 2 * t->num : t->num;
  for (int64_t i = 0; i < n; i++) {
    if (t->floats) t->floats[i] = 0;
    else t->ints[i] = 0;
  }
}

/* The mesh axes a sharding leaves out of its unreduced axes: devices with
 * the same piece index over them differ only in unreduced axes. */
static uint32_t other_axes(const shard_mesh *mesh, const shard_tensor_sharding *s, shard_axis_ref *out) {
  uint32_t n = 0;
  for (uint32_t i = 0; i < mesh->num_axes; i++) {
    bool unreduced = false;
    for (uint32_t u = 0; u < s->num_unreduced; u++) unreduced |= !strcmp(s->unreduced[u].name, mesh->axes[i].name);
    if (!unreduced) out[n++] = (shard_axis_ref){.name = mesh->axes[i].name};
  }
  return n;
}

/* Result r of device k plus that of every device that differs from k only
 * in the sharding's unreduced axes (the full value of k's group). */
static shard_tensor *sum_unreduced(shard_arena *a, shard_tensor **lout, uint32_t nres, uint32_t r, int64_t k,
                                   int64_t ndev, const shard_mesh *mesh, const shard_tensor_sharding *s) {
  const shard_tensor *mine = lout[k * nres + r];
  shard_tensor *sum = shard_tensor_new(a, mine->type);
  shard_axis_ref *others = SHARD_NEW_ARRAY(a, shard_axis_ref, mesh->num_axes + 1);
  uint32_t no = other_axes(mesh, s, others);
  int64_t key = shard_interp_piece_index(k, mesh, others, no);
  int64_t n = mine->kind == SHARD_ELEM_COMPLEX ? 2 * mine->num : mine->num;
  sum->bound = 0;
  for (int64_t d = 0; d < ndev; d++) {
    if (shard_interp_piece_index(d, mesh, others, no) != key) continue;
    const shard_tensor *part = lout[d * nres + r];
    for (int64_t i = 0; i < n; i++) {
      if (sum->floats) sum->floats[i] += part->floats[i];
      else if (sum->kind == SHARD_ELEM_BOOL) sum->ints[i] |= part->ints[i];
      else sum->ints[i] = shard_elem_wrap_int(sum->ints[i] + part->ints[i], sum->kind, sum->bits);
    }
    sum->bound += part->bound;
  }
  return sum;
}

/* Where device dev's piece of a dim starts in the global tensor. */
static void piece_origin(int64_t dev, const shard_mesh *mesh, const shard_tensor_sharding *s, const shard_type *local,
                         int64_t *origin) {
  for (uint32_t d = 0; d < local->rank; d++) {
    origin[d] = 0;
    if (s && mesh && d < s->rank && s->dims[d].num_axes)
      origin[d] = shard_interp_piece_index(dev, mesh, s->dims[d].axes, s->dims[d].num_axes) * local->dims[d];
  }
}

/* Maps a local flat index to the global one; -1 when it is padding. */
static int64_t global_index(int64_t li, const shard_type *local, const shard_type *global, const int64_t *origin) {
  int64_t rem = li, gi = 0, stride = 1;
  for (uint32_t d = local->rank; d-- > 0;) {
    int64_t c = rem % local->dims[d] + origin[d];
    rem /= local->dims[d];
    if (c >= global->dims[d]) return -1;
    gi += c * stride;
    stride *= global->dims[d];
  }
  return gi;
}

static shard_tensor *slice_for(shard_arena *a, const shard_tensor *g, shard_type *local, const int64_t *origin) {
  shard_tensor *t = shard_tensor_new(a, local);
  if (!t) return NULL;
  for (int64_t i = 0; i < t->num; i++) {
    int64_t gi = global_index(i, local, g->type, origin);
    if (gi < 0) continue;
    if (t->kind == SHARD_ELEM_COMPLEX) {
      t->floats[2 * i] = g->floats[2 * gi];
      t->floats[2 * i + 1] = g->floats[2 * gi + 1];
    } else if (t->kind == SHARD_ELEM_FLOAT) t->floats[i] = g->floats[gi];
    else t->ints[i] = g->ints[gi];
  }
  return t;
}

static bool static_tensor(const shard_type *t) {
  if (!t || t->kind != SHARD_TYPE_TENSOR) return false;
  for (uint32_t d = 0; d < t->rank; d++)
    if (t->dims[d] < 0) return false;
  return true;
}

static void print_index(shard_buf *b, int64_t flat, const shard_type *t) {
  int64_t *idx = shard_xcalloc(t->rank + 1, sizeof *idx);
  for (uint32_t d = t->rank; d-- > 0;) idx[d] = flat % t->dims[d], flat /= t->dims[d];
  shard_buf_putc(b, '[');
  for (uint32_t d = 0; d < t->rank; d++) shard_buf_printf(b, "%s%lld", d ? ", " : "", (long long)idx[d]);
  shard_buf_putc(b, ']');
  free(idx);
}

static void print_elem(shard_buf *b, const shard_tensor *t, int64_t i) {
  if (t->kind == SHARD_ELEM_COMPLEX) shard_buf_printf(b, "(%.17g, %.17g)", t->floats[2 * i], t->floats[2 * i + 1]);
  else if (t->kind == SHARD_ELEM_FLOAT) shard_buf_printf(b, "%.17g", t->floats[i]);
  else shard_buf_printf(b, "%lld", (long long)t->ints[i]);
}

static bool same_double(double a, double b) {
  if (a != a || b != b) return a != a && b != b;
  return a == b && signbit(a) == signbit(b);
}

/* The same bits (NaN matches NaN); complex numbers part by part. */
static bool same_elem(const shard_tensor *x, int64_t i, const shard_tensor *y, int64_t j) {
  if (x->kind == SHARD_ELEM_COMPLEX)
    return same_double(x->floats[2 * i], y->floats[2 * j]) && same_double(x->floats[2 * i + 1], y->floats[2 * j + 1]);
  if (x->kind == SHARD_ELEM_FLOAT) return same_double(x->floats[i], y->floats[j]);
  return x->ints[i] == y->ints[j];
}

/* How far apart two elements are (the larger part for complex numbers). */
static double elem_diff(const shard_tensor *x, int64_t i, const shard_tensor *y, int64_t j) {
  if (x->kind == SHARD_ELEM_COMPLEX)
    return fmax(fabs(x->floats[2 * i] - y->floats[2 * j]), fabs(x->floats[2 * i + 1] - y->floats[2 * j + 1]));
  return x->kind == SHARD_ELEM_FLOAT ? fabs(x->floats[i] - y->floats[j]) : 0;
}

/* ---- one function ---------------------------------------------------------------------- */

static shard_type *func_type(const shard_op *fn) {
  const shard_attr *a = shard_op_attr(fn, "function_type");
  return a && a->kind == SHARD_ATTR_TYPE && a->u.type->kind == SHARD_TYPE_FUNCTION ? a->u.type : NULL;
}

static const char *func_name(const shard_op *fn) {
  const shard_attr *a = shard_op_attr(fn, "sym_name");
  return a && a->kind == SHARD_ATTR_STRING ? a->u.str.data : NULL;
}

typedef struct device_count {
  const shard_module *m;
  int64_t n;
  bool mixed;
} device_count;

static void count_mesh(device_count *d, const shard_tensor_sharding *s) {
  const shard_mesh *mesh = s ? shard_module_sharding_mesh(d->m, s) : NULL;
  int64_t k = mesh ? shard_mesh_num_devices(mesh) : 1;
  if (k > 1 && d->n > 1 && k != d->n) d->mixed = true;
  if (k > d->n) d->n = k;
}

static shard_tensor_sharding *count_sharding(shard_tensor_sharding *s, void *ctx) {
  count_mesh(ctx, s);
  return s;
}

/* The device count of the function's shardings; 0 when they disagree. A
 * function whose arguments and results are all unsharded still runs on
 * the devices of the shardings inside it (a constant made unreduced, say),
 * read from the whole module. */
static int64_t func_devices(shard_module *m, const shard_op *fn, const shard_type *ft) {
  device_count d = {m, 1, false};
  for (uint32_t i = 0; i < ft->num_inputs + ft->num_results; i++)
    count_mesh(&d, i < ft->num_inputs ? shard_func_arg_sharding(fn, i)
                                      : shard_func_result_sharding(fn, i - ft->num_inputs));
  if (d.n == 1 && !d.mixed) shard_map_shardings(m, count_sharding, &d);
  return d.mixed ? 0 : d.n;
}

/* The per-device program plus a driver @__shard_verify_<name> taking every
 * device's inputs (device-major) and returning every device's results. */
static void driver_text(shard_buf *b, shard_module *local, const char *name, const shard_type *lt, int64_t ndev) {
  shard_print_options popts = {0};
  shard_buf prog;
  shard_buf_init(&prog);
  shard_print_module(&prog, local, &popts);
  const char *text = shard_buf_str(&prog);
  const char *end = strrchr(text, '}');
  shard_buf_putn(b, text, end ? (size_t)(end - text) : prog.len);
  shard_buf_printf(b, "  func.func @__shard_verify_%s(", name);
  for (int64_t k = 0; k < ndev; k++)
    for (uint32_t i = 0; i < lt->num_inputs; i++)
      shard_buf_printf(b, "%s%%a%lld_%u: %s", k || i ? ", " : "", (long long)k, i, lt->inputs[i]->text);
  shard_buf_puts(b, ") -> (");
  for (int64_t k = 0; k < ndev; k++)
    for (uint32_t i = 0; i < lt->num_results; i++)
      shard_buf_printf(b, "%s%s", k || i ? ", " : "", lt->results[i]->text);
  /* a function without results runs for its checks and errors: no %r */
  if (lt->num_results) shard_buf_printf(b, ") {\n    %%r:%lld = ", (long long)(ndev * lt->num_results));
  else shard_buf_puts(b, ") {\n    ");
  shard_buf_puts(b, "\"interpreter.run_parallel\"(");
  for (int64_t k = 0; k < ndev; k++)
    for (uint32_t i = 0; i < lt->num_inputs; i++)
      shard_buf_printf(b, "%s%%a%lld_%u", k || i ? ", " : "", (long long)k, i);
  shard_buf_puts(b, ") {programs = [[");
  for (int64_t k = 0; k < ndev; k++) shard_buf_printf(b, "%s@%s", k ? ", " : "", name);
  shard_buf_puts(b, "]]} : (");
  for (int64_t k = 0; k < ndev; k++)
    for (uint32_t i = 0; i < lt->num_inputs; i++) shard_buf_printf(b, "%s%s", k || i ? ", " : "", lt->inputs[i]->text);
  shard_buf_puts(b, ") -> (");
  for (int64_t k = 0; k < ndev; k++)
    for (uint32_t i = 0; i < lt->num_results; i++)
      shard_buf_printf(b, "%s%s", k || i ? ", " : "", lt->results[i]->text);
  shard_buf_puts(b, ")\n    \"func.return\"(");
  for (int64_t r = 0; r < ndev * lt->num_results; r++) shard_buf_printf(b, "%s%%r#%lld", r ? ", " : "", (long long)r);
  shard_buf_puts(b, ") : (");
  for (int64_t k = 0; k < ndev; k++)
    for (uint32_t i = 0; i < lt->num_results; i++)
      shard_buf_printf(b, "%s%s", k || i ? ", " : "", lt->results[i]->text);
  shard_buf_puts(b, ") -> ()\n  }\n}\n");
  shard_buf_free(&prog);
}

typedef enum { FN_OK, FN_SKIPPED, FN_FAILED } fn_outcome;

static fn_outcome verify_func(shard_module *ref, shard_module *sharded, shard_module *local, shard_op *lfn,
                              const shard_interp_options *iopts, shard_diag_engine *de, shard_buf *notes) {
  const char *name = func_name(lfn);
  shard_op *rfn = name ? shard_module_lookup_symbol(ref, name) : NULL;
  shard_op *sfn = name ? shard_module_lookup_symbol(sharded, name) : NULL;
  shard_type *rt = rfn ? func_type(rfn) : NULL, *lt = func_type(lfn), *st = sfn ? func_type(sfn) : NULL;
  if (!rt || !lt || !st || rt->num_inputs != lt->num_inputs || rt->num_results != lt->num_results ||
      st->num_inputs != lt->num_inputs || st->num_results != lt->num_results) {
    shard_buf_printf(notes, "@%s: not verified (the input has no function of that signature)\n", name ? name : "?");
    return FN_SKIPPED;
  }
  const char *sdy_op = NULL;
  shard_walk(rfn, find_sdy_op, &sdy_op);
  if (sdy_op) {
    shard_buf_printf(notes, "@%s: not verified (the global program has '%s', which the interpreter cannot run)\n", name,
                     sdy_op);
    return FN_SKIPPED;
  }
  for (uint32_t i = 0; i < rt->num_inputs + rt->num_results; i++) {
    bool in = i < rt->num_inputs;
    uint32_t j = in ? i : i - rt->num_inputs;
    shard_type *g = in ? rt->inputs[j] : rt->results[j], *l = in ? lt->inputs[j] : lt->results[j];
    const shard_tensor_sharding *s = in ? shard_func_arg_sharding(sfn, j) : shard_func_result_sharding(sfn, j);
    if (!static_tensor(g) || !static_tensor(l) || g->rank != l->rank) {
      shard_buf_printf(notes, "@%s: not verified (%s #%u is not a static tensor)\n", name, in ? "argument" : "result",
                       j);
      return FN_SKIPPED;
    }
    for (uint32_t u = 0; s && u < s->num_unreduced; u++)
      if (s->unreduced[u].is_sub || s->reduction != SHARD_RED_SUM) {
        shard_buf_printf(notes, "@%s: not verified (%s #%u is unreduced over a sub-axis or by max/min)\n", name,
                         in ? "argument" : "result", j);
        return FN_SKIPPED;
      }
  }
  int64_t ndev = func_devices(sharded, sfn, st);
  if (ndev == 0) {
    shard_buf_printf(notes, "@%s: not verified (its shardings use meshes of different sizes)\n", name);
    return FN_SKIPPED;
  }
  if (ndev > SHARD_INTERP_MAX_DEVICES) {
    shard_buf_printf(notes, "@%s: not verified (%lld devices; the interpreter runs at most %d)\n", name,
                     (long long)ndev, SHARD_INTERP_MAX_DEVICES);
    return FN_SKIPPED;
  }
  /* the arguments and results of the global program and of every device's */
  int64_t elements = 0;
  for (uint32_t i = 0; i < rt->num_inputs + rt->num_results; i++) {
    bool in = i < rt->num_inputs;
    uint32_t j = in ? i : i - rt->num_inputs;
    int64_t g = shard_type_num_elements(in ? rt->inputs[j] : rt->results[j]);
    int64_t l = shard_type_num_elements(in ? lt->inputs[j] : lt->results[j]);
    if (g > SHARD_INTERP_MAX_ELEMENTS || l > SHARD_INTERP_MAX_ELEMENTS / ndev) elements = INT64_MAX;
    else if (elements < INT64_MAX) elements += g + l * ndev;
  }
  if (elements > SHARD_INTERP_MAX_ELEMENTS) {
    shard_buf_printf(notes,
                     "@%s: not verified (its arguments and results on %lld devices hold more than %lld elements)\n",
                     name, (long long)ndev, (long long)SHARD_INTERP_MAX_ELEMENTS);
    return FN_SKIPPED;
  }

  shard_arena *a = shard_arena_new();
  fn_outcome outcome = FN_FAILED;
  shard_buf drv;
  shard_buf_init(&drv);
  shard_module *run = NULL;
  shard_tensor **gin = SHARD_NEW_ARRAY(a, shard_tensor *, rt->num_inputs + 1);
  shard_tensor **lin = SHARD_NEW_ARRAY(a, shard_tensor *, (size_t)ndev * lt->num_inputs + 1);
  for (uint32_t i = 0; i < rt->num_inputs; i++) {
    gin[i] = shard_tensor_new(a, rt->inputs[i]);
    if (!gin[i]) {
      shard_buf_printf(notes, "@%s: not verified (the interpreter has no %s)\n", name, rt->inputs[i]->elem);
      outcome = FN_SKIPPED;
      goto done;
    }
    fill_random(gin[i], seed_of(name, i));
    const shard_tensor_sharding *s = shard_func_arg_sharding(sfn, i);
    const shard_mesh *mesh = s ? shard_module_sharding_mesh(sharded, s) : NULL;
    for (int64_t k = 0; k < ndev; k++) {
      int64_t *origin = SHARD_NEW_ARRAY(a, int64_t, lt->inputs[i]->rank);
      piece_origin(k, mesh, s, lt->inputs[i], origin);
      lin[k * lt->num_inputs + i] = slice_for(a, gin[i], lt->inputs[i], origin);
      if (s && s->num_unreduced && mesh && shard_interp_piece_index(k, mesh, s->unreduced, s->num_unreduced) != 0)
        zero_tensor(lin[k * lt->num_inputs + i]);
    }
  }
  shard_tensor **gout = NULL, **lout = NULL;
  uint32_t ngout = 0, nlout = 0;
  cli_progress_update("--verify @%s: running the global program", name);
  if (!shard_interp_call(ref, name, gin, rt->num_inputs, iopts, a, &gout, &ngout, de)) {
    shard_error(de, rfn->span, "--verify: the global program @%s failed in the interpreter", name);
    goto done;
  }
  driver_text(&drv, local, name, lt, ndev);
  shard_source src = {"<verify driver>", shard_buf_str(&drv), drv.len, 0};
  shard_parse_options popts = {.allow_unregistered = true, .max_depth = 0};
  unsigned errors_before = de->errors; /* earlier functions may have failed */
  run = shard_parse_module(&src, &popts, de);
  if (!run || de->errors != errors_before) {
    shard_error(de, rfn->span, "--verify: could not build the per-device run of @%s", name);
    goto done;
  }
  char driver[512];
  snprintf(driver, sizeof driver, "__shard_verify_%s", name);
  cli_progress_update("--verify @%s: running the per-device program on %lld devices", name, (long long)ndev);
  if (!shard_interp_call(run, driver, lin, (uint32_t)(ndev * lt->num_inputs), iopts, a, &lout, &nlout, de)) {
    shard_error(de, rfn->span, "--verify: the per-device program @%s failed in the interpreter", name);
    goto done;
  }
  for (uint32_t r = 0; r < rt->num_results; r++) {
    double max_diff = 0, max_bound = 0; /* over elements that had a finite nonzero bound */
    bool bounded = false;
    const shard_tensor_sharding *s = shard_func_result_sharding(sfn, r);
    const shard_mesh *mesh = s ? shard_module_sharding_mesh(sharded, s) : NULL;
    const shard_tensor *g = gout[r];
    bool *covered = shard_xcalloc((size_t)g->num + 1, 1);
    for (int64_t k = 0; k < ndev; k++) {
      const shard_tensor *l = lout[k * lt->num_results + r];
      if (s && s->num_unreduced && mesh) {
        /* the partial values of k's group, summed, stand for the group */
        if (shard_interp_piece_index(k, mesh, s->unreduced, s->num_unreduced) != 0) continue;
        l = sum_unreduced(a, lout, lt->num_results, r, k, ndev, mesh, s);
      }
      int64_t *origin = SHARD_NEW_ARRAY(a, int64_t, lt->results[r]->rank);
      piece_origin(k, mesh, s, lt->results[r], origin);
      for (int64_t i = 0; i < l->num; i++) {
        int64_t gi = global_index(i, lt->results[r], rt->results[r], origin);
        if (gi < 0) continue;
        covered[gi] = true;
        bool has_bound = l->kind == SHARD_ELEM_FLOAT || l->kind == SHARD_ELEM_COMPLEX;
        double bound = has_bound ? l->bound + g->bound : 0;
        if (bound > 0 && isfinite(bound)) {
          bounded = true;
          if (bound > max_bound) max_bound = bound;
        }
        if (same_elem(l, i, g, gi)) continue;
        double diff = elem_diff(l, i, g, gi);
        if (bound > 0 && isfinite(bound) && diff <= bound) {
          if (diff > max_diff) max_diff = diff;
          continue;
        }
        if (bound > 0 && !isfinite(bound)) {
          /* no bound to judge the difference by: neither "differs" nor
           * "verified" would be true */
          shard_buf_printf(notes,
                           "@%s: not verified (result #%u went through an op without a rounding bound after a "
                           "float sum across devices; device %lld gives ",
                           name, r, (long long)k);
          print_elem(notes, l, i);
          shard_buf_puts(notes, " at global index ");
          print_index(notes, gi, rt->results[r]);
          shard_buf_puts(notes, ", the global program ");
          print_elem(notes, g, gi);
          shard_buf_puts(notes, ")\n");
          free(covered);
          outcome = FN_SKIPPED;
          goto done;
        }
        shard_buf msg;
        shard_buf_init(&msg);
        shard_buf_printf(&msg, "--verify: result #%u of @%s differs on device %lld at global index ", r, name,
                         (long long)k);
        print_index(&msg, gi, rt->results[r]);
        shard_buf_puts(&msg, " (local ");
        print_index(&msg, i, lt->results[r]);
        shard_buf_puts(&msg, "): the per-device program gives ");
        print_elem(&msg, l, i);
        shard_buf_puts(&msg, ", the global program ");
        print_elem(&msg, g, gi);
        if (bound > 0 && isfinite(bound))
          shard_buf_printf(&msg,
                           " (a difference of %.9g, beyond the rounding bound %.9g of its float sums across devices)",
                           diff, bound);
        else shard_buf_puts(&msg, " (compared bit-exactly)");
        shard_error(de, rfn->span, "%s", shard_buf_str(&msg));
        shard_buf_free(&msg);
        free(covered);
        goto done;
      }
    }
    for (int64_t gi = 0; gi < g->num; gi++)
      if (!covered[gi]) {
        shard_buf msg;
        shard_buf_init(&msg);
        print_index(&msg, gi, rt->results[r]);
        shard_error(de, rfn->span, "--verify: no device holds element %s of result #%u of @%s", shard_buf_str(&msg), r,
                    name);
        shard_buf_free(&msg);
        free(covered);
        goto done;
      }
    free(covered);
    if (!bounded) shard_buf_printf(notes, "@%s: result #%u: bit-exact on every device\n", name, r);
    else if (max_diff == 0)
      shard_buf_printf(notes,
                       "@%s: result #%u: bit-exact on every device (its float sums across devices would have been "
                       "allowed a rounding difference of up to %.9g)\n",
                       name, r, max_bound);
    else
      shard_buf_printf(notes,
                       "@%s: result #%u: within the rounding bound of its float sums across devices: largest "
                       "difference %.9g, largest bound %.9g\n",
                       name, r, max_diff, max_bound);
  }
  outcome = FN_OK;
done:
  if (run) shard_module_free(run);
  shard_buf_free(&drv);
  shard_arena_free(a);
  return outcome;
}

bool cli_lower_verify(shard_module *ref, shard_module *sharded, shard_module *local, int64_t max_steps,
                      shard_diag_engine *de, shard_buf *notes, unsigned *num_verified) {
  *num_verified = 0;
  shard_interp_options iopts = {.max_steps = max_steps, .track_rounding = true};
  strip_annotations(ref);
  bool ok = true;
  shard_block *top = local->top->regions[0].first;
  for (shard_op *op = top ? top->first : NULL; op; op = op->next) {
    if (strcmp(op->name, "func.func") != 0 || op->num_regions == 0 || !op->regions[0].first) continue;
    fn_outcome r = verify_func(ref, sharded, local, op, &iopts, de, notes);
    if (r == FN_OK) ++*num_verified;
    if (r == FN_FAILED) ok = false;
  }
  return ok;
}
