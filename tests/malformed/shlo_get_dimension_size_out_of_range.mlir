func.func @main(%a: tensor<8xf32>) -> tensor<i32> {
  %0 = stablehlo.get_dimension_size %a, dim = 3 : (tensor<8xf32>) -> tensor<i32>
  return %0 : tensor<i32>
}
