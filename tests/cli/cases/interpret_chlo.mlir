// The interpreter runs chlo ops. Expected values are the exact function
// values (mpmath, 50 digits) rounded to the element type: every f32 result
// is correctly rounded; f64 results are within 1e-14.
// RUN: shard interpret %s
func.func @main() {
  %x = stablehlo.constant dense<[0.25, 1.5, 3.0, -2.5, 7.0]> : tensor<5xf32>
  %y = stablehlo.constant dense<[0.25, 0.5, -0.75, 0.9990000128746033, 0.0]> : tensor<5xf32>
  %r_erf_inv = chlo.erf_inv %y : tensor<5xf32> -> tensor<5xf32>
  check.expect_eq_const %r_erf_inv, dense<[0.22531205415725708, 0.4769362807273865, -0.8134198188781738, 2.326756238937378, 0.0]> : tensor<5xf32>
  %r_lgamma = chlo.lgamma %x : tensor<5xf32> -> tensor<5xf32>
  check.expect_eq_const %r_lgamma, dense<[1.288022518157959, -0.12078224122524261, 0.6931471824645996, -0.056243717670440674, 6.579251289367676]> : tensor<5xf32>
  %r_digamma = chlo.digamma %x : tensor<5xf32> -> tensor<5xf32>
  check.expect_eq_const %r_digamma, dense<[-4.227453708648682, 0.036489974707365036, 0.9227843284606934, 1.1031566858291626, 1.8727843761444092]> : tensor<5xf32>
  %r_erf = chlo.erf %x : tensor<5xf32> -> tensor<5xf32>
  check.expect_eq_const %r_erf, dense<[0.27632638812065125, 0.9661051630973816, 0.9999778866767883, -0.9995930194854736, 1.0]> : tensor<5xf32>
  %r_erfc = chlo.erfc %x : tensor<5xf32> -> tensor<5xf32>
  check.expect_eq_const %r_erfc, dense<[0.7236735820770264, 0.0338948518037796, 2.2090496713644825e-05, 1.9995930194854736, 4.1838257316685907e-23]> : tensor<5xf32>
  %r_bessel_i1e = chlo.bessel_i1e %x : tensor<5xf32> -> tensor<5xf32>
  check.expect_eq_const %r_bessel_i1e, dense<[0.09811262786388397, 0.21903938055038452, 0.19682671129703522, -0.2065846472978592, 0.14228923618793488]> : tensor<5xf32>
  %r_asinh = chlo.asinh %x : tensor<5xf32> -> tensor<5xf32>
  check.expect_eq_const %r_asinh, dense<[0.24746645987033844, 1.19476318359375, 1.8184465169906616, -1.647231101989746, 2.644120693206787]> : tensor<5xf32>
  %r_cosh = chlo.cosh %x : tensor<5xf32> -> tensor<5xf32>
  check.expect_eq_const %r_cosh, dense<[1.0314130783081055, 2.352409601211548, 10.067662239074707, 6.132289409637451, 548.3170166015625]> : tensor<5xf32>
  %r_sinh = chlo.sinh %x : tensor<5xf32> -> tensor<5xf32>
  check.expect_eq_const %r_sinh, dense<[0.25261232256889343, 2.129279375076294, 10.017874717712402, -6.050204277038574, 548.3161010742188]> : tensor<5xf32>
  %r_tan = chlo.tan %x : tensor<5xf32> -> tensor<5xf32>
  check.expect_eq_const %r_tan, dense<[0.25534191727638245, 14.101420402526855, -0.14254654943943024, 0.747022271156311, 0.8714479804039001]> : tensor<5xf32>
  %za = stablehlo.constant dense<[2.0, 3.0, 4.5, 2.0, 3.0]> : tensor<5xf32>
  %zq = stablehlo.constant dense<[1.0, 2.0, 0.5, 10.0, 1.5]> : tensor<5xf32>
  %r_zeta = chlo.zeta %za, %zq : tensor<5xf32>, tensor<5xf32> -> tensor<5xf32>
  check.expect_eq_const %r_zeta, dense<[1.644934058189392, 0.2020568996667862, 22.810598373413086, 0.10516633838415146, 0.41439831256866455]> : tensor<5xf32>
  %pn = stablehlo.constant dense<[1.0, 2.0, 0.0, 3.0, 1.0]> : tensor<5xf32>
  %px = stablehlo.constant dense<[1.0, 3.0, 0.25, 1.5, 7.0]> : tensor<5xf32>
  %r_polygamma = chlo.polygamma %pn, %px : tensor<5xf32>, tensor<5xf32> -> tensor<5xf32>
  check.expect_eq_const %r_polygamma, dense<[1.644934058189392, -0.1541137993335724, -4.227453708648682, 1.4090909957885742, 0.15354517102241516]> : tensor<5xf32>
  %d = stablehlo.constant dense<[0.5, 1.0, 2.5, -0.5, 30.5]> : tensor<5xf64>
  %d_lgamma = chlo.lgamma %d : tensor<5xf64> -> tensor<5xf64>
  check.expect_almost_eq_const %d_lgamma, dense<[0.5723649429247001, 0.0, 0.2846828704729192, 1.2655121234846454, 72.9534711841694]> : tensor<5xf64>, tolerance = 1.0e-14
  %d_digamma = chlo.digamma %d : tensor<5xf64> -> tensor<5xf64>
  check.expect_almost_eq_const %d_digamma, dense<[-1.9635100260214235, -0.5772156649015329, 0.7031566406452432, 0.03648997397857652, 3.401243668961661]> : tensor<5xf64>, tolerance = 1.0e-14
  %d_bessel_i1e = chlo.bessel_i1e %d : tensor<5xf64> -> tensor<5xf64>
  check.expect_almost_eq_const %d_bessel_i1e, dense<[0.1564208031848717, 0.20791041534970844, 0.20658464953126657, -0.1564208031848717, 0.071339539285262]> : tensor<5xf64>, tolerance = 1.0e-14
  %d_erf = chlo.erf %d : tensor<5xf64> -> tensor<5xf64>
  check.expect_almost_eq_const %d_erf, dense<[0.5204998778130465, 0.8427007929497149, 0.999593047982555, -0.5204998778130465, 1.0]> : tensor<5xf64>, tolerance = 1.0e-14
  // top_k: descending total order (NaN first, +0 before -0), ties by index
  %t = stablehlo.constant dense<[[3.0, 0x7FC00000, 1.0, 3.0, -0.0], [0.0, -1.0, 0xFF800000, 2.0, 2.0]]> : tensor<2x5xf32>
  %tv, %ti = chlo.top_k(%t, k = 3) : tensor<2x5xf32> -> (tensor<2x3xf32>, tensor<2x3xi32>)
  check.expect_eq_const %ti, dense<[[1, 0, 3], [3, 4, 0]]> : tensor<2x3xi32>
  %tu = stablehlo.constant dense<[200, 7, 255, 7]> : tensor<4xui8>
  %tuv, %tui = chlo.top_k(%tu, k = 4) : tensor<4xui8> -> (tensor<4xui8>, tensor<4xi32>)
  check.expect_eq_const %tuv, dense<[255, 200, 7, 7]> : tensor<4xui8>
  check.expect_eq_const %tui, dense<[2, 0, 1, 3]> : tensor<4xi32>
  // broadcasting binary ops
  %a = stablehlo.constant dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi32>
  %b = stablehlo.constant dense<[10, 20]> : tensor<2xi32>
  %s = chlo.broadcast_add %a, %b {broadcast_dimensions = array<i64: 0>} : (tensor<2x3xi32>, tensor<2xi32>) -> tensor<2x3xi32>
  check.expect_eq_const %s, dense<[[11, 12, 13], [24, 25, 26]]> : tensor<2x3xi32>
  %c = stablehlo.constant dense<[1, 5, 3]> : tensor<3xi32>
  %m = chlo.broadcast_maximum %a, %c : (tensor<2x3xi32>, tensor<3xi32>) -> tensor<2x3xi32>
  check.expect_eq_const %m, dense<[[1, 5, 3], [4, 5, 6]]> : tensor<2x3xi32>
  %one_row = stablehlo.constant dense<[[2, 2, 2]]> : tensor<1x3xi32>
  %sub = chlo.broadcast_subtract %a, %one_row : (tensor<2x3xi32>, tensor<1x3xi32>) -> tensor<2x3xi32>
  check.expect_eq_const %sub, dense<[[-1, 0, 1], [2, 3, 4]]> : tensor<2x3xi32>
  %lt = chlo.broadcast_compare %a, %c {comparison_direction = #chlo<comparison_direction LT>} : (tensor<2x3xi32>, tensor<3xi32>) -> tensor<2x3xi1>
  check.expect_eq_const %lt, dense<[[false, true, false], [false, false, false]]> : tensor<2x3xi1>
  %p = stablehlo.constant dense<[true, false, true]> : tensor<3xi1>
  %sel = chlo.broadcast_select %p, %a, %c : (tensor<3xi1>, tensor<2x3xi32>, tensor<3xi32>) -> tensor<2x3xi32>
  check.expect_eq_const %sel, dense<[[1, 5, 3], [4, 5, 6]]> : tensor<2x3xi32>
  // next_after in the element type's own format
  %one = stablehlo.constant dense<1.0> : tensor<f32>
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %n = chlo.next_after %one, %zero : tensor<f32>, tensor<f32> -> tensor<f32>
  check.expect_eq_const %n, dense<0.99999994> : tensor<f32>
  %h1 = stablehlo.constant dense<[1.0, 0.0, 65504.0, 0x7C00]> : tensor<4xf16>
  %h2 = stablehlo.constant dense<[2.0, -1.0, 0x7C00, 0.0]> : tensor<4xf16>
  %hn = chlo.next_after %h1, %h2 : tensor<4xf16>, tensor<4xf16> -> tensor<4xf16>
  check.expect_eq_const %hn, dense<[1.0009765625, -5.9604644775390625E-8, 0x7C00, 65504.0]> : tensor<4xf16>
  // mulhi: the high half of the double-width product
  %u1 = stablehlo.constant dense<[240, 128]> : tensor<2xui8>
  %u2 = stablehlo.constant dense<[16, 2]> : tensor<2xui8>
  %hi = "chlo.mulhi"(%u1, %u2) : (tensor<2xui8>, tensor<2xui8>) -> tensor<2xui8>
  check.expect_eq_const %hi, dense<[15, 1]> : tensor<2xui8>
  %s1 = stablehlo.constant dense<[64, -64, -64]> : tensor<3xi8>
  %s2 = stablehlo.constant dense<[4, 4, -4]> : tensor<3xi8>
  %shi = "chlo.mulhi"(%s1, %s2) : (tensor<3xi8>, tensor<3xi8>) -> tensor<3xi8>
  check.expect_eq_const %shi, dense<[1, -1, 1]> : tensor<3xi8>
  // constants, predicates, conj, square
  %kl = "chlo.constant_like"(%x) {value = 7.0 : f32} : (tensor<5xf32>) -> tensor<5xf32>
  check.expect_eq_const %kl, dense<7.0> : tensor<5xf32>
  %k = chlo.constant dense<[1.5, 2.5]> : tensor<2xf32>
  %sq = chlo.square %k : tensor<2xf32> -> tensor<2xf32>
  check.expect_eq_const %sq, dense<[2.25, 6.25]> : tensor<2xf32>
  %inf = chlo.is_pos_inf %h2 : tensor<4xf16> -> tensor<4xi1>
  check.expect_eq_const %inf, dense<[false, false, true, false]> : tensor<4xi1>
  %z = stablehlo.constant dense<[(1.0, 2.0), (-3.0, 0.5)]> : tensor<2xcomplex<f32>>
  %zc = chlo.conj %z : tensor<2xcomplex<f32>> -> tensor<2xcomplex<f32>>
  check.expect_eq_const %zc, dense<[(1.0, -2.0), (-3.0, -0.5)]> : tensor<2xcomplex<f32>>
  // ragged_dot, ragged non-contracting: rows [0, 1) meet rhs[0], rows [1, 3)
  // rhs[1], row 3 is in no group
  %rl = stablehlo.constant dense<[[1, 2], [3, 4], [5, 6], [7, 8]]> : tensor<4x2xi32>
  %rr = stablehlo.constant dense<[[[1, 0, 0], [0, 1, 0]], [[1, 1, 1], [2, 2, 2]]]> : tensor<2x2x3xi32>
  %rg = stablehlo.constant dense<[1, 2]> : tensor<2xi64>
  %rd = "chlo.ragged_dot"(%rl, %rr, %rg) {ragged_dot_dimension_numbers = #chlo.ragged_dot<lhs_batching_dimensions = [], rhs_batching_dimensions = [], lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]>} : (tensor<4x2xi32>, tensor<2x2x3xi32>, tensor<2xi64>) -> tensor<4x3xi32>
  check.expect_eq_const %rd, dense<[[1, 2, 0], [11, 11, 11], [17, 17, 17], [0, 0, 0]]> : tensor<4x3xi32>
  // ragged contracting: group 0 contracts k in [0, 2), group 1 k in [2, 3)
  %cl = stablehlo.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  %cr = stablehlo.constant dense<[[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]> : tensor<3x2xf32>
  %cg = stablehlo.constant dense<[2, 1]> : tensor<2xi32>
  %cd = "chlo.ragged_dot"(%cl, %cr, %cg) {ragged_dot_dimension_numbers = #chlo.ragged_dot<lhs_batching_dimensions = [], rhs_batching_dimensions = [], lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0], lhs_ragged_dimensions = [1], rhs_group_dimensions = []>} : (tensor<2x3xf32>, tensor<3x2xf32>, tensor<2xi32>) -> tensor<2x2x2xf32>
  check.expect_eq_const %cd, dense<[[[1.0, 2.0], [4.0, 5.0]], [[3.0, 3.0], [6.0, 6.0]]]> : tensor<2x2x2xf32>
  func.return
}
