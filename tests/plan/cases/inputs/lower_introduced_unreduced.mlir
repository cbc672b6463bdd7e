// Results declared unreduced over "y" that nothing sums over "y": the dot's
// contracting dim is not split over "y", the add's operands are not
// unreduced, and the constant has no operands. Every "y" device computes
// the whole value, so the lowered program keeps it on the first "y" device
// and zero on the other (sdy.replicated_to_unreduced); summed over "y" it
// is the value once. Before, each device kept it whole and the sum counted
// it twice. From Shardy's verify_unreduced_axes.mlir, where these are
// valid.
sdy.mesh @mesh = <["x"=2, "y"=2]>

func.func @dot(%arg0: tensor<8x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}]>}, %arg1: tensor<8x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}) -> (tensor<8x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}], unreduced={"y"}>}) {
  %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0] {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"x"}, {}], unreduced={"y"}>]>} : (tensor<8x8xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
  return %0 : tensor<8x16xf32>
}

func.func @add(%arg0: tensor<8x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}]>}) -> tensor<8x8xf32> {
  %0 = stablehlo.add %arg0, %arg0 {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"x"}, {}], unreduced={"y"}>]>} : tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}

func.func @constant() -> tensor<8x8xf32> {
  %0 = "sdy.constant"() <{value = dense<1.000000e+00> : tensor<8x8xf32>}> {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"x"}, {}], unreduced={"y"}>]>} : () -> tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}
