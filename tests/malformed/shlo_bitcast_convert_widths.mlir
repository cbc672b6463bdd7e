func.func @main(%a: tensor<4xi64>) -> tensor<4x3xi32> {
  %0 = stablehlo.bitcast_convert %a : (tensor<4xi64>) -> tensor<4x3xi32>
  return %0 : tensor<4x3xi32>
}
