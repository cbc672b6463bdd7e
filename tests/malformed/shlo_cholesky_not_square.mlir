func.func @main(%a: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = stablehlo.cholesky %a, lower = true : tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}
