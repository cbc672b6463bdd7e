/* StableHLO's op constraints: the checks StableHLO's shape functions and op
 * verifiers make (stablehlo/dialect/TypeInference.cpp, StablehloOps.cpp),
 * with their messages, for the ops shard models. Passes, the interpreter and
 * `lower --verify` index shapes with these attributes (a permutation, a
 * reduced dimension, a concatenated dimension, ...), so an out-of-range value
 * must stop here.
 *
 * How MLIR reports them: a shape function's complaint is emitted at the op's
 * location without the op prefix ("error: dimension 7 is out-of-bounds for
 * input rank 2"), then "'stablehlo.X' op failed to infer returned types"; an
 * inferred type that differs from the declared one is "'stablehlo.X' op
 * inferred type(s) 'A' are incompatible with return type(s) of operation 'B'".
 * Op verifiers (broadcast_in_dim, iota, sort, ...) emit at the location
 * without the op prefix and nothing after. Shapes are compared as
 * `verifyCompatibleShape` does: a dynamic size matches any size. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/opdef.h"
#include "ir/ops_stablehlo.h"
#include "verify/verify_internal.h"

/* ---- helpers ------------------------------------------------------------- */

typedef struct S_op {
  vf_ctx *cx;
  const shard_op *op;
  vf_emit at; /* the op's location, no prefix (emitOptionalError) */
  vf_emit with; /* "'<op>' op " */
} S_op;

static S_op S_begin(vf_ctx *cx, const shard_op *op) {
  /* shard_verify_emit_op(cx, NULL, NULL) at the op's span, and
   * shard_verify_emit_op(cx, op, NULL): built in place, once per op */
  S_op s = {cx, op, {cx, NULL, op->span, ""}, {cx, op, op->span, ""}};
  return s;
}

/* A type as MLIR's diagnostics print it: quoted. */
static const char *S_ty(S_op *s, const shard_type *t) {
  return shard_arena_printf(s->cx->scratch, "'%s'", shard_verify_type_str(t));
}

static const shard_type *S_operand_type(const shard_op *op, uint32_t i) {
  return i < op->num_operands && op->operands[i].value ? op->operands[i].value->type : NULL;
}

static const shard_type *S_result_type(const shard_op *op, uint32_t i) {
  return i < op->num_results ? op->results[i].type : NULL;
}

static bool S_ranked(const shard_type *t) { return t && t->kind == SHARD_TYPE_TENSOR; }

static bool S_dynamic(int64_t d) { return d == SHARD_DYNAMIC_DIM; }

static bool S_dims_compatible(int64_t a, int64_t b) { return S_dynamic(a) || S_dynamic(b) || a == b; }

/* verifyCompatibleShape over two shaped types; non-tensors must be equal. */
static bool S_shapes_compatible(const shard_type *a, const shard_type *b) {
  if (!a || !b) return false;
  if (a == b) return true; /* the parser shares a type among its uses: most asks */
  bool ta = a->kind == SHARD_TYPE_TENSOR || a->kind == SHARD_TYPE_UNRANKED_TENSOR;
  bool tb = b->kind == SHARD_TYPE_TENSOR || b->kind == SHARD_TYPE_UNRANKED_TENSOR;
  if (!ta || !tb) return shard_type_equal(a, b);
  if (a->kind == SHARD_TYPE_UNRANKED_TENSOR || b->kind == SHARD_TYPE_UNRANKED_TENSOR) return true;
  if (a->rank != b->rank) return false;
  for (uint32_t i = 0; i < a->rank; i++)
    if (!S_dims_compatible(a->dims[i], b->dims[i])) return false;
  return true;
}

static bool S_is_float(const char *e) {
  return e && (e[0] == 'f' || strncmp(e, "bf16", 4) == 0 || strncmp(e, "tf32", 4) == 0);
}

static const char *S_elem(const shard_type *t) {
  return t && (t->kind == SHARD_TYPE_TENSOR || t->kind == SHARD_TYPE_UNRANKED_TENSOR) ? t->elem : NULL;
}

/* tensorsHaveSameElType: floats of any precision match when ignore_fp. */
static bool S_same_elem(const shard_type *a, const shard_type *b, bool ignore_fp) {
  const char *x = S_elem(a), *y = S_elem(b);
  if (!x || !y) return shard_type_equal(a, b);
  if (ignore_fp && S_is_float(x) && S_is_float(y)) return true;
  return strcmp(x, y) == 0;
}

/* compatibleShapeAndElementType */
static bool S_compatible(const shard_type *a, const shard_type *b, bool ignore_fp) {
  return S_shapes_compatible(a, b) && S_same_elem(a, b, ignore_fp);
}

static const int64_t *S_dims_attr(const shard_op *op, const char *name, uint32_t *n) {
  const shard_attr *a = shard_verify_attr(op, name);
  if (!a || a->kind != SHARD_ATTR_DENSE_ARRAY) {
    *n = 0;
    return NULL;
  }
  *n = a->u.dense_array.num;
  return a->u.dense_array.vals;
}

static bool S_int_attr(const shard_op *op, const char *name, int64_t *v) {
  const shard_attr *a = shard_verify_attr(op, name);
  if (!a || a->kind != SHARD_ATTR_INT) return false;
  *v = a->u.integer.value;
  return true;
}

/* "1, 5" */
static const char *S_list(vf_ctx *cx, const int64_t *v, uint32_t n) {
  shard_buf b;
  shard_buf_init(&b);
  for (uint32_t i = 0; i < n; i++) shard_buf_printf(&b, "%s%" PRId64, i ? ", " : "", v[i]);
  const char *s = shard_arena_strdup(cx->scratch, shard_buf_str(&b));
  shard_buf_free(&b);
  return s;
}

/* "2, ?" (dimSizesToString inside brackets) */
static const char *S_shape(vf_ctx *cx, const int64_t *v, uint32_t n) {
  shard_buf b;
  shard_buf_init(&b);
  for (uint32_t i = 0; i < n; i++) {
    if (i) shard_buf_puts(&b, ", ");
    if (S_dynamic(v[i])) shard_buf_puts(&b, "?");
    else shard_buf_printf(&b, "%" PRId64, v[i]);
  }
  const char *s = shard_arena_strdup(cx->scratch, shard_buf_str(&b));
  shard_buf_free(&b);
  return s;
}

static bool S_has_duplicates(const int64_t *v, uint32_t n) {
  for (uint32_t i = 0; i < n; i++)
    for (uint32_t j = i + 1; j < n; j++)
      if (v[i] == v[j]) return true;
  return false;
}

static bool S_contains(const int64_t *v, uint32_t n, int64_t x) {
  for (uint32_t i = 0; i < n; i++)
    if (v[i] == x) return true;
  return false;
}

/* A shape function failed: its message, then InferTypeOpInterface's. */
static bool S_infer_fail(S_op *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static bool S_infer_fail(S_op *s, const char *fmt, ...) {
  char msg[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  shard_verify_fail(&s->at, "%s", msg);
  return shard_verify_fail(&s->with, "failed to infer returned types");
}

/* The inferred result types against the declared ones. */
static bool S_check_inferred(S_op *s, shard_type *const *inferred, uint32_t n) {
  bool same = n == s->op->num_results;
  for (uint32_t i = 0; same && i < n; i++) same = S_compatible(inferred[i], S_result_type(s->op, i), false);
  if (same) return true;
  shard_type **declared = SHARD_NEW_ARRAY(s->cx->scratch, shard_type *, s->op->num_results + 1);
  for (uint32_t i = 0; i < s->op->num_results; i++) declared[i] = s->op->results[i].type;
  shard_verify_fail(&s->with, "inferred type(s) %s are incompatible with return type(s) of operation %s",
                    shard_verify_types_str(s->cx, inferred, n),
                    shard_verify_types_str(s->cx, declared, s->op->num_results));
  return shard_verify_fail(&s->with, "failed to infer returned types");
}

static bool S_check_inferred1(S_op *s, shard_type *inferred) { return S_check_inferred(s, &inferred, 1); }

static shard_type *S_tensor(S_op *s, uint32_t rank, const int64_t *dims, const char *elem) {
  return shard_type_tensor(s->cx->scratch, rank, dims, elem, NULL);
}

/* S_check_inferred1 of tensor<dims x elem> without building the type when
 * the op's one result is compatible with it (every op of a module passes
 * here; building a type and its text cost more than the rest of the check). */
static bool S_check_inferred_tensor(S_op *s, uint32_t rank, const int64_t *dims, const char *elem) {
  const shard_type *r = s->op->num_results == 1 ? s->op->results[0].type : NULL;
  if (r && r->kind == SHARD_TYPE_TENSOR && r->rank == rank && elem && r->elem && strcmp(r->elem, elem) == 0) {
    bool same = true;
    for (uint32_t i = 0; same && i < rank; i++) same = S_dims_compatible(dims[i], r->dims[i]);
    if (same) return true;
  }
  return S_check_inferred1(s, S_tensor(s, rank, dims, elem));
}

/* A region's single block and its terminator's operands. */
static const shard_block *S_block(const shard_op *op, uint32_t r) {
  return r < op->num_regions ? op->regions[r].first : NULL;
}

static const shard_op *S_terminator(const shard_block *b) { return b ? b->last : NULL; }

static const shard_type *S_scalar_of(S_op *s, const shard_type *t) {
  const char *e = S_elem(t);
  return e ? S_tensor(s, 0, NULL, e) : t;
}

/* ---- reducer regions (verifyReducerShape) -------------------------------- */

static bool S_check_reducer(S_op *s, const shard_block *b, const shard_type *const *inputs,
                            const shard_type *const *inits, uint32_t n, const int64_t *allowed, uint32_t nallowed) {
  vf_ctx *cx = s->cx;
  if (!b) return shard_verify_fail(&s->at, "expect non-empty region");
  if (b->num_args != 2 * n)
    return shard_verify_fail(&s->at, "Reduction-region must take %u parameters, but takes %u parameter(s)", 2 * n,
                             b->num_args);
  const shard_op *term = S_terminator(b);
  uint32_t nret = term ? term->num_operands : 0;
  if (!nret) return shard_verify_fail(&s->at, "The reduction-region expected to return some value(s)");
  if (nret != n)
    return shard_verify_fail(&s->at, "Reduction-region here must produce %u tensors, but produces %u instead", n, nret);
  for (uint32_t i = 0; i < n; i++) {
    const shard_type *acc = S_operand_type(term, i);
    if (!S_elem(acc))
      return shard_verify_fail(&s->at,
                               "Reduction-region here must produce tensor-typed result(s), but produces %s "
                               "instead",
                               S_ty(s, acc));
  }
  for (uint32_t i = 0; i < n; i++) {
    const shard_type *acc = S_operand_type(term, i);
    const shard_type *a0 = b->args[i].type, *a1 = b->args[n + i].type;
    if (!S_compatible(acc, a0, false))
      return shard_verify_fail(&s->at,
                               "The type of reduction-region's parameter at index %u is different than the "
                               "corresponding result type: %s vs %s",
                               i, S_ty(s, a0), S_ty(s, acc));
    if (!S_compatible(acc, a1, true))
      return shard_verify_fail(&s->at,
                               "The type of reduction-region's parameter at index %u is different than the "
                               "corresponding result type: %s vs %s",
                               n + i, S_ty(s, a1), S_ty(s, acc));
    if (!S_compatible(acc, inits[i], true))
      return shard_verify_fail(&s->at,
                               "The type of reduction-region's result type at index %u differs from the op's "
                               "corresponding init-value type: %s vs %s",
                               i, S_ty(s, acc), S_ty(s, inits[i]));
    if (!S_same_elem(inputs[i], a1, true))
      return shard_verify_fail(&s->at,
                               "The element-type of reduction-region's argument at index %u is expected to be "
                               "'%s', but got %s as its type.",
                               n + i, S_elem(inputs[i]) ? S_elem(inputs[i]) : "?", S_ty(s, a1));
    if (!S_ranked(a1) || !S_ranked(inputs[i])) continue;
    if (a1->rank > nallowed)
      return shard_verify_fail(&s->at,
                               "The rank of reduction-region's argument at index %u is expected to be <= %u, "
                               "got %u",
                               n + i, nallowed, a1->rank);
    uint32_t k = 0;
    for (uint32_t o = 0; o < nallowed && k < a1->rank; o++)
      if (S_dims_compatible(allowed[o], a1->dims[k])) k++;
    if (k != a1->rank)
      return shard_verify_fail(&s->at,
                               "The shape of reduction-region's argument at index %u is not compatible with "
                               "that of reduce-op's input-parameter at index %u",
                               n + i, i);
  }
  (void)cx;
  return true;
}

/* ---- replica groups (verifyReplicaGroups) --------------------------------- */

/* The checks below work on owned copies (shlo_dims) of the integer lists
 * the parser decoded (ir/attr.h's typed attributes). */
static void S_copy_list(const shard_i64s *in, shlo_dims *out) {
  out->num = in->n;
  out->vals = shard_xmalloc(((size_t)in->n + 1) * sizeof *out->vals);
  if (in->n) memcpy(out->vals, in->v, in->n * sizeof *out->vals);
}

/* The dot dimension numbers as the checks below read them: views of the
 * parser's lists (nothing to free). */
typedef struct shlo_dot_dims {
  shlo_dims lhs_batch, rhs_batch, lhs_contract, rhs_contract;
} shlo_dot_dims;

static shlo_dims S_view(const shard_i64s *l) { return (shlo_dims){(int64_t *)l->v, l->n, {0}}; }

static bool S_dot_dims_view(const shard_attr *a, shlo_dot_dims *d) {
  const shard_dot_dims *t = shard_attr_dot_dims(a);
  if (!t) return false;
  *d =
      (shlo_dot_dims){S_view(&t->lhs_batch), S_view(&t->rhs_batch), S_view(&t->lhs_contract), S_view(&t->rhs_contract)};
  return true;
}

/* Gather's offset_dims, collapsed_slice_dims, operand_batching_dims,
 * start_indices_batching_dims, start_index_map; scatter's
 * update_window_dims, inserted_window_dims, input_batching_dims,
 * scatter_indices_batching_dims, scatter_dims_to_operand_dims. */
typedef struct shlo_dimnums {
  bool is_gather;
  shlo_dims lists[5];
  int64_t index_vector_dim;
} shlo_dimnums;

static void S_dimnums_free(shlo_dimnums *d) {
  for (int i = 0; i < 5; i++) shard_shlo_dims_free(&d->lists[i]);
}

/* The integers of a dense<...> attribute and its 2-D shape; false (nothing
 * to check) when the attribute is absent or not an integer literal. */
static bool S_dense_matrix(S_op *s, const char *name, shlo_dims *vals, const shard_type **type) {
  const shard_attr *a = shard_verify_attr(s->op, name);
  if (!a || a->kind != SHARD_ATTR_DENSE || !S_ranked(a->u.dense.type)) return false;
  *type = a->u.dense.type;
  int64_t n = shard_type_num_elements(*type);
  if (n < 0 || n > UINT32_MAX - 1) return false;
  shard_i64s l;
  if (!shard_attr_i64_list(a, &l) || l.n != (uint32_t)n) return false;
  S_copy_list(&l, vals);
  return true;
}

static int S_cmp_i64(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return x < y ? -1 : x > y;
}

static bool S_replica_groups(S_op *s, bool all_same_size, int64_t expected_group_size) {
  shlo_dims v = {0};
  const shard_type *t;
  if (!S_dense_matrix(s, "replica_groups", &v, &t)) return true;
  bool ok = true;
  bool global_ids = shard_verify_attr(s->op, "use_global_device_ids") != NULL;
  int64_t *sorted = NULL;
  if (t->rank != 2) {
    ok = shard_verify_fail(&s->at, "replica groups should be a rank 2 tensor");
    goto out;
  }
  if (global_ids && (t->dims[0] == 0 || t->dims[1] == 0)) {
    ok = shard_verify_fail(&s->at, "if `use_global_device_ids` is set, the replica groups cannot be empty");
    goto out;
  }
  sorted = shard_xmalloc(sizeof *sorted * (v.num + 1));
  uint32_t n = 0;
  for (uint32_t i = 0; i < v.num; i++) {
    if (v.vals[i] == -1) {
      if (!all_same_size) continue;
      ok = shard_verify_fail(&s->at, "Invalid replica id -1");
      goto out;
    }
    sorted[n++] = v.vals[i];
  }
  qsort(sorted, n, sizeof *sorted, S_cmp_i64);
  for (uint32_t i = 1; i < n; i++)
    if (sorted[i] == sorted[i - 1]) {
      ok = shard_verify_fail(&s->at, "replica id #%" PRId64 " seen more than once", sorted[i]);
      goto out;
    }
  /* ids 0..n-1 must all be there: the k-th smallest is k */
  for (uint32_t i = 0; i < n; i++)
    if (sorted[i] != (int64_t)i) {
      ok = shard_verify_fail(&s->at, "replica id #%u not seen in replica groups", i);
      goto out;
    }
  if (all_same_size && expected_group_size >= 0 && t->dims[0] > 0 && (int64_t)v.num / t->dims[0] != expected_group_size)
    ok = shard_verify_fail(&s->at, "group size of replica_groups must be %" PRId64, expected_group_size);
out:
  free(sorted);
  shard_shlo_dims_free(&v);
  return ok;
}

static bool S_collective_permute(S_op *s) {
  shlo_dims v = {0};
  const shard_type *t;
  if (!S_dense_matrix(s, "source_target_pairs", &v, &t)) return true;
  bool ok = true;
  if (t->rank != 2)
    ok = shard_verify_fail(&s->at, "expect source_target_pairs attribute to be of rank 2, but got rank %u", t->rank);
  else if (t->dims[1] != 2)
    ok = shard_verify_fail(&s->at, "expect source_target_pairs attribute of shape (N, 2), but got (%s)",
                           S_shape(s->cx, t->dims, t->rank));
  for (uint32_t i = 0; ok && i < v.num; i++) {
    if (v.vals[i] < 0) {
      ok = shard_verify_fail(&s->at, "replica ids in source_target_pairs must be >= 0.");
      break;
    }
    for (uint32_t j = i % 2; j < i; j += 2)
      if (v.vals[j] == v.vals[i]) {
        ok = shard_verify_fail(&s->at, i % 2 ? "duplicate targets not allowed." : "duplicate sources not allowed.");
        break;
      }
  }
  shard_shlo_dims_free(&v);
  return ok;
}

/* ---- ops ----------------------------------------------------------------- */

static bool S_transpose(S_op *s) {
  const shard_type *t = S_operand_type(s->op, 0);
  uint32_t n;
  const int64_t *perm = S_dims_attr(s->op, "permutation", &n);
  if (!S_ranked(t)) return true;
  if (n != t->rank)
    return S_infer_fail(s, "TransposeOp operand rank %u does not match permutation size %u", t->rank, n);
  bool ok = true;
  for (uint32_t i = 0; i < n && ok; i++) ok = perm[i] >= 0 && perm[i] < (int64_t)n && !S_contains(perm, i, perm[i]);
  if (!ok) {
    int64_t *range = SHARD_NEW_ARRAY(s->cx->scratch, int64_t, n + 1);
    for (uint32_t i = 0; i < n; i++) range[i] = i;
    return S_infer_fail(s, "attribute permutation must be a permutation of [%s] but got [%s]", S_list(s->cx, range, n),
                        S_list(s->cx, perm, n));
  }
  int64_t *dims = SHARD_NEW_ARRAY(s->cx->scratch, int64_t, n + 1);
  for (uint32_t i = 0; i < n; i++) dims[i] = t->dims[perm[i]];
  const char *elem = t->elem;
  if (t->quant && t->quant->axis >= 0) /* a per-axis type's quantization dimension moves with its dim */
    for (uint32_t i = 0; i < n; i++)
      if (perm[i] == t->quant->axis) elem = shard_quant_text_with_axis(s->cx->scratch, t->quant, i);
  return S_check_inferred_tensor(s, n, dims, elem);
}

static bool S_concatenate(S_op *s) {
  int64_t dim = 0;
  S_int_attr(s->op, "dimension", &dim);
  if (dim < 0) return S_infer_fail(s, "dimension %" PRId64 " is negative", dim);
  if (!s->op->num_operands) return shard_verify_fail(&s->with, "expected 1 or more operands, but found 0");
  const shard_type *first = NULL;
  uint32_t first_index = 0;
  for (uint32_t i = 0; i < s->op->num_operands; i++) {
    const shard_type *t = S_operand_type(s->op, i);
    if (!S_ranked(t)) continue;
    if (!first) {
      first = t, first_index = i;
      if (!t->rank) return S_infer_fail(s, "rank-0 values cannot be concatenated");
      if (dim >= (int64_t)t->rank)
        return S_infer_fail(s, "dimension %" PRId64 " is out-of-bounds for input rank %u", dim, t->rank);
      continue;
    }
    if (t->rank != first->rank) return S_infer_fail(s, "operands (%u) and (%u) do not match rank", first_index, i);
    for (uint32_t d = 0; d < t->rank; d++)
      if ((int64_t)d != dim && !S_dims_compatible(first->dims[d], t->dims[d]))
        return S_infer_fail(s,
                            "shapes of operand (%u) and (%u) do not match at non-concat index: (%s) != (%s) at "
                            "non-concat index %u",
                            first_index, i, S_shape(s->cx, first->dims, first->rank), S_shape(s->cx, t->dims, t->rank),
                            d);
  }
  if (!first) return true;
  int64_t *dims = SHARD_NEW_ARRAY(s->cx->scratch, int64_t, first->rank);
  for (uint32_t d = 0; d < first->rank; d++) dims[d] = (int64_t)d == dim ? 0 : SHARD_DYNAMIC_DIM;
  for (uint32_t i = 0; i < s->op->num_operands; i++) {
    const shard_type *t = S_operand_type(s->op, i);
    for (uint32_t d = 0; d < first->rank; d++) {
      int64_t x = S_ranked(t) ? t->dims[d] : SHARD_DYNAMIC_DIM;
      if ((int64_t)d == dim) {
        if (S_dynamic(dims[d]) || S_dynamic(x) || __builtin_add_overflow(dims[d], x, &dims[d]))
          dims[d] = SHARD_DYNAMIC_DIM;
      } else if (S_dynamic(dims[d])) {
        dims[d] = x;
      }
    }
  }
  return S_check_inferred_tensor(s, first->rank, dims, first->elem);
}

static bool S_iota(S_op *s) {
  const shard_type *t = S_result_type(s->op, 0);
  int64_t dim = 0;
  S_int_attr(s->op, "iota_dimension", &dim);
  if (!S_ranked(t)) return true;
  if (!t->rank) return shard_verify_fail(&s->at, "does not support scalars.");
  if (dim < 0 || dim >= (int64_t)t->rank)
    return shard_verify_fail(&s->at, "iota dimension cannot go beyond the output rank or be negative.");
  return true;
}

static bool S_dynamic_iota(S_op *s) {
  const shard_type *t = S_result_type(s->op, 0);
  int64_t dim = 0;
  S_int_attr(s->op, "iota_dimension", &dim);
  if (S_ranked(t) && (dim < 0 || dim >= (int64_t)t->rank))
    return shard_verify_fail(&s->at, "iota dimension cannot go beyond the output rank or be negative.");
  return true;
}

/* sort: SameOperandsAndResultShape, the inferred result types (the
 * operands'), the dimension and the comparator (verifySortOp). */
static bool S_sort(S_op *s) {
  const shard_op *op = s->op;
  if (!op->num_operands) return shard_verify_fail(&s->with, "expected 1 or more operands, but found 0");
  for (uint32_t i = 1; i < op->num_operands; i++)
    if (!S_shapes_compatible(S_operand_type(op, 0), S_operand_type(op, i)))
      return shard_verify_fail(&s->with, "requires the same shape for all operands and results");
  shard_type **inferred = SHARD_NEW_ARRAY(s->cx->scratch, shard_type *, op->num_operands);
  for (uint32_t i = 0; i < op->num_operands; i++) inferred[i] = (shard_type *)S_operand_type(op, i);
  if (!S_check_inferred(s, inferred, op->num_operands)) return false;
  int64_t dim = -1;
  S_int_attr(op, "dimension", &dim);
  const shard_type *t = S_operand_type(op, 0);
  if (S_ranked(t) && (dim < -(int64_t)t->rank || dim >= (int64_t)t->rank))
    return shard_verify_fail(&s->at, "dimension attribute value must be in range [-%u, %u), but found %" PRId64,
                             t->rank, t->rank, dim);
  const shard_block *b = S_block(op, 0);
  if (!b) return shard_verify_fail(&s->with, "requires one region");
  if (b->num_args != 2 * op->num_operands)
    return shard_verify_fail(&s->at, "comparator block should have %u arguments", 2 * op->num_operands);
  for (uint32_t i = 0; i < op->num_operands; i++) {
    const shard_type *want = S_scalar_of(s, S_operand_type(op, i));
    for (uint32_t k = 2 * i; k <= 2 * i + 1; k++)
      if (!shard_type_equal(b->args[k].type, want))
        return shard_verify_fail(&s->at, "comparator block argument #%u should be of type %s but got %s", k,
                                 S_ty(s, want), S_ty(s, b->args[k].type));
  }
  const shard_op *term = S_terminator(b);
  uint32_t nret = term ? term->num_operands : 0;
  if (nret != 1) return shard_verify_fail(&s->at, "comparator must return single output but got %u", nret);
  const shard_type *rt = S_operand_type(term, 0);
  if (!S_elem(rt) || strcmp(S_elem(rt), "i1") != 0 || (S_ranked(rt) && rt->rank))
    return shard_verify_fail(&s->at, "comparator must return tensor<i1> but got %s", S_ty(s, rt));
  return true;
}

/* reduce: N inputs then N init values (SameVariadicOperandSize), the
 * dimensions, the reducer and the inferred result types. */
static bool S_reduce(S_op *s) {
  const shard_op *op = s->op;
  if (op->num_operands % 2)
    return shard_verify_fail(
        &s->with, "operand count (%u) is not divisible by the number of variadic operand groups (2)", op->num_operands);
  uint32_t n = op->num_operands / 2;
  const shard_type **in = SHARD_NEW_ARRAY(s->cx->scratch, const shard_type *, n + 1);
  const shard_type **init = SHARD_NEW_ARRAY(s->cx->scratch, const shard_type *, n + 1);
  int ranked = -1;
  for (uint32_t i = 0; i < n; i++) {
    in[i] = S_operand_type(op, i), init[i] = S_operand_type(op, n + i);
    if (ranked < 0 && S_ranked(in[i])) ranked = (int)i;
  }
  if (ranked >= 0)
    for (uint32_t i = 0; i < n; i++)
      if (!S_shapes_compatible(in[ranked], in[i]))
        return S_infer_fail(s,
                            "expects all inputs to have compatible shapes. Shape at input-index %u is not "
                            "compatible with shape at input-index %d",
                            i, ranked);
  uint32_t nd;
  const int64_t *dims = S_dims_attr(op, "dimensions", &nd);
  for (uint32_t i = 0; i < nd; i++) {
    if ((ranked >= 0 && dims[i] >= (int64_t)in[ranked]->rank) || dims[i] < 0) {
      if (ranked >= 0)
        return S_infer_fail(s, "Out-of-bounds dimension %" PRId64 ", expected to be less than the input-tensor rank %u",
                            dims[i], in[ranked]->rank);
      return S_infer_fail(s, "Out-of-bounds dimension %" PRId64 ", expected to be > 0", dims[i]);
    }
    if (S_contains(dims, i, dims[i])) return S_infer_fail(s, "Duplicate reduction dimension: %" PRId64, dims[i]);
  }
  uint32_t nkept = 0;
  int64_t *kept = SHARD_NEW_ARRAY(s->cx->scratch, int64_t, ranked >= 0 ? in[ranked]->rank + 1 : 1);
  if (ranked >= 0)
    for (uint32_t d = 0; d < in[ranked]->rank; d++)
      if (!S_contains(dims, nd, d)) kept[nkept++] = in[ranked]->dims[d];
  shard_type **inferred = SHARD_NEW_ARRAY(s->cx->scratch, shard_type *, n + 1);
  for (uint32_t i = 0; i < n; i++)
    inferred[i] = S_ranked(in[i]) ? S_tensor(s, nkept, kept, in[i]->elem) : (shard_type *)in[i];
  if (!S_check_inferred(s, inferred, n)) return false;
  return S_check_reducer(s, S_block(op, 0), in, init, n, kept, nkept);
}

/* A collective's reducer takes two scalars of the operand's element type. */
static bool S_collective_reducer(S_op *s) {
  const shard_type *t = S_operand_type(s->op, 0);
  if (!t || !S_elem(t)) return true;
  const shard_type *scalar = S_scalar_of(s, t);
  return S_check_reducer(s, S_block(s->op, 0), &t, &scalar, 1, NULL, 0);
}

static bool S_all_reduce(S_op *s) { return S_replica_groups(s, false, -1) && S_collective_reducer(s); }

static bool S_broadcast_in_dim(S_op *s) {
  const shard_type *t = S_operand_type(s->op, 0), *r = S_result_type(s->op, 0);
  uint32_t n;
  const int64_t *dims = S_dims_attr(s->op, "broadcast_dimensions", &n);
  if (!S_ranked(t)) return true;
  if (n != t->rank)
    return shard_verify_fail(&s->at, "broadcast_dimensions size (%u) does not match operand rank (%u)", n, t->rank);
  if (S_has_duplicates(dims, n)) return shard_verify_fail(&s->at, "broadcast_dimensions should not have duplicates");
  if (!S_ranked(r)) return true;
  for (uint32_t i = 0; i < n; i++) {
    if (dims[i] < 0 || dims[i] >= (int64_t)r->rank)
      return shard_verify_fail(
          &s->at, "broadcast_dimensions contains invalid value %" PRId64 " for result with rank %u", dims[i], r->rank);
    if (!S_dynamic(t->dims[i]) && t->dims[i] != 1 && t->dims[i] != r->dims[dims[i]])
      return shard_verify_fail(&s->at,
                               "size of operand dimension %u (%" PRId64 ") is not equal to 1 or size of result "
                               "dimension %" PRId64 " (%" PRId64 ")",
                               i, t->dims[i], dims[i], r->dims[dims[i]]);
  }
  return true;
}

static bool S_dynamic_broadcast_in_dim(S_op *s) {
  const shard_type *t = S_operand_type(s->op, 0), *r = S_result_type(s->op, 0);
  uint32_t n;
  const int64_t *dims = S_dims_attr(s->op, "broadcast_dimensions", &n);
  if (!S_ranked(t) || !S_ranked(r)) return true;
  if (n != t->rank)
    return shard_verify_fail(&s->at, "broadcast_dimensions size (%u) does not match operand rank (%u)", n, t->rank);
  if (r->rank < t->rank)
    return shard_verify_fail(&s->at, "result rank (%u) is less than operand rank (%u)", r->rank, t->rank);
  for (uint32_t i = 0; i < n; i++) {
    if (dims[i] < 0 || dims[i] >= (int64_t)r->rank)
      return shard_verify_fail(
          &s->at, "broadcast_dimensions contains invalid value %" PRId64 " for result with rank %u", dims[i], r->rank);
    if (t->dims[i] != 1 && !S_dims_compatible(t->dims[i], r->dims[dims[i]]))
      return shard_verify_fail(&s->at,
                               "size of operand dimension %u (%" PRId64 ") is not compatible with size of "
                               "result dimension %" PRId64 " (%" PRId64 ")",
                               i, t->dims[i], dims[i], r->dims[dims[i]]);
  }
  return true;
}

static bool S_broadcast(S_op *s) {
  const shard_type *t = S_operand_type(s->op, 0);
  uint32_t n;
  const int64_t *sizes = S_dims_attr(s->op, "broadcast_sizes", &n);
  if (!S_ranked(t)) return true;
  for (uint32_t i = 0; i < n; i++)
    if (sizes[i] < 0) return S_infer_fail(s, "Broadcast with negative dimension size %" PRId64, sizes[i]);
  int64_t *dims = SHARD_NEW_ARRAY(s->cx->scratch, int64_t, n + t->rank + 1);
  memcpy(dims, sizes, sizeof *dims * n);
  if (t->rank) memcpy(dims + n, t->dims, sizeof *dims * t->rank);
  return S_check_inferred_tensor(s, n + t->rank, dims, t->elem);
}

static bool S_reverse(S_op *s) {
  const shard_type *t = S_operand_type(s->op, 0);
  uint32_t n;
  const int64_t *dims = S_dims_attr(s->op, "dimensions", &n);
  if (S_has_duplicates(dims, n))
    return shard_verify_fail(&s->at, "dimensions should be unique. Got: %s", S_list(s->cx, dims, n));
  for (uint32_t i = 0; i < n; i++) {
    if (dims[i] < 0)
      return shard_verify_fail(&s->at, "all dimensions should be non-negative. Got dimension: %" PRId64 ".", dims[i]);
    if (S_ranked(t) && dims[i] >= (int64_t)t->rank)
      return shard_verify_fail(&s->at, "all dimensions should be between [0, %u). Got dimension: %" PRId64 ".", t->rank,
                               dims[i]);
  }
  return S_check_inferred1(s, (shard_type *)t);
}

static bool S_slice(S_op *s) {
  const shard_type *t = S_operand_type(s->op, 0);
  uint32_t n, nl, ns;
  const int64_t *start = S_dims_attr(s->op, "start_indices", &n);
  const int64_t *limit = S_dims_attr(s->op, "limit_indices", &nl);
  const int64_t *stride = S_dims_attr(s->op, "strides", &ns);
  if (!S_ranked(t) || n != t->rank || nl != n || ns != n) return true; /* lengths: verify_required.c */
  int64_t *dims = SHARD_NEW_ARRAY(s->cx->scratch, int64_t, n + 1);
  for (uint32_t i = 0; i < n; i++) {
    if (start[i] < 0) return S_infer_fail(s, "negative start index %" PRId64 " in dimension %u", start[i], i);
    if (!S_dynamic(t->dims[i]) && limit[i] > t->dims[i])
      return S_infer_fail(s, "limit index %" PRId64 " is larger than dimension size %" PRId64 " in dimension %u",
                          limit[i], t->dims[i], i);
    if (start[i] > limit[i])
      return S_infer_fail(s, "start index %" PRId64 " is larger than limit index %" PRId64 " in dimension %u", start[i],
                          limit[i], i);
    if (stride[i] <= 0)
      return S_infer_fail(s, "stride must be positive but got %" PRId64 " in dimension %u", stride[i], i);
    uint64_t span = (uint64_t)limit[i] - (uint64_t)start[i];
    dims[i] = (int64_t)(span / (uint64_t)stride[i] + (span % (uint64_t)stride[i] != 0));
  }
  return S_check_inferred_tensor(s, n, dims, t->elem);
}

static bool S_pad(S_op *s) {
  const shard_type *t = S_operand_type(s->op, 0), *pv = S_operand_type(s->op, 1);
  uint32_t n, nh, ni;
  const int64_t *lo = S_dims_attr(s->op, "edge_padding_low", &n);
  const int64_t *hi = S_dims_attr(s->op, "edge_padding_high", &nh);
  const int64_t *in = S_dims_attr(s->op, "interior_padding", &ni);
  if (S_ranked(pv) && pv->rank)
    return S_infer_fail(s, "padding value type should be a rank-0 tensor, is rank %u", pv->rank);
  if (!S_ranked(t) || n != t->rank || nh != n || ni != n) return true; /* lengths: verify_required.c */
  int64_t *dims = SHARD_NEW_ARRAY(s->cx->scratch, int64_t, n + 1);
  for (uint32_t i = 0; i < n; i++) {
    if (in[i] < 0) return S_infer_fail(s, "Interior padding cannot be negative: %" PRId64, in[i]);
    if (S_dynamic(t->dims[i])) {
      dims[i] = SHARD_DYNAMIC_DIM;
      continue;
    }
    int64_t d = t->dims[i], r, inner;
    if (__builtin_mul_overflow(d > 0 ? d - 1 : 0, in[i], &inner) || __builtin_add_overflow(d, inner, &r) ||
        __builtin_add_overflow(r, lo[i], &r) || __builtin_add_overflow(r, hi[i], &r))
      return S_infer_fail(s, "Padding result overflows int64 for dimension %u", i);
    if (r < 0) return S_infer_fail(s, "Padding result in negative size for dimension %u", i);
    dims[i] = r;
  }
  return S_check_inferred_tensor(s, n, dims, t->elem);
}

static bool S_dynamic_slice(S_op *s) {
  const shard_type *t = S_operand_type(s->op, 0);
  uint32_t n;
  const int64_t *sizes = S_dims_attr(s->op, "slice_sizes", &n);
  uint32_t nstart = s->op->num_operands ? s->op->num_operands - 1 : 0;
  if (nstart != n)
    return S_infer_fail(s, "has mismatched number of slice sizes (%u) and number of start indices (%u)", n, nstart);
  if (!S_ranked(t)) return true;
  if (t->rank != nstart)
    return S_infer_fail(s, "has mismatched number of start indices (%u) and the rank of operand (%u)", nstart, t->rank);
  for (uint32_t i = 2; i <= nstart; i++)
    if (!S_same_elem(S_operand_type(s->op, 1), S_operand_type(s->op, i), true))
      return S_infer_fail(s, "start indices must have same element type");
  for (uint32_t i = 0; i < n; i++) {
    if (sizes[i] < 0) return S_infer_fail(s, "has negative size index to dynamic slice: %" PRId64, sizes[i]);
    if (!S_dynamic(t->dims[i]) && sizes[i] > t->dims[i])
      return S_infer_fail(
          s, "has slice size %" PRId64 " greater than dimension size %" PRId64 " in dimension %u of operand", sizes[i],
          t->dims[i], i);
  }
  return S_check_inferred_tensor(s, n, sizes, t->elem);
}

static bool S_dynamic_update_slice(S_op *s) {
  const shard_type *t = S_operand_type(s->op, 0), *u = S_operand_type(s->op, 1);
  uint32_t nstart = s->op->num_operands >= 2 ? s->op->num_operands - 2 : 0;
  if (S_ranked(t) && S_ranked(u) && t->rank != u->rank)
    return S_infer_fail(s, "update rank does not match operand rank: %u vs %u.", u->rank, t->rank);
  if (S_ranked(t) && nstart != t->rank)
    return S_infer_fail(s, "expects number of start_indices to match operand rank: %u vs %u.", nstart, t->rank);
  if (S_ranked(t) && S_ranked(u))
    for (uint32_t i = 0; i < t->rank; i++) {
      if (S_dynamic(u->dims[i])) continue;
      if (!S_dynamic(t->dims[i]) && (u->dims[i] < 0 || u->dims[i] > t->dims[i]))
        return S_infer_fail(s,
                            "expects size at dimension %u of update to be in range [0, %" PRId64 "]. Got: %" PRId64 ".",
                            i, t->dims[i], u->dims[i]);
    }
  return t ? S_check_inferred1(s, (shard_type *)t) : true;
}

static bool S_dim_in_bounds(S_op *s, const shard_type *t, int64_t dim) {
  if (dim < 0) return S_infer_fail(s, "requires non-negative dimension attribute; found (%" PRId64 ")", dim);
  if (S_ranked(t) && dim >= (int64_t)t->rank)
    return S_infer_fail(s, "requires dimension attribute in range [0, %u); found (%" PRId64 ")", t->rank, dim);
  return true;
}

static bool S_get_dimension_size(S_op *s) {
  int64_t dim = 0;
  S_int_attr(s->op, "dimension", &dim);
  return S_dim_in_bounds(s, S_operand_type(s->op, 0), dim);
}

static bool S_set_dimension_size(S_op *s) {
  int64_t dim = 0;
  S_int_attr(s->op, "dimension", &dim);
  const shard_type *size = S_operand_type(s->op, 1);
  if (S_ranked(size) && size->rank) return S_infer_fail(s, "size operand should be of rank-0");
  return S_dim_in_bounds(s, S_operand_type(s->op, 0), dim);
}

static bool S_get_tuple_element(S_op *s) {
  const shard_type *t = S_operand_type(s->op, 0);
  int64_t index = 0;
  S_int_attr(s->op, "index", &index);
  if (!t || t->kind != SHARD_TYPE_TUPLE) return true;
  if (index < 0 || index >= (int64_t)t->num_inputs)
    return S_infer_fail(s, "index %" PRId64 " is out of bounds of operand with size %u", index, t->num_inputs);
  if (!shard_type_equal(t->inputs[index], S_result_type(s->op, 0))) return S_check_inferred1(s, t->inputs[index]);
  return true;
}

static bool S_dims_in_range(S_op *s, const int64_t *d, uint32_t n, uint32_t rank, const char *name) {
  for (uint32_t i = 0; i < n; i++)
    if (d[i] < 0 || d[i] >= (int64_t)rank)
      return S_infer_fail(s, "%s value: %" PRId64 " is out of range: [0, %u)", name, d[i], rank);
  return true;
}

static bool S_dims_distinct(S_op *s, const shlo_dims *a, const shlo_dims *b, const char *na, const char *nb) {
  for (uint32_t i = 0; i < a->num + b->num; i++) {
    int64_t x = i < a->num ? a->vals[i] : b->vals[i - a->num];
    for (uint32_t j = 0; j < i; j++) {
      int64_t y = j < a->num ? a->vals[j] : b->vals[j - a->num];
      if (x == y) return S_infer_fail(s, "has duplicated dimension from %s and %s: %" PRId64, na, nb, x);
    }
  }
  return true;
}

/* precision_config of dot, dot_general and convolution: an array of
 * #stablehlo<precision ...> (the attribute's constraint), at most two
 * (verifyPrecisionConfig). */
static bool S_precision_config(S_op *s) {
  const shard_attr *a = shard_verify_attr(s->op, "precision_config");
  if (!a) return true;
  bool ok = a->kind == SHARD_ATTR_ARRAY;
  for (uint32_t i = 0; ok && i < a->u.array.num; i++)
    ok = shard_attr_enum(a->u.array.elems[i], SHARD_SHLO_PRECISION) >= 0;
  if (!ok)
    return shard_verify_fail(&s->with,
                             "attribute 'precision_config' failed to satisfy constraint: Precision Config attribute");
  if (a->u.array.num > 2)
    return shard_verify_fail(&s->with, "expects precision config to be empty or have <= 2 elements.");
  return true;
}

static bool S_dot_general(S_op *s) {
  shlo_dot_dims d;
  if (!S_precision_config(s)) return false;
  if (!S_dot_dims_view(shard_verify_attr(s->op, "dot_dimension_numbers"), &d))
    return shard_verify_fail(&s->with, "attribute 'dot_dimension_numbers' failed to satisfy constraint: "
                                       "Attribute that models the dimension information for dot.");
  const shard_type *l = S_operand_type(s->op, 0), *r = S_operand_type(s->op, 1), *res = S_result_type(s->op, 0);
  bool ok = true;
  if (d.lhs_batch.num != d.rhs_batch.num)
    ok = S_infer_fail(s, "lhs and rhs should have the same number of batching dimensions");
  else if (d.lhs_contract.num != d.rhs_contract.num)
    ok = S_infer_fail(s, "lhs and rhs should have the same number of contracting dimensions");
  else
    ok = S_dims_distinct(s, &d.lhs_batch, &d.lhs_contract, "lhs_batching_dimensions", "lhs_contracting_dimensions") &&
         S_dims_distinct(s, &d.rhs_batch, &d.rhs_contract, "rhs_batching_dimensions", "rhs_contracting_dimensions");
  if (ok && S_ranked(l))
    ok = S_dims_in_range(s, d.lhs_batch.vals, d.lhs_batch.num, l->rank, "lhs_batching_dimensions") &&
         S_dims_in_range(s, d.lhs_contract.vals, d.lhs_contract.num, l->rank, "lhs_contracting_dimensions");
  if (ok && S_ranked(r))
    ok = S_dims_in_range(s, d.rhs_batch.vals, d.rhs_batch.num, r->rank, "rhs_batching_dimensions") &&
         S_dims_in_range(s, d.rhs_contract.vals, d.rhs_contract.num, r->rank, "rhs_contracting_dimensions");
  if (ok && S_ranked(l) && S_ranked(r)) {
    for (uint32_t i = 0; ok && i < d.lhs_batch.num; i++)
      if (!S_dims_compatible(l->dims[d.lhs_batch.vals[i]], r->dims[d.rhs_batch.vals[i]]))
        ok = S_infer_fail(s, "batching dimension sizes must match for lhs/rhs");
    for (uint32_t i = 0; ok && i < d.lhs_contract.num; i++)
      if (!S_dims_compatible(l->dims[d.lhs_contract.vals[i]], r->dims[d.rhs_contract.vals[i]]))
        ok = S_infer_fail(s, "contracting dimension sizes must match for lhs/rhs");
    if (ok && S_ranked(res)) {
      int64_t *dims = SHARD_NEW_ARRAY(s->cx->scratch, int64_t, l->rank + r->rank + 1);
      uint32_t n = 0;
      for (uint32_t i = 0; i < d.lhs_batch.num; i++) dims[n++] = l->dims[d.lhs_batch.vals[i]];
      for (uint32_t i = 0; i < l->rank; i++)
        if (!S_contains(d.lhs_batch.vals, d.lhs_batch.num, i) &&
            !S_contains(d.lhs_contract.vals, d.lhs_contract.num, i))
          dims[n++] = l->dims[i];
      for (uint32_t i = 0; i < r->rank; i++)
        if (!S_contains(d.rhs_batch.vals, d.rhs_batch.num, i) &&
            !S_contains(d.rhs_contract.vals, d.rhs_contract.num, i))
          dims[n++] = r->dims[i];
      bool same = n == res->rank;
      for (uint32_t i = 0; same && i < n; i++) same = S_dims_compatible(dims[i], res->dims[i]);
      if (!same)
        ok = shard_verify_fail(&s->at, "inferred shape '%s' is incompatible with return type of operation %s",
                               S_shape(s->cx, dims, n), S_ty(s, res));
    }
  }
  return ok;
}

static bool S_dot(S_op *s) {
  if (!S_precision_config(s)) return false;
  const shard_type *l = S_operand_type(s->op, 0), *r = S_operand_type(s->op, 1), *res = S_result_type(s->op, 0);
  if (!S_ranked(l) || !S_ranked(r)) return true;
  int64_t dims[2];
  uint32_t n = 0;
  if (l->rank == 1 && r->rank == 1 && S_dims_compatible(l->dims[0], r->dims[0])) {
  } else if (l->rank == 2 && r->rank == 1 && S_dims_compatible(l->dims[1], r->dims[0])) {
    dims[n++] = l->dims[0];
  } else if (l->rank == 1 && r->rank == 2 && S_dims_compatible(l->dims[0], r->dims[0])) {
    dims[n++] = r->dims[1];
  } else if (l->rank == 2 && r->rank == 2 && S_dims_compatible(l->dims[1], r->dims[0])) {
    dims[n++] = l->dims[0];
    dims[n++] = r->dims[1];
  } else {
    return shard_verify_fail(&s->at, "expected both lhs/rhs ranks to be either 1 or 2");
  }
  bool same = S_ranked(res) && n == res->rank;
  for (uint32_t i = 0; same && i < n; i++) same = S_dims_compatible(dims[i], res->dims[i]);
  if (S_ranked(res) && !same)
    return shard_verify_fail(&s->at, "inferred shape '%s' is incompatible with return type of operation %s",
                             S_shape(s->cx, dims, n), S_ty(s, res));
  return true;
}

static bool S_reshape(S_op *s) {
  const shard_type *t = S_operand_type(s->op, 0), *r = S_result_type(s->op, 0);
  if (!shard_type_is_static_tensor(t) || !shard_type_is_static_tensor(r)) return true;
  int64_t a = shard_type_num_elements(r), b = shard_type_num_elements(t);
  if (a != b)
    return shard_verify_fail(&s->at,
                             "number of output elements (%" PRId64 ") doesn't match expected number of elements "
                             "(%" PRId64 ")",
                             a, b);
  return true;
}

static bool S_select(S_op *s) {
  const shard_type *p = S_operand_type(s->op, 0), *a = S_operand_type(s->op, 1), *b = S_operand_type(s->op, 2);
  if (!S_compatible(a, b, false)) return S_infer_fail(s, "requires compatible types for non-predicate operands");
  if (S_ranked(p) && p->rank && !S_shapes_compatible(p, a))
    return S_infer_fail(s, "requires the same shape for all operands");
  return S_check_inferred1(s, (shard_type *)a);
}

static bool S_clamp(S_op *s) {
  const shard_type *mn = S_operand_type(s->op, 0), *x = S_operand_type(s->op, 1), *mx = S_operand_type(s->op, 2);
  if (!S_ranked(x)) return true;
  if (S_ranked(mn) && mn->rank && !S_shapes_compatible(mn, x))
    return S_infer_fail(s, "min shape [%s] is not scalar and is not compatible to operand shape [%s]",
                        S_shape(s->cx, mn->dims, mn->rank), S_shape(s->cx, x->dims, x->rank));
  if (S_ranked(mx) && mx->rank && !S_shapes_compatible(mx, x))
    return S_infer_fail(s, "max shape [%s] is not scalar and is not compatible to operand shape [%s]",
                        S_shape(s->cx, mx->dims, mx->rank), S_shape(s->cx, x->dims, x->rank));
  return S_check_inferred1(s, (shard_type *)x);
}

/* Elementwise ops: every operand and result has one shape. */
static bool S_elementwise(S_op *s) {
  const shard_type *first = s->op->num_operands ? S_operand_type(s->op, 0) : S_result_type(s->op, 0);
  for (uint32_t i = 0; i < s->op->num_operands + s->op->num_results; i++) {
    const shard_type *t =
        i < s->op->num_operands ? S_operand_type(s->op, i) : S_result_type(s->op, i - s->op->num_operands);
    if (!S_shapes_compatible(first, t))
      return shard_verify_fail(&s->with, "requires the same shape for all operands and results");
  }
  return true;
}

static bool S_while(S_op *s) {
  const shard_block *cond = S_block(s->op, 0), *body = S_block(s->op, 1);
  const shard_op *ct = S_terminator(cond), *bt = S_terminator(body);
  if (bt) {
    bool same = bt->num_operands == s->op->num_operands;
    for (uint32_t i = 0; same && i < bt->num_operands; i++)
      same = S_compatible(S_operand_type(bt, i), S_operand_type(s->op, i), false);
    if (!same) {
      shard_type **a = SHARD_NEW_ARRAY(s->cx->scratch, shard_type *, s->op->num_operands + 1);
      shard_type **b = SHARD_NEW_ARRAY(s->cx->scratch, shard_type *, bt->num_operands + 1);
      for (uint32_t i = 0; i < s->op->num_operands; i++) a[i] = (shard_type *)S_operand_type(s->op, i);
      for (uint32_t i = 0; i < bt->num_operands; i++) b[i] = (shard_type *)S_operand_type(bt, i);
      return shard_verify_fail(&s->at, "expect operands to be compatible with body block return types but got %s vs %s",
                               shard_verify_types_str(s->cx, a, s->op->num_operands),
                               shard_verify_types_str(s->cx, b, bt->num_operands));
    }
  }
  if (ct) {
    if (ct->num_operands != 1)
      return shard_verify_fail(&s->at, "expect condition body returns a single value but got %u", ct->num_operands);
    const shard_type *t = S_operand_type(ct, 0);
    if (!S_elem(t) || strcmp(S_elem(t), "i1") != 0 || (S_ranked(t) && t->rank))
      return shard_verify_fail(&s->at, "expect condition block return a zero-ranked tensor of i1 but got %s",
                               S_ty(s, t));
  }
  return true;
}

/* case and if (inferConditionalOp). */
static bool S_conditional(S_op *s) {
  const shard_type *t = S_operand_type(s->op, 0);
  if (S_ranked(t) && t->rank) return S_infer_fail(s, "operand should be rank 0 tensor but got rank %u", t->rank);
  if (!s->op->num_regions) return S_infer_fail(s, "expect at least one branch");
  const shard_op *t0 = NULL;
  for (uint32_t r = 0; r < s->op->num_regions; r++) {
    const shard_block *b = S_block(s->op, r);
    if (!b) return S_infer_fail(s, "expect non-empty region");
    if (b->num_args) return S_infer_fail(s, "branch %u must have 0 arguments, but found %u", r, b->num_args);
    const shard_op *term = S_terminator(b);
    if (!term) continue;
    if (!t0) t0 = term;
    bool same = term->num_operands == t0->num_operands;
    for (uint32_t i = 0; same && i < term->num_operands; i++)
      same = S_compatible(S_operand_type(term, i), S_operand_type(t0, i), false);
    if (!same) return S_infer_fail(s, "branch 0 and branch %u have mismatched return types", r);
  }
  if (!t0) return true;
  shard_type **inferred = SHARD_NEW_ARRAY(s->cx->scratch, shard_type *, t0->num_operands + 1);
  for (uint32_t i = 0; i < t0->num_operands; i++) inferred[i] = (shard_type *)S_operand_type(t0, i);
  return S_check_inferred(s, inferred, t0->num_operands);
}

static bool S_all_gather(S_op *s) {
  if (!S_replica_groups(s, true, -1)) return false;
  int64_t dim = 0;
  S_int_attr(s->op, "all_gather_dim", &dim);
  if (dim < 0) return shard_verify_fail(&s->at, "all_gather_dim cannot be negative");
  for (uint32_t i = 0; i < s->op->num_operands; i++) {
    const shard_type *t = S_operand_type(s->op, i), *r = S_result_type(s->op, i);
    if (!S_ranked(t)) continue;
    if (dim >= (int64_t)t->rank) return shard_verify_fail(&s->at, "all_gather_dim must be a valid index of operand");
    if (t->dims[dim] == 0)
      return shard_verify_fail(&s->at, "dimension size of operand at 'all_gather_dim' cannot be zero");
    if (!S_ranked(r)) continue;
    if (r->rank != t->rank) return shard_verify_fail(&s->at, "operand and result must have the same rank");
    for (uint32_t d = 0; d < t->rank; d++)
      if ((int64_t)d != dim && !S_dims_compatible(r->dims[d], t->dims[d]))
        return shard_verify_fail(&s->at, "operand and result should have the same shape except for the dimension size "
                                         "at 'all_gather_dim'");
    if (!S_dynamic(t->dims[dim]) && !S_dynamic(r->dims[dim]) && r->dims[dim] % t->dims[dim])
      return shard_verify_fail(&s->at,
                               "result gather dimension has size %" PRId64 ", expected to be a multiple of "
                               "operand gather dimension size %" PRId64,
                               r->dims[dim], t->dims[dim]);
  }
  return true;
}

static bool S_reduce_scatter(S_op *s) {
  if (!S_replica_groups(s, true, -1) || !S_collective_reducer(s)) return false;
  const shard_type *t = S_operand_type(s->op, 0), *r = S_result_type(s->op, 0);
  int64_t dim = 0;
  S_int_attr(s->op, "scatter_dimension", &dim);
  if (!S_ranked(t) || !S_ranked(r)) return true;
  if (t->rank != r->rank) return shard_verify_fail(&s->at, "operand and result should have same rank");
  if (dim < 0) return shard_verify_fail(&s->at, "expects scatter_dimension >= 0");
  if (dim >= (int64_t)t->rank) return shard_verify_fail(&s->at, "scatter dim should be less than operand/result rank");
  if (S_dynamic(t->dims[dim]) || S_dynamic(r->dims[dim])) return true;
  if (r->dims[dim] == 0) return shard_verify_fail(&s->at, "result dimension size at scatter_dimension cannot be zero");
  if (t->dims[dim] == 0) return shard_verify_fail(&s->at, "operand dimension size at scatter_dimension cannot be zero");
  if (t->dims[dim] % r->dims[dim])
    return shard_verify_fail(&s->at,
                             "operand scatter dimension has size %" PRId64 ", expected to be a multiple of "
                             "result scatter dimension size %" PRId64,
                             t->dims[dim], r->dims[dim]);
  for (uint32_t d = 0; d < t->rank; d++)
    if ((int64_t)d != dim && !S_dims_compatible(t->dims[d], r->dims[d]))
      return shard_verify_fail(
          &s->at, "non scatter dimensions should be same for operand (%" PRId64 ") and result (%" PRId64 ")",
          t->dims[d], r->dims[d]);
  return true;
}

static bool S_all_to_all(S_op *s) {
  int64_t split = 0, concat = 0, count = 0;
  S_int_attr(s->op, "split_dimension", &split);
  S_int_attr(s->op, "concat_dimension", &concat);
  S_int_attr(s->op, "split_count", &count);
  if (count <= 0) return S_infer_fail(s, "AllToAll split_count must be > 0");
  if (!S_replica_groups(s, true, count)) return false;
  if (split < 0) return S_infer_fail(s, "AllToAll split_dimension cannot be negative");
  if (concat < 0) return S_infer_fail(s, "AllToAll concat_dimension cannot be negative");
  for (uint32_t i = 0; i < s->op->num_operands; i++) {
    const shard_type *t = S_operand_type(s->op, i);
    if (!S_ranked(t)) continue;
    if (split >= (int64_t)t->rank)
      return S_infer_fail(s, "AllToAll split_dimension %" PRId64 " is out-of-bounds for input rank %u", split, t->rank);
    if (concat >= (int64_t)t->rank)
      return S_infer_fail(s, "AllToAll concat_dimension %" PRId64 " is out-of-bounds for input rank %u", concat,
                          t->rank);
    if (!S_dynamic(t->dims[split]) && t->dims[split] % count)
      return S_infer_fail(s, "split dimension has size %" PRId64 ", expected to be a multiple of split_count %" PRId64,
                          t->dims[split], count);
    int64_t *dims = SHARD_NEW_ARRAY(s->cx->scratch, int64_t, t->rank);
    memcpy(dims, t->dims, sizeof *dims * t->rank);
    if (!S_dynamic(dims[split])) dims[split] /= count;
    if (!S_dynamic(dims[concat]) && __builtin_mul_overflow(dims[concat], count, &dims[concat]))
      return S_infer_fail(s, "concat dimension size overflows int64");
    const shard_type *r = S_result_type(s->op, i);
    shard_type *inferred = S_tensor(s, t->rank, dims, t->elem);
    if (r && !S_compatible(inferred, r, false)) {
      shard_type *declared = (shard_type *)r;
      shard_verify_fail(&s->with, "inferred type(s) %s are incompatible with return type(s) of operation %s",
                        shard_verify_types_str(s->cx, &inferred, 1), shard_verify_types_str(s->cx, &declared, 1));
      return shard_verify_fail(&s->with, "failed to infer returned types");
    }
  }
  return true;
}

static bool S_map(S_op *s) {
  const shard_block *b = S_block(s->op, 0);
  if (!b) return S_infer_fail(s, "expect non-empty region");
  if (b->num_args != s->op->num_operands)
    return S_infer_fail(s, "expects number of operands to match the arity of map computation, but got: %u and %u",
                        s->op->num_operands, b->num_args);
  for (uint32_t i = 0; i < b->num_args; i++) {
    const shard_type *a = b->args[i].type;
    if (!S_ranked(a) || a->rank)
      return S_infer_fail(s, "computation arguments must be 0-rank tensor, but got: arg #%u of type %s", i, S_ty(s, a));
    const char *oe = S_elem(S_operand_type(s->op, i));
    if (oe && strcmp(oe, a->elem) != 0)
      return S_infer_fail(s, "element type of operands and computation arguments must match, but got: '%s' and '%s'",
                          oe, a->elem);
  }
  const shard_op *term = S_terminator(b);
  uint32_t nret = term ? term->num_operands : 0;
  if (nret != 1) return S_infer_fail(s, "computation must return single output, but got: %u", nret);
  const shard_type *rt = S_operand_type(term, 0);
  if (!S_ranked(rt) || rt->rank)
    return S_infer_fail(s, "computation must return 0-rank tensor, but got: %s", S_ty(s, rt));
  uint32_t nd;
  const int64_t *dims = S_dims_attr(s->op, "dimensions", &nd);
  for (uint32_t i = 0; i < nd; i++)
    if (dims[i] != (int64_t)i)
      return S_infer_fail(s, "requires monotonically increasing dimension numbers, but got: [%s]",
                          S_list(s->cx, dims, nd));
  const shard_type *shape = NULL;
  for (uint32_t i = 0; i < s->op->num_operands; i++) {
    const shard_type *t = S_operand_type(s->op, i);
    if (!S_ranked(t)) continue;
    if (nd != t->rank)
      return S_infer_fail(s,
                          "applied to a subset of dimensions currently not supported: operand dimensions = %u, "
                          "requested map dimensions size = %u",
                          t->rank, nd);
    shape = t;
  }
  if (!shape) return true;
  return S_check_inferred_tensor(s, shape->rank, shape->dims, rt->elem);
}

/* ---- gather, scatter, reduce_window --------------------------------------- */

static bool S_sorted(const int64_t *v, uint32_t n) {
  for (uint32_t i = 1; i < n; i++)
    if (v[i - 1] > v[i]) return false;
  return true;
}

static bool S_sorted_unique(S_op *s, const shlo_dims *d, const char *what) {
  if (!S_sorted(d->vals, d->num))
    return S_infer_fail(s, "expects %s to be sorted, got: [%s]", what, S_list(s->cx, d->vals, d->num));
  if (S_has_duplicates(d->vals, d->num))
    return S_infer_fail(s, "expects %s to not repeat, got: [%s]", what, S_list(s->cx, d->vals, d->num));
  return true;
}

static bool S_each_below(S_op *s, const shlo_dims *d, int64_t bound, const char *what, const char *of) {
  for (uint32_t i = 0; i < d->num; i++)
    if (d->vals[i] < 0 || d->vals[i] >= bound)
      return S_infer_fail(s, "%s[%u]: %" PRId64 " is out of bounds for %s %" PRId64, what, i, d->vals[i], of, bound);
  return true;
}

static bool S_decode_dimnums(S_op *s, const char *attr, bool gather, shlo_dimnums *d) {
  const shard_attr *a = shard_verify_attr(s->op, attr);
  if (!a) return shard_verify_fail(&s->with, "requires attribute '%s'", attr);
  const shard_gather_dims *t = gather ? shard_attr_gather_dims(a) : shard_attr_scatter_dims(a);
  if (!t)
    return shard_verify_fail(&s->with,
                             "attribute '%s' failed to satisfy constraint: Attribute that models the "
                             "dimension information for %s.",
                             attr, gather ? "gather" : "scatter");
  d->is_gather = gather;
  const shard_i64s *lists[5] = {&t->offset, &t->collapsed, &t->operand_batching, &t->indices_batching, &t->index_map};
  for (int i = 0; i < 5; i++) S_copy_list(lists[i], &d->lists[i]);
  d->index_vector_dim = t->index_vector_dim;
  return true;
}

static bool S_gather_checks(S_op *s, const shlo_dimnums *d, const shard_type *x, const shard_type *idx,
                            const int64_t *sizes, uint32_t nsizes) {
  const shlo_dims *offset = &d->lists[0], *collapsed = &d->lists[1], *obatch = &d->lists[2], *sbatch = &d->lists[3],
                  *map = &d->lists[4];
  int64_t ivd = d->index_vector_dim;
  if (S_has_duplicates(map->vals, map->num))
    return S_infer_fail(s, "expects start_index_map to not repeat, got: [%s]", S_list(s->cx, map->vals, map->num));
  if (S_ranked(x) && !S_each_below(s, map, x->rank, "start_index_map", "operand rank")) return false;
  if (S_ranked(idx)) {
    if (ivd < 0 || ivd > (int64_t)idx->rank)
      return S_infer_fail(s, "index_vector_dim %" PRId64 " is out of bounds for start indices with rank %u", ivd,
                          idx->rank);
    int64_t size = ivd == (int64_t)idx->rank ? 1 : idx->dims[ivd];
    if (!S_dynamic(size) && size != (int64_t)map->num)
      return S_infer_fail(s,
                          "start_index_map size (%u) is not equal to size of index dimension (%" PRId64 ") of "
                          "start_indices (%" PRId64 ")",
                          map->num, ivd, size);
  }
  if (!S_sorted_unique(s, offset, "offset_dims") || !S_sorted_unique(s, collapsed, "collapsed_slice_dims") ||
      !S_sorted_unique(s, obatch, "operand_batching_dims"))
    return false;
  uint64_t implied = (uint64_t)offset->num + collapsed->num + obatch->num;
  if (S_ranked(x) && x->rank != implied)
    return S_infer_fail(s,
                        "offset_dims size (%u) plus collapse_slice_dims size (%u) plus operand_batching_dims size "
                        "(%u) is not equal to operand rank (%u)",
                        offset->num, collapsed->num, obatch->num, x->rank);
  if (sizes) {
    if (nsizes != implied)
      return S_infer_fail(s, "slice_sizes size (%u) not equal to (implied) operand rank (%" PRIu64 ")", nsizes,
                          implied);
    for (uint32_t i = 0; i < collapsed->num; i++)
      if (collapsed->vals[i] < 0 || collapsed->vals[i] >= (int64_t)nsizes)
        return S_infer_fail(s, "collapsed dimension %" PRId64 " is out of bounds for slice_sizes.size (%u)",
                            collapsed->vals[i], nsizes);
    for (uint32_t i = 0; i < obatch->num; i++)
      if (obatch->vals[i] < 0 || obatch->vals[i] >= (int64_t)nsizes)
        return S_infer_fail(s, "operand batching dimension %" PRId64 " is out of bounds for slice_sizes.size (%u)",
                            obatch->vals[i], nsizes);
    for (uint32_t i = 0; i < collapsed->num; i++)
      if (sizes[collapsed->vals[i]] > 1)
        return S_infer_fail(s, "slice_sizes collapsed dimension %" PRId64 " should <= 1 but got %" PRId64,
                            collapsed->vals[i], sizes[collapsed->vals[i]]);
    for (uint32_t i = 0; S_ranked(x) && i < nsizes; i++)
      if (!S_dynamic(x->dims[i]) && (sizes[i] < 0 || sizes[i] > x->dims[i]))
        return S_infer_fail(s,
                            "slice size (%" PRId64 ") is out of bounds for operand dimension (%" PRId64 ") at index %u",
                            sizes[i], x->dims[i], i);
  }
  if (!S_ranked(idx)) return true;
  uint32_t idx_rank = idx->rank + (ivd == (int64_t)idx->rank);
  for (uint32_t i = 0; i < sbatch->num; i++)
    if (sbatch->vals[i] < 0 || sbatch->vals[i] >= (int64_t)idx_rank || sbatch->vals[i] == ivd)
      return S_infer_fail(s,
                          "start_indices_batching_dims[%u]: %" PRId64 " is out of bounds for start indices with rank "
                          "%u or is the index_vector_dim",
                          i, sbatch->vals[i], idx_rank);
  int64_t result_rank = (int64_t)offset->num + idx_rank - 1;
  if (!S_each_below(s, offset, result_rank, "offset_dims", "implied result rank")) return false;
  if (!sizes || !S_ranked(x)) return true;
  /* the result: offset dims take the slice sizes left after collapsing and
   * batching, the others the start indices' dims but index_vector_dim */
  int64_t *shape = SHARD_NEW_ARRAY(s->cx->scratch, int64_t, result_rank + 1);
  uint32_t next_slice = 0, next_idx = 0;
  for (int64_t r = 0; r < result_rank; r++) {
    if (S_contains(offset->vals, offset->num, r)) {
      while (next_slice < nsizes && (S_contains(collapsed->vals, collapsed->num, next_slice) ||
                                     S_contains(obatch->vals, obatch->num, next_slice)))
        next_slice++;
      shape[r] = next_slice < nsizes ? sizes[next_slice++] : SHARD_DYNAMIC_DIM;
    } else {
      if ((int64_t)next_idx == ivd) next_idx++;
      shape[r] = next_idx < idx->rank ? idx->dims[next_idx] : 1;
      next_idx++;
    }
  }
  return S_check_inferred_tensor(s, (uint32_t)result_rank, shape, x->elem);
}

static bool S_gather(S_op *s) {
  shlo_dimnums d;
  if (!S_decode_dimnums(s, "dimension_numbers", true, &d)) return false;
  uint32_t nsizes;
  const int64_t *sizes = S_dims_attr(s->op, "slice_sizes", &nsizes);
  bool ok = S_gather_checks(s, &d, S_operand_type(s->op, 0), S_operand_type(s->op, 1), sizes ? sizes : (int64_t[]){0},
                            nsizes);
  S_dimnums_free(&d);
  return ok;
}

static bool S_scatter_checks(S_op *s, const shlo_dimnums *d) {
  const shard_op *op = s->op;
  if (op->num_operands < 3 || op->num_operands % 2 == 0)
    return shard_verify_fail(&s->with, "expects inputs, scatter_indices and as many updates as inputs");
  uint32_t n = (op->num_operands - 1) / 2;
  const shard_type *x = S_operand_type(op, 0), *idx = S_operand_type(op, n), *upd = S_operand_type(op, n + 1);
  const shlo_dims *window = &d->lists[0], *inserted = &d->lists[1], *ibatch = &d->lists[2], *map = &d->lists[4];
  int64_t ivd = d->index_vector_dim;
  for (uint32_t i = 1; i < n; i++) {
    if (!S_shapes_compatible(x, S_operand_type(op, i)))
      return S_infer_fail(s, "Not all inputs have compatible shapes.");
    if (!S_shapes_compatible(upd, S_operand_type(op, n + 1 + i)))
      return S_infer_fail(s, "Not all updates have compatible shapes.");
  }
  if (S_ranked(idx) && (ivd < 0 || ivd > (int64_t)idx->rank))
    return S_infer_fail(s,
                        "expects scatter index leaf dimension to be within [0, rank(scatter_indices) + 1. "
                        "rank(scatter_indices) is %u and scatter index leaf dimension is %" PRId64 ".",
                        idx->rank, ivd);
  const shard_type **in = SHARD_NEW_ARRAY(s->cx->scratch, const shard_type *, n);
  const shard_type **init = SHARD_NEW_ARRAY(s->cx->scratch, const shard_type *, n);
  for (uint32_t i = 0; i < n; i++)
    in[i] = S_operand_type(op, i), init[i] = S_scalar_of(s, S_operand_type(op, n + 1 + i));
  if (!S_check_reducer(s, S_block(op, 0), in, init, n, NULL, 0)) return false;
  if (S_ranked(idx) && S_ranked(upd)) {
    uint64_t want = (uint64_t)idx->rank + (ivd == (int64_t)idx->rank) - 1 + window->num;
    if (upd->rank != want)
      return S_infer_fail(
          s,
          "expects updates tensor must be of rank %" PRIu64 " ( == rank-of('scatter_indices') - 1 + "
          "size-of('update_window_dims'), where 'scatter_indices' is expanded by a trailing 1 dimension "
          "if 'index_vector_dim' == rank-of('scatter_indices')), but got %u.",
          want, upd->rank);
  }
  uint64_t implied = (uint64_t)window->num + inserted->num + ibatch->num;
  if (S_ranked(x) && x->rank != implied)
    return S_infer_fail(s,
                        "Expects rank-of operand to match size-of('update_window_dims')  + "
                        "size-of('inserted_window_dims') + size-of('input_batching_dims') i.e. %" PRIu64 " but got %u.",
                        implied, x->rank);
  if (!S_sorted(window->vals, window->num))
    return S_infer_fail(s, "Expects update_window_dims to be sorted; got: [%s].",
                        S_list(s->cx, window->vals, window->num));
  if (S_has_duplicates(window->vals, window->num))
    return S_infer_fail(s, "Expects update_window_dims to not repeat; got: [%s].",
                        S_list(s->cx, window->vals, window->num));
  for (uint32_t i = 0; S_ranked(upd) && i < window->num; i++)
    if (window->vals[i] < 0 || window->vals[i] >= (int64_t)upd->rank)
      return S_infer_fail(s,
                          "Expects each element of update_window_dims to be in range [0, rank-of('updates') i.e. [0, "
                          "%u). got: %" PRId64 ".",
                          upd->rank, window->vals[i]);
  if (!S_sorted(inserted->vals, inserted->num))
    return S_infer_fail(s, "Expects inserted_window_dims to be sorted; got: [%s].",
                        S_list(s->cx, inserted->vals, inserted->num));
  if (S_has_duplicates(inserted->vals, inserted->num))
    return S_infer_fail(s, "Expects inserted_window_dims to not repeat; got: [%s].",
                        S_list(s->cx, inserted->vals, inserted->num));
  for (uint32_t i = 0; S_ranked(x) && i < inserted->num; i++)
    if (inserted->vals[i] < 0 || inserted->vals[i] >= (int64_t)x->rank)
      return S_infer_fail(s,
                          "Expects each element of inserted_window_dims to be in range [0, rank-of('operand') i.e. "
                          "[0, %u). got: %" PRId64 ".",
                          x->rank, inserted->vals[i]);
  for (uint32_t i = 0; S_ranked(x) && i < ibatch->num; i++)
    if (ibatch->vals[i] < 0 || ibatch->vals[i] >= (int64_t)x->rank)
      return S_infer_fail(s,
                          "Expects each element of input_batching_dims to be in range [0, rank-of('operand') i.e. "
                          "[0, %u). got: %" PRId64 ".",
                          x->rank, ibatch->vals[i]);
  if (S_ranked(idx)) {
    int64_t size = ivd == (int64_t)idx->rank ? 1 : idx->dims[ivd];
    if (!S_dynamic(size) && size != (int64_t)map->num)
      return S_infer_fail(s,
                          "Scatter op has %u elements in scatter_dims_to_operand_dims and the bound of dimension "
                          "index_vector_dim=%" PRId64 " of scatter_indices is %" PRId64 ". These two numbers must be "
                          "equal.",
                          map->num, ivd, size);
  }
  if (S_has_duplicates(map->vals, map->num))
    return S_infer_fail(s, "Expects scatter_dims_to_operand_dims to not repeat; got: [%s].",
                        S_list(s->cx, map->vals, map->num));
  for (uint32_t i = 0; S_ranked(x) && i < map->num; i++)
    if (map->vals[i] < 0 || map->vals[i] >= (int64_t)x->rank)
      return S_infer_fail(s, "Invalid scatter_dims_to_operand_dims mapping; domain is [0, %u), got: %u->%" PRId64 ".",
                          x->rank, i, map->vals[i]);
  shard_type **inferred = SHARD_NEW_ARRAY(s->cx->scratch, shard_type *, n);
  for (uint32_t i = 0; i < n; i++) inferred[i] = (shard_type *)S_operand_type(op, i);
  return S_check_inferred(s, inferred, n);
}

static bool S_scatter(S_op *s) {
  shlo_dimnums d;
  if (!S_decode_dimnums(s, "scatter_dimension_numbers", false, &d)) return false;
  bool ok = S_scatter_checks(s, &d);
  S_dimnums_free(&d);
  return ok;
}

/* A window attribute's size and positive entries (reduce_window,
 * select_and_scatter). */
static bool S_window_attr(S_op *s, const char *attr, const char *what, uint32_t nwin, bool positive, const char *pos) {
  uint32_t n;
  const int64_t *v = S_dims_attr(s->op, attr, &n);
  if (!v && !shard_verify_attr(s->op, attr)) return true;
  if (!v)
    return shard_verify_fail(&s->with, "attribute '%s' failed to satisfy constraint: i64 dense array attribute", attr);
  if (n != 0 && n != nwin)
    return S_infer_fail(s, "expects %s to have same dimension-size as size of window dimensions (%u), but got: %u.",
                        what, nwin, n);
  for (uint32_t i = 0; positive && i < n; i++)
    if (v[i] <= 0)
      return S_infer_fail(s, "expects window to have positive %s for %u-th window dimension, but got %" PRId64 ".", pos,
                          i, v[i]);
  return true;
}

static bool S_window_attrs(S_op *s, const shard_type *x, uint32_t *nwin_out) {
  uint32_t nwin;
  const int64_t *win = S_dims_attr(s->op, "window_dimensions", &nwin);
  if (!win) return shard_verify_fail(&s->with, "requires attribute 'window_dimensions'");
  if (S_ranked(x) && x->rank != nwin)
    return S_infer_fail(s,
                        "expects window-dimensions size == input rank, but got window-dimensions size: %u and input: "
                        "%s with rank = %u.",
                        nwin, S_ty(s, x), x->rank);
  for (uint32_t i = 0; i < nwin; i++)
    if (win[i] <= 0)
      return S_infer_fail(s, "expects window to have positive value for %u-th window dimension, but got %" PRId64 ".",
                          i, win[i]);
  if (!S_window_attr(s, "window_strides", "window-strides", nwin, true, "stride") ||
      !S_window_attr(s, "base_dilations", "base-dilation factors", nwin, true, "base dilation factor") ||
      !S_window_attr(s, "window_dilations", "window-dilation factors", nwin, true, "window dilation factor"))
    return false;
  const shard_attr *pad = shard_verify_attr(s->op, "padding");
  if (pad) {
    const shard_type *pt = pad->kind == SHARD_ATTR_DENSE ? pad->u.dense.type : NULL;
    if (!S_ranked(pt) || pt->rank != 2 || pt->dims[1] != 2)
      return S_infer_fail(s, "expects the shape of padding-attribute to be {N, 2}, but got {%s}.",
                          S_ranked(pt) ? S_shape(s->cx, pt->dims, pt->rank) : "");
    if (pt->dims[0] != 0 && pt->dims[0] != (int64_t)nwin)
      return S_infer_fail(s,
                          "expects padding-entries to have same dimension-size as size of window dimensions (%u), but "
                          "got: %" PRId64 ".",
                          nwin, pt->dims[0]);
  }
  *nwin_out = nwin;
  return true;
}

/* The windowed shape of x under the op's window attributes
 * (inferWindowOutputShape): per dim the base-dilated, padded operand, the
 * window-dilated window, the strided count of its positions (0 when the
 * window is larger); a dim that is dynamic or overflows is dynamic. x is
 * ranked with nwin dims. */
static int64_t *S_window_shape(S_op *s, const shard_type *x, uint32_t nwin) {
  const shard_op *op = s->op;
  uint32_t k;
  const int64_t *win = S_dims_attr(op, "window_dimensions", &k);
  const int64_t *strides = S_dims_attr(op, "window_strides", &k);
  if (strides && k != nwin) strides = NULL;
  const int64_t *bdil = S_dims_attr(op, "base_dilations", &k);
  if (bdil && k != nwin) bdil = NULL;
  const int64_t *wdil = S_dims_attr(op, "window_dilations", &k);
  if (wdil && k != nwin) wdil = NULL;
  const shard_attr *pad = shard_verify_attr(op, "padding");
  const int64_t *pv =
      pad && pad->kind == SHARD_ATTR_DENSE && pad->u.dense.num_ints == 2 * nwin ? pad->u.dense.ints : NULL;
  int64_t *shape = SHARD_NEW_ARRAY(s->cx->scratch, int64_t, nwin + 1);
  for (uint32_t i = 0; i < nwin; i++) {
    int64_t d = x->dims[i], base, padded, window, st = strides ? strides[i] : 1;
    bool overflow = S_dynamic(d);
    if (!overflow) {
      base = d > 0 ? d - 1 : 0;
      overflow = __builtin_mul_overflow(base, bdil ? bdil[i] : 1, &base);
      base = d > 0 ? base + 1 : 0;
      overflow = overflow || __builtin_add_overflow(base, pv ? pv[2 * i] : 0, &padded) ||
                 __builtin_add_overflow(padded, pv ? pv[2 * i + 1] : 0, &padded) ||
                 __builtin_mul_overflow(win[i] - 1, wdil ? wdil[i] : 1, &window);
    }
    if (overflow) {
      shape[i] = SHARD_DYNAMIC_DIM;
      continue;
    }
    window += 1;
    shape[i] = padded <= 0 || window > padded ? 0 : (padded - window) / st + 1;
  }
  return shape;
}

/* reduce_window's results have the windowed shape of its operands; they
 * keep their own element types: only the shape is inferred here. */
static bool S_reduce_window_results(S_op *s, const shard_type *x, uint32_t nwin, uint32_t n) {
  if (!S_ranked(x) || x->rank != nwin || s->op->num_results != n) return true;
  const shard_op *op = s->op;
  int64_t *shape = S_window_shape(s, x, nwin);
  bool same = true;
  for (uint32_t r = 0; same && r < n; r++) {
    const shard_type *t = S_result_type(op, r);
    if (!S_ranked(t)) continue;
    same = t->rank == nwin;
    for (uint32_t i = 0; same && i < nwin; i++) same = S_dims_compatible(shape[i], t->dims[i]);
  }
  if (same) return true;
  shard_type **inferred = SHARD_NEW_ARRAY(s->cx->scratch, shard_type *, n + 1);
  for (uint32_t r = 0; r < n; r++) {
    const char *e = S_elem(S_result_type(op, r));
    inferred[r] = S_tensor(s, nwin, shape, e ? e : x->elem);
  }
  return S_check_inferred(s, inferred, n);
}

static bool S_reduce_window(S_op *s) {
  const shard_op *op = s->op;
  if (!op->num_operands || op->num_operands % 2) return S_infer_fail(s, "requires at least 1 input value");
  uint32_t n = op->num_operands / 2, nwin;
  const shard_type **in = SHARD_NEW_ARRAY(s->cx->scratch, const shard_type *, n);
  const shard_type **init = SHARD_NEW_ARRAY(s->cx->scratch, const shard_type *, n);
  for (uint32_t i = 0; i < n; i++) in[i] = S_operand_type(op, i), init[i] = S_operand_type(op, n + i);
  for (uint32_t i = 1; i < n; i++)
    if (!S_shapes_compatible(in[0], in[i]))
      return S_infer_fail(s,
                          "expects all inputs to have compatible shapes. Shape at input-index %u is not compatible "
                          "with shape at input-index 0",
                          i);
  for (uint32_t i = 0; i < n; i++)
    if (!S_window_attrs(s, in[i], &nwin)) return false;
  uint32_t nd;
  const int64_t *win = S_dims_attr(op, "window_dimensions", &nd);
  if (!S_check_reducer(s, S_block(op, 0), in, init, n, win, nd)) return false;
  return S_reduce_window_results(s, in[0], nwin, n);
}

/* verifySelectAndScatterOp: the window attributes, the select region
 * (two scalar parameters of the operand's element type, one tensor<i1>
 * result) and the source's type, the operand's windowed shape (the
 * interpreter walks the source with the operand's rank). */
static bool S_select_and_scatter(S_op *s) {
  const shard_op *op = s->op;
  const shard_type *x = S_operand_type(op, 0), *src = S_operand_type(op, 1);
  uint32_t nwin;
  if (!S_window_attrs(s, x, &nwin)) return false;
  const shard_block *sel = S_block(op, 0);
  if (sel) {
    if (sel->num_args != 2)
      return shard_verify_fail(&s->at, "expects the select-region to take 2 parameters, but takes %u", sel->num_args);
    const shard_type *want = S_ranked(x) ? S_scalar_of(s, x) : NULL;
    for (uint32_t i = 0; want && i < 2; i++)
      if (!shard_type_equal(sel->args[i].type, want))
        return shard_verify_fail(&s->at,
                                 "expects the type of select-region's parameter at index %u to be %s, but got %s", i,
                                 S_ty(s, want), S_ty(s, sel->args[i].type));
    const shard_op *term = S_terminator(sel);
    uint32_t nret = term ? term->num_operands : 0;
    if (nret != 1) return shard_verify_fail(&s->at, "expects select-region to return single value, but got: %u", nret);
    const shard_type *rt = S_operand_type(term, 0);
    if (!S_ranked(rt) || rt->rank || !S_elem(rt) || strcmp(S_elem(rt), "i1") != 0)
      return shard_verify_fail(&s->at, "expects the return-type of select-region to be tensor<i1>, but got: %s",
                               S_ty(s, rt));
  }
  if (!S_ranked(x) || !S_ranked(src) || nwin != x->rank) return true;
  int64_t *shape = S_window_shape(s, x, nwin);
  bool same = src->rank == nwin && S_elem(src) && strcmp(S_elem(src), x->elem) == 0;
  for (uint32_t i = 0; same && i < nwin; i++) same = S_dims_compatible(shape[i], src->dims[i]);
  if (!same)
    return shard_verify_fail(&s->at, "expects source-type to be %s, but got%s",
                             S_ty(s, S_tensor(s, nwin, shape, x->elem)), S_ty(s, src));
  return true;
}

/* ---- convolution (verifyConvolutionOp, verifyConvolutionAttributes) ------ */

/* isSpatialDimensionsValid over one tensor's dimension numbers: every entry
 * in [0, rank) (checked by the caller), then unique. */
static bool S_conv_unique(S_op *s, const int64_t *v, uint32_t n, const char *which) {
  if (!S_has_duplicates(v, n)) return true;
  return shard_verify_fail(&s->at, "expects %s dimension-numbers to be unique, got {%s}.", which, S_list(s->cx, v, n));
}

/* One window attribute of a convolution: `ns` entries (or absent), each
 * positive (verifyWindowAttributesAndInferWindowDimensions). Fills out[]
 * with the values or `dflt`. */
static bool S_conv_window(S_op *s, const char *attr, const char *what, const char *pos, uint32_t ns, int64_t dflt,
                          int64_t *out) {
  uint32_t n;
  const int64_t *v = S_dims_attr(s->op, attr, &n);
  for (uint32_t i = 0; i < ns; i++) out[i] = dflt;
  if (!v) return true;
  if (n != ns)
    return shard_verify_fail(
        &s->at, "expects %s to have same dimension-size as size of window dimensions (%u), but got: %u.", what, ns, n);
  for (uint32_t i = 0; i < n; i++) {
    if (v[i] <= 0)
      return shard_verify_fail(
          &s->at, "expects window to have positive %s for %u-th window dimension, but got %" PRId64 ".", pos, i, v[i]);
    out[i] = v[i];
  }
  return true;
}

static bool S_convolution(S_op *s) {
  const shard_op *op = s->op;
  if (!S_precision_config(s)) return false;
  const shard_type *lhs = S_operand_type(op, 0), *rhs = S_operand_type(op, 1), *res = S_result_type(op, 0);
  if (!S_ranked(lhs) || !S_ranked(rhs)) return true;
  uint32_t rank = lhs->rank;
  if (rank != rhs->rank)
    return shard_verify_fail(&s->with,
                             "expects convolution arguments to have same number of dimensions. Got: %s and %s.",
                             S_ty(s, lhs), S_ty(s, rhs));
  if (rank < 2)
    return shard_verify_fail(&s->with, "expects convolution arguments to have >= 2 dimensions. Got: %s and %s.",
                             S_ty(s, lhs), S_ty(s, rhs));
  const shard_conv_dims *d = shard_op_conv_dims(op);
  if (!d) return true; /* absent or not #stablehlo.conv: verify_required.c */
  uint32_t ns = d->in_spatial.n;
  if (ns != d->k_spatial.n || ns != d->out_spatial.n)
    return shard_verify_fail(&s->at,
                             "expects the same size for input, kernel and output spatial-dimensions, but got %u, "
                             "%u, and %u resp.",
                             ns, d->k_spatial.n, d->out_spatial.n);
  int64_t *in = SHARD_NEW_ARRAY(s->cx->scratch, int64_t, 3 * (ns + 2)), *k = in + ns + 2, *out = k + ns + 2;
  in[0] = d->in_batch, in[1] = d->in_feature, k[0] = d->k_in_feature, k[1] = d->k_out_feature;
  out[0] = d->out_batch, out[1] = d->out_feature;
  for (uint32_t i = 0; i < ns; i++)
    in[2 + i] = d->in_spatial.v[i], k[2 + i] = d->k_spatial.v[i], out[2 + i] = d->out_spatial.v[i];
  for (uint32_t i = 0; i < 3 * (ns + 2); i++)
    if (in[i] < 0 || in[i] >= (int64_t)rank)
      return shard_verify_fail(&s->at, "expects input, kernel, and output dimension-numbers to be in-range [0, %u).",
                               rank);
  if (!S_conv_unique(s, in, ns + 2, "input") || !S_conv_unique(s, k, ns + 2, "kernel") ||
      !S_conv_unique(s, out, ns + 2, "output"))
    return false;
  int64_t fgc = 1, bgc = 1;
  S_int_attr(op, "feature_group_count", &fgc);
  S_int_attr(op, "batch_group_count", &bgc);
  if (fgc <= 0)
    return shard_verify_fail(&s->at, "expects feature_group_count to be a positive number, got %" PRId64 ".", fgc);
  if (bgc <= 0)
    return shard_verify_fail(&s->at, "expects batch_group_count to be a positive number, got %" PRId64 ".", bgc);
  if (bgc > 1 && fgc > 1)
    return shard_verify_fail(&s->at,
                             "expects batch_group_count and feature_group_count not to be both greater than 1. "
                             "Got %" PRId64 " and %" PRId64 " resp.",
                             bgc, fgc);
  int64_t ib = lhs->dims[d->in_batch], ifeat = lhs->dims[d->in_feature];
  int64_t kin = rhs->dims[d->k_in_feature], kout = rhs->dims[d->k_out_feature];
  if (!S_dynamic(ib) && ib % bgc)
    return shard_verify_fail(&s->at,
                             "expects input batch dimension (%" PRId64 ") to be divisible by batch_group_count. "
                             "Got batch_group_count = %" PRId64 ".",
                             ib, bgc);
  if (!S_dynamic(ifeat)) {
    if (ifeat % fgc)
      return shard_verify_fail(&s->at,
                               "expects input feature dimension (%" PRId64 ") to be a multiple of "
                               "feature_group_count. Got feature_group_count = %" PRId64 ".",
                               ifeat, fgc);
    if (!S_dynamic(kin) && ifeat / fgc != kin)
      return shard_verify_fail(&s->at,
                               "expects input feature dimension (%" PRId64 ") / feature_group_count = kernel "
                               "input feature dimension (%" PRId64 "). Got feature_group_count = %" PRId64 ".",
                               ifeat, kin, fgc);
  }
  if (!S_dynamic(kout)) {
    if (kout % bgc)
      return shard_verify_fail(&s->at,
                               "expects output feature dimension size (%" PRId64 ") to be a multiple of "
                               "batch_group_count. Got batch_group_count = %" PRId64 ".",
                               kout, bgc);
    if (kout % fgc)
      return shard_verify_fail(&s->at,
                               "expects kernel output feature dimension (%" PRId64 ") to be divisible by "
                               "feature_group_count. For feature_group_count = %" PRId64 ".",
                               kout, fgc);
  }
  int64_t *w = SHARD_NEW_ARRAY(s->cx->scratch, int64_t, 6 * (ns + 1));
  int64_t *stride = w + ns, *ldil = stride + ns, *rdil = ldil + ns, *lo = rdil + ns, *hi = lo + ns;
  for (uint32_t i = 0; i < ns; i++) w[i] = rhs->dims[d->k_spatial.v[i]];
  if (!S_conv_window(s, "window_strides", "window-strides", "stride", ns, 1, stride) ||
      !S_conv_window(s, "lhs_dilation", "base-dilation factors", "base dilation factor", ns, 1, ldil) ||
      !S_conv_window(s, "rhs_dilation", "window-dilation factors", "window dilation factor", ns, 1, rdil))
    return false;
  uint32_t nrev;
  if (S_dims_attr(op, "window_reversal", &nrev) && nrev != ns)
    return shard_verify_fail(&s->at,
                             "expects window-reversal to have same dimension-size as size of window dimensions "
                             "(%u), but got: %u.",
                             ns, nrev);
  for (uint32_t i = 0; i < ns; i++) lo[i] = hi[i] = 0;
  const shard_attr *pad = shard_verify_attr(op, "padding");
  if (pad) {
    const shard_type *pt = pad->kind == SHARD_ATTR_DENSE ? pad->u.dense.type : NULL;
    if (!S_ranked(pt) || pt->rank != 2 || pt->dims[1] != 2)
      return shard_verify_fail(&s->at, "expects the shape of padding-attribute to be {N, 2}, but got {%s}.",
                               S_ranked(pt) ? S_shape(s->cx, pt->dims, pt->rank) : "");
    if (pt->dims[0] != (int64_t)ns)
      return shard_verify_fail(&s->at,
                               "expects padding-entries to have same dimension-size as size of window dimensions "
                               "(%u), but got: %" PRId64 ".",
                               ns, pt->dims[0]);
    if (pad->u.dense.num_ints == 2 * ns)
      for (uint32_t i = 0; i < ns; i++) lo[i] = pad->u.dense.ints[2 * i], hi[i] = pad->u.dense.ints[2 * i + 1];
  }
  if (!S_ranked(res)) return true;
  if (res->rank != rank)
    return shard_verify_fail(&s->with,
                             "expects rank of convolution return-type to be equal to input-ranks (%u), but got "
                             "%u.",
                             rank, res->rank);
  /* inferConvolutionOpReturnShape: the result's own sizes where no dimension
   * number names a dimension ("unknown" dimensions) */
  int64_t *shape = SHARD_NEW_ARRAY(s->cx->scratch, int64_t, rank);
  for (uint32_t i = 0; i < rank; i++) shape[i] = res->dims[i];
  for (uint32_t i = 0; i < ns; i++) {
    int64_t x = lhs->dims[d->in_spatial.v[i]], o = SHARD_DYNAMIC_DIM;
    if (!S_dynamic(x) && !S_dynamic(w[i])) {
      /* dilated base and window; a result of 0 when the window does not fit.
       * Overflow: the sizes are left to the result type (dynamic). */
      int64_t base, win, t;
      if (!__builtin_mul_overflow(x > 0 ? x - 1 : 0, ldil[i], &base) &&
          !__builtin_add_overflow(base, x > 0 ? 1 : 0, &base) && !__builtin_add_overflow(base, lo[i], &base) &&
          !__builtin_add_overflow(base, hi[i], &base) &&
          !__builtin_mul_overflow(w[i] > 0 ? w[i] - 1 : 0, rdil[i], &win) &&
          !__builtin_add_overflow(win, w[i] > 0 ? 1 : 0, &win) && !__builtin_sub_overflow(base, win, &t))
        o = base <= 0 || win <= 0 || t < 0 ? 0 : t / stride[i] + 1;
    }
    shape[d->out_spatial.v[i]] = o;
  }
  shape[d->out_batch] = S_dynamic(ib) ? SHARD_DYNAMIC_DIM : ib / bgc;
  shape[d->out_feature] = kout;
  for (uint32_t i = 0; i < rank; i++)
    if (!S_dims_compatible(shape[i], res->dims[i]))
      return shard_verify_fail(&s->with, "inferred shape '[%s]' is incompatible with return type of operation %s",
                               S_shape(s->cx, shape, rank), S_ty(s, res));
  return true;
}

/* ---- fft (inferFftOp) ----------------------------------------------------- */

static bool S_is_complex(const char *e) { return e && strncmp(e, "complex<", 8) == 0; }

static bool S_fft(S_op *s) {
  const shard_op *op = s->op;
  const shard_type *x = S_operand_type(op, 0);
  uint32_t n;
  const int64_t *len = S_dims_attr(op, "fft_length", &n);
  if (!len && !shard_verify_attr(op, "fft_length")) return true; /* verify_required.c */
  if (n < 1 || n > 3) return S_infer_fail(s, "rank must be between 1 and 3, but got %u.", n);
  int type = shard_attr_enum(shard_verify_attr(op, "fft_type"), SHARD_SHLO_FFT_TYPE);
  const char *e = S_elem(x);
  if (!e) return true;
  if (type == SHARD_FFT_RFFT) {
    if (strcmp(e, "f32") != 0 && strcmp(e, "f64") != 0)
      return S_infer_fail(s, "RFFT requires f32 or f64 input type, but is given '%s'.", e);
  } else if (type >= 0 && !S_is_complex(e)) {
    return S_infer_fail(s, "%s takes a complex tensor as input, but is given %s.",
                        shard_shlo_enum_name(SHARD_SHLO_FFT_TYPE, (uint32_t)type), S_ty(s, x));
  }
  if (!S_ranked(x)) return true;
  if (x->rank < n)
    return S_infer_fail(s, "operand rank must not be less than fft rank of %u for operand of type %s.", n, S_ty(s, x));
  const int64_t *back = x->dims + (x->rank - n);
  int64_t *shape = SHARD_NEW_ARRAY(s->cx->scratch, int64_t, x->rank);
  for (uint32_t i = 0; i < x->rank; i++) shape[i] = x->dims[i];
  if (type == SHARD_FFT_RFFT) {
    for (uint32_t i = 0; i < n; i++)
      if (back[i] != len[i])
        return S_infer_fail(s, "RFFT requires innermost dimensions match fft_length. Got: %s but wanted %s.",
                            S_shape(s->cx, x->dims, x->rank), S_list(s->cx, len, n));
    if (len[n - 1] != 0) shape[x->rank - 1] = len[n - 1] / 2 + 1;
  } else if (type == SHARD_FFT_IRFFT) {
    for (uint32_t i = 0; i + 1 < n; i++)
      if (back[i] != len[i])
        return S_infer_fail(s,
                            "IRFFT requires non-final dimensions match fft_length. Got: %s but wanted %s, and %" PRId64
                            " != %" PRId64 ".",
                            S_shape(s->cx, x->dims, x->rank), S_list(s->cx, len, n), back[i], len[i]);
    int64_t last = x->dims[x->rank - 1];
    if ((last != 0 || len[n - 1] != 0) && last != len[n - 1] / 2 + 1)
      return S_infer_fail(s,
                          "IRFFT requires innermost dimension match fft_length[-1]/2+1. Got: %s but fft_length is %s.",
                          S_shape(s->cx, x->dims, x->rank), S_list(s->cx, len, n));
    shape[x->rank - 1] = len[n - 1];
  }
  const char *re = e;
  if (type == SHARD_FFT_RFFT) re = shard_arena_printf(s->cx->scratch, "complex<%s>", e);
  if (type == SHARD_FFT_IRFFT && S_is_complex(e)) {
    size_t l = strlen(e);
    re = shard_arena_printf(s->cx->scratch, "%.*s", (int)(l - 9), e + 8);
  }
  return S_check_inferred_tensor(s, x->rank, shape, re);
}

/* ---- batch_norm_* (verifyBatchNorm) -------------------------------------- */

static bool S_batch_norm(S_op *s) {
  const shard_type *x = S_operand_type(s->op, 0), *scale = S_operand_type(s->op, 1);
  int64_t fi = 0;
  if (!S_int_attr(s->op, "feature_index", &fi) || !S_ranked(x)) return true;
  if (fi >= (int64_t)x->rank)
    return S_infer_fail(s,
                        "expects featureIndex to be smaller than the rank of multi-dimensional operands; got "
                        "featureIndex %" PRId64 ", and rank %u.",
                        fi, x->rank);
  if (fi < 0) return S_infer_fail(s, "expects featureIndex to be a non-negative number, got %" PRId64 ".", fi);
  if (S_ranked(scale) && scale->rank == 1 && !S_dims_compatible(scale->dims[0], x->dims[fi]))
    return S_infer_fail(s,
                        "expects the size of scale factor to be same as the feature count, but the size of scale "
                        "factor is %" PRId64 " and the feature count is %" PRId64 ".",
                        scale->dims[0], x->dims[fi]);
  return true;
}

/* ---- cholesky, triangular_solve ------------------------------------------ */

static bool S_cholesky(S_op *s) {
  const shard_type *a = S_operand_type(s->op, 0);
  if (!S_ranked(a)) return true;
  if (a->rank < 2)
    return S_infer_fail(s, "argument 'a' must have rank >= 2, got shape %s.", S_shape(s->cx, a->dims, a->rank));
  if (!S_dims_compatible(a->dims[a->rank - 2], a->dims[a->rank - 1]))
    return S_infer_fail(s, "minor dimensions of 'a' must have equal size, got shape %s.",
                        S_shape(s->cx, a->dims, a->rank));
  return true;
}

static bool S_triangular_solve(S_op *s) {
  const shard_type *a = S_operand_type(s->op, 0), *b = S_operand_type(s->op, 1);
  if (!S_ranked(a)) return true;
  uint32_t r = a->rank;
  if (r < 2) return S_infer_fail(s, "operand 'a' must have rank >= 2, but got %s", S_ty(s, a));
  if (!S_dims_compatible(a->dims[r - 2], a->dims[r - 1]))
    return S_infer_fail(s, "two minor dimensions of operand 'a' must have equal size, but got %s", S_ty(s, a));
  if (!S_ranked(b)) return true;
  if (b->rank != r) return S_infer_fail(s, "operands must have equal rank, but got %s and %s", S_ty(s, a), S_ty(s, b));
  const shard_attr *left = shard_verify_attr(s->op, "left_side");
  bool left_side = left && left->kind == SHARD_ATTR_BOOL && left->u.boolean;
  if (!S_dims_compatible(a->dims[r - 1], b->dims[r - (left_side ? 2 : 1)]))
    return S_infer_fail(s, "shared dimension of operands 'a' and 'b' does not match, but got %s and %s", S_ty(s, a),
                        S_ty(s, b));
  for (uint32_t i = 0; i + 2 < r; i++)
    if (!S_dims_compatible(a->dims[i], b->dims[i]))
      return S_infer_fail(s, "batch dimensions of the operands must match, but got %s and %s", S_ty(s, a), S_ty(s, b));
  if (shard_attr_enum(shard_verify_attr(s->op, "transpose_a"), SHARD_SHLO_TRANSPOSE) == SHARD_TRANSPOSE_INVALID)
    return S_infer_fail(s, "Invalid transpose option value for triangular solve");
  return true;
}

/* ---- reduce_precision, bitcast_convert ----------------------------------- */

static bool S_reduce_precision(S_op *s) {
  int64_t e = 1, m = 0;
  if (S_int_attr(s->op, "exponent_bits", &e) && e < 1)
    return shard_verify_fail(&s->with,
                             "attribute 'exponent_bits' failed to satisfy constraint: 32-bit signless integer "
                             "attribute whose value is positive");
  if (S_int_attr(s->op, "mantissa_bits", &m) && m < 0)
    return shard_verify_fail(&s->with,
                             "attribute 'mantissa_bits' failed to satisfy constraint: 32-bit signless integer "
                             "attribute whose value is non-negative");
  return true;
}

/* verifyBitcastConvertOp: equal element widths keep the shape; otherwise the
 * wider side has one dimension fewer, the narrower side's last dimension is
 * the width ratio. */
static bool S_bitcast_convert(S_op *s) {
  const shard_type *x = S_operand_type(s->op, 0), *r = S_result_type(s->op, 0);
  if (!S_ranked(x) || !S_ranked(r)) return true;
  unsigned xb = shard_elem_bits(x->elem), rb = shard_elem_bits(r->elem);
  if (!xb || !rb) return true;
  const shard_type *small = xb < rb ? x : r, *big = xb < rb ? r : x;
  unsigned sb = xb < rb ? xb : rb, bb = xb < rb ? rb : xb;
  if (xb == rb) {
    if (!S_shapes_compatible(x, r))
      return shard_verify_fail(&s->at,
                               "operand and result shapes must match except for the innermost dimension of the "
                               "shape with the smaller element type. Got: %s and %s.",
                               S_ty(s, x), S_ty(s, r));
    return true;
  }
  if (small->rank != big->rank + 1)
    return shard_verify_fail(&s->at,
                             "rank of smaller element type (%u) should be 1 more than rank of larger element type "
                             "(%u), but %u != %u + 1.",
                             small->rank, big->rank, small->rank, big->rank);
  int64_t last = small->dims[small->rank - 1];
  if (!S_dynamic(last) && last != (int64_t)(bb / sb))
    return shard_verify_fail(&s->at, "requires compatible bit widths. Got: %s and %s, but %u * %" PRId64 " != %u.",
                             S_ty(s, x), S_ty(s, r), sb, last, bb);
  for (uint32_t i = 0; i < big->rank; i++)
    if (!S_dims_compatible(small->dims[i], big->dims[i]))
      return shard_verify_fail(&s->at,
                               "operand and result shapes must match except for the innermost dimension of the "
                               "shape with the smaller element type. Got: %s and %s.",
                               S_ty(s, x), S_ty(s, r));
  return true;
}

/* ---- rng_bit_generator, custom_call -------------------------------------- */

static bool S_rng_bit_generator(S_op *s) {
  const shard_type *in = S_operand_type(s->op, 0), *out = S_result_type(s->op, 0);
  if (S_ranked(in) && S_ranked(out) && !S_shapes_compatible(in, out))
    return shard_verify_fail(&s->at, "output state shape must be compatible with initial state shape. Got: %s and %s",
                             S_ty(s, in), S_ty(s, out));
  return true;
}

/* One side's layouts: one per value, each a permutation of [0, rank). */
static bool S_custom_call_layouts(S_op *s, const shard_attr *layouts, bool results) {
  const char *what = results ? "result" : "operand";
  uint32_t n = results ? s->op->num_results : s->op->num_operands;
  if (layouts->kind != SHARD_ATTR_ARRAY) return true; /* the attribute's own type: verify_required.c */
  if (layouts->u.array.num != n)
    return shard_verify_fail(&s->with, "Number of %ss must match the number of %s layouts, %u != %u", what, what, n,
                             layouts->u.array.num);
  for (uint32_t i = 0; i < n; i++) {
    const shard_type *t = results ? S_result_type(s->op, i) : S_operand_type(s->op, i);
    const shard_attr *l = layouts->u.array.elems[i];
    shard_i64s v;
    if (!S_ranked(t) || !shard_attr_i64_list(l, &v)) continue;
    bool perm = v.n == t->rank;
    for (uint32_t k = 0; perm && k < v.n; k++) perm = v.v[k] >= 0 && v.v[k] < (int64_t)t->rank;
    if (perm) perm = !S_has_duplicates(v.v, v.n);
    if (!perm)
      return shard_verify_fail(&s->with, "incorrect layout %s for type %s, layout must be a permutation of [0, %u)",
                               l->kind == SHARD_ATTR_DENSE && l->u.dense.payload
                                   ? shard_arena_printf(s->cx->scratch, "dense<%s> : %s", l->u.dense.payload,
                                                        shard_verify_type_str(l->u.dense.type))
                                   : shard_arena_printf(s->cx->scratch, "[%s]", S_list(s->cx, v.v, v.n)),
                               S_ty(s, t), t->rank);
  }
  return true;
}

/* api_version is one of StableHLO's CustomCallApiVersion cases; the typed
 * FFI takes its backend_config as a dictionary, the others as a string. */
static bool S_custom_call_config(S_op *s) {
  static const char *const versions[] = {"API_VERSION_UNSPECIFIED", "API_VERSION_ORIGINAL",
                                         "API_VERSION_STATUS_RETURNING", "API_VERSION_STATUS_RETURNING_UNIFIED",
                                         "API_VERSION_TYPED_FFI"};
  const int64_t typed_ffi = 4, num_versions = sizeof versions / sizeof *versions;
  int64_t version = 1;
  const shard_attr *v = shard_verify_attr(s->op, "api_version");
  if (v && (v->kind != SHARD_ATTR_INT || v->u.integer.value < 0 || v->u.integer.value >= num_versions))
    return shard_verify_fail(&s->with,
                             "attribute 'api_version' failed to satisfy constraint: allowed 32-bit signless integer "
                             "cases: 0, 1, 2, 3, 4");
  if (v) version = v->u.integer.value;
  const shard_attr *config = shard_verify_attr(s->op, "backend_config");
  if (!config) return true;
  if (version == typed_ffi && config->kind != SHARD_ATTR_DICT)
    return shard_verify_fail(&s->with, "backend_config for api_version %s must be a dictionary attribute.",
                             versions[version]);
  if (version != typed_ffi && config->kind != SHARD_ATTR_STRING)
    return shard_verify_fail(&s->with, "backend_config for api_version %s must be a string attribute.",
                             versions[version]);
  return true;
}

static bool S_custom_call(S_op *s) {
  if (!S_custom_call_config(s)) return false;
  const shard_attr *ol = shard_verify_attr(s->op, "operand_layouts"), *rl = shard_verify_attr(s->op, "result_layouts");
  if (!ol && !rl) return true;
  if (!ol || !rl)
    return shard_verify_fail(&s->with, "Layout attributes should be specified for either both operands and results or "
                                       "none.");
  for (uint32_t i = 0; i < s->op->num_results; i++)
    if (s->op->results[i].type && s->op->results[i].type->kind == SHARD_TYPE_TUPLE)
      return true; /* flattened: not modelled */
  return S_custom_call_layouts(s, ol, false) && S_custom_call_layouts(s, rl, true);
}

/* ---- rng, the dynamic ops, infeed and recv -------------------------------- */

static bool S_is_token(const shard_type *t) {
  return t && t->kind == SHARD_TYPE_OTHER && t->text &&
         (strcmp(t->text, "!stablehlo.token") == 0 || strcmp(t->text, "!mhlo.token") == 0);
}

/* The integers of a 1-D shape operand written as a stablehlo.constant; false
 * when the operand is computed (nothing to compare statically). */
static bool S_constant_shape(const shard_op *op, uint32_t i, shard_i64s *out) {
  const shard_value *v = i < op->num_operands ? op->operands[i].value : NULL;
  const shard_op *def = v ? v->def : NULL;
  if (!def || strcmp(def->name, "stablehlo.constant") != 0) return false;
  const shard_attr *value = shard_verify_attr(def, "value");
  return value && shard_attr_i64_list(value, out);
}

/* isCompatibleForHloTypeInference of a shape operand and a result type: a
 * constant shape must give the result's rank and its static sizes. */
static bool S_shape_operand_fits(const shard_op *op, uint32_t i, const shard_type *result) {
  shard_i64s v;
  if (!S_ranked(result) || !S_constant_shape(op, i, &v)) return true;
  if (v.n != result->rank) return false;
  for (uint32_t k = 0; k < v.n; k++)
    if (!S_dims_compatible(v.v[k], result->dims[k])) return false;
  return true;
}

/* The number of elements of a 1-D operand's type, -1 when not static. */
static int64_t S_length(const shard_type *t) {
  return S_ranked(t) && t->rank == 1 && !S_dynamic(t->dims[0]) ? t->dims[0] : -1;
}

/* rng (inferRngOp): mu and sigma of NORMAL are floats; a constant shape
 * fixes the result's dims, b fixes its element type. */
static bool S_rng(S_op *s) {
  const shard_op *op = s->op;
  const shard_type *a = S_operand_type(op, 0), *b = S_operand_type(op, 1), *r = S_result_type(op, 0);
  if (shard_attr_enum(shard_verify_attr(op, "rng_distribution"), SHARD_SHLO_RNG_DISTRIBUTION) == 1 &&
      (!S_is_float(S_elem(a)) || !S_is_float(S_elem(b))))
    return S_infer_fail(s, "mu and sigma must be floats");
  shard_i64s dims;
  if (!S_ranked(r) || !S_elem(b) || !S_constant_shape(op, 2, &dims)) return true;
  return S_check_inferred_tensor(s, (uint32_t)dims.n, dims.v, S_elem(b));
}

static bool S_dynamic_pad(S_op *s) {
  const shard_op *op = s->op;
  const shard_type *in = S_operand_type(op, 0), *pad = S_operand_type(op, 1), *r = S_result_type(op, 0);
  if (!S_ranked(in)) return true;
  if (S_ranked(pad) && pad->rank != 0) return shard_verify_fail(&s->at, "padding value type should be a rank-0");
  static const char *const names[] = {"edge_padding_low", "edge_padding_high", "edge_padding_interior"};
  for (uint32_t i = 0; i < 3; i++) {
    int64_t n = S_length(S_operand_type(op, 2 + i));
    if (n >= 0 && n != (int64_t)in->rank)
      return shard_verify_fail(&s->at, "%s length(%" PRId64 ") must match operand rank(%u).", names[i], n, in->rank);
  }
  if (S_ranked(r) && r->rank != in->rank)
    return shard_verify_fail(&s->at, "operand rank(%u) must match result(%u).", in->rank, r->rank);
  return true;
}

static bool S_dynamic_reshape(S_op *s) {
  const shard_type *shape = S_operand_type(s->op, 1), *r = S_result_type(s->op, 0);
  int64_t n = S_length(shape);
  if (S_ranked(r) && n >= 0 && n != (int64_t)r->rank)
    return shard_verify_fail(&s->at, "output should have a rank equal to the number of elements in output_shape");
  if (!S_shape_operand_fits(s->op, 1, r))
    return shard_verify_fail(&s->at, "output_shape is incompatible with return type of operation %s", S_ty(s, r));
  return true;
}

static bool S_real_dynamic_slice(S_op *s) {
  const shard_type *in = S_operand_type(s->op, 0);
  if (!S_ranked(in)) return true;
  static const char *const names[] = {"start_indices", "limit_indices", "strides"};
  for (uint32_t i = 0; i < 3; i++) {
    int64_t n = S_length(S_operand_type(s->op, 1 + i));
    if (n >= 0 && n != (int64_t)in->rank)
      return shard_verify_fail(&s->at, "has mismatched number of operand rank (%u) and %s size (%" PRId64 ")", in->rank,
                               names[i], n);
  }
  return true;
}

/* infeed and recv (verifyInfeedOp, verifyRecvOp): the results end with a
 * token; infeed's layout has one entry per other result. */
static bool S_results_end_with_token(S_op *s) {
  uint32_t n = s->op->num_results;
  if (n == 0) return shard_verify_fail(&s->at, "result is expected to be at least of size 1, but got 0");
  const shard_type *last = S_result_type(s->op, n - 1);
  if (!S_is_token(last))
    return shard_verify_fail(&s->at, "last element of result types is expected to be of token type, but got %s",
                             S_ty(s, last));
  return true;
}

static bool S_infeed(S_op *s) {
  if (!S_results_end_with_token(s)) return false;
  const shard_attr *layout = shard_verify_attr(s->op, "layout");
  if (!layout) return true;
  if (layout->kind != SHARD_ATTR_ARRAY)
    return shard_verify_fail(&s->at, "layout-attribute expected to be of array-type.");
  if (layout->u.array.num != s->op->num_results - 1)
    return shard_verify_fail(&s->at,
                             "layout-attribute size must be %u (which is the number of op-results - 1 (for token "
                             "result)), but got %u",
                             s->op->num_results - 1, layout->u.array.num);
  for (uint32_t i = 0; i < layout->u.array.num; i++) {
    const shard_attr *child = layout->u.array.elems[i];
    if (child->kind != SHARD_ATTR_ARRAY)
      return shard_verify_fail(&s->at, "layout-attribute expected to have elements of type array, but got %s",
                               shard_verify_attr_str(s->cx, child));
    for (uint32_t k = 0; k < child->u.array.num; k++)
      if (child->u.array.elems[k]->kind != SHARD_ATTR_INT)
        return shard_verify_fail(&s->at,
                                 "layout-attribute's leaf elements are expected to be of type integer, but got %s",
                                 shard_verify_attr_str(s->cx, child->u.array.elems[k]));
  }
  return true;
}

static bool S_recv(S_op *s) { return S_results_end_with_token(s); }

/* ---- ops whose result type is inferred from their operands --------------- */

/* compare: SameOperandsElementType; the result is i1 of the operands' shape. */
static bool S_compare(S_op *s) {
  const shard_type *a = S_operand_type(s->op, 0), *b = S_operand_type(s->op, 1);
  if (a && b && !S_same_elem(a, b, false))
    return shard_verify_fail(&s->with, "requires the same element type for all operands");
  if (!S_ranked(a)) return true;
  return S_check_inferred_tensor(s, a->rank, a->dims, "i1");
}

/* The part type of a complex element ("complex<f32>" -> "f32"). */
static const char *S_complex_part(vf_ctx *cx, const char *e) {
  size_t n = e ? strlen(e) : 0;
  if (n < 10 || strncmp(e, "complex<", 8) != 0 || e[n - 1] != '>') return NULL;
  return shard_arena_strndup(cx->scratch, e + 8, n - 9);
}

/* real / imag: a complex operand gives its part type, a float one itself. */
static bool S_real_imag(S_op *s) {
  const shard_type *a = S_operand_type(s->op, 0);
  if (!S_ranked(a)) return true;
  const char *part = S_complex_part(s->cx, a->elem);
  return S_check_inferred_tensor(s, a->rank, a->dims, part ? part : a->elem);
}

/* complex: two operands of one float type give complex<that type>. */
static bool S_complex(S_op *s) {
  const shard_type *a = S_operand_type(s->op, 0), *b = S_operand_type(s->op, 1);
  if (a && b && !S_same_elem(a, b, false))
    return shard_verify_fail(&s->with, "requires the same type for all operands");
  if (!S_ranked(a)) return true;
  return S_check_inferred_tensor(s, a->rank, a->dims, shard_arena_printf(s->cx->scratch, "complex<%s>", a->elem));
}

/* replica_id and partition_id: tensor<ui32>. */
static bool S_device_id(S_op *s) { return S_check_inferred_tensor(s, 0, NULL, "ui32"); }

/* after_all: tokens in, a token out (ODS). */
static bool S_after_all(S_op *s) {
  for (uint32_t i = 0; i < s->op->num_operands; i++)
    if (!S_is_token(S_operand_type(s->op, i)))
      return shard_verify_fail(&s->with, "operand #%u must be variadic of token, but got %s", i,
                               S_ty(s, S_operand_type(s->op, i)));
  if (s->op->num_results == 1 && !S_is_token(S_result_type(s->op, 0)))
    return shard_verify_fail(&s->with, "result #0 must be token, but got %s", S_ty(s, S_result_type(s->op, 0)));
  return true;
}

/* ---- dense literals ------------------------------------------------------ */

/* MLIR's TensorLiteralParser (buildAttributeAPInt): an unsigned element type
 * takes no negative value, and every integer must fit its type: iN takes
 * [-2^(N-1), 2^N - 1] (either reading of the bits), siN [-2^(N-1), 2^(N-1) - 1],
 * uiN [0, 2^N - 1]. The payload is kept as text; it is scanned once, outside
 * string literals (hex blobs), where a '-' can only be a sign. */
static bool S_dense_fail(vf_ctx *cx, shard_span at, const char *msg) {
  vf_emit plain = shard_verify_emit_op(cx, NULL, NULL);
  plain.span = at;
  return shard_verify_fail(&plain, "%s", msg);
}

bool shard_verify_check_dense(vf_ctx *cx, const shard_attr *a, shard_span at) {
  const shard_type *t = a->u.dense.type;
  const char *e = S_elem(t), *p = a->u.dense.payload;
  if (!e || !p) return true;
  bool is_unsigned = strncmp(e, "ui", 2) == 0, is_signed = strncmp(e, "si", 2) == 0;
  if (!is_unsigned && !is_signed && !(e[0] == 'i' && e[1] >= '0' && e[1] <= '9')) return true;
  unsigned w = shard_elem_bits(e);
  if (w == 0 || w > 64) return true;
  uint64_t umax = w == 64 ? UINT64_MAX : ((uint64_t)1 << w) - 1, half = (uint64_t)1 << (w - 1);
  uint64_t pos_max = is_signed ? half - 1 : umax, neg_max = half;
  bool in_string = false, negative = false;
  for (; *p; p++) {
    if (*p == '"' && (p == a->u.dense.payload || p[-1] != '\\')) in_string = !in_string;
    if (in_string) continue;
    if (*p == '-') {
      if (is_unsigned) return S_dense_fail(cx, at, "expected unsigned integer elements, but parsed negative value");
      negative = true;
      continue;
    }
    if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || *p == '_') { /* true, false */
      while (p[1] && ((p[1] >= 'a' && p[1] <= 'z') || (p[1] >= 'A' && p[1] <= 'Z') || p[1] == '_')) p++;
      negative = false;
      continue;
    }
    if (*p < '0' || *p > '9') {
      if (*p != ' ' && *p != '\n' && *p != '\t') negative = false;
      continue;
    }
    /* one integer literal, decimal or 0x hex */
    uint64_t v = 0;
    bool over = false, hex = p[0] == '0' && (p[1] == 'x' || p[1] == 'X');
    if (hex) p += 2;
    for (;; p++) {
      unsigned dgt;
      if (*p >= '0' && *p <= '9') dgt = (unsigned)(*p - '0');
      else if (hex && *p >= 'a' && *p <= 'f') dgt = (unsigned)(*p - 'a' + 10);
      else if (hex && *p >= 'A' && *p <= 'F') dgt = (unsigned)(*p - 'A' + 10);
      else break;
      over |= __builtin_mul_overflow(v, hex ? 16u : 10u, &v) || __builtin_add_overflow(v, dgt, &v);
    }
    if (!hex && (*p == '.' || *p == 'e' || *p == 'E'))
      return S_dense_fail(cx, at, "expected integer elements, but parsed floating-point");
    if (over || v > (negative ? neg_max : pos_max))
      return S_dense_fail(cx, at, "integer constant out of range for type");
    negative = false;
    p--;
  }
  return true;
}

/* ---- dispatch ------------------------------------------------------------ */

typedef struct S_check {
  const char *name;
  bool (*fn)(S_op *);
} S_check;

/* Sorted by name (bsearch). */
static const S_check K_checks[] = {
    {"stablehlo.after_all", S_after_all},
    {"stablehlo.all_gather", S_all_gather},
    {"stablehlo.all_reduce", S_all_reduce},
    {"stablehlo.all_to_all", S_all_to_all},
    {"stablehlo.batch_norm_grad", S_batch_norm},
    {"stablehlo.batch_norm_inference", S_batch_norm},
    {"stablehlo.batch_norm_training", S_batch_norm},
    {"stablehlo.bitcast_convert", S_bitcast_convert},
    {"stablehlo.broadcast", S_broadcast},
    {"stablehlo.broadcast_in_dim", S_broadcast_in_dim},
    {"stablehlo.case", S_conditional},
    {"stablehlo.cholesky", S_cholesky},
    {"stablehlo.clamp", S_clamp},
    {"stablehlo.collective_permute", S_collective_permute},
    {"stablehlo.compare", S_compare},
    {"stablehlo.complex", S_complex},
    {"stablehlo.concatenate", S_concatenate},
    {"stablehlo.convolution", S_convolution},
    {"stablehlo.custom_call", S_custom_call},
    {"stablehlo.dot", S_dot},
    {"stablehlo.dot_general", S_dot_general},
    {"stablehlo.dynamic_broadcast_in_dim", S_dynamic_broadcast_in_dim},
    {"stablehlo.dynamic_iota", S_dynamic_iota},
    {"stablehlo.dynamic_pad", S_dynamic_pad},
    {"stablehlo.dynamic_reshape", S_dynamic_reshape},
    {"stablehlo.dynamic_slice", S_dynamic_slice},
    {"stablehlo.dynamic_update_slice", S_dynamic_update_slice},
    {"stablehlo.fft", S_fft},
    {"stablehlo.gather", S_gather},
    {"stablehlo.get_dimension_size", S_get_dimension_size},
    {"stablehlo.get_tuple_element", S_get_tuple_element},
    {"stablehlo.if", S_conditional},
    {"stablehlo.imag", S_real_imag},
    {"stablehlo.infeed", S_infeed},
    {"stablehlo.iota", S_iota},
    {"stablehlo.map", S_map},
    {"stablehlo.pad", S_pad},
    {"stablehlo.partition_id", S_device_id},
    {"stablehlo.real", S_real_imag},
    {"stablehlo.real_dynamic_slice", S_real_dynamic_slice},
    {"stablehlo.recv", S_recv},
    {"stablehlo.reduce", S_reduce},
    {"stablehlo.reduce_precision", S_reduce_precision},
    {"stablehlo.reduce_scatter", S_reduce_scatter},
    {"stablehlo.reduce_window", S_reduce_window},
    {"stablehlo.replica_id", S_device_id},
    {"stablehlo.reshape", S_reshape},
    {"stablehlo.reverse", S_reverse},
    {"stablehlo.rng", S_rng},
    {"stablehlo.rng_bit_generator", S_rng_bit_generator},
    {"stablehlo.scatter", S_scatter},
    {"stablehlo.select", S_select},
    {"stablehlo.select_and_scatter", S_select_and_scatter},
    {"stablehlo.set_dimension_size", S_set_dimension_size},
    {"stablehlo.slice", S_slice},
    {"stablehlo.sort", S_sort},
    {"stablehlo.transpose", S_transpose},
    {"stablehlo.triangular_solve", S_triangular_solve},
    {"stablehlo.while", S_while},
};

static int S_cmp_check(const void *key, const void *elem) {
  return strcmp((const char *)key, ((const S_check *)elem)->name);
}

static void S_lookup_check(const char *name, struct vf_name_check *out) {
  out->stablehlo = strncmp(name, "stablehlo.", 10) == 0;
  out->check = out->stablehlo
                   ? bsearch(name, K_checks, sizeof K_checks / sizeof K_checks[0], sizeof K_checks[0], S_cmp_check)
                   : NULL;
}

bool shard_verify_check_stablehlo(vf_ctx *cx, const shard_op *op) {
  struct vf_name_check found, *slot = &found;
  if (op->def) {
    /* the definition's address, mixed: definitions are a few bytes apart */
    enum { SLOTS = sizeof cx->shlo_checks / sizeof cx->shlo_checks[0] };
    slot = &cx->shlo_checks[((uintptr_t)op->def * 0x9E3779B97F4A7C15ull) >> 32 & (SLOTS - 1)];
    if (slot->def != op->def) {
      slot->def = op->def;
      S_lookup_check(op->name, slot);
    }
  } else {
    S_lookup_check(op->name, slot);
  }
  if (!slot->stablehlo) return true;
  S_op s = S_begin(cx, op);
  if (op->def && (op->def->traits & SHARD_TRAIT_ELEMENTWISE) && !S_elementwise(&s)) return false;
  const S_check *c = slot->check;
  return c ? c->fn(&s) : true;
}
