// rng_bit_generator with XLA's PHILOX and THREE_FRY (the spec leaves the
// bits to the implementation; stablehlo-translate runs neither). PHILOX is
// Random123's Philox-4x32-10: its known-answer vectors, given out
// round-robin; THREE_FRY's 32-bit outputs pair the two words of each block
// along the halved first even dimension, as XLA's SplitShapeIntoHalves does.
// RUN: shard interpret %s
// ERR: 14 checks passed
func.func @main() {
  // Random123 kat_vectors: philox4x32_10 with counter 0 and key 0 ...
  %s0 = stablehlo.constant dense<[0, 0, 0]> : tensor<3xui64>
  %n0, %o0 = stablehlo.rng_bit_generator %s0, algorithm = PHILOX : (tensor<3xui64>) -> (tensor<3xui64>, tensor<4xui32>)
  check.expect_eq_const %o0, dense<[0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8]> : tensor<4xui32>
  check.expect_eq_const %n0, dense<[0, 1, 0]> : tensor<3xui64>
  // ... with every bit set (the counter's 128 bits wrap to 0) ...
  %s1 = stablehlo.constant dense<[18446744073709551615, 18446744073709551615, 18446744073709551615]> : tensor<3xui64>
  %n1, %o1 = stablehlo.rng_bit_generator %s1, algorithm = PHILOX : (tensor<3xui64>) -> (tensor<3xui64>, tensor<4xui32>)
  check.expect_eq_const %o1, dense<[0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd]> : tensor<4xui32>
  check.expect_eq_const %n1, dense<[18446744073709551615, 0, 0]> : tensor<3xui64>
  // ... and with the digits of pi (key 0x299f31d0a4093822, counter
  // 0x0370734413198a2e_85a308d3243f6a88)
  %s2 = stablehlo.constant dense<[2999170649027065890, 9629550131187509896, 247824715720788526]> : tensor<3xui64>
  %n2, %o2 = stablehlo.rng_bit_generator %s2, algorithm = PHILOX : (tensor<3xui64>) -> (tensor<3xui64>, tensor<4xui32>)
  check.expect_eq_const %o2, dense<[0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1]> : tensor<4xui32>
  // 64-bit outputs join words 0, 1 and 2, 3 (low first)
  %n3, %o3 = stablehlo.rng_bit_generator %s0, algorithm = PHILOX : (tensor<3xui64>) -> (tensor<3xui64>, tensor<2xui64>)
  check.expect_eq_const %o3, dense<[16242730742183356629, 11169168799798111308]> : tensor<2xui64>
  // a u64[2] state: the counter's high half is the key, and only its low
  // half is kept (all ones again: the second vector)
  %s4 = stablehlo.constant dense<[18446744073709551615, 18446744073709551615]> : tensor<2xui64>
  %n4, %o4 = stablehlo.rng_bit_generator %s4, algorithm = PHILOX : (tensor<2xui64>) -> (tensor<2xui64>, tensor<4xui32>)
  check.expect_eq_const %o4, dense<[0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd]> : tensor<4xui32>
  check.expect_eq_const %n4, dense<[18446744073709551615, 0]> : tensor<2xui64>
  // the counter carries into its high half between blocks: the second block
  // of counter 2^64 - 1 is the first of counter 2^64
  %s5 = stablehlo.constant dense<[7, 18446744073709551615, 0]> : tensor<3xui64>
  %n5, %o5 = stablehlo.rng_bit_generator %s5, algorithm = PHILOX : (tensor<3xui64>) -> (tensor<3xui64>, tensor<6xui32>)
  check.expect_eq_const %n5, dense<[7, 1, 1]> : tensor<3xui64>
  %s6 = stablehlo.constant dense<[7, 0, 1]> : tensor<3xui64>
  %n6, %o6 = stablehlo.rng_bit_generator %s6, algorithm = PHILOX : (tensor<3xui64>) -> (tensor<3xui64>, tensor<2xui32>)
  %o5b = stablehlo.slice %o5 [4:6] : (tensor<6xui32>) -> tensor<2xui32>
  check.expect_eq %o5b, %o6 : tensor<2xui32>
  // THREE_FRY: a 2x3 ui32 output halves dimension 0; block h (the counter
  // plus h) gives row 0 its low word and row 1 its high word at column h,
  // the words of the 64-bit output of the same state
  %t = stablehlo.constant dense<[5, 100]> : tensor<2xui64>
  %tn, %t32 = stablehlo.rng_bit_generator %t, algorithm = THREE_FRY : (tensor<2xui64>) -> (tensor<2xui64>, tensor<2x3xui32>)
  %tm, %t64 = stablehlo.rng_bit_generator %t, algorithm = THREE_FRY : (tensor<2xui64>) -> (tensor<2xui64>, tensor<3xui64>)
  %words = stablehlo.bitcast_convert %t64 : (tensor<3xui64>) -> tensor<3x2xui32>
  %rows = stablehlo.transpose %words, dims = [1, 0] : (tensor<3x2xui32>) -> tensor<2x3xui32>
  check.expect_eq %t32, %rows : tensor<2x3xui32>
  check.expect_eq_const %tn, dense<[5, 103]> : tensor<2xui64>
  check.expect_eq_const %tm, dense<[5, 103]> : tensor<2xui64>
  // a 16-bit output is the low half of the 32-bit one of its shape
  %tn16, %t16 = stablehlo.rng_bit_generator %t, algorithm = THREE_FRY : (tensor<2xui64>) -> (tensor<2xui64>, tensor<2x3xui16>)
  %t32c = stablehlo.convert %t32 : (tensor<2x3xui32>) -> tensor<2x3xui16>
  check.expect_eq %t16, %t32c : tensor<2x3xui16>
  func.return
}
