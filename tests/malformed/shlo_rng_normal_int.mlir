func.func @rng(%a: tensor<i32>, %b: tensor<i32>) -> tensor<2x3xi32> {
  %shape = stablehlo.constant dense<[2, 3]> : tensor<2xi64>
  %0 = stablehlo.rng %a, %b, %shape, distribution = NORMAL : (tensor<i32>, tensor<i32>, tensor<2xi64>) -> tensor<2x3xi32>
  return %0 : tensor<2x3xi32>
}
