/* libFuzzer target: the reference interpreter (src/core/interp) on small
 * verified modules, as `shard interpret` and `lower --verify` run it: every
 * function with a body whose arguments are static tensors is called on
 * deterministic small-integer inputs, each at most FUZZ_MAX_STEPS ops;
 * modules with a tensor of more than FUZZ_MAX_ELEMENTS elements or a mesh
 * of more than FUZZ_MAX_DEVICES_RUN devices are not run. Oracle: a call
 * that fails reports an error; two calls with the same inputs give the
 * same bits (the interpreter is deterministic, threads included). Input:
 * one .mlir module. */
#include "fuzz_mutator.h"
#include "fuzz_pipeline.h"
#include "interp/interp.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static bool same_tensor(const shard_tensor *a, const shard_tensor *b) {
  if (a->num != b->num || a->kind != b->kind) return false;
  int64_t n = a->kind == SHARD_ELEM_COMPLEX ? 2 * a->num : a->num;
  if (a->floats) return memcmp(a->floats, b->floats, sizeof(double) * (size_t)n) == 0;
  return memcmp(a->ints, b->ints, sizeof(int64_t) * (size_t)n) == 0;
}

static void call_func(shard_module *m, shard_op *fn, shard_diag_engine *de) {
  shard_attr *ft = shard_op_attr(fn, "function_type");
  shard_attr *name = shard_op_attr(fn, "sym_name");
  if (!ft || ft->kind != SHARD_ATTR_TYPE || ft->u.type->kind != SHARD_TYPE_FUNCTION || !name ||
      name->kind != SHARD_ATTR_STRING)
    return;
  shard_type *t = ft->u.type;
  shard_arena *a = shard_arena_new();
  shard_tensor **args = SHARD_NEW_ARRAY(a, shard_tensor *, t->num_inputs + 1);
  uint32_t seed = 1;
  for (uint32_t i = 0; i < t->num_inputs; i++) {
    if (t->inputs[i]->kind != SHARD_TYPE_TENSOR || !(args[i] = shard_tensor_new(a, t->inputs[i]))) goto out;
    shard_tensor *x = args[i];
    int64_t n = x->kind == SHARD_ELEM_COMPLEX ? 2 * x->num : x->num;
    for (int64_t e = 0; e < n; e++) {
      seed = seed * 1103515245u + 12345u;
      int64_t v = (int64_t)((seed >> 16) % 9) - 4;
      if (x->floats) x->floats[e] = (double)v;
      else if (x->kind == SHARD_ELEM_BOOL) x->ints[e] = v & 1;
      else x->ints[e] = shard_elem_wrap_int(x->kind == SHARD_ELEM_UINT ? v + 4 : v, x->kind, x->bits);
    }
  }
  shard_interp_options opts = {.max_steps = FUZZ_MAX_STEPS, .track_rounding = true};
  shard_tensor **r1 = NULL, **r2 = NULL;
  uint32_t n1 = 0, n2 = 0;
  unsigned before = de->errors;
  bool ok1 = shard_interp_call(m, name->u.str.data, args, t->num_inputs, &opts, a, &r1, &n1, de);
  if (!ok1 && de->errors == before) fuzz_fail("the interpreter failed without an error");
  if (!ok1) goto out;
  bool ok2 = shard_interp_call(m, name->u.str.data, args, t->num_inputs, &opts, a, &r2, &n2, de);
  if (!ok2 || n1 != n2) fuzz_fail("a second call with the same inputs failed");
  for (uint32_t r = 0; r < n1; r++)
    if (!same_tensor(r1[r], r2[r])) fuzz_fail("two calls with the same inputs gave different results");
out:
  shard_arena_free(a);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *text = fuzz_text(data, size);
  shard_source src = {"<fuzz>", text, size, 0};
  shard_diag_engine de;
  shard_diag_init(&de, fuzz_diag, NULL);
  shard_module *m = fuzz_read_verified(&src, &de);
  if (m && fuzz_small_enough(m)) {
    shard_block *top = m->top->regions[0].first;
    for (shard_op *op = top ? top->first : NULL; op; op = op->next)
      if (strcmp(op->name, "func.func") == 0 && op->num_regions && op->regions[0].first) call_func(m, op, &de);
  }
  if (m) shard_module_free(m);
  free(text);
  return 0;
}
