// A bf16 sum over the sharded dim (its partial sums added across devices in
// another order) goes through exp: the bound of the reordering is carried
// through exp (slope exp(max + b)) instead of demanding the same bits.
module @m attributes {mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["x"=4]>
  func.func public @main(%arg0: tensor<8x64xbf16> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"x"}]>}) -> (tensor<8xbf16> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}) {
    %c = stablehlo.constant dense<0.1> : tensor<8x64xbf16>
    %m = stablehlo.multiply %arg0, %c : tensor<8x64xbf16>
    %z = stablehlo.constant dense<0.0> : tensor<bf16>
    %r = stablehlo.reduce(%m init: %z) applies stablehlo.add across dimensions = [1] : (tensor<8x64xbf16>, tensor<bf16>) -> tensor<8xbf16>
    %e = stablehlo.exponential %r : tensor<8xbf16>
    return %e : tensor<8xbf16>
  }
}
