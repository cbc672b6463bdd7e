/* The conversion hub: notation names, the command-line mesh and shape
 * syntaxes, Shardy text in and out, structural validation, the two mesh
 * rewrites the other notations need (splitting sub-axes into axes; mapping
 * a device array onto a mesh), and device maps, the equivalence test every
 * round trip is checked with.
 *
 * Mapping a device array onto a mesh (shard_conv_from_device_array) is the
 * one algorithm everything from HloSharding goes through. For each mesh axis
 * we step its coordinate with the other coordinates at 0 and watch which
 * array dimension moves and by how much: a run of steps that moves one array
 * dimension by a constant stride is one (sub-)axis of that dimension. Each
 * array dimension must then be covered by its (sub-)axes as a mixed radix
 * (strides 1, s1, s1*s2, ...), and finally every device is recomputed from
 * the (sub-)axes and compared, so a mapping is only ever returned when it is
 * exact. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "convert/convert.h"
#include "ir/parse_internal.h"

/* ---- notations ------------------------------------------------------------------ */

static const struct {
  const char *name;
  shard_notation n;
} notation_names[] = {
    {"hlo", SHARD_NOTATION_HLO},         {"hlo-v2", SHARD_NOTATION_HLO},
    {"hlosharding", SHARD_NOTATION_HLO}, {"hlo-v3", SHARD_NOTATION_HLO_V3},
    {"v3", SHARD_NOTATION_HLO_V3},       {"shardy", SHARD_NOTATION_SHARDY},
    {"sdy", SHARD_NOTATION_SHARDY},      {"pspec", SHARD_NOTATION_PSPEC},
    {"jax", SHARD_NOTATION_PSPEC},       {"partitionspec", SHARD_NOTATION_PSPEC},
    {"dtensor", SHARD_NOTATION_DTENSOR}, {"torch", SHARD_NOTATION_DTENSOR},
    {"pytorch", SHARD_NOTATION_DTENSOR}, {"tf", SHARD_NOTATION_TF},
    {"tf-dtensor", SHARD_NOTATION_TF},   {"tensorflow", SHARD_NOTATION_TF},
    {"paddle", SHARD_NOTATION_PADDLE},   {"paddle-placements", SHARD_NOTATION_PADDLE_PLACEMENTS},
    {"oneflow", SHARD_NOTATION_ONEFLOW}, {"oneflow-python", SHARD_NOTATION_ONEFLOW_PYTHON},
};

bool shard_notation_from_name(const char *name, shard_notation *out) {
  for (size_t i = 0; i < sizeof notation_names / sizeof notation_names[0]; i++)
    if (strcmp(notation_names[i].name, name) == 0) {
      *out = notation_names[i].n;
      return true;
    }
  return false;
}

const char *shard_notation_name(shard_notation n) {
  switch (n) {
  case SHARD_NOTATION_HLO: return "hlo";
  case SHARD_NOTATION_HLO_V3: return "hlo-v3";
  case SHARD_NOTATION_SHARDY: return "shardy";
  case SHARD_NOTATION_PSPEC: return "pspec";
  case SHARD_NOTATION_DTENSOR: return "dtensor";
  case SHARD_NOTATION_TF: return "tf";
  case SHARD_NOTATION_PADDLE: return "paddle";
  case SHARD_NOTATION_PADDLE_PLACEMENTS: return "paddle-placements";
  case SHARD_NOTATION_ONEFLOW: return "oneflow";
  case SHARD_NOTATION_ONEFLOW_PYTHON: return "oneflow-python";
  }
  return "?";
}

shard_split_rule shard_notation_split(shard_notation n) {
  switch (n) {
  case SHARD_NOTATION_DTENSOR: return SHARD_SPLIT_CHUNKED;
  case SHARD_NOTATION_ONEFLOW:
  case SHARD_NOTATION_ONEFLOW_PYTHON: return SHARD_SPLIT_BALANCED;
  default: return SHARD_SPLIT_PADDED;
  }
}

static bool starts(const char *s, const char *w) { return strncmp(s, w, strlen(w)) == 0; }

bool shard_notation_guess(const char *text, shard_notation *out) {
  const char *s = text;
  while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r') s++;
  if (starts(s, "mesh_shape") || starts(s, "{process_mesh") || starts(s, "dims_mapping")) *out = SHARD_NOTATION_PADDLE;
  else if (*s == '{') *out = SHARD_NOTATION_HLO;
  else if (starts(s, "sharding_specs:")) *out = SHARD_NOTATION_TF;
  else if (strstr(s, "reduce_type=") || strstr(s, "Replicated()")) *out = SHARD_NOTATION_PADDLE_PLACEMENTS;
  else if (strstr(s, "sbp.") || starts(s, "(B") || starts(s, "(S(") || starts(s, "S(") || starts(s, "B,"))
    *out = SHARD_NOTATION_ONEFLOW;
  else if (starts(s, "P(") || starts(s, "PartitionSpec(") || starts(s, "P (")) *out = SHARD_NOTATION_PSPEC;
  else if (*s == '[' || *s == '(') {
    /* A list of placements, unless it is a list of Shardy shardings. */
    const char *q = s + 1;
    while (*q == ' ' || *q == '\n') q++;
    *out = (*q == '<' || starts(q, "#sdy")) ? SHARD_NOTATION_SHARDY : SHARD_NOTATION_DTENSOR;
  } else if (*s == '#' || *s == '<' || *s == '@' || starts(s, "sharding") || starts(s, "sdy.") || starts(s, "mesh"))
    *out = SHARD_NOTATION_SHARDY;
  else return false;
  return true;
}

/* ---- hub construction -------------------------------------------------------------- */

void shard_conv_ctx_init(shard_conv_ctx *cx, shard_arena *arena, shard_diag_engine *de) {
  memset(cx, 0, sizeof *cx);
  cx->arena = arena;
  cx->de = de;
  cx->rank = -1;
}

shard_conv *shard_conv_new(shard_conv_ctx *cx, shard_conv_kind kind, shard_span span) {
  shard_conv *c = SHARD_NEW(cx->arena, shard_conv);
  c->kind = kind;
  c->span = span;
  return c;
}

shard_conv *shard_conv_new_named(shard_conv_ctx *cx, shard_mesh *mesh, uint32_t rank, shard_span span) {
  shard_conv *c = shard_conv_new(cx, SHARD_CONV_NAMED, span);
  c->mesh = mesh;
  c->sharding = SHARD_NEW(cx->arena, shard_tensor_sharding);
  c->sharding->rank = rank;
  c->sharding->dims = SHARD_NEW_ARRAY(cx->arena, shard_dim_sharding, rank ? rank : 1);
  for (uint32_t d = 0; d < rank; d++) c->sharding->dims[d].priority = SHARD_NO_PRIORITY;
  c->sharding->span = span;
  return c;
}

shard_mesh *shard_conv_mesh_new(shard_conv_ctx *cx, uint32_t num_axes, const char *const *names, const int64_t *sizes,
                                const int64_t *device_ids) {
  shard_mesh *m = SHARD_NEW(cx->arena, shard_mesh);
  m->num_axes = num_axes;
  m->axes = SHARD_NEW_ARRAY(cx->arena, shard_mesh_axis, num_axes ? num_axes : 1);
  int64_t n = 1;
  for (uint32_t i = 0; i < num_axes; i++) {
    m->axes[i].name = shard_arena_strdup(cx->arena, names[i]);
    m->axes[i].size = sizes[i];
    n *= sizes[i];
  }
  if (device_ids) {
    m->num_device_ids = (uint32_t)n;
    m->device_ids = shard_arena_dup(cx->arena, device_ids, sizeof(int64_t) * (size_t)n);
    shard_mesh_canonicalize(m);
  }
  return m;
}

const shard_mesh *shard_conv_mesh_of(const shard_conv_ctx *cx, const shard_conv *c) {
  return c->mesh ? c->mesh : cx->mesh;
}

/* ---- a stand-alone MLIR parser over a string ----------------------------------------------- */

static void sdy_parser_init(shard_parser *p, shard_conv_ctx *cx, const shard_source *src, uint32_t pos) {
  memset(p, 0, sizeof *p);
  shard_lexer_init(&p->lx, src, pos);
  p->arena = cx->arena;
  p->de = cx->de;
  p->max_depth = 64;
}

static bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

/* ---- the Python-like tokenizer --------------------------------------------------------------- */

void shard_pylex_init(shard_pylex *lx, shard_conv_ctx *cx, const shard_source *src) {
  memset(lx, 0, sizeof *lx);
  lx->cx = cx;
  lx->src = src;
}

static shard_pytok pylex_scan(shard_pylex *lx) {
  const char *t = lx->src->text;
  uint32_t i = lx->pos, n = (uint32_t)lx->src->len;
  while (i < n && is_space(t[i])) i++;
  shard_pytok k = {SHARD_PYTOK_EOF, i, 0, 0, false};
  if (i >= n) {
    lx->pos = i;
    return k;
  }
  char c = t[i];
  if ((c >= '0' && c <= '9') || (c == '-' && i + 1 < n && t[i + 1] >= '0' && t[i + 1] <= '9')) {
    uint32_t j = i + (c == '-');
    int64_t v = 0;
    while (j < n && t[j] >= '0' && t[j] <= '9') {
      int d = t[j] - '0';
      if (v > (INT64_MAX - d) / 10) k.overflow = true;
      else v = v * 10 + d;
      j++;
    }
    k.kind = SHARD_PYTOK_INT;
    k.value = c == '-' ? -v : v;
    k.len = j - i;
  } else if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_') {
    uint32_t j = i + 1;
    while (j < n && ((t[j] >= 'a' && t[j] <= 'z') || (t[j] >= 'A' && t[j] <= 'Z') || (t[j] >= '0' && t[j] <= '9') ||
                     t[j] == '_' || t[j] == '.'))
      j++;
    k.kind = SHARD_PYTOK_IDENT;
    k.len = j - i;
  } else if (c == '\'' || c == '"') {
    uint32_t j = i + 1;
    while (j < n && t[j] != c) j++;
    if (j >= n) {
      k.kind = SHARD_PYTOK_ERROR;
      k.len = 1;
    } else {
      k.kind = SHARD_PYTOK_STRING;
      k.off = i + 1;
      k.len = j - i - 1;
      lx->pos = j + 1;
      return k;
    }
  } else if (strchr("()[]{},=:*", c)) {
    k.kind = SHARD_PYTOK_PUNCT;
    k.len = 1;
  } else {
    k.kind = SHARD_PYTOK_ERROR;
    k.len = 1;
  }
  lx->pos = i + k.len;
  return k;
}

shard_pytok shard_pylex_peek(shard_pylex *lx) {
  if (!lx->has_tok) {
    lx->tok = pylex_scan(lx);
    lx->has_tok = true;
  }
  return lx->tok;
}

shard_pytok shard_pylex_next(shard_pylex *lx) {
  shard_pytok t = shard_pylex_peek(lx);
  lx->has_tok = false;
  return t;
}

bool shard_pylex_is(const shard_pylex *lx, const shard_pytok *t, const char *text) {
  size_t n = strlen(text);
  return t->kind != SHARD_PYTOK_STRING && t->len == n && memcmp(lx->src->text + t->off, text, n) == 0;
}

bool shard_pylex_accept(shard_pylex *lx, const char *text) {
  shard_pytok t = shard_pylex_peek(lx);
  if (!shard_pylex_is(lx, &t, text)) return false;
  shard_pylex_next(lx);
  return true;
}

bool shard_pylex_error(shard_pylex *lx, const shard_pytok *t, const char *fmt, ...) {
  if (lx->failed) return false;
  lx->failed = true;
  uint32_t off = t->off, len = t->len ? t->len : 1;
  if (t->kind == SHARD_PYTOK_STRING) {
    off--;
    len += 2;
  }
  shard_span sp = {lx->src, off, len};
  va_list ap;
  va_start(ap, fmt);
  shard_diag_vemit(lx->cx->de, SHARD_ERROR, sp, fmt, ap);
  va_end(ap);
  return false;
}

bool shard_pylex_expect(shard_pylex *lx, const char *text) {
  if (shard_pylex_accept(lx, text)) return true;
  shard_pytok t = shard_pylex_peek(lx);
  if (t.kind == SHARD_PYTOK_EOF) return shard_pylex_error(lx, &t, "expected '%s' at the end", text);
  return shard_pylex_error(lx, &t, "expected '%s'", text);
}

bool shard_pylex_list(shard_pylex *lx, const char *close, shard_pylex_elem_fn elem, void *ctx) {
  while (!shard_pylex_accept(lx, close)) {
    if (!elem(lx, ctx)) return false;
    if (!shard_pylex_accept(lx, ",")) return shard_pylex_expect(lx, close);
  }
  return true;
}

bool shard_pylex_end(shard_pylex *lx, const char *what) {
  shard_pytok t = shard_pylex_peek(lx);
  return t.kind == SHARD_PYTOK_EOF || shard_pylex_error(lx, &t, "unexpected text after %s", what);
}

const char *shard_pylex_text(shard_pylex *lx, const shard_pytok *t) {
  return shard_arena_strndup(lx->cx->arena, lx->src->text + t->off, t->len);
}

/* ---- meshes and shapes from the command line ---------------------------------------------- */

static bool mesh_error(shard_conv_ctx *cx, const shard_source *src, uint32_t off, const char *msg) {
  shard_span sp = {src, off, 1};
  shard_error(cx->de, sp, "%s", msg);
  return false;
}

/* After a list element: skips spaces, then steps past a ',' and says whether
 * there was one (another element follows). */
static bool list_comma(const char *t, uint32_t len, uint32_t *i) {
  while (*i < len && is_space(t[*i])) (*i)++;
  if (*i < len && t[*i] == ',') {
    (*i)++;
    return true;
  }
  return false;
}

/* device-ids ::= 'device_ids' '=' '[' int (',' int)* ']' */
static bool parse_device_ids(shard_conv_ctx *cx, const shard_source *src, uint32_t *pos, int64_t **ids, uint32_t *n) {
  const char *t = src->text;
  uint32_t i = *pos, len = (uint32_t)src->len;
  SHARD_VEC(int64_t) v = {0};
  while (i < len && is_space(t[i])) i++;
  if (strncmp(t + i, "device_ids", 10) != 0) return mesh_error(cx, src, i, "expected 'device_ids='");
  i += 10;
  while (i < len && is_space(t[i])) i++;
  if (i >= len || t[i] != '=') return mesh_error(cx, src, i, "expected '='");
  i++;
  while (i < len && is_space(t[i])) i++;
  if (i >= len || t[i] != '[') return mesh_error(cx, src, i, "expected '['");
  i++;
  for (;;) {
    while (i < len && is_space(t[i])) i++;
    if (i < len && t[i] == ']' && v.len == 0) break;
    if (i >= len || t[i] < '0' || t[i] > '9') {
      SHARD_VEC_FREE(v);
      return mesh_error(cx, src, i, "expected a device id");
    }
    int64_t x = 0;
    while (i < len && t[i] >= '0' && t[i] <= '9') {
      if (x > (INT64_MAX - 9) / 10) {
        SHARD_VEC_FREE(v);
        return mesh_error(cx, src, i, "device id out of range");
      }
      x = x * 10 + (t[i++] - '0');
    }
    SHARD_VEC_PUSH(v, x);
    if (!list_comma(t, len, &i)) break;
  }
  if (i >= len || t[i] != ']') {
    SHARD_VEC_FREE(v);
    return mesh_error(cx, src, i, "expected ']'");
  }
  *pos = i + 1;
  *n = v.len;
  SHARD_VEC_FREEZE(cx->arena, v, *ids);
  return true;
}

/* dict-mesh   ::= '{' (quoted-name ':' int (',' quoted-name ':' int)*)? ','? '}'
 * simple-mesh ::= name '=' int (',' name '=' int)*
 * both optionally followed by (','? device-ids). */
static shard_mesh *parse_simple_mesh(shard_conv_ctx *cx, const shard_source *src, uint32_t i) {
  const char *t = src->text;
  uint32_t len = (uint32_t)src->len;
  bool dict = t[i] == '{';
  if (dict) i++;
  SHARD_VEC(shard_mesh_axis) axes = {0};
  for (;;) {
    while (i < len && is_space(t[i])) i++;
    if (dict && i < len && t[i] == '}') break;
    if (!dict && (i >= len || strncmp(t + i, "device_ids", 10) == 0)) break;
    uint32_t name_start, name_end;
    bool quoted = i < len && (t[i] == '\'' || t[i] == '"');
    if (quoted) {
      char q = t[i++];
      name_start = i;
      while (i < len && t[i] != q) i++;
      if (i >= len) {
        SHARD_VEC_FREE(axes);
        mesh_error(cx, src, name_start - 1, "unterminated axis name");
        return NULL;
      }
      name_end = i++;
    } else {
      name_start = i;
      while (i < len && (t[i] == '_' || (t[i] >= 'a' && t[i] <= 'z') || (t[i] >= 'A' && t[i] <= 'Z') ||
                         (t[i] >= '0' && t[i] <= '9')))
        i++;
      name_end = i;
    }
    if (name_end == name_start && !quoted) { /* '' is a name, as in Shardy's <[""=4]> */
      SHARD_VEC_FREE(axes);
      mesh_error(cx, src, i, "expected a mesh axis name");
      return NULL;
    }
    while (i < len && is_space(t[i])) i++;
    char sep = dict ? ':' : '=';
    if (i >= len || (t[i] != sep && t[i] != '=' && t[i] != ':')) {
      SHARD_VEC_FREE(axes);
      mesh_error(cx, src, i, dict ? "expected ':' after the axis name" : "expected '=' after the axis name");
      return NULL;
    }
    i++;
    while (i < len && is_space(t[i])) i++;
    if (i >= len || t[i] < '0' || t[i] > '9') {
      SHARD_VEC_FREE(axes);
      mesh_error(cx, src, i, "expected the axis size");
      return NULL;
    }
    int64_t size = 0;
    while (i < len && t[i] >= '0' && t[i] <= '9') {
      if (size > (INT64_MAX - 9) / 10) {
        SHARD_VEC_FREE(axes);
        mesh_error(cx, src, i, "axis size out of range");
        return NULL;
      }
      size = size * 10 + (t[i++] - '0');
    }
    if (size < 1) {
      SHARD_VEC_FREE(axes);
      mesh_error(cx, src, i - 1, "mesh axis size must be at least 1");
      return NULL;
    }
    shard_mesh_axis ax = {shard_arena_strndup(cx->arena, t + name_start, name_end - name_start), size};
    for (uint32_t k = 0; k < axes.len; k++)
      if (strcmp(axes.items[k].name, ax.name) == 0) {
        SHARD_VEC_FREE(axes);
        mesh_error(cx, src, name_start, "duplicate mesh axis name");
        return NULL;
      }
    SHARD_VEC_PUSH(axes, ax);
    if (!list_comma(t, len, &i)) break;
  }
  if (dict) {
    while (i < len && is_space(t[i])) i++;
    if (i >= len || t[i] != '}') {
      SHARD_VEC_FREE(axes);
      mesh_error(cx, src, i, "expected '}' to close the mesh");
      return NULL;
    }
    i++;
  }
  shard_mesh *m = SHARD_NEW(cx->arena, shard_mesh);
  m->num_axes = axes.len;
  SHARD_VEC_FREEZE(cx->arena, axes, m->axes);
  while (i < len && (is_space(t[i]) || t[i] == ',')) i++;
  if (i < len) {
    if (!parse_device_ids(cx, src, &i, &m->device_ids, &m->num_device_ids)) return NULL;
    while (i < len && is_space(t[i])) i++;
    if (i < len) {
      mesh_error(cx, src, i, "unexpected text after the mesh");
      return NULL;
    }
  }
  shard_mesh_canonicalize(m);
  shard_span sp = {src, 0, (uint32_t)src->len};
  m->span = sp;
  return m;
}

static bool check_mesh(shard_conv_ctx *cx, const shard_mesh *m) {
  int64_t n = 1;
  for (uint32_t i = 0; i < m->num_axes; i++)
    for (uint32_t j = 0; j < i; j++)
      if (strcmp(m->axes[i].name, m->axes[j].name) == 0) {
        shard_error(cx->de, m->span, "mesh axis \"%s\" is defined twice", m->axes[i].name);
        return false;
      }
  for (uint32_t i = 0; i < m->num_axes; i++) {
    if (m->axes[i].size < 1) {
      shard_error(cx->de, m->span, "mesh axis \"%s\" has size %lld; sizes must be at least 1", m->axes[i].name,
                  (long long)m->axes[i].size);
      return false;
    }
    if (__builtin_mul_overflow(n, m->axes[i].size, &n) || n > SHARD_CONV_MAX_DEVICES) {
      shard_error(cx->de, m->span, "mesh is too large (more than %d devices)", SHARD_CONV_MAX_DEVICES);
      return false;
    }
  }
  if (m->device_ids && m->num_axes == 0 && m->num_device_ids == 1 &&
      (m->device_ids[0] < 0 || m->device_ids[0] >= SHARD_CONV_MAX_DEVICES)) {
    shard_error(cx->de, m->span, "device id must be between 0 and %d", SHARD_CONV_MAX_DEVICES - 1);
    return false;
  }
  if (m->device_ids && !(m->num_axes == 0 && m->num_device_ids == 1)) {
    if ((int64_t)m->num_device_ids != n) {
      shard_error(cx->de, m->span, "mesh has %lld devices but %u device ids", (long long)n, m->num_device_ids);
      return false;
    }
    bool *seen = shard_xcalloc((size_t)n, 1);
    for (uint32_t i = 0; i < m->num_device_ids; i++) {
      int64_t d = m->device_ids[i];
      if (d < 0 || d >= n || seen[d]) {
        free(seen);
        shard_error(cx->de, m->span, "mesh device ids must be a permutation of 0..%lld", (long long)n - 1);
        return false;
      }
      seen[d] = true;
    }
    free(seen);
  }
  return true;
}

shard_mesh *shard_conv_parse_mesh(shard_conv_ctx *cx, const shard_source *src) {
  const char *t = src->text;
  uint32_t i = 0, len = (uint32_t)src->len;
  while (i < len && is_space(t[i])) i++;
  shard_mesh *m = NULL;
  if (shard_hierarchy_mesh_detect(t + i)) {
    m = shard_hierarchy_mesh_parse(cx, src, i); /* Paddle ProcessMesh, OneFlow placement, 2x2 */
  } else if (i < len && (t[i] == '{' || (t[i] != '<' && t[i] != '@' && t[i] != '#' && strncmp(t + i, "mesh", 4) != 0 &&
                                         strncmp(t + i, "sdy.", 4) != 0))) {
    m = parse_simple_mesh(cx, src, i);
  } else {
    shard_parser p;
    sdy_parser_init(&p, cx, src, i);
    shard_tok tk = shard_parser_peek(&p);
    if (tk.kind == SHARD_TOK_IDENT && (shard_tok_is(&tk, "sdy.mesh") || shard_tok_is(&tk, "mesh"))) {
      shard_parser_next(&p);
      tk = shard_parser_peek(&p);
    }
    if (tk.kind == SHARD_TOK_HASH && shard_tok_is(&tk, "#sdy.mesh")) {
      shard_parser_next(&p);
      tk = shard_parser_peek(&p);
    }
    if (tk.kind == SHARD_TOK_AT) {
      shard_parser_next(&p);
      if (!shard_parser_expect(&p, "=")) return NULL;
      tk = shard_parser_peek(&p);
      if (tk.kind == SHARD_TOK_HASH && shard_tok_is(&tk, "#sdy.mesh")) shard_parser_next(&p);
    }
    if (!shard_parse_sdy_mesh_body(&p, &m)) return NULL;
    if (shard_parser_peek(&p).kind != SHARD_TOK_EOF) {
      shard_parser_error(&p, "unexpected text after the mesh");
      return NULL;
    }
  }
  if (!m || !check_mesh(cx, m)) return NULL;
  return m;
}

int32_t shard_conv_parse_shape(const char *text, int64_t **dims, shard_buf *err) {
  SHARD_VEC(int64_t) v = {0};
  const char *s = text;
  while (is_space(*s)) s++;
  bool tensor_form = starts(s, "tensor<");
  if (tensor_form) s += 7;
  else {
    /* f32[8,16]{1,0}: skip the element type */
    const char *b = strchr(s, '[');
    if (b && b != s) {
      bool ident = true;
      for (const char *q = s; q < b; q++)
        if (!((*q >= 'a' && *q <= 'z') || (*q >= '0' && *q <= '9'))) ident = false;
      if (ident) s = b;
    }
  }
  if (*s == '[' || *s == '(') s++;
  if (strcmp(s, "scalar") == 0) {
    *dims = NULL;
    return 0;
  }
  for (;;) {
    while (is_space(*s)) s++;
    if (*s < '0' || *s > '9') break;
    int64_t x = 0;
    while (*s >= '0' && *s <= '9') {
      if (x > (INT64_MAX - 9) / 10) {
        shard_buf_printf(err, "dimension size out of range in '%s'", text);
        SHARD_VEC_FREE(v);
        return -1;
      }
      x = x * 10 + (*s++ - '0');
    }
    SHARD_VEC_PUSH(v, x);
    while (is_space(*s)) s++;
    if (*s == 'x' || *s == ',' || *s == '*') {
      s++;
      continue;
    }
    break;
  }
  /* What may follow: the element type of tensor<8xf32>, or a closing
   * bracket and an HLO layout {1,0}. */
  bool bad;
  if (tensor_form) {
    while ((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9')) s++;
    bad = *s != '>';
  } else {
    if (*s == ']' || *s == ')') s++;
    while (is_space(*s)) s++;
    bad = *s && *s != '{';
  }
  if (bad) {
    shard_buf_printf(err, "cannot read the shape '%s' (write it as 8x16, [8,16] or tensor<8x16xf32>)", text);
    SHARD_VEC_FREE(v);
    return -1;
  }
  int32_t rank = (int32_t)v.len;
  *dims = v.items; /* heap; the caller frees */
  return rank;
}

/* ---- validation --------------------------------------------------------------------------- */

typedef struct ref_use {
  const shard_axis_ref *ref;
  const char *where;
} ref_use;

static bool check_ref(shard_conv_ctx *cx, const shard_conv *c, const shard_mesh *m, const shard_axis_ref *r) {
  int64_t n = shard_mesh_axis_size(m, r->name);
  if (n < 0) {
    shard_error(cx->de, c->span, "unknown axis name \"%s\" (the mesh has no such axis)", r->name);
    return false;
  }
  if (r->is_sub) {
    int64_t end;
    if (r->pre_size < 1 || r->size <= 1 || __builtin_mul_overflow(r->pre_size, r->size, &end) || n % end != 0 ||
        r->size >= n) {
      shard_error(cx->de, c->span, "sub-axis \"%s\":(%lld)%lld does not fit axis \"%s\" of size %lld", r->name,
                  (long long)r->pre_size, (long long)r->size, r->name, (long long)n);
      return false;
    }
  }
  return true;
}

bool shard_conv_validate(shard_conv_ctx *cx, const shard_conv *c) {
  if (c->kind == SHARD_CONV_TUPLE) {
    /* --shape is one tensor's, not every leaf's (HloSharding::Validate
     * does not check tuple elements against it either). */
    bool ok = true;
    int32_t rank = cx->rank;
    cx->rank = -1;
    for (uint32_t i = 0; i < c->num_elems; i++) ok &= shard_conv_validate(cx, &c->elems[i]);
    cx->rank = rank;
    return ok;
  }
  if (c->kind != SHARD_CONV_NAMED) return true;
  const shard_mesh *m = shard_conv_mesh_of(cx, c);
  if (!m) {
    shard_error(cx->de, c->span, "no mesh for the sharding (pass --mesh)");
    return false;
  }
  if (!check_mesh(cx, m)) return false;
  SHARD_VEC(ref_use) uses = {0};
  const shard_tensor_sharding *s = c->sharding;
  for (uint32_t d = 0; d < s->rank; d++)
    for (uint32_t k = 0; k < s->dims[d].num_axes; k++) {
      ref_use u = {&s->dims[d].axes[k], "a dimension"};
      SHARD_VEC_PUSH(uses, u);
    }
  for (uint32_t k = 0; k < s->num_replicated; k++) {
    ref_use u = {&s->replicated[k], "replicated"};
    SHARD_VEC_PUSH(uses, u);
  }
  for (uint32_t k = 0; k < s->num_unreduced; k++) {
    ref_use u = {&s->unreduced[k], "unreduced"};
    SHARD_VEC_PUSH(uses, u);
  }
  for (uint32_t k = 0; k < c->num_manual; k++) {
    ref_use u = {&c->manual[k], "manual"};
    SHARD_VEC_PUSH(uses, u);
  }
  bool ok = true;
  for (uint32_t i = 0; i < uses.len && ok; i++) ok = check_ref(cx, c, m, uses.items[i].ref);
  for (uint32_t i = 0; i < uses.len && ok; i++)
    for (uint32_t j = i + 1; j < uses.len && ok; j++)
      if (shard_axis_overlaps(uses.items[i].ref, uses.items[j].ref, m)) {
        shard_buf a;
        shard_buf_init(&a);
        shard_axis_print(&a, uses.items[j].ref);
        shard_error(cx->de, c->span, "axis %s is used twice (overlaps an axis used in %s)", shard_buf_str(&a),
                    uses.items[i].where);
        shard_buf_free(&a);
        ok = false;
      }
  SHARD_VEC_FREE(uses);
  if (ok && cx->rank >= 0 && (uint32_t)cx->rank != s->rank && !shard_mesh_is_maximal(m)) {
    shard_error(cx->de, c->span, "the sharding has %u dimensions but the shape has rank %d", s->rank, cx->rank);
    ok = false;
  }
  return ok;
}

/* ---- splitting sub-axes into axes ----------------------------------------------------------- */

/* Replaces every ref by the full new axes of its pieces; `first_new[a]` is
 * the new index of axis a's first piece. */
static void split_refs(shard_conv_ctx *cx, const shard_mesh *nm, const shard_axis_cuts *cuts, const uint32_t *first_new,
                       const shard_mesh *old, const shard_axis_ref *in, uint32_t n, shard_axis_ref **out,
                       uint32_t *out_n) {
  SHARD_VEC(shard_axis_ref) v = {0};
  for (uint32_t i = 0; i < n; i++) {
    int a = shard_mesh_axis_index(old, in[i].name);
    if (a < 0 || (uint32_t)a >= old->num_axes) continue;
    for (uint32_t k = 0; k + 1 < cuts[a].n; k++)
      if (shard_axis_cuts_piece_in(&cuts[a], k, &in[i])) {
        shard_axis_ref r = {nm->axes[first_new[a] + k].name, false, 0, 0};
        SHARD_VEC_PUSH(v, r);
      }
  }
  *out_n = v.len;
  SHARD_VEC_FREEZE(cx->arena, v, *out);
}

static void free_cuts(shard_axis_cuts *cuts, uint32_t *first_new, uint32_t n) {
  for (uint32_t a = 0; a < n; a++) shard_axis_cuts_free(&cuts[a]);
  free(cuts);
  free(first_new);
}

shard_conv *shard_conv_split_sub_axes(shard_conv_ctx *cx, const shard_conv *c, bool *changed) {
  *changed = false;
  if (c->kind != SHARD_CONV_NAMED) return (shard_conv *)c;
  const shard_mesh *m = shard_conv_mesh_of(cx, c);
  if (!m) return (shard_conv *)c;
  /* The boundaries at which some ref cuts each axis: the pieces between
   * them become the axes of the new mesh. */
  shard_axis_cuts *cuts = shard_xcalloc(m->num_axes ? m->num_axes : 1, sizeof *cuts);
  uint32_t *first_new = shard_xcalloc(m->num_axes ? m->num_axes : 1, sizeof *first_new);
  uint32_t total = 0;
  for (uint32_t a = 0; a < m->num_axes; a++) {
    shard_axis_cuts_init(&cuts[a], m->axes[a].name, m->axes[a].size);
    shard_sharding_add_cuts(&cuts[a], c->sharding);
    shard_axis_cuts_add(&cuts[a], c->manual, c->num_manual);
    uint32_t pieces = shard_axis_cuts_finish(&cuts[a]);
    first_new[a] = total;
    total += pieces;
    if (pieces > 1) *changed = true;
  }
  if (!*changed) {
    free_cuts(cuts, first_new, m->num_axes);
    return (shard_conv *)c;
  }
  shard_mesh *nm = SHARD_NEW(cx->arena, shard_mesh);
  nm->num_axes = total;
  nm->axes = SHARD_NEW_ARRAY(cx->arena, shard_mesh_axis, total);
  for (uint32_t a = 0; a < m->num_axes; a++) {
    uint32_t pieces = cuts[a].n - 1;
    for (uint32_t k = 0; k < pieces; k++) {
      shard_mesh_axis *ax = &nm->axes[first_new[a] + k];
      ax->name = pieces == 1 ? m->axes[a].name : shard_arena_printf(cx->arena, "%s_%u", m->axes[a].name, k);
      ax->size = pieces == 1 ? m->axes[a].size : shard_axis_cuts_piece(&cuts[a], k).size;
    }
  }
  /* a made-up name may be taken ("y" split beside an axis "y_0"): it grows
   * a '_' until no other axis has it */
  for (uint32_t a = 0; a < m->num_axes; a++) {
    if (cuts[a].n - 1 == 1) continue;
    for (uint32_t k = 0; k < cuts[a].n - 1; k++) {
      shard_mesh_axis *ax = &nm->axes[first_new[a] + k];
      for (uint32_t o = 0; o < total; o++)
        if (o != first_new[a] + k && strcmp(nm->axes[o].name, ax->name) == 0) {
          ax->name = shard_arena_printf(cx->arena, "%s_", ax->name);
          o = (uint32_t)-1; /* check every axis again */
        }
    }
  }
  nm->device_ids = m->device_ids;
  nm->num_device_ids = m->num_device_ids;
  shard_conv *out = shard_conv_new_named(cx, nm, c->sharding->rank, c->span);
  *out->sharding = *c->sharding;
  out->sharding->dims = SHARD_NEW_ARRAY(cx->arena, shard_dim_sharding, c->sharding->rank + 1);
  for (uint32_t d = 0; d < c->sharding->rank; d++) {
    out->sharding->dims[d] = c->sharding->dims[d];
    split_refs(cx, nm, cuts, first_new, m, c->sharding->dims[d].axes, c->sharding->dims[d].num_axes,
               &out->sharding->dims[d].axes, &out->sharding->dims[d].num_axes);
  }
  split_refs(cx, nm, cuts, first_new, m, c->sharding->replicated, c->sharding->num_replicated,
             &out->sharding->replicated, &out->sharding->num_replicated);
  split_refs(cx, nm, cuts, first_new, m, c->sharding->unreduced, c->sharding->num_unreduced, &out->sharding->unreduced,
             &out->sharding->num_unreduced);
  split_refs(cx, nm, cuts, first_new, m, c->manual, c->num_manual, &out->manual, &out->num_manual);
  out->names_invented = c->names_invented;
  out->partial_op = c->partial_op;
  out->mesh_name = c->mesh_name;
  free_cuts(cuts, first_new, m->num_axes);
  return out;
}

/* ---- mapping a device array onto a mesh ------------------------------------------------------ */

typedef struct piece {
  uint32_t axis;
  int64_t pre, size; /* sub-axis of the mesh axis */
  uint32_t dim; /* array dimension it moves */
  int64_t stride; /* in that dimension */
} piece;

static void unravel(int64_t lin, const int64_t *dims, uint32_t n, int64_t *out) {
  for (uint32_t i = n; i-- > 0;) {
    out[i] = lin % dims[i];
    lin /= dims[i];
  }
}

static int cmp_piece_stride(const void *a, const void *b) {
  const piece *x = a, *y = b;
  return x->stride < y->stride ? -1 : x->stride > y->stride;
}

static int cmp_piece_mesh(const void *a, const void *b) {
  const piece *x = a, *y = b;
  if (x->axis != y->axis) return x->axis < y->axis ? -1 : 1;
  return x->pre < y->pre ? -1 : x->pre > y->pre;
}

static shard_axis_ref piece_ref(const shard_mesh *m, const piece *p) {
  shard_axis_ref r = {m->axes[p->axis].name, false, 0, 0};
  if (p->size != m->axes[p->axis].size) {
    r.is_sub = true;
    r.pre_size = p->pre;
    r.size = p->size;
  }
  return r;
}

/* A subgroup's pieces as a sorted axis list with contiguous pieces merged. */
static void pieces_to_set(shard_conv_ctx *cx, const shard_mesh *m, piece *ps, uint32_t n, shard_axis_ref **out,
                          uint32_t *out_n) {
  qsort(ps, n, sizeof *ps, cmp_piece_mesh);
  SHARD_VEC(piece) merged = {0};
  for (uint32_t i = 0; i < n; i++) {
    if (merged.len) {
      piece *last = &merged.items[merged.len - 1];
      if (last->axis == ps[i].axis && ps[i].pre == last->pre * last->size) {
        last->size *= ps[i].size;
        continue;
      }
    }
    SHARD_VEC_PUSH(merged, ps[i]);
  }
  shard_axis_ref *refs = SHARD_NEW_ARRAY(cx->arena, shard_axis_ref, merged.len ? merged.len : 1);
  for (uint32_t i = 0; i < merged.len; i++) refs[i] = piece_ref(m, &merged.items[i]);
  *out = merged.len ? refs : NULL;
  *out_n = merged.len;
  SHARD_VEC_FREE(merged);
}

shard_conv *shard_conv_from_device_array(shard_conv_ctx *cx, const shard_mesh *mesh, const int64_t *dims,
                                         uint32_t num_dims, uint32_t rank, const int *types, bool explicit_replicated,
                                         const int64_t *devices, shard_span span) {
  int64_t n = 1;
  for (uint32_t i = 0; i < num_dims; i++) n *= dims[i];
  int64_t nm = shard_mesh_num_devices(mesh);
  if (nm != n || n < 1) return NULL;
  if (mesh->device_ids && (int64_t)mesh->num_device_ids != n) return NULL;
  shard_conv *result = NULL;
  int64_t *inv = shard_xmalloc(sizeof(int64_t) * (size_t)n);
  int64_t *coord = shard_xcalloc(num_dims + 1, sizeof(int64_t));
  int64_t *want = shard_xcalloc(num_dims + 1, sizeof(int64_t));
  SHARD_VEC(piece) pieces = {0};
  for (int64_t d = 0; d < n; d++) inv[d] = -1;
  for (int64_t i = 0; i < n; i++) {
    int64_t d = devices[i];
    if (d < 0 || d >= n || inv[d] != -1) goto done;
    inv[d] = i;
  }
#define ARRAY_INDEX_AT(pos) inv[mesh->device_ids ? mesh->device_ids[(pos)] : (pos)]
  if (ARRAY_INDEX_AT(0) != 0) goto done;

  int64_t axis_stride = n;
  for (uint32_t a = 0; a < mesh->num_axes; a++) {
    int64_t size = mesh->axes[a].size;
    axis_stride /= size;
    int64_t t = 1;
    while (t < size) {
      unravel(ARRAY_INDEX_AT(t * axis_stride), dims, num_dims, coord);
      uint32_t j = num_dims;
      bool single = true;
      for (uint32_t k = 0; k < num_dims; k++)
        if (coord[k]) {
          if (j != num_dims) single = false;
          j = k;
        }
      if (!single || j == num_dims) goto done;
      /* Steps u = 1, 2, ... stay on this line of dimension j: the run is one piece. */
      int64_t s = coord[j], k = 1;
      while (t * k < size) {
        unravel(ARRAY_INDEX_AT(t * k * axis_stride), dims, num_dims, coord);
        bool on_line = coord[j] == k * s;
        for (uint32_t q = 0; q < num_dims && on_line; q++)
          if (q != j && coord[q]) on_line = false;
        if (!on_line) break;
        k++;
      }
      if (size % (t * k) != 0) goto done;
      piece p = {a, size / (t * k), k, j, s};
      SHARD_VEC_PUSH(pieces, p);
      t *= k;
    }
  }
  /* Each array dimension must be a mixed radix of its pieces. */
  for (uint32_t j = 0; j < num_dims; j++) {
    int64_t expect = 1;
    piece *sorted = shard_xmalloc(sizeof(piece) * (pieces.len + 1));
    uint32_t m = 0;
    for (uint32_t i = 0; i < pieces.len; i++)
      if (pieces.items[i].dim == j) sorted[m++] = pieces.items[i];
    qsort(sorted, m, sizeof(piece), cmp_piece_stride);
    bool ok = true;
    for (uint32_t i = 0; i < m && ok; i++) {
      if (sorted[i].stride != expect) ok = false;
      expect *= sorted[i].size;
    }
    free(sorted);
    if (!ok || expect != dims[j]) goto done;
  }
  /* Recompute every device from the pieces. */
  {
    int64_t *mc = shard_xcalloc(mesh->num_axes + 1, sizeof(int64_t));
    bool ok = true;
    for (int64_t pos = 0; pos < n && ok; pos++) {
      int64_t rest = pos;
      for (uint32_t a = mesh->num_axes; a-- > 0;) {
        mc[a] = rest % mesh->axes[a].size;
        rest /= mesh->axes[a].size;
      }
      memset(want, 0, sizeof(int64_t) * num_dims);
      for (uint32_t i = 0; i < pieces.len; i++) {
        const piece *p = &pieces.items[i];
        int64_t minor = mesh->axes[p->axis].size / (p->pre * p->size);
        want[p->dim] += (mc[p->axis] / minor) % p->size * p->stride;
      }
      unravel(ARRAY_INDEX_AT(pos), dims, num_dims, coord);
      for (uint32_t k = 0; k < num_dims; k++)
        if (coord[k] != want[k]) ok = false;
    }
    free(mc);
    if (!ok) goto done;
  }
#undef ARRAY_INDEX_AT

  {
    shard_conv *c = shard_conv_new_named(cx, (shard_mesh *)mesh, rank, span);
    for (uint32_t j = 0; j < rank; j++) {
      piece *sel = shard_xmalloc(sizeof(piece) * (pieces.len + 1));
      uint32_t m = 0;
      for (uint32_t i = 0; i < pieces.len; i++)
        if (pieces.items[i].dim == j) sel[m++] = pieces.items[i];
      qsort(sel, m, sizeof(piece), cmp_piece_stride);
      shard_dim_sharding *ds = &c->sharding->dims[j];
      ds->num_axes = m;
      ds->axes = m ? SHARD_NEW_ARRAY(cx->arena, shard_axis_ref, m) : NULL;
      for (uint32_t i = 0; i < m; i++) ds->axes[i] = piece_ref(mesh, &sel[m - 1 - i]);
      free(sel);
    }
    /* Subgroups: the set of (sub-)axes of each type. */
    int kinds[3] = {SHARD_SUBGROUP_REPLICATED, SHARD_SUBGROUP_UNREDUCED, SHARD_SUBGROUP_MANUAL};
    for (int k = 0; k < 3; k++) {
      piece *sel = shard_xmalloc(sizeof(piece) * (pieces.len + 1));
      uint32_t m = 0;
      for (uint32_t i = 0; i < pieces.len; i++) {
        uint32_t j = pieces.items[i].dim;
        if (j >= rank && types[j - rank] == kinds[k]) sel[m++] = pieces.items[i];
      }
      for (uint32_t j = rank; j < num_dims; j++)
        if (types[j - rank] != SHARD_SUBGROUP_REPLICATED && types[j - rank] != SHARD_SUBGROUP_MANUAL &&
            types[j - rank] != SHARD_SUBGROUP_UNREDUCED && dims[j] > 1) {
          free(sel);
          goto done;
        }
      if (kinds[k] == SHARD_SUBGROUP_REPLICATED && explicit_replicated)
        pieces_to_set(cx, mesh, sel, m, &c->sharding->replicated, &c->sharding->num_replicated);
      else if (kinds[k] == SHARD_SUBGROUP_UNREDUCED)
        pieces_to_set(cx, mesh, sel, m, &c->sharding->unreduced, &c->sharding->num_unreduced);
      else if (kinds[k] == SHARD_SUBGROUP_MANUAL) pieces_to_set(cx, mesh, sel, m, &c->manual, &c->num_manual);
      free(sel);
    }
    result = c;
  }
done:
  SHARD_VEC_FREE(pieces);
  free(inv);
  free(coord);
  free(want);
  return result;
}

/* ---- device maps ------------------------------------------------------------------------------ */

typedef struct keyed {
  int64_t k1, k2, dev;
} keyed;

static int cmp_keyed(const void *a, const void *b) {
  const keyed *x = a, *y = b;
  if (x->k1 != y->k1) return x->k1 < y->k1 ? -1 : 1;
  if (x->k2 != y->k2) return x->k2 < y->k2 ? -1 : 1;
  return x->dev < y->dev ? -1 : x->dev > y->dev;
}

/* Smallest device with the same (k1, k2), for every device. */
static void classes(const int64_t *k1, const int64_t *k2, const bool *held, int64_t n, int64_t *out) {
  keyed *v = shard_xmalloc(sizeof(keyed) * (size_t)(n ? n : 1));
  int64_t m = 0;
  for (int64_t d = 0; d < n; d++) {
    out[d] = -1;
    if (held[d]) {
      keyed e = {k1[d], k2[d], d};
      v[m++] = e;
    }
  }
  qsort(v, (size_t)m, sizeof(keyed), cmp_keyed);
  for (int64_t i = 0; i < m; i++) {
    int64_t first = (i > 0 && v[i].k1 == v[i - 1].k1 && v[i].k2 == v[i - 1].k2) ? out[v[i - 1].dev] : v[i].dev;
    out[v[i].dev] = first;
  }
  free(v);
}

static void map_alloc(shard_device_map *m, int64_t n, uint32_t rank) {
  memset(m, 0, sizeof *m);
  m->num_devices = n;
  m->rank = rank;
  size_t nn = (size_t)(n ? n : 1), nr = (size_t)(n * (int64_t)rank > 0 ? n * (int64_t)rank : 1);
  m->held = shard_xcalloc(nn, sizeof(bool));
  m->offset = shard_xcalloc(nr, sizeof(int64_t));
  m->limit = shard_xcalloc(nr, sizeof(int64_t));
  m->replica = shard_xcalloc(nn, sizeof(int64_t));
  m->group = shard_xcalloc(nn, sizeof(int64_t));
}

void shard_device_map_alloc(shard_device_map *m, int64_t num_devices, uint32_t rank) {
  map_alloc(m, num_devices, rank);
}

void shard_device_map_classes(shard_device_map *m, const int64_t *k1, const int64_t *k2, const int64_t *k3) {
  classes(k1, k2, m->held, m->num_devices, m->replica);
  classes(k1, k3, m->held, m->num_devices, m->group);
}

void shard_device_map_free(shard_device_map *m) {
  free(m->held);
  free(m->offset);
  free(m->limit);
  free(m->replica);
  free(m->group);
  memset(m, 0, sizeof *m);
}

/* One axis ref read as a digit of a device's mesh coordinates: the digit
 * is mc[axis] / minor % size (axis < 0: an axis the mesh lacks, digit 0).
 * Resolved once per map, so the per-device loop does no name lookups. */
typedef struct ref_digit {
  int axis;
  bool whole; /* the whole axis: the digit is mc[axis] */
  int64_t minor, size;
} ref_digit;

/* Digits of `refs` (major first) appended to *out; their count of tiles in *count. */
static void ref_digits(const shard_mesh *m, const shard_axis_ref *refs, uint32_t n, ref_digit *out, int64_t *count) {
  int64_t total = 1;
  for (uint32_t i = 0; i < n; i++) {
    ref_digit d = {shard_mesh_axis_index(m, refs[i].name), !refs[i].is_sub, 1, shard_axis_size(&refs[i], m)};
    if (d.axis >= 0 && refs[i].is_sub) d.minor = m->axes[d.axis].size / (refs[i].pre_size * refs[i].size);
    out[i] = d;
    total *= d.size;
  }
  *count = total;
}

/* Mixed-radix index of the coordinates `mc` in the digits (major first). */
static int64_t digits_index(const ref_digit *d, uint32_t n, const int64_t *mc) {
  int64_t idx = 0;
  for (uint32_t i = 0; i < n; i++) {
    int64_t coord = 0;
    if (d[i].axis >= 0) coord = d[i].whole ? mc[d[i].axis] : mc[d[i].axis] / d[i].minor % d[i].size;
    idx = idx * d[i].size + coord;
  }
  return idx;
}

/* PyTorch's split of one dimension of `size` (torch.chunk, mesh dim by mesh
 * dim, major first as the digits are): each level cuts what the previous
 * left into chunks of ceil(len / n); a device past the end holds nothing at
 * the end of its parent's block (Shard._local_shard_size_and_offset), and
 * compute_local_shape_and_global_offset reports it at the dim's end. */
/* The block of one dimension on the device at mesh coordinates mc when the
 * dimension's axes (digits d, major first) cut it one after another, each
 * cutting what the ones before it left: PyTorch's torch.chunk (pieces of
 * ceil(len/n), the last ones short or empty) or OneFlow's BalancedSplitter
 * (pieces of len/n, the first len%n one larger). */
static void nested_extent(shard_split_rule rule, const ref_digit *d, uint32_t n, const int64_t *mc, int64_t size,
                          int64_t *off, int64_t *lim) {
  int64_t start = 0, len = size;
  for (uint32_t k = 0; k < n; k++) {
    int64_t coord = d[k].axis < 0 ? 0 : d[k].whole ? mc[d[k].axis] : mc[d[k].axis] / d[k].minor % d[k].size;
    int64_t parts = d[k].size;
    if (rule == SHARD_SPLIT_BALANCED) {
      int64_t base = len / parts, extra = len % parts;
      int64_t s = coord * base + (coord < extra ? coord : extra);
      start += s;
      len = base + (coord < extra ? 1 : 0);
      continue;
    }
    int64_t chunk = (len + parts - 1) / parts;
    int64_t s = coord * chunk;
    if (s >= len) {
      start += len;
      len = 0;
    } else {
      len = (s + chunk < len ? s + chunk : len) - s;
      start += s;
    }
  }
  if (len == 0 && rule == SHARD_SPLIT_CHUNKED) start = size; /* PyTorch's offset of an empty shard */
  *off = start;
  *lim = start + len;
}

bool shard_device_map_build(const shard_conv *c, const int64_t *shape, uint32_t rank, int64_t num_devices,
                            shard_device_map *out, shard_buf *err) {
  if (c->kind == SHARD_CONV_TUPLE) {
    shard_buf_puts(err, "a tuple sharding has no single device map");
    return false;
  }
  if (c->kind != SHARD_CONV_NAMED || (c->mesh && shard_mesh_is_maximal(c->mesh))) {
    int64_t n = num_devices;
    if (c->kind == SHARD_CONV_MAXIMAL && c->device >= n) n = c->device + 1;
    if (c->kind == SHARD_CONV_NAMED) {
      if (c->mesh->device_ids[0] >= n) n = c->mesh->device_ids[0] + 1;
    }
    if (n > SHARD_CONV_MAX_DEVICES) {
      shard_buf_printf(err, "device id %lld is out of range (at most %d devices)", (long long)n - 1,
                       SHARD_CONV_MAX_DEVICES);
      return false;
    }
    map_alloc(out, n, rank);
    for (int64_t d = 0; d < n; d++) {
      for (uint32_t i = 0; i < rank; i++) out->limit[d * rank + i] = shape[i];
      out->held[d] = true;
      out->replica[d] = 0;
      out->group[d] = 0;
      switch (c->kind) {
      case SHARD_CONV_MAXIMAL:
        out->held[d] = d == c->device;
        out->replica[d] = out->group[d] = d;
        break;
      case SHARD_CONV_NAMED:
        out->held[d] = d == c->mesh->device_ids[0];
        out->replica[d] = out->group[d] = d;
        break;
      case SHARD_CONV_MANUAL:
        out->per_device_values = true;
        out->replica[d] = out->group[d] = d;
        break;
      case SHARD_CONV_UNREDUCED: out->replica[d] = d; break;
      default: break;
      }
    }
    return true;
  }
  const shard_mesh *m = c->mesh;
  const shard_tensor_sharding *s = c->sharding;
  if (!m) {
    shard_buf_puts(err, "the sharding has no mesh");
    return false;
  }
  if (s->rank != rank) {
    shard_buf_printf(err, "the sharding has %u dimensions, the shape %u", s->rank, rank);
    return false;
  }
  int64_t n = shard_mesh_num_devices(m);
  map_alloc(out, n, rank);
  out->per_device_values = shard_axes_product(c->manual, c->num_manual, m) > 1;
  int64_t *mc = shard_xcalloc(m->num_axes + 1, sizeof(int64_t));
  /* the digits of every dim, then of the manual and the unreduced axes */
  uint32_t num_refs = c->num_manual + s->num_unreduced;
  for (uint32_t i = 0; i < rank; i++) num_refs += s->dims[i].num_axes;
  ref_digit *digits = shard_xmalloc(sizeof(ref_digit) * (num_refs + 1));
  int64_t *tiles = shard_xmalloc(sizeof(int64_t) * (rank + 1));
  uint32_t used = 0;
  for (uint32_t i = 0; i < rank; i++) {
    ref_digits(m, s->dims[i].axes, s->dims[i].num_axes, digits + used, &tiles[i]);
    used += s->dims[i].num_axes;
  }
  int64_t nman, nunr;
  const ref_digit *man_digits = digits + used, *unr_digits = digits + used + c->num_manual;
  ref_digits(m, c->manual, c->num_manual, digits + used, &nman);
  ref_digits(m, s->unreduced, s->num_unreduced, digits + used + c->num_manual, &nunr);
  int64_t *k1 = shard_xcalloc((size_t)n, sizeof(int64_t));
  int64_t *kr = shard_xcalloc((size_t)n, sizeof(int64_t));
  int64_t *kg = shard_xcalloc((size_t)n, sizeof(int64_t));
  bool ok = true;
  for (int64_t pos = 0; pos < n; pos++) {
    int64_t rest = pos;
    for (uint32_t a = m->num_axes; a-- > 0;) {
      mc[a] = rest % m->axes[a].size;
      rest /= m->axes[a].size;
    }
    int64_t dev = m->device_ids ? m->device_ids[pos] : pos;
    if (dev < 0 || dev >= n || out->held[dev]) {
      shard_buf_puts(err, "the mesh device ids are not a permutation");
      ok = false;
      break;
    }
    out->held[dev] = true;
    int64_t tile_lin = 0;
    const ref_digit *d = digits;
    for (uint32_t i = 0; i < rank; i++) {
      int64_t t = digits_index(d, s->dims[i].num_axes, mc);
      if (c->split != SHARD_SPLIT_PADDED) {
        nested_extent(c->split, d, s->dims[i].num_axes, mc, shape[i], &out->offset[dev * rank + i],
                      &out->limit[dev * rank + i]);
      } else {
        int64_t chunk = (shape[i] + tiles[i] - 1) / tiles[i];
        int64_t off = t * chunk, lim = (t + 1) * chunk;
        out->offset[dev * rank + i] = off < shape[i] ? off : shape[i];
        out->limit[dev * rank + i] = lim < shape[i] ? lim : shape[i];
      }
      d += s->dims[i].num_axes;
      tile_lin = tile_lin * tiles[i] + t;
    }
    k1[dev] = tile_lin * nman + digits_index(man_digits, c->num_manual, mc);
    kr[dev] = digits_index(unr_digits, s->num_unreduced, mc);
    kg[dev] = 0;
  }
  if (ok) {
    classes(k1, kr, out->held, n, out->replica);
    classes(k1, kg, out->held, n, out->group);
  }
  free(digits);
  free(tiles);
  free(mc);
  free(k1);
  free(kr);
  free(kg);
  if (!ok) shard_device_map_free(out);
  return ok;
}

bool shard_device_map_equal(const shard_device_map *a, const shard_device_map *b, shard_buf *why) {
  shard_buf dummy;
  shard_buf_init(&dummy);
  shard_buf *w = why ? why : &dummy;
  bool ok = true;
  if (a->num_devices != b->num_devices) {
    shard_buf_printf(w, "%lld devices vs %lld", (long long)a->num_devices, (long long)b->num_devices);
    ok = false;
  } else if (a->rank != b->rank) {
    shard_buf_printf(w, "rank %u vs %u", a->rank, b->rank);
    ok = false;
  } else if (a->per_device_values != b->per_device_values) {
    shard_buf_puts(w, "manual vs not manual");
    ok = false;
  }
  for (int64_t d = 0; ok && d < a->num_devices; d++) {
    if (a->held[d] != b->held[d]) {
      shard_buf_printf(w, "device %lld holds data in one and not the other", (long long)d);
      ok = false;
      break;
    }
    if (!a->held[d]) continue;
    for (uint32_t i = 0; i < a->rank; i++)
      if (a->offset[d * a->rank + i] != b->offset[d * a->rank + i] ||
          a->limit[d * a->rank + i] != b->limit[d * a->rank + i]) {
        shard_buf_printf(w, "device %lld holds [%lld, %lld) vs [%lld, %lld) of dimension %u", (long long)d,
                         (long long)a->offset[d * a->rank + i], (long long)a->limit[d * a->rank + i],
                         (long long)b->offset[d * a->rank + i], (long long)b->limit[d * a->rank + i], i);
        ok = false;
        break;
      }
    if (ok && a->replica[d] != b->replica[d]) {
      shard_buf_printf(w, "device %lld holds the value of device %lld vs %lld", (long long)d, (long long)a->replica[d],
                       (long long)b->replica[d]);
      ok = false;
    }
    if (ok && a->group[d] != b->group[d]) {
      shard_buf_printf(w, "device %lld is reduced with device %lld vs %lld", (long long)d, (long long)a->group[d],
                       (long long)b->group[d]);
      ok = false;
    }
  }
  shard_buf_free(&dummy);
  return ok;
}

/* ---- placements ------------------------------------------------------------------------------ */

static int cmp_i64_asc(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return x < y ? -1 : x > y;
}

/* Whether a mesh's device ids are 0..n-1 in some order (Shardy's rule). */
static bool mesh_ids_permutation(const shard_mesh *m) {
  if (!m->device_ids || shard_mesh_is_maximal(m)) return true;
  int64_t n = shard_mesh_num_devices(m);
  bool *seen = shard_xcalloc((size_t)n + 1, 1);
  bool ok = true;
  for (int64_t i = 0; i < n && ok; i++) {
    int64_t d = m->device_ids[i];
    if (d < 0 || d >= n || seen[d]) ok = false;
    else seen[d] = true;
  }
  free(seen);
  return ok;
}

static bool conv_ids_permutation(const shard_conv *c) {
  for (uint32_t i = 0; c->kind == SHARD_CONV_TUPLE && i < c->num_elems; i++)
    if (!conv_ids_permutation(&c->elems[i])) return false;
  return !c->mesh || mesh_ids_permutation(c->mesh);
}

/* `ids`: the device id of each device of the map (NULL: the same). */
static void print_map(shard_buf *out, const shard_device_map *m, const int64_t *ids) {
  bool full = !m->per_device_values;
  for (int64_t d = 0; full && d < m->num_devices; d++) {
    if (!m->held[d] || m->replica[d] != m->replica[0]) full = false;
    for (uint32_t i = 0; full && i < m->rank; i++)
      if (m->offset[d * m->rank + i] != 0) full = false;
  }
  if (full && m->num_devices) {
    /* the limits of device 0 are the shape: every device holds all of it */
    for (int64_t d = 1; full && d < m->num_devices; d++)
      for (uint32_t i = 0; full && i < m->rank; i++)
        if (m->limit[d * m->rank + i] != m->limit[i]) full = false;
  }
  if (full) {
    shard_buf_puts(out, "replicated");
    return;
  }
  bool all_full = m->num_devices > 0;
  for (int64_t d = 0; all_full && d < m->num_devices; d++)
    for (uint32_t i = 0; all_full && i < m->rank; i++)
      if (!m->held[d] || m->offset[d * m->rank + i] != 0 || m->limit[d * m->rank + i] != m->limit[i]) all_full = false;
  if (all_full && m->per_device_values) {
    shard_buf_puts(out, "manual");
    return;
  }
  bool first = true, sums = false;
  for (int64_t d = 0; d < m->num_devices; d++) {
    if (!m->held[d]) continue;
    if (m->group[d] != m->replica[d]) sums = true;
    shard_buf_printf(out, "%s%lld:", first ? "" : ";", (long long)(ids ? ids[d] : d));
    first = false;
    for (uint32_t i = 0; i < m->rank; i++)
      shard_buf_printf(out, "%s%lld", i ? "," : "", (long long)m->offset[d * m->rank + i]);
    shard_buf_putc(out, '-');
    for (uint32_t i = 0; i < m->rank; i++)
      shard_buf_printf(out, "%s%lld", i ? "," : "", (long long)m->limit[d * m->rank + i]);
  }
  if (sums) {
    shard_buf_puts(out, "\nvalues:");
    for (int64_t d = 0; d < m->num_devices; d++)
      if (m->held[d]) shard_buf_printf(out, "%s%lld", d ? "," : "", (long long)m->replica[d]);
    shard_buf_puts(out, "\nsum:");
    for (int64_t d = 0; d < m->num_devices; d++)
      if (m->held[d]) shard_buf_printf(out, "%s%lld", d ? "," : "", (long long)m->group[d]);
  }
  if (m->per_device_values) shard_buf_puts(out, "\nmanual");
}

/* The shape a placement is drawn for: cx's, else one element per shard. */
static int64_t *placement_shape(shard_conv_ctx *cx, const shard_conv *c, uint32_t *rank) {
  if (cx->rank >= 0) {
    *rank = (uint32_t)cx->rank;
    return shard_arena_dup(cx->arena, cx->shape, sizeof(int64_t) * (size_t)(cx->rank + 1));
  }
  *rank = c->kind == SHARD_CONV_NAMED ? c->sharding->rank : 0;
  int64_t *shape = SHARD_NEW_ARRAY(cx->arena, int64_t, *rank + 1);
  for (uint32_t i = 0; i < *rank; i++)
    shape[i] = c->mesh ? shard_axes_product(c->sharding->dims[i].axes, c->sharding->dims[i].num_axes, c->mesh) : 1;
  return shape;
}

static bool placement_one(shard_conv_ctx *cx, const shard_conv *c, shard_buf *out) {
  switch (c->kind) {
  case SHARD_CONV_REPLICATED: shard_buf_puts(out, "replicated"); return true;
  case SHARD_CONV_MAXIMAL: shard_buf_printf(out, "maximal %lld", (long long)c->device); return true;
  case SHARD_CONV_MANUAL: shard_buf_puts(out, "manual"); return true;
  case SHARD_CONV_UNKNOWN: shard_buf_puts(out, "unknown"); return true;
  case SHARD_CONV_UNREDUCED: shard_buf_puts(out, "unreduced"); return true;
  default: break;
  }
  const shard_mesh *m = shard_conv_mesh_of(cx, c);
  if (m && shard_mesh_is_maximal(m)) {
    shard_buf_printf(out, "maximal %lld", (long long)(m->device_ids ? m->device_ids[0] : 0));
    return true;
  }
  uint32_t rank;
  int64_t *shape = placement_shape(cx, c, &rank);
  shard_device_map map;
  shard_buf err;
  shard_buf_init(&err);
  /* ids that are no permutation (XLA's {devices=[2]3,5}): drawn on their
   * ranks, printed with the ids */
  int64_t *ranks = NULL;
  shard_conv tmp;
  if (m && !mesh_ids_permutation(m)) {
    shard_mesh *mc = SHARD_NEW(cx->arena, shard_mesh);
    *mc = *m;
    int64_t n = shard_mesh_num_devices(m);
    mc->device_ids = SHARD_NEW_ARRAY(cx->arena, int64_t, n);
    ranks = shard_xmalloc(sizeof(int64_t) * (size_t)n);
    memcpy(ranks, m->device_ids, sizeof(int64_t) * (size_t)n);
    qsort(ranks, (size_t)n, sizeof(int64_t), cmp_i64_asc);
    for (int64_t i = 0; i < n; i++)
      mc->device_ids[i] = (int64_t *)bsearch(&m->device_ids[i], ranks, (size_t)n, sizeof(int64_t), cmp_i64_asc) - ranks;
    tmp = *c;
    tmp.mesh = mc;
    c = &tmp;
  }
  bool ok = shard_device_map_build(c, shape, rank, m ? shard_mesh_num_devices(m) : 1, &map, &err);
  if (!ok) shard_error(cx->de, c->span, "no placement: %s", shard_buf_str(&err));
  else print_map(out, &map, ranks);
  free(ranks);
  if (ok) shard_device_map_free(&map);
  shard_buf_free(&err);
  return ok;
}

bool shard_conv_placement(shard_conv_ctx *cx, const shard_conv *c, shard_buf *out) {
  if (c->kind != SHARD_CONV_TUPLE) return placement_one(cx, c, out);
  for (uint32_t i = 0; i < c->num_elems; i++) {
    if (i) shard_buf_putc(out, '\n');
    if (!placement_one(cx, &c->elems[i], out)) return false;
  }
  return true;
}

static const char *S_split_rule_text(shard_split_rule r) {
  switch (r) {
  case SHARD_SPLIT_CHUNKED: return "PyTorch splits mesh dimension by mesh dimension";
  case SHARD_SPLIT_BALANCED:
    return "OneFlow splits hierarchy dimension by hierarchy dimension in parts "
           "whose sizes differ by at most one, the first ones larger";
  case SHARD_SPLIT_PADDED: break;
  }
  return "XLA and Shardy pad one split of the whole dimension";
}

static const char *S_split_rule_owner(shard_split_rule r) {
  switch (r) {
  case SHARD_SPLIT_CHUNKED: return "DTensor";
  case SHARD_SPLIT_BALANCED: return "OneFlow";
  case SHARD_SPLIT_PADDED: break;
  }
  return "XLA";
}

bool shard_conv_check_exact(shard_conv_ctx *cx, const shard_conv *c, shard_notation to) {
  if (c->kind == SHARD_CONV_TUPLE) {
    for (uint32_t i = 0; i < c->num_elems; i++)
      if (!shard_conv_check_exact(cx, &c->elems[i], to)) return false;
    return true;
  }
  shard_split_rule to_rule = shard_notation_split(to);
  if (c->kind != SHARD_CONV_NAMED || c->split == to_rule || cx->rank < 0 || !c->mesh ||
      shard_mesh_is_maximal(c->mesh) || c->sharding->rank != (uint32_t)cx->rank)
    return true;
  shard_conv other = *c;
  other.split = to_rule;
  shard_device_map a, b;
  shard_buf why;
  shard_buf_init(&why);
  int64_t n = shard_mesh_num_devices(c->mesh);
  bool ok = shard_device_map_build(c, cx->shape, (uint32_t)cx->rank, n, &a, &why);
  if (ok) {
    ok = shard_device_map_build(&other, cx->shape, (uint32_t)cx->rank, n, &b, &why);
    if (!ok) shard_device_map_free(&a);
  }
  if (!ok) {
    shard_buf_free(&why);
    return true; /* nothing to compare: the printers report what is wrong */
  }
  bool same = true;
  int64_t dev = -1;
  uint32_t dim = 0;
  for (int64_t d = 0; same && d < n; d++)
    for (uint32_t i = 0; i < a.rank; i++)
      if (a.offset[d * a.rank + i] != b.offset[d * a.rank + i] || a.limit[d * a.rank + i] != b.limit[d * a.rank + i]) {
        same = false;
        dev = d;
        dim = i;
        break;
      }
  bool go_on = true;
  if (!same) {
    /* Named after the framework whose rule is not XLA's (the input's when
     * neither is): "... in DTensor but ... in hlo" */
    bool input_first = c->split != SHARD_SPLIT_PADDED;
    const shard_device_map *fw = input_first ? &a : &b, *rest = input_first ? &b : &a;
    shard_split_rule fw_rule = input_first ? c->split : to_rule, rest_rule = input_first ? to_rule : c->split;
    const char *rest_name = input_first ? shard_notation_name(to) : "the input";
    int64_t k = dev * a.rank + dim;
    shard_buf msg;
    shard_buf_init(&msg);
    shard_buf_printf(&msg,
                     "uneven sharding placed differently: %s, %s; device %lld holds [%lld, %lld) of "
                     "dimension %u in %s but [%lld, %lld) in %s",
                     S_split_rule_text(fw_rule), S_split_rule_text(rest_rule), (long long)dev, (long long)fw->offset[k],
                     (long long)fw->limit[k], dim, S_split_rule_owner(fw_rule), (long long)rest->offset[k],
                     (long long)rest->limit[k], rest_name);
    if (cx->allow_lossy) shard_warning(cx->de, c->span, "%s", shard_buf_str(&msg));
    else shard_error(cx->de, c->span, "%s", shard_buf_str(&msg));
    shard_buf_free(&msg);
    go_on = cx->allow_lossy;
  }
  shard_device_map_free(&a);
  shard_device_map_free(&b);
  shard_buf_free(&why);
  return go_on;
}

/* ---- Shardy text ------------------------------------------------------------------------------ */

typedef struct named_mesh {
  const char *name;
  shard_mesh *mesh;
} named_mesh;

typedef SHARD_VEC(named_mesh) mesh_table;

static shard_conv *conv_from_sdy(shard_conv_ctx *cx, shard_parser *p, mesh_table *meshes,
                                 const shard_tensor_sharding *s) {
  shard_mesh *m = s->inline_mesh;
  if (!m && s->mesh_name) {
    for (uint32_t i = meshes->len; i-- > 0;)
      if (strcmp(meshes->items[i].name, s->mesh_name) == 0) {
        m = meshes->items[i].mesh;
        break;
      }
    if (!m && cx->mesh) m = (shard_mesh *)cx->mesh;
    if (!m) {
      shard_parser_error_at(p, s->span, "unknown mesh @%s: define it first (sdy.mesh @%s = <[\"x\"=2]>) or pass --mesh",
                            s->mesh_name, s->mesh_name);
      return NULL;
    }
  }
  shard_conv *c = shard_conv_new(cx, SHARD_CONV_NAMED, s->span);
  c->mesh = m;
  c->mesh_name = s->mesh_name;
  c->sharding = (shard_tensor_sharding *)s;
  return c;
}

shard_conv *shard_sdy_conv_parse(shard_conv_ctx *cx, const shard_source *src) {
  shard_parser p;
  sdy_parser_init(&p, cx, src, 0);
  mesh_table meshes = {0};
  SHARD_VEC(shard_conv) found = {0};
  bool tuple = false, ok = true;
  shard_span first = {src, 0, (uint32_t)src->len};
  while (ok) {
    shard_tok t = shard_parser_peek(&p);
    if (t.kind == SHARD_TOK_EOF) break;
    if (t.kind == SHARD_TOK_ERROR && t.text[0] == ';') {
      shard_parser_restore(&p, t.off + 1);
      continue;
    }
    if (t.kind == SHARD_TOK_IDENT && (shard_tok_is(&t, "sdy.mesh") || shard_tok_is(&t, "mesh"))) {
      shard_parser_next(&p);
      t = shard_parser_peek(&p);
    }
    if (t.kind == SHARD_TOK_AT) {
      /* mesh-def ::= '@' name '=' ('#sdy.mesh')? mesh-body */
      const char *name;
      shard_parser_symbol(&p, &name);
      if (!shard_parser_expect(&p, "=")) {
        ok = false;
        break;
      }
      shard_tok h = shard_parser_peek(&p);
      if (h.kind == SHARD_TOK_HASH && shard_tok_is(&h, "#sdy.mesh")) shard_parser_next(&p);
      shard_mesh *m;
      if (!shard_parse_sdy_mesh_body(&p, &m)) {
        ok = false;
        break;
      }
      named_mesh nmsh = {name, m};
      SHARD_VEC_PUSH(meshes, nmsh);
      continue;
    }
    /* sharding ::= ('#sdy.sharding' | 'sharding')? sharding-body
     *            | '#sdy.sharding_per_value' '<' sharding-list '>' | sharding-list */
    bool per_value = false;
    if (t.kind == SHARD_TOK_HASH && shard_tok_is(&t, "#sdy.sharding")) {
      shard_parser_next(&p);
    } else if (t.kind == SHARD_TOK_HASH && shard_tok_is(&t, "#sdy.sharding_per_value")) {
      shard_parser_next(&p);
      if (!shard_parser_expect(&p, "<")) {
        ok = false;
        break;
      }
      per_value = true;
    } else if (t.kind == SHARD_TOK_IDENT && shard_tok_is(&t, "sharding")) {
      shard_parser_next(&p);
    }
    t = shard_parser_peek(&p);
    if (per_value || (t.kind == SHARD_TOK_PUNCT && shard_tok_is(&t, "["))) {
      shard_sharding_per_value *pv;
      if (!shard_parse_sdy_sharding_list(&p, &pv) || (per_value && !shard_parser_expect(&p, ">"))) {
        ok = false;
        break;
      }
      tuple = true;
      for (uint32_t i = 0; i < pv->num && ok; i++) {
        shard_conv *c = conv_from_sdy(cx, &p, &meshes, &pv->shardings[i]);
        if (!c) ok = false;
        else SHARD_VEC_PUSH(found, *c);
      }
      first = pv->span;
      continue;
    }
    if (!(t.kind == SHARD_TOK_PUNCT && shard_tok_is(&t, "<"))) {
      shard_parser_error(&p, "expected a sharding (#sdy.sharding<@mesh, [...]>) or a mesh definition "
                             "(sdy.mesh @mesh = <[...]>)");
      ok = false;
      break;
    }
    shard_tensor_sharding *s;
    if (!shard_parse_sdy_sharding_body(&p, &s)) {
      ok = false;
      break;
    }
    shard_conv *c = conv_from_sdy(cx, &p, &meshes, s);
    if (!c) ok = false;
    else {
      if (found.len == 0) first = s->span;
      SHARD_VEC_PUSH(found, *c);
    }
  }
  shard_conv *result = NULL;
  /* #sdy.sharding_per_value<[]> (an op without results, HloSharding {}) is a tuple of none. */
  if (ok && found.len == 0 && !tuple) {
    shard_span sp = {src, 0, (uint32_t)src->len};
    shard_error(cx->de, sp, "no sharding found (only mesh definitions)");
  } else if (ok && (tuple || found.len > 1)) {
    result = shard_conv_new(cx, SHARD_CONV_TUPLE, first);
    result->num_elems = found.len;
    SHARD_VEC_FREEZE(cx->arena, found, result->elems);
  } else if (ok) {
    result = SHARD_NEW(cx->arena, shard_conv);
    *result = found.items[0];
  }
  SHARD_VEC_FREE(found);
  SHARD_VEC_FREE(meshes);
  if (result && !shard_conv_validate(cx, result)) return NULL;
  return result;
}

/* Warnings shared by the printers for notations without open dims,
 * priorities or explicit replication. */
static void warn_shardy_only(shard_conv_ctx *cx, const shard_conv *c, const char *target, bool open_empty_ok) {
  const shard_tensor_sharding *s = c->sharding;
  shard_buf open, prio;
  shard_buf_init(&open);
  shard_buf_init(&prio);
  for (uint32_t d = 0; d < s->rank; d++) {
    if (s->dims[d].is_open && !(open_empty_ok && s->dims[d].num_axes == 0))
      shard_buf_printf(&open, "%s%u", open.len ? ", " : "", d);
    if (s->dims[d].priority != SHARD_NO_PRIORITY)
      shard_buf_printf(&prio, "%sp%lld on dimension %u", prio.len ? ", " : "", (long long)s->dims[d].priority, d);
  }
  if (open.len)
    shard_warning(cx->de, c->span, "%s has no open dimensions: dimension%s %s written as closed", target,
                  strchr(shard_buf_str(&open), ',') ? "s" : "", shard_buf_str(&open));
  if (prio.len)
    shard_warning(cx->de, c->span, "%s has no sharding priorities: dropped %s", target, shard_buf_str(&prio));
  if (s->num_replicated) {
    shard_buf axes;
    shard_buf_init(&axes);
    shard_axis_list_print(&axes, s->replicated, s->num_replicated);
    shard_warning(cx->de, c->span, "%s has no explicit replication: replicated=%s becomes implicit", target,
                  shard_buf_str(&axes));
    shard_buf_free(&axes);
  }
  shard_buf_free(&open);
  shard_buf_free(&prio);
}

static bool sdy_print_one(shard_conv_ctx *cx, const shard_conv *c, const char *mesh_name, shard_buf *out,
                          shard_buf *mesh_out, bool stripped) {
  const shard_mesh *m = shard_conv_mesh_of(cx, c);
  shard_tensor_sharding tmp = {0};
  shard_mesh empty = {0};
  switch (c->kind) {
  case SHARD_CONV_MAXIMAL: {
    /* XLA's importer names the mesh of {maximal device=N} @single_device_N;
     * one definition however many tuple elements use it */
    char *name = shard_arena_printf(cx->arena, "single_device_%lld", (long long)c->device);
    char *def = shard_arena_printf(cx->arena, "sdy.mesh @%s = ", name);
    bool defined = false;
    for (const char *q = mesh_out->len ? shard_buf_str(mesh_out) : ""; (q = strstr(q, def)) && !defined; q++)
      defined = q == shard_buf_str(mesh_out) || q[-1] == '\n';
    if (!defined)
      shard_buf_printf(mesh_out, "%s%s<[], device_ids=[%lld]>", mesh_out->len ? "\n" : "", def, (long long)c->device);
    tmp.mesh_name = name;
    if (!stripped) shard_buf_puts(out, "#sdy.sharding");
    shard_sharding_print(out, &tmp);
    return true;
  }
  case SHARD_CONV_NAMED: break;
  case SHARD_CONV_TUPLE: break;
  default:
    if (cx->rank < 0) {
      shard_error(cx->de, c->span, "a Shardy sharding lists every dimension: pass --shape to give the rank");
      return false;
    }
    if (!m) m = &empty;
    break;
  }
  if (c->kind == SHARD_CONV_NAMED) {
    tmp = *c->sharding;
  } else {
    tmp.rank = (uint32_t)cx->rank;
    tmp.dims = SHARD_NEW_ARRAY(cx->arena, shard_dim_sharding, tmp.rank + 1);
    for (uint32_t d = 0; d < tmp.rank; d++) {
      tmp.dims[d].priority = SHARD_NO_PRIORITY;
      tmp.dims[d].is_open = c->kind == SHARD_CONV_UNKNOWN;
    }
    if (c->kind == SHARD_CONV_UNREDUCED) {
      if (m->num_axes == 0) {
        shard_error(cx->de, c->span, "{unreduced} needs a mesh to name the unreduced axes: pass --mesh");
        return false;
      }
      tmp.num_unreduced = m->num_axes;
      tmp.unreduced = SHARD_NEW_ARRAY(cx->arena, shard_axis_ref, m->num_axes);
      for (uint32_t a = 0; a < m->num_axes; a++) tmp.unreduced[a].name = m->axes[a].name;
    }
    if (c->kind == SHARD_CONV_MANUAL)
      shard_warning(cx->de, c->span,
                    "Shardy has no fully manual sharding: a manual value lives in an "
                    "sdy.manual_computation over all axes, whose body shardings name no axes");
  }
  if (c->num_manual) {
    shard_buf axes;
    shard_buf_init(&axes);
    shard_axis_list_print(&axes, c->manual, c->num_manual);
    shard_warning(cx->de, c->span,
                  "Shardy writes manual axes on the enclosing sdy.manual_computation "
                  "(manual_axes=%s), not in the sharding: dropped",
                  shard_buf_str(&axes));
    shard_buf_free(&axes);
  }
  if (c->partial_op)
    shard_warning(cx->de, c->span, "Shardy reductions are sum, max and min: Partial(\"%s\") written as unreduced (sum)",
                  c->partial_op);
  tmp.mesh_name = mesh_name;
  tmp.inline_mesh = NULL;
  if (!stripped) shard_buf_puts(out, "#sdy.sharding");
  shard_sharding_print(out, &tmp);
  return true;
}

bool shard_sdy_conv_print(shard_conv_ctx *cx, const shard_conv *c, shard_buf *out, shard_buf *mesh_out) {
  if (c->kind == SHARD_CONV_TUPLE) {
    /* One mesh line per distinct mesh. */
    const shard_mesh **seen = shard_xcalloc(c->num_elems + 1, sizeof *seen);
    const char **names = shard_xcalloc(c->num_elems + 1, sizeof *names);
    uint32_t num_seen = 0;
    shard_buf_puts(out, "#sdy.sharding_per_value<[");
    bool ok = true;
    for (uint32_t i = 0; i < c->num_elems && ok; i++) {
      const shard_conv *e = &c->elems[i];
      const shard_mesh *m = shard_conv_mesh_of(cx, e);
      const char *name = "mesh";
      /* A mesh-less element ({replicated} in a tuple) still names a mesh:
       * define an empty one, as a single sharding does. */
      static const shard_mesh no_axes = {0};
      if (!m) m = &no_axes;
      if (e->kind != SHARD_CONV_MAXIMAL) {
        uint32_t k = 0;
        while (k < num_seen && !shard_mesh_equal(seen[k], m)) k++;
        if (k == num_seen) {
          seen[num_seen] = m;
          names[num_seen] = e->mesh_name    ? e->mesh_name
                            : num_seen == 0 ? "mesh"
                                            : shard_arena_printf(cx->arena, "mesh_%u", num_seen);
          shard_buf_printf(mesh_out, "%ssdy.mesh @%s = ", mesh_out->len ? "\n" : "", names[num_seen]);
          shard_mesh_print(mesh_out, m);
          num_seen++;
        }
        name = names[k];
      }
      if (i) shard_buf_puts(out, ", ");
      ok = sdy_print_one(cx, e, name, out, mesh_out, true);
    }
    shard_buf_puts(out, "]>");
    free(seen);
    free(names);
    return ok;
  }
  const shard_mesh *m = shard_conv_mesh_of(cx, c);
  const char *name = c->mesh_name ? c->mesh_name : "mesh";
  if (c->kind != SHARD_CONV_MAXIMAL) {
    shard_mesh empty = {0};
    shard_buf_printf(mesh_out, "sdy.mesh @%s = ", name);
    shard_mesh_print(mesh_out, m ? m : &empty);
  }
  return sdy_print_one(cx, c, name, out, mesh_out, false);
}

/* ---- dispatch ------------------------------------------------------------------------------------ */

shard_conv *shard_conv_parse(shard_conv_ctx *cx, shard_notation from, const shard_source *src) {
  switch (from) {
  case SHARD_NOTATION_HLO:
  case SHARD_NOTATION_HLO_V3: {
    shard_hlo_sharding *h = shard_hlo_parse(cx, src, 0, (uint32_t)src->len);
    if (!h) return NULL;
    if (cx->rank >= 0 && !shard_hlo_validate(cx, h, cx->shape, cx->rank, 0)) return NULL;
    /* V3 names are written as they were read: bare (XLA's printer) unless quoted */
    cx->v3_bare = !memchr(src->text, '\'', src->len);
    shard_conv *c = shard_hlo_to_conv(cx, h);
    if (c && h->kind != SHARD_HLO_NAMED) {
      c->hlo = h;
      if (!c->metadata) c->metadata = h->metadata;
      for (uint32_t i = 0; h->kind == SHARD_HLO_TUPLE && i < c->num_elems; i++)
        if (h->elems[i].kind != SHARD_HLO_NAMED) {
          c->elems[i].hlo = &h->elems[i];
          if (!c->elems[i].metadata) c->elems[i].metadata = h->elems[i].metadata;
        }
    }
    return c;
  }
  case SHARD_NOTATION_SHARDY: return shard_sdy_conv_parse(cx, src);
  case SHARD_NOTATION_PSPEC: return shard_pspec_parse(cx, src);
  case SHARD_NOTATION_DTENSOR: return shard_dtensor_parse(cx, src);
  case SHARD_NOTATION_TF: return shard_tf_parse(cx, src);
  case SHARD_NOTATION_PADDLE:
  case SHARD_NOTATION_PADDLE_PLACEMENTS: return shard_paddle_parse(cx, src);
  case SHARD_NOTATION_ONEFLOW:
  case SHARD_NOTATION_ONEFLOW_PYTHON: return shard_oneflow_parse(cx, src);
  }
  return NULL;
}

bool shard_conv_print(shard_conv_ctx *cx, shard_notation to, const shard_conv *c, shard_buf *out, shard_buf *mesh_out) {
  if (!shard_conv_check_exact(cx, c, to)) return false;
  if (!(to == SHARD_NOTATION_HLO && c->hlo) && !conv_ids_permutation(c)) {
    shard_error(cx->de, c->span,
                "the tile assignment is not a permutation of its devices: only HloSharding V2 can "
                "write it");
    return false;
  }
  switch (to) {
  case SHARD_NOTATION_HLO: {
    if (c->hlo) { /* V2 read, V2 written: XLA's printer on what was read */
      shard_hlo_print(out, c->hlo);
      return true;
    }
    shard_hlo_sharding *h = shard_hlo_from_conv(cx, c, true);
    if (!h) return false;
    if (c->v2_explicit && h->kind == SHARD_HLO_TILED && !h->devices) h->devices = shard_hlo_device_array_in(cx, h);
    shard_hlo_print(out, h);
    return true;
  }
  case SHARD_NOTATION_HLO_V3: return shard_hlo_print_v3(cx, out, c);
  case SHARD_NOTATION_SHARDY: return shard_sdy_conv_print(cx, c, out, mesh_out);
  case SHARD_NOTATION_PSPEC: return shard_pspec_print(cx, c, out, mesh_out);
  case SHARD_NOTATION_DTENSOR: return shard_dtensor_print(cx, c, out, mesh_out);
  case SHARD_NOTATION_TF: return shard_tf_print(cx, c, out);
  case SHARD_NOTATION_PADDLE: return shard_paddle_print_dist_attr(cx, c, out);
  case SHARD_NOTATION_PADDLE_PLACEMENTS: return shard_paddle_print_placements(cx, c, out, mesh_out);
  case SHARD_NOTATION_ONEFLOW: return shard_oneflow_print(cx, c, out, mesh_out, false);
  case SHARD_NOTATION_ONEFLOW_PYTHON: return shard_oneflow_print(cx, c, out, mesh_out, true);
  }
  return false;
}

void shard_conv_warn_shardy_only(shard_conv_ctx *cx, const shard_conv *c, const char *target, bool open_empty_ok) {
  if (c->kind == SHARD_CONV_NAMED) warn_shardy_only(cx, c, target, open_empty_ok);
}

bool shard_conv_quotable(const char *name) { return !(strchr(name, '\'') && strchr(name, '"')); }

bool shard_conv_mesh_names_ok(shard_conv_ctx *cx, const shard_conv *c, const shard_mesh *m,
                              bool (*spellable)(const char *name), const char *notation, const char *why) {
  for (uint32_t a = 0; m && a < m->num_axes; a++)
    if (!spellable(m->axes[a].name)) {
      shard_error(cx->de, c->span, "mesh axis \"%s\" has no %s spelling (%s)", m->axes[a].name, notation, why);
      return false;
    }
  return true;
}

/* Python strings as these notations are read have no escapes. */
static bool python_names_ok(shard_conv_ctx *cx, const shard_conv *c) {
  return shard_conv_mesh_names_ok(cx, c, shard_conv_mesh_of(cx, c), shard_conv_quotable, "Python string",
                                  "Python strings here have no escapes, and the name holds both ' and \"");
}

bool shard_conv_print_python(shard_conv_ctx *cx, const shard_conv *c, shard_buf *out, shard_buf *mesh_out,
                             shard_conv_print_fn one) {
  if (c->kind != SHARD_CONV_TUPLE) return python_names_ok(cx, c) && one(cx, c, out, mesh_out);
  shard_buf_putc(out, '(');
  bool ok = true;
  for (uint32_t i = 0; i < c->num_elems && ok; i++) {
    if (i) shard_buf_puts(out, ", ");
    ok = python_names_ok(cx, &c->elems[i]) && one(cx, &c->elems[i], out, mesh_out);
  }
  if (c->num_elems == 1) shard_buf_putc(out, ',');
  shard_buf_putc(out, ')');
  return ok;
}
