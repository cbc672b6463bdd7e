/* -verify-diagnostics: matching emitted diagnostics against the
 * `// expected-error {{...}}` designators written in the source, with
 * mlir-opt's rules and messages.
 *
 * Designator syntax (one per line, anywhere on it):
 *   expected-(error|warning|note|remark)(-re)? (@(+N|-N|above|below|unknown))? {{TEXT}}
 * TEXT runs to the last `}}` of the line and must be a substring of the
 * message (with -re, `{{regex}}` pieces inside it are POSIX EREs). @+N/@-N
 * are relative lines, @above/@below the nearest line that is not itself a
 * designator, @unknown a diagnostic without location. */
#ifndef SHARD_EXPECT_H
#define SHARD_EXPECT_H

#include <stdbool.h>

#include "support/diag.h"

typedef struct shard_expect shard_expect;

/* Scans `src` for designators. Mismatches found later are reported as errors
 * through `report` (which must outlive the matcher), positioned like mlir-opt
 * does: "unexpected error: MSG" at the diagnostic, "expected error \"TEXT\"
 * was not produced" at the designator. The caller frees the result with
 * shard_expect_free; `src` must outlive it. */
shard_expect *shard_expect_new(const shard_source *src, shard_diag_engine *report);
void shard_expect_free(shard_expect *e);

/* A shard_diag_fn: pass the matcher as ctx so every diagnostic of the chunk
 * is checked instead of printed. One designator may match several
 * identical diagnostics. */
void shard_expect_consume(void *expect, const shard_diag *d);

/* Reports the designators nothing matched. True when every designator was
 * matched and no diagnostic was unexpected. */
bool shard_expect_finish(shard_expect *e);

/* Number of designators found (for tests and statistics). */
unsigned shard_expect_count(const shard_expect *e);

#endif
