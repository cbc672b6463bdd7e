// A composite with a sharding rule of its own stays a composite and is
// localized as an op, while its decomposition stays global (as Shardy leaves
// it): lower --verify stops with a located error when the region gets the
// local operand instead of slicing out of bounds (it used to exit by
// SIGSEGV). A composite without a rule is lowered as a call instead
// (lower_verify_composite.mlir).
// RUN: not shard lower --verify %s 2> %t/e
// RUN: cat %t/e
// CHECK: error: argument 0 is a tensor<4x2xf32> where the region takes a tensor<16x2xf32>
sdy.mesh @mesh = <["b"=4]>
func.func @main(%arg0: tensor<16x2xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"b"}, {}]>}) -> tensor<16x1xf32> {
  %0 = stablehlo.composite "my.first_column" %arg0 {decomposition = @first_column, sdy.sharding_rule = #sdy.op_sharding_rule<([i, j])->([i, k]) {i=16, j=2, k=1}>} : (tensor<16x2xf32>) -> tensor<16x1xf32>
  return %0 : tensor<16x1xf32>
}
func.func private @first_column(%arg0: tensor<16x2xf32>) -> tensor<16x1xf32> {
  %0 = stablehlo.slice %arg0 [0:16, 0:1] : (tensor<16x2xf32>) -> tensor<16x1xf32>
  return %0 : tensor<16x1xf32>
}
