// StableHLO attributes are decoded once, when parsed, and printed from their
// structs in StableHLO's canonical spelling, whichever spelling came in
// (field order, the `raw` convolution form, #stablehlo.kind<V> enums). The
// pretty print is a fixed point and the generic print reads back to it; an
// attribute shard does not model, or malformed text on an op it does not
// model, is kept verbatim.
// RUN: shard opt %s -o %t/p1.mlir
// RUN: shard opt %t/p1.mlir -o %t/p2.mlir
// RUN: cmp %t/p1.mlir %t/p2.mlir
// RUN: shard opt %s --mlir-print-op-generic -o %t/g.mlir
// RUN: shard opt %t/g.mlir -o %t/p3.mlir
// RUN: cmp %t/p1.mlir %t/p3.mlir
// RUN: cat %t/p1.mlir %t/g.mlir
// CHECK: stablehlo.dot_general %arg0, %arg1, batching_dims = [0] x [0], contracting_dims = [2] x [1], precision = [HIGH, DEFAULT]
// CHECK: stablehlo.convolution(%arg2, %arg3) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = {{.}}[0, 0], [1, 1]]}
// CHECK: #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>
// CHECK: stablehlo.compare  GE, %arg0, %arg0,  FLOAT
// CHECK: channel_handle = #stablehlo.channel_handle<handle = 3, type = 0>
// CHECK: config = #stablehlo.dot<weird = [1]>, other = #stablehlo<comparison_direction XX>
// CHECK: dot_dimension_numbers = #stablehlo.dot<lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [1]>, precision_config = [#stablehlo<precision HIGH>, #stablehlo<precision DEFAULT>]
// CHECK: dimension_numbers = #stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>
// CHECK: comparison_direction = #stablehlo<comparison_direction GE>
func.func @f(%a: tensor<2x4x8xf32>, %b: tensor<2x8x16xf32>, %x: tensor<1x7x7x4xf32>, %k: tensor<3x3x4x2xf32>,
             %g: tensor<8x4xf32>, %i: tensor<3x1xi32>) -> (tensor<2x4x16xf32>, tensor<1x5x7x2xf32>, tensor<3x4xf32>, tensor<2x4x8xi1>, tensor<8x4xf32>, tensor<2x4x8xf32>) {
  %0 = "stablehlo.dot_general"(%a, %b) {dot_dimension_numbers = #stablehlo.dot<rhs_contracting_dimensions = [1],
        lhs_contracting_dimensions = [2], rhs_batching_dimensions=[0], lhs_batching_dimensions = [ 0 ]>,
        precision_config = [#stablehlo<precision HIGH>, #stablehlo.precision<DEFAULT>]} : (tensor<2x4x8xf32>, tensor<2x8x16xf32>) -> tensor<2x4x16xf32>
  %1 = "stablehlo.convolution"(%x, %k) {dimension_numbers = #stablehlo.conv<raw input_batch_dimension = 0, input_feature_dimension = 3, input_spatial_dimensions = [1, 2], kernel_input_feature_dimension = 2, kernel_output_feature_dimension = 3, kernel_spatial_dimensions = [0, 1], output_batch_dimension = 0, output_feature_dimension = 3, output_spatial_dimensions = [1, 2]>,
        padding = dense<[[0, 0], [1, 1]]> : tensor<2x2xi64>, window_strides = array<i64: 1, 1>, batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x7x7x4xf32>, tensor<3x3x4x2xf32>) -> tensor<1x5x7x2xf32>
  %2 = "stablehlo.gather"(%g, %i) <{dimension_numbers = #stablehlo.gather<index_vector_dim = 1, start_index_map = [0], collapsed_slice_dims = [0], offset_dims = [1]>, slice_sizes = array<i64: 1, 4>}> : (tensor<8x4xf32>, tensor<3x1xi32>) -> tensor<3x4xf32>
  %3 = "stablehlo.compare"(%a, %a) {comparison_direction = #stablehlo.comparison_direction<GE>, compare_type = #stablehlo<comparison_type FLOAT>} : (tensor<2x4x8xf32>, tensor<2x4x8xf32>) -> tensor<2x4x8xi1>
  %4 = "stablehlo.collective_permute"(%g) {channel_handle = #stablehlo.channel_handle<type = 0, handle = 3>, source_target_pairs = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<8x4xf32>) -> tensor<8x4xf32>
  %5 = "stablehlo.custom_call"(%a) {call_target_name = "foo", config = #stablehlo.dot<weird = [1]>, other = #stablehlo<comparison_direction XX>} : (tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  return %0, %1, %2, %3, %4, %5 : tensor<2x4x16xf32>, tensor<1x5x7x2xf32>, tensor<3x4xf32>, tensor<2x4x8xi1>, tensor<8x4xf32>, tensor<2x4x8xf32>
}
