/* Unit tests for the static memory model (src/core/cost/memory.c): live
 * ranges in program order, values used inside a loop, device classes,
 * local types, callees, unsized values and byte counts. */
#include <criterion/criterion.h>
#include <string.h>

#include "cost/memory.h"
#include "ir/parse.h"

static shard_source src;
static shard_diag_engine de;
static shard_module *mod;
static shard_arena *arena;
static shard_memory_report rep;

static void setup(void) {
  arena = shard_arena_new();
  shard_diag_init(&de, NULL, NULL);
  mod = NULL;
}
static void teardown(void) {
  if (mod) shard_module_free(mod);
  shard_arena_free(arena);
}

TestSuite(memory, .init = setup, .fini = teardown);

static void analyze(const char *text, bool local) {
  src = (shard_source){"t.mlir", text, strlen(text), 0};
  mod = shard_parse_module(&src, NULL, &de);
  cr_assert(mod && !de.errors, "parse failed");
  shard_memory_options o = {.types_are_local = local};
  cr_assert(shard_memory_analyze(&rep, arena, mod, &o, &de));
}

static const shard_memory_buffer *buffer(const shard_memory_function *f, const char *name) {
  for (uint32_t i = 0; i < f->num_buffers; i++)
    if (strcmp(f->buffers[i].name, name) == 0) return &f->buffers[i];
  cr_assert_fail("no buffer %s", name);
  return NULL;
}

static bool live_at_peak(const shard_memory_function *f, const shard_memory_class *c, const char *name) {
  for (uint32_t i = 0; i < c->num_live; i++)
    if (strcmp(f->buffers[c->live[i]].name, name) == 0) return true;
  return false;
}

Test(memory, straight_line_ranges_and_first_peak) {
  analyze("func.func @f(%a: tensor<1024xf32>) -> tensor<1024xf32> {\n"
          "  %b = stablehlo.negate %a : tensor<1024xf32>\n"
          "  %c = stablehlo.negate %b : tensor<1024xf32>\n"
          "  %d = stablehlo.add %c, %c : tensor<1024xf32>\n"
          "  return %d : tensor<1024xf32>\n"
          "}\n",
          false);
  cr_assert_eq(rep.num_functions, 1);
  const shard_memory_function *f = &rep.functions[0];
  /* points: entry, %b, %c, %d, return */
  cr_assert_eq(f->num_points, 5);
  const shard_memory_buffer *a = buffer(f, "%a"), *b = buffer(f, "%b"), *c = buffer(f, "%c"), *d = buffer(f, "%d");
  cr_assert(a->argument && a->def == 0 && a->end == 4);
  cr_assert(b->def == 1 && b->end == 2);
  cr_assert(c->def == 2 && c->end == 3);
  cr_assert(d->def == 3 && d->end == 4 && d->result);
  cr_assert_eq(f->num_classes, 1);
  const shard_memory_class *k = &f->classes[0];
  cr_assert_eq(k->argument_bytes, 4096);
  cr_assert_eq(k->result_bytes, 4096);
  cr_assert_eq(k->peak_bytes, 3 * 4096);
  cr_assert_eq(k->peak_point, 2, "the first of two equal maxima");
  cr_assert(live_at_peak(f, k, "%a") && live_at_peak(f, k, "%b") && live_at_peak(f, k, "%c"));
  cr_assert_not(live_at_peak(f, k, "%d"));
  int64_t curve[] = {4096, 8192, 12288, 12288, 8192};
  for (int p = 0; p < 5; p++) cr_assert_eq(k->curve[p], curve[p], "live bytes at point %d", p);
  cr_assert_eq(rep.peak_bytes, 3 * 4096);
}

Test(memory, value_used_in_a_loop_lives_through_it) {
  analyze("func.func @f(%x: tensor<256xf32>) -> tensor<256xf32> {\n"
          "  %w = stablehlo.negate %x : tensor<256xf32>\n"
          "  %r = stablehlo.while(%s = %x) : tensor<256xf32>\n"
          "  cond {\n"
          "    %p = stablehlo.constant dense<true> : tensor<i1>\n"
          "    stablehlo.return %p : tensor<i1>\n"
          "  } do {\n"
          "    %t = stablehlo.add %s, %w : tensor<256xf32>\n"
          "    %u = stablehlo.negate %t : tensor<256xf32>\n"
          "    %v = stablehlo.negate %u : tensor<256xf32>\n"
          "    stablehlo.return %v : tensor<256xf32>\n"
          "  }\n"
          "  return %r : tensor<256xf32>\n"
          "}\n",
          false);
  const shard_memory_function *f = &rep.functions[0];
  /* entry, %w, while, %p, return, %t, %u, %v, return, end of while, return */
  cr_assert_eq(f->num_points, 11);
  const shard_memory_buffer *w = buffer(f, "%w"), *s = buffer(f, "%s");
  cr_assert_eq(w->def, 1);
  cr_assert_eq(w->end, 8, "used by the loop's first op, %%w lives to the loop's last point");
  /* the state is shared with the result (returned), not with %x (an
   * argument the caller keeps) */
  cr_assert_eq(s->def, 2);
  cr_assert_eq(s->end, 10);
  cr_assert(s->result);
  /* at %u: %x, %w, the state, %t, %u (and at %v the same amount) */
  cr_assert_eq(f->classes[0].peak_bytes, 5 * 1024);
  cr_assert_eq(f->classes[0].peak_point, 6);
  cr_assert(live_at_peak(f, &f->classes[0], "%w"));
}

Test(memory, shardings_devices_and_local_types) {
  const char *text =
      "sdy.mesh @mesh = <[\"x\"=4]>\n"
      "sdy.mesh @one = <[], device_ids=[3]>\n"
      "func.func @f(%a: tensor<10x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{\"x\"}, {}]>}) -> tensor<10x8xf32> {\n"
      "  %m = stablehlo.negate %a {sdy.sharding = #sdy.sharding_per_value<[<@one, [{}, {}]>]>} : tensor<10x8xf32>\n"
      "  %n = stablehlo.negate %m {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{\"x\"}, {}]>]>} : "
      "tensor<10x8xf32>\n"
      "  return %n : tensor<10x8xf32>\n"
      "}\n";
  analyze(text, false);
  const shard_memory_function *f = &rep.functions[0];
  cr_assert_eq(rep.num_devices, 4);
  const shard_memory_buffer *a = buffer(f, "%a"), *m = buffer(f, "%m");
  cr_assert_str_eq(a->shape, "3x8xf32", "ceil(10 / 4) rows");
  cr_assert_eq(a->bytes, 96);
  cr_assert_eq(a->padding, 96 - 80);
  cr_assert_eq(m->bytes, 320);
  cr_assert_eq(f->num_classes, 2, "device 3 holds %%m, the others do not");
  const shard_memory_class *worst = &f->classes[f->worst];
  cr_assert_eq(worst->num_devices, 1);
  cr_assert_eq(worst->devices[0], 3);
  cr_assert_eq(worst->peak_bytes, 96 + 320 + 96);
  const shard_memory_class *other = &f->classes[1 - f->worst];
  cr_assert_eq(other->num_devices, 3);
  cr_assert_eq(other->peak_bytes, 96 + 96);
  shard_module_free(mod);
  mod = NULL;
  /* the same module read as a per-device program: no division */
  analyze(text, true);
  cr_assert_eq(buffer(&rep.functions[0], "%a")->bytes, 320);
}

Test(memory, callee_temporaries_count_at_the_call) {
  analyze("func.func @g(%a: tensor<64xf32>) -> tensor<64xf32> {\n"
          "  %b = stablehlo.negate %a : tensor<64xf32>\n"
          "  %c = stablehlo.negate %b : tensor<64xf32>\n"
          "  return %c : tensor<64xf32>\n"
          "}\n"
          "func.func @f(%x: tensor<64xf32>) -> tensor<64xf32> {\n"
          "  %y = func.call @g(%x) : (tensor<64xf32>) -> tensor<64xf32>\n"
          "  return %y : tensor<64xf32>\n"
          "}\n",
          false);
  cr_assert_eq(rep.num_functions, 2);
  const shard_memory_function *g = &rep.functions[0], *f = &rep.functions[1];
  /* @g: at %c, %a + %b + %c = 768, of which 256 above its argument and result */
  cr_assert_eq(g->classes[0].peak_bytes, 768);
  /* @f at the call: %x, %y and @g's 256 */
  cr_assert_eq(f->classes[0].peak_bytes, 768);
  cr_assert(live_at_peak(f, &f->classes[0], "temporaries of @g"));
}

Test(memory, dynamic_shapes_are_not_counted) {
  analyze("func.func @f(%a: tensor<?xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {\n"
          "  return %b : tensor<4xf32>\n"
          "}\n",
          false);
  cr_assert_eq(rep.functions[0].num_unsized, 1);
  cr_assert_eq(rep.functions[0].classes[0].argument_bytes, 16);
}

Test(memory, parse_bytes) {
  int64_t v = 0;
  cr_assert(shard_memory_parse_bytes("80GiB", &v) && v == INT64_C(85899345920));
  cr_assert(shard_memory_parse_bytes("1.5 GB", &v) && v == INT64_C(1500000000));
  cr_assert(shard_memory_parse_bytes("4276224", &v) && v == 4276224);
  cr_assert(shard_memory_parse_bytes("16KiB", &v) && v == 16384);
  cr_assert_not(shard_memory_parse_bytes("0", &v));
  cr_assert_not(shard_memory_parse_bytes("12XB", &v));
  cr_assert_not(shard_memory_parse_bytes("-5", &v));
  cr_assert_not(shard_memory_parse_bytes("1.", &v));
  cr_assert_not(shard_memory_parse_bytes("99999999999TiB", &v));
}

Test(memory, devices_print_as_ranges) {
  int64_t d[] = {0, 1, 2, 5, 7, 8};
  shard_buf b;
  shard_buf_init(&b);
  shard_memory_print_devices(&b, d, 6);
  cr_assert_str_eq(shard_buf_str(&b), "0-2,5,7-8");
  shard_buf_free(&b);
}
