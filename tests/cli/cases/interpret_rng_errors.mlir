// rng_bit_generator with DEFAULT (the implementation's choice) and the old
// stablehlo.rng are located errors; rng with the reference interpreter's
// words.
// RUN: not shard interpret -split-input-file %s
// ERR: interpret_rng_errors.mlir:10:3: error: 'stablehlo.rng_bit_generator' with DEFAULT: the spec leaves that algorithm to the implementation (XLA's CPU and GPU backends use PHILOX); write THREE_FRY or PHILOX
// ERR: interpret_rng_errors.mlir:20:3: error: Operation stablehlo.rng is unsupported at the moment. However, this operation can be decomposed into supported operations, so it is possible to transform it into supported form as a workaround. Visit https://github.com/openxla/stablehlo/issues/1571 to learn more about the workaround and the roadmap for supporting this operation.
// ERR: interpret_rng_errors.mlir:28:3: error: PHILOX needs a state of two or three ui64, not tensor<4xui64>
func.func @main() {
  %s = stablehlo.constant dense<[0, 0]> : tensor<2xui64>
  %n, %o = stablehlo.rng_bit_generator %s, algorithm = DEFAULT : (tensor<2xui64>) -> (tensor<2xui64>, tensor<4xui32>)
  func.return
}

// -----

func.func @main() {
  %a = stablehlo.constant dense<0.0> : tensor<f32>
  %b = stablehlo.constant dense<1.0> : tensor<f32>
  %shape = stablehlo.constant dense<[2, 3]> : tensor<2xi64>
  %r = stablehlo.rng %a, %b, %shape, distribution = UNIFORM : (tensor<f32>, tensor<f32>, tensor<2xi64>) -> tensor<2x3xf32>
  func.return
}

// -----

func.func @main() {
  %s = stablehlo.constant dense<[0, 0, 0, 0]> : tensor<4xui64>
  %n, %o = stablehlo.rng_bit_generator %s, algorithm = PHILOX : (tensor<4xui64>) -> (tensor<4xui64>, tensor<4xui32>)
  func.return
}
