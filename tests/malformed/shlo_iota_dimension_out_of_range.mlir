func.func @main(%a: tensor<f32>) -> tensor<4x3xi32> {
  %0 = stablehlo.iota dim = 9 : tensor<4x3xi32>
  return %0 : tensor<4x3xi32>
}
