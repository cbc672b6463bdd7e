/* Small export passes:
 *
 *  -sdy-drop-sharding-rules      removes every `sdy.sharding_rule` that is
 *      not a custom rule;
 *  -sdy-constant-or-scalar-merger  the inverse of the constant splitter: a
 *      constant identical (same attributes, shardings included) to an
 *      earlier one in the same region is replaced by it, and likewise a
 *      broadcast_in_dim of the same scalar to the same type;
 *  -sdy-remove-all-gather-reduce-scatter-for-cmv1  drops an all_gather
 *      feeding a dot (when it has no other user) and otherwise a
 *      reduce_scatter consuming a dot's only result, whose sharding the
 *      dot then takes;
 *  -sdy-verify-unreduced-axes    checks, per func, that no op drops
 *      unreduced axes without a blessed op (reshard, sharding_constraint,
 *      reductions with the right reduction) and that calls and returns
 *      keep them, reporting Shardy's messages;
 *  -sdy-resolve-single-device-sharding  runs each op pinned to one device
 *      (a result sharded on a maximal mesh) inside a stablehlo.if on that
 *      device (zeros elsewhere) followed by an all_reduce over the global
 *      mesh, so every device ends with the value. */
#include <stdlib.h>
#include <string.h>

#include "export/export_pipeline.h"
#include "ir/call_graph.h"
#include "ir/clone.h"
#include "pass/pass.h"
#include "pass/pass_shardings.h"
#include "propagate/propagate.h"
#include "sdy/sharding.h"
#include "support/strmap.h"

typedef SHARD_VEC(shard_op *) op_vec;

/* The op names this file tests, compared by definition (ir.h). */
static shard_op_name K_func_call = {"func.call", NULL};
static shard_op_name K_func_func = {"func.func", NULL};
static shard_op_name K_func_return = {"func.return", NULL};
static shard_op_name K_sdy_all_gather = {"sdy.all_gather", NULL};
static shard_op_name K_sdy_all_reduce = {"sdy.all_reduce", NULL};
static shard_op_name K_sdy_constant = {"sdy.constant", NULL};
static shard_op_name K_sdy_manual_computation = {"sdy.manual_computation", NULL};
static shard_op_name K_sdy_mesh = {"sdy.mesh", NULL};
static shard_op_name K_sdy_propagation_barrier = {"sdy.propagation_barrier", NULL};
static shard_op_name K_sdy_reduce_scatter = {"sdy.reduce_scatter", NULL};
static shard_op_name K_sdy_reshard = {"sdy.reshard", NULL};
static shard_op_name K_sdy_return = {"sdy.return", NULL};
static shard_op_name K_sdy_sharding_constraint = {"sdy.sharding_constraint", NULL};
static shard_op_name K_stablehlo_add = {"stablehlo.add", NULL};
static shard_op_name K_stablehlo_all_reduce = {"stablehlo.all_reduce", NULL};
static shard_op_name K_stablehlo_broadcast_in_dim = {"stablehlo.broadcast_in_dim", NULL};
static shard_op_name K_stablehlo_constant = {"stablehlo.constant", NULL};
static shard_op_name K_stablehlo_dot = {"stablehlo.dot", NULL};
static shard_op_name K_stablehlo_dot_general = {"stablehlo.dot_general", NULL};
static shard_op_name K_stablehlo_maximum = {"stablehlo.maximum", NULL};
static shard_op_name K_stablehlo_minimum = {"stablehlo.minimum", NULL};
static shard_op_name K_stablehlo_reduce = {"stablehlo.reduce", NULL};
static shard_op_name K_stablehlo_reduce_scatter = {"stablehlo.reduce_scatter", NULL};
static shard_op_name K_stablehlo_return = {"stablehlo.return", NULL};

static bool S_collect_all(shard_op *op, void *ctx) {
  SHARD_VEC_PUSH(*(op_vec *)ctx, op);
  return true;
}

/* ---- -sdy-drop-sharding-rules ----------------------------------------------- */

/* Removing an attribute leaves the ops where they are, so this runs in the
 * walk (no list of every op). */
static bool S_drop_rule(shard_op *op, void *ctx) {
  (void)ctx;
  const shard_attr *r = shard_op_attr(op, "sdy.sharding_rule");
  if (r && r->kind == SHARD_ATTR_SDY_RULE && !r->u.rule->is_custom) shard_op_remove_attr(op, "sdy.sharding_rule");
  return true;
}

bool shard_pass_drop_sharding_rules(shard_module *m, const char *options, const shard_pass_context *cx) {
  shard_walk(m->top, S_drop_rule, NULL);
  return true;
}

/* ---- -sdy-constant-or-scalar-merger ------------------------------------------ */

static bool S_is_constant(const shard_op *op) {
  return shard_op_is(op, &K_stablehlo_constant) || shard_op_is(op, &K_sdy_constant);
}

static bool S_is_scalar_broadcast(const shard_op *op) {
  if (!shard_op_is(op, &K_stablehlo_broadcast_in_dim) || op->num_operands != 1 || op->num_results != 1) return false;
  const shard_type *t = op->operands[0].value->type;
  return t && t->kind == SHARD_TYPE_TENSOR && t->rank == 0;
}

/* What makes two ops the same for the merger, as one text: the region they
 * are in, whether a constant, their attributes (printed, which is canonical:
 * attribute equality is print equality) and, for a scalar broadcast, its
 * result type and operand. The op name is not part of the key, as in Shardy.
 * Keyed by this text the pass is linear in the ops (a list of the constants
 * seen was scanned for each one). */
static void S_merge_key(shard_buf *b, const shard_op *op, bool constant) {
  shard_buf_clear(b);
  const shard_region *region = op->parent ? op->parent->parent : NULL;
  shard_buf_putn(b, (const char *)&region, sizeof region);
  shard_buf_putc(b, constant ? 'c' : 'b');
  for (uint32_t i = 0; i < op->num_attrs; i++) {
    shard_buf_puts(b, op->attrs[i].name);
    shard_buf_putc(b, '=');
    shard_attr_print(b, op->attrs[i].value);
    shard_buf_putc(b, '\0');
  }
  if (!constant) {
    shard_type_print(b, op->results[0].type);
    const shard_value *operand = op->operands[0].value;
    shard_buf_putn(b, (const char *)&operand, sizeof operand);
  }
}

/* The ops the merger may take (constants and broadcasts), in pre-order:
 * the test of each is made when it is reached, as before. */
static bool S_collect_merge_candidates(shard_op *op, void *ctx) {
  if (S_is_constant(op) || shard_op_is(op, &K_stablehlo_broadcast_in_dim)) SHARD_VEC_PUSH(*(op_vec *)ctx, op);
  return true;
}

bool shard_pass_constant_or_scalar_merger(shard_module *m, const char *options, const shard_pass_context *cx) {
  op_vec ops = {0};
  shard_walk(m->top, S_collect_merge_candidates, &ops);
  shard_arena *keys = shard_arena_new();
  shard_strmap seen = {0};
  shard_buf key;
  shard_buf_init(&key);
  for (uint32_t i = 0; i < ops.len; i++) {
    shard_op *op = ops.items[i];
    bool constant = S_is_constant(op);
    if (!constant && !S_is_scalar_broadcast(op)) continue;
    S_merge_key(&key, op, constant);
    shard_op *c = shard_strmap_get(&seen, shard_buf_str(&key), key.len);
    if (!c) {
      shard_strmap_put(&seen, shard_arena_dup(keys, shard_buf_str(&key), key.len), key.len, op);
      continue;
    }
    for (uint32_t r = 0; r < op->num_results && r < c->num_results; r++)
      shard_value_replace_all_uses(&op->results[r], &c->results[r]);
    shard_op_erase(op);
  }
  shard_buf_free(&key);
  shard_strmap_release(&seen);
  shard_arena_free(keys);
  SHARD_VEC_FREE(ops);
  return true;
}

/* ---- -sdy-remove-all-gather-reduce-scatter-for-cmv1 --------------------------- */

static uint32_t S_op_num_uses(const shard_op *op) {
  uint32_t n = 0;
  for (uint32_t i = 0; i < op->num_results; i++) n += shard_value_num_uses(&op->results[i]);
  return n;
}

static shard_op *S_only_user(const shard_op *op) {
  if (S_op_num_uses(op) != 1) return NULL;
  for (uint32_t i = 0; i < op->num_results; i++)
    if (op->results[i].first_use) return op->results[i].first_use->owner;
  return NULL;
}

bool shard_pass_remove_all_gather_reduce_scatter_for_cmv1(shard_module *m, const char *options,
                                                          const shard_pass_context *cx) {
  op_vec ops = {0}, doomed = {0};
  shard_walk(m->top, S_collect_all, &ops);
  for (uint32_t i = 0; i < ops.len; i++) {
    shard_op *dot = ops.items[i];
    if (!shard_op_is(dot, &K_stablehlo_dot) && !shard_op_is(dot, &K_stablehlo_dot_general)) continue;
    bool gathered = false;
    for (uint32_t k = 0; k < dot->num_operands; k++) {
      shard_op *def = dot->operands[k].value->def;
      if (def && shard_op_is(def, &K_sdy_all_gather) && S_op_num_uses(def) == 1) {
        SHARD_VEC_PUSH(doomed, def);
        gathered = true;
      }
    }
    /* With a gathered operand the reduce-scatter of the result stays. */
    if (gathered || !dot->num_results) continue;
    shard_op *user = S_only_user(dot);
    if (!user || !shard_op_is(user, &K_sdy_reduce_scatter)) continue;
    shard_tensor_sharding *cur = shard_value_sharding(&dot->results[0]);
    if (cur && cur->num_unreduced) continue;
    shard_tensor_sharding *rs = shard_propagation_value_sharding(m->arena, &user->results[0]);
    if (!rs) continue;
    shard_op_set_attr(m->arena, dot, "sdy.sharding", shard_attr_per_value(m->arena, rs, 1), false);
    SHARD_VEC_PUSH(doomed, user);
  }
  for (uint32_t i = 0; i < doomed.len; i++) {
    shard_op *op = doomed.items[i];
    if (!op->parent) continue; /* listed twice */
    shard_value_replace_all_uses(&op->results[0], op->operands[0].value);
    shard_op_erase(op);
  }
  SHARD_VEC_FREE(ops);
  SHARD_VEC_FREE(doomed);
  return true;
}

/* ---- -sdy-verify-unreduced-axes ------------------------------------------------ */

typedef SHARD_VEC(shard_axis_ref) axis_vec;

typedef struct unreduced_check {
  shard_module *m;
  shard_diag_engine *de;
  /* the shardings and lists one op's check reads (a manual computation's
   * block arguments' without the manual axes), reset before the next op:
   * the pass only reads the module */
  shard_arena *tmp;
} unreduced_check;

static shard_tensor_sharding *S_sharding_past_barriers(const unreduced_check *c, shard_value *v) {
  while (v->def && shard_op_is(v->def, &K_sdy_propagation_barrier) && v->def->num_operands)
    v = v->def->operands[0].value;
  return shard_propagation_value_sharding(c->tmp, v);
}

static bool S_from_explicit_reshard(shard_value *v) {
  while (v->def && shard_op_is(v->def, &K_sdy_propagation_barrier) && v->def->num_operands)
    v = v->def->operands[0].value;
  return v->def && (shard_op_is(v->def, &K_sdy_reshard) || shard_op_is(v->def, &K_sdy_sharding_constraint));
}

/* The multiplicative range [lo, hi) of the axis a ref covers. */
static void S_axis_span(const shard_axis_ref *r, const shard_mesh *mesh, int64_t *lo, int64_t *hi) {
  int64_t pre, size;
  shard_axis_range(r, mesh, &pre, &size);
  *lo = pre;
  *hi = pre * size;
}

/* The ref of `name` covering [lo, hi), as a full axis when it covers it all. */
static shard_axis_ref S_axis_piece(const char *name, int64_t lo, int64_t hi, const shard_mesh *mesh) {
  shard_axis_ref r = {name, false, 0, 0};
  int64_t full = mesh ? shard_mesh_axis_size(mesh, name) : -1;
  if (!(lo == 1 && hi == full)) {
    r.is_sub = true;
    r.pre_size = lo;
    r.size = hi / lo;
  }
  return r;
}

static bool S_axes_overlap(const shard_axis_ref *a, const shard_axis_ref *b, const shard_mesh *mesh) {
  if (strcmp(a->name, b->name) != 0) return false;
  int64_t alo, ahi, blo, bhi;
  S_axis_span(a, mesh, &alo, &ahi);
  S_axis_span(b, mesh, &blo, &bhi);
  return (alo > blo ? alo : blo) < (ahi < bhi ? ahi : bhi);
}

/* Shardy's getAxisSetDiff: the parts of the axes in `a` that no axis of `b` covers. */
static axis_vec S_axis_diff(const axis_vec *a, const axis_vec *b, const shard_mesh *mesh) {
  axis_vec out = {0};
  for (uint32_t i = 0; i < a->len; i++) {
    shard_axis_ref cur = a->items[i];
    bool live = true;
    while (live) {
      const shard_axis_ref *hit = NULL;
      for (uint32_t k = 0; k < b->len; k++)
        if (S_axes_overlap(&cur, &b->items[k], mesh) && (!hit || shard_axis_compare(&b->items[k], hit, mesh) < 0))
          hit = &b->items[k];
      if (!hit) {
        SHARD_VEC_PUSH(out, cur);
        break;
      }
      int64_t lo, hi, blo, bhi;
      S_axis_span(&cur, mesh, &lo, &hi);
      S_axis_span(hit, mesh, &blo, &bhi);
      if (lo < blo) SHARD_VEC_PUSH(out, S_axis_piece(cur.name, lo, blo, mesh));
      live = hi > bhi;
      if (live) cur = S_axis_piece(cur.name, bhi, hi, mesh);
    }
  }
  return out;
}

static void S_append_unreduced(axis_vec *v, const shard_tensor_sharding *s) {
  for (uint32_t i = 0; s && i < s->num_unreduced; i++) SHARD_VEC_PUSH(*v, s->unreduced[i]);
}

static bool S_any_overlap(const shard_tensor_sharding *s, const axis_vec *axes, const shard_mesh *mesh) {
  for (uint32_t i = 0; i < s->num_unreduced; i++)
    for (uint32_t k = 0; k < axes->len; k++)
      if (S_axes_overlap(&s->unreduced[i], &axes->items[k], mesh)) return true;
  return false;
}

#define NO_REDUCTION (-1)

/* Shardy's verifyUnreducedAxesTransition over the op's operand and result
 * shardings (NULL entries count as none). `introduce`/`remove` are the
 * reductions allowed for new or dropped unreduced axes, NO_REDUCTION when
 * that transition is not allowed at all. */
static bool S_check_transition(unreduced_check *c, const shard_op *op, shard_tensor_sharding **ins, uint32_t nin,
                               shard_tensor_sharding **outs, uint32_t nout, int introduce, int remove) {
  /* Without unreduced axes on either side nothing is introduced or removed:
   * the usual case, spared the mesh lookups and axis lists below. */
  bool any_unreduced = false;
  for (uint32_t i = 0; i < nin + nout && !any_unreduced; i++) {
    const shard_tensor_sharding *s = i < nin ? ins[i] : outs[i - nin];
    any_unreduced = s && s->num_unreduced;
  }
  if (!any_unreduced) return true;
  const shard_mesh *mesh = NULL;
  for (uint32_t i = 0; i < nin + nout; i++) {
    const shard_tensor_sharding *s = i < nin ? ins[i] : outs[i - nin];
    const shard_mesh *cur = s ? shard_sharding_mesh(c->m, s) : NULL;
    if (!cur) continue;
    if (!mesh) mesh = cur;
    else if (mesh != cur && !shard_mesh_equal(mesh, cur)) return true;
  }
  axis_vec in_axes = {0}, out_axes = {0};
  for (uint32_t i = 0; i < nin; i++) S_append_unreduced(&in_axes, ins[i]);
  for (uint32_t i = 0; i < nout; i++) S_append_unreduced(&out_axes, outs[i]);
  axis_vec introduced = S_axis_diff(&out_axes, &in_axes, mesh);
  axis_vec removed = S_axis_diff(&in_axes, &out_axes, mesh);
  bool ok = true;
  if (introduced.len) {
    if (introduce == NO_REDUCTION) {
      shard_error(c->de, op->span, "'%s' op cannot add new unreduced axis '%s'.", op->name, introduced.items[0].name);
      ok = false;
    }
    for (uint32_t i = 0; ok && i < nout; i++)
      if (outs[i] && S_any_overlap(outs[i], &introduced, mesh) && (int)outs[i]->reduction != introduce) {
        shard_error(c->de, op->span, "'%s' op cannot introduce '%s' unreduced axes. Expected '%s'.", op->name,
                    shard_reduction_name(outs[i]->reduction), shard_reduction_name((shard_reduction)introduce));
        ok = false;
      }
  }
  if (ok && removed.len) {
    if (remove == NO_REDUCTION) {
      shard_error(c->de, op->span,
                  "'%s' op dropped unreduced axis '%s' without a blessed operation (e.g., "
                  "sdy.reshard). This is an invalid transition from unreduced to reduced.",
                  op->name, removed.items[0].name);
      ok = false;
    }
    for (uint32_t i = 0; ok && i < nin; i++)
      if (ins[i] && S_any_overlap(ins[i], &removed, mesh) && (int)ins[i]->reduction != remove) {
        shard_error(c->de, op->span, "'%s' op cannot reduce '%s' unreduced axes. Expected '%s'.", op->name,
                    shard_reduction_name(ins[i]->reduction), shard_reduction_name((shard_reduction)remove));
        ok = false;
      }
  }
  for (uint32_t r = 0; ok && r < nout; r++) {
    if (!outs[r]) continue;
    for (uint32_t ra = 0; ok && ra < outs[r]->num_unreduced; ra++)
      for (uint32_t i = 0; ok && i < nin; i++) {
        if (!ins[i]) continue;
        for (uint32_t ia = 0; ok && ia < ins[i]->num_unreduced; ia++)
          if (S_axes_overlap(&ins[i]->unreduced[ia], &outs[r]->unreduced[ra], mesh) &&
              ins[i]->reduction != outs[r]->reduction) {
            shard_error(c->de, op->span,
                        "'%s' op cannot change the reduction operator of kept unreduced axes "
                        "from %s to %s.",
                        op->name, shard_reduction_name(ins[i]->reduction), shard_reduction_name(outs[r]->reduction));
            ok = false;
          }
      }
  }
  SHARD_VEC_FREE(in_axes);
  SHARD_VEC_FREE(out_axes);
  SHARD_VEC_FREE(introduced);
  SHARD_VEC_FREE(removed);
  return ok;
}

static bool S_contains_axis(const shard_axis_ref *axes, uint32_t n, const shard_axis_ref *r) {
  for (uint32_t i = 0; i < n; i++)
    if (shard_axis_equal(&axes[i], r)) return true;
  return false;
}

static int S_compare_names(const void *a, const void *b) {
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Shardy's verifyEqual: the same unreduced axes as sets, else an error
 * naming the axes only one side has. */
static bool S_check_equal(unreduced_check *c, const shard_op *op, const shard_tensor_sharding *src,
                          const shard_tensor_sharding *tgt, const char *what, uint32_t index, const char *tail) {
  uint32_t ns = src ? src->num_unreduced : 0, nt = tgt ? tgt->num_unreduced : 0;
  const shard_axis_ref *sa = ns ? src->unreduced : NULL, *ta = nt ? tgt->unreduced : NULL;
  bool same = true;
  for (uint32_t i = 0; i < ns && same; i++) same = S_contains_axis(ta, nt, &sa[i]);
  for (uint32_t i = 0; i < nt && same; i++) same = S_contains_axis(sa, ns, &ta[i]);
  if (same) return true;
  const char **names = shard_xmalloc(sizeof(char *) * (ns + nt + 1));
  uint32_t n = 0;
  for (uint32_t i = 0; i < ns; i++)
    if (!S_contains_axis(ta, nt, &sa[i])) names[n++] = sa[i].name;
  for (uint32_t i = 0; i < nt; i++)
    if (!S_contains_axis(sa, ns, &ta[i])) names[n++] = ta[i].name;
  qsort(names, n, sizeof(char *), S_compare_names);
  shard_buf b = {0};
  for (uint32_t i = 0; i < n; i++) {
    if (i && strcmp(names[i], names[i - 1]) == 0) continue;
    if (b.len) shard_buf_puts(&b, ", ");
    shard_buf_puts(&b, names[i]);
  }
  shard_error(c->de, op->span, "'%s' op has unreduced axes mismatch for '%s' at %s %u%s", op->name, b.len ? b.data : "",
              what, index, tail);
  shard_buf_free(&b);
  free(names);
  return false;
}

static bool S_check_call(unreduced_check *c, shard_op *call) {
  shard_op *callee = shard_call_callee_func(c->m, call);
  if (!callee || !shard_op_is(callee, &K_func_func)) return true;
  for (uint32_t i = 0; i < call->num_operands; i++) {
    shard_value *v = call->operands[i].value;
    if (S_from_explicit_reshard(v)) continue;
    if (!S_check_equal(c, call, S_sharding_past_barriers(c, v), shard_func_arg_sharding(callee, i), "call argument", i,
                       "."))
      return false;
  }
  for (uint32_t i = 0; i < call->num_results; i++)
    if (!S_check_equal(c, call, shard_func_result_sharding(callee, i), S_sharding_past_barriers(c, &call->results[i]),
                       "call result", i, "."))
      return false;
  return true;
}

static bool S_check_return_pair(unreduced_check *c, shard_op *op, shard_value *v, const shard_tensor_sharding *result,
                                uint32_t i) {
  if (S_from_explicit_reshard(v) || !result) return true;
  return S_check_equal(c, op, S_sharding_past_barriers(c, v), result, "return value", i,
                       " without a blessed operation (e.g., sdy.reshard). This is an invalid "
                       "transition from unreduced to reduced.");
}

static bool S_check_terminator(unreduced_check *c, shard_op *op) {
  shard_op *parent = shard_op_parent_op(op);
  if (!parent) return true;
  if (shard_op_is(parent, &K_func_func)) {
    for (uint32_t i = 0; i < op->num_operands; i++)
      if (!S_check_return_pair(c, op, op->operands[i].value, shard_func_result_sharding(parent, i), i)) return false;
    return true;
  }
  for (uint32_t i = 0; i < op->num_operands && i < parent->num_results; i++) {
    shard_tensor_sharding *s = S_sharding_past_barriers(c, &parent->results[i]);
    if (shard_op_is(parent, &K_sdy_manual_computation))
      s = shard_sharding_erase_manual(c->tmp, s, shard_op_attr(parent, "manual_axes"));
    if (!S_check_return_pair(c, op, op->operands[i].value, s, i)) return false;
  }
  return true;
}

/* The reduction a reduce-like body computes (all returned values made by
 * the same add/max/min), or NO_REDUCTION. */
static int S_body_reduction(const shard_op *op) {
  if (!op->num_regions || !op->regions[0].first) return NO_REDUCTION;
  shard_op *ret = op->regions[0].first->last;
  if (!ret || !shard_op_is(ret, &K_stablehlo_return) || !ret->num_operands) return NO_REDUCTION;
  int red = NO_REDUCTION;
  for (uint32_t i = 0; i < ret->num_operands; i++) {
    shard_op *def = ret->operands[i].value->def;
    int cur = !def                                     ? NO_REDUCTION
              : shard_op_is(def, &K_stablehlo_add)     ? SHARD_RED_SUM
              : shard_op_is(def, &K_stablehlo_maximum) ? SHARD_RED_MAX
              : shard_op_is(def, &K_stablehlo_minimum) ? SHARD_RED_MIN
                                                       : NO_REDUCTION;
    if (cur == NO_REDUCTION || (red != NO_REDUCTION && red != cur)) return NO_REDUCTION;
    red = cur;
  }
  return red;
}

static bool S_is_terminator(const shard_op *op) {
  return !op->next && op->parent && op->parent->parent && op->parent->parent->parent &&
         (strstr(op->name, ".return") || strstr(op->name, ".yield"));
}

/* Of the terminators, only func.return and sdy.return are ReturnLike
 * (stablehlo.return is not), so only they are checked. */
static bool S_is_return_like(const shard_op *op) {
  return shard_op_is(op, &K_func_return) || shard_op_is(op, &K_sdy_return);
}

/* Operand and result shardings of `op`; operands made by an explicit reshard
 * count as unsharded. `n` operands are taken from the front. */
static bool S_check_op(unreduced_check *c, shard_op *op, uint32_t n, int introduce, int remove) {
  shard_tensor_sharding **ins = SHARD_NEW_ARRAY(c->tmp, shard_tensor_sharding *, n + 1);
  for (uint32_t i = 0; i < n; i++) {
    shard_value *v = op->operands[i].value;
    ins[i] = S_from_explicit_reshard(v) ? NULL : S_sharding_past_barriers(c, v);
  }
  shard_tensor_sharding **outs = SHARD_NEW_ARRAY(c->tmp, shard_tensor_sharding *, op->num_results + 1);
  for (uint32_t i = 0; i < op->num_results; i++) outs[i] = S_sharding_past_barriers(c, &op->results[i]);
  return S_check_transition(c, op, ins, n, outs, op->num_results, introduce, remove);
}

static bool S_check_unreduced(unreduced_check *c, shard_op *op) {
  if (shard_op_is(op, &K_sdy_reshard) || shard_op_is(op, &K_sdy_sharding_constraint))
    return true; /* the op verifier's job */
  if (shard_op_is(op, &K_stablehlo_reduce)) {
    /* Inputs are the first half of the operands (then the init values). */
    return S_check_op(c, op, op->num_operands / 2, S_body_reduction(op), NO_REDUCTION);
  }
  if (shard_op_is(op, &K_stablehlo_dot) || shard_op_is(op, &K_stablehlo_dot_general))
    return S_check_op(c, op, op->num_operands, SHARD_RED_SUM, NO_REDUCTION);
  if (shard_op_is(op, &K_sdy_all_reduce) || shard_op_is(op, &K_sdy_reduce_scatter)) {
    if (op->num_operands && !S_sharding_past_barriers(c, op->operands[0].value)) {
      shard_error(c->de, op->span, "'%s' op operand must be sharded.", op->name);
      return false;
    }
    return true;
  }
  if (shard_op_is(op, &K_stablehlo_all_reduce) || shard_op_is(op, &K_stablehlo_reduce_scatter)) {
    if (!op->num_operands || !op->num_results) return true;
    shard_tensor_sharding *in = S_sharding_past_barriers(c, op->operands[0].value);
    shard_tensor_sharding *out = S_sharding_past_barriers(c, &op->results[0]);
    if (!in && !out) return true;
    return S_check_transition(c, op, &in, 1, &out, 1, NO_REDUCTION, S_body_reduction(op));
  }
  if (shard_op_is(op, &K_func_call)) return S_check_call(c, op);
  if (S_is_terminator(op)) return !S_is_return_like(op) || S_check_terminator(c, op);
  return S_check_op(c, op, op->num_operands, SHARD_RED_SUM, NO_REDUCTION);
}

/* The one check that does not compare unreduced axes: an sdy.all_reduce or
 * sdy.reduce_scatter needs a sharded operand. */
static bool S_check_collective_operand(unreduced_check *c, shard_op *op) {
  if (!shard_op_is(op, &K_sdy_all_reduce) && !shard_op_is(op, &K_sdy_reduce_scatter)) return true;
  if (op->num_operands && !S_sharding_past_barriers(c, op->operands[0].value)) {
    shard_error(c->de, op->span, "'%s' op operand must be sharded.", op->name);
    return false;
  }
  return true;
}

/* Post-order, as MLIR's default walk; stops at the first failure. Without
 * unreduced axes anywhere (`any_unreduced` false) every transition and
 * every equality check passes, so only the collectives' operands are
 * checked: the same first failure, without reading the shardings of every
 * operand and result. */
static bool S_walk_unreduced(unreduced_check *c, shard_op *op, bool any_unreduced) {
  for (uint32_t r = 0; r < op->num_regions; r++)
    for (shard_block *b = op->regions[r].first; b; b = b->next)
      for (shard_op *o = b->first; o; o = o->next)
        if (!S_walk_unreduced(c, o, any_unreduced)) return false;
  if (!any_unreduced) return !op->def || S_check_collective_operand(c, op);
  shard_arena_reset(c->tmp);
  return S_check_unreduced(c, op);
}

/* Does `a` (at any depth of arrays and dictionaries) hold a sharding with
 * unreduced axes? */
static bool S_attr_has_unreduced(const shard_attr *a) {
  if (!a) return false;
  switch (a->kind) {
  case SHARD_ATTR_SDY_SHARDING: return a->u.sharding->num_unreduced != 0;
  case SHARD_ATTR_SDY_PER_VALUE:
    for (uint32_t i = 0; i < a->u.per_value->num; i++)
      if (a->u.per_value->shardings[i].num_unreduced) return true;
    return false;
  case SHARD_ATTR_ARRAY:
    for (uint32_t i = 0; i < a->u.array.num; i++)
      if (S_attr_has_unreduced(a->u.array.elems[i])) return true;
    return false;
  case SHARD_ATTR_DICT:
    for (uint32_t i = 0; i < a->u.dict.num; i++)
      if (S_attr_has_unreduced(a->u.dict.entries[i].value)) return true;
    return false;
  default: return false;
  }
}

/* Walk callback: stops (returns false) at the first op whose attributes or
 * block arguments' attributes hold unreduced axes. Every sharding the checks
 * read is one of these (value shardings live in op attributes and in
 * function arguments' attributes). Notes in *ctx (a bool) whether an op
 * S_check_collective_operand checks was seen. */
static bool S_op_lacks_unreduced(shard_op *op, void *ctx) {
  if (shard_op_is(op, &K_sdy_all_reduce) || shard_op_is(op, &K_sdy_reduce_scatter)) *(bool *)ctx = true;
  for (uint32_t i = 0; i < op->num_attrs; i++)
    if (S_attr_has_unreduced(op->attrs[i].value)) return false;
  for (uint32_t r = 0; r < op->num_regions; r++)
    for (shard_block *b = op->regions[r].first; b; b = b->next)
      for (uint32_t k = 0; k < b->num_args; k++)
        for (uint32_t i = 0; i < b->arg_info[k].num_attrs; i++)
          if (S_attr_has_unreduced(b->arg_info[k].attrs[i].value)) return false;
  return true;
}

bool shard_export_verify_unreduced_axes(shard_module *m, bool *any_unreduced_out, const shard_pass_context *cx) {
  shard_diag_engine *de = cx->de;
  unreduced_check c = {m, de, shard_arena_new()};
  bool ok = true;
  shard_block *body = m->top->num_regions ? m->top->regions[0].first : NULL;
  bool any_collective = false;
  bool any_unreduced = !shard_walk(m->top, S_op_lacks_unreduced, &any_collective);
  *any_unreduced_out = any_unreduced;
  /* Without unreduced axes only the collectives can fail. */
  if (!any_unreduced && !any_collective) body = NULL;
  for (shard_op *func = body ? body->first : NULL; func; func = func->next)
    if (shard_op_is(func, &K_func_func) && !S_walk_unreduced(&c, func, any_unreduced)) ok = false;
  shard_arena_free(c.tmp);
  return ok;
}

bool shard_pass_verify_unreduced_axes(shard_module *m, const char *options, const shard_pass_context *cx) {
  bool any_unreduced;
  return shard_export_verify_unreduced_axes(m, &any_unreduced, cx);
}

/* ---- -sdy-resolve-single-device-sharding ----------------------------------------- */

/* The device of a sharding on a maximal mesh (<[], device_ids=[d]>), or -1. */
static int64_t S_single_device(const shard_module *m, const shard_tensor_sharding *s) {
  const shard_mesh *mesh = s ? shard_sharding_mesh(m, s) : NULL;
  if (!mesh || !shard_mesh_is_maximal(mesh) || !mesh->num_device_ids) return -1;
  return mesh->device_ids[0];
}

/* The device a non-sdy op is pinned to by one of its result shardings, or -1. */
static int64_t S_op_single_device(const shard_module *m, const shard_op *op) {
  int64_t device = -1;
  for (uint32_t i = 0; i < op->num_results; i++) {
    if (op->results[i].type->kind != SHARD_TYPE_TENSOR) continue;
    int64_t d = S_single_device(m, shard_value_sharding(&op->results[i]));
    if (d >= 0 && device < 0) device = d;
  }
  return device;
}

static shard_op *S_new_before(shard_arena *a, shard_op *pos, const char *name, uint32_t nin, shard_value **in,
                              shard_type *result) {
  shard_op *op = shard_op_new_named(a, name, nin, in, result ? 1 : 0, &result, 0);
  op->loc = pos->loc;
  op->span = pos->span;
  shard_op_insert_before(pos, op);
  return op;
}

/* stablehlo.constant dense<text> : type */
static shard_op *S_constant(shard_arena *a, shard_type *type, const char *text) {
  shard_op *c = shard_op_new_named(a, "stablehlo.constant", 0, NULL, 1, &type, 0);
  shard_attr *v = shard_attr_new(a, SHARD_ATTR_DENSE);
  v->u.dense.payload = text;
  v->u.dense.type = type;
  shard_op_set_attr(a, c, "value", v, true);
  return c;
}

/* MLIR's zero attribute text for an element type. */
static const char *S_zero_text(const char *elem) {
  if (strcmp(elem, "i1") == 0) return "false";
  if (strncmp(elem, "complex<", 8) == 0) return "(0.000000e+00,0.000000e+00)";
  if (elem[0] == 'f' || strncmp(elem, "bf", 2) == 0 || strncmp(elem, "tf", 2) == 0) return "0.000000e+00";
  return "0";
}

/* partition_id (replica_id with replicas) as an i64 scalar == device. */
static shard_value *S_device_guard(shard_arena *a, shard_op *pos, int64_t device, long long replicas) {
  shard_type *u32 = shard_type_tensor(a, 0, NULL, "ui32", NULL);
  shard_type *i64 = shard_type_tensor(a, 0, NULL, "i64", NULL);
  shard_op *id = S_new_before(a, pos, replicas > 1 ? "stablehlo.replica_id" : "stablehlo.partition_id", 0, NULL, u32);
  shard_value *idv = &id->results[0];
  shard_op *conv = S_new_before(a, pos, "stablehlo.convert", 1, &idv, i64);
  shard_op *target = S_constant(a, i64, shard_arena_printf(a, "%lld", (long long)device));
  target->loc = pos->loc;
  shard_op_insert_before(pos, target);
  shard_value *cmp_in[2] = {&conv->results[0], &target->results[0]};
  shard_op *cmp = S_new_before(a, pos, "stablehlo.compare", 2, cmp_in, shard_type_tensor(a, 0, NULL, "i1", NULL));
  shard_op_set_attr(a, cmp, "comparison_direction",
                    shard_attr_shlo_enum(a, SHARD_SHLO_COMPARISON_DIRECTION, SHARD_CMP_EQ), true);
  return &cmp->results[0];
}

static void S_resolve_single_device(shard_module *m, shard_op *op, const shard_op *mesh_op, long long replicas) {
  shard_arena *a = m->arena;
  int64_t device = S_op_single_device(m, op);
  shard_value *guard = S_device_guard(a, op, device, replicas);
  shard_type **types = SHARD_NEW_ARRAY(a, shard_type *, op->num_results + 1);
  for (uint32_t i = 0; i < op->num_results; i++) types[i] = op->results[i].type;
  shard_op *branch = shard_op_new_named(a, "stablehlo.if", 1, &guard, op->num_results, types, 2);
  branch->loc = op->loc;
  branch->span = op->span;
  shard_op_insert_before(op, branch);

  /* True branch: the op itself, reading past single-device reshards. */
  shard_block *then_block = shard_region_add_block(a, &branch->regions[0]);
  shard_op *copy = shard_op_clone(a, op, NULL);
  shard_op_remove_attr(copy, "sdy.sharding");
  op_vec reshards = {0};
  for (uint32_t i = 0; i < copy->num_operands; i++) {
    shard_op *def = copy->operands[i].value->def;
    if (def && shard_op_is(def, &K_sdy_reshard) && def->num_operands &&
        S_single_device(m, shard_value_sharding(&def->results[0])) >= 0) {
      shard_operand_set(&copy->operands[i], def->operands[0].value);
      SHARD_VEC_PUSH(reshards, def);
    }
  }
  shard_block_append(then_block, copy);
  shard_value **vals = SHARD_NEW_ARRAY(a, shard_value *, op->num_results + 1);
  for (uint32_t i = 0; i < op->num_results; i++) vals[i] = &copy->results[i];
  shard_op *ret = shard_op_new_named(a, "stablehlo.return", op->num_results, vals, 0, NULL, 0);
  ret->loc = op->loc;
  shard_block_append(then_block, ret);

  /* False branch: zeros and fresh tokens. */
  shard_block *else_block = shard_region_add_block(a, &branch->regions[1]);
  uint32_t n = 0;
  for (uint32_t i = 0; i < op->num_results; i++) {
    shard_type *t = types[i];
    shard_op *z = NULL;
    if (t->kind == SHARD_TYPE_TENSOR) z = S_constant(a, t, S_zero_text(t->elem));
    else if (strcmp(t->text, "!stablehlo.token") == 0)
      z = shard_op_new_named(a, "stablehlo.create_token", 0, NULL, 1, &t, 0);
    if (!z) continue;
    z->loc = op->loc;
    shard_block_append(else_block, z);
    vals[n++] = &z->results[0];
  }
  ret = shard_op_new_named(a, "stablehlo.return", n, vals, 0, NULL, 0);
  ret->loc = op->loc;
  shard_block_append(else_block, ret);

  /* After the branch, an all-reduce over the whole global mesh gives every
   * device the value. */
  shard_attr *mesh_attr = shard_op_attr(mesh_op, "mesh");
  const shard_mesh *mesh = mesh_attr->u.mesh;
  shard_attr *axes = shard_attr_new(a, SHARD_ATTR_SDY_AXIS_LIST);
  axes->u.axis_list.num = mesh->num_axes;
  axes->u.axis_list.axes = SHARD_NEW_ARRAY(a, shard_axis_ref, mesh->num_axes + 1);
  for (uint32_t k = 0; k < mesh->num_axes; k++)
    axes->u.axis_list.axes[k] = (shard_axis_ref){mesh->axes[k].name, false, 0, 0};
  shard_op *after = branch;
  for (uint32_t i = 0; i < op->num_results; i++) {
    shard_value *res = &branch->results[i];
    if (types[i]->kind != SHARD_TYPE_TENSOR) {
      shard_value_replace_all_uses(&op->results[i], res);
      continue;
    }
    shard_tensor_sharding *replicated = shard_sharding_open(a, shard_symbol_name(mesh_op), NULL, types[i]->rank, false);
    shard_op *ar = shard_op_new_named(a, "sdy.all_reduce", 1, &res, 1, &types[i], 0);
    ar->loc = op->loc;
    ar->span = op->span;
    shard_op_set_attr(a, ar, "reduction_axes", axes, true);
    shard_attr *red = shard_attr_new(a, SHARD_ATTR_SDY_REDUCTION);
    red->u.reduction = SHARD_RED_SUM;
    shard_op_set_attr(a, ar, "reduction_op", red, true);
    shard_op_set_attr(a, ar, "out_sharding", shard_attr_sharding(a, replicated), true);
    shard_op_insert_after(after, ar);
    after = ar;
    shard_operand *u = op->results[i].first_use;
    while (u) {
      shard_operand *next = u->next_use;
      shard_op *user = u->owner;
      shard_tensor_sharding *s = shard_op_is(user, &K_sdy_reshard) ? shard_value_sharding(&user->results[0]) : NULL;
      if (s && shard_sharding_equal(s, replicated)) {
        shard_value_replace_all_uses(&user->results[0], &ar->results[0]);
        if (next && next->owner == user) next = next->next_use;
        shard_op_erase(user);
      } else {
        shard_operand_set(u, &ar->results[0]);
      }
      u = next;
    }
  }
  shard_op_erase(op);
  for (uint32_t i = 0; i < reshards.len; i++)
    if (reshards.items[i]->parent && !S_op_num_uses(reshards.items[i])) shard_op_erase(reshards.items[i]);
  SHARD_VEC_FREE(reshards);
}

typedef struct single_device_scan {
  shard_module *m;
  op_vec ops;
} single_device_scan;

static void S_collect_single_device(single_device_scan *sc, shard_op *op) {
  for (uint32_t r = 0; r < op->num_regions; r++)
    for (shard_block *b = op->regions[r].first; b; b = b->next)
      for (shard_op *o = b->first; o; o = o->next) S_collect_single_device(sc, o);
  if (strncmp(op->name, "sdy.", 4) != 0 && S_op_single_device(sc->m, op) >= 0) SHARD_VEC_PUSH(sc->ops, op);
}

bool shard_pass_resolve_single_device_sharding(shard_module *m, const char *options, const shard_pass_context *cx) {
  shard_diag_engine *de = cx->de;
  long long replicas = 1, partitions = 1;
  shard_pass_option_int(options, "replica-count", &replicas);
  shard_pass_option_int(options, "partition-count", &partitions);
  if (replicas > 1 && partitions > 1) {
    shard_error(de, shard_no_span, "Shardy partitioner does not support replica_count > 1 && partition_count > 1 yet.");
    return false;
  }
  shard_block *body = m->top->num_regions ? m->top->regions[0].first : NULL;
  /* The global mesh: the first mesh with axes. */
  shard_op *mesh_op = NULL;
  for (shard_op *op = body ? body->first : NULL; op && !mesh_op; op = op->next) {
    shard_attr *mesh = shard_op_is(op, &K_sdy_mesh) ? shard_op_attr(op, "mesh") : NULL;
    if (mesh && mesh->kind == SHARD_ATTR_SDY_MESH && mesh->u.mesh->num_axes) mesh_op = op;
  }
  if (!mesh_op) return true;
  for (shard_op *func = body ? body->first : NULL; func; func = func->next) {
    if (!shard_op_is(func, &K_func_func)) continue;
    single_device_scan sc = {m, {0}};
    S_collect_single_device(&sc, func);
    for (uint32_t i = 0; i < sc.ops.len; i++) S_resolve_single_device(m, sc.ops.items[i], mesh_op, replicas);
    SHARD_VEC_FREE(sc.ops);
  }
  return true;
}
