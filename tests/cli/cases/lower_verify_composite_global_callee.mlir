// A composite whose decomposition stays global in the per-device program
// (the op has no sharding rule, so its operand is given whole to the
// region at the local shape): lower --verify stops with a located error
// instead of slicing out of bounds (it used to exit by SIGSEGV).
// RUN: not shard lower --verify %s 2> %t/e
// RUN: cat %t/e
// CHECK: error: argument 0 is a tensor<4x2xf32> where the region takes a tensor<16x2xf32>
sdy.mesh @mesh = <["b"=4]>
func.func @main(%arg0: tensor<16x2xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"b"}, {}]>}) -> tensor<16x1xf32> {
  %0 = stablehlo.composite "my.first_column" %arg0 {decomposition = @first_column} : (tensor<16x2xf32>) -> tensor<16x1xf32>
  return %0 : tensor<16x1xf32>
}
func.func private @first_column(%arg0: tensor<16x2xf32>) -> tensor<16x1xf32> {
  %0 = stablehlo.slice %arg0 [0:16, 0:1] : (tensor<16x2xf32>) -> tensor<16x1xf32>
  return %0 : tensor<16x1xf32>
}
