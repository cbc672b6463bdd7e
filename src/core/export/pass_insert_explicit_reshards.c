/* -sdy-insert-explicit-reshards: the pass around the algorithm in
 * explicit_reshards.c (its options are checked by the registry). */
#include "export/explicit_reshards.h"
#include "pass/pass.h"

bool shard_pass_insert_explicit_reshards(shard_module *m, const char *options, const shard_pass_context *cx) {
  shard_diag_engine *de = cx->de;
  bool full = false;
  shard_pass_option_bool(options, "enable-full-version", &full);
  return shard_explicit_reshards_insert(m, full, true, de);
}
