// Arguments on meshes of 2 and 4 devices: --verify cannot pick one device
// count for the function, so it skips it.
module @jit_mesh_sizes {
  sdy.mesh @mesh2 = <["x"=2]>
  sdy.mesh @mesh4 = <["y"=4]>
  func.func public @main(%arg0: tensor<8xf32> {sdy.sharding = #sdy.sharding<@mesh2, [{"x"}]>}, %arg1: tensor<8xf32> {sdy.sharding = #sdy.sharding<@mesh4, [{"y"}]>}) -> (tensor<8xf32>, tensor<8xf32>) {
    %0 = stablehlo.abs %arg0 : tensor<8xf32>
    %1 = stablehlo.abs %arg1 : tensor<8xf32>
    return %0, %1 : tensor<8xf32>, tensor<8xf32>
  }
}
