// chlo.ragged_dot whose operand shapes do not fit its dimension numbers is a
// located error (it read outside the operands), and propagation gives it no
// rule instead of crashing.
// RUN: not shard interpret %s
// RUN: shard propagate %s -o %t/out.mlir
// ERR: interpret_ragged_dot_mismatch.mlir:11:3: error: the operand and result types of 'chlo.ragged_dot' do not fit its dimension numbers
func.func @main() {
  %rl = stablehlo.constant dense<1> : tensor<4x3xi32>
  %rr = stablehlo.constant dense<1> : tensor<2x2x3xi32>
  %rg = stablehlo.constant dense<[1, 2]> : tensor<2xi64>
  %rd = "chlo.ragged_dot"(%rl, %rr, %rg) {ragged_dot_dimension_numbers = #chlo.ragged_dot<lhs_batching_dimensions = [], rhs_batching_dimensions = [], lhs_contracting_dimensions = [7], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]>} : (tensor<4x3xi32>, tensor<2x2x3xi32>, tensor<2xi64>) -> tensor<4x3xi32>
  func.return
}
