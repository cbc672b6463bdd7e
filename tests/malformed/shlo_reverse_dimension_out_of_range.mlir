func.func @main(%a: tensor<8xf32>) -> tensor<8xf32> {
  %0 = stablehlo.reverse %a, dims = [1] : tensor<8xf32>
  return %0 : tensor<8xf32>
}
