func.func @dr(%a: tensor<8xf32>, %s: tensor<3xi64>) -> tensor<?x?xf32> {
  %0 = stablehlo.dynamic_reshape %a, %s : (tensor<8xf32>, tensor<3xi64>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}
