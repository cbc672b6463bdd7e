/* -sdy-per-instruction-partitioning: partitions chosen ops one at a time and
 * wraps each op's device-local code in an sdy.manual_computation over every
 * axis its shardings use, leaving the rest of the program global, as
 * Shardy's PerInstructionPartitioningPass does (a bisection aid).
 *
 * Candidates are the ops directly in a function body that have a sharded
 * (not fully replicated) operand or result, except terminators, sdy
 * collectives and sharding bookkeeping ops (data_flow_edge, constraints,
 * groups, barriers, manual computations, Sharding custom calls). Candidates
 * are numbered in program order; `filter` chooses among them with
 * `selectLow=N` / `selectHigh=N` (inclusive id bounds) and op-name
 * substrings, comma separated.
 *
 * For each chosen op:
 *  1. operands whose sharding does not divide them are padded with zeros at
 *     the end (an sdy.reshard pads operand and result to the larger of both);
 *  2. the op is cloned into a private func of a scratch module (same arena,
 *     the module's meshes cloned) whose arguments and results carry the
 *     op's shardings, and the partitioner passes run on it:
 *     insert-explicit-reshards (full), reshard-to-collectives,
 *     pad-for-divisibility, convert-global-to-local, drop-sharding-and-mesh;
 *  3. the func's body becomes the body of a manual computation in place of
 *     the op, and padded results are sliced back to their global shape.
 *
 * Shardy also runs resolve-permutation-factors first; shard does not have
 * that pass yet, so ops that need it are partitioned without it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/clone.h"
#include "ir/ir.h"
#include "pass/pass.h"
#include "pass/pass_shardings.h"
#include "sdy/sharding.h"

/* Per-dim arrays are sized by the rank (arena): no rank limit. */
#define PI_DIMS(a, n) SHARD_NEW_ARRAY((a), int64_t, (size_t)(n) + 1)

typedef SHARD_VEC(shard_op *) op_vec;

static bool S_is(const shard_op *op, const char *name) { return strcmp(op->name, name) == 0; }

/* ---- filter ------------------------------------------------------------------ */

typedef struct pi_filter {
  long long low, high; /* -1: no bound */
  char **names;
  uint32_t num_names;
  bool all;
} pi_filter;

static char *S_trimmed(const char *s, size_t n) {
  while (n && (*s == ' ' || *s == '\t')) s++, n--;
  while (n && (s[n - 1] == ' ' || s[n - 1] == '\t')) n--;
  char *out = shard_xmalloc(n + 1);
  memcpy(out, s, n);
  out[n] = 0;
  return out;
}

/* filter ::= token (',' token)*   token ::= 'selectLow=' int | 'selectHigh=' int | op-name-substring
 * (optionally quoted as a whole) */
static void S_parse_filter(const char *text, pi_filter *f) {
  f->low = f->high = -1;
  char *t = S_trimmed(text, strlen(text));
  size_t n = strlen(t);
  char *body = t;
  if (n >= 2 && (t[0] == '\'' || t[0] == '"') && t[n - 1] == t[0]) {
    t[n - 1] = 0;
    body = t + 1;
  }
  if (!*body) f->all = true;
  for (char *p = body; *p;) {
    char *comma = strchr(p, ',');
    size_t len = comma ? (size_t)(comma - p) : strlen(p);
    char *tok = S_trimmed(p, len);
    if (!strncmp(tok, "selectLow=", 10)) {
      f->low = strtoll(tok + 10, NULL, 10);
      free(tok);
    } else if (!strncmp(tok, "selectHigh=", 11)) {
      f->high = strtoll(tok + 11, NULL, 10);
      free(tok);
    } else if (*tok) {
      f->names = realloc(f->names, sizeof(char *) * (f->num_names + 1));
      if (!f->names) abort();
      f->names[f->num_names++] = tok;
    } else {
      free(tok);
    }
    p += len;
    if (*p == ',') p++;
  }
  free(t);
}

static void S_filter_free(pi_filter *f) {
  for (uint32_t i = 0; i < f->num_names; i++) free(f->names[i]);
  free(f->names);
}

static bool S_matches(const shard_op *op, long long id, const pi_filter *f) {
  if (f->all) return true;
  if (f->low >= 0 && id < f->low) return false;
  if (f->high >= 0 && id > f->high) return false;
  if (!f->num_names) return true;
  for (uint32_t i = 0; i < f->num_names; i++)
    if (strstr(op->name, f->names[i])) return true;
  return false;
}

/* ---- shardings ---------------------------------------------------------------- */

static bool S_is_sharded(const shard_tensor_sharding *s) {
  if (!s) return false;
  if (s->num_unreduced) return true;
  for (uint32_t d = 0; d < s->rank; d++)
    if (s->dims[d].num_axes) return true;
  return false;
}

static bool S_has_sharded_value(const shard_op *op) {
  for (uint32_t i = 0; i < op->num_results; i++)
    if (S_is_sharded(shard_value_sharding_or_out(&op->results[i]))) return true;
  for (uint32_t i = 0; i < op->num_operands; i++)
    if (S_is_sharded(shard_value_sharding_or_out(op->operands[i].value))) return true;
  return false;
}

static bool S_skipped(const shard_op *op) {
  static const char *const skip[] = {"sdy.all_gather",
                                     "sdy.all_reduce",
                                     "sdy.all_slice",
                                     "sdy.all_to_all",
                                     "sdy.collective_permute",
                                     "sdy.reduce_scatter",
                                     "sdy.sharded_to_unreduced",
                                     "sdy.replicated_to_unreduced",
                                     "sdy.data_flow_edge",
                                     "sdy.manual_computation",
                                     "sdy.mesh",
                                     "sdy.propagation_barrier",
                                     "sdy.return",
                                     "sdy.sharding_constraint",
                                     "sdy.sharding_group",
                                     "func.return",
                                     "stablehlo.return",
                                     NULL};
  for (uint32_t i = 0; skip[i]; i++)
    if (S_is(op, skip[i])) return true;
  if (S_is(op, "stablehlo.custom_call")) {
    const shard_attr *t = shard_op_attr(op, "call_target_name");
    if (t && t->kind == SHARD_ATTR_STRING &&
        ((t->u.str.len == 8 && !memcmp(t->u.str.data, "Sharding", 8)) ||
         (t->u.str.len == 13 && !memcmp(t->u.str.data, "mhlo.sharding", 13))))
      return true;
  }
  return false;
}

/* The sharding of value v as the op sees it: its own, or closed and fully
 * replicated on the op's mesh; unreduced axes dropped for results. */
static shard_tensor_sharding *S_instr_sharding(shard_arena *a, const shard_value *v, const char *mesh,
                                               const shard_mesh *inline_mesh, bool clear_unreduced) {
  shard_tensor_sharding *s = shard_value_sharding_or_out(v);
  uint32_t rank = v->type && v->type->kind == SHARD_TYPE_TENSOR ? v->type->rank : 0;
  if (!s) return shard_sharding_open(a, mesh, inline_mesh, rank, false);
  if (clear_unreduced && s->num_unreduced) {
    s = shard_sharding_clone(a, s);
    s->num_unreduced = 0;
  }
  return s;
}

static void S_add_axis(const char ***names, uint32_t *n, const char *name) {
  for (uint32_t i = 0; i < *n; i++)
    if (!strcmp((*names)[i], name)) return;
  *names = realloc((void *)*names, sizeof(char *) * (*n + 1));
  if (!*names) abort();
  (*names)[(*n)++] = name;
}

static void S_collect_axes(const shard_tensor_sharding *s, const char ***names, uint32_t *n) {
  for (uint32_t d = 0; d < s->rank; d++)
    for (uint32_t k = 0; k < s->dims[d].num_axes; k++) S_add_axis(names, n, s->dims[d].axes[k].name);
  for (uint32_t k = 0; k < s->num_replicated; k++) S_add_axis(names, n, s->replicated[k].name);
  for (uint32_t k = 0; k < s->num_unreduced; k++) S_add_axis(names, n, s->unreduced[k].name);
}

/* `type` with every dim its sharding does not divide rounded up. */
static shard_type *S_padded_type(shard_module *m, shard_type *type, const shard_tensor_sharding *s) {
  if (!s || !type || type->kind != SHARD_TYPE_TENSOR || type->rank != s->rank) return type;
  const shard_mesh *mesh = shard_sharding_mesh(m, s);
  if (!mesh) return type;
  int64_t *dims = PI_DIMS(m->arena, type->rank);
  bool changed = false;
  for (uint32_t d = 0; d < type->rank; d++) {
    dims[d] = type->dims[d];
    int64_t count = shard_sharding_dim_size(s, d, mesh);
    if (dims[d] != SHARD_DYNAMIC_DIM && count > 1 && dims[d] % count) {
      dims[d] = (dims[d] + count - 1) / count * count;
      changed = true;
    }
  }
  return changed ? shard_type_with_dims(m->arena, type, dims) : type;
}

static shard_type *S_max_type(shard_arena *a, shard_type *x, shard_type *y) {
  if (x == y || x->kind != SHARD_TYPE_TENSOR || y->kind != SHARD_TYPE_TENSOR || x->rank != y->rank) return x;
  int64_t *dims = PI_DIMS(a, x->rank);
  for (uint32_t d = 0; d < x->rank; d++) dims[d] = x->dims[d] > y->dims[d] ? x->dims[d] : y->dims[d];
  return shard_type_with_dims(a, x, dims);
}

/* ---- builders ------------------------------------------------------------------ */

static void S_set_i64s(shard_arena *a, shard_op *op, const char *name, const int64_t *v, uint32_t n) {
  shard_op_set_attr(a, op, name, shard_attr_dense_i64(a, v, n), true);
}

static const char *S_zero_payload(const char *elem) {
  if (!strcmp(elem, "i1")) return "false";
  if (elem[0] == 'f' || !strncmp(elem, "bf", 2)) return "0.0";
  return "0";
}

/* Pads v with zeros at the end of each dim up to `type`, before `pos`. */
static shard_value *S_pad_zero(shard_arena *a, shard_op *pos, shard_value *v, shard_type *type,
                               shard_tensor_sharding *s) {
  shard_type *st = shard_type_tensor(a, 0, NULL, type->elem, NULL);
  shard_op *cst = shard_op_new_named(a, "stablehlo.constant", 0, NULL, 1, &st, 0);
  shard_attr *val = shard_attr_new(a, SHARD_ATTR_DENSE);
  val->u.dense.payload = S_zero_payload(type->elem);
  val->u.dense.type = st;
  shard_op_set_attr(a, cst, "value", val, true);
  shard_op_insert_before(pos, cst);
  shard_value *ops[2] = {v, &cst->results[0]};
  shard_op *pad = shard_op_new_named(a, "stablehlo.pad", 2, ops, 1, &type, 0);
  int64_t *zero = PI_DIMS(a, type->rank), *high = PI_DIMS(a, type->rank);
  for (uint32_t d = 0; d < type->rank; d++) high[d] = type->dims[d] - v->type->dims[d];
  S_set_i64s(a, pad, "edge_padding_low", zero, type->rank);
  S_set_i64s(a, pad, "edge_padding_high", high, type->rank);
  S_set_i64s(a, pad, "interior_padding", zero, type->rank);
  shard_op_insert_before(pos, pad);
  shard_value_set_sharding(a, &pad->results[0], s);
  return &pad->results[0];
}

/* Grows the limits of a slice / the high padding of a pad so that the
 * clone yields `padded` instead of `orig`. */
static void S_grow_shape_attrs(shard_arena *a, shard_op *op, const shard_type *orig, const shard_type *padded) {
  const char *name = S_is(op, "stablehlo.slice") ? "limit_indices"
                     : S_is(op, "stablehlo.pad") ? "edge_padding_high"
                                                 : NULL;
  const shard_attr *at = name ? shard_op_attr(op, name) : NULL;
  if (!at || at->kind != SHARD_ATTR_DENSE_ARRAY || at->u.dense_array.num != padded->rank) return;
  int64_t *v = PI_DIMS(a, padded->rank);
  for (uint32_t d = 0; d < padded->rank; d++) v[d] = at->u.dense_array.vals[d] + padded->dims[d] - orig->dims[d];
  S_set_i64s(a, op, name, v, padded->rank);
}

/* ---- one instruction ------------------------------------------------------------- */

typedef struct pi_ctx {
  shard_module *m;
  shard_arena *a;
  shard_diag_engine *de;
  bool halo;
  long long replicas, partitions;
} pi_ctx;

/* Runs the partitioner passes on the scratch module. */
static bool S_run_pipeline(pi_ctx *c, shard_module *tm) {
  char g2l_opts[96];
  snprintf(g2l_opts, sizeof g2l_opts, "replica-count=%lld partition-count=%lld", c->replicas, c->partitions);
  const shard_pass_context *cx = SHARD_PASS_CONTEXT(c->de);
  return shard_pass_insert_explicit_reshards(tm, "enable-full-version=true", cx) &&
         shard_pass_reshard_to_collectives(tm, NULL, cx) && shard_pass_pad_for_divisibility(tm, NULL, cx) &&
         shard_pass_convert_global_to_local(tm, g2l_opts, cx) && shard_pass_drop_sharding_and_mesh(tm, NULL, cx);
}

static const shard_tensor_sharding *S_first_sharding(const shard_op *op) {
  for (uint32_t i = 0; i < op->num_operands; i++) {
    const shard_tensor_sharding *s = shard_value_sharding_or_out(op->operands[i].value);
    if (s) return s;
  }
  for (uint32_t i = 0; i < op->num_results; i++) {
    const shard_tensor_sharding *s = shard_value_sharding_or_out(&op->results[i]);
    if (s) return s;
  }
  return NULL;
}

static bool S_partition(pi_ctx *c, shard_op *op) {
  shard_arena *a = c->a;
  const shard_tensor_sharding *any = S_first_sharding(op);
  if (!any) return false;
  const char *mesh = any->mesh_name;
  shard_mesh *inline_mesh = any->inline_mesh;
  uint32_t nin = op->num_operands, nout = op->num_results;

  shard_tensor_sharding *ins = SHARD_NEW_ARRAY(a, shard_tensor_sharding, nin + 1);
  shard_tensor_sharding *outs = SHARD_NEW_ARRAY(a, shard_tensor_sharding, nout + 1);
  for (uint32_t i = 0; i < nin; i++) ins[i] = *S_instr_sharding(a, op->operands[i].value, mesh, inline_mesh, false);
  for (uint32_t i = 0; i < nout; i++) outs[i] = *S_instr_sharding(a, &op->results[i], mesh, inline_mesh, true);
  const char **axes = NULL;
  uint32_t naxes = 0;
  for (uint32_t i = 0; i < nin; i++) S_collect_axes(&ins[i], &axes, &naxes);
  for (uint32_t i = 0; i < nout; i++) S_collect_axes(&outs[i], &axes, &naxes);

  /* 1. padded operand and result types; a reshard keeps one type */
  shard_type *unified = NULL;
  if (S_is(op, "sdy.reshard") && nin == 1 && nout == 1) {
    shard_type *t = op->operands[0].value->type;
    shard_type *pi = S_padded_type(c->m, t, &ins[0]), *po = S_padded_type(c->m, t, &outs[0]);
    if (pi != t || po != t) unified = S_max_type(a, pi, po);
  }
  shard_value **operands = SHARD_NEW_ARRAY(a, shard_value *, nin + 1);
  shard_type **arg_types = SHARD_NEW_ARRAY(a, shard_type *, nin + 1);
  for (uint32_t i = 0; i < nin; i++) {
    shard_value *v = op->operands[i].value;
    shard_type *pt = unified ? unified : S_padded_type(c->m, v->type, &ins[i]);
    operands[i] = shard_type_equal(pt, v->type) ? v : S_pad_zero(a, op, v, pt, &ins[i]);
    arg_types[i] = operands[i]->type;
  }
  shard_type **res_types = SHARD_NEW_ARRAY(a, shard_type *, nout + 1);
  for (uint32_t i = 0; i < nout; i++)
    res_types[i] = unified ? unified : S_padded_type(c->m, op->results[i].type, &outs[i]);

  /* 2. the op alone in a private func of a scratch module */
  shard_op *top = shard_op_new_named(a, "builtin.module", 0, NULL, 0, NULL, 1);
  shard_block *tb = shard_region_add_block(a, &top->regions[0]);
  shard_block *mb = c->m->top->regions[0].first;
  for (shard_op *x = mb ? mb->first : NULL; x; x = x->next)
    if (S_is(x, "sdy.mesh")) shard_block_append(tb, shard_op_clone(a, x, NULL));
  shard_op *func = shard_op_new_named(a, "func.func", 0, NULL, 0, NULL, 1);
  shard_op_set_attr(a, func, "sym_name", shard_attr_string(a, "outlined_op", 11), true);
  shard_attr *ft = shard_attr_new(a, SHARD_ATTR_TYPE);
  ft->u.type = shard_type_function(a, arg_types, nin, res_types, nout);
  shard_op_set_attr(a, func, "function_type", ft, true);
  shard_op_set_attr(a, func, "sym_visibility", shard_attr_string(a, "private", 7), true);
  shard_block_append(tb, func);
  shard_block *fb = shard_region_add_block(a, &func->regions[0]);
  for (uint32_t i = 0; i < nin; i++) shard_block_add_arg(a, fb, arg_types[i]);
  for (uint32_t i = 0; i < nin; i++) shard_func_set_arg_sharding(a, func, i, &ins[i]);
  for (uint32_t i = 0; i < nout; i++) shard_func_set_result_sharding(a, func, i, &outs[i]);
  shard_op *clone = shard_op_clone(a, op, NULL);
  shard_block_append(fb, clone);
  /* operand i reads argument i, even when the op reads a value twice */
  for (uint32_t i = 0; i < nin; i++) shard_operand_set(&clone->operands[i], &fb->args[i]);
  for (uint32_t i = 0; i < nout; i++)
    if (!shard_type_equal(res_types[i], op->results[i].type)) {
      S_grow_shape_attrs(a, clone, op->results[i].type, res_types[i]);
      clone->results[i].type = res_types[i];
    }
  shard_value **rets = SHARD_NEW_ARRAY(a, shard_value *, nout + 1);
  for (uint32_t i = 0; i < nout; i++) rets[i] = &clone->results[i];
  shard_block_append(fb, shard_op_new_named(a, "func.return", nout, rets, 0, NULL, 0));

  shard_module tm = {.arena = a, .top = top, .implicit_top = true, .src = c->m->src};
  bool ran = S_run_pipeline(c, &tm);
  shard_module_release_index(&tm);
  if (!ran) {
    free((void *)axes);
    return false;
  }

  /* 3. the partitioned body in a manual computation */
  shard_op *mc = shard_op_new_named(a, "sdy.manual_computation", nin, operands, nout, res_types, 1);
  shard_op_set_attr(a, mc, "in_shardings", shard_attr_per_value(a, ins, nin), true);
  shard_op_set_attr(a, mc, "out_shardings", shard_attr_per_value(a, outs, nout), true);
  shard_attr *man = shard_attr_new(a, SHARD_ATTR_SDY_MANUAL_AXES);
  man->u.manual_axes.names = SHARD_NEW_ARRAY(a, const char *, naxes + 1);
  memcpy(man->u.manual_axes.names, axes, sizeof(char *) * naxes);
  man->u.manual_axes.num = naxes;
  shard_op_set_attr(a, mc, "manual_axes", man, true);
  free((void *)axes);
  shard_region *from = &func->regions[0], *to = &mc->regions[0];
  to->first = from->first;
  to->last = from->last;
  from->first = from->last = NULL;
  for (shard_block *b = to->first; b; b = b->next) {
    b->parent = to;
    shard_op *term = shard_block_terminator(b);
    if (!term || S_is(term, "sdy.return")) continue;
    shard_value **vals = SHARD_NEW_ARRAY(a, shard_value *, term->num_operands + 1);
    for (uint32_t i = 0; i < term->num_operands; i++) vals[i] = term->operands[i].value;
    shard_op *ret = shard_op_new_named(a, "sdy.return", term->num_operands, vals, 0, NULL, 0);
    shard_op_insert_before(term, ret);
    shard_op_erase(term);
  }
  shard_op_insert_before(op, mc);

  for (uint32_t i = 0; i < nout; i++) {
    shard_value *r = &mc->results[i];
    shard_type *orig = op->results[i].type;
    if (!shard_type_equal(orig, r->type)) {
      int64_t *zero = PI_DIMS(a, orig->rank), *one = PI_DIMS(a, orig->rank);
      for (uint32_t d = 0; d < orig->rank; d++) one[d] = 1;
      shard_op *slice = shard_op_new_named(a, "stablehlo.slice", 1, &r, 1, &orig, 0);
      S_set_i64s(a, slice, "start_indices", zero, orig->rank);
      S_set_i64s(a, slice, "limit_indices", orig->dims, orig->rank);
      S_set_i64s(a, slice, "strides", one, orig->rank);
      shard_op_insert_before(op, slice);
      shard_value_set_sharding(a, &slice->results[0], &outs[i]);
      r = &slice->results[0];
    }
    shard_value_replace_all_uses(&op->results[i], r);
  }
  shard_op_erase(op);
  return true;
}

bool shard_pass_per_instruction_partitioning(shard_module *m, const char *options, const shard_pass_context *cx) {
  shard_diag_engine *de = cx->de;
  bool ok = true;
  pi_ctx c = {.m = m, .a = m->arena, .de = de, .halo = true, .replicas = 1, .partitions = 1};
  shard_pass_option_bool(options, "enable-halo-exchange", &c.halo);
  shard_pass_option_int(options, "replica-count", &c.replicas);
  shard_pass_option_int(options, "partition-count", &c.partitions);
  char *filter_text = shard_pass_option_string(options, "filter");
  pi_filter f = {0};
  S_parse_filter(filter_text ? filter_text : "", &f);
  free(filter_text);

  op_vec chosen = {0};
  long long id = 0;
  shard_block *body = m->top->num_regions ? m->top->regions[0].first : NULL;
  for (shard_op *func = body ? body->first : NULL; ok && func; func = func->next) {
    if (!S_is(func, "func.func") || !func->num_regions) continue;
    for (shard_block *b = func->regions[0].first; b; b = b->next)
      for (shard_op *op = b->first; op; op = op->next) {
        if (S_skipped(op) || !S_has_sharded_value(op)) continue;
        if (S_matches(op, id++, &f)) SHARD_VEC_PUSH(chosen, op);
      }
  }
  for (uint32_t i = 0; ok && i < chosen.len; i++)
    if (!S_partition(&c, chosen.items[i])) ok = false;
  SHARD_VEC_FREE(chosen);
  S_filter_free(&f);
  return ok;
}
