/* Pointer-keyed hash map (ptrmap.h): open addressing with linear probing,
 * kept at most half full so probes stay short, keys hashed with a 64-bit
 * finaliser because arena pointers differ mostly in their middle bits. */
#include "support/ptrmap.h"

#include <stdlib.h>
#include <string.h>

#include "support/arena.h"

uint32_t shard_ptrmap_hash(const void *p) {
  uint64_t x = (uint64_t)(uintptr_t)p;
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  return (uint32_t)x;
}

/* The slot index of `key` in keys[cap], or of the empty slot it would take. */
static uint32_t S_probe(const void *const *keys, uint32_t cap, const void *key) {
  uint32_t i = shard_ptrmap_hash(key) & (cap - 1);
  while (keys[i] && keys[i] != key) i = (i + 1) & (cap - 1);
  return i;
}

static void S_rehash(shard_ptrmap *m, uint32_t cap) {
  const void **keys = shard_xcalloc(cap, sizeof *keys);
  uint64_t *vals = shard_xcalloc(cap, sizeof *vals);
  for (uint32_t i = 0; i < m->cap; i++) {
    if (!m->keys[i]) continue;
    uint32_t j = S_probe(keys, cap, m->keys[i]);
    keys[j] = m->keys[i];
    vals[j] = m->vals[i];
  }
  free(m->keys);
  free(m->vals);
  m->keys = keys;
  m->vals = vals;
  m->cap = cap;
}

void shard_ptrmap_reserve(shard_ptrmap *m, uint32_t n) {
  uint32_t cap = m->cap ? m->cap : 16;
  while (cap < 2 * (uint64_t)n + 2) cap *= 2;
  if (cap != m->cap) S_rehash(m, cap);
}

uint64_t *shard_ptrmap_slot(shard_ptrmap *m, const void *key) {
  if ((m->len + 1) * 2 > m->cap) S_rehash(m, m->cap ? m->cap * 2 : 16);
  uint32_t i = S_probe(m->keys, m->cap, key);
  if (!m->keys[i]) {
    m->keys[i] = key;
    m->vals[i] = 0;
    m->len++;
  }
  return &m->vals[i];
}

uint64_t *shard_ptrmap_find(const shard_ptrmap *m, const void *key) {
  if (!m->cap) return NULL;
  uint32_t i = S_probe(m->keys, m->cap, key);
  return m->keys[i] ? &m->vals[i] : NULL;
}

uint64_t shard_ptrmap_get(const shard_ptrmap *m, const void *key) {
  const uint64_t *v = shard_ptrmap_find(m, key);
  return v ? *v : 0;
}

void shard_ptrmap_put(shard_ptrmap *m, const void *key, uint64_t val) { *shard_ptrmap_slot(m, key) = val; }

bool shard_ptrmap_add(shard_ptrmap *m, const void *key) {
  uint32_t len = m->len;
  *shard_ptrmap_slot(m, key) = 1;
  return m->len != len;
}

bool shard_ptrmap_get_index(const shard_ptrmap *m, const void *key, uint32_t *index) {
  const uint64_t *v = shard_ptrmap_find(m, key);
  if (v) *index = (uint32_t)*v;
  return v != NULL;
}

void *shard_ptrmap_get_ptr(const shard_ptrmap *m, const void *key) {
  return (void *)(uintptr_t)shard_ptrmap_get(m, key);
}

void shard_ptrmap_put_ptr(shard_ptrmap *m, const void *key, const void *val) {
  shard_ptrmap_put(m, key, (uint64_t)(uintptr_t)val);
}

void shard_ptrmap_clear(shard_ptrmap *m) {
  if (!m->cap) return;
  memset(m->keys, 0, m->cap * sizeof *m->keys);
  memset(m->vals, 0, m->cap * sizeof *m->vals);
  m->len = 0;
}

void shard_ptrmap_release(shard_ptrmap *m) {
  free(m->keys);
  free(m->vals);
  memset(m, 0, sizeof *m);
}
