func.func @main(%a: tensor<f32>) -> tensor<2xsi8> {
  %0 = stablehlo.constant dense<[-129, 1]> : tensor<2xsi8>
  return %0 : tensor<2xsi8>
}
