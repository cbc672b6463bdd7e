sdy.mesh @mesh = <["x"=2, "y"=2]>

// A reduction over a dim sharded on "x" whose result stays unreduced on
// "y": the first export all-reduced "x" after the reduce (its result
// sharding does not say "x" was summed), the second did it again.
func.func @reduce_x_keep_y_unreduced(%arg0: tensor<2x64x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}, {"y"}]>}) -> (tensor<64xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}], unreduced={"y"}>}) {
  %0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
  %1 = stablehlo.reduce(%arg0 init: %0) applies stablehlo.add across dimensions = [0, 2] {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{}], unreduced={"y"}>]>} : (tensor<2x64x16xf32>, tensor<f32>) -> tensor<64xf32>
  return %1 : tensor<64xf32>
}
