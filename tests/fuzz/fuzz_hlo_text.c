/* libFuzzer target: the HLO text reader (xla/hlo_text.c) as `shard check`,
 * `propagate`, `lower` and `viz` use it through shard_xla_read_input: an HLO
 * text dump read into StableHLO, parsed, and imported when it is in XLA's
 * sdy round-trip form. Input: the bytes of one file; those that do not start
 * with `HloModule` get it put in front, so every unit reaches the reader.
 * Besides crashes and sanitizers, a finding is: a refusal without an error,
 * a diagnostic outside its source, or a module that verifies and prints as
 * text that does not parse again. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "support/arena.h"
#include "fuzz_common.h"
#include "xla/xla_import.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static const char head[] = "HloModule ";
  bool has_head = size >= 9 && memcmp(data, head, 9) == 0;
  size_t pre = has_head ? 0 : sizeof head - 1;
  char *text = shard_xmalloc(pre + size + 1);
  memcpy(text, head, pre);
  memcpy(text + pre, data, size);
  text[pre + size] = '\0';
  shard_source src = {"<fuzz>", text, pre + size, 0};
  shard_diag_engine de;
  shard_diag_init(&de, fuzz_diag, NULL);
  shard_parse_options popts = {.allow_unregistered = false, .max_depth = 0};
  shard_xla_input keep;
  shard_module *m = shard_xla_read_input(&src, &popts, &keep, &de);
  if (!m && de.errors == 0) fuzz_fail("HLO text refused without an error");
  if (m) {
    shard_verify_options vopts = {.extra_warnings = false};
    unsigned before = de.errors;
    bool ok = shard_verify_module(m, &vopts, &de);
    if (!ok && de.errors == before) fuzz_fail("verify failed without an error");
    if (ok) {
      shard_buf out;
      shard_buf_init(&out);
      shard_print_options po = {0};
      shard_print_module(&out, m, &po);
      shard_source again = {"<printed>", shard_buf_str(&out), out.len, 0};
      shard_diag_engine de2;
      shard_diag_init(&de2, fuzz_diag, NULL);
      shard_parse_options p2 = {.allow_unregistered = true, .max_depth = 0};
      shard_module *m2 = shard_parse_module(&again, &p2, &de2);
      if (!m2) {
        fprintf(stderr, "%s\n", shard_buf_str(&out));
        fuzz_fail("the module read from HLO text prints as text that does not parse");
      }
      shard_module_free(m2);
      shard_buf_free(&out);
    }
    shard_module_free(m);
  }
  shard_xla_input_release(&keep);
  free(text);
  return 0;
}
