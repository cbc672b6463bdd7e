/* -sdy-manual-axes-cleanup: puts every sdy.manual_computation in the form
 * propagation expects.
 *
 *  - manual_axes are sorted in the order of the mesh's axes;
 *  - every in/out sharding of a tensor mentions every manual axis: the parts
 *    of manual axes it does not use are added to its replicated axes (sorted
 *    and merged), and a sharding on the empty mesh moves to the common mesh
 *    of the op while doing so.
 *
 * A manual computation without operands or results but with manual axes and a
 * non-empty body cannot be cleaned up at this stage and is an error. */
#include <stdlib.h>
#include <string.h>

#include "pass/pass.h"
#include "pass/pass_shardings.h"

/* The op names this file tests, compared by definition (ir.h). */
static shard_op_name K_sdy_manual_computation = {"sdy.manual_computation", NULL};

typedef struct cleanup {
  shard_module *m;
  bool ok;
  shard_diag_engine *de;
} cleanup;

static shard_sharding_per_value *S_per_value(const shard_op *op, const char *name) {
  shard_attr *a = shard_op_attr(op, name);
  return a && a->kind == SHARD_ATTR_SDY_PER_VALUE ? a->u.per_value : NULL;
}

static bool S_mesh_is_empty(const shard_mesh *mesh) {
  return !mesh || (mesh->num_axes == 0 && mesh->num_device_ids == 0);
}

/* The mesh (name or inline mesh) of the first sharding not on an empty mesh. */
static const shard_tensor_sharding *S_common_mesh_sharding(const shard_module *m, const shard_sharding_per_value *in,
                                                           const shard_sharding_per_value *out) {
  const shard_sharding_per_value *lists[] = {in, out};
  for (int l = 0; l < 2; l++)
    for (uint32_t i = 0; lists[l] && i < lists[l]->num; i++) {
      const shard_tensor_sharding *s = &lists[l]->shardings[i];
      if (!S_mesh_is_empty(shard_module_sharding_mesh(m, s))) return s;
    }
  return NULL;
}

static const shard_mesh *S_sort_mesh; /* for qsort comparators only */

static int S_cmp_axis_name(const void *a, const void *b) {
  return shard_mesh_axis_index(S_sort_mesh, *(const char *const *)a) -
         shard_mesh_axis_index(S_sort_mesh, *(const char *const *)b);
}

static int S_cmp_axis_ref(const void *a, const void *b) { return shard_axis_compare(a, b, S_sort_mesh); }

/* Appends to `out` the parts of full axis `name` that no ref in `used`
 * covers, as full axis or sub-axes (Shardy's getAxisSetDiff for one axis). */
static void S_unused_parts(const char *name, const shard_mesh *mesh, const shard_axis_ref *used, uint32_t n_used,
                           shard_axis_ref *out, uint32_t *n_out) {
  int64_t size = shard_mesh_axis_size(mesh, name);
  if (size < 1) return;
  /* the used ranges of this axis as (pre, size), sorted by pre (scratch:
   * kept in the module, they were most of what this pass allocated) */
  int64_t *pres = shard_xmalloc(sizeof(int64_t) * (n_used + 1)), *sizes = shard_xmalloc(sizeof(int64_t) * (n_used + 1));
  uint32_t k = 0;
  for (uint32_t i = 0; i < n_used; i++) {
    if (strcmp(used[i].name, name) != 0) continue;
    shard_axis_range(&used[i], mesh, &pres[k], &sizes[k]);
    k++;
  }
  for (uint32_t i = 1; i < k; i++)
    for (uint32_t j = i; j > 0 && pres[j - 1] > pres[j]; j--) {
      int64_t t = pres[j];
      pres[j] = pres[j - 1];
      pres[j - 1] = t;
      t = sizes[j];
      sizes[j] = sizes[j - 1];
      sizes[j - 1] = t;
    }
  int64_t cur = 1;
  for (uint32_t i = 0; i <= k; i++) {
    int64_t next = i < k ? pres[i] : size;
    if (next > cur && next % cur == 0) {
      shard_axis_ref r = {name, false, 0, 0}; /* the manual_axes attribute's name, in the module */
      if (!(cur == 1 && next == size)) {
        r.is_sub = true;
        r.pre_size = cur;
        r.size = next / cur;
      }
      out[(*n_out)++] = r;
    }
    if (i < k && pres[i] * sizes[i] > cur) cur = pres[i] * sizes[i];
  }
  free(pres);
  free(sizes);
}

/* Sorts refs in mesh order and merges consecutive sub-axes of one axis. */
static uint32_t S_sort_and_merge(shard_axis_ref *axes, uint32_t n, const shard_mesh *mesh) {
  S_sort_mesh = mesh;
  qsort(axes, n, sizeof *axes, S_cmp_axis_ref);
  uint32_t k = 0;
  for (uint32_t i = 0; i < n; i++) {
    if (k && shard_axis_can_merge(&axes[k - 1], &axes[i])) axes[k - 1] = shard_axis_merge(&axes[k - 1], &axes[i], mesh);
    else axes[k++] = axes[i];
  }
  return k;
}

/* The sharding with unused manual axes added to its replicated axes, or NULL
 * when it already uses them all. */
static shard_tensor_sharding *S_add_unused(shard_arena *a, const shard_tensor_sharding *s, const shard_attr *manual,
                                           const shard_mesh *mesh, const shard_tensor_sharding *common) {
  SHARD_VEC(shard_axis_ref) used = {0};
  for (uint32_t d = 0; d < s->rank; d++)
    for (uint32_t i = 0; i < s->dims[d].num_axes; i++) SHARD_VEC_PUSH(used, s->dims[d].axes[i]);
  for (uint32_t i = 0; i < s->num_replicated; i++) SHARD_VEC_PUSH(used, s->replicated[i]);
  for (uint32_t i = 0; i < s->num_unreduced; i++) SHARD_VEC_PUSH(used, s->unreduced[i]);
  uint32_t cap = s->num_replicated + 2 * manual->u.manual_axes.num * 65;
  /* Built on the heap: only a sharding that changes keeps its list. */
  shard_axis_ref *repl = shard_xmalloc(sizeof(shard_axis_ref) * cap);
  uint32_t n = 0;
  for (uint32_t i = 0; i < manual->u.manual_axes.num; i++)
    S_unused_parts(manual->u.manual_axes.names[i], mesh, used.items, used.len, repl, &n);
  SHARD_VEC_FREE(used);
  if (!n) {
    free(repl);
    return NULL;
  }
  /* No replicated axes means no array: memcpy's arguments must not be NULL. */
  if (s->num_replicated) memcpy(repl + n, s->replicated, sizeof(*repl) * s->num_replicated);
  n += s->num_replicated;
  shard_tensor_sharding *c = shard_sharding_clone(a, s);
  c->num_replicated = S_sort_and_merge(repl, n, mesh);
  c->replicated = shard_arena_dup(a, repl, sizeof(*repl) * c->num_replicated);
  free(repl);
  c->mesh_name = common->mesh_name;
  c->inline_mesh = common->inline_mesh;
  return c;
}

static void S_update_list(cleanup *c, shard_op *op, const char *name, shard_value *values, uint32_t num_values,
                          const shard_operand *operands, const shard_attr *manual, const shard_mesh *mesh,
                          const shard_tensor_sharding *common) {
  shard_sharding_per_value *pv = S_per_value(op, name);
  if (!pv) return;
  shard_tensor_sharding *list = NULL;
  for (uint32_t i = 0; i < pv->num; i++) {
    const shard_type *t =
        values ? (i < num_values ? values[i].type : NULL) : (i < num_values ? operands[i].value->type : NULL);
    if (!t || (t->kind != SHARD_TYPE_TENSOR && t->kind != SHARD_TYPE_UNRANKED_TENSOR)) continue;
    shard_tensor_sharding *n = S_add_unused(c->m->arena, &pv->shardings[i], manual, mesh, common);
    if (!n) continue;
    if (!list) {
      list = SHARD_NEW_ARRAY(c->m->arena, shard_tensor_sharding, pv->num);
      memcpy(list, pv->shardings, sizeof(*list) * pv->num);
    }
    list[i] = *n;
  }
  if (list) shard_op_set_attr(c->m->arena, op, name, shard_attr_per_value(c->m->arena, list, pv->num), true);
}

static bool S_cleanup_op(shard_op *op, void *ctx) {
  cleanup *c = ctx;
  if (!shard_op_is(op, &K_sdy_manual_computation)) return true;
  shard_attr *manual = shard_op_attr(op, "manual_axes");
  if (!manual || manual->kind != SHARD_ATTR_SDY_MANUAL_AXES) return true;
  shard_sharding_per_value *in = S_per_value(op, "in_shardings");
  shard_sharding_per_value *out = S_per_value(op, "out_shardings");
  if ((!in || !in->num) && (!out || !out->num)) {
    shard_block *body = op->num_regions ? op->regions[0].first : NULL;
    bool body_empty = !body || !body->first || strcmp(body->first->name, "sdy.return") == 0;
    if (manual->u.manual_axes.num && !body_empty) {
      shard_error(c->de, op->span,
                  "op has manual_axes when there are no in/out shardings and the body is not "
                  "empty. This isn't allowed at this stage, please contact the Shardy team or "
                  "file a bug.");
      c->ok = false;
    }
    return true;
  }
  const shard_tensor_sharding *common = S_common_mesh_sharding(c->m, in, out);
  const shard_mesh *mesh = common ? shard_module_sharding_mesh(c->m, common) : NULL;
  if (!mesh) return true;
  /* manual axes in mesh order */
  uint32_t n = manual->u.manual_axes.num;
  const char **names = SHARD_NEW_ARRAY(c->m->arena, const char *, n ? n : 1);
  if (n) memcpy(names, manual->u.manual_axes.names, sizeof(*names) * n);
  S_sort_mesh = mesh;
  qsort(names, n, sizeof *names, S_cmp_axis_name);
  if (n && memcmp(names, manual->u.manual_axes.names, sizeof(*names) * n) != 0) {
    shard_attr *sorted = shard_attr_new(c->m->arena, SHARD_ATTR_SDY_MANUAL_AXES);
    sorted->span = manual->span;
    sorted->u.manual_axes.names = names;
    sorted->u.manual_axes.num = n;
    shard_op_set_attr(c->m->arena, op, "manual_axes", sorted, true);
    manual = sorted;
  }
  S_update_list(c, op, "in_shardings", NULL, op->num_operands, op->operands, manual, mesh, common);
  S_update_list(c, op, "out_shardings", op->results, op->num_results, NULL, manual, mesh, common);
  return true;
}

bool shard_pass_manual_axes_cleanup(shard_module *m, const char *options, const shard_pass_context *cx) {
  shard_diag_engine *de = cx->de;
  cleanup c = {m, true, de};
  shard_walk(m->top, S_cleanup_op, &c);
  return c.ok;
}
