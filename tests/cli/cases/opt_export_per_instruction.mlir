// RUN: shard opt %s -sdy-export-pipeline='enable-per-instruction-partitioning=true per-instruction-partitioning-filter=slice'
// The export pipeline runs per-instruction partitioning after the explicit
// reshards when asked to, with its filter: only the slice goes into a
// manual computation.
sdy.mesh @mesh = <["x"=2]>

// CHECK-LABEL: func @only_slice
// CHECK: sdy.manual_computation(%arg0) in_shardings=[<mesh<["x"=2]>, [{"x"}, {}]>] out_shardings=[<mesh<["x"=2]>, [{"x"}, {}]>] manual_axes={"x"}
// CHECK-NEXT: stablehlo.slice %arg1 [0:3, 0:4]
// CHECK: stablehlo.negate
// CHECK-NOT: sdy.manual_computation
// CHECK: return
func.func @only_slice(%arg0: tensor<6x4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}]>}) -> (tensor<5x4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}]>}) {
  %0 = stablehlo.slice %arg0 [0:5, 0:4] {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"x"}, {}]>]>} : (tensor<6x4xf32>) -> tensor<5x4xf32>
  %1 = stablehlo.negate %0 {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"x"}, {}]>]>} : tensor<5x4xf32>
  return %1 : tensor<5x4xf32>
}
