// A propagation barrier only steers propagation: the per-device program
// must not keep it (its result type would stay global while its operand is
// local). @blocked: the barrier keeps "x" from reaching the negate during
// propagation; the explicit reshards then read the operand's sharding
// through the barrier, run the negate on the "x" shards and gather its
// result for the unsharded return. @reshard: the reshard after the barrier
// reads the sharding through it too (Shardy's reshard_to_collectives.mlir,
// reshard_with_propagation_barrier).
sdy.mesh @mesh = <["x"=2, "y"=2]>
sdy.mesh @mesh3d = <["x"=2, "y"=2, "z"=2]>

func.func @blocked(%arg0: tensor<8x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}]>}) -> tensor<8x8xf32> {
  %0 = sdy.propagation_barrier %arg0 allowed_direction=NONE : tensor<8x8xf32>
  %1 = stablehlo.negate %0 : tensor<8x8xf32>
  return %1 : tensor<8x8xf32>
}

func.func @reshard(%arg0: tensor<8x8x8xf32> {sdy.sharding = #sdy.sharding<@mesh3d, [{"x"}, {"y"}, {"z"}]>}) -> tensor<8x8x8xf32> {
  %0 = sdy.propagation_barrier %arg0 allowed_direction=BACKWARD : tensor<8x8x8xf32>
  %1 = sdy.reshard %0 <@mesh3d, [{}, {"x"}, {}]> : tensor<8x8x8xf32>
  %2 = stablehlo.negate %1 : tensor<8x8x8xf32>
  return %2 : tensor<8x8x8xf32>
}
