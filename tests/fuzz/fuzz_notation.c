/* libFuzzer target: the design-doc notation of `shard check -e` (mesh lines
 * `@m = <["x"=2]>` and `sharding<@m, [{"x"}]> : tensor<8xf32>`), i.e.
 * cli_snippet_build and the module it generates, which then goes through
 * the same parse/verify/print/reparse pipeline as fuzz_mlir. Diagnostics
 * are mapped back into the snippet, as the CLI does, and must land in it.
 * Input: the snippet text (cut at the first NUL, as a command-line
 * argument would be). */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "support/arena.h"
#include "cli.h"
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

typedef struct mapped_ctx {
  const cli_snippet *snippet;
} mapped_ctx;

static void mapped_diag(void *ctx, const shard_diag *d) {
  const mapped_ctx *mc = ctx;
  shard_diag mapped = *d;
  if (d->span.src == &mc->snippet->module) mapped.span = cli_snippet_map(mc->snippet, d->span);
  fuzz_diag(NULL, &mapped);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *text = shard_xmalloc(size + 1);
  memcpy(text, data, size);
  text[size] = '\0';
  cli_snippet s;
  shard_diag_engine de;
  shard_diag_init(&de, fuzz_diag, NULL);
  bool built = cli_snippet_build(&s, text, &de);
  if (!built && de.errors == 0) fuzz_fail("snippet rejected without an error");
  if (built) {
    mapped_ctx mc = {&s};
    shard_diag_engine mde;
    shard_diag_init(&mde, mapped_diag, &mc);
    shard_parse_options popts = {.allow_unregistered = true, .max_depth = 0};
    shard_module *m = shard_parse_module(&s.module, &popts, &mde);
    if (!m && mde.errors == 0) fuzz_fail("snippet module failed to parse without an error");
    if (m) {
      shard_verify_options vopts = {.extra_warnings = true};
      if (!shard_verify_module(m, &vopts, &mde) && mde.errors == 0)
        fuzz_fail("snippet module failed to verify without an error");
      shard_module_free(m);
    }
    /* The generated text on its own must also survive the full pipeline. */
    fuzz_module(&s.module);
  }
  cli_snippet_free(&s);
  free(text);
  return 0;
}
