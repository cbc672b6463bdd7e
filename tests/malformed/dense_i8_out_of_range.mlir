func.func @main(%a: tensor<f32>) -> tensor<4xi8> {
  %0 = stablehlo.constant dense<[1, 2, 300, 4]> : tensor<4xi8>
  return %0 : tensor<4xi8>
}
