func.func @f() -> tensor<2xf32> {
  %0 = stablehlo.constant dense<1.0> : tensor<2xf32>
}
