// chlo ops have sharding rules: elementwise ops and the broadcasting binary
// ops pass dims through (a broadcast size-1 or missing dim takes no
// sharding), top_k keeps the operand's sharding except on the sorted last dim.
// RUN: shard propagate %s -o %t/out.mlir
// RUN: cat %t/out.mlir
// CHECK: %arg1: tensor<16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"y"}]>}
// CHECK: %arg2: tensor<1x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"y"}]>}
// CHECK: chlo.erf %arg0 {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"x"}, {"y"}]>]>}
// CHECK: chlo.broadcast_add {{.*}}sdy.sharding_per_value<[<@mesh, [{"x"}, {"y"}]>]>
// CHECK: chlo.broadcast_multiply {{.*}}sdy.sharding_per_value<[<@mesh, [{"x"}, {"y"}]>]>
// CHECK: chlo.top_k{{.*}}sdy.sharding_per_value<[<@mesh, [{"x"}, {}]>, <@mesh, [{"x"}, {}]>]>
sdy.mesh @mesh = <["x"=2, "y"=2]>
func.func @main(%arg0: tensor<8x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {"y"}]>}, %arg1: tensor<16xf32>, %arg2: tensor<1x16xf32>) -> (tensor<8x4xf32>, tensor<8x4xi32>) {
  %0 = chlo.erf %arg0 : tensor<8x16xf32> -> tensor<8x16xf32>
  %1 = chlo.broadcast_add %0, %arg1 : (tensor<8x16xf32>, tensor<16xf32>) -> tensor<8x16xf32>
  %2 = chlo.broadcast_multiply %1, %arg2 : (tensor<8x16xf32>, tensor<1x16xf32>) -> tensor<8x16xf32>
  %v, %i = chlo.top_k(%2, k = 4) : tensor<8x16xf32> -> (tensor<8x4xf32>, tensor<8x4xi32>)
  return %v, %i : tensor<8x4xf32>, tensor<8x4xi32>
}
