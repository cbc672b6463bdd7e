func.func @main(%a: tensor<8xf32>) -> tensor<8xf32> {
  %0 = call @main(%a) : (tensor<8xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}
