/* Helpers for the IR tests: parse a module from text through the real
 * parser, failing the test on any diagnostic. */
#ifndef SHARD_TEST_IR_TESTING_H
#define SHARD_TEST_IR_TESTING_H

#include <criterion/criterion.h>
#include <string.h>

#include "ir/parse.h"

/* The module of `text`, read as test.mlir through `src` (which the module's
 * spans point into, so it must outlive the module). */
static inline shard_module *ir_testing_parse(shard_source *src, const char *text) {
  *src = (shard_source){"test.mlir", text, strlen(text), 0};
  shard_diag_engine de;
  shard_diag_init(&de, NULL, NULL);
  shard_module *m = shard_parse_module(src, NULL, &de);
  cr_assert(m && !de.errors, "parse failed");
  return m;
}

#endif
