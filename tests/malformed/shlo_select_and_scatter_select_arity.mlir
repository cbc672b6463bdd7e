func.func @main(%x: tensor<4x6xf32>, %s: tensor<2x3xf32>) -> tensor<4x6xf32> {
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %0 = "stablehlo.select_and_scatter"(%x, %s, %z) ({
  ^bb0(%p: tensor<f32>, %q: tensor<f32>, %r: tensor<f32>):
    %c = stablehlo.compare GE, %p, %q : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %c : tensor<i1>
  }, {
  ^bb0(%u: tensor<f32>, %v: tensor<f32>):
    %a = stablehlo.add %u, %v : tensor<f32>
    stablehlo.return %a : tensor<f32>
  }) {window_dimensions = array<i64: 2, 2>, window_strides = array<i64: 2, 2>} : (tensor<4x6xf32>, tensor<2x3xf32>, tensor<f32>) -> tensor<4x6xf32>
  return %0 : tensor<4x6xf32>
}
