/* Attribute builders, printing and equality. sdy attributes are printed by
 * sdy_print.c; everything else here, the way MLIR prints it. */
#include "ir/attr.h"
#include "ir/attr_stablehlo_mesh.h"

#include <ctype.h>
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

shard_attr *shard_attr_new(shard_arena *a, shard_attr_kind kind) {
  shard_attr *at = SHARD_NEW(a, shard_attr);
  at->kind = kind;
  return at;
}

shard_attr *shard_attr_int(shard_arena *a, int64_t v, shard_type *type) {
  shard_attr *at = shard_attr_new(a, SHARD_ATTR_INT);
  at->u.integer.value = v;
  at->u.integer.type = type;
  return at;
}

shard_attr *shard_attr_string(shard_arena *a, const char *s, uint32_t len) {
  shard_attr *at = shard_attr_new(a, SHARD_ATTR_STRING);
  at->u.str.data = shard_arena_strndup(a, s, len);
  at->u.str.len = len;
  return at;
}

shard_attr *shard_attr_raw(shard_arena *a, const char *text) {
  shard_attr *at = shard_attr_new(a, SHARD_ATTR_RAW);
  at->u.raw = text;
  return at;
}

shard_attr *shard_attr_dense_i64(shard_arena *a, const int64_t *vals, uint32_t n) {
  shard_attr *at = shard_attr_new(a, SHARD_ATTR_DENSE_ARRAY);
  at->u.dense_array.elem = "i64";
  at->u.dense_array.vals = n ? shard_arena_dup(a, vals, sizeof(int64_t) * n) : NULL;
  at->u.dense_array.num = n;
  return at;
}

shard_attr *shard_attr_array(shard_arena *a, shard_attr *const *elems, uint32_t n) {
  shard_attr *at = shard_attr_new(a, SHARD_ATTR_ARRAY);
  at->u.array.num = n;
  at->u.array.elems = n ? shard_arena_dup(a, elems, sizeof(shard_attr *) * n) : NULL;
  return at;
}

shard_attr *shard_attr_sharding(shard_arena *a, shard_tensor_sharding *s) {
  shard_attr *at = shard_attr_new(a, SHARD_ATTR_SDY_SHARDING);
  at->u.sharding = s;
  return at;
}

shard_attr *shard_attr_per_value(shard_arena *a, shard_tensor_sharding *s, uint32_t n) {
  shard_attr *at = shard_attr_new(a, SHARD_ATTR_SDY_PER_VALUE);
  shard_sharding_per_value *pv = SHARD_NEW(a, shard_sharding_per_value);
  pv->shardings = s;
  pv->num = n;
  at->u.per_value = pv;
  return at;
}

/* MLIR prints a float literal as %e with six digits when that reads back to
 * the same value of the element type, else with enough digits to round-trip. */
static void S_print_float(shard_buf *b, const char *text, size_t len, bool is_f32) {
  char tmp[64];
  if (len >= sizeof tmp || (len > 1 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X'))) {
    shard_buf_putn(b, text, len);
    return;
  }
  memcpy(tmp, text, len);
  tmp[len] = 0;
  char *end;
  double v = strtod(tmp, &end);
  if (*end || isnan(v) || isinf(v)) {
    shard_buf_putn(b, text, len);
    return;
  }
  /* the digits are those of the element type's value (68937445.0 is the f32
   * 68937448, whose six digits differ from the literal's), so that a print
   * read back prints the same */
  if (is_f32) v = (double)(float)v;
  char out[64];
  snprintf(out, sizeof out, "%.6e", v);
  double back = strtod(out, NULL);
  bool exact = is_f32 ? (float)back == (float)v : back == v;
  if (!exact) snprintf(out, sizeof out, "%.*g", is_f32 ? 9 : 17, is_f32 ? (double)(float)v : v);
  shard_buf_puts(b, out);
  /* %g drops the point of an integral value (77777771): without one the
   * literal would read back as an integer */
  if (!strpbrk(out, ".e")) shard_buf_puts(b, ".0");
}

static bool S_is_float_literal(const char *s, size_t n) {
  size_t i = (n && (s[0] == '-' || s[0] == '+')) ? 1 : 0;
  if (i >= n || !isdigit((unsigned char)s[i])) return false;
  bool dot = false;
  for (; i < n; i++) {
    if (s[i] == '.' || s[i] == 'e' || s[i] == 'E') dot = true;
    else if (!isdigit((unsigned char)s[i]) && s[i] != '-' && s[i] != '+') return false;
  }
  return dot;
}

/* A dense payload with its float literals canonicalised; a list whose
 * elements are all the same prints as a splat, as MLIR does. */
static void S_print_dense_payload(shard_buf *b, const char *payload, const shard_type *type) {
  bool is_f32 = type && type->elem &&
                (strcmp(type->elem, "f32") == 0 || strcmp(type->elem, "f16") == 0 || strcmp(type->elem, "bf16") == 0);
  shard_buf norm;
  shard_buf_init(&norm);
  const char *first_leaf = NULL;
  size_t first_len = 0, leaves = 0;
  bool all_same = true;
  shard_buf leaf;
  shard_buf_init(&leaf);
  for (const char *s = payload; *s;) {
    if (*s == '"') { /* hex string payloads stay as they are */
      free((void *)first_leaf);
      shard_buf_free(&norm);
      shard_buf_free(&leaf);
      shard_buf_puts(b, payload);
      return;
    }
    if (strchr("[](), ", *s)) {
      if (*s == ',') shard_buf_puts(&norm, ", ");
      else if (*s != ' ') shard_buf_putc(&norm, *s);
      s++;
      continue;
    }
    const char *start = s;
    while (*s && !strchr("[](), ", *s)) s++;
    shard_buf_clear(&leaf);
    if (S_is_float_literal(start, (size_t)(s - start))) S_print_float(&leaf, start, (size_t)(s - start), is_f32);
    else shard_buf_putn(&leaf, start, (size_t)(s - start));
    const char *ls = shard_buf_str(&leaf);
    if (!leaves) {
      first_leaf = shard_xstrdup(ls);
      first_len = leaf.len;
    } else if (leaf.len != first_len || memcmp(ls, first_leaf, first_len) != 0) {
      all_same = false;
    }
    leaves++;
    shard_buf_puts(&norm, ls);
  }
  bool complex = type && type->elem && strncmp(type->elem, "complex", 7) == 0;
  if (leaves > 1 && all_same && !complex && strchr(payload, '[')) shard_buf_putn(b, first_leaf, first_len);
  else shard_buf_puts(b, shard_buf_str(&norm));
  free((void *)first_leaf);
  shard_buf_free(&norm);
  shard_buf_free(&leaf);
}

static bool S_is_bare_name(const char *s) {
  if (!*s || !(isalpha((unsigned char)*s) || *s == '_')) return false;
  for (; *s; s++)
    if (!(isalnum((unsigned char)*s) || *s == '_' || *s == '$' || *s == '.')) return false;
  return true;
}

static void S_print_name(shard_buf *b, const char *name) {
  if (S_is_bare_name(name)) shard_buf_puts(b, name);
  else shard_buf_put_escaped(b, name, strlen(name));
}

static void S_print_symbol(shard_buf *b, const char *name) {
  shard_buf_putc(b, '@');
  /* symbol names print bare when they are suffix-ids */
  bool bare = *name != 0;
  for (const char *s = name; *s; s++)
    if (!(isalnum((unsigned char)*s) || strchr("_$.-", *s))) bare = false;
  if (bare) shard_buf_puts(b, name);
  else shard_buf_put_escaped(b, name, strlen(name));
}

void shard_attr_print(shard_buf *b, const shard_attr *a) {
  switch (a->kind) {
  case SHARD_ATTR_RAW: shard_buf_puts(b, a->u.raw); return;
  case SHARD_ATTR_SHLO_DOT:
  case SHARD_ATTR_SHLO_CONV:
  case SHARD_ATTR_SHLO_GATHER:
  case SHARD_ATTR_SHLO_SCATTER:
  case SHARD_ATTR_SHLO_ENUM:
  case SHARD_ATTR_SHLO_CHANNEL: shard_shlo_attr_print(b, a); return;
  case SHARD_ATTR_SHLO_MESH:
  case SHARD_ATTR_SHLO_MESH_AXES: shard_shlo_mesh_attr_print(b, a); return;
  case SHARD_ATTR_LOC: shard_buf_puts(b, a->u.raw); return;
  case SHARD_ATTR_UNIT: shard_buf_puts(b, "unit"); return;
  case SHARD_ATTR_BOOL: shard_buf_puts(b, a->u.boolean ? "true" : "false"); return;
  case SHARD_ATTR_INT: {
    const shard_type *t = a->u.integer.type;
    if (t && strcmp(t->text, "i1") == 0) {
      shard_buf_puts(b, a->u.integer.value ? "true" : "false");
      return;
    }
    if (a->u.integer.text) shard_buf_puts(b, a->u.integer.text);
    else shard_buf_put_i64(b, a->u.integer.value);
    shard_buf_puts(b, " : ");
    shard_buf_puts(b, t ? t->text : "i64");
    return;
  }
  case SHARD_ATTR_FLOAT: {
    const char *ty = a->u.flt.type ? a->u.flt.type->text : "f64";
    S_print_float(b, a->u.flt.text, strlen(a->u.flt.text), strcmp(ty, "f64") != 0);
    shard_buf_puts(b, " : ");
    shard_buf_puts(b, ty);
    return;
  }
  case SHARD_ATTR_STRING: shard_buf_put_escaped(b, a->u.str.data, a->u.str.len); return;
  case SHARD_ATTR_SYMREF:
    for (uint32_t i = 0; i < a->u.symref.num; i++) {
      if (i) shard_buf_puts(b, "::");
      S_print_symbol(b, a->u.symref.path[i]);
    }
    return;
  case SHARD_ATTR_TYPE: shard_buf_puts(b, a->u.type->text); return;
  case SHARD_ATTR_ARRAY:
    shard_buf_putc(b, '[');
    for (uint32_t i = 0; i < a->u.array.num; i++) {
      const shard_attr *e = a->u.array.elems[i];
      if (i) shard_buf_puts(b, ", ");
      /* inside arrays MLIR elides the default types i64 and f64 */
      if (e->kind == SHARD_ATTR_INT && (!e->u.integer.type || strcmp(e->u.integer.type->text, "i64") == 0)) {
        if (e->u.integer.text) shard_buf_puts(b, e->u.integer.text);
        else shard_buf_put_i64(b, e->u.integer.value);
      } else if (e->kind == SHARD_ATTR_FLOAT && (!e->u.flt.type || strcmp(e->u.flt.type->text, "f64") == 0)) {
        S_print_float(b, e->u.flt.text, strlen(e->u.flt.text), false);
      } else {
        shard_attr_print(b, e);
      }
    }
    shard_buf_putc(b, ']');
    return;
  case SHARD_ATTR_DICT:
    shard_buf_putc(b, '{');
    for (uint32_t i = 0; i < a->u.dict.num; i++) {
      const shard_named_attr *e = &a->u.dict.entries[i];
      if (i) shard_buf_puts(b, ", ");
      S_print_name(b, e->name);
      if (e->value->kind != SHARD_ATTR_UNIT) {
        shard_buf_puts(b, " = ");
        shard_attr_print(b, e->value);
      }
    }
    shard_buf_putc(b, '}');
    return;
  case SHARD_ATTR_DENSE_ARRAY: {
    shard_buf_puts(b, "array<");
    shard_buf_puts(b, a->u.dense_array.elem);
    bool i1 = strcmp(a->u.dense_array.elem, "i1") == 0;
    for (uint32_t i = 0; i < a->u.dense_array.num; i++) {
      shard_buf_puts(b, i ? ", " : ": ");
      if (i1) shard_buf_puts(b, a->u.dense_array.vals[i] ? "true" : "false");
      else shard_buf_put_i64(b, a->u.dense_array.vals[i]);
    }
    shard_buf_putc(b, '>');
    return;
  }
  case SHARD_ATTR_DENSE:
    shard_buf_puts(b, "dense<");
    S_print_dense_payload(b, a->u.dense.payload, a->u.dense.type);
    shard_buf_puts(b, "> : ");
    shard_buf_puts(b, a->u.dense.type->text);
    return;
  case SHARD_ATTR_SDY_MANUAL_AXES:
  case SHARD_ATTR_SDY_AXIS_LIST:
  case SHARD_ATTR_SDY_AXIS_LISTS:
  case SHARD_ATTR_SDY_ALL_TO_ALL:
  case SHARD_ATTR_SDY_REDUCTION:
  case SHARD_ATTR_SDY_DIRECTION: {
    /* Op parameters print bare in their op's syntax; anywhere else (attribute
     * dictionaries, generic form) they need the dialect wrapper. */
    static const char *const mnemonic[] = {
        [SHARD_ATTR_SDY_MANUAL_AXES] = "manual_axes",
        [SHARD_ATTR_SDY_AXIS_LIST] = "axis_ref_list",
        [SHARD_ATTR_SDY_AXIS_LISTS] = "list_of_axis_ref_lists",
        [SHARD_ATTR_SDY_ALL_TO_ALL] = "all_to_all_param_list",
        [SHARD_ATTR_SDY_REDUCTION] = "reduction_op",
        [SHARD_ATTR_SDY_DIRECTION] = "propagation_direction",
    };
    bool keyword = a->kind == SHARD_ATTR_SDY_REDUCTION || a->kind == SHARD_ATTR_SDY_DIRECTION;
    shard_buf_puts(b, "#sdy<");
    shard_buf_puts(b, mnemonic[a->kind]);
    if (keyword) shard_buf_putc(b, ' ');
    shard_sdy_attr_print(b, a);
    shard_buf_putc(b, '>');
    return;
  }
  default: shard_sdy_attr_print(b, a); return;
  }
}

bool shard_attr_equal(const shard_attr *a, const shard_attr *b) {
  if (a == b) return true;
  if (!a || !b) return false;
  if (a->kind >= SHARD_ATTR_SHLO_MESH || b->kind >= SHARD_ATTR_SHLO_MESH) return shard_shlo_mesh_attr_equal(a, b);
  if (a->kind >= SHARD_ATTR_SHLO_DOT || b->kind >= SHARD_ATTR_SHLO_DOT) return shard_shlo_attr_equal(a, b);
  /* Printing is canonical, so equal prints mean equal attributes. */
  shard_buf x, y;
  shard_buf_init(&x);
  shard_buf_init(&y);
  shard_attr_print(&x, a);
  shard_attr_print(&y, b);
  bool eq = x.len == y.len && memcmp(shard_buf_str(&x), shard_buf_str(&y), x.len) == 0;
  shard_buf_free(&x);
  shard_buf_free(&y);
  return eq;
}

/* The attribute names shard's code looks up, as literals, sorted by strcmp
 * (a unit test checks). The parser seeds its interned names with them and
 * S_set (ir.c) stores them instead of a copy, so an op's name is usually
 * the literal itself, the same pointer as the same literal at a lookup (the
 * linker merges identical literals): found without reading a string. Only
 * a speed-up: any other pointer is still found by its text. */
static const char *const S_known_names[] = {"api_version",
                                            "arg_attrs",
                                            "axes",
                                            "backend_config",
                                            "base_dilations",
                                            "batch_group_count",
                                            "broadcast_dimensions",
                                            "call_target_name",
                                            "callee",
                                            "channel_handle",
                                            "compare_type",
                                            "comparison_direction",
                                            "dimension",
                                            "dimension_numbers",
                                            "dimensions",
                                            "dot_dimension_numbers",
                                            "edge_padding_high",
                                            "edge_padding_low",
                                            "execution_thread",
                                            "feature_group_count",
                                            "function_type",
                                            "gathering_axes",
                                            "group_id",
                                            "has_side_effect",
                                            "in_shardings",
                                            "index",
                                            "indices_are_sorted",
                                            "interior_padding",
                                            "iota_dimension",
                                            "lhs_dilation",
                                            "limit_indices",
                                            "manual_axes",
                                            "mesh",
                                            "mhlo.aliasing_output",
                                            "mhlo.buffer_donor",
                                            "mhlo.frontend_attributes",
                                            "mhlo.layout_mode",
                                            "mhlo.memory_kind",
                                            "mhlo.num_partitions",
                                            "mhlo.num_replicas",
                                            "mhlo.sharding",
                                            "name",
                                            "operandSegmentSizes",
                                            "operand_layouts",
                                            "out_sharding",
                                            "out_shardings",
                                            "padding",
                                            "params",
                                            "permutation",
                                            "precision_config",
                                            "reduce_scatter_axes",
                                            "reduction_axes",
                                            "replica_groups",
                                            "res_attrs",
                                            "result_layouts",
                                            "rhs_dilation",
                                            "scatter_dimension_numbers",
                                            "sdy.block_arg_propagation_edges",
                                            "sdy.block_arg_sharding_origins",
                                            "sdy.func_manual_axes",
                                            "sdy.original_func_name",
                                            "sdy.propagation_edges",
                                            "sdy.result_propagation_edges",
                                            "sdy.result_sharding_origins",
                                            "sdy.sharding",
                                            "sdy.sharding_origin_name",
                                            "sdy.sharding_origins",
                                            "sdy.sharding_rule",
                                            "sharding",
                                            "slice_sizes",
                                            "slicing_axes",
                                            "source_target_pairs",
                                            "start_indices",
                                            "strides",
                                            "sym_name",
                                            "sym_visibility",
                                            "tf.aliasing_output",
                                            "unique_indices",
                                            "use_global_device_ids",
                                            "value",
                                            "window_dilations",
                                            "window_dimensions",
                                            "window_strides",
                                            "xla.sdy.manual_axes",
                                            "xla.sdy.meshes",
                                            "xla.sdy.sharding",
                                            "xla.sdy.sharding_rule"};

const char *const *shard_attr_known_names(uint32_t *n) {
  *n = sizeof S_known_names / sizeof *S_known_names;
  return S_known_names;
}

const char *shard_attr_known_name(const char *name) {
  enum { N = sizeof S_known_names / sizeof *S_known_names };
  /* Callers set the same few names over and over (propagation sets
   * `sdy.sharding` op after op): the last one found is checked before the
   * scan of all of them. Any thread may read or replace it; each value it
   * holds is one of the literals. */
  static _Atomic(const char *) last;
  if (atomic_load_explicit(&last, memory_order_relaxed) == name) return name;
  for (uint32_t i = 0; i < N; i++)
    if (S_known_names[i] == name) {
      atomic_store_explicit(&last, name, memory_order_relaxed);
      return name;
    }
  uint32_t lo = 0, hi = N;
  while (lo < hi) {
    uint32_t mid = lo + (hi - lo) / 2;
    int c = strcmp(S_known_names[mid], name);
    if (c == 0) return S_known_names[mid];
    if (c < 0) lo = mid + 1;
    else hi = mid;
  }
  return NULL;
}

/* name's place in the sorted list by its text (found or where it would
 * go). Out of line: only this path calls strcmp, so the pointer scans in
 * front of it stay leaf code without a frame to set up (a lookup is a few
 * dozen instructions, and modules make millions). */
static __attribute__((noinline)) uint32_t S_find_by_text(const shard_named_attr *list, uint32_t n, const char *name,
                                                         bool *found) {
  /* any other pointer (a name built at run time, an unseeded one, another
   * binary's literal): by its text; the first bytes decide most steps */
  uint32_t lo = 0, hi = n;
  while (lo < hi) {
    uint32_t mid = lo + (hi - lo) / 2;
    const char *m = list[mid].name;
    int c = m[0] != name[0] ? (unsigned char)m[0] - (unsigned char)name[0] : strcmp(m, name);
    if (c == 0) {
      *found = true;
      return mid;
    }
    if (c < 0) lo = mid + 1;
    else hi = mid;
  }
  *found = false;
  return lo;
}

/* S_find_by_text's attribute, or NULL (a tail call for shard_named_attr_get). */
static __attribute__((noinline)) shard_attr *S_get_by_text(const shard_named_attr *list, uint32_t n, const char *name) {
  bool found;
  uint32_t i = S_find_by_text(list, n, name, &found);
  return found ? list[i].value : NULL;
}

uint32_t shard_named_attr_find(const shard_named_attr *list, uint32_t n, const char *name, bool *found) {
  /* usually the very pointer in the list (see S_known_names): compared
   * without reading a string */
  for (uint32_t i = 0; i < n; i++)
    if (list[i].name == name) {
      *found = true;
      return i;
    }
  return S_find_by_text(list, n, name, found);
}

shard_attr *shard_named_attr_get(const shard_named_attr *list, uint32_t n, const char *name) {
  /* shard_named_attr_find's scan, repeated here so that a hit (and a miss
   * in an empty list, most ops') returns without a call */
  for (uint32_t i = 0; i < n; i++)
    if (list[i].name == name) return list[i].value;
  return n ? S_get_by_text(list, n, name) : NULL;
}
