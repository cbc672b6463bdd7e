/* -split-input-file: cutting one buffer into independent chunks at lines
 * that consist of the marker `// -----`, the way mlir-opt does. */
#ifndef SHARD_SPLIT_H
#define SHARD_SPLIT_H

#include <stdint.h>

#include "support/diag.h"

#define SHARD_SPLIT_MARKER "// -----"

/* Splits `src` into chunks that view src->text (nothing is copied), each
 * with the same name and a line_base that makes reported lines file lines.
 * The marker lines belong to no chunk. A line that starts like the marker but
 * is not one (`// ---`, `// ------`) gets the warning "near miss with file
 * split marker" through `de` (which may be NULL) and does not split.
 * Returns the number of chunks, at least 1; the caller frees *out with free(). */
uint32_t shard_source_split(const shard_source *src, shard_source **out, shard_diag_engine *de);

#endif
