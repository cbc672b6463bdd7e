func.func @main(%a: tensor<i64>) -> tensor<i32> {
  %0 = stablehlo.bitcast_convert %a : (tensor<i64>) -> tensor<i32>
  return %0 : tensor<i32>
}
