/* The op sharding rule builder (rule_builder.h): factors are reserved one by
 * one, each with a size, a kind (pass-through, reduction, need-replication,
 * permutation) and a blocked-propagation flag, and are mapped onto tensor
 * dimensions in the order they are added, so a dimension's factors read
 * major to minor. Factor lists of each kind therefore come out sorted. */
#include "rules/rule_builder.h"

#include <string.h>

/* A factor list with room for a few factors in place: rules are built for
 * every op, and a dimension rarely holds more than one or two factors, so
 * most lists never touch the heap. Zeroed memory is an empty list; a list
 * must not move once it has items (items may point at `small`). */
#define FACTOR_VEC_SMALL 4

typedef struct factor_vec {
  int64_t *items;
  uint32_t len, cap;
  int64_t small[FACTOR_VEC_SMALL];
} factor_vec;

static void fv_push(factor_vec *v, int64_t f) {
  if (!v->items) {
    v->items = v->small;
    v->cap = FACTOR_VEC_SMALL;
  }
  if (v->len == v->cap) {
    int64_t *grown = shard_xmalloc(sizeof *grown * v->cap * 2);
    memcpy(grown, v->items, sizeof *grown * v->len);
    if (v->items != v->small) free(v->items);
    v->items = grown;
    v->cap *= 2;
  }
  v->items[v->len++] = f;
}

static void fv_free(factor_vec *v) {
  if (v->items != v->small) free(v->items);
  v->items = NULL;
  v->len = v->cap = 0;
}

typedef struct tensor_dims {
  uint32_t rank;
  factor_vec *dims; /* rank entries, inside the builder's one dims block */
} tensor_dims;

struct shard_rule_builder {
  tensor_dims *operands;
  uint32_t num_operands;
  tensor_dims *results;
  uint32_t num_results;
  /* operands then results, and the dims of all of them: one allocation each */
  tensor_dims *tensors;
  factor_vec *all_dims;
  uint32_t num_dims;
  factor_vec sizes;
  factor_vec reduction, need_replication, permutation, blocked;
};

static uint32_t S_sum(const uint32_t *ranks, uint32_t n) {
  uint32_t sum = 0;
  for (uint32_t i = 0; ranks && i < n; i++) sum += ranks[i];
  return sum;
}

static void init_tensors(tensor_dims *t, uint32_t n, const uint32_t *ranks, factor_vec **next_dims) {
  for (uint32_t i = 0; i < n; i++) {
    t[i].rank = ranks ? ranks[i] : 0;
    t[i].dims = t[i].rank ? *next_dims : NULL;
    *next_dims += t[i].rank;
  }
}

shard_rule_builder *shard_rule_builder_new(uint32_t num_operands, const uint32_t *operand_ranks, uint32_t num_results,
                                           const uint32_t *result_ranks) {
  shard_rule_builder *b = shard_xcalloc(1, sizeof *b);
  b->num_operands = num_operands;
  b->num_results = num_results;
  b->tensors = shard_xcalloc((size_t)num_operands + num_results + 1, sizeof *b->tensors);
  b->operands = b->tensors;
  b->results = b->tensors + num_operands;
  b->num_dims = S_sum(operand_ranks, num_operands) + S_sum(result_ranks, num_results);
  b->all_dims = shard_xcalloc(b->num_dims + 1, sizeof *b->all_dims);
  factor_vec *next = b->all_dims;
  init_tensors(b->operands, num_operands, operand_ranks, &next);
  init_tensors(b->results, num_results, result_ranks, &next);
  return b;
}

/* Ranked tensors have their rank; everything else (tokens, tuples, unranked
 * tensors) counts as rank 0, as Shardy treats non-shaped types. */
static uint32_t value_rank(const shard_value *v) {
  return v && v->type && v->type->kind == SHARD_TYPE_TENSOR ? v->type->rank : 0;
}

shard_rule_builder *shard_rule_builder_for_op(const shard_op *op) {
  size_t n = (size_t)op->num_operands + op->num_results;
  uint32_t on_stack[16];
  uint32_t *ranks = n <= 16 ? on_stack : shard_xcalloc(n, sizeof *ranks);
  for (uint32_t i = 0; i < op->num_operands; i++) ranks[i] = value_rank(op->operands[i].value);
  for (uint32_t i = 0; i < op->num_results; i++) ranks[op->num_operands + i] = value_rank(&op->results[i]);
  shard_rule_builder *b = shard_rule_builder_new(op->num_operands, ranks, op->num_results, ranks + op->num_operands);
  if (ranks != on_stack) free(ranks);
  return b;
}

void shard_rule_builder_free(shard_rule_builder *b) {
  if (!b) return;
  for (uint32_t d = 0; d < b->num_dims; d++) fv_free(&b->all_dims[d]);
  free(b->all_dims);
  free(b->tensors);
  fv_free(&b->sizes);
  fv_free(&b->reduction);
  fv_free(&b->need_replication);
  fv_free(&b->permutation);
  fv_free(&b->blocked);
  free(b);
}

int64_t shard_rule_builder_factor(shard_rule_builder *b, int64_t size, shard_factor_type type, bool blocked) {
  int64_t f = (int64_t)b->sizes.len;
  fv_push(&b->sizes, size);
  if (blocked) fv_push(&b->blocked, f);
  switch (type) {
  case SHARD_FACTOR_REDUCTION: fv_push(&b->reduction, f); break;
  case SHARD_FACTOR_NEED_REPLICATION: fv_push(&b->need_replication, f); break;
  case SHARD_FACTOR_PERMUTATION: fv_push(&b->permutation, f); break;
  case SHARD_FACTOR_PASS_THROUGH: break;
  }
  return f;
}

/* `skip_size_one`: Shardy's mapDimsToFactor leaves a size-1 factor out of a
 * dim that already has factors; its all-tensors variant does not. */
static void map_dim(shard_rule_builder *b, tensor_dims *t, int64_t f, int64_t dim, bool skip_size_one) {
  if (dim < 0 || (uint64_t)dim >= t->rank) return;
  factor_vec *v = &t->dims[dim];
  if (skip_size_one && b->sizes.items[f] == 1 && v->len) return;
  fv_push(v, f);
}

void shard_rule_builder_map_operand(shard_rule_builder *b, int64_t f, uint32_t index, int64_t dim) {
  if (index < b->num_operands) map_dim(b, &b->operands[index], f, dim, true);
}

void shard_rule_builder_map_result(shard_rule_builder *b, int64_t f, uint32_t index, int64_t dim) {
  if (index < b->num_results) map_dim(b, &b->results[index], f, dim, true);
}

int64_t shard_rule_builder_add(shard_rule_builder *b, const int64_t *operand_dims, const int64_t *result_dims,
                               int64_t size, shard_factor_type type, bool blocked) {
  int64_t f = shard_rule_builder_factor(b, size, type, blocked);
  for (uint32_t i = 0; operand_dims && i < b->num_operands; i++)
    shard_rule_builder_map_operand(b, f, i, operand_dims[i]);
  for (uint32_t i = 0; result_dims && i < b->num_results; i++) shard_rule_builder_map_result(b, f, i, result_dims[i]);
  return f;
}

int64_t shard_rule_builder_add_all_operands(shard_rule_builder *b, int64_t dim, int64_t size, shard_factor_type type,
                                            bool blocked) {
  int64_t f = shard_rule_builder_factor(b, size, type, blocked);
  for (uint32_t i = 0; i < b->num_operands; i++) map_dim(b, &b->operands[i], f, dim, false);
  return f;
}

int64_t shard_rule_builder_add_all_results(shard_rule_builder *b, int64_t dim, int64_t size, shard_factor_type type,
                                           bool blocked) {
  int64_t f = shard_rule_builder_factor(b, size, type, blocked);
  for (uint32_t i = 0; i < b->num_results; i++) map_dim(b, &b->results[i], f, dim, false);
  return f;
}

int64_t shard_rule_builder_add_dim(shard_rule_builder *b, int64_t dim, int64_t size, shard_factor_type type,
                                   bool blocked) {
  int64_t f = shard_rule_builder_factor(b, size, type, blocked);
  for (uint32_t i = 0; i < b->num_operands; i++) map_dim(b, &b->operands[i], f, dim, false);
  for (uint32_t i = 0; i < b->num_results; i++) map_dim(b, &b->results[i], f, dim, false);
  return f;
}

int64_t shard_rule_builder_add_io(shard_rule_builder *b, int64_t operand_dim, int64_t result_dim, int64_t size,
                                  shard_factor_type type, bool blocked) {
  int64_t f = shard_rule_builder_factor(b, size, type, blocked);
  shard_rule_builder_map_operand(b, f, 0, operand_dim);
  shard_rule_builder_map_result(b, f, 0, result_dim);
  return f;
}

/* Copies the tensors' mappings into the arena; an empty dim gets the next
 * fresh factor, whose size 1 is appended to `sizes`. */
static shard_tensor_mapping *freeze_tensors(shard_arena *a, const tensor_dims *t, uint32_t n, factor_vec *sizes) {
  shard_tensor_mapping *out = n ? SHARD_NEW_ARRAY(a, shard_tensor_mapping, n) : NULL;
  for (uint32_t i = 0; i < n; i++) {
    out[i].rank = t[i].rank;
    out[i].dims = t[i].rank ? SHARD_NEW_ARRAY(a, shard_dim_mapping, t[i].rank) : NULL;
    for (uint32_t d = 0; d < t[i].rank; d++) {
      const factor_vec *v = &t[i].dims[d];
      shard_dim_mapping *dm = &out[i].dims[d];
      if (v->len) {
        dm->factors = shard_arena_dup(a, v->items, sizeof(int64_t) * v->len);
        dm->num_factors = v->len;
      } else {
        dm->factors = SHARD_NEW(a, int64_t);
        dm->factors[0] = (int64_t)sizes->len;
        dm->num_factors = 1;
        fv_push(sizes, 1);
      }
    }
  }
  return out;
}

static int64_t *dup_list(shard_arena *a, const factor_vec *v, uint32_t *n) {
  *n = v->len;
  return v->len ? shard_arena_dup(a, v->items, sizeof(int64_t) * v->len) : NULL;
}

shard_op_sharding_rule *shard_rule_builder_build(const shard_rule_builder *b, shard_arena *a) {
  shard_op_sharding_rule *r = SHARD_NEW(a, shard_op_sharding_rule);
  factor_vec sizes = {0};
  for (uint32_t i = 0; i < b->sizes.len; i++) fv_push(&sizes, b->sizes.items[i]);
  r->num_operands = b->num_operands;
  r->operands = freeze_tensors(a, b->operands, b->num_operands, &sizes);
  r->num_results = b->num_results;
  r->results = freeze_tensors(a, b->results, b->num_results, &sizes);
  r->num_factors = sizes.len;
  r->factor_sizes = sizes.len ? shard_arena_dup(a, sizes.items, sizeof(int64_t) * sizes.len) : NULL;
  fv_free(&sizes);
  r->reduction = dup_list(a, &b->reduction, &r->num_reduction);
  r->need_replication = dup_list(a, &b->need_replication, &r->num_need_replication);
  r->permutation = dup_list(a, &b->permutation, &r->num_permutation);
  r->blocked_propagation = dup_list(a, &b->blocked, &r->num_blocked_propagation);
  r->span = shard_no_span;
  return r;
}
