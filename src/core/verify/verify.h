/* The verifier: every invariant of Shardy's dialect verifier, with the same
 * message texts, plus shard's own warnings (non-divisible dims, meshes with
 * different device counts, size-1 axes). */
#ifndef SHARD_VERIFY_H
#define SHARD_VERIFY_H

#include <stdbool.h>

#include "support/diag.h"
#include "ir/ir.h"

typedef struct shard_verify_options {
  bool extra_warnings; /* shard's warnings beyond Shardy (shard check, not shard opt) */
} shard_verify_options;

/* Returns true when no error was reported. */
bool shard_verify_module(const shard_module *m, const shard_verify_options *opts, shard_diag_engine *de);

#endif
