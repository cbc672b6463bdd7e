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

Test(arena, lanes_are_freed_reset_and_counted_with_their_arena) {
  shard_arena *a = shard_arena_new();
  shard_arena *l0 = shard_arena_lane(a, 0), *l1 = shard_arena_lane(a, 1);
  cr_expect_neq(l0, l1);
  cr_expect_eq(shard_arena_lane(a, 0), l0, "a lane is made once");
  /* consecutive allocations of a lane sit side by side, whatever else the
   * arena hands out in between */
  unsigned char *p = shard_arena_alloc(l0, 128);
  memset(shard_arena_alloc(a, 200), 0xcd, 200);
  memset(shard_arena_alloc(l1, 40), 0xcd, 40);
  unsigned char *q = shard_arena_alloc(l0, 128);
  cr_expect_eq(q, p + 128);
  cr_expect_eq(shard_arena_used(a), (size_t)(200 + 128 + 128 + 40));
  memset(q, 0xcd, 128);
  shard_arena_reset(a);
  cr_expect_eq(shard_arena_used(a), 0);
  unsigned char *r = shard_arena_alloc(l0, 128);
  for (int k = 0; k < 128; k++) cr_assert_eq(r[k], 0, "byte %d", k);
  shard_arena_free(a); /* frees the lanes: valgrind and ASan runs see no leak */
}

Test(arena, a_large_arena_keeps_handing_out_zeroed_memory_in_huge_chunks) {
  /* past 1 MiB the chunks are 2 MiB mappings of their own (huge pages) */
  shard_arena *a = shard_arena_new();
  for (int round = 0; round < 2; round++) {
    unsigned char *prev = NULL;
    for (int i = 0; i < 100000; i++) {
      size_t size = (size_t)(i % 3 ? 64 : 136);
      unsigned char *p = shard_arena_alloc(a, size);
      cr_assert_eq((uintptr_t)p % 8, 0);
      for (size_t k = 0; k < size; k++) cr_assert_eq(p[k], 0, "round %d alloc %d byte %zu", round, i, k);
      memset(p, 0xcd, size);
      cr_assert(p != prev);
      prev = p;
    }
    cr_expect_eq(shard_arena_used(a), (size_t)33334 * 136 + (size_t)66666 * 64);
    shard_arena_reset(a);
  }
  shard_arena_free(a);
}
