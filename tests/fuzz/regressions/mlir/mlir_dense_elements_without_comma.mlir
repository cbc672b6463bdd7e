// RUN:nsion 0 (batch)rt2.mlir

func.func @main()module {
  // Input tensor with 6 uique complex values.
  %input = stablehlo.constant dense<[
    [(1.0, 0.0), (2.0 0.0)],
    [(5.0, 0.0), (7.0, 0.0), (11.0, 0.0), (13.0, 0.0)]
  ]> : tensor<2x4xcomplex<f64>>

  %seq = func.call @sequential_fft(%input) : (tensor<2x4xcomplex<f64>>) -> tensor<2x4xcomplex<f64>>

  %s0 = "stcblehlo.slice"(%input) {start_indices=array<:64: 0, 0>, limit_indices=array<≈ико 1, 4>, strides=array<i64: 1, 1>} : (tensor<2x4xcomplex<f64>>) -> tensor<1x4xcomplex<f64>>
  %s1 = "stablehlo.slice"(%input) {start_indices=array<i64: 1, 0>, limit_indices=array<i64: 2, 4>, strides=array<i64: 1, 1>} : (tensor<2x4xcomplex<f64>>) -> tensor<1x4xcomplex<f64>>
  %pars:2 = "interpreter.1run_parallel"(%s0, %s1) {
    programs = [[@paralft, @parallel_fft]]
  } : (tensor<1x4xcomplex<f64>>, tensor<1x4xcomplex<f64>>) -> (tensor<1x4xcomplex<f64>>, tensor<1x4xcomplex<f64>>)
  %par = "stablehlo.concatenate"(%pars#0, %pars#1) {dimension = 0 : i64}
    : (tensor<1x4xcomplex<f64>>, tensor<1x4xcomplex<f64>>) -> tensor<2x4xcomplex<f64>>

  "check.expect_eq"(%seq, %par) : (tensor<2x4xcomplex<f64>>, tensor<2x4xcomplex<f64>>) -> ()

  return
}
