func.func @main(%a: tensor<4x8xf32>) -> tensor<4x5xcomplex<f32>> {
  %0 = stablehlo.fft %a, type = RFFT, length = [16] : (tensor<4x8xf32>) -> tensor<4x5xcomplex<f32>>
  return %0 : tensor<4x5xcomplex<f32>>
}
