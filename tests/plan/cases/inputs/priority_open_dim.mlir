// Input of lower_no_propagate_verify.test: an open empty dim with a priority.
sdy.mesh @mesh = <["a"=2, "b"=2]>

func.func @main(%arg0: tensor<8x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"a"}, {}]>}, %arg1: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %0 = stablehlo.add %arg0, %arg1 {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{?}, {?}p1]>]>} : tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}
