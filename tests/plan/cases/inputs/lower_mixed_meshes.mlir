// The negate reads a tensor split over "x" of a 3x2 mesh and writes one
// split over "x" of a 2x3 mesh: Shardy's insert-explicit-reshards finds no
// common mesh and leaves the op alone, so its per-device program would
// negate 70-element shards into 105-element ones. shard lower refuses it.
// @replicated mixes the same meshes with nothing sharded, which needs no
// reshard and lowers.
sdy.mesh @mesh_iota = <["x"=3, "y"=2]>
sdy.mesh @mesh_xy = <["x"=2, "y"=3]>

func.func @mixed(%arg0: tensor<210xf32> {sdy.sharding = #sdy.sharding<@mesh_iota, [{"x"}]>}) -> (tensor<210xf32> {sdy.sharding = #sdy.sharding<@mesh_xy, [{"x"}]>}) {
  %0 = stablehlo.negate %arg0 {sdy.sharding = #sdy.sharding_per_value<[<@mesh_xy, [{"x"}]>]>} : tensor<210xf32>
  return %0 : tensor<210xf32>
}

func.func @replicated(%arg0: tensor<210xf32> {sdy.sharding = #sdy.sharding<@mesh_iota, [{}]>}) -> (tensor<210xf32> {sdy.sharding = #sdy.sharding<@mesh_xy, [{}]>}) {
  %0 = stablehlo.negate %arg0 {sdy.sharding = #sdy.sharding_per_value<[<@mesh_xy, [{}]>]>} : tensor<210xf32>
  return %0 : tensor<210xf32>
}
