// The dot carries a sharding rule of its own that leaves out
// reduction={k}: k, the contracting dim, is split over "y" in both
// operands, so each device computes a partial sum that nothing adds up.
// Shardy's registry rule for stablehlo.dot says reduction={k}. From
// Shardy's drop_sharding_rules.mlir.
sdy.mesh @mesh = <["x"=4, "y"=2]>

func.func @dot(%arg0: tensor<8x32xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"y"}]>}, %arg1: tensor<32x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"y"}, {"x"}]>}) -> (tensor<8x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}]>}) {
  %0 = stablehlo.dot %arg0, %arg1 {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"x"}, {}]>]>, sdy.sharding_rule = #sdy.op_sharding_rule<([i, k], [k, j])->([i, j]) {i=8, j=16, k=32}>} : (tensor<8x32xf32>, tensor<32x16xf32>) -> tensor<8x16xf32>
  return %0 : tensor<8x16xf32>
}
