// Rank 20, past the 16 dims the export passes, the interpreter and --verify
// once had: dim 0 (8) on "x" (4), dim 19 (3, not divisible) on "y" (2).
sdy.mesh @mesh = <["x"=4, "y"=2]>
func.func @main(%arg0: tensor<8x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x3xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {"y"}]>}) -> (tensor<8x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x3xf32>, tensor<8x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1xf32>, tensor<8x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x3xf32>) {
  %0 = stablehlo.transpose %arg0, dims = [19, 18, 17, 16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0] : (tensor<8x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x3xf32>) -> tensor<3x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x8xf32>
  %1 = stablehlo.negate %0 : tensor<3x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x8xf32>
  %2 = stablehlo.transpose %1, dims = [19, 18, 17, 16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0] : (tensor<3x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x8xf32>) -> tensor<8x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x3xf32>
  %3 = stablehlo.add %2, %arg0 : tensor<8x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x3xf32>
  %c = stablehlo.constant dense<0.0> : tensor<f32>
  %4 = stablehlo.reduce(%arg0 init: %c) applies stablehlo.add across dimensions = [19] : (tensor<8x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x3xf32>, tensor<f32>) -> tensor<8x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1xf32>
  %5 = stablehlo.reverse %arg0, dims = [0, 19] : tensor<8x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x3xf32>
  return %3, %4, %5 : tensor<8x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x3xf32>, tensor<8x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1xf32>, tensor<8x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x3xf32>
}
