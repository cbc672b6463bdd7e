/* Op-definition lookup over the per-dialect tables (each sorted by name). */
#include "ir/opdef.h"

#include <string.h>

/* name is not NUL-terminated and may contain NUL bytes (a generic op name is
 * a string literal), so compare bytes up to the shorter length. */
static int S_cmp(const char *name, size_t len, const char *def_name) {
  size_t dl = strlen(def_name);
  int c = memcmp(name, def_name, len < dl ? len : dl);
  if (c) return c;
  return len < dl ? -1 : len > dl;
}

static const shard_op_def *S_search(const shard_op_def *table, unsigned n, const char *name, size_t len) {
  unsigned lo = 0, hi = n;
  while (lo < hi) {
    unsigned mid = lo + (hi - lo) / 2;
    int c = S_cmp(name, len, table[mid].name);
    if (c == 0) return &table[mid];
    if (c < 0) hi = mid;
    else lo = mid + 1;
  }
  return NULL;
}

const shard_op_def *shard_op_def_lookup(const char *name, size_t len) {
  if (len > 4 && memcmp(name, "sdy.", 4) == 0) return S_search(shard_sdy_ops, shard_num_sdy_ops, name, len);
  if (len > 10 && memcmp(name, "stablehlo.", 10) == 0)
    return S_search(shard_stablehlo_ops, shard_num_stablehlo_ops, name, len);
  if (len > 5 && memcmp(name, "chlo.", 5) == 0) return S_search(shard_chlo_ops, shard_num_chlo_ops, name, len);
  if ((len > 6 && memcmp(name, "check.", 6) == 0) || (len > 12 && memcmp(name, "interpreter.", 12) == 0))
    return S_search(shard_check_ops, shard_num_check_ops, name, len);
  if (len == 6 && memcmp(name, "module", 6) == 0) name = "builtin.module", len = 14;
  return S_search(shard_builtin_ops, shard_num_builtin_ops, name, len);
}

bool shard_op_def_is_inherent(const shard_op_def *def, const char *attr_name) {
  if (!def || !def->inherent) return false;
  for (const char *const *a = def->inherent; *a; a++)
    if (strcmp(*a, attr_name) == 0) return true;
  return false;
}

bool shard_op_def_is_test_dialect(const shard_op_def *def) {
  return def && def >= shard_check_ops && def < shard_check_ops + shard_num_check_ops;
}
