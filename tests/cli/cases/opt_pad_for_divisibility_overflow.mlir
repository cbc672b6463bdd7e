// A dimension its sharding does not divide whose padded size would not fit
// in 64 bits is a located error, not a wrapped size.
// RUN: not shard opt %s -sdy-pad-for-divisibility
// ERR: opt_pad_for_divisibility_overflow.mlir:7:3: error: 'stablehlo.negate' op result 0 dimension 0 of size 9223372036854775807 cannot be padded to a multiple of 2: the padded size does not fit in 64 bits
sdy.mesh @m = <["x"=2]>
func.func @main(%a: tensor<9223372036854775807xf32>) -> tensor<9223372036854775807xf32> {
  %0 = stablehlo.negate %a {sdy.sharding = #sdy.sharding_per_value<[<@m, [{"x"}]>]>} : tensor<9223372036854775807xf32>
  return %0 : tensor<9223372036854775807xf32>
}
