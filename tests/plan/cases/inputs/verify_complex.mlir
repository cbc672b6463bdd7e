// A complex-valued FFT along a sharded dimension: lowering gathers the
// dimension, and --verify compares complex results part by part.
sdy.mesh @mesh = <["x"=2, "y"=2]>
func.func @main(%arg0: tensor<4x8xcomplex<f32>> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {"y"}]>})
    -> (tensor<4x8xcomplex<f32>> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {"y"}]>}) {
  %0 = stablehlo.fft %arg0, type = FFT, length = [8] : (tensor<4x8xcomplex<f32>>) -> tensor<4x8xcomplex<f32>>
  return %0 : tensor<4x8xcomplex<f32>>
}
