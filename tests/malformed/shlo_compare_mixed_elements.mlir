func.func @cmp(%a: tensor<4xf32>, %b: tensor<4xf16>) -> tensor<4xi1> {
  %0 = stablehlo.compare LT, %a, %b : (tensor<4xf32>, tensor<4xf16>) -> tensor<4xi1>
  return %0 : tensor<4xi1>
}
