/* The rule cache of a propagation session (see rule_registry.h).
 *
 * Creating a rule costs thousands of instructions (a builder, its vectors,
 * the dimension numbers read back from attribute text), and a large model
 * repeats the same few ops layer after layer. An entry keeps a copy of the
 * key it was made for (the op's name, the type of every operand and result,
 * and its attributes apart from the shardings propagation rewrites), so an
 * op edited after its rule was cached can never hit a stale entry. Types are
 * uniqued, so equal pointers mean equal types; attributes compare field by
 * field (raw text as written, integers, dense arrays, arrays of those), any
 * other kind by shard_attr_equal. A miss costs a
 * creation, as without the cache; only a false hit could change a rule, and
 * every comparison errs towards a miss. */
#include <stdlib.h>
#include <string.h>

#include "ir/opdef.h"
#include "rules/rule_registry.h"
#include "rules/rule_registry_internal.h"
#include "support/ptrmap.h"

typedef struct cache_entry {
  uint64_t hash;
  const char *name;
  uint32_t num_operands, num_results;
  const shard_type **types; /* operands, then results */
  uint32_t num_attrs;
  shard_named_attr *attrs; /* names and values, sdy.* left out */
  bool conservative;
  shard_op_sharding_rule *rule;
  struct cache_entry *next; /* same bucket */
} cache_entry;

struct shard_rule_cache {
  cache_entry **buckets;
  uint32_t num_buckets; /* power of two */
  uint32_t num_entries;
  const shard_rule_provider *extra;
  /* op definition -> what depends on its name alone, worked out once
   * (S_name_info): finding the name in the registry is a binary search by
   * strcmp, and hashing it a step per character */
  shard_ptrmap names;
};

shard_rule_cache *shard_rule_cache_new(const shard_rule_provider *extra) {
  shard_rule_cache *c = shard_xcalloc(1, sizeof *c);
  c->extra = extra;
  c->num_buckets = 256;
  c->buckets = shard_xcalloc(c->num_buckets, sizeof *c->buckets);
  return c;
}

void shard_rule_cache_free(shard_rule_cache *c) {
  if (!c) return;
  for (uint32_t i = 0; i < c->num_buckets; i++)
    for (cache_entry *e = c->buckets[i], *next; e; e = next) {
      next = e->next;
      free(e->types);
      free(e->attrs);
      free(e);
    }
  free(c->buckets);
  shard_ptrmap_release(&c->names);
  free(c);
}

/* Shardings are what propagation rewrites and no constructor reads them:
 * sdy.* attributes and the sharding of a sharding_constraint stay out of the
 * key. */
static bool S_keyed_attr(const shard_named_attr *a) {
  if (a->value && (a->value->kind == SHARD_ATTR_SDY_SHARDING || a->value->kind == SHARD_ATTR_SDY_PER_VALUE))
    return false;
  return strncmp(a->name, "sdy.", 4) != 0;
}

static uint64_t S_mix(uint64_t h, uint64_t x) {
  h ^= x + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
  return h;
}

/* The part of an op's hash its name gives (by its text). */
static uint32_t S_name_hash(const char *name) {
  uint64_t h = 0;
  for (const char *p = name; *p; p++) h = S_mix(h, (unsigned char)*p);
  return (uint32_t)(h ^ h >> 32);
}

static uint64_t S_hash(const shard_op *op, uint32_t name_hash, bool conservative) {
  uint64_t h = S_mix(name_hash, (uint64_t)op->num_operands << 32 | op->num_results);
  for (uint32_t i = 0; i < op->num_operands; i++)
    h = S_mix(h, (uint64_t)(uintptr_t)(op->operands[i].value ? op->operands[i].value->type : NULL));
  for (uint32_t i = 0; i < op->num_results; i++) h = S_mix(h, (uint64_t)(uintptr_t)op->results[i].type);
  return S_mix(h, conservative);
}

static bool S_same_text(const char *a, const char *b) { return a == b || (a && b && strcmp(a, b) == 0); }

/* Equal attributes, compared field by field for the kinds rule constructors
 * read (shard_attr_equal prints both, thousands of instructions). */
static bool S_attr_value_equal(const shard_attr *a, const shard_attr *b) {
  if (a == b) return true;
  if (!a || !b || a->kind != b->kind) return false;
  switch (a->kind) {
  case SHARD_ATTR_RAW:
  case SHARD_ATTR_LOC: return S_same_text(a->u.raw, b->u.raw);
  case SHARD_ATTR_UNIT: return true;
  case SHARD_ATTR_BOOL: return a->u.boolean == b->u.boolean;
  case SHARD_ATTR_INT:
    return a->u.integer.value == b->u.integer.value && a->u.integer.type == b->u.integer.type &&
           S_same_text(a->u.integer.text, b->u.integer.text);
  case SHARD_ATTR_STRING:
    return a->u.str.len == b->u.str.len && (!a->u.str.len || memcmp(a->u.str.data, b->u.str.data, a->u.str.len) == 0);
  case SHARD_ATTR_DENSE_ARRAY:
    return S_same_text(a->u.dense_array.elem, b->u.dense_array.elem) && a->u.dense_array.num == b->u.dense_array.num &&
           (!a->u.dense_array.num ||
            memcmp(a->u.dense_array.vals, b->u.dense_array.vals, sizeof(int64_t) * a->u.dense_array.num) == 0);
  case SHARD_ATTR_ARRAY:
    if (a->u.array.num != b->u.array.num) return false;
    for (uint32_t i = 0; i < a->u.array.num; i++)
      if (!S_attr_value_equal(a->u.array.elems[i], b->u.array.elems[i])) return false;
    return true;
  default: return shard_attr_equal(a, b);
  }
}

static bool S_matches(const cache_entry *e, uint64_t hash, const shard_op *op, bool conservative) {
  if (e->hash != hash || e->conservative != conservative || e->num_operands != op->num_operands ||
      e->num_results != op->num_results || strcmp(e->name, op->name) != 0)
    return false;
  for (uint32_t i = 0; i < op->num_operands; i++)
    if (!op->operands[i].value || e->types[i] != op->operands[i].value->type) return false;
  for (uint32_t i = 0; i < op->num_results; i++)
    if (e->types[op->num_operands + i] != op->results[i].type) return false;
  /* Both attribute lists are sorted by name: walk them side by side. */
  uint32_t k = 0;
  for (uint32_t i = 0; i < op->num_attrs; i++) {
    const shard_named_attr *a = &op->attrs[i];
    if (!S_keyed_attr(a)) continue;
    if (k >= e->num_attrs || strcmp(e->attrs[k].name, a->name) != 0 || !S_attr_value_equal(e->attrs[k].value, a->value))
      return false;
    k++;
  }
  return k == e->num_attrs;
}

/* Twice the buckets, so chains stay short in a module of many distinct ops. */
static void S_grow(shard_rule_cache *c) {
  uint32_t n = c->num_buckets * 2;
  cache_entry **buckets = shard_xcalloc(n, sizeof *buckets);
  for (uint32_t i = 0; i < c->num_buckets; i++)
    for (cache_entry *e = c->buckets[i], *next; e; e = next) {
      next = e->next;
      uint32_t b = (uint32_t)e->hash & (n - 1);
      e->next = buckets[b];
      buckets[b] = e;
    }
  free(c->buckets);
  c->buckets = buckets;
  c->num_buckets = n;
}

static void S_insert(shard_rule_cache *c, uint64_t hash, const shard_op *op, bool conservative,
                     shard_op_sharding_rule *rule) {
  for (uint32_t i = 0; i < op->num_operands; i++)
    if (!op->operands[i].value) return; /* not keyed; created each time */
  cache_entry *e = shard_xcalloc(1, sizeof *e);
  e->hash = hash;
  e->name = op->name;
  e->num_operands = op->num_operands;
  e->num_results = op->num_results;
  uint32_t nt = op->num_operands + op->num_results;
  e->types = shard_xcalloc(nt ? nt : 1, sizeof *e->types);
  for (uint32_t i = 0; i < op->num_operands; i++) e->types[i] = op->operands[i].value->type;
  for (uint32_t i = 0; i < op->num_results; i++) e->types[op->num_operands + i] = op->results[i].type;
  e->attrs = shard_xcalloc(op->num_attrs ? op->num_attrs : 1, sizeof *e->attrs);
  for (uint32_t i = 0; i < op->num_attrs; i++)
    if (S_keyed_attr(&op->attrs[i])) e->attrs[e->num_attrs++] = op->attrs[i];
  e->conservative = conservative;
  e->rule = rule;
  if (c->num_entries >= 2 * c->num_buckets) S_grow(c);
  uint32_t b = (uint32_t)hash & (c->num_buckets - 1);
  e->next = c->buckets[b];
  c->buckets[b] = e;
  c->num_entries++;
}

/* shard_rr_shared_by_equal_ops of op, and S_name_hash of its name: worked
 * out once per op definition for the ops named by their definition's very
 * name (as the parser and the builders make them), each time for others.
 * Kept as 1 | shared << 1 | name hash << 32. */
static bool S_name_info(shard_rule_cache *c, const shard_op *op, uint32_t *name_hash) {
  uint64_t info, *slot = NULL;
  if (op->def && op->name == op->def->name) slot = shard_ptrmap_slot(&c->names, op->def);
  if (slot && *slot) {
    info = *slot;
  } else {
    bool shared = shard_rr_shared_by_equal_ops(op);
    /* the hash is read only for a rule shared by equal ops */
    info = 1 | (uint64_t)shared << 1 | (shared ? (uint64_t)S_name_hash(op->name) << 32 : 0);
    if (slot) *slot = info;
  }
  *name_hash = (uint32_t)(info >> 32);
  return info & 2;
}

shard_op_sharding_rule *shard_rule_create_cached(shard_rule_cache *c, shard_arena *a, const shard_op *op,
                                                 bool conservative) {
  uint32_t name_hash;
  if (!c || !S_name_info(c, op, &name_hash)) return shard_rule_create(a, op, conservative, c ? c->extra : NULL);
  uint64_t hash = S_hash(op, name_hash, conservative);
  for (cache_entry *e = c->buckets[(uint32_t)hash & (c->num_buckets - 1)]; e; e = e->next)
    if (S_matches(e, hash, op, conservative)) return e->rule;
  shard_op_sharding_rule *rule = shard_rule_create(a, op, conservative, c->extra);
  if (rule) S_insert(c, hash, op, conservative, rule);
  return rule;
}
