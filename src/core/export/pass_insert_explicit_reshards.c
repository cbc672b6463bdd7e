/* -sdy-insert-explicit-reshards: option parsing around the algorithm in
 * explicit_reshards.c. */
#include <stdlib.h>

#include "export/explicit_reshards.h"
#include "pass/pass.h"

bool shard_pass_insert_explicit_reshards(shard_module *m, const char *options, shard_diag_engine *de) {
  static const char *const known[] = {"enable-full-version", NULL};
  if (!shard_pass_options_check("sdy-insert-explicit-reshards", options, known, de)) return false;
  bool full = false;
  char *raw = options ? shard_pass_option_string(options, "enable-full-version") : NULL;
  bool bad = raw && !shard_pass_option_bool(options, "enable-full-version", &full);
  free(raw);
  if (bad) {
    shard_error(de, shard_no_span,
                "invalid value for option 'enable-full-version' of pass 'sdy-insert-explicit-reshards'");
    return false;
  }
  return shard_explicit_reshards_insert(m, full, de);
}
