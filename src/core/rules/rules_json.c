/* JSON rules files (see rules_json.h).
 *
 * Parsing checks everything that doesn't depend on an op: the JSON, each
 * rule's notation and its factor lists. A rule becomes an
 * #sdy.op_sharding_rule only when the registry asks for a given op: then the
 * operand and result counts and ranks must match and each factor's size is
 * solved from the op's static shapes (a factor alone in a dim takes the dim's
 * size; a dim with one unknown factor gives it what the others leave). */
#include "rules/rules_json.h"

#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

#include "support/arena.h"
#include "ir/ir.h"
#include "rules/rule_registry.h"
#include "sdy/sharding.h"
#include "ir/type.h"

#define MAX_FACTORS 64
#define MAX_DIM_FACTORS 8

typedef enum factor_kind { KIND_PASS_THROUGH, KIND_REDUCTION, KIND_NEED_REPLICATION, KIND_PERMUTATION } factor_kind;

typedef struct dim_spec {
  int factors[MAX_DIM_FACTORS];
  uint32_t n;
} dim_spec;

typedef struct tensor_spec {
  dim_spec *dims;
  uint32_t rank;
} tensor_spec;

typedef struct rule_spec {
  char *op;
  shard_span span; /* the op name in the file */
  bool elementwise;
  tensor_spec *tensors; /* operands then results */
  uint32_t num_operands, num_results;
  char names[MAX_FACTORS][16];
  factor_kind kinds[MAX_FACTORS];
  bool blocked[MAX_FACTORS];
  uint32_t num_factors;
} rule_spec;

struct shard_rules_file {
  rule_spec *rules;
  uint32_t num;
  shard_diag_engine *de; /* where misfits are reported once installed */
  SHARD_VEC(const shard_op *) reported;
};

/* ---- the rule notation ------------------------------------------------------------ */

typedef struct cursor {
  const char *s;
  size_t i;
  const char *error;
} cursor;

static void S_skip(cursor *c) {
  while (c->s[c->i] == ' ' || c->s[c->i] == '\t' || c->s[c->i] == '\n') c->i++;
}

static bool S_accept(cursor *c, const char *tok) {
  S_skip(c);
  size_t n = strlen(tok);
  if (strncmp(c->s + c->i, tok, n) != 0) return false;
  c->i += n;
  return true;
}

static bool S_expect(cursor *c, const char *tok, const char *what) {
  if (S_accept(c, tok)) return true;
  if (!c->error) c->error = what;
  return false;
}

static int S_factor_id(rule_spec *r, const char *name, size_t len) {
  for (uint32_t f = 0; f < r->num_factors; f++)
    if (strlen(r->names[f]) == len && memcmp(r->names[f], name, len) == 0) return (int)f;
  if (r->num_factors == MAX_FACTORS || len >= sizeof r->names[0]) return -1;
  memcpy(r->names[r->num_factors], name, len);
  r->names[r->num_factors][len] = '\0';
  return (int)r->num_factors++;
}

/* dim ::= factor+ ;  factor ::= [a-z] ('_' [0-9]+)? */
static bool S_dim(cursor *c, rule_spec *r, dim_spec *d) {
  S_skip(c);
  d->n = 0;
  while (c->s[c->i] >= 'a' && c->s[c->i] <= 'z') {
    size_t start = c->i++;
    if (c->s[c->i] == '_' && c->s[c->i + 1] >= '0' && c->s[c->i + 1] <= '9') {
      c->i++;
      while (c->s[c->i] >= '0' && c->s[c->i] <= '9') c->i++;
    }
    int f = S_factor_id(r, c->s + start, c->i - start);
    if (f < 0 || d->n == MAX_DIM_FACTORS) {
      c->error = "too many factors";
      return false;
    }
    d->factors[d->n++] = f;
  }
  if (!d->n) {
    c->error = "expected a factor name (a lowercase letter, optionally _N)";
    return false;
  }
  return true;
}

/* tensor ::= '[' (dim (',' dim)*)? ']' */
static bool S_tensor(cursor *c, rule_spec *r, tensor_spec *t) {
  if (!S_expect(c, "[", "expected '['")) return false;
  SHARD_VEC(dim_spec) dims = {0};
  if (!S_accept(c, "]")) {
    do {
      dim_spec d;
      if (!S_dim(c, r, &d)) {
        SHARD_VEC_FREE(dims);
        return false;
      }
      SHARD_VEC_PUSH(dims, d);
    } while (S_accept(c, ","));
    if (!S_expect(c, "]", "expected ',' or ']'")) {
      SHARD_VEC_FREE(dims);
      return false;
    }
  }
  /* Shardy's verifier: "cannot reuse factors for the same tensor value". */
  bool seen[MAX_FACTORS] = {false};
  for (uint32_t d = 0; d < dims.len; d++)
    for (uint32_t k = 0; k < dims.items[d].n; k++) {
      int f = dims.items[d].factors[k];
      if (seen[f]) {
        SHARD_VEC_FREE(dims);
        c->error = "a factor appears twice in one tensor";
        return false;
      }
      seen[f] = true;
    }
  t->rank = dims.len;
  t->dims = dims.items;
  return true;
}

/* tensors ::= '(' (tensor (',' tensor)*)? ')' ; appends to the rule's tensors */
static bool S_tensors(cursor *c, rule_spec *r, uint32_t *count, void *vec) {
  SHARD_VEC(tensor_spec) *ts = vec;
  if (!S_expect(c, "(", "expected '('")) return false;
  *count = 0;
  if (S_accept(c, ")")) return true;
  do {
    tensor_spec t;
    if (!S_tensor(c, r, &t)) return false;
    SHARD_VEC_PUSH(*ts, t);
    (*count)++;
  } while (S_accept(c, ","));
  return S_expect(c, ")", "expected ',' or ')'");
}

/* rule ::= tensors '->' tensors */
static bool S_notation(const char *text, rule_spec *r, const char **error, size_t *at) {
  cursor c = {text, 0, NULL};
  SHARD_VEC(tensor_spec) ts = {0};
  bool ok = S_tensors(&c, r, &r->num_operands, &ts) && S_expect(&c, "->", "expected '->'") &&
            S_tensors(&c, r, &r->num_results, &ts);
  S_skip(&c);
  if (ok && c.s[c.i]) {
    c.error = "unexpected text after the results";
    ok = false;
  }
  r->tensors = ts.items;
  if (!ok) {
    *error = c.error ? c.error : "malformed rule";
    *at = c.i;
  }
  return ok;
}

/* ---- the file ------------------------------------------------------------------------ */

/* Where `"name"` first appears in the file, for locating errors. */
static shard_span S_name_span(const shard_source *src, const char *name) {
  shard_span sp = {src, 0, 0};
  size_t n = strlen(name);
  for (size_t i = 0; i + n + 2 <= src->len; i++)
    if (src->text[i] == '"' && memcmp(src->text + i + 1, name, n) == 0 && src->text[i + 1 + n] == '"') {
      sp.off = (uint32_t)i;
      sp.len = (uint32_t)(n + 2);
      break;
    }
  return sp;
}

static bool S_kind_list(const cJSON *spec, const char *key, factor_kind kind, bool blocked, rule_spec *r,
                        shard_diag_engine *de) {
  const cJSON *list = cJSON_GetObjectItemCaseSensitive(spec, key);
  if (!list) return true;
  if (!cJSON_IsArray(list)) {
    shard_error(de, r->span, "rules for '%s': \"%s\" must be a list of factor names", r->op, key);
    return false;
  }
  const cJSON *item;
  cJSON_ArrayForEach(item, list) {
    int f = -1;
    if (cJSON_IsString(item))
      for (uint32_t k = 0; k < r->num_factors; k++)
        if (strcmp(r->names[k], item->valuestring) == 0) f = (int)k;
    if (f < 0) {
      shard_error(de, r->span, "rules for '%s': \"%s\" names %s, which is not a factor of the rule", r->op, key,
                  cJSON_IsString(item) ? item->valuestring : "a non-string");
      return false;
    }
    /* Shardy: "reduction factor cannot be in result mappings". */
    for (uint32_t t = r->num_operands; kind == KIND_REDUCTION && t < r->num_operands + r->num_results; t++)
      for (uint32_t d = 0; d < r->tensors[t].rank; d++)
        for (uint32_t k = 0; k < r->tensors[t].dims[d].n; k++)
          if (r->tensors[t].dims[d].factors[k] == f) {
            shard_error(de, r->span, "rules for '%s': reduction factor %s appears in a result", r->op, r->names[f]);
            return false;
          }
    if (blocked) r->blocked[f] = true;
    else r->kinds[f] = kind;
  }
  return true;
}

static bool S_rule_entry(const shard_source *src, const cJSON *entry, rule_spec *r, shard_diag_engine *de) {
  r->op = shard_xstrdup(entry->string);
  r->span = S_name_span(src, entry->string);
  const char *notation = NULL;
  if (cJSON_IsString(entry)) {
    notation = entry->valuestring;
  } else if (cJSON_IsObject(entry)) {
    static const char *const known[] = {"rule",        "elementwise", "reduction", "need_replication",
                                        "permutation", "blocked",     NULL};
    const cJSON *k;
    cJSON_ArrayForEach(k, entry) {
      bool ok = false;
      for (int i = 0; known[i]; i++) ok |= strcmp(known[i], k->string) == 0;
      if (!ok) {
        shard_error(de, r->span, "rules for '%s': unknown key \"%s\"", r->op, k->string);
        return false;
      }
    }
    const cJSON *rule = cJSON_GetObjectItemCaseSensitive(entry, "rule");
    r->elementwise = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(entry, "elementwise"));
    if (rule && !cJSON_IsString(rule)) {
      shard_error(de, r->span, "rules for '%s': \"rule\" must be a string", r->op);
      return false;
    }
    notation = rule ? rule->valuestring : NULL;
    if (!notation && !r->elementwise) {
      shard_error(de, r->span, "rules for '%s': needs \"rule\" or \"elementwise\": true", r->op);
      return false;
    }
    if (notation && r->elementwise) {
      shard_error(de, r->span, "rules for '%s': \"rule\" and \"elementwise\" exclude each other", r->op);
      return false;
    }
  } else {
    shard_error(de, r->span, "rules for '%s': expected a rule string or an object", r->op);
    return false;
  }
  if (notation) {
    const char *why = NULL;
    size_t at = 0;
    if (!S_notation(notation, r, &why, &at)) {
      shard_error(de, r->span, "rules for '%s': %s at column %zu of \"%s\"", r->op, why, at + 1, notation);
      return false;
    }
  }
  if (!cJSON_IsObject(entry)) return true;
  return S_kind_list(entry, "reduction", KIND_REDUCTION, false, r, de) &&
         S_kind_list(entry, "need_replication", KIND_NEED_REPLICATION, false, r, de) &&
         S_kind_list(entry, "permutation", KIND_PERMUTATION, false, r, de) &&
         S_kind_list(entry, "blocked", KIND_PASS_THROUGH, true, r, de);
}

static void S_spec_free(rule_spec *r) {
  uint32_t n = r->num_operands + r->num_results;
  for (uint32_t t = 0; r->tensors && t < n; t++) free(r->tensors[t].dims);
  free(r->tensors);
  free(r->op);
}

shard_rules_file *shard_rules_json_parse(const shard_source *src, shard_diag_engine *de) {
  const char *end = NULL;
  cJSON *doc = cJSON_ParseWithLengthOpts(src->text, src->len, &end, 0);
  if (!doc) {
    shard_span at = {src, end && end >= src->text ? (uint32_t)(end - src->text) : 0, 1};
    shard_error(de, at, "invalid JSON");
    return NULL;
  }
  const cJSON *rules = cJSON_GetObjectItemCaseSensitive(doc, "rules");
  if (!cJSON_IsObject(doc) || !cJSON_IsObject(rules)) {
    shard_span start = {src, 0, 0};
    shard_error(de, start, "expected {\"rules\": {\"OP NAME\": RULE, ...}}");
    cJSON_Delete(doc);
    return NULL;
  }
  shard_rules_file *rf = shard_xcalloc(1, sizeof *rf);
  unsigned errors = de->errors;
  rf->rules = shard_xcalloc((size_t)cJSON_GetArraySize(rules) + 1, sizeof *rf->rules);
  const cJSON *entry;
  cJSON_ArrayForEach(entry, rules) {
    rule_spec *r = &rf->rules[rf->num++];
    S_rule_entry(src, entry, r, de);
  }
  cJSON_Delete(doc);
  if (de->errors != errors) {
    shard_rules_json_free(rf);
    return NULL;
  }
  return rf;
}

void shard_rules_json_free(shard_rules_file *rf) {
  if (!rf) return;
  for (uint32_t i = 0; i < rf->num; i++) S_spec_free(&rf->rules[i]);
  free(rf->rules);
  SHARD_VEC_FREE(rf->reported);
  free(rf);
}

/* ---- instantiating a rule for an op ---------------------------------------------------- */

static const shard_type *S_tensor_type(const shard_op *op, uint32_t t) {
  return t < op->num_operands ? op->operands[t].value->type : op->results[t - op->num_operands].type;
}

static bool S_misfit(shard_rules_file *rf, const shard_op *op) {
  for (uint32_t i = 0; i < rf->reported.len; i++)
    if (rf->reported.items[i] == op) return true;
  SHARD_VEC_PUSH(rf->reported, op);
  return false;
}

/* The elementwise spec for this op: one factor per dim of its first result. */
static bool S_elementwise_tensors(const shard_op *op, rule_spec *r, tensor_spec *storage, dim_spec *dims) {
  const shard_type *t0 = op->num_results ? op->results[0].type : NULL;
  if (!t0 || t0->kind != SHARD_TYPE_TENSOR || t0->rank > MAX_FACTORS) return false;
  r->num_operands = op->num_operands;
  r->num_results = op->num_results;
  r->num_factors = t0->rank;
  for (uint32_t d = 0; d < t0->rank; d++) {
    dims[d].n = 1;
    dims[d].factors[0] = (int)d;
  }
  for (uint32_t t = 0; t < op->num_operands + op->num_results; t++) {
    storage[t].rank = t0->rank;
    storage[t].dims = dims;
  }
  r->tensors = storage;
  return true;
}

static shard_op_sharding_rule *S_instantiate(shard_rules_file *rf, shard_arena *a, const shard_op *op,
                                             const rule_spec *spec) {
  rule_spec ew;
  tensor_spec *ew_tensors = NULL;
  dim_spec ew_dims[MAX_FACTORS];
  const rule_spec *r = spec;
  if (!op->num_operands || !op->num_results) {
    /* Shardy's verifier: a rule needs at least one operand and one result. */
    if (!S_misfit(rf, op))
      shard_error(rf->de, op->span,
                  "the rule for '%s' (from --rules) cannot apply: the op has %u operands and %u results, "
                  "and a sharding rule needs at least one of each",
                  op->name, op->num_operands, op->num_results);
    return NULL;
  }
  if (spec->elementwise) {
    ew = *spec;
    ew_tensors = shard_xcalloc(op->num_operands + op->num_results + 1, sizeof *ew_tensors);
    if (!S_elementwise_tensors(op, &ew, ew_tensors, ew_dims)) {
      if (!S_misfit(rf, op))
        shard_error(rf->de, op->span, "the elementwise rule for '%s' needs a ranked tensor result", op->name);
      free(ew_tensors);
      return NULL;
    }
    for (uint32_t f = 0; f < ew.num_factors; f++) {
      ew.kinds[f] = KIND_PASS_THROUGH;
      ew.blocked[f] = false;
    }
    r = &ew;
  }
  shard_op_sharding_rule *rule = NULL;
  uint32_t n = r->num_operands + r->num_results;
  if (op->num_operands != r->num_operands || op->num_results != r->num_results) {
    if (!S_misfit(rf, op))
      shard_error(rf->de, op->span, "the rule for '%s' (from --rules) has %u operands and %u results, the op %u and %u",
                  op->name, r->num_operands, r->num_results, op->num_operands, op->num_results);
    goto done;
  }
  for (uint32_t t = 0; t < n; t++) {
    const shard_type *ty = S_tensor_type(op, t);
    if (!ty || !shard_type_is_static_tensor(ty) || ty->rank != r->tensors[t].rank) {
      if (!S_misfit(rf, op))
        shard_error(rf->de, op->span, "the rule for '%s' (from --rules) gives %s %u rank %u, but its type is %s",
                    op->name, t < r->num_operands ? "operand" : "result", t < r->num_operands ? t : t - r->num_operands,
                    r->tensors[t].rank, ty ? ty->text : "none");
      goto done;
    }
  }
  /* Solve factor sizes: a dim with one unknown factor determines it. */
  int64_t sizes[MAX_FACTORS];
  for (uint32_t f = 0; f < r->num_factors; f++) sizes[f] = 0;
  for (bool progress = true; progress;) {
    progress = false;
    for (uint32_t t = 0; t < n; t++)
      for (uint32_t d = 0; d < r->tensors[t].rank; d++) {
        const dim_spec *ds = &r->tensors[t].dims[d];
        int64_t known = 1;
        int unknown = -1, num_unknown = 0;
        for (uint32_t k = 0; k < ds->n; k++) {
          if (sizes[ds->factors[k]]) known *= sizes[ds->factors[k]];
          else if (unknown != ds->factors[k]) {
            unknown = ds->factors[k];
            num_unknown++;
          }
        }
        int64_t dim = S_tensor_type(op, t)->dims[d];
        /* a size-0 dim solves nothing: 0 marks a factor still unknown */
        if (num_unknown == 1 && known > 0 && dim > 0 && dim % known == 0) {
          sizes[unknown] = dim / known;
          progress = true;
        }
      }
  }
  for (uint32_t f = 0; f < r->num_factors; f++)
    if (!sizes[f]) {
      if (!S_misfit(rf, op))
        shard_error(rf->de, op->span,
                    "the rule for '%s' (from --rules): the size of factor '%s' does not follow from the shapes",
                    op->name, r->names[f]);
      goto done;
    }
  for (uint32_t t = 0; t < n; t++)
    for (uint32_t d = 0; d < r->tensors[t].rank; d++) {
      int64_t product = 1;
      for (uint32_t k = 0; k < r->tensors[t].dims[d].n; k++) product *= sizes[r->tensors[t].dims[d].factors[k]];
      int64_t dim = S_tensor_type(op, t)->dims[d];
      if (product != dim) {
        if (!S_misfit(rf, op))
          shard_error(rf->de, op->span,
                      "the rule for '%s' (from --rules): dim %u of %s %u has size %lld, its factors %lld", op->name, d,
                      t < r->num_operands ? "operand" : "result", t < r->num_operands ? t : t - r->num_operands,
                      (long long)dim, (long long)product);
        goto done;
      }
    }

  /* Shardy allows a factor of size 1 only alone in its dim: drop such
   * factors from dims with others (the product stays), keeping one factor
   * per dim; a factor then used nowhere leaves the rule, as Shardy also
   * rejects unused factors. */
  bool used[MAX_FACTORS] = {false};
  for (uint32_t t = 0; t < n; t++)
    for (uint32_t d = 0; d < r->tensors[t].rank; d++) {
      const dim_spec *ds = &r->tensors[t].dims[d];
      bool kept = false;
      for (uint32_t k = 0; k < ds->n; k++)
        if (sizes[ds->factors[k]] != 1 || ds->n == 1) used[ds->factors[k]] = kept = true;
      if (!kept) used[ds->factors[0]] = true;
    }
  int remap[MAX_FACTORS];
  uint32_t num_used = 0;
  for (uint32_t f = 0; f < r->num_factors; f++) remap[f] = used[f] ? (int)num_used++ : -1;

  rule = SHARD_NEW(a, shard_op_sharding_rule);
  rule->num_factors = num_used;
  rule->factor_sizes = SHARD_NEW_ARRAY(a, int64_t, num_used ? num_used : 1);
  for (uint32_t f = 0; f < r->num_factors; f++)
    if (used[f]) rule->factor_sizes[remap[f]] = sizes[f];
  rule->num_operands = r->num_operands;
  rule->num_results = r->num_results;
  shard_tensor_mapping *maps = SHARD_NEW_ARRAY(a, shard_tensor_mapping, n ? n : 1);
  for (uint32_t t = 0; t < n; t++) {
    maps[t].rank = r->tensors[t].rank;
    maps[t].dims = SHARD_NEW_ARRAY(a, shard_dim_mapping, maps[t].rank ? maps[t].rank : 1);
    for (uint32_t d = 0; d < maps[t].rank; d++) {
      const dim_spec *ds = &r->tensors[t].dims[d];
      int64_t *factors = SHARD_NEW_ARRAY(a, int64_t, ds->n);
      uint32_t m = 0;
      for (uint32_t k = 0; k < ds->n; k++)
        if (sizes[ds->factors[k]] != 1 || ds->n == 1) factors[m++] = remap[ds->factors[k]];
      if (m == 0) factors[m++] = remap[ds->factors[0]];
      maps[t].dims[d].num_factors = m;
      maps[t].dims[d].factors = factors;
    }
  }
  rule->operands = maps;
  rule->results = maps + r->num_operands;
  int64_t *lists[4];
  uint32_t counts[4] = {0, 0, 0, 0};
  for (int k = 0; k < 4; k++) lists[k] = SHARD_NEW_ARRAY(a, int64_t, num_used ? num_used : 1);
  for (uint32_t f = 0; f < r->num_factors; f++) {
    if (!used[f]) continue;
    if (r->kinds[f] == KIND_REDUCTION) lists[0][counts[0]++] = remap[f];
    if (r->kinds[f] == KIND_NEED_REPLICATION) lists[1][counts[1]++] = remap[f];
    if (r->kinds[f] == KIND_PERMUTATION) lists[2][counts[2]++] = remap[f];
    if (r->blocked[f]) lists[3][counts[3]++] = remap[f];
  }
  rule->reduction = lists[0];
  rule->num_reduction = counts[0];
  rule->need_replication = lists[1];
  rule->num_need_replication = counts[1];
  rule->permutation = lists[2];
  rule->num_permutation = counts[2];
  rule->blocked_propagation = lists[3];
  rule->num_blocked_propagation = counts[3];
  rule->span = op->span;
done:
  free(ew_tensors);
  return rule;
}

static shard_op_sharding_rule *S_provide(void *ctx, shard_arena *a, const shard_op *op) {
  shard_rules_file *rf = ctx;
  for (uint32_t i = 0; i < rf->num; i++)
    if (strcmp(rf->rules[i].op, op->name) == 0) return S_instantiate(rf, a, op, &rf->rules[i]);
  return NULL;
}

shard_rule_provider shard_rules_json_provider(shard_rules_file *rf, shard_diag_engine *de) {
  rf->de = de;
  return (shard_rule_provider){S_provide, rf};
}
