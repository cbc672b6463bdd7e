// exp makes the values non-integers before a contraction sharded over "x":
// each device sums its quarter and the all_reduce adds the four partial sums,
// in another order than the global dot_general. --verify allows the derived
// rounding bound of that reordering, carried through the bias add.
module @jit_exp_matmul attributes {mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["x"=4]>
  func.func public @main(%arg0: tensor<8x64xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"x"}]>}, %arg1: tensor<64x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}]>}, %arg2: tensor<8xf32>) -> (tensor<8x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}) {
    %0 = stablehlo.exponential %arg0 : tensor<8x64xf32>
    %1 = stablehlo.dot_general %0, %arg1, contracting_dims = [1] x [0] : (tensor<8x64xf32>, tensor<64x8xf32>) -> tensor<8x8xf32>
    %2 = stablehlo.broadcast_in_dim %arg2, dims = [1] : (tensor<8xf32>) -> tensor<8x8xf32>
    %3 = stablehlo.add %1, %2 : tensor<8x8xf32>
    return %3 : tensor<8x8xf32>
  }
}
