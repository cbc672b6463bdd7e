/* A hash map from pointers (IR nodes, mostly) to 64-bit integers, the one
 * every pass that needs a map or set of nodes uses.
 *
 * A zero-initialised shard_ptrmap is empty and ready; shard_ptrmap_release
 * frees its storage. A key that is absent reads as value 0, so maps whose
 * values are never 0 (an index + 1, a non-NULL pointer) need no separate
 * "found" flag. Pointer values go in through shard_ptrmap_put_ptr. Keys are
 * never NULL. */
#ifndef SHARD_PTRMAP_H
#define SHARD_PTRMAP_H

#include <stdbool.h>
#include <stdint.h>

typedef struct shard_ptrmap {
  const void **keys; /* open addressing, linear probing, at most half full */
  uint64_t *vals;
  uint32_t cap, len; /* cap is 0 or a power of two */
} shard_ptrmap;

/* The value slot of `key`, inserted with value 0 when absent. The slot
 * stays valid until the next insertion. */
uint64_t *shard_ptrmap_slot(shard_ptrmap *m, const void *key);
/* The value slot of `key`, or NULL when absent. */
uint64_t *shard_ptrmap_find(const shard_ptrmap *m, const void *key);
/* The value of `key`, 0 when absent. */
uint64_t shard_ptrmap_get(const shard_ptrmap *m, const void *key);
void shard_ptrmap_put(shard_ptrmap *m, const void *key, uint64_t val);
/* Adds `key` with value 1 if absent; false when it was already there. */
bool shard_ptrmap_add(shard_ptrmap *m, const void *key);

/* Maps to dense indices (where 0 is a valid value): true when `key` is
 * present, with its value in *index. */
bool shard_ptrmap_get_index(const shard_ptrmap *m, const void *key, uint32_t *index);

void *shard_ptrmap_get_ptr(const shard_ptrmap *m, const void *key);
void shard_ptrmap_put_ptr(shard_ptrmap *m, const void *key, const void *val);

/* Makes room for `n` keys in all, so that many insertions never rehash. */
void shard_ptrmap_reserve(shard_ptrmap *m, uint32_t n);
/* Removes every key, keeping the storage. */
void shard_ptrmap_clear(shard_ptrmap *m);
void shard_ptrmap_release(shard_ptrmap *m);

/* The pointer hash the map uses, for tables keyed by a pointer and more. */
uint32_t shard_ptrmap_hash(const void *p);

#endif
