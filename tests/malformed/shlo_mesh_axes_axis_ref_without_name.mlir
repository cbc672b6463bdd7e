func.func @f(%a: tensor<4xf32>) -> tensor<8xf32> {
  %0 = "stablehlo.all_gather"(%a) {all_gather_dim = 0 : i64, replica_groups = #stablehlo.replica_group_mesh_axes<mesh = @m, axes = [#stablehlo.axis_ref<sub_axis_info = (1)2>]>} : (tensor<4xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}
