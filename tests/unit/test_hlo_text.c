/* The HLO text reader (xla/hlo_text.c): a small dump becomes the StableHLO
 * that XLA's HLO importer (xla/hlo/translate/hlo_to_mhlo) gives for it, with
 * StableHLO op names and tuples folded away; malformed text is a located
 * error, never a crash. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "ir/parse.h"
#include "ir/print.h"
#include "support/buf.h"
#include "xla/hlo_text.h"

typedef struct captured {
  unsigned n;
  char first[512];
  unsigned line, col;
} captured;

static void S_capture(void *ctx, const shard_diag *d) {
  captured *c = ctx;
  if (c->n++ == 0) {
    snprintf(c->first, sizeof c->first, "%s", d->message);
    if (d->span.src) shard_span_linecol(d->span, &c->line, &c->col);
  }
}

/* The module read from `hlo`, printed; NULL (with *cap filled) on error. */
static char *S_read(const char *hlo, captured *cap) {
  shard_source src = {"t.hlo", hlo, strlen(hlo), 0};
  shard_diag_engine de;
  memset(cap, 0, sizeof *cap);
  shard_diag_init(&de, S_capture, cap);
  shard_source gen;
  shard_parse_options popts = {.allow_unregistered = false, .max_depth = 0};
  shard_module *m = shard_hlo_text_read(&src, &popts, &gen, &de);
  char *out = NULL;
  if (m) {
    shard_buf b;
    shard_buf_init(&b);
    shard_print_options po = {0};
    shard_print_module(&b, m, &po);
    out = shard_buf_take(&b);
    shard_module_free(m);
  }
  free((char *)gen.text);
  free((char *)gen.name);
  return out;
}

static const char small[] =
    "HloModule jit_norm, entry_computation_layout={(f32[4,8]{1,0})->(f32[4,8]{1,0}, f32[4]{0})}, "
    "frontend_attributes={xla.sdy.meshes=\"{m = #sdy.mesh<[\\\"x\\\"=2]>}\"}\n"
    "\n"
    "%region_0.4 (Arg_0.5: f32[], Arg_1.6: f32[]) -> f32[] {\n"
    "  %Arg_0.5 = f32[] parameter(0)\n"
    "  %Arg_1.6 = f32[] parameter(1)\n"
    "  ROOT %maximum.7 = f32[] maximum(f32[] %Arg_0.5, f32[] %Arg_1.6)\n"
    "}\n"
    "\n"
    "ENTRY %main.12 (Arg_0.1: f32[4,8]) -> (f32[4,8], f32[4]) {\n"
    "  %Arg_0.1 = f32[4,8]{1,0} parameter(0), sharding={devices=[2,1]<=[2]}, "
    "frontend_attributes={xla.sdy.sharding=\"#sdy.sharding<@m, [{\\\"x\\\"}, {}]>\"}\n"
    "  %constant.3 = f32[] constant(-inf)\n"
    "  %reduce.8 = f32[4]{0} reduce(f32[4,8]{1,0} %Arg_0.1, f32[] %constant.3), dimensions={1}, to_apply=%region_0.4\n"
    "  %broadcast.9 = f32[4,8]{1,0} broadcast(f32[4]{0} %reduce.8), dimensions={0}\n"
    "  %subtract.10 = f32[4,8]{1,0} subtract(f32[4,8]{1,0} %Arg_0.1, f32[4,8]{1,0} %broadcast.9), "
    "metadata={op_name=\"jit(norm)/sub\" source_file=\"n.py\" source_line=4}\n"
    "  %constant.11 = s32[2] constant({1, -2})\n"
    "  ROOT %tuple.12 = (f32[4,8]{1,0}, f32[4]{0}) tuple(f32[4,8]{1,0} %subtract.10, f32[4]{0} %reduce.8), "
    "sharding={{devices=[2,1]<=[2]}, {replicated}}\n"
    "}\n";

/* Hand-checked against what XLA's importer writes for this dump (mhlo.* ops
 * there; the entry is @main, the reducer a region, the root tuple the
 * function's results with its tuple sharding split per result, the module
 * and argument frontend attributes kept, metadata dropped). */
static const char small_expected[] =
    "module @jit_norm attributes {mhlo.frontend_attributes = {xla.sdy.meshes = \"{m = "
    "#sdy.mesh<[\\22x\\22=2]>}\"}} {\n"
    "  func.func @main(%arg0: tensor<4x8xf32> {mhlo.frontend_attributes = {xla.sdy.sharding = \"#sdy.sharding<@m, "
    "[{\\22x\\22}, {}]>\"}, mhlo.sharding = \"{devices=[2,1]<=[2]}\"}) -> (tensor<4x8xf32> {mhlo.sharding = "
    "\"{devices=[2,1]<=[2]}\"}, tensor<4xf32> {mhlo.sharding = \"{replicated}\"}) {\n"
    "    %cst = stablehlo.constant dense<0xFF800000> : tensor<f32>\n"
    "    %0 = stablehlo.reduce(%arg0 init: %cst) applies stablehlo.maximum across dimensions = [1] : "
    "(tensor<4x8xf32>, tensor<f32>) -> tensor<4xf32>\n"
    "    %1 = stablehlo.broadcast_in_dim %0, dims = [0] : (tensor<4xf32>) -> tensor<4x8xf32>\n"
    "    %2 = stablehlo.subtract %arg0, %1 : tensor<4x8xf32>\n"
    "    %c = stablehlo.constant dense<[1, -2]> : tensor<2xi32>\n"
    "    return %2, %0 : tensor<4x8xf32>, tensor<4xf32>\n"
    "  }\n"
    "}\n";

Test(hlo_text, small_dump_is_what_xlas_importer_gives) {
  captured cap;
  char *out = S_read(small, &cap);
  cr_assert_not_null(out, "error: %s", cap.first);
  cr_expect_str_eq(out, small_expected);
  free(out);
}

Test(hlo_text, detects_the_header) {
  cr_expect(shard_hlo_text_detect("\n  HloModule m\n", 15));
  cr_expect_not(shard_hlo_text_detect("module {}", 9));
  cr_expect_not(shard_hlo_text_detect("HloMod", 6));
}

/* Each malformed dump gives one located error with the message given. */
static void S_expect_error(const char *hlo, unsigned line, unsigned col, const char *msg) {
  captured cap;
  char *out = S_read(hlo, &cap);
  cr_expect_null(out, "accepted: %s", hlo);
  free(out);
  cr_expect_geq(cap.n, 1u, "no diagnostic for: %s", hlo);
  cr_expect(strstr(cap.first, msg) != NULL, "'%s' not in '%s'", msg, cap.first);
  cr_expect_eq(cap.line, line, "line of '%s'", cap.first);
  cr_expect_eq(cap.col, col, "column of '%s'", cap.first);
}

Test(hlo_text, malformed_dumps_are_located_errors) {
  S_expect_error("HloModule m\nENTRY %e (x: f32[2]) -> f32[2] {\n  ROOT %x = f32[2] parameter(0)\n  %y = f32[2] "
                 "frobnicate(%x)\n}\n",
                 4, 15, "HLO instruction 'frobnicate' is not supported");
  S_expect_error("HloModule m\nENTRY %e {\n  ROOT %y = f32[2] negate(%x)\n}\n", 3, 27, "use of undefined value 'x'");
  S_expect_error("HloModule m\nENTRY %e {\n  ROOT %x = f32[2 parameter(0)\n}\n", 3, 19, "expected ']'");
  S_expect_error("HloModule m\nENTRY %e {\n  ROOT %x = f32[2] parameter(0)\n", 2, 1, "is not closed");
  S_expect_error("HloModule m\nENTRY %e {\n  ROOT %c = f32[1000] constant({...})\n}\n", 3, 32, "left out of the dump");
  S_expect_error(
      "HloModule m\nENTRY %e {\n  %p = f32[2] parameter(0)\n  ROOT %r = f32[2] reduce(%p), to_apply=%nope\n}\n", 4, 20,
      "'reduce' takes inputs and as many initial values");
  S_expect_error("HloModule m\nENTRY %e {\n  %p = f32[2] parameter(0)\n  ROOT %b = f32[2,2] broadcast(%p)\n}\n", 4, 22,
                 "'broadcast' needs 'dimensions='");
  S_expect_error("HloModule m\nENTRY %e {\n  %p = (f32[2], s32[]) parameter(0)\n  ROOT %g = f32[2] "
                 "get-tuple-element(%p), index=5\n}\n",
                 4, 20, "get-tuple-element index 5 out of range");
  S_expect_error("HloModule m\n", 1, 1, "no computations");
}

/* Every prefix of a valid dump is read or refused with a diagnostic: the
 * reader never reads past the text or crashes on a dump cut short. */
Test(hlo_text, every_prefix_is_read_or_refused) {
  size_t n = strlen(small);
  for (size_t k = 0; k < n; k++) {
    char *cut = malloc(k + 1);
    memcpy(cut, small, k);
    cut[k] = '\0';
    captured cap;
    char *out = S_read(cut, &cap);
    cr_assert(out != NULL || cap.n > 0, "prefix %zu refused without a diagnostic", k);
    free(out);
    free(cut);
  }
}
