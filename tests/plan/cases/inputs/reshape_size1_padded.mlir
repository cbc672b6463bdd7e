sdy.mesh @mesh = <["x"=4, "y"=2]>

func.func @reshape_size_1_dimensions_2(
    %arg0: tensor<1x4xi32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}]>})
    -> (tensor<4x1xi32>  {sdy.sharding = #sdy.sharding<@mesh, [{}, {"x"}]>}) {
  %0 = stablehlo.reshape %arg0 {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{}, {"x"}]>]>} : (tensor<1x4xi32>) -> tensor<4x1xi32>
  return %0 : tensor<4x1xi32>
}
