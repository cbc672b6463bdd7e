// A float literal is printed from the value of its element type: the f32
// nearest 68937445.0 is 68937448, printed 6.893745e+07; printing the
// literal's own digits (6.893744e+07) did not read back to that value, so
// the second print differed from the first (found by fuzz_export).
// RUN: shard opt %s -o %t/p1.mlir
// RUN: shard opt %t/p1.mlir -o %t/p2.mlir
// RUN: cmp %t/p1.mlir %t/p2.mlir
// RUN: cat %t/p1.mlir
// CHECK: dense<6.893745e+07> : tensor<f32>
// CHECK: dense<[6.893745e+07, 1.000000e+00]> : tensor<2xf32>
func.func @f() -> (tensor<f32>, tensor<2xf32>) {
  %0 = stablehlo.constant dense<68937445.000000e+00> : tensor<f32>
  %1 = stablehlo.constant dense<[68937445.0, 1.0]> : tensor<2xf32>
  return %0, %1 : tensor<f32>, tensor<2xf32>
}
