/* Arena allocation and the allocation wrappers everything else uses.
 *
 * One arena per parsed module: IR nodes are never freed one by one, the whole
 * arena goes at once with shard_arena_free. Everything else goes through
 * shard_xmalloc & co., which abort on out-of-memory so call sites never test
 * for NULL. */
#ifndef SHARD_ARENA_H
#define SHARD_ARENA_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct shard_arena shard_arena;

/* The front of every arena: the free space of its current chunk, read by
 * the inline fast path of shard_arena_alloc (the rest is arena.c's). */
typedef struct shard_arena_bump {
  unsigned char *cur, *end;
} shard_arena_bump;

shard_arena *shard_arena_new(void);
/* Frees every allocation made from the arena, then the arena itself. */
void shard_arena_free(shard_arena *a);
/* Zero-initialised, 8-byte aligned (enough for every type shard keeps in
 * an arena; not for long double or __int128). */
void *shard_arena_alloc(shard_arena *a, size_t size);
/* shard_arena_alloc's general path: a new chunk, a large block. */
void *shard_arena_alloc_slow(shard_arena *a, size_t size);
void *shard_arena_dup(shard_arena *a, const void *p, size_t size);
char *shard_arena_strndup(shard_arena *a, const char *s, size_t n);
char *shard_arena_strdup(shard_arena *a, const char *s);
char *shard_arena_printf(shard_arena *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Forgets every allocation but keeps the first chunk for reuse: a scratch
 * arena reset after each step costs no malloc/free per step. */
void shard_arena_reset(shard_arena *a);
/* Lanes: objects that are read together are allocated together. An arena
 * has SHARD_ARENA_LANES side arenas, made on first use and freed, reset and
 * counted (shard_arena_used) with it. The IR keeps its ops in one lane and
 * their operands and results in another (ir.c), so that a walk over a
 * module's ops reads consecutive memory, not one op every few hundred bytes
 * among attributes, types and strings: a 25% shorter propagate at 100k ops,
 * where the IR no longer fits the caches. k < SHARD_ARENA_LANES. */
enum { SHARD_ARENA_LANES = 2 };
shard_arena *shard_arena_lane(shard_arena *a, unsigned k);
/* Bytes handed out so far (for statistics and benchmarks). */
size_t shard_arena_used(const shard_arena *a);

/* Most allocations are a few words and fit the current chunk: a bump of
 * its pointer and a fixed 64-byte clear (a few stores, no memset call;
 * bytes past the allocation are free chunk space, cleared again when
 * handed out), inline at every call site. */
static inline void *shard_arena_alloc_inline(shard_arena *a, size_t size) {
  shard_arena_bump *b = (shard_arena_bump *)(void *)a;
  size = size ? (size + 7) & ~(size_t)7 : 8;
  if (size <= 64 && (size_t)(b->end - b->cur) >= 64) {
    unsigned char *p = b->cur;
    memset(p, 0, 64);
    b->cur = p + size;
    return p;
  }
  return shard_arena_alloc_slow(a, size);
}
#define shard_arena_alloc(a, size) shard_arena_alloc_inline((a), (size))

#define SHARD_NEW(a, T) ((T *)shard_arena_alloc((a), sizeof(T)))
#define SHARD_NEW_ARRAY(a, T, n) ((T *)shard_arena_alloc((a), sizeof(T) * (size_t)(n)))

void *shard_xmalloc(size_t size);
void *shard_xcalloc(size_t n, size_t size);
void *shard_xrealloc(void *p, size_t size);
char *shard_xstrdup(const char *s);
char *shard_xstrndup(const char *s, size_t n);

/* A growable array on the heap, for building lists before they move into the
 * arena with SHARD_VEC_FREEZE. */
#define SHARD_VEC(T)                                                                                                   \
  struct {                                                                                                             \
    T *items;                                                                                                          \
    uint32_t len, cap;                                                                                                 \
  }
#define SHARD_VEC_PUSH(v, x)                                                                                           \
  do {                                                                                                                 \
    if ((v).len == (v).cap) {                                                                                          \
      (v).cap = (v).cap ? (v).cap * 2 : 8;                                                                             \
      (v).items = shard_xrealloc((v).items, sizeof(*(v).items) * (v).cap);                                             \
    }                                                                                                                  \
    (v).items[(v).len++] = (x);                                                                                        \
  } while (0)
#define SHARD_VEC_FREE(v) (free((v).items), (v).items = NULL, (v).len = (v).cap = 0)
/* Copies the items into the arena and frees the heap buffer. */
#define SHARD_VEC_FREEZE(a, v, out)                                                                                    \
  do {                                                                                                                 \
    (out) = (v).len ? shard_arena_dup((a), (v).items, sizeof(*(v).items) * (v).len) : NULL;                            \
    SHARD_VEC_FREE(v);                                                                                                 \
  } while (0)

/* A vector with room for its first N items inside itself: built on the stack
 * while parsing one op, it needs no heap allocation unless it outgrows N.
 * SHARD_SVEC_INIT before use; never copy one by value (items may point
 * into it); SHARD_SVEC_FREE frees a heap buffer if it grew one. */
#define SHARD_SVEC(T, N)                                                                                               \
  struct {                                                                                                             \
    T *items;                                                                                                          \
    uint32_t len, cap;                                                                                                 \
    T inl[N];                                                                                                          \
  }
#define SHARD_SVEC_INIT(v)                                                                                             \
  ((v).items = (v).inl, (v).len = 0, (v).cap = (uint32_t)(sizeof((v).inl) / sizeof((v).inl[0])))
#define SHARD_SVEC_PUSH(v, x)                                                                                          \
  do {                                                                                                                 \
    if ((v).len == (v).cap) (v).items = shard_svec_grow((v).items, (v).inl, &(v).cap, sizeof(*(v).items));             \
    (v).items[(v).len++] = (x);                                                                                        \
  } while (0)
#define SHARD_SVEC_FREE(v) (((v).items != (v).inl ? free((v).items) : (void)0), SHARD_SVEC_INIT(v))
#define SHARD_SVEC_FREEZE(a, v, out)                                                                                   \
  do {                                                                                                                 \
    (out) = (v).len ? shard_arena_dup((a), (v).items, sizeof(*(v).items) * (v).len) : NULL;                            \
    SHARD_SVEC_FREE(v);                                                                                                \
  } while (0)
/* Doubles the capacity, moving inline items to the heap on the first growth. */
void *shard_svec_grow(void *items, void *inl, uint32_t *cap, size_t item_size);

#endif
