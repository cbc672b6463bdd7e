/* StableHLO's mesh-axes replica groups and meshes: parsed with the token API
 * of parse.h into the structs of attr_stablehlo_mesh.h, printed from them
 * as StableHLO prints them, compared field by field.
 *
 * The grammar (StableHLO's assembly formats; struct(...) parameters may come
 * in any order, each once):
 *
 *   replica-group-mesh-axes ::= '<' struct(mesh = mesh-ref, axes = '[' (axis-ref (',' axis-ref)*)? ']') '>'
 *   mesh-ref  ::= symbol-ref-id | '#stablehlo.mesh' mesh-body | alias of a #stablehlo.mesh
 *   axis-ref  ::= '#stablehlo.axis_ref' '<' struct(name = string, (sub_axis_info = '(' int ')' int)?) '>'
 *   mesh-body ::= '<' 'axes' '=' '[' (mesh-axis (',' mesh-axis)*)? ']' (',' 'device_ids' '=' dense-attr)? '>'
 *   mesh-axis ::= '#stablehlo.mesh_axis'? '<' struct(name = string, size = int) '>'
 *
 * Messages are MLIR's: "expected '<'", "expected string", "expected integer
 * value", and those of its generated struct parsers ("duplicate or unknown
 * struct parameter name: ...", "struct is missing required parameter: ..."). */
#include <string.h>

#include "ir/attr_stablehlo_mesh.h"

/* ---- accessors and builders ------------------------------------------------ */

const shard_shlo_mesh *shard_attr_shlo_mesh(const shard_attr *a) {
  return a && a->kind == SHARD_ATTR_SHLO_MESH ? a->u.shlo_mesh : NULL;
}

const shard_shlo_mesh_axes *shard_attr_mesh_axes(const shard_attr *a) {
  return a && a->kind == SHARD_ATTR_SHLO_MESH_AXES ? a->u.mesh_axes : NULL;
}

const char *shard_shlo_mesh_axes_symbol(const shard_shlo_mesh_axes *g) {
  const shard_attr *m = g ? g->mesh : NULL;
  return m && m->kind == SHARD_ATTR_SYMREF && m->u.symref.num == 1 ? m->u.symref.path[0] : NULL;
}

shard_attr *shard_attr_shlo_mesh_new(shard_arena *a, const shard_mesh_axis *axes, uint32_t n, shard_attr *device_ids) {
  shard_attr *at = shard_attr_new(a, SHARD_ATTR_SHLO_MESH);
  shard_shlo_mesh *m = SHARD_NEW(a, shard_shlo_mesh);
  m->num_axes = n;
  m->axes = n ? shard_arena_dup(a, axes, sizeof *axes * n) : NULL;
  m->device_ids = device_ids;
  at->u.shlo_mesh = m;
  return at;
}

shard_attr *shard_attr_mesh_axes_new(shard_arena *a, shard_attr *mesh, const shard_axis_ref *axes, uint32_t n) {
  shard_attr *at = shard_attr_new(a, SHARD_ATTR_SHLO_MESH_AXES);
  shard_shlo_mesh_axes *g = SHARD_NEW(a, shard_shlo_mesh_axes);
  g->mesh = mesh;
  g->num_axes = n;
  g->axes = n ? shard_arena_dup(a, axes, sizeof *axes * n) : NULL;
  at->u.mesh_axes = g;
  return at;
}

shard_attr *shard_attr_symbol_ref(shard_arena *a, const char *name) {
  shard_attr *at = shard_attr_new(a, SHARD_ATTR_SYMREF);
  const char **path = SHARD_NEW_ARRAY(a, const char *, 1);
  path[0] = shard_arena_strdup(a, name);
  at->u.symref.path = path;
  at->u.symref.num = 1;
  return at;
}

/* ---- parsing ------------------------------------------------------------------ */

static bool S_name_is(const char *name, uint32_t len, const char *lit) {
  return strlen(lit) == len && memcmp(name, lit, len) == 0;
}

bool shard_shlo_mesh_attr_name(const char *name, uint32_t len) {
  return S_name_is(name, len, "stablehlo.replica_group_mesh_axes") || S_name_is(name, len, "stablehlo.mesh");
}

static bool S_peek_hash(shard_parser *p, const char *name) {
  shard_tok t = shard_parser_peek(p);
  return t.kind == SHARD_TOK_HASH && S_name_is(t.text, t.len, name);
}

/* One `key = ` of a struct(...) format: the key, or false. A key not in
 * `keys` (NULL-terminated) or seen before is MLIR's "duplicate or unknown"
 * error. *which gets its index. */
static bool S_struct_key(shard_parser *p, const char *const *keys, bool *seen, int *which) {
  shard_tok t = shard_parser_peek(p);
  if (t.kind != SHARD_TOK_IDENT) return shard_parser_error(p, "expected a parameter name in struct");
  shard_parser_next(p);
  *which = -1;
  for (int i = 0; keys[i]; i++)
    if (shard_tok_is(&t, keys[i])) *which = i;
  if (*which < 0 || seen[*which])
    return shard_parser_error_at(p, shard_parser_span(p, &t), "duplicate or unknown struct parameter name: %.*s",
                                 (int)t.len, t.text);
  seen[*which] = true;
  return shard_parser_expect(p, "=");
}

/* After the last struct entry: every required key (those before `nreq`) seen. */
static bool S_struct_complete(shard_parser *p, const char *const *keys, const bool *seen, int nreq) {
  for (int i = 0; i < nreq; i++)
    if (!seen[i]) return shard_parser_error(p, "struct is missing required parameter: %s", keys[i]);
  return true;
}

// mesh-axis ::= '#stablehlo.mesh_axis'? '<' struct(name = string, size = int) '>'
static bool S_mesh_axis(shard_parser *p, shard_mesh_axis *out) {
  static const char *const keys[] = {"name", "size", NULL};
  bool seen[2] = {false, false};
  if (S_peek_hash(p, "#stablehlo.mesh_axis")) shard_parser_next(p);
  if (!shard_parser_expect(p, "<")) return false;
  do {
    int k;
    if (!S_struct_key(p, keys, seen, &k)) return false;
    if (k == 0 ? !shard_parser_string(p, &out->name, NULL) : !shard_parser_int(p, &out->size)) return false;
  } while (shard_parser_accept(p, ","));
  return S_struct_complete(p, keys, seen, 2) && shard_parser_expect(p, ">");
}

// mesh-body ::= '<' 'axes' '=' '[' (mesh-axis (',' mesh-axis)*)? ']' (',' 'device_ids' '=' dense-attr)? '>'
static bool S_mesh_body(shard_parser *p, shard_attr **out) {
  shard_arena *a = shard_parser_arena(p);
  SHARD_VEC(shard_mesh_axis) axes = {0};
  shard_attr *ids = NULL;
  bool ok = shard_parser_expect(p, "<") && shard_parser_expect_keyword(p, "axes") && shard_parser_expect(p, "=") &&
            shard_parser_expect(p, "[");
  if (ok && !shard_parser_accept(p, "]")) {
    do {
      shard_mesh_axis ax = {NULL, 0};
      if (!(ok = S_mesh_axis(p, &ax))) break;
      SHARD_VEC_PUSH(axes, ax);
    } while (shard_parser_accept(p, ","));
    ok = ok && shard_parser_expect(p, "]");
  }
  if (ok && shard_parser_accept(p, ",")) {
    shard_span at = shard_parser_here(p);
    ok = shard_parser_expect_keyword(p, "device_ids") && shard_parser_expect(p, "=") && shard_parser_attr(p, &ids);
    if (ok && !(ids->kind == SHARD_ATTR_DENSE && ids->u.dense.type && ids->u.dense.type->elem &&
                ids->u.dense.type->elem[0] && strchr("isu", ids->u.dense.type->elem[0])))
      ok = shard_parser_error_at(p, at, "invalid kind of attribute specified");
  }
  ok = ok && shard_parser_expect(p, ">");
  if (ok) *out = shard_attr_shlo_mesh_new(a, axes.items, axes.len, ids);
  SHARD_VEC_FREE(axes);
  return ok;
}

// axis-ref ::= '#stablehlo.axis_ref' '<' struct(name = string, (sub_axis_info = '(' int ')' int)?) '>'
static bool S_axis_ref(shard_parser *p, shard_axis_ref *out) {
  static const char *const keys[] = {"name", "sub_axis_info", NULL};
  bool seen[2] = {false, false};
  memset(out, 0, sizeof *out);
  if (!S_peek_hash(p, "#stablehlo.axis_ref")) return shard_parser_error(p, "expected '#stablehlo.axis_ref'");
  shard_parser_next(p);
  if (!shard_parser_expect(p, "<")) return false;
  do {
    int k;
    if (!S_struct_key(p, keys, seen, &k)) return false;
    if (k == 0) {
      if (!shard_parser_string(p, &out->name, NULL)) return false;
    } else {
      out->is_sub = true;
      if (!(shard_parser_expect(p, "(") && shard_parser_int(p, &out->pre_size) && shard_parser_expect(p, ")") &&
            shard_parser_int(p, &out->size)))
        return false;
    }
  } while (shard_parser_accept(p, ","));
  return S_struct_complete(p, keys, seen, 1) && shard_parser_expect(p, ">");
}

// replica-group-mesh-axes ::= '<' struct(mesh = mesh-ref, axes = '[' axis-ref,* ']') '>'
static bool S_mesh_axes_body(shard_parser *p, shard_attr **out) {
  static const char *const keys[] = {"mesh", "axes", NULL};
  bool seen[2] = {false, false};
  shard_arena *a = shard_parser_arena(p);
  shard_attr *mesh = NULL;
  SHARD_VEC(shard_axis_ref) axes = {0};
  bool ok = shard_parser_expect(p, "<");
  while (ok) {
    int k;
    if (!(ok = S_struct_key(p, keys, seen, &k))) break;
    if (k == 0) {
      shard_tok t = shard_parser_peek(p);
      shard_span at = shard_parser_span(p, &t);
      if (t.kind == SHARD_TOK_AT) {
        const char *sym;
        if ((ok = shard_parser_symbol(p, &sym))) mesh = shard_attr_symbol_ref(a, sym);
      } else if (S_peek_hash(p, "#stablehlo.mesh")) {
        shard_parser_next(p);
        ok = S_mesh_body(p, &mesh);
      } else if (t.kind == SHARD_TOK_HASH) { /* an alias of a mesh */
        if ((ok = shard_parser_attr(p, &mesh)) && mesh->kind != SHARD_ATTR_SHLO_MESH)
          ok = shard_parser_error_at(p, at, "invalid kind of attribute specified");
        if (ok) at = mesh->span;
      } else {
        ok = shard_parser_error(p, "expected a symbol reference or '#stablehlo.mesh'");
      }
      if (ok) mesh->span = at;
    } else if ((ok = shard_parser_expect(p, "[")) && !shard_parser_accept(p, "]")) {
      do {
        shard_axis_ref r;
        if (!(ok = S_axis_ref(p, &r))) break;
        SHARD_VEC_PUSH(axes, r);
      } while (shard_parser_accept(p, ","));
      ok = ok && shard_parser_expect(p, "]");
    }
    if (!ok || !shard_parser_accept(p, ",")) break;
  }
  ok = ok && S_struct_complete(p, keys, seen, 2) && shard_parser_expect(p, ">");
  if (ok) *out = shard_attr_mesh_axes_new(a, mesh, axes.items, axes.len);
  SHARD_VEC_FREE(axes);
  return ok;
}

bool shard_parse_shlo_mesh_attr(shard_parser *p, const char *name, uint32_t len, shard_attr **out) {
  if (S_name_is(name, len, "stablehlo.mesh")) return S_mesh_body(p, out);
  return S_mesh_axes_body(p, out);
}

/* ---- printing and equality ------------------------------------------------------ */

static void S_name(shard_buf *b, const char *name) {
  shard_buf_puts(b, "name = ");
  shard_buf_put_escaped(b, name, strlen(name));
}

void shard_shlo_mesh_attr_print(shard_buf *b, const shard_attr *a) {
  if (a->kind == SHARD_ATTR_SHLO_MESH) {
    const shard_shlo_mesh *m = a->u.shlo_mesh;
    shard_buf_puts(b, "#stablehlo.mesh<axes=[");
    for (uint32_t i = 0; i < m->num_axes; i++) {
      shard_buf_puts(b, i ? ", <" : "<");
      S_name(b, m->axes[i].name);
      shard_buf_puts(b, ", size = ");
      shard_buf_put_i64(b, m->axes[i].size);
      shard_buf_putc(b, '>');
    }
    shard_buf_putc(b, ']');
    if (m->device_ids) {
      shard_buf_puts(b, ", device_ids=");
      shard_attr_print(b, m->device_ids);
    }
    shard_buf_putc(b, '>');
    return;
  }
  const shard_shlo_mesh_axes *g = a->u.mesh_axes;
  shard_buf_puts(b, "#stablehlo.replica_group_mesh_axes<mesh = ");
  shard_attr_print(b, g->mesh);
  shard_buf_puts(b, ", axes = [");
  for (uint32_t i = 0; i < g->num_axes; i++) {
    shard_buf_puts(b, i ? ", #stablehlo.axis_ref<" : "#stablehlo.axis_ref<");
    S_name(b, g->axes[i].name);
    if (g->axes[i].is_sub) {
      shard_buf_puts(b, ", sub_axis_info = (");
      shard_buf_put_i64(b, g->axes[i].pre_size);
      shard_buf_putc(b, ')');
      shard_buf_put_i64(b, g->axes[i].size);
    }
    shard_buf_putc(b, '>');
  }
  shard_buf_puts(b, "]>");
}

bool shard_shlo_mesh_attr_equal(const shard_attr *a, const shard_attr *b) {
  if (a->kind != b->kind) return false;
  if (a->kind == SHARD_ATTR_SHLO_MESH) {
    const shard_shlo_mesh *x = a->u.shlo_mesh, *y = b->u.shlo_mesh;
    if (x->num_axes != y->num_axes || !x->device_ids != !y->device_ids) return false;
    for (uint32_t i = 0; i < x->num_axes; i++)
      if (x->axes[i].size != y->axes[i].size || strcmp(x->axes[i].name, y->axes[i].name) != 0) return false;
    return !x->device_ids || shard_attr_equal(x->device_ids, y->device_ids);
  }
  if (a->kind != SHARD_ATTR_SHLO_MESH_AXES) return false;
  const shard_shlo_mesh_axes *x = a->u.mesh_axes, *y = b->u.mesh_axes;
  if (x->num_axes != y->num_axes || !shard_attr_equal(x->mesh, y->mesh)) return false;
  for (uint32_t i = 0; i < x->num_axes; i++) {
    const shard_axis_ref *r = &x->axes[i], *s = &y->axes[i];
    if (strcmp(r->name, s->name) != 0 || r->is_sub != s->is_sub ||
        (r->is_sub && (r->pre_size != s->pre_size || r->size != s->size)))
      return false;
  }
  return true;
}
