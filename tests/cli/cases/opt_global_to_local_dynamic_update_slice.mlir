// -sdy-convert-global-to-local on a dynamic_update_slice whose operand is
// sharded along dims the update does not span. When the update is 1 long
// along each such dim it falls in one shard, and shard builds Shardy's form:
// per dim, the start clamped to [0, size - 1], the shard's offset, whether
// the shard owns the update, and the local start (0 when not owned); the op
// is rebuilt on local types without its sdy.sharding, and its result is
// kept where every dim owns the update. A longer update may straddle two
// shards: shard writes each shard's part (a padded window of the update),
// where Shardy refuses the op.
// RUN: shard opt %s -sdy-convert-global-to-local -o %t/out.mlir
// RUN: shard lower --verify %S/inputs/g2l_dus_verify.mlir -o %t/v.mlir 2> %t/verify
// RUN: cat %t/out.mlir %t/verify
// CHECK-LABEL: func.func @two_sharded_dims(
// CHECK-NEXT: %[[Z0:.*]] = stablehlo.constant dense<0> : tensor<i32>
// CHECK-NEXT: %[[M0:.*]] = stablehlo.constant dense<15> : tensor<i32>
// CHECK-NEXT: %[[C0:.*]] = stablehlo.clamp %[[Z0]], %arg2, %[[M0]] : tensor<i32>
// CHECK-NEXT: stablehlo.partition_id
// CHECK-NEXT: stablehlo.convert
// CHECK-NEXT: stablehlo.constant dense<[0, 0, 8, 8]> : tensor<4xi64>
// CHECK-NEXT: stablehlo.dynamic_slice
// CHECK-NEXT: stablehlo.reshape
// CHECK-NEXT: %[[O0:.*]] = stablehlo.convert %{{.*}} : (tensor<i64>) -> tensor<i32>
// CHECK-NEXT: %[[ONE:.*]] = stablehlo.constant dense<1> : tensor<i32>
// CHECK-NEXT: %[[E0:.*]] = stablehlo.add %[[C0]], %[[ONE]] : tensor<i32>
// CHECK-NEXT: %[[S0:.*]] = stablehlo.constant dense<8> : tensor<i32>
// CHECK-NEXT: %[[SE0:.*]] = stablehlo.add %[[O0]], %[[S0]] : tensor<i32>
// CHECK-NEXT: %[[GE0:.*]] = stablehlo.compare GE, %[[C0]], %[[O0]] : (tensor<i32>, tensor<i32>) -> tensor<i1>
// CHECK-NEXT: %[[LE0:.*]] = stablehlo.compare LE, %[[E0]], %[[SE0]] : (tensor<i32>, tensor<i32>) -> tensor<i1>
// CHECK-NEXT: %[[OWN0:.*]] = stablehlo.and %[[GE0]], %[[LE0]] : tensor<i1>
// CHECK-NEXT: %[[L0:.*]] = stablehlo.subtract %[[C0]], %[[O0]] : tensor<i32>
// CHECK-NEXT: %[[I0:.*]] = stablehlo.select %[[OWN0]], %[[L0]], %[[Z0]] : tensor<i1>, tensor<i32>
// CHECK: stablehlo.constant dense<[0, 8, 0, 8]> : tensor<4xi64>
// CHECK: %[[OWN1:.*]] = stablehlo.and %{{.*}}, %{{.*}} : tensor<i1>
// CHECK-NEXT: stablehlo.subtract
// CHECK-NEXT: %[[I1:.*]] = stablehlo.select %[[OWN1]]
// CHECK-NEXT: %[[DUS:.*]] = stablehlo.dynamic_update_slice %arg0, %arg1, %[[I0]], %[[I1]] : (tensor<8x8xf32>, tensor<1x1xf32>, tensor<i32>, tensor<i32>) -> tensor<8x8xf32>
// CHECK-NEXT: %[[ALL:.*]] = stablehlo.and %[[OWN0]], %[[OWN1]] : tensor<i1>
// CHECK-NEXT: %[[MASK:.*]] = stablehlo.broadcast_in_dim %[[ALL]], dims = [] : (tensor<i1>) -> tensor<8x8xi1>
// CHECK-NEXT: %[[RES:.*]] = stablehlo.select %[[MASK]], %[[DUS]], %arg0 : tensor<8x8xi1>, tensor<8x8xf32>
// CHECK-NEXT: return %[[RES]] : tensor<8x8xf32>
// CHECK-LABEL: func.func @update_spans_the_other_sharded_dim(
// CHECK: stablehlo.constant dense<31> : tensor<i64>
// CHECK: stablehlo.dynamic_update_slice %arg0, %arg1, %arg2, %{{.*}} : (tensor<8x16xf32>, tensor<8x1xf32>, tensor<i64>, tensor<i64>) -> tensor<8x16xf32>
// CHECK-LABEL: func.func @longer_update(
// CHECK: stablehlo.pad
// CHECK: stablehlo.dynamic_update_slice
// CHECK: --verify: 2 functions of {{.*}}g2l_dus_verify.mlir gave the same results on every device
sdy.mesh @mesh = <["x"=2, "y"=2]>
func.func @two_sharded_dims(%arg0: tensor<16x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {"y"}]>},
                            %arg1: tensor<1x1xf32>, %arg2: tensor<i32>, %arg3: tensor<i32>)
    -> (tensor<16x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {"y"}]>}) {
  %0 = stablehlo.dynamic_update_slice %arg0, %arg1, %arg2, %arg3 {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"x"}, {"y"}]>]>} : (tensor<16x16xf32>, tensor<1x1xf32>, tensor<i32>, tensor<i32>) -> tensor<16x16xf32>
  return %0 : tensor<16x16xf32>
}
func.func @update_spans_the_other_sharded_dim(%arg0: tensor<16x32xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {"y"}]>},
                                              %arg1: tensor<16x1xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}]>},
                                              %arg2: tensor<i64>, %arg3: tensor<i64>)
    -> (tensor<16x32xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {"y"}]>}) {
  %0 = stablehlo.dynamic_update_slice %arg0, %arg1, %arg2, %arg3 {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"x"}, {"y"}]>]>} : (tensor<16x32xf32>, tensor<16x1xf32>, tensor<i64>, tensor<i64>) -> tensor<16x32xf32>
  return %0 : tensor<16x32xf32>
}
func.func @longer_update(%arg0: tensor<16x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}]>},
                         %arg1: tensor<3x8xf32>, %arg2: tensor<i32>, %arg3: tensor<i32>)
    -> (tensor<16x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}]>}) {
  %0 = stablehlo.dynamic_update_slice %arg0, %arg1, %arg2, %arg3 {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"x"}, {}]>]>} : (tensor<16x8xf32>, tensor<3x8xf32>, tensor<i32>, tensor<i32>) -> tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}
