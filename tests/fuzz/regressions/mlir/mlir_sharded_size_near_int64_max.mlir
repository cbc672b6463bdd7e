sdy.mesh @m = <["a"=9223372036854775807]>
func.func @f(%arg0: tensor<16xf32> {sdy.sharding = #sdy.sharding<@m, [{"a"}]>}) -> tensor<16xf32> {
  return %arg0 : tensor<16xf32>
}
