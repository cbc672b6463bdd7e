func.func @f(%a: tensor<8x9xf32>) -> tensor<8x9xf32> {
  %1 = "x.default"(%a) {padding = dense<[[7, 0],  ][,00]> : tensor<2x2xi64>} : (tensor<8x9xf32>) -> tensor<8x9xf32>
  return %1 : tensor<8x9xf32>
}
