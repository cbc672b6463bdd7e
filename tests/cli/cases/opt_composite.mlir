// stablehlo.composite in its pretty form: `"name" operands attr-dict :
// functional-type`, composite_attributes = {} and version = 0 elided as
// StableHLO prints them; the generic print reads back to the same module,
// and a composite without its decomposition is refused.
// RUN: shard opt %s -o %t/p1.mlir
// RUN: shard opt %t/p1.mlir -o %t/p2.mlir
// RUN: cmp %t/p1.mlir %t/p2.mlir
// RUN: shard opt %s --mlir-print-op-generic -o %t/g.mlir
// RUN: shard opt %t/g.mlir -o %t/p3.mlir
// RUN: cmp %t/p1.mlir %t/p3.mlir
// RUN: not shard opt %S/inputs/composite_no_decomposition.mlir 2> %t/err.txt
// RUN: cat %t/p1.mlir %t/g.mlir %t/err.txt
// CHECK: %0 = stablehlo.composite "my.sub" %arg0, %arg1 {decomposition = @sub} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// CHECK: %1 = stablehlo.composite "my.scale" %0 {composite_attributes = {eps = 1.000000e-05 : f32}, decomposition = @id, version = 1 : i32} : (tensor<4xf32>) -> tensor<4xf32>
// CHECK: %2 = stablehlo.composite "my.\22quoted\22" {decomposition = @k} : () -> tensor<4xf32>
// CHECK: "stablehlo.composite"(%arg0, %arg1) {composite_attributes = {}, decomposition = @sub, name = "my.sub"}
// CHECK: composite_no_decomposition.mlir:2:3: error: 'stablehlo.composite' op requires attribute 'decomposition'
func.func @main(%arg0: tensor<4xf32>, %arg1: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %0 = stablehlo.composite "my.sub" %arg0, %arg1 {composite_attributes = {}, decomposition = @sub} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %1 = stablehlo.composite "my.scale" %0 {
    composite_attributes = {eps = 1.0e-5 : f32},
    decomposition = @id,
    version = 1 : i32
  } : (tensor<4xf32>) -> tensor<4xf32>
  %2 = stablehlo.composite "my.\"quoted\"" {decomposition = @k, version = 0 : i32} : () -> tensor<4xf32>
  return %1, %2 : tensor<4xf32>, tensor<4xf32>
}
func.func private @sub(%arg0: tensor<4xf32>, %arg1: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.subtract %arg0, %arg1 : tensor<4xf32>
  return %0 : tensor<4xf32>
}
func.func private @id(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  return %arg0 : tensor<4xf32>
}
func.func private @k() -> tensor<4xf32> {
  %0 = stablehlo.constant dense<1.0> : tensor<4xf32>
  return %0 : tensor<4xf32>
}
