// expect_close allows 3 ULPs of the element type: 4 f16 steps apart fails,
// with the ULP difference counted in f16 and the statistics of StableHLO.
// RUN: shard interpret %s
// EXIT: 1
// ERR: interpret_check_ulps.mlir:[[@LINE+5]]:3: error: check.expect_close failed: element [1] is 1.00390625, expected 1 (ULP difference 4 in f16, allowed 0..3); 1 of 2 elements differ; ULP difference == 0: 1, 1: 0, 2: 0, 3: 0, >= 4: 1
// ERR-NOT: checks passed
func.func @main() {
  %0 = stablehlo.constant dense<[1.0, 1.0]> : tensor<2xf16>
  %1 = stablehlo.constant dense<[1.0, 1.00390625]> : tensor<2xf16>
  stablehlo.custom_call @check.expect_close(%1, %0) {has_side_effect = true} : (tensor<2xf16>, tensor<2xf16>) -> ()
  func.return
}
