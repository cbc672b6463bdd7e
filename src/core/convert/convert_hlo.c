/* XLA's HloSharding text: the V2 tile-assignment form and the V3 named
 * form, parsed, printed as XLA prints them, validated against a shape, and
 * converted to and from the hub.
 *
 * Parsing follows hlo_parser.cc's ParseSingleSharding: V2 items come in any
 * order, the keyword rules and error messages are XLA's. Printing follows
 * HloSharding::Print after the canonicalisation XLA does while building a
 * sharding (size-1 iota dims dropped, consecutive transposed dims merged,
 * subgroups ordered manual, unreduced, replicated; a lone replicated
 * subgroup is `last_tile_dim_replicate`).
 *
 * Hub -> V2 is V3ToV2Sharding: every mesh axis is cut into the sub-axes any
 * ref needs, the tile dims take the sharding axes in order, then the manual,
 * unreduced and all remaining (replicated) sub-axes as subgroups; the iota
 * reshape is the mesh (sub-)axes in mesh order and the transpose puts each
 * where it is used. V2 -> hub maps the device array onto the user's mesh
 * when one is given and can express it, else onto a mesh invented the way
 * XLA's importer does (the iota reshape dims cut at every tile boundary,
 * named _axis_0, _axis_1, ...; an explicit device list becomes a mesh with
 * device_ids). */
#include <stdlib.h>
#include <string.h>

#include "convert/convert.h"

/* ---- lexer -------------------------------------------------------------------------- */

typedef enum htok_kind {
  HT_EOF,
  HT_ERROR,
  HT_PUNCT, /* { } [ ] ( ) , = : ? */
  HT_LEQ, /* <= */
  HT_INT,
  HT_IDENT,
  HT_STRING /* 'x' or "x" (text without quotes) */
} htok_kind;

typedef struct htok {
  htok_kind kind;
  uint32_t off, len;
  int64_t value;
  bool overflow;
} htok;

typedef struct hlo_parser {
  shard_conv_ctx *cx;
  const shard_source *src;
  uint32_t pos, end;
  htok tok;
  bool has_tok;
  bool failed;
  uint32_t depth;
} hlo_parser;

static bool is_ident_start(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
static bool is_ident_char(char c) { return is_ident_start(c) || (c >= '0' && c <= '9') || c == '.' || c == '-'; }

static htok lex(hlo_parser *p) {
  const char *t = p->src->text;
  uint32_t i = p->pos;
  for (;;) {
    while (i < p->end && (t[i] == ' ' || t[i] == '\t' || t[i] == '\n' || t[i] == '\r')) i++;
    if (i + 1 < p->end && t[i] == '/' && t[i + 1] == '*') { /* the printer's index comments */
      uint32_t j = i + 2;
      while (j + 1 < p->end && !(t[j] == '*' && t[j + 1] == '/')) j++;
      i = j + 2 <= p->end ? j + 2 : p->end;
      continue;
    }
    break;
  }
  htok k = {HT_EOF, i, 0, 0, false};
  if (i >= p->end) {
    p->pos = i;
    return k;
  }
  char c = t[i];
  if ((c >= '0' && c <= '9') || (c == '-' && i + 1 < p->end && t[i + 1] >= '0' && t[i + 1] <= '9')) {
    bool neg = c == '-';
    uint32_t j = i + (neg ? 1 : 0);
    int64_t v = 0;
    while (j < p->end && t[j] >= '0' && t[j] <= '9') {
      int d = t[j] - '0';
      if (v > (INT64_MAX - d) / 10) k.overflow = true;
      else v = v * 10 + d;
      j++;
    }
    k.kind = HT_INT;
    k.value = neg ? -v : v;
    k.len = j - i;
  } else if (is_ident_start(c)) {
    uint32_t j = i + 1;
    while (j < p->end && is_ident_char(t[j]) && !(t[j] == '-' && j + 1 < p->end && t[j + 1] == '>')) j++;
    k.kind = HT_IDENT;
    k.len = j - i;
  } else if (c == '\'' || c == '"') {
    uint32_t j = i + 1;
    while (j < p->end && t[j] != c) j++;
    if (j >= p->end) {
      k.kind = HT_ERROR;
      k.len = 1;
    } else {
      k.kind = HT_STRING;
      k.off = i + 1;
      k.len = j - i - 1;
      p->pos = j + 1;
      return k;
    }
  } else if (c == '<' && i + 1 < p->end && t[i + 1] == '=') {
    k.kind = HT_LEQ;
    k.len = 2;
  } else if (strchr("{}[](),=:?", c)) {
    k.kind = HT_PUNCT;
    k.len = 1;
  } else {
    k.kind = HT_ERROR;
    k.len = 1;
  }
  p->pos = i + k.len;
  return k;
}

static htok peek(hlo_parser *p) {
  if (!p->has_tok) {
    p->tok = lex(p);
    p->has_tok = true;
  }
  return p->tok;
}

static htok next(hlo_parser *p) {
  htok t = peek(p);
  p->has_tok = false;
  return t;
}

static bool tok_is(const hlo_parser *p, const htok *t, const char *text) {
  size_t n = strlen(text);
  return t->kind != HT_STRING && t->len == n && memcmp(p->src->text + t->off, text, n) == 0;
}

static bool perror_at(hlo_parser *p, uint32_t off, uint32_t len, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static bool perror_at(hlo_parser *p, uint32_t off, uint32_t len, const char *fmt, ...) {
  if (p->failed) return false;
  p->failed = true;
  shard_span sp = {p->src, off, len};
  va_list ap;
  va_start(ap, fmt);
  shard_diag_vemit(p->cx->de, SHARD_ERROR, sp, fmt, ap);
  va_end(ap);
  return false;
}

static bool perror_here(hlo_parser *p, const char *msg) {
  htok t = peek(p);
  return perror_at(p, t.off, t.len ? t.len : 1, "%s", msg);
}

static bool accept(hlo_parser *p, const char *text) {
  htok t = peek(p);
  if (t.kind == HT_PUNCT && tok_is(p, &t, text)) {
    next(p);
    return true;
  }
  return false;
}

static bool expect(hlo_parser *p, const char *text) {
  if (accept(p, text)) return true;
  htok t = peek(p);
  return perror_at(p, t.off, t.len ? t.len : 1, "expected '%s'", text);
}

static bool parse_int(hlo_parser *p, int64_t *out) {
  htok t = peek(p);
  if (t.kind != HT_INT) return perror_here(p, "expected an integer");
  if (t.overflow) return perror_at(p, t.off, t.len, "integer out of range");
  next(p);
  *out = t.value;
  return true;
}

static bool parse_device_id(hlo_parser *p, int64_t *out) {
  htok t = peek(p);
  if (!parse_int(p, out)) return false;
  if (*out < 0 || *out >= SHARD_CONV_MAX_DEVICES)
    return perror_at(p, t.off, t.len, "device id must be between 0 and %d", SHARD_CONV_MAX_DEVICES - 1);
  return true;
}

typedef SHARD_VEC(int64_t) int_vec;

/* ints ::= INT (',' INT)*, appended to v; v is freed on an error. */
static bool parse_ints(hlo_parser *p, int_vec *v) {
  do {
    int64_t x;
    if (!parse_int(p, &x)) {
      SHARD_VEC_FREE(*v);
      return false;
    }
    SHARD_VEC_PUSH(*v, x);
  } while (accept(p, ","));
  return true;
}

/* int-list ::= INT (',' INT)*  (between the given brackets) */
static bool parse_int_list(hlo_parser *p, const char *open, const char *close, int64_t **out, uint32_t *n) {
  int_vec v = {0};
  if (!expect(p, open)) return false;
  if (!accept(p, close)) {
    if (!parse_ints(p, &v)) return false;
    if (!expect(p, close)) {
      SHARD_VEC_FREE(v);
      return false;
    }
  }
  *n = v.len;
  SHARD_VEC_FREEZE(p->cx->arena, v, *out);
  return true;
}

/* Skips a balanced {...} (metadata). */
/* The value of metadata= ({...}, or one token), its text in *out (may be NULL). */
static bool skip_braces(hlo_parser *p, const char **out) {
  htok t = peek(p);
  uint32_t start = t.off;
  if (!(t.kind == HT_PUNCT && tok_is(p, &t, "{"))) {
    /* metadata=op_name="x" style single value: skip one token */
    next(p);
    if (out) *out = shard_arena_strndup(p->cx->arena, p->src->text + start, t.len);
    return true;
  }
  int depth = 0;
  for (;;) {
    t = next(p);
    if (t.kind == HT_EOF) return perror_at(p, t.off, 1, "expected '}'");
    if (t.kind == HT_PUNCT && tok_is(p, &t, "{")) depth++;
    if (t.kind == HT_PUNCT && tok_is(p, &t, "}") && --depth == 0) {
      if (out) *out = shard_arena_strndup(p->cx->arena, p->src->text + start, t.off + 1 - start);
      return true;
    }
  }
}

/* (',' 'metadata' '=' ...)*: what may follow a maximal or replicated v3 body. */
static bool skip_trailing_metadata(hlo_parser *p, const char **out) {
  while (accept(p, ",")) {
    htok a = next(p);
    if (!(a.kind == HT_IDENT && tok_is(p, &a, "metadata")) || !expect(p, "=") || !skip_braces(p, out))
      return perror_at(p, a.off, a.len ? a.len : 1, "expected 'metadata='");
  }
  return true;
}

/* Product with a cap, so malformed input cannot overflow. */
static bool checked_product(const int64_t *v, uint32_t n, int64_t *out) {
  int64_t prod = 1;
  for (uint32_t i = 0; i < n; i++) {
    if (v[i] <= 0) return false;
    if (__builtin_mul_overflow(prod, v[i], &prod) || prod > SHARD_CONV_MAX_DEVICES) return false;
  }
  *out = prod;
  return true;
}

/* ---- iota tile assignments ------------------------------------------------------------ */

/* The device at each row-major index of reshape(transpose(reshape(iota, R), perm)). */
static void iota_expand(const int64_t *reshape, const int64_t *perm, uint32_t nr, int64_t total, int64_t *out) {
  int64_t *tdims = shard_xcalloc(nr + 1, sizeof(int64_t));
  int64_t *idx = shard_xcalloc(nr + 1, sizeof(int64_t));
  int64_t *orig = shard_xcalloc(nr + 1, sizeof(int64_t));
  for (uint32_t i = 0; i < nr; i++) tdims[i] = reshape[perm[i]];
  for (int64_t lin = 0; lin < total; lin++) {
    int64_t rest = lin;
    for (uint32_t i = nr; i-- > 0;) {
      idx[i] = rest % tdims[i];
      rest /= tdims[i];
    }
    for (uint32_t i = 0; i < nr; i++) orig[perm[i]] = idx[i];
    int64_t dev = 0;
    for (uint32_t i = 0; i < nr; i++) dev = dev * reshape[i] + orig[i];
    out[lin] = dev;
  }
  free(tdims);
  free(idx);
  free(orig);
}

/* CanonicalizeIotaDims: drop size-1 dims, merge dims that stay adjacent
 * after the transpose. Works in place; returns the new count. */
static uint32_t iota_canonicalize(int64_t *reshape, int64_t *perm, uint32_t n) {
  for (;;) {
    bool changed = false;
    /* drop a size-1 dim */
    for (uint32_t i = 0; i < n; i++)
      if (reshape[i] == 1 && n > 1) {
        for (uint32_t k = i; k + 1 < n; k++) reshape[k] = reshape[k + 1];
        uint32_t w = 0;
        for (uint32_t k = 0; k < n; k++)
          if (perm[k] != (int64_t)i) perm[w++] = perm[k] > (int64_t)i ? perm[k] - 1 : perm[k];
        n--;
        changed = true;
        break;
      }
    if (changed) continue;
    /* merge perm[k], perm[k]+1 when consecutive in the transposed order */
    for (uint32_t k = 0; k + 1 < n; k++)
      if (perm[k + 1] == perm[k] + 1) {
        int64_t a = perm[k];
        reshape[a] *= reshape[a + 1];
        for (uint32_t q = (uint32_t)a + 1; q + 1 < n; q++) reshape[q] = reshape[q + 1];
        uint32_t w = 0;
        for (uint32_t q = 0; q < n; q++) {
          if (q == k + 1) continue;
          perm[w++] = perm[q] > a + 1 ? perm[q] - 1 : perm[q];
        }
        n--;
        changed = true;
        break;
      }
    if (!changed) break;
  }
  if (n == 1) perm[0] = 0;
  return n;
}

/* ---- V2 parsing ------------------------------------------------------------------------------- */

static const char *type_name(int t) {
  switch (t) {
  case SHARD_SUBGROUP_REPLICATED: return "replicated";
  case SHARD_SUBGROUP_MAXIMAL: return "maximal";
  case SHARD_SUBGROUP_MANUAL: return "manual";
  case SHARD_SUBGROUP_UNREDUCED: return "unreduced";
  }
  return "?";
}

/* tile-assignment ::= '[' INT (',' INT)* ']' ( INT (',' INT)* | '<=' iota )
 * iota            ::= '[' INT (',' INT)* ']' ( 'T' '(' INT (',' INT)* ')' )? */
static bool parse_tile_assignment(hlo_parser *p, shard_hlo_sharding *h) {
  htok start = peek(p);
  if (!parse_int_list(p, "[", "]", &h->dims, &h->num_dims)) return false;
  if (h->num_dims == 0) return perror_at(p, start.off, 2, "expected tile assignment dimensions");
  int64_t total;
  if (!checked_product(h->dims, h->num_dims, &total))
    return perror_at(p, start.off, 1, "tile assignment dimensions must be positive and hold at most %d devices",
                     SHARD_CONV_MAX_DEVICES);
  htok t = peek(p);
  if (t.kind == HT_LEQ) {
    next(p);
    htok rs = peek(p);
    if (!parse_int_list(p, "[", "]", &h->reshape, &h->num_reshape)) return false;
    int64_t rtotal;
    if (h->num_reshape == 0 || !checked_product(h->reshape, h->num_reshape, &rtotal))
      return perror_at(p, rs.off, 1, "iota reshape dimensions must be positive");
    htok tt = peek(p);
    if (tt.kind == HT_IDENT && tok_is(p, &tt, "T")) {
      next(p);
      uint32_t np;
      htok ps = peek(p);
      if (!parse_int_list(p, "(", ")", &h->perm, &np)) return false;
      if (np != h->num_reshape)
        return perror_at(p, ps.off, 1,
                         "iota_transpose_perm should have the same rank as iota_reshape_dims : "
                         "expected %u, saw %u.",
                         h->num_reshape, np);
      bool *seen = shard_xcalloc(np + 1, 1);
      for (uint32_t i = 0; i < np; i++) {
        if (h->perm[i] < 0 || h->perm[i] >= (int64_t)np) {
          free(seen);
          return perror_at(p, ps.off, 1,
                           "Out of range iota minor_to_major value %lld, expecting value in range [0, %u)",
                           (long long)h->perm[i], np);
        }
        if (seen[h->perm[i]]) {
          free(seen);
          return perror_at(p, ps.off, 1, "iota_transpose_perm is not a permutation (%lld repeats)",
                           (long long)h->perm[i]);
        }
        seen[h->perm[i]] = true;
      }
      free(seen);
    } else {
      if (h->num_reshape > 1) return perror_here(p, "expected 'T(' to start sharding devices iota_transpose_perm");
      h->perm = SHARD_NEW_ARRAY(p->cx->arena, int64_t, 1);
    }
    if (rtotal != total)
      return perror_at(p, rs.off, 1, "the iota reshape dimensions hold %lld devices but the tile assignment has %lld",
                       (long long)rtotal, (long long)total);
    return true;
  }
  int_vec v = {0};
  if (!parse_ints(p, &v)) return false;
  if ((int64_t)v.len != total) {
    uint32_t n = v.len;
    SHARD_VEC_FREE(v);
    return perror_at(p, start.off, 1, "tile assignment dimensions hold %lld devices but %u are listed",
                     (long long)total, n);
  }
  SHARD_VEC_FREEZE(p->cx->arena, v, h->devices);
  return true;
}

/* sharding-type ::= 'maximal' | 'replicated' | 'manual' | 'unreduced' */
static bool parse_type_list(hlo_parser *p, shard_hlo_sharding *h) {
  SHARD_VEC(int) v = {0};
  if (!expect(p, "{")) return false;
  if (!accept(p, "}")) {
    do {
      htok t = next(p);
      int ty;
      if (t.kind == HT_IDENT && tok_is(p, &t, "maximal")) ty = SHARD_SUBGROUP_MAXIMAL;
      else if (t.kind == HT_IDENT && tok_is(p, &t, "replicated")) ty = SHARD_SUBGROUP_REPLICATED;
      else if (t.kind == HT_IDENT && tok_is(p, &t, "manual")) ty = SHARD_SUBGROUP_MANUAL;
      else if (t.kind == HT_IDENT && tok_is(p, &t, "unreduced")) ty = SHARD_SUBGROUP_UNREDUCED;
      else {
        SHARD_VEC_FREE(v);
        return perror_at(p, t.off, t.len ? t.len : 1, "expects sharding type");
      }
      SHARD_VEC_PUSH(v, ty);
    } while (accept(p, ","));
    if (!expect(p, "}")) {
      SHARD_VEC_FREE(v);
      return false;
    }
  }
  h->num_types = v.len;
  SHARD_VEC_FREEZE(p->cx->arena, v, h->types);
  return true;
}

static bool parse_v3(hlo_parser *p, shard_hlo_sharding *h);

/* single-body ::= v3-body | v2-item*  (up to the closing '}') */
static bool parse_single_body(hlo_parser *p, shard_hlo_sharding *h, uint32_t open_off) {
  htok first = peek(p);
  if (first.kind == HT_IDENT &&
      (tok_is(p, &first, "mesh") || tok_is(p, &first, "maximal_mesh") || tok_is(p, &first, "single_device")))
    return parse_v3(p, h);
  bool replicated = false, manual = false, maximal = false, unknown = false, unreduced = false;
  bool have_device = false, have_devices = false, last_dims = false;
  uint32_t devices_off = 0;
  for (;;) {
    htok t = peek(p);
    if (t.kind == HT_PUNCT && tok_is(p, &t, "}")) break;
    if (t.kind == HT_EOF) return perror_at(p, t.off, 1, "expected '}' to end the sharding");
    if (t.kind != HT_IDENT) return perror_at(p, t.off, t.len ? t.len : 1, "unexpected token");
    next(p);
    htok after = peek(p);
    bool is_attr = after.kind == HT_PUNCT && tok_is(p, &after, "=");
    if (is_attr) {
      next(p);
      if (tok_is(p, &t, "device")) {
        if (!parse_device_id(p, &h->device)) return false;
        have_device = true;
      } else if (tok_is(p, &t, "devices")) {
        devices_off = t.off;
        if (!parse_tile_assignment(p, h)) return false;
        have_devices = true;
      } else if (tok_is(p, &t, "last_tile_dims")) {
        if (!parse_type_list(p, h)) return false;
        last_dims = true;
      } else if (tok_is(p, &t, "metadata")) {
        if (!skip_braces(p, &h->metadata)) return false;
      } else {
        return perror_at(p, t.off, t.len,
                         "unknown attribute in sharding: expected device=, devices= metadata= or "
                         "last_tile_dims= ");
      }
      continue;
    }
    if (tok_is(p, &t, "replicated")) replicated = true;
    else if (tok_is(p, &t, "manual")) manual = true;
    else if (tok_is(p, &t, "maximal")) maximal = true;
    else if (tok_is(p, &t, "unknown")) unknown = true;
    else if (tok_is(p, &t, "unreduced")) unreduced = true;
    else if (tok_is(p, &t, "last_tile_dim_replicate")) {
      h->last_tile_dim_replicate = true;
    } else if (tok_is(p, &t, "shard_as") || tok_is(p, &t, "shard_like")) {
      h->shard_group_kind = tok_is(p, &t, "shard_as") ? 1 : 2;
      if (!parse_int(p, &h->shard_group)) return false;
    } else {
      return perror_at(p, t.off, t.len, "unexpected token");
    }
  }
  uint32_t close = peek(p).off;
  uint32_t at = open_off, len = close + 1 - open_off;
  if (replicated) {
    if (have_device || have_devices)
      return perror_at(p, at, len, "replicated shardings should not have any devices assigned");
    h->kind = SHARD_HLO_REPLICATED;
  } else if (maximal) {
    if (!have_device || have_devices)
      return perror_at(p, at, len, "maximal shardings should have exactly one device assigned");
    h->kind = SHARD_HLO_MAXIMAL;
  } else if (manual || unknown || unreduced) {
    if (have_device || have_devices)
      return perror_at(p, at, len, "%s shardings should not have any devices assigned",
                       manual    ? "manual"
                       : unknown ? "unknown"
                                 : "unreduced");
    h->kind = manual ? SHARD_HLO_MANUAL : unknown ? SHARD_HLO_UNKNOWN : SHARD_HLO_UNREDUCED;
  } else {
    if (!have_devices)
      return perror_at(p, at, len, "non-maximal shardings must have a tile assignment list including dimensions");
    if (h->devices) {
      int64_t total = 0;
      checked_product(h->dims, h->num_dims, &total);
      if (total <= 1) {
        /* XLA's text parser rejects this; an OpSharding proto (JAX's) may
         * hold it, and JAX reads one device as replicated */
        shard_span at1 = {p->src, devices_off, 7};
        bool man = false;
        for (uint32_t i = 0; i < h->num_types; i++) man |= h->types[i] == SHARD_SUBGROUP_MANUAL;
        shard_warning(p->cx->de, at1,
                      "non-maximal shardings must have more than one device assigned: read as %s "
                      "(a one-device OpSharding, as JAX reads it)",
                      man ? "{manual}" : "{replicated}");
        h->kind = man ? SHARD_HLO_MANUAL : SHARD_HLO_REPLICATED;
        h->devices = NULL;
        h->num_dims = 0;
        h->num_types = 0;
        h->last_tile_dim_replicate = false;
        return true;
      }
    }
    h->kind = SHARD_HLO_TILED;
    if (h->last_tile_dim_replicate) {
      if (last_dims) return perror_at(p, at, len, "last_tile_dim_replicate and last_tile_dims= cannot be combined");
      h->num_types = 1;
      h->types = SHARD_NEW_ARRAY(p->cx->arena, int, 1);
      h->types[0] = SHARD_SUBGROUP_REPLICATED;
    }
    if (h->num_types >= h->num_dims + (h->num_types ? 0 : 1) && h->num_types > h->num_dims)
      return perror_at(p, at, len, "%u subgroup types but only %u tile assignment dimensions", h->num_types,
                       h->num_dims);
  }
  (void)have_device;
  return true;
}

/* sharding ::= '{' '}' | '{' single-body '}' | '{' '{' single-body '}' (',' '{' ... '}')* '}' */
static bool parse_sharding(hlo_parser *p, shard_hlo_sharding *h) {
  htok open = peek(p);
  if (!expect(p, "{")) return false;
  if (++p->depth > 64) return perror_at(p, open.off, 1, "sharding nested too deeply");
  htok t = peek(p);
  bool ok;
  if (t.kind == HT_PUNCT && (tok_is(p, &t, "{") || tok_is(p, &t, "}"))) {
    SHARD_VEC(shard_hlo_sharding) elems = {0};
    ok = true;
    if (tok_is(p, &t, "{")) {
      do {
        shard_hlo_sharding e;
        memset(&e, 0, sizeof e);
        if (!parse_sharding(p, &e)) {
          ok = false;
          break;
        }
        if (e.kind == SHARD_HLO_TUPLE) {
          ok = perror_at(p, e.span.off, e.span.len, "tuple shardings cannot be nested");
          break;
        }
        SHARD_VEC_PUSH(elems, e);
      } while (accept(p, ","));
    }
    h->kind = SHARD_HLO_TUPLE;
    h->num_elems = elems.len;
    SHARD_VEC_FREEZE(p->cx->arena, elems, h->elems);
    ok = ok && expect(p, "}");
  } else {
    ok = parse_single_body(p, h, open.off) && expect(p, "}");
  }
  p->depth--;
  shard_span sp = {p->src, open.off, p->pos > open.off ? p->pos - open.off : 1};
  h->span = sp;
  return ok;
}

shard_hlo_sharding *shard_hlo_parse(shard_conv_ctx *cx, const shard_source *src, uint32_t off, uint32_t end) {
  hlo_parser p = {cx, src, off, end, {0}, false, false, 0};
  shard_hlo_sharding *h = SHARD_NEW(cx->arena, shard_hlo_sharding);
  if (!parse_sharding(&p, h)) return NULL;
  htok t = peek(&p);
  if (t.kind != HT_EOF) {
    perror_at(&p, t.off, t.len ? t.len : 1, "unexpected text after the sharding");
    return NULL;
  }
  return h;
}

/* ---- V3 parsing ---------------------------------------------------------------------------------- */

/* axis-name ::= IDENT | STRING */
static bool parse_axis_name(hlo_parser *p, const char **out) {
  htok t = peek(p);
  if (t.kind != HT_IDENT && t.kind != HT_STRING) return perror_here(p, "expected a mesh axis name");
  next(p);
  *out = shard_arena_strndup(p->cx->arena, p->src->text + t.off, t.len);
  return true;
}

/* v3-axis ::= (axis-name | INT) (':' '(' INT ')' INT)? */
static bool parse_v3_axis(hlo_parser *p, const shard_mesh *m, shard_axis_ref *r) {
  memset(r, 0, sizeof *r);
  htok t = peek(p);
  if (t.kind == HT_INT) {
    next(p);
    if (t.value < 0 || t.value >= (int64_t)m->num_axes)
      return perror_at(p, t.off, t.len, "mesh axis index %lld is out of range", (long long)t.value);
    r->name = m->axes[t.value].name;
  } else {
    if (!parse_axis_name(p, &r->name)) return false;
    if (shard_mesh_axis_index(m, r->name) < 0) return perror_at(p, t.off, t.len, "unknown mesh axis '%s'", r->name);
  }
  if (accept(p, ":")) {
    r->is_sub = true;
    if (!expect(p, "(") || !parse_int(p, &r->pre_size) || !expect(p, ")") || !parse_int(p, &r->size)) return false;
  }
  return true;
}

static bool parse_v3_axis_list(hlo_parser *p, const shard_mesh *m, shard_axis_ref **out, uint32_t *n, bool *open) {
  SHARD_VEC(shard_axis_ref) v = {0};
  if (!expect(p, "{")) return false;
  if (open) *open = false;
  while (!accept(p, "}")) {
    if (v.len && !accept(p, ",") && !(open && peek(p).kind == HT_PUNCT)) {
      SHARD_VEC_FREE(v);
      return expect(p, ",");
    }
    htok t = peek(p);
    if (open && t.kind == HT_PUNCT && tok_is(p, &t, "?")) {
      next(p);
      *open = true;
      if (!expect(p, "}")) {
        SHARD_VEC_FREE(v);
        return false;
      }
      break;
    }
    if (t.kind == HT_PUNCT && tok_is(p, &t, "?")) {
      SHARD_VEC_FREE(v);
      return perror_here(p, "'?' is only allowed in dimension shardings");
    }
    shard_axis_ref r;
    if (!parse_v3_axis(p, m, &r)) {
      SHARD_VEC_FREE(v);
      return false;
    }
    SHARD_VEC_PUSH(v, r);
  }
  *n = v.len;
  SHARD_VEC_FREEZE(p->cx->arena, v, *out);
  return true;
}

/* v3-body ::= 'maximal_mesh' '[' 'device_id' '=' INT ']' (',' 'metadata=' ...)?
 *           | 'mesh' '[' (name '=' INT (',' name '=' INT)*)? ']' (','? 'device_ids=' '(' ids ')')?
 *             ','? ( 'replicated' | 'unreduced' | 'manual'
 *                  | '[' (dim (',' dim)*)? ']' (',' v3-attr)* ) */
static bool parse_v3(hlo_parser *p, shard_hlo_sharding *h) {
  shard_conv_ctx *cx = p->cx;
  htok kw = next(p);
  h->kind = SHARD_HLO_NAMED;
  shard_span sp = {p->src, kw.off, kw.len};
  if (tok_is(p, &kw, "maximal_mesh") || tok_is(p, &kw, "single_device")) {
    htok id;
    if (!expect(p, "[")) return false;
    id = next(p);
    if (!(id.kind == HT_IDENT && tok_is(p, &id, "device_id")) || !expect(p, "="))
      return perror_at(p, id.off, id.len ? id.len : 1, "expected 'device_id='");
    int64_t dev;
    if (!parse_device_id(p, &dev) || !expect(p, "]")) return false;
    h->named = shard_conv_new(cx, SHARD_CONV_MAXIMAL, sp);
    h->named->device = dev;
    return skip_trailing_metadata(p, &h->named->metadata);
  }
  SHARD_VEC(shard_mesh_axis) axes = {0};
  if (!expect(p, "[")) return false;
  if (!accept(p, "]")) {
    do {
      shard_mesh_axis ax;
      htok at = peek(p);
      if (!parse_axis_name(p, &ax.name) || !expect(p, "=") || !parse_int(p, &ax.size)) {
        SHARD_VEC_FREE(axes);
        return false;
      }
      if (ax.size < 1) {
        SHARD_VEC_FREE(axes);
        return perror_at(p, at.off, at.len, "mesh axis size must be positive");
      }
      for (uint32_t i = 0; i < axes.len; i++)
        if (strcmp(axes.items[i].name, ax.name) == 0) {
          SHARD_VEC_FREE(axes);
          return perror_at(p, at.off, at.len, "Mesh has duplicate axis names");
        }
      SHARD_VEC_PUSH(axes, ax);
    } while (accept(p, ","));
    if (!expect(p, "]")) {
      SHARD_VEC_FREE(axes);
      return false;
    }
  }
  shard_mesh *m = SHARD_NEW(cx->arena, shard_mesh);
  m->num_axes = axes.len;
  SHARD_VEC_FREEZE(cx->arena, axes, m->axes);
  m->span = sp;
  int64_t total = 1;
  for (uint32_t i = 0; i < m->num_axes; i++)
    if (__builtin_mul_overflow(total, m->axes[i].size, &total) || total > SHARD_CONV_MAX_DEVICES)
      return perror_at(p, kw.off, kw.len, "mesh holds too many devices");
  accept(p, ",");
  bool iota_ids = false;
  htok t = peek(p);
  if (t.kind == HT_IDENT && tok_is(p, &t, "device_ids")) {
    next(p);
    if (!expect(p, "=") || !expect(p, "(")) return false;
    htok q = peek(p);
    int64_t *ids = SHARD_NEW_ARRAY(cx->arena, int64_t, total);
    if (q.kind == HT_PUNCT && tok_is(p, &q, "[")) {
      int64_t *reshape, *perm = NULL;
      uint32_t nr, np = 0;
      if (!parse_int_list(p, "[", "]", &reshape, &nr)) return false;
      int64_t rt;
      if (nr == 0 || !checked_product(reshape, nr, &rt) || rt != total)
        return perror_at(p, q.off, 1, "device_ids iota does not hold the mesh's %lld devices", (long long)total);
      htok tt = peek(p);
      if (tt.kind == HT_IDENT && tok_is(p, &tt, "T")) {
        next(p);
        if (!parse_int_list(p, "(", ")", &perm, &np)) return false;
      }
      if (!perm) {
        perm = SHARD_NEW_ARRAY(cx->arena, int64_t, nr);
        for (uint32_t i = 0; i < nr; i++) perm[i] = i;
        np = nr;
      }
      bool *seen = shard_xcalloc(nr + 1, 1);
      bool okp = np == nr;
      for (uint32_t i = 0; i < np && okp; i++) {
        if (perm[i] < 0 || perm[i] >= (int64_t)nr || seen[perm[i]]) okp = false;
        else seen[perm[i]] = true;
      }
      free(seen);
      if (!okp) return perror_at(p, tt.off, 1, "device_ids transpose is not a permutation");
      iota_expand(reshape, perm, nr, total, ids);
      iota_ids = true;
    } else {
      int64_t *list;
      uint32_t n = 0;
      int_vec v = {0};
      if (!parse_ints(p, &v)) return false;
      n = v.len;
      SHARD_VEC_FREEZE(cx->arena, v, list);
      if ((int64_t)n != total)
        return perror_at(p, q.off, 1, "device_ids lists %u devices but the mesh has %lld", n, (long long)total);
      memcpy(ids, list, sizeof(int64_t) * (size_t)n);
    }
    if (!expect(p, ")")) return false;
    bool *seen = shard_xcalloc((size_t)total, 1);
    for (int64_t i = 0; i < total; i++) {
      if (ids[i] < 0 || ids[i] >= total || seen[ids[i]]) {
        free(seen);
        return perror_at(p, q.off, 1, "device_ids must be a permutation of 0..%lld", (long long)total - 1);
      }
      seen[ids[i]] = true;
    }
    free(seen);
    m->device_ids = ids;
    m->num_device_ids = (uint32_t)total;
    shard_mesh_canonicalize(m);
    accept(p, ",");
  }
  t = peek(p);
  if (t.kind == HT_IDENT && (tok_is(p, &t, "replicated") || tok_is(p, &t, "unreduced") || tok_is(p, &t, "manual"))) {
    next(p);
    shard_conv_kind k = tok_is(p, &t, "replicated")  ? SHARD_CONV_REPLICATED
                        : tok_is(p, &t, "unreduced") ? SHARD_CONV_UNREDUCED
                                                     : SHARD_CONV_MANUAL;
    h->named = shard_conv_new(cx, k, sp);
    h->named->mesh = m;
    return skip_trailing_metadata(p, &h->named->metadata);
  }
  SHARD_VEC(shard_dim_sharding) dims = {0};
  if (!expect(p, "[")) return false;
  if (!accept(p, "]")) {
    do {
      shard_dim_sharding d;
      memset(&d, 0, sizeof d);
      d.priority = SHARD_NO_PRIORITY;
      if (!parse_v3_axis_list(p, m, &d.axes, &d.num_axes, &d.is_open)) {
        SHARD_VEC_FREE(dims);
        return false;
      }
      SHARD_VEC_PUSH(dims, d);
    } while (accept(p, ","));
    if (!expect(p, "]")) {
      SHARD_VEC_FREE(dims);
      return false;
    }
  }
  shard_conv *c = shard_conv_new_named(cx, m, dims.len, sp);
  c->iota_device_ids = iota_ids;
  for (uint32_t i = 0; i < dims.len; i++) c->sharding->dims[i] = dims.items[i];
  SHARD_VEC_FREE(dims);
  while (accept(p, ",")) {
    htok a = next(p);
    if (a.kind != HT_IDENT || !expect(p, "="))
      return perror_at(p, a.off, a.len ? a.len : 1, "expected replicated=, unreduced=, manual= or metadata=");
    if (tok_is(p, &a, "replicated")) {
      if (!parse_v3_axis_list(p, m, &c->sharding->replicated, &c->sharding->num_replicated, NULL)) return false;
    } else if (tok_is(p, &a, "unreduced")) {
      if (!parse_v3_axis_list(p, m, &c->sharding->unreduced, &c->sharding->num_unreduced, NULL)) return false;
    } else if (tok_is(p, &a, "manual")) {
      if (!parse_v3_axis_list(p, m, &c->manual, &c->num_manual, NULL)) return false;
    } else if (tok_is(p, &a, "metadata")) {
      if (!skip_braces(p, &c->metadata)) return false;
    } else {
      return perror_at(p, a.off, a.len, "expected replicated=, unreduced=, manual= or metadata=");
    }
  }
  h->named = c;
  return true;
}

/* ---- printing --------------------------------------------------------------------------------------- */

static int cmp_i64(const void *a, const void *b);

static void print_list(shard_buf *b, const int64_t *v, uint32_t n) {
  for (uint32_t i = 0; i < n; i++) shard_buf_printf(b, "%s%lld", i ? "," : "", (long long)v[i]);
}

static void print_single(shard_buf *b, const shard_hlo_sharding *h) {
  shard_buf_putc(b, '{');
  switch (h->kind) {
  case SHARD_HLO_REPLICATED: shard_buf_puts(b, "replicated"); break;
  case SHARD_HLO_MANUAL: shard_buf_puts(b, "manual"); break;
  case SHARD_HLO_UNKNOWN: shard_buf_puts(b, "unknown"); break;
  case SHARD_HLO_UNREDUCED: shard_buf_puts(b, "unreduced"); break;
  case SHARD_HLO_MAXIMAL: shard_buf_printf(b, "maximal device=%lld", (long long)h->device); break;
  case SHARD_HLO_TILED: {
    shard_buf_puts(b, "devices=[");
    print_list(b, h->dims, h->num_dims);
    shard_buf_putc(b, ']');
    if (h->devices) {
      int64_t total = 1;
      for (uint32_t i = 0; i < h->num_dims; i++) total *= h->dims[i];
      /* HloSharding::PartialTile sorts the devices of each replication
       * group of an explicit list: they hold the same data. */
      int64_t *v = shard_xmalloc(sizeof(int64_t) * (size_t)(total ? total : 1));
      memcpy(v, h->devices, sizeof(int64_t) * (size_t)total);
      if (h->num_types == 1 && h->types[0] == SHARD_SUBGROUP_REPLICATED) {
        int64_t g = h->dims[h->num_dims - 1];
        for (int64_t i = 0; g > 1 && i < total; i += g) qsort(v + i, (size_t)g, sizeof(int64_t), cmp_i64);
      }
      print_list(b, v, (uint32_t)total);
      free(v);
    } else {
      int64_t *r = shard_xmalloc(sizeof(int64_t) * (h->num_reshape + 1));
      int64_t *pm = shard_xmalloc(sizeof(int64_t) * (h->num_reshape + 1));
      memcpy(r, h->reshape, sizeof(int64_t) * h->num_reshape);
      memcpy(pm, h->perm, sizeof(int64_t) * h->num_reshape);
      uint32_t n = iota_canonicalize(r, pm, h->num_reshape);
      shard_buf_puts(b, "<=[");
      print_list(b, r, n);
      shard_buf_putc(b, ']');
      if (n > 1) {
        shard_buf_puts(b, "T(");
        print_list(b, pm, n);
        shard_buf_putc(b, ')');
      }
      free(r);
      free(pm);
    }
    if (h->num_types == 1 && h->types[0] == SHARD_SUBGROUP_REPLICATED) {
      shard_buf_puts(b, " last_tile_dim_replicate");
    } else if (h->num_types) {
      shard_buf_puts(b, " last_tile_dims={");
      for (uint32_t i = 0; i < h->num_types; i++) shard_buf_printf(b, "%s%s", i ? ", " : "", type_name(h->types[i]));
      shard_buf_putc(b, '}');
    }
    break;
  }
  default: break;
  }
  if (h->metadata) shard_buf_printf(b, " metadata=%s", h->metadata);
  if (h->shard_group_kind)
    shard_buf_printf(b, " %s %lld", h->shard_group_kind == 1 ? "shard_as" : "shard_like", (long long)h->shard_group);
  shard_buf_putc(b, '}');
}

void shard_hlo_print(shard_buf *b, const shard_hlo_sharding *h) {
  if (h->kind == SHARD_HLO_NAMED) {
    shard_conv_ctx cx;
    shard_arena *a = shard_arena_new();
    shard_diag_engine de;
    shard_diag_init(&de, NULL, NULL);
    shard_conv_ctx_init(&cx, a, &de);
    shard_hlo_print_v3(&cx, b, h->named);
    shard_arena_free(a);
    return;
  }
  if (h->kind != SHARD_HLO_TUPLE) {
    print_single(b, h);
    return;
  }
  shard_buf_putc(b, '{');
  for (uint32_t i = 0; i < h->num_elems; i++) {
    if (i) shard_buf_puts(b, ", ");
    if (i && i % 5 == 0) shard_buf_printf(b, "/*index=%u*/", i);
    shard_hlo_print(b, &h->elems[i]);
  }
  shard_buf_putc(b, '}');
}

int64_t shard_hlo_num_devices(const shard_hlo_sharding *h) {
  if (h->kind == SHARD_HLO_NAMED && h->named->mesh) return shard_mesh_num_devices(h->named->mesh);
  if (h->kind != SHARD_HLO_TILED) return 0;
  int64_t total = 1;
  for (uint32_t i = 0; i < h->num_dims; i++) total *= h->dims[i];
  return total;
}

int64_t *shard_hlo_device_array(const shard_hlo_sharding *h) {
  int64_t total = shard_hlo_num_devices(h);
  int64_t *out = shard_xmalloc(sizeof(int64_t) * (size_t)(total ? total : 1));
  if (h->devices) memcpy(out, h->devices, sizeof(int64_t) * (size_t)total);
  else iota_expand(h->reshape, h->perm, h->num_reshape, total, out);
  return out;
}

int64_t *shard_hlo_device_array_in(shard_conv_ctx *cx, const shard_hlo_sharding *h) {
  int64_t total = shard_hlo_num_devices(h);
  int64_t *v = shard_hlo_device_array(h);
  int64_t *out = shard_arena_dup(cx->arena, v, sizeof(int64_t) * (size_t)(total ? total : 1));
  free(v);
  return out;
}

/* ---- validation -------------------------------------------------------------------------------------- */

static void shape_text(shard_buf *b, const int64_t *shape, int32_t rank) {
  shard_buf_putc(b, '[');
  for (int32_t i = 0; i < rank; i++) shard_buf_printf(b, "%s%lld", i ? "," : "", (long long)shape[i]);
  shard_buf_putc(b, ']');
}

static bool validate_single(shard_conv_ctx *cx, const shard_hlo_sharding *h, const int64_t *shape, int32_t rank,
                            int64_t num_devices) {
  shard_diag_engine *de = cx->de;
  switch (h->kind) {
  case SHARD_HLO_MAXIMAL:
    if (h->device < 0) {
      shard_error(de, h->span, "device %lld is negative in tile assignment", (long long)h->device);
      return false;
    }
    if (num_devices > 0 && h->device >= num_devices) {
      shard_error(de, h->span, "device %lld >= num_devices (%lld) in tile assignment", (long long)h->device,
                  (long long)num_devices);
      return false;
    }
    return true;
  case SHARD_HLO_NAMED: {
    const shard_conv *c = h->named;
    bool ok = true;
    if (c->kind == SHARD_CONV_NAMED) {
      int32_t saved = cx->rank;
      cx->rank = rank;
      ok = shard_conv_validate(cx, c);
      cx->rank = saved;
    }
    if (ok && c->kind == SHARD_CONV_MAXIMAL && num_devices > 0 && c->device >= num_devices) {
      shard_error(de, h->span, "device %lld >= num_devices (%lld) in tile assignment", (long long)c->device,
                  (long long)num_devices);
      ok = false;
    }
    if (ok && c->mesh && num_devices > 0 && shard_mesh_num_devices(c->mesh) != num_devices) {
      shard_error(de, h->span, "the mesh has %lld devices but the module has %lld",
                  (long long)shard_mesh_num_devices(c->mesh), (long long)num_devices);
      ok = false;
    }
    return ok;
  }
  case SHARD_HLO_TILED: break;
  default: return true;
  }
  int64_t total = shard_hlo_num_devices(h);
  bool ok = true;
  if (total == 1) {
    shard_error(de, h->span,
                "Tile assignment only contains a single device. If a replicated sharding was "
                "intended, use HloSharding::Replicated(). If a device placement was intended, use "
                "HloSharding::AssignDevice()");
    ok = false;
  }
  int64_t subgroups = h->num_types;
  if (ok && rank >= 0 && (int64_t)h->num_dims - subgroups != rank) {
    shard_buf sh, sd;
    shard_buf_init(&sh);
    shard_buf_init(&sd);
    shape_text(&sh, shape, rank);
    print_single(&sd, h);
    shard_error(de, h->span,
                "Number of tile assignment dimensions (excluding subgroups) is different than the "
                "input rank. sharding=%s, input_shape=%s",
                shard_buf_str(&sd), shard_buf_str(&sh));
    shard_buf_free(&sh);
    shard_buf_free(&sd);
    ok = false;
  }
  if (ok && h->devices) {
    int64_t limit = num_devices > 0 ? num_devices : total;
    bool *seen = shard_xcalloc((size_t)(limit > total ? limit : total), 1);
    for (int64_t i = 0; i < total && ok; i++) {
      int64_t d = h->devices[i];
      if (d < 0) {
        shard_error(de, h->span, "device %lld is negative in tile assignment", (long long)d);
        ok = false;
      } else if (d >= limit) {
        shard_error(de, h->span, "device %lld >= num_devices (%lld) in tile assignment", (long long)d,
                    (long long)limit);
        ok = false;
      } else if (seen[d]) {
        shard_error(de, h->span, "device %lld is not unique in tile assignment", (long long)d);
        ok = false;
      } else {
        seen[d] = true;
      }
    }
    free(seen);
  }
  if (ok && num_devices > 0 && total != num_devices) {
    shard_error(de, h->span, "tile_assignment should have %lld devices but has %lld", (long long)num_devices,
                (long long)total);
    ok = false;
  }
  return ok;
}

bool shard_hlo_validate(shard_conv_ctx *cx, const shard_hlo_sharding *h, const int64_t *shape, int32_t rank,
                        int64_t num_devices) {
  if (h->kind != SHARD_HLO_TUPLE) return validate_single(cx, h, shape, rank, num_devices);
  bool ok = true;
  for (uint32_t i = 0; i < h->num_elems; i++)
    if (!validate_single(cx, &h->elems[i], NULL, -1, num_devices)) {
      shard_note(cx->de, h->elems[i].span, "While validating sharding tuple element %u", i);
      ok = false;
    }
  return ok;
}

/* ---- device maps from the tile assignment ------------------------------------------------------------ */

bool shard_hlo_device_map(const shard_hlo_sharding *h, const int64_t *shape, uint32_t rank, int64_t num_devices,
                          shard_device_map *out, shard_buf *err) {
  if (h->kind == SHARD_HLO_TUPLE || h->kind == SHARD_HLO_NAMED) {
    shard_buf_puts(err, "no single V2 sharding");
    return false;
  }
  if (h->kind != SHARD_HLO_TILED) {
    shard_conv c;
    memset(&c, 0, sizeof c);
    c.kind = h->kind == SHARD_HLO_REPLICATED ? SHARD_CONV_REPLICATED
             : h->kind == SHARD_HLO_MANUAL   ? SHARD_CONV_MANUAL
             : h->kind == SHARD_HLO_UNKNOWN  ? SHARD_CONV_UNKNOWN
             : h->kind == SHARD_HLO_MAXIMAL  ? SHARD_CONV_MAXIMAL
                                             : SHARD_CONV_UNREDUCED;
    c.device = h->device;
    return shard_device_map_build(&c, shape, rank, num_devices, out, err);
  }
  if (h->num_dims - h->num_types != rank) {
    shard_buf_printf(err, "the sharding tiles %u dimensions, the shape has %u", h->num_dims - h->num_types, rank);
    return false;
  }
  int64_t n = shard_hlo_num_devices(h);
  int64_t *devices = shard_hlo_device_array(h);
  int64_t *idx = shard_xcalloc(h->num_dims + 1, sizeof(int64_t));
  int64_t *k1 = shard_xcalloc((size_t)n, sizeof(int64_t));
  int64_t *k2 = shard_xcalloc((size_t)n, sizeof(int64_t));
  int64_t *k3 = shard_xcalloc((size_t)n, sizeof(int64_t));
  shard_device_map_alloc(out, n, rank);
  bool ok = true;
  for (int64_t lin = 0; lin < n && ok; lin++) {
    int64_t rest = lin;
    for (uint32_t i = h->num_dims; i-- > 0;) {
      idx[i] = rest % h->dims[i];
      rest /= h->dims[i];
    }
    int64_t d = devices[lin];
    if (d < 0 || d >= n || out->held[d]) {
      shard_buf_puts(err, "the tile assignment is not a permutation");
      ok = false;
      break;
    }
    out->held[d] = true;
    int64_t tile = 0, manual = 0, unreduced = 0;
    for (uint32_t i = 0; i < rank; i++) {
      int64_t chunk = (shape[i] + h->dims[i] - 1) / h->dims[i];
      int64_t off = idx[i] * chunk, lim = (idx[i] + 1) * chunk;
      out->offset[d * rank + i] = off < shape[i] ? off : shape[i];
      out->limit[d * rank + i] = lim < shape[i] ? lim : shape[i];
      tile = tile * h->dims[i] + idx[i];
    }
    for (uint32_t g = 0; g < h->num_types; g++) {
      int64_t size = h->dims[rank + g], x = idx[rank + g];
      if (h->types[g] == SHARD_SUBGROUP_MANUAL) manual = manual * size + x;
      if (h->types[g] == SHARD_SUBGROUP_UNREDUCED) unreduced = unreduced * size + x;
      if (h->types[g] == SHARD_SUBGROUP_MANUAL && size > 1) out->per_device_values = true;
    }
    k1[d] = tile * n + manual;
    k2[d] = unreduced;
    k3[d] = 0;
  }
  if (ok) shard_device_map_classes(out, k1, k2, k3);
  else shard_device_map_free(out);
  free(devices);
  free(idx);
  free(k1);
  free(k2);
  free(k3);
  return ok;
}

/* ---- V2 -> hub ------------------------------------------------------------------------------------------ */

static int cmp_i64(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return x < y ? -1 : x > y;
}

typedef struct iota_piece {
  uint32_t raxis; /* reshape dim it belongs to */
  int64_t pre, size;
} iota_piece;

static int cmp_iota_piece(const void *a, const void *b) {
  const iota_piece *x = a, *y = b;
  if (x->raxis != y->raxis) return x->raxis < y->raxis ? -1 : 1;
  return x->pre < y->pre ? -1 : x->pre > y->pre;
}

static const char *invented_name(shard_conv_ctx *cx, uint32_t i) {
  return shard_arena_printf(cx->arena, "_axis_%u", i);
}

/* A mesh for an iota tile assignment: the reshape dims cut wherever a tile
 * dim boundary falls inside them, as XLA's importer does. NULL when the
 * boundaries do not nest (no mixed-radix factorisation exists). */
static shard_mesh *invent_iota_mesh(shard_conv_ctx *cx, const shard_hlo_sharding *h) {
  uint32_t nr = h->num_reshape, nd = h->num_dims;
  SHARD_VEC(int64_t) cuts = {0};
  int64_t acc = 1;
  SHARD_VEC_PUSH(cuts, 1);
  for (uint32_t i = 0; i < nd; i++) {
    acc *= h->dims[i];
    SHARD_VEC_PUSH(cuts, acc);
  }
  int64_t *scum = shard_xcalloc(nr + 1, sizeof(int64_t));
  scum[0] = 1;
  for (uint32_t k = 0; k < nr; k++) {
    scum[k + 1] = scum[k] * h->reshape[h->perm[k]];
    SHARD_VEC_PUSH(cuts, scum[k + 1]);
  }
  qsort(cuts.items, cuts.len, sizeof(int64_t), cmp_i64);
  SHARD_VEC(iota_piece) pieces = {0};
  shard_mesh *m = NULL;
  bool ok = true;
  for (uint32_t i = 0; i + 1 < cuts.len && ok; i++) {
    int64_t lo = cuts.items[i], hi = cuts.items[i + 1];
    if (lo == hi) continue;
    if (hi % lo != 0) {
      ok = false;
      break;
    }
    uint32_t k = 0;
    while (k < nr && !(scum[k] <= lo && hi <= scum[k + 1])) k++;
    if (k == nr) {
      ok = false;
      break;
    }
    iota_piece pc = {(uint32_t)h->perm[k], lo / scum[k], hi / lo};
    SHARD_VEC_PUSH(pieces, pc);
  }
  if (ok) {
    if (pieces.len) qsort(pieces.items, pieces.len, sizeof(iota_piece), cmp_iota_piece);
    m = SHARD_NEW(cx->arena, shard_mesh);
    m->axes = SHARD_NEW_ARRAY(cx->arena, shard_mesh_axis, pieces.len + 1);
    for (uint32_t i = 0; i < pieces.len; i++) {
      if (pieces.items[i].size == 1) continue;
      m->axes[m->num_axes].name = invented_name(cx, m->num_axes);
      m->axes[m->num_axes].size = pieces.items[i].size;
      m->num_axes++;
    }
  }
  SHARD_VEC_FREE(pieces);
  SHARD_VEC_FREE(cuts);
  free(scum);
  return m;
}

/* A mesh whose axes are the tile dims (size-1 dims left out) and whose
 * device order is the tile assignment itself: it expresses any device list. */
static shard_mesh *invent_array_mesh(shard_conv_ctx *cx, const shard_hlo_sharding *h, const int64_t *devices) {
  shard_mesh *m = SHARD_NEW(cx->arena, shard_mesh);
  m->axes = SHARD_NEW_ARRAY(cx->arena, shard_mesh_axis, h->num_dims + 1);
  for (uint32_t i = 0; i < h->num_dims; i++) {
    if (h->dims[i] == 1) continue;
    m->axes[m->num_axes].name = invented_name(cx, m->num_axes);
    m->axes[m->num_axes].size = h->dims[i];
    m->num_axes++;
  }
  int64_t total = shard_hlo_num_devices(h);
  m->num_device_ids = (uint32_t)total;
  m->device_ids = shard_arena_dup(cx->arena, devices, sizeof(int64_t) * (size_t)total);
  shard_mesh_canonicalize(m);
  return m;
}

/* (mesh position, device) pairs, sorted by position */
typedef struct pos_dev {
  int64_t pos, dev;
} pos_dev;

static int cmp_pos_dev(const void *a, const void *b) {
  int64_t x = ((const pos_dev *)a)->pos, y = ((const pos_dev *)b)->pos;
  return x < y ? -1 : x > y;
}

/* XLA sorts the devices of each replication group of an explicit list
 * (HloSharding::PartialTile), which the mesh may lay out in another order:
 * the same sharding, read with each group in the mesh's order. */
static shard_conv *sorted_groups_on_mesh(shard_conv_ctx *cx, const shard_hlo_sharding *h, uint32_t rank,
                                         bool explicit_replicated, const int64_t *devices) {
  const shard_mesh *m = cx->mesh;
  int64_t total = shard_hlo_num_devices(h), g = h->dims[h->num_dims - 1];
  if (shard_mesh_num_devices(m) != total) return NULL;
  int64_t *pos = shard_xmalloc(sizeof(int64_t) * (size_t)total);
  int64_t *v = shard_xmalloc(sizeof(int64_t) * (size_t)total);
  for (int64_t i = 0; i < total; i++) pos[i] = -1;
  bool ok = true;
  for (int64_t i = 0; i < total; i++) {
    int64_t d = m->device_ids ? m->device_ids[i] : i;
    if (d >= 0 && d < total) pos[d] = i;
  }
  for (int64_t i = 0; i < total && ok; i++)
    if (devices[i] < 0 || devices[i] >= total || pos[devices[i]] < 0) ok = false;
  shard_conv *c = NULL;
  if (ok) {
    pos_dev *pd = shard_xmalloc(sizeof(pos_dev) * (size_t)total);
    for (int64_t i = 0; i < total; i++) pd[i] = (pos_dev){pos[devices[i]], devices[i]};
    for (int64_t i = 0; i < total; i += g) qsort(pd + i, (size_t)g, sizeof(pos_dev), cmp_pos_dev);
    for (int64_t i = 0; i < total; i++) v[i] = pd[i].dev;
    free(pd);
    c = shard_conv_from_device_array(cx, m, h->dims, h->num_dims, rank, h->types, explicit_replicated, v, h->span);
  }
  free(pos);
  free(v);
  return c;
}

/* XLA allows any distinct device ids in a tile assignment ({devices=[2,2]2,3,5,7}):
 * read on an invented mesh whose device ids are those ids, which only
 * HloSharding and placements can write (shard_conv_print refuses the rest). */
static shard_conv *sparse_ids_to_conv(shard_conv_ctx *cx, const shard_hlo_sharding *h, uint32_t rank,
                                      bool explicit_replicated, const int64_t *devices) {
  int64_t n = shard_hlo_num_devices(h);
  int64_t *sorted = shard_xmalloc(sizeof(int64_t) * (size_t)n);
  int64_t *compact = shard_xmalloc(sizeof(int64_t) * (size_t)n);
  memcpy(sorted, devices, sizeof(int64_t) * (size_t)n);
  qsort(sorted, (size_t)n, sizeof(int64_t), cmp_i64);
  bool ok = sorted[0] >= 0;
  for (int64_t i = 1; i < n && ok; i++) ok = sorted[i] != sorted[i - 1];
  shard_conv *c = NULL;
  if (ok) {
    for (int64_t i = 0; i < n; i++) {
      int64_t *at = bsearch(&devices[i], sorted, (size_t)n, sizeof(int64_t), cmp_i64);
      compact[i] = at - sorted;
    }
    shard_mesh *m = invent_array_mesh(cx, h, compact);
    c = shard_conv_from_device_array(cx, m, h->dims, h->num_dims, rank, h->types, explicit_replicated, compact,
                                     h->span);
    if (c) {
      int64_t *ids = SHARD_NEW_ARRAY(cx->arena, int64_t, n);
      for (int64_t i = 0; i < n; i++) ids[i] = sorted[m->device_ids ? m->device_ids[i] : i];
      m->device_ids = ids;
      m->num_device_ids = (uint32_t)n;
      c->names_invented = true;
    }
  }
  free(sorted);
  free(compact);
  return c;
}

static shard_conv *tiled_to_conv(shard_conv_ctx *cx, const shard_hlo_sharding *h) {
  uint32_t rank = h->num_dims - h->num_types;
  bool explicit_replicated = !h->last_tile_dim_replicate;
  int64_t *devices = shard_hlo_device_array(h);
  shard_conv *c = NULL;
  for (uint32_t i = 0; i < h->num_types; i++)
    if (h->types[i] == SHARD_SUBGROUP_MAXIMAL && h->dims[rank + i] > 1) {
      shard_error(cx->de, h->span, "maximal subgroups (last_tile_dims={maximal}) have no equivalent");
      free(devices);
      return NULL;
    }
  if (cx->mesh) {
    c = shard_conv_from_device_array(cx, cx->mesh, h->dims, h->num_dims, rank, h->types, explicit_replicated, devices,
                                     h->span);
    if (!c && h->devices && h->num_types == 1 && h->types[0] == SHARD_SUBGROUP_REPLICATED)
      c = sorted_groups_on_mesh(cx, h, rank, explicit_replicated, devices);
    if (!c)
      shard_warning(cx->de, h->span,
                    "the sharding cannot be written on the given mesh (its devices are not laid out "
                    "along the mesh axes): using a mesh with invented axis names instead");
  }
  if (!c && !h->devices) {
    shard_mesh *m = invent_iota_mesh(cx, h);
    if (m)
      c = shard_conv_from_device_array(cx, m, h->dims, h->num_dims, rank, h->types, explicit_replicated, devices,
                                       h->span);
    if (c) c->names_invented = true;
  }
  if (!c) {
    shard_mesh *m = invent_array_mesh(cx, h, devices);
    c = shard_conv_from_device_array(cx, m, h->dims, h->num_dims, rank, h->types, explicit_replicated, devices,
                                     h->span);
    if (c) c->names_invented = true;
  }
  if (!c && h->devices) c = sparse_ids_to_conv(cx, h, rank, explicit_replicated, devices);
  if (!c) shard_error(cx->de, h->span, "the tile assignment is not a permutation of its devices");
  free(devices);
  return c;
}

/* The kinds HloSharding and shard_conv share that carry nothing but a
 * maximal sharding's device: one table for reading and for writing. */
static const struct {
  shard_hlo_kind hlo;
  shard_conv_kind conv;
} plain_kinds[] = {
    {SHARD_HLO_REPLICATED, SHARD_CONV_REPLICATED}, {SHARD_HLO_MANUAL, SHARD_CONV_MANUAL},
    {SHARD_HLO_UNKNOWN, SHARD_CONV_UNKNOWN},       {SHARD_HLO_UNREDUCED, SHARD_CONV_UNREDUCED},
    {SHARD_HLO_MAXIMAL, SHARD_CONV_MAXIMAL},
};
#define NUM_PLAIN_KINDS (sizeof plain_kinds / sizeof plain_kinds[0])

shard_conv *shard_hlo_to_conv(shard_conv_ctx *cx, const shard_hlo_sharding *h) {
  shard_conv *c;
  for (size_t i = 0; i < NUM_PLAIN_KINDS; i++)
    if (plain_kinds[i].hlo == h->kind) {
      c = shard_conv_new(cx, plain_kinds[i].conv, h->span);
      if (h->kind == SHARD_HLO_MAXIMAL) c->device = h->device;
      return c;
    }
  switch (h->kind) {
  case SHARD_HLO_NAMED:
    if (h->named->kind == SHARD_CONV_NAMED && !shard_conv_validate(cx, h->named)) return NULL;
    return h->named;
  case SHARD_HLO_TILED: return tiled_to_conv(cx, h);
  case SHARD_HLO_TUPLE:
    c = shard_conv_new(cx, SHARD_CONV_TUPLE, h->span);
    c->num_elems = h->num_elems;
    c->elems = SHARD_NEW_ARRAY(cx->arena, shard_conv, h->num_elems + 1);
    /* One --shape cannot be every leaf's: as in shard_hlo_validate, the
     * elements of a tuple (V3 ones too) are not checked against it. */
    int32_t rank = cx->rank;
    cx->rank = -1;
    for (uint32_t i = 0; i < h->num_elems; i++) {
      shard_conv *e = shard_hlo_to_conv(cx, &h->elems[i]);
      if (!e) {
        c = NULL;
        break;
      }
      c->elems[i] = *e;
    }
    cx->rank = rank;
    return c;
  default: break; /* plain_kinds, above */
  }
  return NULL;
}

/* ---- hub -> V2 (V3ToV2Sharding) ----------------------------------------------------------------------------- */

typedef struct mesh_piece {
  uint32_t axis;
  int64_t pre, size;
  int64_t pos; /* position in the tile assignment's transposed order, -1 while unused */
} mesh_piece;

/* Replaces h's explicit device list by <=[reshape]T(perm) when one gives
 * the same list: the list's index is cut into digits from the minor end,
 * each the longest run of equal value steps, and the steps must be the
 * strides of one mixed radix. */
static void as_iota(shard_conv_ctx *cx, shard_hlo_sharding *h, int64_t n) {
  const int64_t *a = h->devices;
  if (n < 2 || a[0] != 0) return;
  int64_t size[64], step[64];
  uint32_t k = 0;
  int64_t t = 1;
  while (t < n) {
    if (k == 64) return;
    int64_t s = a[t], run = 1;
    while (t * (run + 1) <= n && (n / t) % (run + 1) == 0 && a[t * run] == run * s) run++;
    /* the longest run that divides what is left */
    while (run > 1 && (n / t) % run != 0) run--;
    if (run < 2) return;
    size[k] = run;
    step[k] = s;
    k++;
    t *= run;
  }
  /* every index */
  for (int64_t i = 0; i < n; i++) {
    int64_t rest = i, v = 0;
    for (uint32_t j = 0; j < k; j++) {
      v += rest % size[j] * step[j];
      rest /= size[j];
    }
    if (v != a[i]) return;
  }
  /* the steps sorted are 1, size, size*size... (a mixed radix) */
  uint32_t order[64];
  for (uint32_t j = 0; j < k; j++) order[j] = j;
  for (uint32_t i = 1; i < k; i++)
    for (uint32_t j = i; j > 0 && step[order[j]] < step[order[j - 1]]; j--) {
      uint32_t tmp = order[j];
      order[j] = order[j - 1];
      order[j - 1] = tmp;
    }
  int64_t expect = 1;
  for (uint32_t j = 0; j < k; j++) {
    if (step[order[j]] != expect) return;
    expect *= size[order[j]];
  }
  /* reshape: major (largest step) first; perm: the index digits major first */
  h->num_reshape = k;
  h->reshape = SHARD_NEW_ARRAY(cx->arena, int64_t, k);
  h->perm = SHARD_NEW_ARRAY(cx->arena, int64_t, k);
  for (uint32_t r = 0; r < k; r++) h->reshape[r] = size[order[k - 1 - r]];
  for (uint32_t p = 0; p < k; p++) {
    uint32_t digit = k - 1 - p; /* index digit, major first */
    for (uint32_t r = 0; r < k; r++)
      if (order[k - 1 - r] == digit) h->perm[p] = r;
  }
  h->devices = NULL;
}

/* Gives the pieces covered by `r` the next positions, major first. */
static void place_ref(const shard_mesh *m, mesh_piece *ps, uint32_t np, const shard_axis_ref *r, int64_t *next_pos) {
  int a = shard_mesh_axis_index(m, r->name);
  int64_t lo = shard_axis_pre(r);
  int64_t hi = r->is_sub ? shard_axis_end(r, m) : m->axes[a].size;
  for (uint32_t i = 0; i < np; i++)
    if (ps[i].axis == (uint32_t)a && ps[i].pre >= lo && ps[i].pre * ps[i].size <= hi && ps[i].pos < 0)
      ps[i].pos = (*next_pos)++;
}

static shard_hlo_sharding *hlo_kind(shard_conv_ctx *cx, shard_hlo_kind k, shard_span span) {
  shard_hlo_sharding *h = SHARD_NEW(cx->arena, shard_hlo_sharding);
  h->kind = k;
  h->span = span;
  return h;
}

static shard_hlo_sharding *named_to_v2(shard_conv_ctx *cx, const shard_conv *c, bool warn) {
  const shard_mesh *m = shard_conv_mesh_of(cx, c);
  const shard_tensor_sharding *s = c->sharding;
  if (!m) {
    shard_error(cx->de, c->span, "no mesh for the sharding (pass --mesh)");
    return NULL;
  }
  if (warn) {
    shard_conv_warn_shardy_only(cx, c, "HloSharding", false);

    if (c->partial_op)
      shard_warning(cx->de, c->span, "HloSharding has no %s reduction: Partial(\"%s\") written as unreduced",
                    c->partial_op, c->partial_op);
  }
  if (shard_mesh_is_maximal(m)) {
    shard_hlo_sharding *h = hlo_kind(cx, SHARD_HLO_MAXIMAL, c->span);
    h->device = m->device_ids[0];
    return h;
  }
  /* Cut every axis into the pieces the refs need (GetOrderedAxisRefs). */
  SHARD_VEC(mesh_piece) pieces = {0};
  for (uint32_t a = 0; a < m->num_axes; a++) {
    shard_axis_cuts cuts;
    shard_axis_cuts_init(&cuts, m->axes[a].name, m->axes[a].size);
    shard_sharding_add_cuts(&cuts, s);
    shard_axis_cuts_add(&cuts, c->manual, c->num_manual);
    uint32_t n = shard_axis_cuts_finish(&cuts);
    for (uint32_t k = 0; k < n; k++) {
      mesh_piece pc = {a, cuts.at[k], cuts.at[k + 1] / cuts.at[k], -1};
      if (pc.size > 1) SHARD_VEC_PUSH(pieces, pc);
    }
    shard_axis_cuts_free(&cuts);
  }
  int64_t next_pos = 0;
  uint32_t np = pieces.len;
  mesh_piece *ps = pieces.items;
  SHARD_VEC(int64_t) dims = {0};
  SHARD_VEC(int) types = {0};
  int64_t data_product = 1;
  for (uint32_t d = 0; d < s->rank; d++) {
    for (uint32_t k = 0; k < s->dims[d].num_axes; k++) place_ref(m, ps, np, &s->dims[d].axes[k], &next_pos);
    int64_t size = shard_axes_product(s->dims[d].axes, s->dims[d].num_axes, m);
    SHARD_VEC_PUSH(dims, size);
    data_product *= size;
  }
  const shard_axis_ref *groups[2] = {c->manual, s->unreduced};
  uint32_t group_n[2] = {c->num_manual, s->num_unreduced};
  int group_type[2] = {SHARD_SUBGROUP_MANUAL, SHARD_SUBGROUP_UNREDUCED};
  for (int g = 0; g < 2; g++) {
    if (!group_n[g]) continue;
    for (uint32_t k = 0; k < group_n[g]; k++) place_ref(m, ps, np, &groups[g][k], &next_pos);
    int64_t size = shard_axes_product(groups[g], group_n[g], m);
    if (size > 1) {
      SHARD_VEC_PUSH(dims, size);
      SHARD_VEC_PUSH(types, group_type[g]);
    }
  }
  int64_t replicated = 1;
  for (uint32_t i = 0; i < np; i++)
    if (ps[i].pos < 0) {
      ps[i].pos = next_pos++;
      replicated *= ps[i].size;
    }
  if (replicated > 1) {
    SHARD_VEC_PUSH(dims, replicated);
    SHARD_VEC_PUSH(types, SHARD_SUBGROUP_REPLICATED);
  }

  shard_hlo_sharding *h = NULL;
  bool all_same = types.len > 0;
  for (uint32_t i = 1; i < types.len; i++)
    if (types.items[i] != types.items[0]) all_same = false;
  if (data_product == 1 && (types.len == 0 || all_same)) {
    /* Subgroup's canonical forms: nothing tiled. */
    shard_hlo_kind k = SHARD_HLO_REPLICATED;
    if (types.len && types.items[0] == SHARD_SUBGROUP_MANUAL) k = SHARD_HLO_MANUAL;
    if (types.len && types.items[0] == SHARD_SUBGROUP_UNREDUCED) k = SHARD_HLO_UNREDUCED;
    h = hlo_kind(cx, k, c->span);
  } else {
    h = hlo_kind(cx, SHARD_HLO_TILED, c->span);
    h->num_dims = dims.len;
    h->num_types = types.len;
    SHARD_VEC_FREEZE(cx->arena, dims, h->dims);
    SHARD_VEC_FREEZE(cx->arena, types, h->types);
    h->last_tile_dim_replicate = h->num_types == 1 && h->types[0] == SHARD_SUBGROUP_REPLICATED;
    for (uint32_t i = 0; i < h->num_types; i++)
      if (h->types[i] == SHARD_SUBGROUP_UNREDUCED && !c->metadata) {
        /* XLA's Shardy export records the reduction of unreduced axes this way */
        static const char *const ops[] = {"SUM", "MAX", "MIN"};
        int r = s->reduction == SHARD_RED_MAX ? 1 : s->reduction == SHARD_RED_MIN ? 2 : 0;
        h->metadata = shard_arena_printf(cx->arena, "{op_type=\"sdy::reduction_op\" op_name=\"%s\"}", ops[r]);
      }
    /* reshape = pieces in mesh order; perm[pos] = piece index */
    h->num_reshape = np ? np : 1;
    h->reshape = SHARD_NEW_ARRAY(cx->arena, int64_t, h->num_reshape);
    h->perm = SHARD_NEW_ARRAY(cx->arena, int64_t, h->num_reshape);
    h->reshape[0] = 1;
    for (uint32_t i = 0; i < np; i++) {
      h->reshape[i] = ps[i].size;
      h->perm[ps[i].pos] = i;
    }
    if (m->device_ids) {
      /* Mesh positions in the transposed order, then the mesh's device ids. */
      int64_t total = shard_hlo_num_devices(h);
      int64_t *pos = shard_xmalloc(sizeof(int64_t) * (size_t)total);
      iota_expand(h->reshape, h->perm, h->num_reshape, total, pos);
      h->devices = SHARD_NEW_ARRAY(cx->arena, int64_t, total);
      for (int64_t i = 0; i < total; i++) h->devices[i] = m->device_ids[pos[i]];
      free(pos);
      /* an iota mesh order composes to an iota tile assignment where one
       * exists (XLA's TileAssignment transposes stay iota) */
      if (c->iota_device_ids) as_iota(cx, h, total);
    }
  }
  SHARD_VEC_FREE(dims);
  SHARD_VEC_FREE(types);
  SHARD_VEC_FREE(pieces);
  return h;
}

static shard_hlo_sharding *from_conv(shard_conv_ctx *cx, const shard_conv *c, bool warn);

shard_hlo_sharding *shard_hlo_from_conv(shard_conv_ctx *cx, const shard_conv *c, bool warn) {
  shard_hlo_sharding *h = from_conv(cx, c, warn);
  if (h && c->kind != SHARD_CONV_TUPLE && c->metadata) h->metadata = c->metadata;
  return h;
}

static shard_hlo_sharding *from_conv(shard_conv_ctx *cx, const shard_conv *c, bool warn) {
  shard_hlo_sharding *h;
  for (size_t i = 0; i < NUM_PLAIN_KINDS; i++)
    if (plain_kinds[i].conv == c->kind) {
      h = hlo_kind(cx, plain_kinds[i].hlo, c->span);
      if (c->kind == SHARD_CONV_MAXIMAL) h->device = c->device;
      return h;
    }
  switch (c->kind) {
  case SHARD_CONV_NAMED: return named_to_v2(cx, c, warn);
  case SHARD_CONV_TUPLE:
    h = hlo_kind(cx, SHARD_HLO_TUPLE, c->span);
    h->num_elems = c->num_elems;
    h->elems = SHARD_NEW_ARRAY(cx->arena, shard_hlo_sharding, c->num_elems + 1);
    for (uint32_t i = 0; i < c->num_elems; i++) {
      shard_hlo_sharding *e = shard_hlo_from_conv(cx, &c->elems[i], warn);
      if (!e) return NULL;
      h->elems[i] = *e;
    }
    return h;
  default: break; /* plain_kinds, above */
  }
  return NULL;
}

/* ---- V3 printing ---------------------------------------------------------------------------------------------- */

/* XLA's HloSharding printer writes axis names bare; Shardy's exporter
 * (stablehlo_export_pipeline) quotes them: mesh['x'=8], [{'x'}]. A name
 * that is no identifier is quoted either way; V3 strings have no escapes,
 * so the quote is the mark the name lacks. */
/* style: 0 quoted, 1 bare, 2 bare with invented names as XLA's V2 -> V3
 * conversion makes them (axis_N where the Shardy importer has _axis_N). */
static void print_v3_name(shard_buf *b, const char *name, int style) {
  bool v3_bare = style > 0;
  if (style == 2 && strncmp(name, "_axis_", 6) == 0) name++;
  bool bare = is_ident_start(name[0]);
  for (const char *q = name; *q && bare; q++)
    if (!is_ident_start(*q) && !(*q >= '0' && *q <= '9')) bare = false;
  if (bare && v3_bare) shard_buf_puts(b, name);
  else if (strchr(name, '\'')) shard_buf_printf(b, "\"%s\"", name);
  else shard_buf_printf(b, "'%s'", name);
}

/* A name holding both quote marks has no V3 spelling. */
static bool v3_mesh_names_ok(shard_conv_ctx *cx, const shard_conv *c, const shard_mesh *m) {
  return shard_conv_mesh_names_ok(cx, c, m, shard_conv_quotable, "HloSharding V3",
                                  "V3 strings have no escapes, and the name holds both ' and \"");
}

static void print_v3_axes(shard_buf *b, const shard_axis_ref *r, uint32_t n, bool open, int bare) {
  shard_buf_putc(b, '{');
  for (uint32_t i = 0; i < n; i++) {
    if (i) shard_buf_puts(b, ", ");
    print_v3_name(b, r[i].name, bare);
    if (r[i].is_sub) shard_buf_printf(b, ":(%lld)%lld", (long long)r[i].pre_size, (long long)r[i].size);
  }
  if (open) shard_buf_puts(b, n ? ", ?" : "?");
  shard_buf_putc(b, '}');
}

static void print_v3_mesh(shard_buf *b, const shard_mesh *m, int bare) {
  shard_buf_puts(b, "mesh[");
  for (uint32_t i = 0; i < m->num_axes; i++) {
    if (i) shard_buf_putc(b, ',');
    print_v3_name(b, m->axes[i].name, bare);
    shard_buf_printf(b, "=%lld", (long long)m->axes[i].size);
  }
  shard_buf_putc(b, ']');
  if (m->device_ids) {
    shard_buf_puts(b, ", device_ids=(");
    print_list(b, m->device_ids, m->num_device_ids);
    shard_buf_putc(b, ')');
  }
}

static void print_v3_metadata(shard_buf *b, const shard_conv *c) {
  if (c->metadata) shard_buf_printf(b, ", metadata=%s", c->metadata);
}

static bool print_v3(shard_conv_ctx *cx, shard_buf *b, const shard_conv *c) {
  const shard_mesh *m = shard_conv_mesh_of(cx, c);
  int style = cx->v3_bare ? (c->names_invented ? 2 : 1) : 0;
  switch (c->kind) {
  case SHARD_CONV_TUPLE: {
    shard_buf_putc(b, '{');
    bool ok = true;
    for (uint32_t i = 0; i < c->num_elems && ok; i++) {
      if (i) shard_buf_puts(b, ", ");
      ok = print_v3(cx, b, &c->elems[i]);
    }
    shard_buf_putc(b, '}');
    return ok;
  }
  case SHARD_CONV_MAXIMAL:
    shard_buf_printf(b, "{single_device[device_id=%lld]", (long long)c->device);
    print_v3_metadata(b, c);
    shard_buf_putc(b, '}');
    return true;
  case SHARD_CONV_UNKNOWN: shard_buf_puts(b, "{unknown}"); return true;
  case SHARD_CONV_REPLICATED:
  case SHARD_CONV_MANUAL:
  case SHARD_CONV_UNREDUCED: {
    const char *kw = c->kind == SHARD_CONV_REPLICATED ? "replicated"
                     : c->kind == SHARD_CONV_MANUAL   ? "manual"
                                                      : "unreduced";
    if (!m || (m->num_axes == 0 && !c->mesh)) {
      /* no mesh: the V2 keyword, metadata as V2 writes it */
      shard_buf_printf(b, "{%s", kw);
      if (c->metadata) shard_buf_printf(b, " metadata=%s", c->metadata);
      shard_buf_putc(b, '}');
      return true;
    }
    if (!v3_mesh_names_ok(cx, c, m)) return false;
    shard_buf_putc(b, '{');
    print_v3_mesh(b, m, style);
    shard_buf_printf(b, ", %s", kw);
    print_v3_metadata(b, c);
    shard_buf_putc(b, '}');
    return true;
  }
  case SHARD_CONV_NAMED: break;
  }
  if (!m) {
    shard_error(cx->de, c->span, "no mesh for the sharding (pass --mesh)");
    return false;
  }
  if (shard_mesh_is_maximal(m)) {
    shard_buf_printf(b, "{single_device[device_id=%lld]", (long long)m->device_ids[0]);
    print_v3_metadata(b, c);
    shard_buf_putc(b, '}');
    return true;
  }
  const shard_tensor_sharding *s = c->sharding;
  for (uint32_t d = 0; d < s->rank; d++)
    if (s->dims[d].priority != SHARD_NO_PRIORITY) {
      shard_warning(cx->de, c->span, "HloSharding V3 has no sharding priorities: dropped");
      break;
    }
  if (s->num_unreduced && s->reduction != SHARD_RED_SUM)
    shard_warning(cx->de, c->span, "HloSharding V3 text does not record the reduction (%s)",
                  shard_reduction_name(s->reduction));
  if (!v3_mesh_names_ok(cx, c, m)) return false;
  shard_buf_putc(b, '{');
  print_v3_mesh(b, m, style);
  if (s->rank == 0 && !s->num_replicated && !s->num_unreduced && !c->num_manual) {
    /* a rank-0 sharding with nothing else is written as the keyword */
    shard_buf_puts(b, ", replicated");
  } else {
    shard_buf_puts(b, ", [");
    for (uint32_t d = 0; d < s->rank; d++) {
      if (d) shard_buf_puts(b, ", ");
      print_v3_axes(b, s->dims[d].axes, s->dims[d].num_axes, s->dims[d].is_open, style);
    }
    shard_buf_putc(b, ']');
  }
  if (s->num_replicated) {
    shard_buf_puts(b, ", replicated=");
    print_v3_axes(b, s->replicated, s->num_replicated, false, style);
  }
  if (s->num_unreduced) {
    shard_buf_puts(b, ", unreduced=");
    print_v3_axes(b, s->unreduced, s->num_unreduced, false, style);
  }
  if (c->num_manual) {
    shard_buf_puts(b, ", manual=");
    print_v3_axes(b, c->manual, c->num_manual, false, style);
  }
  print_v3_metadata(b, c);
  shard_buf_putc(b, '}');
  return true;
}

bool shard_hlo_print_v3(shard_conv_ctx *cx, shard_buf *b, const shard_conv *c) { return print_v3(cx, b, c); }
