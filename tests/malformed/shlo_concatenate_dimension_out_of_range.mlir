func.func @main(%a: tensor<2x3xf32>) -> tensor<4x3xf32> {
  %0 = stablehlo.concatenate %a, %a, dim = 7 : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}
