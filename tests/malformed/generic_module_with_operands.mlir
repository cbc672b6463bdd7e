func.func @f(%a: tensor<4xf32>) -> tensor<4xi1> {
  %0 = "module"(%a, %a) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  return %0 : tensor<4xi1>
}
