// A float sum across devices (the contraction is sharded over "x") followed
// by power, which has no rounding-bound rule: the per-device result may
// differ from the global one in its last bits and nothing bounds by how
// much, so the function is "not verified" -- not reported as differing
// (found by fuzz_lower_verify, whose oracle forbids "differs" on a valid
// module).
// RUN: not shard lower --verify %s -o %t/out.mlir
// ERR: @main: not verified (result #0 went through an op without a rounding bound after a float sum across devices; device {{[0-9]+}} gives {{.*}}, the global program {{.*}})
// ERR: shard lower: --verify: no function could be verified
sdy.mesh @mesh = <["x"=4]>
func.func public @main(%arg0: tensor<8x64xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"x"}]>}, %arg1: tensor<64x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}]>}, %arg2: tensor<8xf32>) -> (tensor<8x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}) {
  %0 = stablehlo.exponential %arg0 : tensor<8x64xf32>
  %1 = stablehlo.dot_general %0, %arg1, contracting_dims = [1] x [0] : (tensor<8x64xf32>, tensor<64x8xf32>) -> tensor<8x8xf32>
  %2 = stablehlo.broadcast_in_dim %arg2, dims = [1] : (tensor<8xf32>) -> tensor<8x8xf32>
  %3 = stablehlo.power %1, %2 : tensor<8x8xf32>
  return %3 : tensor<8x8xf32>
}
