// A gather whose dimension numbers leave out index_vector_dim (StableHLO's
// printer omits it when it is 0) still has a sharding rule: the batch
// dimension of the indices (dim 1 here) and the result's dim 0 are one
// factor, so the indices' sharding reaches the result.
sdy.mesh @mesh = <["x"=4]>
func.func @main(%x: tensor<8x16xf32>, %i: tensor<1x4xi32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"x"}]>}) -> tensor<4x16xf32> {
  %0 = "stablehlo.gather"(%x, %i) <{dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0]>, slice_sizes = array<i64: 1, 16>}> : (tensor<8x16xf32>, tensor<1x4xi32>) -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}
