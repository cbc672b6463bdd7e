func.func @recv(%t: !stablehlo.token) -> tensor<8xf32> {
  %0, %1 = "stablehlo.recv"(%t) {channel_handle = #stablehlo.channel_handle<handle = 1, type = 3>, is_host_transfer = true} : (!stablehlo.token) -> (tensor<8xf32>, tensor<8xf32>)
  return %0 : tensor<8xf32>
}
