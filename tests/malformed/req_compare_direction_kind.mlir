func.func @f(%a: tensor<4xf32>) -> tensor<4xi1> {
  %0 = "stablehlo.compare"(%a, %a) {comparison_direction = 1 : i64} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  return %0 : tensor<4xi1>
}
