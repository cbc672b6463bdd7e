func.func @f() -> tensor<2xf32> {
  %0 = stablehlo.constant dense<[1.0, 2/o/]> : tensor<2xf32>
  return %0 : tensor<2xf32>
}
