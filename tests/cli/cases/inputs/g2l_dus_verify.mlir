// Dynamic update slices of a sharded operand, one with an update 1 long along
// the sharded dims (Shardy's form) and one longer (a window per shard).
sdy.mesh @mesh = <["x"=2, "y"=2]>
func.func @one(%arg0: tensor<16x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {"y"}]>},
               %arg1: tensor<1x1xf32>, %arg2: tensor<i32>, %arg3: tensor<i32>)
    -> (tensor<16x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {"y"}]>}) {
  %0 = stablehlo.dynamic_update_slice %arg0, %arg1, %arg2, %arg3 : (tensor<16x16xf32>, tensor<1x1xf32>, tensor<i32>, tensor<i32>) -> tensor<16x16xf32>
  return %0 : tensor<16x16xf32>
}
func.func @two(%arg0: tensor<16x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}]>},
               %arg1: tensor<3x8xf32>, %arg2: tensor<i64>, %arg3: tensor<i64>)
    -> (tensor<16x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}]>}) {
  %0 = stablehlo.dynamic_update_slice %arg0, %arg1, %arg2, %arg3 : (tensor<16x8xf32>, tensor<3x8xf32>, tensor<i64>, tensor<i64>) -> tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}
