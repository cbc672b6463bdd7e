/* Verification of individual ops: func.func argument/result shardings, the
 * sdy ops (mesh, sharding_constraint, reshard, manual_computation,
 * named_computation, data_flow_edge, func_data_flow_edge,
 * propagation_barrier, constant) and the unreduced-axes transition rule that
 * constraints, reshards and collectives share.
 *
 * shard_verify_check_op_entry holds what MLIR checks when it enters an op (the op's
 * verify() and traits); shard_verify_check_op_symbol_uses what it checks later from
 * the symbol table (verifySymbolUses). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "ir/call_graph.h"
#include "ir/opdef.h"
#include "verify/verify_internal.h"

/* ---- unreduced axes ----------------------------------------------------- */

/* Is every part of `a` covered by refs of the same axis in `set`? Covering
 * is computed on [pre, next) ranges, which is what getAxisSetDiff's split
 * into prefix and suffix amounts to. */
static bool S_covered(vf_ctx *cx, const shard_axis_ref *a, const shard_axis_ref *set, uint32_t n, const shard_mesh *m) {
  int64_t cur = shard_verify_ax_pre(a), end = shard_verify_ax_next(cx, a, m);
  bool progress = true;
  while (cur < end && progress) {
    progress = false;
    for (uint32_t i = 0; i < n; i++) {
      if (strcmp(set[i].name, a->name) != 0) continue;
      int64_t lo = shard_verify_ax_pre(&set[i]), hi = shard_verify_ax_next(cx, &set[i], m);
      if (lo <= cur && cur < hi) {
        cur = hi;
        progress = true;
      }
    }
  }
  return cur >= end;
}

/* The first ref of `a` not fully covered by `b` (getAxisSetDiff non-empty). */
static const shard_axis_ref *S_first_uncovered(vf_ctx *cx, const shard_axis_ref *a, uint32_t na,
                                               const shard_axis_ref *b, uint32_t nb, const shard_mesh *m) {
  for (uint32_t i = 0; i < na; i++)
    if (!S_covered(cx, &a[i], b, nb, m)) return &a[i];
  return NULL;
}

bool shard_verify_check_unreduced_transition(const vf_emit *e, const shard_tensor_sharding *in,
                                             const shard_tensor_sharding *out, bool can_introduce,
                                             shard_reduction introduce_op, bool can_remove, shard_reduction remove_op) {
  vf_ctx *cx = e->cx;
  const shard_mesh *in_mesh = in ? shard_verify_sharding_mesh(cx, in) : NULL;
  const shard_mesh *out_mesh = out ? shard_verify_sharding_mesh(cx, out) : NULL;
  if (in_mesh && out_mesh && !shard_mesh_equal(in_mesh, out_mesh)) return true;
  const shard_mesh *m = in_mesh ? in_mesh : out_mesh;
  const shard_axis_ref *in_axes = in ? in->unreduced : NULL, *out_axes = out ? out->unreduced : NULL;
  uint32_t nin = in ? in->num_unreduced : 0, nout = out ? out->num_unreduced : 0;

  const shard_axis_ref *introduced = S_first_uncovered(cx, out_axes, nout, in_axes, nin, m);
  if (introduced) {
    if (!can_introduce) return shard_verify_fail(e, "cannot add new unreduced axis '%s'.", introduced->name);
    if (out->reduction != introduce_op)
      return shard_verify_fail(e, "cannot introduce '%s' unreduced axes. Expected '%s'.",
                               shard_reduction_name(out->reduction), shard_reduction_name(introduce_op));
  }
  const shard_axis_ref *removed = S_first_uncovered(cx, in_axes, nin, out_axes, nout, m);
  if (removed) {
    if (!can_remove)
      return shard_verify_fail(e,
                               "dropped unreduced axis '%s' without a blessed operation (e.g., sdy.reshard). This is "
                               "an invalid transition from unreduced to reduced.",
                               removed->name);
    if (in->reduction != remove_op)
      return shard_verify_fail(e, "cannot reduce '%s' unreduced axes. Expected '%s'.",
                               shard_reduction_name(in->reduction), shard_reduction_name(remove_op));
  }
  if (in && out && in->reduction != out->reduction)
    for (uint32_t i = 0; i < nout; i++)
      for (uint32_t j = 0; j < nin; j++)
        if (shard_verify_ax_overlaps(&in_axes[j], &out_axes[i]))
          return shard_verify_fail(e, "cannot change the reduction operator of kept unreduced axes from %s to %s.",
                                   shard_reduction_name(in->reduction), shard_reduction_name(out->reduction));
  return true;
}

/* ---- func.func ---------------------------------------------------------- */

static const shard_type *S_func_type(const shard_op *func) {
  const shard_attr *a = shard_verify_attr(func, "function_type");
  return a && a->kind == SHARD_ATTR_TYPE && a->u.type && a->u.type->kind == SHARD_TYPE_FUNCTION ? a->u.type : NULL;
}

static const shard_attr *S_dict_get(const shard_attr *dict, const char *name) {
  if (!dict || dict->kind != SHARD_ATTR_DICT) return NULL;
  for (uint32_t i = 0; i < dict->u.dict.num; i++)
    if (strcmp(dict->u.dict.entries[i].name, name) == 0) return dict->u.dict.entries[i].value;
  return NULL;
}

/* verifyFuncAttribute for one argument or result. */
static bool S_check_func_value(vf_ctx *cx, const shard_op *func, const shard_attr *sharding, const shard_type *type,
                               uint32_t index, const char *kind, const vf_manual *manual) {
  if (!sharding) return true;
  vf_emit e = shard_verify_emit_op(cx, func, shard_verify_prefix(cx, kind, " ", index, " - "));
  if (sharding->kind != SHARD_ATTR_SDY_SHARDING)
    return shard_verify_fail(&e, "should have a sharding attribute of type TensorShardingAttr");
  return shard_verify_check_sharding_lookup(&e, sharding->u.sharding, type, manual);
}

static const char *S_func_name(const shard_op *func) {
  const shard_attr *a = shard_verify_attr(func, "sym_name");
  return a && a->kind == SHARD_ATTR_STRING ? a->u.str.data : "";
}

/* A function without a body: MLIR's SymbolOpInterface demands that such a
 * declaration be private. */
static bool S_is_declaration(const shard_op *func) {
  const shard_block *b = func->num_regions ? func->regions[0].first : NULL;
  return !b || (!b->first && !b->next && !b->num_args);
}

/* FunctionOpInterface's verifyBody: the entry block takes the signature's
 * inputs. */
static bool S_check_func_signature(vf_ctx *cx, const shard_op *func, const shard_type *ft) {
  vf_emit e = shard_verify_emit_op(cx, func, NULL);
  if (S_is_declaration(func)) {
    const shard_attr *vis = shard_verify_attr(func, "sym_visibility");
    bool is_public = !vis || (vis->kind == SHARD_ATTR_STRING && strcmp(vis->u.str.data, "public") == 0);
    if (is_public) return shard_verify_fail(&e, "symbol declaration cannot have public visibility");
    return true;
  }
  if (!ft) return true;
  const shard_block *entry = func->regions[0].first;
  if (entry->num_args != ft->num_inputs)
    return shard_verify_fail(&e, "entry block must have %u arguments to match function signature", ft->num_inputs);
  for (uint32_t i = 0; i < entry->num_args; i++)
    if (!shard_type_equal(entry->args[i].type, ft->inputs[i]))
      return shard_verify_fail(&e,
                               "type of entry block argument #%u('%s') must match the type of the corresponding "
                               "argument in function signature('%s')",
                               i, shard_verify_type_str(entry->args[i].type), shard_verify_type_str(ft->inputs[i]));
  return true;
}

/* func.return: the operands are the enclosing function's results. */
static bool S_check_return(vf_ctx *cx, const shard_op *ret) {
  const shard_op *func = shard_op_parent_op(ret);
  if (!shard_verify_op_is(func, "func.func")) return true; /* reported as a parent-op error elsewhere */
  const shard_type *ft = S_func_type(func);
  if (!ft) return true;
  vf_emit e = shard_verify_emit_op(cx, ret, NULL);
  if (ret->num_operands != ft->num_results)
    return shard_verify_fail(&e, "has %u operands, but enclosing function (@%s) returns %u", ret->num_operands,
                             S_func_name(func), ft->num_results);
  for (uint32_t i = 0; i < ft->num_results; i++) {
    const shard_type *t = ret->operands[i].value ? ret->operands[i].value->type : NULL;
    if (!t || !shard_type_equal(t, ft->results[i])) {
      vf_emit plain = shard_verify_emit_op(cx, NULL, NULL);
      plain.span = ret->span;
      return shard_verify_fail(&plain,
                               "type of return operand %u ('%s') doesn't match function result type ('%s') in "
                               "function @%s",
                               i, shard_verify_type_str(t), shard_verify_type_str(ft->results[i]), S_func_name(func));
    }
  }
  return true;
}

static bool S_check_func(vf_ctx *cx, const shard_op *func, const vf_manual *manual) {
  const shard_type *ft = S_func_type(func);
  if (!S_check_func_signature(cx, func, ft)) return false;
  const shard_block *entry = func->num_regions ? func->regions[0].first : NULL;
  if (entry) {
    for (uint32_t i = 0; i < entry->num_args; i++) {
      const shard_type *t = ft && i < ft->num_inputs ? ft->inputs[i] : entry->args[i].type;
      if (!S_check_func_value(cx, func, shard_value_attr(&entry->args[i], "sdy.sharding"), t, i, "arg", manual))
        return false;
    }
  } else {
    const shard_attr *args = shard_verify_attr(func, "arg_attrs");
    for (uint32_t i = 0; args && args->kind == SHARD_ATTR_ARRAY && i < args->u.array.num; i++) {
      const shard_type *t = ft && i < ft->num_inputs ? ft->inputs[i] : NULL;
      if (!S_check_func_value(cx, func, S_dict_get(args->u.array.elems[i], "sdy.sharding"), t, i, "arg", manual))
        return false;
    }
  }
  const shard_attr *res = shard_verify_attr(func, "res_attrs");
  for (uint32_t i = 0; res && res->kind == SHARD_ATTR_ARRAY && i < res->u.array.num; i++) {
    const shard_type *t = ft && i < ft->num_results ? ft->results[i] : NULL;
    if (!S_check_func_value(cx, func, S_dict_get(res->u.array.elems[i], "sdy.sharding"), t, i, "result", manual))
      return false;
  }
  return true;
}

/* ---- manual_computation ------------------------------------------------- */

static const shard_attr *S_manual_axes(const shard_op *op) {
  const shard_attr *a = shard_verify_attr(op, "manual_axes");
  return a && a->kind == SHARD_ATTR_SDY_MANUAL_AXES ? a : NULL;
}

static bool S_is_manual(const shard_attr *manual, const char *name) {
  return manual && shard_axis_name_in(name, manual->u.manual_axes.names, manual->u.manual_axes.num);
}

/* ManualComputationOp::verify: no axis made manual twice by nesting. */
static bool S_check_manual_entry(vf_ctx *cx, const shard_op *op, const vf_manual *manual) {
  const shard_attr *axes = S_manual_axes(op);
  for (uint32_t i = 0; axes && i < axes->u.manual_axes.num; i++) {
    const vf_manual *owner = NULL;
    for (const vf_manual *p = manual; p; p = p->parent)
      if (p->axes && p->axes->kind == SHARD_ATTR_SDY_MANUAL_AXES && S_is_manual(p->axes, axes->u.manual_axes.names[i]))
        owner = p;
    if (owner) {
      vf_emit e = shard_verify_emit_op(cx, op, NULL);
      shard_verify_fail(&e, "operates on axis \"%s\" which is already bound by a parent sdy.manual_computation op",
                        axes->u.manual_axes.names[i]);
      shard_verify_note(cx, owner->op->span, "parent bounding this axis as manual");
      return false;
    }
  }
  return true;
}

static const shard_sharding_per_value *S_per_value(const shard_op *op, const char *name) {
  const shard_attr *a = shard_verify_attr(op, name);
  return a && a->kind == SHARD_ATTR_SDY_PER_VALUE ? a->u.per_value : NULL;
}

/* Whether `text` is the text shard_type_tensor gives the tensor of these
 * dims and element type (no encoding): "tensor<" then each dim ('?' when
 * dynamic) and an 'x', the element type, '>'. */
static bool S_is_tensor_text(const char *text, uint32_t rank, const int64_t *dims, const char *elem) {
  if (!text || strncmp(text, "tensor<", 7) != 0) return false;
  const char *p = text + 7;
  for (uint32_t d = 0; d < rank; d++) {
    if (dims[d] == SHARD_DYNAMIC_DIM) {
      if (*p++ != '?') return false;
    } else {
      /* the decimal digits, no leading zero (up to 18 of them: no
       * overflow; a longer number takes the caller's slow path) */
      const char *q = p;
      uint64_t v = 0;
      if (dims[d] < 0 || (*q == '0' && q[1] >= '0' && q[1] <= '9')) return false;
      for (; *q >= '0' && *q <= '9' && q - p < 18; q++) v = v * 10 + (uint64_t)(*q - '0');
      if (q == p || v != (uint64_t)dims[d]) return false;
      p = q;
    }
    if (*p++ != 'x') return false;
  }
  size_t ne = strlen(elem);
  return strncmp(p, elem, ne) == 0 && p[ne] == '>' && p[ne + 1] == 0;
}

/* verifyManualComputationValue for the operands ("operand") or results. */
static bool S_check_manual_values(vf_ctx *cx, const shard_op *op, shard_type *const *global, uint32_t nglobal,
                                  shard_type *const *local, uint32_t nlocal, const shard_sharding_per_value *pv,
                                  const char *kind, const vf_manual *manual) {
  static const shard_sharding_per_value empty = {0};
  if (!pv) pv = &empty;
  if (!nglobal && !nlocal && !pv->num) return true;
  vf_emit e = shard_verify_emit_op(cx, op, shard_verify_prefix(cx, kind, " ", UINT32_MAX, ""));
  if (!shard_verify_check_per_value(&e, pv, global, nglobal, manual)) return false;
  vf_emit plain = shard_verify_emit_op(cx, op, NULL);
  if (nglobal != nlocal)
    return shard_verify_fail(&plain, "number of op %ss and region %ss must match. Op has %u op %ss and %u region %ss",
                             kind, kind, nglobal, kind, nlocal, kind);
  const shard_attr *manual_axes = S_manual_axes(op);
  for (uint32_t v = 0; v < nglobal && v < pv->num; v++) {
    const shard_tensor_sharding *s = &pv->shardings[v];
    for (uint32_t d = 0; d < s->rank; d++) {
      const shard_dim_sharding *dim = &s->dims[d];
      uint32_t k = 0;
      while (k < dim->num_axes && S_is_manual(manual_axes, dim->axes[k].name)) k++;
      while (k < dim->num_axes && !S_is_manual(manual_axes, dim->axes[k].name)) k++;
      if (k < dim->num_axes)
        return shard_verify_fail(&plain,
                                 "%s sharding at index %u must have all manual axes come before free axes in its "
                                 "dimension sharding at index %u. Saw manual axis %s after free axis %s",
                                 kind, v, d, shard_verify_axis_str(cx, &dim->axes[k]),
                                 shard_verify_axis_str(cx, &dim->axes[k - 1]));
    }
    const shard_type *g = global[v];
    if (!g || (g->kind != SHARD_TYPE_TENSOR && g->kind != SHARD_TYPE_UNRANKED_TENSOR)) continue;
    if (g->kind != SHARD_TYPE_TENSOR) continue; /* the sharding check rejected it already */
    const shard_mesh *mesh = shard_verify_sharding_mesh(cx, s);
    int64_t *dims = SHARD_NEW_ARRAY(cx->scratch, int64_t, g->rank ? g->rank : 1);
    for (uint32_t d = 0; d < g->rank; d++) {
      if (g->dims[d] == SHARD_DYNAMIC_DIM) {
        dims[d] = SHARD_DYNAMIC_DIM;
        continue;
      }
      int64_t manual_size = 1;
      for (uint32_t k = 0; d < s->rank && k < s->dims[d].num_axes; k++)
        if (S_is_manual(manual_axes, s->dims[d].axes[k].name))
          manual_size *= shard_verify_axes_size(cx, &s->dims[d].axes[k], 1, mesh);
      if (manual_size <= 0 || g->dims[d] % manual_size != 0)
        return shard_verify_fail(&plain,
                                 "%s dimension size %" PRId64 " is not divisible by the manual axes size %" PRId64,
                                 kind, g->dims[d], manual_size);
      dims[d] = g->dims[d] / manual_size;
    }
    /* nearly always the region's type: no type built to compare with it */
    if (local[v] && g->elem && S_is_tensor_text(local[v]->text, g->rank, dims, g->elem)) continue;
    const shard_type *expected = shard_type_tensor(cx->scratch, g->rank, dims, g->elem, NULL);
    if (!shard_type_equal(expected, local[v]))
      return shard_verify_fail(&plain,
                               "%s shape, corresponding sharding, and region %s shape at index %u must match. "
                               "Expected local shape '%s', actual local shape '%s'",
                               kind, kind, v, shard_verify_type_str(expected), shard_verify_type_str(local[v]));
  }
  return true;
}

static shard_type **S_operand_types(const shard_op *op) {
  shard_type **t = shard_xmalloc(sizeof *t * (op->num_operands + 1));
  for (uint32_t i = 0; i < op->num_operands; i++) t[i] = op->operands[i].value ? op->operands[i].value->type : NULL;
  return t;
}

static shard_type **S_result_types(const shard_op *op) {
  shard_type **t = shard_xmalloc(sizeof *t * (op->num_results + 1));
  for (uint32_t i = 0; i < op->num_results; i++) t[i] = op->results[i].type;
  return t;
}

static shard_type **S_block_arg_types(const shard_block *b, uint32_t *n) {
  *n = b ? b->num_args : 0;
  shard_type **t = shard_xmalloc(sizeof *t * (*n + 1));
  for (uint32_t i = 0; i < *n; i++) t[i] = b->args[i].type;
  return t;
}

static const shard_op *S_body_terminator(const shard_op *op) {
  const shard_block *b = op->num_regions ? op->regions[0].first : NULL;
  return b ? b->last : NULL;
}

static bool S_check_manual_symbol_uses(vf_ctx *cx, const shard_op *op, const vf_manual *manual) {
  const shard_block *body = op->num_regions ? op->regions[0].first : NULL;
  const shard_op *term = S_body_terminator(op);
  const shard_sharding_per_value *in = S_per_value(op, "in_shardings"), *out = S_per_value(op, "out_shardings");
  uint32_t nlocal_in, nlocal_out = term ? term->num_operands : 0;
  shard_type **gin = S_operand_types(op), **gout = S_result_types(op);
  shard_type **lin = S_block_arg_types(body, &nlocal_in), **lout = term ? S_operand_types(term) : NULL;
  bool ok = S_check_manual_values(cx, op, gin, op->num_operands, lin, nlocal_in, in, "operand", manual) &&
            S_check_manual_values(cx, op, gout, op->num_results, lout, nlocal_out, out, "result", manual);
  free(gin);
  free(gout);
  free(lin);
  free(lout);
  if (!ok) return false;
  uint32_t nin = in ? in->num : 0, nout = out ? out->num : 0;
  if (!nin && !nout) return true;
  /* getCommonMesh over in and out shardings; empty meshes don't count. */
  const shard_mesh *mesh = NULL;
  bool common = true;
  for (uint32_t i = 0; i < nin + nout && common; i++) {
    const shard_tensor_sharding *s = i < nin ? &in->shardings[i] : &out->shardings[i - nin];
    const shard_mesh *other = shard_verify_sharding_mesh(cx, s);
    if (!mesh || shard_mesh_is_empty(mesh)) {
      mesh = other;
      continue;
    }
    if (!other || (!shard_mesh_is_empty(other) && !shard_mesh_equal(other, mesh))) common = false;
  }
  if (!common) mesh = NULL;
  const shard_attr *axes = S_manual_axes(op);
  vf_emit e = shard_verify_emit_op(cx, op, NULL);
  if (!mesh && axes && axes->u.manual_axes.num)
    return shard_verify_fail(&e, "all in and out shardings must be bound to the same mesh or an empty mesh.");
  for (uint32_t i = 0; mesh && axes && i < axes->u.manual_axes.num; i++)
    if (shard_verify_axis_index(cx, mesh, axes->u.manual_axes.names[i]) < 0)
      return shard_verify_fail(&e, "unknown manual axis: \"%s\"", axes->u.manual_axes.names[i]);
  return true;
}

/* ---- named_computation -------------------------------------------------- */

/* InferTypeOpInterface: the results are the types sdy.return returns. */
static bool S_check_named_entry(vf_ctx *cx, const shard_op *op) {
  const shard_op *term = S_body_terminator(op);
  if (!term) return true;
  bool same = term->num_operands == op->num_results;
  for (uint32_t i = 0; same && i < op->num_results; i++)
    same = term->operands[i].value && shard_type_equal(term->operands[i].value->type, op->results[i].type);
  if (same) return true;
  shard_type **inferred = S_operand_types(term), **declared = S_result_types(op);
  vf_emit e = shard_verify_emit_op(cx, op, NULL);
  shard_verify_fail(&e, "inferred type(s) %s are incompatible with return type(s) of operation %s",
                    shard_verify_types_str(cx, inferred, term->num_operands),
                    shard_verify_types_str(cx, declared, op->num_results));
  shard_verify_fail(&e, "failed to infer returned types");
  free(inferred);
  free(declared);
  return false;
}

static bool S_check_named_symbol_uses(vf_ctx *cx, const shard_op *op, const vf_manual *manual) {
  const shard_block *body = op->num_regions ? op->regions[0].first : NULL;
  uint32_t nargs = body ? body->num_args : 0;
  vf_emit plain = shard_verify_emit_op(cx, NULL, NULL);
  plain.span = op->span;
  if (nargs != op->num_operands)
    return shard_verify_fail(&plain, "number of block arguments must match the number of operands: %u != %u", nargs,
                             op->num_operands);
  for (uint32_t i = 0; i < nargs; i++) {
    const shard_type *inner = body->args[i].type;
    const shard_type *outer = op->operands[i].value ? op->operands[i].value->type : NULL;
    if (!shard_type_equal(inner, outer))
      return shard_verify_fail(&plain,
                               "expected the type of the %u'th block argument to match the type of the "
                               "corresponding operand: '%s' vs '%s'",
                               i, shard_verify_type_str(inner), shard_verify_type_str(outer));
  }
  const shard_sharding_per_value *in = S_per_value(op, "in_shardings"), *out = S_per_value(op, "out_shardings");
  bool ok = true;
  if (in) {
    shard_type **t = S_operand_types(op);
    vf_emit e = shard_verify_emit_op(cx, op, "in_shardings ");
    ok = shard_verify_check_per_value(&e, in, t, op->num_operands, manual);
    free(t);
  }
  if (ok && out) {
    shard_type **t = S_result_types(op);
    vf_emit e = shard_verify_emit_op(cx, op, "out_shardings ");
    ok = shard_verify_check_per_value(&e, out, t, op->num_results, manual);
    free(t);
  }
  return ok;
}

/* ---- data-flow edges ---------------------------------------------------- */

static bool S_has_one_use(const shard_value *v) { return v && v->first_use && !v->first_use->next_use; }

static const shard_type *S_result_type(const shard_op *op) { return op->num_results ? op->results[0].type : NULL; }

static const shard_value *S_operand(const shard_op *op) { return op->num_operands ? op->operands[0].value : NULL; }

static bool S_check_data_flow_edge(vf_ctx *cx, const shard_op *op, const vf_manual *manual) {
  vf_emit e = shard_verify_emit_op(cx, op, NULL);
  const shard_type *t = S_result_type(op);
  if (!shard_verify_type_static(t))
    return shard_verify_fail(&e, "expected sdy.data_flow_edge to have a static-shaped result. type: '%s'",
                             shard_verify_type_str(t));
  const shard_value *in = S_operand(op);
  if (!S_has_one_use(in)) return shard_verify_fail(&e, "expected input of sdy.data_flow_edge to have a single user");
  const shard_op *dep = in->def;
  if (dep && shard_verify_is_sdy_op(dep) && !shard_verify_op_is(dep, "sdy.named_computation") &&
      !shard_verify_op_is(dep, "sdy.manual_computation")) {
    shard_verify_fail(&e, "expected input of sdy.data_flow_edge to not be defined by an SdyDialect op (other than an "
                          "sdy.named_computation).");
    shard_verify_note(cx, dep->span, "sdy op defining the input of the sdy.data_flow_edge");
    return false;
  }
  const shard_attr *s = shard_verify_attr(op, "sharding");
  if (s && s->kind == SHARD_ATTR_SDY_SHARDING) return shard_verify_check_sharding_lookup(&e, s->u.sharding, t, manual);
  return true;
}

static bool S_check_func_data_flow_edge(vf_ctx *cx, const shard_op *op) {
  vf_emit e = shard_verify_emit_op(cx, op, NULL);
  const shard_type *t = S_result_type(op);
  if (!shard_verify_type_static(t))
    return shard_verify_fail(&e, "expected sdy.func_data_flow_edge to have a static-shaped result. type: '%s'",
                             shard_verify_type_str(t));
  const shard_value *in = S_operand(op);
  if (!in) return shard_verify_fail(&e, "expected operand of sdy.func_data_flow_edge should be non-null.");
  if (!S_has_one_use(in))
    return shard_verify_fail(&e, "expected operand of sdy.func_data_flow_edge to have a single user");
  if (!in->def) {
    const shard_op *owner = in->block && in->block->parent ? in->block->parent->parent : NULL;
    if (!shard_verify_op_is(owner, "func.func"))
      return shard_verify_fail(&e, "expected operand of sdy.func_data_flow_edge to be a block argument of a func op.");
  } else if (!shard_verify_op_is(in->def, "func.call")) {
    return shard_verify_fail(&e, "expected operand of sdy.func_data_flow_edge to be a result of call op.");
  }
  return true;
}

/* ---- sharding_constraint and reshard ------------------------------------ */

static bool S_check_constraint(vf_ctx *cx, const shard_op *op, const vf_manual *manual) {
  vf_emit e = shard_verify_emit_op(cx, op, NULL);
  const shard_attr *a = shard_verify_attr(op, "sharding");
  if (!a || a->kind != SHARD_ATTR_SDY_SHARDING) return shard_verify_fail(&e, "requires attribute 'sharding'");
  if (!shard_verify_check_sharding_lookup(&e, a->u.sharding, S_result_type(op), manual)) return false;
  const shard_tensor_sharding *src = shard_verify_value_sharding_bypassing_barriers(cx, S_operand(op));
  if (!src) return true;
  return shard_verify_check_unreduced_transition(&e, src, a->u.sharding, true, SHARD_RED_SUM, true, src->reduction);
}

/* ---- dispatch ----------------------------------------------------------- */

bool shard_verify_check_op_entry(vf_ctx *cx, const shard_op *op, const vf_manual *manual) {
  vf_emit e = shard_verify_emit_op(cx, op, NULL);
  if (shard_verify_op_is(op, "func.func")) return S_check_func(cx, op, manual);
  if (shard_verify_op_is(op, "func.return")) return S_check_return(cx, op);
  /* the rest are sdy ops: most ops are not, and go by one prefix test */
  if (!shard_verify_is_sdy_op(op)) return true;
  if (shard_verify_op_is(op, "sdy.mesh")) {
    const shard_op *parent = shard_op_parent_op(op);
    if (parent && !shard_verify_op_is(parent, "builtin.module"))
      return shard_verify_fail(&e, "expects parent op 'builtin.module'");
    return true;
  }
  if (shard_verify_op_is(op, "sdy.manual_computation")) return S_check_manual_entry(cx, op, manual);
  if (shard_verify_op_is(op, "sdy.named_computation")) return S_check_named_entry(cx, op);
  if (shard_verify_op_is(op, "sdy.propagation_barrier")) {
    const shard_attr *d = shard_verify_attr(op, "allowed_direction");
    if (d && d->kind == SHARD_ATTR_SDY_DIRECTION && d->u.direction == SHARD_DIR_BOTH)
      return shard_verify_fail(&e,
                               "cannot specify `BOTH` as the direction. Not blocking propagation direction makes the "
                               "op redundant.");
    return true;
  }
  if (shard_verify_op_is(op, "sdy.constant")) {
    const shard_type *t = S_result_type(op);
    if (t && !shard_verify_type_static(t)) {
      vf_emit plain = shard_verify_emit_op(cx, NULL, NULL);
      plain.span = op->span;
      return shard_verify_fail(&plain, "elements literal type must have static shape");
    }
    return true;
  }
  if (shard_op_is_sdy_collective(op)) return shard_verify_check_collective_entry(cx, op, manual);
  return true;
}

/* func.call's verifySymbolUses: the callee is a func.func of the module
 * whose signature the call's operands and results match. Calls inside a
 * nested module resolve in its own symbol table, which is not indexed, and
 * are left alone. */
static bool S_check_call(vf_ctx *cx, const shard_op *op) {
  const shard_op *table = op->parent && op->parent->parent ? op->parent->parent->parent : NULL;
  while (table && !shard_verify_op_is(table, "builtin.module"))
    table = table->parent && table->parent->parent ? table->parent->parent->parent : NULL;
  if (table != cx->m->top) return true;
  const shard_attr *callee = shard_verify_attr(op, "callee");
  if (!callee || callee->kind != SHARD_ATTR_SYMREF) return true; /* reported with the required attributes */
  vf_emit e = shard_verify_emit_op(cx, op, NULL);
  if (callee->u.symref.num != 1)
    return shard_verify_fail(&e, "attribute 'callee' failed to satisfy constraint: flat symbol reference attribute");
  const char *name = callee->u.symref.path[0];
  const shard_op *fn = shard_verify_lookup_symbol(cx, name);
  const shard_attr *ft = fn && shard_verify_op_is(fn, "func.func") ? shard_verify_attr(fn, "function_type") : NULL;
  const shard_type *t = ft && ft->kind == SHARD_ATTR_TYPE ? ft->u.type : NULL;
  if (!t || t->kind != SHARD_TYPE_FUNCTION)
    return shard_verify_fail(&e, "'%s' does not reference a valid function", name);
  if (t->num_inputs != op->num_operands) return shard_verify_fail(&e, "incorrect number of operands for callee");
  for (uint32_t i = 0; i < t->num_inputs; i++) {
    const shard_type *given = op->operands[i].value ? op->operands[i].value->type : NULL;
    if (!given || !shard_type_equal(given, t->inputs[i]))
      return shard_verify_fail(
          &e, "operand type mismatch: expected operand type '%s', but provided '%s' for operand number %u",
          shard_verify_type_str(t->inputs[i]), shard_verify_type_str(given), i);
  }
  if (t->num_results != op->num_results) return shard_verify_fail(&e, "incorrect number of results for callee");
  for (uint32_t i = 0; i < t->num_results; i++)
    if (!shard_type_equal(op->results[i].type, t->results[i]))
      return shard_verify_fail(&e, "result type mismatch at index %u", i);
  return true;
}

bool shard_verify_check_op_symbol_uses(vf_ctx *cx, const shard_op *op, const vf_manual *manual) {
  if (shard_verify_op_is(op, "func.call")) return S_check_call(cx, op);
  if (!shard_verify_is_sdy_op(op)) return true;
  if (shard_verify_op_is(op, "sdy.sharding_constraint") || shard_verify_op_is(op, "sdy.reshard"))
    return S_check_constraint(cx, op, manual);
  if (shard_verify_op_is(op, "sdy.manual_computation")) return S_check_manual_symbol_uses(cx, op, manual);
  if (shard_verify_op_is(op, "sdy.named_computation")) return S_check_named_symbol_uses(cx, op, manual);
  if (shard_verify_op_is(op, "sdy.data_flow_edge")) return S_check_data_flow_edge(cx, op, manual);
  if (shard_verify_op_is(op, "sdy.func_data_flow_edge")) return S_check_func_data_flow_edge(cx, op);
  if (shard_op_is_sdy_collective(op)) return shard_verify_check_collective_symbol_uses(cx, op);
  return true;
}

/* shard's own limit: no pass, explanation or interpretation follows a cycle
 * of calls (inlining, flattening and the interpreter would recurse without
 * end), so the verifier rejects one at the call that starts it. */
bool shard_verify_check_recursion(vf_ctx *cx) {
  char *msg;
  const shard_op *call = shard_call_graph_find_recursion(cx->m, &msg);
  if (!call) return true;
  vf_emit e = shard_verify_emit_op(cx, NULL, NULL);
  e.span = call->span;
  shard_verify_fail(&e, "%s", msg);
  free(msg);
  return false;
}
