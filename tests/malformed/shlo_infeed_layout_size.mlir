func.func @inf(%t: !stablehlo.token) -> tensor<8xf32> {
  %0, %1 = "stablehlo.infeed"(%t) {layout = [[0], [1]]} : (!stablehlo.token) -> (tensor<8xf32>, !stablehlo.token)
  return %0 : tensor<8xf32>
}
