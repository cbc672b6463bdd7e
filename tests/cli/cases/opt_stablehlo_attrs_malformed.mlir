// RUN: shard opt %s -split-input-file -verify-diagnostics
// Malformed dimension numbers on ops shard models are located errors (they
// are kept verbatim only on ops it does not model).

func.func @dot(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>) -> tensor<4x16xf32> {
  // expected-error @+1 {{'stablehlo.dot_general' op attribute 'dot_dimension_numbers' failed to satisfy constraint: Attribute that models the dimension information for dot.}}
  %0 = "stablehlo.dot_general"(%a, %b) {dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], lhs_contracting_dimensions = [0]>} : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}

// -----

func.func @conv(%x: tensor<1x7x7x4xf32>, %k: tensor<3x3x4x2xf32>) -> tensor<1x5x5x2xf32> {
  // expected-error @+1 {{'stablehlo.convolution' op attribute 'dimension_numbers' failed to satisfy constraint: Structure of dimension information for conv op}}
  %0 = "stablehlo.convolution"(%x, %k) {dimension_numbers = #stablehlo.conv<[b, 0, 0, f]x[0, 1, i, o]->[b, 0, 1, f]>, batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x7x7x4xf32>, tensor<3x3x4x2xf32>) -> tensor<1x5x5x2xf32>
  return %0 : tensor<1x5x5x2xf32>
}
