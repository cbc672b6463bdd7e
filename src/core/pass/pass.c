/* Pass option parsing shared by every pass. */
#include "pass/pass.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

/* Finds `key=` at a word start; returns the value start and its length. */
static const char *S_find(const char *options, const char *key, size_t *len) {
  if (!options) return NULL;
  size_t klen = strlen(key);
  for (const char *s = options; *s;) {
    while (*s == ' ' || *s == ',' || *s == '{' || *s == '}') s++;
    const char *word = s;
    while (*s && *s != '=' && *s != ' ' && *s != ',') s++;
    const char *value = NULL;
    size_t vlen = 0;
    if (*s == '=') {
      s++;
      char q = (*s == '\'' || *s == '"') ? *s : 0;
      if (q) s++;
      value = s;
      while (*s && (q ? *s != q : (*s != ' ' && *s != ','))) s++;
      vlen = (size_t)(s - value);
      if (q && *s) s++;
    }
    if ((size_t)(s - word) >= klen && strncmp(word, key, klen) == 0 && word[klen] == '=') {
      *len = vlen;
      return value;
    }
  }
  return NULL;
}

bool shard_pass_option_bool(const char *options, const char *key, bool *out) {
  size_t n;
  const char *v = S_find(options, key, &n);
  if (!v) return false;
  if ((n == 4 && strncmp(v, "true", 4) == 0) || (n == 1 && *v == '1')) *out = true;
  else if ((n == 5 && strncmp(v, "false", 5) == 0) || (n == 1 && *v == '0')) *out = false;
  else return false;
  return true;
}

bool shard_pass_option_int(const char *options, const char *key, long long *out) {
  size_t n;
  const char *v = S_find(options, key, &n);
  if (!v || n == 0 || n > 30) return false;
  char buf[32];
  memcpy(buf, v, n);
  buf[n] = 0;
  char *end;
  long long x = strtoll(buf, &end, 10);
  if (*end) return false;
  *out = x;
  return true;
}

char *shard_pass_option_string(const char *options, const char *key) {
  size_t n;
  const char *v = S_find(options, key, &n);
  return v ? shard_xstrndup(v, n) : NULL;
}

bool shard_pass_options_check(const char *pass, const char *options, const char *const *known,
                              shard_diag_engine *de) {
  if (!options) return true;
  for (const char *s = options; *s;) {
    while (*s == ' ' || *s == ',' || *s == '{' || *s == '}') s++;
    if (!*s) break;
    const char *word = s;
    while (*s && *s != '=' && *s != ' ' && *s != ',') s++;
    size_t wlen = (size_t)(s - word);
    bool ok = false;
    for (const char *const *k = known; k && *k; k++)
      if (strlen(*k) == wlen && strncmp(*k, word, wlen) == 0) ok = true;
    if (!ok) {
      shard_error(de, shard_no_span, "unknown option '%.*s' for pass '%s'", (int)wlen, word, pass);
      return false;
    }
    if (*s == '=') {
      s++;
      char q = (*s == '\'' || *s == '"') ? *s : 0;
      if (q) s++;
      while (*s && (q ? *s != q : (*s != ' ' && *s != ','))) s++;
      if (q && *s) s++;
    }
  }
  return true;
}
