func.func @cc2(%a: tensor<8xf32>) -> tensor<8xf32> {
  %0 = stablehlo.custom_call @foo(%a) {api_version = 9 : i32} : (tensor<8xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}
