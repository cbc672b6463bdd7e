/* The fuzz harnesses' structure-aware mutator (tests/fuzz/fuzz_mutator.h):
 * whatever the seed, an edit stays inside the buffer and writes only bytes
 * of the input or of its own replacement alphabet. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "../fuzz/fuzz_mutator.h"

static bool S_allowed(const char *input, uint8_t c) {
  return memchr(input, c, strlen(input)) != NULL || strchr("0123456789-x:()\"._abcdefghijklmnopqrstuvwyz", c) != NULL;
}

static void S_mutate_many(const char *input, size_t max) {
  size_t n = strlen(input);
  uint8_t *buf = malloc(max);
  for (uint32_t seed = 0; seed < 20000; seed++) {
    memcpy(buf, input, n);
    size_t got = fuzz_mutate_text(buf, n, max, seed);
    cr_assert_leq(got, max, "seed %u grew the text past max", seed);
    for (size_t i = 0; i < got; i++)
      cr_assert(S_allowed(input, buf[i]), "seed %u wrote byte 0x%02x at %zu", seed, buf[i], i);
  }
  free(buf);
}

Test(fuzz_mutator, a_dim_longer_than_the_replacement_buffer_is_left_alone) {
  /* a 150-digit dim: "2x" + the dim does not fit the mutator's 96-byte buffer */
  char text[512];
  strcpy(text, "func.func @f(%a: tensor<");
  memset(text + strlen(text), '7', 150);
  strcpy(text + 24 + 150, "x4xf32>) -> tensor<4xf32> { \"x\" }");
  S_mutate_many(text, sizeof text + 256);
}

Test(fuzz_mutator, edits_respect_max_size) {
  const char *text = "sdy.mesh @m = <[\"x\"=2, \"y\"=4]>\n"
                     "%0 = stablehlo.add %a, %b : tensor<8x16xf32> {sdy.sharding = <@m, [{\"x\"}, {\"y\"}]>}";
  S_mutate_many(text, strlen(text)); /* no room to grow: growing edits must give up */
}
