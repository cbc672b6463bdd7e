// A loop whose condition depends on the input: with the pseudo-random inputs
// of --verify (integers in [-4, 4]) it never reaches 100 and never ends.
module @jit_loop attributes {mhlo.num_partitions = 2 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["x"=2]>
  func.func public @main(%arg0: tensor<i32>, %arg1: tensor<8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}]>}) -> (tensor<i32>, tensor<8xf32>) {
    %c = stablehlo.constant dense<100> : tensor<i32>
    %0 = stablehlo.while(%i = %arg0) : tensor<i32>
     cond {
      %1 = stablehlo.compare NE, %i, %c : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %1 : tensor<i1>
    } do {
      stablehlo.return %i : tensor<i32>
    }
    %2 = stablehlo.abs %arg1 : tensor<8xf32>
    return %0, %2 : tensor<i32>, tensor<8xf32>
  }
}
