
sdy.mesh @mesh = <["x"=2, "y"=2]>

func.func @constant_adds_unreduced() -> tensor<8x8xf32> {
  %0 = "sdy.constant"() <{vaule = dense<1.000000e+00> : tensor<8x8xf32>}> {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"x"}, {}], unreduced={"y"}>]>} : () -> tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}

