// 7 rows over 4 devices: every device allocates ceil(7/4) = 2 rows of the
// sharded intermediate (the last one holds 1 row of data and 1 of
// padding). Values on a maximal mesh live only on device 2, so device 2 is
// reported on its own.
sdy.mesh @mesh = <["x"=4]>
sdy.mesh @one = <[], device_ids=[2]>
func.func @main(%a: tensor<7x1024xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}]>})
    -> (tensor<7x1024xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}]>},
        tensor<4096xf32>) {
  %n = stablehlo.negate %a : tensor<7x1024xf32>
  %c = stablehlo.constant {sdy.sharding = #sdy.sharding_per_value<[<@one, []>]>} dense<1.0> : tensor<4096xf32>
  %d = stablehlo.add %c, %c {sdy.sharding = #sdy.sharding_per_value<[<@one, []>]>} : tensor<4096xf32>
  return %n, %d : tensor<7x1024xf32>, tensor<4096xf32>
}
