// chlo.ragged_dot has XLA's mhlo.ragged_dot rule: in the ragged
// non-contracting mode the rhs non-contracting dim passes to the result.
// RUN: shard propagate %s -o %t/out.mlir
// RUN: cat %t/out.mlir
// CHECK: "chlo.ragged_dot"{{.*}}sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{}, {"y"}]>]>
// CHECK: return
sdy.mesh @mesh = <["x"=2, "y"=2]>
func.func @main(%lhs: tensor<16x8xf32>, %rhs: tensor<4x8x6xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}, {"y"}]>}, %gs: tensor<4xi64>) -> tensor<16x6xf32> {
  %0 = "chlo.ragged_dot"(%lhs, %rhs, %gs) {ragged_dot_dimension_numbers = #chlo.ragged_dot<lhs_batching_dimensions = [], rhs_batching_dimensions = [], lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]>, precision_config = [#chlo<precision DEFAULT>, #chlo<precision DEFAULT>]} : (tensor<16x8xf32>, tensor<4x8x6xf32>, tensor<4xi64>) -> tensor<16x6xf32>
  return %0 : tensor<16x6xf32>
}
