// The narrow float formats round every step to nearest-even in their own
// precision, and overflow the way each format defines.
func.func @main() {
  // 0+1+4+9+16+25+36+49: 55 rounds to 56, 56+36 = 92 to 96, 96+49 = 145 to 144
  %0 = stablehlo.constant dense<[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0]> : tensor<8xf8E4M3>
  %1 = stablehlo.dot_general %0, %0, contracting_dims = [0] x [0] : (tensor<8xf8E4M3>, tensor<8xf8E4M3>) -> tensor<f8E4M3>
  check.expect_eq_const %1, dense<144.0> : tensor<f8E4M3>
  %2 = stablehlo.constant dense<[0.1, 300.0, 460.0, 470.0, -1.0e9]> : tensor<5xf32>
  // IEEE f8E5M2 has infinities; f8E4M3FN overflows to NaN (its 0x7F);
  // f4E2M1FN has neither and saturates at 6
  %3 = stablehlo.convert %2 : (tensor<5xf32>) -> tensor<5xf8E5M2>
  check.expect_eq_const %3, dense<[0.09375, 320.0, 448.0, 448.0, 0xFC]> : tensor<5xf8E5M2>
  %4 = stablehlo.convert %2 : (tensor<5xf32>) -> tensor<5xf8E4M3FN>
  // (check.expect_eq compares as IEEE ==, as StableHLO's does: NaN never
  // equals NaN, so the NaNs are found by x != x)
  %4a = stablehlo.slice %4 [0:3] : (tensor<5xf8E4M3FN>) -> tensor<3xf8E4M3FN>
  check.expect_eq_const %4a, dense<[0.1015625, 288.0, 448.0]> : tensor<3xf8E4M3FN>
  %4n = stablehlo.compare NE, %4, %4, FLOAT : (tensor<5xf8E4M3FN>, tensor<5xf8E4M3FN>) -> tensor<5xi1>
  check.expect_eq_const %4n, dense<[false, false, false, true, true]> : tensor<5xi1>
  %5 = stablehlo.convert %2 : (tensor<5xf32>) -> tensor<5xf4E2M1FN>
  check.expect_eq_const %5, dense<[0.0, 6.0, 6.0, 6.0, -6.0]> : tensor<5xf4E2M1FN>
  // FNUZ formats have no -0
  %6 = stablehlo.constant dense<-0.0> : tensor<f8E5M2FNUZ>
  %7 = stablehlo.constant dense<0x00> : tensor<f8E5M2FNUZ>
  %8 = stablehlo.compare EQ, %6, %7, TOTALORDER : (tensor<f8E5M2FNUZ>, tensor<f8E5M2FNUZ>) -> tensor<i1>
  check.expect_eq_const %8, dense<true> : tensor<i1>
  // i1 whole-buffer hex is packed, first element in the lowest bit
  %9 = stablehlo.constant dense<"0x0D"> : tensor<5xi1>
  check.expect_eq_const %9, dense<[true, false, true, true, false]> : tensor<5xi1>
  // f64 to ui64 above INT64_MAX
  %12 = stablehlo.constant dense<1.5e19> : tensor<f64>
  %13 = stablehlo.convert %12 : (tensor<f64>) -> tensor<ui64>
  check.expect_eq_const %13, dense<15000000000000000000> : tensor<ui64>
  // a splat of a tensor without elements
  %10 = stablehlo.constant dense<1.0> : tensor<0x3xbf16>
  %11 = stablehlo.add %10, %10 : tensor<0x3xbf16>
  func.return
}
