/* libFuzzer target: `shard lower --verify` on small verified modules: the
 * lower pipeline, the per-device conversion, then both programs run in the
 * reference interpreter (src/cli/lower_verify.c) and each device's results
 * are compared with its pieces of the global results.
 *
 * Budgets: modules with a tensor of more than FUZZ_MAX_ELEMENTS elements or
 * a mesh of more than FUZZ_MAX_DEVICES_RUN devices are only lowered, not
 * run; each device may execute FUZZ_MAX_STEPS ops. Oracle (issue 13): on a
 * module the verifier accepts, --verify never reports that a result
 * "differs" or that "no device holds" an element; if it does, the
 * partitioner is wrong. Interpreter errors (budgets, unsupported ops) are
 * not findings. Input: one .mlir module. */
#include "fuzz_mutator.h"
#include "fuzz_pipeline.h"
#include "lower_verify.h"
#include "pipeline/lower_pipeline.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *text = fuzz_text(data, size);
  shard_source src = {"<fuzz>", text, size, 0};
  shard_diag_engine de;
  shard_diag_init(&de, fuzz_diag, NULL);
  shard_module *m = fuzz_read_verified(&src, &de);
  if (!m || !fuzz_small_enough(m)) goto out;
  if (!shard_lower_pipeline_run(m, true, true, &de) || de.errors) {
    if (de.errors == 0) fuzz_fail("shard_lower_pipeline_run failed without an error");
    goto out;
  }
  /* as cmd_lower.c does: the per-device program is the lowered module read back */
  char *lowered_text = fuzz_print(m, false);
  shard_source lsrc = {"<lowered module>", lowered_text, strlen(lowered_text), 0};
  shard_module *local = fuzz_read_verified(&lsrc, &de);
  if (!local) fuzz_fail("the lowered module does not read back");
  if (shard_lower_to_local(local, &de) && de.errors == 0) {
    shard_module *ref = fuzz_read_verified(&src, &de);
    if (!ref) fuzz_fail("the input does not read back");
    fuzz_sink sink = {"differs on device", "no device holds", NULL, {0}};
    shard_diag_engine vde;
    shard_diag_init(&vde, fuzz_sink_diag, &sink);
    shard_buf notes;
    shard_buf_init(&notes);
    unsigned verified = 0;
    (void)cli_lower_verify(ref, m, local, FUZZ_MAX_STEPS, &vde, &notes, &verified);
    shard_buf_free(&notes);
    if (sink.found) {
      fprintf(stderr, "%s\n", sink.found);
      fuzz_fail("lower --verify reports a difference on a module the verifier accepts");
    }
    shard_module_free(ref);
  } else if (de.errors == 0) {
    fuzz_fail("shard_lower_to_local failed without an error");
  }
  shard_module_free(local);
  free(lowered_text);
out:
  if (m) shard_module_free(m);
  free(text);
  return 0;
}
