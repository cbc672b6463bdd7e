// Small enough for the interpreter budget: a data- and model-parallel
// two-layer MLP on 4 devices.
sdy.mesh @mesh = <["data"=2, "model"=2]>
func.func @main(%arg0: tensor<4x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"data"}, {}]>}, %arg1: tensor<8x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"model"}]>}, %arg2: tensor<16x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"model"}, {}]>}) -> (tensor<4x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"data"}, {}]>}) {
  %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0] : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  %cst = stablehlo.constant dense<0.000000e+00> : tensor<4x16xf32>
  %1 = stablehlo.maximum %0, %cst : tensor<4x16xf32>
  %2 = stablehlo.dot_general %1, %arg2, contracting_dims = [1] x [0] : (tensor<4x16xf32>, tensor<16x8xf32>) -> tensor<4x8xf32>
  %3 = stablehlo.transpose %2, dims = [1, 0] : (tensor<4x8xf32>) -> tensor<8x4xf32>
  %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
  %4 = stablehlo.reduce(%3 init: %cst_0) applies stablehlo.add across dimensions = [1] : (tensor<8x4xf32>, tensor<f32>) -> tensor<8xf32>
  %5 = stablehlo.broadcast_in_dim %4, dims = [1] : (tensor<8xf32>) -> tensor<4x8xf32>
  %6 = stablehlo.add %2, %5 : tensor<4x8xf32>
  return %6 : tensor<4x8xf32>
}
