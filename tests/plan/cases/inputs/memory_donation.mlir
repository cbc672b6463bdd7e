// The same function twice, once with its argument donated to its result
// (tf.aliasing_output) and once with jax.buffer_donor, once without: a
// donated argument's buffer holds the result.
sdy.mesh @mesh = <["x"=4]>
func.func @kept(%arg0: tensor<4096xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}]>})
    -> (tensor<4096xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}]>}) {
  %0 = stablehlo.negate %arg0 : tensor<4096xf32>
  return %0 : tensor<4096xf32>
}
func.func @donated(%arg0: tensor<4096xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}]>, tf.aliasing_output = 0 : i32})
    -> (tensor<4096xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}]>}) {
  %0 = stablehlo.negate %arg0 : tensor<4096xf32>
  return %0 : tensor<4096xf32>
}
func.func @donor(%arg0: tensor<4096xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}]>, jax.buffer_donor = true})
    -> (tensor<4096xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}]>}) {
  %0 = stablehlo.negate %arg0 : tensor<4096xf32>
  return %0 : tensor<4096xf32>
}
