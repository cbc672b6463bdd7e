/* libFuzzer target: the Paddle and OneFlow notations (convert_paddle.c,
 * convert_oneflow.c). The first byte picks the notation (its value mod 4):
 * Paddle dist attr (mesh_shape:[2,2],...,dims_mappings:[-1,1]), Paddle
 * placements ([Shard(dim=1), Replicate()]), OneFlow nd-SBP ((S(1), B, P)) or
 * OneFlow Python ((oneflow.sbp.split(dim=1), oneflow.sbp.broadcast)). The
 * rest is MESH \n SHAPE \n SHARDING (see fuzz_convert.h), parsed as
 * `shard convert --from <notation>` does, then printed in every notation,
 * its own first, and each print parsed back. */
#include <stddef.h>
#include <stdint.h>

#include "fuzz_convert.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static const shard_notation from[] = {SHARD_NOTATION_PADDLE, SHARD_NOTATION_PADDLE_PLACEMENTS, SHARD_NOTATION_ONEFLOW,
                                        SHARD_NOTATION_ONEFLOW_PYTHON};
  if (size == 0) return 0;
  fuzz_convert(data + 1, size - 1, from[data[0] % 4], NULL);
  return 0;
}
