// The argument's 2 rows are split over "x":(1)2 (a row per half of "x");
// the add splits them over all 4 of "x", which does not divide 2, so the
// rows are padded to 4 and device x=i takes padded row i. Device x=1 holds
// real row 0 but must take row 1, which sits on the devices of the other
// half: padding here moves elements between shards, and the per-device
// conversion cannot do that with a local pad (it read padding instead).
// From Shardy's update_non_divisible_input_output_shardings.mlir.
sdy.mesh @mesh = <["x"=4, "y"=2]>

func.func @main(%arg0: tensor<2x2xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x":(1)2}, {"y"}]>}) -> tensor<2x2xf32> {
  %0 = stablehlo.add %arg0, %arg0 {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"x"}, {"y"}]>]>} : tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}
