// The Megatron MLP of issue 20 on data=4 x model=2: batch 32, hidden
// 512 -> 2048 -> 512, f32, no biases; the first weight column-parallel, the
// second row-parallel, tanh in between.
sdy.mesh @mesh = <["data"=4, "model"=2]>
func.func @main(%x: tensor<32x512xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"data"}, {}]>},
                %w1: tensor<512x2048xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"model"}]>},
                %w2: tensor<2048x512xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"model"}, {}]>})
    -> (tensor<32x512xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"data"}, {}]>}) {
  %h = stablehlo.dot_general %x, %w1, contracting_dims = [1] x [0] : (tensor<32x512xf32>, tensor<512x2048xf32>) -> tensor<32x2048xf32>
  %a = stablehlo.tanh %h : tensor<32x2048xf32>
  %y = stablehlo.dot_general %a, %w2, contracting_dims = [1] x [0] : (tensor<32x2048xf32>, tensor<2048x512xf32>) -> tensor<32x512xf32>
  return %y : tensor<32x512xf32>
}
