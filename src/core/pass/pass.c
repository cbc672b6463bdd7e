/* Pass options, shared by every pass: one tokenizer for MLIR's option text,
 * the schema check that `shard opt` runs before a pass, and the readers a
 * pass uses. */
#include "pass/pass.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One `key[=value]` word of option text. */
typedef struct option_word {
  const char *key;
  size_t key_len;
  const char *value; /* NULL: no '=' */
  size_t value_len; /* without its quotes or braces */
} option_word;

/* Reads the word at *s (after white space) and advances past it. Returns
 * false at the end of the text. The separators are MLIR's white space; for
 * compatibility with sdy_opt's older spelling a comma between two words
 * separates them too when it is not inside a value. */
static bool S_next_word(const char **s, option_word *w) {
  const char *p = *s;
  while (*p && (isspace((unsigned char)*p) || *p == ',')) p++;
  if (!*p) return false;
  w->key = p;
  while (*p && *p != '=' && !isspace((unsigned char)*p) && *p != ',') p++;
  w->key_len = (size_t)(p - w->key);
  w->value = NULL;
  w->value_len = 0;
  if (*p == '=') {
    p++;
    char close = *p == '\'' ? '\'' : *p == '"' ? '"' : *p == '{' ? '}' : 0;
    if (close) {
      const char *v = ++p;
      int depth = 0;
      while (*p && !(*p == close && depth == 0)) {
        if (close == '}' && *p == '{') depth++;
        else if (close == '}' && *p == '}') depth--;
        p++;
      }
      w->value = v;
      w->value_len = (size_t)(p - v);
      if (*p) p++;
    } else {
      /* An unquoted value runs to white space; its commas are part of it
       * (a list such as filter=dot,constant). */
      const char *v = p;
      while (*p && !isspace((unsigned char)*p)) p++;
      w->value = v;
      w->value_len = (size_t)(p - v);
    }
  }
  *s = p;
  return true;
}

/* The last occurrence of `key` (MLIR keeps the last), or false. */
static bool S_find(const char *options, const char *key, option_word *out) {
  if (!options) return false;
  size_t klen = strlen(key);
  bool found = false;
  option_word w;
  for (const char *s = options; S_next_word(&s, &w);)
    if (w.key_len == klen && memcmp(w.key, key, klen) == 0) {
      *out = w;
      found = true;
    }
  return found;
}

static bool S_bool_text(const char *v, size_t n, bool *out) {
  static const char *const yes[] = {"true", "TRUE", "True", "1"};
  static const char *const no[] = {"false", "FALSE", "False", "0"};
  for (size_t i = 0; i < 4; i++) {
    if (strlen(yes[i]) == n && memcmp(v, yes[i], n) == 0) {
      *out = true;
      return true;
    }
    if (strlen(no[i]) == n && memcmp(v, no[i], n) == 0) {
      *out = false;
      return true;
    }
  }
  return false;
}

static bool S_int_text(const char *v, size_t n, long long *out) {
  if (n == 0 || n > 30) return false;
  char buf[32];
  memcpy(buf, v, n);
  buf[n] = 0;
  char *end;
  errno = 0;
  long long x = strtoll(buf, &end, 10);
  if (*end || errno == ERANGE || isspace((unsigned char)buf[0])) return false;
  *out = x;
  return true;
}

static bool S_choice(const char *choices, const char *v, size_t n) {
  for (const char *c = choices; c && *c;) {
    const char *bar = strchr(c, '|');
    size_t len = bar ? (size_t)(bar - c) : strlen(c);
    if (len == n && memcmp(c, v, n) == 0) return true;
    c = bar ? bar + 1 : c + len;
  }
  return false;
}

const char *shard_pass_option_accepts(const shard_pass_option_def *o, char *buf, size_t cap) {
  switch (o->kind) {
  case SHARD_PASS_OPTION_BOOL: return "true or false";
  case SHARD_PASS_OPTION_INT: return "an integer";
  case SHARD_PASS_OPTION_STRING: return "any text";
  case SHARD_PASS_OPTION_ENUM: break;
  }
  size_t n = 0;
  n += (size_t)snprintf(buf + n, cap - n, "one of ");
  for (const char *c = o->choices; c && *c && n < cap;) {
    const char *bar = strchr(c, '|');
    size_t len = bar ? (size_t)(bar - c) : strlen(c);
    n += (size_t)snprintf(buf + n, cap - n, "%s%.*s", c == o->choices ? "" : ", ", (int)len, c);
    c = bar ? bar + 1 : c + len;
  }
  return buf;
}

bool shard_pass_options_validate(const shard_pass_def *p, const char *options, shard_buf *err) {
  option_word w;
  for (const char *s = options ? options : ""; S_next_word(&s, &w);) {
    const shard_pass_option_def *o = NULL;
    for (const shard_pass_option_def *d = p->options; d && d->name; d++)
      if (strlen(d->name) == w.key_len && memcmp(d->name, w.key, w.key_len) == 0) o = d;
    if (!o) {
      shard_buf_printf(err, "unknown option '%.*s' for pass '-%s'", (int)w.key_len, w.key, p->name);
      if (!p->options || !p->options[0].name) {
        shard_buf_puts(err, " (it takes no options)");
      } else {
        shard_buf_puts(err, " (its options: ");
        for (const shard_pass_option_def *d = p->options; d->name; d++)
          shard_buf_printf(err, "%s%s", d == p->options ? "" : ", ", d->name);
        shard_buf_puts(err, ")");
      }
      return false;
    }
    bool b;
    long long i;
    bool ok = true;
    if (!w.value) ok = o->kind == SHARD_PASS_OPTION_BOOL; /* a bare flag is true */
    else if (o->kind == SHARD_PASS_OPTION_BOOL) ok = S_bool_text(w.value, w.value_len, &b);
    else if (o->kind == SHARD_PASS_OPTION_INT) ok = S_int_text(w.value, w.value_len, &i);
    else if (o->kind == SHARD_PASS_OPTION_ENUM) ok = S_choice(o->choices, w.value, w.value_len);
    if (!ok) {
      char buf[256];
      if (w.value)
        shard_buf_printf(err, "invalid value '%.*s' for option '%s' of pass '-%s': expected %s", (int)w.value_len,
                         w.value, o->name, p->name, shard_pass_option_accepts(o, buf, sizeof buf));
      else
        shard_buf_printf(err, "option '%s' of pass '-%s' needs a value: %s", o->name, p->name,
                         shard_pass_option_accepts(o, buf, sizeof buf));
      return false;
    }
  }
  return true;
}

bool shard_pass_option_bool(const char *options, const char *key, bool *out) {
  option_word w;
  if (!S_find(options, key, &w)) return false;
  if (!w.value) {
    *out = true;
    return true;
  }
  return S_bool_text(w.value, w.value_len, out);
}

bool shard_pass_option_int(const char *options, const char *key, long long *out) {
  option_word w;
  if (!S_find(options, key, &w) || !w.value) return false;
  return S_int_text(w.value, w.value_len, out);
}

char *shard_pass_option_string(const char *options, const char *key) {
  option_word w;
  if (!S_find(options, key, &w)) return NULL;
  return shard_xstrndup(w.value ? w.value : "", w.value_len);
}
