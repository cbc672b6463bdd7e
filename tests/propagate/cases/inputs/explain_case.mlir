sdy.mesh @m = <["x"=2]>
func.func @main(%i: tensor<i32>, %a: tensor<8xf32> {sdy.sharding = #sdy.sharding<@m, [{"x"}]>}) -> tensor<8xf32> {
  %0 = "stablehlo.case"(%i) ({
    stablehlo.return %a : tensor<8xf32>
  }, {
    %1 = stablehlo.negate %a : tensor<8xf32>
    stablehlo.return %1 : tensor<8xf32>
  }) : (tensor<i32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}
