"builtin.module"() ({
  "sdy.mesh"() {mesh = #sdy.mesh<["x"=4]>, sym_name = "mesh"} : () -> ()
  "func.func"() ({
  ^bb0(%arg0: tensor<8xf32>):
    %0 = "sdy.all_gather"(%arg0) {gathering_axes = #sdy<list_of_axis_ref_lists[{"x"}]>, out_sharding = #sdy.sharding<@mesh, [{}]>} : (tensor<8xf32>) -> tensor<8xf32>
    "func.return"(%0) : (tensor<8xf32>) -> ()
  }) {arg_attrs = [{sdy.sharding = #sdy.sharding<@mesh, [{"x"}]>}], function_type = (tensor<8xf32>) -> tensor<8xf32>, sym_name = "f"} : () -> ()
}) : () -> ()
