/* Shared pieces of the libFuzzer harnesses: a diagnostic sink that checks
 * every diagnostic points inside its source, and the parse -> verify ->
 * print -> reparse pipeline both harnesses end in.
 *
 * A harness aborts (a finding) when: shard crashes or trips a sanitizer; a
 * parse or verify fails without any error diagnostic; a diagnostic's span
 * lies outside its buffer; or a module that parsed and verified prints as
 * text that does not parse again. */
#ifndef SHARD_FUZZ_COMMON_H
#define SHARD_FUZZ_COMMON_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support/buf.h"
#include "support/diag.h"
#include "ir/ir.h"
#include "ir/parse.h"
#include "ir/print.h"
#include "verify/verify.h"

static inline void fuzz_fail(const char *what) {
  fprintf(stderr, "fuzz invariant violated: %s\n", what);
  abort();
}

static inline void fuzz_diag(void *ctx, const shard_diag *d) {
  (void)ctx;
  const shard_span *s = &d->span;
  /* An error at end of input spans the (virtual) character after the last
   * one, which the CLI's NUL terminator backs; anything further is a bug. */
  if (s->src && ((size_t)s->off > s->src->len || (size_t)s->off + s->len > s->src->len + 1))
    fuzz_fail("diagnostic span outside its source");
  if (s->src) {
    uint32_t line, col;
    size_t len;
    shard_span_linecol(*s, &line, &col);
    (void)shard_span_line_text(*s, &len);
  }
  (void)strlen(d->message);
}

/* Parses, verifies, prints generic and pretty, and reparses the prints. */
static inline void fuzz_module(shard_source *src) {
  shard_diag_engine de;
  shard_diag_init(&de, fuzz_diag, NULL);
  shard_parse_options popts = {.allow_unregistered = true, .max_depth = 0};
  shard_module *m = shard_parse_module(src, &popts, &de);
  if (!m) {
    if (de.errors == 0) fuzz_fail("parse failed without an error");
    return;
  }
  shard_verify_options vopts = {.extra_warnings = true};
  bool ok = shard_verify_module(m, &vopts, &de);
  if (!ok && de.errors == 0) fuzz_fail("verify failed without an error");
  if (ok) {
    for (int generic = 0; generic < 2; generic++) {
      shard_buf out;
      shard_buf_init(&out);
      shard_print_options prt = {.generic = generic != 0};
      shard_print_module(&out, m, &prt);
      shard_source again = {"<reprint>", shard_buf_str(&out), strlen(shard_buf_str(&out)), 0};
      shard_diag_engine de2;
      shard_diag_init(&de2, fuzz_diag, NULL);
      shard_module *m2 = shard_parse_module(&again, &popts, &de2);
      if (!m2) {
        fprintf(stderr, "%s\n", shard_buf_str(&out));
        fuzz_fail(generic ? "generic print does not parse again" : "pretty print does not parse again");
      }
      shard_module_free(m2);
      shard_buf_free(&out);
    }
  }
  shard_module_free(m);
}

#endif
