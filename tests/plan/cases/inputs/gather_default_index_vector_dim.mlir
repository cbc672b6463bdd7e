// StableHLO's printer omits index_vector_dim when it is 0, so a gather or
// scatter without it has index_vector_dim = 0: both gathers pick x[3] and
// x[5] (indices [[3, 5]] read down dim 0), and so do both scatters.
func.func @main() {
  %x = stablehlo.iota dim = 0 : tensor<8xi32>
  %i = stablehlo.constant dense<[[3, 5]]> : tensor<1x2xi32>
  %a = "stablehlo.gather"(%x, %i) <{dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 0>, slice_sizes = array<i64: 1>}> : (tensor<8xi32>, tensor<1x2xi32>) -> tensor<2xi32>
  %b = "stablehlo.gather"(%x, %i) <{dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [0], start_index_map = [0]>, slice_sizes = array<i64: 1>}> : (tensor<8xi32>, tensor<1x2xi32>) -> tensor<2xi32>
  check.expect_eq_const %b, dense<[3, 5]> : tensor<2xi32>
  "check.expect_eq"(%a, %b) : (tensor<2xi32>, tensor<2xi32>) -> ()
  %u = stablehlo.constant dense<[10, 20]> : tensor<2xi32>
  %s = "stablehlo.scatter"(%x, %i, %u) <{scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0], scatter_dims_to_operand_dims = [0]>}> ({
  ^bb0(%p: tensor<i32>, %q: tensor<i32>):
    stablehlo.return %q : tensor<i32>
  }) : (tensor<8xi32>, tensor<1x2xi32>, tensor<2xi32>) -> tensor<8xi32>
  check.expect_eq_const %s, dense<[0, 1, 2, 10, 4, 20, 6, 7]> : tensor<8xi32>
  return
}
