sdy.mesh @mesh = <["a"=2, "b"=2]>
func.func @f(%arg0: tensor<i32>, %arg1: tensor<8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"a"}]>}, %arg2: tensor<8xf32>) -> tensor<8xf32> {
  %0 = "stablehlo.case"(%arg0) ({
    stablehlo.return %arg1 : tensor<8xf32>
  }, {
    stablehlo.return %arg2 : tensor<8xf32>
  }) : (tensor<i32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}
