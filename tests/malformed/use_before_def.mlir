func.func @f(%a: tensor<2xf32>) -> tensor<2xf32> {
  %0 = "a.b"(%1) : (tensor<2xf32>) -> tensor<2xf32>
  %1 = "a.c"(%a) : (tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}
