func.func @rds(%a: tensor<8xf32>, %l: tensor<2xi64>, %k: tensor<1xi64>) -> tensor<?xf32> {
  %0 = stablehlo.real_dynamic_slice %a, %k, %l, %k : (tensor<8xf32>, tensor<1xi64>, tensor<2xi64>, tensor<1xi64>) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}
