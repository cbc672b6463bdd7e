/* A hash map from strings (names, type texts, symbol names) to pointers,
 * the one every part of shard that needs a string-keyed table uses, beside
 * ptrmap.h for pointer keys.
 *
 * Keys are (bytes, length) and are not copied: the caller keeps them alive
 * as long as the map (they are usually in the source text or the module
 * arena). A zero-initialised shard_strmap is empty and ready;
 * shard_strmap_release frees its storage. An absent key reads as NULL, so
 * values are non-NULL pointers. */
#ifndef SHARD_STRMAP_H
#define SHARD_STRMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct shard_strmap_entry {
  const char *key; /* NULL: empty */
  size_t len;
  uint32_t hash;
  void *val;
} shard_strmap_entry;

typedef struct shard_strmap {
  shard_strmap_entry *slots; /* open addressing, linear probing, at most half full */
  uint32_t cap, len; /* cap is 0 or a power of two */
} shard_strmap;

/* The string hash of shard (32 bits, eight bytes a step). */
uint32_t shard_str_hash(const char *s, size_t len);

/* The value of `key`, NULL when absent. */
void *shard_strmap_get(const shard_strmap *m, const char *key, size_t len);
/* The value slot of `key`, inserted with NULL when absent; valid until the
 * next insertion. */
void **shard_strmap_slot(shard_strmap *m, const char *key, size_t len);
void shard_strmap_put(shard_strmap *m, const char *key, size_t len, void *val);
/* NUL-terminated keys. */
void *shard_strmap_get_cstr(const shard_strmap *m, const char *key);
void shard_strmap_put_cstr(shard_strmap *m, const char *key, void *val);

/* Each key with its value, in table order (fn returns false to stop). */
void shard_strmap_each(const shard_strmap *m, bool (*fn)(void *ctx, const char *key, size_t len, void *val), void *ctx);
/* Removes every key, keeping the storage. */
void shard_strmap_clear(shard_strmap *m);
/* Removes every key, at a cost in the keys it held rather than its
 * capacity: storage much larger than that goes back (for a map emptied
 * often, that once grew large). */
void shard_strmap_forget(shard_strmap *m);
void shard_strmap_release(shard_strmap *m);

#endif
