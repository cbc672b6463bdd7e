/* StableHLO attributes kept as text. The generic parser stores any
 * #stablehlo... attribute verbatim (SHARD_ATTR_RAW), exactly as written, so
 * it may carry line breaks and odd spacing. The pretty syntax shows pieces of
 * those attributes (`LT`, `contracting_dims = [1] x [0]`, `[b, 0, 1, f]x...`),
 * so this file reads that text with a small whitespace-tolerant scanner and
 * writes it back in the canonical spelling StableHLO's printers use. */
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
  free(d->vals);
  d->vals = NULL;
  d->num = 0;
}

void shard_shlo_dims_print(shard_buf *b, const shlo_dims *d) {
  shard_buf_putc(b, '[');
  for (uint32_t i = 0; i < d->num; i++) {
    if (i) shard_buf_puts(b, ", ");
    shard_buf_put_i64(b, d->vals[i]);
  }
  shard_buf_putc(b, ']');
}

/* ---- dot dimension numbers ---------------------------------------------- */

void shard_shlo_dot_dims_free(shlo_dot_dims *d) {
  shard_shlo_dims_free(&d->lhs_batch);
  shard_shlo_dims_free(&d->rhs_batch);
  shard_shlo_dims_free(&d->lhs_contract);
  shard_shlo_dims_free(&d->rhs_contract);
}

static const char *const S_dot_fields[] = {"lhs_batching_dimensions", "rhs_batching_dimensions",
                                           "lhs_contracting_dimensions", "rhs_contracting_dimensions"};

static shlo_dims *S_dot_field(shlo_dot_dims *d, int i) {
  switch (i) {
  case 0: return &d->lhs_batch;
  case 1: return &d->rhs_batch;
  case 2: return &d->lhs_contract;
  default: return &d->rhs_contract;
  }
}

// dot-attr ::= '#stablehlo.dot' '<' (field '=' int-list (',' field '=' int-list)*)? '>'
bool shard_shlo_dot_dims_decode(const shard_attr *a, shlo_dot_dims *out) {
  memset(out, 0, sizeof *out);
  if (!a || a->kind != SHARD_ATTR_RAW) return false;
  const char *s = a->u.raw;
  if (!S_lit(&s, "#stablehlo.dot") || !S_lit(&s, "<")) return false;
  if (S_lit(&s, ">")) return true;
  do {
    const char *name;
    size_t len;
    if (!S_ident(&s, &name, &len)) goto fail;
    int field = -1;
    for (int i = 0; i < 4; i++)
      if (strlen(S_dot_fields[i]) == len && strncmp(name, S_dot_fields[i], len) == 0) field = i;
    shlo_dims *dst = field >= 0 ? S_dot_field(out, field) : NULL;
    if (!dst || dst->vals || !S_lit(&s, "=") || !S_int_list(&s, dst)) goto fail;
  } while (S_lit(&s, ","));
  if (S_lit(&s, ">")) return true;
fail:
  shard_shlo_dot_dims_free(out);
  return false;
}

shard_attr *shard_shlo_dot_dims_encode(shard_arena *arena, const shlo_dot_dims *d) {
  shard_buf b;
  shard_buf_init(&b);
  shard_buf_puts(&b, "#stablehlo.dot<");
  const char *sep = "";
  for (int i = 0; i < 4; i++) {
    const shlo_dims *f = S_dot_field((shlo_dot_dims *)d, i);
    if (!f->num) continue;
    shard_buf_puts(&b, sep);
    shard_buf_puts(&b, S_dot_fields[i]);
    shard_buf_puts(&b, " = ");
    shard_shlo_dims_print(&b, f);
    sep = ", ";
  }
  shard_buf_putc(&b, '>');
  shard_attr *a = shard_attr_raw(arena, shard_arena_strdup(arena, shard_buf_str(&b)));
  shard_buf_free(&b);
  return a;
}

/* ---- gather / scatter dimension numbers ----------------------------------- */

/* Field names in the order StableHLO's printer writes them; the last one is
 * the integer index_vector_dim, every other one an integer list. */
static const char *const S_gather_fields[] = {"offset_dims",           "collapsed_slice_dims",
                                              "operand_batching_dims", "start_indices_batching_dims",
                                              "start_index_map",       "index_vector_dim"};
static const char *const S_scatter_fields[] = {
    "update_window_dims",            "inserted_window_dims",         "input_batching_dims",
    "scatter_indices_batching_dims", "scatter_dims_to_operand_dims", "index_vector_dim"};
enum { S_DIMNUM_FIELDS = 6 };

/* dimnums-attr ::= '#stablehlo.' ('gather' | 'scatter') '<' (field '=' value (',' field '=' value)*)? '>'
 * MLIR parses this into a struct and its printer (printStruct in StableHLO's
 * StablehloOps.cpp) writes the fields in a fixed order, each list only when
 * it is non-empty and index_vector_dim only when it is not 0. Any field order
 * is accepted on input; a repeated field is an error there, so it is not
 * canonicalized here (the text then prints as written and the verifier
 * judges it). */
bool shard_shlo_dimnums_decode(const char *raw, shlo_dimnums *out) {
  memset(out, 0, sizeof *out);
  const char *s = raw;
  const char *const *fields;
  if (S_lit(&s, "#stablehlo.gather")) {
    fields = S_gather_fields;
    out->is_gather = true;
  } else if (S_lit(&s, "#stablehlo.scatter")) {
    fields = S_scatter_fields;
  } else {
    return false;
  }
  if (!S_lit(&s, "<")) return false;
  shlo_dims *lists = out->lists;
  bool seen[S_DIMNUM_FIELDS] = {false};
  int64_t ivd = 0;
  bool ok = true;
  if (!S_lit(&s, ">")) {
    do {
      const char *name;
      size_t len;
      int field = -1;
      if (!S_ident(&s, &name, &len)) {
        ok = false;
        break;
      }
      for (int i = 0; i < S_DIMNUM_FIELDS; i++)
        if (strlen(fields[i]) == len && strncmp(name, fields[i], len) == 0) field = i;
      if (field < 0 || seen[field] || !S_lit(&s, "=")) {
        ok = false;
        break;
      }
      seen[field] = true;
      if (field == S_DIMNUM_FIELDS - 1 ? !S_int(&s, &ivd) : !S_int_list(&s, &lists[field])) {
        ok = false;
        break;
      }
    } while (S_lit(&s, ","));
    ok = ok && S_lit(&s, ">");
  }
  S_ws(&s);
  ok = ok && *s == 0;
  out->index_vector_dim = ivd;
  if (!ok) shard_shlo_dimnums_free(out);
  return ok;
}

void shard_shlo_dimnums_free(shlo_dimnums *d) {
  for (int i = 0; i < S_DIMNUM_FIELDS - 1; i++) shard_shlo_dims_free(&d->lists[i]);
}

bool shard_shlo_dimnums_print(shard_buf *b, const char *raw) {
  shlo_dimnums d;
  if (!shard_shlo_dimnums_decode(raw, &d)) return false;
  const char *const *fields = d.is_gather ? S_gather_fields : S_scatter_fields;
  shard_buf_puts(b, d.is_gather ? "#stablehlo.gather<" : "#stablehlo.scatter<");
  const char *sep = "";
  for (int i = 0; i < S_DIMNUM_FIELDS - 1; i++) {
    if (!d.lists[i].num) continue;
    shard_buf_printf(b, "%s%s = ", sep, fields[i]);
    shard_shlo_dims_print(b, &d.lists[i]);
    sep = ", ";
  }
  if (d.index_vector_dim != 0) shard_buf_printf(b, "%sindex_vector_dim = %" PRId64, sep, d.index_vector_dim);
  shard_buf_putc(b, '>');
  shard_shlo_dimnums_free(&d);
  return true;
}

/* ---- enums --------------------------------------------------------------- */

static const struct {
  const char *kind;
  const char *cases[6];
} S_enums[] = {
    {"comparison_direction", {"EQ", "NE", "GE", "GT", "LE", "LT"}},
    {"comparison_type", {"NOTYPE", "FLOAT", "TOTALORDER", "SIGNED", "UNSIGNED"}},
    {"fft_type", {"FFT", "IFFT", "RFFT", "IRFFT"}},
    {"precision", {"DEFAULT", "HIGH", "HIGHEST"}},
    {"rng_algorithm", {"DEFAULT", "THREE_FRY", "PHILOX"}},
    {"rng_distribution", {"UNIFORM", "NORMAL"}},
    {"transpose", {"TRANSPOSE_INVALID", "NO_TRANSPOSE", "TRANSPOSE", "ADJOINT"}},
};

bool shard_shlo_enum_valid(const char *kind, const char *value) {
  for (size_t i = 0; i < sizeof S_enums / sizeof S_enums[0]; i++) {
    if (strcmp(S_enums[i].kind, kind) != 0) continue;
    for (int j = 0; j < 6 && S_enums[i].cases[j]; j++)
      if (strcmp(S_enums[i].cases[j], value) == 0) return true;
    return false;
  }
  return true;
}

const char *shard_shlo_enum_cases(const char *kind) {
  static char buf[128];
  buf[0] = 0;
  for (size_t i = 0; i < sizeof S_enums / sizeof S_enums[0]; i++) {
    if (strcmp(S_enums[i].kind, kind) != 0) continue;
    for (int j = 0; j < 6 && S_enums[i].cases[j]; j++) {
      if (j) strcat(buf, ", ");
      strcat(buf, S_enums[i].cases[j]);
    }
  }
  return buf;
}

// enum-attr ::= '#stablehlo' '<' kind VALUE '>' | '#stablehlo.' kind '<' VALUE '>'
bool shard_shlo_enum_decode(const shard_attr *a, const char *kind, char *out, size_t cap) {
  if (!a || a->kind != SHARD_ATTR_RAW) return false;
  const char *s = a->u.raw;
  const char *name;
  size_t len;
  if (S_lit(&s, "#stablehlo<")) {
    if (!S_ident(&s, &name, &len) || strlen(kind) != len || strncmp(name, kind, len) != 0) return false;
  } else if (S_lit(&s, "#stablehlo.")) {
    if (!S_ident(&s, &name, &len) || strlen(kind) != len || strncmp(name, kind, len) != 0 ||
        !S_lit(&s, "<"))
      return false;
  } else {
    return false;
  }
  if (!S_ident(&s, &name, &len) || !S_lit(&s, ">")) return false;
  S_ws(&s);
  if (*s) return false;
  if (len >= cap) return false;
  memcpy(out, name, len);
  out[len] = 0;
  return true;
}

shard_attr *shard_shlo_enum_encode(shard_arena *arena, const char *kind, const char *value) {
  /* "#stablehlo<" kind " " value ">" without printf: one per precision entry */
  size_t k = strlen(kind), v = strlen(value);
  char *text = shard_arena_alloc(arena, k + v + 14);
  memcpy(text, "#stablehlo<", 11);
  memcpy(text + 11, kind, k);
  text[11 + k] = ' ';
  memcpy(text + 12 + k, value, v);
  text[12 + k + v] = '>';
  text[13 + k + v] = 0;
  return shard_attr_raw(arena, text);
}

/* ---- convolution dimension numbers --------------------------------------- */

/* conv-dims ::= '[' dim (',' dim)* ']' where dim is an integer or one letter */
static bool S_conv_list(const char **s, shard_buf *b) {
  if (!S_lit(s, "[")) return false;
  shard_buf_putc(b, '[');
  bool first = true;
  do {
    int64_t v;
    const char *name;
    size_t len;
    if (!first) shard_buf_puts(b, ", ");
    first = false;
    if (S_int(s, &v)) shard_buf_printf(b, "%" PRId64, v);
    else if (S_ident(s, &name, &len) && len == 1) shard_buf_putc(b, *name);
    else return false;
  } while (S_lit(s, ","));
  if (!S_lit(s, "]")) return false;
  shard_buf_putc(b, ']');
  return true;
}

char *shard_shlo_conv_dims_body(const shard_attr *a) {
  if (!a || a->kind != SHARD_ATTR_RAW) return NULL;
  const char *s = a->u.raw;
  if (!S_lit(&s, "#stablehlo.conv") || !S_lit(&s, "<")) return NULL;
  shard_buf b;
  shard_buf_init(&b);
  if (S_conv_list(&s, &b) && S_lit(&s, "x") && (shard_buf_putc(&b, 'x'), S_conv_list(&s, &b)) &&
      S_lit(&s, "->") && (shard_buf_puts(&b, "->"), S_conv_list(&s, &b)) && S_lit(&s, ">"))
    return shard_buf_take(&b);
  shard_buf_free(&b);
  return NULL;
}

/* ---- dense integer payloads ----------------------------------------------- */

bool shard_shlo_dense_ints(const char *payload, uint32_t expect, shlo_dims *out) {
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
  shard_buf_free(&b);
  return a;
}
