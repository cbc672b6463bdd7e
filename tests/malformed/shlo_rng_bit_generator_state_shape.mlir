func.func @main(%a: tensor<2xui64>) -> tensor<4xui32> {
  %0, %1 = stablehlo.rng_bit_generator %a, algorithm = DEFAULT : (tensor<2xui64>) -> (tensor<3xui64>, tensor<4xui32>)
  return %1 : tensor<4xui32>
}
