/* -canonicalize: MLIR's canonicalizer as sdy_opt runs it, restricted to what
 * shard knows about — the sdy ops' canonicalization patterns plus the generic
 * effects of MLIR's greedy driver that Shardy's tests rely on.
 *
 * The driver follows mlir::applyPatternsGreedily:
 *  1. Fill a worklist with every op of the module, top-down (an op before
 *     the ops it nests, block order otherwise; -canonicalize's default) or
 *     bottom-up with top-down=false. Constants go through MLIR's
 *     OperationFolder on the way: equal stablehlo.constants in one
 *     isolated-from-above region are deduplicated and hoisted to the front
 *     of its entry block.
 *  2. Per op: erase it if it is trivially dead (no used results and no memory
 *     effects, looking into regions for ops with recursive effects);
 *     otherwise try the op's patterns in benefit order. Every rewrite queues
 *     what it touched (new ops, users of replaced values, producers of
 *     erased operands), so chains of rewrites finish in the same sweep.
 *  3. Run region DCE (dead ops, whole dead chains) over the module.
 *  4. Repeat while anything changed, at most max-iterations (10) times.
 *
 * The patterns themselves live in canonicalize_reshard.c (sdy.reshard),
 * canonicalize_collectives.c (sdy collectives) and canonicalize_manual.c
 * (sdy.manual_computation). Which ops count as effect-free is decided by op
 * name from the op definitions of the sdy, stablehlo and func dialects;
 * anything unknown is kept. StableHLO's own canonicalization patterns
 * (stablehlo.case) are not reproduced. enable-patterns/disable-patterns
 * filter by Shardy's labels (sdy-reshard, sdy-collective) or by the pattern
 * names of S_patterns (one name per op for the collectives). */
#include <stdlib.h>
#include <string.h>

#include "export/canonicalize_internal.h"
#include "ir/opdef.h"
#include "pass/pass.h"

/* ---- worklist ------------------------------------------------------------ */

/* S_slot for an op not numbered yet (or with room for its id lacking). */
static uint32_t *S_slot_slow(canon_rewriter *rw, shard_op *op) {
  uint32_t id;
  if (!shard_op_table_find(&rw->ids, op, &id)) id = shard_op_table_add(&rw->ids, op);
  if (id >= rw->num_slot) {
    uint32_t n = rw->num_slot ? rw->num_slot : 256;
    while (n <= id) n *= 2;
    rw->slot = shard_xrealloc(rw->slot, sizeof *rw->slot * n);
    memset(rw->slot + rw->num_slot, 0, sizeof *rw->slot * (n - rw->num_slot));
    rw->num_slot = n;
  }
  return &rw->slot[id];
}

/* The worklist slot of op (0: not in the worklist), op numbered if new.
 * Inline, as every push and pop asks: every op is numbered by the first
 * seeding, so the look-up nearly always hits. */
static inline uint32_t *S_slot(canon_rewriter *rw, shard_op *op) {
  uint32_t id;
  if (shard_op_table_find(&rw->ids, op, &id) && id < rw->num_slot) return &rw->slot[id];
  return S_slot_slow(rw, op);
}

static void S_push_single(canon_rewriter *rw, shard_op *op) {
  uint32_t *slot = S_slot(rw, op);
  if (*slot) return;
  if (rw->len == rw->cap) {
    rw->cap = rw->cap ? rw->cap * 2 : 256;
    rw->items = shard_xrealloc(rw->items, sizeof *rw->items * rw->cap);
  }
  rw->items[rw->len++] = op;
  *slot = rw->len;
}

static shard_op *S_pop(canon_rewriter *rw) {
  while (rw->len) {
    shard_op *op = rw->items[--rw->len];
    if (!op) continue;
    *S_slot(rw, op) = 0;
    return op;
  }
  return NULL;
}

static void S_remove(canon_rewriter *rw, const shard_op *op) {
  uint32_t id;
  if (!shard_op_table_find(&rw->ids, op, &id) || !rw->slot[id]) return;
  rw->items[rw->slot[id] - 1] = NULL;
  rw->slot[id] = 0;
}

void shard_canon_push(canon_rewriter *rw, shard_op *op) {
  /* MLIR queues the ancestors too (up to the pass's scope), so after a
   * rewrite the enclosing ops get another look first. */
  for (shard_op *x = op; x && x != rw->m->top && x->parent; x = shard_op_parent_op(x)) S_push_single(rw, x);
}

/* ---- positions in blocks ------------------------------------------------ */

#define S_ORDER_STRIDE ((uint64_t)1 << 20)

static void S_number_block(canon_rewriter *rw, const shard_block *b) {
  uint64_t next = S_ORDER_STRIDE;
  for (const shard_op *op = b->first; op; op = op->next, next += S_ORDER_STRIDE)
    *shard_ptrmap_slot(&rw->order, op) = next;
  *shard_ptrmap_slot(&rw->order, b) = 1;
}

/* An op's position: inserted ops take the midpoint between their
 * neighbours when there is room; otherwise the block is renumbered. */
static uint64_t S_order(canon_rewriter *rw, const shard_op *op) {
  uint64_t known = *shard_ptrmap_slot(&rw->order, op);
  if (known) return known;
  if (*shard_ptrmap_slot(&rw->order, op->parent)) {
    uint64_t lo = op->prev ? *shard_ptrmap_slot(&rw->order, op->prev) : 0;
    uint64_t hi = op->next ? *shard_ptrmap_slot(&rw->order, op->next) : lo + 2 * S_ORDER_STRIDE;
    if ((lo || !op->prev) && hi && hi > lo + 1) {
      uint64_t mid = op->next ? lo + (hi - lo) / 2 : lo + S_ORDER_STRIDE;
      *shard_ptrmap_slot(&rw->order, op) = mid;
      return mid;
    }
  }
  S_number_block(rw, op->parent);
  return *shard_ptrmap_slot(&rw->order, op);
}

/* A (re)inserted op has no valid position until asked for. */
static void S_forget_order(canon_rewriter *rw, const shard_op *op) {
  if (shard_ptrmap_get(&rw->order, op)) *shard_ptrmap_slot(&rw->order, op) = 0;
}

bool shard_canon_is_before_in_block(canon_rewriter *rw, const shard_op *a, const shard_op *b) {
  return S_order(rw, a) < S_order(rw, b);
}

/* ---- mutations ------------------------------------------------------------ */

void shard_canon_insert_before(canon_rewriter *rw, shard_op *pos, shard_op *op) {
  S_forget_order(rw, op);
  shard_op_insert_before(pos, op);
  shard_canon_push(rw, op);
}

void shard_canon_insert_after_value(canon_rewriter *rw, shard_value *v, shard_op *op) {
  S_forget_order(rw, op);
  shard_op_insert_after_value(v, op);
  shard_canon_push(rw, op);
}

void shard_canon_replace_uses(canon_rewriter *rw, shard_value *from, shard_value *to) {
  if (from == to) return;
  for (shard_operand *u = from->first_use; u; u = u->next_use) shard_canon_push(rw, u->owner);
  shard_value_replace_all_uses(from, to);
}

/* MLIR's addOperandsToWorklist: once op is gone, a producer left with at
 * most one other user may fold further (or be dead). */
static bool S_queue_operand_producers(shard_op *op, void *ctx) {
  canon_rewriter *rw = ctx;
  for (uint32_t i = 0; i < op->num_operands; i++) {
    shard_value *v = op->operands[i].value;
    if (!v || !v->def) continue;
    const shard_op *other = NULL;
    bool many = false;
    for (shard_operand *u = v->first_use; u; u = u->next_use) {
      if (u->owner == op || u->owner == other) continue;
      if (!other) {
        other = u->owner;
        continue;
      }
      many = true;
      break;
    }
    if (!many) shard_canon_push(rw, v->def);
  }
  return true;
}

static bool S_unqueue(shard_op *op, void *ctx) {
  S_remove(ctx, op);
  return true;
}

void shard_canon_erase_op(canon_rewriter *rw, shard_op *op) {
  shard_walk(op, S_queue_operand_producers, rw);
  shard_walk(op, S_unqueue, rw);
  shard_op_erase(op);
}

void shard_canon_replace_op(canon_rewriter *rw, shard_op *op, shard_value *const *values) {
  for (uint32_t i = 0; i < op->num_results; i++) shard_canon_replace_uses(rw, &op->results[i], values[i]);
  shard_canon_erase_op(rw, op);
}

shard_op *shard_canon_op_new(canon_rewriter *rw, const char *name, uint32_t num_operands, shard_value *const *operands,
                             shard_type *type, const shard_op *loc_of) {
  shard_op *op = shard_op_create(rw->arena, name, num_operands, operands, type ? 1 : 0, &type, 0);
  op->def = shard_op_def_lookup(name, strlen(name));
  if (loc_of) {
    op->loc = loc_of->loc;
    op->span = loc_of->span;
  }
  return op;
}

shard_op *shard_canon_op_clone(canon_rewriter *rw, const shard_op *op) {
  shard_type **types = op->num_results ? SHARD_NEW_ARRAY(rw->arena, shard_type *, op->num_results) : NULL;
  for (uint32_t i = 0; i < op->num_results; i++) types[i] = op->results[i].type;
  shard_op *c = shard_op_create(rw->arena, op->name, op->num_operands, NULL, op->num_results, types, 0);
  c->def = op->def;
  if (op->num_attrs) c->attrs = shard_arena_dup(rw->arena, op->attrs, sizeof *op->attrs * op->num_attrs);
  c->num_attrs = op->num_attrs;
  c->loc = op->loc;
  c->span = op->span;
  c->flags = op->flags;
  return c;
}

/* ---- queries -------------------------------------------------------------- */

const shard_mesh *shard_canon_sharding_mesh(const canon_rewriter *rw, const shard_tensor_sharding *s) {
  if (!s) return NULL;
  if (s->inline_mesh) return s->inline_mesh;
  if (!s->mesh_name) return NULL;
  for (uint32_t i = 0; i < rw->num_meshes; i++)
    if (strcmp(rw->meshes[i].name, s->mesh_name) == 0) return rw->meshes[i].mesh;
  return NULL;
}

shard_attr *shard_canon_attr(const shard_op *op, const char *name, shard_attr_kind kind) {
  shard_attr *a = shard_op_attr(op, name);
  return a && a->kind == kind ? a : NULL;
}

static const shard_tensor_sharding *S_sharding_attr(const shard_op *op, const char *name) {
  shard_attr *a = shard_canon_attr(op, name, SHARD_ATTR_SDY_SHARDING);
  return a ? a->u.sharding : NULL;
}

static const shard_tensor_sharding *S_per_value_at(const shard_op *op, const char *name, uint32_t i) {
  shard_attr *a = shard_canon_attr(op, name, SHARD_ATTR_SDY_PER_VALUE);
  return a && i < a->u.per_value->num ? &a->u.per_value->shardings[i] : NULL;
}

static bool S_is(const shard_op *op, const char *name) { return op && strcmp(op->name, name) == 0; }

const shard_tensor_sharding *shard_canon_value_sharding(const shard_value *v) {
  /* A value owned by a data-flow edge has that edge's sharding. */
  for (const shard_operand *u = v->first_use; u; u = u->next_use)
    if (S_is(u->owner, "sdy.data_flow_edge") && shard_operand_index(u) == 0)
      return S_sharding_attr(u->owner, "sharding");
  if (!v->def) {
    const shard_op *owner = v->block && v->block->parent ? v->block->parent->parent : NULL;
    if (S_is(owner, "func.func")) {
      shard_attr *a = shard_value_attr(v, "sdy.sharding");
      return a && a->kind == SHARD_ATTR_SDY_SHARDING ? a->u.sharding : NULL;
    }
    if (S_is(owner, "sdy.manual_computation") || S_is(owner, "sdy.named_computation"))
      return S_per_value_at(owner, "in_shardings", v->index);
    return NULL;
  }
  const shard_op *op = v->def;
  if (S_is(op, "sdy.reshard") || S_is(op, "sdy.sharding_constraint") || S_is(op, "sdy.data_flow_edge"))
    return S_sharding_attr(op, "sharding");
  if (shard_op_is_sdy_collective(op)) return S_sharding_attr(op, "out_sharding");
  if (S_is(op, "sdy.manual_computation") || S_is(op, "sdy.named_computation"))
    return S_per_value_at(op, "out_shardings", v->index);
  return S_per_value_at(op, "sdy.sharding", v->index);
}

bool shard_canon_axes_equal(const shard_axis_ref *a, uint32_t na, const shard_axis_ref *b, uint32_t nb) {
  if (na != nb) return false;
  for (uint32_t i = 0; i < na; i++)
    if (!shard_axis_equal(&a[i], &b[i])) return false;
  return true;
}

bool shard_canon_same_mesh_ref(const shard_tensor_sharding *a, const shard_tensor_sharding *b) {
  if (!a->inline_mesh != !b->inline_mesh) return false;
  if (a->inline_mesh) return shard_mesh_equal(a->inline_mesh, b->inline_mesh);
  return strcmp(a->mesh_name ? a->mesh_name : "", b->mesh_name ? b->mesh_name : "") == 0;
}

/* ---- side effects ------------------------------------------------------- */

/* StableHLO ops declared Pure or NoMemoryEffect (StablehloOps.td), sorted. */
static const char *const S_pure_stablehlo[] = {"abs",
                                               "add",
                                               "after_all",
                                               "and",
                                               "atan2",
                                               "batch_norm_grad",
                                               "batch_norm_inference",
                                               "batch_norm_training",
                                               "bitcast_convert",
                                               "broadcast",
                                               "broadcast_in_dim",
                                               "cbrt",
                                               "ceil",
                                               "cholesky",
                                               "clamp",
                                               "compare",
                                               "complex",
                                               "concatenate",
                                               "constant",
                                               "convert",
                                               "convolution",
                                               "cosine",
                                               "count_leading_zeros",
                                               "create_token",
                                               "cross-replica-sum",
                                               "divide",
                                               "dot",
                                               "dot_general",
                                               "dynamic_broadcast_in_dim",
                                               "dynamic_conv",
                                               "dynamic_gather",
                                               "dynamic_iota",
                                               "dynamic_pad",
                                               "dynamic_reshape",
                                               "dynamic_slice",
                                               "dynamic_update_slice",
                                               "einsum",
                                               "exponential",
                                               "exponential_minus_one",
                                               "fft",
                                               "floor",
                                               "gather",
                                               "get_dimension_size",
                                               "get_tuple_element",
                                               "imag",
                                               "iota",
                                               "is_finite",
                                               "log",
                                               "log_plus_one",
                                               "logistic",
                                               "maximum",
                                               "minimum",
                                               "multiply",
                                               "negate",
                                               "not",
                                               "optimization_barrier",
                                               "or",
                                               "pad",
                                               "partition_id",
                                               "popcnt",
                                               "power",
                                               "real",
                                               "real_dynamic_slice",
                                               "reduce_precision",
                                               "remainder",
                                               "replica_id",
                                               "reshape",
                                               "return",
                                               "reverse",
                                               "rng_bit_generator",
                                               "round_nearest_afz",
                                               "round_nearest_even",
                                               "rsqrt",
                                               "select",
                                               "set_dimension_size",
                                               "shift_left",
                                               "shift_right_arithmetic",
                                               "shift_right_logical",
                                               "sign",
                                               "sine",
                                               "slice",
                                               "sqrt",
                                               "subtract",
                                               "tan",
                                               "tanh",
                                               "torch_index_select",
                                               "transpose",
                                               "triangular_solve",
                                               "tuple",
                                               "unary_einsum",
                                               "uniform_dequantize",
                                               "uniform_quantize",
                                               "xor"};

/* Ops with RecursiveMemoryEffects: their effects are those of their bodies. */
static const char *const S_recursive_ops[] = {"sdy.manual_computation",
                                              "sdy.named_computation",
                                              "stablehlo.case",
                                              "stablehlo.if",
                                              "stablehlo.map",
                                              "stablehlo.reduce",
                                              "stablehlo.reduce_window",
                                              "stablehlo.scatter",
                                              "stablehlo.select_and_scatter",
                                              "stablehlo.sort",
                                              "stablehlo.while"};

static int S_cmp_name(const void *key, const void *elem) { return strcmp(key, *(const char *const *)elem); }

typedef enum { S_EFFECTS_NONE, S_EFFECTS_RECURSIVE, S_EFFECTS_SOME } S_effects;

/* The op's own memory effects, as far as shard knows them. */
static S_effects S_op_effects(const shard_op *op) {
  const char *n = op->name;
  if (!op->def) return S_EFFECTS_SOME;
  for (size_t i = 0; i < sizeof S_recursive_ops / sizeof S_recursive_ops[0]; i++)
    if (strcmp(n, S_recursive_ops[i]) == 0) return S_EFFECTS_RECURSIVE;
  if (strcmp(n, "sdy.reshard") == 0 || strcmp(n, "sdy.constant") == 0 || strcmp(n, "sdy.propagation_barrier") == 0 ||
      strcmp(n, "sdy.return") == 0 || strcmp(n, "func.return") == 0)
    return S_EFFECTS_NONE;
  if (strncmp(n, "stablehlo.", 10) == 0) {
    const char *short_name = n + 10;
    if (strcmp(short_name, "custom_call") == 0) {
      /* Effects only with has_side_effect = true. */
      shard_attr *a = shard_op_attr(op, "has_side_effect");
      return a && a->kind == SHARD_ATTR_BOOL && a->u.boolean ? S_EFFECTS_SOME : S_EFFECTS_NONE;
    }
    if (bsearch(short_name, S_pure_stablehlo, sizeof S_pure_stablehlo / sizeof S_pure_stablehlo[0],
                sizeof S_pure_stablehlo[0], S_cmp_name))
      return S_EFFECTS_NONE;
  }
  return S_EFFECTS_SOME;
}

static bool S_check_no_effects(shard_op *op, void *ctx) {
  bool *ok = ctx;
  S_effects e = S_op_effects(op);
  if (e == S_EFFECTS_SOME) {
    *ok = false;
    return false;
  }
  /* An op without recursive effects has no say over its regions' ops. */
  return true;
}

/* mlir::wouldOpBeTriviallyDead: not a terminator or symbol, and free of
 * memory effects, nested ops included for ops with recursive effects. */
static bool S_effect_free(shard_op *op) {
  if (op->def && (op->def->traits & (SHARD_TRAIT_TERMINATOR | SHARD_TRAIT_SYMBOL))) return false;
  S_effects e = S_op_effects(op);
  if (e == S_EFFECTS_SOME) return false;
  if (e == S_EFFECTS_NONE) return true;
  bool ok = true;
  shard_walk(op, S_check_no_effects, &ok);
  return ok;
}

static bool S_trivially_dead(shard_op *op) {
  for (uint32_t i = 0; i < op->num_results; i++)
    if (op->results[i].first_use) return false;
  return S_effect_free(op);
}

/* ---- driver ---------------------------------------------------------------- */

typedef bool (*S_pattern_fn)(canon_rewriter *rw, shard_op *op);

/* Every pattern with its op, its name and its label (Shardy registers the
 * reshard-of-reshard fold under "sdy-reshard" and every collective pattern
 * under "sdy-collective"; the others have none), an op's patterns in the
 * order they are tried. The export pipeline runs the canonicalizer with
 * enable-patterns=<label>, which must leave the unlabelled patterns out. */
static const struct {
  const char *op, *name, *label;
  S_pattern_fn fn;
} S_patterns[] = {
    {"sdy.all_gather", "AllGatherPatterns", "sdy-collective", shard_canon_all_gather},
    {"sdy.all_reduce", "AllReducePatterns", "sdy-collective", shard_canon_all_reduce},
    {"sdy.all_slice", "AllSlicePatterns", "sdy-collective", shard_canon_all_slice},
    {"sdy.all_to_all", "AllToAllPatterns", "sdy-collective", shard_canon_all_to_all},
    {"sdy.collective_permute", "CollectivePermuteNoopPattern", "sdy-collective", shard_canon_collective_permute},
    {"sdy.manual_computation", "ManualComputationPatterns", NULL, shard_canon_manual_computation},
    {"sdy.reduce_scatter", "ReduceScatterPatterns", "sdy-collective", shard_canon_reduce_scatter},
    {"sdy.reshard", "ReshardOfReshardPattern", "sdy-reshard", shard_canon_reshard_of_reshard},
    {"sdy.reshard", "ReshardCommonSubexpressionEliminationPattern", NULL, shard_canon_reshard_cse},
};
#define S_NUM_PATTERNS (sizeof S_patterns / sizeof S_patterns[0])

/* Is op the op of pattern i? By definition when both have one (one per
 * name), else by name. */
static bool S_pattern_op(const canon_rewriter *rw, size_t i, const shard_op *op) {
  const shard_op_def *d = rw->pattern_defs[i];
  if (d && op->def) return op->def == d;
  return strcmp(op->name, S_patterns[i].op) == 0;
}

/* Tries op's allowed patterns in order; true when one rewrote the IR. */
static bool S_apply_patterns(canon_rewriter *rw, shard_op *op) {
  /* Every pattern is of an sdy op: the trait answers for defined ops
   * without reading the name (every op is asked, every sweep). */
  if (op->def ? !(op->def->traits & SHARD_TRAIT_SDY) : strncmp(op->name, "sdy.", 4) != 0) return false;
  /* Only the allowed patterns, in table order: a pass enabling one label
   * runs one or a few of them. */
  for (uint32_t k = 0; k < rw->num_active_patterns; k++) {
    uint8_t i = rw->active_patterns[k];
    if (S_pattern_op(rw, i, op) && S_patterns[i].fn(rw, op)) return true;
  }
  return false;
}

/* Does the comma-separated list contain word? */
static bool S_list_has(const char *list, const char *word) {
  if (!list || !word) return false;
  size_t n = strlen(word);
  for (const char *s = list; *s;) {
    while (*s == ',' || *s == ' ' || *s == '{' || *s == '}') s++;
    const char *e = s;
    while (*e && *e != ',' && *e != '}') e++;
    if ((size_t)(e - s) == n && strncmp(s, word, n) == 0) return true;
    s = e;
  }
  return false;
}

/* MLIR's FrozenRewritePatternSet filter: a pattern named or labelled in
 * disable-patterns never runs; with enable-patterns given, only the
 * patterns named or labelled there run. */
static void S_filter_patterns(const char *options, bool *allowed) {
  char *enable = shard_pass_option_string(options, "enable-patterns");
  char *disable = shard_pass_option_string(options, "disable-patterns");
  for (size_t i = 0; i < S_NUM_PATTERNS; i++) {
    const char *name = S_patterns[i].name, *label = S_patterns[i].label;
    bool off = S_list_has(disable, name) || S_list_has(disable, label);
    bool on = !enable || !*enable || S_list_has(enable, name) || S_list_has(enable, label);
    allowed[i] = on && !off;
  }
  free(enable);
  free(disable);
}

/* ---- constants (MLIR's OperationFolder) ---------------------------------- */

/* By definition when the op has one (every op is asked while seeding,
 * every sweep), else by name. */
static bool S_is_constant(const canon_rewriter *rw, const shard_op *op) {
  bool is = op->def && rw->constant_def ? op->def == rw->constant_def : S_is(op, "stablehlo.constant");
  return is && op->num_results == 1 && shard_op_attr(op, "value");
}

/* Uniqued constants are keyed by their insertion region and their printed
 * value and type: the region pointer's bytes, then the text. */
static void S_constants_clear(canon_rewriter *rw) {
  for (uint32_t i = 0; i < rw->constant_keys.len; i++) free(rw->constant_keys.items[i]);
  rw->constant_keys.len = 0;
  shard_strmap_clear(&rw->constants);
  shard_ptrmap_clear(&rw->owned_constants);
}

/* Where the folder puts constants: the nearest enclosing region whose op is
 * isolated from above (or unknown, or top-level). */
static shard_region *S_insertion_region(shard_block *b) {
  for (;;) {
    shard_region *r = b->parent;
    shard_op *owner = r->parent;
    if (!owner->def || (owner->def->traits & SHARD_TRAIT_ISOLATED) || !owner->parent) return r;
    b = owner->parent;
  }
}

static bool S_owned(const canon_rewriter *rw, const shard_op *op) {
  return op && shard_ptrmap_get(&rw->owned_constants, op);
}

static void S_move_to_front(canon_rewriter *rw, shard_op *op, shard_block *b) {
  shard_op_unlink(op);
  S_forget_order(rw, op);
  if (b->first) shard_op_insert_before(b->first, op);
  else shard_block_append(b, op);
}

/* OperationFolder::insertKnownConstant: the first constant of a value and
 * type in its insertion region is kept and hoisted to the front of the
 * region's entry block (unless it already follows a constant kept there);
 * later ones are replaced by it. Returns false when op was replaced. */
static bool S_insert_constant(canon_rewriter *rw, shard_op *op) {
  shard_block *block = op->parent;
  if (S_owned(rw, op)) {
    if (block->first != op && !S_owned(rw, op->prev)) S_move_to_front(rw, op, block);
    return true;
  }
  shard_region *region = S_insertion_region(block);
  shard_buf key;
  shard_buf_init(&key);
  shard_buf_putn(&key, (const char *)&region, sizeof region);
  shard_attr_print(&key, shard_op_attr(op, "value"));
  shard_buf_puts(&key, " : ");
  shard_type_print(&key, op->results[0].type);
  size_t len = key.len;
  char *text = shard_buf_take(&key);
  void **slot = shard_strmap_slot(&rw->constants, text, len);
  if (*slot) {
    free(text);
    shard_value *v = &((shard_op *)*slot)->results[0];
    shard_canon_replace_op(rw, op, &v);
    return false;
  }
  shard_block *entry = region->first;
  if (block != entry || (entry->first != op && !S_owned(rw, op->prev))) S_move_to_front(rw, op, entry);
  *slot = op;
  SHARD_VEC_PUSH(rw->constant_keys, text);
  *shard_ptrmap_slot(&rw->owned_constants, op) = 1;
  return true;
}

/* ---- worklist seeding ------------------------------------------------------ */

static void S_seed_op(canon_rewriter *rw, shard_op *op, bool top_down);

static void S_seed_regions(canon_rewriter *rw, shard_op *op, bool top_down) {
  for (uint32_t r = 0; r < op->num_regions; r++)
    for (shard_block *b = op->regions[r].first; b; b = b->next)
      for (shard_op *c = b->first, *next; c; c = next) {
        next = c->next; /* c may move (hoisted constant) or go (duplicate) */
        S_seed_op(rw, c, top_down);
      }
}

/* As the greedy driver's walk: every op is queued (with its ancestors),
 * constants go through the folder first; pre-order when top-down, post-order
 * otherwise. A replaced duplicate constant is skipped. Top-down, an op's
 * ancestors were queued before it (and nothing leaves the worklist while
 * seeding), so it is queued alone: queueing the ancestors again was a third
 * of the seeding of a deeply nested module. */
static void S_seed_op(canon_rewriter *rw, shard_op *op, bool top_down) {
  if (top_down) {
    if (S_is_constant(rw, op) && !S_insert_constant(rw, op)) return;
    S_push_single(rw, op);
    S_seed_regions(rw, op, top_down);
  } else {
    S_seed_regions(rw, op, top_down);
    if (S_is_constant(rw, op) && !S_insert_constant(rw, op)) return;
    shard_canon_push(rw, op);
  }
}

static void S_seed(canon_rewriter *rw, bool top_down) {
  S_seed_regions(rw, rw->m->top, top_down);
  if (!top_down) return; /* bottom-up: the last op comes off the stack first */
  for (uint32_t i = 0, j = rw->len; i + 1 < j; i++, j--) {
    shard_op *t = rw->items[i];
    rw->items[i] = rw->items[j - 1];
    rw->items[j - 1] = t;
  }
  /* Item k moved to len - 1 - k: every queued op's slot (k + 1) becomes
   * len - k, in one pass over the slots rather than a look-up per op. */
  uint32_t num_ids = rw->ids.len < rw->num_slot ? rw->ids.len : rw->num_slot; /* slots past the ids are empty */
  for (uint32_t id = 0; id < num_ids; id++)
    if (rw->slot[id]) rw->slot[id] = rw->len + 1 - rw->slot[id];
}

static bool S_process_worklist(canon_rewriter *rw) {
  bool changed = false;
  for (shard_op *op; (op = S_pop(rw));) {
    if (!op->parent) continue; /* erased meanwhile */
    if (S_trivially_dead(op)) {
      shard_canon_erase_op(rw, op);
      changed = true;
      continue;
    }
    if (S_apply_patterns(rw, op)) changed = true;
  }
  return changed;
}

/* Region DCE (the greedy driver's simplifyRegions): dead ops go, users
 * before producers, so whole dead chains vanish in one sweep. */
static bool S_dce_region(canon_rewriter *rw, shard_region *r) {
  bool changed = false;
  for (shard_block *b = r->first; b; b = b->next) {
    for (shard_op *op = b->last, *prev; op; op = prev) {
      prev = op->prev;
      if (S_trivially_dead(op)) {
        shard_canon_erase_op(rw, op);
        changed = true;
        continue;
      }
      for (uint32_t i = 0; i < op->num_regions; i++) changed |= S_dce_region(rw, &op->regions[i]);
    }
  }
  return changed;
}

static void S_collect_meshes(canon_rewriter *rw) {
  SHARD_VEC(canon_mesh_entry) meshes = {0};
  for (uint32_t r = 0; r < rw->m->top->num_regions; r++)
    for (shard_block *b = rw->m->top->regions[r].first; b; b = b->next)
      for (shard_op *op = b->first; op; op = op->next) {
        if (!S_is(op, "sdy.mesh")) continue;
        shard_attr *name = shard_canon_attr(op, "sym_name", SHARD_ATTR_STRING);
        shard_attr *mesh = shard_canon_attr(op, "mesh", SHARD_ATTR_SDY_MESH);
        if (!name || !mesh) continue;
        canon_mesh_entry e = {name->u.str.data, mesh->u.mesh};
        SHARD_VEC_PUSH(meshes, e);
      }
  rw->num_meshes = meshes.len;
  SHARD_VEC_FREEZE(rw->arena, meshes, rw->meshes);
}

static bool S_count_op(shard_op *op, void *ctx) {
  (void)op;
  (*(uint32_t *)ctx)++;
  return true;
}

/* The worklist, its slots and the op ids sized for every op of the module
 * at once (and an eighth more for the ops rewrites add): grown by doubling
 * from empty they copied themselves a dozen times into fresh memory, a
 * tenth of shard lower's page faults at 100k ops. */
static void S_reserve(canon_rewriter *rw) {
  uint32_t n = 0;
  shard_walk(rw->m->top, S_count_op, &n);
  n += n / 8 + 256;
  shard_op_table_reserve(&rw->ids, n);
  rw->items = shard_xmalloc(sizeof *rw->items * n);
  rw->cap = n;
  rw->slot = shard_xcalloc(n, sizeof *rw->slot);
  rw->num_slot = n;
}

bool shard_pass_canonicalize(shard_module *m, const char *options, const shard_pass_context *cx) {
  /* MLIR's -canonicalize options; max-iterations, region-simplify,
   * top-down, enable-patterns and disable-patterns change what shard does,
   * the others are accepted and ignored. */
  long long max_iterations = 10;
  shard_pass_option_int(options, "max-iterations", &max_iterations);
  bool region_dce = true;
  char *simplify = shard_pass_option_string(options, "region-simplify");
  if (simplify) {
    region_dce = strcmp(simplify, "disabled") != 0 && strcmp(simplify, "false") != 0;
    free(simplify);
  }
  bool top_down = true; /* the canonicalizer's default, unlike the driver's */
  shard_pass_option_bool(options, "top-down", &top_down);
  if (!m || !m->top) return true;

  bool allowed[S_NUM_PATTERNS];
  S_filter_patterns(options, allowed);
  const shard_op_def *defs[S_NUM_PATTERNS];
  uint8_t active[S_NUM_PATTERNS];
  uint32_t num_active = 0;
  for (size_t i = 0; i < S_NUM_PATTERNS; i++) {
    defs[i] = shard_op_def_lookup(S_patterns[i].op, strlen(S_patterns[i].op));
    if (allowed[i]) active[num_active++] = (uint8_t)i;
  }
  canon_rewriter rw = {.m = m,
                       .arena = m->arena,
                       .pattern_defs = defs,
                       .active_patterns = active,
                       .num_active_patterns = num_active,
                       .constant_def = shard_op_def_lookup("stablehlo.constant", strlen("stablehlo.constant"))};
  shard_op_table_init(&rw.ids);
  S_reserve(&rw);
  S_collect_meshes(&rw);
  for (long long iteration = 0; iteration < max_iterations; iteration++) {
    /* Each round starts from an empty worklist and a fresh folder. */
    rw.len = 0;
    if (rw.num_slot) memset(rw.slot, 0, sizeof *rw.slot * rw.num_slot);
    S_constants_clear(&rw);
    S_seed(&rw, top_down);
    bool changed = S_process_worklist(&rw);
    if (region_dce)
      for (uint32_t r = 0; r < m->top->num_regions; r++) changed |= S_dce_region(&rw, &m->top->regions[r]);
    if (!changed) break;
  }
  S_constants_clear(&rw);
  shard_strmap_release(&rw.constants);
  SHARD_VEC_FREE(rw.constant_keys);
  free(rw.items);
  free(rw.slot);
  shard_op_table_release(&rw.ids);
  shard_ptrmap_release(&rw.order);
  shard_ptrmap_release(&rw.owned_constants);
  return true;
}
