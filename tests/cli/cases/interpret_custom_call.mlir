// A custom call the interpreter cannot run is a located error naming its target.
// RUN: not shard interpret %s
// ERR: interpret_custom_call.mlir:7:3: error: the interpreter does not support custom_call @my_kernel
func.func @main() -> tensor<f32> {
  %0 = stablehlo.constant dense<1.0> : tensor<f32>
  // the next line is 7
  %1 = stablehlo.custom_call @my_kernel(%0) : (tensor<f32>) -> tensor<f32>
  return %1 : tensor<f32>
}
