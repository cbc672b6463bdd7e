sdy.mesh @mesh = <["x"=4]>

// 5 rows over 4 devices: each holds 2, the last only padding. Without the
// padding the all_slice offsets 0, 2, 4, 6 are clamped to 3, so device 2
// held rows 3 and 4 instead of row 4, and the all_gather gave 8 rows.
func.func @rows_5_over_4(%arg0: tensor<5x4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}) -> (tensor<5x4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}) {
  %0 = stablehlo.negate %arg0 {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"x"}, {}]>]>} : tensor<5x4xf32>
  %1 = stablehlo.abs %0 {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{}, {}]>]>} : tensor<5x4xf32>
  return %1 : tensor<5x4xf32>
}
