func.func @complex(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xcomplex<f64>> {
  %0 = stablehlo.complex %a, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xcomplex<f64>>
  return %0 : tensor<4xcomplex<f64>>
}
