// Functions --verify cannot run: 8192 devices (one interpreter thread
// each, at most 4096) and values of more elements than the interpreter
// holds. Both are skipped with a note instead of exhausting memory.
sdy.mesh @wide = <["x"=8192]>
sdy.mesh @mesh = <["x"=2]>
func.func @many_devices(%arg0: tensor<8192xf32> {sdy.sharding = #sdy.sharding<@wide, [{"x"}]>}) -> tensor<8192xf32> {
  %0 = stablehlo.negate %arg0 : tensor<8192xf32>
  return %0 : tensor<8192xf32>
}
func.func @huge(%arg0: tensor<65536x2048xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}]>}) -> tensor<65536x2048xf32> {
  %0 = stablehlo.negate %arg0 : tensor<65536x2048xf32>
  return %0 : tensor<65536x2048xf32>
}
