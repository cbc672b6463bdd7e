/* The arena (arena.c): zeroed allocations, big requests in chunks of their
 * own, and reset, which scratch arenas in hot loops rely on. */
#include <criterion/criterion.h>
#include <string.h>

#include "support/arena.h"

Test(arena, allocations_are_zeroed_and_aligned) {
  shard_arena *a = shard_arena_new();
  for (size_t size = 1; size < 100; size += 7) {
    unsigned char *p = shard_arena_alloc(a, size);
    cr_expect_eq((uintptr_t)p % 8, 0);
    for (size_t i = 0; i < size; i++) cr_expect_eq(p[i], 0);
    memset(p, 0xab, size);
  }
  shard_arena_free(a);
}

Test(arena, reset_forgets_everything_and_zeroes_reused_memory) {
  shard_arena *a = shard_arena_new();
  unsigned char *first = shard_arena_alloc(a, 64);
  memset(first, 0xcd, 64);
  /* a big request (its own chunk) and enough small ones for a second chunk */
  unsigned char *big = shard_arena_alloc(a, 1 << 20);
  memset(big, 0xcd, 1 << 20);
  for (int i = 0; i < 2000; i++) memset(shard_arena_alloc(a, 64), 0xcd, 64);
  cr_expect_gt(shard_arena_used(a), (size_t)1 << 20);
  shard_arena_reset(a);
  cr_expect_eq(shard_arena_used(a), 0);
  for (int round = 0; round < 3; round++) {
    for (int i = 0; i < 2000; i++) {
      unsigned char *p = shard_arena_alloc(a, 64);
      for (int k = 0; k < 64; k++) cr_assert_eq(p[k], 0, "round %d alloc %d byte %d", round, i, k);
      memset(p, 0xcd, 64);
    }
    cr_expect_eq(shard_arena_used(a), (size_t)2000 * 64);
    shard_arena_reset(a);
  }
  /* a fresh arena can be reset too */
  shard_arena *empty = shard_arena_new();
  shard_arena_reset(empty);
  cr_expect_eq(shard_arena_used(empty), 0);
  cr_expect_eq(*(unsigned char *)shard_arena_alloc(empty, 1), 0);
  shard_arena_free(empty);
  shard_arena_free(a);
}
