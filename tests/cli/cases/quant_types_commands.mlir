// Quantized element types print in MLIR's canonical form (scales as %e, a
// zero point of 0 and the default storage range left out, per-axis lists
// without blanks), and check, propagate and lower treat tensors of them
// like any other tensor.
// RUN: shard opt %s
// RUN: shard check %s
// RUN: shard propagate %s -o %t/p.mlir
// the signature, %0 and %1 carry the sharding:
// RUN: grep -c '@mesh, \[{"x"}, {}\]>' %t/p.mlir
// RUN: shard lower --verify %s -o %t/l.mlir
// CHECK: func.func @main(%arg0: tensor<4x2x!quant.uniform<i8:f32:1, {5.000000e-01,2.000000e+00:-1}>> {sdy.sharding
// CHECK-SAME: %arg1: tensor<3x!quant.uniform<i8<-127:127>:f32, 2.500000e-01:3>>)
// CHECK: stablehlo.add {{.*}} : tensor<4x2x!quant.uniform<i8:f32:1, {5.000000e-01,2.000000e+00:-1}>>
// CHECK: {{^3$}}
!q = !quant.uniform<i8:f32:1, {0.5:0, 2.0:-1}>
sdy.mesh @mesh = <["x"=2]>
func.func @main(%arg0: tensor<4x2x!q> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}]>}, %arg1: tensor<3x!quant.uniform<si8<-127:127>:f32, 2.5e-1:3>>) -> tensor<4x2x!q> {
  %0 = stablehlo.add %arg0, %arg0 : tensor<4x2x!q>
  %1 = stablehlo.multiply %0, %arg0 : tensor<4x2x!q>
  return %1 : tensor<4x2x!q>
}
