func.func @dp(%a: tensor<8xf32>, %p: tensor<f32>, %l: tensor<2xi64>) -> tensor<?xf32> {
  %0 = stablehlo.dynamic_pad %a, %p, %l, %l, %l : (tensor<8xf32>, tensor<f32>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}
