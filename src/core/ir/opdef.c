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

/* mhlo, XLA's dialect StableHLO was forked from, spells most ops as StableHLO
 * does: `mhlo.X` is read as `stablehlo.X` when StableHLO has X. */
static const char S_mhlo[] = "mhlo.";
enum { S_MHLO_LEN = sizeof S_mhlo - 1, S_STABLEHLO_LEN = 10 };

static bool S_is_mhlo(const char *name, size_t len) {
  return len > S_MHLO_LEN && memcmp(name, S_mhlo, S_MHLO_LEN) == 0;
}

const shard_op_def *shard_op_def_lookup(const char *name, size_t len) {
  if (S_is_mhlo(name, len)) {
    char twin[SHARD_OP_DEF_MAX_NAME];
    size_t rest = len - S_MHLO_LEN;
    if (S_STABLEHLO_LEN + rest >= sizeof twin) return NULL;
    memcpy(twin, "stablehlo.", S_STABLEHLO_LEN);
    memcpy(twin + S_STABLEHLO_LEN, name + S_MHLO_LEN, rest);
    const shard_op_def *def = S_search(shard_stablehlo_ops, shard_num_stablehlo_ops, twin, S_STABLEHLO_LEN + rest);
    return def ? def : S_search(shard_mhlo_ops, shard_num_mhlo_ops, name, len);
  }
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

static void S_mark_mhlo(shard_attr *a) {
  if (a->kind >= SHARD_ATTR_SHLO_DOT && a->kind <= SHARD_ATTR_SHLO_CHANNEL) a->mhlo = true;
  else if (a->kind == SHARD_ATTR_ARRAY)
    for (uint32_t i = 0; i < a->u.array.num; i++) S_mark_mhlo(a->u.array.elems[i]);
}

void shard_op_mark_mhlo(shard_op *op) {
  op->flags |= SHARD_OP_MHLO;
  for (uint32_t i = 0; i < op->num_attrs; i++)
    if (op->attrs[i].value) S_mark_mhlo(op->attrs[i].value);
}

bool shard_op_prints_generic(const shard_op *op) {
  /* mhlo has no custom syntax for these two, which StableHLO has */
  return *shard_op_written_prefix(op) &&
         (strcmp(op->name, "stablehlo.rng") == 0 || strcmp(op->name, "stablehlo.rng_bit_generator") == 0);
}

bool shard_op_is_sdy_collective(const shard_op *op) {
  /* asked of every op by the verifier: the first letter settles most */
  if (!op || op->name[0] != 's' || strncmp(op->name, "sdy.", 4) != 0) return false;
  const shard_op_def *d = op->def;
  if (!d || strcmp(d->name, op->name) != 0) d = shard_op_def_lookup(op->name, strlen(op->name));
  return d && (d->traits & SHARD_TRAIT_COLLECTIVE);
}

unsigned shard_op_def_alias_flags(const char *name, size_t len, const shard_op_def *def) {
  /* only a twin's definition is an alias; mhlo.copy is its own name */
  return def && S_is_mhlo(name, len) && !S_is_mhlo(def->name, strlen(def->name)) ? SHARD_OP_MHLO : 0;
}

/* A pass that turns an op into another (stablehlo.constant into
 * sdy.constant) keeps its flags: only a StableHLO name is spelled as mhlo. */
static bool S_written_mhlo(const shard_op *op) {
  return (op->flags & SHARD_OP_MHLO) && strncmp(op->name, "stablehlo.", S_STABLEHLO_LEN) == 0;
}

const char *shard_op_written_prefix(const shard_op *op) { return S_written_mhlo(op) ? S_mhlo : ""; }

const char *shard_op_written_rest(const shard_op *op) {
  return S_written_mhlo(op) ? op->name + S_STABLEHLO_LEN : op->name;
}
