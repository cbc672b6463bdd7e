// Both directions with MLIR 16: mlir-opt-16 reads shard's generic print and
// prints it generic again, and shard reads that back to the same module; a
// module mlir-opt-16 itself prints generic (builtin and func in custom syntax,
// sdy in generic form, so that it can read the input) is read by shard to the same module.
// RUN: shard opt %s > %t/pretty.mlir
// RUN: shard opt --mlir-print-op-generic %s > %t/generic.mlir
// RUN: "$MLIR_OPT" --allow-unregistered-dialect --mlir-print-op-generic %t/generic.mlir > %t/m16.mlir
// RUN: grep -c 'arg_attrs = \[{sdy.sharding' %t/m16.mlir
// RUN: shard opt %t/m16.mlir > %t/back.mlir
// RUN: diff %t/pretty.mlir %t/back.mlir
// RUN: "$MLIR_OPT" --allow-unregistered-dialect --mlir-print-op-generic %s > %t/direct.mlir
// RUN: shard opt %t/direct.mlir > %t/back2.mlir
// RUN: diff %t/pretty.mlir %t/back2.mlir
// CHECK: 1
module attributes {mhlo.num_partitions = 4 : i32} {
  "sdy.mesh"() {mesh = #sdy.mesh<["x"=2]>, sym_name = "mesh"} : () -> ()
  func.func @main(%arg0: tensor<8x4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}]>}, %arg1: tensor<4xf32> {mhlo.layout_mode = "default"})
      -> (tensor<8x4xf32> {jax.result_info = "a"}, tensor<4xf32>) {
    %0 = call @decl(%arg1) : (tensor<4xf32>) -> tensor<4xf32>
    return %arg0, %0 : tensor<8x4xf32>, tensor<4xf32>
  }
  func.func private @decl(tensor<4xf32> {mhlo.sharding = "{replicated}"}) -> (tensor<4xf32> {a.b = 1 : i32})
}
