/* The string map (support/strmap.c). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support/strmap.h"

Test(strmap, empty_map_reads_null) {
  shard_strmap m = {0};
  cr_expect_null(shard_strmap_get_cstr(&m, "x"));
  shard_strmap_release(&m);
}

Test(strmap, keys_are_bytes_and_length) {
  shard_strmap m = {0};
  static const char text[] = "abcabc";
  int a = 1, b = 2, c = 3;
  shard_strmap_put(&m, text, 3, &a); /* "abc" */
  shard_strmap_put(&m, text + 1, 2, &b); /* "bc" */
  shard_strmap_put(&m, "ab\0c", 4, &c); /* an embedded NUL is a byte like any other */
  cr_expect_eq(shard_strmap_get(&m, text + 3, 3), &a, "same bytes, other pointer");
  cr_expect_eq(shard_strmap_get(&m, "bc", 2), &b);
  cr_expect_eq(shard_strmap_get(&m, "ab\0c", 4), &c);
  cr_expect_null(shard_strmap_get(&m, "ab", 2));
  cr_expect_null(shard_strmap_get(&m, "abcd", 4));
  shard_strmap_put_cstr(&m, "abc", &c);
  cr_expect_eq(shard_strmap_get_cstr(&m, "abc"), &c, "put replaces");
  cr_expect_eq(m.len, 3u);
  shard_strmap_release(&m);
}

static bool S_count(void *ctx, const char *key, size_t len, void *val) {
  (void)key;
  (void)len;
  (void)val;
  ++*(int *)ctx;
  return true;
}

Test(strmap, grows_and_clears) {
  shard_strmap m = {0};
  enum { N = 5000 };
  static char keys[N][16];
  for (int i = 0; i < N; i++) {
    snprintf(keys[i], sizeof keys[i], "k%d", i);
    shard_strmap_put_cstr(&m, keys[i], keys[i]);
  }
  cr_expect_eq(m.len, (unsigned)N);
  cr_expect_leq(m.len * 2, m.cap, "at most half full");
  for (int i = 0; i < N; i++) cr_assert_eq(shard_strmap_get_cstr(&m, keys[i]), keys[i], "%s", keys[i]);
  int n = 0;
  shard_strmap_each(&m, S_count, &n);
  cr_expect_eq(n, N);
  void **slot = shard_strmap_slot(&m, "new", 3);
  cr_expect_null(*slot, "a new key's slot holds NULL");
  shard_strmap_clear(&m);
  cr_expect_eq(m.len, 0u);
  cr_expect_null(shard_strmap_get_cstr(&m, "k1"));
  shard_strmap_release(&m);
}

Test(strmap, hash_depends_on_every_byte) {
  cr_expect_eq(shard_str_hash("stablehlo.add", 13), shard_str_hash("stablehlo.add", 13));
  cr_expect_neq(shard_str_hash("", 0), shard_str_hash("a", 1));
  cr_expect_neq(shard_str_hash("a", 1), shard_str_hash("a\0", 2), "the length counts");
  cr_expect_neq(shard_str_hash("tensor<8x512xf32>", 17), shard_str_hash("tensor<8x512xf16>", 17));
  cr_expect_neq(shard_str_hash("abcdefgh1", 9), shard_str_hash("abcdefgh2", 9));
}
