func.func @main(%a: tensor<4xf32>) -> tensor<8xf32> {
  %0 = "stablehlo.all_gather"(%a) <{all_gather_dim = 0 : i64, replica_groups = dense<[[0, 5], [2, 1]]> : tensor<2x2xi64>}> : (tensor<4xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}
