/* TensorFlow DTensor layout strings:
 *
 *   sharding_specs:x,unsharded, mesh:NAME|x=2,y=2|0,1,2,3|0,1,2,3|/job:.../device:CPU:0,...
 *   sharding_specs:x,unsharded, mesh:|x=2,y=2|*CPU
 *
 * Each tensor dim names one mesh dim or is `unsharded` (`any` reads as an
 * open dim); the mesh carries its own device order (global ids). A tensor
 * dim over several mesh axes or a sub-axis has no spelling, so for those the
 * mesh is rebuilt from the HloSharding tile assignment: one mesh dim per
 * sharded tensor dim (named after the axes it merges), one per subgroup,
 * and the tile assignment as global device ids, which keeps every device's
 * data. TF layouts have no partial or manual values. */
#include <stdlib.h>
#include <string.h>

#include "convert/convert.h"

static bool tf_error(shard_conv_ctx *cx, const shard_source *src, uint32_t off, uint32_t len, const char *msg) {
  shard_span sp = {src, off, len ? len : 1};
  shard_error(cx->de, sp, "%s", msg);
  return false;
}

/* A layout separates its fields with ',', '|', '=', ':' and spaces, and
 * reads unsharded, any and match as keywords: a mesh dimension can only be
 * named with letters, digits and '_', and not like a keyword. */
static bool tf_name_ok(const char *name) {
  if (!name[0] || strcmp(name, "unsharded") == 0 || strcmp(name, "any") == 0 || strcmp(name, "match") == 0)
    return false;
  for (const char *p = name; *p; p++)
    if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '_')) return false;
  return true;
}

static uint32_t skip_spaces(const char *t, uint32_t i, uint32_t end) {
  while (i < end && (t[i] == ' ' || t[i] == '\t' || t[i] == '\n')) i++;
  return i;
}

/* A comma-separated list of non-negative integers in [i, end). */
static bool parse_ids(shard_conv_ctx *cx, const shard_source *src, uint32_t i, uint32_t end, int64_t **out,
                      uint32_t *n) {
  const char *t = src->text;
  SHARD_VEC(int64_t) v = {0};
  while (i < end) {
    i = skip_spaces(t, i, end);
    if (i >= end || t[i] < '0' || t[i] > '9') {
      SHARD_VEC_FREE(v);
      return tf_error(cx, src, i, 1, "expected a device id");
    }
    int64_t x = 0;
    while (i < end && t[i] >= '0' && t[i] <= '9') {
      if (x > (INT64_MAX - 9) / 10) {
        SHARD_VEC_FREE(v);
        return tf_error(cx, src, i, 1, "device id out of range");
      }
      x = x * 10 + (t[i++] - '0');
    }
    SHARD_VEC_PUSH(v, x);
    i = skip_spaces(t, i, end);
    if (i < end && t[i] != ',') {
      SHARD_VEC_FREE(v);
      return tf_error(cx, src, i, 1, "expected ',' between device ids");
    }
    i++;
  }
  *n = v.len;
  SHARD_VEC_FREEZE(cx->arena, v, *out);
  return true;
}

/* mesh ::= NAME? '|' dim ('=' INT) (',' dim '=' INT)* '|'
 *          ( '*' TYPE | global-ids '|' local-ids '|' local-devices ('|' global-devices)? )
 *          ('|' 'use_xla_spmd')? */
static shard_mesh *parse_tf_mesh(shard_conv_ctx *cx, const shard_source *src, uint32_t i, uint32_t end) {
  const char *t = src->text;
  uint32_t bar = i;
  while (bar < end && t[bar] != '|') bar++;
  if (bar >= end) {
    tf_error(cx, src, i, end - i, "expected 'NAME|x=2,y=2|...' after 'mesh:'");
    return NULL;
  }
  uint32_t dims_start = bar + 1, dims_end = dims_start;
  while (dims_end < end && t[dims_end] != '|') dims_end++;
  SHARD_VEC(shard_mesh_axis) axes = {0};
  uint32_t p = dims_start;
  while (p < dims_end) {
    uint32_t q = p;
    while (q < dims_end && t[q] != '=' && t[q] != ',') q++;
    if (q == p || q >= dims_end || t[q] != '=') {
      SHARD_VEC_FREE(axes);
      tf_error(cx, src, p, q - p, "expected a mesh dimension 'name=size'");
      return NULL;
    }
    shard_mesh_axis ax = {shard_arena_strndup(cx->arena, t + p, q - p), 0};
    if (strlen(ax.name) != q - p || !tf_name_ok(ax.name)) {
      SHARD_VEC_FREE(axes);
      tf_error(cx, src, p, q - p, "a mesh dimension name is letters, digits and '_' (and not unsharded, any or match)");
      return NULL;
    }
    q++;
    uint32_t digits = q;
    while (q < dims_end && t[q] >= '0' && t[q] <= '9') {
      if (ax.size > SHARD_CONV_MAX_DEVICES) break;
      ax.size = ax.size * 10 + (t[q++] - '0');
    }
    if (q == digits || ax.size < 1 || ax.size > SHARD_CONV_MAX_DEVICES || (q < dims_end && t[q] != ',')) {
      SHARD_VEC_FREE(axes);
      tf_error(cx, src, digits, q > digits ? q - digits : 1, "expected a positive mesh dimension size");
      return NULL;
    }
    for (uint32_t k = 0; k < axes.len; k++)
      if (strcmp(axes.items[k].name, ax.name) == 0) {
        SHARD_VEC_FREE(axes);
        tf_error(cx, src, p, q - p, "duplicate mesh dimension name");
        return NULL;
      }
    SHARD_VEC_PUSH(axes, ax);
    p = q < dims_end ? q + 1 : q;
  }
  shard_mesh *m = SHARD_NEW(cx->arena, shard_mesh);
  m->num_axes = axes.len;
  SHARD_VEC_FREEZE(cx->arena, axes, m->axes);
  shard_span sp = {src, i, end - i};
  m->span = sp;
  int64_t total = 1;
  for (uint32_t k = 0; k < m->num_axes; k++)
    if (__builtin_mul_overflow(total, m->axes[k].size, &total) || total > SHARD_CONV_MAX_DEVICES) {
      tf_error(cx, src, dims_start, dims_end - dims_start, "mesh has too many devices");
      return NULL;
    }
  if (dims_end >= end) {
    tf_error(cx, src, end, 0, "expected '|' and the device ids after the mesh dimensions");
    return NULL;
  }
  uint32_t ids_start = dims_end + 1, ids_end = ids_start;
  while (ids_end < end && t[ids_end] != '|') ids_end++;
  if (ids_start < end && t[ids_start] == '*') return m; /* *CPU: devices in iota order */
  int64_t *ids;
  uint32_t n;
  if (!parse_ids(cx, src, ids_start, ids_end, &ids, &n)) return NULL;
  if ((int64_t)n != total) {
    tf_error(cx, src, ids_start, ids_end - ids_start, "the number of global device ids differs from the mesh size");
    return NULL;
  }
  bool *seen = shard_xcalloc((size_t)total, 1);
  for (uint32_t k = 0; k < n; k++) {
    if (ids[k] < 0 || ids[k] >= total || seen[ids[k]]) {
      free(seen);
      tf_error(cx, src, ids_start, ids_end - ids_start, "global device ids must be a permutation of 0..N-1");
      return NULL;
    }
    seen[ids[k]] = true;
  }
  free(seen);
  m->device_ids = ids;
  m->num_device_ids = n;
  shard_mesh_canonicalize(m);
  return m;
}

/* layout ::= 'sharding_specs:' (spec (',' spec)*)? ','? ' '? 'mesh:' mesh */
shard_conv *shard_tf_parse(shard_conv_ctx *cx, const shard_source *src) {
  const char *t = src->text;
  uint32_t end = (uint32_t)src->len, i = skip_spaces(t, 0, end);
  static const char head[] = "sharding_specs:";
  if (strncmp(t + i, head, sizeof head - 1) != 0) {
    tf_error(cx, src, i, 1, "expected a TF DTensor layout: 'sharding_specs:..., mesh:...'");
    return NULL;
  }
  uint32_t specs_start = i + sizeof head - 1;
  const char *mesh_kw = NULL;
  for (uint32_t k = specs_start; k + 5 <= end; k++)
    if (strncmp(t + k, "mesh:", 5) == 0) {
      mesh_kw = t + k;
      break;
    }
  while (end > 0 && (t[end - 1] == ' ' || t[end - 1] == '\n')) end--;
  if (!mesh_kw) {
    tf_error(cx, src, end, 0, "expected 'mesh:' after the sharding specs");
    return NULL;
  }
  uint32_t mesh_off = (uint32_t)(mesh_kw - t);
  shard_mesh *m = parse_tf_mesh(cx, src, mesh_off + 5, end);
  if (!m) return NULL;
  /* specs: up to the comma before mesh: */
  uint32_t specs_end = mesh_off;
  while (specs_end > specs_start && (t[specs_end - 1] == ' ' || t[specs_end - 1] == ',')) specs_end--;
  SHARD_VEC(shard_dim_sharding) dims = {0};
  uint32_t p = specs_start;
  bool ok = true;
  while (ok && p < specs_end) {
    p = skip_spaces(t, p, specs_end);
    uint32_t q = p;
    while (q < specs_end && t[q] != ',') q++;
    uint32_t e = q;
    while (e > p && t[e - 1] == ' ') e--;
    shard_dim_sharding d;
    memset(&d, 0, sizeof d);
    d.priority = SHARD_NO_PRIORITY;
    char *name = shard_arena_strndup(cx->arena, t + p, e - p);
    if (strcmp(name, "unsharded") == 0) {
    } else if (strcmp(name, "any") == 0) {
      d.is_open = true;
    } else if (strcmp(name, "match") == 0) {
      ok = tf_error(cx, src, p, e - p, "'match' has no equivalent outside TF DTensor");
    } else if (shard_mesh_axis_index(m, name) < 0) {
      shard_buf msg;
      shard_buf_init(&msg);
      shard_buf_printf(&msg, "'%s' is not a mesh dimension (nor unsharded)", name);
      ok = tf_error(cx, src, p, e - p, shard_buf_str(&msg));
      shard_buf_free(&msg);
    } else {
      for (uint32_t k = 0; k < dims.len && ok; k++)
        if (dims.items[k].num_axes && strcmp(dims.items[k].axes[0].name, name) == 0)
          ok = tf_error(cx, src, p, e - p, "a mesh dimension may shard only one tensor dimension");
      d.axes = SHARD_NEW(cx->arena, shard_axis_ref);
      d.axes[0].name = m->axes[shard_mesh_axis_index(m, name)].name;
      d.num_axes = 1;
    }
    if (ok) SHARD_VEC_PUSH(dims, d);
    p = q + 1;
  }
  if (ok && cx->rank >= 0 && (uint32_t)cx->rank != dims.len)
    ok = tf_error(cx, src, specs_start, specs_end - specs_start,
                  "the number of sharding specs differs from the shape's rank");
  if (!ok) {
    SHARD_VEC_FREE(dims);
    return NULL;
  }
  shard_span sp = {src, i, end - i};
  shard_conv *c = shard_conv_new_named(cx, m, dims.len, sp);
  c->v2_explicit = true; /* TF fills OpSharding's device list device by device */
  for (uint32_t k = 0; k < dims.len; k++) c->sharding->dims[k] = dims.items[k];
  SHARD_VEC_FREE(dims);
  return c;
}

static bool tf_mesh_names_ok(shard_conv_ctx *cx, const shard_conv *c, const shard_mesh *m) {
  return shard_conv_mesh_names_ok(cx, c, m, tf_name_ok, "TF DTensor",
                                  "letters, digits and '_', not unsharded/any/match");
}

static void print_tf_mesh(shard_buf *b, const shard_mesh *m) {
  shard_buf_puts(b, "mesh:|");
  int64_t n = 1;
  for (uint32_t a = 0; a < m->num_axes; a++) {
    shard_buf_printf(b, "%s%s=%lld", a ? "," : "", m->axes[a].name, (long long)m->axes[a].size);
    n *= m->axes[a].size;
  }
  shard_buf_putc(b, '|');
  for (int64_t d = 0; d < n; d++)
    shard_buf_printf(b, "%s%lld", d ? "," : "", (long long)(m->device_ids ? m->device_ids[d] : d));
  shard_buf_putc(b, '|');
  for (int64_t d = 0; d < n; d++)
    shard_buf_printf(b, "%s%lld", d ? "," : "", (long long)(m->device_ids ? m->device_ids[d] : d));
  shard_buf_putc(b, '|');
  for (int64_t d = 0; d < n; d++)
    shard_buf_printf(b, "%s/job:localhost/replica:0/task:0/device:CPU:%lld", d ? "," : "",
                     (long long)(m->device_ids ? m->device_ids[d] : d));
}

/* Name of a merged mesh dim: the names of the refs it stands for. */
static const char *merged_name(shard_conv_ctx *cx, const shard_axis_ref *r, uint32_t n) {
  shard_buf b;
  shard_buf_init(&b);
  for (uint32_t i = 0; i < n; i++) {
    if (i) shard_buf_putc(&b, '_');
    shard_buf_puts(&b, r[i].name);
    if (r[i].is_sub) shard_buf_printf(&b, "%lld_%lld", (long long)r[i].pre_size, (long long)r[i].size);
  }
  const char *s = shard_arena_strdup(cx->arena, shard_buf_str(&b));
  shard_buf_free(&b);
  return s;
}

static bool print_one(shard_conv_ctx *cx, const shard_conv *c, shard_buf *out) {
  const shard_mesh *m = shard_conv_mesh_of(cx, c);
  if (c->kind == SHARD_CONV_MAXIMAL || (m && shard_mesh_is_maximal(m))) {
    shard_error(cx->de, c->span, "a single-device sharding has no TF DTensor sharding_specs layout");
    return false;
  }
  if (c->kind != SHARD_CONV_NAMED) {
    if (!m || cx->rank < 0) {
      shard_error(cx->de, c->span, "a TF layout lists every dimension over a mesh: pass --mesh and --shape");
      return false;
    }
    if (c->kind == SHARD_CONV_MANUAL || c->kind == SHARD_CONV_UNREDUCED)
      shard_warning(cx->de, c->span, "TF DTensor layouts have no %s values: written as unsharded",
                    c->kind == SHARD_CONV_MANUAL ? "manual" : "partial");
    if (!tf_mesh_names_ok(cx, c, m)) return false;
    shard_buf_puts(out, "sharding_specs:");
    for (int32_t d = 0; d < cx->rank; d++)
      shard_buf_printf(out, "%s,", c->kind == SHARD_CONV_UNKNOWN ? "any" : "unsharded");
    shard_buf_putc(out, ' ');
    print_tf_mesh(out, m);
    return true;
  }
  const shard_tensor_sharding *s = c->sharding;
  shard_conv_warn_shardy_only(cx, c, "a TF DTensor layout", true);
  if (s->num_unreduced) {
    shard_buf axes;
    shard_buf_init(&axes);
    shard_axis_list_print(&axes, s->unreduced, s->num_unreduced);
    shard_warning(cx->de, c->span, "TF DTensor layouts have no partial values: unreduced=%s written as unsharded",
                  shard_buf_str(&axes));
    shard_buf_free(&axes);
  }
  if (c->num_manual) shard_warning(cx->de, c->span, "TF DTensor layouts have no manual axes: written as unsharded");
  /* Simple: each dim on at most one whole mesh axis (size-1 axes aside). */
  bool simple = true;
  const char **axis = shard_xcalloc(s->rank + 1, sizeof(char *));
  for (uint32_t d = 0; d < s->rank; d++)
    for (uint32_t k = 0; k < s->dims[d].num_axes; k++) {
      const shard_axis_ref *r = &s->dims[d].axes[k];
      if (shard_axis_size(r, m) == 1) continue;
      if (axis[d] || r->is_sub) simple = false;
      axis[d] = r->name;
    }
  if (simple) {
    if (!tf_mesh_names_ok(cx, c, m)) {
      free(axis);
      return false;
    }
    shard_buf_puts(out, "sharding_specs:");
    for (uint32_t d = 0; d < s->rank; d++)
      shard_buf_printf(out, "%s,", axis[d] ? axis[d] : s->dims[d].is_open ? "any" : "unsharded");
    free(axis);
    shard_buf_putc(out, ' ');
    print_tf_mesh(out, m);
    return true;
  }
  free(axis);
  /* Rebuild the mesh from the tile assignment. */
  shard_conv plain = *c;
  plain.num_manual = 0;
  shard_hlo_sharding *h = shard_hlo_from_conv(cx, &plain, false);
  if (!h) return false;
  SHARD_VEC(shard_mesh_axis) axes = {0};
  const char **spec = shard_xcalloc(s->rank + 1, sizeof(char *));
  shard_buf merged;
  shard_buf_init(&merged);
  if (h->kind == SHARD_HLO_TILED) {
    uint32_t rank = h->num_dims - h->num_types;
    for (uint32_t d = 0; d < h->num_dims; d++) {
      if (h->dims[d] == 1) continue;
      shard_mesh_axis ax;
      ax.size = h->dims[d];
      if (d < rank) {
        ax.name = merged_name(cx, s->dims[d].axes, s->dims[d].num_axes);
        spec[d] = ax.name;
        if (s->dims[d].num_axes > 1 || s->dims[d].axes[0].is_sub) {
          shard_buf_printf(&merged, "%s%u -> '%s'", merged.len ? ", " : "", d, ax.name);
        }
      } else {
        int ty = h->types[d - rank];
        ax.name = ty == SHARD_SUBGROUP_UNREDUCED ? "_unreduced"
                  : ty == SHARD_SUBGROUP_MANUAL  ? "_manual"
                                                 : "_replicated";
      }
      SHARD_VEC_PUSH(axes, ax);
    }
  }
  shard_warning(cx->de, c->span,
                "a TF DTensor layout shards a tensor dimension over exactly one whole mesh dimension: "
                "mesh rebuilt with one dimension per sharded tensor dimension (%s)",
                shard_buf_str(&merged));
  shard_buf_free(&merged);
  shard_mesh nm = {0};
  nm.num_axes = axes.len;
  nm.axes = axes.items;
  if (!tf_mesh_names_ok(cx, c, &nm)) {
    free(spec);
    SHARD_VEC_FREE(axes);
    return false;
  }
  int64_t *devices = h->kind == SHARD_HLO_TILED ? shard_hlo_device_array(h) : NULL;
  nm.device_ids = devices;
  nm.num_device_ids = devices ? (uint32_t)shard_hlo_num_devices(h) : 0;
  shard_buf_puts(out, "sharding_specs:");
  for (uint32_t d = 0; d < s->rank; d++) shard_buf_printf(out, "%s,", spec[d] ? spec[d] : "unsharded");
  shard_buf_putc(out, ' ');
  print_tf_mesh(out, &nm);
  free(devices);
  free(spec);
  SHARD_VEC_FREE(axes);
  return true;
}

bool shard_tf_print(shard_conv_ctx *cx, const shard_conv *c, shard_buf *out) {
  if (c->kind != SHARD_CONV_TUPLE) return print_one(cx, c, out);
  bool ok = true;
  for (uint32_t i = 0; i < c->num_elems && ok; i++) {
    if (i) shard_buf_putc(out, '\n');
    ok = print_one(cx, &c->elems[i], out);
  }
  return ok;
}
