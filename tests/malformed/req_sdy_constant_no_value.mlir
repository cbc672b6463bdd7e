func.func @f() -> tensor<2xf32> {
  %0 = "sdy.constant"() <{vaule = dense<1.0> : tensor<2xf32>}> : () -> tensor<2xf32>
  return %0 : tensor<2xf32>
}
