/* libFuzzer target: `shard propagate --explain` and `--mode explicit` on
 * verified modules: the explain observer records every step of the
 * propagation pipeline, then the conflicts, barriers and explicit-mode
 * choices are read off the result and rendered as text and JSON. Input:
 * one .mlir module. */
#include "fuzz_mutator.h"
#include "fuzz_pipeline.h"
#include "propagate/explain.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *text = fuzz_text(data, size);
  shard_source src = {"<fuzz>", text, size, 0};
  shard_diag_engine de;
  shard_diag_init(&de, fuzz_diag, NULL);
  shard_module *m = fuzz_read_verified(&src, &de);
  if (m) {
    shard_explain *x = shard_explain_new(m, NULL);
    shard_propagation_observer obs = shard_explain_observer(x);
    shard_pass_context cx = {.de = &de, .observer = &obs};
    static const shard_pipeline_step steps[] = {{"sdy-propagation-pipeline", NULL}};
    bool ok = shard_pipeline_run(m, steps, 1, true, &cx);
    if (!ok && de.errors == 0) fuzz_fail("the propagation pipeline failed without an error");
    if (ok && de.errors == 0) {
      shard_explain_finish(x);
      shard_buf out;
      shard_buf_init(&out);
      shard_explain_render_text(x, &out);
      shard_buf_clear(&out);
      shard_explain_render_json(x, &out);
      if (out.len == 0 || shard_buf_str(&out)[0] != '{') fuzz_fail("--explain=json did not give a JSON object");
      shard_buf_free(&out);
      (void)shard_explain_check_explicit(x, &de);
      (void)shard_explain_num_changed(x);
      (void)shard_explain_num_conflicts(x);
      (void)shard_explain_num_barriers(x);
    }
    shard_explain_free(x);
    shard_module_free(m);
  }
  free(text);
  return 0;
}
