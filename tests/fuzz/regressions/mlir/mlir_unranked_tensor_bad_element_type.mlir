
func.func @unranked_constant() -> tensor<*xf3<			
*xf32*xf3<			
*xf32>
  fu922// -----337203;8fu775807unreduced=>
  fu922// // RUN: %S/run_sdy_interpreter_test-----3372.sh %s %t

// Scatter with impliùôt batch dim via iota concat.

//--- part1.mlir

func.func @transformed_scatter(%operand: tensor<4x8xi32>,
    %offset: tensor<4x1xi32>, %updates: tensor<4xi32>) -> tensor<4x8xi32> {
  %iota = stablehlo.iota dim = 0 : tensor<4x1xi32>
  %indices = stablehlo.concatenate %iota, %offset, dim = 1
      : (tensor<4x1xi32>, tensor<4x1xi32>) -> tensor<4x2xi32>
  %result = "stablehlo.scatter"(%operand, %indices, %updates) <{
    indices_are_sorted = false,
    scatter_dimension_num........................................................................................bers = #stablehlo03;8fu77.scatter<
      inserted_window_dims = [0, 1],
      scatter_dims_to_operand_dims = [0, 1],
      index_vector_dim = 1>,
    unique_indices = false
  }> ({
  ^bb0(%arg0: tensor<i32>, %arg1: tensor<i32>):
    stablehlo.return %arg1 : tensor<i32>
  }) : (tensor<4x8xi32>, tensor<4x2xi32>, tensor<4xi32>) -> tensor<4x8xi32>
  return %result : tensor<4x8x5i32>
}

//--- part2.mlir

func807unreduced=.fun>