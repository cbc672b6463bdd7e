// Argument and result attributes of func.func survive the generic form: the
// generic print carries them as arg_attrs/res_attrs, and reading that back
// gives the same module (a declaration keeps them too, with its empty region).
// RUN: shard opt %s > %t/pretty.mlir
// RUN: shard opt --mlir-print-op-generic %s > %t/generic.mlir
// RUN: shard opt %t/generic.mlir > %t/back.mlir
// RUN: diff %t/pretty.mlir %t/back.mlir
// RUN: cat %t/generic.mlir
// CHECK: "func.func"() ({
// CHECK-NEXT: ^bb0(%arg0: tensor<8x4xf32>, %arg1: tensor<4xf32>):
// CHECK: }) {arg_attrs = [{sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}]>}, {}], function_type = (tensor<8x4xf32>, tensor<4xf32>) -> (tensor<8x4xf32>, tensor<4xf32>), res_attrs = [{jax.result_info = "a", sdy.sharding = #sdy.sharding<@mesh, [{}, {"y"}]>}, {}], sym_name = "main"}
// CHECK: "func.func"() ({
// CHECK-NEXT: }) {arg_attrs = [{mhlo.sharding = "{replicated}"}], function_type = (tensor<4xf32>) -> tensor<4xf32>, sym_name = "decl", sym_visibility = "private"} : () -> ()
sdy.mesh @mesh = <["x"=2, "y"=2]>
func.func @main(%arg0: tensor<8x4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}]>}, %arg1: tensor<4xf32>)
    -> (tensor<8x4xf32> {jax.result_info = "a", sdy.sharding = #sdy.sharding<@mesh, [{}, {"y"}]>}, tensor<4xf32>) {
  %0 = call @decl(%arg1) : (tensor<4xf32>) -> tensor<4xf32>
  return %arg0, %0 : tensor<8x4xf32>, tensor<4xf32>
}
func.func private @decl(tensor<4xf32> {mhlo.sharding = "{replicated}"}) -> tensor<4xf32>
