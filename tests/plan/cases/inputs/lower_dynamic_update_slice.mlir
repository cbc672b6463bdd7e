// dynamic_update_slice on an operand split over "x" (4 shards of 2) along
// the dim the update writes: each device writes only the part of the update
// that falls in its shard. The starts cover an update inside one shard
// (@inside), across two (@across), clamped from below (@below) and from
// above (@above, start 100 becomes 5), and a 2-d operand whose other dim is
// not sharded and only partly updated (@two_dims). Before, every device
// wrote the whole update at the global start into its local shard.
sdy.mesh @mesh = <["x"=4]>

func.func @inside(%arg0: tensor<8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}]>}, %arg1: tensor<2xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}) -> (tensor<8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}]>}) {
  %c = stablehlo.constant dense<4> : tensor<i32>
  %0 = stablehlo.dynamic_update_slice %arg0, %arg1, %c {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"x"}]>]>} : (tensor<8xf32>, tensor<2xf32>, tensor<i32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

func.func @across(%arg0: tensor<8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}]>}, %arg1: tensor<3xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}) -> (tensor<8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}]>}) {
  %c = stablehlo.constant dense<3> : tensor<i64>
  %0 = stablehlo.dynamic_update_slice %arg0, %arg1, %c {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"x"}]>]>} : (tensor<8xf32>, tensor<3xf32>, tensor<i64>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

func.func @below(%arg0: tensor<8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}]>}, %arg1: tensor<3xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}) -> (tensor<8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}]>}) {
  %c = stablehlo.constant dense<-2> : tensor<i32>
  %0 = stablehlo.dynamic_update_slice %arg0, %arg1, %c {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"x"}]>]>} : (tensor<8xf32>, tensor<3xf32>, tensor<i32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

func.func @above(%arg0: tensor<8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}]>}, %arg1: tensor<3xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}) -> (tensor<8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}]>}) {
  %c = stablehlo.constant dense<100> : tensor<i32>
  %0 = stablehlo.dynamic_update_slice %arg0, %arg1, %c {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"x"}]>]>} : (tensor<8xf32>, tensor<3xf32>, tensor<i32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

func.func @two_dims(%arg0: tensor<6x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"x"}]>}, %arg1: tensor<2x5xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, %i: tensor<i32>, %j: tensor<i32>) -> (tensor<6x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"x"}]>}) {
  %c1 = stablehlo.constant dense<3> : tensor<i32>
  %c2 = stablehlo.constant dense<1> : tensor<i32>
  %0 = stablehlo.dynamic_update_slice %arg0, %arg1, %c1, %c2 {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{}, {"x"}]>]>} : (tensor<6x8xf32>, tensor<2x5xf32>, tensor<i32>, tensor<i32>) -> tensor<6x8xf32>
  %1 = stablehlo.dynamic_update_slice %0, %arg1, %i, %j {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{}, {"x"}]>]>} : (tensor<6x8xf32>, tensor<2x5xf32>, tensor<i32>, tensor<i32>) -> tensor<6x8xf32>
  return %1 : tensor<6x8xf32>
}
