// A file cut short names the brace left open, not what the next op lacks.
// RUN: not shard check %s 2> %t/e
// RUN: cat %t/e
// CHECK: check_cut_short.mlir:[[#@LINE+8]]:1: error: unexpected end of file: '{' opened at [[#@LINE+6]]:52 is not closed
module {
  func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
    %0 = stablehlo.add %a, %a : tensor<4xf32>
    return %0 : tensor<4xf32>
  }
  func.func @g(%a: tensor<4xf32>) -> tensor<4xf32> {
    return %a : tensor<4xf32>
