// An op of a dialect shard does not know that has no operands: a sharding
// rule needs at least one operand and one result, so a rules file cannot
// give it one.
module {
  sdy.mesh @mesh = <["x"=2]>
  func.func @main(%arg0: tensor<8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}]>}) -> tensor<8xf32> {
    %0 = "mydialect.iota"() : () -> tensor<8xf32>
    %1 = stablehlo.add %arg0, %0 : tensor<8xf32>
    return %1 : tensor<8xf32>
  }
}
