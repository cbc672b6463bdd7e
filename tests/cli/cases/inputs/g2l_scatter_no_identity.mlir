// A scatter whose body is no reduction Shardy knows (a subtraction) has no
// identity for the devices after the first along the updates' batch axes.
sdy.mesh @mesh = <["x"=2, "y"=4]>
func.func @scatter_max(
  %arg0: tensor<8x4xf32>,
  %arg1: tensor<6x1xi64> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}]>},
  %arg2: tensor<6x4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}]>}) -> tensor<8x4xf32> {
  %0 = "stablehlo.scatter"(%arg0, %arg1, %arg2) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %s = stablehlo.subtract %a, %b : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) {
    scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0],
      scatter_dims_to_operand_dims = [0], index_vector_dim = 1>
  } : (tensor<8x4xf32>, tensor<6x1xi64>, tensor<6x4xf32>) -> tensor<8x4xf32>
  %1 = sdy.all_reduce {"x"} %0 out_sharding=<@mesh, [{}, {}]> : tensor<8x4xf32>
  return %1 : tensor<8x4xf32>
}
