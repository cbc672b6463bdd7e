func.func @main(%a: tensor<1x8x8x4xf32>, %b: tensor<3x3x4x16xf32>) -> tensor<1x8x8x16xf32> {
  %0 = stablehlo.convolution(%a, %b) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 0], pad = [[1, 1], [1, 1]]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x8x8x4xf32>, tensor<3x3x4x16xf32>) -> tensor<1x8x8x16xf32>
  return %0 : tensor<1x8x8x16xf32>
}
