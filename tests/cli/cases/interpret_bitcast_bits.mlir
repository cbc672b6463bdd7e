// bitcast_convert lays the operand's elements end to end as one bit string,
// least significant bit first (a complex number: real part, then imaginary
// part), and reads the result's elements back from it, whatever the widths:
// i1 and 4-bit elements included.
// RUN: shard interpret %s
// ERR: 9 checks passed
func.func @main() {
  // 1,0,1,1 then zeros: bits 0, 2 and 3 of the byte
  %b = stablehlo.constant dense<[true, false, true, true, false, false, false, false]> : tensor<8xi1>
  %u = stablehlo.bitcast_convert %b : (tensor<8xi1>) -> tensor<ui8>
  check.expect_eq_const %u, dense<13> : tensor<ui8>
  %back = stablehlo.bitcast_convert %u : (tensor<ui8>) -> tensor<8xi1>
  check.expect_eq_const %back, dense<[true, false, true, true, false, false, false, false]> : tensor<8xi1>
  // two nibbles: the first is the low one (3 + 10 * 16)
  %n = stablehlo.constant dense<[3, 10]> : tensor<2xui4>
  %nb = stablehlo.bitcast_convert %n : (tensor<2xui4>) -> tensor<ui8>
  check.expect_eq_const %nb, dense<163> : tensor<ui8>
  // i8 -1 is eight ones; i4 elements of 0xF are -1
  %m = stablehlo.constant dense<[-1, 16]> : tensor<2xi8>
  %mb = stablehlo.bitcast_convert %m : (tensor<2xi8>) -> tensor<2x2xi4>
  check.expect_eq_const %mb, dense<[[-1, -1], [0, 1]]> : tensor<2x2xi4>
  // f4E2M1FN: 1.0 is 0b0010, -0.5 is 0b1001 (a subnormal): 0x92
  %q = stablehlo.constant dense<[1.0, -0.5]> : tensor<2xf4E2M1FN>
  %qb = stablehlo.bitcast_convert %q : (tensor<2xf4E2M1FN>) -> tensor<ui8>
  check.expect_eq_const %qb, dense<146> : tensor<ui8>
  %bits = stablehlo.constant dense<[false, true, false, false]> : tensor<4xi1>
  %one = stablehlo.bitcast_convert %bits : (tensor<4xi1>) -> tensor<f4E2M1FN>
  check.expect_eq_const %one, dense<1.0> : tensor<f4E2M1FN>
  // complex<f32> (1.0, -2.0): 0x3F800000 low, 0xC0000000 high
  %c = stablehlo.constant dense<(1.0, -2.0)> : tensor<complex<f32>>
  %cb = stablehlo.bitcast_convert %c : (tensor<complex<f32>>) -> tensor<ui64>
  check.expect_eq_const %cb, dense<13835058056347516928> : tensor<ui64>
  // two complex<f32> make one complex<f64>: the first is its real part
  %cc = stablehlo.constant dense<[(1.0, -2.0), (0.5, 0.0)]> : tensor<2xcomplex<f32>>
  %w = stablehlo.bitcast_convert %cc : (tensor<2xcomplex<f32>>) -> tensor<complex<f64>>
  %wb = stablehlo.bitcast_convert %w : (tensor<complex<f64>>) -> tensor<2xui64>
  check.expect_eq_const %wb, dense<[13835058056347516928, 1056964608]> : tensor<2xui64>
  // and back
  %cw = stablehlo.bitcast_convert %w : (tensor<complex<f64>>) -> tensor<2xcomplex<f32>>
  check.expect_eq_const %cw, dense<[(1.0, -2.0), (0.5, 0.0)]> : tensor<2xcomplex<f32>>
  func.return
}
