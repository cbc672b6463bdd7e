func.func @main(%a: tensor<f32>) -> tensor<2xui32> {
  %0 = stablehlo.constant dense<[1, -3]> : tensor<2xui32>
  return %0 : tensor<2xui32>
}
