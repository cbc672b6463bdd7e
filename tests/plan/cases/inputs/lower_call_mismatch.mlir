// The call site says @f's result is split over "y"; @f returns it split over
// "x". With --no-propagate, shard lower now inserts the reshards around the
// call that the propagation pipeline's last step (insert-func-call-reshards)
// would, so the caller reads the result as @f lays it out. From Shardy's
// insert_func_call_reshards.mlir (non_flat_nested_calls_mixed_shardings).
sdy.mesh @mesh = <["x"=2, "y"=2]>

func.func @main(%arg0: tensor<8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}]>}) -> (tensor<8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}]>}) {
  %0 = call @f(%arg0) {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"y"}]>]>} : (tensor<8xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

func.func private @f(%arg0: tensor<8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}]>}) -> (tensor<8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}]>}) {
  %0 = stablehlo.abs %arg0 {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"x"}]>]>} : tensor<8xf32>
  return %0 : tensor<8xf32>
}
