func.func @main(%a: tensor<f32>) -> tensor<2xi32> {
  %0 = stablehlo.constant dense<[1.5, 2]> : tensor<2xi32>
  return %0 : tensor<2xi32>
}
