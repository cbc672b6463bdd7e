func.func @main() {
  %c = stablehlo.constant dense<[(1.0, 2.0), (3.0, -4.0)]> : tensor<2xcomplex<f32>>
  %r = stablehlo.floor %c : tensor<2xcomplex<f32>>
  func.return
}
