/* The passes `shard opt` can run, by their sdy_opt flag names. */
#ifndef SHARD_CLI_PASSES_H
#define SHARD_CLI_PASSES_H

#include <stdbool.h>
#include <stddef.h>

#include "support/diag.h"
#include "ir/ir.h"

/* Runs a pass over a whole module. `options` is the text after '=' in
 * `-sdy-foo='a=1 b=true'` (NULL when none was given); a pass that does not
 * understand it reports an error. Returns false on failure (diagnostics
 * went to de). */
typedef bool (*cli_pass_fn)(shard_module *m, const char *options, shard_diag_engine *de);

typedef struct cli_pass {
  const char *name; /* without the leading dash: "sdy-basic-propagate" */
  const char *summary;
  cli_pass_fn run;
} cli_pass;

/* NULL when no pass has that name. */
const cli_pass *cli_pass_lookup(const char *name, size_t len);

extern const cli_pass cli_passes[];
extern const unsigned cli_num_passes;

#endif
