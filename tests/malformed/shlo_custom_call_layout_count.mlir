func.func @main(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = stablehlo.custom_call @foo(%a) {operand_layouts = [dense<[1, 0]> : tensor<2xindex>, dense<[1, 0]> : tensor<2xindex>], result_layouts = [dense<[1, 0]> : tensor<2xindex>]} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}
