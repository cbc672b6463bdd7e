/* The pass registry (pass_registry.c): every pass of `shard opt` with its
 * summary and option schema (pass/pass.h: shard_pass_def). */
#ifndef SHARD_PASS_REGISTRY_H
#define SHARD_PASS_REGISTRY_H

#include <stddef.h>

#include "pass/pass.h"
#include "support/diag.h"
#include "ir/ir.h"

/* All passes, sorted by name; *n gets their number. */
const shard_pass_def *shard_pass_registry(unsigned *n);

/* The pass named `name` (len bytes, without the leading dash), or NULL. */
const shard_pass_def *shard_pass_find(const char *name, size_t len);

/* One step of a pipeline: a pass by name and its options (NULL: none). */
typedef struct shard_pipeline_step {
  const char *pass;
  const char *options;
} shard_pipeline_step;

/* Runs the named pass over the module. A name the registry does not know is
 * a bug of the caller: reported as an error, false. */
bool shard_pass_run(const char *name, shard_module *m, const char *options, const shard_pass_context *cx);

/* Runs the steps in order, verifying the module after each when `verify`
 * (as mlir-opt does after every pass); stops at the first step that fails
 * or reports an error. */
bool shard_pipeline_run(shard_module *m, const shard_pipeline_step *steps, size_t n, bool verify,
                        const shard_pass_context *cx);

#endif
