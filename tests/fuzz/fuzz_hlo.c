/* libFuzzer target: HloSharding text (convert_hlo.c), V2 and V3, as
 * `shard convert --from hlo` and `shard check` on HLO dumps read it.
 * Input: MESH \n SHAPE \n SHARDING (see fuzz_convert.h); the common part
 * converts it to every notation and back. On top of that, the V2 printer
 * must reach a fixed point (print, parse, print gives the same text), and
 * the device map computed straight from the tile assignment must equal the
 * one of the sharding it converts to. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_convert.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void hlo_checks(shard_conv_ctx *cx, const shard_source *src) {
  shard_hlo_sharding *h = shard_hlo_parse(cx, src, 0, (uint32_t)src->len);
  if (!h) {
    if (cx->de->errors == 0) fuzz_convert_fail("HloSharding parse failed without an error", src->text);
    return;
  }
  (void)shard_hlo_validate(cx, h, cx->shape, cx->rank, 0);
  unsigned errors = cx->de->errors;

  /* print -> parse -> print is a fixed point */
  shard_buf first, second;
  shard_buf_init(&first);
  shard_buf_init(&second);
  shard_hlo_print(&first, h);
  shard_source again = {"<v2>", shard_buf_str(&first), first.len, 0};
  fuzz_conv_sink sink = {{&again}, 1, true};
  shard_diag_engine de;
  shard_diag_init(&de, fuzz_conv_diag, &sink);
  shard_conv_ctx rcx = *cx;
  rcx.de = &de;
  shard_hlo_sharding *h2 = shard_hlo_parse(&rcx, &again, 0, (uint32_t)again.len);
  if (!h2) fuzz_convert_fail("printed HloSharding does not parse again", shard_buf_str(&first));
  shard_hlo_print(&second, h2);
  if (strcmp(shard_buf_str(&first), shard_buf_str(&second)) != 0) {
    shard_buf_printf(&first, "\nthen\n%s", shard_buf_str(&second));
    fuzz_convert_fail("HloSharding print is not a fixed point", shard_buf_str(&first));
  }
  shard_buf_free(&first);
  shard_buf_free(&second);

  /* the tile assignment's devices and the converted sharding's agree */
  int64_t n = shard_hlo_num_devices(h);
  if (h->kind != SHARD_HLO_TILED || cx->rank < 0 || n <= 0 || n > FUZZ_MAX_DEVICES || errors) return;
  shard_conv *c = shard_hlo_to_conv(cx, h);
  if (!c) {
    if (cx->de->errors == errors) fuzz_convert_fail("HloSharding -> Shardy failed without an error", src->text);
    return;
  }
  shard_device_map mh, mc;
  shard_buf why;
  shard_buf_init(&why);
  if (shard_hlo_device_map(h, cx->shape, (uint32_t)cx->rank, n, &mh, &why)) {
    if (shard_device_map_build(c, cx->shape, (uint32_t)cx->rank, n, &mc, &why)) {
      if (!shard_device_map_equal(&mh, &mc, &why))
        fuzz_convert_fail("HloSharding -> Shardy changes the devices", shard_buf_str(&why));
      shard_device_map_free(&mc);
    }
    shard_device_map_free(&mh);
  }
  shard_buf_free(&why);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fuzz_convert(data, size, SHARD_NOTATION_HLO, hlo_checks);
  return 0;
}
