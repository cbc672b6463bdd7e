/* Tensor shardings: per-dimension axis lists plus replicated and unreduced
 * axes, bound to a mesh by symbol or inlined.
 *
 * Printing follows Shardy's printers byte for byte: `{"a", ?}` but never
 * `{, ?}`, the priority glued to the brace (`{"a"}p1`), replicated before
 * unreduced whatever the input order, and the reduction keyword only when it
 * is not sum (`unreduced=max{"b"}`). */
#include <stdint.h>
#include <string.h>

#include "sdy/sharding.h"
#include "support/limits.h"

const char *shard_reduction_name(shard_reduction r) {
  switch (r) {
  case SHARD_RED_SUM: return "sum";
  case SHARD_RED_MAX: return "max";
  case SHARD_RED_MIN: return "min";
  }
  return "sum";
}

/* MLIR prints a symbol bare when it is a valid identifier, else quoted. */
static bool is_bare_identifier(const char *s) {
  if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || *s == '_')) return false;
  for (s++; *s; s++) {
    char c = *s;
    bool ok =
        (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '$' || c == '.';
    if (!ok) return false;
  }
  return true;
}

static void print_symbol(shard_buf *b, const char *name) {
  shard_buf_putc(b, '@');
  if (is_bare_identifier(name)) shard_buf_puts(b, name);
  else shard_buf_put_escaped(b, name, strlen(name));
}

static void print_dim(shard_buf *b, const shard_dim_sharding *d) {
  shard_buf_putc(b, '{');
  for (uint32_t i = 0; i < d->num_axes; i++) {
    if (i) shard_buf_puts(b, ", ");
    shard_axis_print(b, &d->axes[i]);
  }
  if (d->is_open) shard_buf_puts(b, d->num_axes ? ", ?" : "?");
  shard_buf_putc(b, '}');
  if (d->priority != SHARD_NO_PRIORITY) {
    shard_buf_putc(b, 'p');
    shard_buf_put_i64(b, d->priority);
  }
}

/* The room a plain sharding's text is written into at once; a longer one
 * (hundreds of axes) takes the general path. */
#define SHARD_PLAIN_SHARDING_ROOM 256

/* Writes `s` from p on when it is plain, returning where its text ends;
 * NULL when it is not. Plain: a symbol mesh with a bare name, full axes
 * whose names need no escape, no priorities, replicated or unreduced axes,
 * and text that fits before `end`. Nearly every sharding printed is one,
 * and one pass copies it (checking each byte as it goes) rather than
 * putting a few characters at a time, each with a capacity check and a NUL,
 * and measuring every name. */
static char *S_write_plain(char *p, const char *end, const shard_tensor_sharding *s) {
  if (s->inline_mesh || !s->mesh_name || s->num_replicated || s->num_unreduced) return NULL;
  *p++ = '<';
  *p++ = '@';
  /* the mesh name, bare (is_bare_identifier) */
  const char *c = s->mesh_name;
  if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || *c == '_')) return NULL;
  for (; *c; c++) {
    char ch = *c;
    bool ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '_' ||
              ch == '$' || ch == '.';
    if (!ok || p == end) return NULL;
    *p++ = ch;
  }
  /* per dim at most ", {" before its axes and ", ?}" after them, per axis
   * ", \"\"" around its name: checked before each is written */
  if (end - p < 3) return NULL;
  memcpy(p, ", [", 3);
  p += 3;
  for (uint32_t i = 0; i < s->rank; i++) {
    const shard_dim_sharding *d = &s->dims[i];
    if (d->priority != SHARD_NO_PRIORITY || end - p < 3) return NULL;
    if (i) {
      *p++ = ',';
      *p++ = ' ';
    }
    *p++ = '{';
    for (uint32_t k = 0; k < d->num_axes; k++) {
      if (d->axes[k].is_sub || end - p < 4) return NULL;
      if (k) {
        *p++ = ',';
        *p++ = ' ';
      }
      *p++ = '"';
      for (c = d->axes[k].name; *c; c++) {
        unsigned char ch = (unsigned char)*c;
        if (ch < 0x20 || ch >= 0x7f || ch == '"' || ch == '\\' || end - p < 2) return NULL;
        *p++ = (char)ch;
      }
      *p++ = '"';
    }
    if (end - p < 4) return NULL;
    if (d->is_open) {
      if (d->num_axes) {
        *p++ = ',';
        *p++ = ' ';
      }
      *p++ = '?';
    }
    *p++ = '}';
  }
  if (end - p < 2) return NULL;
  *p++ = ']';
  *p++ = '>';
  return p;
}

/* S_write_plain into the buffer, past its end, the text kept only once all
 * of it is there. */
static bool S_print_plain(shard_buf *b, const shard_tensor_sharding *s) {
  if (b->len + SHARD_PLAIN_SHARDING_ROOM + 1 > b->cap) shard_buf_reserve(b, SHARD_PLAIN_SHARDING_ROOM);
  char *p = S_write_plain(b->data + b->len, b->data + b->len + SHARD_PLAIN_SHARDING_ROOM, s);
  if (p) b->len = (size_t)(p - b->data);
  b->data[b->len] = '\0';
  return p != NULL;
}

void shard_sharding_print(shard_buf *b, const shard_tensor_sharding *s) {
  if (S_print_plain(b, s)) return;
  shard_buf_putc(b, '<');
  if (s->inline_mesh) {
    shard_buf_puts(b, "mesh");
    shard_mesh_print(b, s->inline_mesh);
  } else {
    print_symbol(b, s->mesh_name ? s->mesh_name : "");
  }
  shard_buf_puts(b, ", [");
  for (uint32_t i = 0; i < s->rank; i++) {
    if (i) shard_buf_puts(b, ", ");
    print_dim(b, &s->dims[i]);
  }
  shard_buf_putc(b, ']');
  if (s->num_replicated) {
    shard_buf_puts(b, ", replicated=");
    shard_axis_list_print(b, s->replicated, s->num_replicated);
  }
  if (s->num_unreduced) {
    shard_buf_puts(b, ", unreduced=");
    if (s->reduction != SHARD_RED_SUM) shard_buf_puts(b, shard_reduction_name(s->reduction));
    shard_axis_list_print(b, s->unreduced, s->num_unreduced);
  }
  shard_buf_putc(b, '>');
}

void shard_sharding_list_print(shard_buf *b, const shard_tensor_sharding *s, uint32_t n) {
  shard_buf_putc(b, '[');
  for (uint32_t i = 0; i < n; i++) {
    if (i) shard_buf_puts(b, ", ");
    shard_sharding_print(b, &s[i]);
  }
  shard_buf_putc(b, ']');
}

static bool axes_equal(const shard_axis_ref *a, uint32_t na, const shard_axis_ref *b, uint32_t nb) {
  if (na != nb) return false;
  for (uint32_t i = 0; i < na; i++)
    if (!shard_axis_equal(&a[i], &b[i])) return false;
  return true;
}

static bool dims_equal(const shard_dim_sharding *a, const shard_dim_sharding *b) {
  return a->is_open == b->is_open && a->priority == b->priority &&
         axes_equal(a->axes, a->num_axes, b->axes, b->num_axes);
}

bool shard_sharding_equal(const shard_tensor_sharding *a, const shard_tensor_sharding *b) {
  if (!a->inline_mesh != !b->inline_mesh) return false;
  if (a->inline_mesh) {
    if (!shard_mesh_equal(a->inline_mesh, b->inline_mesh)) return false;
  } else if (strcmp(a->mesh_name ? a->mesh_name : "", b->mesh_name ? b->mesh_name : "") != 0) {
    return false;
  }
  if (a->rank != b->rank) return false;
  for (uint32_t i = 0; i < a->rank; i++)
    if (!dims_equal(&a->dims[i], &b->dims[i])) return false;
  return axes_equal(a->replicated, a->num_replicated, b->replicated, b->num_replicated) &&
         axes_equal(a->unreduced, a->num_unreduced, b->unreduced, b->num_unreduced) && a->reduction == b->reduction;
}

/* As TensorShardingAttr::isFullyReplicated: no dim is sharded (open or
 * closed); replicated and unreduced axes don't matter. */
bool shard_sharding_fully_replicated(const shard_tensor_sharding *s) {
  for (uint32_t i = 0; i < s->rank; i++)
    if (s->dims[i].num_axes) return false;
  return true;
}

int64_t shard_sharding_dim_size(const shard_tensor_sharding *s, uint32_t d, const shard_mesh *m) {
  if (d >= s->rank) return 1;
  return shard_axes_product(s->dims[d].axes, s->dims[d].num_axes, m);
}

void shard_sharding_local_shape(const shard_tensor_sharding *s, const shard_mesh *m, const int64_t *global,
                                int64_t *local) {
  for (uint32_t d = 0; d < s->rank; d++) {
    int64_t g = global[d];
    int64_t n = shard_sharding_dim_size(s, d, m);
    /* Dynamic dims, and sizes we can't compute (unknown axis, overflow, bad
     * sizes the verifier will report), keep the global extent. */
    if (g == SHARD_DYNAMIC_DIM || g < 0 || n <= 0) {
      local[d] = g;
      continue;
    }
    /* Non-divisible dims are legal: the last shard is padded, so every
     * device holds ceil(g / n) elements. */
    local[d] = g / n + (g % n != 0);
  }
}

void shard_sharding_add_cuts(shard_axis_cuts *c, const shard_tensor_sharding *s) {
  for (uint32_t d = 0; d < s->rank; d++) shard_axis_cuts_add(c, s->dims[d].axes, s->dims[d].num_axes);
  shard_axis_cuts_add(c, s->replicated, s->num_replicated);
  shard_axis_cuts_add(c, s->unreduced, s->num_unreduced);
}

bool shard_axis_name_in(const char *name, const char *const *names, uint32_t n) {
  for (uint32_t i = 0; i < n; i++)
    if (strcmp(names[i], name) == 0) return true;
  return false;
}

uint32_t shard_dim_manual_prefix(const shard_dim_sharding *d, const char *const *manual, uint32_t n) {
  uint32_t k = 0;
  while (k < d->num_axes && shard_axis_name_in(d->axes[k].name, manual, n)) k++;
  return k;
}

/* The refs of axes[0..n) whose axis is not manual, in a new array. */
static uint32_t free_axes(shard_arena *a, const shard_axis_ref *axes, uint32_t n, const char *const *manual,
                          uint32_t nmanual, shard_axis_ref **out) {
  shard_axis_ref *kept = n ? SHARD_NEW_ARRAY(a, shard_axis_ref, n) : NULL;
  uint32_t k = 0;
  for (uint32_t i = 0; i < n; i++)
    if (!shard_axis_name_in(axes[i].name, manual, nmanual)) kept[k++] = axes[i];
  *out = kept;
  return k;
}

shard_tensor_sharding *shard_sharding_drop_manual(shard_arena *a, const shard_tensor_sharding *s,
                                                  const char *const *manual, uint32_t n) {
  if (!s || !n) return (shard_tensor_sharding *)s;
  shard_tensor_sharding *c = SHARD_NEW(a, shard_tensor_sharding);
  *c = *s;
  c->dims = s->rank ? SHARD_NEW_ARRAY(a, shard_dim_sharding, s->rank) : NULL;
  for (uint32_t d = 0; d < s->rank; d++) {
    const shard_dim_sharding *in = &s->dims[d];
    uint32_t k = shard_dim_manual_prefix(in, manual, n);
    c->dims[d] = *in;
    /* A dim without axes may have a NULL array, and NULL + 0 is undefined. */
    c->dims[d].axes = k ? in->axes + k : in->axes;
    c->dims[d].num_axes = in->num_axes - k;
  }
  c->num_replicated = free_axes(a, s->replicated, s->num_replicated, manual, n, &c->replicated);
  c->num_unreduced = free_axes(a, s->unreduced, s->num_unreduced, manual, n, &c->unreduced);
  return c;
}

/* ---- keys ---------------------------------------------------------------- */

static void S_key_u32(shard_buf *b, uint32_t v) { shard_buf_putn(b, (const char *)&v, sizeof v); }
static void S_key_i64(shard_buf *b, int64_t v) { shard_buf_putn(b, (const char *)&v, sizeof v); }

static void S_key_axes(shard_buf *b, const shard_axis_ref *v, uint32_t n) {
  S_key_u32(b, n);
  for (uint32_t i = 0; i < n; i++) {
    size_t len = strlen(v[i].name);
    S_key_u32(b, (uint32_t)len);
    shard_buf_putn(b, v[i].name, len);
    shard_buf_putc(b, (char)v[i].is_sub);
    if (!v[i].is_sub) continue;
    S_key_i64(b, v[i].pre_size);
    S_key_i64(b, v[i].size);
  }
}

void shard_sharding_key(shard_buf *b, const shard_tensor_sharding *s) {
  if (s->inline_mesh) {
    shard_buf_putc(b, 'i');
    shard_buf_putn(b, (const char *)&s->inline_mesh, sizeof s->inline_mesh);
  } else {
    const char *name = s->mesh_name ? s->mesh_name : "";
    size_t len = strlen(name);
    shard_buf_putc(b, 'n');
    S_key_u32(b, (uint32_t)len);
    shard_buf_putn(b, name, len);
  }
  S_key_u32(b, s->rank);
  for (uint32_t d = 0; d < s->rank; d++) {
    shard_buf_putc(b, (char)s->dims[d].is_open);
    S_key_i64(b, s->dims[d].priority);
    S_key_axes(b, s->dims[d].axes, s->dims[d].num_axes);
  }
  S_key_axes(b, s->replicated, s->num_replicated);
  S_key_axes(b, s->unreduced, s->num_unreduced);
  if (s->num_unreduced) shard_buf_putc(b, (char)s->reduction);
}
