// A UTF-8 byte order mark at the start of a file is skipped, not an
// RUN: shard opt %s
// "unexpected character" at 1:1.
// CHECK: func.func @f
func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
  return %a : tensor<4xf32>
}
