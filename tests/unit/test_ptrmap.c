/* The pointer map (ptrmap.c) every pass uses for maps and sets of nodes:
 * growth keeps every entry, absent keys read 0, index 0 is a real value,
 * sets report new keys, clear and reserve keep the contents right. */
#include <criterion/criterion.h>
#include <stdlib.h>

#include "support/ptrmap.h"

Test(ptrmap, survives_growth) {
  enum { N = 5000 };
  int *keys = calloc(N, sizeof *keys);
  shard_ptrmap map = {0};
  for (int i = 0; i < N; i++) shard_ptrmap_put_ptr(&map, &keys[i], &keys[(i + 1) % N]);
  cr_expect_eq(map.len, N);
  for (int i = 0; i < N; i++) cr_assert_eq(shard_ptrmap_get_ptr(&map, &keys[i]), &keys[(i + 1) % N]);
  shard_ptrmap_put_ptr(&map, &keys[7], NULL);
  cr_expect_null(shard_ptrmap_get_ptr(&map, &keys[7]));
  cr_expect_eq(map.len, N, "overwriting a key does not add one");
  int other = 0;
  cr_expect_null(shard_ptrmap_get_ptr(&map, &other));
  cr_expect_null(shard_ptrmap_find(&map, &other));
  shard_ptrmap_release(&map);
  cr_expect_eq(map.cap, 0);
  free(keys);
}

Test(ptrmap, an_empty_map_answers_without_storage) {
  shard_ptrmap map = {0};
  int key = 0;
  uint32_t index = 99;
  cr_expect_eq(shard_ptrmap_get(&map, &key), 0);
  cr_expect_not(shard_ptrmap_get_index(&map, &key, &index));
  cr_expect_eq(index, 99, "a miss leaves the output alone");
  shard_ptrmap_clear(&map);
  shard_ptrmap_release(&map);
}

Test(ptrmap, index_zero_is_a_value) {
  int keys[3] = {0};
  shard_ptrmap map = {0};
  for (uint32_t i = 0; i < 3; i++) shard_ptrmap_put(&map, &keys[i], i);
  uint32_t index = 99;
  cr_expect(shard_ptrmap_get_index(&map, &keys[0], &index));
  cr_expect_eq(index, 0);
  cr_expect(shard_ptrmap_get_index(&map, &keys[2], &index));
  cr_expect_eq(index, 2);
  shard_ptrmap_release(&map);
}

Test(ptrmap, add_says_whether_the_key_is_new) {
  int keys[2] = {0};
  shard_ptrmap set = {0};
  cr_expect(shard_ptrmap_add(&set, &keys[0]));
  cr_expect_not(shard_ptrmap_add(&set, &keys[0]));
  cr_expect(shard_ptrmap_add(&set, &keys[1]));
  cr_expect_eq(set.len, 2);
  shard_ptrmap_release(&set);
}

Test(ptrmap, slot_inserts_zero_and_writes_through) {
  int key = 0;
  shard_ptrmap map = {0};
  uint64_t *slot = shard_ptrmap_slot(&map, &key);
  cr_expect_eq(*slot, 0);
  *slot = 41;
  *shard_ptrmap_slot(&map, &key) += 1;
  cr_expect_eq(shard_ptrmap_get(&map, &key), 42);
  cr_expect_eq(map.len, 1);
  shard_ptrmap_release(&map);
}

Test(ptrmap, clear_forgets_keys_and_keeps_storage) {
  enum { N = 100 };
  int keys[N] = {0};
  shard_ptrmap map = {0};
  for (int i = 0; i < N; i++) shard_ptrmap_put(&map, &keys[i], (uint64_t)i + 1);
  uint32_t cap = map.cap;
  shard_ptrmap_clear(&map);
  cr_expect_eq(map.len, 0);
  cr_expect_eq(map.cap, cap);
  for (int i = 0; i < N; i++) cr_assert_null(shard_ptrmap_find(&map, &keys[i]));
  shard_ptrmap_put(&map, &keys[5], 6);
  cr_expect_eq(shard_ptrmap_get(&map, &keys[5]), 6);
  shard_ptrmap_release(&map);
}

Test(ptrmap, reserve_keeps_entries_and_avoids_rehashing) {
  enum { N = 1000 };
  int keys[N] = {0};
  shard_ptrmap map = {0};
  shard_ptrmap_put(&map, &keys[0], 7);
  shard_ptrmap_reserve(&map, N);
  uint32_t cap = map.cap;
  cr_expect_geq(cap, 2 * N);
  cr_expect_eq(shard_ptrmap_get(&map, &keys[0]), 7);
  for (int i = 1; i < N; i++) shard_ptrmap_put(&map, &keys[i], (uint64_t)i);
  cr_expect_eq(map.cap, cap, "N keys fit after reserving N");
  for (int i = 1; i < N; i++) cr_assert_eq(shard_ptrmap_get(&map, &keys[i]), (uint64_t)i);
  shard_ptrmap_release(&map);
}
