sdy.mesh @mesh = <["a"=2, "b"=2]>
sdy.mesh @mesh_a_4 = <["a"=4]>

// From Shardy's resolve_permutation_factors.mlir: a reverse along a sharded
// dimension swaps the shards of "a"; each device reversing its own piece
// put row 1 where row 2 belongs.
func.func @reverse_divisible(%arg0: tensor<4x8xi32> {sdy.sharding = #sdy.sharding<@mesh, [{"a"}, {"b"}]>}) -> (tensor<4x8xi32> {sdy.sharding = #sdy.sharding<@mesh, [{"a"}, {"b"}]>}) {
  %0 = stablehlo.reverse %arg0, dims = [0] {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"a"}, {"b"}]>]>} : tensor<4x8xi32>
  return %0 : tensor<4x8xi32>
}

// 6 elements over 4 devices split into 2x3 over "a":(1)2 and "a":(2)2: the
// shards of the two layouts hold different elements.
func.func @reshape_1d_to_2d_split(%arg0: tensor<8xi32> {sdy.sharding = #sdy.sharding<@mesh_a_4, [{"a"}]>}) -> (tensor<2x3xi32> {sdy.sharding = #sdy.sharding<@mesh_a_4, [{}, {}]>}) {
  %0 = stablehlo.slice %arg0 [0:6] {sdy.sharding = #sdy.sharding_per_value<[#sdy.sharding<@mesh_a_4, [{"a"}]>]>} : (tensor<8xi32>) -> tensor<6xi32>
  %1 = stablehlo.reshape %0 {sdy.sharding = #sdy.sharding_per_value<[#sdy.sharding<@mesh_a_4, [{"a":(1)2}, {"a":(2)2}]>]>} : (tensor<6xi32>) -> tensor<2x3xi32>
  %2 = sdy.reshard %1 <@mesh_a_4, [{}, {}]> : tensor<2x3xi32>
  return %2 : tensor<2x3xi32>
}
