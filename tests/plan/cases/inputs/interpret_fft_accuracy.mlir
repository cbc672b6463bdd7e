// An f64 RFFT of 17 points stays within 2 ULPs of the exact DFT (computed
// with 200-bit arithmetic from these inputs).
func.func @main() {
  %x = stablehlo.constant dense<[-1.0, -0.025, 0.95, -0.5, 0.475, -0.675, 0.0, 0.975, -0.175, 0.5, -0.65, 0.325, 1.0, -0.15, 0.825, -0.625, 0.35]> : tensor<17xf64>
  %r = stablehlo.fft %x, type = RFFT, length = [17] : (tensor<17xf64>) -> tensor<9xcomplex<f64>>
  %e = stablehlo.constant dense<[(1.6, 0.0), (-1.1625, 0.7771446979689474), (-1.1625, -0.35668106686134865), (-1.1625, -2.837280970966547), (-1.1625, 1.547874290536358), (-1.1625, -0.3264977563000525), (-1.1625, -0.38797489509873545), (-1.1625, 5.834188909825477), (-1.1625, 0.5671076333666011)]> : tensor<9xcomplex<f64>>
  check.expect_close %r, %e, max_ulp_difference = 2 : tensor<9xcomplex<f64>>, tensor<9xcomplex<f64>>
  func.return
}
