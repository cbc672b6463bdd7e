/* libFuzzer target: the MLIR module parser (parse.c, parse_attr.c, lex.c,
 * sdy_parse.c and every op's custom syntax), then the verifier, the printers
 * and a reparse of what they print. Input: the bytes of one .mlir file. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "support/arena.h"
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  /* The CLI hands the parser a NUL-terminated copy whose length counts. */
  char *text = shard_xmalloc(size + 1);
  memcpy(text, data, size);
  text[size] = '\0';
  shard_source src = {"<fuzz>", text, size, 0};
  fuzz_module(&src);
  free(text);
  return 0;
}
