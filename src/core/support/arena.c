/* Bump allocation in chunks. Allocations are zeroed and 8-byte aligned
 * (nothing shard keeps in an arena needs more: no long double, no
 * __int128; 16 wasted 6 bytes an allocation on average); large requests get
 * a chunk of their own so small ones keep packing. */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS, MADV_HUGEPAGE */
#include "support/arena.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define ARENA_CHUNK (64 * 1024)
/* Past this many bytes an arena takes its chunks in huge pages: 2 MiB chunks
 * at 2 MiB boundaries, marked for the kernel's transparent huge pages, so a
 * large module's IR costs one page fault per 2 MiB instead of one per 4 KiB
 * (a fifth of `shard check`'s time at 100k ops went to page faults). */
#define ARENA_HUGE_AFTER (1024 * 1024)
#define ARENA_HUGE (2 * 1024 * 1024)
#define ARENA_ALIGN 8

typedef struct arena_chunk {
  struct arena_chunk *next;
  size_t cap;
  int mapped; /* a huge chunk: the chunk is its own mapping of ARENA_HUGE bytes */
  _Alignas(ARENA_ALIGN) unsigned char mem[];
} arena_chunk;

/* The bump pointer first (arena.h's shard_arena_bump): the current chunk's
 * free space is [bump.cur, bump.end). */
struct shard_arena {
  shard_arena_bump bump;
  arena_chunk *head; /* the current chunk, then older and large ones */
  size_t closed; /* bytes handed out outside the current chunk's bump */
  shard_arena *lane[SHARD_ARENA_LANES]; /* shard_arena_lane's, created on first use */
};

static arena_chunk *S_chunk_new(size_t cap) {
  arena_chunk *c = shard_xmalloc(sizeof(arena_chunk) + cap);
  c->next = NULL;
  c->cap = cap;
  c->mapped = 0;
  return c;
}

/* A 2 MiB-aligned chunk of ARENA_HUGE bytes in all, or a plain one when the
 * system will not map it. */
static arena_chunk *S_chunk_huge(void) {
  size_t len = 2 * (size_t)ARENA_HUGE;
  unsigned char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) return S_chunk_new(ARENA_HUGE - sizeof(arena_chunk));
  uintptr_t at = ((uintptr_t)p + ARENA_HUGE - 1) & ~(uintptr_t)(ARENA_HUGE - 1);
  unsigned char *start = (unsigned char *)at;
  /* give back the unaligned head and tail */
  if (start > p) munmap(p, (size_t)(start - p));
  if (start + ARENA_HUGE < p + len) munmap(start + ARENA_HUGE, (size_t)(p + len - (start + ARENA_HUGE)));
#ifdef MADV_HUGEPAGE
  madvise(start, ARENA_HUGE, MADV_HUGEPAGE);
#endif
  arena_chunk *c = (arena_chunk *)(void *)start;
  c->next = NULL;
  c->cap = ARENA_HUGE - sizeof(arena_chunk);
  c->mapped = 1;
  return c;
}

static void S_chunk_free(arena_chunk *c) {
  if (c->mapped) munmap(c, ARENA_HUGE);
  else free(c);
}

static void S_oom(void) {
  fputs("shard: out of memory\n", stderr);
  abort();
}

void *shard_xmalloc(size_t size) {
  void *p = malloc(size ? size : 1);
  if (!p) S_oom();
  return p;
}

void *shard_xcalloc(size_t n, size_t size) {
  void *p = calloc(n ? n : 1, size ? size : 1);
  if (!p) S_oom();
  return p;
}

void *shard_xrealloc(void *p, size_t size) {
  void *q = realloc(p, size ? size : 1);
  if (!q) S_oom();
  return q;
}

char *shard_xstrndup(const char *s, size_t n) {
  char *p = shard_xmalloc(n + 1);
  memcpy(p, s, n);
  p[n] = 0;
  return p;
}

char *shard_xstrdup(const char *s) { return shard_xstrndup(s, strlen(s)); }

void *shard_svec_grow(void *items, void *inl, uint32_t *cap, size_t item_size) {
  uint32_t n = *cap;
  *cap = n ? n * 2 : 8;
  if (items != inl) return shard_xrealloc(items, item_size * *cap);
  void *heap = shard_xmalloc(item_size * *cap);
  if (n) memcpy(heap, inl, item_size * n);
  return heap;
}

shard_arena *shard_arena_new(void) { return shard_xcalloc(1, sizeof(shard_arena)); }

shard_arena *shard_arena_lane(shard_arena *a, unsigned k) {
  if (k >= SHARD_ARENA_LANES) {
    fprintf(stderr, "shard: internal error: arena lane %u of %d\n", k, SHARD_ARENA_LANES);
    abort();
  }
  if (!a->lane[k]) a->lane[k] = shard_arena_new();
  return a->lane[k];
}

void shard_arena_free(shard_arena *a) {
  if (!a) return;
  for (unsigned k = 0; k < SHARD_ARENA_LANES; k++) shard_arena_free(a->lane[k]);
  for (arena_chunk *c = a->head, *next; c; c = next) {
    next = c->next;
    S_chunk_free(c);
  }
  free(a);
}

void shard_arena_reset(shard_arena *a) {
  for (unsigned k = 0; k < SHARD_ARENA_LANES; k++)
    if (a->lane[k]) shard_arena_reset(a->lane[k]);
  arena_chunk *keep = a->head && a->head->cap == ARENA_CHUNK ? a->head : NULL;
  for (arena_chunk *c = a->head, *next; c; c = next) {
    next = c->next;
    if (c != keep) S_chunk_free(c);
  }
  a->head = keep;
  if (keep) {
    keep->next = NULL;
    a->bump.cur = keep->mem;
    a->bump.end = keep->mem + keep->cap;
  } else {
    a->bump.cur = a->bump.end = NULL;
  }
  a->closed = 0;
}

void *shard_arena_alloc_slow(shard_arena *a, size_t size) {
  size = (size + ARENA_ALIGN - 1) & ~(size_t)(ARENA_ALIGN - 1);
  if (size == 0) size = ARENA_ALIGN;
  arena_chunk *c = a->head;
  if (!c || (size_t)(a->bump.end - a->bump.cur) < size) {
    if (size > ARENA_CHUNK / 4) {
      /* A chunk of its own, linked behind the current one. */
      arena_chunk *big = S_chunk_new(size);
      if (c) {
        big->next = c->next;
        c->next = big;
        a->closed += size;
      } else {
        /* the first chunk, and full */
        a->head = big;
        a->bump.cur = a->bump.end = big->mem + size;
      }
      memset(big->mem, 0, size);
      return big->mem;
    }
    if (c) a->closed += (size_t)(a->bump.cur - c->mem);
    c = a->closed >= ARENA_HUGE_AFTER ? S_chunk_huge() : S_chunk_new(ARENA_CHUNK);
    c->next = a->head;
    a->head = c;
    a->bump.cur = c->mem;
    a->bump.end = c->mem + c->cap;
  }
  unsigned char *p = a->bump.cur;
  if (size <= 64 && (size_t)(a->bump.end - p) >= 64) memset(p, 0, 64);
  else memset(p, 0, size);
  a->bump.cur = p + size;
  return p;
}

/* The out-of-line entry point (arena.h makes the name a macro). */
void *(shard_arena_alloc)(shard_arena *a, size_t size) { return shard_arena_alloc_inline(a, size); }

void *shard_arena_dup(shard_arena *a, const void *p, size_t size) {
  void *q = shard_arena_alloc(a, size);
  if (size) memcpy(q, p, size);
  return q;
}

char *shard_arena_strndup(shard_arena *a, const char *s, size_t n) {
  char *p = shard_arena_alloc(a, n + 1);
  memcpy(p, s, n);
  p[n] = 0;
  return p;
}

char *shard_arena_strdup(shard_arena *a, const char *s) { return shard_arena_strndup(a, s, strlen(s)); }

char *shard_arena_printf(shard_arena *a, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  if (n < 0) n = 0;
  char *p = shard_arena_alloc(a, (size_t)n + 1);
  va_start(ap, fmt);
  vsnprintf(p, (size_t)n + 1, fmt, ap);
  va_end(ap);
  return p;
}

size_t shard_arena_used(const shard_arena *a) {
  size_t lanes = 0;
  for (unsigned k = 0; k < SHARD_ARENA_LANES; k++) lanes += a->lane[k] ? shard_arena_used(a->lane[k]) : 0;
  return lanes + a->closed + (a->head ? (size_t)(a->bump.cur - a->head->mem) : 0);
}
