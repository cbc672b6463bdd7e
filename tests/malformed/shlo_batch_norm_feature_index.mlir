func.func @main(%x: tensor<2x3x4xf32>, %s: tensor<3xf32>) -> tensor<2x3x4xf32> {
  %0 = "stablehlo.batch_norm_inference"(%x, %s, %s, %s, %s) {epsilon = 1.0e-3 : f32, feature_index = 5 : i64} : (tensor<2x3x4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x3x4xf32>
  return %0 : tensor<2x3x4xf32>
}
