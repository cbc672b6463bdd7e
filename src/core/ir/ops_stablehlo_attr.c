/* Typed StableHLO attributes: dot, convolution, gather and scatter dimension
 * numbers and the enums (comparison direction and type, precision, ...).
 * The generic parser hands the text of every #stablehlo... attribute here
 * once (shard_attr_shlo_decode), with a small whitespace-tolerant scanner;
 * what it models becomes a struct, printed back from the struct the way
 * StableHLO's printer spells it. Anything else, or malformed text, stays
 * verbatim (SHARD_ATTR_RAW) and the verifier judges it. The pretty syntax of
 * ops_stablehlo.c builds the same structs. Every reader in rules, passes and
 * the interpreter goes through the accessors at the end of this file. */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "ir/ops_stablehlo.h"

/* ---- a scanner over attribute text ------------------------------------- */

static void S_ws(const char **s) {
  while (isspace((unsigned char)**s)) (*s)++;
}

static bool S_lit(const char **s, const char *lit) {
  S_ws(s);
  size_t n = strlen(lit);
  if (strncmp(*s, lit, n) != 0) return false;
  *s += n;
  return true;
}

/* bare-id ::= [a-zA-Z_][a-zA-Z0-9_$.]* */
static bool S_ident(const char **s, const char **start, size_t *len) {
  S_ws(s);
  const char *p = *s;
  if (!(isalpha((unsigned char)*p) || *p == '_')) return false;
  while (isalnum((unsigned char)*p) || *p == '_' || *p == '$' || *p == '.') p++;
  *start = *s;
  *len = (size_t)(p - *s);
  *s = p;
  return true;
}

/* `name =` of a struct attribute whose fields are fields[0..n): the field's
 * index, marked in seen[]; -1 for a name that is not one of them, one seen
 * before (MLIR refuses a repeated struct parameter) or a missing '='. */
static int S_field(const char **s, const char *const *fields, int n, bool *seen) {
  const char *name;
  size_t len;
  if (!S_ident(s, &name, &len)) return -1;
  for (int i = 0; i < n; i++)
    if (strlen(fields[i]) == len && strncmp(name, fields[i], len) == 0) {
      if (seen[i] || !S_lit(s, "=")) return -1;
      seen[i] = true;
      return i;
    }
  return -1;
}

/* An integer that fits int64; strtoll saturates, and a saturated value would
 * print as a different number than the one written. */
static bool S_int(const char **s, int64_t *v) {
  S_ws(s);
  char *end;
  const char *p = *s;
  if (!(isdigit((unsigned char)*p) || (*p == '-' && isdigit((unsigned char)p[1])))) return false;
  errno = 0;
  long long x = strtoll(p, &end, 10);
  if (errno == ERANGE) return false;
  *v = (int64_t)x;
  *s = end;
  return true;
}

/* int-list ::= '[' (int (',' int)*)? ']' */
static bool S_int_list(const char **s, shlo_dims *out) {
  SHARD_VEC(int64_t) v = {0};
  if (!S_lit(s, "[")) return false;
  if (!S_lit(s, "]")) {
    do {
      int64_t x;
      if (!S_int(s, &x)) {
        SHARD_VEC_FREE(v);
        return false;
      }
      SHARD_VEC_PUSH(v, x);
    } while (S_lit(s, ","));
    if (!S_lit(s, "]")) {
      SHARD_VEC_FREE(v);
      return false;
    }
  }
  out->vals = v.items;
  out->num = v.len;
  return true;
}

void shard_shlo_dims_free(shlo_dims *d) {
  if (d->vals != d->inl) free(d->vals);
  d->vals = NULL;
  d->num = 0;
}

/* ---- builders -------------------------------------------------------------- */

static shard_i64s S_copy(shard_arena *a, shard_i64s l) {
  shard_i64s out = {NULL, l.n};
  if (l.n) out.v = shard_arena_dup(a, l.v, sizeof(int64_t) * l.n);
  return out;
}

static shard_i64s S_take(shard_arena *a, shlo_dims *d) {
  shard_i64s l = {d->vals, d->num};
  shard_i64s out = S_copy(a, l);
  shard_shlo_dims_free(d);
  return out;
}

shard_attr *shard_attr_shlo_enum(shard_arena *a, shard_shlo_enum_kind kind, uint32_t value) {
  shard_attr *at = shard_attr_new(a, SHARD_ATTR_SHLO_ENUM);
  at->u.shlo_enum.kind = kind;
  at->u.shlo_enum.value = value;
  return at;
}

shard_attr *shard_attr_channel_handle(shard_arena *a, int64_t handle, int64_t type) {
  shard_attr *at = shard_attr_new(a, SHARD_ATTR_SHLO_CHANNEL);
  at->u.channel.handle = handle;
  at->u.channel.type = type;
  return at;
}

bool shard_attr_channel(const shard_attr *a, int64_t *handle, int64_t *type) {
  if (!a || a->kind != SHARD_ATTR_SHLO_CHANNEL) return false;
  if (handle) *handle = a->u.channel.handle;
  if (type) *type = a->u.channel.type;
  return true;
}

shard_attr *shard_attr_dot_dims_new(shard_arena *a, const shard_dot_dims *d) {
  shard_attr *at = shard_attr_new(a, SHARD_ATTR_SHLO_DOT);
  shard_dot_dims *c = SHARD_NEW(a, shard_dot_dims);
  c->lhs_batch = S_copy(a, d->lhs_batch);
  c->rhs_batch = S_copy(a, d->rhs_batch);
  c->lhs_contract = S_copy(a, d->lhs_contract);
  c->rhs_contract = S_copy(a, d->rhs_contract);
  at->u.dot = c;
  return at;
}

shard_attr *shard_attr_gather_dims_new(shard_arena *a, shard_attr_kind kind, const shard_gather_dims *d) {
  shard_attr *at = shard_attr_new(a, kind);
  shard_gather_dims *c = SHARD_NEW(a, shard_gather_dims);
  *c = *d;
  c->offset = S_copy(a, d->offset);
  c->collapsed = S_copy(a, d->collapsed);
  c->operand_batching = S_copy(a, d->operand_batching);
  c->indices_batching = S_copy(a, d->indices_batching);
  c->index_map = S_copy(a, d->index_map);
  at->u.gather = c;
  return at;
}

static void S_print_list(shard_buf *b, shard_i64s l) {
  shard_buf_putc(b, '[');
  for (uint32_t i = 0; i < l.n; i++) {
    if (i) shard_buf_puts(b, ", ");
    shard_buf_put_i64(b, l.v[i]);
  }
  shard_buf_putc(b, ']');
}

static bool S_same_list(shard_i64s x, shard_i64s y) {
  return x.n == y.n && (!x.n || memcmp(x.v, y.v, sizeof(int64_t) * x.n) == 0);
}

/* ---- dot dimension numbers ---------------------------------------------- */

static const char *const S_dot_fields[] = {"lhs_batching_dimensions", "rhs_batching_dimensions",
                                           "lhs_contracting_dimensions", "rhs_contracting_dimensions"};

static shard_i64s *S_dot_field(shard_dot_dims *d, int i) {
  switch (i) {
  case 0: return &d->lhs_batch;
  case 1: return &d->rhs_batch;
  case 2: return &d->lhs_contract;
  default: return &d->rhs_contract;
  }
}

// dot-attr ::= '<' (field '=' int-list (',' field '=' int-list)*)? '>'
// (after '#stablehlo.dot'); a repeated or unknown field is malformed
static shard_attr *S_dot_decode(shard_arena *a, const char *s) {
  shlo_dims lists[4] = {{0}};
  bool seen[4] = {false};
  bool ok = S_lit(&s, "<");
  if (ok && !S_lit(&s, ">")) {
    do {
      int field = S_field(&s, S_dot_fields, 4, seen);
      if (field < 0 || !S_int_list(&s, &lists[field])) {
        ok = false;
        break;
      }
    } while (S_lit(&s, ","));
    ok = ok && S_lit(&s, ">");
  }
  S_ws(&s);
  shard_attr *out = NULL;
  if (ok && !*s) {
    shard_dot_dims d;
    for (int i = 0; i < 4; i++) *S_dot_field(&d, i) = S_take(a, &lists[i]);
    out = shard_attr_new(a, SHARD_ATTR_SHLO_DOT);
    out->u.dot = SHARD_NEW(a, shard_dot_dims);
    *out->u.dot = d;
  }
  for (int i = 0; i < 4; i++) shard_shlo_dims_free(&lists[i]);
  return out;
}

/* StableHLO's printStruct: the fields in a fixed order, empty ones left out. */
static void S_dot_print(shard_buf *b, const shard_dot_dims *d, const char *dialect) {
  shard_buf_printf(b, "%s.dot<", dialect);
  const char *sep = "";
  for (int i = 0; i < 4; i++) {
    shard_i64s f = *S_dot_field((shard_dot_dims *)d, i);
    if (!f.n) continue;
    shard_buf_puts(b, sep);
    shard_buf_puts(b, S_dot_fields[i]);
    shard_buf_puts(b, " = ");
    S_print_list(b, f);
    sep = ", ";
  }
  shard_buf_putc(b, '>');
}

/* ---- gather / scatter dimension numbers ----------------------------------- */

/* Field names in the order StableHLO's printer writes them; the last one is
 * the integer index_vector_dim, every other one an integer list. */
static const char *const S_gather_fields[] = {"offset_dims",           "collapsed_slice_dims",
                                              "operand_batching_dims", "start_indices_batching_dims",
                                              "start_index_map",       "index_vector_dim"};
static const char *const S_scatter_fields[] = {"update_window_dims",           "inserted_window_dims",
                                               "input_batching_dims",          "scatter_indices_batching_dims",
                                               "scatter_dims_to_operand_dims", "index_vector_dim"};
enum { S_DIMNUM_FIELDS = 6 };

static shard_i64s *S_gather_field(shard_gather_dims *d, int i) {
  switch (i) {
  case 0: return &d->offset;
  case 1: return &d->collapsed;
  case 2: return &d->operand_batching;
  case 3: return &d->indices_batching;
  default: return &d->index_map;
  }
}

/* dimnums-attr ::= '<' (field '=' value (',' field '=' value)*)? '>' after
 * '#stablehlo.gather' or '#stablehlo.scatter'. MLIR parses this into a struct
 * and its printer (printStruct in StableHLO's StablehloOps.cpp) writes the
 * fields in a fixed order, each list only when it is non-empty and
 * index_vector_dim only when it is not 0. Any field order is accepted; a
 * repeated field is malformed (kept verbatim for the verifier to judge). */
static shard_attr *S_gather_decode(shard_arena *a, const char *s, shard_attr_kind kind) {
  const char *const *fields = kind == SHARD_ATTR_SHLO_GATHER ? S_gather_fields : S_scatter_fields;
  shlo_dims lists[S_DIMNUM_FIELDS - 1] = {{0}};
  bool seen[S_DIMNUM_FIELDS] = {false};
  int64_t ivd = 0;
  bool ok = S_lit(&s, "<");
  if (ok && !S_lit(&s, ">")) {
    do {
      int field = S_field(&s, fields, S_DIMNUM_FIELDS, seen);
      if (field < 0 || (field == S_DIMNUM_FIELDS - 1 ? !S_int(&s, &ivd) : !S_int_list(&s, &lists[field]))) {
        ok = false;
        break;
      }
    } while (S_lit(&s, ","));
    ok = ok && S_lit(&s, ">");
  }
  S_ws(&s);
  shard_attr *out = NULL;
  if (ok && !*s) {
    shard_gather_dims d;
    for (int i = 0; i < S_DIMNUM_FIELDS - 1; i++) *S_gather_field(&d, i) = S_take(a, &lists[i]);
    d.index_vector_dim = ivd;
    out = shard_attr_new(a, kind);
    out->u.gather = SHARD_NEW(a, shard_gather_dims);
    *out->u.gather = d;
  }
  for (int i = 0; i < S_DIMNUM_FIELDS - 1; i++) shard_shlo_dims_free(&lists[i]);
  return out;
}

static void S_gather_print(shard_buf *b, const shard_attr *a, const char *dialect) {
  const char *const *fields = a->kind == SHARD_ATTR_SHLO_GATHER ? S_gather_fields : S_scatter_fields;
  shard_buf_printf(b, "%s.%s<", dialect, a->kind == SHARD_ATTR_SHLO_GATHER ? "gather" : "scatter");
  const char *sep = "";
  for (int i = 0; i < S_DIMNUM_FIELDS - 1; i++) {
    shard_i64s l = *S_gather_field(a->u.gather, i);
    if (!l.n) continue;
    shard_buf_puts(b, sep);
    shard_buf_puts(b, fields[i]);
    shard_buf_puts(b, " = ");
    S_print_list(b, l);
    sep = ", ";
  }
  if (a->u.gather->index_vector_dim != 0)
    shard_buf_printf(b, "%sindex_vector_dim = %" PRId64, sep, a->u.gather->index_vector_dim);
  shard_buf_putc(b, '>');
}

/* ---- enums --------------------------------------------------------------- */

static const struct {
  const char *kind;
  const char *cases[6];
} S_enums[SHARD_SHLO_NUM_ENUMS] = {
    [SHARD_SHLO_COMPARISON_DIRECTION] = {"comparison_direction", {"EQ", "NE", "GE", "GT", "LE", "LT"}},
    [SHARD_SHLO_COMPARISON_TYPE] = {"comparison_type", {"NOTYPE", "FLOAT", "TOTALORDER", "SIGNED", "UNSIGNED"}},
    [SHARD_SHLO_FFT_TYPE] = {"fft_type", {"FFT", "IFFT", "RFFT", "IRFFT"}},
    [SHARD_SHLO_PRECISION] = {"precision", {"DEFAULT", "HIGH", "HIGHEST"}},
    [SHARD_SHLO_RNG_ALGORITHM] = {"rng_algorithm", {"DEFAULT", "THREE_FRY", "PHILOX"}},
    [SHARD_SHLO_RNG_DISTRIBUTION] = {"rng_distribution", {"UNIFORM", "NORMAL"}},
    [SHARD_SHLO_TRANSPOSE] = {"transpose", {"TRANSPOSE_INVALID", "NO_TRANSPOSE", "TRANSPOSE", "ADJOINT"}},
};

const char *shard_shlo_enum_name(shard_shlo_enum_kind kind, uint32_t value) {
  if ((unsigned)kind >= SHARD_SHLO_NUM_ENUMS || value >= 6) return NULL;
  return S_enums[kind].cases[value];
}

static int S_enum_kind(const char *kind, size_t len) {
  for (int i = 0; i < SHARD_SHLO_NUM_ENUMS; i++)
    if (strlen(S_enums[i].kind) == len && strncmp(S_enums[i].kind, kind, len) == 0) return i;
  return -1;
}

int shard_shlo_enum_case(shard_shlo_enum_kind kind, const char *value, size_t len) {
  if ((unsigned)kind >= SHARD_SHLO_NUM_ENUMS) return -1;
  for (int j = 0; j < 6 && S_enums[kind].cases[j]; j++)
    if (strlen(S_enums[kind].cases[j]) == len && strncmp(S_enums[kind].cases[j], value, len) == 0) return j;
  return -1;
}

int shard_shlo_enum_case_named(shard_shlo_enum_kind kind, const char *name) {
  return shard_shlo_enum_case(kind, name, strlen(name));
}

bool shard_shlo_enum_valid(const char *kind, const char *value) {
  int k = S_enum_kind(kind, strlen(kind));
  return k < 0 || shard_shlo_enum_case((shard_shlo_enum_kind)k, value, strlen(value)) >= 0;
}

const char *shard_shlo_enum_cases(const char *kind) {
  static char buf[128];
  buf[0] = 0;
  int k = S_enum_kind(kind, strlen(kind));
  for (int j = 0; k >= 0 && j < 6 && S_enums[k].cases[j]; j++) {
    if (j) strcat(buf, ", ");
    strcat(buf, S_enums[k].cases[j]);
  }
  return buf;
}

// enum-attr ::= '#stablehlo' '<' kind VALUE '>' | '#stablehlo.' kind '<' VALUE '>'
// `s` is past '#stablehlo'; `kind`/`klen` is the dialect attribute name of
// the second spelling (NULL for the first).
static shard_attr *S_enum_decode(shard_arena *a, const char *s, const char *kind, size_t klen) {
  const char *name;
  size_t len;
  if (!S_lit(&s, "<")) return NULL;
  if (!kind && !S_ident(&s, &kind, &klen)) return NULL;
  int k = S_enum_kind(kind, klen);
  if (k < 0 || !S_ident(&s, &name, &len) || !S_lit(&s, ">")) return NULL;
  S_ws(&s);
  int v = shard_shlo_enum_case((shard_shlo_enum_kind)k, name, len);
  if (*s || v < 0) return NULL;
  return shard_attr_shlo_enum(a, (shard_shlo_enum_kind)k, (uint32_t)v);
}

bool shard_shlo_enum_decode(const shard_attr *a, const char *kind, char *out, size_t cap) {
  int k = S_enum_kind(kind, strlen(kind));
  int v = k < 0 ? -1 : shard_attr_enum(a, (shard_shlo_enum_kind)k);
  if (v < 0) return false;
  const char *name = S_enums[k].cases[v];
  if (strlen(name) >= cap) return false;
  strcpy(out, name);
  return true;
}

shard_attr *shard_shlo_enum_encode(shard_arena *arena, const char *kind, const char *value) {
  int k = S_enum_kind(kind, strlen(kind));
  int v = k < 0 ? -1 : shard_shlo_enum_case((shard_shlo_enum_kind)k, value, strlen(value));
  if (v < 0) return shard_attr_raw(arena, shard_arena_printf(arena, "#stablehlo<%s %s>", kind, value));
  return shard_attr_shlo_enum(arena, (shard_shlo_enum_kind)k, (uint32_t)v);
}

/* ---- convolution dimension numbers --------------------------------------- */

/* conv-dims ::= '[' dim (',' dim)* ']' where dim is an integer (spatial dim
 * k sits here) or one of the two letters naming the non-spatial dims. Every
 * letter once and the spatial dims 0..n-1 once each, as StableHLO's
 * parseConvolutionDimensions requires. */
static bool S_conv_list(const char **s, const char *letters, int64_t *first, int64_t *second, shlo_dims *spatial) {
  SHARD_VEC(int64_t) pos = {0}; /* pos.items[k]: position of spatial dim k, -1 until seen */
  *first = *second = -1;
  spatial->vals = NULL;
  spatial->num = 0;
  if (!S_lit(s, "[")) return false;
  bool ok = true;
  uint32_t nspatial = 0;
  int64_t p = 0;
  do {
    int64_t k;
    const char *name;
    size_t len;
    if (S_int(s, &k)) {
      if (k < 0 || k > (int64_t)SHARD_DENSE_LIST_MAX) {
        ok = false;
        break;
      }
      while (pos.len <= (uint32_t)k) SHARD_VEC_PUSH(pos, -1);
      if (pos.items[k] != -1) {
        ok = false;
        break;
      }
      pos.items[k] = p;
      nspatial++;
    } else if (S_ident(s, &name, &len) && len == 1 && (*name == letters[0] || *name == letters[1])) {
      int64_t *dst = *name == letters[0] ? first : second;
      if (*dst != -1) {
        ok = false;
        break;
      }
      *dst = p;
    } else {
      ok = false;
      break;
    }
    p++;
  } while (S_lit(s, ","));
  ok = ok && S_lit(s, "]") && *first >= 0 && *second >= 0 && nspatial == pos.len;
  if (!ok) {
    SHARD_VEC_FREE(pos);
    return false;
  }
  spatial->vals = pos.items;
  spatial->num = pos.len;
  return true;
}

/* The raw spelling: '<' 'raw' key '=' value (',' key '=' value)* '>' */
static const char *const S_conv_raw_fields[] = {
    "input_batch_dimension",          "input_feature_dimension",         "input_spatial_dimensions",
    "kernel_input_feature_dimension", "kernel_output_feature_dimension", "kernel_spatial_dimensions",
    "output_batch_dimension",         "output_feature_dimension",        "output_spatial_dimensions"};

static int64_t *S_conv_scalar(shard_conv_dims *d, int i) {
  switch (i) {
  case 0: return &d->in_batch;
  case 1: return &d->in_feature;
  case 3: return &d->k_in_feature;
  case 4: return &d->k_out_feature;
  case 6: return &d->out_batch;
  case 7: return &d->out_feature;
  default: return NULL;
  }
}

static shard_i64s *S_conv_list_field(shard_conv_dims *d, int i) {
  return i == 2 ? &d->in_spatial : i == 5 ? &d->k_spatial : i == 8 ? &d->out_spatial : NULL;
}

static shard_attr *S_conv_decode(shard_arena *a, const char *s) {
  shard_conv_dims d;
  memset(&d, 0, sizeof d);
  shlo_dims l[3] = {{0}};
  bool ok = S_lit(&s, "<");
  if (ok && S_lit(&s, "raw")) {
    bool seen[9] = {false};
    do {
      int field = S_field(&s, S_conv_raw_fields, 9, seen);
      if (field < 0) {
        ok = false;
        break;
      }
      int64_t *scalar = S_conv_scalar(&d, field);
      if (scalar ? !S_int(&s, scalar) : !S_int_list(&s, &l[field / 3])) {
        ok = false;
        break;
      }
    } while (S_lit(&s, ","));
    for (int i = 0; i < 9; i++) ok = ok && seen[i];
  } else if (ok) {
    ok = S_conv_list(&s, "bf", &d.in_batch, &d.in_feature, &l[0]) && S_lit(&s, "x") &&
         S_conv_list(&s, "io", &d.k_in_feature, &d.k_out_feature, &l[1]) && S_lit(&s, "->") &&
         S_conv_list(&s, "bf", &d.out_batch, &d.out_feature, &l[2]);
  }
  ok = ok && S_lit(&s, ">");
  S_ws(&s);
  shard_attr *out = NULL;
  if (ok && !*s) {
    d.in_spatial = S_take(a, &l[0]);
    d.k_spatial = S_take(a, &l[1]);
    d.out_spatial = S_take(a, &l[2]);
    out = shard_attr_new(a, SHARD_ATTR_SHLO_CONV);
    out->u.conv = SHARD_NEW(a, shard_conv_dims);
    *out->u.conv = d;
  }
  for (int i = 0; i < 3; i++) shard_shlo_dims_free(&l[i]);
  return out;
}

/* One tensor's layout `[b, 0, 1, f]`, or false when the positions are not
 * each used exactly once (then only the raw spelling says it). */
static bool S_conv_layout(shard_buf *b, int64_t first, int64_t second, shard_i64s spatial, const char *letters) {
  uint64_t rank = spatial.n + 2;
  if (first < 0 || second < 0 || (uint64_t)first >= rank || (uint64_t)second >= rank || first == second) return false;
  for (uint32_t k = 0; k < spatial.n; k++) {
    if (spatial.v[k] < 0 || (uint64_t)spatial.v[k] >= rank || spatial.v[k] == first || spatial.v[k] == second)
      return false;
    for (uint32_t j = 0; j < k; j++)
      if (spatial.v[j] == spatial.v[k]) return false;
  }
  shard_buf_putc(b, '[');
  for (uint64_t p = 0; p < rank; p++) {
    if (p) shard_buf_puts(b, ", ");
    if ((int64_t)p == first) shard_buf_putc(b, letters[0]);
    else if ((int64_t)p == second) shard_buf_putc(b, letters[1]);
    else
      for (uint32_t k = 0; k < spatial.n; k++)
        if (spatial.v[k] == (int64_t)p) shard_buf_printf(b, "%u", k);
  }
  shard_buf_putc(b, ']');
  return true;
}

bool shard_conv_dims_print_body(shard_buf *b, const shard_conv_dims *d) {
  size_t mark = b->len;
  if (S_conv_layout(b, d->in_batch, d->in_feature, d->in_spatial, "bf") && (shard_buf_putc(b, 'x'), true) &&
      S_conv_layout(b, d->k_in_feature, d->k_out_feature, d->k_spatial, "io") && (shard_buf_puts(b, "->"), true) &&
      S_conv_layout(b, d->out_batch, d->out_feature, d->out_spatial, "bf"))
    return true;
  b->len = mark;
  if (b->data) b->data[mark] = 0;
  return false;
}

static void S_conv_print(shard_buf *b, const shard_conv_dims *d, const char *dialect) {
  shard_buf_printf(b, "%s.conv<", dialect);
  if (!shard_conv_dims_print_body(b, d)) {
    shard_buf_puts(b, "raw ");
    for (int i = 0; i < 9; i++) {
      shard_buf_printf(b, "%s%s = ", i ? ", " : "", S_conv_raw_fields[i]);
      int64_t *scalar = S_conv_scalar((shard_conv_dims *)d, i);
      if (scalar) shard_buf_put_i64(b, *scalar);
      else S_print_list(b, *S_conv_list_field((shard_conv_dims *)d, i));
    }
  }
  shard_buf_putc(b, '>');
}

/* ---- channel handles ------------------------------------------------------- */

// channel-handle ::= '<' (('handle' | 'type') '=' int (',' ...)*)? '>' after
// '#stablehlo.channel_handle'; an absent field is 0, a repeated one malformed
static shard_attr *S_channel_decode(shard_arena *a, const char *s) {
  int64_t v[2] = {0, 0};
  bool seen[2] = {false, false};
  bool ok = S_lit(&s, "<");
  if (ok && !S_lit(&s, ">")) {
    do {
      static const char *const fields[] = {"handle", "type"};
      int field = S_field(&s, fields, 2, seen);
      if (field < 0 || !S_int(&s, &v[field])) {
        ok = false;
        break;
      }
    } while (S_lit(&s, ","));
    ok = ok && S_lit(&s, ">");
  }
  S_ws(&s);
  return ok && !*s ? shard_attr_channel_handle(a, v[0], v[1]) : NULL;
}

/* ---- the generic form -------------------------------------------------------- */

shard_attr *shard_attr_shlo_decode(shard_arena *a, const char *text) {
  const char *s = text;
  if (S_lit(&s, "#mhlo")) { /* mhlo's spelling of the same attributes */
    shard_attr *out = shard_attr_shlo_decode(a, shard_arena_printf(a, "#stablehlo%s", s));
    if (out) out->mhlo = true;
    return out;
  }
  if (!S_lit(&s, "#stablehlo")) return NULL;
  if (*s == '<') return S_enum_decode(a, s, NULL, 0);
  if (*s != '.') return NULL;
  s++;
  const char *name;
  size_t len;
  if (!S_ident(&s, &name, &len) || *s != '<') return NULL;
  if (len == 3 && !strncmp(name, "dot", 3)) return S_dot_decode(a, s);
  if (len == 4 && !strncmp(name, "conv", 4)) return S_conv_decode(a, s);
  if (len == 6 && !strncmp(name, "gather", 6)) return S_gather_decode(a, s, SHARD_ATTR_SHLO_GATHER);
  if (len == 7 && !strncmp(name, "scatter", 7)) return S_gather_decode(a, s, SHARD_ATTR_SHLO_SCATTER);
  if (len == 14 && !strncmp(name, "channel_handle", 14)) return S_channel_decode(a, s);
  if (S_enum_kind(name, len) >= 0) return S_enum_decode(a, s, name, len);
  return NULL;
}

void shard_shlo_attr_print(shard_buf *b, const shard_attr *a) {
  const char *dialect = a->chlo ? "#chlo" : a->mhlo ? "#mhlo" : "#stablehlo";
  switch (a->kind) {
  case SHARD_ATTR_SHLO_DOT: S_dot_print(b, a->u.dot, dialect); return;
  case SHARD_ATTR_SHLO_CONV: S_conv_print(b, a->u.conv, dialect); return;
  case SHARD_ATTR_SHLO_GATHER:
  case SHARD_ATTR_SHLO_SCATTER: S_gather_print(b, a, dialect); return;
  case SHARD_ATTR_SHLO_ENUM:
    if (a->mhlo &&
        (a->u.shlo_enum.kind == SHARD_SHLO_RNG_ALGORITHM || a->u.shlo_enum.kind == SHARD_SHLO_RNG_DISTRIBUTION)) {
      /* mhlo spells these two #mhlo.rng_algorithm<V> */
      shard_buf_printf(b, "#mhlo.%s<%s>", S_enums[a->u.shlo_enum.kind].kind,
                       S_enums[a->u.shlo_enum.kind].cases[a->u.shlo_enum.value]);
      return;
    }
    /* one per precision entry: no printf */
    shard_buf_puts(b, dialect);
    shard_buf_putc(b, '<');
    shard_buf_puts(b, S_enums[a->u.shlo_enum.kind].kind);
    shard_buf_putc(b, ' ');
    shard_buf_puts(b, S_enums[a->u.shlo_enum.kind].cases[a->u.shlo_enum.value]);
    shard_buf_putc(b, '>');
    return;
  case SHARD_ATTR_SHLO_CHANNEL: /* both fields, even when 0, as StableHLO prints them */
    shard_buf_printf(b, "%s.channel_handle<handle = %" PRId64 ", type = %" PRId64 ">", dialect, a->u.channel.handle,
                     a->u.channel.type);
    return;
  default: return;
  }
}

bool shard_shlo_attr_equal(const shard_attr *a, const shard_attr *b) {
  if (a->kind != b->kind) return false;
  switch (a->kind) {
  case SHARD_ATTR_SHLO_DOT:
    for (int i = 0; i < 4; i++)
      if (!S_same_list(*S_dot_field(a->u.dot, i), *S_dot_field(b->u.dot, i))) return false;
    return true;
  case SHARD_ATTR_SHLO_CONV: {
    const shard_conv_dims *x = a->u.conv, *y = b->u.conv;
    return x->in_batch == y->in_batch && x->in_feature == y->in_feature && x->k_in_feature == y->k_in_feature &&
           x->k_out_feature == y->k_out_feature && x->out_batch == y->out_batch && x->out_feature == y->out_feature &&
           S_same_list(x->in_spatial, y->in_spatial) && S_same_list(x->k_spatial, y->k_spatial) &&
           S_same_list(x->out_spatial, y->out_spatial);
  }
  case SHARD_ATTR_SHLO_GATHER:
  case SHARD_ATTR_SHLO_SCATTER:
    for (int i = 0; i < S_DIMNUM_FIELDS - 1; i++)
      if (!S_same_list(*S_gather_field(a->u.gather, i), *S_gather_field(b->u.gather, i))) return false;
    return a->u.gather->index_vector_dim == b->u.gather->index_vector_dim;
  case SHARD_ATTR_SHLO_ENUM:
    return a->u.shlo_enum.kind == b->u.shlo_enum.kind && a->u.shlo_enum.value == b->u.shlo_enum.value;
  case SHARD_ATTR_SHLO_CHANNEL:
    return a->u.channel.handle == b->u.channel.handle && a->u.channel.type == b->u.channel.type;
  default: return false;
  }
}

/* ---- the accessors ------------------------------------------------------------ */

int shard_i64s_find(const shard_i64s *l, int64_t x) {
  for (uint32_t i = 0; i < l->n; i++)
    if (l->v[i] == x) return (int)i;
  return -1;
}

bool shard_attr_i64_list(const shard_attr *a, shard_i64s *out) {
  out->v = NULL;
  out->n = 0;
  if (!a) return false;
  switch (a->kind) {
  case SHARD_ATTR_DENSE_ARRAY:
    if (a->u.dense_array.elem[0] != 'i' && a->u.dense_array.elem[0] != 's' && a->u.dense_array.elem[0] != 'u')
      return false;
    out->v = a->u.dense_array.vals;
    out->n = a->u.dense_array.num;
    return true;
  case SHARD_ATTR_DENSE:
    if (!a->u.dense.ints &&
        !(a->u.dense.type && a->u.dense.type->kind == SHARD_TYPE_TENSOR &&
          shard_type_num_elements(a->u.dense.type) == 0 && a->u.dense.type->elem && a->u.dense.type->elem[0] == 'i'))
      return false;
    out->v = a->u.dense.ints;
    out->n = a->u.dense.num_ints;
    return true;
  case SHARD_ATTR_ARRAY:
    if (a->u.array.num && !a->u.array.ints) return false;
    out->v = a->u.array.ints;
    out->n = a->u.array.num;
    return true;
  default: return false;
  }
}

const shard_dot_dims *shard_attr_dot_dims(const shard_attr *a) {
  return a && a->kind == SHARD_ATTR_SHLO_DOT ? a->u.dot : NULL;
}
const shard_conv_dims *shard_attr_conv_dims(const shard_attr *a) {
  return a && a->kind == SHARD_ATTR_SHLO_CONV ? a->u.conv : NULL;
}
const shard_gather_dims *shard_attr_gather_dims(const shard_attr *a) {
  return a && a->kind == SHARD_ATTR_SHLO_GATHER ? a->u.gather : NULL;
}
const shard_gather_dims *shard_attr_scatter_dims(const shard_attr *a) {
  return a && a->kind == SHARD_ATTR_SHLO_SCATTER ? a->u.gather : NULL;
}
int shard_attr_enum(const shard_attr *a, shard_shlo_enum_kind kind) {
  return a && a->kind == SHARD_ATTR_SHLO_ENUM && a->u.shlo_enum.kind == kind ? (int)a->u.shlo_enum.value : -1;
}

/* ---- dense integer payloads ----------------------------------------------- */

/* Integers of a dense<...> payload in row-major order; a splat is repeated
 * `expect` times (the element count of its type). False when the payload is
 * not all integers. */
static bool S_dense_ints(const char *payload, uint32_t expect, shlo_dims *out) {
  SHARD_VEC(int64_t) v = {0};
  const char *s = payload;
  for (;;) {
    S_ws(&s);
    if (!*s) break;
    if (*s == '[' || *s == ']' || *s == ',') {
      s++;
      continue;
    }
    int64_t x;
    if (!S_int(&s, &x)) {
      SHARD_VEC_FREE(v);
      return false;
    }
    SHARD_VEC_PUSH(v, x);
  }
  if (v.len == 1 && expect != UINT32_MAX && expect != 1) {
    int64_t x = v.items[0];
    v.len = 0;
    while (v.len < expect) SHARD_VEC_PUSH(v, x);
  }
  out->vals = v.items;
  out->num = v.len;
  return true;
}

shard_attr *shard_shlo_dense_pairs(shard_arena *arena, const int64_t *vals, uint32_t num_pairs) {
  shard_buf b;
  shard_buf_init(&b);
  bool splat = num_pairs > 0;
  for (uint32_t i = 1; i < 2 * num_pairs; i++)
    if (vals[i] != vals[0]) splat = false;
  if (splat) {
    shard_buf_printf(&b, "%" PRId64, vals[0]);
  } else if (num_pairs) { /* no elements at all print as dense<> */
    shard_buf_putc(&b, '[');
    for (uint32_t i = 0; i < num_pairs; i++)
      shard_buf_printf(&b, "%s[%" PRId64 ", %" PRId64 "]", i ? ", " : "", vals[2 * i], vals[2 * i + 1]);
    shard_buf_putc(&b, ']');
  }
  int64_t dims[2] = {num_pairs, 2};
  shard_attr *a = shard_attr_new(arena, SHARD_ATTR_DENSE);
  a->u.dense.payload = shard_arena_strdup(arena, shard_buf_str(&b));
  a->u.dense.type = shard_type_tensor(arena, 2, dims, "i64", NULL);
  shard_attr_dense_set_ints(arena, a);
  shard_buf_free(&b);
  return a;
}

void shard_attr_dense_set_ints(shard_arena *a, shard_attr *d) {
  const shard_type *t = d->u.dense.type;
  d->u.dense.ints = NULL;
  d->u.dense.num_ints = 0;
  if (!t || t->kind != SHARD_TYPE_TENSOR || !t->elem ||
      !(t->elem[0] == 'i' || t->elem[0] == 's' || t->elem[0] == 'u') || !d->u.dense.payload)
    return;
  int64_t n = shard_type_num_elements(t);
  if (n <= 0 || n > SHARD_DENSE_LIST_MAX) return;
  shlo_dims v;
  if (!S_dense_ints(d->u.dense.payload, (uint32_t)n, &v)) return;
  if (v.num == (uint32_t)n) {
    d->u.dense.ints = shard_arena_dup(a, v.vals, sizeof(int64_t) * v.num);
    d->u.dense.num_ints = v.num;
  }
  shard_shlo_dims_free(&v);
}
