func.func @main(%a: tensor<4x8xf32>) -> tensor<4x4xf32> {
  %0 = stablehlo.dot_general %a, %a, contracting_dims = [2] x [1] : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}
