sdy.mesh @m = <["x"=2]>
func.func private @ext(%a: tensor<8xf32>) -> tensor<8xf32>
func.func @g(%a: tensor<8xf32> {sdy.sharding = #sdy.sharding<@m, [{"x"}]>}) -> tensor<8xf32> {
  %0 = stablehlo.add %a, %a : tensor<8xf32>
  return %0 : tensor<8xf32>
}
