// A stablehlo.composite without a sharding rule is lowered as XLA lowers it:
// as a call of its decomposition (it keeps its sdy.sharding), so that
// propagation goes through the decomposition and the per-device program
// runs it on local shapes like any callee; lower --verify finds every
// device's results equal to its pieces of the global ones.
// RUN: shard lower --verify %s -o %t/v.mlir 2> %t/out
// RUN: shard lower --local %s -o %t/local.mlir
// RUN: cat %t/out %t/local.mlir
// CHECK: --verify: 3 functions of lower_verify_composite.mlir gave the same results on every device
// CHECK-LABEL: func.func @main(
// CHECK-SAME: %arg0: tensor<4x2xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"b"}, {}]>}
// CHECK: %[[A:.*]] = call @scaled_first_column(%arg0, %arg1) {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"b"}, {}]>]>} : (tensor<4x2xf32>, tensor<f32>) -> tensor<4x1xf32>
// CHECK: call @negate(%[[A]]) {{.*}}: (tensor<4x1xf32>) -> tensor<4x1xf32>
// CHECK-NOT: stablehlo.composite
// CHECK-LABEL: func.func private @scaled_first_column(
// CHECK-SAME: %arg0: tensor<4x2xf32>
// CHECK: stablehlo.slice %{{.*}} [0:4, 0:1] : (tensor<4x2xf32>) -> tensor<4x1xf32>
// CHECK-LABEL: func.func private @negate(
// CHECK-SAME: tensor<4x1xf32>
sdy.mesh @mesh = <["b"=4]>
func.func @main(%arg0: tensor<16x2xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"b"}, {}]>}, %arg1: tensor<f32>) -> tensor<16x1xf32> {
  %0 = stablehlo.composite "my.scaled_first_column" %arg0, %arg1 {
    composite_attributes = {column = 0 : i64}, decomposition = @scaled_first_column,
    sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"b"}, {}]>]>
  } : (tensor<16x2xf32>, tensor<f32>) -> tensor<16x1xf32>
  %1 = stablehlo.composite "my.negate" %0 {decomposition = @negate, version = 2 : i32} : (tensor<16x1xf32>) -> tensor<16x1xf32>
  return %1 : tensor<16x1xf32>
}
func.func private @scaled_first_column(%arg0: tensor<16x2xf32>, %arg1: tensor<f32>) -> tensor<16x1xf32> {
  %0 = stablehlo.broadcast_in_dim %arg1, dims = [] : (tensor<f32>) -> tensor<16x2xf32>
  %1 = stablehlo.multiply %arg0, %0 : tensor<16x2xf32>
  %2 = stablehlo.slice %1 [0:16, 0:1] : (tensor<16x2xf32>) -> tensor<16x1xf32>
  return %2 : tensor<16x1xf32>
}
func.func private @negate(%arg0: tensor<16x1xf32>) -> tensor<16x1xf32> {
  %0 = stablehlo.negate %arg0 : tensor<16x1xf32>
  return %0 : tensor<16x1xf32>
}
