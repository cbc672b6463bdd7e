func.func @cc(%a: tensor<8xf32>) -> tensor<8xf32> {
  %0 = stablehlo.custom_call @foo(%a) {api_version = 4 : i32, backend_config = "x"} : (tensor<8xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}
