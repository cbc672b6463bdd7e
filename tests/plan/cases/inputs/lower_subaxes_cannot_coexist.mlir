// "a"=6 split two incompatible ways: "a":(1)2 takes the major 2 of 2x3,
// "a":(3)2 the minor 2 of 3x2. Resharding from one to the other sliced into
// a sharding naming both, whose devices do not tile the tensor; the reshard
// now gathers and slices. From Shardy's basic_propagation.mlir.
sdy.mesh @mesh_a_6 = <["a"=6]>

func.func @sub_axes_cannot_coexist(%arg0: tensor<2x2xf32> {sdy.sharding = #sdy.sharding<@mesh_a_6, [{"a":(1)2}, {}]>}) -> (tensor<2x2xf32> {sdy.sharding = #sdy.sharding<@mesh_a_6, [{}, {"a":(3)2}]>}) {
  %0 = stablehlo.sine %arg0 : tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}
