/* The pass registry (pass_registry.c): every pass of `shard opt` with its
 * summary and option schema (pass/pass.h: shard_pass_def). */
#ifndef SHARD_PASS_REGISTRY_H
#define SHARD_PASS_REGISTRY_H

#include <stddef.h>

#include "pass/pass.h"

/* All passes, sorted by name; *n gets their number. */
const shard_pass_def *shard_pass_registry(unsigned *n);

/* The pass named `name` (len bytes, without the leading dash), or NULL. */
const shard_pass_def *shard_pass_find(const char *name, size_t len);

#endif
