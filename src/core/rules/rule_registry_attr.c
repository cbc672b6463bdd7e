/* Attribute readers for the rule registry: thin wrappers over the typed
 * attribute accessors of ir/attr.h (StableHLO's dimension numbers are decoded
 * once, by the parser). Readers never fail loudly: a malformed attribute
 * means "no rule", and the verifier is the one that reports it. */
#include "rules/rule_registry_internal.h"

#include <string.h>

bool shard_rr_ints_contains(const rr_ints *l, int64_t x) { return shard_rr_ints_find(l, x) >= 0; }

int shard_rr_ints_find(const rr_ints *l, int64_t x) { return shard_i64s_find(l, x); }

bool shard_rr_attr_has(const shard_op *op, const char *name) { return shard_op_attr(op, name) != NULL; }

bool shard_rr_attr_int(const shard_op *op, const char *name, int64_t *out) {
  const shard_attr *a = shard_op_attr(op, name);
  if (!a || a->kind != SHARD_ATTR_INT) return false;
  *out = a->u.integer.value;
  return true;
}

bool shard_rr_attr_bool(const shard_op *op, const char *name, bool *out) {
  const shard_attr *a = shard_op_attr(op, name);
  if (!a || a->kind != SHARD_ATTR_BOOL) return false;
  *out = a->u.boolean;
  return true;
}

bool shard_rr_attr_ints(const shard_op *op, const char *name, rr_ints *out) {
  return shard_attr_i64_list(shard_op_attr(op, name), out);
}

bool shard_rr_attr_str_eq(const shard_op *op, const char *name, const char *s) {
  const shard_attr *a = shard_op_attr(op, name);
  if (!a || a->kind != SHARD_ATTR_STRING) return false;
  size_t n = strlen(s);
  return a->u.str.len == n && memcmp(a->u.str.data, s, n) == 0;
}
