func.func @main(%a: tensor<8xf32>) -> tensor<4xf32> {
  %0 = stablehlo.slice %a [6:10] : (tensor<8xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
