func.func @f() -> tensor<2xcomplex<f32>> {
  %0 = stablehlo.constant dense<[(1.0, 0.0), (2.0 0.0)]> : tensor<2xcomplex<f32>>
  return %0 : tensor<2xcomplex<f32>>
}
