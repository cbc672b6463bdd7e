/* libFuzzer target: the export side of the pipeline on verified modules.
 * Two runs over the same input:
 *   1. `shard lower`'s pipeline (shard_lower_pipeline_run: propagation,
 *      then the exports with explicit reshards and collectives), then the
 *      per-device conversion of `lower --local` (shard_lower_to_local:
 *      permutation factors, reshard-to-collectives, pad-for-divisibility,
 *      single-device shardings, global-to-local);
 *   2. the shardings as written through the registry's passes one by one:
 *      -sdy-sharding-constraint-to-reshard, -sdy-close-shardings,
 *      -sdy-insert-explicit-reshards, -sdy-reshard-to-collectives,
 *      -canonicalize, -sdy-pad-for-divisibility,
 *      -sdy-convert-global-to-local.
 * Every stage that succeeds must print as a fixed point (fuzz_pipeline.h);
 * every failure must come with an error. */
#include "fuzz_mutator.h"
#include "fuzz_pipeline.h"
#include "pipeline/lower_pipeline.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void lowered(shard_source *src) {
  shard_diag_engine de;
  shard_diag_init(&de, fuzz_diag, NULL);
  shard_module *m = fuzz_read_verified(src, &de);
  if (!m) return;
  if (!shard_lower_pipeline_run(m, true, true, &de)) {
    if (de.errors == 0) fuzz_fail("shard_lower_pipeline_run failed without an error");
  } else if (de.errors == 0) {
    fuzz_fixed_point(m, "after the lower pipeline");
    if (!shard_lower_to_local(m, &de)) {
      if (de.errors == 0) fuzz_fail("shard_lower_to_local failed without an error");
    } else if (de.errors == 0) {
      fuzz_fixed_point(m, "after the per-device conversion");
    }
  }
  shard_module_free(m);
}

static void as_written(shard_source *src) {
  shard_diag_engine de;
  shard_diag_init(&de, fuzz_diag, NULL);
  shard_module *m = fuzz_read_verified(src, &de);
  if (!m) return;
  static const shard_pipeline_step steps[][1] = {
      {{"sdy-sharding-constraint-to-reshard", NULL}},
      {{"sdy-close-shardings", NULL}},
      {{"sdy-insert-explicit-reshards", NULL}},
      {{"sdy-reshard-to-collectives", NULL}},
      {{"canonicalize", "enable-patterns=sdy-collective"}},
      {{"sdy-pad-for-divisibility", NULL}},
      {{"sdy-convert-global-to-local", NULL}},
  };
  static const char *const stage[] = {
      "after -sdy-sharding-constraint-to-reshard", "after -sdy-close-shardings", "after -sdy-insert-explicit-reshards",
      "after -sdy-reshard-to-collectives",         "after -canonicalize",        "after -sdy-pad-for-divisibility",
      "after -sdy-convert-global-to-local"};
  for (size_t i = 0; i < sizeof steps / sizeof *steps; i++)
    if (!fuzz_run_steps(m, steps[i], 1, stage[i], &de)) break;
  shard_module_free(m);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *text = fuzz_text(data, size);
  shard_source src = {"<fuzz>", text, size, 0};
  lowered(&src);
  as_written(&src);
  free(text);
  return 0;
}
