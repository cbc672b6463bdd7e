// A dimension near INT64_MAX: its local size is a ceiling division that must
// not overflow ((d + n - 1) / n printed a negative dimension).
// RUN: shard opt %s -sdy-convert-global-to-local
// CHECK: func.func @main(%arg0: tensor<3074457345618258602xf32> {sdy.sharding = #sdy.sharding<@m, [{"x"}]>}) -> (tensor<3074457345618258602xf32>
sdy.mesh @m = <["x"=3]>
func.func @main(%a: tensor<9223372036854775806xf32> {sdy.sharding = #sdy.sharding<@m, [{"x"}]>}) -> (tensor<9223372036854775806xf32> {sdy.sharding = #sdy.sharding<@m, [{"x"}]>}) {
  return %a : tensor<9223372036854775806xf32>
}
