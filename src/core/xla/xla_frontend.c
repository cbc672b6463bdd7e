/* XLA's frontend attributes: reading and writing `mhlo.frontend_attributes`
 * entries, the C escaping XLA applies to the sdy attribute text it keeps in
 * them, and parsing that text back into sdy attributes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/parse.h"
#include "pass/pass_shardings.h"
#include "support/buf.h"
#include "xla/xla.h"

const char *shard_xla_frontend_get(const shard_attr *dict, const char *key) {
  shard_attr *v = shard_dict_get(dict, key);
  return v && v->kind == SHARD_ATTR_STRING ? v->u.str.data : NULL;
}

shard_attr *shard_xla_frontend_with(shard_arena *a, const shard_attr *dict, const char *key, const char *value) {
  shard_attr *v = value ? shard_attr_string(a, value, (uint32_t)strlen(value)) : NULL;
  shard_attr *out = shard_dict_with(a, dict, key, v);
  return out->u.dict.num ? out : NULL;
}

const char *shard_xla_op_frontend(const shard_op *op, const char *key) {
  return shard_xla_frontend_get(shard_op_attr(op, SHARD_XLA_FRONTEND_ATTRS), key);
}

void shard_xla_op_set_frontend(shard_arena *a, shard_op *op, const char *key, const char *value) {
  shard_attr *old = shard_op_attr(op, SHARD_XLA_FRONTEND_ATTRS);
  if (!value && !shard_xla_frontend_get(old, key) && !shard_dict_get(old, key)) return;
  shard_attr *d = shard_xla_frontend_with(a, old, key, value);
  if (d) shard_op_set_attr(a, op, SHARD_XLA_FRONTEND_ATTRS, d, false);
  else shard_op_remove_attr(op, SHARD_XLA_FRONTEND_ATTRS);
}

const char *shard_xla_arg_frontend(const shard_value *arg, const char *key) {
  return shard_xla_frontend_get(shard_value_attr(arg, SHARD_XLA_FRONTEND_ATTRS), key);
}

void shard_xla_arg_set_frontend(shard_arena *a, shard_value *arg, const char *key, const char *value) {
  shard_attr *old = shard_value_attr(arg, SHARD_XLA_FRONTEND_ATTRS);
  if (!value && !shard_dict_get(old, key)) return;
  shard_attr *d = shard_xla_frontend_with(a, old, key, value);
  if (d) shard_value_set_attr(a, arg, SHARD_XLA_FRONTEND_ATTRS, d);
  else shard_value_remove_attr(arg, SHARD_XLA_FRONTEND_ATTRS);
}

/* ---- escaping ---------------------------------------------------------------- */

static int S_hex(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

char *shard_xla_unescape(shard_arena *a, const char *text) {
  shard_buf b = {0};
  bool ok = true;
  for (const char *p = text; *p && ok; p++) {
    if (*p != '\\') {
      shard_buf_putc(&b, *p);
      continue;
    }
    char c = *++p;
    switch (c) {
    case 'n': shard_buf_putc(&b, '\n'); break;
    case 't': shard_buf_putc(&b, '\t'); break;
    case 'r': shard_buf_putc(&b, '\r'); break;
    case 'a': shard_buf_putc(&b, '\a'); break;
    case 'b': shard_buf_putc(&b, '\b'); break;
    case 'f': shard_buf_putc(&b, '\f'); break;
    case 'v': shard_buf_putc(&b, '\v'); break;
    case '\\':
    case '\'':
    case '"':
    case '?': shard_buf_putc(&b, c); break;
    case 'x': {
      int v = 0, n = 0;
      while (n < 2 && S_hex(p[1]) >= 0) v = v * 16 + S_hex(*++p), n++;
      if (!n) ok = false;
      else shard_buf_putc(&b, (char)v);
      break;
    }
    default:
      if (c >= '0' && c <= '7') {
        int v = c - '0', n = 1;
        while (n < 3 && p[1] >= '0' && p[1] <= '7') v = v * 8 + (*++p - '0'), n++;
        if (v > 255) ok = false;
        else shard_buf_putc(&b, (char)v);
      } else {
        ok = false; /* a lone backslash at the end, or an unknown escape */
      }
    }
  }
  char *out = ok ? shard_arena_strndup(a, b.data ? b.data : "", b.len) : NULL;
  shard_buf_free(&b);
  return out;
}

char *shard_xla_escape(shard_arena *a, const char *text) {
  shard_buf b = {0};
  for (const unsigned char *p = (const unsigned char *)text; *p; p++) {
    switch (*p) {
    case '\n': shard_buf_puts(&b, "\\n"); break;
    case '\r': shard_buf_puts(&b, "\\r"); break;
    case '\t': shard_buf_puts(&b, "\\t"); break;
    case '"': shard_buf_puts(&b, "\\\""); break;
    case '\'': shard_buf_puts(&b, "\\'"); break;
    case '\\': shard_buf_puts(&b, "\\\\"); break;
    default:
      if (*p < 0x20 || *p >= 0x7f) shard_buf_printf(&b, "\\%03o", *p);
      else shard_buf_putc(&b, (char)*p);
    }
  }
  char *out = shard_arena_strndup(a, b.data ? b.data : "", b.len);
  shard_buf_free(&b);
  return out;
}

/* ---- parsing ------------------------------------------------------------------ */

typedef struct first_error {
  char message[512];
  bool seen;
} first_error;

static void S_keep_first(void *ctx, const shard_diag *d) {
  first_error *fe = ctx;
  if (d->severity != SHARD_ERROR || fe->seen) return;
  fe->seen = true;
  snprintf(fe->message, sizeof fe->message, "%s", d->message);
}

static const char *S_kind_name(shard_attr_kind kind) {
  switch (kind) {
  case SHARD_ATTR_SDY_SHARDING: return "#sdy.sharding";
  case SHARD_ATTR_SDY_PER_VALUE: return "#sdy.sharding_per_value";
  case SHARD_ATTR_SDY_MESH: return "#sdy.mesh";
  case SHARD_ATTR_SDY_RULE: return "#sdy.op_sharding_rule";
  case SHARD_ATTR_DICT: return "a dictionary";
  default: return "an attribute";
  }
}

shard_attr *shard_xla_parse(shard_module *m, const char *escaped, const char *key, shard_attr_kind kind, shard_span at,
                            shard_diag_engine *de) {
  char *text = shard_xla_unescape(m->arena, escaped);
  if (!text) {
    shard_error(de, at, "%s: bad escape sequence in \"%s\"", key, escaped);
    return NULL;
  }
  shard_source *src = SHARD_NEW(m->arena, shard_source);
  *src = (shard_source){.name = key, .text = text, .len = strlen(text)};
  first_error fe = {{0}, false};
  shard_diag_engine quiet;
  shard_diag_init(&quiet, S_keep_first, &fe);
  shard_attr *attr = shard_parse_attr_text(m, src, &quiet);
  if (!attr) {
    shard_error(de, at, "%s: cannot parse '%s': %s", key, text, fe.seen ? fe.message : "invalid attribute");
    return NULL;
  }
  if (attr->kind != kind) {
    shard_error(de, at, "%s: expected %s, got '%s'", key, S_kind_name(kind), text);
    return NULL;
  }
  return attr;
}

char *shard_xla_attr_text(shard_arena *a, const shard_attr *attr) {
  shard_buf b = {0};
  shard_attr_print(&b, attr);
  char *out = shard_arena_strndup(a, b.data ? b.data : "", b.len);
  shard_buf_free(&b);
  return out;
}

/* ---- custom calls ----------------------------------------------------------- */

shard_op *shard_xla_custom_call(shard_arena *a, const char *target, uint32_t num_operands, shard_value *const *operands,
                                uint32_t num_results, shard_type *const *result_types) {
  shard_op *op = shard_op_new_named(a, "stablehlo.custom_call", num_operands, operands, num_results, result_types, 0);
  shard_op_set_attr(a, op, "call_target_name", shard_attr_string(a, target, (uint32_t)strlen(target)), true);
  return op;
}

shard_op *shard_xla_constant_from_sdy(shard_arena *a, shard_op *op) {
  shard_op *n = shard_op_new_named(a, "stablehlo.constant", 0, NULL, 1, &op->results[0].type, 0);
  n->span = op->span;
  for (uint32_t k = 0; k < op->num_attrs; k++)
    shard_op_set_attr(a, n, op->attrs[k].name, op->attrs[k].value, op->attrs[k].inherent);
  shard_op_insert_before(op, n);
  shard_value_replace_all_uses(&op->results[0], &n->results[0]);
  return n;
}

bool shard_xla_is_custom_call(const shard_op *op, const char *target) {
  if (strcmp(op->name, "stablehlo.custom_call") != 0) return false;
  shard_attr *t = shard_op_attr(op, "call_target_name");
  return t && t->kind == SHARD_ATTR_STRING && strcmp(t->u.str.data, target) == 0;
}
