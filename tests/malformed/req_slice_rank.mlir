func.func @f(%a: tensor<4xf32>) -> tensor<2xf32> {
  %0 = "stablehlo.slice"(%a) {start_indices = array<i64: 0, 0>, limit_indices = array<i64: 2, 1>, strides = array<i64: 1, 1>} : (tensor<4xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}
