// chlo ops lower to per-device programs (their results take local types
// like any other op's) and verify bit-exact against the global program.
// RUN: shard lower --verify %s -o %t/out.mlir
// ERR: @main: result #0: bit-exact on every device
// ERR: @main: result #1: bit-exact on every device
// ERR: @main: result #2: bit-exact on every device
sdy.mesh @mesh = <["x"=2]>
func.func @main(%arg0: tensor<4x6xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}]>}, %arg1: tensor<6xf32>) -> (tensor<4x6xf32>, tensor<4x2xf32>, tensor<4x2xi32>) {
  %0 = stablehlo.reduce_precision %arg0, format = e5m2 : tensor<4x6xf32>
  %1 = chlo.erf %0 : tensor<4x6xf32> -> tensor<4x6xf32>
  %2 = chlo.broadcast_add %1, %arg1 : (tensor<4x6xf32>, tensor<6xf32>) -> tensor<4x6xf32>
  %3 = chlo.lgamma %2 : tensor<4x6xf32> -> tensor<4x6xf32>
  %v, %i = chlo.top_k(%3, k = 2) : tensor<4x6xf32> -> (tensor<4x2xf32>, tensor<4x2xi32>)
  return %3, %v, %i : tensor<4x6xf32>, tensor<4x2xf32>, tensor<4x2xi32>
}
