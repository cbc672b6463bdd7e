// chlo ops in their pretty syntax (ChloOps.td's assembly formats) print back
// unchanged; the generic form reads back to the same module; the verifier
// checks their shapes.
// RUN: shard opt %s -o %t/pretty.mlir
// RUN: shard opt %s --mlir-print-op-generic -o %t/generic.mlir
// RUN: shard opt %t/generic.mlir -o %t/back.mlir
// RUN: diff %t/pretty.mlir %t/back.mlir
// RUN: cat %t/pretty.mlir %t/generic.mlir
// CHECK: %0 = chlo.lgamma %arg0 : tensor<4x3xf32> -> tensor<4x3xf32>
// CHECK: %1 = chlo.erf_inv %0 {mhlo.frontend_attributes = {a = "b"}} : tensor<4x3xf32> -> tensor<4x3xf32>
// CHECK: %2 = chlo.broadcast_add %1, %arg1 {broadcast_dimensions = array<i64: 1>} : (tensor<4x3xf32>, tensor<3xf32>) -> tensor<4x3xf32>
// CHECK: %3 = chlo.broadcast_compare %2, %arg1 {comparison_direction = #chlo<comparison_direction LT>} : (tensor<4x3xf32>, tensor<3xf32>) -> tensor<4x3xi1>
// CHECK: %4 = chlo.next_after %2, %1 : tensor<4x3xf32>, tensor<4x3xf32> -> tensor<4x3xf32>
// CHECK: %5:2 = chlo.top_k(%4, k = 2) : tensor<4x3xf32> -> (tensor<4x2xf32>, tensor<4x2xi32>)
// CHECK: %6 = chlo.is_inf %5#0 : tensor<4x2xf32> -> tensor<4x2xi1>
// CHECK: %7 = chlo.constant dense<1.000000e+00> : tensor<f32>
// CHECK: %8 = "chlo.mulhi"(%arg2, %arg2) : (tensor<2xi8>, tensor<2xi8>) -> tensor<2xi8>
// CHECK: "chlo.broadcast_add"(%{{.*}}, %arg1) {broadcast_dimensions = array<i64: 1>}
// CHECK: "chlo.top_k"(%{{.*}}) {k = 2 : i64} : (tensor<4x3xf32>) -> (tensor<4x2xf32>, tensor<4x2xi32>)
func.func @main(%arg0: tensor<4x3xf32>, %arg1: tensor<3xf32>, %arg2: tensor<2xi8>) -> (tensor<4x2xi1>, tensor<4x3xi1>, tensor<f32>, tensor<2xi8>) {
  %0 = chlo.lgamma %arg0 : tensor<4x3xf32> -> tensor<4x3xf32>
  %1 = chlo.erf_inv %0 {mhlo.frontend_attributes = {a = "b"}} : tensor<4x3xf32> -> tensor<4x3xf32>
  %2 = chlo.broadcast_add %1, %arg1 {broadcast_dimensions = array<i64: 1>} : (tensor<4x3xf32>, tensor<3xf32>) -> tensor<4x3xf32>
  %3 = chlo.broadcast_compare %2, %arg1 {comparison_direction = #chlo<comparison_direction LT>} : (tensor<4x3xf32>, tensor<3xf32>) -> tensor<4x3xi1>
  %4 = chlo.next_after %2, %1 : tensor<4x3xf32>, tensor<4x3xf32> -> tensor<4x3xf32>
  %5:2 = chlo.top_k(%4, k = 2) : tensor<4x3xf32> -> (tensor<4x2xf32>, tensor<4x2xi32>)
  %6 = chlo.is_inf %5#0 : tensor<4x2xf32> -> tensor<4x2xi1>
  %7 = chlo.constant dense<1.0> : tensor<f32>
  %8 = "chlo.mulhi"(%arg2, %arg2) : (tensor<2xi8>, tensor<2xi8>) -> tensor<2xi8>
  return %6, %3, %7, %8 : tensor<4x2xi1>, tensor<4x3xi1>, tensor<f32>, tensor<2xi8>
}
