/* libFuzzer target: `shard convert` round trips of the shardings a verified
 * module holds. Every function argument and result sharding, with its mesh
 * and tensor type, is handed to fuzz_convert.h as Shardy notation: read,
 * converted to every notation (HloSharding V2 and V3, PartitionSpec,
 * DTensor, TF layout) and back, and the device maps compared. The mutator
 * (fuzz_mutator.h) edits the module, so the shardings are those of real
 * programs with their axes, sizes and sub-axes changed. Input: one .mlir
 * module. */
#include "fuzz_convert.h"
#include "fuzz_mutator.h"
#include "fuzz_pipeline.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void convert_one(shard_module *m, const shard_tensor_sharding *s, const shard_type *t) {
  const shard_mesh *mesh = s ? shard_module_sharding_mesh(m, s) : NULL;
  if (!mesh || !t || t->kind != SHARD_TYPE_TENSOR) return;
  shard_buf in;
  shard_buf_init(&in);
  shard_mesh_print(&in, mesh);
  shard_buf_printf(&in, "\n%s\n", t->text);
  shard_sharding_print(&in, s);
  fuzz_convert((const uint8_t *)shard_buf_str(&in), in.len, SHARD_NOTATION_SHARDY, NULL);
  shard_buf_free(&in);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *text = fuzz_text(data, size);
  shard_source src = {"<fuzz>", text, size, 0};
  shard_diag_engine de;
  shard_diag_init(&de, fuzz_diag, NULL);
  shard_module *m = fuzz_read_verified(&src, &de);
  shard_block *top = m ? m->top->regions[0].first : NULL;
  for (shard_op *fn = top ? top->first : NULL; fn; fn = fn->next) {
    shard_attr *ft = strcmp(fn->name, "func.func") == 0 ? shard_op_attr(fn, "function_type") : NULL;
    if (!ft || ft->kind != SHARD_ATTR_TYPE || ft->u.type->kind != SHARD_TYPE_FUNCTION) continue;
    const shard_type *t = ft->u.type;
    for (uint32_t i = 0; i < t->num_inputs; i++) convert_one(m, shard_func_arg_sharding(fn, i), t->inputs[i]);
    for (uint32_t i = 0; i < t->num_results; i++) convert_one(m, shard_func_result_sharding(fn, i), t->results[i]);
  }
  if (m) shard_module_free(m);
  free(text);
  return 0;
}
