module @jit_relayout attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["data"=2, "model"=4]>
  sdy.mesh @mesh_reversed = <["data"=2, "model"=4], device_ids=[7, 6, 5, 4, 3, 2, 1, 0]>
  sdy.mesh @maximal_mesh_0 = <[], device_ids=[0]>
  func.func public @main(%arg0: tensor<64x256xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"data"}, {"model"}]>}) -> (tensor<64x256xf32> {jax.result_info = "result[0]", sdy.sharding = #sdy.sharding<@mesh_reversed, [{"data"}, {"model"}]>}, tensor<f32> {jax.result_info = "result[1]", sdy.sharding = #sdy.sharding<@mesh, }[]>}) {
    %0 = stablehlo.tanh %arg0 : tensor<64x256xf32>
    %1 = sdy.reshard %0 <@mesh_reversed, [{"data"}, {"model"}]> : tensor<64x256xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %2 = stablehlo.reduce(%arg0 init: %cst) applies stablehlo.add across dimensions = [0, 1] : (tensor<64x256xf32>, tensor<f32>) -> tensor<f32>
    %cst_0 = stablehlo.constant dense<5.000000e-01> : tensor<f32>
    %3 = stablehlo.multiply %2, %cst_0 {sdy.sharding = #sdy.sharding_per_value<[<@maximal_mesh_0, []>]>} : tensor<f32>
    return %1, %3 : tensor<64x256xf32>, tensor<f32>
  }
}
