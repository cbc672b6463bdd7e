/* Attribute readers for the rule registry. Most op attributes are modelled
 * (integers, dense arrays); the StableHLO dimension-number attributes
 * (#stablehlo.dot<...>, #stablehlo.gather<...>, #stablehlo.scatter<...>,
 * #stablehlo.conv<...>) are kept by the parser as the text that was written,
 * so this file reads the few fields the rules need straight out of that text.
 * Readers never fail loudly: a malformed attribute means "no rule", and the
 * verifier is the one that reports it. */
#include "rules/rule_registry_internal.h"

#include <ctype.h>
#include <string.h>

bool shard_rr_ints_contains(const rr_ints *l, int64_t x) { return shard_rr_ints_find(l, x) >= 0; }

int shard_rr_ints_find(const rr_ints *l, int64_t x) {
  for (uint32_t i = 0; i < l->n; i++)
    if (l->v[i] == x) return (int)i;
  return -1;
}

static bool push(rr_ints *l, int64_t x) {
  if (l->n >= RR_MAX_INTS) return false;
  l->v[l->n++] = x;
  return true;
}

static const char *skip_space(const char *s) {
  while (*s && isspace((unsigned char)*s)) s++;
  return s;
}

/* int ::= '-'? digit+   Sets *end past it; false when there is none. */
static bool scan_int(const char *s, int64_t *out, const char **end) {
  s = skip_space(s);
  bool neg = false;
  if (*s == '-' || *s == '+') neg = *s++ == '-';
  if (!isdigit((unsigned char)*s)) return false;
  int64_t v = 0;
  while (isdigit((unsigned char)*s)) {
    int d = *s++ - '0';
    if (v > (INT64_MAX - d) / 10) return false;
    v = v * 10 + d;
  }
  *out = neg ? -v : v;
  *end = s;
  return true;
}

/* int-list ::= '[' (int (',' int)*)? ']' */
static bool scan_int_list(const char *s, rr_ints *out, const char **end) {
  out->n = 0;
  s = skip_space(s);
  if (*s++ != '[') return false;
  s = skip_space(s);
  if (*s == ']') {
    *end = s + 1;
    return true;
  }
  for (;;) {
    int64_t v;
    if (!scan_int(s, &v, &s) || !push(out, v)) return false;
    s = skip_space(s);
    if (*s == ']') break;
    if (*s++ != ',') return false;
  }
  *end = s + 1;
  return true;
}

/* Finds `key =` as a whole word; returns the text after '=' or NULL. */
static const char *find_key(const char *raw, const char *key) {
  size_t klen = strlen(key);
  for (const char *s = strstr(raw, key); s; s = strstr(s + 1, key)) {
    bool word_start = s == raw || !(isalnum((unsigned char)s[-1]) || s[-1] == '_');
    if (!word_start || isalnum((unsigned char)s[klen]) || s[klen] == '_') continue;
    const char *t = skip_space(s + klen);
    if (*t == '=') return t + 1;
  }
  return NULL;
}

bool shard_rr_raw_ints(const char *raw, const char *key, rr_ints *out) {
  out->n = 0;
  const char *v = raw ? find_key(raw, key) : NULL;
  const char *end;
  return !v || scan_int_list(v, out, &end);
}

bool shard_rr_raw_int(const char *raw, const char *key, int64_t *out) {
  const char *v = raw ? find_key(raw, key) : NULL;
  const char *end;
  return v && scan_int(v, out, &end);
}

bool shard_rr_raw_int_or(const char *raw, const char *key, int64_t dflt, int64_t *out) {
  const char *v = raw ? find_key(raw, key) : NULL;
  const char *end;
  if (!v) {
    *out = dflt;
    return true;
  }
  return scan_int(v, out, &end);
}

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

/* All integers of a dense<...> payload in row-major order, brackets ignored. */
static bool dense_payload_ints(const char *s, rr_ints *out) {
  out->n = 0;
  for (;;) {
    s = skip_space(s);
    if (!*s) return true;
    if (*s == '[' || *s == ']' || *s == ',') {
      s++;
      continue;
    }
    int64_t v;
    if (!scan_int(s, &v, &s) || !push(out, v)) return false;
    /* A hex literal or a float is not an integer list we understand. */
    if (*s && !isspace((unsigned char)*s) && *s != ',' && *s != ']') return false;
  }
}

bool shard_rr_attr_ints(const shard_op *op, const char *name, rr_ints *out) {
  const shard_attr *a = shard_op_attr(op, name);
  out->n = 0;
  if (!a) return false;
  switch (a->kind) {
  case SHARD_ATTR_DENSE_ARRAY:
    for (uint32_t i = 0; i < a->u.dense_array.num; i++)
      if (!push(out, a->u.dense_array.vals[i])) return false;
    return true;
  case SHARD_ATTR_DENSE:
    return a->u.dense.payload && dense_payload_ints(a->u.dense.payload, out);
  case SHARD_ATTR_ARRAY:
    for (uint32_t i = 0; i < a->u.array.num; i++) {
      const shard_attr *e = a->u.array.elems[i];
      if (e->kind != SHARD_ATTR_INT || !push(out, e->u.integer.value)) return false;
    }
    return true;
  default:
    return false;
  }
}

bool shard_rr_attr_enum(const shard_op *op, const char *name, char *out, size_t cap) {
  const shard_attr *a = shard_op_attr(op, name);
  if (!a || a->kind != SHARD_ATTR_RAW || !a->u.raw || cap == 0) return false;
  /* The case is the last word before the closing '>'. */
  const char *close = strrchr(a->u.raw, '>');
  if (!close) return false;
  const char *e = close;
  while (e > a->u.raw && isspace((unsigned char)e[-1])) e--;
  const char *s = e;
  while (s > a->u.raw && (isalnum((unsigned char)s[-1]) || s[-1] == '_')) s--;
  size_t n = (size_t)(e - s);
  if (n == 0 || n >= cap) return false;
  memcpy(out, s, n);
  out[n] = 0;
  return true;
}

bool shard_rr_attr_str_eq(const shard_op *op, const char *name, const char *s) {
  const shard_attr *a = shard_op_attr(op, name);
  if (!a || a->kind != SHARD_ATTR_STRING) return false;
  size_t n = strlen(s);
  return a->u.str.len == n && memcmp(a->u.str.data, s, n) == 0;
}

const char *shard_rr_attr_raw(const shard_op *op, const char *name) {
  const shard_attr *a = shard_op_attr(op, name);
  return a && a->kind == SHARD_ATTR_RAW ? a->u.raw : NULL;
}

/* conv-list ::= '[' (int | letter) (',' (int | letter))* ']'
 * `letters` names the two non-spatial dims in order ("bf" or "io"); their
 * positions go to *first and *second, spatial dim k's position to spatial[k]. */
static bool scan_conv_list(const char *s, const char *letters, int64_t *first, int64_t *second, rr_ints *spatial,
                           const char **end) {
  int64_t pos[RR_MAX_INTS];
  uint32_t num_spatial = 0;
  *first = *second = -1;
  s = skip_space(s);
  if (*s++ != '[') return false;
  for (int64_t p = 0;; p++) {
    s = skip_space(s);
    if (*s == letters[0] || *s == letters[1]) {
      *(*s == letters[0] ? first : second) = p;
      s++;
    } else {
      int64_t k;
      if (!scan_int(s, &k, &s) || k < 0 || k >= RR_MAX_INTS || num_spatial + 2 > RR_MAX_INTS) return false;
      pos[num_spatial++] = k;
      pos[num_spatial++] = p;
    }
    s = skip_space(s);
    if (*s == ']') break;
    if (*s++ != ',') return false;
  }
  *end = s + 1;
  /* pos holds (k, position) pairs; order them by k. */
  spatial->n = num_spatial / 2;
  for (uint32_t i = 0; i < spatial->n; i++) spatial->v[i] = -1;
  for (uint32_t i = 0; i < num_spatial; i += 2) {
    if (pos[i] >= (int64_t)spatial->n || spatial->v[pos[i]] != -1) return false;
    spatial->v[pos[i]] = pos[i + 1];
  }
  return *first >= 0 && *second >= 0;
}

bool shard_rr_conv_dims_decode(const char *raw, rr_conv_dims *out) {
  if (!raw) return false;
  if (find_key(raw, "input_batch_dimension")) {
    return shard_rr_raw_int(raw, "input_batch_dimension", &out->in_batch) &&
           shard_rr_raw_int(raw, "input_feature_dimension", &out->in_feature) &&
           shard_rr_raw_ints(raw, "input_spatial_dimensions", &out->in_spatial) &&
           shard_rr_raw_int(raw, "kernel_input_feature_dimension", &out->k_in_feature) &&
           shard_rr_raw_int(raw, "kernel_output_feature_dimension", &out->k_out_feature) &&
           shard_rr_raw_ints(raw, "kernel_spatial_dimensions", &out->k_spatial) &&
           shard_rr_raw_int(raw, "output_batch_dimension", &out->out_batch) &&
           shard_rr_raw_int(raw, "output_feature_dimension", &out->out_feature) &&
           shard_rr_raw_ints(raw, "output_spatial_dimensions", &out->out_spatial) &&
           out->in_spatial.n == out->k_spatial.n && out->in_spatial.n == out->out_spatial.n;
  }
  const char *s = strchr(raw, '<');
  if (!s) return false;
  s++;
  if (!scan_conv_list(s, "bf", &out->in_batch, &out->in_feature, &out->in_spatial, &s)) return false;
  s = skip_space(s);
  if (*s++ != 'x') return false;
  if (!scan_conv_list(s, "io", &out->k_in_feature, &out->k_out_feature, &out->k_spatial, &s)) return false;
  s = skip_space(s);
  if (s[0] != '-' || s[1] != '>') return false;
  if (!scan_conv_list(s + 2, "bf", &out->out_batch, &out->out_feature, &out->out_spatial, &s)) return false;
  return out->in_spatial.n == out->k_spatial.n && out->in_spatial.n == out->out_spatial.n;
}
