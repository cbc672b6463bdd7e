// What the interpreter does not run on quantized values is a located error,
// never a crash: ops with regions, and the approximate checks.
// RUN: not shard interpret -split-input-file %s
// ERR: interpret_quant_unsupported.mlir:[[@LINE+6]]:3: error: the interpreter does not support 'stablehlo.reduce' on quantized values
// ERR: interpret_quant_unsupported.mlir:[[@LINE+13]]:3: error: check.expect_almost_eq_const: unsupported element type: !quant.uniform<i8:f32, 5.000000e-01:1>

func.func @main() {
  %c = stablehlo.constant dense<[[1, 3], [5, 7]]> : tensor<2x2x!quant.uniform<i8:f32, 0.5:1>>
  %z = stablehlo.constant dense<1> : tensor<!quant.uniform<i8:f32, 0.5:1>>
  %s = stablehlo.reduce(%c init: %z) applies stablehlo.add across dimensions = [0] : (tensor<2x2x!quant.uniform<i8:f32, 0.5:1>>, tensor<!quant.uniform<i8:f32, 0.5:1>>) -> tensor<2x!quant.uniform<i8:f32, 0.5:1>>
  func.return
}

// -----

func.func @main() {
  %c = stablehlo.constant dense<[1, 3]> : tensor<2x!quant.uniform<i8:f32, 0.5:1>>
  check.expect_almost_eq_const %c, dense<[1, 3]> : tensor<2x!quant.uniform<i8:f32, 0.5:1>>
  func.return
}
