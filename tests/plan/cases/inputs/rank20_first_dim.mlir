// A rank-20 tensor sharded on its first dim over x=8: one element per device.
sdy.mesh @mesh = <["x"=8]>
func.func @main(%arg0: tensor<8x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}]>}) -> (tensor<8x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}]>}, tensor<8x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}]>}) {
  %0 = stablehlo.negate %arg0 {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"x"}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}]>]>} : tensor<8x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1xf32>
  %1 = sdy.all_gather [{"x"}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}] %0 out_sharding=<@mesh, [{}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}]> : tensor<8x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1xf32>
  return %0, %1 : tensor<8x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1xf32>, tensor<8x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1xf32>
}
