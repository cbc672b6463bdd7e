func.func @real(%a: tensor<4xcomplex<f32>>) -> tensor<4xf64> {
  %0 = stablehlo.real %a : (tensor<4xcomplex<f32>>) -> tensor<4xf64>
  return %0 : tensor<4xf64>
}
