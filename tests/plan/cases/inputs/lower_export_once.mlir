// Input of lower_export_once.test: something for every clean-up step of the
// export that shard lower runs once instead of twice (data-flow edges of a
// while, a sharding group, a sharding constraint, a result sharding that
// does not divide its dimension), constants that the import turns into
// sdy.constant and the canonicalization deduplicates, and a dot_general
// whose operand needs collectives.
sdy.mesh @mesh = <["x"=2, "y"=2]>

func.func @main(%arg0: tensor<8x6xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x", "y"}, {}]>},
                %arg1: tensor<6x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"y"}]>})
    -> (tensor<8x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {"y"}]>},
        tensor<8x6xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"x", "y"}]>}) {
  %c0 = stablehlo.constant {sdy.sharding = #sdy.sharding_per_value<[<@mesh, []>]>} dense<1.0> : tensor<f32>
  %c1 = stablehlo.constant {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [], replicated={"x"}>]>} dense<1.0> : tensor<f32>
  %b0 = stablehlo.broadcast_in_dim %c0, dims = [] : (tensor<f32>) -> tensor<8x6xf32>
  %b1 = stablehlo.broadcast_in_dim %c1, dims = [] : (tensor<f32>) -> tensor<8x6xf32>
  %a = stablehlo.add %arg0, %b0 : tensor<8x6xf32>
  %s = sdy.sharding_constraint %a <@mesh, [{}, {"x"}]> : tensor<8x6xf32>
  sdy.sharding_group %s group_id = 3 : tensor<8x6xf32>
  %d = stablehlo.dot_general %s, %arg1, contracting_dims = [1] x [0] : (tensor<8x6xf32>, tensor<6x16xf32>) -> tensor<8x16xf32>
  %i0 = stablehlo.constant dense<0> : tensor<i32>
  %w:2 = stablehlo.while(%it = %i0, %acc = %d) : tensor<i32>, tensor<8x16xf32>
    cond {
      %lim = stablehlo.constant dense<3> : tensor<i32>
      %p = stablehlo.compare LT, %it, %lim : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %p : tensor<i1>
    } do {
      %one = stablehlo.constant dense<1> : tensor<i32>
      %n = stablehlo.add %it, %one : tensor<i32>
      %m = stablehlo.multiply %acc, %acc : tensor<8x16xf32>
      stablehlo.return %n, %m : tensor<i32>, tensor<8x16xf32>
    }
  %r = stablehlo.add %b0, %b1 : tensor<8x6xf32>
  return %w#1, %r : tensor<8x16xf32>, tensor<8x6xf32>
}
