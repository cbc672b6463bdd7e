func.func @rng2(%a: tensor<f32>, %b: tensor<f32>) -> tensor<2x4xf32> {
  %shape = stablehlo.constant dense<[2, 3]> : tensor<2xi64>
  %0 = stablehlo.rng %a, %b, %shape, distribution = UNIFORM : (tensor<f32>, tensor<f32>, tensor<2xi64>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}
