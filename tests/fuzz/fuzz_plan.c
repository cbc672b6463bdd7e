/* libFuzzer target: `shard plan` on generated shardings. The input bytes
 * choose a mesh (1-4 axes of sizes 1-16), a shape (rank 0-3) and two
 * shardings of it (axes and sub-axes per dim, open or closed dims, shared
 * unreduced axes); they are written as a module and read by the parser and
 * the verifier, which decide whether they are valid. Valid pairs are
 * planned as `shard plan` does (export/reshard.h: Shardy's
 * reshard-to-collectives algorithm) and costed into a communication plan
 * (cost/comm_plan.h), printed as text and JSON.
 *
 * Oracle: when the planner returns steps and says it reached the target,
 * each step keeps the rank and the last step's sharding has the target's
 * dim axes (Shardy asserts this). Input: any bytes. */
#include "cost/comm_plan.h"
#include "export/reshard.h"
#include "fuzz_pipeline.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

typedef struct fuzz_bytes {
  const uint8_t *p;
  size_t n, at;
} fuzz_bytes;

static unsigned next(fuzz_bytes *b) { return b->at < b->n ? b->p[b->at++] : 0; }

static void sharding_text(shard_buf *t, fuzz_bytes *b, uint32_t naxes, const int64_t *sizes, uint32_t rank,
                          unsigned unreduced_mask) {
  static const char *const names[] = {"a", "b", "c", "d"};
  unsigned used = unreduced_mask;
  shard_buf_puts(t, "#sdy.sharding<@mesh, [");
  for (uint32_t d = 0; d < rank; d++) {
    shard_buf_puts(t, d ? ", {" : "{");
    unsigned k = next(b) % 3, written = 0;
    for (unsigned i = 0; i < k; i++) {
      unsigned c = next(b);
      uint32_t j = c % naxes;
      if (used & (1u << j)) continue;
      used |= 1u << j;
      shard_buf_printf(t, "%s\"%s\"", written++ ? ", " : "", names[j]);
      /* a sub-axis: (pre)size with pre * size dividing the axis */
      if ((c >> 2) % 4 == 0 && sizes[j] % 4 == 0) shard_buf_printf(t, ":(%d)2", (c >> 4) % 2 ? 2 : 1);
    }
    shard_buf_puts(t, next(b) % 4 == 0 ? (written ? ", ?}" : "?}") : "}");
  }
  shard_buf_puts(t, "]");
  if (unreduced_mask) {
    shard_buf_puts(t, ", unreduced={");
    unsigned w = 0;
    for (uint32_t j = 0; j < naxes; j++)
      if (unreduced_mask & (1u << j)) shard_buf_printf(t, "%s\"%s\"", w++ ? ", " : "", names[j]);
    shard_buf_puts(t, "}");
  }
  shard_buf_puts(t, ">");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static const int64_t axis_sizes[] = {1, 2, 3, 4, 8, 6, 16, 2};
  static const int64_t dim_sizes[] = {1, 2, 3, 4, 8, 16, 6, 12};
  fuzz_bytes b = {data, size, 0};
  uint32_t naxes = 1 + next(&b) % 4;
  int64_t sizes[4];
  shard_buf text;
  shard_buf_init(&text);
  shard_buf_puts(&text, "sdy.mesh @mesh = <[");
  for (uint32_t j = 0; j < naxes; j++) {
    sizes[j] = axis_sizes[next(&b) % 8];
    shard_buf_printf(&text, "%s\"%c\"=%lld", j ? ", " : "", "abcd"[j], (long long)sizes[j]);
  }
  shard_buf_puts(&text, "]>\n");
  uint32_t rank = next(&b) % 4;
  int64_t shape[3];
  shard_buf type;
  shard_buf_init(&type);
  shard_buf_puts(&type, "tensor<");
  for (uint32_t d = 0; d < rank; d++) {
    shape[d] = dim_sizes[next(&b) % 8];
    shard_buf_printf(&type, "%lldx", (long long)shape[d]);
  }
  shard_buf_puts(&type, "f32>");
  unsigned unreduced = next(&b) % 4 == 0 ? next(&b) % (1u << naxes) : 0;
  shard_buf_printf(&text, "func.func @main(%%arg0: %s {sdy.sharding = ", shard_buf_str(&type));
  sharding_text(&text, &b, naxes, sizes, rank, unreduced);
  shard_buf_printf(&text, "}, %%arg1: %s {sdy.sharding = ", shard_buf_str(&type));
  sharding_text(&text, &b, naxes, sizes, rank, unreduced);
  shard_buf_puts(&text, "}) {\n  func.return\n}\n");

  shard_source src = {"<generated>", shard_buf_str(&text), text.len, 0};
  shard_diag_engine de;
  shard_diag_init(&de, fuzz_diag, NULL);
  shard_module *m = fuzz_read_verified(&src, &de);
  shard_op *fn = m ? shard_module_lookup_symbol(m, "main") : NULL;
  if (fn) {
    const shard_tensor_sharding *in = shard_func_arg_sharding(fn, 0);
    const shard_tensor_sharding *out = shard_func_arg_sharding(fn, 1);
    const shard_mesh *mesh = shard_module_sharding_mesh(m, in);
    shard_arena *a = shard_arena_new();
    shard_reshard_step *steps = NULL;
    uint32_t n = 0;
    shard_reshard_outcome o = shard_reshard_plan(a, in, mesh, out, mesh, shape, &steps, &n);
    if (o == SHARD_RESHARD_STEPS) {
      for (uint32_t i = 0; i < n; i++)
        if (!steps[i].sharding || steps[i].sharding->rank != rank) fuzz_fail("a reshard step changed the rank");
      /* The dims must match; the unreduced axes are not compared: a target
       * with no dim axes is gathered on the source's mesh with none
       * (getFullyClosedLike), and `shard plan` reduces extra ones itself. */
      const shard_tensor_sharding *last = n ? steps[n - 1].sharding : in;
      shard_tensor_sharding want = *out;
      want.unreduced = last->unreduced;
      want.num_unreduced = last->num_unreduced;
      if (!shard_reshard_equivalent(last, &want)) {
        shard_buf got;
        shard_buf_init(&got);
        shard_sharding_print(&got, last);
        fprintf(stderr, "%s\nlast step: %s\n", shard_buf_str(&text), shard_buf_str(&got));
        fuzz_fail("the reshard plan does not end at the target sharding");
      }
      shard_comm_plan plan;
      shard_comm_plan_init(&plan, a, NULL);
      shard_comm_plan_add_reshard(&plan, in, mesh, shape, rank, "f32", steps, n, shard_no_span, "reshard");
      shard_buf out_text;
      shard_buf_init(&out_text);
      shard_comm_plan_print_text(&out_text, &plan, 5);
      shard_buf_clear(&out_text);
      shard_comm_plan_print_json(&out_text, &plan, 5);
      shard_buf_free(&out_text);
      shard_comm_plan_free(&plan);
    }
    shard_arena_free(a);
  }
  if (m) shard_module_free(m);
  shard_buf_free(&type);
  shard_buf_free(&text);
  return 0;
}
