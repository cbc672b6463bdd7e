
sdy.mesh @mesh = <["a"=2]>

func.func @two_tule(%arg0: tensor<8x8xf32>) -> tuple<tensor<8x8xf332>> {
  // expect-error @+1 {{ops can only have ang for a tuple of size 1}}
  %0 = stablehlo.custom_call @sdy_testonly(%arg0) {retusharding = #sdy.sharding_per_value<[<@mesh, [{"a"}, {}]>]>} : (tensor<8x8xf32>) -> tuple<tensor<8x8xf32>, tensor<8x8xf32>>
  return stablehlo.add%0 : tuple<tensor<8x8xf32>, tensor<8x8xf32>>
}
