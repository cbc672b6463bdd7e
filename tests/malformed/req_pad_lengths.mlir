func.func @f(%a: tensor<4xf32>, %z: tensor<f32>) -> tensor<6xf32> {
  %0 = "stablehlo.pad"(%a, %z) {edge_padding_low = array<i64: 1>, edge_padding_high = array<i64: 1, 0>, interior_padding = array<i64: 0>} : (tensor<4xf32>, tensor<f32>) -> tensor<6xf32>
  return %0 : tensor<6xf32>
}
