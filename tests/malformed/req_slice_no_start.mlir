func.func @f(%a: tensor<4xf32>) -> tensor<2xf32> {
  %0 = "stablehlo.slice"(%a) {limit_indices = array<i64: 2>, strides = array<i64: 1>} : (tensor<4xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}
