// A private declaration has an (empty) region in MLIR: its generic print
// keeps it, reads back as a declaration, and global-to-local skips the body it lacks (it crashed there).
// RUN: shard opt -mlir-print-op-generic %s > %t/generic.mlir
// RUN: cat %t/generic.mlir
// RUN: shard opt %t/generic.mlir
// RUN: not shard opt %s -sdy-convert-global-to-local
// CHECK: "func.func"() ({
// CHECK-NEXT: }) {function_type = (tensor<8xf32>) -> tensor<8xf32>, sym_name = "ext", sym_visibility = "private"} : () -> ()
// CHECK: func.func private @ext(tensor<8xf32>) -> tensor<8xf32>
// ERR: error: 'func.call' op operand type mismatch
sdy.mesh @m = <["x"=2]>
func.func private @ext(%a: tensor<8xf32>) -> tensor<8xf32>
func.func @main(%a: tensor<8xf32> {sdy.sharding = #sdy.sharding<@m, [{"x"}]>}) -> tensor<8xf32> {
  %0 = call @ext(%a) : (tensor<8xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}
