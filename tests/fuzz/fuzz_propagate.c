/* libFuzzer target: Shardy's propagation pipeline on verified modules
 * (`shard propagate`, `shard opt -sdy-propagation-pipeline`): parse ->
 * verify -> print fixed point -> -sdy-propagation-pipeline (verified after
 * each pass) -> print fixed point of the result. Input: one .mlir module;
 * fuzz_mutator.h edits its axes, sizes, dims and ops. */
#include "fuzz_mutator.h"
#include "fuzz_pipeline.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *text = fuzz_text(data, size);
  shard_source src = {"<fuzz>", text, size, 0};
  shard_diag_engine de;
  shard_diag_init(&de, fuzz_diag, NULL);
  shard_module *m = fuzz_read_verified(&src, &de);
  if (m) {
    fuzz_fixed_point(m, "as read");
    static const shard_pipeline_step steps[] = {{"sdy-propagation-pipeline", NULL}};
    fuzz_run_steps(m, steps, 1, "after -sdy-propagation-pipeline", &de);
    shard_module_free(m);
  }
  free(text);
  return 0;
}
