// -sdy-convert-global-to-local on gathers and scatters whose operand is
// sharded on dims the indices address, as Shardy builds them: the index
// bounds are made per index component (a sharded collapsed dim: its
// shard's offset and last index, converted to the indices' element type;
// any other dim: 0 and its global last index), then reshaped to
// tensor<1xT>, concatenated and broadcast along the index vector dim (a
// single component is broadcast as is); sharded collapsed dims the indices
// never address give one scalar mask (the AND of offset == 0 per dim),
// broadcast once; a scatter's index offsets are built the same way, after
// the devices past the first along the updates' batch axes start from the
// identity of the reduction (an error when the body has none).
// RUN: shard opt %s -sdy-convert-global-to-local -o %t/out.mlir
// RUN: not shard opt %S/inputs/g2l_scatter_no_identity.mlir -sdy-convert-global-to-local -o %t/no.mlir 2> %t/err
// RUN: cat %t/out.mlir %t/err
// CHECK-LABEL: func.func @gather_two_indexed_dims(
// CHECK: %[[CLAMPED:.*]] = stablehlo.clamp
// CHECK-NEXT: stablehlo.partition_id
// CHECK: stablehlo.constant dense<[0, 0, 0, 0, 4, 4, 4, 4]> : tensor<8xi64>
// CHECK: %[[OFF0:.*]] = stablehlo.convert %{{.*}} : tensor<i64>
// CHECK-NEXT: %[[C3:.*]] = stablehlo.constant dense<3> : tensor<i64>
// CHECK-NEXT: %[[LIM0:.*]] = stablehlo.add %[[OFF0]], %[[C3]] : tensor<i64>
// CHECK-NEXT: stablehlo.partition_id
// CHECK: stablehlo.constant dense<[0, 2, 0, 2, 0, 2, 0, 2]> : tensor<8xi64>
// CHECK: %[[OFF2:.*]] = stablehlo.convert %{{.*}} : tensor<i64>
// CHECK-NEXT: %[[C1:.*]] = stablehlo.constant dense<1> : tensor<i64>
// CHECK-NEXT: %[[LIM2:.*]] = stablehlo.add %[[OFF2]], %[[C1]] : tensor<i64>
// CHECK-NEXT: %[[OFF4:.*]] = stablehlo.constant dense<0> : tensor<i64>
// CHECK-NEXT: %[[LIM4:.*]] = stablehlo.constant dense<2> : tensor<i64>
// CHECK-NEXT: %[[R0:.*]] = stablehlo.reshape %[[OFF0]] : (tensor<i64>) -> tensor<1xi64>
// CHECK-NEXT: %[[R1:.*]] = stablehlo.reshape %[[OFF2]] : (tensor<i64>) -> tensor<1xi64>
// CHECK-NEXT: %[[R2:.*]] = stablehlo.reshape %[[OFF4]] : (tensor<i64>) -> tensor<1xi64>
// CHECK-NEXT: %[[OFFS:.*]] = stablehlo.concatenate %[[R0]], %[[R1]], %[[R2]], dim = 0 : (tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<3xi64>
// CHECK-NEXT: %[[BOFF:.*]] = stablehlo.broadcast_in_dim %[[OFFS]], dims = [2] : (tensor<3xi64>) -> tensor<3x2x3xi64>
// CHECK-NEXT: %[[L0:.*]] = stablehlo.reshape %[[LIM0]] : (tensor<i64>) -> tensor<1xi64>
// CHECK-NEXT: %[[L1:.*]] = stablehlo.reshape %[[LIM2]] : (tensor<i64>) -> tensor<1xi64>
// CHECK-NEXT: %[[L2:.*]] = stablehlo.reshape %[[LIM4]] : (tensor<i64>) -> tensor<1xi64>
// CHECK-NEXT: %[[LIMS:.*]] = stablehlo.concatenate %[[L0]], %[[L1]], %[[L2]], dim = 0
// CHECK-NEXT: %[[BLIM:.*]] = stablehlo.broadcast_in_dim %[[LIMS]], dims = [2] : (tensor<3xi64>) -> tensor<3x2x3xi64>
// CHECK-NEXT: %[[LOCAL:.*]] = stablehlo.subtract %[[CLAMPED]], %[[BOFF]] : tensor<3x2x3xi64>
// CHECK-NEXT: %[[GE:.*]] = stablehlo.compare GE, %[[CLAMPED]], %[[BOFF]]
// CHECK-NEXT: %[[LE:.*]] = stablehlo.compare LE, %[[CLAMPED]], %[[BLIM]]
// CHECK-NEXT: %[[MASK:.*]] = stablehlo.and %[[GE]], %[[LE]] : tensor<3x2x3xi1>
// CHECK-NEXT: "stablehlo.gather"(%arg0, %[[LOCAL]])
// CHECK: stablehlo.reduce(%[[MASK]] init: %{{.*}}) applies stablehlo.and across dimensions = [2]
// CHECK-LABEL: func.func @gather_i32_indices(
// CHECK: %[[OFF:.*]] = stablehlo.convert %{{.*}} : (tensor<i64>) -> tensor<i32>
// CHECK-NEXT: %[[C3:.*]] = stablehlo.constant dense<3> : tensor<i32>
// CHECK-NEXT: %[[LIM:.*]] = stablehlo.add %[[OFF]], %[[C3]] : tensor<i32>
// CHECK-NEXT: stablehlo.broadcast_in_dim %[[OFF]], dims = [] : (tensor<i32>) -> tensor<2xi32>
// CHECK-NEXT: stablehlo.broadcast_in_dim %[[LIM]], dims = [] : (tensor<i32>) -> tensor<2xi32>
// CHECK-LABEL: func.func @gather_two_unindexed_dims(
// CHECK: %[[IDX_MASK:.*]] = stablehlo.and %{{.*}}, %{{.*}} : tensor<3x1xi1>
// CHECK: stablehlo.constant dense<[0, 0, 2, 2, 0, 0, 2, 2]> : tensor<8xi64>
// CHECK: %[[EQ1:.*]] = stablehlo.compare EQ, %{{.*}}, %{{.*}} : (tensor<i64>, tensor<i64>) -> tensor<i1>
// CHECK: stablehlo.constant dense<[0, 1, 0, 1, 0, 1, 0, 1]> : tensor<8xi64>
// CHECK: %[[EQ2:.*]] = stablehlo.compare EQ, %{{.*}}, %{{.*}} : (tensor<i64>, tensor<i64>) -> tensor<i1>
// CHECK-NEXT: %[[FIRST:.*]] = stablehlo.and %[[EQ1]], %[[EQ2]] : tensor<i1>
// CHECK-NEXT: %[[BFIRST:.*]] = stablehlo.broadcast_in_dim %[[FIRST]], dims = [] : (tensor<i1>) -> tensor<3x1xi1>
// CHECK-NEXT: stablehlo.and %[[IDX_MASK]], %[[BFIRST]] : tensor<3x1xi1>
// CHECK-NEXT: "stablehlo.gather"
// CHECK-LABEL: func.func @scatter_index_vector_of_one(
// CHECK: %[[OFF:.*]] = stablehlo.convert %{{.*}} : (tensor<i64>) -> tensor<i32>
// CHECK-NEXT: %[[BOFF:.*]] = stablehlo.broadcast_in_dim %[[OFF]], dims = [] : (tensor<i32>) -> tensor<3x1xi32>
// CHECK-NEXT: %[[LOCAL:.*]] = stablehlo.subtract %arg1, %[[BOFF]] : tensor<3x1xi32>
// CHECK-NEXT: "stablehlo.scatter"(%arg0, %[[LOCAL]], %arg2)
// CHECK-LABEL: func.func @scatter_sharded_then_unsharded_component(
// CHECK-NEXT: stablehlo.partition_id
// CHECK: %[[OFF:.*]] = stablehlo.convert %{{.*}} : tensor<i64>
// CHECK-NEXT: %[[ZERO:.*]] = stablehlo.constant dense<0> : tensor<i64>
// CHECK-NEXT: %[[R0:.*]] = stablehlo.reshape %[[OFF]] : (tensor<i64>) -> tensor<1xi64>
// CHECK-NEXT: %[[R1:.*]] = stablehlo.reshape %[[ZERO]] : (tensor<i64>) -> tensor<1xi64>
// CHECK-NEXT: %[[CAT:.*]] = stablehlo.concatenate %[[R0]], %[[R1]], dim = 0 : (tensor<1xi64>, tensor<1xi64>) -> tensor<2xi64>
// CHECK-NEXT: %[[BOFF:.*]] = stablehlo.broadcast_in_dim %[[CAT]], dims = [1] : (tensor<2xi64>) -> tensor<5x2xi64>
// CHECK-NEXT: %[[LOCAL:.*]] = stablehlo.subtract %arg1, %[[BOFF]] : tensor<5x2xi64>
// CHECK-NEXT: "stablehlo.scatter"(%arg0, %[[LOCAL]], %arg2)
// CHECK-LABEL: func.func @scatter_updates_sharded_on_batch_and_operand_on_indexed_dim(
// CHECK: %[[ID:.*]] = stablehlo.constant dense<0.000000e+00> : tensor<f32>
// CHECK-NEXT: stablehlo.partition_id
// CHECK-NEXT: stablehlo.convert
// CHECK-NEXT: %[[TABLE:.*]] = stablehlo.constant dense<[true, true, true, true, false, false, false, false]> : tensor<8xi1>
// CHECK-NEXT: %[[LEAD:.*]] = stablehlo.dynamic_slice %[[TABLE]]
// CHECK-NEXT: %[[MASK:.*]] = stablehlo.broadcast_in_dim %[[LEAD]], dims = [0] : (tensor<1xi1>) -> tensor<2x4xi1>
// CHECK-NEXT: %[[IDS:.*]] = stablehlo.broadcast_in_dim %[[ID]], dims = [] : (tensor<f32>) -> tensor<2x4xf32>
// CHECK-NEXT: %[[INPUT:.*]] = stablehlo.select %[[MASK]], %arg0, %[[IDS]]
// CHECK-NEXT: stablehlo.partition_id
// CHECK: %[[LOCAL:.*]] = stablehlo.subtract %arg1
// CHECK-NEXT: "stablehlo.scatter"(%[[INPUT]], %[[LOCAL]], %arg2)
// CHECK-LABEL: func.func @scatter_max_updates_sharded_on_batch(
// CHECK-NEXT: %[[LOWEST:.*]] = stablehlo.constant dense<-2147483648> : tensor<i32>
// CHECK-NEXT: stablehlo.partition_id
// CHECK: %[[IDS:.*]] = stablehlo.broadcast_in_dim %[[LOWEST]], dims = [] : (tensor<i32>) -> tensor<8x4xi32>
// CHECK-NEXT: %[[INPUT:.*]] = stablehlo.select %{{.*}}, %arg0, %[[IDS]]
// CHECK-NEXT: "stablehlo.scatter"(%[[INPUT]], %arg1, %arg2)
// CHECK: g2l_scatter_no_identity.mlir:8:3: error: failed to get scatter reduction identity.
// CHECK: error: failed to legalize operation 'stablehlo.scatter' that was explicitly marked illegal
sdy.mesh @mesh = <["x"=2, "y"=4]>

func.func @gather_two_indexed_dims(
  %arg0: tensor<8x6x4x5x3xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {"y":(1)2}, {"y":(2)2}, {}, {}]>},
  %arg1: tensor<6x2x3xi64> {sdy.sharding = #sdy.sharding<@mesh, [{"y":(1)2}, {}, {}]>})
  -> (tensor<6x2x1x1x5x1xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"y":(1)2}, {}, {}, {}, {}, {}]>}) {
  %0 = "stablehlo.gather"(%arg0, %arg1) {
    dimension_numbers = #stablehlo.gather<offset_dims = [2, 3, 4, 5], operand_batching_dims = [1],
      start_indices_batching_dims = [0], start_index_map = [0, 2, 4], index_vector_dim = 2>,
    slice_sizes = array<i64: 1, 1, 1, 5, 1>,
    sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"y":(1)2}, {}, {}, {}, {}, {}]>]>
  } : (tensor<8x6x4x5x3xf32>, tensor<6x2x3xi64>) -> tensor<6x2x1x1x5x1xf32>
  %1 = sdy.all_reduce {"x", "y":(2)2} %0 out_sharding=<@mesh, [{"y":(1)2}, {}, {}, {}, {}, {}]> : tensor<6x2x1x1x5x1xf32>
  return %1 : tensor<6x2x1x1x5x1xf32>
}

func.func @gather_i32_indices(
  %arg0: tensor<8x10xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}]>},
  %arg1: tensor<2xi32>) -> tensor<2x10xf32> {
  %0 = "stablehlo.gather"(%arg0, %arg1) {
    dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>,
    slice_sizes = array<i64: 1, 10>
  } : (tensor<8x10xf32>, tensor<2xi32>) -> tensor<2x10xf32>
  %1 = sdy.all_reduce {"x"} %0 out_sharding=<@mesh, [{}, {}]> : tensor<2x10xf32>
  return %1 : tensor<2x10xf32>
}

func.func @gather_two_unindexed_dims(
  %arg0: tensor<8x4x2x10xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {"y":(1)2}, {"y":(2)2}, {}]>},
  %arg1: tensor<3x1xi64>) -> tensor<3x10xf32> {
  %0 = "stablehlo.gather"(%arg0, %arg1) {
    dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0, 1, 2], start_index_map = [0], index_vector_dim = 1>,
    slice_sizes = array<i64: 1, 1, 1, 10>
  } : (tensor<8x4x2x10xf32>, tensor<3x1xi64>) -> tensor<3x10xf32>
  %1 = sdy.all_reduce {"x", "y"} %0 out_sharding=<@mesh, [{}, {}]> : tensor<3x10xf32>
  return %1 : tensor<3x10xf32>
}

func.func @scatter_index_vector_of_one(
  %arg0: tensor<8x2xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"y"}, {}]>},
  %arg1: tensor<3x1xi32>, %arg2: tensor<3x2xf32>)
  -> (tensor<8x2xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"y"}, {}]>}) {
  %0 = "stablehlo.scatter"(%arg0, %arg1, %arg2) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    stablehlo.return %b : tensor<f32>
  }) {
    scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0],
      scatter_dims_to_operand_dims = [0], index_vector_dim = 1>,
    sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"y"}, {}]>]>
  } : (tensor<8x2xf32>, tensor<3x1xi32>, tensor<3x2xf32>) -> tensor<8x2xf32>
  return %0 : tensor<8x2xf32>
}

func.func @scatter_sharded_then_unsharded_component(
  %arg0: tensor<4x6x2xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}, {}]>},
  %arg1: tensor<5x2xi64>, %arg2: tensor<5x2xf32>)
  -> (tensor<4x6x2xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}, {}]>}) {
  %0 = "stablehlo.scatter"(%arg0, %arg1, %arg2) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %s = stablehlo.add %a, %b : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) {
    scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0, 1],
      scatter_dims_to_operand_dims = [0, 1], index_vector_dim = 1>,
    sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"x"}, {}, {}]>]>
  } : (tensor<4x6x2xf32>, tensor<5x2xi64>, tensor<5x2xf32>) -> tensor<4x6x2xf32>
  return %0 : tensor<4x6x2xf32>
}

func.func @scatter_updates_sharded_on_batch_and_operand_on_indexed_dim(
  %arg0: tensor<8x4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"y"}, {}]>},
  %arg1: tensor<6x1xi64> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}]>},
  %arg2: tensor<6x4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}]>})
  -> (tensor<8x4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"y"}, {}]>}) {
  %0 = "stablehlo.scatter"(%arg0, %arg1, %arg2) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %s = stablehlo.add %a, %b : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) {
    scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0],
      scatter_dims_to_operand_dims = [0], index_vector_dim = 1>,
    sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"y"}, {}]>]>
  } : (tensor<8x4xf32>, tensor<6x1xi64>, tensor<6x4xf32>) -> tensor<8x4xf32>
  %1 = sdy.all_reduce {"x"} %0 out_sharding=<@mesh, [{"y"}, {}]> : tensor<8x4xf32>
  return %1 : tensor<8x4xf32>
}

func.func @scatter_max_updates_sharded_on_batch(
  %arg0: tensor<8x4xi32>,
  %arg1: tensor<6x1xi64> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}]>},
  %arg2: tensor<6x4xi32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}]>}) -> tensor<8x4xi32> {
  %0 = "stablehlo.scatter"(%arg0, %arg1, %arg2) ({
  ^bb0(%a: tensor<i32>, %b: tensor<i32>):
    %m = stablehlo.maximum %a, %b : tensor<i32>
    stablehlo.return %m : tensor<i32>
  }) {
    scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0],
      scatter_dims_to_operand_dims = [0], index_vector_dim = 1>
  } : (tensor<8x4xi32>, tensor<6x1xi64>, tensor<6x4xi32>) -> tensor<8x4xi32>
  %1 = sdy.all_reduce {"x"} %0 out_sharding=<@mesh, [{}, {}]> : tensor<8x4xi32>
  return %1 : tensor<8x4xi32>
}
