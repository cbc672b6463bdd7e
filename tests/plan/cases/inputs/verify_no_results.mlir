// A function without results, whose arguments are of the narrow float
// formats: --verify feeds them deterministic values of each format and runs
// both programs.
module @m attributes {mhlo.num_partitions = 2 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["x"=2]>
  func.func public @main(%arg0: tensor<8xf8E4M3FN> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}]>}, %arg1: tensor<4xf8E8M0FNU>) {
    %0 = stablehlo.add %arg0, %arg0 : tensor<8xf8E4M3FN>
    return
  }
}
