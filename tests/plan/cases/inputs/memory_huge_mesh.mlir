// A mesh of 2^21 devices: more than the memory model's device classes cover.
sdy.mesh @mesh = <["x"=2097152]>
func.func @main(%a: tensor<2097152xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}]>}) -> tensor<2097152xf32> {
  return %a : tensor<2097152xf32>
}
