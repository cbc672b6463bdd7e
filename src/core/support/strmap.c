/* String-keyed hash map (strmap.h): open addressing with linear probing,
 * at most half full, each slot keeping its key's hash so that probes and
 * rehashes compare bytes only on a hash match. */
#include "support/strmap.h"

#include <stdlib.h>
#include <string.h>

#include "support/arena.h"

/* Eight bytes a step (names and type texts are 10 to 40 bytes; FNV-1a's
 * byte loop was most of a lookup), then a 64-bit finaliser so that the low
 * bits the table masks with depend on every byte. */
static inline uint32_t S_hash(const char *s, size_t len) {
  uint64_t h = 0x9E3779B97F4A7C15ull ^ (uint64_t)len, w = 0;
  size_t i = 0;
  for (; i + 8 <= len; i += 8) {
    memcpy(&w, s + i, 8);
    h = (h ^ w) * 0xFF51AFD7ED558CCDull;
    h ^= h >> 32;
  }
  if (i < len) {
    /* the last partial word: the final eight bytes (overlapping the words
     * hashed already) when there are eight, else the bytes read in halves */
    if (len >= 8) {
      memcpy(&w, s + len - 8, 8);
    } else if (len >= 4) {
      uint32_t lo, hi;
      memcpy(&lo, s, 4);
      memcpy(&hi, s + len - 4, 4);
      w = (uint64_t)lo | (uint64_t)hi << 32;
    } else {
      w = (uint64_t)(unsigned char)s[0] | (uint64_t)(unsigned char)s[len / 2] << 8 |
          (uint64_t)(unsigned char)s[len - 1] << 16;
    }
    h = (h ^ w) * 0xFF51AFD7ED558CCDull;
  }
  h ^= h >> 33;
  h *= 0xC4CEB9FE1A85EC53ull;
  h ^= h >> 33;
  return (uint32_t)h;
}

uint32_t shard_str_hash(const char *s, size_t len) { return S_hash(s, len); }

/* Whether a[0..len) == b[0..len). Inline, by overlapping words: on a hash
 * and length match the keys are nearly always equal, and most keys (names,
 * op names, type texts) are under 32 bytes, where a memcmp call cost more
 * than the compare. */
static inline bool S_key_eq(const char *a, const char *b, size_t len) {
  if (len >= 8) {
    uint64_t x, y, diff = 0;
    size_t i = 0;
    for (; i + 8 < len; i += 8) {
      memcpy(&x, a + i, 8);
      memcpy(&y, b + i, 8);
      diff |= x ^ y;
    }
    memcpy(&x, a + len - 8, 8);
    memcpy(&y, b + len - 8, 8);
    return (diff | (x ^ y)) == 0;
  }
  if (len >= 4) {
    uint32_t x0, y0, x1, y1;
    memcpy(&x0, a, 4);
    memcpy(&y0, b, 4);
    memcpy(&x1, a + len - 4, 4);
    memcpy(&y1, b + len - 4, 4);
    return ((x0 ^ y0) | (x1 ^ y1)) == 0;
  }
  /* 0 to 3 bytes: the first, middle and last byte cover them all */
  return len == 0 || (a[0] == b[0] && a[len / 2] == b[len / 2] && a[len - 1] == b[len - 1]);
}

/* The slot of `key`, or the empty slot where it would go. Inline in the
 * lookups: most of a lookup is this call and its compare. */
static inline shard_strmap_entry *S_probe(shard_strmap_entry *slots, uint32_t cap, const char *key, size_t len,
                                          uint32_t hash) {
  for (uint32_t i = hash & (cap - 1);; i = (i + 1) & (cap - 1)) {
    shard_strmap_entry *s = &slots[i];
    if (!s->key || (s->hash == hash && s->len == len && S_key_eq(s->key, key, len))) return s;
  }
}

static void S_rehash(shard_strmap *m, uint32_t cap) {
  shard_strmap_entry *slots = shard_xcalloc(cap, sizeof *slots);
  for (uint32_t i = 0; i < m->cap; i++) {
    shard_strmap_entry *s = &m->slots[i];
    if (s->key) *S_probe(slots, cap, s->key, s->len, s->hash) = *s;
  }
  free(m->slots);
  m->slots = slots;
  m->cap = cap;
}

void *shard_strmap_get(const shard_strmap *m, const char *key, size_t len) {
  if (!m->cap) return NULL;
  return S_probe(m->slots, m->cap, key, len, S_hash(key, len))->val;
}

void **shard_strmap_slot(shard_strmap *m, const char *key, size_t len) {
  if ((m->len + 1) * 2 > m->cap) S_rehash(m, m->cap ? m->cap * 2 : 64);
  uint32_t hash = S_hash(key, len);
  shard_strmap_entry *s = S_probe(m->slots, m->cap, key, len, hash);
  if (!s->key) {
    *s = (shard_strmap_entry){key, len, hash, NULL};
    m->len++;
  }
  return &s->val;
}

void shard_strmap_put(shard_strmap *m, const char *key, size_t len, void *val) {
  *shard_strmap_slot(m, key, len) = val;
}

void *shard_strmap_get_cstr(const shard_strmap *m, const char *key) { return shard_strmap_get(m, key, strlen(key)); }

void shard_strmap_put_cstr(shard_strmap *m, const char *key, void *val) { shard_strmap_put(m, key, strlen(key), val); }

void shard_strmap_each(const shard_strmap *m, bool (*fn)(void *ctx, const char *key, size_t len, void *val),
                       void *ctx) {
  for (uint32_t i = 0; i < m->cap; i++)
    if (m->slots[i].key && !fn(ctx, m->slots[i].key, m->slots[i].len, m->slots[i].val)) return;
}

void shard_strmap_clear(shard_strmap *m) {
  if (m->cap) memset(m->slots, 0, m->cap * sizeof *m->slots);
  m->len = 0;
}

void shard_strmap_forget(shard_strmap *m) {
  if (!m->len) return;
  if (m->cap >= 256 && (size_t)m->len * 16 < m->cap) shard_strmap_release(m);
  else shard_strmap_clear(m);
}

void shard_strmap_release(shard_strmap *m) {
  free(m->slots);
  *m = (shard_strmap){0};
}
