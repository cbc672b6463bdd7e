func.func @iota() -> tensor<3xcomplex<f32>> {
  %0 = stablehlo.iota dim = 0 : tensor<3xcomplex<f32>>
  return %0 : tensor<3xcomplex<f32>>
}
func.func @custom(%arg0: tensor<2xcomplex<f32>>) {
  stablehlo.custom_call @check.expect_close(%arg0, %arg0) {has_side_effect = true} : (tensor<2xcomplex<f32>>, tensor<2xcomplex<f32>>) -> ()
  return
}
